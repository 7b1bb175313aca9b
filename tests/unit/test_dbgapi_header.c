/* SPDX-License-Identifier: MIT */
/*
 * ABI checks of dbgapi/include/amd-dbgapi/amd-dbgapi.h against the facts of amd-dbgapi
 * 0.77 (AMD's amd-dbgapi.h and the measured answers of its library): enumerator values,
 * structure sizes and member offsets (LP64), callback member order and types, every function's
 * exact signature, the version macros, and the agreement of the header with abi_table.def.
 *
 * Layout and signature facts are checked at compile time (_Static_assert, _Generic), so a
 * header change that breaks the ABI does not build; the same facts are checked again at run
 * time so a failure names the item. The symbol-version node of each function (a tag that
 * expands to nothing) is checked by tests/abi/check_dbgapi_abi.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amd-dbgapi/amd-dbgapi.h>

/* ---- version macros ---------------------------------------------------------------------- */

#if AMD_DBGAPI_VERSION_MAJOR != 0 || AMD_DBGAPI_VERSION_MINOR != 77 || AMD_DBGAPI_VERSION_PATCH != 0
#error "amd-dbgapi.h must describe interface version 0.77.0"
#endif

/* The ten node tags of 0.77 exist (they expand to nothing) and no newer one does. */
#if !defined(AMD_DBGAPI_VERSION_0_54) || !defined(AMD_DBGAPI_VERSION_0_56) ||                      \
    !defined(AMD_DBGAPI_VERSION_0_58) || !defined(AMD_DBGAPI_VERSION_0_62) ||                      \
    !defined(AMD_DBGAPI_VERSION_0_64) || !defined(AMD_DBGAPI_VERSION_0_67) ||                      \
    !defined(AMD_DBGAPI_VERSION_0_68) || !defined(AMD_DBGAPI_VERSION_0_70) ||                      \
    !defined(AMD_DBGAPI_VERSION_0_76) || !defined(AMD_DBGAPI_VERSION_0_77)
#error "a symbol-version tag of 0.77 is missing"
#endif
#if defined(AMD_DBGAPI_VERSION_0_78) || defined(AMD_DBGAPI_VERSION_0_79) ||                        \
    defined(AMD_DBGAPI_VERSION_0_80) || defined(AMD_DBGAPI_VERSION_0_81)
#error "amd-dbgapi.h declares a node newer than 0.77"
#endif

/* Names added after 0.77 (§6, §7.1) must not exist in the 0.77 header: redeclaring an
 * enumerator, or a function's name as an object, in the same scope does not compile. */
enum gc_post_077_names
{
  AMD_DBGAPI_STATUS_ERROR_MEMORY_UNAVAILABLE,
  AMD_DBGAPI_STATUS_ERROR_INVALID_CLUSTER_ID,
  AMD_DBGAPI_PROCESS_INFO_SIGNIFICANT_ADDRESS_BITS,
  AMD_DBGAPI_WORKGROUP_INFO_CLUSTER,
  AMD_DBGAPI_WAVE_INFO_CLUSTER,
  AMD_DBGAPI_DISPATCH_INFO_CLUSTER_MODE,
  AMD_DBGAPI_ARCHITECTURE_INFO_CLUSTERS_SUPPORTED
};
extern int amd_dbgapi_cluster_get_info;

/* ---- abi_table.def agrees with the header ------------------------------------------------ */

