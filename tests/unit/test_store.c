/* SPDX-License-Identifier: MIT */
/*
 * The core store's index and policy (store/store.h): the schema and its migrations, an index
 * newer than the program refused, two writers in parallel processes, hostile strings only ever
 * bound as parameters, the directory's ownership and mode rules, symlinks never followed, a
 * rescan of files that are not cores, the configuration file's errors, and gc's order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store.h"
#include "store_internal.h" /* gc_store_open_fs(): a store opened as if on NFS */

#define NS 1000000000LL

static char dir[PATH_MAX];

/* A fresh store directory per test: GPUCORE_TEST_TMPDIR/test_store.PID.N. */
static int setup(void **state)
{
    static int n;
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char cmd[PATH_MAX + 16];

    (void)state;
    snprintf(dir, sizeof(dir), "%s/test_store.%ld.%d", tmp ? tmp : "/tmp", (long)getpid(), n++);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct gc_store *open_store(void)
{
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_store_open(dir, GC_STORE_CREATE, &s, &d);

    if (st != GPUCORE_OK)
        fail_msg("gc_store_open: %s", d.message);
    return s;
}

static char *path_in(const char *name)
{
    static char p[PATH_MAX + 64];

    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const void *data, size_t n)
{
    int fd = open(path_in(name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
}

/* A row of a file that exists (written with @p bytes bytes). */
static int64_t put(struct gc_store *s, const char *file, int64_t time_s, const char *sig,
                   const char *exe, size_t bytes)
{
    struct gc_store_row r = { 0 };
    gpucore_diag_t d = { 0 };
    char *data = calloc(1, bytes ? bytes : 1);

    assert_non_null(data);
    write_file(file, data, bytes);
    free(data);
    r.time_ns = time_s * NS;
    r.pid = 100;
    r.uid = r.rank = r.waves = r.faulting_waves = -1;
    r.host = strdup("h");
    r.exe = exe ? strdup(exe) : NULL;
    r.sig_hash = sig ? strdup(sig) : NULL;
    r.sig_text = sig ? strdup(sig) : NULL;
    r.size = (int64_t)bytes;
    r.file = strdup(file);
    r.state = GC_STORE_PRESENT;
    if (gc_store_put(s, &r, &d) != GPUCORE_OK)
        fail_msg("gc_store_put: %s", d.message);
    int64_t id = r.id;

    gc_store_row_done(&r);
    return id;
}

static size_t query(struct gc_store *s, const struct gc_store_filter *f, struct gc_store_row **rows)
{
    gpucore_diag_t d = { 0 };
    size_t n = 0;

    if (gc_store_query(s, f, rows, &n, &d) != GPUCORE_OK)
        fail_msg("gc_store_query: %s", d.message);
    return n;
}

static int sql_int(const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *q;
    int v = -1;

    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
    if (sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return v;
}

/* ---------------------------------------------------------------------------------------- */

/* A new store: 0700, the index 0600 at the program's schema version, one migration row each. */
static void test_create_and_migrate(void **state)
{
    struct gc_store *s;
    struct stat st;

    (void)state;
    s = open_store();
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(stat(path_in(GC_STORE_INDEX_NAME), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    gc_store_close(s);
    assert_int_equal(sql_int("PRAGMA user_version"), GC_STORE_SCHEMA_VERSION);
    assert_int_equal(sql_int("SELECT count(*) FROM migrations"), GC_STORE_SCHEMA_VERSION);
    assert_int_equal(sql_int("SELECT max(version) FROM migrations"), GC_STORE_SCHEMA_VERSION);
    /* opened again: nothing applied twice */
    s = open_store();
    gc_store_close(s);
    assert_int_equal(sql_int("SELECT count(*) FROM migrations"), GC_STORE_SCHEMA_VERSION);
    assert_string_equal(gc_store_state_name(GC_STORE_DELETED), "deleted");
    assert_int_equal(gc_store_state_parse("missing"), GC_STORE_MISSING);
    assert_int_equal(gc_store_state_parse("gone"), -1);
}

/* An index of a newer schema is refused, untouched. */
static void test_newer_version_refused(void **state)
{
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    sqlite3 *db;

    (void)state;
    s = open_store();
    gc_store_close(s);
    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    s = NULL;
    assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_VERSION);
    assert_null(s);
    assert_non_null(strstr(d.message, "schema version 99, newer than this gpucore's"));
    assert_int_equal(sql_int("PRAGMA user_version"), 99);
}

/* A file that is no SQLite database as the index: refused as corrupt, not overwritten. */
static void test_not_a_database(void **state)
{
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    static const char junk[8192] = "this is not an SQLite database";

    (void)state;
    assert_int_equal(mkdir(dir, 0700), 0);
    write_file(GC_STORE_INDEX_NAME, junk, sizeof(junk));
    assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_CORRUPT);
    assert_null(s);
}

/* Strings that would break string-built SQL are stored and found as they are. */
static void test_hostile_strings(void **state)
{
    static const char *const evil[] = {
        "'; DROP TABLE cores; --",
        "\"); DELETE FROM cores; --",
        "x' OR '1'='1",
        "%_\\",
    };
    struct gc_store_filter f = { 0 };
    struct gc_store_row *rows = NULL;
    struct gc_store *s;
    size_t n;

    (void)state;
    s = open_store();
    for (size_t i = 0; i < sizeof(evil) / sizeof(evil[0]); i++) {
        char file[64];

        snprintf(file, sizeof(file), "core.%zu'; DROP TABLE cores;--", i);
        put(s, file, 1000 + (int64_t)i, evil[i], evil[i], 10);
    }
    for (size_t i = 0; i < sizeof(evil) / sizeof(evil[0]); i++) {
        f.exe = evil[i];
        n = query(s, &f, &rows);
        assert_int_equal(n, 1);
        assert_string_equal(rows[0].exe, evil[i]);
        gc_store_rows_free(rows, n);
        memset(&f, 0, sizeof(f));
        f.signature = evil[i];
        n = query(s, &f, &rows);
        assert_int_equal(n, 1);
        assert_string_equal(rows[0].sig_hash, evil[i]);
        gc_store_rows_free(rows, n);
        memset(&f, 0, sizeof(f));
    }
    /* a LIKE wildcard in --exe matches only itself */
    f.exe = "%";
    assert_int_equal(query(s, &f, &rows), 0);
    gc_store_close(s);
    assert_int_equal(sql_int("SELECT count(*) FROM cores"), 4);
}

/* Two processes writing at once: every row of both arrives (WAL and the busy timeout). */
#define WRITER_ROWS 150
static void test_two_writers(void **state)
{
    pid_t pids[2];
    struct gc_store *s;

    (void)state;
    s = open_store(); /* created before: both writers open an existing index */
    gc_store_close(s);
    for (int w = 0; w < 2; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0) {
            struct gc_store *ws = NULL;
            gpucore_diag_t d = { 0 };

            if (gc_store_open(dir, GC_STORE_CREATE, &ws, &d) != GPUCORE_OK)
                _exit(2);
            for (int i = 0; i < WRITER_ROWS; i++) {
                struct gc_store_row r = { 0 };
                char file[32];

                snprintf(file, sizeof(file), "core.w%d.%d", w, i);
                r.time_ns = r.pid = r.uid = r.rank = r.waves = r.faulting_waves = -1;
                r.file = file;
                r.state = GC_STORE_PRESENT;
                if (gc_store_put(ws, &r, &d) != GPUCORE_OK)
                    _exit(3);
            }
            gc_store_close(ws);
            _exit(0);
        }
    }
    for (int w = 0; w < 2; w++) {
        int status = 0;

        assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(sql_int("SELECT count(*) FROM cores"), 2 * WRITER_ROWS);
    assert_int_equal(sql_int("SELECT count(DISTINCT id) FROM cores"), 2 * WRITER_ROWS);
}

/* A directory writable by others, a symlink in place of the directory or of the index. */
static void test_directory_rules(void **state)
{
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    char link[PATH_MAX + 8], real[PATH_MAX + 8];

    (void)state;
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "writable by others"));
    assert_int_equal(chmod(dir, 0770), 0);
    assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "writable by its group"));
    assert_int_equal(chmod(dir, 0700), 0);

    /* the store's name a symlink to a good directory */
    snprintf(real, sizeof(real), "%s.real", dir);
    snprintf(link, sizeof(link), "%s", dir);
    assert_int_equal(rename(dir, real), 0);
    assert_int_equal(symlink(real, link), 0);
    assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "symlink"));
    assert_int_equal(unlink(link), 0);
    assert_int_equal(rename(real, dir), 0);

    /* the index a symlink (to a database elsewhere) */
    snprintf(real, sizeof(real), "%s.db", dir);
    close(open(real, O_CREAT | O_WRONLY, 0600));
    assert_int_equal(symlink(real, path_in(GC_STORE_INDEX_NAME)), 0);
    assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "not a regular file"));
    unlink(real);
    assert_null(s);
}

