/* SPDX-License-Identifier: MIT */
/* The simulated ROCm runtime's tools interface and error reporting (runtime.h). */
#include "runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gc_hsa_tools.h"
#include "gc_util.h"

#define RT_MAX_HANDLERS 16u
#define RT_MAX_PENDING  64u

struct rt_queue {
    struct gc_hsa_queue q; /* what the program holds (hsa_queue_t) */
    uint32_t gpu_id, queue_id;
    gc_hsa_queue_callback_t callback;
    void *data;
};

struct gc_sim_runtime {
    struct gc_sim_runtime_desc desc;
    struct gc_hsa_api_table root;
    struct gc_hsa_core_table core;
    struct gc_hsa_amd_ext_table amd;
    struct gc_hsa_amd_ext_table_v2 amd6; /* the AMD table of GPUCORE_SIM_HSA_TABLE=rocm6 */
    void *tools[GC_SIM_RUNTIME_MAX_TOOLS];
    uint32_t ntools;
    struct rt_queue *queues;
    uint32_t nqueues_made;
    uint32_t *agent_gpu_ids; /* a copy of desc's */

    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct {
        gc_hsa_amd_system_event_callback_t cb;
        void *data;
    } handlers[RT_MAX_HANDLERS];
    uint32_t nhandlers;
    struct gc_sim_runtime_error pending[RT_MAX_PENDING];
    uint32_t npending;
    int stop, busy;
    pthread_t thread;
    int thread_started;
    struct gc_sim_runtime_error current; /* being reported (events thread only) */
};

/* One runtime per process: the table's functions find it here. */
static struct gc_sim_runtime *the_runtime;

static const char prog[] = "gpucore-inferior";

/* ---- the report --------------------------------------------------------------------------- */

/* How ROCr would name the error, per exception code; codes not listed are not errors. */
static const char *error_name(uint32_t code)
{
    static const struct {
        uint32_t code;
        const char *name;
    } map[] = {
        { EC_QUEUE_WAVE_ABORT, "wave abort" },
        { EC_QUEUE_WAVE_TRAP, "trap" },
        { EC_QUEUE_WAVE_MATH_ERROR, "math error" },
        { EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION, "illegal instruction" },
        { EC_QUEUE_WAVE_MEMORY_VIOLATION, "memory violation" },
        { EC_QUEUE_WAVE_APERTURE_VIOLATION, "aperture violation" },
        { EC_DEVICE_MEMORY_VIOLATION, "memory violation" },
    };

    for (size_t i = 0; i < GC_ARRAY_SIZE(map); i++)
        if (map[i].code == code)
            return map[i].name;
    return NULL;
}

void gc_sim_runtime_report(enum gc_sim_runtime_action action, int exit_status,
                           const struct gc_sim_runtime_error *e)
{
    const char *what = error_name(e->code);
    char line[256], at[40] = "", who[64], tail[48];

    if (!what)
        return;
    if (e->queue_id != KFD_INVALID_QUEUEID)
        snprintf(who, sizeof(who), "queue %u (gpu 0x%x)", e->queue_id, e->gpu_id);
    else
        snprintf(who, sizeof(who), "gpu 0x%x", e->gpu_id);
    if (e->fault_va)
        snprintf(at, sizeof(at), " at 0x%" PRIx64, e->fault_va);
    if (action == GC_SIM_RUNTIME_ABORT)
        snprintf(tail, sizeof(tail), "aborting");
    else if (action == GC_SIM_RUNTIME_EXIT)
        snprintf(tail, sizeof(tail), "exiting with status %d", exit_status);
    else
        snprintf(tail, sizeof(tail), "continuing");
    int n = snprintf(line, sizeof(line), "%s: %s: %s%s: %s\n", prog, who, what, at, tail);
    /* One write: the line is not interleaved with anything else on stderr. */
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
        (void)w;
    }
    if (action == GC_SIM_RUNTIME_ABORT) {
        struct rlimit no_core = { 0, 0 };

        setrlimit(RLIMIT_CORE, &no_core); /* no host core litter from a test inferior */
        abort();
    }
    if (action == GC_SIM_RUNTIME_EXIT) {
        fflush(stdout);
        _exit(exit_status);
    }
}

