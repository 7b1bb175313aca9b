/* SPDX-License-Identifier: MIT */
/*
 * The fleet index for the commands that change a store (cli_store.h): which URI, the sync
 * after the change, and its warning. A fleet index that is down, slow or refuses never changes
 * a command's exit status: its rows wait in the local index.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_store.h"
#include "fleet.h"
#include "store.h"

int cli_fleet_option(const char *cmd, const char *arg)
{
    if (!gc_fleet_uri_ok(arg))
        return cli_usage_error(cmd,
                               "--fleet-index takes a PostgreSQL URI of 1 to %d bytes without "
                               "control characters",
                               GC_FLEET_URI_MAX);
    return 0;
}

const char *cli_fleet_uri(const char *option, const char *config, struct gc_store_conf *conf)
{
    char path[PATH_MAX];
    gpucore_diag_t d = { 0 };

    memset(conf, 0, sizeof(*conf));
    conf->gc.keep_per_signature = -1;
    if (option)
        return option;
    /* the command itself says what is wrong with the file when it reads it */
    if (gc_store_conf_load(config, conf, path, sizeof(path), &d) != GPUCORE_OK)
        return NULL;
    return gc_fleet_uri(NULL, conf);
}

void cli_fleet_sync(struct gc_store *s, const char *option, const char *config, uint32_t flags,
                    int64_t time_max_ms, struct gc_fleet_sync_stats *ret, char *warn,
                    size_t size)
{
    struct gc_store_conf conf;
    struct gc_fleet_sync_stats st = { 0 };
    gpucore_diag_t d = { 0 };
    const char *uri = s && !gc_store_is_view(s) ? cli_fleet_uri(option, config, &conf) : NULL;
    gpucore_status_t rc;

    warn[0] = '\0';
    if (ret)
        memset(ret, 0, sizeof(*ret));
    if (!uri)
        return;
    rc = gc_fleet_sync(s, uri, flags, time_max_ms, &st, &d);
    if (ret)
        *ret = st;
    if (rc != GPUCORE_OK)
        snprintf(warn, size,
                 "fleet index: %s (%zu row%s wait in the local index; they go with the next "
                 "capture or gpucore store --fleet-sync)",
                 d.message[0] ? d.message : gpucore_strerror(rc), st.pending,
                 st.pending == 1 ? "" : "s");
    else if (st.skipped && st.pending)
        snprintf(warn, size,
                 "fleet index: not tried, it failed less than %d s ago (%zu row%s wait in the "
                 "local index; they go with the next capture or gpucore store --fleet-sync)",
                 GC_FLEET_RETRY_AFTER_MS / 1000, st.pending, st.pending == 1 ? "" : "s");
}

void cli_fleet_sync_warn(struct gc_store *s, const char *option, const char *config)
{
    char warn[GPUCORE_DIAG_MESSAGE_SIZE + 200];

    cli_fleet_sync(s, option, config, 0, GC_FLEET_WRITE_TIME_MAX_MS, NULL, warn, sizeof(warn));
    if (warn[0])
        fprintf(stderr, "gpucore: warning: %s\n", warn);
}
