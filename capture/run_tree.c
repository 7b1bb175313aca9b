/* SPDX-License-Identifier: MIT */
/*
 * `gpucore run`: the tree supervisor (capture.h, GC_CAPTURE_RUN).
 *
 * The command is forked untraced and unfiltered; gpucore makes itself a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so every process of the tree stays below it (an orphan is
 * re-parented to gpucore, which reaps it). Nothing is installed in the tree's processes and
 * none is stopped at fork or exec: only the GPU processes are ever traced, from the moment they
 * opened the driver until they exec, end, or gpucore ends.
 *
 * Finding the GPU processes: an inotify watch for IN_OPEN on the KFD device file (/dev/kfd, or
 * for the simulated driver a private file whose path the command gets in GPUCORE_SIM_KFD, which
 * gpucore-inferior opens as ROCr opens /dev/kfd). Each open starts a scan of the tree (the
 * processes whose parent chain reaches the command, or gpucore itself through an orphan; see
 * tree_scan) for a descriptor on that file, compared by device and inode through a stat of
 * /proc/PID/fd/N, the target's files never opened. The kernel raises IN_OPEN before the new
 * descriptor is installed, so the scan is repeated on a short backoff (scan_backoff_ms).
 *
 * Arming a process found: every thread is seized (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC,
 * nothing stopped), a driver session opened and debugging enabled with the error exceptions and
 * EC_PROCESS_RUNTIME in the mask. A runtime that enables itself after that is held in its
 * RUNTIME_ENABLE by the driver until gpucore answers (SEND_RUNTIME_EVENT): the event fd wakes
 * the loop, which answers at once (gc_capture_armed_event). A process gpucore cannot seize
 * (another tracer: a debugger of the tree has it) is left alone with one line (DEBUGGED).
 *
 * One loop collects every status (waitpid(-1, __WALL): the tree's ends, the command's among
 * them, and the traced threads' stops) and sleeps in ppoll on the inotify fd and the event fds of
 * the armed processes, woken by SIGCHLD or by a stop signal to gpucore (both blocked outside
 * ppoll, so none is missed):
 *
 *   clone event, a new thread's first stop -> recorded, resumed
 *   exec event        -> an armed process lost its runtime with its image: disarmed, let go of
 *                        (found again if the new image opens the driver)
 *   signal-delivery stop -> resumed with the signal, unchanged
 *   group-stop (PTRACE_EVENT_STOP with a stop signal) -> PTRACE_LISTEN
 *   an armed process's event fd -> the runtime's start is answered; an error is captured (the
 *                        others run on), handed to its runtime, and the process armed again so
 *                        a further exception is recorded, not captured
 *
 * The command's end (or a failure of the loop) ends it: every armed process is disarmed
 * (DISABLE: a runtime still held in its enable goes on) and every traced thread let go of.
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
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture_internal.h"
#include "gc_util.h"
#include "tracee.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

#define TREE_OPTS ((long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC))
#define TREE_DETACH_TIMEOUT_MS 10000 /* per task let go of: how long its stop may take */
#define TREE_ARM_TRIES 3             /* a driver thread still being born answers late */
#define TREE_ARM_RETRY_MS 10         /* ...so much later each time */
/* After a capture, the process is armed again this much later, once what its runtime does with
   the exception it was handed (abort, exit) had time to happen: the simulated driver lives in
   the process, and a session opened while its thread waits in a signal stop for gpucore would
   not be answered. */
#define TREE_REARM_DELAY_MS 100
#define TREE_REARM_TIMEOUT_MS 250    /* ...and then the session gives up that soon */
/* /proc entries one scan looks at: the kernel's default pid_max (32768) and then some; a
   machine with more processes than that has the rest of its tree scanned at the next open. */
#define TREE_SCAN_MAX_PROCS 65536u
/* Parent links followed from one process towards the command: deeper trees do not exist in
   practice (each level is a process), and a cycle read from a racing /proc ends here. */
#define TREE_SCAN_MAX_DEPTH 1024u
/* Descriptors looked at per process: ROCr opens the driver among its first files. */
#define TREE_SCAN_MAX_FDS 16384u
/* Processes seen with the driver open that are not armed (refused, failed) and not to be tried
   again: a tree has far fewer GPU processes; past it the oldest record is forgotten. */
#define TREE_SKIP_MAX 1024u
/* Passes over /proc/PID/task while seizing: threads created meanwhile are caught by
   PTRACE_O_TRACECLONE once their creator is seized, so a pass that finds none new ends it. */
#define TREE_SEIZE_PASSES 8
/* Environment variable naming the simulated driver's stand-in for /dev/kfd (the command's
   gpucore-inferior opens it, as ROCr opens /dev/kfd). */
