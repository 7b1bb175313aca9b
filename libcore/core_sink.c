/* SPDX-License-Identifier: MIT */
/* What both sinks share: choosing one, and writing without short writes. */
#include "core_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"
#include "gc_util.h"

gpucore_status_t gc_core_sink_new(int fd, const struct gc_core_wopts *o, struct gc_core_sink **ret,
                                  gpucore_diag_t *diag)
{
    struct gc_core_zstd_params zp = { o->level, o->threads, o->frame_size };
    uint64_t budget = o->max_bytes ? o->max_bytes : GC_CORE_NONE;

    if (!o->level)
        return gc_core_sink_plain_new(fd, budget, ret, diag);
    return gc_core_sink_zstd_new(fd, budget, &zp, ret, diag);
}

gpucore_status_t gc_core_pwrite_all(int fd, const void *p, size_t n, uint64_t off,
                                    gpucore_diag_t *diag)
{
    const uint8_t *b = p;

    while (n) {
        ssize_t r = pwrite(fd, b, n, (off_t)off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            /* A zero-byte write makes no progress; report it as the full disk it means. */
            int e = r < 0 ? errno : ENOSPC;

            return gc_diag_set(diag, GPUCORE_E_IO, off, "write of %zu bytes at offset 0x%llx: %s",
                               n, (unsigned long long)off, strerror(e));
        }
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_core_pread_all(int fd, void *p, size_t n, uint64_t off, gpucore_diag_t *diag)
{
    uint8_t *b = p;

    while (n) {
        ssize_t r = pread(fd, b, n, (off_t)off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return gc_diag_set(diag, GPUCORE_E_IO, off, "read of %zu bytes at offset 0x%llx: %s",
                               n, (unsigned long long)off,
                               r < 0 ? strerror(errno) : "unexpected end of file");
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_core_zero_range(int fd, uint64_t off, uint64_t n, gpucore_diag_t *diag)
{
    static const uint8_t zeros[4096];

    if (!n)
        return GPUCORE_OK;
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)n) == 0)
        return GPUCORE_OK;
    while (n) {
        size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

        GC_TRY(gc_core_pwrite_all(fd, zeros, k, off, diag));
        off += k;
        n -= k;
    }
    return GPUCORE_OK;
}

struct extent {
    uint64_t start, end;
};

/* The data extents of [from, end), in order; one extent for all of it without SEEK_DATA. */
static gpucore_status_t data_extents(int fd, uint64_t from, uint64_t end, struct extent **ret,
                                     uint32_t *ret_n, gpucore_diag_t *diag)
{
    struct extent *x = NULL;
    uint32_t n = 0, cap = 0;
    uint64_t at = from;

    while (at < end) {
        off_t d = lseek(fd, (off_t)at, SEEK_DATA);
        off_t h;

        if (d < 0 && errno == ENXIO)
            break;
        h = d < 0 ? -1 : lseek(fd, d, SEEK_HOLE);
        if (d < 0 || h < 0) {
            /* No hole information: everything is data. */
            n = 0;
            d = (off_t)from;
            h = (off_t)end;
        }
        if ((uint64_t)d >= end)
            break;
        if (n == cap) {
            uint32_t ncap = cap ? 2 * cap : 16;
            struct extent *nx = gc_realloc_array(x, ncap, sizeof(*x));

            if (!nx) {
                gc_free(x);
                return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            }
            x = nx;
            cap = ncap;
        }
        x[n].start = (uint64_t)d;
        x[n].end = (uint64_t)h < end ? (uint64_t)h : end;
        at = x[n++].end;
    }
    *ret = x;
    *ret_n = n;
    return GPUCORE_OK;
}

/* Copy [from, end) to @p to chunk by chunk, in the direction that never reads what it wrote. */
static gpucore_status_t copy_run(int fd, uint64_t from, uint64_t end, uint64_t to, uint8_t *buf,
                                 size_t cap, gpucore_diag_t *diag)
{
    if (to > from) {
        for (uint64_t hi = end; hi > from;) {
            size_t k = hi - from < cap ? (size_t)(hi - from) : cap;

            hi -= k;
            GC_TRY(gc_core_pread_all(fd, buf, k, hi, diag));
            GC_TRY(gc_core_pwrite_all(fd, buf, k, hi - from + to, diag));
        }
    } else {
        for (uint64_t lo = from; lo < end;) {
            size_t k = end - lo < cap ? (size_t)(end - lo) : cap;

            GC_TRY(gc_core_pread_all(fd, buf, k, lo, diag));
            GC_TRY(gc_core_pwrite_all(fd, buf, k, lo - from + to, diag));
            lo += k;
        }
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_core_move_range(int fd, uint64_t from, uint64_t end, uint64_t to, int sparse,
                                    uint8_t *buf, size_t cap, gpucore_diag_t *diag)
{
    struct extent *x = NULL;
    uint32_t n = 0;
    gpucore_status_t st = GPUCORE_OK;
    uint64_t at;

    if (to == from || end <= from)
        return GPUCORE_OK;
    if (!sparse)
        return copy_run(fd, from, end, to, buf, cap, diag);
    GC_TRY(data_extents(fd, from, end, &x, &n, diag));
    if (to > from) {
        for (uint32_t i = n; st == GPUCORE_OK && i > 0; i--)
            st = copy_run(fd, x[i - 1].start, x[i - 1].end, x[i - 1].start - from + to, buf, cap,
                          diag);
    } else {
        for (uint32_t i = 0; st == GPUCORE_OK && i < n; i++)
            st = copy_run(fd, x[i].start, x[i].end, x[i].start - from + to, buf, cap, diag);
    }
    /* The destination's holes: between the moved extents (stale source bytes may be there). */
    at = from;
    for (uint32_t i = 0; st == GPUCORE_OK && i <= n; i++) {
        uint64_t gap_end = i < n ? x[i].start : end;

        if (gap_end > at)
            st = gc_core_zero_range(fd, at - from + to, gap_end - at, diag);
        if (i < n)
            at = x[i].end;
    }
    gc_free(x);
    return st;
}
