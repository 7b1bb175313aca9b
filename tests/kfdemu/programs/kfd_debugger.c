// SPDX-License-Identifier: MIT
//
// kfd_debugger PID: what a debugger does first with a GPU process through amdkfd's debug
// interface (AMDKFD_IOC_DBG_TRAP), as AMD's debugger library does it, for the kfdemu tests:
// ptrace-seize the process, enable debugging with an event pipe, read the runtime info, the
// device and queue snapshots, suspend every queue, read what the context save left in each
// queue's save area, resume, disable. Along the way it checks that the runtime's structures are
// where a debugger looks for them: _amdgpu_r_debug (from the runtime info) and its link map of
// code-object URIs, each queue's amd_queue_t (its write and read index addresses, 56 and 128
// bytes in) describing the ring the snapshot reports.
//
// It waits (up to 30 s) for the runtime to have enabled itself and for a dispatch to be pending
// on one of the queues, so it can be started right after the program.
//
// One line per fact, "kfd_debugger: ...", for the test to match. Exit 0 when every step
// answered as amdkfd answers a debugger, 1 otherwise (the line says which). It also tries what
// the kernel refuses: a second process that is not the ptrace parent gets EPERM, a pid with no
// KFD process ESRCH.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kfd_ioctl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_QUEUES 64
#define MAX_DEVICES 16
#define WAIT_TRIES 300 /* of 100 ms */

static int kfd = -1, mem = -1;

static int fail(const char *what)
{
    printf("kfd_debugger: FAILED: %s\n", what);
    return 1;
}

static int dbg_trap(int pid, uint32_t op, struct kfd_ioctl_dbg_trap_args *a)
{
    a->pid = (uint32_t)pid;
    a->op = op;
    return ioctl(kfd, AMDKFD_IOC_DBG_TRAP, a) < 0 ? -errno : 0;
}

