/* SPDX-License-Identifier: MIT */
/*
 * `gpucore analyze`'s text output (analyze.h): each view's document (analyze/triage.h) for
 * people. Only the document is read, so the text says nothing the JSON does not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "analyze.h"
#include "gc_util.h"
#include "triage.h"

/* The plural "s" of a count's noun: "1 wave", "2 waves", "0 waves". */
static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* The name shown for a kernel (GC_TK_KERNEL) or symbol (GC_TK_SYMBOL) of @p o: the demangled
   one beside it when there is one (a C++ name), else the name, else @p fallback. */
static const char *kernel_shown(const json_t *o, const char *fallback)
{
    const char *d = gc_json_get_str(o, GC_TK_KERNEL_DEMANGLED);

    return d ? d : gc_json_get_str_or(o, GC_TK_KERNEL, fallback);
}

static const char *symbol_shown(const json_t *o, const char *fallback)
{
    const char *d = gc_json_get_str(o, GC_TK_SYMBOL_DEMANGLED);

    return d ? d : gc_json_get_str_or(o, GC_TK_SYMBOL, fallback);
}

#define GROUP_WAVES_SHOWN 16u /* wave indices listed per group in the report */

/* ---------------------------------------------------------------------------------------- */
/* The report                                                                                 */
/* ---------------------------------------------------------------------------------------- */

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

static void render_host(FILE *out, const json_t *host);

static void render_list(FILE *out, const char *title, const json_t *arr)
{
    size_t i;
    json_t *v;

    if (!json_array_size(arr))
        return;
    fprintf(out, "\n%s:\n", title);
    json_array_foreach(arr, i, v) fprintf(out, "  - %s\n", json_string_value(v));
}

/* "file:line:column" of a frame or source object ("file:line", "file", "?"). */
static void location_text(const json_t *o, char *buf, size_t size)
{
    const char *file = gc_json_get_str(o, GC_TK_FILE);
    size_t len = 0;

    buf[0] = '\0';
    gc_str_appendf(buf, size, &len, "%s", file ? file : "?");
    /* A column without a line (DWARF line 0: code of no source line, which LLVM 19 emits with
       a column) is left out: "file:15" would read as line 15. */
    if (!json_is_integer(json_object_get(o, GC_TK_LINE)))
        return;
    gc_str_appendf(buf, size, &len, ":%" PRIu64, gc_json_get_u64(o, GC_TK_LINE));
    if (json_is_integer(json_object_get(o, GC_TK_COLUMN)))
        gc_str_appendf(buf, size, &len, ":%" PRIu64, gc_json_get_u64(o, GC_TK_COLUMN));
}

/* The inline chain of a group or wave, innermost first: "at F (file:line:col)", then one
   "inlined into G (file:line:col)" per enclosing function. Nothing when unknown. */
static void render_source(FILE *out, const char *indent, const json_t *o)
{
    const json_t *chain = json_object_get(o, GC_TK_INLINED);
    char loc[600];
    size_t i;
    json_t *f;

    json_array_foreach(chain, i, f)
    {
        location_text(f, loc, sizeof(loc));
        fprintf(out, "%s%s %s (%s)\n", indent, i ? "inlined into" : "at",
                gc_json_get_str_or(f, GC_TK_FUNCTION, "?"), loc);
    }
    if (!json_is_array(chain) && gc_json_get_str(o, GC_TK_SOURCE_ERROR))
        fprintf(out, "%s(no source line: %s)\n", indent, gc_json_get_str(o, GC_TK_SOURCE_ERROR));
}

static void render_group(FILE *out, const json_t *g)
{
    char waves[256], reasons[256] = "";
    const char *sym = symbol_shown(g, NULL);
    const char *insn = gc_json_get_str(g, GC_TK_INSTRUCTION);
    size_t i, len = 0;
    json_t *v;

    json_array_foreach(json_object_get(g, GC_TK_STOP_REASONS), i, v)
    {
        gc_str_appendf(reasons, sizeof(reasons), &len, "%s%s", i ? "+" : "", json_string_value(v));
    }
    if (!reasons[0])
        snprintf(reasons, sizeof(reasons), "%s",
                 gc_json_get_bool(g, GC_TK_STOPPED) ? "stopped" : "running");
    wave_list_text(json_object_get(g, GC_TK_WAVES), waves, sizeof(waves), GROUP_WAVES_SHOWN);
    fprintf(out, "      %6" PRIu64 " x %-20s %-18s %s\n", gc_json_get_u64(g, GC_TK_COUNT),
            sym ? sym
                : gc_json_get_str_or(g, GC_TK_INSTRUCTION_PC, gc_json_get_str_or(g, GC_TK_PC, "?")),
            reasons,
            insn ? insn : gc_json_get_str_or(g, GC_TK_INSTRUCTION_ERROR, "?"));
    fprintf(out, "               %s%s%s\n", gc_json_get_bool(g, GC_TK_FAULTING) ? "FAULTING " : "",
            waves,
            !json_is_integer(json_object_get(g, GC_TK_DISPATCH)) ? " (no dispatch)"
            : gc_json_get_bool(g, GC_TK_DISPATCH_INFERRED)       ? " (dispatch inferred)"
                                                                 : "");
    render_source(out, "               ", g);
}

