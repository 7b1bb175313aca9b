/* SPDX-License-Identifier: MIT */
/*
 * The GPU half of a capture, planned (plan.h): the AMDGPU note, the four memory tiers, the
 * manifest items, the code objects and the allocation map. Every byte read from the target is
 * hostile: each structure is validated before use, and a structure that cannot be read or does
 * not make sense becomes a warning that drops it. Runtime walk and code objects: plan_co.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_kfd_entry.h"
#include "gc_le.h"
#include "gc_rocr.h"
#include "gc_util.h"
#include "kfd_sim_protocol.h"
#include "plan_internal.h"
#include "wave.h"

/* The note records the driver's queue ids as the driver gives them: kfd.h's copy of the uapi
   and the note's public header must name the same bits. */
_Static_assert(GC_KFD_QUEUE_ID_MASK == GPUCORE_KFD_QUEUE_ID_MASK &&
                       GC_KFD_QUEUE_ERROR_MASK == GPUCORE_KFD_QUEUE_ERROR_BIT &&
                       GC_KFD_QUEUE_INVALID_MASK == GPUCORE_KFD_QUEUE_INVALID_BIT,
               "the note's queue-id bits are not the driver's");

/* ---- warnings, reads, wanted ranges, items -------------------------------------------------- */

void gc_plan_warn(struct gc_plan_ctx *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (c->p->nwarnings >= GC_PLAN_MAX_WARNINGS) {
        c->dropped_warnings++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* target bytes (URIs) and truncation must not make it invalid UTF-8 for the encoders */
    gc_utf8_scrub(msg, strlen(msg));
    if (c->p->nwarnings == c->warn_cap) {
        uint32_t n = c->warn_cap ? c->warn_cap * 2 : 16;
        char **w = gc_realloc_array(c->p->warnings, n, sizeof(*w));

        if (!w) {
            c->dropped_warnings++;
            return;
        }
        c->p->warnings = w;
        c->warn_cap = n;
    }
    char *s = gc_strdup(msg);
    if (!s) {
        c->dropped_warnings++;
        return;
    }
    c->p->warnings[c->p->nwarnings++] = s;
}

int gc_plan_read(struct gc_plan_ctx *c, uint64_t addr, void *buf, uint64_t size, uint64_t *ret_done,
                 const char *what)
{
    uint64_t done = 0;
    int err = 0;
    gpucore_status_t st;

    if (ret_done)
        *ret_done = 0;
    if (size == 0)
        return 1;
    if (size > UINT64_MAX - addr) {
        gc_plan_warn(c,
                     "%s at 0x%" PRIx64 ": 0x%" PRIx64 " bytes run past the end of the "
                     "address space",
                     what, addr, size);
        return 0;
    }
    if (gc_rangeset_overlaps(&c->noread, addr, size)) {
        /* doorbells and MMIO: reading them has side effects */
        gc_plan_warn(c, "%s at 0x%" PRIx64 ": lies in a GPU mapping that must not be read", what,
                     addr);
        return 0;
    }
    st = c->in->mem.read(c->in->mem.user, addr, buf, size, &done, &err);
    if (done > size)
        done = 0; /* a reader that claims more than was asked is not believed */
    if (st == GPUCORE_OK && done == size) {
        if (ret_done)
            *ret_done = size;
        return 1;
    }
    if (st != GPUCORE_OK && st != GPUCORE_E_UNAVAILABLE) {
        c->fatal = st;
        c->diag_set = 1;
        gc_diag_set(c->diag, st, GC_NO_OFFSET,
                    "%s at 0x%" PRIx64 ": reading the target "
                    "failed (%s)",
                    what, addr, err ? strerror(err) : "no detail");
        return -1;
    }
    if (ret_done)
        *ret_done = done;
    if (!ret_done || done == 0)
        gc_plan_warn(c,
                     "%s at 0x%" PRIx64 ": unreadable (%s) after %" PRIu64 " of %" PRIu64 " bytes",
                     what, addr, err ? strerror(err) : "short read", done, size);
    return 0;
}

static const char *tier_name(uint32_t tier)
{
    static const char *const names[GC_PLAN_TIERS] = { "state", "scratch", "referenced", "all" };

    return tier < GC_PLAN_TIERS ? names[tier] : "?";
}

gpucore_status_t gc_plan_want(struct gc_plan_ctx *c, uint32_t tier, uint64_t addr, uint64_t size,
                              uint32_t kind, uint32_t gpu_id, const char *fmt, ...)
{
    gpucore_status_t st;
    /* GC_PLAN_STATE(rank) carries rank + 1 above the tier; none is the last rank */
    uint32_t rank = tier >> 8 ? (tier >> 8) - 1 : GC_PLAN_STATE_RANKS - 1;

    tier &= 0xffu;
    if (tier >= GC_PLAN_TIERS || rank >= GC_PLAN_STATE_RANKS)
        return GPUCORE_E_INVAL;
    if (size == 0)
        return GPUCORE_OK;
    if (size > UINT64_MAX - addr)
        size = UINT64_MAX - addr; /* the last byte of the space is not representable */
    if (size == 0)
        return GPUCORE_OK;
    if (tier == GPUCORE_TIER_STATE) {
        /* whole 64-byte lines (ROCdbgapi's cache line) */
        uint64_t end = addr + size;
        uint64_t lo = addr & ~63ull;
        uint64_t hi = end > UINT64_MAX - 63 ? UINT64_MAX : (end + 63) & ~63ull;

        addr = lo;
        size = hi - lo;
    }
    if (c->planned_bytes[tier] > UINT64_MAX - size)
        c->planned_bytes[tier] = UINT64_MAX;
    else
        c->planned_bytes[tier] += size;
    if (c->want[tier].count >= GC_PLAN_MAX_RANGES) {
        if (!c->ranges_capped[tier]) {
            c->ranges_capped[tier] = 1;
            gc_plan_warn(c, "%s tier: more than %u ranges; 0x%" PRIx64 " bytes at 0x%" PRIx64
                         " and what follows left out", tier_name(tier), GC_PLAN_MAX_RANGES,
                         size, addr);
        }
        return GPUCORE_OK;
    }
    st = gc_rangeset_add(&c->want[tier], addr, size);
    if (st == GPUCORE_OK && tier == GPUCORE_TIER_STATE)
        st = gc_rangeset_add(&c->want_rank[rank], addr, size);
    if (st != GPUCORE_OK)
        return st;
    if (c->p->nitems >= GC_PLAN_MAX_ITEMS) {
        if (c->p->nitems == GC_PLAN_MAX_ITEMS && !c->items_capped) {
            c->items_capped = 1;
            gc_plan_warn(c, "more than %u labelled items: the manifest lists the first ones",
                         GC_PLAN_MAX_ITEMS);
        }
        return GPUCORE_OK;
    }
    if (c->p->nitems == c->item_cap) {
        uint32_t n = c->item_cap ? c->item_cap * 2 : 64;
        struct gc_plan_item *it = gc_realloc_array(c->p->items, n, sizeof(*it));

        if (!it)
            return GPUCORE_E_NOMEM;
        c->p->items = it;
        c->item_cap = n;
    }
    struct gc_plan_item *it = &c->p->items[c->p->nitems++];
    va_list ap;

    memset(it, 0, sizeof(*it));
    it->addr = addr;
    it->size = size;
    it->tier = tier;
    it->kind = kind;
    it->gpu_id = gpu_id;
    va_start(ap, fmt);
    vsnprintf(it->label, sizeof(it->label), fmt, ap);
    va_end(ap);
    gc_utf8_scrub(it->label, strlen(it->label));
    return GPUCORE_OK;
}

/* The core format's allocation kind (GPUCORE_ALLOC_*) of what the driver says a mapping holds. */
static uint32_t alloc_kind(uint32_t kfd_kind)
{
    static const uint32_t kinds[_GC_KFD_MEM_COUNT] = {
        [GC_KFD_MEM_UNKNOWN] = GPUCORE_ALLOC_UNKNOWN, [GC_KFD_MEM_VRAM] = GPUCORE_ALLOC_VRAM,
        [GC_KFD_MEM_GTT] = GPUCORE_ALLOC_GTT,         [GC_KFD_MEM_USERPTR] = GPUCORE_ALLOC_USERPTR,
        [GC_KFD_MEM_SCRATCH] = GPUCORE_ALLOC_SCRATCH, [GC_KFD_MEM_CWSR] = GPUCORE_ALLOC_CWSR,
        [GC_KFD_MEM_RING] = GPUCORE_ALLOC_RING,       [GC_KFD_MEM_CODE] = GPUCORE_ALLOC_CODE,
        [GC_KFD_MEM_KERNARG] = GPUCORE_ALLOC_KERNARG, [GC_KFD_MEM_DOORBELL] = GPUCORE_ALLOC_DOORBELL,
        [GC_KFD_MEM_MMIO] = GPUCORE_ALLOC_MMIO,
    };

    return kfd_kind < _GC_KFD_MEM_COUNT ? kinds[kfd_kind] : GPUCORE_ALLOC_UNKNOWN;
}

/* The readable GPU mapping containing addr, or NULL (binary search; maps are sorted). */
static const struct gc_kfd_mapping *mapping_at(const struct gc_plan_input *in, uint64_t addr)
{
    uint32_t lo = 0, hi = in->nmaps;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct gc_kfd_mapping *m = &in->maps[mid];

        if (addr < m->base)
            hi = mid;
        else if (addr - m->base >= m->size)
            lo = mid + 1;
        else
            return (m->flags & GC_KFD_MAP_NO_READ) ? NULL : m;
    }
    return NULL;
}

