/* SPDX-License-Identifier: MIT */
/*
 * test_base: the base helpers every module uses (base/): status names and messages, failure
 * detail, overflow-checked allocation, the byte buffer, text helpers and the little-endian
 * codecs. Linked with gc_base alone, so it also proves that base depends on nothing of gpucore.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gpucore/status.h>

#include "gc_le.h"
#include "gc_util.h"

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

/* Every status of the list has its own name and message; unknown values get the fallbacks. */
static void test_status_names(void **state)
{
    static const struct {
        gpucore_status_t status;
        const char *name;
        const char *message;
    } rows[] = {
#define ROW_(name, value, msg) { name, #name, msg },
        GPUCORE_STATUS_LIST(ROW_)
#undef ROW_
    };

    (void)state;
    for (size_t i = 0; i < GC_ARRAY_SIZE(rows); i++) {
        assert_string_equal(gpucore_status_name(rows[i].status), rows[i].name);
        assert_string_equal(gpucore_strerror(rows[i].status), rows[i].message);
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(rows[i].status, rows[j].status);
    }
    assert_string_equal(gpucore_status_name(GPUCORE_OK), "GPUCORE_OK");
    assert_string_equal(gpucore_status_name((gpucore_status_t)-1000), "GPUCORE_E_UNKNOWN");
    assert_string_equal(gpucore_strerror((gpucore_status_t)42), "unknown status");
}

static void test_diag(void **state)
{
    gpucore_diag_t d;
    char long_name[400];

    (void)state;
    /* NULL diag: only the status comes back. */
    assert_int_equal(gc_diag_set(NULL, GPUCORE_E_CORRUPT, 5, "x"), GPUCORE_E_CORRUPT);
    gc_diag_prefix(NULL, "ignored");

    assert_int_equal(gc_diag_set(&d, GPUCORE_E_TRUNCATED, 0x40, "need %d bytes", 8),
                     GPUCORE_E_TRUNCATED);
    assert_int_equal(d.status, GPUCORE_E_TRUNCATED);
    assert_int_equal(d.flags, GPUCORE_DIAG_HAS_OFFSET);
    assert_int_equal(d.offset, 0x40);
    assert_string_equal(d.message, "need 8 bytes");
    gc_diag_prefix(&d, "%s", "core.1");
    assert_string_equal(d.message, "core.1: need 8 bytes");

    /* No offset: the flag is clear and the offset zero. */
    gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET, "bad");
    assert_int_equal(d.flags, 0);
    assert_int_equal(d.offset, 0);

    /* A prefix that fills the message leaves it NUL-terminated and cut. */
    memset(long_name, 'a', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    gc_diag_prefix(&d, "%s", long_name);
    assert_int_equal(strlen(d.message), GPUCORE_DIAG_MESSAGE_SIZE - 1);
}

static void test_alloc_overflow(void **state)
{
    void *p;

    (void)state;
    assert_null(gc_calloc_array(SIZE_MAX / 2, 4));
    assert_null(gc_realloc_array(NULL, SIZE_MAX / 8, 16));
    /* Zero-sized requests still give a pointer the caller frees. */
    p = gc_calloc_array(0, 0);
    assert_non_null(p);
    gc_free(p);
    p = gc_malloc(0);
    assert_non_null(p);
    gc_free(p);
}

static void test_buf(void **state)
{
    struct gc_buf b;
    uint8_t *data;
    size_t len;

    (void)state;
    gc_buf_init(&b);
    gc_buf_put8(&b, 0x11);
    gc_buf_put16(&b, 0x2233);
    gc_buf_pad(&b, 4);
    gc_buf_put32(&b, 0x44556677u);
    gc_buf_put64(&b, 0x8899aabbccddeeffull);
    assert_int_equal(gc_buf_status(&b), GPUCORE_OK);
    assert_int_equal(b.len, 16);
    assert_int_equal(b.data[0], 0x11);
    assert_int_equal(gc_le16_get(b.data + 1), 0x2233);
    assert_int_equal(b.data[3], 0);
    assert_int_equal(gc_le32_get(b.data + 4), 0x44556677u);
    assert_true(gc_le64_get(b.data + 8) == 0x8899aabbccddeeffull);
    /* little-endian on any host: the low byte first */
    assert_int_equal(b.data[4], 0x77);

    /* A request that would overflow the length sets the sticky error; later appends do
       nothing. */
    assert_null(gc_buf_grow(&b, SIZE_MAX));
    assert_int_equal(gc_buf_status(&b), GPUCORE_E_NOMEM);
    gc_buf_put32(&b, 1);
    assert_int_equal(b.len, 16);

    data = gc_buf_steal(&b, &len);
    assert_int_equal(len, 16);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    gc_free(data);
    gc_buf_done(&b);
}

static void test_text(void **state)
{
    char buf[8];
    char size[32];
    size_t len = 0;

    (void)state;
    gc_str_appendf(buf, sizeof(buf), &len, "%s", "abc");
    gc_str_appendf(buf, sizeof(buf), &len, "%d", 12345);
    assert_string_equal(buf, "abc1234");
    assert_int_equal(len, 7);
    gc_str_appendf(buf, sizeof(buf), &len, "more");
    assert_string_equal(buf, "abc1234");
    assert_int_equal(len, 7);

    assert_string_equal(gc_format_size(512, size, sizeof(size)), "512 B");
    assert_string_equal(gc_format_size(1536, size, sizeof(size)), "1.5 KiB");
    assert_string_equal(gc_format_size(3ull << 30, size, sizeof(size)), "3.0 GiB");
    assert_string_equal(gc_format_size(UINT64_MAX, size, sizeof(size)), "16384.0 PiB");
}

/* UTF-8 scrubbing: a broken sequence's bytes each become '?', the ASCII after them stays, and
   well-formed text (NUL included) is left alone. */
static void test_utf8_scrub(void **state)
{
    static const struct {
        const char *in, *out;
        size_t n, fixed;
    } cases[] = {
        { "plain", "plain", 5, 0 },
        { "h\xc3\xb6st", "h\xc3\xb6st", 5, 0 },
        { "a\0b", "a\0b", 3, 0 },
        { "inf\xe9", "inf?", 4, 1 },
        { "\xe2\x82" "A", "??A", 3, 2 },    /* a sequence cut short, then ASCII */
        { "\xc0\xaf", "??", 2, 2 },          /* overlong '/' */
        { "\xed\xa0\x80", "???", 3, 3 },    /* a surrogate */
        { "\xf4\x90\x80\x80", "????", 4, 4 }, /* above U+10FFFF */
        { "\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!", 5, 0 },
    };
    size_t bad;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[16];

        memcpy(buf, cases[i].in, cases[i].n);
        assert_int_equal(gc_utf8_scrub(buf, cases[i].n), cases[i].fixed);
        assert_memory_equal(buf, cases[i].out, cases[i].n);
        assert_true(gc_utf8_valid((const uint8_t *)buf, cases[i].n, &bad));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_grow),  cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_diag),        cmocka_unit_test(test_alloc_overflow),
        cmocka_unit_test(test_buf),         cmocka_unit_test(test_text), cmocka_unit_test(test_utf8_scrub),
    };

    return cmocka_run_group_tests_name("base: the helpers every module uses", tests, NULL, NULL);
}