#define TREE_SIM_KFD_ENV "GPUCORE_SIM_KFD"

/*
 * IN_OPEN comes before the opener's descriptor is installed: a scan that finds nothing new is
 * repeated after each of these delays (ms; about 1 s in all), and the series starts again at
 * each open. Without a watch (inotify refused), the last delay repeats for as long as the tree
 * runs.
 */
static const uint16_t scan_backoff_ms[] = { 1, 4, 16, 64, 256, 640 };
#define TREE_SCAN_STEPS ((uint32_t)(sizeof(scan_backoff_ms) / sizeof(scan_backoff_ms[0])))

/* One traced task (thread of an armed process). */
struct task {
    pid_t tid, tgid;
};

/* One armed GPU process. */
struct gproc {
    struct gc_capture_armed a; /* a.k NULL: disarmed (captured, to be armed again at rearm_ms) */
    int captured;
    uint64_t rearm_ms;         /* captured: when to arm again (0 = not to) */
};

/* A process not to arm (again): its pid and start time, so a reused pid is a new process. */
struct skipped {
    pid_t pid;
    unsigned long long start;
};

/* One /proc entry of a scan. */
struct pinfo {
    pid_t pid, ppid;
    int in_tree; /* -1 not known yet, 0, 1 */
};

struct tree {
    const struct gc_capture_opts *o;
    struct gc_capture_result *res;
    gpucore_diag_t *diag;
    pid_t self, cmd;
    int cmd_exited, cmd_status;

    struct task *tasks;
    uint32_t ntasks, ctasks;
    struct gproc *procs;
    uint32_t nprocs, cprocs;
    struct skipped *skip;
    uint32_t nskip, cskip;
    pid_t *outside; /* gpucore's children from before the command (the CLI's reporter) */
    uint32_t noutside, coutside;
    struct pinfo *scan; /* the last scan of /proc, sorted by pid */
    uint32_t nscan, cscan;

    int inotify_fd;          /* -1: none (no driver, or refused: periodic scans) */
    int watching;            /* the device is known: scans may find GPU processes */
    dev_t kdev;              /* the device file's identity */
    ino_t kino;
    dev_t krdev;             /* ...and its device number, if a character device (else 0) */
    char sim_dir[PATH_MAX];  /* sim: the private directory of the stand-in file ("" none) */
    char sim_file[PATH_MAX + 8]; /* sim_dir + "/kfd" */
    uint32_t scan_step;      /* next index into scan_backoff_ms; TREE_SCAN_STEPS = idle */
    uint64_t scan_at_ms;     /* when the next scan is due (0 = none) */

    int enable_failed; /* the last arm() failed at ENABLE */
    int no_driver;     /* no GPU driver here: nothing is armed */
    int signalled;     /* a stop signal was passed on: nothing is armed any more */
    uint64_t kill_at_ms;   /* signalled, the command ended: when the rest is killed (0 = not
                              yet set) */
    uint64_t give_up_ms;   /* ...and when the loop stops waiting for the killed ones */
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

/*
 * /proc/PID/stat's parent (field 4) and start time (field 22) of @p pid. The command name
 * (field 2) may hold anything, spaces and parentheses included: the fields are counted from
 * its last ')'. 0, or -1 (gone, or not a stat line).
 */
static int proc_stat(pid_t pid, pid_t *ret_ppid, unsigned long long *ret_start)
{
    char path[64], buf[1024], *p;
    ssize_t n;
    int fd, ppid = 0;
    unsigned long long start = 0;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    p = strrchr(buf, ')');
    if (!p || sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
                            "%*d %*d %*d %llu", &ppid, &start) != 2)
        return -1;
    if (ret_ppid)
        *ret_ppid = (pid_t)ppid;
    if (ret_start)
        *ret_start = start;
    return 0;
}

static void tell(struct tree *tr, struct gc_capture_tree_event *ev)
{
    if (ev->pid > 0 && !ev->comm[0])
        comm_of(ev->pid, ev->comm);
    ev->is_command = ev->pid == tr->cmd;
    if (tr->o->tree_event)
        tr->o->tree_event(tr->o->tree_event_user, ev);
}

/* ---- the task, process and skip tables ------------------------------------------------------ */

static struct task *find_task(struct tree *tr, pid_t tid)
{
    for (uint32_t i = 0; i < tr->ntasks; i++)
        if (tr->tasks[i].tid == tid)
            return &tr->tasks[i];
    return NULL;
}

static struct task *add_task(struct tree *tr, pid_t tid, pid_t tgid)
{
    struct task *t = find_task(tr, tid);

