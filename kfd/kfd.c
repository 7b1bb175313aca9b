/* SPDX-License-Identifier: MIT */
/*
 * The shared layer of the KFD boundary: everything above the raw uapi. Backends only move
 * argument structs to a driver and back (kfd_internal.h); the version window, the event fd,
 * entry-size negotiation, errno mapping and the wording of every failure live here once, so the
 * real driver and the simulated one are held to exactly the same rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "gc_util.h"
#include "kfd_internal.h"

/* The backends, by enum gc_kfd_backend. */
static const struct gc_kfd_backend_ops *const backends[] = {
    [GC_KFD_BACKEND_LINUX] = &gc_kfd_linux_ops,
    [GC_KFD_BACKEND_SIM] = &gc_kfd_sim_ops,
};

/* errno -> status, the table documented in kfd.h, with the reason each errno means there. */
static const struct {
    int err;
    gpucore_status_t status;
    const char *why;
} errno_map[] = {
    { EPERM, GPUCORE_E_PERM,
      "not the target's ptrace parent, or the GPU runtime is not enabled in it" },
    { EACCES, GPUCORE_E_PERM, "the GPU runtime is not enabled in the target" },
    { EINVAL, GPUCORE_E_INVAL,
      "debugging is not enabled, another debugger holds the target, or the GPU has no hardware "
      "scheduling" },
    { ENODEV, GPUCORE_E_NODEV, "a GPU does not support debugging" },
    { ESRCH, GPUCORE_E_NOTFOUND, "the target process no longer exists" },
    { EBUSY, GPUCORE_E_LIMIT, "a runtime enable is pending in the target" },
    { EFAULT, GPUCORE_E_IO, "the driver could not copy the arguments" },
    { EIO, GPUCORE_E_IO, "the driver reported an I/O error" },
};

gpucore_status_t gc_kfd_status_from_errno(int err)
{
    if (err < 0)
        err = -err;
    if (err == 0)
        return GPUCORE_OK;
    for (size_t i = 0; i < GC_ARRAY_SIZE(errno_map); i++)
        if (errno_map[i].err == err)
            return errno_map[i].status;
    return GPUCORE_E_IO;
}

static const char *errno_why(int err)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(errno_map); i++)
        if (errno_map[i].err == err)
            return errno_map[i].why;
    return NULL;
}

/* Names of the DBG_TRAP operations, for messages. */
static const char *const op_names[] = {
    [KFD_IOC_DBG_TRAP_ENABLE] = "ENABLE",
    [KFD_IOC_DBG_TRAP_DISABLE] = "DISABLE",
    [KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT] = "SEND_RUNTIME_EVENT",
    [KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED] = "SET_EXCEPTIONS_ENABLED",
    [KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE] = "SET_WAVE_LAUNCH_OVERRIDE",
    [KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE] = "SET_WAVE_LAUNCH_MODE",
    [KFD_IOC_DBG_TRAP_SUSPEND_QUEUES] = "SUSPEND_QUEUES",
    [KFD_IOC_DBG_TRAP_RESUME_QUEUES] = "RESUME_QUEUES",
    [KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH] = "SET_NODE_ADDRESS_WATCH",
    [KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH] = "CLEAR_NODE_ADDRESS_WATCH",
    [KFD_IOC_DBG_TRAP_SET_FLAGS] = "SET_FLAGS",
    [KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT] = "QUERY_DEBUG_EVENT",
    [KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO] = "QUERY_EXCEPTION_INFO",
    [KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT] = "GET_QUEUE_SNAPSHOT",
    [KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT] = "GET_DEVICE_SNAPSHOT",
};

/* "DBG_TRAP OP on process N failed: strerror (why)" with the mapped status. */
static gpucore_status_t trap_fail(const struct gc_kfd *k, uint32_t op, int err,
                                  gpucore_diag_t *diag)
{
    const char *name = op < GC_ARRAY_SIZE(op_names) && op_names[op] ? op_names[op] : "?";
    const char *why = errno_why(err);

    if (why)
        return gc_diag_set(diag, gc_kfd_status_from_errno(err), GC_NO_OFFSET,
                           "KFD DBG_TRAP %s on process %d failed: %s (%s)", name, (int)k->pid,
                           strerror(err), why);
    return gc_diag_set(diag, gc_kfd_status_from_errno(err), GC_NO_OFFSET,
                       "KFD DBG_TRAP %s on process %d failed: %s", name, (int)k->pid,
                       strerror(err));
}

/*
 * One DBG_TRAP call. Returns the driver's non-negative result (queue counts for SUSPEND/RESUME)
 * or -errno; the caller decides which errnos are not failures (EAGAIN, ESRCH on DISABLE).
 */
static int trap(struct gc_kfd *k, uint32_t op, struct kfd_ioctl_dbg_trap_args *a)
{
    a->pid = (uint32_t)k->pid;
    a->op = op;
    return k->ops->dbg_trap(k, a);
}

