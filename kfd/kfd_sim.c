/* SPDX-License-Identifier: MIT */
/*
 * The sim backend: a client of the simulated driver that gpucore-inferior hosts (kfd/sim/).
 * It plays the part of the ioctl transport only: each DBG_TRAP becomes one request message with
 * the kernel's argument struct encoded field by field (kfd_sim_protocol.h), and the outputs the
 * driver sends back are copied to the addresses in the args, exactly where the kernel would
 * have written them, so kfd.c cannot tell the two backends apart. Target memory is read from
 * the real inferior process like on the linux backend (slowed down by the driver's injected
 * read delay, if any). What only the device knows — its allocations, the driver's own thread,
 * its debug state — comes from the DEVICE_INFO request, which needs no session.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gc_le.h"
#include "gc_util.h"
#include "kfd_internal.h"
#include "kfd_sim_protocol.h"

/* Seconds to wait for the simulated driver's answer. */
#define GC_KFD_SIM_TIMEOUT_S 20

struct sim_client {
    int fd;
    uint8_t *buf; /* one message, GC_SIM_MAX_MESSAGE bytes, reused for request and response */
    int have_delay;          /* read_delay_us_per_mib was asked for */
    uint32_t delay_us_per_mib;
};

static gpucore_status_t sim_open(struct gc_kfd *k, const struct gc_kfd_open_opts *o,
                                 gpucore_diag_t *diag)
{
    char name[108];
    if (o->sim_socket)
        snprintf(name, sizeof(name), "%s%s", o->sim_socket[0] == '@' ? "" : "@", o->sim_socket);
    else
        snprintf(name, sizeof(name), "@gpucore-kfd-sim.%ld", (long)k->pid);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    size_t nl = strlen(name + 1);
    GC_FAIL_IF(nl == 0 || nl > sizeof(sa.sun_path) - 1, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "bad simulated driver socket name \"%s\"", name);
    memcpy(sa.sun_path + 1, name + 1, nl); /* abstract namespace: sun_path[0] is 0 */

    struct sim_client *c = gc_calloc_array(1, sizeof(*c));
    GC_FAIL_IF(!c, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    c->buf = gc_malloc(GC_SIM_MAX_MESSAGE);
    c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (!c->buf || c->fd < 0) {
        gpucore_status_t st = !c->buf ? GPUCORE_E_NOMEM : GPUCORE_E_IO;
        if (c->fd >= 0)
            close(c->fd);
        gc_free(c->buf);
        gc_free(c);
        return gc_diag_set(diag, st, GC_NO_OFFSET, "cannot create the simulated driver socket");
    }
    /* A driver that never answers (its thread stopped by a ptrace group stop, or a wedged
     * inferior) must become an error, not a debugger hung forever in recv. */
    struct timeval tv = { GC_KFD_SIM_TIMEOUT_S, 0 };
    if (o->sim_timeout_ms)
        tv = (struct timeval){ (time_t)(o->sim_timeout_ms / 1000),
                               (suseconds_t)(o->sim_timeout_ms % 1000) * 1000 };
    (void)setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    (void)setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(c->fd, (struct sockaddr *)&sa,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl)) != 0) {
        int e = errno;
        close(c->fd);
        gc_free(c->buf);
        gc_free(c);
        if (e == ECONNREFUSED || e == ENOENT)
            return gc_diag_set(diag, GPUCORE_E_NODEV, GC_NO_OFFSET,
                               "no simulated GPU driver for process %ld (is it a "
                               "gpucore-inferior?)",
                               (long)k->pid);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "cannot connect to the simulated GPU driver %s: %s", name, strerror(e));
    }
    k->backend = c;
    return GPUCORE_OK;
}

static void sim_close(struct gc_kfd *k)
{
    struct sim_client *c = k->backend;
    if (!c)
        return;
    /* Closing the connection is the driver's cue for an implicit DISABLE, like close(/dev/kfd). */
    close(c->fd);
    gc_free(c->buf);
    gc_free(c);
    k->backend = NULL;
}

/*
 * One round trip. @p send_fd (>= 0) travels as SCM_RIGHTS. Returns 0 with *ret decoded (borrowing
 * c->buf) or -errno: a driver that went away reads as ESRCH, the process being gone.
 */
