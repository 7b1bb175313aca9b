/* SPDX-License-Identifier: MIT */
/*
 * Random access to the logical image of a compressed core: binary search in the frame index,
 * decode on demand into a small cache of frames (G-FMT-5: a buffer of exactly the frame's
 * size, window limited, checksum verified by zstd), least recently used first out, except that
 * frames read often are kept over the frames of a scan (KEEP_HITS).
 *
 * Memory is bounded three ways: a frame decodes to at most max_frame_size bytes (the writer's
 * 64 MiB by default), the cache holds at most `frame_cache` frames and GC_CORE_FRAME_CACHE_BYTES
 * bytes, and everything (cache, the compressed input of the frame being decoded, the index) is
 * charged to the reader's budget; when a frame does not fit, the cache is emptied first.
 *
 * A read that needs two or more frames the cache does not hold decodes them in parallel
 * (read_batch): each frame once, straight into the caller's buffer when the read covers it
 * whole. A batch is only an optimisation: when its memory does not fit in the budget as it is,
 * the frames are decoded one by one as before, which may empty the cache to fit.
 */
/* sched_getaffinity and CPU_COUNT need _GNU_SOURCE, which the build defines. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "core_internal.h"
#include "core_zstd.h"

struct gc_core_zslot {
    uint32_t frame;   /* UINT32_MAX: empty */
    uint32_t hits;    /* reads served since it was decoded */
    uint64_t stamp;   /* last use, for LRU */
    uint8_t *buf;     /* exactly frames[frame].dsize bytes */
    int pending;      /* a batch is decoding into it: never evicted */
};

/*
 * A frame the cache served this many reads is kept over frames read less. A sequential scan
 * reads a frame at most once more after decoding it (the next read starts where the last one
 * ended), while the core's headers, queue descriptors and rings are read again and again
 * between scans: with plain LRU, a scan through 8 frames evicted them and they were decoded
 * again (4 of the 58 frames `gpucore analyze` decoded on a 10k-wave core).
 */
#define KEEP_HITS 2u

#define SLOT_EMPTY UINT32_MAX

/* The compressed input buffer is kept between frames up to this size, freed above it. */
#define IN_KEEP (1u << 20)

/*
 * Frames one batch decodes at most: a few per thread, so the threads stay busy on a long read
 * while the job table stays small (it is on the stack, about 300 bytes a frame).
 */
#define BATCH_FRAMES (4u * GC_CORE_DECODE_THREADS)

static void pool_stop(struct gc_core_zpool *p);

uint32_t gc_core_decode_threads(void)
{
    cpu_set_t set;
    long n = 0;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 1)
        return 1;
    return n < (long)GC_CORE_DECODE_THREADS ? (uint32_t)n : GC_CORE_DECODE_THREADS;
}

/* The smallest window log that covers @p max_frame_size, within zstd's bounds. */
static int window_log_for(uint64_t max_frame_size)
{
    ZSTD_bounds b = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
    int log = 10;

    while (log < b.upperBound && ((uint64_t)1 << log) < max_frame_size)
        log++;
    return log < b.lowerBound ? b.lowerBound : log;
}

gpucore_status_t gc_core_zimage_open(struct gc_core_zimage *z, const struct gc_core_src *src,
                                     struct gc_core_mem *mem, uint64_t max_frame_size,
                                     uint32_t cache_frames, uint32_t threads, int allow_truncated,
                                     int *ret_clipped, gpucore_diag_t *diag)
{
    gpucore_status_t st;

    memset(z, 0, sizeof(*z));
    z->src = src;
    z->mem = mem;
    z->decode_limit = GC_CORE_NONE;
    *ret_clipped = 0;
    st = gc_core_seektable_parse(src, max_frame_size, mem, &z->frames, &z->nframes,
                                 &z->logical_size, diag);
    if (st == GPUCORE_E_NOTFOUND)
        st = gc_core_frames_walk(src, max_frame_size, allow_truncated, mem, &z->frames, &z->nframes,
                                 &z->logical_size, ret_clipped, diag);
    if (st < 0)
        return st;

    if (!cache_frames)
        cache_frames = 1;
    z->dctx = ZSTD_createDCtx();
    z->slots = gc_calloc_array(cache_frames, sizeof(*z->slots));
    if (!z->dctx || !z->slots) {
        gc_core_zimage_done(z);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    z->nslots = cache_frames;
    z->threads = threads ? threads : gc_core_decode_threads();
    if (z->threads > GC_CORE_DECODE_THREADS)
        z->threads = GC_CORE_DECODE_THREADS;
    for (uint32_t i = 0; i < cache_frames; i++)
        z->slots[i].frame = SLOT_EMPTY;
    z->window_log = window_log_for(max_frame_size);
    ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax, z->window_log);
    return GPUCORE_OK;
}

