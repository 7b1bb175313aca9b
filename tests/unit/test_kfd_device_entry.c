/* SPDX-License-Identifier: MIT */
/*
 * The KFD device entry (struct kfd_dbg_device_info_entry), and the queue entry (struct
 * kfd_queue_snapshot_entry) alike, has two tables, one each side of the layering (docs/design.md):
 * kfd's codec of the kernel's byte layout (kfd/kfd_sim_protocol.c, which kfd/ may not take from
 * schema/) and the AMDGPU note's row (schema/kfd_note.def). The capture turns the one into the
 * other through bytes (capture/plan.c); this test keeps the two tables equal: every field of the
 * kernel struct, given a distinct value, comes out of the schema's decoder at the same value, and
 * every byte of the encoding is a field's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gc_kfd_entry.h"
#include "gc_le.h"
#include "kfd_sim_protocol.h"
#include "schema_internal.h"

/* Every byte of the kernel struct a distinct value, so that a field at a wrong offset or width
   in either table reads a different one. */
static void distinct(struct kfd_dbg_device_info_entry *e)
{
    uint8_t *p = (uint8_t *)e;

    for (size_t i = 0; i < sizeof(*e); i++)
        p[i] = (uint8_t)(i + 1);
}

static void test_tables_agree(void **state)
{
    struct kfd_dbg_device_info_entry e, back;
    gpucore_kfd_device_entry_t a;
    uint8_t raw[GC_SIM_DEVICE_ENTRY_SIZE];
    const struct gc_layout *L = &gc_layout_kfd_device_entry;

    (void)state;
    assert_int_equal(sizeof(e), GC_SIM_DEVICE_ENTRY_SIZE);
    assert_int_equal(L->min_size, GC_SIM_DEVICE_ENTRY_SIZE);
    distinct(&e);
    gc_sim_device_entry_encode(&e, raw);
    /* kfd's table covers every byte of the kernel struct (a field it forgot would stay 0) */
    for (size_t i = 0; i < sizeof(raw); i++)
        assert_int_equal(raw[i], (uint8_t)(i + 1));
    memset(&a, 0xee, sizeof(a));
    assert_int_equal(gc_kfd_device_entry_decode(raw, sizeof(raw), &a), GPUCORE_OK);
    /* every field of the .def inside the kernel's 120 bytes reads those bytes */
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];

        if (f->kind == GC_KIND_RESERVED)
            continue;
        if (f->offset + f->width > sizeof(raw)) {
            assert_int_equal(gc_field_get(&a, f), 0); /* capability2: not in 120 bytes */
            continue;
        }
        assert_int_equal(gc_field_get(&a, f), gc_le_get(raw + f->offset, f->width));
    }
    /* and the same members by name, as plan.c copied them before */
    assert_int_equal(a.exception_status, e.exception_status);
    assert_int_equal(a.lds_base, e.lds_base);
    assert_int_equal(a.scratch_limit, e.scratch_limit);
    assert_int_equal(a.gpuvm_limit, e.gpuvm_limit);
    assert_int_equal(a.gpu_id, e.gpu_id);
    assert_int_equal(a.gfx_target_version, e.gfx_target_version);
    assert_int_equal(a.simd_arrays_per_engine, e.simd_arrays_per_engine);
    assert_int_equal(a.num_xcc, e.num_xcc);
    assert_int_equal(a.debug_prop, e.debug_prop);
    /* kfd's decoder reads back what it wrote */
    gc_sim_device_entry_decode(raw, &back);
    assert_memory_equal(&back, &e, sizeof(e));
}