/* Whether a faulting group of queue @p q ran dispatch @p index. */
static int dispatch_faulted(const json_t *q, uint64_t index)
{
    size_t i;
    json_t *g;

    json_array_foreach(json_object_get(q, GC_TK_GROUPS), i, g)
    {
        if (gc_json_get_bool(g, GC_TK_FAULTING) &&
            json_is_integer(json_object_get(g, GC_TK_DISPATCH)) &&
            gc_json_get_u64(g, GC_TK_DISPATCH) == index)
            return 1;
    }
    return 0;
}

/* One argument's line: "a (global float*) = 0x7fc383804000 → buffer a, 64 KiB VRAM". */
static void render_argument(FILE *out, size_t i, const json_t *a)
{
    const char *name = gc_json_get_str(a, GC_TK_NAME);
    const char *space = gc_json_get_str(a, GC_TK_ADDRESS_SPACE);
    const char *type = gc_json_get_str(a, GC_TK_TYPE);
    const char *rel = gc_json_get_str(a, GC_TK_RELATION);
    const char *verr = gc_json_get_str(a, GC_TK_VALUE_ERROR);

    if (name)
        fprintf(out, "        %s", name);
    else
        fprintf(out, "        argument %zu", i);
    fprintf(out, " (%s%s%s)", space ? space : "", space ? " " : "",
            type ? type : gc_json_get_str_or(a, GC_TK_VALUE_KIND, "?"));
    if (verr && strcmp(verr, GC_TR_REDACTED) == 0)
        fprintf(out, " = redacted (withheld by --redact)");
    else
        fprintf(out, " = %s", gc_json_get_str_or(a, GC_TK_VALUE, "?"));
    if (verr && strcmp(verr, GC_TR_REDACTED) != 0)
        fprintf(out, " (%s)", verr);
    if (rel)
        fprintf(out, " \u2192 %s", rel);
    fputc('\n', out);
}

/* A dispatch's arguments, as the report's "arguments" gives them: the program's, one line an
   argument; the hidden ones, which the runtime fills (block counts, group sizes, the printf
   buffer...), counted on one line, as --json lists each of them. */
static void render_arguments(FILE *out, const json_t *x)
{
    const json_t *args = json_object_get(x, GC_TK_ARGUMENTS);
    const char *err = gc_json_get_str(x, GC_TK_ARGUMENTS_ERROR);
    size_t i, hidden = 0;
    json_t *a;

    if (json_is_array(args))
        fprintf(out, "      arguments:\n");
    json_array_foreach(args, i, a)
    {
        if (gc_json_get_bool(a, GC_TK_HIDDEN))
            hidden++;
        else
            render_argument(out, i, a);
    }
    if (hidden)
        fprintf(out, "        and %zu hidden argument%s filled by the runtime (--json lists %s)\n",
                hidden, hidden == 1 ? "" : "s", hidden == 1 ? "it" : "them");
    if (err)
        fprintf(out, "      %s: %s\n",
                json_is_array(args) ? "argument problems" : "arguments not decoded", err);
}

#define PRINTF_SHOWN 20u /* device printf messages the text lists per dispatch */

