/* SPDX-License-Identifier: MIT */
/*
 * The runtime side of amdkfd's uapi (Linux include/uapi/linux/kfd_ioctl.h, KFD ioctl 1.17 of
 * Linux 6.12) that the emulator serves, beside the debug side in kfd_uapi.h. Only the calls
 * AMD's thunk makes are here. Sizes are checked at compile time at the end: the ioctl numbers
 * encode them, and the emulator decodes by the number.
 */
#ifndef GC_EMU_UAPI_H
#define GC_EMU_UAPI_H

#include <stdint.h>

#include "kfd_uapi.h"

#define GC_KFD_EMU_MAJOR 1
#define GC_KFD_EMU_MINOR 17

/* _IOC encoding of Linux (x86-64, arm64, riscv: 2 direction bits at 30, 14 size bits at 16). */
#define GC_IOC_NR(cmd) ((unsigned)(cmd) & 0xffu)
#define GC_IOC_TYPE(cmd) (((unsigned)(cmd) >> 8) & 0xffu)
#define GC_IOC_SIZE(cmd) (((unsigned)(cmd) >> 16) & 0x3fffu)
#define GC_IOC_DIR(cmd) (((unsigned)(cmd) >> 30) & 3u)
#define GC_IOC_WRITE 1u /* user to kernel */
#define GC_IOC_READ 2u  /* kernel to user */
#define GC_IOC(dir, type, nr, size) \
    ((unsigned)(((dir) << 30) | ((size) << 16) | ((type) << 8) | (nr)))

/* amdkfd's mmap offset types (kfd_priv.h: bits 62-63 of an offset) */
#define KFD_MMAP_TYPE_EVENTS (2ull << 62)

#define KFD_MAX_QUEUE_PERCENTAGE 100
#define KFD_MAX_QUEUE_PRIORITY 15
#define KFD_MIN_QUEUE_RING_SIZE 1024

struct kfd_ioctl_create_queue_args {
    uint64_t ring_base_address;
    uint64_t write_pointer_address;
    uint64_t read_pointer_address;
    uint64_t doorbell_offset;
    uint32_t ring_size;
    uint32_t gpu_id;
    uint32_t queue_type;
    uint32_t queue_percentage;
    uint32_t queue_priority;
    uint32_t queue_id;
    uint64_t eop_buffer_address;
    uint64_t eop_buffer_size;
    uint64_t ctx_save_restore_address;
    uint32_t ctx_save_restore_size;
    uint32_t ctl_stack_size;
    uint32_t sdma_engine_id;
    uint32_t pad;
};

struct kfd_ioctl_destroy_queue_args {
    uint32_t queue_id;
    uint32_t pad;
};

struct kfd_ioctl_update_queue_args {
    uint64_t ring_base_address;
    uint32_t queue_id;
    uint32_t ring_size;
    uint32_t queue_percentage;
    uint32_t queue_priority;
};

struct kfd_ioctl_set_cu_mask_args {
    uint32_t queue_id;
    uint32_t num_cu_mask;
    uint64_t cu_mask_ptr;
};

struct kfd_ioctl_get_available_memory_args {
    uint64_t available;
    uint32_t gpu_id;
    uint32_t pad;
};

struct kfd_ioctl_set_memory_policy_args {
    uint64_t alternate_aperture_base;
    uint64_t alternate_aperture_size;
    uint32_t gpu_id;
    uint32_t default_policy;
    uint32_t alternate_policy;
    uint32_t pad;
};

struct kfd_ioctl_get_clock_counters_args {
    uint64_t gpu_clock_counter;
    uint64_t cpu_clock_counter;
    uint64_t system_clock_counter;
    uint64_t system_clock_freq;
    uint32_t gpu_id;
    uint32_t pad;
};

struct kfd_process_device_apertures {
    uint64_t lds_base;
    uint64_t lds_limit;
    uint64_t scratch_base;
    uint64_t scratch_limit;
    uint64_t gpuvm_base;
    uint64_t gpuvm_limit;
    uint32_t gpu_id;
    uint32_t pad;
};

#define NUM_OF_SUPPORTED_GPUS 7
struct kfd_ioctl_get_process_apertures_args {
    struct kfd_process_device_apertures process_apertures[NUM_OF_SUPPORTED_GPUS];
    uint32_t num_of_nodes;
    uint32_t pad;
};

struct kfd_ioctl_get_process_apertures_new_args {
    uint64_t kfd_process_device_apertures_ptr;
    uint32_t num_of_nodes;
    uint32_t pad;
};

#define KFD_IOC_EVENT_SIGNAL 0
#define KFD_IOC_EVENT_NODECHANGE 1
#define KFD_IOC_EVENT_DEVICESTATECHANGE 2
#define KFD_IOC_EVENT_HW_EXCEPTION 3
#define KFD_IOC_EVENT_SYSTEM_EVENT 4
#define KFD_IOC_EVENT_DEBUG_EVENT 5
#define KFD_IOC_EVENT_PROFILE_EVENT 6
#define KFD_IOC_EVENT_QUEUE_EVENT 7
#define KFD_IOC_EVENT_MEMORY 8
#define KFD_IOC_WAIT_RESULT_COMPLETE 0
#define KFD_IOC_WAIT_RESULT_TIMEOUT 1
#define KFD_IOC_WAIT_RESULT_FAIL 2
#define KFD_SIGNAL_EVENT_LIMIT 4096

