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

#include <gpucore/schema.h>

#include "capture.h"
#include "cli.h"

static void kfd_check_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore kfd-check [--kfd linux|sim] [--device PATH] [--topology DIR]\n"
            "                         [--pid PID] [--state]\n\n"
            "Check that the AMD GPU debug interface (KFD 1.13 or newer, Linux 6.5) is\n"
            "available, and list the driver's GPUs (linux): target, gpu_id, name, whether\n"
            "they support debugging. Exits 0 if the interface is available, 69 if not.\n\n"
            "  --kfd linux|sim   driver backend (default: $GPUCORE_KFD, else linux)\n"
            "  --device PATH     KFD device of the linux backend (default /dev/kfd)\n"
            "  --topology DIR    the driver's topology of the linux backend (default\n"
            "                    " GC_KFD_TOPOLOGY_DIR ")\n"
            "  --pid PID         process hosting the simulated driver (sim backend only)\n"
            "  --state           also print the driver's debug state of the process: whether\n"
            "                    debugging is enabled and how many queues are suspended (sim)\n"
            "  -h, --help        this text\n");
}

/* Why a GPU node cannot be debugged, from its capability bits; NULL if it can. */
static const char *no_debug_reason(const struct gc_kfd_topology_node *n)
{
    if (!(n->capability & GC_KFD_CAP_TRAP_DEBUG_SUPPORT))
        return "the driver does not report trap debugging for it";
    if (!(n->capability & GC_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED))
        return "its firmware does not support trap debugging";
    return NULL;
}

/* One line per GPU node of the topology under @p dir (NULL: amdkfd's); a topology that cannot
 * be read is a warning: the verdict above stands. */
static void print_devices(const char *dir)
{
    static struct gc_kfd_topology topo; /* 32 KiB: not on the stack */
    gpucore_diag_t d = { 0 };
    unsigned gpus = 0;
    gpucore_status_t st = gc_capture_read_devices(dir, &topo, &d);

    if (st != GPUCORE_OK) {
        fprintf(stderr, "gpucore: warning: the driver's devices are not listed: %s\n",
                d.message[0] ? d.message : gpucore_strerror(st));
        return;
    }
    for (uint32_t i = 0; i < topo.count; i++) {
        const struct gc_kfd_topology_node *n = &topo.nodes[i];
        const char *why = no_debug_reason(n);
        char target[32];

        if (n->gpu_id == 0)
            continue; /* a CPU */
        gpus++;
        if (gpucore_gfx_target_name(n->gfx_target_version, target, sizeof(target)) !=
            GPUCORE_OK)
            snprintf(target, sizeof(target), "gfx_target_version %u", n->gfx_target_version);
        printf("GPU node %u: %s, gpu_id %u", n->node, target, n->gpu_id);
        if (n->name[0])
            printf(", %s", n->name);
        if (n->num_xcc > 1)
            printf(", %u XCCs", n->num_xcc);
        printf(": %s%s\n", why ? "debugging not supported: " : "debugging supported",
               why ? why : "");
    }
    if (!gpus)
        printf("no GPU in the driver's topology (%s)\n", dir ? dir : GC_KFD_TOPOLOGY_DIR);
}

int cmd_kfd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "kfd", required_argument, NULL, 'k' },
        { "device", required_argument, NULL, 'd' },
        { "topology", required_argument, NULL, 't' },
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
    const char *topology_dir = NULL;
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
        case 't':
            topology_dir = optarg;
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
        if (o.device_path || topology_dir)
            return cli_usage_error("kfd-check", "--device and --topology apply to --kfd linux "
                                                "only");
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
    else {
        printf("KFD %u.%u at %s: the debug interface is available\n", r.kfd_major, r.kfd_minor,
               o.device_path ? o.device_path : "/dev/kfd");
        print_devices(topology_dir);
    }
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
