/* SPDX-License-Identifier: MIT */
/*
 * gpucore analyze: explain a core.
 *
 *   gpucore analyze [--json] CORE                       the triage report
 *   gpucore analyze waves [--json] [--faulting] [--stopped] [--queue Q] [--wave N] CORE
 *   gpucore analyze regs --wave N [--reg NAME]... [--json] CORE
 *   gpucore analyze disasm [--wave N | --address A] [--before N] [--after N] [--json] CORE
 *   gpucore analyze mem [--address A] [--size N] [--space S] [--wave N] [--lane L] [--json] CORE
 *
 * As in `gpucore info`, every view first builds one JSON document (the model) and then prints
 * it either as JSON (`--json`, schema "gpucore.analyze/1") or as text, so the two outputs never
 * disagree. This file: the command line, the view table, the errors and exit codes. The
 * documents are built by analyze/ (triage.h) and rendered as text by analyze_render.c
 * (analyze.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <gpucore/core.h>

#include "analyze.h"
#include "cli.h"
#include "triage.h"

/* ---------------------------------------------------------------------------------------- */
/* Command line                                                                               */
/* ---------------------------------------------------------------------------------------- */

enum view { V_REPORT, V_WAVES, V_REGS, V_DISASM, V_MEM };

#define O_JSON     0x01u
#define O_WAVE     0x02u
#define O_FAULTING 0x04u
#define O_REG      0x08u
#define O_ADDRESS  0x10u
#define O_SIZE     0x20u
#define O_SPACE    0x40u
#define O_LANE     0x80u
#define O_CONTEXT  0x100u
#define O_HOST     0x200u
#define O_COPATH   0x400u
#define O_EXITCODE 0x800u
#define O_SYSROOT  0x1000u
#define O_QUEUE    0x2000u
#define O_STOPPED  0x4000u

static const struct {
    const char *name;
    enum view view;
    uint32_t allowed;
} views[] = {
    { "report", V_REPORT, O_JSON | O_HOST | O_COPATH | O_EXITCODE | O_SYSROOT },
    { "waves", V_WAVES, O_JSON | O_WAVE | O_FAULTING | O_STOPPED | O_QUEUE | O_HOST | O_COPATH },
    { "regs", V_REGS, O_JSON | O_WAVE | O_REG | O_HOST | O_COPATH },
    { "disasm", V_DISASM, O_JSON | O_WAVE | O_ADDRESS | O_CONTEXT | O_HOST | O_COPATH },
    { "mem", V_MEM, O_JSON | O_WAVE | O_ADDRESS | O_SIZE | O_SPACE | O_LANE | O_HOST | O_COPATH },
};

