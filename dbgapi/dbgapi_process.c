/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi: processes (the core handshake), events, and the entities of a process:
 * code objects, agents, queues, dispatches, workgroups, waves; and the calls that would change
 * a process, which a core refuses (docs/dbgapi-on-cores.md §3, §4, §8, §9).
 */
#include "dbgapi_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpucore/schema.h>

#include "dbgapi_order.h"
#include "dbgapi_ttmp.h"
#include "gc_le.h"
#include "gc_rocr.h"
#include "wave.h"

/* Bits 31 and 30 of a KFD queue id are the driver's error and invalid flags. */

/* ---- memory from the client ------------------------------------------------------------------ */

/* The image reads process memory through xfer_global_memory; a short transfer means the rest
   is not in the core. */
static gpucore_status_t xfer_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                  uint64_t *ret_done)
{
    struct gc_dbg_process *p = user;
    uint64_t done = 0;

    while (done < size) {
        amd_dbgapi_size_t n = size - done;
        amd_dbgapi_status_t st = gc_dbg.cb->xfer_global_memory(p->client, addr + done, &n,
                                                               (uint8_t *)buf + done, NULL);

        if (st == AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS || (st == AMD_DBGAPI_STATUS_SUCCESS &&
                                                            n == 0))
            break;
        if (st != AMD_DBGAPI_STATUS_SUCCESS) {
            *ret_done = done;
            gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                       "xfer_global_memory(0x%" PRIx64 ", %" PRIu64 ") failed with status %d",
                       addr + done, size - done, (int)st);
            return GPUCORE_E_IO;
        }
        done += n < size - done ? n : size - done;
    }
    *ret_done = done;
    return done == size ? GPUCORE_OK : GPUCORE_E_UNAVAILABLE;
}

/* ---- building a process ---------------------------------------------------------------------- */

void gc_dbg_process_free(struct gc_dbg_process *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < GC_DBG_SHAPES; i++) {
        gc_reglist_done(&p->shapes[i].regs);
        gc_free(p->shapes[i].at);
    }
    for (uint32_t i = 0; i < GC_DBG_REGCACHE; i++) {
        gc_image_record_done(&p->regcache[i].rec);
    }
    gc_free(p->waves);
    gc_free(p->workgroups);
    gc_free(p->dispatches);
    gc_free(p->queues);
    gc_free(p->events);
    for (int i = 0; i < GC_DBG_LIST_COUNT; i++)
        gc_free(p->list_order[i]);
    gc_image_close(p->img);
    for (int i = 0; i < 2; i++)
        if (p->notify[i] >= 0)
            close(p->notify[i]);
    gc_free(p);
}

/* The process's tables from its image: which queues a debugger sees (those of agents that
   support debugging), their waves, the dispatches and workgroups the waves belong to. */
static gpucore_status_t build_tables(struct gc_dbg_process *p)
{
    const struct gc_image *img = p->img;
    uint32_t nq = gc_image_queue_count(img), nw = gc_image_wave_count(img);
    uint32_t nd = gc_image_dispatch_count(img);
    uint32_t *queue_slot = gc_calloc_array(nq + 1u, sizeof(uint32_t));
    uint32_t *dispatch_slot = gc_calloc_array(nd + 1u, sizeof(uint32_t));
    uint32_t *group_slot = gc_calloc_array(nw + 1u, sizeof(uint32_t));
    gpucore_status_t st = GPUCORE_E_NOMEM;

    p->nagents = gc_image_agent_count(img);
    p->ncode_objects = gc_image_code_object_count(img);
    p->queues = gc_calloc_array(nq + 1u, sizeof(*p->queues));
    p->dispatches = gc_calloc_array(nd + 1u, sizeof(*p->dispatches));
    p->workgroups = gc_calloc_array(nw + 1u, sizeof(*p->workgroups));
    p->waves = gc_calloc_array(nw + 1u, sizeof(*p->waves));
    if (!queue_slot || !dispatch_slot || !group_slot || !p->queues || !p->dispatches ||
        !p->workgroups || !p->waves)
        goto out;
    for (uint32_t i = 0; i < nq; i++) {
        const struct gc_image_queue *q = gc_image_queue(img, i);

        queue_slot[i] = UINT32_MAX;
        if (q->agent < p->nagents && gc_image_agent(img, q->agent)->supports_debugging) {
            queue_slot[i] = p->nqueues;
            p->queues[p->nqueues++] = i;
        }
    }
    for (uint32_t i = 0; i < nd; i++)
        dispatch_slot[i] = UINT32_MAX;
    for (uint32_t i = 0; i < nw; i++)
        group_slot[i] = UINT32_MAX;
    /* Dispatches appear as AMD's library creates them: when a wave points at one. */
    for (uint32_t i = 0; i < nw; i++) {
        const struct gc_image_wave *w = gc_image_wave(img, i);
        struct gc_dbg_wave *dw;

        if (w->queue >= nq || queue_slot[w->queue] == UINT32_MAX)
            continue;
        dw = &p->waves[p->nwaves++];
        dw->img = i;
        dw->queue = queue_slot[w->queue];
        dw->dispatch = UINT32_MAX;
        if (w->dispatch < nd) {
            if (dispatch_slot[w->dispatch] == UINT32_MAX) {
                dispatch_slot[w->dispatch] = p->ndispatches;
                p->dispatches[p->ndispatches++] = w->dispatch;
            }
            dw->dispatch = dispatch_slot[w->dispatch];
        }
        if (w->group_leader < nw && group_slot[w->group_leader] == UINT32_MAX) {
            struct gc_dbg_workgroup *g = &p->workgroups[p->nworkgroups];

            group_slot[w->group_leader] = p->nworkgroups++;
            g->leader = w->group_leader;
            g->queue = dw->queue;
            g->dispatch = dw->dispatch;
        }
        dw->workgroup = w->group_leader < nw ? group_slot[w->group_leader] : UINT32_MAX;
    }
    st = GPUCORE_OK;
out:
    gc_free(queue_slot);
    gc_free(dispatch_slot);
    gc_free(group_slot);
    return st;
}

/*
 * The GPU state of a core from its note, as AMD's core driver would have it. Returns the
 * status attach reports: SUCCESS (with or without GPU state), RESTRICTION (KFD version outside
 * [1.13, 2.0)), ERROR (out of memory, limits).
 */
static amd_dbgapi_status_t open_core(struct gc_dbg_process *p, const void *note, size_t size)
{
    const struct gc_image_memory mem = { xfer_read, NULL, p };
    gpucore_amdgpu_note_t *decoded = NULL;
    gpucore_diag_t d = { 0 };
    uint32_t runtime_state, r_version;
    gpucore_status_t st;

    /* A note AMD's reader rejects leaves a process with nothing in it; attach still succeeds. */
    st = gpucore_amdgpu_note_decode(note, size, &decoded, &d);
    if (st == GPUCORE_E_NOMEM)
        return AMD_DBGAPI_STATUS_ERROR;
    if (st != GPUCORE_OK) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "the core-state note is not valid (%s): no GPU "
                   "state", d.message);
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    if (decoded->kfd_major != 1 || decoded->kfd_minor < 13) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "the core-state note records KFD %u.%u; the "
                   "debug interface needs 1.13 or later and before 2.0",
                   decoded->kfd_major, decoded->kfd_minor);
        gpucore_amdgpu_note_free(decoded);
        return AMD_DBGAPI_STATUS_ERROR_RESTRICTION;
    }
    runtime_state = decoded->runtime.runtime_state;
    p->ttmp_setup = decoded->runtime.ttmp_setup != 0;
    gpucore_amdgpu_note_free(decoded);
    if (runtime_state == GPUCORE_KFD_RUNTIME_DISABLED) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "the GPU runtime was not enabled: no GPU state");
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    p->runtime_event = 1;
    if (runtime_state != GPUCORE_KFD_RUNTIME_ENABLED) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "the GPU runtime state is %u, not enabled: no "
                   "GPU state", runtime_state);
        p->runtime_state = AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION;
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    st = gc_image_open_note(note, size, &mem, GC_IMAGE_NO_CODE_BYTES | GC_IMAGE_WAVE_DISPATCHES |
                                    GC_IMAGE_AMD_SCRATCH,
                           &p->img, &d);
    if (st == GPUCORE_E_NOMEM || st == GPUCORE_E_LIMIT) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "the GPU state cannot be rebuilt: %s",
                   d.message);
        return AMD_DBGAPI_STATUS_ERROR;
    }
    if (st != GPUCORE_OK) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "the GPU state cannot be rebuilt: %s",
                   d.message);
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    for (uint32_t i = 0; i < gc_image_problem_count(p->img); i++)
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "%s", gc_image_problem(p->img, i));
    r_version = gc_image_r_version(p->img);
    /* The r_debug versions whose layouts the image knows: gc_rocr.h's window (AMD's 0.77
       accepts 8..10; 11 and 12 are the newer runtimes' and are served here too). */
    if (r_version && !gc_rocr_r_version_supported(r_version)) {
        /* A runtime whose structures are unknown: agents only, as AMD's library does. */
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "the GPU runtime's r_debug version %u is not "
                   "one this library knows (%u..%u): agents only",
                   r_version, GC_ROCR_R_VERSION_MIN, GC_ROCR_R_VERSION_MAX);
        p->runtime_state = AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION;
        p->nagents = gc_image_agent_count(p->img);
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    if (build_tables(p) != GPUCORE_OK)
        return AMD_DBGAPI_STATUS_ERROR;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

