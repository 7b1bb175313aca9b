/* SPDX-License-Identifier: MIT */
/*
 * The device printf decoder (analyze/devprintf.c) on synthetic amdhsa.printf entries and
 * buffers laid out as docs/device-printf.md says the device writes them: an 8-byte header
 * (used, size), then records of a u32 id and the arguments' bytes. The expected texts are what
 * C's printf prints for the same conversion and value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "devprintf.h"

/* An amdhsa.printf entry (the parser takes the metadata's char * strings). */
#define E(s) ((char *)(s))

/* A buffer under construction: records appended after the header; finish() writes it. */
struct bb {
    uint8_t b[64 << 10];
    uint32_t n;
};

static void w32(struct bb *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->b[b->n++] = (uint8_t)(v >> (8 * i));
}

static void w64(struct bb *b, uint64_t v)
{
    w32(b, (uint32_t)v);
    w32(b, (uint32_t)(v >> 32));
}

static void wbytes(struct bb *b, const void *p, uint32_t n)
{
    memcpy(b->b + b->n, p, n);
    b->n += n;
}

static void start(struct bb *b)
{
    memset(b, 0, sizeof(*b));
    b->n = GC_DP_HEADER;
}

/* The header as the runtime and the kernels leave it: used = the records' bytes. */
static void finish(struct bb *b, uint32_t size)
{
    uint32_t used = b->n - GC_DP_HEADER, n = b->n;

    b->n = 0;
    w32(b, used);
    w32(b, size);
    b->n = n;
}

static struct gc_dp_formats *formats(char *const *s, uint32_t n)
{
    struct gc_dp_formats *f = NULL;
    gpucore_diag_t d = { 0 };

    if (gc_dp_formats_parse(s, n, &f, &d) != GPUCORE_OK)
        fail_msg("formats: %s", d.message);
    return f;
}

static struct gc_dp_buffer *decode(const struct gc_dp_formats *f, const struct bb *b,
                                   uint64_t held)
{
    struct gc_dp_buffer *out = NULL;
    gpucore_diag_t d = { 0 };

    if (gc_dp_decode(f, b->b, held, &out, &d) != GPUCORE_OK)
        fail_msg("decode: %s", d.message);
    return out;
}

/* Each format with its argument bytes, one record each, and the text C's printf gives. */
static void test_conversions(void **state)
{
    static char *entries[] = {
        E("1:2:4:8:%d %ld"),              /* int, long: negative values */
        E("2:4:4:4:4:4:%u %x %hhx %hd"),  /* unsigned views of widened values */
        E("3:3:4:8:4:%f %.2f %e"),        /* float (its bits), double, float */
        E("4:3:8:4:4:<%s|%s|%s>"),        /* a literal, the empty literal word, a non-literal */
        E("5:1:4:100%% %c"),              /* %% and %c */
        E("6:4:4:4:4:4:[%5d][%-5d][%05d][%+d]"), /* width, flags */
        E("7:2:4:8:%#x %p"),              /* alternate form, pointer */
        E("8:1:4:%.3s"),                  /* precision of a string */
        E("9:2:4:8:%g %G"),               /* %g of a float and a double */
    };
    static const char *want[] = {
        "-5 -1234567890123",
        "4294967291 ff ff -32768",
        "1.500000 2.25 -1.250000e+00",
        "<hello||\?\?\?>",
        "100% A",
        "[   42][42   ][00042][+7]",
        "0x2a 0x7f0012345678",
        "abc",
        "0.1 1E+100",
    };
    struct gc_dp_formats *f = formats(entries, 9);
    struct gc_dp_buffer *out;
    struct bb *b = calloc(1, sizeof(*b));

    (void)state;
    start(b);
    w32(b, 1), w32(b, 0xfffffffbu), w64(b, (uint64_t)-1234567890123ll);
    w32(b, 2), w32(b, 0xfffffffbu), w32(b, 0xffu), w32(b, 0xffu), w32(b, 0xffff8000u);
    w32(b, 3), w32(b, 0x3fc00000u), w64(b, 0x4002000000000000ull), w32(b, 0xbfa00000u);
    w32(b, 4), wbytes(b, "hello\0\0\0", 8), w32(b, 0xffffff00u), wbytes(b, "???", 4);
    w32(b, 5), w32(b, 'A');
    w32(b, 6), w32(b, 42), w32(b, 42), w32(b, 42), w32(b, 7);
    w32(b, 7), w32(b, 42), w64(b, 0x7f0012345678ull);
    w32(b, 8), wbytes(b, "abcd", 4);
    w32(b, 9), w32(b, 0x3dcccccdu), w64(b, 0x54b249ad2594c37dull);
    finish(b, 4096);
    out = decode(f, b, b->n);
    assert_string_equal(out->problem, "");
    assert_int_equal(out->truncated, 0);
    assert_int_equal(out->used, b->n - 8);
    assert_int_equal(out->size, 4096);
    assert_int_equal(out->nrecords, 9);
    for (uint32_t i = 0; i < 9; i++)
        assert_string_equal(out->records[i].text, want[i]);
    assert_int_equal(out->records[0].offset, 8);
    assert_int_equal(out->records[1].offset, 8 + 16); /* id, 4 + 8 bytes of arguments */
    gc_dp_buffer_free(out);
    gc_dp_formats_free(f);
    free(b);
}