/* One message: its text without the final newline most formats end with, or why not. */
static void render_printf_record(FILE *out, const json_t *r)
{
    const char *text = gc_json_get_str(r, GC_TK_TEXT);
    size_t i, n;
    json_t *a;

    if (text) {
        size_t bs = 0;

        n = strlen(text);
        while (n >= 1 && bs + 2 <= n && text[n - 2 - bs] == '\\')
            bs++; /* backslashes before the final letter: an odd count escapes it */
        if (n >= 2 && text[n - 1] == 'n' && bs % 2 == 1)
            n -= 2;
        fprintf(out, "  %.*s\n", (int)n, text);
        return;
    }
    fprintf(out, "  [offset %" PRIu64 ", printf id %" PRIu64 ", arguments",
            gc_json_get_u64(r, GC_TK_OFFSET), gc_json_get_u64(r, GC_TK_ID));
    json_array_foreach(json_object_get(r, GC_TK_ARGS), i, a)
            fprintf(out, "%s %s", i ? "," : "", json_string_value(a));
    fprintf(out, "] not formatted: %s\n", gc_json_get_str_or(r, GC_TK_TEXT_ERROR, "?"));
}

/* A dispatch's device printf messages, when its buffer in the core has any or says why not. */
static void render_printf(FILE *out, const json_t *x)
{
    const json_t *p = json_object_get(x, GC_TK_PRINTF);
    const json_t *recs = json_object_get(p, GC_TK_RECORDS);
    const char *problem = gc_json_get_str(p, GC_TK_PROBLEM);
    size_t n = json_array_size(recs), i;
    json_t *r;

    if (!json_is_object(p) || (!n && !problem && !gc_json_get_bool(p, GC_TK_TRUNCATED)))
        return;
    fprintf(out, "\nDevice printf (dispatch %" PRIu64 ", kernel %s): %zu message%s\n",
            gc_json_get_u64(x, GC_TK_INDEX), kernel_shown(x, "unknown"), n,
            plural(n));
    json_array_foreach(recs, i, r)
    {
        if (i == PRINTF_SHOWN) {
            fprintf(out, "  ... and %zu more (--json lists them)\n", n - i);
            break;
        }
        render_printf_record(out, r);
    }
    if (gc_json_get_bool(p, GC_TK_TRUNCATED))
        fprintf(out, "  truncated: the core holds %" PRIu64 " bytes of the buffer, the header "
                     "says %" PRIu64 " bytes of messages follow its 8 bytes\n",
                gc_json_get_u64(p, GC_TK_HELD), gc_json_get_u64(p, GC_TK_USED));
    if (problem)
        fprintf(out, "  problem: %s\n", problem);
}

/* The device printf messages of every listed dispatch. */
static void render_printfs(FILE *out, const json_t *doc)
{
    size_t i, k, d;
    json_t *v, *q, *x;

    json_array_foreach(json_object_get(doc, GC_TK_AGENTS), i, v)
    {
        json_array_foreach(json_object_get(v, GC_TK_QUEUES), k, q)
        {
            json_array_foreach(json_object_get(q, GC_TK_DISPATCHES), d, x) render_printf(out, x);
        }
    }
}

/* The groups of queue @p q the report does not list, and their waves. */
static void render_groups_omitted(FILE *out, const json_t *q)
{
    uint64_t n = gc_json_get_u64(q, GC_TK_GROUPS_OMITTED), listed = 0;
    size_t i;
    json_t *g;

    if (!n)
        return;
    json_array_foreach(json_object_get(q, GC_TK_GROUPS), i, g)
    {
        listed += gc_json_get_u64(g, GC_TK_COUNT);
    }
    fprintf(out, "      ... and %" PRIu64 " more group%s of %" PRIu64 " wave%s, not listed\n", n,
            plural(n), gc_json_get_u64(q, GC_TK_WAVES) - listed,
            plural(gc_json_get_u64(q, GC_TK_WAVES) - listed));
}

