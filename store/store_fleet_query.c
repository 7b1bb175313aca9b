/* SPDX-License-Identifier: MIT */
/*
 * The fleet index's reading side (fleet.h): gc_fleet_query() for `gpucore list|show|job
 * --fleet`, gc_fleet_summary() for `list --fleet --dedupe`.
 *
 * The database is hostile input, as a core is: whoever can write a row (a node's gpucore, or
 * anyone the administrator let in) chooses every value. So every statement has bound
 * parameters only; long texts are cut by the server to one byte past their bound (so a 10 MB
 * value costs the reader a few KiB and is refused); rows come one at a time (libpq's single-row
 * mode), so memory is bounded by GC_FLEET_ROWS_MAX rows; the statement has a deadline
 * (GC_FLEET_READ_TIME_MAX_MS), after which the connection is dropped; and every value is checked before
 * it is used: a value the schema does not allow fails the query (GPUCORE_E_CORRUPT) naming the
 * row's id and the column. Nothing read is ever opened.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "fleet.h"
#include "gc_util.h"
#include "fleet_internal.h"

/* The longest text value of a row read (executable, signature text, job, host, targets,
   trigger, error): a core's values are a path or a few hundred bytes; the bound is what one
   hostile row may cost. Longer: the row is refused. */
#define FLEET_TEXT_MAX 4096
/* The longest node name (a host name: HOST_NAME_MAX is 64; an FQDN up to 253). */
#define FLEET_NODE_MAX 255
/* The longest signature hash: triage's are 16 hex digits; room for a longer one later. */
#define FLEET_SIG_HASH_MAX 64

/* ---------------------------------------------------------------------------------------- */
/* Running a statement within the time bound, a row at a time                                */
/* ---------------------------------------------------------------------------------------- */

/* The server's message, one line, for a diag. */
static const char *pg_message(PGconn *c, const PGresult *r)
{
    const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;

    if (!m || !*m)
        m = PQerrorMessage(c);
    return m && *m ? m : "the database gave no reason";
}

/* One statement being read, a row at a time, until the connection's deadline. */
struct fleet_stmt {
    struct gc_fleet *f;
    int done;
};

/* Wait until a result can be had without blocking, or the deadline: 0, or -1 (timed out or
   the connection failed: *why says which). */
static int wait_result(PGconn *conn, int64_t deadline_ns, const char **why)
{
    while (PQisBusy(conn)) {
        int64_t left_ms = (deadline_ns - gc_fleet_mono_ns()) / 1000000;
        struct pollfd p = { .fd = PQsocket(conn), .events = POLLIN };
        int rc;

        if (left_ms <= 0) {
            *why = "the query ran out of time";
            return -1;
        }
        rc = poll(&p, 1, left_ms > INT_MAX ? INT_MAX : (int)left_ms);
        if (rc < 0 && errno != EINTR) {
            *why = strerror(errno);
            return -1;
        }
        if (rc > 0 && !PQconsumeInput(conn)) {
            *why = PQerrorMessage(conn);
            return -1;
        }
    }
    return 0;
}

/* Give up the statement: drop the connection, as gc_fleet_exec() does on its deadline (never
   PQcancel(), which opens a connection of its own and may block; the server ends the
   statement at its statement_timeout, which gc_fleet_open() set to the same budget). */
static void stmt_abandon(struct fleet_stmt *q)
{
    PQfinish(q->f->conn);
    q->f->conn = NULL;
    q->done = 1;
}

static gpucore_status_t stmt_start(struct fleet_stmt *q, struct gc_fleet *f, const char *sql,
                                   int nparams, const char *const *values,
                                   gpucore_diag_t *reterr_diag)
{
    q->f = f;
    q->done = 1;
    if (!f->conn)
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "%s: the connection was dropped", f->where);
    gc_fleet_set_budget(f, GC_FLEET_READ_TIME_MAX_MS);
    if (!PQsendQueryParams(f->conn, sql, nparams, NULL, values, NULL, NULL, 0) ||
        !PQsetSingleRowMode(f->conn))
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "%s: cannot send the query: %s", f->where, PQerrorMessage(f->conn));
    q->done = 0;
    return GPUCORE_OK;
}

/*
 * The next row: *ret a PGRES_SINGLE_TUPLE result (PQclear() it), or NULL at the end.
 * GPUCORE_OK, or GPUCORE_E_IO (the statement failed, or the deadline passed: the connection
 * is dropped).
 */
