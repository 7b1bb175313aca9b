/* SPDX-License-Identifier: MIT */
/*
 * gen_store_index_seeds DIR: write the seeds of fuzz_store_index (store indexes) into DIR.
 *
 * Each seed is an index.sqlite made by the store itself (gc_store_open(), gc_store_put()),
 * then changed through SQLite as whoever can write the file could: rows naming files outside
 * the store, a view in place of the cores table, a trigger, extra and changed schema entries,
 * a newer schema version. Pages of 512 bytes keep each a few KiB; times are fixed so that the
 * bytes depend only on the SQLite version. Run by hand when the schema changes:
 *
 *   build/tests/gen_store_index_seeds tests/fuzz/corpus/fuzz_store_index
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "store_internal.h" /* gc_store_open_fs(): a rollback journal, so one file */

/* The rows of every seed: two signatures, one core without, one deleted. */
static const struct {
    const char *file, *sig, *exe, *state;
} rows[] = {
    { "core.1000.h.1.app", "0123456789abcdef", "/bin/app", "present" },
    { "core.1001.h.2.app", "0123456789abcdef", "/bin/app", "missing" },
    { "core.1002.h.3.other.zst", "fedcba9876543210", "/bin/other", "deleted" },
    { "core.1003.h.4.x", NULL, NULL, "unreadable" },
};

/* What each seed changes in a valid index (NULL: nothing). */
static const struct {
    const char *name;
    const char *sql;
} seeds[] = {
    { "valid", NULL },
    { "names-outside",
      "INSERT INTO cores(size, truncated, file, state, indexed_at) VALUES"
      " (1, 0, '/etc/shadow', 'present', 1), (1, 0, '../../outside', 'present', 1),"
      " (1, 0, 'index.sqlite', 'present', 1), (1, 0, 'sub/core', 'present', 1),"
      " (1, 0, '.hidden', 'present', 1), (1, 0, '', 'present', 1)" },
    { "view-recursive",
      "ALTER TABLE cores RENAME TO real_cores; CREATE VIEW cores AS WITH RECURSIVE"
      " r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT c.* FROM real_cores c, r" },
    { "trigger", "CREATE TRIGGER t AFTER UPDATE ON cores BEGIN DELETE FROM migrations; END" },
    { "extra-table", "CREATE TABLE x(a); CREATE INDEX xi ON x(a)" },
    { "extra-column", "ALTER TABLE cores ADD COLUMN evil TEXT DEFAULT 'x'" },
    { "dropped-index", "DROP INDEX cores_by_time" },
    { "version-newer", "PRAGMA user_version = 99" },
    { "version-zero", "PRAGMA user_version = 0" },
};

static int make_index(const char *dir)
{
    const uint64_t nfs = 0x6969; /* a rollback journal: the index is one file when closed */
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    sqlite3 *db;
    char path[4096];

    if (snprintf(path, sizeof(path), "%s/%s", dir, GC_STORE_INDEX_NAME) >= (int)sizeof(path))
        return -1;
    /* an empty database of small pages, which the store then fills */
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA page_size = 512; VACUUM", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_close(db);
    if (gc_store_open_fs(dir, GC_STORE_CREATE, &nfs, &s, &d) != GPUCORE_OK) {
        fprintf(stderr, "%s\n", d.message);
        return -1;
    }
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct gc_store_row r = {
            .time_ns = (int64_t)(1000 + i) * 1000000000,
            .pid = (int64_t)i + 1,
            .uid = 1000,
            .rank = -1,
            .waves = 256,
            .faulting_waves = 4,
            .size = 4096,
            .file = (char *)rows[i].file,
            .exe = (char *)rows[i].exe,
            .sig_hash = (char *)rows[i].sig,
            .sig_text = (char *)rows[i].sig,
            .state = gc_store_state_parse(rows[i].state),
            .indexed_at = 1,
            .file_mtime_ns = 1,
            .file_bytes = 4096,
        };

        if (gc_store_put(s, &r, &d) != GPUCORE_OK) {
            fprintf(stderr, "%s\n", d.message);
            gc_store_close(s);
            return -1;
        }
    }
    gc_store_close(s);
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "UPDATE migrations SET applied_at = 1", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_close(db);
    return 0;
}

static int write_seed(const char *out, size_t i)
{
    const char *tmp = getenv("TMPDIR");
    char dir[2048], path[4096], cmd[8192];
    sqlite3 *db;
    int rc = -1;

    snprintf(dir, sizeof(dir), "%s/gen_store_index_seeds.XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
    if (!mkdtemp(dir))
        return -1;
    if (snprintf(path, sizeof(path), "%s/%s", dir, GC_STORE_INDEX_NAME) >= (int)sizeof(path) ||
        make_index(dir) != 0)
        goto out;
    if (seeds[i].sql) {
        if (sqlite3_open(path, &db) != SQLITE_OK ||
            sqlite3_exec(db, seeds[i].sql, NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(stderr, "%s: %s\n", seeds[i].name, sqlite3_errmsg(db));
            sqlite3_close(db);
            goto out;
        }
        sqlite3_close(db);
    }
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", path, out, seeds[i].name);
    rc = system(cmd) == 0 ? 0 : -1;
out:
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = -1;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_store_index_seeds DIR\n");
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
        perror(argv[1]);
        return 1;
    }
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        if (write_seed(argv[1], i) != 0)
            return 1;
        printf("%s/%s\n", argv[1], seeds[i].name);
    }
    return 0;
}
