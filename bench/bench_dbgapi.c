/* SPDX-License-Identifier: MIT */
/*
 * gpucore-bench-dbgapi: how fast a debugger opens a core through libgpucore-dbgapi, and how
 * much memory it takes -- open, enumerate, read every register of every wave -- beside the
 * same work on the process image without the API, and beside other libraries.
 *
 *   gpucore-bench-dbgapi [--repeat N] [--library LABEL=DIR]... [--baseline DIR] CORE...
 *
 * Rows, per core (each measured in a freshly executed process, --repeat times: median wall
 * time, the largest peak RSS):
 *
 *   floor: open the core       the process, its libraries and gpucore_core_open
 *   image (analyze/, no API)   gc_image_open, then every register of every wave read with
 *                              gc_image_wave_regs (the record, from the core) and gc_reg_read:
 *                              the work under the library, without it
 *   dbgapi attach + events     gpucore-bench-dbgapi-client (dbgapi_client.c) in its modes
 *   dbgapi + lists and info    attach, lists, registers and print: initialize, attach (the
 *   dbgapi + every register    core handshake), drain the events; every list and the PC,
 *   dbgapi + print every       EXEC, stop reason, dispatch and workgroup of every wave; every
 *     register                 register of every wave read; and printed (to /dev/null)
 *
 * The library rows run once with this build's library (the client's RUNPATH) and once per
 * --library LABEL=DIR with the librocm-dbgapi.so.0 in DIR (LD_LIBRARY_PATH, which the RUNPATH
 * yields to): AMD's, or an earlier gpucore's (--baseline DIR is --library copies=DIR). The
 * client is the same program in every row. Under the table, the file each label loaded.
 *
 * Memory: the row's peak RSS (wait4), and, just before the row lets go of what it opened, its
 * RssAnon (heap, decoded frames: memory of its own) and RssFile (pages of mapped files it
 * touched -- the plain core, and the libraries: page cache, shared with other processes).
 *
 * Memory is served to the library from the core through gpucore_core_read, as `gpucore
 * dbgapi-dump` serves it; a compressed core decodes frames on demand. Counts (waves,
 * registers, bytes read) are printed per row and the register rows must agree with the image
 * row, or the benchmark fails (exit 1). Nothing is asserted about time. bench/README.md
 * ("amd-dbgapi") explains the figures.
 *
 * Exit: 0 done; 1 a core could not be read, a row failed or the rows disagree; 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch_regs.h"
#include "bench_rss.h"
#include "image.h"

static const char prog[] = "gpucore-bench-dbgapi";

/* What a row did, reported by the child through a pipe. */
struct counts {
    uint64_t waves, registers, bytes;
    long anon_kb; /* RssAnon before the row lets go: the heap, without mapped files */
    long file_kb; /* RssFile then: mapped files (the core, the libraries) */
    int failed;
};

/* ---- rows measured in this program --------------------------------------------------------- */

static gpucore_core_t *core;

static void row_image(struct counts *k)
{
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    uint8_t buf[1024];

    if (gc_image_open(core, &img, &d) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s\n", prog, d.message);
        k->failed = 1;
        return;
    }
    k->waves = gc_image_wave_count(img);
    for (uint32_t i = 0; i < k->waves; i++) {
        const struct gc_image_wave *w = gc_image_wave(img, i);
        const struct gc_arch *arch = gc_image_agent(img, gc_image_queue(img, w->queue)->agent)->arch;
        const struct gc_wave *saved = NULL;
        struct gc_reglist l = { 0 };

        if (gc_wave_register_list(arch, &w->wave, &l) != GPUCORE_OK ||
            gc_image_wave_regs(img, i, &saved, NULL) != GPUCORE_OK) {
            gc_reglist_done(&l);
            k->failed = 1;
            continue;
        }
        for (size_t r = 0; r < l.count; r++) {
            if (l.regs[r].size > sizeof(buf) ||
                gc_reg_read(arch, saved, gc_image_r_version(img), &l.regs[r], 0, buf,
                            l.regs[r].size) != GPUCORE_OK) {
                k->failed = 1;
                continue;
            }
            k->registers++;
            k->bytes += l.regs[r].size;
        }
        gc_reglist_done(&l);
    }
    bench_rss_now(&k->anon_kb, &k->file_kb); /* with the image still open */
    gc_image_close(img);
}

