/* SPDX-License-Identifier: MIT */
/*
 * The process image and the amd-dbgapi library do not copy the saved waves: a wave's record
 * (its VGPRs, SGPRs, LDS) stays in the core and is read when asked for (analyze/image.h).
 *
 * A core of multi-gpu-hang (10,000 waves, about 25 MB of saved registers) is captured from
 * the scenario's inferior, then opened with gc_image_open and through libgpucore-dbgapi, plain
 * and compressed. For each, the heap the reader holds (glibc's mallinfo2: bytes in use, from
 * sbrk and mmap) is compared before and after the open and after every register of every wave
 * was read: it must grow by less than half the waves' saved bytes (the image's own tables take
 * about a sixth here, the library's a fifth; a copy of the save areas would be all of them). The frames a
 * compressed core keeps decoded are libcore's and are taken off by the figure libcore reports
 * (gpucore_core_mem_get). Counts, not time. Skipped (77) without ptrace rights; the heap
 * tests are skipped where mallinfo2 does not count what malloc hands out (a sanitizer's
 * allocator). And a core cut
 * after it was opened: the registers it no longer holds are unavailable, never wrong.
 */
#include <inttypes.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>

#include "arch_regs.h"
#include "dbgapi_client.h"
#include "image.h"
#include "scenario_core.h"

static struct tsc_case hang;
static void *volatile probe_sink; /* keeps the probe allocation from being optimized away */
static int heap_counted;          /* mallinfo2 counts what malloc hands out */
static char zst[4300];

/* Heap bytes in use now: the arena's allocated chunks and the mmapped ones. */
static uint64_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();

    return (uint64_t)m.uordblks + (uint64_t)m.hblkhd;
}

/* Bytes libcore holds for @p core because of what it read (decoded frames, indexes). */
static uint64_t core_mem(const gpucore_core_t *core)
{
    struct gpucore_core_mem m;

    assert_int_equal(gpucore_core_mem_get(core, &m), GPUCORE_OK);
    return m.used;
}

static int setup(void **state)
{
    char cmd[9000];
    void *probe;
    uint64_t before;

    (void)state;
    if (!tsc_ptrace_permitted()) {
        fprintf(stderr, "test_image_views: ptrace not permitted; skipped\n");
        exit(77);
    }
    before = heap_in_use();
    probe = malloc(4u << 20);
    probe_sink = probe;
    if (probe)
        memset(probe, 1, 4u << 20);
    heap_counted = probe && heap_in_use() >= before + (4u << 20);
    if (!heap_counted)
        fprintf(stderr, "test_image_views: mallinfo2 does not count this allocator; the heap "
                        "tests are skipped\n");
    free(probe_sink);
    probe_sink = NULL;
    tsc_capture_case(&hang, "views", "multi-gpu-hang", 0, NULL, NULL);
    snprintf(zst, sizeof(zst), "%s.zst", hang.core);
    snprintf(cmd, sizeof(cmd), "'%s' compress '%s' '%s' >/dev/null 2>&1", tsc_env("GPUCORE_CLI"),
             hang.core, zst);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_image_views: %s failed\n", cmd);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(zst);
    tsc_case_done(&hang);
    return 0;
}

/* The heap an open image holds, after the open and after every register was read, against
   the waves' saved bytes. */
