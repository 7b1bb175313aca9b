/* SPDX-License-Identifier: MIT */
/*
 * The fleet index: every row of a store's index also in one PostgreSQL database shared by the
 * hosts of a cluster, with the writing host's name (docs/fleet.md).
 *
 * Writing. The local index is the source: every change of a row (a core indexed, a state
 * changed, a row forgotten) gives it the next change number of the store (local schema 2), and
 * gc_fleet_sync() sends the rows changed since the last number the database acknowledged,
 * upserted by (node, store, file), so a retry or a re-index never duplicates a row. A database
 * that is down, slow or refuses never fails the caller's command and never delays it by more
 * than the time budget given: the rows wait in the local index and go with the next sync.
 *
 * Reading. gc_fleet_query() and gc_fleet_summary() answer `gpucore list|show|job --fleet`.
 * The database is hostile input as a core is: every value read is checked (lengths, ranges,
 * file names) before use, and nothing read from it is ever opened.
 *
 * Access. The database decides who sees what: row-level security shows a role the rows it wrote
 * and the rows of cores whose user has the role's name, and whatever more the database's
 * administrator grants (docs/fleet.md, "Rights").
 *
 * Internal to the `gpucore` program; nothing here prints or exits. A struct gc_fleet is not for
 * concurrent use by threads.
 */
#ifndef GC_FLEET_H
#define GC_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "store.h"

/* The database schema's version this program writes and reads (gpucore_fleet.migrations). */
#define GC_FLEET_SCHEMA_VERSION 1
/* The PostgreSQL schema (namespace) gpucore's tables live in. */
#define GC_FLEET_PG_SCHEMA "gpucore_fleet"
/* The longest fleet URI accepted (store.conf FleetIndex=, --fleet-index): libpq's URIs are a
   few hundred bytes; the bound keeps a mistaken value from being copied around. */
#define GC_FLEET_URI_MAX 1024
/*
 * A writer's whole budget for the fleet in one command (connect, migrate, send), milliseconds.
 * A capture's indexing runs in its report's child: this is what a down or slow database may add
 * to it at most. Past it the rows stay pending.
 */
#define GC_FLEET_WRITE_TIME_MAX_MS 2000
/* After a failed sync, writers do not try the same database again for this long: a burst of
   captures while the database is down costs one attempt, not one per core. */
#define GC_FLEET_RETRY_AFTER_MS 30000
/* Rows sent per statement: a batch is one round trip; a store of 100,000 rows goes in
   100,000 / 500 statements. */
#define GC_FLEET_BATCH_ROWS 500
/* A reader's bound on one query (list --fleet of 100,000 rows takes well under it). */
#define GC_FLEET_READ_TIME_MAX_MS 30000
/* The most rows a reader takes from one query: past it the answer says it was cut. */
#define GC_FLEET_ROWS_MAX 1000000

struct gc_fleet;

/* gc_fleet_open()'s flags. */
#define GC_FLEET_WRITE 0x1u /* a writer: creates or migrates the schema when it is older */

/*
 * Connect to the database @p uri (a libpq connection URI or key=value string) within
 * @p time_max_ms, and check its schema: with GC_FLEET_WRITE a missing or older schema is
 * migrated (under an advisory lock, so concurrent writers migrate once); a reader needs the
 * schema of this version.
 * @retval GPUCORE_OK         *ret is a new connection; gc_fleet_close() it
 * @retval GPUCORE_E_INVAL    @p uri is empty, longer than GC_FLEET_URI_MAX or does not parse
 * @retval GPUCORE_E_IO       the database cannot be reached in time, or refused the login
 * @retval GPUCORE_E_PERM     the role may not create or use the schema (the message names the
 *                            right missing, docs/fleet.md lists them)
 * @retval GPUCORE_E_VERSION  the database's schema is newer than this program's
 * @retval GPUCORE_E_CORRUPT  the schema is not one gpucore made
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_fleet_open(const char *uri, uint32_t flags, int64_t time_max_ms,
                               struct gc_fleet **ret, gpucore_diag_t *reterr_diag);
void gc_fleet_close(struct gc_fleet *f); /* accepts NULL */

/*
 * The fleet URI a command uses: @p option (--fleet-index URI) when not NULL, else store.conf's
 * FleetIndex= (@p conf, may be NULL), else NULL (none). Borrowed from its arguments.
 */
const char *gc_fleet_uri(const char *option, const struct gc_store_conf *conf);

/*
 * A URI fit to be tried: 1 to GC_FLEET_URI_MAX bytes, no control character. 1 if so, else 0
 * (store.conf's FleetIndex= and --fleet-index are refused before any use). Whether libpq can
 * parse it is gc_fleet_open()'s to say (GPUCORE_E_INVAL).
 */
int gc_fleet_uri_ok(const char *uri);

