/* SPDX-License-Identifier: MIT */
/*
 * The triage report (gc_triage_report, triage.h). Per agent and queue the dispatches and the
 * waves grouped by (dispatch, PC, stop reasons), faulting groups first, each PC disassembled;
 * first lines that explain the crash in plain words; what the core lacks. Rendered as text by
 * cli/analyze_render.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "disasm.h"
#include "host_stack.h"
#include "triage_internal.h"
#include "wave.h"

#define HEADLINES_MAX 8u /* fault groups explained in the first lines */

/* The memory-violation address recorded in the GPUCORE capture metadata, 0 if none. */
/* Whether the driver's exception state of the core (any agent or queue) has @p code raised. */
static int driver_has_exception(const struct gc_image *img, uint32_t code)
{
    uint64_t bit = code >= 1 && code <= 64 ? 1ull << (code - 1) : 0;

    for (uint32_t i = 0; i < gc_image_agent_count(img); i++) {
        const struct gc_image_agent *a = gc_image_agent(img, i);

        if (a && a->entry && (a->entry->exception_status & bit))
            return 1;
    }
    for (uint32_t i = 0; i < gc_image_queue_count(img); i++) {
        const struct gc_image_queue *q = gc_image_queue(img, i);

        if (q && q->entry && (q->entry->exception_status & bit))
            return 1;
    }
    return 0;
}

/* What the capture recorded of the error that triggered it (GPUCORE capture metadata, format
   1.1): the fault address and the exception. Zeros when the core has no such note. */
struct capture_error {
    uint64_t fault_va;
    uint32_t code, gpu_id, queue_id;
    uint32_t fault_reasons; /* GPUCORE_FAULT_* (format 1.2), 0 = not recorded */
    uint32_t error_thread;  /* host thread that met the error (format 1.3), 0 = not recorded */
    int precise_memory;     /* GPUCORE_META_PRECISE_MEMORY: PCs are exact */
};

/* The fault reasons in words (gpucore_capture_meta_t::fault_reasons), in bit order. */
static const struct {
    uint32_t bit;
    const char *name, *phrase;
} fault_reason_names[] = {
    { GPUCORE_FAULT_PAGE_NOT_PRESENT, "page_not_present", "page not present" },
    { GPUCORE_FAULT_READ_ONLY, "read_only", "write to a read-only page" },
    { GPUCORE_FAULT_NO_EXECUTE, "no_execute", "execute from a no-execute page" },
    { GPUCORE_FAULT_HOST_ONLY, "host_only", "GPU access to host-only memory" },
    { GPUCORE_FAULT_DRAM_ECC, "dram_ecc", "uncorrectable DRAM ECC error" },
    { GPUCORE_FAULT_IMPRECISE, "imprecise", "imprecise: the address may not be exact" },
    { GPUCORE_FAULT_SRAM_ECC, "sram_ecc", "uncorrectable SRAM ECC error" },
    { GPUCORE_FAULT_HANG, "hang", "GPU hang" },
};

static struct capture_error capture_error_of(gpucore_core_t *core)
{
    struct capture_error e = { 0 };
    struct gpucore_note note;
    gpucore_capture_meta_t *m = NULL;
    uint32_t idx = 0;

    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &idx, &note) !=
        GPUCORE_OK)
        return e;
    if (gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, NULL) == GPUCORE_OK) {
        e.fault_va = m->fault_address;
        e.code = m->exception_code;
        e.gpu_id = m->exception_gpu_id;
        e.queue_id = m->exception_queue_id;
        e.fault_reasons = m->fault_reasons;
        e.error_thread = m->error_thread;
        e.precise_memory = !!(m->flags & GPUCORE_META_PRECISE_MEMORY);
    }
    gpucore_capture_meta_free(m);
    return e;
}

/* Why the manifest left a range out, in words (schema/gpucore_enums.def). */
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
    { GPUCORE_REASON_REDACTED, "user data withheld by --redact" },
};

static const char *reason_phrase(uint32_t reason)
{
    for (size_t i = 0; i < sizeof(reason_phrases) / sizeof(reason_phrases[0]); i++)
        if (reason_phrases[i].reason == reason)
            return reason_phrases[i].phrase;
    return gpucore_reason_name(reason);
}

/* @p v with thousands separators ("10,000"). */
static void group_digits(uint64_t v, char *buf, size_t size)
{
    char raw[24];
    size_t len = 0;
    int n = snprintf(raw, sizeof(raw), "%" PRIu64, v);

    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        gc_str_appendf(buf, size, &len, "%c", raw[i]);
        if (i < n - 1 && (n - 1 - i) % 3 == 0)
            gc_str_appendf(buf, size, &len, ",");
    }
}

/*
 * Waves whose save area the core lacks, in words: "10,000 waves were running; 0 saved: the
 * size budget was exhausted". @p running counts the waves the control stacks in the core list;
 * @p known: every control stack was read (else it is a lower bound, or nothing is known when
 * it is 0). @p reason is a GPUCORE_REASON_* from the manifest, 0 when the core does not say.
 */
static void waves_not_saved(uint64_t running, int known, uint64_t saved, uint32_t reason,
                            int several, char *buf, size_t size)
{
    char r[32], sv[32];
    const char *why = reason ? reason_phrase(reason) : NULL;

    group_digits(running, r, sizeof(r));
    group_digits(saved, sv, sizeof(sv));
    if (!why)
        why = "the save area is not in the core";
    if (several)
        why = "the save areas are missing for several reasons (see the queues)";
    if (known)
        snprintf(buf, size, "%s wave%s running; %s saved: %s", r,
                 running == 1 ? " was" : "s were", sv, why);
    else if (running)
        snprintf(buf, size, "at least %s waves were running; %s saved: %s", r, sv, why);
    else
        snprintf(buf, size, "the number of waves running is unknown; %s saved: %s", sv, why);
}

/* ---------------------------------------------------------------------------------------- */
/* Model pieces                                                                               */
/* ---------------------------------------------------------------------------------------- */