static gpucore_status_t stmt_next(struct fleet_stmt *q, PGresult **ret,
                                  gpucore_diag_t *reterr_diag)
{
    struct gc_fleet *f = q->f;
    const char *why = NULL;
    gpucore_status_t st;
    PGresult *r;

    *ret = NULL;
    if (q->done)
        return GPUCORE_OK;
    if (wait_result(f->conn, f->deadline_ns, &why) != 0) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s", f->where, why);
        stmt_abandon(q);
        return st;
    }
    r = PQgetResult(f->conn);
    if (!r) {
        q->done = 1;
        return GPUCORE_OK;
    }
    switch (PQresultStatus(r)) {
    case PGRES_SINGLE_TUPLE:
        *ret = r;
        return GPUCORE_OK;
    case PGRES_TUPLES_OK: /* the end; the NULL result after it is read at once */
        PQclear(r);
        if (wait_result(f->conn, f->deadline_ns, &why) != 0) {
            stmt_abandon(q);
            return GPUCORE_OK;
        }
        while ((r = PQgetResult(f->conn)))
            PQclear(r);
        q->done = 1;
        return GPUCORE_OK;
    default:
        st = gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "%s: the query failed: %s",
                         f->where, pg_message(f->conn, r));
        PQclear(r);
        stmt_abandon(q);
        return st;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Values read, checked                                                                        */
/* ---------------------------------------------------------------------------------------- */

/* One row being read: for the messages. */
struct cell_ctx {
    const PGresult *r;
    const char *what; /* "row" (then its id), or "summary line" (its place) */
    int64_t id;
    gpucore_diag_t *diag;
};

static gpucore_status_t bad(const struct cell_ctx *x, const char *column, const char *what)
{
    return gc_diag_set(x->diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                       "the fleet index: %s %" PRId64 ", column %s: %s", x->what, x->id, column,
                       what);
}

/* An integer column: -1 when NULL and @p nullable; else within [min, max]. */
static gpucore_status_t cell_i64(const struct cell_ctx *x, int col, const char *column,
                                 int nullable, int64_t min, int64_t max, int64_t *ret)
{
    const char *v;
    char *end;
    long long n;

    if (PQgetisnull(x->r, 0, col)) {
        if (!nullable)
            return bad(x, column, "NULL, where a number is expected");
        *ret = -1;
        return GPUCORE_OK;
    }
    v = PQgetvalue(x->r, 0, col);
    errno = 0;
    n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < min || n > max)
        return bad(x, column, "a number out of range");
    *ret = n;
    return GPUCORE_OK;
}

/* A text column: NULL when NULL (and @p nullable), else a copy of at most @p max bytes. */
static gpucore_status_t cell_text(const struct cell_ctx *x, int col, const char *column,
                                  int nullable, size_t max, char **ret)
{
    *ret = NULL;
    if (PQgetisnull(x->r, 0, col))
        return nullable ? GPUCORE_OK : bad(x, column, "NULL, where a text is expected");
    if ((size_t)PQgetlength(x->r, 0, col) > max)
        return bad(x, column, "longer than gpucore writes");
    *ret = strdup(PQgetvalue(x->r, 0, col));
    return *ret ? GPUCORE_OK
                : gc_diag_set(x->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
}

/* A boolean column, not NULL: PostgreSQL's text form is "t" or "f". */
static gpucore_status_t cell_bool(const struct cell_ctx *x, int col, const char *column, int *ret)
{
    const char *v = PQgetisnull(x->r, 0, col) ? NULL : PQgetvalue(x->r, 0, col);

    if (!v || (strcmp(v, "t") != 0 && strcmp(v, "f") != 0))
        return bad(x, column, "not a boolean");
    *ret = v[0] == 't';
    return GPUCORE_OK;
}

static int is_hex(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("0123456789abcdef", *s))
            return 0;
    return 1;
}

/* ---------------------------------------------------------------------------------------- */
/* The rows                                                                                    */
/* ---------------------------------------------------------------------------------------- */

static void fleet_row_done(struct gc_fleet_row *fr)
{
    gc_store_row_done(&fr->row);
    free(fr->node);
    free(fr->store);
    free(fr->path);
    memset(fr, 0, sizeof(*fr));
}

static void signature_done(struct gc_fleet_signature *g)
{
    free(g->sig_hash);
    free(g->sig_text);
    free(g->exe);
    memset(g, 0, sizeof(*g));
}

