/* SPDX-License-Identifier: MIT */
/*
 * The capture pipeline (docs/design.md "Data flow"), in this order:
 *
 *   seize every thread (gc_tracee_seize; RUN: gc_tracee_spawn) -> open the driver session
 *   (RUN with the simulated driver: retried while the command lives, up to 30 s, since its
 *   socket appears only once the command is up) -> the driver's service threads ->
 *   [WATCH/RUN: ENABLE with the error exceptions in the mask, then wait on the event fd and
 *   ptrace for a raised exception, the target's exit or a signal; QUERY_DEBUG_EVENT until none,
 *   QUERY_EXCEPTION_INFO for a memory violation's address] -> stop every other thread ->
 *   [NOW: ENABLE with the same mask, so an error raised meanwhile is held for the debugger] ->
 *   runtime_state must be ENABLED for GPU state (otherwise a host-only core, with a warning
 *   saying why) -> device and queue snapshots -> SUSPEND every queue (per-queue failures are
 *   warnings) -> GPU mappings -> the plan (plan.h) -> the writer (unified, compression and
 *   size budget from the options) -> PT_LOADs: state tier, host memory (gc_host_select without
 *   the GPU mappings and without what the GPU tiers write), scratch, referenced, all, up to the
 *   requested tier; tiers above it, host mappings left out by the kernel's rules and
 *   doorbell/MMIO mappings are recorded as skipped -> RESUME, DISABLE, close the session (the
 *   target's runtime now gets the held exception) -> stop the service threads, fetch
 *   registers -> notes: host notes, AMDGPU, CAPTURE_META, CODE_OBJECTS, ALLOC_MAP -> finish
 *   (publish) -> resume the threads; detach (RUN: wait for the command's end first).
 *
 * Target memory is read with gc_kfd_read_memory inside the writer's read callback; unreadable
 * pages are reported to the writer and land in the manifest as UNREADABLE. The deadline is
 * checked between segments, which are written in pieces of at most 4 MiB when a deadline is
 * set (64 MiB otherwise); once it passes, gpucore_writer_stop(GPUCORE_REASON_DEADLINE) and the
 * core is finished marked truncated. The size budget is the writer's (max_bytes).
 *
 * Queues are resumed and debugging disabled on every exit path: errors, budget exhaustion, an
 * interruption (the caller's flag, set from a SIGINT/SIGTERM handler), the target exiting.
 * Nothing is published under the final name unless it is a valid core (possibly marked
 * truncated).
 *
 * Three ways in (the `gpucore capture | watch | run` commands):
 *   GC_CAPTURE_NOW    capture @p pid at once (a hang, or on demand)
 *   GC_CAPTURE_WATCH  attach to @p pid, wait for its first queue error or memory violation,
 *                     capture, let it continue to its own error handling
 *   GC_CAPTURE_RUN    start @p argv and follow its whole process tree (run_tree.c): each
 *                     process that makes the KFD runtime-enable ioctl is armed as WATCH arms
 *                     one; each that raises a GPU error is captured once (its own core, the
 *                     pattern expanded for its pid); report the command's exit status
 *
 * RUN in detail. The command is forked untraced and without any filter; gpucore becomes a child
 * subreaper, so the whole tree stays below it. A process of the tree is found to be a GPU
 * process when it opens the driver's device file (an inotify IN_OPEN watch on /dev/kfd, or on a
 * private stand-in file for the simulated driver, passed as GPUCORE_SIM_KFD), by a scan of the
 * tree's /proc/PID/fd links, repeated on a short backoff since the kernel tells of the open
 * before the descriptor is installed. Only such a process is traced (every thread seized, with
 * clone and exec events): a driver session is opened and debugging enabled with the error
 * exceptions and EC_PROCESS_RUNTIME; a runtime that enables itself afterwards is held by the
 * driver until gpucore answers (SEND_RUNTIME_EVENT), which it does at once. When its event fd
 * says an error was raised, it alone is captured (the others run on; only the statuses they
 * report wait), its runtime is handed the exception (DISABLE), and 100 ms later it is armed
 * again so that a further exception is recorded (tree_event AGAIN), not captured. A process
 * another tracer has (a debugger of the tree) is left alone (tree_event DEBUGGED). A failure
 * for one process (its driver session refused, its capture failed) lets go of that process
 * only (tree_event FAILED). An exec disarms and lets go of the process (its runtime is gone).
 * The command's end, the caller's flag or a failure of the loop disarms every process and lets
 * go of every one still traced (tree_event LEFT counts the tree's processes that still run).
 * Nothing stays in a process let go of. Limits: a debugger cannot attach to a process gpucore
 * has armed (the kernel allows one tracer: EPERM, as for any traced process); a runtime older
 * than KFD 1.13 has no debug interface and is never armed; a process that opens the driver
 * more than TREE_SCAN_MAX_FDS descriptors deep is not found.
 *
 * Internal to capture; the CLI is its only caller. No printing except through the progress
 * callback.
 */
