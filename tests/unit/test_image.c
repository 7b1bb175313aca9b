/* SPDX-License-Identifier: MIT */
/*
 * analyze/image: capture a core of every scenario's gpucore-inferior with the built gpucore
 * (--kfd sim), rebuild the GPU image with gc_image_open and compare it with the scenario's
 * ground truth (kfd/sim/layout.h): agents, queues, waves (dispatch, workgroup, stop state,
 * PC, EXEC, registers), LDS, scratch, global buffers, kernel names and code objects. Also a
 * `--tier state` core (buffers unavailable) and a `--max-size` truncated core (opens with
 * problems). Exits 77 (skip) when ptrace is not permitted.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>

#include "image.h"
#include "layout.h"
#include "scenario_core.h"
#include "scenario.h"
#include "wave.h"


/* What a case checked (so a scenario that stops exercising a path is noticed). */
static struct {
    uint32_t waves, lds, scratch, buffers;
} seen;

static uint32_t expected_reason(enum gc_scen_stop stop)
{
    static const uint32_t map[] = {
        [GC_SCEN_STOP_NONE] = GC_STOP_NONE,
        [GC_SCEN_STOP_MEMORY_VIOLATION] = GC_STOP_MEMORY_VIOLATION,
        [GC_SCEN_STOP_ILLEGAL_INSTRUCTION] = GC_STOP_ILLEGAL_INSTRUCTION,
        [GC_SCEN_STOP_ASSERT_TRAP] = GC_STOP_ASSERT_TRAP,
    };

    return (size_t)stop < sizeof(map) / sizeof(map[0]) ? map[stop] : GC_STOP_NONE;
}

/* LDS of a group leader through GC_ASPACE_LOCAL, and the bound past it. */
static void check_lds(struct gc_image *img, const struct gc_image_wave *iw,
                      const struct gc_scen_waves *w, uint32_t uid)
{
    uint32_t size = iw->wave.lds_size;
    uint8_t *buf = malloc(size + 8u);
    uint64_t done = 0;
    gpucore_diag_t d = { 0 };

    assert_non_null(buf);
    assert_true(size > 0);
    seen.lds++;
    if (gc_image_read(img, iw->index, GC_ASPACE_LOCAL, 0, 0, buf, size, &done, &d))
        fail_msg("LDS of wave %u: %s", iw->index, d.message);
    assert_int_equal(done, size);
    for (uint32_t b = 0; b + 4 <= size; b += 4) {
        uint32_t got = (uint32_t)buf[b] | (uint32_t)buf[b + 1] << 8 | (uint32_t)buf[b + 2] << 16 |
                       (uint32_t)buf[b + 3] << 24;

        if (got != gc_sim_layout_lds(w, uid, b / 4))
            fail_msg("LDS dword %u of wave %u: 0x%x, expected 0x%x", b / 4, uid, got,
                     gc_sim_layout_lds(w, uid, b / 4));
    }
    /* past the LDS: a limit, with the readable prefix */
    assert_int_equal(gc_image_read(img, iw->index, GC_ASPACE_LOCAL, 0, size - 4, buf, 8, &done, &d),
                     GPUCORE_E_LIMIT);
    assert_int_equal(done, 4);
    /* generic addresses in the LDS aperture lower to the same bytes */
    uint8_t g[4];
    assert_int_equal(gc_image_read(img, iw->index, GC_ASPACE_GENERIC, 0, 0x1000000000000ull + 4, g,
                                   4, &done, &d),
                     GPUCORE_OK);
    assert_memory_equal(g, buf + 4, 4);
    free(buf);
}

