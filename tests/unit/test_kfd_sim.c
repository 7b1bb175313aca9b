/* SPDX-License-Identifier: MIT */
/*
 * The simulated driver's rules (docs/kfd-debug-interface.md §10-§11), without a socket or a second
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
#include <stdio.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cwsr.h"
#include "driver.h"
#include "gc_le.h"
#include "kfd_sim_protocol.h"

#define GPU      0x1234u
#define TRACER   4243
#define STRANGER 4242

static uint8_t area0[8192], area1[8192];
static const uint8_t ctl0[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static uint8_t req[GC_SIM_MAX_MESSAGE], resp[GC_SIM_MAX_MESSAGE];

/* Extras make() puts into the description (tests set them, teardown_extras() clears them). */
static struct {
    const struct gc_sim_alloc *allocs;
    uint32_t nallocs;
    uint32_t read_delay;
    uint32_t minor;
    uint64_t q_fault_va; /* fault address of the queue exception */
    gc_sim_runtime_fn runtime;
    void *runtime_user;
    int runtime_clock;
} extras;

static int teardown_extras(void **state)
{
    (void)state;
    memset(&extras, 0, sizeof(extras));
    return 0;
}

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
    x0.saved = ctl0;
    x0.saved_len = sizeof(ctl0);
    x1 = x0;
    x1.base = (uint64_t)(uintptr_t)area1;
    x1.saved = NULL;
    x1.saved_len = 0;

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
    ex[0].fault_va = extras.q_fault_va;
    ex[0].fault_flags = extras.q_fault_va ? 0x5u : 0;
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
    p.num_allocs = extras.nallocs;
    p.allocs = extras.allocs;
    p.read_delay_us_per_mib = extras.read_delay;
    p.kfd_minor = extras.minor;
    p.kfd_major = extras.minor ? 1 : 0;
    p.runtime_error = extras.runtime;
    p.runtime_user = extras.runtime_user;
    p.runtime_clock = extras.runtime_clock;
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

static int enable_mask(struct gc_sim_driver *d, uint64_t conn, pid_t peer, uint64_t mask,
                       int *ret_efd)
{
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_ENABLE;
    a.enable.exception_mask = mask;
    a.enable.rinfo_ptr = 1;
    a.enable.rinfo_size = 16;
    /* a pipe, as AMD's library and gc_kfd pass: the driver writes one byte per event */
    int pp[2];
    assert_int_equal(pipe2(pp, O_CLOEXEC | O_NONBLOCK), 0);
    int efd = pp[0];
    int dup_fd = pp[1]; /* the driver takes ownership of what it receives */
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

static int enable(struct gc_sim_driver *d, uint64_t conn, pid_t peer, int *ret_efd)
{
    return enable_mask(d, conn, peer, ~0ull, ret_efd);
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
    /* ENABLE without an event file (kfd_dbg_trap_enable's fget fails); any open file will do,
       an eventfd too (which the one-byte writes of events then never reach). */
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_ENABLE;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EBADF);
    int efd0 = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    assert_true(efd0 >= 0);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, efd0, &r), 0);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_DISABLE;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
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
    /* The header and the saved control stack (and waves) are in the save area now. */
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
    char v[8];
    assert_int_equal(read(efd, v, sizeof(v)), -1);

    gc_sim_driver_tick(d, 100);
    assert_true(read(efd, v, sizeof(v)) >= 1); /* one '.' per signal */
    assert_int_equal(v[0], '.');
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

/* One DEVICE_INFO from allocation @p first, decoded into *r (borrowing resp). */
static void device_info(struct gc_sim_driver *d, pid_t peer, uint32_t first,
                        struct gc_sim_response *r)
{
    size_t len = gc_sim_info_request_encode(first, req, sizeof(req));
    assert_int_equal(len, GC_SIM_HEADER_SIZE + 4);
    size_t rl = gc_sim_driver_handle(d, 9, peer, req, len, -1, resp, sizeof(resp));
    assert_true(rl > 0);
    assert_int_equal(gc_sim_response_decode(resp, rl, r, NULL), GPUCORE_OK);
    assert_int_equal(r->type, GC_SIM_MSG_DEVICE_INFO);
    assert_int_equal(r->ret, 0);
}