static int round_trip(struct sim_client *c, size_t len, int send_fd, struct gc_sim_response *ret)
{
    struct iovec iov = { c->buf, len };
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m;
    memset(&m, 0, sizeof(m));
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (send_fd >= 0) {
        memset(&ctl, 0, sizeof(ctl));
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof(ctl.buf);
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &send_fd, sizeof(int));
    }
    ssize_t n;
    do
        n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EPIPE || errno == ECONNRESET ? -ESRCH : errno == EAGAIN ? -ETIMEDOUT : -EIO;
    do
        n = recv(c->fd, c->buf, GC_SIM_MAX_MESSAGE, MSG_TRUNC);
    while (n < 0 && errno == EINTR);
    if (n == 0 || (n < 0 && errno == ECONNRESET))
        return -ESRCH;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return -ETIMEDOUT;
    if (n < 0 || (size_t)n > GC_SIM_MAX_MESSAGE)
        return -EIO;
    if (gc_sim_response_decode(c->buf, (size_t)n, ret, NULL) != GPUCORE_OK)
        return -EIO;
    return 0;
}

static int sim_get_version(struct gc_kfd *k, struct kfd_ioctl_get_version_args *args)
{
    struct sim_client *c = k->backend;
    struct gc_sim_response r;
    size_t len = gc_sim_request_encode(GC_SIM_MSG_GET_VERSION, NULL, NULL, 0, c->buf,
                                       GC_SIM_MAX_MESSAGE);
    int rc = len ? round_trip(c, len, -1, &r) : -EINVAL;
    if (rc < 0)
        return rc;
    if (r.type != GC_SIM_MSG_GET_VERSION)
        return -EIO;
    if (r.ret < 0)
        return r.ret;
    args->major_version = r.major;
    args->minor_version = r.minor;
    return 0;
}

static void *user_ptr(uint64_t addr)
{
    return (void *)(uintptr_t)addr;
}

/*
 * Copy the driver's output for one op (its row @p def) to the caller's buffers in the host
 * layout, where the kernel's copy_to_user would have put it. @p in: the args as the caller gave
 * them (pointers, capacities); @p out: as the driver left them (the populated entry size).
 * Every output length is checked against the caller's capacity: a confused driver must not
 * make us write past the caller's buffers. 0, or -EIO.
 */
static int put_output(const struct gc_sim_op_output *def, const struct kfd_ioctl_dbg_trap_args *in,
                      const struct kfd_ioctl_dbg_trap_args *out, const struct gc_sim_response *r)
{
    uint8_t *dst = user_ptr(gc_sim_args_u64(in, def->ptr));
    uint32_t cap = gc_sim_args_u32(in, def->cap);
    enum gc_sim_record rec = def->record == GC_SIM_REC_BY_CODE
                                     ? gc_sim_exception_record(gc_sim_args_u32(in, def->code))
                                     : def->record;
    uint32_t size = gc_sim_record_size(rec);

    switch (def->shape) {
    case GC_SIM_OUT_PREFIX:
        /* at most the caller's bytes and the largest record the row allows */
        if (r->out_len > cap || r->out_len > gc_sim_record_size(def->record))
            return -EIO;
        if (r->out_len)
            gc_sim_record_decode(rec, r->out, r->out_len, dst);
        return 0;
    case GC_SIM_OUT_IDS:
        if (r->out_len != cap * size)
            return -EIO;
        for (uint32_t i = 0; i < cap; i++)
            gc_sim_record_decode(rec, r->out + (size_t)i * size, size, dst + (size_t)i * size);
        return 0;
    case GC_SIM_OUT_ENTRIES: {
        /* packed at the populated size, strided at the caller's */
        uint32_t stride = gc_sim_args_u32(in, def->entry_size);
        uint32_t pop = gc_sim_args_u32(out, def->entry_size);

        if (pop > stride || pop > size)
            return -EIO;
        if (pop == 0 || r->out_len == 0)
            return r->out_len ? -EIO : 0;
        uint32_t n = r->out_len / pop;
        if ((uint64_t)n * pop != r->out_len || n > cap)
            return -EIO;
        for (uint32_t i = 0; i < n; i++)
            gc_sim_record_decode(rec, r->out + (size_t)i * pop, pop, dst + (size_t)i * stride);
        return 0;
    }
    default:
        return r->out_len ? -EIO : 0;
    }
}

