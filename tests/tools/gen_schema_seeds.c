/* SPDX-License-Identifier: MIT */
/*
 * gen_schema_seeds: writes the seed corpora of fuzz_kfd_note and fuzz_gpucore_notes.
 *
 *   gen_schema_seeds tests/fuzz/corpus
 *
 * Seeds are valid encodings of every note type (made with the library's encoders) plus
 * malformed variants that stop at each kind of check, so the fuzzers start past the easy
 * rejections. The files are committed; rerun this only when the formats change, and keep any
 * crash reproducers the fuzzers found next to them. Not a test.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpucore/schema.h>

static const char *out_dir;

#define STR(s) ((gpucore_str_t){ (s), (uint32_t)(sizeof(s) - 1) })

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void write_seed(const char *target, const char *name, uint8_t prefix, int use_prefix,
                       const void *data, size_t size)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", out_dir, target);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        perror(path);
        exit(1);
    }
    snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
    f = fopen(path, "wb");
    if (!f || (use_prefix && fwrite(&prefix, 1, 1, f) != 1) ||
        (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void kfd_seed(const char *name, const void *data, size_t size)
{
    write_seed("fuzz_kfd_note", name, 0, 0, data, size);
}

static void note_seed(const char *name, uint32_t type, const void *data, size_t size)
{
    /* fuzz_gpucore_notes selects the type by index 1..4, which is the low byte of each
     * GPUCORE_NT_* value (0x4743000N); any other byte exercises no decoder. */
    write_seed("fuzz_gpucore_notes", name, (uint8_t)type, 1, data, size);
}

static void check(gpucore_status_t st, const char *what)
{
    if (st != GPUCORE_OK) {
        fprintf(stderr, "gen_schema_seeds: %s: %s\n", what, gpucore_status_name(st));
        exit(1);
    }
}

/* --- AMDGPU notes --------------------------------------------------------------------------- */

static void kfd_seeds(void)
{
    gpucore_kfd_device_entry_t dev[2] = { 0 };
    gpucore_kfd_queue_entry_t q[3] = { 0 };
    gpucore_amdgpu_note_t note = { .kfd_major = 1, .kfd_minor = 16 };
    uint8_t buf[2048];
    uint8_t *d;
    void *p;
    size_t n;

    note.runtime.r_debug = 0x7f3a5c02e0a0;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note.runtime.ttmp_setup = 1;
    dev[0].gpu_id = 0x4a2b;
    dev[0].vendor_id = 0x1002;
    dev[0].device_id = 0x740f;
    dev[0].gfx_target_version = 90010;
    dev[0].simd_count = 416;
    dev[0].max_waves_per_simd = 8;
    dev[0].array_count = 8;
    dev[0].simd_arrays_per_engine = 1;
    dev[0].num_xcc = 1;
    dev[0].capability = 0x20048280;
    dev[0].debug_prop = 0x5e6;
    dev[1] = dev[0];
    dev[1].gpu_id = 0x4a2c;
    dev[1].gfx_target_version = 90402;
    dev[1].num_xcc = 8;
    q[0].ring_base_address = 0x7f3a40000000;
    q[0].write_pointer_address = 0x7f3a5c600038;
    q[0].read_pointer_address = 0x7f3a5c600080;
    q[0].ctx_save_restore_address = 0x7f3a3c000000;
    q[0].gpu_id = 0x4a2b;
    q[0].ring_size = 0x100000;
    q[0].queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
    q[0].ctx_save_restore_area_size = 0x5d5000;
    q[1] = q[0];
    q[1].queue_id = 1;
    q[1].gpu_id = 0x4a2c;
    q[2] = q[0];
    q[2].queue_type = GPUCORE_KFD_QUEUE_TYPE_SDMA;

    note.agents = dev;
    note.agent_count = 1;
    note.queues = q;
    note.queue_count = 1;
    check(gpucore_amdgpu_note_encode(&note, &p, &n, NULL), "gfx90a note");
    kfd_seed("valid-gfx90a-kfd1.16", p, n);
    d = p;
    memcpy(buf, d, n);
    buf[0] = 2;
    kfd_seed("bad-note-version-2", buf, n);
    memcpy(buf, d, n);
    put32(buf + 28, 100);
    kfd_seed("bad-agent-size-not-multiple-of-8", buf, n);
    memcpy(buf, d, n);
    put32(buf + 28, 64);
    kfd_seed("bad-agent-size-early-layout", buf, n);
    memcpy(buf, d, n);
    memset(buf + n, 0, 8);
    kfd_seed("bad-trailing-bytes", buf, n + 8);
    kfd_seed("bad-short-queue-array", d, n - 8);
    memcpy(buf, d, n);
    put32(buf + 24, 0xffffffff);
    put32(buf + 28, 0xfffffff8);
    kfd_seed("bad-huge-count-and-size", buf, n);
    kfd_seed("bad-truncated-header", d, 30);
    gpucore_free(p);

    note.agent_count = 2;
    note.queue_count = 3;
    note.agent_entry_size = GPUCORE_KFD_DEVICE_ENTRY_SIZE_CAP2;
    dev[0].capability2 = 0x5;
    check(gpucore_amdgpu_note_encode(&note, &p, &n, NULL), "cap2 note");
    kfd_seed("valid-2-agents-128-byte-entries", p, n);
    gpucore_free(p);

    note.runtime_info_size = 24;
    note.agent_entry_size = 136;
    note.queue_entry_size = 72;
    check(gpucore_amdgpu_note_encode(&note, &p, &n, NULL), "large note");
    d = p;
    d[40 + 20] = 0x77; /* non-zero runtime-info tail: NEWER */
    kfd_seed("valid-larger-entries-newer", p, n);
    gpucore_free(p);

    note.agent_count = 0;
    note.queue_count = 0;
    note.runtime_info_size = 0;
    note.agent_entry_size = 0;
    note.queue_entry_size = 0;
    note.kfd_minor = 18;
    check(gpucore_amdgpu_note_encode(&note, &p, &n, NULL), "empty note");
    kfd_seed("valid-empty-kfd1.18", p, n);
    gpucore_free(p);
}

