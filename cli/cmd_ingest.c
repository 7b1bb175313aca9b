/* SPDX-License-Identifier: MIT */
/*
 * gpucore ingest: the pipe handler for the ROCm runtime's HSA_COREDUMP_PATTERN="|..." (the GPU
 * half of a crash on stdin) and, with --host, for the kernel's core_pattern pipe (the host
 * half). Reads the stream once, front to back, and writes it compressed as it reads
 * (capture/ingest.h); keeps the tier asked for; on any failure prints one line and reads
 * stdin to its end before exiting, so the writer never gets EPIPE or SIGPIPE. With --dir (or
 * --store, which also indexes what is written), the two halves of one pid are merged
 * (libcore/internal/split_merge.h) when the second arrives, and the halves removed.
 * docs/ingest.md has the setup.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "cli_store.h"
#include "gc_util.h"
#include "ingest.h"
#include "ingest_dir.h"
#include "journal.h"
#include "split_merge.h"
#include "store.h"

enum ingest_file {
    INGEST_GPU_HALF,  /* what the runtime streamed */
    INGEST_HOST_HALF, /* what the kernel streamed */
    INGEST_MERGED,    /* both, merged */
};

struct ingest_args {
    const char *pattern; /* -o */
    const char *dir;     /* --dir */
    int host;            /* --host */
    long pid;            /* --pid, or the parent's */
    int keep_all;        /* --tier all */
    uint64_t small_total; /* --small-total; 0 = GC_INGEST_SMALL_TOTAL_MAX */
    int compress;
    long level;
    int foreground;        /* --foreground-merge */
    int store;             /* --store: --dir is the store's directory; what is written is indexed */
    const char *store_opt; /* --store=DIR, or NULL: the default store */
    char store_dir[PATH_MAX];
    uint64_t max_size;      /* --max-size; 0 = not given */
    const char *config;     /* --config FILE, or NULL: the caller's default store.conf */
    const char *fleet;      /* --fleet-index URI, or NULL: store.conf's FleetIndex= */
    uint64_t limit;         /* the size limit applied (ingest_limit()); 0 = the library's
                               default for the half */
    char limit_from[PATH_MAX + 32]; /* where it comes from, for the final line */
    /* The output directory (open_output_dir()): every file is reached relative to dirfd. */
    int dirfd;
    char out_dir[PATH_MAX]; /* its path, for messages (and where /proc is not mounted) */
    char prefix[PATH_MAX + 1]; /* what names are shown after: "DIR/", "" for -o NAME alone */
    char name[GC_INGEST_NAME_MAX + 16]; /* this half's name in it */
};

/* Room for a name of the output directory: a name and what gc_ingest_publish() adds. */
#define NAME_SIZE (GC_INGEST_NAME_MAX + 16)

static void ingest_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore ingest [OPTIONS] (-o PATTERN | --dir DIR | --store[=DIR]) < CORE\n\n"
            "Read a core from stdin as it is written and store it compressed, keeping the\n"
            "tier asked for. For the ROCm runtime:\n"
            "  HSA_COREDUMP_PATTERN='|/usr/bin/gpucore ingest --store --pid %%p'\n"
            "and for the kernel's host core (the other half of the crash):\n"
            "  kernel.core_pattern=|/usr/bin/gpucore ingest --host --pid %%P --store\n"
            "With --dir or --store, when both halves of one pid are there they are merged\n"
            "into one unified core, gpucore.PID[.zst], and the halves removed.\n\n"
            "  -o PATTERN          output file (%%p pid, %%t time, %%h host, %%e executable,\n"
            "                      %%j job, %%r rank, %%%%); no pairing\n"
            "      --dir DIR       output directory (created 0700 when missing):\n"
            "                      gpucore.PID.gpu[.zst] (GPU half),\n"
            "                      core.PID[.zst] (--host), gpucore.PID[.zst] (merged)\n"
            "      --store[=DIR]   as --dir, into the core store (docs/store.md; the default\n"
            "                      store without DIR), and index what is written before\n"
            "                      exiting; a merge leaves one row, the merged core's\n"
            "      --pid PID       the crashed process (default: the parent process)\n"
            "      --host          stdin is the kernel's host core, not the GPU half\n"
            "      --tier T        state (default) or all: what of the GPU memory is kept\n"
            "      --small-total N state: the GPU allocations of at most 1M kept whole, in\n"
            "                      all, at most N (K/M/G; default 64M), in stream order\n"
            "      --max-size SIZE the most the core may take on disk (K/M/G/T, at least 4K,\n"
            "                      or infinity); past it the stream is read and dropped and\n"
            "                      the core is marked truncated. Default: HostSizeMax= (with\n"
            "                      --host) or GpuSizeMax= of store.conf, else 4G\n"
            "      --fleet-index URI  with --store: the fleet index the rows also go to (else\n"
            "                      store.conf's FleetIndex=; docs/fleet.md)\n"
            "      --config FILE   store.conf to read instead of the default one\n"
            "                      (" GC_STORE_CONF_SYSTEM " for root,\n"
            "                      ~/.config/gpucore/store.conf otherwise)\n"
            "      --compress[=L]  zstd level " CLI_ZSTD_LEVEL_TEXT " (default: on, level 3)\n"
            "      --no-compress   store the plain core\n"
            "      --foreground-merge  merge in this process before exiting (default: in a\n"
            "                      detached child, so the writer's pclose() returns at once)\n"
            "  -h, --help          this text\n\n"
            "A core cut by its size limit is kept: exit 0 and a warning; so is one whose\n"
            "name a file already has (it takes the next free name). On failure: one line on\n"
            "stderr, stdin read to its end, exit 65 (bad stream), 73 (the output cannot be\n"
            "created, or its headers alone exceed the size limit), 74 (I/O error), 77 (a\n"
            "--dir or store refused: a symlink, another user's, writable by group or others;\n"
            "or, merging in the foreground, the other half refused) or 64 (usage).\n");
}

