/* SPDX-License-Identifier: MIT */
/*
 * Frame index of a compressed core: seek table codec and the frame walk. Every size comes from
 * the file and is checked before it is used; offsets in messages are physical file offsets.
 */
#include <zstd.h>
#include <zstd_errors.h>

#include "core_internal.h"
#include "core_zstd.h"
#include "gc_le.h"

void gc_core_seektable_encode(struct gc_buf *b, const struct gc_core_frame *frames, uint32_t n)
{
    gc_buf_put32(b, GC_ZSTD_SEEK_TABLE_MAGIC);
    gc_buf_put32(b, (uint32_t)(gc_core_seektable_size(n) - 8));
    for (uint32_t i = 0; i < n; i++) {
        gc_buf_put32(b, (uint32_t)frames[i].csize);
        gc_buf_put32(b, (uint32_t)frames[i].dsize);
    }
    gc_buf_put32(b, n);
    gc_buf_put8(b, 0); /* descriptor: no per-frame checksums (every frame has its own XXH64) */
    gc_buf_put32(b, GC_ZSTD_SEEKABLE_MAGIC);
}

gpucore_status_t gc_core_seektable_parse(const uint8_t *p, uint64_t size, uint64_t max_frame_size,
                                         struct gc_core_frame **ret_frames, uint32_t *ret_n,
                                         uint64_t *ret_logical, gpucore_diag_t *diag)
{
    struct gc_core_frame *frames;
    uint64_t table_size, table_off, phys = 0, logical = 0;
    uint32_t n, count = 0, entry_size;
    uint8_t desc;

    if (size < GC_ZSTD_SEEK_FOOTER_SIZE || gc_le32_get(p + size - 4) != GC_ZSTD_SEEKABLE_MAGIC)
        return GPUCORE_E_NOTFOUND;
    desc = p[size - 5];
    GC_FAIL_IF(desc & GC_ZSTD_SEEK_DESC_RESERVED, diag, GPUCORE_E_CORRUPT, size - 5,
               "offset 0x%llx: seek table descriptor 0x%02x has reserved bits set",
               (unsigned long long)(size - 5), desc);
    entry_size = desc & GC_ZSTD_SEEK_DESC_CHECKSUM ? 12 : 8;
    n = gc_le32_get(p + size - GC_ZSTD_SEEK_FOOTER_SIZE);
    GC_FAIL_IF(n > GC_CORE_MAX_FRAMES, diag, GPUCORE_E_LIMIT, size - GC_ZSTD_SEEK_FOOTER_SIZE,
               "offset 0x%llx: seek table announces %u frames, more than the %u accepted",
               (unsigned long long)(size - GC_ZSTD_SEEK_FOOTER_SIZE), n, GC_CORE_MAX_FRAMES);
    table_size = 8 + (uint64_t)n * entry_size + GC_ZSTD_SEEK_FOOTER_SIZE;
    GC_FAIL_IF(table_size > size, diag, GPUCORE_E_CORRUPT, size - GC_ZSTD_SEEK_FOOTER_SIZE,
               "offset 0x%llx: seek table of %u frames needs 0x%llx bytes, the file has 0x%llx",
               (unsigned long long)(size - GC_ZSTD_SEEK_FOOTER_SIZE), n,
               (unsigned long long)table_size, (unsigned long long)size);
    table_off = size - table_size;
    GC_FAIL_IF(gc_le32_get(p + table_off) != GC_ZSTD_SEEK_TABLE_MAGIC, diag, GPUCORE_E_CORRUPT,
               table_off, "offset 0x%llx: seek table of %u frames does not start with magic 0x%08x",
               (unsigned long long)table_off, n, GC_ZSTD_SEEK_TABLE_MAGIC);
    GC_FAIL_IF(gc_le32_get(p + table_off + 4) != table_size - 8, diag, GPUCORE_E_CORRUPT,
               table_off + 4, "offset 0x%llx: seek table frame size 0x%x, expected 0x%llx",
               (unsigned long long)(table_off + 4), gc_le32_get(p + table_off + 4),
               (unsigned long long)(table_size - 8));

    frames = gc_calloc_array(n, sizeof(*frames));
    GC_FAIL_IF(!frames, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = table_off + 8 + (uint64_t)i * entry_size;
        uint32_t c = gc_le32_get(p + at), d = gc_le32_get(p + at + 4);

        if (c == 0 || c > table_off - phys || d > max_frame_size) {
            gc_free(frames);
            if (d > max_frame_size)
                return gc_diag_set(diag, GPUCORE_E_LIMIT, at + 4,
                                   "offset 0x%llx: seek table frame %u decompresses to 0x%x "
                                   "bytes, more than the limit 0x%llx",
                                   (unsigned long long)(at + 4), i, d,
                                   (unsigned long long)max_frame_size);
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                               "offset 0x%llx: seek table frame %u has compressed size 0x%x; "
                               "0x%llx bytes are left before the table",
                               (unsigned long long)at, i, c,
                               (unsigned long long)(table_off - phys));
        }
        /* Zero-length frames (allowed by the format) have nothing to look up. */
        if (d) {
            frames[count].phys = phys;
            frames[count].csize = c;
            frames[count].logical = logical;
            frames[count].dsize = d;
            count++;
        }
        phys += c;
        logical += d; /* < 2^20 * 2^32: cannot wrap */
    }
    if (phys != table_off) {
        gc_free(frames);
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, table_off,
                           "offset 0x%llx: the seek table's compressed sizes add up to 0x%llx, "
                           "but the table starts at 0x%llx",
                           (unsigned long long)table_off, (unsigned long long)phys,
                           (unsigned long long)table_off);
    }
    *ret_frames = frames;
    *ret_n = count;
    *ret_logical = logical;
    return GPUCORE_OK;
}