/* The store is made 0700, the parents it makes 0755 (so that a user can reach what root's
   store shares with them), whatever the umask; "DIR/" names DIR. */
static void test_created_modes(void **state)
{
    char store[PATH_MAX + 16], parent[PATH_MAX + 8];
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    mode_t old = umask(0);
    struct stat st;

    (void)state;
    snprintf(parent, sizeof(parent), "%s/a", dir);
    snprintf(store, sizeof(store), "%s/a/b//", dir);
    assert_int_equal(gc_store_open(store, GC_STORE_CREATE, &s, &d), GPUCORE_OK);
    gc_store_close(s);
    umask(old);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    assert_int_equal(stat(parent, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    snprintf(store, sizeof(store), "%s/a/b", dir);
    assert_int_equal(stat(store, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
}

/* A store owned by another user is refused, to root as to anyone. */
static void test_other_owner(void **state)
{
    pid_t pid;
    int status = 0;

    (void)state;
    if (geteuid() != 0)
        skip(); /* needs root to give the directory away and to become another user */
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(chown(dir, 65533, 65533), 0);
    {
        struct gc_store *s = NULL;
        gpucore_diag_t d = { 0 };

        /* root neither: the index of a store another user can write would choose the files
           root's gc removes and root's show prints */
        assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_PERM);
        assert_null(s);
        assert_non_null(strstr(d.message, "belongs to uid 65533, not to root: refused"));
    }
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct gc_store *s = NULL;
        gpucore_diag_t d = { 0 };

        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        if (gc_store_open(dir, 0, &s, &d) != GPUCORE_E_PERM)
            _exit(11);
        _exit(strstr(d.message, "belongs to uid 65533") ? 0 : 12);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Run @p sql on the index directly, as whoever can write the file could. */
static void sql_exec(const char *sql)
{
    sqlite3 *db;
    char *err = NULL;

    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &db), SQLITE_OK);
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err);
    sqlite3_close(db);
}

/* A row whose file name is not one plain name of the store is never opened, stat'ed or
   removed: list ignores it (and counts it), refresh and gc leave the file it names alone, a
   put of such a name is refused, and a rescan removes the row. */
static void test_index_file_names(void **state)
{
    static const char *const bad[] = {
        "/ABS",    "../outside", "sub/core",     ".",        "..", ".hidden",
        "",        "index.sqlite", "index.sqlite-wal", "index.sqlite-journal",
    };
    char outside[PATH_MAX + 16], abs[PATH_MAX + 16], sql[2 * PATH_MAX], longname[300];
    struct gc_store_row *rows = NULL, r = { 0 };
    struct gc_store_rescan_stats rs = { 0 };
    struct gc_store_policy p = { .max_age_ns = 1, .keep_per_signature = 0 };
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    struct stat st;
    uint64_t freed = 0;
    size_t n;

    (void)state;
    s = open_store();
    put(s, "core.good", 10, "aaaa", "app", 16);
    gc_store_close(s);
    /* a canary beside the store and one named by an absolute path */
    snprintf(outside, sizeof(outside), "%s.outside", dir);
    snprintf(abs, sizeof(abs), "%s.abs", dir);
    close(open(outside, O_CREAT | O_WRONLY, 0600));
    close(open(abs, O_CREAT | O_WRONLY, 0600));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *name = bad[i];
        char rel[PATH_MAX + 32];

        if (strcmp(name, "/ABS") == 0)
            name = abs;
        if (strcmp(name, "../outside") == 0) {
            snprintf(rel, sizeof(rel), "../%s.outside", strrchr(dir, '/') + 1);
            name = rel;
        }
        snprintf(sql, sizeof(sql),
                 "INSERT INTO cores(time_ns, size, truncated, file, state, indexed_at, sig_hash) "
                 "VALUES (%zu, 1, 0, '%s', 'present', 1, 'aaaa')",
                 i, name);
        sql_exec(sql);
    }
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    snprintf(sql, sizeof(sql),
             "INSERT INTO cores(size, truncated, file, state, indexed_at) "
             "VALUES (1, 0, '%s', 'present', 1)",
             longname);
    sql_exec(sql);
    s = open_store();
    n = query(s, NULL, &rows);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].file, "core.good");
    assert_int_equal(gc_store_rows_ignored(s), sizeof(bad) / sizeof(bad[0]) + 1);
    gc_store_rows_free(rows, n);
    /* gc of everything removes only the store's own core */
    assert_int_equal(gc_store_gc(s, &p, 0, 100 * NS, NULL, NULL, &freed, &d), GPUCORE_OK);
    assert_int_equal(stat(outside, &st), 0);
    assert_int_equal(stat(abs, &st), 0);
    assert_int_equal(stat(path_in(GC_STORE_INDEX_NAME), &st), 0);
    assert_int_equal(stat(path_in("core.good"), &st), -1);
    /* a put of such a name is refused */
    r.file = strdup("../x");
    r.state = GC_STORE_PRESENT;
    assert_int_equal(gc_store_put(s, &r, &d), GPUCORE_E_INVAL);
    gc_store_row_done(&r);
    /* a rescan removes the rows */
    assert_int_equal(gc_store_rescan(s, &rs, &d), GPUCORE_OK);
    assert_int_equal(rs.dropped, sizeof(bad) / sizeof(bad[0]) + 1);
    gc_store_close(s);
    assert_int_equal(sql_int("SELECT count(*) FROM cores"), 1);
    unlink(outside);
    unlink(abs);
    assert_int_equal(gc_store_file_name_ok("core.1.host.42.app.zst"), 1);
    assert_int_equal(gc_store_file_name_ok(longname + 45), 1); /* 254 bytes */
    assert_int_equal(gc_store_file_name_ok(longname + 44), 1); /* 255 */
    assert_int_equal(gc_store_file_name_ok(longname + 43), 0); /* 256 */
    assert_int_equal(gc_store_file_name_ok(NULL), 0);
}

/* An index whose schema is not the one the migrations make is refused before it is used: a
   view in place of a table (which would run a query of the writer's choice on every list), a
   trigger (run on gpucore's own writes), an extra table or index, a table of other columns;
   and so is a new index (version 0) that already holds tables. */
static void test_index_schema(void **state)
{
    static const struct {
        const char *sql;
        const char *says;
    } cases[] = {
        { "ALTER TABLE cores RENAME TO real_cores; CREATE VIEW cores AS WITH RECURSIVE "
          "r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT c.* FROM real_cores c, r",
          "(unexpected view 'cores')" },
        { "CREATE TRIGGER t AFTER UPDATE ON cores BEGIN DELETE FROM migrations; END",
          "(unexpected trigger 't')" },
        { "CREATE VIEW v AS SELECT 1", "(unexpected view 'v')" },
        { "CREATE TABLE x(a)", "(unexpected table 'x')" },
        { "CREATE INDEX cores_by_file ON cores(file)", "(unexpected index 'cores_by_file')" },
        { "DROP INDEX cores_by_time", "(no index 'cores_by_time')" },
        { "ALTER TABLE cores ADD COLUMN evil TEXT DEFAULT 'x'", "(a different table 'cores')" },
        { "PRAGMA user_version = 0", "(unexpected index 'cores_by_change')" },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gc_store *s;
        gpucore_diag_t d = { 0 };

        teardown(NULL);
        s = open_store();
        gc_store_close(s);
        sql_exec(cases[i].sql);
        s = NULL;
        assert_int_equal(gc_store_open(dir, GC_STORE_CREATE, &s, &d), GPUCORE_E_CORRUPT);
        assert_null(s);
        if (!strstr(d.message, cases[i].says) || !strstr(d.message, "not one gpucore made"))
            fail_msg("case %zu: %s", i, d.message);
    }
}

/* Every statement has a time bound: one that runs past it is interrupted and fails, and the
   store can still be used. (A test shortens the bound: the query never ends by itself.) */
static void test_statement_time_bound(void **state)
{
    struct gc_store_row *rows = NULL;
    struct gc_store *s;
    gpucore_diag_t d = { 0 };

    (void)state;
    s = open_store();
    put(s, "core.1", 10, "aaaa", "app", 16);
    s->statement_limit_ns = 200 * 1000000LL;
    assert_int_equal(gc_store_exec(s,
                                   "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM "
                                   "r) SELECT count(*) FROM r",
                                   "counting forever", &d),
                     GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, "counting forever: the index did not answer within 200 ms"));
    assert_int_equal(query(s, NULL, &rows), 1);
    gc_store_rows_free(rows, 1);
    gc_store_close(s);
}

