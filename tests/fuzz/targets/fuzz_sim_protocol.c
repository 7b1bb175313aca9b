/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the simulated driver's server side: the request decoder and every op handler
 * behind it, fed as a hostile client would (G-FUZZ-2). The driver must survive anything a
 * process that can connect to its socket sends.
 *
 * Input: after the flags byte, a sequence of messages, each a 2-byte little-endian length followed
 * by that many bytes (a short tail is one last message). Byte 0 of the input, before the first
 * message, holds flags: bit 0 enables a debug session (as the ptrace parent, with an event pipe)
 * before the sequence, bit 1 makes the messages come from a stranger (not the ptrace parent), bit 2
 * advances the clock so every scheduled exception is raised. A DBG_TRAP pid of 0 is replaced by
 * this process's pid.
 *
 * Invariants (abort() on violation):
 *  - a response, when there is one, decodes, has the request's type and is no longer than
 *    GC_SIM_MAX_MESSAGE; a failed op returns no output bytes;
 *  - an op that succeeds never reports more output than the caller's capacity allows;
 *  - the save areas are written only inside their first 40 + control-stack bytes;
 *  - DEVICE_INFO lists exactly the driver's allocations from the asked index, byte for byte;
 *  - the runtime callback gets each exception at most once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "driver.h"
#include "gc_le.h"
#include "kfd_sim_protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AREA 4096u
static uint8_t area[2][AREA + 64];
static uint8_t resp[GC_SIM_MAX_MESSAGE];
static uint8_t canary[512];

#define NALLOCS 3u
static struct gc_sim_alloc allocs[NALLOCS];
static unsigned delivered[64];

static void on_runtime(void *user, const struct gc_sim_runtime_error *e)
{
    (void)user;
    /* One exception of each code in make(): a second delivery is a driver bug. */
    unsigned slot = e->code & 63u;
    if (delivered[slot]++)
        abort();
}

