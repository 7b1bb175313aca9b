/* SPDX-License-Identifier: MIT */
/* amdkfd's DBG_TRAP for an emulated process, served by the simulated driver (emu_debug.h). */
#include "emu_debug.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_le.h"
#include "gc_util.h"
#include "kfd_sim_protocol.h"
#include "layout.h"

struct gc_emu_debug {
    struct gc_sim_driver *d;
    struct gc_emu_debug_target t;
    int owner;
    uint8_t *req, *resp;
};

static uint32_t xccs_of(const struct gc_emu_debug_target *t, const struct gc_emu_queue *q)
{
    uint32_t n = t->p->m->devs[q->dev].agent.num_xcc;

    return n ? (n < GC_SIM_MAX_XCC ? n : GC_SIM_MAX_XCC) : 1;
}

/* XCC @p x of queue @p q as the driver describes it. */
static void describe_xcc(const struct gc_emu_debug_target *t, const struct gc_emu_queue *q,
                         uint32_t x, struct gc_sim_xcc *ret)
{
    struct gc_emu_area a;

    memset(ret, 0, sizeof(*ret));
    ret->base = q->cwsr + (uint64_t)x * q->cwsr_size;
    if (t->area(t->area_user, q, x, &a) != 0)
        return;
    ret->header = a.header;
    /* SUSPEND writes the used control stack and the waves, from control_stack_offset */
    if (a.image && a.image_len > a.header.control_stack_offset) {
        ret->saved = a.image + a.header.control_stack_offset;
        ret->saved_len = (uint32_t)(a.image_len - a.header.control_stack_offset);
    }
}

/* Queue @p q as the driver describes it, its XCCs in @p x (GC_SIM_MAX_XCC entries). */
static void describe_queue(const struct gc_emu_debug_target *t, const struct gc_emu_queue *q,
                           struct gc_sim_queue *sq, struct gc_sim_xcc *x)
{
    sq->entry.ring_base_address = q->ring;
    sq->entry.write_pointer_address = q->wptr_addr;
    sq->entry.read_pointer_address = q->rptr_addr;
    sq->entry.ctx_save_restore_address = q->cwsr;
    sq->entry.queue_id = q->id;
    sq->entry.gpu_id = t->p->m->devs[q->dev].agent.gpu_id;
    sq->entry.ring_size = (uint32_t)q->ring_size;
    sq->entry.queue_type = q->type;
    sq->entry.ctx_save_restore_area_size = (uint32_t)q->cwsr_size;
    sq->num_xcc = xccs_of(t, q);
    for (uint32_t k = 0; k < sq->num_xcc; k++)
        describe_xcc(t, q, k, &x[k]);
    sq->xcc = x;
}

gpucore_status_t gc_emu_debug_new(const struct gc_emu_debug_target *t, struct gc_emu_debug **ret,
                                  char *err, size_t errlen)
{
    const struct gc_emu_proc *p = t->p;
    struct kfd_dbg_device_info_entry agents[GC_EMU_MAX_DEVICES];
    struct gc_sim_queue *queues = NULL;
    struct gc_sim_xcc *xccs = NULL;
    struct gc_sim_process desc;
    struct gc_emu_debug *g;
    gpucore_diag_t diag;
    gpucore_status_t st;
    uint32_t nq = 0;

    g = calloc(1, sizeof(*g));
    if (!g)
        return GPUCORE_E_NOMEM;
    g->t = *t;
    g->req = malloc(GC_SIM_MAX_MESSAGE);
    g->resp = malloc(GC_SIM_MAX_MESSAGE);
    queues = gc_calloc_array(GC_EMU_MAX_QUEUES + 1u, sizeof(*queues));
    xccs = gc_calloc_array((size_t)GC_EMU_MAX_QUEUES * GC_SIM_MAX_XCC + 1u, sizeof(*xccs));
    if (!g->req || !g->resp || !queues || !xccs) {
        st = GPUCORE_E_NOMEM;
        goto out;
    }
    memset(&desc, 0, sizeof(desc));
    desc.kfd_major = GC_KFD_EMU_MAJOR;
    desc.kfd_minor = GC_KFD_EMU_MINOR;
    desc.rinfo.r_debug = p->r_debug;
    desc.rinfo.runtime_state = p->runtime_state;
    desc.rinfo.ttmp_setup = p->ttmp_setup;
    for (size_t i = 0; i < p->m->ndevs; i++)
        if (gc_sim_layout_device_entry(&p->m->devs[i].agent, &agents[i]) != GPUCORE_OK)
            memset(&agents[i], 0, sizeof(agents[i]));
    desc.num_agents = (uint32_t)p->m->ndevs;
    desc.agents = agents;
    for (uint32_t i = 0; i < p->nqueues; i++) {
        const struct gc_emu_queue *q = &p->queues[i];
        struct gc_sim_queue *sq = &queues[nq];
        struct gc_sim_xcc *x = &xccs[(size_t)nq * GC_SIM_MAX_XCC];

        if (q->type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL || !q->cwsr)
            continue; /* the snapshot lists compute queues with a save area */
        describe_queue(t, q, sq, x);
        nq++;
    }
    desc.num_queues = nq;
    desc.queues = queues;
    desc.runtime_clock = 1;
    desc.runtime_error = t->runtime_error;
    desc.runtime_user = t->runtime_user;
    desc.target_pid = t->pid;
    desc.write_mem = t->write_mem;
    desc.mem_user = t->mem_user;
    memset(&diag, 0, sizeof(diag));
    st = gc_sim_driver_create(&desc, &g->d, &diag);
    if (st != GPUCORE_OK)
        snprintf(err, errlen, "%s", diag.message);
out:
    gc_free(queues);
    gc_free(xccs);
    if (st != GPUCORE_OK) {
        gc_emu_debug_free(g);
        return st;
    }
    *ret = g;
    return GPUCORE_OK;
}

