/* SPDX-License-Identifier: MIT */
/* Test helper: a minimal amd-dbgapi client over a core file (dbgapi_client.h). */
#include "dbgapi_client.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/schema.h>

long tdc_live_allocations;
long tdc_fatal_logs;
long tdc_core_state_freed;
long tdc_fail_allocations;
amd_dbgapi_log_level_t tdc_last_log_level;
char tdc_last_log[512];

/* Blocks the library allocated: a small header before the client's bytes marks them. */
#define TDC_MAGIC 0x7464636d656d6f72ull /* "tdcmemor" */
struct block {
    uint64_t magic;
    uint64_t size;
};

static void *cb_allocate(size_t size)
{
    struct block *b;

    if (size == 0)
        return NULL;
    if (tdc_fail_allocations > 0) {
        tdc_fail_allocations--;
        return NULL;
    }
    b = malloc(sizeof(*b) + size);
    if (!b)
        return NULL;
    b->magic = TDC_MAGIC;
    b->size = size;
    tdc_live_allocations++;
    return b + 1;
}

static int is_core_state(const void *p);

static void cb_deallocate(void *p)
{
    struct block *b;

    if (!p)
        return;
    if (is_core_state(p)) {
        tdc_core_state_freed++;
        free(p);
        return;
    }
    b = (struct block *)p - 1;
    if (b->magic != TDC_MAGIC)
        fail_msg("the library freed %p, which neither it nor the client allocated", p);
    b->magic = 0;
    tdc_live_allocations--;
    free(b);
}

void tdc_free(void *p)
{
    cb_deallocate(p);
}

void tdc_reset_books(void)
{
    tdc_live_allocations = 0;
    tdc_fatal_logs = 0;
    tdc_core_state_freed = 0;
    tdc_fail_allocations = 0;
}

/* Core-state copies handed to the library and not freed yet. */
static const void *given[64];

static int is_core_state(const void *p)
{
    for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
        if (given[i] == p) {
            given[i] = NULL;
            return 1;
        }
    }
    return 0;
}

static amd_dbgapi_status_t cb_process_info(amd_dbgapi_client_process_id_t client,
                                           amd_dbgapi_client_process_info_t query,
                                           size_t value_size, void *value)
{
    struct tdc *c = (struct tdc *)client;
    amd_dbgapi_core_state_data_t cs;
    void *copy;

    if (!c)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID;
    if (!value)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (query == AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID) {
        if (value_size != sizeof(int))
            return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
        if (c->os_pid_answer == AMD_DBGAPI_STATUS_SUCCESS)
            memcpy(value, &c->pid, sizeof(int));
        return c->os_pid_answer;
    }
    if (query != AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (value_size != sizeof(cs))
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    if (!c->note)
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    copy = malloc(c->note_size ? c->note_size : 1);
    assert_non_null(copy);
    memcpy(copy, c->note, c->note_size);
    for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
        if (!given[i]) {
            given[i] = copy;
            break;
        }
    }
    cs.endianness = AMD_DBGAPI_ENDIAN_LITTLE;
    cs.size = c->note_size;
    cs.data = copy;
    memcpy(value, &cs, sizeof(cs));
    c->core_state_given++;
    c->core_state_data = copy;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

static amd_dbgapi_status_t cb_insert_breakpoint(amd_dbgapi_client_process_id_t client,
                                                amd_dbgapi_global_address_t address,
                                                amd_dbgapi_breakpoint_id_t id)
{
    (void)client, (void)address, (void)id;
    fail_msg("the library inserted a breakpoint in a core");
    return AMD_DBGAPI_STATUS_ERROR;
}

static amd_dbgapi_status_t cb_remove_breakpoint(amd_dbgapi_client_process_id_t client,
                                                amd_dbgapi_breakpoint_id_t id)
{
    (void)client, (void)id;
    fail_msg("the library removed a breakpoint in a core");
    return AMD_DBGAPI_STATUS_ERROR;
}

static amd_dbgapi_status_t cb_xfer(amd_dbgapi_client_process_id_t client,
                                   amd_dbgapi_global_address_t address,
                                   amd_dbgapi_size_t *value_size, void *read_buffer,
                                   const void *write_buffer)
{
    struct tdc *c = (struct tdc *)client;
    uint64_t done = 0;

    if (!c)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID;
    if (!value_size || !read_buffer == !write_buffer)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    if (write_buffer) {
        c->writes++;
        *value_size = 0;
        return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
    }
    c->reads++;
    if (c->core)
        gpucore_core_read(c->core, address, read_buffer, *value_size, &done);
    *value_size = done;
    return done ? AMD_DBGAPI_STATUS_SUCCESS : AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
}

static void cb_log(amd_dbgapi_log_level_t level, const char *message)
{
    tdc_last_log_level = level;
    snprintf(tdc_last_log, sizeof(tdc_last_log), "%s", message ? message : "");
    if (level == AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR) {
        tdc_fatal_logs++;
        print_message("amd-dbgapi FATAL: %s\n", tdc_last_log);
    }
}

amd_dbgapi_callbacks_t tdc_callbacks = {
    cb_allocate, cb_deallocate, cb_process_info, cb_insert_breakpoint, cb_remove_breakpoint,
    cb_xfer,     cb_log,
};

void tdc_open(struct tdc *c, const char *path)
{
    gpucore_diag_t d = { 0 };
    struct gpucore_note note;
    uint32_t at = 0;

    memset(c, 0, sizeof(*c));
    c->os_pid_answer = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    if (gpucore_core_open(path, NULL, &c->core, &d))
        fail_msg("%s: %s", path, d.message);
    if (gpucore_core_find_note(c->core, GPUCORE_AMDGPU_NOTE_OWNER,
                               GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &at, &note) == GPUCORE_OK) {
        c->note = note.desc;
        c->note_size = note.desc_size;
    }
}

void tdc_close(struct tdc *c)
{
    gpucore_core_close(c->core);
    memset(c, 0, sizeof(*c));
}

amd_dbgapi_process_id_t tdc_attach(struct tdc *c)
{
    amd_dbgapi_process_id_t p = AMD_DBGAPI_PROCESS_NONE;
    amd_dbgapi_status_t st = amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)c, &p);

    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        fail_msg("attach: status %d", (int)st);
    assert_true(p.handle != 0);
    return p;
}