#ifndef GC_CAPTURE_CAPTURE_H
#define GC_CAPTURE_CAPTURE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gpucore/status.h>

#include "kfd.h"
#include "kfd_topology.h"

enum gc_capture_mode {
    GC_CAPTURE_NOW = 0,
    GC_CAPTURE_WATCH = 1,
    GC_CAPTURE_RUN = 2,
};

/* What the progress callback is told. Valid for the call only. */
struct gc_capture_progress {
    const char *phase;      /* short description: "suspending 2 queues", "scratch tier"... */
    const char *tier;       /* while memory is written, what: "state", "host", "scratch",
                               "referenced", "all"; NULL before and after */
    uint64_t bytes_written; /* target memory bytes read into the core so far (before any
                               compression; unreadable and skipped bytes not counted) */
    uint64_t bytes_planned; /* target memory the capture means to write: the GPU tiers asked
                               for and the host memory selected, known once memory writing
                               begins (0 before, and for a capture that writes none). A
                               budget, the deadline or unreadable pages leave bytes_written
                               below it */
    int has_deadline;       /* a deadline is running (set, and the capture proper began) */
    uint64_t deadline_left_ns; /* with has_deadline: time left, 0 once it passed (the core is
                               being cut) */
    int new_phase;          /* 1 at a phase change, 0 for an update (bytes or time) */
};

/*
 * NOW: the error that made someone ask for this capture, when it happened before the capture
 * began (the runtime hook, libgpucore-hook.so, passes it with --trigger). The core records it
 * as its trigger; and when the driver holds no record of any exception (the kernel records
 * exceptions only for a process that already had a debugger, so one raised before ENABLE is
 * not in the snapshots or QUERY_DEBUG_EVENT) it is also the core's exception.
 */
struct gc_capture_trigger {
    uint32_t trigger;        /* GPUCORE_TRIGGER_QUEUE_ERROR or _MEMORY_VIOLATION */
    uint32_t exception_code; /* enum kfd_dbg_trap_exception_code, 0 = not known */
    uint64_t fault_va;       /* memory violation: the faulting address, 0 = not known */
    uint32_t fault_reasons;  /* memory violation: GPUCORE_FAULT_* bits, 0 = not known */
    pid_t error_thread;      /* the target's thread the runtime reported the error on (the
                                hook's calling thread, --error-thread), 0 = not known. If it is
                                one of the target's threads when they are stopped, the core
                                records it (CAPTURE_META error_thread) and writes it first in
                                the host notes; otherwise a warning, and it is not recorded */
};

