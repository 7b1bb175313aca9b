/* SPDX-License-Identifier: MIT */
/*
 * A wave's dispatch inferred when its TTMPs name none (analyze/image.c, infer_dispatches()):
 * cores of gpucore-inferior scenarios written here, vadd on one gfx90a queue, captured with the
 * built `gpucore capture --kfd sim`. Without TTMP setup (ROCr without HSA_ENABLE_DEBUG=1):
 *  - one active dispatch, every wave's PC in its kernel: every wave is associated with it,
 *    marked inferred, and the queue has no "cannot be associated" problem;
 *  - two active dispatches of the same kernel: ambiguous, no wave is associated;
 *  - one dispatch, a workgroup whose PC is in no kernel's code: its waves are not associated.
 * With TTMP setup the TTMPs name the dispatch and nothing is inferred.
 * Exits 77 (skip) when ptrace is not permitted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>

#include "image.h"
#include "scenario_core.h"

/* The scenario: @p ttmp "true"/"false", @p dispatches the "dispatches" array's entries,
   @p stopped_pc the stopped wave's "pc" object. */
static const char scenario_fmt[] =
        "{ \"name\": \"infer\", \"on_queue_error\": \"continue\", \"r_version\": 10,\n"
        "  \"ttmp_setup\": %s,\n"
        "  \"agents\": [ { \"target\": \"gfx90a\", \"gpu_id\": \"0xc4f1\", \"simd_count\": 416,\n"
        "    \"max_waves_per_simd\": 8, \"array_count\": 8, \"simd_arrays_per_engine\": 1,\n"
        "    \"num_xcc\": 1, \"debug_prop\": \"0x1d6\", \"device_id\": \"0x740f\",\n"
        "    \"location_id\": \"0x300\" } ],\n"
        "  \"queues\": [ { \"agent\": 0, \"queue_id\": 0, \"ring_packets\": 64 } ],\n"
        "  \"code_objects\": [ { \"name\": \"vadd\", \"source\": \"vadd.cl\", \"target\": "
        "\"gfx90a\", \"uri\": \"memory\" } ],\n"
        "  \"buffers\": [ { \"name\": \"a\", \"size\": 4096, \"pattern\": \"sequence\" } ],\n"
        "  \"dispatches\": [ %s ],\n"
        "  \"waves\": [\n"
        "    { \"dispatch\": 0, \"workgroup\": [0], \"workgroup_count\": 3, \"state\": "
        "\"running\", \"pc\": { \"kernel_offset\": \"0x40\" } },\n"
        "    { \"dispatch\": 0, \"workgroup\": [3], \"state\": \"stopped\", \"stop\": "
        "\"memory_violation\", \"pc\": %s } ] }\n";

static const char one_dispatch[] =
        "{ \"queue\": 0, \"code_object\": \"vadd\", \"kernel\": \"vadd\", \"grid\": [1024], "
        "\"workgroup\": [256], \"packet_id\": 0, \"kernargs\": [ { \"type\": \"buffer\", "
        "\"value\": \"a\" }, { \"type\": \"buffer\", \"value\": \"a\" }, { \"type\": \"u64\", "
        "\"value\": \"0x1000\" }, { \"type\": \"u32\", \"value\": 1024 } ] }";

static const char in_kernel[] = "{ \"kernel_offset\": \"0xb4\" }";
/* Far from any code object: no function symbol holds it. */
static const char nowhere[] = "{ \"address\": \"0x100000000000\" }";

struct infer_case {
    char scen[4096], desc[4200], core[4200];
    struct gc_image *img;
    gpucore_core_t *core_handle;
};

/* Write the scenario, run the inferior, capture it, open the image. */
static void capture(struct infer_case *c, const char *tag, const char *ttmp,
                    const char *dispatches, const char *stopped_pc)
{
    gpucore_diag_t d = { 0 };
    FILE *f;
    pid_t pid;
    int rc;

    memset(c, 0, sizeof(*c));
    snprintf(c->scen, sizeof(c->scen), "%s/infer-%s.%ld.json", tsc_env("GPUCORE_TEST_TMPDIR"),
             tag, (long)getpid());
    snprintf(c->desc, sizeof(c->desc), "%s.describe", c->scen);
    snprintf(c->core, sizeof(c->core), "%s.core", c->scen);
    f = fopen(c->scen, "w");
    assert_non_null(f);
    fprintf(f, scenario_fmt, ttmp, dispatches, stopped_pc);
    assert_int_equal(fclose(f), 0);
    pid = tsc_start_inferior(c->scen, c->desc);
    rc = tsc_capture(pid, c->core, NULL, NULL);
    tsc_stop_inferior(pid);
    assert_int_equal(rc, 0);
    if (gpucore_core_open(c->core, NULL, &c->core_handle, &d))
        fail_msg("%s: %s", c->core, d.message);
    if (gc_image_open(c->core_handle, &c->img, &d))
        fail_msg("%s: %s", c->core, d.message);
}

