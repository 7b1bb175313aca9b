/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the scenario parser (gc_scenario_parse). Seeds: the scenario files. An input
 * that starts with '[' is a GPUCORE_SIM_FAULTS value instead, appended to a small built-in
 * scenario with gc_scenario_add_faults.
 *
 * Invariants (abort() on violation): a failure returns a documented status with a non-empty
 * message naming the input and no result (add_faults: the scenario unchanged); a success gives
 * a scenario whose references are in range, whose fault entries obey their action's rules and
 * whose wave total equals the sum of its entries, and which frees cleanly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A waves[] entry's stop causes belong to its state, its masked exceptions have an enable,
   and its first cause is one of them. */
static void check_stop(const struct gc_scen_waves *w)
{
    uint32_t state = w->stopped ? GC_SCEN_STATE_STOPPED
                                : w->halted ? GC_SCEN_STATE_HALTED : GC_SCEN_STATE_RUNNING;

    if ((w->stopped && w->halted) || w->stop_causes >> _GC_SCEN_STOP_MAX ||
        w->masked >> _GC_SCEN_STOP_MAX || (w->masked & w->stop_causes))
        abort();
    if (state == GC_SCEN_STATE_RUNNING ? w->stop_causes != 0 || w->stop != GC_SCEN_STOP_NONE
                                       : !(w->stop_causes & (1u << w->stop)))
        abort();
    for (uint32_t c = 0; c < _GC_SCEN_STOP_MAX; c++) {
        if ((w->stop_causes & (1u << c)) && gc_scen_causes[c].state != state)
            abort();
        if ((w->masked & (1u << c)) && gc_scen_causes[c].gate < 0)
            abort();
    }
}

/* Every fault entry within its action's rules. */
static void check_faults(const struct gc_scenario *s)
{
    if (s->nfaults > GC_SCEN_MAX_FAULTS)
        abort();
    for (uint32_t i = 0; i < s->nfaults; i++) {
        const struct gc_scen_fault *f = &s->faults[i];
        int read = strcmp(f->op, "read_memory") == 0;

        switch (f->action) {
        case GC_SCEN_FAULT_ERRNO:
            if (read || f->err <= 0 || f->nth == 0)
                abort();
            break;
        case GC_SCEN_FAULT_EXIT:
            if (read || f->exit_status < 0 || f->exit_status > 255 || f->nth == 0)
                abort();
            break;
        case GC_SCEN_FAULT_DELAY:
            if (read || f->delay_ms == 0 || f->delay_ms > 60000)
                abort();
            break;
        case GC_SCEN_FAULT_READ_DELAY:
            if (!read || f->delay_us_per_mib == 0)
                abort();
            break;
        case GC_SCEN_FAULT_READ_EIO:
            if (!read || f->buffer >= s->nbuffers || f->size == 0 || f->offset % 4096 ||
                f->size % 4096 || f->offset > s->buffers[f->buffer].size ||
                f->size > s->buffers[f->buffer].size - f->offset)
                abort();
            break;
        default:
            abort();
        }
    }
    for (uint32_t i = 0; i < s->nexceptions; i++)
        if (s->exceptions[i].fault_flags > 15 ||
            (s->exceptions[i].fault_flags &&
             s->exceptions[i].address_kind == GC_SCEN_ADDRESS_NONE) ||
            (s->exceptions[i].address_kind == GC_SCEN_ADDRESS_ABSOLUTE) !=
                    (s->exceptions[i].address != 0) ||
            (s->exceptions[i].address_kind == GC_SCEN_ADDRESS_BUFFER &&
             (s->exceptions[i].address_buffer >= s->nbuffers ||
              s->exceptions[i].address_offset > GC_SCEN_MAX_ADDRESS_DISTANCE ||
              (s->exceptions[i].address_before && !s->exceptions[i].address_offset))))
            abort();
    if (s->kfd_minor < 13 || s->kfd_minor > 18 || s->exit_status > 255 ||
        (unsigned)s->on_queue_error > GC_SCEN_ON_ERROR_EXIT)
        abort();
}

/* GPUCORE_SIM_FAULTS text appended to a scenario with one 64 KiB buffer "a". */
static void env_faults(const uint8_t *data, size_t size)
{
    static const char base[] =
            "{\"name\":\"f\",\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,"
            "\"simd_count\":416}],\"buffers\":[{\"name\":\"a\",\"size\":65536}],"
            "\"fault_injection\":[{\"op\":\"enable\",\"errno\":\"EIO\"}]}";
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };
    char *text = malloc(size + 1);

    if (!text || gc_scenario_parse(base, sizeof(base) - 1, "base.json", &s, &d) != GPUCORE_OK)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    gpucore_status_t st = gc_scenario_add_faults(s, text, "GPUCORE_SIM_FAULTS", &d);
    free(text);
    if (st < 0) {
        if ((st != GPUCORE_E_INVAL && st != GPUCORE_E_LIMIT && st != GPUCORE_E_NOMEM) ||
            d.status != st || strncmp(d.message, "GPUCORE_SIM_FAULTS", 18) != 0 ||
            s->nfaults != 1 || s->faults[0].err == 0)
            abort();
    } else if (s->nfaults < 1) {
        abort();
    }
    check_faults(s);
    gc_scenario_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    uint64_t waves = 0;

    if (size && data[0] == '[') {
        env_faults(data, size);
        return 0;
    }
    st = gc_scenario_parse((const char *)data, size, "fuzz.json", &s, &d);
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
        check_stop(&s->waves[i]);
    }
    if (waves != s->total_waves || waves > GC_SCEN_MAX_WAVES)
        abort();
    check_faults(s);
    gc_scenario_free(s);
    return 0;
}
