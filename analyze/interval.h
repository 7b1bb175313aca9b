/* SPDX-License-Identifier: MIT */
/*
 * Which of many address ranges holds an address, in O(log n): the symbols of the code objects
 * (the function holding a PC), the code objects' loaded extents, the allocations of the
 * allocation map. A core decides how many ranges there are and where, so a lookup per dispatch,
 * wave or argument must not walk them all.
 *
 * A range is [lo, last] (inclusive, so one may end at 2^64 - 1) with an id, the caller's
 * index. When several ranges hold the address, the one with the greatest lo wins (the
 * innermost of nested ranges), and among those the lowest id: for ranges that do not overlap,
 * which is what a process has, that is the only one.
 *
 * Internal to analyze; no printing; the index owns its arrays (gc_iv_free()).
 */
#ifndef GC_ANALYZE_INTERVAL_H
#define GC_ANALYZE_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

struct gc_iv {
    uint64_t lo, last;
    uint32_t id;
};

struct gc_iv_index {
    struct gc_iv *v;   /* n ranges by (lo ascending, id descending) */
    uint64_t *tree;    /* the greatest last of each subtree (2 * size entries) */
    uint32_t n, size;  /* size: a power of two >= n */
};

/* Bytes the index of @p n ranges allocates (for a memory budget). */
uint64_t gc_iv_cost(uint32_t n);

/*
 * Index the @p n ranges of @p v (taken over: the index owns and reorders them; gc_free()d on
 * failure too). @p v may be NULL when @p n is 0.
 * @retval GPUCORE_OK, GPUCORE_E_NOMEM (the index is empty)
 */
gpucore_status_t gc_iv_build(struct gc_iv_index *ix, struct gc_iv *v, uint32_t n);

/* The id of the range holding @p x (the rule above), or UINT32_MAX when none does. */
uint32_t gc_iv_find(const struct gc_iv_index *ix, uint64_t x);

/* The id of the lowest-id range whose lo is exactly @p x, or UINT32_MAX. */
uint32_t gc_iv_find_lo(const struct gc_iv_index *ix, uint64_t x);

/* Free the arrays; the index is empty after. Accepts NULL and an empty index. */
void gc_iv_free(struct gc_iv_index *ix);

#endif /* GC_ANALYZE_INTERVAL_H */
