/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the AMDGPU core-state note codec (schema/kfd_note.c): golden bytes laid out by
 * hand from docs/core-format.md, size growth, every malformed-input rule with its status and
 * diagnostic offset, the semantic checks, and gfx target names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/schema.h>

int test_schema_kfd_run(void);

#define B8(v)   (uint8_t)((uint64_t)(v)&0xff)
#define LE32(v) B8(v), B8((uint64_t)(v) >> 8), B8((uint64_t)(v) >> 16), B8((uint64_t)(v) >> 24)
#define LE64(v) LE32((uint64_t)(v)&0xffffffffu), LE32((uint64_t)(v) >> 32)

/*
 * A note as AMD's writer (ROCdbgapi create_core_state_note) lays it out for KFD 1.16 with one
 * gfx90a agent (MI210-like values) and one AQL queue. Written field by field from the offsets
 * in docs/core-format.md sections 3-6, not produced by gpucore's encoder.
 */
static const uint8_t golden_note[] = {
    /* 0x00 header */
    LE64(1),   /* note format version */
    LE32(1),   /* kfd_version_major */
    LE32(16),  /* kfd_version_minor */
    LE64(16),  /* runtime_info_size */
    LE32(1),   /* agent_entry_count */
    LE32(120), /* agent_entry_size */
    LE32(1),   /* queue_entry_count */
    LE32(64),  /* queue_entry_size */
    /* 0x28 kfd_runtime_info */
    LE64(0x7f3a5c02e0a0), /* r_debug */
    LE32(1),              /* runtime_state: ENABLED */
    LE32(1),              /* ttmp_setup */
    /* 0x38 kfd_dbg_device_info_entry */
    LE64(0),                  /* exception_status */
    LE64(0x0001000000000000), /* lds_base */
    LE64(0x00010000ffffffff), /* lds_limit */
    LE64(0x0002000000000000), /* scratch_base */
    LE64(0x00020000ffffffff), /* scratch_limit */
    LE64(0x0000000001000000), /* gpuvm_base */
    LE64(0x00007fffffffffff), /* gpuvm_limit */
    LE32(0x4a2b),             /* gpu_id */
    LE32(0xc300),             /* location_id */
    LE32(0x1002),             /* vendor_id */
    LE32(0x740f),             /* device_id */
    LE32(0x02),               /* revision_id */
    LE32(0x1002),             /* subsystem_vendor_id */
    LE32(0x0c34),             /* subsystem_device_id */
    LE32(79),                 /* fw_version */
    LE32(90010),              /* gfx_target_version: gfx90a */
    LE32(416),                /* simd_count */
    LE32(8),                  /* max_waves_per_simd */
    LE32(8),                  /* array_count */
    LE32(1),                  /* simd_arrays_per_engine */
    LE32(1),                  /* num_xcc */
    LE32(0x20048280),         /* capability: WP, 4 WPs, TRAP_DEBUG, PRECISE_MEM, FW */
    LE32(0x5e6),              /* debug_prop */
    /* 0xb0 kfd_queue_snapshot_entry */
    LE64(0),              /* exception_status */
    LE64(0x7f3a40000000), /* ring_base_address */
    LE64(0x7f3a5c600038), /* write_pointer_address: amd_queue_t + 56 */
    LE64(0x7f3a5c600080), /* read_pointer_address: amd_queue_t + 128 */
    LE64(0x7f3a3c000000), /* ctx_save_restore_address */
    LE32(0),              /* queue_id */
    LE32(0x4a2b),         /* gpu_id */
    LE32(0x100000),       /* ring_size (bytes) */
    LE32(2),              /* queue_type: COMPUTE_AQL */
    LE32(0x5d5000),       /* ctx_save_restore_area_size */
    LE32(0),              /* reserved */
};

