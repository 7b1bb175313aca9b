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
    const char *machine = gc_json_get_str(f, "machine");

    fprintf(out, "Core:        %s\n", gc_json_get_str(f, "path"));
    fprintf(out, "File:        %s ELF core, %s (e_machine %" PRIu64 "), %s", gc_json_get_str(f, "kind"),
            machine ? machine : "unknown machine", gc_json_get_u64(f, "e_machine"),
            json_is_true(json_object_get(f, "compressed")) ? "zstd seekable" : "plain");
    if (json_is_true(json_object_get(f, "compressed")))
        fprintf(out, " (%" PRIu64 " frames), %s, %s uncompressed\n", gc_json_get_u64(f, "frames"),
                gc_format_size(gc_json_get_u64(f, "file_size"), a, sizeof(a)),
                gc_format_size(gc_json_get_u64(f, "logical_size"), b, sizeof(b)));
    else
        fprintf(out, ", %s\n", gc_format_size(gc_json_get_u64(f, "file_size"), a, sizeof(a)));
}

static void render_capture(FILE *out, const json_t *c)
{
    size_t i;
    json_t *v;
    const json_t *cmd;

    if (!json_is_object(c) || json_object_get(c, "error"))
        return;
    fprintf(out, "Producer:    %s %s on %s (kernel %s)\n", gc_json_get_str(c, "producer"),
            gc_json_get_str(c, "producer_version"), gc_json_get_str(c, "hostname"), gc_json_get_str(c, "kernel"));
    fprintf(out, "Process:     pid %" PRIu64 ", %s\n", gc_json_get_u64(c, "pid"), gc_json_get_str(c, "exe"));
    cmd = json_object_get(c, "cmdline");
    if (json_array_size(cmd)) {
        fprintf(out, "Command:    ");
        json_array_foreach(cmd, i, v) fprintf(out, " %s", json_string_value(v));
        fputc('\n', out);
    }
    fprintf(out, "Captured:    %s in %.3f s, trigger %s, tier %s\n",
            gc_json_get_str(c, "time") ? gc_json_get_str(c, "time") : "?",
            (double)gc_json_get_u64(c, "duration_ns") / 1e9,
            gc_json_get_str(c, "trigger") ? gc_json_get_str(c, "trigger") : "?",
            gc_json_get_str(c, "tier") ? gc_json_get_str(c, "tier") : "?");
    const json_t *e = json_object_get(c, "exception");
    if (json_is_object(e)) {
        const char *name = gc_json_get_str(e, "name");
        fprintf(out, "Exception:   %s on gpu_id %" PRIu64, name ? name : "?", gc_json_get_u64(e, "gpu_id"));
        if (json_is_integer(json_object_get(e, "queue_id")))
            fprintf(out, ", queue %" PRIu64, gc_json_get_u64(e, "queue_id"));
        if (gc_json_get_str(c, "fault_address"))
            fprintf(out, ", fault address %s", gc_json_get_str(c, "fault_address"));
        fputc('\n', out);
    }
    if (json_is_integer(json_object_get(c, "error_thread")))
        fprintf(out, "Error thread: %" PRIu64 " (the host thread the runtime reported the GPU "
                "error on)\n", gc_json_get_u64(c, "error_thread"));
}

