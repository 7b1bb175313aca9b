/* SPDX-License-Identifier: MIT */
/*
 * gpucore's own copy of the KFD debug uapi (Linux include/uapi/linux/kfd_ioctl.h, KFD ioctl
 * 1.13 .. 1.18), limited to what a debugger that captures cores uses. Distribution headers
 * often predate the debug API (conventions G-KFD-3), so we never include the system copy.
 * Layouts and values: docs/kfd-debug-interface.md. Every struct's size and field
 * offsets are checked at compile time below.
 */
#ifndef GC_KFD_UAPI_H
#define GC_KFD_UAPI_H

#include <stddef.h>
#include <stdint.h>

/* ioctl numbers (magic 'K'), as _IOR/_IOWR compute them on Linux. */
#define GC_AMDKFD_IOCTL_BASE 'K'
#define AMDKFD_IOC_GET_VERSION 0x80084B01ul
#define AMDKFD_IOC_GET_QUEUE_WAVE_STATE 0xC0184B1Bul
#define AMDKFD_IOC_RUNTIME_ENABLE 0xC0104B25ul
#define AMDKFD_IOC_DBG_TRAP 0xC0204B26ul

struct kfd_ioctl_get_version_args {
    uint32_t major_version;
    uint32_t minor_version;
};

/* Runtime enable */
#define KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK 1u
#define KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK 2u
#define KFD_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK 0x80000000u

struct kfd_ioctl_runtime_enable_args {
    uint64_t r_debug;
    uint32_t mode_mask;
    uint32_t capabilities_mask;
};

enum kfd_dbg_runtime_state {
    DEBUG_RUNTIME_STATE_DISABLED = 0,
    DEBUG_RUNTIME_STATE_ENABLED = 1,
    DEBUG_RUNTIME_STATE_ENABLED_BUSY = 2,
    DEBUG_RUNTIME_STATE_ENABLED_ERROR = 3,
};

struct kfd_runtime_info {
    uint64_t r_debug;
    uint32_t runtime_state;
    uint32_t ttmp_setup;
};

/* Exception codes and masks */
enum kfd_dbg_trap_exception_code {
    EC_NONE = 0,
    EC_QUEUE_WAVE_ABORT = 1,
    EC_QUEUE_WAVE_TRAP = 2,
    EC_QUEUE_WAVE_MATH_ERROR = 3,
    EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION = 4,
    EC_QUEUE_WAVE_MEMORY_VIOLATION = 5,
    EC_QUEUE_WAVE_APERTURE_VIOLATION = 6,
    EC_QUEUE_PACKET_DISPATCH_DIM_INVALID = 16,
    EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID = 17,
    EC_QUEUE_PACKET_DISPATCH_CODE_INVALID = 18,
    EC_QUEUE_PACKET_RESERVED = 19,
    EC_QUEUE_PACKET_UNSUPPORTED = 20,
    EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID = 21,
    EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID = 22,
    EC_QUEUE_PACKET_VENDOR_UNSUPPORTED = 23,
    EC_QUEUE_PREEMPTION_ERROR = 30,
    EC_QUEUE_NEW = 31,
    EC_DEVICE_QUEUE_DELETE = 32,
    EC_DEVICE_MEMORY_VIOLATION = 33,
    EC_DEVICE_RAS_ERROR = 34,
    EC_DEVICE_FATAL_HALT = 35,
    EC_DEVICE_NEW = 36,
    EC_PROCESS_RUNTIME = 48,
    EC_PROCESS_DEVICE_REMOVE = 49,
    EC_MAX = 50,
};

#define KFD_EC_MASK(ecode) (1ull << ((ecode) - 1))
#define KFD_EC_MASK_QUEUE 0x607F803Full /* upstream value (includes PACKET_RESERVED) */
#define KFD_EC_MASK_DEVICE 0xF80000000ull
#define KFD_EC_MASK_PROCESS 0x1800000000000ull

