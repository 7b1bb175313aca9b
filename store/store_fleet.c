/* SPDX-License-Identifier: MIT */
/*
 * The fleet index, writing side (fleet.h, docs/fleet.md): the URI (checks, masking), the
 * connection (libpq, non-blocking, every wait bounded by the caller's budget), the database's
 * schema (migrations under an advisory lock, verified before use) and gc_fleet_sync().
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "fleet.h"
#include "fleet_internal.h"
#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

_Static_assert(GC_FLEET_URI_MAX == GC_STORE_FLEET_URI_MAX, "store.conf's FleetIndex= bound");

/* ---------------------------------------------------------------------------------------- */
/* The URI                                                                                     */
/* ---------------------------------------------------------------------------------------- */

int gc_fleet_uri_ok(const char *uri)
{
    if (!uri || !uri[0])
        return 0;
    size_t n = strnlen(uri, GC_FLEET_URI_MAX + 1);
    if (n > GC_FLEET_URI_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)uri[i] < 0x20 || uri[i] == 0x7f)
            return 0;
    return 1;
}

/* A bounded string builder for the mask: what does not fit is cut. */
struct mask_out {
    char *buf;
    size_t size, len;
};

static void mask_put(struct mask_out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n && o->len + 1 < o->size; i++)
        o->buf[o->len++] = s[i];
    if (o->size)
        o->buf[o->len] = '\0';
}

/* The end of a password= value starting at @p v: a URI's parameter ends at '&'; a key=value
   string's at blank space, or its closing quote when quoted. */
static const char *mask_value_end(const char *v, int uri)
{
    if (uri)
        return v + strcspn(v, "&");
    if (*v == '\'') {
        const char *p = v + 1;
        while (*p && *p != '\'') {
            if (*p == '\\' && p[1])
                p++;
            p++;
        }
        return *p ? p + 1 : p;
    }
    return v + strcspn(v, " \t\n");
}

/* The key "password" at @p p (at the start, or after '?', '&' or a blank), then '=' after
   optional blanks: the value's start, else NULL. */
static const char *mask_password_key(const char *start, const char *p)
{
    static const char key[] = "password";
    if (strncmp(p, key, sizeof(key) - 1) != 0)
        return NULL;
    if (p != start && !strchr("?& \t", p[-1]))
        return NULL;
    p += sizeof(key) - 1;
    p += strspn(p, " \t");
    if (*p != '=')
        return NULL;
    p++;
    return p + strspn(p, " \t");
}

char *gc_fleet_uri_mask(const char *uri, char *buf, size_t size)
{
    struct mask_out o = { buf, size, 0 };
    if (size)
        buf[0] = '\0';
    if (!uri)
        return buf;
    int is_uri = strncmp(uri, "postgresql://", 13) == 0 || strncmp(uri, "postgres://", 11) == 0;
    const char *p = uri;
    if (is_uri) {
        /* user:PASSWORD@ in the authority (up to the first '/' or '?'; the last '@') */
        const char *auth = strstr(uri, "://") + 3;
        const char *auth_end = auth + strcspn(auth, "/?");
        const char *at = NULL;
        for (const char *q = auth; q < auth_end; q++)
            if (*q == '@')
                at = q;
        const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon) {
            mask_put(&o, uri, (size_t)(colon - uri) + 1);
            mask_put(&o, "***", 3);
            p = at;
        }
    }
    while (*p) {
        const char *v = mask_password_key(uri, p);
        if (v) {
            mask_put(&o, p, (size_t)(v - p));
            mask_put(&o, "***", 3);
            p = mask_value_end(v, is_uri);
            continue;
        }
        mask_put(&o, p, 1);
        p++;
    }
    return buf;
}