/* Scratch through PRIVATE_WAVE and PRIVATE_LANE, compared with the queue's pattern. */
static void check_scratch(struct gc_image *img, const struct gc_scenario *s,
                          const struct gc_image_wave *iw, uint32_t qi)
{
    const struct gc_scen_queue *sq = &s->queues[qi];
    const struct gc_scen_agent *ag = &s->agents[sq->agent];
    const struct gc_image_queue *q = gc_image_queue(img, iw->queue);
    const struct gc_arch *arch = gc_arch_by_name(ag->target);
    uint64_t off = 0, size = 0, done = 0;
    uint32_t words[4];
    gpucore_diag_t d = { 0 };

    assert_int_equal(gc_scratch_slot(arch, q->compute_tmpring_size, iw->wave.se_id,
                                     iw->wave.scratch_id,
                                     ag->array_count / ag->simd_arrays_per_engine, &off, &size),
                     GPUCORE_OK);
    off += q->scratch_stride * iw->xcc; /* from the queue's scratch base */
    seen.scratch++;
    if (gc_image_read(img, iw->index, GC_ASPACE_PRIVATE_WAVE, 0, 8, words, sizeof(words), &done,
                      &d))
        fail_msg("scratch of wave %u: %s", iw->index, d.message);
    for (uint32_t k = 0; k < 4; k++)
        assert_int_equal(words[k], gc_sim_layout_mem(sq->scratch_pattern, sq->scratch_seed,
                                                     GC_SCEN_KIND_SCRATCH, (off + 8) / 4 + k));
    /* lane 1, dword 2: (2 * lanes + 1) dwords into the slot */
    if (gc_image_read(img, iw->index, GC_ASPACE_PRIVATE_LANE, 1, 8, words, 4, &done, &d))
        fail_msg("private_lane of wave %u: %s", iw->index, d.message);
    assert_int_equal(words[0],
                     gc_sim_layout_mem(sq->scratch_pattern, sq->scratch_seed, GC_SCEN_KIND_SCRATCH,
                                       off / 4 + 2u * iw->lanes + 1u));
    /* past the slot */
    assert_int_equal(
            gc_image_read(img, iw->index, GC_ASPACE_PRIVATE_WAVE, 0, size, words, 4, &done, &d),
            GPUCORE_E_LIMIT);
    assert_int_equal(gc_image_read(img, iw->index, GC_ASPACE_PRIVATE_LANE, iw->lanes, 0, words, 4,
                                   &done, &d),
                     GPUCORE_E_INVAL);
}