#define KFD_DBG_QUEUE_ERROR_BIT 30
#define KFD_DBG_QUEUE_INVALID_BIT 31
#define KFD_DBG_QUEUE_ERROR_MASK (1u << KFD_DBG_QUEUE_ERROR_BIT)
#define KFD_DBG_QUEUE_INVALID_MASK (1u << KFD_DBG_QUEUE_INVALID_BIT)
#define KFD_INVALID_GPUID 0xffffffffu
#define KFD_INVALID_QUEUEID 0xffffffffu
#define KFD_INVALID_FD 0xffffffffu

/* Queue types */
#define KFD_IOC_QUEUE_TYPE_COMPUTE 0x0u
#define KFD_IOC_QUEUE_TYPE_SDMA 0x1u
#define KFD_IOC_QUEUE_TYPE_COMPUTE_AQL 0x2u
#define KFD_IOC_QUEUE_TYPE_SDMA_XGMI 0x3u
#define KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID 0x4u

/* Wave launch */
enum kfd_dbg_trap_wave_launch_mode {
    KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL = 0,
    KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT = 1,
    KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG = 3,
};

#define KFD_DBG_TRAP_FLAG_SINGLE_MEM_OP 1u

/* Device snapshot entry (120 bytes) */
struct kfd_dbg_device_info_entry {
    uint64_t exception_status;
    uint64_t lds_base;
    uint64_t lds_limit;
    uint64_t scratch_base;
    uint64_t scratch_limit;
    uint64_t gpuvm_base;
    uint64_t gpuvm_limit;
    uint32_t gpu_id;
    uint32_t location_id;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t revision_id;
    uint32_t subsystem_vendor_id;
    uint32_t subsystem_device_id;
    uint32_t fw_version;
    uint32_t gfx_target_version;
    uint32_t simd_count;
    uint32_t max_waves_per_simd;
    uint32_t array_count;
    uint32_t simd_arrays_per_engine;
    uint32_t num_xcc;
    uint32_t capability;
    uint32_t debug_prop;
};

/* Queue snapshot entry (64 bytes) */
struct kfd_queue_snapshot_entry {
    uint64_t exception_status;
    uint64_t ring_base_address;
    uint64_t write_pointer_address;
    uint64_t read_pointer_address;
    uint64_t ctx_save_restore_address;
    uint32_t queue_id;
    uint32_t gpu_id;
    uint32_t ring_size;
    uint32_t queue_type;
    uint32_t ctx_save_restore_area_size;
    uint32_t reserved;
};

/* Context save area header (40 bytes at each XCC's CWSR base) */
struct kfd_context_save_area_header {
    struct {
        uint32_t control_stack_offset;
        uint32_t control_stack_size;
        uint32_t wave_state_offset;
        uint32_t wave_state_size;
    } wave_state;
    uint32_t debug_offset;
    uint32_t debug_size;
    uint64_t err_payload_addr;
    uint32_t err_event_id;
    uint32_t reserved1;
};

/* DBG_TRAP operations */
enum kfd_dbg_trap_operations {
    KFD_IOC_DBG_TRAP_ENABLE = 0,
    KFD_IOC_DBG_TRAP_DISABLE = 1,
    KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT = 2,
    KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED = 3,
    KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE = 4,
    KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE = 5,
    KFD_IOC_DBG_TRAP_SUSPEND_QUEUES = 6,
    KFD_IOC_DBG_TRAP_RESUME_QUEUES = 7,
    KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH = 8,
    KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH = 9,
    KFD_IOC_DBG_TRAP_SET_FLAGS = 10,
    KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT = 11,
    KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO = 12,
    KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT = 13,
    KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT = 14,
};

struct kfd_ioctl_dbg_trap_enable_args {
    uint64_t exception_mask;
    uint64_t rinfo_ptr;
    uint32_t rinfo_size;
    uint32_t dbg_fd;
};

struct kfd_ioctl_dbg_trap_send_runtime_event_args {
    uint64_t exception_mask;
    uint32_t gpu_id;
    uint32_t queue_id;
};

