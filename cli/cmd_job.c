/* SPDX-License-Identifier: MIT */
/*
 * gpucore job --fleet [--json] [--fleet-index URI] [--config FILE] JOBID: the same view across
 * hosts from the fleet index's rows alone (cmd_fleet_read.c, docs/fleet.md).
 *
 * gpucore job [--json] DIR|CORE...: the cores of one job side by side (analyze/job.h): which
 * rank faulted first, which ranks are victims, the signatures with their ranks, and a summary
 * line per job.
 *
 * A DIR argument stands for the core files directly in it (not below), in name order: links
 * are not followed, and files that are not regular or do not start as a core does (ELF, or a
 * zstd frame) are passed over, so a store's index is no noise. A core that cannot be analyzed,
 * and a file named as an argument that is not one, are listed as unreadable with the reason;
 * the others are still reported.
 *
 * Exit status: 0 reported (unreadable files included); 64 usage; 65 not one core could be
 * analyzed; 66 an argument cannot be opened; 70 out of memory or more than GC_JOB_MAX_CORES
 * cores; 74 output error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_fleet_read.h"
#include "job.h"
#include "job_keys.h"

static void job_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore job [--json] DIR|CORE...\n"
            "       gpucore job --fleet [--json] [--fleet-index URI] [--config FILE] JOBID\n"
            "\n"
            "The cores of one job side by side: which rank faulted first, which ranks\n"
            "are victims (hung: no fault of their own; or another fault), the crash\n"
            "signatures with the ranks that share them, and one summary line per job.\n"
            "Cores are grouped by the job id their capture recorded (SLURM_JOB_ID,\n"
            "PBS_JOBID, ... in the target's environment) and ordered by capture time;\n"
            "a rank is what OMPI_COMM_WORLD_RANK, PMIX_RANK, ... said, else \"pid N\".\n"
            "Cores without a job id are no job: they are listed apart, each as faulted\n"
            "or not, none of them first nor a victim. A DIR stands for the core files\n"
            "directly in it (links not followed; files that do not start as a core are\n"
            "passed over).\n"
            "\n"
            "  --json      the stable JSON document (schema \"" GC_JOB_SCHEMA "\";\n"
            "              --fleet: \"" JOB_FLEET_SCHEMA "\")\n"
            "  --fleet     the job JOBID across hosts, from the fleet index (docs/fleet.md):\n"
            "              ranks by capture time, the first to fault, the victims, the\n"
            "              signatures with their ranks and hosts, and each core's HOST:PATH\n"
            "              (on shared storage, `gpucore job PATH...` reads the cores)\n"
            "  --fleet-index URI  the fleet's database (default: FleetIndex= of store.conf)\n"
            "  --config FILE      the store.conf naming it\n"
            "  -h, --help  this text\n"
            "\n"
            "Exit status: 0 reported (files that are no core are listed as unreadable);\n"
            "64 usage; 65 not one core could be analyzed; 66 an argument cannot be\n"
            "opened; 70 out of memory or more than %u cores; 74 output error.\n",
            GC_JOB_MAX_CORES);
}

/* Open @p name (relative to @p dirfd) as a core, or say why not in @p why. @p follow: links
   are followed (an argument the user named), or not (a directory's entry). */
static gpucore_core_t *open_core(int dirfd, const char *name, int follow, char *why,
                                 size_t why_size, int *not_regular)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    struct stat st;
    int fd;

    *not_regular = 0;
    fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0 && !follow && errno == ELOOP) { /* a link in a directory: not followed */
        *not_regular = 1;
        snprintf(why, why_size, "a symbolic link");
        return NULL;
    }
    if (fd < 0) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *not_regular = 1;
        snprintf(why, why_size, "not a regular file");
        close(fd);
        return NULL;
    }
    /* In a directory (a store holds its index beside the cores) a file that does not even
       start like a core, plain (ELF) or compressed (a zstd frame), is passed over. */
    if (!follow) {
        static const uint8_t elf[4] = { 0x7f, 'E', 'L', 'F' }, zstd[4] = { 0x28, 0xb5, 0x2f, 0xfd };
        uint8_t magic[4];

        if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
            (memcmp(magic, elf, 4) != 0 && memcmp(magic, zstd, 4) != 0)) {
            *not_regular = 1;
            snprintf(why, why_size, "not a core file");
            close(fd);
            return NULL;
        }
    }
    if (gpucore_core_open_fd(fd,
                             GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                             &core, &d) != GPUCORE_OK) {
        snprintf(why, why_size, "%s", d.message); /* names the offset */
        core = NULL;
    }
    close(fd);
    return core;
}

