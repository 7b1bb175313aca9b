/* SPDX-License-Identifier: MIT */
/*
 * The shared KFD layer and the linux backend against a fake ioctl layer that plays the driver:
 * every operation's round trip, every errno path, the version window, snapshot entry-size
 * negotiation, per-queue status bits, the event fd, and target memory reads on this process.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gc_util.h"
#include "kfd_internal.h"

#define NOPS 15
#define MAX_ENTRY 128

/* The driver the fake ioctl plays. Zero-initialised plus a version is a healthy 1.16 driver. */
struct fake {
    uint32_t major, minor;
    int version_errno;
    int op_errno[NOPS]; /* errno to fail each DBG_TRAP op with (0 = succeed) */
    int calls[NOPS];
    uint32_t last_pid;

    /* ENABLE */
    int dbg_fd;
    uint64_t enable_mask;
    uint32_t rinfo_size_in;
    struct kfd_runtime_info rinfo;

    /* SET_EXCEPTIONS_ENABLED; signal: write the event fd, as a raised exception would */
    uint64_t exc_mask;
    int signal_on_set_exc;

    /* SEND_RUNTIME_EVENT */
    uint64_t sent_mask;
    uint32_t sent_gpu, sent_queue;

    /* QUERY_DEBUG_EVENT */
    int events;
    uint64_t clear_mask;

    /* snapshots: count and the driver's own entry size (its struct may differ from ours) */
    uint32_t ndev, dev_size;
    uint32_t nq, q_size;
    int report_own_size; /* report the driver's size instead of the populated one */
    uint32_t q_grow;     /* queues created after each queue snapshot call ... */
    int q_grow_calls;    /* ... for this many calls (-1: forever) */

    /* SUSPEND/RESUME: ids that fail with ERROR or INVALID */
    uint32_t error_id, invalid_id;
    uint32_t grace;
    uint32_t launch_mode;
};

static void fill_device(uint8_t *e, uint32_t i, uint32_t size)
{
    struct kfd_dbg_device_info_entry d = { 0 };

    memset(e, 0xee, size); /* a newer driver's extra fields */
    d.exception_status = 0x100u + i;
    d.gpuvm_limit = 0x7fffffffffffull;
    d.gpu_id = 1000 + i;
    d.vendor_id = 0x1002;
    d.gfx_target_version = 90010;
    d.num_xcc = 1;
    d.capability = 0x20008000u;
    d.debug_prop = 0x400u + i;
    memcpy(e, &d, size < sizeof(d) ? size : sizeof(d));
}

static void fill_queue(uint8_t *e, uint32_t i, uint32_t size)
{
    struct kfd_queue_snapshot_entry q = { 0 };

    memset(e, 0xee, size);
    q.ring_base_address = 0x10000u * (i + 1);
    q.ctx_save_restore_address = 0x200000u * (i + 1);
    q.queue_id = 10 + i;
    q.gpu_id = 1000;
    q.ring_size = 4096;
    q.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
    q.reserved = 0xdeadu;
    memcpy(e, &q, size < sizeof(q) ? size : sizeof(q));
}

/* The kernel's snapshot rule: copy min(caller, own) per entry at the caller's stride. */
static void fake_snapshot(uint64_t buf_ptr, uint32_t *inout_n, uint32_t *inout_esize,
                          uint32_t count, uint32_t own, int report_own,
                          void (*fill)(uint8_t *, uint32_t, uint32_t))
{
    uint8_t entry[MAX_ENTRY];
    uint32_t copy = *inout_esize < own ? *inout_esize : own;
    uint8_t *buf = (uint8_t *)(uintptr_t)buf_ptr;

    for (uint32_t i = 0; i < count && i < *inout_n; i++) {
        /* Garbage beyond what the driver copies: the caller must zero-extend, not trust it. */
        memset(buf + (size_t)i * *inout_esize, 0xab, *inout_esize);
        fill(entry, i, own);
        memcpy(buf + (size_t)i * *inout_esize, entry, copy);
    }
    *inout_n = count;
    *inout_esize = report_own ? own : copy;
}

static void fake_queue_status(struct fake *f, uint32_t *ids, uint32_t n, int *ok)
{
    *ok = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ids[i] == f->error_id)
            ids[i] |= KFD_DBG_QUEUE_ERROR_MASK;
        else if (ids[i] == f->invalid_id)
            ids[i] |= KFD_DBG_QUEUE_INVALID_MASK;
        else
            (*ok)++;
    }
}