/*
 * The one place output names are made: the name, in the output directory, of the file for
 * @p which of process @p pid (--dir and --store; -o names its one file in open_output_dir()).
 */
static void ingest_output_name(const struct ingest_args *a, enum ingest_file which, long pid,
                               char *buf, size_t size)
{
    static const char *const names[] = { "gpucore.", "core.", "gpucore." };
    static const char *const suffixes[] = { ".gpu", "", "" };

    snprintf(buf, size, "%s%ld%s%s", names[which], pid, suffixes[which],
             a->compress ? ".zst" : "");
}

/* A file of the output directory as messages name it. */
static const char *shown(const struct ingest_args *a, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", a->prefix, name);
    return buf;
}

/*
 * Open the output directory once, and name this half's file in it. --dir: checked by the
 * store's rules (store.h, gc_store_open_private_dir()), refused with 77; --store: the store's
 * directory, created and checked as the store does; -o PATTERN: the expanded path's directory
 * (the administrator's choice of a file: not checked, followed). Returns 0, or an exit code
 * after printing why (77 a directory refused, 73 one that cannot be opened, 64 a bad -o).
 */
static int open_output_dir(struct ingest_args *a)
{
    gpucore_diag_t d = { 0 };

    if (a->pattern) {
        char storage[GC_CAPTURE_VARS_STORAGE], path[PATH_MAX];
        struct gc_capture_vars v;
        const char *slash;

        gc_capture_vars_fill(&v, (pid_t)a->pid, storage, sizeof(storage));
        if (gc_capture_expand_path(a->pattern, &v, path, sizeof(path), &d) != GPUCORE_OK)
            return cli_fail(CLI_EXIT_USAGE, NULL, "-o %s: %s", a->pattern, d.message);
        slash = strrchr(path, '/');
        if (snprintf(a->name, sizeof(a->name), "%s", slash ? slash + 1 : path) >=
                    (int)sizeof(a->name) ||
            !a->name[0])
            return cli_fail(CLI_EXIT_USAGE, NULL, "-o %s: not a file name", a->pattern);
        snprintf(a->out_dir, sizeof(a->out_dir), "%.*s",
                 slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
        snprintf(a->prefix, sizeof(a->prefix), "%.*s", slash ? (int)(slash + 1 - path) : 0,
                 path);
        a->dirfd = open(a->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (a->dirfd < 0)
            return cli_fail(CLI_EXIT_CANTCREAT, path, "cannot open its directory: %s",
                            strerror(errno));
        return 0;
    }
    snprintf(a->out_dir, sizeof(a->out_dir), "%s", a->dir);
    snprintf(a->prefix, sizeof(a->prefix), "%s/", a->dir);
    /* root's handler pairs the kernel's host half with the GPU half the user's runtime wrote
       in the user's own directory; a store, whose index root would trust, must be root's */
    /* both are created when missing (0700, parents too), as every --store is */
    a->dirfd = gc_store_open_private_dir(a->dir, a->store ? "store" : "directory",
                                         a->store ? GC_STORE_CREATE
                                                  : GC_STORE_CREATE | GC_STORE_ROOT_ANY_OWNER,
                                         &d);
    if (a->dirfd < 0) {
        if (a->store)
            return cli_store_fail(&d);
        return cli_fail(d.status == GPUCORE_E_PERM ? CLI_EXIT_NOPERM : CLI_EXIT_CANTCREAT, NULL,
                        "%s", d.message);
    }
    ingest_output_name(a, a->host ? INGEST_HOST_HALF : INGEST_GPU_HALF, a->pid, a->name,
                       sizeof(a->name));
    return 0;
}

static int parse_args(int argc, char **argv, struct ingest_args *a)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "dir", required_argument, NULL, 'd' },
        { "pid", required_argument, NULL, 'p' },
        { "host", no_argument, NULL, 'H' },
        { "tier", required_argument, NULL, 't' },
        { "small-total", required_argument, NULL, 's' },
        { "compress", optional_argument, NULL, 'z' },
        { "no-compress", no_argument, NULL, 'Z' },
        { "foreground-merge", no_argument, NULL, 'F' },
        { "store", optional_argument, NULL, 'S' },
        { "max-size", required_argument, NULL, 'm' },
        { "config", required_argument, NULL, 'c' },
        { "fleet-index", required_argument, NULL, 'I' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->pattern = optarg;
            break;
        case 'd':
            a->dir = optarg;
            break;
        case 'p':
            if (cli_parse_int(optarg, 1, INT32_MAX, &a->pid) != 0)
                return cli_usage_error("ingest", "--pid takes a process id, got '%s'", optarg);
            break;
        case 'H':
            a->host = 1;
            break;
        case 't':
            if (strcmp(optarg, "state") == 0)
                a->keep_all = 0;
            else if (strcmp(optarg, "all") == 0)
                a->keep_all = 1;
            else
                return cli_usage_error("ingest", "--tier takes state or all on a stream, got '%s'",
                                       optarg);
            break;
        case 's':
            if (cli_parse_size(optarg, &a->small_total) != 0 || a->small_total == 0)
                return cli_usage_error("ingest", "--small-total takes a size such as 64M, got "
                                                 "'%s'", optarg);
            break;
        case 'z':
            a->compress = 1;
            if (optarg && cli_parse_zstd_level(optarg, &a->level) != 0)
                return cli_usage_error(
                        "ingest", "--compress takes " CLI_ZSTD_LEVEL_TEXT ", got '%s'", optarg);
            break;
        case 'Z':
            a->compress = 0;
            break;
        case 'F':
            a->foreground = 1;
            break;
        case 'S':
            a->store = 1;
            a->store_opt = optarg;
            /* "--store DIR" too: ingest takes no operand, so a word after --store that is no
               option is its directory (as list, show and gc read it) */
            if (!optarg && optind < argc && argv[optind][0] != '-')
                a->store_opt = argv[optind++];
            break;
        case 'm':
            if (gc_store_parse_limit(optarg, &a->max_size) != 0)
                return cli_usage_error("ingest",
                                       "--max-size takes a size of at least 4K such as 4G, or "
                                       "infinity, got '%s'",
                                       optarg);
            break;
        case 'c':
            a->config = optarg;
            break;
        case 'I':
            if (cli_fleet_option("ingest", optarg) != 0)
                return CLI_EXIT_USAGE;
            a->fleet = optarg;
            break;
        case 'h':
            ingest_help(stdout);
            return -1;
        default:
            return cli_usage_error("ingest", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error("ingest", "unexpected argument '%s': the core comes on stdin",
                               argv[optind]);
    if (!!a->pattern + !!a->dir + a->store != 1)
        return cli_usage_error("ingest", "give exactly one of -o PATTERN, --dir DIR and --store");
    if (a->store) {
        gpucore_diag_t d;

        if (gc_store_locate(a->store_opt, a->store_dir, sizeof(a->store_dir), &d) != GPUCORE_OK)
            return cli_store_fail(&d);
        a->dir = a->store_dir;
    }
    if (a->host && !a->pid)
        return cli_usage_error("ingest", "--host needs --pid (the kernel's %%P)");
    if (!a->pid)
        a->pid = (long)getppid();
    return 0;
}

/*
 * The GPU half's CAPTURE_META: the stream carries no metadata of its own (the runtime's file
 * has the AMDGPU note alone), and the store needs the process, the time and the host. The
 * process is alive while it writes into the pipe: its executable is /proc/PID/exe. Trigger
 * "unknown" (the runtime dumps on a queue error or a memory violation and does not say
 * which), the tier kept, options "ingest --tier T". *ret_desc freed with gpucore_free().
 */
static gpucore_status_t ingest_meta(const struct ingest_args *a, void **ret_desc, size_t *ret_size)
{
    gpucore_capture_meta_t m;
    struct timespec now;
    struct utsname u;
    char host[256] = "", exe[4096], link[64];
    const char *options = a->keep_all ? "ingest --tier all" : "ingest --tier state";
    char storage[GC_CAPTURE_VARS_STORAGE], job[GC_CAPTURE_VALUE_MAX + 1],
            rank[GC_CAPTURE_VALUE_MAX + 1];
    struct gc_capture_vars vars;
    struct stat sb;
    ssize_t n;

    memset(&m, 0, sizeof(m));
    clock_gettime(CLOCK_REALTIME, &now);
    m.time_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    m.pid = (uint32_t)a->pid;
    m.trigger = GPUCORE_TRIGGER_UNKNOWN;
    m.tier = a->keep_all ? GPUCORE_TIER_ALL : GPUCORE_TIER_STATE;
    m.exception_queue_id = 0xffffffffu;
    m.compress_level = a->compress ? (int32_t)a->level : 0;
    m.producer = (gpucore_str_t){ "gpucore", 7 };
    m.producer_version =
            (gpucore_str_t){ GPUCORE_VERSION_STRING, (uint32_t)strlen(GPUCORE_VERSION_STRING) };
    if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        gc_utf8_scrub(host, strlen(host));
        m.hostname = (gpucore_str_t){ host, (uint32_t)strlen(host) };
    }
    if (uname(&u) == 0) {
        gc_utf8_scrub(u.release, strlen(u.release));
        m.kernel = (gpucore_str_t){ u.release, (uint32_t)strlen(u.release) };
    }
    snprintf(link, sizeof(link), "/proc/%ld/exe", a->pid);
    n = readlink(link, exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        gc_utf8_scrub(exe, (size_t)n); /* the note holds UTF-8; the process chose the name */
        m.exe = (gpucore_str_t){ exe, (uint32_t)n };
    }
    m.options = (gpucore_str_t){ options, (uint32_t)strlen(options) };
    /* Whose and which job (format 1.4), as a capture records them: the owner of /proc/PID
       (the process's effective uid) and the %j/%r variables of its environment. */
    snprintf(link, sizeof(link), "/proc/%ld", a->pid);
    if (stat(link, &sb) == 0) {
        m.uid = (uint32_t)sb.st_uid;
        m.flags |= GPUCORE_META_UID_KNOWN;
    }
    gc_capture_vars_fill(&vars, (pid_t)a->pid, storage, sizeof(storage));
    if (vars.job_id && *vars.job_id) {
        snprintf(job, sizeof(job), "%s", vars.job_id);
        gc_utf8_scrub(job, strlen(job));
        m.job = (gpucore_str_t){ job, (uint32_t)strlen(job) };
    }
    if (vars.rank && *vars.rank) {
        snprintf(rank, sizeof(rank), "%s", vars.rank);
        gc_utf8_scrub(rank, strlen(rank));
        m.rank = (gpucore_str_t){ rank, (uint32_t)strlen(rank) };
    }
    return gpucore_capture_meta_encode(&m, ret_desc, ret_size, NULL);
}

/* --store, run by root (the kernel's handler): the user whose process crashed may read the
   core (gc_store_share_with_owner()); a failure is a warning, the core is kept. */
static void store_share(const struct ingest_args *a, struct gc_store *s, const char *name)
{
    char path[PATH_MAX + NAME_SIZE];
    gpucore_diag_t d = { 0 };

    if (gc_store_share_with_owner(s, name, NULL, &d) != GPUCORE_OK)
        fprintf(stderr, "gpucore: warning: %s (the core is kept, readable by root only)\n",
                d.message[0] ? d.message : shown(a, name, path, sizeof(path)));
}

/* --store of root: the users' views of the store follow its rows (gc_store_sync_views());
   a failure is a warning, the cores and the index are as they should be. */
static void store_sync_views(const struct ingest_args *a, struct gc_store *s)
{
    gpucore_diag_t d = { 0 };

    if (gc_store_sync_views(s, &d) != GPUCORE_OK)
        fprintf(stderr, "gpucore: warning: %s\n", d.message);
    /* and the fleet index, if one is set: a failure is a warning, the rows wait */
    cli_fleet_sync_warn(s, a->fleet, a->config);
}

/*
 * --store: the store's retention after a core was added (store.conf's limits: gc_store_retain()),
 * never removing @p name nor the other half of its pid, which a merge is to read. A failure is
 * a warning: the core is kept. What was removed is said in one line.
 */
static void store_retain(const struct ingest_args *a, struct gc_store *s, const char *name)
{
    char other[NAME_SIZE], path[PATH_MAX + NAME_SIZE], size[32];
    const char *keep[GC_STORE_KEEP_MAX] = { name, other };
    gpucore_diag_t d = { 0 };
    size_t removed = 0;
    uint64_t freed = 0;

    ingest_output_name(a, a->host ? INGEST_GPU_HALF : INGEST_HOST_HALF, a->pid, other,
                       sizeof(other));
    if (gc_store_retain(s, a->config, keep, &removed, &freed, &d) != GPUCORE_OK)
        fprintf(stderr, "gpucore: warning: %s: the store's limits were not applied: %s (the "
                        "core is kept; `gpucore gc` applies them)\n",
                shown(a, name, path, sizeof(path)), d.message);
    if (removed)
        fprintf(stderr, "gpucore: %s: %zu older core%s removed by the store's limits (%s; "
                        "store.conf)\n",
                a->dir, removed, removed == 1 ? "" : "s", gc_format_size(freed, size, sizeof(size)));
}

/*
 * --store: index @p path (a file directly in the store); *ret_id its row, 0 when not indexed.
 * Never a failure of the ingest: the core is written, a warning says why it is not in the
 * index, and `gpucore store --rescan` adds it later. @p retain: then apply the store's limits
 * (store_retain()); a merge does that once its halves are gone, so they count for nothing.
 * Then, with --store or without, the core's journal entry (@p writer: enum gc_journal_writer)
 * with the row just made, or read by its name when there is none.
 */
static void store_index(const struct ingest_args *a, const char *name, int retain, int writer,
                        int64_t *ret_id)
{
    struct gc_store *s = NULL;
    struct gc_store_row row = { 0 };
    gpucore_diag_t d;
    char path[PATH_MAX + NAME_SIZE];

    *ret_id = 0;
    shown(a, name, path, sizeof(path));
    if (!a->store) {
        cli_journal_file(a->dirfd, a->dir, name, path, writer);
        return;
    }
    if (gc_store_open(a->dir, GC_STORE_CREATE, &s, &d) != GPUCORE_OK ||
        gc_store_row_from_file(s, name, &row, &d) != GPUCORE_OK ||
        gc_store_put(s, &row, &d) != GPUCORE_OK) {
        fprintf(stderr, "gpucore: warning: %s: not indexed: %s (gpucore store --rescan adds it)\n",
                path, d.message);
    } else {
        *ret_id = row.id;
        store_share(a, s, name);
        if (retain)
            store_retain(a, s, name);
        store_sync_views(a, s);
    }
    /* the journal's entry, with the row just made (not read again) when there is one */
    if (row.file)
        cli_journal_row(&row, path, writer);
    else
        cli_journal_file(a->dirfd, a->dir, name, path, writer);
    gc_store_row_done(&row);
    gc_store_close(s);
}

/*
 * --store: the rows of the halves merged into @p merged (both removed) are dropped: the merged
 * core is the crash's one row (with the host half's pid), and a half's row would list the crash
 * twice and count it seen twice. A failure is a warning; `gpucore store --rescan` marks such
 * rows missing. Then the store's limits, never removing @p merged.
 */
static void store_forget_halves(const struct ingest_args *a, const char *gpu_name,
                                const char *host_name, const char *merged)
{
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };

    if (!a->store)
        return;
    if (gc_store_open(a->dir, GC_STORE_CREATE, &s, &d) != GPUCORE_OK) {
        fprintf(stderr, "gpucore: warning: the rows of the merged halves stay in the index: %s\n",
                d.message);
        return;
    }
    if (gc_store_forget(s, gpu_name, &d) != GPUCORE_OK ||
        gc_store_forget(s, host_name, &d) != GPUCORE_OK)
        fprintf(stderr, "gpucore: warning: the rows of the merged halves stay in the index: %s\n",
                d.message);
    store_retain(a, s, merged);
    store_sync_views(a, s);
    gc_store_close(s);
}

