/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi against the ground truth: for every scenario, a core captured from its
 * gpucore-inferior by the built `gpucore capture --kfd sim` is opened through the public
 * amd-dbgapi interface only, as a debugger opens it (tests/unit/dbgapi_client.c), and what the
 * library serves is compared with what the scenario put in the process (kfd/sim/layout.h):
 *
 *   - the handshake: the note handed over once and freed by the library, RUNTIME
 *     LOADED_SUCCESS, then one WAVE_STOP per wave, waves running until their event is fetched;
 *   - agents (gpu_id, architecture, PCI ids, SIMDs), queues (ring, size, id, packets),
 *     dispatches (packet id, kernel descriptor and entry, sizes), workgroups (coordinates),
 *     code objects (load address, URI);
 *   - every wave: state, stop reason, PC, EXEC, lanes, position, and every register it lists --
 *     each SGPR, VGPR lane and AccVGPR lane against the scenario's values, pc and exec against
 *     the wave, every other register against the process image (analyze/image.h) that
 *     test_image checks;
 *   - memory: each workgroup's LDS (local), scratch (private_wave and private_lane), the
 *     referenced buffers (global and generic); a `--tier state` core answers MEMORY_ACCESS for
 *     the buffers it did not capture.
 *
 * No FATAL_ERROR is logged, nothing is written, and the client gets back every byte the
 * library allocated for it. Exits 77 (skip) when ptrace is not permitted.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>

#include "arch.h"
#include "arch_regs.h"
#include "dbgapi_client.h"
#include "dbgapi_order.h"
#include "image.h"
#include "layout.h"
#include "scenario_core.h"
#include "wave.h"

/* What a case checked, so a scenario that stops reaching a path is noticed. */
static struct {
    uint64_t waves, registers, lanes, lds_bytes, scratch_reads, no_scratch_reads, buffer_reads,
            ttmps;
    uint32_t stop_reasons; /* union of the stop reasons served */
} seen;

/* ---- events ------------------------------------------------------------------------------- */

/* What attach queued, drained in order, and what each wave's state was before that. */
static struct {
    uint32_t runtime, runtime_state;
    uint64_t *stops; /* wave handle of each WAVE_STOP, in event order */
    size_t nstops;
    uint32_t *state_before; /* by position in the wave list */
} ev;

static void drain_events(amd_dbgapi_process_id_t p)
{
    amd_dbgapi_event_id_t e;
    amd_dbgapi_event_kind_t kind;

    free(ev.stops);
    ev.stops = NULL;
    ev.nstops = 0;
    ev.runtime = 0;
    for (;;) {
        assert_int_equal(amd_dbgapi_process_next_pending_event(p, &e, &kind),
                         AMD_DBGAPI_STATUS_SUCCESS);
        if (e.handle == 0)
            break;
        if (kind == AMD_DBGAPI_EVENT_KIND_RUNTIME) {
            assert_int_equal(ev.nstops, 0); /* RUNTIME comes first */
            ev.runtime++;
            assert_int_equal(amd_dbgapi_event_get_info(e, AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE,
                                                       sizeof(ev.runtime_state),
                                                       &ev.runtime_state),
                             AMD_DBGAPI_STATUS_SUCCESS);
        } else {
            amd_dbgapi_wave_id_t w;

            assert_int_equal(kind, AMD_DBGAPI_EVENT_KIND_WAVE_STOP);
            assert_int_equal(amd_dbgapi_event_get_info(e, AMD_DBGAPI_EVENT_INFO_WAVE, sizeof(w),
                                                       &w),
                             AMD_DBGAPI_STATUS_SUCCESS);
            ev.stops = realloc(ev.stops, (ev.nstops + 1) * sizeof(*ev.stops));
            assert_non_null(ev.stops);
            ev.stops[ev.nstops++] = w.handle;
        }
        assert_int_equal(amd_dbgapi_event_processed(e), AMD_DBGAPI_STATUS_SUCCESS);
    }
}

/*
 * The event rule (AMD's library, wave.cpp and process.cpp): after RUNTIME, a WAVE_STOP for each
 * wave the trap handler stopped with a cause, in wave-creation order (handle order); then one
 * for each wave saved running, which the library stops, in the order it walks its wave map
 * (a libstdc++ unordered_map keyed by the handle: dbgapi_order.h, itself checked against
 * libstdc++ by test_dbgapi_order); none for a wave saved stopped without a cause, which is
 * STOP from the start. @p cls: per wave in list order, 0 running, 1 stopped with a cause,
 * 2 stopped without one.
 */
static void check_event_order(const struct tdc_list *l, const uint8_t *cls)
{
    uint32_t *order = calloc(l->n + 1, sizeof(*order));
    uint8_t *by_handle = calloc(l->n + 1, 1); /* cls by handle - first */
    uint64_t first = UINT64_MAX;
    size_t k = 0;

    assert_non_null(order);
    assert_non_null(by_handle);
    for (size_t i = 0; i < l->n; i++) {
        first = l->ids[i] < first ? l->ids[i] : first;
        assert_int_equal(ev.state_before[i],
                         cls[i] == 2 ? AMD_DBGAPI_WAVE_STATE_STOP : AMD_DBGAPI_WAVE_STATE_RUN);
    }
    /* one block of handles, numbered in creation order, listed in wave-map order */
    if (l->n)
        assert_int_equal(gc_dbg_map_order(first, (uint32_t)l->n, order), GPUCORE_OK);
    for (size_t i = 0; i < l->n; i++) {
        assert_int_equal(l->ids[i], first + order[i]);
        by_handle[order[i]] = (uint8_t)(cls[i] + 1);
    }
    for (size_t h = 0; h < l->n; h++)
        if (by_handle[h] == 2) {
            assert_true(k < ev.nstops);
            if (ev.stops[k] != first + h)
                fail_msg("event %zu names wave %" PRIu64 ", expected %" PRIu64 " (stopped with a "
                         "cause, in creation order)", k, ev.stops[k], first + h);
            k++;
        }
    for (size_t j = 0; j < l->n; j++)
        if (by_handle[order[j]] == 1) {
            assert_true(k < ev.nstops);
            if (ev.stops[k] != first + order[j])
                fail_msg("event %zu names wave %" PRIu64 ", expected %" PRIu64 " (stopped by the "
                         "library, in wave-map order)", k, ev.stops[k], first + order[j]);
            k++;
        }
    assert_int_equal(k, ev.nstops);
    free(by_handle);
    free(order);
}

/* ---- per-architecture register handles, by name ------------------------------------------- */

#define MAX_ARCHS 4

/* What a register handle names: sN (with a DWARF number: not a shadow), vN, aN, pc, exec. */
enum reg_kind { R_OTHER, R_SGPR, R_VGPR, R_ACC, R_PC, R_EXEC };

struct reg_class {
    uint64_t id;
    enum reg_kind kind;
    uint32_t number;
};

struct arch_regs {
    uint64_t arch;
    const struct gc_arch *garch;
    struct reg_class *regs; /* by id */
    size_t nregs;
    uint64_t local, private_lane, private_wave, generic;
};

static struct arch_regs archs[MAX_ARCHS];
static size_t narchs;

static uint64_t space_of(uint64_t arch, uint64_t dwarf)
{
    amd_dbgapi_architecture_id_t a = { arch };
    amd_dbgapi_address_space_id_t s;

    assert_int_equal(amd_dbgapi_dwarf_address_space_to_address_space(a, dwarf, &s),
                     AMD_DBGAPI_STATUS_SUCCESS);
    return s.handle;
}

static const struct arch_regs *arch_regs(uint64_t arch)
{
    amd_dbgapi_architecture_id_t a = { arch };
    amd_dbgapi_register_id_t *regs = NULL;
    struct arch_regs *ar;
    size_t n = 0;
    char *name;

    for (size_t i = 0; i < narchs; i++)
        if (archs[i].arch == arch)
            return &archs[i];
    assert_true(narchs < MAX_ARCHS);
    ar = &archs[narchs++];
    memset(ar, 0, sizeof(*ar));
    ar->arch = arch;
    name = tdc_architecture_name(arch);
    ar->garch = gc_arch_by_name(name);
    assert_non_null(ar->garch);
    tdc_free(name);
    assert_int_equal(amd_dbgapi_architecture_register_list(a, &n, &regs),
                     AMD_DBGAPI_STATUS_SUCCESS);
    ar->regs = calloc(n + 1, sizeof(*ar->regs));
    assert_non_null(ar->regs);
    ar->nregs = n;
    for (size_t i = 0; i < n; i++) {
        struct reg_class *rc = &ar->regs[i];
        char *rn = tdc_register_name(regs[i].handle), *end = NULL;
        uint64_t dwarf = 0;
        unsigned long k = rn[1] >= '0' && rn[1] <= '9' ? strtoul(rn + 1, &end, 10) : 0;
        /* the aliased SGPRs are listed again under their sN names, without a DWARF number
           ("shadow" SGPRs, docs/cwsr-layout.md §9): those are checked as the other registers */
        int has_dwarf = amd_dbgapi_register_get_info(regs[i], AMD_DBGAPI_REGISTER_INFO_DWARF,
                                                     sizeof(dwarf), &dwarf) ==
                        AMD_DBGAPI_STATUS_SUCCESS;

        rc->id = regs[i].handle;
        rc->number = (uint32_t)k;
        if (end && *end == '\0' && rn[0] == 's' && has_dwarf)
            rc->kind = R_SGPR;
        else if (end && *end == '\0' && rn[0] == 'v')
            rc->kind = R_VGPR;
        else if (end && *end == '\0' && rn[0] == 'a')
            rc->kind = R_ACC;
        else if (strcmp(rn, "pc") == 0)
            rc->kind = R_PC;
        else if (strcmp(rn, "exec") == 0)
            rc->kind = R_EXEC;
        if (i > 0)
            assert_true(rc->id > ar->regs[i - 1].id); /* ascending: bsearch() */
        tdc_free(rn);
    }
    tdc_free(regs);
    ar->generic = space_of(arch, 1);
    ar->local = space_of(arch, 3);
    ar->private_lane = space_of(arch, 5);
    ar->private_wave = space_of(arch, 6);
    return ar;
}