/* RUN: what happened to one process of the command's tree (gc_capture_opts.tree_event). */
enum gc_capture_tree_kind {
    GC_CAPTURE_TREE_CORE = 0,    /* a core of pid was written: result (path, pid, exe...) */
    GC_CAPTURE_TREE_FAILED,      /* arming or capturing pid failed (message; result set when a
                                    capture was under way): pid was let go of and runs on
                                    untraced, nothing armed in it */
    GC_CAPTURE_TREE_AGAIN,       /* a GPU exception (exception_code) in pid, which was captured
                                    already: recorded, handed to its runtime, not captured */
    GC_CAPTURE_TREE_DEBUGGED,    /* pid opened the GPU driver while being debugged by other
                                    (its tracer): left alone, not armed */
    GC_CAPTURE_TREE_LEFT,        /* the command ended while count processes of its tree still
                                    ran: let go of, they run on untraced */
    GC_CAPTURE_TREE_NOWATCH,     /* the driver's device file cannot be watched for opens
                                    (message): nothing is armed, or the tree is looked at
                                    periodically instead, as the message says */
    GC_CAPTURE_TREE_NOTICE,      /* before the command starts: what will not be captured as
                                    asked (message: no driver, the output name taken, its
                                    directory missing); the command is started all the same */
    GC_CAPTURE_TREE_SIGNALLED,   /* a stop signal (sig) to gpucore was passed on to count
                                    processes of the tree (the command, pid, among them unless
                                    from_terminal) */
    GC_CAPTURE_TREE_KILLED,      /* after a signal, the command ended while count processes of
                                    its tree still ran GC_CAPTURE_TREE_KILL_GRACE_MS later:
                                    killed (SIGKILL) */
    GC_CAPTURE_TREE_ABANDONED,   /* a stop signal (sig) came while pid was being captured: the
                                    capture was abandoned, nothing written (no partial file),
                                    its queues resumed, debugging disabled (its runtime gets
                                    the exception), its threads resumed */
};

struct gc_capture_tree_event {
    enum gc_capture_tree_kind kind;
    pid_t pid;
    char comm[16];                 /* pid's comm, "" if unknown */
    pid_t other;                   /* DEBUGGED: the debugger (its tracer) */
    char other_comm[16];
    uint32_t exception_code;       /* AGAIN */
    uint32_t count;                /* LEFT, SIGNALLED, KILLED */
    int sig;                       /* SIGNALLED, ABANDONED */
    int from_terminal;             /* SIGNALLED: the command had the signal from the terminal
                                      (a ^C or ^\ to its process group), not sent again */
    int is_command;                /* pid is the command itself */
    int ended;                     /* FAILED: pid ended during the capture (not let go of) */
    const char *message;           /* FAILED, NOWATCH, NOTICE: one sentence; else NULL */
    const struct gc_capture_result *result; /* CORE, FAILED (may be NULL) */
};

#define GC_CAPTURE_TICK_MS 50u /* the waits' time slice: the progress callback's idle period */
/* RUN, after a stop signal: how long the processes of the tree still running when the command
   has ended may take to end on that signal before they are killed. What `docker stop` and
   `systemctl stop` give a service is longer (10 s, 90 s); a process of a job that got the
   signal meant for the job has no reason to outlive it by more. */
#define GC_CAPTURE_TREE_KILL_GRACE_MS 5000u