static int fake_ioctl(void *user, int fd, unsigned long request, void *arg)
{
    struct fake *f = user;
    struct kfd_ioctl_dbg_trap_args *a = arg;
    int rc = 0;

    (void)fd;
    if (request == AMDKFD_IOC_GET_VERSION) {
        struct kfd_ioctl_get_version_args *v = arg;

        if (f->version_errno) {
            errno = f->version_errno;
            return -1;
        }
        v->major_version = f->major;
        v->minor_version = f->minor;
        return 0;
    }
    assert_int_equal(request, AMDKFD_IOC_DBG_TRAP);
    assert_true(a->op < NOPS);
    f->calls[a->op]++;
    f->last_pid = a->pid;
    if (f->op_errno[a->op]) {
        errno = f->op_errno[a->op];
        return -1;
    }
    switch (a->op) {
    case KFD_IOC_DBG_TRAP_ENABLE:
        f->dbg_fd = (int)a->enable.dbg_fd;
        f->enable_mask = a->enable.exception_mask;
        f->rinfo_size_in = a->enable.rinfo_size;
        memcpy((void *)(uintptr_t)a->enable.rinfo_ptr, &f->rinfo,
               a->enable.rinfo_size < sizeof(f->rinfo) ? a->enable.rinfo_size
                                                       : sizeof(f->rinfo));
        a->enable.rinfo_size = sizeof(f->rinfo);
        break;
    case KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
        f->exc_mask = a->set_exceptions_enabled.exception_mask;
        if (f->signal_on_set_exc) /* amdkfd writes one byte to the debugger's file */
            assert_int_equal(write(f->dbg_fd, ".", 1), 1);
        break;
    case KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT:
        f->sent_mask = a->send_runtime_event.exception_mask;
        f->sent_gpu = a->send_runtime_event.gpu_id;
        f->sent_queue = a->send_runtime_event.queue_id;
        break;
    case KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT:
        f->clear_mask = a->query_debug_event.exception_mask;
        if (f->events == 0) {
            errno = EAGAIN;
            return -1;
        }
        a->query_debug_event.exception_mask = KFD_EC_MASK(EC_QUEUE_WAVE_TRAP);
        a->query_debug_event.gpu_id = 1000;
        a->query_debug_event.queue_id = (uint32_t)f->events--;
        break;
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO: {
        uint32_t n = a->query_exception_info.info_size;

        assert_int_equal(a->query_exception_info.exception_code, EC_PROCESS_RUNTIME);
        assert_int_equal(a->query_exception_info.clear_exception, 1);
        memcpy((void *)(uintptr_t)a->query_exception_info.info_ptr, &f->rinfo,
               n < sizeof(f->rinfo) ? n : sizeof(f->rinfo));
        a->query_exception_info.info_size = sizeof(f->rinfo);
        break;
    }
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
        assert_int_equal(a->device_snapshot.exception_mask, 0);
        fake_snapshot(a->device_snapshot.snapshot_buf_ptr, &a->device_snapshot.num_devices,
                      &a->device_snapshot.entry_size, f->ndev, f->dev_size, f->report_own_size,
                      fill_device);
        break;
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
        fake_snapshot(a->queue_snapshot.snapshot_buf_ptr, &a->queue_snapshot.num_queues,
                      &a->queue_snapshot.entry_size, f->nq, f->q_size, f->report_own_size,
                      fill_queue);
        if (f->q_grow_calls != 0) {
            f->nq += f->q_grow;
            if (f->q_grow_calls > 0)
                f->q_grow_calls--;
        }
        break;
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
        f->grace = a->suspend_queues.grace_period;
        f->clear_mask = a->suspend_queues.exception_mask;
        fake_queue_status(f, (uint32_t *)(uintptr_t)a->suspend_queues.queue_array_ptr,
                          a->suspend_queues.num_queues, &rc);
        break;
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
        fake_queue_status(f, (uint32_t *)(uintptr_t)a->resume_queues.queue_array_ptr,
                          a->resume_queues.num_queues, &rc);
        break;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE:
        f->launch_mode = a->launch_mode.launch_mode;
        break;
    default:
        break;
    }
    return rc;
}

static void fake_init(struct fake *f)
{
    memset(f, 0, sizeof(*f));
    f->major = 1;
    f->minor = 16;
    f->dbg_fd = -1;
    f->rinfo.r_debug = 0x7f0000001000ull;
    f->rinfo.runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
    f->rinfo.ttmp_setup = 1;
    f->dev_size = sizeof(struct kfd_dbg_device_info_entry);
    f->q_size = sizeof(struct kfd_queue_snapshot_entry);
    f->error_id = f->invalid_id = 0xffffu;
}

/* /dev/null stands in for /dev/kfd: the backend only needs an fd; the fake does the rest. */
static gpucore_status_t open_fake(struct fake *f, struct gc_kfd **k, gpucore_diag_t *d)
{
    struct gc_kfd_open_opts o = {
        .backend = GC_KFD_BACKEND_LINUX,
        .device_path = "/dev/null",
        .ioctl_fn = fake_ioctl,
        .ioctl_user = f,
    };

    return gc_kfd_open(getpid(), &o, k, d);
}

static struct gc_kfd *open_enabled(struct fake *f)
{
    struct gc_kfd *k = NULL;
    gpucore_diag_t d;

    assert_int_equal(open_fake(f, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_enable(k, KFD_EC_MASK_QUEUE, NULL, &d), GPUCORE_OK);
    return k;
}

/* ---- versions ---------------------------------------------------------------------------- */

static void expect_version(uint32_t major, uint32_t minor, gpucore_status_t want,
                           const char *msg)
{
    struct fake f;
    struct gc_kfd *k = NULL;
    gpucore_diag_t d = { 0 };
    uint32_t ma, mi;

    fake_init(&f);
    f.major = major;
    f.minor = minor;
    assert_int_equal(open_fake(&f, &k, &d), want);
    if (want != GPUCORE_OK) {
        assert_null(k);
        assert_int_equal(d.status, want);
        assert_string_equal(d.message, msg);
        return;
    }
    gc_kfd_version(k, &ma, &mi);
    assert_int_equal(ma, major);
    assert_int_equal(mi, minor);
    assert_string_equal(gc_kfd_backend_name(k), "linux");
    assert_int_equal(gc_kfd_event_fd(k), -1);
    gc_kfd_close(k);
}

static void test_versions(void **state)
{
    (void)state;
    expect_version(1, 12, GPUCORE_E_NODEV,
                   "KFD 1.12 is too old: the debug interface needs 1.13 (Linux 6.5)");
    expect_version(0, 99, GPUCORE_E_NODEV,
                   "KFD 0.99 is too old: the debug interface needs 1.13 (Linux 6.5)");
    expect_version(1, 13, GPUCORE_OK, NULL);
    expect_version(1, 18, GPUCORE_OK, NULL);
    expect_version(2, 0, GPUCORE_E_NODEV,
                   "KFD 2.0 is not supported: gpucore speaks the 1.x debug interface (1.13 or "
                   "newer)");
}

static void test_version_ioctl_fails(void **state)
{
    struct fake f;
    struct gc_kfd *k = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    fake_init(&f);
    f.version_errno = EIO;
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_E_IO);
    assert_null(k);
    assert_non_null(strstr(d.message, "cannot read the KFD version"));
    /* A device that does not know the ioctl is not a KFD at all. */
    f.version_errno = ENOTTY;
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_E_NODEV);
    assert_null(k);
    assert_string_equal(d.message, "no AMD GPU kernel driver: /dev/null is not a KFD device");
}