/* Every wave of queue @p qi against the scenario. */
static void check_waves(struct gc_image *img, const struct gc_scenario *s, const struct tsc_addrs *a,
                        uint32_t qi, int tier_state)
{
    const struct gc_image_queue *q = gc_image_queue(img, qi);
    const struct gc_scen_agent *ag = &s->agents[s->queues[qi].agent];
    const struct gc_arch *arch = gc_arch_by_name(ag->target);
    uint32_t k = 0, nxcc = ag->num_xcc ? ag->num_xcc : 1;

    assert_non_null(q);
    for (uint32_t x = 0; x < nxcc; x++) {
        for (uint32_t wi = 0; wi < s->nwaves; wi++) {
            const struct gc_scen_waves *w = &s->waves[wi];
            const struct gc_scen_dispatch *dp = &s->dispatches[w->dispatch];
            uint32_t wpg = gc_scen_waves_per_group(s, w), v, acc, sg;

            if (dp->queue != qi || w->xcc != x)
                continue;
            gc_sim_layout_reg_counts(arch, dp, &v, &acc, &sg);
            for (uint32_t g = 0; g < w->workgroup_count; g++) {
                for (uint32_t n = 0; n < wpg; n++, k++) {
                    uint32_t uid = w->first_wave + g * wpg + n;
                    const struct gc_image_wave *iw = gc_image_wave(img, q->first_wave + k);
                    int full = w->stopped || k % 61 == 0;
                    uint64_t pc =
                            w->pc_is_kernel ? a->entry[w->dispatch] + w->pc_offset : w->pc_address;

                    assert_true(k < q->nwaves);
                    assert_non_null(iw);
                    seen.waves++;
                    assert_int_equal(iw->queue, qi);
                    assert_int_equal(iw->xcc, x);
                    assert_true(iw->dispatch < gc_image_dispatch_count(img));
                    assert_int_equal(gc_image_dispatch(img, iw->dispatch)->packet_id,
                                     dp->packet_id);
                    assert_int_equal(iw->workgroup[0], w->workgroup[0] + g);
                    assert_int_equal(iw->wave_in_group, n);
                    assert_int_equal(iw->lanes, dp->wave32 ? 32 : 64);
                    assert_int_equal(iw->stopped, w->stopped);
                    assert_int_equal(iw->stop_reasons, expected_reason(w->stop));
                    assert_int_equal(iw->pc, pc);
                    assert_int_equal(iw->exec, w->exec);
                    assert_int_equal(iw->wave.sgprs, sg);
                    assert_int_equal(iw->wave.vgprs, v);
                    if (n == 0)
                        assert_int_equal(iw->group_leader, iw->index);
                    else
                        assert_int_equal(iw->group_leader, iw->index - n);
                    /* the saved registers, read from the core when asked */
                    const struct gc_wave *rw = NULL;
                    assert_int_equal(gc_image_wave_regs(img, iw->index, &rw, NULL), GPUCORE_OK);
                    assert_null(iw->wave.vgpr); /* not copied into the image */
                    for (uint32_t r = 0; r < sg; r += full ? 1 : 17)
                        assert_int_equal(gc_wave_sgpr(rw, r),
                                         gc_sim_layout_saved_sgpr(arch, ag, &s->queues[qi],
                                                                  a->scratch[qi], x, rw, w, uid,
                                                                  r));
                    for (uint32_t r = 0; r < v; r += full ? 1 : 7)
                        for (uint32_t l = 0; l < iw->lanes; l += full ? 1 : 13)
                            if (gc_wave_vgpr(rw, r, l) != gc_sim_layout_vgpr(w, uid, r, l))
                                fail_msg("wave %u v%u lane %u: 0x%x, expected 0x%x", uid, r, l,
                                         gc_wave_vgpr(rw, r, l), gc_sim_layout_vgpr(w, uid, r, l));
                    for (uint32_t r = 0; full && r < iw->wave.accvgprs; r++)
                        assert_int_equal(gc_wave_accvgpr(rw, r, 5),
                                         gc_sim_layout_accvgpr(w, uid, r, 5));
                    if (n == 0 && dp->group_segment_size && (full || g < 2))
                        check_lds(img, iw, w, uid);
                    if (iw->wave.scratch_en && s->queues[qi].scratch_per_wave && (full || g < 2)) {
                        if (tier_state) {
                            uint32_t word;
                            gpucore_diag_t d = { 0 };

                            assert_int_equal(gc_image_read(img, iw->index, GC_ASPACE_PRIVATE_WAVE,
                                                           0, 0, &word, 4, NULL, &d),
                                             GPUCORE_E_UNAVAILABLE);
                            assert_non_null(strstr(d.message, "not in the core"));
                            seen.scratch++;
                        } else {
                            check_scratch(img, s, iw, qi);
                        }
                    }
                }
            }
        }
    }
    assert_int_equal(q->nwaves, k);
}

static int buffer_referenced(const struct gc_scenario *s, uint32_t b)
{
    for (uint32_t i = 0; i < s->ndispatches; i++)
        for (uint32_t k = 0; k < s->dispatches[i].nkernargs; k++)
            if (s->dispatches[i].kernargs[k].type == GC_SCEN_KA_BUFFER &&
                s->dispatches[i].kernargs[k].value == b)
                return 1;
    return 0;
}

static void check_buffers(struct gc_image *img, const struct gc_scenario *s, const struct tsc_addrs *a,
                          int tier_state)
{
    for (uint32_t b = 0; b < s->nbuffers; b++) {
        const struct gc_scen_buffer *sb = &s->buffers[b];
        uint64_t start = sb->nranges ? sb->ranges[0].offset : 0, done = 0;
        uint32_t words[16];
        gpucore_diag_t d = { 0 };
        gpucore_status_t st;

        if (sb->pattern == GC_SCEN_PAT_ZERO || !buffer_referenced(s, b) || sb->size < 64)
            continue;
        st = gc_image_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, a->buffer[b] + start, words,
                           sizeof(words), &done, &d);
        if (tier_state) {
            assert_int_equal(st, GPUCORE_E_UNAVAILABLE);
            assert_int_equal(done, 0);
            assert_non_null(strstr(d.message, "not in the core"));
            seen.buffers++;
            continue;
        }
        if (sb->sparse && st == GPUCORE_E_UNAVAILABLE)
            continue;
        if (st)
            fail_msg("buffer %s: %s", sb->name, d.message);
        seen.buffers++;
        for (uint32_t k = 0; k < 16; k++)
            assert_int_equal(words[k], gc_sim_layout_mem(sb->pattern, sb->seed, GC_SCEN_KIND_MEM,
                                                         start / 4 + k));
        /* the same bytes through a generic (global) address */
        uint32_t g = 0;
        assert_int_equal(gc_image_read(img, UINT32_MAX, GC_ASPACE_GENERIC, 0, a->buffer[b] + start,
                                       &g, 4, NULL, &d),
                         GPUCORE_OK);
        assert_int_equal(g, words[0]);
    }
}