/* The allocation list, page by page, the read delay and the driver state, to anyone. */
static void test_device_info(void **state)
{
    (void)state;
    enum { N = GC_SIM_MAX_ALLOCS_PER_MSG + 100 };
    static struct gc_sim_alloc al[N];
    for (uint32_t i = 0; i < N; i++) {
        memset(&al[i], 0, sizeof(al[i]));
        al[i].base = 0x10000000ull + 0x10000ull * i;
        al[i].size = 0x1000ull * (i % 7 + 1);
        al[i].kind = i % 11;
        al[i].gpu_id = GPU;
        al[i].flags = i & 1u;
        snprintf(al[i].label, sizeof(al[i].label), "buffer b%u", i);
    }
    extras.allocs = al;
    extras.nallocs = N;
    extras.read_delay = 250;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    struct gc_sim_response r;
    uint32_t got = 0;
    while (got < N) {
        device_info(d, STRANGER, got, &r);
        assert_int_equal(r.info.total, N);
        assert_int_equal(r.info.first, got);
        assert_int_equal(r.info.read_delay_us_per_mib, 250);
        assert_int_equal(r.info.debug_enabled, 0);
        assert_int_equal(r.info.suspended_queues, 0);
        assert_true(r.info.count > 0 && r.info.count <= GC_SIM_MAX_ALLOCS_PER_MSG);
        for (uint32_t i = 0; i < r.info.count; i++) {
            struct gc_sim_alloc a;
            gc_sim_alloc_decode(r.out + (size_t)i * GC_SIM_ALLOC_ENTRY_SIZE, &a);
            assert_int_equal(a.base, al[got + i].base);
            assert_int_equal(a.size, al[got + i].size);
            assert_int_equal(a.kind, al[got + i].kind);
            assert_int_equal(a.gpu_id, GPU);
            assert_int_equal(a.flags, al[got + i].flags);
            assert_string_equal(a.label, al[got + i].label);
        }
        got += r.info.count;
    }
    assert_int_equal(got, N);
    /* Past the end: the fixed part only. */
    device_info(d, STRANGER, UINT32_MAX, &r);
    assert_int_equal(r.info.count, 0);
    assert_int_equal(r.info.first, N);
    assert_int_equal(r.out_len, 0);

    /* The state the driver keeps: enabled, one queue suspended (queue 1 fails to suspend). */
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    struct kfd_ioctl_dbg_trap_args a;
    uint32_t ids[2] = { 0, 1 };
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.queue_array_ptr = 1;
    a.suspend_queues.num_queues = 2;
    assert_int_equal(call(d, 1, TRACER, &a, ids, 2, -1, &r), 1);
    device_info(d, STRANGER, UINT32_MAX, &r);
    assert_int_equal(r.info.debug_enabled, 1);
    assert_int_equal(r.info.suspended_queues, 1);
    int en = -1;
    uint32_t sq = 99;
    gc_sim_driver_state(d, &en, &sq);
    assert_int_equal(en, 1);
    assert_int_equal(sq, 1);
    /* Disconnecting the holder disables and resumes everything. */
    gc_sim_driver_disconnect(d, 1);
    device_info(d, STRANGER, UINT32_MAX, &r);
    assert_int_equal(r.info.debug_enabled, 0);
    assert_int_equal(r.info.suspended_queues, 0);
    gc_sim_driver_destroy(d);

    /* A description with too many allocations, or a NULL list, is refused. */
    struct gc_sim_process p;
    struct gc_sim_driver *bad = NULL;
    memset(&p, 0, sizeof(p));
    p.num_allocs = GC_SIM_MAX_ALLOCS + 1;
    p.allocs = al;
    assert_int_equal(gc_sim_driver_create(&p, &bad, NULL), GPUCORE_E_INVAL);
    p.num_allocs = 1;
    p.allocs = NULL;
    assert_int_equal(gc_sim_driver_create(&p, &bad, NULL), GPUCORE_E_INVAL);
}

