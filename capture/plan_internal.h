/* SPDX-License-Identifier: MIT */
/*
 * Shared between plan.c (note, queues, CWSR, tiers) and plan_co.c (r_debug chain and code
 * objects). Internal to the planner: nothing else includes this.
 */
#ifndef GC_CAPTURE_PLAN_INTERNAL_H
#define GC_CAPTURE_PLAN_INTERNAL_H

#include <stdint.h>

#include "gc_util.h"
#include "plan.h"

/* Bounds on what hostile target values can make the planner do or allocate. */
#define GC_PLAN_MAX_WARNINGS      256u
#define GC_PLAN_MAX_ITEMS         (1u << 16)
#define GC_PLAN_MAX_WINDOWS       4096u
#define GC_PLAN_MAX_RANGES        (1u << 20) /* wanted ranges per tier (16 MiB of range set) */
#define GC_PLAN_MAX_DEVICES       256u
#define GC_PLAN_MAX_QUEUES        65536u
#define GC_PLAN_MAX_XCC           64u
#define GC_PLAN_MAX_KERNARG       (64u << 10)
#define GC_PLAN_MAX_PACKETS       65536u         /* active packets looked at per queue */
#define GC_PLAN_MAX_CWSR_READ     (256ull << 20) /* used control stack + wave area, per XCC */
#define GC_PLAN_MAX_DEBUG_AREA    (64ull << 20)
#define GC_PLAN_MAX_SCRATCH_WHOLE (4ull << 30) /* fallback "whole used scratch" of one XCC */
#define GC_PLAN_MAX_LOAD_EXTENT   (1ull << 30)   /* PT_LOAD extent of one code object */
#define GC_PLAN_PAGE              4096ull
#define GC_PLAN_KFD_MINOR_MAX     18u

struct gc_plan_ctx {
    const struct gc_plan_input *in;
    struct gc_plan *p;
    gpucore_diag_t *diag;
    gpucore_status_t fatal;                 /* a read status that stops the plan */
    int diag_set;                           /* the diag already names the failure */
    struct gc_rangeset want[GC_PLAN_TIERS]; /* what each tier wants, before subtraction */
    struct gc_rangeset want_rank[GC_PLAN_STATE_RANKS]; /* the state tier's wants by rank */
    struct gc_rangeset noread;              /* GC_KFD_MAP_NO_READ mappings: never read */
    struct gc_rangeset kernarg_lines;       /* every kernarg segment planned */
    struct gc_rangeset kernarg_ptrs;        /* its 8-byte values that point into GPU memory */
    uint64_t planned_bytes[GC_PLAN_TIERS];  /* sum of wanted sizes (overlaps counted) */
    uint64_t window;
    uint64_t embed_left;
    uint32_t r_version; /* from r_debug; 0 = unknown */
    uint32_t windows, windows_capped;
    uint32_t ranges_capped[GC_PLAN_TIERS];
    uint32_t item_cap, items_capped;
    uint32_t warn_cap, dropped_warnings;
    uint32_t co_cap;
};

/* One sentence into the plan's warnings (capped; never fails visibly). */
void gc_plan_warn(struct gc_plan_ctx *c, const char *fmt, ...) GC_PRINTF(2, 3);

/*
 * Read [addr, addr + size) of the target. Returns 1 if all was read, 0 if not (with ret_done
 * NULL or 0 bytes read, a warning naming @p what was recorded; with ret_done the readable
 * prefix is reported and the caller decides), -1 on a fatal status (c->fatal, diag set).
 */
int gc_plan_read(struct gc_plan_ctx *c, uint64_t addr, void *buf, uint64_t size, uint64_t *ret_done,
                 const char *what);

/* gc_plan_want()'s tier argument for the state tier at a rank (GC_PLAN_STATE_RANKS); plain
   GPUCORE_TIER_STATE is rank 2. */
#define GC_PLAN_STATE(rank) (GPUCORE_TIER_STATE | ((uint32_t)(rank) + 1u) << 8)

/* Add [addr, addr + size) to a tier (state: rounded out to 64-byte lines, at the rank given by
 * GC_PLAN_STATE()) with a label.
 * @retval GPUCORE_OK, GPUCORE_E_NOMEM. */
gpucore_status_t gc_plan_want(struct gc_plan_ctx *c, uint32_t tier, uint64_t addr, uint64_t size,
                              uint32_t kind, uint32_t gpu_id, const char *fmt, ...) GC_PRINTF(7, 8);

/* The r_debug chain, link-map nodes, URIs and code objects (state tier + CODE_OBJECTS).
 * Sets c->r_version. @retval GPUCORE_OK, GPUCORE_E_NOMEM, a fatal read status. */
gpucore_status_t gc_plan_runtime(struct gc_plan_ctx *c);

#endif /* GC_CAPTURE_PLAN_INTERNAL_H */
