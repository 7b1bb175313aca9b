/* SPDX-License-Identifier: MIT */
/*
 * `gpucore run`: the tree supervisor (capture.h, GC_CAPTURE_RUN).
 *
 * The command is forked with the seccomp filter of tree_filter.h installed before exec and is
 * seized with PTRACE_O_TRACEFORK | TRACEVFORK | TRACECLONE | TRACEEXEC | TRACESECCOMP |
 * TRACESYSGOOD, so every descendant is auto-attached and the tree costs gpucore only its
 * process events (fork, clone, exec, exit, signals), never a stop per system call. One loop
 * collects every status of the tree (waitpid(-1, __WALL): gpucore run has no other children
 * while it runs the loop) and sleeps in ppoll on the event fds of the armed processes, woken by
 * SIGCHLD or by a stop signal to gpucore (both blocked outside ppoll, so none is missed):
 *
 *   fork/vfork/clone event, a new task's first stop -> recorded, resumed
 *   exec event        -> an armed process lost its runtime with its image: disarmed
 *   signal-delivery stop -> resumed with the signal, unchanged
 *   group-stop (PTRACE_EVENT_STOP with a stop signal) -> PTRACE_LISTEN: stays stopped for job
 *                        control until SIGCONT, whose trap resumes it
 *   seccomp stop, runtime-enable ioctl -> PTRACE_SYSCALL to its exit stop; there, the thread
 *                        held, the process is armed (driver session, ENABLE with the error
 *                        exceptions), then resumed
 *   seccomp stop, ptrace(TRACEME | ATTACH | SEIZE) of a tree member -> gpucore lets go of the
 *                        target first, so the debugger's call succeeds as without gpucore
 *   an armed process's event fd -> capture that process (the others run on; only statuses they
 *                        report meanwhile wait), then hand the exception to its runtime and arm
 *                        it again, so a further exception is recorded, not captured
 *
 * The command's end (or a stop signal to gpucore, or a failure of the loop) ends it: every
 * armed process is disarmed and every task still traced is let go of (PTRACE_DETACH with its
 * pending signal; a group-stop stays a stop).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture_internal.h"
#include "gc_util.h"
#include "tracee.h"
#include "tree_filter.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif
#ifndef PTRACE_EVENT_SECCOMP
#define PTRACE_EVENT_SECCOMP 7
#endif
#ifndef PTRACE_O_TRACESECCOMP
#define PTRACE_O_TRACESECCOMP 0x80
#endif

#define TREE_OPTS                                                                                  \
    ((long)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |                       \
            PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD))
#define TREE_DETACH_TIMEOUT_MS 10000 /* per task let go of: how long its stop may take */
#define TREE_RETRY_MS 30000          /* without the filter: how long the command's driver may
                                        take to appear (as the single-process run did) */
#define TREE_RETRY_SLICE_MS 50
#define TREE_ARM_TRIES 3             /* a driver thread still being born answers late */
/* After a capture, the process is armed again this much later, once what its runtime does with
   the exception it was handed (abort, exit) had time to happen: the simulated driver lives in
   the process, and a session opened while its thread waits in a signal stop for gpucore would
   not be answered. */
#define TREE_REARM_DELAY_MS 100
#define TREE_REARM_TIMEOUT_MS 250    /* ...and then the session gives up that soon */

/* One traced task (thread). */
struct task {
    pid_t tid;
    uint8_t held;     /* in a stop gpucore keeps (awaiting arming) */
    uint8_t in_rt;    /* let run to the exit of its runtime-enable ioctl */
};

/* One armed GPU process. */
struct gproc {
    struct gc_capture_armed a; /* a.k NULL: disarmed (captured, to be armed again at rearm_ms) */
    int captured;
    uint64_t rearm_ms;         /* captured: when to arm again (0 = not to) */
};

struct tree {
    const struct gc_capture_opts *o;
    struct gc_capture_result *res;
    gpucore_diag_t *diag;
    pid_t cmd;
    int cmd_exited, cmd_status;

    struct task *tasks;
    uint32_t ntasks, ctasks;
    struct gproc *procs;
    uint32_t nprocs, cprocs;
    pid_t *pending; /* tids held at their runtime-enable's exit, to arm */
    uint32_t npending, cpending;

    int enable_failed; /* the last arm() failed at ENABLE */
    int no_driver;     /* no GPU driver here: nothing is armed, the tree is only followed */
    int signalled;     /* a stop signal was passed on: nothing is armed any more */
    uint64_t kill_at_ms;   /* signalled, the command ended: when the rest is killed (0 = not
                              yet set) */
    uint64_t give_up_ms;   /* ...and when the loop stops waiting for the killed ones */
    int retry_cmd;  /* no filter: arm the command by polling for its driver */
    uint64_t retry_until_ms;
};

