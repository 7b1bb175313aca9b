/* SPDX-License-Identifier: MIT */
/*
 * zstd sink: the logical file is cut into independent frames so a reader can decode any part
 * without the rest, and a seek table at the end says where each frame is.
 *
 *   frame 0      logical [0, 64): the ELF header only. It is written last, so a fixed
 *                `reserve` bytes are set aside at the start of the file; at finish the header
 *                is compressed there and the rest of the reserve is filled with a skippable
 *                frame.
 *   frame k >= 1 logical [64 + (k-1) F, 64 + k F), F = frame size; the last one may be shorter.
 *   seek table   a skippable frame (see core_zstd.h).
 *
 * Every frame has its content size and an XXH64 checksum. `zstd -d` decodes the whole file to
 * the plain core (it skips the padding and the seek table).
 *
 * Threads. Frames are independent, so with threads > 1 a pool of workers compresses whole
 * frames in parallel while the caller fills the next ones; frames are written in order by the
 * caller's thread. Every frame is compressed with the same parameters whichever thread does
 * it, so the file is byte-identical to a single-threaded one. (zstd's own workers,
 * ZSTD_c_nbWorkers, split one frame into jobs of at least 512 KiB; with 1 MiB frames that
 * measured slower than one thread, and larger frames would make random reads dearer.)
 * The frames in flight live in a ring of 2 x threads slots of about 2 x F bytes each.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_writeSkippableFrame */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "core_internal.h"
#include "core_sink.h"
#include "core_zstd.h"
#include "gc_util.h"

enum slot_state {
    SLOT_FREE,   /* being filled by the caller, or unused */
    SLOT_QUEUED, /* full, waiting for a worker */
    SLOT_BUSY,   /* a worker is compressing it */
    SLOT_DONE,   /* compressed, waiting to be written */
};

struct zslot {
    uint8_t *in;      /* frame_size bytes of input */
    uint8_t *out;     /* out_cap bytes of compressed frame */
    size_t csize;     /* result, or a zstd error code */
    uint64_t logical; /* logical offset of in[0] */
    enum slot_state state;
};

struct zworker {
    struct zstd_sink *sink;
    ZSTD_CCtx *cctx;
    pthread_t thread;
};

struct zstd_sink {
    struct gc_core_sink base;
    ZSTD_CCtx *cctx; /* the caller's thread: frame 0, the tail, all frames without workers */
    uint32_t frame_size;
    uint32_t reserve; /* physical bytes of frame 0 */
    uint8_t *out;     /* scratch for the caller's thread */
    size_t out_cap;
    uint64_t phys;                /* end of the frames written so far */
    struct gc_core_frame *frames; /* written frames; frames[0] is frame 0, set at finish */
    uint32_t nframes, cap;

    /*
     * The ring: slots[fill] is being filled; `queued` slots from `head` on are in flight.
     * Only the caller's thread touches fill/head/queued; workers look at slot states alone.
     */
    struct zslot *slots;
    uint32_t nslots, fill, head, queued;
    uint64_t cur_start; /* logical offset of slots[fill].in[0] */

    /* A whole frame of zeros, compressed once: memory dumps are full of zero frames, and
     * compression is deterministic, so the cached bytes are exactly what zstd would write. */
    uint8_t *zero_frame;
    size_t zero_frame_size;

    /* Workers; `lock` guards slot states (and slot contents handed over with them), `stop`. */
    struct zworker *workers;
    uint32_t nworkers;
    pthread_mutex_t lock;
    pthread_cond_t work; /* a slot was queued, or stop */
    pthread_cond_t done; /* a slot is done */
    int stop;
};

static gpucore_status_t zstd_status(size_t r, const char *what, gpucore_diag_t *diag)
{
    return gc_diag_set(diag,
                       ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? GPUCORE_E_NOMEM
                                                                            : GPUCORE_E_IO,
                       GC_NO_OFFSET, "zstd %s: %s", what, ZSTD_getErrorName(r));
}

static gpucore_status_t compress(ZSTD_CCtx *cctx, const uint8_t *src, size_t len, uint8_t *dst,
                                 size_t cap, size_t *ret, gpucore_diag_t *diag)
{
    size_t r = ZSTD_compress2(cctx, dst, cap, src, len);

    if (ZSTD_isError(r))
        return zstd_status(r, "compression", diag);
    *ret = r;
    return GPUCORE_OK;
}