/* DEVICE_INFO framing: what the decoders refuse. */
static void test_device_info_codec(void **state)
{
    (void)state;
    static uint8_t ent[2 * GC_SIM_ALLOC_ENTRY_SIZE];
    struct gc_sim_alloc a;
    memset(&a, 0, sizeof(a));
    a.base = 0x1000;
    a.size = 0x2000;
    memset(a.label, 'y', sizeof(a.label)); /* not terminated: encoding cuts it */
    gc_sim_alloc_encode(&a, ent);
    gc_sim_alloc_encode(&a, ent + GC_SIM_ALLOC_ENTRY_SIZE);
    struct gc_sim_alloc b;
    gc_sim_alloc_decode(ent, &b);
    assert_int_equal(strlen(b.label), GC_SIM_ALLOC_LABEL_MAX - 1);
    assert_int_equal(b.size, 0x2000);

    struct gc_sim_response s, r;
    memset(&s, 0, sizeof(s));
    s.type = GC_SIM_MSG_DEVICE_INFO;
    s.info.total = 5;
    s.info.first = 3;
    s.info.count = 2;
    s.out = ent;
    s.out_len = sizeof(ent);
    size_t len = gc_sim_response_encode(&s, resp, sizeof(resp));
    assert_int_equal(len, GC_SIM_HEADER_SIZE + GC_SIM_INFO_FIXED_SIZE + sizeof(ent));
    assert_int_equal(gc_sim_response_decode(resp, len, &r, NULL), GPUCORE_OK);
    assert_int_equal(r.info.count, 2);
    /* Entries beyond the announced total. */
    gc_le32_put(resp + GC_SIM_HEADER_SIZE + 20, 4);
    gpucore_diag_t dg;
    assert_int_equal(gc_sim_response_decode(resp, len, &r, &dg), GPUCORE_E_CORRUPT);
    assert_non_null(strstr(dg.message, "exceed its total"));
    /* A count that does not match the bytes. */
    gc_le32_put(resp + GC_SIM_HEADER_SIZE + 20, 5);
    gc_le32_put(resp + GC_SIM_HEADER_SIZE + 28, 1);
    assert_int_equal(gc_sim_response_decode(resp, len, &r, NULL), GPUCORE_E_CORRUPT);
    /* Truncated fixed part; a request with a payload of the wrong size. */
    gc_le32_put(resp + 8, 8);
    assert_int_equal(gc_sim_response_decode(resp, GC_SIM_HEADER_SIZE + 8, &r, NULL),
                     GPUCORE_E_TRUNCATED);
    assert_int_equal(gc_sim_info_request_encode(0, req, GC_SIM_HEADER_SIZE + 3), 0);
    len = gc_sim_info_request_encode(7, req, sizeof(req));
    struct gc_sim_request q;
    assert_int_equal(gc_sim_request_decode(req, len, &q, NULL), GPUCORE_OK);
    assert_int_equal(q.first, 7);
    gc_le32_put(req + 8, 5);
    req[len] = 0;
    assert_int_equal(gc_sim_request_decode(req, len + 1, &q, NULL), GPUCORE_E_CORRUPT);
    /* An encoder refuses a count that does not match its bytes. */
    s.out_len = GC_SIM_ALLOC_ENTRY_SIZE;
    assert_int_equal(gc_sim_response_encode(&s, resp, sizeof(resp)), 0);
}

/* Fill @p n bytes with a pattern no two bytes of which are equal (mod 251). */
static void pattern(void *p, size_t n, unsigned seed)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)((i + seed) % 251u + 1u);
}