/* ---- small helpers -------------------------------------------------------------------------- */

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int interrupted(const struct tree *tr)
{
    return tr->o->interrupted && *tr->o->interrupted;
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* "Key:" of /proc/PID/status as a number, or -1. */
static long proc_status_field(pid_t pid, const char *key)
{
    char path[64], line[256];
    size_t klen = strlen(key);
    long v = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtol(line + klen + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static pid_t tgid_of(pid_t tid)
{
    long v = proc_status_field(tid, "Tgid");

    return v > 0 ? (pid_t)v : tid;
}

static void comm_of(pid_t pid, char out[16])
{
    char path[64];
    ssize_t n = -1;
    int fd;

    out[0] = '\0';
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, out, 15);
        close(fd);
    }
    if (n <= 0)
        n = 0;
    out[n] = '\0';
    if (n > 0 && out[n - 1] == '\n')
        out[n - 1] = '\0';
}

static void tell(struct tree *tr, struct gc_capture_tree_event *ev)
{
    if (ev->pid > 0 && !ev->comm[0])
        comm_of(ev->pid, ev->comm);
    ev->is_command = ev->pid == tr->cmd;
    if (tr->o->tree_event)
        tr->o->tree_event(tr->o->tree_event_user, ev);
}

/* ---- the task and process tables ------------------------------------------------------------ */

static struct task *find_task(struct tree *tr, pid_t tid)
{
    for (uint32_t i = 0; i < tr->ntasks; i++)
        if (tr->tasks[i].tid == tid)
            return &tr->tasks[i];
    return NULL;
}

static struct task *add_task(struct tree *tr, pid_t tid)
{
    struct task *t = find_task(tr, tid);

    if (t)
        return t;
    t = gc_array_grow(tr->tasks, &tr->ctasks, tr->ntasks, sizeof(*t), 64);
    if (!t)
        return NULL;
    tr->tasks = t;
    t = &tr->tasks[tr->ntasks++];
    memset(t, 0, sizeof(*t));
    t->tid = tid;
    return t;
}

static void drop_task(struct tree *tr, pid_t tid)
{
    for (uint32_t i = 0; i < tr->ntasks; i++)
        if (tr->tasks[i].tid == tid) {
            tr->tasks[i] = tr->tasks[--tr->ntasks];
            return;
        }
}

static struct gproc *find_proc(struct tree *tr, pid_t pid)
{
    for (uint32_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].a.pid == pid)
            return &tr->procs[i];
    return NULL;
}

static struct gproc *add_proc(struct tree *tr)
{
    struct gproc *n = gc_array_grow(tr->procs, &tr->cprocs, tr->nprocs, sizeof(*n), 8);

    if (!n)
        return NULL;
    tr->procs = n;
    memset(&tr->procs[tr->nprocs], 0, sizeof(tr->procs[0]));
    return &tr->procs[tr->nprocs++];
}

/* Forget a process: @p alive, disarm it (its runtime gets what was held); else only close. */
static void drop_proc(struct tree *tr, pid_t pid, int alive)
{
    for (uint32_t i = 0; i < tr->nprocs; i++) {
        struct gproc *p = &tr->procs[i];

        if (p->a.pid != pid)
            continue;
        if (alive) {
            gc_capture_disarm(&p->a);
        } else if (p->a.k) {
            gc_kfd_close(p->a.k);
        }
        tr->procs[i] = tr->procs[--tr->nprocs];
        return;
    }
}

/* ---- letting go ------------------------------------------------------------------------------ */

static int is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_exit_status(struct tree *tr, pid_t w, int status);

/*
 * Let go of one traced task: stop it (PTRACE_INTERRUPT) unless held, wait for that stop (any
 * other status of it on the way is handled: a signal is passed on with the detach, an exit
 * ends it), then PTRACE_DETACH. New tasks it makes meanwhile are recorded (let go of by the
 * caller's sweep). 0, or -1 if it could not be stopped in time (left traced).
 */
static int let_go_task(struct tree *tr, pid_t tid)
{
    struct task *t = find_task(tr, tid);
    uint64_t until = now_ms() + TREE_DETACH_TIMEOUT_MS;
    int status;

    if (t && t->held) {
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        drop_task(tr, tid);
        return 0;
    }
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
        /* ESRCH: gone, or not ours (its status was collected elsewhere). */
        if (errno == ESRCH) {
            pid_t w = waitpid(tid, &status, __WALL | WNOHANG);

            if (w == tid && (WIFEXITED(status) || WIFSIGNALED(status)))
                on_exit_status(tr, w, status);
            else if (w == tid && WIFSTOPPED(status))
                ptrace(PTRACE_DETACH, tid, NULL, NULL);
        }
        drop_task(tr, tid);
        return 0;
    }
    for (;;) {
        pid_t w = waitpid(tid, &status, __WALL | WNOHANG);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            drop_task(tr, tid);
            return 0;
        }
        if (w == 0) {
            if (now_ms() >= until)
                return -1;
            nap_ms(1);
            continue;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            on_exit_status(tr, w, status);
            return 0;
        }
        if (WIFSTOPPED(status)) {
            int event = (status >> 16) & 0xff, sig = WSTOPSIG(status);

            if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
                event == PTRACE_EVENT_CLONE) {
                unsigned long msg = 0;

                if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && msg > 0 &&
                    msg <= INT32_MAX)
                    (void)add_task(tr, (pid_t)msg);
                /* The interrupt is still pending: its stop follows. */
                ptrace(PTRACE_CONT, tid, NULL, NULL);
                continue;
            }
            if (event == 0 && sig != (SIGTRAP | 0x80)) {
                /* A signal on its way: it goes with the detach; the interrupt's own trap is
                 * dropped by the kernel at detach. */
                ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig);
            } else {
                ptrace(PTRACE_DETACH, tid, NULL, NULL);
            }
            drop_task(tr, tid);
            return 0;
        }
    }
}

