// SPDX-License-Identifier: MIT
//
// dbgapi_attach [-v|-vv] PID: AMD's own debugger library (ROCdbgapi, Debian's librocm-dbgapi0)
// attaches to a GPU process, for the kfdemu tests. It does what a debugger such as rocgdb does
// first: ptrace-seize the process (the library requires its client to be the ptrace parent,
// as amdkfd does), initialize the library with the client callbacks, attach, take the events
// the library reports until it has none, list the agents, queues and code objects, then look
// at the waves: new waves are held (wave creation STOP), the queues stay suspended while we
// look (progress NO_FORWARD), each running wave is stopped and its stop event taken; then the
// dispatches (the library learns them from the waves it finds) and each wave's PC, stop reason
// and dispatch. Then everything is let go: progress and wave creation back to normal, detach
// (which resumes the waves and disables debugging), finalize.
//
// One line per fact, "dbgapi_attach: ...", for the test to match; the library's messages go to
// stderr, "dbgapi_attach: library LEVEL: ...", warnings and fatal errors only unless -v (its
// informational messages too) or -vv (its verbose ones). Exit 0 when attach, listing and
// detach all succeed; 1 when a call fails (the line names the call and the library's status,
// as amd_dbgapi_get_status_string spells it); 2 usage.
//
// The lists are asked for without a `changed` argument: with one, a list that has not changed
// since the last call comes back empty.
//
// The client callbacks: memory comes from malloc; the process's pid is the client process id;
// breakpoints are recorded, not written: the library plants one at the runtime's r_brk (ROCr
// calls it around code-object loads), and a process whose kernel hangs loads none while we
// look. ROCdbgapi 5.7 has no memory callback: it reads and writes the target's memory itself,
// through /proc/PID/mem.
#define _GNU_SOURCE
#include <amd-dbgapi/amd-dbgapi.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

// The breakpoints the library may ask for at once: it plants one (r_brk) in ROCr 6.1; more
// would mean a runtime that this test does not know, and is refused.
#define MAX_BREAKPOINTS 16
// Events taken in one go before the library is declared not quiet: one per wave stopped, and
// the emulator saves at most 1024 waves per dispatch; a library that keeps producing more is
// looping.
#define MAX_EVENTS 4096

struct client {
    pid_t pid;
    struct {
        amd_dbgapi_global_address_t address;
        amd_dbgapi_breakpoint_id_t id;
    } bp[MAX_BREAKPOINTS];
    size_t nbp;
};

static const char *status_name(amd_dbgapi_status_t status)
{
    const char *s = NULL;

    if (amd_dbgapi_get_status_string(status, &s) != AMD_DBGAPI_STATUS_SUCCESS || !s)
        return "an unknown status";
    return s;
}

// check(CALL, WHAT): prints the failure with the library's status name; returns 0 on success.
static int check(amd_dbgapi_status_t status, const char *what)
{
    if (status == AMD_DBGAPI_STATUS_SUCCESS)
        return 0;
    printf("dbgapi_attach: FAILED: %s: %s (%d)\n", what, status_name(status), (int)status);
    return -1;
}

static void *cb_allocate(size_t size)
{
    return malloc(size);
}

static void cb_deallocate(void *p)
{
    free(p);
}

