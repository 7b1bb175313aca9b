/* SPDX-License-Identifier: MIT */
/*
 * The model of `gpucore info` (info_model.h): one JSON document built from the core's ELF
 * header, notes and segments. No printing: cli/cmd_info.c renders it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "gc_json.h"
#include "gc_util.h"
#include "info_model.h"
#include "triage.h" /* gc_triage_exception_name */

/* ---------------------------------------------------------------------------------------- */
/* Field tables: how each KFD structure field is presented                                   */
/* ---------------------------------------------------------------------------------------- */

enum field_fmt {
    FMT_DEC, /* JSON integer */
    FMT_HEX, /* JSON "0x..." string */
};

struct field_view {
    const char *name;
    size_t offset;
    unsigned width;
    enum field_fmt fmt;
};

#define DEV_FIELD(name, fmt)                                                                       \
    { #name, offsetof(gpucore_kfd_device_entry_t, name),                                          \
      sizeof(((gpucore_kfd_device_entry_t *)0)->name), fmt }
static const struct field_view device_fields[] = {
    DEV_FIELD(gpu_id, FMT_DEC),
    DEV_FIELD(gfx_target_version, FMT_DEC),
    DEV_FIELD(vendor_id, FMT_HEX),
    DEV_FIELD(device_id, FMT_HEX),
    DEV_FIELD(revision_id, FMT_HEX),
    DEV_FIELD(subsystem_vendor_id, FMT_HEX),
    DEV_FIELD(subsystem_device_id, FMT_HEX),
    DEV_FIELD(location_id, FMT_HEX),
    DEV_FIELD(fw_version, FMT_DEC),
    DEV_FIELD(simd_count, FMT_DEC),
    DEV_FIELD(max_waves_per_simd, FMT_DEC),
    DEV_FIELD(array_count, FMT_DEC),
    DEV_FIELD(simd_arrays_per_engine, FMT_DEC),
    DEV_FIELD(num_xcc, FMT_DEC),
    DEV_FIELD(capability, FMT_HEX),
    DEV_FIELD(capability2, FMT_HEX),
    DEV_FIELD(debug_prop, FMT_HEX),
    DEV_FIELD(exception_status, FMT_HEX),
    DEV_FIELD(lds_base, FMT_HEX),
    DEV_FIELD(lds_limit, FMT_HEX),
    DEV_FIELD(scratch_base, FMT_HEX),
    DEV_FIELD(scratch_limit, FMT_HEX),
    DEV_FIELD(gpuvm_base, FMT_HEX),
    DEV_FIELD(gpuvm_limit, FMT_HEX),
};

#define QUEUE_FIELD(name, fmt)                                                                     \
    { #name, offsetof(gpucore_kfd_queue_entry_t, name),                                           \
      sizeof(((gpucore_kfd_queue_entry_t *)0)->name), fmt }
static const struct field_view queue_fields[] = {
    QUEUE_FIELD(queue_id, FMT_DEC),
    QUEUE_FIELD(gpu_id, FMT_DEC),
    QUEUE_FIELD(queue_type, FMT_DEC),
    QUEUE_FIELD(ring_base_address, FMT_HEX),
    QUEUE_FIELD(ring_size, FMT_DEC),
    QUEUE_FIELD(read_pointer_address, FMT_HEX),
    QUEUE_FIELD(write_pointer_address, FMT_HEX),
    QUEUE_FIELD(ctx_save_restore_address, FMT_HEX),
    QUEUE_FIELD(ctx_save_restore_area_size, FMT_DEC),
    QUEUE_FIELD(exception_status, FMT_HEX),
    QUEUE_FIELD(reserved, FMT_DEC),
};

static json_t *fields_to_json(const void *base, const struct field_view *fields, size_t n)
{
    json_t *obj = json_object();

    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)base + fields[i].offset;
        uint64_t v = 0;

        if (fields[i].width == 8)
            memcpy(&v, p, 8); /* host struct member, not wire data */
        else {
            uint32_t v32;

            memcpy(&v32, p, 4);
            v = v32;
        }
        json_object_set_new(obj, fields[i].name,
                            fields[i].fmt == FMT_HEX ? gc_json_hex(v) : gc_json_uint(v));
    }
    return obj;
}

/*
 * Names of the single-bit flags set in a word, from the schema's tables (multi-bit fields such
 * as the watchpoint count are reported as their own values instead).
 */
static json_t *flags_to_json(uint32_t word, const char *(*flag)(uint32_t, uint32_t *))
{
    json_t *arr = json_array();
    uint32_t mask;
    const char *name;

    for (uint32_t i = 0; (name = flag(i, &mask)) != NULL; i++)
        if ((mask & (mask - 1)) == 0 && (word & mask))
            json_array_append_new(arr, json_string(name));
    return arr;
}

