/* SPDX-License-Identifier: MIT */
/*
 * gpucore capture | run | watch: the three ways into the capture pipeline (capture/capture.h).
 *
 *   capture PID          capture now (a hang, or on demand)
 *   watch PID            wait for the first GPU queue error or memory violation, capture, let
 *                        the process go on to its own error handling
 *   run -- CMD [ARGS]    start CMD and follow its process tree; each process that enables the
 *                        GPU runtime is watched as watch does; exit with CMD's status
 *
 * Output: progress on stderr while stderr is a terminal (the elapsed time and the phase; while
 * memory is written, the tier, the bytes written of the planned total, the rate, the deadline
 * and the budget; redrawn while the capture waits, see show_progress); one final line (unless
 * --quiet); with
 * --json, one JSON object per core written (CAPTURE_JSON_SCHEMA, below) on stdout or appended
 * to a file; errors as one "gpucore: ..." line with a sysexits code. SIGINT/SIGTERM/SIGHUP/
 * SIGQUIT stop the capture: no core is written, the target is resumed and detached, and the exit
 * code is 128 + N. run, once the command is started: the signals are passed on to it, failures
 * are warnings, and the exit code is always the command's (run_finish).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "capture.h"
#include "cli.h"
#include "capture_report.h"
#include "cli_store.h"
#include "store.h"
#include "gc_util.h"
#include "journal.h"
#include "triage.h"

static volatile sig_atomic_t got_signal;
/* The last signal came from the kernel (si_code SI_KERNEL): a terminal's ^C or ^\ is sent so
   to its whole foreground process group. */
static volatile sig_atomic_t got_signal_kernel;

static void on_signal(int sig, siginfo_t *si, void *context)
{
    (void)context;
    got_signal_kernel = si && si->si_code == SI_KERNEL;
    got_signal = sig;
}

static volatile sig_atomic_t got_child;

static void on_child(int sig)
{
    (void)sig;
    got_child = 1;
}

/* The signals that end a capture early: the capture resumes the queues, disables debugging and
   detaches, then gpucore exits 128 + the signal, as a shell reports a process it killed.
   run: the command is detached and left running, the signal is passed on to it (and every
   later one), and gpucore exits with the command's status once it ends (wait_command). */
static const struct {
    int sig;
    const char *name;
} stop_signals[] = { { SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },
                     { SIGQUIT, "SIGQUIT" } };
#define NSTOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

static const char *signal_name(int sig)
{
    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        if (stop_signals[i].sig == sig)
            return stop_signals[i].name;
    return "a signal";
}

/* --trigger (the runtime hook's helper): how long a refused attach is retried, for the target
   to declare the helper its ptracer. */
#define HOOK_SEIZE_RETRY_MS 2000u

/* The progress line is redrawn at most this often (each new phase is shown at once); the
   capture's waits call back every GC_CAPTURE_TICK_MS, so a wait redraws about this often. */
#define PROGRESS_INTERVAL_NS 100000000ull
/* The progress line is cut to the terminal's width less one column (so it never wraps, which
   would leave the '\r' redraw on a second row); this many bytes at most. */
#define PROGRESS_LINE_MAX 512

struct capture_cli {
    const char *cmd;
    int tty;
    int progress_shown;
    uint64_t start_ns;       /* when the capture began: the origin of the elapsed time */
    uint64_t max_size;       /* --max-size, shown on the progress line; 0 = none */
    uint64_t write_start_ns; /* when memory writing began: the origin of the rate */
    uint64_t last_draw_ns;
    struct report_sink out;  /* --quiet, --json, --store: where a core's report goes */
};

