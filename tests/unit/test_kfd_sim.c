/* SPDX-License-Identifier: MIT */
/*
 * The simulated driver's rules (kfd-debug-interface.md §10-§11), without a socket or a second
 * process: requests are encoded with the protocol and handed to gc_sim_driver_handle() with a
 * chosen peer pid, and the "ptrace parent" is set with gc_sim_driver_set_tracer_override().
 * The save areas live in this process, which is exactly the driver's situation inside the
 * inferior.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cwsr.h"
#include "driver.h"
#include "gc_le.h"
#include "protocol.h"

#define GPU      0x1234u
#define TRACER   4243
#define STRANGER 4242

static uint8_t area0[8192], area1[8192];
static const uint8_t ctl0[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static uint8_t req[GC_SIM_MAX_MESSAGE], resp[GC_SIM_MAX_MESSAGE];

static struct gc_sim_driver *make(const struct gc_sim_fault *faults, uint32_t nf,
                                  uint32_t runtime_state)
{
    static struct kfd_dbg_device_info_entry ag;
    memset(&ag, 0, sizeof(ag));
    ag.gpu_id = GPU;
    ag.gfx_target_version = 90010;
    ag.num_xcc = 1;
    ag.simd_count = 440;
    ag.vendor_id = 0x1002;
    ag.debug_prop = 0x77;

    static struct gc_sim_xcc x0, x1;
    memset(&x0, 0, sizeof(x0));
    x0.base = (uint64_t)(uintptr_t)area0;
    x0.header.control_stack_offset = 0x1000 - 16;
    x0.header.control_stack_size = 16;
    x0.header.wave_state_offset = 0x1000 + 0x100;
    x0.header.wave_state_size = 0x100;
    x0.header.err_payload_addr = 0xdeadbeef00ull;
    x0.ctl_stack = ctl0;
    x0.ctl_stack_len = sizeof(ctl0);
    x1 = x0;
    x1.base = (uint64_t)(uintptr_t)area1;
    x1.ctl_stack = NULL;
    x1.ctl_stack_len = 0;

    static struct gc_sim_queue q[2];
    memset(q, 0, sizeof(q));
    q[0].entry.queue_id = 0;
    q[0].entry.gpu_id = GPU;
    q[0].entry.ring_size = 4096;
    q[0].entry.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
    q[0].entry.ctx_save_restore_address = x0.base;
    q[0].num_xcc = 1;
    q[0].xcc = &x0;
    q[1] = q[0];
    q[1].entry.queue_id = 1;
    q[1].entry.ctx_save_restore_address = x1.base;
    q[1].xcc = &x1;
    q[1].fail_suspend = 1;

    static struct gc_sim_exception ex[2];
    memset(ex, 0, sizeof(ex));
    ex[0].code = EC_QUEUE_WAVE_MEMORY_VIOLATION;
    ex[0].gpu_id = GPU;
    ex[0].queue_id = 0;
    ex[0].delay_ms = 50;
    ex[1].code = EC_DEVICE_MEMORY_VIOLATION;
    ex[1].gpu_id = GPU;
    ex[1].queue_id = KFD_INVALID_QUEUEID;
    ex[1].delay_ms = 60;
    ex[1].fault_va = 0x7000dead000ull;
    ex[1].fault_flags = 1;
    ex[1].error_type = 3;

    struct gc_sim_process p;
    memset(&p, 0, sizeof(p));
    p.rinfo.r_debug = 0x5555000;
    p.rinfo.runtime_state = runtime_state;
    p.rinfo.ttmp_setup = 1;
    p.num_agents = 1;
    p.agents = &ag;
    p.num_queues = 2;
    p.queues = q;
    p.num_exceptions = 2;
    p.exceptions = ex;
    p.num_faults = nf;
    p.faults = faults;
    struct gc_sim_driver *d = NULL;
    assert_int_equal(gc_sim_driver_create(&p, &d, NULL), GPUCORE_OK);
    gc_sim_driver_set_tracer_override(d, TRACER);
    memset(area0, 0, sizeof(area0));
    memset(area1, 0, sizeof(area1));
    return d;
}

/* One DBG_TRAP through the protocol; returns ret and leaves the decoded response in *r. */
static int call(struct gc_sim_driver *d, uint64_t conn, pid_t peer,
                struct kfd_ioctl_dbg_trap_args *a, const uint32_t *ids, uint32_t n, int fd,
                struct gc_sim_response *r)
{
    a->pid = (uint32_t)getpid();
    size_t len = gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, a, ids, n, req, sizeof(req));
    assert_true(len > 0);
    size_t rl = gc_sim_driver_handle(d, conn, peer, req, len, fd, resp, sizeof(resp));
    assert_true(rl > 0);
    assert_int_equal(gc_sim_response_decode(resp, rl, r, NULL), GPUCORE_OK);
    assert_int_equal(r->type, GC_SIM_MSG_DBG_TRAP);
    return r->ret;
}

