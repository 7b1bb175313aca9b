/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/image*.c: the image object and the helpers the pieces share. No printing.
 */
#ifndef GC_ANALYZE_IMAGE_INTERNAL_H
#define GC_ANALYZE_IMAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gc_util.h"
#include "image.h"
#include "interval.h"

/*
 * Limits on what a hostile core can make the image allocate or walk. Save areas and AQL rings
 * are counted by what the memory source really holds: with a core file, only bytes of segment
 * data present in the file (never the zero fill of p_memsz beyond p_filesz) are allocated or
 * walked, and all save areas together take at most the bytes of segment data the file holds.
 * A source that cannot say what it holds (the amd-dbgapi library's client) is bounded by
 * GC_IMAGE_MAX_CWSR_TOTAL and GC_IMAGE_MAX_RING_SLOTS instead. Fuzzing builds
 * (GC_IMAGE_FUZZING, set with GPUCORE_FUZZ) lower them so an input runs in milliseconds.
 * One code object is at most GC_IMAGE_MAX_CODE_OBJECT_SIZE (image.h).
 */
#define GC_IMAGE_MAX_CODE_OBJECTS     4096u        /* code objects (link_map nodes: at most
                                                      GC_ROCR_LINK_MAP_MAX, the same) */
#define GC_IMAGE_MAX_CODE_BYTES       (1ull << 30) /* code-object bytes the image copies; also
                                                      at most what the core holds */
/* A wave area the file holds in part (cut by a size budget) is decoded for the waves whose
   records it holds whole; it is allocated whole, so it takes 1/this of its size (at least the
   bytes held) from the save-area budget: partial areas cost at most this many times the
   file's bytes. */
#define GC_IMAGE_PARTIAL_AREA_FACTOR  16u
#define GC_IMAGE_MAX_XCC              32u
#define GC_IMAGE_MAX_PROBLEMS         4096u
#define GC_IMAGE_MAX_SYMBOLS          (1u << 20) /* kept of one code object */

/*
 * The image charges what it allocates because the core says so -- each dispatch, wave and
 * symbol it keeps, the code-object bytes it copies, the control stacks, its lookup indexes --
 * to the open core's memory budget (gpucore_core_mem_reserve(), libcore/include/gpucore/core.h),
 * and takes at most 1/GC_IMAGE_BUDGET_SHARE of the budget: the rest stays for the reader's
 * notes and frame cache and for the report built from the image (one decoded 64 MiB frame and
 * the report's records still fit in the default budget's floor). When a charge is refused the
 * image keeps what fits and a problem says what it left out (dispatches of a queue from some
 * packet on, the waves of an area from some wave on, the symbols or bytes of a code object);
 * the open does not fail. Waves come first: every queue's save areas are decoded before any
 * ring is walked, and the walks leave room for the dispatches the waves run. An image opened
 * from a note (gc_image_open_note(): no core, no budget) is bounded by the fixed limits here
 * instead.
 */
#define GC_IMAGE_BUDGET_SHARE 2u
#ifdef GC_IMAGE_FUZZING
#define GC_IMAGE_MAX_WAVES      (1u << 16)
#define GC_IMAGE_MAX_DISPATCHES (1u << 16)
#define GC_IMAGE_MAX_CWSR_READ  (4u << 20)  /* control stack + wave area of one XCC */
#define GC_IMAGE_MAX_CTL_STACK  (64u << 10) /* control stack of one XCC */
#define GC_IMAGE_MAX_CWSR_TOTAL (16u << 20) /* all save areas, source that cannot say */
#define GC_IMAGE_MAX_RING_SLOTS (1u << 16)  /* AQL packets read, all queues */
#else
#define GC_IMAGE_MAX_WAVES      (1u << 20)
#define GC_IMAGE_MAX_DISPATCHES (1u << 20)
#define GC_IMAGE_MAX_CWSR_READ  (256u << 20)
#define GC_IMAGE_MAX_CTL_STACK  (1u << 20) /* KFD sizes them at 8 bytes per wave slot: ~10 KiB
                                              for an MI300X XCC, 0x7000 at most on gfx10 */
#define GC_IMAGE_MAX_CWSR_TOTAL (1ull << 30)
#define GC_IMAGE_MAX_RING_SLOTS (1u << 22)
#endif

/* A run of process memory the source really holds: [lo, hi), with the bytes held below lo. */
struct gc_image_run {
    uint64_t lo, hi;
    uint64_t before;
};

/* A symbol a lookup needs (image_co.c): a function (gc_image_symbolize(), a kernel's entry),
   or a kernel descriptor "NAME.kd", kept as NAME (a dispatch's kernel name). Other symbols are
   not kept. */
struct gc_image_symbol {
    uint64_t addr; /* load address applied */
    uint64_t size;
    char *name;    /* owned */
};