static gpucore_status_t trap_simple(struct gc_kfd *k, uint32_t op,
                                    struct kfd_ioctl_dbg_trap_args *a, int *ret_rc,
                                    gpucore_diag_t *diag)
{
    int rc = trap(k, op, a);

    if (ret_rc)
        *ret_rc = rc;
    if (rc < 0)
        return trap_fail(k, op, -rc, diag);
    return GPUCORE_OK;
}

static gpucore_status_t need_enabled(const struct gc_kfd *k, gpucore_diag_t *diag)
{
    GC_FAIL_IF(!k, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no KFD session");
    GC_FAIL_IF(!k->enabled, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "debugging of process %d is not enabled", (int)k->pid);
    return GPUCORE_OK;
}

/* ---- open / close ---------------------------------------------------------------------- */

static gpucore_status_t check_version(uint32_t major, uint32_t minor, gpucore_diag_t *diag)
{
    /* ROCdbgapi's window, [1.13, 2.0): a 2.x driver may have changed what we rely on. */
    if (major < GC_KFD_MIN_MAJOR || (major == GC_KFD_MIN_MAJOR && minor < GC_KFD_MIN_MINOR))
        return gc_diag_set(diag, GPUCORE_E_NODEV, GC_NO_OFFSET,
                           "KFD %" PRIu32 ".%" PRIu32 " is too old: the debug interface needs "
                           "%u.%u (Linux 6.5)",
                           major, minor, GC_KFD_MIN_MAJOR, GC_KFD_MIN_MINOR);
    if (major > GC_KFD_MIN_MAJOR)
        return gc_diag_set(diag, GPUCORE_E_NODEV, GC_NO_OFFSET,
                           "KFD %" PRIu32 ".%" PRIu32 " is not supported: gpucore speaks the "
                           "1.x debug interface (1.13 or newer)",
                           major, minor);
    return GPUCORE_OK;
}

static void free_session(struct gc_kfd *k)
{
    if (k->event_fd >= 0)
        close(k->event_fd);
    if (k->event_wfd >= 0)
        close(k->event_wfd);
    if (k->mem_fd >= 0)
        close(k->mem_fd);
    if (k->pagemap_fd >= 0)
        close(k->pagemap_fd);
    gc_procmaps_free(&k->maps);
    gc_free(k);
}

gpucore_status_t gc_kfd_open(pid_t pid, const struct gc_kfd_open_opts *opts,
                             struct gc_kfd **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_LINUX };
    struct kfd_ioctl_get_version_args v = { 0 };
    const struct gc_kfd_backend_ops *ops;
    struct gc_kfd *k;
    gpucore_status_t st;
    int rc;

    GC_FAIL_IF(!ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no result pointer");
    *ret = NULL;
    GC_FAIL_IF(pid <= 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "invalid target process id %d", (int)pid);
    if (opts)
        o = *opts;
    if ((unsigned)o.backend >= sizeof(backends) / sizeof(backends[0]))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "unknown KFD backend %d", (int)o.backend);
    ops = backends[o.backend];

    k = gc_calloc_array(1, sizeof(*k));
    GC_FAIL_IF(!k, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    k->ops = ops;
    k->pid = pid;
    k->event_fd = -1;
    k->event_wfd = -1;
    k->mem_fd = -1;
    k->pagemap_fd = -1;

    st = ops->open(k, &o, reterr_diag);
    if (st != GPUCORE_OK) {
        free_session(k);
        return st;
    }
    rc = ops->get_version(k, &v);
    /* A device that does not know the ioctl (ENOTTY) is simply not a KFD: no driver. */
    if (rc == -ENOTTY) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_NODEV, GC_NO_OFFSET,
                         "no AMD GPU kernel driver: %s is not a KFD device",
                         o.backend == GC_KFD_BACKEND_LINUX
                                 ? (o.device_path ? o.device_path : "/dev/kfd")
                                 : "the simulated driver");
        goto fail;
    }
    if (rc < 0) {
        st = gc_diag_set(reterr_diag, gc_kfd_status_from_errno(-rc), GC_NO_OFFSET,
                         "cannot read the KFD version (%s backend): %s", ops->name,
                         strerror(-rc));
        goto fail;
    }
    st = check_version(v.major_version, v.minor_version, reterr_diag);
    if (st != GPUCORE_OK)
        goto fail;
    k->major = v.major_version;
    k->minor = v.minor_version;
    *ret = k;
    return GPUCORE_OK;

fail:
    ops->close(k);
    free_session(k);
    return st;
}

void gc_kfd_close(struct gc_kfd *k)
{
    if (!k)
        return;
    /* Leaving a process debug-enabled would lock every later debugger out of it. */
    if (k->enabled)
        (void)gc_kfd_disable(k, NULL);
    k->ops->close(k);
    free_session(k);
}

