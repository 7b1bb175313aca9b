/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-hook.so: automatic GPU core capture from inside any ROCm process, loaded by the
 * runtime through HSA_TOOLS_LIB (schema/gc_hsa_tools.h describes the interface).
 *
 * OnLoad checks the tables, replaces hsa_queue_create (and hsa_amd_queue_intercept_create
 * where the table has it) with wrappers that give every queue an error callback of the hook's,
 * and registers a GPU memory-fault system-event handler. On the first GPU error of the process
 * (a memory fault, or an error reported on a queue) the hook runs the capture helper,
 *
 *     $GPUCORE_BIN|gpucore capture $GPUCORE_OPTIONS [-o $GPUCORE_OUTPUT] --trigger T PID
 *
 * (hook_args.h), allows it to trace this process (PR_SET_PTRACER), waits for it at most
 * $GPUCORE_HOOK_TIMEOUT seconds (default 120; the helper is told too and ends itself then,
 * since while it captures, every thread of this process, the waiting one included, is
 * stopped), then returns to the runtime exactly as the
 * runtime would have gone on without the hook: the queue's own callback (if any) is called
 * with the same arguments; the memory-fault handler returns an error status, so the runtime
 * still prints its message and aborts. A later error: one line, no second capture. A capture
 * that cannot be made (no gpucore, the helper failing, the deadline) changes nothing but one
 * line on stderr.
 *
 * Constraints of code that runs inside arbitrary programs: libc only; no constructors; no heap
 * (fixed static storage); the helper is started with posix_spawn (never a plain fork of a
 * multithreaded process); its end is awaited on a pidfd, so a program that ignores SIGCHLD or
 * reaps children itself does not confuse it; no file the program or a core names is opened.
 * Exported: OnLoad and OnUnload only (hook.map).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_hsa_tools.h"
#include "hook_args.h"

#define HOOK_API __attribute__((visibility("default")))

/* Queues whose callback the hook wraps; more are created with their own callback only. */
#define HOOK_MAX_QUEUES 4096u

extern char **environ;

struct queue_slot {
    gc_hsa_queue_callback_t callback; /* the program's, NULL if it gave none */
    void *data;
};

static struct {
    gc_hsa_queue_create_fn queue_create;     /* the runtime's */
    gc_hsa_queue_create_fn intercept_create; /* the runtime's, NULL if not wrapped */
    struct queue_slot slots[HOOK_MAX_QUEUES];
    unsigned nslots;          /* atomic */
    int slots_full_said;      /* atomic */
    int captured;             /* atomic: the first error took the capture */
    int unloaded;             /* atomic */
} hook;

/* One line on stderr, written at once. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n = snprintf(line, sizeof(line), "gpucore-hook: ");

    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    while (write(STDERR_FILENO, line, (size_t)n) < 0 && errno == EINTR) {
    }
}

static uint64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * Wait for the helper @p pid (a child of this process) until it ends or @p deadline_ms passes.
 * 1 ended (*ret_status its wait status, or -1 if someone else reaped it), 0 deadline.
 */
static int wait_helper(pid_t pid, int pidfd, uint64_t deadline_ms, int *ret_status)
{
    *ret_status = -1;
    for (;;) {
        uint64_t now = mono_ms();
        int left = now >= deadline_ms ? 0 : (int)(deadline_ms - now > 1000 ? 1000
                                                                              : deadline_ms - now);
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        /* WNOWAIT first? No: the helper is ours; reap it. ECHILD: the program reaps its
           children itself or ignores SIGCHLD; then the pidfd (or kill 0) tells the end. */
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG) == 0) {
            if (si.si_pid == pid) {
                *ret_status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8
                                                       : (si.si_status & 0x7f);
                return 1;
            }
        } else if (errno == ECHILD) {
            if (pidfd >= 0) {
                struct pollfd p = { .fd = pidfd, .events = POLLIN };

                if (poll(&p, 1, 0) > 0)
                    return 1;
            } else if (kill(pid, 0) != 0 && errno == ESRCH) {
                return 1;
            }
        }
        if (left == 0)
            return 0;
        if (pidfd >= 0) {
            struct pollfd p = { .fd = pidfd, .events = POLLIN };

            (void)poll(&p, 1, left);
        } else {
            struct timespec ts = { 0, 20 * 1000000L };

            nanosleep(&ts, NULL);
        }
    }
}