static amd_dbgapi_status_t cb_get_os_pid(amd_dbgapi_client_process_id_t cp,
                                         amd_dbgapi_os_process_id_t *pid)
{
    *pid = ((struct client *)cp)->pid;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

static amd_dbgapi_status_t cb_insert_breakpoint(amd_dbgapi_client_process_id_t cp,
                                                amd_dbgapi_global_address_t address,
                                                amd_dbgapi_breakpoint_id_t id)
{
    struct client *c = (struct client *)cp;

    if (c->nbp == MAX_BREAKPOINTS)
        return AMD_DBGAPI_STATUS_ERROR;
    c->bp[c->nbp].address = address;
    c->bp[c->nbp].id = id;
    c->nbp++;
    printf("dbgapi_attach: breakpoint %" PRIu64 " at 0x%" PRIx64 " (recorded)\n", id.handle,
           address);
    return AMD_DBGAPI_STATUS_SUCCESS;
}

static amd_dbgapi_status_t cb_remove_breakpoint(amd_dbgapi_client_process_id_t cp,
                                                amd_dbgapi_breakpoint_id_t id)
{
    struct client *c = (struct client *)cp;

    for (size_t i = 0; i < c->nbp; i++) {
        if (c->bp[i].id.handle == id.handle) {
            c->bp[i] = c->bp[--c->nbp];
            return AMD_DBGAPI_STATUS_SUCCESS;
        }
    }
    return AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID;
}

static void cb_log(amd_dbgapi_log_level_t level, const char *message)
{
    fprintf(stderr, "dbgapi_attach: library %s: %s\n",
            level == AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR ? "fatal error"
            : level == AMD_DBGAPI_LOG_LEVEL_WARNING   ? "warning"
                                                      : "info",
            message);
}

static amd_dbgapi_callbacks_t callbacks = {
    .allocate_memory = cb_allocate,
    .deallocate_memory = cb_deallocate,
    .get_os_pid = cb_get_os_pid,
    .insert_breakpoint = cb_insert_breakpoint,
    .remove_breakpoint = cb_remove_breakpoint,
    .log_message = cb_log,
};

// The names of the event kinds, by value (amd-dbgapi.h's amd_dbgapi_event_kind_t).
static const char *const event_kinds[] = {
    [AMD_DBGAPI_EVENT_KIND_NONE] = "none",
    [AMD_DBGAPI_EVENT_KIND_WAVE_STOP] = "wave stop",
    [AMD_DBGAPI_EVENT_KIND_WAVE_COMMAND_TERMINATED] = "wave command terminated",
    [AMD_DBGAPI_EVENT_KIND_CODE_OBJECT_LIST_UPDATED] = "code object list updated",
    [AMD_DBGAPI_EVENT_KIND_BREAKPOINT_RESUME] = "breakpoint resume",
    [AMD_DBGAPI_EVENT_KIND_RUNTIME] = "runtime",
    [AMD_DBGAPI_EVENT_KIND_QUEUE_ERROR] = "queue error",
};

static const char *const runtime_states[] = {
    [AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS] = "loaded",
    [AMD_DBGAPI_RUNTIME_STATE_UNLOADED] = "unloaded",
    [AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION] = "loaded with a restriction",
};

#define NAME_OF(table, v) \
    ((size_t)(v) < sizeof(table) / sizeof((table)[0]) && (table)[(v)] ? (table)[(v)] : "unknown")

// Takes every pending event of the process, one line each, until the library has none.
// Returns the number of events taken, -1 on a failure.
static int drain_events(amd_dbgapi_process_id_t process)
{
    int taken = 0, stops = 0;

    while (taken < MAX_EVENTS) {
        amd_dbgapi_event_id_t event;
        amd_dbgapi_event_kind_t kind;

        if (check(amd_dbgapi_process_next_pending_event(process, &event, &kind),
                  "amd_dbgapi_process_next_pending_event"))
            return -1;
        if (event.handle == AMD_DBGAPI_EVENT_NONE.handle) {
            if (stops)
                printf("dbgapi_attach: event wave stop, %d times\n", stops);
            return taken;
        }
        if (kind == AMD_DBGAPI_EVENT_KIND_RUNTIME) {
            amd_dbgapi_runtime_state_t state;

            if (check(amd_dbgapi_event_get_info(event, AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE,
                                                sizeof(state), &state),
                      "amd_dbgapi_event_get_info(RUNTIME_STATE)"))
                return -1;
            printf("dbgapi_attach: event runtime: %s\n", NAME_OF(runtime_states, state));
        } else if (kind == AMD_DBGAPI_EVENT_KIND_WAVE_STOP) {
            stops++; // one per wave: counted, not printed
        } else {
            printf("dbgapi_attach: event %s\n", NAME_OF(event_kinds, kind));
        }
        if (check(amd_dbgapi_event_processed(event), "amd_dbgapi_event_processed"))
            return -1;
        taken++;
    }
    printf("dbgapi_attach: FAILED: the library still has events after %d\n", MAX_EVENTS);
    return -1;
}

static int list_agents(amd_dbgapi_process_id_t process)
{
    amd_dbgapi_agent_id_t *agents;
    size_t n;
    int r = 0;

    if (check(amd_dbgapi_process_agent_list(process, &n, &agents, NULL),
              "amd_dbgapi_process_agent_list"))
        return -1;
    printf("dbgapi_attach: %zu agents\n", n);
    for (size_t i = 0; i < n && r == 0; i++) {
        amd_dbgapi_architecture_id_t arch;
        amd_dbgapi_agent_state_t state;
        char *name = NULL, *arch_name = NULL;

        r = check(amd_dbgapi_agent_get_info(agents[i], AMD_DBGAPI_AGENT_INFO_NAME, sizeof(name),
                                            &name),
                  "amd_dbgapi_agent_get_info(NAME)") ||
            check(amd_dbgapi_agent_get_info(agents[i], AMD_DBGAPI_AGENT_INFO_STATE, sizeof(state),
                                            &state),
                  "amd_dbgapi_agent_get_info(STATE)") ||
            check(amd_dbgapi_agent_get_info(agents[i], AMD_DBGAPI_AGENT_INFO_ARCHITECTURE,
                                            sizeof(arch), &arch),
                  "amd_dbgapi_agent_get_info(ARCHITECTURE)") ||
            check(amd_dbgapi_architecture_get_info(arch, AMD_DBGAPI_ARCHITECTURE_INFO_NAME,
                                                   sizeof(arch_name), &arch_name),
                  "amd_dbgapi_architecture_get_info(NAME)");
        if (r == 0)
            printf("dbgapi_attach: agent %s, %s, debugging %s\n", arch_name, name,
                   state == AMD_DBGAPI_AGENT_STATE_SUPPORTED ? "supported" : "NOT SUPPORTED");
        free(name);
        free(arch_name);
    }
    free(agents);
    return r ? -1 : 0;
}

static const char *queue_type_name(amd_dbgapi_os_queue_type_t t)
{
    switch (t) {
    case AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL:
        return "HSA AQL";
    case AMD_DBGAPI_OS_QUEUE_TYPE_AMD_PM4:
        return "AMD PM4";
    case AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA:
        return "AMD SDMA";
    case AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA_XGMI:
        return "AMD SDMA XGMI";
    default:
        return "unknown";
    }
}

static int list_queues(amd_dbgapi_process_id_t process)
{
    amd_dbgapi_queue_id_t *queues;
    size_t n;
    int r = 0;

    if (check(amd_dbgapi_process_queue_list(process, &n, &queues, NULL),
              "amd_dbgapi_process_queue_list"))
        return -1;
    printf("dbgapi_attach: %zu queues\n", n);
    for (size_t i = 0; i < n && r == 0; i++) {
        amd_dbgapi_os_queue_type_t type;
        amd_dbgapi_global_address_t address;
        amd_dbgapi_size_t size;
        amd_dbgapi_os_queue_id_t os_id;

        r = check(amd_dbgapi_queue_get_info(queues[i], AMD_DBGAPI_QUEUE_INFO_TYPE, sizeof(type),
                                            &type),
                  "amd_dbgapi_queue_get_info(TYPE)") ||
            check(amd_dbgapi_queue_get_info(queues[i], AMD_DBGAPI_QUEUE_INFO_ADDRESS,
                                            sizeof(address), &address),
                  "amd_dbgapi_queue_get_info(ADDRESS)") ||
            check(amd_dbgapi_queue_get_info(queues[i], AMD_DBGAPI_QUEUE_INFO_SIZE, sizeof(size),
                                            &size),
                  "amd_dbgapi_queue_get_info(SIZE)") ||
            check(amd_dbgapi_queue_get_info(queues[i], AMD_DBGAPI_QUEUE_INFO_OS_ID, sizeof(os_id),
                                            &os_id),
                  "amd_dbgapi_queue_get_info(OS_ID)");
        if (r == 0)
            printf("dbgapi_attach: queue %" PRIu64 " %s at 0x%" PRIx64 ", %" PRIu64 " bytes\n",
                   os_id, queue_type_name(type), address, size);
    }
    free(queues);
    return r ? -1 : 0;
}

static int list_dispatches(amd_dbgapi_process_id_t process)
{
    amd_dbgapi_dispatch_id_t *dispatches;
    size_t n;
    int r = 0;

    if (check(amd_dbgapi_process_dispatch_list(process, &n, &dispatches, NULL),
              "amd_dbgapi_process_dispatch_list"))
        return -1;
    printf("dbgapi_attach: %zu dispatches\n", n);
    for (size_t i = 0; i < n && r == 0; i++) {
        amd_dbgapi_global_address_t kd, entry;
        amd_dbgapi_os_queue_packet_id_t packet;

        r = check(amd_dbgapi_dispatch_get_info(dispatches[i],
                                               AMD_DBGAPI_DISPATCH_INFO_KERNEL_DESCRIPTOR_ADDRESS,
                                               sizeof(kd), &kd),
                  "amd_dbgapi_dispatch_get_info(KERNEL_DESCRIPTOR_ADDRESS)") ||
            check(amd_dbgapi_dispatch_get_info(dispatches[i],
                                               AMD_DBGAPI_DISPATCH_INFO_KERNEL_CODE_ENTRY_ADDRESS,
                                               sizeof(entry), &entry),
                  "amd_dbgapi_dispatch_get_info(KERNEL_CODE_ENTRY_ADDRESS)") ||
            check(amd_dbgapi_dispatch_get_info(dispatches[i],
                                               AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID,
                                               sizeof(packet), &packet),
                  "amd_dbgapi_dispatch_get_info(OS_QUEUE_PACKET_ID)");
        if (r == 0)
            printf("dbgapi_attach: dispatch %" PRIu64 ", packet %" PRIu64
                   ", kernel descriptor 0x%" PRIx64 ", code entry 0x%" PRIx64 "\n",
                   dispatches[i].handle, packet, kd, entry);
    }
    free(dispatches);
    return r ? -1 : 0;
}

static int list_code_objects(amd_dbgapi_process_id_t process)
{
    amd_dbgapi_code_object_id_t *cos;
    size_t n;
    int r = 0;

    if (check(amd_dbgapi_process_code_object_list(process, &n, &cos, NULL),
              "amd_dbgapi_process_code_object_list"))
        return -1;
    printf("dbgapi_attach: %zu code objects\n", n);
    for (size_t i = 0; i < n && r == 0; i++) {
        char *uri = NULL;
        amd_dbgapi_global_address_t load;

        r = check(amd_dbgapi_code_object_get_info(cos[i], AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME,
                                                  sizeof(uri), &uri),
                  "amd_dbgapi_code_object_get_info(URI_NAME)") ||
            check(amd_dbgapi_code_object_get_info(cos[i], AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS,
                                                  sizeof(load), &load),
                  "amd_dbgapi_code_object_get_info(LOAD_ADDRESS)");
        if (r == 0)
            printf("dbgapi_attach: code object %s loaded at 0x%" PRIx64 "\n", uri, load);
        free(uri);
    }
    free(cos);
    return r ? -1 : 0;
}

// The stop reasons' names, by bit (amd-dbgapi.h's amd_dbgapi_wave_stop_reasons_t).
static const char *const stop_reasons[] = {
    "breakpoint",
    "watchpoint",
    "single step",
    "fp input denormal",
    "fp divide by 0",
    "fp overflow",
    "fp underflow",
    "fp inexact",
    "fp invalid operation",
    "int divide by 0",
    "debug trap",
    "assert trap",
    "trap",
    "memory violation",
    "aperture violation",
    "illegal instruction",
    "ecc error",
    "fatal halt",
};

static void print_stop_reason(amd_dbgapi_wave_stop_reasons_t reason)
{
    int any = 0;

    for (size_t bit = 0; bit < sizeof(stop_reasons) / sizeof(stop_reasons[0]); bit++) {
        if (reason & (1u << bit)) {
            printf("%s%s", any ? "|" : "", stop_reasons[bit]);
            any = 1;
        }
    }
    printf("%s", any ? "" : "none (stopped by the debugger)");
}

// Lists the waves; with stop set, asks each running wave to stop. Returns the number of waves
// asked to stop, -1 on a failure.
static int list_waves(amd_dbgapi_process_id_t process, int stop)
{
    amd_dbgapi_wave_id_t *waves;
    size_t n;
    int r = 0, stopping = 0;

    if (check(amd_dbgapi_process_wave_list(process, &n, &waves, NULL),
              "amd_dbgapi_process_wave_list"))
        return -1;
    printf("dbgapi_attach: %zu waves\n", n);
    for (size_t i = 0; i < n && r == 0; i++) {
        amd_dbgapi_wave_state_t state;
        amd_dbgapi_wave_stop_reasons_t reason;
        amd_dbgapi_global_address_t pc;
        amd_dbgapi_dispatch_id_t dispatch;
        amd_dbgapi_status_t st;
        char of[64];

        r = check(amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_STATE, sizeof(state),
                                           &state),
                  "amd_dbgapi_wave_get_info(STATE)");
        if (r)
            break;
        if (state != AMD_DBGAPI_WAVE_STATE_STOP) {
            if (stop) {
                r = check(amd_dbgapi_wave_stop(waves[i]), "amd_dbgapi_wave_stop");
                stopping += r == 0;
            }
            continue;
        }
        r = check(amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_PC, sizeof(pc), &pc),
                  "amd_dbgapi_wave_get_info(PC)") ||
            check(amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_STOP_REASON,
                                           sizeof(reason), &reason),
                  "amd_dbgapi_wave_get_info(STOP_REASON)");
        // No dispatch is known for a wave when the ttmp registers that name its packet are not
        // set up (gfx90a without the runtime's TTMP_SAVE mode): said, not a failure.
        st = amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_DISPATCH, sizeof(dispatch),
                                      &dispatch);
        if (st == AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE)
            snprintf(of, sizeof(of), "no known dispatch");
        else if (check(st, "amd_dbgapi_wave_get_info(DISPATCH)"))
            r = -1;
        else
            snprintf(of, sizeof(of), "dispatch %" PRIu64, dispatch.handle);
        if (r == 0) {
            printf("dbgapi_attach: wave %" PRIu64 " of %s stopped at pc 0x%" PRIx64 ", reason ",
                   waves[i].handle, of, pc);
            print_stop_reason(reason);
            printf("\n");
        }
    }
    free(waves);
    return r ? -1 : stopping;
}