/* ---- device path --------------------------------------------------------------------------- */

static void test_device_missing(void **state)
{
    struct gc_kfd_open_opts o = { .device_path = "/nonexistent/kfd" };
    struct gc_kfd *k = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_kfd_open(getpid(), &o, &k, &d), GPUCORE_E_NODEV);
    assert_null(k);
    assert_string_equal(d.message, "no AMD GPU kernel driver: /nonexistent/kfd not found");

    /* The default path: the exact sentence the CLI prints (only where there is no KFD). */
    if (access("/dev/kfd", F_OK) != 0) {
        assert_int_equal(gc_kfd_open(getpid(), NULL, &k, &d), GPUCORE_E_NODEV);
        assert_string_equal(d.message, "no AMD GPU kernel driver: /dev/kfd not found");
    }
}

static void test_device_no_permission(void **state)
{
    char path[] = "/tmp/gc-kfd-XXXXXX";
    struct gc_kfd_open_opts o = { .device_path = path };
    struct gc_kfd *k = NULL;
    gpucore_diag_t d = { 0 };
    int fd;

    (void)state;
    if (geteuid() == 0)
        skip(); /* root opens a mode-000 file anyway */
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(chmod(path, 0), 0);
    assert_int_equal(gc_kfd_open(getpid(), &o, &k, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, path));
    unlink(path);
}

static void test_bad_args(void **state)
{
    struct gc_kfd_open_opts o = { .backend = (enum gc_kfd_backend)7 };
    struct gc_kfd *k = NULL;
    gpucore_diag_t d;

    (void)state;
    assert_int_equal(gc_kfd_open(0, NULL, &k, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_kfd_open(getpid(), NULL, NULL, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_kfd_open(getpid(), &o, &k, &d), GPUCORE_E_INVAL);
    gc_kfd_close(NULL);
}

/* ---- enable / disable / events ----------------------------------------------------------- */

static void test_enable_disable(void **state)
{
    struct fake f;
    struct gc_kfd *k = NULL;
    struct kfd_runtime_info ri;
    gpucore_diag_t d;
    char link[64], target[64] = { 0 };
    int fl;

    (void)state;
    fake_init(&f);
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_OK);
    /* Operations other than enable need an enabled session. */
    assert_int_equal(gc_kfd_set_exceptions_enabled(k, 0, &d), GPUCORE_E_INVAL);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED], 0);

    assert_int_equal(gc_kfd_enable(k, KFD_EC_MASK_QUEUE, &ri, &d), GPUCORE_OK);
    assert_int_equal(f.last_pid, (uint32_t)getpid());
    assert_int_equal(f.enable_mask, KFD_EC_MASK_QUEUE);
    assert_int_equal(f.rinfo_size_in, sizeof(struct kfd_runtime_info));
    assert_int_equal(ri.r_debug, f.rinfo.r_debug);
    assert_int_equal(ri.runtime_state, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(ri.ttmp_setup, 1);
    /* The fd the driver got is the write end of our non-blocking, close-on-exec pipe, whose
       read end the session polls. */
    assert_true(f.dbg_fd >= 0 && f.dbg_fd != gc_kfd_event_fd(k));
    fl = fcntl(f.dbg_fd, F_GETFL);
    assert_true(fl >= 0 && (fl & O_NONBLOCK) && (fl & O_ACCMODE) == O_WRONLY);
    assert_true(fcntl(f.dbg_fd, F_GETFD) & FD_CLOEXEC);
    snprintf(link, sizeof(link), "/proc/self/fd/%d", f.dbg_fd);
    assert_true(readlink(link, target, sizeof(target) - 1) > 0);
    assert_true(strncmp(target, "pipe:[", 6) == 0);

    assert_int_equal(gc_kfd_enable(k, 0, NULL, &d), GPUCORE_E_INVAL); /* already enabled */
    assert_int_equal(gc_kfd_disable(k, &d), GPUCORE_OK);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_DISABLE], 1);
    assert_int_equal(gc_kfd_event_fd(k), -1);
    assert_int_equal(gc_kfd_disable(k, &d), GPUCORE_OK); /* idempotent, no second call */
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_DISABLE], 1);

    /* close() disables a session left enabled. */
    assert_int_equal(gc_kfd_enable(k, 0, NULL, &d), GPUCORE_OK);
    gc_kfd_close(k);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_DISABLE], 2);
}

/* The answer to a runtime's enable held by the driver: SEND_RUNTIME_EVENT with the event's
   mask and the process's invalid ids, only on an enabled session. */
