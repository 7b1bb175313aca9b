/* SPDX-License-Identifier: MIT */
/*
 * gc_cwsr_used_parts(): the rule capture and ingest share for what of an XCC save area a core
 * keeps (docs/cwsr-layout.md section 3). One row per rule, each broken alone, plus the headers
 * a stream may carry at the edges (sums past 2^32, a zero area).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cwsr.h"

#define AREA 0x10000u

struct row {
    const char *name;
    uint32_t cso, css, wso, wss;
    uint64_t area;
    const char *why; /* NULL: accepted */
};

static const struct row rows[] = {
    /* a sound header: header, gap, control stack ending where the wave area begins */
    { "sound", 0x8000 - 0x100, 0x100, 0x9000, 0x1000, AREA, NULL },
    { "no waves", 0x8000, 0, 0x8000, 0, AREA, NULL },
    { "control stack right after the header", 40, 8, 0x1000, 0x1000 - 48, AREA, NULL },
    { "wave area to the end of the area", 0x100, 0x100, AREA, AREA - 0x200, AREA, NULL },
    { "control stack in the header", 8, 0x100, 0x1000, 0x1000 - 0x108, AREA,
      "the control stack begins inside the header" },
    { "control stack past the area", 0x100, AREA, AREA + 0x100, 0, AREA,
      "the control stack runs past the area" },
    { "sums past 2^32", 0xfffffff0u, 0x7fffffffu, 0xffffffffu, 0xffffffffu, AREA,
      "the control stack runs past the area" },
    { "all ones", 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, UINT64_MAX,
      "the control stack does not end where the wave area begins" },
    { "wave area past the area", 0x100, 0x100, AREA + 4, AREA + 4 - 0x200, AREA,
      "the wave area ends past the area" },
    { "wave_state_size above wave_state_offset", 0x100, 0x100, 0x1000, 0x2000, AREA,
      "wave_state_size is above wave_state_offset" },
    { "wave area overlapping the control stack", 0x100, 0x100, 0x1000, 0x1000 - 0x180, AREA,
      "the control stack does not end where the wave area begins" },
    { "a gap between them", 0x100, 0x100, 0x1000, 0x1000 - 0x240, AREA,
      "the control stack does not end where the wave area begins" },
    { "unaligned control stack", 0x102, 0xfe, 0x1000, 0x1000 - 0x200, AREA,
      "a size is not a multiple of 4" },
    { "unaligned wave area", 0x100, 0x100, 0x1002, 0x1002 - 0x200, AREA,
      "a size is not a multiple of 4" },
    { "an area smaller than a header", 40, 0, 40, 0, 39, "the control stack runs past the area" },
};

static void test_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct row *r = &rows[i];
        struct gc_cwsr_header h = { .control_stack_offset = r->cso,
                                    .control_stack_size = r->css,
                                    .wave_state_offset = r->wso,
                                    .wave_state_size = r->wss };
        struct gc_cwsr_used u, before;
        const char *why = NULL;
        gpucore_status_t st;

        memset(&u, 0xa5, sizeof(u));
        before = u;
        st = gc_cwsr_used_parts(&h, r->area, &u, &why);
        print_message("%s: %d %s\n", r->name, st, why ? why : "");
        if (!r->why) {
            assert_int_equal(st, GPUCORE_OK);
            assert_null(why);
            assert_int_equal(u.ctl_offset, r->cso);
            assert_int_equal(u.ctl_size, r->css);
            assert_int_equal(u.wave_offset, (uint64_t)r->wso - r->wss);
            assert_int_equal(u.wave_size, r->wss);
            /* the parts are inside the area, after the header, and touch */
            assert_true(u.ctl_offset >= GC_CWSR_HEADER_SIZE);
            assert_int_equal(u.ctl_offset + u.ctl_size, u.wave_offset);
            assert_true(u.wave_offset + u.wave_size <= r->area);
        } else {
            assert_int_equal(st, GPUCORE_E_CORRUPT);
            assert_non_null(why);
            assert_string_equal(why, r->why);
            assert_memory_equal(&u, &before, sizeof(u)); /* untouched */
        }
    }
}

static void test_null(void **state)
{
    struct gc_cwsr_header h = { 0 };
    struct gc_cwsr_used u;

    (void)state;
    assert_int_equal(gc_cwsr_used_parts(NULL, AREA, &u, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_used_parts(&h, AREA, NULL, NULL), GPUCORE_E_INVAL);
    /* reterr_why may be NULL on a failure */
    assert_int_equal(gc_cwsr_used_parts(&h, AREA, &u, NULL), GPUCORE_E_CORRUPT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_null),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
