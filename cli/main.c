/* SPDX-License-Identifier: MIT */
/*
 * gpucore: AMD GPU core dumps that are small, fast and explain themselves.
 *
 * The program is a thin dispatcher over the libraries: one table row per subcommand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;
    const char *summary;
};

static const struct command commands[] = {
    { "run", cmd_run,
      "run [--kfd linux|sim] [-o PATTERN | --store[=DIR]] [--tier T] [--max-size N] "
      "[--deadline T] [--compress[=L]] [--redact] [--no-host-memory] [--json[=FILE]] "
      "[--quiet] [--leave-tree] -- COMMAND [ARGS]",
      "start a command; write a core at its first GPU queue error or memory violation" },
    { "capture", cmd_capture,
      "capture [--kfd linux|sim] [-o PATTERN | --store[=DIR]] [--tier T] [--max-size N] "
      "[--deadline T] [--compress[=L]] [--redact] [--no-host-memory] [--json[=FILE]] "
      "[--quiet] PID",
      "write a core of a running GPU process now (a hang, or on demand)" },
    { "watch", cmd_watch,
      "watch [--kfd linux|sim] [-o PATTERN | --store[=DIR]] [--tier T] [--max-size N] "
      "[--deadline T] [--compress[=L]] [--redact] [--no-host-memory] [--json[=FILE]] "
      "[--quiet] PID",
      "attach to a GPU process; write a core at its first GPU queue error or memory violation" },
    { "info", cmd_info, "info [--json] [--segments] CORE",
      "describe a core: file kind, notes, the AMDGPU state, capture metadata, segments" },
    { "analyze", cmd_analyze,
      "analyze [waves|regs|disasm|mem] [--json] [--wave N] [--address A] [--space S] "
      "[--host HOSTCORE] [--code-object-path DIR] CORE",
      "explain a core: faulting waves first, grouped by PC and stop reason, disassembled" },
    { "job", cmd_job, "job [--json] DIR|CORE... | job --fleet [--json] JOBID",
      "the cores of one job side by side: the rank that faulted first, the victims, signatures" },
    { "dbgapi-dump", cmd_dbgapi_dump,
      "dbgapi-dump [--json] [--library PATH] [--host HOSTCORE] [--no-registers] [--lds] "
      "[--log-level LEVEL] CORE",
      "print everything a debugger sees of a core through the amd-dbgapi library" },
    { "debug", cmd_debug, "debug [--debugger PATH] [--exe PATH] [--sysroot DIR] CORE [-- ARGS]",
      "open a core in ROCgdb or GDB (decompressed to a temporary file if needed)" },
    { "merge", cmd_merge, "merge [--compress[=L]] [--force] GPU-FILE HOST-CORE -o OUT",
      "one unified core from the ROCm runtime's split dump (gpucore.PID + core.PID)" },
    { "ingest", cmd_ingest,
      "ingest (-o PATTERN | --dir DIR) [--pid PID] [--host] [--tier state|all] "
      "[--compress[=L] | --no-compress] < CORE",
      "pipe handler: store a core streamed by the ROCm runtime or the kernel, pair the halves" },
    { "compress", cmd_compress,
      "compress [--level N] [--threads N] [--frame-size SIZE] [--force] INPUT OUTPUT",
      "compress a core into zstd seekable frames (readable in place, `zstd -d` compatible)" },
    { "decompress", cmd_decompress, "decompress [--force] INPUT OUTPUT",
      "write the plain core of a compressed one (zero pages become holes)" },
    { "list", cmd_list,
      "list [--since T] [--signature S] [--exe E] [--job J] [--dedupe] [--json] [--store DIR "
      "| --fleet]",
      "list the cores of the store (or the fleet's), newest last, with how often each signature "
      "was seen" },
    { "show", cmd_show, "show [--json] [--store DIR | --fleet] ID|PATH",
      "one core of the store: its index row and the summary `gpucore analyze` starts with" },
    { "gc", cmd_gc,
      "gc [--max-use SIZE] [--keep-free SIZE] [--max-age AGE] [--keep-per-signature N] "
      "[--dry-run] [--config FILE] [--store DIR]",
      "remove cores from the store by the limits of store.conf and the options" },
    { "store", cmd_store, "store [--json] [--config FILE] [--rescan] [--store DIR]",
      "the store's state and what gc would remove; --rescan rebuilds its index from the files" },
    { "kfd-check", cmd_kfd_check, "kfd-check [--kfd linux|sim] [--device PATH] [--pid PID] [--state]",
      "check that the AMD GPU debug interface (KFD 1.13+, Linux 6.5) is available" },
};

static void print_usage(FILE *out)
{
    fprintf(out, "Usage: gpucore COMMAND [OPTIONS] ARGS...\n"
                 "       gpucore --help | --version\n\n"
                 "AMD GPU core dumps: capture what a post-mortem needs, and explain it.\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nSynopsis:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  gpucore %s\n", commands[i].synopsis);
    fprintf(out, "\nRun `gpucore COMMAND --help` for a command's options.\n"
                 "Exit codes: 0 success, 64 usage, 65 malformed input, 66 cannot open input,\n"
                 "69 GPU driver (dbgapi-dump: the amd-dbgapi library; analyze disasm: the\n"
                 "disassembler module) unavailable, 70 internal error, 73 cannot create\n"
                 "output, 74 I/O error, 75 try again (a thread of the target would not\n"
                 "stop), 77 not permitted, 128 + N stopped by signal N (129 SIGHUP, 130\n"
                 "SIGINT, 131 SIGQUIT, 143 SIGTERM).\n"
                 "`gpucore watch` exits 0 also when the process ends without a GPU error (no\n"
                 "core written). `gpucore run` starts the command also without a driver or\n"
                 "with an output name taken (warnings), waits for it and exits with the\n"
                 "command's own status, also after a signal to gpucore (passed on to every\n"
                 "process of the command's tree) or a driver failure (a warning).\n"
                 "`gpucore debug` exits with the debugger's status (127 no debugger found,\n"
                 "126 it cannot be executed).\n");
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const struct command *cmd;

    cli_filter_stderr();
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            cmd = find_command(argv[2]);
            if (!cmd)
                return cli_usage_error("help", "unknown command '%s'", argv[2]);
            printf("Usage: gpucore %s\n\n%s\n", cmd->synopsis, cmd->summary);
            return CLI_EXIT_OK;
        }
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("gpucore %s\n", GPUCORE_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    cmd = find_command(argv[1]);
    if (!cmd) {
        fprintf(stderr, "gpucore: unknown command '%s' (run `gpucore --help` for the list)\n",
                argv[1]);
        return CLI_EXIT_USAGE;
    }
    return cmd->run(argc - 1, argv + 1);
}
