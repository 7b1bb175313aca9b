/* SPDX-License-Identifier: MIT */
/*
 * Which range holds an address (analyze/interval.h): disjoint ranges, nested and overlapping
 * ones (the greatest lo wins, then the lowest id), ranges of one byte, a range ending at
 * 2^64 - 1, exact-lo lookups, an empty index; and against a walk of every range, on many
 * random ranges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "gc_util.h"
#include "interval.h"

/* Index a copy of @p n ranges. */
static void build(struct gc_iv_index *ix, const struct gc_iv *r, uint32_t n)
{
    struct gc_iv *v = gc_calloc_array(n ? n : 1, sizeof(*v));

    assert_non_null(v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = r[i];
    assert_int_equal(gc_iv_build(ix, v, n), GPUCORE_OK);
}

static void test_disjoint(void **state)
{
    const struct gc_iv r[] = { { 0x3000, 0x3fff, 2 }, { 0x1000, 0x1fff, 0 }, { 0x2000, 0x2000, 1 } };
    struct gc_iv_index ix;

    (void)state;
    build(&ix, r, 3);
    assert_int_equal(gc_iv_find(&ix, 0xfff), UINT32_MAX);
    assert_int_equal(gc_iv_find(&ix, 0x1000), 0);
    assert_int_equal(gc_iv_find(&ix, 0x1fff), 0);
    assert_int_equal(gc_iv_find(&ix, 0x2000), 1);
    assert_int_equal(gc_iv_find(&ix, 0x2001), UINT32_MAX);
    assert_int_equal(gc_iv_find(&ix, 0x3800), 2);
    assert_int_equal(gc_iv_find(&ix, 0x4000), UINT32_MAX);
    assert_int_equal(gc_iv_find_lo(&ix, 0x2000), 1);
    assert_int_equal(gc_iv_find_lo(&ix, 0x2001), UINT32_MAX);
    gc_iv_free(&ix);
}

/* Nested: the innermost (greatest lo); equal lo: the lowest id; a range past x that does not
   reach back is no answer, one before it that does is. */
static void test_overlapping(void **state)
{
    const struct gc_iv r[] = {
        { 0x1000, 0x8fff, 5 }, /* outer */
        { 0x2000, 0x2fff, 7 }, /* inner */
        { 0x2000, 0x2fff, 3 }, /* the same range, lower id */
        { 0x2800, 0x2800, 9 }, /* one byte */
        { 0x7000, 0x7000, 1 }, /* one byte, far from 0x5000 */
    };
    struct gc_iv_index ix;

    (void)state;
    build(&ix, r, 5);
    assert_int_equal(gc_iv_find(&ix, 0x1800), 5);
    assert_int_equal(gc_iv_find(&ix, 0x2400), 3);
    assert_int_equal(gc_iv_find(&ix, 0x2800), 9);
    assert_int_equal(gc_iv_find(&ix, 0x2801), 3);
    assert_int_equal(gc_iv_find(&ix, 0x5000), 5);
    assert_int_equal(gc_iv_find(&ix, 0x7000), 1);
    assert_int_equal(gc_iv_find(&ix, 0x9000), UINT32_MAX);
    assert_int_equal(gc_iv_find_lo(&ix, 0x2000), 3);
    gc_iv_free(&ix);
}

static void test_top_and_empty(void **state)
{
    const struct gc_iv r[] = { { UINT64_MAX - 15, UINT64_MAX, 4 }, { 0, 0, 8 } };
    struct gc_iv_index ix, none;

    (void)state;
    build(&ix, r, 2);
    assert_int_equal(gc_iv_find(&ix, UINT64_MAX), 4);
    assert_int_equal(gc_iv_find(&ix, UINT64_MAX - 16), UINT32_MAX);
    assert_int_equal(gc_iv_find(&ix, 0), 8);
    assert_int_equal(gc_iv_find(&ix, 1), UINT32_MAX);
    gc_iv_free(&ix);
    assert_int_equal(gc_iv_build(&none, NULL, 0), GPUCORE_OK);
    assert_int_equal(gc_iv_find(&none, 0), UINT32_MAX);
    assert_int_equal(gc_iv_find_lo(&none, 0), UINT32_MAX);
    gc_iv_free(&none);
    gc_iv_free(NULL);
}

/* The rule by a walk of every range: the greatest lo holding x, then the lowest id. */
static uint32_t walk(const struct gc_iv *r, uint32_t n, uint64_t x)
{
    const struct gc_iv *best = NULL;

    for (uint32_t i = 0; i < n; i++)
        if (r[i].lo <= x && x <= r[i].last &&
            (!best || r[i].lo > best->lo || (r[i].lo == best->lo && r[i].id < best->id)))
            best = &r[i];
    return best ? best->id : UINT32_MAX;
}

static void test_against_walk(void **state)
{
    enum { N = 3000, Q = 20000 };
    struct gc_iv *r = gc_calloc_array(N, sizeof(*r));
    struct gc_iv_index ix;
    uint64_t seed = 12345;

    (void)state;
    assert_non_null(r);
    for (uint32_t i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        r[i].lo = (seed >> 33) % 100000;
        r[i].last = r[i].lo + (seed >> 20) % (i % 7 ? 50 : 5000);
        r[i].id = i;
    }
    build(&ix, r, N);
    for (uint32_t k = 0; k < Q; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t x = (seed >> 33) % 106000;

        assert_int_equal(gc_iv_find(&ix, x), walk(r, N, x));
    }
    gc_iv_free(&ix);
    gc_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disjoint),
        cmocka_unit_test(test_overlapping),
        cmocka_unit_test(test_top_and_empty),
        cmocka_unit_test(test_against_walk),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