/* Referenced tier: a window of in->window bytes each side of a value that points into a
 * readable GPU mapping, page-aligned and clipped to the mapping. */
static gpucore_status_t reference(struct gc_plan_ctx *c, uint64_t value, const char *why)
{
    const struct gc_kfd_mapping *m = mapping_at(c->in, value);
    uint64_t lo, hi, mend;

    if (c->windows_capped || !m)
        return GPUCORE_OK;
    mend = m->base + m->size;
    lo = value - m->base > c->window ? value - c->window : m->base;
    hi = mend - value > c->window ? value + c->window : mend;
    lo &= ~(GC_PLAN_PAGE - 1);
    if (lo < m->base)
        lo = m->base;
    if (hi <= UINT64_MAX - (GC_PLAN_PAGE - 1))
        hi = (hi + GC_PLAN_PAGE - 1) & ~(GC_PLAN_PAGE - 1);
    if (hi > mend)
        hi = mend;
    if (hi <= lo || gc_rangeset_contains(&c->want[GPUCORE_TIER_REFERENCED], lo, hi - lo))
        return GPUCORE_OK;
    if (c->windows >= GC_PLAN_MAX_WINDOWS) {
        if (!c->windows_capped) {
            c->windows_capped = 1;
            gc_plan_warn(c,
                         "more than %u referenced windows: the rest are left to the all "
                         "tier",
                         GC_PLAN_MAX_WINDOWS);
        }
        return GPUCORE_OK;
    }
    c->windows++;
    return gc_plan_want(c, GPUCORE_TIER_REFERENCED, lo, hi - lo,
                        alloc_kind(m->kind), m->gpu_id,
                        "near 0x%" PRIx64 " (%s)", value, why);
}

/* ---- the AMDGPU note ------------------------------------------------------------------------- */

