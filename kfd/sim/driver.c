/* SPDX-License-Identifier: MIT */
/*
 * The simulated KFD driver: the debug-trap state machine with the kernel's rules
 * (docs/kfd-debug-interface.md §10-§11) and the socket server that hosts it. See driver.h.
 */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gc_le.h"
#include "gc_util.h"
#include "kfd.h"
#include "kfd_sim_protocol.h"

#define SIM_MAX_CONNS     16
#define SIM_MAX_WATCH     4u
#define SIM_OP_SLOTS      16 /* DBG_TRAP ops 0..14, slot 15 = GET_VERSION */
/* Launch-override bits the simulated hardware supports (trap on every exception kind). */
#define SIM_OVERRIDE_SUPPORTED 0x7fu

struct sim_queue {
    struct kfd_queue_snapshot_entry e;
    uint32_t num_xcc;
    struct gc_sim_xcc *xcc;
    int fail_suspend, fail_resume;
    int suspended;
    int saved_inactive; /* evicted or made inactive with its waves saved (late arming) */
    uint64_t unreported; /* raised bits not yet returned by QUERY_DEBUG_EVENT */
};

struct sim_agent {
    struct kfd_dbg_device_info_entry e;
    uint64_t unreported;
};

struct sim_exc {
    struct gc_sim_exception x;
    int raised;
    int delivered; /* handed to the runtime callback */
};

struct sim_conn {
    int fd;
    uint64_t id;
    pid_t pid;
};

struct gc_sim_driver {
    uint32_t major, minor;
    int no_hws;
    struct kfd_runtime_info rinfo;
    uint32_t num_agents, num_queues, num_exc, num_faults;
    struct sim_agent *agents;
    struct sim_queue *queues;
    struct sim_exc *exc;
    struct gc_sim_fault *faults;
    uint32_t op_calls[SIM_OP_SLOTS];
    uint32_t num_allocs;
    struct gc_sim_alloc *allocs;
    uint32_t read_delay_us_per_mib;
    gc_sim_runtime_fn runtime_error;
    void *runtime_user;
    int runtime_clock;
    uint64_t start_ms;
    gc_sim_write_fn write_mem;
    void *mem_user;
    pid_t target_pid;

    /* Session state: what the kernel keeps in the target's kfd_process. */
    int enabled;
    uint64_t owner_conn;
    int event_fd;
    uint64_t exc_mask;
    uint64_t enable_ms;
    uint64_t proc_status, proc_unreported;
    uint32_t launch_mode, flags, watch_used;
    pid_t tracer_override;

    /* Server. */
    int listen_fd;
    int wake[2];
    pthread_t thread;
    int thread_started;
    char name[108];
    pid_t thread_tid;
    struct sim_conn conns[SIM_MAX_CONNS];
    uint64_t next_conn_id;
    uint8_t *req_buf, *resp_buf;
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(uint32_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void gc_sim_default_socket_name(pid_t pid, char *buf, size_t size)
{
    snprintf(buf, size, "@gpucore-kfd-sim.%ld", (long)pid);
}

/* ---- description ---- */

static void free_queues(struct sim_queue *q, uint32_t n)
{
    if (q == NULL)
        return;
    for (uint32_t i = 0; i < n; i++) {
        if (q[i].xcc == NULL)
            continue;
        gc_free(q[i].xcc);
    }
    gc_free(q);
}

void gc_sim_driver_destroy(struct gc_sim_driver *d)
{
    if (d == NULL)
        return;
    if (d->event_fd >= 0)
        close(d->event_fd);
    gc_free(d->agents);
    free_queues(d->queues, d->num_queues);
    gc_free(d->exc);
    gc_free(d->faults);
    gc_free(d->allocs);
    gc_free(d->req_buf);
    gc_free(d->resp_buf);
    gc_free(d);
}

gpucore_status_t gc_sim_driver_create(const struct gc_sim_process *desc, struct gc_sim_driver **ret,
                                      gpucore_diag_t *diag)
{
    GC_FAIL_IF(desc == NULL || ret == NULL, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "sim driver: no description");
    GC_FAIL_IF(desc->num_agents > GC_SIM_MAX_AGENTS || desc->num_queues > GC_SIM_MAX_QUEUES ||
                       desc->num_exceptions > GC_SIM_MAX_EXCEPTIONS ||
                       desc->num_faults > GC_SIM_MAX_FAULTS || desc->num_allocs > GC_SIM_MAX_ALLOCS,
               diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "sim driver: %u agents, %u queues, %u exceptions, %u faults, %u allocations "
               "exceed the bounds",
               desc->num_agents, desc->num_queues, desc->num_exceptions, desc->num_faults,
               desc->num_allocs);
    GC_FAIL_IF((desc->num_agents && !desc->agents) || (desc->num_queues && !desc->queues) ||
                       (desc->num_exceptions && !desc->exceptions) ||
                       (desc->num_faults && !desc->faults) || (desc->num_allocs && !desc->allocs),
               diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "sim driver: a counted array is NULL");
    for (uint32_t i = 0; i < desc->num_queues; i++) {
        const struct gc_sim_queue *q = &desc->queues[i];
        GC_FAIL_IF(q->num_xcc == 0 || q->num_xcc > GC_SIM_MAX_XCC || q->xcc == NULL, diag,
                   GPUCORE_E_INVAL, GC_NO_OFFSET, "sim driver: queue %u has %u XCCs", i,
                   q->num_xcc);
        for (uint32_t x = 0; x < q->num_xcc; x++)
            GC_FAIL_IF(q->xcc[x].base == 0 || (q->xcc[x].saved_len && !q->xcc[x].saved), diag,
                       GPUCORE_E_INVAL, GC_NO_OFFSET,
                       "sim driver: queue %u XCC %u has no area or NULL saved bytes", i, x);
    }

    struct gc_sim_driver *d = gc_calloc_array(1, sizeof(*d));
    if (d == NULL)
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "sim driver: out of memory");
    d->event_fd = -1;
    d->listen_fd = -1;
    d->wake[0] = d->wake[1] = -1;
    for (int i = 0; i < SIM_MAX_CONNS; i++)
        d->conns[i].fd = -1;
    d->major = desc->kfd_major;
    d->minor = desc->kfd_minor;
    if (d->major == 0 && d->minor == 0) {
        d->major = 1;
        d->minor = 18;
    }
    d->no_hws = desc->no_hws;
    d->rinfo = desc->rinfo;
    d->num_agents = desc->num_agents;
    d->num_queues = desc->num_queues;
    d->num_exc = desc->num_exceptions;
    d->num_faults = desc->num_faults;
    /* +1 so a zero count still gives a non-NULL allocation to test for failure. */
    d->agents = gc_calloc_array(d->num_agents + 1u, sizeof(*d->agents));
    d->queues = gc_calloc_array(d->num_queues + 1u, sizeof(*d->queues));
    d->exc = gc_calloc_array(d->num_exc + 1u, sizeof(*d->exc));
    d->faults = gc_calloc_array(d->num_faults + 1u, sizeof(*d->faults));
    d->num_allocs = desc->num_allocs;
    d->allocs = gc_calloc_array(d->num_allocs + 1u, sizeof(*d->allocs));
    d->read_delay_us_per_mib = desc->read_delay_us_per_mib;
    d->runtime_error = desc->runtime_error;
    d->runtime_user = desc->runtime_user;
    d->runtime_clock = desc->runtime_clock;
    d->write_mem = desc->write_mem;
    d->mem_user = desc->mem_user;
    d->target_pid = desc->target_pid;
    d->start_ms = now_ms();
    if (!d->agents || !d->queues || !d->exc || !d->faults || !d->allocs)
        goto nomem;
    for (uint32_t i = 0; i < d->num_allocs; i++) {
        d->allocs[i] = desc->allocs[i];
        d->allocs[i].label[GC_SIM_ALLOC_LABEL_MAX - 1] = 0;
    }
    for (uint32_t i = 0; i < d->num_agents; i++)
        d->agents[i].e = desc->agents[i];
    for (uint32_t i = 0; i < d->num_exc; i++)
        d->exc[i].x = desc->exceptions[i];
    for (uint32_t i = 0; i < d->num_faults; i++)
        d->faults[i] = desc->faults[i];
    for (uint32_t i = 0; i < d->num_queues; i++) {
        const struct gc_sim_queue *s = &desc->queues[i];
        struct sim_queue *q = &d->queues[i];
        q->e = s->entry;
        q->fail_suspend = s->fail_suspend;
        q->fail_resume = s->fail_resume;
        q->xcc = gc_calloc_array(s->num_xcc, sizeof(*q->xcc));
        if (q->xcc == NULL)
            goto nomem;
        q->num_xcc = s->num_xcc;
        for (uint32_t x = 0; x < s->num_xcc; x++)
            q->xcc[x] = s->xcc[x];
    }
    *ret = d;
    return GPUCORE_OK;
nomem:
    gc_sim_driver_destroy(d);
    return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "sim driver: out of memory");
}