struct gc_capture_opts {
    enum gc_capture_mode mode;
    pid_t pid;                 /* NOW, WATCH */
    char *const *argv;         /* RUN: NULL-terminated */
    struct gc_kfd_open_opts kfd;
    const char *output_pattern; /* -o; NULL = "gpucore.%p" (see gc_capture_expand_path) */
    uint32_t tier;             /* GPUCORE_TIER_*; default REFERENCED */
    uint64_t max_size;         /* the core file's apparent size (st_size, holes included;
                                  compressed bytes with compress), 0 = none; at least
                                  GPUCORE_WRITER_MIN_BUDGET */
    uint64_t deadline_ms;      /* 0 = none; counted from the start of the capture proper */
    int compress;              /* 0 plain; 1 zstd at compress_level (0 = 3) */
    int32_t compress_level;
    uint32_t threads;          /* compression threads, 0 = number of online CPUs (max 8) */
    int redact;                /* withhold user data (docs/privacy.md): the referenced and all
                                  tiers, kernel-argument values that are not pointers, host
                                  memory but thread stacks (without the argument and
                                  environment strings), read-only file mappings and the
                                  dynamic linker's chain; the command line but argv[0] in the
                                  metadata and psinfo. Ranges withheld are in the manifest as
                                  SKIPPED with reason REDACTED; the manifest has
                                  GPUCORE_MANIFEST_REDACTED */
    int no_host_memory;        /* host memory: thread stacks only (the rest SKIPPED, reason
                                  POLICY; GPUCORE_MANIFEST_NO_HOST_MEMORY) */
    const char *options_text;  /* the command line options, recorded in the metadata */
    const struct gc_capture_trigger *trigger; /* NOW: see above; NULL = on demand */
    uint32_t seize_retry_ms;   /* NOW, WATCH: retry an attach refused with EPERM this long (the
                                  hook's helper may try before the target declared it its
                                  ptracer); 0 = fail at once */
    volatile sig_atomic_t *interrupted; /* set non-zero by the caller's signal handler: the
                                 capture is abandoned. RUN, once the command is started: the
                                 signal's number; the tree supervisor passes it on to every
                                 process of the tree it follows (and SIGCONT, for one stopped by
                                 job control), zeroes the flag, and waits for the command's end
                                 (each further signal is passed on the same way); then the
                                 processes of the tree still running are given
                                 GC_CAPTURE_TREE_KILL_GRACE_MS to end and killed (SIGKILL),
                                 unless leave_tree. res->signal is the first signal */
    volatile sig_atomic_t *interrupted_by_kernel; /* RUN: non-zero when the signal came from
                                 the kernel (si_code SI_KERNEL: a terminal's ^C or ^\, sent to
                                 its whole foreground process group): a SIGINT or SIGQUIT is then
                                 not passed to the processes of gpucore's own process group,
                                 which had it already. NULL = never */
    int leave_tree;            /* RUN: a stop signal goes to the command only, and the rest of
                                  the tree is let go of, untraced, to run on (--leave-tree) */
    /* Progress: called at each new phase (new_phase 1); while memory is written after every
     * piece (at most 1 MiB) the writer pulls through its read callback; and from the waits
     * that take time slices (waiting for the GPU exception, for the simulated driver's
     * socket, for a refused attach to be allowed): new_phase 0, at least every
     * GC_CAPTURE_TICK_MS while the capture waits there, and up to many times a second (the
     * callee throttles what it shows). Not during one blocking driver call (a suspend) or
     * thread stop. NULL = none: then nothing is counted or formatted. */
    void (*progress)(void *user, const struct gc_capture_progress *p);
    void *progress_user;
    /* RUN: told of every core written and of every process let go of, as it happens (valid
     * for the call only). NULL = not told. */
    void (*tree_event)(void *user, const struct gc_capture_tree_event *ev);
    void *tree_event_user;
};

#define GC_CAPTURE_REASONS 8u /* GPUCORE_REASON_* values counted in gc_capture_result */

struct gc_capture_result {
    char path[PATH_MAX];      /* the core written ("" if none) */
    pid_t pid;                /* the target (RUN: the command's pid once started) */
    char exe[PATH_MAX];       /* its executable (/proc/PID/exe) when the core was written; ""
                                 if unknown */
    int written;              /* 1 if a core was published */
    uint64_t file_bytes;
    uint32_t waves, faulting_waves, queues, agents;
    uint32_t tiers_written;   /* highest tier written completely + 1 (0 = none complete) */
    uint64_t skipped_bytes;   /* bytes left out by the tier, a budget or a failed read: the sum
                                 of skipped_by_reason[TIER, BUDGET, DEADLINE, IO_ERROR] */
    uint64_t skipped_by_reason[GC_CAPTURE_REASONS]; /* by GPUCORE_REASON_*; POLICY and SPECIAL
                                 count the host and device mappings the rules leave out */
    int truncated;
    uint32_t truncation_reason; /* GPUCORE_REASON_* */
    uint64_t duration_ns;
    uint32_t trigger;         /* GPUCORE_TRIGGER_* */
    pid_t error_thread;       /* NOW: the trigger's error_thread as recorded in the core (a
                                 thread of the target), 0 = none recorded */
    int exited;               /* RUN/WATCH: the target exited; status below */
    int exit_status;          /* wait status of the command (RUN) */
    int running;              /* RUN: the command was started and runs on, detached and not
                                 waited for (interrupted, a failure after it was started):
                                 the caller waits for it (waitpid(pid)), it is its child */
    uint32_t nwarnings;       /* plan and pipeline warnings (queues that failed to suspend,
                                 GPU state left out...) */
    char warning[256];        /* the first of them, one sentence ("" if none) */
    uint32_t exception_code;  /* RUN/WATCH: first exception code seen (enum
                                 kfd_dbg_trap_exception_code), 0 = none */
    uint32_t cores;           /* RUN: cores written in the whole tree (each told through
                                 tree_event; written stays 0) */
    int signal;               /* RUN: the first stop signal passed on to the tree, 0 = none */
    uint32_t failed;          /* RUN: captures that failed or were abandoned (each told through
                                 tree_event, FAILED with a result or ABANDONED) */
    int over_budget;          /* failed with GPUCORE_E_LIMIT because max_size is below what the
                                 core's own structure (ELF header, program headers, notes)
                                 needs; the message names the bytes */
};

