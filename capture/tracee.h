/* SPDX-License-Identifier: MIT */
/*
 * The host side of a target under ptrace: every thread seized, stopped and resumed as a set,
 * and each stopped thread's registers and pending signal, as the kernel's core dumper records
 * them. x86-64 is the supported host (other hosts: GPUCORE_E_NOTSUP from the register calls).
 *
 * Threads are seized with PTRACE_SEIZE and PTRACE_O_TRACECLONE, so threads created later are
 * traced too; stopping uses PTRACE_INTERRUPT (no SIGSTOP is ever queued to the target), so the
 * target's own signals and job control are left alone. While the set is running, the owner
 * must call gc_tracee_poll() (or gc_tracee_stop_all()) so clone events and signal-delivery stops
 * are handled: signals are re-injected unchanged; the owner is told when the process exits.
 *
 * Waiting: statuses are collected per thread (waitpid(tid, __WALL | WNOHANG)), never for "any
 * child", so the caller's other children keep theirs. Blocking waits sleep in
 * waitid(P_ALL, WNOWAIT) (which consumes nothing) or, with a deadline, in short naps (1 ms
 * backing off to 16 ms); both return EINTR to the caller, see gc_tracee_poll().
 *
 * `gpucore run` does not use this module to follow its tree (run_tree.c does, with
 * fork/exec auto-attach and waitpid(-1)); it hands one process at a time to it for a capture
 * (gc_tracee_adopt, gc_tracee_release).
 *
 * Internal to capture. Not thread-safe: all calls from the one thread that seized (ptrace's
 * rule). No printing.
 */
#ifndef GC_CAPTURE_TRACEE_H
#define GC_CAPTURE_TRACEE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gpucore/status.h>

struct gc_tracee;

/* Register images of one stopped thread, in the kernel's note layouts (x86-64). */
#define GC_TRACEE_GREGS_SIZE 216u  /* struct user_regs_struct: NT_PRSTATUS pr_reg */
#define GC_TRACEE_FPREGS_SIZE 512u /* struct user_fpregs_struct: NT_FPREGSET (NT_PRFPREG) */
#define GC_TRACEE_XSTATE_MAX 16384u

struct gc_tracee_thread {
    pid_t tid;
    int stopped;       /* 1 while in a ptrace stop */
    int service;       /* 1: kept running (a driver thread); its registers are taken last */
    int regs_valid;    /* 1 after gc_tracee_fetch_regs() */
    uint8_t gregs[GC_TRACEE_GREGS_SIZE];
    uint8_t fpregs[GC_TRACEE_FPREGS_SIZE];
    uint8_t *xstate;   /* NT_X86_XSTATE bytes, NULL if the kernel gave none; owned */
    uint32_t xstate_size;
    int pending_signal; /* signal the thread was stopped with and will be resumed with, 0 = none */
    siginfo_t siginfo;  /* valid if pending_signal != 0 */
};

/* What gc_tracee_poll() saw. */
enum gc_tracee_event {
    GC_TRACEE_NOTHING = 0, /* nothing happened within the timeout */
    GC_TRACEE_HANDLED = 1, /* stops were handled (clone, signal re-injected); still running */
    GC_TRACEE_EXITED = 2,  /* the whole process exited or was killed; see exit_status */
};

/*
 * Seize every thread of @p pid (re-reading /proc/PID/task until no new thread appears) without
 * stopping them. The caller becomes the ptrace parent: what the KFD debug interface requires.
 * Threads created meanwhile are auto-attached through PTRACE_O_TRACECLONE; their stops (and the
 * creator's clone-event stop) are handled before this returns, so everything runs on.
 * Forked children of the target are not traced (no PTRACE_O_TRACEFORK); a process made by
 * clone() without CLONE_THREAD and with an exit signal other than SIGCHLD, which the kernel
 * reports as a clone, is detached at its first stop and never listed as a thread.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTFOUND no such process
 * @retval GPUCORE_E_PERM     not allowed (another tracer, Yama ptrace_scope, no CAP_SYS_PTRACE):
 *                            the message says which and how to allow it
 * @retval GPUCORE_E_NOMEM, GPUCORE_E_IO
 * On failure every thread already seized is detached again.
 */
gpucore_status_t gc_tracee_seize(pid_t pid, struct gc_tracee **ret, gpucore_diag_t *reterr_diag);