void gc_emu_debug_free(struct gc_emu_debug *g)
{
    if (!g)
        return;
    if (g->d)
        gc_sim_driver_destroy(g->d);
    free(g->req);
    free(g->resp);
    free(g);
}

void gc_emu_debug_raise(struct gc_emu_debug *g, const struct gc_sim_exception *x)
{
    (void)gc_sim_driver_raise(g->d, x);
    gc_sim_driver_flush_runtime(g->d);
}

void gc_emu_debug_update(struct gc_emu_debug *g, const struct gc_emu_queue *q)
{
    for (uint32_t k = 0; k < xccs_of(&g->t, q); k++) {
        struct gc_sim_xcc x;

        describe_xcc(&g->t, q, k, &x);
        (void)gc_sim_driver_set_saved(g->d, q->id, k, &x);
    }
}

void gc_emu_debug_disconnect(struct gc_emu_debug *g, int debugger)
{
    gc_sim_driver_disconnect(g->d, (uint64_t)debugger);
    if (g->owner == debugger)
        g->owner = 0;
    gc_sim_driver_flush_runtime(g->d);
}

void gc_emu_debug_add_queue(struct gc_emu_debug *g, const struct gc_emu_queue *q)
{
    struct gc_sim_xcc x[GC_SIM_MAX_XCC];
    struct gc_sim_queue sq;

    if (q->type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL || !q->cwsr)
        return;
    memset(&sq, 0, sizeof(sq));
    describe_queue(&g->t, q, &sq, x);
    (void)gc_sim_driver_add_queue(g->d, &sq);
    gc_sim_driver_flush_runtime(g->d);
}

void gc_emu_debug_runtime(struct gc_emu_debug *g, const struct gc_emu_proc *p)
{
    struct kfd_runtime_info ri;

    memset(&ri, 0, sizeof(ri));
    ri.r_debug = p->r_debug;
    ri.runtime_state = p->runtime_state;
    ri.ttmp_setup = p->ttmp_setup;
    gc_sim_driver_set_runtime(g->d, &ri);
    gc_sim_driver_flush_runtime(g->d);
}

void gc_emu_debug_sync_queues(const struct gc_emu_debug *g, struct gc_emu_proc *p)
{
    for (uint32_t i = 0; i < p->nqueues; i++)
        p->queues[i].debug_suspended =
            (uint32_t)gc_sim_driver_queue_suspended(g->d, p->queues[i].id);
}

int gc_emu_debug_owner(const struct gc_emu_debug *g)
{
    return g->owner;
}

/* Write the driver's output for @p op into the debugger's buffers (as the kernel copies them
   out), bounded by what the debugger said its buffers hold. 0 or -EFAULT. */
