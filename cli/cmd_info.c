/* SPDX-License-Identifier: MIT */
/*
 * gpucore info: describe a core.
 *
 * analyze/ builds one JSON document (the model, info_model.h) from the core; this file prints
 * it either as JSON (`--json`, a stable schema named "gpucore.info/1") or as text for people.
 * The text is a view of the model, so the two outputs can never disagree. This file: the
 * command line, the text rendering, the exit codes.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpucore/core.h>

#include "cli.h"
#include "gc_util.h"
#include "info_model.h"

/* ---------------------------------------------------------------------------------------- */
/* Text rendering                                                                            */
/* ---------------------------------------------------------------------------------------- */

static void print_flag_list(FILE *out, const json_t *arr)
{
    size_t i;
    json_t *v;

    fputc('[', out);
    json_array_foreach(arr, i, v) fprintf(out, "%s%s", i ? " " : "", json_string_value(v));
    fputc(']', out);
}

static void render_file(FILE *out, const json_t *f)
{
    char a[32], b[32];
    const char *machine = gc_json_get_str(f, GC_IK_MACHINE);

    fprintf(out, "Core:        %s\n", gc_json_get_str(f, GC_IK_PATH));
    fprintf(out, "File:        %s ELF core, %s (e_machine %" PRIu64 "), %s",
            gc_json_get_str(f, GC_IK_KIND), machine ? machine : "unknown machine",
            gc_json_get_u64(f, GC_IK_E_MACHINE),
            json_is_true(json_object_get(f, GC_IK_COMPRESSED)) ? "zstd seekable" : "plain");
    if (json_is_true(json_object_get(f, GC_IK_COMPRESSED)))
        fprintf(out, " (%" PRIu64 " frame%s), %s, %s uncompressed\n",
                gc_json_get_u64(f, GC_IK_FRAMES), gc_json_get_u64(f, GC_IK_FRAMES) == 1 ? "" : "s",
                gc_format_size(gc_json_get_u64(f, GC_IK_FILE_SIZE), a, sizeof(a)),
                gc_format_size(gc_json_get_u64(f, GC_IK_LOGICAL_SIZE), b, sizeof(b)));
    else
        fprintf(out, ", %s\n", gc_format_size(gc_json_get_u64(f, GC_IK_FILE_SIZE), a, sizeof(a)));
}

/* A capture field's text, or NULL when the core does not know it (absent, null or empty: a
   merged core's runtime half records no host name, kernel or duration). */
static const char *known(const json_t *c, const char *key)
{
    const char *v = gc_json_get_str(c, key);

    return v && v[0] ? v : NULL;
}

/* "Producer: gpucore 0.1.0 on HOST (kernel K)", each part only when the core records it. */
static void render_producer(FILE *out, const json_t *c)
{
    const char *prod = known(c, GC_IK_PRODUCER), *ver = known(c, GC_IK_PRODUCER_VERSION);
    const char *host = known(c, GC_IK_HOSTNAME), *kernel = known(c, GC_IK_KERNEL);

    if (!prod && !host && !kernel)
        return;
    fprintf(out, "Producer:    %s%s%s", prod ? prod : "unknown", ver ? " " : "", ver ? ver : "");
    if (host)
        fprintf(out, " on %s", host);
    if (kernel)
        fprintf(out, " (kernel %s)", kernel);
    fputc('\n', out);
}