struct kfd_ioctl_dbg_trap_set_exceptions_enabled_args {
    uint64_t exception_mask;
};

struct kfd_ioctl_dbg_trap_set_wave_launch_override_args {
    uint32_t override_mode;
    uint32_t enable_mask;
    uint32_t support_request_mask;
    uint32_t pad;
};

struct kfd_ioctl_dbg_trap_set_wave_launch_mode_args {
    uint32_t launch_mode;
    uint32_t pad;
};

struct kfd_ioctl_dbg_trap_suspend_queues_args {
    uint64_t exception_mask;
    uint64_t queue_array_ptr;
    uint32_t num_queues;
    uint32_t grace_period;
};

struct kfd_ioctl_dbg_trap_resume_queues_args {
    uint64_t queue_array_ptr;
    uint32_t num_queues;
    uint32_t pad;
};

struct kfd_ioctl_dbg_trap_set_node_address_watch_args {
    uint64_t address;
    uint32_t mode;
    uint32_t mask;
    uint32_t gpu_id;
    uint32_t id;
};

struct kfd_ioctl_dbg_trap_clear_node_address_watch_args {
    uint32_t gpu_id;
    uint32_t id;
};

struct kfd_ioctl_dbg_trap_set_flags_args {
    uint32_t flags;
    uint32_t pad;
};

struct kfd_ioctl_dbg_trap_query_debug_event_args {
    uint64_t exception_mask;
    uint32_t gpu_id;
    uint32_t queue_id;
};

/* QUERY_EXCEPTION_INFO's record for EC_DEVICE_MEMORY_VIOLATION (and a MEMORY event's data in
   the runtime's wait_events): the fault. */
struct kfd_memory_exception_failure {
    uint32_t NotPresent;
    uint32_t ReadOnly;
    uint32_t NoExecute;
    uint32_t imprecise;
};

struct kfd_hsa_memory_exception_data {
    struct kfd_memory_exception_failure failure;
    uint64_t va;
    uint32_t gpu_id;
    uint32_t ErrorType;
};

struct kfd_ioctl_dbg_trap_query_exception_info_args {
    uint64_t info_ptr;
    uint32_t info_size;
    uint32_t source_id;
    uint32_t exception_code;
    uint32_t clear_exception;
};

struct kfd_ioctl_dbg_trap_queue_snapshot_args {
    uint64_t exception_mask;
    uint64_t snapshot_buf_ptr;
    uint32_t num_queues;
    uint32_t entry_size;
};

struct kfd_ioctl_dbg_trap_device_snapshot_args {
    uint64_t exception_mask;
    uint64_t snapshot_buf_ptr;
    uint32_t num_devices;
    uint32_t entry_size;
};

struct kfd_ioctl_dbg_trap_args {
    uint32_t pid;
    uint32_t op;
    union {
        struct kfd_ioctl_dbg_trap_enable_args enable;
        struct kfd_ioctl_dbg_trap_send_runtime_event_args send_runtime_event;
        struct kfd_ioctl_dbg_trap_set_exceptions_enabled_args set_exceptions_enabled;
        struct kfd_ioctl_dbg_trap_set_wave_launch_override_args launch_override;
        struct kfd_ioctl_dbg_trap_set_wave_launch_mode_args launch_mode;
        struct kfd_ioctl_dbg_trap_suspend_queues_args suspend_queues;
        struct kfd_ioctl_dbg_trap_resume_queues_args resume_queues;
        struct kfd_ioctl_dbg_trap_set_node_address_watch_args set_node_address_watch;
        struct kfd_ioctl_dbg_trap_clear_node_address_watch_args clear_node_address_watch;
        struct kfd_ioctl_dbg_trap_set_flags_args set_flags;
        struct kfd_ioctl_dbg_trap_query_debug_event_args query_debug_event;
        struct kfd_ioctl_dbg_trap_query_exception_info_args query_exception_info;
        struct kfd_ioctl_dbg_trap_queue_snapshot_args queue_snapshot;
        struct kfd_ioctl_dbg_trap_device_snapshot_args device_snapshot;
    };
};