static int sim_dbg_trap(struct gc_kfd *k, struct kfd_ioctl_dbg_trap_args *args)
{
    struct sim_client *c = k->backend;
    const struct gc_sim_op_output *def = gc_sim_op_output(args->op);
    const uint32_t *ids = NULL;
    uint32_t num_ids = 0;
    int send_fd = -1;

    if (args->op == KFD_IOC_DBG_TRAP_ENABLE) {
        /* The kernel takes a reference on dbg_fd; here the fd itself crosses the socket. */
        send_fd = (int)args->enable.dbg_fd;
        if (send_fd < 0 || args->enable.dbg_fd == KFD_INVALID_FD)
            return -EBADF;
    }
    if (def->shape == GC_SIM_OUT_IDS) { /* the id array is the op's input too */
        num_ids = gc_sim_args_u32(args, def->cap);
        ids = user_ptr(gc_sim_args_u64(args, def->ptr));
    }
    if (num_ids > GC_SIM_MAX_IDS)
        return -EINVAL;
    if (num_ids && !ids)
        return -EFAULT;

    size_t len = gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, args, ids, num_ids, c->buf,
                                       GC_SIM_MAX_MESSAGE);
    if (len == 0)
        return -EINVAL;
    struct gc_sim_response r;
    int rc = round_trip(c, len, send_fd, &r);
    if (rc < 0)
        return rc;
    if (r.type != GC_SIM_MSG_DBG_TRAP || r.args.op != args->op)
        return -EIO;

    /* Caller capacities before the driver's answer overwrites the args. */
    const struct kfd_ioctl_dbg_trap_args in = *args;
    uint32_t op = args->op;
    /* The driver's view of the args (written-back sizes and counts); the pointers it echoes are
     * the ones we sent. */
    uint32_t pid = args->pid;
    *args = r.args;
    args->pid = pid;
    args->op = op;
    if (r.ret < 0)
        return r.ret;

    return put_output(def, &in, args, &r) < 0 ? -EIO : r.ret;
}

/* One DEVICE_INFO round trip from allocation @p first. 0 or -errno; *ret borrows c->buf. */
static int device_info(struct sim_client *c, uint32_t first, struct gc_sim_response *ret)
{
    size_t len = gc_sim_info_request_encode(first, c->buf, GC_SIM_MAX_MESSAGE);
    int rc = len ? round_trip(c, len, -1, ret) : -EINVAL;
    if (rc < 0)
        return rc;
    if (ret->type != GC_SIM_MSG_DEVICE_INFO)
        return -EIO;
    if (ret->ret < 0)
        return ret->ret;
    /* An answer for other entries than asked is a confused driver. */
    if (ret->info.first != first && !(ret->info.count == 0 && first >= ret->info.total))
        return -EIO;
    return 0;
}

