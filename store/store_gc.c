/* SPDX-License-Identifier: MIT */
/*
 * `gpucore gc`'s policy (store.h): which cores go, in which order; and the parsers of the sizes,
 * durations and counts its options and the configuration file (store_conf.c) take.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <gpucore/core.h>

#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

/* ---------------------------------------------------------------------------------------- */
/* Sizes and durations                                                                         */
/* ---------------------------------------------------------------------------------------- */

struct unit {
    char suffix;
    uint64_t factor;
};

static const struct unit size_units[] = {
    { 'K', 1ull << 10 },
    { 'M', 1ull << 20 },
    { 'G', 1ull << 30 },
    { 'T', 1ull << 40 },
};

static const struct unit duration_units[] = {
    { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 7 * 86400 },
};

/* A decimal number with an optional suffix of @p units (or none: factor 1). */
static int parse_scaled(const char *text, const struct unit *units, size_t nunits, uint64_t max,
                        uint64_t *ret)
{
    uint64_t v = 0, factor = 1;
    const char *p = text;

    if (!text || *p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p) {
        size_t i;

        for (i = 0; i < nunits; i++)
            if (*p == units[i].suffix)
                break;
        if (i == nunits || p[1])
            return -1;
        factor = units[i].factor;
    }
    if (v > max / factor)
        return -1;
    *ret = v * factor;
    return 0;
}

int gc_store_parse_size(const char *text, uint64_t *ret)
{
    return parse_scaled(text, size_units, sizeof(size_units) / sizeof(size_units[0]), UINT64_MAX,
                        ret);
}

int gc_store_parse_limit(const char *text, uint64_t *ret)
{
    uint64_t v;

    if (text && strcmp(text, "infinity") == 0) {
        *ret = GC_STORE_SIZE_INFINITY;
        return 0;
    }
    if (gc_store_parse_size(text, &v) != 0 || v < GPUCORE_WRITER_MIN_BUDGET)
        return -1;
    *ret = v;
    return 0;
}

int gc_store_parse_count(const char *text, uint64_t max, uint64_t *ret)
{
    return parse_scaled(text, NULL, 0, max, ret);
}