/* The TTMPs of wave @p slot as AMD's library holds them after attach (dbgapi_ttmp.h). */
static void attach_ttmps(const struct gc_dbg_process *p, uint32_t slot, int stopped_by_library,
                         uint32_t t[16])
{
    const struct gc_image_agent *a = gc_dbg_wave_agent(p, slot);
    int spi = p->ttmp_setup || (a->entry->debug_prop & GPUCORE_HSA_DBG_DISPATCH_INFO_ALWAYS_VALID);

    gc_dbg_attach_ttmps(a->arch, &gc_dbg_image_wave(p, slot)->wave, gc_image_r_version(p->img),
                        spi, p->wave_base + slot, stopped_by_library, t);
}

/*
 * The events of an attach, in AMD's order (process.cpp runtime_enable, wave.cpp update and
 * set_state): RUNTIME (unless the runtime was never enabled); then, in the order the waves were
 * created (queue by queue, XCC by XCC, control-stack order), a WAVE_STOP for each wave the
 * trap handler stopped with a cause; then a WAVE_STOP for each wave saved running, which the
 * library stops, in the order it walks its wave map (dbgapi_order.h). A wave saved stopped
 * with no cause gets none: it was reported before the core was written.
 */
static gpucore_status_t queue_events(struct gc_dbg_process *p)
{
    const uint32_t *order;
    uint32_t t[16];

    p->events = gc_calloc_array((size_t)p->nwaves + 1u, sizeof(*p->events));
    if (!p->events)
        return GPUCORE_E_NOMEM;
    if (p->runtime_event)
        p->events[p->nevents++] = (struct gc_dbg_event){ .kind = AMD_DBGAPI_EVENT_KIND_RUNTIME,
                                                         .runtime_state = p->runtime_state };
    if (!p->nwaves)
        return GPUCORE_OK;
    for (uint32_t i = 0; i < p->nwaves; i++) {
        struct gc_dbg_wave *dw = &p->waves[i];
        const struct gc_arch *arch = gc_dbg_wave_agent(p, i)->arch;

        attach_ttmps(p, i, 0, t);
        dw->forced_stop = !(arch && arch->ttmp && gc_dbg_ttmp_get(t, arch->ttmp->stopped));
        dw->has_event = dw->forced_stop || gc_dbg_image_wave(p, i)->stop_reasons != GC_STOP_NONE;
        if (!dw->forced_stop && dw->has_event)
            p->events[p->nevents++] = (struct gc_dbg_event){
                .kind = AMD_DBGAPI_EVENT_KIND_WAVE_STOP, .wave = i };
        /* no event ever comes for it: the client sees it stopped at once */
        if (!dw->has_event)
            dw->visible_stop = 1;
    }
    order = p->list_order[GC_DBG_LIST_WAVES]; /* its wave map's order (assign_ids) */
    for (uint32_t k = 0; k < p->nwaves; k++)
        if (p->waves[order[k]].forced_stop)
            p->events[p->nevents++] = (struct gc_dbg_event){
                .kind = AMD_DBGAPI_EVENT_KIND_WAVE_STOP, .wave = order[k] };
    return GPUCORE_OK;
}

/* Handles for everything the process holds, the order AMD's library lists each kind in, and
   the lists marked changed. GPUCORE_E_NOMEM when out of memory. */
static gpucore_status_t assign_ids(struct gc_dbg_process *p)
{
    const struct {
        enum gc_dbg_list kind;
        const uint64_t *base;
        uint32_t n;
    } lists[] = {
        { GC_DBG_LIST_CODE_OBJECTS, &p->code_object_base, p->ncode_objects },
        { GC_DBG_LIST_AGENTS, &p->agent_base, p->nagents },
        { GC_DBG_LIST_QUEUES, &p->queue_base, p->nqueues },
        { GC_DBG_LIST_DISPATCHES, &p->dispatch_base, p->ndispatches },
        { GC_DBG_LIST_WORKGROUPS, &p->workgroup_base, p->nworkgroups },
        { GC_DBG_LIST_WAVES, &p->wave_base, p->nwaves },
    };

    p->agent_base = gc_dbg_kind_ids(GC_DBG_KIND_AGENT, p->nagents);
    p->queue_base = gc_dbg_kind_ids(GC_DBG_KIND_QUEUE, p->nqueues);
    p->dispatch_base = gc_dbg_kind_ids(GC_DBG_KIND_DISPATCH, p->ndispatches);
    p->workgroup_base = gc_dbg_kind_ids(GC_DBG_KIND_WORKGROUP, p->nworkgroups);
    p->wave_base = gc_dbg_kind_ids(GC_DBG_KIND_WAVE, p->nwaves);
    p->code_object_base = gc_dbg_kind_ids(GC_DBG_KIND_CODE_OBJECT, p->ncode_objects);
    for (size_t i = 0; i < GC_ARRAY_SIZE(lists); i++) {
        uint32_t **o = &p->list_order[lists[i].kind];

        *o = gc_calloc_array((size_t)lists[i].n + 1u, sizeof(**o));
        if (!*o || gc_dbg_map_order(*lists[i].base, lists[i].n, *o) != GPUCORE_OK)
            return GPUCORE_E_NOMEM;
    }
    memset(p->changed, 1, sizeof(p->changed));
    memset(gc_dbg.none_changed, 1, sizeof(gc_dbg.none_changed));
    return GPUCORE_OK;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_attach(
        amd_dbgapi_client_process_id_t client_process_id, amd_dbgapi_process_id_t *process_id)
{
    amd_dbgapi_os_process_id_t pid = 0;
    amd_dbgapi_core_state_data_t cs = { 0 };
    struct gc_dbg_process *p, **grown;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!client_process_id || !process_id)
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++)
        if (gc_dbg.procs[i]->client == client_process_id)
            DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR_ALREADY_ATTACHED);
    st = gc_dbg.cb->client_process_get_info(client_process_id, AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID,
                                            sizeof(pid), &pid);
    if (st == AMD_DBGAPI_STATUS_SUCCESS) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                   "process %ld is a live process: libgpucore-dbgapi serves core files only "
                   "(use AMD's librocm-dbgapi for live processes)",
                   (long)pid);
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR_RESTRICTION);
    }
    if (st != AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE && st != AMD_DBGAPI_STATUS_ERROR_PROCESS_EXITED) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                   "client_process_get_info(OS_PID) failed with status %d", (int)st);
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR);
    }
    p = gc_calloc_array(1, sizeof(*p));
    grown = gc_realloc_array(gc_dbg.procs, gc_dbg.nprocs + 1u, sizeof(*grown));
    if (grown)
        gc_dbg.procs = grown;
    if (!p || !grown) {
        gc_free(p);
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR);
    }
    p->client = client_process_id;
    /* AMD's library numbers the process before attaching it: a failed attach uses a number */
    p->id = gc_dbg_kind_ids(GC_DBG_KIND_PROCESS, 1);
    p->runtime_state = AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS;
    p->notify[0] = p->notify[1] = -1;
    for (uint32_t i = 0; i < GC_DBG_REGCACHE; i++)
        p->regcache[i].slot = UINT32_MAX;
    if (pipe2(p->notify, O_CLOEXEC | O_NONBLOCK) != 0) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "cannot create the notifier: %s",
                   strerror(errno));
        gc_dbg_process_free(p);
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR);
    }
    st = AMD_DBGAPI_STATUS_SUCCESS;
    if (gc_dbg.cb->client_process_get_info(client_process_id,
                                           AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE, sizeof(cs),
                                           &cs) == AMD_DBGAPI_STATUS_SUCCESS) {
        if (cs.endianness != AMD_DBGAPI_ENDIAN_LITTLE || !cs.data)
            gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                       "the core-state note is %s: no GPU state",
                       cs.data ? "not little-endian" : "missing");
        else
            st = open_core(p, cs.data, cs.size);
        /* The library owns the note it was handed, valid or not (§3.2, step 4). */
        gc_dbg.cb->deallocate_memory((void *)(uintptr_t)cs.data);
    } else {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "no core-state note: an exited process, no GPU "
                                              "state");
    }
    if (st != AMD_DBGAPI_STATUS_SUCCESS) {
        gc_dbg_process_free(p);
        DBG_RETURN(amd_dbgapi_process_attach, st);
    }
    if (assign_ids(p) != GPUCORE_OK || queue_events(p) != GPUCORE_OK) {
        gc_dbg_process_free(p);
        DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_ERROR);
    }
    p->event_base = gc_dbg_kind_ids(GC_DBG_KIND_EVENT, p->nevents);
    if (p->nevents && write(p->notify[1], "e", 1) != 1)
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "cannot signal the notifier: %s",
                   strerror(errno));
    gc_dbg.procs[gc_dbg.nprocs++] = p;
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO,
               "attached to a core: %u agents, %u queues, %u dispatches, %u waves, %u code "
               "objects",
               p->nagents, p->nqueues, p->ndispatches, p->nwaves, p->ncode_objects);
    process_id->handle = p->id;
    DBG_RETURN(amd_dbgapi_process_attach, AMD_DBGAPI_STATUS_SUCCESS);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_detach(amd_dbgapi_process_id_t process_id)
{
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_detach, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++) {
        if (gc_dbg.procs[i]->id != process_id.handle)
            continue;
        /* Nothing is written back: a core never changes. */
        gc_dbg_process_free(gc_dbg.procs[i]);
        memmove(&gc_dbg.procs[i], &gc_dbg.procs[i + 1],
                (gc_dbg.nprocs - i - 1) * sizeof(gc_dbg.procs[0]));
        gc_dbg.nprocs--;
        memset(gc_dbg.none_changed, 1, sizeof(gc_dbg.none_changed));
        DBG_RETURN(amd_dbgapi_process_detach, AMD_DBGAPI_STATUS_SUCCESS);
    }
    DBG_RETURN(amd_dbgapi_process_detach, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
}

