/* SPDX-License-Identifier: MIT */
/*
 * schema/gc_rocr.h: the amd_queue_t decoder and encoder, where a queue's amd_queue_t lies given
 * its read pointer, and which runtimes still have the scratch stride. The bytes are written here
 * byte by byte at <hsa/amd_hsa_queue.h>'s offsets, not with the header's constants, so a wrong
 * constant fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gc_rocr.h"

int test_schema_amd_queue_run(void);

static void put(uint8_t *b, size_t off, uint64_t v, unsigned width)
{
    for (unsigned i = 0; i < width; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

/* An amd_queue_t as ROCr 6.2 leaves it for a queue of an MI300X XCC (r_version 10): a 4096-packet
   ring, 21 packets written, 20 read, scratch of 0x6000 bytes per XCC at 0x7f1e40000000. */
static void real_queue(uint8_t b[256])
{
    memset(b, 0xa5, 256);              /* the fields gpucore does not know: left alone, ignored */
    put(b, 0, 0, 4);                   /* type: HSA_QUEUE_TYPE_MULTIPLE */
    put(b, 4, 1, 4);                   /* features: KERNEL_DISPATCH */
    put(b, 8, 0x7f1e4c200000ull, 8);   /* base_address */
    put(b, 24, 4096, 4);               /* size, packets */
    put(b, 32, 3, 8);                  /* id */
    put(b, 56, 21, 8);                 /* write_dispatch_id */
    put(b, 72, 37, 4);                 /* max_cu_id */
    put(b, 76, 31, 4);                 /* max_wave_id */
    put(b, 128, 20, 8);                /* read_dispatch_id */
    put(b, 136, 128, 4);               /* read_dispatch_id_field_base_byte_offset */
    put(b, 140, 0x00206000, 4);        /* compute_tmpring_size */
    put(b, 160, 0x7f1e40000000ull, 8); /* scratch_backing_memory_location */
    put(b, 168, 0x6000, 8);            /* scratch_backing_memory_byte_size */
    put(b, 176, 1024, 4);              /* scratch_workitem_byte_size */
    put(b, 180, 3, 4);                 /* queue_properties */
}

static void test_decode(void **state)
{
    uint8_t b[300];
    struct gc_rocr_amd_queue q;

    (void)state;
    assert_int_equal(GC_ROCR_AMDQ_SIZE, 256);
    real_queue(b);
    assert_int_equal(gc_rocr_amd_queue_decode(b, 256, &q), GPUCORE_OK);
    assert_int_equal(q.type, 0);
    assert_int_equal(q.features, 1);
    assert_int_equal(q.base_address, 0x7f1e4c200000ull);
    assert_int_equal(q.ring_packets, 4096);
    assert_int_equal(q.id, 3);
    assert_int_equal(q.write_dispatch_id, 21);
    assert_int_equal(q.max_cu_id, 37);
    assert_int_equal(q.max_wave_id, 31);
    assert_int_equal(q.read_dispatch_id, 20);
    assert_int_equal(q.read_dispatch_id_field_base_byte_offset, 128);
    assert_int_equal(q.compute_tmpring_size, 0x00206000);
    assert_int_equal(q.scratch_location, 0x7f1e40000000ull);
    assert_int_equal(q.scratch_byte_size, 0x6000);
    assert_int_equal(q.scratch_workitem_byte_size, 1024);
    assert_int_equal(q.queue_properties, 3);
    /* a longer buffer reads the same first 256 bytes */
    assert_int_equal(gc_rocr_amd_queue_decode(b, sizeof(b), &q), GPUCORE_OK);
    assert_int_equal(q.scratch_byte_size, 0x6000);
}

static void test_short_and_null(void **state)
{
    uint8_t b[256];
    struct gc_rocr_amd_queue q, before;

    (void)state;
    real_queue(b);
    memset(&q, 0x5c, sizeof(q));
    before = q;
    for (size_t n = 0; n < 256; n += 17) {
        assert_int_equal(gc_rocr_amd_queue_decode(b, n, &q), GPUCORE_E_TRUNCATED);
        assert_memory_equal(&q, &before, sizeof(q)); /* untouched */
    }
    assert_int_equal(gc_rocr_amd_queue_decode(b, 255, &q), GPUCORE_E_TRUNCATED);
    assert_int_equal(gc_rocr_amd_queue_decode(NULL, 256, &q), GPUCORE_E_INVAL);
    assert_int_equal(gc_rocr_amd_queue_decode(b, 256, NULL), GPUCORE_E_INVAL);
}

static void test_encode_round_trip(void **state)
{
    uint8_t want[256], got[256];
    struct gc_rocr_amd_queue q;

    (void)state;
    real_queue(want);
    assert_int_equal(gc_rocr_amd_queue_decode(want, sizeof(want), &q), GPUCORE_OK);
    memset(got, 0xa5, sizeof(got));
    gc_rocr_amd_queue_encode(&q, got);
    /* every known field at its offset, every other byte as it was */
    assert_memory_equal(got, want, sizeof(got));
}

static void test_where(void **state)
{
    uint64_t base = 1, lo = 1, size = 1;

    (void)state;
    /* the read pointer is the address of read_dispatch_id, 128 bytes in */
    assert_int_equal(gc_rocr_amd_queue_at(0x7f1e4c180080ull, &base), 1);
    assert_int_equal(base, 0x7f1e4c180000ull);
    assert_int_equal(gc_rocr_amd_queue_at(128, &base), 1);
    assert_int_equal(base, 0);
    base = 1;
    assert_int_equal(gc_rocr_amd_queue_at(127, &base), 0);
    assert_int_equal(base, 1);
    assert_int_equal(gc_rocr_amd_queue_at(0, &base), 0);
    /* in whole 64-byte lines: aligned, one line more than its 256 bytes */
    assert_int_equal(gc_rocr_amd_queue_lines(0x7f1e4c180080ull, &lo, &size), 1);
    assert_int_equal(lo, 0x7f1e4c180000ull);
    assert_int_equal(size, 320);
    /* not aligned (a hostile pointer): the lines still hold all of it */
    assert_int_equal(gc_rocr_amd_queue_lines(0x7f1e4c1800a8ull, &lo, &size), 1);
    assert_int_equal(lo, 0x7f1e4c180000ull);
    assert_true(lo + size >= 0x7f1e4c1800a8ull - 128 + 256);
    lo = size = 1;
    assert_int_equal(gc_rocr_amd_queue_lines(100, &lo, &size), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(size, 1);
}

static void test_stride(void **state)
{
    (void)state;
    assert_int_equal(gc_rocr_amd_queue_has_stride(0), 0); /* unknown */
    assert_int_equal(gc_rocr_amd_queue_has_stride(8), 1);
    assert_int_equal(gc_rocr_amd_queue_has_stride(10), 1);
    assert_int_equal(gc_rocr_amd_queue_has_stride(11), 0);
    assert_int_equal(gc_rocr_amd_queue_has_stride(12), 0);
}

int test_schema_amd_queue_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_short_and_null),
        cmocka_unit_test(test_encode_round_trip),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_stride),
    };

    return cmocka_run_group_tests_name("schema: ROCr amd_queue_t", tests, NULL, NULL);
}