static gpucore_status_t frame_error(size_t err, uint64_t off, uint64_t size, int *ret_truncated,
                                    gpucore_diag_t *diag)
{
    if (ZSTD_getErrorCode(err) == ZSTD_error_srcSize_wrong) {
        if (ret_truncated) {
            *ret_truncated = 1;
            return GPUCORE_OK;
        }
        return gc_diag_set(diag, GPUCORE_E_TRUNCATED, off,
                           "offset 0x%llx: the file (0x%llx bytes) ends inside a zstd frame",
                           (unsigned long long)off, (unsigned long long)size);
    }
    return gc_diag_set(diag, GPUCORE_E_CORRUPT, off, "offset 0x%llx: zstd frame: %s",
                       (unsigned long long)off, ZSTD_getErrorName(err));
}

gpucore_status_t gc_core_frames_walk(const uint8_t *p, uint64_t size, uint64_t max_frame_size,
                                     int allow_truncated, struct gc_core_frame **ret_frames,
                                     uint32_t *ret_n, uint64_t *ret_logical, int *ret_clipped,
                                     gpucore_diag_t *diag)
{
    struct gc_core_frame *frames = NULL;
    uint32_t n = 0, cap = 0;
    uint64_t off = 0, logical = 0;
    gpucore_status_t st = GPUCORE_OK;
    int truncated = 0;

    while (off < size && !truncated) {
        uint64_t rem = size - off;
        uint32_t magic;
        unsigned long long fcs;
        size_t c;

        if (rem < 8) /* shorter than any frame header */
            goto out_truncated;
        magic = gc_le32_get(p + off);
        if ((magic & GC_ZSTD_SKIPPABLE_MASK) == GC_ZSTD_SKIPPABLE_START) {
            uint64_t len = 8 + (uint64_t)gc_le32_get(p + off + 4);

            if (len > rem)
                goto out_truncated;
            off += len;
            continue;
        }
        if (magic != GC_ZSTD_FRAME_MAGIC) {
            st = gc_diag_set(diag, GPUCORE_E_CORRUPT, off,
                             "offset 0x%llx: not a zstd frame (magic 0x%08x)",
                             (unsigned long long)off, magic);
            goto out_fail;
        }
        c = ZSTD_findFrameCompressedSize(p + off, (size_t)rem);
        if (ZSTD_isError(c)) {
            st = frame_error(c, off, size, allow_truncated ? &truncated : NULL, diag);
            if (st < 0)
                goto out_fail;
            break;
        }
        fcs = ZSTD_getFrameContentSize(p + off, c);
        if (fcs == ZSTD_CONTENTSIZE_UNKNOWN) {
            st = gc_diag_set(diag, GPUCORE_E_NOTSUP, off,
                             "offset 0x%llx: zstd frame without a content size and no seek "
                             "table, so the core cannot be read at random; decompress it first "
                             "(gpucore decompress, or zstd -d)",
                             (unsigned long long)off);
            goto out_fail;
        }
        if (fcs == ZSTD_CONTENTSIZE_ERROR) {
            st = gc_diag_set(diag, GPUCORE_E_CORRUPT, off,
                             "offset 0x%llx: unreadable zstd frame header",
                             (unsigned long long)off);
            goto out_fail;
        }
        if (fcs > max_frame_size || fcs > UINT64_MAX - logical) {
            st = gc_diag_set(diag, GPUCORE_E_LIMIT, off,
                             "offset 0x%llx: zstd frame decompresses to 0x%llx bytes, more than "
                             "the limit 0x%llx",
                             (unsigned long long)off, fcs, (unsigned long long)max_frame_size);
            goto out_fail;
        }
        if (fcs) {
            if (n == GC_CORE_MAX_FRAMES) {
                st = gc_diag_set(diag, GPUCORE_E_LIMIT, off,
                                 "offset 0x%llx: more than %u zstd frames", (unsigned long long)off,
                                 GC_CORE_MAX_FRAMES);
                goto out_fail;
            }
            if (n == cap) {
                uint32_t ncap = cap ? cap * 2 : 64;
                struct gc_core_frame *nf = gc_realloc_array(frames, ncap, sizeof(*frames));

                if (!nf) {
                    st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
                    goto out_fail;
                }
                frames = nf;
                cap = ncap;
            }
            frames[n].phys = off;
            frames[n].csize = c;
            frames[n].logical = logical;
            frames[n].dsize = fcs;
            n++;
            logical += fcs;
        }
        off += c;
    }
out_done:
    *ret_frames = frames;
    *ret_n = n;
    *ret_logical = logical;
    *ret_clipped = truncated;
    return GPUCORE_OK;

out_truncated:
    if (allow_truncated) {
        truncated = 1;
        goto out_done;
    }
    st = gc_diag_set(diag, GPUCORE_E_TRUNCATED, off,
                     "offset 0x%llx: the file (0x%llx bytes) ends inside a zstd frame",
                     (unsigned long long)off, (unsigned long long)size);
out_fail:
    gc_free(frames);
    return st;
}
