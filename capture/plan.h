/* SPDX-License-Identifier: MIT */
/*
 * The GPU half of a capture, planned: from the driver's snapshots (taken with every queue
 * suspended), the runtime info and the target's memory, decide what goes into the core and
 * build the GPU notes.
 *
 *   - the AMDGPU core-state note (AMD's layout, exception status as captured);
 *   - the memory, tier by tier (docs/core-format.md §8, docs/design.md "Data flow"):
 *       state       every amd_queue_t (read_pointer_address - 128), every AQL ring, per XCC the
 *                   used parts of the CWSR area (header, used control stack, used wave area)
 *                   and the debug area, the r_debug chain (r_debug, link_map nodes, URI
 *                   strings, memory:// code-object images), loaded code objects (extent of
 *                   their PT_LOADs at l_addr), kernel descriptors and kernargs of active
 *                   packets; all rounded out to whole 64-byte lines (ROCdbgapi's cache line);
 *       scratch     the scratch slots of saved waves that have scratch enabled;
 *       referenced  windows around every address that faulting waves' registers (SGPR pairs,
 *                   VGPR pairs of active lanes), the kernel arguments of active dispatches and
 *                   the memory-violation exception info point at inside a GPU mapping;
 *       all         every readable GPU mapping.
 *     Tier sets are disjoint: tier i holds what it wants minus what tiers < i hold.
 *   - GPUCORE CODE_OBJECTS (each object's URI, load address and bytes: memory:// from target
 *     memory, file:// through in->read_file, as the target could read them) and ALLOC_MAP
 *     (the GPU mappings, classified).
 *
 * The state tier also holds host memory the runtime owns (r_debug, link_map nodes, URI strings,
 * memory:// code-object images): a reader needs it, and nothing else plans it.
 * Memory inside a GC_KFD_MAP_NO_READ mapping (doorbells, MMIO) is never read and is in no tier,
 * whatever pointer leads there (a warning names what was skipped).
 *
 * Memory is read only through the caller's reader (in->mem), which must not fail for
 * the whole read when part of it is unreadable (it reports the readable prefix).
 * Every value read from the target is validated before use: a bad header, an unreadable
 * structure or an absurd size is a warning that drops that item, never a crash or a failure
 * of the whole plan.
 *
 * Internal to capture. No printing.
 */
#ifndef GC_CAPTURE_PLAN_H
#define GC_CAPTURE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/schema.h>
#include <gpucore/status.h>

#include "kfd.h"
#include "mem_reader.h"
#include "rangeset.h"

#define GC_PLAN_TIERS 4u /* GPUCORE_TIER_STATE .. GPUCORE_TIER_ALL */

/*
 * The state tier in the order it is written, so that a size or time budget cuts what a reader
 * misses least: rank 0 is what AMD's reader cannot open the core without and costs little (the
 * r_debug chain and URI strings, amd_queue_t, AQL rings, CWSR headers and used control stacks,
 * kernel descriptors); rank 1 the saved waves (used wave areas); rank 2 the rest (code-object
 * bytes, kernargs, debugger areas).
 */
#define GC_PLAN_STATE_RANKS 3u
#define GC_PLAN_LABEL_MAX 64u
#define GC_PLAN_DEFAULT_WINDOW (64u << 10) /* referenced: bytes on each side of an address */
#define GC_PLAN_DEFAULT_EMBED (256ull << 20) /* code-object bytes embedded in all */
#define GC_PLAN_MAX_CODE_OBJECT (256ull << 20) /* bytes of one code object read to parse it */

/*
 * Read a file the target names (a file:// code object), as the target could read it (the
 * capture: gc_target_file_read()). [offset, offset + size) of @p path, size 0 meaning to the
 * end of the file, at most GC_PLAN_MAX_CODE_OBJECT bytes, only an AMDGPU ELF file.
 * 1: *ret (gc_malloc'ed, the plan owns it) and *ret_size hold the bytes; 0: not read, @p why
 * says why in one phrase; -1: out of memory (stops the plan).
 */
typedef int (*gc_plan_read_file_fn)(void *user, const char *path, uint64_t offset, uint64_t size,
                                    uint8_t **ret, uint64_t *ret_size, char *why,
                                    size_t why_size);

/* A raised exception the capture saw (from QUERY_DEBUG_EVENT / QUERY_EXCEPTION_INFO). */
struct gc_plan_exception {
    uint32_t code;     /* enum kfd_dbg_trap_exception_code */
    uint32_t gpu_id;
    uint32_t queue_id; /* KFD_INVALID_QUEUEID for device/process exceptions */
    uint64_t fault_va; /* memory violation: the faulting address; 0 = unknown */
    uint32_t fault_reasons; /* memory violation: GPUCORE_FAULT_* bits; 0 = unknown */
};