/*
 * The table-driven codecs against the kernel ABI: every field survives a round trip, and on
 * this (little-endian) host the wire image is byte for byte the kernel struct, which pins every
 * table entry's offset and width. Pads travel as zero.
 */
static void test_codec_tables(void **state)
{
    (void)state;
    const uint16_t probe = 1;
    uint8_t first;
    memcpy(&first, &probe, 1);
    int le = first == 1;

    struct kfd_dbg_device_info_entry de, de2;
    uint8_t dw[GC_SIM_DEVICE_ENTRY_SIZE];
    pattern(&de, sizeof(de), 1);
    gc_sim_device_entry_encode(&de, dw);
    gc_sim_device_entry_decode(dw, &de2);
    assert_memory_equal(&de, &de2, sizeof(de));
    if (le)
        assert_memory_equal(dw, &de, sizeof(dw));

    struct kfd_queue_snapshot_entry qe, qe2;
    uint8_t qw[GC_SIM_QUEUE_ENTRY_SIZE];
    pattern(&qe, sizeof(qe), 2);
    gc_sim_queue_entry_encode(&qe, qw);
    gc_sim_queue_entry_decode(qw, &qe2);
    assert_memory_equal(&qe, &qe2, sizeof(qe));
    if (le)
        assert_memory_equal(qw, &qe, sizeof(qw));

    struct kfd_runtime_info ri, ri2;
    uint8_t rw[GC_SIM_RINFO_SIZE];
    pattern(&ri, sizeof(ri), 3);
    gc_sim_rinfo_encode(&ri, rw);
    gc_sim_rinfo_decode(rw, &ri2);
    assert_memory_equal(&ri, &ri2, sizeof(ri));
    if (le)
        assert_memory_equal(rw, &ri, sizeof(rw));

    static const struct {
        uint32_t op;
        size_t size; /* of the op's union member */
    } ops[] = {
        { KFD_IOC_DBG_TRAP_ENABLE, sizeof(struct kfd_ioctl_dbg_trap_enable_args) },
        { KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT,
          sizeof(struct kfd_ioctl_dbg_trap_send_runtime_event_args) },
        { KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED,
          sizeof(struct kfd_ioctl_dbg_trap_set_exceptions_enabled_args) },
        { KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE,
          sizeof(struct kfd_ioctl_dbg_trap_set_wave_launch_override_args) },
        { KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE,
          sizeof(struct kfd_ioctl_dbg_trap_set_wave_launch_mode_args) },
        { KFD_IOC_DBG_TRAP_SUSPEND_QUEUES, sizeof(struct kfd_ioctl_dbg_trap_suspend_queues_args) },
        { KFD_IOC_DBG_TRAP_RESUME_QUEUES, sizeof(struct kfd_ioctl_dbg_trap_resume_queues_args) },
        { KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH,
          sizeof(struct kfd_ioctl_dbg_trap_set_node_address_watch_args) },
        { KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH,
          sizeof(struct kfd_ioctl_dbg_trap_clear_node_address_watch_args) },
        { KFD_IOC_DBG_TRAP_SET_FLAGS, sizeof(struct kfd_ioctl_dbg_trap_set_flags_args) },
        { KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT,
          sizeof(struct kfd_ioctl_dbg_trap_query_debug_event_args) },
        { KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO,
          sizeof(struct kfd_ioctl_dbg_trap_query_exception_info_args) },
        { KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT,
          sizeof(struct kfd_ioctl_dbg_trap_queue_snapshot_args) },
        { KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT,
          sizeof(struct kfd_ioctl_dbg_trap_device_snapshot_args) },
        { KFD_IOC_DBG_TRAP_DISABLE, 0 },
        { 999, 0 }, /* unknown: pid and op only */
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        struct kfd_ioctl_dbg_trap_args a, b;
        uint8_t w[GC_SIM_ARGS_SIZE];
        memset(&a, 0, sizeof(a));
        pattern(&a, 8 + ops[i].size, (unsigned)i);
        a.op = ops[i].op;
        /* The explicit pads are not fields: they travel as zero. */
        if (a.op == KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE)
            a.launch_override.pad = 0;
        if (a.op == KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE)
            a.launch_mode.pad = 0;
        if (a.op == KFD_IOC_DBG_TRAP_RESUME_QUEUES)
            a.resume_queues.pad = 0;
        if (a.op == KFD_IOC_DBG_TRAP_SET_FLAGS)
            a.set_flags.pad = 0;
        gc_sim_args_encode(&a, w);
        pattern(&b, sizeof(b), 77);
        gc_sim_args_decode(w, &b);
        assert_memory_equal(&a, &b, sizeof(a));
        if (le)
            assert_memory_equal(w, &a, GC_SIM_ARGS_SIZE);
    }

    struct gc_sim_alloc al, al2;
    uint8_t aw[GC_SIM_ALLOC_ENTRY_SIZE];
    memset(&al, 0, sizeof(al));
    al.base = 0x1122334455667788ull;
    al.size = 0x99aabbccddeeff00ull;
    al.kind = 0x01020304u;
    al.gpu_id = 0x05060708u;
    al.flags = 0x090a0b0cu;
    snprintf(al.label, sizeof(al.label), "kernarg d7");
    gc_sim_alloc_encode(&al, aw);
    gc_sim_alloc_decode(aw, &al2);
    assert_memory_equal(&al, &al2, sizeof(al));
    assert_int_equal(gc_le64_get(aw + 8), al.size);
    assert_int_equal(gc_le32_get(aw + 24), al.flags);
    assert_int_equal(gc_le32_get(aw + 28), 0);
    assert_string_equal((const char *)aw + 32, "kernarg d7");
}

