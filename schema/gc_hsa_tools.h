/* SPDX-License-Identifier: MIT */
/*
 * The ROCm runtime's tools-library interface, mirrored in C: what a library named in
 * HSA_TOOLS_LIB receives from the runtime (ROCr) and may change. The runtime's own header,
 * hsa/hsa_api_trace.h, is C++ (decltype); this header mirrors only the parts gpucore uses
 * (libgpucore-hook.so, capture/hook/; the simulated runtime of gpucore-inferior, kfd/sim/),
 * with the same layout. tests/hook/test_hsa_layout.cpp checks every offset and size below
 * against the real headers (Debian's libhsa-runtime-dev).
 *
 * Loading: the runtime dlopen()s every library of HSA_TOOLS_LIB (space separated) at hsa_init
 * and calls its exported
 *
 *     bool OnLoad(HsaApiTable *table, uint64_t runtime_version,
 *                 uint64_t failed_tool_count, const char *const *failed_tool_names);
 *
 * (false: the tool failed; the runtime unloads it and goes on), and OnUnload() at shutdown.
 * runtime_version is the root table's major_id.
 *
 * Tables: the root table (struct gc_hsa_api_table) points at the core and AMD-extension
 * tables. Every table starts with a struct gc_hsa_api_table_version whose major_id must be
 * GC_HSA_API_TABLE_MAJOR and whose minor_id is the table's size in bytes as the runtime was
 * built (the tables only grow at the end). A tool reads or writes a slot only if the table's
 * minor_id covers it: GC_HSA_TABLE_HAS(table, type, member). A tool intercepts a function by saving
 * the slot's pointer and writing its own; the runtime then calls through the table.
 *
 * Mirrored prefixes: the core table up to and including hsa_queue_create_fn; the AMD
 * extension table up to and including hsa_amd_queue_intercept_create_fn (the other way a
 * queue with an error callback is made). Slots gpucore never calls are plain void pointers,
 * kept for the layout only.
 *
 * Events: hsa_amd_register_system_event_handler(cb, data) appends a handler; on a GPU memory
 * fault the runtime calls every handler with a GC_HSA_AMD_GPU_MEMORY_FAULT_EVENT event, and if
 * ANY returns GC_HSA_STATUS_SUCCESS it neither prints its message nor aborts (the handler owns
 * the error). A queue's error callback (hsa_queue_create's callback) is called with the error
 * status when that queue fails; with no callback the runtime reports nothing.
 *
 * LP64 (x86-64) only, as the runtime. Not installed; no functions.
 */
#ifndef GC_HSA_TOOLS_H
#define GC_HSA_TOOLS_H

#include <stddef.h>
#include <stdint.h>

/* hsa_status_t (hsa.h, hsa_ext_amd.h): a C enum of int size. Only the values gpucore uses. */
typedef int32_t gc_hsa_status_t;
#define GC_HSA_STATUS_SUCCESS                      0x0
#define GC_HSA_STATUS_ERROR                        0x1000
#define GC_HSA_STATUS_ERROR_INVALID_ARGUMENT       0x1001
#define GC_HSA_STATUS_ERROR_OUT_OF_RESOURCES       0x1008
#define GC_HSA_STATUS_ERROR_EXCEPTION              0x1016
#define GC_HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION 41
#define GC_HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION    42
#define GC_HSA_STATUS_ERROR_MEMORY_FAULT           43

/* hsa_agent_t, hsa_signal_t: opaque 64-bit handles. */
struct gc_hsa_agent {
    uint64_t handle;
};
struct gc_hsa_signal {
    uint64_t handle;
};

/* hsa_queue_t (hsa.h, HSA_LARGE_MODEL): 40 bytes. */
struct gc_hsa_queue {
    uint32_t type;
    uint32_t features;
    void *base_address;
    struct gc_hsa_signal doorbell_signal;
    uint32_t size;
    uint32_t reserved1;
    uint64_t id;
};

/* The queue error callback of hsa_queue_create. */
typedef void (*gc_hsa_queue_callback_t)(gc_hsa_status_t status, struct gc_hsa_queue *source,
                                        void *data);

/* hsa_queue_create (and, same arguments, hsa_amd_queue_intercept_create). */
typedef gc_hsa_status_t (*gc_hsa_queue_create_fn)(struct gc_hsa_agent agent, uint32_t size,
                                                  uint32_t type, gc_hsa_queue_callback_t callback,
                                                  void *data, uint32_t private_segment_size,
                                                  uint32_t group_segment_size,
                                                  struct gc_hsa_queue **queue);