void gc_sim_driver_set_tracer_override(struct gc_sim_driver *d, pid_t pid)
{
    d->tracer_override = pid;
}

/* ---- state machine ---- */

static struct sim_queue *find_queue(struct gc_sim_driver *d, uint32_t id)
{
    for (uint32_t i = 0; i < d->num_queues; i++)
        if (d->queues[i].e.queue_id == id)
            return &d->queues[i];
    return NULL;
}

static struct sim_agent *find_agent(struct gc_sim_driver *d, uint32_t gpu_id)
{
    for (uint32_t i = 0; i < d->num_agents; i++)
        if (d->agents[i].e.gpu_id == gpu_id)
            return &d->agents[i];
    return NULL;
}

/* The kernel wakes the debugger by writing to its eventfd; a full counter is harmless. */
/*
 * kfd_dbg_ev_raise: one byte ('.') written to the debugger's file. Never waits: a full pipe
 * already holds a pending event. A pipe whose reader is gone must not kill the process the
 * driver runs in (the kernel's write happens in a kernel thread): SIGPIPE is blocked for the
 * write and a pending one taken back.
 */
static void signal_event(struct gc_sim_driver *d)
{
    static const char dot = '.';
    struct iovec iov = { (void *)(uintptr_t)&dot, 1 };
    sigset_t pipe_set, old;
    struct timespec zero = { 0, 0 };
    ssize_t w;

    if (d->event_fd < 0)
        return;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    w = pwritev2(d->event_fd, &iov, 1, -1, RWF_NOWAIT);
    if (w < 0 && errno == EOPNOTSUPP)
        w = write(d->event_fd, &dot, 1);
    if (w < 0 && errno == EPIPE && !sigismember(&old, SIGPIPE))
        (void)sigtimedwait(&pipe_set, NULL, &zero);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int any_pending(struct gc_sim_driver *d)
{
    uint64_t m = d->exc_mask;
    if (d->proc_unreported & m)
        return 1;
    for (uint32_t i = 0; i < d->num_agents; i++)
        if (d->agents[i].unreported & m)
            return 1;
    for (uint32_t i = 0; i < d->num_queues; i++)
        if (d->queues[i].unreported & m)
            return 1;
    return 0;
}

static void context_save_waves(struct gc_sim_driver *d, const struct gc_sim_xcc *x);

/*
 * An error raised while no debugger has debugging enabled (runtime_clock only): the kernel
 * records nothing; a VM fault evicts every queue of the process, another queue error leaves
 * its queue inactive (the runtime suspends it before its callback); the waves are saved then.
 */
static void raise_undebugged(struct gc_sim_driver *d, struct sim_exc *x)
{
    int vm_fault = x->x.fault_va != 0 || x->x.code == EC_DEVICE_MEMORY_VIOLATION;

    x->raised = 1;
    for (uint32_t i = 0; i < d->num_queues; i++) {
        struct sim_queue *q = &d->queues[i];

        if (q->saved_inactive || (!vm_fault && q->e.queue_id != x->x.queue_id))
            continue;
        for (uint32_t k = 0; k < q->num_xcc; k++)
            context_save_waves(d, &q->xcc[k]);
        q->saved_inactive = 1;
    }
}

static void raise_exc(struct gc_sim_driver *d, struct sim_exc *x)
{
    if (!d->enabled) {
        raise_undebugged(d, x);
        return;
    }
    x->raised = 1;
    uint64_t bits = x->x.status_bits;
    if (bits == 0 && x->x.code >= 1 && x->x.code <= 64)
        bits = KFD_EC_MASK(x->x.code);
    struct sim_queue *q =
            x->x.queue_id != KFD_INVALID_QUEUEID ? find_queue(d, x->x.queue_id) : NULL;
    struct sim_agent *a = find_agent(d, x->x.gpu_id);
    if (q != NULL) {
        q->e.exception_status |= bits;
        q->unreported |= bits;
        if (x->x.fault_va && a != NULL) {
            /* The VM fault behind a wave's memory violation reaches the device too. */
            uint64_t dev = KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION);
            a->e.exception_status |= dev;
            a->unreported |= dev;
            bits |= dev;
        }
    } else if (a != NULL) {
        a->e.exception_status |= bits;
        a->unreported |= bits;
    } else {
        d->proc_status |= bits;
        d->proc_unreported |= bits;
    }
    if (bits & d->exc_mask)
        signal_event(d);
}

