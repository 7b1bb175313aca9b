/* SPDX-License-Identifier: MIT */
/* What the store's files share (store.h is the interface). */
#ifndef GC_STORE_INTERNAL_H
#define GC_STORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include <gpucore/status.h>

/* Users whose views one store handle remembers as stale before it writes all of them: a
   capture or an ingest touches one or two, gc and a rescan all. */
#define GC_STORE_STALE_VIEWS_MAX 16
/* The most users whose views one sync writes when all are stale: as many as a large
   site has users with crashes; past it the rest wait for the next change. */
#define GC_STORE_VIEW_USERS_MAX 65536

struct gc_store {
    char *path;       /* as given */
    int dirfd;        /* O_DIRECTORY | O_NOFOLLOW, checked (owner, mode) */
    sqlite3 *db;      /* index.sqlite, reached through dirfd */
    uint64_t fs_type; /* fstatfs(dirfd).f_type; 0 unknown */
    int journal;      /* enum gc_store_journal */
    /* The time bound of the statement running now (store_guard.c): CLOCK_MONOTONIC ns past
       which SQLite's progress handler interrupts it; the bound's length (tests shorten it);
       whether the last interruption was the bound's. */
    int64_t deadline_ns;
    int64_t statement_limit_ns;
    int overdue;
    size_t rows_ignored; /* rows gc_store_query() left out: not rows of a store's file */
    /* The index's name in messages: GC_STORE_INDEX_NAME, or a user's view's (store_view.c). */
    char index_name[48];
    /* A user's read-only view of root's store: dirfd is O_PATH, db the view, opened
       immutable; every change is refused (gc_store_refuse_view()). */
    int view;
    /* Root's store: the users whose rows changed since their views were last written
       (gc_store_sync_views()); past the array, or when not known whose, all of them. */
    uint32_t stale_views[GC_STORE_STALE_VIEWS_MAX];
    size_t n_stale_views;
    int views_all_stale;
};

/* SQLite's virtual-machine steps between two looks at the clock: a few microseconds of work. */
#define GC_STORE_PROGRESS_STEPS 10000

/*
 * The connection's guards (store_guard.c): SQLite's defensive mode, no triggers, views,
 * schema functions or extensions, cell-size checks, and the statements' time bound.
 * GPUCORE_OK, GPUCORE_E_NOTSUP (an SQLite that lacks one) or GPUCORE_E_IO.
 */
gpucore_status_t gc_store_guard_db(struct gc_store *s, gpucore_diag_t *d);
/* Start the time bound of a statement (gc_store_prepare() and gc_store_exec() call it). */
void gc_store_statement_begin(struct gc_store *s);
/*
 * The index's schema is exactly what the migrations up to @p version create: the same tables,
 * indexes and nothing else (no view, no trigger), each with the same SQL.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_CORRUPT  it is not; the message names the first difference
 * @retval GPUCORE_E_NOMEM, GPUCORE_E_IO
 */
gpucore_status_t gc_store_verify_schema(struct gc_store *s, int version, gpucore_diag_t *d);
/* Roll back the open transaction, whatever the time bound of the statement before. */
void gc_store_rollback(struct gc_store *s);
/* The SQL of the migration to @p version, or NULL when there is none. */
const char *gc_store_migration_sql(int version);
/* The index's last error as a status and "DIR/index.sqlite: WHAT: SQLite's message". */
gpucore_status_t gc_store_fail(struct gc_store *s, gpucore_diag_t *d, const char *what);

/*
 * gc_store_open() with the filesystem's f_type given (@p f_type not NULL) instead of read with
 * fstatfs(): how the tests open a store as if it were on a network filesystem.
 */
gpucore_status_t gc_store_open_fs(const char *dir, uint32_t flags, const uint64_t *f_type,
                                  struct gc_store **ret, gpucore_diag_t *reterr_diag);

/* sqlite3_exec() / _prepare_v2() / one step to SQLITE_DONE then finalize; failures name the
   index and SQLite's message. */
gpucore_status_t gc_store_exec(struct gc_store *s, const char *sql, const char *what,
                               gpucore_diag_t *d);
gpucore_status_t gc_store_prepare(struct gc_store *s, const char *sql, sqlite3_stmt **ret,
                                  gpucore_diag_t *d);
