/* SPDX-License-Identifier: MIT */
/*
 * Frame index of a compressed core: seek table codec and the frame walk. Every size comes from
 * the file and is checked before it is used; offsets in messages are physical file offsets.
 */
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

/*
 * A forward reader over the file with a small window, for the seek table and the frame walk:
 * they look at a few header bytes at a time, so the file is never held in memory.
 */
#define WIN_SIZE (16u << 10)

struct win {
    const struct gc_core_src *src;
    uint64_t at; /* file offset of buf[0] */
    uint32_t len;
    uint8_t buf[WIN_SIZE];
};

/*
 * Make [off, off + n) (n <= WIN_SIZE) available and point *ret at it. The caller has checked
 * that the range is inside the file as opened.
 */
static gpucore_status_t win_get(struct win *w, uint64_t off, uint32_t n, const uint8_t **ret,
                                gpucore_diag_t *diag)
{
    if (off < w->at || off - w->at > w->len || w->len - (off - w->at) < n) {
        uint64_t left = w->src->size - off;
        uint32_t len = left < WIN_SIZE ? (uint32_t)left : WIN_SIZE;

        GC_TRY(gc_core_src_read(w->src, off, w->buf, len, diag));
        w->at = off;
        w->len = len;
    }
    *ret = w->buf + (off - w->at);
    return GPUCORE_OK;
}

