/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi: the iteration order of AMD's wave map (dbgapi_order.h).
 */
#include "dbgapi_order.h"

#include <stddef.h>

#include "gc_util.h"

/*
 * The bucket counts libstdc++'s prime rehash policy goes through while a map grows one
 * element at a time from empty (max_load_factor 1.0): 13 buckets for the first element, and
 * the next count when the element being inserted would exceed the current count.
 */
static const uint32_t bucket_schedule[] = {
    13,     29,     59,     127,     257,     541,     1109,    2357,    5087,   10273,
    20753,  42043,  85229,  172933,  351061,  712697,  1447153, 2938679,
};

_Static_assert(sizeof(bucket_schedule) / sizeof(bucket_schedule[0]) == 18 &&
                       2938679u == GC_DBG_ORDER_MAX_KEYS,
               "the schedule ends at GC_DBG_ORDER_MAX_KEYS");

#define NIL    UINT32_MAX        /* end of the list; an empty bucket */
#define BEFORE (UINT32_MAX - 1u) /* the list head ("before begin") */

struct table {
    uint32_t *next;    /* per node */
    uint32_t *bucket;  /* per bucket: the node before the bucket's first, BEFORE, or NIL */
    uint32_t head;     /* first node */
    uint64_t first_key;
};

static uint32_t next_of(const struct table *t, uint32_t at)
{
    return at == BEFORE ? t->head : t->next[at];
}

static void set_next(struct table *t, uint32_t at, uint32_t node)
{
    if (at == BEFORE)
        t->head = node;
    else
        t->next[at] = node;
}

static uint32_t bucket_of(const struct table *t, uint32_t node, uint32_t nbuckets)
{
    return (uint32_t)((t->first_key + node) % nbuckets);
}

/* Link @p node at the front of its bucket (libstdc++ _M_insert_bucket_begin). */
static void link_node(struct table *t, uint32_t node, uint32_t nbuckets)
{
    uint32_t b = bucket_of(t, node, nbuckets);

    if (t->bucket[b] != NIL) {
        t->next[node] = next_of(t, t->bucket[b]);
        set_next(t, t->bucket[b], node);
        return;
    }
    t->next[node] = t->head;
    t->head = node;
    if (t->next[node] != NIL)
        t->bucket[bucket_of(t, t->next[node], nbuckets)] = node;
    t->bucket[b] = BEFORE;
}

/* Relink every node into @p nbuckets buckets, walking the old list (_M_rehash_aux). */
static void rehash(struct table *t, uint32_t nbuckets)
{
    uint32_t p = t->head, bbegin = 0;

    for (uint32_t b = 0; b < nbuckets; b++)
        t->bucket[b] = NIL;
    t->head = NIL;
    while (p != NIL) {
        uint32_t nx = t->next[p], b = bucket_of(t, p, nbuckets);

        if (t->bucket[b] == NIL) {
            t->next[p] = t->head;
            t->head = p;
            t->bucket[b] = BEFORE;
            if (t->next[p] != NIL)
                t->bucket[bbegin] = p;
            bbegin = b;
        } else {
            t->next[p] = next_of(t, t->bucket[b]);
            set_next(t, t->bucket[b], p);
        }
        p = nx;
    }
}

gpucore_status_t gc_dbg_map_order(uint64_t first_key, uint32_t n, uint32_t *ret_order)
{
    struct table t = { NULL, NULL, NIL, first_key };
    uint32_t nbuckets = 0, step = 0, k = 0;
    size_t last = 0;

    if (n == 0)
        return GPUCORE_OK;
    if (!ret_order)
        return GPUCORE_E_INVAL;
    if (n > GC_DBG_ORDER_MAX_KEYS)
        return GPUCORE_E_LIMIT;
    while (bucket_schedule[last] < n)
        last++; /* the bucket count the map ends with */
    t.next = gc_calloc_array(n, sizeof(*t.next));
    t.bucket = gc_calloc_array(bucket_schedule[last], sizeof(*t.bucket));
    if (!t.next || !t.bucket) {
        gc_free(t.next);
        gc_free(t.bucket);
        return GPUCORE_E_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        /* element i + 1 is inserted: grow first if it would exceed the bucket count */
        if (i + 1u > nbuckets) {
            nbuckets = bucket_schedule[step++];
            rehash(&t, nbuckets);
        }
        link_node(&t, i, nbuckets);
    }
    for (uint32_t p = t.head; p != NIL; p = t.next[p])
        ret_order[k++] = p;
    gc_free(t.next);
    gc_free(t.bucket);
    return GPUCORE_OK;
}
