/* SPDX-License-Identifier: MIT */
/*
 * schema/gc_rocr.h: ROCr's r_debug and link_map layouts, the code-object URI grammar (what the
 * capture and the analyzer both accept) and the link-map walk's cycle and length limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gc_rocr.h"

int test_schema_rocr_run(void);

static void test_layouts(void **state)
{
    /* glibc's struct r_debug / struct link_map on LP64, little-endian, written byte by byte */
    static const uint8_t rd[40] = { 12, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd,          /* r_version */
                                    0x40, 0x30, 0x20, 0x10, 0, 0, 0, 0,           /* r_map */
                                    0x11, 0, 0, 0, 0, 0, 0, 0x80,                 /* r_brk */
                                    1, 0, 0, 0, 0xee, 0xee, 0xee, 0xee,           /* r_state */
                                    0x22, 0x11, 0, 0, 0, 0, 0, 0 };               /* r_ldbase */
    static const uint8_t lm[40] = { 1, 0, 0, 0, 0, 0, 0, 0,  2, 0, 0, 0, 0, 0, 0, 0,
                                    3, 0, 0, 0, 0, 0, 0, 0,  4, 0, 0, 0, 0, 0, 0, 0x7f,
                                    5, 0, 0, 0, 0, 0, 0, 0 };
    struct gc_rocr_r_debug r;
    struct gc_rocr_link_map m;

    (void)state;
    gc_rocr_r_debug_decode(rd, &r);
    assert_int_equal(r.r_version, 12);
    assert_int_equal(r.r_map, 0x10203040u);
    assert_int_equal(r.r_brk, 0x8000000000000011ull);
    assert_int_equal(r.r_state, 1);
    assert_int_equal(r.r_ldbase, 0x1122);
    gc_rocr_link_map_decode(lm, &m);
    assert_int_equal(m.l_addr, 1);
    assert_int_equal(m.l_name, 2);
    assert_int_equal(m.l_ld, 3);
    assert_int_equal(m.l_next, 0x7f00000000000004ull);
    assert_int_equal(m.l_prev, 5);

    /* the encoders (the simulated runtime's loader) write the same bytes back, padding left */
    uint8_t out[40];

    memcpy(out, rd, sizeof(out));
    memset(out, 0, 4);
    memset(out + 8, 0, 20);
    memset(out + 32, 0, 8);
    gc_rocr_r_debug_encode(&r, out);
    assert_memory_equal(out, rd, sizeof(out));
    memset(out, 0, sizeof(out));
    gc_rocr_link_map_encode(&m, out);
    assert_memory_equal(out, lm, sizeof(out));
}

/* One window, 8..12, for the capture and the analyzer alike. */
static void test_r_version_window(void **state)
{
    (void)state;
    assert_int_equal(GC_ROCR_R_VERSION_MIN, 8);
    assert_int_equal(GC_ROCR_R_VERSION_MAX, 12);
    for (uint32_t v = 0; v < 20; v++)
        assert_int_equal(gc_rocr_r_version_supported(v), v >= 8 && v <= 12);
    assert_false(gc_rocr_r_version_supported(UINT32_MAX));
}

static gpucore_status_t parse(const char *text, struct gc_rocr_uri *u, gpucore_diag_t *d)
{
    memset(d, 0, sizeof(*d));
    return gc_rocr_uri_parse(text, strlen(text), u, d);
}

static void test_uri_valid(void **state)
{
    struct gc_rocr_uri *u = malloc(sizeof(*u));
    gpucore_diag_t d;

    (void)state;
    assert_non_null(u);
    assert_int_equal(parse("memory://4242#offset=0x7f0000001000&size=3984", u, &d), GPUCORE_OK);
    assert_int_equal(u->kind, GC_ROCR_URI_MEMORY);
    assert_int_equal(u->pid, 4242);
    assert_int_equal(u->offset, 0x7f0000001000ull);
    assert_int_equal(u->size, 3984);
    assert_true(u->have_offset && u->have_size);
    /* either order; hex size */
    assert_int_equal(parse("memory://1#size=0X10&offset=16", u, &d), GPUCORE_OK);
    assert_int_equal(u->size, 16);
    assert_int_equal(u->offset, 16);

    assert_int_equal(parse("file:///opt/rocm/lib/a%20b%2Fc.co", u, &d), GPUCORE_OK);
    assert_int_equal(u->kind, GC_ROCR_URI_FILE);
    assert_string_equal(u->path, "/opt/rocm/lib/a b/c.co");
    assert_false(u->have_offset || u->have_size);
    /* a '%' without two hex digits is itself */
    assert_int_equal(parse("file://x%4g%", u, &d), GPUCORE_OK);
    assert_string_equal(u->path, "x%4g%");
    assert_int_equal(parse("file:///lib/libx.so#offset=4096&size=0x200", u, &d), GPUCORE_OK);
    assert_string_equal(u->path, "/lib/libx.so");
    assert_int_equal(u->offset, 4096);
    assert_int_equal(u->size, 0x200);
    assert_int_equal(parse("file:///a#size=1", u, &d), GPUCORE_OK);
    assert_true(u->have_size && !u->have_offset);
    /* the largest 64-bit numbers */
    assert_int_equal(parse("memory://18446744073709551615#offset=0xffffffffffffffff&size=1", u,
                           &d),
                     GPUCORE_OK);
    assert_int_equal(u->pid, UINT64_MAX);
    assert_int_equal(u->offset, UINT64_MAX);
    free(u);
}

