/* SPDX-License-Identifier: MIT */
/*
 * What the store does not trust in its own index (store.h, docs/store.md "Rules"): the index
 * is a file, and whoever can write it chooses what SQLite runs and which file names the store
 * then opens, stats and removes. So:
 *
 *   - a file name from the index is one plain name of the store's directory
 *     (gc_store_file_name_ok()), or the row is ignored;
 *   - SQLite runs no trigger, no view, no function the schema names, and no extension, and
 *     defends its schema against changes (db_guards[]);
 *   - the schema is the one the migrations create, entry for entry (gc_store_verify_schema());
 *   - every statement has a time bound (GC_STORE_STATEMENT_TIME_MAX_MS).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

/* ---------------------------------------------------------------------------------------- */
/* File names                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* The journals SQLite keeps beside the index (the index's name and these suffixes). */
static const char *const index_suffixes[] = { "", "-wal", "-shm", "-journal" };

int gc_store_is_index_file(const char *name)
{
    size_t n = strlen(GC_STORE_INDEX_NAME);

    if (!name || strncmp(name, GC_STORE_INDEX_NAME, n) != 0)
        return 0;
    for (size_t i = 0; i < GC_ARRAY_SIZE(index_suffixes); i++)
        if (strcmp(name + n, index_suffixes[i]) == 0)
            return 1;
    return 0;
}

int gc_store_file_name_ok(const char *name)
{
    size_t n = name ? strnlen(name, GC_STORE_FILE_NAME_MAX + 1) : 0;

    /* '.' first also refuses "." and "..", and the writer's hidden temporary files */
    return n > 0 && n <= GC_STORE_FILE_NAME_MAX && name[0] != '.' && !memchr(name, '/', n) &&
           !gc_store_is_index_file(name);
}

/* ---------------------------------------------------------------------------------------- */
/* What SQLite may do                                                                          */
/* ---------------------------------------------------------------------------------------- */

/*
 * The connection's settings, each read back after it is set: an SQLite that does not know one
 * (older than 3.35) leaves the store unopened rather than unguarded.
 */
static const struct {
    int op;
    int value;
    const char *name;
} db_guards[] = {
    /* no writable_schema, no journal_mode=OFF, no other way to corrupt the file on purpose */
    { SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive" },
    /* the index has none; one put there would run on gpucore's own writes */
    { SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "triggers off" },
    /* the index has none; a view named like a table would run whatever it selects */
    { SQLITE_DBCONFIG_ENABLE_VIEW, 0, "views off" },
    /* functions with side effects never run from the schema (defaults, indexes, checks) */
    { SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "untrusted schema" },
    { SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "no extensions" },
};

static int64_t monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* SQLite's progress handler: nonzero interrupts the statement running now. */
static int statement_overdue(void *user)
{
    struct gc_store *s = user;

    if (monotonic_ns() <= s->deadline_ns)
        return 0;
    s->overdue = 1;
    return 1;
}

gpucore_status_t gc_store_guard_db(struct gc_store *s, gpucore_diag_t *d)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(db_guards); i++) {
        int now = -1;

        if (sqlite3_db_config(s->db, db_guards[i].op, db_guards[i].value, &now) != SQLITE_OK ||
            now != db_guards[i].value)
            return gc_diag_set(d, GPUCORE_E_NOTSUP, 0,
                               "%s/%s: this SQLite (%s) cannot be set to '%s': the index is "
                               "not opened without it",
                               s->path, GC_STORE_INDEX_NAME, sqlite3_libversion(),
                               db_guards[i].name);
    }
    if (!s->statement_limit_ns)
        s->statement_limit_ns = (int64_t)GC_STORE_STATEMENT_TIME_MAX_MS * 1000000;
    sqlite3_progress_handler(s->db, GC_STORE_PROGRESS_STEPS, statement_overdue, s);
    return gc_store_exec(s, "PRAGMA cell_size_check = ON", "cannot set the index's checks", d);
}

void gc_store_statement_begin(struct gc_store *s)
{
    s->overdue = 0;
    s->deadline_ns = monotonic_ns() + s->statement_limit_ns;
}

/* ---------------------------------------------------------------------------------------- */
/* The schema                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* Every entry of a schema, in one order: (type, name) is unique in a database. */
#define SCHEMA_ENTRIES "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"
/* Those that are neither tables nor indexes: views and triggers. */
#define RUNNABLE_ENTRIES                                                                     \
    "SELECT type, name FROM sqlite_schema WHERE type NOT IN ('table', 'index') "          \
    "ORDER BY type, name LIMIT 1"