const char *gc_fleet_uri(const char *option, const struct gc_store_conf *conf)
{
    if (option)
        return option;
    if (conf && conf->fleet_index[0])
        return conf->fleet_index;
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* The connection                                                                              */
/* ---------------------------------------------------------------------------------------- */

int64_t gc_fleet_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void gc_fleet_set_budget(struct gc_fleet *f, int64_t time_max_ms)
{
    if (time_max_ms < 0)
        time_max_ms = 0;
    f->deadline_ns = gc_fleet_mono_ns() + time_max_ms * 1000000;
}

/* The longest message of the server's quoted in ours: its primary message is one line. */
#define FLEET_SERVER_MESSAGE_MAX 300

/* @p msg (the server's or libpq's: hostile text) on one line of printable bytes, cut. */
static const char *fleet_clean(const char *msg, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *p = msg ? msg : ""; *p && n + 1 < size; p++)
        buf[n++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? ' ' : *p;
    while (n && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    return buf;
}

static void fleet_drop(struct gc_fleet *f)
{
    if (f->conn)
        PQfinish(f->conn); /* closes the socket; never PQcancel(), which may block */
    f->conn = NULL;
}

/* Wait for @p events on the connection's socket until the deadline: 1 ready, 0 the deadline
   passed, -1 poll() failed. */
static int fleet_wait(struct gc_fleet *f, short events)
{
    for (;;) {
        int64_t left = f->deadline_ns - gc_fleet_mono_ns();
        if (left <= 0)
            return 0;
        struct pollfd pfd = { .fd = PQsocket(f->conn), .events = events };
        if (pfd.fd < 0)
            return -1;
        int ms = (int)((left + 999999) / 1000000);
        int rc = poll(&pfd, 1, ms);
        if (rc > 0)
            return 1;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

static gpucore_status_t fleet_conn_fail(struct gc_fleet *f, const char *what, const char *why,
                                        gpucore_diag_t *d)
{
    char clean[FLEET_SERVER_MESSAGE_MAX];
    fleet_clean(why ? why : (f->conn ? PQerrorMessage(f->conn) : ""), clean, sizeof(clean));
    fleet_drop(f);
    return gc_diag_set(d, GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s: %s", f->where, what, clean);
}

static gpucore_status_t fleet_timeout(struct gc_fleet *f, const char *what, gpucore_diag_t *d)
{
    fleet_drop(f);
    return gc_diag_set(d, GPUCORE_E_IO, GC_NO_OFFSET,
                       "%s: %s: no answer within the time allowed (the connection is dropped)",
                       f->where, what);
}

/* Send what libpq has buffered (a non-blocking connection may hold part of a statement). */
static gpucore_status_t fleet_flush(struct gc_fleet *f, const char *what, gpucore_diag_t *d)
{
    for (;;) {
        int rc = PQflush(f->conn);
        if (rc == 0)
            return GPUCORE_OK;
        if (rc < 0)
            return fleet_conn_fail(f, what, NULL, d);
        int w = fleet_wait(f, POLLIN | POLLOUT);
        if (w == 0)
            return fleet_timeout(f, what, d);
        if (w < 0 || !PQconsumeInput(f->conn))
            return fleet_conn_fail(f, what, NULL, d);
    }
}

/* The status of a failed result: a missing privilege (SQLSTATE 42501) is E_PERM. */
static gpucore_status_t fleet_result_status(const PGresult *r)
{
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    return state && strcmp(state, "42501") == 0 ? GPUCORE_E_PERM : GPUCORE_E_IO;
}

gpucore_status_t gc_fleet_exec(struct gc_fleet *f, const char *what, const char *sql, int n,
                               const char *const *values, PGresult **ret, gpucore_diag_t *d)
{
    if (ret)
        *ret = NULL;
    if (!f->conn)
        return gc_diag_set(d, GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s: the connection was dropped",
                           f->where, what);
    int sent = (n == 0 && !values)
                       ? PQsendQuery(f->conn, sql)
                       : PQsendQueryParams(f->conn, sql, n, NULL, values, NULL, NULL, 0);
    if (!sent)
        return fleet_conn_fail(f, what, NULL, d);
    GC_TRY(fleet_flush(f, what, d));
    PGresult *last = NULL, *error = NULL;
    for (;;) {
        while (PQisBusy(f->conn)) {
            int w = fleet_wait(f, POLLIN);
            if (w == 0 || w < 0 || !PQconsumeInput(f->conn)) {
                PQclear(last);
                PQclear(error);
                return w == 0 ? fleet_timeout(f, what, d) : fleet_conn_fail(f, what, NULL, d);
            }
        }
        PGresult *r = PQgetResult(f->conn);
        if (!r)
            break;
        ExecStatusType es = PQresultStatus(r);
        if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK && !error) {
            error = r;
            continue;
        }
        PQclear(last);
        last = r;
    }
    if (error) {
        char clean[FLEET_SERVER_MESSAGE_MAX];
        gpucore_status_t st = fleet_result_status(error);
        fleet_clean(PQresultErrorField(error, PG_DIAG_MESSAGE_PRIMARY), clean, sizeof(clean));
        PQclear(error);
        PQclear(last);
        return gc_diag_set(d, st, GC_NO_OFFSET, "%s: %s: %s", f->where, what, clean);
    }
    if (PQstatus(f->conn) == CONNECTION_BAD) {
        PQclear(last);
        return fleet_conn_fail(f, what, NULL, d);
    }
    if (ret)
        *ret = last;
    else
        PQclear(last);
    return GPUCORE_OK;
}

/* The session's settings: the server ends a statement past the budget too, and resolves no
   name through a schema of the database's users (every name gpucore uses is qualified). */
static void fleet_options(char *buf, size_t size, int64_t time_max_ms)
{
    long long ms = time_max_ms > 0 ? (long long)time_max_ms : 1;
    snprintf(buf, size, "-c statement_timeout=%lld -c lock_timeout=%lld -c search_path=pg_catalog",
             ms, ms);
}

static gpucore_status_t fleet_connect(struct gc_fleet *f, const char *uri, int64_t time_max_ms,
                                      gpucore_diag_t *d)
{
    char options[160], timeout[24];
    fleet_options(options, sizeof(options), time_max_ms);
    /* libpq's connect_timeout is whole seconds, at least 2; ours is the poll() below. */
    snprintf(timeout, sizeof(timeout), "%lld",
             (long long)(time_max_ms / 1000 < 2 ? 2 : time_max_ms / 1000));
    const char *const keys[] = { "dbname", "connect_timeout", "options", "application_name", NULL };
    const char *const vals[] = { uri, timeout, options, "gpucore", NULL };
    f->conn = PQconnectStartParams(keys, vals, 1);
    if (!f->conn)
        return gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "%s: no memory to connect", f->where);
    if (PQstatus(f->conn) == CONNECTION_BAD)
        return fleet_conn_fail(f, "cannot connect", NULL, d);
    PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
    while (ps != PGRES_POLLING_OK) {
        if (ps == PGRES_POLLING_FAILED)
            return fleet_conn_fail(f, "cannot connect", NULL, d);
        int w = fleet_wait(f, ps == PGRES_POLLING_READING ? POLLIN : POLLOUT);
        if (w == 0)
            return fleet_timeout(f, "cannot connect", d);
        if (w < 0)
            return fleet_conn_fail(f, "cannot connect", NULL, d);
        ps = PQconnectPoll(f->conn);
    }
    if (PQsetnonblocking(f->conn, 1) != 0)
        return fleet_conn_fail(f, "cannot connect", NULL, d);
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* The schema                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* The key of the advisory lock under which writers migrate ("gpucflt" in ASCII): any fixed
   number; only gpucore's migrations take it. */
#define FLEET_MIGRATION_LOCK_KEY "113723876373620"

/* The migrations, by the version they bring the schema to (docs/fleet.md, "The schema"). */
static const struct fleet_migration {
    int version;
    const char *description;
    const char *sql;
} fleet_migrations[] = {
    { 1, "the cores table, its indexes and row-level security",
      "CREATE SCHEMA gpucore_fleet;"
      "CREATE TABLE gpucore_fleet.migrations (version integer PRIMARY KEY,"
      " applied_at timestamptz NOT NULL DEFAULT now(), description text NOT NULL);"
      "CREATE TABLE gpucore_fleet.meta (database_id uuid NOT NULL);"
      "INSERT INTO gpucore_fleet.meta (database_id) VALUES (gen_random_uuid());"
      "CREATE TABLE gpucore_fleet.cores ("
      " id bigserial PRIMARY KEY,"
      " node text NOT NULL, store text NOT NULL, file text NOT NULL,"
      " writer name NOT NULL DEFAULT current_user,"
      " user_name text,"
      " time_ns bigint, host text, pid bigint, uid bigint, exe text, job text, rank bigint,"
      " targets text, trigger text, sig_text text, sig_hash text, waves bigint,"
      " faulting_waves bigint, size bigint NOT NULL, truncated boolean NOT NULL,"
      " state text NOT NULL, indexed_at bigint NOT NULL, error text,"
      " local_id bigint NOT NULL, synced_at timestamptz NOT NULL DEFAULT now(),"
      " UNIQUE (node, store, file));"
      "CREATE INDEX cores_time_ns ON gpucore_fleet.cores (time_ns);"
      "CREATE INDEX cores_sig_hash ON gpucore_fleet.cores (sig_hash);"
      "CREATE INDEX cores_job ON gpucore_fleet.cores (job);"
      "ALTER TABLE gpucore_fleet.cores ENABLE ROW LEVEL SECURITY;"
      "CREATE POLICY cores_select ON gpucore_fleet.cores FOR SELECT"
      " USING (writer = current_user OR user_name = current_user);"
      "CREATE POLICY cores_insert ON gpucore_fleet.cores FOR INSERT"
      " WITH CHECK (writer = current_user);"
      "CREATE POLICY cores_update ON gpucore_fleet.cores FOR UPDATE"
      " USING (writer = current_user) WITH CHECK (writer = current_user);"
      "CREATE POLICY cores_delete ON gpucore_fleet.cores FOR DELETE"
      " USING (writer = current_user);"
      "REVOKE ALL ON SCHEMA gpucore_fleet FROM PUBLIC;" },
};

/* The columns of gpucore_fleet.cores at GC_FLEET_SCHEMA_VERSION, in order, with their types as
   format_type() names them: a table that differs is not one gpucore made, and is not read. */
static const struct fleet_column {
    const char *name, *type;
} fleet_columns[] = {
    { "id", "bigint" },
    { "node", "text" },
    { "store", "text" },
    { "file", "text" },
    { "writer", "name" },
    { "user_name", "text" },
    { "time_ns", "bigint" },
    { "host", "text" },
    { "pid", "bigint" },
    { "uid", "bigint" },
    { "exe", "text" },
    { "job", "text" },
    { "rank", "bigint" },
    { "targets", "text" },
    { "trigger", "text" },
    { "sig_text", "text" },
    { "sig_hash", "text" },
    { "waves", "bigint" },
    { "faulting_waves", "bigint" },
    { "size", "bigint" },
    { "truncated", "boolean" },
    { "state", "text" },
    { "indexed_at", "bigint" },
    { "error", "text" },
    { "local_id", "bigint" },
    { "synced_at", "timestamp with time zone" },
};

/* The most columns read back when verifying (a table of thousands is refused unread). */
#define FLEET_COLUMNS_READ_MAX "64"

/* A decimal integer value of a result's cell: 0, or -1 when it is not one. */
static int fleet_cell_int(const PGresult *r, int row, int col, long long *ret)
{
    if (PQgetisnull(r, row, col))
        return -1;
    const char *v = PQgetvalue(r, row, col);
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end)
        return -1;
    *ret = x;
    return 0;
}

static gpucore_status_t fleet_no_usage(struct gc_fleet *f, gpucore_diag_t *d)
{
    return gc_diag_set(d, GPUCORE_E_PERM, GC_NO_OFFSET,
                       "%s: the role may not read the schema gpucore_fleet: GRANT USAGE ON SCHEMA"
                       " gpucore_fleet and SELECT ON gpucore_fleet.migrations, gpucore_fleet.meta"
                       " to it (docs/fleet.md, \"Rights\")",
                       f->where);
}

/* The schema's version: 0 when there is no gpucore_fleet.migrations. */
static gpucore_status_t fleet_version(struct gc_fleet *f, int *ret, gpucore_diag_t *d)
{
    PGresult *r;
    /* The catalog read by a query (its own snapshot), not through to_regclass(): after the
       migration lock was waited for, the session's catalog cache may predate the other
       writer's commit (an advisory lock processes no invalidation), and the schema would be
       created twice. */
    gpucore_status_t st = gc_fleet_exec(f, "reading the schema's version",
                                        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c"
                                        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                                        " WHERE n.nspname = 'gpucore_fleet'"
                                        " AND c.relname = 'migrations')",
                                        0, NULL, &r, d);
    if (st == GPUCORE_E_PERM)
        return fleet_no_usage(f, d);
    GC_TRY(st);
    int exists = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    *ret = 0;
    if (!exists)
        return GPUCORE_OK;
    st = gc_fleet_exec(f, "reading the schema's version",
                       "SELECT coalesce(max(version), 0) FROM gpucore_fleet.migrations", 0, NULL,
                       &r, d);
    if (st == GPUCORE_E_PERM)
        return fleet_no_usage(f, d);
    GC_TRY(st);
    long long v = 0;
    int bad = PQntuples(r) != 1 || fleet_cell_int(r, 0, 0, &v) != 0 || v < 0 || v > INT32_MAX;
    PQclear(r);
    if (bad)
        return gc_diag_set(d, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                           "%s: gpucore_fleet.migrations: the version is not a number", f->where);
    *ret = (int)v;
    return GPUCORE_OK;
}

static gpucore_status_t fleet_newer(struct gc_fleet *f, int version, gpucore_diag_t *d)
{
    return gc_diag_set(d, GPUCORE_E_VERSION, GC_NO_OFFSET,
                       "%s: the fleet index's schema is version %d; this gpucore knows up to %d"
                       " (a newer gpucore migrated it)",
                       f->where, version, GC_FLEET_SCHEMA_VERSION);
}

static gpucore_status_t fleet_apply(struct gc_fleet *f, const struct fleet_migration *m,
                                    gpucore_diag_t *d)
{
    char v[16];
    snprintf(v, sizeof(v), "%d", m->version);
    gpucore_status_t st = gc_fleet_exec(f, "migrating the schema", m->sql, 0, NULL, NULL, d);
    if (st == GPUCORE_E_PERM)
        return gc_diag_set(d, st, GC_NO_OFFSET,
                           "%s: the role may not create the schema gpucore_fleet: GRANT CREATE ON"
                           " DATABASE to it, or have the database's owner run `gpucore store"
                           " --fleet-sync` once (docs/fleet.md, \"Rights\")",
                           f->where);
    GC_TRY(st);
    const char *const params[] = { v, m->description };
    return gc_fleet_exec(f, "migrating the schema",
                         "INSERT INTO gpucore_fleet.migrations (version, description)"
                         " VALUES ($1::integer, $2)",
                         2, params, NULL, d);
}

/* Under the migration lock, in one transaction: the version read again (another writer may
   have migrated while this one waited), then the migrations it lacks. */
static gpucore_status_t fleet_migrate_locked(struct gc_fleet *f, gpucore_diag_t *d)
{
    int version;
    GC_TRY(gc_fleet_exec(f, "migrating the schema",
                         "SELECT pg_advisory_xact_lock(" FLEET_MIGRATION_LOCK_KEY ")", 0, NULL,
                         NULL, d));
    GC_TRY(fleet_version(f, &version, d));
    if (version > GC_FLEET_SCHEMA_VERSION)
        return fleet_newer(f, version, d);
    for (size_t i = 0; i < GC_ARRAY_SIZE(fleet_migrations); i++)
        if (fleet_migrations[i].version > version)
            GC_TRY(fleet_apply(f, &fleet_migrations[i], d));
    return GPUCORE_OK;
}

static gpucore_status_t fleet_migrate(struct gc_fleet *f, gpucore_diag_t *d)
{
    GC_TRY(gc_fleet_exec(f, "migrating the schema", "BEGIN", 0, NULL, NULL, d));
    gpucore_status_t st = fleet_migrate_locked(f, d);
    if (st == GPUCORE_OK)
        return gc_fleet_exec(f, "migrating the schema", "COMMIT", 0, NULL, NULL, d);
    if (f->conn) {
        gpucore_diag_t ignored = { 0 };
        (void)gc_fleet_exec(f, "rolling back", "ROLLBACK", 0, NULL, NULL, &ignored);
    }
    return st;
}

/* gpucore_fleet.cores has exactly the columns (names, types, order) gpucore's migrations
   made, and row-level security on. */
static gpucore_status_t fleet_verify_columns(struct gc_fleet *f, gpucore_diag_t *d)
{
    PGresult *r;
    GC_TRY(gc_fleet_exec(f, "verifying the schema",
                         "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod),"
                         " c.relrowsecurity, c.relkind::text"
                         " FROM pg_catalog.pg_class c"
                         " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                         " JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid"
                         " WHERE n.nspname = 'gpucore_fleet' AND c.relname = 'cores'"
                         " AND a.attnum > 0 AND NOT a.attisdropped"
                         " ORDER BY a.attnum LIMIT " FLEET_COLUMNS_READ_MAX,
                         0, NULL, &r, d));
    int n = PQntuples(r);
    const char *why = NULL;
    char detail[128] = "";
    if (n == 0)
        why = "there is no table gpucore_fleet.cores";
    else if (strcmp(PQgetvalue(r, 0, 3), "r") != 0)
        why = "gpucore_fleet.cores is not a plain table";
    else if (strcmp(PQgetvalue(r, 0, 2), "t") != 0)
        why = "gpucore_fleet.cores has no row-level security (every role would see every row)";
    else if ((size_t)n != GC_ARRAY_SIZE(fleet_columns))
        snprintf(detail, sizeof(detail), "gpucore_fleet.cores has %d columns, not %zu", n,
                 GC_ARRAY_SIZE(fleet_columns));
    for (int i = 0; !why && !detail[0] && i < n; i++)
        if (strcmp(PQgetvalue(r, i, 0), fleet_columns[i].name) != 0 ||
            strcmp(PQgetvalue(r, i, 1), fleet_columns[i].type) != 0)
            snprintf(detail, sizeof(detail), "gpucore_fleet.cores: column %d is not %s %s", i + 1,
                     fleet_columns[i].name, fleet_columns[i].type);
    PQclear(r);
    if (why || detail[0])
        return gc_diag_set(d, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                           "%s: %s: not a schema gpucore made; refused", f->where,
                           why ? why : detail);
    return GPUCORE_OK;
}

/* The database's id (gpucore_fleet.meta: one UUID). */
static gpucore_status_t fleet_read_id(struct gc_fleet *f, gpucore_diag_t *d)
{
    PGresult *r;
    GC_TRY(gc_fleet_exec(f, "reading the database's id",
                         "SELECT database_id::text FROM gpucore_fleet.meta LIMIT 2", 0, NULL, &r,
                         d));
    int ok = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0) &&
             strlen(PQgetvalue(r, 0, 0)) < sizeof(f->database_id);
    if (ok)
        snprintf(f->database_id, sizeof(f->database_id), "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (!ok)
        return gc_diag_set(d, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                           "%s: gpucore_fleet.meta does not hold one database id", f->where);
    return GPUCORE_OK;
}

static gpucore_status_t fleet_check_schema(struct gc_fleet *f, uint32_t flags, gpucore_diag_t *d)
{
    int version;
    GC_TRY(fleet_version(f, &version, d));
    if (version > GC_FLEET_SCHEMA_VERSION)
        return fleet_newer(f, version, d);
    if (version < GC_FLEET_SCHEMA_VERSION) {
        if (!(flags & GC_FLEET_WRITE))
            return gc_diag_set(d, GPUCORE_E_VERSION, GC_NO_OFFSET,
                               "%s: the fleet index's schema is version %d, not %d: no gpucore"
                               " has written to it yet",
                               f->where, version, GC_FLEET_SCHEMA_VERSION);
        GC_TRY(fleet_migrate(f, d));
    }
    GC_TRY(fleet_verify_columns(f, d));
    return fleet_read_id(f, d);
}

gpucore_status_t gc_fleet_open(const char *uri, uint32_t flags, int64_t time_max_ms,
                               struct gc_fleet **ret, gpucore_diag_t *reterr_diag)
{
    *ret = NULL;
    if (!gc_fleet_uri_ok(uri))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "the fleet index's URI must be 1 to %d bytes without control"
                           " characters",
                           GC_FLEET_URI_MAX);
    struct gc_fleet *f = calloc(1, sizeof(*f));
    if (!f)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "no memory");
    gc_fleet_uri_mask(uri, f->where, sizeof(f->where));
    gc_fleet_set_budget(f, time_max_ms);
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(uri, &perr);
    if (!opts) {
        char clean[FLEET_SERVER_MESSAGE_MAX];
        fleet_clean(perr ? perr : "out of memory", clean, sizeof(clean));
        PQfreemem(perr);
        /* libpq quotes the URI, password and all, after its reason: not repeated */
        char *quoted = strstr(clean, " in URI: ");
        if (quoted)
            *quoted = '\0';
        gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                    "%s: not a PostgreSQL connection URI: %s", f->where, clean);
        free(f);
        return GPUCORE_E_INVAL;
    }
    PQconninfoFree(opts);
    gpucore_status_t st = fleet_connect(f, uri, time_max_ms, reterr_diag);
    if (st == GPUCORE_OK)
        st = fleet_check_schema(f, flags, reterr_diag);
    if (st != GPUCORE_OK) {
        gc_fleet_close(f);
        return st;
    }
    *ret = f;
    return GPUCORE_OK;
}