static void image_case(const char *path)
{
    gpucore_core_t *core = NULL;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    uint64_t h0, c0, held_open, held_read, saved = 0, registers = 0;
    uint8_t buf[1024];

    assert_int_equal(gpucore_core_open(path, NULL, &core, &d), GPUCORE_OK);
    h0 = heap_in_use();
    c0 = core_mem(core);
    assert_int_equal(gc_image_open(core, &img, &d), GPUCORE_OK);
    assert_int_equal(gc_image_wave_count(img), 10000);
    for (uint32_t i = 0; i < gc_image_wave_count(img); i++)
        saved += gc_image_wave(img, i)->wave.record_size;
    held_open = heap_in_use() - h0 - (core_mem(core) - c0);
    for (uint32_t i = 0; i < gc_image_wave_count(img); i++) {
        const struct gc_image_wave *w = gc_image_wave(img, i);
        const struct gc_arch *arch =
                gc_image_agent(img, gc_image_queue(img, w->queue)->agent)->arch;
        const struct gc_wave *rw = NULL;
        struct gc_reglist l = { 0 };

        assert_null(w->wave.vgpr);
        assert_null(w->wave.sgpr);
        assert_int_equal(gc_wave_register_list(arch, &w->wave, &l), GPUCORE_OK);
        assert_int_equal(gc_image_wave_regs(img, i, &rw, &d), GPUCORE_OK);
        for (size_t r = 0; r < l.count; r++) {
            assert_true(l.regs[r].size <= sizeof(buf));
            assert_int_equal(gc_reg_read(arch, rw, gc_image_r_version(img), &l.regs[r], 0, buf,
                                         l.regs[r].size),
                             GPUCORE_OK);
            registers++;
        }
        gc_reglist_done(&l);
    }
    held_read = heap_in_use() - h0 - (core_mem(core) - c0);
    fprintf(stderr,
            "%s: %" PRIu64 " bytes of saved waves; the image holds %" PRIu64 " bytes after the "
            "open, %" PRIu64 " after reading %" PRIu64 " registers\n",
            path, saved, held_open, held_read, registers);
    assert_true(saved > (20u << 20));
    assert_true(held_open < saved / 2);
    assert_true(held_read < saved / 2);
    gc_image_close(img);
    gpucore_core_close(core);
}

static void test_image_plain(void **state)
{
    (void)state;
    if (!heap_counted)
        skip();
    image_case(hang.core);
}

static void test_image_compressed(void **state)
{
    (void)state;
    if (!heap_counted)
        skip();
    image_case(zst);
}

/* The same through the library, with a client serving the core's memory (dbgapi_client.c). */
static void dbgapi_case(const char *path)
{
    struct tdc c;
    amd_dbgapi_process_id_t p;
    struct tdc_list waves;
    uint64_t h0, c0, held_attach, held_read, saved, registers = 0;
    uint8_t buf[1024];
    gpucore_core_t *probe = NULL;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };

    /* the waves' saved bytes, from an image of the same core */
    assert_int_equal(gpucore_core_open(path, NULL, &probe, &d), GPUCORE_OK);
    assert_int_equal(gc_image_open(probe, &img, &d), GPUCORE_OK);
    saved = 0;
    for (uint32_t i = 0; i < gc_image_wave_count(img); i++)
        saved += gc_image_wave(img, i)->wave.record_size;
    gc_image_close(img);
    gpucore_core_close(probe);

    tdc_open(&c, path);
    h0 = heap_in_use();
    c0 = core_mem(c.core);
    assert_int_equal(amd_dbgapi_initialize(&tdc_callbacks), AMD_DBGAPI_STATUS_SUCCESS);
    p = tdc_attach(&c);
    {
        uint32_t runtime, runtime_state, stops;

        tdc_drain(p, &runtime, &runtime_state, &stops);
    }
    held_attach = heap_in_use() - h0 - (core_mem(c.core) - c0);
    waves = tdc_waves(p);
    assert_int_equal(waves.n, 10000);
    for (size_t i = 0; i < waves.n; i++) {
        amd_dbgapi_wave_id_t w = { waves.ids[i] };
        amd_dbgapi_register_id_t *regs = NULL;
        size_t n = 0;

        assert_int_equal(amd_dbgapi_wave_register_list(w, &n, &regs), AMD_DBGAPI_STATUS_SUCCESS);
        for (size_t r = 0; r < n; r++) {
            uint64_t size = 0;

            assert_int_equal(amd_dbgapi_register_get_info(regs[r], AMD_DBGAPI_REGISTER_INFO_SIZE,
                                                          sizeof(size), &size),
                             AMD_DBGAPI_STATUS_SUCCESS);
            assert_true(size > 0 && size <= sizeof(buf));
            assert_int_equal(amd_dbgapi_read_register(w, regs[r], 0, size, buf),
                             AMD_DBGAPI_STATUS_SUCCESS);
            registers++;
        }
        tdc_free(regs);
    }
    tdc_free(waves.ids);
    held_read = heap_in_use() - h0 - (core_mem(c.core) - c0);
    fprintf(stderr,
            "%s: %" PRIu64 " bytes of saved waves; the library holds %" PRIu64 " bytes after "
            "attach, %" PRIu64 " after reading %" PRIu64 " registers\n",
            path, saved, held_attach, held_read, registers);
    assert_true(saved > (20u << 20));
    assert_true(held_attach < saved / 2);
    assert_true(held_read < saved / 2);
    assert_int_equal(amd_dbgapi_process_detach(p), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(amd_dbgapi_finalize(), AMD_DBGAPI_STATUS_SUCCESS);
    tdc_close(&c);
}

