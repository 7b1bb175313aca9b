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

/* Copy @p n entries of @p pop bytes (the driver's LE layout) to @p dst strided by @p stride,
 * converting each to the host layout first. */
static void put_entries(uint32_t op, const uint8_t *src, uint32_t n, uint32_t pop, uint8_t *dst,
                        uint32_t stride)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t img[GC_SIM_DEVICE_ENTRY_SIZE];
        memset(img, 0, sizeof(img));
        memcpy(img, src + (size_t)i * pop, pop);
        uint8_t *to = dst + (size_t)i * stride;
        if (op == KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT) {
            struct kfd_queue_snapshot_entry e;
            gc_sim_queue_entry_decode(img, &e);
            memcpy(to, &e, pop);
        } else {
            struct kfd_dbg_device_info_entry e;
            gc_sim_device_entry_decode(img, &e);
            memcpy(to, &e, pop);
        }
    }
}

/* QUERY_EXCEPTION_INFO payloads in host layout: the runtime info, or the memory-exception
 * record (u32 x4 failure flags, u64 va, u32 gpu_id, u32 error type). */
static void put_exception_info(uint32_t code, const uint8_t *src, uint32_t n, uint8_t *dst)
{
    uint8_t img[32];
    uint8_t host[32];
    memset(img, 0, sizeof(img));
    memcpy(img, src, n);
    if (code == EC_PROCESS_RUNTIME) {
        struct kfd_runtime_info r;
        gc_sim_rinfo_decode(img, &r);
        memcpy(host, &r, sizeof(r));
    } else {
        for (unsigned i = 0; i < 4; i++) {
            uint32_t v = gc_le32_get(img + 4 * i);
            memcpy(host + 4 * i, &v, 4);
        }
        uint64_t va = gc_le64_get(img + 16);
        uint32_t gpu = gc_le32_get(img + 24), type = gc_le32_get(img + 28);
        memcpy(host + 16, &va, 8);
        memcpy(host + 24, &gpu, 4);
        memcpy(host + 28, &type, 4);
    }
    memcpy(dst, host, n);
}

static void *user_ptr(uint64_t addr)
{
    return (void *)(uintptr_t)addr;
}

static int sim_dbg_trap(struct gc_kfd *k, struct kfd_ioctl_dbg_trap_args *args)
{
    struct sim_client *c = k->backend;
    const uint32_t *ids = NULL;
    uint32_t num_ids = 0;
    int send_fd = -1;

    switch (args->op) {
    case KFD_IOC_DBG_TRAP_ENABLE:
        /* The kernel takes a reference on dbg_fd; here the fd itself crosses the socket. */
        send_fd = (int)args->enable.dbg_fd;
        if (send_fd < 0 || args->enable.dbg_fd == KFD_INVALID_FD)
            return -EBADF;
        break;
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
        num_ids = args->suspend_queues.num_queues;
        ids = user_ptr(args->suspend_queues.queue_array_ptr);
        break;
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
        num_ids = args->resume_queues.num_queues;
        ids = user_ptr(args->resume_queues.queue_array_ptr);
        break;
    default:
        break;
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

    /* Every output length is checked against the caller's capacity: a confused driver must not
     * make us write past the caller's buffers. */
    switch (op) {
    case KFD_IOC_DBG_TRAP_ENABLE: {
        uint32_t cap =
                in.enable.rinfo_size < GC_SIM_RINFO_SIZE ? in.enable.rinfo_size : GC_SIM_RINFO_SIZE;
        if (r.out_len > cap)
            return -EIO;
        if (r.out_len) {
            uint8_t img[GC_SIM_RINFO_SIZE];
            struct kfd_runtime_info ri;
            memset(img, 0, sizeof(img));
            memcpy(img, r.out, r.out_len);
            gc_sim_rinfo_decode(img, &ri);
            memcpy(user_ptr(in.enable.rinfo_ptr), &ri, r.out_len);
        }
        break;
    }
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES: {
        if (r.out_len != num_ids * 4u)
            return -EIO;
        uint32_t *dst =
                user_ptr(op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES ? in.suspend_queues.queue_array_ptr
                                                               : in.resume_queues.queue_array_ptr);
        for (uint32_t i = 0; i < num_ids; i++)
            dst[i] = gc_le32_get(r.out + 4u * i);
        break;
    }
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT: {
        int q = op == KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
        uint32_t want = q ? in.queue_snapshot.num_queues : in.device_snapshot.num_devices;
        uint32_t stride = q ? in.queue_snapshot.entry_size : in.device_snapshot.entry_size;
        uint32_t pop = q ? args->queue_snapshot.entry_size : args->device_snapshot.entry_size;
        uint32_t full = q ? GC_SIM_QUEUE_ENTRY_SIZE : GC_SIM_DEVICE_ENTRY_SIZE;
        uint64_t base =
                q ? in.queue_snapshot.snapshot_buf_ptr : in.device_snapshot.snapshot_buf_ptr;
        if (pop > stride || pop > full)
            return -EIO;
        if (pop == 0 || r.out_len == 0) {
            if (r.out_len)
                return -EIO;
            break;
        }
        uint32_t n = r.out_len / pop;
        if ((uint64_t)n * pop != r.out_len || n > want)
            return -EIO;
        put_entries(op, r.out, n, pop, user_ptr(base), stride);
        break;
    }
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO:
        if (r.out_len > in.query_exception_info.info_size || r.out_len > 32)
            return -EIO;
        if (r.out_len)
            put_exception_info(in.query_exception_info.exception_code, r.out, r.out_len,
                               user_ptr(in.query_exception_info.info_ptr));
        break;
    default:
        if (r.out_len)
            return -EIO;
        break;
    }
    return r.ret;
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