/*
 * Start @p argv (argv[0] looked up in PATH) as a traced child: forked, seized before exec,
 * then running. The child keeps the caller's stdio. @p envp NULL = the caller's environment.
 * The child waits on a pipe until it is seized (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC), then
 * execs; an exec failure comes back through a close-on-exec pipe with its errno ("cannot execute
 * PROG: No such file or directory") and the child is reaped. On success the call returns after
 * the exec event (the new program is loaded and running).
 * @retval GPUCORE_OK, GPUCORE_E_NOTFOUND (the program cannot be executed: the message names it
 *         and the errno), GPUCORE_E_IO (fork failed), GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_tracee_spawn(char *const argv[], char *const envp[], struct gc_tracee **ret,
                                 gpucore_diag_t *reterr_diag);

/*
 * Take over the threads of @p pid, which the caller already traces (`gpucore run` follows the
 * whole tree with fork/clone auto-attach and hands one process at a time to a capture): no
 * ptrace call is made, the threads listed in /proc/PID/task are recorded as running. A thread
 * whose first stop was not yet collected is handled by the next wait like any stop. Forks made
 * by the process while it is held here are let go of at their first stop (see seize).
 * @retval GPUCORE_OK, GPUCORE_E_NOTFOUND (no such process), GPUCORE_E_NOMEM, GPUCORE_E_INVAL.
 */
gpucore_status_t gc_tracee_adopt(pid_t pid, struct gc_tracee **ret, gpucore_diag_t *reterr_diag);

/* Free an adopted tracee without detaching: its threads stay traced by the caller, running (call
 * gc_tracee_resume_all first). Statuses the tracee collected are gone; gc_tracee_exit_status()
 * says whether the process exit was one of them. Accepts NULL. */
void gc_tracee_release(struct gc_tracee *t);

pid_t gc_tracee_pid(const struct gc_tracee *t);

/* A /proc/PID/task (or /proc) entry's name as a thread id: 1 with *ret set, or 0 for ".",
   ".." and anything that is not a positive decimal that fits a pid_t. */
int gc_tracee_task_entry_tid(const char *name, pid_t *ret);

/*
 * Handle ptrace events for up to @p timeout_ms (0 = only what is pending, -1 = until something
 * happens) while the threads run: auto-attached clones are resumed, exited threads dropped,
 * signal-delivery stops resumed with their signal, group-stops resumed with PTRACE_LISTEN
 * semantics. A pending SIGKILL / exit of the leader ends with GC_TRACEE_EXITED.
 * Returns early with GPUCORE_E_INTR if a signal arrives for the calling process (EINTR), so a
 * SIGINT to gpucore is noticed at once.
 * A thread stopped by stop_all stays stopped across poll calls (it produces no events).
 * @retval GPUCORE_OK (with *ret_event), GPUCORE_E_INTR, GPUCORE_E_INVAL (NULL), GPUCORE_E_IO,
 *         GPUCORE_E_NOMEM (a new thread could not be recorded).
 */
gpucore_status_t gc_tracee_poll(struct gc_tracee *t, int timeout_ms, enum gc_tracee_event *ret_event,
                                gpucore_diag_t *reterr_diag);

/* After GC_TRACEE_EXITED: the wait status of the process (as waitpid's), else -1. */
int gc_tracee_exit_status(const struct gc_tracee *t);

/*
 * Stop every thread except the @p nkeep service threads in @p keep (PTRACE_INTERRUPT, then wait
 * for each to stop, within @p timeout_ms in all). Threads that exit meanwhile are dropped.
 * Threads created meanwhile are stopped too. A thread the kernel refuses to interrupt (ESRCH:
 * exiting, or a leader that called pthread_exit and waits as a zombie for the rest) is left
 * as it is (stopped 0, no registers). Kept threads get service = 1 (until resume_all).
 * Stops of kept threads (signals, clones) are handled as gc_tracee_poll() does. A group-stop
 * seen while stopping is kept as it is and resumed with PTRACE_LISTEN (the process stays
 * stopped for job control).
 * Signal-delivery stops seen while stopping are kept as the thread's pending_signal (and given
 * back at resume). The thread that stopped with a signal first is remembered as the signalled
 * thread (gc_tracee_signalled_thread).
 * @retval GPUCORE_OK        all (but the kept) threads are stopped
 * @retval GPUCORE_E_NOTFOUND the process exited meanwhile
 * @retval GPUCORE_E_LIMIT   a thread did not stop within the timeout (the message names it)
 * @retval GPUCORE_E_IO
 */
gpucore_status_t gc_tracee_stop_all(struct gc_tracee *t, const pid_t *keep, uint32_t nkeep,
                                    int timeout_ms, gpucore_diag_t *reterr_diag);