static int enable(struct gc_sim_driver *d, uint64_t conn, pid_t peer, int *ret_efd)
{
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_ENABLE;
    a.enable.exception_mask = ~0ull;
    a.enable.rinfo_ptr = 1;
    a.enable.rinfo_size = 16;
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    assert_true(efd >= 0);
    int dup_fd = dup(efd); /* the driver takes ownership of what it receives */
    int rc = call(d, conn, peer, &a, NULL, 0, dup_fd, &r);
    if (rc == 0) {
        assert_int_equal(r.out_len, 16);
        assert_int_equal(gc_le64_get(r.out), 0x5555000);
        assert_int_equal(r.args.enable.rinfo_size, 16);
    }
    if (ret_efd)
        *ret_efd = efd;
    else
        close(efd);
    return rc;
}

static void test_version(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    size_t len = gc_sim_request_encode(GC_SIM_MSG_GET_VERSION, NULL, NULL, 0, req, sizeof(req));
    size_t rl = gc_sim_driver_handle(d, 1, STRANGER, req, len, -1, resp, sizeof(resp));
    struct gc_sim_response r;
    assert_int_equal(gc_sim_response_decode(resp, rl, &r, NULL), GPUCORE_OK);
    assert_int_equal(r.ret, 0);
    assert_int_equal(r.major, 1);
    assert_int_equal(r.minor, 18);
    gc_sim_driver_destroy(d);
}

