/* SPDX-License-Identifier: MIT */
/*
 * zstd sink: the logical file is cut into independent frames so a reader can decode any part
 * without the rest, and a seek table at the end says where each frame is:
 *
 *   head frames  logical [0, H): ELF header, program headers, notes and their zero padding, in
 *                frames of at most F bytes (F = frame size). They are compressed at finish;
 *                the data frames are written after a physical reservation for them, and moved
 *                down to follow them exactly (unless the file is large and has no budget:
 *                then the rest of the reservation is a skippable frame whose contents are a
 *                hole, at most 1/64 of the file).
 *   data frames  logical [H + k F, H + (k+1) F); the last one may be shorter.
 *   seek table   a skippable frame (see core_zstd.h), always last.
 *
 * So the file is a sequence of zstd frames and skippable frames; every zstd frame records its
 * content size and an XXH64 checksum and holds at most F <= 64 MiB; the logical image is the
 * concatenation of the zstd frames' contents in file order. A file cut anywhere can be indexed
 * by walking its frames from the start; `zstd -d` decodes a whole file to the plain core.
 *
 * Budget: a frame that does not fit is not dropped whole. The longest prefix of it that fits
 * (found by compressing prefixes, a binary search) is kept as the stream's last, partial
 * frame; finish() does the same inside whichever frame the final head makes too much.
 *
 * Threads. Frames are independent, so with threads > 1 a pool of workers compresses whole
 * frames in parallel while the caller fills the next ones; frames are written in order by the
 * caller's thread. Every frame is compressed with the same parameters whichever thread does
 * it, so the file is byte-identical to a single-threaded one. (zstd's own workers,
 * ZSTD_c_nbWorkers, split one frame into jobs of at least 512 KiB; with 1 MiB frames that
 * measured slower than one thread, and larger frames would make random reads dearer: the
 * default frame is 512 KiB, GC_CORE_DEFAULT_FRAME_SIZE says why.)
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

/* A skippable padding frame is kept only if the data frames are this many times its size. */
#define PAD_MAX_SHARE 64u

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
    ZSTD_CCtx *cctx; /* the caller's thread: head, tail, prefix searches, frames without workers */
    ZSTD_DCtx *dctx; /* decoding a written frame again to shorten it (created when needed) */
    uint32_t frame_size;
    uint8_t *out; /* scratch for the caller's thread */
    size_t out_cap;
    uint64_t p0;                  /* physical offset of the first data frame */
    uint64_t phys;                /* end of the data frames written so far */
    struct gc_core_frame *frames; /* data frames written */
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

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Worst-case compressed size of @p m logical bytes cut into frames of frame_size. */
static uint64_t frames_bound(const struct zstd_sink *s, uint64_t m)
{
    uint64_t full = m / s->frame_size, rem = m % s->frame_size;

    return full * ZSTD_compressBound(s->frame_size) + (rem ? ZSTD_compressBound((size_t)rem) : 0);
}

/*
 * Bytes the budget leaves for the data frames: the budget less the head and the seek table
 * for @p ndata data frames. The head's compressed size is not known before finish: this
 * counts half its estimated logical size (notes compress well); finish() corrects it exactly.
 */
static uint64_t head_frames(const struct zstd_sink *s)
{
    uint64_t head = s->base.meta_est > s->base.head ? s->base.meta_est : s->base.head;

    return div_up(head ? head : 1, s->frame_size);
}

static uint64_t data_budget(const struct zstd_sink *s, uint64_t ndata)
{
    uint64_t fixed = s->base.meta_est / 2 + gc_core_seektable_size(head_frames(s) + ndata);

    return s->base.budget > fixed ? s->base.budget - fixed : 0;
}

/*
 * The longest prefix of @p in[0, n) whose frame compresses to at most @p allowed bytes (0 if
 * none does). Compressed sizes grow with the prefix in practice, not strictly: the search
 * keeps the longest prefix it saw fit, and finish() checks the result again.
 */
static gpucore_status_t fitting_prefix(struct zstd_sink *s, const uint8_t *in, size_t n,
                                       uint64_t allowed, size_t *ret, gpucore_diag_t *diag)
{
    size_t lo = 0, hi = n, c = 0;

    *ret = 0;
    if (ZSTD_compressBound(n) <= allowed) {
        *ret = n;
        return GPUCORE_OK;
    }
    /* Invariant: a prefix of lo bytes fits (0 bytes: no frame at all); hi bytes do not. */
    while (hi - lo > 64) {
        size_t mid = lo + (hi - lo) / 2;

        GC_TRY(compress(s->cctx, in, mid, s->out, s->out_cap, &c, diag));
        if (c <= allowed)
            lo = mid;
        else
            hi = mid;
    }
    *ret = lo;
    return GPUCORE_OK;
}

