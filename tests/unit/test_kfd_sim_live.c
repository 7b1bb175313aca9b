/* SPDX-License-Identifier: MIT */
/*
 * The sim backend end to end, across real processes: a forked child hosts the simulated driver
 * on its socket with one gfx90a agent and one queue whose CWSR area is a buffer in the child's
 * memory; this process PTRACE_SEIZEs it (seize, not attach, so the driver thread keeps running)
 * and drives it through gc_kfd with the sim backend, checking the kernel's rules as a debugger
 * sees them. Memory written by SUSPEND is read back with process_vm_readv, as capture does.
 *
 * Exit 77 (skipped) where ptrace is not permitted.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cwsr.h"
#include "driver.h"
#include "gc_util.h"
#include "kfd.h"
#include "kfd_internal.h"
#include "kfd_sim_protocol.h"

#define GPU 0x3e8u
#define QID 5u

/* Same address in the child after fork: the child's copy is the save area the driver writes. */
static uint8_t area[16384];
static pid_t child = -1;

static void child_main(int ready_fd)
{
    struct kfd_dbg_device_info_entry ag;
    memset(&ag, 0, sizeof(ag));
    ag.gpu_id = GPU;
    ag.gfx_target_version = 90010; /* gfx90a */
    ag.num_xcc = 1;
    ag.simd_count = 440;
    ag.max_waves_per_simd = 8;
    ag.array_count = 8;
    ag.simd_arrays_per_engine = 1;

    static const uint8_t ctl[16] = { 0xc0, 0xc1, 0xc2, 0xc3, 4,  5,  6,  7,
                                     8,    9,    10,   11,   12, 13, 14, 15 };
    struct gc_sim_xcc x;
    memset(&x, 0, sizeof(x));
    x.base = (uint64_t)(uintptr_t)area;
    x.header.control_stack_offset = 0x2000 - 16;
    x.header.control_stack_size = 16;
    x.header.wave_state_offset = 0x2000 + 0x400;
    x.header.wave_state_size = 0x400;
    x.header.debug_offset = sizeof(area);
    x.header.err_event_id = 9;
    x.saved = ctl;
    x.saved_len = sizeof(ctl);

    struct gc_sim_queue q;
    memset(&q, 0, sizeof(q));
    q.entry.queue_id = QID;
    q.entry.gpu_id = GPU;
    q.entry.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
    q.entry.ring_size = 65536;
    q.entry.ctx_save_restore_address = x.base;
    q.entry.ctx_save_restore_area_size = sizeof(area);
    q.num_xcc = 1;
    q.xcc = &x;

    struct gc_sim_exception ex;
    memset(&ex, 0, sizeof(ex));
    ex.code = EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION;
    ex.gpu_id = GPU;
    ex.queue_id = QID;
    ex.delay_ms = 150;

    struct gc_sim_fault f;
    memset(&f, 0, sizeof(f));
    f.op = KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE;
    f.err = EIO;
    f.nth = 1;

    struct gc_sim_process p;
    memset(&p, 0, sizeof(p));
    p.rinfo.r_debug = 0x7f0000001000ull;
    p.rinfo.runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
    p.rinfo.ttmp_setup = 1;
    p.num_agents = 1;
    p.agents = &ag;
    p.num_queues = 1;
    p.queues = &q;
    p.num_exceptions = 1;
    p.exceptions = &ex;
    p.num_faults = 1;
    p.faults = &f;
    /* The device's allocations, listed out of order (the client sorts). */
    static struct gc_sim_alloc al[2];
    memset(al, 0, sizeof(al));
    al[0].base = (uint64_t)(uintptr_t)area;
    al[0].size = sizeof(area);
    al[0].kind = GC_KFD_MEM_CWSR;
    al[0].gpu_id = GPU;
    snprintf(al[0].label, sizeof(al[0].label), "CWSR q%u", QID);
    al[1].base = 0x1000;
    al[1].size = 0x2000;
    al[1].kind = GC_KFD_MEM_DOORBELL;
    al[1].gpu_id = GPU;
    al[1].flags = GC_KFD_MAP_NO_READ;
    snprintf(al[1].label, sizeof(al[1].label), "doorbell");
    p.num_allocs = 2;
    p.allocs = al;
    struct gc_sim_driver *d = NULL;
    gpucore_diag_t diag;
    char ok = gc_sim_driver_start(&p, NULL, &d, &diag) == GPUCORE_OK;
    if (write(ready_fd, &ok, 1) != 1 || !ok)
        _exit(1);
    for (;;)
        pause();
}

