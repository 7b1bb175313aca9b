/* SPDX-License-Identifier: MIT */
/*
 * ptrace of a whole thread group: seize, stop as a set with PTRACE_INTERRUPT, registers,
 * resume, detach, and spawning a traced child.
 *
 * Waiting is done per thread (waitpid(tid, __WALL | WNOHANG)), never on "any child", so the
 * caller's other children keep their statuses. Blocking waits sleep in waitid(P_ALL, WNOWAIT)
 * (which consumes nothing) or in short nanosleeps, both of which return EINTR to the caller.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_le.h"
#include "gc_util.h"
#include "tracee.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

/* How a held thread was stopped: decides how it is resumed. */
enum stop_kind {
    STOP_NONE = 0,  /* running */
    STOP_TRAP,      /* interrupt, new-thread or event stop: resume with PTRACE_CONT 0 */
    STOP_SIGNAL,    /* signal-delivery stop: resume with the signal */
    STOP_GROUP,     /* group-stop (job control): resume with PTRACE_LISTEN */
};

struct thread {
    struct gc_tracee_thread pub; /* first: gc_tracee_thread() hands out &pub */
    enum stop_kind kind;
    int want_stop;               /* an interrupt was sent; its stop is awaited */
    int unstoppable;             /* PTRACE_INTERRUPT said ESRCH: exiting, or a zombie leader
                                    waiting for the rest of the group; never stopped */
    int foreign;                 /* auto-attached by a clone that made a new process, not a
                                    thread: detached at its first stop, never listed */
};

struct gc_tracee {
    pid_t pid;
    struct thread *th;
    uint32_t count, cap;
    int exited;
    int exit_status;
    pid_t signalled; /* tid of the first thread stopped with a signal, 0 = none */
};

/* ---- thread list --------------------------------------------------------------------------- */

int gc_tracee_task_entry_tid(const char *name, pid_t *ret)
{
    char *end;
    long tid;

    if (name[0] < '0' || name[0] > '9')
        return 0;
    errno = 0;
    tid = strtol(name, &end, 10);
    if (errno || *end || tid <= 0 || tid > INT32_MAX)
        return 0;
    *ret = (pid_t)tid;
    return 1;
}

static struct thread *find(struct gc_tracee *t, pid_t tid)
{
    for (uint32_t i = 0; i < t->count; i++)
        if (t->th[i].pub.tid == tid)
            return &t->th[i];
    return NULL;
}

static struct thread *add_thread(struct gc_tracee *t, pid_t tid)
{
    struct thread *th = find(t, tid);

    if (th)
        return th;
    th = gc_array_grow(t->th, &t->cap, t->count, sizeof(*th), 16);
    if (!th)
        return NULL;
    t->th = th;
    th = &t->th[t->count++];
    memset(th, 0, sizeof(*th));
    th->pub.tid = tid;
    return th;
}

static void drop_thread(struct gc_tracee *t, pid_t tid)
{
    for (uint32_t i = 0; i < t->count; i++) {
        if (t->th[i].pub.tid != tid)
            continue;
        gc_free(t->th[i].pub.xstate);
        memmove(&t->th[i], &t->th[i + 1], (t->count - i - 1) * sizeof(t->th[0]));
        t->count--;
        if (t->signalled == tid)
            t->signalled = 0;
        return;
    }
}

static int is_kept(pid_t tid, const pid_t *keep, uint32_t nkeep)
{
    for (uint32_t i = 0; i < nkeep; i++)
        if (keep[i] == tid)
            return 1;
    return 0;
}

/* ---- time ---------------------------------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep up to @p ms; -1 if a signal interrupted the sleep. */
static int nap(int64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

    if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
        return -1;
    return 0;
}

/* ---- one wait status ------------------------------------------------------------------------ */

static int is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Resume a thread the way its stop requires. 0 or -errno. */
static int resume_thread(struct thread *th)
{
    long rc;

    if (th->kind == STOP_GROUP)
        rc = ptrace(PTRACE_LISTEN, th->pub.tid, NULL, NULL);
    else
        rc = ptrace(PTRACE_CONT, th->pub.tid, NULL,
                    (void *)(uintptr_t)(th->kind == STOP_SIGNAL ? th->pub.pending_signal : 0));
    if (rc < 0)
        return -errno;
    th->kind = STOP_NONE;
    th->pub.stopped = 0;
    th->pub.regs_valid = 0;
    th->pub.pending_signal = 0;
    return 0;
}