/* Add one file; returns an exit code for a failure of the report itself (not of the file). */
static int add_file(struct gc_job *j, int dirfd, const char *name, const char *shown, int follow,
                    int skip_irregular)
{
    char why[GPUCORE_DIAG_MESSAGE_SIZE + 64];
    int not_regular;
    gpucore_core_t *core = open_core(dirfd, name, follow, why, sizeof(why), &not_regular);
    gpucore_diag_t d;
    gpucore_status_t st;

    if (!core && not_regular && skip_irregular)
        return CLI_EXIT_OK;
    st = core ? gc_job_add_core(j, shown, core, &d) : gc_job_add_unreadable(j, shown, why, &d);
    gpucore_core_close(core);
    if (st != GPUCORE_OK)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "%s", d.message);
    return CLI_EXIT_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file directly in @p dir, in name order. */
static int add_dir(struct gc_job *j, const char *dir, int dfd)
{
    DIR *d = fdopendir(dfd);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = CLI_EXIT_OK;

    if (!d) {
        close(dfd);
        return cli_fail(CLI_EXIT_NOINPUT, dir, "cannot read the directory: %s", strerror(errno));
    }
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            char **p = cap >= GC_JOB_MAX_CORES ? NULL
                                               : realloc(names, (cap ? 2 * cap : 64) * sizeof(*p));

            if (!p) {
                rc = cli_fail(CLI_EXIT_SOFTWARE, dir, "more than %u files, or out of memory",
                              GC_JOB_MAX_CORES);
                break;
            }
            names = p;
            cap = cap ? 2 * cap : 64;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
            break;
        }
        n++;
    }
    if (rc == CLI_EXIT_OK)
        qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == CLI_EXIT_OK) {
            char shown[4096];

            snprintf(shown, sizeof(shown), "%s/%s", dir, names[i]);
            rc = add_file(j, dirfd(d), names[i], shown, 0, 1);
        }
        free(names[i]);
    }
    free(names);
    closedir(d);
    return rc;
}

/* The table of cores (a job's, or those without a job). */
static void render_cores(FILE *f, const json_t *cores)
{
    const json_t *c;
    size_t k;

    fprintf(f, "  %-24s  %-8s  %-7s  %-8s  %6s  %8s  %-16s  %s\n", "TIME", "RANK", "PID", "ROLE",
            "WAVES", "FAULTING", "SIGNATURE", "WHAT");
    json_array_foreach(cores, k, c)
    {
        const json_t *sig = json_object_get(c, GC_JK_SIGNATURE);
        const char *hash = json_is_object(sig) ? gc_json_get_str(sig, GC_JK_HASH) : NULL;
        const char *time = gc_json_get_str_or(c, GC_JK_TIME, "?"),
                   *what = gc_json_get_str_or(c, GC_JK_WHAT, "?");

        fprintf(f, "  %-24s  %-8s  %-7" PRIu64 "  %-8s  %6" PRIu64 "  %8" PRIu64 "  %-16s  %s\n",
                time ? time : "?", gc_json_get_str_or(c, GC_JK_RANK, "?"),
                gc_json_get_u64(c, GC_JK_PID), gc_json_get_str_or(c, GC_JK_ROLE, "?"),
                gc_json_get_u64(c, GC_JK_WAVES), gc_json_get_u64(c, GC_JK_FAULTING_WAVES),
                hash ? hash : "-", what ? what : "");
    }
}

/* The cores without a job id: "3 cores without a job id (no job: none of them faulted first
   or is a victim): 2 faulted, 1 without a fault", then their table. */
static void render_without_job(FILE *f, const json_t *cores, int after)
{
    size_t n = json_array_size(cores), faulted = 0, k;
    const json_t *c;

    if (!n)
        return;
    json_array_foreach(cores, k, c) faulted += gc_json_get_u64(c, GC_JK_FAULTING_WAVES) != 0;
    fprintf(f, "%s%zu core%s without a job id (no job: none of them faulted first or is a "
               "victim): %zu faulted, %zu without a fault\n\n",
            after ? "\n" : "", n, n == 1 ? "" : "s", faulted, n - faulted);
    render_cores(f, cores);
}

