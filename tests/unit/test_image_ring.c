/* SPDX-License-Identifier: MIT */
/*
 * Rings of many active dispatches in the GPU image and the report (issue 22): cores written
 * here with libcore's writer -- one gfx90a AQL queue whose ring holds N identical active
 * kernel-dispatch packets (their descriptor in the core), and optionally a save area of
 * waves, each on a packet of our choosing.
 *
 * What the image keeps is charged to the core's memory budget (analyze/image_internal.h,
 * GC_IMAGE_BUDGET_SHARE): with room, every dispatch; under a small budget, a prefix, a problem
 * naming the packet it stops at, and every wave still on its dispatch (read from its packet);
 * everything given back at close. With GC_IMAGE_WAVE_DISPATCHES (the amd-dbgapi library),
 * only the dispatches waves run. The report lists GC_TRIAGE_QUEUE_DISPATCHES of them and counts
 * the rest, and fails with the budget's status when its records do not fit. `waves` lists every
 * wave a record at a time, holding none (triage.h, gc_triage_waves_head()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_json.h"
#include "gc_util.h"
#include "image.h"
#include "test_core_util.h"
#include "triage.h"
#include "wave.h"

#define GFX90A      90010u
#define RING_BASE   0x200000000000ull
#define AMDQ_BASE   0x300000000000ull
#define KD_BASE     0x400000000000ull
#define AREA_BASE   0x700000000000ull
#define WAVE_PC     0x7f0000000000ull
#define SMALL_BUDGET (1u << 20) /* a budget whose image share holds about 4,800 dispatches */

/* A ring core: @p packets active dispatch packets; waves k < @p nwaves on packet wave_packet[k]. */
struct ring_core {
    uint32_t packets, nwaves;
    const uint32_t *wave_packet;
};

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Each wave its own workgroup, running, at PC WAVE_PC + 4 k, on its packet's ring slot. */
static uint8_t *save_area(const struct ring_core *rc, size_t *ret_size)
{
    const struct gc_arch *arch = gc_arch_by_gfx_version(GFX90A);
    struct gc_wave_spec *specs = calloc(rc->nwaves, sizeof(*specs));
    uint8_t *area = NULL;
    gpucore_diag_t d;

    assert_non_null(arch);
    assert_non_null(specs);
    for (uint32_t k = 0; k < rc->nwaves; k++) {
        struct gc_wave_spec *s = &specs[k];
        uint64_t pc = WAVE_PC + 4ull * k;

        s->vgprs = s->accvgprs = 4;
        s->first_wave = s->last_wave = 1;
        s->hwreg[gc_hwreg_slot(arch->hwreg, "pc_lo")] = (uint32_t)pc;
        s->hwreg[gc_hwreg_slot(arch->hwreg, "pc_hi")] = (uint32_t)(pc >> 32);
        s->ttmp[arch->ttmp->dispatch_index.ttmp] =
                gc_bf_put(0, arch->ttmp->dispatch_index.bits, rc->wave_packet[k] % rc->packets);
    }
    assert_int_equal(gc_cwsr_encode(arch, specs, rc->nwaves, 4096, NULL, &area, ret_size, NULL, &d),
                     GPUCORE_OK);
    free(specs);
    return area;
}