static void render_capture(FILE *out, const json_t *c)
{
    size_t i;
    json_t *v;
    const json_t *cmd;

    if (!json_is_object(c) || json_object_get(c, GC_IK_ERROR))
        return;
    render_producer(out, c);
    fprintf(out, "Process:     pid %" PRIu64, gc_json_get_u64(c, GC_IK_PID));
    if (known(c, GC_IK_EXE))
        fprintf(out, ", %s", known(c, GC_IK_EXE));
    if (json_is_integer(json_object_get(c, GC_IK_UID)))
        fprintf(out, ", uid %" PRIu64, gc_json_get_u64(c, GC_IK_UID));
    fputc('\n', out);
    if (gc_json_get_str(c, GC_IK_JOB) || gc_json_get_str(c, GC_IK_RANK))
        fprintf(out, "Job:         %s, rank %s\n",
                gc_json_get_str(c, GC_IK_JOB) ? gc_json_get_str(c, GC_IK_JOB) : "none",
                gc_json_get_str(c, GC_IK_RANK) ? gc_json_get_str(c, GC_IK_RANK) : "none");
    cmd = json_object_get(c, GC_IK_CMDLINE);
    if (json_array_size(cmd)) {
        fprintf(out, "Command:    ");
        json_array_foreach(cmd, i, v) fprintf(out, " %s", json_string_value(v));
        fputc('\n', out);
    }
    /* A duration of 0 is not a measurement (a merged core's runtime half has none). */
    fprintf(out, "Captured:    %s",
            known(c, GC_IK_TIME) ? known(c, GC_IK_TIME) : "at an unknown time");
    if (gc_json_get_u64(c, GC_IK_DURATION_NS))
        fprintf(out, " in %.3f s", (double)gc_json_get_u64(c, GC_IK_DURATION_NS) / 1e9);
    fprintf(out, ", trigger %s, tier %s\n",
            known(c, GC_IK_TRIGGER) ? known(c, GC_IK_TRIGGER) : "unknown",
            known(c, GC_IK_TIER) ? known(c, GC_IK_TIER) : "unknown");
    const json_t *e = json_object_get(c, GC_IK_EXCEPTION);
    if (json_is_object(e)) {
        const char *name = gc_json_get_str(e, GC_IK_NAME);
        fprintf(out, "Exception:   %s on gpu_id %" PRIu64, name ? name : "?",
                gc_json_get_u64(e, GC_IK_GPU_ID));
        if (json_is_integer(json_object_get(e, GC_IK_QUEUE_ID)))
            fprintf(out, ", queue %" PRIu64, gc_json_get_u64(e, GC_IK_QUEUE_ID));
        if (gc_json_get_str(c, GC_IK_FAULT_ADDRESS))
            fprintf(out, ", fault address %s", gc_json_get_str(c, GC_IK_FAULT_ADDRESS));
        fputc('\n', out);
    }
    if (json_is_integer(json_object_get(c, GC_IK_ERROR_THREAD)))
        fprintf(out,
                "Error thread: %" PRIu64 " (the host thread the runtime reported the GPU "
                "error on)\n",
                gc_json_get_u64(c, GC_IK_ERROR_THREAD));
}

static void render_manifest_summary(FILE *out, const json_t *m, const json_t *file)
{
    char a[32], b[32], c[32];

    /* The file itself cut short (a copy interrupted...), whatever the capture recorded. */
    if (json_is_true(json_object_get(file, GC_IK_FILE_TRUNCATED)))
        fprintf(out, "File truncated: yes, cut short at %s; memory past the cut is missing\n",
                gc_format_size(gc_json_get_u64(file, GC_IK_FILE_SIZE), a, 32));
    if (!json_is_object(m) || json_object_get(m, GC_IK_ERROR))
        return;
    fprintf(out,
            "Memory:      %" PRIu64 " range%s captured (%s), %" PRIu64 " skipped (%s), %" PRIu64
            " unreadable (%s)\n",
            gc_json_get_u64(m, GC_IK_CAPTURED_RANGES),
            gc_json_get_u64(m, GC_IK_CAPTURED_RANGES) == 1 ? "" : "s",
            gc_format_size(gc_json_get_u64(m, GC_IK_CAPTURED_BYTES), a, 32),
            gc_json_get_u64(m, GC_IK_SKIPPED_RANGES),
            gc_format_size(gc_json_get_u64(m, GC_IK_SKIPPED_BYTES), b, 32),
            gc_json_get_u64(m, GC_IK_UNREADABLE_RANGES),
            gc_format_size(gc_json_get_u64(m, GC_IK_UNREADABLE_BYTES), c, 32));
    fprintf(out, "Truncated:   %s\n",
            json_is_true(json_object_get(m, GC_IK_TRUNCATED))
                    ? (gc_json_get_str(m, GC_IK_TRUNCATION_REASON)
                               ? gc_json_get_str(m, GC_IK_TRUNCATION_REASON)
                               : "yes")
                    : "no");
    if (json_is_true(json_object_get(m, GC_IK_REDACTED)))
        fprintf(out,
                "Redacted:    yes, %" PRIu64 " range%s (%s) of user data withheld by --redact; "
                "their bytes are not in the core\n",
                gc_json_get_u64(m, GC_IK_REDACTED_RANGES),
                gc_json_get_u64(m, GC_IK_REDACTED_RANGES) == 1 ? "" : "s",
                gc_format_size(gc_json_get_u64(m, GC_IK_REDACTED_BYTES), a, 32));
    if (json_is_true(json_object_get(m, GC_IK_NO_HOST_MEMORY)))
        fprintf(out, "Host memory: thread stacks only (--no-host-memory)\n");
}