gpucore_status_t gc_sim_driver_add_queue(struct gc_sim_driver *d, const struct gc_sim_queue *s)
{
    struct sim_queue *n, *q;

    if (!d || !s || s->num_xcc == 0 || s->num_xcc > GC_SIM_MAX_XCC || !s->xcc ||
        find_queue(d, s->entry.queue_id))
        return GPUCORE_E_INVAL;
    for (uint32_t x = 0; x < s->num_xcc; x++)
        if (s->xcc[x].base == 0 || (s->xcc[x].saved_len && !s->xcc[x].saved))
            return GPUCORE_E_INVAL;
    if (d->num_queues >= GC_SIM_MAX_QUEUES)
        return GPUCORE_E_LIMIT;
    n = gc_realloc_array(d->queues, d->num_queues + 1u, sizeof(*d->queues));
    if (!n)
        return GPUCORE_E_NOMEM;
    d->queues = n;
    q = &d->queues[d->num_queues];
    memset(q, 0, sizeof(*q));
    q->e = s->entry;
    q->fail_suspend = s->fail_suspend;
    q->fail_resume = s->fail_resume;
    q->xcc = gc_calloc_array(s->num_xcc, sizeof(*q->xcc));
    if (!q->xcc)
        return GPUCORE_E_NOMEM;
    q->num_xcc = s->num_xcc;
    for (uint32_t x = 0; x < s->num_xcc; x++)
        q->xcc[x] = s->xcc[x];
    d->num_queues++;
    if (d->enabled) { /* kfd_create_queue: the debugger learns of the new queue */
        struct gc_sim_exception x;

        memset(&x, 0, sizeof(x));
        x.code = EC_QUEUE_NEW;
        x.gpu_id = s->entry.gpu_id;
        x.queue_id = KFD_INVALID_QUEUEID; /* a process event */
        return gc_sim_driver_raise(d, &x);
    }
    return GPUCORE_OK;
}

void gc_sim_driver_set_runtime(struct gc_sim_driver *d, const struct kfd_runtime_info *ri)
{
    int started;

    if (!d || !ri)
        return;
    started = d->rinfo.runtime_state != DEBUG_RUNTIME_STATE_ENABLED &&
              ri->runtime_state == DEBUG_RUNTIME_STATE_ENABLED;
    d->rinfo = *ri;
    if (started && d->enabled) { /* runtime_enable: kfd_dbg_ev_raise(EC_PROCESS_RUNTIME) */
        struct gc_sim_exception x;

        memset(&x, 0, sizeof(x));
        x.code = EC_PROCESS_RUNTIME;
        x.queue_id = KFD_INVALID_QUEUEID;
        (void)gc_sim_driver_raise(d, &x);
    }
}

int gc_sim_driver_queue_suspended(const struct gc_sim_driver *d, uint32_t queue_id)
{
    for (uint32_t i = 0; d && i < d->num_queues; i++)
        if (d->queues[i].e.queue_id == queue_id)
            return d->queues[i].suspended;
    return 0;
}

gpucore_status_t gc_sim_driver_set_saved(struct gc_sim_driver *d, uint32_t queue_id, uint32_t xcc,
                                        const struct gc_sim_xcc *x)
{
    struct sim_queue *q = d && x ? find_queue(d, queue_id) : NULL;

    if (!q || xcc >= q->num_xcc || x->base == 0 || (x->saved_len && !x->saved))
        return GPUCORE_E_INVAL;
    q->xcc[xcc] = *x;
    return GPUCORE_OK;
}

gpucore_status_t gc_sim_driver_raise(struct gc_sim_driver *d, const struct gc_sim_exception *x)
{
    struct sim_exc *n;

    if (!d || !x)
        return GPUCORE_E_INVAL;
    if (d->num_exc >= GC_SIM_MAX_EXCEPTIONS)
        return GPUCORE_E_LIMIT;
    n = gc_realloc_array(d->exc, d->num_exc + 1u, sizeof(*d->exc));
    if (!n)
        return GPUCORE_E_NOMEM;
    d->exc = n;
    memset(&d->exc[d->num_exc], 0, sizeof(d->exc[0]));
    d->exc[d->num_exc].x = *x;
    d->exc[d->num_exc].x.delay_ms = 0;
    d->num_exc++;
    /* raised now, debugger or not (runtime_clock's rule for an error without one) */
    raise_exc(d, &d->exc[d->num_exc - 1]);
    return GPUCORE_OK;
}

void gc_sim_driver_tick(struct gc_sim_driver *d, uint64_t t)
{
    if (!d->enabled && !d->runtime_clock)
        return;
    for (uint32_t i = 0; i < d->num_exc; i++)
        if (!d->exc[i].raised && d->exc[i].x.delay_ms <= t)
            raise_exc(d, &d->exc[i]);
}

