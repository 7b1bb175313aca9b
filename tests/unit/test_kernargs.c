/* SPDX-License-Identifier: MIT */
/*
 * analyze/kernargs: the NT_AMDGPU_METADATA parser on real code objects compiled from the
 * scenario kernels (with and without -cl-kernel-arg-info), on MessagePack documents the test
 * builds with msgpack-c's packer, and on broken ones (every truncation, wrong types, huge
 * counts, deep nesting, limits); argument values formatted from kernarg bytes.
 */
#include <msgpack.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "kernargs.h"
#include "triage_internal.h"

/* ASan reserves terabytes of shadow memory: an address-space limit only applies without it. */
#if defined(__SANITIZE_ADDRESS__)
#define KA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KA_ASAN 1
#endif
#endif

/* ---- helpers ------------------------------------------------------------------------------ */

static uint8_t *read_file(const char *path, size_t *ret_size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *ret_size = (size_t)n;
    return buf;
}

static void pack_str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

/* One argument map: name NULL leaves .name out; offset_as_string packs .offset as a string. */
static void pack_arg(msgpack_packer *pk, const char *name, const char *type, const char *kind,
                     const char *space, unsigned offset, unsigned size, int offset_as_string)
{
    msgpack_pack_map(pk, 3u + !!name + !!type + !!space);
    if (name) {
        pack_str(pk, ".name");
        pack_str(pk, name);
    }
    if (type) {
        pack_str(pk, ".type_name");
        pack_str(pk, type);
    }
    pack_str(pk, ".value_kind");
    pack_str(pk, kind);
    if (space) {
        pack_str(pk, ".address_space");
        pack_str(pk, space);
    }
    pack_str(pk, ".offset");
    if (offset_as_string)
        pack_str(pk, "0");
    else
        msgpack_pack_unsigned_int(pk, offset);
    pack_str(pk, ".size");
    msgpack_pack_unsigned_int(pk, size);
}

/* {"amdhsa.version": [1, 2], "amdhsa.kernels": [{k, 5 args with a hidden one}]} */
static void pack_doc(msgpack_sbuffer *sb, int offset_as_string)
{
    msgpack_packer pk;

    msgpack_sbuffer_init(sb);
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    pack_str(&pk, "amdhsa.version");
    msgpack_pack_array(&pk, 2);
    msgpack_pack_unsigned_int(&pk, 1);
    msgpack_pack_unsigned_int(&pk, 2);
    pack_str(&pk, "amdhsa.kernels");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 4);
    pack_str(&pk, ".name");
    pack_str(&pk, "k");
    pack_str(&pk, ".symbol");
    pack_str(&pk, "k.kd");
    pack_str(&pk, ".kernarg_segment_size");
    msgpack_pack_unsigned_int(&pk, 40);
    pack_str(&pk, ".args");
    msgpack_pack_array(&pk, 5);
    pack_arg(&pk, "p", "float*", "global_buffer", "global", 0, 8, offset_as_string);
    pack_arg(&pk, "x", "float", "by_value", NULL, 8, 4, 0);
    pack_arg(&pk, "i", "int", "by_value", NULL, 12, 4, 0);
    pack_arg(&pk, "s", "struct S", "by_value", NULL, 16, 16, 0);
    pack_arg(&pk, NULL, NULL, "hidden_global_offset_x", NULL, 32, 8, 0);
}

static gpucore_status_t parse(const void *buf, size_t size, gpucore_diag_t *d)
{
    struct gc_ka_metadata *md = (void *)1;
    gpucore_status_t st;

    memset(d, 0, sizeof(*d));
    st = gc_ka_parse(buf, size, &md, d);
    if (st == GPUCORE_OK)
        gc_ka_free(md);
    else
        assert_null(md);
    return st;
}

static void expect_fail(const void *buf, size_t size, gpucore_status_t want, const char *msg)
{
    gpucore_diag_t d;
    gpucore_status_t st = parse(buf, size, &d);

    if (st != want || !strstr(d.message, msg))
        fail_msg("status %d message '%s', expected %d and '%s'", st, d.message, want, msg);
}