static void golden_struct(gpucore_amdgpu_note_t *note, gpucore_kfd_device_entry_t *dev,
                          gpucore_kfd_queue_entry_t *q)
{
    memset(note, 0, sizeof(*note));
    memset(dev, 0, sizeof(*dev));
    memset(q, 0, sizeof(*q));
    note->kfd_major = 1;
    note->kfd_minor = 16;
    note->runtime.r_debug = 0x7f3a5c02e0a0;
    note->runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note->runtime.ttmp_setup = 1;
    dev->lds_base = 0x0001000000000000;
    dev->lds_limit = 0x00010000ffffffff;
    dev->scratch_base = 0x0002000000000000;
    dev->scratch_limit = 0x00020000ffffffff;
    dev->gpuvm_base = 0x0000000001000000;
    dev->gpuvm_limit = 0x00007fffffffffff;
    dev->gpu_id = 0x4a2b;
    dev->location_id = 0xc300;
    dev->vendor_id = 0x1002;
    dev->device_id = 0x740f;
    dev->revision_id = 0x02;
    dev->subsystem_vendor_id = 0x1002;
    dev->subsystem_device_id = 0x0c34;
    dev->fw_version = 79;
    dev->gfx_target_version = 90010;
    dev->simd_count = 416;
    dev->max_waves_per_simd = 8;
    dev->array_count = 8;
    dev->simd_arrays_per_engine = 1;
    dev->num_xcc = 1;
    dev->capability = GPUCORE_HSA_CAP_WATCH_POINTS_SUPPORTED |
                      (2u << GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT) |
                      GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT |
                      GPUCORE_HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED |
                      GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
    dev->debug_prop = 0x5e6;
    q->ring_base_address = 0x7f3a40000000;
    q->write_pointer_address = 0x7f3a5c600038;
    q->read_pointer_address = 0x7f3a5c600080;
    q->ctx_save_restore_address = 0x7f3a3c000000;
    q->gpu_id = 0x4a2b;
    q->ring_size = 0x100000;
    q->queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
    q->ctx_save_restore_area_size = 0x5d5000;
    note->agent_count = 1;
    note->agents = dev;
    note->queue_count = 1;
    note->queues = q;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void expect_failure(gpucore_status_t got, const gpucore_diag_t *diag, gpucore_status_t want,
                           uint64_t want_offset, const char *needle)
{
    if (got != want || diag->offset != want_offset || (needle && !strstr(diag->message, needle)))
        print_message("status %d, offset 0x%llx, message: %s\n", got,
                      (unsigned long long)diag->offset, diag->message);
    assert_int_equal(got, want);
    assert_int_equal(diag->status, want);
    assert_true(diag->flags & GPUCORE_DIAG_HAS_OFFSET);
    assert_int_equal(diag->offset, want_offset);
    if (needle)
        assert_non_null(strstr(diag->message, needle));
}

/* ------------------------------------------------------------------------------------------ */

static void test_golden_encode(void **state)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t q;
    void *desc = NULL;
    size_t size = 0;

    (void)state;
    assert_int_equal(sizeof(golden_note), 240);
    golden_struct(&note, &dev, &q);
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, sizeof(golden_note));
    assert_memory_equal(desc, golden_note, sizeof(golden_note));
    gpucore_free(desc);

    /* note_version is ignored on encode: the output always says 1. */
    note.note_version = 7;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, NULL), GPUCORE_OK);
    assert_memory_equal(desc, golden_note, sizeof(golden_note));
    gpucore_free(desc);
}

static void test_golden_decode(void **state)
{
    gpucore_amdgpu_note_t want;
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t q;
    gpucore_amdgpu_note_t *note = NULL;

    (void)state;
    golden_struct(&want, &dev, &q);
    assert_int_equal(gpucore_amdgpu_note_decode(golden_note, sizeof(golden_note), &note, NULL),
                     GPUCORE_OK);
    assert_int_equal(note->note_version, 1);
    assert_int_equal(note->kfd_major, 1);
    assert_int_equal(note->kfd_minor, 16);
    assert_int_equal(note->runtime_info_size, 16);
    assert_int_equal(note->agent_entry_size, 120);
    assert_int_equal(note->queue_entry_size, 64);
    assert_int_equal(note->agent_count, 1);
    assert_int_equal(note->queue_count, 1);
    assert_int_equal(note->flags, 0);
    assert_int_equal(note->runtime.r_debug, 0x7f3a5c02e0a0);
    assert_int_equal(note->runtime.runtime_state, 1);
    assert_int_equal(note->runtime.ttmp_setup, 1);
    /* Host structs without padding and a zeroed capability2: compare whole entries. */
    assert_memory_equal(&note->agents[0], &dev, sizeof(dev));
    assert_memory_equal(&note->queues[0], &q, sizeof(q));
    assert_int_equal(note->agents[0].gfx_target_version, 90010);
    assert_int_equal(note->agents[0].capability2, 0);
    assert_int_equal(note->queues[0].ring_size, 0x100000);
    assert_int_equal(gpucore_amdgpu_note_check(note, NULL), GPUCORE_OK);
    gpucore_amdgpu_note_free(note);
    gpucore_amdgpu_note_free(NULL);
}

