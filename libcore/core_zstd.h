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

/* Random access to the logical image of a compressed file. */
struct gc_core_zimage {
    const struct gc_core_src *src; /* borrowed */
    struct gc_core_mem *mem;       /* borrowed: charged for the index, cache and input buffer */
    struct gc_core_frame *frames;
    uint32_t nframes;
    uint64_t logical_size;
    void *dctx; /* ZSTD_DCtx */
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
};

/*
 * Build the index (seek table; else, or if the table is cut, the frame walk) and the decoder.
 * At most @p cache_frames decoded frames and GC_CORE_FRAME_CACHE_BYTES bytes of them are kept.
 * On failure @p z is left empty (gc_core_zimage_done is still safe).
 */
gpucore_status_t gc_core_zimage_open(struct gc_core_zimage *z, const struct gc_core_src *src,
                                     struct gc_core_mem *mem, uint64_t max_frame_size,
                                     uint32_t cache_frames, int allow_truncated, int *ret_clipped,
                                     gpucore_diag_t *diag);

/*
 * Copy logical bytes [off, off + n), which the caller has checked are inside the image.
 * GPUCORE_E_LIMIT when a frame does not fit in the budget even with the cache emptied.
 */
gpucore_status_t gc_core_zimage_read(struct gc_core_zimage *z, uint64_t off, void *buf, uint64_t n,
                                     gpucore_diag_t *diag);

/* Free the decoded frames of the cache (their memory goes back to the budget). */
void gc_core_zimage_drop_cache(struct gc_core_zimage *z);

void gc_core_zimage_done(struct gc_core_zimage *z);

#endif /* GC_CORE_ZSTD_H */
