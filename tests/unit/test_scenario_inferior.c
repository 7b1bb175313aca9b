/* SPDX-License-Identifier: MIT */
/*
 * The scenario's process image, read the way a debugger reads it: first laid out in this
 * process (gc_sim_layout_build, memory read directly), then in a running gpucore-inferior that this
 * test attaches to with ptrace and reads with process_vm_readv. Either way the walk is the
 * same: r_debug -> link_map -> URI -> code object bytes; ring -> packet -> kernel descriptor;
 * amd_queue_t dispatch ids; each XCC's CWSR area decoded by gc_cwsr_decode into exactly the
 * scenario's waves (count, registers per the fill function, LDS bytes, stop reasons, PC,
 * EXEC, dispatch index, workgroup id, wave number).
 */
#include <errno.h>
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
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/schema.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_util.h"
#include "kfd.h"
#include "kfd_internal.h" /* test hooks: no_vm_readv, enabled */
#include "layout.h"
#include "scenario.h"
#include "wave.h"

/* Where to read: this process (pid 0) or another one. */
struct reader {
    pid_t pid;
};

static void rd(const struct reader *r, uint64_t addr, void *buf, size_t n)
{
    if (!r->pid) {
        memcpy(buf, (const void *)(uintptr_t)addr, n);
        return;
    }
    while (n) {
        struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
        ssize_t got = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);

        if (got <= 0)
            fail_msg("process_vm_readv(0x%" PRIx64 ", %zu): %s", addr, n, strerror(errno));
        buf = (uint8_t *)buf + got;
        addr += (uint64_t)got;
        n -= (size_t)got;
    }
}

static uint64_t rd64(const struct reader *r, uint64_t addr)
{
    uint8_t b[8];
    uint64_t v = 0;

    rd(r, addr, b, 8);
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static uint32_t rd32(const struct reader *r, uint64_t addr)
{
    return (uint32_t)rd64(r, addr); /* reads 8 bytes: every field checked has 4 more after it */
}

static uint16_t rd16(const struct reader *r, uint64_t addr)
{
    return (uint16_t)rd64(r, addr);
}

/* The addresses a debugger would get from the driver (runtime info, queue snapshot). */
struct addrs {
    uint64_t r_debug;
    uint64_t ring[GC_SCEN_MAX_QUEUES], amd_queue[GC_SCEN_MAX_QUEUES], cwsr[GC_SCEN_MAX_QUEUES];
    uint32_t cwsr_size[GC_SCEN_MAX_QUEUES];
    uint64_t entry[GC_SCEN_MAX_DISPATCHES]; /* only to cross-check the descriptor walk */
    uint64_t buffer[GC_SCEN_MAX_BUFFERS];
    /* The layout's device allocations (--describe "alloc" lines), in its order. */
    struct gc_kfd_mapping alloc[1024];
    uint32_t nalloc;
};

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p;
    long n;

    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void check_code_objects(const struct gc_scenario *s, const struct reader *r,
                               const struct addrs *a, pid_t pid)
{
    const char *dir = getenv("GPUCORE_SCENARIO_OBJECTS");
    uint64_t node;
    uint32_t n = 0;

    assert_int_equal(rd32(r, a->r_debug + 0), s->r_version);
    assert_int_equal(rd32(r, a->r_debug + 24), 0); /* RT_CONSISTENT */
    for (node = rd64(r, a->r_debug + 8); node; node = rd64(r, node + 24), n++) {
        const struct gc_scen_code_object *co = &s->code_objects[n];
        char uri[600], path[600], want[700];
        size_t flen;
        uint8_t *file;

        assert_true(n < s->ncode_objects);
        rd(r, rd64(r, node + 8), uri, sizeof(uri) - 1); /* the string page is big enough */
        uri[sizeof(uri) - 1] = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, co->object);
        file = read_file(path, &flen);
        if (co->uri_file) {
            snprintf(want, sizeof(want), "file://%s", path);
            assert_string_equal(uri, want);
        } else {
            uint64_t off = 0, size = 0;
            long upid = 0;
            uint8_t *mem;

            if (sscanf(uri, "memory://%ld#offset=0x%" SCNx64 "&size=%" SCNu64, &upid, &off,
                       &size) != 3)
                fail_msg("bad URI %s", uri);
            assert_int_equal(upid, pid);
            assert_int_equal(size, flen);
            mem = malloc(flen);
            rd(r, off, mem, flen);
            assert_memory_equal(mem, file, flen);
            free(mem);
        }
        {
            /* The loaded image starts with the file's first PT_LOAD (offset 0, the ELF header). */
            uint8_t magic[4];

            rd(r, rd64(r, node + 0), magic, 4);
            assert_memory_equal(magic, "\x7f" "ELF", 4);
        }
        free(file);
    }
    assert_int_equal(n, s->ncode_objects);
}

/* amd_queue_t's scratch fields (docs/core-format.md §8.5) and every word of the scratch memory. */
static void check_scratch(const struct gc_scenario *s, const struct reader *r,
                          const struct addrs *a, uint32_t q)
{
    const struct gc_scen_queue *sq = &s->queues[q];
    const struct gc_scen_agent *ag = &s->agents[sq->agent];
    const struct gc_arch *arch = gc_arch_by_name(ag->target);
    const struct gc_hwreg_layout *hw = arch->hwreg;
    uint32_t tmpring = rd32(r, a->amd_queue[q] + GC_ROCR_AMDQ_COMPUTE_TMPRING_SIZE);
    uint64_t loc = rd64(r, a->amd_queue[q] + GC_ROCR_AMDQ_SCRATCH_LOCATION);
    uint64_t per_xcc = (uint64_t)sq->scratch_per_wave * sq->scratch_waves;
    uint32_t *words;

    /* r_version 11 removed scratch_backing_memory_byte_size: nothing is written there. */
    assert_int_equal(rd64(r, a->amd_queue[q] + GC_ROCR_AMDQ_SCRATCH_BYTE_SIZE),
                     s->r_version < 11 ? per_xcc : 0);
    if (!per_xcc) {
        assert_int_equal(loc, 0);
        assert_int_equal(tmpring, 0);
        return;
    }
    assert_int_equal(gc_bf_get(tmpring, hw->scratch.waves), sq->scratch_waves);
    assert_int_equal((uint64_t)gc_bf_get(tmpring, hw->scratch.wavesize) * hw->scratch.wavesize_unit,
                     sq->scratch_per_wave);
    words = malloc(per_xcc * ag->num_xcc);
    assert_non_null(words);
    rd(r, loc, words, per_xcc * ag->num_xcc);
    for (uint64_t k = 0; k < per_xcc * ag->num_xcc / 4; k++)
        if (words[k] !=
            gc_sim_layout_mem(sq->scratch_pattern, sq->scratch_seed, GC_SCEN_KIND_SCRATCH, k))
            fail_msg("queue %u scratch word %" PRIu64 ": 0x%x", q, k, words[k]);
    free(words);
}

static void check_dispatches(const struct gc_scenario *s, const struct reader *r,
                             const struct addrs *a)
{
    for (uint32_t q = 0; q < s->nqueues; q++) {
        uint64_t lo = UINT64_MAX, hi = 0;

        assert_int_equal(rd64(r, a->amd_queue[q] + 8), a->ring[q]);
        assert_int_equal(rd32(r, a->amd_queue[q] + 24), s->queues[q].ring_packets);
        for (uint32_t i = 0; i < s->ndispatches; i++) {
            const struct gc_scen_dispatch *d = &s->dispatches[i];
            uint64_t pkt = a->ring[q] + (d->packet_id % s->queues[q].ring_packets) * 64, kd;

            if (d->queue != q)
                continue;
            lo = d->packet_id < lo ? d->packet_id : lo;
            hi = d->packet_id + 1 > hi ? d->packet_id + 1 : hi;
            assert_int_equal(rd16(r, pkt) & 0xff, 2); /* KERNEL_DISPATCH */
            assert_int_equal(rd16(r, pkt + 4), d->workgroup[0]);
            assert_int_equal(rd32(r, pkt + 12), d->grid[0]);
            assert_int_equal(rd32(r, pkt + 28), d->group_segment_size);
            kd = rd64(r, pkt + 32);
            assert_int_equal(kd + rd64(r, kd + 16), a->entry[i]);
            for (uint32_t k = 0; k < d->nkernargs && k < 2; k++)
                if (d->kernargs[k].type == GC_SCEN_KA_BUFFER && k == 0)
                    assert_int_equal(rd64(r, rd64(r, pkt + 40)),
                                     a->buffer[d->kernargs[k].value] + d->kernargs[k].value2);
        }
        if (lo == UINT64_MAX)
            lo = hi = 0;
        assert_int_equal(rd64(r, a->amd_queue[q] + GC_ROCR_AMDQ_READ_DISPATCH_ID), lo);
        assert_int_equal(rd64(r, a->amd_queue[q] + GC_ROCR_AMDQ_WRITE_DISPATCH_ID), hi);
        check_scratch(s, r, a, q);
    }
}