static int setup(void **state)
{
    (void)state;
    int p[2];
    if (pipe(p) != 0)
        return -1;
    child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        close(p[0]);
        child_main(p[1]);
    }
    close(p[1]);
    char ok = 0;
    if (read(p[0], &ok, 1) != 1 || !ok)
        return -1;
    close(p[0]);
    /* Seize, not attach: attach would group-stop the child, driver thread included. */
    if (ptrace(PTRACE_SEIZE, child, NULL, NULL) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    return 0;
}

static struct gc_kfd *open_sim(pid_t pid)
{
    struct gc_kfd_open_opts o;
    memset(&o, 0, sizeof(o));
    o.backend = GC_KFD_BACKEND_SIM;
    struct gc_kfd *k = NULL;
    gpucore_diag_t diag;
    gpucore_status_t st = gc_kfd_open(pid, &o, &k, &diag);
    if (st != GPUCORE_OK)
        fail_msg("open: %s", diag.message);
    return k;
}

/* A raw snapshot with the caller's entry size, as the kernel would see it. */
static int raw_queue_snapshot(struct gc_kfd *k, uint32_t entry_size, uint32_t num, void *buf,
                              uint32_t *ret_num, uint32_t *ret_size)
{
    struct kfd_ioctl_dbg_trap_args a;
    memset(&a, 0, sizeof(a));
    a.pid = (uint32_t)k->pid;
    a.op = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT;
    a.queue_snapshot.snapshot_buf_ptr = (uint64_t)(uintptr_t)buf;
    a.queue_snapshot.num_queues = num;
    a.queue_snapshot.entry_size = entry_size;
    int rc = k->ops->dbg_trap(k, &a);
    *ret_num = a.queue_snapshot.num_queues;
    *ret_size = a.queue_snapshot.entry_size;
    return rc;
}

static int raw_device_snapshot(struct gc_kfd *k, uint32_t entry_size, uint32_t num, void *buf,
                               uint32_t *ret_num, uint32_t *ret_size)
{
    struct kfd_ioctl_dbg_trap_args a;
    memset(&a, 0, sizeof(a));
    a.pid = (uint32_t)k->pid;
    a.op = KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT;
    a.device_snapshot.snapshot_buf_ptr = (uint64_t)(uintptr_t)buf;
    a.device_snapshot.num_devices = num;
    a.device_snapshot.entry_size = entry_size;
    int rc = k->ops->dbg_trap(k, &a);
    *ret_num = a.device_snapshot.num_devices;
    *ret_size = a.device_snapshot.entry_size;
    return rc;
}

