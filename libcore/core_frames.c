/* SPDX-License-Identifier: MIT */
/*
 * Random access to the logical image of a compressed core: binary search in the frame index,
 * decode on demand into a small LRU cache of frames (G-FMT-5: a buffer of exactly the frame's
 * size, window limited, checksum verified by zstd).
 *
 * Memory is bounded three ways: a frame decodes to at most max_frame_size bytes (the writer's
 * 64 MiB by default), the cache holds at most `frame_cache` frames and GC_CORE_FRAME_CACHE_BYTES
 * bytes, and everything (cache, the compressed input of the frame being decoded, the index) is
 * charged to the reader's budget; when a frame does not fit, the cache is emptied first.
 */
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "core_internal.h"
#include "core_zstd.h"

struct gc_core_zslot {
    uint32_t frame; /* UINT32_MAX: empty */
    uint64_t stamp; /* last use, for LRU */
    uint8_t *buf;   /* exactly frames[frame].dsize bytes */
};

#define SLOT_EMPTY UINT32_MAX

/* The compressed input buffer is kept between frames up to this size, freed above it. */
#define IN_KEEP (1u << 20)

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
                                     uint32_t cache_frames, int allow_truncated, int *ret_clipped,
                                     gpucore_diag_t *diag)
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
    for (uint32_t i = 0; i < cache_frames; i++)
        z->slots[i].frame = SLOT_EMPTY;
    ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax, window_log_for(max_frame_size));
    return GPUCORE_OK;
}

static void slot_clear(struct gc_core_zimage *z, struct gc_core_zslot *slot)
{
    if (slot->frame != SLOT_EMPTY) {
        z->cache_bytes -= z->frames[slot->frame].dsize;
        gc_core_mem_free(z->mem, slot->buf, z->frames[slot->frame].dsize);
    }
    slot->buf = NULL;
    slot->frame = SLOT_EMPTY;
}

void gc_core_zimage_done(struct gc_core_zimage *z)
{
    for (uint32_t i = 0; i < z->nslots; i++)
        slot_clear(z, &z->slots[i]);
    gc_free(z->slots);
    gc_core_mem_free(z->mem, z->frames, (uint64_t)z->nframes * sizeof(*z->frames));
    gc_core_mem_free(z->mem, z->in, z->in_cap);
    ZSTD_freeDCtx(z->dctx);
    memset(z, 0, sizeof(*z));
}

void gc_core_zimage_drop_cache(struct gc_core_zimage *z)
{
    for (uint32_t s = 0; s < z->nslots; s++)
        slot_clear(z, &z->slots[s]);
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

/* The compressed bytes of frame @p i, read from the file into z->in. */
static gpucore_status_t read_input(struct gc_core_zimage *z, uint32_t i, gpucore_diag_t *diag)
{
    const struct gc_core_frame *f = &z->frames[i];

    GC_FAIL_IF(z->decode_limit != GC_CORE_NONE && f->dsize > z->decode_limit - z->decoded, diag,
               GPUCORE_E_LIMIT, f->phys,
               "offset 0x%llx: zstd frame %u (0x%llx bytes) would take the bytes decoded to "
               "read the core's structures past 0x%llx (%u x its memory budget)",
               (unsigned long long)f->phys, i, (unsigned long long)f->dsize,
               (unsigned long long)z->decode_limit, GPUCORE_OPEN_DECODE_FACTOR);
    z->decoded += f->dsize;

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

/* Decode frame @p i, whose compressed bytes are in z->in, into @p dst of exactly dsize bytes. */
static gpucore_status_t inflate(struct gc_core_zimage *z, uint32_t i, uint8_t *dst,
                                gpucore_diag_t *diag)
{
    const struct gc_core_frame *f = &z->frames[i];
    size_t r = ZSTD_decompressDCtx(z->dctx, dst, (size_t)f->dsize, z->in, (size_t)f->csize);

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

/* The decoded bytes of frame @p i, from the cache or decoded into the least recently used slot. */
static gpucore_status_t get_frame(struct gc_core_zimage *z, uint32_t i, const uint8_t **ret,
                                  gpucore_diag_t *diag)
{
    struct gc_core_zslot *victim = NULL;
    uint64_t dsize = z->frames[i].dsize;
    uint8_t *buf;
    gpucore_status_t st;

    for (uint32_t s = 0; s < z->nslots; s++) {
        struct gc_core_zslot *slot = &z->slots[s];

        if (slot->frame == i) {
            slot->stamp = ++z->clock;
            *ret = slot->buf;
            return GPUCORE_OK;
        }
        /* Prefer an empty slot, else the least recently used one. */
        if (!victim || (victim->frame != SLOT_EMPTY &&
                        (slot->frame == SLOT_EMPTY || slot->stamp < victim->stamp)))
            victim = slot;
    }
    if (!victim) /* no slots: gc_core_zimage_open always makes at least one */
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "internal: no frame cache");
    slot_clear(z, victim);
    /* Bounded in bytes too: drop the least recently used frames until this one fits. */
    while (z->cache_bytes && z->cache_bytes + dsize > GC_CORE_FRAME_CACHE_BYTES) {
        struct gc_core_zslot *old = NULL;

        for (uint32_t s = 0; s < z->nslots; s++)
            if (z->slots[s].frame != SLOT_EMPTY && (!old || z->slots[s].stamp < old->stamp))
                old = &z->slots[s];
        if (!old) /* cache_bytes counts occupied slots only: cannot happen */
            break;
        slot_clear(z, old);
    }
    /* Input first, then the output buffer: either may empty the cache to fit the budget. */
    st = read_input(z, i, diag);
    if (st == GPUCORE_OK)
        st = zcharge(z, dsize, z->frames[i].phys, "a decoded zstd frame", diag);
    if (st < 0) {
        trim_input(z);
        return st;
    }
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
    victim->buf = buf;
    victim->frame = i;
    victim->stamp = ++z->clock;
    z->cache_bytes += dsize;
    *ret = buf;
    return GPUCORE_OK;
}

gpucore_status_t gc_core_zimage_read(struct gc_core_zimage *z, uint64_t off, void *buf, uint64_t n,
                                     gpucore_diag_t *diag)
{
    uint8_t *out = buf;

    if (n == 0)
        return GPUCORE_OK;
    for (uint32_t i = find_frame(z, off); n; i++) {
        const struct gc_core_frame *f = &z->frames[i];
        uint64_t rel = off - f->logical;
        uint64_t take = f->dsize - rel < n ? f->dsize - rel : n;
        const uint8_t *src = NULL;

        if (rel == 0 && take == f->dsize) {
            /* The whole frame is wanted (sequential reads, decompress): skip the cache. */
            GC_TRY(decode(z, i, out, diag));
        } else {
            GC_TRY(get_frame(z, i, &src, diag));
            memcpy(out, src + rel, (size_t)take);
        }
        out += take;
        off += take;
        n -= take;
    }
    return GPUCORE_OK;
}