/* The compiler's escapes are undone (\72 is ':'); control bytes and backslashes of the text
   come out as C escapes, the format too. */
static void test_escapes(void **state)
{
    static char *entries[] = {
        E("1:1:4:check\\72 in[%d]\\n"),   /* the trap.cl entry's shape */
        E("2:0:bell\\a tab\t back\\q\\72\\72"),
    };
    struct gc_dp_formats *f = formats(entries, 2);
    struct gc_dp_buffer *out;
    struct bb *b = calloc(1, sizeof(*b));
    char esc[64];

    (void)state;
    assert_string_equal(f->f[0].format, "check: in[%d]\n");
    assert_string_equal(f->f[1].format, "bell\a tab\t back\\q::");
    start(b);
    w32(b, 1), w32(b, 1536);
    w32(b, 2);
    finish(b, 256);
    out = decode(f, b, b->n);
    assert_int_equal(out->nrecords, 2);
    assert_string_equal(out->records[0].text, "check: in[1536]\\n");
    assert_string_equal(out->records[1].text, "bell\\a tab\\t back\\\\q::");
    gc_dp_buffer_free(out);
    gc_dp_escape("\x1b[0m\xff", 5, esc, sizeof(esc));
    assert_string_equal(esc, "\\x1b[0m\\xff");
    gc_dp_escape("abcdefgh", 8, esc, 8);
    assert_string_equal(esc, "abcd..."); /* 7 bytes and the NUL */
    gc_dp_formats_free(f);
    free(b);
}

/* A %c of NUL and a string without NUL: lengths, not C strings, make the text. */
static void test_nul_bytes(void **state)
{
    static char *entries[] = { E("1:2:4:4:[%c][%s]") };
    struct gc_dp_formats *f = formats(entries, 1);
    struct gc_dp_buffer *out;
    struct bb *b = calloc(1, sizeof(*b));

    (void)state;
    start(b);
    w32(b, 1), w32(b, 0), wbytes(b, "wxyz", 4);
    finish(b, 64);
    out = decode(f, b, b->n);
    assert_string_equal(out->records[0].text, "[\\x00][wxyz]");
    gc_dp_buffer_free(out);
    gc_dp_formats_free(f);
    free(b);
}

/* Sizes that do not match the conversions, and widths past the bound: not trusted, not
   formatted, but walked (the sizes still give the record's length). */