/* hsa_amd_event_type_t */
#define GC_HSA_AMD_GPU_MEMORY_FAULT_EVENT 0

/* hsa_amd_memory_fault_reason_t: bits of fault_reason_mask. */
#define GC_HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT (1u << 0)
#define GC_HSA_AMD_MEMORY_FAULT_READ_ONLY        (1u << 1)
#define GC_HSA_AMD_MEMORY_FAULT_NX               (1u << 2)
#define GC_HSA_AMD_MEMORY_FAULT_HOST_ONLY        (1u << 3)
#define GC_HSA_AMD_MEMORY_FAULT_DRAMECC          (1u << 4)
#define GC_HSA_AMD_MEMORY_FAULT_IMPRECISE        (1u << 5)
#define GC_HSA_AMD_MEMORY_FAULT_SRAMECC          (1u << 6)
#define GC_HSA_AMD_MEMORY_FAULT_HANG             (1u << 31)

/* hsa_amd_gpu_memory_fault_info_t: 24 bytes (4 of tail padding). */
struct gc_hsa_amd_gpu_memory_fault_info {
    struct gc_hsa_agent agent;
    uint64_t virtual_address;
    uint32_t fault_reason_mask;
};

/* hsa_amd_event_t: the type, then a union whose only member gpucore reads is memory_fault
   (newer runtimes add members; the handler reads memory_fault only for that type). */
struct gc_hsa_amd_event {
    int32_t event_type; /* hsa_amd_event_type_t */
    struct gc_hsa_amd_gpu_memory_fault_info memory_fault;
};

typedef gc_hsa_status_t (*gc_hsa_amd_system_event_callback_t)(const struct gc_hsa_amd_event *event,
                                                              void *data);
typedef gc_hsa_status_t (*gc_hsa_amd_register_system_event_handler_fn)(
        gc_hsa_amd_system_event_callback_t callback, void *data);

/* ApiTableVersion */
struct gc_hsa_api_table_version {
    uint32_t major_id; /* GC_HSA_API_TABLE_MAJOR */
    uint32_t minor_id; /* the table's size in bytes as built */
    uint32_t step_id;
    uint32_t reserved;
};

/* The major version of every table (HSA_*_API_TABLE_MAJOR_VERSION) of the runtimes of ROCm 5
   (Debian 12's libhsa-runtime-dev), the layout of the structs below. */
#define GC_HSA_API_TABLE_MAJOR 1u

/*
 * The majors of ROCm 6 (ROCr 6.1): the root table is 3 (its first members, version, core_ and
 * amd_ext_, unchanged; tools_ appended), the core table 2 (unchanged up to
 * hsa_queue_create_fn), the AMD extension table 2 (struct gc_hsa_amd_ext_table_v2).
 */
#define GC_HSA_ROOT_TABLE_MAJOR_ROCM6 3u
#define GC_HSA_CORE_TABLE_MAJOR_ROCM6 2u
#define GC_HSA_AMD_EXT_TABLE_MAJOR_ROCM6 2u

/* CoreApiTable, up to hsa_queue_create_fn. */
struct gc_hsa_core_table {
    struct gc_hsa_api_table_version version;
    void *hsa_init_fn;
    void *hsa_shut_down_fn;
    void *hsa_system_get_info_fn;
    void *hsa_system_extension_supported_fn;
    void *hsa_system_get_extension_table_fn;
    void *hsa_iterate_agents_fn;
    void *hsa_agent_get_info_fn;
    gc_hsa_queue_create_fn hsa_queue_create_fn;
};