/*
 * Record what waitpid said about @p tid. With @p hold, a stop is kept (the thread stays
 * stopped); otherwise the thread is resumed at once (signals re-injected). Returns 1 if the
 * thread group is gone (the leader exited), 0 otherwise, or -errno for a failed ptrace call.
 */
static int handle_status(struct gc_tracee *t, pid_t tid, int status, int hold)
{
    struct thread *th = find(t, tid);
    int sig, event;

    if (WIFEXITED(status) || WIFSIGNALED(status)) {
        drop_thread(t, tid);
        if (tid == t->pid) {
            t->exited = 1;
            t->exit_status = status;
            return 1;
        }
        return 0;
    }
    if (!WIFSTOPPED(status) || !th)
        return 0;
    if (th->foreign) {
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        drop_thread(t, tid);
        return 0;
    }
    sig = WSTOPSIG(status);
    event = (status >> 16) & 0xff;
    th->pub.stopped = 1;
    th->want_stop = 0;
    th->kind = STOP_TRAP;
    if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
        event == PTRACE_EVENT_VFORK) {
        unsigned long msg = 0;

        /* A new thread, auto-attached: its own first stop follows. Only clone events are
         * enabled (forks and vforks of the target are not traced); a clone() that made a new
         * process (exit signal not SIGCHLD, no CLONE_THREAD) is let go at its first stop. */
        if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && msg > 0 && msg <= INT32_MAX) {
            char task[64];
            struct thread *nt;

            snprintf(task, sizeof(task), "/proc/%d/task/%lu", (int)t->pid, msg);
            nt = add_thread(t, (pid_t)msg);
            if (!nt)
                return -ENOMEM;
            /* (nt may have moved the array: look th up again below) */
            nt->foreign = access(task, F_OK) != 0;
            th = find(t, tid);
        }
    } else if (event == PTRACE_EVENT_STOP) {
        /* Seized tracees report a group-stop (and any trap while the group is stopped) as
         * PTRACE_EVENT_STOP with the stop signal; an interrupt or new-thread stop carries
         * SIGTRAP (the kernel's do_jobctl_trap). */
        if (is_stop_signal(sig))
            th->kind = STOP_GROUP;
    } else if (event == 0 && sig != (SIGTRAP | 0x80)) {
        /* Signal-delivery stop: PTRACE_GETSIGINFO tells what was sent, by whom. */
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0) {
            th->kind = STOP_SIGNAL;
            th->pub.pending_signal = sig;
            th->pub.siginfo = si;
            if (hold && !t->signalled)
                t->signalled = tid;
        }
    }
    if (!hold) {
        int rc = resume_thread(th);

        if (rc < 0 && rc != -ESRCH)
            return rc;
    }
    return 0;
}

/*
 * Collect every pending status of the known threads (WNOHANG). Stops of threads for which
 * @p hold_fn says so are kept. *ret_n counts the statuses handled.
 * Returns 1 if the process is gone, 0, or -errno.
 */
static int drain(struct gc_tracee *t, const pid_t *keep, uint32_t nkeep, int hold_all,
                 uint32_t *ret_n)
{
    int again = 1;

    *ret_n = 0;
    while (again) {
        again = 0;
        for (uint32_t i = 0; i < t->count; i++) {
            pid_t tid = t->th[i].pub.tid;
            int status, rc;
            pid_t w = waitpid(tid, &status, __WALL | WNOHANG);

            if (w == 0)
                continue;
            if (w < 0) {
                if (errno == EINTR) {
                    again = 1;
                    continue;
                }
                /* ECHILD: not traced any more (gone without a status we could see). */
                if (errno == ECHILD) {
                    drop_thread(t, tid);
                    if (tid == t->pid) {
                        t->exited = 1;
                        return 1;
                    }
                    again = 1;
                    break;
                }
                return -errno;
            }
            (*ret_n)++;
            rc = handle_status(t, tid, status,
                               hold_all && !is_kept(tid, keep, nkeep));
            if (rc != 0)
                return rc;
            again = 1; /* the list may have changed */
            break;
        }
    }
    return 0;
}

/*
 * Block until some child of ours may have a status, for at most @p ms (-1 = no limit).
 * -1 if a signal interrupted (EINTR), else 0.
 */
static int wait_any(struct gc_tracee *t, int64_t ms, int64_t *inout_step)
{
    if (ms < 0) {
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL) < 0)
            return errno == EINTR ? -1 : (nap(5) < 0 ? -1 : 0);
        /* A status of a child that is not ours stays queued for its owner: do not spin. */
        if (!find(t, si.si_pid))
            return nap(5); /* (5 ms: the owner of that status reaps it eventually) */
        return 0;
    }
    /* With a deadline: look again after 1 ms, backing off to 16 ms while nothing happens. */
    if (ms > *inout_step)
        ms = *inout_step;
    if (*inout_step < 16)
        *inout_step *= 2;
    return nap(ms);
}