static int reg_class_cmp(const void *key, const void *elem)
{
    uint64_t id = *(const uint64_t *)key, other = ((const struct reg_class *)elem)->id;

    return id < other ? -1 : id > other;
}

static const struct reg_class *reg_class(const struct arch_regs *ar, uint64_t id)
{
    const struct reg_class *rc = bsearch(&id, ar->regs, ar->nregs, sizeof(*ar->regs),
                                         reg_class_cmp);

    if (!rc)
        fail_msg("register %" PRIu64 " is not in its architecture's list", id);
    return rc;
}

static void archs_free(void)
{
    for (size_t i = 0; i < narchs; i++)
        free(archs[i].regs);
    narchs = 0;
}

/* ---- the scenario's side -------------------------------------------------------------------- */

/* Scenario queue index of an API queue: by its ring address. */
static uint32_t scen_queue(const struct tsc_case *tc, uint64_t queue)
{
    uint64_t ring = tdc_queue_u64(queue, AMD_DBGAPI_QUEUE_INFO_ADDRESS, 8);

    for (uint32_t i = 0; i < tc->s->nqueues; i++)
        if (tc->a.ring[i] == ring)
            return i;
    fail_msg("queue %" PRIu64 " has ring 0x%" PRIx64 ", which no scenario queue has", queue, ring);
    return UINT32_MAX;
}

/* Scenario dispatch index of an API dispatch: its queue and packet id. */
static uint32_t scen_dispatch(const struct tsc_case *tc, uint64_t dispatch)
{
    uint32_t q = scen_queue(tc, tdc_dispatch_u64(dispatch, AMD_DBGAPI_DISPATCH_INFO_QUEUE, 8));
    uint64_t pkt = tdc_dispatch_u64(dispatch, AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID, 8);

    for (uint32_t i = 0; i < tc->s->ndispatches; i++)
        if (tc->s->dispatches[i].queue == q && tc->s->dispatches[i].packet_id == pkt)
            return i;
    fail_msg("dispatch %" PRIu64 " (queue %u, packet %" PRIu64 ") is not in the scenario",
             dispatch, q, pkt);
    return UINT32_MAX;
}

/* The waves[] entry and scenario-wide wave number of an API wave. */
static const struct gc_scen_waves *scen_wave(const struct tsc_case *tc, uint32_t dispatch,
                                             const uint32_t coord[3], uint32_t number,
                                             uint32_t *ret_uid)
{
    const struct gc_scen_waves *found = NULL;

    for (uint32_t i = 0; i < tc->s->nwaves; i++) {
        const struct gc_scen_waves *w = &tc->s->waves[i];

        if (w->dispatch != dispatch || coord[1] != w->workgroup[1] ||
            coord[2] != w->workgroup[2] || coord[0] < w->workgroup[0] ||
            coord[0] - w->workgroup[0] >= w->workgroup_count)
            continue;
        if (found)
            fail_msg("two waves[] entries of dispatch %u hold workgroup %u", dispatch, coord[0]);
        found = w;
        *ret_uid = w->first_wave + (coord[0] - w->workgroup[0]) * gc_scen_waves_per_group(tc->s, w) +
                   number;
    }
    if (!found)
        fail_msg("no waves[] entry of dispatch %u holds workgroup (%u,%u,%u)", dispatch, coord[0],
                 coord[1], coord[2]);
    return found;
}

/*
 * The stop reasons AMD's library reports for a waves[] entry, from the causes' meanings
 * (tests/scenarios/README.md "Stop causes"), spelled out here rather than taken from the rows
 * under test. Only trap-stopped waves have any; a single step shows only where TRAPSTS has a
 * trap-after-instruction bit (gfx940 line, gfx11, gfx12); the host-trap bit, halts, fatal halts
 * and ECC errors are no stop reason for AMD's library; masked exceptions count for nothing.
 */
static uint32_t expected_reasons(const char *target, const struct gc_scen_waves *w)
{
    static const uint32_t map[_GC_SCEN_STOP_MAX] = {
        [GC_SCEN_STOP_MEMORY_VIOLATION] = AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION,
        [GC_SCEN_STOP_XNACK_ERROR] = AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION,
        [GC_SCEN_STOP_ADDRESS_ERROR] = AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR,
        [GC_SCEN_STOP_ILLEGAL_INSTRUCTION] = AMD_DBGAPI_WAVE_STOP_REASON_ILLEGAL_INSTRUCTION,
        [GC_SCEN_STOP_ASSERT_TRAP] = AMD_DBGAPI_WAVE_STOP_REASON_ASSERT_TRAP,
        [GC_SCEN_STOP_BREAKPOINT] = AMD_DBGAPI_WAVE_STOP_REASON_BREAKPOINT,
        [GC_SCEN_STOP_DEBUG_TRAP] = AMD_DBGAPI_WAVE_STOP_REASON_DEBUG_TRAP,
        [GC_SCEN_STOP_TRAP] = AMD_DBGAPI_WAVE_STOP_REASON_TRAP,
        [GC_SCEN_STOP_WATCHPOINT_0 + 0] = AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT,
        [GC_SCEN_STOP_WATCHPOINT_0 + 1] = AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT,
        [GC_SCEN_STOP_WATCHPOINT_0 + 2] = AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT,
        [GC_SCEN_STOP_WATCHPOINT_0 + 3] = AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT,
        [GC_SCEN_STOP_FP_INVALID_OPERATION] = AMD_DBGAPI_WAVE_STOP_REASON_FP_INVALID_OPERATION,
        [GC_SCEN_STOP_FP_INPUT_DENORMAL] = AMD_DBGAPI_WAVE_STOP_REASON_FP_INPUT_DENORMAL,
        [GC_SCEN_STOP_FP_DIVIDE_BY_0] = AMD_DBGAPI_WAVE_STOP_REASON_FP_DIVIDE_BY_0,
        [GC_SCEN_STOP_FP_OVERFLOW] = AMD_DBGAPI_WAVE_STOP_REASON_FP_OVERFLOW,
        [GC_SCEN_STOP_FP_UNDERFLOW] = AMD_DBGAPI_WAVE_STOP_REASON_FP_UNDERFLOW,
        [GC_SCEN_STOP_FP_INEXACT] = AMD_DBGAPI_WAVE_STOP_REASON_FP_INEXACT,
        [GC_SCEN_STOP_INT_DIVIDE_BY_0] = AMD_DBGAPI_WAVE_STOP_REASON_INT_DIVIDE_BY_0,
        [GC_SCEN_STOP_TRAP_AFTER_INSTRUCTION] = AMD_DBGAPI_WAVE_STOP_REASON_SINGLE_STEP,
    };
    int step_bit = strncmp(target, "gfx94", 5) == 0 || strncmp(target, "gfx11", 5) == 0 ||
                   strncmp(target, "gfx12", 5) == 0;
    uint32_t r = 0;

    if (!w->stopped)
        return AMD_DBGAPI_WAVE_STOP_REASON_NONE;
    for (int c = 0; c < _GC_SCEN_STOP_MAX; c++)
        if (w->stop_causes & (1u << c))
            r |= map[c];
    if ((w->stop_causes & (1u << GC_SCEN_STOP_SINGLE_STEP)) && step_bit)
        r |= AMD_DBGAPI_WAVE_STOP_REASON_SINGLE_STEP;
    return r;
}

/* The watchpoint handles WAVE_INFO_WATCHPOINTS lists for an entry: k + 1 for watch k. */
static void check_watchpoints(uint64_t wv, const struct gc_scen_waves *w)
{
    amd_dbgapi_watchpoint_list_t l = { 0, NULL };
    uint32_t want = 0, got = 0;

    assert_int_equal(amd_dbgapi_wave_get_info((amd_dbgapi_wave_id_t){ wv },
                                              AMD_DBGAPI_WAVE_INFO_WATCHPOINTS, sizeof(l), &l),
                     AMD_DBGAPI_STATUS_SUCCESS);
    if (w->stopped)
        for (uint32_t k = 0; k < 4; k++)
            if (w->stop_causes & (1u << (GC_SCEN_STOP_WATCHPOINT_0 + k)))
                want |= 1u << k;
    for (size_t i = 0; i < l.count; i++) {
        assert_true(l.watchpoint_ids[i].handle >= 1 && l.watchpoint_ids[i].handle <= 4);
        got |= 1u << (l.watchpoint_ids[i].handle - 1);
    }
    assert_int_equal(l.count, (size_t)__builtin_popcount(want));
    assert_int_equal(got, want);
    tdc_free(l.watchpoint_ids);
}