/* ---- real code objects ---------------------------------------------------------------------- */

static void check_vadd(const char *path, int named)
{
    size_t size = 0;
    uint8_t *elf = read_file(path, &size);
    struct gc_ka_metadata *md = NULL;
    const struct gc_ka_kernel *k;
    gpucore_diag_t d = { 0 };
    static const char *const names[] = { "a", "b", "c", "n" };
    static const char *const types[] = { "float*", "float*", "float*", "int" };
    static const char *const kinds[] = { "global_buffer", "global_buffer", "global_buffer",
                                         "by_value" };

    if (!elf)
        fail_msg("cannot read %s (build the scenario-objects target)", path);
    assert_int_equal(gc_ka_from_elf(elf, size, &md, &d), GPUCORE_OK);
    k = gc_ka_find(md, "vadd");
    assert_non_null(k);
    assert_ptr_equal(gc_ka_find(md, "vadd.kd"), k);
    assert_null(gc_ka_find(md, "vad"));
    assert_string_equal(k->symbol, "vadd.kd");
    assert_int_equal(k->kernarg_segment_size, 28);
    assert_int_equal(k->nargs, 4);
    for (uint32_t i = 0; i < 4; i++) {
        const struct gc_ka_arg *a = &k->args[i];

        assert_int_equal(a->offset, 8 * i);
        assert_int_equal(a->size, i < 3 ? 8 : 4);
        assert_string_equal(a->type_name, types[i]);
        assert_string_equal(a->value_kind, kinds[i]);
        if (i < 3)
            assert_string_equal(a->address_space, "global");
        else
            assert_null(a->address_space);
        if (named)
            assert_string_equal(a->name, names[i]);
        else
            assert_null(a->name);
        assert_int_equal(gc_ka_is_pointer(a), i < 3);
        assert_false(gc_ka_is_hidden(a));
    }
    gc_ka_free(md);
    free(elf);
}

static void test_scenario_object(void **state)
{
    const char *dir = getenv("GPUCORE_SCENARIO_OBJECTS");
    char path[4096];

    (void)state;
    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/vadd.gfx90a.co", dir);
    check_vadd(path, 1);
    snprintf(path, sizeof(path), "%s/vadd.gfx1100.co", dir);
    check_vadd(path, 1);
}

static void test_unnamed_object(void **state)
{
    const char *p = getenv("GPUCORE_KERNARGS_OBJECT");

    (void)state;
    assert_non_null(p);
    check_vadd(p, 0);
}

static void test_not_elf(void **state)
{
    struct gc_ka_metadata *md = NULL;
    gpucore_diag_t d = { 0 };
    const uint8_t junk[64] = "not an ELF file";

    (void)state;
    assert_int_equal(gc_ka_from_elf(junk, sizeof(junk), &md, &d), GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, "not an ELF64 little-endian image"));
    assert_null(md);
}

/* A code object whose note is renamed: "no NT_AMDGPU_METADATA note". */
static void test_no_note(void **state)
{
    const char *dir = getenv("GPUCORE_SCENARIO_OBJECTS");
    char path[4096];
    size_t size = 0;
    uint8_t *elf;
    struct gc_ka_metadata *md = NULL;
    gpucore_diag_t d = { 0 };
    int renamed = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/vadd.gfx90a.co", dir);
    elf = read_file(path, &size);
    assert_non_null(elf);
    for (size_t i = 0; i + 7 <= size; i++)
        if (memcmp(elf + i, "AMDGPU\0", 7) == 0 && i >= 12 && elf[i - 4] == 32) {
            elf[i] = 'X';
            renamed++;
        }
    assert_int_equal(renamed, 1);
    assert_int_equal(gc_ka_from_elf(elf, size, &md, &d), GPUCORE_E_NOTFOUND);
    assert_string_equal(d.message, "the code object has no NT_AMDGPU_METADATA note");
    free(elf);
}

/* ---- crafted MessagePack ---------------------------------------------------------------- */