    if (t)
        return t;
    t = gc_array_grow(tr->tasks, &tr->ctasks, tr->ntasks, sizeof(*t), 64);
    if (!t)
        return NULL;
    tr->tasks = t;
    t = &tr->tasks[tr->ntasks++];
    t->tid = tid;
    t->tgid = tgid;
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

static int is_skipped(const struct tree *tr, pid_t pid, unsigned long long start)
{
    for (uint32_t i = 0; i < tr->nskip; i++)
        if (tr->skip[i].pid == pid && tr->skip[i].start == start)
            return 1;
    return 0;
}

/* Remember @p pid as not to be armed (again), for as long as it is this process. */
static void skip_process(struct tree *tr, pid_t pid)
{
    unsigned long long start = 0;
    struct skipped *n;

    if (proc_stat(pid, NULL, &start) != 0)
        return; /* gone */
    if (tr->nskip == TREE_SKIP_MAX) {
        memmove(tr->skip, tr->skip + 1, (tr->nskip - 1) * sizeof(*tr->skip));
        tr->nskip--;
    }
    n = gc_array_grow(tr->skip, &tr->cskip, tr->nskip, sizeof(*n), 16);
    if (!n)
        return; /* then it is tried again at the next open: one more line, nothing worse */
    tr->skip = n;
    tr->skip[tr->nskip].pid = pid;
    tr->skip[tr->nskip++].start = start;
}

static void unskip_process(struct tree *tr, pid_t pid)
{
    for (uint32_t i = 0; i < tr->nskip; i++)
        if (tr->skip[i].pid == pid) {
            tr->skip[i] = tr->skip[--tr->nskip];
            return;
        }
}

/* ---- the tree, as /proc has it -------------------------------------------------------------- */

static int pinfo_cmp(const void *a, const void *b)
{
    pid_t x = ((const struct pinfo *)a)->pid, y = ((const struct pinfo *)b)->pid;

    return (x > y) - (x < y);
}

static struct pinfo *scan_find(struct tree *tr, pid_t pid)
{
    struct pinfo key = { .pid = pid };