/* The memory-exception record's codec and the op table both sides read. */
static void test_op_outputs(void **state)
{
    (void)state;
    struct gc_sim_memory_exception x = { { 1, 0, 1, 0 }, 0x0102030405060708ull, 0x11, 3 }, y;
    uint8_t w[GC_SIM_RECORD_MAX], host[GC_SIM_MEMORY_EXCEPTION_SIZE];

    gc_sim_memory_exception_encode(&x, w);
    assert_int_equal(gc_le32_get(w), 1);
    assert_int_equal(gc_le32_get(w + 8), 1);
    assert_int_equal(gc_le64_get(w + 16), x.va);
    assert_int_equal(gc_le32_get(w + 24), 0x11);
    assert_int_equal(gc_le32_get(w + 28), 3);
    gc_sim_memory_exception_decode(w, &y);
    assert_memory_equal(&x, &y, sizeof(x));
    /* the generic record codec agrees, and a prefix decodes to the prefix of the host struct */
    gc_sim_record_encode(GC_SIM_REC_MEMORY_EXCEPTION, &x, w);
    assert_int_equal(gc_le64_get(w + 16), x.va);
    assert_int_equal(gc_le32_get(w + 32), 0); /* zero past the record */
    memset(host, 0xee, sizeof(host));
    gc_sim_record_decode(GC_SIM_REC_MEMORY_EXCEPTION, w, 24, host);
    assert_memory_equal(host, &x, 24);
    assert_int_equal(host[24], 0xee);

    assert_int_equal(gc_sim_exception_record(EC_PROCESS_RUNTIME), GC_SIM_REC_RINFO);
    assert_int_equal(gc_sim_exception_record(EC_DEVICE_MEMORY_VIOLATION),
                     GC_SIM_REC_MEMORY_EXCEPTION);
    assert_int_equal(gc_sim_record_size(GC_SIM_REC_BY_CODE), GC_SIM_EXCEPTION_INFO_MAX);
    assert_int_equal(gc_sim_record_size(GC_SIM_REC_NONE), 0);

    /* one row per op with output; every other op (and an unknown one) has none */
    struct kfd_ioctl_dbg_trap_args a;
    memset(&a, 0, sizeof(a));
    a.suspend_queues.queue_array_ptr = 0x1234;
    a.suspend_queues.num_queues = 7;
    const struct gc_sim_op_output *o = gc_sim_op_output(KFD_IOC_DBG_TRAP_SUSPEND_QUEUES);
    assert_int_equal(o->shape, GC_SIM_OUT_IDS);
    assert_int_equal(gc_sim_args_u64(&a, o->ptr), 0x1234);
    assert_int_equal(gc_sim_args_u32(&a, o->cap), 7);
    o = gc_sim_op_output(KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT);
    assert_int_equal(o->shape, GC_SIM_OUT_ENTRIES);
    assert_int_equal(gc_sim_record_size(o->record), GC_SIM_DEVICE_ENTRY_SIZE);
    assert_int_equal(gc_sim_op_output(KFD_IOC_DBG_TRAP_ENABLE)->record, GC_SIM_REC_RINFO);
    assert_int_equal(gc_sim_op_output(KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO)->record,
                     GC_SIM_REC_BY_CODE);
    assert_int_equal(gc_sim_op_output(KFD_IOC_DBG_TRAP_DISABLE)->shape, GC_SIM_OUT_NONE);
    assert_int_equal(gc_sim_op_output(KFD_IOC_DBG_TRAP_SET_FLAGS)->shape, GC_SIM_OUT_NONE);
    assert_int_equal(gc_sim_op_output(9999)->shape, GC_SIM_OUT_NONE);

    /* the frame built around outputs in place decodes as the generic encoder's */
    uint8_t msg[GC_SIM_DBG_TRAP_OUT_OFFSET + 4];
    struct gc_sim_response r;
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.num_queues = 1;
    gc_le32_put(msg + GC_SIM_DBG_TRAP_OUT_OFFSET, 0x40000005u);
    assert_int_equal(gc_sim_dbg_trap_frame(1, &a, 4, msg), sizeof(msg));
    assert_int_equal(gc_sim_response_decode(msg, sizeof(msg), &r, NULL), GPUCORE_OK);
    assert_int_equal(r.ret, 1);
    assert_int_equal(r.out_len, 4);
    assert_int_equal(gc_le32_get(r.out), 0x40000005u);
    assert_int_equal(r.args.suspend_queues.num_queues, 1);
}