void analyze_render_report(FILE *out, const json_t *doc)
{
    const json_t *cap = json_object_get(doc, GC_TK_CAPTURE);
    size_t i, k, d;
    json_t *v, *q, *x;

    fprintf(out, "Core: %s", gc_json_get_str(doc, GC_TK_CORE));
    if (gc_json_get_str(doc, GC_TK_HOST_CORE))
        fprintf(out, " + host core %s", gc_json_get_str(doc, GC_TK_HOST_CORE));
    if (json_is_object(cap))
        fprintf(out, " (pid %" PRIu64 ", %s, trigger %s, tier %s)", gc_json_get_u64(cap, GC_TK_PID),
                gc_json_get_str_or(cap, GC_TK_EXE, "?"),
                gc_json_get_str_or(cap, GC_TK_TRIGGER, "?"),
                gc_json_get_str_or(cap, GC_TK_TIER, "?"));
    fputc('\n', out);
    if (gc_json_get_bool(doc, GC_TK_FILE_TRUNCATED))
        fprintf(out, "File truncated: the core was cut short (an interrupted copy, a full disk); "
                     "what follows is what the part before the cut holds\n");
    json_array_foreach(json_object_get(doc, GC_TK_SUMMARY), i, v)
            fprintf(out, "%s\n", json_string_value(v));

    fprintf(out, "\n%" PRIu64 " wave%s, %" PRIu64 " stopped, %" PRIu64 " faulting\n",
            gc_json_get_u64(doc, GC_TK_WAVES), plural(gc_json_get_u64(doc, GC_TK_WAVES)),
            gc_json_get_u64(doc, GC_TK_STOPPED_WAVES),
            gc_json_get_u64(doc, GC_TK_FAULTING_WAVES));
    json_array_foreach(json_object_get(doc, GC_TK_AGENTS), i, v)
    {
        const char *name = gc_json_get_str(v, GC_TK_NAME);

        fprintf(out, "\nAgent %" PRIu64 ": %s%s%s%s, gpu_id %" PRIu64 "%s\n",
                gc_json_get_u64(v, GC_TK_INDEX),
                gc_json_get_str_or(v, GC_TK_TARGET, "unknown target"), name ? " (" : "",
                name ? name : "", name ? ")" : "", gc_json_get_u64(v, GC_TK_GPU_ID),
                gc_json_get_bool(v, GC_TK_DEBUGGABLE) ? ""
                                                      : ", not debuggable (AMD's tools ignore it)");
        json_array_foreach(json_object_get(v, GC_TK_QUEUES), k, q)
        {
            const json_t *exc = json_object_get(q, GC_TK_EXCEPTIONS);

            fprintf(out, "  Queue %" PRIu64 " (id %" PRIu64 ", %s): %" PRIu64 " wave%s",
                    gc_json_get_u64(q, GC_TK_INDEX), gc_json_get_u64(q, GC_TK_QUEUE_ID),
                    gc_json_get_str_or(q, GC_TK_TYPE, "unknown type"),
                    gc_json_get_u64(q, GC_TK_WAVES), plural(gc_json_get_u64(q, GC_TK_WAVES)));
            if (json_array_size(exc)) {
                fprintf(out, ", exceptions");
                json_array_foreach(exc, d, x)
                        fprintf(out, "%s %s", d ? "," : "", json_string_value(x));
            }
            fputc('\n', out);
            if (gc_json_get_str(q, GC_TK_PROBLEM))
                fprintf(out, "    problem: %s\n", gc_json_get_str(q, GC_TK_PROBLEM));
            if (gc_json_get_str(json_object_get(q, GC_TK_SAVE_AREA_MISSING), GC_TK_TEXT))
                fprintf(out, "    waves not saved: %s\n",
                        gc_json_get_str(json_object_get(q, GC_TK_SAVE_AREA_MISSING), GC_TK_TEXT));
            json_array_foreach(json_object_get(q, GC_TK_DISPATCHES), d, x)
            {
                const json_t *gr = json_object_get(x, GC_TK_GRID),
                             *wg = json_object_get(x, GC_TK_WORKGROUP);

                fprintf(out,
                        "    dispatch %" PRIu64 ": %s, packet %" PRIu64 ", grid %" PRIu64
                        "x%" PRIu64 "x%" PRIu64 ", workgroup %" PRIu64 "x%" PRIu64 "x%" PRIu64
                        ", %" PRIu64 " wave%s\n",
                        gc_json_get_u64(x, GC_TK_INDEX),
                        kernel_shown(x, "unknown kernel"),
                        gc_json_get_u64(x, GC_TK_PACKET_ID),
                        (uint64_t)json_integer_value(json_array_get(gr, 0)),
                        (uint64_t)json_integer_value(json_array_get(gr, 1)),
                        (uint64_t)json_integer_value(json_array_get(gr, 2)),
                        (uint64_t)json_integer_value(json_array_get(wg, 0)),
                        (uint64_t)json_integer_value(json_array_get(wg, 1)),
                        (uint64_t)json_integer_value(json_array_get(wg, 2)),
                        gc_json_get_u64(x, GC_TK_WAVES), plural(gc_json_get_u64(x, GC_TK_WAVES)));
                if (dispatch_faulted(q, gc_json_get_u64(x, GC_TK_INDEX)))
                    render_arguments(out, x);
            }
            if (gc_json_get_u64(q, GC_TK_DISPATCHES_OMITTED))
                fprintf(out, "    ... and %" PRIu64 " more dispatches, not listed\n",
                        gc_json_get_u64(q, GC_TK_DISPATCHES_OMITTED));
            if (json_array_size(json_object_get(q, GC_TK_GROUPS))) {
                fprintf(out, "    waves by PC and stop reason:\n");
                json_array_foreach(json_object_get(q, GC_TK_GROUPS), d, x) render_group(out, x);
            }
            render_groups_omitted(out, q);
        }
    }
    render_printfs(out, doc);
    json_array_foreach(json_object_get(doc, GC_TK_CODE_OBJECTS), i, v)
    {
        if (i == 0)
            fprintf(out, "\nCode objects:\n");
        fprintf(out, "  %s  %s (%s)\n", gc_json_get_str_or(v, GC_TK_LOAD_ADDRESS, "?"),
                gc_json_get_str_or(v, GC_TK_URI, "?"), gc_json_get_str_or(v, GC_TK_SOURCE, "?"));
        if (gc_json_get_str(v, GC_TK_LINE_INFO_TEXT))
            fprintf(out, "    %s\n", gc_json_get_str(v, GC_TK_LINE_INFO_TEXT));
    }
    render_host(out, json_object_get(doc, GC_TK_HOST));
    render_list(out, "Not captured", json_object_get(doc, GC_TK_NOT_CAPTURED));
    render_list(out, "Problems", json_object_get(doc, GC_TK_PROBLEMS));
}