    return tr->nscan ? bsearch(&key, tr->scan, tr->nscan, sizeof(key), pinfo_cmp) : NULL;
}

static int is_outside(const struct tree *tr, pid_t pid)
{
    for (uint32_t i = 0; i < tr->noutside; i++)
        if (tr->outside[i] == pid)
            return 1;
    return 0;
}

/*
 * Whether scanned process @p p is of the command's tree: its parent chain reaches the command,
 * or reaches gpucore through a child of gpucore that is not one of the children gpucore had
 * before the command (an orphan of the tree, re-parented to the subreaper). The answer is
 * cached in the entry (and in those of the chain, when it is known).
 */
static int in_tree(struct tree *tr, struct pinfo *p)
{
    struct pinfo *chain[TREE_SCAN_MAX_DEPTH];
    uint32_t n = 0;
    int verdict = 0;
    struct pinfo *cur = p;

    while (cur && n < TREE_SCAN_MAX_DEPTH) {
        if (cur->in_tree >= 0) {
            verdict = cur->in_tree;
            break;
        }
        chain[n++] = cur;
        if (cur->pid == tr->cmd) {
            verdict = 1;
            break;
        }
        if (cur->ppid == tr->self) {
            verdict = !is_outside(tr, cur->pid);
            break;
        }
        if (cur->ppid <= 1 || cur->pid == tr->self)
            break;
        cur = scan_find(tr, cur->ppid);
    }
    for (uint32_t i = 0; i < n; i++)
        chain[i]->in_tree = verdict;
    return verdict;
}

/* Read /proc into tr->scan (pid and parent of every process, sorted). 0, or -ENOMEM / -errno
   of opendir. */
static int tree_scan(struct tree *tr)
{
    DIR *d = opendir("/proc");
    struct dirent *de;

    if (!d)
        return -errno;
    tr->nscan = 0;
    while ((de = readdir(d)) != NULL && tr->nscan < TREE_SCAN_MAX_PROCS) {
        pid_t pid, ppid;
        struct pinfo *n;

        if (!gc_tracee_task_entry_tid(de->d_name, &pid) || proc_stat(pid, &ppid, NULL) != 0)
            continue;
        n = gc_array_grow(tr->scan, &tr->cscan, tr->nscan, sizeof(*n), 256);
        if (!n) {
            closedir(d);
            return -ENOMEM;
        }
        tr->scan = n;
        tr->scan[tr->nscan].pid = pid;
        tr->scan[tr->nscan].ppid = ppid;
        tr->scan[tr->nscan++].in_tree = -1;
    }
    closedir(d);
    qsort(tr->scan, tr->nscan, sizeof(*tr->scan), pinfo_cmp);
    return 0;
}

/* Call @p fn for each process of the tree (a fresh scan). Returns how many. */
static uint32_t each_process(struct tree *tr, void (*fn)(struct tree *, pid_t, void *), void *arg)
{
    uint32_t n = 0;

    if (tree_scan(tr) != 0)
        return 0;
    for (uint32_t i = 0; i < tr->nscan; i++) {
        if (!in_tree(tr, &tr->scan[i]))
            continue;
        if (fn)
            fn(tr, tr->scan[i].pid, arg);
        n++;
    }
    return n;
}

/* Whether @p st is the KFD device file gpucore watches. */
static int is_device(const struct tree *tr, const struct stat *st)
{
    if (st->st_dev == tr->kdev && st->st_ino == tr->kino)
        return 1;
    /* The same character device under another node (a container's own /dev). */
    return tr->krdev && S_ISCHR(st->st_mode) && st->st_rdev == tr->krdev;
}

/*
 * Whether process @p pid has a descriptor open on the device: a stat of each /proc/PID/fd
 * link, which follows it to the file without opening anything of the target's.
 */
static int has_device_open(const struct tree *tr, pid_t pid)
{
    char path[64];
    struct dirent *de;
    uint32_t seen = 0;
    int found = 0, dfd;
    DIR *d;

    snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
    d = opendir(path);
    if (!d)
        return 0;
    dfd = dirfd(d);
    while (!found && seen < TREE_SCAN_MAX_FDS && (de = readdir(d)) != NULL) {
        struct stat st;

        if (de->d_name[0] == '.')
            continue;
        seen++;
        if (fstatat(dfd, de->d_name, &st, 0) == 0 && is_device(tr, &st))
            found = 1;
    }
    closedir(d);
    return found;
}

/* ---- letting go ------------------------------------------------------------------------------ */

static int is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_exit_status(struct tree *tr, pid_t w, int status);

/*
 * Let go of one traced task: stop it (PTRACE_INTERRUPT), wait for that stop (any other status
 * of it on the way is handled: a signal is passed on with the detach, an exit ends it), then
 * PTRACE_DETACH. 0, or -1 if it could not be stopped in time (left traced: the kernel lets go
 * when gpucore exits).
 */
static int let_go_task(struct tree *tr, pid_t tid)
{
    uint64_t until = now_ms() + TREE_DETACH_TIMEOUT_MS;
    int status;

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

            if (event == PTRACE_EVENT_CLONE) {
                unsigned long msg = 0;
                struct task *t = find_task(tr, tid);

                if (t && ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && msg > 0 &&
                    msg <= INT32_MAX)
                    (void)add_task(tr, (pid_t)msg, t->tgid);
                /* The interrupt is still pending: its stop follows. */
                ptrace(PTRACE_CONT, tid, NULL, NULL);
                continue;
            }
            if (event == 0) {
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

/* Disarm process @p pid and let go of every traced thread of it. */
static void let_go_process(struct tree *tr, pid_t pid)
{
    drop_proc(tr, pid, 1);
    /* Letting go of a thread can record a new one (a clone on the way): until none is left. */
    for (uint32_t guard = 0; guard < 1000000u; guard++) {
        pid_t tid = 0;

        for (uint32_t i = 0; i < tr->ntasks && !tid; i++)
            if (tr->tasks[i].tgid == pid)
                tid = tr->tasks[i].tid;
        if (!tid)
            break;
        if (let_go_task(tr, tid) < 0)
            drop_task(tr, tid);
    }
}

/* Disarm everything and let go of every traced thread. */
static void let_go_all(struct tree *tr)
{
    while (tr->nprocs)
        let_go_process(tr, tr->procs[0].a.pid);
    while (tr->ntasks) {
        pid_t tid = tr->tasks[tr->ntasks - 1].tid;

        if (let_go_task(tr, tid) < 0)
            drop_task(tr, tid);
    }
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

/* An armed process exec'ed (@p w, now its leader): its runtime went with its image. Disarmed
   and let go of; it is found again if the new program opens the driver. */
static void on_exec(struct tree *tr, pid_t w)
{
    pid_t tgid = w;

    for (uint32_t i = 0; i < tr->ntasks;) {
        /* The other threads are gone with the exec (their exits may still come). */
        if (tr->tasks[i].tgid == tgid && tr->tasks[i].tid != w)
            tr->tasks[i] = tr->tasks[--tr->ntasks];
        else
            i++;
    }
    drop_proc(tr, tgid, 0);
    ptrace(PTRACE_DETACH, w, NULL, NULL);
    drop_task(tr, w);
    unskip_process(tr, tgid);
}

/* Handle one status. 0, or -ENOMEM. */
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
    t = find_task(tr, w);
    if (!t) {
        /* A new thread's first stop before its creator's clone event: its process is one of
           ours (only armed processes are traced). */
        t = add_task(tr, w, tgid_of(w));
        if (!t)
            return -ENOMEM;
    }
    event = (status >> 16) & 0xff;
    sig = WSTOPSIG(status);
    switch (event) {
    case PTRACE_EVENT_CLONE:
        if (ptrace(PTRACE_GETEVENTMSG, w, NULL, &msg) == 0 && msg > 0 && msg <= INT32_MAX &&
            !add_task(tr, (pid_t)msg, t->tgid))
            return -ENOMEM;
        break;
    case PTRACE_EVENT_EXEC:
        on_exec(tr, w);
        return 0;
    case PTRACE_EVENT_STOP:
        if (is_stop_signal(sig)) {
            /* Group-stop: stays stopped for job control; SIGCONT's trap comes back here. */
            ptrace(PTRACE_LISTEN, w, NULL, NULL);
            return 0;
        }
        break;
    case 0:
        /* Signal-delivery stop: the signal goes on unchanged. */
        ptrace(PTRACE_CONT, w, NULL, (void *)(long)sig);
        return 0;
    default:
        break;
    }
    ptrace(PTRACE_CONT, w, NULL, NULL);
    return 0;
}

/* Collect every pending status: the traced threads' stops and every end in the tree (the
   subreaper reaps its orphans). 0, -ENOMEM, or -errno of waitpid. */
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
    if (!ev.ended) {
        let_go_process(tr, pid);
        skip_process(tr, pid);
    }
}

/*
 * Seize every thread of @p pid, nothing stopped. 0; -EPERM if the process cannot be traced by
 * gpucore (another tracer has it; nothing is left seized); -ESRCH gone; -ENOMEM.
 */
static int seize_process(struct tree *tr, pid_t pid)
{
    char path[64];
    int again = 1;

    if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)TREE_OPTS) < 0)
        return -errno;
    if (!add_task(tr, pid, pid)) {
        ptrace(PTRACE_DETACH, pid, NULL, NULL);
        return -ENOMEM;
    }
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    for (int pass = 0; again && pass < TREE_SEIZE_PASSES; pass++) {
        DIR *d = opendir(path);
        struct dirent *de;

        again = 0;
        if (!d)
            break;
        while ((de = readdir(d)) != NULL) {
            pid_t tid;

            if (!gc_tracee_task_entry_tid(de->d_name, &tid) || find_task(tr, tid))
                continue;
            if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)TREE_OPTS) < 0)
                continue; /* gone, or seized by the clone option meanwhile (EPERM) */
            if (!add_task(tr, tid, pid)) {
                ptrace(PTRACE_DETACH, tid, NULL, NULL);
                closedir(d);
                return -ENOMEM;
            }
            again = 1;
        }
        closedir(d);
    }
    return 0;
}