/* Names of notes other tools write, so `info` can label every note of a unified core. */
static const struct {
    const char *owner;
    uint32_t type;
    const char *name;
} known_notes[] = {
    { "CORE", 1, "NT_PRSTATUS" },
    { "CORE", 2, "NT_FPREGSET" },
    { "CORE", 3, "NT_PRPSINFO" },
    { "CORE", 4, "NT_TASKSTRUCT" },
    { "CORE", 6, "NT_AUXV" },
    { "CORE", 0x53494749, "NT_SIGINFO" },
    { "CORE", 0x46494c45, "NT_FILE" },
    { "LINUX", 0x200, "NT_386_TLS" },
    { "LINUX", 0x202, "NT_X86_XSTATE" },
    { "LINUX", 0x204, "NT_X86_SHSTK" },
    { "AMDGPU", 32, "NT_AMDGPU_METADATA" },
    { "AMDGPU", GPUCORE_NT_AMDGPU_KFD_CORE_STATE, "NT_AMDGPU_KFD_CORE_STATE" },
};

static const char *note_name(const char *owner, uint32_t type)
{
    if (strcmp(owner, GPUCORE_NOTE_OWNER) == 0)
        return gpucore_note_type_name(type);
    for (size_t i = 0; i < sizeof(known_notes) / sizeof(known_notes[0]); i++)
        if (known_notes[i].type == type && strcmp(known_notes[i].owner, owner) == 0)
            return known_notes[i].name;
    return NULL;
}

static const struct {
    uint32_t machine;
    const char *name;
} machines[] = {
    { 3, "i386" }, { 62, "x86-64" }, { 183, "AArch64" }, { 243, "RISC-V" }, { 224, "AMDGPU" },
};