static void test_send_runtime_event(void **state)
{
    struct fake f;
    struct gc_kfd *k = NULL;
    gpucore_diag_t d;

    (void)state;
    fake_init(&f);
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_send_runtime_event(k, KFD_EC_MASK(EC_PROCESS_RUNTIME),
                                               KFD_INVALID_GPUID, KFD_INVALID_QUEUEID, &d),
                     GPUCORE_E_INVAL);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT], 0);
    assert_int_equal(gc_kfd_enable(k, KFD_EC_MASK(EC_PROCESS_RUNTIME), NULL, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_send_runtime_event(k, KFD_EC_MASK(EC_PROCESS_RUNTIME),
                                               KFD_INVALID_GPUID, KFD_INVALID_QUEUEID, &d),
                     GPUCORE_OK);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT], 1);
    assert_int_equal(f.last_pid, (uint32_t)getpid());
    assert_int_equal(f.sent_mask, KFD_EC_MASK(EC_PROCESS_RUNTIME));
    assert_int_equal(f.sent_gpu, KFD_INVALID_GPUID);
    assert_int_equal(f.sent_queue, KFD_INVALID_QUEUEID);
    /* A refusal maps through the errno table and names the operation. */
    f.op_errno[KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT] = EPERM;
    assert_int_equal(gc_kfd_send_runtime_event(k, KFD_EC_MASK(EC_PROCESS_RUNTIME),
                                               KFD_INVALID_GPUID, KFD_INVALID_QUEUEID, &d),
                     GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "SEND_RUNTIME_EVENT"));
    gc_kfd_close(k);
}

static void test_enable_errors(void **state)
{
    struct fake f;
    struct gc_kfd *k = NULL;
    gpucore_diag_t d;
    char want[160];

    (void)state;
    fake_init(&f);
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_OK);
    f.op_errno[KFD_IOC_DBG_TRAP_ENABLE] = EINVAL;
    assert_int_equal(gc_kfd_enable(k, 0, NULL, &d), GPUCORE_E_INVAL);
    snprintf(want, sizeof(want), "another debugger holds process %d", (int)getpid());
    assert_non_null(strstr(d.message, want));
    assert_non_null(strstr(d.message, "not debuggable"));
    assert_int_equal(gc_kfd_event_fd(k), -1);

    f.op_errno[KFD_IOC_DBG_TRAP_ENABLE] = EPERM;
    assert_int_equal(gc_kfd_enable(k, 0, NULL, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "ptrace parent"));
    f.op_errno[KFD_IOC_DBG_TRAP_ENABLE] = EBADF;
    assert_int_equal(gc_kfd_enable(k, 0, NULL, &d), GPUCORE_E_IO);
    gc_kfd_close(k);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_DISABLE], 0); /* never enabled */
}

static void test_wait_event(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    uint64_t raised = 0;
    uint32_t gpu = 0, queue = 0;

    (void)state;
    fake_init(&f);
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_wait_event(k, 0, &d), GPUCORE_E_NOTFOUND);

    f.signal_on_set_exc = 1;
    assert_int_equal(gc_kfd_set_exceptions_enabled(k, KFD_EC_MASK_DEVICE, &d), GPUCORE_OK);
    assert_int_equal(f.exc_mask, KFD_EC_MASK_DEVICE);
    assert_int_equal(gc_kfd_wait_event(k, 1000, &d), GPUCORE_OK);
    /* Drained: the same signal is not reported twice. */
    assert_int_equal(gc_kfd_wait_event(k, 10, &d), GPUCORE_E_NOTFOUND);

    /* The drain loop a capture runs after a wake-up: events until EAGAIN. */
    f.events = 2;
    assert_int_equal(gc_kfd_query_debug_event(k, KFD_EC_MASK(EC_QUEUE_NEW), &raised, &gpu,
                                              &queue, &d),
                     GPUCORE_OK);
    assert_int_equal(f.clear_mask, KFD_EC_MASK(EC_QUEUE_NEW));
    assert_int_equal(raised, KFD_EC_MASK(EC_QUEUE_WAVE_TRAP));
    assert_int_equal(gpu, 1000);
    assert_int_equal(queue, 2);
    assert_int_equal(gc_kfd_query_debug_event(k, 0, &raised, &gpu, &queue, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_query_debug_event(k, 0, &raised, &gpu, &queue, &d),
                     GPUCORE_E_NOTFOUND);
    assert_int_equal(d.status, GPUCORE_E_NOTFOUND);
    gc_kfd_close(k);
}

static void test_query_exception_info(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    struct kfd_runtime_info ri = { 0 };
    uint32_t size = sizeof(ri);

    (void)state;
    fake_init(&f);
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_query_exception_info(k, 0, EC_PROCESS_RUNTIME, 1, &ri, &size, &d),
                     GPUCORE_OK);
    assert_int_equal(size, sizeof(ri));
    assert_int_equal(ri.r_debug, f.rinfo.r_debug);
    assert_int_equal(gc_kfd_query_exception_info(k, 0, EC_PROCESS_RUNTIME, 1, NULL, NULL, &d),
                     GPUCORE_E_INVAL);
    gc_kfd_close(k);
}

/* A memory violation's record as the kernel lays it out: every field at its offset, the
   flags as booleans, a record cut after va, and one too short for va. */
