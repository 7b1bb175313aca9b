/* SPDX-License-Identifier: MIT */
/*
 * Internal to libgpucore-dbgapi (dbgapi_*.c): the library's state, its objects and the
 * helpers the API files share.
 *
 * The library serves one interface, amd-dbgapi 0.77, over cores: a client attaches to a
 * process it names, answers the core handshake (OS pid NOT_AVAILABLE, then the AMDGPU
 * core-state note) and serves memory through xfer_global_memory. The library rebuilds the GPU
 * process image from those (analyze/image.h) and presents it as AMD's library would
 * (docs/dbgapi-on-cores.md).
 *
 * Handles of process-level objects (processes, agents, queues, dispatches, workgroups, waves,
 * code objects, events, displaced steppings, watchpoints, breakpoints) are numbered as AMD's
 * library numbers them, so that a debugger names things the same (GDB's "AMDGPU Wave
 * 1:1:1:253" is agent:queue:dispatch:wave): one counter per kind, the first object of a kind
 * is 1. The counters of every kind but processes restart at 1 when the library is initialized
 * again (a handle is unique within one initialize..finalize instance, as the interface
 * promises and AMD's library does); process handles are never reused. A core's process does not
 * change after attach, so each kind of entity of a process takes one contiguous block of its
 * kind's ids at attach; finding an object is a range test over the (few) processes.
 *
 * Handles of architecture-level objects are AMD's, and the same for the life of the library,
 * across amd_dbgapi_finalize and amd_dbgapi_initialize (a debugger caches them per
 * architecture): AMD's library creates its 18 architectures when it loads, in the order of
 * gc_arch_table, numbered from 1; each creates 4 address spaces (local, private_lane,
 * private_wave, generic; one counter from 2 over all architectures, 1 being the global space),
 * 5 address classes (none, global, constant, group, private; from 1) and 5 register classes
 * (scalar, vector, trap, system, general; from 1), and its lists give them newest first. A
 * register's handle is its architecture's in the high 32 bits and AMD's register number
 * (struct gc_reg.regnum) in the low ones. So every such handle is computed, not allocated.
 *
 * Not thread safe: the interface says one client thread at a time. No printing: messages go to
 * the client's log_message callback.
 */
#ifndef GC_DBGAPI_INTERNAL_H
#define GC_DBGAPI_INTERNAL_H

#ifndef AMD_DBGAPI_EXPORTS
#define AMD_DBGAPI_EXPORTS 1
#endif

#include <stddef.h>
#include <stdint.h>

#include "amd-dbgapi/amd-dbgapi.h"
#include "arch.h"
#include "arch_regs.h"
#include "gc_util.h"
#include "image.h"
#include "wave.h"

/* ---- status sets (statuses.def) ------------------------------------------------------------- */

enum gc_dbg_fn {
#define GC_DBGAPI_ABI_FN(name, ver) GC_DBG_FN_##name,
#include "abi_table.def"
    GC_DBG_FN_COUNT
};

/*
 * Return @p st from function @p fn, checked against the function's documented set: a status
 * outside it is logged as a library bug, asserted in debug builds and turned into FATAL.
 */
amd_dbgapi_status_t gc_dbg_ret(enum gc_dbg_fn fn, amd_dbgapi_status_t st);
#define DBG_RETURN(fn, st) return gc_dbg_ret(GC_DBG_FN_##fn, (st))

/* Non-zero if @p st is in @p fn's documented set (for the conformance tests too). */
int gc_dbg_status_allowed(enum gc_dbg_fn fn, amd_dbgapi_status_t st);

/* ---- logging ------------------------------------------------------------------------------- */

void gc_dbg_log(amd_dbgapi_log_level_t level, const char *fmt, ...) GC_PRINTF(2, 3);

/* ---- library state ------------------------------------------------------------------------- */

/* The kinds of list a client can ask for, each with its own "changed" flag. */
enum gc_dbg_list {
    GC_DBG_LIST_CODE_OBJECTS,
    GC_DBG_LIST_AGENTS,
    GC_DBG_LIST_QUEUES,
    GC_DBG_LIST_DISPATCHES,
    GC_DBG_LIST_WORKGROUPS,
    GC_DBG_LIST_WAVES,
    GC_DBG_LIST_COUNT
};

/* An architecture the client has used (agent, get_architecture, a handle of its parts). */
struct gc_dbg_arch {
    const struct gc_arch *arch;
    uint64_t id;              /* its row in gc_arch_table + 1 */
    struct gc_reglist regs;   /* gc_arch_register_list(): register i is gc_dbg_register_id() */
    uint32_t *by_regnum;      /* [AMD's register number]: index in regs, UINT32_MAX if none; so
                                 a register handle is looked up, not searched for */
    uint32_t nregnums;        /* the last register's number + 1 (regs ascend by number) */
};

