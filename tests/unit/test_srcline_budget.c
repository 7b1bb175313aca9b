/* SPDX-License-Identifier: MIT */
/*
 * srcline's work is bounded by the bytes of DWARF really there (srcline.h): code objects made
 * by tests/tools/hostile_dwarf.c whose DWARF once took CPU or memory far out of proportion, or
 * made libdw open a file the DWARF names. What is asserted is what the format fixes: a case of
 * N blocks sharing one list of N entries is walked with N + 1 DIEs examined (the function and
 * its N blocks) and the list's N + 1 entries (the last one ends it) decoded once; a case that
 * cannot be shared is refused when the budget, known from the sections' sizes, is spent.
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

#include "hostile_dwarf.h"
#include "srcline.h"

/* The case: 64 K lexical blocks (16 K took 7 s, 64 K 100 s). */
#define BIG_N 65536u

struct built {
    uint8_t *img;
    size_t size;
    uint64_t pc;
};

static struct built build(enum hd_case c, uint32_t n, const char *alt, const char *str0)
{
    struct hd_opts o = { .n = n, .alt_path = alt, .str0 = str0 };
    struct built b;
    char why[128];

    assert_int_equal(hd_build(c, &o, &b.img, &b.size, &b.pc, why, sizeof(why)), 0);
    return b;
}

/* Open, look up the function's PC once, and return the status, the result and the costs. */
static gpucore_status_t lookup_once(const struct built *b, struct gc_srcline_result *r,
                                    struct gc_srcline_stats *st)
{
    struct gc_srcline *s = NULL;
    gpucore_status_t rc;

    assert_int_equal(gc_srcline_open(b->img, b->size, &s), GPUCORE_OK);
    rc = gc_srcline_lookup(s, b->pc, r);
    gc_srcline_stats(s, st);
    gc_srcline_close(s);
    return rc;
}

/* N blocks naming one list (DWARF 5 by index and by offset, DWARF 4): one decode. */
static void test_shared_list_decoded_once(void **state)
{
    static const enum hd_case cases[] = { HD_SHARED_RNGLISTX, HD_SHARED_RNGLISTS,
                                          HD_SHARED_RANGES };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct built b = build(cases[i], BIG_N, NULL, NULL);
        struct gc_srcline_result r;
        struct gc_srcline_stats st;

        assert_int_equal(lookup_once(&b, &r, &st), GPUCORE_OK);
        assert_int_equal(r.nframes, 1);
        assert_string_equal(r.frames[0].function, "vadd");
        assert_null(r.why);
        assert_int_equal(st.dies, BIG_N + 1);
        assert_int_equal(st.range_entries, BIG_N + 1);
        assert_int_equal(st.lists_shared, BIG_N - 1);
        assert_true(st.steps <= st.budget);
        free(b.img);
    }
}

/* Block i names entry i of one list (offset pairs; or base-address entries, which libdw reads
   inside one call): nothing to share, N^2 / 2 entries. Refused when the budget is spent, which
   is GC_SRCLINE_STEPS_PER_BYTE steps per byte plus the minimum; a small N fits. */
static void test_suffixes_exhaust_the_budget(void **state)
{
    static const enum hd_case cases[] = { HD_SUFFIX_RNGLISTS, HD_BASE_SUFFIX };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct built big = build(cases[i], BIG_N, NULL, NULL);
        struct built small = build(cases[i], 256, NULL, NULL);
        struct gc_srcline_result r;
        struct gc_srcline_stats st;

        assert_int_equal(lookup_once(&big, &r, &st), GPUCORE_E_LIMIT);
        assert_string_equal(r.why, "DWARF walk budget exhausted");
        assert_int_equal(st.steps, st.budget);
        /* The budget is known from the sizes: at most 4 steps per byte of the whole image
           (which holds the DWARF) plus the minimum. */
        assert_true(st.budget <= GC_SRCLINE_STEPS_PER_BYTE * (uint64_t)big.size +
                                          GC_SRCLINE_STEPS_MIN);
        /* 256 blocks: block i reads entries i..255 and the end, 256 x 257 / 2 + 256 entries,
           within the minimum. */
        assert_int_equal(lookup_once(&small, &r, &st), GPUCORE_OK);
        assert_string_equal(r.frames[0].function, "vadd");
        assert_int_equal(st.range_entries, 256u * 257u / 2u + 256u);
        free(big.img);
        free(small.img);
    }
}

/* 4000 units without aranges, each naming one list of N entries, before the function's unit:
   the units have the same base, so the list is decoded once for all of them. */
static void test_units_share_the_list(void **state)
{
    struct built b = build(HD_SHARED_UNITS, BIG_N, NULL, NULL);
    struct gc_srcline_result r;
    struct gc_srcline_stats st;

    (void)state;
    assert_int_equal(lookup_once(&b, &r, &st), GPUCORE_OK);
    assert_string_equal(r.frames[0].function, "vadd");
    assert_int_equal(st.range_entries, BIG_N + 1);
    assert_int_equal(st.lists_shared, 4000 - 1);
    free(b.img);
}