static gpucore_status_t build_note(struct gc_plan_ctx *c)
{
    const struct gc_plan_input *in = c->in;
    gpucore_amdgpu_note_t note;
    gpucore_amdgpu_note_t *back = NULL;
    gpucore_diag_t d = { 0 };
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;

    memset(&note, 0, sizeof(note));
    note.kfd_major = in->kfd_major;
    note.kfd_minor = in->kfd_minor;
    /* never claim layouts newer than the ones written (KFD 1.18: 16 / 120 / 64) */
    if (note.kfd_major > 1 || (note.kfd_major == 1 && note.kfd_minor > GC_PLAN_KFD_MINOR_MAX)) {
        note.kfd_major = 1;
        note.kfd_minor = GC_PLAN_KFD_MINOR_MAX;
    }
    note.runtime_info_size = sizeof(struct kfd_runtime_info);
    note.agent_entry_size = sizeof(struct kfd_dbg_device_info_entry);
    note.queue_entry_size = sizeof(struct kfd_queue_snapshot_entry);
    note.runtime.r_debug = in->rinfo.r_debug;
    note.runtime.runtime_state = in->rinfo.runtime_state;
    note.runtime.ttmp_setup = in->rinfo.ttmp_setup;
    note.agent_count = in->ndevices;
    note.queue_count = in->nqueues;
    note.agents = gc_calloc_array(in->ndevices + 1u, sizeof(*note.agents));
    note.queues = gc_calloc_array(in->nqueues + 1u, sizeof(*note.queues));
    if (!note.agents || !note.queues) {
        st = GPUCORE_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < in->ndevices; i++) {
        uint8_t raw[GC_SIM_DEVICE_ENTRY_SIZE];

        /* The driver's entry in the kernel's byte layout (kfd's codec), read as the note's
           entry (schema's kfd_note.def): no field list here. The two tables each side of the
           layering are kept equal by tests/unit/test_kfd_device_entry.c. */
        gc_sim_device_entry_encode(&in->devices[i], raw);
        st = gc_kfd_device_entry_decode(raw, sizeof(raw), &note.agents[i]);
        if (st != GPUCORE_OK)
            goto out;
    }
    for (uint32_t i = 0; i < in->nqueues; i++) {
        uint8_t raw[GC_SIM_QUEUE_ENTRY_SIZE];

        gc_sim_queue_entry_encode(&in->queues[i], raw); /* the same way as the devices */
        st = gc_kfd_queue_entry_decode(raw, sizeof(raw), &note.queues[i]);
        if (st != GPUCORE_OK)
            goto out;
    }
    st = gpucore_amdgpu_note_encode(&note, &desc, &size, &d);
    if (st != GPUCORE_OK) {
        c->diag_set = 1;
        gc_diag_set(c->diag, st, GC_NO_OFFSET, "AMDGPU note: %s", d.message);
        goto out;
    }
    /* What AMD's reader will think of it: a failure is a warning (the core still opens). */
    if (gpucore_amdgpu_note_decode(desc, size, &back, &d) != GPUCORE_OK ||
        gpucore_amdgpu_note_check(back, &d) != GPUCORE_OK)
        gc_plan_warn(c, "AMDGPU note: AMD's debugger library will not use it: %s", d.message);
    gpucore_amdgpu_note_free(back);
    c->p->amdgpu_note = gc_malloc(size ? size : 1);
    if (!c->p->amdgpu_note) {
        st = GPUCORE_E_NOMEM;
        goto out;
    }
    memcpy(c->p->amdgpu_note, desc, size);
    c->p->amdgpu_note_size = size;
out:
    gpucore_free(desc);
    gc_free(note.agents);
    gc_free(note.queues);
    return st;
}

/* ---- queues: amd_queue_t, ring, active packets ----------------------------------------------- */

/* hsa_packet_type_t KERNEL_DISPATCH in bits 7:0 of the packet header */
#define AQL_TYPE_KERNEL_DISPATCH 2u
#define KD_KERNARG_SIZE          8u

struct queue_ctx {
    const struct kfd_queue_snapshot_entry *q;
    const struct kfd_dbg_device_info_entry *dev;
    const struct gc_arch *arch;
    uint32_t index;
    uint32_t qid;
    int have_amdq;
    uint32_t tmpring;
    uint64_t scratch_loc, scratch_stride;
    int have_stride;
};

static gpucore_status_t plan_kernarg(struct gc_plan_ctx *c, struct queue_ctx *qc,
                                     uint64_t packet_id, uint64_t kd_addr, uint64_t ka_addr)
{
    uint8_t kd[64];
    uint32_t ka_size;
    int r;

    GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), kd_addr, 64, GPUCORE_ALLOC_CODE, qc->q->gpu_id,
                        "kernel descriptor, queue %u packet %" PRIu64, qc->qid, packet_id));
    char what[96];

    snprintf(what, sizeof(what), "queue %u packet %" PRIu64 ": kernel descriptor", qc->qid,
             packet_id);
    r = gc_plan_read(c, kd_addr, kd, sizeof(kd), NULL, what);
    if (r < 0)
        return c->fatal;
    if (r == 0 || ka_addr == 0)
        return GPUCORE_OK;
    ka_size = gc_le32_get(kd + KD_KERNARG_SIZE);
    if (ka_size > GC_PLAN_MAX_KERNARG) {
        gc_plan_warn(c,
                     "queue %u packet %" PRIu64 ": kernel descriptor at 0x%" PRIx64
                     " says %u bytes of kernel arguments; capturing %u",
                     qc->qid, packet_id, kd_addr, ka_size, GC_PLAN_MAX_KERNARG);
        ka_size = GC_PLAN_MAX_KERNARG;
    }
    if (ka_size == 0)
        return GPUCORE_OK;
    GC_TRY(gc_plan_want(c, GPUCORE_TIER_STATE, ka_addr, ka_size, GPUCORE_ALLOC_KERNARG,
                        qc->q->gpu_id, "kernargs, queue %u packet %" PRIu64, qc->qid, packet_id));
    /* referenced: every aligned u64 of the kernel arguments */
    uint8_t *buf = gc_malloc(ka_size);
    uint64_t done = 0;

    if (!buf)
        return GPUCORE_E_NOMEM;
    snprintf(what, sizeof(what), "queue %u packet %" PRIu64 ": kernel arguments", qc->qid,
             packet_id);
    r = gc_plan_read(c, ka_addr, buf, ka_size, &done, what);
    if (r < 0) {
        gc_free(buf);
        return c->fatal;
    }
    gpucore_status_t st = GPUCORE_OK;
    uint64_t first = (8 - (ka_addr & 7)) & 7;
    st = gc_rangeset_add(&c->kernarg_lines, ka_addr, ka_size);
    for (uint64_t o = first; st == GPUCORE_OK && o + 8 <= done; o += 8) {
        uint64_t v = gc_le64_get(buf + o);

        st = reference(c, v, "kernel argument");
        if (st == GPUCORE_OK && mapping_at(c->in, v))
            st = gc_rangeset_add(&c->kernarg_ptrs, ka_addr + o, 8);
    }
    gc_free(buf);
    return st;
}