/* The bits an exception sets (its status_bits, else its code's bit). */
static uint64_t exc_bits(const struct gc_sim_exception *x)
{
    if (x->status_bits)
        return x->status_bits;
    return x->code >= 1 && x->code <= 64 ? KFD_EC_MASK(x->code) : 0;
}

void gc_sim_driver_flush_runtime(struct gc_sim_driver *d)
{
    if (d->runtime_error == NULL)
        return;
    for (uint32_t i = 0; i < d->num_exc; i++) {
        struct sim_exc *x = &d->exc[i];
        if (!x->raised || x->delivered)
            continue;
        /* Held: a debugger has debugging enabled with it in its mask; the runtime learns of
         * it only once the debugger lets go. */
        if (d->enabled && (exc_bits(&x->x) & d->exc_mask))
            continue;
        x->delivered = 1;
        struct gc_sim_runtime_error e = { x->x.code, x->x.gpu_id, x->x.queue_id, x->x.fault_va,
                                          x->x.fault_flags };
        d->runtime_error(d->runtime_user, &e);
    }
}

void gc_sim_driver_state(const struct gc_sim_driver *d, int *ret_debug_enabled,
                         uint32_t *ret_suspended_queues)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->num_queues; i++)
        n += d->queues[i].suspended ? 1u : 0u;
    if (ret_debug_enabled)
        *ret_debug_enabled = d->enabled;
    if (ret_suspended_queues)
        *ret_suspended_queues = n;
}

/* Now on the exceptions' clock: since ENABLE, or with runtime_clock since the start. */
static uint64_t clock_now(const struct gc_sim_driver *d)
{
    return now_ms() - (d->runtime_clock ? d->start_ms : d->enable_ms);
}

/* Raise what is due now. */
static void tick_now(struct gc_sim_driver *d)
{
    if (d->enabled || d->runtime_clock)
        gc_sim_driver_tick(d, clock_now(d));
}

/* Milliseconds until the next scheduled exception, or -1 if none is due while enabled. */
static int next_due(struct gc_sim_driver *d)
{
    if (!d->enabled && !d->runtime_clock)
        return -1;
    uint64_t t = clock_now(d);
    int64_t best = -1;
    for (uint32_t i = 0; i < d->num_exc; i++) {
        if (d->exc[i].raised)
            continue;
        int64_t left = (int64_t)d->exc[i].x.delay_ms - (int64_t)t;
        if (left < 0)
            left = 0;
        if (best < 0 || left < best)
            best = left;
    }
    return best > 1000000 ? 1000000 : (int)best;
}

static int is_tracer(struct gc_sim_driver *d, pid_t peer)
{
    pid_t target = d->target_pid ? d->target_pid : getpid();
    char path[64];

    if (peer == target) /* self-debugging skips the check, as in the kernel */
        return 1;
    if (d->tracer_override)
        return peer == d->tracer_override;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)target);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    char line[256];
    long tracer = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
            break;
    fclose(f);
    return tracer != 0 && tracer == (long)peer;
}

/* Write into the target's memory: the description's write_mem, or (the driver runs inside the
   inferior) this very process's memory. */
static void put_target(struct gc_sim_driver *d, uint64_t addr, const void *buf, size_t len)
{
    if (d->write_mem)
        (void)d->write_mem(d->mem_user, addr, buf, len);
    else
        memcpy((void *)(uintptr_t)addr, buf, len);
}

/* get_wave_state's header of one XCC. */
static void put_header(struct gc_sim_driver *d, const struct gc_sim_xcc *x)
{
    uint8_t h[GC_CWSR_HEADER_SIZE];

    gc_cwsr_header_encode(&x->header, h);
    put_target(d, x->base, h, sizeof(h));
}

/* The preemption's part of a CWSR save of one XCC: the waves' state lands in the area. */
static void context_save_waves(struct gc_sim_driver *d, const struct gc_sim_xcc *x)
{
    uint32_t room = x->header.wave_state_offset > x->header.control_stack_offset
                            ? x->header.wave_state_offset - x->header.control_stack_offset
                            : 0;

    if (x->saved && x->saved_len)
        put_target(d, x->base + x->header.control_stack_offset, x->saved,
                   x->saved_len < room ? x->saved_len : room);
}

/* A CWSR preemption of one XCC: the waves' state lands in the area, then get_wave_state writes
   the header. */
static void context_save(struct gc_sim_driver *d, const struct gc_sim_xcc *x)
{
    context_save_waves(d, x);
    put_header(d, x);
}