static void test_not_parent(void **state)
{
    (void)state;
    /* A sibling process is not the child's ptrace parent. */
    pid_t other = fork();
    assert_true(other >= 0);
    if (other == 0) {
        struct gc_kfd *k = open_sim(child);
        struct kfd_runtime_info ri;
        gpucore_status_t st = gc_kfd_enable(k, ~0ull, &ri, NULL);
        gc_kfd_close(k);
        _exit(st == GPUCORE_E_PERM ? 0 : 1);
    }
    int ws = 0;
    assert_int_equal(waitpid(other, &ws, 0), other);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

static void test_no_driver(void **state)
{
    (void)state;
    struct gc_kfd_open_opts o;
    memset(&o, 0, sizeof(o));
    o.backend = GC_KFD_BACKEND_SIM;
    struct gc_kfd *k = NULL;
    gpucore_diag_t diag;
    assert_int_equal(gc_kfd_open(getpid(), &o, &k, &diag), GPUCORE_E_NODEV);
    assert_non_null(strstr(diag.message, "no simulated GPU driver for process"));
}

static void test_session(void **state)
{
    (void)state;
    gpucore_diag_t diag;
    struct gc_kfd *k = open_sim(child);
    uint32_t maj, min;
    gc_kfd_version(k, &maj, &min);
    assert_int_equal(maj, 1);
    assert_int_equal(min, 18);
    assert_string_equal(gc_kfd_backend_name(k), "sim");

    /* Before ENABLE: every op is EINVAL. */
    uint32_t n, sz;
    struct kfd_queue_snapshot_entry qe[4];
    assert_int_equal(raw_queue_snapshot(k, 64, 4, qe, &n, &sz), -EINVAL);

    struct kfd_runtime_info ri;
    memset(&ri, 0, sizeof(ri));
    assert_int_equal(gc_kfd_enable(k, ~0ull, &ri, &diag), GPUCORE_OK);
    assert_int_equal(ri.r_debug, 0x7f0000001000ull);
    assert_int_equal(ri.runtime_state, DEBUG_RUNTIME_STATE_ENABLED);
    assert_int_equal(ri.ttmp_setup, 1);

    /* A second debugger (even the same ptrace parent) is refused. */
    struct gc_kfd *k2 = open_sim(child);
    assert_int_equal(gc_kfd_enable(k2, ~0ull, &ri, &diag), GPUCORE_E_INVAL);
    gc_kfd_close(k2);

    /* Entry-size protocol: 64 (ours), 120 and 128 (a newer caller's larger entry). */
    static const uint32_t sizes[] = { 64, 120, 128 };
    for (unsigned i = 0; i < 3; i++) {
        uint8_t buf[4 * 128];
        memset(buf, 0xaa, sizeof(buf));
        assert_int_equal(raw_queue_snapshot(k, sizes[i], 0, NULL, &n, &sz), 0);
        assert_int_equal(n, 1);
        assert_int_equal(raw_queue_snapshot(k, sizes[i], 2, buf, &n, &sz), 0);
        assert_int_equal(n, 1);
        assert_int_equal(sz, 64);
        struct kfd_queue_snapshot_entry e;
        memcpy(&e, buf, sizeof(e));
        assert_int_equal(e.queue_id, QID);
        assert_int_equal(e.gpu_id, GPU);
        assert_int_equal(e.ctx_save_restore_address, (uintptr_t)area);
        assert_int_equal(buf[64], 0xaa); /* not one byte past the populated size */
        uint8_t dbuf[2 * 128];
        memset(dbuf, 0xaa, sizeof(dbuf));
        assert_int_equal(raw_device_snapshot(k, sizes[i], 1, dbuf, &n, &sz), 0);
        assert_int_equal(n, 1);
        assert_int_equal(sz, sizes[i] < 120 ? sizes[i] : 120);
        uint32_t gfx;
        memcpy(&gfx, dbuf + offsetof(struct kfd_dbg_device_info_entry, gpu_id), 4);
        assert_int_equal(gfx, GPU);
        assert_int_equal(dbuf[sz], 0xaa);
        assert_int_equal(dbuf[128], 0xaa); /* num 1: the second slot is never written */
    }
    struct kfd_queue_snapshot_entry *qs = NULL;
    uint32_t count = 0, esz = 0;
    assert_int_equal(gc_kfd_queue_snapshot(k, 0, &qs, &count, &esz, &diag), GPUCORE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(qs[0].queue_id, QID);
    gc_free(qs);
    struct kfd_dbg_device_info_entry *ds = NULL;
    assert_int_equal(gc_kfd_device_snapshot(k, 0, &ds, &count, &esz, &diag), GPUCORE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(ds[0].gfx_target_version, 90010);
    gc_free(ds);

    /* SUSPEND writes the header (and the gfx9 control stack) into the child's memory. */
    uint32_t ids[2] = { QID, 99 };
    uint32_t done = 0;
    gpucore_status_t st = gc_kfd_suspend_queues(k, ids, 2, 0, 0, &done, &diag);
    assert_int_equal(st, GPUCORE_OK); /* per-queue failures are in the ids, not the status */
    assert_int_equal(done, 1);
    assert_int_equal(ids[0] & ~GC_KFD_QUEUE_ID_MASK, 0);
    assert_true(ids[1] & GC_KFD_QUEUE_INVALID_MASK);
    uint8_t hdr[40], stack[16];
    struct iovec l = { hdr, sizeof(hdr) }, r = { area, sizeof(hdr) };
    assert_int_equal(process_vm_readv(child, &l, 1, &r, 1, 0), 40);
    struct gc_cwsr_header h;
    assert_int_equal(gc_cwsr_header_decode(hdr, sizeof(hdr), &h), GPUCORE_OK);
    assert_int_equal(h.control_stack_offset, 0x2000 - 16);
    assert_int_equal(h.wave_state_size, 0x400);
    assert_int_equal(h.err_event_id, 9);
    uint64_t got = 0;
    int err = 0;
    assert_int_equal(gc_kfd_read_memory(k, (uint64_t)(uintptr_t)area + 0x2000 - 16, stack, 16, &got,
                                        &err, &diag),
                     GPUCORE_OK);
    assert_int_equal(got, 16);
    assert_int_equal(stack[0], 0xc0);
    assert_int_equal(stack[3], 0xc3);

    /* The scheduled exception arrives on the event fd; QUERY_DEBUG_EVENT reports it once. */
    assert_int_equal(gc_kfd_wait_event(k, 5000, &diag), GPUCORE_OK);
    uint64_t raised = 0;
    uint32_t gpu = 0, qid = 0;
    assert_int_equal(gc_kfd_query_debug_event(k, 0, &raised, &gpu, &qid, &diag), GPUCORE_OK);
    assert_int_equal(raised, KFD_EC_MASK(EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION));
    assert_int_equal(gpu, GPU);
    assert_int_equal(qid, QID);
    assert_int_equal(gc_kfd_query_debug_event(k, 0, &raised, &gpu, &qid, &diag),
                     GPUCORE_E_NOTFOUND);

    /* RESUME. */
    ids[0] = QID;
    assert_int_equal(gc_kfd_resume_queues(k, ids, 1, &done, &diag), GPUCORE_OK);
    assert_int_equal(done, 1);

    /* Injected errno: the first SET_WAVE_LAUNCH_MODE fails EIO, the second succeeds. */
    assert_int_equal(gc_kfd_set_wave_launch_mode(k, KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT, &diag),
                     GPUCORE_E_IO);
    assert_int_equal(gc_kfd_set_wave_launch_mode(k, KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT, &diag),
                     GPUCORE_OK);

    /* DISABLE ends the session; a new one can start. */
    assert_int_equal(gc_kfd_disable(k, &diag), GPUCORE_OK);
    assert_int_equal(raw_queue_snapshot(k, 64, 0, NULL, &n, &sz), -EINVAL);
    assert_int_equal(gc_kfd_enable(k, ~0ull, &ri, &diag), GPUCORE_OK);
    /* Closing while enabled releases the process (gc_kfd_close disables; the driver would
     * also do it on disconnect). */
    gc_kfd_close(k);
    k = open_sim(child);
    assert_int_equal(gc_kfd_enable(k, ~0ull, &ri, &diag), GPUCORE_OK);
    /* Disconnect without DISABLE: the driver's implicit DISABLE lets the next debugger in. */
    k->ops->close(k);
    k->enabled = 0;
    k->ops->open(k, &(struct gc_kfd_open_opts){ .backend = GC_KFD_BACKEND_SIM }, &diag);
    usleep(100000); /* the server notices the hang-up on its next poll */
    assert_int_equal(gc_kfd_enable(k, ~0ull, &ri, &diag), GPUCORE_OK);
    gc_kfd_close(k);
}

/* A driver that exits during an op: the debugger sees the process gone, and it really is. */
static void test_exit_during_op(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        close(p[0]);
        struct gc_sim_fault f;
        memset(&f, 0, sizeof(f));
        f.op = KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT;
        f.exit_during = 1;
        f.exit_status = 3;
        struct gc_sim_process d;
        memset(&d, 0, sizeof(d));
        d.rinfo.runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
        d.num_faults = 1;
        d.faults = &f;
        struct gc_sim_driver *drv = NULL;
        char ok = gc_sim_driver_start(&d, NULL, &drv, NULL) == GPUCORE_OK;
        if (write(p[1], &ok, 1) != 1 || !ok)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    char ok = 0;
    assert_int_equal(read(p[0], &ok, 1), 1);
    close(p[0]);
    assert_true(ok);
    assert_int_equal(ptrace(PTRACE_SEIZE, c, NULL, NULL), 0);
    /* The driver thread is named so a capturer can leave it running. */
    char path[64], comm[32] = "";
    int found = 0;
    for (int tid = c; tid < c + 64 && !found; tid++) {
        snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)c, tid);
        FILE *fc = fopen(path, "r");
        if (fc) {
            found = fgets(comm, sizeof(comm), fc) && strncmp(comm, "gpucore-kfd-sim", 15) == 0;
            fclose(fc);
        }
    }
    assert_true(found);
    struct gc_kfd *k = open_sim(c);
    struct kfd_runtime_info ri;
    gpucore_diag_t diag;
    assert_int_equal(gc_kfd_enable(k, ~0ull, &ri, &diag), GPUCORE_OK);
    struct kfd_dbg_device_info_entry *ds = NULL;
    uint32_t n = 0, esz = 0;
    assert_int_equal(gc_kfd_device_snapshot(k, 0, &ds, &n, &esz, &diag), GPUCORE_E_NOTFOUND);
    int ws = 0;
    assert_int_equal(waitpid(c, &ws, 0), c);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 3);
    k->enabled = 0; /* the process is gone: nothing to disable */
    gc_kfd_close(k);
}