/* Decoding golden bytes and encoding the result gives the same bytes. */
static void test_golden_round_trip(void **state)
{
    gpucore_amdgpu_note_t *note = NULL;
    void *desc = NULL;
    size_t size = 0;

    (void)state;
    assert_int_equal(gpucore_amdgpu_note_decode(golden_note, sizeof(golden_note), &note, NULL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_amdgpu_note_encode(note, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, sizeof(golden_note));
    assert_memory_equal(desc, golden_note, size);
    gpucore_free(desc);
    gpucore_amdgpu_note_free(note);
}

/* 128-byte device entries (the capability2 kernel patch): capability2 read and written. */
static void test_device_entry_128(void **state)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev[2];
    gpucore_kfd_queue_entry_t q;
    gpucore_amdgpu_note_t *got = NULL;
    uint8_t *bytes;
    void *desc = NULL;
    size_t size = 0;

    (void)state;
    golden_struct(&note, &dev[0], &q);
    dev[1] = dev[0];
    dev[1].gpu_id = 0x4a2c;
    dev[0].capability2 = 0x11;
    dev[1].capability2 = 0x22;
    note.agents = dev;
    note.agent_count = 2;
    note.agent_entry_size = GPUCORE_KFD_DEVICE_ENTRY_SIZE_CAP2;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, 40 + 16 + 2 * 128 + 64);
    bytes = desc;
    assert_int_equal(bytes[28], 128);              /* agent_entry_size */
    assert_int_equal(bytes[56 + 120], 0x11);       /* entry 0 capability2 */
    assert_int_equal(bytes[56 + 124], 0);          /* its padding */
    assert_int_equal(bytes[56 + 128 + 56], 0x2c);  /* entry 1 gpu_id, strided by 128 */
    assert_int_equal(bytes[56 + 128 + 120], 0x22); /* entry 1 capability2 */

    assert_int_equal(gpucore_amdgpu_note_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->agent_entry_size, 128);
    assert_int_equal(got->agents[0].capability2, 0x11);
    assert_int_equal(got->agents[1].capability2, 0x22);
    assert_int_equal(got->agents[1].gpu_id, 0x4a2c);
    assert_int_equal(got->queues[0].gpu_id, 0x4a2b);
    assert_int_equal(got->flags, 0);
    gpucore_amdgpu_note_free(got);

    /* Non-zero padding after capability2 comes from a newer layout. */
    bytes[56 + 124] = 1;
    assert_int_equal(gpucore_amdgpu_note_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->flags, GPUCORE_AMDGPU_NOTE_NEWER);
    gpucore_amdgpu_note_free(got);
    gpucore_free(desc);

    /* A 120-byte entry cannot hold capability2: it is dropped on encode. */
    note.agent_entry_size = 120;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_amdgpu_note_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->agents[0].capability2, 0);
    gpucore_amdgpu_note_free(got);
    gpucore_free(desc);
}