static void close_pipe(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    fds[0] = fds[1] = -1;
}

/* Run the capture helper on this process for @p trigger, @p what describing the error. */
static void capture(const char *trigger, const char *what)
{
    static struct gc_hook_cmd cmd; /* one capture per process: static storage is enough */
    static char bin[4096];
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t fa;
    sigset_t none, all;
    long timeout_s = gc_hook_parse_timeout(getenv("GPUCORE_HOOK_TIMEOUT"));
    pid_t pid, self = getpid();
    int rc, pidfd, status, ready[2] = { -1, -1 };

    if (timeout_s < 0) {
        say("GPUCORE_HOOK_TIMEOUT='%s' is not a number of seconds in 1..%u; using %u",
            getenv("GPUCORE_HOOK_TIMEOUT"), GC_HOOK_TIMEOUT_MAX_S, GC_HOOK_TIMEOUT_S);
        timeout_s = GC_HOOK_TIMEOUT_S;
    }
    if (gc_hook_find_program(getenv("GPUCORE_BIN"), getenv("PATH"), bin, sizeof(bin)) != 0) {
        say("%s in process %ld: no core: gpucore not found (set GPUCORE_BIN or PATH)", what,
            (long)self);
        return;
    }
    /* The "ready" pipe: the helper waits for a byte on it before it stops this process, so
       that this thread is stopped back in the hook's own code, never on its way out of the
       clone3 system call posix_spawn made (no unwind information covers that instruction, so
       a debugger could not walk the error thread's stack from there). Without the pipe the
       helper goes on at once. */
    if (posix_spawn_file_actions_init(&fa) != 0)
        return;
    /* The pipe first: with stdin closed it may be descriptor 0. dup2 clears close-on-exec,
       even onto the same number. A pipe the helper would not get is not named to it: its
       descriptor 3 could then be one of this process's own. */
    if (pipe2(ready, O_CLOEXEC) != 0)
        ready[0] = ready[1] = -1;
    else if (posix_spawn_file_actions_adddup2(&fa, ready[0], GC_HOOK_READY_FD) != 0)
        close_pipe(ready);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    rc = gc_hook_build_cmd(&cmd, bin, getenv("GPUCORE_OPTIONS"), getenv("GPUCORE_OUTPUT"),
                           trigger, (pid_t)syscall(SYS_gettid), timeout_s,
                           ready[0] >= 0 ? GC_HOOK_READY_FD : -1, self);
    if (rc != GC_HOOK_ARGS_OK) {
        posix_spawn_file_actions_destroy(&fa);
        close_pipe(ready);
        say("%s in process %ld: no core: GPUCORE_OPTIONS or GPUCORE_OUTPUT too long (at most "
            "%u words, %u bytes)", what, (long)self, GC_HOOK_MAX_OPTION_WORDS,
            GC_HOOK_MAX_OPTIONS_LEN);
        return;
    }
    /* The helper starts with default signal handling and nothing blocked, whatever this
       thread has (an ignored SIGCHLD would break its own waits); stdin from /dev/null. */
    sigemptyset(&none);
    sigfillset(&all);
    if (posix_spawnattr_init(&attr) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        close_pipe(ready);
        return;
    }
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    rc = posix_spawn(&pid, cmd.argv[0], &fa, &attr, cmd.argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        close_pipe(ready);
        say("%s in process %ld: no core: cannot run %s: %s", what, (long)self, cmd.argv[0],
            strerror(rc));
        return;
    }
    /* Let the helper trace this process (Yama ptrace_scope 1 lets only a declared tracer
       trace a process that is not its descendant), then tell it to go on. Without the pipe
       it may try before this: it retries a refused attach for a while (--trigger). */
    (void)prctl(PR_SET_PTRACER, (unsigned long)pid, 0, 0, 0);
    if (ready[1] >= 0) {
        static const char go = 'g';

        while (write(ready[1], &go, 1) < 0 && errno == EINTR)
            ;
    }
    close_pipe(ready);
    pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (!wait_helper(pid, pidfd, mono_ms() + (uint64_t)timeout_s * 1000u, &status) ||
        (status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)) {
        /* Past the deadline: killed here, or (SIGALRM) it ended itself while this thread
           was stopped by it. The kernel lets the threads go when their tracer dies, and the
           driver disables debugging when its file is closed. */
        kill(pid, SIGKILL);
        (void)wait_helper(pid, pidfd, mono_ms() + 5000u, &status);
        say("%s in process %ld: no core: gpucore capture did not finish within %ld s "
            "(GPUCORE_HOOK_TIMEOUT); it was killed", what, (long)self, timeout_s);
    } else if (status != -1 && WIFSIGNALED(status)) {
        say("%s in process %ld: no core: gpucore capture was killed by signal %d", what,
            (long)self, WTERMSIG(status));
    } else if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        /* Its own line (above) says why; this one says what it means for the program. */
        say("%s in process %ld: no core: gpucore capture failed (exit status %d, its message "
            "is above)", what, (long)self, WEXITSTATUS(status));
    }
    /* A helper that exited 0 said itself what it wrote (one line on stderr). */
    (void)prctl(PR_SET_PTRACER, 0, 0, 0, 0);
    if (pidfd >= 0)
        close(pidfd);
}

