/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for libgpucore-dbgapi: the input is a core file (plain or compressed), opened
 * through the public amd-dbgapi interface exactly as a debugger opens a core -- OS pid not
 * available, the AMDGPU note as the core state, memory served from the core's segments --
 * and then walked: every event, every list, every query of every agent, queue, dispatch,
 * workgroup, wave and code object, the packets of every queue, the registers and the
 * instruction at the PC of every wave, the LDS and scratch of every wave, and the code of
 * every code object's load address.
 *
 * Invariants (abort() on violation): no call returns FATAL or a status outside its documented
 * set (statuses.def); the library never asks to write memory or to insert a breakpoint;
 * every block the library allocates for the client is handed over (none is left when the
 * client has freed what it got); the core-state copy handed over is freed exactly once.
 * Work per input is bounded: at most 256 waves and 64 of each other kind are walked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>
#include <gpucore/schema.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WAVES 256u
#define MAX_OTHERS 64u

/* ---- documented status sets ----------------------------------------------------------------- */

#define S(x) (1ull << -(AMD_DBGAPI_STATUS_##x))
static const struct {
    const char *fn;
    uint64_t set;
} sets[] = {
#define GC_DBGAPI_STATUSES(fn, set) { #fn, (set) },
#include "statuses.def"
#undef GC_DBGAPI_STATUSES
};

static amd_dbgapi_status_t check(const char *fn, amd_dbgapi_status_t st)
{
    if (st == AMD_DBGAPI_STATUS_FATAL || st > 0 || st < -63)
        abort();
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
        if (strcmp(sets[i].fn, fn) == 0)
            return ((sets[i].set >> -st) & 1u) ? st : (abort(), st);
    abort();
}

#define CALL(fn, ...) check(#fn, fn(__VA_ARGS__))

/* ---- the client ------------------------------------------------------------------------------ */

struct client {
    gpucore_core_t *core;
    struct gpucore_note note;
    int have_note;
    void *given; /* the core-state copy handed over, until freed */
    int freed;
};

static long live; /* blocks the library allocated for the client and not freed yet */

static void *cb_allocate(size_t n)
{
    void *p = n ? malloc(n) : NULL;

    if (p)
        live++;
    return p;
}

static struct client *current;

static void cb_deallocate(void *p)
{
    if (!p)
        return;
    if (current && p == current->given) {
        if (current->freed++)
            abort();
        current->given = NULL;
        free(p);
        return;
    }
    live--;
    free(p);
}

static void client_free(void *p)
{
    cb_deallocate(p);
}

static amd_dbgapi_status_t cb_info(amd_dbgapi_client_process_id_t id,
                                   amd_dbgapi_client_process_info_t q, size_t n, void *value)
{
    struct client *c = (struct client *)id;
    amd_dbgapi_core_state_data_t cs;

    if (c != current || !value)
        abort();
    if (q == AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID)
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    if (q != AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE || n != sizeof(cs))
        abort();
    if (!c->have_note)
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    c->given = malloc(c->note.desc_size ? c->note.desc_size : 1);
    if (!c->given)
        return AMD_DBGAPI_STATUS_ERROR;
    memcpy(c->given, c->note.desc, c->note.desc_size);
    cs.endianness = AMD_DBGAPI_ENDIAN_LITTLE;
    cs.size = c->note.desc_size;
    cs.data = c->given;
    memcpy(value, &cs, sizeof(cs));
    return AMD_DBGAPI_STATUS_SUCCESS;
}

static amd_dbgapi_status_t cb_insert(amd_dbgapi_client_process_id_t id,
                                     amd_dbgapi_global_address_t a, amd_dbgapi_breakpoint_id_t b)
{
    (void)id, (void)a, (void)b;
    abort(); /* a core has no breakpoints */
}

static amd_dbgapi_status_t cb_remove(amd_dbgapi_client_process_id_t id,
                                     amd_dbgapi_breakpoint_id_t b)
{
    (void)id, (void)b;
    abort();
}

static amd_dbgapi_status_t cb_xfer(amd_dbgapi_client_process_id_t id,
                                   amd_dbgapi_global_address_t address, amd_dbgapi_size_t *n,
                                   void *read, const void *write)
{
    struct client *c = (struct client *)id;
    uint64_t done = 0;

    if (c != current || !n || write || !read)
        abort(); /* never a write on a core */
    gpucore_core_read(c->core, address, read, *n, &done);
    if (done > *n)
        abort();
    *n = done;
    return done ? AMD_DBGAPI_STATUS_SUCCESS : AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
}

static void cb_log(amd_dbgapi_log_level_t level, const char *message)
{
    if (level == AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR || !message)
        abort();
}

static amd_dbgapi_callbacks_t callbacks = { cb_allocate, cb_deallocate, cb_info, cb_insert,
                                            cb_remove,   cb_xfer,       cb_log };

/* ---- the walk -------------------------------------------------------------------------------- */

/* Every query 1..n of a getter with each plausible value size; results freed. */
typedef amd_dbgapi_status_t (*getter)(uint64_t id, int q, size_t size, void *value);