/* Entries larger than gpucore knows: strided by the stored size, NEWER only if the tail is used. */
static void test_larger_entries(void **state)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t q[2];
    gpucore_amdgpu_note_t *got = NULL;
    uint8_t *bytes;
    void *desc = NULL;
    size_t size = 0;
    size_t rt = 40, agents = rt + 24, queues = agents + 136;

    (void)state;
    golden_struct(&note, &dev, &q[0]);
    q[1] = q[0];
    q[1].queue_id = 7;
    note.queues = q;
    note.queue_count = 2;
    note.runtime_info_size = 24;
    note.agent_entry_size = 136;
    note.queue_entry_size = 72;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, 40 + 24 + 136 + 2 * 72);
    assert_int_equal(gpucore_amdgpu_note_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->flags, 0);
    assert_int_equal(got->runtime.r_debug, note.runtime.r_debug);
    assert_int_equal(got->agents[0].debug_prop, dev.debug_prop);
    assert_int_equal(got->queues[1].queue_id, 7);
    assert_int_equal(got->queues[1].ctx_save_restore_area_size, 0x5d5000);
    gpucore_amdgpu_note_free(got);

    bytes = desc;
    /* One byte in each unknown tail: runtime info, device entry, last queue entry. */
    const size_t tails[] = { rt + 16 + 7, agents + 130, queues + 72 + 64 };
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        size_t at = tails[i];

        bytes[at] = 0x5a;
        assert_int_equal(gpucore_amdgpu_note_decode(desc, size, &got, NULL), GPUCORE_OK);
        assert_int_equal(got->flags, GPUCORE_AMDGPU_NOTE_NEWER);
        assert_int_equal(got->queues[1].queue_id, 7);
        gpucore_amdgpu_note_free(got);
        bytes[at] = 0;
    }
    gpucore_free(desc);
}

static void test_empty_note(void **state)
{
    gpucore_amdgpu_note_t note = { .kfd_major = 1, .kfd_minor = 18 };
    gpucore_amdgpu_note_t *got = NULL;
    void *desc = NULL;
    size_t size = 0;

    (void)state;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, 56);
    assert_int_equal(gpucore_amdgpu_note_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->agent_count, 0);
    assert_int_equal(got->queue_count, 0);
    assert_int_equal(got->agent_entry_size, 120);
    assert_int_equal(got->queue_entry_size, 64);
    assert_int_equal(gpucore_amdgpu_note_check(got, NULL), GPUCORE_OK);
    gpucore_amdgpu_note_free(got);
    gpucore_free(desc);
}

/* ------------------------------------------------------------------------------------------ */
/* Malformed descriptors: each patches golden_note and expects one status at one offset.       */
/* ------------------------------------------------------------------------------------------ */

struct bad_note {
    const char *name;
    uint32_t patch_off; /* UINT32_MAX: no patch */
    unsigned patch_width;
    uint64_t patch_value;
    size_t size; /* 0: sizeof(golden_note); larger sizes append zero bytes */
    gpucore_status_t want;
    uint64_t want_offset;
    const char *needle;
};

