/* SPDX-License-Identifier: MIT */
/* Which range holds an address, in O(log n) (interval.h). */
#include "interval.h"

#include <stdlib.h>

#include "gc_util.h"

static uint32_t tree_size(uint32_t n)
{
    uint32_t size = 1;

    while (size < n)
        size *= 2;
    return size;
}

uint64_t gc_iv_cost(uint32_t n)
{
    return (uint64_t)n * sizeof(struct gc_iv) + 2ull * tree_size(n) * sizeof(uint64_t);
}

static int iv_cmp(const void *a, const void *b)
{
    const struct gc_iv *x = a, *y = b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->id > y->id ? -1 : x->id < y->id; /* id descending */
}

gpucore_status_t gc_iv_build(struct gc_iv_index *ix, struct gc_iv *v, uint32_t n)
{
    uint32_t size = tree_size(n);

    ix->v = NULL;
    ix->tree = NULL;
    ix->n = ix->size = 0;
    if (!n) {
        gc_free(v);
        return GPUCORE_OK;
    }
    ix->tree = gc_calloc_array(2u * (size_t)size, sizeof(uint64_t));
    if (!ix->tree) {
        gc_free(v);
        return GPUCORE_E_NOMEM;
    }
    qsort(v, n, sizeof(*v), iv_cmp);
    for (uint32_t i = 0; i < n; i++)
        ix->tree[size + i] = v[i].last;
    for (uint32_t k = size; k-- > 1;)
        ix->tree[k] = ix->tree[2 * k] > ix->tree[2 * k + 1] ? ix->tree[2 * k] : ix->tree[2 * k + 1];
    ix->v = v;
    ix->n = n;
    ix->size = size;
    return GPUCORE_OK;
}

/* The number of ranges whose lo is at most @p x (they are first in order). */
static uint32_t count_lo_at_most(const struct gc_iv_index *ix, uint64_t x)
{
    uint32_t lo = 0, hi = ix->n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (ix->v[mid].lo <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * The greatest position <= @p j in node @p k's span [nl, nr] whose range ends at or after
 * @p x, or -1. A node wholly at or before j whose greatest last is below x is left at once,
 * and one whose greatest last reaches x holds an answer, so the search visits O(log n) nodes.
 */
static int64_t rightmost(const struct gc_iv_index *ix, uint32_t k, uint32_t nl, uint32_t nr,
                         uint32_t j, uint64_t x)
{
    uint32_t mid;
    int64_t r;

    if (nl > j || ix->tree[k] < x)
        return -1;
    if (nl == nr)
        return nl;
    mid = nl + (nr - nl) / 2;
    r = rightmost(ix, 2 * k + 1, mid + 1, nr, j, x);
    return r >= 0 ? r : rightmost(ix, 2 * k, nl, mid, j, x);
}

uint32_t gc_iv_find(const struct gc_iv_index *ix, uint64_t x)
{
    uint32_t m = ix ? count_lo_at_most(ix, x) : 0;
    int64_t r;

    if (!m)
        return UINT32_MAX;
    r = rightmost(ix, 1, 0, ix->size - 1, m - 1, x);
    return r < 0 ? UINT32_MAX : ix->v[r].id;
}

uint32_t gc_iv_find_lo(const struct gc_iv_index *ix, uint64_t x)
{
    uint32_t m = ix ? count_lo_at_most(ix, x) : 0;

    return m && ix->v[m - 1].lo == x ? ix->v[m - 1].id : UINT32_MAX;
}

void gc_iv_free(struct gc_iv_index *ix)
{
    if (!ix)
        return;
    gc_free(ix->v);
    gc_free(ix->tree);
    ix->v = NULL;
    ix->tree = NULL;
    ix->n = ix->size = 0;
}