static void capture_help(const char *cmd, FILE *out)
{
    if (strcmp(cmd, "run") == 0)
        fprintf(out, "Usage: gpucore run [OPTIONS] -- COMMAND [ARGS...]\n\n"
                     "Start COMMAND under gpucore and watch every process it starts (fork,\n"
                     "exec, launchers such as sh, mpirun or Python multiprocessing): gpucore is\n"
                     "the tree's subreaper, and nothing is installed in its processes. A process\n"
                     "that opens the GPU driver (/dev/kfd, seen by an inotify watch and a look\n"
                     "at the tree's open files) is armed: at its first GPU queue error or memory\n"
                     "violation its core is written (-o is expanded for it: use %%p), then it\n"
                     "continues to its own error handling. Each process is captured once; a\n"
                     "further GPU error in it is only reported. Only armed processes are\n"
                     "traced. One a debugger already traces is left to it (a debugger works as\n"
                     "without gpucore), and so is one gpucore fails to arm or capture.\n"
                     "gpucore is never the reason COMMAND does not run: without a GPU driver,\n"
                     "with an output name that exists or a directory that is missing, it\n"
                     "warns once and starts COMMAND (a core takes the first free name of\n"
                     "NAME.1, NAME.2, ...; a missing directory is created when a core is\n"
                     "written). Once COMMAND is started, gpucore waits for its end and exits\n"
                     "with its status (128 + N if signal N ended it), cores written or not,\n"
                     "also when:\n"
                     "- gpucore gets SIGINT, SIGTERM, SIGHUP or SIGQUIT: a capture under way is\n"
                     "  abandoned at once (nothing written, the process's GPU queues resumed,\n"
                     "  its threads let run; it says so), nothing is armed any more, and the\n"
                     "  signal and a SIGCONT go to every process of COMMAND's tree (a ^C or ^\\\n"
                     "  from the terminal is not sent again to those of gpucore's process\n"
                     "  group, which had it); gpucore waits for COMMAND however long it takes\n"
                     "  (each further signal is passed on the same way), then gives the rest\n"
                     "  of the tree 5 s to end and kills (SIGKILL) what still runs, so\n"
                     "  nothing outlives it. With --leave-tree the signal goes to COMMAND only\n"
                     "  and the rest of the tree runs on untraced;\n"
                     "- the driver or the tree supervision fails: a warning, nothing is armed\n"
                     "  any more, COMMAND runs on untraced to its end.\n"
                     "When COMMAND ends by itself, processes of its tree still running are let\n"
                     "go of and run on untraced.\n\n");
    else if (strcmp(cmd, "watch") == 0)
        fprintf(out, "Usage: gpucore watch [OPTIONS] PID\n\n"
                     "Attach to process PID, wait for its first GPU queue error or memory\n"
                     "violation, write a core, then detach and let it continue to its own\n"
                     "error handling. If PID ends without a GPU error, no core is written:\n"
                     "gpucore says so (\"... without a GPU exception; no core written\", unless\n"
                     "--quiet) and exits 0.\n\n");
    else
        fprintf(out, "Usage: gpucore capture [OPTIONS] PID\n\n"
                     "Write a core of process PID now: every host thread and, with every GPU\n"
                     "queue suspended, the GPU state. The process continues afterwards.\n\n");
    fprintf(out,
            "Options:\n"
            "  -o PATTERN         output file (default gpucore.%%p): %%p pid, %%h host name,\n"
            "                     %%t time (s), %%e executable name, %%j job id (SLURM_JOB_ID,\n"
            "                     PBS_JOBID, LSB_JOBID, FLUX_JOB_ID), %%r rank (OMPI_COMM_WORLD_RANK,\n"
            "                     PMIX_RANK, PMI_RANK, MV2_COMM_WORLD_RANK, PALS_RANKID,\n"
            "                     FLUX_TASK_RANK, SLURM_PROCID), %%%% %%. Unset: nojob, norank,\n"
            "                     unknown. In values '/' and control characters become '!',\n"
            "                     '.' and '..' become '!' and '!.'\n"
            "  --tier TIER        state|scratch|referenced|all (default referenced): how much GPU\n"
            "                     memory beyond the wave state, queues and code objects\n"
            "  --max-size N[K|M|G] size budget of the file, never exceeded: its apparent size\n"
            "                     (ls -l, holes included; with --compress the compressed bytes).\n"
            "                     The least needed memory is left out and the core marked\n"
            "                     truncated. At least 4K; the headers and notes must fit\n"
            "  --deadline N[ms|s|m] time budget of the capture (plain N: seconds); past it the\n"
            "                     core is cut and marked truncated\n"
            "  --compress[=LEVEL] zstd seekable compression (level " CLI_ZSTD_LEVEL_TEXT ",\n"
            "                     default 3, as gpucore compress --level)\n"
            "  --redact           withhold user data (docs/privacy.md): GPU buffer contents of\n"
            "                     the referenced and all tiers, kernel-argument values that\n"
            "                     are not pointers, host heap and other writable memory (thread\n"
            "                     stacks are kept, without the argument and environment\n"
            "                     strings), the arguments of the command line; the manifest\n"
            "                     lists each range withheld as redacted\n"
            "  --no-host-memory   host memory: thread stacks only (host notes are written)\n"
            "  --kfd linux|sim    driver backend (default: $GPUCORE_KFD, else linux)\n"
            "  --json[=FILE]      one JSON object (schema " CAPTURE_JSON_SCHEMA ") per core\n"
            "                     written, one line on stdout or appended to FILE; nothing\n"
            "                     when no core is written (run: on stdout the records come\n"
            "                     between COMMAND's own output lines: use =FILE to read\n"
            "                     them). Members: schema path size_on_disk\n"
            "                     apparent_size pid executable trigger waves faulting_waves\n"
            "                     all_waves_saved tiers skipped_bytes{tier,budget,deadline,\n"
            "                     io-error} truncated truncation_reason elapsed_s compressed\n"
            "                     signature{text,hash,kind} (as analyze)\n"
            "  --store[=DIR], --store DIR\n"
            "                     write the core into the core store (docs/store.md; default\n"
            "                     $GPUCORE_STORE, else /var/lib/gpucore/cores for root,\n"
            "                     $XDG_STATE_HOME/gpucore/cores) as core.%%t.%%h.%%p.%%e[.zst]\n"
            "                     and index it; instead of -o. An index that cannot be updated\n"
            "                     is a warning: the core is kept (gpucore store --rescan).\n"
            "                     The next word is DIR unless it is --, starts with - or\n"
            "                     (capture, watch) is a number, the PID\n"
            "  --config FILE      with --store: the store.conf whose limits the store is\n"
            "                     kept within after the core is added (default\n"
            "                     /etc/gpucore/store.conf for root, else\n"
            "                     $XDG_CONFIG_HOME/gpucore/store.conf)\n"
            "  --fleet-index URI  with --store: the fleet index (PostgreSQL) the store's row\n"
            "                     also goes to (else store.conf's FleetIndex=); one that is\n"
            "                     down or slow is a warning, the row waits (docs/fleet.md)\n"
            "  --quiet            no final summary line\n"
            "%s%s"
            "  -h, --help         this text\n\n"
            "%s%s.\n",
            strcmp(cmd, "run") == 0
                ? "  --leave-tree       on a stop signal, pass it to COMMAND only and let the\n"
                  "                     rest of its tree run on untraced (not killed)\n"
                : "",
            strcmp(cmd, "capture") == 0
                ? "  --trigger WHAT     the GPU error that happened before the capture, as\n"
                  "                     libgpucore-hook.so passes it:\n"
                  "                     memory-violation[@VA[/REASONS]] or\n"
                  "                     queue-error[:STATUS]; recorded as the core's trigger\n"
                  "                     (and its exception when the driver has none); a\n"
                  "                     refused attach is retried for 2 s\n"
                  "  --error-thread TID the thread of PID the GPU error was reported on, as\n"
                  "                     libgpucore-hook.so passes it (with --trigger): written\n"
                  "                     first in the core's host threads and recorded as its\n"
                  "                     error thread; a TID that is not a thread of PID is a\n"
                  "                     warning and not recorded\n"
                  "  --hook-timeout S   end (SIGALRM) after S seconds whatever the state, as\n"
                  "                     libgpucore-hook.so asks (GPUCORE_HOOK_TIMEOUT)\n"
                  "  --hook-ready-fd FD wait (at most 2 s) for a byte or the end of file on\n"
                  "                     descriptor FD before stopping PID: libgpucore-hook.so\n"
                  "                     writes it once its thread is back in its own code\n"
                : "",
            strcmp(cmd, "run") == 0
                ? "Exit codes before COMMAND is started (the only refusals: no driver, an\n"
                  "output name taken or a directory missing are warnings): 64 usage,\n"
                  "66 COMMAND cannot be executed, 70 internal error, 77 ptrace not permitted,\n"
                  "128 + N signal N came first. Once COMMAND is started: COMMAND's own\n"
                  "status, 128 + N if signal N ended it (after a SIGTERM passed on, 143 if\n"
                  "COMMAND does not catch it), cores written or not; 70 if gpucore cannot\n"
                  "wait for it"
            : strcmp(cmd, "watch") == 0
                ? "Exit codes: 0 core written, or PID ended without a GPU error (no core),\n"
                  "64 usage, 66 no such process"
                : "Exit codes: 0 core written, 64 usage,\n66 no such process",
            strcmp(cmd, "run") == 0
                ? ""
                : ", 69 no GPU driver,\n"
                  "70 internal error, 73 cannot create the core (or its headers and notes\n"
                  "exceed --max-size; the name exists, the directory is missing), 74 I/O\n"
                  "error, 75 a thread would not stop (try again), 77 not permitted (ptrace;\n"
                  "another tracer is named), 128 + N stopped by signal N, no core written:\n"
                  "129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 143 SIGTERM");
}