/* Every row names a function the header declares (sizeof does not evaluate: no link needed). */
#define GC_DBGAPI_ABI_FN(name, ver)                                                                \
  _Static_assert(sizeof(&name) == sizeof(void (*)(void)), #name " is not declared");
#include "abi_table.def"

/* 67 functions in 10 nodes (§7). */
enum
{
  GC_ABI_FN_COUNT = 0
#define GC_DBGAPI_ABI_FN(name, ver) +1
#include "abi_table.def"
  ,
  GC_ABI_NODE_COUNT = 0
#define GC_DBGAPI_ABI_NODE(ver) +1
#include "abi_table.def"
};
_Static_assert(GC_ABI_FN_COUNT == 67, "amd-dbgapi 0.77 exports exactly 67 functions");
_Static_assert(GC_ABI_NODE_COUNT == 10, "amd-dbgapi 0.77 defines 10 version nodes");

/* Every table row's node is one of the declared nodes (the tag macro exists). */
#define GC_DBGAPI_ABI_FN(name, ver) AMD_DBGAPI_VERSION_##ver
#include "abi_table.def"

/* ---- structure layouts (LP64) -------------------------------------------------------------- */

#define HANDLE_TYPES(X)                                                                            \
  X(amd_dbgapi_architecture_id_t)                                                                  \
  X(amd_dbgapi_process_id_t)                                                                       \
  X(amd_dbgapi_code_object_id_t)                                                                   \
  X(amd_dbgapi_agent_id_t)                                                                         \
  X(amd_dbgapi_queue_id_t)                                                                         \
  X(amd_dbgapi_dispatch_id_t)                                                                      \
  X(amd_dbgapi_workgroup_id_t)                                                                     \
  X(amd_dbgapi_wave_id_t)                                                                          \
  X(amd_dbgapi_displaced_stepping_id_t)                                                            \
  X(amd_dbgapi_watchpoint_id_t)                                                                    \
  X(amd_dbgapi_register_class_id_t)                                                                \
  X(amd_dbgapi_register_id_t)                                                                      \
  X(amd_dbgapi_address_class_id_t)                                                                 \
  X(amd_dbgapi_address_space_id_t)                                                                 \
  X(amd_dbgapi_event_id_t)                                                                         \
  X(amd_dbgapi_breakpoint_id_t)

/* A handle is { uint64_t handle; }: 8 bytes, member at 0. */
#define HANDLE_ASSERT(T)                                                                           \
  _Static_assert(sizeof(T) == 8 && offsetof(T, handle) == 0, #T " is not { uint64_t handle; }"); \
  _Static_assert(_Generic(((T *)0)->handle, uint64_t: 1, default: 0), #T ".handle type");
HANDLE_TYPES(HANDLE_ASSERT)

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "these layout checks assume LP64");

/* One row per member: struct, member, offset, size. */
struct layout_row
{
  const char *what;
  size_t got_offset, want_offset, got_size, want_size;
};

#define MEMBER(S, m, off, sz)                                                                      \
  {#S "." #m, offsetof(S, m), (off), sizeof(((S *)0)->m), (sz)},
#define MEMBER_ASSERT(S, m, off, sz)                                                               \
  _Static_assert(offsetof(S, m) == (off) && sizeof(((S *)0)->m) == (sz), #S "." #m " layout");

#define LAYOUT_MEMBERS(X)                                                                          \
  X(amd_dbgapi_core_state_data_t, endianness, 0, 4)                                                \
  X(amd_dbgapi_core_state_data_t, size, 8, 8)                                                      \
  X(amd_dbgapi_core_state_data_t, data, 16, 8)                                                     \
  X(amd_dbgapi_watchpoint_list_t, count, 0, 8)                                                     \
  X(amd_dbgapi_watchpoint_list_t, watchpoint_ids, 8, 8)                                            \
  X(amd_dbgapi_direct_call_register_pair_information_t, target_address, 0, 8)                      \
  X(amd_dbgapi_direct_call_register_pair_information_t, saved_return_address_register, 8, 16)      \
  X(amd_dbgapi_callbacks_t, allocate_memory, 0, 8)                                                 \
  X(amd_dbgapi_callbacks_t, deallocate_memory, 8, 8)                                               \
  X(amd_dbgapi_callbacks_t, client_process_get_info, 16, 8)                                        \
  X(amd_dbgapi_callbacks_t, insert_breakpoint, 24, 8)                                              \
  X(amd_dbgapi_callbacks_t, remove_breakpoint, 32, 8)                                              \
  X(amd_dbgapi_callbacks_t, xfer_global_memory, 40, 8)                                             \
  X(amd_dbgapi_callbacks_t, log_message, 48, 8)
LAYOUT_MEMBERS(MEMBER_ASSERT)

#define STRUCT_SIZES(X)                                                                            \
  X(amd_dbgapi_core_state_data_t, 24)                                                              \
  X(amd_dbgapi_watchpoint_list_t, 16)                                                              \
  X(amd_dbgapi_direct_call_register_pair_information_t, 24)                                       \
  X(amd_dbgapi_callbacks_t, 56)
#define SIZE_ASSERT(S, sz) _Static_assert(sizeof(S) == (sz), #S " size");
STRUCT_SIZES(SIZE_ASSERT)

/* Member types of the structures (an ABI break would change them). */
_Static_assert(_Generic(((amd_dbgapi_core_state_data_t *)0)->endianness,
                        amd_dbgapi_endianness_t: 1, default: 0), "core_state.endianness");
_Static_assert(_Generic(((amd_dbgapi_core_state_data_t *)0)->size, size_t: 1, default: 0),
               "core_state.size");
_Static_assert(_Generic(((amd_dbgapi_core_state_data_t *)0)->data, const void *: 1, default: 0),
               "core_state.data");
_Static_assert(_Generic(((amd_dbgapi_watchpoint_list_t *)0)->watchpoint_ids,
                        amd_dbgapi_watchpoint_id_t *: 1, default: 0), "watchpoint_list.ids");

/* Callback member types, in slot order (§2). */
#define CB_TYPE(m, ...)                                                                            \
  _Static_assert(_Generic(((amd_dbgapi_callbacks_t *)0)->m, __VA_ARGS__: 1, default: 0),           \
                 "callback " #m " type");
CB_TYPE(allocate_memory, void *(*)(size_t))
CB_TYPE(deallocate_memory, void (*)(void *))
CB_TYPE(client_process_get_info,
        amd_dbgapi_status_t (*)(amd_dbgapi_client_process_id_t, amd_dbgapi_client_process_info_t,
                                size_t, void *))
CB_TYPE(insert_breakpoint,
        amd_dbgapi_status_t (*)(amd_dbgapi_client_process_id_t, amd_dbgapi_global_address_t,
                                amd_dbgapi_breakpoint_id_t))
CB_TYPE(remove_breakpoint,
        amd_dbgapi_status_t (*)(amd_dbgapi_client_process_id_t, amd_dbgapi_breakpoint_id_t))
CB_TYPE(xfer_global_memory,
        amd_dbgapi_status_t (*)(amd_dbgapi_client_process_id_t, amd_dbgapi_global_address_t,
                                amd_dbgapi_size_t *, void *, const void *))
CB_TYPE(log_message, void (*)(amd_dbgapi_log_level_t, const char *))

/* Scalar typedefs. */
_Static_assert(_Generic((amd_dbgapi_global_address_t)0, uint64_t: 1, default: 0), "global addr");
_Static_assert(_Generic((amd_dbgapi_size_t)0, uint64_t: 1, default: 0), "size_t");
_Static_assert(_Generic((amd_dbgapi_segment_address_t)0, uint64_t: 1, default: 0), "segment");
_Static_assert(_Generic((amd_dbgapi_lane_id_t)0, uint32_t: 1, default: 0), "lane id");
_Static_assert(_Generic((amd_dbgapi_os_agent_id_t)0, uint64_t: 1, default: 0), "os agent id");
_Static_assert(_Generic((amd_dbgapi_os_queue_id_t)0, uint64_t: 1, default: 0), "os queue id");
_Static_assert(_Generic((amd_dbgapi_os_queue_packet_id_t)0, uint64_t: 1, default: 0), "packet");
_Static_assert(_Generic((amd_dbgapi_os_process_id_t)0, pid_t: 1, default: 0), "os pid");
_Static_assert(_Generic((amd_dbgapi_notifier_t)0, int: 1, default: 0), "notifier");

/* Every enumeration is 4 bytes (the ABI requires int-sized enums). */
#define ENUM_TYPES(X)                                                                              \
  X(amd_dbgapi_changed_t)                                                                          \
  X(amd_dbgapi_os_queue_type_t)                                                                    \
  X(amd_dbgapi_status_t)                                                                           \
  X(amd_dbgapi_architecture_info_t)                                                                \
  X(amd_dbgapi_instruction_kind_t)                                                                 \
  X(amd_dbgapi_instruction_properties_t)                                                           \
  X(amd_dbgapi_endianness_t)                                                                       \
  X(amd_dbgapi_process_info_t)                                                                     \
  X(amd_dbgapi_progress_t)                                                                         \
  X(amd_dbgapi_wave_creation_t)                                                                    \
  X(amd_dbgapi_code_object_info_t)                                                                 \
  X(amd_dbgapi_agent_info_t)                                                                       \
  X(amd_dbgapi_agent_state_t)                                                                      \
  X(amd_dbgapi_queue_info_t)                                                                       \
  X(amd_dbgapi_queue_state_t)                                                                      \
  X(amd_dbgapi_exceptions_t)                                                                       \
  X(amd_dbgapi_dispatch_info_t)                                                                    \
  X(amd_dbgapi_dispatch_barrier_t)                                                                 \
  X(amd_dbgapi_dispatch_fence_scope_t)                                                             \
  X(amd_dbgapi_workgroup_info_t)                                                                   \
  X(amd_dbgapi_wave_info_t)                                                                        \
  X(amd_dbgapi_wave_state_t)                                                                       \
  X(amd_dbgapi_wave_stop_reasons_t)                                                                \
  X(amd_dbgapi_resume_mode_t)                                                                      \
  X(amd_dbgapi_displaced_stepping_info_t)                                                          \
  X(amd_dbgapi_watchpoint_info_t)                                                                  \
  X(amd_dbgapi_watchpoint_share_kind_t)                                                            \
  X(amd_dbgapi_watchpoint_kind_t)                                                                  \
  X(amd_dbgapi_register_class_info_t)                                                              \
  X(amd_dbgapi_register_properties_t)                                                              \
  X(amd_dbgapi_register_info_t)                                                                    \
  X(amd_dbgapi_register_exists_t)                                                                  \
  X(amd_dbgapi_register_class_state_t)                                                             \
  X(amd_dbgapi_address_class_info_t)                                                               \
  X(amd_dbgapi_address_space_access_t)                                                             \
  X(amd_dbgapi_address_space_info_t)                                                               \
  X(amd_dbgapi_segment_address_dependency_t)                                                       \
  X(amd_dbgapi_address_class_state_t)                                                              \
  X(amd_dbgapi_memory_precision_t)                                                                 \
  X(amd_dbgapi_alu_exceptions_precision_t)                                                         \
  X(amd_dbgapi_event_kind_t)                                                                       \
  X(amd_dbgapi_runtime_state_t)                                                                    \
  X(amd_dbgapi_event_info_t)                                                                       \
  X(amd_dbgapi_log_level_t)                                                                        \
  X(amd_dbgapi_breakpoint_info_t)                                                                  \
  X(amd_dbgapi_breakpoint_action_t)                                                                \
  X(amd_dbgapi_client_process_info_t)
#define ENUM_SIZE_ASSERT(T) _Static_assert(sizeof(T) == 4, #T " is not int-sized");
ENUM_TYPES(ENUM_SIZE_ASSERT)

/* ---- function signatures (§7; argument order and types as in AMD's 0.77 header) ------------ */

#define SIG(fn, ...)                                                                               \
  _Static_assert(_Generic(&fn, __VA_ARGS__: 1, default: 0), #fn " has the wrong signature");

typedef amd_dbgapi_status_t st_t;
typedef amd_dbgapi_process_id_t proc_t;
typedef amd_dbgapi_wave_id_t wave_t;
typedef amd_dbgapi_architecture_id_t arch_t;
typedef amd_dbgapi_changed_t changed_t;

SIG(amd_dbgapi_get_status_string, st_t (*)(amd_dbgapi_status_t, const char **))
SIG(amd_dbgapi_get_version, void (*)(uint32_t *, uint32_t *, uint32_t *))
SIG(amd_dbgapi_get_build_name, const char *(*)(void))
SIG(amd_dbgapi_initialize, st_t (*)(amd_dbgapi_callbacks_t *))
SIG(amd_dbgapi_finalize, st_t (*)(void))
SIG(amd_dbgapi_architecture_get_info,
    st_t (*)(arch_t, amd_dbgapi_architecture_info_t, size_t, void *))
SIG(amd_dbgapi_get_architecture, st_t (*)(uint32_t, arch_t *))
SIG(amd_dbgapi_disassemble_instruction,
    st_t (*)(arch_t, amd_dbgapi_global_address_t, amd_dbgapi_size_t *, const void *, char **,
             amd_dbgapi_symbolizer_id_t,
             st_t (*)(amd_dbgapi_symbolizer_id_t, amd_dbgapi_global_address_t, char **)))
SIG(amd_dbgapi_classify_instruction,
    st_t (*)(arch_t, amd_dbgapi_global_address_t, amd_dbgapi_size_t *, const void *,
             amd_dbgapi_instruction_kind_t *, amd_dbgapi_instruction_properties_t *, void **))
SIG(amd_dbgapi_process_get_info, st_t (*)(proc_t, amd_dbgapi_process_info_t, size_t, void *))
SIG(amd_dbgapi_process_attach, st_t (*)(amd_dbgapi_client_process_id_t, proc_t *))
SIG(amd_dbgapi_process_detach, st_t (*)(proc_t))
SIG(amd_dbgapi_process_set_progress, st_t (*)(proc_t, amd_dbgapi_progress_t))
SIG(amd_dbgapi_process_set_wave_creation, st_t (*)(proc_t, amd_dbgapi_wave_creation_t))
SIG(amd_dbgapi_process_freeze, st_t (*)(proc_t))
SIG(amd_dbgapi_process_unfreeze, st_t (*)(proc_t))
SIG(amd_dbgapi_code_object_get_info,
    st_t (*)(amd_dbgapi_code_object_id_t, amd_dbgapi_code_object_info_t, size_t, void *))
SIG(amd_dbgapi_process_code_object_list,
    st_t (*)(proc_t, size_t *, amd_dbgapi_code_object_id_t **, changed_t *))
SIG(amd_dbgapi_agent_get_info,
    st_t (*)(amd_dbgapi_agent_id_t, amd_dbgapi_agent_info_t, size_t, void *))
SIG(amd_dbgapi_process_agent_list,
    st_t (*)(proc_t, size_t *, amd_dbgapi_agent_id_t **, changed_t *))
SIG(amd_dbgapi_queue_get_info,
    st_t (*)(amd_dbgapi_queue_id_t, amd_dbgapi_queue_info_t, size_t, void *))
SIG(amd_dbgapi_process_queue_list,
    st_t (*)(proc_t, size_t *, amd_dbgapi_queue_id_t **, changed_t *))
SIG(amd_dbgapi_queue_packet_list,
    st_t (*)(amd_dbgapi_queue_id_t, amd_dbgapi_os_queue_packet_id_t *,
             amd_dbgapi_os_queue_packet_id_t *, size_t *, void **))
SIG(amd_dbgapi_dispatch_get_info,
    st_t (*)(amd_dbgapi_dispatch_id_t, amd_dbgapi_dispatch_info_t, size_t, void *))
SIG(amd_dbgapi_process_dispatch_list,
    st_t (*)(proc_t, size_t *, amd_dbgapi_dispatch_id_t **, changed_t *))
SIG(amd_dbgapi_workgroup_get_info,
    st_t (*)(amd_dbgapi_workgroup_id_t, amd_dbgapi_workgroup_info_t, size_t, void *))
SIG(amd_dbgapi_process_workgroup_list,
    st_t (*)(proc_t, size_t *, amd_dbgapi_workgroup_id_t **, changed_t *))
SIG(amd_dbgapi_wave_get_info, st_t (*)(wave_t, amd_dbgapi_wave_info_t, size_t, void *))
SIG(amd_dbgapi_process_wave_list, st_t (*)(proc_t, size_t *, wave_t **, changed_t *))
SIG(amd_dbgapi_wave_stop, st_t (*)(wave_t))
SIG(amd_dbgapi_wave_resume, st_t (*)(wave_t, amd_dbgapi_resume_mode_t, amd_dbgapi_exceptions_t))
SIG(amd_dbgapi_displaced_stepping_get_info,
    st_t (*)(amd_dbgapi_displaced_stepping_id_t, amd_dbgapi_displaced_stepping_info_t, size_t,
             void *))
SIG(amd_dbgapi_displaced_stepping_start,
    st_t (*)(wave_t, const void *, amd_dbgapi_displaced_stepping_id_t *))
SIG(amd_dbgapi_displaced_stepping_complete, st_t (*)(wave_t, amd_dbgapi_displaced_stepping_id_t))
SIG(amd_dbgapi_watchpoint_get_info,
    st_t (*)(amd_dbgapi_watchpoint_id_t, amd_dbgapi_watchpoint_info_t, size_t, void *))
SIG(amd_dbgapi_set_watchpoint,
    st_t (*)(proc_t, amd_dbgapi_global_address_t, amd_dbgapi_size_t, amd_dbgapi_watchpoint_kind_t,
             amd_dbgapi_watchpoint_id_t *))
SIG(amd_dbgapi_remove_watchpoint, st_t (*)(amd_dbgapi_watchpoint_id_t))
SIG(amd_dbgapi_architecture_register_class_get_info,
    st_t (*)(amd_dbgapi_register_class_id_t, amd_dbgapi_register_class_info_t, size_t, void *))
SIG(amd_dbgapi_architecture_register_class_list,
    st_t (*)(arch_t, size_t *, amd_dbgapi_register_class_id_t **))
SIG(amd_dbgapi_register_get_info,
    st_t (*)(amd_dbgapi_register_id_t, amd_dbgapi_register_info_t, size_t, void *))
SIG(amd_dbgapi_wave_register_exists,
    st_t (*)(wave_t, amd_dbgapi_register_id_t, amd_dbgapi_register_exists_t *))
SIG(amd_dbgapi_architecture_register_list, st_t (*)(arch_t, size_t *, amd_dbgapi_register_id_t **))
SIG(amd_dbgapi_wave_register_list, st_t (*)(wave_t, size_t *, amd_dbgapi_register_id_t **))
SIG(amd_dbgapi_dwarf_register_to_register, st_t (*)(arch_t, uint64_t, amd_dbgapi_register_id_t *))
SIG(amd_dbgapi_register_is_in_register_class,
    st_t (*)(amd_dbgapi_register_class_id_t, amd_dbgapi_register_id_t,
             amd_dbgapi_register_class_state_t *))
SIG(amd_dbgapi_read_register,
    st_t (*)(wave_t, amd_dbgapi_register_id_t, amd_dbgapi_size_t, amd_dbgapi_size_t, void *))
SIG(amd_dbgapi_write_register,
    st_t (*)(wave_t, amd_dbgapi_register_id_t, amd_dbgapi_size_t, amd_dbgapi_size_t,
             const void *))
SIG(amd_dbgapi_prefetch_register, st_t (*)(wave_t, amd_dbgapi_register_id_t, amd_dbgapi_size_t))
SIG(amd_dbgapi_address_class_get_info,
    st_t (*)(amd_dbgapi_address_class_id_t, amd_dbgapi_address_class_info_t, size_t, void *))
SIG(amd_dbgapi_architecture_address_class_list,
    st_t (*)(arch_t, size_t *, amd_dbgapi_address_class_id_t **))
SIG(amd_dbgapi_dwarf_address_class_to_address_class,
    st_t (*)(arch_t, uint64_t, amd_dbgapi_address_class_id_t *))
SIG(amd_dbgapi_address_space_get_info,
    st_t (*)(amd_dbgapi_address_space_id_t, amd_dbgapi_address_space_info_t, size_t, void *))
SIG(amd_dbgapi_architecture_address_space_list,
    st_t (*)(arch_t, size_t *, amd_dbgapi_address_space_id_t **))
SIG(amd_dbgapi_dwarf_address_space_to_address_space,
    st_t (*)(arch_t, uint64_t, amd_dbgapi_address_space_id_t *))
SIG(amd_dbgapi_convert_address_space,
    st_t (*)(wave_t, amd_dbgapi_lane_id_t, amd_dbgapi_address_space_id_t,
             amd_dbgapi_segment_address_t, amd_dbgapi_address_space_id_t,
             amd_dbgapi_segment_address_t *, amd_dbgapi_size_t *))
/* 0.77 form (0.79 added process and wave arguments). */
SIG(amd_dbgapi_address_dependency,
    st_t (*)(amd_dbgapi_address_space_id_t, amd_dbgapi_segment_address_t,
             amd_dbgapi_segment_address_dependency_t *))
SIG(amd_dbgapi_address_is_in_address_class,
    st_t (*)(wave_t, amd_dbgapi_lane_id_t, amd_dbgapi_address_space_id_t,
             amd_dbgapi_segment_address_t, amd_dbgapi_address_class_id_t,
             amd_dbgapi_address_class_state_t *))
SIG(amd_dbgapi_read_memory,
    st_t (*)(proc_t, wave_t, amd_dbgapi_lane_id_t, amd_dbgapi_address_space_id_t,
             amd_dbgapi_segment_address_t, amd_dbgapi_size_t *, void *))
SIG(amd_dbgapi_write_memory,
    st_t (*)(proc_t, wave_t, amd_dbgapi_lane_id_t, amd_dbgapi_address_space_id_t,
             amd_dbgapi_segment_address_t, amd_dbgapi_size_t *, const void *))
SIG(amd_dbgapi_set_memory_precision, st_t (*)(proc_t, amd_dbgapi_memory_precision_t))
SIG(amd_dbgapi_set_alu_exceptions_precision,
    st_t (*)(proc_t, amd_dbgapi_alu_exceptions_precision_t))
SIG(amd_dbgapi_process_next_pending_event,
    st_t (*)(proc_t, amd_dbgapi_event_id_t *, amd_dbgapi_event_kind_t *))
SIG(amd_dbgapi_event_get_info,
    st_t (*)(amd_dbgapi_event_id_t, amd_dbgapi_event_info_t, size_t, void *))
SIG(amd_dbgapi_event_processed, st_t (*)(amd_dbgapi_event_id_t))
SIG(amd_dbgapi_set_log_level, void (*)(amd_dbgapi_log_level_t))
SIG(amd_dbgapi_breakpoint_get_info,
    st_t (*)(amd_dbgapi_breakpoint_id_t, amd_dbgapi_breakpoint_info_t, size_t, void *))
SIG(amd_dbgapi_report_breakpoint_hit,
    st_t (*)(amd_dbgapi_breakpoint_id_t, amd_dbgapi_client_thread_id_t,
             amd_dbgapi_breakpoint_action_t *))

/* 67 SIG lines above: tests/abi/check_dbgapi_abi.sh counts them against abi_table.def. */

/* ---- enumerator values ------------------------------------------------------------------- */

struct enum_row
{
  const char *name;
  long long got, want;
};

/*
 * The values docs/dbgapi-on-cores.md §1.1, §2, §6 and §12 single out (the ABI-version-sensitive
 * ones), typed from the spec independently of the table below.
 */
static const struct enum_row spec_values[] = {
    {"AMD_DBGAPI_PROCESS_INFO_PRECISE_ALU_EXCEPTIONS_SUPPORTED",
     AMD_DBGAPI_PROCESS_INFO_PRECISE_ALU_EXCEPTIONS_SUPPORTED, 5},
    {"AMD_DBGAPI_PROCESS_INFO_OS_ID", AMD_DBGAPI_PROCESS_INFO_OS_ID, 6},
    {"AMD_DBGAPI_PROCESS_INFO_CORE_STATE", AMD_DBGAPI_PROCESS_INFO_CORE_STATE, 7},
    {"AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID", AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID, 1},
    {"AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE", AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE, 2},
    {"AMD_DBGAPI_ENDIAN_BIG", AMD_DBGAPI_ENDIAN_BIG, 0},
    {"AMD_DBGAPI_ENDIAN_LITTLE", AMD_DBGAPI_ENDIAN_LITTLE, 1},
    {"AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS", AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS, 1},
    {"AMD_DBGAPI_STATUS_SUCCESS", AMD_DBGAPI_STATUS_SUCCESS, 0},
    {"AMD_DBGAPI_STATUS_FATAL", AMD_DBGAPI_STATUS_FATAL, -2},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED", AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED, -3},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE", AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE, -4},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED", AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED, -5},
    {"AMD_DBGAPI_STATUS_ERROR_RESTRICTION", AMD_DBGAPI_STATUS_ERROR_RESTRICTION, -10},
    {"AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED", AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED, -23},
    {"AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS", AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS, -37},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID,
     -40},
    {"AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE",
     AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE, -46},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN", AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, -47},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_ALREADY_FROZEN",
     AMD_DBGAPI_STATUS_ERROR_PROCESS_ALREADY_FROZEN, -48},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN", AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN, -49},
    {"AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL", AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL, 1},
    {"AMD_DBGAPI_WAVE_STATE_STOP", AMD_DBGAPI_WAVE_STATE_STOP, 3},
    {"AMD_DBGAPI_EVENT_KIND_WAVE_STOP", AMD_DBGAPI_EVENT_KIND_WAVE_STOP, 1},
    {"AMD_DBGAPI_EVENT_KIND_RUNTIME", AMD_DBGAPI_EVENT_KIND_RUNTIME, 5},
    {"AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION",
     AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION, 3},
};

/*
 * Every enumerator of the 0.77 interface, grouped by type in header order, with its value in
 * AMD's amd-dbgapi 0.77 (values checked against ROCm/ROCdbgapi include/amd-dbgapi.h.in).
 * Values that appeared after 0.77 (STATUS_ERROR_MEMORY_UNAVAILABLE -50,
 * PROCESS_INFO_SIGNIFICANT_ADDRESS_BITS 8, the cluster additions) are deliberately absent.
 */
static const struct enum_row all_values[] = {
    /* amd_dbgapi_changed_t */
    {"AMD_DBGAPI_CHANGED_NO", AMD_DBGAPI_CHANGED_NO, 0},
    {"AMD_DBGAPI_CHANGED_YES", AMD_DBGAPI_CHANGED_YES, 1},
    /* amd_dbgapi_os_queue_type_t */
    {"AMD_DBGAPI_OS_QUEUE_TYPE_UNKNOWN", AMD_DBGAPI_OS_QUEUE_TYPE_UNKNOWN, 0},
    {"AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL", AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL, 1},
    {"AMD_DBGAPI_OS_QUEUE_TYPE_AMD_PM4", AMD_DBGAPI_OS_QUEUE_TYPE_AMD_PM4, 257},
    {"AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA", AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA, 513},
    {"AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA_XGMI", AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA_XGMI, 514},
    /* amd_dbgapi_status_t */
    {"AMD_DBGAPI_STATUS_SUCCESS", AMD_DBGAPI_STATUS_SUCCESS, 0},
    {"AMD_DBGAPI_STATUS_ERROR", AMD_DBGAPI_STATUS_ERROR, -1},
    {"AMD_DBGAPI_STATUS_FATAL", AMD_DBGAPI_STATUS_FATAL, -2},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED", AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED, -3},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE", AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE, -4},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED", AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED, -5},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT", AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, -6},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY", AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY, -7},
    {"AMD_DBGAPI_STATUS_ERROR_ALREADY_INITIALIZED", AMD_DBGAPI_STATUS_ERROR_ALREADY_INITIALIZED, -8},
    {"AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED", AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED, -9},
    {"AMD_DBGAPI_STATUS_ERROR_RESTRICTION", AMD_DBGAPI_STATUS_ERROR_RESTRICTION, -10},
    {"AMD_DBGAPI_STATUS_ERROR_ALREADY_ATTACHED", AMD_DBGAPI_STATUS_ERROR_ALREADY_ATTACHED, -11},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID, -12},
    {"AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION", AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION, -13},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_CODE_OBJECT_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_CODE_OBJECT_ID, -14},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ELF_AMDGPU_MACHINE", AMD_DBGAPI_STATUS_ERROR_INVALID_ELF_AMDGPU_MACHINE, -15},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID, -16},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_EXITED", AMD_DBGAPI_STATUS_ERROR_PROCESS_EXITED, -17},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_AGENT_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_AGENT_ID, -18},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_QUEUE_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_QUEUE_ID, -19},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_DISPATCH_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_DISPATCH_ID, -20},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID, -21},
    {"AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED", AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED, -22},
    {"AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED", AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED, -23},
    {"AMD_DBGAPI_STATUS_ERROR_WAVE_OUTSTANDING_STOP", AMD_DBGAPI_STATUS_ERROR_WAVE_OUTSTANDING_STOP, -24},
    {"AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_RESUMABLE", AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_RESUMABLE, -25},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_DISPLACED_STEPPING_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_DISPLACED_STEPPING_ID, -26},
    {"AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_BUFFER_NOT_AVAILABLE", AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_BUFFER_NOT_AVAILABLE, -27},
    {"AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_ACTIVE", AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_ACTIVE, -28},
    {"AMD_DBGAPI_STATUS_ERROR_RESUME_DISPLACED_STEPPING", AMD_DBGAPI_STATUS_ERROR_RESUME_DISPLACED_STEPPING, -29},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_WATCHPOINT_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_WATCHPOINT_ID, -30},
    {"AMD_DBGAPI_STATUS_ERROR_NO_WATCHPOINT_AVAILABLE", AMD_DBGAPI_STATUS_ERROR_NO_WATCHPOINT_AVAILABLE, -31},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_CLASS_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_CLASS_ID, -32},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID, -33},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID, -34},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID, -35},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID, -36},
    {"AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS", AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS, -37},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION", AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION, -38},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID, -39},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID, -40},
    {"AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK", AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK, -41},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID, -42},
    {"AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND", AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND, -43},
    {"AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE", AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE, -44},
    {"AMD_DBGAPI_STATUS_ERROR_INVALID_WORKGROUP_ID", AMD_DBGAPI_STATUS_ERROR_INVALID_WORKGROUP_ID, -45},
    {"AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE", AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE, -46},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN", AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, -47},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_ALREADY_FROZEN", AMD_DBGAPI_STATUS_ERROR_PROCESS_ALREADY_FROZEN, -48},
    {"AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN", AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN, -49},
    /* amd_dbgapi_architecture_info_t */
    {"AMD_DBGAPI_ARCHITECTURE_INFO_NAME", AMD_DBGAPI_ARCHITECTURE_INFO_NAME, 1},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_ELF_AMDGPU_MACHINE", AMD_DBGAPI_ARCHITECTURE_INFO_ELF_AMDGPU_MACHINE, 2},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_LARGEST_INSTRUCTION_SIZE", AMD_DBGAPI_ARCHITECTURE_INFO_LARGEST_INSTRUCTION_SIZE, 3},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_MINIMUM_INSTRUCTION_ALIGNMENT", AMD_DBGAPI_ARCHITECTURE_INFO_MINIMUM_INSTRUCTION_ALIGNMENT, 4},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_SIZE", AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_SIZE, 5},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION", AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION, 6},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_PC_ADJUST", AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_PC_ADJUST, 7},
    {"AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER", AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER, 8},
    /* amd_dbgapi_instruction_kind_t */
    {"AMD_DBGAPI_INSTRUCTION_KIND_UNKNOWN", AMD_DBGAPI_INSTRUCTION_KIND_UNKNOWN, 0},
    {"AMD_DBGAPI_INSTRUCTION_KIND_SEQUENTIAL", AMD_DBGAPI_INSTRUCTION_KIND_SEQUENTIAL, 1},
    {"AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH", AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH, 2},
    {"AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH_CONDITIONAL", AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH_CONDITIONAL, 3},
    {"AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_BRANCH_REGISTER_PAIR", AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_BRANCH_REGISTER_PAIR, 4},
    {"AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR", AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR, 5},
    {"AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_CALL_REGISTER_PAIR", AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_CALL_REGISTER_PAIR, 6},
    {"AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_CALL_REGISTER_PAIRS", AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_CALL_REGISTER_PAIRS, 7},
    {"AMD_DBGAPI_INSTRUCTION_KIND_TERMINATE", AMD_DBGAPI_INSTRUCTION_KIND_TERMINATE, 8},
    {"AMD_DBGAPI_INSTRUCTION_KIND_TRAP", AMD_DBGAPI_INSTRUCTION_KIND_TRAP, 9},
    {"AMD_DBGAPI_INSTRUCTION_KIND_HALT", AMD_DBGAPI_INSTRUCTION_KIND_HALT, 10},
    {"AMD_DBGAPI_INSTRUCTION_KIND_BARRIER", AMD_DBGAPI_INSTRUCTION_KIND_BARRIER, 11},
    {"AMD_DBGAPI_INSTRUCTION_KIND_SLEEP", AMD_DBGAPI_INSTRUCTION_KIND_SLEEP, 12},
    {"AMD_DBGAPI_INSTRUCTION_KIND_SPECIAL", AMD_DBGAPI_INSTRUCTION_KIND_SPECIAL, 13},
    /* amd_dbgapi_instruction_properties_t */
    {"AMD_DBGAPI_INSTRUCTION_PROPERTY_NONE", AMD_DBGAPI_INSTRUCTION_PROPERTY_NONE, 0},
    /* amd_dbgapi_endianness_t */
    {"AMD_DBGAPI_ENDIAN_BIG", AMD_DBGAPI_ENDIAN_BIG, 0},
    {"AMD_DBGAPI_ENDIAN_LITTLE", AMD_DBGAPI_ENDIAN_LITTLE, 1},
    /* amd_dbgapi_process_info_t */
    {"AMD_DBGAPI_PROCESS_INFO_NOTIFIER", AMD_DBGAPI_PROCESS_INFO_NOTIFIER, 1},
    {"AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_COUNT", AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_COUNT, 2},
    {"AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_SHARE", AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_SHARE, 3},
    {"AMD_DBGAPI_PROCESS_INFO_PRECISE_MEMORY_SUPPORTED", AMD_DBGAPI_PROCESS_INFO_PRECISE_MEMORY_SUPPORTED, 4},
    {"AMD_DBGAPI_PROCESS_INFO_PRECISE_ALU_EXCEPTIONS_SUPPORTED", AMD_DBGAPI_PROCESS_INFO_PRECISE_ALU_EXCEPTIONS_SUPPORTED, 5},
    {"AMD_DBGAPI_PROCESS_INFO_OS_ID", AMD_DBGAPI_PROCESS_INFO_OS_ID, 6},
    {"AMD_DBGAPI_PROCESS_INFO_CORE_STATE", AMD_DBGAPI_PROCESS_INFO_CORE_STATE, 7},
    /* amd_dbgapi_progress_t */
    {"AMD_DBGAPI_PROGRESS_NORMAL", AMD_DBGAPI_PROGRESS_NORMAL, 0},
    {"AMD_DBGAPI_PROGRESS_NO_FORWARD", AMD_DBGAPI_PROGRESS_NO_FORWARD, 1},
    /* amd_dbgapi_wave_creation_t */
    {"AMD_DBGAPI_WAVE_CREATION_NORMAL", AMD_DBGAPI_WAVE_CREATION_NORMAL, 0},
    {"AMD_DBGAPI_WAVE_CREATION_STOP", AMD_DBGAPI_WAVE_CREATION_STOP, 1},
    /* amd_dbgapi_code_object_info_t */
    {"AMD_DBGAPI_CODE_OBJECT_INFO_PROCESS", AMD_DBGAPI_CODE_OBJECT_INFO_PROCESS, 1},
    {"AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME", AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME, 2},
    {"AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS", AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS, 3},
    /* amd_dbgapi_agent_info_t */
    {"AMD_DBGAPI_AGENT_INFO_PROCESS", AMD_DBGAPI_AGENT_INFO_PROCESS, 1},
    {"AMD_DBGAPI_AGENT_INFO_NAME", AMD_DBGAPI_AGENT_INFO_NAME, 2},
    {"AMD_DBGAPI_AGENT_INFO_ARCHITECTURE", AMD_DBGAPI_AGENT_INFO_ARCHITECTURE, 3},
    {"AMD_DBGAPI_AGENT_INFO_STATE", AMD_DBGAPI_AGENT_INFO_STATE, 4},
    {"AMD_DBGAPI_AGENT_INFO_PCI_DOMAIN", AMD_DBGAPI_AGENT_INFO_PCI_DOMAIN, 5},
    {"AMD_DBGAPI_AGENT_INFO_PCI_SLOT", AMD_DBGAPI_AGENT_INFO_PCI_SLOT, 6},
    {"AMD_DBGAPI_AGENT_INFO_PCI_VENDOR_ID", AMD_DBGAPI_AGENT_INFO_PCI_VENDOR_ID, 7},
    {"AMD_DBGAPI_AGENT_INFO_PCI_DEVICE_ID", AMD_DBGAPI_AGENT_INFO_PCI_DEVICE_ID, 8},
    {"AMD_DBGAPI_AGENT_INFO_EXECUTION_UNIT_COUNT", AMD_DBGAPI_AGENT_INFO_EXECUTION_UNIT_COUNT, 9},
    {"AMD_DBGAPI_AGENT_INFO_MAX_WAVES_PER_EXECUTION_UNIT", AMD_DBGAPI_AGENT_INFO_MAX_WAVES_PER_EXECUTION_UNIT, 10},
    {"AMD_DBGAPI_AGENT_INFO_OS_ID", AMD_DBGAPI_AGENT_INFO_OS_ID, 11},
    /* amd_dbgapi_agent_state_t */
    {"AMD_DBGAPI_AGENT_STATE_SUPPORTED", AMD_DBGAPI_AGENT_STATE_SUPPORTED, 1},
    {"AMD_DBGAPI_AGENT_STATE_NOT_SUPPORTED", AMD_DBGAPI_AGENT_STATE_NOT_SUPPORTED, 2},
    /* amd_dbgapi_queue_info_t */
    {"AMD_DBGAPI_QUEUE_INFO_AGENT", AMD_DBGAPI_QUEUE_INFO_AGENT, 1},
    {"AMD_DBGAPI_QUEUE_INFO_PROCESS", AMD_DBGAPI_QUEUE_INFO_PROCESS, 2},
    {"AMD_DBGAPI_QUEUE_INFO_ARCHITECTURE", AMD_DBGAPI_QUEUE_INFO_ARCHITECTURE, 3},
    {"AMD_DBGAPI_QUEUE_INFO_TYPE", AMD_DBGAPI_QUEUE_INFO_TYPE, 4},
    {"AMD_DBGAPI_QUEUE_INFO_STATE", AMD_DBGAPI_QUEUE_INFO_STATE, 5},
    {"AMD_DBGAPI_QUEUE_INFO_ERROR_REASON", AMD_DBGAPI_QUEUE_INFO_ERROR_REASON, 6},
    {"AMD_DBGAPI_QUEUE_INFO_ADDRESS", AMD_DBGAPI_QUEUE_INFO_ADDRESS, 7},
    {"AMD_DBGAPI_QUEUE_INFO_SIZE", AMD_DBGAPI_QUEUE_INFO_SIZE, 8},
    {"AMD_DBGAPI_QUEUE_INFO_OS_ID", AMD_DBGAPI_QUEUE_INFO_OS_ID, 9},
    /* amd_dbgapi_queue_state_t */
    {"AMD_DBGAPI_QUEUE_STATE_VALID", AMD_DBGAPI_QUEUE_STATE_VALID, 1},
    {"AMD_DBGAPI_QUEUE_STATE_ERROR", AMD_DBGAPI_QUEUE_STATE_ERROR, 2},
    /* amd_dbgapi_exceptions_t */
    {"AMD_DBGAPI_EXCEPTION_NONE", AMD_DBGAPI_EXCEPTION_NONE, 0},
    {"AMD_DBGAPI_EXCEPTION_WAVE_ABORT", AMD_DBGAPI_EXCEPTION_WAVE_ABORT, (1 << 0)},
    {"AMD_DBGAPI_EXCEPTION_WAVE_TRAP", AMD_DBGAPI_EXCEPTION_WAVE_TRAP, (1 << 1)},
    {"AMD_DBGAPI_EXCEPTION_WAVE_MATH_ERROR", AMD_DBGAPI_EXCEPTION_WAVE_MATH_ERROR, (1 << 2)},
    {"AMD_DBGAPI_EXCEPTION_WAVE_ILLEGAL_INSTRUCTION", AMD_DBGAPI_EXCEPTION_WAVE_ILLEGAL_INSTRUCTION, (1 << 3)},
    {"AMD_DBGAPI_EXCEPTION_WAVE_MEMORY_VIOLATION", AMD_DBGAPI_EXCEPTION_WAVE_MEMORY_VIOLATION, (1 << 4)},
    {"AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR", AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR, (1 << 5)},
    {"AMD_DBGAPI_EXCEPTION_WAVE_APERTURE_VIOLATION", AMD_DBGAPI_EXCEPTION_WAVE_APERTURE_VIOLATION, (1 << 5)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_DIM_INVALID", AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_DIM_INVALID, (1 << 16)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID", AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID, (1 << 17)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_CODE_INVALID", AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_CODE_INVALID, (1 << 18)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_UNSUPPORTED", AMD_DBGAPI_EXCEPTION_PACKET_UNSUPPORTED, (1 << 20)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_WORKGROUP_SIZE_INVALID", AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_WORKGROUP_SIZE_INVALID, (1 << 21)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_REGISTER_COUNT_TOO_LARGE", AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_REGISTER_COUNT_TOO_LARGE, (1 << 22)},
    {"AMD_DBGAPI_EXCEPTION_PACKET_VENDOR_UNSUPPORTED", AMD_DBGAPI_EXCEPTION_PACKET_VENDOR_UNSUPPORTED, (1 << 23)},
    {"AMD_DBGAPI_EXCEPTION_QUEUE_PREEMPTION_ERROR", AMD_DBGAPI_EXCEPTION_QUEUE_PREEMPTION_ERROR, INT32_MIN},
    /* amd_dbgapi_dispatch_info_t */
    {"AMD_DBGAPI_DISPATCH_INFO_QUEUE", AMD_DBGAPI_DISPATCH_INFO_QUEUE, 1},
    {"AMD_DBGAPI_DISPATCH_INFO_AGENT", AMD_DBGAPI_DISPATCH_INFO_AGENT, 2},
    {"AMD_DBGAPI_DISPATCH_INFO_PROCESS", AMD_DBGAPI_DISPATCH_INFO_PROCESS, 3},
    {"AMD_DBGAPI_DISPATCH_INFO_ARCHITECTURE", AMD_DBGAPI_DISPATCH_INFO_ARCHITECTURE, 4},
    {"AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID", AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID, 5},
    {"AMD_DBGAPI_DISPATCH_INFO_BARRIER", AMD_DBGAPI_DISPATCH_INFO_BARRIER, 6},
    {"AMD_DBGAPI_DISPATCH_INFO_ACQUIRE_FENCE", AMD_DBGAPI_DISPATCH_INFO_ACQUIRE_FENCE, 7},
    {"AMD_DBGAPI_DISPATCH_INFO_RELEASE_FENCE", AMD_DBGAPI_DISPATCH_INFO_RELEASE_FENCE, 8},
    {"AMD_DBGAPI_DISPATCH_INFO_GRID_DIMENSIONS", AMD_DBGAPI_DISPATCH_INFO_GRID_DIMENSIONS, 9},
    {"AMD_DBGAPI_DISPATCH_INFO_WORKGROUP_SIZES", AMD_DBGAPI_DISPATCH_INFO_WORKGROUP_SIZES, 10},
    {"AMD_DBGAPI_DISPATCH_INFO_GRID_SIZES", AMD_DBGAPI_DISPATCH_INFO_GRID_SIZES, 11},
    {"AMD_DBGAPI_DISPATCH_INFO_PRIVATE_SEGMENT_SIZE", AMD_DBGAPI_DISPATCH_INFO_PRIVATE_SEGMENT_SIZE, 12},
    {"AMD_DBGAPI_DISPATCH_INFO_GROUP_SEGMENT_SIZE", AMD_DBGAPI_DISPATCH_INFO_GROUP_SEGMENT_SIZE, 13},
    {"AMD_DBGAPI_DISPATCH_INFO_KERNEL_ARGUMENT_SEGMENT_ADDRESS", AMD_DBGAPI_DISPATCH_INFO_KERNEL_ARGUMENT_SEGMENT_ADDRESS, 14},
    {"AMD_DBGAPI_DISPATCH_INFO_KERNEL_DESCRIPTOR_ADDRESS", AMD_DBGAPI_DISPATCH_INFO_KERNEL_DESCRIPTOR_ADDRESS, 15},
    {"AMD_DBGAPI_DISPATCH_INFO_KERNEL_CODE_ENTRY_ADDRESS", AMD_DBGAPI_DISPATCH_INFO_KERNEL_CODE_ENTRY_ADDRESS, 16},
    {"AMD_DBGAPI_DISPATCH_INFO_KERNEL_COMPLETION_ADDRESS", AMD_DBGAPI_DISPATCH_INFO_KERNEL_COMPLETION_ADDRESS, 17},
    /* amd_dbgapi_dispatch_barrier_t */
    {"AMD_DBGAPI_DISPATCH_BARRIER_NONE", AMD_DBGAPI_DISPATCH_BARRIER_NONE, 0},
    {"AMD_DBGAPI_DISPATCH_BARRIER_PRESENT", AMD_DBGAPI_DISPATCH_BARRIER_PRESENT, 1},
    /* amd_dbgapi_dispatch_fence_scope_t */
    {"AMD_DBGAPI_DISPATCH_FENCE_SCOPE_NONE", AMD_DBGAPI_DISPATCH_FENCE_SCOPE_NONE, 0},
    {"AMD_DBGAPI_DISPATCH_FENCE_SCOPE_AGENT", AMD_DBGAPI_DISPATCH_FENCE_SCOPE_AGENT, 1},
    {"AMD_DBGAPI_DISPATCH_FENCE_SCOPE_SYSTEM", AMD_DBGAPI_DISPATCH_FENCE_SCOPE_SYSTEM, 2},
    /* amd_dbgapi_workgroup_info_t */
    {"AMD_DBGAPI_WORKGROUP_INFO_DISPATCH", AMD_DBGAPI_WORKGROUP_INFO_DISPATCH, 1},
    {"AMD_DBGAPI_WORKGROUP_INFO_QUEUE", AMD_DBGAPI_WORKGROUP_INFO_QUEUE, 2},
    {"AMD_DBGAPI_WORKGROUP_INFO_AGENT", AMD_DBGAPI_WORKGROUP_INFO_AGENT, 3},
    {"AMD_DBGAPI_WORKGROUP_INFO_PROCESS", AMD_DBGAPI_WORKGROUP_INFO_PROCESS, 4},
    {"AMD_DBGAPI_WORKGROUP_INFO_ARCHITECTURE", AMD_DBGAPI_WORKGROUP_INFO_ARCHITECTURE, 5},
    {"AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD", AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD, 6},
    /* amd_dbgapi_wave_info_t */
    {"AMD_DBGAPI_WAVE_INFO_STATE", AMD_DBGAPI_WAVE_INFO_STATE, 1},
    {"AMD_DBGAPI_WAVE_INFO_STOP_REASON", AMD_DBGAPI_WAVE_INFO_STOP_REASON, 2},
    {"AMD_DBGAPI_WAVE_INFO_WATCHPOINTS", AMD_DBGAPI_WAVE_INFO_WATCHPOINTS, 3},
    {"AMD_DBGAPI_WAVE_INFO_WORKGROUP", AMD_DBGAPI_WAVE_INFO_WORKGROUP, 4},
    {"AMD_DBGAPI_WAVE_INFO_DISPATCH", AMD_DBGAPI_WAVE_INFO_DISPATCH, 5},
    {"AMD_DBGAPI_WAVE_INFO_QUEUE", AMD_DBGAPI_WAVE_INFO_QUEUE, 6},
    {"AMD_DBGAPI_WAVE_INFO_AGENT", AMD_DBGAPI_WAVE_INFO_AGENT, 7},
    {"AMD_DBGAPI_WAVE_INFO_PROCESS", AMD_DBGAPI_WAVE_INFO_PROCESS, 8},
    {"AMD_DBGAPI_WAVE_INFO_ARCHITECTURE", AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, 9},
    {"AMD_DBGAPI_WAVE_INFO_PC", AMD_DBGAPI_WAVE_INFO_PC, 10},
    {"AMD_DBGAPI_WAVE_INFO_EXEC_MASK", AMD_DBGAPI_WAVE_INFO_EXEC_MASK, 11},
    {"AMD_DBGAPI_WAVE_INFO_WORKGROUP_COORD", AMD_DBGAPI_WAVE_INFO_WORKGROUP_COORD, 12},
    {"AMD_DBGAPI_WAVE_INFO_WAVE_NUMBER_IN_WORKGROUP", AMD_DBGAPI_WAVE_INFO_WAVE_NUMBER_IN_WORKGROUP, 13},
    {"AMD_DBGAPI_WAVE_INFO_LANE_COUNT", AMD_DBGAPI_WAVE_INFO_LANE_COUNT, 14},
    /* amd_dbgapi_wave_state_t */
    {"AMD_DBGAPI_WAVE_STATE_RUN", AMD_DBGAPI_WAVE_STATE_RUN, 1},
    {"AMD_DBGAPI_WAVE_STATE_SINGLE_STEP", AMD_DBGAPI_WAVE_STATE_SINGLE_STEP, 2},
    {"AMD_DBGAPI_WAVE_STATE_STOP", AMD_DBGAPI_WAVE_STATE_STOP, 3},
    /* amd_dbgapi_wave_stop_reasons_t */
    {"AMD_DBGAPI_WAVE_STOP_REASON_NONE", AMD_DBGAPI_WAVE_STOP_REASON_NONE, 0},
    {"AMD_DBGAPI_WAVE_STOP_REASON_BREAKPOINT", AMD_DBGAPI_WAVE_STOP_REASON_BREAKPOINT, (1 << 0)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT", AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT, (1 << 1)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_SINGLE_STEP", AMD_DBGAPI_WAVE_STOP_REASON_SINGLE_STEP, (1 << 2)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FP_INPUT_DENORMAL", AMD_DBGAPI_WAVE_STOP_REASON_FP_INPUT_DENORMAL, (1 << 3)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FP_DIVIDE_BY_0", AMD_DBGAPI_WAVE_STOP_REASON_FP_DIVIDE_BY_0, (1 << 4)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FP_OVERFLOW", AMD_DBGAPI_WAVE_STOP_REASON_FP_OVERFLOW, (1 << 5)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FP_UNDERFLOW", AMD_DBGAPI_WAVE_STOP_REASON_FP_UNDERFLOW, (1 << 6)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FP_INEXACT", AMD_DBGAPI_WAVE_STOP_REASON_FP_INEXACT, (1 << 7)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FP_INVALID_OPERATION", AMD_DBGAPI_WAVE_STOP_REASON_FP_INVALID_OPERATION, (1 << 8)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_INT_DIVIDE_BY_0", AMD_DBGAPI_WAVE_STOP_REASON_INT_DIVIDE_BY_0, (1 << 9)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_DEBUG_TRAP", AMD_DBGAPI_WAVE_STOP_REASON_DEBUG_TRAP, (1 << 10)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_ASSERT_TRAP", AMD_DBGAPI_WAVE_STOP_REASON_ASSERT_TRAP, (1 << 11)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_TRAP", AMD_DBGAPI_WAVE_STOP_REASON_TRAP, (1 << 12)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION", AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION, (1 << 13)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR", AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR, (1 << 14)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_APERTURE_VIOLATION", AMD_DBGAPI_WAVE_STOP_REASON_APERTURE_VIOLATION, (1 << 14)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_ILLEGAL_INSTRUCTION", AMD_DBGAPI_WAVE_STOP_REASON_ILLEGAL_INSTRUCTION, (1 << 15)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_ECC_ERROR", AMD_DBGAPI_WAVE_STOP_REASON_ECC_ERROR, (1 << 16)},
    {"AMD_DBGAPI_WAVE_STOP_REASON_FATAL_HALT", AMD_DBGAPI_WAVE_STOP_REASON_FATAL_HALT, (1 << 17)},
    /* amd_dbgapi_resume_mode_t */
    {"AMD_DBGAPI_RESUME_MODE_NORMAL", AMD_DBGAPI_RESUME_MODE_NORMAL, 0},
    {"AMD_DBGAPI_RESUME_MODE_SINGLE_STEP", AMD_DBGAPI_RESUME_MODE_SINGLE_STEP, 1},
    /* amd_dbgapi_displaced_stepping_info_t */
    {"AMD_DBGAPI_DISPLACED_STEPPING_INFO_PROCESS", AMD_DBGAPI_DISPLACED_STEPPING_INFO_PROCESS, 1},
    /* amd_dbgapi_watchpoint_info_t */
    {"AMD_DBGAPI_WATCHPOINT_INFO_PROCESS", AMD_DBGAPI_WATCHPOINT_INFO_PROCESS, 1},
    {"AMD_DBGAPI_WATCHPOINT_INFO_ADDRESS", AMD_DBGAPI_WATCHPOINT_INFO_ADDRESS, 2},
    {"AMD_DBGAPI_WATCHPOINT_INFO_SIZE", AMD_DBGAPI_WATCHPOINT_INFO_SIZE, 3},
    /* amd_dbgapi_watchpoint_share_kind_t */
    {"AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED", AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED, 0},
    {"AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSHARED", AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSHARED, 1},
    {"AMD_DBGAPI_WATCHPOINT_SHARE_KIND_SHARED", AMD_DBGAPI_WATCHPOINT_SHARE_KIND_SHARED, 2},
    /* amd_dbgapi_watchpoint_kind_t */
    {"AMD_DBGAPI_WATCHPOINT_KIND_LOAD", AMD_DBGAPI_WATCHPOINT_KIND_LOAD, 1},
    {"AMD_DBGAPI_WATCHPOINT_KIND_STORE_AND_RMW", AMD_DBGAPI_WATCHPOINT_KIND_STORE_AND_RMW, 2},
    {"AMD_DBGAPI_WATCHPOINT_KIND_RMW", AMD_DBGAPI_WATCHPOINT_KIND_RMW, 3},
    {"AMD_DBGAPI_WATCHPOINT_KIND_ALL", AMD_DBGAPI_WATCHPOINT_KIND_ALL, 4},
    /* amd_dbgapi_register_class_info_t */
    {"AMD_DBGAPI_REGISTER_CLASS_INFO_ARCHITECTURE", AMD_DBGAPI_REGISTER_CLASS_INFO_ARCHITECTURE, 1},
    {"AMD_DBGAPI_REGISTER_CLASS_INFO_NAME", AMD_DBGAPI_REGISTER_CLASS_INFO_NAME, 2},
    /* amd_dbgapi_register_properties_t */
    {"AMD_DBGAPI_REGISTER_PROPERTY_NONE", AMD_DBGAPI_REGISTER_PROPERTY_NONE, 0},
    {"AMD_DBGAPI_REGISTER_PROPERTY_READONLY_BITS", AMD_DBGAPI_REGISTER_PROPERTY_READONLY_BITS, (1 << 0)},
    {"AMD_DBGAPI_REGISTER_PROPERTY_VOLATILE", AMD_DBGAPI_REGISTER_PROPERTY_VOLATILE, (1 << 1)},
    {"AMD_DBGAPI_REGISTER_PROPERTY_INVALIDATE_VOLATILE", AMD_DBGAPI_REGISTER_PROPERTY_INVALIDATE_VOLATILE, (1 << 2)},
    /* amd_dbgapi_register_info_t */
    {"AMD_DBGAPI_REGISTER_INFO_ARCHITECTURE", AMD_DBGAPI_REGISTER_INFO_ARCHITECTURE, 1},
    {"AMD_DBGAPI_REGISTER_INFO_NAME", AMD_DBGAPI_REGISTER_INFO_NAME, 2},
    {"AMD_DBGAPI_REGISTER_INFO_SIZE", AMD_DBGAPI_REGISTER_INFO_SIZE, 3},
    {"AMD_DBGAPI_REGISTER_INFO_TYPE", AMD_DBGAPI_REGISTER_INFO_TYPE, 4},
    {"AMD_DBGAPI_REGISTER_INFO_DWARF", AMD_DBGAPI_REGISTER_INFO_DWARF, 5},
    {"AMD_DBGAPI_REGISTER_INFO_PROPERTIES", AMD_DBGAPI_REGISTER_INFO_PROPERTIES, 6},
    /* amd_dbgapi_register_exists_t */
    {"AMD_DBGAPI_REGISTER_ABSENT", AMD_DBGAPI_REGISTER_ABSENT, 0},
    {"AMD_DBGAPI_REGISTER_PRESENT", AMD_DBGAPI_REGISTER_PRESENT, 1},
    /* amd_dbgapi_register_class_state_t */
    {"AMD_DBGAPI_REGISTER_CLASS_STATE_NOT_MEMBER", AMD_DBGAPI_REGISTER_CLASS_STATE_NOT_MEMBER, 0},
    {"AMD_DBGAPI_REGISTER_CLASS_STATE_MEMBER", AMD_DBGAPI_REGISTER_CLASS_STATE_MEMBER, 1},
    /* amd_dbgapi_address_class_info_t */
    {"AMD_DBGAPI_ADDRESS_CLASS_INFO_NAME", AMD_DBGAPI_ADDRESS_CLASS_INFO_NAME, 1},
    {"AMD_DBGAPI_ADDRESS_CLASS_INFO_ADDRESS_SPACE", AMD_DBGAPI_ADDRESS_CLASS_INFO_ADDRESS_SPACE, 2},
    {"AMD_DBGAPI_ADDRESS_CLASS_INFO_DWARF", AMD_DBGAPI_ADDRESS_CLASS_INFO_DWARF, 3},
    /* amd_dbgapi_address_space_access_t */
    {"AMD_DBGAPI_ADDRESS_SPACE_ACCESS_ALL", AMD_DBGAPI_ADDRESS_SPACE_ACCESS_ALL, 1},
    {"AMD_DBGAPI_ADDRESS_SPACE_ACCESS_PROGRAM_CONSTANT", AMD_DBGAPI_ADDRESS_SPACE_ACCESS_PROGRAM_CONSTANT, 2},
    {"AMD_DBGAPI_ADDRESS_SPACE_ACCESS_DISPATCH_CONSTANT", AMD_DBGAPI_ADDRESS_SPACE_ACCESS_DISPATCH_CONSTANT, 3},
    /* amd_dbgapi_address_space_info_t */
    {"AMD_DBGAPI_ADDRESS_SPACE_INFO_NAME", AMD_DBGAPI_ADDRESS_SPACE_INFO_NAME, 1},
    {"AMD_DBGAPI_ADDRESS_SPACE_INFO_ADDRESS_SIZE", AMD_DBGAPI_ADDRESS_SPACE_INFO_ADDRESS_SIZE, 2},
    {"AMD_DBGAPI_ADDRESS_SPACE_INFO_NULL_ADDRESS", AMD_DBGAPI_ADDRESS_SPACE_INFO_NULL_ADDRESS, 3},
    {"AMD_DBGAPI_ADDRESS_SPACE_INFO_ACCESS", AMD_DBGAPI_ADDRESS_SPACE_INFO_ACCESS, 4},
    {"AMD_DBGAPI_ADDRESS_SPACE_INFO_DWARF", AMD_DBGAPI_ADDRESS_SPACE_INFO_DWARF, 5},
    /* amd_dbgapi_segment_address_dependency_t */
    {"AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_NONE", AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_NONE, 0},
    {"AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_LANE", AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_LANE, 1},
    {"AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WAVE", AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WAVE, 2},
    {"AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WORKGROUP", AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WORKGROUP, 3},
    {"AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_AGENT", AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_AGENT, 4},
    {"AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_PROCESS", AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_PROCESS, 5},
    /* amd_dbgapi_address_class_state_t */
    {"AMD_DBGAPI_ADDRESS_CLASS_STATE_NOT_MEMBER", AMD_DBGAPI_ADDRESS_CLASS_STATE_NOT_MEMBER, 0},
    {"AMD_DBGAPI_ADDRESS_CLASS_STATE_MEMBER", AMD_DBGAPI_ADDRESS_CLASS_STATE_MEMBER, 1},
    /* amd_dbgapi_memory_precision_t */
    {"AMD_DBGAPI_MEMORY_PRECISION_NONE", AMD_DBGAPI_MEMORY_PRECISION_NONE, 0},
    {"AMD_DBGAPI_MEMORY_PRECISION_PRECISE", AMD_DBGAPI_MEMORY_PRECISION_PRECISE, 1},
    /* amd_dbgapi_alu_exceptions_precision_t */
    {"AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE", AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE, 0},
    {"AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_PRECISE", AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_PRECISE, 1},
    /* amd_dbgapi_event_kind_t */
    {"AMD_DBGAPI_EVENT_KIND_NONE", AMD_DBGAPI_EVENT_KIND_NONE, 0},
    {"AMD_DBGAPI_EVENT_KIND_WAVE_STOP", AMD_DBGAPI_EVENT_KIND_WAVE_STOP, 1},
    {"AMD_DBGAPI_EVENT_KIND_WAVE_COMMAND_TERMINATED", AMD_DBGAPI_EVENT_KIND_WAVE_COMMAND_TERMINATED, 2},
    {"AMD_DBGAPI_EVENT_KIND_CODE_OBJECT_LIST_UPDATED", AMD_DBGAPI_EVENT_KIND_CODE_OBJECT_LIST_UPDATED, 3},
    {"AMD_DBGAPI_EVENT_KIND_BREAKPOINT_RESUME", AMD_DBGAPI_EVENT_KIND_BREAKPOINT_RESUME, 4},
    {"AMD_DBGAPI_EVENT_KIND_RUNTIME", AMD_DBGAPI_EVENT_KIND_RUNTIME, 5},
    {"AMD_DBGAPI_EVENT_KIND_QUEUE_ERROR", AMD_DBGAPI_EVENT_KIND_QUEUE_ERROR, 6},
    /* amd_dbgapi_runtime_state_t */
    {"AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS", AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS, 1},
    {"AMD_DBGAPI_RUNTIME_STATE_UNLOADED", AMD_DBGAPI_RUNTIME_STATE_UNLOADED, 2},
    {"AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION", AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION, 3},
    /* amd_dbgapi_event_info_t */
    {"AMD_DBGAPI_EVENT_INFO_PROCESS", AMD_DBGAPI_EVENT_INFO_PROCESS, 1},
    {"AMD_DBGAPI_EVENT_INFO_KIND", AMD_DBGAPI_EVENT_INFO_KIND, 2},
    {"AMD_DBGAPI_EVENT_INFO_WAVE", AMD_DBGAPI_EVENT_INFO_WAVE, 3},
    {"AMD_DBGAPI_EVENT_INFO_BREAKPOINT", AMD_DBGAPI_EVENT_INFO_BREAKPOINT, 4},
    {"AMD_DBGAPI_EVENT_INFO_CLIENT_THREAD", AMD_DBGAPI_EVENT_INFO_CLIENT_THREAD, 5},
    {"AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE", AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE, 6},
    {"AMD_DBGAPI_EVENT_INFO_QUEUE", AMD_DBGAPI_EVENT_INFO_QUEUE, 7},
    /* amd_dbgapi_log_level_t */
    {"AMD_DBGAPI_LOG_LEVEL_NONE", AMD_DBGAPI_LOG_LEVEL_NONE, 0},
    {"AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR", AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR, 1},
    {"AMD_DBGAPI_LOG_LEVEL_WARNING", AMD_DBGAPI_LOG_LEVEL_WARNING, 2},
    {"AMD_DBGAPI_LOG_LEVEL_INFO", AMD_DBGAPI_LOG_LEVEL_INFO, 3},
    {"AMD_DBGAPI_LOG_LEVEL_TRACE", AMD_DBGAPI_LOG_LEVEL_TRACE, 4},
    {"AMD_DBGAPI_LOG_LEVEL_VERBOSE", AMD_DBGAPI_LOG_LEVEL_VERBOSE, 5},
    /* amd_dbgapi_breakpoint_info_t */
    {"AMD_DBGAPI_BREAKPOINT_INFO_PROCESS", AMD_DBGAPI_BREAKPOINT_INFO_PROCESS, 1},
    /* amd_dbgapi_breakpoint_action_t */
    {"AMD_DBGAPI_BREAKPOINT_ACTION_RESUME", AMD_DBGAPI_BREAKPOINT_ACTION_RESUME, 1},
    {"AMD_DBGAPI_BREAKPOINT_ACTION_HALT", AMD_DBGAPI_BREAKPOINT_ACTION_HALT, 2},
    /* amd_dbgapi_client_process_info_t */
    {"AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID", AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID, 1},
    {"AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE", AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE, 2},
};

