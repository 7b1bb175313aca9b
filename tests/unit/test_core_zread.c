/* SPDX-License-Identifier: MIT */
/*
 * Random access to a compressed image (libcore/core_frames.c), counted in frames decoded:
 *  - each frame a read pattern needs is decoded once: sequential reads of 1.5 frames from a
 *    misaligned offset (analyze's save-area reads), one and several threads, and a frame read
 *    often stays cached across such a scan;
 *  - a read needing several uncached frames decodes them in one batch on several threads, in
 *    batches of at most 4 x GC_CORE_DECODE_THREADS frames, with the same bytes as one thread;
 *  - batches with a one-frame cache, under a budget too small for them (they are skipped),
 *    across a corrupt frame (the first bad frame is named, nothing is left charged or cached),
 *    and near the decode limit of an open (the same error as one thread).
 * No timing: what is asserted is what was decoded and what was read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include <gpucore/core.h>

#include "core_internal.h"
#include "core_zstd.h"
#include "gc_util.h"

#define KiB        (1ull << 10)
#define FRAME      (64 * KiB)
#define NFRAMES    40u
#define IMAGE_SIZE (NFRAMES * FRAME)

/* Byte @p off of the image: varies within and across frames, compresses a little. */
static uint8_t image_byte(uint64_t off)
{
    return (uint8_t)((off >> 3) * 2654435761u >> 24);
}

/* A seekable zstd image of NFRAMES frames of FRAME bytes, in *ret_size bytes (free()). */
static uint8_t *make_image(size_t *ret_size, struct gc_core_frame *frames)
{
    struct gc_buf b;
    uint8_t *plain = malloc(FRAME);
    size_t cap = ZSTD_compressBound(FRAME);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();

    assert_non_null(plain);
    assert_non_null(cctx);
    /* As the writer writes them: with a checksum, so that damage is found. */
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)));
    gc_buf_init(&b);
    for (uint32_t i = 0; i < NFRAMES; i++) {
        uint8_t *dst;
        size_t r;

        for (uint64_t k = 0; k < FRAME; k++)
            plain[k] = image_byte(i * FRAME + k);
        frames[i].phys = b.len;
        dst = gc_buf_grow(&b, cap);
        assert_non_null(dst);
        r = ZSTD_compress2(cctx, dst, cap, plain, FRAME);
        assert_false(ZSTD_isError(r));
        b.len = frames[i].phys + r;
        frames[i].csize = r;
        frames[i].logical = i * FRAME;
        frames[i].dsize = FRAME;
    }
    gc_core_seektable_encode(&b, frames, NFRAMES);
    ZSTD_freeCCtx(cctx);
    free(plain);
    *ret_size = b.len;
    return b.data;
}

struct zcase {
    uint8_t *file;
    size_t size;
    struct gc_core_frame frames[NFRAMES];
    struct gc_core_src src;
    struct gc_core_mem mem;
    struct gc_core_zimage z;
};

static void zcase_open(struct zcase *c, uint32_t cache, uint32_t threads, uint64_t budget)
{
    int clipped = 1;

    memset(&c->z, 0, sizeof(c->z));
    c->mem = (struct gc_core_mem){ .limit = budget };
    c->src = (struct gc_core_src){ .mem = c->file, .fd = -1, .size = c->size };
    assert_int_equal(gc_core_zimage_open(&c->z, &c->src, &c->mem, GPUCORE_MAX_FRAME_CONTENT,
                                         cache, threads, 0, &clipped, NULL),
                     GPUCORE_OK);
    assert_int_equal(clipped, 0);
    assert_int_equal(c->z.nframes, NFRAMES);
    assert_int_equal(c->z.logical_size, IMAGE_SIZE);
}

/* Close, and check that everything charged was given back. */
static void zcase_close(struct zcase *c)
{
    gc_core_zimage_done(&c->z);
    assert_int_equal(c->mem.used, 0);
}

static int setup(void **state)
{
    struct zcase *c = calloc(1, sizeof(*c));

    assert_non_null(c);
    c->file = make_image(&c->size, c->frames);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct zcase *c = *state;

    free(c->file);
    free(c);
    return 0;
}

/* Read [off, off + n) and compare with the image's bytes. */
static void read_check(struct zcase *c, uint64_t off, uint64_t n)
{
    uint8_t *buf = malloc(n);
    gpucore_diag_t d;

    assert_non_null(buf);
    memset(&d, 0, sizeof(d));
    if (gc_core_zimage_read(&c->z, off, buf, n, &d) != GPUCORE_OK)
        fail_msg("read [0x%llx, +0x%llx): %s", (unsigned long long)off, (unsigned long long)n,
                 d.message);
    for (uint64_t k = 0; k < n; k++)
        if (buf[k] != image_byte(off + k))
            fail_msg("byte 0x%llx of the image differs", (unsigned long long)(off + k));
    free(buf);
}

