/* SPDX-License-Identifier: MIT */
/* Sorted disjoint range sets (rangeset.h). Binary search to find, memmove to insert/remove. */
#include <string.h>

#include "gc_util.h"
#include "rangeset.h"

#define GC_RANGESET_MAX (16u << 20)

/* Index of the first range whose end >= start (a range ending at start is adjacent). */
static uint32_t lower_bound(const struct gc_rangeset *s, uint64_t start)
{
    uint32_t lo = 0, hi = s->count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->r[mid].end < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static gpucore_status_t reserve(struct gc_rangeset *s, uint32_t extra)
{
    if (s->count + extra <= s->cap)
        return GPUCORE_OK;
    if (s->count + extra > GC_RANGESET_MAX)
        return GPUCORE_E_LIMIT;
    uint32_t cap = s->cap ? s->cap : 16;
    while (cap < s->count + extra)
        cap *= 2;
    struct gc_range *r = gc_realloc_array(s->r, cap, sizeof(*r));
    if (!r)
        return GPUCORE_E_NOMEM;
    s->r = r;
    s->cap = cap;
    return GPUCORE_OK;
}

static uint64_t clip_end(uint64_t start, uint64_t size)
{
    return size > UINT64_MAX - start ? UINT64_MAX : start + size;
}

gpucore_status_t gc_rangeset_add(struct gc_rangeset *s, uint64_t start, uint64_t size)
{
    if (size == 0)
        return GPUCORE_OK;
    uint64_t end = clip_end(start, size);
    if (end == start)
        return GPUCORE_OK;
    uint32_t i = lower_bound(s, start);
    uint32_t j = i;
    /* every range from i that starts at or before end touches [start, end) */
    while (j < s->count && s->r[j].start <= end) {
        if (s->r[j].start < start)
            start = s->r[j].start;
        if (s->r[j].end > end)
            end = s->r[j].end;
        j++;
    }
    if (j == i) {
        gpucore_status_t st = reserve(s, 1);
        if (st != GPUCORE_OK)
            return st;
        memmove(&s->r[i + 1], &s->r[i], (size_t)(s->count - i) * sizeof(s->r[0]));
        s->count++;
    } else if (j > i + 1) {
        memmove(&s->r[i + 1], &s->r[j], (size_t)(s->count - j) * sizeof(s->r[0]));
        s->count -= j - i - 1;
    }
    s->r[i].start = start;
    s->r[i].end = end;
    return GPUCORE_OK;
}

gpucore_status_t gc_rangeset_remove(struct gc_rangeset *s, uint64_t start, uint64_t size)
{
    if (size == 0)
        return GPUCORE_OK;
    uint64_t end = clip_end(start, size);
    uint32_t i = lower_bound(s, start);
    /* lower_bound may return a range that only touches start; skip it */
    if (i < s->count && s->r[i].end == start)
        i++;
    if (i < s->count && s->r[i].start < start && s->r[i].end > end) {
        /* split one range into two */
        gpucore_status_t st = reserve(s, 1);
        if (st != GPUCORE_OK)
            return st;
        memmove(&s->r[i + 1], &s->r[i], (size_t)(s->count - i) * sizeof(s->r[0]));
        s->count++;
        s->r[i].end = start;
        s->r[i + 1].start = end;
        return GPUCORE_OK;
    }
    if (i < s->count && s->r[i].start < start) {
        s->r[i].end = start;
        i++;
    }
    uint32_t j = i;
    while (j < s->count && s->r[j].end <= end)
        j++;
    if (j < s->count && s->r[j].start < end)
        s->r[j].start = end;
    if (j > i) {
        memmove(&s->r[i], &s->r[j], (size_t)(s->count - j) * sizeof(s->r[0]));
        s->count -= j - i;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_rangeset_subtract(struct gc_rangeset *s, const struct gc_rangeset *other)
{
    /* s -= s: removing while iterating the same array would skip ranges. */
    if (s == other) {
        gc_rangeset_clear(s);
        return GPUCORE_OK;
    }
    for (uint32_t k = 0; k < other->count && s->count; k++) {
        gpucore_status_t st =
            gc_rangeset_remove(s, other->r[k].start, other->r[k].end - other->r[k].start);
        if (st != GPUCORE_OK)
            return st;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_rangeset_union(struct gc_rangeset *s, const struct gc_rangeset *other)
{
    for (uint32_t k = 0; k < other->count; k++) {
        gpucore_status_t st =
            gc_rangeset_add(s, other->r[k].start, other->r[k].end - other->r[k].start);
        if (st != GPUCORE_OK)
            return st;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_rangeset_clip(struct gc_rangeset *s, uint64_t start, uint64_t size)
{
    uint64_t end = clip_end(start, size);
    gpucore_status_t st = GPUCORE_OK;

    if (start > 0)
        st = gc_rangeset_remove(s, 0, start);
    if (st == GPUCORE_OK && end < UINT64_MAX)
        st = gc_rangeset_remove(s, end, UINT64_MAX - end);
    return st;
}

gpucore_status_t gc_rangeset_add_within(struct gc_rangeset *dst, const struct gc_rangeset *src,
                                        uint64_t start, uint64_t size)
{
    if (size == 0 || dst == src)
        return size == 0 ? GPUCORE_OK : GPUCORE_E_INVAL;
    uint64_t end = clip_end(start, size);
    for (uint32_t i = lower_bound(src, start); i < src->count && src->r[i].start < end; i++) {
        uint64_t s = src->r[i].start > start ? src->r[i].start : start;
        uint64_t e = src->r[i].end < end ? src->r[i].end : end;

        if (e > s)
            GC_TRY(gc_rangeset_add(dst, s, e - s));
    }
    return GPUCORE_OK;
}

int gc_rangeset_contains(const struct gc_rangeset *s, uint64_t start, uint64_t size)
{
    if (size == 0)
        return 1;
    uint64_t end = clip_end(start, size);
    uint32_t i = lower_bound(s, start);
    if (i < s->count && s->r[i].end == start)
        i++;
    return i < s->count && s->r[i].start <= start && s->r[i].end >= end;
}

int gc_rangeset_overlaps(const struct gc_rangeset *s, uint64_t start, uint64_t size)
{
    if (size == 0)
        return 0;
    uint64_t end = clip_end(start, size);
    uint32_t i = lower_bound(s, start);
    if (i < s->count && s->r[i].end == start)
        i++;
    return i < s->count && s->r[i].start < end;
}

uint64_t gc_rangeset_bytes(const struct gc_rangeset *s)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < s->count; i++)
        n += s->r[i].end - s->r[i].start;
    return n;
}

void gc_rangeset_clear(struct gc_rangeset *s)
{
    s->count = 0;
}

void gc_rangeset_free(struct gc_rangeset *s)
{
    gc_free(s->r);
    s->r = NULL;
    s->count = s->cap = 0;
}
