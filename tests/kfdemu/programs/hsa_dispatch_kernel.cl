// SPDX-License-Identifier: MIT
//
// The kernel hsa_dispatch.c loads and dispatches: each work-item stores `value` at its index.
// Built without the device libraries (-nogpulib), so it names the work-item and workgroup ids
// through the compiler's builtins, not get_global_id().
__kernel void fill(__global unsigned *out, unsigned value)
{
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
                 __builtin_amdgcn_workitem_id_x();
    out[i] = value;
}