/*
 * Reads of 1.5 frames from a quarter frame on, to the end: every read ends inside a frame the
 * next read starts in, as analyze reads a save area 1 MiB at a time. Returns the frames touched
 * (all of them); *ret_multi (optional) counts the reads that needed two or more frames not
 * read before.
 */
static uint32_t sequential_reads(struct zcase *c, uint32_t *ret_multi)
{
    uint64_t off = FRAME / 4, chunk = FRAME + FRAME / 2;
    uint32_t multi = 0, seen = 0; /* frames [0, seen) were read */

    while (off < IMAGE_SIZE) {
        uint64_t n = IMAGE_SIZE - off < chunk ? IMAGE_SIZE - off : chunk;
        uint32_t last = (uint32_t)((off + n - 1) / FRAME);

        read_check(c, off, n);
        multi += last + 1 - seen >= 2;
        seen = last + 1;
        off += n;
    }
    if (ret_multi)
        *ret_multi = multi;
    return NFRAMES;
}

static void test_sequential_once_one_thread(void **state)
{
    struct zcase *c = *state;

    zcase_open(c, 8, 1, UINT64_MAX);
    assert_int_equal(c->z.stats.decodes, sequential_reads(c, NULL));
    assert_int_equal(c->z.stats.batches, 0);
    zcase_close(c);
}

static void test_sequential_once_threads(void **state)
{
    struct zcase *c = *state;
    uint32_t multi;

    zcase_open(c, 8, GC_CORE_DECODE_THREADS, UINT64_MAX);
    assert_int_equal(c->z.threads, GC_CORE_DECODE_THREADS);
    assert_int_equal(c->z.stats.decodes, sequential_reads(c, &multi));
    /* Every read that needs two new frames (a whole one and the next, in part) batches them. */
    assert_int_equal(multi, 14); /* the first read, then every other one */
    assert_int_equal(c->z.stats.batches, multi);
    assert_int_equal(c->z.stats.batch_frames, 2 * multi);
    zcase_close(c);
}

/*
 * A frame read again and again (the core's headers, a queue's descriptor) stays cached across a
 * scan of many more frames than the cache has slots, with one thread or several; under plain
 * LRU the scan evicted it and it was decoded again.
 */
static void test_kept_across_scan(void **state)
{
    struct zcase *c = *state;

    for (uint32_t t = 0; t < 2; t++) {
        zcase_open(c, 8, t ? GC_CORE_DECODE_THREADS : 1, UINT64_MAX);
        for (int k = 0; k < 3; k++)
            read_check(c, 100 + 8 * k, 8);
        assert_int_equal(c->z.stats.decodes, 1);
        sequential_reads(c, NULL); /* decodes the 39 other frames, reads frame 0 once more */
        read_check(c, 200, 16);
        assert_int_equal(c->z.stats.decodes, NFRAMES);
        zcase_close(c);
    }
}

/* One read of the whole image: batches of at most BATCH_FRAMES, each frame decoded once. */
static void test_whole_image_batches(void **state)
{
    struct zcase *c = *state;
    uint32_t per_batch = 4 * GC_CORE_DECODE_THREADS;

    zcase_open(c, 8, GC_CORE_DECODE_THREADS, UINT64_MAX);
    read_check(c, 0, IMAGE_SIZE);
    assert_int_equal(c->z.stats.decodes, NFRAMES);
    assert_int_equal(c->z.stats.batch_frames, NFRAMES);
    assert_int_equal(c->z.stats.batches, (NFRAMES + per_batch - 1) / per_batch);
    /* Whole frames go to the caller's buffer, never the cache. */
    assert_int_equal(c->z.cache_bytes, 0);
    /* Read again from the middle, partly: the frames are decoded again (they were not kept). */
    read_check(c, 3 * FRAME + 5, 2 * FRAME);
    assert_int_equal(c->z.stats.decodes, NFRAMES + 3);
    zcase_close(c);
}

/* With one cache slot a batch keeps at most one frame for the cache: the bytes are still right. */
static void test_one_slot(void **state)
{
    struct zcase *c = *state;

    zcase_open(c, 1, GC_CORE_DECODE_THREADS, UINT64_MAX);
    read_check(c, FRAME / 2, 3 * FRAME); /* frames 0 (part), 1, 2, 3 (part) */
    assert_int_equal(c->z.stats.decodes, 4);
    assert_true(c->z.cache_bytes <= FRAME);
    read_check(c, 7 * FRAME + 1, 2 * FRAME);
    sequential_reads(c, NULL);
    zcase_close(c);
}

/*
 * A budget with room for the index, one decoded frame and one compressed one: what one thread
 * needs, less than any batch (two inputs at least): no batch, the same bytes, within budget.
 */