/* What "the runtime" received. */
struct delivered {
    unsigned n;
    struct gc_sim_runtime_error e[4];
};

static void on_runtime(void *user, const struct gc_sim_runtime_error *e)
{
    struct delivered *dl = user;
    assert_true(dl->n < 4);
    dl->e[dl->n++] = *e;
}

static void test_runtime_delivery(void **state)
{
    (void)state;
    struct delivered dl;
    memset(&dl, 0, sizeof(dl));
    extras.runtime = on_runtime;
    extras.runtime_user = &dl;
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;

    /* Raised while the debugger's mask does not have them: straight to the runtime. */
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable_mask(d, 1, TRACER, 0, NULL), 0);
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 0); /* nothing raised yet */
    gc_sim_driver_tick(d, 100);
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 2);
    assert_int_equal(dl.e[0].code, EC_QUEUE_WAVE_MEMORY_VIOLATION);
    assert_int_equal(dl.e[0].queue_id, 0);
    assert_int_equal(dl.e[0].gpu_id, GPU);
    assert_int_equal(dl.e[1].code, EC_DEVICE_MEMORY_VIOLATION);
    assert_int_equal(dl.e[1].queue_id, KFD_INVALID_QUEUEID);
    assert_int_equal(dl.e[1].fault_va, 0x7000dead000ull);
    assert_int_equal(dl.e[1].fault_flags, 1);
    /* Once each. */
    gc_sim_driver_flush_runtime(d);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_DISABLE;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 2);
    gc_sim_driver_destroy(d);

    /* Held by the debugger: not while it holds them, then on DISABLE. */
    memset(&dl, 0, sizeof(dl));
    d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    gc_sim_driver_tick(d, 100);
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 0);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_DISABLE;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(dl.n, 0); /* the answer goes out first: handle() delivers nothing */
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 2);
    gc_sim_driver_destroy(d);

    /* Held, then the holder disconnects: the disconnect hands them over. */
    memset(&dl, 0, sizeof(dl));
    d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    gc_sim_driver_tick(d, 100);
    gc_sim_driver_disconnect(d, 2); /* not the holder: nothing */
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 0);
    gc_sim_driver_disconnect(d, 1);
    assert_int_equal(dl.n, 2);
    gc_sim_driver_destroy(d);

    /* Held, then the mask drops the queue exception: only that one goes. */
    memset(&dl, 0, sizeof(dl));
    d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    gc_sim_driver_tick(d, 100);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED;
    a.set_exceptions_enabled.exception_mask = KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION);
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 1);
    assert_int_equal(dl.e[0].code, EC_QUEUE_WAVE_MEMORY_VIOLATION);
    /* Destroying a driver delivers nothing more. */
    gc_sim_driver_destroy(d);
    assert_int_equal(dl.n, 1);
}