void gc_fleet_close(struct gc_fleet *f)
{
    if (!f)
        return;
    fleet_drop(f);
    free(f);
}

/* ---------------------------------------------------------------------------------------- */
/* Sync                                                                                        */
/* ---------------------------------------------------------------------------------------- */

/* The values a row sends after node and store ($1, $2), in the order of the INSERT's columns,
   with their types in the database. */
static const struct fleet_param {
    const char *column, *cast;
} fleet_params[] = {
    { "file", "text" },         { "user_name", "text" },    { "time_ns", "bigint" },
    { "host", "text" },         { "pid", "bigint" },        { "uid", "bigint" },
    { "exe", "text" },          { "job", "text" },          { "rank", "bigint" },
    { "targets", "text" },      { "trigger", "text" },      { "sig_text", "text" },
    { "sig_hash", "text" },     { "waves", "bigint" },      { "faulting_waves", "bigint" },
    { "size", "bigint" },       { "truncated", "boolean" }, { "state", "text" },
    { "indexed_at", "bigint" }, { "error", "text" },        { "local_id", "bigint" },
};
#define FLEET_ROW_PARAMS ((int)GC_ARRAY_SIZE(fleet_params))
/* The local index's columns, in fleet_params' order (user_name is computed from uid), then the
   change number. */