/* ---- the image's side: the same wave, by position ------------------------------------------ */

struct wave_key {
    uint32_t queue, x, y, z, number;
    uint64_t packet;
    uint32_t index;
};

static int key_cmp(const void *a, const void *b)
{
    const struct wave_key *x = a, *y = b;
    const uint64_t kx[6] = { x->queue, x->packet, x->x, x->y, x->z, x->number };
    const uint64_t ky[6] = { y->queue, y->packet, y->x, y->y, y->z, y->number };

    for (int i = 0; i < 6; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static struct wave_key *image_keys(struct gc_image *img)
{
    uint32_t n = gc_image_wave_count(img);
    struct wave_key *k = calloc(n + 1u, sizeof(*k));

    assert_non_null(k);
    for (uint32_t i = 0; i < n; i++) {
        const struct gc_image_wave *iw = gc_image_wave(img, i);

        k[i] = (struct wave_key){ iw->queue, iw->workgroup[0], iw->workgroup[1],
                                  iw->workgroup[2], iw->wave_in_group,
                                  gc_image_dispatch(img, iw->dispatch)->packet_id, i };
    }
    qsort(k, n, sizeof(*k), key_cmp);
    return k;
}

static const struct gc_image_wave *image_wave(struct gc_image *img, const struct wave_key *keys,
                                              struct wave_key want)
{
    const struct wave_key *k = bsearch(&want, keys, gc_image_wave_count(img), sizeof(*keys),
                                       key_cmp);

    if (!k)
        fail_msg("the image has no wave at queue %u packet %" PRIu64 " (%u,%u,%u) #%u",
                 want.queue, want.packet, want.x, want.y, want.z, want.number);
    return gc_image_wave(img, k->index);
}

/* ---- checks ------------------------------------------------------------------------------- */

static void check_agents(const struct tsc_case *tc, amd_dbgapi_process_id_t p)
{
    struct tdc_list l = tdc_agents(p);

    assert_int_equal(l.n, tc->s->nagents);
    for (size_t i = 0; i < l.n; i++) {
        uint64_t gpu_id = tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_OS_ID, 8);
        const struct gc_scen_agent *sa = NULL;
        amd_dbgapi_agent_id_t a = { l.ids[i] };
        char *name = NULL, *arch;

        for (uint32_t k = 0; k < tc->s->nagents; k++)
            if (tc->s->agents[k].gpu_id == gpu_id)
                sa = &tc->s->agents[k];
        if (!sa) {
            fail_msg("agent %zu has gpu_id %" PRIu64 ", which no scenario agent has", i, gpu_id);
            abort();
        }
        arch = tdc_architecture_name(tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_ARCHITECTURE, 8));
        assert_string_equal(arch, sa->target);
        tdc_free(arch);
        assert_int_equal(tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_STATE, 4),
                         AMD_DBGAPI_AGENT_STATE_SUPPORTED);
        assert_int_equal(tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_PCI_VENDOR_ID, 4),
                         sa->vendor_id);
        assert_int_equal(tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_PCI_DEVICE_ID, 4),
                         sa->device_id);
        assert_int_equal(tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_PCI_SLOT, 2),
                         sa->location_id & 0xffffu);
        assert_int_equal(tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_EXECUTION_UNIT_COUNT, 8),
                         sa->simd_count);
        assert_int_equal(
                tdc_agent_u64(l.ids[i], AMD_DBGAPI_AGENT_INFO_MAX_WAVES_PER_EXECUTION_UNIT, 8),
                sa->max_waves_per_simd);
        assert_int_equal(amd_dbgapi_agent_get_info(a, AMD_DBGAPI_AGENT_INFO_NAME, sizeof(name),
                                                   &name),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_true(strlen(name) > 0);
        tdc_free(name);
    }
    tdc_free(l.ids);
}