static void test_mismatch(void **state)
{
    static char *entries[] = {
        E("1:1:2:%d"),        /* 2 bytes for a %d */
        E("2:2:4:4:%d"),      /* 2 sizes, 1 conversion */
        E("3:1:4:%300d"),     /* width past GC_DP_MAX_WIDTH */
        E("4:1:4:%.999f"),    /* precision past it */
        E("5:1:4:%*d"),       /* '*' */
        E("6:1:4:%k"),        /* no such conversion */
        E("7:1:6:%s"),        /* a string not padded to 4 */
        E("8:1:16:%v4d"),     /* a vector: listed as words */
        E("9:1:4:%256d"),     /* the bound itself is fine */
    };
    struct gc_dp_formats *f = formats(entries, 9);
    struct gc_dp_buffer *out;
    struct bb *b = calloc(1, sizeof(*b));

    (void)state;
    assert_non_null(strstr(f->f[0].mismatch, "argument 1 (%d) has 2 bytes"));
    assert_non_null(strstr(f->f[1].mismatch, "1 conversions, the metadata 2 argument sizes"));
    assert_non_null(strstr(f->f[2].mismatch, "a width or precision above 256"));
    assert_non_null(strstr(f->f[3].mismatch, "a width or precision above 256"));
    assert_non_null(strstr(f->f[4].mismatch, "'*'"));
    assert_non_null(strstr(f->f[5].mismatch, "'%k'"));
    assert_non_null(strstr(f->f[6].mismatch, "argument 1 (%s) has 6 bytes"));
    assert_string_equal(f->f[7].mismatch, "");
    assert_string_equal(f->f[8].mismatch, "");
    start(b);
    w32(b, 1), wbytes(b, "\x01\x02", 2);
    w32(b, 3), w32(b, 5);
    w32(b, 8), w32(b, 1), w32(b, 2), w32(b, 3), w32(b, 0xffffffffu);
    w32(b, 9), w32(b, 5);
    finish(b, 256);
    /* the 2-byte record leaves the next id unaligned: the walk follows the sizes */
    out = decode(f, b, b->n);
    assert_string_equal(out->problem, "");
    assert_int_equal(out->nrecords, 4);
    assert_null(out->records[0].text);
    assert_int_equal(out->records[1].offset, 8 + 6);
    assert_null(out->records[1].text);
    assert_string_equal(out->records[2].text,
                        "<%v4d not formatted: 0x00000001 0x00000002 0x00000003 0xffffffff>");
    assert_int_equal(strlen(out->records[3].text), 256);
    assert_string_equal(out->records[3].text + 255, "5");
    gc_dp_buffer_free(out);
    gc_dp_formats_free(f);
    free(b);
}

/* Where the walk stops: an unknown id, a record past the used bytes, a header that does not
   add up, fewer bytes in the core than used (truncated), no records at all. */
static void test_walk_stops(void **state)
{
    static char *entries[] = { E("1:1:4:%d\\n") };
    struct gc_dp_formats *f = formats(entries, 1);
    struct gc_dp_buffer *out;
    struct gc_dp_buffer *none = NULL;
    struct bb *b = calloc(1, sizeof(*b));
    gpucore_diag_t d = { 0 };
    char hex[32];
    uint32_t at = 0;

    (void)state;
    /* unknown id after a good record */
    start(b);
    w32(b, 1), w32(b, 7);
    w32(b, 9), w32(b, 7);
    finish(b, 64);
    out = decode(f, b, b->n);
    assert_int_equal(out->nrecords, 1);
    assert_string_equal(out->problem, "offset 16: printf id 9 is not one of the 1 formats of "
                                      "the code object's amdhsa.printf: the walk stops there");
    gc_dp_arg_hex(&out->records[0], b->b, 0, hex, sizeof(hex), &at);
    assert_string_equal(hex, "0x00000007");
    assert_int_equal(at, 12);
    gc_dp_buffer_free(out);

    /* truncated: the core holds the first record and half of the second */
    start(b);
    w32(b, 1), w32(b, 7);
    w32(b, 1), w32(b, 8);
    finish(b, 64);
    out = decode(f, b, 22);
    assert_int_equal(out->truncated, 1);
    assert_int_equal(out->nrecords, 1);
    assert_string_equal(out->problem, "");
    assert_int_equal(out->held, 22);
    gc_dp_buffer_free(out);

    /* a record past the used bytes */
    start(b);
    w32(b, 1), w32(b, 7);
    finish(b, 64);
    b->b[0] = 6; /* used 6: the 8-byte record does not fit */
    out = decode(f, b, b->n);
    assert_int_equal(out->nrecords, 0);
    assert_non_null(strstr(out->problem, "offset 8: the record of printf id 1 (8 bytes) ends "
                                         "past the 6 bytes the header says are used"));
    gc_dp_buffer_free(out);

    /* used larger than the buffer after its header */
    start(b);
    finish(b, 64);
    b->b[0] = 57;
    out = decode(f, b, b->n);
    assert_int_equal(out->nrecords, 0);
    assert_int_equal(out->truncated, 0);
    assert_non_null(strstr(out->problem, "the header says 57 bytes of messages in a 64-byte "
                                         "buffer"));
    gc_dp_buffer_free(out);

    /* a size smaller than the header itself */
    start(b);
    finish(b, 4);
    out = decode(f, b, b->n);
    assert_non_null(strstr(out->problem, "in a 4-byte buffer"));
    gc_dp_buffer_free(out);

    /* no records */
    start(b);
    finish(b, 4096);
    out = decode(f, b, 4096);
    assert_int_equal(out->nrecords, 0);
    assert_int_equal(out->truncated, 0);
    assert_string_equal(out->problem, "");
    gc_dp_buffer_free(out);

    /* the header not there */
    assert_int_equal(gc_dp_decode(f, b->b, 7, &none, &d), GPUCORE_E_UNAVAILABLE);
    assert_null(none);
    assert_non_null(strstr(d.message, "fewer than its 8-byte header"));
    gc_dp_formats_free(f);
    free(b);
}