static void test_crafted(void **state)
{
    msgpack_sbuffer sb;
    struct gc_ka_metadata *md = NULL;
    gpucore_diag_t d = { 0 };
    const struct gc_ka_kernel *k;
    uint8_t seg[40];
    char text[256];
    uint64_t v = 0;
    float f = -2.5f;
    int32_t i = -7;
    uint64_t p = 0x7fc383804000ull;

    (void)state;
    pack_doc(&sb, 0);
    assert_int_equal(gc_ka_parse(sb.data, sb.size, &md, &d), GPUCORE_OK);
    k = gc_ka_find(md, "k");
    assert_non_null(k);
    assert_int_equal(k->nargs, 5);
    assert_null(k->args[4].name);
    assert_true(gc_ka_is_hidden(&k->args[4]));
    assert_true(gc_ka_is_pointer(&k->args[0]));
    assert_false(gc_ka_is_pointer(&k->args[1]));

    for (size_t b = 0; b < sizeof(seg); b++)
        seg[b] = (uint8_t)(b + 1);
    memcpy(seg, &p, 8);
    memcpy(seg + 8, &f, 4);
    memcpy(seg + 12, &i, 4);
    assert_int_equal(gc_ka_format_value(&k->args[0], seg, sizeof(seg), text, sizeof(text), &v),
                     GPUCORE_OK);
    assert_string_equal(text, "0x7fc383804000");
    assert_int_equal(v, p);
    assert_int_equal(gc_ka_format_value(&k->args[1], seg, sizeof(seg), text, sizeof(text), NULL),
                     GPUCORE_OK);
    assert_string_equal(text, "-2.5");
    assert_int_equal(gc_ka_format_value(&k->args[2], seg, sizeof(seg), text, sizeof(text), NULL),
                     GPUCORE_OK);
    assert_string_equal(text, "-7");
    assert_int_equal(gc_ka_format_value(&k->args[3], seg, sizeof(seg), text, sizeof(text), NULL),
                     GPUCORE_OK);
    assert_string_equal(text, "11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20");
    assert_int_equal(gc_ka_format_value(&k->args[4], seg, sizeof(seg), text, sizeof(text), NULL),
                     GPUCORE_OK);
    assert_string_equal(text, "2893323226570760737"); /* hidden counts/offsets: decimal */
    /* the hidden argument past the bytes available */
    assert_int_equal(gc_ka_format_value(&k->args[4], seg, 36, text, sizeof(text), NULL),
                     GPUCORE_E_UNAVAILABLE);
    assert_string_equal(text, "bytes 32..39 are past the 36 bytes of kernel arguments available");
    gc_ka_free(md);

    /* Every proper prefix is refused as malformed, never read past its end. */
    for (size_t n = 0; n < sb.size; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        gpucore_status_t st;

        assert_non_null(cut);
        memcpy(cut, sb.data, n);
        st = parse(cut, n, &d);
        if (st != GPUCORE_E_CORRUPT)
            fail_msg("a %zu-byte prefix: status %d (%s)", n, st, d.message);
        free(cut);
    }
    msgpack_sbuffer_destroy(&sb);

    pack_doc(&sb, 1);
    expect_fail(sb.data, sb.size, GPUCORE_E_CORRUPT,
                "amdhsa.kernels[0].args[0].offset: expected an unsigned integer, found a string");
    msgpack_sbuffer_destroy(&sb);
}