/* The index must be the caller's, and have one name: not another user's, not a hard link. */
static void test_index_owner(void **state)
{
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    char other[PATH_MAX + 8];

    (void)state;
    s = open_store();
    gc_store_close(s);
    snprintf(other, sizeof(other), "%s.link", dir);
    assert_int_equal(link(path_in(GC_STORE_INDEX_NAME), other), 0);
    s = NULL;
    assert_int_equal(gc_store_open(dir, 0, &s, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "has 2 names (hard links): refused"));
    unlink(other);
    if (geteuid() != 0)
        return; /* giving the file away needs root */
    assert_int_equal(chown(path_in(GC_STORE_INDEX_NAME), 65533, 65533), 0);
    assert_int_equal(gc_store_open(dir, 0, &s, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "the index belongs to uid 65533, not to you (uid 0)"));
}

/* Rows grouped by signature in the order the signatures first come. */
static void test_group_by_signature(void **state)
{
    static const char *const sig[] = { "b", NULL, "a", "b", "c", "a", "b" };
    struct gc_store_row rows[7] = { 0 };
    struct gc_store_sig_group *g = NULL;
    size_t n = 0;

    (void)state;
    for (size_t i = 0; i < 7; i++)
        rows[i].sig_hash = (char *)sig[i];
    assert_int_equal(gc_store_group_by_signature(rows, 7, &g, &n), GPUCORE_OK);
    assert_int_equal(n, 3);
    assert_int_equal(g[0].first, 0); /* b */
    assert_int_equal(g[0].last, 6);
    assert_int_equal(g[0].count, 3);
    assert_int_equal(g[1].first, 2); /* a */
    assert_int_equal(g[1].last, 5);
    assert_int_equal(g[1].count, 2);
    assert_int_equal(g[2].first, 4); /* c */
    assert_int_equal(g[2].last, 4);
    assert_int_equal(g[2].count, 1);
    free(g);
    assert_int_equal(gc_store_group_by_signature(rows, 0, &g, &n), GPUCORE_OK);
    assert_int_equal(n, 0);
    assert_null(g);
}

/* Rescan: files that are not cores are unreadable rows, symlinks and directories are skipped,
   gone files become missing, and a file back is present again. */
static void test_rescan_hostile(void **state)
{
    static const char elf_head[64] = "\177ELF\2\1\1";
    struct gc_store_rescan_stats st = { 0 };
    struct gc_store_row *rows = NULL;
    struct gc_store_filter f = { 0 };
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    size_t n;

    (void)state;
    s = open_store();
    write_file("core.text", "hello\n", 6);
    write_file("core.elf", elf_head, sizeof(elf_head));
    write_file("core.empty", "", 0);
    assert_int_equal(symlink("/etc/passwd", path_in("core.link")), 0);
    assert_int_equal(mkdir(path_in("subdir"), 0700), 0);
    assert_int_equal(gc_store_rescan(s, &st, &d), GPUCORE_OK);
    assert_int_equal(st.files, 3);
    assert_int_equal(st.added, 3);
    assert_int_equal(st.unreadable, 3);
    assert_int_equal(st.skipped, 2);
    n = query(s, NULL, &rows);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].state, GC_STORE_UNREADABLE);
        assert_non_null(rows[i].error);
        assert_null(rows[i].sig_hash);
    }
    gc_store_rows_free(rows, n);

    /* again: nothing changed, nothing read again */
    assert_int_equal(gc_store_rescan(s, &st, &d), GPUCORE_OK);
    assert_int_equal(st.added + st.updated, 0);

    /* deleted by hand: missing; back: present again (refresh) */
    unlink(path_in("core.text"));
    assert_int_equal(gc_store_rescan(s, &st, &d), GPUCORE_OK);
    assert_int_equal(st.missing, 1);
    f.file = "core.text";
    n = query(s, &f, &rows);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].state, GC_STORE_MISSING);
    gc_store_rows_free(rows, n);
    put(s, "core.x", 5, "sig", NULL, 10);
    unlink(path_in("core.x"));
    assert_int_equal(gc_store_refresh(s, NULL, 0, &d), GPUCORE_OK);
    f.file = "core.x";
    n = query(s, &f, &rows);
    assert_int_equal(rows[0].state, GC_STORE_MISSING);
    gc_store_rows_free(rows, n);
    write_file("core.x", "", 0);
    assert_int_equal(gc_store_refresh(s, NULL, 0, &d), GPUCORE_OK);
    n = query(s, &f, &rows);
    assert_int_equal(rows[0].state, GC_STORE_PRESENT);
    gc_store_rows_free(rows, n);

    /* a symlink named as a core is refused, never read */
    assert_int_equal(gc_store_index_file(s, "core.link", NULL, &d), GPUCORE_E_PERM);
    assert_int_equal(gc_store_index_file(s, "../x", NULL, &d), GPUCORE_E_INVAL);
    gc_store_close(s);
}

/* The configuration file: every key, comments, and each error with its line. */
static void test_conf(void **state)
{
    struct gc_store_policy p = { .keep_per_signature = -1 };
    gpucore_diag_t d = { 0 };
    static const char good[] = "# gpucore store\n[Store]\n; comment\n\nMaxUse=10G\n"
                               "  KeepFree = 512M  \nMaxAge=30d\nKeepPerSignature=3\n";
    static const struct {
        const char *text;
        const char *message;
    } bad[] = {
        { "MaxUse=10G\nMaxSize=1G\n", "store.conf:2: unknown key" },
        { "MaxUse=ten\n", "store.conf:1: MaxUse= expects a size" },
        { "\n\nMaxAge=3y\n", "store.conf:3: MaxAge= expects a duration" },
        { "KeepPerSignature=-1\n", "store.conf:1: KeepPerSignature= expects a count" },
        { "MaxUse 10G\n", "store.conf:1: expected Key=Value" },
        { "MaxUse=99999999999999999999\n", "store.conf:1: MaxUse= expects a size" },
        { "MaxUse=16777216T\n", "store.conf:1: MaxUse= expects a size" },
    };
    char *longline;

    (void)state;
    assert_int_equal(gc_store_conf_parse(good, strlen(good), "store.conf", &p, &d), GPUCORE_OK);
    assert_int_equal(p.max_use, 10ull << 30);
    assert_int_equal(p.keep_free, 512ull << 20);
    assert_int_equal(p.max_age_ns, 30LL * 86400 * NS);
    assert_int_equal(p.keep_per_signature, 3);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct gc_store_policy q = p;

        assert_int_equal(
                gc_store_conf_parse(bad[i].text, strlen(bad[i].text), "store.conf", &q, &d),
                GPUCORE_E_CORRUPT);
        if (strncmp(d.message, bad[i].message, strlen(bad[i].message)) != 0)
            fail_msg("case %zu: '%s', expected '%s...'", i, d.message, bad[i].message);
        assert_memory_equal(&q, &p, sizeof(p)); /* nothing applied from a bad file */
    }
    longline = malloc(2000);
    assert_non_null(longline);
    memset(longline, 'a', 1999);
    longline[1999] = '\n';
    assert_int_equal(gc_store_conf_parse(longline, 2000, "store.conf", &p, &d), GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, ":1: line longer than"));
    free(longline);
    assert_int_equal(gc_store_conf_parse("MaxUse=1\0", 9, "c", &p, &d), GPUCORE_E_CORRUPT);
}

/* gc's order: duplicates of a signature beyond the first N first, then max age, then the
   oldest while over MaxUse; rows stay, marked deleted; a dry run changes nothing. */
/* What gc removed (or would), in its order, with the reasons; every test here removes fewer
   than 32 cores. */
struct removed {
    char files[32][32];
    char why[32][64];
    size_t n;
};

static void on_removed(void *user, const struct gc_store_row *r, const char *why)
{
    struct removed *rm = user;

    assert_true(rm->n < 32);
    snprintf(rm->files[rm->n], sizeof(rm->files[0]), "%s", r->file);
    snprintf(rm->why[rm->n], sizeof(rm->why[0]), "%s", why);
    rm->n++;
}