/*
 * Give the file written under the hidden name @p tmp its name, @p name or a free one when an
 * entry has it (ingest_dir.h: an entry a user made there never costs the crash), saying so.
 * 0 with @p final set, or an exit code after printing why: the file stays under @p tmp then.
 */
static int publish(const struct ingest_args *a, const char *tmp, const char *name, char *final,
                   size_t final_size)
{
    char p1[PATH_MAX + NAME_SIZE], p2[PATH_MAX + NAME_SIZE];
    gpucore_diag_t d = { 0 };

    if (gc_ingest_publish(a->dirfd, tmp, name, final, final_size, &d) != GPUCORE_OK)
        return cli_fail(d.status == GPUCORE_E_EXIST ? CLI_EXIT_CANTCREAT : CLI_EXIT_IOERR,
                        shown(a, tmp, p1, sizeof(p1)), "%s; the core is kept under this name",
                        d.message);
    if (strcmp(final, name) != 0)
        fprintf(stderr,
                "gpucore: warning: %s exists (ingest did not write it): the core is stored as "
                "%s\n",
                shown(a, name, p1, sizeof(p1)), shown(a, final, p2, sizeof(p2)));
    return 0;
}

/* One half to merge, opened relative to the directory (ingest_dir.h: a symlink, a FIFO or a
   hard link in its place is refused). */
