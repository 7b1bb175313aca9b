/* SPDX-License-Identifier: MIT */
/*
 * gpucore analyze: the triage report. Per agent and queue the dispatches and the waves grouped
 * by (dispatch, PC, stop reasons), faulting groups first, each PC disassembled; first lines
 * that explain the crash in plain words; what the core lacks.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* Why the manifest left a range out, in words (schema/gpucore_enums.def). */
/* The memory-violation address recorded in the GPUCORE capture metadata, 0 if none. */
static uint64_t fault_address_of(gpucore_core_t *core)
{
    struct gpucore_note note;
    gpucore_capture_meta_t *m = NULL;
    uint32_t idx = 0;
    uint64_t va = 0;

    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &idx, &note) !=
        GPUCORE_OK)
        return 0;
    if (gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, NULL) == GPUCORE_OK)
        va = m->fault_address;
    gpucore_capture_meta_free(m);
    return va;
}

static const struct {
    uint32_t reason;
    const char *phrase;
} reason_phrases[] = {
    { GPUCORE_REASON_TIER, "its tier was not requested" },
    { GPUCORE_REASON_BUDGET, "the size budget was exhausted" },
    { GPUCORE_REASON_DEADLINE, "the time budget was exhausted" },
    { GPUCORE_REASON_IO_ERROR, "the read failed" },
    { GPUCORE_REASON_POLICY, "excluded by an option" },
    { GPUCORE_REASON_SPECIAL, "a mapping that must not be read" },
};

static const char *reason_phrase(uint32_t reason)
{
    for (size_t i = 0; i < sizeof(reason_phrases) / sizeof(reason_phrases[0]); i++)
        if (reason_phrases[i].reason == reason)
            return reason_phrases[i].phrase;
    return gpucore_reason_name(reason);
}

/* ---------------------------------------------------------------------------------------- */
/* Model pieces                                                                               */
/* ---------------------------------------------------------------------------------------- */

static json_t *agent_json(const struct az *az, const struct gc_image_agent *a)
{
    json_t *o = json_object();
    char target[32] = "";

    if (a->arch)
        snprintf(target, sizeof(target), "%s", a->arch->name);
    else if (gpucore_gfx_target_name(a->entry->gfx_target_version, target, sizeof(target)) !=
             GPUCORE_OK)
        target[0] = '\0';
    (void)az;
    json_object_set_new(o, "index", az_jint(a->index));
    json_object_set_new(o, "target", az_jstr_or_null(target));
    /* The image names an agent by its target when it knows no marketing name. */
    json_object_set_new(o, "name",
                        strcmp(a->name, target) ? az_jstr_or_null(a->name) : json_null());
    json_object_set_new(o, "gpu_id", az_jint(a->entry->gpu_id));
    json_object_set_new(o, "debuggable", json_boolean(a->supports_debugging));
    json_object_set_new(o, "exceptions", az_exceptions_json(a->entry->exception_status));
    return o;
}

static json_t *dispatch_json(const struct az *az, const struct gc_image_dispatch *dp)
{
    json_t *o = json_object();
    json_t *grid = json_array(), *wg = json_array();
    uint32_t nwaves = 0;
    const struct gc_image_queue *q = gc_image_queue(az->img, dp->queue);

    for (int i = 0; i < 3; i++) {
        json_array_append_new(grid, az_jint(dp->grid_size[i]));
        json_array_append_new(wg, az_jint(dp->workgroup_size[i]));
    }
    for (uint32_t i = 0; q && i < q->nwaves; i++) {
        const struct gc_image_wave *w = gc_image_wave(az->img, q->first_wave + i);

        if (w && w->dispatch == dp->index)
            nwaves++;
    }
    json_object_set_new(o, "index", az_jint(dp->index));
    json_object_set_new(o, "queue", az_jint(dp->queue));
    json_object_set_new(o, "packet_id", az_jint(dp->packet_id));
    json_object_set_new(o, "kernel", az_jstr_or_null(dp->kernel_name));
    json_object_set_new(o, "grid", grid);
    json_object_set_new(o, "workgroup", wg);
    json_object_set_new(o, "private_segment_size", az_jint(dp->private_segment_size));
    json_object_set_new(o, "group_segment_size", az_jint(dp->group_segment_size));
    json_object_set_new(o, "kernel_object", az_jhex(dp->kernel_object));
    json_object_set_new(o, "kernarg_address", az_jhex(dp->kernarg_address));
    json_object_set_new(o, "kernel_entry",
                        dp->kernel_entry ? az_jhex(dp->kernel_entry) : json_null());
    json_object_set_new(o, "waves", az_jint(nwaves));
    return o;
}