static void test_gc_order(void **state)
{
    struct gc_store_policy p = { .keep_per_signature = -1 };
    struct gc_store_row *rows = NULL;
    struct removed rm = { 0 };
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    uint64_t freed = 0;
    struct stat st;
    size_t n;

    (void)state;
    s = open_store();
    /* times in seconds; A: signature a, B: b; sizes 4 KiB each */
    put(s, "a1", 100, "a", "x", 4096);
    put(s, "b1", 150, "b", "x", 4096);
    put(s, "a2", 200, "a", "x", 4096);
    put(s, "a3", 300, "a", "x", 4096);
    put(s, "b2", 400, "b", "x", 4096);
    put(s, "c1", 500, "c", "x", 4096);

    /* dry run with KeepPerSignature=1: a2, a3, b2 -- nothing changes */
    p.keep_per_signature = 1;
    assert_int_equal(gc_store_gc(s, &p, 1, 1000 * NS, on_removed, &rm, &freed, &d), GPUCORE_OK);
    assert_int_equal(rm.n, 3);
    assert_string_equal(rm.files[0], "a2");
    assert_string_equal(rm.files[1], "a3");
    assert_string_equal(rm.files[2], "b2");
    assert_int_equal(freed, 3 * 4096);
    assert_int_equal(stat(path_in("a2"), &st), 0);

    /* KeepPerSignature=1 and MaxUse of two cores: the duplicates, then the oldest (a1) */
    memset(&rm, 0, sizeof(rm));
    p.max_use = 2 * 4096;
    assert_int_equal(gc_store_gc(s, &p, 0, 1000 * NS, on_removed, &rm, &freed, &d), GPUCORE_OK);
    assert_int_equal(rm.n, 4);
    assert_string_equal(rm.files[0], "a2");
    assert_string_equal(rm.files[1], "a3");
    assert_string_equal(rm.files[2], "b2");
    assert_string_equal(rm.files[3], "a1");
    assert_string_equal(rm.why[0], "duplicate of its signature beyond the first kept");
    assert_string_equal(rm.why[3], "MaxUse exceeded");
    assert_int_equal(stat(path_in("a2"), &st), -1);
    assert_int_equal(stat(path_in("b1"), &st), 0);
    assert_int_equal(stat(path_in("c1"), &st), 0);
    n = query(s, NULL, &rows);
    assert_int_equal(n, 6); /* rows stay */
    for (size_t i = 0; i < n; i++) {
        int gone = strcmp(rows[i].file, "b1") != 0 && strcmp(rows[i].file, "c1") != 0;

        assert_int_equal(rows[i].state, gone ? GC_STORE_DELETED : GC_STORE_PRESENT);
    }
    /* the signature's count keeps the deleted ones: seen 3 times */
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].file, "a1") == 0) {
            assert_int_equal(rows[i].seen, 3);
            assert_int_equal(rows[i].first_seen_ns, 100 * NS);
        }
    gc_store_rows_free(rows, n);

    /* MaxAge: b1 (captured at 150 s) is older than 600 s at 800 s; c1 is not */
    memset(&rm, 0, sizeof(rm));
    p = (struct gc_store_policy){ .keep_per_signature = -1, .max_age_ns = 600 * NS };
    assert_int_equal(gc_store_gc(s, &p, 0, 800 * NS, on_removed, &rm, &freed, &d), GPUCORE_OK);
    assert_int_equal(rm.n, 1);
    assert_string_equal(rm.files[0], "b1");
    assert_string_equal(rm.why[0], "older than MaxAge");

    /* no limit: nothing */
    memset(&rm, 0, sizeof(rm));
    p = (struct gc_store_policy){ .keep_per_signature = -1 };
    assert_int_equal(gc_store_gc(s, &p, 0, 800 * NS, on_removed, &rm, &freed, &d), GPUCORE_OK);
    assert_int_equal(rm.n, 0);
    gc_store_close(s);
}

/*
 * Retention after a core is added (gc_store_retain(), issue 23): store.conf's limits applied,
 * never to the files kept (the core just written and the half it waits for), even when they
 * are the oldest or the repeats; no configuration, or one without gc's keys: nothing removed.
 */
static void write_conf(const char *name, const char *text)
{
    write_file(name, text, strlen(text));
}

static void test_retain_keeps_new_core(void **state)
{
    const char *keep[GC_STORE_KEEP_MAX] = { "new", "half" };
    char conf[PATH_MAX + 64];
    gpucore_diag_t d = { 0 };
    struct gc_store *s;
    size_t removed = 9;
    uint64_t freed = 9;
    struct stat st;

    (void)state;
    s = open_store();
    /* the kept files are the oldest and repeats of "a": MaxUse of one core and
       KeepPerSignature=0 would remove every file, were they not kept */
    put(s, "half", 50, "a", "x", 4096);
    put(s, "old1", 100, "a", "x", 4096);
    put(s, "old2", 200, "b", "x", 4096);
    put(s, "new", 300, "a", "x", 4096);
    write_conf("conf-none", "# nothing\n[Store]\nHostSizeMax=4G\n");
    snprintf(conf, sizeof(conf), "%s", path_in("conf-none"));
    assert_int_equal(gc_store_retain(s, conf, keep, &removed, &freed, &d), GPUCORE_OK);
    assert_int_equal(removed, 0);
    assert_int_equal(freed, 0);
    assert_int_equal(stat(path_in("old1"), &st), 0);

    write_conf("conf-use", "MaxUse=4K\nKeepPerSignature=0\n");
    snprintf(conf, sizeof(conf), "%s", path_in("conf-use"));
    assert_int_equal(gc_store_retain(s, conf, keep, &removed, &freed, &d), GPUCORE_OK);
    assert_int_equal(removed, 2);
    assert_int_equal(freed, 2 * 4096);
    assert_int_equal(stat(path_in("old1"), &st), -1);
    assert_int_equal(stat(path_in("old2"), &st), -1);
    assert_int_equal(stat(path_in("new"), &st), 0);
    assert_int_equal(stat(path_in("half"), &st), 0);

    /* a file that does not parse: its message, nothing removed */
    write_conf("conf-bad", "MaxUse=lots\n");
    snprintf(conf, sizeof(conf), "%s", path_in("conf-bad"));
    assert_int_equal(gc_store_retain(s, conf, keep, &removed, &freed, &d), GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, "conf-bad:1"));
    assert_int_equal(removed, 0);
    gc_store_close(s);
}

/* gc_store_forget(): the row of a merged half goes (and only it); a name that is no file of
   the store is refused, an unknown one is no error. A row without a signature is seen once,
   an unreadable file never (issue 23: "SEEN 1" for a file that is no core). */
static void test_forget_and_seen(void **state)
{
    struct gc_store_row *rows = NULL, r = { 0 };
    gpucore_diag_t d = { 0 };
    struct gc_store *s;
    size_t n;

    (void)state;
    s = open_store();
    put(s, "gpucore.7.gpu.zst", 100, NULL, "x", 4096);
    put(s, "core.7.zst", 100, NULL, "x", 4096);
    put(s, "gpucore.7.zst", 100, "m", "x", 4096);
    write_file("junk", "not a core", 10);
    assert_int_equal(gc_store_row_from_file(s, "junk", &r, &d), GPUCORE_OK);
    assert_int_equal(r.state, GC_STORE_UNREADABLE);
    assert_int_equal(gc_store_put(s, &r, &d), GPUCORE_OK);
    gc_store_row_done(&r);

    assert_int_equal(gc_store_forget(s, "gpucore.7.gpu.zst", &d), GPUCORE_OK);
    assert_int_equal(gc_store_forget(s, "core.7.zst", &d), GPUCORE_OK);
    assert_int_equal(gc_store_forget(s, "core.8.zst", &d), GPUCORE_OK);
    assert_int_equal(gc_store_forget(s, "../etc/passwd", &d), GPUCORE_E_INVAL);
    n = query(s, NULL, &rows);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].file, "junk") == 0) {
            assert_int_equal(rows[i].seen, 0);
            assert_int_equal(rows[i].first_seen_ns, -1);
        } else {
            assert_string_equal(rows[i].file, "gpucore.7.zst");
            assert_int_equal(rows[i].seen, 1);
        }
    }
    gc_store_rows_free(rows, n);
    /* a core without a signature is a crash of its own: seen once */
    put(s, "nosig", 100, NULL, "x", 4096);
    struct gc_store_filter f = { .file = "nosig" };

    n = query(s, &f, &rows);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].seen, 1);
    assert_int_equal(rows[0].first_seen_ns, 100 * NS);
    gc_store_rows_free(rows, n);
    gc_store_close(s);
}

/*
 * Root's store shares a core with the user whose process crashed (gc_store_share_with_owner(),
 * issue 23): that user opens their core and nothing else (not another user's core, not the
 * index, not the directory's listing); the files stay root's. Needs root and a filesystem with
 * POSIX ACLs; skipped otherwise.
 */
/* Schema 2 (the fleet index): every change of a row takes the store's next change number, in
   order; a forgotten row is remembered with its number; state changes take one too. */
static void test_change_numbers(void **state)
{
    struct gc_store *s = open_store();
    gpucore_diag_t d = { 0 };
    int64_t a, b;

    (void)state;
    a = put(s, "core.a", 10, "aaaa", "/bin/x", 10);
    b = put(s, "core.b", 11, "bbbb", "/bin/x", 10);
    assert_int_equal(sql_int("SELECT last FROM changes"), 2);
    assert_int_equal(sql_int("SELECT change_seq FROM cores WHERE file = 'core.b'"), 2);
    assert_int_equal(gc_store_set_state(s, a, GC_STORE_MISSING, &d), GPUCORE_OK);
    assert_int_equal(sql_int("SELECT change_seq FROM cores WHERE file = 'core.a'"), 3);
    assert_int_equal(gc_store_forget(s, "core.b", &d), GPUCORE_OK);
    assert_int_equal(sql_int("SELECT seq FROM fleet_forgotten WHERE file = 'core.b'"), 4);
    /* forgetting a file without a row changes nothing */
    assert_int_equal(gc_store_forget(s, "core.none", &d), GPUCORE_OK);
    assert_int_equal(sql_int("SELECT count(*) FROM fleet_forgotten"), 1);
    assert_int_equal(gc_store_set_state(s, b, GC_STORE_MISSING, &d), GPUCORE_E_NOTFOUND);
    /* a re-index takes a new number */
    put(s, "core.a", 10, "aaaa", "/bin/x", 10);
    assert_int_equal(sql_int("SELECT change_seq FROM cores WHERE file = 'core.a'"),
                     sql_int("SELECT last FROM changes"));
    gc_store_close(s);
}