static const char *machine_name(uint32_t m)
{
    for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
        if (machines[i].machine == m)
            return machines[i].name;
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Building the model                                                                         */
/* ---------------------------------------------------------------------------------------- */

struct info_ctx {
    gpucore_core_t *core;
    const char *path;
    json_t *problems; /* array of strings: things a user should know */
    char *unusable;   /* gc_info.unusable: why the AMDGPU state cannot be used */
    size_t unusable_size;
    gpucore_diag_t over_budget; /* status != OK: the model did not fit the reader's budget */
};

static void problem(struct info_ctx *ctx, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void problem(struct info_ctx *ctx, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(ctx->problems, json_string(buf));
}

/* Charge @p bytes for @p what to the core's budget; 0, or -1 after recording the first failure
 * (every later charge fails too, and gc_info_build() returns it). */
static int charge(struct info_ctx *ctx, uint64_t bytes, const char *what)
{
    gpucore_diag_t d;

    if (ctx->over_budget.status != GPUCORE_OK)
        return -1;
    if (gpucore_core_mem_reserve(ctx->core, bytes, what, &d) != GPUCORE_OK) {
        ctx->over_budget = d;
        return -1;
    }
    return 0;
}

/* Charge a note about to be decoded into @p count-ish records (count known after decoding is
   charged by the caller). */
static int charge_note(struct info_ctx *ctx, const struct gpucore_note *note, const char *what)
{
    return charge(ctx, GPUCORE_NOTE_DECODED_MAX(note->desc_size), what);
}

static json_t *diag_to_json(const gpucore_diag_t *d)
{
    json_t *o = json_object();

    json_object_set_new(o, "status", json_string(gpucore_status_name(d->status)));
    json_object_set_new(o, GC_IK_MESSAGE, json_string(d->message));
    json_object_set_new(o, GC_IK_OFFSET,
                        (d->flags & GPUCORE_DIAG_HAS_OFFSET) ? gc_json_uint(d->offset)
                                                             : json_null());
    return o;
}

/* file.kind (GC_INFO_KIND_*): the ELF header says split or host; a host core is unified only
   when it holds the AMDGPU core-state note. */
static const char *core_kind(struct info_ctx *ctx, const struct gpucore_core_info *fi)
{
    struct gpucore_note note;
    uint32_t idx = 0;

    if (fi->kind == GPUCORE_CORE_SPLIT)
        return GC_INFO_KIND_SPLIT;
    return gpucore_core_find_note(ctx->core, GPUCORE_AMDGPU_NOTE_OWNER,
                                  GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &idx, &note) == GPUCORE_OK
                   ? GC_INFO_KIND_UNIFIED
                   : GC_INFO_KIND_HOST;
}

static json_t *build_file(struct info_ctx *ctx, const struct gpucore_core_info *fi)
{
    json_t *o = json_object();
    json_t *quirks = json_array();
    const char *mname = machine_name(fi->e_machine);

    json_object_set_new(o, GC_IK_PATH, json_string(ctx->path));
    json_object_set_new(o, GC_IK_KIND, json_string(core_kind(ctx, fi)));
    json_object_set_new(o, GC_IK_E_MACHINE, gc_json_uint(fi->e_machine));
    json_object_set_new(o, GC_IK_MACHINE, mname ? json_string(mname) : json_null());
    json_object_set_new(o, "osabi", gc_json_uint(fi->osabi));
    json_object_set_new(o, "abiversion", gc_json_uint(fi->abiversion));
    json_object_set_new(o, "e_flags", gc_json_hex(fi->e_flags));
    json_object_set_new(o, GC_IK_COMPRESSED, json_boolean(fi->flags & GPUCORE_INFO_COMPRESSED));
    json_object_set_new(o, GC_IK_FRAMES, gc_json_uint(fi->frame_count));
    json_object_set_new(o, GC_IK_FILE_TRUNCATED,
                        json_boolean(fi->flags & GPUCORE_INFO_FILE_TRUNCATED));
    json_object_set_new(o, GC_IK_FILE_SIZE, gc_json_uint(fi->file_size));
    json_object_set_new(o, GC_IK_LOGICAL_SIZE, gc_json_uint(fi->logical_size));
    json_object_set_new(o, "program_headers", gc_json_uint(fi->phnum));
    for (uint32_t i = 0; i < gpucore_core_quirk_count(ctx->core); i++) {
        const char *q = gpucore_core_quirk(ctx->core, i);

        if (q)
            json_array_append_new(quirks, json_string(q));
    }
    json_object_set_new(o, GC_IK_QUIRKS, quirks);
    if (fi->flags & GPUCORE_INFO_FILE_TRUNCATED)
        problem(ctx, "the file ends before its segments do: it was cut short (disk full, "
                     "size limit); clipped memory reads as not captured");
    return o;
}

static json_t *build_notes(struct info_ctx *ctx)
{
    json_t *arr = json_array();
    uint32_t n = gpucore_core_note_count(ctx->core);

    if (charge(ctx, (uint64_t)n * GC_INFO_JSON_RECORD_COST, "the list of notes") != 0)
        return arr;
    for (uint32_t i = 0; i < n; i++) {
        struct gpucore_note note;
        json_t *o;
        const char *name;

        if (gpucore_core_note(ctx->core, i, &note) != GPUCORE_OK)
            continue;
        name = note_name(note.owner, note.type);
        o = json_object();
        json_object_set_new(o, GC_IK_OWNER, json_string(note.owner));
        json_object_set_new(o, GC_IK_TYPE, gc_json_uint(note.type));
        json_object_set_new(o, GC_IK_NAME, name ? json_string(name) : json_null());
        json_object_set_new(o, GC_IK_SIZE, gc_json_uint(note.desc_size));
        json_object_set_new(o, GC_IK_OFFSET, gc_json_uint(note.offset));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *build_agent(const gpucore_kfd_device_entry_t *a)
{
    json_t *o = fields_to_json(a, device_fields, sizeof(device_fields) / sizeof(device_fields[0]));
    char target[16];
    uint32_t watch_bits = (a->capability & GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_MASK) >>
                          GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT;

    if (gpucore_gfx_target_name(a->gfx_target_version, target, sizeof(target)) == GPUCORE_OK)
        json_object_set_new(o, GC_IK_TARGET, json_string(target));
    else
        json_object_set_new(o, GC_IK_TARGET, json_null());
    json_object_set_new(o, GC_IK_CAPABILITY_FLAGS,
                        flags_to_json(a->capability, gpucore_capability_flag));
    json_object_set_new(o, GC_IK_DEBUG_PROP_FLAGS,
                        flags_to_json(a->debug_prop, gpucore_debug_prop_flag));
    json_object_set_new(o, GC_IK_WATCHPOINTS,
                        gc_json_uint((a->capability & GPUCORE_HSA_CAP_WATCH_POINTS_SUPPORTED)
                                             ? 1u << watch_bits
                                             : 0));
    json_object_set_new(
            o, GC_IK_DEBUGGABLE,
            json_boolean((a->capability & GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT) &&
                         (a->capability & GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED)));
    json_object_set_new(o, "shader_engines",
                        a->simd_arrays_per_engine
                                ? gc_json_uint((uint64_t)a->array_count * a->num_xcc /
                                       a->simd_arrays_per_engine)
                                : json_null());
    return o;
}

static json_t *build_queue(const gpucore_kfd_queue_entry_t *q)
{
    json_t *o = fields_to_json(q, queue_fields, sizeof(queue_fields) / sizeof(queue_fields[0]));
    const char *tname = gpucore_queue_type_name(q->queue_type);

    /* KFD flags bits 31/30 of the id (invalid / error); readers mask them off. */
    json_object_set_new(o, GC_IK_OS_QUEUE_ID, gc_json_uint(q->queue_id & GPUCORE_KFD_QUEUE_ID_MASK));
    json_object_set_new(o, "queue_error", json_boolean(q->queue_id & 0x40000000u));
    json_object_set_new(o, "queue_invalid", json_boolean(q->queue_id & 0x80000000u));
    json_object_set_new(o, GC_IK_TYPE_NAME, tname ? json_string(tname) : json_null());
    json_object_set_new(o, "ring_packets", gc_json_uint(q->ring_size / 64));
    return o;
}

static json_t *build_amdgpu(struct info_ctx *ctx)
{
    struct gpucore_note note;
    uint32_t idx = 0, count = 0;
    gpucore_amdgpu_note_t *n = NULL;
    gpucore_diag_t d;
    json_t *o, *agents, *queues, *rt, *check;
    gpucore_status_t st;

    while (gpucore_core_find_note(ctx->core, GPUCORE_AMDGPU_NOTE_OWNER,
                                  GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &idx, &note) == GPUCORE_OK) {
        count++;
        idx++;
    }
    if (count == 0) {
        problem(ctx, "no AMDGPU core-state note: this core holds no GPU state for AMD's tools");
        return json_null();
    }
    if (count > 1)
        problem(ctx, "%u AMDGPU core-state notes; AMD's tools expect exactly one (the first "
                     "is shown)", count);
    idx = 0;
    gpucore_core_find_note(ctx->core, GPUCORE_AMDGPU_NOTE_OWNER,
                           GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &idx, &note);

    if (charge_note(ctx, &note, "the AMDGPU note, decoded") != 0)
        return json_null();
    o = json_object();
    json_object_set_new(o, "note_offset", gc_json_uint(note.offset));
    json_object_set_new(o, GC_IK_SIZE, gc_json_uint(note.desc_size));
    st = gpucore_amdgpu_note_decode(note.desc, (size_t)note.desc_size, &n, &d);
    if (st != GPUCORE_OK) {
        json_object_set_new(o, GC_IK_ERROR, diag_to_json(&d));
        problem(ctx, "the AMDGPU note cannot be decoded: %s (descriptor offset %" PRIu64 ")",
                d.message, d.offset);
        snprintf(ctx->unusable, ctx->unusable_size,
                 "offset 0x%" PRIx64 ": the AMDGPU note cannot be decoded: %s", note.offset,
                 d.message);
        return o;
    }
    /* An agent is about 30 members, a queue about 10. */
    if (charge(ctx, ((uint64_t)n->agent_count * 4 + n->queue_count) * GC_INFO_JSON_RECORD_COST,
               "the AMDGPU agents and queues") != 0) {
        gpucore_amdgpu_note_free(n);
        json_decref(o);
        return json_null();
    }
    json_object_set_new(o, "note_version", gc_json_uint(n->note_version));
    json_object_set_new(o, GC_IK_KFD_MAJOR, gc_json_uint(n->kfd_major));
    json_object_set_new(o, GC_IK_KFD_MINOR, gc_json_uint(n->kfd_minor));
    json_object_set_new(o, "runtime_info_size", gc_json_uint(n->runtime_info_size));
    json_object_set_new(o, "agent_entry_size", gc_json_uint(n->agent_entry_size));
    json_object_set_new(o, "queue_entry_size", gc_json_uint(n->queue_entry_size));
    json_object_set_new(o, "newer_than_reader", json_boolean(n->flags & GPUCORE_AMDGPU_NOTE_NEWER));
    if (n->flags & GPUCORE_AMDGPU_NOTE_NEWER)
        problem(ctx, "the AMDGPU note has fields newer than this reader knows; they are ignored");

    rt = json_object();
    json_object_set_new(rt, GC_IK_R_DEBUG, gc_json_hex(n->runtime.r_debug));
    json_object_set_new(rt, "runtime_state", gc_json_uint(n->runtime.runtime_state));
    json_object_set_new(rt, GC_IK_RUNTIME_STATE_NAME,
                        gpucore_runtime_state_name(n->runtime.runtime_state)
                                ? json_string(gpucore_runtime_state_name(n->runtime.runtime_state))
                                : json_null());
    json_object_set_new(rt, GC_IK_TTMP_SETUP, gc_json_uint(n->runtime.ttmp_setup));
    json_object_set_new(o, GC_IK_RUNTIME, rt);

    agents = json_array();
    for (uint32_t i = 0; i < n->agent_count; i++) {
        const uint32_t need = GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT |
                              GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
        json_array_append_new(agents, build_agent(&n->agents[i]));
        /* ROCdbgapi's agent_t::supports_debugging: without both bits its queues are ignored,
           so AMD's tools would show no waves for this agent (docs/core-format.md §5). */
        if ((n->agents[i].capability & need) != need)
            problem(ctx, "agent %u (gpu_id %u): capability 0x%x lacks TRAP_DEBUG_SUPPORT and "
                         "TRAP_DEBUG_FIRMWARE_SUPPORTED: AMD's debugger library ignores its "
                         "queues", i, n->agents[i].gpu_id, n->agents[i].capability);
    }
    json_object_set_new(o, GC_IK_AGENTS, agents);
    queues = json_array();
    for (uint32_t i = 0; i < n->queue_count; i++)
        json_array_append_new(queues, build_queue(&n->queues[i]));
    json_object_set_new(o, GC_IK_QUEUES, queues);

    /* Would AMD's debugger library accept it? Worth saying before anyone opens ROCgdb. */
    check = json_object();
    st = gpucore_amdgpu_note_check(n, &d);
    json_object_set_new(check, GC_IK_OK, json_boolean(st == GPUCORE_OK));
    if (st != GPUCORE_OK) {
        json_object_set_new(check, GC_IK_ERROR, diag_to_json(&d));
        problem(ctx, "AMD's debugger library would not use this GPU state: %s", d.message);
        snprintf(ctx->unusable, ctx->unusable_size,
                 "offset 0x%" PRIx64 ": AMD's debugger library would not use the AMDGPU state: "
                 "%s",
                 note.offset, d.message);
    }
    json_object_set_new(o, GC_IK_AMD_READER_CHECK, check);
    gpucore_amdgpu_note_free(n);
    return o;
}

/* Find the first GPUCORE note of a type; returns 0 and fills note if found. */
static int find_gpucore_note(struct info_ctx *ctx, uint32_t type, struct gpucore_note *note)
{
    uint32_t idx = 0;

    return gpucore_core_find_note(ctx->core, GPUCORE_NOTE_OWNER, type, &idx, note) ==
                           GPUCORE_OK
                   ? 0
                   : -1;
}

static void note_error(struct info_ctx *ctx, json_t *o, const char *what, const gpucore_diag_t *d)
{
    json_object_set_new(o, GC_IK_ERROR, diag_to_json(d));
    problem(ctx, "the %s note cannot be decoded: %s", what, d->message);
}

static json_t *cmdline_to_json(const gpucore_str_t *s)
{
    json_t *arr = json_array();
    size_t start = 0;

    for (size_t i = 0; i <= s->len; i++) {
        if (i == s->len || s->ptr[i] == '\0') {
            if (i > start || (i < s->len))
                json_array_append_new(arr, gc_json_strn(s->ptr + start, i - start));
            start = i + 1;
        }
    }
    return arr;
}

static json_t *format_time_ns(uint64_t ns)
{
    time_t secs = (time_t)(ns / 1000000000u);
    struct tm tm;
    char buf[64];

    if (!gmtime_r(&secs, &tm))
        return json_null();
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_string(buf);
}

static json_t *build_capture(struct info_ctx *ctx)
{
    struct gpucore_note note;
    gpucore_capture_meta_t *m;
    gpucore_diag_t d;
    json_t *o;

    if (find_gpucore_note(ctx, GPUCORE_NT_CAPTURE_META, &note) != 0 ||
        charge_note(ctx, &note, "the capture-metadata note, decoded") != 0)
        return json_null();
    o = json_object();
    if (gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK) {
        note_error(ctx, o, "capture metadata", &d);
        return o;
    }
    json_object_set_new(o, GC_IK_PRODUCER, gc_json_strn(m->producer.ptr, m->producer.len));
    json_object_set_new(o, GC_IK_PRODUCER_VERSION,
                        gc_json_strn(m->producer_version.ptr, m->producer_version.len));
    json_object_set_new(o, GC_IK_HOSTNAME, gc_json_strn(m->hostname.ptr, m->hostname.len));
    json_object_set_new(o, GC_IK_KERNEL, gc_json_strn(m->kernel.ptr, m->kernel.len));
    json_object_set_new(o, GC_IK_PID, gc_json_uint(m->pid));
    json_object_set_new(o, GC_IK_EXE, gc_json_strn(m->exe.ptr, m->exe.len));
    json_object_set_new(o, GC_IK_CMDLINE, cmdline_to_json(&m->cmdline));
    json_object_set_new(o, GC_IK_TIME, format_time_ns(m->time_ns));
    json_object_set_new(o, "time_ns", gc_json_uint(m->time_ns));
    json_object_set_new(o, GC_IK_DURATION_NS, gc_json_uint(m->duration_ns));
    json_object_set_new(o, GC_IK_TRIGGER,
                        gpucore_trigger_name(m->trigger)
                                ? json_string(gpucore_trigger_name(m->trigger))
                                : gc_json_uint(m->trigger));
    json_object_set_new(o, GC_IK_TIER,
                        gpucore_tier_name(m->tier) ? json_string(gpucore_tier_name(m->tier))
                                                   : gc_json_uint(m->tier));
    json_object_set_new(o, "max_size", m->max_size ? gc_json_uint(m->max_size) : json_null());
    json_object_set_new(o, "deadline_ms",
                        m->deadline_ms ? gc_json_uint(m->deadline_ms) : json_null());
    json_object_set_new(o, "host_stopped", json_boolean(m->flags & GPUCORE_META_HOST_STOPPED));
    json_object_set_new(o, "queues_suspended",
                        json_boolean(m->flags & GPUCORE_META_QUEUES_SUSPENDED));
    json_object_set_new(o, "precise_memory", json_boolean(m->flags & GPUCORE_META_PRECISE_MEMORY));
    json_object_set_new(o, "kfd_version",
                        m->kfd_major ? json_sprintf("%u.%u", m->kfd_major, m->kfd_minor)
                                     : json_null());
    json_object_set_new(o, "kfd_device_entry_size", gc_json_uint(m->kfd_device_entry_size));
    json_object_set_new(o, "kfd_queue_entry_size", gc_json_uint(m->kfd_queue_entry_size));
    json_object_set_new(o, "signal", m->signal ? gc_json_uint(m->signal) : json_null());
    json_object_set_new(o, "compress_level", json_integer(m->compress_level));
    json_object_set_new(o, "options", gc_json_strn(m->options.ptr, m->options.len));
    if (m->exception_code) {
        json_t *e = json_object();
        const char *name = gc_triage_exception_name(m->exception_code);

        json_object_set_new(e, "code", gc_json_uint(m->exception_code));
        json_object_set_new(e, GC_IK_NAME, name ? json_string(name) : json_null());
        json_object_set_new(e, GC_IK_GPU_ID, gc_json_uint(m->exception_gpu_id));
        json_object_set_new(e, GC_IK_QUEUE_ID,
                            m->exception_queue_id == 0xffffffffu
                                    ? json_null()
                                    : gc_json_uint(m->exception_queue_id));
        json_object_set_new(o, GC_IK_EXCEPTION, e);
    } else {
        json_object_set_new(o, GC_IK_EXCEPTION, json_null());
    }
    json_object_set_new(o, GC_IK_FAULT_ADDRESS,
                        m->fault_address ? gc_json_hex(m->fault_address) : json_null());
    /* GPUCORE_FAULT_* bits (format 1.2): why the memory violation faulted; null unknown. */
    json_object_set_new(o, "fault_reasons",
                        m->fault_reasons ? gc_json_hex(m->fault_reasons) : json_null());
    /* Format 1.3: the host thread on which the runtime reported the GPU error; null unknown. */
    json_object_set_new(o, GC_IK_ERROR_THREAD,
                        m->error_thread ? gc_json_uint(m->error_thread) : json_null());
    /* Format 1.4: who and which job; null unknown. */
    json_object_set_new(o, GC_IK_UID,
                        m->flags & GPUCORE_META_UID_KNOWN ? gc_json_uint(m->uid) : json_null());
    json_object_set_new(o, GC_IK_JOB, m->job.len ? gc_json_strn(m->job.ptr, m->job.len)
                                                 : json_null());
    json_object_set_new(o, GC_IK_RANK, m->rank.len ? gc_json_strn(m->rank.ptr, m->rank.len)
                                                   : json_null());
    json_object_set_new(o, "newer_than_reader",
                        json_boolean(m->decoded_flags & GPUCORE_NOTE_DECODED_NEWER));
    gpucore_capture_meta_free(m);
    return o;
}

static json_t *name_or_number(const char *name, uint32_t v)
{
    return name ? json_string(name) : gc_json_uint(v);
}

static json_t *build_manifest(struct info_ctx *ctx)
{
    struct gpucore_note note;
    gpucore_manifest_t *m;
    gpucore_diag_t d;
    json_t *o, *entries;
    uint64_t bytes[4] = { 0 }, ranges[4] = { 0 }, redacted_bytes = 0, redacted_ranges = 0;

    if (find_gpucore_note(ctx, GPUCORE_NT_MANIFEST, &note) != 0 ||
        charge_note(ctx, &note, "the manifest note, decoded") != 0)
        return json_null();
    o = json_object();
    if (gpucore_manifest_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK) {
        note_error(ctx, o, "manifest", &d);
        return o;
    }
    if (charge(ctx, (uint64_t)m->count * GC_INFO_JSON_RECORD_COST, "the manifest's entries") != 0) {
        gpucore_manifest_free(m);
        json_decref(o);
        return json_null();
    }
    entries = json_array();
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];
        json_t *je = json_object();

        if (e->status < 4) {
            bytes[e->status] += e->size;
            ranges[e->status]++;
        }
        if (e->status == GPUCORE_RANGE_SKIPPED && e->reason == GPUCORE_REASON_REDACTED) {
            redacted_bytes += e->size;
            redacted_ranges++;
        }
        json_object_set_new(je, "address", gc_json_hex(e->address));
        json_object_set_new(je, GC_IK_SIZE, gc_json_uint(e->size));
        json_object_set_new(je, GC_IK_TIER, name_or_number(gpucore_tier_name(e->tier), e->tier));
        json_object_set_new(je, "status",
                            name_or_number(gpucore_range_status_name(e->status), e->status));
        json_object_set_new(je, "reason",
                            e->reason ? name_or_number(gpucore_reason_name(e->reason), e->reason)
                                      : json_null());
        json_object_set_new(je, "errno", e->err ? gc_json_uint(e->err) : json_null());
        json_object_set_new(je, GC_IK_LABEL, gc_json_strn(e->label.ptr, e->label.len));
        json_array_append_new(entries, je);
    }
    json_object_set_new(o, GC_IK_TRUNCATED, json_boolean(m->flags & GPUCORE_MANIFEST_TRUNCATED));
    json_object_set_new(o, GC_IK_REDACTED, json_boolean(m->flags & GPUCORE_MANIFEST_REDACTED));
    json_object_set_new(o, GC_IK_REDACTED_RANGES, gc_json_uint(redacted_ranges));
    json_object_set_new(o, GC_IK_REDACTED_BYTES, gc_json_uint(redacted_bytes));
    json_object_set_new(o, GC_IK_NO_HOST_MEMORY,
                        json_boolean(m->flags & GPUCORE_MANIFEST_NO_HOST_MEMORY));
    json_object_set_new(o, GC_IK_TRUNCATION_REASON,
                        m->truncation_reason
                                ? name_or_number(gpucore_reason_name(m->truncation_reason),
                                                 m->truncation_reason)
                                : json_null());
    json_object_set_new(o, GC_IK_CAPTURED_RANGES, gc_json_uint(ranges[GPUCORE_RANGE_CAPTURED]));
    json_object_set_new(o, GC_IK_CAPTURED_BYTES, gc_json_uint(bytes[GPUCORE_RANGE_CAPTURED]));
    json_object_set_new(o, GC_IK_SKIPPED_RANGES, gc_json_uint(ranges[GPUCORE_RANGE_SKIPPED]));
    json_object_set_new(o, GC_IK_SKIPPED_BYTES, gc_json_uint(bytes[GPUCORE_RANGE_SKIPPED]));
    json_object_set_new(o, GC_IK_UNREADABLE_RANGES, gc_json_uint(ranges[GPUCORE_RANGE_UNREADABLE]));
    json_object_set_new(o, GC_IK_UNREADABLE_BYTES, gc_json_uint(bytes[GPUCORE_RANGE_UNREADABLE]));
    json_object_set_new(o, "entries", entries);
    if (m->flags & GPUCORE_MANIFEST_TRUNCATED)
        problem(ctx, "the capture was cut short (%s): %" PRIu64 " bytes in %" PRIu64
                     " ranges were not written",
                gpucore_reason_name(m->truncation_reason) ? gpucore_reason_name(m->truncation_reason)
                                                          : "unknown reason",
                bytes[GPUCORE_RANGE_SKIPPED], ranges[GPUCORE_RANGE_SKIPPED]);
    if (m->decoded_flags & GPUCORE_NOTE_DECODED_NEWER)
        problem(ctx, "the manifest has fields newer than this reader knows; they are ignored");
    gpucore_manifest_free(m);
    return o;
}

static json_t *build_code_objects(struct info_ctx *ctx)
{
    struct gpucore_note note;
    gpucore_code_objects_t *c;
    gpucore_diag_t d;
    json_t *arr;

    if (find_gpucore_note(ctx, GPUCORE_NT_CODE_OBJECTS, &note) != 0 ||
        charge_note(ctx, &note, "the code-objects note, decoded") != 0)
        return json_null();
    if (gpucore_code_objects_decode(note.desc, (size_t)note.desc_size, &c, &d) != GPUCORE_OK) {
        json_t *o = json_object();

        note_error(ctx, o, "code objects", &d);
        return o;
    }
    if (charge(ctx, (uint64_t)c->count * GC_INFO_JSON_RECORD_COST, "the code objects' entries") !=
        0) {
        gpucore_code_objects_free(c);
        return json_null();
    }
    arr = json_array();
    for (uint32_t i = 0; i < c->count; i++) {
        const gpucore_code_object_t *co = &c->objects[i];
        json_t *o = json_object();

        json_object_set_new(o, GC_IK_URI, gc_json_strn(co->uri.ptr, co->uri.len));
        json_object_set_new(o, GC_IK_LOAD_ADDRESS, gc_json_hex(co->load_address));
        json_object_set_new(o, GC_IK_SIZE, gc_json_uint(co->size));
        json_object_set_new(o, "embedded_bytes", gc_json_uint(co->bytes ? co->bytes_size : 0));
        json_object_set_new(o, GC_IK_EMBEDDED,
                            json_string((co->flags & GPUCORE_CODE_OBJECT_EMBEDDED)    ? "whole"
                                        : (co->flags & GPUCORE_CODE_OBJECT_TRUNCATED) ? "prefix"
                                                                                      : "no"));
        json_array_append_new(arr, o);
    }
    gpucore_code_objects_free(c);
    return arr;
}

static json_t *build_allocations(struct info_ctx *ctx)
{
    struct gpucore_note note;
    gpucore_alloc_map_t *m;
    gpucore_diag_t d;
    json_t *arr;

    if (find_gpucore_note(ctx, GPUCORE_NT_ALLOC_MAP, &note) != 0 ||
        charge_note(ctx, &note, "the allocation-map note, decoded") != 0)
        return json_null();
    if (gpucore_alloc_map_decode(note.desc, (size_t)note.desc_size, &m, &d) != GPUCORE_OK) {
        json_t *o = json_object();

        note_error(ctx, o, "allocation map", &d);
        return o;
    }
    if (charge(ctx, (uint64_t)m->count * GC_INFO_JSON_RECORD_COST, "the allocations' entries") !=
        0) {
        gpucore_alloc_map_free(m);
        return json_null();
    }
    arr = json_array();
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_alloc_t *a = &m->allocs[i];
        json_t *o = json_object();

        json_object_set_new(o, GC_IK_BASE, gc_json_hex(a->base));
        json_object_set_new(o, GC_IK_SIZE, gc_json_uint(a->size));
        json_object_set_new(o, GC_IK_KIND,
                            name_or_number(gpucore_alloc_kind_name(a->kind), a->kind));
        json_object_set_new(o, GC_IK_GPU_ID, a->gpu_id ? gc_json_uint(a->gpu_id) : json_null());
        json_object_set_new(o, GC_IK_LABEL, gc_json_strn(a->label.ptr, a->label.len));
        json_array_append_new(arr, o);
    }
    gpucore_alloc_map_free(m);
    return arr;
}

static json_t *flags_string(uint32_t p_flags)
{
    char f[4] = { (p_flags & 4) ? 'r' : '-', (p_flags & 2) ? 'w' : '-', (p_flags & 1) ? 'x' : '-',
                  '\0' };

    return json_string(f);
}

static json_t *build_segments(struct info_ctx *ctx, const struct gpucore_core_info *fi)
{
    json_t *o = json_object(), *list = json_array();
    uint32_t n = gpucore_core_segment_count(ctx->core);
    uint64_t lo = 0, hi = 0, unavailable = 0;

    if (charge(ctx, (uint64_t)n * GC_INFO_JSON_RECORD_COST, "the list of segments") != 0)
        n = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct gpucore_segment s;
        json_t *js;

        if (gpucore_core_segment(ctx->core, i, &s) != GPUCORE_OK)
            continue;
        if (i == 0)
            lo = s.vaddr;
        hi = s.vaddr + s.memsz;
        if (s.filesz == 0)
            unavailable++;
        js = json_object();
        json_object_set_new(js, GC_IK_VADDR, gc_json_hex(s.vaddr));
        json_object_set_new(js, GC_IK_MEMSZ, gc_json_uint(s.memsz));
        json_object_set_new(js, GC_IK_FILESZ, gc_json_uint(s.filesz));
        json_object_set_new(js, GC_IK_OFFSET, gc_json_uint(s.offset));
        json_object_set_new(js, GC_IK_FLAGS, flags_string(s.flags));
        json_object_set_new(js, "align", gc_json_uint(s.align));
        json_array_append_new(list, js);
    }
    json_object_set_new(o, GC_IK_COUNT, gc_json_uint(n));
    json_object_set_new(o, GC_IK_FILE_BYTES, gc_json_uint(fi->load_bytes));
    json_object_set_new(o, GC_IK_MEMORY_BYTES, gc_json_uint(fi->load_memsz));
    json_object_set_new(o, GC_IK_NOT_DUMPED, gc_json_uint(unavailable));
    json_object_set_new(o, GC_IK_LOWEST, n ? gc_json_hex(lo) : json_null());
    json_object_set_new(o, GC_IK_HIGHEST, n ? gc_json_hex(hi) : json_null());
    json_object_set_new(o, GC_IK_LIST, list);
    return o;
}

