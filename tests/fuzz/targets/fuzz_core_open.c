/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the core reader (G-FUZZ-1): the input is a whole core file, plain or zstd.
 * When it opens, walk every note and segment and read around each segment's edges, checking
 * the invariants the API promises; a broken one aborts.
 *
 * Mutated bytes rarely form a valid zstd frame, so a plain input is also opened a second way:
 * compressed into one frame with a seek table. Both views of the same ELF image must agree
 * exactly (statuses, notes, segments, bytes read), which puts every ELF the fuzzer makes
 * through the compressed code paths too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <gpucore/core.h>

#include "fuzz_common.h"

/* Reads per input are capped so one input stays fast whatever its segment count. */
#define MAX_SEGMENT_PROBES 256
/* Inputs up to this size also get the compressed view. */
#define MAX_DIFFERENTIAL (256u << 10)

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int read_status_ok(gpucore_status_t st)
{
    return st == GPUCORE_OK || st == GPUCORE_E_UNAVAILABLE || st == GPUCORE_E_CORRUPT ||
           st == GPUCORE_E_NOMEM;
}

static void probe(gpucore_core_t *core, uint64_t addr, uint64_t size, uint8_t *buf)
{
    uint64_t done = UINT64_MAX;
    gpucore_status_t st = gpucore_core_read(core, addr, buf, size, &done);

    CHECK(read_status_ok(st));
    CHECK(done <= size);
    CHECK(st != GPUCORE_OK || done == size);
    CHECK(st == GPUCORE_OK || gpucore_core_errmsg(core)[0] != '\0');
}

static void walk(gpucore_core_t *core)
{
    struct gpucore_core_info info;
    uint32_t nnotes = gpucore_core_note_count(core), nsegs = gpucore_core_segment_count(core);
    uint64_t prev_end = 0, sum = 0;
    uint8_t buf[64], hdr[64];

    CHECK(gpucore_core_get_info(core, &info) == GPUCORE_OK);
    CHECK(info.note_count == nnotes && info.load_count == nsegs);
    CHECK(info.phnum >= nsegs);
    CHECK(info.logical_size >= 64);
    CHECK((info.flags & GPUCORE_INFO_COMPRESSED) || info.logical_size == info.file_size);
    for (uint32_t i = 0; i < gpucore_core_quirk_count(core); i++)
        CHECK(gpucore_core_quirk(core, i) != NULL);
    CHECK(gpucore_core_quirk(core, gpucore_core_quirk_count(core)) == NULL);

    for (uint32_t i = 0; i < nnotes; i++) {
        struct gpucore_note n;
        uint32_t idx = 0;

        CHECK(gpucore_core_note(core, i, &n) == GPUCORE_OK);
        CHECK(n.owner != NULL && n.offset < info.logical_size);
        CHECK(n.desc_size <= info.logical_size - n.offset);
        CHECK(strlen(n.owner) < info.logical_size);
        for (uint64_t k = 0; k < n.desc_size; k++) /* every byte must be addressable */
            sum += n.desc[k];
        CHECK(gpucore_core_find_note(core, n.owner, n.type, &idx, NULL) == GPUCORE_OK);
        CHECK(idx <= i);
    }
    CHECK(gpucore_core_note(core, nnotes, &(struct gpucore_note){ 0 }) == GPUCORE_E_INVAL);

    for (uint32_t i = 0; i < nsegs; i++) {
        struct gpucore_segment s;
        uint64_t end;

        CHECK(gpucore_core_segment(core, i, &s) == GPUCORE_OK);
        CHECK(s.memsz > 0 && s.filesz <= s.memsz);
        CHECK(s.memsz <= UINT64_MAX - s.vaddr);
        CHECK(!s.filesz ||
              (s.offset <= info.logical_size && s.filesz <= info.logical_size - s.offset));
        CHECK(i == 0 || s.vaddr >= prev_end); /* sorted, no overlap */
        end = s.vaddr + s.memsz;
        prev_end = end;
        if (i >= MAX_SEGMENT_PROBES)
            continue;
        probe(core, s.vaddr, 1, buf);
        probe(core, end - 1, 1, buf);
        probe(core, end - 1, 2, buf); /* across the end: the next segment or a gap */
        probe(core, s.vaddr, s.memsz < sizeof(buf) ? s.memsz : sizeof(buf), buf);
    }
    CHECK(gpucore_core_read_file(core, 0, hdr, sizeof(hdr)) != GPUCORE_E_INVAL);
    CHECK(gpucore_core_read_file(core, info.logical_size, hdr, 1) == GPUCORE_E_INVAL);
    (void)sum;
}