/* Per code object: what the ELF says (parsed once at open). */
struct gc_image_co_priv {
    uint8_t *owned;  /* bytes owned by the image (memory / file), or NULL */
    uint64_t owned_size; /* bytes of owned (charged to the memory budget) */
    uint64_t lo, hi; /* loaded extent [lo, hi) in process addresses, hi 0: none */
};

/* One XCC area while it is decoded: its control stack (kept) and the waves' layout (freed
   once the waves are in the image; their registers stay in the core, image.h). */
struct gc_image_area {
    uint8_t *ctl;
    uint64_t ctl_size; /* bytes of ctl (counted in gc_image::cwsr_bytes) */
    struct gc_cwsr_decoded dec;
    int decoded;
};

struct gc_image_queue_priv {
    int have_amdq;
    int have_stride;
    uint64_t scratch_loc;
    uint32_t se_count; /* shader engines per XCC, 0 if unknown */
    /* The ring walk keeps the dispatches of packets below unkept_from (UINT64_MAX: every one
       it read); from there on it counts them only, and a wave's dispatch is read from its
       packet alone once the queue's waves are in (image.c, resolve_waves()). */
    uint64_t unkept_from;
    uint32_t unkept_why; /* GC_IMAGE_UNKEPT_* */
    int ring_ok;         /* the ring's size and place were checked: packets may be read */
    uint64_t walk_end;   /* the walk counted the kernel dispatches of packets below this */
    int walk_whole;      /* the walk read every active packet (none missing from the core) */
    /* Its waves waiting for their dispatch (img->pending[pending_first ...], npending), and
       the distinct packets they run. */
    uint32_t pending_first, npending, wave_packets;
    /* Dispatches kept whose kernel descriptor is not in the core: how many, and the first. */
    uint64_t kd_missing, kd_missing_kd, kd_missing_id;
};

/* Why the image keeps a queue's dispatches only up to some packet. */
enum gc_image_unkept {
    GC_IMAGE_UNKEPT_ASKED = 0,  /* GC_IMAGE_WAVE_DISPATCHES: only those a wave runs */
    GC_IMAGE_UNKEPT_BUDGET,     /* the image's share of the memory budget is spent */
    GC_IMAGE_UNKEPT_LIMIT,      /* GC_IMAGE_MAX_DISPATCHES are kept */
    GC_IMAGE_UNKEPT_RING_LIMIT, /* GC_IMAGE_MAX_RING_SLOTS were read: the walks stopped */
};

/* A wave and the packet it runs, until the queue's ring is walked (image.c, resolve_waves()). */
struct gc_image_pending {
    uint64_t packet_id;
    uint32_t wave;
};

struct gc_image {
    gpucore_core_t *core;             /* NULL for an image opened from a note */
    struct gc_image_memory mem;
    void *owned_source;               /* mem.user when the image allocated it (split cores) */
    uint32_t flags;                   /* GC_IMAGE_* */
    gpucore_amdgpu_note_t *note;
    gpucore_code_objects_t *embedded; /* GPUCORE_NT_CODE_OBJECTS, or NULL */
    gpucore_manifest_t *manifest;     /* GPUCORE_NT_MANIFEST, or NULL */
    uint32_t r_version;
    uint64_t r_map;
    int have_rdebug;

    struct gc_image_agent *agents;
    uint32_t nagents;
    struct gc_image_queue *queues;
    struct gc_image_queue_priv *qpriv;
    uint32_t nqueues;
    struct gc_image_dispatch *dispatches;
    uint32_t ndispatches, cap_dispatches;
    struct gc_image_wave *waves;
    uint32_t nwaves, cap_waves;
    struct gc_image_pending *pending; /* every queue's waves, until their dispatches are
                                         found (image.c, resolve_waves()) */
    uint32_t npending, cap_pending;
    struct gc_image_code_object *cos;
    struct gc_image_co_priv *copriv;
    uint32_t ncos, cap_cos;
    uint64_t code_bytes;      /* bytes copied for code objects so far, at most
                                 GC_IMAGE_MAX_CODE_BYTES */
    uint64_t core_code_bytes; /* of those, copied from the core (memory://, embedded) */
    uint64_t code_budget;     /* core_code_bytes stays within this: what the core's segments
                                 and embedded code objects hold (a link map naming the same
                                 bytes many times cannot multiply them) */
    const char *code_object_dir; /* gc_image_options (borrowed during open), or NULL */
    /* Symbols (image_co.c): functions and kernel descriptors of every code object, in code
       object then symbol-table order, and their indexes (built once every code object is in:
       ids are positions in funcs / kds; code objects by loaded extent, ids their index). */
    struct gc_image_symbol *funcs, *kds;
    uint32_t nfuncs, cap_funcs, nkds, cap_kds;
    struct gc_iv_index func_ix, kd_ix, co_ix;
    struct gc_image_area *areas;
    uint32_t nareas, cap_areas;
    char **problems;
    uint32_t nproblems, cap_problems;