/* ---------------------------------------------------------------------------------------- */
/* The report: waves grouped by (dispatch, PC, stop reasons), faulting groups first           */
/* ---------------------------------------------------------------------------------------- */

struct group {
    uint32_t queue, dispatch;
    uint64_t pc;
    uint32_t reasons;
    int stopped;
    uint32_t count;
    uint32_t first_wave;
    uint32_t *waves; /* count entries */
    uint32_t cap;
};

static int group_rank(const struct group *g)
{
    return az_is_fault(g->reasons) ? 0 : g->reasons ? 1 : g->stopped ? 2 : 3;
}

static int group_cmp(const void *pa, const void *pb)
{
    const struct group *a = pa, *b = pb;

    if (group_rank(a) != group_rank(b))
        return group_rank(a) < group_rank(b) ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (a->queue != b->queue)
        return a->queue < b->queue ? -1 : 1;
    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    if (a->dispatch != b->dispatch)
        return a->dispatch < b->dispatch ? -1 : 1;
    return a->first_wave < b->first_wave ? -1 : a->first_wave > b->first_wave;
}

static void groups_free(struct group *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(g[i].waves);
    free(g);
}

/* Group the waves of queue q. Returns 0 or -1 (out of memory). */
static int group_queue(const struct az *az, const struct gc_image_queue *q, struct group **ret,
                       size_t *ret_n)
{
    struct group *g = NULL;
    size_t n = 0, cap = 0;

    for (uint32_t i = 0; i < q->nwaves; i++) {
        const struct gc_image_wave *w = gc_image_wave(az->img, q->first_wave + i);
        size_t k;

        if (!w)
            continue;
        for (k = 0; k < n; k++)
            if (g[k].pc == w->pc && g[k].reasons == w->stop_reasons &&
                g[k].dispatch == w->dispatch && g[k].stopped == !!w->stopped)
                break;
        if (k == n) {
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 8;
                struct group *ng = realloc(g, ncap * sizeof(*g));

                if (!ng)
                    goto nomem;
                g = ng;
                cap = ncap;
            }
            memset(&g[n], 0, sizeof(g[n]));
            g[n].queue = q->index;
            g[n].dispatch = w->dispatch;
            g[n].pc = w->pc;
            g[n].reasons = w->stop_reasons;
            g[n].stopped = !!w->stopped;
            g[n].first_wave = w->index;
            n++;
        }
        if (g[k].count == g[k].cap) {
            uint32_t ncap = g[k].cap ? g[k].cap * 2 : 4;
            uint32_t *nw = realloc(g[k].waves, ncap * sizeof(*nw));

            if (!nw)
                goto nomem;
            g[k].waves = nw;
            g[k].cap = ncap;
        }
        g[k].waves[g[k].count++] = w->index;
    }
    if (n)
        qsort(g, n, sizeof(*g), group_cmp);
    *ret = g;
    *ret_n = n;
    return 0;
nomem:
    groups_free(g, n);
    return -1;
}

static json_t *group_json(const struct az *az, const struct group *g)
{
    json_t *o = json_object(), *waves = json_array();
    const struct gc_image_queue *q = gc_image_queue(az->img, g->queue);
    char sym[GC_IMAGE_NAME_MAX + 24];
    char text[GC_DISASM_TEXT_MAX + 128];
    uint64_t off = 0;
    int has_sym = az_symbolize(az, g->pc, sym, sizeof(sym), &off);
    int rc = az_insn_at(az, az_queue_arch(az, g->queue), g->pc, text, sizeof(text));

    for (uint32_t i = 0; i < g->count; i++)
        json_array_append_new(waves, az_jint(g->waves[i]));
    json_object_set_new(o, "agent", q ? az_jint(q->agent) : json_null());
    json_object_set_new(o, "queue", az_jint(g->queue));
    json_object_set_new(o, "dispatch", az_jidx(g->dispatch));
    json_object_set_new(o, "kernel", az_jstr_or_null(az_kernel_of(az, g->dispatch)));
    json_object_set_new(o, "count", az_jint(g->count));
    json_object_set_new(o, "faulting", json_boolean(az_is_fault(g->reasons)));
    json_object_set_new(o, "stopped", json_boolean(g->stopped));
    json_object_set_new(o, "stop_reasons", az_stop_reasons_json(g->reasons));
    json_object_set_new(o, "pc", az_jhex(g->pc));
    json_object_set_new(o, "symbol", has_sym ? json_string(sym) : json_null());
    json_object_set_new(o, "offset", has_sym ? az_jhex(off) : json_null());
    json_object_set_new(o, "instruction", rc == 0 ? json_string(text) : json_null());
    json_object_set_new(o, "instruction_error", rc == 0 ? json_null() : json_string(text));
    json_object_set_new(o, "waves", waves);
    return o;
}