static gpucore_status_t open_and_walk(const uint8_t *data, size_t size, uint32_t flags,
                                      gpucore_core_t **ret)
{
    /*
     * Small frames, cache and budget: a decompression bomb must not make one input slow. The
     * budget makes E_LIMIT reachable from small inputs, and no open may charge past it.
     */
    struct gpucore_open_opts o = {
        .sz = sizeof(o),
        .flags = flags,
        .frame_cache = 2,
        .max_frame_size = 1 << 20,
        .mem_budget = 16 << 20,
    };
    struct gpucore_core_mem m;
    gpucore_diag_t d;
    gpucore_status_t st;

    memset(&d, 0, sizeof(d));
    *ret = NULL;
    st = gpucore_core_open_memory(data, size, &o, ret, &d);
    if (st == GPUCORE_OK) {
        walk(*ret);
        CHECK(gpucore_core_mem_get(*ret, &m) == GPUCORE_OK);
        CHECK(m.budget == o.mem_budget && m.peak <= m.budget && m.used <= m.peak);
        return st;
    }
    CHECK(*ret == NULL);
    CHECK(d.status == st && st < 0);
    CHECK(memchr(d.message, '\0', sizeof(d.message)) != NULL && d.message[0]);
    CHECK(st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_CORRUPT || st == GPUCORE_E_LIMIT ||
          st == GPUCORE_E_NOTSUP || st == GPUCORE_E_NOMEM);
    return st;
}

/* The plain core @p a and its compressed twin @p b say exactly the same things. */
static void compare(gpucore_core_t *a, gpucore_core_t *b)
{
    struct gpucore_core_info ia, ib;
    uint8_t ba[64], bb[64];

    gpucore_core_get_info(a, &ia);
    gpucore_core_get_info(b, &ib);
    CHECK(ia.phnum == ib.phnum && ia.load_count == ib.load_count &&
          ia.note_count == ib.note_count && ia.logical_size == ib.logical_size &&
          ia.load_bytes == ib.load_bytes && ia.e_machine == ib.e_machine);
    CHECK((ia.flags & ~(uint32_t)GPUCORE_INFO_COMPRESSED) ==
          (ib.flags & ~(uint32_t)GPUCORE_INFO_COMPRESSED));
    CHECK(gpucore_core_quirk_count(a) == gpucore_core_quirk_count(b));
    for (uint32_t i = 0; i < ia.note_count; i++) {
        struct gpucore_note na, nb;

        gpucore_core_note(a, i, &na);
        gpucore_core_note(b, i, &nb);
        CHECK(!strcmp(na.owner, nb.owner) && na.type == nb.type && na.desc_size == nb.desc_size &&
              na.offset == nb.offset);
        CHECK(!na.desc_size || !memcmp(na.desc, nb.desc, (size_t)na.desc_size));
    }
    for (uint32_t i = 0; i < ia.load_count && i < MAX_SEGMENT_PROBES; i++) {
        struct gpucore_segment sa, sb;
        uint64_t da = 0, db = 0, n;

        gpucore_core_segment(a, i, &sa);
        gpucore_core_segment(b, i, &sb);
        CHECK(!memcmp(&sa, &sb, sizeof(sa)));
        n = sa.memsz < sizeof(ba) ? sa.memsz : sizeof(ba);
        CHECK(gpucore_core_read(a, sa.vaddr, ba, n, &da) ==
              gpucore_core_read(b, sb.vaddr, bb, n, &db));
        CHECK(da == db && !memcmp(ba, bb, (size_t)da));
    }
}

/* @p data as one zstd frame plus a one-entry seek table; NULL if it cannot be built. */
static uint8_t *compress_view(const uint8_t *data, size_t size, size_t *ret_size)
{
    size_t cap = ZSTD_compressBound(size) + 17 + 8, c;
    uint8_t *z = malloc(cap);

    if (!z)
        return NULL;
    c = ZSTD_compress(z, cap, data, size, 1);
    if (ZSTD_isError(c) || c > UINT32_MAX) {
        free(z);
        return NULL;
    }
    put32(z + c, 0x184D2A5Eu);
    put32(z + c + 4, 8 + 9);
    put32(z + c + 8, (uint32_t)c);
    put32(z + c + 12, (uint32_t)size);
    put32(z + c + 16, 1);
    z[c + 20] = 0;
    put32(z + c + 21, 0x8F92EAB1u);
    *ret_size = c + 25;
    return z;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpucore_core_t *plain = NULL, *twin = NULL;
    uint32_t flags = 0;
    gpucore_status_t st;

    for (int pass = 0; pass < 2; pass++) {
        st = open_and_walk(data, size, flags, &plain);
        /* The twin: only for ELF-looking inputs (a zstd input would just nest). */
        if (size >= 4 && size <= MAX_DIFFERENTIAL && data[0] == 0x7f) {
            size_t zsize = 0;
            uint8_t *z = compress_view(data, size, &zsize);

            if (z) {
                CHECK(open_and_walk(z, zsize, flags, &twin) == st);
                if (st == GPUCORE_OK)
                    compare(plain, twin);
                gpucore_core_close(twin);
                free(z);
            }
        }
        gpucore_core_close(plain);
        /* Second pass: the same bytes with truncation tolerated. */
        if (st != GPUCORE_E_TRUNCATED)
            break;
        flags = GPUCORE_OPEN_ALLOW_TRUNCATED;
    }
    return 0;
}