static gpucore_status_t plan_ring(struct gc_plan_ctx *c, struct queue_ctx *qc)
{
    const struct kfd_queue_snapshot_entry *q = qc->q;
    uint64_t rid, wid, n, count;
    uint8_t v[8];
    int r;

    if (q->ring_size == 0 || q->ring_size % 64) {
        gc_plan_warn(c, "queue %u: ring size %u is not a whole number of 64-byte packets", qc->qid,
                     q->ring_size);
        return GPUCORE_OK;
    }
    GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), q->ring_base_address, q->ring_size,
                        GPUCORE_ALLOC_RING, q->gpu_id, "AQL ring, queue %u", qc->qid));
    if (q->queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL || !qc->have_amdq)
        return GPUCORE_OK;
    char what[96];

    snprintf(what, sizeof(what), "queue %u: read_dispatch_id", qc->qid);
    r = gc_plan_read(c, q->read_pointer_address, v, 8, NULL, what);
    if (r <= 0)
        return r < 0 ? c->fatal : GPUCORE_OK;
    rid = gc_le64_get(v);
    snprintf(what, sizeof(what), "queue %u: write_dispatch_id", qc->qid);
    r = gc_plan_read(c, q->write_pointer_address, v, 8, NULL, what);
    if (r <= 0)
        return r < 0 ? c->fatal : GPUCORE_OK;
    wid = gc_le64_get(v);
    n = q->ring_size / 64;
    if (wid < rid) {
        gc_plan_warn(c,
                     "queue %u: write_dispatch_id %" PRIu64 " is below read_dispatch_id %" PRIu64,
                     qc->qid, wid, rid);
        return GPUCORE_OK;
    }
    count = wid - rid;
    if (count > n || count > GC_PLAN_MAX_PACKETS) {
        uint64_t keep = n < GC_PLAN_MAX_PACKETS ? n : GC_PLAN_MAX_PACKETS;

        gc_plan_warn(c,
                     "queue %u: %" PRIu64 " active packets in a ring of %" PRIu64
                     "; looking at the last %" PRIu64,
                     qc->qid, count, n, keep);
        rid = wid - keep;
    }
    for (uint64_t id = rid; id < wid; id++) {
        uint8_t pkt[64];
        uint64_t at = q->ring_base_address + (id % n) * 64;

        snprintf(what, sizeof(what), "queue %u: AQL packet %" PRIu64, qc->qid, id);
        r = gc_plan_read(c, at, pkt, sizeof(pkt), NULL, what);
        if (r < 0)
            return c->fatal;
        if (r == 0 || (gc_le16_get(pkt) & 0xffu) != AQL_TYPE_KERNEL_DISPATCH)
            continue;
        c->p->dispatches++;
        GC_TRY(plan_kernarg(c, qc, id, gc_le64_get(pkt + 32), gc_le64_get(pkt + 40)));
    }
    return GPUCORE_OK;
}

static gpucore_status_t plan_amd_queue(struct gc_plan_ctx *c, struct queue_ctx *qc)
{
    const struct kfd_queue_snapshot_entry *q = qc->q;
    uint8_t raw[GC_ROCR_AMDQ_SIZE];
    struct gc_rocr_amd_queue aq;
    uint64_t base;
    int r;

    if (!gc_rocr_amd_queue_at(q->read_pointer_address, &base)) {
        gc_plan_warn(c, "queue %u: read pointer 0x%" PRIx64 " cannot be inside an amd_queue_t",
                     qc->qid, q->read_pointer_address);
        return GPUCORE_OK;
    }
    GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), base, GC_ROCR_AMDQ_SIZE, GPUCORE_ALLOC_RING, q->gpu_id,
                        "amd_queue_t, queue %u", qc->qid));
    char what[64];

    snprintf(what, sizeof(what), "queue %u: amd_queue_t", qc->qid);
    r = gc_plan_read(c, base, raw, sizeof(raw), NULL, what);
    if (r <= 0)
        return r < 0 ? c->fatal : GPUCORE_OK;
    GC_TRY(gc_rocr_amd_queue_decode(raw, sizeof(raw), &aq));
    qc->have_amdq = 1;
    qc->tmpring = aq.compute_tmpring_size;
    qc->scratch_loc = aq.scratch_location;
    /* ROCr r_version 11 removed scratch_backing_memory_byte_size (docs/core-format.md 8.5) */
    if (gc_rocr_amd_queue_has_stride(c->r_version)) {
        qc->scratch_stride = aq.scratch_byte_size;
        qc->have_stride = 1;
    }
    return GPUCORE_OK;
}

/* ---- CWSR areas: header, used parts, debug area, waves, scratch ------------------------------ */

/* Faulting: the stop reasons of an error, not of a debugger event. */
#define FAULT_REASONS                                                                          \
    (GC_STOP_FP_INPUT_DENORMAL | GC_STOP_FP_DIVIDE_BY_0 | GC_STOP_FP_OVERFLOW |                \
     GC_STOP_FP_UNDERFLOW | GC_STOP_FP_INEXACT | GC_STOP_FP_INVALID_OPERATION |                \
     GC_STOP_INT_DIVIDE_BY_0 | GC_STOP_ASSERT_TRAP | GC_STOP_TRAP | GC_STOP_MEMORY_VIOLATION | \
     GC_STOP_ADDRESS_ERROR | GC_STOP_ILLEGAL_INSTRUCTION | GC_STOP_ECC_ERROR | GC_STOP_FATAL_HALT)

/* Registers of a faulting wave that point into GPU memory: SGPR pairs, VGPR pairs of active
 * lanes. */
static gpucore_status_t reference_wave(struct gc_plan_ctx *c, const struct gc_arch *arch,
                                       const struct gc_wave *w)
{
    uint64_t exec = gc_wave_exec_mask(arch, w);
    gpucore_status_t st = GPUCORE_OK;

    for (uint32_t i = 0; st == GPUCORE_OK && i + 1 < w->sgprs; i += 2)
        st = reference(c, gc_wave_sgpr(w, i) | (uint64_t)gc_wave_sgpr(w, i + 1) << 32,
                       "SGPR pair of a faulting wave");
    for (uint32_t lane = 0; st == GPUCORE_OK && lane < w->lanes && lane < 64; lane++) {
        if (!(exec >> lane & 1))
            continue;
        for (uint32_t i = 0; st == GPUCORE_OK && i + 1 < w->vgprs; i += 2)
            st = reference(c,
                           gc_wave_vgpr(w, i, lane) | (uint64_t)gc_wave_vgpr(w, i + 1, lane) << 32,
                           "VGPR pair of a faulting wave");
    }
    return st;
}

static uint32_t se_count_of(const struct kfd_dbg_device_info_entry *dev)
{
    /* shader_engine_count / xcc_count = array_count / simd_arrays_per_engine, as ROCdbgapi */
    if (!dev->simd_arrays_per_engine || !dev->array_count ||
        dev->array_count % dev->simd_arrays_per_engine)
        return 0;
    return dev->array_count / dev->simd_arrays_per_engine;
}