/* --- GPUCORE notes --------------------------------------------------------------------------- */

static void note_seeds(void)
{
    static const uint8_t elf[16] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0 };
    gpucore_capture_meta_t meta = { 0 };
    gpucore_manifest_entry_t me[3] = {
        { 0x7f3a40000000, 0x100000, GPUCORE_TIER_STATE, GPUCORE_RANGE_CAPTURED, 0, 0,
          STR("AQL ring, queue 0") },
        { 0x7f3a00000000,
          0x40000000,
          GPUCORE_TIER_ALL,
          GPUCORE_RANGE_SKIPPED,
          GPUCORE_REASON_BUDGET,
          0,
          { NULL, 0 } },
        { 0x7f3b00000000, 0x1000, GPUCORE_TIER_ALL, GPUCORE_RANGE_UNREADABLE,
          GPUCORE_REASON_IO_ERROR, 5, STR("doorbell \xe2\x9c\x97") },
    };
    gpucore_manifest_t man = { GPUCORE_MANIFEST_TRUNCATED, GPUCORE_REASON_BUDGET, 3, me, 0 };
    gpucore_code_object_t co[3] = {
        { 0x7f3a5d000000, 16, GPUCORE_CODE_OBJECT_EMBEDDED, STR("file:///a.co"), elf, 16 },
        { 0x7f3a5e000000, 4096, GPUCORE_CODE_OBJECT_TRUNCATED,
          STR("memory://4242#offset=0x7f3a5e000000&size=4096"), elf, 8 },
        { 0x7f3a5f000000, 8192, 0, STR("file:///opt/rocm/lib/x.hsaco#offset=4096&size=8192"), NULL,
          0 },
    };
    gpucore_code_objects_t cos = { 3, co, 0 };
    gpucore_alloc_t al[2] = {
        { 0x7f3a40000000, 0x100000, GPUCORE_ALLOC_RING, 0x4a2b, 0, STR("AQL ring, queue 0") },
        { 0x7f3a3c000000, 0x600000, GPUCORE_ALLOC_CWSR, 0x4a2b, 0, { NULL, 0 } },
    };
    gpucore_alloc_map_t map = { 2, al, 0 };
    uint8_t buf[4096];
    uint8_t *d;
    void *p;
    size_t n;

    meta.time_ns = 1700000000123456789ull;
    meta.duration_ns = 250000000;
    meta.pid = 4242;
    meta.trigger = GPUCORE_TRIGGER_QUEUE_ERROR;
    meta.tier = GPUCORE_TIER_SCRATCH;
    meta.flags = GPUCORE_META_HOST_STOPPED | GPUCORE_META_QUEUES_SUSPENDED;
    meta.compress_level = -3;
    meta.producer = STR("gpucore");
    meta.producer_version = STR("0.1.0");
    meta.hostname = STR("h\xc3\xb6st");
    meta.kernel = STR("6.8.0-\xf0\x9d\x84\x9e");
    meta.exe = STR("/bin/app");
    meta.cmdline = STR("app\0-n\0001024");
    check(gpucore_capture_meta_encode(&meta, &p, &n, NULL), "meta");
    note_seed("valid-capture-meta", GPUCORE_NT_CAPTURE_META, p, n);
    note_seed("header-only-of-capture-meta", 0xff, p, n);
    d = p;
    memcpy(buf, d, n);
    buf[n - 1] = 0xc0; /* breaks the last string's UTF-8 */
    buf[n - 2] = 0xc0;
    note_seed("bad-utf8", GPUCORE_NT_CAPTURE_META, buf, n);
    /* Two whole records: the heap moves, but references are heap-relative. */
    memcpy(buf, d, 28 + 104);
    memcpy(buf + 28 + 104, d + 28, 104);
    memcpy(buf + 28 + 208, d + 28 + 104, n - 28 - 104);
    put32(buf + 24, 2);
    note_seed("bad-meta-2-records", GPUCORE_NT_CAPTURE_META, buf, n + 104);
    memcpy(buf, d, n);
    put32(buf + 0, 2);
    note_seed("bad-major-2", GPUCORE_NT_CAPTURE_META, buf, n);
    memcpy(buf, d, n);
    put32(buf + 12, 1);
    note_seed("bad-incompat-bit", GPUCORE_NT_CAPTURE_META, buf, n);
    gpucore_free(p);

    check(gpucore_manifest_encode(&man, &p, &n, NULL), "manifest");
    note_seed("valid-manifest", GPUCORE_NT_MANIFEST, p, n);
    d = p;
    memcpy(buf, d, n);
    put32(buf + 36 + 32, 0x1000); /* label reference past the heap */
    note_seed("bad-string-ref", GPUCORE_NT_MANIFEST, buf, n);
    memcpy(buf, d, n);
    put32(buf + 4, 2);       /* minor 2 */
    put32(buf + 16, 1);      /* compat bit */
    put32(buf + 36 + 36, 9); /* reserved */
    note_seed("valid-manifest-newer", GPUCORE_NT_MANIFEST, buf, n);
    gpucore_free(p);

    check(gpucore_code_objects_encode(&cos, &p, &n, NULL), "code objects");
    note_seed("valid-code-objects", GPUCORE_NT_CODE_OBJECTS, p, n);
    d = p;
    memcpy(buf, d, n);
    put32(buf + 28 + 24, 15); /* EMBEDDED blob_size != size */
    note_seed("bad-blob-size", GPUCORE_NT_CODE_OBJECTS, buf, n);
    memcpy(buf, d, n);
    put32(buf + 28 + 16, 0xfff0); /* blob outside the heap */
    note_seed("bad-blob-offset", GPUCORE_NT_CODE_OBJECTS, buf, n);
    gpucore_free(p);

    check(gpucore_alloc_map_encode(&map, &p, &n, NULL), "alloc map");
    note_seed("valid-alloc-map", GPUCORE_NT_ALLOC_MAP, p, n);
    d = p;
    memcpy(buf, d, n);
    put32(buf + 28 + 32 + 28, 0); /* second record shares the first label */
    note_seed("bad-shared-heap-item", GPUCORE_NT_ALLOC_MAP, buf, n);
    memcpy(buf, d, n);
    put32(buf + 20, 0xfffffffc);
    put32(buf + 24, 0xffffffff);
    note_seed("bad-count-times-size", GPUCORE_NT_ALLOC_MAP, buf, n);
    gpucore_free(p);

    /* An ALLOC_MAP from a later minor: 40-byte header and records with non-zero tails. */
    memset(buf, 0, sizeof(buf));
    put32(buf + 0, 1);
    put32(buf + 4, 1);
    put32(buf + 8, 40);
    put32(buf + 20, 40);
    put32(buf + 24, 1);
    put32(buf + 28, 0xabcd);
    put32(buf + 40 + 8, 0x1000);
    put32(buf + 40 + 16, GPUCORE_ALLOC_VRAM);
    put32(buf + 40 + 28, 0);
    put32(buf + 40 + 32, 0x1234);
    put32(buf + 80, 3);
    memcpy(buf + 84, "abc", 3);
    note_seed("valid-alloc-map-grown", GPUCORE_NT_ALLOC_MAP, buf, 88);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_schema_seeds CORPUS_DIR\n");
        return 2;
    }
    out_dir = argv[1];
    kfd_seeds();
    note_seeds();
    return 0;
}