static json_t *agent_json(const struct gc_image_agent *a)
{
    json_t *o = json_object();
    char target[32] = "";

    if (a->arch)
        snprintf(target, sizeof(target), "%s", a->arch->name);
    else if (gpucore_gfx_target_name(a->entry->gfx_target_version, target, sizeof(target)) !=
             GPUCORE_OK)
        target[0] = '\0';
    json_object_set_new(o, GC_TK_INDEX, gc_json_uint(a->index));
    json_object_set_new(o, GC_TK_TARGET, gc_json_str_or_null(target));
    /* The image names an agent by its target when it knows no marketing name. */
    json_object_set_new(o, GC_TK_NAME,
                        strcmp(a->name, target) ? gc_json_str_or_null(a->name) : json_null());
    json_object_set_new(o, GC_TK_GPU_ID, gc_json_uint(a->entry->gpu_id));
    json_object_set_new(o, GC_TK_DEBUGGABLE, json_boolean(a->supports_debugging));
    json_object_set_new(o, GC_TK_EXCEPTIONS, gc_tr_exceptions_json(a->entry->exception_status));
    return o;
}

/* @p nwaves: the waves that run it (counted once for the whole report). */
static json_t *dispatch_json(const struct gc_image_dispatch *dp, uint32_t nwaves,
                             struct gc_tr_args *args)
{
    json_t *o = json_object();
    json_t *grid = json_array(), *wg = json_array();

    for (int i = 0; i < 3; i++) {
        json_array_append_new(grid, gc_json_uint(dp->grid_size[i]));
        json_array_append_new(wg, gc_json_uint(dp->workgroup_size[i]));
    }
    json_object_set_new(o, GC_TK_INDEX, gc_json_uint(dp->index));
    json_object_set_new(o, GC_TK_QUEUE, gc_json_uint(dp->queue));
    json_object_set_new(o, GC_TK_PACKET_ID, gc_json_uint(dp->packet_id));
    gc_tr_set_name(o, GC_TK_KERNEL, GC_TK_KERNEL_DEMANGLED, dp->kernel_name);
    json_object_set_new(o, GC_TK_GRID, grid);
    json_object_set_new(o, GC_TK_WORKGROUP, wg);
    json_object_set_new(o, "private_segment_size", gc_json_uint(dp->private_segment_size));
    json_object_set_new(o, "group_segment_size", gc_json_uint(dp->group_segment_size));
    json_object_set_new(o, "kernel_object", gc_json_hex(dp->kernel_object));
    json_object_set_new(o, "kernarg_address", gc_json_hex(dp->kernarg_address));
    json_object_set_new(o, "kernel_entry",
                        dp->kernel_entry ? gc_json_hex(dp->kernel_entry) : json_null());
    json_object_set_new(o, GC_TK_WAVES, gc_json_uint(nwaves));
    gc_tr_args_json(args, dp, o);
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
    int dispatch_inferred; /* the waves' dispatch is inferred (gc_image_wave) */
    uint32_t count;
    uint32_t first_wave;
    uint32_t *waves; /* count entries */
    uint32_t cap;
};

static int group_rank(const struct group *g)
{
    return gc_tr_is_fault(g->reasons) ? 0 : g->reasons ? 1 : g->stopped ? 2 : 3;
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
    for (size_t i = 0; g && i < n; i++)
        free(g[i].waves);
    gc_free(g);
}

/* A wave of a queue by what groups it: (PC, stop reasons, dispatch, stopped, whether the
   dispatch is inferred), then index. */
struct wave_key {
    uint64_t pc;
    uint32_t reasons, dispatch, stopped, inferred, wave;
};

static int wave_key_cmp(const void *pa, const void *pb)
{
    const struct wave_key *a = pa, *b = pb;

    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    if (a->reasons != b->reasons)
        return a->reasons < b->reasons ? -1 : 1;
    if (a->dispatch != b->dispatch)
        return a->dispatch < b->dispatch ? -1 : 1;
    if (a->stopped != b->stopped)
        return a->stopped < b->stopped ? -1 : 1;
    if (a->inferred != b->inferred)
        return a->inferred < b->inferred ? -1 : 1;
    return a->wave < b->wave ? -1 : a->wave > b->wave;
}

static int same_group(const struct wave_key *a, const struct wave_key *b)
{
    return a->pc == b->pc && a->reasons == b->reasons && a->dispatch == b->dispatch &&
           a->stopped == b->stopped && a->inferred == b->inferred;
}

/* Group the waves of queue q, sorted by what groups them (O(n log n) for a queue whose waves
   stand at as many PCs), each group's waves in index order, the groups in report order
   (group_cmp). Returns 0 or -1 (out of memory). */
static int group_queue(const struct gc_triage *t, const struct gc_image_queue *q,
                       struct group **ret, size_t *ret_n)
{
    struct wave_key *keys = gc_calloc_array((size_t)q->nwaves + 1u, sizeof(*keys));
    struct group *g = NULL;
    size_t n = 0, nk = 0;

    if (!keys)
        return -1;
    for (uint32_t i = 0; i < q->nwaves; i++) {
        const struct gc_image_wave *w = gc_image_wave(t->img, q->first_wave + i);

        if (w)
            keys[nk++] = (struct wave_key){ w->pc,           w->stop_reasons,
                                            w->dispatch,     !!w->stopped,
                                            !!w->dispatch_inferred, w->index };
    }
    qsort(keys, nk, sizeof(*keys), wave_key_cmp);
    for (size_t i = 0; i < nk; i++)
        n += !i || !same_group(&keys[i - 1], &keys[i]);
    g = gc_calloc_array(n + 1u, sizeof(*g));
    if (!g) {
        gc_free(keys);
        return -1;
    }
    for (size_t i = 0, k = 0, j; i < nk; i = j, k++) {
        for (j = i; j < nk && same_group(&keys[i], &keys[j]); j++)
            ;
        g[k].queue = q->index;
        g[k].dispatch = keys[i].dispatch;
        g[k].pc = keys[i].pc;
        g[k].reasons = keys[i].reasons;
        g[k].stopped = (int)keys[i].stopped;
        g[k].dispatch_inferred = (int)keys[i].inferred;
        g[k].first_wave = keys[i].wave;
        g[k].count = g[k].cap = (uint32_t)(j - i);
        g[k].waves = malloc((j - i) * sizeof(*g[k].waves));
        if (!g[k].waves) {
            gc_free(keys);
            groups_free(g, n);
            return -1;
        }
        for (size_t w = i; w < j; w++)
            g[k].waves[w - i] = keys[w].wave;
    }
    gc_free(keys);
    if (n)
        qsort(g, n, sizeof(*g), group_cmp);
    *ret = g;
    *ret_n = n;
    return 0;
}

/* @p precise_memory: the capture had precise memory on, so a PC is exactly the faulting
   instruction and there are no candidates to list. */