/* A text column cut by the server one character past FLEET_TEXT_MAX: longer is refused. */
#define CUT(c) "left(" c ", 4097)"

/* The columns read_fleet_row() reads, in order. */
static const char ROW_COLUMNS[] =
        "c.id, " CUT("c.node") ", " CUT("c.store") ", " CUT("c.file") ", c.time_ns, "
        CUT("c.host") ", c.pid, c.uid, " CUT("c.exe") ", " CUT("c.job") ", c.rank, "
        CUT("c.targets") ", " CUT("c.trigger") ", " CUT("c.sig_text") ", " CUT("c.sig_hash")
        ", c.waves, c.faulting_waves, c.size, c.truncated, " CUT("c.state") ", c.indexed_at, "
        CUT("c.error") ", (extract(epoch FROM c.synced_at) * 1000000000)::bigint, g.seen, "
        "g.first_seen";

/*
 * The filters: one statement for all, an unset one's parameter is NULL and passes ($1 id,
 * $2 since, $3 until, $4 signature, $5 exe, $6 job, $7 node). The same meanings as the local
 * index's (store.c): a signature is the hash, its text, or a hash prefix of 4+ digits; an exe
 * is the path or its base name.
 */
#define FILTERS                                                                                \
    "($1::bigint IS NULL OR c.id = $1) AND "                                                   \
    "($2::bigint IS NULL OR c.time_ns IS NULL OR c.time_ns >= $2) AND "                        \
    "($3::bigint IS NULL OR c.time_ns IS NULL OR c.time_ns < $3) AND "                         \
    "($4::text IS NULL OR c.sig_hash = $4 OR c.sig_text = $4 OR "                              \
    "  (length($4) >= 4 AND left(c.sig_hash, length($4)) = $4)) AND "                          \
    "($5::text IS NULL OR c.exe = $5 OR right(c.exe, length($5) + 1) = '/' || $5) AND "        \
    "($6::text IS NULL OR c.job = $6) AND "                                                    \
    "($7::text IS NULL OR c.node = $7)"

/* A number printed for a parameter: NULL when @p set is 0. */
static const char *param_i64(int set, int64_t v, char *buf, size_t size)
{
    if (!set)
        return NULL;
    snprintf(buf, size, "%" PRId64, v);
    return buf;
}

#define LIMIT_MORE "1000001" /* GC_FLEET_ROWS_MAX + 1: one more tells the answer was cut */
_Static_assert(GC_FLEET_ROWS_MAX == 1000000, "LIMIT_MORE is GC_FLEET_ROWS_MAX + 1");

/* The rows' statement: each row with the count and first time of its signature among the
   rows the role may see (row-level security applies to the join's rows too). */
static const char QUERY_SQL_HEAD[] = "SELECT ";
static const char QUERY_SQL_TAIL[] =
        " FROM " GC_FLEET_PG_SCHEMA ".cores c LEFT JOIN (SELECT sig_hash, count(*) AS seen, "
        "min(time_ns) AS first_seen FROM " GC_FLEET_PG_SCHEMA ".cores WHERE sig_hash IS NOT "
        "NULL GROUP BY sig_hash) g ON g.sig_hash = c.sig_hash WHERE " FILTERS
        " ORDER BY c.time_ns NULLS FIRST, c.id LIMIT " LIMIT_MORE;

struct filter_params {
    char id[24], since[24], until[24];
    const char *values[7];
};

static void filter_params(const struct gc_fleet_filter *flt, struct filter_params *p)
{
    p->values[0] = param_i64(flt->id > 0, flt->id, p->id, sizeof(p->id));
    p->values[1] = param_i64(flt->since_ns > 0, flt->since_ns, p->since, sizeof(p->since));
    p->values[2] = param_i64(flt->until_ns > 0, flt->until_ns, p->until, sizeof(p->until));
    p->values[3] = flt->signature;
    p->values[4] = flt->exe;
    p->values[5] = flt->job;
    p->values[6] = flt->node;
}