struct half {
    const char *name;
    int fd;
    struct stat st;
    gpucore_core_t *core;
};

/*
 * Open @p h. 0, or an exit code after printing why (77 a file refused, 74 another failure);
 * a half that is gone (another ingest's merge took it) is 0 with h->core NULL.
 */
static int open_half(const struct ingest_args *a, struct half *h)
{
    char path[PATH_MAX + NAME_SIZE];
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_ingest_open_in(a->dirfd, h->name, &h->fd, &h->st, &d);

    shown(a, h->name, path, sizeof(path));
    if (st == GPUCORE_E_NOTFOUND)
        return 0;
    if (st != GPUCORE_OK)
        return cli_fail(st == GPUCORE_E_PERM ? CLI_EXIT_NOPERM : CLI_EXIT_IOERR, path,
                        "not merged: %s", d.message);
    return cli_open_core_fd(h->fd, path, GPUCORE_OPEN_ALLOW_TRUNCATED, &h->core);
}

static void close_half(struct half *h)
{
    gpucore_core_close(h->core);
    if (h->fd >= 0)
        close(h->fd);
}

/*
 * Merge the two halves of @p pid into a new file, named as ingest_output_name() says (or a
 * free name next to it), then remove them. Two ingests may merge the same halves at once
 * (both halves finished together); the one that finds the halves gone after its merge drops
 * its copy. Only the files merged are removed, never what took their names meanwhile.
 */