static void render_manifest_summary(FILE *out, const json_t *m, const json_t *file)
{
    char a[32], b[32], c[32];

    /* The file itself cut short (a copy interrupted...), whatever the capture recorded. */
    if (json_is_true(json_object_get(file, "file_truncated")))
        fprintf(out, "File truncated: yes, cut short at %s; memory past the cut is missing\n",
                gc_format_size(gc_json_get_u64(file, "file_size"), a, 32));
    if (!json_is_object(m) || json_object_get(m, "error"))
        return;
    fprintf(out, "Memory:      %" PRIu64 " ranges captured (%s), %" PRIu64
                 " skipped (%s), %" PRIu64 " unreadable (%s)\n",
            gc_json_get_u64(m, "captured_ranges"), gc_format_size(gc_json_get_u64(m, "captured_bytes"), a, 32),
            gc_json_get_u64(m, "skipped_ranges"), gc_format_size(gc_json_get_u64(m, "skipped_bytes"), b, 32),
            gc_json_get_u64(m, "unreadable_ranges"),
            gc_format_size(gc_json_get_u64(m, "unreadable_bytes"), c, 32));
    fprintf(out, "Truncated:   %s\n",
            json_is_true(json_object_get(m, "truncated"))
                    ? (gc_json_get_str(m, "truncation_reason") ? gc_json_get_str(m, "truncation_reason") : "yes")
                    : "no");
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
            gc_json_get_u64(g, "size"));
    if (json_object_get(g, "error")) {
        fprintf(out, "  cannot decode: %s\n",
                gc_json_get_str(json_object_get(g, "error"), "message"));
        return;
    }
    rt = json_object_get(g, "runtime");
    fprintf(out, "  KFD %" PRIu64 ".%" PRIu64 ", runtime %s, r_debug %s, ttmp setup %s\n",
            gc_json_get_u64(g, "kfd_major"), gc_json_get_u64(g, "kfd_minor"),
            gc_json_get_str(rt, "runtime_state_name") ? gc_json_get_str(rt, "runtime_state_name") : "?",
            gc_json_get_str(rt, "r_debug"), gc_json_get_u64(rt, "ttmp_setup") ? "yes" : "no");
    check = json_object_get(g, "amd_reader_check");
    if (json_is_true(json_object_get(check, "ok")))
        fprintf(out, "  AMD reader rules: satisfied\n");
    else
        fprintf(out, "  AMD reader rules: VIOLATED: %s\n",
                gc_json_get_str(json_object_get(check, "error"), "message"));

    arr = json_object_get(g, "agents");
    json_array_foreach(arr, i, a)
    {
        const char *target = gc_json_get_str(a, "target");

        fprintf(out,
                "  agent %zu: %s, gpu_id %" PRIu64 ", PCI %04" PRIx64 ":%04" PRIx64
                " rev %" PRIx64 ", location %s, fw %" PRIu64 "\n",
                i, target ? target : "unknown target", gc_json_get_u64(a, "gpu_id"),
                gc_json_get_u64(a, "vendor_id"), gc_json_get_u64(a, "device_id"), gc_json_get_u64(a, "revision_id"),
                gc_json_get_str(a, "location_id"), gc_json_get_u64(a, "fw_version"));
        fprintf(out,
                "    %" PRIu64 " SIMDs x %" PRIu64 " waves, %" PRIu64 " arrays (%" PRIu64
                " per engine), %" PRIu64 " XCC, %" PRIu64 " watchpoints, debuggable %s\n",
                gc_json_get_u64(a, "simd_count"), gc_json_get_u64(a, "max_waves_per_simd"),
                gc_json_get_u64(a, "array_count"), gc_json_get_u64(a, "simd_arrays_per_engine"),
                gc_json_get_u64(a, "num_xcc"), gc_json_get_u64(a, "watchpoints"),
                json_is_true(json_object_get(a, "debuggable")) ? "yes" : "no");
        fprintf(out, "    capability %s ", gc_json_get_str(a, "capability"));
        print_flag_list(out, json_object_get(a, "capability_flags"));
        fprintf(out, ", debug_prop %s ", gc_json_get_str(a, "debug_prop"));
        print_flag_list(out, json_object_get(a, "debug_prop_flags"));
        fputc('\n', out);
        fprintf(out, "    apertures: LDS %s-%s, scratch %s-%s\n", gc_json_get_str(a, "lds_base"),
                gc_json_get_str(a, "lds_limit"), gc_json_get_str(a, "scratch_base"),
                gc_json_get_str(a, "scratch_limit"));
    }
    arr = json_object_get(g, "queues");
    json_array_foreach(arr, i, a)
    {
        const char *tn = gc_json_get_str(a, "type_name");

        fprintf(out,
                "  queue %zu: id %" PRIu64 " on gpu_id %" PRIu64 ", %s, ring %s (%" PRIu64
                " bytes), exceptions %s\n",
                i, gc_json_get_u64(a, "os_queue_id"), gc_json_get_u64(a, "gpu_id"), tn ? tn : "unknown type",
                gc_json_get_str(a, "ring_base_address"), gc_json_get_u64(a, "ring_size"),
                gc_json_get_str(a, "exception_status"));
        fprintf(out, "    read ptr %s, write ptr %s, save area %s (%" PRIu64 " bytes per XCC)\n",
                gc_json_get_str(a, "read_pointer_address"), gc_json_get_str(a, "write_pointer_address"),
                gc_json_get_str(a, "ctx_save_restore_address"),
                gc_json_get_u64(a, "ctx_save_restore_area_size"));
    }
}