static void render_amdgpu(FILE *out, const json_t *g)
{
    const json_t *rt, *arr, *check;
    size_t i;
    json_t *a;

    fputc('\n', out);
    if (json_is_null(g)) {
        fprintf(out, "AMDGPU state: none (no NT_AMDGPU_KFD_CORE_STATE note)\n");
        return;
    }
    fprintf(out, "AMDGPU state (NT_AMDGPU_KFD_CORE_STATE, %" PRIu64 " bytes)\n",
            gc_json_get_u64(g, GC_IK_SIZE));
    if (json_object_get(g, GC_IK_ERROR)) {
        fprintf(out, "  cannot decode: %s\n",
                gc_json_get_str(json_object_get(g, GC_IK_ERROR), GC_IK_MESSAGE));
        return;
    }
    rt = json_object_get(g, GC_IK_RUNTIME);
    fprintf(out, "  KFD %" PRIu64 ".%" PRIu64 ", runtime %s, r_debug %s, ttmp setup %s\n",
            gc_json_get_u64(g, GC_IK_KFD_MAJOR), gc_json_get_u64(g, GC_IK_KFD_MINOR),
            gc_json_get_str(rt, GC_IK_RUNTIME_STATE_NAME)
                    ? gc_json_get_str(rt, GC_IK_RUNTIME_STATE_NAME)
                    : "?",
            gc_json_get_str(rt, GC_IK_R_DEBUG),
            gc_json_get_u64(rt, GC_IK_TTMP_SETUP) ? "yes" : "no");
    check = json_object_get(g, GC_IK_AMD_READER_CHECK);
    if (json_is_true(json_object_get(check, GC_IK_OK)))
        fprintf(out, "  AMD reader rules: satisfied\n");
    else
        fprintf(out, "  AMD reader rules: VIOLATED: %s\n",
                gc_json_get_str(json_object_get(check, GC_IK_ERROR), GC_IK_MESSAGE));

    arr = json_object_get(g, GC_IK_AGENTS);
    json_array_foreach(arr, i, a)
    {
        const char *target = gc_json_get_str(a, GC_IK_TARGET);

        fprintf(out,
                "  agent %zu: %s, gpu_id %" PRIu64 ", PCI %04" PRIx64 ":%04" PRIx64 " rev %" PRIx64
                ", location %s, fw %" PRIu64 "\n",
                i, target ? target : "unknown target", gc_json_get_u64(a, GC_IK_GPU_ID),
                gc_json_get_u64(a, GC_IK_VENDOR_ID), gc_json_get_u64(a, GC_IK_DEVICE_ID),
                gc_json_get_u64(a, GC_IK_REVISION_ID), gc_json_get_str(a, GC_IK_LOCATION_ID),
                gc_json_get_u64(a, GC_IK_FW_VERSION));
        fprintf(out,
                "    %" PRIu64 " SIMDs x %" PRIu64 " waves, %" PRIu64 " arrays (%" PRIu64
                " per engine), %" PRIu64 " XCC, %" PRIu64 " watchpoints, debuggable %s\n",
                gc_json_get_u64(a, GC_IK_SIMD_COUNT), gc_json_get_u64(a, GC_IK_MAX_WAVES_PER_SIMD),
                gc_json_get_u64(a, GC_IK_ARRAY_COUNT),
                gc_json_get_u64(a, GC_IK_SIMD_ARRAYS_PER_ENGINE), gc_json_get_u64(a, GC_IK_NUM_XCC),
                gc_json_get_u64(a, GC_IK_WATCHPOINTS),
                json_is_true(json_object_get(a, GC_IK_DEBUGGABLE)) ? "yes" : "no");
        fprintf(out, "    capability %s ", gc_json_get_str(a, GC_IK_CAPABILITY));
        print_flag_list(out, json_object_get(a, GC_IK_CAPABILITY_FLAGS));
        fprintf(out, ", debug_prop %s ", gc_json_get_str(a, GC_IK_DEBUG_PROP));
        print_flag_list(out, json_object_get(a, GC_IK_DEBUG_PROP_FLAGS));
        fputc('\n', out);
        fprintf(out, "    apertures: LDS %s-%s, scratch %s-%s\n",
                gc_json_get_str(a, GC_IK_LDS_BASE), gc_json_get_str(a, GC_IK_LDS_LIMIT),
                gc_json_get_str(a, GC_IK_SCRATCH_BASE), gc_json_get_str(a, GC_IK_SCRATCH_LIMIT));
    }
    arr = json_object_get(g, GC_IK_QUEUES);
    json_array_foreach(arr, i, a)
    {
        const char *tn = gc_json_get_str(a, GC_IK_TYPE_NAME);

        fprintf(out,
                "  queue %zu: id %" PRIu64 " on gpu_id %" PRIu64 ", %s, ring %s (%" PRIu64
                " bytes), exceptions %s\n",
                i, gc_json_get_u64(a, GC_IK_OS_QUEUE_ID), gc_json_get_u64(a, GC_IK_GPU_ID),
                tn ? tn : "unknown type", gc_json_get_str(a, GC_IK_RING_BASE_ADDRESS),
                gc_json_get_u64(a, GC_IK_RING_SIZE), gc_json_get_str(a, GC_IK_EXCEPTION_STATUS));
        fprintf(out, "    read ptr %s, write ptr %s, save area %s (%" PRIu64 " bytes per XCC)\n",
                gc_json_get_str(a, GC_IK_READ_POINTER_ADDRESS),
                gc_json_get_str(a, GC_IK_WRITE_POINTER_ADDRESS),
                gc_json_get_str(a, GC_IK_CTX_SAVE_RESTORE_ADDRESS),
                gc_json_get_u64(a, GC_IK_CTX_SAVE_RESTORE_AREA_SIZE));
    }
}

