/* SPDX-License-Identifier: MIT */
/* The shared helpers of gc_util.h: the growable array. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gc_util.h"

int test_schema_util_run(void);

static void test_array_grow(void **state)
{
    uint32_t cap = 0, count = 0;
    uint64_t *a = NULL, *n;

    (void)state;
    /* The first call allocates the initial capacity; the next ones return the array itself
       while there is room, and double it when full. */
    for (uint64_t i = 0; i < 100; i++) {
        uint32_t before = cap;

        n = gc_array_grow(a, &cap, count, sizeof(*n), 4);
        assert_non_null(n);
        if (count < before)
            assert_ptr_equal(n, a);
        else
            assert_int_equal(cap, before ? before * 2 : 4);
        a = n;
        a[count++] = i;
    }
    assert_int_equal(cap, 128);
    for (uint64_t i = 0; i < 100; i++)
        assert_int_equal(a[i], i);

    /* A capacity that cannot double fails and leaves everything as it was. */
    cap = UINT32_MAX / 2 + 1;
    assert_null(gc_array_grow(a, &cap, cap, sizeof(*a), 4));
    assert_int_equal(cap, UINT32_MAX / 2 + 1);
    /* Elements so large that twice the count overflows size_t fail too. */
    cap = 4;
    assert_null(gc_array_grow(a, &cap, 4, SIZE_MAX / 4, 4));
    assert_int_equal(cap, 4);
    gc_free(a);
}

int test_schema_util_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_grow),
    };

    return cmocka_run_group_tests_name("schema: shared helpers (gc_util.h)", tests, NULL, NULL);
}