/* @p pid has the driver open and cannot be seized: a debugger has it. Said once; not tried
   again. */
static void refused(struct tree *tr, pid_t pid, int err)
{
    struct gc_capture_tree_event ev;
    char msg[160];

    memset(&ev, 0, sizeof(ev));
    ev.pid = pid;
    ev.other = (pid_t)proc_status_field(pid, "TracerPid");
    if (err == EPERM && ev.other > 0) {
        ev.kind = GC_CAPTURE_TREE_DEBUGGED;
        comm_of(ev.other, ev.other_comm);
    } else {
        ev.kind = GC_CAPTURE_TREE_FAILED;
        ev.other = 0;
        snprintf(msg, sizeof(msg), "cannot trace it: %s%s", strerror(err),
                 err == EPERM ? " (Yama ptrace_scope, or no CAP_SYS_PTRACE)" : "");
        ev.message = msg;
    }
    tell(tr, &ev);
    skip_process(tr, pid);
}

/* Arm process @p pid: seize it, open a driver session, enable debugging. */
static gpucore_status_t arm(struct tree *tr, pid_t pid)
{
    struct gproc *p;
    struct gc_capture_armed a;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = GPUCORE_E_IO;
    int rc;

    if (find_proc(tr, pid))
        return GPUCORE_OK;
    rc = seize_process(tr, pid);
    if (rc == -ESRCH)
        return GPUCORE_E_NOTFOUND;
    if (rc < 0) {
        refused(tr, pid, -rc);
        return rc == -ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_PERM;
    }
    for (int i = 0; i < TREE_ARM_TRIES; i++) {
        st = gc_capture_arm(tr->o, pid, &a, &d);
        if (st == GPUCORE_OK || a.enable_failed || (st != GPUCORE_E_IO && st != GPUCORE_E_NODEV))
            break;
        /* The driver's thread may still be on its way: let the statuses run, then again. */
        (void)drain(tr);
        nap_ms(TREE_ARM_RETRY_MS);
    }
    tr->enable_failed = st != GPUCORE_OK && a.enable_failed;
    if (st != GPUCORE_OK) {
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

/*
 * A scan for GPU processes: every process of the tree that is not armed (or skipped) and has
 * the device open is armed. Returns how many were found, or -ENOMEM / -errno.
 */
static int scan_for_gpu(struct tree *tr)
{
    int rc = tree_scan(tr), found = 0;

    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < tr->nscan; i++) {
        pid_t pid = tr->scan[i].pid;
        unsigned long long start = 0;

        if (pid == tr->self || !in_tree(tr, &tr->scan[i]) || find_proc(tr, pid))
            continue;
        if (tr->nskip && proc_stat(pid, NULL, &start) == 0 && is_skipped(tr, pid, start))
            continue;
        if (!has_device_open(tr, pid))
            continue;
        found++;
        (void)arm(tr, pid);
    }
    return found;
}

/* The inotify fd is readable: drain it; a scan series (re)starts. */
static void on_open_events(struct tree *tr)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

    while (read(tr->inotify_fd, buf, sizeof(buf)) > 0)
        ;
    tr->scan_step = 0;
    tr->scan_at_ms = now_ms();
}