static void sleep_us(uint64_t us)
{
    struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int sim_read_memory(struct gc_kfd *k, uint64_t addr, void *buf, size_t size,
                           size_t *ret_done)
{
    struct sim_client *c = k->backend;
    /* Injected slowness (a scenario's read_memory delay_us_per_mib): asked for once. A driver
     * that cannot say means no delay. */
    if (!c->have_delay) {
        struct gc_sim_response r;
        c->have_delay = 1;
        c->delay_us_per_mib = device_info(c, 0, &r) == 0 ? r.info.read_delay_us_per_mib : 0;
    }
    if (c->delay_us_per_mib && size) {
        /* Whole MiB and the rest apart: no overflow for any size. */
        uint64_t mib = (uint64_t)size >> 20, rest = (uint64_t)size & ((1u << 20) - 1u);
        sleep_us(mib * c->delay_us_per_mib + ((rest * c->delay_us_per_mib) >> 20));
    }
    /* The inferior is a real process: its memory is read like any other target's. */
    return gc_kfd_read_process_memory(k, addr, buf, size, ret_done);
}

/* A failed DEVICE_INFO: ESRCH (the process is gone) and ENOMEM keep their statuses unless
 * @p io_only (a contract that knows only E_IO). */
static gpucore_status_t info_fail(int rc, gpucore_diag_t *diag, int io_only)
{
    gpucore_status_t st = io_only        ? GPUCORE_E_IO
                          : rc == -ESRCH  ? GPUCORE_E_NOTFOUND
                          : rc == -ENOMEM ? GPUCORE_E_NOMEM
                                          : GPUCORE_E_IO;
    return gc_diag_set(diag, st, GC_NO_OFFSET,
                       "the simulated GPU driver did not answer the DEVICE_INFO request: %s",
                       strerror(-rc));
}

static int cmp_map(const void *a, const void *b)
{
    const struct gc_kfd_mapping *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

static gpucore_status_t sim_gpu_mappings(struct gc_kfd *k, struct gc_kfd_mapping **ret_maps,
                                         uint32_t *ret_count, gpucore_diag_t *diag)
{
    struct sim_client *c = k->backend;
    struct gc_kfd_mapping *maps = NULL;
    uint32_t total = 0, got = 0;
    for (;;) {
        struct gc_sim_response r;
        int rc = device_info(c, got, &r);
        if (rc < 0) {
            gc_free(maps);
            return info_fail(rc, diag, 0);
        }
        /* The read delay comes with every answer: noted now, so reading memory later never
         * needs the driver's thread (a capture stops it to read the host part). */
        c->have_delay = 1;
        c->delay_us_per_mib = r.info.read_delay_us_per_mib;
        if (maps == NULL) {
            if (r.info.total > GC_SIM_MAX_ALLOCS) {
                return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                                   "the simulated GPU driver lists %u allocations, more than %u",
                                   r.info.total, GC_SIM_MAX_ALLOCS);
            }
            total = r.info.total;
            maps = gc_calloc_array(total + 1u, sizeof(*maps));
            GC_FAIL_IF(!maps, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        }
        /* The list must not change between pages (it is fixed at the inferior's start). */
        if (r.info.total != total || (r.info.count == 0 && got < total)) {
            gc_free(maps);
            return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "the simulated GPU driver's allocation list changed from %u to "
                               "%u entries while it was read",
                               total, r.info.total);
        }
        for (uint32_t i = 0; i < r.info.count; i++) {
            struct gc_sim_alloc a;
            gc_sim_alloc_decode(r.out + (size_t)i * GC_SIM_ALLOC_ENTRY_SIZE, &a);
            struct gc_kfd_mapping *m = &maps[got + i];
            m->base = a.base;
            m->size = a.size;
            m->kind = a.kind;
            m->gpu_id = a.gpu_id;
            m->flags = a.flags;
            snprintf(m->label, sizeof(m->label), "%s", a.label);
        }
        got += r.info.count;
        if (got >= total)
            break;
    }
    qsort(maps, total, sizeof(*maps), cmp_map);
    for (uint32_t i = 0; i < total; i++) {
        /* The contract says sorted and non-overlapping: a driver that says otherwise (or an
         * allocation that wraps) is not believed. */
        if (maps[i].size == 0 || maps[i].base + maps[i].size < maps[i].base ||
            (i && maps[i - 1].base + maps[i - 1].size > maps[i].base)) {
            uint64_t b = maps[i].base;
            gc_free(maps);
            return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "the simulated GPU driver lists an empty, wrapping or overlapping "
                               "allocation at 0x%llx",
                               (unsigned long long)b);
        }
    }
    *ret_maps = maps;
    *ret_count = total;
    return GPUCORE_OK;
}

static gpucore_status_t sim_service_threads(struct gc_kfd *k, pid_t *ret_tids, uint32_t cap,
                                            uint32_t *ret_count, gpucore_diag_t *diag)
{
    struct sim_client *c = k->backend;
    struct gc_sim_response r;
    /* first = UINT32_MAX: no entries wanted, only the fixed part. The contract knows only
     * E_IO for a driver that does not answer, gone or not. */
    int rc = device_info(c, UINT32_MAX, &r);
    if (rc < 0)
        return info_fail(rc, diag, 1);
    GC_FAIL_IF(r.info.service_tid == 0 || r.info.service_tid > INT32_MAX, diag, GPUCORE_E_IO,
               GC_NO_OFFSET, "the simulated GPU driver reports service thread %u",
               r.info.service_tid);
    if (cap)
        ret_tids[0] = (pid_t)r.info.service_tid;
    *ret_count = 1;
    return GPUCORE_OK;
}

static gpucore_status_t sim_driver_state(struct gc_kfd *k, int *ret_debug_enabled,
                                         uint32_t *ret_suspended_queues, gpucore_diag_t *diag)
{
    struct sim_client *c = k->backend;
    struct gc_sim_response r;
    int rc = device_info(c, UINT32_MAX, &r);
    if (rc < 0)
        return info_fail(rc, diag, 0);
    GC_FAIL_IF(r.info.debug_enabled > 1, diag, GPUCORE_E_IO, GC_NO_OFFSET,
               "the simulated GPU driver reports debug_enabled %u", r.info.debug_enabled);
    if (ret_debug_enabled)
        *ret_debug_enabled = (int)r.info.debug_enabled;
    if (ret_suspended_queues)
        *ret_suspended_queues = r.info.suspended_queues;
    return GPUCORE_OK;
}

const struct gc_kfd_backend_ops gc_kfd_sim_ops = {
    .name = "sim",
    .open = sim_open,
    .get_version = sim_get_version,
    .dbg_trap = sim_dbg_trap,
    .read_memory = sim_read_memory,
    .gpu_mappings = sim_gpu_mappings,
    .service_threads = sim_service_threads,
    .driver_state = sim_driver_state,
    .close = sim_close,
};