static uint32_t ring_next(const struct zstd_sink *s, uint32_t i)
{
    return i + 1 == s->nslots ? 0 : i + 1;
}

/* ---------------------------------------------------------------------------------------- */
/* Workers                                                                                  */

static void *worker_main(void *arg)
{
    struct zworker *wk = arg;
    struct zstd_sink *s = wk->sink;

    pthread_mutex_lock(&s->lock);
    for (;;) {
        struct zslot *slot = NULL;

        /* The oldest queued frame first: the caller writes frames in order. */
        for (uint32_t i = 0; i < s->nslots; i++)
            if (s->slots[i].state == SLOT_QUEUED && (!slot || s->slots[i].logical < slot->logical))
                slot = &s->slots[i];
        if (!slot) {
            if (s->stop)
                break;
            pthread_cond_wait(&s->work, &s->lock);
            continue;
        }
        slot->state = SLOT_BUSY;
        pthread_mutex_unlock(&s->lock);
        /* Errors travel in csize as zstd error codes; the caller reports them in order. */
        slot->csize = ZSTD_compress2(wk->cctx, slot->out, s->out_cap, slot->in, s->frame_size);
        pthread_mutex_lock(&s->lock);
        slot->state = SLOT_DONE;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void set_state(struct zstd_sink *s, struct zslot *slot, enum slot_state state)
{
    if (s->nworkers)
        pthread_mutex_lock(&s->lock);
    slot->state = state;
    if (s->nworkers)
        pthread_mutex_unlock(&s->lock);
}

/* Wait until the slot is compressed. */
static void wait_done(struct zstd_sink *s, struct zslot *slot)
{
    if (!s->nworkers)
        return;
    pthread_mutex_lock(&s->lock);
    while (slot->state != SLOT_DONE)
        pthread_cond_wait(&s->done, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

/*
 * Drop every frame in flight (the budget cut the stream before them): take back the queued
 * ones, wait for the ones being compressed. Afterwards the ring is empty and slots[head] is
 * the one to fill.
 */
static void cancel_in_flight(struct zstd_sink *s)
{
    if (!s->slots)
        return;
    if (s->nworkers)
        pthread_mutex_lock(&s->lock);
    for (uint32_t i = 0; i < s->nslots; i++) {
        while (s->nworkers && s->slots[i].state == SLOT_BUSY)
            pthread_cond_wait(&s->done, &s->lock);
        s->slots[i].state = SLOT_FREE;
    }
    if (s->nworkers)
        pthread_mutex_unlock(&s->lock);
    s->queued = 0;
    s->fill = s->head;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing frames in order                                                                  */

static gpucore_status_t add_frame(struct zstd_sink *s, uint64_t phys, uint64_t csize,
                                  uint64_t logical, uint64_t dsize, gpucore_diag_t *diag)
{
    if (s->nframes == s->cap) {
        uint32_t ncap = s->cap * 2;
        struct gc_core_frame *nf = gc_realloc_array(s->frames, ncap, sizeof(*nf));

        GC_FAIL_IF(!nf, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        s->frames = nf;
        s->cap = ncap;
    }
    s->frames[s->nframes].phys = phys;
    s->frames[s->nframes].csize = csize;
    s->frames[s->nframes].logical = logical;
    s->frames[s->nframes].dsize = dsize;
    s->nframes++;
    return GPUCORE_OK;
}

/* Worst-case compressed size and frame count of @p m bytes cut into frames of frame_size. */
static uint64_t tail_bound(const struct zstd_sink *s, uint64_t m, uint64_t *ret_frames)
{
    uint64_t full = m / s->frame_size, rem = m % s->frame_size;

    *ret_frames = full + (rem != 0);
    return full * ZSTD_compressBound(s->frame_size) + (rem ? ZSTD_compressBound((size_t)rem) : 0);
}

/* Would a file of @p phys bytes of frames (@p nframes of them) plus the metadata still fit? */
static int fits(const struct zstd_sink *s, uint64_t phys, uint64_t nframes)
{
    uint64_t tail_frames, need;

    if (s->base.budget == GC_CORE_NONE)
        return 1;
    need = phys + tail_bound(s, s->base.meta_est, &tail_frames) +
           gc_core_seektable_size(nframes + tail_frames);
    return need <= s->base.budget;
}

/*
 * Write the oldest frame in flight, unless it does not fit the budget: then the stream is cut
 * at its start (*ret_cut), and it and every later frame are dropped.
 */
static gpucore_status_t write_head(struct zstd_sink *s, uint64_t *ret_cut, gpucore_diag_t *diag)
{
    struct zslot *slot = &s->slots[s->head];

    wait_done(s, slot);
    if (ZSTD_isError(slot->csize))
        return zstd_status(slot->csize, "compression", diag);
    if (!fits(s, s->phys + slot->csize, (uint64_t)s->nframes + 1)) {
        *ret_cut = slot->logical;
        cancel_in_flight(s);
        s->cur_start = slot->logical;
        s->base.pos = slot->logical;
        return GPUCORE_OK;
    }
    GC_TRY(gc_core_pwrite_all(s->base.fd, slot->out, slot->csize, s->phys, diag));
    GC_TRY(add_frame(s, s->phys, slot->csize, slot->logical, s->frame_size, diag));
    s->phys += slot->csize;
    set_state(s, slot, SLOT_FREE);
    s->head = ring_next(s, s->head);
    s->queued--;
    return GPUCORE_OK;
}

static gpucore_status_t drain(struct zstd_sink *s, uint64_t *ret_cut, gpucore_diag_t *diag)
{
    while (s->queued && *ret_cut == GC_CORE_NONE)
        GC_TRY(write_head(s, ret_cut, diag));
    return GPUCORE_OK;
}

/* slots[fill] is full: compress it (inline, or hand it to the workers) and move on. */
static gpucore_status_t submit(struct zstd_sink *s, uint64_t *ret_cut, gpucore_diag_t *diag)
{
    struct zslot *slot = &s->slots[s->fill];

    slot->logical = s->cur_start;
    if (gc_core_all_zero(slot->in, s->frame_size)) {
        memcpy(slot->out, s->zero_frame, s->zero_frame_size);
        slot->csize = s->zero_frame_size;
        set_state(s, slot, SLOT_DONE);
    } else if (s->nworkers) {
        /* The unlock publishes in[] and logical to the worker that takes the slot. */
        pthread_mutex_lock(&s->lock);
        slot->state = SLOT_QUEUED;
        pthread_cond_signal(&s->work);
        pthread_mutex_unlock(&s->lock);
    } else {
        slot->csize = ZSTD_compress2(s->cctx, slot->out, s->out_cap, slot->in, s->frame_size);
        slot->state = SLOT_DONE;
    }
    s->queued++;
    s->fill = ring_next(s, s->fill);
    s->cur_start += s->frame_size;
    /* The ring is full when the next slot to fill is the oldest in flight: write that one. */
    if (s->queued == s->nslots)
        GC_TRY(write_head(s, ret_cut, diag));
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Sink operations                                                                          */

static gpucore_status_t zstd_append(struct gc_core_sink *base, const uint8_t *p, size_t n,
                                    uint64_t *ret_cut, gpucore_diag_t *diag)
{
    struct zstd_sink *s = (struct zstd_sink *)base;

    *ret_cut = GC_CORE_NONE;
    while (n) {
        size_t fill = (size_t)(base->pos - s->cur_start);
        size_t take = s->frame_size - fill < n ? s->frame_size - fill : n;

        memcpy(s->slots[s->fill].in + fill, p, take);
        base->pos += take;
        p += take;
        n -= take;
        if (fill + take == s->frame_size) {
            GC_TRY(submit(s, ret_cut, diag));
            if (*ret_cut != GC_CORE_NONE)
                return GPUCORE_OK;
        }
    }
    return GPUCORE_OK;
}

static uint64_t zstd_room(const struct gc_core_sink *base)
{
    const struct zstd_sink *s = (const struct zstd_sink *)base;
    uint64_t tail_frames, used;

    /*
     * The compressed size of data is known only per frame (write_head cuts then). Known now:
     * whether the metadata alone still fits, and the frame count a reader accepts (frames for
     * data + metadata + frame 0 <= GC_CORE_MAX_FRAMES).
     */
    if (!fits(s, s->phys, s->nframes))
        return 0;
    tail_bound(s, base->meta_est, &tail_frames);
    used = (uint64_t)s->nframes + s->queued + tail_frames + 1;
    if (used >= GC_CORE_MAX_FRAMES)
        return 0;
    return (GC_CORE_MAX_FRAMES - used) * s->frame_size +
           (s->frame_size - (base->pos - s->cur_start));
}

static gpucore_status_t zstd_rewind(struct gc_core_sink *base, uint64_t off, gpucore_diag_t *diag)
{
    struct zstd_sink *s = (struct zstd_sink *)base;
    uint32_t k;
    int e;

    if (off >= s->cur_start) {
        base->pos = off;
        return GPUCORE_OK;
    }
    /*
     * Only to the start of a written frame (finish() proposes nothing else, and drains the
     * ring first): compressed frames cannot be shortened.
     */
    k = (uint32_t)((off - GC_CORE_DATA_START) / s->frame_size) + 1;
    GC_FAIL_IF(s->queued || (off - GC_CORE_DATA_START) % s->frame_size || k >= s->nframes, diag,
               GPUCORE_E_INVAL, off, "internal: cannot cut the compressed stream at 0x%llx",
               (unsigned long long)off);
    if (ftruncate(base->fd, (off_t)s->frames[k].phys) != 0) {
        e = errno;
        return gc_diag_set(diag, GPUCORE_E_IO, s->frames[k].phys,
                           "cannot truncate at offset 0x%llx: %s",
                           (unsigned long long)s->frames[k].phys, strerror(e));
    }
    s->phys = s->frames[k].phys;
    s->nframes = k;
    s->cur_start = off;
    base->pos = off;
    return GPUCORE_OK;
}

/* Frame 0: the compressed header, padded with a skippable frame to exactly `reserve` bytes. */
static gpucore_status_t write_frame0(struct zstd_sink *s, const uint8_t *header,
                                     gpucore_diag_t *diag)
{
    uint8_t buf[256];
    uint8_t zeros[256] = { 0 };
    size_t c = 0, r;

    GC_TRY(compress(s->cctx, header, GC_CORE_DATA_START, buf, sizeof(buf), &c, diag));
    /* reserve = compressBound(64) + 8 >= c + 8, so the pad frame always has room. */
    r = ZSTD_writeSkippableFrame(buf + c, s->reserve - c, zeros, s->reserve - c - 8, 0);
    if (ZSTD_isError(r))
        return zstd_status(r, "skippable frame", diag);
    GC_TRY(gc_core_pwrite_all(s->base.fd, buf, s->reserve, 0, diag));
    s->frames[0].phys = 0;
    s->frames[0].csize = s->reserve;
    s->frames[0].logical = 0;
    s->frames[0].dsize = GC_CORE_DATA_START;
    return GPUCORE_OK;
}

/*
 * Compress the rest of the stream (the partial frame in slots[fill] continued by @p meta) into
 * @p out; tail[i] gets the sizes of the i-th frame (phys and logical left for the caller).
 */
static gpucore_status_t compress_tail(struct zstd_sink *s, const uint8_t *meta, size_t meta_len,
                                      struct gc_buf *out, struct gc_core_frame *tail,
                                      gpucore_diag_t *diag)
{
    size_t fill = (size_t)(s->base.pos - s->cur_start);
    uint8_t *in = s->slots[s->fill].in;

    for (size_t i = 0; fill || meta_len; i++) {
        size_t take = s->frame_size - fill < meta_len ? s->frame_size - fill : meta_len;
        const uint8_t *src = meta;
        size_t len = take, c = 0;

        if (fill) {
            /* Top up the partial frame; in[0, fill) stays intact for a retry after a cut. */
            if (take)
                memcpy(in + fill, meta, take);
            src = in;
            len = fill + take;
        }
        GC_TRY(compress(s->cctx, src, len, s->out, s->out_cap, &c, diag));
        gc_buf_append(out, s->out, c);
        tail[i].csize = c;
        tail[i].dsize = len;
        meta += take;
        meta_len -= take;
        fill = 0;
    }
    GC_FAIL_IF(gc_buf_status(out), diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    return GPUCORE_OK;
}

static gpucore_status_t zstd_finish(struct gc_core_sink *base, const uint8_t *meta, size_t meta_len,
                                    const uint8_t *header, int force, uint64_t *ret_cut,
                                    gpucore_diag_t *diag)
{
    struct zstd_sink *s = (struct zstd_sink *)base;
    uint64_t fill, nt, tail_bytes = 0, end, logical;
    struct gc_core_frame *tail;
    struct gc_buf out, table;
    gpucore_status_t st;
    int e;

    *ret_cut = GC_CORE_NONE;
    /* Frames still in flight first; one may not fit, which is a cut like any other. */
    GC_TRY(drain(s, ret_cut, diag));
    if (*ret_cut != GC_CORE_NONE)
        return GPUCORE_OK;
    fill = base->pos - s->cur_start;
    nt = (fill + meta_len + s->frame_size - 1) / s->frame_size;
    logical = s->cur_start;
    tail = gc_calloc_array((size_t)nt, sizeof(*tail));
    GC_FAIL_IF(!tail, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    gc_buf_init(&out);
    gc_buf_init(&table);
    st = compress_tail(s, meta, meta_len, &out, tail, diag);
    if (st < 0)
        goto out;
    for (uint64_t i = 0; i < nt; i++)
        tail_bytes += tail[i].csize;
    end = s->phys + tail_bytes + gc_core_seektable_size(s->nframes + nt);
    if (!force && base->budget != GC_CORE_NONE && end > base->budget) {
        /*
         * Drop the partial data frame first (its share of the tail is unknown until the tail
         * is compressed again), else as many whole frames from the end as the overshoot
         * needs. Nothing left to drop: write anyway (the budget is below the metadata).
         */
        uint64_t freed = 0;
        uint32_t k = s->nframes;

        if (fill) {
            *ret_cut = s->cur_start;
            goto out;
        }
        while (k > 1 && freed < end - base->budget)
            freed += s->frames[--k].csize;
        if (k < s->nframes) {
            *ret_cut = s->frames[k].logical;
            goto out;
        }
    }

    st = gc_core_pwrite_all(base->fd, out.data, out.len, s->phys, diag);
    for (uint64_t i = 0; st == GPUCORE_OK && i < nt; i++) {
        st = add_frame(s, s->phys, tail[i].csize, logical, tail[i].dsize, diag);
        s->phys += tail[i].csize;
        logical += tail[i].dsize;
    }
    if (st == GPUCORE_OK)
        st = write_frame0(s, header, diag);
    if (st < 0)
        goto out;
    gc_core_seektable_encode(&table, s->frames, s->nframes);
    if (gc_buf_status(&table)) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out;
    }
    st = gc_core_pwrite_all(base->fd, table.data, table.len, s->phys, diag);
    if (st < 0)
        goto out;
    s->phys += table.len;
    base->pos = logical;
    /* Rewinds truncated at frame starts only; make sure nothing stale follows the table. */
    if (ftruncate(base->fd, (off_t)s->phys) != 0) {
        e = errno;
        st = gc_diag_set(diag, GPUCORE_E_IO, s->phys, "cannot set the file size to %llu: %s",
                         (unsigned long long)s->phys, strerror(e));
    }
out:
    gc_free(tail);
    gc_buf_done(&out);
    gc_buf_done(&table);
    return st;
}

static uint64_t zstd_file_bytes(const struct gc_core_sink *base)
{
    return ((const struct zstd_sink *)base)->phys;
}

static void zstd_destroy(struct gc_core_sink *base)
{
    struct zstd_sink *s = (struct zstd_sink *)base;

    if (s->nworkers) {
        cancel_in_flight(s);
        pthread_mutex_lock(&s->lock);
        s->stop = 1;
        pthread_cond_broadcast(&s->work);
        pthread_mutex_unlock(&s->lock);
        for (uint32_t i = 0; i < s->nworkers; i++)
            pthread_join(s->workers[i].thread, NULL);
    }
    if (s->workers) {
        for (uint32_t i = 0; i < s->nworkers; i++)
            ZSTD_freeCCtx(s->workers[i].cctx);
        pthread_cond_destroy(&s->done);
        pthread_cond_destroy(&s->work);
        pthread_mutex_destroy(&s->lock);
    }
    for (uint32_t i = 0; s->slots && i < s->nslots; i++) {
        gc_free(s->slots[i].in);
        gc_free(s->slots[i].out);
    }
    gc_free(s->slots);
    gc_free(s->workers);
    ZSTD_freeCCtx(s->cctx);
    gc_free(s->out);
    gc_free(s->zero_frame);
    gc_free(s->frames);
    gc_free(s);
}

static const struct gc_core_sink_ops zstd_ops = {
    .append = zstd_append,
    .room = zstd_room,
    .rewind = zstd_rewind,
    .finish = zstd_finish,
    .file_bytes = zstd_file_bytes,
    .destroy = zstd_destroy,
};

/* What every frame gets, whichever thread compresses it. */
static gpucore_status_t setup_cctx(ZSTD_CCtx *cctx, int level, gpucore_diag_t *diag)
{
    size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);

    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    if (ZSTD_isError(r))
        return zstd_status(r, "parameters", diag);
    return GPUCORE_OK;
}

/*
 * Start @p threads workers. Threads that cannot be created are done without: the pool is
 * smaller, or absent and frames are compressed inline. Only out-of-memory is an error.
 */
static gpucore_status_t start_workers(struct zstd_sink *s, uint32_t threads, int level,
                                      gpucore_diag_t *diag)
{
    s->workers = gc_calloc_array(threads, sizeof(*s->workers));
    GC_FAIL_IF(!s->workers, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    for (uint32_t i = 0; i < threads; i++) {
        struct zworker *wk = &s->workers[s->nworkers];

        wk->sink = s;
        wk->cctx = ZSTD_createCCtx();
        GC_FAIL_IF(!wk->cctx, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        if (setup_cctx(wk->cctx, level, diag) < 0 ||
            pthread_create(&wk->thread, NULL, worker_main, wk) != 0) {
            ZSTD_freeCCtx(wk->cctx);
            wk->cctx = NULL;
            break;
        }
        s->nworkers++;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_core_sink_zstd_new(int fd, uint64_t budget,
                                       const struct gc_core_zstd_params *params,
                                       struct gc_core_sink **ret, gpucore_diag_t *diag)
{
    struct zstd_sink *s = gc_calloc_array(1, sizeof(*s));
    uint32_t threads = params->threads > 1 ? params->threads : 0;
    gpucore_status_t st;

    GC_FAIL_IF(!s, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    s->base.ops = &zstd_ops;
    s->base.fd = fd;
    s->base.budget = budget;
    s->base.pos = GC_CORE_DATA_START;
    s->frame_size = params->frame_size;
    s->reserve = (uint32_t)ZSTD_compressBound(GC_CORE_DATA_START) + 8;
    s->cur_start = GC_CORE_DATA_START;
    s->phys = s->reserve;
    s->out_cap = ZSTD_compressBound(s->frame_size);
    s->cctx = ZSTD_createCCtx();
    s->out = gc_malloc(s->out_cap);
    s->cap = 64;
    s->frames = gc_calloc_array(s->cap, sizeof(*s->frames));
    if (!s->cctx || !s->out || !s->frames) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out_fail;
    }
    s->nframes = 1; /* frame 0, filled in by finish */
    st = setup_cctx(s->cctx, params->level, diag);
    if (st < 0)
        goto out_fail;
    {
        uint8_t *zeros = gc_calloc_array(1, s->frame_size);
        size_t zsize = 0;

        st = zeros ? compress(s->cctx, zeros, s->frame_size, s->out, s->out_cap, &zsize, diag)
                   : gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        gc_free(zeros);
        if (st < 0)
            goto out_fail;
        s->zero_frame = gc_malloc(zsize);
        if (!s->zero_frame) {
            st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            goto out_fail;
        }
        memcpy(s->zero_frame, s->out, zsize);
        s->zero_frame_size = zsize;
    }
    /*
     * One slot to fill inline; with workers, two per worker so they never wait for the
     * caller. Allocated before the workers start: they read the ring.
     */
    s->nslots = threads ? 2 * threads : 1;
    s->slots = gc_calloc_array(s->nslots, sizeof(*s->slots));
    if (!s->slots) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out_fail;
    }
    for (uint32_t i = 0; i < s->nslots; i++) {
        s->slots[i].in = gc_malloc(s->frame_size);
        s->slots[i].out = gc_malloc(s->out_cap);
        if (!s->slots[i].in || !s->slots[i].out) {
            st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            goto out_fail;
        }
    }
    if (threads) {
        st = start_workers(s, threads, params->level, diag);
        if (st < 0)
            goto out_fail;
    }
    *ret = &s->base;
    return GPUCORE_OK;

out_fail:
    zstd_destroy(&s->base);
    return st;
}