struct kfd_ioctl_create_event_args {
    uint64_t event_page_offset;
    uint32_t event_trigger_data;
    uint32_t event_type;
    uint32_t auto_reset;
    uint32_t node_id;
    uint32_t event_id;
    uint32_t event_slot_index;
};

struct kfd_ioctl_event_id_args { /* destroy, set and reset: one layout */
    uint32_t event_id;
    uint32_t pad;
};

struct kfd_event_data {
    union {
        struct kfd_hsa_memory_exception_data memory_exception_data;
        struct {
            uint32_t reset_type, reset_cause, memory_lost, gpu_id;
        } hw_exception_data;
        struct {
            uint64_t last_event_age;
        } signal_event_data;
    };
    uint64_t kfd_event_data_ext;
    uint32_t event_id;
    uint32_t pad;
};

struct kfd_ioctl_wait_events_args {
    uint64_t events_ptr;
    uint32_t num_events;
    uint32_t wait_for_all;
    uint32_t timeout;
    uint32_t wait_result;
};

struct kfd_ioctl_set_scratch_backing_va_args {
    uint64_t va_addr;
    uint32_t gpu_id;
    uint32_t pad;
};

struct kfd_ioctl_get_tile_config_args {
    uint64_t tile_config_ptr;
    uint64_t macro_tile_config_ptr;
    uint32_t num_tile_configs;
    uint32_t num_macro_tile_configs;
    uint32_t gpu_id;
    uint32_t gb_addr_config;
    uint32_t num_banks;
    uint32_t num_ranks;
};

struct kfd_ioctl_set_trap_handler_args {
    uint64_t tba_addr;
    uint64_t tma_addr;
    uint32_t gpu_id;
    uint32_t pad;
};

struct kfd_ioctl_acquire_vm_args {
    uint32_t drm_fd;
    uint32_t gpu_id;
};

#define KFD_IOC_ALLOC_MEM_FLAGS_VRAM (1u << 0)
#define KFD_IOC_ALLOC_MEM_FLAGS_GTT (1u << 1)
#define KFD_IOC_ALLOC_MEM_FLAGS_USERPTR (1u << 2)
#define KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL (1u << 3)
#define KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP (1u << 4)

struct kfd_ioctl_alloc_memory_of_gpu_args {
    uint64_t va_addr;
    uint64_t size;
    uint64_t handle;
    uint64_t mmap_offset;
    uint32_t gpu_id;
    uint32_t flags;
};

struct kfd_ioctl_free_memory_of_gpu_args {
    uint64_t handle;
};

struct kfd_ioctl_map_memory_to_gpu_args { /* unmap: the same layout */
    uint64_t handle;
    uint64_t device_ids_array_ptr;
    uint32_t n_devices;
    uint32_t n_success;
};

struct kfd_ioctl_alloc_queue_gws_args {
    uint32_t queue_id;
    uint32_t num_gws;
    uint32_t first_gws;
    uint32_t pad;
};

struct kfd_ioctl_smi_events_args {
    uint32_t gpuid;
    uint32_t anon_fd;
};

#define KFD_IOCTL_SVM_FLAG_HOST_ACCESS 0x00000001u
struct kfd_ioctl_set_xnack_mode_args {
    int32_t xnack_enabled;
};

#define KFD_SVM_OP_SET_ATTR 0
#define KFD_SVM_OP_GET_ATTR 1
struct kfd_ioctl_svm_args { /* followed by nattr {u32 type, u32 value} pairs */
    uint64_t start_addr;
    uint64_t size;
    uint32_t op;
    uint32_t nattr;
};

_Static_assert(sizeof(struct kfd_ioctl_create_queue_args) == 96, "create_queue");
_Static_assert(sizeof(struct kfd_ioctl_update_queue_args) == 24, "update_queue");
_Static_assert(sizeof(struct kfd_ioctl_set_cu_mask_args) == 16, "set_cu_mask");
_Static_assert(sizeof(struct kfd_ioctl_set_memory_policy_args) == 32, "set_memory_policy");
_Static_assert(sizeof(struct kfd_ioctl_get_clock_counters_args) == 40, "clock_counters");
_Static_assert(sizeof(struct kfd_process_device_apertures) == 56, "apertures");
_Static_assert(sizeof(struct kfd_ioctl_get_process_apertures_args) == 400, "apertures_old");
_Static_assert(sizeof(struct kfd_ioctl_get_process_apertures_new_args) == 16, "apertures_new");
_Static_assert(sizeof(struct kfd_ioctl_create_event_args) == 32, "create_event");
_Static_assert(sizeof(struct kfd_event_data) == 48, "event_data");
_Static_assert(sizeof(struct kfd_ioctl_wait_events_args) == 24, "wait_events");
_Static_assert(sizeof(struct kfd_ioctl_get_tile_config_args) == 40, "tile_config");
_Static_assert(sizeof(struct kfd_ioctl_set_trap_handler_args) == 24, "trap_handler");
_Static_assert(sizeof(struct kfd_ioctl_alloc_memory_of_gpu_args) == 40, "alloc_memory");
_Static_assert(sizeof(struct kfd_ioctl_map_memory_to_gpu_args) == 24, "map_memory");
_Static_assert(sizeof(struct kfd_ioctl_svm_args) == 24, "svm");

#endif