/*
 * @p uri with every password in it replaced by "***" (a URI's user:PASSWORD@, a password=
 * parameter of a URI or of a key=value string), into @p buf, cut to fit @p size. Every
 * message naming a fleet URI names it so. Returns @p buf.
 */
char *gc_fleet_uri_mask(const char *uri, char *buf, size_t size);

/* What gc_fleet_sync() did. */
struct gc_fleet_sync_stats {
    size_t sent;      /* rows upserted */
    size_t forgotten; /* rows removed (forgotten locally) */
    size_t pending;   /* rows still waiting when it returned */
    int skipped;      /* 1: not tried, a failure less than GC_FLEET_RETRY_AFTER_MS ago */
};

/* gc_fleet_sync()'s flags. */
#define GC_FLEET_SYNC_FORCE 0x1u /* try even within GC_FLEET_RETRY_AFTER_MS of a failure
                                    (`gpucore store --fleet-sync`) */
/* `gpucore store --fleet-sync`'s budget: the whole backlog after an outage, in one command
   run by hand or by a timer; 100,000 rows go in about 4 s (docs/fleet.md, "Benchmark"). */
#define GC_FLEET_SYNC_TIME_MAX_MS 120000

/*
 * Send the rows of @p s changed since the database last acknowledged them, within
 * @p time_max_ms (GC_FLEET_WRITE_TIME_MAX_MS for a capture). A user's view of root's store
 * sends nothing (GPUCORE_E_PERM: it is read-only; root's writers send its rows). The node's name is the host's
 * (gethostname()). Rows carry exactly the local row's values (no more: what --redact and
 * --no-host-memory left out of a core is in neither), the store's absolute path and the file's
 * path in it. A failure records its time in the local index (so the next writers wait
 * GC_FLEET_RETRY_AFTER_MS) and is the caller's warning; the rows stay pending.
 * @retval GPUCORE_OK        sent (or nothing to send, or skipped: see *ret)
 * @retval gc_fleet_open()'s statuses, GPUCORE_E_IO (a statement failed or ran out of time)
 */
gpucore_status_t gc_fleet_sync(struct gc_store *s, const char *uri, uint32_t flags,
                               int64_t time_max_ms, struct gc_fleet_sync_stats *ret,
                               gpucore_diag_t *reterr_diag);

/* One row of the fleet index: the local row's values (row.id is the fleet's id), and where. */
struct gc_fleet_row {
    struct gc_store_row row;
    char *node;       /* the host that indexed it (gethostname() there) */
    char *store;      /* its store's absolute path on that host */
    char *path;       /* store + "/" + row.file: where the core is, on that host */
    int64_t synced_ns; /* when the database last received it */
};
void gc_fleet_rows_free(struct gc_fleet_row *rows, size_t n);

/* What gc_fleet_query() and gc_fleet_summary() select; zero/NULL members do not filter. */
struct gc_fleet_filter {
    int64_t id;            /* > 0: that fleet row only */
    int64_t since_ns;      /* capture time >= (rows of unknown time are kept) */
    int64_t until_ns;      /* > 0: capture time < this */
    const char *signature; /* hash, a hash prefix of 4+ hex digits, or the text */
    const char *exe;       /* executable path, or its base name */
    const char *job;
    const char *node;
};

/*
 * The rows the role may see that pass @p flt, oldest capture first, with row.seen and
 * row.first_seen_ns over the rows it may see. *ret_cut: 1 when more than GC_FLEET_ROWS_MAX
 * matched (the first ones are returned).
 * @retval GPUCORE_OK, GPUCORE_E_IO (the statement failed or ran out of time; the message),
 *         GPUCORE_E_CORRUPT (a value is not what the schema allows: names the row and column),
 *         GPUCORE_E_NOMEM
 */
gpucore_status_t gc_fleet_query(struct gc_fleet *f, const struct gc_fleet_filter *flt,
                                struct gc_fleet_row **ret_rows, size_t *ret_n, int *ret_cut,
                                gpucore_diag_t *reterr_diag);

/* One signature over the rows selected. */
struct gc_fleet_signature {
    char *sig_hash, *sig_text;
    int64_t cores, hosts, jobs; /* distinct nodes and jobs among them */
    int64_t first_ns, last_ns;  /* capture times; -1 unknown */
    char *exe;                  /* the newest core's executable */
};
void gc_fleet_signatures_free(struct gc_fleet_signature *sigs, size_t n);

/*
 * The signatures of the rows that pass @p flt (the summary: `gpucore list --fleet --dedupe`),
 * most cores first. Statuses of gc_fleet_query().
 */
gpucore_status_t gc_fleet_summary(struct gc_fleet *f, const struct gc_fleet_filter *flt,
                                  struct gc_fleet_signature **ret, size_t *ret_n,
                                  gpucore_diag_t *reterr_diag);

#endif /* GC_FLEET_H */