/*
 * A hostile client on the real socket: garbage, an oversized message and a silent hang-up are
 * each answered by dropping that connection, and the driver keeps serving. The driver runs in
 * this process, which also covers the kernel's self-debugging exemption (target == caller) and
 * the sim_socket option.
 */
static void test_hostile_socket(void **state)
{
    (void)state;
    struct gc_sim_process p;
    memset(&p, 0, sizeof(p));
    p.rinfo.runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
    struct gc_sim_driver *drv = NULL;
    gpucore_diag_t diag;
    char name[64];
    snprintf(name, sizeof(name), "@gpucore-kfd-sim-test.%ld", (long)getpid());
    assert_int_equal(gc_sim_driver_start(&p, name, &drv, &diag), GPUCORE_OK);
    assert_string_equal(gc_sim_driver_socket_name(drv), name);
    /* A second driver cannot take the same name. */
    struct gc_sim_driver *dup_drv = NULL;
    assert_int_equal(gc_sim_driver_start(&p, name, &dup_drv, &diag), GPUCORE_E_EXIST);

    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    size_t nl = strlen(name + 1);
    memcpy(sa.sun_path + 1, name + 1, nl);
    socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl);
    static uint8_t big[GC_SIM_MAX_MESSAGE + 100];
    memset(big, 0x41, sizeof(big));
    const size_t lens[] = { 1, 16, 100, sizeof(big) };
    for (unsigned i = 0; i < 4; i++) {
        int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(connect(fd, (struct sockaddr *)&sa, sl), 0);
        int sndbuf = (int)sizeof(big) * 2;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
        if (send(fd, big, lens[i], MSG_NOSIGNAL) == (ssize_t)lens[i]) {
            char c;
            struct timeval tv = { 5, 0 };
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
            assert_int_equal(recv(fd, &c, 1, 0), 0); /* dropped, not answered */
        }
        close(fd);
    }
    /* Still serving: self-debugging through the client backend, on the named socket. */
    struct gc_kfd_open_opts o;
    memset(&o, 0, sizeof(o));
    o.backend = GC_KFD_BACKEND_SIM;
    o.sim_socket = name;
    struct gc_kfd *k = NULL;
    assert_int_equal(gc_kfd_open(getpid(), &o, &k, &diag), GPUCORE_OK);
    struct kfd_runtime_info ri;
    assert_int_equal(gc_kfd_enable(k, 0, &ri, &diag), GPUCORE_OK);
    assert_int_equal(gc_kfd_disable(k, &diag), GPUCORE_OK);
    gc_kfd_close(k);
    gc_sim_driver_stop(drv);
    /* Stopped: nobody answers any more. */
    assert_int_equal(gc_kfd_open(getpid(), &o, &k, &diag), GPUCORE_E_NODEV);
}