/* kfd_dbg_trap_enable takes the fd with fget: any open file (AMD's library passes a pipe). */
static int is_file(int fd)
{
    return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

static void do_disable(struct gc_sim_driver *d)
{
    /* The kernel resumes every queue it suspended for the debugger before it lets go. */
    for (uint32_t i = 0; i < d->num_queues; i++)
        d->queues[i].suspended = 0;
    if (d->event_fd >= 0)
        close(d->event_fd);
    d->event_fd = -1;
    d->enabled = 0;
    d->owner_conn = 0;
    d->exc_mask = 0;
    d->launch_mode = KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL;
    d->flags = 0;
    d->watch_used = 0;
}

void gc_sim_driver_disconnect(struct gc_sim_driver *d, uint64_t conn_id)
{
    if (d->enabled && d->owner_conn == conn_id) {
        do_disable(d);
        gc_sim_driver_flush_runtime(d);
    }
}

static int is_hw_op(uint32_t op)
{
    switch (op) {
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE:
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE:
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
    case KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH:
    case KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH:
    case KFD_IOC_DBG_TRAP_SET_FLAGS:
        return 1;
    default:
        return 0;
    }
}

/* Fault injection: delays, exits, errnos for op slot @p op. Returns 0 or -errno. */
static int inject(struct gc_sim_driver *d, int op)
{
    int slot = op == GC_SIM_OP_GET_VERSION ? SIM_OP_SLOTS - 1 : op;
    if (slot < 0 || slot >= SIM_OP_SLOTS)
        return 0;
    uint32_t call = ++d->op_calls[slot];
    int err = 0;
    for (uint32_t i = 0; i < d->num_faults; i++) {
        const struct gc_sim_fault *f = &d->faults[i];
        if (f->op != op)
            continue;
        if (f->delay_ms)
            sleep_ms(f->delay_ms);
        if (f->nth != 0 && f->nth != call)
            continue;
        if (f->exit_during)
            _exit(f->exit_status);
        if (f->err > 0 && err == 0)
            err = -f->err;
    }
    return err;
}

/* Output collector for one request. */
struct out {
    uint8_t *buf;
    uint32_t len;
};

/* Append the first @p n bytes (at most the record's size) of @p host's @p rec wire image. */
static void out_put(struct out *o, enum gc_sim_record rec, const void *host, uint32_t n)
{
    uint8_t img[GC_SIM_RECORD_MAX];

    gc_sim_record_encode(rec, host, img);
    memcpy(o->buf + o->len, img, n);
    o->len += n;
}

static int op_snapshot_queues(struct gc_sim_driver *d,
                              struct kfd_ioctl_dbg_trap_queue_snapshot_args *a, struct out *o)
{
    uint32_t want = a->num_queues, esz = a->entry_size;
    uint32_t pop = esz < GC_SIM_QUEUE_ENTRY_SIZE ? esz : GC_SIM_QUEUE_ENTRY_SIZE;
    if (want && a->snapshot_buf_ptr == 0)
        return -EFAULT;
    uint32_t n = want < d->num_queues ? want : d->num_queues;
    for (uint32_t i = 0; i < n; i++) {
        out_put(o, GC_SIM_REC_QUEUE_ENTRY, &d->queues[i].e, pop);
        /* The listed exceptions are cleared after they were reported. */
        d->queues[i].e.exception_status &= ~a->exception_mask;
        d->queues[i].unreported &= ~a->exception_mask;
    }
    a->num_queues = d->num_queues;
    a->entry_size = pop;
    return 0;
}

static int op_snapshot_devices(struct gc_sim_driver *d,
                               struct kfd_ioctl_dbg_trap_device_snapshot_args *a, struct out *o)
{
    uint32_t want = a->num_devices, esz = a->entry_size;
    uint32_t pop = esz < GC_SIM_DEVICE_ENTRY_SIZE ? esz : GC_SIM_DEVICE_ENTRY_SIZE;
    if (want && a->snapshot_buf_ptr == 0)
        return -EFAULT;
    uint32_t n = want < d->num_agents ? want : d->num_agents;
    for (uint32_t i = 0; i < n; i++) {
        out_put(o, GC_SIM_REC_DEVICE_ENTRY, &d->agents[i].e, pop);
        d->agents[i].e.exception_status &= ~a->exception_mask;
        d->agents[i].unreported &= ~a->exception_mask;
    }
    a->num_devices = d->num_agents;
    a->entry_size = pop;
    return 0;
}

static int op_queues(struct gc_sim_driver *d, int suspend, uint64_t clear_mask,
                     const struct gc_sim_request *r, struct out *o)
{
    int done = 0;
    for (uint32_t i = 0; i < r->num_ids; i++) {
        uint32_t raw = gc_le32_get(r->ids + 4u * i);
        uint32_t id = raw & GC_KFD_QUEUE_ID_MASK;
        uint32_t st = id;
        struct sim_queue *q = find_queue(d, id);
        if (q == NULL || (!suspend && !q->suspended)) {
            st |= KFD_DBG_QUEUE_INVALID_MASK;
        } else if (suspend ? q->fail_suspend : q->fail_resume) {
            st |= KFD_DBG_QUEUE_ERROR_MASK;
        } else if (suspend) {
            /* CWSR preemption: each XCC's waves are saved into the user save area and the
             * kernel's get_wave_state writes its header (on gfx9 copying the control stack).
             * A queue already off the hardware (evicted, or made inactive by the runtime) has
             * its waves saved: suspend_single_queue only marks it, get_wave_state still
             * writes the header. */
            for (uint32_t x = 0; x < q->num_xcc; x++) {
                if (q->saved_inactive)
                    put_header(d, &q->xcc[x]);
                else
                    context_save(d, &q->xcc[x]);
            }
            q->suspended = 1;
            q->e.exception_status &= ~clear_mask;
            q->unreported &= ~clear_mask;
            done++;
        } else {
            q->suspended = 0;
            done++;
        }
        out_put(o, GC_SIM_REC_QUEUE_ID, &st, sizeof(st));
    }
    return done;
}

static int op_query_event(struct gc_sim_driver *d,
                          struct kfd_ioctl_dbg_trap_query_debug_event_args *a)
{
    uint64_t m = d->exc_mask, clear = a->exception_mask;
    for (uint32_t i = 0; i < d->num_queues; i++) {
        struct sim_queue *q = &d->queues[i];
        if (q->unreported & m) {
            a->exception_mask = q->unreported & m;
            a->gpu_id = q->e.gpu_id;
            a->queue_id = q->e.queue_id;
            q->unreported &= ~m;
            q->e.exception_status &= ~clear;
            return 0;
        }
    }
    for (uint32_t i = 0; i < d->num_agents; i++) {
        struct sim_agent *g = &d->agents[i];
        if (g->unreported & m) {
            a->exception_mask = g->unreported & m;
            a->gpu_id = g->e.gpu_id;
            a->queue_id = KFD_INVALID_QUEUEID;
            g->unreported &= ~m;
            g->e.exception_status &= ~clear;
            return 0;
        }
    }
    if (d->proc_unreported & m) {
        a->exception_mask = d->proc_unreported & m;
        a->gpu_id = KFD_INVALID_GPUID;
        a->queue_id = KFD_INVALID_QUEUEID;
        d->proc_unreported &= ~m;
        d->proc_status &= ~clear;
        return 0;
    }
    return -EAGAIN;
}

/* The memory-exception record of GPU @p gpu_id: the last raised exception on it that is a memory
 * violation or has a fault address (zero when there is none). */
static void memory_exception(const struct gc_sim_driver *d, uint32_t gpu_id,
                             struct gc_sim_memory_exception *ret)
{
    memset(ret, 0, sizeof(*ret));
    for (uint32_t i = 0; i < d->num_exc; i++) {
        const struct gc_sim_exception *x = &d->exc[i].x;
        if (d->exc[i].raised && x->gpu_id == gpu_id &&
            (x->code == EC_DEVICE_MEMORY_VIOLATION || x->fault_va != 0)) {
            for (unsigned b = 0; b < GC_SIM_MEMORY_EXCEPTION_FLAGS; b++)
                ret->failure[b] = (x->fault_flags >> b) & 1u;
            ret->va = x->fault_va;
            ret->gpu_id = x->gpu_id;
            ret->error_type = x->error_type;
        }
    }
}

static int op_exception_info(struct gc_sim_driver *d,
                             struct kfd_ioctl_dbg_trap_query_exception_info_args *a, struct out *o)
{
    uint32_t code = a->exception_code;
    if (code == 0 || code >= EC_MAX)
        return -EINVAL;
    uint64_t bit = KFD_EC_MASK(code);
    enum gc_sim_record kind = gc_sim_exception_record(code);
    struct gc_sim_memory_exception mx;
    const void *rec = NULL; /* the record in host layout; NULL = none */
    uint64_t *status;
    if (code == EC_PROCESS_RUNTIME || code == EC_PROCESS_DEVICE_REMOVE) {
        status = &d->proc_status;
        /* The runtime-enable record is always there: the kernel keeps it from RUNTIME_ENABLE. */
        if (code == EC_PROCESS_RUNTIME) {
            rec = &d->rinfo;
        } else if (!(*status & bit)) {
            return -ENODATA;
        }
    } else if (bit & KFD_EC_MASK_DEVICE) {
        struct sim_agent *g = find_agent(d, a->source_id);
        if (g == NULL)
            return -EINVAL;
        status = &g->e.exception_status;
        if (!(*status & bit))
            return -ENODATA;
        if (code == EC_DEVICE_MEMORY_VIOLATION) {
            memory_exception(d, a->source_id, &mx);
            rec = &mx;
        }
    } else {
        struct sim_queue *q = find_queue(d, a->source_id);
        if (q == NULL)
            return -EINVAL;
        status = &q->e.exception_status;
        if (!(*status & bit))
            return -ENODATA;
    }
    uint32_t have = rec ? gc_sim_record_size(kind) : 0;
    if (have && a->info_size && a->info_ptr == 0)
        return -EFAULT;
    uint32_t n = a->info_size < have ? a->info_size : have;
    if (n)
        out_put(o, kind, rec, n);
    a->info_size = have;
    if (a->clear_exception)
        *status &= ~bit;
    return 0;
}

static int dbg_trap(struct gc_sim_driver *d, uint64_t conn_id, pid_t peer,
                    const struct gc_sim_request *r, struct kfd_ioctl_dbg_trap_args *a, int *fd,
                    struct out *o)
{
    int err = inject(d, (int)a->op);
    if (err)
        return err;
    if (a->pid != (uint32_t)(d->target_pid ? d->target_pid : getpid()))
        return -ESRCH;
    /* The checks of the kernel's kfd_ioctl_set_debug_trap, in its order (spec §11). */
    if (a->op != KFD_IOC_DBG_TRAP_DISABLE && !is_tracer(d, peer))
        return -EPERM;
    if (a->op != KFD_IOC_DBG_TRAP_ENABLE && !d->enabled)
        return -EINVAL;
    if (is_hw_op(a->op) && d->rinfo.runtime_state != DEBUG_RUNTIME_STATE_ENABLED)
        return -EPERM;
    if (d->no_hws)
        return -EINVAL;

    switch (a->op) {
    case KFD_IOC_DBG_TRAP_ENABLE: {
        if (d->enabled)
            return -EINVAL; /* one debugger per process */
        if (!is_file(*fd))
            return -EBADF;
        if (a->enable.rinfo_size && a->enable.rinfo_ptr == 0)
            return -EFAULT;
        uint32_t n =
                a->enable.rinfo_size < GC_SIM_RINFO_SIZE ? a->enable.rinfo_size : GC_SIM_RINFO_SIZE;
        out_put(o, GC_SIM_REC_RINFO, &d->rinfo, n);
        a->enable.rinfo_size = GC_SIM_RINFO_SIZE;
        d->enabled = 1;
        d->owner_conn = conn_id;
        d->event_fd = *fd;
        *fd = -1;
        d->exc_mask = a->enable.exception_mask;
        d->enable_ms = now_ms();
        if (!d->runtime_clock)
            gc_sim_driver_tick(d, 0);
        if (any_pending(d))
            signal_event(d);
        return 0;
    }
    case KFD_IOC_DBG_TRAP_DISABLE:
        do_disable(d);
        return 0;
    case KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT:
        return 0; /* no runtime enable is ever pending in the simulation */
    case KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
        d->exc_mask = a->set_exceptions_enabled.exception_mask;
        if (any_pending(d))
            signal_event(d);
        return 0;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE:
        if (a->launch_override.override_mode > 1)
            return -EINVAL;
        a->launch_override.support_request_mask = SIM_OVERRIDE_SUPPORTED;
        if (a->launch_override.enable_mask & ~SIM_OVERRIDE_SUPPORTED)
            return -EACCES;
        a->launch_override.enable_mask = SIM_OVERRIDE_SUPPORTED;
        return 0;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE: {
        uint32_t m = a->launch_mode.launch_mode;
        if (m != KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL && m != KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT &&
            m != KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG)
            return -EINVAL;
        d->launch_mode = m;
        return 0;
    }
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
        if (r->num_ids && a->suspend_queues.queue_array_ptr == 0)
            return -EFAULT;
        return op_queues(d, 1, a->suspend_queues.exception_mask, r, o);
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
        if (r->num_ids && a->resume_queues.queue_array_ptr == 0)
            return -EFAULT;
        return op_queues(d, 0, 0, r, o);
    case KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH:
        if (find_agent(d, a->set_node_address_watch.gpu_id) == NULL)
            return -EINVAL;
        for (uint32_t i = 0; i < SIM_MAX_WATCH; i++) {
            if (!(d->watch_used & (1u << i))) {
                d->watch_used |= 1u << i;
                a->set_node_address_watch.id = i;
                return 0;
            }
        }
        return -ENOMEM;
    case KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH:
        if (find_agent(d, a->clear_node_address_watch.gpu_id) == NULL ||
            a->clear_node_address_watch.id >= SIM_MAX_WATCH ||
            !(d->watch_used & (1u << a->clear_node_address_watch.id)))
            return -EINVAL;
        d->watch_used &= ~(1u << a->clear_node_address_watch.id);
        return 0;
    case KFD_IOC_DBG_TRAP_SET_FLAGS: {
        if (a->set_flags.flags & ~KFD_DBG_TRAP_FLAG_SINGLE_MEM_OP)
            return -EINVAL;
        uint32_t old = d->flags;
        d->flags = a->set_flags.flags;
        a->set_flags.flags = old; /* the kernel hands back the previous flags */
        return 0;
    }
    case KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT:
        return op_query_event(d, &a->query_debug_event);
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO:
        return op_exception_info(d, &a->query_exception_info, o);
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
        return op_snapshot_queues(d, &a->queue_snapshot, o);
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
        return op_snapshot_devices(d, &a->device_snapshot, o);
    default:
        return -EINVAL;
    }
}

size_t gc_sim_driver_handle(struct gc_sim_driver *d, uint64_t conn_id, pid_t peer_pid,
                            const uint8_t *req, size_t req_len, int fd, uint8_t *resp,
                            size_t resp_cap)
{
    struct gc_sim_request r;
    struct gc_sim_response s;
    size_t len = 0;
    memset(&s, 0, sizeof(s));
    if (resp_cap < GC_SIM_MAX_MESSAGE || gc_sim_request_decode(req, req_len, &r, NULL) < 0)
        goto out;
    tick_now(d);
    s.type = r.type;
    if (r.type == GC_SIM_MSG_GET_VERSION) {
        int err = inject(d, GC_SIM_OP_GET_VERSION);
        s.ret = err;
        if (!err) {
            s.major = d->major;
            s.minor = d->minor;
        }
        len = gc_sim_response_encode(&s, resp, resp_cap);
        goto out;
    }
    if (r.type == GC_SIM_MSG_DEVICE_INFO) {
        int en;
        /* What the device knows: no session and no ptrace relation needed. */
        s.info.service_tid = (uint32_t)__atomic_load_n(&d->thread_tid, __ATOMIC_ACQUIRE);
        s.info.read_delay_us_per_mib = d->read_delay_us_per_mib;
        gc_sim_driver_state(d, &en, &s.info.suspended_queues);
        s.info.debug_enabled = (uint32_t)en;
        s.info.total = d->num_allocs;
        s.info.first = r.first < d->num_allocs ? r.first : d->num_allocs;
        uint32_t left = d->num_allocs - s.info.first;
        s.info.count = left < GC_SIM_MAX_ALLOCS_PER_MSG ? left : GC_SIM_MAX_ALLOCS_PER_MSG;
        uint8_t *ent = gc_malloc((size_t)s.info.count * GC_SIM_ALLOC_ENTRY_SIZE + 1u);
        if (ent == NULL) {
            s.ret = -ENOMEM;
            s.info.count = 0;
        } else {
            for (uint32_t i = 0; i < s.info.count; i++)
                gc_sim_alloc_encode(&d->allocs[s.info.first + i],
                                    ent + (size_t)i * GC_SIM_ALLOC_ENTRY_SIZE);
        }
        s.out = ent;
        s.out_len = s.info.count * GC_SIM_ALLOC_ENTRY_SIZE;
        len = gc_sim_response_encode(&s, resp, resp_cap);
        gc_free(ent);
        goto out;
    }
    /* Outputs go straight into the response message, after header, ret, args and out_len. */
    struct out o = { resp + GC_SIM_DBG_TRAP_OUT_OFFSET, 0 };
    s.args = r.args;
    s.ret = dbg_trap(d, conn_id, peer_pid, &r, &s.args, &fd, &o);
    if (s.ret < 0)
        o.len = 0; /* a failed ioctl copies nothing back */
    /* The outputs are already in place; only the frame around them is written. */
    len = gc_sim_dbg_trap_frame(s.ret, &s.args, o.len, resp);
out:
    if (fd >= 0)
        close(fd);
    return len;
}

/* ---- server ---- */

static void conn_close(struct gc_sim_driver *d, struct sim_conn *c)
{
    gc_sim_driver_disconnect(d, c->id);
    close(c->fd);
    c->fd = -1;
}

static void accept_one(struct gc_sim_driver *d)
{
    int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct ucred cred;
    socklen_t cl = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0) {
        close(fd);
        return;
    }
    for (int i = 0; i < SIM_MAX_CONNS; i++) {
        if (d->conns[i].fd < 0) {
            d->conns[i].fd = fd;
            d->conns[i].id = ++d->next_conn_id;
            d->conns[i].pid = cred.pid;
            return;
        }
    }
    close(fd); /* too many clients: refuse rather than grow without bound */
}