#define GETTER(name, fn, handle_type, query_type)                                              \
    static amd_dbgapi_status_t name(uint64_t id, int q, size_t size, void *value)              \
    {                                                                                          \
        handle_type h = { id };                                                                \
        return CALL(fn, h, (query_type)q, size, value);                                        \
    }
GETTER(g_agent, amd_dbgapi_agent_get_info, amd_dbgapi_agent_id_t, amd_dbgapi_agent_info_t)
GETTER(g_queue, amd_dbgapi_queue_get_info, amd_dbgapi_queue_id_t, amd_dbgapi_queue_info_t)
GETTER(g_dispatch, amd_dbgapi_dispatch_get_info, amd_dbgapi_dispatch_id_t,
       amd_dbgapi_dispatch_info_t)
GETTER(g_workgroup, amd_dbgapi_workgroup_get_info, amd_dbgapi_workgroup_id_t,
       amd_dbgapi_workgroup_info_t)
GETTER(g_wave, amd_dbgapi_wave_get_info, amd_dbgapi_wave_id_t, amd_dbgapi_wave_info_t)
GETTER(g_co, amd_dbgapi_code_object_get_info, amd_dbgapi_code_object_id_t,
       amd_dbgapi_code_object_info_t)
GETTER(g_arch, amd_dbgapi_architecture_get_info, amd_dbgapi_architecture_id_t,
       amd_dbgapi_architecture_info_t)

/* The queries whose value is memory the client frees: (getter, query). */
static int owns_memory(getter g, int q)
{
    return (g == g_agent && q == AMD_DBGAPI_AGENT_INFO_NAME) ||
           (g == g_co && q == AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME) ||
           (g == g_arch && (q == AMD_DBGAPI_ARCHITECTURE_INFO_NAME ||
                            q == AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION));
}

static void query_all(getter g, uint64_t id, int last)
{
    static const size_t sizes[] = { 2, 4, 6, 8, 12, 16, 24 };

    for (int q = 1; q <= last; q++) {
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            union {
                uint8_t b[32];
                void *p;
                amd_dbgapi_watchpoint_list_t w;
            } v;

            memset(&v, 0, sizeof(v));
            if (g(id, q, sizes[k], &v) != AMD_DBGAPI_STATUS_SUCCESS)
                continue;
            if (owns_memory(g, q))
                client_free(v.p);
            else if (g == g_wave && q == AMD_DBGAPI_WAVE_INFO_WATCHPOINTS)
                client_free(v.w.watchpoint_ids);
        }
    }
}

static uint64_t u64_of(getter g, uint64_t id, int q)
{
    uint64_t v = 0;

    return g(id, q, 8, &v) == AMD_DBGAPI_STATUS_SUCCESS ? v : 0;
}

static void walk_wave(amd_dbgapi_process_id_t p, amd_dbgapi_wave_id_t w)
{
    amd_dbgapi_architecture_id_t a = { u64_of(g_wave, w.handle, AMD_DBGAPI_WAVE_INFO_ARCHITECTURE) };
    amd_dbgapi_register_id_t *regs = NULL;
    size_t n = 0;
    uint8_t buf[1024];
    uint64_t pc = u64_of(g_wave, w.handle, AMD_DBGAPI_WAVE_INFO_PC);
    amd_dbgapi_size_t size;

    query_all(g_wave, w.handle, AMD_DBGAPI_WAVE_INFO_LANE_COUNT);
    if (CALL(amd_dbgapi_wave_register_list, w, &n, &regs) == AMD_DBGAPI_STATUS_SUCCESS) {
        for (size_t i = 0; i < n; i++) {
            uint64_t rsize = 0;

            if (CALL(amd_dbgapi_register_get_info, regs[i], AMD_DBGAPI_REGISTER_INFO_SIZE,
                     sizeof(rsize), &rsize) != AMD_DBGAPI_STATUS_SUCCESS)
                continue;
            if (rsize == 0 || rsize > sizeof(buf))
                abort(); /* registers are at most 64 lanes x 4 bytes... and a little */
            CALL(amd_dbgapi_read_register, w, regs[i], 0, rsize, buf);
        }
        client_free(regs);
    }
    /* the instruction at the PC */
    size = 64;
    if (CALL(amd_dbgapi_read_memory, p, AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE,
             AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, pc, &size, buf) == AMD_DBGAPI_STATUS_SUCCESS) {
        char *text = NULL;

        if (size > 64)
            abort();
        if (CALL(amd_dbgapi_disassemble_instruction, a, pc & ~3ull, &size, buf, &text, NULL,
                 NULL) == AMD_DBGAPI_STATUS_SUCCESS)
            client_free(text);
    }
    /* LDS and scratch, as DWARF expressions reach them */
    for (uint64_t dwarf = 1; dwarf <= 6; dwarf++) {
        amd_dbgapi_address_space_id_t s;

        if (CALL(amd_dbgapi_dwarf_address_space_to_address_space, a, dwarf, &s) !=
            AMD_DBGAPI_STATUS_SUCCESS)
            continue;
        size = 128;
        CALL(amd_dbgapi_read_memory, p, w, 0, s, 0, &size, buf);
        if (size > 128)
            abort();
    }
}