/* ---- process queries and modes --------------------------------------------------------------- */

/*
 * What the agents' node properties advertise, as AMD's library answers it on a core too (the
 * answer describes the hardware; setting a watchpoint on a core still fails). Only agents that
 * support debugging count. The count is the smallest 1 << HSA_CAP_WATCH_POINTS_TOTALBITS
 * (whether or not WATCH_POINTS_SUPPORTED is set), 0 without such an agent.
 */
static size_t watchpoint_count(const struct gc_dbg_process *p)
{
    size_t n = 0;
    int any = 0;

    for (uint32_t i = 0; p->img && i < p->nagents; i++) {
        const struct gc_image_agent *a = gc_image_agent(p->img, i);
        size_t c;

        if (!a->supports_debugging)
            continue;
        c = (size_t)1 << ((a->entry->capability & GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_MASK) >>
                          GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT);
        n = any && n < c ? n : c;
        any = 1;
    }
    return n;
}

/*
 * UNSUPPORTED if an agent that supports debugging lacks WATCH_POINTS_SUPPORTED (or there is no
 * such agent); otherwise the kind of the last such agent AMD's library visits (its agent map,
 * dbgapi_order.h): UNSHARED if HSA_DBG_WATCHPOINTS_EXCLUSIVE, else SHARED.
 */
