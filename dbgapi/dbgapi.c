/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi: the library's state, status strings and sets, logging, initialisation,
 * handles, architectures and the list protocol (dbgapi_internal.h).
 */
#include "dbgapi_internal.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "wave.h"

#ifndef GPUCORE_VERSION_STRING
#define GPUCORE_VERSION_STRING "0"
#endif

struct gc_dbg_state gc_dbg;

/* ---- statuses ------------------------------------------------------------------------------ */

#define S(x) (1ull << -(AMD_DBGAPI_STATUS_##x))

static const uint64_t allowed[GC_DBG_FN_COUNT] = {
#define GC_DBGAPI_STATUSES(fn, set) [GC_DBG_FN_##fn] = (set),
#include "statuses.def"
};

int gc_dbg_status_allowed(enum gc_dbg_fn fn, amd_dbgapi_status_t st)
{
    if ((unsigned)fn >= GC_DBG_FN_COUNT || st > 0 || st < -63)
        return 0;
    return ((allowed[fn] | S(ERROR_NOT_IMPLEMENTED)) >> -st) & 1u;
}

static const char *const fn_names[GC_DBG_FN_COUNT] = {
#define GC_DBGAPI_ABI_FN(name, ver) [GC_DBG_FN_##name] = #name,
#include "abi_table.def"
};

amd_dbgapi_status_t gc_dbg_ret(enum gc_dbg_fn fn, amd_dbgapi_status_t st)
{
    if (gc_dbg_status_allowed(fn, st))
        return st;
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR,
               "%s returned status %d, which its documentation does not list (a library bug)",
               (unsigned)fn < GC_DBG_FN_COUNT ? fn_names[fn] : "?", (int)st);
    assert(0 && "status outside the function's documented set");
    return AMD_DBGAPI_STATUS_FATAL;
}