const char *gc_kfd_backend_name(const struct gc_kfd *k)
{
    return k ? k->ops->name : "none";
}

void gc_kfd_version(const struct gc_kfd *k, uint32_t *ret_major, uint32_t *ret_minor)
{
    if (ret_major)
        *ret_major = k ? k->major : 0;
    if (ret_minor)
        *ret_minor = k ? k->minor : 0;
}

/* ---- enable / disable / events ----------------------------------------------------------- */

gpucore_status_t gc_kfd_enable(struct gc_kfd *k, uint64_t exception_mask,
                               struct kfd_runtime_info *ret_rinfo, gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };
    /* Room beyond our struct so a driver with a longer runtime info cannot overrun us. */
    uint8_t rinfo[64] = { 0 };
    uint32_t got;
    int pfd[2], rc;

    GC_FAIL_IF(!k, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no KFD session");
    GC_FAIL_IF(k->enabled, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "debugging of process %d is already enabled", (int)k->pid);

    /*
     * A pipe, as AMD's debugger library uses: amdkfd (kfd_dbg_trap_enable) takes any file and
     * signals it by writing one byte, which an eventfd refuses (it takes 8). Non-blocking both
     * ends: wait_event drains without sleeping in read(), and a full pipe never blocks the
     * driver (a full pipe already says "an event is pending").
     */
    GC_FAIL_IF(pipe2(pfd, O_CLOEXEC | O_NONBLOCK) != 0, reterr_diag,
               gc_kfd_status_from_errno(errno), GC_NO_OFFSET,
               "cannot create the debug event pipe: %s", strerror(errno));

    a.enable.exception_mask = exception_mask;
    a.enable.rinfo_ptr = (uint64_t)(uintptr_t)rinfo;
    a.enable.rinfo_size = (uint32_t)sizeof(struct kfd_runtime_info);
    a.enable.dbg_fd = (uint32_t)pfd[1];
    rc = trap(k, KFD_IOC_DBG_TRAP_ENABLE, &a);
    if (rc < 0) {
        close(pfd[0]);
        close(pfd[1]);
        /* The one-debugger rule surfaces as a bare EINVAL; name the likely causes. */
        if (rc == -EINVAL)
            return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                               "cannot enable GPU debugging: another debugger holds process %d "
                               "(ROCgdb, the ROCm debug agent), or it is not debuggable",
                               (int)k->pid);
        if (rc == -EPERM)
            return gc_diag_set(reterr_diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                               "cannot enable GPU debugging of process %d: gpucore is not its "
                               "ptrace parent",
                               (int)k->pid);
        return trap_fail(k, KFD_IOC_DBG_TRAP_ENABLE, -rc, reterr_diag);
    }
    k->enabled = 1;
    k->event_fd = pfd[0];
    k->event_wfd = pfd[1];
    if (ret_rinfo) {
        /* Zero-extend a shorter runtime info; ignore any tail we do not know. */
        got = a.enable.rinfo_size;
        if (got > sizeof(*ret_rinfo))
            got = (uint32_t)sizeof(*ret_rinfo);
        memset(ret_rinfo, 0, sizeof(*ret_rinfo));
        memcpy(ret_rinfo, rinfo, got);
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_disable(struct gc_kfd *k, gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };
    int rc;

    GC_FAIL_IF(!k, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no KFD session");
    if (!k->enabled)
        return GPUCORE_OK;
    rc = trap(k, KFD_IOC_DBG_TRAP_DISABLE, &a);
    /*
     * The session is over whatever the driver says: a failed DISABLE on a process that is gone
     * (ESRCH) must not make close() try again, and the event fd is ours to release.
     */
    k->enabled = 0;
    if (k->event_fd >= 0) {
        close(k->event_fd);
        k->event_fd = -1;
    }
    if (k->event_wfd >= 0) {
        close(k->event_wfd);
        k->event_wfd = -1;
    }
    if (rc < 0 && rc != -ESRCH)
        return trap_fail(k, KFD_IOC_DBG_TRAP_DISABLE, -rc, reterr_diag);
    return GPUCORE_OK;
}

int gc_kfd_event_fd(const struct gc_kfd *k)
{
    return k ? k->event_fd : -1;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

gpucore_status_t gc_kfd_wait_event(struct gc_kfd *k, int timeout_ms, gpucore_diag_t *reterr_diag)
{
    int64_t deadline = 0;
    char drain[64];
    struct pollfd p;
    int n, left;

    GC_TRY(need_enabled(k, reterr_diag));
    if (timeout_ms >= 0)
        deadline = now_ms() + timeout_ms;
    for (;;) {
        left = -1;
        if (timeout_ms >= 0) {
            int64_t rest = deadline - now_ms();

            left = rest < 0 ? 0 : (int)rest;
        }
        p.fd = k->event_fd;
        p.events = POLLIN;
        p.revents = 0;
        n = poll(&p, 1, left);
        if (n < 0 && errno == EINTR)
            continue; /* a signal is not an event; keep the original deadline */
        if (n < 0)
            return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "waiting for a GPU debug event failed: %s", strerror(errno));
        if (n == 0)
            return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                               "no GPU debug event within %d ms", timeout_ms);
        if (p.revents & (POLLERR | POLLNVAL))
            return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "the GPU debug event fd reported an error");
        break;
    }
    /* Drain, so the next wait blocks until a new event (one byte per signal). */
    while (read(k->event_fd, drain, sizeof(drain)) > 0)
        ;
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_set_exceptions_enabled(struct gc_kfd *k, uint64_t exception_mask,
                                               gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };

    GC_TRY(need_enabled(k, reterr_diag));
    a.set_exceptions_enabled.exception_mask = exception_mask;
    return trap_simple(k, KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED, &a, NULL, reterr_diag);
}