int gc_store_parse_duration(const char *text, int64_t *ret_ns)
{
    uint64_t s;

    if (parse_scaled(text, duration_units, sizeof(duration_units) / sizeof(duration_units[0]),
                     (uint64_t)INT64_MAX / 1000000000u, &s) != 0)
        return -1;
    *ret_ns = (int64_t)s * 1000000000;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* gc                                                                                          */
/* ---------------------------------------------------------------------------------------- */

/* Why a core goes; the order of the phases. */
static const char *const why_text[] = {
    NULL,
    "duplicate of its signature beyond the first kept",
    "older than MaxAge",
    "MaxUse exceeded",
    "KeepFree not met",
};
enum { KEEP, WHY_DUP, WHY_AGE, WHY_USE, WHY_FREE };

static int has_file(const struct gc_store_row *r)
{
    return r->state == GC_STORE_PRESENT || r->state == GC_STORE_UNREADABLE;
}

/* A row whose file the policy may remove: it has one, and @p p does not keep it. */
static int removable(const struct gc_store_policy *p, const struct gc_store_row *r)
{
    if (!has_file(r))
        return 0;
    for (size_t k = 0; k < GC_STORE_KEEP_MAX; k++)
        if (p->keep[k] && strcmp(p->keep[k], r->file) == 0)
            return 0;
    return 1;
}

/* A row with a file and a signature, for ranking the rows of each signature. */
struct sig_ref {
    const char *sig;
    size_t i; /* the row's place, oldest first */
};

static int cmp_sig_ref(const void *a, const void *b)
{
    const struct sig_ref *x = a, *y = b;
    int c = strcmp(x->sig, y->sig);

    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * Phase 1: mark WHY_DUP each row (with a file) that has at least @p keep older rows (with a
 * file) of its signature. Sorting by (signature, place) ranks every row within its signature
 * in O(n log n); comparing each row with all the rows before it cost 5.4 s at 50,000 rows.
 */
static int mark_duplicates(const struct gc_store_policy *p, const struct gc_store_row *rows,
                           size_t n, int64_t keep, int *why)
{
    struct sig_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
    size_t m = 0;
    int64_t rank = 0;

    if (!refs)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (has_file(&rows[i]) && rows[i].sig_hash)
            refs[m++] = (struct sig_ref){ rows[i].sig_hash, i };
    qsort(refs, m, sizeof(*refs), cmp_sig_ref);
    for (size_t k = 0; k < m; k++) {
        rank = k && strcmp(refs[k].sig, refs[k - 1].sig) == 0 ? rank + 1 : 0;
        if (rank >= keep && removable(p, &rows[refs[k].i]))
            why[refs[k].i] = WHY_DUP;
    }
    free(refs);
    return 0;
}

gpucore_status_t gc_store_gc(struct gc_store *s, const struct gc_store_policy *p, int dry_run,
                             int64_t now_ns, gc_store_gc_cb cb, void *user, uint64_t *ret_freed,
                             gpucore_diag_t *reterr_diag)
{
    struct gc_store_row *rows = NULL;
    size_t n = 0, *order = NULL, norder = 0;
    int *why = NULL;
    uint64_t used = 0, freed = 0, avail = 0;
    struct statvfs vfs;
    struct gc_store_batch batch = { .s = s };
    gpucore_status_t st;

    st = gc_store_refuse_view(s, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    /* One read of the index, oldest first, and the file states of those rows now (the index
       updated as well): what reading every row twice, before and after the refresh, gave. */
    st = gc_store_query(s, NULL, &rows, &n, reterr_diag);
    if (st == GPUCORE_OK)
        st = gc_store_refresh(s, rows, n, reterr_diag);
    if (st != GPUCORE_OK) {
        gc_store_rows_free(rows, n);
        return st;
    }
    why = calloc(n ? n : 1, sizeof(*why));
    order = calloc(n ? n : 1, sizeof(*order));
    if (!why || !order) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (has_file(&rows[i]))
            used += (uint64_t)(rows[i].size > 0 ? rows[i].size : 0);
    /* 1: the cores of a signature after its first N (by capture time), oldest first. */
    if (p->keep_per_signature >= 0) {
        if (mark_duplicates(p, rows, n, p->keep_per_signature, why) != 0) {
            st = gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, 0, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            if (why[i] == WHY_DUP)
                order[norder++] = i;
    }
    /* 2: older than MaxAge (unknown capture times are never too old). */
    for (size_t i = 0; p->max_age_ns > 0 && i < n; i++)
        if (removable(p, &rows[i]) && !why[i] && rows[i].time_ns >= 0 &&
            rows[i].time_ns < now_ns - p->max_age_ns) {
            why[i] = WHY_AGE;
            order[norder++] = i;
        }
    for (size_t k = 0; k < norder; k++)
        freed += (uint64_t)(rows[order[k]].size > 0 ? rows[order[k]].size : 0);
    /* 3, 4: then the oldest, while the store uses more than MaxUse or the disk has less free
       than KeepFree. */
    if (p->keep_free && fstatvfs(gc_store_dirfd(s), &vfs) == 0)
        avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    for (size_t i = 0; i < n; i++) {
        int reason = KEEP;

        if (!removable(p, &rows[i]) || why[i])
            continue;
        if (p->max_use && used - freed > p->max_use)
            reason = WHY_USE;
        else if (p->keep_free && avail + freed < p->keep_free)
            reason = WHY_FREE;
        if (reason == KEEP)
            break;
        why[i] = reason;
        order[norder++] = i;
        freed += (uint64_t)(rows[i].size > 0 ? rows[i].size : 0);
    }
    freed = 0;
    for (size_t k = 0; k < norder && st == GPUCORE_OK; k++) {
        struct gc_store_row *r = &rows[order[k]];

        if (!dry_run) {
            /* The rows' new states are committed GC_STORE_BATCH_ROWS at a time. */
            st = gc_store_batch_begin(&batch, reterr_diag);
            if (st != GPUCORE_OK)
                break;
            if (unlinkat(gc_store_dirfd(s), r->file, 0) != 0 && errno != ENOENT) {
                st = gc_diag_set(reterr_diag, GPUCORE_E_IO, 0, "%s/%s: cannot remove: %s",
                                 gc_store_path(s), r->file, strerror(errno));
                break;
            }
            st = gc_store_set_state(s, r->id, GC_STORE_DELETED, reterr_diag);
            if (st == GPUCORE_OK)
                st = gc_store_batch_count(&batch, reterr_diag);
            if (st != GPUCORE_OK)
                break;
            r->state = GC_STORE_DELETED;
        }
        freed += (uint64_t)(r->size > 0 ? r->size : 0);
        if (cb)
            cb(user, r, why_text[why[order[k]]]);
    }
out:
    st = gc_store_batch_end(&batch, st, reterr_diag);
    free(why);
    free(order);
    gc_store_rows_free(rows, n);
    if (st == GPUCORE_OK && ret_freed)
        *ret_freed = freed;
    return st;
}

/* A cb of gc_store_gc() counting what it removed. */
static void count_removed(void *user, const struct gc_store_row *row, const char *why)
{
    (void)row;
    (void)why;
    (*(size_t *)user)++;
}

gpucore_status_t gc_store_retain(struct gc_store *s, const char *config,
                                 const char *const keep[GC_STORE_KEEP_MAX], size_t *ret_removed,
                                 uint64_t *ret_freed, gpucore_diag_t *reterr_diag)
{
    struct gc_store_conf c = { .gc = { .keep_per_signature = -1 } };
    char path[PATH_MAX];
    size_t removed = 0;
    uint64_t freed = 0;
    gpucore_status_t st;

    if (ret_removed)
        *ret_removed = 0;
    if (ret_freed)
        *ret_freed = 0;
    st = gc_store_conf_load(config, &c, path, sizeof(path), reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    if (!c.gc.max_use && !c.gc.keep_free && !c.gc.max_age_ns && c.gc.keep_per_signature < 0)
        return GPUCORE_OK; /* no limit: nothing to do, not even a read of the index */
    for (size_t k = 0; k < GC_STORE_KEEP_MAX; k++)
        c.gc.keep[k] = keep ? keep[k] : NULL;
    st = gc_store_gc(s, &c.gc, 0, gc_store_now_ns(), count_removed, &removed, &freed,
                     reterr_diag);
    if (ret_removed)
        *ret_removed = removed;
    if (ret_freed)
        *ret_freed = freed;
    return st;
}