static void slot_clear(struct gc_core_zimage *z, struct gc_core_zslot *slot)
{
    if (!slot) /* slot_of() found none */
        return;
    if (slot->frame != SLOT_EMPTY) {
        z->cache_bytes -= z->frames[slot->frame].dsize;
        gc_core_mem_free(z->mem, slot->buf, z->frames[slot->frame].dsize);
    }
    slot->buf = NULL;
    slot->frame = SLOT_EMPTY;
    slot->hits = 0;
    slot->pending = 0;
}

void gc_core_zimage_done(struct gc_core_zimage *z)
{
    pool_stop(z->pool);
    for (uint32_t i = 0; i < z->nslots; i++)
        slot_clear(z, &z->slots[i]);
    gc_free(z->slots);
    gc_core_mem_free(z->mem, z->frames, (uint64_t)z->nframes * sizeof(*z->frames));
    gc_core_mem_free(z->mem, z->in, z->in_cap);
    ZSTD_freeDCtx(z->dctx);
    for (uint32_t t = 0; t < GC_ARRAY_SIZE(z->wdctx); t++) {
        ZSTD_freeDCtx(z->wdctx[t]);
        gc_core_mem_free(z->mem, z->win[t], z->win_cap[t]);
    }
    memset(z, 0, sizeof(*z));
}

void gc_core_zimage_drop_cache(struct gc_core_zimage *z)
{
    for (uint32_t s = 0; s < z->nslots; s++)
        slot_clear(z, &z->slots[s]);
    /* The batch threads' input buffers are idle between reads: only a cache too. */
    for (uint32_t t = 0; t < GC_ARRAY_SIZE(z->win); t++) {
        gc_core_mem_free(z->mem, z->win[t], z->win_cap[t]);
        z->win[t] = NULL;
        z->win_cap[t] = 0;
    }
}

/* Charge @p n bytes; when they do not fit, empty the cache and try once more. */
static gpucore_status_t zcharge(struct gc_core_zimage *z, uint64_t n, uint64_t off,
                                const char *what, gpucore_diag_t *diag)
{
    if (gc_core_mem_charge(z->mem, n, off, what, NULL) == GPUCORE_OK)
        return GPUCORE_OK;
    gc_core_zimage_drop_cache(z);
    return gc_core_mem_charge(z->mem, n, off, what, diag);
}

