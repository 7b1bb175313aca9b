// SPDX-License-Identifier: MIT
// A kernel that never finishes unless the host flips *flag: multi-gpu-hang.json's waves are
// all running inside this loop.
// Without the device library (-nogpulib) the OpenCL work-item functions do not exist; the
// compiler builtins give the same values. Workgroups are 256 work-items in every scenario.
#define WG 256
#define LOCAL_ID() ((int)__builtin_amdgcn_workitem_id_x())
#define GLOBAL_ID() ((int)__builtin_amdgcn_workgroup_id_x() * WG + LOCAL_ID())
__kernel void spin(volatile __global int *flag, __global int *out)
{
    int n = 0;

    while (*flag == 0)
        n++;
    out[GLOBAL_ID()] = n;
}