/* AMD's register numbers are below this (its amdgpu_regnum_t ends near 1,400): the bound of a
   by_regnum table, which an architecture whose list goes past it does not get (a table bug). */
#define GC_DBG_MAX_REGNUM 4096u

/* The kinds of numbered architecture parts: part i (in AMD's creation order) of architecture
   a is gc_dbg_part_first[kind] + (a - 1) * gc_dbg_part_count[kind] + i. */
enum gc_dbg_part {
    GC_DBG_PART_REGISTER_CLASS, /* i: bit index of GC_REGCLASS_* */
    GC_DBG_PART_ADDRESS_SPACE,  /* i: index in gc_dbg_space_order (not the global space) */
    GC_DBG_PART_ADDRESS_CLASS,  /* i: index in gc_address_classes() */
    GC_DBG_PART_COUNT
};
extern const uint64_t gc_dbg_part_first[GC_DBG_PART_COUNT];
extern const uint32_t gc_dbg_part_count[GC_DBG_PART_COUNT];
/* The address spaces other than global, in the order AMD's library creates them. */
extern const enum gc_aspace gc_dbg_space_order[_GC_ASPACE_MAX - 1];

struct gc_dbg_wave {
    uint32_t img;        /* image wave index */
    uint32_t queue;      /* slot in the process's queue table */
    uint32_t dispatch;   /* slot in the dispatch table, UINT32_MAX when not known */
    uint32_t workgroup;  /* slot in the workgroup table */
    int visible_stop;    /* its WAVE_STOP event has been fetched: the client sees it stopped */
    uint8_t forced_stop; /* saved running: AMD's library stopped it at attach (and parked it) */
    uint8_t has_event;   /* a WAVE_STOP event reports it (not a wave saved stopped with no
                            cause: that one was reported before the core was written) */
};

/*
 * A register list shared by the waves of one shape (arch_regs.h, struct gc_reg_shape): a
 * wave's list depends on its geometry only, and a core's waves share a few geometries, so the
 * list (~50 KiB: 800 registers on gfx90a) is built once per shape, not once per wave. A
 * process keeps GC_DBG_SHAPES of them; one that no GC_DBG_REGCACHE entry uses is replaced
 * when a new shape is needed.
 */
#define GC_DBG_SHAPES 16
struct gc_dbg_shape {
    const struct gc_dbg_arch *arch; /* NULL: the entry is empty */
    struct gc_reg_shape key;
    struct gc_reglist regs;         /* gc_wave_register_list() of a wave of this shape */
    uint32_t *at;                   /* [index in arch->regs]: index in regs, UINT32_MAX when
                                       the wave has no such register: lookup, not search */
    uint32_t users;                 /* regcache entries using it */
};

/*
 * The waves read last: their shape's register list and, once a register is read, their saved
 * registers. The library keeps no list and no record per wave: a core can hold 100,000 waves,
 * and the wave's record (its VGPRs, SGPRs and LDS), which the image does not copy
 * (analyze/image.h), is read from the client's memory when a register is first read. A
 * debugger reads one wave's registers at a time, which these few entries serve.
 */
#define GC_DBG_REGCACHE 8
struct gc_dbg_regcache {
    uint32_t slot;          /* wave slot, UINT32_MAX: empty */
    struct gc_dbg_shape *shape; /* its register list (in the process's shapes) */
    uint8_t ttmp[16 * 4];   /* the TTMPs as AMD's library holds them after attach */
    int have_record;        /* rec holds the wave's record and wave is bound to it */
    struct gc_image_record rec;
    struct gc_wave wave;    /* the record's wave, its ttmp pointing at the array above */
};

struct gc_dbg_workgroup {
    uint32_t leader;     /* image wave index of the wave holding the LDS */
    uint32_t queue, dispatch; /* slots; dispatch UINT32_MAX when not known */
};

enum gc_dbg_event_state { GC_DBG_EVENT_PENDING, GC_DBG_EVENT_FETCHED, GC_DBG_EVENT_PROCESSED };

struct gc_dbg_event {
    amd_dbgapi_event_kind_t kind;
    uint32_t wave;                /* WAVE_STOP: wave slot */
    amd_dbgapi_runtime_state_t runtime_state; /* RUNTIME */
    enum gc_dbg_event_state state;
};

/* Agent names from the PCI ID database: the names found last are kept, and a process reads the
   database at most GC_DBG_PCI_SCANS times (a core of 65536 agents of distinct devices would
   otherwise read it once each); past that its agents are named "Device vvvv:dddd". */