// What the process is and has, with its waves stopped for the look. The library learns the
// dispatches from the waves it finds in the suspended queues' save areas, so they are listed
// after the waves.
static int inspect(amd_dbgapi_process_id_t process)
{
    int stopping;

    if (drain_events(process) < 0 || list_agents(process) || list_queues(process) ||
        list_code_objects(process))
        return -1;
    if (check(amd_dbgapi_process_set_wave_creation(process, AMD_DBGAPI_WAVE_CREATION_STOP),
              "amd_dbgapi_process_set_wave_creation(STOP)") ||
        check(amd_dbgapi_process_set_progress(process, AMD_DBGAPI_PROGRESS_NO_FORWARD),
              "amd_dbgapi_process_set_progress(NO_FORWARD)"))
        return -1;
    if ((stopping = list_waves(process, 1)) < 0)
        return -1;
    printf("dbgapi_attach: stopping %d waves\n", stopping);
    if ((stopping > 0 && drain_events(process) < 0) || list_dispatches(process) ||
        (stopping > 0 && list_waves(process, 0) < 0))
        return -1;
    if (check(amd_dbgapi_process_set_progress(process, AMD_DBGAPI_PROGRESS_NORMAL),
              "amd_dbgapi_process_set_progress(NORMAL)") ||
        check(amd_dbgapi_process_set_wave_creation(process, AMD_DBGAPI_WAVE_CREATION_NORMAL),
              "amd_dbgapi_process_set_wave_creation(NORMAL)"))
        return -1;
    return drain_events(process) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    static struct client client;
    amd_dbgapi_process_id_t process;
    int verbose = 0, r;

    if (argc == 3 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "-vv") == 0)) {
        verbose = (int)strlen(argv[1]) - 1;
        argv++;
        argc--;
    }
    // Line-buffered: the lines interleave in order with the library's messages on stderr.
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2 || (client.pid = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: dbgapi_attach [-v|-vv] PID\n");
        return 2;
    }
    if (ptrace(PTRACE_SEIZE, client.pid, 0, 0) < 0) {
        printf("dbgapi_attach: FAILED: PTRACE_SEIZE %d: %s\n", client.pid, strerror(errno));
        return 1;
    }
    amd_dbgapi_set_log_level(verbose == 2   ? AMD_DBGAPI_LOG_LEVEL_VERBOSE
                             : verbose == 1 ? AMD_DBGAPI_LOG_LEVEL_INFO
                                            : AMD_DBGAPI_LOG_LEVEL_WARNING);
    if (check(amd_dbgapi_initialize(&callbacks), "amd_dbgapi_initialize"))
        return 1;
    if (check(amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)&client, &process),
              "amd_dbgapi_process_attach")) {
        amd_dbgapi_finalize();
        return 1;
    }
    printf("dbgapi_attach: attached to %d\n", client.pid);
    r = inspect(process);
    if (check(amd_dbgapi_process_detach(process), "amd_dbgapi_process_detach"))
        r = -1;
    else
        printf("dbgapi_attach: detached, %zu breakpoints left\n", client.nbp);
    if (check(amd_dbgapi_finalize(), "amd_dbgapi_finalize"))
        r = -1;
    return r ? 1 : 0;
}