/* Index of the frame holding logical offset @p off (which is inside the image). */
static uint32_t find_frame(const struct gc_core_zimage *z, uint64_t off)
{
    uint32_t lo = 0, hi = z->nframes;

    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (z->frames[mid].logical <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Count the bytes frame @p i decodes to against the decode limit of an open. */
static gpucore_status_t count_decode(struct gc_core_zimage *z, uint32_t i, gpucore_diag_t *diag)
{
    const struct gc_core_frame *f = &z->frames[i];

    GC_FAIL_IF(z->decode_limit != GC_CORE_NONE && f->dsize > z->decode_limit - z->decoded, diag,
               GPUCORE_E_LIMIT, f->phys,
               "offset 0x%llx: zstd frame %u (0x%llx bytes) would take the bytes decoded to "
               "read the core's structures past 0x%llx (%u x its memory budget)",
               (unsigned long long)f->phys, i, (unsigned long long)f->dsize,
               (unsigned long long)z->decode_limit, GPUCORE_OPEN_DECODE_FACTOR);
    z->decoded += f->dsize;
    return GPUCORE_OK;
}

/* The compressed bytes of frame @p i, read from the file into z->in. */
static gpucore_status_t read_input(struct gc_core_zimage *z, uint32_t i, gpucore_diag_t *diag)
{
    const struct gc_core_frame *f = &z->frames[i];

    GC_TRY(count_decode(z, i, diag));
    if (f->csize > z->in_cap) {
        gc_core_mem_free(z->mem, z->in, z->in_cap);
        z->in = NULL;
        z->in_cap = 0;
        GC_TRY(zcharge(z, f->csize, f->phys, "a compressed zstd frame", diag));
        z->in = f->csize <= SIZE_MAX ? gc_malloc((size_t)f->csize) : NULL;
        if (!z->in) {
            gc_core_mem_release(z->mem, f->csize);
            return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                               "out of memory for a 0x%llx-byte compressed frame",
                               (unsigned long long)f->csize);
        }
        z->in_cap = f->csize;
    }
    return gc_core_src_read(z->src, f->phys, z->in, f->csize, diag);
}

/* Drop a large input buffer after use, so one big frame does not pin it. */
static void trim_input(struct gc_core_zimage *z)
{
    if (z->in_cap > IN_KEEP) {
        gc_core_mem_free(z->mem, z->in, z->in_cap);
        z->in = NULL;
        z->in_cap = 0;
    }
}

/*
 * Decode frame @p i (@p f), whose compressed bytes are @p in, into @p dst of exactly dsize
 * bytes with decoder @p dctx. Touches nothing else: the batch's threads call it.
 */
static gpucore_status_t inflate_with(void *dctx, const struct gc_core_frame *f, uint32_t i,
                                     const uint8_t *in, uint8_t *dst, gpucore_diag_t *diag)
{
    size_t r = ZSTD_decompressDCtx(dctx, dst, (size_t)f->dsize, in, (size_t)f->csize);

    if (ZSTD_isError(r))
        return gc_diag_set(diag,
                           ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? GPUCORE_E_NOMEM
                                                                                : GPUCORE_E_CORRUPT,
                           f->phys, "zstd frame %u at offset 0x%llx: %s", i,
                           (unsigned long long)f->phys, ZSTD_getErrorName(r));
    if (r != f->dsize)
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, f->phys,
                           "zstd frame %u at offset 0x%llx: decoded 0x%zx bytes, the index "
                           "says 0x%llx",
                           i, (unsigned long long)f->phys, r, (unsigned long long)f->dsize);
    return GPUCORE_OK;
}

/* Decode frame @p i, whose compressed bytes are in z->in, into @p dst of exactly dsize bytes. */
static gpucore_status_t inflate(struct gc_core_zimage *z, uint32_t i, uint8_t *dst,
                                gpucore_diag_t *diag)
{
    z->stats.decodes++;
    return inflate_with(z->dctx, &z->frames[i], i, z->in, dst, diag);
}

/* Decode frame @p i into @p dst, which has exactly dsize bytes. */
static gpucore_status_t decode(struct gc_core_zimage *z, uint32_t i, uint8_t *dst,
                               gpucore_diag_t *diag)
{
    gpucore_status_t st = read_input(z, i, diag);

    if (st == GPUCORE_OK)
        st = inflate(z, i, dst, diag);
    trim_input(z);
    return st;
}

/* The slot holding frame @p i, or NULL. A hit makes it the most recently used. */
static struct gc_core_zslot *cache_find(struct gc_core_zimage *z, uint32_t i)
{
    for (uint32_t s = 0; s < z->nslots; s++) {
        if (z->slots[s].frame == i) {
            z->slots[s].stamp = ++z->clock;
            z->slots[s].hits++;
            z->stats.cache_hits++;
            return &z->slots[s];
        }
    }
    return NULL;
}

/* Whether frame @p i is cached, without counting a use. */
static int cache_has(const struct gc_core_zimage *z, uint32_t i)
{
    for (uint32_t s = 0; s < z->nslots; s++)
        if (z->slots[s].frame == i)
            return 1;
    return 0;
}