static void done(struct infer_case *c)
{
    char log[4300];

    gc_image_close(c->img);
    gpucore_core_close(c->core_handle);
    snprintf(log, sizeof(log), "%s.log", c->core);
    unlink(log);
    unlink(c->core);
    unlink(c->desc);
    unlink(c->scen);
}

static const struct gc_image_queue *the_queue(const struct infer_case *c)
{
    assert_int_equal(gc_image_queue_count(c->img), 1);
    return gc_image_queue(c->img, 0);
}

/* How many of the queue's waves have dispatch @p dispatch and inferred flag @p inferred. */
static uint32_t count_waves(const struct infer_case *c, uint32_t dispatch, int inferred)
{
    const struct gc_image_queue *q = the_queue(c);
    uint32_t n = 0;

    for (uint32_t i = 0; i < q->nwaves; i++) {
        const struct gc_image_wave *w = gc_image_wave(c->img, q->first_wave + i);

        n += w->dispatch == dispatch && w->dispatch_inferred == inferred;
    }
    return n;
}

static void test_one_dispatch_inferred(void **state)
{
    struct infer_case c;

    (void)state;
    capture(&c, "one", "false", one_dispatch, in_kernel);
    assert_int_equal(the_queue(&c)->nwaves, 16); /* 4 workgroups of 4 waves */
    assert_int_equal(the_queue(&c)->ndispatches, 1);
    assert_int_equal(count_waves(&c, the_queue(&c)->first_dispatch, 1), 16);
    assert_null(strstr(the_queue(&c)->problem, "cannot be associated"));
    done(&c);
}

static void test_ttmp_setup_not_inferred(void **state)
{
    struct infer_case c;

    (void)state;
    capture(&c, "ttmp", "true", one_dispatch, in_kernel);
    assert_int_equal(count_waves(&c, the_queue(&c)->first_dispatch, 0), 16);
    done(&c);
}

static void test_two_dispatches_ambiguous(void **state)
{
    struct infer_case c;
    char two[2 * sizeof(one_dispatch) + 8];
    char *second;

    (void)state;
    snprintf(two, sizeof(two), "%s, %s", one_dispatch, one_dispatch);
    second = strstr(two + sizeof(one_dispatch), "\"packet_id\": 0");
    assert_non_null(second);
    second[strlen("\"packet_id\": ")] = '1';
    capture(&c, "two", "false", two, in_kernel);
    assert_int_equal(the_queue(&c)->ndispatches, 2);
    assert_int_equal(count_waves(&c, UINT32_MAX, 0), 16);
    assert_non_null(strstr(the_queue(&c)->problem, "16 waves of XCC 0 cannot be associated"));
    done(&c);
}

static void test_pc_outside_kernel(void **state)
{
    struct infer_case c;

    (void)state;
    capture(&c, "outside", "false", one_dispatch, nowhere);
    assert_int_equal(count_waves(&c, the_queue(&c)->first_dispatch, 1), 12);
    assert_int_equal(count_waves(&c, UINT32_MAX, 0), 4); /* the stopped workgroup's */
    assert_non_null(strstr(the_queue(&c)->problem, "4 waves of XCC 0 cannot be associated"));
    done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_one_dispatch_inferred, tsc_kill_child),
        cmocka_unit_test_teardown(test_ttmp_setup_not_inferred, tsc_kill_child),
        cmocka_unit_test_teardown(test_two_dispatches_ambiguous, tsc_kill_child),
        cmocka_unit_test_teardown(test_pc_outside_kernel, tsc_kill_child),
    };

    if (!tsc_ptrace_permitted()) {
        fprintf(stderr, "test_dispatch_infer: ptrace not permitted, skipping\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