static void render_notes(FILE *out, const json_t *notes)
{
    size_t i;
    json_t *n;

    fprintf(out, "\nNotes (%zu):\n", json_array_size(notes));
    json_array_foreach(notes, i, n)
    {
        const char *name = gc_json_get_str(n, GC_IK_NAME);

        fprintf(out, "  %-8s %#10" PRIx64 "  %-26s %10" PRIu64 " bytes\n",
                gc_json_get_str(n, GC_IK_OWNER), gc_json_get_u64(n, GC_IK_TYPE),
                name ? name : "(unknown type)", gc_json_get_u64(n, GC_IK_SIZE));
    }
}

static void render_code_objects(FILE *out, const json_t *c)
{
    size_t i;
    json_t *o;
    char a[32];

    if (!json_is_array(c))
        return;
    fprintf(out, "\nCode objects (%zu):\n", json_array_size(c));
    json_array_foreach(c, i, o)
            fprintf(out, "  %s  %s, embedded: %s\n  %s\n", gc_json_get_str(o, GC_IK_LOAD_ADDRESS),
                    gc_format_size(gc_json_get_u64(o, GC_IK_SIZE), a, sizeof(a)),
                    gc_json_get_str(o, GC_IK_EMBEDDED), gc_json_get_str(o, GC_IK_URI));
}

static void render_allocations(FILE *out, const json_t *c)
{
    size_t i;
    json_t *o;
    char a[32];

    if (!json_is_array(c))
        return;
    fprintf(out, "\nAllocations (%zu):\n", json_array_size(c));
    json_array_foreach(c, i, o)
    {
        const json_t *kind = json_object_get(o, GC_IK_KIND);

        fprintf(out, "  %18s  %10s  %-8s %s\n", gc_json_get_str(o, GC_IK_BASE),
                gc_format_size(gc_json_get_u64(o, GC_IK_SIZE), a, sizeof(a)),
                json_is_string(kind) ? json_string_value(kind) : "?",
                gc_json_get_str(o, GC_IK_LABEL));
    }
}

static void render_segments(FILE *out, const json_t *s, int list_all)
{
    char a[32], b[32];
    size_t i;
    json_t *seg;

    fprintf(out, "\nSegments: %" PRIu64 " PT_LOAD, %s in file, %s of memory",
            gc_json_get_u64(s, GC_IK_COUNT),
            gc_format_size(gc_json_get_u64(s, GC_IK_FILE_BYTES), a, sizeof(a)),
            gc_format_size(gc_json_get_u64(s, GC_IK_MEMORY_BYTES), b, sizeof(b)));
    if (gc_json_get_u64(s, GC_IK_COUNT))
        fprintf(out, ", %s-%s", gc_json_get_str(s, GC_IK_LOWEST),
                gc_json_get_str(s, GC_IK_HIGHEST));
    fputc('\n', out);
    if (gc_json_get_u64(s, GC_IK_NOT_DUMPED))
        fprintf(out, "  %" PRIu64 " segment%s no data in the file (not dumped)\n",
                gc_json_get_u64(s, GC_IK_NOT_DUMPED),
                gc_json_get_u64(s, GC_IK_NOT_DUMPED) == 1 ? " has" : "s have");
    if (!list_all)
        return;
    fprintf(out, "  %-18s %12s %12s %5s %12s\n", "vaddr", "memsz", "filesz", "flags", "offset");
    json_array_foreach(json_object_get(s, GC_IK_LIST), i, seg)
            fprintf(out, "  %-18s %12" PRIu64 " %12" PRIu64 " %5s %12" PRIu64 "\n",
                    gc_json_get_str(seg, GC_IK_VADDR), gc_json_get_u64(seg, GC_IK_MEMSZ),
                    gc_json_get_u64(seg, GC_IK_FILESZ), gc_json_get_str(seg, GC_IK_FLAGS),
                    gc_json_get_u64(seg, GC_IK_OFFSET));
}