/* A queue exception with a fault address also raises the device's memory violation, whose
 * record carries the address and flags. */
static void test_queue_fault_address(void **state)
{
    (void)state;
    extras.q_fault_va = 0x7f39f5000040ull;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    gc_sim_driver_tick(d, 55); /* the queue exception only (the device one is due at 60) */
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_debug_event.queue_id, 0);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_debug_event.queue_id, KFD_INVALID_QUEUEID);
    assert_int_equal(r.args.query_debug_event.exception_mask,
                     KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION));
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO;
    a.query_exception_info.info_ptr = 1;
    a.query_exception_info.info_size = 32;
    a.query_exception_info.source_id = GPU;
    a.query_exception_info.exception_code = EC_DEVICE_MEMORY_VIOLATION;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.out_len, 32);
    assert_int_equal(gc_le32_get(r.out + 0), 1); /* NotPresent */
    assert_int_equal(gc_le32_get(r.out + 4), 0);
    assert_int_equal(gc_le32_get(r.out + 8), 1); /* NoExecute */
    assert_int_equal(gc_le64_get(r.out + 16), 0x7f39f5000040ull);
    assert_int_equal(gc_le32_get(r.out + 24), GPU);
    gc_sim_driver_destroy(d);
}

/*
 * Late arming (runtime_clock): an error raised while no debugger has debugging enabled is
 * handled as the kernel does: the runtime gets it, nothing is recorded for a debugger that
 * comes later (no event, no exception_status), the VM fault evicts the queues with their waves
 * saved (no header yet), and a later SUSPEND writes the header without saving again.
 */
