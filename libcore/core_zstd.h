/* SPDX-License-Identifier: MIT */
/*
 * zstd side of compressed cores: the seekable-format seek table (encode and parse), the frame
 * index of a file without one (walking the frames), and random access to the logical image
 * through a small LRU cache of decoded frames.
 *
 * Seek table, as in zstd's contrib/seekable_format: a skippable frame
 *
 *     u32 magic 0x184D2A5E, u32 frame size,
 *     per frame: u32 compressed size, u32 decompressed size [, u32 checksum if descriptor bit 7]
 *     footer: u32 number of frames, u8 descriptor, u32 magic 0x8F92EAB1
 *
 * at the very end of the file; the frames it describes start at offset 0 and are contiguous.
 */
#ifndef GC_CORE_ZSTD_H
#define GC_CORE_ZSTD_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "core_internal.h"
#include "gc_util.h"

#define GC_ZSTD_FRAME_MAGIC        0xFD2FB528u
#define GC_ZSTD_SKIPPABLE_MASK     0xFFFFFFF0u
#define GC_ZSTD_SKIPPABLE_START    0x184D2A50u
#define GC_ZSTD_SEEK_TABLE_MAGIC   0x184D2A5Eu /* skippable variant 14, reserved by the format */
#define GC_ZSTD_SEEKABLE_MAGIC     0x8F92EAB1u
#define GC_ZSTD_SEEK_FOOTER_SIZE   9u
#define GC_ZSTD_SEEK_DESC_CHECKSUM 0x80u
#define GC_ZSTD_SEEK_DESC_RESERVED 0x7Cu

/* One entry of a frame index: a compressed range and the logical bytes it decodes to. */
struct gc_core_frame {
    uint64_t phys;    /* offset of the frame in the file */
    uint64_t csize;   /* compressed bytes, including any skippable frame that pads it */
    uint64_t logical; /* offset of its first byte in the logical image */
    uint64_t dsize;   /* decompressed bytes, > 0 */
};

/* Size of the seek table frame for @p n frames without checksums. */
static inline uint64_t gc_core_seektable_size(uint64_t n)
{
    return 8 + 8 * n + GC_ZSTD_SEEK_FOOTER_SIZE;
}

/* Append the seek table for @p n frames (no checksums; sizes must fit in 32 bits). */
void gc_core_seektable_encode(struct gc_buf *b, const struct gc_core_frame *frames, uint32_t n);

/*
 * Parse the seek table at the end of the file @p src. Validates every size: the frames'
 * compressed sizes add up to the start of the table, no decompressed size exceeds
 * @p max_frame_size, at most GC_CORE_MAX_FRAMES frames. The index is charged to @p mem.
 *
 * @retval GPUCORE_E_NOTFOUND  the file does not end with a seek table footer.
 * @retval GPUCORE_OK, GPUCORE_E_CORRUPT, GPUCORE_E_LIMIT, GPUCORE_E_NOMEM, GPUCORE_E_IO,
 *         GPUCORE_E_TRUNCATED (the file shrank while being read).
 * On success *ret_frames (gc_core_mem_free(mem, p, n * sizeof *p)) holds *ret_n entries with
 * dsize > 0.
 */
gpucore_status_t gc_core_seektable_parse(const struct gc_core_src *src, uint64_t max_frame_size,
                                         struct gc_core_mem *mem, struct gc_core_frame **ret_frames,
                                         uint32_t *ret_n, uint64_t *ret_logical,
                                         gpucore_diag_t *diag);

/*
 * Index a file without a usable seek table by walking its frames from the start: zstd frames,
 * each of which must declare its content size (GPUCORE_E_NOTSUP otherwise), and skippable
 * frames. Only frame and block headers are read, through a small buffer: time is linear in the
 * number of blocks and memory is the index (charged to @p mem). With @p allow_truncated a
 * frame cut by the end of the file is dropped with everything after it and *ret_clipped is
 * set; without it, GPUCORE_E_TRUNCATED. The index is returned as by gc_core_seektable_parse().
 */
gpucore_status_t gc_core_frames_walk(const struct gc_core_src *src, uint64_t max_frame_size,
                                     int allow_truncated, struct gc_core_mem *mem,
                                     struct gc_core_frame **ret_frames, uint32_t *ret_n,
                                     uint64_t *ret_logical, int *ret_clipped, gpucore_diag_t *diag);