/*
 * The oldest frame in flight does not fit the budget: keep the longest prefix of it that does
 * as the partial frame being filled, drop every later frame, and end the stream there.
 */
static gpucore_status_t cut_in_head_slot(struct zstd_sink *s, uint64_t *ret_cut,
                                         gpucore_diag_t *diag)
{
    struct zslot *slot = &s->slots[s->head];
    uint64_t room = data_budget(s, (uint64_t)s->nframes + 1), used = s->phys - s->p0;
    size_t keep = 0;

    cancel_in_flight(s); /* slots[fill] is now this slot; its input is intact */
    if (room > used)
        GC_TRY(fitting_prefix(s, slot->in, s->frame_size, room - used, &keep, diag));
    s->cur_start = slot->logical;
    s->base.pos = slot->logical + keep;
    *ret_cut = s->base.pos;
    return GPUCORE_OK;
}

/*
 * Write the oldest frame in flight, unless it does not fit the budget: then the stream is cut
 * inside it (*ret_cut), and every later frame is dropped.
 */
static gpucore_status_t write_head(struct zstd_sink *s, uint64_t *ret_cut, gpucore_diag_t *diag)
{
    struct zslot *slot = &s->slots[s->head];

    wait_done(s, slot);
    if (ZSTD_isError(slot->csize))
        return zstd_status(slot->csize, "compression", diag);
    if (s->base.budget != GC_CORE_NONE &&
        s->phys - s->p0 + slot->csize > data_budget(s, (uint64_t)s->nframes + 1))
        return cut_in_head_slot(s, ret_cut, diag);
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

static gpucore_status_t zstd_start(struct gc_core_sink *base, uint64_t head, gpucore_diag_t *diag)
{
    struct zstd_sink *s = (struct zstd_sink *)base;

    (void)diag;
    base->head = head;
    base->pos = head;
    s->cur_start = head;
    /* Room for the head frames at their largest and the header of a skippable padding frame. */
    s->p0 = frames_bound(s, head) + 8;
    s->phys = s->p0;
    return GPUCORE_OK;
}

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
    uint64_t used;

    /*
     * The compressed size of data is known only per frame (write_head cuts then). Known now:
     * whether anything still fits, and the frame count a reader accepts (head frames, data
     * frames and the partial one <= GC_CORE_MAX_FRAMES).
     */
    if (base->budget != GC_CORE_NONE && s->phys - s->p0 >= data_budget(s, s->nframes + 1))
        return 0;
    used = (uint64_t)s->nframes + s->queued + head_frames(s) + 1;
    if (used >= GC_CORE_MAX_FRAMES)
        return 0;
    return (GC_CORE_MAX_FRAMES - used) * s->frame_size +
           (s->frame_size - (base->pos - s->cur_start));
}

