/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the scenario parser (gc_scenario_parse). Seeds: the scenario files.
 *
 * Invariants (abort() on violation): a failure returns a documented status with a non-empty
 * message naming the input and no result; a success gives a scenario whose references are in
 * range and whose wave total equals the sum of its entries, and which frees cleanly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_scenario_parse((const char *)data, size, "fuzz.json", &s, &d);
    uint64_t waves = 0;

    if (st < 0) {
        if (s || (st != GPUCORE_E_INVAL && st != GPUCORE_E_LIMIT && st != GPUCORE_E_NOMEM) ||
            d.status != st || strncmp(d.message, "fuzz.json", 9) != 0)
            abort();
        return 0;
    }
    if (!s || st != GPUCORE_OK)
        abort();
    for (uint32_t i = 0; i < s->nqueues; i++)
        if (s->queues[i].agent >= s->nagents)
            abort();
    for (uint32_t i = 0; i < s->ndispatches; i++)
        if (s->dispatches[i].queue >= s->nqueues ||
            s->dispatches[i].code_object >= s->ncode_objects)
            abort();
    for (uint32_t i = 0; i < s->nwaves; i++) {
        if (s->waves[i].dispatch >= s->ndispatches ||
            s->waves[i].first_wave != waves ||
            s->waves[i].total_waves !=
                    gc_scen_waves_per_group(s, &s->waves[i]) * s->waves[i].workgroup_count)
            abort();
        waves += s->waves[i].total_waves;
    }
    if (waves != s->total_waves || waves > GC_SCEN_MAX_WAVES)
        abort();
    gc_scenario_free(s);
    return 0;
}