/* ---- seize -------------------------------------------------------------------------------- */

/* The value of "Key:" in /proc/PID/status, or -1. */
static long status_field(pid_t pid, const char *key)
{
    char path[64], line[256];
    size_t klen = strlen(key);
    long v = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            char *end;

            errno = 0;
            v = strtol(line + klen + 1, &end, 10);
            if (errno || end == line + klen + 1)
                v = -1;
            break;
        }
    }
    fclose(f);
    return v;
}

static gpucore_status_t explain_eperm(pid_t pid, gpucore_diag_t *diag)
{
    long tracer = status_field(pid, "TracerPid");
    int scope = -1;
    FILE *f;

    if (tracer > 0)
        return gc_diag_set(diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                           "cannot trace process %d: it is already traced by process %ld (a "
                           "debugger?); detach it first",
                           (int)pid, tracer);
    f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    if (scope >= 1)
        return gc_diag_set(diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                           "cannot trace process %d: Yama ptrace_scope is %d; run as root, "
                           "grant CAP_SYS_PTRACE, or set /proc/sys/kernel/yama/ptrace_scope to 0",
                           (int)pid, scope);
    return gc_diag_set(diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                       "cannot trace process %d: permission denied (another user's or a "
                       "privileged process); run as its user or with CAP_SYS_PTRACE",
                       (int)pid);
}

static gpucore_status_t seize_one(struct gc_tracee *t, pid_t tid, long opts, int *ret_new,
                                  gpucore_diag_t *diag)
{
    *ret_new = 0;
    if (find(t, tid))
        return GPUCORE_OK;
    if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)opts) < 0) {
        int err = errno;

        if (err == ESRCH && tid != t->pid)
            return GPUCORE_OK; /* exited meanwhile */
        if (err == EPERM && tid != t->pid && status_field(tid, "TracerPid") == getpid()) {
            /* Auto-attached already, through the clone option of a seized thread. */
        } else if (err == ESRCH) {
            return gc_diag_set(diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET, "no process %d",
                               (int)tid);
        } else if (err == EPERM || err == EACCES) {
            return explain_eperm(t->pid, diag);
        } else {
            return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "cannot seize thread %d of process %d: %s", (int)tid,
                               (int)t->pid, strerror(err));
        }
    }
    GC_FAIL_IF(!add_thread(t, tid), diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    *ret_new = 1;
    return GPUCORE_OK;
}

#define SEIZE_OPTS ((long)PTRACE_O_TRACECLONE)

static gpucore_status_t seize_all(struct gc_tracee *t, gpucore_diag_t *diag)
{
    char path[64];
    int found;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
    do {
        DIR *d = opendir(path);
        struct dirent *de;

        found = 0;
        if (!d) {
            int err = errno;

            if (err == ENOENT)
                return gc_diag_set(diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET, "no process %d",
                                   (int)t->pid);
            return gc_diag_set(diag, err == EACCES ? GPUCORE_E_PERM : GPUCORE_E_IO,
                               GC_NO_OFFSET, "cannot list %s: %s", path, strerror(err));
        }
        while ((de = readdir(d)) != NULL) {
            pid_t tid;
            int isnew;
            gpucore_status_t st;

            if (!gc_tracee_task_entry_tid(de->d_name, &tid))
                continue;
            st = seize_one(t, tid, SEIZE_OPTS, &isnew, diag);
            if (st != GPUCORE_OK) {
                closedir(d);
                return st;
            }
            found |= isnew;
        }
        closedir(d);
    } while (found); /* until a pass finds no new thread */
    return GPUCORE_OK;
}

static struct gc_tracee *tracee_new(pid_t pid)
{
    struct gc_tracee *t = gc_calloc_array(1, sizeof(*t));

    if (!t)
        return NULL;
    t->pid = pid;
    t->exit_status = -1;
    return t;
}

static void tracee_free(struct gc_tracee *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->count; i++)
        gc_free(t->th[i].pub.xstate);
    gc_free(t->th);
    gc_free(t);
}

