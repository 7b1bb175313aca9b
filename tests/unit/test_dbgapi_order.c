/* SPDX-License-Identifier: MIT */
/*
 * The order AMD's library walks a process's waves (and agents) in: gc_dbg_map_order()
 * (dbgapi/dbgapi_order.h) reproduces libstdc++'s std::unordered_map iteration order.
 *
 * Checked against libstdc++ itself: GPUCORE_ORDER_REF names dbgapi_order_ref (built from
 * tests/unit/dbgapi_order_ref.cpp when a C++ compiler is there), run for first keys and counts
 * that cross every rehash up to 100,000 keys. Without it, only the properties below are checked
 * (and the test says so).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dbgapi_order.h"

static uint32_t *order_of(uint64_t first, uint32_t n)
{
    uint32_t *o = calloc(n + 1u, sizeof(*o));
    uint8_t *seen = calloc(n + 1u, 1);

    assert_non_null(o);
    assert_non_null(seen);
    assert_int_equal(gc_dbg_map_order(first, n, o), GPUCORE_OK);
    /* a permutation of 0..n-1 */
    for (uint32_t i = 0; i < n; i++) {
        assert_true(o[i] < n);
        assert_false(seen[o[i]]);
        seen[o[i]] = 1;
    }
    free(seen);
    return o;
}

static void test_properties(void **state)
{
    static const uint32_t counts[] = { 0, 1, 2, 12, 13, 14, 29, 30, 256, 1000, 10000 };
    static const uint64_t firsts[] = { 1, 5, 1000, 0xfffffff0ull };
    uint32_t *o;

    (void)state;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        for (size_t k = 0; k < sizeof(firsts) / sizeof(firsts[0]); k++)
            free(order_of(firsts[k], counts[i]));
    /* up to 13 keys in 13 buckets, each key alone in its bucket and put in front: reversed */
    o = order_of(1, 10);
    for (uint32_t i = 0; i < 10; i++)
        assert_int_equal(o[i], 9 - i);
    free(o);
    assert_int_equal(gc_dbg_map_order(1, 5, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_dbg_map_order(1, GC_DBG_ORDER_MAX_KEYS + 1u, (uint32_t[1]){ 0 }),
                     GPUCORE_E_LIMIT);
}

/* The same orders as libstdc++'s, from the reference program. */
static void test_against_libstdcxx(void **state)
{
    static const uint32_t counts[] = { 1, 2, 13, 14, 29, 30, 59, 60, 127, 128, 256, 257, 258,
                                       541, 542, 1110, 2358, 5088, 10000, 10274, 20754, 42044,
                                       100000 };
    static const uint64_t firsts[] = { 1, 2, 13, 253, 1000, 10817, 123457 };
    const char *ref = getenv("GPUCORE_ORDER_REF");
    size_t compared = 0;

    (void)state;
    if (!ref || !*ref) {
        print_message("no C++ compiler at configure time: libstdc++ not compared\n");
        return;
    }
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        for (size_t k = 0; k < sizeof(firsts) / sizeof(firsts[0]); k++) {
            char cmd[4200];
            uint32_t *o = order_of(firsts[k], counts[i]);
            FILE *f;
            uint32_t j = 0;
            unsigned long v;

            snprintf(cmd, sizeof(cmd), "'%s' %" PRIu64 " %u", ref, firsts[k], counts[i]);
            f = popen(cmd, "r");
            assert_non_null(f);
            while (fscanf(f, "%lu", &v) == 1) {
                assert_true(j < counts[i]);
                if (v != o[j])
                    fail_msg("first %" PRIu64 " n %u: position %u is %lu in libstdc++, %u here",
                             firsts[k], counts[i], j, v, o[j]);
                j++;
            }
            assert_int_equal(pclose(f), 0);
            assert_int_equal(j, counts[i]);
            compared += j;
            free(o);
        }
    }
    print_message("%zu positions compared with libstdc++\n", compared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_against_libstdcxx),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