/* ---- the API table's functions ------------------------------------------------------------ */

static gc_hsa_status_t sim_queue_create(struct gc_hsa_agent agent, uint32_t size, uint32_t type,
                                        gc_hsa_queue_callback_t callback, void *data,
                                        uint32_t private_size, uint32_t group_size,
                                        struct gc_hsa_queue **queue)
{
    struct gc_sim_runtime *rt = the_runtime;
    struct rt_queue *q;

    (void)private_size;
    (void)group_size;
    if (!rt || !queue || agent.handle == 0 || agent.handle > rt->desc.num_agents)
        return GC_HSA_STATUS_ERROR_INVALID_ARGUMENT;
    /* The scenario's queues, in order: the next one not yet made. */
    if (rt->nqueues_made >= rt->desc.num_queues)
        return GC_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    q = &rt->queues[rt->nqueues_made];
    q->q.type = type;
    q->q.size = size;
    q->q.id = rt->nqueues_made++;
    q->callback = callback;
    q->data = data;
    *queue = &q->q;
    return GC_HSA_STATUS_SUCCESS;
}

static gc_hsa_status_t sim_register_system_event_handler(gc_hsa_amd_system_event_callback_t cb,
                                                         void *data)
{
    struct gc_sim_runtime *rt = the_runtime;
    gc_hsa_status_t st = GC_HSA_STATUS_ERROR_OUT_OF_RESOURCES;

    if (!rt || !cb)
        return GC_HSA_STATUS_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&rt->lock);
    if (rt->nhandlers < RT_MAX_HANDLERS) {
        rt->handlers[rt->nhandlers].cb = cb;
        rt->handlers[rt->nhandlers++].data = data;
        st = GC_HSA_STATUS_SUCCESS;
    }
    pthread_mutex_unlock(&rt->lock);
    return st;
}

/* The program's queue error callback, as HIP's: report and act (abort...). */
static void program_queue_error(gc_hsa_status_t status, struct gc_hsa_queue *source, void *data)
{
    struct gc_sim_runtime *rt = data;

    (void)status;
    (void)source;
    gc_sim_runtime_report(rt->desc.action, rt->desc.exit_status, &rt->current);
}

/* ---- the events thread -------------------------------------------------------------------- */

/* ROCr's queue exception table (amd_aql_queue.cpp ExceptionHandler), for the codes raised. */
static gc_hsa_status_t queue_status(uint32_t code)
{
    switch (code) {
    case EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION:
        return GC_HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION;
    case EC_QUEUE_WAVE_MEMORY_VIOLATION:
        return GC_HSA_STATUS_ERROR_MEMORY_FAULT;
    case EC_QUEUE_WAVE_APERTURE_VIOLATION:
        return GC_HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION;
    default:
        return GC_HSA_STATUS_ERROR_EXCEPTION;
    }
}

/* The kernel's memory-exception failure bits as ROCr turns them into reason bits. */
static uint32_t fault_reasons(uint32_t flags)
{
    static const struct {
        uint32_t flag, reason;
    } map[] = {
        { 1u << 0, GC_HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT },
        { 1u << 1, GC_HSA_AMD_MEMORY_FAULT_READ_ONLY },
        { 1u << 2, GC_HSA_AMD_MEMORY_FAULT_NX },
        { 1u << 3, GC_HSA_AMD_MEMORY_FAULT_IMPRECISE },
    };
    uint32_t r = 0;

    for (size_t i = 0; i < GC_ARRAY_SIZE(map); i++)
        if (flags & map[i].flag)
            r |= map[i].reason;
    return r;
}

