/* SPDX-License-Identifier: MIT */
/*
 * Plain sink: the logical file is the file. Data is staged one file page at a time so that an
 * all-zero page is never written and stays a hole (the file is created empty, so skipping a
 * page is enough; ftruncate() at the end sets the size). Memory dumps are full of zero pages:
 * untouched heap, BSS, scratch and the unused tail of rings and save areas.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"
#include "core_sink.h"
#include "gc_util.h"

#define PAGE 4096u

struct plain_sink {
    struct gc_core_sink base;
    uint64_t page_start; /* file offset of page[]; pos - page_start bytes of it are staged */
    uint64_t written;    /* bytes written to the file, holes excluded */
    uint8_t page[PAGE];
};

static gpucore_status_t flush_staged(struct plain_sink *s, size_t fill, gpucore_diag_t *diag)
{
    if (!gc_core_all_zero(s->page, fill)) {
        GC_TRY(gc_core_pwrite_all(s->base.fd, s->page, fill, s->page_start, diag));
        s->written += fill;
    }
    return GPUCORE_OK;
}

/* Whole pages straight from the caller's buffer: one write per run of non-zero pages. */
static gpucore_status_t write_pages(struct plain_sink *s, const uint8_t *p, size_t n,
                                    gpucore_diag_t *diag)
{
    size_t run = 0; /* start of the current run of non-zero pages, relative to p */

    for (size_t i = 0; i < n; i += PAGE) {
        if (!gc_core_all_zero(p + i, PAGE))
            continue;
        if (i > run) {
            GC_TRY(gc_core_pwrite_all(s->base.fd, p + run, i - run, s->page_start + run, diag));
            s->written += i - run;
        }
        run = i + PAGE;
    }
    if (n > run) {
        GC_TRY(gc_core_pwrite_all(s->base.fd, p + run, n - run, s->page_start + run, diag));
        s->written += n - run;
    }
    return GPUCORE_OK;
}

static gpucore_status_t plain_append(struct gc_core_sink *base, const uint8_t *p, size_t n,
                                     uint64_t *ret_cut, gpucore_diag_t *diag)
{
    struct plain_sink *s = (struct plain_sink *)base;

    *ret_cut = GC_CORE_NONE;
    while (n) {
        size_t fill = (size_t)(base->pos - s->page_start);
        size_t take;

        if (fill == 0 && n >= PAGE) {
            take = n - n % PAGE;
            GC_TRY(write_pages(s, p, take, diag));
            s->page_start += take;
        } else {
            take = PAGE - fill < n ? PAGE - fill : n;
            memcpy(s->page + fill, p, take);
            if (fill + take == PAGE) {
                GC_TRY(flush_staged(s, PAGE, diag));
                s->page_start += PAGE;
                memset(s->page, 0, PAGE);
            }
        }
        base->pos += take;
        p += take;
        n -= take;
    }
    return GPUCORE_OK;
}

static uint64_t plain_room(const struct gc_core_sink *s)
{
    if (s->budget == GC_CORE_NONE)
        return UINT64_MAX;
    if (s->meta_est >= s->budget || s->pos >= s->budget - s->meta_est)
        return 0;
    return s->budget - s->meta_est - s->pos;
}

/* Bytes of data (not holes) in [0, end) of the file, for the statistics after a rewind. */
static uint64_t count_data(int fd, uint64_t end)
{
    uint64_t total = 0;
    off_t at = 0;

    while ((uint64_t)at < end) {
        off_t d = lseek(fd, at, SEEK_DATA);
        off_t h;

        if (d < 0 || (uint64_t)d >= end)
            break;
        h = lseek(fd, d, SEEK_HOLE);
        if (h < 0)
            return end; /* no hole information: count everything */
        total += ((uint64_t)h < end ? (uint64_t)h : end) - (uint64_t)d;
        at = h;
    }
    return total;
}