/* The status strings, gpucore's own words. */
static const struct {
    amd_dbgapi_status_t status;
    const char *text;
} status_text[] = {
    { AMD_DBGAPI_STATUS_SUCCESS, "success" },
    { AMD_DBGAPI_STATUS_ERROR, "an unspecified error" },
    { AMD_DBGAPI_STATUS_FATAL, "a fatal error inside the library" },
    { AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED, "not implemented by this library" },
    { AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE, "the information does not exist for this object" },
    { AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED, "not supported here" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, "an argument is not valid" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY,
      "arguments that are valid alone do not fit together (value_size, architectures)" },
    { AMD_DBGAPI_STATUS_ERROR_ALREADY_INITIALIZED, "the library is initialized already" },
    { AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED, "the library has not been initialized" },
    { AMD_DBGAPI_STATUS_ERROR_RESTRICTION,
      "a restriction stops the operation: a core whose note or runtime this library cannot "
      "use, or a live process (libgpucore-dbgapi serves core files only)" },
    { AMD_DBGAPI_STATUS_ERROR_ALREADY_ATTACHED, "that client process is attached already" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID, "no such architecture" },
    { AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION, "the bytes are not a legal instruction" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_CODE_OBJECT_ID, "no such code object" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ELF_AMDGPU_MACHINE,
      "the EF_AMDGPU_MACH value names no architecture this library knows" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID, "no such process" },
    { AMD_DBGAPI_STATUS_ERROR_PROCESS_EXITED, "the process has exited" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_AGENT_ID, "no such agent" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_QUEUE_ID, "no such queue" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_DISPATCH_ID, "no such dispatch" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID, "no such wave" },
    { AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED,
      "the wave is not stopped (or its stop event has not been fetched)" },
    { AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED, "the wave is stopped already" },
    { AMD_DBGAPI_STATUS_ERROR_WAVE_OUTSTANDING_STOP, "a stop of the wave is pending" },
    { AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_RESUMABLE, "the wave cannot be resumed" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_DISPLACED_STEPPING_ID, "no such displaced-stepping buffer" },
    { AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_BUFFER_NOT_AVAILABLE,
      "no displaced-stepping buffer fits the wave" },
    { AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_ACTIVE,
      "the wave is using a displaced-stepping buffer" },
    { AMD_DBGAPI_STATUS_ERROR_RESUME_DISPLACED_STEPPING,
      "displaced stepping does not allow this way of resuming the wave" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_WATCHPOINT_ID, "no such watchpoint" },
    { AMD_DBGAPI_STATUS_ERROR_NO_WATCHPOINT_AVAILABLE, "every watchpoint is in use" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_CLASS_ID, "no such register class" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID, "no such register" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID, "no such lane in this wave" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID, "no such address class" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID, "no such address space" },
    { AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS,
      "the memory cannot be accessed (in a core: it was not captured, or it cannot change)" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION,
      "the address has no equivalent in the other address space" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID, "no such event" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID, "no such breakpoint" },
    { AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK, "a client callback failed" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID, "no such client process" },
    { AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND, "no symbol at that address" },
    { AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE,
      "the wave does not have that register allocated" },
    { AMD_DBGAPI_STATUS_ERROR_INVALID_WORKGROUP_ID, "no such workgroup" },
    { AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE,
      "the process is not in a state that allows the operation" },
    { AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN,
      "the process is frozen (a core is a snapshot: nothing in it changes)" },
    { AMD_DBGAPI_STATUS_ERROR_PROCESS_ALREADY_FROZEN, "the process is frozen already" },
    { AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN, "the process is not frozen" },
};

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_get_status_string(amd_dbgapi_status_t status,
                                                            const char **status_string)
{
    if (!status_string)
        DBG_RETURN(amd_dbgapi_get_status_string, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    for (size_t i = 0; i < GC_ARRAY_SIZE(status_text); i++) {
        if (status_text[i].status == status) {
            *status_string = status_text[i].text;
            DBG_RETURN(amd_dbgapi_get_status_string, AMD_DBGAPI_STATUS_SUCCESS);
        }
    }
    DBG_RETURN(amd_dbgapi_get_status_string, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
}

/* ---- versions and logging -------------------------------------------------------------------- */

void AMD_DBGAPI amd_dbgapi_get_version(uint32_t *major, uint32_t *minor, uint32_t *patch)
{
    if (major)
        *major = AMD_DBGAPI_VERSION_MAJOR;
    if (minor)
        *minor = AMD_DBGAPI_VERSION_MINOR;
    if (patch)
        *patch = AMD_DBGAPI_VERSION_PATCH;
}

const char AMD_DBGAPI *amd_dbgapi_get_build_name(void)
{
    return "libgpucore-dbgapi " GPUCORE_VERSION_STRING " (amd-dbgapi 0.77 over core files)";
}

void AMD_DBGAPI amd_dbgapi_set_log_level(amd_dbgapi_log_level_t level)
{
    if (level >= AMD_DBGAPI_LOG_LEVEL_NONE && level <= AMD_DBGAPI_LOG_LEVEL_VERBOSE)
        gc_dbg.log_level = level;
}

void gc_dbg_log(amd_dbgapi_log_level_t level, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    if (level > gc_dbg.log_level || level == AMD_DBGAPI_LOG_LEVEL_NONE || !gc_dbg.cb ||
        !gc_dbg.cb->log_message)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    gc_dbg.cb->log_message(level, buf);
}

/* ---- initialisation ---------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_initialize(amd_dbgapi_callbacks_t *callbacks)
{
    if (gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_initialize, AMD_DBGAPI_STATUS_ERROR_ALREADY_INITIALIZED);
    if (!callbacks || !callbacks->allocate_memory || !callbacks->deallocate_memory ||
        !callbacks->client_process_get_info || !callbacks->insert_breakpoint ||
        !callbacks->remove_breakpoint || !callbacks->xfer_global_memory ||
        !callbacks->log_message)
        DBG_RETURN(amd_dbgapi_initialize, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    gc_dbg.cb = callbacks;
    gc_dbg.initialized = 1;
    gc_dbg_kind_ids_reset();
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "%s initialized", amd_dbgapi_get_build_name());
    DBG_RETURN(amd_dbgapi_initialize, AMD_DBGAPI_STATUS_SUCCESS);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_finalize(void)
{
    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_finalize, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    /* Detach everything; every handle becomes invalid (ids are never handed out again). */
    while (gc_dbg.nprocs)
        gc_dbg_process_free(gc_dbg.procs[--gc_dbg.nprocs]);
    gc_free(gc_dbg.procs);
    gc_dbg.procs = NULL;
    gc_dbg_archs_free();
    gc_disasm_fini();
    memset(gc_dbg.none_changed, 0, sizeof(gc_dbg.none_changed));
    gc_dbg.cb = NULL;
    gc_dbg.initialized = 0;
    DBG_RETURN(amd_dbgapi_finalize, AMD_DBGAPI_STATUS_SUCCESS);
}

uint64_t gc_dbg_kind_ids(enum gc_dbg_kind kind, uint64_t n)
{
    uint64_t first;

    assert((unsigned)kind < GC_DBG_KIND_COUNT);
    if (!gc_dbg.next_kind_id[kind])
        gc_dbg.next_kind_id[kind] = 1; /* 0 is every kind's "none" */
    first = gc_dbg.next_kind_id[kind];
    gc_dbg.next_kind_id[kind] += n;
    return first;
}

void gc_dbg_kind_ids_reset(void)
{
    /* As AMD's library: a new instance numbers its objects from 1 again (handles of an earlier
       instance are undefined in it), except processes, whose counter runs for the library's
       life. */
    for (int k = 0; k < GC_DBG_KIND_COUNT; k++)
        if (k != GC_DBG_KIND_PROCESS)
            gc_dbg.next_kind_id[k] = 1;
}

/* ---- client memory ------------------------------------------------------------------------- */

void *gc_dbg_alloc(size_t size)
{
    return gc_dbg.cb->allocate_memory(size);
}

amd_dbgapi_status_t gc_dbg_give(const void *src, size_t n, size_t value_size, void *value)
{
    if (!value)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (value_size != n)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    memcpy(value, src, n);
    return AMD_DBGAPI_STATUS_SUCCESS;
}

amd_dbgapi_status_t gc_dbg_give_string(const char *s, size_t value_size, void *value)
{
    size_t len = strlen(s) + 1;
    char *copy;

    if (!value)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (value_size != sizeof(char *))
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    copy = gc_dbg_alloc(len);
    if (!copy)
        return AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
    memcpy(copy, s, len);
    memcpy(value, &copy, sizeof(copy));
    return AMD_DBGAPI_STATUS_SUCCESS;
}

/* ---- lookups ------------------------------------------------------------------------------- */

struct gc_dbg_process *gc_dbg_process_find(uint64_t id)
{
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++)
        if (gc_dbg.procs[i]->id == id)
            return gc_dbg.procs[i];
    return NULL;
}