static int parse_tier(const char *text, uint32_t *ret)
{
    for (uint32_t t = GPUCORE_TIER_STATE; t <= GPUCORE_TIER_ALL; t++) {
        const char *name = gpucore_tier_name(t);

        if (name && strcmp(name, text) == 0) {
            *ret = t;
            return 0;
        }
    }
    return -1;
}

/* N, Nms, Ns, Nm -> milliseconds (plain N is seconds). */
static int parse_duration(const char *text, uint64_t *ret_ms)
{
    static const struct {
        const char *suffix;
        uint64_t ms;
    } units[] = { { "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 } };
    char *end;
    unsigned long long v;

    if (!text || !*text || *text < '0' || *text > '9')
        return -1;
    v = strtoull(text, &end, 10);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            if (v == 0 || v > UINT64_MAX / units[i].ms)
                return -1;
            *ret_ms = v * units[i].ms;
            return 0;
        }
    }
    return -1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Elapsed time for the progress line: "  3.2s" below 1000 s, then "17m05s", "2h03m07s". */
static void format_elapsed(uint64_t ns, char *buf, size_t size)
{
    uint64_t s = ns / 1000000000ull;

    if (s < 1000)
        snprintf(buf, size, "%5.1fs", (double)ns / 1e9);
    else if (s < 3600)
        snprintf(buf, size, "%um%02us", (unsigned)(s / 60), (unsigned)(s % 60));
    else
        snprintf(buf, size, "%uh%02um%02us", (unsigned)(s / 3600), (unsigned)(s / 60 % 60),
                 (unsigned)(s % 60));
}

/* Append to the line (cut at its end: the line is cut to the terminal anyway). */
static void line_add(char *line, size_t *len, const char *fmt, ...) GC_PRINTF(3, 4);
static void line_add(char *line, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len >= PROGRESS_LINE_MAX - 1)
        return;
    va_start(ap, fmt);
    n = vsnprintf(line + *len, PROGRESS_LINE_MAX - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < PROGRESS_LINE_MAX ? *len + (size_t)n : PROGRESS_LINE_MAX - 1;
}

/*
 * The progress line, on a terminal only (otherwise the capture counts nothing):
 *   gpucore: [ELAPSED] PHASE...
 *   gpucore: [ELAPSED] PHASE: WRITTEN of PLANNED (P%), RATE MB/s[, deadline in T][, budget B]...
 *   gpucore: [ELAPSED] PHASE (WRITTEN written, RATE MB/s)...   (after the memory)
 * ELAPSED counts from the start of the command; the second form is shown while memory is
 * written ("of PLANNED (P%)" once the plan is known), with "deadline in T" ("deadline passed")
 * while a --deadline runs and "budget B" with --max-size. Redrawn at each phase and at most
 * every PROGRESS_INTERVAL_NS on updates, which come while bytes move and from the capture's
 * waits, so the time moves even when the bytes do not.
 */
static void show_progress(void *user, const struct gc_capture_progress *p)
{
    struct capture_cli *cli = user;
    uint64_t now = mono_ns();
    char line[PROGRESS_LINE_MAX], elapsed[32], size[32], planned[32];
    size_t len = 0;
    struct winsize ws;

    if (p->tier && !cli->write_start_ns)
        cli->write_start_ns = now;
    else if (!p->tier && !p->bytes_planned)
        cli->write_start_ns = 0; /* before the memory of a capture (run: of the next one) */
    if (!p->new_phase && now - cli->last_draw_ns < PROGRESS_INTERVAL_NS)
        return;
    cli->last_draw_ns = now;
    format_elapsed(now - cli->start_ns, elapsed, sizeof(elapsed));
    line_add(line, &len, "gpucore: [%s] %s", elapsed, p->phase);
    if (cli->write_start_ns) {
        double secs = (double)(now - cli->write_start_ns) / 1e9;
        double rate = secs > 0 ? (double)p->bytes_written / 1e6 / secs : 0.0;

        gc_format_size(p->bytes_written, size, sizeof(size));
        if (!p->tier) {
            line_add(line, &len, " (%s written, %.1f MB/s)", size, rate);
        } else {
            line_add(line, &len, ": %s", size);
            if (p->bytes_planned) {
                uint64_t done = p->bytes_written < p->bytes_planned ? p->bytes_written
                                                                     : p->bytes_planned;

                gc_format_size(p->bytes_planned, planned, sizeof(planned));
                line_add(line, &len, " of %s (%u%%)", planned,
                         (unsigned)((double)done * 100.0 / (double)p->bytes_planned));
            } else {
                line_add(line, &len, " written");
            }
            line_add(line, &len, ", %.1f MB/s", rate);
            if (p->has_deadline && p->deadline_left_ns)
                line_add(line, &len, ", deadline in %.1fs", (double)p->deadline_left_ns / 1e9);
            else if (p->has_deadline)
                line_add(line, &len, ", deadline passed");
            if (cli->max_size) {
                gc_format_size(cli->max_size, size, sizeof(size));
                line_add(line, &len, ", budget %s", size);
            }
        }
    }
    line_add(line, &len, "...");
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && ws.ws_col - 1u < len)
        line[ws.ws_col - 1u] = '\0';
    /* The line is gpucore's own text; its carriage return and erase sequence go to the
       terminal itself, past the filter every message goes through. */
    fflush(stderr);
    fprintf(cli_stderr_raw(), "\r%s\033[K", line);
    fflush(cli_stderr_raw());
    cli->progress_shown = 1;
}