static uint32_t expected_reason(enum gc_scen_stop stop)
{
    switch (stop) {
    case GC_SCEN_STOP_MEMORY_VIOLATION:
        return GC_STOP_MEMORY_VIOLATION;
    case GC_SCEN_STOP_ILLEGAL_INSTRUCTION:
        return GC_STOP_ILLEGAL_INSTRUCTION;
    case GC_SCEN_STOP_ASSERT_TRAP:
        return GC_STOP_ASSERT_TRAP;
    default:
        return GC_STOP_NONE;
    }
}

/* Decode one XCC area and compare every wave with the scenario. Returns the waves seen. */
static uint32_t check_area(const struct gc_scenario *s, const struct reader *r,
                           const struct addrs *a, uint32_t q, uint32_t x, int full)
{
    const struct gc_scen_agent *ag = &s->agents[s->queues[q].agent];
    const struct gc_arch *arch = gc_arch_by_name(ag->target);
    const struct gc_wave_env env = { s->r_version, ag->ttmp_setup };
    uint64_t base = a->cwsr[q] + (uint64_t)x * a->cwsr_size[q];
    uint8_t hb[GC_CWSR_HEADER_SIZE], *ctl, *wav;
    uint64_t scratch;
    struct gc_cwsr_header h;
    struct gc_cwsr_decoded dec;
    gpucore_diag_t d = { 0 };
    uint32_t k = 0;

    rd(r, base, hb, sizeof(hb));
    assert_int_equal(gc_cwsr_header_decode(hb, sizeof(hb), &h), GPUCORE_OK);
    ctl = malloc(h.control_stack_size + 1u);
    wav = malloc(h.wave_state_size + 1u);
    if (h.control_stack_size)
        rd(r, base + h.control_stack_offset, ctl, h.control_stack_size);
    if (h.wave_state_size)
        rd(r, base + h.wave_state_offset - h.wave_state_size, wav, h.wave_state_size);
    if (gc_cwsr_decode(arch, &h, ctl, h.control_stack_size, wav, h.wave_state_size, &dec, &d))
        fail_msg("queue %u xcc %u: %s", q, x, d.message);
    scratch = rd64(r, a->amd_queue[q] + GC_ROCR_AMDQ_SCRATCH_LOCATION);
    for (uint32_t wi = 0; wi < s->nwaves; wi++) {
        const struct gc_scen_waves *w = &s->waves[wi];
        const struct gc_scen_dispatch *dp = &s->dispatches[w->dispatch];
        uint32_t wpg = gc_scen_waves_per_group(s, w), lanes = dp->wave32 ? 32 : 64;
        uint32_t v, acc, sg;
        uint64_t pc = w->pc_is_kernel ? a->entry[w->dispatch] + w->pc_offset : w->pc_address;

        if (dp->queue != q || w->xcc != x)
            continue;
        gc_sim_layout_reg_counts(arch, dp, &v, &acc, &sg);
        for (uint32_t g = 0; g < w->workgroup_count; g++) {
            for (uint32_t n = 0; n < wpg; n++, k++) {
                const struct gc_wave *gw;
                uint32_t uid = w->first_wave + g * wpg + n, idx, id[3], num;
                /* Checking every register of 10,000 waves is slow under ASan: big areas check
                   every 97th wave fully, and the stop state, PC and ids of all. */
                int regs = full || k % 97 == 0 || w->stopped;

                assert_true(k < dec.wave_count);
                gw = &dec.waves[k];
                assert_int_equal(gw->lanes, lanes);
                assert_int_equal(gw->vgprs, v);
                assert_int_equal(gw->sgprs, sg);
                assert_int_equal(gw->first_wave, n == 0);
                for (uint32_t i = 0; regs && i < sg; i++)
                    assert_int_equal(gc_wave_sgpr(gw, i),
                                     gc_sim_layout_saved_sgpr(arch, ag, &s->queues[q], scratch, x,
                                                              gw, w, uid, i));
                for (uint32_t i = 0; regs && i < v; i++)
                    for (uint32_t l = 0; l < lanes; l++)
                        if (gc_wave_vgpr(gw, i, l) != gc_sim_layout_vgpr(w, uid, i, l))
                            fail_msg("wave %u v%u lane %u: 0x%x, expected 0x%x", uid, i, l,
                                     gc_wave_vgpr(gw, i, l), gc_sim_layout_vgpr(w, uid, i, l));
                for (uint32_t i = 0; regs && i < gw->accvgprs; i++)
                    for (uint32_t l = 0; l < 64; l++)
                        assert_int_equal(gc_wave_accvgpr(gw, i, l),
                                         gc_sim_layout_accvgpr(w, uid, i, l));
                if (n == 0 && dp->group_segment_size) {
                    assert_non_null(gw->lds);
                    assert_true(gw->lds_size >= dp->group_segment_size);
                    for (uint32_t b = 0; regs && b < gw->lds_size; b += 4) {
                        uint32_t got = (uint32_t)gw->lds[b] | (uint32_t)gw->lds[b + 1] << 8 |
                                       (uint32_t)gw->lds[b + 2] << 16 |
                                       (uint32_t)gw->lds[b + 3] << 24;

                        assert_int_equal(got, gc_sim_layout_lds(w, uid, b / 4));
                    }
                }
                assert_int_equal(gc_wave_trap_stopped(arch, gw), w->stopped);
                assert_int_equal(gc_wave_stop_reasons(arch, gw), expected_reason(w->stop));
                assert_int_equal(gc_wave_pc(arch, gw, s->r_version), pc);
                assert_int_equal(gc_wave_exec_mask(arch, gw), w->exec);
                assert_int_equal(gc_wave_dispatch_index(arch, gw, &env, &idx), GPUCORE_OK);
                assert_int_equal(idx, dp->packet_id % s->queues[q].ring_packets);
                assert_int_equal(gc_wave_workgroup_id(arch, gw, &env, id), GPUCORE_OK);
                assert_int_equal(id[0], w->workgroup[0] + g);
                assert_int_equal(gc_wave_number_in_group(arch, gw, &env, &num), GPUCORE_OK);
                assert_int_equal(num, n);
            }
        }
    }
    assert_int_equal(dec.wave_count, k);
    gc_cwsr_decoded_done(&dec);
    free(ctl);
    free(wav);
    return k;
}

static void check_all(const struct gc_scenario *s, const struct reader *r, const struct addrs *a,
                      pid_t pid)
{
    uint32_t total = 0;

    check_code_objects(s, r, a, pid);
    check_dispatches(s, r, a);
    for (uint32_t q = 0; q < s->nqueues; q++)
        for (uint32_t x = 0; x < s->agents[s->queues[q].agent].num_xcc; x++)
            total += check_area(s, r, a, q, x, s->total_waves <= 1024);
    assert_int_equal(total, s->total_waves);
    /* Buffer patterns: every word of every patterned range (sparse buffers are never read
       outside them: that would make them resident). */
    for (uint32_t i = 0; i < s->nbuffers; i++) {
        const struct gc_scen_buffer *b = &s->buffers[i];

        for (uint32_t g = 0; g < (b->nranges ? b->nranges : 1); g++) {
            uint64_t off = b->nranges ? b->ranges[g].offset : 0;
            uint64_t size = b->nranges ? b->ranges[g].size : b->size;
            uint32_t *words;

            if (b->pattern == GC_SCEN_PAT_ZERO && b->sparse)
                continue;
            words = malloc(size + 4);
            assert_non_null(words);
            rd(r, a->buffer[i] + off, words, size);
            for (uint64_t k = 0; k < size / 4; k++)
                if (words[k] !=
                    gc_sim_layout_mem(b->pattern, b->seed, GC_SCEN_KIND_MEM, off / 4 + k))
                    fail_msg("buffer %s word %" PRIu64 ": 0x%x", b->name, off / 4 + k, words[k]);
            free(words);
        }
    }
}