static void test_wrong_types(void **state)
{
    /* an array at the top */
    static const uint8_t top[] = { 0x91, 0x01 };
    /* {"amdhsa.kernels": 1} */
    static const uint8_t kernels_int[] = { 0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.',
                                           'k',  'e',  'r', 'n', 'e', 'l', 's', 0x01 };
    /* {"amdhsa.kernels": [5]} */
    static const uint8_t kernel_int[] = { 0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a',  '.',
                                          'k',  'e',  'r', 'n', 'e', 'l', 's', 0x91, 0x05 };
    /* {"amdhsa.kernels": [{}]}: no .name */
    static const uint8_t no_name[] = { 0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a',  '.',
                                       'k',  'e',  'r', 'n', 'e', 'l', 's', 0x91, 0x80 };
    /* {"x": 1} */
    static const uint8_t no_kernels[] = { 0x81, 0xa1, 'x', 0x01 };
    static const uint8_t never_used[] = { 0xc1 };

    (void)state;
    expect_fail(top, sizeof(top), GPUCORE_E_CORRUPT,
                "the metadata: expected a map, found an array");
    expect_fail(kernels_int, sizeof(kernels_int), GPUCORE_E_CORRUPT,
                "amdhsa.kernels: expected an array, found an unsigned integer");
    expect_fail(kernel_int, sizeof(kernel_int), GPUCORE_E_CORRUPT,
                "amdhsa.kernels[0]: expected a map, found an unsigned integer");
    expect_fail(no_name, sizeof(no_name), GPUCORE_E_CORRUPT, "amdhsa.kernels[0]: no .name member");
    expect_fail(no_kernels, sizeof(no_kernels), GPUCORE_E_NOTFOUND,
                "the metadata has no amdhsa.kernels member");
    expect_fail(never_used, sizeof(never_used), GPUCORE_E_CORRUPT,
                "byte 0 of the MessagePack metadata is 0xc1, not a type");
    expect_fail(NULL, 0, GPUCORE_E_CORRUPT, "the metadata is empty");
}

/*
 * Huge declared counts are refused before msgpack-c sees them: msgpack-c would allocate
 * 2^32 - 1 entries (about 100 GiB) up front. Run under a 1 GiB address-space limit, so that
 * the parser's answer, not an allocation failure, is what the test sees.
 */
static void test_huge_counts(void **state)
{
    static const uint8_t array32[] = { 0xdd, 0xff, 0xff, 0xff, 0xff, 0x00 };
    static const uint8_t map32[] = { 0x81, 0xa1, 'x', 0xdf, 0x7f, 0xff, 0xff, 0xff };
    static const uint8_t str32[] = { 0xdb, 0xff, 0xff, 0xff, 0xf0, 'a' };
    struct rlimit old, lim;
    uint8_t deep[40];
    msgpack_sbuffer sb;
    msgpack_packer pk;

    (void)state;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    lim = old;
    if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > (1ull << 30))
        lim.rlim_cur = 1ull << 30;
#ifndef KA_ASAN
    assert_int_equal(setrlimit(RLIMIT_AS, &lim), 0);