struct gc_plan_input {
    uint32_t pid;
    uint32_t kfd_major, kfd_minor;
    struct kfd_runtime_info rinfo;
    const struct kfd_dbg_device_info_entry *devices;
    uint32_t ndevices;
    uint32_t device_entry_size; /* what the driver populated (metadata only: the note always
                                   carries the KFD 1.13-1.18 layouts, 120 / 64 bytes) */
    const struct kfd_queue_snapshot_entry *queues;
    uint32_t nqueues;
    uint32_t queue_entry_size;
    const struct gc_kfd_mapping *maps; /* GPU mappings, sorted, disjoint, non-empty
                                          (gc_kfd_gpu_mappings) */
    uint32_t nmaps;
    const struct gc_plan_exception *exceptions;
    uint32_t nexceptions;
    /* Target memory (mem_reader.h); a status other than GPUCORE_OK and GPUCORE_E_UNAVAILABLE
       stops the plan. */
    struct gc_mem_reader mem;
    gc_plan_read_file_fn read_file; /* NULL: file:// code objects are named, not read */
    void *read_file_user;
    uint64_t window;       /* referenced window; 0 = GC_PLAN_DEFAULT_WINDOW */
    uint64_t embed_limit;  /* 0 = GC_PLAN_DEFAULT_EMBED; code-object bytes embedded in
                              total (the first object that does not fit gets a prefix) */
};

/* A labelled piece of memory, for the manifest ("AQL ring, queue 3"). */
struct gc_plan_item {
    uint64_t addr, size;
    uint32_t tier;   /* GPUCORE_TIER_* that wanted it first */
    uint32_t kind;   /* GPUCORE_ALLOC_* */
    uint32_t gpu_id;
    char label[GC_PLAN_LABEL_MAX];
};

struct gc_plan {
    uint8_t *amdgpu_note; /* NT_AMDGPU_KFD_CORE_STATE descriptor bytes (gc_malloc) */
    size_t amdgpu_note_size;
    struct gc_rangeset tier[GC_PLAN_TIERS]; /* disjoint */
    struct gc_rangeset state_rank[GC_PLAN_STATE_RANKS]; /* tier[STATE], partitioned by rank */
    struct gc_plan_item *items;             /* sorted by addr */
    uint32_t nitems;
    /* The state tier's kernel-argument bytes whose values are not pointers: the 64-byte lines
     * of every kernarg segment planned, minus the lines other state items share, minus each
     * 8-byte-aligned 8-byte value that is an address inside a GPU mapping (a pointer: the
     * allocation map already says as much). What --redact withholds of the state tier: the
     * argument values a user passed, never the layout (docs/privacy.md). A subset of
     * tier[STATE]. */
    struct gc_rangeset kernarg_values;
    gpucore_code_objects_t code_objects;    /* bytes owned by the plan */
    gpucore_alloc_map_t alloc_map;          /* labels owned by the plan */
    /* Figures for the summary line and the metadata. dispatches: KERNEL_DISPATCH packets
     * among the active ones; waves: decoded from the CWSR areas; stopped: the trap handler
     * stopped them (ttmp6); faulting: their stop reasons name an error (memory violation,
     * address error, illegal instruction, assert or other trap, math exception, ECC, fatal
     * halt), not a debugger event (breakpoint, watchpoint, single step, debug trap). */
    uint32_t agents, queues, dispatches;
    uint32_t waves, stopped_waves, faulting_waves;
    /* Things that could not be planned, one sentence each ("queue 3, XCC 1: CWSR header at
     * 0x...: unreadable (Input/output error) after 0 of 40 bytes"); the capture goes on
     * without them. At most 256; the last one then says how many more there were. */
    char **warnings;
    uint32_t nwarnings;
};

/*
 * Build the plan. Reads the target through in->read (the queues must be suspended).
 * Bounded whatever the target holds: at most 4096 link_map nodes, 4 KiB per URI, 256 MiB per
 * code object read (memory:// images are read in 1 MiB steps, so an absurd size costs only
 * what the target really has), 64 KiB of kernargs per dispatch, 256 MiB of saved waves per
 * XCC, 4096 referenced windows, 1M ranges per tier, 65536 items, 256 warnings; embedded
 * bytes <= embed_limit.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL    NULL arguments (in, ret, in->read), a non-zero count with a NULL
 *                            array, more than 256 devices or 65536 queues, GPU mappings that
 *                            are empty, wrap, or are not sorted and disjoint, or snapshot
 *                            entries inconsistent with each other
 *                            (a queue naming a gpu_id no device has)
 *                            (a device whose gfx_target_version arch does not know is not an
 *                            error: its note entry is written, its CWSR areas are captured
 *                            whole and a warning says why its waves were not decoded)
 * @retval GPUCORE_E_NOMEM, or a status of in->read other than E_UNAVAILABLE
 * On success free with gc_plan_free().
 */
gpucore_status_t gc_plan_build(const struct gc_plan_input *in, struct gc_plan **ret,
                               gpucore_diag_t *reterr_diag);

void gc_plan_free(struct gc_plan *p);

/* The item that contains @p addr (the smallest one), or NULL (also for a NULL plan).
 * Items may overlap: a 64-byte line can hold a control stack's end and a wave area's start. */
const struct gc_plan_item *gc_plan_item_at(const struct gc_plan *p, uint64_t addr);

#endif /* GC_CAPTURE_PLAN_H */
