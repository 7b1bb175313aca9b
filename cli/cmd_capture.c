/* SPDX-License-Identifier: MIT */
/*
 * gpucore capture | run | watch: the three ways into the capture pipeline (capture/capture.h).
 *
 *   capture PID          capture now (a hang, or on demand)
 *   watch PID            wait for the first GPU queue error or memory violation, capture, let
 *                        the process go on to its own error handling
 *   run -- CMD [ARGS]    start CMD traced, then as watch; exit with CMD's status
 *
 * Output: progress on stderr while stderr is a terminal; one final line (unless --quiet);
 * errors as one "gpucore: ..." line with a sysexits code. SIGINT/SIGTERM stop the capture: no
 * core is written, the target is resumed and detached, and the exit code is 130.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "capture.h"
#include "cli.h"
#include "gc_util.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

/* The signals that end a capture early: the capture resumes the queues, disables debugging and
   detaches, then gpucore exits 128 + the signal, as a shell reports a process it killed. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSTOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

struct capture_cli {
    const char *cmd;
    int quiet;
    int tty;
    int progress_shown;
};

static void capture_help(const char *cmd, FILE *out)
{
    if (strcmp(cmd, "run") == 0)
        fprintf(out, "Usage: gpucore run [OPTIONS] -- COMMAND [ARGS...]\n\n"
                     "Start COMMAND under gpucore, wait for its first GPU queue error or memory\n"
                     "violation, write a core, then let COMMAND continue to its own error\n"
                     "handling. Exits with COMMAND's status (128 + signal if it was killed).\n\n");
    else if (strcmp(cmd, "watch") == 0)
        fprintf(out, "Usage: gpucore watch [OPTIONS] PID\n\n"
                     "Attach to process PID, wait for its first GPU queue error or memory\n"
                     "violation, write a core, then detach and let it continue to its own\n"
                     "error handling.\n\n");
    else
        fprintf(out, "Usage: gpucore capture [OPTIONS] PID\n\n"
                     "Write a core of process PID now: every host thread and, with every GPU\n"
                     "queue suspended, the GPU state. The process continues afterwards.\n\n");
    fprintf(out,
            "Options:\n"
            "  -o PATTERN         output file (default gpucore.%%p): %%p pid, %%h host name,\n"
            "                     %%t time (s), %%e executable (comm, 15 bytes), %%j SLURM job id,\n"
            "                     %%r MPI rank, %%%% %%. In values '/' becomes '!', and '.', '..'\n"
            "                     and an empty or unset value become '!', '!.' and '!'\n"
            "  --tier TIER        state|scratch|referenced|all (default referenced): how much GPU\n"
            "                     memory beyond the wave state, queues and code objects\n"
            "  --max-size N[K|M|G] size budget of the file, never exceeded: its apparent size\n"
            "                     (ls -l, holes included; with --compress the compressed bytes).\n"
            "                     The least needed memory is left out and the core marked\n"
            "                     truncated. At least 4K; the headers and notes must fit\n"
            "  --deadline N[ms|s|m] time budget of the capture (plain N: seconds); past it the\n"
            "                     core is cut and marked truncated\n"
            "  --compress[=LEVEL] zstd seekable compression (level 1..19, default 3)\n"
            "  --kfd linux|sim    driver backend (default: $GPUCORE_KFD, else linux)\n"
            "  --quiet            no final summary line\n"
            "  -h, --help         this text\n\n"
            "Exit codes: 0 core written, 64 usage, 66 no such process, 69 no GPU driver,\n"
            "73 cannot create the core (or its headers and notes exceed --max-size),\n"
            "74 I/O error, 77 not permitted (ptrace), 130 interrupted%s.\n",
            strcmp(cmd, "run") == 0 ? "; otherwise the command's own status" : "");
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

static void show_progress(void *user, const char *what)
{
    struct capture_cli *cli = user;

    fprintf(stderr, "\rgpucore: %s...\033[K", what);
    fflush(stderr);
    cli->progress_shown = 1;
}

static void end_progress(struct capture_cli *cli)
{
    if (cli->progress_shown) {
        fputs("\r\033[K", stderr);
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

static const char *reason_text(uint32_t reason)
{
    static const struct {
        uint32_t reason;
        const char *text;
    } texts[] = {
        { GPUCORE_REASON_TIER, "tier all not requested" },
        { GPUCORE_REASON_BUDGET, "size budget" },
        { GPUCORE_REASON_DEADLINE, "deadline" },
        { GPUCORE_REASON_IO_ERROR, "unreadable" },
        { GPUCORE_REASON_POLICY, "coredump_filter" },
        { GPUCORE_REASON_SPECIAL, "doorbells and MMIO" },
    };

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if (texts[i].reason == reason)
            return texts[i].text;
    return "not captured";
}

static void print_summary(const struct gc_capture_opts *o, const struct gc_capture_result *r)
{
    /* The reasons memory is left out, in the order they act; each with its own figure. */
    static const uint32_t reasons[] = { GPUCORE_REASON_TIER, GPUCORE_REASON_BUDGET,
                                        GPUCORE_REASON_DEADLINE, GPUCORE_REASON_IO_ERROR };
    char size[32], skipped[32], tiers[64] = "";
    int first = 1;

    for (uint32_t t = 0; t < r->tiers_written && t <= GPUCORE_TIER_ALL; t++) {
        if (t)
            strncat(tiers, "+", sizeof(tiers) - strlen(tiers) - 1);
        strncat(tiers, gpucore_tier_name(t), sizeof(tiers) - strlen(tiers) - 1);
    }
    if (!tiers[0])
        snprintf(tiers, sizeof(tiers), "none complete");
    /* Without the whole state tier some of the waves counted have no saved state in the
       core: say so next to the count. */
    fprintf(stderr, "gpucore: %s: %s on disk, %u waves (%u faulting%s), tiers %s", r->path,
            gc_format_size(r->file_bytes, size, sizeof(size)), r->waves, r->faulting_waves,
            r->tiers_written || !r->waves ? "" : "; not all saved", tiers);
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
        uint64_t bytes = r->skipped_by_reason[reasons[i]];
        char why[48];

        if (!bytes)
            continue;
        if (reasons[i] == GPUCORE_REASON_TIER && o->tier + 1 < GPUCORE_TIER_ALL)
            snprintf(why, sizeof(why), "tiers above %s not requested", gpucore_tier_name(o->tier));
        else
            snprintf(why, sizeof(why), "%s", reason_text(reasons[i]));
        fprintf(stderr, "%s%s (%s)", first ? ", skipped " : " + ",
                gc_format_size(bytes, skipped, sizeof(skipped)), why);
        first = 0;
    }
    if (r->truncated)
        fprintf(stderr, ", TRUNCATED (%s)", reason_text(r->truncation_reason));
    fprintf(stderr, ", %.2f s\n", (double)r->duration_ns / 1e9);
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

