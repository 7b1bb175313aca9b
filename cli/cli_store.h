/* SPDX-License-Identifier: MIT */
/*
 * What the capture commands share with the store's commands (cli/cmd_store.c): opening the
 * store as the program does, and the store's statuses as exit codes.
 */
#ifndef GPUCORE_CLI_STORE_H
#define GPUCORE_CLI_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <gpucore/status.h>

struct gc_store;

/* Open (creating it) the store --store @p option names, else GPUCORE_STORE's, else the
   default (store.h, gc_store_locate()). 0 with *ret set, or an exit code after printing. */
int cli_store_open(const char *option, struct gc_store **ret);

/* Close @p s (NULL accepted), first warning once on stderr when its queries left out rows
   that name no file of the store (gc_store_rows_ignored()). */
void cli_store_close(struct gc_store *s);

/* Print the store's failure @p d as one line; its exit code: 77 permission, 65 a newer or
   damaged index, 66 not found, 74 I/O, 64 usage, 70 otherwise. */
int cli_store_fail(const gpucore_diag_t *d);

/*
 * The fleet index (store/fleet.h, cli/cli_fleet.c), for every command that writes a store and
 * takes --fleet-index URI (shared with list/show/job --fleet).
 *
 * cli_fleet_option(): 0 when @p arg is a URI to try, else the usage error's exit code after
 * printing it (for @p cmd).
 * cli_fleet_uri(): the URI a command uses: @p option, else store.conf's FleetIndex= (the file
 * @p config, or the default one; read into @p conf, which owns the string returned), else
 * NULL. A file that cannot be read gives NULL: the command reports the file itself.
 * cli_fleet_sync(): gc_fleet_sync() of @p s to that URI, if any, with @p flags and
 * @p time_max_ms; *ret (may be NULL) gets its counts; @p warn (@p size bytes) the warning's
 * text without "gpucore: warning: " when it failed or skipped rows that wait, else "". Never
 * fails. A user's view of root's store sends nothing.
 * cli_fleet_sync_warn(): cli_fleet_sync() within GC_FLEET_WRITE_TIME_MAX_MS, the warning on
 * stderr.
 */
struct gc_store_conf;
struct gc_fleet_sync_stats;
int cli_fleet_option(const char *cmd, const char *arg);
const char *cli_fleet_uri(const char *option, const char *config, struct gc_store_conf *conf);
void cli_fleet_sync(struct gc_store *s, const char *option, const char *config, uint32_t flags,
                    int64_t time_max_ms, struct gc_fleet_sync_stats *ret, char *warn,
                    size_t size);
void cli_fleet_sync_warn(struct gc_store *s, const char *option, const char *config);

/*
 * What `list`, `show` and their --fleet forms print of a row (cli/cmd_store.c), so both give
 * the same members and text. cli_store_row_json(): one core as `list --json` has it
 * (docs/store.md), @p path its file's path; a new object. cli_json_i64_or_null(),
 * cli_json_time_or_null(): a number, or a time as ISO 8601 UTC, null when negative (unknown).
 * cli_format_time(): that time into @p buf, "-" when unknown. cli_row_number(): @p v into
 * @p buf, "-" when negative. cli_base_name(): the last component of @p p, "-" for NULL.
 */
struct gc_store_row;
json_t *cli_store_row_json(const struct gc_store_row *r, const char *path);
json_t *cli_json_i64_or_null(int64_t v);
json_t *cli_json_time_or_null(int64_t ns);
void cli_format_time(int64_t ns, char *buf, size_t size);
void cli_row_number(int64_t v, char *buf, size_t size);
const char *cli_base_name(const char *p);

int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_store(int argc, char **argv);

#endif /* GPUCORE_CLI_STORE_H */