static void analyze_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore analyze [--json] [--exit-code] [--host HOSTCORE]\n"
            "                       [--code-object-path DIR] [--sysroot DIR] CORE\n"
            "       gpucore analyze waves [--json] [--faulting] [--stopped] [--queue Q]\n"
            "                             [--wave N] CORE\n"
            "       gpucore analyze regs --wave N [--reg NAME]... [--json] CORE\n"
            "       gpucore analyze disasm [--wave N | --address A] [--before N] [--after N]"
            " [--json] CORE\n"
            "       gpucore analyze mem [--address A] [--size N] [--space S] [--wave N]"
            " [--lane L] [--json] CORE\n"
            "       gpucore analyze --job [--json] DIR|CORE...   (the same as gpucore job)\n"
            "Every view also takes --host HOSTCORE and --code-object-path DIR.\n"
            "mem: --address is required for --space global (the default); the other spaces\n"
            "default to address 0.\n\n"
            "Explain a GPU core: which waves stopped, where, why, and what they were running.\n"
            "The report lists per agent and queue the dispatches with their kernels and the\n"
            "waves grouped by PC and stop reason, faulting groups first, each PC disassembled;\n"
            "a queue lists its first %u dispatches, its first %u groups and the dispatches\n"
            "they run, and counts the rest.\n\n"
            "  --json          the stable JSON document (schema \"" GC_TRIAGE_SCHEMA "\"); also\n"
            "                  when the core cannot give the view: then with \"error\", the\n"
            "                  reason (stderr says it too; the exit status is the same)\n"
            "  --exit-code     (report) the exit status says what the core holds, for\n"
            "                  scripts: 0 no GPU fault (a hang, a capture on demand), 1 a GPU\n"
            "                  fault, 2 no GPU state to judge (no AMDGPU note, or no saved\n"
            "                  wave and no exception); 64-77 keep their meanings\n"
            "  --host HOSTCORE (every view) CORE is a split GPU core file, as the ROCm\n"
            "                  runtime writes gpucore.PID; HOSTCORE is the process's host\n"
            "                  core (core.PID), whose memory the GPU file lacks (r_debug,\n"
            "                  the code object list)\n"
            "  --code-object-path DIR  (every view) look file:// code objects the core\n"
            "                  names up below DIR, as if DIR were the root (only regular\n"
            "                  AMDGPU ELF files); without it they are never opened: a core\n"
            "                  is untrusted, its URIs are named, the embedded copy is used\n"
            "  --sysroot DIR   (report) read the host threads' executable and libraries\n"
            "                  below DIR (`/`: this machine's), for their symbols and\n"
            "                  unwind tables: only regular files inside DIR whose build-id\n"
            "                  is the one the core holds; without it only the core is read\n"
            "                  (the vDSO's symbols; other frames say they have none)\n"
            "  --wave N        one wave (index as `waves` lists it); disasm: its PC (default:\n"
            "                  the first faulting wave); mem: whose LDS/scratch (same default)\n"
            "  --faulting      waves: only the waves stopped by an error\n"
            "  --stopped       waves: only the waves the trap handler stopped\n"
            "  --queue Q       waves: only the waves of queue Q (its index in the report)\n"
            "  --reg NAME      regs: only this register (repeatable), e.g. --reg s16 --reg v1\n"
            "  --address A     disasm: code address; mem: address in the space (required for\n"
            "                  global, default 0 for the others)\n"
            "  --before N, --after N   disasm: instructions around the PC (default 8 each)\n"
            "  --size N        mem: bytes (default 64, at most 1M; K/M suffixes)\n"
            "  --space S       mem: global (default), generic, local (the wave's LDS),\n"
            "                  private (the lane's swizzled scratch), private_wave\n"
            "  --lane L        mem: lane for private (default 0)\n"
            "  -h, --help      this text\n",
            GC_TRIAGE_QUEUE_DISPATCHES, GC_TRIAGE_QUEUE_GROUPS);
}

static int parse_u64(const char *text, uint64_t *ret)
{
    char *end;
    unsigned long long v;

    if (!text || !*text || *text == '-')
        return -1;
    errno = 0;
    v = strtoull(text, &end, 0);
    if (errno || *end)
        return -1;
    *ret = v;
    return 0;
}

/* Print a builder's failure the way triage.h lists for its blame; returns the exit code. */
static int report_failure(const char *core_path, const struct gc_triage_error *err)
{
    switch (err->blame) {
    case GC_TRIAGE_BLAME_REQUEST:
        return cli_fail(CLI_EXIT_USAGE, core_path, "%s", err->diag.message);
    case GC_TRIAGE_BLAME_USAGE:
        return cli_usage_error("analyze", "%s", err->diag.message);
    case GC_TRIAGE_BLAME_MEMORY:
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "%s", err->diag.message);
    case GC_TRIAGE_BLAME_SETUP:
        return cli_fail(CLI_EXIT_UNAVAILABLE, NULL, "%s", err->diag.message);
    case GC_TRIAGE_BLAME_CORE:
        break;
    }
    return cli_report(core_path, &err->diag, CLI_SIDE_INPUT);
}

/* --exit-code: what the report says the core holds (documented in the help text). */
#define ANALYZE_EXIT_NO_FAULT     0
#define ANALYZE_EXIT_FAULT        1
#define ANALYZE_EXIT_NO_GPU_STATE 2

static int report_exit_code(const json_t *doc)
{
    if (json_array_size(json_object_get(doc, GC_TK_FAULTS)) ||
        json_array_size(json_object_get(doc, GC_TK_EXCEPTIONS)) ||
        json_is_object(json_object_get(doc, GC_TK_CAPTURE_EXCEPTION)))
        return ANALYZE_EXIT_FAULT;
    if (gc_json_get_u64(doc, GC_TK_WAVES) == 0)
        return ANALYZE_EXIT_NO_GPU_STATE;
    return ANALYZE_EXIT_NO_FAULT;
}