/* One host frame: "#N  0xPC in SYMBOL+OFF (MODULE) at FILE:LINE:COL", or what is missing. */
static void render_host_frame(FILE *out, size_t n, const json_t *f)
{
    const char *mod = gc_json_get_str(f, GC_TK_MODULE), *sym = symbol_shown(f, NULL);
    const json_t *src = json_object_get(f, GC_TK_SOURCE);

    fprintf(out, "    #%-2zu %s", n, gc_json_get_str_or(f, GC_TK_PC, "?"));
    if (sym)
        fprintf(out, " in %s+0x%" PRIx64 " (%s)", sym, gc_json_get_u64(f, GC_TK_SYMBOL_OFFSET),
                mod ? mod : "?");
    else if (mod)
        fprintf(out, " in %s+%s (no symbols)", mod,
                gc_json_get_str_or(f, GC_TK_MODULE_OFFSET, "?"));
    else
        fprintf(out, " (in no mapped file: no symbols)");
    if (json_is_object(src))
        fprintf(out, " at %s:%" PRIu64 ":%" PRIu64, gc_json_get_str_or(src, GC_TK_FILE, "?"),
                gc_json_get_u64(src, GC_TK_LINE), gc_json_get_u64(src, GC_TK_COLUMN));
    fputc('\n', out);
}

/* Whether thread @p th's backtrace ended in a module without symbols (its last frame has a
   module and no symbol): the reason is that module's, which the report says once. */
static int ends_without_symbols(const json_t *th)
{
    const json_t *frames = json_object_get(th, GC_TK_FRAMES);
    const json_t *last = json_array_get(frames, json_array_size(frames) - 1);

    return json_is_object(last) && gc_json_get_str(last, GC_TK_MODULE) &&
           !gc_json_get_str(last, GC_TK_SYMBOL);
}

/* Whether some thread's backtrace of @p threads ended in module @p name (no symbols there). */
static int backtrace_ends_in(const json_t *threads, const char *name)
{
    const json_t *th;
    size_t i;

    json_array_foreach(threads, i, th)
    {
        const json_t *frames = json_object_get(th, GC_TK_FRAMES);
        const json_t *last = json_array_get(frames, json_array_size(frames) - 1);

        if (ends_without_symbols(th) && gc_json_get_str(th, GC_TK_UNWIND_END) &&
            strcmp(gc_json_get_str_or(last, GC_TK_MODULE, ""), name) == 0)
            return 1;
    }
    return 0;
}

/* The host threads and their backtraces (the report's "host"), and the modules without
   symbols, those with the same reason on one line. */