/* 0 while an image without the GPUCORE notes is checked: a file:// object then has no bytes
   (the image never opens a file a core names unless given a code-object directory). */
static int file_bytes_expected = 1;

static int has_problem(const struct gc_image *img, const char *text)
{
    for (uint32_t k = 0; k < gc_image_problem_count(img); k++)
        if (strstr(gc_image_problem(img, k), text))
            return 1;
    return 0;
}

static void check_code_objects(struct gc_image *img, const struct gc_scenario *s,
                               const struct tsc_addrs *a)
{
    assert_int_equal(gc_image_code_object_count(img), s->ncode_objects);
    for (uint32_t i = 0; i < s->ncode_objects; i++) {
        const struct gc_image_code_object *co = gc_image_code_object(img, i);
        char path[4096];
        size_t len = 0;
        uint8_t *bytes;

        assert_non_null(co);
        assert_int_equal(co->load_address, a->co_load[i]);
        assert_non_null(strstr(co->uri, s->code_objects[i].uri_file ? "file://" : "memory://"));
        if (s->code_objects[i].uri_file && !file_bytes_expected) {
            assert_null(co->bytes);
            assert_string_equal(co->source, "missing");
            assert_true(has_problem(img, "file:// URI not opened; use --code-object-path"));
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", tsc_env("GPUCORE_SCENARIO_OBJECTS"),
                 s->code_objects[i].object);
        bytes = tsc_read_file(path, &len);
        assert_non_null(bytes);
        assert_non_null(co->bytes);
        assert_int_equal(co->size, len);
        assert_memory_equal(co->bytes, bytes, len);
        free(bytes);
    }
}

static void check_image(struct gc_image *img, const struct gc_scenario *s, const struct tsc_addrs *a,
                        int tier_state)
{
    char name[128];
    uint64_t off = 0, done = 0;
    uint8_t b;
    gpucore_diag_t d = { 0 };

    assert_int_equal(gc_image_agent_count(img), s->nagents);
    for (uint32_t i = 0; i < s->nagents; i++) {
        const struct gc_image_agent *ag = gc_image_agent(img, i);

        assert_non_null(ag->arch);
        assert_string_equal(ag->arch->name, gc_arch_by_name(s->agents[i].target)->name);
        assert_int_equal(ag->entry->gpu_id, s->agents[i].gpu_id);
        assert_true(ag->supports_debugging);
    }
    assert_null(gc_image_agent(img, s->nagents));
    assert_int_equal(gc_image_queue_count(img), s->nqueues);
    assert_int_equal(gc_image_r_version(img), s->r_version);
    check_code_objects(img, s, a);
    /* dispatches: one per scenario dispatch, kernel names and entries */
    assert_int_equal(gc_image_dispatch_count(img), s->ndispatches);
    for (uint32_t i = 0; i < s->ndispatches; i++) {
        const struct gc_scen_dispatch *dp = &s->dispatches[i];
        const struct gc_image_queue *q = gc_image_queue(img, dp->queue);
        const struct gc_image_dispatch *id = NULL;

        assert_non_null(q);
        for (uint32_t k = 0; k < q->ndispatches; k++) {
            const struct gc_image_dispatch *cand = gc_image_dispatch(img, q->first_dispatch + k);
            if (cand && cand->packet_id == dp->packet_id)
                id = cand;
        }
        if (!id) { /* the compiler cannot see through cmocka's assert */
            fail_msg("dispatch %u (packet %llu) not found", i, (unsigned long long)dp->packet_id);
            abort();
        }
        assert_int_equal(id->kernel_object, a->kd[i]);
        assert_int_equal(id->kernel_entry, a->entry[i]);
        if (s->code_objects[dp->code_object].uri_file && !file_bytes_expected) {
            /* no bytes: no symbols, no extent */
            assert_string_equal(id->kernel_name, "");
            assert_int_equal(id->code_object, UINT32_MAX);
            continue;
        }
        assert_string_equal(id->kernel_name, dp->kernel);
        assert_int_equal(id->code_object, dp->code_object);
        assert_int_equal(id->workgroup_size[0], dp->workgroup[0]);
        assert_int_equal(id->grid_size[0], dp->grid[0]);
        assert_int_equal(gc_image_symbolize(img, id->kernel_entry + 4, name, sizeof(name), &off),
                         GPUCORE_OK);
        assert_string_equal(name, dp->kernel);
        assert_int_equal(off, 4);
    }
    for (uint32_t qi = 0; qi < s->nqueues; qi++)
        check_waves(img, s, a, qi, tier_state);
    check_buffers(img, s, a, tier_state);
    /* memory that no process has: unavailable, with a sentence */
    assert_int_equal(gc_image_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, 0x10, &b, 1, &done, &d),
                     GPUCORE_E_UNAVAILABLE);
    assert_true(strlen(d.message) > 10);
    assert_int_equal(
            gc_image_read(img, gc_image_wave_count(img), GC_ASPACE_LOCAL, 0, 0, &b, 1, &done, &d),
            GPUCORE_E_INVAL);
    assert_int_equal(gc_image_symbolize(img, 0x10, name, sizeof(name), &off), GPUCORE_E_NOTFOUND);
}