#endif
    expect_fail(array32, sizeof(array32), GPUCORE_E_CORRUPT,
                "a MessagePack array at byte 0 declares 4294967295 entries, more than the 1 "
                "bytes left");
    expect_fail(map32, sizeof(map32), GPUCORE_E_CORRUPT,
                "a MessagePack map at byte 3 declares 2147483647 entries, more than the 0 bytes "
                "left");
    expect_fail(str32, sizeof(str32), GPUCORE_E_CORRUPT, "inside a 4294967280-byte value");
    memset(deep, 0x91, sizeof(deep)); /* [[[[...]]]] 40 deep */
    deep[sizeof(deep) - 1] = 0x01;
    expect_fail(deep, sizeof(deep), GPUCORE_E_LIMIT,
                "the MessagePack metadata nests more than 16 maps and arrays");

    /* 4097 kernels, 1025 arguments, a 1025-byte name: past the limits */
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "amdhsa.kernels");
    msgpack_pack_array(&pk, GC_KA_MAX_KERNELS + 1);
    for (unsigned n = 0; n <= GC_KA_MAX_KERNELS; n++)
        msgpack_pack_map(&pk, 0);
    expect_fail(sb.data, sb.size, GPUCORE_E_LIMIT,
                "amdhsa.kernels: 4097 kernels, more than the 4096 allowed");
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "amdhsa.kernels");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 3);
    pack_str(&pk, ".name");
    pack_str(&pk, "k");
    pack_str(&pk, ".kernarg_segment_size");
    msgpack_pack_unsigned_int(&pk, 8);
    pack_str(&pk, ".args");
    msgpack_pack_array(&pk, GC_KA_MAX_ARGS + 1);
    for (unsigned n = 0; n <= GC_KA_MAX_ARGS; n++)
        msgpack_pack_nil(&pk);
    expect_fail(sb.data, sb.size, GPUCORE_E_LIMIT,
                "amdhsa.kernels[0].args: 1025 arguments, more than the 1024 allowed");
    msgpack_sbuffer_clear(&sb);
    {
        char name[GC_KA_MAX_STRING + 2];

        memset(name, 'n', sizeof(name) - 1);
        name[sizeof(name) - 1] = '\0';
        msgpack_pack_map(&pk, 1);
        pack_str(&pk, "amdhsa.kernels");
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 1);
        pack_str(&pk, ".name");
        pack_str(&pk, name);
        expect_fail(sb.data, sb.size, GPUCORE_E_LIMIT,
                    "amdhsa.kernels[0].name: a string of 1025 bytes, more than the 1024 allowed");
    }
    msgpack_sbuffer_clear(&sb);
    /* an argument ending past the 64 KiB a kernarg segment may have */
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "amdhsa.kernels");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 3);
    pack_str(&pk, ".name");
    pack_str(&pk, "k");
    pack_str(&pk, ".kernarg_segment_size");
    msgpack_pack_unsigned_int(&pk, 8);
    pack_str(&pk, ".args");
    msgpack_pack_array(&pk, 1);
    pack_arg(&pk, "a", "int", "by_value", NULL, 65534, 4, 0);
    expect_fail(sb.data, sb.size, GPUCORE_E_CORRUPT,
                "amdhsa.kernels[0].args[0]: offset 65534 and size 4 end past 65536 bytes");
    msgpack_sbuffer_destroy(&sb);
    {
        uint8_t *big = calloc(1, GC_KA_MAX_METADATA_SIZE + 1u);

        assert_non_null(big);
        expect_fail(big, GC_KA_MAX_METADATA_SIZE + 1u, GPUCORE_E_LIMIT,
                    "the metadata is 4194305 bytes, more than the 4194304 allowed");
        free(big);
    }
#ifndef KA_ASAN
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
#endif
}

/* Hidden arguments by kind: sizes and counts in decimal, the runtime's pointers (queue,
   printf buffer) as addresses. */
static void test_hidden_values(void **state)
{
    static const uint8_t seg[16] = { 0x00, 0x01, 0, 0, 0, 0, 0, 0,
                                     0x00, 0x40, 0x80, 0x83, 0xc3, 0x7f, 0, 0 };
    char k_group[] = "hidden_group_size_x", k_queue[] = "hidden_queue_ptr",
         k_printf[] = "hidden_printf_buffer";
    const struct gc_ka_arg group = { .value_kind = k_group, .offset = 0, .size = 2 };
    const struct gc_ka_arg queue = { .value_kind = k_queue, .offset = 8, .size = 8 };
    const struct gc_ka_arg printf_buf = { .value_kind = k_printf, .offset = 8, .size = 8 };
    char text[128];
    uint64_t v = 0;

    (void)state;
    assert_true(gc_ka_is_hidden(&group) && !gc_ka_is_pointer(&group));
    assert_int_equal(gc_ka_format_value(&group, seg, sizeof(seg), text, sizeof(text), &v),
                     GPUCORE_OK);
    assert_string_equal(text, "256");
    assert_true(gc_ka_is_hidden(&queue) && gc_ka_is_pointer(&queue));
    assert_int_equal(gc_ka_format_value(&queue, seg, sizeof(seg), text, sizeof(text), &v),
                     GPUCORE_OK);
    assert_string_equal(text, "0x7fc383804000");
    assert_int_equal(v, 0x7fc383804000ull);
    assert_true(gc_ka_is_pointer(&printf_buf));
    assert_int_equal(gc_ka_format_value(&printf_buf, seg, sizeof(seg), text, sizeof(text), NULL),
                     GPUCORE_OK);
    assert_string_equal(text, "0x7fc383804000");
}

/* A fault address is named as deriving from an explicit pointer argument, never from a hidden
   one (the runtime's queue or printf buffer), even when the hidden one is closer below it. */
