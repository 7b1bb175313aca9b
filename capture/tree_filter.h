/* SPDX-License-Identifier: MIT */
/*
 * The seccomp-BPF filter `gpucore run` installs in the command before it execs, so that the
 * few system calls that matter to a tree supervisor stop the calling thread for gpucore
 * (PTRACE_EVENT_SECCOMP) and nothing else does: no per-system-call tracing of the tree.
 *
 *   ioctl(fd, AMDKFD_IOC_RUNTIME_ENABLE, ...)           -> SECCOMP_RET_TRACE | GC_TREE_FILTER_RUNTIME
 *     (the ROCm runtime's handshake with KFD >= 1.13, made once at init: the process is a GPU
 *     process). ioctl's cmd is an unsigned int in the kernel: only the low 32 bits of args[1]
 *     are compared, so no value of the high half escapes the filter.
 *   ptrace(PTRACE_TRACEME | PTRACE_ATTACH | PTRACE_SEIZE, ...) -> SECCOMP_RET_TRACE | GC_TREE_FILTER_PTRACE
 *     (a debugger in the tree: gpucore lets go of the target first). request is a long: both
 *     halves are compared.
 *   everything else, and every call of another architecture -> SECCOMP_RET_ALLOW
 *
 * Filters are inherited across fork, clone and exec and cannot be removed. Consequence (the
 * kernel's rule for SECCOMP_RET_TRACE): a thread that makes one of these calls while it is not
 * traced by gpucore (after gpucore let go of it: a debugger took it, the command ended before
 * it, gpucore failed), or traced by a tracer that did not ask for PTRACE_O_TRACESECCOMP, gets
 * ENOSYS from it instead of running it.
 *
 * Internal to capture. No allocation, no printing: gc_tree_filter_install() runs in a forked
 * child before exec and calls only async-signal-safe functions.
 */
#ifndef GC_CAPTURE_TREE_FILTER_H
#define GC_CAPTURE_TREE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>

/* SECCOMP_RET_DATA of the two traced cases (PTRACE_GETEVENTMSG at the seccomp stop). */
#define GC_TREE_FILTER_RUNTIME 1u
#define GC_TREE_FILTER_PTRACE 2u

/* Instructions in the filter program: the size the caller passes to gc_tree_filter_build. */
#define GC_TREE_FILTER_LEN 16u

/*
 * Write the program into @p out (room for @p cap instructions).
 * @return the number of instructions (GC_TREE_FILTER_LEN), or 0 if @p cap is too small.
 */
size_t gc_tree_filter_build(struct sock_filter *out, size_t cap);

/*
 * Install the filter in the calling thread (and so its future children). Tries without
 * PR_SET_NO_NEW_PRIVS first (allowed with CAP_SYS_ADMIN); if the kernel refuses (EACCES), sets
 * no_new_privs and tries again: then setuid and file-capability programs exec'ed by the
 * process do not gain privileges. *ret_nnp says whether no_new_privs was set.
 * @return 0, or an errno value (EINVAL: no seccomp filter support in this kernel).
 */
int gc_tree_filter_install(int *ret_nnp);

#endif /* GC_CAPTURE_TREE_FILTER_H */