static void check_queues(const struct tsc_case *tc, amd_dbgapi_process_id_t p)
{
    struct tdc_list l = tdc_queues(p);
    uint32_t matched = 0;

    assert_int_equal(l.n, tc->s->nqueues);
    for (size_t i = 0; i < l.n; i++) {
        uint32_t q = scen_queue(tc, l.ids[i]);
        amd_dbgapi_queue_id_t h = { l.ids[i] };
        amd_dbgapi_os_queue_packet_id_t rd = 0, wr = 0;
        size_t size = 0;
        void *bytes = NULL;
        uint64_t agent = tdc_queue_u64(l.ids[i], AMD_DBGAPI_QUEUE_INFO_AGENT, 8);

        matched |= 1u << q;
        assert_int_equal(tdc_queue_u64(l.ids[i], AMD_DBGAPI_QUEUE_INFO_SIZE, 8), tc->a.ring_size[q]);
        assert_int_equal(tdc_queue_u64(l.ids[i], AMD_DBGAPI_QUEUE_INFO_TYPE, 4),
                         AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL);
        assert_int_equal(tdc_queue_u64(l.ids[i], AMD_DBGAPI_QUEUE_INFO_OS_ID, 8),
                         tc->s->queues[q].queue_id);
        assert_int_equal(tdc_agent_u64(agent, AMD_DBGAPI_AGENT_INFO_OS_ID, 8),
                         tc->s->agents[tc->s->queues[q].agent].gpu_id);
        assert_int_equal(amd_dbgapi_queue_packet_list(h, &rd, &wr, &size, &bytes),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_true(wr >= rd);
        assert_int_equal(size, (wr - rd) * 64);
        /* every dispatch of the scenario on this queue is among the packets */
        for (uint32_t d = 0; d < tc->s->ndispatches; d++)
            if (tc->s->dispatches[d].queue == q)
                assert_true(tc->s->dispatches[d].packet_id >= rd &&
                            tc->s->dispatches[d].packet_id < wr);
        tdc_free(bytes);
    }
    assert_int_equal(matched, (1u << tc->s->nqueues) - 1u);
    tdc_free(l.ids);
}

static void check_code_objects(const struct tsc_case *tc, amd_dbgapi_process_id_t p)
{
    struct tdc_list l = tdc_code_objects(p);

    assert_int_equal(l.n, tc->s->ncode_objects);
    for (size_t i = 0; i < l.n; i++) {
        amd_dbgapi_code_object_id_t h = { l.ids[i] };
        uint64_t load = 0;
        char *uri = NULL;
        uint32_t k;

        assert_int_equal(amd_dbgapi_code_object_get_info(h, AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS,
                                                         sizeof(load), &load),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(amd_dbgapi_code_object_get_info(h, AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME,
                                                         sizeof(uri), &uri),
                         AMD_DBGAPI_STATUS_SUCCESS);
        for (k = 0; k < tc->s->ncode_objects && tc->a.co_load[k] != load; k++)
            ;
        if (k == tc->s->ncode_objects)
            fail_msg("code object at 0x%" PRIx64 " is not the scenario's", load);
        assert_ptr_equal(strstr(uri, tc->s->code_objects[k].uri_file ? "file://" : "memory://"),
                         uri);
        tdc_free(uri);
    }
    tdc_free(l.ids);
}

static void check_dispatches(const struct tsc_case *tc, amd_dbgapi_process_id_t p)
{
    struct tdc_list l = tdc_dispatches(p);
    uint32_t with_waves = 0;

    for (uint32_t d = 0; d < tc->s->ndispatches; d++) {
        for (uint32_t w = 0; w < tc->s->nwaves; w++) {
            if (tc->s->waves[w].dispatch == d) {
                with_waves++;
                break;
            }
        }
    }
    /* as AMD's library: the dispatches that have waves */
    assert_int_equal(l.n, with_waves);
    for (size_t i = 0; i < l.n; i++) {
        uint32_t d = scen_dispatch(tc, l.ids[i]);
        const struct gc_scen_dispatch *dp = &tc->s->dispatches[d];
        amd_dbgapi_dispatch_id_t h = { l.ids[i] };
        uint16_t wg[3];
        uint32_t grid[3], dims;

        assert_int_equal(
                tdc_dispatch_u64(l.ids[i], AMD_DBGAPI_DISPATCH_INFO_KERNEL_DESCRIPTOR_ADDRESS, 8),
                tc->a.kd[d]);
        assert_int_equal(
                tdc_dispatch_u64(l.ids[i], AMD_DBGAPI_DISPATCH_INFO_KERNEL_CODE_ENTRY_ADDRESS, 8),
                tc->a.entry[d]);
        assert_int_equal(tdc_dispatch_u64(l.ids[i], AMD_DBGAPI_DISPATCH_INFO_GROUP_SEGMENT_SIZE, 8),
                         dp->group_segment_size);
        assert_int_equal(
                tdc_dispatch_u64(l.ids[i], AMD_DBGAPI_DISPATCH_INFO_PRIVATE_SEGMENT_SIZE, 8),
                dp->private_segment_size);
        assert_int_equal(amd_dbgapi_dispatch_get_info(h, AMD_DBGAPI_DISPATCH_INFO_WORKGROUP_SIZES,
                                                      sizeof(wg), wg),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(amd_dbgapi_dispatch_get_info(h, AMD_DBGAPI_DISPATCH_INFO_GRID_SIZES,
                                                      sizeof(grid), grid),
                         AMD_DBGAPI_STATUS_SUCCESS);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(wg[k], dp->workgroup[k]);
            assert_int_equal(grid[k], dp->grid[k]);
        }
        dims = (uint32_t)tdc_dispatch_u64(l.ids[i], AMD_DBGAPI_DISPATCH_INFO_GRID_DIMENSIONS, 4);
        assert_true(dims >= 1 && dims <= 3);
    }
    tdc_free(l.ids);
}

/* The workgroups: one per workgroup of the waves[] entries, each at its coordinates. */
static void check_workgroups(const struct tsc_case *tc, amd_dbgapi_process_id_t p)
{
    struct tdc_list l = tdc_workgroups(p);
    uint64_t want = 0;

    for (uint32_t w = 0; w < tc->s->nwaves; w++)
        want += tc->s->waves[w].workgroup_count;
    assert_int_equal(l.n, want);
    for (size_t i = 0; i < l.n; i++) {
        amd_dbgapi_workgroup_id_t h = { l.ids[i] };
        uint32_t coord[3], uid;
        uint32_t d = scen_dispatch(tc, tdc_workgroup_u64(l.ids[i],
                                                         AMD_DBGAPI_WORKGROUP_INFO_DISPATCH, 8));

        assert_int_equal(amd_dbgapi_workgroup_get_info(h, AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD,
                                                       sizeof(coord), coord),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_non_null(scen_wave(tc, d, coord, 0, &uid));
    }
    tdc_free(l.ids);
}

/* Read @p size bytes of a register into @p buf (fails unless SUCCESS). */
static void read_reg(uint64_t wave, uint64_t reg, void *buf, size_t size)
{
    amd_dbgapi_wave_id_t w = { wave };
    amd_dbgapi_register_id_t r = { reg };
    amd_dbgapi_status_t st = amd_dbgapi_read_register(w, r, 0, size, buf);

    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        fail_msg("wave %" PRIu64 " register %" PRIu64 ": status %d", wave, reg, (int)st);
}

/* Every register the wave lists: SGPRs, VGPRs, AccVGPRs, pc and exec against the scenario and
   the wave; the others against the image's bytes. */
/*
 * A TTMP as AMD's library serves it after attach, from the saved value: ttmp4/ttmp5 hold the
 * wave's handle; with r_version >= 10 (before gfx12) ttmp6[31] says whether the SPI set the
 * TTMPs up; a wave saved running is stopped by the library: ttmp6[30] set, ttmp6[29] its halt
 * bit (0 in the scenarios), and on a family that parks stopped waves its PC in the parked-PC
 * TTMPs. (Scenario agents have the SPI set-up, so its edits do not apply.)
 */
static uint32_t expected_ttmp(const struct tsc_case *tc, const struct gc_arch *arch,
                              const struct gc_scen_waves *w, const struct gc_image_wave *iw,
                              uint64_t wave, uint64_t pc, uint32_t n, uint32_t saved)
{
    /* the library stops the waves the trap handler had not (after AMD's attach rule), saving
       their halt bit: the sim sets status.halt for halted and trap-stopped waves */
    int stops = !iw->stopped;
    uint32_t halt = w->halted || w->stopped;

    const struct gc_ttmp_layout *t = arch->ttmp;
    uint32_t r_version = tc->s->r_version;
    struct {
        struct gc_ttmp_field f;
        uint32_t v;
        int when;
    } edits[] = {
        { t->wave_id_lo, (uint32_t)wave, 1 },
        { t->wave_id_hi, (uint32_t)(wave >> 32), 1 },
        { t->spi_setup_disabled, 0, r_version >= 10 && t != &gc_ttmp_gfx12 },
        { t->saved_halt, halt, stops },
        { t->stopped, 1, stops },
        { t->parked_pc_lo, (uint32_t)pc, stops && gc_arch_parks_stopped_waves(arch, r_version) },
        { t->parked_pc_hi, (uint32_t)(pc >> 32),
          stops && gc_arch_parks_stopped_waves(arch, r_version) },
    };

    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++)
        if (edits[i].when && edits[i].f.ttmp == n && gc_bf_present(edits[i].f.bits))
            saved = gc_bf_put(saved, edits[i].f.bits, edits[i].v);
    return saved;
}

static void check_registers(uint64_t wave, const struct arch_regs *ar,
                            const struct gc_scen_waves *w, uint32_t uid, struct gc_image *img,
                            const struct gc_image_wave *iw, uint64_t pc, uint64_t exec,
                            const struct tsc_case *tc)
{
    amd_dbgapi_wave_id_t h = { wave };
    amd_dbgapi_register_id_t *regs = NULL;
    struct gc_reglist il = { 0 };
    size_t n = 0, nsgpr = 0, nvgpr = 0, nacc = 0;
    uint32_t lanes = iw->lanes;
    uint8_t buf[256 * 4];
    /* SGPRs below the aliased top slots (vcc, flat_scratch, xnack_mask) are the saved values;
       the aliased ones are read as the registers they alias (docs/cwsr-layout.md §9) */
    uint32_t alias = ar->garch->regs->sgpr_alias_count;
    uint32_t plain = (ar->garch->sgprs + alias < iw->wave.sgprs ? ar->garch->sgprs + alias
                                                                 : iw->wave.sgprs) -
                     alias;

    assert_int_equal(amd_dbgapi_wave_register_list(h, &n, &regs), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(gc_wave_register_list(ar->garch, &iw->wave, &il), GPUCORE_OK);
    assert_int_equal(n, il.count);
    for (size_t i = 0; i < n; i++) {
        uint64_t id = regs[i].handle;
        const struct gc_reg *ir = &il.regs[i];
        uint64_t size = 0;
        amd_dbgapi_register_id_t r = { id };
        const struct reg_class *rc;
        uint32_t k;

        assert_int_equal(amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_SIZE,
                                                      sizeof(size), &size),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(size, ir->size);
        assert_true(size <= sizeof(buf));
        read_reg(wave, id, buf, size);
        seen.registers++;
        rc = reg_class(ar, id);
        k = rc->number;
        if (rc->kind == R_SGPR && k < plain) {
            uint32_t v;

            memcpy(&v, buf, 4);
            if (v != gc_sim_layout_sgpr(w, uid, k))
                fail_msg("wave %u s%u = 0x%x, expected 0x%x", uid, k, v,
                         gc_sim_layout_sgpr(w, uid, k));
            nsgpr++;
            continue;
        }
        if ((rc->kind == R_VGPR && k < iw->wave.vgprs) || rc->kind == R_ACC) {
            int acc = rc->kind == R_ACC;

            assert_int_equal(size, (uint64_t)lanes * 4);
            for (uint32_t lane = 0; lane < lanes; lane++) {
                uint32_t v, want = acc ? gc_sim_layout_accvgpr(w, uid, k, lane)
                                       : gc_sim_layout_vgpr(w, uid, k, lane);

                memcpy(&v, buf + 4 * lane, 4);
                if (v != want)
                    fail_msg("wave %u %c%u[%u] = 0x%x, expected 0x%x", uid, acc ? 'a' : 'v', k,
                             lane, v, want);
                seen.lanes++;
            }
            *(acc ? &nacc : &nvgpr) += 1;
            continue;
        }
        if (rc->kind == R_PC || rc->kind == R_EXEC) {
            uint64_t v = 0;

            memcpy(&v, buf, size < 8 ? size : 8);
            assert_int_equal(v, rc->kind == R_PC ? pc : exec);
            continue;
        }
        /* trap temporaries, hardware registers, aliases and pseudo registers: the image's */
        {
            uint8_t want[sizeof(buf)];
            const struct gc_wave *rec = NULL; /* the record, read from the core */

            assert_int_equal(gc_image_wave_regs(img, iw->index, &rec, NULL), GPUCORE_OK);
            assert_int_equal(gc_reg_read(ar->garch, rec, gc_image_r_version(img), ir, 0, want,
                                         size),
                             GPUCORE_OK);
            if (strncmp(ir->name, "ttmp", 4) == 0) {
                uint32_t saved, got;

                assert_int_equal(size, 4);
                memcpy(&saved, want, 4);
                memcpy(&got, buf, 4);
                saved = expected_ttmp(tc, ar->garch, w, iw, wave, pc, ir->number, saved);
                if (got != saved)
                    fail_msg("wave %u %s = 0x%x, expected 0x%x", uid, ir->name, got, saved);
                seen.ttmps++;
                continue;
            }
            if (memcmp(want, buf, size) != 0)
                fail_msg("wave %u %s differs from the image", uid, ir->name);
        }
    }
    /* the registers the wave has, all listed */
    assert_int_equal(nsgpr, plain);
    assert_int_equal(nvgpr, iw->wave.vgprs);
    assert_int_equal(nacc, iw->wave.accvgprs);
    gc_reglist_done(&il);
    tdc_free(regs);
}

/* The LDS of a group leader, whole, through the local address space. */
static void check_lds(uint64_t wave, const struct arch_regs *ar, const struct gc_scen_waves *w,
                      uint32_t uid, uint32_t group_segment_size, amd_dbgapi_process_id_t p)
{
    amd_dbgapi_wave_id_t h = { wave };
    amd_dbgapi_address_space_id_t local = { ar->local };
    amd_dbgapi_size_t size = 256u << 10;
    uint8_t *buf = malloc(size);

    assert_non_null(buf);
    assert_int_equal(amd_dbgapi_read_memory(p, h, 0, local, 0, &size, buf),
                     AMD_DBGAPI_STATUS_SUCCESS);
    assert_true(size >= group_segment_size);
    for (uint32_t k = 0; k + 4 <= size; k += 4) {
        uint32_t v;

        memcpy(&v, buf + k, 4);
        if (v != gc_sim_layout_lds(w, uid, k / 4))
            fail_msg("LDS dword %u of wave %u: 0x%x, expected 0x%x", k / 4, uid, v,
                     gc_sim_layout_lds(w, uid, k / 4));
    }
    seen.lds_bytes += size;
    free(buf);
}

/* Scratch: the wave's slot (from its hardware ids, as test_image finds it) holds the queue's
   pattern, through private_wave and the swizzled private_lane. */
static void check_scratch(uint64_t wave, const struct arch_regs *ar, const struct tsc_case *tc,
                          uint32_t q, struct gc_image *img, const struct gc_image_wave *iw,
                          amd_dbgapi_process_id_t p, int tier_state)
{
    const struct gc_scen_queue *sq = &tc->s->queues[q];
    const struct gc_scen_agent *ag = &tc->s->agents[sq->agent];
    const struct gc_image_queue *iq = gc_image_queue(img, iw->queue);
    amd_dbgapi_wave_id_t h = { wave };
    amd_dbgapi_address_space_id_t pw = { ar->private_wave }, pl = { ar->private_lane };
    uint64_t off = 0, slot = 0;
    amd_dbgapi_size_t size = 16;
    uint32_t words[4];

    assert_int_equal(gc_scratch_slot(ar->garch, iq->compute_tmpring_size, iw->wave.se_id,
                                     iw->wave.scratch_id,
                                     ag->array_count / ag->simd_arrays_per_engine, &off, &slot),
                     GPUCORE_OK);
    off += iq->scratch_stride * iw->xcc;
    seen.scratch_reads++;
    if (tier_state) { /* scratch is not in a --tier state core */
        assert_int_equal(amd_dbgapi_read_memory(p, h, 0, pw, 8, &size, words),
                         AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS);
        assert_int_equal(size, 0);
        return;
    }
    assert_int_equal(amd_dbgapi_read_memory(p, h, 0, pw, 8, &size, words),
                     AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(size, 16);
    for (uint32_t k = 0; k < 4; k++)
        assert_int_equal(words[k], gc_sim_layout_mem(sq->scratch_pattern, sq->scratch_seed,
                                                     GC_SCEN_KIND_SCRATCH, (off + 8) / 4 + k));
    /* lane 1, dword 2 of private_lane: (2 * lanes + 1) dwords into the slot */
    size = 4;
    assert_int_equal(amd_dbgapi_read_memory(p, h, 1, pl, 8, &size, words),
                     AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(words[0],
                     gc_sim_layout_mem(sq->scratch_pattern, sq->scratch_seed, GC_SCEN_KIND_SCRATCH,
                                       off / 4 + 2u * iw->lanes + 1u));
    /* past the slot: nothing */
    size = 4;
    assert_int_equal(amd_dbgapi_read_memory(p, h, 0, pw, slot, &size, words),
                     AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS);
    assert_int_equal(size, 0);
}

/* A wave whose FLAT_SCRATCH does not point at its slot: AMD's library disables its private
   memory (src/wave.cpp wave_t::scratch_memory_region), so every read is MEMORY_ACCESS. */
static void check_no_scratch(uint64_t wave, const struct arch_regs *ar, amd_dbgapi_process_id_t p)
{
    amd_dbgapi_wave_id_t h = { wave };
    amd_dbgapi_address_space_id_t pw = { ar->private_wave };
    amd_dbgapi_size_t size = 4;
    uint32_t word;

    assert_int_equal(amd_dbgapi_read_memory(p, h, 0, pw, 0, &size, &word),
                     AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS);
    assert_int_equal(size, 0);
    seen.no_scratch_reads++;
}

static void check_waves(const struct tsc_case *tc, amd_dbgapi_process_id_t p, struct gc_image *img,
                        int tier_state)
{
    struct tdc_list l = tdc_waves(p);
    struct wave_key *keys = image_keys(img);
    uint8_t *cls = calloc(l.n + 1, 1);

    assert_non_null(cls);
    assert_int_equal(l.n, tc->s->total_waves);
    for (size_t i = 0; i < l.n; i++) {
        uint64_t wv = l.ids[i];
        amd_dbgapi_wave_id_t h = { wv };
        uint64_t dispatch = tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_DISPATCH, 8);
        uint64_t queue = tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_QUEUE, 8);
        uint64_t group = tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_WORKGROUP, 8);
        uint32_t d = scen_dispatch(tc, dispatch), q = scen_queue(tc, queue), coord[3], gcoord[3];
        uint32_t number = (uint32_t)tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_WAVE_NUMBER_IN_WORKGROUP, 4);
        const struct gc_scen_dispatch *dp = &tc->s->dispatches[d];
        const struct arch_regs *ar = arch_regs(tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, 8));
        const struct gc_scen_waves *w;
        const struct gc_image_wave *iw;
        uint64_t pc, exec, want_pc;
        uint32_t uid = 0;

        assert_int_equal(amd_dbgapi_wave_get_info(h, AMD_DBGAPI_WAVE_INFO_WORKGROUP_COORD,
                                                  sizeof(coord), coord),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(amd_dbgapi_workgroup_get_info(
                                 (amd_dbgapi_workgroup_id_t){ group },
                                 AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD, sizeof(gcoord), gcoord),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_memory_equal(coord, gcoord, sizeof(coord));
        assert_int_equal(dp->queue, q);
        w = scen_wave(tc, d, coord, number, &uid);
        iw = image_wave(img, keys,
                        (struct wave_key){ q, coord[0], coord[1], coord[2], number, dp->packet_id, 0 });
        seen.waves++;
        assert_int_equal(tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_STATE, 4), AMD_DBGAPI_WAVE_STATE_STOP);
        assert_int_equal(tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_STOP_REASON, 4),
                         expected_reasons(tc->s->agents[tc->s->queues[q].agent].target, w));
        check_watchpoints(wv, w);
        seen.stop_reasons |= (uint32_t)tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_STOP_REASON, 4);
        assert_int_equal(tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_LANE_COUNT, 8), dp->wave32 ? 32 : 64);
        pc = tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_PC, 8);
        exec = tdc_wave_u64(wv, AMD_DBGAPI_WAVE_INFO_EXEC_MASK, 8);
        want_pc = w->pc_is_kernel ? tc->a.entry[w->dispatch] + w->pc_offset : w->pc_address;
        assert_int_equal(pc, want_pc);
        assert_int_equal(exec, w->exec);
        /* as the library classifies it: the image applies AMD's attach rule (a wave of an
           agent without TTMP set-up may not count as stopped by the trap handler) */
        cls[i] = !iw->stopped ? 0 : iw->stop_reasons != GC_STOP_NONE ? 1 : 2;
        check_registers(wv, ar, w, uid, img, iw, pc, exec, tc);
        if (number == 0 && dp->group_segment_size)
            check_lds(wv, ar, w, uid, dp->group_segment_size, p);
        /* AMD's library reads a wave's slot whether or not it was launched with scratch
           enabled; on targets with architected flat scratch a wave without scratch has no
           FLAT_SCRATCH pointing at its slot in the scenarios, so it has no private memory
           there (check_no_scratch) */
        if (tc->s->queues[q].scratch_per_wave &&
            (iw->wave.scratch_en || !ar->garch->architected_flat_scratch))
            check_scratch(wv, ar, tc, q, img, iw, p, tier_state);
        else if (tc->s->queues[q].scratch_per_wave)
            check_no_scratch(wv, ar, p);
    }
    check_event_order(&l, cls);
    free(cls);
    free(keys);
    tdc_free(l.ids);
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