/* Whether slot @p a is emptied before slot @p b: empty, then read less, then used less lately. */
static int evict_before(const struct gc_core_zslot *a, const struct gc_core_zslot *b)
{
    int a_empty = a->frame == SLOT_EMPTY, b_empty = b->frame == SLOT_EMPTY;
    int a_kept = a->hits >= KEEP_HITS, b_kept = b->hits >= KEEP_HITS;

    if (a_empty != b_empty)
        return a_empty;
    if (a_kept != b_kept)
        return b_kept;
    return a->stamp < b->stamp;
}

/* The slot to empty next (an occupied one if @p occupied), never a pending one; NULL if none. */
static struct gc_core_zslot *next_victim(struct gc_core_zimage *z, int occupied)
{
    struct gc_core_zslot *victim = NULL;

    for (uint32_t s = 0; s < z->nslots; s++) {
        struct gc_core_zslot *slot = &z->slots[s];

        if (slot->pending || (occupied && slot->frame == SLOT_EMPTY))
            continue;
        if (!victim || evict_before(slot, victim))
            victim = slot;
    }
    return victim;
}

/*
 * An empty slot for a frame of @p dsize bytes (next_victim, emptied); then frames are dropped
 * in the same order until @p dsize more bytes fit in GC_CORE_FRAME_CACHE_BYTES. When
 * @p ret_reuse is not NULL and the slot emptied held a frame of exactly @p dsize bytes, its
 * buffer (still charged) is handed over in *ret_reuse instead of being freed: decoding into
 * pages already touched spares a page fault per 4 KiB. NULL when every slot is pending (a
 * batch plans fewer frames for the cache than there are slots: cannot happen).
 */
static struct gc_core_zslot *cache_room(struct gc_core_zimage *z, uint64_t dsize,
                                        uint8_t **ret_reuse)
{
    struct gc_core_zslot *victim = next_victim(z, 0);

    if (ret_reuse)
        *ret_reuse = NULL;
    if (!victim)
        return NULL;
    if (ret_reuse && victim->frame != SLOT_EMPTY && z->frames[victim->frame].dsize == dsize) {
        z->cache_bytes -= dsize;
        *ret_reuse = victim->buf;
        victim->buf = NULL;
        victim->frame = SLOT_EMPTY;
    }
    slot_clear(z, victim);
    /* Bounded in bytes too. */
    while (z->cache_bytes && z->cache_bytes + dsize > GC_CORE_FRAME_CACHE_BYTES) {
        struct gc_core_zslot *old = next_victim(z, 1);

        if (!old) /* only pending frames left: a batch keeps them within the bound */
            break;
        slot_clear(z, old);
    }
    return victim;
}

/* Put frame @p i, decoded in @p buf (charged, dsize bytes), in @p slot (empty). */
static void cache_put(struct gc_core_zimage *z, struct gc_core_zslot *slot, uint32_t i,
                      uint8_t *buf)
{
    slot->buf = buf;
    slot->frame = i;
    slot->hits = 0;
    slot->stamp = ++z->clock;
    z->cache_bytes += z->frames[i].dsize;
}

/* The decoded bytes of frame @p i, from the cache or decoded into the least recently used slot. */
static gpucore_status_t get_frame(struct gc_core_zimage *z, uint32_t i, const uint8_t **ret,
                                  gpucore_diag_t *diag)
{
    struct gc_core_zslot *victim = cache_find(z, i);
    uint64_t dsize = z->frames[i].dsize;
    uint8_t *buf;
    gpucore_status_t st;

    if (victim) {
        *ret = victim->buf;
        return GPUCORE_OK;
    }
    victim = cache_room(z, dsize, &buf);
    if (!victim) /* no batch is under way here: cannot happen */
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "internal: no frame cache slot");
    /* Input first, then the output buffer: either may empty the cache to fit the budget. */
    st = read_input(z, i, diag);
    if (st == GPUCORE_OK && !buf)
        st = zcharge(z, dsize, z->frames[i].phys, "a decoded zstd frame", diag);
    if (st < 0) {
        gc_core_mem_free(z->mem, buf, dsize);
        trim_input(z);
        return st;
    }
    if (!buf)
        buf = dsize <= SIZE_MAX ? gc_malloc((size_t)dsize) : NULL;
    if (!buf) {
        gc_core_mem_release(z->mem, dsize);
        trim_input(z);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "out of memory for a 0x%llx-byte frame", (unsigned long long)dsize);
    }
    st = inflate(z, i, buf, diag);
    trim_input(z);
    if (st < 0) {
        gc_core_mem_free(z->mem, buf, dsize);
        return st;
    }
    cache_put(z, victim, i, buf);
    *ret = buf;
    return GPUCORE_OK;
}