/* "waves 252-255" / "waves 3, 7, 9" / "wave 4" into buf, at most `max` listed. */
static void wave_list_text(const json_t *waves, char *buf, size_t size, size_t max)
{
    size_t n = json_array_size(waves), len = 0, i = 0, shown = 0;

    if (size)
        buf[0] = '\0';
    gc_str_appendf(buf, size, &len, "%s", n == 1 ? "wave " : "waves ");
    while (i < n) {
        uint64_t first = (uint64_t)json_integer_value(json_array_get(waves, i)), last = first;
        size_t j = i + 1;

        if (shown == max) {
            gc_str_appendf(buf, size, &len, ", ... (%zu more)", n - i);
            return;
        }
        while (j < n && (uint64_t)json_integer_value(json_array_get(waves, j)) == last + 1) {
            last++;
            j++;
        }
        if (last > first)
            gc_str_appendf(buf, size, &len, "%s%" PRIu64 "-%" PRIu64, i ? ", " : "", first, last);
        else
            gc_str_appendf(buf, size, &len, "%s%" PRIu64, i ? ", " : "", first);
        shown++;
        i = j;
    }
}

/* What the core lacks: the manifest's skipped/unreadable GPU ranges, truncation. */
static void not_captured(const struct az *az, json_t *out)
{
    uint32_t idx = 0;
    struct gpucore_note note;
    gpucore_manifest_t *m;
    gpucore_diag_t d;
    struct {
        uint32_t status, reason;
        uint64_t bytes, ranges;
    } sums[16];
    size_t nsums = 0;
    char a[32];

    if (gpucore_core_find_note(az->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, &idx, &note) !=
        GPUCORE_OK) {
        az_jappendf(out, "the core has no gpucore manifest: what was left out is unknown");
        return;
    }
    if (gpucore_manifest_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK) {
        az_jappendf(out, "the manifest cannot be decoded (%s): what was left out is unknown",
                    d.message);
        return;
    }
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];
        size_t k;

        if (e->status == GPUCORE_RANGE_CAPTURED || e->tier == GPUCORE_TIER_HOST)
            continue;
        for (k = 0; k < nsums; k++)
            if (sums[k].status == e->status && sums[k].reason == e->reason)
                break;
        if (k == nsums) {
            if (nsums == sizeof(sums) / sizeof(sums[0]))
                continue;
            sums[k].status = e->status;
            sums[k].reason = e->reason;
            sums[k].bytes = sums[k].ranges = 0;
            nsums++;
        }
        sums[k].bytes += e->size;
        sums[k].ranges++;
    }
    if (m->flags & GPUCORE_MANIFEST_TRUNCATED) {
        const char *r = reason_phrase(m->truncation_reason);

        az_jappendf(out, "the capture was cut short (%s): later memory is missing",
                    r ? r : "unknown reason");
    }
    for (size_t k = 0; k < nsums; k++) {
        const char *st = gpucore_range_status_name(sums[k].status);
        const char *r = reason_phrase(sums[k].reason);

        az_jappendf(out, "%s of GPU memory in %" PRIu64 " ranges %s (%s)",
                    gc_format_size(sums[k].bytes, a, sizeof(a)), sums[k].ranges,
                    st ? st : "not captured", r ? r : "no reason given");
    }
    gpucore_manifest_free(m);
}