static struct gc_scenario *load(const char *name)
{
    char p[4096];
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    snprintf(p, sizeof(p), "%s/%s", getenv("GPUCORE_SCENARIO_DIR"), name);
    if (gc_scenario_load(p, &s, &d) < 0)
        fail_msg("%s", d.message);
    return s;
}

/* ---- in this process ---- */

/* Lay out @p name (with r_version @p r_version, 0 = the file's) and check it in this process. */
/*
 * Before its first save, XCC @p x's area of @p lq already holds the control stack and the wave
 * records the complete header (lq->header[x]) describes -- the device model's storage is the
 * save area, no copy elsewhere -- while the header in the area still says it is empty; the save
 * (gc_sim_layout_context_save, what SUSPEND does) then writes the 40-byte header and not one byte
 * of the used parts below it.
 */
static void save_in_place(const struct gc_scenario *s, const struct gc_sim_layout *l, uint32_t q,
                          uint32_t x)
{
    const struct gc_sim_layout_queue *lq = &l->queues[q];
    const struct gc_arch *arch = gc_arch_by_name(s->agents[s->queues[q].agent].target);
    const uint8_t *base =
            (const uint8_t *)(uintptr_t)(lq->cwsr + (uint64_t)x * lq->sizes.cwsr_size);
    const struct gc_cwsr_header *full = &lq->header[x];
    uint8_t want[GC_CWSR_HEADER_SIZE], *before;
    struct gc_cwsr_header h;
    struct gc_cwsr_decoded dec;
    gpucore_diag_t d = { 0 };

    assert_non_null(arch);
    assert_int_equal(gc_cwsr_header_decode(base, GC_CWSR_HEADER_SIZE, &h), GPUCORE_OK);
    assert_int_equal(h.control_stack_size, 0);
    assert_int_equal(h.wave_state_size, 0);
    assert_int_equal(h.debug_size, full->debug_size);
    assert_true(full->wave_state_offset <= lq->sizes.cwsr_size);
    assert_true(full->wave_state_size <= full->wave_state_offset);
    if (gc_cwsr_decode(arch, full, base + full->control_stack_offset, full->control_stack_size,
                       base + full->wave_state_offset - full->wave_state_size,
                       full->wave_state_size, &dec, &d) != GPUCORE_OK)
        fail_msg("queue %u XCC %u before the save: %s", lq->queue_id, x, d.message);
    assert_int_equal(dec.wave_count, lq->waves[x]);
    gc_cwsr_decoded_done(&dec);

    before = malloc(full->wave_state_offset);
    assert_non_null(before);
    memcpy(before, base, full->wave_state_offset);
    gc_sim_layout_context_save(lq, x);
    gc_cwsr_header_encode(full, want);
    assert_memory_equal(base, want, GC_CWSR_HEADER_SIZE);
    assert_memory_equal(base + GC_CWSR_HEADER_SIZE, before + GC_CWSR_HEADER_SIZE,
                        full->wave_state_offset - GC_CWSR_HEADER_SIZE);
    free(before);
}

static void in_process_version(const char *name, uint32_t r_version)
{
    struct gc_scenario *s = load(name);
    struct gc_sim_layout *l = NULL;
    struct addrs *a = calloc(1, sizeof(*a));
    struct reader r = { 0 };
    gpucore_diag_t d = { 0 };

    if (r_version)
        s->r_version = r_version;
    if (gc_sim_layout_build(s, getenv("GPUCORE_SCENARIO_OBJECTS"), &l, &d) < 0)
        fail_msg("%s", d.message);
    /* Nothing is saved before the queues are preempted: the header says no control stack, no
       waves. The device keeps them in the area itself, so the save writes the header alone. */
    for (uint32_t q = 0; q < s->nqueues; q++)
        for (uint32_t x = 0; x < l->queues[q].num_xcc; x++)
            save_in_place(s, l, q, x);
    a->r_debug = l->r_debug;
    for (uint32_t q = 0; q < s->nqueues; q++) {
        a->ring[q] = l->queues[q].ring;
        a->amd_queue[q] = l->queues[q].amd_queue;
        a->cwsr[q] = l->queues[q].cwsr;
        a->cwsr_size[q] = l->queues[q].sizes.cwsr_size;
    }
    for (uint32_t i = 0; i < s->ndispatches; i++)
        a->entry[i] = l->dispatches[i].entry;
    for (uint32_t i = 0; i < s->nbuffers; i++)
        a->buffer[i] = l->buffers[i].address;
    check_all(s, &r, a, getpid());
    gc_sim_layout_free(l);
    gc_scenario_free(s);
    free(a);
}

static void in_process(const char *name)
{
    in_process_version(name, 0);
}

#define IN_PROCESS(n, f)                                                                           \
    static void test_layout_##n(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        in_process(f);                                                                             \
    }
IN_PROCESS(vadd, "vadd-fault.json")
IN_PROCESS(mi300, "mi300-xcc.json")
IN_PROCESS(rdna2, "rdna2-illegal.json")
IN_PROCESS(rdna3, "rdna3-assert.json")
IN_PROCESS(hang, "multi-gpu-hang.json")
IN_PROCESS(big, "big-memory.json")

/*
 * Every r_version the runtime may advertise: 8 (gfx11 does not park stopped waves), 9, 11
 * (amd_queue_t without scratch_backing_memory_byte_size) and 12 (gfx11 and gfx12 park). The
 * rdna3-assert wave is trap-stopped on gfx1100, so its PC comes from the TTMPs or the PC slot
 * depending on the version; vadd-fault has scratch, whose stride field comes and goes.
 */
static void test_layout_r_versions(void **state)
{
    static const uint32_t versions[] = { 8, 9, 11, 12 };

    (void)state;
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
        in_process_version("rdna3-assert.json", versions[i]);
        in_process_version("vadd-fault.json", versions[i]);
    }
}

/* A wave PC beyond its kernel is the scenario's error, named by its path. */
static void test_layout_bad_pc(void **state)
{
    static const char json[] =
            "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,\"simd_count\":416}],"
            "\"queues\":[{\"agent\":0,\"queue_id\":0}],\"code_objects\":[{\"name\":\"v\","
            "\"source\":\"vadd.cl\",\"target\":\"gfx90a\"}],\"dispatches\":[{\"queue\":0,"
            "\"code_object\":\"v\",\"kernel\":\"vadd\",\"grid\":[256],\"workgroup\":[256],"
            "\"packet_id\":0}],\"waves\":[{\"dispatch\":0,\"workgroup\":[0]},{\"dispatch\":0,"
            "\"workgroup\":[0],\"pc\":{\"kernel_offset\":\"0x1000\"}}]}";
    struct gc_scenario *s = NULL;
    struct gc_sim_layout *l = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_scenario_parse(json, sizeof(json) - 1, "x.json", &s, &d), GPUCORE_OK);
    assert_int_equal(gc_sim_layout_build(s, getenv("GPUCORE_SCENARIO_OBJECTS"), &l, &d),
                     GPUCORE_E_INVAL);
    if (!strstr(d.message, "x.json: waves[1].pc: kernel 'vadd' has no offset 0x1000 (size 0x"))
        fail_msg("%s", d.message);
    gc_scenario_free(s);
}

/* A queue's backlog: copies of its last dispatch packet in the slots after it, the write id
   past them; a backlog the ring cannot hold besides the dispatches is the scenario's error. */