struct gc_dbg_process *gc_dbg_find_in(uint64_t id, size_t base_offset, size_t count_offset,
                                      uint32_t *ret_index)
{
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++) {
        const uint8_t *p = (const uint8_t *)gc_dbg.procs[i];
        uint64_t base;
        uint32_t count;

        memcpy(&base, p + base_offset, sizeof(base));
        memcpy(&count, p + count_offset, sizeof(count));
        if (id >= base && id - base < count) {
            *ret_index = (uint32_t)(id - base);
            return gc_dbg.procs[i];
        }
    }
    return NULL;
}

/* ---- architectures ------------------------------------------------------------------------- */

/*
 * Architecture-level handles are AMD's (dbgapi_internal.h): computed from the row of
 * gc_arch_table (whose order is the order AMD's library creates its architectures in) and the
 * object's place, so they are the same in every initialisation. An architecture's state (its
 * register list) is built on first use and freed by amd_dbgapi_finalize; building it again
 * gives the same handles.
 */

/* The architecture row of handle @p k (1-based), or NULL. */
static const struct gc_arch *arch_row(uint64_t k)
{
    if (k == 0 || k > gc_arch_count() || !gc_arch_table[k - 1].regs)
        return NULL;
    return &gc_arch_table[k - 1];
}

/* a->by_regnum from a->regs (which ascend by AMD's register number). 0, or -1 when out of
   memory or a number is past GC_DBG_MAX_REGNUM. */
static int regnum_table(struct gc_dbg_arch *a)
{
    uint32_t n = a->regs.count ? a->regs.regs[a->regs.count - 1].regnum + 1 : 0;

    if (n > GC_DBG_MAX_REGNUM)
        return -1;
    a->by_regnum = gc_calloc_array(n ? n : 1, sizeof(*a->by_regnum));
    if (!a->by_regnum)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        a->by_regnum[i] = UINT32_MAX;
    for (size_t i = 0; i < a->regs.count; i++)
        a->by_regnum[a->regs.regs[i].regnum] = (uint32_t)i;
    a->nregnums = n;
    return 0;
}

struct gc_dbg_arch *gc_dbg_arch_get(const struct gc_arch *arch)
{
    size_t n = gc_arch_count(), nclasses = 0, k;
    struct gc_dbg_arch *a;

    if (!arch || arch < gc_arch_table || arch >= gc_arch_table + n || !arch->regs)
        return NULL;
    /* the handles count AMD's 5 address classes per architecture: so must the table */
    (void)gc_address_classes(&nclasses);
    if (nclasses != gc_dbg_part_count[GC_DBG_PART_ADDRESS_CLASS])
        return NULL;
    k = (size_t)(arch - gc_arch_table);
    if (!gc_dbg.archs) {
        gc_dbg.archs = gc_calloc_array(n, sizeof(*gc_dbg.archs));
        if (!gc_dbg.archs)
            return NULL;
        gc_dbg.narchs = (uint32_t)n;
    }
    if (gc_dbg.archs[k])
        return gc_dbg.archs[k];
    a = gc_calloc_array(1, sizeof(*a));
    if (!a)
        return NULL;
    if (gc_arch_register_list(arch, &a->regs) != GPUCORE_OK) {
        gc_free(a);
        return NULL;
    }
    if (regnum_table(a) != 0) {
        gc_reglist_done(&a->regs);
        gc_free(a);
        return NULL;
    }
    a->arch = arch;
    a->id = (uint64_t)k + 1;
    gc_dbg.archs[k] = a;
    return a;
}