static json_t *capture_json(const struct az *az)
{
    uint32_t idx = 0;
    struct gpucore_note note;
    gpucore_capture_meta_t *m;
    gpucore_diag_t d;
    json_t *o;

    if (gpucore_core_find_note(az->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &idx,
                               &note) != GPUCORE_OK ||
        gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK)
        return json_null();
    o = json_object();
    json_object_set_new(o, "producer", az_jstr_or_null(m->producer.ptr));
    json_object_set_new(o, "pid", az_jint(m->pid));
    json_object_set_new(o, "exe", az_jstr_or_null(m->exe.ptr));
    json_object_set_new(o, "trigger", az_jstr_or_null(gpucore_trigger_name(m->trigger)));
    json_object_set_new(o, "tier", az_jstr_or_null(gpucore_tier_name(m->tier)));
    gpucore_capture_meta_free(m);
    return o;
}

/* The first lines: one sentence per fault group, in plain words. */
static void headline(const struct az *az, const json_t *g, json_t *summary)
{
    const struct gc_image_queue *q = gc_image_queue(az->img, (uint32_t)az_jget_u64(g, "queue"));
    const struct gc_arch *arch = q ? az_queue_arch(az, q->index) : NULL;
    uint64_t count = az_jget_u64(g, "count");
    const char *kernel = az_jget_str(g, "kernel");
    const char *sym = az_jget_str(g, "symbol");
    const char *insn = az_jget_str(g, "instruction");
    char reasons[256], where[64], at[GC_IMAGE_NAME_MAX + 48];
    uint32_t mask = az_stop_mask(json_object_get(g, "stop_reasons"));

    az_stop_phrase(mask, reasons, sizeof(reasons));
    if (json_is_integer(json_object_get(g, "dispatch")))
        snprintf(where, sizeof(where), "dispatch %" PRIu64 ", queue %" PRIu64 ", %s",
                 az_jget_u64(g, "dispatch"), az_jget_u64(g, "queue"),
                 arch ? arch->name : "unknown GPU");
    else
        snprintf(where, sizeof(where), "no dispatch, queue %" PRIu64 ", %s",
                 az_jget_u64(g, "queue"), arch ? arch->name : "unknown GPU");
    if (sym)
        snprintf(at, sizeof(at), "%s", sym);
    else
        snprintf(at, sizeof(at), "%s", az_jget_str_or(g, "pc", "?"));
    az_jappendf(summary, "%" PRIu64 " wave%s of %s (%s) stopped by %s at %s: %s", count,
                count == 1 ? "" : "s", kernel ? kernel : "an unknown kernel", where, reasons, at,
                insn ? insn : az_jget_str_or(g, "instruction_error", "?"));
}

