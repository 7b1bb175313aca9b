/* SPDX-License-Identifier: MIT */
/*
 * srcline: the line and three-frame inline chain of vadd's faulting store (vadd ->
 * finish -> store_sum in tests/scenarios/kernels/vadd.cl), read from a compiled scenario code
 * object in memory; a code object without DWARF, bytes that are no ELF, every truncation
 * of the code object and a unit nested too deep for libdw's recursion fail with a status,
 * never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include "srcline.h"

#define VADD_FILE "/gpucore/tests/scenarios/kernels/vadd.cl"
/* vadd + 0xb4, vadd-fault.json's faulting PC: the kernel's address depends on the linker (ld.lld
   16 puts vadd at 0x1600, 19 at 0x1700), its code does not. */
#define STORE_KERNEL_OFFSET 0xb4u

/* The address of the symbol vadd in the code object, + STORE_KERNEL_OFFSET. */
static uint64_t store_offset(uint8_t *co, size_t size)
{
    Elf *e;
    Elf_Scn *scn = NULL;
    uint64_t addr = 0;

    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    e = elf_memory((char *)co, size);
    assert_non_null(e);
    while ((scn = elf_nextscn(e, scn)) != NULL && !addr) {
        GElf_Shdr sh;
        Elf_Data *d;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        d = elf_getdata(scn, NULL);
        for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *name;

            if (!gelf_getsym(d, (int)i, &sym))
                continue;
            name = elf_strptr(e, sh.sh_link, sym.st_name);
            if (name && strcmp(name, "vadd") == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
                addr = sym.st_value;
        }
    }
    elf_end(e);
    assert_true(addr != 0);
    return addr + STORE_KERNEL_OFFSET;
}

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
    assert_int_equal(gc_srcline_lookup(s, store_offset(co, size), &r), GPUCORE_OK);
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
    uint8_t *co = slurp("vadd.plain.gfx90a.co", &size);
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
    uint64_t store = store_offset(co, size);

    (void)state;
    for (size_t n = 1; n < size; n += (n + 4096 < size ? 97 : 1)) {
        uint8_t *copy = malloc(n);
        struct gc_srcline *s = NULL;

        assert_non_null(copy);
        memcpy(copy, co, n);
        if (gc_srcline_open(copy, n, &s) == GPUCORE_OK) {
            gpucore_status_t st = gc_srcline_lookup(s, store, &r);

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
            gpucore_status_t st = gc_srcline_lookup(s, store, &r);

            if (st == GPUCORE_OK)
                assert_true(r.nframes >= 1 && r.nframes <= GC_SRCLINE_MAX_FRAMES);
            gc_srcline_close(s);
        }
        co[i] ^= 0xff;
    }
    free(co);
}

/* ---- A unit of DIEs nested `depth` deep, in a minimal ELF64 (generated, not committed) ---- */

static size_t put(uint8_t *b, size_t at, const void *p, size_t n)
{
    memcpy(b + at, p, n);
    return at + n;
}

static size_t put_le(uint8_t *b, size_t at, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        b[at + i] = (uint8_t)(v >> (8 * i));
    return at + n;
}

/* .debug_abbrev: 1 = compile_unit, 2 = lexical_block, both with children and
   DW_AT_low_pc (DW_FORM_addr) and DW_AT_high_pc (DW_FORM_data8, a length). */
static const uint8_t abbrev[] = { 1, 0x11, 1, 0x11, 0x01, 0x12, 0x07, 0, 0,
                                  2, 0x0b, 1, 0x11, 0x01, 0x12, 0x07, 0, 0, 0 };

static uint8_t *nested_elf(uint32_t depth, size_t *ret_size)
{
    size_t info_size = 4 + 8 + (size_t)(depth + 1) * 17 + depth + 1;
    static const char shstr[] = "\0.debug_info\0.debug_abbrev\0.shstrtab";
    size_t off_info = 64, off_abbrev = off_info + info_size;
    size_t off_shstr = off_abbrev + sizeof(abbrev), off_sh = (off_shstr + sizeof(shstr) + 7) & ~7u;
    size_t size = off_sh + 4 * 64, at;
    uint8_t *b = calloc(1, size);
    struct { uint32_t name, type; size_t off, size; } sec[4] = {
        { 0, 0, 0, 0 },
        { 1, 1 /* SHT_PROGBITS */, off_info, info_size },
        { 13, 1, off_abbrev, sizeof(abbrev) },
        { 27, 3 /* SHT_STRTAB */, off_shstr, sizeof(shstr) },
    };

    assert_non_null(b);
    /* ELF header: ELF64, little-endian, ET_DYN, EM_AMDGPU. */
    put(b, 0, "\x7f" "ELF\x02\x01\x01", 7);
    put_le(b, 16, 3, 2);
    put_le(b, 18, 224, 2);
    put_le(b, 20, 1, 4);
    put_le(b, 40, off_sh, 8);
    put_le(b, 52, 64, 2);
    put_le(b, 58, 64, 2);
    put_le(b, 60, 4, 2);
    put_le(b, 62, 3, 2);
    /* .debug_info: a DWARF 5 compile unit, then depth nested blocks covering [0x1000, 0x2000). */
    at = put_le(b, off_info, info_size - 4, 4);
    at = put_le(b, at, 5, 2);
    at = put_le(b, at, 1 /* DW_UT_compile */, 1);
    at = put_le(b, at, 8, 1);
    at = put_le(b, at, 0, 4);
    for (uint32_t i = 0; i <= depth; i++) {
        at = put_le(b, at, i ? 2 : 1, 1);
        at = put_le(b, at, 0x1000, 8);
        at = put_le(b, at, 0x1000, 8);
    }
    at += depth + 1; /* the children lists' terminators (zeros) */
    assert_int_equal(at, off_abbrev);
    put(b, off_abbrev, abbrev, sizeof(abbrev));
    put(b, off_shstr, shstr, sizeof(shstr));
    for (int i = 1; i < 4; i++) {
        uint8_t *sh = b + off_sh + (size_t)i * 64;

        put_le(sh, 0, sec[i].name, 4);
        put_le(sh, 4, sec[i].type, 4);
        put_le(sh, 24, sec[i].off, 8);
        put_le(sh, 32, sec[i].size, 8);
        put_le(sh, 48, 1, 8);
    }
    *ret_size = size;
    return b;
}

/* libdw's dwarf_getscopes recurses once per nesting level: a unit 500,000 levels deep (8.5 MB
   of DWARF) overflowed the stack; srcline's own walk refuses it with GPUCORE_E_LIMIT. A
   shallow one is walked (no function covers the PC: GPUCORE_E_NOTFOUND). */
static void test_deep_nesting(void **state)
{
    static const struct { uint32_t depth; gpucore_status_t want; } cases[] = {
        { 8, GPUCORE_E_NOTFOUND },
        { GC_SRCLINE_MAX_DEPTH - 2, GPUCORE_E_NOTFOUND },
        { GC_SRCLINE_MAX_DEPTH, GPUCORE_E_LIMIT },
        { 500000, GPUCORE_E_LIMIT },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t size;
        uint8_t *elf = nested_elf(cases[i].depth, &size);
        struct gc_srcline *s = NULL;
        struct gc_srcline_result r;

        assert_int_equal(gc_srcline_open(elf, size, &s), GPUCORE_OK);
        assert_int_equal(gc_srcline_lookup(s, 0x1800, &r), cases[i].want);
        gc_srcline_close(s);
        free(elf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline_chain),
        cmocka_unit_test(test_no_dwarf),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_truncated_and_flipped),
        cmocka_unit_test(test_deep_nesting),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