/* The scan series: a scan when due, then the next step of the backoff. */
static int scan_if_due(struct tree *tr, uint64_t *inout_wake_ms)
{
    uint64_t now = now_ms();
    int rc = 0;

    if (!tr->scan_at_ms || tr->signalled || tr->no_driver)
        return 0;
    if (now >= tr->scan_at_ms) {
        rc = scan_for_gpu(tr);
        if (tr->scan_step < TREE_SCAN_STEPS) {
            tr->scan_at_ms = now_ms() + scan_backoff_ms[tr->scan_step++];
        } else if (tr->inotify_fd < 0) {
            tr->scan_at_ms = now_ms() + scan_backoff_ms[TREE_SCAN_STEPS - 1];
        } else {
            tr->scan_at_ms = 0; /* the series is over: until the next open */
            return rc < 0 ? rc : 0;
        }
        now = now_ms();
    }
    if (tr->scan_at_ms) {
        uint64_t left = tr->scan_at_ms > now ? tr->scan_at_ms - now : 1;

        if (!*inout_wake_ms || left < *inout_wake_ms)
            *inout_wake_ms = left;
    }
    return rc < 0 ? rc : 0;
}

/* ---- a stop signal to gpucore run ------------------------------------------------------- */

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
 * process of the tree, as /proc has it now (gpucore is the subreaper: the tree stays below
 * it), until the command has ended and the rest has ended too or was killed (loop()).
 */
static void on_stop_signal(struct tree *tr, int sig)
{
    struct pass_on po = { .sig = sig,
                          .by_kernel = tr->o->interrupted_by_kernel &&
                                       *tr->o->interrupted_by_kernel };
    struct gc_capture_tree_event ev;

    if (!tr->signalled) {
        tr->signalled = 1;
        tr->scan_at_ms = 0;
        tr->res->signal = sig;
        let_go_all(tr);
    }
    (void)each_process(tr, pass_on_one, &po);
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

    if (each_process(tr, NULL, NULL) == 0)
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

/* gpucore's children from before the command (the CLI's reporter): not of the tree. */
static int note_outside(struct tree *tr)
{
    int rc = tree_scan(tr);

    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < tr->nscan; i++) {
        pid_t *n;

        if (tr->scan[i].ppid != tr->self)
            continue;
        n = gc_array_grow(tr->outside, &tr->coutside, tr->noutside, sizeof(*n), 4);
        if (!n)
            return -ENOMEM;
        tr->outside = n;
        tr->outside[tr->noutside++] = tr->scan[i].pid;
    }
    return 0;
}

/* sim: the stand-in for /dev/kfd the command's gpucore-inferior opens, in a directory of its
   own (mode 0700) under $TMPDIR or /tmp. 0 or an errno value. */
static int make_sim_device(struct tree *tr)
{
    const char *tmp = getenv("TMPDIR");
    int fd;

    if (!tmp || !tmp[0])
        tmp = "/tmp";
    if ((size_t)snprintf(tr->sim_dir, sizeof(tr->sim_dir), "%s/gpucore-run.XXXXXX", tmp) >=
        sizeof(tr->sim_dir)) {
        tr->sim_dir[0] = '\0';
        return ENAMETOOLONG;
    }
    if (!mkdtemp(tr->sim_dir)) {
        int e = errno;

        tr->sim_dir[0] = '\0';
        return e;
    }
    snprintf(tr->sim_file, sizeof(tr->sim_file), "%s/kfd", tr->sim_dir);
    fd = open(tr->sim_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;

        rmdir(tr->sim_dir);
        tr->sim_dir[0] = tr->sim_file[0] = '\0';
        return e;
    }
    close(fd);
    return 0;
}