gpucore_status_t gc_tracee_seize(pid_t pid, struct gc_tracee **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_tracee *t;
    gpucore_status_t st;

    GC_FAIL_IF(!ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no result pointer");
    GC_FAIL_IF(pid <= 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "invalid process id %d",
               (int)pid);
    t = tracee_new(pid);
    GC_FAIL_IF(!t, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    /* The leader first: it is the thread the rest of the set hangs on. */
    {
        int isnew;

        st = seize_one(t, pid, SEIZE_OPTS, &isnew, reterr_diag);
        if (st == GPUCORE_OK)
            st = seize_all(t, reterr_diag);
    }
    if (st == GPUCORE_OK) {
        /* A thread that cloned meanwhile sits in its clone-event stop, and the clone in its
         * first stop: let both run on. */
        uint32_t n;
        int rc = drain(t, NULL, 0, 0, &n);

        if (rc == 1)
            st = gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                             "process %d exited while it was being seized", (int)pid);
        else if (rc < 0)
            st = gc_diag_set(reterr_diag, rc == -ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO,
                             GC_NO_OFFSET, "seizing process %d: %s", (int)pid, strerror(-rc));
    }
    if (st != GPUCORE_OK) {
        gc_tracee_detach(t);
        return st;
    }
    *ret = t;
    return GPUCORE_OK;
}

/* ---- adopt --------------------------------------------------------------------------------- */

gpucore_status_t gc_tracee_adopt(pid_t pid, struct gc_tracee **ret, gpucore_diag_t *reterr_diag)
{
    char path[64];
    struct gc_tracee *t;
    struct dirent *de;
    DIR *d;

    GC_FAIL_IF(!ret || pid <= 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no result pointer or invalid process id");
    t = tracee_new(pid);
    GC_FAIL_IF(!t, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    d = opendir(path);
    if (!d) {
        tracee_free(t);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET, "no process %d",
                           (int)pid);
    }
    /* The leader first, as seize lists it. */
    if (!add_thread(t, pid)) {
        closedir(d);
        tracee_free(t);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    while ((de = readdir(d)) != NULL) {
        pid_t tid;

        if (!gc_tracee_task_entry_tid(de->d_name, &tid))
            continue;
        if (!add_thread(t, tid)) {
            closedir(d);
            tracee_free(t);
            return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        }
    }
    closedir(d);
    *ret = t;
    return GPUCORE_OK;
}

void gc_tracee_release(struct gc_tracee *t)
{
    tracee_free(t);
}

/* ---- spawn -------------------------------------------------------------------------------- */

/*
 * The child of spawn: wait until the parent has seized it (it closes its end of @p go), then
 * execute argv; a failed exec sends its errno through @p err and exits 127.
 */
_Noreturn static void spawned_child(const int go[2], const int err[2], char *const argv[],
                                    char *const envp[])
{
    char c;
    int e;

    close(go[1]);
    close(err[0]);
    while (read(go[0], &c, 1) < 0 && errno == EINTR)
        ;
    close(go[0]);
    if (envp)
        execvpe(argv[0], argv, envp);
    else
        execvp(argv[0], argv);
    e = errno;
    while (write(err[1], &e, sizeof(e)) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* Fork a child that waits to be seized (spawned_child). The parent keeps *ret_go (its close
 * lets the child go) and *ret_err (the child's exec errno, or EOF once it has executed). */
static gpucore_status_t fork_waiting(char *const argv[], char *const envp[], pid_t *ret_child,
                                     int *ret_go, int *ret_err, gpucore_diag_t *reterr_diag)
{
    int go[2], err[2];
    pid_t child;

    if (pipe2(go, O_CLOEXEC) < 0)
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "pipe: %s",
                           strerror(errno));
    if (pipe2(err, O_CLOEXEC) < 0) {
        int e = errno;

        close(go[0]);
        close(go[1]);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "pipe: %s", strerror(e));
    }
    child = fork();
    if (child < 0) {
        int e = errno;

        close(go[0]);
        close(go[1]);
        close(err[0]);
        close(err[1]);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot fork: %s",
                           strerror(e));
    }
    if (child == 0)
        spawned_child(go, err, argv, envp);
    close(go[0]);
    close(err[1]);
    *ret_child = child;
    *ret_go = go[1];
    *ret_err = err[0];
    return GPUCORE_OK;
}

/* Seize the waiting @p child (named @p name); on failure it is killed and reaped, and @p go
 * and @p err are closed. */
static gpucore_status_t seize_child(pid_t child, const char *name, int go, int err,
                                    struct gc_tracee **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_tracee *t = tracee_new(child);
    int status;

    if (!t || ptrace(PTRACE_SEIZE, child, NULL,
                     (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)) < 0) {
        int e = t ? errno : ENOMEM;

        kill(child, SIGKILL);
        close(go);
        close(err);
        while (waitpid(child, &status, __WALL) < 0 && errno == EINTR)
            ;
        tracee_free(t);
        if (e == ENOMEM)
            return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        if (e == EPERM)
            return explain_eperm(child, reterr_diag);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot trace %s: %s",
                           name, strerror(e));
    }
    if (!add_thread(t, child)) {
        close(go);
        close(err);
        kill(child, SIGKILL);
        gc_tracee_detach(t);
        while (waitpid(child, &status, __WALL) < 0 && errno == EINTR)
            ;
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    *ret = t;
    return GPUCORE_OK;
}

/* Let the seized @p child of @p t go (close @p go) and wait until it has executed (its exec
 * event stop, anything before re-injected). On failure @p t is freed. @p err is closed. */
static gpucore_status_t await_exec(struct gc_tracee *t, pid_t child, const char *name, int go,
                                   int err, gpucore_diag_t *reterr_diag)
{
    int child_errno = 0, status;
    ssize_t n;

    close(go); /* go */
    do
        n = read(err, &child_errno, sizeof(child_errno));
    while (n < 0 && errno == EINTR);
    close(err);
    if (n == (ssize_t)sizeof(child_errno)) {
        /* exec failed: the child exits 127; collect it. */
        for (;;) {
            pid_t w = waitpid(child, &status, __WALL);

            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status))
                break;
            ptrace(PTRACE_CONT, child, NULL, NULL);
        }
        tracee_free(t);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                           "cannot execute %s: %s", name, strerror(child_errno));
    }
    for (;;) {
        pid_t w = waitpid(child, &status, __WALL);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;

            tracee_free(t);
            return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "waiting for %s to start: %s", name, strerror(e));
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            tracee_free(t);
            return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                               "%s ended before it started", name);
        }
        if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_EXEC) {
            ptrace(PTRACE_CONT, child, NULL, NULL);
            return GPUCORE_OK;
        }
        if (handle_status(t, child, status, 0) == 1) {
            tracee_free(t);
            return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                               "%s ended before it started", name);
        }
    }
}

