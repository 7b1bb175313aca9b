/* SPDX-License-Identifier: MIT */
/*
 * gc_ingest_stream() on save areas, with streams built here (an ELF core of EM_AMDGPU, an
 * AMDGPU note, PT_LOADs), read from a memory file:
 *  - a header that the writer reads in two chunks (a kept ring ends 20 bytes before the
 *    header's end of a 1 MiB chunk) is put together and decides the area;
 *  - the used parts are in the core, byte for byte, and nothing else of the area;
 *  - two XCC areas, one sound and one not: one trimmed, one kept whole, one warning;
 *  - more warnings than GC_INGEST_MAX_WARNINGS: the callback sees that many, the result
 *    counts them all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"
#include "ingest.h"

#define GPU_ID 0x1234u
#define BASE   0x7f0000000000ull /* where the one PT_LOAD begins */
#define RING   ((1u << 20) - 20) /* the ring ends 20 bytes before a writer chunk boundary */

struct stream {
    uint8_t *buf;
    size_t len, cap;
};

static void put(struct stream *s, const void *p, size_t n)
{
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->buf = realloc(s->buf, s->cap);
        assert_non_null(s->buf);
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static uint32_t nwarn;
static char last_warn[512];

static void on_warn(void *user, const char *msg)
{
    (void)user;
    nwarn++;
    snprintf(last_warn, sizeof(last_warn), "%s", msg);
    print_message("warning: %s\n", msg);
}

/*
 * A GPU stream: the ELF header, two program headers (the note, one PT_LOAD of @p load_size
 * bytes at BASE filled by @p fill), the note, the data.
 */
static struct stream make_stream(const gpucore_amdgpu_note_t *note, const uint8_t *load,
                                 uint64_t load_size)
{
    struct stream s = { 0 };
    uint8_t eh[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 }, ph[2][56] = { { 0 } };
    uint8_t nh[12];
    void *desc = NULL;
    size_t desc_size = 0;
    uint64_t note_size, note_off = 64 + 2 * 56, load_off;

    assert_int_equal(gpucore_amdgpu_note_encode(note, &desc, &desc_size, NULL), GPUCORE_OK);
    note_size = 12 + 8 + ((desc_size + 3) & ~(size_t)3);
    load_off = (note_off + note_size + 15) & ~15ull;
    gc_le16_put(eh + 16, 4);   /* ET_CORE */
    gc_le16_put(eh + 18, 224); /* EM_AMDGPU */
    gc_le32_put(eh + 20, 1);
    gc_le64_put(eh + 32, 64);
    gc_le16_put(eh + 52, 64);
    gc_le16_put(eh + 54, 56);
    gc_le16_put(eh + 56, 2);
    gc_le32_put(ph[0], 4); /* PT_NOTE */
    gc_le64_put(ph[0] + 8, note_off);
    gc_le64_put(ph[0] + 32, note_size);
    gc_le64_put(ph[0] + 40, note_size);
    gc_le32_put(ph[1], 1); /* PT_LOAD */
    gc_le32_put(ph[1] + 4, 6);
    gc_le64_put(ph[1] + 8, load_off);
    gc_le64_put(ph[1] + 16, BASE);
    gc_le64_put(ph[1] + 32, load_size);
    gc_le64_put(ph[1] + 40, load_size);
    put(&s, eh, sizeof(eh));
    put(&s, ph, sizeof(ph));
    gc_le32_put(nh, 7);
    gc_le32_put(nh + 4, (uint32_t)desc_size);
    gc_le32_put(nh + 8, 33);
    put(&s, nh, sizeof(nh));
    put(&s, "AMDGPU\0\0", 8);
    put(&s, desc, desc_size);
    put(&s, "\0\0\0\0", ((desc_size + 3) & ~(size_t)3) - desc_size);
    put(&s, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", load_off - s.len);
    if (load_size)
        put(&s, load, load_size);
    gpucore_free(desc);
    return s;
}

static gpucore_status_t ingest(const struct stream *s, const char *out,
                               struct gc_ingest_result *res, gpucore_diag_t *d)
{
    int fd = memfd_create("test_ingest_trim", MFD_CLOEXEC);
    gpucore_status_t st;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, s->buf, s->len), (ssize_t)s->len);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    nwarn = 0;
    last_warn[0] = '\0';
    unlink(out);
    st = gc_ingest_stream(fd, out, &(struct gc_ingest_opts){ .expect_gpu = 1, .warn = on_warn },
                          res, d);
    close(fd);
    return st;
}

