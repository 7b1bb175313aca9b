/* SPDX-License-Identifier: MIT */
/*
 * The reader against crafted and damaged inputs (issue 10, items 7, 8, 9 and 11):
 *  - decompression bombs (frames, notes, program headers, manifest records) are refused with
 *    GPUCORE_E_LIMIT or read within the memory budget, checked on the budget's reported peak;
 *  - a FIFO or a device is refused at once, never waited on;
 *  - a file that shrinks while open gives GPUCORE_E_TRUNCATED, never SIGBUS;
 *  - a compressed core cut at any offset opens with the frames before the cut (marked
 *    truncated) once its headers are in, and its bytes are the original's;
 *  - the frame walk is linear and its memory bounded by the file.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include <gpucore/core.h>

#include "core_internal.h"
#include "core_zstd.h"
#include "hostile_reader.h"
#include "test_core_util.h"

#define MiB (1ull << 20)

static gpucore_status_t open_case(const char *name, unsigned scale,
                                  const struct gpucore_open_opts *o, gpucore_core_t **ret,
                                  gpucore_diag_t *d, uint8_t **ret_buf)
{
    uint8_t *buf = NULL;
    size_t n = 0;

    assert_int_equal(hr_build(name, scale, &buf, &n), 0);
    assert_true(n < 80 << 10); /* every case is a small file */
    memset(d, 0, sizeof(*d));
    *ret = NULL;
    *ret_buf = buf;
    return gpucore_core_open_memory(buf, n, o, ret, d);
}

/* 256 MiB frames (the old reader's limit) are refused before anything is decoded. */
static void test_frame_bomb(void **state)
{
    gpucore_core_t *c;
    gpucore_diag_t d;
    uint8_t *buf;

    (void)state;
    assert_int_equal(open_case("frame-bomb", 1, NULL, &c, &d, &buf), GPUCORE_E_LIMIT);
    assert_null(c);
    assert_true(d.flags & GPUCORE_DIAG_HAS_OFFSET);
    assert_non_null(strstr(d.message, "decompresses to 0x10000000 bytes, more than the limit "
                                      "0x4000000"));
    free(buf);
}

/*
 * Frames of the writer's largest size, each holding one note: opening decodes at most 4 x the
 * budget, and the cache keeps one frame at a time (64 MiB in bytes), so the peak stays near one
 * frame although 16 are read.
 */
static void test_frame_bomb_64(void **state)
{
    struct gpucore_core_mem m;
    struct gpucore_note note;
    gpucore_core_t *c;
    gpucore_diag_t d;
    uint8_t *buf;

    (void)state;
    /* By default: 16 x 64 MiB to decode for the notes is past 4 x the 128 MiB budget. */
    assert_int_equal(open_case("frame-bomb-64", 1, NULL, &c, &d, &buf), GPUCORE_E_LIMIT);
    assert_non_null(strstr(d.message, "past 0x20000000 (4 x its memory budget)"));
    free(buf);
    /* With a budget of 512 MiB the 1 GiB may be decoded, one frame at a time. */
    assert_int_equal(open_case("frame-bomb-64", 1,
                               GPUCORE_OPTS(gpucore_open_opts, .mem_budget = 512 * MiB), &c, &d,
                               &buf),
                     GPUCORE_OK);
    assert_int_equal(gpucore_core_note_count(c), 16);
    assert_int_equal(gpucore_core_note(c, 15, &note), GPUCORE_OK);
    assert_memory_equal(note.desc, "bomb", 4);
    assert_int_equal(gpucore_core_mem_get(c, &m), GPUCORE_OK);
    assert_int_equal(m.budget, 512 * MiB);
    if (m.peak > 64 * MiB + MiB)
        fail_msg("peak 0x%llx bytes for one 64 MiB frame at a time", (unsigned long long)m.peak);
    gpucore_core_close(c);
    free(buf);

    /* A budget below one frame: refused, naming what needed how much. */
    assert_int_equal(open_case("frame-bomb-64", 1,
                               GPUCORE_OPTS(gpucore_open_opts, .mem_budget = 32 * MiB), &c, &d,
                               &buf),
                     GPUCORE_E_LIMIT);
    free(buf);
    assert_non_null(strstr(d.message, "a decoded zstd frame needs 0x4000000 bytes"));
    assert_non_null(strstr(d.message, "0x2000000-byte budget"));
}