static const char *col(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);

    return t ? (const char *)t : "";
}

/* (type, name) of two rows compared: <0, 0, >0. */
static int cmp_key(sqlite3_stmt *a, sqlite3_stmt *b)
{
    int c = strcmp(col(a, 0), col(b, 0));

    return c ? c : strcmp(col(a, 1), col(b, 1));
}

/* @p what: "unexpected", "no" or "another" (entry @p q of the index or of the reference). */
static gpucore_status_t not_ours(const struct gc_store *s, gpucore_diag_t *d, const char *what,
                                 sqlite3_stmt *q)
{
    char type[16], name[64];

    /* the index's own words, cut, and shown as UTF-8 (stderr's filter takes control bytes) */
    snprintf(type, sizeof(type), "%s", col(q, 0));
    snprintf(name, sizeof(name), "%s", col(q, 1));
    gc_utf8_scrub(name, strlen(name));
    return gc_diag_set(d, GPUCORE_E_CORRUPT, 0,
                       "%s/%s: the index is not one gpucore made (%s %s '%s'): refused; move it "
                       "away, and `gpucore store --rescan` builds a new one from the cores",
                       s->path, GC_STORE_INDEX_NAME, what, type, name);
}

/* A new in-memory database holding the schema of @p version, as the migrations made it. */
static gpucore_status_t reference_schema(int version, sqlite3 **ret, gpucore_diag_t *d)
{
    sqlite3 *db = NULL;

    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
    }
    for (int v = 1; v <= version; v++) {
        const char *sql = gc_store_migration_sql(v);

        if (!sql || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            gc_diag_set(d, GPUCORE_E_NOMEM, 0, "cannot build schema version %d: %s", v,
                        sqlite3_errmsg(db));
            sqlite3_close(db);
            return d ? d->status : GPUCORE_E_NOMEM;
        }
    }
    *ret = db;
    return GPUCORE_OK;
}

gpucore_status_t gc_store_verify_schema(struct gc_store *s, int version, gpucore_diag_t *d)
{
    sqlite3 *ref_db = NULL;
    sqlite3_stmt *have = NULL, *want = NULL;
    gpucore_status_t st;
    int rh, rw;

    st = reference_schema(version, &ref_db, d);
    if (st != GPUCORE_OK)
        return st;
    /* What would run code first (a view, a trigger): the gravest difference is named. */
    st = gc_store_prepare(s, RUNNABLE_ENTRIES, &have, d);
    if (st == GPUCORE_OK && (rh = sqlite3_step(have)) == SQLITE_ROW)
        st = not_ours(s, d, "unexpected", have);
    else if (st == GPUCORE_OK && rh != SQLITE_DONE)
        st = gc_store_fail(s, d, "cannot read the index's schema");
    sqlite3_finalize(have);
    have = NULL;
    if (st == GPUCORE_OK)
        st = gc_store_prepare(s, SCHEMA_ENTRIES, &have, d);
    if (st == GPUCORE_OK && sqlite3_prepare_v2(ref_db, SCHEMA_ENTRIES, -1, &want, NULL) != SQLITE_OK)
        st = gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
    if (st != GPUCORE_OK)
        goto out;
    /* Both lists in the same order, walked side by side: the first difference is named. */
    rh = sqlite3_step(have);
    rw = sqlite3_step(want);
    while (st == GPUCORE_OK && (rh == SQLITE_ROW || rw == SQLITE_ROW)) {
        int c = rh != SQLITE_ROW ? 1 : rw != SQLITE_ROW ? -1 : cmp_key(have, want);

        if (rh != SQLITE_ROW && rh != SQLITE_DONE)
            break;
        if (c < 0)
            st = not_ours(s, d, "unexpected", have);
        else if (c > 0)
            st = not_ours(s, d, "no", want);
        else if (strcmp(col(have, 2), col(want, 2)) != 0 || strcmp(col(have, 3), col(want, 3)) != 0)
            st = not_ours(s, d, "a different", have);
        else {
            rh = sqlite3_step(have);
            rw = sqlite3_step(want);
        }
    }
    if (st == GPUCORE_OK && rh != SQLITE_DONE)
        st = gc_store_fail(s, d, "cannot read the index's schema");
out:
    sqlite3_finalize(have);
    sqlite3_finalize(want);
    sqlite3_close(ref_db);
    return st;
}