/* Every GPU error goes through here: the first one is captured, later ones only said. */
static void on_error(const char *trigger, const char *what)
{
    if (__atomic_exchange_n(&hook.captured, 1, __ATOMIC_ACQ_REL)) {
        say("%s in process %ld: not captured: the hook captures the first GPU error of a "
            "process only", what, (long)getpid());
        return;
    }
    capture(trigger, what);
}

/* ---- the memory-fault handler -------------------------------------------------------------- */

static gc_hsa_status_t on_system_event(const struct gc_hsa_amd_event *event, void *data)
{
    char trigger[GC_HOOK_TRIGGER_MAX], what[96];

    (void)data;
    if (event && event->event_type == GC_HSA_AMD_GPU_MEMORY_FAULT_EVENT &&
        !__atomic_load_n(&hook.unloaded, __ATOMIC_ACQUIRE)) {
        uint64_t va = event->memory_fault.virtual_address;

        gc_hook_format_memory_fault(trigger, sizeof(trigger), va,
                                    event->memory_fault.fault_reason_mask);
        snprintf(what, sizeof(what), "GPU memory fault at 0x%" PRIx64, va);
        on_error(trigger, what);
    }
    /* Never SUCCESS: the runtime prints its message and aborts as it would without us. */
    return GC_HSA_STATUS_ERROR;
}

/* ---- queue error callbacks ----------------------------------------------------------------- */

static void on_queue_error(gc_hsa_status_t status, struct gc_hsa_queue *source, void *data)
{
    struct queue_slot *slot = data;
    char trigger[GC_HOOK_TRIGGER_MAX], what[96];

    if (!__atomic_load_n(&hook.unloaded, __ATOMIC_ACQUIRE)) {
        gc_hook_format_queue_error(trigger, sizeof(trigger), status);
        snprintf(what, sizeof(what), "GPU queue error 0x%" PRIx32, (uint32_t)status);
        on_error(trigger, what);
    }
    /* Then the program's own callback, with the same arguments; without one the runtime
       does nothing more, and neither do we. */
    if (slot->callback)
        slot->callback(status, source, slot->data);
}

/* Create a queue through @p create with the hook's callback in front of the program's. */
static gc_hsa_status_t create_wrapped(gc_hsa_queue_create_fn create, struct gc_hsa_agent agent,
                                      uint32_t size, uint32_t type,
                                      gc_hsa_queue_callback_t callback, void *data,
                                      uint32_t private_size, uint32_t group_size,
                                      struct gc_hsa_queue **queue)
{
    unsigned i = __atomic_fetch_add(&hook.nslots, 1u, __ATOMIC_ACQ_REL);