/* Let go of every traced thread of process @p pid. */
static void let_go_process(struct tree *tr, pid_t pid)
{
    char path[64];
    DIR *d;
    struct dirent *de;
    int again = 1;

    drop_proc(tr, pid, 1);
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    /* Threads created while the others are being let go of: until a pass finds none. */
    for (int pass = 0; again && pass < 8; pass++) {
        again = 0;
        d = opendir(path);
        if (!d)
            break;
        while ((de = readdir(d)) != NULL) {
            pid_t tid;

            if (!gc_tracee_task_entry_tid(de->d_name, &tid) || !find_task(tr, tid))
                continue;
            (void)let_go_task(tr, tid);
            again = 1;
        }
        closedir(d);
    }
    /* A leader that exited (zombie) while its threads ran is not listed any more. */
    if (find_task(tr, pid))
        (void)let_go_task(tr, pid);
}

/* Disarm everything and let go of every task. @return the number of processes let go of that
 * are not the command. */
static uint32_t let_go_all(struct tree *tr)
{
    uint32_t n = 0;

    while (tr->nprocs)
        drop_proc(tr, tr->procs[0].a.pid, 1);
    /* Letting go of a task can record new ones (it forked meanwhile): bounded all the same. */
    for (uint32_t guard = 0; tr->ntasks && guard < 1000000u; guard++) {
        pid_t tid = tr->tasks[tr->ntasks - 1].tid;

        if (tid != tr->cmd && tgid_of(tid) == tid)
            n++;
        if (let_go_task(tr, tid) < 0)
            drop_task(tr, tid); /* could not be stopped: the kernel lets go when gpucore exits */
    }
    return n;
}

/* ---- statuses ------------------------------------------------------------------------------ */

static void on_exit_status(struct tree *tr, pid_t w, int status)
{
    drop_task(tr, w);
    if (find_proc(tr, w))
        drop_proc(tr, w, 0);
    if (w == tr->cmd) {
        tr->cmd_exited = 1;
        tr->cmd_status = status;
    }
}

/* seccomp stop of @p tid for a ptrace call: a debugger in the tree. Let go of its target. */
static void on_ptrace_call(struct tree *tr, pid_t tid)
{
#if defined(__x86_64__)
    struct user_regs_struct regs;
    struct gc_capture_tree_event ev;
    pid_t target;

    if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) < 0)
        return;
    memset(&ev, 0, sizeof(ev));
    ev.kind = GC_CAPTURE_TREE_DEBUGGED;
    if ((long)regs.rdi == PTRACE_TRACEME) {
        target = tgid_of(tid);
        ev.other = (pid_t)proc_status_field(tid, "PPid");
    } else {
        target = (pid_t)regs.rsi;
        if (target <= 0 || !find_task(tr, target))
            return; /* not one of ours: nothing to give up */
        target = tgid_of(target);
        ev.other = tgid_of(tid);
    }
    ev.pid = target;
    comm_of(target, ev.comm);
    if (ev.other > 0)
        comm_of(ev.other, ev.other_comm);
    tell(tr, &ev);
    let_go_process(tr, target);
#else
    (void)tr;
    (void)tid;
#endif
}