static gpucore_status_t plan_scratch(struct gc_plan_ctx *c, struct queue_ctx *qc, uint32_t xcc,
                                     const struct gc_wave *w, int *whole_done)
{
    const struct gc_arch *arch = qc->arch;
    uint64_t base, off = 0, size = 0;
    uint32_t se = se_count_of(qc->dev);

    if (!qc->have_amdq || !qc->scratch_loc)
        return GPUCORE_OK;
    if (xcc > 0 && !qc->have_stride) {
        if (!*whole_done)
            gc_plan_warn(c,
                         "queue %u, XCC %u: the runtime (r_version %u) does not record the "
                         "per-XCC scratch stride; scratch of this XCC not captured",
                         qc->qid, xcc, c->r_version);
        *whole_done = 1;
        return GPUCORE_OK;
    }
    if (qc->have_stride && xcc && qc->scratch_stride > (UINT64_MAX - qc->scratch_loc) / xcc)
        return GPUCORE_OK;
    base = qc->scratch_loc + (qc->have_stride ? qc->scratch_stride * xcc : 0);
    if (!se) {
        /* cannot place the slot: the XCC's whole used scratch, once */
        if (*whole_done)
            return GPUCORE_OK;
        *whole_done = 1;
        uint64_t waves = gc_bf_get(qc->tmpring, arch->hwreg->scratch.waves);
        uint64_t wsize = (uint64_t)gc_bf_get(qc->tmpring, arch->hwreg->scratch.wavesize) *
                         arch->hwreg->scratch.wavesize_unit;
        gc_plan_warn(c,
                     "queue %u, XCC %u: shader engine count unknown (array_count %u, "
                     "simd_arrays_per_engine %u); capturing the whole used scratch",
                     qc->qid, xcc, qc->dev->array_count, qc->dev->simd_arrays_per_engine);
        if (waves * wsize > GC_PLAN_MAX_SCRATCH_WHOLE) {
            gc_plan_warn(c,
                         "queue %u, XCC %u: used scratch of 0x%" PRIx64 " bytes is too "
                         "large; not captured",
                         qc->qid, xcc, waves * wsize);
            return GPUCORE_OK;
        }
        return gc_plan_want(c, GPUCORE_TIER_SCRATCH, base, waves * wsize, GPUCORE_ALLOC_SCRATCH,
                            qc->q->gpu_id, "scratch, queue %u XCC %u", qc->qid, xcc);
    }
    gpucore_status_t st =
            gc_scratch_slot(arch, qc->tmpring, w->se_id, w->scratch_id, se, &off, &size);
    if (st == GPUCORE_E_UNAVAILABLE) {
        if (!*whole_done)
            gc_plan_warn(c,
                         "queue %u, XCC %u: tmpring waves not a multiple of %u shader "
                         "engines; AMD's library disables private memory, not captured",
                         qc->qid, xcc, se);
        *whole_done = 1;
        return GPUCORE_OK;
    }
    if (st != GPUCORE_OK || size == 0 || off > UINT64_MAX - base)
        return GPUCORE_OK;
    return gc_plan_want(c, GPUCORE_TIER_SCRATCH, base + off, size, GPUCORE_ALLOC_SCRATCH,
                        qc->q->gpu_id, "scratch slot, queue %u XCC %u wave %u", qc->qid, xcc,
                        w->index);
}

static gpucore_status_t decode_waves(struct gc_plan_ctx *c, struct queue_ctx *qc, uint32_t xcc,
                                     uint64_t base, const struct gc_cwsr_header *h)
{
    struct gc_cwsr_decoded dec;
    gpucore_diag_t d = { 0 };
    uint8_t *ctl = NULL, *wav = NULL;
    gpucore_status_t st = GPUCORE_OK;
    int r, whole_done = 0;

    if (h->control_stack_size == 0)
        return GPUCORE_OK; /* no waves */
    if ((uint64_t)h->control_stack_size + h->wave_state_size > GC_PLAN_MAX_CWSR_READ) {
        gc_plan_warn(c,
                     "queue %u, XCC %u: 0x%" PRIx64 " bytes of saved waves are too many to "
                     "decode",
                     qc->qid, xcc, (uint64_t)h->control_stack_size + h->wave_state_size);
        return GPUCORE_OK;
    }
    ctl = gc_malloc(h->control_stack_size);
    wav = gc_malloc(h->wave_state_size ? h->wave_state_size : 1);
    if (!ctl || !wav) {
        st = GPUCORE_E_NOMEM;
        goto out;
    }
    char what[64];

    snprintf(what, sizeof(what), "queue %u, XCC %u: CWSR control stack", qc->qid, xcc);
    r = gc_plan_read(c, base + h->control_stack_offset, ctl, h->control_stack_size, NULL, what);
    snprintf(what, sizeof(what), "queue %u, XCC %u: CWSR wave area", qc->qid, xcc);
    if (r > 0)
        r = gc_plan_read(c, base + h->wave_state_offset - h->wave_state_size, wav,
                         h->wave_state_size, NULL, what);
    if (r <= 0) {
        st = r < 0 ? c->fatal : GPUCORE_OK;
        goto out;
    }
    st = gc_cwsr_decode(qc->arch, h, ctl, h->control_stack_size, wav, h->wave_state_size, &dec, &d);
    if (st == GPUCORE_E_NOMEM)
        goto out;
    if (st != GPUCORE_OK) {
        gc_plan_warn(c, "queue %u, XCC %u: saved waves at 0x%" PRIx64 " do not decode: %s", qc->qid,
                     xcc, base, d.message);
        st = GPUCORE_OK;
        goto out;
    }
    for (uint32_t i = 0; st == GPUCORE_OK && i < dec.wave_count; i++) {
        const struct gc_wave *w = &dec.waves[i];

        c->p->waves++;
        if (gc_wave_trap_stopped(qc->arch, w))
            c->p->stopped_waves++;
        if (gc_wave_stop_reasons(qc->arch, w) & FAULT_REASONS) {
            c->p->faulting_waves++;
            st = reference_wave(c, qc->arch, w);
        }
        if (st == GPUCORE_OK && w->scratch_en)
            st = plan_scratch(c, qc, xcc, w, &whole_done);
    }
    gc_cwsr_decoded_done(&dec);
out:
    gc_free(ctl);
    gc_free(wav);
    return st;
}