static void test_dbgapi_plain(void **state)
{
    (void)state;
    if (!heap_counted)
        skip();
    dbgapi_case(hang.core);
}

static void test_dbgapi_compressed(void **state)
{
    (void)state;
    if (!heap_counted)
        skip();
    dbgapi_case(zst);
}

/*
 * A core cut short after it was opened (the records are read when asked, from the file): the
 * image says the registers are unavailable and the library that it has none, without a crash
 * or a wrong value. A copy of the plain core is opened, then cut to its first eighth.
 */
static void test_cut_after_open(void **state)
{
    char cut[4400], cmd[9000];
    gpucore_core_t *core = NULL;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    const struct gc_wave *rw = NULL;
    struct tdc c;
    amd_dbgapi_process_id_t p;
    struct tdc_list waves;
    amd_dbgapi_register_id_t *regs = NULL;
    size_t n = 0, bad = 0;
    uint8_t buf[1024];
    long size;
    FILE *f;

    (void)state;
    snprintf(cut, sizeof(cut), "%s.cut", hang.core);
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", hang.core, cut);
    assert_int_equal(system(cmd), 0);
    f = fopen(cut, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    fclose(f);

    assert_int_equal(gpucore_core_open(cut, NULL, &core, &d), GPUCORE_OK);
    assert_int_equal(gc_image_open(core, &img, &d), GPUCORE_OK);
    tdc_open(&c, cut);
    assert_int_equal(amd_dbgapi_initialize(&tdc_callbacks), AMD_DBGAPI_STATUS_SUCCESS);
    p = tdc_attach(&c);
    {
        uint32_t runtime, runtime_state, stops;

        tdc_drain(p, &runtime, &runtime_state, &stops);
    }
    /* The image: every wave whose record lay past the cut. Where the save areas lie in the file
       depends on how much host memory the capture took first, so the cut starts at an eighth
       of the file and halves until it falls inside them. */
    for (long at = size / 8; bad == 0; at /= 2) {
        assert_true(at > 4096);
        assert_int_equal(truncate(cut, at), 0);
        for (uint32_t i = 0; i < gc_image_wave_count(img); i++) {
            gpucore_status_t st = gc_image_wave_regs(img, i, &rw, &d);

            assert_true(st == GPUCORE_OK || st == GPUCORE_E_UNAVAILABLE);
            bad += st != GPUCORE_OK;
        }
        fprintf(stderr, "cut to %ld bytes: %zu of %u waves' registers unavailable (%s)\n", at,
                bad, gc_image_wave_count(img), bad ? d.message : "");
    }
    gc_image_close(img);
    gpucore_core_close(core);

    /* the library: read_register of such a wave is REGISTER_NOT_AVAILABLE */
    waves = tdc_waves(p);
    bad = 0;
    for (size_t i = 0; i < waves.n; i++) {
        amd_dbgapi_wave_id_t w = { waves.ids[i] };
        amd_dbgapi_status_t st;

        assert_int_equal(amd_dbgapi_wave_register_list(w, &n, &regs), AMD_DBGAPI_STATUS_SUCCESS);
        assert_true(n > 0);
        st = amd_dbgapi_read_register(w, regs[0], 0, 4, buf);
        assert_true(st == AMD_DBGAPI_STATUS_SUCCESS ||
                    st == AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE);
        bad += st != AMD_DBGAPI_STATUS_SUCCESS;
        tdc_free(regs);
    }
    tdc_free(waves.ids);
    assert_true(bad > 0);
    assert_int_equal(tdc_fatal_logs, 0);
    assert_int_equal(amd_dbgapi_process_detach(p), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(amd_dbgapi_finalize(), AMD_DBGAPI_STATUS_SUCCESS);
    tdc_close(&c);
    unlink(cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_plain),
        cmocka_unit_test(test_image_compressed),
        cmocka_unit_test(test_dbgapi_plain),
        cmocka_unit_test(test_dbgapi_compressed),
        cmocka_unit_test(test_cut_after_open),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