#define GC_DBG_PCI_CACHE 8u
#define GC_DBG_PCI_SCANS 256u

/* Active packets amd_dbgapi_queue_packet_list() returns at most (ERROR with a warning past
   it): the client's memory for the copy is the ring's, which a core declares, and 4 Mi
   packets (256 MiB) is 16 times the largest ring a ROCm queue is created with. The image
   walks as many packets per process (GC_IMAGE_MAX_RING_SLOTS). */
#define GC_DBG_MAX_PACKET_LIST (1u << 22)

struct gc_dbg_process {
    uint64_t id;
    amd_dbgapi_client_process_id_t client;
    struct gc_image *img;        /* NULL: no GPU state (no note, a note AMD's reader rejects,
                                    runtime not enabled, exited process) */
    int notify[2];               /* the notifier pipe: [0] the client's, [1] ours */
    amd_dbgapi_progress_t progress;
    amd_dbgapi_wave_creation_t wave_creation;

    uint32_t ttmp_setup;         /* the note's runtime ttmp_setup */
    int runtime_event;           /* a RUNTIME event is queued (the runtime was enabled) */
    amd_dbgapi_runtime_state_t runtime_state; /* its state */
    uint32_t nagents;            /* agent i is image agent i */
    uint32_t pci_scans;          /* PCI ID database reads for agent names (GC_DBG_PCI_SCANS) */
    struct gc_dbg_pci_name {
        uint32_t vendor, device;
        char name[256];
    } pci_cache[GC_DBG_PCI_CACHE]; /* the names found last (vendor 0 device 0: empty) */
    uint64_t agent_base;
    uint32_t *queues, nqueues;   /* image queue index per queue slot */
    uint64_t queue_base;
    uint32_t *dispatches, ndispatches; /* image dispatch index per slot */
    uint64_t dispatch_base;
    struct gc_dbg_workgroup *workgroups;
    uint32_t nworkgroups;
    uint64_t workgroup_base;
    struct gc_dbg_wave *waves;
    uint32_t nwaves;
    uint64_t wave_base;
    uint32_t ncode_objects;      /* code object i is image code object i */
    uint64_t code_object_base;
    struct gc_dbg_event *events;
    uint32_t nevents, next_event;
    uint64_t event_base;

    uint32_t *list_order[GC_DBG_LIST_COUNT]; /* per kind: slots in the order AMD's library
                                                 lists them (its hash maps, dbgapi_order.h) */
    uint8_t changed[GC_DBG_LIST_COUNT];
    struct gc_dbg_regcache regcache[GC_DBG_REGCACHE];
    uint32_t regcache_next;      /* the entry replaced next (round robin) */
    uint32_t regcache_last;      /* the entry used last: asked first */
    struct gc_dbg_shape shapes[GC_DBG_SHAPES];
    uint32_t shape_next;         /* where the search for a free shape entry starts */
};

/* The kinds of process-level handle, each numbered on its own from 1 (as AMD's library). */
enum gc_dbg_kind {
    GC_DBG_KIND_PROCESS,
    GC_DBG_KIND_AGENT,
    GC_DBG_KIND_QUEUE,
    GC_DBG_KIND_DISPATCH,
    GC_DBG_KIND_WORKGROUP,
    GC_DBG_KIND_WAVE,
    GC_DBG_KIND_CODE_OBJECT,
    GC_DBG_KIND_EVENT,
    GC_DBG_KIND_DISPLACED_STEPPING, /* none is ever created on a core */
    GC_DBG_KIND_WATCHPOINT,         /* none is ever created on a core */
    GC_DBG_KIND_BREAKPOINT,         /* none is ever created on a core */
    GC_DBG_KIND_COUNT
};

struct gc_dbg_state {
    int initialized;
    amd_dbgapi_callbacks_t *cb;
    amd_dbgapi_log_level_t log_level; /* survives initialize/finalize */
    uint64_t next_kind_id[GC_DBG_KIND_COUNT]; /* process-level handles, per kind (0 = 1) */
    struct gc_dbg_arch **archs;       /* [row of gc_arch_table], NULL until used */
    uint32_t narchs;                  /* gc_arch_count() once archs exists, else 0 */
    struct gc_dbg_process **procs;
    uint32_t nprocs;
    uint8_t none_changed[GC_DBG_LIST_COUNT]; /* the set of processes changed (NONE lists) */
};

extern struct gc_dbg_state gc_dbg;

/* A block of @p n fresh handles of process-level kind @p kind (the first is 1); returns the
   first. */
uint64_t gc_dbg_kind_ids(enum gc_dbg_kind kind, uint64_t n);

/* Restart the counters of every process-level kind except processes (initialize). */
void gc_dbg_kind_ids_reset(void);