static void test_permissions(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    /* Not the ptrace parent. */
    assert_int_equal(enable(d, 1, STRANGER, NULL), -EPERM);
    /* Every op but ENABLE needs an enabled session. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EINVAL);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_DISABLE; /* exempt from the parent check, but not enabled */
    assert_int_equal(call(d, 1, STRANGER, &a, NULL, 0, -1, &r), -EINVAL);
    /* Wrong target pid. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_ENABLE;
    size_t len;
    a.pid = (uint32_t)getpid() + 1u;
    len = gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, &a, NULL, 0, req, sizeof(req));
    size_t rl = gc_sim_driver_handle(d, 1, TRACER, req, len, -1, resp, sizeof(resp));
    assert_int_equal(gc_sim_response_decode(resp, rl, &r, NULL), GPUCORE_OK);
    assert_int_equal(r.ret, -ESRCH);
    /* ENABLE without an event fd, or with an fd that is not an eventfd. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_ENABLE;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EBADF);
    int pp[2];
    assert_int_equal(pipe(pp), 0);
    close(pp[0]);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, pp[1], &r), -EBADF);
    /* The parent, then a second debugger. Self-debugging is allowed. */
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    assert_int_equal(enable(d, 2, TRACER, NULL), -EINVAL);
    assert_int_equal(enable(d, 3, getpid(), NULL), -EINVAL);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE;
    a.launch_mode.launch_mode = KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT;
    assert_int_equal(call(d, 1, STRANGER, &a, NULL, 0, -1, &r), -EPERM);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    a.launch_mode.launch_mode = 2;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EINVAL);
    /* DISABLE by anyone (exempt), then enable again by self. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_DISABLE;
    assert_int_equal(call(d, 2, STRANGER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(enable(d, 3, getpid(), NULL), 0);
    gc_sim_driver_destroy(d);
}

static void test_runtime_not_enabled(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_DISABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    uint32_t ids[1] = { 0 };
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.queue_array_ptr = 1;
    a.suspend_queues.num_queues = 1;
    assert_int_equal(call(d, 1, TRACER, &a, ids, 1, -1, &r), -EPERM);
    /* Snapshots are not hardware ops. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.queue_snapshot.num_queues, 2);
    gc_sim_driver_destroy(d);
}

static void test_snapshots(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    static const uint32_t sizes[] = { 64, 120, 128, 8 };
    for (unsigned i = 0; i < 4; i++) {
        /* Queues: count first, then entries. */
        memset(&a, 0, sizeof(a));
        a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
        a.queue_snapshot.entry_size = sizes[i];
        assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
        assert_int_equal(r.args.queue_snapshot.num_queues, 2);
        assert_int_equal(r.out_len, 0);
        a.queue_snapshot.num_queues = 1; /* never more than the caller's room */
        a.queue_snapshot.snapshot_buf_ptr = 1;
        assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
        uint32_t pop = sizes[i] < 64 ? sizes[i] : 64;
        assert_int_equal(r.args.queue_snapshot.entry_size, pop);
        assert_int_equal(r.args.queue_snapshot.num_queues, 2);
        assert_int_equal(r.out_len, pop);
        a.queue_snapshot.num_queues = 5;
        assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
        assert_int_equal(r.out_len, 2 * pop);
        if (pop == 64) {
            struct kfd_queue_snapshot_entry e;
            gc_sim_queue_entry_decode(r.out + 64, &e);
            assert_int_equal(e.queue_id, 1);
            assert_int_equal(e.gpu_id, GPU);
            assert_int_equal(e.ctx_save_restore_address, (uintptr_t)area1);
        }
        /* Devices. */
        memset(&a, 0, sizeof(a));
        a.op = KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT;
        a.device_snapshot.entry_size = sizes[i];
        a.device_snapshot.num_devices = 4;
        a.device_snapshot.snapshot_buf_ptr = 1;
        assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
        pop = sizes[i] < 120 ? sizes[i] : 120;
        assert_int_equal(r.args.device_snapshot.entry_size, pop);
        assert_int_equal(r.args.device_snapshot.num_devices, 1);
        assert_int_equal(r.out_len, pop);
        if (pop == 120) {
            struct kfd_dbg_device_info_entry e;
            gc_sim_device_entry_decode(r.out, &e);
            assert_int_equal(e.gfx_target_version, 90010);
            assert_int_equal(e.debug_prop, 0x77);
        }
    }
    /* A buffer pointer of 0 with room asked for is the kernel's EFAULT. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT;
    a.device_snapshot.entry_size = 120;
    a.device_snapshot.num_devices = 1;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EFAULT);
    gc_sim_driver_destroy(d);
}

static void test_suspend_resume(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    uint32_t ids[3] = { 0, 1, 77 };
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.queue_array_ptr = 1;
    a.suspend_queues.num_queues = 3;
    assert_int_equal(call(d, 1, TRACER, &a, ids, 3, -1, &r), 1);
    assert_int_equal(r.out_len, 12);
    assert_int_equal(gc_le32_get(r.out), 0);
    assert_int_equal(gc_le32_get(r.out + 4), 1u | KFD_DBG_QUEUE_ERROR_MASK);
    assert_int_equal(gc_le32_get(r.out + 8), 77u | KFD_DBG_QUEUE_INVALID_MASK);
    /* The header and the gfx9 control stack are in the save area now. */
    struct gc_cwsr_header h;
    assert_int_equal(gc_cwsr_header_decode(area0, 40, &h), GPUCORE_OK);
    assert_int_equal(h.control_stack_offset, 0x1000 - 16);
    assert_int_equal(h.wave_state_size, 0x100);
    assert_int_equal(h.err_payload_addr, 0xdeadbeef00ull);
    assert_memory_equal(area0 + 0x1000 - 16, ctl0, 16);
    /* The failing queue's area is untouched. */
    static const uint8_t zero[40];
    assert_memory_equal(area1, zero, 40);

    /* RESUME: the suspended one resumes; a queue that is not suspended is INVALID. */
    uint32_t rids[2] = { 0, 1 };
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_RESUME_QUEUES;
    a.resume_queues.queue_array_ptr = 1;
    a.resume_queues.num_queues = 2;
    assert_int_equal(call(d, 1, TRACER, &a, rids, 2, -1, &r), 1);
    assert_int_equal(gc_le32_get(r.out), 0);
    assert_int_equal(gc_le32_get(r.out + 4), 1u | KFD_DBG_QUEUE_INVALID_MASK);

    /* Suspend again, then the debugger goes away: implicit DISABLE resumes it. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.queue_array_ptr = 1;
    a.suspend_queues.num_queues = 1;
    assert_int_equal(call(d, 1, TRACER, &a, ids, 1, -1, &r), 1);
    gc_sim_driver_disconnect(d, 1);
    assert_int_equal(enable(d, 2, TRACER, NULL), 0);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_RESUME_QUEUES;
    a.resume_queues.queue_array_ptr = 1;
    a.resume_queues.num_queues = 1;
    assert_int_equal(call(d, 2, TRACER, &a, ids, 1, -1, &r), 0);
    assert_int_equal(gc_le32_get(r.out), KFD_DBG_QUEUE_INVALID_MASK);
    gc_sim_driver_destroy(d);
}

static void test_exceptions(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    int efd;
    assert_int_equal(enable(d, 1, TRACER, &efd), 0);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EAGAIN);
    uint64_t v = 0;
    assert_int_equal(read(efd, &v, 8), -1);

    gc_sim_driver_tick(d, 100);
    assert_int_equal(read(efd, &v, 8), 8);
    assert_true(v >= 1);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_debug_event.queue_id, 0);
    assert_int_equal(r.args.query_debug_event.gpu_id, GPU);
    assert_int_equal(r.args.query_debug_event.exception_mask,
                     KFD_EC_MASK(EC_QUEUE_WAVE_MEMORY_VIOLATION));
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_debug_event.queue_id, KFD_INVALID_QUEUEID);
    assert_int_equal(r.args.query_debug_event.exception_mask,
                     KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION));
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EAGAIN);

    /* The raised status shows in the snapshot (mask 0 keeps it), and a mask clears it. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
    a.queue_snapshot.entry_size = 64;
    a.queue_snapshot.num_queues = 1;
    a.queue_snapshot.snapshot_buf_ptr = 1;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(gc_le64_get(r.out), KFD_EC_MASK(EC_QUEUE_WAVE_MEMORY_VIOLATION));
    a.queue_snapshot.exception_mask = ~0ull;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    a.queue_snapshot.exception_mask = 0;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(gc_le64_get(r.out), 0);

    /* Exception info: the memory-violation record, then the runtime info. */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO;
    a.query_exception_info.info_ptr = 1;
    a.query_exception_info.info_size = 64;
    a.query_exception_info.source_id = GPU;
    a.query_exception_info.exception_code = EC_DEVICE_MEMORY_VIOLATION;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_exception_info.info_size, 32);
    assert_int_equal(r.out_len, 32);
    assert_int_equal(gc_le32_get(r.out), 1);
    assert_int_equal(gc_le64_get(r.out + 16), 0x7000dead000ull);
    assert_int_equal(gc_le32_get(r.out + 28), 3);
    a.query_exception_info.exception_code = EC_PROCESS_RUNTIME;
    a.query_exception_info.info_size = 8;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_exception_info.info_size, 16);
    assert_int_equal(r.out_len, 8);
    assert_int_equal(gc_le64_get(r.out), 0x5555000);
    a.query_exception_info.exception_code = EC_DEVICE_RAS_ERROR;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -ENODATA);
    close(efd);
    gc_sim_driver_destroy(d);
}