/* The fleet row's where: store + "/" + file, the store an absolute path. */
static gpucore_status_t row_where(const struct cell_ctx *x, struct gc_fleet_row *fr)
{
    size_t len;

    if (fr->store[0] != '/')
        return bad(x, "store", "not an absolute path");
    if (!gc_store_file_name_ok(fr->row.file))
        return bad(x, "file", "not a plain file name of a store");
    len = strlen(fr->store) + 1 + strlen(fr->row.file) + 1;
    if (len > PATH_MAX)
        return bad(x, "store", "a path longer than PATH_MAX");
    fr->path = malloc(len);
    if (!fr->path)
        return gc_diag_set(x->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    snprintf(fr->path, len, "%s/%s", fr->store, fr->row.file);
    return GPUCORE_OK;
}

static gpucore_status_t row_state(const struct cell_ctx *x, int col, struct gc_store_row *r)
{
    const char *v = PQgetisnull(x->r, 0, col) ? NULL : PQgetvalue(x->r, 0, col);

    r->state = v ? gc_store_state_parse(v) : -1;
    return r->state < 0 ? bad(x, "state", "not one of present, missing, deleted, unreadable")
                        : GPUCORE_OK;
}

static gpucore_status_t row_signature(const struct cell_ctx *x, struct gc_store_row *r)
{
    if (r->sig_hash && (strlen(r->sig_hash) > FLEET_SIG_HASH_MAX || !is_hex(r->sig_hash)))
        return bad(x, "sig_hash", "not a signature hash (lower-case hex digits)");
    if (r->faulting_waves > r->waves && r->waves >= 0)
        return bad(x, "faulting_waves", "more than the waves");
    return GPUCORE_OK;
}

/* Read the row of @p r into @p fr (zeroed first; on failure what was read is freed). */
static gpucore_status_t read_fleet_row(const PGresult *r, struct gc_fleet_row *fr,
                                       gpucore_diag_t *reterr_diag)
{
    struct cell_ctx x = { .r = r, .what = "row", .id = -1, .diag = reterr_diag };
    struct gc_store_row *w = &fr->row;
    gpucore_status_t st;
    int64_t seen = -1, first_seen = -1;

    memset(fr, 0, sizeof(*fr));
    if ((st = cell_i64(&x, 0, "id", 0, 1, INT64_MAX, &w->id)) != GPUCORE_OK) {
        memset(fr, 0, sizeof(*fr));
        return st;
    }
    x.id = w->id;
    st = cell_bool(&x, 18, "truncated", &w->truncated);
    if (st == GPUCORE_OK &&
        ((st = cell_text(&x, 1, "node", 0, FLEET_NODE_MAX, &fr->node)) != GPUCORE_OK ||
         (st = cell_text(&x, 2, "store", 0, FLEET_TEXT_MAX, &fr->store)) != GPUCORE_OK ||
         (st = cell_text(&x, 3, "file", 0, GC_STORE_FILE_NAME_MAX, &w->file)) != GPUCORE_OK ||
         (st = cell_i64(&x, 4, "time_ns", 1, 0, INT64_MAX, &w->time_ns)) != GPUCORE_OK ||
         (st = cell_text(&x, 5, "host", 1, FLEET_TEXT_MAX, &w->host)) != GPUCORE_OK ||
         (st = cell_i64(&x, 6, "pid", 1, 0, INT32_MAX, &w->pid)) != GPUCORE_OK ||
         (st = cell_i64(&x, 7, "uid", 1, 0, UINT32_MAX, &w->uid)) != GPUCORE_OK ||
         (st = cell_text(&x, 8, "exe", 1, FLEET_TEXT_MAX, &w->exe)) != GPUCORE_OK ||
         (st = cell_text(&x, 9, "job", 1, FLEET_TEXT_MAX, &w->job)) != GPUCORE_OK ||
         (st = cell_i64(&x, 10, "rank", 1, 0, INT64_MAX, &w->rank)) != GPUCORE_OK ||
         (st = cell_text(&x, 11, "targets", 1, FLEET_TEXT_MAX, &w->targets)) != GPUCORE_OK ||
         (st = cell_text(&x, 12, "trigger", 1, FLEET_TEXT_MAX, &w->trigger)) != GPUCORE_OK ||
         (st = cell_text(&x, 13, "sig_text", 1, FLEET_TEXT_MAX, &w->sig_text)) != GPUCORE_OK ||
         (st = cell_text(&x, 14, "sig_hash", 1, FLEET_TEXT_MAX, &w->sig_hash)) != GPUCORE_OK ||
         (st = cell_i64(&x, 15, "waves", 1, 0, INT64_MAX, &w->waves)) != GPUCORE_OK ||
         (st = cell_i64(&x, 16, "faulting_waves", 1, 0, INT64_MAX, &w->faulting_waves)) !=
                 GPUCORE_OK ||
         (st = cell_i64(&x, 17, "size", 0, 0, INT64_MAX, &w->size)) != GPUCORE_OK ||
         (st = row_state(&x, 19, w)) != GPUCORE_OK ||
         (st = cell_i64(&x, 20, "indexed_at", 0, 0, INT64_MAX, &w->indexed_at)) != GPUCORE_OK ||
         (st = cell_text(&x, 21, "error", 1, FLEET_TEXT_MAX, &w->error)) != GPUCORE_OK ||
         (st = cell_i64(&x, 22, "synced_at", 0, 0, INT64_MAX, &fr->synced_ns)) != GPUCORE_OK ||
         (st = cell_i64(&x, 23, "seen", 1, 0, INT64_MAX, &seen)) != GPUCORE_OK ||
         (st = cell_i64(&x, 24, "first_seen", 1, 0, INT64_MAX, &first_seen)) != GPUCORE_OK ||
         (st = row_signature(&x, w)) != GPUCORE_OK || (st = row_where(&x, fr)) != GPUCORE_OK)) {
        /* falls through to the cleanup below */
    }
    if (st != GPUCORE_OK) {
        fleet_row_done(fr);
        return st;
    }
    w->file_mtime_ns = -1;
    w->file_bytes = -1;
    /* as the local index counts (store.c read_row()): a core without a signature is a crash of
       its own, seen once; a file that is no core is no crash */
    w->seen = w->sig_hash ? seen : w->state == GC_STORE_UNREADABLE ? 0 : 1;
    w->first_seen_ns = w->sig_hash ? first_seen : w->seen ? w->time_ns : -1;
    return GPUCORE_OK;
}

void gc_fleet_rows_free(struct gc_fleet_row *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++)
        fleet_row_done(&rows[i]);
    free(rows);
}