static json_t *group_json(const struct gc_triage *t, const struct group *g, int precise_memory)
{
    json_t *o = json_object(), *waves = json_array();
    const struct gc_image_queue *q = gc_image_queue(t->img, g->queue);
    char sym[GC_IMAGE_NAME_MAX + 24];
    char text[GC_TR_INSN_TEXT_MAX];
    uint64_t off = 0;
    /* The group is named by its instruction: a trapped wave's s_trap, not the PC after it. */
    uint64_t ipc = gc_tr_insn_pc(t, gc_tr_queue_arch(t, g->queue), g->pc, g->reasons);
    int has_sym = gc_tr_symbolize(t, ipc, sym, sizeof(sym), &off);
    int rc = gc_tr_insn_at(t, gc_tr_queue_arch(t, g->queue), ipc, text, sizeof(text));

    for (uint32_t i = 0; i < g->count; i++)
        json_array_append_new(waves, gc_json_uint(g->waves[i]));
    json_object_set_new(o, GC_TK_AGENT, q ? gc_json_uint(q->agent) : json_null());
    json_object_set_new(o, GC_TK_QUEUE, gc_json_uint(g->queue));
    json_object_set_new(o, GC_TK_DISPATCH, gc_json_index(g->dispatch));
    json_object_set_new(o, GC_TK_DISPATCH_INFERRED, json_boolean(g->dispatch_inferred));
    gc_tr_set_name(o, GC_TK_KERNEL, GC_TK_KERNEL_DEMANGLED, gc_tr_kernel_of(t, g->dispatch));
    json_object_set_new(o, GC_TK_COUNT, gc_json_uint(g->count));
    json_object_set_new(o, GC_TK_FAULTING, json_boolean(gc_tr_is_fault(g->reasons)));
    json_object_set_new(o, GC_TK_STOPPED, json_boolean(g->stopped));
    json_object_set_new(o, GC_TK_STOP_REASONS, gc_tr_stop_reasons_json(g->reasons));
    json_object_set_new(o, GC_TK_PC, gc_json_hex(g->pc));
    json_object_set_new(o, GC_TK_INSTRUCTION_PC, gc_json_hex(ipc));
    gc_tr_set_name(o, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED, has_sym ? sym : NULL);
    json_object_set_new(o, "offset", has_sym ? gc_json_hex(off) : json_null());
    json_object_set_new(o, GC_TK_INSTRUCTION, rc == 0 ? json_string(text) : json_null());
    json_object_set_new(o, GC_TK_INSTRUCTION_ERROR, rc == 0 ? json_null() : json_string(text));
    gc_tr_source_json(t, ipc, o);
    json_object_set_new(o, GC_TK_WAVES, waves);
    /* A memory violation's PC may be past the instruction that faulted (precise memory off). */
    json_object_set_new(
            o, GC_TK_MEMORY_CANDIDATES,
            (g->reasons & GC_STOP_MEMORY_VIOLATION) && !precise_memory
                    ? gc_tr_memory_candidates_json(t, gc_tr_queue_arch(t, g->queue), g->pc)
                    : json_null());
    return o;
}

/* What the core lacks: the manifest's skipped/unreadable GPU ranges, truncation. */
static void not_captured(const struct gc_triage *t, json_t *out)
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

    if (gpucore_core_find_note(t->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, &idx, &note) !=
        GPUCORE_OK) {
        gc_json_appendf(out, "the core has no gpucore manifest: what was left out is unknown");
        return;
    }
    if (gpucore_manifest_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK) {
        gc_json_appendf(out, "the manifest cannot be decoded (%s): what was left out is unknown",
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

        gc_json_appendf(out, "the capture was cut short (%s): later memory is missing",
                      r ? r : "unknown reason");
    }
    if (m->flags & GPUCORE_MANIFEST_REDACTED)
        gc_json_appendf(out,
                        "the core is redacted (--redact): GPU buffer contents, kernel-argument "
                        "values that are not pointers and host memory other than thread "
                        "stacks are not in it");
    if (m->flags & GPUCORE_MANIFEST_NO_HOST_MEMORY)
        gc_json_appendf(out, "host memory other than thread stacks was left out "
                             "(--no-host-memory)");
    for (size_t k = 0; k < nsums; k++) {
        const char *st = gpucore_range_status_name(sums[k].status);
        const char *r = reason_phrase(sums[k].reason);

        gc_json_appendf(out, "%s of GPU memory in %" PRIu64 " range%s %s (%s)",
                      gc_format_size(sums[k].bytes, a, sizeof(a)), sums[k].ranges,
                      sums[k].ranges == 1 ? "" : "s",
                      st ? st : "not captured", r ? r : "no reason given");
    }
    gpucore_manifest_free(m);
}

static json_t *capture_json(const struct gc_triage *t)
{
    uint32_t idx = 0;
    struct gpucore_note note;
    gpucore_capture_meta_t *m;
    gpucore_diag_t d;
    json_t *o;

    if (gpucore_core_find_note(t->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &idx, &note) !=
                GPUCORE_OK ||
        gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK)
        return json_null();
    o = json_object();
    json_object_set_new(o, "producer", gc_json_str_or_null(m->producer.ptr));
    json_object_set_new(o, GC_TK_PID, gc_json_uint(m->pid));
    json_object_set_new(o, GC_TK_EXE, gc_json_str_or_null(m->exe.ptr));
    json_object_set_new(o, GC_TK_TRIGGER, gc_json_str_or_null(gpucore_trigger_name(m->trigger)));
    json_object_set_new(o, GC_TK_TIER, gc_json_str_or_null(gpucore_tier_name(m->tier)));
    gpucore_capture_meta_free(m);
    return o;
}