/* Handle one status from the tree. 0, or -ENOMEM. */
static int on_status(struct tree *tr, pid_t w, int status)
{
    struct task *t;
    int event, sig;
    unsigned long msg = 0;

    if (WIFEXITED(status) || WIFSIGNALED(status)) {
        on_exit_status(tr, w, status);
        return 0;
    }
    if (!WIFSTOPPED(status))
        return 0;
    t = add_task(tr, w); /* a new task's first stop may come before its creator's event */
    if (!t)
        return -ENOMEM;
    event = (status >> 16) & 0xff;
    sig = WSTOPSIG(status);
    switch (event) {
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
    case PTRACE_EVENT_CLONE:
        if (ptrace(PTRACE_GETEVENTMSG, w, NULL, &msg) == 0 && msg > 0 && msg <= INT32_MAX &&
            !add_task(tr, (pid_t)msg))
            return -ENOMEM;
        break;
    case PTRACE_EVENT_EXEC:
        /* The thread that exec'ed took the leader's id; the former id is gone. */
        if (ptrace(PTRACE_GETEVENTMSG, w, NULL, &msg) == 0 && (pid_t)msg != w)
            drop_task(tr, (pid_t)msg);
        if (find_proc(tr, w))
            drop_proc(tr, w, 0); /* its runtime went with its image */
        break;
    case PTRACE_EVENT_SECCOMP:
        if (ptrace(PTRACE_GETEVENTMSG, w, NULL, &msg) != 0)
            break;
        if (msg == GC_TREE_FILTER_RUNTIME) {
            t->in_rt = 1;
            if (ptrace(PTRACE_SYSCALL, w, NULL, NULL) < 0)
                t->in_rt = 0;
            return 0;
        }
        if (msg == GC_TREE_FILTER_PTRACE) {
            t->held = 1; /* in its seccomp stop: let go of as it is if it is the target */
            on_ptrace_call(tr, w);
            t = find_task(tr, w);
            if (!t)
                return 0; /* the caller itself was let go of (TRACEME) */
            t->held = 0;
        }
        break;
    case PTRACE_EVENT_STOP:
        if (is_stop_signal(sig)) {
            /* Group-stop: stays stopped for job control; SIGCONT's trap comes back here. */
            ptrace(PTRACE_LISTEN, w, NULL, NULL);
            return 0;
        }
        break;
    case 0:
        if (sig == (SIGTRAP | 0x80)) {
            if (t->in_rt) {
                /* The runtime-enable ioctl has returned: hold the thread, arm the process. */
                pid_t *n;

                t->in_rt = 0;
                if (tr->npending == tr->cpending) {
                    uint32_t cap = tr->cpending ? tr->cpending * 2 : 8;

                    n = gc_realloc_array(tr->pending, cap, sizeof(*n));
                    if (!n)
                        return -ENOMEM;
                    tr->pending = n;
                    tr->cpending = cap;
                }
                tr->pending[tr->npending++] = w;
                t->held = 1;
                return 0;
            }
            break;
        }
        /* Signal-delivery stop: the signal goes on unchanged (to its exit stop, if the thread
         * is in the runtime-enable call). */
        ptrace(t->in_rt ? PTRACE_SYSCALL : PTRACE_CONT, w, NULL, (void *)(long)sig);
        return 0;
    default:
        break;
    }
    t = find_task(tr, w); /* the table may have moved (a task added or dropped above) */
    ptrace(t && t->in_rt ? PTRACE_SYSCALL : PTRACE_CONT, w, NULL, NULL);
    return 0;
}

/* Collect every pending status of the tree. 0, -ENOMEM, or -errno of waitpid. */
static int drain(struct tree *tr)
{
    for (;;) {
        int status, rc;
        pid_t w = waitpid(-1, &status, __WALL | WNOHANG);

        if (w == 0)
            return 0;
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno == ECHILD ? 0 : -errno;
        }
        rc = on_status(tr, w, status);
        if (rc < 0)
            return rc;
    }
}

/* ---- arming and capturing --------------------------------------------------------------- */

static void failed(struct tree *tr, pid_t pid, const char *message,
                   const struct gc_capture_result *res)
{
    struct gc_capture_tree_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.kind = GC_CAPTURE_TREE_FAILED;
    ev.pid = pid;
    ev.message = message;
    ev.result = res;
    ev.ended = res && res->exited;
    tell(tr, &ev);
    if (!ev.ended)
        let_go_process(tr, pid);
}

/* Arm process @p pid. With @p quiet, a failure is not told (the caller retries). */
static gpucore_status_t arm(struct tree *tr, pid_t pid, int quiet, gpucore_diag_t *ret_diag)
{
    struct gproc *p;
    struct gc_capture_armed a;
    gpucore_diag_t dd = { 0 }, *dp = ret_diag ? ret_diag : &dd;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = GPUCORE_E_IO;

    if (find_proc(tr, pid))
        return GPUCORE_OK;
    for (int i = 0; i < TREE_ARM_TRIES; i++) {
        st = gc_capture_arm(tr->o, pid, &a, &d);
        if (st == GPUCORE_OK || a.enable_failed || (st != GPUCORE_E_IO && st != GPUCORE_E_NODEV) ||
            quiet)
            break;
        /* The driver's thread may still sit in its first stop: let it run, then again. */
        (void)drain(tr);
    }
    *dp = d;
    tr->enable_failed = st != GPUCORE_OK && a.enable_failed;
    if (st != GPUCORE_OK) {
        if (!quiet)
            failed(tr, pid, d.message[0] ? d.message : gpucore_strerror(st), NULL);
        return st;
    }
    p = add_proc(tr);
    if (!p) {
        gc_capture_disarm(&a);
        failed(tr, pid, "out of memory", NULL);
        return GPUCORE_E_NOMEM;
    }
    p->a = a;
    return GPUCORE_OK;
}