static void backlog_layout(uint32_t backlog, gpucore_status_t want)
{
    char json[1024];
    struct gc_scenario *s = NULL;
    struct gc_sim_layout *l = NULL;
    gpucore_diag_t d = { 0 };

    snprintf(json, sizeof(json),
             "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,\"simd_count\":416}],"
             "\"queues\":[{\"agent\":0,\"queue_id\":0,\"ring_packets\":64,\"backlog\":%u}],"
             "\"code_objects\":[{\"name\":\"v\",\"source\":\"vadd.cl\",\"target\":\"gfx90a\"}],"
             "\"dispatches\":[{\"queue\":0,\"code_object\":\"v\",\"kernel\":\"vadd\","
             "\"grid\":[256],\"workgroup\":[256],\"packet_id\":70},{\"queue\":0,"
             "\"code_object\":\"v\",\"kernel\":\"vadd\",\"grid\":[512],\"workgroup\":[256],"
             "\"packet_id\":74}]}",
             backlog);
    assert_int_equal(gc_scenario_parse(json, strlen(json), "x.json", &s, &d), GPUCORE_OK);
    assert_int_equal(gc_sim_layout_build(s, getenv("GPUCORE_SCENARIO_OBJECTS"), &l, &d), want);
    if (want != GPUCORE_OK) {
        if (!strstr(d.message, "queues[0].backlog: 60 packets after the dispatches do not fit"))
            fail_msg("%s", d.message);
    } else {
        const uint8_t *ring = (const uint8_t *)(uintptr_t)l->queues[0].ring;

        assert_int_equal(l->queues[0].read_id, 70);
        assert_int_equal(l->queues[0].write_id, 75 + backlog);
        /* packets 75 .. 74 + backlog are packet 74's (slots 11 ..), the slot after is INVALID */
        for (uint32_t k = 0; k < backlog; k++)
            assert_memory_equal(ring + ((75 + k) % 64) * 64, ring + (74 % 64) * 64, 64);
        assert_int_equal(ring[((75 + backlog) % 64) * 64], 1); /* HSA_PACKET_TYPE_INVALID */
        gc_sim_layout_free(l);
    }
    gc_scenario_free(s);
}

static void test_layout_backlog(void **state)
{
    (void)state;
    backlog_layout(58, GPUCORE_OK);
    backlog_layout(60, GPUCORE_E_INVAL);
}

/* Exception addresses relative to a buffer resolve against where the layout put it; one that
   would fall below address 1 is the scenario's error, named by its path. */
static void test_layout_exception_address(void **state)
{
    static const char json[] =
            "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,\"simd_count\":416}],"
            "\"queues\":[{\"agent\":0,\"queue_id\":0}],\"buffers\":[{\"name\":\"a\","
            "\"size\":4096},{\"name\":\"low\",\"size\":4096,\"address\":\"0x40000000\"}],"
            "\"exceptions\":[{\"what\":\"queue_error\",\"queue\":0},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":\"0x1234\"},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"buffer\":\"a\","
            "\"offset\":\"0x1010\"}},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"buffer\":\"a\","
            "\"before\":\"0x10\"}},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"host\":\"stack\"}},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"buffer\":\"low\","
            "\"before\":\"0x40000000\"}}]}";
    struct gc_scenario *s = NULL;
    struct gc_sim_layout *l = NULL;
    gpucore_diag_t d = { 0 };
    uint64_t va = 1, a;

    (void)state;
    assert_int_equal(gc_scenario_parse(json, sizeof(json) - 1, "x.json", &s, &d), GPUCORE_OK);
    if (gc_sim_layout_build(s, getenv("GPUCORE_SCENARIO_OBJECTS"), &l, &d) < 0) {
        if (d.status == GPUCORE_E_EXIST)
            skip(); /* 0x40000000 is taken in this process */
        fail_msg("%s", d.message);
    }
    a = l->buffers[0].address;
    assert_int_equal(gc_sim_layout_exception_address(l, 0, 0x7ffd0000, &va, &d), GPUCORE_OK);
    assert_int_equal(va, 0);
    assert_int_equal(gc_sim_layout_exception_address(l, 1, 0x7ffd0000, &va, &d), GPUCORE_OK);
    assert_int_equal(va, 0x1234);
    assert_int_equal(gc_sim_layout_exception_address(l, 2, 0x7ffd0000, &va, &d), GPUCORE_OK);
    assert_int_equal(va, a + 0x1010);
    assert_int_equal(gc_sim_layout_exception_address(l, 3, 0x7ffd0000, &va, &d), GPUCORE_OK);
    assert_int_equal(va, a - 0x10);
    assert_int_equal(gc_sim_layout_exception_address(l, 4, 0x7ffd0000, &va, &d), GPUCORE_OK);
    assert_int_equal(va, 0x7ffd0000);
    assert_int_equal(gc_sim_layout_exception_address(l, 5, 0x7ffd0000, &va, &d), GPUCORE_E_INVAL);
    assert_int_equal(va, 0);
    if (!strstr(d.message, "x.json: exceptions[5].address: buffer 'low' at 0x40000000 - "
                           "0x40000000 is outside [1, 2^57)"))
        fail_msg("%s", d.message);
    assert_int_equal(gc_sim_layout_exception_address(l, 6, 0, &va, &d), GPUCORE_E_INVAL);
    gc_sim_layout_free(l);
    gc_scenario_free(s);
}

/* Little-endian field of @p n bytes at @p p. */
static uint64_t le_at(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A code object v5 kernel with hidden arguments (trap.cl's check): the layout fills them as the
   runtime does, from a 2-D grid with partial workgroups, in a segment of the descriptor's
   kernarg_size, with the printf buffer the scenario asks for; a v4 kernel (vadd) gets its
   explicit arguments only. */
static void test_layout_hidden_kernargs(void **state)
{
    static const char json[] =
            "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx1100\",\"gpu_id\":1,\"simd_count\":192}],"
            "\"queues\":[{\"agent\":0,\"queue_id\":0}],\"code_objects\":[{\"name\":\"t\","
            "\"source\":\"trap.cl\",\"target\":\"gfx1100\"},{\"name\":\"v\",\"source\":\"vadd.cl\","
            "\"target\":\"gfx1100\"}],\"buffers\":[{\"name\":\"in\",\"size\":4096}],"
            "\"dispatches\":[{\"queue\":0,\"code_object\":\"t\",\"kernel\":\"check\","
            "\"grid\":[1000,3],\"workgroup\":[256,2],\"packet_id\":0,\"printf_buffer\":8192,"
            "\"kernargs\":["
            "{\"type\":\"buffer\",\"value\":\"in\"},{\"type\":\"u64\",\"value\":\"0x1234\"}]},"
            "{\"queue\":0,\"code_object\":\"v\",\"kernel\":\"vadd\",\"grid\":[256],"
            "\"workgroup\":[256],\"packet_id\":1,\"kernargs\":[{\"type\":\"u64\",\"value\":1},"
            "{\"type\":\"u64\",\"value\":2},{\"type\":\"u64\",\"value\":3},"
            "{\"type\":\"u32\",\"value\":4}]}]}";
    /* (offset, size, value) after the 16 explicit bytes: block counts 1000/256, 3/2, 1;
       group sizes; remainders 1000%256, 3%2, 0; global offsets 0; grid dims 2 */
    static const struct {
        unsigned off, size;
        uint64_t value;
    } want[] = {
        { 16, 4, 3 },   { 20, 4, 1 },  { 24, 4, 1 },  { 28, 2, 256 }, { 30, 2, 2 },
        { 32, 2, 1 },   { 34, 2, 232 }, { 36, 2, 1 }, { 38, 2, 0 },   { 56, 8, 0 },
        { 64, 8, 0 },   { 72, 8, 0 },  { 80, 2, 2 },
    };
    struct gc_scenario *s = NULL;
    struct gc_sim_layout *l = NULL;
    gpucore_diag_t d = { 0 };
    const uint8_t *ka, *pb;

    (void)state;
    assert_int_equal(gc_scenario_parse(json, sizeof(json) - 1, "x.json", &s, &d), GPUCORE_OK);
    if (gc_sim_layout_build(s, getenv("GPUCORE_SCENARIO_OBJECTS"), &l, &d) != GPUCORE_OK)
        fail_msg("%s", d.message);
    assert_int_equal(l->dispatches[0].kernarg_size, 272); /* check's .kernarg_segment_size */
    ka = (const uint8_t *)(uintptr_t)l->dispatches[0].kernarg;
    assert_int_equal(le_at(ka, 8), l->buffers[0].address);
    assert_int_equal(le_at(ka + 8, 8), 0x1234);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (le_at(ka + want[i].off, want[i].size) != want[i].value)
            fail_msg("kernarg byte %u: %" PRIu64 ", expected %" PRIu64, want[i].off,
                     le_at(ka + want[i].off, want[i].size), want[i].value);
    /* the printf buffer: a fresh zeroed mapping of its own */
    pb = (const uint8_t *)(uintptr_t)le_at(ka + 88, 8);
    assert_non_null(pb);
    assert_int_equal((uintptr_t)pb % 4096, 0);
    assert_int_equal(pb[0] | pb[8191], 0);
    for (unsigned o = 96; o < 272; o++) /* hostcall, heap, queue...: none */
        assert_int_equal(ka[o], 0);
    assert_int_equal(l->dispatches[1].kernarg_size, 28); /* v4: explicit only */
    gc_sim_layout_free(l);
    gc_scenario_free(s);
}

/* ---- in a running gpucore-inferior ---- */

static pid_t child;

/* After each inferior test, pass or fail: no inferior outlives its test. */
static int kill_child(void **state)
{
    int status;

    (void)state;
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, __WALL);
    }
    child = 0;
    return 0;
}

