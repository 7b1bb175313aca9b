/* SPDX-License-Identifier: MIT */
/*
 * The fleet index's reading commands (cmd_fleet_read.c, docs/fleet.md "Reading the fleet"):
 * `gpucore list --fleet`, `show --fleet ID`, `job --fleet JOBID`. cmd_list, cmd_show and
 * cmd_job parse their command lines and call these with what they parsed.
 *
 * Exit status: 0; 64 no fleet index named (neither --fleet-index nor store.conf's FleetIndex=),
 * or a bad URI; 65 a value of the database is not one gpucore writes (the message names the row
 * and column), or its schema is another program's or newer; 66 no such row (show) or no core of
 * the job; 74 the database cannot be reached in time (the message names the host or socket,
 * never the password) or a query failed; 77 the role may not read the schema; 70 out of memory.
 */
#ifndef GPUCORE_CLI_FLEET_READ_H
#define GPUCORE_CLI_FLEET_READ_H

#include <stdint.h>

#include "fleet.h"

#define LIST_FLEET_SCHEMA "gpucore.list-fleet/1"
#define SHOW_FLEET_SCHEMA "gpucore.show-fleet/1"
#define JOB_FLEET_SCHEMA "gpucore.job-fleet/1"

/* What the commands were given. Strings are borrowed from argv. */
struct cli_fleet_args {
    const char *uri;    /* --fleet-index URI, or NULL: store.conf's FleetIndex= */
    const char *config; /* --config FILE, or NULL: the caller's default store.conf */
    struct gc_fleet_filter filter;
    int json;
    int dedupe; /* list: the summary, one line per signature */
};

int cli_fleet_list(const struct cli_fleet_args *a);
/* @p id: the fleet row's id (what `list --fleet` shows). */
int cli_fleet_show(const struct cli_fleet_args *a, const char *id);
/* @p a->filter.job is the job. */
int cli_fleet_job(const struct cli_fleet_args *a);

#endif /* GPUCORE_CLI_FLEET_READ_H */