static void write_ring_core(const char *path, const struct ring_core *rc)
{
    gpucore_kfd_device_entry_t dev = { 0 };
    gpucore_kfd_queue_entry_t q = { 0 };
    gpucore_amdgpu_note_t note = { 0 };
    gpucore_writer_t *w;
    gpucore_diag_t d;
    uint8_t aq[256] = { 0 }, pkt[64] = { 0 }, kd[64] = { 0 }, *ring, *area = NULL;
    size_t area_size = 0, size;
    void *desc;

    dev.gpu_id = 1;
    dev.vendor_id = 0x1002;
    dev.device_id = 0x740f;
    dev.gfx_target_version = GFX90A;
    dev.simd_count = 416;
    dev.max_waves_per_simd = 8;
    dev.array_count = 8;
    dev.simd_arrays_per_engine = 1;
    dev.num_xcc = 1;
    dev.capability = GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT |
                     GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
    q.gpu_id = 1;
    q.queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
    q.ring_base_address = RING_BASE;
    q.ring_size = rc->packets * 64u;
    q.read_pointer_address = AMDQ_BASE + 128;
    q.write_pointer_address = AMDQ_BASE + 56;
    if (rc->nwaves) {
        area = save_area(rc, &area_size);
        q.ctx_save_restore_address = AREA_BASE;
        q.ctx_save_restore_area_size = (uint32_t)((area_size + 4095) & ~(size_t)4095);
    }
    note.kfd_major = 1;
    note.kfd_minor = 16;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note.runtime.ttmp_setup = 1;
    note.agent_count = 1;
    note.agents = &dev;
    note.queue_count = 1;
    note.queues = &q;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &size, &d), GPUCORE_OK);
    le64(aq + 56, rc->packets); /* write_dispatch_id; read_dispatch_id 0 */
    pkt[0] = 2;                 /* KERNEL_DISPATCH */
    pkt[2] = 1;
    le32(pkt + 12, 1u << 20);
    le64(pkt + 32, KD_BASE);
    le64(kd + 16, 0x100);
    ring = malloc((size_t)rc->packets * 64);
    assert_non_null(ring);
    for (uint32_t i = 0; i < rc->packets; i++)
        memcpy(ring + (size_t)i * 64, pkt, 64);
    assert_int_equal(gpucore_writer_open(path, GPUCORE_OPTS(gpucore_writer_opts,
                                                            .flags = GPUCORE_WRITE_OVERWRITE),
                                         &w, &d),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_note(w, GPUCORE_AMDGPU_NOTE_OWNER,
                                             GPUCORE_NT_AMDGPU_KFD_CORE_STATE, desc, size),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, AMDQ_BASE, aq, sizeof(aq), NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, RING_BASE, ring, (uint64_t)rc->packets * 64,
                                                NULL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, KD_BASE, kd, sizeof(kd), NULL), GPUCORE_OK);
    if (area)
        assert_int_equal(gpucore_writer_add_segment(w, AREA_BASE, area, area_size, NULL),
                         GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_OK);
    gpucore_free(desc);
    gc_free(area);
    free(ring);
}

/* The core @p rc written in a new directory (*ret_dir) and opened with budget @p budget (0:
   the default). */
static gpucore_core_t *ring_core(const struct ring_core *rc, uint64_t budget, char **ret_dir)
{
    char *dir = tc_mkdtemp("image-ring");
    char *path = tc_path(dir, "ring.core");
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;

    write_ring_core(path, rc);
    if (gpucore_core_open(path, GPUCORE_OPTS(gpucore_open_opts, .mem_budget = budget), &core,
                          &d) != GPUCORE_OK)
        fail_msg("open %s: %s", path, d.message);
    free(path);
    *ret_dir = dir;
    return core;
}

static void done(gpucore_core_t *core, char *dir)
{
    gpucore_core_close(core);
    tc_rmdir(dir);
    free(dir);
}

/* The problem of the image that contains @p text, or NULL. */
static const char *problem_with(const struct gc_image *img, const char *text)
{
    for (uint32_t i = 0; i < gc_image_problem_count(img); i++)
        if (strstr(gc_image_problem(img, i), text))
            return gc_image_problem(img, i);
    return NULL;
}

static uint64_t mem_used(const gpucore_core_t *core)
{
    struct gpucore_core_mem m;

    assert_int_equal(gpucore_core_mem_get(core, &m), GPUCORE_OK);
    return m.used;
}

/* The queue's dispatches are its own, in packet order, each the packet it names. */
static void check_dispatches(const struct gc_image *img, const struct gc_image_queue *q)
{
    for (uint32_t k = 0; k < q->ndispatches; k++) {
        const struct gc_image_dispatch *d = gc_image_dispatch(img, q->first_dispatch + k);

        assert_int_equal(d->queue, q->index);
        assert_int_equal(d->packet_address, RING_BASE + d->packet_id * 64);
        assert_int_equal(d->kernel_object, KD_BASE);
        assert_int_equal(d->kernel_entry, KD_BASE + 0x100);
        if (k)
            assert_true(d->packet_id > gc_image_dispatch(img, q->first_dispatch + k - 1)->packet_id);
    }
}