static const struct bad_note bad_notes[] = {
    { "empty descriptor", UINT32_MAX, 0, 0, 1, GPUCORE_E_TRUNCATED, 0, "note_version" },
    { "truncated inside the version", UINT32_MAX, 0, 0, 4, GPUCORE_E_TRUNCATED, 0, NULL },
    { "truncated header", UINT32_MAX, 0, 0, 30, GPUCORE_E_TRUNCATED, 28, "agent_entry_size" },
    { "header one byte short", UINT32_MAX, 0, 0, 39, GPUCORE_E_TRUNCATED, 36, "queue_entry_size" },
    { "note version 2", 0, 8, 2, 0, GPUCORE_E_VERSION, 0, "version 2" },
    { "note version 0 with short data", 0, 8, 0, 12, GPUCORE_E_VERSION, 0, NULL },
    { "runtime_info_size not a multiple of 8", 16, 8, 20, 0, GPUCORE_E_CORRUPT, 16,
      "not a multiple of 8" },
    { "agent_entry_size not a multiple of 8", 28, 4, 100, 0, GPUCORE_E_CORRUPT, 28,
      "agent_entry_size 100 is not a multiple of 8" },
    { "queue_entry_size not a multiple of 8", 36, 4, 60, 0, GPUCORE_E_CORRUPT, 36,
      "not a multiple of 8" },
    { "runtime_info_size below 16", 16, 8, 8, 0, GPUCORE_E_CORRUPT, 16, "below" },
    { "agent entry of the 2022 patch series (64 bytes)", 28, 4, 64, 0, GPUCORE_E_CORRUPT, 28,
      "below the 120-byte" },
    { "agent_entry_size 0", 28, 4, 0, 0, GPUCORE_E_CORRUPT, 28, "below" },
    { "queue_entry_size 56", 36, 4, 56, 0, GPUCORE_E_CORRUPT, 36, "below" },
    { "agent_entry_size above 4096", 28, 4, 4104, 0, GPUCORE_E_LIMIT, 28, "limit" },
    { "huge agent_entry_size", 28, 4, 0xfffffff8, 0, GPUCORE_E_LIMIT, 28, NULL },
    { "huge runtime_info_size (u64)", 16, 8, 0x8000000000000000ull, 0, GPUCORE_E_LIMIT, 16, NULL },
    { "agent count above 65536", 24, 4, 65537, 0, GPUCORE_E_LIMIT, 24, "agent_entry_count" },
    { "count x size overflow attempt", 32, 4, 0xffffffff, 0, GPUCORE_E_LIMIT, 32, NULL },
    { "runtime info truncated", UINT32_MAX, 0, 0, 44, GPUCORE_E_TRUNCATED, 40, "runtime info" },
    { "short agent array", 24, 4, 2, 0, GPUCORE_E_TRUNCATED, 176, "device entry 1" },
    { "short queue array", UINT32_MAX, 0, 0, 232, GPUCORE_E_TRUNCATED, 176, "queue entry 0" },
    { "second queue announced", 32, 4, 2, 0, GPUCORE_E_TRUNCATED, 240, "queue entry 1" },
    { "trailing bytes", UINT32_MAX, 0, 0, 248, GPUCORE_E_CORRUPT, 240, "trailing" },
    { "queue count 0 leaves trailing bytes", 32, 4, 0, 0, GPUCORE_E_CORRUPT, 176, "64 trailing" },
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_notes) / sizeof(bad_notes[0]); i++) {
        const struct bad_note *c = &bad_notes[i];
        uint8_t buf[512] = { 0 };
        size_t size = c->size ? c->size : sizeof(golden_note);
        gpucore_amdgpu_note_t *note = (gpucore_amdgpu_note_t *)&buf; /* must stay untouched */
        gpucore_diag_t diag;

        memset(&diag, 0, sizeof(diag));
        memcpy(buf, golden_note, sizeof(golden_note));
        if (c->patch_off != UINT32_MAX) {
            if (c->patch_width == 8)
                put64(buf + c->patch_off, c->patch_value);
            else
                put32(buf + c->patch_off, (uint32_t)c->patch_value);
        }
        if (size > sizeof(golden_note))
            memset(buf + sizeof(golden_note), 0, size - sizeof(golden_note));
        print_message("  malformed: %s\n", c->name);
        expect_failure(gpucore_amdgpu_note_decode(buf, size, &note, &diag), &diag, c->want,
                       c->want_offset, c->needle);
        assert_ptr_equal(note, (gpucore_amdgpu_note_t *)&buf);
    }
}

static void test_decode_args(void **state)
{
    gpucore_amdgpu_note_t *note = NULL;
    gpucore_diag_t diag;

    (void)state;
    assert_int_equal(gpucore_amdgpu_note_decode(NULL, 0, &note, &diag), GPUCORE_E_INVAL);
    assert_int_equal(diag.status, GPUCORE_E_INVAL);
    assert_false(diag.flags & GPUCORE_DIAG_HAS_OFFSET);
    assert_int_equal(gpucore_amdgpu_note_decode(golden_note, sizeof(golden_note), NULL, NULL),
                     GPUCORE_E_INVAL);
}

