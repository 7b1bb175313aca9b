/* SPDX-License-Identifier: MIT */
/*
 * The command processor and the SDMA engines of the emulated GPU (emu_cp.h).
 *
 * AQL (HSA Platform System Architecture 1.2, and ROCr's amd_signal_t): packets are 64 bytes
 * in a ring of ring_size bytes; the queue's read and write indices are the amd_queue_t fields
 * whose addresses the runtime gave CREATE_QUEUE. A packet is taken when its header type is not
 * INVALID; a barrier waits until its dependencies reach 0. Completion decrements the
 * completion signal and, when the signal has an event mailbox, writes the event id there and
 * raises the event, as the CP's end-of-pipe interrupt does.
 *
 * SDMA (ROCr's sdma_registers.h, SDMA 4 to 6): a byte ring with 64-bit read and write
 * pointers in bytes. Copy, fill, fence, trap, atomic add, poll, timestamp, GCR and NOP.
 *
 * Kernels are not computed, except ROCr's own blit kernels (CopyAligned, CopyMisaligned,
 * Fill: ROCr 6.1's amd_blit_kernel.cpp), whose effect (a copy or a fill their kernel
 * arguments describe) is performed through the same memory path as SDMA's: the runtime copies
 * code object segments into VRAM and makes device-to-device copies and fills with them.
 */
#include "emu_cp.h"

#include <string.h>
#include <time.h>

#define AQL_PACKET 64u
#define AQL_TYPE_VENDOR 0u
#define AQL_TYPE_INVALID 1u
#define AQL_TYPE_KERNEL_DISPATCH 2u
#define AQL_TYPE_BARRIER_AND 3u
#define AQL_TYPE_AGENT_DISPATCH 4u
#define AQL_TYPE_BARRIER_OR 5u
#define AMD_FORMAT_BARRIER_VALUE 2u

/* amd_signal_t */
#define SIGNAL_VALUE 8u
#define SIGNAL_MAILBOX 16u
#define SIGNAL_EVENT_ID 24u

#define COPY_CHUNK (1u << 20)
#define PASS_BUDGET 4096u /* packets one pass may retire on one queue */

static int rd64(const struct gc_emu_vm *vm, uint64_t va, uint64_t *v)
{
    return gc_emu_vm_read(vm, va, v, sizeof(*v));
}

static int wr64(const struct gc_emu_vm *vm, uint64_t va, uint64_t v)
{
    return gc_emu_vm_write(vm, va, &v, sizeof(v));
}

/* ------------------------------------------------------------------------------------------ */
/* Memory as the GPU sees it                                                                   */
/* ------------------------------------------------------------------------------------------ */

static int vm_access(const struct gc_emu_vm *vm, uint64_t va, void *buf, size_t len, int write)
{
    uint8_t *b = buf;

    if (!len)
        return 0;
    if (!(write ? vm->cpu->write(vm->cpu->ctx, va, buf, len)
                : vm->cpu->read(vm->cpu->ctx, va, buf, len)))
        return 0;
    /* not mapped by the process as a whole: buffer by buffer, through the device files */
    while (len) {
        const struct gc_emu_mem *m = gc_emu_kfd_find_mem(vm->p, va);
        uint64_t in, n;
        int file;

        if (!m)
            return -1;
        in = va - m->va;
        n = m->size - in < len ? m->size - in : len;
        if (m->flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
            if (write ? vm->cpu->write(vm->cpu->ctx, va, b, n) : vm->cpu->read(vm->cpu->ctx, va, b, n))
                return -1;
        } else {
            file = m->flags & (KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)
                       ? GC_EMU_FILE_KFD : (int)m->dev;
            if (vm->file_rw(vm->file_ctx, file, m->offset + in, b, n, write))
                return -1;
        }
        va += n;
        b += n;
        len -= n;
    }
    return 0;
}

int gc_emu_vm_read(const struct gc_emu_vm *vm, uint64_t va, void *buf, size_t len)
{
    return vm_access(vm, va, buf, len, 0);
}