static long put_outputs(const struct kfd_ioctl_dbg_trap_args *in,
                        const struct kfd_ioctl_dbg_trap_args *out,
                        const struct gc_sim_response *r, const struct gc_emu_io *io)
{
    switch (in->op) {
    case KFD_IOC_DBG_TRAP_ENABLE: {
        uint32_t cap = in->enable.rinfo_size < GC_SIM_RINFO_SIZE ? in->enable.rinfo_size
                                                                  : GC_SIM_RINFO_SIZE;
        if (r->out_len > cap)
            return -EIO;
        return r->out_len && io->write(io->ctx, in->enable.rinfo_ptr, r->out, r->out_len)
                   ? -EFAULT : 0;
    }
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES: {
        uint64_t ptr = in->op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES ? in->suspend_queues.queue_array_ptr
                                                                 : in->resume_queues.queue_array_ptr;

        return r->out_len && io->write(io->ctx, ptr, r->out, r->out_len) ? -EFAULT : 0;
    }
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT: {
        int q = in->op == KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
        uint32_t want = q ? in->queue_snapshot.num_queues : in->device_snapshot.num_devices;
        uint32_t stride = q ? in->queue_snapshot.entry_size : in->device_snapshot.entry_size;
        uint32_t pop = q ? out->queue_snapshot.entry_size : out->device_snapshot.entry_size;
        uint64_t base = q ? in->queue_snapshot.snapshot_buf_ptr
                          : in->device_snapshot.snapshot_buf_ptr;
        uint32_t n;

        if (!pop || !r->out_len)
            return 0;
        if (pop > stride || r->out_len % pop)
            return -EIO;
        n = r->out_len / pop;
        if (n > want)
            return -EIO;
        for (uint32_t i = 0; i < n; i++)
            if (io->write(io->ctx, base + (uint64_t)i * stride, r->out + (size_t)i * pop, pop))
                return -EFAULT;
        return 0;
    }
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO:
        if (r->out_len > in->query_exception_info.info_size)
            return -EIO;
        return r->out_len && io->write(io->ctx, in->query_exception_info.info_ptr, r->out,
                                       r->out_len) ? -EFAULT : 0;
    default:
        return r->out_len ? -EIO : 0;
    }
}

long gc_emu_debug_ioctl(struct gc_emu_debug *g, int debugger, struct kfd_ioctl_dbg_trap_args *args,
                        int event_fd, const struct gc_emu_io *dbg_io)
{
    const struct kfd_ioctl_dbg_trap_args in = *args;
    uint32_t *ids = NULL, num_ids = 0;
    struct gc_sim_response r;
    size_t len, rlen;
    long ret;

    if (in.op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES || in.op == KFD_IOC_DBG_TRAP_RESUME_QUEUES) {
        uint64_t ptr = in.op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES ? in.suspend_queues.queue_array_ptr
                                                                : in.resume_queues.queue_array_ptr;

        num_ids = in.op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES ? in.suspend_queues.num_queues
                                                           : in.resume_queues.num_queues;
        if (num_ids > GC_SIM_MAX_IDS)
            return -EINVAL;
        ids = gc_calloc_array(num_ids + 1u, sizeof(*ids));
        if (!ids)
            return -ENOMEM;
        if (num_ids && dbg_io->read(dbg_io->ctx, ptr, ids, 4u * num_ids)) {
            gc_free(ids);
            return -EFAULT;
        }
    }
    len = gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, &in, ids, num_ids, g->req,
                                GC_SIM_MAX_MESSAGE);
    gc_free(ids);
    if (!len)
        return -EINVAL;
    rlen = gc_sim_driver_handle(g->d, (uint64_t)debugger, debugger, g->req, len, event_fd,
                                g->resp, GC_SIM_MAX_MESSAGE);
    if (!rlen || gc_sim_response_decode(g->resp, rlen, &r, NULL) != GPUCORE_OK)
        return -EIO;
    *args = r.args;
    args->pid = in.pid;
    args->op = in.op;
    ret = r.ret;
    if (ret >= 0) {
        long k = put_outputs(&in, args, &r, dbg_io);

        if (k < 0)
            ret = k;
    }
    if (in.op == KFD_IOC_DBG_TRAP_ENABLE && ret == 0)
        g->owner = debugger;
    if (in.op == KFD_IOC_DBG_TRAP_DISABLE && ret == 0 && g->owner == debugger)
        g->owner = 0;
    gc_sim_driver_flush_runtime(g->d);
    return ret;
}
