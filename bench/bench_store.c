/* SPDX-License-Identifier: MIT */
/*
 * gpucore-bench-store [--rows N[,N...]] [--dir DIR] [--keep]: the core store's index at fleet
 * scale.
 *
 * For each N (default 1000,10000,50000), a new store in a temporary directory below DIR (default
 * $TMPDIR or /tmp) gets N rows as a fleet would produce them (200 signatures, 64 jobs, 8 ranks,
 * a capture a minute), put one by one as captures do, then the questions `gpucore list` and
 * `gpucore gc` ask are timed: every row (list), one signature's rows (list --signature), one
 * job's (list --job), gc's plan with KeepPerSignature=3 and MaxUse as a dry run, and a rescan
 * that finds every file unchanged (each file looked up among the rows). One line per N, side by
 * side; the index's size on disk last. Nothing is asserted: these are figures.
 * Each row's file is an empty file (gc removes only what is there; this is a dry run): the
 * index is what is measured. Reading a core for its row is the capture's cost, measured by
 * bench_capture.sh. --keep leaves each store in place (its path on standard error) to look at it
 * with sqlite3 or time `gpucore list --store DIR`.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gc_util.h"
#include "store.h"

#define SIGNATURES 200
#define JOBS       64

static int keep;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *fmt(const char *f, ...) GC_PRINTF(1, 2);

static char *fmt(const char *f, ...)
{
    char buf[96];
    va_list ap;

    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return strdup(buf);
}

/* Row @p i of a synthetic fleet. */
static void make_row(struct gc_store_row *r, unsigned i, int64_t t0)
{
    unsigned sig = (i * 2654435761u) % SIGNATURES;

    memset(r, 0, sizeof(*r));
    r->time_ns = t0 + (int64_t)i * 60 * 1000000000ll;
    r->host = fmt("node%04u", i % 512);
    r->pid = 1000 + i;
    r->uid = 1000 + i % 16;
    r->exe = fmt("/opt/app/bin/solver%u", i % 7);
    r->job = fmt("%u", 400000 + i / 8 % JOBS);
    r->rank = i % 8;
    r->targets = strdup("gfx942,gfx942");
    r->trigger = strdup("memory-violation");
    r->sig_text = fmt("fault:kernel%u+0xb4:memory_violation:co-9e950d7b402b", sig);
    r->sig_hash = fmt("%016x", sig * 2654435761u);
    r->waves = 256;
    r->faulting_waves = 4;
    r->size = 40 << 20;
    r->file = fmt("core.%u.zst", i);
    r->state = GC_STORE_PRESENT;
    r->indexed_at = r->time_ns;
}

static int count_removed;

static void on_gc(void *user, const struct gc_store_row *row, const char *why)
{
    (void)user, (void)row, (void)why;
    count_removed++;
}

static double time_query(struct gc_store *s, const struct gc_store_filter *f, size_t *ret_n)
{
    struct gc_store_row *rows = NULL;
    gpucore_diag_t d;
    double t = now_s();

    if (gc_store_query(s, f, &rows, ret_n, &d) != GPUCORE_OK) {
        fprintf(stderr, "gpucore-bench-store: query: %s\n", d.message);
        exit(1);
    }
    t = now_s() - t;
    gc_store_rows_free(rows, *ret_n);
    return t * 1e3;
}