/* VMFaultHandler: every handler; any SUCCESS means the program owns the error. */
static void report_vm_fault(struct gc_sim_runtime *rt, const struct gc_sim_runtime_error *e)
{
    struct gc_hsa_amd_event ev;
    gc_hsa_status_t custom = GC_HSA_STATUS_ERROR;
    uint32_t n, node = 0;

    memset(&ev, 0, sizeof(ev));
    for (uint32_t i = 0; i < rt->desc.num_agents; i++)
        if (rt->desc.agent_gpu_ids[i] == e->gpu_id)
            node = i;
    ev.event_type = GC_HSA_AMD_GPU_MEMORY_FAULT_EVENT;
    ev.memory_fault.agent.handle = node + 1u;
    ev.memory_fault.virtual_address = e->fault_va;
    ev.memory_fault.fault_reason_mask = fault_reasons(e->fault_flags);
    pthread_mutex_lock(&rt->lock);
    n = rt->nhandlers;
    pthread_mutex_unlock(&rt->lock);
    for (uint32_t i = 0; i < n; i++)
        if (rt->handlers[i].cb(&ev, rt->handlers[i].data) == GC_HSA_STATUS_SUCCESS)
            custom = GC_HSA_STATUS_SUCCESS;
    if (custom != GC_HSA_STATUS_SUCCESS)
        gc_sim_runtime_report(rt->desc.action, rt->desc.exit_status, e);
}

static void report(struct gc_sim_runtime *rt, const struct gc_sim_runtime_error *e)
{
    struct rt_queue *q = NULL;

    if (!error_name(e->code))
        return;
    rt->current = *e;
    if (e->fault_va || e->code == EC_DEVICE_MEMORY_VIOLATION ||
        e->code == EC_QUEUE_WAVE_MEMORY_VIOLATION) {
        /* ROCr's queue handler leaves memory faults to the system-event path. */
        report_vm_fault(rt, e);
        return;
    }
    for (uint32_t i = 0; i < rt->nqueues_made; i++)
        if (rt->queues[i].queue_id == e->queue_id && rt->queues[i].gpu_id == e->gpu_id)
            q = &rt->queues[i];
    if (!q) {
        gc_sim_runtime_report(rt->desc.action, rt->desc.exit_status, e);
        return;
    }
    /* No callback: the runtime reports nothing (the queue stays inactive). */
    if (q->callback)
        q->callback(queue_status(e->code), &q->q, q->data);
}

static void *events_main(void *arg)
{
    struct gc_sim_runtime *rt = arg;

    pthread_setname_np(pthread_self(), "rocr-async-events");
    pthread_mutex_lock(&rt->lock);
    for (;;) {
        while (!rt->stop && rt->npending == 0)
            pthread_cond_wait(&rt->cond, &rt->lock);
        if (rt->stop)
            break;
        struct gc_sim_runtime_error e = rt->pending[0];

        memmove(rt->pending, rt->pending + 1, --rt->npending * sizeof(rt->pending[0]));
        rt->busy = 1;
        pthread_mutex_unlock(&rt->lock);
        report(rt, &e);
        pthread_mutex_lock(&rt->lock);
        rt->busy = 0;
    }
    pthread_mutex_unlock(&rt->lock);
    return NULL;
}

void gc_sim_runtime_deliver(void *runtime, const struct gc_sim_runtime_error *e)
{
    struct gc_sim_runtime *rt = runtime;

    pthread_mutex_lock(&rt->lock);
    if (rt->npending < RT_MAX_PENDING)
        rt->pending[rt->npending++] = *e;
    pthread_cond_signal(&rt->cond);
    pthread_mutex_unlock(&rt->lock);
}

/* ---- loading ------------------------------------------------------------------------------ */