static void serve_one(struct gc_sim_driver *d, struct sim_conn *c)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { d->req_buf, GC_SIM_MAX_MESSAGE };
    struct msghdr m;
    memset(&m, 0, sizeof(m));
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof(ctl.buf);
    ssize_t n = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    int fd = -1;
    for (struct cmsghdr *h = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; h; h = CMSG_NXTHDR(&m, h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
            size_t nfd = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            int *fds = (int *)(void *)CMSG_DATA(h);
            for (size_t i = 0; i < nfd; i++) {
                int f;
                memcpy(&f, &fds[i], sizeof(f));
                if (fd < 0)
                    fd = f;
                else
                    close(f);
            }
        }
    }
    if (n <= 0 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        if (fd >= 0)
            close(fd);
        conn_close(d, c);
        return;
    }
    size_t len = gc_sim_driver_handle(d, c->id, c->pid, d->req_buf, (size_t)n, fd, d->resp_buf,
                                      GC_SIM_MAX_MESSAGE);
    /* Never block on a client that does not read its answers: the real debugger must not be
     * starved by it. The kernel would have queued the whole answer, so a full queue is a
     * client that is not following the protocol, and it loses its connection. */
    if (len == 0 || send(c->fd, d->resp_buf, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len)
        conn_close(d, c);
    /* After the answer went out: a DISABLE is answered before the runtime acts on the error. */
    gc_sim_driver_flush_runtime(d);
}

