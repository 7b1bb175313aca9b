/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filter of `gpucore run` (capture/tree_filter.h): the program, run through a
 * small classic-BPF interpreter on crafted seccomp_data, decides as documented; and installed
 * for real in a forked child (which nobody traces), the two traced calls fail with ENOSYS
 * (the kernel's answer to SECCOMP_RET_TRACE without a tracer) while their neighbours run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "kfd_uapi.h"
#include "tree_filter.h"

/* Run @p prog on @p d: the value returned, or 0xdeadbeef for a program the kernel would
   reject (an instruction this interpreter does not know, a jump out of the program, a load
   out of seccomp_data). */
static uint32_t run(const struct sock_filter *prog, size_t n, const struct seccomp_data *d)
{
    uint32_t a = 0;
    const uint8_t *bytes = (const uint8_t *)d;

    for (size_t pc = 0; pc < n; pc++) {
        const struct sock_filter *f = &prog[pc];

        switch (f->code) {
        case BPF_LD | BPF_W | BPF_ABS:
            if (f->k + 4 > sizeof(*d) || f->k % 4)
                return 0xdeadbeef;
            memcpy(&a, bytes + f->k, 4);
            break;
        case BPF_JMP | BPF_JEQ | BPF_K:
            pc += a == f->k ? f->jt : f->jf;
            if (pc + 1 >= n)
                return 0xdeadbeef;
            break;
        case BPF_RET | BPF_K:
            return f->k;
        default:
            return 0xdeadbeef;
        }
    }
    return 0xdeadbeef; /* fell off the end */
}

static struct seccomp_data call(uint32_t arch, int nr, uint64_t a0, uint64_t a1)
{
    struct seccomp_data d;

    memset(&d, 0, sizeof(d));
    d.arch = arch;
    d.nr = nr;
    d.args[0] = a0;
    d.args[1] = a1;
    return d;
}

static void test_program_decides(void **state)
{
    struct sock_filter prog[GC_TREE_FILTER_LEN];
    const uint32_t trace_rt = SECCOMP_RET_TRACE | GC_TREE_FILTER_RUNTIME;
    const uint32_t trace_pt = SECCOMP_RET_TRACE | GC_TREE_FILTER_PTRACE;
    static const struct {
        uint32_t arch;
        int nr;
        uint64_t a0, a1;
        uint32_t want;
    } cases[] = {
        /* the handshake, with any fd and any high half of the cmd word (ioctl's cmd is an
           unsigned int: the kernel drops the high half) */
        { AUDIT_ARCH_X86_64, __NR_ioctl, 3, AMDKFD_IOC_RUNTIME_ENABLE, SECCOMP_RET_TRACE | 1 },
        { AUDIT_ARCH_X86_64, __NR_ioctl, 99, 0xffffffff00000000ull | AMDKFD_IOC_RUNTIME_ENABLE,
          SECCOMP_RET_TRACE | 1 },
        /* other ioctls, the neighbouring KFD ones included */
        { AUDIT_ARCH_X86_64, __NR_ioctl, 3, AMDKFD_IOC_RUNTIME_ENABLE + 1, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_X86_64, __NR_ioctl, 3, 0xC0104B24u, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_X86_64, __NR_ioctl, 3, TCGETS, SECCOMP_RET_ALLOW },
        /* a debugger */
        { AUDIT_ARCH_X86_64, __NR_ptrace, PTRACE_TRACEME, 0, SECCOMP_RET_TRACE | 2 },
        { AUDIT_ARCH_X86_64, __NR_ptrace, PTRACE_ATTACH, 1234, SECCOMP_RET_TRACE | 2 },
        { AUDIT_ARCH_X86_64, __NR_ptrace, 0x4206 /* SEIZE */, 1234, SECCOMP_RET_TRACE | 2 },
        /* a debugger's everyday requests: not stopped */
        { AUDIT_ARCH_X86_64, __NR_ptrace, PTRACE_CONT, 1234, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_X86_64, __NR_ptrace, PTRACE_PEEKDATA, 1234, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_X86_64, __NR_ptrace, PTRACE_DETACH, 1234, SECCOMP_RET_ALLOW },
        /* request is a long: a high half makes it another request */
        { AUDIT_ARCH_X86_64, __NR_ptrace, 0x100000000ull | PTRACE_ATTACH, 1, SECCOMP_RET_ALLOW },
        /* everything else */
        { AUDIT_ARCH_X86_64, __NR_getpid, 0, 0, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_X86_64, __NR_openat, 0, 0, SECCOMP_RET_ALLOW },
        /* another ABI's numbers mean other calls: never stopped */
        { AUDIT_ARCH_I386, __NR_ioctl, 3, AMDKFD_IOC_RUNTIME_ENABLE, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_I386, 54 /* i386 ioctl */, 3, AMDKFD_IOC_RUNTIME_ENABLE, SECCOMP_RET_ALLOW },
        { AUDIT_ARCH_AARCH64, __NR_ptrace, PTRACE_TRACEME, 0, SECCOMP_RET_ALLOW },
    };

    (void)state;
    (void)trace_rt;
    (void)trace_pt;
    assert_int_equal(gc_tree_filter_build(prog, GC_TREE_FILTER_LEN - 1), 0);
    assert_int_equal(gc_tree_filter_build(NULL, GC_TREE_FILTER_LEN), 0);
    assert_int_equal(gc_tree_filter_build(prog, GC_TREE_FILTER_LEN), GC_TREE_FILTER_LEN);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct seccomp_data d = call(cases[i].arch, cases[i].nr, cases[i].a0, cases[i].a1);
        uint32_t got = run(prog, GC_TREE_FILTER_LEN, &d);

        if (got != cases[i].want)
            fail_msg("case %zu (nr %d, a0 %#llx, a1 %#llx): got %#x, want %#x", i, cases[i].nr,
                     (unsigned long long)cases[i].a0, (unsigned long long)cases[i].a1, got,
                     cases[i].want);
    }
}

/* The child: 0 if every call answered as expected, else the number of the first that did not. */
static int child_checks(void)
{
    int nnp = -1, fd = dup(0);

    if (gc_tree_filter_install(&nnp) != 0)
        return 100;
    if (nnp != 0 && nnp != 1)
        return 101;
    /* Not traced: SECCOMP_RET_TRACE makes the call fail with ENOSYS, unexecuted. */
    errno = 0;
    if (syscall(__NR_ioctl, fd, (unsigned long)AMDKFD_IOC_RUNTIME_ENABLE, NULL) != -1 ||
        errno != ENOSYS)
        return 1;
    errno = 0;
    if (syscall(__NR_ptrace, PTRACE_TRACEME, 0, NULL, NULL) != -1 || errno != ENOSYS)
        return 2;
    /* Everything else runs: the next ioctl number is the kernel's to refuse (ENOTTY on a
       pipe or tty, EBADF without stdin), a PEEK of a non-child is ESRCH. */
    errno = 0;
    if (syscall(__NR_ioctl, fd, (unsigned long)AMDKFD_IOC_RUNTIME_ENABLE + 1, NULL) != -1 ||
        errno == ENOSYS)
        return 3;
    errno = 0;
    if (syscall(__NR_ptrace, PTRACE_PEEKDATA, 1, NULL, NULL) != -1 || errno != ESRCH)
        return 4;
    if (getpid() <= 0)
        return 5;
    return 0;
}

static void test_installed(void **state)
{
    pid_t pid;
    int status;

    (void)state;
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child_checks());
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 100)
        skip(); /* no seccomp filters in this kernel or container */
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_decides),
        cmocka_unit_test(test_installed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