static gpucore_status_t table_knob(struct gc_sim_runtime *rt, gpucore_diag_t *diag)
{
    const char *knob = getenv("GPUCORE_SIM_HSA_TABLE");
    unsigned major, core, amd;

    rt->root.version.major_id = GC_HSA_API_TABLE_MAJOR;
    rt->root.version.minor_id = (uint32_t)sizeof(rt->root);
    rt->core.version.major_id = GC_HSA_API_TABLE_MAJOR;
    rt->core.version.minor_id = (uint32_t)sizeof(rt->core);
    rt->amd.version.major_id = GC_HSA_API_TABLE_MAJOR;
    rt->amd.version.minor_id = (uint32_t)sizeof(rt->amd);
    if (!knob || !*knob)
        return GPUCORE_OK;
    if (strcmp(knob, "rocm6") == 0) {
        /* ROCr 6.1's majors, and its AMD table with the two slots ROCm 6 inserted. */
        rt->root.version.major_id = GC_HSA_ROOT_TABLE_MAJOR_ROCM6;
        rt->core.version.major_id = GC_HSA_CORE_TABLE_MAJOR_ROCM6;
        rt->amd6.version.major_id = GC_HSA_AMD_EXT_TABLE_MAJOR_ROCM6;
        rt->amd6.version.minor_id = (uint32_t)sizeof(rt->amd6);
        rt->amd6.hsa_amd_register_system_event_handler_fn = sim_register_system_event_handler;
        rt->amd6.hsa_amd_queue_intercept_create_fn = sim_queue_create;
        rt->root.amd_ext_ = (struct gc_hsa_amd_ext_table *)(void *)&rt->amd6;
        return GPUCORE_OK;
    }
    if (sscanf(knob, "%u %u %u", &major, &core, &amd) != 3 || core > sizeof(rt->core) ||
        amd > sizeof(rt->amd))
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "GPUCORE_SIM_HSA_TABLE: expected rocm6 or \"MAJOR CORE_BYTES "
                           "AMD_BYTES\" with sizes at most %zu and %zu, got '%s'", sizeof(rt->core),
                           sizeof(rt->amd), knob);
    rt->root.version.major_id = major;
    rt->core.version.major_id = major;
    rt->core.version.minor_id = core;
    rt->amd.version.major_id = major;
    rt->amd.version.minor_id = amd;
    return GPUCORE_OK;
}