static void test_faults(void **state)
{
    (void)state;
    struct gc_sim_fault f[3];
    memset(f, 0, sizeof(f));
    f[2].op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    f[2].delay_ms = 30;
    f[0].op = KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT;
    f[0].err = EIO;
    f[0].nth = 2;
    f[1].op = GC_SIM_OP_GET_VERSION;
    f[1].err = ENODEV;
    struct gc_sim_driver *d = make(f, 3, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EIO);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    size_t len = gc_sim_request_encode(GC_SIM_MSG_GET_VERSION, NULL, NULL, 0, req, sizeof(req));
    size_t rl = gc_sim_driver_handle(d, 1, TRACER, req, len, -1, resp, sizeof(resp));
    assert_int_equal(gc_sim_response_decode(resp, rl, &r, NULL), GPUCORE_OK);
    assert_int_equal(r.ret, -ENODEV);
    /* A delayed op answers no sooner than its delay. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EAGAIN);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L;
    assert_true(ms >= 29);
    gc_sim_driver_destroy(d);
}

static void test_malformed(void **state)
{
    (void)state;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    struct kfd_ioctl_dbg_trap_args a;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.num_queues = 2;
    uint32_t ids[2] = { 0, 1 };
    size_t len = gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, &a, ids, 2, req, sizeof(req));
    assert_true(len > 0);
    /* Each truncation, a lying payload length, a bad magic: all dropped, nothing written. */
    for (size_t l = 0; l < len; l++)
        assert_int_equal(gc_sim_driver_handle(d, 1, TRACER, req, l, -1, resp, sizeof(resp)), 0);
    gc_le32_put(req + 8, 0xffffffffu);
    assert_int_equal(gc_sim_driver_handle(d, 1, TRACER, req, len, -1, resp, sizeof(resp)), 0);
    gc_le32_put(req + 8, (uint32_t)(len - 16));
    gc_le32_put(req + 16 + 8 + 16, 0x40000000u); /* num_queues far above the bound */
    assert_int_equal(gc_sim_driver_handle(d, 1, TRACER, req, len, -1, resp, sizeof(resp)), 0);
    gc_le32_put(req, 0);
    assert_int_equal(gc_sim_driver_handle(d, 1, TRACER, req, len, -1, resp, sizeof(resp)), 0);
    /* Too many ids to encode at all. */
    assert_int_equal(gc_sim_request_encode(GC_SIM_MSG_DBG_TRAP, &a, ids, GC_SIM_MAX_IDS + 1, req,
                                           sizeof(req)),
                     0);
    /* Bad descriptions. */
    struct gc_sim_process p;
    struct gc_sim_driver *bad = NULL;
    memset(&p, 0, sizeof(p));
    p.num_queues = GC_SIM_MAX_QUEUES + 1;
    assert_int_equal(gc_sim_driver_create(&p, &bad, NULL), GPUCORE_E_INVAL);
    p.num_queues = 1;
    assert_int_equal(gc_sim_driver_create(&p, &bad, NULL), GPUCORE_E_INVAL);
    gc_sim_driver_destroy(d);
}