static void test_fault_not_from_hidden(void **state)
{
    json_t *disp = json_pack("{s:[{s:s, s:b, s:s, s:n, s:s}, {s:s, s:b, s:s, s:n, s:s}]}",
                             "arguments", "name", "a", "hidden", 0, "value", "0x7f0000100000",
                             "allocation", "relation", "buffer a", "name", "hidden_queue_ptr",
                             "hidden", 1, "value", "0x7f0000200000", "allocation", "relation",
                             "queue");
    json_t *r;

    (void)state;
    assert_non_null(disp);
    r = gc_tr_fault_relation_json(NULL, NULL, 0x7f0000200010ull, disp);
    assert_non_null(r);
    assert_string_equal(json_string_value(json_object_get(r, "argument")), "a");
    assert_int_equal(json_integer_value(json_object_get(r, "argument_offset")), 0x100010);
    json_decref(r);
    /* below every explicit argument: no argument, though the hidden one is right there */
    json_object_set_new(json_array_get(json_object_get(disp, "arguments"), 0), "value",
                        json_string("0x7f0000300000"));
    r = gc_tr_fault_relation_json(NULL, NULL, 0x7f0000200010ull, disp);
    assert_true(json_is_null(json_object_get(r, "argument")));
    json_decref(r);
    json_decref(disp);
}

/* amdhsa.printf: the trap kernel's one printf, as LLVM 19 writes it (its ':' escaped as \72,
   its newline as backslash-n); a malformed member costs the formats, never the kernels. */
static void test_printf_formats(void **state)
{
    const char *dir = getenv("GPUCORE_SCENARIO_OBJECTS");
    char path[4096];
    size_t size = 0;
    uint8_t *elf;
    struct gc_ka_metadata *md = NULL;
    gpucore_diag_t d = { 0 };
    msgpack_sbuffer sb;
    msgpack_packer pk;

    (void)state;
    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/trap.gfx1100.co", dir);
    elf = read_file(path, &size);
    if (!elf)
        fail_msg("cannot read %s (build the scenario-objects target)", path);
    assert_int_equal(gc_ka_from_elf(elf, size, &md, &d), GPUCORE_OK);
    assert_int_equal(md->nprintf, 1);
    assert_string_equal(md->printf[0], "1:2:4:4:check\\72 in[%d] = %d is negative\\n");
    assert_string_equal(md->printf_error, "");
    gc_ka_free(md);
    free(elf);

    for (int bad = 0; bad < 2; bad++) {
        msgpack_sbuffer_init(&sb);
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 2);
        pack_str(&pk, "amdhsa.printf");
        if (bad == 0) {
            msgpack_pack_unsigned_int(&pk, 7);
        } else {
            msgpack_pack_array(&pk, 2);
            pack_str(&pk, "1:0:x");
            msgpack_pack_unsigned_int(&pk, 7);
        }
        pack_str(&pk, "amdhsa.kernels");
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 2);
        pack_str(&pk, ".name");
        pack_str(&pk, "k");
        pack_str(&pk, ".kernarg_segment_size");
        msgpack_pack_unsigned_int(&pk, 0);
        md = NULL;
        assert_int_equal(gc_ka_parse(sb.data, sb.size, &md, &d), GPUCORE_OK);
        assert_int_equal(md->nkernels, 1);
        assert_int_equal(md->nprintf, 0);
        assert_null(md->printf);
        assert_string_equal(md->printf_error,
                            bad == 0 ? "amdhsa.printf: expected an array, found an unsigned integer"
                                     : "amdhsa.printf[1]: expected a string, found an unsigned "
                                       "integer");
        gc_ka_free(md);
        msgpack_sbuffer_destroy(&sb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_object), cmocka_unit_test(test_unnamed_object),
        cmocka_unit_test(test_not_elf),         cmocka_unit_test(test_no_note),
        cmocka_unit_test(test_crafted),         cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_huge_counts),     cmocka_unit_test(test_hidden_values),
        cmocka_unit_test(test_fault_not_from_hidden), cmocka_unit_test(test_printf_formats),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