static void render_host(FILE *out, const json_t *host)
{
    const json_t *threads = json_object_get(host, GC_TK_THREADS), *th, *f, *m;
    const json_t *nosym = json_object_get(host, GC_TK_MODULES_WITHOUT_SYMBOLS);
    size_t i, k;

    if (!json_is_object(host))
        return;
    fprintf(out, "\nHost threads of process %" PRIu64 " (%zu):\n", gc_json_get_u64(host, GC_TK_PID),
            json_array_size(threads));
    if (gc_json_get_str(host, GC_TK_PROBLEM))
        fprintf(out, "  no backtraces: %s\n", gc_json_get_str(host, GC_TK_PROBLEM));
    json_array_foreach(threads, i, th)
    {
        const char *sig = gc_json_get_str(th, GC_TK_SIGNAL),
                   *sc = gc_json_get_str(th, GC_TK_SYSCALL);
        int first = gc_json_get_bool(th, GC_TK_FIRST), met = gc_json_get_bool(th, GC_TK_MET_ERROR);

        /* "(the core's first, signal SIGSEGV; the GPU error was reported on it)" */
        fprintf(out, "  thread %" PRIu64 "%s%s%s%s%s%s%s:\n", gc_json_get_u64(th, GC_TK_TID),
                first || met ? " (" : "", first ? "the core's first" : "",
                first && sig ? ", signal " : "", first && sig ? sig : "", first && met ? "; " : "",
                met ? "the GPU error was reported on it" : "", first || met ? ")" : "");
        if (sc)
            fprintf(out, "    in system call %s\n", sc);
        json_array_foreach(json_object_get(th, GC_TK_FRAMES), k, f) render_host_frame(out, k, f);
        if (gc_json_get_bool(th, GC_TK_MORE_FRAMES))
            fprintf(out, "    (more frames not shown)\n");
        /* A backtrace that ends in a module without symbols: the "no symbols for" line below
           says so once for every thread. */
        if (gc_json_get_str(th, GC_TK_UNWIND_END) && !ends_without_symbols(th))
            fprintf(out, "    (unwinding stopped: %s)\n", gc_json_get_str(th, GC_TK_UNWIND_END));
    }
    if (gc_json_get_u64(host, GC_TK_MORE_THREADS))
        fprintf(out, "  (%" PRIu64 " more thread%s not unwound)\n",
                gc_json_get_u64(host, GC_TK_MORE_THREADS),
                plural(gc_json_get_u64(host, GC_TK_MORE_THREADS)));
    json_array_foreach(nosym, i, m)
    {
        const char *why = gc_json_get_str_or(m, GC_TK_WHY, "?");
        const json_t *o;
        size_t j, n;
        int seen = 0, ends;

        json_array_foreach(nosym, j, o) if (j < i && gc_json_get_bool(o, GC_TK_IN_FRAMES) &&
                                            strcmp(gc_json_get_str_or(o, GC_TK_WHY, "?"), why) == 0)
                seen = 1;
        if (seen || !gc_json_get_bool(m, GC_TK_IN_FRAMES))
            continue;
        fprintf(out, "  no symbols for %s", gc_json_get_str_or(m, GC_TK_NAME, "?"));
        ends = backtrace_ends_in(threads, gc_json_get_str_or(m, GC_TK_NAME, ""));
        n = 1;
        json_array_foreach(nosym, j, o) if (j > i && gc_json_get_bool(o, GC_TK_IN_FRAMES) &&
                                            strcmp(gc_json_get_str_or(o, GC_TK_WHY, "?"), why) == 0)
        {
            fprintf(out, ", %s", gc_json_get_str_or(o, GC_TK_NAME, "?"));
            ends |= backtrace_ends_in(threads, gc_json_get_str_or(o, GC_TK_NAME, ""));
            n++;
        }
        /* Said once here, not after every thread whose backtrace stops in one of them. */
        fprintf(out, ": %s%s\n", why,
                !ends ? "" : n == 1 ? "; backtraces stop in it" : "; backtraces stop in them");
    }
}