/* The part of one frame a read wants: [rel, rel + take) of frame i, at @p out. */
static void frame_part(const struct gc_core_zimage *z, uint32_t i, uint64_t off, uint64_t n,
                       uint64_t *ret_rel, uint64_t *ret_take)
{
    const struct gc_core_frame *f = &z->frames[i];
    uint64_t rel = off - f->logical;

    *ret_rel = rel;
    *ret_take = f->dsize - rel < n ? f->dsize - rel : n;
}

/* Read the part of frame @p i that [off, off + n) wants into @p out; *ret_done bytes. */
static gpucore_status_t read_one(struct gc_core_zimage *z, uint32_t i, uint64_t off, uint8_t *out,
                                 uint64_t n, uint64_t *ret_done, gpucore_diag_t *diag)
{
    const uint8_t *src = NULL;
    uint64_t rel, take;

    frame_part(z, i, off, n, &rel, &take);
    if (rel == 0 && take == z->frames[i].dsize) {
        /* The whole frame is wanted (sequential reads, decompress): skip the cache. */
        GC_TRY(decode(z, i, out, diag));
    } else {
        GC_TRY(get_frame(z, i, &src, diag));
        memcpy(out, src + rel, (size_t)take);
    }
    *ret_done = take;
    return GPUCORE_OK;
}

/* One frame of a batch: decoded into the caller's buffer, or into a cache slot's buffer. */
struct zjob {
    uint32_t frame;
    int to_cache;
    uint64_t rel, take; /* the part the read wants */
    uint8_t *out;       /* where that part goes */
    uint8_t *dst;       /* out (whole frame) or the buffer of its cache slot (to_cache) */
    gpucore_status_t st;
    gpucore_diag_t diag;
};

struct zbatch {
    const struct gc_core_zimage *z;
    struct zjob *jobs;
    uint32_t njobs;
    uint32_t nhelpers; /* helpers with a decoder and an input buffer for this batch */
};

/* Decode job @p k of @p b with @p dctx, through the input buffer @p in. */
static void run_job(const struct zbatch *b, uint32_t k, void *dctx, uint8_t *in)
{
    struct zjob *j = &b->jobs[k];
    const struct gc_core_frame *f = &b->z->frames[j->frame];

    j->st = gc_core_src_read(b->z->src, f->phys, in, f->csize, &j->diag);
    if (j->st == GPUCORE_OK)
        j->st = inflate_with(dctx, f, j->frame, in, j->dst, &j->diag);
}

/*
 * The helper threads of a core, started at its first batch and stopped when it is closed.
 * Jobs are taken under the lock; the reading thread takes them too and waits only for jobs a
 * helper has taken, never for a helper to wake up: on a machine with no idle CPU a batch costs
 * what one thread costs, not one scheduling delay per helper.
 */
struct helper {
    struct gc_core_zpool *pool;
    uint32_t t; /* its decoder and input buffer: z->wdctx[t], z->win[t] */
    pthread_t thread;
};

struct gc_core_zpool {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a batch has jobs, or stop */
    pthread_cond_t idle; /* busy dropped to 0 */
    struct gc_core_zimage *z;
    struct zbatch *batch; /* the batch under way, or NULL */
    uint32_t next;        /* its next job */
    uint32_t busy;        /* its jobs helpers have taken and not finished */
    int stop;
    uint32_t nhelpers;
    struct helper helpers[GC_CORE_DECODE_THREADS - 1];
};