static void *server_main(void *arg)
{
    struct gc_sim_driver *d = arg;
    __atomic_store_n(&d->thread_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    for (;;) {
        struct pollfd p[2 + SIM_MAX_CONNS];
        struct sim_conn *who[2 + SIM_MAX_CONNS];
        nfds_t np = 0;
        p[np] = (struct pollfd){ d->wake[0], POLLIN, 0 };
        who[np++] = NULL;
        p[np] = (struct pollfd){ d->listen_fd, POLLIN, 0 };
        who[np++] = NULL;
        for (int i = 0; i < SIM_MAX_CONNS; i++) {
            if (d->conns[i].fd >= 0) {
                p[np] = (struct pollfd){ d->conns[i].fd, POLLIN, 0 };
                who[np++] = &d->conns[i];
            }
        }
        int rc = poll(p, np, next_due(d));
        tick_now(d);
        gc_sim_driver_flush_runtime(d);
        if (rc < 0)
            continue;
        if (p[0].revents)
            break;
        if (p[1].revents & POLLIN)
            accept_one(d);
        for (nfds_t i = 2; i < np; i++)
            if (p[i].revents && who[i]->fd >= 0)
                serve_one(d, who[i]);
    }
    return NULL;
}

gpucore_status_t gc_sim_driver_start(const struct gc_sim_process *desc, const char *socket_name,
                                     struct gc_sim_driver **ret, gpucore_diag_t *diag)
{
    struct gc_sim_driver *d;
    GC_FAIL_IF(ret == NULL, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "sim driver: no result pointer");
    GC_TRY(gc_sim_driver_create(desc, &d, diag));
    if (socket_name)
        snprintf(d->name, sizeof(d->name), "%s%s", socket_name[0] == '@' ? "" : "@", socket_name);
    else
        gc_sim_default_socket_name(getpid(), d->name, sizeof(d->name));
    gpucore_status_t st = GPUCORE_E_IO;
    d->req_buf = gc_malloc(GC_SIM_MAX_MESSAGE);
    d->resp_buf = gc_malloc(GC_SIM_MAX_MESSAGE);
    if (!d->req_buf || !d->resp_buf) {
        gc_sim_driver_destroy(d);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "sim driver: out of memory");
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    size_t nl = strlen(d->name + 1);
    if (nl == 0 || nl > sizeof(sa.sun_path) - 1) {
        gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "sim driver: bad socket name \"%s\"",
                    d->name);
        gc_sim_driver_destroy(d);
        return GPUCORE_E_INVAL;
    }
    memcpy(sa.sun_path + 1, d->name + 1, nl); /* abstract: sun_path[0] stays 0 */
    d->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (d->listen_fd < 0 || pipe2(d->wake, O_CLOEXEC) != 0) {
        gc_diag_set(diag, st, GC_NO_OFFSET, "sim driver: socket: %s", strerror(errno));
        goto fail;
    }
    if (bind(d->listen_fd, (struct sockaddr *)&sa,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl)) != 0) {
        st = errno == EADDRINUSE ? GPUCORE_E_EXIST : GPUCORE_E_IO;
        gc_diag_set(diag, st, GC_NO_OFFSET, "sim driver: bind %s: %s", d->name, strerror(errno));
        goto fail;
    }
    if (listen(d->listen_fd, 8) != 0) {
        gc_diag_set(diag, st, GC_NO_OFFSET, "sim driver: listen: %s", strerror(errno));
        goto fail;
    }
    int e = pthread_create(&d->thread, NULL, server_main, d);
    if (e != 0) {
        gc_diag_set(diag, st, GC_NO_OFFSET, "sim driver: thread: %s", strerror(e));
        goto fail;
    }
    /* Named so a capturer can recognize (and leave running) the driver's own thread. */
    pthread_setname_np(d->thread, "gpucore-kfd-sim");
    d->thread_started = 1;
    /* Wait for the thread to publish its tid, so gc_sim_driver_thread_tid() is valid on return. */
    while (__atomic_load_n(&d->thread_tid, __ATOMIC_ACQUIRE) == 0)
        sleep_ms(1);
    *ret = d;
    return GPUCORE_OK;
