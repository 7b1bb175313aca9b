// SPDX-License-Identifier: MIT
// c[i] = a[i] + b[i], staged through LDS so the dispatch has a group segment (vadd-fault.json
// expects LDS in the saved waves). The store through `c` is what faults in the scenarios.
// Without the device library (-nogpulib) the OpenCL work-item functions do not exist; the
// compiler builtins give the same values. Workgroups are 256 work-items in every scenario.
#define WG 256
#define LOCAL_ID() ((int)__builtin_amdgcn_workitem_id_x())
#define GLOBAL_ID() ((int)__builtin_amdgcn_workgroup_id_x() * WG + LOCAL_ID())
// The store is two inlined helpers deep (vadd -> finish -> store_sum) so that the faulting PC's
// inline chain has three frames; always_inline keeps the code identical to a flat kernel.
static inline __attribute__((always_inline)) void store_sum(__global float *c, int i, float x, float y)
{
    c[i] = x + y;
}

static inline __attribute__((always_inline)) void finish(__global const float *b, __global float *c,
                                                         int n, int i, float t)
{
    if (i < n)
        store_sum(c, i, t, b[i]);
}

__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n)
{
    __local float tile[256];
    int i = GLOBAL_ID();
    int l = LOCAL_ID();

    tile[l] = i < n ? a[i] : 0.0f;
    __builtin_amdgcn_s_barrier();
    finish(b, c, n, i, tile[l]);
}