static const char *out_path(void)
{
    static char path[512];
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");

    snprintf(path, sizeof(path), "%s/test_ingest_trim.%d.core", dir && *dir ? dir : "/tmp",
             (int)getpid());
    return path;
}

/* One gfx90a agent with 4 SIMDs (a small save area), num_xcc XCCs, one queue. */
static void small_gpu(gpucore_amdgpu_note_t *note, gpucore_kfd_device_entry_t *dev,
                      gpucore_kfd_queue_entry_t *q, uint32_t num_xcc, struct gc_cwsr_sizes *sz)
{
    const struct gc_arch *arch = gc_arch_by_gfx_version(90010);

    assert_non_null(arch);
    *dev = (gpucore_kfd_device_entry_t){ .gpu_id = GPU_ID,
                                         .gfx_target_version = 90010,
                                         .simd_count = 4 * num_xcc,
                                         .max_waves_per_simd = 8,
                                         .array_count = 1,
                                         .simd_arrays_per_engine = 1,
                                         .num_xcc = num_xcc };
    assert_int_equal(gc_cwsr_compute_sizes(arch, dev->simd_count, dev->array_count,
                                           dev->simd_arrays_per_engine, num_xcc, sz),
                     GPUCORE_OK);
    *q = (gpucore_kfd_queue_entry_t){ .ring_base_address = BASE,
                                      .ring_size = RING,
                                      .ctx_save_restore_address = BASE + RING,
                                      .gpu_id = GPU_ID,
                                      .queue_type = 2,
                                      .ctx_save_restore_area_size = sz->cwsr_size };
    *note = (gpucore_amdgpu_note_t){ .kfd_major = 1,
                                     .kfd_minor = 18,
                                     .runtime = { .runtime_state = 1 },
                                     .agent_count = 1,
                                     .queue_count = 1,
                                     .agents = dev,
                                     .queues = q };
}

/* A header at @p area: control stack [cso, cso + css), wave area ending at wso. */
static void put_header(uint8_t *area, uint32_t cso, uint32_t css, uint32_t wso, uint32_t wss)
{
    struct gc_cwsr_header h = { .control_stack_offset = cso,
                                .control_stack_size = css,
                                .wave_state_offset = wso,
                                .wave_state_size = wss };

    gc_cwsr_header_encode(&h, area);
}

