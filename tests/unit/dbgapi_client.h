/* SPDX-License-Identifier: MIT */
/*
 * Test helper: a minimal amd-dbgapi client, as a debugger opens a core through the library
 * (docs/dbgapi-on-cores.md §3): it answers OS_PID with NOT_AVAILABLE and CORE_STATE
 * with a malloc'ed copy of the core's AMDGPU note, and serves reads from the core's PT_LOADs.
 *
 * It also keeps the books a conformance test needs: every block the library allocates through
 * allocate_memory and every block freed through deallocate_memory (so what the library hands
 * the client, and what it frees of the client's, can be checked), write attempts on memory,
 * and FATAL_ERROR messages the library logs (each one a library bug: the tests fail on them).
 */
#ifndef GC_TEST_DBGAPI_CLIENT_H
#define GC_TEST_DBGAPI_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>

struct tdc {
    gpucore_core_t *core;              /* NULL: no memory at all */
    const void *note;                  /* the AMDGPU note desc, NULL if none */
    size_t note_size;
    amd_dbgapi_status_t os_pid_answer; /* default NOT_AVAILABLE (a core) */
    int pid;                           /* answered when os_pid_answer is SUCCESS */
    /* books */
    uint64_t reads, writes, core_state_given;
    const void *core_state_data;       /* the copy handed over last */
};

/* Library allocations minus deallocations of memory the library allocated, and FATAL_ERROR log
   lines seen, since the last tdc_reset_books(). */
extern long tdc_live_allocations;
extern long tdc_fatal_logs;
extern long tdc_core_state_freed; /* deallocate_memory calls on a core-state copy */
extern long tdc_fail_allocations; /* > 0: that many allocate_memory calls return NULL */
extern amd_dbgapi_log_level_t tdc_last_log_level;
extern char tdc_last_log[512];

extern amd_dbgapi_callbacks_t tdc_callbacks;

void tdc_reset_books(void);

/* Open @p path into @p c (fails the test on error); find its note. */
void tdc_open(struct tdc *c, const char *path);
void tdc_close(struct tdc *c);

/* Free memory the library handed the client (counts it). */
void tdc_free(void *p);

/* Attach to @p c; fails the test unless SUCCESS. */
amd_dbgapi_process_id_t tdc_attach(struct tdc *c);

/* Drain the pending events, marking each processed: the number of RUNTIME events (and the
   last one's state) and of WAVE_STOP events. Fails the test on any other kind of event, or a
   RUNTIME event after a WAVE_STOP. */
void tdc_drain(amd_dbgapi_process_id_t p, uint32_t *ret_runtime, uint32_t *ret_runtime_state,
               uint32_t *ret_stops);

/* Handles of a process list, client-owned (tdc_free the ids). */
struct tdc_list {
    uint64_t *ids;
    size_t n;
};
struct tdc_list tdc_waves(amd_dbgapi_process_id_t p);
struct tdc_list tdc_agents(amd_dbgapi_process_id_t p);
struct tdc_list tdc_queues(amd_dbgapi_process_id_t p);
struct tdc_list tdc_dispatches(amd_dbgapi_process_id_t p);
struct tdc_list tdc_workgroups(amd_dbgapi_process_id_t p);
struct tdc_list tdc_code_objects(amd_dbgapi_process_id_t p);

/* One info value of a fixed size (fails the test unless SUCCESS). */
uint64_t tdc_wave_u64(uint64_t wave, amd_dbgapi_wave_info_t q, size_t size);
uint64_t tdc_agent_u64(uint64_t agent, amd_dbgapi_agent_info_t q, size_t size);
uint64_t tdc_queue_u64(uint64_t queue, amd_dbgapi_queue_info_t q, size_t size);
uint64_t tdc_dispatch_u64(uint64_t dispatch, amd_dbgapi_dispatch_info_t q, size_t size);
uint64_t tdc_workgroup_u64(uint64_t group, amd_dbgapi_workgroup_info_t q, size_t size);
/* A string query's value (malloc'ed; free with tdc_free). */
char *tdc_register_name(uint64_t reg);
char *tdc_architecture_name(uint64_t arch);

#endif /* GC_TEST_DBGAPI_CLIENT_H */