/* An index of schema 1 (gpucore before the fleet index) migrates on open: its rows get their id
   as change number, so all of them are sent to a fleet index. */
static void test_migrate_from_1(void **state)
{
    sqlite3 *db;
    char sql[512];
    struct gc_store *s;

    (void)state;
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, gc_store_migration_sql(1), NULL, NULL, NULL), SQLITE_OK);
    snprintf(sql, sizeof(sql),
             "INSERT INTO migrations VALUES (1, 1, 'cores and migrations');"
             "INSERT INTO cores(id, size, truncated, file, state, indexed_at) VALUES "
             "(5, 1, 0, 'core.x', 'present', 1), (9, 1, 0, 'core.y', 'missing', 1);"
             "PRAGMA user_version = 1;");
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    chmod(path_in(GC_STORE_INDEX_NAME), 0600);
    s = open_store();
    gc_store_close(s);
    assert_int_equal(sql_int("PRAGMA user_version"), 2);
    assert_int_equal(sql_int("SELECT change_seq FROM cores WHERE file = 'core.y'"), 9);
    assert_int_equal(sql_int("SELECT change_seq FROM cores WHERE file = 'core.x'"), 5);
    assert_int_equal(sql_int("SELECT last FROM changes"), 9);
    assert_int_equal(sql_int("SELECT count(*) FROM fleet_state"), 0);
}

/* Root's store of schema 1 with a user's row: the command that migrates it writes the user's
   view again, of the new version (else the user's gpucore refuses the old view until their
   rows change). */
static void test_migrate_views(void **state)
{
    sqlite3 *db;
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    gpucore_status_t rc;
    char name[64];
    struct stat st;

    (void)state;
    if (geteuid() != 0)
        skip();
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, gc_store_migration_sql(1), NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "INSERT INTO migrations VALUES (1, 1, 'cores and migrations');"
                                  "INSERT INTO cores(id, uid, size, truncated, file, state, "
                                  "indexed_at) VALUES (1, 4321, 1, 0, 'core.x', 'present', 1);"
                                  "PRAGMA user_version = 1;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    chmod(path_in(GC_STORE_INDEX_NAME), 0600);
    s = open_store();
    rc = gc_store_sync_views(s, &d);
    gc_store_close(s);
    if (rc == GPUCORE_E_NOTSUP)
        skip();
    assert_int_equal(rc, GPUCORE_OK);
    assert_int_equal(gc_store_view_name(4321, name, sizeof(name)), 0);
    assert_int_equal(stat(path_in(name), &st), 0);
    assert_int_equal(sqlite3_open(path_in(name), &db), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), GC_STORE_SCHEMA_VERSION);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

static void put_uid(struct gc_store *s, const char *file, int64_t uid)
{
    struct gc_store_row r = { 0 };
    gpucore_diag_t d = { 0 };

    write_file(file, "core", 4);
    r.time_ns = r.pid = r.rank = r.waves = r.faulting_waves = -1;
    r.uid = uid;
    r.size = 4096;
    r.file = strdup(file);
    r.state = GC_STORE_PRESENT;
    if (gc_store_put(s, &r, &d) != GPUCORE_OK)
        fail_msg("gc_store_put: %s", d.message);
    gc_store_row_done(&r);
}