static int merge_halves(const struct ingest_args *a, const char *gpu_name, const char *host_name)
{
    char merged[NAME_SIZE], final[NAME_SIZE], tmp[NAME_SIZE], out[PATH_MAX + NAME_SIZE],
            path[PATH_MAX + NAME_SIZE];
    struct gc_merge_opts o = { .gpu_pid = a->pid, .compress = (uint32_t)a->compress,
                               .compress_level = (int32_t)a->level, .gpu_name = gpu_name,
                               .host_name = host_name };
    struct half g = { .name = gpu_name, .fd = -1 }, h = { .name = host_name, .fd = -1 };
    enum gc_merge_file which = GC_MERGE_OUT;
    gpucore_diag_t d;
    gpucore_status_t st;
    int rc;

    ingest_output_name(a, INGEST_MERGED, a->pid, merged, sizeof(merged));
    rc = open_half(a, &g);
    if (!rc)
        rc = open_half(a, &h);
    if (rc || !g.core || !h.core) {
        close_half(&g);
        close_half(&h);
        return rc;
    }
    o.time_ns = (uint64_t)g.st.st_mtim.tv_sec * 1000000000u + (uint64_t)g.st.st_mtim.tv_nsec;
    st = gc_ingest_tmp_path(a->dirfd, a->out_dir, merged, tmp, sizeof(tmp), out, sizeof(out), &d);
    if (st == GPUCORE_OK)
        st = gc_merge_split(g.core, h.core, out, &o, NULL, &which, &d);
    close_half(&g);
    close_half(&h);
    if (st != GPUCORE_OK) {
        if (which == GC_MERGE_OUT)
            return cli_report(shown(a, merged, path, sizeof(path)), &d, CLI_SIDE_OUTPUT);
        return cli_report(shown(a, which == GC_MERGE_GPU ? gpu_name : host_name, path,
                                sizeof(path)),
                          &d, CLI_SIDE_INPUT);
    }
    if (!gc_ingest_same_file(a->dirfd, gpu_name, &g.st) ||
        !gc_ingest_same_file(a->dirfd, host_name, &h.st)) {
        unlinkat(a->dirfd, tmp, 0); /* the other half's ingest merged them first */
        return CLI_EXIT_OK;
    }
    rc = publish(a, tmp, merged, final, sizeof(final));
    if (rc)
        return rc;
    {
        int64_t merged_id;

        store_index(a, final, 0, GC_JOURNAL_BY_MERGE, &merged_id);
        if (gc_ingest_same_file(a->dirfd, gpu_name, &g.st))
            unlinkat(a->dirfd, gpu_name, 0);
        if (gc_ingest_same_file(a->dirfd, host_name, &h.st))
            unlinkat(a->dirfd, host_name, 0);
        store_forget_halves(a, gpu_name, host_name, final);
    }
    return CLI_EXIT_OK;
}

