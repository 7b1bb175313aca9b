// SPDX-License-Identifier: MIT
//
// dbgapi_attach [-v|-vv] [-r] PID: AMD's own debugger library (ROCdbgapi, Debian's librocm-dbgapi0)
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
// With -r (report), while the waves are stopped, every fact of the agents, queues, dispatches,
// code objects and waves, and every register of each wave, one line each,
// "view KIND KEY | FIELD = VALUE", keyed by what a core of the same moment also has (os ids,
// packet ids, workgroup coordinates), for tests/kfdemu/compare-amd-dbgapi.sh to diff against
// `gpucore dbgapi-dump --json` of such a core: numbers in hexadecimal, enumerations by value,
// a vector register as its elements (element size from its type "T[N]"), a refused query as
// "error STATUS".
//
// The lists are asked for without a `changed` argument: with one, a list that has not changed
// since the last call comes back empty.
//
// The client callbacks: memory comes from malloc; the process's pid is the client process id;
// breakpoints are recorded, not written: the library plants one at the runtime's r_brk (ROCr
// calls it around code-object loads), and a process whose kernel hangs loads none while we
// look. ROCdbgapi 5.7 has no memory callback: it reads and writes the target's memory itself,
// through /proc/PID/mem. Built against ROCdbgapi 0.74 or later (AMD's library from its source),
// the client answers client_process_get_info and serves memory through /proc/PID/mem itself.
#define _GNU_SOURCE
#include <amd-dbgapi/amd-dbgapi.h>
#include <errno.h>
#include <fcntl.h>
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