gpucore_status_t gc_kfd_send_runtime_event(struct gc_kfd *k, uint64_t exception_mask,
                                           uint32_t gpu_id, uint32_t queue_id,
                                           gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };

    GC_TRY(need_enabled(k, reterr_diag));
    a.send_runtime_event.exception_mask = exception_mask;
    a.send_runtime_event.gpu_id = gpu_id;
    a.send_runtime_event.queue_id = queue_id;
    return trap_simple(k, KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT, &a, NULL, reterr_diag);
}

gpucore_status_t gc_kfd_query_debug_event(struct gc_kfd *k, uint64_t clear_mask,
                                          uint64_t *ret_raised, uint32_t *ret_gpu_id,
                                          uint32_t *ret_queue_id, gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };
    int rc;

    GC_TRY(need_enabled(k, reterr_diag));
    a.query_debug_event.exception_mask = clear_mask;
    rc = trap(k, KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT, &a);
    /* EAGAIN is how the driver says "no more events": the normal end of a drain loop. */
    if (rc == -EAGAIN)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                           "no GPU debug event pending for process %d", (int)k->pid);
    if (rc < 0)
        return trap_fail(k, KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT, -rc, reterr_diag);
    if (ret_raised)
        *ret_raised = a.query_debug_event.exception_mask;
    if (ret_gpu_id)
        *ret_gpu_id = a.query_debug_event.gpu_id;
    if (ret_queue_id)
        *ret_queue_id = a.query_debug_event.queue_id;
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_query_exception_info(struct gc_kfd *k, uint32_t source_id,
                                             uint32_t exception_code, int clear, void *buf,
                                             uint32_t *inout_size, gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };

    GC_TRY(need_enabled(k, reterr_diag));
    GC_FAIL_IF(!inout_size || (!buf && *inout_size), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "query_exception_info needs a buffer and its size");
    a.query_exception_info.info_ptr = (uint64_t)(uintptr_t)buf;
    a.query_exception_info.info_size = *inout_size;
    a.query_exception_info.source_id = source_id;
    a.query_exception_info.exception_code = exception_code;
    a.query_exception_info.clear_exception = clear ? 1u : 0u;
    GC_TRY(trap_simple(k, KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO, &a, NULL, reterr_diag));
    *inout_size = a.query_exception_info.info_size;
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_memory_fault_decode(const void *rec, uint32_t size,
                                            struct gc_kfd_memory_fault *ret)
{
    struct kfd_hsa_memory_exception_data x = { 0 };

    if (!rec || !ret)
        return GPUCORE_E_INVAL;
    memset(ret, 0, sizeof(*ret));
    if (size < GC_KFD_MEMORY_FAULT_MIN_SIZE)
        return GPUCORE_E_TRUNCATED;
    memcpy(&x, rec, size < sizeof(x) ? size : sizeof(x));
    ret->va = x.va;
    ret->gpu_id = x.gpu_id;
    ret->error_type = x.ErrorType;
    ret->not_present = x.failure.NotPresent != 0;
    ret->read_only = x.failure.ReadOnly != 0;
    ret->no_execute = x.failure.NoExecute != 0;
    ret->imprecise = x.failure.imprecise != 0;
    return GPUCORE_OK;
}

/* ---- snapshots --------------------------------------------------------------------------- */

/* How many times the fetch is retried when entries keep appearing between the two calls. */
#define SNAPSHOT_ATTEMPTS 8

