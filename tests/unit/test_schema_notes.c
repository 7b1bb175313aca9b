/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the GPUCORE extension notes (schema/gpucore_notes.c): golden bytes for every
 * note type laid out by hand from FORMAT.md part B, round trips with awkward strings and
 * blobs, forward compatibility (bigger headers and records, new bits), and malformed inputs
 * with their exact status and diagnostic offset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/schema.h>

int test_schema_notes_run(void);

#define B8(v)   (uint8_t)((uint64_t)(v)&0xff)
#define LE32(v) B8(v), B8((uint64_t)(v) >> 8), B8((uint64_t)(v) >> 16), B8((uint64_t)(v) >> 24)
#define LE64(v) LE32((uint64_t)(v)&0xffffffffu), LE32((uint64_t)(v) >> 32)
#define NONE    0xffffffffu

/* ------------------------------------------------------------------------------------------ */
/* Hand-built descriptors                                                                     */
/* ------------------------------------------------------------------------------------------ */

struct gold {
    uint8_t b[1024];
    size_t n;
};

static void g_raw(struct gold *g, const void *p, size_t n)
{
    assert_true(g->n + n <= sizeof(g->b));
    memcpy(g->b + g->n, p, n);
    g->n += n;
}

#define G(g, ...)                                 \
    do {                                          \
        const uint8_t bytes_[] = { __VA_ARGS__ }; \
        g_raw((g), bytes_, sizeof(bytes_));       \
    } while (0)

/* ALLOC_MAP, one allocation labelled "AQL ring, queue 0" (84 bytes). */
static void gold_alloc_map(struct gold *g)
{
    g->n = 0;
    /* 0x00 header: major, minor, header_size, incompat, compat, record_size, record_count */
    G(g, LE32(1), LE32(5), LE32(28), LE32(0), LE32(0), LE32(32), LE32(1));
    /* 0x1c record 0: base, size, kind RING, gpu_id, flags, label -> heap 0 */
    G(g, LE64(0x7f3a40000000), LE64(0x100000), LE32(6), LE32(0x4a2b), LE32(0), LE32(0));
    /* 0x3c heap: u32 length 17, the bytes, zero padding to 4 */
    G(g, LE32(17));
    g_raw(g, "AQL ring, queue 0", 17);
    G(g, 0, 0, 0);
}

/* MANIFEST with the 36-byte header and two ranges, the second unlabelled (124 bytes). */
static void gold_manifest(struct gold *g)
{
    g->n = 0;
    G(g, LE32(1), LE32(5), LE32(36), LE32(0), LE32(0), LE32(40), LE32(2));
    /* 0x1c header tail: flags TRUNCATED, truncation_reason BUDGET */
    G(g, LE32(1), LE32(2));
    /* 0x24 record 0: captured ring, tier STATE, label -> heap 0 */
    G(g, LE64(0x7f3a40000000), LE64(0x100000), LE32(0), LE32(1), LE32(0), LE32(0), LE32(0),
      LE32(0));
    /* 0x4c record 1: skipped for budget, tier ALL, no label */
    G(g, LE64(0x7f3a00000000), LE64(0x40000000), LE32(3), LE32(2), LE32(2), LE32(0), LE32(NONE),
      LE32(0));
    /* 0x74 heap */
    G(g, LE32(4));
    g_raw(g, "ring", 4);
}

/* CODE_OBJECTS: one embedded 8-byte object, one by URI only (184 bytes). */
#define CO_URI1 "memory://4242#offset=0x7f3a5e000000&size=8192"
static void gold_code_objects(struct gold *g)
{
    g->n = 0;
    G(g, LE32(1), LE32(5), LE32(28), LE32(0), LE32(0), LE32(40), LE32(2));
    /* 0x1c record 0: load_address, size, blob_offset 0, blob_size 8, uri -> 8, EMBEDDED */
    G(g, LE64(0x7f3a5d000000), LE64(8), LE64(0), LE64(8), LE32(8), LE32(1));
    /* 0x44 record 1: no blob, uri -> 24, flags 0 */
    G(g, LE64(0x7f3a5e000000), LE64(8192), LE64(0), LE64(0), LE32(24), LE32(0));
    /* 0x6c heap: the blob, then the two URIs in record order */
    G(g, 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40);
    G(g, LE32(12));
    g_raw(g, "file:///a.co", 12);
    G(g, LE32(45));
    g_raw(g, CO_URI1, 45);
    G(g, 0, 0, 0);
}

/* CAPTURE_META with ASCII, non-ASCII, NUL-separated and absent strings (248 bytes). */
static void gold_capture_meta(struct gold *g)
{
    g->n = 0;
    G(g, LE32(1), LE32(5), LE32(28), LE32(0), LE32(0), LE32(144), LE32(1));
    /* 0x1c the record */
    G(g, LE64(1700000000123456789ull), /* time_ns */
      LE64(250000000),                 /* duration_ns */
      LE32(4242),                      /* pid */
      LE32(2),                         /* trigger QUEUE_ERROR */
      LE32(1),                         /* tier SCRATCH */
      LE32(11),                        /* flags HOST_STOPPED | QUEUES_SUSPENDED | UID_KNOWN */
      LE64(1ull << 30),                /* max_size */
      LE64(30000),                     /* deadline_ms */
      LE32(1), LE32(16),               /* kfd_major, kfd_minor */
      LE32(120), LE32(64),             /* kfd entry sizes */
      LE32(0),                         /* signal */
      LE32(0xfffffffd),                /* compress_level -3 */
      LE32(0), LE32(12), LE32(24),     /* producer, producer_version, hostname */
      LE32(NONE),                      /* kernel: absent */
      LE32(36), LE32(48),              /* exe, cmdline */
      LE32(NONE),                      /* options: absent */
      LE32(4243),                      /* 1.3: error_thread */
      LE32(5),                         /* 1.1: exception_code EC_QUEUE_WAVE_MEMORY_VIOLATION */
      LE32(0x4a2b), LE32(3),           /* 1.1: exception_gpu_id, exception_queue_id */
      LE32(0x21),                      /* 1.2: fault_reasons NOT_PRESENT | IMPRECISE */
      LE64(0x7f39f5000040ull),         /* 1.1: fault_address */
      LE32(1000),                      /* 1.4: uid */
      LE32(60), LE32(68),              /* 1.4: job, rank */
      LE32(0));                        /* reserved */
    /* 0xac heap */
    G(g, LE32(7));
    g_raw(g, "gpucore", 7);
    G(g, 0);
    G(g, LE32(5));
    g_raw(g, "0.1.0", 5);
    G(g, 0, 0, 0);
    G(g, LE32(5));
    g_raw(g, "h\xc3\xb6st", 5);
    G(g, 0, 0, 0);
    G(g, LE32(8));
    g_raw(g, "/bin/app", 8);
    G(g, LE32(6));
    g_raw(g, "app\0-n", 6);
    G(g, 0, 0);
    G(g, LE32(3));
    g_raw(g, "j42", 3);
    G(g, 0);
    G(g, LE32(1));
    g_raw(g, "7", 1);
    G(g, 0, 0, 0);
}