/* An abbreviation of N attributes without data, used by N one-byte DIEs: refused when N passes
   GC_SRCLINE_MAX_ZERO_SIZE_ATTRS, walked when it does not. */
static void test_wide_abbreviation(void **state)
{
    struct built wide = build(HD_WIDE_ABBREV, BIG_N, NULL, NULL);
    struct built fits = build(HD_WIDE_ABBREV, GC_SRCLINE_MAX_ZERO_SIZE_ATTRS, NULL, NULL);
    struct gc_srcline_result r;
    struct gc_srcline_stats st;

    (void)state;
    assert_int_equal(lookup_once(&wide, &r, &st), GPUCORE_E_LIMIT);
    assert_string_equal(r.why, "DWARF abbreviation with too many attributes without data");
    assert_int_equal(st.dies, 0);
    assert_int_equal(lookup_once(&fits, &r, &st), GPUCORE_OK);
    assert_string_equal(r.frames[0].function, "vadd");
    free(wide.img);
    free(fits.img);
}

/* The same PC again is answered from the cache, at no cost; distinct PCs spend the handle's
   budget, after which lookups say so. */
static void test_cache_and_handle_budget(void **state)
{
    struct built b = build(HD_SUFFIX_RNGLISTS, BIG_N, NULL, NULL);
    struct gc_srcline *s = NULL;
    struct gc_srcline_result r;
    struct gc_srcline_stats st;
    uint64_t spent;
    int handle_said = 0;

    (void)state;
    assert_int_equal(gc_srcline_open(b.img, b.size, &s), GPUCORE_OK);
    assert_int_equal(gc_srcline_lookup(s, b.pc, &r), GPUCORE_E_LIMIT);
    gc_srcline_stats(s, &st);
    spent = st.total_steps;
    assert_int_equal(gc_srcline_lookup(s, b.pc, &r), GPUCORE_E_LIMIT);
    assert_string_equal(r.why, "DWARF walk budget exhausted");
    gc_srcline_stats(s, &st);
    assert_int_equal(st.total_steps, spent);
    assert_int_equal(st.cached, 1);
    assert_int_equal(st.lookups, 2);
    /* Each lookup spends at most a lookup's budget; together at most the handle's. */
    for (uint64_t k = 1; k <= 64 && !handle_said; k++) {
        assert_int_equal(gc_srcline_lookup(s, b.pc + 4 * k, &r), GPUCORE_E_LIMIT);
        handle_said = strcmp(r.why, "DWARF walk budget of this code object exhausted") == 0;
        gc_srcline_stats(s, &st);
        assert_true(st.total_steps <= st.total_budget);
    }
    assert_true(handle_said);
    gc_srcline_close(s);
    free(b.img);
}

/* A .gnu_debugaltlink naming a file, and the function's name in that file's .debug_str
   (DW_FORM_GNU_strp_alt): libdw would open the file and read the name from it. The file here
   names the function "opened_alt"; srcline never opens it, so the name is read from the object
   itself ("vadd"). */
static void test_altlink_not_opened(void **state)
{
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");
    char path[4096];
    struct built alt, b;
    struct gc_srcline_result r;
    struct gc_srcline_stats st;
    FILE *f;

    (void)state;
    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/srcline-budget-alt-%d.debug", dir, (int)getpid());
    alt = build(HD_ALTLINK, 1, "/nonexistent/x.debug", "opened_alt");
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(alt.img, 1, alt.size, f), alt.size);
    assert_int_equal(fclose(f), 0);
    b = build(HD_ALTLINK, 1, path, NULL);
    assert_int_equal(lookup_once(&b, &r, &st), GPUCORE_OK);
    assert_string_equal(r.frames[0].function, "vadd");
    unlink(path);
    free(alt.img);
    free(b.img);
}

/* Compressed .debug_info declaring 64 MiB in about 64 KiB: refused before libdw inflates it. */
static void test_zlib_bomb_refused(void **state)
{
    struct built b = build(HD_ZLIB_BOMB, 64, NULL, NULL);
    struct gc_srcline *s = (struct gc_srcline *)&b;
    const char *why = NULL;

    (void)state;
    assert_true(b.size < (64u << 20) / GC_SRCLINE_INFLATE_FACTOR);
    assert_int_equal(gc_srcline_open_why(b.img, b.size, &s, &why), GPUCORE_E_LIMIT);
    assert_null(s);
    assert_string_equal(why, "compressed DWARF sections declare more than 16 times the code "
                             "object's size");
    free(b.img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_list_decoded_once),
        cmocka_unit_test(test_suffixes_exhaust_the_budget),
        cmocka_unit_test(test_units_share_the_list),
        cmocka_unit_test(test_wide_abbreviation),
        cmocka_unit_test(test_cache_and_handle_budget),
        cmocka_unit_test(test_altlink_not_opened),
        cmocka_unit_test(test_zlib_bomb_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