static gpucore_status_t plain_rewind(struct gc_core_sink *base, uint64_t off, gpucore_diag_t *diag)
{
    struct plain_sink *s = (struct plain_sink *)base;
    ssize_t r;
    int e;

    if (off >= s->page_start) {
        memset(s->page + (off - s->page_start), 0, (size_t)(base->pos - off));
        base->pos = off;
        return GPUCORE_OK;
    }
    /* The cut is in a page already on disk: drop the file from there, restage that page. */
    if (ftruncate(base->fd, (off_t)off) != 0) {
        e = errno;
        return gc_diag_set(diag, GPUCORE_E_IO, off, "cannot truncate at offset 0x%llx: %s",
                           (unsigned long long)off, strerror(e));
    }
    s->page_start = off - off % PAGE;
    memset(s->page, 0, PAGE);
    do {
        r = pread(base->fd, s->page, (size_t)(off - s->page_start), (off_t)s->page_start);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        e = errno;
        return gc_diag_set(diag, GPUCORE_E_IO, s->page_start, "cannot read back offset 0x%llx: %s",
                           (unsigned long long)s->page_start, strerror(e));
    }
    /* A short read means the rest was never written: a hole, i.e. zeros, as staged. */
    base->pos = off;
    s->written = count_data(base->fd, s->page_start);
    return GPUCORE_OK;
}

static gpucore_status_t plain_finish(struct gc_core_sink *base, const uint8_t *meta,
                                     size_t meta_len, const uint8_t *header, int force,
                                     uint64_t *ret_cut, gpucore_diag_t *diag)
{
    struct plain_sink *s = (struct plain_sink *)base;
    uint64_t cut;
    int e;

    *ret_cut = GC_CORE_NONE;
    if (!force && base->budget != GC_CORE_NONE && base->pos > GC_CORE_DATA_START &&
        (meta_len > base->budget || base->pos > base->budget - meta_len)) {
        /*
         * Propose the exact cut, less 16 bytes for the note and phdr alignment padding that
         * moves with it; the writer rebuilds the metadata and asks again.
         */
        cut = GC_CORE_DATA_START;
        if (base->budget > (uint64_t)meta_len + 16 + GC_CORE_DATA_START)
            cut = base->budget - meta_len - 16;
        *ret_cut = cut < base->pos ? cut : base->pos - 1;
        return GPUCORE_OK;
    }
    GC_TRY(plain_append(base, meta, meta_len, &cut, diag));
    GC_TRY(flush_staged(s, (size_t)(base->pos - s->page_start), diag));
    if (ftruncate(base->fd, (off_t)base->pos) != 0) {
        e = errno;
        return gc_diag_set(diag, GPUCORE_E_IO, base->pos, "cannot set the file size to %llu: %s",
                           (unsigned long long)base->pos, strerror(e));
    }
    GC_TRY(gc_core_pwrite_all(base->fd, header, GC_CORE_DATA_START, 0, diag));
    /* The header may have filled a hole at page 0; ask the file system for the final figure. */
    s->written = count_data(base->fd, base->pos);
    return GPUCORE_OK;
}

static uint64_t plain_file_bytes(const struct gc_core_sink *base)
{
    return ((const struct plain_sink *)base)->written;
}

static void plain_destroy(struct gc_core_sink *base)
{
    gc_free(base);
}

static const struct gc_core_sink_ops plain_ops = {
    .append = plain_append,
    .room = plain_room,
    .rewind = plain_rewind,
    .finish = plain_finish,
    .file_bytes = plain_file_bytes,
    .destroy = plain_destroy,
};

gpucore_status_t gc_core_sink_plain_new(int fd, uint64_t budget, struct gc_core_sink **ret,
                                        gpucore_diag_t *diag)
{
    struct plain_sink *s = gc_calloc_array(1, sizeof(*s));

    GC_FAIL_IF(!s, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    s->base.ops = &plain_ops;
    s->base.fd = fd;
    s->base.pos = GC_CORE_DATA_START; /* the header's bytes stay zero until finish() */
    s->base.budget = budget;
    *ret = &s->base;
    return GPUCORE_OK;
}
