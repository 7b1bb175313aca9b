/* SPDX-License-Identifier: MIT */
/*
 * ptrace of a thread group (capture/tracee.c) on a forked child with three threads (one
 * blocked in sigsuspend, one spinning, one sleeping): seize, stop all but one, registers, resume,
 * a signal delivered while traced, a thread created and ended while traced, detach, spawn,
 * wait_exit, and EINTR from poll. Exit 77 (skipped) where ptrace is not permitted.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gc_le.h"
#include "procmaps.h"
#include "tracee.h"

/* ---- the child ----------------------------------------------------------------------------- */

enum { T_MAIN, T_PAUSE, T_SPIN, T_SLEEP, NT };

/* Shared with the parent (MAP_SHARED before fork). */
struct shared {
    pid_t tid[NT];
    uint64_t stack_lo[NT], stack_hi[NT];
    volatile int ready;
    volatile int stop;
    volatile uint64_t spin_counter;
    volatile pid_t new_tid;
    volatile int release_new;
};

static struct shared *sh;
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
    (void)sig;
    got_usr1 = 1;
}

static void on_usr2(int sig)
{
    (void)sig;
}

static void record(int i)
{
    pthread_attr_t a;
    void *addr;
    size_t size;

    sh->tid[i] = gettid();
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &addr, &size) == 0) {
            sh->stack_lo[i] = (uint64_t)(uintptr_t)addr;
            sh->stack_hi[i] = (uint64_t)(uintptr_t)addr + size;
        }
        pthread_attr_destroy(&a);
    }
    __atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
}

static void nap_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };

    nanosleep(&ts, NULL);
}

/*
 * Blocked in a system call until the child quits. SIGUSR2 stays blocked but while it waits
 * (sigsuspend), so the wake-up cannot fall between the look at sh->stop and the wait: with
 * pause() it could, and the child then waited for this thread for ever (a test timeout seen
 * about once in 40 runs with two test processes at once).
 */
static void *thread_pause(void *arg)
{
    sigset_t usr2, wait_mask;

    (void)arg;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &usr2, &wait_mask);
    sigdelset(&wait_mask, SIGUSR2);
    record(T_PAUSE);
    while (!sh->stop)
        sigsuspend(&wait_mask);
    return NULL;
}

static void *thread_spin(void *arg)
{
    (void)arg;
    record(T_SPIN);
    while (!sh->stop)
        sh->spin_counter++;
    return NULL;
}

static void *thread_sleep(void *arg)
{
    (void)arg;
    record(T_SLEEP);
    while (!sh->stop)
        nap_ms(1);
    return NULL;
}

static void *thread_new(void *arg)
{
    (void)arg;
    sh->new_tid = gettid();
    while (!sh->release_new)
        nap_ms(1);
    return NULL;
}

static int proc_fn(void *arg)
{
    (void)arg;
    return 42;
}

/* Commands on @p cmd: 'c' start a thread that ends once released, 'q' quit. Exit status
 * 10, plus 1 if SIGUSR1 was delivered. */
static void child_main(int cmd, int reply)
{
    struct sigaction sa;
    pthread_t th[NT];
    void *(*fn[NT])(void *) = { NULL, thread_pause, thread_spin, thread_sleep };
    char c;

    memset(&sa, 0, sizeof(sa));
    sa.sa_flags = SA_RESTART; /* the main thread's read of commands goes on */
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    record(T_MAIN);
    for (int i = 1; i < NT; i++)
        if (pthread_create(&th[i], NULL, fn[i], NULL) != 0)
            _exit(3);
    while (sh->ready < NT)
        nap_ms(1);
    if (write(reply, "r", 1) != 1)
        _exit(4);
    while (read(cmd, &c, 1) == 1) {
        if (c == 'c') {
            pthread_t n;

            if (pthread_create(&n, NULL, thread_new, NULL) != 0)
                _exit(5);
            pthread_join(n, NULL);
            if (write(reply, "j", 1) != 1)
                _exit(4);
        } else if (c == 'p') {
            /* A new process made by clone() with exit signal 0: the kernel reports it to a
             * clone-tracing tracer as PTRACE_EVENT_CLONE, like a thread. */
            static char stack[65536] __attribute__((aligned(16)));
            pid_t p = clone(proc_fn, stack + sizeof(stack), 0, NULL);
            int st = 0;

            if (p < 0 || waitpid(p, &st, __WALL) != p)
                _exit(6);
            if (write(reply, WIFEXITED(st) && WEXITSTATUS(st) == 42 ? "p" : "x", 1) != 1)
                _exit(4);
        } else if (c == 'q') {
            break;
        }
    }
    sh->stop = 1;
    pthread_kill(th[T_PAUSE], SIGUSR2);
    for (int i = 1; i < NT; i++)
        pthread_join(th[i], NULL);
    _exit(10 + (got_usr1 ? 1 : 0));
}