/* ---- cores built here (no inferior, no ptrace) ----------------------------------------------- */

/* Write a core with the given AMDGPU note desc (NULL: none) and one segment at 0x10000. */
static gpucore_core_t *make_core(const char *tag, const void *desc, size_t desc_size)
{
    char path[4200];
    gpucore_writer_t *w = NULL;
    gpucore_core_t *c = NULL;
    gpucore_diag_t d = { 0 };
    uint8_t seg[256];

    for (size_t i = 0; i < sizeof(seg); i++)
        seg[i] = (uint8_t)(i * 7 + 1);
    snprintf(path, sizeof(path), "%s/image-%s.%ld.core", tsc_env("GPUCORE_TEST_TMPDIR"), tag,
             (long)getpid());
    if (gpucore_writer_open(
                path, GPUCORE_OPTS(gpucore_writer_opts, .flags = GPUCORE_WRITE_OVERWRITE), &w, &d))
        fail_msg("%s: %s", path, d.message);
    assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, "abcd", 4), GPUCORE_OK);
    if (desc)
        assert_int_equal(gpucore_writer_add_note(w, GPUCORE_AMDGPU_NOTE_OWNER,
                                                 GPUCORE_NT_AMDGPU_KFD_CORE_STATE, desc, desc_size),
                         GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x10000, seg, sizeof(seg), NULL), GPUCORE_OK);
    if (gpucore_writer_finish(w, NULL, &d))
        fail_msg("%s: %s", path, d.message);
    if (gpucore_core_open(path, NULL, &c, &d))
        fail_msg("%s: %s", path, d.message);
    unlink(path); /* plain cores are mapped: the data stays */
    return c;
}

