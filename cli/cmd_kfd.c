/* SPDX-License-Identifier: MIT */
/*
 * gpucore kfd-check: is the GPU debug interface reachable from here? Opens a KFD session and
 * checks the version window, nothing else, so it is safe to run anywhere (no process is
 * debug-enabled). The failure sentence is the one a capture would print, so a user can find out
 * before a crash whether a capture could work.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"

static void kfd_check_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore kfd-check [--kfd linux|sim] [--device PATH] [--pid PID] [--state]\n\n"
            "Check that the AMD GPU debug interface (KFD 1.13 or newer, Linux 6.5) is\n"
            "available. Exits 0 if it is, 69 if it is not.\n\n"
            "  --kfd linux|sim   driver backend (default: $GPUCORE_KFD, else linux)\n"
            "  --device PATH     KFD device of the linux backend (default /dev/kfd)\n"
            "  --pid PID         process hosting the simulated driver (sim backend only)\n"
            "  --state           also print the driver's debug state of the process: whether\n"
            "                    debugging is enabled and how many queues are suspended (sim)\n"
            "  -h, --help        this text\n");
}

int cmd_kfd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "kfd", required_argument, NULL, 'k' },
        { "device", required_argument, NULL, 'd' },
        { "pid", required_argument, NULL, 'p' },
        { "state", no_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_LINUX };
    const char *env = getenv("GPUCORE_KFD");
    struct gc_capture_driver_check r;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    int want_state = 0;
    long pid = 0;
    int c;

    /* The environment picks the default backend; an explicit --kfd wins. */
    if (env && *env && cli_parse_backend(env, &o.backend) != 0)
        return cli_usage_error("kfd-check", "GPUCORE_KFD must be linux or sim, got '%s'", env);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            if (cli_parse_backend(optarg, &o.backend) != 0)
                return cli_usage_error("kfd-check", "--kfd takes linux or sim, got '%s'",
                                       optarg);
            break;
        case 'd':
            o.device_path = optarg;
            break;
        case 'p':
            if (cli_parse_int(optarg, 1, 0x7fffffff, &pid) != 0)
                return cli_usage_error("kfd-check", "--pid takes a process id, got '%s'",
                                       optarg);
            break;
        case 's':
            want_state = 1;
            break;
        case 'h':
            kfd_check_help(stdout);
            return CLI_EXIT_OK;
        case '?':
        default:
            return cli_usage_error("kfd-check", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error("kfd-check", "unexpected argument '%s'", argv[optind]);

    if (o.backend == GC_KFD_BACKEND_SIM) {
        /* The simulated driver lives inside the target (gpucore-inferior), not in a device. */
        if (!pid)
            return cli_usage_error("kfd-check", "the simulated driver is reached through a "
                                                "target process: pass --pid PID");
        if (o.device_path)
            return cli_usage_error("kfd-check", "--device applies to --kfd linux only");
    } else {
        if (pid)
            return cli_usage_error("kfd-check", "--pid applies to --kfd sim only");
        /* Only GET_VERSION is needed, so the calling process is a valid target. */
        pid = (long)getpid();
    }

    st = gc_capture_check_driver((pid_t)pid, &o, want_state, &r, &d);
    /*
     * This command's one question is "is the debug interface available?": every "no" (no
     * driver, too old, no permission, backend not built) is 69; only our own failures, and a
     * driver that does not answer about the process's state, are not.
     */
    if (st == GPUCORE_E_NOTFOUND || st == GPUCORE_E_IO)
        return cli_fail(cli_exit_for(st, CLI_SIDE_INPUT), NULL, "driver state: %s",
                        d.message[0] ? d.message : gpucore_strerror(st));
    if (st != GPUCORE_OK)
        return cli_fail(st == GPUCORE_E_NOMEM || st == GPUCORE_E_INVAL
                                ? cli_exit_for(st, CLI_SIDE_INPUT)
                                : CLI_EXIT_UNAVAILABLE,
                        NULL, "%s", d.message[0] ? d.message : gpucore_strerror(st));
    if (o.backend == GC_KFD_BACKEND_SIM)
        printf("KFD %u.%u (simulated, process %ld): the debug interface is available\n",
               r.kfd_major, r.kfd_minor, pid);
    else
        printf("KFD %u.%u at %s: the debug interface is available\n", r.kfd_major, r.kfd_minor,
               o.device_path ? o.device_path : "/dev/kfd");
    /* What the driver says about the target's debug state, where it says it (sim): shows
     * that a capture left no debugger attached and no queue suspended. */
    if (want_state && !r.have_state)
        printf("driver state: not available from the %s driver\n", r.backend);
    else if (r.have_state)
        printf("driver state: debugging %s, %u queue%s suspended\n",
               r.debug_enabled ? "enabled" : "disabled", r.suspended_queues,
               r.suspended_queues == 1 ? "" : "s");
    return CLI_EXIT_OK;
}