/* A 1 GiB PT_NOTE from a few KB: over the default budget, refused before the copy. */
static void test_note_1g(void **state)
{
    gpucore_core_t *c;
    gpucore_diag_t d;
    uint8_t *buf;

    (void)state;
    assert_int_equal(open_case("note-1g", 1, NULL, &c, &d, &buf), GPUCORE_E_LIMIT);
    free(buf);
    assert_true(d.flags & GPUCORE_DIAG_HAS_OFFSET);
    assert_int_equal(d.offset, 120);
    assert_non_null(strstr(d.message, "the PT_NOTE segments needs 0x40000000 bytes"));
    /* The same shape at 1/64 of the size fits and reads back. */
    assert_int_equal(open_case("note-1g", 64, NULL, &c, &d, &buf), GPUCORE_OK);
    assert_int_equal(gpucore_core_note_count(c), 1);
    gpucore_core_close(c);
    free(buf);
}

/* 2^20 program headers: read 32 at a time, only segments and notes are kept. */
static void test_phdrs_1m(void **state)
{
    struct gpucore_core_info info;
    struct gpucore_core_mem m;
    gpucore_core_t *c;
    gpucore_diag_t d;
    uint8_t *buf;

    (void)state;
    assert_int_equal(open_case("phdrs-1m", 1, NULL, &c, &d, &buf), GPUCORE_OK);
    assert_int_equal(gpucore_core_get_info(c, &info), GPUCORE_OK);
    assert_int_equal(info.phnum, 1u << 20);
    assert_int_equal(info.load_count, 0);
    assert_int_equal(gpucore_core_mem_get(c, &m), GPUCORE_OK);
    /* The 56 MiB table is one frame: decoded once into the cache, nothing else of size. */
    if (m.peak > 57 * MiB)
        fail_msg("peak 0x%llx bytes for a 56 MiB table", (unsigned long long)m.peak);
    gpucore_core_close(c);
    free(buf);
    /* With a budget below the table's frame: a clear refusal. */
    assert_int_equal(open_case("phdrs-1m", 1,
                               GPUCORE_OPTS(gpucore_open_opts, .mem_budget = 16 * MiB), &c, &d,
                               &buf),
                     GPUCORE_E_LIMIT);
    free(buf);
    assert_non_null(strstr(d.message, "budget"));
}

/* 4M manifest records (160 MiB of note) from a few KB: refused; a small one decodes. */
static void test_manifest_4m(void **state)
{
    gpucore_manifest_t *m;
    gpucore_core_t *c;
    gpucore_diag_t d;
    uint8_t *buf;

    (void)state;
    assert_int_equal(open_case("manifest-4m", 1, NULL, &c, &d, &buf), GPUCORE_E_LIMIT);
    free(buf);
    assert_non_null(strstr(d.message, "PT_NOTE"));
    assert_int_equal(open_case("manifest-4m", 1024, NULL, &c, &d, &buf), GPUCORE_OK);
    m = tc_manifest(c);
    assert_non_null(m);
    assert_int_equal(m->count, 4096);
    gpucore_manifest_free(m);
    gpucore_core_close(c);
    free(buf);
}