/* Every field of every struct, at the offset docs/kfd-debug-interface.md gives (offsets of the
   DBG_TRAP union members are from the start of the ioctl argument); a mistake here would be an
   ABI break with the kernel. */
#define GC_UAPI_CHECK(type, size) _Static_assert(sizeof(struct type) == (size), #type " size")
#define GC_UAPI_OFF(type, field, off)                                                              \
    _Static_assert(offsetof(struct type, field) == (off), #type "." #field " offset")

GC_UAPI_CHECK(kfd_ioctl_get_version_args, 8);
GC_UAPI_OFF(kfd_ioctl_get_version_args, minor_version, 4);
GC_UAPI_CHECK(kfd_ioctl_runtime_enable_args, 16);
GC_UAPI_OFF(kfd_ioctl_runtime_enable_args, mode_mask, 8);
GC_UAPI_OFF(kfd_ioctl_runtime_enable_args, capabilities_mask, 12);
GC_UAPI_CHECK(kfd_runtime_info, 16);
GC_UAPI_OFF(kfd_runtime_info, runtime_state, 8);
GC_UAPI_OFF(kfd_runtime_info, ttmp_setup, 12);
GC_UAPI_CHECK(kfd_dbg_device_info_entry, 120);
GC_UAPI_OFF(kfd_dbg_device_info_entry, exception_status, 0);
GC_UAPI_OFF(kfd_dbg_device_info_entry, lds_base, 8);
GC_UAPI_OFF(kfd_dbg_device_info_entry, lds_limit, 16);
GC_UAPI_OFF(kfd_dbg_device_info_entry, scratch_base, 24);
GC_UAPI_OFF(kfd_dbg_device_info_entry, scratch_limit, 32);
GC_UAPI_OFF(kfd_dbg_device_info_entry, gpuvm_base, 40);
GC_UAPI_OFF(kfd_dbg_device_info_entry, gpuvm_limit, 48);
GC_UAPI_OFF(kfd_dbg_device_info_entry, gpu_id, 56);
GC_UAPI_OFF(kfd_dbg_device_info_entry, location_id, 60);
GC_UAPI_OFF(kfd_dbg_device_info_entry, vendor_id, 64);
GC_UAPI_OFF(kfd_dbg_device_info_entry, device_id, 68);
GC_UAPI_OFF(kfd_dbg_device_info_entry, revision_id, 72);
GC_UAPI_OFF(kfd_dbg_device_info_entry, subsystem_vendor_id, 76);
GC_UAPI_OFF(kfd_dbg_device_info_entry, subsystem_device_id, 80);
GC_UAPI_OFF(kfd_dbg_device_info_entry, fw_version, 84);
GC_UAPI_OFF(kfd_dbg_device_info_entry, gfx_target_version, 88);
GC_UAPI_OFF(kfd_dbg_device_info_entry, simd_count, 92);
GC_UAPI_OFF(kfd_dbg_device_info_entry, max_waves_per_simd, 96);
GC_UAPI_OFF(kfd_dbg_device_info_entry, array_count, 100);
GC_UAPI_OFF(kfd_dbg_device_info_entry, simd_arrays_per_engine, 104);
GC_UAPI_OFF(kfd_dbg_device_info_entry, num_xcc, 108);
GC_UAPI_OFF(kfd_dbg_device_info_entry, capability, 112);
GC_UAPI_OFF(kfd_dbg_device_info_entry, debug_prop, 116);
GC_UAPI_CHECK(kfd_queue_snapshot_entry, 64);
GC_UAPI_OFF(kfd_queue_snapshot_entry, exception_status, 0);
GC_UAPI_OFF(kfd_queue_snapshot_entry, ring_base_address, 8);
GC_UAPI_OFF(kfd_queue_snapshot_entry, write_pointer_address, 16);
GC_UAPI_OFF(kfd_queue_snapshot_entry, read_pointer_address, 24);
GC_UAPI_OFF(kfd_queue_snapshot_entry, ctx_save_restore_address, 32);
GC_UAPI_OFF(kfd_queue_snapshot_entry, queue_id, 40);
GC_UAPI_OFF(kfd_queue_snapshot_entry, gpu_id, 44);
GC_UAPI_OFF(kfd_queue_snapshot_entry, ring_size, 48);
GC_UAPI_OFF(kfd_queue_snapshot_entry, queue_type, 52);
GC_UAPI_OFF(kfd_queue_snapshot_entry, ctx_save_restore_area_size, 56);
GC_UAPI_OFF(kfd_queue_snapshot_entry, reserved, 60);
GC_UAPI_CHECK(kfd_hsa_memory_exception_data, 32);
GC_UAPI_OFF(kfd_hsa_memory_exception_data, failure.ReadOnly, 4);
GC_UAPI_OFF(kfd_hsa_memory_exception_data, failure.imprecise, 12);
GC_UAPI_OFF(kfd_hsa_memory_exception_data, va, 16);
GC_UAPI_OFF(kfd_hsa_memory_exception_data, gpu_id, 24);
GC_UAPI_OFF(kfd_hsa_memory_exception_data, ErrorType, 28);
GC_UAPI_CHECK(kfd_context_save_area_header, 40);
GC_UAPI_OFF(kfd_context_save_area_header, wave_state.control_stack_offset, 0);
GC_UAPI_OFF(kfd_context_save_area_header, wave_state.control_stack_size, 4);
GC_UAPI_OFF(kfd_context_save_area_header, wave_state.wave_state_offset, 8);
GC_UAPI_OFF(kfd_context_save_area_header, wave_state.wave_state_size, 12);
GC_UAPI_OFF(kfd_context_save_area_header, debug_offset, 16);
GC_UAPI_OFF(kfd_context_save_area_header, debug_size, 20);
GC_UAPI_OFF(kfd_context_save_area_header, err_payload_addr, 24);
GC_UAPI_OFF(kfd_context_save_area_header, err_event_id, 32);
GC_UAPI_OFF(kfd_context_save_area_header, reserved1, 36);
GC_UAPI_CHECK(kfd_ioctl_dbg_trap_args, 32);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, op, 4);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, enable.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, enable.rinfo_ptr, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, enable.rinfo_size, 24);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, enable.dbg_fd, 28);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, send_runtime_event.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, send_runtime_event.gpu_id, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, send_runtime_event.queue_id, 20);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_exceptions_enabled.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, launch_override.override_mode, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, launch_override.enable_mask, 12);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, launch_override.support_request_mask, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, launch_override.pad, 20);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, launch_mode.launch_mode, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, launch_mode.pad, 12);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, suspend_queues.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, suspend_queues.queue_array_ptr, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, suspend_queues.num_queues, 24);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, suspend_queues.grace_period, 28);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, resume_queues.queue_array_ptr, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, resume_queues.num_queues, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, resume_queues.pad, 20);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_node_address_watch.address, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_node_address_watch.mode, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_node_address_watch.mask, 20);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_node_address_watch.gpu_id, 24);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_node_address_watch.id, 28);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, clear_node_address_watch.gpu_id, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, clear_node_address_watch.id, 12);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_flags.flags, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, set_flags.pad, 12);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_debug_event.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_debug_event.gpu_id, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_debug_event.queue_id, 20);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_exception_info.info_ptr, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_exception_info.info_size, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_exception_info.source_id, 20);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_exception_info.exception_code, 24);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, query_exception_info.clear_exception, 28);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, queue_snapshot.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, queue_snapshot.snapshot_buf_ptr, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, queue_snapshot.num_queues, 24);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, queue_snapshot.entry_size, 28);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, device_snapshot.exception_mask, 8);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, device_snapshot.snapshot_buf_ptr, 16);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, device_snapshot.num_devices, 24);
GC_UAPI_OFF(kfd_ioctl_dbg_trap_args, device_snapshot.entry_size, 28);

#endif /* GC_KFD_UAPI_H */