/* Device and queue snapshot arguments have the same shape; one call site for both. */
static int snapshot_call(struct gc_kfd *k, uint32_t op, uint64_t clear_mask, void *buf,
                         uint32_t *inout_n, uint32_t *inout_esize)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };
    int rc;

    if (op == KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT) {
        a.device_snapshot.exception_mask = clear_mask;
        a.device_snapshot.snapshot_buf_ptr = (uint64_t)(uintptr_t)buf;
        a.device_snapshot.num_devices = *inout_n;
        a.device_snapshot.entry_size = *inout_esize;
    } else {
        a.queue_snapshot.exception_mask = clear_mask;
        a.queue_snapshot.snapshot_buf_ptr = (uint64_t)(uintptr_t)buf;
        a.queue_snapshot.num_queues = *inout_n;
        a.queue_snapshot.entry_size = *inout_esize;
    }
    rc = trap(k, op, &a);
    if (rc < 0)
        return rc;
    if (op == KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT) {
        *inout_n = a.device_snapshot.num_devices;
        *inout_esize = a.device_snapshot.entry_size;
    } else {
        *inout_n = a.queue_snapshot.num_queues;
        *inout_esize = a.queue_snapshot.entry_size;
    }
    return 0;
}

/*
 * ROCdbgapi's negotiation: ask with room for one entry to learn the count, then fetch all at our
 * entry size. The driver copies min(our size, its size) per entry, strides by our size and
 * reports what it populated; bytes it did not populate stay zero (fields of a newer ABI). If
 * entries appear between the calls (a queue was created), the count comes back larger than
 * the buffer, and we fetch again.
 */
static gpucore_status_t snapshot(struct gc_kfd *k, uint32_t op, uint64_t clear_mask,
                                 size_t our_size, void **ret_entries, uint32_t *ret_count,
                                 uint32_t *ret_entry_size, gpucore_diag_t *diag)
{
    const char *what = op == KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT ? "device" : "queue";
    uint8_t *buf = NULL;
    uint32_t cap = 1, n, esize = 0;
    int rc;

    GC_TRY(need_enabled(k, diag));
    GC_FAIL_IF(!ret_entries || !ret_count, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no result pointers for the %s snapshot", what);
    *ret_entries = NULL;
    *ret_count = 0;
    for (int attempt = 0; attempt <= SNAPSHOT_ATTEMPTS; attempt++) {
        gc_free(buf);
        buf = gc_calloc_array(cap, our_size);
        GC_FAIL_IF(!buf, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                   "out of memory for %" PRIu32 " %s snapshot entries", cap, what);
        n = cap;
        esize = (uint32_t)our_size;
        rc = snapshot_call(k, op, clear_mask, buf, &n, &esize);
        if (rc < 0) {
            gc_free(buf);
            return trap_fail(k, op, -rc, diag);
        }
        if (n <= cap)
            goto done;
        cap = n;
    }
    gc_free(buf);
    return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                       "the %s count of process %d kept growing during %d snapshot attempts", what,
                       (int)k->pid, SNAPSHOT_ATTEMPTS);

done:
    if (n > 0 && esize == 0) {
        gc_free(buf);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "the driver returned %" PRIu32 " %s snapshot entries of size 0", n,
                           what);
    }
    /* A larger reported size still only filled our stride; we hold our_size valid bytes. */
    if (esize > our_size)
        esize = (uint32_t)our_size;
    /* Zero what the driver did not populate, whatever it left in the buffer. */
    for (uint32_t i = 0; i < n && esize < our_size; i++)
        memset(buf + (size_t)i * our_size + esize, 0, our_size - esize);
    *ret_entries = buf;
    *ret_count = n;
    if (ret_entry_size)
        *ret_entry_size = esize;
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_device_snapshot(struct gc_kfd *k, uint64_t clear_mask,
                                        struct kfd_dbg_device_info_entry **ret_entries,
                                        uint32_t *ret_count, uint32_t *ret_entry_size,
                                        gpucore_diag_t *reterr_diag)
{
    void *e = NULL;
    gpucore_status_t st;

    st = snapshot(k, KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT, clear_mask,
                  sizeof(struct kfd_dbg_device_info_entry), &e, ret_count, ret_entry_size,
                  reterr_diag);
    if (ret_entries)
        *ret_entries = e;
    return st;
}

gpucore_status_t gc_kfd_queue_snapshot(struct gc_kfd *k, uint64_t clear_mask,
                                       struct kfd_queue_snapshot_entry **ret_entries,
                                       uint32_t *ret_count, uint32_t *ret_entry_size,
                                       gpucore_diag_t *reterr_diag)
{
    void *e = NULL;
    gpucore_status_t st;

    st = snapshot(k, KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT, clear_mask,
                  sizeof(struct kfd_queue_snapshot_entry), &e, ret_count, ret_entry_size,
                  reterr_diag);
    if (ret_entries)
        *ret_entries = e;
    return st;
}

/* ---- suspend / resume / launch mode --------------------------------------------------------- */