static void arm_pending(struct tree *tr)
{
    while (tr->npending) {
        pid_t tid = tr->pending[--tr->npending];
        struct task *t = find_task(tr, tid);

        if (!t || !t->held)
            continue;
        if (!tr->signalled && !tr->no_driver)
            (void)arm(tr, tgid_of(tid), 0, NULL);
        t = find_task(tr, tid); /* let go of, if arming failed */
        if (t) {
            t->held = 0;
            ptrace(PTRACE_CONT, tid, NULL, NULL);
        }
    }
}

/* Process @p pid's event fd is readable. Returns GPUCORE_E_INTR if a signal cut a capture. */
static gpucore_status_t on_gpu_event(struct tree *tr, pid_t pid, const sigset_t *run_mask,
                                     const sigset_t *loop_mask)
{
    struct gproc *p = find_proc(tr, pid);
    struct gc_capture_result *res;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    int captured;

    if (!p)
        return GPUCORE_OK;
    captured = p->captured;
    res = gc_calloc_array(1, sizeof(*res));
    if (!res || gc_tracee_adopt(pid, &t, &d) != GPUCORE_OK) {
        gc_free(res);
        return GPUCORE_OK; /* gone: its exit status comes next */
    }
    /* A capture is interruptible: the stop signals reach the caller's handler. */
    sigprocmask(SIG_SETMASK, run_mask, NULL);
    st = gc_capture_armed_event(tr->o, &p->a, t, !captured, res, &d);
    sigprocmask(SIG_SETMASK, loop_mask, NULL);
    gc_tracee_release(t);
    p = find_proc(tr, pid);
    if (st == GPUCORE_E_INTR) {
        /* The loop passes the signal on (or lets go of everything): say what became of this
           capture first. */
        struct gc_capture_tree_event ev;

        tr->res->failed++;
        memset(&ev, 0, sizeof(ev));
        ev.kind = GC_CAPTURE_TREE_ABANDONED;
        ev.pid = pid;
        ev.sig = tr->o->interrupted ? (int)*tr->o->interrupted : 0;
        tell(tr, &ev);
    } else if (captured) {
        if (res->exception_code) {
            struct gc_capture_tree_event ev;

            memset(&ev, 0, sizeof(ev));
            ev.kind = GC_CAPTURE_TREE_AGAIN;
            ev.pid = pid;
            ev.exception_code = res->exception_code;
            tell(tr, &ev);
        }
        if (p && !p->a.k && !p->rearm_ms)
            drop_proc(tr, pid, 0);
    } else if (st == GPUCORE_OK && res->written) {
        struct gc_capture_tree_event ev;

        tr->res->cores++;
        memset(&ev, 0, sizeof(ev));
        ev.kind = GC_CAPTURE_TREE_CORE;
        ev.pid = pid;
        ev.result = res;
        tell(tr, &ev);
        /* Armed again, so a further exception is seen (and only recorded). A process on its
         * way out (its runtime aborts on the exception) cannot be: then it is just dropped. */
        p = find_proc(tr, pid);
        if (p) {
            p->captured = 1;
            p->rearm_ms = now_ms() + TREE_REARM_DELAY_MS;
        }
    } else if (st != GPUCORE_OK) {
        if (p)
            drop_proc(tr, pid, 0);
        tr->res->failed++;
        failed(tr, pid, d.message[0] ? d.message : gpucore_strerror(st), res);
    }
    /* else: woken without an exception; still armed. */
    /* The capture collected the process's end: the tree's books are kept here. */
    if (res->exited)
        on_exit_status(tr, pid, res->exit_status);
    gc_free(res);
    return st == GPUCORE_E_INTR ? st : GPUCORE_OK;
}

/* ---- start ----------------------------------------------------------------------------------- */

/* Fork the command with the filter, seize it, let it exec. *ret_filter_err: 0 or the errno of
 * the filter's installation; *ret_nnp: no_new_privs was set. */