/* With --json a failure the core is to blame for still prints a document, with "error": the
   same sentence as stderr's (gc_triage_error_doc()). @p rc is the failure's exit code, kept
   unless the document cannot be written. */
static int print_error_doc(const struct gc_triage *t, const char *command, const char *message,
                           int rc)
{
    json_t *doc = gc_triage_error_doc(t, command, message);

    if (!doc)
        return rc;
    if (cli_print_json(doc) != CLI_EXIT_OK)
        rc = CLI_EXIT_IOERR;
    json_decref(doc);
    return rc;
}

static json_t *build_view(const struct gc_triage *t, enum view view,
                          const struct gc_triage_request *req, struct gc_triage_error *err)
{
    switch (view) {
    case V_REPORT:
        return gc_triage_report(t, err);
    case V_REGS:
        return gc_triage_regs(t, req, err);
    case V_DISASM:
        return gc_triage_disasm(t, req, err);
    case V_MEM:
        return gc_triage_mem(t, req, err);
    case V_WAVES: /* never built whole: run_waves() */
        break;
    }
    return NULL;
}

/* A view that could not be built: the error (and with --json, when the core is to blame, the
   document saying it); the exit code. */
static int view_failed(const struct gc_triage *t, size_t vi, const struct gc_triage_error *err,
                       int json)
{
    int rc = report_failure(t->path, err);

    return json && err->blame == GC_TRIAGE_BLAME_CORE
                   ? print_error_doc(t, views[vi].name, err->diag.message, rc)
                   : rc;
}

/*
 * Where `waves` writes, a wave at a time: text through cli_text_open(stdout), or the --json
 * document through a cli_json_stream. One wave's record is held at a time, so a core of many
 * thousands of waves lists them all in constant memory (triage.h, gc_triage_waves_head()).
 */
struct waves_out {
    FILE *text; /* the text stream; NULL with --json */
    struct cli_json_stream json;
};

static int waves_out_head(struct waves_out *o, const json_t *head, int json)
{
    if (json)
        return cli_json_stream_open(&o->json, head, GC_TK_WAVES);
    o->text = cli_text_open(stdout);
    if (!o->text)
        return CLI_EXIT_SOFTWARE;
    analyze_render_waves_head(o->text, head);
    return ferror(o->text) ? CLI_EXIT_IOERR : CLI_EXIT_OK;
}

static int waves_out_wave(struct waves_out *o, const json_t *wave)
{
    if (!o->text)
        return cli_json_stream_add(&o->json, wave);
    analyze_render_wave(o->text, wave);
    return ferror(o->text) ? CLI_EXIT_IOERR : CLI_EXIT_OK;
}

/* The end of the output: the text stream closed; the --json document ended after every wave,
   left unended after a failure (a reader must not take it for the whole list). @p rc, or
   CLI_EXIT_IOERR if a write failed. */
static int waves_out_close(struct waves_out *o, int rc)
{
    int wrc = CLI_EXIT_OK;

    if (o->text)
        wrc = fclose(o->text) == 0 ? CLI_EXIT_OK : CLI_EXIT_IOERR;
    else if (rc == CLI_EXIT_OK)
        wrc = cli_json_stream_close(&o->json);
    if (fflush(stdout) != 0)
        wrc = CLI_EXIT_IOERR;
    return rc == CLI_EXIT_OK ? wrc : rc;
}

/* Say why the waves' output failed (out of memory, a write); its exit code. */
static int waves_out_failed(int rc)
{
    if (rc == CLI_EXIT_SOFTWARE)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    return cli_fail(CLI_EXIT_IOERR, NULL, "cannot write output");
}