/* The budget API: callers charge what they build; frames then have less room. */
static void test_budget_api(void **state)
{
    struct gpucore_core_mem m0, m;
    gpucore_core_t *c;
    gpucore_diag_t d;
    uint8_t *buf, b[16];

    (void)state;
    assert_int_equal(open_case("frame-bomb-64", 16, NULL, &c, &d, &buf), GPUCORE_OK);
    assert_int_equal(gpucore_core_mem_get(c, &m0), GPUCORE_OK);
    assert_int_equal(gpucore_core_mem_reserve(c, m0.budget + 1, "the test", &d), GPUCORE_E_LIMIT);
    assert_non_null(strstr(d.message, "the test needs"));
    assert_int_equal(gpucore_core_mem_get(c, &m), GPUCORE_OK);
    assert_true(m.used <= m0.used); /* nothing charged (the cache may have been dropped) */
    /* Take all but 1 KiB: decoding a 4 MiB frame empties the cache, then fails. */
    m0 = m;
    assert_int_equal(gpucore_core_mem_reserve(c, m0.budget - m0.used - 1024, NULL, NULL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_core_read_file(c, 64 + 16 * 56 + 5, b, sizeof(b)), GPUCORE_E_LIMIT);
    assert_non_null(strstr(gpucore_core_errmsg(c), "budget"));
    gpucore_core_mem_release(c, m0.budget - m0.used - 1024);
    assert_int_equal(gpucore_core_read_file(c, 64 + 16 * 56 + 5, b, sizeof(b)), GPUCORE_OK);
    assert_int_equal(gpucore_core_mem_reserve(NULL, 1, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_core_mem_get(NULL, &m), GPUCORE_E_INVAL);
    gpucore_core_mem_release(NULL, 1);
    gpucore_core_close(c);
    free(buf);
    /* Unknown option bytes are still refused, the new field is read. */
    assert_int_equal(
            open_case("frame-bomb-64", 16,
                      GPUCORE_OPTS(gpucore_open_opts, .mem_budget = GPUCORE_MEM_BUDGET_UNLIMITED),
                      &c, &d, &buf),
            GPUCORE_OK);
    assert_int_equal(gpucore_core_mem_get(c, &m), GPUCORE_OK);
    assert_true(m.budget == GPUCORE_MEM_BUDGET_UNLIMITED);
    gpucore_core_close(c);
    free(buf);
}

/* ------------------------------------------------------------------------------------------ */
/* Not a regular file                                                                         */

static void test_fifo_and_device(void **state)
{
    char *dir = tc_mkdtemp("hostile-fifo"), *fifo = tc_path(dir, "core.fifo");
    gpucore_core_t *c = NULL;
    gpucore_diag_t d;

    (void)state;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20); /* a blocking open would hang: fail the test instead */
    assert_int_equal(gpucore_core_open(fifo, NULL, &c, &d), GPUCORE_E_IO);
    assert_non_null(strstr(d.message, "a FIFO"));
    assert_int_equal(gpucore_core_open("/dev/null", NULL, &c, &d), GPUCORE_E_IO);
    assert_non_null(strstr(d.message, "a character device"));
    assert_int_equal(gpucore_core_open(dir, NULL, &c, &d), GPUCORE_E_IO);
    assert_non_null(strstr(d.message, "a directory"));
    assert_int_equal(gpucore_core_open_fd(-1, NULL, &c, &d), GPUCORE_E_INVAL);
    alarm(0);
    assert_null(c);
    unlink(fifo);
    free(fifo);
    tc_rmdir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* A file that shrinks while open                                                             */

static void write_core(const char *path, int compress, uint8_t *data, size_t size)
{
    gpucore_writer_t *w;

    tc_fill(data, size, 7);
    assert_int_equal(
            gpucore_writer_open(path,
                                GPUCORE_OPTS(gpucore_writer_opts, .compress = (uint32_t)compress,
                                             .frame_size = 64u << 10,
                                             .flags = GPUCORE_WRITE_OVERWRITE),
                                &w, NULL),
            GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x10000000, data, size, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
}

static void test_shrink(void **state)
{
    char *dir = tc_mkdtemp("hostile-shrink"), *path = tc_path(dir, "x.core"),
         *out = tc_path(dir, "out.core");
    size_t size = 1 << 20;
    uint8_t *data = malloc(size), *back = malloc(size);

    (void)state;
    assert_non_null(data);
    assert_non_null(back);
    for (int compress = 0; compress < 2; compress++) {
        gpucore_core_t *c = NULL;
        gpucore_diag_t d;
        uint64_t done = 0;

        write_core(path, compress, data, size);
        assert_int_equal(gpucore_core_open(path, NULL, &c, &d), GPUCORE_OK);
        assert_int_equal(gpucore_core_read(c, 0x10000000, back, size, NULL), GPUCORE_OK);
        assert_memory_equal(back, data, size);
        /* Cut the file under the open core: reads fail cleanly, no SIGBUS. */
        assert_int_equal(truncate(path, 8192), 0);
        assert_int_equal(gpucore_core_read(c, 0x10000000, back, size, &done), GPUCORE_E_TRUNCATED);
        assert_true(done < size);
        assert_non_null(strstr(gpucore_core_errmsg(c), "it was cut while being read"));
        memset(&d, 0, sizeof(d));
        assert_int_equal(gpucore_core_transcode(c, out, NULL, &d), GPUCORE_E_TRUNCATED);
        assert_non_null(strstr(d.message, "cut while being read"));
        assert_int_equal(access(out, F_OK), -1); /* nothing published */
        gpucore_core_close(c);
    }
    free(data);
    free(back);
    unlink(path);
    free(path);
    free(out);
    tc_rmdir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* Compressed cores cut short                                                                 */

#define CUT_LOADS     3
#define CUT_LOAD_SIZE (100u << 10)

/*
 * A plain core with its headers first (ELF header, program headers, notes, then data), as a
 * core cut short needs them, compressed in 64 KiB frames by gpucore_core_transcode.
 */
static uint8_t *headers_first(const char *dir, size_t *ret_zsize, uint8_t **ret_plain,
                              size_t *ret_plain_size)
{
    struct tc_image im = { 0 };
    uint64_t phoff, notes, notes_end, data[CUT_LOADS];
    uint8_t *fill = malloc(CUT_LOAD_SIZE), *z;
    char *path = tc_path(dir, "cut.core.zst");
    gpucore_core_t *c;

    assert_non_null(fill);
    tc_image_put(&im, NULL, 64);
    phoff = tc_image_put(&im, NULL, (1 + CUT_LOADS) * 56);
    notes = tc_image_note(&im, "CORE", 1, "12345678", 8);
    tc_image_note(&im, "GPUTEST", 7, "abc", 3);
    notes_end = im.len;
    for (int i = 0; i < CUT_LOADS; i++) {
        uint64_t at = (im.len + 4095) & ~4095ull;

        tc_image_put(&im, NULL, at - im.len);
        tc_fill(fill, CUT_LOAD_SIZE, (uint64_t)i + 1);
        data[i] = tc_image_put(&im, fill, CUT_LOAD_SIZE);
    }
    tc_image_ehdr(&im, EM_X86_64, phoff, 1 + CUT_LOADS);
    tc_image_phdr(
            &im, phoff,
            &(struct tc_phdr){
                    .type = PT_NOTE, .offset = notes, .filesz = notes_end - notes, .align = 4 });
    for (int i = 0; i < CUT_LOADS; i++)
        tc_image_phdr(&im, phoff + 56 * (1 + (uint64_t)i),
                      &(struct tc_phdr){ .type = PT_LOAD,
                                         .flags = PF_R,
                                         .offset = data[i],
                                         .vaddr = 0x10000000 * (uint64_t)(i + 1),
                                         .filesz = CUT_LOAD_SIZE,
                                         .memsz = CUT_LOAD_SIZE,
                                         .align = 4096 });
    assert_int_equal(gpucore_core_open_memory(im.buf, im.len, NULL, &c, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_core_transcode(c, path,
                                            GPUCORE_OPTS(gpucore_writer_opts, .compress = 1,
                                                         .frame_size = 64u << 10,
                                                         .flags = GPUCORE_WRITE_OVERWRITE),
                                            NULL),
                     GPUCORE_OK);
    gpucore_core_close(c);
    z = tc_read_file(path, ret_zsize);
    assert_non_null(z);
    unlink(path);
    free(path);
    free(fill);
    *ret_plain = im.buf;
    *ret_plain_size = im.len;
    return z;
}

static void check_cut(const uint8_t *z, size_t cut, size_t zsize, const uint8_t *plain,
                      const struct gc_core_frame *frames, uint32_t nframes)
{
    struct gpucore_core_info info;
    uint64_t want_logical = 0;
    gpucore_core_t *c = NULL;
    gpucore_diag_t d;
    gpucore_status_t st;
    uint8_t *back;

    /*
     * The frames whose zstd frame lies entirely before the cut are what a reader can have. A
     * seek-table entry may also cover skippable padding after its zstd frame (the writer pads
     * the head's frame): a cut inside that padding still leaves the frame whole.
     */
    for (uint32_t i = 0; i < nframes; i++) {
        size_t zlen = ZSTD_findFrameCompressedSize(z + frames[i].phys, (size_t)frames[i].csize);

        assert_false(ZSTD_isError(zlen));
        if (frames[i].phys + zlen > cut)
            break;
        want_logical = frames[i].logical + frames[i].dsize;
    }

    memset(&d, 0, sizeof(d));
    st = gpucore_core_open_memory(
            z, cut, GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED), &c, &d);
    if (nframes >= 2 && cut >= frames[1].phys + frames[1].csize) {
        /* Headers and notes are in: the core opens, with everything before the cut. */
        if (st != GPUCORE_OK)
            fail_msg("cut at 0x%zx of 0x%zx: %s (%s)", cut, zsize, gpucore_status_name(st),
                     d.message);
    } else {
        assert_true(st == GPUCORE_OK || st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_CORRUPT);
    }
    if (st == GPUCORE_OK) {
        assert_int_equal(gpucore_core_get_info(c, &info), GPUCORE_OK);
        assert_int_equal(info.logical_size, want_logical);
        /*
         * Truncated unless the cut falls exactly at the end of the last frame: then only the
         * seek table is gone, the image is whole, and nothing says it was cut.
         */
        assert_int_equal(!!(info.flags & GPUCORE_INFO_FILE_TRUNCATED),
                         cut < zsize &&
                                 cut != frames[nframes - 1].phys + frames[nframes - 1].csize);
        back = malloc(info.logical_size);
        assert_non_null(back);
        assert_int_equal(gpucore_core_read_file(c, 0, back, info.logical_size), GPUCORE_OK);
        assert_memory_equal(back, plain, info.logical_size);
        free(back);
        assert_int_equal(gpucore_core_note_count(c), 2);
        gpucore_core_close(c);
    }
    /* Without ALLOW_TRUNCATED a cut core is refused (unless only the seek table is gone). */
    if (cut < zsize && cut != frames[nframes - 1].phys + frames[nframes - 1].csize) {
        st = gpucore_core_open_memory(z, cut, NULL, &c, NULL);
        assert_true(st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_CORRUPT);
    }
}

static void test_cut_compressed(void **state)
{
    char *dir = tc_mkdtemp("hostile-cut");
    struct gc_core_mem mem = { .limit = UINT64_MAX };
    struct gc_core_frame *frames;
    uint8_t *plain, *z;
    size_t zsize, plain_size;
    uint64_t logical;
    uint32_t n;

    (void)state;
    z = headers_first(dir, &zsize, &plain, &plain_size);
    assert_int_equal(
            gc_core_seektable_parse(&(struct gc_core_src){ .mem = z, .fd = -1, .size = zsize },
                                    GPUCORE_MAX_FRAME_CONTENT, &mem, &frames, &n, &logical, NULL),
            GPUCORE_OK);
    assert_int_equal(logical, plain_size);
    assert_true(n >= 6); /* header frame + 64 KiB frames of ~300 KiB */
    /* Every frame boundary and its neighbours, and a stride through everything else. */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t b = frames[i].phys + frames[i].csize;

        for (uint64_t at = b - 1; at <= b + 1 && at <= zsize; at++)
            check_cut(z, (size_t)at, zsize, plain, frames, n);
    }
    for (size_t cut = 1; cut <= zsize; cut += 251)
        check_cut(z, cut, zsize, plain, frames, n);
    for (size_t cut = zsize - 30; cut <= zsize; cut++) /* inside the seek table */
        check_cut(z, cut, zsize, plain, frames, n);
    gc_core_mem_free(&mem, frames, (uint64_t)n * sizeof(*frames));
    free(z);
    free(plain);
    tc_rmdir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* The frame walk: linear, memory bounded by the file                                         */

/* @p n frames of one byte each (14 bytes: header 13 + RLE block... see below), no seek table. */
static uint8_t *tiny_frames(uint32_t n, size_t *ret_size)
{
    /* magic, FHD 0x20 (single segment, 1-byte FCS), FCS 1, RLE last block of 1 byte 'x'. */
    static const uint8_t frame[] = { 0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x01, 0x0B, 0x00, 0x00, 'x' };
    uint8_t *p = malloc((size_t)n * sizeof(frame));

    assert_non_null(p);
    for (uint32_t i = 0; i < n; i++)
        memcpy(p + (size_t)i * sizeof(frame), frame, sizeof(frame));
    *ret_size = (size_t)n * sizeof(frame);
    return p;
}

static void test_walk_many_frames(void **state)
{
    struct gc_core_frame *frames = NULL;
    uint64_t logical = 0;
    uint32_t n = 0;
    int clipped = 0;
    size_t size;
    uint8_t *p;

    (void)state;
    /* 300000 frames: indexed in one pass, the index within 4x the file's bytes. */
    p = tiny_frames(300000, &size);
    {
        struct gc_core_mem mem = { .limit = 4 * (uint64_t)size };
        struct gc_core_src src = { .mem = p, .fd = -1, .size = size };

        assert_int_equal(
                gc_core_frames_walk(&src, MiB, 0, &mem, &frames, &n, &logical, &clipped, NULL),
                GPUCORE_OK);
        assert_int_equal(n, 300000);
        assert_int_equal(logical, 300000);
        assert_true(mem.peak <= mem.limit);
        gc_core_mem_free(&mem, frames, (uint64_t)n * sizeof(*frames));
        assert_int_equal(mem.used, 0);
        /* Cut in the middle of the last frame: dropped, the rest kept. */
        src.size = size - 3;
        assert_int_equal(
                gc_core_frames_walk(&src, MiB, 1, &mem, &frames, &n, &logical, &clipped, NULL),
                GPUCORE_OK);
        assert_int_equal(n, 299999);
        assert_true(clipped);
        gc_core_mem_free(&mem, frames, (uint64_t)n * sizeof(*frames));
    }
    free(p);
    /* More than 2^20 frames: refused, whatever the budget. */
    p = tiny_frames((1u << 20) + 1, &size);
    {
        struct gc_core_mem mem = { .limit = UINT64_MAX };
        struct gc_core_src src = { .mem = p, .fd = -1, .size = size };
        gpucore_diag_t d;

        assert_int_equal(
                gc_core_frames_walk(&src, MiB, 1, &mem, &frames, &n, &logical, &clipped, &d),
                GPUCORE_E_LIMIT);
        assert_non_null(strstr(d.message, "more than 1048576 zstd frames"));
        assert_int_equal(mem.used, 0);
    }
    /* Through the public API: a budget too small for the index is a clear refusal. */
    {
        gpucore_core_t *c = NULL;
        gpucore_diag_t d;

        assert_int_equal(
                gpucore_core_open_memory(
                        p, 300000 * 10, GPUCORE_OPTS(gpucore_open_opts, .mem_budget = MiB), &c, &d),
                GPUCORE_E_LIMIT);
        assert_non_null(strstr(d.message, "the zstd frame index needs"));
    }
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_bomb),      cmocka_unit_test(test_frame_bomb_64),
        cmocka_unit_test(test_note_1g),         cmocka_unit_test(test_phdrs_1m),
        cmocka_unit_test(test_manifest_4m),     cmocka_unit_test(test_budget_api),
        cmocka_unit_test(test_fifo_and_device), cmocka_unit_test(test_shrink),
        cmocka_unit_test(test_cut_compressed),  cmocka_unit_test(test_walk_many_frames),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