/* ---------------------------------------------------------------------------------------- */
/* waves, regs, disasm, mem                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* The line (and the instruction) that heads regs and disasm. */
static void render_wave_head(FILE *out, const json_t *w)
{
    const json_t *wg = json_object_get(w, GC_TK_WORKGROUP);

    char disp[40] = "unknown", pc[96];
    const char *raw = gc_json_get_str_or(w, GC_TK_PC, "?");
    const char *ipc = gc_json_get_str(w, GC_TK_INSTRUCTION_PC);

    /* A trapped wave is shown at its s_trap; its saved PC, the instruction after, said too. */
    if (ipc && strcmp(ipc, raw) != 0)
        snprintf(pc, sizeof(pc), "pc %s, saved pc %s after the trap", ipc, raw);
    else
        snprintf(pc, sizeof(pc), "pc %s", raw);
    if (json_is_integer(json_object_get(w, GC_TK_DISPATCH)))
        snprintf(disp, sizeof(disp), "%" PRIu64 "%s", gc_json_get_u64(w, GC_TK_DISPATCH),
                 gc_json_get_bool(w, GC_TK_DISPATCH_INFERRED) ? " (inferred)" : "");
    fprintf(out,
            "Wave %" PRIu64 ": %s at %s (%s), dispatch %s, queue %" PRIu64
            ", workgroup (%" PRId64 ",%" PRId64 ",%" PRId64 ") wave %" PRId64 ", %" PRIu64
            " lanes, exec %s\n",
            gc_json_get_u64(w, GC_TK_INDEX), kernel_shown(w, "unknown kernel"),
            symbol_shown(w, "?"), pc, disp,
            gc_json_get_u64(w, GC_TK_QUEUE), gc_json_index_value(json_array_get(wg, 0)),
            gc_json_index_value(json_array_get(wg, 1)), gc_json_index_value(json_array_get(wg, 2)),
            gc_json_index_value(json_object_get(w, GC_TK_WAVE_IN_GROUP)),
            gc_json_get_u64(w, GC_TK_LANES), gc_json_get_str_or(w, GC_TK_EXEC, "?"));
    if (gc_json_get_str(w, GC_TK_INSTRUCTION))
        fprintf(out, "  %s\n", gc_json_get_str(w, GC_TK_INSTRUCTION));
    else if (gc_json_get_str(w, GC_TK_INSTRUCTION_ERROR))
        fprintf(out, "  (%s)\n", gc_json_get_str(w, GC_TK_INSTRUCTION_ERROR));
    render_source(out, "  ", w);
}

void analyze_render_waves_head(FILE *out, const json_t *head)
{
    fprintf(out, "%" PRIu64 " wave%s\n", gc_json_get_u64(head, GC_TK_COUNT),
            plural(gc_json_get_u64(head, GC_TK_COUNT)));
    fprintf(out, "%6s %5s %5s %4s %-14s %-16s %-18s %-18s %s\n", "wave", "queue", "disp", "xcc",
            "workgroup", "symbol", "exec", "stop", "instruction");
}

void analyze_render_wave(FILE *out, const json_t *w)
{
    const json_t *wg = json_object_get(w, GC_TK_WORKGROUP);
    char grp[48], disp[16], reasons[128] = "";
    size_t k, len = 0;
    json_t *r;

    snprintf(grp, sizeof(grp), "(%" PRId64 ",%" PRId64 ",%" PRId64 ")/%" PRId64,
             gc_json_index_value(json_array_get(wg, 0)), gc_json_index_value(json_array_get(wg, 1)),
             gc_json_index_value(json_array_get(wg, 2)),
             gc_json_index_value(json_object_get(w, GC_TK_WAVE_IN_GROUP)));
    if (json_is_integer(json_object_get(w, GC_TK_DISPATCH)))
        snprintf(disp, sizeof(disp), "%" PRIu64, gc_json_get_u64(w, GC_TK_DISPATCH));
    else
        snprintf(disp, sizeof(disp), "-");
    json_array_foreach(json_object_get(w, GC_TK_STOP_REASONS), k, r)
    {
        gc_str_appendf(reasons, sizeof(reasons), &len, "%s%s", k ? "+" : "", json_string_value(r));
    }
    if (!reasons[0])
        snprintf(reasons, sizeof(reasons), "%s",
                 gc_json_get_bool(w, GC_TK_STOPPED) ? "stopped" : "running");
    fprintf(out, "%6" PRIu64 " %5" PRIu64 " %5s %4" PRIu64 " %-14s %-16s %-18s %-18s %s\n",
            gc_json_get_u64(w, GC_TK_INDEX), gc_json_get_u64(w, GC_TK_QUEUE), disp,
            gc_json_get_u64(w, GC_TK_XCC), grp,
            symbol_shown(w, gc_json_get_str_or(w, GC_TK_INSTRUCTION_PC,
                                               gc_json_get_str_or(w, GC_TK_PC, "?"))),
            gc_json_get_str_or(w, GC_TK_EXEC, "?"), reasons,
            gc_json_get_str_or(w, GC_TK_INSTRUCTION,
                               gc_json_get_str(w, GC_TK_INSTRUCTION_ERROR)
                                       ? "(PC inside an instruction or not disassembled)"
                                       : ""));
    /* Every wave's source and inline chain, running or stopped, as --json has them. */
    render_source(out, "         ", w);
}