static void test_memory_fault_decode(void **state)
{
    static const uint8_t rec[32] = {
        1,    0,    0,    0,    0,    0,    0,    0,
        0,    2,    0,    0,    0,    0,    0,    0x80, /* NotPresent, NoExecute, imprecise */
        0x40, 0x00, 0x00, 0xf5, 0x39, 0x7f, 0x00, 0x00, /* va */
        0xf1, 0xc4, 0,    0,    3,    0,    0,    0,    /* gpu_id, ErrorType */
    };
    struct gc_kfd_memory_fault f;

    (void)state;
    assert_int_equal(gc_kfd_memory_fault_decode(rec, sizeof(rec), &f), GPUCORE_OK);
    assert_true(f.va == 0x7f39f5000040ull);
    assert_int_equal(f.gpu_id, 0xc4f1);
    assert_int_equal(f.error_type, 3);
    assert_int_equal(f.not_present, 1);
    assert_int_equal(f.read_only, 0);
    assert_int_equal(f.no_execute, 1);
    assert_int_equal(f.imprecise, 1);
    assert_int_equal(gc_kfd_memory_fault_decode(rec, GC_KFD_MEMORY_FAULT_MIN_SIZE, &f), GPUCORE_OK);
    assert_true(f.va == 0x7f39f5000040ull);
    assert_int_equal(f.gpu_id, 0);
    assert_int_equal(f.error_type, 0);
    assert_int_equal(gc_kfd_memory_fault_decode(rec, GC_KFD_MEMORY_FAULT_MIN_SIZE - 1, &f),
                     GPUCORE_E_TRUNCATED);
    assert_true(f.va == 0 && !f.not_present);
    assert_int_equal(gc_kfd_memory_fault_decode(NULL, 32, &f), GPUCORE_E_INVAL);
    assert_int_equal(sizeof(struct kfd_hsa_memory_exception_data), GC_KFD_MEMORY_FAULT_SIZE);
}

/* ---- errno mapping ------------------------------------------------------------------------- */

static void test_errno_table(void **state)
{
    static const struct {
        int err;
        gpucore_status_t st;
    } rows[] = {
        { EPERM, GPUCORE_E_PERM },       { EACCES, GPUCORE_E_PERM },
        { EINVAL, GPUCORE_E_INVAL },     { ENODEV, GPUCORE_E_NODEV },
        { ESRCH, GPUCORE_E_NOTFOUND },   { EBUSY, GPUCORE_E_LIMIT },
        { EFAULT, GPUCORE_E_IO },        { EIO, GPUCORE_E_IO },
        { ENOTTY, GPUCORE_E_IO },        { 0, GPUCORE_OK },
    };
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    uint32_t ids[1] = { 10 };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_int_equal(gc_kfd_status_from_errno(rows[i].err), rows[i].st);
        assert_int_equal(gc_kfd_status_from_errno(-rows[i].err), rows[i].st);
    }
    /* Each errno through a real operation, with the operation named in the message. */
    fake_init(&f);
    k = open_enabled(&f);
    for (size_t i = 0; rows[i].err; i++) {
        f.op_errno[KFD_IOC_DBG_TRAP_SUSPEND_QUEUES] = rows[i].err;
        memset(&d, 0, sizeof(d));
        assert_int_equal(gc_kfd_suspend_queues(k, ids, 1, 0, 0, NULL, &d), rows[i].st);
        assert_int_equal(d.status, rows[i].st);
        assert_non_null(strstr(d.message, "SUSPEND_QUEUES"));
        assert_non_null(strstr(d.message, strerror(rows[i].err)));
    }
    f.op_errno[KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE] = EACCES;
    assert_int_equal(gc_kfd_set_wave_launch_mode(k, KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT, &d),
                     GPUCORE_E_PERM);
    f.op_errno[KFD_IOC_DBG_TRAP_RESUME_QUEUES] = ENODEV;
    assert_int_equal(gc_kfd_resume_queues(k, ids, 1, NULL, &d), GPUCORE_E_NODEV);
    f.op_errno[KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT] = ESRCH;
    {
        struct kfd_dbg_device_info_entry *e = (void *)1;
        uint32_t n = 7;

        assert_int_equal(gc_kfd_device_snapshot(k, 0, &e, &n, NULL, &d), GPUCORE_E_NOTFOUND);
        assert_null(e);
        assert_int_equal(n, 0);
    }
    f.op_errno[KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT] = EBUSY;
    assert_int_equal(gc_kfd_query_debug_event(k, 0, NULL, NULL, NULL, &d), GPUCORE_E_LIMIT);
    f.op_errno[KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO] = EFAULT;
    {
        uint32_t size = 4;
        uint32_t buf;

        assert_int_equal(gc_kfd_query_exception_info(k, 1, EC_PROCESS_RUNTIME, 1, &buf, &size,
                                                     &d),
                         GPUCORE_E_IO);
    }
    /* DISABLE on a vanished process is not an error: the session is over either way. */
    f.op_errno[KFD_IOC_DBG_TRAP_DISABLE] = ESRCH;
    assert_int_equal(gc_kfd_disable(k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_enable(k, 0, NULL, &d), GPUCORE_OK);
    f.op_errno[KFD_IOC_DBG_TRAP_DISABLE] = EIO;
    assert_int_equal(gc_kfd_disable(k, &d), GPUCORE_E_IO);
    assert_int_equal(gc_kfd_event_fd(k), -1);
    gc_kfd_close(k);
}

/* ---- snapshots ----------------------------------------------------------------------------- */

static void check_device(const struct kfd_dbg_device_info_entry *e, uint32_t i, uint32_t valid)
{
    struct kfd_dbg_device_info_entry want;
    uint8_t full[MAX_ENTRY];

    fill_device(full, i, sizeof(want));
    memcpy(&want, full, sizeof(want));
    memset((uint8_t *)&want + valid, 0, sizeof(want) - valid);
    assert_memory_equal(e, &want, sizeof(want));
}

static void device_snapshot_with(uint32_t driver_size, int report_own, uint32_t want_size)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    struct kfd_dbg_device_info_entry *e = NULL;
    uint32_t n = 0, esize = 0;

    fake_init(&f);
    f.ndev = 3;
    f.dev_size = driver_size;
    f.report_own_size = report_own;
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_device_snapshot(k, 0, &e, &n, &esize, &d), GPUCORE_OK);
    assert_int_equal(n, 3);
    assert_int_equal(esize, want_size);
    /* One call to count (room for one entry), one to fetch. */
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT], 2);
    for (uint32_t i = 0; i < n; i++)
        check_device(&e[i], i, want_size);
    gc_free(e);
    gc_kfd_close(k);
}

