/* SPDX-License-Identifier: MIT */
/* The seccomp filter of `gpucore run` (tree_filter.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "kfd_uapi.h"
#include "tree_filter.h"

#ifndef PTRACE_SEIZE
#define PTRACE_SEIZE 0x4206
#endif

#define ARG_LO(i) ((uint32_t)(offsetof(struct seccomp_data, args) + 8u * (i)))
#define ARG_HI(i) (ARG_LO(i) + 4u)

/* Instruction indexes of the three returns, which the jumps below aim at. */
enum { RET_ALLOW = 13, RET_RUNTIME = 14, RET_PTRACE = 15 };

/* One row per instruction; jt/jf are absolute targets (turned into the relative offsets BPF
   wants by the builder), so the table reads as the decision it encodes. */
static const struct {
    uint16_t code;
    uint32_t k;
    uint8_t jt, jf; /* absolute instruction index; 0 = next */
} prog[GC_TREE_FILTER_LEN] = {
    /* 0 */ { BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0 },
    /* 1 */ { BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 2, RET_ALLOW },
    /* 2 */ { BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0 },
    /* 3 */ { BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 4, 6 },
    /* 4 */ { BPF_LD | BPF_W | BPF_ABS, ARG_LO(1), 0, 0 },
    /* 5 */ { BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)AMDKFD_IOC_RUNTIME_ENABLE, RET_RUNTIME,
              RET_ALLOW },
    /* 6 */ { BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 7, RET_ALLOW },
    /* 7 */ { BPF_LD | BPF_W | BPF_ABS, ARG_HI(0), 0, 0 },
    /* 8 */ { BPF_JMP | BPF_JEQ | BPF_K, 0, 9, RET_ALLOW },
    /* 9 */ { BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0 },
    /* 10 */ { BPF_JMP | BPF_JEQ | BPF_K, PTRACE_TRACEME, RET_PTRACE, 11 },
    /* 11 */ { BPF_JMP | BPF_JEQ | BPF_K, PTRACE_ATTACH, RET_PTRACE, 12 },
    /* 12 */ { BPF_JMP | BPF_JEQ | BPF_K, PTRACE_SEIZE, RET_PTRACE, RET_ALLOW },
    /* 13 */ { BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0 },
    /* 14 */ { BPF_RET | BPF_K, SECCOMP_RET_TRACE | GC_TREE_FILTER_RUNTIME, 0, 0 },
    /* 15 */ { BPF_RET | BPF_K, SECCOMP_RET_TRACE | GC_TREE_FILTER_PTRACE, 0, 0 },
};

size_t gc_tree_filter_build(struct sock_filter *out, size_t cap)
{
    if (!out || cap < GC_TREE_FILTER_LEN)
        return 0;
    for (size_t i = 0; i < GC_TREE_FILTER_LEN; i++) {
        struct sock_filter f = { prog[i].code, 0, 0, prog[i].k };

        if (BPF_CLASS(prog[i].code) == BPF_JMP) {
            f.jt = (uint8_t)(prog[i].jt - i - 1);
            f.jf = (uint8_t)(prog[i].jf - i - 1);
        }
        out[i] = f;
    }
    return GC_TREE_FILTER_LEN;
}

int gc_tree_filter_install(int *ret_nnp)
{
    struct sock_filter f[GC_TREE_FILTER_LEN];
    struct sock_fprog fp = { (unsigned short)gc_tree_filter_build(f, GC_TREE_FILTER_LEN), f };

    *ret_nnp = 0;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) == 0)
        return 0;
    if (errno != EACCES)
        return errno;
    /* Without CAP_SYS_ADMIN the kernel wants no_new_privs first. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    *ret_nnp = 1;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) != 0)
        return errno;
    return 0;
}
