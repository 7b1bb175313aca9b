/* SPDX-License-Identifier: MIT */
/*
 * gpucore analyze: explain a core.
 *
 *   gpucore analyze [--json] CORE                       the triage report
 *   gpucore analyze waves [--json] [--faulting] [--wave N] CORE
 *   gpucore analyze regs --wave N [--reg NAME]... [--json] CORE
 *   gpucore analyze disasm [--wave N | --address A] [--before N] [--after N] [--json] CORE
 *   gpucore analyze mem --address A [--size N] [--space S] [--wave N] [--lane L] [--json] CORE
 *
 * As in `gpucore info`, every view first builds one JSON document (the model) from the process
 * image (analyze/image.h) and then renders it either as JSON (`--json`, schema
 * "gpucore.analyze/1") or as text, so the two outputs never disagree. This file: the command
 * line and the view table; the views are in analyze_report.c and analyze_views.c (analyze.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

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

static const struct {
    const char *name;
    enum view view;
    uint32_t allowed;
} views[] = {
    { "report", V_REPORT, O_JSON | O_HOST },
    { "waves", V_WAVES, O_JSON | O_WAVE | O_FAULTING | O_HOST },
    { "regs", V_REGS, O_JSON | O_WAVE | O_REG | O_HOST },
    { "disasm", V_DISASM, O_JSON | O_WAVE | O_ADDRESS | O_CONTEXT | O_HOST },
    { "mem", V_MEM, O_JSON | O_WAVE | O_ADDRESS | O_SIZE | O_SPACE | O_LANE | O_HOST },
};

static void analyze_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore analyze [--json] [--host HOSTCORE] CORE\n"
            "       gpucore analyze waves [--json] [--faulting] [--wave N] CORE\n"
            "       gpucore analyze regs --wave N [--reg NAME]... [--json] CORE\n"
            "       gpucore analyze disasm [--wave N | --address A] [--before N] [--after N]"
            " [--json] CORE\n"
            "       gpucore analyze mem --address A [--size N] [--space S] [--wave N]"
            " [--lane L] [--json] CORE\n\n"
            "Explain a GPU core: which waves stopped, where, why, and what they were running.\n"
            "The report lists per agent and queue the dispatches with their kernels and the\n"
            "waves grouped by PC and stop reason, faulting groups first, each PC disassembled.\n\n"
            "  --json          the stable JSON document (schema \"" ANALYZE_SCHEMA "\")\n"
            "  --host HOSTCORE (every view) CORE is a split GPU core file, as the ROCm\n"
            "                  runtime writes gpucore.PID; HOSTCORE is the process's host\n"
            "                  core (core.PID), whose memory the GPU file lacks (r_debug,\n"
            "                  the code object list)\n"
            "  --wave N        one wave (index as `waves` lists it); disasm: its PC (default:\n"
            "                  the first faulting wave); mem: whose LDS/scratch (same default)\n"
            "  --faulting      waves: only the waves stopped by an error\n"
            "  --reg NAME      regs: only this register (repeatable), e.g. --reg s16 --reg v1\n"
            "  --address A     disasm: code address; mem: address in the space\n"
            "  --before N, --after N   disasm: instructions around the PC (default 8 each)\n"
            "  --size N        mem: bytes (default 64, at most 1M; K/M suffixes)\n"
            "  --space S       mem: global (default), generic, local (the wave's LDS),\n"
            "                  private (the lane's swizzled scratch), private_wave\n"
            "  --lane L        mem: lane for private (default 0)\n"
            "  -h, --help      this text\n");
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

static int run_view(struct az *az, enum view view, const struct opts *o)
{
    json_t *doc = NULL;
    int rc = CLI_EXIT_OK;
    uint32_t nwaves = gc_image_wave_count(az->img);

    if (o->wave >= 0 && (uint64_t)o->wave >= nwaves)
        return cli_fail(CLI_EXIT_USAGE, az->path,
                        nwaves ? "wave %ld does not exist: the core has %u waves (0..%u)"
                               : "wave %ld does not exist: the core has %u waves",
                        o->wave, nwaves, nwaves ? nwaves - 1 : 0);
    switch (view) {
    case V_REPORT:
        doc = az_build_report(az);
        if (!doc)
            return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        break;
    case V_WAVES:
        doc = az_build_waves(az, o);
        break;
    case V_REGS:
        doc = az_build_regs(az, o, &rc);
        break;
    case V_DISASM:
        if (o->wave < 0 && !o->has_address) {
            /* Default: the first faulting wave, else the first stopped one. */
            struct opts o2 = *o;

            for (uint32_t i = 0; i < nwaves && o2.wave < 0; i++) {
                const struct gc_image_wave *w = gc_image_wave(az->img, i);

                if (w && az_is_fault(w->stop_reasons))
                    o2.wave = i;
            }
            for (uint32_t i = 0; i < nwaves && o2.wave < 0; i++) {
                const struct gc_image_wave *w = gc_image_wave(az->img, i);

                if (w && w->stopped)
                    o2.wave = i;
            }
            if (o2.wave < 0 && nwaves)
                o2.wave = 0; /* a hang: where the first wave is */
            if (o2.wave < 0)
                return cli_fail(CLI_EXIT_DATAERR, az->path,
                                "the core has no waves: give disasm an --address A");
            doc = az_build_disasm(az, &o2, &rc);
        } else {
            doc = az_build_disasm(az, o, &rc);
        }
        break;
    case V_MEM:
        doc = az_build_mem(az, o, &rc);
        break;
    }
    if (!doc)
        return rc;
    if (o->json) {
        if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            rc = CLI_EXIT_IOERR;
        fputc('\n', stdout);
    } else {
        static void (*const renderers[])(FILE *, const json_t *) = {
            [V_REPORT] = az_render_report, [V_WAVES] = az_render_waves, [V_REGS] = az_render_regs,
            [V_DISASM] = az_render_disasm, [V_MEM] = az_render_mem,
        };

        renderers[view](stdout, doc);
    }
    json_decref(doc);
    if (fflush(stdout) != 0)
        rc = cli_fail(CLI_EXIT_IOERR, NULL, "cannot write output");
    return rc;
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },          { "wave", required_argument, NULL, 'w' },
        { "faulting", no_argument, NULL, 'f' },      { "reg", required_argument, NULL, 'r' },
        { "address", required_argument, NULL, 'a' }, { "size", required_argument, NULL, 's' },
        { "space", required_argument, NULL, 'S' },   { "lane", required_argument, NULL, 'l' },
        { "before", required_argument, NULL, 'B' },  { "after", required_argument, NULL, 'A' },
        { "host", required_argument, NULL, 'H' },    { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct opts o = { .wave = -1,
                      .size = MEM_DEFAULT_SIZE,
                      .space = "global",
                      .lane = 0,
                      .before = DISASM_DEFAULT,
                      .after = DISASM_DEFAULT };
    uint32_t used = 0;
    size_t vi = 0;
    struct az az = { 0 };
    gpucore_diag_t d;
    gpucore_status_t st;
    int c, rc;

    /* `gpucore analyze VIEW ...`: the view is the first argument when it names one. */
    /* (A core file named like a view is given as ./waves.) */
    if (argc > 1) {
        int named = 0;

        for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
            if (strcmp(argv[1], views[i].name) == 0) {
                vi = i;
                named = 1;
            }
        if (named) {
            argc--;
            argv++;
        }
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+jw:fr:a:s:S:l:B:A:H:h", longopts, NULL)) != -1) {
        long v;

        switch (c) {
        case 'j':
            o.json = 1;
            used |= O_JSON;
            break;
        case 'w':
            if (cli_parse_int(optarg, 0, INT32_MAX, &v) != 0)
                return cli_usage_error("analyze", "--wave expects a wave index, not '%s'", optarg);
            o.wave = v;
            used |= O_WAVE;
            break;
        case 'f':
            o.faulting = 1;
            used |= O_FAULTING;
            break;
        case 'r':
            if (o.nregs == REG_FILTER_MAX)
                return cli_usage_error("analyze", "at most %d --reg options", REG_FILTER_MAX);
            o.regs[o.nregs++] = optarg;
            used |= O_REG;
            break;
        case 'a':
            if (parse_u64(optarg, &o.address) != 0)
                return cli_usage_error("analyze",
                                       "--address expects a number (0x... or "
                                       "decimal), not '%s'",
                                       optarg);
            o.has_address = 1;
            used |= O_ADDRESS;
            break;
        case 's':
            if (cli_parse_size(optarg, &o.size) != 0 || o.size == 0 || o.size > MEM_MAX_SIZE)
                return cli_usage_error("analyze", "--size expects 1 .. 1M bytes, not '%s'", optarg);
            used |= O_SIZE;
            break;
        case 'S':
            o.space = optarg;
            used |= O_SPACE;
            break;
        case 'l':
            if (cli_parse_int(optarg, 0, 63, &v) != 0)
                return cli_usage_error("analyze", "--lane expects 0..63, not '%s'", optarg);
            o.lane = v;
            used |= O_LANE;
            break;
        case 'B':
        case 'A':
            if (cli_parse_int(optarg, 0, DISASM_MAX_CTX, &v) != 0)
                return cli_usage_error("analyze", "--%s expects 0..%d, not '%s'",
                                       c == 'B' ? "before" : "after", DISASM_MAX_CTX, optarg);
            if (c == 'B')
                o.before = v;
            else
                o.after = v;
            used |= O_CONTEXT;
            break;
        case 'H':
            az.host_path = optarg;
            used |= O_HOST;
            break;
        case 'h':
            analyze_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("analyze", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (used & ~views[vi].allowed)
        return cli_usage_error("analyze", "an option given is not one of `analyze %s`'s",
                               views[vi].name);
    if (views[vi].view == V_REGS && o.wave < 0)
        return cli_usage_error("analyze", "regs needs --wave N");
    if (views[vi].view == V_MEM && !o.has_address && strcmp(o.space, "global") == 0)
        return cli_usage_error("analyze", "mem --space global needs --address A");
    if (views[vi].view == V_DISASM && o.wave >= 0 && o.has_address)
        return cli_usage_error("analyze", "disasm takes --wave N or --address A, not both");
    if (argc - optind != 1)
        return cli_usage_error("analyze", argc - optind < 1 ? "missing CORE argument"
                                                            : "expected exactly one CORE argument");
    az.path = argv[optind];
    rc = cli_check_input(az.path);
    if (rc)
        return rc;
    st = gpucore_core_open(az.path,
                           GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                           &az.core, &d);
    if (st != GPUCORE_OK)
        return cli_report(az.path, &d, CLI_SIDE_INPUT);
    if (az.host_path) {
        rc = cli_check_input(az.host_path);
        if (rc) {
            gpucore_core_close(az.core);
            return rc;
        }
        st = gpucore_core_open(az.host_path,
                               GPUCORE_OPTS(gpucore_open_opts,
                                            .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                               &az.host, &d);
        if (st != GPUCORE_OK) {
            gpucore_core_close(az.core);
            return cli_report(az.host_path, &d, CLI_SIDE_INPUT);
        }
    }
    st = gc_image_open_split(az.core, az.host, &az.img, &d);
    if (st != GPUCORE_OK) {
        if (st == GPUCORE_E_NOTFOUND)
            rc = cli_fail(CLI_EXIT_DATAERR, az.path,
                          "no AMDGPU core-state note: the core holds no GPU state to analyze "
                          "(the host core of a split dump? give the GPU file, with --host %s)",
                          az.path);
        else
            rc = cli_report(az.path, &d, CLI_SIDE_INPUT);
    } else {
        rc = run_view(&az, views[vi].view, &o);
        gc_image_close(az.img);
    }
    gpucore_core_close(az.host);
    gpucore_core_close(az.core);
    return rc;
}
