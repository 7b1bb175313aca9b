/* SPDX-License-Identifier: MIT */
/*
 * Invariants of the schema tables (every layout and value table generated from the .def
 * files) and of the strict UTF-8 checker. A bad .def row fails here before it can produce a
 * wrong wire format or a broken FORMAT.md table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/schema.h>

#include "schema_internal.h"

int test_schema_tables_run(void);

static void test_layout_invariants(void **state)
{
    (void)state;
    assert_true(gc_layout_count >= 10);
    for (size_t i = 0; i < gc_layout_count; i++) {
        const struct gc_layout *L = gc_layouts[i];
        uint32_t end;
        int blob_off = 0, blob_size = 0;

        print_message("  layout %s\n", L->id);
        assert_true(L->nfields > 0);
        assert_true(L->min_size <= L->known_size);
        assert_null(strchr(L->title, '|'));
        /* Contiguous, ordered, naturally aligned fields ending exactly at known_size. */
        end = L->fields[0].offset;
        for (size_t k = 0; k < L->nfields; k++) {
            const struct gc_field *f = &L->fields[k];

            assert_int_equal(f->offset, end);
            assert_true(f->width == 1 || f->width == 2 || f->width == 4 || f->width == 8);
            assert_int_equal(f->offset % f->width, 0);
            assert_null(strchr(f->doc, '|'));
            assert_true(strlen(f->doc) > 0);
            for (size_t j = 0; j < k; j++)
                assert_string_not_equal(L->fields[j].name, f->name);
            if (f->kind != GC_KIND_RESERVED)
                assert_true(f->host_offset < L->host_size);
            if (f->kind == GC_KIND_STRING)
                assert_int_equal(f->width, 4);
            blob_off += f->kind == GC_KIND_BLOB_OFFSET;
            blob_size += f->kind == GC_KIND_BLOB_SIZE;
            end = f->offset + f->width;
        }
        assert_int_equal(end, L->known_size);
        /* Records start at 0; only a header tail starts after the common header. */
        assert_true(L->fields[0].offset == 0 || L == &gc_layout_manifest_header);
        /* The codec supports at most one blob per record, as an offset/size pair. */
        assert_true(blob_off <= 1 && blob_off == blob_size);
        /* Every minimum covers whole fields, so min(stored, known) never splits one. */
        for (size_t k = 0; k < L->nfields; k++) {
            const struct gc_field *f = &L->fields[k];

            assert_true(f->offset + f->width <= L->min_size || f->offset >= L->min_size);
        }
        /* The same layout is never listed twice. */
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(gc_layouts[j]->id, L->id);
    }
}

/* The wire constants the codecs use match the published layouts. */
static void test_wire_constants(void **state)
{
    (void)state;
    assert_int_equal(gc_layout_amdgpu_header.known_size, GPUCORE_AMDGPU_NOTE_HEADER_SIZE);
    assert_int_equal(gc_layout_kfd_runtime_info.min_size, GPUCORE_KFD_RUNTIME_INFO_SIZE);
    assert_int_equal(gc_layout_kfd_device_entry.min_size, GPUCORE_KFD_DEVICE_ENTRY_SIZE);
    assert_int_equal(gc_layout_kfd_device_entry.known_size, GPUCORE_KFD_DEVICE_ENTRY_SIZE_CAP2);
    assert_int_equal(gc_layout_kfd_queue_entry.min_size, GPUCORE_KFD_QUEUE_ENTRY_SIZE);
    assert_int_equal(gc_layout_note_header.known_size, GPUCORE_NOTE_HEADER_SIZE);
    assert_int_equal(gc_layout_capture_meta.min_size, 104);
    assert_int_equal(gc_layout_manifest_header.known_size, 36);
    assert_int_equal(gc_layout_manifest_entry.min_size, 40);
    assert_int_equal(gc_layout_code_object.min_size, 40);
    assert_int_equal(gc_layout_alloc.min_size, 32);
    /* A few spot checks against docs/core-format.md. */
    assert_int_equal(GC_OFF_amdgpu_header_runtime_info_size, 16);
    assert_int_equal(GC_WIDTH_amdgpu_header_runtime_info_size, 8);
    assert_int_equal(GC_OFF_kfd_device_entry_gfx_target_version, 88);
    assert_int_equal(GC_OFF_kfd_device_entry_num_xcc, 108);
    assert_int_equal(GC_OFF_kfd_device_entry_debug_prop, 116);
    assert_int_equal(GC_OFF_kfd_queue_entry_ctx_save_restore_area_size, 56);
}