struct child {
    pid_t pid;
    int cmd, reply;
};

static void start_child(struct child *c)
{
    int a[2], b[2];
    char r;

    memset((void *)sh, 0, sizeof(*sh));
    got_usr1 = 0;
    assert_int_equal(pipe2(a, O_CLOEXEC), 0);
    assert_int_equal(pipe2(b, O_CLOEXEC), 0);
    c->pid = fork();
    assert_true(c->pid >= 0);
    if (c->pid == 0) {
        close(a[1]);
        close(b[0]);
        child_main(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    c->cmd = a[1];
    c->reply = b[0];
    assert_int_equal(read(c->reply, &r, 1), 1);
    assert_int_equal(r, 'r');
}

static int finish_child(struct child *c)
{
    int status;
    ssize_t w = write(c->cmd, "q", 1); /* fails (EPIPE) only if the child died */

    close(c->cmd);
    close(c->reply);
    assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
    if (w != 1)
        print_message("child died early: status 0x%x\n", (unsigned)status);
    return status;
}

/* The state letter of /proc/PID/task/TID/stat ('t' = stopped by the tracer). */
static char thread_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    f = fopen(path, "r");
    if (!f)
        return '?';
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

static const struct gc_tracee_thread *find_thread(const struct gc_tracee *t, pid_t tid)
{
    for (uint32_t i = 0; i < gc_tracee_thread_count(t); i++) {
        const struct gc_tracee_thread *th = gc_tracee_thread(t, i);
        if (th && th->tid == tid)
            return th;
    }
    return NULL;
}

/* The thread, which must be in the set: the test fails (and stops) otherwise. */
static const struct gc_tracee_thread *thread_by_tid(const struct gc_tracee *t, pid_t tid)
{
    const struct gc_tracee_thread *th = find_thread(t, tid);

    if (!th) {
        fail_msg("thread %d is not in the traced set", (int)tid);
        abort();
    }
    return th;
}

#define GREG_RIP 16
#define GREG_RSP 19

static uint64_t reg(const struct gc_tracee_thread *th, unsigned idx)
{
    return gc_le64_get(th->gregs + 8 * idx);
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_seize_stop_regs_resume_detach(void **state)
{
    struct child c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    struct gc_procmaps maps;
    uint64_t before;
    int status;

    (void)state;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_pid(t), c.pid);
    assert_int_equal(gc_tracee_thread_count(t), NT);
    assert_int_equal(gc_tracee_thread(t, 0)->tid, c.pid); /* the leader first */
    for (int i = 0; i < NT; i++)
        assert_non_null(find_thread(t, sh->tid[i]));
    assert_null(gc_tracee_thread(t, NT));
    assert_null(gc_tracee_signalled_thread(t));
    assert_int_equal(gc_tracee_exit_status(t), -1);

    /* Stop everything but the spinner. */
    assert_int_equal(gc_tracee_stop_all(t, &sh->tid[T_SPIN], 1, 10000, &d), GPUCORE_OK);
    for (int i = 0; i < NT; i++) {
        const struct gc_tracee_thread *th = thread_by_tid(t, sh->tid[i]);

        if (i == T_SPIN) {
            assert_int_equal(th->stopped, 0);
            assert_int_equal(th->service, 1);
            assert_true(thread_state(c.pid, th->tid) != 't');
        } else {
            assert_int_equal(th->stopped, 1);
            assert_int_equal(thread_state(c.pid, th->tid), 't');
        }
    }
    /* The spinner really runs: its counter moves while the others are stopped. */
    before = sh->spin_counter;
    while (sh->spin_counter == before)
        nap_ms(1);

    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    assert_int_equal(gc_procmaps_read(c.pid, NULL, &maps, &d), GPUCORE_OK);
    for (int i = 0; i < NT; i++) {
        const struct gc_tracee_thread *th = thread_by_tid(t, sh->tid[i]);
        const struct gc_procmap *code, *stack;
        uint64_t rip = reg(th, GREG_RIP), rsp = reg(th, GREG_RSP);

        if (i == T_SPIN) {
            assert_int_equal(th->regs_valid, 0);
            continue;
        }
        assert_int_equal(th->regs_valid, 1);
        code = gc_procmaps_find(&maps, rip);
        assert_non_null(code);
        assert_true(code->perms & GC_PROCMAP_EXEC);
        stack = gc_procmaps_find(&maps, rsp);
        assert_non_null(stack);
        assert_true(stack->perms & GC_PROCMAP_WRITE);
        if (i == T_MAIN) {
            assert_string_equal(stack->path, "[stack]");
        } else {
            assert_true(rsp >= sh->stack_lo[i]);
            assert_true(rsp < sh->stack_hi[i]);
        }
        /* XSAVE area: at least the legacy region and the header; mxcsr in FP regs agrees. */
        assert_non_null(th->xstate);
        assert_true(th->xstate_size >= 576);
        assert_memory_equal(th->xstate + 24, th->fpregs + 24, 4);
    }
    gc_procmaps_free(&maps);

    /* Now the kept thread too. */
    assert_int_equal(gc_tracee_stop_thread(t, sh->tid[T_SPIN], 10000, &d), GPUCORE_OK);
    assert_int_equal(thread_state(c.pid, sh->tid[T_SPIN]), 't');
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    assert_int_equal(thread_by_tid(t, sh->tid[T_SPIN])->regs_valid, 1);
    assert_int_equal(gc_tracee_stop_thread(t, 1, 100, &d), GPUCORE_E_NOTFOUND);

    /* Resume: nobody stays in a tracing stop, and the spinner moves again. */
    assert_int_equal(gc_tracee_resume_all(t, &d), GPUCORE_OK);
    for (int i = 0; i < NT; i++) {
        assert_int_equal(thread_by_tid(t, sh->tid[i])->stopped, 0);
        while (thread_state(c.pid, sh->tid[i]) == 't')
            nap_ms(1);
    }
    before = sh->spin_counter;
    while (sh->spin_counter == before)
        nap_ms(1);

    /* A signal sent while traced is delivered: poll sees its stop and re-injects it. */
    assert_int_equal(kill(c.pid, SIGUSR1), 0);
    for (;;) {
        enum gc_tracee_event ev;

        assert_int_equal(gc_tracee_poll(t, -1, &ev, &d), GPUCORE_OK);
        if (ev == GC_TRACEE_HANDLED)
            break;
        assert_int_equal(ev, GC_TRACEE_NOTHING);
    }

    gc_tracee_detach(t);
    /* Untraced again: no tracer in /proc. */
    status = finish_child(&c);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 11);
}

/* One thread resumed alone keeps the registers it was stopped with (the capture's record of it
 * when its stack was read); fetch_missing_regs reads only threads without registers. */
static void test_resume_thread_keeps_regs(void **state)
{
    struct child c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    uint8_t saved[GC_TRACEE_GREGS_SIZE];
    const struct gc_tracee_thread *spin;
    uint64_t before;
    int status;

    (void)state;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_stop_all(t, &sh->tid[T_SPIN], 1, 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_missing_regs(t, &d), GPUCORE_OK);
    spin = thread_by_tid(t, sh->tid[T_SPIN]);
    assert_int_equal(spin->regs_valid, 0); /* running: nothing to read */
    assert_int_equal(gc_tracee_stop_thread(t, sh->tid[T_SPIN], 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_missing_regs(t, &d), GPUCORE_OK);
    spin = thread_by_tid(t, sh->tid[T_SPIN]);
    assert_int_equal(spin->regs_valid, 1);
    memcpy(saved, spin->gregs, sizeof(saved));

    /* Alone it runs again (its counter moves), the others stay stopped, its registers stay. */
    assert_int_equal(gc_tracee_resume_thread(t, sh->tid[T_SPIN], &d), GPUCORE_OK);
    spin = thread_by_tid(t, sh->tid[T_SPIN]);
    assert_int_equal(spin->stopped, 0);
    assert_int_equal(spin->regs_valid, 1);
    before = sh->spin_counter;
    while (sh->spin_counter == before)
        nap_ms(1);
    for (int i = 0; i < NT; i++)
        if (i != T_SPIN)
            assert_int_equal(thread_state(c.pid, sh->tid[i]), 't');
    assert_int_equal(gc_tracee_resume_thread(t, sh->tid[T_SPIN], &d), GPUCORE_E_NOTFOUND);
    assert_int_equal(gc_tracee_resume_thread(t, 1, &d), GPUCORE_E_NOTFOUND);

    /* Stopped again: fetch_missing_regs keeps the record; fetch_regs reads it anew. */
    assert_int_equal(gc_tracee_stop_thread(t, sh->tid[T_SPIN], 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_missing_regs(t, &d), GPUCORE_OK);
    spin = thread_by_tid(t, sh->tid[T_SPIN]);
    assert_memory_equal(spin->gregs, saved, sizeof(saved));
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    assert_int_equal(thread_by_tid(t, sh->tid[T_SPIN])->regs_valid, 1);

    gc_tracee_detach(t);
    status = finish_child(&c);
    assert_true(WIFEXITED(status));
}

static void test_clone_and_thread_exit(void **state)
{
    struct child c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    enum gc_tracee_event ev;
    char r;
    int status;

    (void)state;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_poll(t, 0, &ev, &d), GPUCORE_OK);
    assert_int_equal(ev, GC_TRACEE_NOTHING);

    /* A thread created while traced is auto-attached and listed. */
    assert_int_equal(write(c.cmd, "c", 1), 1);
    while (gc_tracee_thread_count(t) < NT + 1) {
        assert_int_equal(gc_tracee_poll(t, 50, &ev, &d), GPUCORE_OK);
        assert_int_not_equal(ev, GC_TRACEE_EXITED);
    }
    while (!sh->new_tid) { /* its first stop is handled by poll too */
        assert_int_equal(gc_tracee_poll(t, 50, &ev, &d), GPUCORE_OK);
        assert_int_not_equal(ev, GC_TRACEE_EXITED);
    }
    assert_non_null(thread_by_tid(t, sh->new_tid));
    assert_int_equal(gc_tracee_thread(t, 0)->tid, c.pid);

    /* It is stopped with the others, and resumed. */
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_int_equal(thread_state(c.pid, sh->new_tid), 't');
    assert_int_equal(gc_tracee_resume_all(t, &d), GPUCORE_OK);

    /* Its end is noticed: it leaves the list. */
    sh->release_new = 1;
    while (gc_tracee_thread_count(t) > NT) {
        assert_int_equal(gc_tracee_poll(t, 50, &ev, &d), GPUCORE_OK);
        assert_int_not_equal(ev, GC_TRACEE_EXITED);
    }
    assert_null(find_thread(t, sh->new_tid));
    assert_int_equal(read(c.reply, &r, 1), 1);
    assert_int_equal(r, 'j');

    /* A process cloned off the target is let go, never listed as a thread. */
    assert_int_equal(write(c.cmd, "p", 1), 1);
    for (;;) {
        struct pollfd pfd = { c.reply, POLLIN, 0 };

        assert_int_equal(gc_tracee_poll(t, 20, &ev, &d), GPUCORE_OK);
        assert_int_not_equal(ev, GC_TRACEE_EXITED);
        assert_int_equal(gc_tracee_thread_count(t), NT);
        if (poll(&pfd, 1, 0) == 1)
            break;
    }
    assert_int_equal(read(c.reply, &r, 1), 1);
    assert_int_equal(r, 'p');

    gc_tracee_detach(t);
    status = finish_child(&c);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 10);
}

/* A child that exits while traced: poll reports it with the child's status. */
static void test_exit_while_traced(void **state)
{
    struct child c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    enum gc_tracee_event ev = GC_TRACEE_NOTHING;

    (void)state;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(write(c.cmd, "q", 1), 1);
    while (ev != GC_TRACEE_EXITED)
        assert_int_equal(gc_tracee_poll(t, -1, &ev, &d), GPUCORE_OK);
    assert_true(WIFEXITED(gc_tracee_exit_status(t)));
    assert_int_equal(WEXITSTATUS(gc_tracee_exit_status(t)), 10);
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 1000, &d), GPUCORE_E_NOTFOUND);
    gc_tracee_detach(t);
    close(c.cmd);
    close(c.reply);
}