void tdc_drain(amd_dbgapi_process_id_t p, uint32_t *ret_runtime, uint32_t *ret_runtime_state,
               uint32_t *ret_stops)
{
    *ret_runtime = *ret_stops = 0;
    *ret_runtime_state = 0;
    for (;;) {
        amd_dbgapi_event_id_t ev;
        amd_dbgapi_event_kind_t kind;
        uint32_t state = 0;

        assert_int_equal(amd_dbgapi_process_next_pending_event(p, &ev, &kind),
                         AMD_DBGAPI_STATUS_SUCCESS);
        if (ev.handle == 0) {
            assert_int_equal(kind, AMD_DBGAPI_EVENT_KIND_NONE);
            return;
        }
        if (kind == AMD_DBGAPI_EVENT_KIND_RUNTIME) {
            /* the runtime event comes first */
            assert_int_equal(*ret_stops, 0);
            assert_int_equal(amd_dbgapi_event_get_info(ev, AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE,
                                                       sizeof(state), &state),
                             AMD_DBGAPI_STATUS_SUCCESS);
            (*ret_runtime)++;
            *ret_runtime_state = state;
        } else if (kind == AMD_DBGAPI_EVENT_KIND_WAVE_STOP) {
            (*ret_stops)++;
        } else {
            fail_msg("unexpected event kind %d on a core", (int)kind);
        }
        assert_int_equal(amd_dbgapi_event_processed(ev), AMD_DBGAPI_STATUS_SUCCESS);
    }
}

#define LIST_FN(fn, kind, type)                                                                 \
    struct tdc_list fn(amd_dbgapi_process_id_t p)                                               \
    {                                                                                           \
        struct tdc_list l = { NULL, 0 };                                                        \
        type *items = NULL;                                                                     \
                                                                                                \
        assert_int_equal(amd_dbgapi_process_##kind##_list(p, &l.n, &items, NULL),              \
                         AMD_DBGAPI_STATUS_SUCCESS);                                            \
        l.ids = (uint64_t *)(void *)items;                                                      \
        return l;                                                                               \
    }

LIST_FN(tdc_waves, wave, amd_dbgapi_wave_id_t)
LIST_FN(tdc_agents, agent, amd_dbgapi_agent_id_t)
LIST_FN(tdc_queues, queue, amd_dbgapi_queue_id_t)
LIST_FN(tdc_dispatches, dispatch, amd_dbgapi_dispatch_id_t)
LIST_FN(tdc_workgroups, workgroup, amd_dbgapi_workgroup_id_t)
LIST_FN(tdc_code_objects, code_object, amd_dbgapi_code_object_id_t)

#define INFO_FN(kind, handle_type, query_type)                                                  \
    uint64_t tdc_##kind##_u64(uint64_t id, query_type q, size_t size)                          \
    {                                                                                           \
        handle_type h = { id };                                                                 \
        uint64_t v = 0;                                                                         \
        amd_dbgapi_status_t st = amd_dbgapi_##kind##_get_info(h, q, size, &v);                  \
                                                                                                \
        if (st != AMD_DBGAPI_STATUS_SUCCESS)                                                    \
            fail_msg(#kind " %llu query %d: status %d", (unsigned long long)id, (int)q,        \
                     (int)st);                                                                  \
        return v;                                                                               \
    }

INFO_FN(wave, amd_dbgapi_wave_id_t, amd_dbgapi_wave_info_t)
INFO_FN(agent, amd_dbgapi_agent_id_t, amd_dbgapi_agent_info_t)
INFO_FN(queue, amd_dbgapi_queue_id_t, amd_dbgapi_queue_info_t)
INFO_FN(dispatch, amd_dbgapi_dispatch_id_t, amd_dbgapi_dispatch_info_t)
INFO_FN(workgroup, amd_dbgapi_workgroup_id_t, amd_dbgapi_workgroup_info_t)

char *tdc_register_name(uint64_t reg)
{
    amd_dbgapi_register_id_t r = { reg };
    char *name = NULL;

    assert_int_equal(amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_NAME,
                                                  sizeof(name), &name),
                     AMD_DBGAPI_STATUS_SUCCESS);
    return name;
}

char *tdc_architecture_name(uint64_t arch)
{
    amd_dbgapi_architecture_id_t a = { arch };
    char *name = NULL;

    assert_int_equal(amd_dbgapi_architecture_get_info(a, AMD_DBGAPI_ARCHITECTURE_INFO_NAME,
                                                      sizeof(name), &name),
                     AMD_DBGAPI_STATUS_SUCCESS);
    return name;
}