fail:
    if (d->listen_fd >= 0)
        close(d->listen_fd);
    if (d->wake[0] >= 0) {
        close(d->wake[0]);
        close(d->wake[1]);
    }
    gc_sim_driver_destroy(d);
    return st;
}

void gc_sim_driver_stop(struct gc_sim_driver *d)
{
    if (d == NULL)
        return;
    if (d->thread_started) {
        char c = 1;
        ssize_t w = write(d->wake[1], &c, 1);
        (void)w;
        pthread_join(d->thread, NULL);
    }
    /* Shutting down: the runtime is going away too, it acts on nothing any more. */
    d->runtime_error = NULL;
    for (int i = 0; i < SIM_MAX_CONNS; i++)
        if (d->conns[i].fd >= 0)
            conn_close(d, &d->conns[i]);
    if (d->listen_fd >= 0)
        close(d->listen_fd);
    if (d->wake[0] >= 0) {
        close(d->wake[0]);
        close(d->wake[1]);
    }
    gc_sim_driver_destroy(d);
}

const char *gc_sim_driver_socket_name(const struct gc_sim_driver *d)
{
    return d->name;
}

pid_t gc_sim_driver_thread_tid(const struct gc_sim_driver *d)
{
    return __atomic_load_n(&d->thread_tid, __ATOMIC_ACQUIRE);
}