/* `analyze waves`: the head, then every wave listed, each built, written and freed. */
static int run_waves(const struct gc_triage *t, size_t vi, const struct gc_triage_request *req,
                     int json)
{
    struct gc_triage_error err = { .diag.status = GPUCORE_OK };
    struct waves_out o = { 0 };
    json_t *head = gc_triage_waves_head(t, req, &err);
    int rc;

    if (!head)
        return view_failed(t, vi, &err, json);
    rc = waves_out_head(&o, head, json);
    json_decref(head);
    for (uint32_t i = gc_triage_waves_next(t, req, 0); rc == CLI_EXIT_OK && i != UINT32_MAX;
         i = gc_triage_waves_next(t, req, i + 1)) {
        json_t *wave = gc_triage_waves_item(t, req, i);

        rc = wave ? waves_out_wave(&o, wave) : CLI_EXIT_SOFTWARE;
        json_decref(wave);
    }
    rc = waves_out_close(&o, rc);
    return rc == CLI_EXIT_OK ? rc : waves_out_failed(rc);
}

static int run_view(const struct gc_triage *t, size_t vi, const struct gc_triage_request *req,
                    int json, int exit_code)
{
    static void (*const renderers[])(FILE *, const json_t *) = {
        [V_REPORT] = analyze_render_report, [V_REGS] = analyze_render_regs,
        [V_DISASM] = analyze_render_disasm, [V_MEM] = analyze_render_mem,
    };
    enum view view = views[vi].view;
    struct gc_triage_error err = { .diag.status = GPUCORE_OK };
    json_t *doc;
    int rc = CLI_EXIT_OK;

    if (view == V_WAVES)
        return run_waves(t, vi, req, json);
    doc = build_view(t, view, req, &err);
    if (!doc)
        return view_failed(t, vi, &err, json);
    /* The error first, also when there is a document: mem's failed read. */
    if (err.diag.status != GPUCORE_OK)
        rc = report_failure(t->path, &err);
    if (json) {
        if (cli_print_json(doc) != CLI_EXIT_OK)
            rc = CLI_EXIT_IOERR;
    } else {
        FILE *f = cli_text_open(stdout);

        if (!f) {
            json_decref(doc);
            return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        }
        renderers[view](f, doc);
        if (fclose(f) != 0)
            rc = cli_fail(CLI_EXIT_IOERR, NULL, "cannot write output");
    }
    if (exit_code && rc == CLI_EXIT_OK)
        rc = report_exit_code(doc);
    json_decref(doc);
    if (fflush(stdout) != 0)
        rc = cli_fail(CLI_EXIT_IOERR, NULL, "cannot write output");
    return rc;
}

/* The command line, parsed. */
struct analyze_args {
    size_t vi; /* views[vi] */
    struct gc_triage_request req;
    struct gc_triage t; /* path, host_path, code_object_dir, sysroot */
    int json, exit_code;
};

/* `gpucore analyze VIEW ...`: the view is the first argument when it names one (a core file
   named like a view is given as ./waves). Returns how many arguments the view took (0, 1). */
static int parse_view(int argc, char **argv, size_t *ret_vi)
{
    *ret_vi = 0;
    if (argc < 2)
        return 0;
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
        if (strcmp(argv[1], views[i].name) == 0) {
            *ret_vi = i;
            return 1;
        }
    return 0;
}

/* The options @p used (O_*) fit the view, and the request is complete: 0, or the exit code
   after the usage error. */
static int check_request(const struct analyze_args *a, uint32_t used)
{
    const struct gc_triage_request *req = &a->req;
    enum view view = views[a->vi].view;

    if (used & ~views[a->vi].allowed)
        return cli_usage_error("analyze", "an option given is not one of `analyze %s`'s",
                               views[a->vi].name);
    if (view == V_REGS && req->wave < 0)
        return cli_usage_error("analyze", "regs needs --wave N");
    if (view == V_MEM && !req->has_address && strcmp(req->space, "global") == 0)
        return cli_usage_error("analyze", "mem --space global needs --address A");
    if (view == V_DISASM && req->wave >= 0 && req->has_address)
        return cli_usage_error("analyze", "disasm takes --wave N or --address A, not both");
    return CLI_EXIT_OK;
}

/* The options, checked against the view. 0, or the exit code after the usage error (or 0 with
   *ret_help set after printing --help). */