static void end_progress(struct capture_cli *cli)
{
    if (cli->progress_shown) {
        fputs("\r\033[K", cli_stderr_raw());
        fflush(cli_stderr_raw());
        cli->progress_shown = 0;
    }
}

/* Exit codes of a failed capture. */
static const struct {
    gpucore_status_t status;
    int code;
} capture_exit[] = {
    { GPUCORE_E_NODEV, CLI_EXIT_UNAVAILABLE },
    { GPUCORE_E_PERM, CLI_EXIT_NOPERM },
    { GPUCORE_E_NOTFOUND, CLI_EXIT_NOINPUT },
    { GPUCORE_E_INTR, CLI_EXIT_INTERRUPTED },
    { GPUCORE_E_IO, CLI_EXIT_IOERR },
    { GPUCORE_E_EXIST, CLI_EXIT_CANTCREAT },
    { GPUCORE_E_CANTCREAT, CLI_EXIT_CANTCREAT },
    { GPUCORE_E_INVAL, CLI_EXIT_USAGE },
    { GPUCORE_E_LIMIT, CLI_EXIT_TEMPFAIL },
    { GPUCORE_E_NOTSUP, CLI_EXIT_UNAVAILABLE },
};

static int capture_exit_code(gpucore_status_t st)
{
    for (size_t i = 0; i < sizeof(capture_exit) / sizeof(capture_exit[0]); i++)
        if (capture_exit[i].status == st)
            return capture_exit[i].code;
    return CLI_EXIT_SOFTWARE;
}

/* Exit code a shell gives for a wait status. */
static int shell_status(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return CLI_EXIT_SOFTWARE;
}