/* In a child as uid @p uid: 0 when @p path opens for reading (a directory: is listed). */
static int opens_as(uid_t uid, const char *path, int list)
{
    pid_t pid = fork();
    int status = 0;

    assert_true(pid >= 0);
    if (pid == 0) {
        if (setresgid(65534, 65534, 65534) != 0 || setgroups(0, NULL) != 0 ||
            setresuid(uid, uid, uid) != 0)
            _exit(2);
        if (list) {
            DIR *dp = opendir(path);

            _exit(dp ? 0 : 1);
        }
        _exit(open(path, O_RDONLY) >= 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_share_with_owner(void **state)
{
    gpucore_diag_t d = { 0 };
    struct gc_store *s;
    int64_t uid = 0;
    struct stat st;
    gpucore_status_t rc;

    (void)state;
    if (geteuid() != 0)
        skip();
    s = open_store();
    put_uid(s, "mine", 1);
    put_uid(s, "theirs", 2);
    put_uid(s, "roots", 0);
    put_uid(s, "unknown", -1);
    rc = gc_store_share_with_owner(s, "mine", &uid, &d);
    if (rc == GPUCORE_E_NOTSUP) {
        gc_store_close(s);
        skip();
    }
    assert_int_equal(rc, GPUCORE_OK);
    assert_int_equal(uid, 1);
    /* twice: one entry, no error */
    assert_int_equal(gc_store_share_with_owner(s, "mine", &uid, &d), GPUCORE_OK);
    assert_int_equal(gc_store_share_with_owner(s, "theirs", &uid, &d), GPUCORE_OK);
    assert_int_equal(uid, 2);
    /* root's own core and one of unknown uid: shared with nobody */
    assert_int_equal(gc_store_share_with_owner(s, "roots", &uid, &d), GPUCORE_OK);
    assert_int_equal(uid, -1);
    assert_int_equal(gc_store_share_with_owner(s, "unknown", &uid, &d), GPUCORE_OK);
    assert_int_equal(uid, -1);
    gc_store_close(s);

    assert_int_equal(opens_as(1, path_in("mine"), 0), 0);
    assert_int_equal(opens_as(1, path_in("theirs"), 0), 1);
    assert_int_equal(opens_as(2, path_in("mine"), 0), 1);
    assert_int_equal(opens_as(1, path_in("roots"), 0), 1);
    assert_int_equal(opens_as(1, path_in("unknown"), 0), 1);
    assert_int_equal(opens_as(1, path_in(GC_STORE_INDEX_NAME), 0), 1);
    assert_int_equal(opens_as(1, dir, 1), 1);
    /* the files stay root's, and the store still passes its own rules */
    assert_int_equal(stat(path_in("mine"), &st), 0);
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(st.st_mode & 0027, 0);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0022, 0);
    s = open_store();
    gc_store_close(s);
}

/*
 * What user @p uid's gc_store_open() of the store gives, in a child of that uid: 0 a view
 * holding exactly @p want_rows rows, all of @p uid, that refuses put, gc and rescan; 10 - the
 * status of a failed open; 1 anything else.
 */
static int view_as(uid_t uid, size_t want_rows)
{
    pid_t pid = fork();
    int status = 0;

    assert_true(pid >= 0);
    if (pid == 0) {
        struct gc_store_policy p = { .keep_per_signature = -1 };
        struct gc_store_rescan_stats rs;
        struct gc_store_row *rows = NULL, r = { 0 };
        gpucore_diag_t d = { 0 };
        struct gc_store *s;
        size_t n = 0;

        if (setresgid(65534, 65534, 65534) != 0 || setgroups(0, NULL) != 0 ||
            setresuid(uid, uid, uid) != 0)
            _exit(2);
        if (gc_store_open(dir, 0, &s, &d) != GPUCORE_OK)
            _exit(10 - (int)d.status); /* the statuses are negative */
        if (!gc_store_is_view(s) || gc_store_query(s, NULL, &rows, &n, &d) != GPUCORE_OK ||
            n != want_rows)
            _exit(1);
        for (size_t i = 0; i < n; i++)
            if (rows[i].uid != (int64_t)uid)
                _exit(1);
        r.file = rows ? rows[0].file : NULL;
        r.state = GC_STORE_PRESENT;
        if (gc_store_put(s, &r, &d) != GPUCORE_E_PERM ||
            gc_store_gc(s, &p, 1, 0, NULL, NULL, NULL, &d) != GPUCORE_E_PERM ||
            gc_store_rescan(s, &rs, &d) != GPUCORE_E_PERM ||
            gc_store_forget(s, r.file, &d) != GPUCORE_E_PERM)
            _exit(1);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* Users' views of root's store: their rows and no one else's, read-only, following the index. */
static void test_user_views(void **state)
{
    gpucore_diag_t d = { 0 };
    struct gc_store_rescan_stats rs;
    struct gc_store *s;
    char name[64];
    struct stat st;
    gpucore_status_t rc;

    (void)state;
    if (geteuid() != 0)
        skip();
    s = open_store();
    put_uid(s, "mine", 1);
    put_uid(s, "mine-too", 1);
    put_uid(s, "theirs", 2);
    put_uid(s, "roots", 0);
    put_uid(s, "unknown", -1);
    rc = gc_store_sync_views(s, &d);
    if (rc == GPUCORE_E_NOTSUP) {
        gc_store_close(s);
        skip();
    }
    assert_int_equal(rc, GPUCORE_OK);
    /* nothing changed since: nothing to write */
    assert_int_equal(gc_store_sync_views(s, &d), GPUCORE_OK);
    gc_store_close(s);
    assert_int_equal(gc_store_view_name(1, name, sizeof(name)), 0);
    assert_string_equal(name, ".user-1.sqlite");
    assert_int_equal(stat(path_in(name), &st), 0);
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(st.st_mode & 0777, 0640); /* 0600 and the ACL's mask r-- */
    assert_int_equal(view_as(1, 2), 0);
    assert_int_equal(view_as(2, 1), 0);
    assert_int_equal(view_as(3, 0), 10 - GPUCORE_E_NOTFOUND);
    /* one user's view is closed to the other, and no view is made for root or no one */
    assert_int_equal(opens_as(2, path_in(name), 0), 1);
    assert_int_equal(stat(path_in(".user-0.sqlite"), &st), -1);
    /* the index changes, the views follow: a row gone, a view emptied is removed */
    s = open_store();
    assert_int_equal(gc_store_forget(s, "theirs", &d), GPUCORE_OK);
    assert_int_equal(gc_store_forget(s, "mine", &d), GPUCORE_OK);
    assert_int_equal(gc_store_sync_views(s, &d), GPUCORE_OK);
    gc_store_close(s);
    assert_int_equal(view_as(1, 1), 0);
    assert_int_equal(view_as(2, 0), 10 - GPUCORE_E_NOTFOUND);
    assert_int_equal(stat(path_in(".user-2.sqlite"), &st), -1);
    /* a rescan rewrites every view: the fixture's files are no cores, so read again they are
       unreadable rows of unknown uid, and uid 1's view goes with its last row */
    s = open_store();
    assert_int_equal(gc_store_rescan(s, &rs, &d), GPUCORE_OK);
    assert_int_equal(gc_store_sync_views(s, &d), GPUCORE_OK);
    assert_int_equal(view_as(1, 0), 10 - GPUCORE_E_NOTFOUND);
    put_uid(s, "mine", 1);
    assert_int_equal(gc_store_sync_views(s, &d), GPUCORE_OK);
    gc_store_close(s);
    assert_int_equal(view_as(1, 1), 0);
    /* a view that is not root's regular file is refused */
    assert_int_equal(chown(path_in(".user-1.sqlite"), 1, 1), 0);
    assert_int_equal(view_as(1, 0), 10 - GPUCORE_E_PERM);
}

/*
 * gc's plan pinned on a fixture where every phase chooses: KeepPerSignature=2 over signatures
 * with repeats (a tie in capture time broken by id, rows of unknown time first, a missing and
 * a deleted row that do not count as kept), MaxAge, then MaxUse, then KeepFree. The expected
 * lists were worked out by hand from docs/store.md's order.
 */
static void expect_plan(const struct removed *pl, const char *const *files, const char *const *why,
                        size_t n)
{
    for (size_t i = 0; i < pl->n && i < n; i++)
        if (strcmp(pl->files[i], files[i]) != 0 || strcmp(pl->why[i], why[i]) != 0)
            fail_msg("plan[%zu]: %s (%s), expected %s (%s)", i, pl->files[i], pl->why[i], files[i],
                     why[i]);
    assert_int_equal(pl->n, n);
}

#define DUP  "duplicate of its signature beyond the first kept"
#define AGE  "older than MaxAge"
#define USE  "MaxUse exceeded"
#define FREE "KeepFree not met"

static void test_gc_plan_order(void **state)
{
    /* file, capture time (s, -1 unknown), signature, KiB; inserted in this order */
    static const struct {
        const char *file;
        int64_t time_s;
        const char *sig;
        size_t kib;
    } fixture[] = {
        { "e1", 4800, "e", 64 }, { "u1", -1, "a", 4 },   { "u2", -1, NULL, 8 },
        { "b1", 100, "b", 4 },   { "c1", 200, NULL, 4 }, { "m1", 4050, "a", 4 },
        { "a1", 4100, "a", 4 },  { "b3", 4150, "b", 4 }, { "b2", 4150, "b", 4 },
        { "a2", 4200, "a", 4 },  { "a3", 4300, "a", 4 }, { "b4", 4400, "b", 4 },
        { "c2", 4500, "c", 4 },  { "d1", 4600, "a", 4 }, { "x1", 4700, NULL, 4 },
        { "e2", 4900, "e", 4 },  { "e3", 4950, "e", 4 },
    };
    /* Oldest first: u1 u2 (unknown time, by id) b1 c1 m1 a1 b3 b2 (same time: by id) a2 a3 b4
       c2 d1 x1 e1 e2 e3. m1 is missing and d1 deleted: neither counts nor goes. The cores
       present use 124 KiB. */
    static const char *const files_a[] = { "b2", "a2", "a3", "b4", "e3",
                                           "b1", "c1", "u1", "u2", "a1" };
    static const char *const why_a[] = { DUP, DUP, DUP, DUP, DUP, AGE, AGE, USE, USE, USE };
    static const char *const files_b[] = { "b2", "a2", "a3", "b4", "e3", "b1", "c1", "u1",
                                           "u2", "a1", "b3", "c2", "x1", "e1", "e2" };
    static const char *const why_b[] = { DUP, DUP, DUP,  DUP,  DUP,  AGE,  AGE, USE,
                                         USE, USE, FREE, FREE, FREE, FREE, FREE };
    struct gc_store_policy p = {
        .keep_per_signature = 2,
        .max_age_ns = 1000 * NS, /* at 5000 s: captured before 4000 s */
        .max_use = 80 * 1024,    /* after 28 KiB of duplicates and old cores: 96 KiB left */
        .keep_free = 1,          /* any file system has a byte free */
    };
    struct gc_store_row *rows = NULL;
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    struct removed pl = { 0 };
    uint64_t freed = 0;
    size_t n;

    (void)state;
    s = open_store();
    for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++) {
        int64_t id = put(s, fixture[i].file, fixture[i].time_s, fixture[i].sig, "x",
                         fixture[i].kib * 1024);

        if (strcmp(fixture[i].file, "x1") == 0)
            assert_int_equal(gc_store_set_state(s, id, GC_STORE_UNREADABLE, &d), GPUCORE_OK);
        if (strcmp(fixture[i].file, "d1") == 0) {
            assert_int_equal(unlink(path_in("d1")), 0);
            assert_int_equal(gc_store_set_state(s, id, GC_STORE_DELETED, &d), GPUCORE_OK);
        }
    }
    assert_int_equal(unlink(path_in("m1")), 0); /* by hand: missing at gc's refresh */

    assert_int_equal(gc_store_gc(s, &p, 1, 5000 * NS, on_removed, &pl, &freed, &d), GPUCORE_OK);
    expect_plan(&pl, files_a, why_a, sizeof(files_a) / sizeof(files_a[0]));
    assert_int_equal(freed, 44 * 1024);

    /* KeepFree no file system has: after MaxUse, every other core goes, oldest first */
    memset(&pl, 0, sizeof(pl));
    p.keep_free = 1ull << 62;
    assert_int_equal(gc_store_gc(s, &p, 1, 5000 * NS, on_removed, &pl, &freed, &d), GPUCORE_OK);
    expect_plan(&pl, files_b, why_b, sizeof(files_b) / sizeof(files_b[0]));
    assert_int_equal(freed, 124 * 1024);

    /* dry runs: every file is still there; the refresh recorded m1 as missing */
    n = query(s, NULL, &rows);
    assert_int_equal(n, sizeof(fixture) / sizeof(fixture[0]));
    for (size_t i = 0; i < n; i++) {
        int want = strcmp(rows[i].file, "m1") == 0   ? GC_STORE_MISSING
                   : strcmp(rows[i].file, "d1") == 0 ? GC_STORE_DELETED
                   : strcmp(rows[i].file, "x1") == 0 ? GC_STORE_UNREADABLE
                                                     : GC_STORE_PRESENT;

        assert_int_equal(rows[i].state, want);
    }
    gc_store_rows_free(rows, n);

    /* for real: the same cores in the same order, their rows marked deleted */
    memset(&pl, 0, sizeof(pl));
    assert_int_equal(gc_store_gc(s, &p, 0, 5000 * NS, on_removed, &pl, &freed, &d), GPUCORE_OK);
    expect_plan(&pl, files_b, why_b, sizeof(files_b) / sizeof(files_b[0]));
    assert_int_equal(sql_int("SELECT count(*) FROM cores WHERE state = 'deleted'"), 16);
    for (size_t i = 0; i < pl.n; i++)
        assert_int_equal(access(path_in(pl.files[i]), F_OK), -1);
    gc_store_close(s);
}

#undef DUP
#undef AGE
#undef USE
#undef FREE

/* The index's journal mode as SQLite reports it ("wal", "delete"), read by a connection of
   its own. */
static void expect_journal_mode(const char *want)
{
    sqlite3 *db;
    sqlite3_stmt *q;

    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), want);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

/* The filesystem table and the journal it decides, on injected f_type values. */
static void test_fs_table(void **state)
{
    static const struct {
        uint64_t magic;
        const char *name;
    } network[] = {
        { 0x6969, "nfs" },        { 0x517B, "smb" },       { 0xFE534D42, "smb2" },
        { 0xFF534D42, "cifs" },   { 0x00C36400, "ceph" },  { 0x01021997, "9p" },
        { 0x65735546, "fuse" },   { 0x5346414F, "afs" },   { 0x6B414653, "kafs" },
        { 0x73757245, "coda" },   { 0x7461636F, "ocfs2" }, { 0x01161970, "gfs2" },
        { 0x0BD00BD0, "lustre" }, { 0x47504653, "gpfs" },  { 0x19830326, "beegfs" },
    };
    static const struct {
        uint64_t magic;
        const char *name;
    } local[] = {
        { 0xEF53, "ext4" },      { 0x58465342, "xfs" },       { 0x9123683E, "btrfs" },
        { 0x01021994, "tmpfs" }, { 0x794C7630, "overlayfs" },
    };
    const struct gc_store_fs *fs;

    (void)state;
    for (size_t i = 0; i < sizeof(network) / sizeof(network[0]); i++) {
        fs = gc_store_fs_lookup(network[i].magic);
        assert_non_null(fs);
        assert_string_equal(fs->name, network[i].name);
        assert_int_equal(fs->network, 1);
        assert_int_equal(gc_store_journal_for(network[i].magic), GC_STORE_JOURNAL_DELETE);
    }
    for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
        fs = gc_store_fs_lookup(local[i].magic);
        assert_non_null(fs);
        assert_string_equal(fs->name, local[i].name);
        assert_int_equal(fs->network, 0);
        assert_int_equal(gc_store_journal_for(local[i].magic), GC_STORE_JOURNAL_WAL);
    }
    /* not in the table: local */
    assert_null(gc_store_fs_lookup(0x12345678));
    assert_int_equal(gc_store_journal_for(0x12345678), GC_STORE_JOURNAL_WAL);
    assert_int_equal(gc_store_journal_for(0), GC_STORE_JOURNAL_WAL);
    /* f_type is a signed long: CIFS's magic sign-extended, as a 32-bit system gives it */
    assert_int_equal(gc_store_journal_for((uint64_t)(int64_t)(int32_t)0xFF534D42),
                     GC_STORE_JOURNAL_DELETE);
    /* and only the low 32 bits count: NFS's value with high bits is still NFS */
    assert_string_equal(gc_store_fs_lookup(0x100006969ull)->name, "nfs");
    assert_string_equal(gc_store_journal_name(GC_STORE_JOURNAL_WAL), "wal");
    assert_string_equal(gc_store_journal_name(GC_STORE_JOURNAL_DELETE), "delete");
    assert_null(gc_store_journal_name(_GC_STORE_JOURNAL_MAX));
}

/* A store on a local filesystem, the build tree's and tmpfs (/dev/shm), uses WAL; what the
   store says of its filesystem is what statfs() says. */
static void test_journal_local(void **state)
{
    char saved[PATH_MAX];
    struct gc_store *s;
    struct statfs sfs;
    char name[32];

    (void)state;
    s = open_store();
    assert_int_equal(statfs(dir, &sfs), 0);
    assert_int_equal(gc_store_fs_type(s), (uint64_t)sfs.f_type);
    if (gc_store_journal_for((uint64_t)sfs.f_type) == GC_STORE_JOURNAL_DELETE)
        skip(); /* a build tree on a network filesystem: not what this test is about */
    assert_int_equal(gc_store_journal(s), GC_STORE_JOURNAL_WAL);
    gc_store_close(s);
    expect_journal_mode("wal");

    /* tmpfs */
    if (statfs("/dev/shm", &sfs) != 0 || (uint32_t)sfs.f_type != 0x01021994u) {
        print_message("/dev/shm is not a tmpfs here: only the build tree's filesystem tested\n");
        return;
    }
    snprintf(saved, sizeof(saved), "%s", dir);
    snprintf(dir, sizeof(dir), "/dev/shm/test_store.%ld", (long)getpid());
    s = open_store();
    assert_int_equal(gc_store_journal(s), GC_STORE_JOURNAL_WAL);
    assert_string_equal(gc_store_fs_name(s, name, sizeof(name)), "tmpfs");
    gc_store_close(s);
    expect_journal_mode("wal");
    assert_int_equal(teardown(NULL), 0);
    snprintf(dir, sizeof(dir), "%s", saved);
}

/*
 * An index in WAL mode opened on a network filesystem (an injected NFS f_type) is switched to
 * a rollback journal, its rows kept; opened on a local one again, it is WAL again. While
 * another process has it open in WAL mode, the switch cannot happen: after the busy timeout
 * the open fails with a message saying so, and the index is still WAL and whole.
 */
static void test_journal_network(void **state)
{
    const uint64_t nfs = 0x6969, ext4 = 0xEF53;
    struct gc_store_row *rows = NULL;
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    char name[32];
    struct stat st;
    sqlite3 *other;

    (void)state;
    s = open_store();
    put(s, "a", 100, "sig", "x", 10);
    gc_store_close(s);
    expect_journal_mode("wal");

    assert_int_equal(gc_store_open_fs(dir, GC_STORE_CREATE, &nfs, &s, &d), GPUCORE_OK);
    assert_int_equal(gc_store_journal(s), GC_STORE_JOURNAL_DELETE);
    assert_string_equal(gc_store_fs_name(s, name, sizeof(name)), "nfs");
    put(s, "b", 200, "sig", "x", 10); /* writes in rollback mode */
    assert_int_equal(query(s, NULL, &rows), 2);
    gc_store_rows_free(rows, 2);
    expect_journal_mode("delete");
    assert_int_equal(stat(path_in(GC_STORE_INDEX_NAME "-wal"), &st), -1);
    gc_store_close(s);
    expect_journal_mode("delete");

    /* back on a local filesystem: WAL */
    assert_int_equal(gc_store_open_fs(dir, GC_STORE_CREATE, &ext4, &s, &d), GPUCORE_OK);
    assert_int_equal(gc_store_journal(s), GC_STORE_JOURNAL_WAL);
    gc_store_close(s);
    expect_journal_mode("wal");

    /* another connection holds the WAL index open: no switch, a clear failure, nothing
       changed */
    assert_int_equal(sqlite3_open(path_in(GC_STORE_INDEX_NAME), &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "SELECT count(*) FROM cores", NULL, NULL, NULL),
                     SQLITE_OK);
    s = NULL;
    assert_int_equal(gc_store_open_fs(dir, GC_STORE_CREATE, &nfs, &s, &d), GPUCORE_E_IO);
    assert_null(s);
    assert_non_null(strstr(d.message, "on a network filesystem (nfs)"));
    assert_non_null(strstr(d.message, "could not be switched"));
    sqlite3_close(other);
    expect_journal_mode("wal");
    assert_int_equal(sql_int("SELECT count(*) FROM cores"), 2);
    /* once it is closed, the switch happens */
    assert_int_equal(gc_store_open_fs(dir, GC_STORE_CREATE, &nfs, &s, &d), GPUCORE_OK);
    assert_int_equal(gc_store_journal(s), GC_STORE_JOURNAL_DELETE);
    gc_store_close(s);
    expect_journal_mode("delete");
}

/* A user who is not root sees the rows of their uid and those of unknown uid only. */
static void test_own_uid_filter(void **state)
{
    struct gc_store_filter f = { .own_uid_only = 1, .uid = 1000 };
    struct gc_store_row *rows = NULL;
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    size_t n;

    (void)state;
    s = open_store();
    for (int i = 0; i < 3; i++) {
        struct gc_store_row r = { 0 };
        static const char *const files[] = { "mine", "theirs", "unknown" };
        static const int64_t uids[] = { 1000, 1001, -1 };

        r.time_ns = r.pid = r.rank = r.waves = r.faulting_waves = -1;
        r.uid = uids[i];
        r.file = (char *)files[i];
        r.state = GC_STORE_PRESENT;
        assert_int_equal(gc_store_put(s, &r, &d), GPUCORE_OK);
    }
    n = query(s, &f, &rows);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].file, "mine");
    assert_int_equal(rows[0].uid, 1000);
    assert_string_equal(rows[1].file, "unknown");
    assert_int_equal(rows[1].uid, -1);
    gc_store_rows_free(rows, n);
    assert_int_equal(query(s, NULL, &rows), 3);
    gc_store_rows_free(rows, 3);
    gc_store_close(s);
}