/* The first lines: one sentence per fault group, in plain words. */
static void headline(const struct gc_triage *t, const json_t *g, json_t *summary)
{
    const struct gc_image_queue *q =
            gc_image_queue(t->img, (uint32_t)gc_json_get_u64(g, GC_TK_QUEUE));
    const struct gc_arch *arch = q ? gc_tr_queue_arch(t, q->index) : NULL;
    uint64_t count = gc_json_get_u64(g, GC_TK_COUNT);
    const char *kernel =
            gc_tr_shown_name(g, GC_TK_KERNEL, GC_TK_KERNEL_DEMANGLED, "an unknown kernel");
    const char *at = gc_tr_shown_name(
            g, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED,
            gc_json_get_str_or(g, GC_TK_INSTRUCTION_PC, gc_json_get_str_or(g, GC_TK_PC, "?")));
    const char *insn = gc_json_get_str(g, GC_TK_INSTRUCTION);
    char reasons[256], where[64];
    uint32_t mask = gc_tr_stop_mask(json_object_get(g, GC_TK_STOP_REASONS));

    gc_tr_stop_phrase(mask, reasons, sizeof(reasons));
    if (json_is_integer(json_object_get(g, GC_TK_DISPATCH)))
        snprintf(where, sizeof(where), "dispatch %" PRIu64 ", queue %" PRIu64 ", %s",
                 gc_json_get_u64(g, GC_TK_DISPATCH), gc_json_get_u64(g, GC_TK_QUEUE),
                 arch ? arch->name : "unknown GPU");
    else
        snprintf(where, sizeof(where), "no dispatch, queue %" PRIu64 ", %s",
                 gc_json_get_u64(g, GC_TK_QUEUE), arch ? arch->name : "unknown GPU");
    gc_json_appendf(summary, "%" PRIu64 " wave%s of %s (%s) stopped by %s at %s: %s", count,
                    count == 1 ? "" : "s", kernel, where, reasons,
                    at, insn ? insn : gc_json_get_str_or(g, GC_TK_INSTRUCTION_ERROR, "?"));
}

/* The queues of each agent, in queue order: order[first[a] .. first[a + 1]) (a counting sort,
   so a core of many agents and queues costs their sum, not their product). */
struct queues_by_agent {
    uint32_t *first; /* agents + 1 */
    uint32_t *order; /* queues */
};

static int by_agent_index(const struct gc_image *img, struct queues_by_agent *ret)
{
    uint32_t na = gc_image_agent_count(img), nq = gc_image_queue_count(img);

    ret->first = gc_calloc_array((size_t)na + 2u, sizeof(uint32_t));
    ret->order = gc_calloc_array((size_t)nq + 1u, sizeof(uint32_t));
    if (!ret->first || !ret->order)
        return -1;
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t a = gc_image_queue(img, q)->agent;

        if (a < na)
            ret->first[a + 2]++;
    }
    for (uint32_t a = 0; a < na; a++)
        ret->first[a + 2] += ret->first[a + 1];
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t a = gc_image_queue(img, q)->agent;

        if (a < na)
            ret->order[ret->first[a + 1]++] = q;
    }
    return 0;
}

static void by_agent_free(struct queues_by_agent *b)
{
    gc_free(b->first);
    gc_free(b->order);
    b->first = b->order = NULL;
}

/* The report's dispatch JSON (agents[].queues[].dispatches[]) of the leading faulting group,
   or NULL (also when the queue does not list it). */
static const json_t *faulting_dispatch(const json_t *agents, const json_t *faults)
{
    const json_t *g = json_array_get(faults, 0), *a, *q, *d;
    uint64_t queue, dispatch;
    size_t i, j, k;

    if (!g || !json_is_integer(json_object_get(g, GC_TK_DISPATCH)))
        return NULL;
    queue = gc_json_get_u64(g, GC_TK_QUEUE);
    dispatch = gc_json_get_u64(g, GC_TK_DISPATCH);
    json_array_foreach(agents, i, a)
    {
        json_array_foreach(json_object_get(a, GC_TK_QUEUES), j, q)
        {
            if (gc_json_get_u64(q, GC_TK_INDEX) != queue)
                continue;
            json_array_foreach(json_object_get(q, GC_TK_DISPATCHES), k, d)
            {
                if (gc_json_get_u64(d, GC_TK_INDEX) == dispatch)
                    return d;
            }
            return NULL;
        }
    }
    return NULL;
}

/* The report being built: what its parts share. */
struct report {
    const struct gc_triage *t;
    struct gc_tr_args *args;
    uint32_t *dispatch_waves;  /* per image dispatch, the waves that run it */
    gpucore_diag_t over_budget; /* status != OK: a record did not fit the core's budget */
    struct capture_error cerr; /* what the capture recorded of the error and of its mode */
    json_t *doc, *summary, *agents, *faults, *missing, *problems, *cos, *exc;
    uint32_t nwaves, nstopped, nfaulting;
    /* Waves the core lacks because their save areas were cut. */
    struct {
        uint32_t queues, reason;
        int known, several;
        uint64_t running, saved;
    } lost;
    char lost_text[256]; /* the lost waves in words, once lost.queues */
};

/* A queue's save_area_missing member (null when its save area is in the core), counting the
   waves it lost into r->lost. */
static json_t *save_area_missing_json(struct report *r, const struct gc_image_queue *q)
{
    json_t *m;

    if (!q->save_area_lost)
        return json_null();
    m = json_object();
    json_object_set_new(m, "status", gc_json_str_or_null(gpucore_range_status_name(q->lost_status)));
    json_object_set_new(m, "reason",
                        q->lost_reason ? gc_json_str_or_null(gpucore_reason_name(q->lost_reason))
                                       : json_null());
    waves_not_saved(q->running_waves, q->running_known, q->nwaves, q->lost_reason, 0,
                    r->lost_text, sizeof(r->lost_text));
    json_object_set_new(m, GC_TK_TEXT, json_string(r->lost_text));
    if (r->lost.queues && r->lost.reason != q->lost_reason)
        r->lost.several = 1;
    r->lost.reason = q->lost_reason;
    r->lost.queues++;
    r->lost.running += q->running_waves;
    r->lost.saved += q->nwaves;
    r->lost.known &= q->running_known;
    return m;
}

/* Charge @p bytes of the report's records to the core's memory budget: 0, or -1 once one is
   refused (r->over_budget says what needed how much; the report then fails). */
static int charge(struct report *r, uint64_t bytes)
{
    if (r->over_budget.status != GPUCORE_OK)
        return -1;
    if (gpucore_core_mem_reserve(r->t->core, bytes, "the report's records", &r->over_budget) ==
        GPUCORE_OK)
        return 0;
    if (r->over_budget.status == GPUCORE_OK)
        r->over_budget.status = GPUCORE_E_LIMIT;
    return -1;
}

/*
 * Which of the queue's @p ng groups (in report order) are listed, into @p pick (ascending):
 * the first GC_TRIAGE_QUEUE_GROUPS, the last of them replaced by the queue's largest group
 * (the first with the most waves) when it is not among them. Returns how many.
 */