static void test_device_snapshot_sizes(void **state)
{
    (void)state;
    device_snapshot_with(120, 0, 120); /* the same ABI */
    device_snapshot_with(128, 1, 120); /* a newer driver: we still get our 120-byte structs */
    device_snapshot_with(128, 0, 120);
    device_snapshot_with(64, 0, 64);   /* an older, shorter entry: zero-extended */
    device_snapshot_with(64, 1, 64);
}

/* A newer driver with longer queue entries (say KFD 1.19 added a field): ours are filled from
   the first 64 bytes of each, stepping by the driver's size. */
static void test_queue_snapshot_longer_entries(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    struct kfd_queue_snapshot_entry *q = NULL;
    uint32_t n = 0, esize = 0;

    (void)state;
    for (int own = 0; own < 2; own++) {
        fake_init(&f);
        f.nq = 3;
        f.q_size = 96;
        f.report_own_size = own;
        k = open_enabled(&f);
        assert_int_equal(gc_kfd_queue_snapshot(k, 0, &q, &n, &esize, &d), GPUCORE_OK);
        assert_int_equal(n, 3);
        assert_int_equal(esize, 64);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(q[i].ring_base_address, 0x10000u * (i + 1));
            assert_int_equal(q[i].queue_id, 10 + i);
            assert_int_equal(q[i].gpu_id, 1000);
            assert_int_equal(q[i].reserved, 0xdead);
        }
        gc_free(q);
        gc_kfd_close(k);
    }
}

static void test_snapshot_empty_and_single(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    struct kfd_queue_snapshot_entry *q = NULL;
    uint32_t n = 9, esize = 0;

    (void)state;
    fake_init(&f);
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_queue_snapshot(k, 0, &q, &n, &esize, &d), GPUCORE_OK);
    assert_int_equal(n, 0);
    assert_non_null(q);
    gc_free(q);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT], 1);

    f.nq = 1; /* fits the counting call: no second call */
    assert_int_equal(gc_kfd_queue_snapshot(k, 0, &q, &n, &esize, &d), GPUCORE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(esize, 64);
    assert_int_equal(q[0].queue_id, 10);
    assert_int_equal(q[0].reserved, 0xdead);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT], 2);
    gc_free(q);
    gc_kfd_close(k);
}

static void test_queue_snapshot_growing(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    struct kfd_queue_snapshot_entry *q = NULL;
    uint32_t n = 0, esize = 0;

    (void)state;
    fake_init(&f);
    f.nq = 3;
    f.q_grow = 2;
    f.q_grow_calls = 2; /* two queues appear after each of the first two calls */
    f.q_size = 48;      /* and the driver's entry is short */
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_queue_snapshot(k, 0, &q, &n, &esize, &d), GPUCORE_OK);
    assert_int_equal(n, 7);
    assert_int_equal(esize, 48);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT], 4); /* 1+2 queues, 2+2, then stable */
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(q[i].ring_base_address, 0x10000u * (i + 1));
        assert_int_equal(q[i].queue_id, 10 + i);
        assert_int_equal(q[i].gpu_id, 1000);
        /* Beyond the 48 populated bytes: zero, not the 0xab the driver left there. */
        assert_int_equal(q[i].ring_size, 0);
        assert_int_equal(q[i].queue_type, 0);
        assert_int_equal(q[i].reserved, 0);
    }
    gc_free(q);

    /* Queues created without end: a bounded number of attempts, then a clear failure. */
    f.q_grow_calls = -1;
    q = (void *)1;
    assert_int_equal(gc_kfd_queue_snapshot(k, 0, &q, &n, &esize, &d), GPUCORE_E_LIMIT);
    assert_null(q);
    assert_non_null(strstr(d.message, "kept growing"));
    gc_kfd_close(k);
}

/* ---- suspend / resume / launch mode -------------------------------------------------------- */

static void test_suspend_resume_status_bits(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    uint32_t ids[4] = { 10, 11, 12, 13 };
    uint32_t done = 99;

    (void)state;
    fake_init(&f);
    f.error_id = 11;
    f.invalid_id = 13;
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_suspend_queues(k, ids, 4, 100, KFD_EC_MASK(EC_QUEUE_NEW), &done, &d),
                     GPUCORE_OK);
    assert_int_equal(done, 2);
    assert_int_equal(f.grace, 100);
    assert_int_equal(f.clear_mask, KFD_EC_MASK(EC_QUEUE_NEW));
    assert_int_equal(ids[0], 10);
    assert_int_equal(ids[1], 11 | GC_KFD_QUEUE_ERROR_MASK);
    assert_int_equal(ids[2], 12);
    assert_int_equal(ids[3], 13 | GC_KFD_QUEUE_INVALID_MASK);
    assert_int_equal(ids[1] & GC_KFD_QUEUE_ID_MASK, 11);

    /* Resume the ones that were suspended. */
    {
        uint32_t again[2] = { ids[0], ids[2] };

        assert_int_equal(gc_kfd_resume_queues(k, again, 2, &done, &d), GPUCORE_OK);
        assert_int_equal(done, 2);
        assert_int_equal(again[0], 10);
        assert_int_equal(again[1], 12);
    }
    f.invalid_id = 12;
    {
        uint32_t again[2] = { 10, 12 };

        assert_int_equal(gc_kfd_resume_queues(k, again, 2, &done, &d), GPUCORE_OK);
        assert_int_equal(done, 1);
        assert_int_equal(again[1], 12 | GC_KFD_QUEUE_INVALID_MASK);
    }
    /* Nothing to do is not a driver call. */
    assert_int_equal(gc_kfd_suspend_queues(k, NULL, 0, 0, 0, &done, &d), GPUCORE_OK);
    assert_int_equal(done, 0);
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_SUSPEND_QUEUES], 1);
    gc_kfd_close(k);
}