/*
 * The rows. A library row runs gpucore-bench-dbgapi-client (bench/dbgapi_client.c, beside this
 * program) with the client's mode; the others run this program again with --child.
 */
enum row_kind { ROW_FLOOR, ROW_IMAGE, ROW_LIBRARY };

static const struct row {
    const char *label;
    enum row_kind kind;
    const char *mode; /* the client's mode, for ROW_LIBRARY */
} rows[] = {
    { "floor: open the core", ROW_FLOOR, NULL },
    { "image (analyze/, no API)", ROW_IMAGE, NULL },
    { "dbgapi attach + events", ROW_LIBRARY, "attach" },
    { "dbgapi + lists and info", ROW_LIBRARY, "lists" },
    { "dbgapi + every register", ROW_LIBRARY, "registers" },
    { "dbgapi + print every register", ROW_LIBRARY, "print" },
};

/*
 * The libraries the library rows are measured with: this build's (dir NULL: the client's
 * RUNPATH) and those of --library LABEL=DIR (the client run with LD_LIBRARY_PATH=DIR, which the
 * RUNPATH yields to).
 */
#define BENCH_MAX_LIBRARIES 4u /* this build's and three others: one table stays readable */

static struct library {
    const char *label; /* "" for this build's when it is alone */
    const char *dir;
    char file[512]; /* the file the client's loader chose, from its report */
} libraries[BENCH_MAX_LIBRARIES] = { { "", NULL, "" } };
static size_t nlibraries = 1;

/* ---- measuring ------------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Row @p r on @p path, in this process (a child): the counts to @p fd; exits. */
_Noreturn static void run_row(const char *path, const struct row *r, int fd)
{
    struct counts k = { 0 };
    gpucore_diag_t d = { 0 };
    char line[128];
    int n;

    if (gpucore_core_open(path, NULL, &core, &d) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, d.message);
        _exit(1);
    }
    if (r->kind == ROW_IMAGE)
        row_image(&k);
    else
        bench_rss_now(&k.anon_kb, &k.file_kb);
    gpucore_core_close(core);
    n = snprintf(line, sizeof(line),
                 "waves=%" PRIu64 " registers=%" PRIu64 " bytes=%" PRIu64
                 " anon_kb=%ld file_kb=%ld library=-\n",
                 k.waves, k.registers, k.bytes, k.anon_kb, k.file_kb);
    _exit(n > 0 && write(fd, line, (size_t)n) == n && !k.failed ? 0 : 1);
}

/* The counts of a child's report line (dbgapi_client.c's format); 0, or -1 if malformed. */
static int parse_report(const char *line, struct counts *k, char *library, size_t size)
{
    int at = 0;

    if (sscanf(line, "waves=%" SCNu64 " registers=%" SCNu64 " bytes=%" SCNu64
                     " anon_kb=%ld file_kb=%ld library=%n",
               &k->waves, &k->registers, &k->bytes, &k->anon_kb, &k->file_kb, &at) != 5 ||
        at == 0)
        return -1;
    snprintf(library, size, "%.*s", (int)strcspn(line + at, "\n"), line + at);
    return 0;
}

/* The client's path: gpucore-bench-dbgapi-client beside this program. */
static int client_path(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;

    if (n <= 0)
        return -1;
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return snprintf(out, size, "%s/gpucore-bench-dbgapi-client", exe) < (int)size ? 0 : -1;
}