static int parse_args(int argc, char **argv, struct analyze_args *a, int *ret_help)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },          { "wave", required_argument, NULL, 'w' },
        { "faulting", no_argument, NULL, 'f' },      { "reg", required_argument, NULL, 'r' },
        { "address", required_argument, NULL, 'a' }, { "size", required_argument, NULL, 's' },
        { "space", required_argument, NULL, 'S' },   { "lane", required_argument, NULL, 'l' },
        { "before", required_argument, NULL, 'B' },  { "after", required_argument, NULL, 'A' },
        { "host", required_argument, NULL, 'H' },    { "help", no_argument, NULL, 'h' },
        { "code-object-path", required_argument, NULL, 'C' },
        { "exit-code", no_argument, NULL, 'E' },
        { "sysroot", required_argument, NULL, 'R' },
        { "queue", required_argument, NULL, 'Q' },
        { "stopped", no_argument, NULL, 'T' },
        { NULL, 0, NULL, 0 },
    };
    struct gc_triage_request *req = &a->req;
    uint32_t used = 0;
    int c, rc;

    *ret_help = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+jw:fr:a:s:S:l:B:A:H:C:Eh", longopts, NULL)) != -1) {
        long v;

        switch (c) {
        case 'j':
            a->json = 1;
            used |= O_JSON;
            break;
        case 'E':
            a->exit_code = 1;
            used |= O_EXITCODE;
            break;
        case 'w':
            if (cli_parse_int(optarg, 0, INT32_MAX, &v) != 0)
                return cli_usage_error("analyze", "--wave expects a wave index, not '%s'", optarg);
            req->wave = v;
            used |= O_WAVE;
            break;
        case 'f':
            req->faulting = 1;
            used |= O_FAULTING;
            break;
        case 'T':
            req->stopped = 1;
            used |= O_STOPPED;
            break;
        case 'Q':
            if (cli_parse_int(optarg, 0, INT32_MAX, &v) != 0)
                return cli_usage_error("analyze", "--queue expects a queue index, not '%s'",
                                       optarg);
            req->queue = v;
            used |= O_QUEUE;
            break;
        case 'r':
            if (req->nregs == GC_TRIAGE_REG_FILTER_MAX)
                return cli_usage_error("analyze", "at most %d --reg options",
                                       GC_TRIAGE_REG_FILTER_MAX);
            req->regs[req->nregs++] = optarg;
            used |= O_REG;
            break;
        case 'a':
            if (parse_u64(optarg, &req->address) != 0)
                return cli_usage_error("analyze",
                                       "--address expects a number (0x... or "
                                       "decimal), not '%s'",
                                       optarg);
            req->has_address = 1;
            used |= O_ADDRESS;
            break;
        case 's':
            if (cli_parse_size(optarg, &req->size) != 0 || req->size == 0 ||
                req->size > GC_TRIAGE_MEM_MAX_SIZE)
                return cli_usage_error("analyze", "--size expects 1 .. 1M bytes, not '%s'", optarg);
            used |= O_SIZE;
            break;
        case 'S':
            req->space = optarg;
            used |= O_SPACE;
            break;
        case 'l':
            if (cli_parse_int(optarg, 0, 63, &v) != 0)
                return cli_usage_error("analyze", "--lane expects 0..63, not '%s'", optarg);
            req->lane = v;
            used |= O_LANE;
            break;
        case 'B':
        case 'A':
            if (cli_parse_int(optarg, 0, GC_TRIAGE_DISASM_MAX_CONTEXT, &v) != 0)
                return cli_usage_error("analyze", "--%s expects 0..%d, not '%s'",
                                       c == 'B' ? "before" : "after", GC_TRIAGE_DISASM_MAX_CONTEXT,
                                       optarg);
            if (c == 'B')
                req->before = v;
            else
                req->after = v;
            used |= O_CONTEXT;
            break;
        case 'H':
            a->t.host_path = optarg;
            used |= O_HOST;
            break;
        case 'C':
            a->t.code_object_dir = optarg;
            used |= O_COPATH;
            break;
        case 'R':
            a->t.sysroot = optarg;
            used |= O_SYSROOT;
            break;
        case 'h':
            analyze_help(stdout);
            *ret_help = 1;
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("analyze", "unknown option '%s'", argv[optind - 1]);
        }
    }
    rc = check_request(a, used);
    if (rc)
        return rc;
    if (argc - optind != 1)
        return cli_usage_error("analyze", argc - optind < 1 ? "missing CORE argument"
                                                            : "expected exactly one CORE argument");
    a->t.path = argv[optind];
    return CLI_EXIT_OK;
}

