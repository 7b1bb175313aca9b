/* SPDX-License-Identifier: MIT */
/*
 * Plain sink: the logical file is the file. Data is staged one file page at a time so that an
 * all-zero page is never written and stays a hole (the file is created empty, so skipping a
 * page is enough; ftruncate() at the end sets the size). Memory dumps are full of zero pages:
 * untouched heap, BSS, scratch and the unused tail of rings and save areas. The head's
 * reservation is never written beyond the head itself, so what it does not use is a hole too.
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

/* Pages straight from the caller's buffer (the last may be partial): one write per run of
 * non-zero pages, from file offset page_start. */
static gpucore_status_t write_pages(struct plain_sink *s, const uint8_t *p, size_t n,
                                    gpucore_diag_t *diag)
{
    size_t run = 0; /* start of the current run of non-zero pages, relative to p */

    for (size_t i = 0; i < n; i += PAGE) {
        if (!gc_core_all_zero(p + i, n - i < PAGE ? n - i : PAGE))
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

/* The head the file will have if the writer's estimate is right. */
static uint64_t head_need(const struct gc_core_sink *s)
{
    uint64_t est = gc_core_align_up(s->meta_est, GC_CORE_HEAD_ALIGN);

    return est > s->head ? est : s->head;
}

static uint64_t plain_room(const struct gc_core_sink *s)
{
    uint64_t head = head_need(s), used = s->pos - s->head;

    if (s->budget == GC_CORE_NONE)
        return UINT64_MAX;
    if (head >= s->budget || used >= s->budget - head)
        return 0;
    return s->budget - head - used;
}

static gpucore_status_t plain_start(struct gc_core_sink *base, uint64_t head, gpucore_diag_t *diag)
{
    struct plain_sink *s = (struct plain_sink *)base;

    (void)diag;
    base->head = head;
    base->pos = head;
    /* The staged page holds [page_start, head) as zeros: the head is written at finish. */
    s->page_start = head - head % PAGE;
    return GPUCORE_OK;
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

static gpucore_status_t plain_finish(struct gc_core_sink *base, const uint8_t *head,
                                     size_t head_len, uint64_t head_final, uint64_t *ret_cut,
                                     gpucore_diag_t *diag)
{
    struct plain_sink *s = (struct plain_sink *)base;
    uint64_t data = base->pos - base->head, size, cut;
    uint8_t *buf;
    gpucore_status_t st;
    int e;

    *ret_cut = GC_CORE_NONE;
    size = data ? head_final + data : head_len;
    if (base->budget != GC_CORE_NONE && size > base->budget) {
        GC_FAIL_IF(!data, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                   "the core's ELF header, program headers and notes need %llu bytes, more "
                   "than the size budget of %llu bytes",
                   (unsigned long long)head_len, (unsigned long long)base->budget);
        /* The exact cut: what the budget leaves for data after this head. */
        cut = base->head + (base->budget > head_final ? base->budget - head_final : 0);
        *ret_cut = cut < base->pos ? cut : base->pos - 1;
        return GPUCORE_OK;
    }
    GC_TRY(flush_staged(s, (size_t)(base->pos - s->page_start), diag));
    if (data && head_final > base->head) {
        /* The head outgrew its reservation: move the data up, its holes with it. */
        buf = gc_malloc(GC_CORE_CHUNK_SIZE);
        GC_FAIL_IF(!buf, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        st = gc_core_move_range(base->fd, base->head, base->pos, head_final, 1, buf,
                                GC_CORE_CHUNK_SIZE, diag);
        gc_free(buf);
        GC_TRY(st);
        /* What the data left below its new start reads as zeros again. */
        GC_TRY(gc_core_zero_range(base->fd, base->head, head_final - base->head, diag));
    }
    if (ftruncate(base->fd, (off_t)size) != 0) {
        e = errno;
        return gc_diag_set(diag, GPUCORE_E_IO, size, "cannot set the file size to %llu: %s",
                           (unsigned long long)size, strerror(e));
    }
    /* The head's zero pages (the unused reservation, a copied head's padding) stay holes. */
    s->page_start = 0;
    GC_TRY(write_pages(s, head, head_len, diag));
    base->pos = size;
    /* Ask the file system for the final figure of bytes on disk. */
    s->written = count_data(base->fd, size);
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
    .start = plain_start,
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
    s->base.budget = budget;
    *ret = &s->base;
    return GPUCORE_OK;
}