static void render_problems(FILE *out, const json_t *file, const json_t *problems)
{
    size_t i;
    json_t *p;
    const json_t *quirks = json_object_get(file, GC_IK_QUIRKS);

    if (json_array_size(quirks)) {
        fprintf(out, "\nTolerated deviations (%zu):\n", json_array_size(quirks));
        json_array_foreach(quirks, i, p) fprintf(out, "  - %s\n", json_string_value(p));
    }
    if (json_array_size(problems)) {
        fprintf(out, "\nProblems (%zu):\n", json_array_size(problems));
        json_array_foreach(problems, i, p) fprintf(out, "  - %s\n", json_string_value(p));
    }
}

static void render_text(FILE *out, const json_t *doc, int list_segments);

/* cli_print_text()'s renderer; @p user points at the --segments flag. */
static void render_info(FILE *out, const json_t *doc, void *user)
{
    render_text(out, doc, *(const int *)user);
}

static void render_text(FILE *out, const json_t *doc, int list_segments)
{
    render_file(out, json_object_get(doc, GC_IK_FILE));
    render_capture(out, json_object_get(doc, GC_IK_CAPTURE));
    render_manifest_summary(out, json_object_get(doc, GC_IK_MANIFEST),
                            json_object_get(doc, GC_IK_FILE));
    render_amdgpu(out, json_object_get(doc, GC_IK_AMDGPU));
    render_code_objects(out, json_object_get(doc, GC_IK_CODE_OBJECTS));
    render_allocations(out, json_object_get(doc, GC_IK_ALLOCATIONS));
    render_notes(out, json_object_get(doc, GC_IK_NOTES));
    render_segments(out, json_object_get(doc, GC_IK_SEGMENTS), list_segments);
    render_problems(out, json_object_get(doc, GC_IK_FILE), json_object_get(doc, GC_IK_PROBLEMS));
}

/* ---------------------------------------------------------------------------------------- */

static void info_help(FILE *out)
{
    fprintf(out, "Usage: gpucore info [--json] [--segments] CORE\n\n"
                 "Describe a core (plain or compressed): file kind (host: a process's core\n"
                 "without GPU state; unified: host and GPU state; split: the GPU part only, as\n"
                 "the ROCm runtime writes it), the AMDGPU core-state note (KFD version,\n"
                 "runtime, agents, queues) and whether AMD's debugger library would accept it,\n"
                 "gpucore capture metadata, manifest, code objects, allocations, notes and\n"
                 "segments.\n\n"
                 "  --json       print the stable JSON document (schema \"" GC_INFO_SCHEMA "\")\n"
                 "  --segments   list every PT_LOAD segment in the text output\n"
                 "  -h, --help   this text\n\n"
                 "Exit status: 0 described (a host core without GPU state included); 65 the\n"
                 "core is malformed, or its AMDGPU state cannot be used (it cannot be decoded,\n"
                 "or AMD's debugger library would reject it: the description is still printed);\n"
                 "66 the core cannot be opened; 74 an I/O error.\n");
}

int cmd_info(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "segments", no_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int json = 0, segments = 0, c, rc;
    const char *path;
    gpucore_core_t *core;
    struct gc_info info;
    gpucore_diag_t d;
    json_t *doc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+jsh", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 's':
            segments = 1;
            break;
        case 'h':
            info_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("info", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("info", argc - optind < 1 ? "missing CORE argument"
                                                         : "expected exactly one CORE argument");
    path = argv[optind];
    rc = cli_open_core(path, GPUCORE_OPEN_ALLOW_TRUNCATED, &core);
    if (rc)
        return rc;

    if (gc_info_build(core, path, &info, &d) != GPUCORE_OK) {
        gpucore_core_close(core);
        return d.status == GPUCORE_E_NOMEM ? cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory")
                                           : cli_report_input(path, &d);
    }
    doc = info.doc;
    rc = json ? cli_print_json(doc) : cli_print_text(doc, render_info, &segments);
    if (fflush(stdout) != 0)
        rc = cli_fail(CLI_EXIT_IOERR, NULL, "cannot write output");
    else if (info.unusable[0])
        rc = cli_fail(CLI_EXIT_DATAERR, path, "%s", info.unusable);
    gc_info_free(&info);
    gpucore_core_close(core);
    return rc;
}