static gpucore_status_t grow(void **arr, size_t *cap, size_t n, size_t elem,
                             gpucore_diag_t *reterr_diag)
{
    void *grown;

    if (n < *cap)
        return GPUCORE_OK;
    *cap = *cap ? *cap * 2 : 64;
    grown = realloc(*arr, *cap * elem);
    if (!grown)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    *arr = grown;
    return GPUCORE_OK;
}

gpucore_status_t gc_fleet_query(struct gc_fleet *f, const struct gc_fleet_filter *flt,
                                struct gc_fleet_row **ret_rows, size_t *ret_n, int *ret_cut,
                                gpucore_diag_t *reterr_diag)
{
    static const struct gc_fleet_filter none = { 0 };
    char sql[sizeof(QUERY_SQL_HEAD) + sizeof(ROW_COLUMNS) + sizeof(QUERY_SQL_TAIL)];
    struct gc_fleet_row *rows = NULL;
    struct filter_params p;
    struct fleet_stmt q;
    size_t n = 0, cap = 0;
    gpucore_status_t st;
    PGresult *r;
    int cut = 0;

    *ret_rows = NULL;
    *ret_n = 0;
    *ret_cut = 0;
    filter_params(flt ? flt : &none, &p);
    snprintf(sql, sizeof(sql), "%s%s%s", QUERY_SQL_HEAD, ROW_COLUMNS, QUERY_SQL_TAIL);
    st = stmt_start(&q, f, sql, 7, p.values, reterr_diag);
    while (st == GPUCORE_OK && (st = stmt_next(&q, &r, reterr_diag)) == GPUCORE_OK && r) {
        if (n == GC_FLEET_ROWS_MAX) {
            cut = 1;
            PQclear(r);
            continue;
        }
        st = grow((void **)&rows, &cap, n, sizeof(*rows), reterr_diag);
        if (st == GPUCORE_OK && (st = read_fleet_row(r, &rows[n], reterr_diag)) == GPUCORE_OK)
            n++;
        PQclear(r);
    }
    if (st != GPUCORE_OK) {
        if (!q.done)
            stmt_abandon(&q);
        gc_fleet_rows_free(rows, n);
        return st;
    }
    *ret_rows = rows;
    *ret_n = n;
    *ret_cut = cut;
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* The summary                                                                                 */
/* ---------------------------------------------------------------------------------------- */

/* One line per signature among the rows that pass, most cores first; the text and the
   executable of the newest core. */
static const char SUMMARY_SQL[] =
        "SELECT " CUT("c.sig_hash") ", count(*), count(DISTINCT c.node), count(DISTINCT c.job), "
        "min(c.time_ns), max(c.time_ns), "
        "left((array_agg(c.sig_text ORDER BY c.time_ns DESC NULLS LAST, c.id DESC))[1], 4097), "
        "left((array_agg(c.exe ORDER BY c.time_ns DESC NULLS LAST, c.id DESC))[1], 4097) "
        "FROM " GC_FLEET_PG_SCHEMA ".cores c WHERE c.sig_hash IS NOT NULL AND " FILTERS
        " GROUP BY c.sig_hash ORDER BY count(*) DESC, min(c.time_ns) NULLS FIRST, c.sig_hash "
        "LIMIT " LIMIT_MORE;

static gpucore_status_t read_signature(const PGresult *r, size_t nth,
                                       struct gc_fleet_signature *g, gpucore_diag_t *reterr_diag)
{
    /* a summary line has no id: the message names the signature's place in the answer */
    struct cell_ctx x = {
        .r = r, .what = "summary line", .id = (int64_t)nth + 1, .diag = reterr_diag
    };
    gpucore_status_t st;

    memset(g, 0, sizeof(*g));
    if ((st = cell_text(&x, 0, "sig_hash", 0, FLEET_TEXT_MAX, &g->sig_hash)) != GPUCORE_OK ||
        ((strlen(g->sig_hash) > FLEET_SIG_HASH_MAX || !is_hex(g->sig_hash)) &&
         (st = bad(&x, "sig_hash", "not a signature hash")) != GPUCORE_OK) ||
        (st = cell_i64(&x, 1, "cores", 0, 1, INT64_MAX, &g->cores)) != GPUCORE_OK ||
        (st = cell_i64(&x, 2, "hosts", 0, 0, INT64_MAX, &g->hosts)) != GPUCORE_OK ||
        (st = cell_i64(&x, 3, "jobs", 0, 0, INT64_MAX, &g->jobs)) != GPUCORE_OK ||
        (st = cell_i64(&x, 4, "time_ns", 1, 0, INT64_MAX, &g->first_ns)) != GPUCORE_OK ||
        (st = cell_i64(&x, 5, "time_ns", 1, 0, INT64_MAX, &g->last_ns)) != GPUCORE_OK ||
        (st = cell_text(&x, 6, "sig_text", 1, FLEET_TEXT_MAX, &g->sig_text)) != GPUCORE_OK ||
        (st = cell_text(&x, 7, "exe", 1, FLEET_TEXT_MAX, &g->exe)) != GPUCORE_OK) {
        signature_done(g);
        return st;
    }
    return GPUCORE_OK;
}

void gc_fleet_signatures_free(struct gc_fleet_signature *sigs, size_t n)
{
    if (!sigs)
        return;
    for (size_t i = 0; i < n; i++)
        signature_done(&sigs[i]);
    free(sigs);
}

gpucore_status_t gc_fleet_summary(struct gc_fleet *f, const struct gc_fleet_filter *flt,
                                  struct gc_fleet_signature **ret, size_t *ret_n,
                                  gpucore_diag_t *reterr_diag)
{
    static const struct gc_fleet_filter none = { 0 };
    struct gc_fleet_signature *sigs = NULL;
    struct filter_params p;
    struct fleet_stmt q;
    size_t n = 0, cap = 0;
    gpucore_status_t st;
    PGresult *r;

    *ret = NULL;
    *ret_n = 0;
    filter_params(flt ? flt : &none, &p);
    st = stmt_start(&q, f, SUMMARY_SQL, 7, p.values, reterr_diag);
    while (st == GPUCORE_OK && (st = stmt_next(&q, &r, reterr_diag)) == GPUCORE_OK && r) {
        if (n < GC_FLEET_ROWS_MAX &&
            (st = grow((void **)&sigs, &cap, n, sizeof(*sigs), reterr_diag)) == GPUCORE_OK &&
            (st = read_signature(r, n, &sigs[n], reterr_diag)) == GPUCORE_OK)
            n++;
        PQclear(r);
    }
    if (st != GPUCORE_OK) {
        if (!q.done)
            stmt_abandon(&q);
        gc_fleet_signatures_free(sigs, n);
        return st;
    }
    *ret = sigs;
    *ret_n = n;
    return GPUCORE_OK;
}