gpucore_status_t gc_tracee_spawn(char *const argv[], char *const envp[], struct gc_tracee **ret,
                                 gpucore_diag_t *reterr_diag)
{
    struct gc_tracee *t = NULL;
    pid_t child = -1;
    int go = -1, err = -1;

    GC_FAIL_IF(!ret || !argv || !argv[0] || !argv[0][0], reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "no program to start");
    GC_TRY(fork_waiting(argv, envp, &child, &go, &err, reterr_diag));
    GC_TRY(seize_child(child, argv[0], go, err, &t, reterr_diag));
    GC_TRY(await_exec(t, child, argv[0], go, err, reterr_diag));
    *ret = t;
    return GPUCORE_OK;
}

pid_t gc_tracee_pid(const struct gc_tracee *t)
{
    return t ? t->pid : -1;
}

int gc_tracee_exit_status(const struct gc_tracee *t)
{
    return t && t->exited ? t->exit_status : -1;
}

/* ---- poll --------------------------------------------------------------------------------- */

gpucore_status_t gc_tracee_poll(struct gc_tracee *t, int timeout_ms, enum gc_tracee_event *ret_event,
                                gpucore_diag_t *reterr_diag)
{
    int64_t deadline, step = 1;

    GC_FAIL_IF(!t || !ret_event, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no tracee or no result pointer");
    deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    for (;;) {
        uint32_t n;
        int rc;

        if (t->exited) {
            *ret_event = GC_TRACEE_EXITED;
            return GPUCORE_OK;
        }
        rc = drain(t, NULL, 0, 0, &n);
        if (rc < 0)
            return gc_diag_set(reterr_diag, rc == -ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO,
                               GC_NO_OFFSET, "tracing process %d: %s", (int)t->pid,
                               strerror(-rc));
        if (rc == 1) {
            *ret_event = GC_TRACEE_EXITED;
            return GPUCORE_OK;
        }
        if (n) {
            *ret_event = GC_TRACEE_HANDLED;
            return GPUCORE_OK;
        }
        if (timeout_ms == 0 || (deadline >= 0 && now_ms() >= deadline)) {
            *ret_event = GC_TRACEE_NOTHING;
            return GPUCORE_OK;
        }
        if (wait_any(t, deadline < 0 ? -1 : deadline - now_ms(), &step) < 0)
            return gc_diag_set(reterr_diag, GPUCORE_E_INTR, GC_NO_OFFSET,
                               "interrupted while tracing process %d", (int)t->pid);
    }
}

/* ---- stop --------------------------------------------------------------------------------- */

/* Interrupt the threads of @p which (NULL: all but the kept) and wait for their stops. */
static gpucore_status_t stop_set(struct gc_tracee *t, const pid_t *keep, uint32_t nkeep,
                                 pid_t only, int timeout_ms, gpucore_diag_t *diag)
{
    int64_t deadline = now_ms() + (timeout_ms < 0 ? 0 : timeout_ms);

    for (;;) {
        uint32_t n, waiting = 0;
        int rc;

        /* Interrupt every running thread that should stop (new clones included). */
        for (uint32_t i = 0; i < t->count; i++) {
            struct thread *th = &t->th[i];

            if (th->pub.stopped || th->unstoppable ||
                (only ? th->pub.tid != only : is_kept(th->pub.tid, keep, nkeep)))
                continue;
            if (!th->want_stop) {
                if (ptrace(PTRACE_INTERRUPT, th->pub.tid, NULL, NULL) < 0) {
                    if (errno != ESRCH)
                        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                                           "cannot interrupt thread %d: %s", (int)th->pub.tid,
                                           strerror(errno));
                    /* Exiting (its status follows) or a zombie leader: nothing to stop. */
                    th->unstoppable = 1;
                    continue;
                }
                th->want_stop = 1;
            }
            waiting++;
        }
        if (!waiting)
            return GPUCORE_OK;
        if (only) {
            keep = NULL;
            nkeep = 0;
        }
        /* Hold the stops of the threads being stopped; everything else goes on running. */
        {
            pid_t *hold_not = NULL;
            uint32_t nhold_not = 0;

            if (only) {
                /* Keep every other running thread running: they are the "kept" ones here. */
                hold_not = gc_calloc_array(t->count ? t->count : 1, sizeof(*hold_not));
                if (!hold_not)
                    return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
                for (uint32_t i = 0; i < t->count; i++)
                    if (t->th[i].pub.tid != only && !t->th[i].pub.stopped)
                        hold_not[nhold_not++] = t->th[i].pub.tid;
                rc = drain(t, hold_not, nhold_not, 1, &n);
                gc_free(hold_not);
            } else {
                rc = drain(t, keep, nkeep, 1, &n);
            }
        }
        if (rc == 1)
            return gc_diag_set(diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                               "process %d exited while it was being stopped", (int)t->pid);
        if (rc < 0)
            return gc_diag_set(diag, rc == -ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO,
                               GC_NO_OFFSET, "stopping process %d: %s", (int)t->pid,
                               strerror(-rc));
        if (n)
            continue;
        if (now_ms() >= deadline) {
            pid_t late = 0;

            for (uint32_t i = 0; i < t->count && !late; i++)
                if (t->th[i].want_stop)
                    late = t->th[i].pub.tid;
            return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                               "thread %d of process %d did not stop within %d ms", (int)late,
                               (int)t->pid, timeout_ms);
        }
        /* Stopping is not interruptible: a SIGINT is seen by the caller afterwards. */
        (void)nap(1);
    }
}

