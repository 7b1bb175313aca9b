/* SPDX-License-Identifier: MIT */
/*
 * srcline: the line and three-frame inline chain of vadd's faulting store (vadd ->
 * finish -> store_sum in tests/scenarios/kernels/vadd.cl), read from a compiled scenario code
 * object in memory; a code object without DWARF, bytes that are no ELF, and every truncation
 * of the code object fail with a status, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "srcline.h"

#define VADD_FILE "/gpucore/tests/scenarios/kernels/vadd.cl"
#define STORE_OFFSET 0x16b4u /* vadd + 0xb4, vadd-fault.json's faulting PC */

static uint8_t *slurp(const char *name, size_t *ret_size)
{
    const char *dir = getenv("GPUCORE_SCENARIO_OBJECTS");
    char path[4096];
    FILE *f;
    uint8_t *buf;
    long n;

    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *ret_size = (size_t)n;
    return buf;
}

static void expect_frame(const struct gc_srcline_frame *f, const char *fn, uint32_t line,
                         uint32_t col)
{
    assert_string_equal(f->function, fn);
    assert_string_equal(f->file, VADD_FILE);
    assert_int_equal(f->line, line);
    assert_int_equal(f->column, col);
}

static void test_inline_chain(void **state)
{
    size_t size;
    uint8_t *co = slurp("vadd.gfx90a.co", &size);
    struct gc_srcline *s = NULL;
    struct gc_srcline_result r;

    (void)state;
    assert_int_equal(gc_srcline_open(co, size, &s), GPUCORE_OK);
    assert_int_equal(gc_srcline_lookup(s, STORE_OFFSET, &r), GPUCORE_OK);
    assert_int_equal(r.nframes, 3);
    assert_false(r.truncated);
    expect_frame(&r.frames[0], "store_sum", 13, 10); /* c[i] = x + y; */
    expect_frame(&r.frames[1], "finish", 20, 9);     /* store_sum(c, i, t, b[i]); */
    expect_frame(&r.frames[2], "vadd", 31, 5);       /* finish(b, c, n, i, tile[l]); */
    /* Outside every function: no compilation unit covers it. */
    assert_int_equal(gc_srcline_lookup(s, 0x10, &r), GPUCORE_E_NOTFOUND);
    gc_srcline_close(s);
    free(co);
}

static void test_no_dwarf(void **state)
{
    size_t size;
    uint8_t *co = slurp("vadd.nodebug.gfx90a.co", &size);
    struct gc_srcline *s = (struct gc_srcline *)&size;

    (void)state;
    assert_int_equal(gc_srcline_open(co, size, &s), GPUCORE_E_NOTFOUND);
    assert_null(s);
    free(co);
}

static void test_not_elf(void **state)
{
    uint8_t junk[64];
    struct gc_srcline *s = NULL;

    (void)state;
    memset(junk, 0x5a, sizeof(junk));
    assert_int_equal(gc_srcline_open(junk, sizeof(junk), &s), GPUCORE_E_CORRUPT);
    assert_null(s);
    assert_int_equal(gc_srcline_open(NULL, 4, &s), GPUCORE_E_INVAL);
    assert_int_equal(gc_srcline_open(junk, 0, &s), GPUCORE_E_INVAL);
    assert_int_equal(gc_srcline_lookup(NULL, 0, NULL), GPUCORE_E_INVAL);
}

/* Every prefix of the code object (in steps, and every byte of the last page), and the code
   object with each byte of its DWARF flipped in turn: a status, and a bounded frame count. */
static void test_truncated_and_flipped(void **state)
{
    size_t size;
    uint8_t *co = slurp("vadd.gfx90a.co", &size);
    struct gc_srcline_result r;

    (void)state;
    for (size_t n = 1; n < size; n += (n + 4096 < size ? 97 : 1)) {
        uint8_t *copy = malloc(n);
        struct gc_srcline *s = NULL;

        assert_non_null(copy);
        memcpy(copy, co, n);
        if (gc_srcline_open(copy, n, &s) == GPUCORE_OK) {
            gpucore_status_t st = gc_srcline_lookup(s, STORE_OFFSET, &r);

            if (st == GPUCORE_OK)
                assert_true(r.nframes >= 1 && r.nframes <= GC_SRCLINE_MAX_FRAMES);
            gc_srcline_close(s);
        } else {
            assert_null(s);
        }
        free(copy);
    }
    for (size_t i = 0; i < size; i += 7) {
        struct gc_srcline *s = NULL;

        co[i] ^= 0xff;
        if (gc_srcline_open(co, size, &s) == GPUCORE_OK) {
            gpucore_status_t st = gc_srcline_lookup(s, STORE_OFFSET, &r);

            if (st == GPUCORE_OK)
                assert_true(r.nframes >= 1 && r.nframes <= GC_SRCLINE_MAX_FRAMES);
            gc_srcline_close(s);
        }
        co[i] ^= 0xff;
    }
    free(co);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline_chain),
        cmocka_unit_test(test_no_dwarf),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_truncated_and_flipped),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