static int peek(uint64_t addr, void *buf, size_t len)
{
    return pread(mem, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

// The link map of _amdgpu_r_debug (glibc's r_debug layout: r_version, r_map at 8; link_map:
// l_addr, l_name, l_ld, l_next, l_prev): prints each code object's URI. Returns their count.
/* A dispatch is pending on a queue of the snapshot: its amd_queue_t's write index (56 bytes in)
   is past its read index (128). Returns the first such queue's read index + 1, or 0. */
static uint64_t dispatch_pending(int pid)
{
    struct kfd_queue_snapshot_entry q[MAX_QUEUES];
    struct kfd_ioctl_dbg_trap_args a;

    memset(&a, 0, sizeof(a));
    a.queue_snapshot.snapshot_buf_ptr = (uintptr_t)q;
    a.queue_snapshot.num_queues = MAX_QUEUES;
    a.queue_snapshot.entry_size = sizeof(q[0]);
    if (dbg_trap(pid, KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT, &a))
        return 0;
    for (uint32_t i = 0; i < a.queue_snapshot.num_queues && i < MAX_QUEUES; i++) {
        uint64_t w, r;

        if (peek(q[i].write_pointer_address, &w, 8) == 0 &&
            peek(q[i].read_pointer_address, &r, 8) == 0 && w > r)
            return ((uint64_t)q[i].queue_id << 40) + r + 1;
    }
    return 0;
}

static int code_objects(uint64_t r_debug)
{
    uint32_t version;
    uint64_t node, lm[5];
    int n = 0;

    if (peek(r_debug, &version, 4) || peek(r_debug + 8, &node, 8))
        return -1;
    printf("kfd_debugger: r_debug version %u\n", version);
    for (; node && n < 4096; n++) {
        char uri[4096];
        size_t got = 0;

        if (peek(node, lm, sizeof(lm)))
            return -1;
        while (got < sizeof(uri) - 1 && peek(lm[1] + got, uri + got, 1) == 0 && uri[got])
            got++;
        uri[got] = '\0';
        printf("kfd_debugger: code object %s\n", uri);
        node = lm[3];
    }
    return n;
}

int main(int argc, char **argv)
{
    struct kfd_ioctl_get_version_args version;
    struct kfd_ioctl_dbg_trap_args a;
    struct kfd_runtime_info ri;
    struct kfd_dbg_device_info_entry dev[MAX_DEVICES];
    struct kfd_queue_snapshot_entry q[MAX_QUEUES];
    uint32_t ids[MAX_QUEUES], nq, suspended = 0;
    char path[64];
    int pid, efd, r, status, pfd[2];
    pid_t other;

    if (argc != 2 || (pid = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: kfd_debugger PID\n");
        return 2;
    }
    kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
    if (kfd < 0 || ioctl(kfd, AMDKFD_IOC_GET_VERSION, &version) < 0)
        return fail("open /dev/kfd and GET_VERSION");
    printf("kfd_debugger: version %u.%u\n", version.major_version, version.minor_version);
    if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0)
        return fail("PTRACE_SEIZE");
    // An event pipe, as AMD's library passes: amdkfd writes a byte to it per event.
    if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK) != 0)
        return fail("an event pipe");
    efd = pfd[1];

    // The target's memory, opened again on each try: the pid may still be the shell that
    // execs the program, and /proc/PID/mem stays with the image it was opened on.
    snprintf(path, sizeof(path), "/proc/%d/mem", pid);

    // ENABLE once the runtime has enabled itself (before, a ptrace parent's ENABLE makes the
    // target's KFD process and the runtime state says "disabled"), then wait for a dispatch.
    for (int tries = 0;; tries++) {
        memset(&a, 0, sizeof(a));
        memset(&ri, 0, sizeof(ri));
        a.enable.exception_mask = ~0ull;
        a.enable.rinfo_ptr = (uintptr_t)&ri;
        a.enable.rinfo_size = sizeof(ri);
        a.enable.dbg_fd = (uint32_t)efd;
        r = dbg_trap(pid, KFD_IOC_DBG_TRAP_ENABLE, &a);
        if (mem >= 0)
            close(mem);
        mem = open(path, O_RDONLY | O_CLOEXEC);
        /* a dispatch that stays pending (the runtime's own short ones come and go) */
        if (r == 0 && ri.runtime_state == 1 && mem >= 0) {
            uint64_t first = dispatch_pending(pid);

            usleep(300 * 1000);
            if (first && dispatch_pending(pid) == first)
                break;
        }
        if (r == 0) {
            memset(&a, 0, sizeof(a));
            dbg_trap(pid, KFD_IOC_DBG_TRAP_DISABLE, &a);
        }
        if (tries == WAIT_TRIES)
            break;
        usleep(100 * 1000);
    }
    printf("kfd_debugger: enable %d, runtime state %u, r_debug %s\n", r, ri.runtime_state,
           ri.r_debug ? "set" : "0");
    if (r)
        return fail("ENABLE");
    if (ri.r_debug && (r = code_objects(ri.r_debug)) >= 0)
        printf("kfd_debugger: %d code objects\n", r);

    // A second process that is not the ptrace parent: EPERM (the kernel's rule).
    other = fork();
    if (other == 0) {
        struct kfd_ioctl_dbg_trap_args b;

        memset(&b, 0, sizeof(b));
        _exit(dbg_trap(pid, KFD_IOC_DBG_TRAP_SET_FLAGS, &b) == -EPERM ? 0 : 1);
    }
    waitpid(other, &status, 0);
    printf("kfd_debugger: not the ptrace parent: %s\n",
           WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "EPERM" : "not refused");
    memset(&a, 0, sizeof(a));
    printf("kfd_debugger: a pid without KFD: %s\n",
           dbg_trap(0x3fffffff, KFD_IOC_DBG_TRAP_DISABLE, &a) == -ESRCH ? "ESRCH" : "other");

    memset(&a, 0, sizeof(a));
    a.device_snapshot.snapshot_buf_ptr = (uintptr_t)dev;
    a.device_snapshot.num_devices = MAX_DEVICES;
    a.device_snapshot.entry_size = sizeof(dev[0]);
    if ((r = dbg_trap(pid, KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT, &a)) != 0) {
        printf("kfd_debugger: GET_DEVICE_SNAPSHOT %d\n", r);
        return fail("GET_DEVICE_SNAPSHOT");
    }
    for (uint32_t i = 0; i < a.device_snapshot.num_devices && i < MAX_DEVICES; i++)
        printf("kfd_debugger: device gfx_target_version %u, %u XCC, %u SIMDs\n",
               dev[i].gfx_target_version, dev[i].num_xcc, dev[i].simd_count);

    memset(&a, 0, sizeof(a));
    a.queue_snapshot.snapshot_buf_ptr = (uintptr_t)q;
    a.queue_snapshot.num_queues = MAX_QUEUES;
    a.queue_snapshot.entry_size = sizeof(q[0]);
    if (dbg_trap(pid, KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT, &a))
        return fail("GET_QUEUE_SNAPSHOT");
    nq = a.queue_snapshot.num_queues < MAX_QUEUES ? a.queue_snapshot.num_queues : MAX_QUEUES;
    printf("kfd_debugger: %u queues\n", nq);
    for (uint32_t i = 0; i < nq; i++) {
        uint64_t base, amdq = q[i].write_pointer_address - 56;
        uint32_t size;
        int ok = q[i].read_pointer_address == amdq + 128 && peek(amdq + 8, &base, 8) == 0 &&
                 peek(amdq + 24, &size, 4) == 0 && base == q[i].ring_base_address &&
                 (uint64_t)size * 64 == q[i].ring_size;

        printf("kfd_debugger: queue %u type %u, ring %u bytes, save area %u bytes, amd_queue_t %s\n",
               q[i].queue_id, q[i].queue_type, q[i].ring_size, q[i].ctx_save_restore_area_size,
               ok ? "matches" : "DIFFERS");
        ids[i] = q[i].queue_id;
    }

    memset(&a, 0, sizeof(a));
    a.suspend_queues.queue_array_ptr = (uintptr_t)ids;
    a.suspend_queues.num_queues = nq;
    r = dbg_trap(pid, KFD_IOC_DBG_TRAP_SUSPEND_QUEUES, &a);
    for (uint32_t i = 0; r >= 0 && i < nq; i++)
        suspended += !(ids[i] & (KFD_DBG_QUEUE_ERROR_MASK | KFD_DBG_QUEUE_INVALID_MASK));
    printf("kfd_debugger: suspend %d, %u queues suspended\n", r, suspended);
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t h[4]; // control_stack_offset, control_stack_size, wave_state_offset, _size

        ids[i] &= ~(KFD_DBG_QUEUE_ERROR_MASK | KFD_DBG_QUEUE_INVALID_MASK);
        if (peek(q[i].ctx_save_restore_address, h, sizeof(h)))
            return fail("read a save area header");
        printf("kfd_debugger: queue %u saved: control stack %u bytes, waves %u bytes\n",
               q[i].queue_id, h[1], h[3]);
    }
    memset(&a, 0, sizeof(a));
    a.resume_queues.queue_array_ptr = (uintptr_t)ids;
    a.resume_queues.num_queues = nq;
    r = dbg_trap(pid, KFD_IOC_DBG_TRAP_RESUME_QUEUES, &a);
    printf("kfd_debugger: resume %d\n", r);
    memset(&a, 0, sizeof(a));
    r = dbg_trap(pid, KFD_IOC_DBG_TRAP_DISABLE, &a);
    printf("kfd_debugger: disable %d\n", r);
    return r ? fail("DISABLE") : 0;
}