#define FLEET_LOCAL_SELECT                                                                        \
    "SELECT file, NULL, time_ns, host, pid, uid, exe, job, rank, targets, trigger, sig_text,"     \
    " sig_hash, waves, faulting_waves, size, truncated, state, indexed_at, error, id, change_seq" \
    " FROM cores WHERE change_seq > ?1 AND change_seq <= ?2 ORDER BY change_seq LIMIT ?3"
#define FLEET_COL_UID        5
#define FLEET_COL_USER_NAME  1
#define FLEET_COL_CHANGE_SEQ 21

/* Users whose names one sync remembers. Each lookup that misses reads the passwd database
   (nss: open, stat, read, close /etc/passwd); root's store on a shared node holds the crashes
   of many users, and with 8 slots a store of 16 users' rows missed on every row: 55 % of a
   sync's time went to those system calls. 256 covers a large node's users in 4 KiB. */
#define FLEET_USER_CACHE 256
/* getpwuid_r()'s buffer: a passwd entry (a name, a home, a shell, a GECOS field). */
#define FLEET_PASSWD_BUF 4096

struct fleet_users {
    int64_t uid[FLEET_USER_CACHE];
    char *name[FLEET_USER_CACHE];
    size_t n;
};

/* The user name of @p uid on this host (borrowed from @p c), or NULL. */
static const char *fleet_user_name(struct fleet_users *c, const char *uid_text)
{
    char *end;
    if (!uid_text)
        return NULL;
    errno = 0;
    long long uid = strtoll(uid_text, &end, 10);
    if (errno || *end || uid < 0 || uid > UINT32_MAX)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->uid[i] == uid)
            return c->name[i];
    struct passwd pw, *res = NULL;
    char buf[FLEET_PASSWD_BUF];
    char *name = NULL;
    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name)
        name = strdup(res->pw_name);
    if (name)
        gc_utf8_scrub(name, strlen(name));
    size_t slot; /* a new one, or when all are taken one chosen by the uid */
    if (c->n < FLEET_USER_CACHE) {
        slot = c->n++;
    } else {
        slot = (size_t)uid % FLEET_USER_CACHE;
        free(c->name[slot]);
    }
    c->uid[slot] = uid;
    c->name[slot] = name;
    return name;
}