gpucore_status_t gc_core_seektable_parse(const struct gc_core_src *src, uint64_t max_frame_size,
                                         struct gc_core_mem *mem, struct gc_core_frame **ret_frames,
                                         uint32_t *ret_n, uint64_t *ret_logical,
                                         gpucore_diag_t *diag)
{
    struct gc_core_frame *frames = NULL;
    uint64_t size = src->size, table_size, table_off, phys = 0, logical = 0;
    uint32_t n, count = 0, entry_size;
    uint8_t foot[GC_ZSTD_SEEK_FOOTER_SIZE], head[8], desc;
    struct win *w;
    gpucore_status_t st = GPUCORE_OK;

    if (size < GC_ZSTD_SEEK_FOOTER_SIZE)
        return GPUCORE_E_NOTFOUND;
    GC_TRY(gc_core_src_read(src, size - sizeof(foot), foot, sizeof(foot), diag));
    if (gc_le32_get(foot + 5) != GC_ZSTD_SEEKABLE_MAGIC)
        return GPUCORE_E_NOTFOUND;
    desc = foot[4];
    GC_FAIL_IF(desc & GC_ZSTD_SEEK_DESC_RESERVED, diag, GPUCORE_E_CORRUPT, size - 5,
               "offset 0x%llx: seek table descriptor 0x%02x has reserved bits set",
               (unsigned long long)(size - 5), desc);
    entry_size = desc & GC_ZSTD_SEEK_DESC_CHECKSUM ? 12 : 8;
    n = gc_le32_get(foot);
    GC_FAIL_IF(n > GC_CORE_MAX_FRAMES, diag, GPUCORE_E_LIMIT, size - GC_ZSTD_SEEK_FOOTER_SIZE,
               "offset 0x%llx: seek table announces %u frames, more than the %u accepted",
               (unsigned long long)(size - GC_ZSTD_SEEK_FOOTER_SIZE), n, GC_CORE_MAX_FRAMES);
    table_size = 8 + (uint64_t)n * entry_size + GC_ZSTD_SEEK_FOOTER_SIZE;
    GC_FAIL_IF(table_size > size, diag, GPUCORE_E_CORRUPT, size - GC_ZSTD_SEEK_FOOTER_SIZE,
               "offset 0x%llx: seek table of %u frames needs 0x%llx bytes, the file has 0x%llx",
               (unsigned long long)(size - GC_ZSTD_SEEK_FOOTER_SIZE), n,
               (unsigned long long)table_size, (unsigned long long)size);
    table_off = size - table_size;
    GC_TRY(gc_core_src_read(src, table_off, head, sizeof(head), diag));
    GC_FAIL_IF(gc_le32_get(head) != GC_ZSTD_SEEK_TABLE_MAGIC, diag, GPUCORE_E_CORRUPT, table_off,
               "offset 0x%llx: seek table of %u frames does not start with magic 0x%08x",
               (unsigned long long)table_off, n, GC_ZSTD_SEEK_TABLE_MAGIC);
    GC_FAIL_IF(gc_le32_get(head + 4) != table_size - 8, diag, GPUCORE_E_CORRUPT, table_off + 4,
               "offset 0x%llx: seek table frame size 0x%x, expected 0x%llx",
               (unsigned long long)(table_off + 4), gc_le32_get(head + 4),
               (unsigned long long)(table_size - 8));

    /* n entries of >= 8 bytes are in the file: the index is bounded by the file's size. */
    GC_TRY(gc_core_mem_alloc(mem, (uint64_t)n * sizeof(*frames), table_off, "the seek table",
                             &frames, diag));
    w = gc_malloc(sizeof(*w));
    if (!w) {
        gc_core_mem_free(mem, frames, (uint64_t)n * sizeof(*frames));
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    w->src = src;
    w->at = w->len = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = table_off + 8 + (uint64_t)i * entry_size;
        const uint8_t *e;
        uint32_t c, d;

        st = win_get(w, at, 8, &e, diag);
        if (st < 0)
            break;
        c = gc_le32_get(e);
        d = gc_le32_get(e + 4);
        if (d > max_frame_size) {
            st = gc_diag_set(diag, GPUCORE_E_LIMIT, at + 4,
                             "offset 0x%llx: seek table frame %u decompresses to 0x%x bytes, "
                             "more than the limit 0x%llx",
                             (unsigned long long)(at + 4), i, d,
                             (unsigned long long)max_frame_size);
            break;
        }
        if (c == 0 || c > table_off - phys) {
            st = gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                             "offset 0x%llx: seek table frame %u has compressed size 0x%x; "
                             "0x%llx bytes are left before the table",
                             (unsigned long long)at, i, c, (unsigned long long)(table_off - phys));
            break;
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
    gc_free(w);
    if (st == GPUCORE_OK && phys != table_off)
        st = gc_diag_set(diag, GPUCORE_E_CORRUPT, table_off,
                         "offset 0x%llx: the seek table's compressed sizes add up to 0x%llx, "
                         "but the table starts at 0x%llx",
                         (unsigned long long)table_off, (unsigned long long)phys,
                         (unsigned long long)table_off);
    if (st < 0) {
        gc_core_mem_free(mem, frames, (uint64_t)n * sizeof(*frames));
        return st;
    }
    /* The caller frees count entries: give back the charge of the zero-length ones. */
    gc_core_mem_release(mem, (uint64_t)(n - count) * sizeof(*frames));
    *ret_frames = frames;
    *ret_n = count;
    *ret_logical = logical;
    return GPUCORE_OK;
}

/*
 * The zstd frame format (RFC 8878, section 3.1.1), as far as the walk needs it: the frame
 * header's size and Frame_Content_Size, then one 3-byte header per block, then an optional
 * 4-byte checksum. Block payloads are not read.
 */
#define ZSTD_FHD_RESERVED   0x08u
#define ZSTD_FHD_CHECKSUM   0x04u
#define ZSTD_FHD_SINGLE_SEG 0x20u
#define ZSTD_BLOCK_MAX      (128u << 10)
#define ZSTD_BLOCK_RLE      1u
#define ZSTD_BLOCK_RESERVED 3u

static const uint8_t did_bytes[4] = { 0, 1, 2, 4 };
static const uint8_t fcs_bytes[4] = { 0, 2, 4, 8 };

enum walk_end { WALK_FRAME, WALK_CUT };

/*
 * Size a zstd frame at @p off: *ret_csize and *ret_fcs, or WALK_CUT in *ret_end when the file
 * ends inside it.
 */
static gpucore_status_t frame_size(struct win *w, uint64_t off, uint64_t max_frame_size,
                                   uint64_t *ret_csize, uint64_t *ret_fcs, enum walk_end *ret_end,
                                   gpucore_diag_t *diag)
{
    uint64_t size = w->src->size, pos, fcs = 0;
    const uint8_t *p;
    uint32_t fhd, hsize, nfcs;

    *ret_end = WALK_CUT;
    if (size - off < 5)
        return GPUCORE_OK;
    GC_TRY(win_get(w, off, 5, &p, diag));
    fhd = p[4];
    GC_FAIL_IF(fhd & ZSTD_FHD_RESERVED, diag, GPUCORE_E_CORRUPT, off + 4,
               "offset 0x%llx: zstd frame header descriptor 0x%02x has the reserved bit set",
               (unsigned long long)(off + 4), fhd);
    nfcs = fcs_bytes[fhd >> 6];
    if (!nfcs && (fhd & ZSTD_FHD_SINGLE_SEG))
        nfcs = 1;
    hsize = 5u + (fhd & ZSTD_FHD_SINGLE_SEG ? 0u : 1u) + did_bytes[fhd & 3] + nfcs;
    GC_FAIL_IF(!nfcs, diag, GPUCORE_E_NOTSUP, off,
               "offset 0x%llx: zstd frame without a content size and no seek table, so the core "
               "cannot be read at random; decompress it first (gpucore decompress, or zstd -d)",
               (unsigned long long)off);
    if (size - off < hsize)
        return GPUCORE_OK;
    GC_TRY(win_get(w, off, hsize, &p, diag));
    for (uint32_t i = 0; i < nfcs; i++)
        fcs |= (uint64_t)p[hsize - nfcs + i] << (8 * i);
    if (nfcs == 2)
        fcs += 256;
    GC_FAIL_IF(fcs > max_frame_size, diag, GPUCORE_E_LIMIT, off,
               "offset 0x%llx: zstd frame decompresses to 0x%llx bytes, more than the limit "
               "0x%llx",
               (unsigned long long)off, (unsigned long long)fcs,
               (unsigned long long)max_frame_size);
    for (pos = off + hsize;;) {
        uint32_t bh, type, bsize;

        if (size - pos < 3)
            return GPUCORE_OK;
        GC_TRY(win_get(w, pos, 3, &p, diag));
        bh = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
        type = (bh >> 1) & 3;
        bsize = bh >> 3;
        GC_FAIL_IF(type == ZSTD_BLOCK_RESERVED || bsize > ZSTD_BLOCK_MAX, diag, GPUCORE_E_CORRUPT,
                   pos, "offset 0x%llx: zstd block header 0x%06x: %s", (unsigned long long)pos, bh,
                   type == ZSTD_BLOCK_RESERVED ? "reserved block type"
                                               : "block larger than 128 KiB");
        pos += 3;
        bsize = type == ZSTD_BLOCK_RLE ? 1 : bsize;
        if (size - pos < bsize)
            return GPUCORE_OK;
        pos += bsize;
        if (bh & 1)
            break;
    }
    if (fhd & ZSTD_FHD_CHECKSUM) {
        if (size - pos < 4)
            return GPUCORE_OK;
        pos += 4;
    }
    *ret_csize = pos - off;
    *ret_fcs = fcs;
    *ret_end = WALK_FRAME;
    return GPUCORE_OK;
}

/*
 * One pass over the frames: count them (@p frames NULL) or fill the @p cap entries of
 * @p frames. *ret_cut is set when the file ends inside a frame.
 */
static gpucore_status_t walk_pass(struct win *w, uint64_t max_frame_size,
                                  struct gc_core_frame *frames, uint32_t cap, uint32_t *ret_n,
                                  uint64_t *ret_logical, uint64_t *ret_end, int *ret_cut,
                                  gpucore_diag_t *diag)
{
    uint64_t size = w->src->size, off = 0, logical = 0;
    uint32_t n = 0;

    *ret_cut = 0;
    while (off < size) {
        struct gc_core_frame f = { .phys = off, .logical = logical };
        enum walk_end end;
        const uint8_t *p;
        uint32_t magic;

        if (size - off < 8) { /* shorter than any frame header */
            *ret_cut = 1;
            break;
        }
        GC_TRY(win_get(w, off, 8, &p, diag));
        magic = gc_le32_get(p);
        if ((magic & GC_ZSTD_SKIPPABLE_MASK) == GC_ZSTD_SKIPPABLE_START) {
            uint64_t len = 8 + (uint64_t)gc_le32_get(p + 4);

            if (len > size - off) {
                *ret_cut = 1;
                break;
            }
            off += len;
            continue;
        }
        GC_FAIL_IF(magic != GC_ZSTD_FRAME_MAGIC, diag, GPUCORE_E_CORRUPT, off,
                   "offset 0x%llx: not a zstd frame (magic 0x%08x)", (unsigned long long)off,
                   magic);
        GC_TRY(frame_size(w, off, max_frame_size, &f.csize, &f.dsize, &end, diag));
        if (end == WALK_CUT) {
            *ret_cut = 1;
            break;
        }
        if (f.dsize) {
            GC_FAIL_IF(n == GC_CORE_MAX_FRAMES, diag, GPUCORE_E_LIMIT, off,
                       "offset 0x%llx: more than %u zstd frames", (unsigned long long)off,
                       GC_CORE_MAX_FRAMES);
            if (frames && n < cap)
                frames[n] = f;
            n++;
            logical += f.dsize; /* <= 2^20 frames of <= max_frame_size: no wrap */
        }
        off += f.csize;
    }
    *ret_n = n;
    *ret_logical = logical;
    *ret_end = off;
    return GPUCORE_OK;
}

gpucore_status_t gc_core_frames_walk(const struct gc_core_src *src, uint64_t max_frame_size,
                                     int allow_truncated, struct gc_core_mem *mem,
                                     struct gc_core_frame **ret_frames, uint32_t *ret_n,
                                     uint64_t *ret_logical, int *ret_clipped, gpucore_diag_t *diag)
{
    struct gc_core_frame *frames = NULL;
    uint64_t logical = 0, end = 0;
    uint32_t n = 0, n2 = 0;
    gpucore_status_t st;
    struct win *w;
    int cut = 0;

    w = gc_malloc(sizeof(*w));
    GC_FAIL_IF(!w, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    w->src = src;
    w->at = w->len = 0;
    /*
     * Two passes, counting then filling: the index is allocated once at its exact size (32
     * bytes per frame of at least 10 bytes in the file), never grown by doubling.
     */
    st = walk_pass(w, max_frame_size, NULL, 0, &n, &logical, &end, &cut, diag);
    if (st == GPUCORE_OK && cut && !allow_truncated)
        st = gc_diag_set(diag, GPUCORE_E_TRUNCATED, end,
                         "offset 0x%llx: the file (0x%llx bytes) ends inside a zstd frame",
                         (unsigned long long)end, (unsigned long long)src->size);
    if (st == GPUCORE_OK)
        st = gc_core_mem_alloc(mem, (uint64_t)n * sizeof(*frames), 0, "the zstd frame index",
                               &frames, diag);
    if (st == GPUCORE_OK) {
        w->at = w->len = 0;
        st = walk_pass(w, max_frame_size, frames, n, &n2, &logical, &end, &cut, diag);
        /* The file changed between the passes (it is read, not mapped): not the same core. */
        if (st == GPUCORE_OK && n2 != n)
            st = gc_diag_set(diag, GPUCORE_E_TRUNCATED, end,
                             "offset 0x%llx: the zstd frames changed while being indexed",
                             (unsigned long long)end);
        if (st < 0)
            gc_core_mem_free(mem, frames, (uint64_t)n * sizeof(*frames));
    }
    gc_free(w);
    if (st < 0)
        return st;
    *ret_frames = frames;
    *ret_n = n;
    *ret_logical = logical;
    *ret_clipped = cut;
    return GPUCORE_OK;
}