/* With room, every dispatch is kept. */
static void test_all_kept(void **state)
{
    const struct ring_core rc = { .packets = 4096 };
    char *dir;
    gpucore_core_t *core = ring_core(&rc, 0, &dir);
    struct gc_image *img;
    gpucore_diag_t d;
    const struct gc_image_queue *q;

    (void)state;
    assert_int_equal(gc_image_open(core, &img, &d), GPUCORE_OK);
    q = gc_image_queue(img, 0);
    assert_int_equal(q->dispatch_packets, 4096);
    assert_int_equal(q->ndispatches, 4096);
    assert_int_equal(gc_image_dispatch_count(img), 4096);
    assert_null(problem_with(img, "not kept"));
    check_dispatches(img, q);
    assert_int_equal(gc_image_dispatch(img, 4095)->packet_id, 4095);
    gc_image_close(img);
    done(core, dir);
}

/* A small budget: the oldest dispatches are kept, the rest counted, the problem says from which
   packet on and why; what the image charged is given back at close. */
static void test_budget_prefix(void **state)
{
    const struct ring_core rc = { .packets = 16384 };
    char *dir, want[192];
    gpucore_core_t *core = ring_core(&rc, SMALL_BUDGET, &dir);
    uint64_t before = mem_used(core);
    struct gc_image *img;
    gpucore_diag_t d;
    const struct gc_image_queue *q;
    const char *p;

    (void)state;
    assert_int_equal(gc_image_open(core, &img, &d), GPUCORE_OK);
    q = gc_image_queue(img, 0);
    assert_int_equal(q->dispatch_packets, 16384);
    assert_true(q->ndispatches > 1000 && q->ndispatches < 16384);
    check_dispatches(img, q);
    assert_int_equal(gc_image_dispatch(img, q->ndispatches - 1)->packet_id, q->ndispatches - 1);
    snprintf(want, sizeof(want), "queue 0: %u of its 16384 kernel dispatches, from packet %u on, "
             "are counted, not kept: the memory budget is spent",
             16384 - q->ndispatches, q->ndispatches);
    p = problem_with(img, "not kept");
    assert_non_null(p);
    assert_memory_equal(p, want, strlen(want));
    assert_true(mem_used(core) > before);
    gc_image_close(img);
    assert_int_equal(mem_used(core), before);
    done(core, dir);
}

/* Waves on packets past the kept prefix still find their dispatch, read from the packet, and the
   queue's dispatches stay in packet order; with GC_IMAGE_WAVE_DISPATCHES only those are kept. */
static const uint32_t wave_packets[] = { 16003, 0, 16000, 16003, 9000 };

static gpucore_status_t core_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                  uint64_t *ret_done)
{
    return gpucore_core_read(user, addr, buf, size, ret_done);
}

static void check_waves(const struct gc_image *img)
{
    assert_int_equal(gc_image_wave_count(img), 5);
    for (uint32_t k = 0; k < 5; k++) {
        const struct gc_image_wave *w = gc_image_wave(img, k);

        assert_int_not_equal(w->dispatch, UINT32_MAX);
        assert_int_equal(gc_image_dispatch(img, w->dispatch)->packet_id, wave_packets[k]);
        assert_int_equal(w->pc, WAVE_PC + 4ull * k);
    }
    assert_null(problem_with(img, "cannot be associated"));
}