static void fleet_users_done(struct fleet_users *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->name[i]);
    c->n = 0;
}

/* One sync's state. */
struct fleet_sync {
    struct gc_store *s;
    struct gc_fleet *f;
    const char *target; /* the masked URI: fleet_state's key */
    char node[256];     /* gethostname() */
    char store[PATH_MAX];
    int64_t acked, last; /* acknowledged; the last change number when the sync began */
    struct fleet_users users;
    struct gc_fleet_sync_stats stats;
};

/* A growable text (the batch's statement). */
struct fleet_text {
    char *p;
    size_t len, cap;
    int failed;
};

static void fleet_text_add(struct fleet_text *t, const char *fmt, ...) GC_PRINTF(2, 3);
static void fleet_text_add(struct fleet_text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        if (t->failed)
            return;
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        int n = t->p ? vsnprintf(t->p + t->len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 16384;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
}

/* The batch's statement: one INSERT of @p rows rows, upserted by (node, store, file). */
static char *fleet_upsert_sql(int rows)
{
    struct fleet_text t = { 0 };
    int k = 3;
    fleet_text_add(&t, "INSERT INTO gpucore_fleet.cores (node, store");
    for (int c = 0; c < FLEET_ROW_PARAMS; c++)
        fleet_text_add(&t, ", %s", fleet_params[c].column);
    fleet_text_add(&t, ") VALUES ");
    for (int r = 0; r < rows; r++) {
        fleet_text_add(&t, "%s($1, $2", r ? ", " : "");
        for (int c = 0; c < FLEET_ROW_PARAMS; c++)
            fleet_text_add(&t, ", $%d::%s", k++, fleet_params[c].cast);
        fleet_text_add(&t, ")");
    }
    fleet_text_add(&t, " ON CONFLICT (node, store, file) DO UPDATE SET synced_at = now()");
    for (int c = 1; c < FLEET_ROW_PARAMS; c++)
        fleet_text_add(&t, ", %s = excluded.%s", fleet_params[c].column, fleet_params[c].column);
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

/* Record in the local index what the database acknowledged (its id, the last change number
   it has), or a failure (its time and message). */
static gpucore_status_t fleet_record(struct fleet_sync *y, const char *error, gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    GC_TRY(gc_store_prepare(
            y->s,
            error ? "INSERT INTO fleet_state(target, failed_at_ns, error) VALUES (?1, ?2, ?3) "
                    "ON CONFLICT(target) DO UPDATE SET failed_at_ns = excluded.failed_at_ns, "
                    "  error = excluded.error"
                  : "INSERT INTO fleet_state(target, database_id, acked_seq) VALUES (?1, ?4, ?5) "
                    "ON CONFLICT(target) DO UPDATE SET database_id = excluded.database_id, "
                    "  acked_seq = max(acked_seq, excluded.acked_seq), failed_at_ns = NULL, "
                    "  error = NULL",
            &q, d));
    sqlite3_bind_text(q, 1, y->target, -1, SQLITE_STATIC);
    if (error) {
        sqlite3_bind_int64(q, 2, gc_store_now_ns());
        sqlite3_bind_text(q, 3, error, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_text(q, 4, y->f->database_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 5, y->acked);
    }
    return gc_store_step_done(y->s, q, "cannot record the fleet index's state", d);
}

/* fleet_state's row of this target: the database it last acknowledged, how far, and when the
   last failure was (0 none). */
static gpucore_status_t fleet_read_state(struct fleet_sync *y, char *db_id, size_t db_id_size,
                                         int64_t *ret_failed_ns, gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    db_id[0] = '\0';
    *ret_failed_ns = 0;
    y->acked = 0;
    GC_TRY(gc_store_prepare(y->s,
                            "SELECT database_id, acked_seq, failed_at_ns FROM fleet_state "
                            "WHERE target = ?1",
                            &q, d));
    sqlite3_bind_text(q, 1, y->target, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        const unsigned char *id = sqlite3_column_text(q, 0);
        snprintf(db_id, db_id_size, "%s", id ? (const char *)id : "");
        y->acked = sqlite3_column_int64(q, 1);
        *ret_failed_ns = sqlite3_column_int64(q, 2);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gc_store_fail(y->s, d, "cannot read the fleet index's state");
    sqlite3_stmt *l;
    GC_TRY(gc_store_prepare(y->s, "SELECT last FROM changes WHERE id = 1", &l, d));
    rc = sqlite3_step(l);
    y->last = rc == SQLITE_ROW ? sqlite3_column_int64(l, 0) : 0;
    sqlite3_finalize(l);
    if (rc != SQLITE_ROW)
        return gc_store_fail(y->s, d, "cannot read the store's change number");
    return GPUCORE_OK;
}

/* Rows and forgotten rows still to send (changed after the acknowledged number). */
static size_t fleet_pending(struct fleet_sync *y)
{
    sqlite3_stmt *q;
    gpucore_diag_t ignored = { 0 };
    size_t n = 0;
    if (gc_store_prepare(y->s,
                         "SELECT (SELECT count(*) FROM cores WHERE change_seq > ?1) + "
                         "(SELECT count(*) FROM fleet_forgotten WHERE seq > ?1)",
                         &q, &ignored) != GPUCORE_OK)
        return 0;
    sqlite3_bind_int64(q, 1, y->acked);
    if (sqlite3_step(q) == SQLITE_ROW)
        n = (size_t)sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return n;
}

/* The rows forgotten since the acknowledged number, whose file has no row again, removed from
   the database: first, so that acknowledging a later number never skips one. */
static gpucore_status_t fleet_send_forgotten(struct fleet_sync *y, gpucore_diag_t *d)
{
    int64_t after = y->acked;
    for (;;) {
        sqlite3_stmt *q;
        char *file = NULL;
        GC_TRY(gc_store_prepare(y->s,
                                "SELECT f.seq, f.file FROM fleet_forgotten f WHERE f.seq > ?1 "
                                "AND f.seq <= ?2 AND NOT EXISTS (SELECT 1 FROM cores c "
                                "WHERE c.file = f.file) ORDER BY f.seq LIMIT 1",
                                &q, d));
        sqlite3_bind_int64(q, 1, after);
        sqlite3_bind_int64(q, 2, y->last);
        int rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            after = sqlite3_column_int64(q, 0);
            const unsigned char *t = sqlite3_column_text(q, 1);
            file = t ? strdup((const char *)t) : NULL;
        }
        sqlite3_finalize(q);
        if (rc == SQLITE_DONE)
            return GPUCORE_OK;
        if (rc != SQLITE_ROW)
            return gc_store_fail(y->s, d, "cannot read the forgotten rows");
        if (!file)
            return gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        gc_utf8_scrub(file, strlen(file));
        const char *const params[] = { y->node, y->store, file };
        gpucore_status_t st = gc_fleet_exec(y->f, "removing a forgotten row",
                                            "DELETE FROM gpucore_fleet.cores WHERE node = $1 AND"
                                            " store = $2 AND file = $3",
                                            3, params, NULL, d);
        free(file);
        GC_TRY(st);
        y->stats.forgotten++;
    }
}

/* One batch's values. */
struct fleet_batch {
    char **values; /* 2 + rows * FLEET_ROW_PARAMS; [0], [1] borrowed, the rest owned */
    int rows;
    int64_t last_seq;
};

static void fleet_batch_clear(struct fleet_batch *b)
{
    for (int i = 2; i < 2 + b->rows * FLEET_ROW_PARAMS; i++) {
        free(b->values[i]);
        b->values[i] = NULL;
    }
    b->rows = 0;
}

/* Read the next batch of changed rows (after y->acked) from the local index. */
static gpucore_status_t fleet_read_batch(struct fleet_sync *y, struct fleet_batch *b,
                                         gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    int rc;
    GC_TRY(gc_store_prepare(y->s, FLEET_LOCAL_SELECT, &q, d));
    sqlite3_bind_int64(q, 1, y->acked);
    sqlite3_bind_int64(q, 2, y->last);
    sqlite3_bind_int(q, 3, GC_FLEET_BATCH_ROWS);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *file = (const char *)sqlite3_column_text(q, 0);
        const char *state = (const char *)sqlite3_column_text(q, 17);
        b->last_seq = sqlite3_column_int64(q, FLEET_COL_CHANGE_SEQ);
        /* a row no query shows (gc_store_rows_ignored()) is not sent either */
        if (!gc_store_file_name_ok(file) || gc_store_state_parse(state) < 0)
            continue;
        char **v = b->values + 2 + b->rows * FLEET_ROW_PARAMS;
        for (int c = 0; c < FLEET_ROW_PARAMS; c++) {
            const char *t =
                    c == FLEET_COL_USER_NAME
                            ? fleet_user_name(&y->users,
                                              (const char *)sqlite3_column_text(q, FLEET_COL_UID))
                            : (const char *)sqlite3_column_text(q, c);
            if (!t)
                continue;
            if (!(v[c] = strdup(t))) {
                sqlite3_finalize(q);
                return gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            }
            /* the database takes UTF-8 only; a core's bytes may be anything */
            gc_utf8_scrub(v[c], strlen(v[c]));
        }
        b->rows++;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return gc_store_fail(y->s, d, "cannot read the rows to send");
    return GPUCORE_OK;
}

/* The changed rows, a batch at a time, each batch acknowledged in the local index. */
static gpucore_status_t fleet_send_rows(struct fleet_sync *y, gpucore_diag_t *d)
{
    struct fleet_batch b = { 0 };
    gpucore_status_t st = GPUCORE_OK;
    b.values = calloc(2 + (size_t)GC_FLEET_BATCH_ROWS * FLEET_ROW_PARAMS, sizeof(char *));
    if (!b.values)
        return gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    b.values[0] = y->node;
    b.values[1] = y->store;
    while (st == GPUCORE_OK && y->acked < y->last) {
        b.last_seq = y->last;
        st = fleet_read_batch(y, &b, d);
        if (st == GPUCORE_OK && b.rows > 0) {
            char *sql = fleet_upsert_sql(b.rows);
            st = sql ? gc_fleet_exec(y->f, "sending rows", sql, 2 + b.rows * FLEET_ROW_PARAMS,
                                     (const char *const *)b.values, NULL, d)
                     : gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            free(sql);
        }
        if (st == GPUCORE_OK) {
            y->stats.sent += (size_t)b.rows;
            y->acked = b.last_seq;
            st = fleet_record(y, NULL, d);
        }
        fleet_batch_clear(&b);
    }
    free(b.values);
    return st;
}

/* Forgotten rows every database acknowledged are of no more use. */
static void fleet_prune_forgotten(struct fleet_sync *y)
{
    gpucore_diag_t ignored = { 0 };
    (void)gc_store_exec(y->s,
                        "DELETE FROM fleet_forgotten WHERE seq <= "
                        "(SELECT min(acked_seq) FROM fleet_state)",
                        "", &ignored);
}

static void fleet_where(struct fleet_sync *y)
{
    if (gethostname(y->node, sizeof(y->node)) != 0)
        snprintf(y->node, sizeof(y->node), "localhost");
    y->node[sizeof(y->node) - 1] = '\0';
    gc_utf8_scrub(y->node, strlen(y->node));
    char *abs = realpath(gc_store_path(y->s), NULL);
    snprintf(y->store, sizeof(y->store), "%s", abs ? abs : gc_store_path(y->s));
    free(abs);
    gc_utf8_scrub(y->store, strlen(y->store));
}

static gpucore_status_t fleet_sync_open(struct fleet_sync *y, const char *uri, uint32_t flags,
                                        int64_t time_max_ms, gpucore_diag_t *d)
{
    char recorded[GC_FLEET_DATABASE_ID_MAX];
    int64_t failed_ns;
    GC_TRY(fleet_read_state(y, recorded, sizeof(recorded), &failed_ns, d));
    if (!(flags & GC_FLEET_SYNC_FORCE) && failed_ns > 0 &&
        gc_store_now_ns() - failed_ns < (int64_t)GC_FLEET_RETRY_AFTER_MS * 1000000) {
        y->stats.skipped = 1;
        return GPUCORE_OK;
    }
    GC_TRY(gc_fleet_open(uri, GC_FLEET_WRITE, time_max_ms, &y->f, d));
    /* another database behind the same URI (restored, rebuilt): it has none of the rows */
    if (strcmp(recorded, y->f->database_id) != 0)
        y->acked = 0;
    return GPUCORE_OK;
}

gpucore_status_t gc_fleet_sync(struct gc_store *s, const char *uri, uint32_t flags,
                               int64_t time_max_ms, struct gc_fleet_sync_stats *ret,
                               gpucore_diag_t *reterr_diag)
{
    struct fleet_sync y = { .s = s };
    char target[GC_FLEET_URI_MAX + 1];

    memset(ret, 0, sizeof(*ret));
    GC_TRY(gc_store_refuse_view(s, reterr_diag));
    if (!gc_fleet_uri_ok(uri))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "the fleet index's URI must be 1 to %d bytes without control"
                           " characters",
                           GC_FLEET_URI_MAX);
    y.target = gc_fleet_uri_mask(uri, target, sizeof(target));
    fleet_where(&y);
    gpucore_status_t st = fleet_sync_open(&y, uri, flags, time_max_ms, reterr_diag);
    if (st == GPUCORE_OK && !y.stats.skipped) {
        st = fleet_send_forgotten(&y, reterr_diag);
        if (st == GPUCORE_OK)
            st = fleet_send_rows(&y, reterr_diag);
        if (st == GPUCORE_OK)
            st = fleet_record(&y, NULL, reterr_diag);
        if (st == GPUCORE_OK)
            fleet_prune_forgotten(&y);
    }
    if (st != GPUCORE_OK && y.target) {
        gpucore_diag_t ignored = { 0 };
        (void)fleet_record(&y, reterr_diag ? reterr_diag->message : "failed", &ignored);
    }
    gc_fleet_close(y.f);
    fleet_users_done(&y.users);
    y.stats.pending = fleet_pending(&y);
    *ret = y.stats;
    return st;
}