/* Job control while traced: SIGSTOP stops the whole process (group-stop, resumed with
 * PTRACE_LISTEN so it stays stopped), SIGCONT continues it; stop_all works in between. */
static void test_group_stop(void **state)
{
    struct child c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    enum gc_tracee_event ev;
    uint64_t before;
    int status, all_stopped = 0;

    (void)state;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(kill(c.pid, SIGSTOP), 0);
    /* Every thread reports its group-stop; none is resumed to run. */
    while (!all_stopped) {
        assert_int_equal(gc_tracee_poll(t, 50, &ev, &d), GPUCORE_OK);
        assert_int_not_equal(ev, GC_TRACEE_EXITED);
        all_stopped = 1;
        for (int i = 0; i < NT; i++)
            all_stopped &= thread_state(c.pid, sh->tid[i]) == 't';
    }
    before = sh->spin_counter;
    assert_int_equal(gc_tracee_poll(t, 100, &ev, &d), GPUCORE_OK);
    assert_int_equal(sh->spin_counter, before); /* still stopped after more polling */

    /* A capture in the middle of it, then back to the group-stop. */
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    for (int i = 0; i < NT; i++)
        assert_int_equal(thread_by_tid(t, sh->tid[i])->regs_valid, 1);
    assert_int_equal(gc_tracee_resume_all(t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_poll(t, 100, &ev, &d), GPUCORE_OK);
    assert_int_equal(sh->spin_counter, before);

    /* SIGCONT: running again. */
    assert_int_equal(kill(c.pid, SIGCONT), 0);
    while (sh->spin_counter == before) {
        assert_int_equal(gc_tracee_poll(t, 50, &ev, &d), GPUCORE_OK);
        assert_int_not_equal(ev, GC_TRACEE_EXITED);
    }
    gc_tracee_detach(t);
    status = finish_child(&c);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 10);
}