/* ---- client memory ------------------------------------------------------------------------- */

/* allocate_memory of the client; NULL for a zero size is fine for the caller to pass on. */
void *gc_dbg_alloc(size_t size);

/* Copy @p s into client memory as *(char **)value. SUCCESS, INVALID_ARGUMENT (value NULL),
   INVALID_ARGUMENT_COMPATIBILITY (value_size), CLIENT_CALLBACK. */
amd_dbgapi_status_t gc_dbg_give_string(const char *s, size_t value_size, void *value);

/* Copy @p n bytes of @p src into @p value after checking value and value_size == n. */
amd_dbgapi_status_t gc_dbg_give(const void *src, size_t n, size_t value_size, void *value);

#define GIVE(v) gc_dbg_give(&(v), sizeof(v), value_size, value)

/* A handle list of @p n entries for one process (or every process): the "changed" protocol,
   then a client array filled by @p fill. */
typedef void (*gc_dbg_fill_fn)(const struct gc_dbg_process *p, uint64_t *out);
amd_dbgapi_status_t gc_dbg_list(amd_dbgapi_process_id_t process_id, enum gc_dbg_list kind,
                                size_t *ret_count, void **ret_items,
                                amd_dbgapi_changed_t *changed, gc_dbg_fill_fn fill,
                                uint32_t (*count)(const struct gc_dbg_process *p));

/* ---- lookups ------------------------------------------------------------------------------- */

struct gc_dbg_process *gc_dbg_process_find(uint64_t id);
/* The process owning @p id in the block of @p base/@p count members; *ret_index its index. */
struct gc_dbg_process *gc_dbg_find_in(uint64_t id, size_t base_offset, size_t count_offset,
                                      uint32_t *ret_index);
#define GC_DBG_FIND(id, base, count, idx)                                                       \
    gc_dbg_find_in((id), offsetof(struct gc_dbg_process, base),                                  \
                   offsetof(struct gc_dbg_process, count), (idx))

/* Architectures, created on first use: by row of gc_arch_table (NULL when out of memory or not
   a row with registers), by handle (NULL also for a handle that names none). */
struct gc_dbg_arch *gc_dbg_arch_get(const struct gc_arch *arch);
struct gc_dbg_arch *gc_dbg_arch_find(uint64_t id);
/* Register handles: of register @p index of a's list; the architecture and list index of
   @p id (NULL if it names none). */
uint64_t gc_dbg_register_id(const struct gc_dbg_arch *a, uint32_t index);
struct gc_dbg_arch *gc_dbg_register_find(uint64_t id, uint32_t *ret_index);
/* Register class, address space and address class handles (enum gc_dbg_part). */
uint64_t gc_dbg_part_id(const struct gc_dbg_arch *a, enum gc_dbg_part kind, uint32_t index);
struct gc_dbg_arch *gc_dbg_part_find(uint64_t id, enum gc_dbg_part kind, uint32_t *ret_index);
void gc_dbg_archs_free(void);
/* Address space handles: the architecture (NULL for the global space, shared by all) and the
   space of @p id; 0 if @p id is none. And the handle of @p space of @p a. */
int gc_dbg_space_find(uint64_t id, struct gc_dbg_arch **ret_arch, enum gc_aspace *ret_space);
uint64_t gc_dbg_space_id(const struct gc_dbg_arch *a, enum gc_aspace space);

/* Image objects behind a process's slots. */
const struct gc_image_wave *gc_dbg_image_wave(const struct gc_dbg_process *p, uint32_t slot);
const struct gc_image_agent *gc_dbg_wave_agent(const struct gc_dbg_process *p, uint32_t slot);
/* The agent slot of queue slot @p q (agent slots are image agent indexes). */
uint32_t gc_dbg_queue_agent(const struct gc_dbg_process *p, uint32_t q);

/* The wave's register list (its shape's), valid until the next call (GC_DBG_REGCACHE). NULL
   when out of memory or the wave's family has no register set. */
const struct gc_dbg_shape *gc_dbg_wave_regs(struct gc_dbg_process *p, uint32_t slot);

/* The wave whose register values the library serves: the image's, with the TTMPs AMD's library
   writes when it attaches (wave handle, SPI and trap-handler set-up marks, and for a wave it
   stops the stopped bit and the parked PC). Valid as gc_dbg_wave_regs(); NULL as it. */
const struct gc_wave *gc_dbg_wave_served(struct gc_dbg_process *p, uint32_t slot);

/* ---- processes ----------------------------------------------------------------------------- */

void gc_dbg_process_free(struct gc_dbg_process *p);

#endif /* GC_DBGAPI_INTERNAL_H */