gpucore_status_t gc_tracee_stop_all(struct gc_tracee *t, const pid_t *keep, uint32_t nkeep,
                                    int timeout_ms, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!t || (nkeep && !keep), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no tracee or no list of threads to keep");
    GC_FAIL_IF(t->exited, reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "process %d has exited", (int)t->pid);
    for (uint32_t i = 0; i < t->count; i++)
        t->th[i].pub.service = is_kept(t->th[i].pub.tid, keep, nkeep);
    return stop_set(t, keep, nkeep, 0, timeout_ms, reterr_diag);
}

gpucore_status_t gc_tracee_stop_thread(struct gc_tracee *t, pid_t tid, int timeout_ms,
                                       gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!t || tid <= 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no tracee or invalid thread id");
    GC_FAIL_IF(t->exited, reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "process %d has exited", (int)t->pid);
    GC_FAIL_IF(!find(t, tid), reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "thread %d is not a thread of process %d", (int)tid, (int)t->pid);
    return stop_set(t, NULL, 0, tid, timeout_ms, reterr_diag);
}

/* ---- registers ---------------------------------------------------------------------------- */

#if defined(__x86_64__)
static int getregset(pid_t tid, unsigned type, void *buf, size_t *inout_len)
{
    struct iovec iov = { buf, *inout_len };

    if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)type, &iov) < 0)
        return -errno;
    *inout_len = iov.iov_len;
    return 0;
}