static void parse_describe(const char *path, const struct gc_scenario *s, struct addrs *a)
{
    FILE *f = fopen(path, "r");
    char line[512];

    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        unsigned i;
        uint64_t v1, v2, v3, v4;
        uint32_t sz, nx;

        if (sscanf(line, "r_debug 0x%" SCNx64, &v1) == 1)
            a->r_debug = v1;
        else if (sscanf(line, "dispatch %u packet 0x%" SCNx64 " kernel_object 0x%" SCNx64
                        " entry 0x%" SCNx64, &i, &v1, &v2, &v3) == 4 && i < s->ndispatches)
            a->entry[i] = v3;
        else if (sscanf(line, "buffer %u 0x%" SCNx64, &i, &v1) == 2 && i < s->nbuffers)
            a->buffer[i] = v1;
        else if (strncmp(line, "alloc ", 6) == 0) {
            struct gc_kfd_mapping *m = &a->alloc[a->nalloc];
            int at = 0;

            assert_true(a->nalloc < GC_ARRAY_SIZE(a->alloc));
            assert_int_equal(sscanf(line, "alloc 0x%" SCNx64 " %" SCNu64 " kind %u gpu 0x%x %n",
                                    &m->base, &m->size, &m->kind, &m->gpu_id, &at), 4);
            line[strcspn(line, "\n")] = 0;
            snprintf(m->label, sizeof(m->label), "%s", line + at);
            a->nalloc++;
        }
        else if (sscanf(line, "queue %u ring 0x%" SCNx64 " ring_size %" SCNu64 " amd_queue 0x%"
                        SCNx64 " cwsr 0x%" SCNx64 " cwsr_size %u num_xcc %u", &i, &v1, &v2, &v3,
                        &v4, &sz, &nx) == 7 && i < s->nqueues) {
            a->ring[i] = v1;
            a->amd_queue[i] = v3;
            a->cwsr[i] = v4;
            a->cwsr_size[i] = sz;
        }
    }
    fclose(f);
}

/*
 * Resident kB of the mappings of @p pid that hold the save areas @p a->cwsr[0..nq) (each
 * mapping counted once: the kernel may have merged neighbouring device allocations into it),
 * from /proc/PID/smaps.
 */
static uint64_t cwsr_rss_kb(pid_t pid, const struct addrs *a, uint32_t nq)
{
    char path[64], line[512];
    uint64_t total = 0;
    int counted = 1; /* the current mapping holds no area, or its Rss was added */
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
    f = fopen(path, "re");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        unsigned long long lo, hi, kb;

        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2) { /* a mapping's first line */
            counted = 1;
            for (uint32_t i = 0; i < nq; i++)
                if (a->cwsr[i] >= lo && a->cwsr[i] < hi)
                    counted = 0;
        } else if (!counted && sscanf(line, "Rss: %llu kB", &kb) == 1) {
            total += kb;
            counted = 1;
        }
    }
    fclose(f);
    return total;
}

/*
 * Drive the simulated driver as a debugger does (docs/kfd-debug-interface.md §12): ENABLE, device
 * and queue snapshots checked against the scenario, SUSPEND every queue (the driver writes the
 * save-area headers), decode the memory, RESUME, DISABLE. We are the ptrace parent of the
 * inferior; only its main thread is stopped, so the driver thread keeps answering.
 */
static void debug_session(const struct gc_scenario *s, const struct reader *r,
                          const struct addrs *a, pid_t pid)
{
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_SIM };
    struct kfd_dbg_device_info_entry *dev = NULL;
    struct kfd_queue_snapshot_entry *q = NULL;
    struct kfd_runtime_info rinfo;
    uint32_t ndev, nq, dev_size, q_size, done;
    uint32_t *ids = calloc(s->nqueues ? s->nqueues : 1, sizeof(*ids));
    struct gc_kfd *k = NULL;
    gpucore_diag_t d;

    assert_non_null(ids);
    if (gc_kfd_open(pid, &o, &k, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    /* Every exception in the mask: the debugger holds them, so the runtime (on_queue_error)
       learns of them only when we let go. */
    if (gc_kfd_enable(k, ~0ull, &rinfo, &d) != GPUCORE_OK)
        fail_msg("enable: %s", d.message);
    assert_int_equal(rinfo.r_debug, a->r_debug);
    assert_int_equal(rinfo.runtime_state, DEBUG_RUNTIME_STATE_ENABLED);
    /* The scenario's exceptions are raised at_ms after ENABLE: wait for the first, as a
       debugger waits for its event (no deadline: ctest's timeout catches a hang). */
    if (s->nexceptions && gc_kfd_wait_event(k, -1, &d) != GPUCORE_OK)
        fail_msg("wait event: %s", d.message);

    if (gc_kfd_device_snapshot(k, 0, &dev, &ndev, &dev_size, &d) != GPUCORE_OK)
        fail_msg("device snapshot: %s", d.message);
    assert_int_equal(ndev, s->nagents);
    for (uint32_t i = 0; i < ndev; i++) {
        assert_int_equal(dev[i].gpu_id, s->agents[i].gpu_id);
        assert_int_equal(dev[i].num_xcc, s->agents[i].num_xcc);
        assert_int_equal(dev[i].simd_count, s->agents[i].simd_count);
    }
    if (gc_kfd_queue_snapshot(k, 0, &q, &nq, &q_size, &d) != GPUCORE_OK)
        fail_msg("queue snapshot: %s", d.message);
    assert_int_equal(nq, s->nqueues);
    for (uint32_t i = 0; i < nq; i++) {
        assert_int_equal(q[i].queue_id & GC_KFD_QUEUE_ID_MASK, s->queues[i].queue_id);
        assert_int_equal(q[i].gpu_id, s->agents[s->queues[i].agent].gpu_id);
        assert_int_equal(q[i].ring_base_address, a->ring[i]);
        assert_int_equal(q[i].ctx_save_restore_address, a->cwsr[i]);
        assert_int_equal(q[i].ctx_save_restore_area_size, a->cwsr_size[i]);
        assert_int_equal(q[i].queue_type, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
        ids[i] = q[i].queue_id & GC_KFD_QUEUE_ID_MASK;
    }

    /* Not preempted yet: the areas hold no control stack and no waves, as on hardware, so a
       capture that read them without suspending would find nothing. */
    for (uint32_t i = 0; i < nq; i++) {
        for (uint32_t x = 0; x < s->agents[s->queues[i].agent].num_xcc; x++) {
            uint8_t raw[GC_CWSR_HEADER_SIZE];
            struct gc_cwsr_header h;

            rd(r, a->cwsr[i] + (uint64_t)x * a->cwsr_size[i], raw, sizeof(raw));
            assert_int_equal(gc_cwsr_header_decode(raw, sizeof(raw), &h), GPUCORE_OK);
            assert_int_equal(h.control_stack_size, 0);
            assert_int_equal(h.wave_state_size, 0);
        }
    }
    /* The device keeps the waves in the save areas: the first SUSPEND writes each XCC's
       header in place and makes no page of the areas resident that was not already. A second
       suspension (a second capture) finds the same waves. */
    uint64_t rss_before = cwsr_rss_kb(pid, a, nq);

    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < nq; i++)
            ids[i] = q[i].queue_id & GC_KFD_QUEUE_ID_MASK;
        if (gc_kfd_suspend_queues(k, ids, nq, 0, 0, &done, &d) != GPUCORE_OK)
            fail_msg("suspend: %s", d.message);
        assert_int_equal(done, nq);
        for (uint32_t i = 0; i < nq; i++)
            assert_int_equal(ids[i] & (GC_KFD_QUEUE_ERROR_MASK | GC_KFD_QUEUE_INVALID_MASK), 0);
        assert_int_equal(cwsr_rss_kb(pid, a, nq), rss_before);

        /* Suspended: the save areas are current; they must decode to the scenario exactly. */
        check_all(s, r, a, pid);

        for (uint32_t i = 0; i < nq; i++)
            ids[i] = q[i].queue_id & GC_KFD_QUEUE_ID_MASK;
        if (gc_kfd_resume_queues(k, ids, nq, &done, &d) != GPUCORE_OK)
            fail_msg("resume: %s", d.message);
        assert_int_equal(done, nq);
    }
    /* A memory violation with an address: the device's record carries it. */
    for (uint32_t i = 0; i < s->nexceptions; i++) {
        uint8_t rec[32];
        uint32_t size = sizeof(rec);
        uint64_t va;

        if (!s->exceptions[i].address)
            continue;
        if (s->exceptions[i].at_ms)
            continue; /* not necessarily raised yet */
        if (gc_kfd_query_exception_info(k, s->agents[s->queues[s->exceptions[i].queue].agent].gpu_id,
                                        EC_DEVICE_MEMORY_VIOLATION, 0, rec, &size, &d) != GPUCORE_OK)
            fail_msg("exception info: %s", d.message);
        assert_int_equal(size, 32);
        memcpy(&va, rec + 16, 8);
        assert_int_equal(va, s->exceptions[i].address);
        for (unsigned b = 0; b < 4; b++) {
            uint32_t w;

            memcpy(&w, rec + 4 * b, 4);
            assert_int_equal(w, (s->exceptions[i].fault_flags >> b) & 1u);
        }
    }
    {
        int en = -1;
        uint32_t sq = 99;

        if (gc_kfd_driver_state(k, &en, &sq, &d) != GPUCORE_OK)
            fail_msg("driver state: %s", d.message);
        assert_int_equal(en, 1);
        assert_int_equal(sq, 0); /* resumed above */
    }
    if (gc_kfd_disable(k, &d) != GPUCORE_OK)
        fail_msg("disable: %s", d.message);
    if (s->on_queue_error == GC_SCEN_ON_ERROR_CONTINUE) {
        int en = -1;
        uint32_t sq = 99;

        if (gc_kfd_driver_state(k, &en, &sq, &d) != GPUCORE_OK)
            fail_msg("driver state: %s", d.message);
        assert_int_equal(en, 0);
        assert_int_equal(sq, 0);
    }
    gc_kfd_close(k);
    gc_free(dev);
    gc_free(q);
    free(ids);
}

