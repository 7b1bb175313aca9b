/* SPDX-License-Identifier: MIT */
/*
 * Builders of the crafted cores in hostile_reader.h. The zstd frames are written by hand
 * (RFC 8878): a single-segment frame header with an 8-byte Frame_Content_Size, raw blocks for
 * the bytes that matter and RLE blocks for long runs, no checksum; a seek table in zstd's
 * seekable format follows the frames.
 */
#include "hostile_reader.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define MiB         (1ull << 20)
#define BLOCK_MAX   (128u << 10)
#define NT_MANIFEST 0x47430002u

struct buf {
    uint8_t *p;
    size_t len, cap;
    int failed;
};

static uint8_t *grow(struct buf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *p;

        while (cap - b->len < n)
            cap *= 2;
        p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    b->len += n;
    return b->p + b->len - n;
}

static void put(struct buf *b, const void *src, size_t n)
{
    uint8_t *p = grow(b, n);

    if (p && n)
        memcpy(p, src, n);
}

static void put_le(struct buf *b, uint64_t v, unsigned n)
{
    uint8_t *p = grow(b, n);

    for (unsigned i = 0; p && i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A run of a frame's content: @p n bytes from @p bytes, or @p n times @p fill (bytes NULL). */
struct run {
    const uint8_t *bytes;
    uint64_t n;
    uint8_t fill;
};

/* Frames written so far, for the seek table. */
#define ZFILE_MAX_FRAMES 1024u
struct zfile {
    struct buf b;
    uint32_t nframes;
    uint32_t csize[ZFILE_MAX_FRAMES];
    uint32_t dsize[ZFILE_MAX_FRAMES];
};

static void zframe(struct zfile *z, const struct run *runs, size_t nruns)
{
    size_t start = z->b.len;
    uint64_t total = 0;
    size_t nblocks = 0, done = 0;

    for (size_t i = 0; i < nruns; i++) {
        total += runs[i].n;
        nblocks += (size_t)((runs[i].n + BLOCK_MAX - 1) / BLOCK_MAX);
    }
    put_le(&z->b, 0xFD2FB528u, 4);
    put_le(&z->b, 0xE0, 1); /* FCS 8 bytes, single segment, no checksum, no dictionary */
    put_le(&z->b, total, 8);
    if (!nblocks)
        put_le(&z->b, 1, 3); /* one empty raw block, the last */
    for (size_t i = 0; i < nruns; i++) {
        for (uint64_t at = 0; at < runs[i].n; at += BLOCK_MAX) {
            uint32_t n = runs[i].n - at < BLOCK_MAX ? (uint32_t)(runs[i].n - at) : BLOCK_MAX;
            uint32_t last = ++done == nblocks;

            if (runs[i].bytes) {
                put_le(&z->b, (uint64_t)n << 3 | 0u << 1 | last, 3);
                put(&z->b, runs[i].bytes + at, n);
            } else {
                put_le(&z->b, (uint64_t)n << 3 | 1u << 1 | last, 3);
                put_le(&z->b, runs[i].fill, 1);
            }
        }
    }
    if (z->nframes < ZFILE_MAX_FRAMES) {
        z->csize[z->nframes] = (uint32_t)(z->b.len - start);
        z->dsize[z->nframes] = (uint32_t)total;
        z->nframes++;
    } else {
        z->b.failed = 1;
    }
}

static void zseek_table(struct zfile *z)
{
    put_le(&z->b, 0x184D2A5Eu, 4);
    put_le(&z->b, 8ull * z->nframes + 9, 4);
    for (uint32_t i = 0; i < z->nframes; i++) {
        put_le(&z->b, z->csize[i], 4);
        put_le(&z->b, z->dsize[i], 4);
    }
    put_le(&z->b, z->nframes, 4);
    put_le(&z->b, 0, 1);
    put_le(&z->b, 0x8F92EAB1u, 4);
}

static void ehdr(uint8_t *p, uint64_t phoff, uint16_t phnum, uint64_t shoff, uint16_t shnum)
{
    memset(p, 0, 64);
    memcpy(p, ELFMAG, SELFMAG);
    p[EI_CLASS] = ELFCLASS64;
    p[EI_DATA] = ELFDATA2LSB;
    p[EI_VERSION] = EV_CURRENT;
    le(p + 16, ET_CORE, 2);
    le(p + 18, EM_X86_64, 2);
    le(p + 20, EV_CURRENT, 4);
    le(p + 32, phoff, 8);
    le(p + 40, shoff, 8);
    le(p + 52, 64, 2);
    le(p + 54, 56, 2);
    le(p + 56, phnum, 2);
    le(p + 58, shnum ? 64 : 0, 2);
    le(p + 60, shnum, 2);
}

static void phdr(uint8_t *p, uint32_t type, uint64_t off, uint64_t vaddr, uint64_t filesz,
                 uint64_t memsz, uint64_t align)
{
    memset(p, 0, 56);
    le(p, type, 4);
    le(p + 4, PF_R, 4);
    le(p + 8, off, 8);
    le(p + 16, vaddr, 8);
    le(p + 32, filesz, 8);
    le(p + 40, memsz, 8);
    le(p + 48, align, 8);
}

/* A note header and padded owner: 12 + 8 bytes for owners of up to 7 characters. */
static void note_head(uint8_t *p, const char *owner, uint32_t descsz, uint32_t type)
{
    memset(p, 0, 20);
    le(p, strlen(owner) + 1, 4);
    le(p + 4, descsz, 4);
    le(p + 8, type, 4);
    memcpy(p + 12, owner, strlen(owner));
}

/*
 * Frames of @p frame bytes, each ending with a tiny PT_NOTE: reading the notes decodes every
 * frame into the reader's cache (the old reader kept 8 frames of up to 256 MiB).
 */
static void frame_bomb(struct zfile *z, uint64_t frame, unsigned nframes)
{
    uint8_t head[64 + 16 * 56] = { 0 }, note[24];
    uint64_t at = sizeof(head);

    if (nframes > 16)
        nframes = 16;
    ehdr(head, 64, (uint16_t)nframes, 0, 0);
    note_head(note, "CORE", 4, NT_PRSTATUS);
    memcpy(note + 20, "bomb", 4);
    for (unsigned i = 0; i < nframes; i++) {
        phdr(head + 64 + 56 * i, PT_NOTE, at + frame - sizeof(note), 0, sizeof(note), 0, 4);
        at += frame;
    }
    zframe(z, &(struct run){ .bytes = head, .n = sizeof(head) }, 1);
    for (unsigned i = 0; i < nframes; i++) {
        struct run r[2] = { { .n = frame - sizeof(note) }, { .bytes = note, .n = sizeof(note) } };

        zframe(z, r, 2);
    }
}

/* One PT_NOTE of @p size bytes holding one note whose descriptor is zeros. */
static void big_note(struct zfile *z, uint64_t size, uint64_t frame)
{
    uint8_t head[64 + 56 + 20];
    uint64_t left;

    ehdr(head, 64, 1, 0, 0);
    phdr(head + 64, PT_NOTE, 120, 0, size, 0, 4);
    note_head(head + 120, "CORE", (uint32_t)(size - 20), NT_PRSTATUS);
    left = 120 + size - sizeof(head);
    zframe(z, (struct run[]){ { .bytes = head, .n = sizeof(head) }, { .n = frame - sizeof(head) } },
           2);
    left -= frame - sizeof(head);
    for (; left; left -= left < frame ? left : frame)
        zframe(z, &(struct run){ .n = left < frame ? left : frame }, 1);
}

/* @p n program headers, all PT_NULL (zeros), counted with PN_XNUM in section header 0. */
static void many_phdrs(struct zfile *z, uint32_t n, uint64_t frame)
{
    uint8_t head[64], sh[64] = { 0 };
    uint64_t table = (uint64_t)n * 56, left = table;

    ehdr(head, 64, PN_XNUM, 64 + table, 1);
    le(sh + 44, n, 4); /* sh_info */
    zframe(z, &(struct run){ .bytes = head, .n = sizeof(head) }, 1);
    while (left > frame) {
        zframe(z, &(struct run){ .n = frame }, 1);
        left -= frame;
    }
    zframe(z, (struct run[]){ { .n = left }, { .bytes = sh, .n = sizeof(sh) } }, 2);
}

/* A GPUCORE manifest note of @p count zero records (40 bytes each). */
static void many_records(struct zfile *z, uint32_t count, uint64_t frame)
{
    uint8_t head[64 + 56 + 20 + 36] = { 0 };
    uint64_t desc = 36 + 40ull * count, seg = 20 + desc, left;
    uint8_t *m = head + 140;

    ehdr(head, 64, 1, 0, 0);
    phdr(head + 64, PT_NOTE, 120, 0, seg, 0, 4);
    note_head(head + 120, "GPUCORE", (uint32_t)desc, NT_MANIFEST);
    le(m, 1, 4);       /* major */
    le(m + 8, 36, 4);  /* header_size */
    le(m + 20, 40, 4); /* record_size */
    le(m + 24, count, 4);
    left = 40ull * count;
    /*
     * Records of all-ones bytes decode: every field is a value a newer writer may use, and the
     * label reference 0xffffffff is GPUCORE_REF_NONE (no string).
     */
    zframe(z,
           (struct run[]){ { .bytes = head, .n = sizeof(head) },
                           { .n = left < frame - sizeof(head) ? left : frame - sizeof(head),
                             .fill = 0xff } },
           2);
    left -= left < frame - sizeof(head) ? left : frame - sizeof(head);
    for (; left; left -= left < frame ? left : frame)
        zframe(z, &(struct run){ .n = left < frame ? left : frame, .fill = 0xff }, 1);
}

/*
 * One PT_LOAD of @p size bytes, every one @p fill, at file offset 4096, after a PT_NOTE holding
 * an empty NT_AUXV: a core the reader opens at once, whose plain image (what `gpucore
 * decompress` and `gpucore debug` write) is @p size bytes more, none of them a hole unless
 * @p fill is 0.
 */
static void filled(struct zfile *z, uint64_t size, uint8_t fill, uint64_t frame)
{
    uint8_t head[64 + 2 * 56 + 20 + 16] = { 0 };
    uint64_t first = frame - 4096 < size ? frame - 4096 : size, left = size - first;

    ehdr(head, 64, 2, 0, 0);
    phdr(head + 64, PT_NOTE, 176, 0, 36, 0, 4);
    phdr(head + 120, PT_LOAD, 4096, 0x100000000ull, size, size, 4096);
    note_head(head + 176, "CORE", 16, NT_AUXV);
    zframe(z,
           (struct run[]){ { .bytes = head, .n = sizeof(head) },
                           { .n = 4096 - sizeof(head) },
                           { .n = first, .fill = fill } },
           3);
    for (; left; left -= left < frame ? left : frame)
        zframe(z, &(struct run){ .n = left < frame ? left : frame, .fill = fill }, 1);
}

const struct hr_case hr_cases[] = {
    { "frame-bomb", "8 zstd frames of 256 MiB, each ending with a PT_NOTE (66 KB file)" },
    { "frame-bomb-64", "16 zstd frames of 64 MiB (the writer's largest), each with a PT_NOTE" },
    { "note-1g", "one PT_NOTE of 1 GiB (zeros) in a few KB" },
    { "phdrs-1m", "2^20 program headers (PN_XNUM) in a few KB" },
    { "manifest-4m", "a GPUCORE manifest note of 4M records (160 MiB) in a few KB" },
    { "fill-4g", "a PT_LOAD of 4 GiB of 0xaa (no hole in a plain copy) in 130 KB" },
    { "fill-32g", "a PT_LOAD of 32 GiB of 0xaa (no hole in a plain copy) in 1 MB" },
    { "zero-4g", "a PT_LOAD of 4 GiB of zeros (all holes in a plain copy) in 130 KB" },
    { NULL, NULL },
};

int hr_build(const char *name, unsigned scale, uint8_t **ret, size_t *ret_size)
{
    struct zfile *z;
    int ok = 1;

    if (!scale)
        scale = 1;
    z = calloc(1, sizeof(*z));
    if (!z)
        return -1;
    if (!strcmp(name, "frame-bomb"))
        frame_bomb(z, 256 * MiB / scale, 8);
    else if (!strcmp(name, "frame-bomb-64"))
        frame_bomb(z, 64 * MiB / scale, 16);
    else if (!strcmp(name, "note-1g"))
        big_note(z, 1024 * MiB / scale, 64 * MiB / scale);
    else if (!strcmp(name, "phdrs-1m"))
        many_phdrs(z, (1u << 20) / scale, 64 * MiB / scale);
    else if (!strcmp(name, "manifest-4m"))
        many_records(z, (4u << 20) / scale, 64 * MiB / scale);
    else if (!strcmp(name, "fill-4g") || !strcmp(name, "zero-4g"))
        filled(z, 4096 * MiB / scale, name[0] == 'f' ? 0xaa : 0, 64 * MiB);
    else if (!strcmp(name, "fill-32g"))
        filled(z, 32768 * MiB / scale, 0xaa, 64 * MiB);
    else
        ok = 0;
    if (ok)
        zseek_table(z);
    if (!ok || z->b.failed) {
        free(z->b.p);
        free(z);
        return -1;
    }
    *ret = z->b.p;
    *ret_size = z->b.len;
    free(z);
    return 0;
}