static void test_enum_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < gc_enum_row_count; i++) {
        const struct gc_enum_row *r = &gc_enum_rows[i];

        assert_true((size_t)r->group < GC_ENUM_GROUP_COUNT_);
        assert_null(strchr(r->doc, '|'));
        for (const char *p = r->name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-');
        for (size_t j = 0; j < i; j++) {
            if (gc_enum_rows[j].group != r->group)
                continue;
            assert_string_not_equal(gc_enum_rows[j].name, r->name);
            assert_int_not_equal(gc_enum_rows[j].value, r->value);
            /* Bits and bit fields of one flag word never overlap. */
            if (gc_enum_groups[r->group].is_bits)
                assert_int_equal(gc_enum_rows[j].value & r->value, 0);
        }
    }
    for (size_t g = 0; g < GC_ENUM_GROUP_COUNT_; g++) {
        assert_non_null(gc_enum_groups[g].id);
        assert_null(strchr(gc_enum_groups[g].title, '|'));
    }
    assert_int_equal(gc_enum_known_bits(GC_ENUM_code_object_flags), 3);
    assert_int_equal(gc_enum_known_bits(GC_ENUM_alloc_flags), 0);
    assert_string_equal(gc_enum_name(GC_ENUM_queue_type, 2), "compute-aql");
    assert_null(gc_enum_name(GC_ENUM_queue_type, 5));
}

static int utf8_ok(const char *s, size_t n, size_t *bad)
{
    return gc_utf8_valid((const uint8_t *)s, n, bad);
}

static void test_utf8(void **state)
{
    static const struct {
        const char *s;
        size_t n;
    } good[] = {
        { "", 0 },
        { "plain ascii", 11 },
        { "\0", 1 },
        { "\x7f", 1 },
        { "\xc2\x80", 2 },         /* U+0080 */
        { "\xdf\xbf", 2 },         /* U+07FF */
        { "\xe0\xa0\x80", 3 },     /* U+0800 */
        { "\xed\x9f\xbf", 3 },     /* U+D7FF, just below the surrogates */
        { "\xee\x80\x80", 3 },     /* U+E000, just above */
        { "\xef\xbf\xbf", 3 },     /* U+FFFF */
        { "\xf0\x90\x80\x80", 4 }, /* U+10000 */
        { "\xf4\x8f\xbf\xbf", 4 }, /* U+10FFFF */
    };
    static const struct {
        const char *s;
        size_t n;
        size_t bad;
    } bad_inputs[] = {
        { "\x80", 1, 0 },             /* lone continuation */
        { "\xc0\x80", 2, 0 },         /* overlong NUL */
        { "\xc1\xbf", 2, 0 },         /* overlong U+007F */
        { "\xe0\x9f\xbf", 3, 1 },     /* overlong U+07FF */
        { "\xed\xa0\x80", 3, 1 },     /* U+D800 */
        { "\xed\xbf\xbf", 3, 1 },     /* U+DFFF */
        { "\xf0\x8f\xbf\xbf", 4, 1 }, /* overlong U+FFFF */
        { "\xf4\x90\x80\x80", 4, 1 }, /* U+110000 */
        { "\xf5\x80\x80\x80", 4, 0 }, /* no such lead */
        { "\xff", 1, 0 },
        { "ab\xe2\x82", 4, 2 },       /* truncated at the end */
        { "\xe2\x82\x41", 3, 2 },     /* bad third byte */
        { "\xf0\x90\x80\xc0", 4, 3 }, /* bad fourth byte */
        { "ok \xc3", 4, 3 },
    };
    size_t bad;

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(utf8_ok(good[i].s, good[i].n, &bad));
    for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
        bad = 999;
        assert_false(utf8_ok(bad_inputs[i].s, bad_inputs[i].n, &bad));
        assert_int_equal(bad, bad_inputs[i].bad);
    }
}

int test_schema_tables_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_invariants),
        cmocka_unit_test(test_wire_constants),
        cmocka_unit_test(test_enum_tables),
        cmocka_unit_test(test_utf8),
    };

    return cmocka_run_group_tests_name("schema: tables", tests, NULL, NULL);
}