/* A running gpucore-inferior: its stdout (the ready line) and stderr (the runtime's line). */
struct running {
    pid_t pid;
    FILE *out;
    int err_fd;
    char desc[4096];
};

/*
 * Start @p name with GPUCORE_SIM_FAULTS = @p env_faults (NULL: unset). Returns 0 when it said
 * ready, else its exit status (wait status) with the process reaped.
 */
static int start_inferior(const char *name, const char *env_faults, struct running *ri)
{
    const char *exe = getenv("GPUCORE_INFERIOR");
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char scen[4096], line[256];
    int out[2], err[2], status = 0;
    long rpid = 0;

    assert_non_null(exe);
    if (name[0] == '/')
        snprintf(scen, sizeof(scen), "%s", name);
    else
        snprintf(scen, sizeof(scen), "%s/%s", getenv("GPUCORE_SCENARIO_DIR"), name);
    snprintf(ri->desc, sizeof(ri->desc), "%s/%s.%ld.describe", tmp ? tmp : "/tmp",
             strrchr(scen, '/') + 1, (long)getpid());
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(err), 0);
    ri->pid = fork();
    assert_true(ri->pid >= 0);
    child = ri->pid;
    if (ri->pid == 0) {
        /* A failed assertion leaves this test without killing the inferior: make it die with
           us, or it would hold ctest's output pipe open until the timeout. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        if (env_faults)
            setenv("GPUCORE_SIM_FAULTS", env_faults, 1);
        else
            unsetenv("GPUCORE_SIM_FAULTS");
        execl(exe, exe, scen, "--objects", getenv("GPUCORE_SCENARIO_OBJECTS"), "--describe",
              ri->desc, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    ri->err_fd = err[0];
    ri->out = fdopen(out[0], "r");
    if (!fgets(line, sizeof(line), ri->out)) {
        assert_int_equal(waitpid(ri->pid, &status, 0), ri->pid);
        child = 0;
        fclose(ri->out);
        return status ? status : -1;
    }
    assert_int_equal(sscanf(line, "gpucore-inferior: pid %ld ready", &rpid), 1);
    assert_int_equal(rpid, ri->pid);
    return 0;
}

/* Everything the inferior wrote to stderr until it exits (the pipe closes). */
static void read_stderr(struct running *ri, char *buf, size_t size)
{
    size_t n = 0;
    ssize_t got;

    while (n + 1 < size && (got = read(ri->err_fd, buf + n, size - 1 - n)) > 0)
        n += (size_t)got;
    buf[n] = 0;
}

static void finish(struct running *ri)
{
    child = 0;
    fclose(ri->out);
    close(ri->err_fd);
    unlink(ri->desc);
}

/*
 * VmFlags of every VMA of /proc/PID/smaps that overlaps [base, base + size) must include "dd".
 * (The kernel merges adjacent anonymous mappings with equal flags, so one VMA may hold several
 * allocations: each is still its own mmap, and all of them are dd.)
 */
static void check_dontdump(pid_t pid, uint64_t base, uint64_t size, const char *label)
{
    char path[64], line[512];
    FILE *f;
    int inside = 0, seen = 0;

    snprintf(path, sizeof(path), "/proc/%ld/smaps", (long)pid);
    f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        uint64_t lo, hi;

        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &lo, &hi) == 2 && strchr(line, ' ') &&
            line[strspn(line, "0123456789abcdef")] == '-') {
            inside = lo < base + size && hi > base;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            seen = 1;
            if (!strstr(line, " dd"))
                fail_msg("%s at 0x%" PRIx64 ": not MADV_DONTDUMP: %s", label, base, line);
        }
    }
    fclose(f);
    if (!seen)
        fail_msg("%s at 0x%" PRIx64 ": no VMA in smaps", label, base);
}

static int cmp_base(const void *x, const void *y)
{
    const struct gc_kfd_mapping *a = x, *b = y;

    return a->base < b->base ? -1 : a->base > b->base;
}

/*
 * What the device knows, through gc_kfd from a client that is not (yet) the ptrace parent: the
 * service thread is the one named gpucore-kfd-sim, the GPU mappings are the layout's
 * allocations, each excluded from host cores.
 */