/* The driver's state as a second client sees it: not the ptrace parent, no session. */
static void state_from_sibling(int want_enabled, uint32_t want_suspended)
{
    pid_t other = fork();
    assert_true(other >= 0);
    if (other == 0) {
        struct gc_kfd *k = open_sim(child);
        int en = -1;
        uint32_t sq = 99;
        gpucore_status_t st = gc_kfd_driver_state(k, &en, &sq, NULL);
        gc_kfd_close(k);
        _exit(st == GPUCORE_OK && en == want_enabled && sq == want_suspended ? 0 : 1);
    }
    int ws = 0;
    assert_int_equal(waitpid(other, &ws, 0), other);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

/* What the device knows: its service thread, its allocations, its debug state. */
static void test_device_facts(void **state)
{
    (void)state;
    gpucore_diag_t diag;
    struct gc_kfd *k = open_sim(child);

    /* The service thread is the one named gpucore-kfd-sim. */
    pid_t tids[2] = { 0, 0 };
    uint32_t n = 0;
    assert_int_equal(gc_kfd_service_threads(k, tids, 2, &n, &diag), GPUCORE_OK);
    assert_int_equal(n, 1);
    assert_int_not_equal(tids[0], child);
    char path[64], comm[32] = "";
    snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)child, (int)tids[0]);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(comm, sizeof(comm), f));
    fclose(f);
    assert_string_equal(comm, "gpucore-kfd-sim\n");
    /* cap 0 still counts. */
    assert_int_equal(gc_kfd_service_threads(k, NULL, 0, &n, &diag), GPUCORE_OK);
    assert_int_equal(n, 1);

    /* The allocation list, sorted by base, with kinds, flags and labels. */
    struct gc_kfd_mapping *m = NULL;
    assert_int_equal(gc_kfd_gpu_mappings(k, &m, &n, &diag), GPUCORE_OK);
    assert_int_equal(n, 2);
    assert_int_equal(m[0].base, 0x1000);
    assert_int_equal(m[0].flags, GC_KFD_MAP_NO_READ);
    assert_string_equal(m[0].label, "doorbell");
    assert_int_equal(m[1].base, (uintptr_t)area);
    assert_int_equal(m[1].size, sizeof(area));
    assert_int_equal(m[1].kind, 5);
    assert_int_equal(m[1].gpu_id, GPU);
    assert_string_equal(m[1].label, "CWSR q5");
    gc_free(m);

    /* Debug state, from a client that is not the ptrace parent, while nobody / we hold it. */
    state_from_sibling(0, 0);
    struct kfd_runtime_info ri;
    assert_int_equal(gc_kfd_enable(k, ~0ull, &ri, &diag), GPUCORE_OK);
    uint32_t ids[1] = { QID }, done = 0;
    assert_int_equal(gc_kfd_suspend_queues(k, ids, 1, 0, 0, &done, &diag), GPUCORE_OK);
    state_from_sibling(1, 1);
    int en = -1;
    uint32_t sq = 99;
    assert_int_equal(gc_kfd_driver_state(k, &en, &sq, &diag), GPUCORE_OK);
    assert_int_equal(en, 1);
    assert_int_equal(sq, 1);
    /* DISABLE resumes what it suspended and lets go. */
    assert_int_equal(gc_kfd_disable(k, &diag), GPUCORE_OK);
    state_from_sibling(0, 0);
    gc_kfd_close(k);

    /* The kernel has no such query: the linux backend says NOTSUP. */
    struct gc_kfd lk;
    memset(&lk, 0, sizeof(lk));
    lk.ops = &gc_kfd_linux_ops;
    lk.event_fd = lk.mem_fd = -1;
    assert_int_equal(gc_kfd_driver_state(&lk, &en, &sq, &diag), GPUCORE_E_NOTSUP);
    assert_int_equal(gc_kfd_driver_state(NULL, &en, &sq, &diag), GPUCORE_E_INVAL);
}

int main(void)
{
    /* ptrace permission decides whether this test can run here at all. */
    pid_t probe = fork();
    if (probe == 0) {
        pause();
        _exit(0);
    }
    int can = ptrace(PTRACE_SEIZE, probe, NULL, NULL) == 0;
    kill(probe, SIGKILL);
    waitpid(probe, NULL, 0);
    if (!can) {
        printf("skipped: ptrace not permitted here\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_driver),      cmocka_unit_test(test_not_parent),
        cmocka_unit_test(test_session),        cmocka_unit_test(test_exit_during_op),
        cmocka_unit_test(test_hostile_socket), cmocka_unit_test(test_device_facts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