#define LIST(kind, type, out, count)                                                           \
    do {                                                                                       \
        type *items_ = NULL;                                                                   \
        (count) = 0;                                                                           \
        if (CALL(amd_dbgapi_process_##kind##_list, p, &(count), &items_, NULL) !=              \
            AMD_DBGAPI_STATUS_SUCCESS)                                                         \
            (count) = 0;                                                                       \
        (out) = items_;                                                                        \
    } while (0)

static void walk(amd_dbgapi_process_id_t p)
{
    amd_dbgapi_agent_id_t *agents;
    amd_dbgapi_queue_id_t *queues;
    amd_dbgapi_dispatch_id_t *dispatches;
    amd_dbgapi_workgroup_id_t *groups;
    amd_dbgapi_wave_id_t *waves;
    amd_dbgapi_code_object_id_t *cos;
    size_t na, nq, nd, ng, nw, nc;

    for (;;) { /* the events: RUNTIME, then the stops */
        amd_dbgapi_event_id_t ev;
        amd_dbgapi_event_kind_t kind;

        if (CALL(amd_dbgapi_process_next_pending_event, p, &ev, &kind) !=
                    AMD_DBGAPI_STATUS_SUCCESS ||
            ev.handle == 0)
            break;
        CALL(amd_dbgapi_event_processed, ev);
    }
    LIST(agent, amd_dbgapi_agent_id_t, agents, na);
    LIST(queue, amd_dbgapi_queue_id_t, queues, nq);
    LIST(dispatch, amd_dbgapi_dispatch_id_t, dispatches, nd);
    LIST(workgroup, amd_dbgapi_workgroup_id_t, groups, ng);
    LIST(wave, amd_dbgapi_wave_id_t, waves, nw);
    LIST(code_object, amd_dbgapi_code_object_id_t, cos, nc);
    for (size_t i = 0; i < na && i < MAX_OTHERS; i++) {
        query_all(g_agent, agents[i].handle, AMD_DBGAPI_AGENT_INFO_OS_ID);
        query_all(g_arch, u64_of(g_agent, agents[i].handle, AMD_DBGAPI_AGENT_INFO_ARCHITECTURE),
                  AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER);
    }
    for (size_t i = 0; i < nq && i < MAX_OTHERS; i++) {
        amd_dbgapi_os_queue_packet_id_t r, w;
        size_t bytes = 0;
        void *packets = NULL;

        query_all(g_queue, queues[i].handle, AMD_DBGAPI_QUEUE_INFO_OS_ID);
        if (CALL(amd_dbgapi_queue_packet_list, queues[i], &r, &w, &bytes, &packets) ==
            AMD_DBGAPI_STATUS_SUCCESS)
            client_free(packets);
    }
    for (size_t i = 0; i < nd && i < MAX_OTHERS; i++)
        query_all(g_dispatch, dispatches[i].handle, AMD_DBGAPI_DISPATCH_INFO_KERNEL_COMPLETION_ADDRESS);
    for (size_t i = 0; i < ng && i < MAX_OTHERS; i++)
        query_all(g_workgroup, groups[i].handle, AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD);
    for (size_t i = 0; i < nw && i < MAX_WAVES; i++)
        walk_wave(p, waves[i]);
    for (size_t i = 0; i < nc && i < MAX_OTHERS; i++)
        query_all(g_co, cos[i].handle, AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS);
    client_free(agents);
    client_free(queues);
    client_free(dispatches);
    client_free(groups);
    client_free(waves);
    client_free(cos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct client c;
    amd_dbgapi_process_id_t p;
    uint32_t at = 0;

    memset(&c, 0, sizeof(c));
    if (gpucore_core_open_memory(data, size, NULL, &c.core, NULL) != GPUCORE_OK)
        return 0;
    c.have_note = gpucore_core_find_note(c.core, GPUCORE_AMDGPU_NOTE_OWNER,
                                         GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &at,
                                         &c.note) == GPUCORE_OK;
    current = &c;
    live = 0;
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR); /* FATAL_ERROR aborts */
    if (CALL(amd_dbgapi_initialize, &callbacks) != AMD_DBGAPI_STATUS_SUCCESS)
        abort();
    if (CALL(amd_dbgapi_process_attach, (amd_dbgapi_client_process_id_t)&c, &p) ==
        AMD_DBGAPI_STATUS_SUCCESS) {
        walk(p);
        if (CALL(amd_dbgapi_process_detach, p) != AMD_DBGAPI_STATUS_SUCCESS)
            abort();
    }
    if (c.have_note && c.freed != 1) /* the note handed over was freed once */
        abort();
    if (CALL(amd_dbgapi_finalize) != AMD_DBGAPI_STATUS_SUCCESS || live != 0)
        abort();
    current = NULL;
    gpucore_core_close(c.core);
    return 0;
}