/* The referenced buffers through global and generic addresses; under --tier state they were
   not captured, and the library says so (MEMORY_ACCESS, nothing read). */
static void check_buffers(const struct tsc_case *tc, amd_dbgapi_process_id_t p, int tier_state)
{
    for (uint32_t b = 0; b < tc->s->nbuffers; b++) {
        const struct gc_scen_buffer *sb = &tc->s->buffers[b];
        uint64_t start = sb->nranges ? sb->ranges[0].offset : 0;
        amd_dbgapi_size_t size = 64;
        uint32_t words[16];
        amd_dbgapi_status_t st;

        if (sb->pattern == GC_SCEN_PAT_ZERO || !buffer_referenced(tc->s, b) || sb->size < 64)
            continue;
        st = amd_dbgapi_read_memory(p, AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE,
                                    AMD_DBGAPI_ADDRESS_SPACE_GLOBAL,
                                    tc->a.buffer[b] + start, &size, words);
        seen.buffer_reads++;
        if (tier_state) {
            assert_int_equal(st, AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS);
            assert_int_equal(size, 0);
            continue;
        }
        if (sb->sparse && st == AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS)
            continue;
        assert_int_equal(st, AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(size, 64);
        for (uint32_t k = 0; k < 16; k++)
            assert_int_equal(words[k], gc_sim_layout_mem(sb->pattern, sb->seed, GC_SCEN_KIND_MEM,
                                                         start / 4 + k));
    }
}

/* ---- a case ------------------------------------------------------------------------------- */

/* A text edit of a scenario file: every @p from becomes @p to (at least one must be there). */
struct edit {
    const char *from, *to;
};

/* Capture scenario @p name as tsc_capture_case() does, with @p edits applied to its file. */
static void capture_edited(struct tsc_case *tc, const char *name, uint32_t r_version,
                           const char *opt1, const char *opt2, const struct edit *edits)
{
    gpucore_diag_t d = { 0 };
    pid_t pid;
    int rc;

    tsc_prepare_case(tc, "dbgapi", name, r_version);
    for (const struct edit *e = edits; e && e->from; e++) {
        size_t len = 0, nfrom = strlen(e->from);
        char *text = tsc_read_file(tc->scen, &len), *at, *cur;
        FILE *f = fopen(tc->scen, "w");

        assert_non_null(text);
        assert_non_null(f);
        if (!strstr(text, e->from))
            fail_msg("%s: no '%s' to edit", tc->scen, e->from);
        for (cur = text; (at = strstr(cur, e->from)) != NULL; cur = at + nfrom) {
            fwrite(cur, 1, (size_t)(at - cur), f);
            fputs(e->to, f);
        }
        fputs(cur, f);
        fclose(f);
        free(text);
    }
    gc_scenario_free(tc->s);
    tc->s = NULL;
    if (gc_scenario_load(tc->scen, &tc->s, &d))
        fail_msg("%s", d.message);
    pid = tsc_start_inferior(tc->scen, tc->desc);
    rc = tsc_capture(pid, tc->core, opt1, opt2);
    if (rc != 0)
        fail_msg("gpucore capture of %s (edited) exited %d", name, rc);
    tsc_parse_describe(tc);
    tsc_stop_inferior(pid);
}

/* Every agent's watchpoint count and sharing (AMD's process_t::watchpoint_count and
   watchpoint_shared_kind), from the scenario's node capabilities. */
static void check_watchpoint_capability(const struct tsc_case *tc, amd_dbgapi_process_id_t p)
{
    size_t count = 0, want = 0;
    uint32_t share = 0, want_share = AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED;
    uint32_t order[64];
    int any = 0, unsupported = 0;
    struct tdc_list l = tdc_agents(p);

    /* agents in note order; the sharing kind is the last one's AMD's library visits in its
       agent map (dbgapi_order.h) */
    assert_int_equal(l.n, tc->s->nagents);
    assert_true(l.n > 0 && l.n <= 64);
    {
        uint64_t first = UINT64_MAX;

        for (size_t i = 0; i < l.n; i++)
            first = l.ids[i] < first ? l.ids[i] : first;
        assert_int_equal(gc_dbg_map_order(first, (uint32_t)l.n, order), GPUCORE_OK);
        for (size_t i = 0; i < l.n; i++) /* listed in agent-map order too */
            assert_int_equal(l.ids[i], first + order[i]);
    }
    tdc_free(l.ids);
    for (uint32_t k = 0; k < tc->s->nagents; k++) {
        uint32_t i = order[k], cap = tc->s->agents[i].capability;
        size_t c = (size_t)1 << ((cap >> 8) & 0xf);

        if ((cap & 0x20008000u) != 0x20008000u) /* TRAP_DEBUG_SUPPORT and FIRMWARE_SUPPORTED */
            continue;
        want = any && want < c ? want : c;
        any = 1;
        unsupported |= !(cap & 0x80u);
        want_share = (tc->s->agents[i].debug_prop & 0x800u)
                             ? AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSHARED
                             : AMD_DBGAPI_WATCHPOINT_SHARE_KIND_SHARED;
    }
    if (unsupported || !any)
        want_share = AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED;
    assert_int_equal(amd_dbgapi_process_get_info(p, AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_COUNT,
                                                 sizeof(count), &count),
                     AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(amd_dbgapi_process_get_info(p, AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_SHARE,
                                                 sizeof(share), &share),
                     AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(count, want);
    assert_int_equal(share, want_share);
}

/* The completion address is the packet's completion_signal, 0 (no signal: the scenarios')
   included. */
static void check_completion(amd_dbgapi_process_id_t p)
{
    struct tdc_list l = tdc_dispatches(p);

    for (size_t i = 0; i < l.n; i++)
        assert_int_equal(
                tdc_dispatch_u64(l.ids[i], AMD_DBGAPI_DISPATCH_INFO_KERNEL_COMPLETION_ADDRESS, 8),
                0);
    tdc_free(l.ids);
}

static void run_case_edited(const char *name, uint32_t r_version, const char *opt1,
                            const char *opt2, const struct edit *edits)
{
    struct tsc_case *tc = calloc(1, sizeof(*tc));
    struct tdc c;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    amd_dbgapi_process_id_t p;
    int tier_state = opt2 && strcmp(opt2, "state") == 0;
    struct tdc_list waves;

    assert_non_null(tc);
    capture_edited(tc, name, r_version, opt1, opt2, edits);
    tdc_open(&c, tc->core);
    if (gc_image_open(c.core, &img, &d))
        fail_msg("image of %s: %s", tc->core, d.message);
    memset(&seen, 0, sizeof(seen));
    narchs = 0;
    tdc_reset_books();
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING); /* FATAL_ERROR messages counted */
    assert_int_equal(amd_dbgapi_initialize(&tdc_callbacks), AMD_DBGAPI_STATUS_SUCCESS);
    p = tdc_attach(&c);
    /* the handshake: one note handed over, freed by the library */
    assert_int_equal(c.core_state_given, 1);
    assert_int_equal(tdc_core_state_freed, 1);
    /* until its stop event is fetched a wave runs, and has no PC (checked against the
       scenario by check_event_order) */
    waves = tdc_waves(p);
    free(ev.state_before);
    ev.state_before = calloc(waves.n + 1, sizeof(*ev.state_before));
    assert_non_null(ev.state_before);
    for (size_t i = 0; i < waves.n; i++) {
        amd_dbgapi_wave_id_t w = { waves.ids[i] };
        uint64_t pc;

        ev.state_before[i] = (uint32_t)tdc_wave_u64(waves.ids[i], AMD_DBGAPI_WAVE_INFO_STATE, 4);
        assert_int_equal(amd_dbgapi_wave_get_info(w, AMD_DBGAPI_WAVE_INFO_PC, sizeof(pc), &pc),
                         ev.state_before[i] == AMD_DBGAPI_WAVE_STATE_RUN
                                 ? AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED
                                 : AMD_DBGAPI_STATUS_SUCCESS);
    }
    tdc_free(waves.ids);
    drain_events(p);
    assert_int_equal(ev.runtime, 1);
    assert_int_equal(ev.runtime_state, AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS);
    check_watchpoint_capability(tc, p);
    check_completion(p);
    if (strcmp(name, "vadd-fault") == 0 && !edits) {
        /* GDB names a wave thread by its handles and numbers threads in event order: AMD's
           library's first wave thread of vadd-fault is "AMDGPU Wave 1:1:1:253" */
        assert_true(ev.nstops > 0);
        assert_int_equal(ev.stops[0], 253);
        assert_int_equal(tdc_wave_u64(ev.stops[0], AMD_DBGAPI_WAVE_INFO_AGENT, 8), 1);
        assert_int_equal(tdc_wave_u64(ev.stops[0], AMD_DBGAPI_WAVE_INFO_QUEUE, 8), 1);
        assert_int_equal(tdc_wave_u64(ev.stops[0], AMD_DBGAPI_WAVE_INFO_DISPATCH, 8), 1);
    }

    check_agents(tc, p);
    check_queues(tc, p);
    check_code_objects(tc, p);
    check_dispatches(tc, p);
    check_workgroups(tc, p);
    check_waves(tc, p, img, tier_state);
    check_buffers(tc, p, tier_state);

    assert_int_equal(amd_dbgapi_process_detach(p), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(amd_dbgapi_finalize(), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(tdc_fatal_logs, 0);
    assert_int_equal(c.writes, 0);
    assert_int_equal(tdc_live_allocations, 0);
    print_message("%s r_version %u%s%s: %" PRIu64 " waves, %" PRIu64 " registers (%" PRIu64
                  " vector lanes), %" PRIu64 " LDS bytes, %" PRIu64 " scratch and %" PRIu64
                  " buffer reads checked\n",
                  name, tc->s->r_version, opt1 ? " " : "", opt2 ? opt2 : "", seen.waves,
                  seen.registers, seen.lanes, seen.lds_bytes, seen.scratch_reads,
                  seen.buffer_reads);
    assert_int_equal(seen.waves, tc->s->total_waves);
    assert_true(seen.ttmps > 0);
    archs_free();
    gc_image_close(img);
    tdc_close(&c);
    tsc_case_done(tc);
    free(tc);
}

static void run_case(const char *name, uint32_t r_version, const char *opt1, const char *opt2)
{
    run_case_edited(name, r_version, opt1, opt2, NULL);
}

/* SCENARIO(test, file, LDS, scratch, buffers): the last three say which paths it must reach. */
#define SCENARIO(n, f, lds, scratch, buffers)                                                  \
    static void test_truth_##n(void **state)                                                   \
    {                                                                                          \
        (void)state;                                                                           \
        run_case(f, 0, NULL, NULL);                                                            \
        assert_true(!(lds) || seen.lds_bytes > 0);                                             \
        assert_true(!(scratch) || seen.scratch_reads > 0);                                     \
        assert_true(!(buffers) || seen.buffer_reads > 0);                                      \
    }
SCENARIO(vadd, "vadd-fault", 1, 1, 1)
SCENARIO(mi300, "mi300-xcc", 1, 1, 0)
SCENARIO(rdna2, "rdna2-illegal", 0, 0, 1)
SCENARIO(rdna3, "rdna3-assert", 1, 1, 1)
SCENARIO(hang, "multi-gpu-hang", 0, 0, 0)
SCENARIO(big, "big-memory", 1, 0, 1)

/* --tier state: the GPU state is all there; the buffers were not captured. */
static void test_truth_tier_state(void **state)
{
    (void)state;
    run_case("vadd-fault", 0, "--tier", "state");
    assert_true(seen.buffer_reads > 0);
}

/* ROCr's r_debug versions 8 to 12 (AMD's 0.77 stops at 10): all served, every register right. */
static void test_truth_r_versions(void **state)
{
    (void)state;
    for (uint32_t v = 8; v <= 12; v++) {
        run_case("vadd-fault", v, NULL, NULL);
        run_case("rdna3-assert", v, NULL, NULL);
        run_case("mi300-xcc", v, NULL, NULL);
    }
}

/*
 * Waves saved stopped without a cause (a debugger had stopped them and reported them before
 * the core was written): no WAVE_STOP event, stopped from the start, their TTMPs left as saved
 * but for the handle; running waves before and after them keep the wave-map order.
 */
static void test_truth_stopped_no_cause(void **state)
{
    static const struct edit edits[] = {
        { "{ \"dispatch\": 0, \"workgroup\": [0], \"workgroup_count\": 63, \"state\": \"running\",",
          "{ \"dispatch\": 0, \"workgroup\": [0], \"workgroup_count\": 10, \"state\": \"running\", "
          "\"pc\": { \"kernel_offset\": \"0x40\" }, \"registers\": { \"fill\": 1 } },\n"
          "{ \"dispatch\": 0, \"workgroup\": [10], \"workgroup_count\": 20, \"state\": \"stopped\", "
          "\"pc\": { \"kernel_offset\": \"0x40\" }, \"registers\": { \"fill\": 1 } },\n"
          "{ \"dispatch\": 0, \"workgroup\": [30], \"workgroup_count\": 33, \"state\": \"running\"," },
        { NULL, NULL }
    };

    (void)state;
    run_case_edited("vadd-fault", 0, NULL, NULL, edits);
    /* RUNTIME, then 4 faulting waves and the 43 * 4 running ones; not the 80 stopped ones */
    assert_int_equal(ev.nstops, 4 + 43 * 4);
}

/* Node capabilities without watch points: AMD's count is 1 << TOTALBITS (0: 1), UNSUPPORTED. */
static void test_truth_no_watchpoints(void **state)
{
    static const struct edit edits[] = {
        { "\"debug_prop\": \"0x1d6\",", "\"debug_prop\": \"0x1d6\", \"capability\": \"0x20008000\"," },
        { NULL, NULL }
    };

    (void)state;
    run_case_edited("vadd-fault", 0, NULL, NULL, edits);
}

/* Two agents, the first with exclusive watch points: the kind AMD's library answers is that of
   the agent it visits last in its agent map (the first: UNSHARED). */
static void test_truth_watchpoints_exclusive(void **state)
{
    static const struct edit edits[] = {
        { "\"gpu_id\": \"0xc4f1\", \"simd_count\": 416, \"debug_prop\": \"0x1d6\"",
          "\"gpu_id\": \"0xc4f1\", \"simd_count\": 416, \"debug_prop\": \"0x9d6\"" },
        { NULL, NULL }
    };

    (void)state;
    run_case_edited("multi-gpu-hang", 0, NULL, NULL, edits);
}

/* Every stop cause on one target per family (gfx90a, gfx942, gfx1030, gfx1100, gfx1201), at
   ROCr's debug ABIs 8, 10 and 12: each wave's reasons and triggered watchpoints as AMD's
   library decodes them. */
static void test_truth_stop_causes(void **state)
{
    const uint32_t all = AMD_DBGAPI_WAVE_STOP_REASON_BREAKPOINT |
                         AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT |
                         AMD_DBGAPI_WAVE_STOP_REASON_SINGLE_STEP | 0x3f8u /* the ALU ones */ |
                         AMD_DBGAPI_WAVE_STOP_REASON_DEBUG_TRAP |
                         AMD_DBGAPI_WAVE_STOP_REASON_ASSERT_TRAP | AMD_DBGAPI_WAVE_STOP_REASON_TRAP |
                         AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION |
                         AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR |
                         AMD_DBGAPI_WAVE_STOP_REASON_ILLEGAL_INSTRUCTION;

    (void)state;
    for (uint32_t v = 8; v <= 12; v += 2) {
        run_case("stop-causes", v, NULL, NULL);
        assert_int_equal(seen.stop_reasons, all);
        run_case("stop-causes-gfx12", v, NULL, NULL);
        assert_int_equal(seen.stop_reasons, all);
    }
}

/*
 * gfx12 wave32 with scratch: every wave of stop-causes-gfx12 (memory violation among them) in
 * wave32 with a private segment, so each has a scratch slot. gfx12 names its FLAT_SCRATCH
 * register scratch_base; AMD's library (ROCdbgapi rocm-dbgapi-0.77.0, src/memory.cpp
 * global_address_space_t::convert, src/wave.cpp wave_t::scratch_memory_region) places the
 * slot from the queue's COMPUTE_TMPRING_SIZE and reads the bytes there. The whole-case check
 * reads a random scratch pattern through private_wave and private_lane (check_scratch).
 */
static const struct edit gfx12_wave32_scratch[] = {
    { "{\"agent\": 0, \"queue_id\": 0}",
      "{\"agent\": 0, \"queue_id\": 0, \"scratch_per_wave\": 8192, \"scratch_waves\": 32}" },
    { "\"wave32\": false}", "\"wave32\": true, \"private_segment_size\": 64}" },
    { NULL, NULL }
};

static void test_truth_gfx12_wave32_scratch(void **state)
{
    struct edit edits[sizeof(gfx12_wave32_scratch) / sizeof(gfx12_wave32_scratch[0])];

    (void)state;
    memcpy(edits, gfx12_wave32_scratch, sizeof(edits));
    edits[0].to = "{\"agent\": 0, \"queue_id\": 0, \"scratch_per_wave\": 8192, "
                  "\"scratch_waves\": 32, \"scratch_pattern\": \"random\", \"scratch_seed\": 5}";
    run_case_edited("stop-causes-gfx12", 0, NULL, NULL, edits);
    assert_true(seen.scratch_reads > 0);
}

/*
 * Waves launched without scratch (no private segment: scratch_en clear) on a queue that has
 * scratch: AMD's library never consults scratch_en (ROCdbgapi rocm-dbgapi-0.77.0 defines
 * cwsr_record_t::is_scratch_enabled in src/architecture.cpp and calls it nowhere) and reads the
 * slot the queue's fields place for the wave. rdna2-illegal's 32 waves (gfx1030: no
 * architected flat scratch) get a queue with scratch (48 slots: a multiple of its 3 shader
 * engines, else AMD's library disables private memory) and a second dispatch whose 8 waves
 * have a private segment; a wave without scratch has slot id 0, which one of those also has,
 * so the capture holds its bytes and check_scratch reads the random pattern there for all 40.
 * On gfx12 (architected) such a wave's FLAT_SCRATCH does not point at the slot, so private
 * memory is disabled (check_no_scratch).
 */
static void test_truth_scratch_not_enabled(void **state)
{
    static const struct edit rdna2[] = {
        { "\"queues\": [ { \"agent\": 0, \"queue_id\": 1 } ]",
          "\"queues\": [ { \"agent\": 0, \"queue_id\": 1, \"scratch_per_wave\": 4096, "
          "\"scratch_waves\": 48, \"scratch_pattern\": \"random\", \"scratch_seed\": 3 } ]" },
        { "\"value\": \"out\" } ] }\n  ]",
          "\"value\": \"out\" } ] },\n"
          "    { \"queue\": 0, \"code_object\": \"trap\", \"kernel\": \"divide\", \"grid\": [256], "
          "\"workgroup\": [256], \"packet_id\": 6, \"wave32\": true, \"private_segment_size\": 16, "
          "\"kernargs\": [ { \"type\": \"buffer\", \"value\": \"num\" }, "
          "{ \"type\": \"buffer\", \"value\": \"den\" }, { \"type\": \"buffer\", \"value\": \"out\" } ] }\n  ]" },
        { "\"waves\": [",
          "\"waves\": [\n    { \"dispatch\": 1, \"workgroup\": [0], \"registers\": { \"fill\": 23 } }," },
        { NULL, NULL }
    };
    static const struct edit gfx12[] = {
        { "{\"agent\": 0, \"queue_id\": 0}",
          "{\"agent\": 0, \"queue_id\": 0, \"scratch_per_wave\": 8192, "
          "\"scratch_pattern\": \"random\", \"scratch_seed\": 4}" },
        { NULL, NULL }
    };

    (void)state;
    run_case_edited("rdna2-illegal", 0, NULL, NULL, rdna2);
    assert_int_equal(seen.waves, 40);
    assert_int_equal(seen.scratch_reads, seen.waves);
    run_case_edited("stop-causes-gfx12", 0, NULL, NULL, gfx12);
    assert_int_equal(seen.no_scratch_reads, seen.waves);
}

/* Capture scenario @p name with @p edits and attach to it; *ret_tc and *ret_c are the case
   and the client, for close_edited(). */
static amd_dbgapi_process_id_t open_edited(const char *name, const struct edit *edits,
                                           struct tsc_case **ret_tc, struct tdc *ret_c)
{
    struct tsc_case *tc = calloc(1, sizeof(*tc));
    amd_dbgapi_process_id_t p;

    assert_non_null(tc);
    capture_edited(tc, name, 0, NULL, NULL, edits);
    tdc_open(ret_c, tc->core);
    tdc_reset_books();
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING);
    assert_int_equal(amd_dbgapi_initialize(&tdc_callbacks), AMD_DBGAPI_STATUS_SUCCESS);
    p = tdc_attach(ret_c);
    drain_events(p);
    *ret_tc = tc;
    return p;
}

static void close_edited(amd_dbgapi_process_id_t p, struct tsc_case *tc, struct tdc *c)
{
    assert_int_equal(amd_dbgapi_process_detach(p), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(amd_dbgapi_finalize(), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(tdc_fatal_logs, 0);
    assert_int_equal(tdc_live_allocations, 0);
    tdc_close(c);
    tsc_case_done(tc);
    free(tc);
}

/*
 * The reads AMD's library (amd-dbgapi 0.77) was measured answering on a gfx12 wave32
 * memory-violation core: private_wave and private_lane at 0x0, 0x4 and 0x40 are the bytes of
 * the wave's scratch slot -- zeros here, the scratch pattern being zero -- not MEMORY_ACCESS.
 */
static void test_truth_gfx12_wave32_private_zeros(void **state)
{
    static const amd_dbgapi_segment_address_t at[] = { 0x0, 0x4, 0x40 };
    struct tsc_case *tc = NULL;
    struct tdc c;
    amd_dbgapi_process_id_t p;
    struct tdc_list l;
    size_t violations = 0;

    (void)state;
    p = open_edited("stop-causes-gfx12", gfx12_wave32_scratch, &tc, &c);
    l = tdc_waves(p);
    assert_int_equal(l.n, tc->s->total_waves);
    for (size_t i = 0; i < l.n; i++) {
        amd_dbgapi_wave_id_t w = { l.ids[i] };
        const struct arch_regs *ar =
                arch_regs(tdc_wave_u64(l.ids[i], AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, 8));
        amd_dbgapi_address_space_id_t spaces[2] = { { ar->private_wave }, { ar->private_lane } };

        assert_int_equal(tdc_wave_u64(l.ids[i], AMD_DBGAPI_WAVE_INFO_LANE_COUNT, 8), 32);
        if (tdc_wave_u64(l.ids[i], AMD_DBGAPI_WAVE_INFO_STOP_REASON, 4) &
            AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION)
            violations++;
        for (size_t s = 0; s < 2; s++) {
            for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
                for (amd_dbgapi_lane_id_t lane = 0; lane < 32; lane += 31) {
                    uint32_t v = 0xdeadbeef;
                    amd_dbgapi_size_t size = sizeof(v);
                    amd_dbgapi_status_t st =
                            amd_dbgapi_read_memory(p, w, lane, spaces[s], at[k], &size, &v);

                    if (st != AMD_DBGAPI_STATUS_SUCCESS || size != 4 || v != 0)
                        fail_msg("wave %" PRIu64 " %s 0x%" PRIx64 " lane %u: status %d, %" PRIu64
                                 " bytes, 0x%x; AMD's library: SUCCESS, 4 bytes, 0",
                                 l.ids[i], s ? "private_lane" : "private_wave", at[k], lane,
                                 (int)st, (uint64_t)size, v);
                }
            }
        }
    }
    assert_true(violations > 0);
    tdc_free(l.ids);
    archs_free();
    close_edited(p, tc, &c);
}

/*
 * A gfx10 core without SPI TTMP setup (rdna2-illegal, gfx1030 wave32): no wave carries its
 * dispatch packet id, so AMD's library puts every workgroup in the queue's dummy dispatch
 * (ROCdbgapi rocm-dbgapi-0.77.0 src/queue.cpp compute_queue_t::update_waves) and
 * WORKGROUP_INFO_DISPATCH is SUCCESS with AMD_DBGAPI_DISPATCH_NONE (src/workgroup.cpp
 * workgroup_t::get_info), while the wave's WAVE_INFO_DISPATCH is NOT_AVAILABLE (src/wave.cpp
 * wave_t::get_info). A wrong size is still INVALID_ARGUMENT_COMPATIBILITY (utils::get_info).
 */
static void test_truth_gfx10_no_ttmp_workgroup_dispatch(void **state)
{
    static const struct edit edits[] = {
        { "\"name\": \"rdna2-illegal\",", "\"name\": \"rdna2-illegal\", \"ttmp_setup\": false," },
        { NULL, NULL }
    };
    struct tsc_case *tc = NULL;
    struct tdc c;
    amd_dbgapi_process_id_t p;
    struct tdc_list groups, waves;

    (void)state;
    p = open_edited("rdna2-illegal", edits, &tc, &c);
    groups = tdc_workgroups(p);
    waves = tdc_waves(p);
    assert_true(groups.n > 0);
    assert_int_equal(waves.n, tc->s->total_waves);
    for (size_t i = 0; i < groups.n; i++) {
        amd_dbgapi_workgroup_id_t g = { groups.ids[i] };
        amd_dbgapi_dispatch_id_t d = { 0xdeadbeef };
        uint32_t small = 0;

        assert_int_equal(amd_dbgapi_workgroup_get_info(g, AMD_DBGAPI_WORKGROUP_INFO_DISPATCH,
                                                       sizeof(d), &d),
                         AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(d.handle, AMD_DBGAPI_DISPATCH_NONE.handle);
        assert_int_equal(amd_dbgapi_workgroup_get_info(g, AMD_DBGAPI_WORKGROUP_INFO_DISPATCH,
                                                       sizeof(small), &small),
                         AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
    }
    for (size_t i = 0; i < waves.n; i++) {
        amd_dbgapi_wave_id_t w = { waves.ids[i] };
        amd_dbgapi_dispatch_id_t d;

        assert_int_equal(amd_dbgapi_wave_get_info(w, AMD_DBGAPI_WAVE_INFO_DISPATCH, sizeof(d), &d),
                         AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE);
    }
    tdc_free(groups.ids);
    tdc_free(waves.ids);
    close_edited(p, tc, &c);
}

/* After a failed case: no inferior left, and the library ready for the next one. */
static int teardown(void **state)
{
    amd_dbgapi_finalize();
    return tsc_kill_child(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_truth_vadd, teardown),
        cmocka_unit_test_teardown(test_truth_rdna2, teardown),
        cmocka_unit_test_teardown(test_truth_rdna3, teardown),
        cmocka_unit_test_teardown(test_truth_mi300, teardown),
        cmocka_unit_test_teardown(test_truth_hang, teardown),
        cmocka_unit_test_teardown(test_truth_big, teardown),
        cmocka_unit_test_teardown(test_truth_tier_state, teardown),
        cmocka_unit_test_teardown(test_truth_r_versions, teardown),
        cmocka_unit_test_teardown(test_truth_stopped_no_cause, teardown),
        cmocka_unit_test_teardown(test_truth_no_watchpoints, teardown),
        cmocka_unit_test_teardown(test_truth_watchpoints_exclusive, teardown),
        cmocka_unit_test_teardown(test_truth_stop_causes, teardown),
        cmocka_unit_test_teardown(test_truth_gfx12_wave32_scratch, teardown),
        cmocka_unit_test_teardown(test_truth_gfx12_wave32_private_zeros, teardown),
        cmocka_unit_test_teardown(test_truth_scratch_not_enabled, teardown),
        cmocka_unit_test_teardown(test_truth_gfx10_no_ttmp_workgroup_dispatch, teardown),
    };

    if (!tsc_ptrace_permitted()) {
        printf("SKIP: ptrace is not permitted (not root, kernel.yama.ptrace_scope != 0)\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
