/* SPDX-License-Identifier: MIT */
/*
 * gpucore merge GPU-FILE HOST-CORE -o OUT [--compress[=L]] [--force]: one unified core from the
 * ROCm runtime's split dump (libcore/internal/split_merge.h has the rules).
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "gc_util.h"
#include "journal.h"
#include "split_merge.h"

static void merge_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore merge [OPTIONS] GPU-FILE HOST-CORE -o OUT\n\n"
            "Write one unified core from a split dump: GPU-FILE, the ROCm runtime's\n"
            "gpucore.PID (the AMDGPU note and the GPU mappings), and HOST-CORE, the kernel's\n"
            "core.PID (host threads and memory). The result opens in gpucore analyze, GDB,\n"
            "ROCgdb and the amd-dbgapi library like a core gpucore captured. Where both files\n"
            "hold bytes of one address, the GPU file's are kept (the manifest says so).\n\n"
            "  -o, --output OUT   the unified core to write (required)\n"
            "      --compress[=L] zstd seekable frames, level " CLI_ZSTD_LEVEL_TEXT " (default 3)\n"
            "  -f, --force        replace OUT if it exists\n"
            "  -q, --quiet        print nothing on success\n"
            "  -h, --help         this text\n\n"
            "Refused (exit 65): a GPU-FILE that is not EM_AMDGPU or lacks the AMDGPU note, a\n"
            "HOST-CORE that is not a host ET_CORE or already holds GPU state, and files of two\n"
            "processes (the pid of gpucore.PID or of the GPU file's metadata against the host\n"
            "core's NT_PRPSINFO).\n");
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "compress", optional_argument, NULL, 'z' },
        { "force", no_argument, NULL, 'f' },        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    struct gc_merge_opts o = { .gpu_pid = -1 };
    struct gc_merge_result res;
    gpucore_core_t *gpu = NULL, *host = NULL;
    enum gc_merge_file which = GC_MERGE_OUT;
    const char *out = NULL, *gpu_path, *host_path;
    int quiet = 0, rc, c;
    gpucore_diag_t d;
    gpucore_status_t st;
    struct stat sb;
    long level;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:fqh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'z':
            o.compress = 1;
            if (optarg) {
                if (cli_parse_zstd_level(optarg, &level) != 0)
                    return cli_usage_error(
                            "merge", "--compress takes " CLI_ZSTD_LEVEL_TEXT ", got '%s'", optarg);
                o.compress_level = (int32_t)level;
            }
            break;
        case 'f':
            o.overwrite = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            merge_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("merge", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("merge", "expected GPU-FILE and HOST-CORE");
    if (!out)
        return cli_usage_error("merge", "-o OUT is required");
    gpu_path = argv[optind];
    host_path = argv[optind + 1];

    rc = cli_open_core(gpu_path, GPUCORE_OPEN_ALLOW_TRUNCATED, &gpu);
    if (rc)
        return rc;
    rc = cli_open_core(host_path, GPUCORE_OPEN_ALLOW_TRUNCATED, &host);
    if (rc) {
        gpucore_core_close(gpu);
        return rc;
    }
    /* The names the manifest records: base names, as a path is this machine's business. */
    o.gpu_name = strrchr(gpu_path, '/') ? strrchr(gpu_path, '/') + 1 : gpu_path;
    o.host_name = strrchr(host_path, '/') ? strrchr(host_path, '/') + 1 : host_path;
    o.gpu_pid = gc_merge_pid_from_name(gpu_path);
    /* The runtime writes its file at the fault: its time is the capture's. */
    if (stat(gpu_path, &sb) == 0)
        o.time_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
    st = gc_merge_split(gpu, host, out, &o, &res, &which, &d);
    gpucore_core_close(gpu);
    gpucore_core_close(host);
    if (st != GPUCORE_OK) {
        if (which == GC_MERGE_OUT)
            return cli_report(out, &d, CLI_SIDE_OUTPUT);
        return cli_report(which == GC_MERGE_GPU ? gpu_path : host_path, &d, CLI_SIDE_INPUT);
    }
    cli_journal_file(AT_FDCWD, NULL, out, out, GC_JOURNAL_BY_MERGE);
    if (res.gpu_truncated || res.host_truncated)
        fprintf(stderr, "gpucore: warning: %s was cut short: the merged core holds what it has\n",
                res.gpu_truncated ? gpu_path : host_path);
    if (!quiet) {
        char a[32], b[32], f[32];

        printf("%s: unified core of process %" PRId64 ": %u GPU segments (%s) from %s, %u host "
               "segments (%s) from %s, %s on disk\n",
               out, res.pid, res.gpu_segments, gc_format_size(res.gpu_bytes, a, sizeof(a)),
               o.gpu_name, res.host_segments, gc_format_size(res.host_bytes, b, sizeof(b)),
               o.host_name, gc_format_size(res.file_bytes, f, sizeof(f)));
    }
    return CLI_EXIT_OK;
}
