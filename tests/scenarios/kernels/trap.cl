// SPDX-License-Identifier: MIT
// Kernels that stop in the trap handler: an assert (s_trap 2, as the device-side assert of
// HIP lowers to) and a division whose result is stored, used as the faulting kernel for the
// illegal-instruction scenario (the scenario places the PC; the kernel only provides code).
// Without the device library (-nogpulib) the OpenCL work-item functions do not exist; the
// compiler builtins give the same values. Workgroups are 256 work-items in every scenario.
#define WG 256
#define LOCAL_ID() ((int)__builtin_amdgcn_workitem_id_x())
#define GLOBAL_ID() ((int)__builtin_amdgcn_workgroup_id_x() * WG + LOCAL_ID())
// check indexes by the dispatch's workgroup size, as the device library's get_global_id(0)
// does: in code object v5 (how tests/scenarios.cmake builds this file, ROCm 6's default) that
// size is a hidden kernel argument (hidden_group_size_x), and its printf writes through another
// (hidden_printf_buffer), so check's metadata lists the hidden arguments and the runtime fills
// them.
__kernel void check(__global const int *in, __global int *out)
{
    int i = (int)__builtin_amdgcn_workgroup_id_x() * (int)__builtin_amdgcn_workgroup_size_x() +
            LOCAL_ID();

    if (in[i] < 0) {
        // what HIP's device-side assert does: the message through the printf buffer (a hidden
        // argument of its own), then the trap
        printf("check: in[%d] = %d is negative\n", i, in[i]);
        __asm__ volatile("s_trap 2");
    }
    out[i] = in[i] * 2;
}

__kernel void divide(__global const int *num, __global const int *den, __global int *out)
{
    int i = GLOBAL_ID();

    out[i] = num[i] / den[i];
}