static gpucore_status_t plan_cwsr(struct gc_plan_ctx *c, struct queue_ctx *qc)
{
    const struct kfd_queue_snapshot_entry *q = qc->q;
    uint64_t area = q->ctx_save_restore_area_size;
    uint32_t nxcc = qc->dev->num_xcc;
    struct gc_cwsr_header h0 = { 0 };
    int have_h0 = 0;

    if (!q->ctx_save_restore_address || !area) {
        gc_plan_warn(c, "queue %u: no context save area", qc->qid);
        return GPUCORE_OK;
    }
    if (nxcc == 0 || nxcc > GC_PLAN_MAX_XCC) {
        gc_plan_warn(c, "queue %u: device says %u XCCs; looking at XCC 0 only", qc->qid, nxcc);
        nxcc = 1;
    }
    if (area * (nxcc + 1) > UINT64_MAX - q->ctx_save_restore_address) {
        gc_plan_warn(c,
                     "queue %u: context save area at 0x%" PRIx64 " runs past the end of the "
                     "address space",
                     qc->qid, q->ctx_save_restore_address);
        return GPUCORE_OK;
    }
    for (uint32_t x = 0; x < nxcc; x++) {
        uint64_t base = q->ctx_save_restore_address + x * area;
        uint8_t raw[GC_CWSR_HEADER_SIZE];
        struct gc_cwsr_header h;
        int r;

        char what[64];

        snprintf(what, sizeof(what), "queue %u, XCC %u: CWSR header", qc->qid, x);
        r = gc_plan_read(c, base, raw, sizeof(raw), NULL, what);
        if (r < 0)
            return c->fatal;
        if (r == 0 || gc_cwsr_header_decode(raw, sizeof(raw), &h) != GPUCORE_OK) {
            gc_plan_warn(c,
                         "queue %u, XCC %u: capturing the whole save area of 0x%" PRIx64 " bytes",
                         qc->qid, x, area);
            GC_TRY(gc_plan_want(c, GC_PLAN_STATE(1), base, area, GPUCORE_ALLOC_CWSR, q->gpu_id,
                                "CWSR area, queue %u XCC %u", qc->qid, x));
            continue;
        }
        if (x == 0) {
            h0 = h;
            have_h0 = 1;
        }
        /* the rule ingest applies to a stream too (gc_cwsr_used_parts) */
        struct gc_cwsr_used used;
        const char *why = "";

        if (gc_cwsr_used_parts(&h, area, &used, &why) != GPUCORE_OK) {
            gc_plan_warn(c,
                         "queue %u, XCC %u: CWSR header at 0x%" PRIx64 " is inconsistent: %s "
                         "(control stack 0x%x+0x%x, wave area 0x%x-0x%x, area 0x%" PRIx64
                         "); capturing the whole area",
                         qc->qid, x, base, why, h.control_stack_offset, h.control_stack_size,
                         h.wave_state_offset, h.wave_state_size, area);
            GC_TRY(gc_plan_want(c, GC_PLAN_STATE(1), base, area, GPUCORE_ALLOC_CWSR, q->gpu_id,
                                "CWSR area, queue %u XCC %u", qc->qid, x));
            continue;
        }
        GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), base, GC_CWSR_HEADER_SIZE, GPUCORE_ALLOC_CWSR,
                            q->gpu_id, "CWSR header, queue %u XCC %u", qc->qid, x));
        GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), base + used.ctl_offset, used.ctl_size,
                            GPUCORE_ALLOC_CWSR, q->gpu_id, "CWSR control stack, queue %u XCC %u",
                            qc->qid, x));
        GC_TRY(gc_plan_want(c, GC_PLAN_STATE(1), base + used.wave_offset, used.wave_size,
                            GPUCORE_ALLOC_CWSR, q->gpu_id, "CWSR wave area, queue %u XCC %u",
                            qc->qid, x));
        if (!qc->arch) {
            /* nothing can check the used parts against the layout: keep the whole area */
            if (x == 0)
                gc_plan_warn(c,
                             "queue %u: gfx_target_version %u is not a known target; its "
                             "waves are not decoded and its save areas are captured whole",
                             qc->qid, qc->dev->gfx_target_version);
            GC_TRY(gc_plan_want(c, GC_PLAN_STATE(1), base, area, GPUCORE_ALLOC_CWSR, q->gpu_id,
                                "CWSR area, queue %u XCC %u", qc->qid, x));
            continue;
        }
        GC_TRY(decode_waves(c, qc, x, base, &h));
    }

    /* the debugger area after the XCC areas: debug_memory_size per XCC (docs/cwsr-layout.md 2) */
    struct gc_cwsr_sizes sz;
    uint64_t dbase = q->ctx_save_restore_address + (uint64_t)nxcc * area, dsize = 0;

    if (qc->arch &&
        gc_cwsr_compute_sizes(qc->arch, qc->dev->simd_count, qc->dev->array_count,
                              qc->dev->simd_arrays_per_engine, nxcc, &sz) == GPUCORE_OK &&
        sz.cwsr_size == area) {
        dsize = (uint64_t)sz.debug_memory_size * nxcc;
    } else if (have_h0 && h0.debug_size) {
        /* what libhsakmt wrote in the header, seen from XCC 0 */
        dbase = q->ctx_save_restore_address + h0.debug_offset;
        dsize = h0.debug_size;
    }
    if (dsize > GC_PLAN_MAX_DEBUG_AREA) {
        gc_plan_warn(c,
                     "queue %u: debugger area of 0x%" PRIx64 " bytes is implausible; not "
                     "captured",
                     qc->qid, dsize);
        dsize = 0;
    }
    if (dsize && dsize <= UINT64_MAX - dbase)
        GC_TRY(gc_plan_want(c, GPUCORE_TIER_STATE, dbase, dsize, GPUCORE_ALLOC_CWSR, q->gpu_id,
                            "CWSR debugger area, queue %u", qc->qid));
    return GPUCORE_OK;
}

static gpucore_status_t plan_queue(struct gc_plan_ctx *c, uint32_t i)
{
    const struct gc_plan_input *in = c->in;
    struct queue_ctx qc = { .q = &in->queues[i], .index = i };

    qc.qid = qc.q->queue_id & GC_KFD_QUEUE_ID_MASK;
    for (uint32_t k = 0; k < in->ndevices; k++)
        if (in->devices[k].gpu_id == qc.q->gpu_id)
            qc.dev = &in->devices[k];
    if (!qc.dev) /* validated by gc_plan_build before any queue is planned */
        return gc_diag_set(c->diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "queue %u names gpu_id 0x%x, which no device has", qc.qid,
                           qc.q->gpu_id);
    qc.arch = gc_arch_by_gfx_version(qc.dev->gfx_target_version);
    GC_TRY(plan_amd_queue(c, &qc));
    GC_TRY(plan_ring(c, &qc));
    return plan_cwsr(c, &qc);
}