/* user_fpregs_struct (FXSAVE layout), field by field. */
static void encode_fpregs(uint8_t out[GC_TRACEE_FPREGS_SIZE], const struct user_fpregs_struct *f)
{
    gc_le16_put(out + 0, f->cwd);
    gc_le16_put(out + 2, f->swd);
    gc_le16_put(out + 4, f->ftw);
    gc_le16_put(out + 6, f->fop);
    gc_le64_put(out + 8, f->rip);
    gc_le64_put(out + 16, f->rdp);
    gc_le32_put(out + 24, f->mxcsr);
    gc_le32_put(out + 28, f->mxcr_mask);
    for (size_t i = 0; i < GC_ARRAY_SIZE(f->st_space); i++)
        gc_le32_put(out + 32 + 4 * i, f->st_space[i]);
    for (size_t i = 0; i < GC_ARRAY_SIZE(f->xmm_space); i++)
        gc_le32_put(out + 160 + 4 * i, f->xmm_space[i]);
    for (size_t i = 0; i < GC_ARRAY_SIZE(f->padding); i++)
        gc_le32_put(out + 416 + 4 * i, f->padding[i]);
}

_Static_assert(sizeof(struct user_regs_struct) == GC_TRACEE_GREGS_SIZE, "user_regs_struct");
_Static_assert(sizeof(struct user_fpregs_struct) == GC_TRACEE_FPREGS_SIZE, "user_fpregs");

