// SPDX-License-Identifier: MIT
//
// hip_illegal: a kernel that executes an illegal instruction, for the kfdemu fault tests. The
// word 0xbfff0000 is a SOPP instruction with opcode 127, which no gfx9, gfx940 or gfx11
// processor defines (llvm-mc --disassemble says "invalid instruction encoding" for gfx90a,
// gfx942 and gfx1100); it is emitted with .long so the assembler takes it as data.
//
// On a real GPU the wave takes an illegal-instruction exception (SQ_WAVE_TRAPSTS.ILLEGAL_INST),
// the trap handler reports it, and HIP's queue error callback prints "Callback: Queue 0x...
// aborting with error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The wavefront attempted to
// execute an illegal instruction" (wording per ROCr version) and aborts: exit 134 (SIGABRT).
// Should hipDeviceSynchronize return, the fault was not reported: the program says so and exits
// 3 (1 is a failed HIP call before the launch).
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        hipError_t err_ = (call);                                                       \
        if (err_ != hipSuccess) {                                                       \
            fprintf(stderr, "hip_illegal: %s: %s\n", #call, hipGetErrorString(err_));   \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void illegal(unsigned *out)
{
    out[threadIdx.x] = 1;
    __asm__ volatile(".long 0xbfff0000"); // SOPP opcode 127: not an instruction
    out[threadIdx.x] = 2;
}

int main(void)
{
    unsigned *out;
    hipError_t err;

    CHECK(hipMalloc((void **)&out, 64 * sizeof(unsigned)));
    hipLaunchKernelGGL(illegal, dim3(1), dim3(64), 0, 0, out);
    CHECK(hipGetLastError());
    err = hipDeviceSynchronize();
    printf("hip_illegal: no illegal instruction reported (hipDeviceSynchronize: %s)\n",
           hipGetErrorString(err));
    return 3;
}