/* ---- tiers, allocation map, the whole plan --------------------------------------------------- */

static gpucore_status_t build_alloc_map(struct gc_plan_ctx *c)
{
    const struct gc_plan_input *in = c->in;
    gpucore_alloc_map_t *am = &c->p->alloc_map;

    am->allocs = gc_calloc_array(in->nmaps + 1u, sizeof(*am->allocs));
    if (!am->allocs)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < in->nmaps; i++) {
        const struct gc_kfd_mapping *m = &in->maps[i];
        gpucore_alloc_t *a = &am->allocs[am->count++];
        size_t len = strnlen(m->label, sizeof(m->label));

        a->base = m->base;
        a->size = m->size;
        a->kind = alloc_kind(m->kind);
        a->gpu_id = m->gpu_id;
        if (len) {
            char *s = gc_malloc(len + 1);

            if (!s)
                return GPUCORE_E_NOMEM;
            memcpy(s, m->label, len);
            s[len] = '\0';
            gc_utf8_scrub(s, len);
            a->label.ptr = s;
            a->label.len = (uint32_t)len;
        }
        if (!(m->flags & GC_KFD_MAP_NO_READ))
            GC_TRY(gc_plan_want(c, GPUCORE_TIER_ALL, m->base, m->size, a->kind, m->gpu_id, "%s",
                                len ? a->label.ptr : "GPU mapping"));
    }
    return GPUCORE_OK;
}

static gpucore_status_t finish_tiers(struct gc_plan_ctx *c)
{
    struct gc_rangeset held = GC_RANGESET_INIT;
    gpucore_status_t st = GPUCORE_OK;

    for (uint32_t t = 0; st == GPUCORE_OK && t < GC_PLAN_TIERS; t++) {
        c->p->tier[t] = c->want[t];
        c->want[t] = (struct gc_rangeset)GC_RANGESET_INIT;
        st = gc_rangeset_subtract(&c->p->tier[t], &held);
        if (st == GPUCORE_OK) /* never ask the pipeline to read a doorbell or MMIO page */
            st = gc_rangeset_subtract(&c->p->tier[t], &c->noread);
        if (st == GPUCORE_OK && t + 1 < GC_PLAN_TIERS)
            st = gc_rangeset_union(&held, &c->p->tier[t]);
    }
    /* The state tier by rank: rank r holds what it wants of the tier, minus lower ranks
       (a 64-byte line two ranks want goes with the more needed); the last rank the rest. */
    gc_rangeset_clear(&held);
    for (uint32_t r = 0; st == GPUCORE_OK && r < GC_PLAN_STATE_RANKS; r++) {
        struct gc_rangeset *out = &c->p->state_rank[r];

        st = gc_rangeset_union(out, &c->p->tier[GPUCORE_TIER_STATE]);
        if (st == GPUCORE_OK && r + 1 < GC_PLAN_STATE_RANKS) {
            /* out = tier ∩ want = tier − (tier − want) */
            struct gc_rangeset outside = GC_RANGESET_INIT;

            st = gc_rangeset_union(&outside, out);
            if (st == GPUCORE_OK)
                st = gc_rangeset_subtract(&outside, &c->want_rank[r]);
            if (st == GPUCORE_OK)
                st = gc_rangeset_subtract(out, &outside);
            gc_rangeset_free(&outside);
        }
        if (st == GPUCORE_OK)
            st = gc_rangeset_subtract(out, &held);
        if (st == GPUCORE_OK)
            st = gc_rangeset_union(&held, out);
    }
    gc_rangeset_free(&held);
    return st;
}

/*
 * p->kernarg_values: the kernarg segments' 64-byte lines in the state tier, minus the lines of
 * other state items (a kernel descriptor sharing a line is kept for its own sake), minus the
 * pointer values. Capture has no argument metadata (that needs the code object's MessagePack
 * note, which analyze decodes), so a value counts as a pointer by what it holds: an address
 * inside one of the process's GPU mappings.
 */
static gpucore_status_t plan_kernarg_values(struct gc_plan_ctx *c)
{
    struct gc_rangeset *v = &c->p->kernarg_values, outside = GC_RANGESET_INIT;
    gpucore_status_t st = GPUCORE_OK;

    for (uint32_t i = 0; st == GPUCORE_OK && i < c->kernarg_lines.count; i++) {
        const struct gc_range *r = &c->kernarg_lines.r[i];
        uint64_t lo = r->start & ~63ull;
        uint64_t hi = r->end > UINT64_MAX - 63 || r->end == 0 ? UINT64_MAX : (r->end + 63) & ~63ull;

        st = gc_rangeset_add(v, lo, hi - lo);
    }
    /* v ∩ tier[STATE] = v − (v − tier) */
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&outside, v);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&outside, &c->p->tier[GPUCORE_TIER_STATE]);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(v, &outside);
    for (uint32_t i = 0; st == GPUCORE_OK && i < c->p->nitems; i++) {
        const struct gc_plan_item *it = &c->p->items[i];

        if (it->tier == GPUCORE_TIER_STATE && it->kind != GPUCORE_ALLOC_KERNARG)
            st = gc_rangeset_remove(v, it->addr, it->size);
    }
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(v, &c->kernarg_ptrs);
    gc_rangeset_free(&outside);
    return st;
}

static int item_cmp(const void *a, const void *b)
{
    const struct gc_plan_item *x = a, *y = b;

    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->tier < y->tier ? -1 : x->tier > y->tier;
}

