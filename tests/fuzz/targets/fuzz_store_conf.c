/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the store's configuration file (store.h, gc_store_conf_parse_all()): the
 * input is the file's bytes. On success every limit is what a value of its kind can be (ingest's
 * size limits at least the smallest core, or infinity); on failure the status is
 * GPUCORE_E_CORRUPT, the message names the file and a line ("conf:N: ..."), and the
 * configuration is untouched. The same bytes are also tried as a size, a limit and a duration
 * (the options' parsers) as one NUL-terminated string.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/core.h>

#include "fleet.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_store_conf before = { .gc = { .keep_per_signature = -1 } }, c = before;
    const struct gc_store_policy *p = &c.gc;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_store_conf_parse_all((const char *)data, size, "conf", &c, &d);
    char *text;
    uint64_t u;
    int64_t ns;

    if (st == GPUCORE_OK) {
        if (p->max_age_ns < 0 || p->keep_per_signature < -1 || p->keep_per_signature > 1000000)
            abort();
        if ((c.host_size_max && c.host_size_max < GPUCORE_WRITER_MIN_BUDGET) ||
            (c.gpu_size_max && c.gpu_size_max < GPUCORE_WRITER_MIN_BUDGET))
            abort();
        /* FleetIndex=: kept only as a URI the fleet index would try (bounded, no control
           characters), NUL-terminated within its array */
        if (memchr(c.fleet_index, '\0', sizeof(c.fleet_index)) == NULL ||
            (c.fleet_index[0] && !gc_fleet_uri_ok(c.fleet_index)))
            abort();
    } else {
        if (st != GPUCORE_E_CORRUPT || strncmp(d.message, "conf:", 5) != 0 ||
            memcmp(&c, &before, sizeof(c)) != 0)
            abort();
    }
    text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (gc_store_parse_duration(text, &ns) == 0 && ns < 0)
        abort();
    (void)gc_store_parse_size(text, &u);
    if (gc_store_parse_limit(text, &u) == 0 && u < GPUCORE_WRITER_MIN_BUDGET)
        abort();
    free(text);
    return 0;
}