/* Put rows "mine" (uid 1000), "theirs" (1001) and "unknown" (no uid) whose files do not exist. */
static void put_three_uids(struct gc_store *s)
{
    static const char *const files[] = { "mine", "theirs", "unknown" };
    static const int64_t uids[] = { 1000, 1001, -1 };
    gpucore_diag_t d = { 0 };

    for (int i = 0; i < 3; i++) {
        struct gc_store_row r = { 0 };

        r.time_ns = r.pid = r.rank = r.waves = r.faulting_waves = -1;
        r.uid = uids[i];
        r.file = (char *)files[i];
        r.state = GC_STORE_PRESENT;
        if (gc_store_put(s, &r, &d) != GPUCORE_OK)
            fail_msg("gc_store_put: %s", d.message);
    }
}

/*
 * gc_store_query_visible(), the privacy rule every reader uses: root sees every row; uid 1000,
 * in a child, of its own store, its rows and those of unknown uid, whatever the filter says of
 * uids. Both get the files' states checked (the files do not exist: missing).
 */
static void test_query_visible(void **state)
{
    struct gc_store_filter f = { .own_uid_only = 0, .uid = 1001 };
    struct gc_store_row *rows = NULL;
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    size_t n = 0;
    int status = 0;
    pid_t pid;

    (void)state;
    s = open_store();
    put_three_uids(s);
    if (geteuid() != 0) {
        assert_int_equal(gc_store_query_visible(s, NULL, &rows, &n, &d), GPUCORE_OK);
        assert_int_equal(n, 1); /* a user's: only "unknown" (the test's uid is neither) */
        gc_store_rows_free(rows, n);
        gc_store_close(s);
        return;
    }
    assert_int_equal(gc_store_query_visible(s, &f, &rows, &n, &d), GPUCORE_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rows[i].state, GC_STORE_MISSING);
    gc_store_rows_free(rows, n);
    assert_int_equal(f.own_uid_only, 0); /* the caller's filter is only read */
    gc_store_close(s);

    /* uid 1000's own store, in a directory it owns */
    char cmd[PATH_MAX + 16];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(chown(dir, 1000, 1000), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setresgid(1000, 1000, 1000) != 0 || setgroups(0, NULL) != 0 ||
            setresuid(1000, 1000, 1000) != 0)
            _exit(2);
        if (gc_store_open(dir, GC_STORE_CREATE, &s, &d) != GPUCORE_OK)
            _exit(3);
        put_three_uids(s);
        rows = NULL;
        n = 0;
        if (gc_store_query_visible(s, &f, &rows, &n, &d) != GPUCORE_OK)
            _exit(4);
        if (n != 2 || strcmp(rows[0].file, "mine") != 0 || strcmp(rows[1].file, "unknown") != 0 ||
            rows[0].state != GC_STORE_MISSING)
            _exit(5);
        gc_store_rows_free(rows, n);
        gc_store_close(s);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* gc_store_summarize(): rows by state, the present ones' bytes, times and distinct signatures. */
static void test_summarize(void **state)
{
    static const char *const sig[] = { "b", NULL, "a", "b", "c" };
    static const int states[] = { GC_STORE_PRESENT, GC_STORE_PRESENT, GC_STORE_PRESENT,
                                  GC_STORE_PRESENT, GC_STORE_MISSING };
    static const int64_t times[] = { 5, -1, 3, 9, 1 };
    struct gc_store_row rows[6] = { 0 };
    struct gc_store_summary sum;

    (void)state;
    for (size_t i = 0; i < 5; i++) {
        rows[i].sig_hash = (char *)sig[i];
        rows[i].state = states[i];
        rows[i].time_ns = times[i];
        rows[i].size = 100;
    }
    rows[5].state = -7; /* no state: not counted */
    assert_int_equal(gc_store_summarize(rows, 6, &sum), GPUCORE_OK);
    assert_int_equal(sum.count[GC_STORE_PRESENT], 4);
    assert_int_equal(sum.count[GC_STORE_MISSING], 1);
    assert_int_equal(sum.present_bytes, 400);
    assert_int_equal(sum.signatures, 2); /* a, b: c's core is missing */
    assert_int_equal(sum.oldest_ns, 3);
    assert_int_equal(sum.newest_ns, 9);
    assert_int_equal(gc_store_summarize(rows, 0, &sum), GPUCORE_OK);
    assert_int_equal(sum.signatures, 0);
    assert_int_equal(sum.oldest_ns, -1);
}

/* KeepFree: more free space than any disk has -- every core goes, oldest first; a
   KeepFree the disk already has -- none. */
static void test_gc_keep_free(void **state)
{
    struct gc_store_policy p = { .keep_per_signature = -1, .keep_free = 1ull << 62 };
    struct removed rm = { 0 };
    struct gc_store *s;
    gpucore_diag_t d = { 0 };
    uint64_t freed = 0;

    (void)state;
    s = open_store();
    put(s, "new", 300, "a", "x", 4096);
    put(s, "old", 100, "b", "x", 4096);
    p.keep_free = 1;
    assert_int_equal(gc_store_gc(s, &p, 0, 1000 * NS, on_removed, &rm, &freed, &d), GPUCORE_OK);
    assert_int_equal(rm.n, 0);
    p.keep_free = 1ull << 62;
    assert_int_equal(gc_store_gc(s, &p, 0, 1000 * NS, on_removed, &rm, &freed, &d), GPUCORE_OK);
    assert_int_equal(rm.n, 2);
    assert_string_equal(rm.files[0], "old");
    assert_string_equal(rm.files[1], "new");
    assert_string_equal(rm.why[0], "KeepFree not met");
    assert_int_equal(freed, 2 * 4096);
    gc_store_close(s);
}

/* Where the store is: --store, GPUCORE_STORE, then the defaults. */
static void test_locate(void **state)
{
    char buf[PATH_MAX];
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_store_locate("/x/opt", buf, sizeof(buf), &d), GPUCORE_OK);
    assert_string_equal(buf, "/x/opt");
    setenv("GPUCORE_STORE", "/x/env", 1);
    assert_int_equal(gc_store_locate(NULL, buf, sizeof(buf), &d), GPUCORE_OK);
    assert_string_equal(buf, "/x/env");
    unsetenv("GPUCORE_STORE");
    assert_int_equal(gc_store_locate(NULL, buf, sizeof(buf), &d), GPUCORE_OK);
    if (geteuid() == 0)
        assert_string_equal(buf, GC_STORE_ROOT_DIR);
    assert_int_equal(gc_store_locate("/a/long/path", buf, 5, &d), GPUCORE_E_LIMIT);
}