/* The queue entry: the same two tables, the same check. */
static void test_queue_tables_agree(void **state)
{
    struct kfd_queue_snapshot_entry e, back;
    gpucore_kfd_queue_entry_t q;
    uint8_t raw[GC_SIM_QUEUE_ENTRY_SIZE];
    const struct gc_layout *L = &gc_layout_kfd_queue_entry;
    uint8_t *p = (uint8_t *)&e;

    (void)state;
    assert_int_equal(sizeof(e), GC_SIM_QUEUE_ENTRY_SIZE);
    assert_int_equal(L->min_size, GC_SIM_QUEUE_ENTRY_SIZE);
    for (size_t i = 0; i < sizeof(e); i++)
        p[i] = (uint8_t)(0x80 + i);
    gc_sim_queue_entry_encode(&e, raw);
    for (size_t i = 0; i < sizeof(raw); i++)
        assert_int_equal(raw[i], (uint8_t)(0x80 + i));
    memset(&q, 0xee, sizeof(q));
    assert_int_equal(gc_kfd_queue_entry_decode(raw, sizeof(raw), &q), GPUCORE_OK);
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];

        if (f->kind != GC_KIND_RESERVED)
            assert_int_equal(gc_field_get(&q, f), gc_le_get(raw + f->offset, f->width));
    }
    /* the members by name, as plan.c copied them before */
    assert_int_equal(q.exception_status, e.exception_status);
    assert_int_equal(q.ring_base_address, e.ring_base_address);
    assert_int_equal(q.write_pointer_address, e.write_pointer_address);
    assert_int_equal(q.read_pointer_address, e.read_pointer_address);
    assert_int_equal(q.ctx_save_restore_address, e.ctx_save_restore_address);
    assert_int_equal(q.queue_id, e.queue_id);
    assert_int_equal(q.gpu_id, e.gpu_id);
    assert_int_equal(q.ring_size, e.ring_size);
    assert_int_equal(q.queue_type, e.queue_type);
    assert_int_equal(q.ctx_save_restore_area_size, e.ctx_save_restore_area_size);
    assert_int_equal(q.reserved, e.reserved);
    gc_sim_queue_entry_decode(raw, &back);
    assert_memory_equal(&back, &e, sizeof(e));
    assert_int_equal(gc_kfd_queue_entry_decode(raw, sizeof(raw) - 1, &q), GPUCORE_E_TRUNCATED);
    assert_int_equal(gc_kfd_queue_entry_decode(NULL, sizeof(raw), &q), GPUCORE_E_INVAL);
}

static void test_short_and_null(void **state)
{
    uint8_t raw[GC_SIM_DEVICE_ENTRY_SIZE] = { 0 };
    gpucore_kfd_device_entry_t a, before;

    (void)state;
    memset(&a, 0x5c, sizeof(a));
    before = a;
    assert_int_equal(gc_kfd_device_entry_decode(raw, sizeof(raw) - 1, &a), GPUCORE_E_TRUNCATED);
    assert_int_equal(gc_kfd_device_entry_decode(raw, 0, &a), GPUCORE_E_TRUNCATED);
    assert_memory_equal(&a, &before, sizeof(a));
    assert_int_equal(gc_kfd_device_entry_decode(NULL, sizeof(raw), &a), GPUCORE_E_INVAL);
    assert_int_equal(gc_kfd_device_entry_decode(raw, sizeof(raw), NULL), GPUCORE_E_INVAL);
}

static void test_capability2(void **state)
{
    uint8_t raw[128];
    gpucore_kfd_device_entry_t a;

    (void)state;
    memset(raw, 0, sizeof(raw));
    raw[120] = 0x34;
    raw[121] = 0x12; /* capability2 of a 128-byte entry */
    assert_int_equal(gc_kfd_device_entry_decode(raw, sizeof(raw), &a), GPUCORE_OK);
    assert_int_equal(a.capability2, 0x1234);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_agree),
        cmocka_unit_test(test_queue_tables_agree),
        cmocka_unit_test(test_short_and_null),
        cmocka_unit_test(test_capability2),
    };

    return cmocka_run_group_tests_name("KFD device entry: kfd's and schema's tables", tests, NULL,
                                       NULL);
}