static int run(const char *base, unsigned n)
{
    char dir[4096], index[4200];
    struct gc_store *s = NULL;
    gpucore_diag_t d;
    size_t got_all, got_sig, got_job;
    struct gc_store_filter all = { 0 }, by_sig = { 0 }, by_job = { 0 };
    struct gc_store_policy pol = { .keep_per_signature = 3, .max_use = (uint64_t)n << 20 };
    double t, put_s, q_all, q_sig, q_job, gc_ms, rescan_ms;
    struct gc_store_rescan_stats rs = { 0 };
    uint64_t freed = 0;
    struct stat st;
    int64_t t0 = 1700000000ll * 1000000000ll;

    snprintf(dir, sizeof(dir), "%s/gpucore-bench-store.%ld.%u", base, (long)getpid(), n);
    if (gc_store_open(dir, GC_STORE_CREATE, &s, &d) != GPUCORE_OK) {
        fprintf(stderr, "gpucore-bench-store: %s: %s\n", dir, d.message);
        return 1;
    }
    t = now_s();
    for (unsigned i = 0; i < n; i++) {
        struct gc_store_row r;

        make_row(&r, i, t0);
        {
            /* gc removes only files that are there: an empty one stands for each core */
            int fd = openat(gc_store_dirfd(s), r.file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                            0600);

            struct stat fst;

            if (fd < 0 || fstat(fd, &fst) != 0) {
                fprintf(stderr, "gpucore-bench-store: %s: %s\n", r.file, strerror(errno));
                return 1;
            }
            close(fd);
            /* as indexed from this file: a rescan finds it unchanged */
            r.file_bytes = (int64_t)fst.st_size;
            r.file_mtime_ns = (int64_t)fst.st_mtim.tv_sec * 1000000000 + fst.st_mtim.tv_nsec;
        }
        if (gc_store_put(s, &r, &d) != GPUCORE_OK) {
            fprintf(stderr, "gpucore-bench-store: put: %s\n", d.message);
            return 1;
        }
        gc_store_row_done(&r);
    }
    put_s = now_s() - t;
    gc_store_close(s);
    if (gc_store_open(dir, 0, &s, &d) != GPUCORE_OK) {
        fprintf(stderr, "gpucore-bench-store: %s: %s\n", dir, d.message);
        return 1;
    }
    q_all = time_query(s, &all, &got_all);
    by_sig.signature = "0000000000000000"; /* signature 0's hash */
    q_sig = time_query(s, &by_sig, &got_sig);
    by_job.job = "400001";
    q_job = time_query(s, &by_job, &got_job);
    count_removed = 0;
    t = now_s();
    if (gc_store_gc(s, &pol, 1, t0 + (int64_t)n * 60 * 1000000000ll, on_gc, NULL, &freed, &d) !=
        GPUCORE_OK) {
        fprintf(stderr, "gpucore-bench-store: gc: %s\n", d.message);
        return 1;
    }
    gc_ms = (now_s() - t) * 1e3;
    t = now_s();
    if (gc_store_rescan(s, &rs, &d) != GPUCORE_OK || rs.files != n || rs.added + rs.updated) {
        fprintf(stderr, "gpucore-bench-store: rescan: %s\n",
                d.message[0] ? d.message : "files read again");
        return 1;
    }
    rescan_ms = (now_s() - t) * 1e3;
    gc_store_close(s);
    snprintf(index, sizeof(index), "%s/index.sqlite", dir);
    if (stat(index, &st) != 0)
        st.st_size = 0;
    printf("%8u  %10.1f  %10.1f %6zu  %10.1f %6zu  %10.1f %6zu  %10.1f %7d  %9.1f  %9.1f\n", n,
           put_s * 1e6 / n, q_all, got_all, q_sig, got_sig, q_job, got_job, gc_ms, count_removed,
           rescan_ms, (double)st.st_size / (1 << 20));
    fflush(stdout);
    if (keep) {
        fprintf(stderr, "gpucore-bench-store: kept %s\n", dir);
        return 0;
    }
    {
        char cmd[4200 + 32];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "gpucore-bench-store: could not remove %s\n", dir);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *rows = "1000,10000,50000", *base = getenv("TMPDIR");
    char *list, *tok, *save = NULL;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            rows = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            base = argv[++i];
        else if (!strcmp(argv[i], "--keep"))
            keep = 1;
        else {
            fprintf(stderr, "usage: gpucore-bench-store [--rows N[,N...]] [--dir DIR] [--keep]\n");
            return 2;
        }
    }
    if (!base || !*base)
        base = "/tmp";
    printf("%8s  %10s  %17s  %17s  %17s  %18s  %9s  %9s\n", "rows", "put us/row", "list all ms (n)",
           "by signature ms", "by job ms (n)", "gc plan ms (drop)", "rescan ms", "index MiB");
    list = strdup(rows);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long n = strtol(tok, NULL, 10);

        if (n <= 0 || n > 10000000 || run(base, (unsigned)n) != 0) {
            free(list);
            return 1;
        }
    }
    free(list);
    return 0;
}