/*
 * Run the pipeline. @p ret is always filled (zeroed first). RUN, whatever the status: if pid is
 * 0 nothing was started (a failure, or the flag set, before the command was started);
 * otherwise either exited is 1 (exit_status says how the command ended) or running is 1 (it
 * runs on detached; the caller waits for it): gpucore never leaves a process of the tree
 * traced and never stops one. RUN returns once the command has ended (or the flag is set, or
 * the loop failed); the cores written are told through tree_event one by one and counted in
 * cores (written stays 0); OK means the command ended, whatever it raised.
 * @retval GPUCORE_OK          a core was written (result says whether truncated), or, for RUN
 *                             and WATCH, the target exited without a GPU error (written 0)
 * @retval GPUCORE_E_NODEV     no driver (the message is the one sentence of gc_kfd_open);
 *                             never for RUN, which starts the command all the same and tells
 *                             it (tree_event NOTICE)
 * @retval GPUCORE_E_PERM      ptrace or the driver refused
 * @retval GPUCORE_E_NOTFOUND  no such process, or it exited during the capture
 * @retval GPUCORE_E_INTR      interrupted (the flag was set) before the core was published:
 *                             nothing is written
 * @retval GPUCORE_E_LIMIT     a thread did not stop within 10 s, or max_size is below what the
 *                             core's headers and notes need (over_budget set; nothing written)
 * @retval GPUCORE_E_IO        a driver operation failed, or writing the core failed (ENOSPC...)
 * @retval GPUCORE_E_EXIST     NOW, WATCH: the output file exists (checked before the target
 *                             is stopped); at capture time only when every numbered name
 *                             (GC_CAPTURE_NUMBERED_MAX) is taken. Never for RUN before the
 *                             command is started (a NOTICE: the core takes the next free name)
 * @retval GPUCORE_E_CANTCREAT NOW, WATCH: the output's directory is missing, not a directory or
 *                             not writable (RUN: a NOTICE, and the directory is created when a
 *                             core is written); a directory that cannot be created then
 * @retval GPUCORE_E_INVAL     bad options, or an unknown % sequence in the output pattern
 * @retval GPUCORE_E_NOMEM, GPUCORE_E_NOTSUP (host not x86-64)
 * Failures of RESUME or DISABLE after the memory was read are warnings (the core is still
 * written; closing the session makes the driver disable debugging anyway).
 * In every case the target's queues are resumed, debugging is disabled and the target is
 * detached (RUN: left running to its own end; see exited and running).
 */
gpucore_status_t gc_capture_run(const struct gc_capture_opts *opts, struct gc_capture_result *ret,
                                gpucore_diag_t *reterr_diag);

/*
 * RUN, once gc_capture_run() returned with running 1: one round, without blocking, of waiting
 * for the command @p pid (the caller's child). Threads of the command that could not be
 * detached (they were exiting while gpucore let go: still traced, and the command's end is
 * not reported until their own end is reaped) are detached at their next stop and reaped when
 * they end. Reaps any child of the caller (waitpid(-1, __WALL)): for a caller whose only
 * child is the command. SIGCHLD tells when to call again.
 * @return 1 with *ret_status (the command's wait status) once it has ended, 0 while it runs
 *         on, -1 with errno on failure (ECHILD: it was reaped elsewhere).
 */
int gc_capture_reap_command(pid_t pid, int *ret_status);

