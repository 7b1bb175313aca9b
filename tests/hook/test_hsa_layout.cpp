// SPDX-License-Identifier: MIT
//
// schema/gc_hsa_tools.h mirrors the ROCm runtime's tools interface in C. This C++ translation
// unit includes the runtime's own headers (hsa/hsa_api_trace.h, C++) next to the mirror and
// checks at compile time that every mirrored member has the real one's offset and size, and
// every mirrored constant the real value. It compiles only if the mirror is right; running it
// prints one line.
#define AMD_INTERNAL_BUILD 1 // the installed header then includes its siblings by plain name
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>
#include <cstdio>

extern "C" {
#include "gc_hsa_tools.h"
}

#define SAME_MEMBER(mine, theirs, member, their_member)                                            \
    static_assert(offsetof(mine, member) == offsetof(theirs, their_member),                        \
                  #mine "." #member ": offset");                                                   \
    static_assert(sizeof(((mine *)nullptr)->member) == sizeof(((theirs *)nullptr)->their_member),  \
                  #mine "." #member ": size")
#define SAME(mine, theirs, member) SAME_MEMBER(mine, theirs, member, member)

// Status, event and reason values.
static_assert(GC_HSA_STATUS_SUCCESS == HSA_STATUS_SUCCESS, "status");
static_assert(GC_HSA_STATUS_ERROR == HSA_STATUS_ERROR, "status");
static_assert(GC_HSA_STATUS_ERROR_INVALID_ARGUMENT == HSA_STATUS_ERROR_INVALID_ARGUMENT, "status");
static_assert(GC_HSA_STATUS_ERROR_OUT_OF_RESOURCES == HSA_STATUS_ERROR_OUT_OF_RESOURCES, "status");
static_assert(GC_HSA_STATUS_ERROR_EXCEPTION == HSA_STATUS_ERROR_EXCEPTION, "status");
static_assert(GC_HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION ==
                      HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, "status");
static_assert(GC_HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION == HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION,
              "status");
static_assert(GC_HSA_STATUS_ERROR_MEMORY_FAULT == HSA_STATUS_ERROR_MEMORY_FAULT, "status");
static_assert(sizeof(gc_hsa_status_t) == sizeof(hsa_status_t), "hsa_status_t size");
static_assert(GC_HSA_AMD_GPU_MEMORY_FAULT_EVENT == HSA_AMD_GPU_MEMORY_FAULT_EVENT, "event");
static_assert(GC_HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT == HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_READ_ONLY == HSA_AMD_MEMORY_FAULT_READ_ONLY, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_NX == HSA_AMD_MEMORY_FAULT_NX, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_HOST_ONLY == HSA_AMD_MEMORY_FAULT_HOST_ONLY, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_DRAMECC == HSA_AMD_MEMORY_FAULT_DRAMECC, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_IMPRECISE == HSA_AMD_MEMORY_FAULT_IMPRECISE, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_SRAMECC == HSA_AMD_MEMORY_FAULT_SRAMECC, "");
static_assert(GC_HSA_AMD_MEMORY_FAULT_HANG == (uint32_t)HSA_AMD_MEMORY_FAULT_HANG, "");
static_assert(GC_HSA_API_TABLE_MAJOR == HSA_API_TABLE_MAJOR_VERSION &&
                      GC_HSA_API_TABLE_MAJOR == HSA_CORE_API_TABLE_MAJOR_VERSION &&
                      GC_HSA_API_TABLE_MAJOR == HSA_AMD_EXT_API_TABLE_MAJOR_VERSION,
              "table major");

// Handles, queue, events.
static_assert(sizeof(gc_hsa_agent) == sizeof(hsa_agent_t), "agent");
static_assert(sizeof(gc_hsa_signal) == sizeof(hsa_signal_t), "signal");
SAME(gc_hsa_queue, hsa_queue_t, type);
SAME(gc_hsa_queue, hsa_queue_t, features);
SAME(gc_hsa_queue, hsa_queue_t, base_address);
SAME(gc_hsa_queue, hsa_queue_t, doorbell_signal);
SAME(gc_hsa_queue, hsa_queue_t, size);
SAME(gc_hsa_queue, hsa_queue_t, reserved1);
SAME(gc_hsa_queue, hsa_queue_t, id);
static_assert(sizeof(gc_hsa_queue) == sizeof(hsa_queue_t), "hsa_queue_t size");
SAME(gc_hsa_amd_gpu_memory_fault_info, hsa_amd_gpu_memory_fault_info_t, agent);
SAME(gc_hsa_amd_gpu_memory_fault_info, hsa_amd_gpu_memory_fault_info_t, virtual_address);
SAME(gc_hsa_amd_gpu_memory_fault_info, hsa_amd_gpu_memory_fault_info_t, fault_reason_mask);
static_assert(sizeof(gc_hsa_amd_gpu_memory_fault_info) == sizeof(hsa_amd_gpu_memory_fault_info_t),
              "fault info size");
SAME(gc_hsa_amd_event, hsa_amd_event_t, event_type);
SAME(gc_hsa_amd_event, hsa_amd_event_t, memory_fault);
static_assert(sizeof(((hsa_amd_event_t *)nullptr)->event_type) == sizeof(int32_t), "event type");
static_assert(sizeof(gc_hsa_amd_event) <= sizeof(hsa_amd_event_t), "event size");

// Tables.
SAME(gc_hsa_api_table_version, ApiTableVersion, major_id);
SAME(gc_hsa_api_table_version, ApiTableVersion, minor_id);
SAME(gc_hsa_api_table_version, ApiTableVersion, step_id);
SAME(gc_hsa_api_table_version, ApiTableVersion, reserved);
static_assert(sizeof(gc_hsa_api_table_version) == sizeof(ApiTableVersion), "version size");
SAME(gc_hsa_api_table, HsaApiTable, version);
SAME(gc_hsa_api_table, HsaApiTable, core_);
SAME(gc_hsa_api_table, HsaApiTable, amd_ext_);
SAME(gc_hsa_api_table, HsaApiTable, finalizer_ext_);
SAME(gc_hsa_api_table, HsaApiTable, image_ext_);
static_assert(sizeof(gc_hsa_api_table) == sizeof(HsaApiTable), "root size");
SAME(gc_hsa_core_table, CoreApiTable, version);
SAME(gc_hsa_core_table, CoreApiTable, hsa_init_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_shut_down_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_system_get_info_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_system_extension_supported_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_system_get_extension_table_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_iterate_agents_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_agent_get_info_fn);
SAME(gc_hsa_core_table, CoreApiTable, hsa_queue_create_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, version);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_coherency_get_type_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_signal_async_handler_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_queue_cu_set_mask_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_memory_pool_allocate_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_memory_fill_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_pointer_info_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_ipc_signal_attach_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_register_system_event_handler_fn);
SAME(gc_hsa_amd_ext_table, AmdExtTable, hsa_amd_queue_intercept_create_fn);
// The mirrors are prefixes: they end exactly at their last member.
static_assert(sizeof(gc_hsa_core_table) == offsetof(CoreApiTable, hsa_queue_create_fn) +
                                                   sizeof(void *), "core prefix");
static_assert(sizeof(gc_hsa_amd_ext_table) ==
                      offsetof(AmdExtTable, hsa_amd_queue_intercept_create_fn) + sizeof(void *),
              "AMD prefix");

// The function types: assigning the real functions' types to the mirrored pointer types.
static_assert(sizeof(&hsa_queue_create) == sizeof(gc_hsa_queue_create_fn), "fn");

int main()
{
    // Every mirrored slot of the AMD table, one by one (the checks above sample the middle).
#define AMD(m) static_assert(offsetof(gc_hsa_amd_ext_table, m) == offsetof(AmdExtTable, m), #m)
    AMD(hsa_amd_coherency_set_type_fn);
    AMD(hsa_amd_profiling_set_profiler_enabled_fn);
    AMD(hsa_amd_profiling_async_copy_enable_fn);
    AMD(hsa_amd_profiling_get_dispatch_time_fn);
    AMD(hsa_amd_profiling_get_async_copy_time_fn);
    AMD(hsa_amd_profiling_convert_tick_to_system_domain_fn);
    AMD(hsa_amd_async_function_fn);
    AMD(hsa_amd_signal_wait_any_fn);
    AMD(hsa_amd_memory_pool_get_info_fn);
    AMD(hsa_amd_agent_iterate_memory_pools_fn);
    AMD(hsa_amd_memory_pool_free_fn);
    AMD(hsa_amd_memory_async_copy_fn);
    AMD(hsa_amd_agent_memory_pool_get_info_fn);
    AMD(hsa_amd_agents_allow_access_fn);
    AMD(hsa_amd_memory_pool_can_migrate_fn);
    AMD(hsa_amd_memory_migrate_fn);
    AMD(hsa_amd_memory_lock_fn);
    AMD(hsa_amd_memory_unlock_fn);
    AMD(hsa_amd_interop_map_buffer_fn);
    AMD(hsa_amd_interop_unmap_buffer_fn);
    AMD(hsa_amd_image_create_fn);
    AMD(hsa_amd_pointer_info_set_userdata_fn);
    AMD(hsa_amd_ipc_memory_create_fn);
    AMD(hsa_amd_ipc_memory_attach_fn);
    AMD(hsa_amd_ipc_memory_detach_fn);
    AMD(hsa_amd_signal_create_fn);
    AMD(hsa_amd_ipc_signal_create_fn);
    std::printf("gc_hsa_tools.h matches hsa_api_trace.h: core table prefix %zu of %zu bytes, "
                "AMD table prefix %zu of %zu bytes\n",
                sizeof(gc_hsa_core_table), sizeof(CoreApiTable), sizeof(gc_hsa_amd_ext_table),
                sizeof(AmdExtTable));
    return 0;
}
