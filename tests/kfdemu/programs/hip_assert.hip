// SPDX-License-Identifier: MIT
//
// hip_assert: a device-side assert() that fails, for the kfdemu fault tests. Lane 5 of the
// only workgroup asserts that its index is not 5.
//
// On a real GPU HIP's device __assert_fail prints "hip_assert.hip:NN: void check(unsigned
// int *): Device-side assertion `threadIdx.x != 5' failed." through the device printf buffer
// and executes s_trap 2 (llvm.trap); the trap handler reports it and HIP's queue error
// callback prints "Callback: Queue 0x... aborting with error : HSA_STATUS_ERROR_EXCEPTION: An
// HSAIL operation resulted in a hardware exception. code: 0x1016" and aborts: exit 134
// (SIGABRT). Should hipDeviceSynchronize return, the assert was not reported: the program
// says so and exits 3 (1 is a failed HIP call before the launch).
#include <assert.h>
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        hipError_t err_ = (call);                                                       \
        if (err_ != hipSuccess) {                                                       \
            fprintf(stderr, "hip_assert: %s: %s\n", #call, hipGetErrorString(err_));    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void check(unsigned *out)
{
    assert(threadIdx.x != 5);
    out[threadIdx.x] = threadIdx.x;
}

int main(void)
{
    unsigned *out;
    hipError_t err;

    CHECK(hipMalloc((void **)&out, 64 * sizeof(unsigned)));
    hipLaunchKernelGGL(check, dim3(1), dim3(64), 0, 0, out);
    CHECK(hipGetLastError());
    err = hipDeviceSynchronize();
    printf("hip_assert: no device assert reported (hipDeviceSynchronize: %s)\n",
           hipGetErrorString(err));
    return 3;
}