void analyze_render_regs(FILE *out, const json_t *doc)
{
    size_t i, k;
    json_t *r, *l;

    render_wave_head(out, json_object_get(doc, GC_TK_WAVE));
    json_array_foreach(json_object_get(doc, GC_TK_REGISTERS), i, r)
    {
        const json_t *lanes = json_object_get(r, GC_TK_LANES);

        if (!lanes) {
            fprintf(out, "  %-14s %s\n", gc_json_get_str(r, GC_TK_NAME),
                    gc_json_get_str_or(r, GC_TK_VALUE, "unreadable"));
            continue;
        }
        fprintf(out, "  %-14s", gc_json_get_str(r, GC_TK_NAME));
        json_array_foreach(lanes, k, l)
        {
            if (k && k % 8 == 0)
                fprintf(out, "\n  %-14s", "");
            if (k % 8 == 0)
                fprintf(out, " [%2zu]", k);
            if (json_is_string(l))
                fprintf(out, " %08" PRIx64, (uint64_t)strtoull(json_string_value(l), NULL, 16));
            else
                fprintf(out, " %8s", "?");
        }
        fputc('\n', out);
    }
}

void analyze_render_disasm(FILE *out, const json_t *doc)
{
    size_t i;
    json_t *x;
    const json_t *prev = NULL;

    if (json_is_object(json_object_get(doc, GC_TK_WAVE)))
        render_wave_head(out, json_object_get(doc, GC_TK_WAVE));
    else
        fprintf(out, "Code at %s (%s), %s:\n", gc_json_get_str(doc, GC_TK_PC),
                symbol_shown(doc, "no symbol"),
                gc_json_get_str(doc, GC_TK_TARGET));
    json_array_foreach(json_object_get(doc, GC_TK_INSTRUCTIONS), i, x)
    {
        /* Source lines interleaved as objdump -S -l does: the chain, when it changes. */
        const json_t *chain = json_object_get(x, GC_TK_INLINED);

        if (json_is_array(chain) && (!json_is_array(prev) || !json_equal(chain, prev)))
            render_source(out, "                         ; ", x);
        prev = chain;
        fprintf(out, "%s %18s  %-16s %s\n", gc_json_get_bool(x, GC_TK_CURRENT) ? "=>" : "  ",
                gc_json_get_str(x, GC_TK_ADDRESS), symbol_shown(x, ""),
                gc_json_get_str(x, GC_TK_TEXT));
    }
    if (gc_json_get_str(doc, GC_TK_NOTE))
        fprintf(out, "note: %s\n", gc_json_get_str(doc, GC_TK_NOTE));
}

void analyze_render_mem(FILE *out, const json_t *doc)
{
    const char *hex = gc_json_get_str(doc, GC_TK_DATA);
    uint64_t n = gc_json_get_u64(doc, GC_TK_BYTES_READ), addr = gc_json_get_u64(doc, GC_TK_ADDRESS);

    if (n == 0 && json_is_string(json_object_get(doc, GC_TK_ERROR)))
        return; /* nothing read: the error, on stderr, is all there is to say */
    if (json_is_integer(json_object_get(doc, GC_TK_WAVE)))
        fprintf(out, "%s memory of wave %" PRIu64 ", %" PRIu64 " byte%s at %s:\n",
                gc_json_get_str(doc, GC_TK_SPACE), gc_json_get_u64(doc, GC_TK_WAVE), n, plural(n),
                gc_json_get_str(doc, GC_TK_ADDRESS));
    else
        fprintf(out, "%s memory, %" PRIu64 " byte%s at %s:\n", gc_json_get_str(doc, GC_TK_SPACE),
                n, plural(n), gc_json_get_str(doc, GC_TK_ADDRESS));
    for (uint64_t i = 0; hex && i < n; i += 16) {
        char ascii[17];
        uint64_t k;

        fprintf(out, "%016" PRIx64 " ", addr + i);
        for (k = 0; k < 16; k++) {
            if (i + k < n) {
                unsigned c = (unsigned)strtoul(
                        (char[3]){ hex[2 * (i + k)], hex[2 * (i + k) + 1], 0 }, NULL, 16);

                fprintf(out, "%s%02x", k == 8 ? "  " : " ", c);
                ascii[k] = c >= 0x20 && c < 0x7f ? (char)c : '.';
            } else {
                fprintf(out, "%s  ", k == 8 ? "  " : " ");
                ascii[k] = ' ';
            }
        }
        ascii[16] = '\0';
        fprintf(out, "  |%s|\n", ascii);
    }
}