/* AmdExtTable, up to hsa_amd_queue_intercept_create_fn. */
struct gc_hsa_amd_ext_table {
    struct gc_hsa_api_table_version version;
    void *hsa_amd_coherency_get_type_fn;
    void *hsa_amd_coherency_set_type_fn;
    void *hsa_amd_profiling_set_profiler_enabled_fn;
    void *hsa_amd_profiling_async_copy_enable_fn;
    void *hsa_amd_profiling_get_dispatch_time_fn;
    void *hsa_amd_profiling_get_async_copy_time_fn;
    void *hsa_amd_profiling_convert_tick_to_system_domain_fn;
    void *hsa_amd_signal_async_handler_fn;
    void *hsa_amd_async_function_fn;
    void *hsa_amd_signal_wait_any_fn;
    void *hsa_amd_queue_cu_set_mask_fn;
    void *hsa_amd_memory_pool_get_info_fn;
    void *hsa_amd_agent_iterate_memory_pools_fn;
    void *hsa_amd_memory_pool_allocate_fn;
    void *hsa_amd_memory_pool_free_fn;
    void *hsa_amd_memory_async_copy_fn;
    void *hsa_amd_agent_memory_pool_get_info_fn;
    void *hsa_amd_agents_allow_access_fn;
    void *hsa_amd_memory_pool_can_migrate_fn;
    void *hsa_amd_memory_migrate_fn;
    void *hsa_amd_memory_lock_fn;
    void *hsa_amd_memory_unlock_fn;
    void *hsa_amd_memory_fill_fn;
    void *hsa_amd_interop_map_buffer_fn;
    void *hsa_amd_interop_unmap_buffer_fn;
    void *hsa_amd_image_create_fn;
    void *hsa_amd_pointer_info_fn;
    void *hsa_amd_pointer_info_set_userdata_fn;
    void *hsa_amd_ipc_memory_create_fn;
    void *hsa_amd_ipc_memory_attach_fn;
    void *hsa_amd_ipc_memory_detach_fn;
    void *hsa_amd_signal_create_fn;
    void *hsa_amd_ipc_signal_create_fn;
    void *hsa_amd_ipc_signal_attach_fn;
    gc_hsa_amd_register_system_event_handler_fn hsa_amd_register_system_event_handler_fn;
    gc_hsa_queue_create_fn hsa_amd_queue_intercept_create_fn;
};

/*
 * AmdExtTable of major version 2 (ROCm 6; ROCr 6.1's hsa/hsa_api_trace.h, checked on the
 * emulator by tests/kfdemu/gpucore/hook-*.case): two slots were inserted after
 * hsa_amd_memory_async_copy_fn (hsa_amd_memory_async_copy_on_engine_fn and
 * hsa_amd_memory_copy_engine_status_fn), which is why the major changed: every later slot,
 * the system-event handler's and intercept_create's included, is 16 bytes further on.
 */
struct gc_hsa_amd_ext_table_v2 {
    struct gc_hsa_api_table_version version;
    void *slots_before_async_copy_on_engine[16]; /* coherency_get_type .. memory_async_copy */
    void *hsa_amd_memory_async_copy_on_engine_fn;
    void *hsa_amd_memory_copy_engine_status_fn;
    void *slots_after_copy_engine_status[18]; /* agent_memory_pool_get_info .. ipc_signal_attach */
    gc_hsa_amd_register_system_event_handler_fn hsa_amd_register_system_event_handler_fn;
    gc_hsa_queue_create_fn hsa_amd_queue_intercept_create_fn;
};
#ifndef __cplusplus
_Static_assert(offsetof(struct gc_hsa_amd_ext_table_v2, hsa_amd_register_system_event_handler_fn) ==
                       offsetof(struct gc_hsa_amd_ext_table,
                                hsa_amd_register_system_event_handler_fn) + 2 * sizeof(void *),
               "AmdExtTable 2 has two more slots before the system-event handler's");
#endif

/* HsaApiTable: the root. The finalizer and image tables are not used. */
struct gc_hsa_api_table {
    struct gc_hsa_api_table_version version;
    struct gc_hsa_core_table *core_;
    struct gc_hsa_amd_ext_table *amd_ext_;
    void *finalizer_ext_;
    void *image_ext_;
};

/* OnLoad / OnUnload, as the runtime calls them (C's _Bool is C++'s bool: one byte). */
#ifdef __cplusplus
typedef bool gc_hsa_bool;
#else
typedef _Bool gc_hsa_bool;
#endif
typedef gc_hsa_bool (*gc_hsa_tool_onload_fn)(struct gc_hsa_api_table *table, uint64_t runtime_version,
                                       uint64_t failed_tool_count,
                                       const char *const *failed_tool_names);
typedef void (*gc_hsa_tool_onunload_fn)(void);

/*
 * Does @p table (a pointer to a struct @p type above) as the runtime built it hold @p member?
 * Its major must be GC_HSA_API_TABLE_MAJOR and its minor_id (size) must reach the member's end.
 */
#define GC_HSA_TABLE_HAS(table, type, member)                                                      \
    ((table) != NULL && (table)->version.major_id == GC_HSA_API_TABLE_MAJOR &&                     \
     (table)->version.minor_id >= offsetof(type, member) + sizeof((table)->member))

#endif /* GC_HSA_TOOLS_H */