gpucore_status_t gc_kfd_suspend_queues(struct gc_kfd *k, uint32_t *ids, uint32_t n,
                                       uint32_t grace_period, uint64_t clear_mask,
                                       uint32_t *ret_done, gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };
    int rc;

    GC_TRY(need_enabled(k, reterr_diag));
    GC_FAIL_IF(n && !ids, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no queue ids to suspend");
    if (ret_done)
        *ret_done = 0;
    if (n == 0)
        return GPUCORE_OK;
    a.suspend_queues.exception_mask = clear_mask;
    a.suspend_queues.queue_array_ptr = (uint64_t)(uintptr_t)ids;
    a.suspend_queues.num_queues = n;
    a.suspend_queues.grace_period = grace_period;
    GC_TRY(trap_simple(k, KFD_IOC_DBG_TRAP_SUSPEND_QUEUES, &a, &rc, reterr_diag));
    /* Per-queue failures are in the ids' ERROR/INVALID bits, not in the return value. */
    if (ret_done)
        *ret_done = (uint32_t)rc;
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_resume_queues(struct gc_kfd *k, uint32_t *ids, uint32_t n,
                                      uint32_t *ret_done, gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };
    int rc;

    GC_TRY(need_enabled(k, reterr_diag));
    GC_FAIL_IF(n && !ids, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no queue ids to resume");
    if (ret_done)
        *ret_done = 0;
    if (n == 0)
        return GPUCORE_OK;
    a.resume_queues.queue_array_ptr = (uint64_t)(uintptr_t)ids;
    a.resume_queues.num_queues = n;
    GC_TRY(trap_simple(k, KFD_IOC_DBG_TRAP_RESUME_QUEUES, &a, &rc, reterr_diag));
    if (ret_done)
        *ret_done = (uint32_t)rc;
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_set_wave_launch_mode(struct gc_kfd *k, uint32_t mode,
                                             gpucore_diag_t *reterr_diag)
{
    struct kfd_ioctl_dbg_trap_args a = { 0 };

    GC_TRY(need_enabled(k, reterr_diag));
    /* 2 (KILL) and 4 (STALL) existed only in early patch postings; the final ABI rejects them. */
    GC_FAIL_IF(mode != KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL &&
                       mode != KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT &&
                       mode != KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG,
               reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "invalid wave launch mode %" PRIu32,
               mode);
    a.launch_mode.launch_mode = mode;
    return trap_simple(k, KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE, &a, NULL, reterr_diag);
}

/* ---- GPU mappings and service threads ----------------------------------------------------- */

gpucore_status_t gc_kfd_gpu_mappings(struct gc_kfd *k, struct gc_kfd_mapping **ret_maps,
                                     uint32_t *ret_count, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!k || !ret_maps || !ret_count, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no KFD session or no result pointer");
    *ret_maps = NULL;
    *ret_count = 0;
    GC_FAIL_IF(!k->ops->gpu_mappings, reterr_diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET,
               "the %s backend cannot list GPU mappings", k->ops->name);
    return k->ops->gpu_mappings(k, ret_maps, ret_count, reterr_diag);
}

gpucore_status_t gc_kfd_service_threads(struct gc_kfd *k, pid_t *ret_tids, uint32_t cap,
                                        uint32_t *ret_count, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!k || !ret_count || (cap && !ret_tids), reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "no KFD session or no result pointer");
    *ret_count = 0;
    if (!k->ops->service_threads)
        return GPUCORE_OK; /* a driver in the kernel needs no thread of the target */
    return k->ops->service_threads(k, ret_tids, cap, ret_count, reterr_diag);
}

gpucore_status_t gc_kfd_driver_state(struct gc_kfd *k, int *ret_debug_enabled,
                                     uint32_t *ret_suspended_queues, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!k, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no KFD session");
    /* The kernel has no such query; only the simulated driver answers it. */
    GC_FAIL_IF(!k->ops->driver_state, reterr_diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET,
               "the %s backend cannot report the driver's debug state", k->ops->name);
    return k->ops->driver_state(k, ret_debug_enabled, ret_suspended_queues, reterr_diag);
}

/* ---- target memory ------------------------------------------------------------------------- */

gpucore_status_t gc_kfd_read_memory(struct gc_kfd *k, uint64_t addr, void *buf, uint64_t size,
                                    uint64_t *ret_done, int *ret_errno,
                                    gpucore_diag_t *reterr_diag)
{
    size_t done = 0;
    int rc;

    if (ret_done)
        *ret_done = 0;
    if (ret_errno)
        *ret_errno = 0;
    GC_FAIL_IF(!k, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no KFD session");
    GC_FAIL_IF(size && !buf, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no buffer");
    GC_FAIL_IF(size > SIZE_MAX || (size && addr + size - 1 < addr), reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "memory range 0x%" PRIx64 "+0x%" PRIx64 " is invalid", addr, size);
    if (size == 0)
        return GPUCORE_OK;
    rc = k->ops->read_memory(k, addr, buf, (size_t)size, &done);
    if (ret_done)
        *ret_done = done;
    if (rc == 0)
        return GPUCORE_OK;
    if (ret_errno)
        *ret_errno = -rc;
    /* A vanished target is not a hole to step over: the caller must stop reading. */
    if (rc == -ESRCH)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                           "process %d no longer exists", (int)k->pid);
    /* Nor is a refusal: every other page would be refused too. */
    if (rc == -EPERM || rc == -EACCES)
        return gc_diag_set(reterr_diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                           "no permission to read process %d memory (gpucore must be its "
                           "ptrace parent): %s",
                           (int)k->pid, strerror(-rc));
    return gc_diag_set(reterr_diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
                       "cannot read process %d memory at 0x%" PRIx64 ": %s (%zu of %" PRIu64
                       " bytes readable)",
                       (int)k->pid, addr + done, strerror(-rc), done, size);
}

/*
 * How the target's memory is read without changing it. A read must not allocate memory in the
 * target: pinning (process_vm_readv) a never-touched page of a private anonymous mapping
 * allocates it on some kernels, and even a read through /proc/PID/mem maps the zero page,
 * which costs the target a page table per 2 MiB. So, as the kernel's own dumper does
 * (get_dump_page), such pages are not read at all: /proc/PID/pagemap says which pages are
 * neither present nor swapped, and those read as zeros (the writer keeps zero pages as holes).
 * Everything else -- present and swapped pages, and every page of shared and file-backed
 * mappings, where "not present" may still mean data (page cache, another process's shmem
 * page) -- is read through /proc/PID/mem, as the kernel's dumper reads it.
 */
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)
#define PAGEMAP_BATCH 512u /* entries per pread of /proc/PID/pagemap (4 KiB on the stack) */
#define TARGET_PAGE 4096ull

/* Names /proc gives anonymous mappings; a prefix ending in ':' or ' ' matches any suffix. */
static const struct {
    const char *name;
    int prefix;
    int has_inode; /* hugetlbfs backs anonymous huge pages with an inode of its own */
} anon_names[] = {
    { "", 0, 0 },          { "[heap]", 0, 0 },  { "[stack]", 0, 0 },
    { "[stack:", 1, 0 },   { "[anon:", 1, 0 },  { "/anon_hugepage", 1, 1 },
};

/* A private mapping with no file behind it: an untouched page of it can only hold zeros. */
static int private_anon(const struct gc_procmap *m)
{
    if (m->perms & GC_PROCMAP_SHARED || m->vmflags & (GC_VMFLAG_IO | GC_VMFLAG_PFNMAP))
        return 0;
    for (size_t i = 0; i < GC_ARRAY_SIZE(anon_names); i++) {
        const char *n = anon_names[i].name;
        size_t len = strlen(n);
        int match = anon_names[i].prefix ? strncmp(m->path, n, len) == 0
                                         : strcmp(m->path, n) == 0;

        if (match && (anon_names[i].has_inode || m->inode == 0))
            return 1;
    }
    return 0;
}

void gc_kfd_forget_mappings(struct gc_kfd *k)
{
    if (!k)
        return;
    gc_procmaps_free(&k->maps);
    k->maps_state = 0;
}

/* The mapping holding @p addr, from /proc/PID/maps read once, or NULL (unknown). */
static const struct gc_procmap *map_at(struct gc_kfd *k, uint64_t addr)
{
    char path[64];

    if (k->maps_state == 0) {
        snprintf(path, sizeof(path), "/proc/%d/maps", (int)k->pid);
        k->maps_state = gc_procmaps_read(k->pid, path, &k->maps, NULL) == GPUCORE_OK ? 1 : -1;
    }
    return k->maps_state > 0 ? gc_procmaps_find(&k->maps, addr) : NULL;
}

/*
 * From @p addr on, at most @p max bytes (within one mapping): how many bytes lie on pages of
 * the same kind as the first one, and whether that kind is "never touched". 0, or -1 when
 * pagemap cannot be read (the caller then reads, as for memory it cannot classify).
 */
static int pagemap_run(struct gc_kfd *k, uint64_t addr, uint64_t max, uint64_t *ret_run,
                       int *ret_untouched)
{
    uint64_t e[PAGEMAP_BATCH];
    uint64_t first = addr / TARGET_PAGE, last = (addr + max - 1) / TARGET_PAGE;
    uint64_t want = last - first + 1, i;
    ssize_t n;
    char path[64];

    if (k->pagemap_fd == -1) {
        snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)k->pid);
        k->pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
        if (k->pagemap_fd < 0)
            k->pagemap_fd = -2;
    }
    if (k->pagemap_fd < 0)
        return -1;
    if (want > PAGEMAP_BATCH)
        want = PAGEMAP_BATCH;
    /* One 8-byte entry per page; user addresses keep the offset below 2^63. */
    if (first > (uint64_t)INT64_MAX / sizeof(e[0]))
        return -1;
    do
        n = pread(k->pagemap_fd, e, (size_t)want * sizeof(e[0]), (off_t)(first * sizeof(e[0])));
    while (n < 0 && errno == EINTR);
    if (n < (ssize_t)sizeof(e[0]))
        return -1;
    want = (uint64_t)n / sizeof(e[0]);
    *ret_untouched = !(e[0] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED));
    for (i = 1; i < want; i++)
        if ((!(e[i] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED))) != *ret_untouched)
            break;
    /* Bytes from addr to the end of page first + i, clipped to max. */
    *ret_run = (first + i) * TARGET_PAGE - addr;
    if (*ret_run > max)
        *ret_run = max;
    return 0;
}