static void test_seize_errors(void **state)
{
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_tracee_seize(0x7ffffff0, &t, &d), GPUCORE_E_NOTFOUND);
    assert_null(t);
    assert_int_equal(gc_tracee_seize(-1, &t, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_tracee_seize(getpid(), NULL, &d), GPUCORE_E_INVAL);
    /* A process cannot trace itself. */
    assert_int_equal(gc_tracee_seize(getpid(), &t, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "cannot trace process"));
    gc_tracee_detach(NULL);
}

static void test_spawn_missing(void **state)
{
    char *argv[] = { (char *)"/nonexistent/program", (char *)"x", NULL };
    char *argv2[] = { (char *)"gpucore-no-such-program-in-path", NULL };
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_tracee_spawn(argv, NULL, &t, &d), GPUCORE_E_NOTFOUND);
    assert_null(t);
    assert_string_equal(d.message,
                        "cannot execute /nonexistent/program: No such file or directory");
    assert_int_equal(gc_tracee_spawn(argv2, NULL, &t, &d), GPUCORE_E_NOTFOUND);
    assert_string_equal(d.message, "cannot execute gpucore-no-such-program-in-path: No such "
                                   "file or directory");
    /* A directory is not executable. */
    argv[0] = (char *)"/";
    assert_int_equal(gc_tracee_spawn(argv, NULL, &t, &d), GPUCORE_E_NOTFOUND);
    assert_string_equal(d.message, "cannot execute /: Permission denied");
    /* No child is left behind. */
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_spawn_wait_exit(void **state)
{
    char *argv[] = { (char *)"sh", (char *)"-c", (char *)"kill -USR1 $$; exit $X", NULL };
    char *envp[] = { (char *)"X=7", (char *)"PATH=/usr/bin:/bin", NULL };
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    int status = -1;

    (void)state;
    /* The shell ignores nothing: SIGUSR1 kills it, re-injected by the tracer. */
    assert_int_equal(gc_tracee_spawn(argv, envp, &t, &d), GPUCORE_OK);
    assert_true(gc_tracee_pid(t) > 0);
    assert_int_equal(gc_tracee_wait_exit(t, &status, &d), GPUCORE_OK);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGUSR1);
    gc_tracee_detach(t);

    argv[2] = (char *)"exit $X";
    assert_int_equal(gc_tracee_spawn(argv, envp, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_wait_exit(t, &status, &d), GPUCORE_OK);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    assert_int_equal(gc_tracee_exit_status(t), status);
    gc_tracee_detach(t);
}