static void test_encode_invalid(void **state)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t q;
    void *desc = (void *)&note; /* must stay untouched */
    size_t size = 12345;
    gpucore_diag_t diag;
    static const struct {
        uint64_t runtime_info_size;
        uint32_t agent_entry_size, queue_entry_size, agent_count;
        int null_agents;
    } cases[] = {
        { 20, 0, 0, 1, 0 },    { 8, 0, 0, 1, 0 },          { 0, 100, 0, 1, 0 },
        { 0, 112, 0, 1, 0 },   { 0, 0, 56, 1, 0 },         { 0, 4104, 0, 1, 0 },
        { 0, 0, 0, 65537, 0 }, { 1ull << 40, 0, 0, 1, 0 }, { 0, 0, 0, 1, 1 },
    };

    (void)state;
    assert_int_equal(gpucore_amdgpu_note_encode(NULL, &desc, &size, NULL), GPUCORE_E_INVAL);
    golden_struct(&note, &dev, &q);
    assert_int_equal(gpucore_amdgpu_note_encode(&note, NULL, &size, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, NULL, NULL), GPUCORE_E_INVAL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        golden_struct(&note, &dev, &q);
        note.runtime_info_size = cases[i].runtime_info_size;
        note.agent_entry_size = cases[i].agent_entry_size;
        note.queue_entry_size = cases[i].queue_entry_size;
        note.agent_count = cases[i].agent_count;
        if (cases[i].null_agents)
            note.agents = NULL;
        assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, &diag), GPUCORE_E_INVAL);
        assert_int_equal(diag.status, GPUCORE_E_INVAL);
        assert_ptr_equal(desc, (void *)&note);
        assert_int_equal(size, 12345);
    }
    golden_struct(&note, &dev, &q);
    note.queues = NULL;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, &diag), GPUCORE_E_INVAL);
    assert_non_null(strstr(diag.message, "queues"));
}

/* ------------------------------------------------------------------------------------------ */
/* gpucore_amdgpu_note_check                                                                  */
/* ------------------------------------------------------------------------------------------ */

static void test_check_rules(void **state)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev[2];
    gpucore_kfd_queue_entry_t q[2];
    gpucore_diag_t diag;
    static const struct {
        size_t member;
        uint64_t wire_off;
        const char *name;
    } nonzero[] = {
        { offsetof(gpucore_kfd_device_entry_t, simd_count), 92, "simd_count" },
        { offsetof(gpucore_kfd_device_entry_t, max_waves_per_simd), 96, "max_waves_per_simd" },
        { offsetof(gpucore_kfd_device_entry_t, array_count), 100, "array_count" },
        { offsetof(gpucore_kfd_device_entry_t, simd_arrays_per_engine), 104,
          "simd_arrays_per_engine" },
        { offsetof(gpucore_kfd_device_entry_t, num_xcc), 108, "num_xcc" },
    };

    (void)state;
    assert_int_equal(gpucore_amdgpu_note_check(NULL, &diag), GPUCORE_E_INVAL);

    golden_struct(&note, &dev[0], &q[0]);
    note.kfd_major = 2;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_VERSION, 8, "2.16");
    note.kfd_major = 1;
    note.kfd_minor = 12;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_VERSION, 12, "1.12");
    note.kfd_minor = 13;
    assert_int_equal(gpucore_amdgpu_note_check(&note, NULL), GPUCORE_OK);
    note.kfd_minor = 99;
    assert_int_equal(gpucore_amdgpu_note_check(&note, NULL), GPUCORE_OK);

    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED_BUSY;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT, 48,
                   "enabled-busy");
    note.runtime.runtime_state = 77;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT, 48,
                   "unknown");
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;

    /* Each node property, in the second of two agents (offset strides by the entry size). */
    dev[1] = dev[0];
    dev[1].gpu_id = 0x4a2c;
    note.agents = dev;
    note.agent_count = 2;
    for (size_t i = 0; i < sizeof(nonzero) / sizeof(nonzero[0]); i++) {
        uint32_t *field = (uint32_t *)(void *)((char *)&dev[1] + nonzero[i].member);
        uint32_t saved = *field;

        *field = 0;
        expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT,
                       56 + 120 + nonzero[i].wire_off, nonzero[i].name);
        *field = saved;
    }
    /* The same with 128-byte entries and a 24-byte runtime info. */
    note.agent_entry_size = 128;
    note.runtime_info_size = 24;
    dev[1].num_xcc = 0;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT,
                   40 + 24 + 128 + 108, "num_xcc");
    dev[1].num_xcc = 1;
    note.agent_entry_size = 0;
    note.runtime_info_size = 0;

    dev[1].gpu_id = dev[0].gpu_id;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT, 56 + 120 + 56,
                   "repeats device entry 0");
    dev[1].gpu_id = 0x4a2c;

    q[1] = q[0];
    q[1].gpu_id = 0x1234;
    note.queues = q;
    note.queue_count = 2;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT,
                   56 + 2 * 120 + 64 + 44, "names no device entry");
    q[1].gpu_id = 0x4a2c;
    assert_int_equal(gpucore_amdgpu_note_check(&note, NULL), GPUCORE_OK);

    note.agents = NULL;
    assert_int_equal(gpucore_amdgpu_note_check(&note, &diag), GPUCORE_E_INVAL);
}

