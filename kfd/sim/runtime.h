/* SPDX-License-Identifier: MIT */
/*
 * The ROCm runtime of gpucore-inferior, as far as tools libraries see it: it loads the
 * libraries named in HSA_TOOLS_LIB as ROCr does (runtime.cpp LoadTools: dlopen each
 * space-separated name, call its OnLoad with the API table, the runtime's major version and
 * the names that failed so far; a library without OnLoad or whose OnLoad returns false is
 * closed), creates the scenario's queues through the table's hsa_queue_create (which a tool
 * may have replaced) with an error callback of the program's, and reports GPU errors as ROCr
 * does, on an events thread of its own (ROCr's async-events thread):
 *
 *  - a memory violation (a fault address, or a device memory violation): every registered
 *    system-event handler is called with a GPU memory-fault event (agent, address, reason
 *    bits); if any returns success, nothing more (runtime.cpp VMFaultHandler); otherwise the
 *    runtime's message and the scenario's on_queue_error action;
 *  - any other queue error: the queue's error callback with the status ROCr maps the
 *    exception to (amd_aql_queue.cpp ExceptionHandler); the program's callback prints the
 *    message and acts on on_queue_error, as HIP's does; a queue created without a callback
 *    reports nothing.
 *
 * The message is gc_sim_runtime_report()'s, the same line as without any tool. OnUnload is
 * called by gc_sim_runtime_stop(), in reverse load order.
 *
 * Test knob: GPUCORE_SIM_HSA_TABLE="MAJOR CORE_BYTES AMD_BYTES" makes the runtime announce other
 * table versions and sizes (a runtime older or newer than the tool), e.g. "1 64 64";
 * GPUCORE_SIM_HSA_TABLE=rocm6 gives the tables of ROCr 6.1 (majors 3, 2 and 2, the AMD table
 * laid out as struct gc_hsa_amd_ext_table_v2).
 */
#ifndef GC_KFD_SIM_RUNTIME_H
#define GC_KFD_SIM_RUNTIME_H

#include <stdint.h>

#include <gpucore/status.h>

#include "driver.h"

/* Most tools libraries, and longest HSA_TOOLS_LIB. */
#define GC_SIM_RUNTIME_MAX_TOOLS 8u
#define GC_SIM_RUNTIME_MAX_TOOLS_LEN 4096u

/* What the runtime does after reporting an error (the scenario's on_queue_error). */
enum gc_sim_runtime_action {
    GC_SIM_RUNTIME_CONTINUE = 0,
    GC_SIM_RUNTIME_ABORT = 1,
    GC_SIM_RUNTIME_EXIT = 2,
};

/* Borrowed by gc_sim_runtime_start() for the call only (the runtime keeps copies). */
struct gc_sim_runtime_desc {
    enum gc_sim_runtime_action action;
    int exit_status;
    uint32_t num_queues;
    const uint32_t *queue_gpu_ids; /* num_queues entries */
    const uint32_t *queue_ids;     /* num_queues entries: the KFD queue ids */
    uint32_t num_agents;
    const uint32_t *agent_gpu_ids; /* num_agents entries; node N is agent N */
};

struct gc_sim_runtime;

/*
 * Load the tools of @p tools (HSA_TOOLS_LIB; NULL or "" = none), create the queues and start
 * the events thread. A library that cannot be loaded is skipped, as ROCr does.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  too many tools or names too long; a bad GPUCORE_SIM_HSA_TABLE
 * @retval GPUCORE_E_IO     a queue could not be created through the table, or no thread
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_sim_runtime_start(const struct gc_sim_runtime_desc *desc, const char *tools,
                                      struct gc_sim_runtime **ret, gpucore_diag_t *reterr_diag);

/* The driver's runtime_error callback (gc_sim_process::runtime_error, user = the runtime):
   queues the error for the events thread and returns. */
void gc_sim_runtime_deliver(void *runtime, const struct gc_sim_runtime_error *e);

/* Stop the events thread, call every tool's OnUnload, close them, free. Accepts NULL. */
void gc_sim_runtime_stop(struct gc_sim_runtime *rt);

/*
 * The runtime's report of an error no tool took: one line on stderr,
 *     gpucore-inferior: queue 0 (gpu 0xc4f1): memory violation at 0x7f39f5000040: aborting
 * then abort() (RLIMIT_CORE 0 first), _exit(exit_status), or return. Codes that are not errors
 * are ignored.
 */
void gc_sim_runtime_report(enum gc_sim_runtime_action action, int exit_status,
                           const struct gc_sim_runtime_error *e);

#endif /* GC_KFD_SIM_RUNTIME_H */
