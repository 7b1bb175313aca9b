/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the store's index (store.h): the input is the bytes of index.sqlite, put in a
 * store directory of its own and opened as every command opens it. The index is a file, so
 * whoever can write it chooses its schema and its rows. Invariants:
 *
 *   - the open fails with one of the statuses gc_store_open() documents, and a message; or
 *   - every row a query returns names one plain file of the store (gc_store_file_name_ok())
 *     and has a state; rows that do not are only counted;
 *   - refresh, gc (dry run and real) and rescan create, remove or open nothing but files of
 *     the store: the index stays, nothing appears beside the store's directory;
 *   - after a rescan no row is ignored any more;
 *   - every statement ends within a bound (shortened here to keep the fuzzer fast).
 *
 * Seeds: tests/tools/gen_store_index_seeds.c (a valid index, hostile file names, a view in
 * place of a table, a trigger, extra and changed schema entries, a newer version).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "store.h"
#include "store_internal.h" /* the statement bound, shortened */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *store_dir; /* fuzz_scratch_file(): used as the store's directory */

static void path_in_store(char *buf, size_t size, const char *name)
{
    CHECK(snprintf(buf, size, "%s/%s", store_dir, name) < (int)size);
}

/* Empty the store's directory (the index and what SQLite or a gc left) and remove it. */
static void remove_store(void)
{
    DIR *d = opendir(store_dir);
    struct dirent *e;
    char p[512];

    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        path_in_store(p, sizeof(p), e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(store_dir);
}

/* Nothing but the store's directory in the scratch directory (no file made beside it). */
static void check_nothing_beside(void)
{
    char parent[256];
    const char *slash = strrchr(store_dir, '/');
    DIR *d;
    struct dirent *e;

    CHECK(slash && (size_t)(slash - store_dir) < sizeof(parent));
    memcpy(parent, store_dir, (size_t)(slash - store_dir));
    parent[slash - store_dir] = '\0';
    d = opendir(parent);
    CHECK(d != NULL);
    while ((e = readdir(d)) != NULL)
        CHECK(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
              strcmp(e->d_name, slash + 1) == 0);
    closedir(d);
}

static void check_rows(const struct gc_store_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        CHECK(gc_store_file_name_ok(rows[i].file));
        CHECK(gc_store_state_name(rows[i].state) != NULL);
    }
}

static void on_gc(void *user, const struct gc_store_row *row, const char *why)
{
    (void)user;
    CHECK(gc_store_file_name_ok(row->file) && why && *why);
}

static int allowed_open_status(gpucore_status_t st)
{
    static const gpucore_status_t documented[] = {
        GPUCORE_E_IO,      GPUCORE_E_PERM,   GPUCORE_E_VERSION,
        GPUCORE_E_CORRUPT, GPUCORE_E_NOTSUP, GPUCORE_E_NOMEM,
    };

    for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
        if (st == documented[i])
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_store_policy gc_all = { .max_age_ns = 1, .keep_per_signature = 0 };
    struct gc_store_rescan_stats rs;
    struct gc_store_row *rows = NULL;
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    char index[512];
    struct stat sb;
    size_t n = 0;
    uint64_t freed;
    int fd;

    if (!store_dir) {
        store_dir = fuzz_scratch_file("fuzz_store_index");
        CHECK(atexit(remove_store) == 0); /* runs before the scratch directory's removal */
    }
    remove_store();
    CHECK(mkdir(store_dir, 0700) == 0);
    path_in_store(index, sizeof(index), GC_STORE_INDEX_NAME);
    fd = open(index, O_WRONLY | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0);
    CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
    close(fd);

    st = gc_store_open(store_dir, 0, &s, &d);
    if (st != GPUCORE_OK) {
        CHECK(allowed_open_status(st) && d.message[0] && !s);
        return 0;
    }
    s->statement_limit_ns = 2000000000LL;
    if (gc_store_query(s, NULL, &rows, &n, &d) == GPUCORE_OK) {
        check_rows(rows, n);
        (void)gc_store_refresh(s, rows, n, &d);
        check_rows(rows, n);
        gc_store_rows_free(rows, n);
    }
    (void)gc_store_gc(s, &gc_all, 1, 100, on_gc, NULL, &freed, &d);
    (void)gc_store_gc(s, &gc_all, 0, 100, on_gc, NULL, &freed, &d);
    CHECK(lstat(index, &sb) == 0 && S_ISREG(sb.st_mode));
    if (gc_store_rescan(s, &rs, &d) == GPUCORE_OK) {
        size_t before = gc_store_rows_ignored(s);

        rows = NULL;
        n = 0;
        if (gc_store_query(s, NULL, &rows, &n, &d) == GPUCORE_OK) {
            check_rows(rows, n);
            CHECK(gc_store_rows_ignored(s) == before);
            gc_store_rows_free(rows, n);
        }
    }
    gc_store_close(s);
    check_nothing_beside();
    return 0;
}