/* No note, a bad note, a good note whose memory is missing: statuses and sentences. */
static void test_image_built(void **state)
{
    gpucore_diag_t d = { 0 };
    struct gc_image *img = (struct gc_image *)(uintptr_t)1;
    gpucore_core_t *c;
    uint8_t buf[64];
    uint64_t done = 99;

    (void)state;
    gc_image_close(NULL);
    assert_int_equal(gc_image_open(NULL, &img, &d), GPUCORE_E_INVAL);
    /* no AMDGPU note */
    c = make_core("none", NULL, 0);
    assert_int_equal(gc_image_open(c, &img, &d), GPUCORE_E_NOTFOUND);
    assert_non_null(strstr(d.message, "AMDGPU"));
    assert_ptr_equal(img, (struct gc_image *)(uintptr_t)1);
    gpucore_core_close(c);
    /* a note of another version, and a truncated one */
    uint8_t v2[48] = { 2 };
    c = make_core("v2", v2, sizeof(v2));
    assert_int_equal(gc_image_open(c, &img, &d), GPUCORE_E_VERSION);
    assert_true(strlen(d.message) > 10);
    gpucore_core_close(c);
    c = make_core("short", v2, 4);
    assert_int_equal(gc_image_open(c, &img, &d), GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, "AMDGPU note"));
    gpucore_core_close(c);

    /* a valid note: one gfx90a agent, one AQL queue, nothing of it in the core */
    gpucore_kfd_device_entry_t dev = {
        .gpu_id = 0x1234,
        .vendor_id = 0x1002,
        .device_id = 0x740f,
        .gfx_target_version = 90010,
        .simd_count = 416,
        .max_waves_per_simd = 8,
        .array_count = 8,
        .simd_arrays_per_engine = 1,
        .num_xcc = 1,
        .capability =
                GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT | GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED,
    };
    gpucore_kfd_queue_entry_t q = {
        .ring_base_address = 0x40000,
        .write_pointer_address = 0x50000 + 56,
        .read_pointer_address = 0x50000 + 128,
        .ctx_save_restore_address = 0x60000,
        .queue_id = 3,
        .gpu_id = 0x1234,
        .ring_size = 4096,
        .queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL,
        .ctx_save_restore_area_size = 0x1000,
    };
    gpucore_amdgpu_note_t note = {
        .kfd_major = 1,
        .kfd_minor = 13,
        .runtime = { .r_debug = 0, .runtime_state = GPUCORE_KFD_RUNTIME_ENABLED },
        .agent_count = 1,
        .queue_count = 1,
        .agents = &dev,
        .queues = &q,
    };
    void *desc = NULL;
    size_t desc_size = 0;
    assert_int_equal(gpucore_amdgpu_note_encode(&note, &desc, &desc_size, &d), GPUCORE_OK);
    c = make_core("good", desc, desc_size);
    gpucore_free(desc);
    if (gc_image_open(c, &img, &d))
        fail_msg("%s", d.message);
    assert_int_equal(gc_image_agent_count(img), 1);
    assert_string_equal(gc_image_agent(img, 0)->name, "gfx90a");
    assert_true(gc_image_agent(img, 0)->supports_debugging);
    assert_int_equal(gc_image_queue_count(img), 1);
    assert_int_equal(gc_image_queue(img, 0)->is_aql, 1);
    assert_int_equal(gc_image_queue(img, 0)->nwaves, 0);
    assert_non_null(strstr(gc_image_queue(img, 0)->problem, "amd_queue_t"));
    assert_int_equal(gc_image_wave_count(img), 0);
    assert_int_equal(gc_image_dispatch_count(img), 0);
    assert_int_equal(gc_image_code_object_count(img), 0);
    assert_int_equal(gc_image_r_version(img), 0);
    assert_true(gc_image_problem_count(img) >= 3); /* r_debug, amd_queue_t, CWSR */
    assert_null(gc_image_problem(img, gc_image_problem_count(img)));
    assert_null(gc_image_queue(img, 1));
    /* global memory: present, absent, and a read running off the segment */
    assert_int_equal(
            gc_image_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, 0x10010, buf, 16, &done, &d),
            GPUCORE_OK);
    assert_int_equal(done, 16);
    assert_int_equal(buf[0], (uint8_t)(16 * 7 + 1));
    assert_int_equal(
            gc_image_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, 0x100f0, buf, 64, &done, &d),
            GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, 16);
    assert_non_null(strstr(d.message, "0x10100"));
    assert_int_equal(
            gc_image_read(img, UINT32_MAX, GC_ASPACE_GENERIC, 0, 0x10000, buf, 4, &done, &d),
            GPUCORE_OK);
    assert_int_equal(
            gc_image_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, UINT64_MAX - 1, buf, 4, &done, &d),
            GPUCORE_E_LIMIT);
    assert_int_equal(gc_image_read(img, 0, GC_ASPACE_LOCAL, 0, 0, buf, 4, &done, &d),
                     GPUCORE_E_INVAL);
    assert_int_equal(gc_image_read(img, 0, 77, 0, 0, buf, 4, &done, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_image_read(img, 0, GC_ASPACE_GLOBAL, 0, 0x10000, NULL, 4, &done, &d),
                     GPUCORE_E_INVAL);
    char name[16];
    assert_int_equal(gc_image_symbolize(img, 0x10000, name, sizeof(name), NULL),
                     GPUCORE_E_NOTFOUND);
    gc_image_close(img);
    gpucore_core_close(c);
}