/*
 * Row @p r on @p path with library @p lib, in a process of its own (a freshly executed program,
 * so that every row pays the start of a process and the loading of its libraries: a forked
 * child would share its parent's pages and count none of them): its wall time, peak RSS,
 * counts and the library file it loaded.
 */
static int measure(const char *path, const struct row *r, const struct library *lib,
                   double *ret_secs, long *ret_rss_kb, struct counts *ret, char *ret_library,
                   size_t library_size)
{
    int fd[2];
    pid_t pid;
    int status;
    struct rusage ru;
    double t0;
    char line[1024] = "";
    char client[PATH_MAX];
    ssize_t got, n = 0;

    if (pipe(fd) != 0 || client_path(client, sizeof(client)) != 0)
        return -1;
    t0 = now();
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char row[16], out[16];
        char *self[] = { (char *)prog, (char *)"--child", row, out, (char *)path, NULL };
        char *lib_args[] = { client, (char *)"--report-fd", out, (char *)r->mode, (char *)path,
                             NULL };
        int null = open("/dev/null", O_WRONLY);

        close(fd[0]);
        snprintf(row, sizeof(row), "%d", (int)(r - rows));
        snprintf(out, sizeof(out), "%d", fd[1]);
        if (r->kind != ROW_LIBRARY) {
            execv("/proc/self/exe", self);
        } else if ((!lib->dir || setenv("LD_LIBRARY_PATH", lib->dir, 1) == 0) && null >= 0 &&
                   dup2(null, STDOUT_FILENO) >= 0) {
            execv(client, lib_args); /* the dump of "print" goes to /dev/null */
        }
        fprintf(stderr, "%s: cannot run row '%s': %s\n", prog, r->label, strerror(errno));
        _exit(1);
    }
    close(fd[1]);
    while (n < (ssize_t)sizeof(line) - 1 &&
           (got = read(fd[0], line + n, sizeof(line) - 1 - (size_t)n)) > 0)
        n += got;
    line[n] = '\0';
    close(fd[0]);
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *ret_secs = now() - t0;
    *ret_rss_kb = ru.ru_maxrss;
    memset(ret, 0, sizeof(*ret));
    if (parse_report(line, ret, ret_library, library_size) != 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Row @p r with library @p lib, @p repeat times: one line of the table; 0, or -1 if it failed. */
static int bench_row(const char *path, const struct row *r, struct library *lib,
                     unsigned repeat, struct counts *k)
{
    double secs[99];
    long rss = 0;
    char label[64];
    char file[sizeof(lib->file)] = "";

    for (unsigned n = 0; n < repeat; n++) {
        long kb = 0;

        if (measure(path, r, lib, &secs[n], &kb, k, file, sizeof(file)) != 0) {
            fprintf(stderr, "%s: %s: row '%s' failed\n", prog, path, r->label);
            return -1;
        }
        if (kb > rss)
            rss = kb;
    }
    if (r->kind == ROW_LIBRARY)
        snprintf(lib->file, sizeof(lib->file), "%s", file);
    qsort(secs, repeat, sizeof(secs[0]), cmp_double);
    snprintf(label, sizeof(label), "%s%s%s", r->kind == ROW_LIBRARY ? lib->label : "",
             r->kind == ROW_LIBRARY && lib->label[0] ? ": " : "", r->label);
    printf("%-38s %8.3f %6" PRIu64 " %10" PRIu64 " %8.2f %8.1f %9.1f %9.1f\n", label,
           repeat % 2 ? secs[repeat / 2] : (secs[repeat / 2 - 1] + secs[repeat / 2]) / 2,
           k->waves, k->registers, (double)k->bytes / 1e6, (double)rss / 1024.0,
           (double)k->anon_kb / 1024.0, (double)k->file_kb / 1024.0);
    return 0;
}

static int bench_core(const char *path, unsigned repeat)
{
    struct counts ref = { 0 };
    int rc = 0;

    printf("\n%s: median of %u run(s), each in a process of its own\n", path, repeat);
    printf("%-38s %8s %6s %10s %8s %8s %9s %9s\n", "row", "seconds", "waves", "registers",
           "MB read", "RSS MiB", "anon MiB", "file MiB");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        size_t nlib = rows[i].kind == ROW_LIBRARY ? nlibraries : 1;

        for (size_t l = 0; l < nlib; l++) {
            struct counts k = { 0 };

            if (bench_row(path, &rows[i], &libraries[l], repeat, &k) != 0)
                return 1;
            if (rows[i].kind == ROW_IMAGE) {
                ref = k;
            } else if (rows[i].kind == ROW_LIBRARY && k.registers &&
                       (k.waves != ref.waves || k.registers != ref.registers ||
                        k.bytes != ref.bytes)) {
                fprintf(stderr, "%s: %s: the library read %" PRIu64 " registers of %" PRIu64
                                " waves, the image %" PRIu64 " of %" PRIu64 "\n",
                        prog, path, k.registers, k.waves, ref.registers, ref.waves);
                rc = 1;
            }
        }
    }
    for (size_t l = 0; nlibraries > 1 && l < nlibraries; l++)
        printf("%s: %s\n", libraries[l].label, libraries[l].file);
    for (size_t l = 1; l < nlibraries; l++) {
        if (!strcmp(libraries[l].file, libraries[0].file)) {
            fprintf(stderr, "%s: the rows of '%s' loaded this build's library\n", prog,
                    libraries[l].label);
            rc = 1;
        }
    }
    return rc;
}