static struct gc_sim_driver *make(void)
{
    static const uint8_t ctl[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct kfd_dbg_device_info_entry ag;
    memset(&ag, 0, sizeof(ag));
    ag.gpu_id = 7;
    ag.gfx_target_version = 90010;
    ag.num_xcc = 1;
    struct gc_sim_xcc x[2];
    memset(x, 0, sizeof(x));
    for (unsigned i = 0; i < 2; i++) {
        x[i].base = (uint64_t)(uintptr_t)area[i];
        x[i].header.control_stack_offset = 0x100;
        x[i].header.control_stack_size = 8;
        x[i].header.wave_state_offset = 0x200;
    }
    x[0].saved = ctl;
    x[0].saved_len = sizeof(ctl);
    struct gc_sim_queue q[2];
    memset(q, 0, sizeof(q));
    for (unsigned i = 0; i < 2; i++) {
        q[i].entry.queue_id = i;
        q[i].entry.gpu_id = 7;
        q[i].num_xcc = 1;
        q[i].xcc = &x[i];
    }
    q[1].fail_resume = 1;
    struct gc_sim_exception ex[3];
    memset(ex, 0, sizeof(ex));
    ex[0].code = EC_QUEUE_WAVE_ABORT;
    ex[0].gpu_id = 7;
    ex[0].queue_id = 1;
    ex[1].code = EC_DEVICE_MEMORY_VIOLATION;
    ex[1].gpu_id = 7;
    ex[1].queue_id = KFD_INVALID_QUEUEID;
    ex[1].delay_ms = 5;
    ex[2].code = EC_PROCESS_DEVICE_REMOVE;
    ex[2].gpu_id = KFD_INVALID_GPUID;
    ex[2].queue_id = KFD_INVALID_QUEUEID;
    ex[2].delay_ms = 10;
    struct gc_sim_fault f;
    memset(&f, 0, sizeof(f));
    f.op = KFD_IOC_DBG_TRAP_SET_FLAGS;
    f.err = EIO;
    f.nth = 2;
    struct gc_sim_process p;
    memset(&p, 0, sizeof(p));
    p.rinfo.runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
    p.num_agents = 1;
    p.agents = &ag;
    p.num_queues = 2;
    p.queues = q;
    p.num_exceptions = 3;
    p.exceptions = ex;
    p.num_faults = 1;
    p.faults = &f;
    for (unsigned i = 0; i < NALLOCS; i++) {
        memset(&allocs[i], 0, sizeof(allocs[i]));
        allocs[i].base = 0x100000ull * (i + 1);
        allocs[i].size = 0x1000ull << i;
        allocs[i].kind = 1 + i;
        allocs[i].gpu_id = 7;
        memset(allocs[i].label, 'x', sizeof(allocs[i].label)); /* no NUL: the driver adds one */
    }
    p.num_allocs = NALLOCS;
    p.allocs = allocs;
    p.read_delay_us_per_mib = 3;
    p.runtime_error = on_runtime;
    struct gc_sim_driver *d = NULL;
    if (gc_sim_driver_create(&p, &d, NULL) != GPUCORE_OK)
        abort();
    gc_sim_driver_set_tracer_override(d, 4243);
    return d;
}

static uint32_t capacity(const struct kfd_ioctl_dbg_trap_args *a)
{
    switch (a->op) {
    case KFD_IOC_DBG_TRAP_ENABLE:
        return a->enable.rinfo_size;
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
        return a->suspend_queues.num_queues * 4u;
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
        return a->resume_queues.num_queues * 4u;
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO:
        return a->query_exception_info.info_size;
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
        return (uint32_t)((uint64_t)a->queue_snapshot.num_queues * a->queue_snapshot.entry_size >
                                          UINT32_MAX
                                  ? UINT32_MAX
                                  : a->queue_snapshot.num_queues * a->queue_snapshot.entry_size);
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
        return (uint32_t)((uint64_t)a->device_snapshot.num_devices * a->device_snapshot.entry_size >
                                          UINT32_MAX
                                  ? UINT32_MAX
                                  : a->device_snapshot.num_devices * a->device_snapshot.entry_size);
    default:
        return 0;
    }
}

static void serve(struct gc_sim_driver *d, pid_t peer, const uint8_t *in, size_t len)
{
    /* A pid of 0 in DBG_TRAP args stands for this process, whose pid a corpus cannot know;
     * without it nearly every request would stop at ESRCH. */
    static uint8_t msg[GC_SIM_MAX_MESSAGE + 1];
    if (len > sizeof(msg))
        len = sizeof(msg);
    memcpy(msg, in, len);
    if (len >= GC_SIM_HEADER_SIZE + 4 && gc_le16_get(msg + 6) == GC_SIM_MSG_DBG_TRAP &&
        gc_le32_get(msg + GC_SIM_HEADER_SIZE) == 0)
        gc_le32_put(msg + GC_SIM_HEADER_SIZE, (uint32_t)getpid());
    struct gc_sim_request rq;
    int valid = gc_sim_request_decode(msg, len, &rq, NULL) == GPUCORE_OK;
    size_t rl = gc_sim_driver_handle(d, 1, peer, msg, len, -1, resp, sizeof(resp));
    if (!valid) {
        if (rl != 0)
            abort();
        return;
    }
    struct gc_sim_response r;
    if (rl == 0 || rl > GC_SIM_MAX_MESSAGE || gc_sim_response_decode(resp, rl, &r, NULL) != 0 ||
        r.type != rq.type)
        abort();
    if (r.type == GC_SIM_MSG_DBG_TRAP) {
        if (r.ret < 0 && r.out_len != 0)
            abort();
        if (r.out_len > capacity(&rq.args))
            abort();
    }
    if (r.type == GC_SIM_MSG_DEVICE_INFO) {
        if (r.ret != 0 || r.info.total != NALLOCS || r.info.read_delay_us_per_mib != 3 ||
            r.info.first != (rq.first < NALLOCS ? rq.first : NALLOCS) ||
            r.info.count != NALLOCS - r.info.first)
            abort();
        for (uint32_t i = 0; i < r.info.count; i++) {
            struct gc_sim_alloc a;
            gc_sim_alloc_decode(r.out + (size_t)i * GC_SIM_ALLOC_ENTRY_SIZE, &a);
            const struct gc_sim_alloc *w = &allocs[r.info.first + i];
            if (a.base != w->base || a.size != w->size || a.kind != w->kind ||
                strlen(a.label) != GC_SIM_ALLOC_LABEL_MAX - 1)
                abort();
        }
    }
    gc_sim_driver_flush_runtime(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    memset(area, 0, sizeof(area));
    memset(canary, 0, sizeof(canary));
    memset(delivered, 0, sizeof(delivered));
    struct gc_sim_driver *d = make();
    uint8_t flags = data[0];
    data++;
    size--;
    pid_t peer = (flags & 2) ? 4242 : 4243;
    if (flags & 1) {
        struct kfd_ioctl_dbg_trap_args a;
        memset(&a, 0, sizeof(a));
        a.pid = (uint32_t)getpid();
        a.op = KFD_IOC_DBG_TRAP_ENABLE;
        a.enable.exception_mask = ~0ull;
        uint8_t req[GC_SIM_HEADER_SIZE + GC_SIM_ARGS_SIZE];
        size_t len = gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, &a, NULL, 0, req, sizeof(req));
        int pp[2], efd = -1;

        if (pipe2(pp, O_CLOEXEC | O_NONBLOCK) == 0) { /* the debugger's event pipe */
            close(pp[0]);
            efd = pp[1];
        }
        (void)gc_sim_driver_handle(d, 1, 4243, req, len, efd, resp, sizeof(resp));
    }
    if (flags & 4)
        gc_sim_driver_tick(d, 1000);
    while (size > 0) {
        size_t n = size >= 2 ? gc_le16_get(data) : size;
        size_t skip = size >= 2 ? 2 : 0;
        if (n > size - skip)
            n = size - skip;
        serve(d, peer, data + skip, n);
        data += skip + n;
        size -= skip + n;
    }
    /* Beyond the header and the control stack, the driver writes nothing. */
    for (unsigned i = 0; i < 2; i++) {
        if (memcmp(area[i] + 40, canary, 0x100 - 40) != 0 ||
            memcmp(area[i] + 0x108, canary, 64) != 0)
            abort();
    }
    gc_sim_driver_disconnect(d, 1);
    gc_sim_driver_destroy(d);
    return 0;
}