/* The core as a gc_image_memory, as the amd-dbgapi library gets memory from its client. */
static gpucore_status_t mem_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                 uint64_t *ret_done)
{
    return gpucore_core_read(user, addr, buf, size, ret_done);
}

/* The image built from the note and a memory source only (no core file, no GPUCORE notes)
   holds the same GPU state; without code-object bytes, the same waves. */
static void check_note_image(gpucore_core_t *c, const struct gc_scenario *s,
                             const struct tsc_addrs *a, int tier_state)
{
    const struct gc_image_memory mem = { mem_read, NULL, c };
    struct gpucore_note note;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    uint32_t at = 0;

    assert_int_equal(gpucore_core_find_note(c, GPUCORE_AMDGPU_NOTE_OWNER,
                                            GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &at, &note),
                     GPUCORE_OK);
    if (gc_image_open_note(note.desc, note.desc_size, &mem, 0, &img, &d))
        fail_msg("image from the note: %s", d.message);
    memset(&seen, 0, sizeof(seen));
    file_bytes_expected = 0;
    check_image(img, s, a, tier_state);
    file_bytes_expected = 1;
    assert_int_equal(gc_image_wave_count(img), s->total_waves);
    gc_image_close(img);
    if (gc_image_open_note(note.desc, note.desc_size, &mem, GC_IMAGE_NO_CODE_BYTES, &img, &d))
        fail_msg("image from the note, no code bytes: %s", d.message);
    assert_int_equal(gc_image_wave_count(img), s->total_waves);
    assert_int_equal(gc_image_code_object_count(img), s->ncode_objects);
    for (uint32_t i = 0; i < gc_image_code_object_count(img); i++) {
        assert_null(gc_image_code_object(img, i)->bytes);
        assert_string_equal(gc_image_code_object(img, i)->source, "not loaded");
    }
    gc_image_close(img);
}

/* Capture @p name with the options, open the core and its image, check. */
static void run_case(const char *name, uint32_t r_version, const char *opt1, const char *opt2,
                     int tier_state, uint32_t want_lds, uint32_t want_scratch,
                     uint32_t want_buffers)
{
    struct tsc_case *tc = calloc(1, sizeof(*tc));
    gpucore_diag_t d = { 0 };
    gpucore_core_t *c = NULL;
    struct gc_image *img = NULL;

    assert_non_null(tc);
    tsc_capture_case(tc, "image", name, r_version, opt1, opt2);
    if (gpucore_core_open(tc->core, NULL, &c, &d))
        fail_msg("%s: %s", tc->core, d.message);
    if (gc_image_open(c, &img, &d))
        fail_msg("image of %s: %s", tc->core, d.message);
    memset(&seen, 0, sizeof(seen));
    check_image(img, tc->s, &tc->a, tier_state);
    print_message("%s r_version %u%s%s: %u waves, %u LDS images, %u scratch slots, %u buffers "
                  "checked\n",
                  name, tc->s->r_version, opt1 ? " " : "", opt2 ? opt2 : "", seen.waves, seen.lds,
                  seen.scratch, seen.buffers);
    assert_int_equal(seen.waves, tc->s->total_waves);
    assert_int_equal(gc_image_wave_count(img), tc->s->total_waves);
    if (want_lds)
        assert_true(seen.lds > 0);
    if (want_scratch)
        assert_true(seen.scratch > 0);
    if (want_buffers)
        assert_true(seen.buffers > 0);
    gc_image_close(img);
    check_note_image(c, tc->s, &tc->a, tier_state);
    gpucore_core_close(c);
    tsc_case_done(tc);
    free(tc);
}

