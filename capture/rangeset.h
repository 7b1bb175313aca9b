/* SPDX-License-Identifier: MIT */
/*
 * A set of address ranges: sorted, disjoint, adjacent ranges merged. Capture uses it to build
 * each tier as "what this tier wants minus what earlier tiers already hold", so no byte is
 * written twice and the writer's segments never overlap.
 *
 * Internal. Ranges are [start, end) with end > start; a range reaching 2^64 is stored with
 * end = 0 meaning 2^64 is not supported: callers clip to UINT64_MAX.
 */
#ifndef GC_CAPTURE_RANGESET_H
#define GC_CAPTURE_RANGESET_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

struct gc_range {
    uint64_t start, end;
};

struct gc_rangeset {
    struct gc_range *r;
    uint32_t count, cap;
};

#define GC_RANGESET_INIT { NULL, 0, 0 }

/* Add [start, start + size), merging with neighbours. size 0 is a no-op. A range that would
 * wrap past 2^64 is clipped at UINT64_MAX.
 * @retval GPUCORE_OK, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT (more than 16M ranges). */
gpucore_status_t gc_rangeset_add(struct gc_rangeset *s, uint64_t start, uint64_t size);

/* Remove [start, start + size) (splitting ranges).
 * @retval GPUCORE_OK, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT (a split would exceed 16M ranges). */
gpucore_status_t gc_rangeset_remove(struct gc_rangeset *s, uint64_t start, uint64_t size);

/* s -= other (other may be s). @retval GPUCORE_OK, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT. */
gpucore_status_t gc_rangeset_subtract(struct gc_rangeset *s, const struct gc_rangeset *other);

/* s += other (other may be s). @retval GPUCORE_OK, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT. */
gpucore_status_t gc_rangeset_union(struct gc_rangeset *s, const struct gc_rangeset *other);

/* Keep only the parts inside [start, start + size) (clipped at UINT64_MAX).
 * @retval GPUCORE_OK, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT. */
gpucore_status_t gc_rangeset_clip(struct gc_rangeset *s, uint64_t start, uint64_t size);

/* dst += the part of @p src inside [start, start + size) (clipped at UINT64_MAX); dst and src
 * must differ. @retval GPUCORE_OK, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT, GPUCORE_E_INVAL (dst is
 * src). */
gpucore_status_t gc_rangeset_add_within(struct gc_rangeset *dst, const struct gc_rangeset *src,
                                        uint64_t start, uint64_t size);

/* Non-zero if every byte of [start, start + size) is in the set (size 0: true). */
int gc_rangeset_contains(const struct gc_rangeset *s, uint64_t start, uint64_t size);

/* Non-zero if some byte of [start, start + size) is in the set. */
int gc_rangeset_overlaps(const struct gc_rangeset *s, uint64_t start, uint64_t size);

/* Total bytes. */
uint64_t gc_rangeset_bytes(const struct gc_rangeset *s);

void gc_rangeset_clear(struct gc_rangeset *s); /* empty, keeps the storage */
void gc_rangeset_free(struct gc_rangeset *s);  /* frees the storage; the set is empty */

#endif /* GC_CAPTURE_RANGESET_H */