static void test_waves_past_prefix(void **state)
{
    const struct ring_core rc = { .packets = 16384, .nwaves = 5, .wave_packet = wave_packets };
    char *dir;
    gpucore_core_t *core = ring_core(&rc, SMALL_BUDGET, &dir);
    const struct gc_image_memory mem = { core_read, NULL, core };
    struct gpucore_note note;
    struct gc_image *img;
    gpucore_diag_t d;
    const struct gc_image_queue *q;
    uint32_t at = 0, kept;

    (void)state;
    assert_int_equal(gc_image_open(core, &img, &d), GPUCORE_OK);
    q = gc_image_queue(img, 0);
    kept = q->ndispatches;
    assert_true(kept < 9000); /* the walk kept a prefix; 9000, 16000 and 16003 are past it */
    check_waves(img);
    check_dispatches(img, q);
    assert_int_equal(gc_image_dispatch(img, kept - 1)->packet_id, 16003);
    gc_image_close(img);

    /* the amd-dbgapi library's image: the dispatches waves run, and every packet counted */
    assert_int_equal(gpucore_core_find_note(core, GPUCORE_AMDGPU_NOTE_OWNER,
                                            GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &at, &note),
                     GPUCORE_OK);
    assert_int_equal(gc_image_open_note(note.desc, note.desc_size, &mem,
                                        GC_IMAGE_NO_CODE_BYTES | GC_IMAGE_WAVE_DISPATCHES, &img,
                                        &d),
                     GPUCORE_OK);
    q = gc_image_queue(img, 0);
    assert_int_equal(q->dispatch_packets, 16384);
    assert_int_equal(q->ndispatches, 4); /* packets 0, 9000, 16000, 16003 */
    check_waves(img);
    check_dispatches(img, q);
    assert_null(problem_with(img, "not kept"));
    gc_image_close(img);
    done(core, dir);
}

/* The report lists the first GC_TRIAGE_QUEUE_DISPATCHES and counts the rest; with its records
   over the budget it fails with the budget's status, blaming the core. */
static void test_report_bounded(void **state)
{
    const struct ring_core rc = { .packets = 16384 };
    char *dir;
    gpucore_core_t *core = ring_core(&rc, 0, &dir);
    struct gc_triage t = { .path = "ring.core", .core = core };
    struct gc_triage_error err = { 0 };
    struct gpucore_core_mem m;
    gpucore_diag_t d;
    json_t *doc;
    const json_t *jq;

    (void)state;
    assert_int_equal(gc_triage_open(&t, &d), GPUCORE_OK);
    doc = gc_triage_report(&t, &err);
    assert_non_null(doc);
    jq = json_array_get(json_object_get(json_array_get(json_object_get(doc, "agents"), 0),
                                        "queues"),
                        0);
    assert_int_equal(json_array_size(json_object_get(jq, "dispatches")),
                     GC_TRIAGE_QUEUE_DISPATCHES);
    assert_int_equal(gc_json_get_u64(jq, "dispatches_omitted"),
                     16384 - GC_TRIAGE_QUEUE_DISPATCHES);
    assert_int_equal(gc_json_get_u64(jq, "groups_omitted"), 0);
    assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "summary"), 0)),
                        "No GPU waves in the core: 16384 dispatches in flight, none of them "
                        "executing when it was captured");
    json_decref(doc);

    assert_int_equal(gpucore_core_mem_get(core, &m), GPUCORE_OK);
    assert_int_equal(gpucore_core_mem_reserve(core, m.budget - m.used - 512, "the test", &d),
                     GPUCORE_OK);
    assert_null(gc_triage_report(&t, &err));
    assert_int_equal(err.blame, GC_TRIAGE_BLAME_CORE);
    assert_int_equal(err.diag.status, GPUCORE_E_LIMIT);
    assert_non_null(strstr(err.diag.message, "the report's records"));
    gc_triage_close(&t);
    done(core, dir);
}

/* gc_triage_sign(): the report and its signature in one call (none here: no wave to judge);
   a report over the budget is the report's failure, with its blame, and no document. */
static void test_sign(void **state)
{
    const struct ring_core rc = { .packets = 16384 };
    char *dir;
    gpucore_core_t *core = ring_core(&rc, 0, &dir);
    struct gc_triage_signed sig;
    struct gc_triage_error err = { 0 };
    struct gpucore_core_mem m;
    gpucore_diag_t d;

    (void)state;
    assert_int_equal(gc_triage_sign(core, "ring.core", &sig, &err), GPUCORE_OK);
    assert_non_null(sig.report);
    assert_true(json_is_null(json_object_get(sig.report, "signature")));
    assert_null(sig.signature);
    assert_null(sig.sig_hash);
    assert_null(sig.sig_text);
    json_decref(sig.report);

    assert_int_equal(gpucore_core_mem_get(core, &m), GPUCORE_OK);
    assert_int_equal(gpucore_core_mem_reserve(core, m.budget - m.used - 512, "the test", &d),
                     GPUCORE_OK);
    assert_int_not_equal(gc_triage_sign(core, "ring.core", &sig, &err), GPUCORE_OK);
    assert_null(sig.report);
    assert_int_not_equal(err.diag.status, GPUCORE_OK);
    assert_non_null(err.diag.message[0] ? err.diag.message : NULL);
    done(core, dir);
}