/* LoadTools: each name, in order; failures are skipped (and named to the later tools). */
static gpucore_status_t load_tools(struct gc_sim_runtime *rt, const char *tools,
                                   gpucore_diag_t *diag)
{
    char names[GC_SIM_RUNTIME_MAX_TOOLS_LEN + 1];
    const char *failed[GC_SIM_RUNTIME_MAX_TOOLS + 1];
    uint64_t nfailed = 0;
    char *save = NULL;

    if (!tools || !*tools)
        return GPUCORE_OK;
    GC_FAIL_IF(strlen(tools) > GC_SIM_RUNTIME_MAX_TOOLS_LEN, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "HSA_TOOLS_LIB: longer than %u bytes", GC_SIM_RUNTIME_MAX_TOOLS_LEN);
    snprintf(names, sizeof(names), "%s", tools);
    for (char *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        void *lib;
        gc_hsa_tool_onload_fn onload;

        GC_FAIL_IF(rt->ntools + nfailed >= GC_SIM_RUNTIME_MAX_TOOLS, diag, GPUCORE_E_INVAL,
                   GC_NO_OFFSET, "HSA_TOOLS_LIB: more than %u libraries",
                   GC_SIM_RUNTIME_MAX_TOOLS);
        lib = dlopen(name, RTLD_NOW);
        if (!lib) {
            failed[nfailed++] = name;
            continue;
        }
        *(void **)&onload = dlsym(lib, "OnLoad");
        failed[nfailed] = NULL;
        if (!onload ||
            !onload(&rt->root, rt->root.version.major_id, nfailed, nfailed ? failed : NULL)) {
            failed[nfailed++] = name;
            dlclose(lib);
            continue;
        }
        rt->tools[rt->ntools++] = lib;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_sim_runtime_start(const struct gc_sim_runtime_desc *desc, const char *tools,
                                      struct gc_sim_runtime **ret, gpucore_diag_t *diag)
{
    struct gc_sim_runtime *rt;
    gpucore_status_t st;
    int e;

    GC_FAIL_IF(!desc || !ret || the_runtime, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "runtime: no description, or started twice");
    rt = gc_calloc_array(1, sizeof(*rt));
    if (!rt)
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "runtime: out of memory");
    rt->queues = gc_calloc_array(desc->num_queues + 1u, sizeof(*rt->queues));
    rt->agent_gpu_ids = gc_calloc_array(desc->num_agents + 1u, sizeof(uint32_t));
    if (!rt->queues || !rt->agent_gpu_ids) {
        gc_free(rt->queues);
        gc_free(rt->agent_gpu_ids);
        gc_free(rt);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "runtime: out of memory");
    }
    /* The description's arrays are borrowed for this call only: what is kept is copied. */
    rt->desc = *desc;
    for (uint32_t i = 0; i < desc->num_agents; i++)
        rt->agent_gpu_ids[i] = desc->agent_gpu_ids[i];
    rt->desc.agent_gpu_ids = rt->agent_gpu_ids;
    rt->desc.queue_gpu_ids = NULL;
    rt->desc.queue_ids = NULL;
    for (uint32_t i = 0; i < desc->num_queues; i++) {
        rt->queues[i].gpu_id = desc->queue_gpu_ids[i];
        rt->queues[i].queue_id = desc->queue_ids[i];
    }
    pthread_mutex_init(&rt->lock, NULL);
    pthread_cond_init(&rt->cond, NULL);
    rt->root.core_ = &rt->core;
    rt->root.amd_ext_ = &rt->amd;
    rt->core.hsa_queue_create_fn = sim_queue_create;
    rt->amd.hsa_amd_register_system_event_handler_fn = sim_register_system_event_handler;
    rt->amd.hsa_amd_queue_intercept_create_fn = sim_queue_create;
    the_runtime = rt;
    st = table_knob(rt, diag);
    if (st == GPUCORE_OK)
        st = load_tools(rt, tools, diag);
    /* The program creates its queues through the table, with its error callback. */
    for (uint32_t i = 0; st == GPUCORE_OK && i < desc->num_queues; i++) {
        struct gc_hsa_agent agent = { 1 };
        struct gc_hsa_queue *q = NULL;
        gc_hsa_status_t hs;

        for (uint32_t a = 0; a < desc->num_agents; a++)
            if (desc->agent_gpu_ids[a] == desc->queue_gpu_ids[i])
                agent.handle = a + 1u;
        hs = rt->core.hsa_queue_create_fn(agent, 64, 0, program_queue_error, rt, 0, 0, &q);
        if (hs != GC_HSA_STATUS_SUCCESS || !q)
            st = gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                             "runtime: hsa_queue_create of queue %u failed (status 0x%x)", i,
                             (unsigned)hs);
    }
    if (st == GPUCORE_OK && (e = pthread_create(&rt->thread, NULL, events_main, rt)) != 0)
        st = gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "runtime: thread: %s", strerror(e));
    if (st != GPUCORE_OK) {
        gc_sim_runtime_stop(rt);
        return st;
    }
    rt->thread_started = 1;
    *ret = rt;
    return GPUCORE_OK;
}

void gc_sim_runtime_stop(struct gc_sim_runtime *rt)
{
    int busy = 0;

    if (!rt)
        return;
    if (rt->thread_started) {
        pthread_mutex_lock(&rt->lock);
        rt->stop = 1;
        busy = rt->busy;
        pthread_cond_broadcast(&rt->cond);
        pthread_mutex_unlock(&rt->lock);
        /* A report still under way (a tool waiting for its capture) is left to the exit. */
        if (busy) {
            pthread_detach(rt->thread);
            return;
        }
        pthread_join(rt->thread, NULL);
    }
    for (uint32_t i = rt->ntools; i > 0; i--) {
        gc_hsa_tool_onunload_fn onunload;

        *(void **)&onunload = dlsym(rt->tools[i - 1], "OnUnload");
        if (onunload)
            onunload();
    }
    for (uint32_t i = 0; i < rt->ntools; i++)
        dlclose(rt->tools[i]);
    the_runtime = NULL;
    pthread_mutex_destroy(&rt->lock);
    pthread_cond_destroy(&rt->cond);
    gc_free(rt->queues);
    gc_free(rt->agent_gpu_ids);
    gc_free(rt);
}