static gpucore_status_t spawn(struct tree *tr, int *ret_filter_err, gpucore_diag_t *diag)
{
    char *const *argv = tr->o->argv;
    int go[2], err_pipe[2], status, child_errno = 0, filt[2] = { 0, 0 };
    pid_t child;
    ssize_t n;

    if (pipe2(go, O_CLOEXEC) < 0)
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "pipe: %s", strerror(errno));
    if (pipe2(err_pipe, O_CLOEXEC) < 0) {
        int e = errno;

        close(go[0]);
        close(go[1]);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "pipe: %s", strerror(e));
    }
    child = fork();
    if (child < 0) {
        int e = errno;

        close(go[0]);
        close(go[1]);
        close(err_pipe[0]);
        close(err_pipe[1]);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot fork: %s", strerror(e));
    }
    if (child == 0) {
        char c;
        int rec[2], e;
        sigset_t none;

        close(go[1]);
        close(err_pipe[0]);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL); /* the loop's mask is not the command's */
        /* The filter first: its result goes up the pipe before the go (record kind 1). */
        rec[0] = 1;
        rec[1] = gc_tree_filter_install(&e);
        rec[0] = e ? 3 : 1; /* 3: installed with no_new_privs */
        while (write(err_pipe[1], rec, sizeof(rec)) < 0 && errno == EINTR)
            ;
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        close(go[0]);
        execvp(argv[0], argv);
        rec[0] = 2;
        rec[1] = errno;
        while (write(err_pipe[1], rec, sizeof(rec)) < 0 && errno == EINTR)
            ;
        _exit(127);
    }
    close(go[0]);
    close(err_pipe[1]);
    do
        n = read(err_pipe[0], filt, sizeof(filt));
    while (n < 0 && errno == EINTR);
    *ret_filter_err = n == (ssize_t)sizeof(filt) ? filt[1] : EIO;
    if (ptrace(PTRACE_SEIZE, child, NULL, (void *)TREE_OPTS) < 0 || !add_task(tr, child)) {
        int e = errno;

        kill(child, SIGKILL);
        close(go[1]);
        close(err_pipe[0]);
        while (waitpid(child, &status, __WALL) < 0 && errno == EINTR)
            ;
        if (e == EPERM)
            return gc_diag_set(diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                               "cannot trace %s: permission denied (Yama ptrace_scope, or "
                               "no CAP_SYS_PTRACE)", argv[0]);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot trace %s: %s", argv[0],
                           strerror(e));
    }
    close(go[1]); /* go */
    do
        n = read(err_pipe[0], filt, sizeof(filt));
    while (n < 0 && errno == EINTR);
    close(err_pipe[0]);
    if (n == (ssize_t)sizeof(filt) && filt[0] == 2) {
        child_errno = filt[1];
        for (;;) {
            pid_t w = waitpid(child, &status, __WALL);

            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status))
                break;
            ptrace(PTRACE_CONT, child, NULL, NULL);
        }
        drop_task(tr, child);
        return gc_diag_set(diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET, "cannot execute %s: %s",
                           argv[0], strerror(child_errno));
    }
    tr->cmd = child;
    return GPUCORE_OK;
}

/* ---- a stop signal to gpucore run ------------------------------------------------------- */

/* Call @p fn for each process (thread-group leader) of the tree gpucore follows. */
static uint32_t each_process(struct tree *tr, void (*fn)(struct tree *, pid_t, void *), void *arg)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < tr->ntasks; i++) {
        pid_t tid = tr->tasks[i].tid;

        if (tgid_of(tid) != tid)
            continue; /* a thread: its process is signalled through its leader */
        fn(tr, tid, arg);
        n++;
    }
    return n;
}

struct pass_on {
    int sig, by_kernel;
    uint32_t sent;
    int cmd_had_it; /* the command had it from the terminal already */
};

/*
 * Pass @p sig on to process @p pid, as timeout(1) passes its signal to its process group: the
 * signal, then SIGCONT (a process stopped by job control would keep it pending, and the tree
 * would never end). A SIGINT or SIGQUIT of the terminal (from the kernel) went to its whole
 * foreground process group: a process of gpucore's own group had it already.
 */
static void pass_on_one(struct tree *tr, pid_t pid, void *arg)
{
    struct pass_on *po = arg;

    if (po->by_kernel && (po->sig == SIGINT || po->sig == SIGQUIT) && getpgid(pid) == getpgrp()) {
        if (pid == tr->cmd)
            po->cmd_had_it = 1;
        return;
    }
    if (kill(pid, po->sig) == 0)
        po->sent++;
    (void)kill(pid, SIGCONT);
}

static void kill_one(struct tree *tr, pid_t pid, void *arg)
{
    (void)tr;
    (void)arg;
    (void)kill(pid, SIGKILL);
}

/*
 * The stop signal @p sig came to gpucore run: nothing is armed or captured any more (every
 * armed process is disarmed: its runtime gets what was held), and the signal goes to every
 * process of the tree. The tree stays traced, so the processes it starts meanwhile are known,
 * until the command has ended and the rest has ended too or was killed (loop()).
 */
static void on_stop_signal(struct tree *tr, int sig)
{
    struct pass_on po = { .sig = sig,
                          .by_kernel = tr->o->interrupted_by_kernel &&
                                       *tr->o->interrupted_by_kernel };
    struct gc_capture_tree_event ev;

    if (!tr->signalled) {
        tr->signalled = 1;
        tr->retry_cmd = 0;
        tr->res->signal = sig;
        while (tr->nprocs)
            drop_proc(tr, tr->procs[0].a.pid, 1);
    }
    (void)each_process(tr, pass_on_one, &po);
    /* The command let go of (a capture of it failed, it is being debugged) is still gpucore's
       child, and still the one whose end gpucore waits for. */
    if (!tr->cmd_exited && !find_task(tr, tr->cmd))
        pass_on_one(tr, tr->cmd, &po);
    memset(&ev, 0, sizeof(ev));
    ev.kind = GC_CAPTURE_TREE_SIGNALLED;
    ev.pid = tr->cmd;
    ev.sig = sig;
    ev.count = po.sent;
    ev.from_terminal = po.cmd_had_it;
    tell(tr, &ev);
}