/* Whether helper @p h has a job to take (under the lock). */
static int helper_has_job(const struct gc_core_zpool *p, const struct helper *h)
{
    return p->batch && p->next < p->batch->njobs && h->t < p->batch->nhelpers;
}

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    struct gc_core_zpool *p = h->pool;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        struct zbatch *b;
        uint32_t k;

        while (!p->stop && !helper_has_job(p, h))
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stop)
            break;
        b = p->batch;
        k = p->next++;
        p->busy++;
        pthread_mutex_unlock(&p->lock);
        run_job(b, k, p->z->wdctx[h->t], p->z->win[h->t]);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/*
 * Start up to z->threads - 1 helpers, with every signal blocked (a library's threads must not
 * take the caller's signals). Threads that cannot be started are done without; NULL (and
 * z->threads set to 1) when none can.
 */
static struct gc_core_zpool *pool_start(struct gc_core_zimage *z)
{
    struct gc_core_zpool *p = gc_calloc_array(1, sizeof(*p));
    sigset_t all, old;

    if (!p) {
        z->threads = 1;
        return NULL;
    }
    p->z = z;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, NULL);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (uint32_t t = 0; t + 1 < z->threads; t++) {
        struct helper *h = &p->helpers[p->nhelpers];

        h->pool = p;
        h->t = p->nhelpers;
        if (pthread_create(&h->thread, NULL, helper_main, h) != 0)
            break;
        p->nhelpers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!p->nhelpers) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->work);
        pthread_cond_destroy(&p->idle);
        gc_free(p);
        z->threads = 1;
        return NULL;
    }
    z->threads = p->nhelpers + 1;
    return p;
}

static void pool_stop(struct gc_core_zpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t t = 0; t < p->nhelpers; t++)
        pthread_join(p->helpers[t].thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->idle);
    gc_free(p);
}

/*
 * Plan a batch from frame @p i for [off, off + n): the frames in a row that are not cached, at
 * most BATCH_FRAMES, while their compressed bytes and the frames kept for the cache stay within
 * GC_CORE_DECODE_BATCH_BYTES (the first always counts). Frames for the cache also stay within
 * what the cache holds at once (its slots, GC_CORE_FRAME_CACHE_BYTES): they are
 * pending while decoded, and each one's slot is taken from the others. *ret_csize is the largest compressed frame.
 */
static uint32_t batch_plan(const struct gc_core_zimage *z, uint32_t i, uint64_t off,
                           uint8_t *out, uint64_t n, struct zjob *jobs, uint64_t *ret_csize)
{
    uint32_t nj = 0, ncache = 0;
    uint64_t cost = 0, cached = 0, csize = 0;

    while (n && nj < BATCH_FRAMES && i < z->nframes && !cache_has(z, i)) {
        const struct gc_core_frame *f = &z->frames[i];
        struct zjob *j = &jobs[nj];
        uint64_t c;

        frame_part(z, i, off, n, &j->rel, &j->take);
        j->frame = i;
        j->out = out;
        j->to_cache = !(j->rel == 0 && j->take == f->dsize);
        c = f->csize + (j->to_cache ? f->dsize : 0);
        if (nj && (c > GC_CORE_DECODE_BATCH_BYTES - cost ||
                   (j->to_cache && (ncache == z->nslots ||
                                    f->dsize > GC_CORE_FRAME_CACHE_BYTES - cached))))
            break;
        cost += c;
        if (j->to_cache) {
            ncache++;
            cached += f->dsize;
        }
        csize = f->csize > csize ? f->csize : csize;
        nj++;
        i++;
        off += j->take;
        out += j->take;
        n -= j->take;
    }
    *ret_csize = csize;
    return nj;
}

/* The decoder of extra thread @p t, made on first use; NULL if it cannot be made. */
static void *worker_dctx(struct gc_core_zimage *z, uint32_t t)
{
    if (!z->wdctx[t]) {
        z->wdctx[t] = ZSTD_createDCtx();
        if (z->wdctx[t])
            ZSTD_DCtx_setParameter(z->wdctx[t], ZSTD_d_windowLogMax, z->window_log);
    }
    return z->wdctx[t];
}