#define STR(s) ((gpucore_str_t){ (s), (uint32_t)(sizeof(s) - 1) })

static void assert_str(gpucore_str_t got, const char *want, uint32_t len)
{
    assert_non_null(got.ptr);
    assert_int_equal(got.len, len);
    assert_memory_equal(got.ptr, want, len);
    assert_int_equal(got.ptr[len], '\0');
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

/* ------------------------------------------------------------------------------------------ */
/* Golden bytes: encode gives exactly them, decode yields the fields                          */
/* ------------------------------------------------------------------------------------------ */

static void test_golden_alloc_map(void **state)
{
    gpucore_alloc_t a = { 0x7f3a40000000, 0x100000, GPUCORE_ALLOC_RING,
                          0x4a2b,         0,        STR("AQL ring, queue 0") };
    gpucore_alloc_map_t map = { .count = 1, .allocs = &a };
    gpucore_alloc_map_t *got = NULL;
    struct gold g;
    void *desc;
    size_t size;

    (void)state;
    gold_alloc_map(&g);
    assert_int_equal(g.n, 84);
    assert_int_equal(gpucore_alloc_map_encode(&map, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, g.n);
    assert_memory_equal(desc, g.b, g.n);
    gpucore_free(desc);

    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->count, 1);
    assert_int_equal(got->decoded_flags, 0);
    assert_int_equal(got->allocs[0].base, 0x7f3a40000000);
    assert_int_equal(got->allocs[0].size, 0x100000);
    assert_int_equal(got->allocs[0].kind, GPUCORE_ALLOC_RING);
    assert_int_equal(got->allocs[0].gpu_id, 0x4a2b);
    assert_int_equal(got->allocs[0].flags, 0);
    assert_str(got->allocs[0].label, "AQL ring, queue 0", 17);
    gpucore_alloc_map_free(got);
    gpucore_alloc_map_free(NULL);
}

static void test_golden_manifest(void **state)
{
    gpucore_manifest_entry_t e[2] = {
        { 0x7f3a40000000, 0x100000, GPUCORE_TIER_STATE, GPUCORE_RANGE_CAPTURED, GPUCORE_REASON_NONE,
          0, STR("ring") },
        { 0x7f3a00000000,
          0x40000000,
          GPUCORE_TIER_ALL,
          GPUCORE_RANGE_SKIPPED,
          GPUCORE_REASON_BUDGET,
          0,
          { NULL, 0 } },
    };
    gpucore_manifest_t m = { GPUCORE_MANIFEST_TRUNCATED, GPUCORE_REASON_BUDGET, 2, e, 0 };
    gpucore_manifest_t *got = NULL;
    gpucore_note_header_t h;
    struct gold g;
    void *desc;
    size_t size;

    (void)state;
    gold_manifest(&g);
    assert_int_equal(g.n, 124);
    assert_int_equal(gpucore_manifest_encode(&m, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, g.n);
    assert_memory_equal(desc, g.b, g.n);
    gpucore_free(desc);

    assert_int_equal(gpucore_note_header_decode(g.b, g.n, &h, NULL), GPUCORE_OK);
    assert_int_equal(h.major, 1);
    assert_int_equal(h.minor, 5);
    assert_int_equal(h.header_size, 36);
    assert_int_equal(h.incompat, 0);
    assert_int_equal(h.compat, 0);
    assert_int_equal(h.record_size, 40);
    assert_int_equal(h.record_count, 2);

    assert_int_equal(gpucore_manifest_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->flags, GPUCORE_MANIFEST_TRUNCATED);
    assert_int_equal(got->truncation_reason, GPUCORE_REASON_BUDGET);
    assert_int_equal(got->count, 2);
    assert_int_equal(got->decoded_flags, 0);
    assert_int_equal(got->entries[0].address, 0x7f3a40000000);
    assert_int_equal(got->entries[0].status, GPUCORE_RANGE_CAPTURED);
    assert_str(got->entries[0].label, "ring", 4);
    assert_int_equal(got->entries[1].size, 0x40000000);
    assert_int_equal(got->entries[1].tier, GPUCORE_TIER_ALL);
    assert_int_equal(got->entries[1].status, GPUCORE_RANGE_SKIPPED);
    assert_int_equal(got->entries[1].reason, GPUCORE_REASON_BUDGET);
    assert_str(got->entries[1].label, "", 0); /* absent decodes as "" */
    gpucore_manifest_free(got);
}

static void test_golden_code_objects(void **state)
{
    static const uint8_t elf[8] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40 };
    gpucore_code_object_t o[2] = {
        { 0x7f3a5d000000, 8, GPUCORE_CODE_OBJECT_EMBEDDED, STR("file:///a.co"), elf, 8 },
        { 0x7f3a5e000000, 8192, 0, STR(CO_URI1), NULL, 0 },
    };
    gpucore_code_objects_t objs = { .count = 2, .objects = o };
    gpucore_code_objects_t *got = NULL;
    struct gold g;
    void *desc;
    size_t size;

    (void)state;
    gold_code_objects(&g);
    assert_int_equal(g.n, 184);
    assert_int_equal(gpucore_code_objects_encode(&objs, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, g.n);
    assert_memory_equal(desc, g.b, g.n);
    gpucore_free(desc);

    assert_int_equal(gpucore_code_objects_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->count, 2);
    assert_int_equal(got->decoded_flags, 0);
    assert_int_equal(got->objects[0].load_address, 0x7f3a5d000000);
    assert_int_equal(got->objects[0].size, 8);
    assert_int_equal(got->objects[0].flags, GPUCORE_CODE_OBJECT_EMBEDDED);
    assert_int_equal(got->objects[0].bytes_size, 8);
    assert_non_null(got->objects[0].bytes);
    assert_memory_equal(got->objects[0].bytes, elf, 8);
    assert_str(got->objects[0].uri, "file:///a.co", 12);
    assert_int_equal(got->objects[1].flags, 0);
    assert_null(got->objects[1].bytes);
    assert_int_equal(got->objects[1].bytes_size, 0);
    assert_str(got->objects[1].uri, CO_URI1, 45);
    gpucore_code_objects_free(got);
}

static void fill_golden_meta(gpucore_capture_meta_t *m)
{
    memset(m, 0, sizeof(*m));
    m->time_ns = 1700000000123456789ull;
    m->duration_ns = 250000000;
    m->pid = 4242;
    m->trigger = GPUCORE_TRIGGER_QUEUE_ERROR;
    m->tier = GPUCORE_TIER_SCRATCH;
    m->flags = GPUCORE_META_HOST_STOPPED | GPUCORE_META_QUEUES_SUSPENDED;
    m->max_size = 1ull << 30;
    m->deadline_ms = 30000;
    m->kfd_major = 1;
    m->kfd_minor = 16;
    m->kfd_device_entry_size = 120;
    m->kfd_queue_entry_size = 64;
    m->compress_level = -3;
    m->producer = STR("gpucore");
    m->producer_version = STR("0.1.0");
    m->hostname = STR("h\xc3\xb6st");
    m->exe = STR("/bin/app");
    m->cmdline = STR("app\0-n");
    m->exception_code = 5;
    m->exception_gpu_id = 0x4a2b;
    m->exception_queue_id = 3;
    m->fault_address = 0x7f39f5000040ull;
    m->fault_reasons = GPUCORE_FAULT_PAGE_NOT_PRESENT | GPUCORE_FAULT_IMPRECISE;
    m->error_thread = 4243;
    m->flags |= GPUCORE_META_UID_KNOWN;
    m->uid = 1000;
    m->job = STR("j42");
    m->rank = STR("7");
}

static void test_golden_capture_meta(void **state)
{
    gpucore_capture_meta_t m;
    gpucore_capture_meta_t *got = NULL;
    struct gold g;
    void *desc;
    size_t size;

    (void)state;
    gold_capture_meta(&g);
    assert_int_equal(g.n, 248);
    fill_golden_meta(&m);
    assert_int_equal(gpucore_capture_meta_encode(&m, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, g.n);
    assert_memory_equal(desc, g.b, g.n);
    gpucore_free(desc);

    assert_int_equal(gpucore_capture_meta_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->time_ns, 1700000000123456789ull);
    assert_int_equal(got->duration_ns, 250000000);
    assert_int_equal(got->pid, 4242);
    assert_int_equal(got->trigger, GPUCORE_TRIGGER_QUEUE_ERROR);
    assert_int_equal(got->tier, GPUCORE_TIER_SCRATCH);
    assert_int_equal(got->flags, 11);
    assert_int_equal(got->max_size, 1ull << 30);
    assert_int_equal(got->deadline_ms, 30000);
    assert_int_equal(got->kfd_major, 1);
    assert_int_equal(got->kfd_minor, 16);
    assert_int_equal(got->kfd_device_entry_size, 120);
    assert_int_equal(got->kfd_queue_entry_size, 64);
    assert_int_equal(got->signal, 0);
    assert_true(got->compress_level == -3);
    assert_str(got->producer, "gpucore", 7);
    assert_str(got->producer_version, "0.1.0", 5);
    assert_str(got->hostname, "h\xc3\xb6st", 5);
    assert_str(got->kernel, "", 0);
    assert_str(got->exe, "/bin/app", 8);
    assert_str(got->cmdline, "app\0-n", 6);
    assert_str(got->options, "", 0);
    assert_int_equal(got->fault_reasons, 0x21);
    assert_int_equal(got->error_thread, 4243);
    assert_int_equal(got->uid, 1000);
    assert_str(got->job, "j42", 3);
    assert_str(got->rank, "7", 1);
    assert_int_equal(got->decoded_flags, 0);
    gpucore_capture_meta_free(got);
}

/* ------------------------------------------------------------------------------------------ */
/* Round trips                                                                                */
/* ------------------------------------------------------------------------------------------ */

static void test_round_trip_meta(void **state)
{
    /* Every string kind: 2-, 3- and 4-byte UTF-8, embedded NULs, a leading NUL, a long one. */
    static char longstr[70000];
    gpucore_capture_meta_t m;
    gpucore_capture_meta_t *got = NULL;
    void *desc;
    size_t size;

    (void)state;
    memset(longstr, 'x', sizeof(longstr));
    memset(&m, 0, sizeof(m));
    m.time_ns = UINT64_MAX;
    m.pid = UINT32_MAX;
    m.trigger = GPUCORE_TRIGGER_SYNTHETIC;
    m.compress_level = INT32_MIN;
    m.signal = 11;
    m.producer = STR("gpucore");
    m.producer_version = STR("1.2.3-\xe2\x9c\x93");            /* check mark */
    m.hostname = STR("\xe6\x97\xa5\xe6\x9c\xac-h\xc3\xa9llo"); /* CJK + Latin-1 range */
    m.kernel = STR("6.8.0-\xf0\x9d\x84\x9e");                  /* U+1D11E, 4 bytes */
    m.exe = (gpucore_str_t){ longstr, (uint32_t)sizeof(longstr) };
    m.cmdline = STR("\0./app\0--size\0\xef\xbf\xbf\0"); /* U+FFFF, leading NUL */
    m.options = STR("tier=all max=1G");
    assert_int_equal(gpucore_capture_meta_encode(&m, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size % 4, 0);
    assert_int_equal(gpucore_capture_meta_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->time_ns, UINT64_MAX);
    assert_int_equal(got->pid, UINT32_MAX);
    assert_true(got->compress_level == INT32_MIN);
    assert_int_equal(got->signal, 11);
    assert_str(got->producer_version, m.producer_version.ptr, m.producer_version.len);
    assert_str(got->hostname, m.hostname.ptr, m.hostname.len);
    assert_str(got->kernel, m.kernel.ptr, m.kernel.len);
    assert_str(got->exe, longstr, sizeof(longstr));
    assert_str(got->cmdline, m.cmdline.ptr, m.cmdline.len);
    assert_str(got->options, "tier=all max=1G", 15);
    gpucore_capture_meta_free(got);
    gpucore_free(desc);
}

static void test_round_trip_manifest(void **state)
{
    enum { N = 1000 };
    gpucore_manifest_entry_t *e = calloc(N, sizeof(*e));
    char(*labels)[32] = calloc(N, sizeof(*labels));
    gpucore_manifest_t m = { 0, GPUCORE_REASON_NONE, N, e, 0 };
    gpucore_manifest_t *got = NULL;
    void *desc;
    size_t size;

    (void)state;
    assert_non_null(e);
    assert_non_null(labels);
    for (uint32_t i = 0; i < N; i++) {
        int n = snprintf(labels[i], sizeof(labels[i]), "r\xc3\xa4nge %u", i);

        e[i].address = 0x10000ull * i;
        e[i].size = i;
        e[i].tier = i % 5;
        e[i].status = 1 + i % 3;
        e[i].reason = i % 7;
        e[i].err = i % 3 == 2 ? 5 : 0;
        e[i].label = i % 4 ? (gpucore_str_t){ labels[i], (uint32_t)n } : (gpucore_str_t){ 0 };
    }
    assert_int_equal(gpucore_manifest_encode(&m, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_manifest_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->count, N);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(got->entries[i].address, e[i].address);
        assert_int_equal(got->entries[i].size, e[i].size);
        assert_int_equal(got->entries[i].tier, e[i].tier);
        assert_int_equal(got->entries[i].status, e[i].status);
        assert_int_equal(got->entries[i].reason, e[i].reason);
        assert_int_equal(got->entries[i].err, e[i].err);
        if (e[i].label.ptr)
            assert_str(got->entries[i].label, e[i].label.ptr, e[i].label.len);
        else
            assert_str(got->entries[i].label, "", 0);
    }
    gpucore_manifest_free(got);
    gpucore_free(desc);
    free(e);
    free(labels);
}

static void test_round_trip_code_objects(void **state)
{
    enum { BIG = 100003 };
    uint8_t *big = malloc(BIG);
    gpucore_code_object_t o[4];
    gpucore_code_objects_t objs = { .count = 4, .objects = o };
    gpucore_code_objects_t *got = NULL;
    void *desc;
    size_t size;

    (void)state;
    assert_non_null(big);
    for (size_t i = 0; i < BIG; i++)
        big[i] = (uint8_t)(i * 7 + 3);
    memset(o, 0, sizeof(o));
    o[0] = (gpucore_code_object_t){ 0x1000,
                                    BIG,
                                    GPUCORE_CODE_OBJECT_EMBEDDED,
                                    STR("file:///opt/r\xc3\xb6"
                                        "cm/k.co#offset=0&size=100003"),
                                    big,
                                    BIG };
    o[1] = (gpucore_code_object_t){
        0x2000, BIG, GPUCORE_CODE_OBJECT_TRUNCATED, STR("memory://1#offset=0x2000&size=100003"),
        big,    4097
    };
    o[2] = (gpucore_code_object_t){ 0x3000, 4096, 0, STR("file:///x"), NULL, 0 };
    /* An empty embedded object: zero bytes, NULL pointer allowed. */
    o[3] = (gpucore_code_object_t){ 0x4000, 0, GPUCORE_CODE_OBJECT_EMBEDDED, { NULL, 0 }, NULL, 0 };
    assert_int_equal(gpucore_code_objects_encode(&objs, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_code_objects_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->count, 4);
    assert_int_equal(got->objects[0].bytes_size, BIG);
    assert_memory_equal(got->objects[0].bytes, big, BIG);
    assert_str(got->objects[0].uri, o[0].uri.ptr, o[0].uri.len);
    assert_int_equal(got->objects[1].flags, GPUCORE_CODE_OBJECT_TRUNCATED);
    assert_int_equal(got->objects[1].size, BIG);
    assert_int_equal(got->objects[1].bytes_size, 4097);
    assert_memory_equal(got->objects[1].bytes, big, 4097);
    assert_null(got->objects[2].bytes);
    assert_int_equal(got->objects[2].size, 4096);
    assert_non_null(got->objects[3].bytes);
    assert_int_equal(got->objects[3].bytes_size, 0);
    assert_str(got->objects[3].uri, "", 0);
    gpucore_code_objects_free(got);
    gpucore_free(desc);
    free(big);
}

/* A zero-byte embedded object as the first heap item (found by fuzz_gpucore_notes). */
static void test_empty_blob_first(void **state)
{
    static const uint8_t none[1];
    gpucore_code_object_t o = { 0x1000, 0, GPUCORE_CODE_OBJECT_EMBEDDED, { NULL, 0 }, none, 0 };
    gpucore_code_objects_t objs = { .count = 1, .objects = &o };
    gpucore_code_objects_t *got = NULL;
    void *desc;
    size_t size;

    (void)state;
    assert_int_equal(gpucore_code_objects_encode(&objs, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, 28 + 40);
    assert_int_equal(gpucore_code_objects_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_non_null(got->objects[0].bytes);
    assert_int_equal(got->objects[0].bytes_size, 0);
    gpucore_code_objects_free(got);
    gpucore_free(desc);
}

static void test_round_trip_empty(void **state)
{
    gpucore_alloc_map_t map = { 0 };
    gpucore_alloc_map_t *got = NULL;
    gpucore_manifest_t man = { 0 };
    gpucore_manifest_t *mgot = NULL;
    void *desc;
    size_t size;

    (void)state;
    assert_int_equal(gpucore_alloc_map_encode(&map, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, 28);
    assert_int_equal(gpucore_alloc_map_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->count, 0);
    gpucore_alloc_map_free(got);
    gpucore_free(desc);

    assert_int_equal(gpucore_manifest_encode(&man, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(size, 36);
    assert_int_equal(gpucore_manifest_decode(desc, size, &mgot, NULL), GPUCORE_OK);
    assert_int_equal(mgot->count, 0);
    gpucore_manifest_free(mgot);
    gpucore_free(desc);
}

/* Empty and absent strings share one encoding, so encode(decode(x)) is canonical. */
static void test_empty_string_canonical(void **state)
{
    gpucore_alloc_t a = { .label = { "", 0 } };
    gpucore_alloc_map_t map = { .count = 1, .allocs = &a };
    gpucore_alloc_map_t *got = NULL;
    struct gold g;
    uint8_t *bytes;
    void *desc;
    size_t size;

    (void)state;
    assert_int_equal(gpucore_alloc_map_encode(&map, &desc, &size, NULL), GPUCORE_OK);
    bytes = desc;
    assert_int_equal(size, 60);
    assert_int_equal(bytes[56] & bytes[57] & bytes[58] & bytes[59], 0xff);
    gpucore_free(desc);

    /* Readers still accept an explicit zero-length heap item. */
    g.n = 0;
    G(&g, LE32(1), LE32(0), LE32(28), LE32(0), LE32(0), LE32(32), LE32(1));
    G(&g, LE64(1), LE64(2), LE32(0), LE32(0), LE32(0), LE32(0));
    G(&g, LE32(0));
    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_str(got->allocs[0].label, "", 0);
    gpucore_alloc_map_free(got);
}

/* ------------------------------------------------------------------------------------------ */
/* Forward compatibility                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* An ALLOC_MAP as a later minor might write it: 40-byte header, 40-byte records. */
static void gold_alloc_map_grown(struct gold *g, uint32_t header_extra, uint32_t record_extra)
{
    g->n = 0;
    G(g, LE32(1), LE32(6), LE32(40), LE32(0), LE32(0), LE32(40), LE32(2));
    G(g, LE32(header_extra), LE32(0), LE32(0));
    G(g, LE64(0x1000), LE64(0x10), LE32(1), LE32(7), LE32(0), LE32(0), LE64(0));
    G(g, LE64(0x2000), LE64(0x20), LE32(2), LE32(8), LE32(0), LE32(NONE), LE64(record_extra));
    G(g, LE32(2), 'o', 'k', 0, 0);
}

static void test_larger_header_and_records(void **state)
{
    gpucore_alloc_map_t *got = NULL;
    struct gold g;

    (void)state;
    /* Zero tails: nothing this reader misses, but minor 6 still says "newer". */
    gold_alloc_map_grown(&g, 0, 0);
    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->count, 2);
    assert_int_equal(got->allocs[0].base, 0x1000);
    assert_str(got->allocs[0].label, "ok", 2);
    assert_int_equal(got->allocs[1].base, 0x2000); /* strided by 40, not 32 */
    assert_int_equal(got->allocs[1].gpu_id, 8);
    assert_int_equal(got->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
    gpucore_alloc_map_free(got);

    /* Same at minor 0: zero tails are not "newer". */
    gold_alloc_map_grown(&g, 0, 0);
    put32(g.b + 4, 0);
    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->decoded_flags, 0);
    gpucore_alloc_map_free(got);

    gold_alloc_map_grown(&g, 9, 0);
    put32(g.b + 4, 0);
    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
    gpucore_alloc_map_free(got);

    gold_alloc_map_grown(&g, 0, 9);
    put32(g.b + 4, 0);
    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
    assert_int_equal(got->allocs[1].size, 0x20);
    gpucore_alloc_map_free(got);
}

/* A 1.0 reader of a MANIFEST whose header is only 28 bytes sees flags and reason as 0. */
static void test_manifest_short_header(void **state)
{
    gpucore_manifest_t *got = NULL;
    struct gold g;

    (void)state;
    g.n = 0;
    G(&g, LE32(1), LE32(0), LE32(28), LE32(0), LE32(0), LE32(40), LE32(1));
    G(&g, LE64(0x5000), LE64(0x100), LE32(4), LE32(3), LE32(4), LE32(5), LE32(NONE), LE32(0));
    assert_int_equal(gpucore_manifest_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->flags, 0);
    assert_int_equal(got->truncation_reason, 0);
    assert_int_equal(got->entries[0].err, 5);
    assert_int_equal(got->decoded_flags, 0);
    gpucore_manifest_free(got);

    /* 32 bytes: flags present, truncation_reason not. */
    g.n = 0;
    G(&g, LE32(1), LE32(0), LE32(32), LE32(0), LE32(0), LE32(40), LE32(0), LE32(1));
    assert_int_equal(gpucore_manifest_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->flags, 1);
    assert_int_equal(got->truncation_reason, 0);
    gpucore_manifest_free(got);
}

/* Data this reader does not understand but may ignore: all decode, all flag "newer". */
static void test_newer_markers(void **state)
{
    static const struct {
        const char *name;
        uint32_t off;
        uint32_t value;
    } cases[] = {
        { "minor 6", 4, 6 },
        { "compat bit", 16, 0x80000000u },
        { "unknown manifest flag", 28, 0x8 },
        { "reserved field of record 1", 76 + 36, 1 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpucore_manifest_t *got = NULL;
        struct gold g;

        gold_manifest(&g);
        put32(g.b + cases[i].off, cases[i].value);
        print_message("  newer: %s\n", cases[i].name);
        assert_int_equal(gpucore_manifest_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
        assert_int_equal(got->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
        assert_int_equal(got->count, 2);
        gpucore_manifest_free(got);
    }
    {
        gpucore_capture_meta_t *meta = NULL;
        gpucore_code_objects_t *objs = NULL;
        gpucore_alloc_map_t *map = NULL;
        struct gold g;

        gold_capture_meta(&g);
        put32(g.b + 28 + 28, 0x100 | 11); /* unknown meta flag */
        assert_int_equal(gpucore_capture_meta_decode(g.b, g.n, &meta, NULL), GPUCORE_OK);
        assert_int_equal(meta->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
        assert_int_equal(meta->flags, 0x10b); /* kept as stored */
        gpucore_capture_meta_free(meta);

        gold_code_objects(&g);
        put32(g.b + 68 + 36, 0x10); /* unknown code-object flag, no blob */
        assert_int_equal(gpucore_code_objects_decode(g.b, g.n, &objs, NULL), GPUCORE_OK);
        assert_int_equal(objs->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
        assert_null(objs->objects[1].bytes);
        gpucore_code_objects_free(objs);

        gold_alloc_map(&g);
        put32(g.b + 28 + 24, 1); /* alloc flags: none defined */
        assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, &map, NULL), GPUCORE_OK);
        assert_int_equal(map->decoded_flags, GPUCORE_NOTE_DECODED_NEWER);
        gpucore_alloc_map_free(map);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Malformed descriptors                                                                      */
/* ------------------------------------------------------------------------------------------ */

enum base { ALLOC, MANIFEST, CODE, META };

static gpucore_status_t decode_as(enum base b, const void *desc, size_t size, void **ret,
                                  gpucore_diag_t *diag)
{
    switch (b) {
    case ALLOC:
        return gpucore_alloc_map_decode(desc, size, (gpucore_alloc_map_t **)ret, diag);
    case MANIFEST:
        return gpucore_manifest_decode(desc, size, (gpucore_manifest_t **)ret, diag);
    case CODE:
        return gpucore_code_objects_decode(desc, size, (gpucore_code_objects_t **)ret, diag);
    default:
        return gpucore_capture_meta_decode(desc, size, (gpucore_capture_meta_t **)ret, diag);
    }
}

static void gold_for(enum base b, struct gold *g)
{
    switch (b) {
    case ALLOC:
        gold_alloc_map(g);
        break;
    case MANIFEST:
        gold_manifest(g);
        break;
    case CODE:
        gold_code_objects(g);
        break;
    default:
        gold_capture_meta(g);
        break;
    }
}

struct patch {
    uint32_t off;
    unsigned width; /* 1, 4 or 8; 0 ends the list */
    uint64_t value;
};

struct bad_case {
    const char *name;
    enum base base;
    struct patch patches[3];
    size_t size; /* 0: the golden size */
    gpucore_status_t want;
    uint64_t want_offset;
    const char *needle;
};

/*
 * Offsets used below. ALLOC_MAP (84 bytes): record at 0x1c, its label field at 0x38, heap at
 * 0x3c (string length), string bytes 0x40..0x50. CODE_OBJECTS (184): records at 0x1c and 0x44;
 * blob_offset/blob_size/flags of record 0 at 0x2c/0x34/0x40, of record 1 at 0x54/0x5c/0x68.
 */
static const struct bad_case bad_cases[] = {
    { "descriptor of 2 bytes", ALLOC, { { 0 } }, 2, GPUCORE_E_TRUNCATED, 0, "major" },
    { "truncated common header", ALLOC, { { 0 } }, 20, GPUCORE_E_TRUNCATED, 20, "record_size" },
    { "major 2", ALLOC, { { 0, 4, 2 } }, 0, GPUCORE_E_VERSION, 0, "major 2" },
    { "major 2 in 8 bytes", ALLOC, { { 0, 4, 2 } }, 8, GPUCORE_E_VERSION, 0, NULL },
    { "major 0", META, { { 0, 4, 0 } }, 0, GPUCORE_E_VERSION, 0, NULL },
    { "unknown incompat bit", ALLOC, { { 12, 4, 0x4 } }, 0, GPUCORE_E_VERSION, 12, "incompat" },
    { "header_size below 28", ALLOC, { { 8, 4, 24 } }, 0, GPUCORE_E_CORRUPT, 8, "header_size 24" },
    { "header_size 0", CODE, { { 8, 4, 0 } }, 0, GPUCORE_E_CORRUPT, 8, NULL },
    { "header_size not a multiple of 4", ALLOC, { { 8, 4, 30 } }, 0, GPUCORE_E_CORRUPT, 8, NULL },
    { "header_size past the end", ALLOC, { { 8, 4, 88 } }, 0, GPUCORE_E_TRUNCATED, 8, "runs past" },
    { "record_size not a multiple of 4", ALLOC, { { 20, 4, 34 } }, 0, GPUCORE_E_CORRUPT, 20, NULL },
    { "record_size below the 1.0 size",
      ALLOC,
      { { 20, 4, 28 } },
      0,
      GPUCORE_E_CORRUPT,
      20,
      "below the 32-byte" },
    { "record_size 0", ALLOC, { { 20, 4, 0 } }, 0, GPUCORE_E_CORRUPT, 20, NULL },
    { "manifest record_size 36", MANIFEST, { { 20, 4, 36 } }, 0, GPUCORE_E_CORRUPT, 20, NULL },
    { "records past the end", ALLOC, { { 24, 4, 2 } }, 0, GPUCORE_E_TRUNCATED, 60, "record 1" },
    { "count x size overflow attempt",
      ALLOC,
      { { 20, 4, 0xfffffffc }, { 24, 4, 0xffffffff } },
      0,
      GPUCORE_E_TRUNCATED,
      28,
      "record 0" },
    { "count x size overflow attempt 2",
      CODE,
      { { 20, 4, 0x80000000 }, { 24, 4, 0x80000000 } },
      0,
      GPUCORE_E_TRUNCATED,
      28,
      NULL },
    { "record_count above 16M",
      ALLOC,
      { { 20, 4, 0 }, { 24, 4, (16u << 20) + 1 } },
      0,
      GPUCORE_E_LIMIT,
      24,
      "limit" },
    { "CAPTURE_META with 0 records", META, { { 24, 4, 0 } }, 0, GPUCORE_E_CORRUPT, 24, "is not 1" },
    { "string ref out of heap", ALLOC, { { 0x38, 4, 24 } }, 0, GPUCORE_E_CORRUPT, 0x38, "outside" },
    { "string ref 0xfffffffe",
      ALLOC,
      { { 0x38, 4, 0xfffffffe } },
      0,
      GPUCORE_E_CORRUPT,
      0x38,
      NULL },
    { "string length field crosses the end",
      ALLOC,
      { { 0x38, 4, 21 } },
      0,
      GPUCORE_E_CORRUPT,
      0x38,
      NULL },
    { "string len past end", ALLOC, { { 0x3c, 4, 21 } }, 0, GPUCORE_E_CORRUPT, 0x3c, "runs past" },
    { "string len 0xffffffff",
      ALLOC,
      { { 0x3c, 4, 0xffffffff } },
      0,
      GPUCORE_E_CORRUPT,
      0x3c,
      NULL },
    { "meta string ref out of heap",
      META,
      { { 28 + 92, 4, 76 } },
      0,
      GPUCORE_E_CORRUPT,
      28 + 92,
      "cmdline" },
    { "UTF-8 stray continuation byte",
      ALLOC,
      { { 0x40, 1, 0x80 } },
      0,
      GPUCORE_E_CORRUPT,
      0x40,
      "UTF-8" },
    { "UTF-8 overlong C0 80",
      ALLOC,
      { { 0x40, 1, 0xc0 }, { 0x41, 1, 0x80 } },
      0,
      GPUCORE_E_CORRUPT,
      0x40,
      NULL },
    { "UTF-8 overlong E0 80 80",
      ALLOC,
      { { 0x40, 1, 0xe0 }, { 0x41, 1, 0x80 }, { 0x42, 1, 0x80 } },
      0,
      GPUCORE_E_CORRUPT,
      0x41,
      NULL },
    { "UTF-8 surrogate ED A0 80",
      ALLOC,
      { { 0x40, 1, 0xed }, { 0x41, 1, 0xa0 }, { 0x42, 1, 0x80 } },
      0,
      GPUCORE_E_CORRUPT,
      0x41,
      NULL },
    { "UTF-8 above U+10FFFF",
      ALLOC,
      { { 0x40, 4, 0x808090f4 } },
      0,
      GPUCORE_E_CORRUPT,
      0x41,
      NULL },
    { "UTF-8 lead byte F5", ALLOC, { { 0x44, 1, 0xf5 } }, 0, GPUCORE_E_CORRUPT, 0x44, NULL },
    { "UTF-8 bad continuation",
      ALLOC,
      { { 0x40, 1, 0xe2 }, { 0x41, 1, 0x82 } },
      0,
      GPUCORE_E_CORRUPT,
      0x42,
      NULL },
    { "UTF-8 truncated at the end of the string",
      ALLOC,
      { { 0x50, 1, 0xe2 } },
      0,
      GPUCORE_E_CORRUPT,
      0x50,
      NULL },
    { "UTF-8 error in the meta hostname",
      META,
      { { 172 + 24 + 4 + 2, 1, 0x41 } },
      0,
      GPUCORE_E_CORRUPT,
      172 + 24 + 4 + 2,
      "hostname" },
    { "embedded blob out of heap",
      CODE,
      { { 0x2c, 8, 72 } },
      0,
      GPUCORE_E_CORRUPT,
      0x2c,
      "outside" },
    { "blob offset wraps",
      CODE,
      { { 0x2c, 8, 0xfffffffffffffff8ull } },
      0,
      GPUCORE_E_CORRUPT,
      0x2c,
      NULL },
    { "blob size wraps",
      CODE,
      { { 0x34, 8, UINT64_MAX }, { 0x24, 8, UINT64_MAX } },
      0,
      GPUCORE_E_CORRUPT,
      0x2c,
      NULL },
    { "blob_size mismatch", CODE, { { 0x34, 8, 4 } }, 0, GPUCORE_E_CORRUPT, 0x34, "differs" },
    { "EMBEDDED and TRUNCATED", CODE, { { 0x40, 4, 3 } }, 0, GPUCORE_E_CORRUPT, 0x40, "both" },
    { "TRUNCATED with the whole object",
      CODE,
      { { 0x40, 4, 2 } },
      0,
      GPUCORE_E_CORRUPT,
      0x34,
      "not below" },
    { "blob without EMBEDDED or TRUNCATED",
      CODE,
      { { 0x54, 8, 4 } },
      0,
      GPUCORE_E_CORRUPT,
      0x54,
      "must be 0" },
    { "blob_size without flags", CODE, { { 0x5c, 8, 8 } }, 0, GPUCORE_E_CORRUPT, 0x54, NULL },
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        void *sentinel = (void *)&bad_cases;
        void *got = sentinel;
        gpucore_diag_t diag;
        struct gold g;

        memset(&diag, 0, sizeof(diag));
        gold_for(c->base, &g);
        for (size_t k = 0; k < 3 && c->patches[k].width; k++) {
            const struct patch *p = &c->patches[k];

            if (p->width == 1)
                g.b[p->off] = (uint8_t)p->value;
            else if (p->width == 4)
                put32(g.b + p->off, (uint32_t)p->value);
            else
                put64(g.b + p->off, p->value);
        }
        print_message("  malformed: %s\n", c->name);
        expect_failure(decode_as(c->base, g.b, c->size ? c->size : g.n, &got, &diag), &diag,
                       c->want, c->want_offset, c->needle);
        assert_ptr_equal(got, sentinel);
    }
}

/* Two records sharing one heap item: refused, or a small note could expand without bound. */
static void test_shared_heap_item(void **state)
{
    gpucore_alloc_map_t *got = NULL;
    gpucore_diag_t diag;
    struct gold g;

    (void)state;
    g.n = 0;
    G(&g, LE32(1), LE32(0), LE32(28), LE32(0), LE32(0), LE32(32), LE32(2));
    G(&g, LE64(1), LE64(1), LE32(0), LE32(0), LE32(0), LE32(0));
    G(&g, LE64(2), LE64(2), LE32(0), LE32(0), LE32(0), LE32(0));
    G(&g, LE32(4), 'a', 'b', 'c', 'd');
    expect_failure(gpucore_alloc_map_decode(g.b, g.n, &got, &diag), &diag, GPUCORE_E_LIMIT,
                   28 + 32 + 28, "shared");
}

static void test_meta_two_records(void **state)
{
    gpucore_capture_meta_t *got = NULL;
    gpucore_diag_t diag;
    struct gold g;
    uint8_t rec[104];

    (void)state;
    memset(rec, 0, sizeof(rec));
    for (int i = 72; i < 100; i += 4)
        put32(rec + i, NONE);
    g.n = 0;
    G(&g, LE32(1), LE32(0), LE32(28), LE32(0), LE32(0), LE32(104), LE32(2));
    g_raw(&g, rec, sizeof(rec));
    g_raw(&g, rec, sizeof(rec));
    expect_failure(gpucore_capture_meta_decode(g.b, g.n, &got, &diag), &diag, GPUCORE_E_CORRUPT, 24,
                   "record_count 2 is not 1");
    /* The same bytes with one record are fine. */
    put32(g.b + 24, 1);
    assert_int_equal(gpucore_capture_meta_decode(g.b, 28 + 104, &got, NULL), GPUCORE_OK);
    assert_str(got->producer, "", 0);
    gpucore_capture_meta_free(got);
}

/* error_thread (1.3) took the place of the 1.0 `reserved` field at offset 100: a record of an
 * older minor holds 0 there, which reads as "unknown"; the 1.3 value round-trips. */
static void test_meta_error_thread_versions(void **state)
{
    gpucore_capture_meta_t *got = NULL;
    gpucore_capture_meta_t m;
    struct gold g;
    void *desc;
    size_t size;

    (void)state;
    /* A 1.2 record: minor 2, 0 at offset 100. */
    gold_capture_meta(&g);
    put32(g.b + 4, 2);
    put32(g.b + 28 + 100, 0);
    assert_int_equal(gpucore_capture_meta_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->error_thread, 0);
    assert_int_equal(got->fault_reasons, 0x21);
    assert_int_equal(got->decoded_flags, 0);
    gpucore_capture_meta_free(got);

    /* A 1.3 record of 128 bytes: the 1.4 fields read as unknown, the strings as "" (never
       NULL, as an absent string reads). */
    gold_capture_meta(&g);
    put32(g.b + 4, 3);
    put32(g.b + 20, 128);
    put32(g.b + 28 + 28, 3);
    memmove(g.b + 28 + 128, g.b + 28 + 144, g.n - 28 - 144);
    g.n -= 16;
    assert_int_equal(gpucore_capture_meta_decode(g.b, g.n, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->uid, 0);
    assert_int_equal(got->flags & GPUCORE_META_UID_KNOWN, 0);
    assert_str(got->job, "", 0);
    assert_str(got->rank, "", 0);
    assert_str(got->exe, "/bin/app", 8);
    gpucore_capture_meta_free(got);

    /* Encode writes the current minor (5) and the tid at offset 100, little-endian. */
    fill_golden_meta(&m);
    m.error_thread = 0x01020304u;
    assert_int_equal(gpucore_capture_meta_encode(&m, &desc, &size, NULL), GPUCORE_OK);
    assert_int_equal(((const uint8_t *)desc)[4], 5);
    assert_memory_equal((const uint8_t *)desc + 28 + 100, "\x04\x03\x02\x01", 4);
    assert_int_equal(gpucore_capture_meta_decode(desc, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->error_thread, 0x01020304u);
    assert_int_equal(got->decoded_flags, 0);
    gpucore_capture_meta_free(got);
    gpucore_free(desc);
}

static void test_string_above_limit(void **state)
{
    const uint32_t len = (16u << 20) + 1;
    size_t size = 28 + 32 + 4 + (size_t)len + 3;
    uint8_t *d = calloc(1, size);
    gpucore_alloc_map_t *got = NULL;
    gpucore_diag_t diag;

    (void)state;
    assert_non_null(d);
    put32(d + 0, 1);
    put32(d + 8, 28);
    put32(d + 20, 32);
    put32(d + 24, 1);
    put32(d + 60, len);
    memset(d + 64, 'a', len);
    expect_failure(gpucore_alloc_map_decode(d, size, &got, &diag), &diag, GPUCORE_E_LIMIT, 60,
                   "limit");
    put32(d + 60, len - 1);
    assert_int_equal(gpucore_alloc_map_decode(d, size, &got, NULL), GPUCORE_OK);
    assert_int_equal(got->allocs[0].label.len, len - 1);
    gpucore_alloc_map_free(got);

    /* Encoding refuses it too. */
    {
        gpucore_alloc_t a = { .label = { (const char *)d + 64, len } };
        gpucore_alloc_map_t map = { .count = 1, .allocs = &a };
        void *desc;
        size_t n;

        assert_int_equal(gpucore_alloc_map_encode(&map, &desc, &n, &diag), GPUCORE_E_INVAL);
        assert_non_null(strstr(diag.message, "limit"));
    }
    free(d);
}

static void test_decode_args(void **state)
{
    gpucore_alloc_map_t *map = NULL;
    gpucore_note_header_t h;
    gpucore_diag_t diag;
    struct gold g;

    (void)state;
    gold_alloc_map(&g);
    assert_int_equal(gpucore_alloc_map_decode(NULL, 10, &map, &diag), GPUCORE_E_INVAL);
    assert_int_equal(diag.status, GPUCORE_E_INVAL);
    assert_int_equal(gpucore_alloc_map_decode(g.b, g.n, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_manifest_decode(g.b, g.n, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_code_objects_decode(g.b, g.n, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_capture_meta_decode(g.b, g.n, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_note_header_decode(NULL, 0, &h, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_note_header_decode(g.b, g.n, NULL, NULL), GPUCORE_E_INVAL);
    /* A note of another type with a too-small record is refused by record size. */
    expect_failure(gpucore_manifest_decode(g.b, g.n, (gpucore_manifest_t **)&map, &diag), &diag,
                   GPUCORE_E_CORRUPT, 20, "below the 40-byte");
}

/* ------------------------------------------------------------------------------------------ */
/* Encoder refusals                                                                           */
/* ------------------------------------------------------------------------------------------ */

static void expect_encode_inval(gpucore_status_t st, const gpucore_diag_t *diag, const char *needle)
{
    if (st != GPUCORE_E_INVAL || !strstr(diag->message, needle))
        print_message("status %d, message: %s\n", st, diag->message);
    assert_int_equal(st, GPUCORE_E_INVAL);
    assert_int_equal(diag->status, GPUCORE_E_INVAL);
    assert_non_null(strstr(diag->message, needle));
}

static void test_encode_invalid(void **state)
{
    static const uint8_t bytes[16];
    gpucore_alloc_t a = { .label = STR("bad \xc0\x80") };
    gpucore_alloc_map_t map = { .count = 1, .allocs = &a };
    gpucore_manifest_entry_t e = { .label = { NULL, 3 } };
    gpucore_manifest_t man = { .count = 1, .entries = &e };
    gpucore_capture_meta_t meta = { .hostname = STR("\xed\xa0\x80") };
    gpucore_code_object_t o;
    gpucore_code_objects_t objs = { .count = 1, .objects = &o };
    static const struct {
        uint64_t size;
        uint32_t flags;
        const uint8_t *bytes;
        uint64_t bytes_size;
        const char *needle;
    } co_cases[] = {
        { 8, 3, bytes, 8, "both" },
        { 8, GPUCORE_CODE_OBJECT_EMBEDDED, bytes, 4, "EMBEDDED" },
        { 8, GPUCORE_CODE_OBJECT_TRUNCATED, bytes, 8, "TRUNCATED" },
        { 8, 0, bytes, 0, "without" },
        { 8, 0, NULL, 8, "without" },
        { 8, GPUCORE_CODE_OBJECT_EMBEDDED, NULL, 8, "NULL bytes" },
    };
    void *sentinel = (void *)&map, *desc = sentinel;
    size_t size = 777;
    gpucore_diag_t diag;

    (void)state;
    expect_encode_inval(gpucore_alloc_map_encode(&map, &desc, &size, &diag), &diag, "UTF-8");
    expect_encode_inval(gpucore_manifest_encode(&man, &desc, &size, &diag), &diag, "NULL string");
    expect_encode_inval(gpucore_capture_meta_encode(&meta, &desc, &size, &diag), &diag, "hostname");
    map.allocs = NULL;
    expect_encode_inval(gpucore_alloc_map_encode(&map, &desc, &size, &diag), &diag, "NULL array");
    map.allocs = &a;
    map.count = (16u << 20) + 1;
    expect_encode_inval(gpucore_alloc_map_encode(&map, &desc, &size, &diag), &diag, "limit");
    for (size_t i = 0; i < sizeof(co_cases) / sizeof(co_cases[0]); i++) {
        memset(&o, 0, sizeof(o));
        o.size = co_cases[i].size;
        o.flags = co_cases[i].flags;
        o.bytes = co_cases[i].bytes;
        o.bytes_size = co_cases[i].bytes_size;
        expect_encode_inval(gpucore_code_objects_encode(&objs, &desc, &size, &diag), &diag,
                            co_cases[i].needle);
    }
    assert_ptr_equal(desc, sentinel);
    assert_int_equal(size, 777);
    assert_int_equal(gpucore_alloc_map_encode(NULL, &desc, &size, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_manifest_encode(&man, NULL, &size, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_capture_meta_encode(&meta, &desc, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_code_objects_encode(NULL, &desc, &size, NULL), GPUCORE_E_INVAL);
}

/* ------------------------------------------------------------------------------------------ */

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(gpucore_trigger_name(GPUCORE_TRIGGER_UNKNOWN), "unknown");
    assert_string_equal(gpucore_trigger_name(GPUCORE_TRIGGER_QUEUE_ERROR), "queue-error");
    assert_string_equal(gpucore_trigger_name(GPUCORE_TRIGGER_SYNTHETIC), "synthetic");
    assert_null(gpucore_trigger_name(6));
    assert_string_equal(gpucore_tier_name(GPUCORE_TIER_STATE), "state");
    assert_string_equal(gpucore_tier_name(GPUCORE_TIER_HOST), "host");
    assert_null(gpucore_tier_name(5));
    assert_null(gpucore_range_status_name(0));
    assert_string_equal(gpucore_range_status_name(GPUCORE_RANGE_CAPTURED), "captured");
    assert_string_equal(gpucore_range_status_name(GPUCORE_RANGE_UNREADABLE), "unreadable");
    assert_null(gpucore_range_status_name(4));
    assert_string_equal(gpucore_reason_name(GPUCORE_REASON_NONE), "none");
    assert_string_equal(gpucore_reason_name(GPUCORE_REASON_SPECIAL), "special");
    assert_string_equal(gpucore_reason_name(GPUCORE_REASON_REDACTED), "redacted");
    assert_null(gpucore_reason_name(8));
    assert_string_equal(gpucore_alloc_kind_name(GPUCORE_ALLOC_VRAM), "vram");
    assert_string_equal(gpucore_alloc_kind_name(GPUCORE_ALLOC_MMIO), "mmio");
    assert_null(gpucore_alloc_kind_name(11));
    assert_string_equal(gpucore_note_type_name(GPUCORE_NT_CAPTURE_META), "capture-meta");
    assert_string_equal(gpucore_note_type_name(GPUCORE_NT_ALLOC_MAP), "alloc-map");
    assert_null(gpucore_note_type_name(0));
    assert_null(gpucore_note_type_name(UINT32_MAX));
}

int test_schema_notes_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_alloc_map),
        cmocka_unit_test(test_golden_manifest),
        cmocka_unit_test(test_golden_code_objects),
        cmocka_unit_test(test_golden_capture_meta),
        cmocka_unit_test(test_round_trip_meta),
        cmocka_unit_test(test_round_trip_manifest),
        cmocka_unit_test(test_round_trip_code_objects),
        cmocka_unit_test(test_empty_blob_first),
        cmocka_unit_test(test_round_trip_empty),
        cmocka_unit_test(test_empty_string_canonical),
        cmocka_unit_test(test_larger_header_and_records),
        cmocka_unit_test(test_manifest_short_header),
        cmocka_unit_test(test_newer_markers),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_shared_heap_item),
        cmocka_unit_test(test_meta_two_records),
        cmocka_unit_test(test_meta_error_thread_versions),
        cmocka_unit_test(test_string_above_limit),
        cmocka_unit_test(test_decode_args),
        cmocka_unit_test(test_encode_invalid),
        cmocka_unit_test(test_names),
    };

    return cmocka_run_group_tests_name("schema: GPUCORE notes", tests, NULL, NULL);
}