static void remove_sim_device(struct tree *tr)
{
    if (tr->sim_file[0])
        unlink(tr->sim_file);
    if (tr->sim_dir[0])
        rmdir(tr->sim_dir);
}

static void notice(struct tree *tr, const char *message)
{
    struct gc_capture_tree_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.kind = GC_CAPTURE_TREE_NOWATCH;
    ev.message = message;
    tell(tr, &ev);
}

/*
 * Watch the driver's device file for opens, before the command starts. Nothing here keeps
 * the command from running: without the file nothing is armed; without inotify the tree is
 * scanned periodically (one line says which).
 */
static void watch_device(struct tree *tr)
{
    const char *path = tr->o->kfd.device_path ? tr->o->kfd.device_path : "/dev/kfd";
    char msg[PATH_MAX + 160];
    struct stat st;
    int e;

    if (tr->no_driver)
        return;
    if (tr->o->kfd.backend == GC_KFD_BACKEND_SIM) {
        e = make_sim_device(tr);
        if (e) {
            snprintf(msg, sizeof(msg), "cannot make the simulated driver's device file: %s: "
                     "nothing can be captured", strerror(e));
            notice(tr, msg);
            return;
        }
        path = tr->sim_file;
    }
    if (stat(path, &st) != 0) {
        snprintf(msg, sizeof(msg), "%s: %s: nothing can be captured", path, strerror(errno));
        notice(tr, msg);
        return;
    }
    tr->kdev = st.st_dev;
    tr->kino = st.st_ino;
    tr->krdev = S_ISCHR(st.st_mode) ? st.st_rdev : 0;
    tr->watching = 1;
    tr->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (tr->inotify_fd >= 0 && inotify_add_watch(tr->inotify_fd, path, IN_OPEN) >= 0)
        return;
    e = errno;
    if (tr->inotify_fd >= 0)
        close(tr->inotify_fd);
    tr->inotify_fd = -1;
    snprintf(msg, sizeof(msg), "cannot watch %s for opens (%s): the processes of the tree are "
             "looked at every %u ms instead", path, strerror(e),
             (unsigned)scan_backoff_ms[TREE_SCAN_STEPS - 1]);
    notice(tr, msg);
}

/* Fork the command, untraced; an exec failure comes back through a close-on-exec pipe. */
static gpucore_status_t spawn(struct tree *tr, gpucore_diag_t *diag)
{
    char *const *argv = tr->o->argv;
    int err_pipe[2], status, child_errno = 0;
    pid_t child;
    ssize_t n;

    if (pipe2(err_pipe, O_CLOEXEC) < 0)
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "pipe: %s", strerror(errno));
    fflush(NULL);
    child = fork();
    if (child < 0) {
        int e = errno;

        close(err_pipe[0]);
        close(err_pipe[1]);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot fork: %s", strerror(e));
    }
    if (child == 0) {
        sigset_t none;
        int e;

        close(err_pipe[0]);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL); /* the loop's mask is not the command's */
        if (tr->sim_file[0])
            setenv(TREE_SIM_KFD_ENV, tr->sim_file, 1);
        execvp(argv[0], argv);
        e = errno;
        while (write(err_pipe[1], &e, sizeof(e)) < 0 && errno == EINTR)
            ;
        _exit(127);
    }
    close(err_pipe[1]);
    do
        n = read(err_pipe[0], &child_errno, sizeof(child_errno));
    while (n < 0 && errno == EINTR);
    close(err_pipe[0]);
    if (n == (ssize_t)sizeof(child_errno)) {
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
        return gc_diag_set(diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET, "cannot execute %s: %s",
                           argv[0], strerror(child_errno));
    }
    tr->cmd = child;
    return GPUCORE_OK;
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void on_sigchld(int sig)
{
    (void)sig;
}