/* Many agents: the gpu_id rules stay correct (and fast) at the count limit. */
static void test_check_many_agents(void **state)
{
    enum { N = 65536 };
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev0;
    gpucore_kfd_queue_entry_t q0;
    gpucore_kfd_device_entry_t *dev = calloc(N, sizeof(*dev));
    gpucore_kfd_queue_entry_t *q = calloc(N, sizeof(*q));
    gpucore_diag_t diag;

    (void)state;
    assert_non_null(dev);
    assert_non_null(q);
    golden_struct(&note, &dev0, &q0);
    for (uint32_t i = 0; i < N; i++) {
        dev[i] = dev0;
        dev[i].gpu_id = (N - i) * 3;
        q[i] = q0;
        q[i].gpu_id = (i + 1) * 3;
    }
    note.agents = dev;
    note.agent_count = N;
    note.queues = q;
    note.queue_count = N;
    assert_int_equal(gpucore_amdgpu_note_check(&note, NULL), GPUCORE_OK);
    q[N - 1].gpu_id = 1;
    expect_failure(gpucore_amdgpu_note_check(&note, &diag), &diag, GPUCORE_E_CORRUPT,
                   56 + (uint64_t)N * 120 + (uint64_t)(N - 1) * 64 + 44, "queue entry 65535");
    free(dev);
    free(q);
}

/* ------------------------------------------------------------------------------------------ */

static void test_gfx_target_name(void **state)
{
    static const struct {
        uint32_t version;
        const char *name;
    } names[] = {
        { 90010, "gfx90a" },   { 90402, "gfx942" }, { 110000, "gfx1100" }, { 100300, "gfx1030" },
        { 120001, "gfx1201" }, { 90000, "gfx900" }, { 90008, "gfx908" },   { 90012, "gfx90c" },
        { 110501, "gfx1151" }, { 103, "gfx013" },   { 93535, "gfx9zz" },
    };
    char buf[16];

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        assert_int_equal(gpucore_gfx_target_name(names[i].version, buf, sizeof(buf)), GPUCORE_OK);
        assert_string_equal(buf, names[i].name);
    }
    /* Exactly enough room, one byte short (buffer untouched), nothing at all. */
    assert_int_equal(gpucore_gfx_target_name(110000, buf, 8), GPUCORE_OK);
    assert_string_equal(buf, "gfx1100");
    memset(buf, 'x', sizeof(buf));
    assert_int_equal(gpucore_gfx_target_name(110000, buf, 7), GPUCORE_E_LIMIT);
    assert_int_equal(buf[0], 'x');
    assert_int_equal(gpucore_gfx_target_name(90010, buf, 0), GPUCORE_E_LIMIT);
    /* Minor or stepping 36 and above has no letter. */
    assert_int_equal(gpucore_gfx_target_name(93600, buf, sizeof(buf)), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_gfx_target_name(90036, buf, sizeof(buf)), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_gfx_target_name(90010, NULL, 16), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_gfx_target_name(UINT32_MAX, buf, sizeof(buf)), GPUCORE_E_INVAL);
}

int test_schema_kfd_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_encode),     cmocka_unit_test(test_golden_decode),
        cmocka_unit_test(test_golden_round_trip), cmocka_unit_test(test_device_entry_128),
        cmocka_unit_test(test_larger_entries),    cmocka_unit_test(test_empty_note),
        cmocka_unit_test(test_malformed),         cmocka_unit_test(test_decode_args),
        cmocka_unit_test(test_encode_invalid),    cmocka_unit_test(test_check_rules),
        cmocka_unit_test(test_check_many_agents), cmocka_unit_test(test_gfx_target_name),
    };

    return cmocka_run_group_tests_name("schema: AMDGPU note", tests, NULL, NULL);
}