/* A user who is not root: the XDG state directory, else ~/.local/state (a child as nobody). */
static void test_locate_user(void **state)
{
    pid_t pid;
    int status = 0;

    (void)state;
    if (geteuid() != 0)
        skip(); /* becomes another user to be sure not to be root */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char buf[PATH_MAX];
        gpucore_diag_t d = { 0 };

        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        unsetenv("GPUCORE_STORE");
        setenv("XDG_STATE_HOME", "/x/state", 1);
        setenv("HOME", "/h", 1);
        if (gc_store_locate(NULL, buf, sizeof(buf), &d) != GPUCORE_OK ||
            strcmp(buf, "/x/state/gpucore/cores") != 0)
            _exit(11);
        setenv("XDG_STATE_HOME", "relative", 1); /* not absolute: ignored, as XDG says */
        if (gc_store_locate(NULL, buf, sizeof(buf), &d) != GPUCORE_OK ||
            strcmp(buf, "/h/.local/state/gpucore/cores") != 0)
            _exit(12);
        unsetenv("XDG_STATE_HOME");
        unsetenv("HOME");
        if (gc_store_locate(NULL, buf, sizeof(buf), &d) != GPUCORE_E_NOTFOUND)
            _exit(13);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_migrate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_writers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_created_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rescan_hostile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_file_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_schema, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statement_time_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_owner, setup, teardown),
        cmocka_unit_test(test_group_by_signature),
        cmocka_unit_test_setup_teardown(test_conf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gc_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gc_keep_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gc_plan_order, setup, teardown),
        cmocka_unit_test(test_fs_table),
        cmocka_unit_test_setup_teardown(test_journal_local, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_network, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_uid_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_visible, setup, teardown),
        cmocka_unit_test(test_summarize),
        cmocka_unit_test_setup_teardown(test_retain_keeps_new_core, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forget_and_seen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_share_with_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_views, setup, teardown),
        cmocka_unit_test_setup_teardown(test_change_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_views, setup, teardown),
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_locate_user),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