static gpucore_status_t fetch_one(struct thread *th, uint8_t *xbuf, gpucore_diag_t *diag)
{
    struct user_regs_struct regs;
    struct user_fpregs_struct fp;
    unsigned long long words[GC_TRACEE_GREGS_SIZE / 8];
    size_t len = sizeof(regs);
    int rc;

    rc = getregset(th->pub.tid, NT_PRSTATUS, &regs, &len);
    if (rc == -ESRCH)
        return GPUCORE_OK; /* died (SIGKILL): no registers; the next wait drops it */
    GC_FAIL_IF(rc < 0 || len != sizeof(regs), diag, GPUCORE_E_IO, GC_NO_OFFSET,
               "cannot read the registers of thread %d: %s", (int)th->pub.tid,
               rc < 0 ? strerror(-rc) : "short regset");
    /* struct user_regs_struct is 27 unsigned long longs, in the kernel's pr_reg order. */
    memcpy(words, &regs, sizeof(words));
    for (size_t i = 0; i < GC_ARRAY_SIZE(words); i++)
        gc_le64_put(th->pub.gregs + 8 * i, words[i]);

    len = sizeof(fp);
    rc = getregset(th->pub.tid, NT_PRFPREG, &fp, &len);
    GC_FAIL_IF(rc < 0 && rc != -ESRCH, diag, GPUCORE_E_IO, GC_NO_OFFSET,
               "cannot read the FP registers of thread %d: %s", (int)th->pub.tid,
               strerror(-rc));
    memset(th->pub.fpregs, 0, sizeof(th->pub.fpregs));
    if (rc == 0) {
        if (len < sizeof(fp))
            memset((uint8_t *)&fp + len, 0, sizeof(fp) - len);
        encode_fpregs(th->pub.fpregs, &fp);
    }

    gc_free(th->pub.xstate);
    th->pub.xstate = NULL;
    th->pub.xstate_size = 0;
    len = GC_TRACEE_XSTATE_MAX;
    rc = getregset(th->pub.tid, NT_X86_XSTATE, xbuf, &len);
    if (rc == 0 && len > 0 && len <= GC_TRACEE_XSTATE_MAX) {
        /* The XSAVE area is an architectural little-endian byte image: kept as it is. */
        th->pub.xstate = gc_malloc(len);
        GC_FAIL_IF(!th->pub.xstate, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        memcpy(th->pub.xstate, xbuf, len);
        th->pub.xstate_size = (uint32_t)len;
    }
    th->pub.regs_valid = 1;
    return GPUCORE_OK;
}
#endif

static gpucore_status_t fetch_regs(struct gc_tracee *t, int missing_only,
                                   gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!t, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no tracee");
#if defined(__x86_64__)
    {
        uint8_t *xbuf = gc_malloc(GC_TRACEE_XSTATE_MAX);
        gpucore_status_t st = GPUCORE_OK;

        GC_FAIL_IF(!xbuf, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        for (uint32_t i = 0; i < t->count && st == GPUCORE_OK; i++)
            if (t->th[i].pub.stopped && !(missing_only && t->th[i].pub.regs_valid))
                st = fetch_one(&t->th[i], xbuf, reterr_diag);
        gc_free(xbuf);
        return st;
    }
#else
    (void)missing_only;
    return gc_diag_set(reterr_diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET,
                       "reading host registers is supported on x86-64 only");
#endif
}

gpucore_status_t gc_tracee_fetch_regs(struct gc_tracee *t, gpucore_diag_t *reterr_diag)
{
    return fetch_regs(t, 0, reterr_diag);
}

gpucore_status_t gc_tracee_fetch_missing_regs(struct gc_tracee *t, gpucore_diag_t *reterr_diag)
{
    return fetch_regs(t, 1, reterr_diag);
}

/* Foreign entries (processes cloned off the target, about to be let go) are not listed. */
uint32_t gc_tracee_thread_count(const struct gc_tracee *t)
{
    uint32_t n = 0;

    for (uint32_t i = 0; t && i < t->count; i++)
        n += !t->th[i].foreign;
    return n;
}

const struct gc_tracee_thread *gc_tracee_thread(const struct gc_tracee *t, uint32_t index)
{
    for (uint32_t i = 0; t && i < t->count; i++)
        if (!t->th[i].foreign && index-- == 0)
            return &t->th[i].pub;
    return NULL;
}

const struct gc_tracee_thread *gc_tracee_signalled_thread(const struct gc_tracee *t)
{
    const struct thread *th;

    if (!t || !t->signalled)
        return NULL;
    th = find((struct gc_tracee *)t, t->signalled);
    return th ? &th->pub : NULL;
}

/* ---- resume, detach, wait ------------------------------------------------------------------ */

gpucore_status_t gc_tracee_resume_all(struct gc_tracee *t, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!t, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no tracee");
    for (uint32_t i = 0; i < t->count; i++) {
        struct thread *th = &t->th[i];
        int rc;

        th->pub.service = 0;
        if (!th->pub.stopped)
            continue;
        rc = resume_thread(th);
        /* ESRCH: killed while stopped; its exit is collected by the next wait. */
        GC_FAIL_IF(rc < 0 && rc != -ESRCH, reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                   "cannot resume thread %d: %s", (int)th->pub.tid, strerror(-rc));
    }
    t->signalled = 0;
    return GPUCORE_OK;
}

gpucore_status_t gc_tracee_resume_thread(struct gc_tracee *t, pid_t tid,
                                         gpucore_diag_t *reterr_diag)
{
    struct thread *th;
    int regs_valid, rc;

    GC_FAIL_IF(!t, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no tracee");
    th = find(t, tid);
    GC_FAIL_IF(!th || !th->pub.stopped, reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "thread %d is not a stopped thread of process %d", (int)tid, (int)t->pid);
    regs_valid = th->pub.regs_valid;
    rc = resume_thread(th);
    if (rc == -ESRCH)
        return GPUCORE_OK; /* killed while stopped: the next wait collects its exit */
    GC_FAIL_IF(rc < 0, reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot resume thread %d: %s",
               (int)tid, strerror(-rc));
    th->pub.regs_valid = regs_valid;
    if (t->signalled == tid)
        t->signalled = 0;
    return GPUCORE_OK;
}

void gc_tracee_detach(struct gc_tracee *t)
{
    (void)gc_tracee_detach_status(t);
}

int gc_tracee_detach_status(struct gc_tracee *t)
{
    int status;

    if (!t)
        return -1;
    if (!t->exited) {
        /* PTRACE_DETACH needs a stopped tracee: stop everything first (new clones too). */
        (void)stop_set(t, NULL, 0, 0, 10000, NULL);
    }
    for (uint32_t i = 0; i < t->count; i++) {
        struct thread *th = &t->th[i];
        int sig = th->kind == STOP_SIGNAL ? th->pub.pending_signal : 0;

        ptrace(PTRACE_DETACH, th->pub.tid, NULL, (void *)(uintptr_t)sig);
    }
    status = t->exited ? t->exit_status : -1;
    tracee_free(t);
    return status;
}

gpucore_status_t gc_tracee_wait_exit(struct gc_tracee *t, int *ret_status, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!t || !ret_status, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no tracee or no result pointer");
    if (!t->exited)
        GC_TRY(gc_tracee_resume_all(t, reterr_diag));
    for (;;) {
        enum gc_tracee_event ev;

        GC_TRY(gc_tracee_poll(t, -1, &ev, reterr_diag));
        if (ev == GC_TRACEE_EXITED)
            break;
    }
    *ret_status = t->exit_status;
    return GPUCORE_OK;
}