/* The target has exited (its /proc entry is gone, or it is a zombie: no memory left). */
static int target_gone(const struct gc_kfd *k)
{
    char path[64], buf[512];
    const char *paren;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)k->pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH;
    do
        n = read(fd, buf, sizeof(buf) - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "PID (COMM) S ...": COMM may hold ')', the state follows the last one. */
    paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* pread of /proc/PID/mem from *done on; opened lazily because most reads never need it. */
static int read_proc_mem(struct gc_kfd *k, uint64_t addr, uint8_t *buf, size_t size,
                         size_t *done)
{
    char path[64];
    ssize_t n;

    if (k->mem_fd < 0) {
        snprintf(path, sizeof(path), "/proc/%d/mem", (int)k->pid);
        k->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
        if (k->mem_fd < 0)
            return errno == ENOENT ? -ESRCH : -errno;
    }
    while (*done < size) {
        uint64_t at = addr + *done;

        /* pread takes a signed offset; the top half of the address space is not user memory. */
        if (at > (uint64_t)INT64_MAX)
            return -EIO;
        n = pread(k->mem_fd, buf + *done, size - *done, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EIO)
            return -errno;
        /* End of file: an unmapped address -- or no address space any more, which is not a
         * hole to step over but the end of the target. */
        if (n <= 0)
            return target_gone(k) ? -ESRCH : -EIO;
        *done += (size_t)n;
    }
    return 0;
}

/* process_vm_readv of [addr, addr + size): 0 or -errno, *done the bytes read. */
static int read_vm(struct gc_kfd *k, uint64_t addr, uint8_t *buf, size_t size, size_t *done)
{
    *done = 0;
    while (*done < size) {
        struct iovec local = { .iov_base = buf + *done, .iov_len = size - *done };
        struct iovec remote = { .iov_base = (void *)(uintptr_t)(addr + *done),
                                .iov_len = size - *done };
        ssize_t n = process_vm_readv(k->pid, &local, 1, &remote, 1, 0);

        if (n > 0) {
            *done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 ? -errno : -EIO;
    }
    return 0;
}

/*
 * Read a run of pages. @p may_be_untouched: the run may hold never-touched private anonymous
 * pages (not classified by pagemap), which process_vm_readv must not pin.
 */
static int read_run(struct gc_kfd *k, uint64_t addr, uint8_t *buf, size_t size,
                    int may_be_untouched, size_t *ret_done)
{
    size_t done = 0;
    int rc = read_proc_mem(k, addr, buf, size, &done);

    /*
     * /proc/PID/mem could not be opened (no procfs, or refused where process_vm_readv is
     * not): only then process_vm_readv, and only where it cannot populate anything.
     */
    if (rc < 0 && k->mem_fd < 0 && rc != -ESRCH && !may_be_untouched && !k->no_vm_readv) {
        int rc2 = read_vm(k, addr, buf, size, &done);

        /* A refusal of both is the first reader's answer; anything else is the second's. */
        if (!(rc2 == -EPERM && (rc == -EPERM || rc == -EACCES)))
            rc = rc2;
    }
    *ret_done = done;
    return rc;
}

int gc_kfd_read_process_memory(struct gc_kfd *k, uint64_t addr, void *buf, size_t size,
                               size_t *ret_done)
{
    uint8_t *dst = buf;
    size_t done = 0;
    int rc = 0;

    while (done < size) {
        uint64_t at = addr + done, n = size - done, run;
        const struct gc_procmap *m = map_at(k, at);
        int anon = m && private_anon(m), untouched = 0, known = 0;
        size_t got = 0;

        if (m && m->end - at < n)
            n = m->end - at;
        if (anon && pagemap_run(k, at, n, &run, &untouched) == 0) {
            known = 1;
            n = run;
            if (untouched) {
                memset(dst + done, 0, (size_t)n);
                done += (size_t)n;
                continue;
            }
        }
        rc = read_run(k, at, dst + done, (size_t)n, !m || (anon && !known), &got);
        done += got;
        if (rc < 0)
            break;
    }
    *ret_done = done;
    return done == size ? 0 : rc;
}