static void check_device_facts(const struct gc_scenario *s, struct addrs *a, pid_t pid)
{
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_SIM };
    struct gc_kfd *k = NULL;
    struct gc_kfd_mapping *m = NULL;
    gpucore_diag_t d;
    uint32_t n = 0;
    pid_t tids[4];
    char path[64], comm[32] = "";
    FILE *f;
    int en = -1;
    uint32_t sq = 99;

    if (gc_kfd_open(pid, &o, &k, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    if (gc_kfd_service_threads(k, tids, 4, &n, &d) != GPUCORE_OK)
        fail_msg("service threads: %s", d.message);
    assert_int_equal(n, 1);
    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/comm", (long)pid, (long)tids[0]);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(comm, sizeof(comm), f));
    fclose(f);
    assert_string_equal(comm, "gpucore-kfd-sim\n");

    if (gc_kfd_gpu_mappings(k, &m, &n, &d) != GPUCORE_OK)
        fail_msg("gpu mappings: %s", d.message);
    assert_true(a->nalloc > 0);
    assert_int_equal(n, a->nalloc);
    qsort(a->alloc, a->nalloc, sizeof(a->alloc[0]), cmp_base);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(m[i].base, a->alloc[i].base);
        assert_int_equal(m[i].size, a->alloc[i].size);
        assert_int_equal(m[i].kind, a->alloc[i].kind);
        assert_int_equal(m[i].gpu_id, a->alloc[i].gpu_id);
        assert_int_equal(m[i].flags, 0);
        assert_string_equal(m[i].label, a->alloc[i].label);
        check_dontdump(pid, m[i].base, m[i].size, m[i].label);
    }
    /* Each queue's pieces and each buffer are listed under their labels. */
    for (uint32_t q = 0; q < s->nqueues; q++) {
        int ring = 0, cwsr = 0;

        for (uint32_t i = 0; i < n; i++) {
            ring += m[i].base == a->ring[q] && m[i].kind == GC_KFD_MEM_RING;
            cwsr += m[i].base == a->cwsr[q] && m[i].kind == GC_KFD_MEM_CWSR;
        }
        assert_int_equal(ring, 1);
        assert_int_equal(cwsr, 1);
    }
    for (uint32_t b = 0; b < s->nbuffers; b++) {
        char want[GC_KFD_MAP_LABEL_MAX];
        int found = 0;

        snprintf(want, sizeof(want), "buffer %.40s", s->buffers[b].name);
        for (uint32_t i = 0; i < n; i++)
            found += m[i].base == a->buffer[b] && strcmp(m[i].label, want) == 0 &&
                     m[i].kind == GC_KFD_MEM_VRAM;
        assert_int_equal(found, 1);
    }
    /* r_debug is host memory: not a GPU mapping. */
    for (uint32_t i = 0; i < n; i++)
        assert_false(a->r_debug >= m[i].base && a->r_debug < m[i].base + m[i].size);
    /* Nobody holds the process yet. */
    if (gc_kfd_driver_state(k, &en, &sq, &d) != GPUCORE_OK)
        fail_msg("driver state: %s", d.message);
    assert_int_equal(en, 0);
    assert_int_equal(sq, 0);
    gc_free(m);
    gc_kfd_close(k);
}

/* The runtime's line for the first error exception of @p s (what the inferior prints). */
static void expected_line(const struct gc_scenario *s, char *buf, size_t size)
{
    static const struct {
        const char *what, *text;
    } names[] = {
        { "queue_error", "wave abort" },
        { "memory_violation", "memory violation" },
        { "illegal_instruction", "illegal instruction" },
        { "assert_trap", "trap" },
    };
    const struct gc_scen_exception *e = &s->exceptions[0];
    const char *text = "?";
    char at[40] = "";

    for (size_t i = 0; i < GC_ARRAY_SIZE(names); i++)
        if (strcmp(names[i].what, e->what) == 0)
            text = names[i].text;
    if (e->address)
        snprintf(at, sizeof(at), " at 0x%" PRIx64, e->address);
    snprintf(buf, size, "gpucore-inferior: queue %u (gpu 0x%x): %s%s: aborting\n",
             s->queues[e->queue].queue_id, s->agents[s->queues[e->queue].agent].gpu_id, text, at);
}

static void inferior(const char *name)
{
    struct gc_scenario *s = load(name);
    struct addrs *a = calloc(1, sizeof(*a));
    struct running ri;
    int status;
    struct reader r;
    pid_t pid;

    assert_int_equal(start_inferior(name, NULL, &ri), 0);
    pid = ri.pid;
    parse_describe(ri.desc, s, a);
    check_device_facts(s, a, pid);

    /* Attach as a debugger would: seize, stop, then read. */
    assert_int_equal(ptrace(PTRACE_SEIZE, pid, 0, 0), 0);
    assert_int_equal(ptrace(PTRACE_INTERRUPT, pid, 0, 0), 0);
    assert_int_equal(waitpid(pid, &status, __WALL), pid);
    r.pid = pid;
    debug_session(s, &r, a, pid);

    if (s->on_queue_error == GC_SCEN_ON_ERROR_ABORT) {
        /* The debugger let go of a raised error: ROCr learns of it, says so, and aborts. */
        char err[1024], want[256];

        assert_int_equal(waitpid(pid, &status, __WALL), pid);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGABRT);
        assert_false(WCOREDUMP(status)); /* RLIMIT_CORE 0: no host core litter */
        read_stderr(&ri, err, sizeof(err));
        expected_line(s, want, sizeof(want));
        assert_string_equal(err, want);
    } else {
        assert_int_equal(ptrace(PTRACE_DETACH, pid, 0, 0), 0);
        /* SIGTERM ends it cleanly (exit 0). */
        kill(pid, SIGTERM);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    finish(&ri);
    gc_scenario_free(s);
    free(a);
}

/* rdna2-illegal with its on_queue_error line replaced by @p with, written to a temp file. */
static void variant(const char *with, char *path, size_t size)
{
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char src[4096];
    size_t len;
    char *text, *at;
    FILE *f;
    static const char old[] = "\"on_queue_error\": \"abort\",";

    snprintf(src, sizeof(src), "%s/rdna2-illegal.json", getenv("GPUCORE_SCENARIO_DIR"));
    text = read_file(src, &len);
    at = memmem(text, len, old, sizeof(old) - 1);
    assert_non_null(at);
    snprintf(path, size, "%s/rdna2-variant.%ld.json", tmp ? tmp : "/tmp", (long)getpid());
    f = fopen(path, "w");
    assert_non_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(with, f);
    fwrite(at + sizeof(old) - 1, 1, len - (size_t)(at - text) - (sizeof(old) - 1), f);
    fclose(f);
    free(text);
}

/*
 * The runtime's other choices, and an error the debugger never held: ENABLE with an empty
 * exception mask raises rdna2-illegal's illegal instruction (at_ms 0) straight to the runtime.
 * "exit" exits with the scenario's status; "continue" says so and keeps running.
 */