/*
 * Parse a --trigger value: "memory-violation[@VA[/REASONS]]" (REASONS: GPUCORE_FAULT_*
 * bits, the runtime's fault_reason_mask) or "queue-error[:STATUS]", STATUS being the
 * ROCm runtime's hsa_status_t of the queue's error callback (hex with 0x, or decimal), which is
 * mapped back to the exception code the runtime made it from (illegal instruction, memory or
 * aperture violation; HSA_STATUS_ERROR_EXCEPTION, the status of a wave abort, trap and math
 * error alike, gives a wave abort). VA is hex (0x) or decimal.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (the diag says what was expected)
 */
gpucore_status_t gc_capture_parse_trigger(const char *text, struct gc_capture_trigger *ret,
                                          gpucore_diag_t *reterr_diag);

/*
 * Output patterns (-o of run, watch and capture; the hook passes its $GPUCORE_OUTPUT on as -o).
 * The tokens:
 *   %p  the target's pid
 *   %h  this machine's host name (gethostname)
 *   %t  the time of the capture, seconds since the epoch
 *   %e  the target's executable name: its comm (/proc/PID/comm, the base name of the file it
 *       executed as the kernel keeps it), completed past the kernel's 15-byte cut: a comm of 15
 *       bytes is replaced by the first name that starts with it among the base name of
 *       /proc/PID/exe's target (the link is read, not followed; a " (deleted)" suffix is
 *       dropped) and the base names of the first 3 words of /proc/PID/cmdline (argv[0], or
 *       the script an interpreter runs after "#!"); if none starts with it, the comm itself
 *   %j  the job id: the first non-empty of SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID in
 *       the target's environment (/proc/PID/environ, first 1 MiB), else in gpucore's
 *   %r  the rank: the first non-empty of OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,
 *       MV2_COMM_WORLD_RANK, PALS_RANKID, FLUX_TASK_RANK, SLURM_PROCID in the target's
 *       environment, else in gpucore's (launchers first, the scheduler's SLURM_PROCID last:
 *       an mpirun inside a Slurm job leaves the job step's SLURM_PROCID in each rank)
 *   %%  a '%'
 * A value that is unknown or unset becomes a word, so that "core.%j.%r" is never "core..":
 * %j "nojob", %r "norank", %e and %h "unknown". Values come from the target and are hostile:
 * at most GC_CAPTURE_VALUE_MAX bytes of each are used (the rest is dropped), every '/' and
 * every control character (below 0x20, and 0x7f) becomes '!', and a value of exactly "." or
 * ".." becomes "!" or "!." (as the kernel escapes core_pattern values), so that no value can
 * move the file to another directory. Any other % sequence is an error.
 */
#define GC_CAPTURE_VALUE_MAX 255 /* bytes of one value (NAME_MAX: a whole file name) */
#define GC_CAPTURE_UNSET_JOB "nojob"
#define GC_CAPTURE_UNSET_RANK "norank"
#define GC_CAPTURE_UNSET_EXE "unknown"
#define GC_CAPTURE_UNSET_HOST "unknown"
/* Storage gc_capture_vars_fill() needs for every value at its longest. */
#define GC_CAPTURE_VARS_STORAGE (4 * (GC_CAPTURE_VALUE_MAX + 1))

/* Variables of an output pattern; a NULL or "" string is unset. */
struct gc_capture_vars {
    pid_t pid;
    const char *hostname; /* %h */
    int64_t time_s;       /* %t: seconds since the epoch */
    const char *exe;      /* %e: executable name */
    const char *job_id;   /* %j */
    const char *rank;     /* %r */
};

/*
 * Expand an output pattern (the tokens above) into @p out of @p cap bytes.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  missing argument, empty pattern, or an unknown % sequence (the diag
 *                          names it and its offset)
 * @retval GPUCORE_E_LIMIT  the result is longer than @p cap - 1
 */
gpucore_status_t gc_capture_expand_path(const char *pattern, const struct gc_capture_vars *v,
                                        char *out, size_t cap, gpucore_diag_t *reterr_diag);