static void test_budget_too_small_for_a_batch(void **state)
{
    struct zcase *c = *state;
    uint64_t index = NFRAMES * sizeof(struct gc_core_frame), csize = 0;

    for (uint32_t i = 0; i < NFRAMES; i++)
        csize = c->frames[i].csize > csize ? c->frames[i].csize : csize;
    zcase_open(c, 8, GC_CORE_DECODE_THREADS, index + FRAME + csize + KiB);
    read_check(c, FRAME / 2, 3 * FRAME);
    sequential_reads(c, NULL);
    assert_int_equal(c->z.stats.batches, 0);
    assert_true(c->mem.peak <= c->mem.limit);
    zcase_close(c);
}

/* Damage the payload of frame @p i (its checksum then fails, or its blocks do). */
static void corrupt_frame(struct zcase *c, uint32_t i)
{
    uint8_t *p = c->file + c->frames[i].phys;

    for (uint64_t k = c->frames[i].csize / 2; k < c->frames[i].csize / 2 + 64; k++)
        p[k] ^= 0x5a;
}

static void check_corrupt(struct zcase *c, uint32_t threads)
{
    uint8_t *buf = malloc(4 * FRAME);
    char want[64];
    gpucore_diag_t d;

    assert_non_null(buf);
    zcase_open(c, 8, threads, UINT64_MAX);
    memset(&d, 0, sizeof(d));
    /* Frames 4 (part) to 8 (part); 6 and 7 are bad: 6 is named. */
    assert_int_equal(gc_core_zimage_read(&c->z, 4 * FRAME + 100, buf, 4 * FRAME, &d),
                     GPUCORE_E_CORRUPT);
    snprintf(want, sizeof(want), "zstd frame 6 at offset 0x%llx",
             (unsigned long long)c->frames[6].phys);
    if (!strstr(d.message, want))
        fail_msg("\"%s\" does not name \"%s\"", d.message, want);
    /* Good frames around it still read, and the bad one fails again (it was not cached). */
    read_check(c, 3 * FRAME, 3 * FRAME);
    assert_int_equal(gc_core_zimage_read(&c->z, 6 * FRAME + 10, buf, 10, NULL),
                     GPUCORE_E_CORRUPT);
    free(buf);
    zcase_close(c);
}

static void test_corrupt_frame(void **state)
{
    struct zcase *c = *state;
    uint8_t *saved = malloc(c->size);

    assert_non_null(saved);
    memcpy(saved, c->file, c->size);
    corrupt_frame(c, 6);
    corrupt_frame(c, 7);
    check_corrupt(c, 1);
    check_corrupt(c, GC_CORE_DECODE_THREADS);
    memcpy(c->file, saved, c->size);
    free(saved);
}

/* Near the decode limit of an open, several threads stop at the same frame as one. */
static void test_decode_limit(void **state)
{
    struct zcase *c = *state;
    char msg[2][GPUCORE_DIAG_MESSAGE_SIZE];
    uint8_t *buf = malloc(6 * FRAME);

    assert_non_null(buf);
    for (uint32_t t = 0; t < 2; t++) {
        gpucore_diag_t d;

        zcase_open(c, 8, t ? GC_CORE_DECODE_THREADS : 1, UINT64_MAX);
        c->z.decode_limit = 4 * FRAME + FRAME / 2;
        memset(&d, 0, sizeof(d));
        assert_int_equal(gc_core_zimage_read(&c->z, 100, buf, 6 * FRAME, &d), GPUCORE_E_LIMIT);
        memcpy(msg[t], d.message, sizeof(msg[t]));
        assert_int_equal(c->z.stats.batches, 0);
        zcase_close(c);
    }
    assert_string_equal(msg[0], msg[1]);
    assert_non_null(strstr(msg[0], "zstd frame 4 "));
    free(buf);
}

/* The thread count asked for is capped; 0 is what the machine has, capped. */
static void test_threads_bounded(void **state)
{
    struct zcase *c = *state;
    uint32_t n = gc_core_decode_threads();

    assert_true(n >= 1 && n <= GC_CORE_DECODE_THREADS);
    zcase_open(c, 8, 1000, UINT64_MAX);
    assert_int_equal(c->z.threads, GC_CORE_DECODE_THREADS);
    zcase_close(c);
    zcase_open(c, 8, 0, UINT64_MAX);
    assert_int_equal(c->z.threads, n);
    zcase_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequential_once_one_thread),
        cmocka_unit_test(test_sequential_once_threads),
        cmocka_unit_test(test_kept_across_scan),
        cmocka_unit_test(test_whole_image_batches),
        cmocka_unit_test(test_one_slot),
        cmocka_unit_test(test_budget_too_small_for_a_batch),
        cmocka_unit_test(test_corrupt_frame),
        cmocka_unit_test(test_decode_limit),
        cmocka_unit_test(test_threads_bounded),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