/* Make *buf (of *cap charged bytes) hold at least @p n bytes, charging without evicting. */
static int input_reserve(struct gc_core_zimage *z, uint8_t **buf, uint64_t *cap, uint64_t n)
{
    uint8_t *p;

    if (*cap >= n)
        return 1;
    if (gc_core_mem_alloc(z->mem, n, GC_NO_OFFSET, "a compressed zstd frame", &p, NULL) < 0)
        return 0;
    gc_core_mem_free(z->mem, *buf, *cap);
    *buf = p;
    *cap = n;
    return 1;
}

/* Free input buffers above IN_KEEP, so that one batch of big frames does not pin them. */
static void trim_inputs(struct gc_core_zimage *z)
{
    trim_input(z);
    for (uint32_t t = 0; t < GC_ARRAY_SIZE(z->win); t++) {
        if (z->win_cap[t] > IN_KEEP) {
            gc_core_mem_free(z->mem, z->win[t], z->win_cap[t]);
            z->win[t] = NULL;
            z->win_cap[t] = 0;
        }
    }
}

/*
 * The helpers a batch of @p nj frames of at most @p csize compressed bytes can use: each needs
 * a decoder and an input buffer that fit in the budget as it is, as does this thread's.
 * -1 when this thread's does not fit.
 */
static int batch_helpers(struct gc_core_zimage *z, uint32_t nj, uint64_t csize)
{
    uint32_t want, have = 0;

    if (!input_reserve(z, &z->in, &z->in_cap, csize))
        return -1;
    if (!z->pool)
        z->pool = pool_start(z);
    if (!z->pool)
        return 0;
    want = z->pool->nhelpers < nj - 1 ? z->pool->nhelpers : nj - 1;
    for (; have < want; have++)
        if (!worker_dctx(z, have) || !input_reserve(z, &z->win[have], &z->win_cap[have], csize))
            break;
    return (int)have;
}

/* Run the batch: this thread takes jobs with the helpers, then waits for the ones they took. */
static void batch_decode(struct gc_core_zimage *z, struct zbatch *b)
{
    struct gc_core_zpool *p = z->pool;

    pthread_mutex_lock(&p->lock);
    p->batch = b;
    p->next = 0;
    pthread_cond_broadcast(&p->work);
    while (p->next < b->njobs) {
        uint32_t k = p->next++;

        pthread_mutex_unlock(&p->lock);
        run_job(b, k, z->dctx, z->in);
        pthread_mutex_lock(&p->lock);
    }
    while (p->busy)
        pthread_cond_wait(&p->idle, &p->lock);
    p->batch = NULL;
    pthread_mutex_unlock(&p->lock);
}

/* The slot of cached frame @p i, or NULL; no use is counted. */
static struct gc_core_zslot *slot_of(struct gc_core_zimage *z, uint32_t i)
{
    for (uint32_t s = 0; s < z->nslots; s++)
        if (z->slots[s].frame == i)
            return &z->slots[s];
    return NULL;
}

/*
 * Give the batch's frames for the cache a slot each, decoding into an evicted frame's buffer
 * of the same size where there is one. Fails (nothing left reserved) when a buffer does not
 * fit in the budget as it is.
 */
static int batch_slots(struct gc_core_zimage *z, struct zjob *jobs, uint32_t nj)
{
    for (uint32_t k = 0; k < nj; k++) {
        struct zjob *j = &jobs[k];
        uint64_t dsize = z->frames[j->frame].dsize;
        struct gc_core_zslot *slot;
        uint8_t *buf;

        if (!j->to_cache) {
            j->dst = j->out;
            continue;
        }
        slot = cache_room(z, dsize, &buf);
        if (!slot || (!buf && gc_core_mem_alloc(z->mem, dsize, GC_NO_OFFSET,
                                                "a decoded zstd frame", &buf, NULL) < 0)) {
            gc_core_mem_free(z->mem, buf, dsize);
            for (uint32_t u = 0; u < k; u++)
                if (jobs[u].to_cache)
                    slot_clear(z, slot_of(z, jobs[u].frame));
            return 0;
        }
        /* Listed before it is decoded, and pending until batch_finish (which takes it back if
           decoding fails): the jobs after it cannot evict it. */
        cache_put(z, slot, j->frame, buf);
        slot->pending = 1;
        j->dst = buf;
    }
    return 1;
}

