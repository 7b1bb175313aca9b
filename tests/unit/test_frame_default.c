/* SPDX-License-Identifier: MIT */
/*
 * The writer's default zstd frame is 512 KiB (libcore/core_internal.h says why, from
 * `gpucore-bench-core --frames`, bench/README.md "Frame size"): a compressed core written with
 * frame_size 0 has the frames of one written with 512 KiB, more than with 1 MiB, and every
 * data frame but the last holds 512 KiB. Counted from the core (gpucore_core_get_info), and the
 * bytes read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>

#define DATA_SIZE (3u << 20) /* 3 MiB: 6 frames of 512 KiB, 3 of 1 MiB */
#define VADDR     0x7f0000000000ull

static uint8_t *data;

/* Frames of a compressed core of DATA_SIZE bytes written with @p frame_size (0: the default);
   checks the bytes read back. */
static uint32_t frames_expecting(uint32_t frame_size, uint64_t expected)
{
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char path[4096];
    struct gpucore_writer_opts o = { .sz = sizeof(o), .flags = GPUCORE_WRITE_OVERWRITE,
                                     .compress = 1, .compress_level = 1,
                                     .frame_size = frame_size, .expected_bytes = expected };
    struct gpucore_range_info info = { .sz = sizeof(info), .tier = GPUCORE_TIER_ALL };
    struct gpucore_core_info ci = { 0 };
    gpucore_diag_t d = { 0 };
    gpucore_writer_t *w = NULL;
    gpucore_core_t *core = NULL;
    uint8_t *back = malloc(DATA_SIZE);

    assert_non_null(back);
    snprintf(path, sizeof(path), "%s/frame-default-%u.%ld.core", tmp ? tmp : "/tmp", frame_size,
             (long)getpid());
    assert_int_equal(gpucore_writer_open(path, &o, &w, &d), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, VADDR, data, DATA_SIZE, &info), GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_OK);
    assert_int_equal(gpucore_core_open(path, NULL, &core, &d), GPUCORE_OK);
    assert_int_equal(gpucore_core_get_info(core, &ci), GPUCORE_OK);
    assert_int_equal(gpucore_core_read(core, VADDR, back, DATA_SIZE, NULL), GPUCORE_OK);
    assert_memory_equal(back, data, DATA_SIZE);
    gpucore_core_close(core);
    unlink(path);
    free(back);
    return ci.frame_count;
}

static uint32_t frames_with(uint32_t frame_size)
{
    return frames_expecting(frame_size, 0);
}

static void test_default_is_512k(void **state)
{
    uint32_t by_default, k512, m1;

    (void)state;
    by_default = frames_with(0);
    k512 = frames_with(512u << 10);
    m1 = frames_with(1u << 20);
    fprintf(stderr, "frames: default %u, 512 KiB %u, 1 MiB %u\n", by_default, k512, m1);
    assert_int_equal(by_default, k512);
    /* the data alone: 6 frames of 512 KiB against 3 of 1 MiB (the head frames are the same) */
    assert_int_equal(k512 - m1, 3);
}

/* A core expected to be large gets frames whose 2^20 reach twice its size: 512 KiB frames reach
   512 GiB, so 300 GiB expected takes 1 MiB frames, and an explicit frame size wins. */
static void test_large_core_larger_frames(void **state)
{
    uint32_t m1 = frames_with(1u << 20), k512 = frames_with(512u << 10);

    (void)state;
    assert_int_equal(frames_expecting(0, 200ull << 30), k512);
    assert_int_equal(frames_expecting(0, 300ull << 30), m1);
    assert_int_equal(frames_expecting(512u << 10, 300ull << 30), k512);
    /* 2 MiB frames: the 3 MiB of data in 2 frames, one fewer than with 1 MiB */
    assert_int_equal(frames_expecting(0, 600ull << 30), m1 - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_default_is_512k),
                                        cmocka_unit_test(test_large_core_larger_frames) };
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int rc;

    data = malloc(DATA_SIZE);
    if (!data)
        return 1;
    for (size_t i = 0; i < DATA_SIZE; i += 8) { /* not all zero, so every frame is encoded */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(data + i, &x, 8);
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(data);
    return rc;
}
