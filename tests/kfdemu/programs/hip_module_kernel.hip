// SPDX-License-Identifier: MIT
//
// The kernel hip_module loads from memory (compiled with --genco into hip_module_kernel.co):
// each lane stores at buf[lane + stride], stride a kernel argument.
#include <hip/hip_runtime.h>

extern "C" __global__ void module_write_far(unsigned *buf, unsigned long long stride)
{
    buf[threadIdx.x + stride] = 0xdeadbeefu;
}