/* More records than GC_DP_MAX_RECORDS: the first ones decoded, the rest said. A text longer
   than GC_DP_MAX_TEXT is cut with "...". */
static void test_bounds(void **state)
{
    static char *entries[] = { E("1:0:x"), E("2:1:4:%256d%256d") };
    char *long_entry = malloc(2048);
    char *both[2];
    struct gc_dp_formats *f = formats(entries, 2), *g;
    struct gc_dp_buffer *out;
    struct bb *b = calloc(1, sizeof(*b));

    (void)state;
    start(b);
    for (uint32_t i = 0; i < GC_DP_MAX_RECORDS + 5; i++)
        w32(b, 1);
    finish(b, 64 << 10);
    out = decode(f, b, b->n);
    assert_int_equal(out->nrecords, GC_DP_MAX_RECORDS);
    assert_non_null(strstr(out->problem, "only the first 1024 messages are decoded"));
    gc_dp_buffer_free(out);
    gc_dp_formats_free(f);

    memset(long_entry, 'y', 2047);
    memcpy(long_entry, "1:0:", 4);
    long_entry[2047] = '\0';
    both[0] = long_entry;
    both[1] = E("2:0:\x01");
    g = formats(both, 2);
    start(b);
    w32(b, 1);
    w32(b, 2);
    finish(b, 64);
    out = decode(g, b, b->n);
    assert_int_equal(strlen(out->records[0].text), GC_DP_MAX_TEXT + 3);
    assert_string_equal(out->records[0].text + GC_DP_MAX_TEXT, "...");
    assert_string_equal(out->records[1].text, "\\x01");
    gc_dp_buffer_free(out);
    gc_dp_formats_free(g);
    free(long_entry);
    free(b);
}

/* Entries that are not "ID:N:S1:...:SN:FORMAT": refused, naming the entry. */
static void test_bad_entries(void **state)
{
    static const struct {
        const char *entry;
        gpucore_status_t st;
        const char *message;
    } cases[] = {
        { "x:1:4:%d", GPUCORE_E_CORRUPT, "amdhsa.printf[0]: no printf id from 1" },
        { "0:0:x", GPUCORE_E_CORRUPT, "amdhsa.printf[0]: no printf id from 1" },
        { "1:65:x", GPUCORE_E_LIMIT, "amdhsa.printf[0]: more than 64 arguments" },
        { "1:1:4097:%s", GPUCORE_E_LIMIT, "argument 1 of more than 4096 bytes" },
        { "1:2:4:%d", GPUCORE_E_CORRUPT, "2 argument sizes announced, 1 found" },
        { "1:x", GPUCORE_E_CORRUPT, "no argument count after the id" },
        { "99999999999:0:x", GPUCORE_E_CORRUPT, "no printf id from 1" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *one[1] = { E(cases[i].entry) };
        struct gc_dp_formats *f = NULL;
        gpucore_diag_t d = { 0 };

        assert_int_equal(gc_dp_formats_parse(one, 1, &f, &d), cases[i].st);
        assert_null(f);
        if (!strstr(d.message, cases[i].message))
            fail_msg("case %zu: '%s' lacks '%s'", i, d.message, cases[i].message);
    }
    {
        char *two[2] = { E("3:0:a"), E("3:0:b") };
        struct gc_dp_formats *f = NULL;
        gpucore_diag_t d = { 0 };

        assert_int_equal(gc_dp_formats_parse(two, 2, &f, &d), GPUCORE_E_CORRUPT);
        assert_non_null(strstr(d.message, "printf id 3 is given twice"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions), cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_nul_bytes),   cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_walk_stops),  cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_bad_entries),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