static void render_text(FILE *f, const json_t *doc, void *user)
{
    const json_t *jobs = json_object_get(doc, GC_JK_JOBS), *job, *g, *u;
    size_t i, k;

    (void)user;
    json_array_foreach(jobs, i, job)
    {
        fprintf(f, "%s%s\n\n", i ? "\n" : "", gc_json_get_str_or(job, GC_JK_SUMMARY, "?"));
        render_cores(f, json_object_get(job, GC_JK_CORES));
        if (json_array_size(json_object_get(job, GC_JK_SIGNATURES)))
            fprintf(f, "\n  Signatures:\n");
        json_array_foreach(json_object_get(job, GC_JK_SIGNATURES), k, g)
        {
            const json_t *r;
            size_t x;

            fprintf(f, "    %s  %s  rank%s", gc_json_get_str_or(g, GC_JK_HASH, "?"),
                    gc_json_get_str_or(g, GC_JK_SIGNATURE, "?"),
                    json_array_size(json_object_get(g, GC_JK_RANKS)) > 1 ? "s " : " ");
            json_array_foreach(json_object_get(g, GC_JK_RANKS), x, r) fprintf(
                    f, "%s%s", x ? "," : "", json_is_string(r) ? json_string_value(r) : "?");
            fprintf(f, " (seen %" PRIu64 " time%s since %s)\n", gc_json_get_u64(g, GC_JK_COUNT),
                    gc_json_get_u64(g, GC_JK_COUNT) == 1 ? "" : "s",
                    gc_json_get_str_or(g, GC_JK_FIRST_SEEN, "?")
                            ? gc_json_get_str_or(g, GC_JK_FIRST_SEEN, "?")
                            : "?");
        }
    }
    render_without_job(f, json_object_get(doc, GC_JK_WITHOUT_JOB), json_array_size(jobs) != 0);
    if (json_array_size(json_object_get(doc, GC_JK_UNREADABLE)))
        fprintf(f, "%sUnreadable:\n",
                json_array_size(jobs) || json_array_size(json_object_get(doc, GC_JK_WITHOUT_JOB))
                        ? "\n"
                        : "");
    json_array_foreach(json_object_get(doc, GC_JK_UNREADABLE), i, u)
            fprintf(f, "  %s: %s\n", gc_json_get_str_or(u, GC_JK_CORE, "?"),
                    gc_json_get_str_or(u, GC_JK_ERROR, "?"));
}

int cmd_job(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "fleet", no_argument, NULL, 'F' },
        { "fleet-index", required_argument, NULL, 'I' },
        { "config", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct cli_fleet_args fa = { 0 };
    int json = 0, fleet = 0, c, rc = CLI_EXIT_OK;
    struct gc_job *j;
    json_t *doc;

    optind = 1;
    opterr = 0;
    /* DIR|CORE... end the options ("+": a file named like an option after them is a file);
       with --fleet the one operand is a job id, and options may follow it as anywhere else */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        fleet |= strcmp(argv[i], "--fleet") == 0;
    while ((c = getopt_long(argc, argv, fleet ? "h" : "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'F':
            fleet = 1;
            break;
        case 'I':
            fa.uri = optarg;
            break;
        case 'c':
            fa.config = optarg;
            break;
        case 'h':
            job_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("job", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (fleet) {
        if (optind + 1 != argc)
            return cli_usage_error("job", "--fleet takes one JOBID");
        fa.json = json;
        fa.filter.job = argv[optind];
        return cli_fleet_job(&fa);
    }
    if (fa.uri || fa.config)
        return cli_usage_error("job", "--fleet-index and --config go with --fleet");
    if (optind >= argc)
        return cli_usage_error("job", "missing DIR or CORE argument");
    if (!(j = gc_job_new()))
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    for (int i = optind; i < argc && rc == CLI_EXIT_OK; i++) {
        int fd = open(argv[i], O_RDONLY | O_CLOEXEC | O_DIRECTORY);

        if (fd >= 0)
            rc = add_dir(j, argv[i], fd);
        else if (errno == ENOTDIR)
            rc = add_file(j, AT_FDCWD, argv[i], argv[i], 1, 0);
        else
            rc = cli_fail(CLI_EXIT_NOINPUT, argv[i], "cannot open: %s", strerror(errno));
    }
    doc = rc == CLI_EXIT_OK ? gc_job_report(j) : NULL;
    gc_job_free(j);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!doc)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    rc = json ? cli_print_json(doc) : cli_print_text(doc, render_text, NULL);
    if (rc == CLI_EXIT_OK && !json_array_size(json_object_get(doc, GC_JK_JOBS)) &&
        !json_array_size(json_object_get(doc, GC_JK_WITHOUT_JOB))) {
        const json_t *u = json_array_get(json_object_get(doc, GC_JK_UNREADABLE), 0);

        rc = cli_fail(CLI_EXIT_DATAERR, u ? gc_json_get_str_or(u, GC_JK_CORE, "?") : NULL,
                      "not one core could be analyzed%s%s", u ? ": " : "",
                      u ? gc_json_get_str_or(u, GC_JK_ERROR, "?") : "");
    }
    if (fflush(stdout) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_IOERR;
    json_decref(doc);
    return rc;
}