static void render_notes(FILE *out, const json_t *notes)
{
    size_t i;
    json_t *n;

    fprintf(out, "\nNotes (%zu):\n", json_array_size(notes));
    json_array_foreach(notes, i, n)
    {
        const char *name = gc_json_get_str(n, "name");

        fprintf(out, "  %-8s %#10" PRIx64 "  %-26s %10" PRIu64 " bytes\n", gc_json_get_str(n, "owner"),
                gc_json_get_u64(n, "type"), name ? name : "(unknown type)", gc_json_get_u64(n, "size"));
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
    json_array_foreach(c, i, o) fprintf(out, "  %s  %s, embedded: %s\n  %s\n",
                                        gc_json_get_str(o, "load_address"),
                                        gc_format_size(gc_json_get_u64(o, "size"), a, sizeof(a)),
                                        gc_json_get_str(o, "embedded"), gc_json_get_str(o, "uri"));
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
        const json_t *kind = json_object_get(o, "kind");

        fprintf(out, "  %18s  %10s  %-8s %s\n", gc_json_get_str(o, "base"),
                gc_format_size(gc_json_get_u64(o, "size"), a, sizeof(a)),
                json_is_string(kind) ? json_string_value(kind) : "?", gc_json_get_str(o, "label"));
    }
}

static void render_segments(FILE *out, const json_t *s, int list_all)
{
    char a[32], b[32];
    size_t i;
    json_t *seg;

    fprintf(out, "\nSegments: %" PRIu64 " PT_LOAD, %s in file, %s of memory", gc_json_get_u64(s, "count"),
            gc_format_size(gc_json_get_u64(s, "file_bytes"), a, sizeof(a)),
            gc_format_size(gc_json_get_u64(s, "memory_bytes"), b, sizeof(b)));
    if (gc_json_get_u64(s, "count"))
        fprintf(out, ", %s-%s", gc_json_get_str(s, "lowest"), gc_json_get_str(s, "highest"));
    fputc('\n', out);
    if (gc_json_get_u64(s, "not_dumped"))
        fprintf(out, "  %" PRIu64 " segments have no data in the file (not dumped)\n",
                gc_json_get_u64(s, "not_dumped"));
    if (!list_all)
        return;
    fprintf(out, "  %-18s %12s %12s %5s %12s\n", "vaddr", "memsz", "filesz", "flags", "offset");
    json_array_foreach(json_object_get(s, "list"), i, seg)
        fprintf(out, "  %-18s %12" PRIu64 " %12" PRIu64 " %5s %12" PRIu64 "\n",
                gc_json_get_str(seg, "vaddr"), gc_json_get_u64(seg, "memsz"), gc_json_get_u64(seg, "filesz"),
                gc_json_get_str(seg, "flags"), gc_json_get_u64(seg, "offset"));
}

static void render_problems(FILE *out, const json_t *file, const json_t *problems)
{
    size_t i;
    json_t *p;
    const json_t *quirks = json_object_get(file, "quirks");

    if (json_array_size(quirks)) {
        fprintf(out, "\nTolerated deviations (%zu):\n", json_array_size(quirks));
        json_array_foreach(quirks, i, p) fprintf(out, "  - %s\n", json_string_value(p));
    }
    if (json_array_size(problems)) {
        fprintf(out, "\nProblems (%zu):\n", json_array_size(problems));
        json_array_foreach(problems, i, p) fprintf(out, "  - %s\n", json_string_value(p));
    }
}

static void render_text(FILE *out, const json_t *doc, int list_segments)
{
    render_file(out, json_object_get(doc, "file"));
    render_capture(out, json_object_get(doc, "capture"));
    render_manifest_summary(out, json_object_get(doc, "manifest"), json_object_get(doc, "file"));
    render_amdgpu(out, json_object_get(doc, "amdgpu"));
    render_code_objects(out, json_object_get(doc, "code_objects"));
    render_allocations(out, json_object_get(doc, "allocations"));
    render_notes(out, json_object_get(doc, "notes"));
    render_segments(out, json_object_get(doc, "segments"), list_segments);
    render_problems(out, json_object_get(doc, "file"), json_object_get(doc, "problems"));
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
    if (json) {
        if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            rc = CLI_EXIT_IOERR;
        fputc('\n', stdout);
    } else {
        FILE *f = cli_text_open(stdout);

        if (f) {
            render_text(f, doc, segments);
            if (fclose(f) != 0)
                rc = CLI_EXIT_IOERR;
        } else {
            rc = cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        }
    }
    if (fflush(stdout) != 0)
        rc = cli_fail(CLI_EXIT_IOERR, NULL, "cannot write output");
    else if (info.unusable[0])
        rc = cli_fail(CLI_EXIT_DATAERR, path, "%s", info.unusable);
    gc_info_free(&info);
    gpucore_core_close(core);
    return rc;
}