static uint32_t watchpoint_share(const struct gc_dbg_process *p)
{
    uint32_t kind = AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED;
    const uint32_t *order = p->list_order[GC_DBG_LIST_AGENTS];

    for (uint32_t k = 0; p->img && k < p->nagents; k++) {
        const struct gc_image_agent *a = gc_image_agent(p->img, order[k]);

        if (!a->supports_debugging)
            continue;
        if (!(a->entry->capability & GPUCORE_HSA_CAP_WATCH_POINTS_SUPPORTED)) {
            kind = AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED;
            break;
        }
        kind = (a->entry->debug_prop & GPUCORE_HSA_DBG_WATCHPOINTS_EXCLUSIVE)
                       ? AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSHARED
                       : AMD_DBGAPI_WATCHPOINT_SHARE_KIND_SHARED;
    }
    return kind;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_get_info(amd_dbgapi_process_id_t process_id,
                                                           amd_dbgapi_process_info_t query,
                                                           size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = gc_dbg_process_find(process_id.handle);
    if (!p)
        DBG_RETURN(amd_dbgapi_process_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    switch (query) {
    case AMD_DBGAPI_PROCESS_INFO_NOTIFIER: {
        amd_dbgapi_notifier_t n = p->notify[0];

        st = GIVE(n);
        break;
    }
    case AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_COUNT: {
        size_t n = watchpoint_count(p);

        st = GIVE(n);
        break;
    }
    case AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_SHARE: {
        uint32_t v = watchpoint_share(p);

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_PROCESS_INFO_PRECISE_MEMORY_SUPPORTED:
    case AMD_DBGAPI_PROCESS_INFO_PRECISE_ALU_EXCEPTIONS_SUPPORTED: {
        uint32_t v = AMD_DBGAPI_MEMORY_PRECISION_NONE; /* nothing runs on a core */

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_PROCESS_INFO_OS_ID:
    case AMD_DBGAPI_PROCESS_INFO_CORE_STATE:
        /* A core has no OS process, and its note is the client's already. */
        st = value ? AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE
                   : AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_process_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_set_progress(amd_dbgapi_process_id_t process_id,
                                                               amd_dbgapi_progress_t progress)
{
    struct gc_dbg_process *p = NULL;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_set_progress, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (process_id.handle && !(p = gc_dbg_process_find(process_id.handle)))
        DBG_RETURN(amd_dbgapi_process_set_progress, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    if (progress != AMD_DBGAPI_PROGRESS_NORMAL && progress != AMD_DBGAPI_PROGRESS_NO_FORWARD)
        DBG_RETURN(amd_dbgapi_process_set_progress, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    /* A scheduling hint: on a core nothing runs either way, so it is recorded and changes
       nothing. */
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++)
        if (!p || gc_dbg.procs[i] == p)
            gc_dbg.procs[i]->progress = progress;
    DBG_RETURN(amd_dbgapi_process_set_progress, AMD_DBGAPI_STATUS_SUCCESS);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_set_wave_creation(
        amd_dbgapi_process_id_t process_id, amd_dbgapi_wave_creation_t creation)
{
    struct gc_dbg_process *p;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_set_wave_creation, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = gc_dbg_process_find(process_id.handle);
    if (!p)
        DBG_RETURN(amd_dbgapi_process_set_wave_creation,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    if (creation != AMD_DBGAPI_WAVE_CREATION_NORMAL && creation != AMD_DBGAPI_WAVE_CREATION_STOP)
        DBG_RETURN(amd_dbgapi_process_set_wave_creation, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    /* A core's hardware state cannot change (docs/dbgapi-on-cores.md §9): it stays in NORMAL, the
       mode it was captured in, and asking for it again is all that succeeds. */
    DBG_RETURN(amd_dbgapi_process_set_wave_creation,
               creation == p->wave_creation ? AMD_DBGAPI_STATUS_SUCCESS
                                            : AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_freeze(amd_dbgapi_process_id_t process_id)
{
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_freeze, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_process_find(process_id.handle))
        DBG_RETURN(amd_dbgapi_process_freeze, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    /* Freezing prepares a live process for a core dump; a core cannot be dumped again. */
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "a core cannot be frozen to write a core from it");
    DBG_RETURN(amd_dbgapi_process_freeze, AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_unfreeze(amd_dbgapi_process_id_t process_id)
{
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_unfreeze, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_process_find(process_id.handle))
        DBG_RETURN(amd_dbgapi_process_unfreeze, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    DBG_RETURN(amd_dbgapi_process_unfreeze, AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_set_memory_precision(
        amd_dbgapi_process_id_t process_id, amd_dbgapi_memory_precision_t memory_precision)
{
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_set_memory_precision, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_process_find(process_id.handle))
        DBG_RETURN(amd_dbgapi_set_memory_precision, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    if (memory_precision != AMD_DBGAPI_MEMORY_PRECISION_NONE &&
        memory_precision != AMD_DBGAPI_MEMORY_PRECISION_PRECISE)
        DBG_RETURN(amd_dbgapi_set_memory_precision, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    /* NONE is how the core's waves ran; PRECISE would need them to run again. */
    DBG_RETURN(amd_dbgapi_set_memory_precision,
               memory_precision == AMD_DBGAPI_MEMORY_PRECISION_NONE
                       ? AMD_DBGAPI_STATUS_SUCCESS
                       : AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_set_alu_exceptions_precision(
        amd_dbgapi_process_id_t process_id,
        amd_dbgapi_alu_exceptions_precision_t alu_exceptions_precision)
{
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_set_alu_exceptions_precision,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_process_find(process_id.handle))
        DBG_RETURN(amd_dbgapi_set_alu_exceptions_precision,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    if (alu_exceptions_precision != AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE &&
        alu_exceptions_precision != AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_PRECISE)
        DBG_RETURN(amd_dbgapi_set_alu_exceptions_precision,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    DBG_RETURN(amd_dbgapi_set_alu_exceptions_precision,
               alu_exceptions_precision == AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE
                       ? AMD_DBGAPI_STATUS_SUCCESS
                       : AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED);
}

/* ---- events ---------------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_next_pending_event(
        amd_dbgapi_process_id_t process_id, amd_dbgapi_event_id_t *event_id,
        amd_dbgapi_event_kind_t *kind)
{
    struct gc_dbg_process *only = NULL;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_process_next_pending_event, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (process_id.handle && !(only = gc_dbg_process_find(process_id.handle)))
        DBG_RETURN(amd_dbgapi_process_next_pending_event,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    if (!event_id || !kind)
        DBG_RETURN(amd_dbgapi_process_next_pending_event, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++) {
        struct gc_dbg_process *p = gc_dbg.procs[i];

        if (only && p != only)
            continue;
        while (p->next_event < p->nevents &&
               p->events[p->next_event].state != GC_DBG_EVENT_PENDING)
            p->next_event++;
        if (p->next_event < p->nevents) {
            struct gc_dbg_event *e = &p->events[p->next_event];

            e->state = GC_DBG_EVENT_FETCHED;
            /* Until its stop event is fetched the client sees the wave running (§4). */
            if (e->kind == AMD_DBGAPI_EVENT_KIND_WAVE_STOP)
                p->waves[e->wave].visible_stop = 1;
            event_id->handle = p->event_base + p->next_event;
            *kind = e->kind;
            p->next_event++;
            DBG_RETURN(amd_dbgapi_process_next_pending_event, AMD_DBGAPI_STATUS_SUCCESS);
        }
    }
    *event_id = AMD_DBGAPI_EVENT_NONE;
    *kind = AMD_DBGAPI_EVENT_KIND_NONE;
    DBG_RETURN(amd_dbgapi_process_next_pending_event, AMD_DBGAPI_STATUS_SUCCESS);
}

/* A fetched, not yet processed event. */
static struct gc_dbg_event *event_find(uint64_t id, struct gc_dbg_process **ret_p)
{
    uint32_t i;
    struct gc_dbg_process *p = GC_DBG_FIND(id, event_base, nevents, &i);

    if (!p || p->events[i].state != GC_DBG_EVENT_FETCHED)
        return NULL;
    *ret_p = p;
    return &p->events[i];
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_event_get_info(amd_dbgapi_event_id_t event_id,
                                                         amd_dbgapi_event_info_t query,
                                                         size_t value_size, void *value)
{
    struct gc_dbg_process *p = NULL;
    struct gc_dbg_event *e;
    amd_dbgapi_status_t st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_event_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    e = event_find(event_id.handle, &p);
    if (!e)
        DBG_RETURN(amd_dbgapi_event_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID);
    switch (query) {
    case AMD_DBGAPI_EVENT_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_EVENT_INFO_KIND: {
        amd_dbgapi_event_kind_t v = e->kind;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_EVENT_INFO_WAVE:
        if (e->kind == AMD_DBGAPI_EVENT_KIND_WAVE_STOP) {
            amd_dbgapi_wave_id_t v = { p->wave_base + e->wave };

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE:
        if (e->kind == AMD_DBGAPI_EVENT_KIND_RUNTIME) {
            uint32_t v = e->runtime_state;

            st = GIVE(v);
        }
        break;
    default: /* BREAKPOINT, CLIENT_THREAD, QUEUE: no event of a core carries them */
        break;
    }
    DBG_RETURN(amd_dbgapi_event_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_event_processed(amd_dbgapi_event_id_t event_id)
{
    struct gc_dbg_process *p = NULL;
    struct gc_dbg_event *e;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_event_processed, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    e = event_find(event_id.handle, &p);
    if (!e)
        DBG_RETURN(amd_dbgapi_event_processed, AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID);
    e->state = GC_DBG_EVENT_PROCESSED;
    DBG_RETURN(amd_dbgapi_event_processed, AMD_DBGAPI_STATUS_SUCCESS);
}

/* ---- lists ----------------------------------------------------------------------------------- */

/* A process's objects of one kind in the order AMD's library lists them: it walks the kind's
   hash map (dbgapi_order.h), computed at attach. */
#define LIST_OF(name, kind, base, count)                                                          \
    static uint32_t count_##name(const struct gc_dbg_process *p)                                  \
    {                                                                                             \
        return p->count;                                                                          \
    }                                                                                             \
    static void fill_##name(const struct gc_dbg_process *p, uint64_t *out)                        \
    {                                                                                             \
        for (uint32_t i = 0; i < p->count; i++)                                                   \
            out[i] = p->base + p->list_order[kind][i];                                            \
    }

LIST_OF(code_objects, GC_DBG_LIST_CODE_OBJECTS, code_object_base, ncode_objects)
LIST_OF(agents, GC_DBG_LIST_AGENTS, agent_base, nagents)
LIST_OF(queues, GC_DBG_LIST_QUEUES, queue_base, nqueues)
LIST_OF(dispatches, GC_DBG_LIST_DISPATCHES, dispatch_base, ndispatches)
LIST_OF(workgroups, GC_DBG_LIST_WORKGROUPS, workgroup_base, nworkgroups)
LIST_OF(waves, GC_DBG_LIST_WAVES, wave_base, nwaves)

#define LIST_API(fn, kind, name, type)                                                            \
    amd_dbgapi_status_t AMD_DBGAPI fn(amd_dbgapi_process_id_t process_id, size_t *count,         \
                                      type **items, amd_dbgapi_changed_t *changed)               \
    {                                                                                             \
        DBG_RETURN(fn, gc_dbg_list(process_id, kind, count, (void **)items, changed,             \
                                   fill_##name, count_##name));                                   \
    }

LIST_API(amd_dbgapi_process_code_object_list, GC_DBG_LIST_CODE_OBJECTS, code_objects,
         amd_dbgapi_code_object_id_t)
LIST_API(amd_dbgapi_process_agent_list, GC_DBG_LIST_AGENTS, agents, amd_dbgapi_agent_id_t)
LIST_API(amd_dbgapi_process_queue_list, GC_DBG_LIST_QUEUES, queues, amd_dbgapi_queue_id_t)
LIST_API(amd_dbgapi_process_dispatch_list, GC_DBG_LIST_DISPATCHES, dispatches,
         amd_dbgapi_dispatch_id_t)
LIST_API(amd_dbgapi_process_workgroup_list, GC_DBG_LIST_WORKGROUPS, workgroups,
         amd_dbgapi_workgroup_id_t)
LIST_API(amd_dbgapi_process_wave_list, GC_DBG_LIST_WAVES, waves, amd_dbgapi_wave_id_t)

/* ---- shared accessors ------------------------------------------------------------------------ */

const struct gc_image_wave *gc_dbg_image_wave(const struct gc_dbg_process *p, uint32_t slot)
{
    return gc_image_wave(p->img, p->waves[slot].img);
}

uint32_t gc_dbg_queue_agent(const struct gc_dbg_process *p, uint32_t q)
{
    return gc_image_queue(p->img, p->queues[q])->agent;
}

const struct gc_image_agent *gc_dbg_wave_agent(const struct gc_dbg_process *p, uint32_t slot)
{
    return gc_image_agent(p->img, gc_dbg_queue_agent(p, p->waves[slot].queue));
}

/* The shape entry @p c uses no longer is. */
static void shape_release(struct gc_dbg_regcache *c)
{
    if (c->shape)
        c->shape->users--;
    c->shape = NULL;
}

/* Build entry @p e's list for a wave @p w of architecture @p a and shape @p key. */
static int shape_build(struct gc_dbg_shape *e, const struct gc_dbg_arch *a,
                       const struct gc_wave *w, const struct gc_reg_shape *key)
{
    uint32_t at = 0;

    gc_reglist_done(&e->regs);
    gc_free(e->at);
    e->at = NULL;
    e->arch = NULL;
    if (gc_wave_register_list(a->arch, w, &e->regs) != GPUCORE_OK)
        return -1;
    e->at = gc_calloc_array(a->regs.count ? a->regs.count : 1, sizeof(*e->at));
    if (!e->at) {
        gc_reglist_done(&e->regs);
        return -1;
    }
    for (size_t i = 0; i < a->regs.count; i++)
        e->at[i] = UINT32_MAX;
    /* The wave's list is a subsequence of the architecture's: ids ascend in both. */
    for (size_t k = 0; k < e->regs.count; k++) {
        while (at < a->regs.count && a->regs.regs[at].id != e->regs.regs[k].id)
            at++;
        if (at == a->regs.count) {
            gc_reglist_done(&e->regs);
            gc_free(e->at);
            e->at = NULL;
            return -1;
        }
        e->at[at] = (uint32_t)k;
    }
    e->key = *key;
    e->arch = a;
    return 0;
}

/*
 * The shared register list of wave @p slot: the entry of its shape, or one built in an entry
 * no regcache entry uses (there is always one: GC_DBG_SHAPES > GC_DBG_REGCACHE). Its users
 * count is raised; NULL when out of memory or the wave's family has no register set.
 */
static struct gc_dbg_shape *shape_of(struct gc_dbg_process *p, uint32_t slot)
{
    const struct gc_wave *w = &gc_dbg_image_wave(p, slot)->wave;
    const struct gc_dbg_arch *a = gc_dbg_arch_get(gc_dbg_wave_agent(p, slot)->arch);
    struct gc_reg_shape key;
    struct gc_dbg_shape *e = NULL;

    if (!a || gc_wave_register_shape(a->arch, w, &key) != GPUCORE_OK)
        return NULL;
    for (uint32_t i = 0; i < GC_DBG_SHAPES; i++) {
        struct gc_dbg_shape *x = &p->shapes[i];

        if (x->arch == a && memcmp(&x->key, &key, sizeof(key)) == 0) {
            x->users++;
            return x;
        }
    }
    for (uint32_t i = 0; i < GC_DBG_SHAPES && !e; i++) {
        struct gc_dbg_shape *x = &p->shapes[(p->shape_next + i) % GC_DBG_SHAPES];

        if (x->users == 0)
            e = x;
    }
    if (!e)
        return NULL; /* cannot happen: GC_DBG_SHAPES > GC_DBG_REGCACHE */
    p->shape_next = (uint32_t)(e - p->shapes + 1) % GC_DBG_SHAPES;
    if (shape_build(e, a, w, &key) != 0)
        return NULL;
    e->users = 1;
    return e;
}

_Static_assert(GC_DBG_SHAPES > GC_DBG_REGCACHE, "a free shape entry must always exist");

static struct gc_dbg_regcache *wave_cache(struct gc_dbg_process *p, uint32_t slot)
{
    struct gc_dbg_regcache *c = &p->regcache[p->regcache_last];
    uint32_t t[16];

    /* a debugger reads one wave's registers after another: the entry used last first */
    if (c->slot == slot)
        return c;
    for (uint32_t i = 0; i < GC_DBG_REGCACHE; i++)
        if (p->regcache[i].slot == slot) {
            p->regcache_last = i;
            return &p->regcache[i];
        }
    c = &p->regcache[p->regcache_next];
    p->regcache_next = (p->regcache_next + 1) % GC_DBG_REGCACHE;
    shape_release(c);
    c->slot = UINT32_MAX;
    c->have_record = 0; /* the record's buffer is kept for the next wave */
    c->shape = shape_of(p, slot);
    if (!c->shape)
        return NULL;
    attach_ttmps(p, slot, p->waves[slot].forced_stop, t);
    for (uint32_t i = 0; i < 16; i++)
        gc_le32_put(c->ttmp + 4 * i, t[i]);
    c->wave = gc_dbg_image_wave(p, slot)->wave;
    c->wave.ttmp = c->ttmp;
    c->slot = slot;
    p->regcache_last = (uint32_t)(c - p->regcache);
    return c;
}

const struct gc_dbg_shape *gc_dbg_wave_regs(struct gc_dbg_process *p, uint32_t slot)
{
    struct gc_dbg_regcache *c = wave_cache(p, slot);

    return c ? c->shape : NULL;
}

const struct gc_wave *gc_dbg_wave_served(struct gc_dbg_process *p, uint32_t slot)
{
    struct gc_dbg_regcache *c = wave_cache(p, slot);
    gpucore_diag_t d = { 0 };

    if (!c)
        return NULL;
    if (!c->have_record) {
        /* the saved registers are read from the client's memory when first asked for
           (analyze/image.h): the library keeps no copy of the save areas */
        if (gc_image_record_read(p->img, p->waves[slot].img, &c->rec, &d) != GPUCORE_OK) {
            gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "%s", d.message);
            return NULL;
        }
        c->wave = c->rec.w;
        c->wave.ttmp = c->ttmp;
        c->have_record = 1;
    }
    return &c->wave;
}

/* An architecture handle for @p arch (or NOT_AVAILABLE when it is unknown). */
static amd_dbgapi_status_t give_arch(const struct gc_arch *arch, size_t value_size, void *value)
{
    struct gc_dbg_arch *a;
    amd_dbgapi_architecture_id_t id;

    if (!arch)
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    a = gc_dbg_arch_get(arch);
    if (!a)
        return AMD_DBGAPI_STATUS_FATAL;
    id.handle = a->id;
    return GIVE(id);
}

/* ---- code objects ---------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_code_object_get_info(
        amd_dbgapi_code_object_id_t code_object_id, amd_dbgapi_code_object_info_t query,
        size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    const struct gc_image_code_object *co;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_code_object_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(code_object_id.handle, code_object_base, ncode_objects, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_code_object_get_info,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_CODE_OBJECT_ID);
    co = gc_image_code_object(p->img, i);
    switch (query) {
    case AMD_DBGAPI_CODE_OBJECT_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME:
        /* verbatim, as the runtime wrote it (§12.9) */
        st = gc_dbg_give_string(co->uri, value_size, value);
        break;
    case AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS: {
        ptrdiff_t v = (ptrdiff_t)co->load_address;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_code_object_get_info, st);
}

/* ---- agents ---------------------------------------------------------------------------------- */

/*
 * The marketing name of a PCI device, from the PCI ID database (the pci.ids package), as AMD's
 * library names agents; "Device vvvv:dddd" when the database is not installed or does not
 * know the device.
 */
static void pci_name(struct gc_dbg_process *p, uint32_t vendor, uint32_t device, char *buf,
                     size_t size)
{
    static const char *const paths[] = { "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
                                         "/usr/share/pci.ids" };
    char line[512], want_vendor[8], want_device[8];
    struct gc_dbg_pci_name *c;

    vendor &= 0xffffu;
    device &= 0xffffu;
    snprintf(buf, size, "Device %04x:%04x", vendor, device);
    for (uint32_t i = 0; i < GC_DBG_PCI_CACHE; i++) {
        c = &p->pci_cache[i];
        if (c->name[0] && c->vendor == vendor && c->device == device) {
            snprintf(buf, size, "%s", c->name);
            return;
        }
    }
    if (p->pci_scans >= GC_DBG_PCI_SCANS)
        return;
    c = &p->pci_cache[p->pci_scans++ % GC_DBG_PCI_CACHE];
    c->vendor = vendor;
    c->device = device;
    c->name[0] = '\0';
    snprintf(want_vendor, sizeof(want_vendor), "%04x  ", vendor & 0xffffu);
    snprintf(want_device, sizeof(want_device), "\t%04x  ", device & 0xffffu);
    for (size_t i = 0; i < GC_ARRAY_SIZE(paths); i++) {
        FILE *f = fopen(paths[i], "re");
        int in_vendor = 0;

        if (!f)
            continue;
        while (fgets(line, sizeof(line), f)) {
            if (line[0] != '\t' && line[0] != '#')
                in_vendor = strncmp(line, want_vendor, 6) == 0;
            else if (in_vendor && strncmp(line, want_device, 7) == 0) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(buf, size, "%.*s", (int)(size - 1), line + 7);
                break;
            }
        }
        fclose(f);
        snprintf(c->name, sizeof(c->name), "%.*s", (int)(sizeof(c->name) - 1), buf);
        return;
    }
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_agent_get_info(amd_dbgapi_agent_id_t agent_id,
                                                         amd_dbgapi_agent_info_t query,
                                                         size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    const struct gc_image_agent *a;
    const gpucore_kfd_device_entry_t *e;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_agent_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(agent_id.handle, agent_base, nagents, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_agent_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_AGENT_ID);
    a = gc_image_agent(p->img, i);
    e = a->entry;
    switch (query) {
    case AMD_DBGAPI_AGENT_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_NAME: {
        char name[256];

        pci_name(p, e->vendor_id, e->device_id, name, sizeof(name));
        st = gc_dbg_give_string(name, value_size, value);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_ARCHITECTURE:
        st = give_arch(a->arch, value_size, value);
        break;
    case AMD_DBGAPI_AGENT_INFO_STATE: {
        uint32_t v = a->supports_debugging ? AMD_DBGAPI_AGENT_STATE_SUPPORTED
                                           : AMD_DBGAPI_AGENT_STATE_NOT_SUPPORTED;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_PCI_DOMAIN: {
        uint16_t v = 0; /* the note records no PCI domain */

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_PCI_SLOT: {
        uint16_t v = (uint16_t)e->location_id;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_PCI_VENDOR_ID: {
        uint32_t v = e->vendor_id;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_PCI_DEVICE_ID: {
        uint32_t v = e->device_id;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_EXECUTION_UNIT_COUNT: {
        size_t v = e->simd_count;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_MAX_WAVES_PER_EXECUTION_UNIT: {
        size_t v = e->max_waves_per_simd;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_AGENT_INFO_OS_ID: {
        amd_dbgapi_os_agent_id_t v = e->gpu_id;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_agent_get_info, st);
}

/* ---- queues ---------------------------------------------------------------------------------- */

/* KFD queue types to the interface's (docs/kfd-debug-interface.md §6). */
static uint32_t queue_type(uint32_t kfd_type)
{
    static const uint32_t map[] = {
        [GPUCORE_KFD_QUEUE_TYPE_COMPUTE] = AMD_DBGAPI_OS_QUEUE_TYPE_AMD_PM4,
        [GPUCORE_KFD_QUEUE_TYPE_SDMA] = AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA,
        [GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL] = AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL,
        [GPUCORE_KFD_QUEUE_TYPE_SDMA_XGMI] = AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA_XGMI,
        [GPUCORE_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID] = AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA,
    };

    return kfd_type < GC_ARRAY_SIZE(map) ? map[kfd_type] : AMD_DBGAPI_OS_QUEUE_TYPE_UNKNOWN;
}

/* The queue's raised KFD exceptions as the interface's exception bits. */
static uint32_t queue_exceptions(uint64_t exception_status)
{
    static const struct {
        uint32_t kfd_code;
        uint32_t bit;
    } map[] = {
        { 1, AMD_DBGAPI_EXCEPTION_WAVE_ABORT },
        { 2, AMD_DBGAPI_EXCEPTION_WAVE_TRAP },
        { 3, AMD_DBGAPI_EXCEPTION_WAVE_MATH_ERROR },
        { 4, AMD_DBGAPI_EXCEPTION_WAVE_ILLEGAL_INSTRUCTION },
        { 5, AMD_DBGAPI_EXCEPTION_WAVE_MEMORY_VIOLATION },
        { 6, AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR },
        { 16, AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_DIM_INVALID },
        { 17, AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID },
        { 18, AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_CODE_INVALID },
        { 20, AMD_DBGAPI_EXCEPTION_PACKET_UNSUPPORTED },
        { 21, AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_WORKGROUP_SIZE_INVALID },
        { 22, AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_REGISTER_COUNT_TOO_LARGE },
        { 23, AMD_DBGAPI_EXCEPTION_PACKET_VENDOR_UNSUPPORTED },
        { 30, (uint32_t)AMD_DBGAPI_EXCEPTION_QUEUE_PREEMPTION_ERROR },
    };
    uint32_t v = 0;

    for (size_t i = 0; i < GC_ARRAY_SIZE(map); i++)
        if (exception_status & (1ull << (map[i].kfd_code - 1)))
            v |= map[i].bit;
    return v;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_queue_get_info(amd_dbgapi_queue_id_t queue_id,
                                                         amd_dbgapi_queue_info_t query,
                                                         size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    const struct gc_image_queue *q;
    const gpucore_kfd_queue_entry_t *e;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_queue_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(queue_id.handle, queue_base, nqueues, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_queue_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_QUEUE_ID);
    q = gc_image_queue(p->img, p->queues[i]);
    e = q->entry;
    switch (query) {
    case AMD_DBGAPI_QUEUE_INFO_AGENT: {
        amd_dbgapi_agent_id_t v = { p->agent_base + q->agent };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_ARCHITECTURE:
        st = give_arch(gc_image_agent(p->img, q->agent)->arch, value_size, value);
        break;
    case AMD_DBGAPI_QUEUE_INFO_TYPE: {
        uint32_t v = queue_type(e->queue_type);

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_STATE: {
        /* Implemented here (AMD's 0.77 does not): in error when the driver had raised a
           queue error exception when the core was written. */
        uint32_t v = queue_exceptions(e->exception_status) ? AMD_DBGAPI_QUEUE_STATE_ERROR
                                                           : AMD_DBGAPI_QUEUE_STATE_VALID;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_ERROR_REASON: {
        uint32_t v = queue_exceptions(e->exception_status);

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_ADDRESS: {
        amd_dbgapi_global_address_t v = e->ring_base_address;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_SIZE: {
        amd_dbgapi_size_t v = e->ring_size;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_QUEUE_INFO_OS_ID: {
        amd_dbgapi_os_queue_id_t v = e->queue_id & GPUCORE_KFD_QUEUE_ID_MASK;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_queue_get_info, st);
}

/* Read @p count active packets of queue @p q from the @p i-th on (ring slots in a row, @p n
   slots in the ring) into @p out: 1, or 0 with a warning naming the first one missing. */
static int read_packets(struct gc_dbg_process *p, const struct gc_image_queue *q, uint64_t n,
                        uint64_t i, uint64_t count, uint8_t *out)
{
    uint64_t at = q->entry->ring_base_address + ((q->read_id + i) % n) * 64, done = 0;

    if (gc_image_read(p->img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, at, out, count * 64, &done,
                      NULL) == GPUCORE_OK)
        return 1;
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
               "queue %u: packet %" PRIu64 " at 0x%" PRIx64 " is not in the core",
               q->entry->queue_id & GPUCORE_KFD_QUEUE_ID_MASK, q->read_id + i + done / 64,
               at + done / 64 * 64);
    return 0;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_queue_packet_list(
        amd_dbgapi_queue_id_t queue_id, amd_dbgapi_os_queue_packet_id_t *read_packet_id,
        amd_dbgapi_os_queue_packet_id_t *write_packet_id, size_t *packets_byte_size,
        void **packets_bytes)
{
    struct gc_dbg_process *p;
    const struct gc_image_queue *q;
    uint64_t n, count, i;
    uint8_t *bytes = NULL;
    uint32_t slot;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(queue_id.handle, queue_base, nqueues, &slot);
    if (!p)
        DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR_INVALID_QUEUE_ID);
    if (!read_packet_id || !write_packet_id || !packets_byte_size)
        DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    q = gc_image_queue(p->img, p->queues[slot]);
    if (!q->is_aql)
        DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED);
    n = q->entry->ring_size / 64;
    if (!q->amd_queue || q->write_id < q->read_id || !n || q->write_id - q->read_id > n) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "queue %u: %s",
                   q->entry->queue_id & GPUCORE_KFD_QUEUE_ID_MASK,
                   q->problem[0] ? q->problem : "its read and write ids are not usable");
        DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR);
    }
    count = q->write_id - q->read_id;
    if (packets_bytes && count > GC_DBG_MAX_PACKET_LIST) {
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                   "queue %u: %" PRIu64 " active packets, more than the %u this library lists",
                   q->entry->queue_id & GPUCORE_KFD_QUEUE_ID_MASK, count, GC_DBG_MAX_PACKET_LIST);
        DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR);
    }
    if (packets_bytes) {
        /* the oldest packet first: a ring the core does not hold costs no allocation */
        uint8_t first[64];

        if (count && !read_packets(p, q, n, 0, 1, first))
            DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR);
        bytes = gc_dbg_alloc(count * 64);
        if (count && !bytes)
            DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK);
        /* in at most two reads: up to the ring's end, then from its start */
        for (i = 0; i < count;) {
            uint64_t at = (q->read_id + i) % n, run = n - at < count - i ? n - at : count - i;

            if (!read_packets(p, q, n, i, run, bytes + i * 64)) {
                gc_dbg.cb->deallocate_memory(bytes);
                DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_ERROR);
            }
            i += run;
        }
        *packets_bytes = bytes;
    }
    *read_packet_id = q->read_id;
    *write_packet_id = q->write_id;
    *packets_byte_size = count * 64;
    DBG_RETURN(amd_dbgapi_queue_packet_list, AMD_DBGAPI_STATUS_SUCCESS);
}

/* ---- dispatches and workgroups --------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dispatch_get_info(amd_dbgapi_dispatch_id_t dispatch_id,
                                                            amd_dbgapi_dispatch_info_t query,
                                                            size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    const struct gc_image_dispatch *d;
    const struct gc_image_queue *q;
    uint32_t i, queue_slot = 0;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_dispatch_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(dispatch_id.handle, dispatch_base, ndispatches, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_dispatch_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_DISPATCH_ID);
    d = gc_image_dispatch(p->img, p->dispatches[i]);
    q = gc_image_queue(p->img, d->queue);
    while (queue_slot < p->nqueues && p->queues[queue_slot] != d->queue)
        queue_slot++;
    switch (query) {
    case AMD_DBGAPI_DISPATCH_INFO_QUEUE: {
        amd_dbgapi_queue_id_t v = { p->queue_base + queue_slot };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_AGENT: {
        amd_dbgapi_agent_id_t v = { p->agent_base + q->agent };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_ARCHITECTURE:
        st = give_arch(gc_image_agent(p->img, q->agent)->arch, value_size, value);
        break;
    case AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID: {
        amd_dbgapi_os_queue_packet_id_t v = d->packet_id;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_BARRIER: { /* hsa_packet_header_t: barrier bit 8 */
        uint32_t v = (d->header >> 8) & 1u ? AMD_DBGAPI_DISPATCH_BARRIER_PRESENT
                                           : AMD_DBGAPI_DISPATCH_BARRIER_NONE;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_ACQUIRE_FENCE: { /* scope in bits 10:9 */
        uint32_t v = (d->header >> 9) & 3u;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_RELEASE_FENCE: { /* scope in bits 12:11 */
        uint32_t v = (d->header >> 11) & 3u;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_GRID_DIMENSIONS: {
        uint32_t v = d->setup & 3u;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_WORKGROUP_SIZES: {
        uint16_t v[3] = { d->workgroup_size[0], d->workgroup_size[1], d->workgroup_size[2] };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_GRID_SIZES: {
        uint32_t v[3] = { d->grid_size[0], d->grid_size[1], d->grid_size[2] };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_PRIVATE_SEGMENT_SIZE: {
        amd_dbgapi_size_t v = d->private_segment_size;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_GROUP_SEGMENT_SIZE: {
        amd_dbgapi_size_t v = d->group_segment_size;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_KERNEL_ARGUMENT_SEGMENT_ADDRESS: {
        amd_dbgapi_global_address_t v = d->kernarg_address;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_KERNEL_DESCRIPTOR_ADDRESS: {
        amd_dbgapi_global_address_t v = d->kernel_object;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_DISPATCH_INFO_KERNEL_CODE_ENTRY_ADDRESS:
        if (!d->kernel_entry) {
            gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                       "kernel descriptor 0x%" PRIx64 " was not captured: the entry address is "
                       "unknown",
                       d->kernel_object);
            st = value ? AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED
                       : AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        } else {
            amd_dbgapi_global_address_t v = d->kernel_entry;

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_DISPATCH_INFO_KERNEL_COMPLETION_ADDRESS: {
        /* the packet's completion_signal handle as it is, 0 (no signal) included, as AMD's
           library answers */
        amd_dbgapi_global_address_t v = d->completion_signal;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_dispatch_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_workgroup_get_info(
        amd_dbgapi_workgroup_id_t workgroup_id, amd_dbgapi_workgroup_info_t query,
        size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    const struct gc_dbg_workgroup *g;
    const struct gc_image_wave *leader;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_workgroup_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(workgroup_id.handle, workgroup_base, nworkgroups, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_workgroup_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_WORKGROUP_ID);
    g = &p->workgroups[i];
    leader = gc_image_wave(p->img, g->leader);
    switch (query) {
    case AMD_DBGAPI_WORKGROUP_INFO_DISPATCH: {
        /*
         * AMD's rule (ROCdbgapi rocm-dbgapi-0.77.0, src/workgroup.cpp workgroup_t::get_info):
         * a workgroup always has a dispatch and the query always succeeds. A group whose leader
         * carries no dispatch packet id (TTMPs not set up by the SPI) belongs to the queue's
         * dummy dispatch (src/queue.cpp compute_queue_t::update_waves, "m_dummy_dispatch";
         * src/queue.h dummy_dispatch_t), whose handle is AMD_DBGAPI_DISPATCH_NONE: SUCCESS with
         * a zero handle. Only the wave's own query (WAVE_INFO_DISPATCH, src/wave.cpp
         * wave_t::get_info) answers NOT_AVAILABLE for it.
         */
        amd_dbgapi_dispatch_id_t v = AMD_DBGAPI_DISPATCH_NONE;

        if (g->dispatch != UINT32_MAX)
            v.handle = p->dispatch_base + g->dispatch;
        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WORKGROUP_INFO_QUEUE: {
        amd_dbgapi_queue_id_t v = { p->queue_base + g->queue };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WORKGROUP_INFO_AGENT: {
        amd_dbgapi_agent_id_t v = { p->agent_base + gc_dbg_queue_agent(p, g->queue) };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WORKGROUP_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WORKGROUP_INFO_ARCHITECTURE:
        st = give_arch(gc_image_agent(p->img, gc_dbg_queue_agent(p, g->queue))->arch,
                       value_size, value);
        break;
    case AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD:
        if (leader->workgroup[0] == UINT32_MAX) {
            st = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
        } else {
            uint32_t v[3] = { leader->workgroup[0], leader->workgroup[1], leader->workgroup[2] };

            st = GIVE(v);
        }
        break;
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_workgroup_get_info, st);
}

/* ---- waves ----------------------------------------------------------------------------------- */

/* The queries that need the client to see the wave stopped. */
static int needs_stop(amd_dbgapi_wave_info_t query)
{
    return query == AMD_DBGAPI_WAVE_INFO_STOP_REASON || query == AMD_DBGAPI_WAVE_INFO_WATCHPOINTS ||
           query == AMD_DBGAPI_WAVE_INFO_PC || query == AMD_DBGAPI_WAVE_INFO_EXEC_MASK;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_get_info(amd_dbgapi_wave_id_t wave_id,
                                                        amd_dbgapi_wave_info_t query,
                                                        size_t value_size, void *value)
{
    struct gc_dbg_process *p;
    const struct gc_dbg_wave *dw;
    const struct gc_image_wave *w;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_wave_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_wave_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    dw = &p->waves[i];
    w = gc_dbg_image_wave(p, i);
    if (needs_stop(query) && !dw->visible_stop)
        DBG_RETURN(amd_dbgapi_wave_get_info, AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED);
    switch (query) {
    case AMD_DBGAPI_WAVE_INFO_STATE: {
        uint32_t v = dw->visible_stop ? AMD_DBGAPI_WAVE_STATE_STOP : AMD_DBGAPI_WAVE_STATE_RUN;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_STOP_REASON: {
        uint32_t v = w->stop_reasons; /* arch/wave.h: amd-dbgapi's bit values */

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_WATCHPOINTS: {
        /* The address watches the wave's saved state says triggered (arch/wave.h
           gc_wave_stop_at_attach), as watchpoint handles k + 1 for hardware watch k: the
           handles AMD's library (which numbers watchpoints from 1) gives a debugger's first
           watchpoints when KFD hands out watches 0, 1, ... in order. AMD's library itself ends
           the process with a fatal error here on a core: it finds no watchpoint of its own for
           the triggered watch. A core records no watched address, so
           amd_dbgapi_watchpoint_get_info() knows none of these handles. */
        amd_dbgapi_watchpoint_list_t v = { 0, NULL };
        amd_dbgapi_watchpoint_id_t ids[4];

        for (uint32_t k = 0; k < 4; k++)
            if ((w->stop_reasons & AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT) &&
                (w->watchpoints & (1u << k)))
                ids[v.count++].handle = k + 1;
        if (!value) {
            st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        } else if (value_size != sizeof(v)) {
            st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
        } else if (v.count &&
                   !(v.watchpoint_ids = gc_dbg_alloc(v.count * sizeof(ids[0])))) {
            st = AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
        } else {
            if (v.count)
                memcpy(v.watchpoint_ids, ids, v.count * sizeof(ids[0]));
            st = GIVE(v);
        }
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_WORKGROUP:
        if (dw->workgroup == UINT32_MAX) {
            st = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
        } else {
            amd_dbgapi_workgroup_id_t v = { p->workgroup_base + dw->workgroup };

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_WAVE_INFO_DISPATCH:
        if (dw->dispatch == UINT32_MAX) {
            st = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
        } else {
            amd_dbgapi_dispatch_id_t v = { p->dispatch_base + dw->dispatch };

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_WAVE_INFO_QUEUE: {
        amd_dbgapi_queue_id_t v = { p->queue_base + dw->queue };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_AGENT: {
        amd_dbgapi_agent_id_t v = { p->agent_base + gc_dbg_queue_agent(p, dw->queue) };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_PROCESS: {
        amd_dbgapi_process_id_t v = { p->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_ARCHITECTURE:
        st = give_arch(gc_dbg_wave_agent(p, i)->arch, value_size, value);
        break;
    case AMD_DBGAPI_WAVE_INFO_PC: {
        amd_dbgapi_global_address_t v = w->pc;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_EXEC_MASK: {
        uint64_t v = w->exec;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_WAVE_INFO_WORKGROUP_COORD:
        if (w->workgroup[0] == UINT32_MAX) {
            st = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
        } else {
            uint32_t v[3] = { w->workgroup[0], w->workgroup[1], w->workgroup[2] };

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_WAVE_INFO_WAVE_NUMBER_IN_WORKGROUP:
        /* known from the trap handler's TTMPs, as the workgroup's coordinates are */
        if (w->workgroup[0] == UINT32_MAX) {
            st = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
        } else {
            uint32_t v = w->wave_in_group;

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_WAVE_INFO_LANE_COUNT: {
        size_t v = w->lanes;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_wave_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_stop(amd_dbgapi_wave_id_t wave_id)
{
    struct gc_dbg_process *p;
    uint32_t i;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_wave_stop, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_wave_stop, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    /* Every wave of a core is stopped: one whose stop event is still pending will be seen
       stopped once the event is fetched, which is what the request asks for. */
    DBG_RETURN(amd_dbgapi_wave_stop, p->waves[i].visible_stop
                                             ? AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED
                                             : AMD_DBGAPI_STATUS_SUCCESS);
}

#define WAVE_EXCEPTIONS                                                                           \
    ((uint32_t)AMD_DBGAPI_EXCEPTION_WAVE_ABORT | AMD_DBGAPI_EXCEPTION_WAVE_TRAP |                 \
     AMD_DBGAPI_EXCEPTION_WAVE_MATH_ERROR | AMD_DBGAPI_EXCEPTION_WAVE_ILLEGAL_INSTRUCTION |       \
     AMD_DBGAPI_EXCEPTION_WAVE_MEMORY_VIOLATION | AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR)

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_resume(amd_dbgapi_wave_id_t wave_id,
                                                      amd_dbgapi_resume_mode_t resume_mode,
                                                      amd_dbgapi_exceptions_t exceptions)
{
    struct gc_dbg_process *p;
    uint32_t i;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_wave_resume, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_wave_resume, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    if ((resume_mode != AMD_DBGAPI_RESUME_MODE_NORMAL &&
         resume_mode != AMD_DBGAPI_RESUME_MODE_SINGLE_STEP) ||
        ((uint32_t)exceptions & ~WAVE_EXCEPTIONS))
        DBG_RETURN(amd_dbgapi_wave_resume, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    if (!p->waves[i].visible_stop)
        DBG_RETURN(amd_dbgapi_wave_resume, AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED);
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "the waves of a core cannot run");
    DBG_RETURN(amd_dbgapi_wave_resume, AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN);
}

/* ---- things a core never has: displaced stepping, watchpoints, breakpoints ------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_displaced_stepping_get_info(
        amd_dbgapi_displaced_stepping_id_t displaced_stepping_id,
        amd_dbgapi_displaced_stepping_info_t query, size_t value_size, void *value)
{
    (void)displaced_stepping_id;
    (void)query;
    (void)value_size;
    (void)value;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_displaced_stepping_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    DBG_RETURN(amd_dbgapi_displaced_stepping_get_info,
               AMD_DBGAPI_STATUS_ERROR_INVALID_DISPLACED_STEPPING_ID);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_displaced_stepping_start(
        amd_dbgapi_wave_id_t wave_id, const void *saved_instruction_bytes,
        amd_dbgapi_displaced_stepping_id_t *displaced_stepping)
{
    struct gc_dbg_process *p;
    uint32_t i;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_displaced_stepping_start, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &i);
    if (!p)
        DBG_RETURN(amd_dbgapi_displaced_stepping_start, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    if (!p->waves[i].visible_stop)
        DBG_RETURN(amd_dbgapi_displaced_stepping_start, AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED);
    if (!saved_instruction_bytes || !displaced_stepping)
        DBG_RETURN(amd_dbgapi_displaced_stepping_start, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    DBG_RETURN(amd_dbgapi_displaced_stepping_start, AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_displaced_stepping_complete(
        amd_dbgapi_wave_id_t wave_id, amd_dbgapi_displaced_stepping_id_t displaced_stepping)
{
    uint32_t i;

    (void)displaced_stepping;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_displaced_stepping_complete,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &i))
        DBG_RETURN(amd_dbgapi_displaced_stepping_complete, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    /* no buffer was ever handed out */
    DBG_RETURN(amd_dbgapi_displaced_stepping_complete,
               AMD_DBGAPI_STATUS_ERROR_INVALID_DISPLACED_STEPPING_ID);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_watchpoint_get_info(
        amd_dbgapi_watchpoint_id_t watchpoint_id, amd_dbgapi_watchpoint_info_t query,
        size_t value_size, void *value)
{
    (void)watchpoint_id;
    (void)query;
    (void)value_size;
    (void)value;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_watchpoint_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    DBG_RETURN(amd_dbgapi_watchpoint_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_WATCHPOINT_ID);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_set_watchpoint(amd_dbgapi_process_id_t process_id,
                                                         amd_dbgapi_global_address_t address,
                                                         amd_dbgapi_size_t size,
                                                         amd_dbgapi_watchpoint_kind_t kind,
                                                         amd_dbgapi_watchpoint_id_t *watchpoint_id)
{
    (void)address;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_set_watchpoint, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_process_find(process_id.handle))
        DBG_RETURN(amd_dbgapi_set_watchpoint, AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
    if (!watchpoint_id || size == 0 || kind < AMD_DBGAPI_WATCHPOINT_KIND_LOAD ||
        kind > AMD_DBGAPI_WATCHPOINT_KIND_ALL)
        DBG_RETURN(amd_dbgapi_set_watchpoint, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    DBG_RETURN(amd_dbgapi_set_watchpoint, AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_remove_watchpoint(amd_dbgapi_watchpoint_id_t watchpoint_id)
{
    (void)watchpoint_id;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_remove_watchpoint, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    DBG_RETURN(amd_dbgapi_remove_watchpoint, AMD_DBGAPI_STATUS_ERROR_INVALID_WATCHPOINT_ID);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_breakpoint_get_info(
        amd_dbgapi_breakpoint_id_t breakpoint_id, amd_dbgapi_breakpoint_info_t query,
        size_t value_size, void *value)
{
    (void)breakpoint_id;
    (void)query;
    (void)value_size;
    (void)value;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_breakpoint_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    /* the library asks for no breakpoint in a core's process */
    DBG_RETURN(amd_dbgapi_breakpoint_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_report_breakpoint_hit(
        amd_dbgapi_breakpoint_id_t breakpoint_id, amd_dbgapi_client_thread_id_t client_thread_id,
        amd_dbgapi_breakpoint_action_t *breakpoint_action)
{
    (void)breakpoint_id;
    (void)client_thread_id;
    (void)breakpoint_action;
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_report_breakpoint_hit, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    DBG_RETURN(amd_dbgapi_report_breakpoint_hit, AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID);
}