json_t *az_build_report(const struct az *az)
{
    json_t *doc = az_doc_new(az, "report"), *summary = json_array(), *agents = json_array();
    json_t *faults = json_array(), *missing = json_array(), *problems = json_array();
    json_t *cos = json_array(), *exc = json_array();
    uint32_t nwaves = gc_image_wave_count(az->img), nstopped = 0, nfaulting = 0;
    size_t i;
    json_t *v;

    json_object_set_new(doc, "capture", capture_json(az));

    for (uint32_t a = 0; a < gc_image_agent_count(az->img); a++) {
        const struct gc_image_agent *ag = gc_image_agent(az->img, a);
        json_t *ja, *queues = json_array();

        if (!ag)
            continue;
        ja = agent_json(az, ag);
        for (uint32_t qi = 0; qi < gc_image_queue_count(az->img); qi++) {
            const struct gc_image_queue *q = gc_image_queue(az->img, qi);
            const char *tn;
            json_t *jq, *disp, *groups;
            struct group *g = NULL;
            size_t ng = 0;

            if (!q || q->agent != a)
                continue;
            tn = gpucore_queue_type_name(q->entry->queue_type);
            jq = json_object();
            json_object_set_new(jq, "index", az_jint(q->index));
            json_object_set_new(jq, "queue_id", az_jint(q->entry->queue_id & 0x3fffffffu));
            json_object_set_new(jq, "type", az_jstr_or_null(tn));
            json_object_set_new(jq, "exceptions", az_exceptions_json(q->entry->exception_status));
            json_object_set_new(jq, "problem", az_jstr_or_null(q->problem));
            json_object_set_new(jq, "waves", az_jint(q->nwaves));
            if (q->entry->exception_status) {
                json_t *e = json_object();

                json_object_set_new(e, "agent", az_jint(a));
                json_object_set_new(e, "queue", az_jint(q->index));
                json_object_set_new(e, "exceptions",
                                    az_exceptions_json(q->entry->exception_status));
                json_array_append_new(exc, e);
            }
            disp = json_array();
            for (uint32_t di = 0; di < q->ndispatches; di++) {
                const struct gc_image_dispatch *dp =
                        gc_image_dispatch(az->img, q->first_dispatch + di);

                if (dp)
                    json_array_append_new(disp, dispatch_json(az, dp));
            }
            json_object_set_new(jq, "dispatches", disp);
            groups = json_array();
            if (group_queue(az, q, &g, &ng) != 0) {
                json_decref(jq);
                json_decref(ja);
                json_decref(queues);
                goto nomem;
            }
            for (size_t k = 0; k < ng; k++) {
                json_t *jg = group_json(az, &g[k]);

                if (g[k].stopped)
                    nstopped += g[k].count;
                if (az_is_fault(g[k].reasons)) {
                    nfaulting += g[k].count;
                    json_array_append(faults, jg);
                }
                json_array_append_new(groups, jg);
            }
            groups_free(g, ng);
            json_object_set_new(jq, "groups", groups);
            json_array_append_new(queues, jq);
        }
        json_object_set_new(ja, "queues", queues);
        json_array_append_new(agents, ja);
    }

    /* Faulting groups of every queue, most waves first. */
    if (json_array_size(faults) > 1) {
        /* stable insertion sort by count, descending (few groups) */
        for (size_t a = 1; a < json_array_size(faults); a++)
            for (size_t b = a; b > 0 && az_jget_u64(json_array_get(faults, b - 1), "count") <
                                                az_jget_u64(json_array_get(faults, b), "count");
                 b--) {
                json_t *x = json_incref(json_array_get(faults, b - 1));

                json_array_remove(faults, b - 1);
                json_array_insert_new(faults, b, x);
            }
    }

    json_array_foreach(faults, i, v)
    {
        if (i == HEADLINES_MAX) {
            az_jappendf(summary, "... and %zu more groups of faulting waves (below)",
                        json_array_size(faults) - i);
            break;
        }
        headline(az, v, summary);
    }
    if (json_array_size(faults) == 0) {
        uint32_t ndisp = gc_image_dispatch_count(az->img);

        if (nwaves == 0)
            az_jappendf(summary,
                        "No GPU waves in the core: %u dispatch%s in flight, none of "
                        "them executing when it was captured",
                        ndisp, ndisp == 1 ? "" : "es");
        else
            az_jappendf(summary,
                        "No wave stopped on an error: %u waves of %u dispatch%s were %s when the "
                        "core was captured (a hang, or a capture on demand)",
                        nwaves, ndisp, ndisp == 1 ? "" : "es",
                        nstopped ? "stopped or running" : "running");
        /* Where they are: each queue's largest group. */
        json_array_foreach(agents, i, v)
        {
            size_t k;
            json_t *q;

            json_array_foreach(json_object_get(v, "queues"), k, q)
            {
                const json_t *g = json_array_get(json_object_get(q, "groups"), 0);

                if (!g)
                    continue;
                az_jappendf(summary,
                            "Queue %" PRIu64 ": %" PRIu64 " of its %" PRIu64
                            " waves (%s) are at %s: %s",
                            az_jget_u64(q, "index"), az_jget_u64(g, "count"),
                            az_jget_u64(q, "waves"), az_jget_str_or(g, "kernel", "unknown kernel"),
                            az_jget_str_or(g, "symbol", az_jget_str_or(g, "pc", "?")),
                            az_jget_str_or(g, "instruction",
                                           az_jget_str_or(g, "instruction_error", "?")));
            }
        }
    }
    json_array_foreach(exc, i, v)
    {
        char names[512] = "";
        size_t len = 0, k;
        json_t *e;

        json_array_foreach(json_object_get(v, "exceptions"), k, e)
        {
            gc_str_appendf(names, sizeof(names), &len, "%s%s", k ? ", " : "", json_string_value(e));
        }
        az_jappendf(summary, "Queue %" PRIu64 " (agent %" PRIu64 ") raised %s",
                    az_jget_u64(v, "queue"), az_jget_u64(v, "agent"), names);
    }
    /* The faulting address the driver reported (QUERY_EXCEPTION_INFO), kept by the capture in
       the GPUCORE capture metadata (format 1.1); cores of other writers do not have it. */
    uint64_t fault = fault_address_of(az->core);
    json_object_set_new(doc, "fault_address", fault ? az_jhex(fault) : json_null());
    if (fault)
        az_jappendf(summary, "Fault address: 0x%" PRIx64, fault);
    else if (nfaulting || json_array_size(exc))
        az_jappendf(summary, "Fault address: not recorded in this core");
    not_captured(az, missing);
    for (uint32_t c = 0; c < gc_image_code_object_count(az->img); c++) {
        const struct gc_image_code_object *co = gc_image_code_object(az->img, c);
        json_t *o;

        if (!co)
            continue;
        o = json_object();
        json_object_set_new(o, "uri", az_jstr_or_null(co->uri));
        json_object_set_new(o, "load_address", az_jhex(co->load_address));
        json_object_set_new(o, "size", az_jint(co->size));
        json_object_set_new(o, "source", az_jstr_or_null(co->source));
        json_array_append_new(cos, o);
        if (co->source && strcmp(co->source, "missing") == 0)
            az_jappendf(missing,
                        "code object %s: its bytes are not in the core (no symbols or "
                        "disassembly for it)",
                        co->uri);
    }
    for (uint32_t p = 0; p < gc_image_problem_count(az->img); p++)
        az_jappendf(problems, "%s", gc_image_problem(az->img, p));
    if (json_array_size(missing))
        az_jappendf(summary, "Not captured: %s%s", json_string_value(json_array_get(missing, 0)),
                    json_array_size(missing) > 1 ? " (and more below)" : "");

    json_object_set_new(doc, "summary", summary);
    json_object_set_new(doc, "waves", az_jint(nwaves));
    json_object_set_new(doc, "stopped_waves", az_jint(nstopped));
    json_object_set_new(doc, "faulting_waves", az_jint(nfaulting));
    json_object_set_new(doc, "faults", faults);
    json_object_set_new(doc, "exceptions", exc);
    json_object_set_new(doc, "agents", agents);
    json_object_set_new(doc, "code_objects", cos);
    json_object_set_new(doc, "not_captured", missing);
    json_object_set_new(doc, "problems", problems);
    return doc;
nomem:
    json_decref(doc);
    json_decref(summary);
    json_decref(agents);
    json_decref(faults);
    json_decref(missing);
    json_decref(problems);
    json_decref(cos);
    json_decref(exc);
    return NULL;
}