/* Decode written data frame @p k into the slot being filled, to make it the partial frame. */
static gpucore_status_t reload_frame(struct zstd_sink *s, uint32_t k, gpucore_diag_t *diag)
{
    const struct gc_core_frame *f = &s->frames[k];
    uint8_t *comp;
    size_t r;

    if (!s->dctx)
        s->dctx = ZSTD_createDCtx();
    comp = gc_malloc(f->csize);
    if (!s->dctx || !comp) {
        gc_free(comp);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    r = (size_t)-1;
    if (gc_core_pread_all(s->base.fd, comp, f->csize, f->phys, diag) == GPUCORE_OK)
        r = ZSTD_decompressDCtx(s->dctx, s->slots[s->fill].in, s->frame_size, comp, f->csize);
    gc_free(comp);
    if (r == (size_t)-1)
        return GPUCORE_E_IO;
    if (ZSTD_isError(r) || r != f->dsize)
        return gc_diag_set(diag, GPUCORE_E_IO, f->phys,
                           "internal: the frame written at 0x%llx does not decode back",
                           (unsigned long long)f->phys);
    return GPUCORE_OK;
}

static gpucore_status_t zstd_rewind(struct gc_core_sink *base, uint64_t off, gpucore_diag_t *diag)
{
    struct zstd_sink *s = (struct zstd_sink *)base;
    uint32_t k;

    GC_FAIL_IF(off < base->head || off > base->pos || s->queued, diag, GPUCORE_E_INVAL, off,
               "internal: cannot cut the compressed stream at 0x%llx", (unsigned long long)off);
    if (off >= s->cur_start) {
        base->pos = off;
        return GPUCORE_OK;
    }
    /* Inside a written frame: decode it again as the partial frame, and drop it and the rest. */
    k = (uint32_t)((off - base->head) / s->frame_size);
    GC_TRY(reload_frame(s, k, diag));
    s->phys = s->frames[k].phys;
    s->cur_start = s->frames[k].logical;
    s->nframes = k;
    base->pos = off;
    return GPUCORE_OK;
}

/* Compress @p len bytes of @p src as frames of at most frame_size into @p out. */
static gpucore_status_t compress_frames(struct zstd_sink *s, const uint8_t *src, uint64_t len,
                                        struct gc_buf *out, struct gc_core_frame **ret_frames,
                                        uint32_t *ret_n, gpucore_diag_t *diag)
{
    uint32_t n = (uint32_t)div_up(len, s->frame_size);
    struct gc_core_frame *f = gc_calloc_array(n ? n : 1, sizeof(*f));

    GC_FAIL_IF(!f, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = (uint64_t)i * s->frame_size;
        size_t piece = len - at < s->frame_size ? (size_t)(len - at) : s->frame_size, c = 0;
        gpucore_status_t st = compress(s->cctx, src + at, piece, s->out, s->out_cap, &c, diag);

        if (st < 0) {
            gc_free(f);
            return st;
        }
        f[i].phys = out->len;
        f[i].csize = c;
        f[i].logical = at;
        f[i].dsize = piece;
        gc_buf_append(out, s->out, c);
    }
    if (gc_buf_status(out)) {
        gc_free(f);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    *ret_frames = f;
    *ret_n = n;
    return GPUCORE_OK;
}

/*
 * The file would be @p over bytes above the budget: where to cut the data so that it is not.
 * Drops the partial frame and written frames from the end; the frame where enough is freed is
 * decoded (if written) and its longest fitting prefix kept.
 */
static gpucore_status_t propose_cut(struct zstd_sink *s, uint64_t over, uint64_t tail_c,
                                    uint64_t *ret_cut, gpucore_diag_t *diag)
{
    uint64_t fill = s->base.pos - s->cur_start;
    size_t keep = 0;
    uint32_t k;

    if (fill) {
        /* Dropping the partial frame saves its bytes and its seek-table entry. */
        if (tail_c + 8 >= over) {
            if (tail_c > over)
                GC_TRY(fitting_prefix(s, s->slots[s->fill].in, (size_t)fill, tail_c - over,
                                      &keep, diag));
            *ret_cut = s->cur_start + (keep < fill ? keep : fill - 1);
            return GPUCORE_OK;
        }
        over -= tail_c + 8;
    }
    for (k = s->nframes; k > 0; k--) {
        const struct gc_core_frame *f = &s->frames[k - 1];

        if (f->csize + 8 >= over) {
            if (f->csize > over) {
                GC_TRY(reload_frame(s, k - 1, diag));
                GC_TRY(fitting_prefix(s, s->slots[s->fill].in, (size_t)f->dsize,
                                      f->csize - over, &keep, diag));
            }
            *ret_cut = f->logical + (keep < f->dsize ? keep : f->dsize - 1);
            return GPUCORE_OK;
        }
        over -= f->csize + 8;
    }
    *ret_cut = s->base.head;
    return GPUCORE_OK;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static gpucore_status_t zstd_finish(struct gc_core_sink *base, const uint8_t *head,
                                    size_t head_len, uint64_t head_final, uint64_t *ret_cut,
                                    gpucore_diag_t *diag)
{
    struct zstd_sink *s = (struct zstd_sink *)base;
    uint64_t fill, tail_c = 0, data_c, total, hphys, end, logical_end;
    struct gc_core_frame *hf = NULL, *all = NULL;
    struct gc_buf hout, table;
    uint8_t *himage = NULL, *buf = NULL;
    uint32_t nh = 0, nall;
    gpucore_status_t st;
    int e, has_data;

    *ret_cut = GC_CORE_NONE;
    /* Frames still in flight first; one may not fit, which is a cut like any other. */
    GC_TRY(drain(s, ret_cut, diag));
    if (*ret_cut != GC_CORE_NONE)
        return GPUCORE_OK;
    fill = base->pos - s->cur_start;
    has_data = base->pos > base->head;
    if (!has_data)
        head_final = head_len;
    gc_buf_init(&hout);
    gc_buf_init(&table);
    /* The head frames: the head, then zeros up to where the data starts. */
    himage = gc_calloc_array(1, (size_t)head_final);
    st = himage ? GPUCORE_OK : gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    if (st == GPUCORE_OK) {
        memcpy(himage, head, head_len);
        st = compress_frames(s, himage, head_final, &hout, &hf, &nh, diag);
    }
    /* The partial data frame, left in s->out for writing below. */
    if (st == GPUCORE_OK && fill)
        st = compress(s->cctx, s->slots[s->fill].in, (size_t)fill, s->out, s->out_cap, &tail_c,
                      diag);
    if (st < 0)
        goto out;
    data_c = s->phys - s->p0 + tail_c;
    nall = nh + s->nframes + (fill != 0);
    total = hout.len + data_c + gc_core_seektable_size(nall);
    if (base->budget != GC_CORE_NONE && total > base->budget) {
        if (!has_data)
            st = gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                             "the core's ELF header, program headers and notes need %llu bytes "
                             "compressed, more than the size budget of %llu bytes",
                             (unsigned long long)(total - data_c),
                             (unsigned long long)base->budget);
        else
            st = propose_cut(s, total - base->budget, tail_c, ret_cut, diag);
        goto out;
    }
    if (fill) {
        st = gc_core_pwrite_all(base->fd, s->out, tail_c, s->phys, diag);
        if (st == GPUCORE_OK)
            st = add_frame(s, s->phys, tail_c, s->cur_start, fill, diag);
        if (st < 0)
            goto out;
        s->phys += tail_c;
    }
    /*
     * Place the head. The data frames move to follow the head exactly -- with a budget, for a
     * small file, or when the head outgrew the reservation -- unless copying them would cost
     * more than PAD_MAX_SHARE times the padding saved: then what the head frames leave of the
     * reservation is closed by a skippable frame whose contents are never written (a hole).
     */
    hphys = hout.len;
    if (base->budget == GC_CORE_NONE && has_data && hout.len + 8 <= s->p0 &&
        (s->p0 - hout.len) * PAD_MAX_SHARE <= s->phys - s->p0) {
        uint8_t pad[8];

        put_le32(pad, GC_ZSTD_SKIPPABLE_START);
        put_le32(pad + 4, (uint32_t)(s->p0 - hout.len - 8));
        st = gc_core_pwrite_all(base->fd, pad, sizeof(pad), hout.len, diag);
        hf[nh - 1].csize += s->p0 - hout.len;
        hphys = s->p0;
    } else if (s->phys > s->p0 && hout.len != s->p0) {
        buf = gc_malloc(GC_CORE_CHUNK_SIZE);
        st = buf ? gc_core_move_range(base->fd, s->p0, s->phys, hout.len, 0, buf,
                                      GC_CORE_CHUNK_SIZE, diag)
                 : gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    if (st == GPUCORE_OK)
        st = gc_core_pwrite_all(base->fd, hout.data, hout.len, 0, diag);
    if (st < 0)
        goto out;
    end = hphys + (s->phys - s->p0);

    /* The seek table: head frames, then data frames. */
    all = gc_calloc_array(nall ? nall : 1, sizeof(*all));
    if (!all) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out;
    }
    memcpy(all, hf, nh * sizeof(*all));
    if (s->nframes)
        memcpy(all + nh, s->frames, s->nframes * sizeof(*all));
    gc_core_seektable_encode(&table, all, nall);
    if (gc_buf_status(&table)) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out;
    }
    st = gc_core_pwrite_all(base->fd, table.data, table.len, end, diag);
    if (st < 0)
        goto out;
    end += table.len;
    /* Rewinds and moves leave bytes past the end; drop them. */
    if (ftruncate(base->fd, (off_t)end) != 0) {
        e = errno;
        st = gc_diag_set(diag, GPUCORE_E_IO, end, "cannot set the file size to %llu: %s",
                         (unsigned long long)end, strerror(e));
        goto out;
    }
    logical_end = head_final + (base->pos - base->head);
    base->pos = logical_end;
    s->phys = end;
out:
    gc_free(all);
    gc_free(hf);
    gc_free(himage);
    gc_free(buf);
    gc_buf_done(&hout);
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
    ZSTD_freeDCtx(s->dctx);
    gc_free(s->out);
    gc_free(s->zero_frame);
    gc_free(s->frames);
    gc_free(s);
}

static const struct gc_core_sink_ops zstd_ops = {
    .start = zstd_start,
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
    s->frame_size = params->frame_size;
    s->out_cap = ZSTD_compressBound(s->frame_size);
    s->cctx = ZSTD_createCCtx();
    s->out = gc_malloc(s->out_cap);
    s->cap = 64;
    s->frames = gc_calloc_array(s->cap, sizeof(*s->frames));
    if (!s->cctx || !s->out || !s->frames) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out_fail;
    }
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
