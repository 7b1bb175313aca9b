/* SPDX-License-Identifier: MIT */
/*
 * Kernels for tests/unit/test_arch_disasm_objdump.c, compiled at test time for each target
 * (clang -x cl -cl-std=CL2.0 -nogpulib -O2). They need no device library: only builtins. The
 * code is chosen for the variety of instructions it makes the compiler emit, not for what it
 * computes: scalar and vector memory (kernel arguments, global loads, stores and atomics), LDS
 * and a barrier, private (scratch) memory, loops, divergent branches, calls to a non-inlined
 * function (s_getpc/s_swappc/s_setpc), a trap, a sleep, DPP and lane operations, 64-bit,
 * double and half arithmetic, and integer division.
 */

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__attribute__((noinline)) static int weigh(__global const int *p, int n, int salt)
{
    int s = 0;

    for (int i = 0; i < n; i++)
        s += p[i] * (i ^ salt);
    return s;
}

__attribute__((noinline)) static double blend(double a, double b, int k)
{
    double r = a;

    for (int i = 0; i < k; i++)
        r = r * 0.5 + b / (double)(i + 1);
    return r;
}

__kernel void k_main(__global int *out, __global const int *in, int n, __local int *lds)
{
    int lid = __builtin_amdgcn_workitem_id_x();
    int gid = __builtin_amdgcn_workgroup_id_x() * 64 + lid;
    int v;

    lds[lid] = in[gid];
    __builtin_amdgcn_s_barrier();
    v = lds[(lid + 1) & 63];
    if (v < 0)
        __builtin_trap();
    if (n > 8)
        v += weigh(in, n, 3);
    else
        v -= weigh(in + 4, n, 5);
    __builtin_amdgcn_s_sleep(1);
    out[gid] = v;
}

__kernel void k_math(__global double *d, __global float *f, __global half *h,
                     __global long *l, __global int *q, int k)
{
    int lid = __builtin_amdgcn_workitem_id_x();
    int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
    int first = __builtin_amdgcn_readfirstlane(lid);
    int shuffled = __builtin_amdgcn_ds_bpermute((lane ^ 1) << 2, lid);
    int dpp = __builtin_amdgcn_update_dpp(0, lid, 0x111, 0xf, 0xf, false);

    d[lid] = blend(d[lid], (double)f[lid], k) + __builtin_sqrt(d[lid + 64]);
    f[lid] = __builtin_fmaf(f[lid], 2.0f, 1.0f) / (float)(k + 1) +
             __builtin_amdgcn_fmed3f(f[lid], 0.0f, 1.0f);
    h[lid] = h[lid] * (half)1.5 + (half)(float)lid;
    l[lid] = l[lid] * 12345678901LL + ((long)k << 33) / (l[lid + 1] | 1);
    q[lid] = q[lid] / (k | 1) + q[lid] % 7 + first + shuffled + dpp;
    __atomic_fetch_add(q + 128, lid, __ATOMIC_RELAXED);
}

__kernel void k_private(__global int *out, __global const int *idx, int n)
{
    /* Indexed by a loaded value, so the array lives in scratch memory. */
    volatile int buf[48];
    int lid = __builtin_amdgcn_workitem_id_x();
    int acc = 0;

    for (int i = 0; i < 48; i++)
        buf[i] = i * lid + n;
    for (int i = 0; i < n; i++) {
        int j = idx[(lid + i) & 255] % 48;

        if (j < 0)
            break;
        acc += buf[j];
        if (acc > 1000)
            continue;
        acc ^= buf[(j + 7) % 48];
    }
    out[lid] = acc;
}