static void render_list(FILE *out, const char *title, const json_t *arr)
{
    size_t i;
    json_t *v;

    if (!json_array_size(arr))
        return;
    fprintf(out, "\n%s:\n", title);
    json_array_foreach(arr, i, v) fprintf(out, "  - %s\n", json_string_value(v));
}

static void render_group(FILE *out, const json_t *g)
{
    char waves[256], reasons[256] = "";
    const char *sym = az_jget_str(g, "symbol");
    const char *insn = az_jget_str(g, "instruction");
    size_t i, len = 0;
    json_t *v;

    json_array_foreach(json_object_get(g, "stop_reasons"), i, v)
    {
        gc_str_appendf(reasons, sizeof(reasons), &len, "%s%s", i ? "+" : "", json_string_value(v));
    }
    if (!reasons[0])
        snprintf(reasons, sizeof(reasons), "%s",
                 az_jget_bool(g, "stopped") ? "stopped" : "running");
    wave_list_text(json_object_get(g, "waves"), waves, sizeof(waves), GROUP_WAVES_SHOWN);
    fprintf(out, "      %6" PRIu64 " x %-20s %-18s %s\n", az_jget_u64(g, "count"),
            sym ? sym : az_jget_str_or(g, "pc", "?"), reasons,
            insn ? insn : az_jget_str_or(g, "instruction_error", "?"));
    fprintf(out, "               %s%s%s\n", az_jget_bool(g, "faulting") ? "FAULTING " : "", waves,
            json_is_integer(json_object_get(g, "dispatch")) ? "" : " (no dispatch)");
}