static void check_rows(const struct enum_row *rows, size_t n)
{
  int bad = 0;

  for (size_t i = 0; i < n; i++) {
    if (rows[i].got != rows[i].want) {
      print_error("%s is %lld, expected %lld\n", rows[i].name, rows[i].got, rows[i].want);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

static void test_spec_enum_values(void **state)
{
  (void)state;
  check_rows(spec_values, sizeof spec_values / sizeof spec_values[0]);
}

static void test_all_enum_values(void **state)
{
  (void)state;
  /* 281 enumerators in 47 enumeration types. */
  assert_int_equal(sizeof all_values / sizeof all_values[0], 281);
  check_rows(all_values, sizeof all_values / sizeof all_values[0]);
}

/* ---- layouts and callbacks at run time --------------------------------------------------- */

static void test_struct_layouts(void **state)
{
  static const struct layout_row rows[] = {LAYOUT_MEMBERS(MEMBER)};
  int bad = 0;

  (void)state;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (rows[i].got_offset != rows[i].want_offset || rows[i].got_size != rows[i].want_size) {
      print_error("%s at %zu size %zu, expected at %zu size %zu\n", rows[i].what,
                  rows[i].got_offset, rows[i].got_size, rows[i].want_offset, rows[i].want_size);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
  assert_int_equal(sizeof(amd_dbgapi_core_state_data_t), 24);
  assert_int_equal(sizeof(amd_dbgapi_watchpoint_list_t), 16);
  assert_int_equal(sizeof(amd_dbgapi_direct_call_register_pair_information_t), 24);
  assert_int_equal(sizeof(amd_dbgapi_callbacks_t), 7 * sizeof(void (*)(void)));
}

/* Seven distinct callbacks, to see which slot a positional initialiser fills. */
static void *cb_allocate(size_t n)
{
  (void)n;
  return NULL;
}
static void cb_deallocate(void *p)
{
  (void)p;
}
static amd_dbgapi_status_t cb_get_info(amd_dbgapi_client_process_id_t c,
                                       amd_dbgapi_client_process_info_t q, size_t n, void *v)
{
  (void)c, (void)q, (void)n, (void)v;
  return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
}
static amd_dbgapi_status_t cb_insert(amd_dbgapi_client_process_id_t c,
                                     amd_dbgapi_global_address_t a, amd_dbgapi_breakpoint_id_t b)
{
  (void)c, (void)a, (void)b;
  return AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED;
}
static amd_dbgapi_status_t cb_remove(amd_dbgapi_client_process_id_t c,
                                     amd_dbgapi_breakpoint_id_t b)
{
  (void)c, (void)b;
  return AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED;
}
static amd_dbgapi_status_t cb_xfer(amd_dbgapi_client_process_id_t c,
                                   amd_dbgapi_global_address_t a, amd_dbgapi_size_t *n, void *r,
                                   const void *w)
{
  (void)c, (void)a, (void)r, (void)w;
  *n = 0;
  return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
}
static void cb_log(amd_dbgapi_log_level_t l, const char *m)
{
  (void)l, (void)m;
}

/* A client written against AMD's header fills the table positionally in slot order (§2). */
static void test_callback_order(void **state)
{
  amd_dbgapi_callbacks_t cb = {cb_allocate, cb_deallocate, cb_get_info, cb_insert,
                               cb_remove,   cb_xfer,       cb_log};
  unsigned char raw[sizeof cb];
  void (*slot[7])(void);

  (void)state;
  assert_ptr_equal(cb.allocate_memory, cb_allocate);
  assert_ptr_equal(cb.deallocate_memory, cb_deallocate);
  assert_ptr_equal(cb.client_process_get_info, cb_get_info);
  assert_ptr_equal(cb.insert_breakpoint, cb_insert);
  assert_ptr_equal(cb.remove_breakpoint, cb_remove);
  assert_ptr_equal(cb.xfer_global_memory, cb_xfer);
  assert_ptr_equal(cb.log_message, cb_log);
  /* Slot n is the n-th pointer in memory: no padding, no hidden members. */
  memcpy(raw, &cb, sizeof cb);
  memcpy(slot, raw, sizeof slot);
  assert_true(slot[0] == (void (*)(void))cb_allocate);
  assert_true(slot[2] == (void (*)(void))cb_get_info);
  assert_true(slot[5] == (void (*)(void))cb_xfer);
  assert_true(slot[6] == (void (*)(void))cb_log);
  /* The callbacks behave as a core client's would (§3.2): OS_PID is not available. */
  assert_int_equal(cb.client_process_get_info(NULL, AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID, 0, NULL),
                   AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE);
}

/* The core-state blob travels as { endianness, size, data } (§3.1). */
static void test_core_state_data(void **state)
{
  static const unsigned char desc[16] = {1};
  amd_dbgapi_core_state_data_t cs = {AMD_DBGAPI_ENDIAN_LITTLE, sizeof desc, desc};
  unsigned char raw[sizeof cs];
  uint32_t endian;
  uint64_t size;
  const void *data;

  (void)state;
  memset(raw, 0xa5, sizeof raw);
  memcpy(raw, &cs, sizeof cs);
  memcpy(&endian, raw + 0, 4);
  memcpy(&size, raw + 8, 8);
  memcpy(&data, raw + 16, 8);
  assert_int_equal(endian, 1);
  assert_int_equal(size, 16);
  assert_ptr_equal(data, desc);
}

/* Handle constants. */
static void test_handle_literals(void **state)
{
  amd_dbgapi_address_space_id_t global = AMD_DBGAPI_ADDRESS_SPACE_GLOBAL;
  amd_dbgapi_address_space_id_t none = AMD_DBGAPI_ADDRESS_SPACE_NONE;
  amd_dbgapi_process_id_t pnone = AMD_DBGAPI_PROCESS_NONE;
  amd_dbgapi_wave_id_t wnone = AMD_DBGAPI_WAVE_NONE;
  amd_dbgapi_event_id_t enone = AMD_DBGAPI_EVENT_NONE;
  amd_dbgapi_displaced_stepping_id_t dnone = AMD_DBGAPI_DISPLACED_STEPPING_NONE;

  (void)state;
  assert_int_equal(global.handle, 1);
  assert_int_equal(none.handle, 0);
  assert_int_equal(pnone.handle, 0);
  assert_int_equal(wnone.handle, 0);
  assert_int_equal(enone.handle, 0);
  assert_int_equal(dnone.handle, 0);
  assert_int_equal(AMD_DBGAPI_LANE_NONE, UINT32_MAX);
  assert_int_equal(AMD_DBGAPI_ARCHITECTURE_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_AGENT_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_QUEUE_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_DISPATCH_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_WORKGROUP_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_CODE_OBJECT_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_WATCHPOINT_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_REGISTER_CLASS_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_REGISTER_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_ADDRESS_CLASS_NONE.handle, 0);
  assert_int_equal(AMD_DBGAPI_BREAKPOINT_NONE.handle, 0);
}

/* abi_table.def rows: names unique, nodes known and in ascending order. */
struct abi_row
{
  const char *name, *node;
};

static const struct abi_row abi_rows[] = {
#define GC_DBGAPI_ABI_FN(name, ver) {#name, #ver},
#include "abi_table.def"
};
static const char *const abi_nodes[] = {
#define GC_DBGAPI_ABI_NODE(ver) #ver,
#include "abi_table.def"
};

static void test_abi_table(void **state)
{
  static const char *const want_nodes[] = {"0_54", "0_56", "0_58", "0_62", "0_64",
                                           "0_67", "0_68", "0_70", "0_76", "0_77"};
  /* Functions per node in AMD's 0.77.0 export map (§7). */
  static const size_t want_per_node[] = {37, 1, 1, 6, 4, 1, 1, 1, 13, 2};
  size_t nrows = sizeof abi_rows / sizeof abi_rows[0];

  (void)state;
  assert_int_equal(sizeof abi_nodes / sizeof abi_nodes[0], 10);
  for (size_t k = 0; k < 10; k++) {
    size_t n = 0;

    assert_string_equal(abi_nodes[k], want_nodes[k]);
    for (size_t i = 0; i < nrows; i++)
      n += strcmp(abi_rows[i].node, want_nodes[k]) == 0;
    if (n != want_per_node[k])
      fail_msg("node %s has %zu functions, expected %zu", want_nodes[k], n, want_per_node[k]);
  }
  for (size_t i = 0; i < nrows; i++) {
    int known = 0;

    assert_true(strncmp(abi_rows[i].name, "amd_dbgapi_", 11) == 0);
    for (size_t j = 0; j < i; j++)
      if (strcmp(abi_rows[i].name, abi_rows[j].name) == 0)
        fail_msg("%s listed twice", abi_rows[i].name);
    for (size_t k = 0; k < 10; k++)
      known |= strcmp(abi_rows[i].node, want_nodes[k]) == 0;
    if (!known)
      fail_msg("%s in unknown node %s", abi_rows[i].name, abi_rows[i].node);
  }
  /* The nodes that 0.77 re-tagged on ABI breaks (§6, §7). */
  for (size_t i = 0; i < nrows; i++) {
    if (strcmp(abi_rows[i].name, "amd_dbgapi_process_get_info") == 0)
      assert_string_equal(abi_rows[i].node, "0_77");
    if (strcmp(abi_rows[i].name, "amd_dbgapi_initialize") == 0)
      assert_string_equal(abi_rows[i].node, "0_76");
    if (strcmp(abi_rows[i].name, "amd_dbgapi_read_memory") == 0)
      assert_string_equal(abi_rows[i].node, "0_54");
    if (strcmp(abi_rows[i].name, "amd_dbgapi_watchpoint_get_info") == 0)
      assert_string_equal(abi_rows[i].node, "0_62");
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spec_enum_values), cmocka_unit_test(test_all_enum_values),
      cmocka_unit_test(test_struct_layouts),
      cmocka_unit_test(test_callback_order),   cmocka_unit_test(test_core_state_data),
      cmocka_unit_test(test_handle_literals),  cmocka_unit_test(test_abi_table),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
