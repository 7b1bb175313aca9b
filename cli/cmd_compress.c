/* SPDX-License-Identifier: MIT */
/*
 * gpucore compress / decompress: convert a core between the plain and the zstd seekable form.
 * The ELF image is preserved byte for byte; only its storage changes. Input may be any ELF
 * core gpucore can open (its own, the kernel's, ROCgdb's, the ROCm runtime's).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <gpucore/core.h>

#include "cli.h"

struct convert_args {
    const char *cmd;
    int compress;
    long level;
    long threads;
    uint64_t frame_size;
    int force;
    const char *in;
    const char *out;
};

static void compress_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore compress [OPTIONS] INPUT OUTPUT\n\n"
            "Compress a core into independent zstd frames with a seek table (zstd's seekable\n"
            "format): gpucore reads it in place with random access, and `zstd -d` restores\n"
            "the plain file.\n\n"
            "  -l, --level N          zstd level, " CLI_ZSTD_LEVEL_TEXT " (default 3)\n"
            "  -T, --threads N        compression threads (default 1)\n"
            "      --frame-size SIZE  input bytes per frame, 64K..64M (default 512K,\n"
            "                         larger for inputs over 256 GiB)\n"
            "  -f, --force            replace OUTPUT if it exists\n"
            "  -h, --help             this text\n");
}

static void decompress_help(FILE *out)
{
    fprintf(out, "Usage: gpucore decompress [OPTIONS] INPUT OUTPUT\n\n"
                 "Write the plain core of a compressed one (all-zero pages become holes).\n\n"
                 "  -f, --force   replace OUTPUT if it exists\n"
                 "  -h, --help    this text\n");
}

static int parse_convert_args(int argc, char **argv, struct convert_args *a)
{
    static const struct option longopts[] = {
        { "level", required_argument, NULL, 'l' },
        { "threads", required_argument, NULL, 'T' },
        { "frame-size", required_argument, NULL, 'F' },
        { "force", no_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *shortopts = a->compress ? "+l:T:fh" : "+fh";
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (!a->compress || cli_parse_zstd_level(optarg, &a->level) != 0)
                return cli_usage_error(a->cmd, "--level takes " CLI_ZSTD_LEVEL_TEXT ", got '%s'",
                                       optarg);
            break;
        case 'T':
            if (!a->compress || cli_parse_int(optarg, 1, 256, &a->threads) != 0)
                return cli_usage_error(a->cmd, "--threads takes 1..256, got '%s'", optarg);
            break;
        case 'F':
            if (!a->compress || cli_parse_size(optarg, &a->frame_size) != 0 ||
                a->frame_size < (64u << 10) || a->frame_size > (64u << 20))
                return cli_usage_error(a->cmd, "--frame-size takes 64K..64M, got '%s'", optarg);
            break;
        case 'f':
            a->force = 1;
            break;
        case 'h':
            (a->compress ? compress_help : decompress_help)(stdout);
            return -1;
        case '?':
        default:
            return cli_usage_error(a->cmd, "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(a->cmd, "expected INPUT and OUTPUT");
    a->in = argv[optind];
    a->out = argv[optind + 1];
    return 0;
}

static int run_convert(struct convert_args *a)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    gpucore_status_t st;
    int rc;

    rc = cli_open_core(a->in, 0, &core);
    if (rc)
        return rc;
    st = gpucore_core_transcode(
            core, a->out,
            GPUCORE_OPTS(gpucore_writer_opts, .compress = (uint32_t)a->compress,
                         .compress_level = (int32_t)a->level, .threads = (uint32_t)a->threads,
                         .frame_size = (uint32_t)a->frame_size,
                         .flags = a->force ? GPUCORE_WRITE_OVERWRITE : 0u),
            &d);
    gpucore_core_close(core);
    if (st != GPUCORE_OK) {
        /*
         * Reading the input can fail too (a corrupt frame, a file cut while being read, a
         * frame over the reader's memory budget); say which side it was.
         */
        if (st == GPUCORE_E_CORRUPT || st == GPUCORE_E_UNAVAILABLE || st == GPUCORE_E_TRUNCATED ||
            st == GPUCORE_E_LIMIT)
            return cli_report(a->in, &d, CLI_SIDE_INPUT);
        return cli_report(a->out, &d, CLI_SIDE_OUTPUT);
    }
    return CLI_EXIT_OK;
}

int cmd_compress(int argc, char **argv)
{
    struct convert_args a = { .cmd = "compress", .compress = 1, .level = 3, .threads = 1 };
    int rc = parse_convert_args(argc, argv, &a);

    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    return run_convert(&a);
}

int cmd_decompress(int argc, char **argv)
{
    struct convert_args a = { .cmd = "decompress", .compress = 0 };
    int rc = parse_convert_args(argc, argv, &a);

    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    return run_convert(&a);
}