/*
 * Decoding threads. A read that needs several frames nobody has decoded yet (analyze reads a
 * queue's save area 1 MiB at a time: two or three frames of 512 KiB) decodes them at once, one
 * frame per thread, each thread with its own decoder (~100 KiB, not charged, like the first)
 * and the compressed input of its frame (charged). The helper threads are started at the
 * first such read and stopped by gc_core_zimage_done(); between reads they wait, and a read
 * never waits for one to wake up (the reading thread takes the jobs no helper has taken).
 *
 * GC_CORE_DECODE_THREADS: at most this many threads decode at once, the calling one included.
 *   Reads rarely span more new frames than this, and each thread costs a decoder and a
 *   compressed frame; more threads than frames buy nothing.
 * GC_CORE_DECODE_BATCH_BYTES: a batch holds at most this many bytes of compressed input and
 *   frames decoded for the cache (frames decoded straight into the caller's buffer cost
 *   nothing); a larger read is decoded in several batches, so a hostile core's large frames
 *   cannot make one read hold more than this besides the cache. One frame always fits.
 */
#define GC_CORE_DECODE_THREADS     4u
#define GC_CORE_DECODE_BATCH_BYTES (64ull << 20)

/* What the decoder did, for tests and benchmarks (never reset). */
struct gc_core_zstats {
    uint64_t decodes;       /* frames decoded, by any path */
    uint64_t cache_hits;    /* frame lookups the cache served */
    uint64_t batches;       /* reads that decoded frames on more than one thread */
    uint64_t batch_frames;  /* frames decoded in those */
};

/* Random access to the logical image of a compressed file. */
struct gc_core_zimage {
    const struct gc_core_src *src; /* borrowed */
    struct gc_core_mem *mem;       /* borrowed: charged for the index, cache and input buffer */
    struct gc_core_frame *frames;
    uint32_t nframes;
    uint64_t logical_size;
    void *dctx; /* ZSTD_DCtx */
    int window_log; /* the decoders' ZSTD_d_windowLogMax, from max_frame_size */
    struct gc_core_zslot *slots;
    uint32_t nslots;
    uint64_t cache_bytes; /* decoded bytes held by the slots */
    uint64_t clock;
    uint8_t *in; /* compressed bytes of the frame being decoded */
    uint64_t in_cap;
    /*
     * Bytes decoded so far and the most allowed (GC_CORE_NONE: no limit). Open sets a limit so
     * that notes scattered over many large frames cannot make opening cost unbounded CPU.
     */
    uint64_t decoded;
    uint64_t decode_limit;
    /*
     * Threads a read may decode on (1: only the caller's), and the extra threads' decoders and
     * input buffers (charged, kept up to the size z->in is kept).
     */
    uint32_t threads;
    struct gc_core_zpool *pool; /* the helper threads, from the first batch on */
    void *wdctx[GC_CORE_DECODE_THREADS - 1];
    uint8_t *win[GC_CORE_DECODE_THREADS - 1];
    uint64_t win_cap[GC_CORE_DECODE_THREADS - 1];
    struct gc_core_zstats stats;
};

/*
 * Build the index (seek table; else, or if the table is cut, the frame walk) and the decoder.
 * At most @p cache_frames decoded frames and GC_CORE_FRAME_CACHE_BYTES bytes of them are kept.
 * A read decodes on at most @p threads threads (0: gc_core_decode_threads(); at most
 * GC_CORE_DECODE_THREADS). On failure @p z is left empty (gc_core_zimage_done is still safe).
 */
gpucore_status_t gc_core_zimage_open(struct gc_core_zimage *z, const struct gc_core_src *src,
                                     struct gc_core_mem *mem, uint64_t max_frame_size,
                                     uint32_t cache_frames, uint32_t threads, int allow_truncated,
                                     int *ret_clipped, gpucore_diag_t *diag);

/* The decoding threads for this machine: its online CPUs, at most GC_CORE_DECODE_THREADS. */
uint32_t gc_core_decode_threads(void);

/*
 * Copy logical bytes [off, off + n), which the caller has checked are inside the image. Each
 * frame the range needs is decoded once: from the cache, straight into @p buf when the range
 * covers it whole, else into the cache; when two or more of them are not cached they are
 * decoded in parallel (GC_CORE_DECODE_THREADS, GC_CORE_DECODE_BATCH_BYTES).
 * GPUCORE_E_LIMIT when a frame does not fit in the budget even with the cache emptied.
 * On failure the first failing frame (in file order) is reported.
 */
gpucore_status_t gc_core_zimage_read(struct gc_core_zimage *z, uint64_t off, void *buf, uint64_t n,
                                     gpucore_diag_t *diag);

/*
 * Free the decoded frames of the cache and the idle input buffers of the batch threads (their
 * memory goes back to the budget).
 */
void gc_core_zimage_drop_cache(struct gc_core_zimage *z);

void gc_core_zimage_done(struct gc_core_zimage *z);

#endif /* GC_CORE_ZSTD_H */