#if AMD_DBGAPI_VERSION_MAJOR == 0 && AMD_DBGAPI_VERSION_MINOR < 74
static amd_dbgapi_status_t cb_get_os_pid(amd_dbgapi_client_process_id_t cp,
                                         amd_dbgapi_os_process_id_t *pid)
{
    *pid = ((struct client *)cp)->pid;
    return AMD_DBGAPI_STATUS_SUCCESS;
}
#define PROCESS_CALLBACK .get_os_pid = cb_get_os_pid
#else
// 0.74 on: the process's pid, and no core state (a live process).
static amd_dbgapi_status_t cb_process_info(amd_dbgapi_client_process_id_t cp,
                                           amd_dbgapi_client_process_info_t query,
                                           size_t size, void *value)
{
    if (query != AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID)
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    if (size != sizeof(amd_dbgapi_os_process_id_t))
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    *(amd_dbgapi_os_process_id_t *)value = ((struct client *)cp)->pid;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

// 0.74 on the library asks its client for the process's memory: /proc/PID/mem, as 0.70 did
// itself. A short transfer reports what was transferred.
static amd_dbgapi_status_t cb_xfer_memory(amd_dbgapi_client_process_id_t cp,
                                          amd_dbgapi_global_address_t address,
                                          amd_dbgapi_size_t *size, void *read_buffer,
                                          const void *write_buffer)
{
    char path[64];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/mem", (int)((struct client *)cp)->pid);
    fd = open(path, (read_buffer ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
    if (fd < 0)
        return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
    n = read_buffer ? pread(fd, read_buffer, *size, (off_t)address)
                    : pwrite(fd, write_buffer, *size, (off_t)address);
    close(fd);
    if (n <= 0)
        return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
    *size = (amd_dbgapi_size_t)n;
    return AMD_DBGAPI_STATUS_SUCCESS;
}
#define PROCESS_CALLBACK .client_process_get_info = cb_process_info, \
                         .xfer_global_memory = cb_xfer_memory
#endif

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
    PROCESS_CALLBACK,
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

// ---- -r: the view, one line per fact -------------------------------------------------------

// How a query's value is printed: unsigned integers of 2, 4 or 8 bytes (enumerations and flag
// sets too: by value), a string the library allocated, three u16 or u32.
enum vtype { T_U16, T_U32, T_U64, T_STR, T_U16X3, T_U32X3 };

struct field {
    int query;
    const char *name; // as gpucore dbgapi-dump --json names it
    enum vtype type;
};

typedef amd_dbgapi_status_t (*info_fn)(uint64_t handle, int query, size_t size, void *value);

#define INFO_FN(kind)                                                                          \
    static amd_dbgapi_status_t kind##_info(uint64_t h, int q, size_t size, void *value)        \
    {                                                                                          \
        return amd_dbgapi_##kind##_get_info((amd_dbgapi_##kind##_id_t){ h },                   \
                                            (amd_dbgapi_##kind##_info_t)q, size, value);       \
    }
INFO_FN(agent)
INFO_FN(queue)
INFO_FN(dispatch)
INFO_FN(wave)
INFO_FN(code_object)

#define F(prefix, q, t) { prefix##q, #q, t }
static const struct field agent_fields[] = {
    F(AMD_DBGAPI_AGENT_INFO_, NAME, T_STR),
    F(AMD_DBGAPI_AGENT_INFO_, STATE, T_U32),
    F(AMD_DBGAPI_AGENT_INFO_, PCI_DOMAIN, T_U16),
    F(AMD_DBGAPI_AGENT_INFO_, PCI_SLOT, T_U16),
    F(AMD_DBGAPI_AGENT_INFO_, PCI_VENDOR_ID, T_U32),
    F(AMD_DBGAPI_AGENT_INFO_, PCI_DEVICE_ID, T_U32),
    F(AMD_DBGAPI_AGENT_INFO_, EXECUTION_UNIT_COUNT, T_U64),
    F(AMD_DBGAPI_AGENT_INFO_, MAX_WAVES_PER_EXECUTION_UNIT, T_U64),
};
static const struct field queue_fields[] = {
    F(AMD_DBGAPI_QUEUE_INFO_, TYPE, T_U32),
    F(AMD_DBGAPI_QUEUE_INFO_, STATE, T_U32),
    F(AMD_DBGAPI_QUEUE_INFO_, ERROR_REASON, T_U32),
    F(AMD_DBGAPI_QUEUE_INFO_, ADDRESS, T_U64),
    F(AMD_DBGAPI_QUEUE_INFO_, SIZE, T_U64),
};
static const struct field dispatch_fields[] = {
    F(AMD_DBGAPI_DISPATCH_INFO_, BARRIER, T_U32),
    F(AMD_DBGAPI_DISPATCH_INFO_, ACQUIRE_FENCE, T_U32),
    F(AMD_DBGAPI_DISPATCH_INFO_, RELEASE_FENCE, T_U32),
    F(AMD_DBGAPI_DISPATCH_INFO_, GRID_DIMENSIONS, T_U32),
    F(AMD_DBGAPI_DISPATCH_INFO_, WORKGROUP_SIZES, T_U16X3),
    F(AMD_DBGAPI_DISPATCH_INFO_, GRID_SIZES, T_U32X3),
    F(AMD_DBGAPI_DISPATCH_INFO_, PRIVATE_SEGMENT_SIZE, T_U64),
    F(AMD_DBGAPI_DISPATCH_INFO_, GROUP_SEGMENT_SIZE, T_U64),
    F(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_ARGUMENT_SEGMENT_ADDRESS, T_U64),
    F(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_DESCRIPTOR_ADDRESS, T_U64),
    F(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_CODE_ENTRY_ADDRESS, T_U64),
    F(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_COMPLETION_ADDRESS, T_U64),
};
static const struct field wave_fields[] = {
    F(AMD_DBGAPI_WAVE_INFO_, STATE, T_U32),
    F(AMD_DBGAPI_WAVE_INFO_, STOP_REASON, T_U32),
    F(AMD_DBGAPI_WAVE_INFO_, PC, T_U64),
    F(AMD_DBGAPI_WAVE_INFO_, EXEC_MASK, T_U64),
    F(AMD_DBGAPI_WAVE_INFO_, LANE_COUNT, T_U64),
};
static const struct field code_object_fields[] = {
    F(AMD_DBGAPI_CODE_OBJECT_INFO_, LOAD_ADDRESS, T_U64),
};
#define FIELDS(t) t, sizeof(t) / sizeof((t)[0])

static const size_t vtype_size[] = {
    [T_U16] = 2, [T_U32] = 4, [T_U64] = 8, [T_STR] = sizeof(char *), [T_U16X3] = 6, [T_U32X3] = 12,
};

// Prints "view KEY | name = value" for each field; names in lower case as gpucore's JSON.
static void view_fields(const char *key, info_fn info, uint64_t h, const struct field *f,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        union {
            uint16_t u16[3];
            uint32_t u32[3];
            uint64_t u64;
            char *str;
        } v;
        char name[64];
        amd_dbgapi_status_t st;
        size_t k;

        memset(&v, 0, sizeof(v));
        for (k = 0; f[i].name[k] && k + 1 < sizeof(name); k++)
            name[k] = (char)(f[i].name[k] | 0x20 * (f[i].name[k] >= 'A' && f[i].name[k] <= 'Z'));
        name[k] = 0;
        st = info(h, f[i].query, vtype_size[f[i].type], &v);
        printf("view %s | %s = ", key, name);
        if (st != AMD_DBGAPI_STATUS_SUCCESS) {
            printf("error %s\n", status_name(st));
            continue;
        }
        switch (f[i].type) {
        case T_U16:
            printf("0x%x\n", v.u16[0]);
            break;
        case T_U32:
            printf("0x%x\n", v.u32[0]);
            break;
        case T_U64:
            printf("0x%" PRIx64 "\n", v.u64);
            break;
        case T_STR:
            printf("%s\n", v.str);
            free(v.str);
            break;
        case T_U16X3:
            printf("0x%x,0x%x,0x%x\n", v.u16[0], v.u16[1], v.u16[2]);
            break;
        case T_U32X3:
            printf("0x%x,0x%x,0x%x\n", v.u32[0], v.u32[1], v.u32[2]);
            break;
        }
    }
}

// A register's value: up to 8 bytes one number, else its elements (size from "T[N]").
static void view_register(const char *key, amd_dbgapi_wave_id_t w, amd_dbgapi_register_id_t r)
{
    char *name = NULL, *type = NULL;
    amd_dbgapi_size_t size = 0, elem;
    uint8_t *buf;
    const char *br;
    amd_dbgapi_status_t st;

    if (amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_NAME, sizeof(name), &name) !=
            AMD_DBGAPI_STATUS_SUCCESS ||
        amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_SIZE, sizeof(size), &size) !=
            AMD_DBGAPI_STATUS_SUCCESS ||
        amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_TYPE, sizeof(type), &type) !=
            AMD_DBGAPI_STATUS_SUCCESS ||
        size == 0 || size > (1u << 20)) {
        printf("view %s | register %" PRIu64 " = error no name, size or type\n", key, r.handle);
        free(name);
        free(type);
        return;
    }
    elem = size;
    if ((br = strchr(type, '[')) && atoi(br + 1) > 0 && size % (amd_dbgapi_size_t)atoi(br + 1) == 0)
        elem = size / (amd_dbgapi_size_t)atoi(br + 1);
    if (elem > 8)
        elem = 4;
    buf = calloc(1, size);
    st = buf ? amd_dbgapi_read_register(w, r, 0, size, buf) : AMD_DBGAPI_STATUS_ERROR;
    printf("view %s | reg %s = ", key, name);
    if (st != AMD_DBGAPI_STATUS_SUCCESS) {
        printf("error %s\n", status_name(st));
    } else {
        for (amd_dbgapi_size_t o = 0; o + elem <= size; o += elem) {
            uint64_t v = 0;

            for (amd_dbgapi_size_t b = elem; b-- > 0;)
                v = v << 8 | buf[o + b];
            printf("%s0x%" PRIx64, o ? "," : "", v);
        }
        printf("\n");
    }
    free(buf);
    free(name);
    free(type);
}