/* In a child the writer must not wait for: out of its session, stdin and stdout /dev/null. */
static void detach(void)
{
    int null;

    setsid();
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        close(null);
    }
}

static int pair(const struct ingest_args *a, const char *written);

/*
 * What follows the stream: --store's indexing, here, so that the row exists when ingest exits
 * (`gpucore ingest ... && gpucore list` lists the core). Reading back the half just written is
 * bounded as every index of a file is (the library's default memory budget; the GPU half of
 * vadd-fault takes about 0.1 s). Then the pairing, whose merge, which reads both halves whole,
 * runs in a detached child unless --foreground-merge (pair()).
 */
static int after_stream(struct ingest_args *a, const char *written)
{
    int64_t id;

    store_index(a, written, 1, GC_JOURNAL_BY_INGEST, &id);
    return pair(a, written);
}

/*
 * Both halves there (@p written: the name this half got; the other's is its own name, an
 * entry of any kind: merge_halves() judges it)? Merge them: in a detached child (the writer
 * waits for this process in pclose(); it must not wait for the merge), or here with
 * --foreground-merge.
 */
static int pair(const struct ingest_args *a, const char *written)
{
    char other[NAME_SIZE];
    const char *gpu_name, *host_name;
    struct stat st;
    pid_t child;

    if (a->pattern)
        return CLI_EXIT_OK;
    ingest_output_name(a, a->host ? INGEST_GPU_HALF : INGEST_HOST_HALF, a->pid, other,
                       sizeof(other));
    if (fstatat(a->dirfd, other, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return CLI_EXIT_OK;
    gpu_name = a->host ? other : written;
    host_name = a->host ? written : other;
    if (a->foreground)
        return merge_halves(a, gpu_name, host_name);
    child = fork();
    if (child < 0)
        return cli_fail(CLI_EXIT_IOERR, NULL, "cannot start the merge: %s", strerror(errno));
    if (child > 0)
        return CLI_EXIT_OK;
    detach();
    _exit(merge_halves(a, gpu_name, host_name));
}

/*
 * The size limit of this half (docs/ingest.md, "Size limits"): --max-size, else store.conf's
 * HostSizeMax= or GpuSizeMax=, else ingest.h's default. A configuration file that cannot be
 * read or does not parse costs a warning, never the crash: the default applies then.
 */
static void ingest_limit(struct ingest_args *a)
{
    const char *key = a->host ? "HostSizeMax" : "GpuSizeMax";
    struct gc_store_conf c = { 0 };
    char path[PATH_MAX];
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    uint64_t v;

    if (a->max_size) {
        a->limit = a->max_size;
        snprintf(a->limit_from, sizeof(a->limit_from), "--max-size");
        return;
    }
    st = gc_store_conf_load(a->config, &c, path, sizeof(path), &d);
    if (st != GPUCORE_OK) {
        if (st == GPUCORE_E_CORRUPT || !path[0])
            fprintf(stderr, "gpucore: warning: %s; the default size limit applies\n", d.message);
        else
            fprintf(stderr, "gpucore: warning: %s: %s; the default size limit applies\n", path,
                    d.message);
    }
    v = a->host ? c.host_size_max : c.gpu_size_max;
    if (st == GPUCORE_OK && v) {
        a->limit = v;
        snprintf(a->limit_from, sizeof(a->limit_from), "%s= in %s", key, path);
        return;
    }
    a->limit = 0;
    snprintf(a->limit_from, sizeof(a->limit_from), "the default; %s= in store.conf sets it", key);
}

/* The last line of a core its size limit cut. */
static void say_limited(const struct ingest_args *a, const char *out,
                        const struct gc_ingest_result *res)
{
    char lim[32], over[32];

    fprintf(stderr,
            "gpucore: warning: %s: the core reached its size limit, %s (%s): %s of memory "
            "past it were read and dropped; what came before is kept, marked truncated\n",
            out, gc_format_size(res->max_bytes, lim, sizeof(lim)), a->limit_from,
            gc_format_size(res->bytes_over_limit, over, sizeof(over)));
}

/* gc_ingest_opts::warn: a save area kept whole, and why. */
static void ingest_warn(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "gpucore: warning: stdin: %s\n", msg);
}

int cmd_ingest(int argc, char **argv)
{
    struct ingest_args a = { .compress = 1, .level = 3, .dirfd = -1 };
    struct gc_ingest_result res = { 0 };
    char tmp[NAME_SIZE], final[NAME_SIZE], path[PATH_MAX + NAME_SIZE], out[PATH_MAX + NAME_SIZE];
    void *meta = NULL;
    size_t meta_size = 0;
    gpucore_diag_t d;
    gpucore_status_t st;
    int rc;

    /* Nothing this writes is a pipe the writer reads, but a closed stderr must not kill it. */
    signal(SIGPIPE, SIG_IGN);
    rc = parse_args(argc, argv, &a);
    if (rc == 0)
        rc = open_output_dir(&a);
    if (rc < 0)
        return CLI_EXIT_OK; /* --help: stdin may be a terminal, not a stream */
    if (rc == 0 && gc_ingest_tmp_path(a.dirfd, a.out_dir, a.name, tmp, sizeof(tmp), path,
                                      sizeof(path), &d) != GPUCORE_OK)
        rc = cli_report(shown(&a, a.name, out, sizeof(out)), &d, CLI_SIDE_OUTPUT);
    if (rc) {
        gc_ingest_drain(0);
        return rc;
    }
    shown(&a, a.name, out, sizeof(out));
    ingest_limit(&a);
    if (!a.host && ingest_meta(&a, &meta, &meta_size) != GPUCORE_OK)
        meta = NULL;
    st = gc_ingest_stream(0, path,
                          &(struct gc_ingest_opts){ .expect_gpu = !a.host,
                                                    .keep_all = a.host || a.keep_all,
                                                    .small_total_max = a.small_total,
                                                    .compress = (uint32_t)a.compress,
                                                    .compress_level = (int32_t)a.level,
                                                    .meta = meta,
                                                    .meta_size = meta_size,
                                                    .warn = ingest_warn,
                                                    .max_bytes = a.limit },
                          &res, &d);
    gpucore_free(meta);
    if (st != GPUCORE_OK) {
        if (res.output_failed)
            rc = cli_report(out, &d, CLI_SIDE_OUTPUT);
        else
            rc = cli_report("stdin", &d, CLI_SIDE_INPUT);
        gc_ingest_drain(0);
        return rc;
    }
    /* Bytes after the last segment (section headers): read, so the writer sees no EPIPE. */
    gc_ingest_drain(0);
    rc = publish(&a, tmp, a.name, final, sizeof(final));
    if (rc)
        return rc;
    shown(&a, final, out, sizeof(out));
    if (res.small_segments_over)
        fprintf(stderr,
                "gpucore: warning: stdin: %" PRIu32 " small GPU allocations past the %" PRIu64
                " bytes kept of them; of those only what the AMDGPU note names is kept "
                "(--small-total)\n",
                res.small_segments_over, res.small_bytes_kept);
    if (res.warnings > GC_INGEST_MAX_WARNINGS)
        fprintf(stderr, "gpucore: warning: stdin: %" PRIu32 " more warnings not shown\n",
                res.warnings - GC_INGEST_MAX_WARNINGS);
    if (res.stream_cut)
        fprintf(stderr,
                "gpucore: warning: %s: the stream ended after %" PRIu64 " bytes, before the "
                "core did; what arrived is kept, marked truncated\n",
                out, res.bytes_read);
    if (res.size_limited)
        say_limited(&a, out, &res);
    return after_stream(&a, final);
}