static void test_wave_launch_mode(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;

    (void)state;
    fake_init(&f);
    k = open_enabled(&f);
    assert_int_equal(gc_kfd_set_wave_launch_mode(k, KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT, &d),
                     GPUCORE_OK);
    assert_int_equal(f.launch_mode, KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT);
    assert_int_equal(gc_kfd_set_wave_launch_mode(k, 2, &d), GPUCORE_E_INVAL); /* old KILL */
    assert_int_equal(f.calls[KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE], 1);
    gc_kfd_close(k);
}

/* ---- target memory ------------------------------------------------------------------------- */

/* Three pages; the middle one made unreadable by @p hole (PROT_NONE or unmapped). */
static uint8_t *three_pages(size_t pg, int unmap_middle)
{
    uint8_t *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    assert_true(p != MAP_FAILED);
    for (size_t i = 0; i < 3 * pg; i++)
        p[i] = (uint8_t)(i * 7 + 1);
    if (unmap_middle)
        assert_int_equal(munmap(p + pg, pg), 0);
    else
        assert_int_equal(mprotect(p + pg, pg, PROT_NONE), 0);
    return p;
}

static void read_across_hole(struct gc_kfd *k, uint8_t *p, size_t pg)
{
    uint8_t *buf = gc_calloc_array(3, pg);
    uint64_t done = 0;
    gpucore_diag_t d;
    int err = 0;

    assert_non_null(buf);
    /* The readable prefix, then the error; never the whole read failed for one page. */
    assert_int_equal(gc_kfd_read_memory(k, (uintptr_t)p + 16, buf, 3 * pg - 32, &done, &err, &d),
                     GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, pg - 16);
    assert_memory_equal(buf, p + 16, pg - 16);
    assert_true(err == EFAULT || err == EIO);
    assert_non_null(strstr(d.message, "bytes readable"));
    /* The caller steps over the hole and continues: the page after it reads whole. */
    assert_int_equal(gc_kfd_read_memory(k, (uintptr_t)p + 2 * pg, buf, pg, &done, &err, &d),
                     GPUCORE_OK);
    assert_int_equal(done, pg);
    assert_int_equal(err, 0);
    assert_memory_equal(buf, p + 2 * pg, pg);
    gc_free(buf);
}

static void test_read_memory_self(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p;
    uint64_t done;
    int err;

    (void)state;
    fake_init(&f);
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_OK);

    /* An unmapped page: neither process_vm_readv nor /proc/PID/mem can read it. */
    p = three_pages(pg, 1);
    read_across_hole(k, p, pg);
    assert_true(k->mem_fd >= 0); /* the partial read went on through /proc/PID/mem */
    munmap(p, pg);
    munmap(p + 2 * pg, pg);

    /*
     * A PROT_NONE page: process_vm_readv stops at it; /proc/PID/mem reads it anyway (the
     * kernel forces debugger access to a mapping that may be readable), so the fallback turns
     * it into a complete read. Either way the bytes before it are right.
     */
    p = three_pages(pg, 0);
    {
        uint8_t *buf = gc_calloc_array(3, pg);
        gpucore_status_t st;

        assert_non_null(buf);
        st = gc_kfd_read_memory(k, (uintptr_t)p, buf, 3 * pg, &done, &err, &d);
        if (st == GPUCORE_OK) {
            assert_int_equal(done, 3 * pg);
            assert_memory_equal(buf + 2 * pg, p + 2 * pg, pg);
        } else {
            assert_int_equal(st, GPUCORE_E_UNAVAILABLE);
            assert_int_equal(done, pg);
        }
        assert_memory_equal(buf, p, pg);
        gc_free(buf);
    }
    munmap(p, 3 * pg);

    assert_int_equal(gc_kfd_read_memory(k, 0, NULL, 0, &done, &err, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_read_memory(k, UINT64_MAX - 2, &err, 4, &done, &err, &d),
                     GPUCORE_E_INVAL);
    gc_kfd_close(k);
}

static void test_read_memory_proc_fallback(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p;

    (void)state;
    fake_init(&f);
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_OK);
    k->no_vm_readv = 1; /* as where process_vm_readv is refused (EPERM) or absent (ENOSYS) */
    assert_int_equal(k->mem_fd, -1);
    p = three_pages(pg, 1);
    read_across_hole(k, p, pg);
    assert_true(k->mem_fd >= 0);
    munmap(p, pg);
    munmap(p + 2 * pg, pg);
    gc_kfd_close(k);
}

/* Pages of [p, p + size) that are mapped in (mincore), the zero page included. */
static size_t resident_pages(void *p, size_t size, size_t pg)
{
    unsigned char *vec = gc_calloc_array(size / pg, 1);
    size_t n = 0;

    assert_non_null(vec);
    assert_int_equal(mincore(p, size, vec), 0);
    for (size_t i = 0; i < size / pg; i++)
        n += vec[i] & 1u;
    gc_free(vec);
    return n;
}

/* /proc/self/pagemap says the page at @p p is present or swapped. */
static int mapped_in(const void *p, size_t pg)
{
    uint64_t e = 0;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

    assert_true(fd >= 0);
    assert_int_equal(pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / pg * sizeof(e))),
                     (ssize_t)sizeof(e));
    close(fd);
    return (e >> 62) != 0;
}

/*
 * Reading must not change the target: never-touched private anonymous pages read as zeros
 * without being mapped in (not even the zero page), touched ones read as they are, and pages
 * of file-backed and shared mappings that are not mapped in yet still read as their data (page
 * cache, shmem), not as zeros.
 */