    /* What the memory source really holds (core files): runs sorted by address, disjoint.
       have_runs 0: the source cannot say (every readable byte counts as held). */
    struct gc_image_run *runs;
    uint32_t nruns;
    int have_runs;
    uint64_t runs_held;        /* bytes in all runs */
    uint64_t cwsr_budget;      /* save-area bytes the image may still allocate */
    uint64_t cwsr_bytes;       /* save-area bytes held: control stacks (the wave areas are
                                  read in windows and not kept, image.h) */
    int cwsr_budget_said;      /* the problem "budget exhausted" was reported */
    uint64_t ring_slots;       /* AQL packets read so far (all queues) */
    uint64_t mem_limit;        /* bytes the image may charge to the core's memory budget
                                  (GC_IMAGE_BUDGET_SHARE); UINT64_MAX: no budget */
    uint64_t mem_charged;      /* charged so far, given back at close */
    uint64_t mem_keep_free;    /* what a charge must leave of the share (during ring walks:
                                  walk_reserve) */
    uint64_t walk_reserve;     /* room for the dispatches the waves of the queues whose rings
                                  are not walked yet run */
    char budget_words[160];    /* gc_image_budget_words() */
    int ring_limit_said;
    uint64_t *agent_by_gpu;    /* gpu_id << 32 | agent index, sorted (nagents) */
    /* The manifest's ranges not captured, by address, and for each position the index of the
       range reaching furthest among those up to it (gc_image_manifest_gap in O(log n)). */
    const gpucore_manifest_entry_t **gaps;
    uint32_t *gap_widest;
    uint32_t ngaps;
    /* Records read last (gc_image_wave_regs), round robin from rec_next. */
    struct gc_image_record recs[GC_IMAGE_RECORD_CACHE];
    uint32_t rec_next;
};

/* Work counters for tests: what building the image read. */
struct gc_image_stats {
    uint64_t ring_slots;  /* AQL packets read */
    uint64_t cwsr_bytes;  /* save-area bytes kept (control stacks of areas that decoded) */
};
void gc_image_get_stats(const struct gc_image *img, struct gc_image_stats *ret);

/* Index the manifest's ranges not captured (after img->manifest is decoded). */
gpucore_status_t gc_image_index_manifest(struct gc_image *img);
/* A manifest entry saying why [addr] is not in the core (SKIPPED or UNREADABLE), or NULL. */
const gpucore_manifest_entry_t *gc_image_manifest_gap(const struct gc_image *img, uint64_t addr);

/* Read process memory through img->mem (the contract of struct gc_image_memory; @p ret_done
   may be NULL). */
gpucore_status_t gc_image_mem_read(struct gc_image *img, uint64_t addr, void *buf, uint64_t size,
                                   uint64_t *ret_done);

/* Why the last read failed, in one phrase ("" if the source does not say). */
const char *gc_image_mem_errmsg(struct gc_image *img);

/* Add one problem sentence (formatted). Returns GPUCORE_E_NOMEM if it cannot be stored. */
gpucore_status_t gc_image_problemf(struct gc_image *img, const char *fmt, ...) GC_PRINTF(2, 3);

/* Grow a (pointer, count, capacity) array by one element; returns the new element or NULL. */
void *gc_image_grow(void **arr, uint32_t *n, uint32_t *cap, size_t elem, uint32_t max);

/*
 * Charge @p bytes the image is about to allocate because the core says so to the core's
 * memory budget, within the image's share (GC_IMAGE_BUDGET_SHARE): 1 charged, 0 refused
 * (nothing charged; the caller leaves the object out and says so, quoting
 * gc_image_budget_words()). Always 1 for an image without a core.
 */
int gc_image_charge(struct gc_image *img, uint64_t bytes);
void gc_image_uncharge(struct gc_image *img, uint64_t bytes);
/* Why a charge was refused, in words: "the image's share of the memory budget (N bytes) is
   spent; GPUCORE_MEM_BUDGET raises it". Static storage of the image. */
const char *gc_image_budget_words(struct gc_image *img);

/*
 * gc_image_grow() for an array the image keeps: the capacity it adds is charged first
 * (gc_image_charge()). NULL with *ret_st GPUCORE_E_LIMIT when @p max or the budget refuses
 * it, GPUCORE_E_NOMEM when out of memory.
 */
void *gc_image_grow_charged(struct gc_image *img, void **arr, uint32_t *n, uint32_t *cap,
                            size_t elem, uint32_t max, gpucore_status_t *ret_st);

/* Code objects (image_co.c): walk r_debug's link map (or the embedded list), parse ELFs, and
   index their symbols and extents. */
gpucore_status_t gc_image_load_code_objects(struct gc_image *img);
void gc_image_free_code_objects(struct gc_image *img);

/* Name of the kernel whose descriptor is at @p kd or whose entry is @p entry ("" if none):
   owned by the image (O(log symbols)). */
const char *gc_image_kernel_name(const struct gc_image *img, uint64_t kd, uint64_t entry);

#endif /* GC_ANALYZE_IMAGE_INTERNAL_H */