static void test_inferior_on_error(void **state)
{
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_SIM };
    struct kfd_runtime_info rinfo;
    struct running ri;
    struct gc_kfd *k = NULL;
    gpucore_diag_t d;
    char path[4096], msg[1024];
    int status, en = -1;
    uint32_t sq = 99;

    (void)state;
    variant("\"on_queue_error\": \"exit\", \"exit_status\": 7,", path, sizeof(path));
    assert_int_equal(start_inferior(path, NULL, &ri), 0);
    assert_int_equal(ptrace(PTRACE_SEIZE, ri.pid, 0, 0), 0);
    if (gc_kfd_open(ri.pid, &o, &k, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    /* ENABLE is answered first; the runtime acts right after. */
    if (gc_kfd_enable(k, 0, &rinfo, &d) != GPUCORE_OK)
        fail_msg("enable: %s", d.message);
    assert_int_equal(waitpid(ri.pid, &status, __WALL), ri.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    read_stderr(&ri, msg, sizeof(msg));
    assert_string_equal(msg, "gpucore-inferior: queue 1 (gpu 0x1e2d): illegal instruction: "
                             "exiting with status 7\n");
    k->enabled = 0; /* gone */
    gc_kfd_close(k);
    finish(&ri);

    variant("\"on_queue_error\": \"continue\",", path, sizeof(path));
    assert_int_equal(start_inferior(path, NULL, &ri), 0);
    assert_int_equal(ptrace(PTRACE_SEIZE, ri.pid, 0, 0), 0);
    if (gc_kfd_open(ri.pid, &o, &k, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    if (gc_kfd_enable(k, 0, &rinfo, &d) != GPUCORE_OK)
        fail_msg("enable: %s", d.message);
    /* Still there and still serving; once the line is out, it stays the only one. */
    if (gc_kfd_disable(k, &d) != GPUCORE_OK)
        fail_msg("disable: %s", d.message);
    if (gc_kfd_driver_state(k, &en, &sq, &d) != GPUCORE_OK)
        fail_msg("driver state: %s", d.message);
    assert_int_equal(en, 0);
    assert_int_equal(sq, 0);
    gc_kfd_close(k);
    /* Detach needs a ptrace-stopped tracee. */
    assert_int_equal(ptrace(PTRACE_INTERRUPT, ri.pid, 0, 0), 0);
    assert_int_equal(waitpid(ri.pid, &status, __WALL), ri.pid);
    assert_int_equal(ptrace(PTRACE_DETACH, ri.pid, 0, 0), 0);
    kill(ri.pid, SIGTERM);
    assert_int_equal(waitpid(ri.pid, &status, 0), ri.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    read_stderr(&ri, msg, sizeof(msg));
    assert_string_equal(msg, "gpucore-inferior: queue 1 (gpu 0x1e2d): illegal instruction: "
                             "continuing\n");
    finish(&ri);
    unlink(path);
}

/*
 * GPUCORE_SIM_FAULTS: the named op fails; a read_memory EIO range is genuinely unreadable (the
 * readable prefix and E_UNAVAILABLE, with process_vm_readv and with /proc/PID/mem); a slow-read
 * entry still reads everything.
 */
static void test_inferior_env_faults(void **state)
{
    struct gc_scenario *s = load("vadd-fault.json");
    struct addrs *a = calloc(1, sizeof(*a));
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_SIM };
    struct running ri;
    struct gc_kfd *k = NULL;
    struct kfd_runtime_info rinfo;
    struct kfd_dbg_device_info_entry *dev = NULL;
    uint32_t ndev, dsz;
    gpucore_diag_t d;
    uint8_t *buf = malloc(65536);
    uint64_t done = 0;
    int err = 0, status;
    char msg[1024];

    (void)state;
    assert_non_null(buf);
    assert_int_equal(start_inferior("vadd-fault.json",
                                    "[{\"op\":\"device_snapshot\",\"errno\":\"EACCES\"},"
                                    "{\"op\":\"read_memory\",\"delay_us_per_mib\":50},"
                                    "{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"b\","
                                    "\"offset\":8192,\"size\":4096}]",
                                    &ri), 0);
    parse_describe(ri.desc, s, a);
    assert_int_equal(ptrace(PTRACE_SEIZE, ri.pid, 0, 0), 0);
    if (gc_kfd_open(ri.pid, &o, &k, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    if (gc_kfd_enable(k, ~0ull, &rinfo, &d) != GPUCORE_OK)
        fail_msg("enable: %s", d.message);
    /* The env entry: the first device snapshot fails EACCES -> E_PERM; the next works. */
    assert_int_equal(gc_kfd_device_snapshot(k, 0, &dev, &ndev, &dsz, &d), GPUCORE_E_PERM);
    assert_int_equal(gc_kfd_device_snapshot(k, 0, &dev, &ndev, &dsz, &d), GPUCORE_OK);
    gc_free(dev);
    /* Buffer b: 8 KiB readable, then the hole. */
    assert_int_equal(gc_kfd_read_memory(k, a->buffer[1], buf, 65536, &done, &err, &d),
                     GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, 8192);
    /* process_vm_readv stops at the hole with EFAULT; the /proc/PID/mem fallback then tries
       the rest and reports the kernel's EIO. */
    assert_int_equal(err, EIO);
    for (uint32_t i = 0; i < 8192 / 4; i += 97) {
        uint32_t w;

        memcpy(&w, buf + 4 * i, 4);
        assert_int_equal(w, gc_sim_layout_mem(s->buffers[1].pattern, s->buffers[1].seed,
                                              GC_SCEN_KIND_MEM, i));
    }
    /* Past the hole reads again; buffer a is untouched. */
    assert_int_equal(gc_kfd_read_memory(k, a->buffer[1] + 12288, buf, 4096, &done, &err, &d),
                     GPUCORE_OK);
    assert_int_equal(done, 4096);
    assert_int_equal(gc_kfd_read_memory(k, a->buffer[0], buf, 65536, &done, &err, &d),
                     GPUCORE_OK);
    /* The /proc/PID/mem path says EIO. */
    k->no_vm_readv = 1;
    assert_int_equal(gc_kfd_read_memory(k, a->buffer[1] + 4096, buf, 8192, &done, &err, &d),
                     GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, 4096);
    assert_int_equal(err, EIO);
    k->no_vm_readv = 0;
    if (gc_kfd_disable(k, &d) != GPUCORE_OK)
        fail_msg("disable: %s", d.message);
    gc_kfd_close(k);
    /* vadd-fault aborts once the debugger lets go of its memory violation. */
    assert_int_equal(waitpid(ri.pid, &status, __WALL), ri.pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    read_stderr(&ri, msg, sizeof(msg));
    assert_non_null(strstr(msg, "memory violation at 0x7f39f5000040: aborting"));
    finish(&ri);

    /* A bad entry: the inferior names the variable and the element, and exits 65. */
    status = start_inferior("vadd-fault.json",
                            "[{\"op\":\"suspend\",\"exit\":3},{\"op\":\"resume\",\"errno\":\"EXX\"}]",
                            &ri);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 65);
    read_stderr(&ri, msg, sizeof(msg));
    assert_non_null(strstr(msg, "GPUCORE_SIM_FAULTS[1].errno: unknown value 'EXX'"));
    close(ri.err_fd);
    unlink(ri.desc);

    /* An exit fault from the environment: the process exits while serving the op. */
    assert_int_equal(start_inferior("multi-gpu-hang.json", "[{\"op\":\"queue_snapshot\",\"exit\":9}]",
                                    &ri), 0);
    assert_int_equal(ptrace(PTRACE_SEIZE, ri.pid, 0, 0), 0);
    if (gc_kfd_open(ri.pid, &o, &k, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    if (gc_kfd_enable(k, ~0ull, &rinfo, &d) != GPUCORE_OK)
        fail_msg("enable: %s", d.message);
    {
        struct kfd_queue_snapshot_entry *q = NULL;
        uint32_t nq, qsz;

        assert_int_equal(gc_kfd_queue_snapshot(k, 0, &q, &nq, &qsz, &d), GPUCORE_E_NOTFOUND);
    }
    assert_int_equal(waitpid(ri.pid, &status, __WALL), ri.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 9);
    k->enabled = 0; /* gone: nothing to disable */
    gc_kfd_close(k);
    finish(&ri);
    free(buf);
    free(a);
    gc_scenario_free(s);
}

#define INFERIOR(n, f)                                                                             \
    static void test_inferior_##n(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        inferior(f);                                                                               \
    }
INFERIOR(vadd, "vadd-fault.json")
INFERIOR(mi300, "mi300-xcc.json")
INFERIOR(rdna2, "rdna2-illegal.json")
INFERIOR(rdna3, "rdna3-assert.json")
INFERIOR(hang, "multi-gpu-hang.json")
INFERIOR(big, "big-memory.json")

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_vadd),     cmocka_unit_test(test_layout_mi300),
        cmocka_unit_test(test_layout_rdna2),    cmocka_unit_test(test_layout_rdna3),
        cmocka_unit_test(test_layout_hang),     cmocka_unit_test(test_layout_big),
        cmocka_unit_test(test_layout_r_versions),
        cmocka_unit_test(test_layout_bad_pc),   cmocka_unit_test(test_layout_exception_address),
        cmocka_unit_test(test_layout_hidden_kernargs), cmocka_unit_test(test_layout_backlog),
        cmocka_unit_test_teardown(test_inferior_vadd, kill_child),
        cmocka_unit_test_teardown(test_inferior_rdna3, kill_child),  cmocka_unit_test_teardown(test_inferior_mi300, kill_child),
        cmocka_unit_test_teardown(test_inferior_rdna2, kill_child),  cmocka_unit_test_teardown(test_inferior_hang, kill_child),
        cmocka_unit_test_teardown(test_inferior_big, kill_child),
        cmocka_unit_test_teardown(test_inferior_env_faults, kill_child),
        cmocka_unit_test_teardown(test_inferior_on_error, kill_child),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
