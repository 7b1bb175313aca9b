// SPDX-License-Identifier: MIT
//
// The ROCm 6 side of schema/gc_hsa_tools.h, checked against ROCr 6.1's own C++ header (the
// copy of the ROCm root's hsa/ headers tests/hook.cmake makes): the majors the hook accepts as
// ROCm 6's, and every slot of struct gc_hsa_amd_ext_table_v2 it reads or writes, and that the
// root and core tables' slots it uses did not move. Compiles only if the mirror is right;
// running it prints one line.
#define AMD_INTERNAL_BUILD 1 // the header then includes its siblings by plain name
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>
#include <cstdio>

extern "C" {
#include "gc_hsa_tools.h"
}

static_assert(GC_HSA_ROOT_TABLE_MAJOR_ROCM6 == HSA_API_TABLE_MAJOR_VERSION, "root major");
static_assert(GC_HSA_CORE_TABLE_MAJOR_ROCM6 == HSA_CORE_API_TABLE_MAJOR_VERSION, "core major");
static_assert(GC_HSA_AMD_EXT_TABLE_MAJOR_ROCM6 == HSA_AMD_EXT_API_TABLE_MAJOR_VERSION,
              "AMD extension major");

#define SAME(mine, theirs, member)                                                                 \
    static_assert(offsetof(mine, member) == offsetof(theirs, member), #mine "." #member)
SAME(gc_hsa_api_table, HsaApiTable, core_);
SAME(gc_hsa_api_table, HsaApiTable, amd_ext_);
SAME(gc_hsa_core_table, CoreApiTable, hsa_queue_create_fn);
SAME(gc_hsa_amd_ext_table_v2, AmdExtTable, version);
SAME(gc_hsa_amd_ext_table_v2, AmdExtTable, hsa_amd_memory_async_copy_on_engine_fn);
SAME(gc_hsa_amd_ext_table_v2, AmdExtTable, hsa_amd_memory_copy_engine_status_fn);
SAME(gc_hsa_amd_ext_table_v2, AmdExtTable, hsa_amd_register_system_event_handler_fn);
SAME(gc_hsa_amd_ext_table_v2, AmdExtTable, hsa_amd_queue_intercept_create_fn);
static_assert(offsetof(gc_hsa_amd_ext_table_v2, slots_after_copy_engine_status) ==
                      offsetof(AmdExtTable, hsa_amd_agent_memory_pool_get_info_fn),
              "the slots after the inserted two");

int main()
{
    std::printf("schema/gc_hsa_tools.h matches ROCr %d.x's hsa_api_trace.h (majors %u/%u/%u)\n",
                6, HSA_API_TABLE_MAJOR_VERSION, HSA_CORE_API_TABLE_MAJOR_VERSION,
                HSA_AMD_EXT_API_TABLE_MAJOR_VERSION);
    return 0;
}