struct gc_dbg_arch *gc_dbg_arch_find(uint64_t id)
{
    const struct gc_arch *row = arch_row(id);

    return row ? gc_dbg_arch_get(row) : NULL;
}

uint64_t gc_dbg_register_id(const struct gc_dbg_arch *a, uint32_t index)
{
    return a->id << 32 | a->regs.regs[index].regnum;
}

struct gc_dbg_arch *gc_dbg_register_find(uint64_t id, uint32_t *ret_index)
{
    struct gc_dbg_arch *a = gc_dbg_arch_find(id >> 32);
    uint32_t regnum = (uint32_t)id;

    /* the handle's low half is AMD's register number: an index into by_regnum */
    if (!a || regnum >= a->nregnums || a->by_regnum[regnum] == UINT32_MAX)
        return NULL;
    *ret_index = a->by_regnum[regnum];
    return a;
}

uint64_t gc_dbg_part_id(const struct gc_dbg_arch *a, enum gc_dbg_part kind, uint32_t index)
{
    return gc_dbg_part_first[kind] + (a->id - 1) * gc_dbg_part_count[kind] + index;
}

struct gc_dbg_arch *gc_dbg_part_find(uint64_t id, enum gc_dbg_part kind, uint32_t *ret_index)
{
    uint64_t n = gc_dbg_part_count[kind];
    struct gc_dbg_arch *a;

    if (id < gc_dbg_part_first[kind])
        return NULL;
    id -= gc_dbg_part_first[kind];
    a = gc_dbg_arch_find(id / n + 1);
    if (a)
        *ret_index = (uint32_t)(id % n);
    return a;
}

void gc_dbg_archs_free(void)
{
    for (uint32_t i = 0; i < gc_dbg.narchs; i++) {
        if (!gc_dbg.archs[i])
            continue;
        gc_reglist_done(&gc_dbg.archs[i]->regs);
        gc_free(gc_dbg.archs[i]->by_regnum);
        gc_free(gc_dbg.archs[i]);
    }
    gc_free(gc_dbg.archs);
    gc_dbg.archs = NULL;
    gc_dbg.narchs = 0;
}

/* ---- the list protocol ----------------------------------------------------------------------- */

/*
 * As AMD's library: each process keeps a "changed" flag per kind of list, set when its
 * objects appear (attach); a call with @p changed clears the flags of the processes it covers
 * and, if none was set, answers CHANGED_NO with no array. A call for every process also
 * reports a change of the set of processes (an attach or a detach since the last such call).
 */
amd_dbgapi_status_t gc_dbg_list(amd_dbgapi_process_id_t process_id, enum gc_dbg_list kind,
                                size_t *ret_count, void **ret_items,
                                amd_dbgapi_changed_t *changed, gc_dbg_fill_fn fill,
                                uint32_t (*count)(const struct gc_dbg_process *p))
{
    struct gc_dbg_process *only = NULL;
    size_t n = 0;
    uint64_t *items;

    if (!gc_dbg.initialized)
        return AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED;
    if (process_id.handle) {
        only = gc_dbg_process_find(process_id.handle);
        if (!only)
            return AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID;
    }
    if (!ret_count || !ret_items)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (changed) {
        int any = only ? only->changed[kind] : gc_dbg.none_changed[kind];

        for (uint32_t i = 0; i < gc_dbg.nprocs; i++) {
            struct gc_dbg_process *p = gc_dbg.procs[i];

            if (only && p != only)
                continue;
            any |= p->changed[kind];
            p->changed[kind] = 0;
        }
        if (!only)
            gc_dbg.none_changed[kind] = 0;
        if (!any) {
            *ret_items = NULL;
            *ret_count = 0;
            *changed = AMD_DBGAPI_CHANGED_NO;
            return AMD_DBGAPI_STATUS_SUCCESS;
        }
    }
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++)
        if (!only || gc_dbg.procs[i] == only)
            n += count(gc_dbg.procs[i]);
    items = gc_dbg_alloc(n * sizeof(uint64_t));
    if (n && !items)
        return AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
    n = 0;
    for (uint32_t i = 0; i < gc_dbg.nprocs; i++) {
        const struct gc_dbg_process *p = gc_dbg.procs[i];

        if ((only && p != only) || !count(p))
            continue; /* (items is NULL when every list is empty) */
        fill(p, items + n);
        n += count(p);
    }
    *ret_items = items;
    *ret_count = n;
    if (changed)
        *changed = AMD_DBGAPI_CHANGED_YES;
    return AMD_DBGAPI_STATUS_SUCCESS;
}