int gc_emu_vm_write(const struct gc_emu_vm *vm, uint64_t va, const void *buf, size_t len)
{
    return vm_access(vm, va, (void *)(uintptr_t)buf, len, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Signals and events                                                                          */
/* ------------------------------------------------------------------------------------------ */

static int signal_value(const struct gc_emu_vm *vm, uint64_t handle, int64_t *v)
{
    uint64_t u;

    if (rd64(vm, handle + SIGNAL_VALUE, &u))
        return -1;
    *v = (int64_t)u;
    return 0;
}

/* The end-of-pipe interrupt: the event id into the mailbox, then the event. */
static void raise_event(const struct gc_emu_vm *vm, uint64_t mailbox, uint32_t event_id,
                        struct gc_emu_cp_stats *st)
{
    if (mailbox)
        (void)wr64(vm, mailbox, event_id);
    if (gc_emu_kfd_signal(vm->p, event_id) == 0)
        st->events++;
}

/* Decrement a completion signal (handle 0: none) and raise its event. */
static void complete_signal(const struct gc_emu_vm *vm, uint64_t handle, struct gc_emu_cp_stats *st)
{
    uint64_t mailbox = 0;
    uint32_t event_id = 0;
    int64_t v;

    if (!handle || signal_value(vm, handle, &v))
        return;
    (void)wr64(vm, handle + SIGNAL_VALUE, (uint64_t)(v - 1));
    /* the end-of-pipe interrupt only for a signal with a mailbox (an interrupt signal) */
    if (rd64(vm, handle + SIGNAL_MAILBOX, &mailbox) || !mailbox ||
        gc_emu_vm_read(vm, handle + SIGNAL_EVENT_ID, &event_id, sizeof(event_id)))
        return;
    raise_event(vm, mailbox, event_id, st);
}

/* ------------------------------------------------------------------------------------------ */
/* Copies and fills, as the GPU's engines make them                                           */
/* ------------------------------------------------------------------------------------------ */

static int sdma_copy(const struct gc_emu_vm *vm, uint64_t dst, uint64_t src, uint64_t len)
{
    static uint8_t buf[COPY_CHUNK];

    while (len) {
        size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

        if (gc_emu_vm_read(vm, src, buf, n) || gc_emu_vm_write(vm, dst, buf, n))
            return -1;
        src += n;
        dst += n;
        len -= n;
    }
    return 0;
}

static int sdma_fill(const struct gc_emu_vm *vm, uint64_t dst, uint32_t value, uint64_t len)
{
    static uint32_t buf[COPY_CHUNK / 4];
    static uint32_t filled_with;
    static int filled;

    if (!filled || filled_with != value) {
        for (size_t i = 0; i < sizeof(buf) / 4; i++)
            buf[i] = value;
        filled_with = value;
        filled = 1;
    }
    while (len) {
        size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

        if (gc_emu_vm_write(vm, dst, buf, n))
            return -1;
        dst += n;
        len -= n;
    }
    return 0;
}

/*
 * ROCr's blit kernels. ROCr 6.1 does not load them from a code object: it takes precompiled
 * shaders (AssembleShader in amd_gpu_agent.cpp) and writes each into a system-memory buffer
 * behind a 256-byte amd_kernel_code_t that it zeroes and then fills with five fields only: the
 * code's entry offset (256), the kernarg pointer enable, the register granules of the
 * shader's declared SGPR and VGPR counts, the denorm and IEEE modes, and two user SGPRs with
 * the workgroup id X. The dispatch (PopulateQueue) is one-dimensional, 64 work-items per
 * group, its grid the kernel arguments' work-item count rounded up to 64. A kernel object
 * with all of that is taken for the blit kernel whose register counts it has.
 *
 * The kernel arguments (amd_blit_kernel.h's KernelArgs): a copy has per phase a (source,
 * destination) pair of start addresses, then the last phase's source and destination ends; a
 * fill has per phase a destination start, then the end, the 32-bit value. Phase N ends where
 * phase N+1 starts (the last: at the end); its destination advances with its source. A phase
 * whose end is not above its start copies nothing, as the kernel's loop compares first.
 */
#define AKC_SIZE 256u          /* amd_kernel_code_t */
#define AKC_ENTRY 16u          /* kernel_code_entry_byte_offset (int64) */
#define AKC_RSRC1 48u          /* compute_pgm_rsrc1 */
#define AKC_RSRC2 52u          /* compute_pgm_rsrc2 */
#define AKC_PROPERTIES 56u     /* kernel_code_properties */
#define AKC_PROP_KERNARG_PTR (1u << 3) /* ENABLE_SGPR_KERNARG_SEGMENT_PTR */
#define RSRC1_DENORM_16_64 (3u << 18)
#define RSRC1_IEEE_MODE (1u << 23)
#define RSRC2_USER_SGPRS(n) ((uint32_t)(n) << 1)
#define RSRC2_TGID_X (1u << 7)
#define BLIT_WORKGROUP 64u     /* PopulateQueue's workgroup_size_x */
#define BLIT_MAX_PHASES 4u     /* CopyAligned's four */
/* One dispatch's bytes at most: a hostile kernel argument can name 2^64 bytes, and the engines
   run in the emulator's one thread; 4 GiB is past any copy the loader or the tests make (the
   emulated VRAM is sparse tmpfs). A larger one is not performed (the stats count it). */
#define BLIT_MAX_BYTES (4ull << 30)

enum blit_kind { BLIT_COPY, BLIT_FILL };

static const struct blit_kernel {
    const char *name;     /* ROCr's */
    enum blit_kind kind;
    uint32_t sgprs, vgprs; /* as AssembleShader declares them */
    uint32_t phases;
    uint32_t args_size;   /* bytes of KernelArgs the kernel reads */
    uint32_t workitems;   /* offset of num_workitems in them */
} blit_kernels[] = {
    { "CopyAligned", BLIT_COPY, 32, 12, 4, 84, 80 },
    { "CopyMisaligned", BLIT_COPY, 23, 10, 2, 52, 48 },
    { "Fill", BLIT_FILL, 19, 8, 2, 32, 28 },
};

static uint32_t blit_rsrc1(const struct blit_kernel *k)
{
    uint32_t gran_sgprs = (k->sgprs - 1) / 8, gran_vgprs = (k->vgprs - 1) / 4;

    return gran_vgprs | gran_sgprs << 6 | RSRC1_DENORM_16_64 | RSRC1_IEEE_MODE;
}

static uint32_t get32(const uint8_t *b, size_t off)
{
    uint32_t v;

    memcpy(&v, b + off, sizeof(v));
    return v;
}

static uint64_t get64(const uint8_t *b, size_t off)
{
    uint64_t v;

    memcpy(&v, b + off, sizeof(v));
    return v;
}

/* The blit kernel ROCr's header at @p kernel_object names, or NULL. */
static const struct blit_kernel *blit_of(const struct gc_emu_vm *vm, uint64_t kernel_object)
{
    static const uint8_t zero[AKC_ENTRY];
    uint8_t h[AKC_PROPERTIES + 4];

    if (!kernel_object || gc_emu_vm_read(vm, kernel_object, h, sizeof(h)) ||
        memcmp(h, zero, sizeof(zero)) || get64(h, AKC_ENTRY) != AKC_SIZE ||
        get32(h, AKC_RSRC2) != (RSRC2_USER_SGPRS(2) | RSRC2_TGID_X) ||
        get32(h, AKC_PROPERTIES) != AKC_PROP_KERNARG_PTR)
        return NULL;
    for (size_t i = 0; i < sizeof(blit_kernels) / sizeof(blit_kernels[0]); i++)
        if (get32(h, AKC_RSRC1) == blit_rsrc1(&blit_kernels[i]))
            return &blit_kernels[i];
    return NULL;
}

/* Bytes from @p start to @p end: 0 when the end is not above the start. */
static uint64_t span(uint64_t start, uint64_t end)
{
    return end > start ? end - start : 0;
}

/* The phases of @p k's arguments @p a: their destinations, sources (copies) and lengths.
   Returns the total bytes, or UINT64_MAX past BLIT_MAX_BYTES. */
static uint64_t blit_phases(const struct blit_kernel *k, const uint8_t *a, uint64_t dst[],
                            uint64_t src[], uint64_t len[])
{
    uint64_t total = 0;

    for (uint32_t i = 0; i < k->phases; i++) {
        uint32_t stride = k->kind == BLIT_COPY ? 16u : 8u; /* (src, dst) pairs or dst starts */
        uint64_t next = get64(a, (size_t)stride * (i + 1)); /* the next start, or the end */

        src[i] = k->kind == BLIT_COPY ? get64(a, (size_t)stride * i) : 0;
        dst[i] = get64(a, (size_t)stride * i + (k->kind == BLIT_COPY ? 8u : 0u));
        len[i] = span(k->kind == BLIT_COPY ? src[i] : dst[i], next);
        if (k->kind == BLIT_FILL) /* store_dword per lane: whole dwords */
            len[i] = len[i] > BLIT_MAX_BYTES ? len[i] : (len[i] + 3u) & ~3ull;
        if (len[i] > BLIT_MAX_BYTES - total)
            return UINT64_MAX;
        total += len[i];
    }
    return total;
}

/* The effect of a dispatch of one of ROCr's blit kernels, if @p pkt is one. */
static void blit_dispatch(const struct gc_emu_vm *vm, const uint8_t *pkt,
                          struct gc_emu_cp_stats *st)
{
    const struct blit_kernel *k = blit_of(vm, get64(pkt, 32));
    uint64_t dst[BLIT_MAX_PHASES], src[BLIT_MAX_PHASES], len[BLIT_MAX_PHASES];
    uint8_t args[96];
    uint32_t grid;
    uint16_t workgroup;
    int bad = 0;

    if (!k)
        return;
    grid = get32(pkt, 12);
    memcpy(&workgroup, pkt + 4, sizeof(workgroup));
    if (k->args_size > sizeof(args) ||
        gc_emu_vm_read(vm, get64(pkt, 40), args, k->args_size) || workgroup != BLIT_WORKGROUP ||
        grid != ((get32(args, k->workitems) + BLIT_WORKGROUP - 1) & ~(BLIT_WORKGROUP - 1)) ||
        blit_phases(k, args, dst, src, len) == UINT64_MAX) {
        st->blits_refused++;
        return;
    }
    for (uint32_t i = 0; i < k->phases && !bad; i++)
        bad = k->kind == BLIT_COPY ? sdma_copy(vm, dst[i], src[i], len[i])
                                   : sdma_fill(vm, dst[i], get32(args, 24), len[i]);
    /* a byte in no buffer: the kernel would fault there; what came before it is written */
    if (bad)
        st->blits_refused++;
    else
        st->blits++;
}

/* ------------------------------------------------------------------------------------------ */
/* AQL                                                                                         */
/* ------------------------------------------------------------------------------------------ */

static int le64(const uint8_t *b, size_t off, uint64_t *v)
{
    memcpy(v, b + off, sizeof(*v));
    return 0;
}

/* A barrier's dependencies: 1 when satisfied, 0 not yet. */
static int barrier_ready(const struct gc_emu_vm *vm, const uint8_t *pkt, int any)
{
    int have = 0, zero = 0;

    for (int i = 0; i < 5; i++) {
        uint64_t dep;
        int64_t v;

        le64(pkt, 8 + 8u * (unsigned)i, &dep);
        if (!dep)
            continue;
        have++;
        if (signal_value(vm, dep, &v) == 0 && v == 0)
            zero++;
        /* an unreadable signal never completes: the hardware would fault; the queue waits */
    }
    if (!have)
        return 1;
    return any ? zero > 0 : zero == have;
}

static int barrier_value_ready(const struct gc_emu_vm *vm, const uint8_t *pkt)
{
    uint64_t sig, value, mask;
    uint32_t cond;
    int64_t v;

    le64(pkt, 8, &sig);
    le64(pkt, 16, &value);
    le64(pkt, 24, &mask);
    memcpy(&cond, pkt + 32, 4);
    if (!sig)
        return 1;
    if (signal_value(vm, sig, &v))
        return 0;
    v = (int64_t)((uint64_t)v & mask);
    switch (cond) { /* hsa_signal_condition_t */
    case 0: return v == (int64_t)value;
    case 1: return v != (int64_t)value;
    case 2: return v < (int64_t)value;
    case 3: return v >= (int64_t)value;
    default: return 1;
    }
}

/* Run one AQL queue. Returns 1 when it stopped on something not yet ready. */
static int run_aql(const struct gc_emu_vm *vm, struct gc_emu_queue *q, struct gc_emu_cp_stats *st)
{
    uint64_t wptr, slots = q->ring_size / AQL_PACKET;

    if (q->stopped || q->debug_suspended || slots == 0 || rd64(vm, q->wptr_addr, &wptr))
        return 0;
    for (uint32_t n = 0; n < PASS_BUDGET && q->read_index < wptr; n++) {
        uint8_t pkt[AQL_PACKET];
        uint64_t at = q->ring + (q->read_index % slots) * AQL_PACKET, completion;
        uint16_t header;
        unsigned type;

        if (gc_emu_vm_read(vm, at, pkt, sizeof(pkt)))
            return 1;
        memcpy(&header, pkt, 2);
        type = header & 0xffu;
        if (type == AQL_TYPE_INVALID)
            return 1; /* written, header not yet: the next pass */
        le64(pkt, 56, &completion);
        switch (type) {
        case AQL_TYPE_BARRIER_AND:
        case AQL_TYPE_BARRIER_OR:
            if (!barrier_ready(vm, pkt, type == AQL_TYPE_BARRIER_OR))
                return 1;
            break;
        case AQL_TYPE_VENDOR:
            if (pkt[2] == AMD_FORMAT_BARRIER_VALUE && !barrier_value_ready(vm, pkt))
                return 1;
            break;
        case AQL_TYPE_KERNEL_DISPATCH:
            /* runs to completion (its results are not computed) unless the plan says */
            if (vm->dispatch && vm->dispatch(vm->dispatch_ctx, q, pkt))
                return 1;
            blit_dispatch(vm, pkt, st);
            break;
        case AQL_TYPE_AGENT_DISPATCH:
        default:
            break;
        }
        complete_signal(vm, completion, st);
        q->read_index++;
        (void)wr64(vm, q->rptr_addr, q->read_index);
        st->packets++;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* SDMA                                                                                        */
/* ------------------------------------------------------------------------------------------ */

enum {
    SDMA_OP_NOP = 0, SDMA_OP_COPY = 1, SDMA_OP_FENCE = 5, SDMA_OP_TRAP = 6,
    SDMA_OP_POLL_REGMEM = 8, SDMA_OP_ATOMIC = 10, SDMA_OP_CONST_FILL = 11,
    SDMA_OP_TIMESTAMP = 13, SDMA_OP_GCR = 17,
};
#define SDMA_ATOMIC_ADD64 47u

static uint64_t addr64(const uint32_t *dw, int lo)
{
    return (uint64_t)dw[lo] | ((uint64_t)dw[lo + 1] << 32);
}

/* Dwords of each packet, by op (0: unknown). NOP's length is in its header. */
static unsigned sdma_len(unsigned op, unsigned sub_op)
{
    switch (op) {
    case SDMA_OP_COPY: return sub_op == 0 ? 7u : 0u;
    case SDMA_OP_FENCE: return 4;
    case SDMA_OP_TRAP: return 2;
    case SDMA_OP_POLL_REGMEM: return 6;
    case SDMA_OP_ATOMIC: return 8;
    case SDMA_OP_CONST_FILL: return 5;
    case SDMA_OP_TIMESTAMP: return 3;
    case SDMA_OP_GCR: return 5;
    default: return 0;
    }
}

/* Run one SDMA queue. Returns 1 when it stopped on a poll that is not yet satisfied. */
static int run_sdma(const struct gc_emu_vm *vm, struct gc_emu_queue *q, struct gc_emu_cp_stats *st)
{
    uint64_t rptr, wptr;

    if (q->stopped || q->debug_suspended || q->ring_size < 64 || rd64(vm, q->rptr_addr, &rptr) ||
        rd64(vm, q->wptr_addr, &wptr))
        return 0;
    for (uint32_t n = 0; n < PASS_BUDGET && rptr < wptr; n++) {
        uint32_t dw[8] = { 0 };
        unsigned op, sub_op, len;
        uint64_t at = q->ring + rptr % q->ring_size;

        if (gc_emu_vm_read(vm, at, &dw[0], 4))
            return 1;
        op = dw[0] & 0xffu;
        sub_op = (dw[0] >> 8) & 0xffu;
        len = op == SDMA_OP_NOP ? 1u + ((dw[0] >> 16) & 0x3fffu) : sdma_len(op, sub_op);
        if (!len) { /* a packet this engine does not know: the engine halts, as on an error */
            q->stopped = GC_EMU_QUEUE_ERROR;
            return 0;
        }
        if (op != SDMA_OP_NOP) {
            /* packets never wrap inside the ring (ROCr pads with NOPs) */
            if (rptr % q->ring_size + 4ull * len > q->ring_size ||
                gc_emu_vm_read(vm, at, dw, 4u * len))
                return 1;
        }
        switch (op) {
        case SDMA_OP_COPY:
            (void)sdma_copy(vm, addr64(dw, 5), addr64(dw, 3), (uint64_t)(dw[1] & 0x3fffffffu) + 1);
            break;
        case SDMA_OP_CONST_FILL:
            (void)sdma_fill(vm, addr64(dw, 1), dw[3],
                            (uint64_t)(dw[4] & 0x3fffffu) + (1u << (dw[0] >> 30)));
            break;
        case SDMA_OP_FENCE:
            (void)gc_emu_vm_write(vm, addr64(dw, 1), &dw[3], 4);
            break;
        case SDMA_OP_TRAP:
            raise_event(vm, 0, dw[1] & 0x0fffffffu, st);
            break;
        case SDMA_OP_ATOMIC:
            if ((dw[0] >> 25) == SDMA_ATOMIC_ADD64) {
                uint64_t v;

                if (rd64(vm, addr64(dw, 1), &v) == 0)
                    (void)wr64(vm, addr64(dw, 1), v + addr64(dw, 3));
            }
            break;
        case SDMA_OP_POLL_REGMEM:
            if (dw[0] >> 31) { /* memory poll; register polls (HDP flush) pass */
                uint32_t v, mask = dw[4], ref = dw[3];
                unsigned func = (dw[0] >> 28) & 7u;
                int ok;

                if (gc_emu_vm_read(vm, addr64(dw, 1), &v, 4))
                    return 1;
                v &= mask;
                switch (func) {
                case 0: ok = 1; break;
                case 1: ok = v < ref; break;
                case 2: ok = v <= ref; break;
                case 3: ok = v == ref; break;
                case 4: ok = v != ref; break;
                case 5: ok = v >= ref; break;
                case 6: ok = v > ref; break;
                default: ok = 1; break;
                }
                if (!ok)
                    return 1;
            }
            break;
        case SDMA_OP_TIMESTAMP: {
            struct timespec ts;
            uint64_t t;

            clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
            t = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) / 10;
            (void)wr64(vm, addr64(dw, 1), t);
            break;
        }
        default:
            break;
        }
        rptr += 4ull * len;
        (void)wr64(vm, q->rptr_addr, rptr);
        st->sdma_packets++;
    }
    return 0;
}

void gc_emu_cp_run(const struct gc_emu_vm *vm, struct gc_emu_cp_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (uint32_t i = 0; i < vm->p->nqueues; i++) {
        struct gc_emu_queue *q = &vm->p->queues[i];
        int waiting = q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL ? run_aql(vm, q, st)
                                                                : run_sdma(vm, q, st);
        st->stalled += (uint32_t)waiting;
    }
}