/* --library LABEL=DIR (or --baseline DIR, the label "copies"): one more library. */
static int add_library(const char *label, size_t label_len, const char *dir)
{
    static char labels[BENCH_MAX_LIBRARIES][16];

    if (nlibraries == BENCH_MAX_LIBRARIES || label_len == 0 ||
        label_len >= sizeof(labels[0]) || !*dir)
        return -1;
    memcpy(labels[nlibraries], label, label_len);
    labels[nlibraries][label_len] = '\0';
    libraries[nlibraries].label = labels[nlibraries];
    libraries[nlibraries].dir = dir;
    libraries[0].label = "gpucore";
    nlibraries++;
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: %s [--repeat N] [--library LABEL=DIR]... [--baseline DIR] CORE...\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    unsigned repeat = 3;
    int first = 1, rc = 0;

    /* a row of this program, re-executed by measure(): --child ROW FD CORE */
    if (argc == 5 && !strcmp(argv[1], "--child")) {
        int r = atoi(argv[2]);

        if (r < 0 || (size_t)r >= sizeof(rows) / sizeof(rows[0]) || rows[r].kind == ROW_LIBRARY)
            return 2;
        run_row(argv[4], &rows[r], atoi(argv[3]));
    }
    while (first + 1 < argc && argv[first][0] == '-') {
        const char *opt = argv[first], *arg = argv[first + 1], *eq = strchr(arg, '=');
        char *end;
        unsigned long v;

        first += 2;
        if (!strcmp(opt, "--baseline")) {
            if (add_library("copies", 6, arg) != 0)
                return usage();
        } else if (!strcmp(opt, "--library")) {
            if (!eq || add_library(arg, (size_t)(eq - arg), eq + 1) != 0)
                return usage();
        } else if (!strcmp(opt, "--repeat")) {
            errno = 0;
            v = strtoul(arg, &end, 10);
            if (errno || *end || v < 1 || v > 99) {
                fprintf(stderr, "%s: --repeat takes 1 to 99\n", prog);
                return 2;
            }
            repeat = (unsigned)v;
        } else {
            return usage();
        }
    }
    if (first >= argc || argv[first][0] == '-')
        return usage();
    for (int i = first; i < argc; i++)
        rc |= bench_core(argv[i], repeat);
    return rc;
}