    if (i >= HOOK_MAX_QUEUES) {
        if (!__atomic_exchange_n(&hook.slots_full_said, 1, __ATOMIC_ACQ_REL))
            say("more than %u queues: errors of the later ones are not captured",
                HOOK_MAX_QUEUES);
        return create(agent, size, type, callback, data, private_size, group_size, queue);
    }
    hook.slots[i].callback = callback;
    hook.slots[i].data = data;
    return create(agent, size, type, on_queue_error, &hook.slots[i], private_size, group_size,
                  queue);
}

static gc_hsa_status_t hook_queue_create(struct gc_hsa_agent agent, uint32_t size, uint32_t type,
                                         gc_hsa_queue_callback_t callback, void *data,
                                         uint32_t private_size, uint32_t group_size,
                                         struct gc_hsa_queue **queue)
{
    return create_wrapped(hook.queue_create, agent, size, type, callback, data, private_size,
                          group_size, queue);
}

static gc_hsa_status_t hook_intercept_create(struct gc_hsa_agent agent, uint32_t size,
                                             uint32_t type, gc_hsa_queue_callback_t callback,
                                             void *data, uint32_t private_size,
                                             uint32_t group_size, struct gc_hsa_queue **queue)
{
    return create_wrapped(hook.intercept_create, agent, size, type, callback, data, private_size,
                          group_size, queue);
}

/* ---- the runtime's tables ------------------------------------------------------------------ */

/*
 * Where a slot the hook uses is, for each major version of the table holding it that the hook
 * knows (schema/gc_hsa_tools.h): one row per version, so a runtime whose table moved a slot
 * needs a row, not code. A table of a major not listed is not touched.
 */
struct slot_layout {
    uint32_t major;  /* the table's version.major_id */
    size_t offset;   /* of the slot (a pointer) from the table's start */
};

/* The root table's core_ and amd_ext_ (same place in every known major: 1 is ROCm 5's, 3
   ROCr 6.1's; 2 was not seen, so it is not claimed). */
static const struct slot_layout root_core_slots[] = {
    { GC_HSA_API_TABLE_MAJOR, offsetof(struct gc_hsa_api_table, core_) },
    { GC_HSA_ROOT_TABLE_MAJOR_ROCM6, offsetof(struct gc_hsa_api_table, core_) },
};
static const struct slot_layout root_amd_slots[] = {
    { GC_HSA_API_TABLE_MAJOR, offsetof(struct gc_hsa_api_table, amd_ext_) },
    { GC_HSA_ROOT_TABLE_MAJOR_ROCM6, offsetof(struct gc_hsa_api_table, amd_ext_) },
};
static const struct slot_layout queue_create_slots[] = {
    { GC_HSA_API_TABLE_MAJOR, offsetof(struct gc_hsa_core_table, hsa_queue_create_fn) },
    { GC_HSA_CORE_TABLE_MAJOR_ROCM6, offsetof(struct gc_hsa_core_table, hsa_queue_create_fn) },
};
static const struct slot_layout event_handler_slots[] = {
    { GC_HSA_API_TABLE_MAJOR,
      offsetof(struct gc_hsa_amd_ext_table, hsa_amd_register_system_event_handler_fn) },
    { GC_HSA_AMD_EXT_TABLE_MAJOR_ROCM6,
      offsetof(struct gc_hsa_amd_ext_table_v2, hsa_amd_register_system_event_handler_fn) },
};
static const struct slot_layout intercept_create_slots[] = {
    { GC_HSA_API_TABLE_MAJOR,
      offsetof(struct gc_hsa_amd_ext_table, hsa_amd_queue_intercept_create_fn) },
    { GC_HSA_AMD_EXT_TABLE_MAJOR_ROCM6,
      offsetof(struct gc_hsa_amd_ext_table_v2, hsa_amd_queue_intercept_create_fn) },
};
#define NSLOTS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The address of the slot of @p layouts in the table @p table (which starts with its version),
 * or NULL when the table is NULL, of a major none of @p layouts has, or built too small to
 * hold the slot (its minor_id is its size). The slot is read and written with memcpy: it
 * holds a data or a function pointer, both 8 bytes here.
 */