/* Stop one more thread (a service thread, once it is no longer needed); the other running
 * threads keep running. Statuses as above; GPUCORE_E_NOTFOUND also for a tid that is not a
 * thread of the process. */
gpucore_status_t gc_tracee_stop_thread(struct gc_tracee *t, pid_t tid, int timeout_ms,
                                       gpucore_diag_t *reterr_diag);

/*
 * Resume one stopped thread (as resume_all does: with its pending signal, a group-stop with
 * PTRACE_LISTEN) and keep its registers as fetched (regs_valid stays): the caller's record of
 * the thread at the moment it was stopped, e.g. when its stack was read. The other threads
 * stay as they are.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL), GPUCORE_E_NOTFOUND (not a stopped thread of the
 *         process), GPUCORE_E_IO.
 */
gpucore_status_t gc_tracee_resume_thread(struct gc_tracee *t, pid_t tid,
                                         gpucore_diag_t *reterr_diag);

/*
 * Read the registers of every stopped thread (PTRACE_GETREGSET NT_PRSTATUS, NT_PRFPREG,
 * NT_X86_XSTATE) into its gc_tracee_thread. Threads still running are left with regs_valid 0.
 * gregs and fpregs are encoded field by field, little-endian, in the kernel's note layouts
 * (user_regs_struct: 27 64-bit words, rip at word 16, rsp at 19; user_fpregs_struct = FXSAVE);
 * xstate is the XSAVE area as the kernel gives it (its size is the kernel's answer, up to
 * GC_TRACEE_XSTATE_MAX). A thread killed meanwhile (ESRCH) is left without registers.
 * @retval GPUCORE_OK, GPUCORE_E_NOTSUP (host not x86-64), GPUCORE_E_IO.
 */
gpucore_status_t gc_tracee_fetch_regs(struct gc_tracee *t, gpucore_diag_t *reterr_diag);

/* gc_tracee_fetch_regs() for the stopped threads that have no registers yet (regs_valid 0),
 * leaving those that have them as they are. Statuses as gc_tracee_fetch_regs(). */
gpucore_status_t gc_tracee_fetch_missing_regs(struct gc_tracee *t, gpucore_diag_t *reterr_diag);

/* Threads, in /proc/PID/task order with the leader first. Valid until the next call that can
 * add or drop threads (poll, stop_all, resume_all). */
uint32_t gc_tracee_thread_count(const struct gc_tracee *t);
const struct gc_tracee_thread *gc_tracee_thread(const struct gc_tracee *t, uint32_t index);
/* The thread that was stopped by a signal first, or NULL. */
const struct gc_tracee_thread *gc_tracee_signalled_thread(const struct gc_tracee *t);

/* Resume every stopped thread (with its pending signal; a group-stop with PTRACE_LISTEN).
 * Clears regs_valid, pending_signal, service and the signalled thread.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL), GPUCORE_E_IO. */
gpucore_status_t gc_tracee_resume_all(struct gc_tracee *t, gpucore_diag_t *reterr_diag);

/*
 * Detach from every thread (stopped ones are detached with their pending signal; running ones
 * are interrupted first, waiting up to 10 s, as PTRACE_DETACH needs a stopped tracee) and
 * free. A thread in a group-stop stays stopped (job control); the kernel drops our pending
 * interrupt traps at detach. After this the
 * process runs on as if never traced. A spawned child is not waited for: use
 * gc_tracee_wait_exit() before detach if its exit status is wanted. Accepts NULL.
 */
void gc_tracee_detach(struct gc_tracee *t);

/*
 * gc_tracee_detach(), telling whether the process was seen to exit, before or while it was
 * being stopped for the detach: then its wait status was taken by the tracee (a spawned
 * child can no longer be waited for) and is returned; -1 if it runs on detached (or its
 * status could not be seen, or @p t is NULL).
 */
int gc_tracee_detach_status(struct gc_tracee *t);

/*
 * For a spawned child: resume everything, keep handling events until the process exits, and
 * return its wait status in *ret_status. Returns GPUCORE_E_INTR if interrupted by a signal to
 * the caller (call again to keep waiting). Frees nothing; detach afterwards. Works for a seized
 * process too (the status is the one ptrace reports to the tracer).
 * @retval GPUCORE_OK, GPUCORE_E_INTR, GPUCORE_E_INVAL (NULL), GPUCORE_E_IO, GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_tracee_wait_exit(struct gc_tracee *t, int *ret_status, gpucore_diag_t *reterr_diag);

#endif /* GC_CAPTURE_TRACEE_H */