/*
 * A core never replaces a file, and a name that is taken does not lose the core either: the
 * capture writes it under the first free name of PATH, PATH.1, PATH.2, ... (a compressed
 * core's final ".zst" stays last: core.zst, core.1.zst), as logrotate and systemd-coredump
 * number their files. Each name is tried with an exclusive create, so two captures never
 * take the same one. Past GC_CAPTURE_NUMBERED_MAX the capture fails (GPUCORE_E_EXIST).
 */
#define GC_CAPTURE_NUMBERED_MAX 999 /* names taken under one pattern: one without %p or %t that
                                       a requeued job reuses; a thousand is not a need */

/*
 * The @p n th name of the list above for @p path (0: the path itself) into @p out of @p cap
 * bytes. @p compressed: a final ".zst" stays last.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  a NULL argument
 * @retval GPUCORE_E_LIMIT  the name is longer than @p cap - 1
 */
gpucore_status_t gc_capture_numbered_name(const char *path, uint32_t n, int compressed, char *out,
                                          size_t cap, gpucore_diag_t *reterr_diag);

/*
 * Create the missing directories of @p path (all but its last component), as mkdir -p does
 * (mode 0777 less the umask). Called when a core is about to be written: `gpucore run` does not
 * refuse a job whose output directory is missing, it creates it when there is a core to put
 * there.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_CANTCREAT  a directory cannot be created, or a component is not a
 *                              directory (the diag names it and why)
 * @retval GPUCORE_E_INVAL      a NULL path
 */
gpucore_status_t gc_capture_make_dirs(const char *path, gpucore_diag_t *reterr_diag);

/*
 * Fill @p v from the process @p pid as the tokens above say; %t is now. Strings are static
 * ("" when unknown) or point into @p storage (@p cap bytes; GC_CAPTURE_VARS_STORAGE holds
 * every value at its longest; a value that does not fit is unset). Never fails.
 */
void gc_capture_vars_fill(struct gc_capture_vars *v, pid_t pid, char *storage, size_t cap);

/* What gc_capture_check_driver() found. */
struct gc_capture_driver_check {
    const char *backend;        /* "linux" or "sim" (static) */
    uint32_t kfd_major, kfd_minor;
    int have_state;             /* the driver reported its debug state of the process (sim) */
    int debug_enabled;          /* with have_state: some debugger has debugging enabled */
    uint32_t suspended_queues;  /* with have_state: queues suspended for a debugger */
};

/*
 * Could a capture reach the GPU driver from here? Opens a session on @p pid through @p kfd
 * (linux: any pid, the calling process's own is fine; sim: the process hosting the simulated
 * driver) and checks the KFD version window; no process is debug-enabled. With @p want_state,
 * also asks the driver whether the process has a debugger and suspended queues (sim only; the
 * kernel does not tell). For `gpucore kfd-check`.
 * @retval GPUCORE_OK          *ret filled
 * @retval GPUCORE_E_NODEV     no driver, or KFD outside [1.13, 2.0) (the one sentence)
 * @retval GPUCORE_E_PERM      the device cannot be opened
 * @retval GPUCORE_E_NOTSUP    the backend is not built in
 * @retval GPUCORE_E_NOTFOUND, GPUCORE_E_IO  the driver's state could not be read (want_state)
 * @retval GPUCORE_E_INVAL, GPUCORE_E_NOMEM
 * *ret is untouched on failure.
 */
gpucore_status_t gc_capture_check_driver(pid_t pid, const struct gc_kfd_open_opts *kfd,
                                         int want_state, struct gc_capture_driver_check *ret,
                                         gpucore_diag_t *reterr_diag);

/*
 * The driver's nodes (CPUs and GPUs) from its sysfs topology under @p topology_dir (NULL:
 * GC_KFD_TOPOLOGY_DIR), read without a target, for `gpucore kfd-check`. Statuses as
 * gc_kfd_topology_read (kfd_topology.h): OK; E_NOTFOUND no topology; E_IO; E_CORRUPT a
 * malformed file (diag: file, line, what was expected); E_LIMIT; E_INVAL.
 */
gpucore_status_t gc_capture_read_devices(const char *topology_dir, struct gc_kfd_topology *ret,
                                         gpucore_diag_t *reterr_diag);

#endif /* GC_CAPTURE_CAPTURE_H */