static unsigned char *find_slot(void *table, const struct slot_layout *layouts, size_t n)
{
    struct gc_hsa_api_table_version v;

    if (!table)
        return NULL;
    memcpy(&v, table, sizeof(v));
    for (size_t i = 0; i < n; i++)
        if (layouts[i].major == v.major_id)
            return v.minor_id >= layouts[i].offset + sizeof(void *)
                           ? (unsigned char *)table + layouts[i].offset
                           : NULL;
    return NULL;
}

/* A table's version, for the refusal line: major and size, 0 0 without a table. */
static struct gc_hsa_api_table_version table_version(const void *table)
{
    struct gc_hsa_api_table_version v = { 0 };

    if (table)
        memcpy(&v, table, sizeof(v));
    return v;
}

/* ---- entry points -------------------------------------------------------------------------- */

/*
 * Refuses (returns false: the runtime unloads the library and goes on, the program is not
 * affected) with one line when the tables are missing, of a major version the hook does not
 * know (the slot_layout rows above), or too small to hold hsa_queue_create and
 * hsa_amd_register_system_event_handler; nothing is changed in the tables then.
 */
HOOK_API bool OnLoad(struct gc_hsa_api_table *table, uint64_t runtime_version,
                     uint64_t failed_tool_count, const char *const *failed_tool_names);
HOOK_API bool OnLoad(struct gc_hsa_api_table *table, uint64_t runtime_version,
                     uint64_t failed_tool_count, const char *const *failed_tool_names)
{
    unsigned char *core_at = find_slot(table, root_core_slots, NSLOTS(root_core_slots));
    unsigned char *amd_at = find_slot(table, root_amd_slots, NSLOTS(root_amd_slots));
    unsigned char *create_at, *handler_at, *intercept_at;
    void *core = NULL, *amd = NULL;
    gc_hsa_queue_create_fn create = NULL, intercept = NULL;
    gc_hsa_amd_register_system_event_handler_fn register_handler = NULL;
    struct gc_hsa_api_table_version rv = table_version(table), cv, av;

    (void)runtime_version;
    (void)failed_tool_count;
    (void)failed_tool_names;
    if (!core_at || !amd_at) {
        say("not loaded: the runtime's API table (version %u, %u bytes) is not one this hook "
            "knows (version %u or %u, at least %zu bytes); no automatic capture",
            rv.major_id, rv.minor_id, GC_HSA_API_TABLE_MAJOR, GC_HSA_ROOT_TABLE_MAJOR_ROCM6,
            offsetof(struct gc_hsa_api_table, amd_ext_) + sizeof(void *));
        return false;
    }
    memcpy(&core, core_at, sizeof(core));
    memcpy(&amd, amd_at, sizeof(amd));
    create_at = find_slot(core, queue_create_slots, NSLOTS(queue_create_slots));
    handler_at = find_slot(amd, event_handler_slots, NSLOTS(event_handler_slots));
    intercept_at = find_slot(amd, intercept_create_slots, NSLOTS(intercept_create_slots));
    if (create_at)
        memcpy(&create, create_at, sizeof(create));
    if (handler_at)
        memcpy(&register_handler, handler_at, sizeof(register_handler));
    if (!create || !register_handler) {
        cv = table_version(core);
        av = table_version(amd);
        say("not loaded: the runtime's core or AMD extension table is too small or of another "
            "version (core %u/%u bytes, AMD %u/%u bytes); no automatic capture",
            cv.major_id, cv.minor_id, av.major_id, av.minor_id);
        return false;
    }
    if (register_handler(on_system_event, NULL) != GC_HSA_STATUS_SUCCESS) {
        say("not loaded: the runtime refused the memory-fault handler; no automatic capture");
        return false;
    }
    hook.queue_create = create;
    create = hook_queue_create;
    memcpy(create_at, &create, sizeof(create));
    if (intercept_at)
        memcpy(&intercept, intercept_at, sizeof(intercept));
    if (intercept) {
        hook.intercept_create = intercept;
        intercept = hook_intercept_create;
        memcpy(intercept_at, &intercept, sizeof(intercept));
    }
    return true;
}

/* The runtime is shutting down: errors reported from now on are passed through uncaptured. */
HOOK_API void OnUnload(void);
HOOK_API void OnUnload(void)
{
    __atomic_store_n(&hook.unloaded, 1, __ATOMIC_RELEASE);
}