/*
 * After a signal, once the command has ended: the rest of the tree had the signal too; what
 * still runs GC_CAPTURE_TREE_KILL_GRACE_MS later is killed, so that nothing outlives gpucore
 * run. 1 when the loop may end (nothing left, or the killed ones still not gone after
 * TREE_DETACH_TIMEOUT_MS: let go of), else 0 with *inout_wake_ms lowered to the next deadline.
 */
static int rest_of_tree_done(struct tree *tr, uint64_t *inout_wake_ms)
{
    uint64_t now = now_ms(), until;

    if (!tr->ntasks)
        return 1;
    if (!tr->kill_at_ms)
        tr->kill_at_ms = now + GC_CAPTURE_TREE_KILL_GRACE_MS;
    if (!tr->give_up_ms && now >= tr->kill_at_ms) {
        struct gc_capture_tree_event ev;

        memset(&ev, 0, sizeof(ev));
        ev.kind = GC_CAPTURE_TREE_KILLED;
        ev.pid = tr->cmd;
        ev.count = each_process(tr, kill_one, NULL);
        tell(tr, &ev);
        tr->give_up_ms = now + TREE_DETACH_TIMEOUT_MS;
    }
    if (tr->give_up_ms && now >= tr->give_up_ms)
        return 1;
    until = tr->give_up_ms ? tr->give_up_ms : tr->kill_at_ms;
    if (!*inout_wake_ms || until - now < *inout_wake_ms)
        *inout_wake_ms = until - now ? until - now : 1;
    return 0;
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void on_sigchld(int sig)
{
    (void)sig;
}

static gpucore_status_t loop(struct tree *tr, const sigset_t *run_mask, const sigset_t *loop_mask)
{
    struct pollfd *fds = NULL;
    pid_t *fd_pid = NULL;
    uint32_t cfds = 0;
    gpucore_status_t st = GPUCORE_OK;
    /* Arming again after a capture: a simulated driver that does not answer at once is in a
       process on its way out (its thread stopped for gpucore in the signal that ends it). */
    struct gc_capture_opts rearm_opts = *tr->o;

    rearm_opts.kfd.sim_timeout_ms = TREE_REARM_TIMEOUT_MS;

    for (;;) {
        struct timespec slice;
        uint64_t wake_ms = tr->retry_cmd ? TREE_RETRY_SLICE_MS : 0;
        uint32_t n = 0;
        int rc = drain(tr);

        if (rc < 0) {
            st = gc_diag_set(tr->diag, rc == -ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO,
                             GC_NO_OFFSET, "following the processes of %s: %s",
                             tr->o->argv[0], strerror(-rc));
            break;
        }
        arm_pending(tr);
        if (interrupted(tr) && tr->o->leave_tree) {
            /* The caller passes it on to the command alone; the rest is let go of. */
            st = gc_diag_set(tr->diag, GPUCORE_E_INTR, GC_NO_OFFSET,
                             "interrupted: the tree is let go of");
            break;
        }
        if (interrupted(tr)) {
            int sig = (int)*tr->o->interrupted;

            *tr->o->interrupted = 0; /* taken: a further one is passed on again */
            on_stop_signal(tr, sig);
            continue; /* (the statuses it caused first) */
        }
        if (tr->cmd_exited && (!tr->signalled || rest_of_tree_done(tr, &wake_ms)))
            break;
        if (tr->retry_cmd && !find_proc(tr, tr->cmd)) {
            gpucore_diag_t d = { 0 };
            gpucore_status_t ast = arm(tr, tr->cmd, 1, &d);

            if (ast == GPUCORE_OK) {
                tr->retry_cmd = 0;
            } else if ((ast != GPUCORE_E_NODEV && ast != GPUCORE_E_IO) || tr->enable_failed ||
                       now_ms() >= tr->retry_until_ms) {
                tr->retry_cmd = 0;
                failed(tr, tr->cmd, d.message[0] ? d.message : gpucore_strerror(ast), NULL);
            }
        }
        for (uint32_t i = 0; i < tr->nprocs; i++) {
            struct gproc *p = &tr->procs[i];
            struct gc_capture_armed again;
            gpucore_diag_t d = { 0 };

            if (!p->rearm_ms)
                continue;
            if (now_ms() < p->rearm_ms) {
                uint64_t left = p->rearm_ms - now_ms();

                if (!wake_ms || left < wake_ms)
                    wake_ms = left;
                continue;
            }
            p->rearm_ms = 0;
            if (gc_capture_arm(&rearm_opts, p->a.pid, &again, &d) == GPUCORE_OK) {
                p->a = again;
            } else {
                drop_proc(tr, p->a.pid, 0);
                i--;
            }
        }
        if (cfds < tr->nprocs) {
            struct pollfd *nf = gc_realloc_array(fds, tr->nprocs, sizeof(*nf));
            pid_t *np;

            if (!nf) {
                st = gc_diag_set(tr->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
                break;
            }
            fds = nf;
            np = gc_realloc_array(fd_pid, tr->nprocs, sizeof(*np));
            if (!np) {
                st = gc_diag_set(tr->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
                break;
            }
            fd_pid = np;
            cfds = tr->nprocs;
        }
        for (uint32_t i = 0; i < tr->nprocs; i++) {
            int fd = tr->procs[i].a.k ? gc_kfd_event_fd(tr->procs[i].a.k) : -1;

            if (fd < 0)
                continue;
            fds[n].fd = fd;
            fds[n].events = POLLIN;
            fds[n].revents = 0;
            fd_pid[n++] = tr->procs[i].a.pid;
        }
        /* SIGCHLD and the stop signals are blocked but here: none is lost between the look at
         * the statuses and the sleep. */
        slice.tv_sec = (time_t)(wake_ms / 1000);
        slice.tv_nsec = (long)(wake_ms % 1000) * 1000000L;
        rc = ppoll(fds, n, wake_ms ? &slice : NULL, run_mask);
        if (rc <= 0 || tr->signalled)
            continue;
        for (uint32_t i = 0; i < n; i++) {
            if (!(fds[i].revents & (POLLIN | POLLERR | POLLHUP)))
                continue;
            if (on_gpu_event(tr, fd_pid[i], run_mask, loop_mask) == GPUCORE_E_INTR)
                break;
        }
    }
    gc_free(fds);
    gc_free(fd_pid);
    return st;
}

gpucore_status_t gc_capture_run_tree(const struct gc_capture_opts *o, struct gc_capture_result *ret,
                                     gpucore_diag_t *diag)
{
    struct tree tr;
    struct sigaction sa, old_chld;
    sigset_t block, orig_mask, run_mask, loop_mask;
    int filter_err = 0;
    gpucore_status_t st;
    uint32_t left;
    static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };

    GC_FAIL_IF(!o->argv || !o->argv[0], diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no command to run");
    GC_FAIL_IF(o->interrupted && *o->interrupted, diag, GPUCORE_E_INTR, GC_NO_OFFSET,
               "interrupted: %s was not started", o->argv[0]);
    memset(&tr, 0, sizeof(tr));
    tr.o = o;
    tr.res = ret;
    tr.diag = diag;
    {
        /* Nothing found here keeps the command from running: it is said, once. */
        char notice[PATH_MAX * 2 + 160];

        GC_TRY(gc_capture_run_precheck(o, &tr.no_driver, notice, sizeof(notice), diag));
        if (notice[0]) {
            struct gc_capture_tree_event ev;

            memset(&ev, 0, sizeof(ev));
            ev.kind = GC_CAPTURE_TREE_NOTICE;
            ev.message = notice;
            tell(&tr, &ev);
        }
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
    sigemptyset(&block);
    for (size_t i = 0; i < GC_ARRAY_SIZE(stop_sigs); i++)
        sigaddset(&block, stop_sigs[i]);
    sigprocmask(SIG_BLOCK, &block, &orig_mask);
    sigprocmask(SIG_SETMASK, NULL, &loop_mask);
    run_mask = orig_mask;
    for (size_t i = 0; i < GC_ARRAY_SIZE(stop_sigs); i++)
        sigdelset(&run_mask, stop_sigs[i]);

    if (o->progress) {
        struct gc_capture_progress p = { .phase = "starting the command", .new_phase = 1 };

        o->progress(o->progress_user, &p);
    }
    st = spawn(&tr, &filter_err, diag);
    if (st != GPUCORE_OK)
        goto out;
    ret->pid = tr.cmd;
    if (filter_err) {
        struct gc_capture_tree_event ev;
        char msg[160];

        snprintf(msg, sizeof(msg), "cannot install the seccomp filter that finds GPU processes "
                 "(%s)", strerror(filter_err));
        memset(&ev, 0, sizeof(ev));
        ev.kind = GC_CAPTURE_TREE_NOFILTER;
        ev.pid = tr.cmd;
        ev.message = msg;
        tell(&tr, &ev);
        tr.retry_cmd = !tr.no_driver;
        tr.retry_until_ms = now_ms() + TREE_RETRY_MS;
    }
    if (o->progress) {
        struct gc_capture_progress p = { .phase = "following the command's processes",
                                         .new_phase = 1 };

        o->progress(o->progress_user, &p);
    }
    st = loop(&tr, &run_mask, &loop_mask);
    left = let_go_all(&tr);
    /* Statuses that came while letting go (the command's end among them). */
    (void)drain(&tr);
    if (tr.cmd_exited) {
        ret->exited = 1;
        ret->exit_status = tr.cmd_status;
        if (left) {
            struct gc_capture_tree_event ev;

            memset(&ev, 0, sizeof(ev));
            ev.kind = GC_CAPTURE_TREE_LEFT;
            ev.pid = tr.cmd;
            ev.count = left;
            tell(&tr, &ev);
        }
    } else {
        ret->running = 1;
    }
out:
    sigprocmask(SIG_SETMASK, &orig_mask, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    gc_free(tr.tasks);
    gc_free(tr.procs);
    gc_free(tr.pending);
    return st;
}
