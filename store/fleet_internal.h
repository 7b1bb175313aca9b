/* SPDX-License-Identifier: MIT */
/*
 * What the fleet index's files share (fleet.h is the interface): the connection and one
 * statement run within the connection's deadline (store_fleet.c), for the writing side
 * (store_fleet.c) and the reading side (store_fleet_query.c).
 */
#ifndef GC_FLEET_INTERNAL_H
#define GC_FLEET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include <gpucore/status.h>

#include "fleet.h"

/* The database's id as text (a UUID: 36 characters). */
#define GC_FLEET_DATABASE_ID_MAX 40

struct gc_fleet {
    PGconn *conn;        /* NULL once dropped (a statement ran out of time) */
    int64_t deadline_ns; /* CLOCK_MONOTONIC ns: no call waits past it */
    char database_id[GC_FLEET_DATABASE_ID_MAX]; /* gpucore_fleet.meta's */
    char where[GC_FLEET_URI_MAX + 1];           /* the URI, its password masked: for messages */
};

/* CLOCK_MONOTONIC in ns. */
int64_t gc_fleet_mono_ns(void);

/* Give the connection a new deadline: @p time_max_ms from now. */
void gc_fleet_set_budget(struct gc_fleet *f, int64_t time_max_ms);

/*
 * Run one statement, @p sql with @p n text parameters @p values (NULL entries are SQL NULLs;
 * always bound, never interpolated), waiting at most until f->deadline_ns. *ret (may be NULL:
 * the result is cleared) gets the statement's result, the caller's to PQclear(). With
 * @p n == 0 and @p values NULL, @p sql may hold several statements (the simple protocol).
 * On the deadline the connection is dropped (f->conn NULL): no later statement runs.
 * @retval GPUCORE_OK         the statement succeeded (PGRES_COMMAND_OK or PGRES_TUPLES_OK)
 * @retval GPUCORE_E_PERM     the server refused it for lack of a privilege (SQLSTATE 42501)
 * @retval GPUCORE_E_IO       it failed, the connection broke, or the deadline passed
 * @retval GPUCORE_E_NOMEM
 * Messages start with the masked URI and name @p what.
 */
gpucore_status_t gc_fleet_exec(struct gc_fleet *f, const char *what, const char *sql, int n,
                               const char *const *values, PGresult **ret, gpucore_diag_t *d);

#endif /* GC_FLEET_INTERNAL_H */