/* A frame the batch has decoded may be evicted again. */
static void slot_unpend(struct gc_core_zslot *slot)
{
    if (slot)
        slot->pending = 0;
}

/* Copy the cached frames' parts and report the first frame that failed, in file order. */
static gpucore_status_t batch_finish(struct gc_core_zimage *z, struct zjob *jobs, uint32_t nj,
                                     uint64_t *ret_done, gpucore_diag_t *diag)
{
    gpucore_status_t st = GPUCORE_OK;

    *ret_done = 0;
    for (uint32_t k = 0; k < nj; k++) {
        struct zjob *j = &jobs[k];

        if (st == GPUCORE_OK && j->st < 0) {
            *diag = j->diag;
            st = j->st;
        }
        if (st < 0) {
            if (j->to_cache)
                slot_clear(z, slot_of(z, j->frame));
            continue;
        }
        if (j->to_cache) {
            slot_unpend(slot_of(z, j->frame));
            memcpy(j->out, j->dst + j->rel, (size_t)j->take);
        }
        *ret_done += j->take;
    }
    return st;
}

/* Whether the batch's frames all decode within the decode limit of an open. */
static int within_decode_limit(const struct gc_core_zimage *z, const struct zjob *jobs,
                               uint32_t nj)
{
    uint64_t left = z->decode_limit - z->decoded; /* decoded <= decode_limit, or no limit */

    if (z->decode_limit == GC_CORE_NONE)
        return 1;
    for (uint32_t k = 0; k < nj; k++) {
        uint64_t d = z->frames[jobs[k].frame].dsize;

        if (d > left)
            return 0;
        left -= d;
    }
    return 1;
}

/*
 * Decode the frames [off, off + n) needs from frame @p i on in parallel, when two or more in a
 * row are not cached and what they need fits in the budget as it is; *ret_done is 0 when not
 * (the caller reads one frame the ordinary way). Frames the read covers whole go straight to
 * @p out; the others go to the cache, and their parts are copied from there.
 */
static gpucore_status_t read_batch(struct gc_core_zimage *z, uint32_t i, uint64_t off,
                                   uint8_t *out, uint64_t n, uint64_t *ret_done,
                                   gpucore_diag_t *diag)
{
    struct zjob jobs[BATCH_FRAMES];
    struct zbatch b = { .z = z, .jobs = jobs };
    uint64_t csize;
    gpucore_status_t st;
    int helpers;

    *ret_done = 0;
    if (z->threads < 2)
        return GPUCORE_OK;
    b.njobs = batch_plan(z, i, off, out, n, jobs, &csize);
    /* Near the decode limit of an open, the ordinary way finds the frame that crosses it. */
    if (b.njobs < 2 || !within_decode_limit(z, jobs, b.njobs))
        return GPUCORE_OK;
    helpers = batch_helpers(z, b.njobs, csize);
    if (helpers < 1 || !batch_slots(z, jobs, b.njobs)) {
        trim_inputs(z);
        return GPUCORE_OK;
    }
    b.nhelpers = (uint32_t)helpers;
    for (uint32_t k = 0; k < b.njobs; k++)
        z->decoded += z->frames[jobs[k].frame].dsize;
    batch_decode(z, &b);
    z->stats.decodes += b.njobs;
    z->stats.batches++;
    z->stats.batch_frames += b.njobs;
    st = batch_finish(z, jobs, b.njobs, ret_done, diag);
    trim_inputs(z);
    return st;
}

gpucore_status_t gc_core_zimage_read(struct gc_core_zimage *z, uint64_t off, void *buf, uint64_t n,
                                     gpucore_diag_t *diag)
{
    uint8_t *out = buf;

    while (n) {
        uint32_t i = find_frame(z, off);
        uint64_t done = 0;

        GC_TRY(read_batch(z, i, off, out, n, &done, diag));
        if (!done)
            GC_TRY(read_one(z, i, off, out, n, &done, diag));
        out += done;
        off += done;
        n -= done;
    }
    return GPUCORE_OK;
}