/* SCENARIO(test, file, LDS, scratch, buffers): the last three say which paths it must reach. */
#define SCENARIO(n, f, l, sc, b)              \
    static void test_image_##n(void **state)  \
    {                                         \
        (void)state;                          \
        run_case(f, 0, NULL, NULL, 0, l, sc, b); \
    }
SCENARIO(vadd, "vadd-fault", 1, 1, 1)
SCENARIO(mi300, "mi300-xcc", 1, 1, 0)
SCENARIO(rdna2, "rdna2-illegal", 0, 0, 1)
SCENARIO(rdna3, "rdna3-assert", 1, 1, 1)
SCENARIO(hang, "multi-gpu-hang", 0, 0, 0)
SCENARIO(big, "big-memory", 1, 0, 1)

/* --tier state: no referenced buffers, no scratch; the GPU state is all there. */
static void test_image_tier_state(void **state)
{
    (void)state;
    run_case("rdna2-illegal", 0, "--tier", "state", 1, 0, 0, 1);
    run_case("vadd-fault", 0, "--tier", "state", 1, 1, 1, 1);
}

/* Every ROCr r_debug version a reader must know (8..12): amd_queue_t's fields and the parked
   PC of stopped waves depend on it. */
static void test_image_r_versions(void **state)
{
    (void)state;
    for (uint32_t v = 8; v <= 12; v++) {
        run_case("vadd-fault", v, NULL, NULL, 0, 1, 1, 1);
        run_case("mi300-xcc", v, NULL, NULL, 0, 1, 1, 0);
    }
}

/* A core cut by --max-size opens (image with problems), never a crash. */
static void test_image_max_size(void **state)
{
    static const char *const sizes[] = { "96K", "128K", "200K", "1M", "4M" };
    struct tsc_case *tc = calloc(1, sizeof(*tc));
    gpucore_diag_t d = { 0 };
    uint32_t opened = 0;
    pid_t pid;

    (void)state;
    assert_non_null(tc);
    tsc_prepare_case(tc, "image", "vadd-fault", 0);
    pid = tsc_start_inferior(tc->scen, tc->desc);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        gpucore_core_t *c = NULL;
        struct gc_image *img = NULL;
        int rc = tsc_capture(pid, tc->core, "--max-size", sizes[i]);

        /* a truncated capture may report the truncation in its status; the core exists */
        (void)rc;
        if (gpucore_core_open(tc->core, NULL, &c, &d))
            fail_msg("%s (max %s): %s", tc->core, sizes[i], d.message);
        gpucore_status_t st = gc_image_open(c, &img, &d);
        if (st == GPUCORE_OK) {
            opened++;
            print_message("max-size %s: %u waves, %u problems, first: %s\n", sizes[i],
                          gc_image_wave_count(img), gc_image_problem_count(img),
                          gc_image_problem(img, 0));
            assert_true(gc_image_problem_count(img) > 0);
            for (uint32_t k = 0; k < gc_image_problem_count(img); k++)
                assert_true(strlen(gc_image_problem(img, k)) > 0);
            for (uint32_t k = 0; k < gc_image_queue_count(img); k++) {
                const struct gc_image_queue *q = gc_image_queue(img, k);
                if (q->nwaves == 0)
                    assert_true(q->problem[0] != 0);
            }
            gc_image_close(img);
        } else {
            assert_int_equal(st, GPUCORE_E_NOTFOUND); /* not even the note fit */
        }
        gpucore_core_close(c);
    }
    tsc_stop_inferior(pid);
    assert_true(opened > 0);
    tsc_case_done(tc);
    free(tc);
}

int main(void)
{
    const struct CMUnitTest built[] = {
        cmocka_unit_test(test_image_built),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_image_vadd, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_rdna2, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_rdna3, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_mi300, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_hang, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_big, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_tier_state, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_r_versions, tsc_kill_child),
        cmocka_unit_test_teardown(test_image_max_size, tsc_kill_child),
    };

    int rc = cmocka_run_group_tests(built, NULL, NULL);

    if (rc)
        return rc;
    if (!tsc_ptrace_permitted()) {
        printf("SKIP: ptrace is not permitted (not root, kernel.yama.ptrace_scope != 0)\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