void az_render_report(FILE *out, const json_t *doc)
{
    const json_t *cap = json_object_get(doc, "capture");
    size_t i, k, d;
    json_t *v, *q, *x;

    fprintf(out, "Core: %s", az_jget_str(doc, "core"));
    if (az_jget_str(doc, "host_core"))
        fprintf(out, " + host core %s", az_jget_str(doc, "host_core"));
    if (json_is_object(cap))
        fprintf(out, " (pid %" PRIu64 ", %s, trigger %s, tier %s)", az_jget_u64(cap, "pid"),
                az_jget_str_or(cap, "exe", "?"), az_jget_str_or(cap, "trigger", "?"),
                az_jget_str_or(cap, "tier", "?"));
    fputc('\n', out);
    json_array_foreach(json_object_get(doc, "summary"), i, v)
            fprintf(out, "%s\n", json_string_value(v));

    fprintf(out, "\n%" PRIu64 " waves, %" PRIu64 " stopped, %" PRIu64 " faulting\n",
            az_jget_u64(doc, "waves"), az_jget_u64(doc, "stopped_waves"),
            az_jget_u64(doc, "faulting_waves"));
    json_array_foreach(json_object_get(doc, "agents"), i, v)
    {
        const char *name = az_jget_str(v, "name");

        fprintf(out, "\nAgent %" PRIu64 ": %s%s%s%s, gpu_id %" PRIu64 "%s\n",
                az_jget_u64(v, "index"), az_jget_str_or(v, "target", "unknown target"),
                name ? " (" : "", name ? name : "", name ? ")" : "", az_jget_u64(v, "gpu_id"),
                az_jget_bool(v, "debuggable") ? "" : ", not debuggable (AMD's tools ignore it)");
        json_array_foreach(json_object_get(v, "queues"), k, q)
        {
            const json_t *exc = json_object_get(q, "exceptions");

            fprintf(out, "  Queue %" PRIu64 " (id %" PRIu64 ", %s): %" PRIu64 " waves",
                    az_jget_u64(q, "index"), az_jget_u64(q, "queue_id"),
                    az_jget_str_or(q, "type", "unknown type"), az_jget_u64(q, "waves"));
            if (json_array_size(exc)) {
                fprintf(out, ", exceptions");
                json_array_foreach(exc, d, x)
                        fprintf(out, "%s %s", d ? "," : "", json_string_value(x));
            }
            fputc('\n', out);
            if (az_jget_str(q, "problem"))
                fprintf(out, "    problem: %s\n", az_jget_str(q, "problem"));
            json_array_foreach(json_object_get(q, "dispatches"), d, x)
            {
                const json_t *gr = json_object_get(x, "grid"),
                             *wg = json_object_get(x, "workgroup");

                fprintf(out,
                        "    dispatch %" PRIu64 ": %s, packet %" PRIu64 ", grid %" PRIu64
                        "x%" PRIu64 "x%" PRIu64 ", workgroup %" PRIu64 "x%" PRIu64 "x%" PRIu64
                        ", %" PRIu64 " waves\n",
                        az_jget_u64(x, "index"), az_jget_str_or(x, "kernel", "unknown kernel"),
                        az_jget_u64(x, "packet_id"),
                        (uint64_t)json_integer_value(json_array_get(gr, 0)),
                        (uint64_t)json_integer_value(json_array_get(gr, 1)),
                        (uint64_t)json_integer_value(json_array_get(gr, 2)),
                        (uint64_t)json_integer_value(json_array_get(wg, 0)),
                        (uint64_t)json_integer_value(json_array_get(wg, 1)),
                        (uint64_t)json_integer_value(json_array_get(wg, 2)),
                        az_jget_u64(x, "waves"));
            }
            if (json_array_size(json_object_get(q, "groups"))) {
                fprintf(out, "    waves by PC and stop reason:\n");
                json_array_foreach(json_object_get(q, "groups"), d, x) render_group(out, x);
            }
        }
    }
    json_array_foreach(json_object_get(doc, "code_objects"), i, v)
    {
        if (i == 0)
            fprintf(out, "\nCode objects:\n");
        fprintf(out, "  %s  %s (%s)\n", az_jget_str_or(v, "load_address", "?"),
                az_jget_str_or(v, "uri", "?"), az_jget_str_or(v, "source", "?"));
    }
    render_list(out, "Not captured", json_object_get(doc, "not_captured"));
    render_list(out, "Problems", json_object_get(doc, "problems"));
}