static json_t *build_model(struct info_ctx *ctx)
{
    struct gpucore_core_info fi;
    json_t *doc = json_object();

    gpucore_core_get_info(ctx->core, &fi);
    ctx->problems = json_array();
    json_object_set_new(doc, "schema", json_string(GC_INFO_SCHEMA));
    json_object_set_new(doc, GC_IK_FILE, build_file(ctx, &fi));
    json_object_set_new(doc, GC_IK_NOTES, build_notes(ctx));
    json_object_set_new(doc, GC_IK_AMDGPU, build_amdgpu(ctx));
    json_object_set_new(doc, GC_IK_CAPTURE, build_capture(ctx));
    json_object_set_new(doc, GC_IK_MANIFEST, build_manifest(ctx));
    json_object_set_new(doc, GC_IK_CODE_OBJECTS, build_code_objects(ctx));
    json_object_set_new(doc, GC_IK_ALLOCATIONS, build_allocations(ctx));
    json_object_set_new(doc, GC_IK_SEGMENTS, build_segments(ctx, &fi));
    json_object_set_new(doc, GC_IK_PROBLEMS, ctx->problems);
    return doc;
}


gpucore_status_t gc_info_build(gpucore_core_t *core, const char *path, struct gc_info *ret,
                               gpucore_diag_t *reterr_diag)
{
    struct info_ctx ctx = { .core = core, .path = path };
    json_t *doc;

    GC_FAIL_IF(!core || !path || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "NULL argument");
    memset(ret, 0, sizeof(*ret));
    ctx.unusable = ret->unusable;
    ctx.unusable_size = sizeof(ret->unusable);
    doc = build_model(&ctx);
    if (ctx.over_budget.status != GPUCORE_OK) {
        json_decref(doc);
        memset(ret, 0, sizeof(*ret));
        if (reterr_diag)
            *reterr_diag = ctx.over_budget;
        return ctx.over_budget.status;
    }
    if (!doc) {
        memset(ret, 0, sizeof(*ret));
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    ret->doc = doc;
    return GPUCORE_OK;
}

void gc_info_free(struct gc_info *info)
{
    if (!info)
        return;
    json_decref(info->doc);
    info->doc = NULL;
    info->unusable[0] = '\0';
}