static void test_uri_malformed(void **state)
{
    static const struct {
        const char *text;
        uint64_t offset; /* where the diag points */
        const char *says;
    } bad[] = {
        { "", 0, "not a memory:// or file://" },
        { "http://x", 0, "not a memory:// or file://" },
        { "FILE:///x", 0, "not a memory:// or file://" },
        { "memory://", 9, "no #offset" },
        { "memory://12", 11, "no #offset" },
        { "memory://#offset=1&size=1", 9, "process id" },
        { "memory://0x#offset=1&size=1", 9, "process id" },
        { "memory://1#offset=1", 11, "lacks offset= or size=" },
        { "memory://1#size=1", 11, "lacks offset= or size=" },
        { "memory://1#offset=1&size=1&size=2", 27, "given twice" },
        { "memory://1#offset=1&size=1&x=2", 27, "not offset=N or size=N" },
        { "memory://1#offset=1&size=", 25, "not a 64-bit number" },
        { "memory://1#offset=18446744073709551616&size=1", 18, "not a 64-bit number" },
        { "memory://1#offset=0x1g&size=1", 18, "not a 64-bit number" },
        { "memory://1#offset=-1&size=1", 18, "not a 64-bit number" },
        { "memory://1#offset=1&size=1&", 27, "ends with '&'" },
        { "file://", 7, "empty path" },
        { "file://#size=1", 7, "empty path" },
        { "file:///a%00b", 9, "encoded NUL" },
        { "file:///a#", 10, "" }, /* an empty fragment is fine: see below */
    };
    struct gc_rocr_uri *u = malloc(sizeof(*u));
    gpucore_diag_t d;

    (void)state;
    assert_non_null(u);
    for (size_t i = 0; i + 1 < sizeof(bad) / sizeof(bad[0]); i++) {
        gpucore_status_t st = parse(bad[i].text, u, &d);

        if (st != GPUCORE_E_CORRUPT)
            fail_msg("'%s' parsed (%d)", bad[i].text, st);
        assert_int_equal(d.status, GPUCORE_E_CORRUPT);
        assert_true(d.flags & GPUCORE_DIAG_HAS_OFFSET);
        if (d.offset != bad[i].offset || !strstr(d.message, bad[i].says))
            fail_msg("'%s': offset %llu '%s', expected %llu '%s'", bad[i].text,
                     (unsigned long long)d.offset, d.message,
                     (unsigned long long)bad[i].offset, bad[i].says);
    }
    assert_int_equal(parse("file:///a#", u, &d), GPUCORE_OK);
    /* a NUL inside the length given */
    memset(&d, 0, sizeof(d));
    assert_int_equal(gc_rocr_uri_parse("file:///a\0b", 11, u, &d), GPUCORE_E_CORRUPT);
    assert_int_equal(d.offset, 9);
    /* a path longer than GC_ROCR_URI_MAX */
    {
        size_t n = 7 + GC_ROCR_URI_MAX + 1;
        char *t = malloc(n + 1);

        assert_non_null(t);
        memcpy(t, "file://", 7);
        memset(t + 7, 'a', n - 7);
        t[n] = '\0';
        assert_int_equal(parse(t, u, &d), GPUCORE_E_CORRUPT);
        assert_non_null(strstr(d.message, "longer than"));
        t[n - 1] = '\0'; /* exactly GC_ROCR_URI_MAX */
        assert_int_equal(parse(t, u, &d), GPUCORE_OK);
        assert_int_equal(strlen(u->path), GC_ROCR_URI_MAX);
        free(t);
    }
    assert_int_equal(gc_rocr_uri_parse(NULL, 0, u, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_rocr_uri_parse("file:///a", 9, NULL, &d), GPUCORE_E_INVAL);
    free(u);
}

/* A list that loops stops at the first repeated node; a long one at GC_ROCR_LINK_MAP_MAX. */
static void test_walk(void **state)
{
    struct gc_rocr_walk *w = calloc(1, sizeof(*w));

    (void)state;
    assert_non_null(w);
    assert_int_equal(gc_rocr_walk_visit(w, 0x1000), GC_ROCR_VISIT_NEW);
    assert_int_equal(gc_rocr_walk_visit(w, 0x1040), GC_ROCR_VISIT_NEW);
    assert_int_equal(gc_rocr_walk_visit(w, 0x1000), GC_ROCR_VISIT_CYCLE);
    assert_int_equal(gc_rocr_walk_visit(w, 0x1040), GC_ROCR_VISIT_CYCLE);
    memset(w, 0, sizeof(*w));
    /* addresses that collide in the table (same low bits, different high ones) */
    for (uint64_t i = 0; i < GC_ROCR_LINK_MAP_MAX; i++)
        assert_int_equal(gc_rocr_walk_visit(w, (i << 40) | 0x28), GC_ROCR_VISIT_NEW);
    assert_int_equal(w->count, GC_ROCR_LINK_MAP_MAX);
    assert_int_equal(gc_rocr_walk_visit(w, 0x28), GC_ROCR_VISIT_CYCLE);
    assert_int_equal(gc_rocr_walk_visit(w, ((uint64_t)GC_ROCR_LINK_MAP_MAX - 1) << 40 | 0x28),
                     GC_ROCR_VISIT_CYCLE);
    assert_int_equal(gc_rocr_walk_visit(w, 0x99), GC_ROCR_VISIT_LIMIT);
    free(w);
}

int test_schema_rocr_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),       cmocka_unit_test(test_r_version_window),
        cmocka_unit_test(test_uri_valid),     cmocka_unit_test(test_uri_malformed),
        cmocka_unit_test(test_walk),
    };

    return cmocka_run_group_tests_name("schema: ROCr r_debug, link_map, URIs", tests, NULL,
                                       NULL);
}