/* The options as one line, for the core's metadata. */
static void options_text(int argc, char **argv, int upto, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int i = 1; i < upto && i < argc; i++) {
        int n;

        if (strcmp(argv[i], "--") == 0)
            continue;
        n = snprintf(buf + len, cap - len, "%s%s", len ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
}

static int run_capture_opened(struct capture_cli *clip, struct gc_capture_opts *op,
                              enum gc_capture_mode mode);
static int run_finish(const struct capture_cli *cli, const struct gc_capture_opts *o,
                      struct gc_capture_result *r, gpucore_status_t st, const gpucore_diag_t *d);
static int capture_finish(const struct capture_cli *cli, const struct gc_capture_opts *o,
                          const struct gc_capture_result *r, gpucore_status_t st,
                          const gpucore_diag_t *d);

/* What the command line of capture, run or watch gives. */
struct capture_args {
    struct capture_cli cli;
    struct gc_capture_opts o;
    struct gc_capture_trigger trigger; /* --trigger; o.trigger points here */
    long hook_timeout, error_thread;   /* --hook-timeout, --error-thread; 0 = none */
    long hook_ready_fd;                /* --hook-ready-fd; -1 = none */
    char opts_buf[1024];               /* o.options_text */
    int store;                         /* --store given */
    const char *store_opt;             /* --store=DIR, or NULL: the default store */
    char store_dir[PATH_MAX];          /* the store's directory, resolved */
    char store_pattern[PATH_MAX + 64]; /* o.output_pattern: a file in the store */
};

static const struct option capture_longopts[] = {
    { "tier", required_argument, NULL, 't' },
    { "max-size", required_argument, NULL, 'm' },
    { "deadline", required_argument, NULL, 'D' },
    { "compress", optional_argument, NULL, 'z' },
    { "kfd", required_argument, NULL, 'k' },
    { "quiet", no_argument, NULL, 'q' },
    { "json", optional_argument, NULL, 'j' },
    { "store", optional_argument, NULL, 'S' },
    { "config", required_argument, NULL, 'C' },
    { "fleet-index", required_argument, NULL, 'I' },
    { "trigger", required_argument, NULL, 'T' },
    { "hook-timeout", required_argument, NULL, 'H' },
    { "error-thread", required_argument, NULL, 'E' },
    { "hook-ready-fd", required_argument, NULL, 'F' },
    { "redact", no_argument, NULL, 'R' },
    { "no-host-memory", no_argument, NULL, 'N' },
    { "leave-tree", no_argument, NULL, 'L' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* The options --trigger, --hook-timeout, --error-thread and --hook-ready-fd are the runtime
   hook's. */
static int hook_option(struct capture_args *a, int c, const char *arg)
{
    const char *cmd = a->cli.cmd;
    gpucore_diag_t tdiag = { 0 };

    if (a->o.mode != GC_CAPTURE_NOW)
        return cli_usage_error(cmd, "--%s is an option of gpucore capture",
                               c == 'T'   ? "trigger"
                               : c == 'H' ? "hook-timeout"
                               : c == 'F' ? "hook-ready-fd"
                                          : "error-thread");
    switch (c) {
    case 'T':
        /* the runtime hook names the error it saw (capture.h) */
        if (gc_capture_parse_trigger(arg, &a->trigger, &tdiag) != GPUCORE_OK)
            return cli_usage_error(cmd, "%s", tdiag.message);
        a->o.trigger = &a->trigger;
        a->o.seize_retry_ms = HOOK_SEIZE_RETRY_MS;
        return -1;
    case 'H':
        /* libgpucore-hook.so's deadline, which the hook cannot enforce while the capture has
           its threads stopped */
        if (cli_parse_int(arg, 1, 86400, &a->hook_timeout) != 0)
            return cli_usage_error(cmd, "--hook-timeout takes whole seconds 1..86400, got "
                                        "'%s'", arg);
        return -1;
    case 'F':
        /* the hook's "ready" pipe (hook_args.h); 0..2 are the standard streams */
        if (cli_parse_int(arg, 3, INT_MAX, &a->hook_ready_fd) != 0)
            return cli_usage_error(cmd, "--hook-ready-fd takes a descriptor number of 3 or "
                                        "more, got '%s'", arg);
        return -1;
    default:
        /* the hook's thread, on which the runtime reported the error */
        if (cli_parse_int(arg, 1, 0x3fffffff, &a->error_thread) != 0)
            return cli_usage_error(cmd, "--error-thread takes a thread id, got '%s'", arg);
        return -1;
    }
}

/*
 * --store DIR, the directory as the next word (as `gpucore list --store DIR` takes it): that
 * word is the directory unless it is "--" or starts with '-' (run: the command follows, or
 * another option), or, for capture and watch, is a number (the PID: a directory named by digits
 * is --store=DIR or --store ./DIR). The word is then taken (optind moves past it).
 */
static const char *store_word(const struct capture_args *a, int argc, char **argv)
{
    const char *w = optind < argc ? argv[optind] : NULL;
    long pid;

    if (!w || !*w || w[0] == '-')
        return NULL;
    if (a->o.mode != GC_CAPTURE_RUN && cli_parse_int(w, 1, 0x3fffffff, &pid) == 0)
        return NULL;
    optind++;
    return w;
}

/* One option (getopt's @p c, its value @p arg): -1 when taken, else the exit code. */
static int capture_option(struct capture_args *a, int c, const char *arg)
{
    const char *cmd = a->cli.cmd;
    struct gc_capture_opts *o = &a->o;
    long level;

    switch (c) {
    case 'o':
        if (!*arg)
            return cli_usage_error(cmd, "-o takes a file name pattern");
        o->output_pattern = arg;
        return -1;
    case 't':
        if (parse_tier(arg, &o->tier) != 0)
            return cli_usage_error(cmd, "--tier takes state, scratch, referenced or all, "
                                        "got '%s'", arg);
        return -1;
    case 'm':
        if (cli_parse_size(arg, &o->max_size) != 0 || o->max_size == 0)
            return cli_usage_error(cmd, "--max-size takes a size such as 512M, got '%s'", arg);
        if (o->max_size < GPUCORE_WRITER_MIN_BUDGET)
            return cli_usage_error(cmd, "--max-size %s is below the smallest core, %u bytes "
                                        "(4K)", arg, GPUCORE_WRITER_MIN_BUDGET);
        return -1;
    case 'D':
        if (parse_duration(arg, &o->deadline_ms) != 0)
            return cli_usage_error(cmd, "--deadline takes a duration such as 500ms, 10s "
                                        "or 2m, got '%s'", arg);
        return -1;
    case 'z':
        o->compress = 1;
        if (arg) {
            if (cli_parse_zstd_level(arg, &level) != 0)
                return cli_usage_error(cmd, "--compress takes a level " CLI_ZSTD_LEVEL_TEXT
                                            ", got '%s'", arg);
            o->compress_level = (int32_t)level;
        }
        return -1;
    case 'k':
        if (cli_parse_backend(arg, &o->kfd.backend) != 0)
            return cli_usage_error(cmd, "--kfd takes linux or sim, got '%s'", arg);
        return -1;
    case 'q':
        a->cli.out.quiet = 1;
        return -1;
    case 'R':
        o->redact = 1;
        return -1;
    case 'N':
        o->no_host_memory = 1;
        return -1;
    case 'L':
        if (o->mode != GC_CAPTURE_RUN)
            return cli_usage_error(cmd, "--leave-tree is an option of gpucore run");
        o->leave_tree = 1;
        return -1;
    case 'j':
        if (arg && !*arg)
            return cli_usage_error(cmd, "--json takes no value (standard output) or "
                                        "=FILE, got an empty file name");
        a->cli.out.json_path = arg;
        a->cli.out.json_fd = STDOUT_FILENO;
        return -1;
    case 'C':
        if (!*arg)
            return cli_usage_error(cmd, "--config takes a file name, got an empty one");
        a->cli.out.store_config = arg;
        return -1;
    case 'I': {
        int rc = cli_fleet_option(cmd, arg);

        if (rc)
            return rc;
        a->cli.out.fleet_index = arg;
        return -1;
    }
    case 'S':
        if (arg && !*arg)
            return cli_usage_error(cmd, "--store takes no value (the default store) or =DIR, "
                                        "got an empty directory name");
        a->store = 1;
        a->store_opt = arg;
        return -1;
    case 'T':
    case 'H':
    case 'E':
    case 'F':
        return hook_option(a, c, arg);
    case 'h':
        capture_help(cmd, stdout);
        return CLI_EXIT_OK;
    default:
        return cli_usage_error(cmd, "unknown option or missing value in '%s'", arg);
    }
}

/* What follows the options: run's -- COMMAND, or the PID; -1 when valid, else the exit code. */
static int capture_operands(struct capture_args *a, int argc, char **argv)
{
    const char *cmd = a->cli.cmd;
    long pid = 0;

    if (a->hook_ready_fd >= 0 && !a->o.trigger)
        return cli_usage_error(cmd, "--hook-ready-fd goes with --trigger (the hook that "
                                    "started this capture)");
    if (a->error_thread) {
        if (!a->o.trigger)
            return cli_usage_error(cmd, "--error-thread goes with --trigger (the GPU error it "
                                        "names the thread of)");
        a->trigger.error_thread = (pid_t)a->error_thread;
    }
    options_text(argc, argv, optind, a->opts_buf, sizeof(a->opts_buf));
    a->o.options_text = a->opts_buf;
    if (a->o.mode == GC_CAPTURE_RUN) {
        if (optind >= argc)
            return cli_usage_error(cmd, "expected -- COMMAND [ARGS...]");
        if (strcmp(argv[optind - 1], "--") != 0)
            return cli_usage_error(cmd, "put -- before the command, as in "
                                        "`gpucore run -- %s`", argv[optind]);
        a->o.argv = argv + optind;
        return -1;
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "expected a process id");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (cli_parse_int(argv[optind], 1, 0x3fffffff, &pid) != 0)
        return cli_usage_error(cmd, "expected a process id, got '%s'", argv[optind]);
    a->o.pid = (pid_t)pid;
    return -1;
}

/*
 * --store: the core is a file of the store (GC_STORE_CORE_PATTERN, ".zst" when compressed),
 * whose directory is created and checked now, before anything is started. -1 when ready, else
 * the exit code.
 */
static int store_output(struct capture_args *a)
{
    gpucore_diag_t d = { 0 };
    size_t len = 0;
    int n;

    if (a->o.output_pattern)
        return cli_usage_error(a->cli.cmd, "-o and --store both name the output: give one");
    if (gc_store_locate(a->store_opt, a->store_dir, sizeof(a->store_dir), &d) != GPUCORE_OK ||
        gc_store_prepare_dir(a->store_dir, &d) != GPUCORE_OK)
        return cli_store_fail(&d);
    /* The directory is literal text of the pattern: its '%' are "%%". */
    for (const char *p = a->store_dir; *p; p++) {
        if (len + 2 >= sizeof(a->store_pattern))
            return cli_usage_error(a->cli.cmd, "the store's path is too long");
        if (*p == '%')
            a->store_pattern[len++] = '%';
        a->store_pattern[len++] = *p;
    }
    n = snprintf(a->store_pattern + len, sizeof(a->store_pattern) - len, "/%s%s",
                 GC_STORE_CORE_PATTERN, a->o.compress ? ".zst" : "");
    if (n < 0 || (size_t)n >= sizeof(a->store_pattern) - len)
        return cli_usage_error(a->cli.cmd, "the store's path is too long");
    a->o.output_pattern = a->store_pattern;
    a->cli.out.store_dir = a->store_dir;
    return -1;
}

/*
 * --hook-ready-fd: libgpucore-hook.so writes a byte into this pipe once its thread has left
 * posix_spawn (hook.c). Stopping the process earlier could catch that thread on its way out
 * of clone3, where no unwind information covers the instruction, and the error thread's
 * backtrace in the core would end there. A hook that dies closes the pipe (end of file); one
 * that never writes costs HOOK_READY_WAIT_MS, then the capture goes on regardless.
 */
#define HOOK_READY_WAIT_MS 2000

static void wait_hook_ready(const char *cmd, int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    struct stat st;
    char byte;
    int n;

    if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        fprintf(stderr, "gpucore: warning: %s --hook-ready-fd %d: not an open pipe; going on\n",
                cmd, fd);
        return;
    }
    do
        n = poll(&p, 1, HOOK_READY_WAIT_MS);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        fprintf(stderr, "gpucore: warning: %s --hook-ready-fd %d: the hook did not say it was "
                        "ready within %d ms; going on\n", cmd, fd, HOOK_READY_WAIT_MS);
    else if (n > 0 && (p.revents & POLLIN))
        (void)!read(fd, &byte, 1);
    close(fd);
}

static int run_capture_cmd(int argc, char **argv, enum gc_capture_mode mode)
{
    struct capture_args a;
    const char *env = getenv("GPUCORE_KFD");
    int c, rc;

    memset(&a, 0, sizeof(a));
    a.cli.cmd = argv[0];
    a.cli.out.json_fd = -1;
    a.o.mode = mode;
    a.o.tier = GPUCORE_TIER_REFERENCED;
    a.o.kfd.backend = GC_KFD_BACKEND_LINUX;
    a.hook_ready_fd = -1;
    if (env && *env && cli_parse_backend(env, &a.o.kfd.backend) != 0)
        return cli_usage_error(a.cli.cmd, "GPUCORE_KFD must be linux or sim, got '%s'", env);
    optind = 1;
    opterr = 0;
    /* run: options end at the command; capture and watch take them on either side of PID. */
    while ((c = getopt_long(argc, argv, mode == GC_CAPTURE_RUN ? "+o:h" : "o:h",
                            capture_longopts, NULL)) != -1) {
        if (c == 'S' && !optarg)
            optarg = (char *)store_word(&a, argc, argv);
        rc = capture_option(&a, c, c == '?' ? argv[optind - 1] : optarg);
        if (rc >= 0)
            return rc;
    }
    rc = capture_operands(&a, argc, argv);
    if (rc >= 0)
        return rc;
    /* the journal entry's writer: the runtime hook runs `capture --trigger` */
    a.cli.out.writer = mode == GC_CAPTURE_RUN     ? GC_JOURNAL_BY_RUN
                       : mode == GC_CAPTURE_WATCH ? GC_JOURNAL_BY_WATCH
                       : a.o.trigger              ? GC_JOURNAL_BY_HOOK
                                                  : GC_JOURNAL_BY_CAPTURE;
    if (a.cli.out.store_config && !a.store)
        return cli_usage_error(a.cli.cmd, "--config is the store's: give it with --store");
    if (a.cli.out.fleet_index && !a.store)
        return cli_usage_error(a.cli.cmd, "--fleet-index is the store's: give it with --store");
    if (a.store) {
        rc = store_output(&a);
        if (rc >= 0)
            return rc;
    }
    if (a.cli.out.json_path) {
        /* Opened now: a file that cannot be written is known before anything is started. */
        a.cli.out.json_fd = open(a.cli.out.json_path,
                             O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
        if (a.cli.out.json_fd < 0)
            return cli_fail(CLI_EXIT_CANTCREAT, a.cli.out.json_path, "cannot open for --json: %s",
                            strerror(errno));
    }
    if (a.hook_timeout) {
        /* Ended by the kernel past the deadline, wherever it is blocked: SIGALRM's default
           action. The target's threads are let go when their tracer dies, and the driver
           disables debugging when the session's file is closed. */
        signal(SIGALRM, SIG_DFL);
        alarm((unsigned)a.hook_timeout);
    }
    if (a.hook_ready_fd >= 0)
        wait_hook_ready(a.cli.cmd, (int)a.hook_ready_fd);
    rc = run_capture_opened(&a.cli, &a.o, mode);
    if (a.cli.out.json_path)
        close(a.cli.out.json_fd);
    return rc;
}

/* run: what the tree supervisor tells, as it happens. */
struct tree_cli {
    struct capture_cli *cli;
    const struct gc_capture_opts *o;
    struct run_reporter reporter; /* reports the cores, so the tree loop never waits for one */
};

static void on_tree_event(void *user, const struct gc_capture_tree_event *ev)
{
    struct tree_cli *tc = user;
    const char *name = ev->is_command ? tc->o->argv[0] : ev->comm;
    const char *exc;

    end_progress(tc->cli);
    switch (ev->kind) {
    case GC_CAPTURE_TREE_CORE:
        /* Handed over, not made here: every process of the tree waits while this runs. */
        run_reporter_submit(&tc->reporter, &tc->cli->out, tc->o, ev->result);
        break;
    case GC_CAPTURE_TREE_FAILED:
        if (ev->result && ev->result->exception_code) {
            /* A GPU error was raised and its capture failed: say so, and why. */
            exc = gc_triage_exception_name(ev->result->exception_code);
            fprintf(stderr, "gpucore: warning: process %ld (%s): GPU exception %s: the capture "
                            "failed: %s; no core written, nothing armed in it; it %s\n",
                    (long)ev->pid, name, exc ? exc : "unknown", ev->message,
                    ev->ended ? "has ended" : "runs on untraced to its end");
            break;
        }
        fprintf(stderr, "gpucore: warning: %s: nothing armed; %s (pid %ld) %s\n", ev->message,
                name, (long)ev->pid, ev->ended ? "has ended" : "runs on untraced to its end");
        break;
    case GC_CAPTURE_TREE_ABANDONED:
        fprintf(stderr, "gpucore: process %ld (%s): capture abandoned on %s: no core written; "
                        "its GPU queues were resumed and its threads let run\n",
                (long)ev->pid, name, signal_name(ev->sig));
        break;
    case GC_CAPTURE_TREE_SIGNALLED:
        if (ev->from_terminal)
            fprintf(stderr, "gpucore: %s from the terminal reached %s (pid %ld)", signal_name(ev->sig),
                    name, (long)ev->pid);
        else
            fprintf(stderr, "gpucore: %s passed on to %s (pid %ld)", signal_name(ev->sig), name,
                    (long)ev->pid);
        if (ev->count > (ev->from_terminal ? 0u : 1u))
            fprintf(stderr, "%s %u other process%s of its tree",
                    ev->from_terminal ? "; passed on to" : " and",
                    ev->count - (ev->from_terminal ? 0u : 1u),
                    ev->count - (ev->from_terminal ? 0u : 1u) == 1 ? "" : "es");
        fprintf(stderr, "; waiting for %s to end\n",
                ev->count > (ev->from_terminal ? 0u : 1u) ? "them" : "it");
        break;
    case GC_CAPTURE_TREE_KILLED:
        fprintf(stderr, "gpucore: %s (pid %ld) ended; %u process%s of its tree still ran %u s "
                        "after the signal: killed (SIGKILL; --leave-tree lets them run)\n",
                tc->o->argv[0], (long)ev->pid, ev->count, ev->count == 1 ? "" : "es",
                GC_CAPTURE_TREE_KILL_GRACE_MS / 1000u);
        break;
    case GC_CAPTURE_TREE_NOTICE:
        fprintf(stderr, "gpucore: warning: %s\n", ev->message);
        break;
    case GC_CAPTURE_TREE_AGAIN:
        exc = gc_triage_exception_name(ev->exception_code);
        fprintf(stderr, "gpucore: process %ld (%s): GPU exception %s: already captured; not "
                        "captured again\n",
                (long)ev->pid, ev->comm, exc ? exc : "unknown");
        break;
    case GC_CAPTURE_TREE_DEBUGGED:
        fprintf(stderr, "gpucore: process %ld (%s) opened the GPU driver while being debugged "
                        "by %ld (%s): not armed, left to its debugger\n",
                (long)ev->pid, ev->comm, (long)ev->other, ev->other_comm);
        break;
    case GC_CAPTURE_TREE_LEFT:
        if (!tc->cli->out.quiet)
            fprintf(stderr, "gpucore: %s (pid %ld) ended; %u process%s of its tree still "
                            "run%s, untraced now\n",
                    tc->o->argv[0], (long)ev->pid, ev->count, ev->count == 1 ? "" : "es",
                    ev->count == 1 ? "s" : "");
        break;
    case GC_CAPTURE_TREE_NOWATCH:
        fprintf(stderr, "gpucore: warning: %s\n", ev->message);
        break;
    }
}

/* The capture itself, once the options are parsed and the --json file is open. */
static int run_capture_opened(struct capture_cli *clip, struct gc_capture_opts *op,
                              enum gc_capture_mode mode)
{
    struct capture_cli cli = *clip;
    struct gc_capture_opts o = *op;
    struct gc_capture_result r;
    gpucore_diag_t d = { 0 };
    struct sigaction sa, old[NSTOP_SIGNALS];
    struct tree_cli tc = { .cli = &cli, .o = op };
    gpucore_status_t st;
    int rc;

    cli.tty = isatty(STDERR_FILENO);
    cli.start_ns = mono_ns();
    cli.max_size = o.max_size;
    if (cli.tty && !cli.out.quiet) {
        o.progress = show_progress;
        o.progress_user = &cli;
    }

    /* No SA_RESTART: a signal must cut through the waits at once. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        sigaction(stop_signals[i].sig, &sa, &old[i]);
    got_signal = 0;
    got_signal_kernel = 0;
    o.interrupted = &got_signal;
    o.interrupted_by_kernel = &got_signal_kernel;
    if (mode == GC_CAPTURE_RUN) {
        o.tree_event = on_tree_event;
        o.tree_event_user = &tc;
        run_reporter_start(&tc.reporter, &cli.out, op);
    }

    st = gc_capture_run(&o, &r, &d);

    end_progress(&cli);
    if (mode == GC_CAPTURE_RUN && r.pid > 0) {
        /* The command was started: whatever happened, its status is gpucore's. */
        rc = run_finish(&cli, &o, &r, st, &d);
        if (r.signal && !got_signal)
            got_signal = r.signal; /* taken by the tree: the reports still made are abandoned */
    } else {
        rc = capture_finish(&cli, &o, &r, st, &d);
    }
    if (mode == GC_CAPTURE_RUN)
        run_reporter_finish(&tc.reporter, &got_signal);
    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        sigaction(stop_signals[i].sig, &old[i], NULL);
    return rc;
}

/*
 * run: whether the command @p pid has the signal @p sig to gpucore already: a SIGINT or SIGQUIT
 * the kernel sent (a terminal's ^C or ^\, which go to the whole foreground process group)
 * while the command is in gpucore's process group. Such a signal is not passed on, so the
 * command does not get it twice.
 */
static int command_has_it(pid_t pid, int sig, int from_kernel)
{
    return from_kernel && (sig == SIGINT || sig == SIGQUIT) && getpgid(pid) == getpgrp();
}

/*
 * run, once the command is detached and runs on (res.running): pass on every stop signal that
 * arrives (got_signal; the one that interrupted the capture first) and wait for its end.
 * The signals are blocked but while sigsuspend sleeps, so none is missed between the look at
 * got_signal and the sleep; SIGCHLD wakes it. 0 with *ret_status, or -1 (errno set).
 */
static int wait_command(pid_t pid, int *ret_status)
{
    struct sigaction sa, old_chld;
    sigset_t block, old, wake;
    int rc = -1, err = 0;

    sigemptyset(&block);
    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        sigaddset(&block, stop_signals[i].sig);
    sigaddset(&block, SIGCHLD);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
    sigprocmask(SIG_BLOCK, &block, &old);
    wake = old;
    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        sigdelset(&wake, stop_signals[i].sig);
    sigdelset(&wake, SIGCHLD);
    for (;;) {
        int sig = got_signal, w;

        if (sig) {
            got_signal = 0;
            if (!command_has_it(pid, sig, got_signal_kernel))
                (void)kill(pid, sig);
            /* A command stopped by job control would keep the signal pending, and gpucore
               would wait for ever: continue it, as timeout(1) does, always (a command just
               let go of in a group-stop is only on its way back to the stopped state). */
            (void)kill(pid, SIGCONT);
        }
        got_child = 0;
        w = gc_capture_reap_command(pid, ret_status);
        if (w == 1) {
            rc = 0;
            break;
        }
        if (w < 0) {
            err = errno;
            break;
        }
        sigsuspend(&wake);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    errno = err;
    return rc;
}

/* run or watch: the target ended by itself, without a GPU error; no core. */
static void say_no_exception(const struct gc_capture_result *r)
{
    fprintf(stderr,
            "gpucore: process %ld ended (%s %d) without a GPU exception; no core written\n",
            (long)r->pid, WIFSIGNALED(r->exit_status) ? "signal" : "status",
            WIFSIGNALED(r->exit_status) ? WTERMSIG(r->exit_status) : WEXITSTATUS(r->exit_status));
}

/*
 * run, once the command was started: never an orphan, never its status hidden. A failure after
 * the start is a warning (nothing is armed any more); an interruption is passed on to the
 * command; in every case gpucore waits for the command and exits with its status.
 */
static int run_finish(const struct capture_cli *cli, const struct gc_capture_opts *o,
                      struct gc_capture_result *r, gpucore_status_t st, const gpucore_diag_t *d)
{
    const char *msg = d->message[0] ? d->message : gpucore_strerror(st);
    int sig = got_signal, status;

    if (st == GPUCORE_E_INTR && sig) {
        /* --leave-tree: the signal goes to the command below; an abandoned capture was told. */
    } else if (st != GPUCORE_OK) {
        /* One line: the failure. Warnings (a resume that failed on a process that is gone)
         * would only repeat it. */
        fprintf(stderr, "gpucore: warning: %s: %snothing armed; %s (pid %ld) %s\n", msg,
                r->exception_code ? "no core written, " : "", o->argv[0], (long)r->pid,
                r->running ? "runs on untraced to its end" : "has ended");
    } else if (r->written) {
        /* The command's status comes first: a --json record that failed was reported. */
        (void)capture_report_core(&cli->out, o, r, &got_signal);
    } else if (r->exited && !r->cores && !r->failed && !cli->out.quiet) {
        /* (a capture that failed or was abandoned said so: there was an exception) */
        say_no_exception(r);
    }
    if (r->running) {
        if (got_signal)
            fprintf(stderr, "gpucore: %s %s %s (pid %ld); waiting for it to end\n",
                    signal_name(got_signal),
                    command_has_it(r->pid, got_signal, got_signal_kernel)
                        ? "from the terminal reached"
                        : "passed on to",
                    o->argv[0], (long)r->pid);
        if (wait_command(r->pid, &status) != 0)
            return cli_fail(CLI_EXIT_SOFTWARE, NULL, "cannot wait for %s (pid %ld): %s",
                            o->argv[0], (long)r->pid, strerror(errno));
        r->running = 0;
        r->exited = 1;
        r->exit_status = status;
    }
    return shell_status(r->exit_status);
}

/* capture and watch, and run when nothing was started. */
static int capture_finish(const struct capture_cli *cli, const struct gc_capture_opts *o,
                          const struct gc_capture_result *r, gpucore_status_t st,
                          const gpucore_diag_t *d)
{
    int json_rc = 0;

    if (st != GPUCORE_OK) {
        /* One line: the failure. Warnings (a resume that failed on a process that is gone)
         * would only repeat it. */
        cli_fail(0, NULL, "%s", d->message[0] ? d->message : gpucore_strerror(st));
        if (st == GPUCORE_E_LIMIT && r->over_budget)
            return CLI_EXIT_CANTCREAT; /* the budget cannot hold the core's own structure */
        return st == GPUCORE_E_INTR && got_signal ? 128 + got_signal : capture_exit_code(st);
    }
    if (r->written) {
        json_rc = capture_report_core(&cli->out, o, r, &got_signal);
    } else if (r->exited && !cli->out.quiet) {
        say_no_exception(r);
    }
    return json_rc ? json_rc : CLI_EXIT_OK;
}

int cmd_capture(int argc, char **argv)
{
    return run_capture_cmd(argc, argv, GC_CAPTURE_NOW);
}

int cmd_run(int argc, char **argv)
{
    return run_capture_cmd(argc, argv, GC_CAPTURE_RUN);
}

int cmd_watch(int argc, char **argv)
{
    return run_capture_cmd(argc, argv, GC_CAPTURE_WATCH);
}