static void test_read_memory_untouched(void **state)
{
    struct fake f;
    struct gc_kfd *k;
    gpucore_diag_t d;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), size = 16u << 20, i;
    uint8_t *anon, *file, *shm, *buf, *want;
    char path[] = "/tmp/gpucore-test-kfd-XXXXXX";
    uint64_t done;
    int err, fd, mfd;

    (void)state;
    want = gc_malloc(4 * pg);
    buf = gc_malloc(size);
    assert_non_null(want);
    assert_non_null(buf);
    for (i = 0; i < 4 * pg; i++)
        want[i] = (uint8_t)(i * 13 + 5);

    anon = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
    assert_true(anon != MAP_FAILED);
    memcpy(anon + 5 * pg + 100, want, pg); /* touches pages 5 and 6 */
    fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(write(fd, want, 4 * pg), (ssize_t)(4 * pg));
    file = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
    assert_true(file != MAP_FAILED);
    mfd = memfd_create("gpucore-test", MFD_CLOEXEC);
    assert_true(mfd >= 0);
    assert_int_equal(write(mfd, want, 4 * pg), (ssize_t)(4 * pg));
    shm = mmap(NULL, 4 * pg, PROT_READ, MAP_SHARED, mfd, 0);
    assert_true(shm != MAP_FAILED);
    assert_int_equal(resident_pages(anon, size, pg), 2);
    /* mincore counts page cache; what matters is that the pages are not mapped in here. */
    for (i = 0; i < 4; i++) {
        assert_false(mapped_in(file + i * pg, pg));
        assert_false(mapped_in(shm + i * pg, pg));
    }

    /* The mappings exist before the session's first read, as a stopped target's do. */
    fake_init(&f);
    assert_int_equal(open_fake(&f, &k, &d), GPUCORE_OK);
    memset(buf, 0xa5, size);
    assert_int_equal(gc_kfd_read_memory(k, (uintptr_t)anon, buf, size, &done, &err, &d),
                     GPUCORE_OK);
    assert_int_equal(done, size);
    assert_memory_equal(buf + 5 * pg + 100, want, pg);
    for (i = 0; i < size; i++)
        if (i < 5 * pg + 100 || i >= 6 * pg + 100)
            assert_int_equal(buf[i], 0);
    /* Nothing was mapped in: before, every page read was (RSS or page tables). */
    assert_int_equal(resident_pages(anon, size, pg), 2);

    /* Not mapped in yet, but data: read, not taken for zeros. */
    memset(buf, 0, 4 * pg);
    assert_int_equal(gc_kfd_read_memory(k, (uintptr_t)file + 1, buf, 4 * pg - 1, &done, &err, &d),
                     GPUCORE_OK);
    assert_memory_equal(buf, want + 1, 4 * pg - 1);
    memset(buf, 0, 4 * pg);
    assert_int_equal(gc_kfd_read_memory(k, (uintptr_t)shm, buf, 4 * pg, &done, &err, &d),
                     GPUCORE_OK);
    assert_memory_equal(buf, want, 4 * pg);

    /* A mapping made after the first read is classified once the session forgets the old
     * list (what a capture does when it has stopped the target). */
    {
        uint8_t *late = mmap(NULL, size, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

        assert_true(late != MAP_FAILED);
        gc_kfd_forget_mappings(k);
        assert_int_equal(gc_kfd_read_memory(k, (uintptr_t)late, buf, size, &done, &err, &d),
                         GPUCORE_OK);
        assert_int_equal(resident_pages(late, size, pg), 0);
        munmap(late, size);
    }
    gc_kfd_close(k);

    munmap(anon, size);
    munmap(file, 4 * pg);
    munmap(shm, 4 * pg);
    close(fd);
    close(mfd);
    gc_free(buf);
    gc_free(want);
}

/* Someone else's process: refused by both readers, and reported as such, not as a hole. */
static void test_read_memory_refused(void **state)
{
    struct fake f;
    struct gc_kfd_open_opts o = {
        .device_path = "/dev/null", .ioctl_fn = fake_ioctl, .ioctl_user = &f,
    };
    struct gc_kfd *k;
    gpucore_diag_t d;
    uint64_t done = 1;
    uint8_t buf[16];
    int err = 0;

    (void)state;
    if (geteuid() == 0)
        skip(); /* root may read any process */
    fake_init(&f);
    assert_int_equal(gc_kfd_open(1, &o, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_read_memory(k, 0x400000, buf, sizeof(buf), &done, &err, &d),
                     GPUCORE_E_PERM);
    assert_int_equal(done, 0);
    assert_true(err == EPERM || err == EACCES);
    gc_kfd_close(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_memory_fault_decode),
        cmocka_unit_test(test_version_ioctl_fails),
        cmocka_unit_test(test_device_missing),
        cmocka_unit_test(test_device_no_permission),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_enable_disable),
        cmocka_unit_test(test_enable_errors),
        cmocka_unit_test(test_send_runtime_event),
        cmocka_unit_test(test_wait_event),
        cmocka_unit_test(test_query_exception_info),
        cmocka_unit_test(test_errno_table),
        cmocka_unit_test(test_device_snapshot_sizes),
        cmocka_unit_test(test_snapshot_empty_and_single),
        cmocka_unit_test(test_queue_snapshot_growing),
        cmocka_unit_test(test_queue_snapshot_longer_entries),
        cmocka_unit_test(test_suspend_resume_status_bits),
        cmocka_unit_test(test_wave_launch_mode),
        cmocka_unit_test(test_read_memory_self),
        cmocka_unit_test(test_read_memory_proc_fallback),
        cmocka_unit_test(test_read_memory_untouched),
        cmocka_unit_test(test_read_memory_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