/* Multi-XCC queues get a header at every XCC base; NO_HWS refuses everything with EINVAL. */
static void test_multi_xcc_and_no_hws(void **state)
{
    (void)state;
    struct gc_sim_xcc x[2];
    memset(x, 0, sizeof(x));
    x[0].base = (uint64_t)(uintptr_t)area0;
    x[1].base = (uint64_t)(uintptr_t)area1;
    x[0].header.debug_offset = 2 * 8192;
    x[1].header.debug_offset = 8192; /* (num_xcc - i) * ctx_size, as libhsakmt writes it */
    x[0].header.wave_state_offset = x[1].header.wave_state_offset = 0x1000;
    struct gc_sim_queue q;
    memset(&q, 0, sizeof(q));
    q.entry.queue_id = 3;
    q.num_xcc = 2;
    q.xcc = x;
    struct gc_sim_process p;
    memset(&p, 0, sizeof(p));
    p.rinfo.r_debug = 0x5555000; /* what enable() expects back */
    p.rinfo.runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
    p.num_queues = 1;
    p.queues = &q;
    struct gc_sim_driver *d = NULL;
    assert_int_equal(gc_sim_driver_create(&p, &d, NULL), GPUCORE_OK);
    gc_sim_driver_set_tracer_override(d, TRACER);
    memset(area0, 0, sizeof(area0));
    memset(area1, 0, sizeof(area1));
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    uint32_t id = 3;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.queue_array_ptr = 1;
    a.suspend_queues.num_queues = 1;
    assert_int_equal(call(d, 1, TRACER, &a, &id, 1, -1, &r), 1);
    struct gc_cwsr_header h;
    assert_int_equal(gc_cwsr_header_decode(area0, 40, &h), GPUCORE_OK);
    assert_int_equal(h.debug_offset, 2 * 8192);
    assert_int_equal(gc_cwsr_header_decode(area1, 40, &h), GPUCORE_OK);
    assert_int_equal(h.debug_offset, 8192);
    assert_int_equal(h.wave_state_offset, 0x1000);
    gc_sim_driver_destroy(d);

    p.no_hws = 1;
    assert_int_equal(gc_sim_driver_create(&p, &d, NULL), GPUCORE_OK);
    gc_sim_driver_set_tracer_override(d, TRACER);
    assert_int_equal(enable(d, 1, TRACER, NULL), -EINVAL);
    gc_sim_driver_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_permissions),
        cmocka_unit_test(test_runtime_not_enabled),
        cmocka_unit_test(test_snapshots),
        cmocka_unit_test(test_suspend_resume),
        cmocka_unit_test(test_exceptions),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_multi_xcc_and_no_hws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