/* --code-object-path and --sysroot name directories that can be opened: 0, or 66. */
static int check_dirs(const struct gc_triage *t)
{
    for (size_t k = 0; k < 2; k++) {
        const char *dir = k ? t->sysroot : t->code_object_dir;
        int dfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : 0;

        if (dfd < 0)
            return cli_fail(CLI_EXIT_NOINPUT, dir, "%s: not a directory that can be opened: %s",
                            k ? "--sysroot" : "--code-object-path", strerror(errno));
        if (dir)
            close(dfd);
    }
    return CLI_EXIT_OK;
}

/* Open the image of the open cores and run the view on it; the exit code. */
static int open_and_run(struct analyze_args *a)
{
    struct gc_triage *t = &a->t;
    const char *view = views[a->vi].name;
    gpucore_diag_t d;
    gpucore_status_t st;
    char msg[GPUCORE_DIAG_MESSAGE_SIZE + 256];
    int rc;

    st = gc_triage_open(t, &d);
    if (st == GPUCORE_OK) {
        rc = run_view(t, a->vi, &a->req, a->json, a->exit_code);
        gc_triage_close(t);
        return rc;
    }
    if (st == GPUCORE_E_NOTFOUND) {
        snprintf(msg, sizeof(msg),
                 "no AMDGPU core-state note: the core holds no GPU state to analyze (the host "
                 "core of a split dump? give the GPU file, with --host %s)",
                 t->path);
        rc = cli_fail(a->exit_code ? ANALYZE_EXIT_NO_GPU_STATE : CLI_EXIT_DATAERR, t->path, "%s",
                      msg);
    } else {
        snprintf(msg, sizeof(msg), "%s", d.message);
        rc = cli_report(t->path, &d, CLI_SIDE_INPUT);
    }
    return a->json ? print_error_doc(t, view, msg, rc) : rc;
}

/*
 * `analyze --job`: the spelling of `gpucore job` among the analyze commands. Every argument
 * but --job (index @p at) goes to cmd_job, which takes --json and DIR|CORE operands; any other
 * analyze option given with it is refused as job's usage error. @p argv is NULL-terminated and
 * is rearranged. Returns the exit code.
 */
static int analyze_job(int argc, char **argv, int at)
{
    memmove(&argv[at], &argv[at + 1], (size_t)(argc - at) * sizeof(*argv));
    return cmd_job(argc - 1, argv);
}

/* The index of --job among @p argv's options (before a `--` or a view name), or 0. */
static int job_option(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--job") == 0)
            return i;
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    struct analyze_args a = { .req = { .wave = -1,
                                       .queue = -1,
                                       .size = GC_TRIAGE_MEM_DEFAULT_SIZE,
                                       .space = "global",
                                       .lane = 0,
                                       .before = GC_TRIAGE_DISASM_DEFAULT_CONTEXT,
                                       .after = GC_TRIAGE_DISASM_DEFAULT_CONTEXT } };
    int skip = parse_view(argc, argv, &a.vi), help, rc, job_at = job_option(argc, argv);

    if (job_at) {
        if (skip)
            return cli_usage_error("analyze", "--job is not an option of `analyze %s`",
                                   views[a.vi].name);
        return analyze_job(argc, argv, job_at);
    }
    rc = parse_args(argc - skip, argv + skip, &a, &help);
    if (rc || help)
        return rc;
    rc = check_dirs(&a.t);
    if (rc)
        return rc;
    if (views[a.vi].view != V_MEM) /* every other view shows instructions: no open after the core */
        gc_triage_preload_disassembler();
    rc = cli_open_core(a.t.path, GPUCORE_OPEN_ALLOW_TRUNCATED, &a.t.core);
    if (rc)
        return rc;
    if (a.t.host_path) {
        rc = cli_open_core(a.t.host_path, GPUCORE_OPEN_ALLOW_TRUNCATED, &a.t.host);
        if (rc) {
            gpucore_core_close(a.t.core);
            return rc;
        }
    }
    rc = open_and_run(&a);
    gpucore_core_close(a.t.host);
    gpucore_core_close(a.t.core);
    return rc;
}