static void test_late_arming(void **state)
{
    (void)state;
    struct delivered dl;
    memset(&dl, 0, sizeof(dl));
    extras.runtime = on_runtime;
    extras.runtime_user = &dl;
    extras.runtime_clock = 1;
    extras.q_fault_va = 0x7f39f5000040ull;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    static const uint8_t zero[40];
    struct kfd_ioctl_dbg_trap_args a;
    struct gc_sim_response r;

    gc_sim_driver_tick(d, 55); /* the queue's memory violation: no debugger */
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 1);
    assert_int_equal(dl.e[0].code, EC_QUEUE_WAVE_MEMORY_VIOLATION);
    assert_int_equal(dl.e[0].fault_va, 0x7f39f5000040ull);
    /* Evicted: the waves are in the save area, the header is not (get_wave_state not run). */
    assert_memory_equal(area0 + 0x1000 - 16, ctl0, 16);
    assert_memory_equal(area0, zero, 40);
    /* Changed after the save: a SUSPEND that saved again would overwrite it. */
    memset(area0 + 0x1000 - 16, 0xaa, 16);

    assert_int_equal(enable(d, 1, TRACER, NULL), 0);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), -EAGAIN);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
    a.queue_snapshot.entry_size = 64;
    a.queue_snapshot.num_queues = 2;
    a.queue_snapshot.snapshot_buf_ptr = 1;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.out_len, 128);
    assert_int_equal(gc_le64_get(r.out), 0); /* exception_status of queue 0: none recorded */

    uint32_t ids[1] = { 0 };
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
    a.suspend_queues.queue_array_ptr = 1;
    a.suspend_queues.num_queues = 1;
    assert_int_equal(call(d, 1, TRACER, &a, ids, 1, -1, &r), 1);
    assert_int_equal(gc_le32_get(r.out), 0);
    struct gc_cwsr_header h;
    assert_int_equal(gc_cwsr_header_decode(area0, 40, &h), GPUCORE_OK);
    assert_int_equal(h.control_stack_offset, 0x1000 - 16);
    assert_int_equal(h.err_payload_addr, 0xdeadbeef00ull);
    static const uint8_t aa[16] = { 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
                                    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa };
    assert_memory_equal(area0 + 0x1000 - 16, aa, 16); /* not saved again */

    /* The device's violation, due at 60, comes on the runtime's clock while the debugger
       holds the process: recorded and signalled as usual, not handed to the runtime. */
    gc_sim_driver_tick(d, 65);
    gc_sim_driver_flush_runtime(d);
    assert_int_equal(dl.n, 1);
    memset(&a, 0, sizeof(a));
    a.op = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT;
    assert_int_equal(call(d, 1, TRACER, &a, NULL, 0, -1, &r), 0);
    assert_int_equal(r.args.query_debug_event.exception_mask,
                     KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION));
    gc_sim_driver_destroy(d);
}

/* The minor version a scenario asks for. */
static void test_minor(void **state)
{
    (void)state;
    extras.minor = 13;
    struct gc_sim_driver *d = make(NULL, 0, DEBUG_RUNTIME_STATE_ENABLED);
    size_t len = gc_sim_request_encode(GC_SIM_MSG_GET_VERSION, NULL, NULL, 0, req, sizeof(req));
    size_t rl = gc_sim_driver_handle(d, 1, STRANGER, req, len, -1, resp, sizeof(resp));
    struct gc_sim_response r;
    assert_int_equal(gc_sim_response_decode(resp, rl, &r, NULL), GPUCORE_OK);
    assert_int_equal(r.major, 1);
    assert_int_equal(r.minor, 13);
    gc_sim_driver_destroy(d);
}

/* An exit fault ends the process while serving the op, before any answer: in a child. */
static void test_exit_fault(void **state)
{
    (void)state;
    struct gc_sim_fault f;
    memset(&f, 0, sizeof(f));
    f.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
    f.exit_during = 1;
    f.exit_status = 42;
    f.nth = 2;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct gc_sim_driver *d = make(&f, 1, DEBUG_RUNTIME_STATE_ENABLED);
        if (enable(d, 1, TRACER, NULL) != 0)
            _exit(1);
        struct kfd_ioctl_dbg_trap_args a;
        struct gc_sim_response r;
        memset(&a, 0, sizeof(a));
        a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
        if (call(d, 1, TRACER, &a, NULL, 0, -1, &r) != 0)
            _exit(2); /* the first call is served */
        (void)call(d, 1, TRACER, &a, NULL, 0, -1, &r);
        _exit(3); /* not reached: the second call exits 42 */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 42);
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
        cmocka_unit_test_teardown(test_device_info, teardown_extras),
        cmocka_unit_test(test_device_info_codec),
        cmocka_unit_test_teardown(test_runtime_delivery, teardown_extras),
        cmocka_unit_test_teardown(test_queue_fault_address, teardown_extras),
        cmocka_unit_test_teardown(test_minor, teardown_extras),
        cmocka_unit_test_teardown(test_late_arming, teardown_extras),
        cmocka_unit_test(test_exit_fault),
        cmocka_unit_test(test_codec_tables),
        cmocka_unit_test(test_op_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