static int run_capture_cmd(int argc, char **argv, enum gc_capture_mode mode)
{
    static const struct option longopts[] = {
        { "tier", required_argument, NULL, 't' },
        { "max-size", required_argument, NULL, 'm' },
        { "deadline", required_argument, NULL, 'D' },
        { "compress", optional_argument, NULL, 'z' },
        { "kfd", required_argument, NULL, 'k' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cmd = argv[0];
    struct capture_cli cli = { .cmd = cmd };
    struct gc_capture_opts o;
    struct gc_capture_result r;
    gpucore_diag_t d = { 0 };
    const char *env = getenv("GPUCORE_KFD");
    char opts_buf[1024];
    struct sigaction sa, old[NSTOP_SIGNALS];
    gpucore_status_t st;
    long pid = 0, level;
    int c;

    memset(&o, 0, sizeof(o));
    o.mode = mode;
    o.tier = GPUCORE_TIER_REFERENCED;
    o.kfd.backend = GC_KFD_BACKEND_LINUX;
    if (env && *env && cli_parse_backend(env, &o.kfd.backend) != 0)
        return cli_usage_error(cmd, "GPUCORE_KFD must be linux or sim, got '%s'", env);
    optind = 1;
    opterr = 0;
    /* run: options end at the command; capture and watch take them on either side of PID. */
    while ((c = getopt_long(argc, argv, mode == GC_CAPTURE_RUN ? "+o:h" : "o:h", longopts,
                            NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!*optarg)
                return cli_usage_error(cmd, "-o takes a file name pattern");
            o.output_pattern = optarg;
            break;
        case 't':
            if (parse_tier(optarg, &o.tier) != 0)
                return cli_usage_error(cmd, "--tier takes state, scratch, referenced or all, "
                                            "got '%s'", optarg);
            break;
        case 'm':
            if (cli_parse_size(optarg, &o.max_size) != 0 || o.max_size == 0)
                return cli_usage_error(cmd, "--max-size takes a size such as 512M, got '%s'",
                                       optarg);
            if (o.max_size < GPUCORE_WRITER_MIN_BUDGET)
                return cli_usage_error(cmd, "--max-size %s is below the smallest core, %u bytes "
                                            "(4K)", optarg, GPUCORE_WRITER_MIN_BUDGET);
            break;
        case 'D':
            if (parse_duration(optarg, &o.deadline_ms) != 0)
                return cli_usage_error(cmd, "--deadline takes a duration such as 500ms, 10s "
                                            "or 2m, got '%s'", optarg);
            break;
        case 'z':
            o.compress = 1;
            if (optarg) {
                if (cli_parse_int(optarg, 1, 19, &level) != 0)
                    return cli_usage_error(cmd, "--compress takes a level 1..19, got '%s'",
                                           optarg);
                o.compress_level = (int32_t)level;
            }
            break;
        case 'k':
            if (cli_parse_backend(optarg, &o.kfd.backend) != 0)
                return cli_usage_error(cmd, "--kfd takes linux or sim, got '%s'", optarg);
            break;
        case 'q':
            cli.quiet = 1;
            break;
        case 'h':
            capture_help(cmd, stdout);
            return CLI_EXIT_OK;
        case '?':
        default:
            return cli_usage_error(cmd, "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    options_text(argc, argv, optind, opts_buf, sizeof(opts_buf));
    o.options_text = opts_buf;
    if (mode == GC_CAPTURE_RUN) {
        if (optind >= argc)
            return cli_usage_error(cmd, "expected -- COMMAND [ARGS...]");
        if (strcmp(argv[optind - 1], "--") != 0)
            return cli_usage_error(cmd, "put -- before the command, as in "
                                        "`gpucore run -- %s`", argv[optind]);
        o.argv = argv + optind;
    } else {
        if (optind >= argc)
            return cli_usage_error(cmd, "expected a process id");
        if (optind + 1 < argc)
            return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
        if (cli_parse_int(argv[optind], 1, 0x3fffffff, &pid) != 0)
            return cli_usage_error(cmd, "expected a process id, got '%s'", argv[optind]);
        o.pid = (pid_t)pid;
    }
    cli.tty = isatty(STDERR_FILENO);
    if (cli.tty && !cli.quiet) {
        o.progress = show_progress;
        o.progress_user = &cli;
    }

    /* No SA_RESTART: a signal must cut through the waits at once. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        sigaction(stop_signals[i], &sa, &old[i]);
    got_signal = 0;
    o.interrupted = &got_signal;

    st = gc_capture_run(&o, &r, &d);

    for (size_t i = 0; i < NSTOP_SIGNALS; i++)
        sigaction(stop_signals[i], &old[i], NULL);
    end_progress(&cli);
    if (st != GPUCORE_OK) {
        /* One line: the failure. Warnings (a resume that failed on a process that is gone)
         * would only repeat it. */
        if (mode == GC_CAPTURE_RUN && r.pid > 0 && !r.exited && st != GPUCORE_E_INTR)
            cli_fail(0, NULL, "%s (%s, pid %ld, runs on untraced)",
                     d.message[0] ? d.message : gpucore_strerror(st), o.argv[0], (long)r.pid);
        else
            cli_fail(0, NULL, "%s", d.message[0] ? d.message : gpucore_strerror(st));
        if (st == GPUCORE_E_LIMIT && r.over_budget)
            return CLI_EXIT_CANTCREAT; /* the budget cannot hold the core's own structure */
        return st == GPUCORE_E_INTR && got_signal ? 128 + got_signal : capture_exit_code(st);
    }
    if (r.written) {
        if (!cli.quiet) {
            if (r.warning[0])
                fprintf(stderr, "gpucore: warning: %s%s\n", r.warning,
                        r.nwarnings > 1 ? " (and more: see `gpucore info`)" : "");
            print_summary(&o, &r);
        }
    } else if (r.exited && !cli.quiet) {
        fprintf(stderr, "gpucore: process %ld ended (%s %d) without a GPU exception; no core "
                        "written\n", (long)r.pid,
                WIFSIGNALED(r.exit_status) ? "signal" : "status",
                WIFSIGNALED(r.exit_status) ? WTERMSIG(r.exit_status)
                                           : WEXITSTATUS(r.exit_status));
    }
    if (mode == GC_CAPTURE_RUN)
        /* Interrupted while waiting for the command after the core was written: it runs on
         * untraced. */
        return r.exited ? shell_status(r.exit_status)
                        : got_signal ? 128 + got_signal : CLI_EXIT_OK;
    return CLI_EXIT_OK;
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