/* Arm again the processes captured TREE_REARM_DELAY_MS ago; lowers *inout_wake_ms to the next. */
static void rearm_due(struct tree *tr, const struct gc_capture_opts *rearm_opts,
                      uint64_t *inout_wake_ms)
{
    for (uint32_t i = 0; i < tr->nprocs; i++) {
        struct gproc *p = &tr->procs[i];
        struct gc_capture_armed again;
        gpucore_diag_t d = { 0 };

        if (!p->rearm_ms)
            continue;
        if (now_ms() < p->rearm_ms) {
            uint64_t left = p->rearm_ms - now_ms();

            if (!*inout_wake_ms || left < *inout_wake_ms)
                *inout_wake_ms = left;
            continue;
        }
        p->rearm_ms = 0;
        if (gc_capture_arm(rearm_opts, p->a.pid, &again, &d) == GPUCORE_OK) {
            p->a = again;
        } else {
            pid_t pid = p->a.pid;

            let_go_process(tr, pid);
            skip_process(tr, pid);
            i = (uint32_t)-1; /* the table changed: from the start */
        }
    }
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
        uint64_t wake_ms = 0;
        uint32_t n = 0;
        int rc = drain(tr);

        if (rc >= 0)
            rc = scan_if_due(tr, &wake_ms);
        if (rc < 0) {
            st = gc_diag_set(tr->diag, rc == -ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO,
                             GC_NO_OFFSET, "following the processes of %s: %s",
                             tr->o->argv[0], strerror(-rc));
            break;
        }
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
        rearm_due(tr, &rearm_opts, &wake_ms);
        if (cfds < tr->nprocs + 1) {
            struct pollfd *nf = gc_realloc_array(fds, tr->nprocs + 1, sizeof(*nf));
            pid_t *np;

            if (!nf) {
                st = gc_diag_set(tr->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
                break;
            }
            fds = nf;
            np = gc_realloc_array(fd_pid, tr->nprocs + 1, sizeof(*np));
            if (!np) {
                st = gc_diag_set(tr->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
                break;
            }
            fd_pid = np;
            cfds = tr->nprocs + 1;
        }
        if (tr->inotify_fd >= 0 && !tr->signalled) {
            fds[n].fd = tr->inotify_fd;
            fds[n].events = POLLIN;
            fds[n].revents = 0;
            fd_pid[n++] = 0;
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
            if (fd_pid[i] == 0) {
                on_open_events(tr);
                continue;
            }
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
    gpucore_status_t st;
    int was_subreaper = 0;
    static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };

    GC_FAIL_IF(!o->argv || !o->argv[0], diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no command to run");
    GC_FAIL_IF(o->interrupted && *o->interrupted, diag, GPUCORE_E_INTR, GC_NO_OFFSET,
               "interrupted: %s was not started", o->argv[0]);
    memset(&tr, 0, sizeof(tr));
    tr.o = o;
    tr.res = ret;
    tr.diag = diag;
    tr.self = getpid();
    tr.inotify_fd = -1;
    tr.scan_step = TREE_SCAN_STEPS;
    {
        /* Nothing found here keeps the command from running: it is said, once. */
        char text[PATH_MAX * 2 + 160];
        struct gc_capture_tree_event ev;

        GC_TRY(gc_capture_run_precheck(o, &tr.no_driver, text, sizeof(text), diag));
        if (text[0]) {
            memset(&ev, 0, sizeof(ev));
            ev.kind = GC_CAPTURE_TREE_NOTICE;
            ev.message = text;
            tell(&tr, &ev);
        }
    }
    if (note_outside(&tr) < 0) {
        st = gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot read /proc: %s",
                         strerror(errno));
        goto out_free;
    }
    watch_device(&tr);
    /* Every orphan of the tree comes to gpucore, which reaps it and still sees it as the
       tree's. */
    (void)prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper, 0, 0, 0);
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

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
    st = spawn(&tr, diag);
    if (st != GPUCORE_OK)
        goto out;
    ret->pid = tr.cmd;
    if (tr.watching) { /* a first look, and at once without a watch */
        tr.scan_step = tr.inotify_fd >= 0 ? TREE_SCAN_STEPS : 0;
        tr.scan_at_ms = now_ms();
    }
    if (o->progress) {
        struct gc_capture_progress p = { .phase = "following the command's processes",
                                         .new_phase = 1 };

        o->progress(o->progress_user, &p);
    }
    st = loop(&tr, &run_mask, &loop_mask);
    let_go_all(&tr);
    /* Statuses that came while letting go (the command's end among them). */
    (void)drain(&tr);
    if (tr.cmd_exited) {
        uint32_t left = each_process(&tr, NULL, NULL);

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
    (void)prctl(PR_SET_CHILD_SUBREAPER, was_subreaper, 0, 0, 0);
    sigprocmask(SIG_SETMASK, &orig_mask, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
out_free:
    if (tr.inotify_fd >= 0)
        close(tr.inotify_fd);
    remove_sim_device(&tr);
    gc_free(tr.tasks);
    gc_free(tr.procs);
    gc_free(tr.skip);
    gc_free(tr.outside);
    gc_free(tr.scan);
    return st;
}