static volatile sig_atomic_t sigints;

static void on_sigint(int sig)
{
    (void)sig;
    sigints++;
}

static void test_poll_eintr(void **state)
{
    struct child c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    struct sigaction sa, old;
    enum gc_tracee_event ev;
    pid_t self = getpid(), pester;
    int status;

    (void)state;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint; /* no SA_RESTART, as gpucore installs it */
    assert_int_equal(sigaction(SIGINT, &sa, &old), 0);
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    /* A helper sends SIGINT to this process until it is killed: whenever poll blocks, the
     * next one interrupts it. */
    pester = fork();
    assert_true(pester >= 0);
    if (pester == 0) {
        for (;;) {
            kill(self, SIGINT);
            nap_ms(20);
        }
    }
    assert_int_equal(gc_tracee_poll(t, -1, &ev, &d), GPUCORE_E_INTR);
    assert_int_equal(d.status, GPUCORE_E_INTR);
    assert_true(sigints > 0);
    /* With a timeout too. */
    assert_int_equal(gc_tracee_poll(t, 100000, &ev, &d), GPUCORE_E_INTR);
    kill(pester, SIGKILL);
    assert_int_equal(waitpid(pester, &status, 0), pester);
    assert_int_equal(sigaction(SIGINT, &old, NULL), 0);

    gc_tracee_detach(t);
    status = finish_child(&c);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 10);
}

int main(void)
{
    pid_t probe = fork();
    int can;

    if (probe == 0) {
        pause();
        _exit(0);
    }
    can = ptrace(PTRACE_SEIZE, probe, NULL, NULL) == 0;
    kill(probe, SIGKILL);
    waitpid(probe, NULL, 0);
    if (!can) {
        printf("skipped: ptrace not permitted here\n");
        return 77;
    }
    signal(SIGPIPE, SIG_IGN); /* a dead child shows as a failed assertion, not SIGPIPE */
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seize_stop_regs_resume_detach),
        cmocka_unit_test(test_resume_thread_keeps_regs),
        cmocka_unit_test(test_clone_and_thread_exit),
        cmocka_unit_test(test_exit_while_traced),
        cmocka_unit_test(test_group_stop),
        cmocka_unit_test(test_seize_errors),
        cmocka_unit_test(test_spawn_missing),
        cmocka_unit_test(test_spawn_wait_exit),
        cmocka_unit_test(test_poll_eintr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