static size_t pick_groups(const struct group *g, size_t ng, size_t *pick)
{
    size_t n = ng < GC_TRIAGE_QUEUE_GROUPS ? ng : GC_TRIAGE_QUEUE_GROUPS, big = 0;

    for (size_t k = 0; k < n; k++)
        pick[k] = k;
    for (size_t k = 1; k < ng; k++)
        if (g[k].count > g[big].count)
            big = k;
    if (n && big >= n)
        pick[n - 1] = big;
    return n;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * The dispatches the queue lists (image indices, ascending, into @p out): its first
 * GC_TRIAGE_QUEUE_DISPATCHES and those the listed groups run. Returns how many.
 */
static size_t pick_dispatches(const struct gc_image_queue *q, const struct group *g,
                              const size_t *pick, size_t npick, uint32_t *out)
{
    size_t n = 0, k;
    uint32_t first = q->ndispatches < GC_TRIAGE_QUEUE_DISPATCHES ? q->ndispatches
                                                                 : GC_TRIAGE_QUEUE_DISPATCHES;

    for (uint32_t i = 0; i < first; i++)
        out[n++] = q->first_dispatch + i;
    for (k = 0; k < npick; k++) {
        uint32_t d = g[pick[k]].dispatch;

        if (d != UINT32_MAX && d >= q->first_dispatch + first &&
            d - q->first_dispatch < q->ndispatches)
            out[n++] = d;
    }
    qsort(out, n, sizeof(*out), u32_cmp);
    for (k = 0; n && k + 1 < n;) { /* several groups of one dispatch: list it once */
        if (out[k] == out[k + 1])
            memmove(&out[k + 1], &out[k + 2], (n - k - 2) * sizeof(*out)), n--;
        else
            k++;
    }
    return n;
}

/* The queue's listed dispatches (r->dispatch_waves counts their waves), charged. 0 or -1. */
static int queue_dispatches(struct report *r, const struct gc_image_queue *q, const uint32_t *list,
                            size_t n, json_t *jq)
{
    json_t *disp = json_array();

    for (size_t i = 0; i < n; i++) {
        const struct gc_image_dispatch *dp = gc_image_dispatch(r->t->img, list[i]);
        json_t *jd;

        if (!dp)
            continue;
        if (charge(r, GC_TRIAGE_JSON_RECORD_COST) != 0) {
            json_decref(disp);
            return -1;
        }
        jd = dispatch_json(dp, r->dispatch_waves[list[i]], r->args);
        json_array_append_new(disp, jd);
        if (charge(r, ((uint64_t)json_array_size(json_object_get(jd, GC_TK_ARGUMENTS)) +
                       json_array_size(json_object_get(json_object_get(jd, GC_TK_PRINTF),
                                                       GC_TK_RECORDS))) *
                              GC_TRIAGE_JSON_RECORD_COST) != 0) {
            json_decref(disp);
            return -1;
        }
    }
    json_object_set_new(jq, GC_TK_DISPATCHES, disp);
    json_object_set_new(jq, GC_TK_DISPATCHES_OMITTED,
                        gc_json_uint(q->dispatch_packets > n ? q->dispatch_packets - n : 0));
    return 0;
}

/* The queue's listed groups (faulting ones also into r->faults), charged. 0 or -1. */
static int queue_groups(struct report *r, const struct group *g, size_t ng, const size_t *pick,
                        size_t npick, json_t *jq)
{
    json_t *groups = json_array();

    for (size_t k = 0; k < npick; k++) {
        const struct group *gk = &g[pick[k]];
        json_t *jg;

        if (charge(r, GC_TRIAGE_JSON_RECORD_COST +
                              (uint64_t)gk->count * GC_TRIAGE_JSON_INDEX_COST) != 0) {
            json_decref(groups);
            return -1;
        }
        jg = group_json(r->t, gk, r->cerr.precise_memory);
        if (gc_tr_is_fault(gk->reasons))
            json_array_append(r->faults, jg);
        json_array_append_new(groups, jg);
    }
    json_object_set_new(jq, GC_TK_GROUPS, groups);
    json_object_set_new(jq, GC_TK_GROUPS_OMITTED, gc_json_uint(ng - npick));
    return 0;
}

/* agents[a].queues[] entry of queue @p q: its dispatches and wave groups, as many as the
   report lists (GC_TRIAGE_QUEUE_*), the rest counted (faulting groups also into r->faults,
   its exceptions into r->exc). NULL if out of memory or over the budget (r->over_budget). */
static json_t *queue_json(struct report *r, uint32_t a, const struct gc_image_queue *q)
{
    const struct gc_triage *t = r->t;
    const char *tn = gpucore_queue_type_name(q->entry->queue_type);
    json_t *jq = json_object();
    struct group *g = NULL;
    size_t ng = 0, npick = 0, nd = 0;
    size_t pick[GC_TRIAGE_QUEUE_GROUPS];
    uint32_t list[GC_TRIAGE_QUEUE_DISPATCHES + GC_TRIAGE_QUEUE_GROUPS];
    int rc;

    json_object_set_new(jq, GC_TK_INDEX, gc_json_uint(q->index));
    json_object_set_new(jq, GC_TK_QUEUE_ID, gc_json_uint(q->entry->queue_id & GPUCORE_KFD_QUEUE_ID_MASK));
    json_object_set_new(jq, GC_TK_TYPE, gc_json_str_or_null(tn));
    json_object_set_new(jq, GC_TK_EXCEPTIONS, gc_tr_exceptions_json(q->entry->exception_status));
    json_object_set_new(jq, GC_TK_PROBLEM, gc_json_str_or_null(q->problem));
    json_object_set_new(jq, GC_TK_WAVES, gc_json_uint(q->nwaves));
    /* Waves the control stacks list, and why those not saved are not in the core. */
    json_object_set_new(jq, "waves_running",
                        q->running_known ? gc_json_uint(q->running_waves) : json_null());
    json_object_set_new(jq, GC_TK_SAVE_AREA_MISSING, save_area_missing_json(r, q));
    if (q->entry->exception_status) {
        json_t *e = json_object();

        json_object_set_new(e, GC_TK_AGENT, gc_json_uint(a));
        json_object_set_new(e, GC_TK_QUEUE, gc_json_uint(q->index));
        json_object_set_new(e, GC_TK_EXCEPTIONS,
                            gc_tr_exceptions_json(q->entry->exception_status));
        json_array_append_new(r->exc, e);
    }
    if (group_queue(t, q, &g, &ng) != 0) {
        json_decref(jq);
        return NULL;
    }
    for (size_t k = 0; k < ng; k++) { /* every wave counts, listed or not */
        if (g[k].stopped)
            r->nstopped += g[k].count;
        if (gc_tr_is_fault(g[k].reasons))
            r->nfaulting += g[k].count;
    }
    npick = pick_groups(g, ng, pick);
    nd = pick_dispatches(q, g, pick, npick, list);
    rc = queue_dispatches(r, q, list, nd, jq);
    if (rc == 0)
        rc = queue_groups(r, g, ng, pick, npick, jq);
    groups_free(g, ng);
    if (rc != 0) {
        json_decref(jq);
        return NULL;
    }
    return jq;
}

/* r->agents: per agent its queues, in the image's agent order. 0, or -1 if out of memory. */
static int agents_json(struct report *r, const struct queues_by_agent *by_agent)
{
    const struct gc_triage *t = r->t;

    for (uint32_t a = 0; a < gc_image_agent_count(t->img); a++) {
        const struct gc_image_agent *ag = gc_image_agent(t->img, a);
        json_t *ja, *queues = json_array();

        if (!ag)
            continue;
        ja = agent_json(ag);
        for (uint32_t qk = by_agent->first[a]; qk < by_agent->first[a + 1]; qk++) {
            const struct gc_image_queue *q = gc_image_queue(t->img, by_agent->order[qk]);
            json_t *jq;

            if (!q || q->agent != a)
                continue;
            jq = queue_json(r, a, q);
            if (!jq) {
                json_decref(ja);
                json_decref(queues);
                return -1;
            }
            json_array_append_new(queues, jq);
        }
        json_object_set_new(ja, GC_TK_QUEUES, queues);
        json_array_append_new(r->agents, ja);
    }
    return 0;
}

/* A faulting group and its place, for sort_faults(). */
struct fault_ref {
    json_t *g;
    uint64_t count;
    size_t at;
};

static int fault_ref_cmp(const void *pa, const void *pb)
{
    const struct fault_ref *a = pa, *b = pb;

    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Faulting groups of every queue, most waves first, in queue order among equals (a stable
   sort, O(n log n)). 0, or -1 if out of memory. */
static int sort_faults(json_t *faults)
{
    size_t n = json_array_size(faults);
    struct fault_ref *v = gc_calloc_array(n + 1u, sizeof(*v));

    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        v[i].g = json_incref(json_array_get(faults, i));
        v[i].count = gc_json_get_u64(v[i].g, GC_TK_COUNT);
        v[i].at = i;
    }
    qsort(v, n, sizeof(*v), fault_ref_cmp);
    json_array_clear(faults);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(faults, v[i].g);
    gc_free(v);
    return 0;
}

static void lost_line(struct report *r)
{
    gc_json_appendf(r->summary, "Not all waves saved: %s (the save area%s of %u queue%s)",
                    r->lost_text, r->lost.queues == 1 ? "" : "s", r->lost.queues,
                    r->lost.queues == 1 ? "" : "s");
}

/* No wave faulted: say what the waves were doing, and where (each queue's largest group).
   Returns whether it said that not all waves were saved. */
static int no_fault_lines(struct report *r)
{
    const uint32_t nwaves = r->nwaves;
    uint64_t ndisp = 0; /* every active kernel dispatch, kept by the image or not */
    int lost_said = 0;
    size_t i;
    json_t *v;

    for (uint32_t q = 0; q < gc_image_queue_count(r->t->img); q++)
        ndisp += gc_image_queue(r->t->img, q)->dispatch_packets;
    if (nwaves == 0 && r->lost.queues)
        gc_json_appendf(r->summary, "No GPU waves in the core: %s (the save area%s of %u queue%s)",
                        r->lost_text, r->lost.queues == 1 ? "" : "s", r->lost.queues,
                        r->lost.queues == 1 ? "" : "s");
    else if (nwaves == 0)
        gc_json_appendf(r->summary,
                        "No GPU waves in the core: %" PRIu64 " dispatch%s in flight, none of "
                        "them executing when it was captured",
                        ndisp, ndisp == 1 ? "" : "es");
    else
        gc_json_appendf(r->summary,
                        "No %swave stopped on an error: %u %swaves of %" PRIu64 " dispatch%s were %s "
                        "when the core was captured (a hang, or a capture on demand)",
                        r->lost.queues ? "saved " : "", nwaves, r->lost.queues ? "saved " : "",
                        ndisp, ndisp == 1 ? "" : "es",
                        r->nstopped ? "stopped or running" : "running");
    /* Waves the core lacks qualify that at once: one of them may have faulted. */
    if (nwaves && r->lost.queues) {
        lost_line(r);
        lost_said = 1;
    }
    /* Where they are: each queue's largest group. */
    json_array_foreach(r->agents, i, v)
    {
        size_t k;
        json_t *q;

        json_array_foreach(json_object_get(v, GC_TK_QUEUES), k, q)
        {
            const json_t *g = json_array_get(json_object_get(q, GC_TK_GROUPS), 0);

            if (!g)
                continue;
            gc_json_appendf(
                    r->summary,
                    "Queue %" PRIu64 ": %" PRIu64 " of its %" PRIu64 " wave%s (%s) %s at %s: %s",
                    gc_json_get_u64(q, GC_TK_INDEX), gc_json_get_u64(g, GC_TK_COUNT),
                    gc_json_get_u64(q, GC_TK_WAVES),
                    gc_json_get_u64(q, GC_TK_WAVES) == 1 ? "" : "s",
                    gc_tr_shown_name(g, GC_TK_KERNEL, GC_TK_KERNEL_DEMANGLED, "unknown kernel"),
                    gc_json_get_u64(g, GC_TK_COUNT) == 1 ? "is" : "are",
                    gc_tr_shown_name(g, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED,
                                     gc_json_get_str_or(g, GC_TK_INSTRUCTION_PC, "?")),
                    gc_json_get_str_or(g, GC_TK_INSTRUCTION,
                                       gc_json_get_str_or(g, GC_TK_INSTRUCTION_ERROR, "?")));
        }
    }
    return lost_said;
}

/* Per queue whose waves' dispatch was inferred (image.h, dispatch_inferred), a line saying so
   and why: the report must not present a guess as the hardware's word. */
static void inferred_lines(struct report *r)
{
    const struct gc_image *img = r->t->img;

    for (uint32_t q = 0; q < gc_image_queue_count(img); q++) {
        const struct gc_image_queue *iq = gc_image_queue(img, q);
        uint32_t n = 0, dispatch = UINT32_MAX;

        for (uint32_t i = 0; i < iq->nwaves; i++) {
            const struct gc_image_wave *w = gc_image_wave(img, iq->first_wave + i);

            if (w && w->dispatch_inferred) {
                n++;
                dispatch = w->dispatch;
            }
        }
        if (n)
            gc_json_appendf(r->summary,
                            "Queue %u: dispatch %u inferred for %u wave%s: their trap "
                            "temporaries name none (ROCr sets them up only with "
                            "HSA_ENABLE_DEBUG=1); it is the queue's only active dispatch and "
                            "its kernel's code holds their PCs",
                            q, dispatch, n, n == 1 ? "" : "s");
    }
}

/* The summary's lines about the waves: the faulting groups (or what the waves were doing),
   the waves not saved, the queues' exceptions. */
static void wave_lines(struct report *r)
{
    int lost_said = 0;
    size_t i;
    json_t *v;

    json_array_foreach(r->faults, i, v)
    {
        if (i == HEADLINES_MAX) {
            gc_json_appendf(r->summary, "... and %zu more groups of faulting waves (below)",
                            json_array_size(r->faults) - i);
            break;
        }
        headline(r->t, v, r->summary);
    }
    if (json_array_size(r->faults) == 0)
        lost_said = no_fault_lines(r);
    inferred_lines(r);
    if (r->lost.queues && !lost_said && (r->nwaves || json_array_size(r->faults)))
        lost_line(r);
    json_array_foreach(r->exc, i, v)
    {
        char names[512] = "";
        size_t len = 0, k;
        json_t *e;

        json_array_foreach(json_object_get(v, GC_TK_EXCEPTIONS), k, e)
        {
            gc_str_appendf(names, sizeof(names), &len, "%s%s", k ? ", " : "", json_string_value(e));
        }
        gc_json_appendf(r->summary, "Queue %" PRIu64 " (agent %" PRIu64 ") raised %s",
                        gc_json_get_u64(v, GC_TK_QUEUE), gc_json_get_u64(v, GC_TK_AGENT), names);
    }
}

/* capture_exception: a capture that began after the runtime had the error (the HSA_TOOLS_LIB
   hook): the driver records exceptions only for a process being debugged when they happen,
   so the AMDGPU state has none; the capture metadata still names the error. */
static void capture_exception(struct report *r)
{
    const struct capture_error *cerr = &r->cerr;
    const char *name;
    json_t *ce;

    if (!cerr->code || json_array_size(r->exc) || driver_has_exception(r->t->img, cerr->code)) {
        json_object_set_new(r->doc, GC_TK_CAPTURE_EXCEPTION, json_null());
        return;
    }
    name = gc_triage_exception_name(cerr->code);
    ce = json_object();
    json_object_set_new(ce, "exception",
                        name ? json_string(name) : json_sprintf("EC_%u", cerr->code));
    json_object_set_new(ce, GC_TK_GPU_ID, cerr->gpu_id ? gc_json_hex(cerr->gpu_id) : json_null());
    json_object_set_new(ce, GC_TK_QUEUE_ID,
                        cerr->queue_id != UINT32_MAX && cerr->gpu_id ? gc_json_uint(cerr->queue_id)
                                                                     : json_null());
    json_object_set_new(r->doc, GC_TK_CAPTURE_EXCEPTION, ce);
    gc_json_appendf(r->summary,
                    "The capture was triggered by %s%s, reported before debugging was enabled "
                    "(the driver's exception state in this core does not hold it)",
                    name ? name : "an exception", cerr->gpu_id ? "" : " (device not known)");
}

/* fault_address, fault_reasons and fault_relation, and their summary lines: the faulting
   address the driver reported (QUERY_EXCEPTION_INFO), kept by the capture in the GPUCORE
   capture metadata (format 1.1); cores of other writers do not have it. Then the memory
   instructions the leading faulting group's PC may be past. */
static void fault_lines(struct report *r)
{
    const uint64_t fault = r->cerr.fault_va;
    const uint32_t fault_reasons = r->cerr.fault_reasons;
    json_t *reasons = fault_reasons ? json_array() : json_null(), *relation;
    const json_t *cands;
    char why[256] = "";
    size_t wlen = 0;

    json_object_set_new(r->doc, "fault_address", fault ? gc_json_hex(fault) : json_null());
    for (size_t k = 0; k < GC_ARRAY_SIZE(fault_reason_names) && fault_reasons; k++) {
        if (!(fault_reasons & fault_reason_names[k].bit))
            continue;
        json_array_append_new(reasons, json_string(fault_reason_names[k].name));
        gc_str_appendf(why, sizeof(why), &wlen, "%s%s", wlen ? ", " : " (",
                       fault_reason_names[k].phrase);
    }
    if (wlen)
        gc_str_appendf(why, sizeof(why), &wlen, ")");
    json_object_set_new(r->doc, "fault_reasons", reasons);
    relation = fault ? gc_tr_fault_relation_json(r->args, r->t, fault,
                                                 faulting_dispatch(r->agents, r->faults))
                     : json_null();
    json_object_set_new(r->doc, "fault_relation", relation);
    if (fault)
        gc_json_appendf(r->summary, "Fault address: 0x%" PRIx64 "%s: %s", fault, why,
                        json_string_value(json_object_get(relation, GC_TK_TEXT)));
    else if (r->nfaulting || json_array_size(r->exc))
        gc_json_appendf(r->summary, "Fault address: not recorded in this core");
    cands = json_object_get(json_array_get(r->faults, 0), GC_TK_MEMORY_CANDIDATES);
    if (json_array_size(cands)) {
        char list[640] = "";
        size_t clen = 0, ci;
        const json_t *c;

        json_array_foreach(cands, ci, c)
        {
            gc_str_appendf(
                    list, sizeof(list), &clen, "%s%s (%s)", ci ? ", " : "",
                    gc_tr_shown_name(c, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED,
                                     gc_json_get_str_or(c, GC_TK_PC, "?")),
                    gc_json_get_str_or(c, GC_TK_INSTRUCTION, "?"));
        }
        gc_json_appendf(r->summary,
                        "Precise memory is off: the PC may be past the faulting instruction; "
                        "memory instructions since the last wait: %s",
                        list);
    }
}

/* r->cos (the code objects), r->missing (what the core lacks) and r->problems, and the
   summary's "Not captured" line. */
static void code_object_lines(struct report *r)
{
    const struct gc_triage *t = r->t;

    not_captured(t, r->missing);
    for (uint32_t c = 0; c < gc_image_code_object_count(t->img); c++) {
        const struct gc_image_code_object *co = gc_image_code_object(t->img, c);
        json_t *o;
        int lines;

        if (!co)
            continue;
        o = json_object();
        json_object_set_new(o, GC_TK_URI, gc_json_str_or_null(co->uri));
        json_object_set_new(o, GC_TK_LOAD_ADDRESS, gc_json_hex(co->load_address));
        json_object_set_new(o, GC_TK_SIZE, gc_json_uint(co->size));
        json_object_set_new(o, GC_TK_SOURCE, gc_json_str_or_null(co->source));
        /* Whether its DWARF gives PCs lines (null: no bytes to tell), said once per object. */
        lines = gc_tr_co_lines(t, c);
        json_object_set_new(o, "line_info", lines < 0 ? json_null() : json_boolean(lines));
        if (lines == 0 || (lines < 0 && t->lines->co[c].why)) {
            char note[GC_IMAGE_NAME_MAX + 1100];

            if (lines == 0)
                snprintf(note, sizeof(note), "no line information in code object %u (%s)", c,
                         co->uri);
            else
                snprintf(note, sizeof(note),
                         "line information of code object %u (%s) not used: %s", c, co->uri,
                         t->lines->co[c].why);
            json_object_set_new(o, GC_TK_LINE_INFO_TEXT, json_string(note));
        } else {
            json_object_set_new(o, GC_TK_LINE_INFO_TEXT, json_null());
        }
        json_array_append_new(r->cos, o);
        if (co->source && strcmp(co->source, "missing") == 0)
            gc_json_appendf(r->missing,
                            "code object %s: its bytes are not in the core (no symbols or "
                            "disassembly for it)",
                            co->uri);
    }
    for (uint32_t p = 0; p < gc_image_problem_count(t->img); p++)
        gc_json_appendf(r->problems, "%s", gc_image_problem(t->img, p));
    if (json_array_size(r->missing))
        gc_json_appendf(r->summary, "Not captured: %s%s",
                        json_string_value(json_array_get(r->missing, 0)),
                        json_array_size(r->missing) > 1 ? " (and more below)" : "");
}

/* Per image dispatch, the waves that run it: one pass over the waves, not one per dispatch. */
static uint32_t *count_dispatch_waves(const struct gc_image *img)
{
    uint32_t nd = gc_image_dispatch_count(img);
    uint32_t *n = gc_calloc_array((size_t)nd + 1u, sizeof(*n));

    for (uint32_t i = 0; n && i < gc_image_wave_count(img); i++) {
        const struct gc_image_wave *w = gc_image_wave(img, i);

        if (w->dispatch < nd)
            n[w->dispatch]++;
    }
    return n;
}

static void report_free(struct report *r)
{
    gc_free(r->dispatch_waves);
    gc_tr_args_free(r->args);
    json_decref(r->doc);
    json_decref(r->summary);
    json_decref(r->agents);
    json_decref(r->faults);
    json_decref(r->missing);
    json_decref(r->problems);
    json_decref(r->cos);
    json_decref(r->exc);
}

json_t *gc_triage_report(const struct gc_triage *t, struct gc_triage_error *reterr)
{
    struct queues_by_agent by_agent = { 0 };
    struct report r = { .t = t,
                        .args = gc_tr_args_new(t),
                        .cerr = capture_error_of(t->core),
                        .doc = gc_tr_doc_new(t, "report"),
                        .summary = json_array(),
                        .agents = json_array(),
                        .faults = json_array(),
                        .missing = json_array(),
                        .problems = json_array(),
                        .cos = json_array(),
                        .exc = json_array(),
                        .dispatch_waves = count_dispatch_waves(t->img),
                        .nwaves = gc_image_wave_count(t->img),
                        .lost = { .known = 1 } };
    json_t *doc = r.doc, *sig, *host;

    if (!doc || !r.args || !r.dispatch_waves || by_agent_index(t->img, &by_agent) != 0)
        goto nomem;
    json_object_set_new(doc, GC_TK_CAPTURE, capture_json(t));
    if (agents_json(&r, &by_agent) != 0)
        goto nomem;
    by_agent_free(&by_agent);
    gc_free(r.dispatch_waves);
    r.dispatch_waves = NULL;

    /* Waves the core lacks because their save areas were cut: said in the summary. */
    json_object_set_new(doc, "waves_running",
                        !r.lost.queues ? gc_json_uint(r.nwaves)
                        : r.lost.known ? gc_json_uint(r.lost.running + r.nwaves - r.lost.saved)
                                       : json_null());
    if (r.lost.queues)
        waves_not_saved(r.lost.running, r.lost.known, r.lost.saved, r.lost.reason,
                        r.lost.several, r.lost_text, sizeof(r.lost_text));
    if (sort_faults(r.faults) != 0)
        goto nomem;
    wave_lines(&r);
    capture_exception(&r);
    fault_lines(&r);
    code_object_lines(&r);

    sig = gc_tr_signature_json(t, r.faults, r.agents);
    if (json_is_object(sig))
        gc_json_appendf(r.summary, "Signature: %s (%s)",
                        json_string_value(json_object_get(sig, GC_TK_HASH)),
                        json_string_value(json_object_get(sig, GC_TK_TEXT)));
    json_object_set_new(doc, "signature", sig);
    json_object_set_new(doc, GC_TK_SUMMARY, r.summary);
    json_object_set_new(doc, GC_TK_WAVES, gc_json_uint(r.nwaves));
    json_object_set_new(doc, GC_TK_STOPPED_WAVES, gc_json_uint(r.nstopped));
    json_object_set_new(doc, GC_TK_FAULTING_WAVES, gc_json_uint(r.nfaulting));
    json_object_set_new(doc, GC_TK_FAULTS, r.faults);
    json_object_set_new(doc, GC_TK_EXCEPTIONS, r.exc);
    json_object_set_new(doc, GC_TK_AGENTS, r.agents);
    json_object_set_new(doc, GC_TK_CODE_OBJECTS, r.cos);
    json_object_set_new(doc, GC_TK_NOT_CAPTURED, r.missing);
    json_object_set_new(doc, GC_TK_PROBLEMS, r.problems);
    host = gc_host_stacks_json(t->host ? t->host : t->core, t->sysroot, r.cerr.error_thread);
    gc_tr_args_free(r.args);
    if (!host) {
        json_decref(doc);
        return gc_tr_out_of_memory(reterr);
    }
    json_object_set_new(doc, GC_TK_HOST, host);
    return doc;
nomem:
    by_agent_free(&by_agent);
    report_free(&r);
    if (r.over_budget.status != GPUCORE_OK)
        return gc_tr_fail_diag(reterr, &r.over_budget);
    return gc_tr_out_of_memory(reterr);
}