static void test_header_over_two_chunks(void **state)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t q;
    struct gc_cwsr_sizes sz;
    struct gc_ingest_result res = { 0 };
    gpucore_diag_t d;
    gpucore_core_t *core = NULL;
    uint64_t size, area;
    uint8_t *load, buf[64];
    uint32_t cso, css = 64, wss = 4096, wso;

    (void)state;
    small_gpu(&note, &dev, &q, 2, &sz);
    area = sz.cwsr_size;
    size = RING + sz.total_size;
    load = malloc(size);
    assert_non_null(load);
    for (uint64_t i = 0; i < size; i++)
        load[i] = (uint8_t)(i * 7 + 1);
    cso = sz.ctl_stack_size - css;
    wso = cso + css + wss;
    assert_true(wso < area);
    /* XCC 0 sound; XCC 1: the wave area overlaps the control stack */
    put_header(load + RING, cso, css, wso, wss);
    put_header(load + RING + area, cso, css, wso, wss + 8);
    struct stream s = make_stream(&note, load, size);
    const char *out = out_path();

    assert_int_equal(ingest(&s, out, &res, &d), GPUCORE_OK);
    assert_int_equal(res.save_areas_trimmed, 1);
    assert_int_equal(res.save_areas_whole, 1);
    assert_int_equal(nwarn, 1);
    assert_non_null(strstr(last_warn, "queue 0, XCC 1: the context-save area at 0x"));
    assert_non_null(strstr(last_warn, "is inconsistent: the control stack does not end where "
                                      "the wave area begins"));
    /* XCC 0 loses what lies between the header and the control stack and after the waves */
    assert_int_equal(res.save_area_bytes_dropped, area - GC_CWSR_HEADER_SIZE - css - wss);
    assert_int_equal(res.bytes_skipped, res.save_area_bytes_dropped);
    assert_int_equal(res.bytes_kept, size - res.save_area_bytes_dropped);

    assert_int_equal(gpucore_core_open(out, NULL, &core, &d), GPUCORE_OK);
    /* the header, whose bytes came in two chunks of the writer, and the used parts */
    assert_int_equal(gpucore_core_read(core, BASE + RING, buf, GC_CWSR_HEADER_SIZE, NULL),
                     GPUCORE_OK);
    assert_memory_equal(buf, load + RING, GC_CWSR_HEADER_SIZE);
    assert_int_equal(gpucore_core_read(core, BASE + RING + cso, buf, 64, NULL), GPUCORE_OK);
    assert_memory_equal(buf, load + RING + cso, 64);
    assert_int_equal(gpucore_core_read(core, BASE + RING + wso - 64, buf, 64, NULL), GPUCORE_OK);
    assert_memory_equal(buf, load + RING + wso - 64, 64);
    /* not the rest of XCC 0 */
    assert_int_equal(gpucore_core_read(core, BASE + RING + GC_CWSR_HEADER_SIZE, buf, 1, NULL),
                     GPUCORE_E_UNAVAILABLE);
    assert_int_equal(gpucore_core_read(core, BASE + RING + cso - 1, buf, 1, NULL),
                     GPUCORE_E_UNAVAILABLE);
    assert_int_equal(gpucore_core_read(core, BASE + RING + wso, buf, 1, NULL),
                     GPUCORE_E_UNAVAILABLE);
    /* XCC 1 whole, the debugger area whole */
    assert_int_equal(gpucore_core_read(core, BASE + RING + area + 2000, buf, 64, NULL), GPUCORE_OK);
    assert_memory_equal(buf, load + RING + area + 2000, 64);
    assert_int_equal(gpucore_core_read(core, BASE + size - 64, buf, 64, NULL), GPUCORE_OK);
    assert_memory_equal(buf, load + size - 64, 64);
    gpucore_core_close(core);
    unlink(out);
    free(s.buf);
    free(load);
}

static void test_warning_cap(void **state)
{
    enum { NQ = GC_INGEST_MAX_WARNINGS + 6 };
    gpucore_kfd_device_entry_t dev = { .gpu_id = GPU_ID,
                                       .gfx_target_version = 10, /* no such target */
                                       .simd_count = 4,
                                       .max_waves_per_simd = 8,
                                       .array_count = 1,
                                       .simd_arrays_per_engine = 1,
                                       .num_xcc = 1 };
    gpucore_kfd_queue_entry_t q[NQ];
    gpucore_amdgpu_note_t note = { .kfd_major = 1,
                                   .kfd_minor = 18,
                                   .runtime = { .runtime_state = 1 },
                                   .agent_count = 1,
                                   .queue_count = NQ,
                                   .agents = &dev,
                                   .queues = q };
    struct gc_ingest_result res = { 0 };
    gpucore_diag_t d;

    (void)state;
    for (uint32_t i = 0; i < NQ; i++)
        q[i] = (gpucore_kfd_queue_entry_t){ .ctx_save_restore_address = BASE + i * 0x10000ull,
                                            .ctx_save_restore_area_size = 0x10000,
                                            .queue_id = i,
                                            .gpu_id = GPU_ID,
                                            .queue_type = 2 };
    struct stream s = make_stream(&note, NULL, 0);
    const char *out = out_path();

    assert_int_equal(ingest(&s, out, &res, &d), GPUCORE_OK);
    assert_int_equal(res.warnings, NQ);
    assert_int_equal(nwarn, GC_INGEST_MAX_WARNINGS);
    assert_non_null(strstr(last_warn, "gfx_target_version 10 is not a known target"));
    unlink(out);
    free(s.buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_over_two_chunks),
        cmocka_unit_test(test_warning_cap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
