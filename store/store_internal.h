/* SPDX-License-Identifier: MIT */
/* What the store's files share (store.h is the interface). */
#ifndef GC_STORE_INTERNAL_H
#define GC_STORE_INTERNAL_H

#include <stdint.h>

#include <sqlite3.h>

#include <gpucore/status.h>

struct gc_store {
    char *path;  /* as given */
    int dirfd;   /* O_DIRECTORY | O_NOFOLLOW, checked (owner, mode) */
    sqlite3 *db; /* index.sqlite, reached through dirfd */
};

/* sqlite3_exec() / _prepare_v2() / one step to SQLITE_DONE then finalize; failures name the
   index and SQLite's message. */
gpucore_status_t gc_store_exec(struct gc_store *s, const char *sql, const char *what,
                               gpucore_diag_t *d);
gpucore_status_t gc_store_prepare(struct gc_store *s, const char *sql, sqlite3_stmt **ret,
                                  gpucore_diag_t *d);
gpucore_status_t gc_store_step_done(struct gc_store *s, sqlite3_stmt *stmt, const char *what,
                                    gpucore_diag_t *d);
/* CLOCK_REALTIME in ns. */
int64_t gc_store_now_ns(void);

#endif /* GC_STORE_INTERNAL_H */