static gpucore_status_t check_input(const struct gc_plan_input *in, gpucore_diag_t *diag)
{
    GC_FAIL_IF(!in->mem.read, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "plan: no read function");
    GC_FAIL_IF((in->ndevices && !in->devices) || (in->nqueues && !in->queues) ||
                       (in->nmaps && !in->maps) || (in->nexceptions && !in->exceptions),
               diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "plan: a non-zero count with a NULL array");
    GC_FAIL_IF(in->ndevices > GC_PLAN_MAX_DEVICES || in->nqueues > GC_PLAN_MAX_QUEUES, diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET,
               "plan: %u devices and %u queues exceed the "
               "limits (%u, %u)",
               in->ndevices, in->nqueues, GC_PLAN_MAX_DEVICES, GC_PLAN_MAX_QUEUES);
    for (uint32_t i = 0; i < in->nqueues; i++) {
        uint32_t k = 0;

        while (k < in->ndevices && in->devices[k].gpu_id != in->queues[i].gpu_id)
            k++;
        GC_FAIL_IF(k == in->ndevices, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "queue snapshot entry %u (queue %u) names gpu_id 0x%x, which no device "
                   "snapshot entry has",
                   i, in->queues[i].queue_id & GC_KFD_QUEUE_ID_MASK, in->queues[i].gpu_id);
    }
    for (uint32_t i = 0; i < in->nmaps; i++) {
        const struct gc_kfd_mapping *m = &in->maps[i];

        GC_FAIL_IF(m->size == 0 || m->size > UINT64_MAX - m->base, diag, GPUCORE_E_INVAL,
                   GC_NO_OFFSET, "GPU mapping %u at 0x%" PRIx64 ": bad size 0x%" PRIx64, i, m->base,
                   m->size);
        GC_FAIL_IF(i && m->base < in->maps[i - 1].base + in->maps[i - 1].size, diag,
                   GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "GPU mapping %u at 0x%" PRIx64 ": the "
                   "mappings are not sorted and disjoint",
                   i, m->base);
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_plan_build(const struct gc_plan_input *in, struct gc_plan **ret,
                               gpucore_diag_t *reterr_diag)
{
    struct gc_plan_ctx c;
    gpucore_status_t st;

    GC_FAIL_IF(!in || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "plan: NULL argument");
    GC_TRY(check_input(in, reterr_diag));
    memset(&c, 0, sizeof(c));
    c.in = in;
    c.diag = reterr_diag;
    c.window = in->window ? in->window : GC_PLAN_DEFAULT_WINDOW;
    c.embed_left = in->embed_limit ? in->embed_limit : GC_PLAN_DEFAULT_EMBED;
    for (uint32_t t = 0; t < GC_PLAN_TIERS; t++)
        c.want[t] = (struct gc_rangeset)GC_RANGESET_INIT;
    c.p = gc_calloc_array(1, sizeof(*c.p));
    if (!c.p)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "plan: out of memory");
    c.p->agents = in->ndevices;
    c.p->queues = in->nqueues;
    c.noread = (struct gc_rangeset)GC_RANGESET_INIT;
    c.kernarg_lines = (struct gc_rangeset)GC_RANGESET_INIT;
    c.kernarg_ptrs = (struct gc_rangeset)GC_RANGESET_INIT;

    st = GPUCORE_OK;
    for (uint32_t i = 0; st == GPUCORE_OK && i < in->nmaps; i++)
        if (in->maps[i].flags & GC_KFD_MAP_NO_READ)
            st = gc_rangeset_add(&c.noread, in->maps[i].base, in->maps[i].size);

    if (st == GPUCORE_OK)
        st = build_note(&c);
    if (st == GPUCORE_OK)
        st = gc_plan_runtime(&c); /* first: r_version decides the amd_queue_t layout */
    for (uint32_t i = 0; st == GPUCORE_OK && i < in->nqueues; i++)
        st = plan_queue(&c, i);
    for (uint32_t i = 0; st == GPUCORE_OK && i < in->nexceptions; i++)
        if (in->exceptions[i].fault_va)
            st = reference(&c, in->exceptions[i].fault_va, "fault address");
    if (st == GPUCORE_OK)
        st = build_alloc_map(&c);
    if (st == GPUCORE_OK && c.dropped_warnings) {
        uint32_t n = c.dropped_warnings;

        c.p->nwarnings--; /* make room: the last slot says how many were dropped */
        gc_free(c.p->warnings[c.p->nwarnings]);
        gc_plan_warn(&c, "%u more warnings not listed", n + 1);
    }
    if (st == GPUCORE_OK)
        st = finish_tiers(&c);
    if (st == GPUCORE_OK)
        st = plan_kernarg_values(&c);
    for (uint32_t t = 0; t < GC_PLAN_TIERS; t++)
        gc_rangeset_free(&c.want[t]);
    for (uint32_t r = 0; r < GC_PLAN_STATE_RANKS; r++)
        gc_rangeset_free(&c.want_rank[r]);
    gc_rangeset_free(&c.noread);
    gc_rangeset_free(&c.kernarg_lines);
    gc_rangeset_free(&c.kernarg_ptrs);
    if (st != GPUCORE_OK) {
        if (!c.diag_set)
            gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "plan: out of memory");
        gc_plan_free(c.p);
        return st;
    }
    if (c.p->nitems)
        qsort(c.p->items, c.p->nitems, sizeof(*c.p->items), item_cmp);
    *ret = c.p;
    return GPUCORE_OK;
}

void gc_plan_free(struct gc_plan *p)
{
    if (!p)
        return;
    gc_free(p->amdgpu_note);
    for (uint32_t t = 0; t < GC_PLAN_TIERS; t++)
        gc_rangeset_free(&p->tier[t]);
    for (uint32_t r = 0; r < GC_PLAN_STATE_RANKS; r++)
        gc_rangeset_free(&p->state_rank[r]);
    gc_rangeset_free(&p->kernarg_values);
    gc_free(p->items);
    for (uint32_t i = 0; i < p->code_objects.count; i++) {
        gc_free((void *)(uintptr_t)p->code_objects.objects[i].uri.ptr);
        gc_free((void *)(uintptr_t)p->code_objects.objects[i].bytes);
    }
    gc_free(p->code_objects.objects);
    for (uint32_t i = 0; i < p->alloc_map.count; i++)
        gc_free((void *)(uintptr_t)p->alloc_map.allocs[i].label.ptr);
    gc_free(p->alloc_map.allocs);
    for (uint32_t i = 0; i < p->nwarnings; i++)
        gc_free(p->warnings[i]);
    gc_free(p->warnings);
    gc_free(p);
}

const struct gc_plan_item *gc_plan_item_at(const struct gc_plan *p, uint64_t addr)
{
    const struct gc_plan_item *best = NULL;

    if (!p)
        return NULL;
    /* items are sorted by addr: only those starting at or below addr can contain it */
    for (uint32_t i = 0; i < p->nitems && p->items[i].addr <= addr; i++) {
        const struct gc_plan_item *it = &p->items[i];

        if (addr - it->addr < it->size && (!best || it->size < best->size))
            best = it;
    }
    return best;
}