/* `waves` a wave at a time: the head counts the waves the request lists, the records come in
   image order, one at a time, and listing them keeps nothing charged; what the views keep
   (the instructions at PCs) is given back at close. */
static void test_waves_listed(void **state)
{
    const struct ring_core rc = { .packets = 16384, .nwaves = 5, .wave_packet = wave_packets };
    char *dir;
    gpucore_core_t *core = ring_core(&rc, 0, &dir);
    struct gc_triage t = { .path = "ring.core", .core = core };
    struct gc_triage_request req = { .wave = -1, .queue = -1 };
    struct gc_triage_error err = { 0 };
    uint64_t before_open = mem_used(core), listing;
    gpucore_diag_t d;
    json_t *head, *w;
    uint32_t i, n = 0;

    (void)state;
    assert_int_equal(gc_triage_open(&t, &d), GPUCORE_OK);
    head = gc_triage_waves_head(&t, &req, &err);
    assert_non_null(head);
    assert_string_equal(gc_json_get_str(head, "command"), "waves");
    assert_int_equal(gc_json_get_u64(head, "count"), 5);
    assert_null(json_object_get(head, "waves")); /* the records come one at a time */
    json_decref(head);
    listing = mem_used(core);
    for (i = gc_triage_waves_next(&t, &req, 0); i != UINT32_MAX;
         i = gc_triage_waves_next(&t, &req, i + 1), n++) {
        w = gc_triage_waves_item(&t, &req, i);
        assert_int_equal(i, n);
        assert_int_equal(gc_json_get_u64(w, "index"), n);
        assert_int_equal(gc_json_get_u64(w, "queue"), 0);
        assert_int_equal(gc_json_get_u64(w, "dispatch"), (uint64_t)wave_packets[n]);
        assert_true(json_is_null(json_object_get(w, "instruction"))); /* running: none */
        json_decref(w);
        assert_int_equal(mem_used(core), listing);
    }
    assert_int_equal(n, 5);

    /* one wave: its instruction asked for (the code is not in the core: why, instead) */
    req.wave = 3;
    head = gc_triage_waves_head(&t, &req, &err);
    assert_int_equal(gc_json_get_u64(head, "count"), 1);
    json_decref(head);
    assert_int_equal(gc_triage_waves_next(&t, &req, 0), 3);
    assert_int_equal(gc_triage_waves_next(&t, &req, 4), UINT32_MAX);
    w = gc_triage_waves_item(&t, &req, 3);
    assert_non_null(strstr(gc_json_get_str(w, "instruction_error"), "not in the core"));
    json_decref(w);

    /* filters: none stopped; queue 0 has them all; queue 1 does not exist */
    req.wave = -1;
    req.stopped = 1;
    head = gc_triage_waves_head(&t, &req, &err);
    assert_int_equal(gc_json_get_u64(head, "count"), 0);
    json_decref(head);
    assert_int_equal(gc_triage_waves_next(&t, &req, 0), UINT32_MAX);
    req.stopped = 0;
    req.queue = 0;
    head = gc_triage_waves_head(&t, &req, &err);
    assert_int_equal(gc_json_get_u64(head, "count"), 5);
    json_decref(head);
    req.queue = 1;
    assert_null(gc_triage_waves_head(&t, &req, &err));
    assert_int_equal(err.blame, GC_TRIAGE_BLAME_REQUEST);
    assert_int_equal(err.diag.status, GPUCORE_E_NOTFOUND);
    assert_string_equal(err.diag.message, "queue 1 does not exist: the core has 1 queue");
    gc_triage_close(&t);
    assert_int_equal(mem_used(core), before_open);
    done(core, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_kept),
        cmocka_unit_test(test_budget_prefix),
        cmocka_unit_test(test_waves_past_prefix),
        cmocka_unit_test(test_report_bounded),
        cmocka_unit_test(test_sign),
        cmocka_unit_test(test_waves_listed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