gpucore_status_t gc_store_step_done(struct gc_store *s, sqlite3_stmt *stmt, const char *what,
                                    gpucore_diag_t *d);
/*
 * Many row changes (gc's deletions, a refresh's new file states) in write transactions of at
 * most GC_STORE_BATCH_ROWS changes each: a commit is a journal write and a sync (several round
 * trips on a network filesystem), so one per row made a large gc slow; and a bounded batch
 * bounds how long the write lock is held while files are removed, which a capture's indexing
 * waits for (GC_STORE_BUSY_TIMEOUT_MS). A transaction is begun at the first change only, so
 * that a pass that changes nothing never takes the lock.
 */
#define GC_STORE_BATCH_ROWS 256u

struct gc_store_batch {
    struct gc_store *s;
    unsigned pending; /* changes in the open transaction */
    int open;
};

/* Before a change: begin a transaction unless one is open. GPUCORE_OK or GPUCORE_E_IO. */
gpucore_status_t gc_store_batch_begin(struct gc_store_batch *b, gpucore_diag_t *d);
/* After a change: commit when GC_STORE_BATCH_ROWS are pending. GPUCORE_OK or GPUCORE_E_IO. */
gpucore_status_t gc_store_batch_count(struct gc_store_batch *b, gpucore_diag_t *d);
/*
 * The end of the changes, @p st being how they went: what is pending is committed (also after
 * a failure: the changes made were made, files removed stay removed). Returns @p st when it is
 * a failure, else the commit's status.
 */
gpucore_status_t gc_store_batch_end(struct gc_store_batch *b, gpucore_status_t st,
                                    gpucore_diag_t *d);

/* A decimal count of at most @p max (no suffix): 0, or -1 when @p text does not parse. */
int gc_store_parse_count(const char *text, uint64_t max, uint64_t *ret);

/* PRAGMA user_version into *ret. GPUCORE_OK or the index's failure. */
gpucore_status_t gc_store_user_version(struct gc_store *s, int *ret, gpucore_diag_t *d);
/* Bring the schema of s->db to GC_STORE_SCHEMA_VERSION (the migrations, under the write
   lock). GPUCORE_OK, GPUCORE_E_VERSION, GPUCORE_E_CORRUPT or GPUCORE_E_IO. */
gpucore_status_t gc_store_migrate(struct gc_store *s, gpucore_diag_t *d);

/*
 * Add @p perm (ACL_READ, ACL_EXECUTE) for user @p uid to @p fd's POSIX access ACL, keeping
 * every entry it has (store_share.c). 0, or -1 with errno set (ENOTSUP: no ACLs on the
 * filesystem; E2BIG: the ACL is full).
 */
int gc_store_acl_grant(int fd, uint32_t uid, uint16_t perm);

/*
 * Users' views (store_view.c). Root's writes mark the views they change stale: a row of
 * @p uid; the row of id @p id or file @p file (looked up: call before the row changes or
 * goes); or all of them (a rescan). Nothing when the caller is not root.
 */
void gc_store_view_touch(struct gc_store *s, int64_t uid);
void gc_store_view_touch_id(struct gc_store *s, int64_t id);
void gc_store_view_touch_file(struct gc_store *s, const char *file);
void gc_store_view_touch_all(struct gc_store *s);
/*
 * Open the caller's view of the root store @p dir into @p s when the caller is not root and
 * @p dir is root's directory (not writable by group or others): 1 (s->db, s->dirfd set, or
 * *d filled and -1 on failure), or 0 when @p dir is no such store (the store's own rules then
 * apply). Failures: GPUCORE_E_NOTFOUND (no view of the caller: no core of theirs),
 * GPUCORE_E_PERM (the view is not root's regular file), GPUCORE_E_VERSION,
 * GPUCORE_E_CORRUPT, GPUCORE_E_LIMIT, GPUCORE_E_NOMEM, GPUCORE_E_IO.
 */
int gc_store_open_view(struct gc_store *s, const char *dir, gpucore_diag_t *d);
/* GPUCORE_OK, or GPUCORE_E_PERM "your view is read-only" when @p s is a user's view. */
gpucore_status_t gc_store_refuse_view(const struct gc_store *s, gpucore_diag_t *d);

/* CLOCK_REALTIME in ns. */
int64_t gc_store_now_ns(void);

#endif /* GC_STORE_INTERNAL_H */