// "queue OSID packet N" of a dispatch; "?" parts where the library does not say.
static void dispatch_key(amd_dbgapi_dispatch_id_t d, char *key, size_t size)
{
    amd_dbgapi_queue_id_t q;
    amd_dbgapi_os_queue_id_t os = 0;
    amd_dbgapi_os_queue_packet_id_t packet = 0;
    int have_q = amd_dbgapi_dispatch_get_info(d, AMD_DBGAPI_DISPATCH_INFO_QUEUE, sizeof(q), &q) ==
                         AMD_DBGAPI_STATUS_SUCCESS &&
                 amd_dbgapi_queue_get_info(q, AMD_DBGAPI_QUEUE_INFO_OS_ID, sizeof(os), &os) ==
                         AMD_DBGAPI_STATUS_SUCCESS;
    int have_p = amd_dbgapi_dispatch_get_info(d, AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID,
                                              sizeof(packet), &packet) == AMD_DBGAPI_STATUS_SUCCESS;

    snprintf(key, size, "dispatch queue %s%" PRIu64 " packet %s%" PRIu64, have_q ? "" : "?",
             os, have_p ? "" : "?", packet);
}

// The view of every agent, queue, dispatch, code object and stopped wave. 0, -1 on a failure
// to list.
static int view(amd_dbgapi_process_id_t process)
{
    amd_dbgapi_agent_id_t *agents = NULL;
    amd_dbgapi_queue_id_t *queues = NULL;
    amd_dbgapi_dispatch_id_t *dispatches = NULL;
    amd_dbgapi_code_object_id_t *cos = NULL;
    amd_dbgapi_wave_id_t *waves = NULL;
    size_t na, nq, nd, nc, nw;
    char key[160];
    int r = -1;

    if (check(amd_dbgapi_process_agent_list(process, &na, &agents, NULL), "agent list") ||
        check(amd_dbgapi_process_queue_list(process, &nq, &queues, NULL), "queue list") ||
        check(amd_dbgapi_process_dispatch_list(process, &nd, &dispatches, NULL), "dispatch list") ||
        check(amd_dbgapi_process_code_object_list(process, &nc, &cos, NULL), "code object list") ||
        check(amd_dbgapi_process_wave_list(process, &nw, &waves, NULL), "wave list"))
        goto out;
    printf("view process | agents = %zu\nview process | queues = %zu\n"
           "view process | dispatches = %zu\nview process | code_objects = %zu\n"
           "view process | waves = %zu\n", na, nq, nd, nc, nw);
    for (size_t i = 0; i < na; i++) {
        amd_dbgapi_os_agent_id_t os = 0;

        amd_dbgapi_agent_get_info(agents[i], AMD_DBGAPI_AGENT_INFO_OS_ID, sizeof(os), &os);
        snprintf(key, sizeof(key), "agent %" PRIu64, (uint64_t)os);
        view_fields(key, agent_info, agents[i].handle, FIELDS(agent_fields));
    }
    for (size_t i = 0; i < nq; i++) {
        amd_dbgapi_os_queue_id_t os = 0;

        amd_dbgapi_queue_get_info(queues[i], AMD_DBGAPI_QUEUE_INFO_OS_ID, sizeof(os), &os);
        snprintf(key, sizeof(key), "queue %" PRIu64, (uint64_t)os);
        view_fields(key, queue_info, queues[i].handle, FIELDS(queue_fields));
    }
    for (size_t i = 0; i < nd; i++) {
        dispatch_key(dispatches[i], key, sizeof(key));
        view_fields(key, dispatch_info, dispatches[i].handle, FIELDS(dispatch_fields));
    }
    for (size_t i = 0; i < nc; i++) {
        char *uri = NULL;

        if (amd_dbgapi_code_object_get_info(cos[i], AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME,
                                            sizeof(uri), &uri) != AMD_DBGAPI_STATUS_SUCCESS)
            continue;
        snprintf(key, sizeof(key), "code_object %s", uri);
        free(uri);
        view_fields(key, code_object_info, cos[i].handle, FIELDS(code_object_fields));
    }
    for (size_t i = 0; i < nw; i++) {
        amd_dbgapi_dispatch_id_t d;
        uint32_t coord[3] = { 0, 0, 0 }, number = 0;
        amd_dbgapi_register_id_t *regs = NULL;
        size_t nr = 0;
        char dk[128] = "dispatch ?";

        if (amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_DISPATCH, sizeof(d), &d) ==
            AMD_DBGAPI_STATUS_SUCCESS)
            dispatch_key(d, dk, sizeof(dk));
        amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_WORKGROUP_COORD, sizeof(coord),
                                 coord);
        amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_WAVE_NUMBER_IN_WORKGROUP,
                                 sizeof(number), &number);
        snprintf(key, sizeof(key), "wave %s group %u,%u,%u wave %u", dk, coord[0], coord[1],
                 coord[2], number);
        view_fields(key, wave_info, waves[i].handle, FIELDS(wave_fields));
        if (check(amd_dbgapi_wave_register_list(waves[i], &nr, &regs), "wave register list"))
            goto out;
        for (size_t k = 0; k < nr; k++)
            view_register(key, waves[i], regs[k]);
        free(regs);
    }
    r = 0;
out:
    free(agents);
    free(queues);
    free(dispatches);
    free(cos);
    free(waves);
    return r;
}

static int report; // -r

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
        (stopping > 0 && list_waves(process, 0) < 0) || (report && view(process)))
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

    for (; argc > 2 && argv[1][0] == '-'; argv++, argc--) {
        if (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "-vv") == 0)
            verbose = (int)strlen(argv[1]) - 1;
        else if (strcmp(argv[1], "-r") == 0)
            report = 1;
        else
            break;
    }
    // Line-buffered: the lines interleave in order with the library's messages on stderr.
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2 || (client.pid = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: dbgapi_attach [-v|-vv] [-r] PID\n");
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
    if (report) {
        uint32_t major = 0, minor = 0, patch = 0;

        amd_dbgapi_get_version(&major, &minor, &patch);
        printf("dbgapi_attach: library version %u.%u.%u, %s\n", major, minor, patch,
               amd_dbgapi_get_build_name());
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
