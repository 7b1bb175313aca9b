// SPDX-License-Identifier: MIT
//
// hip_oob: a kernel that writes far out of bounds of a hipMalloc'd buffer, for the kfdemu
// fault tests. Each lane stores at buf[lane + stride], stride passed as a kernel argument
// (so the compiler cannot see the fault): 2^37 words, 512 GiB past the buffer, an address no
// allocation of this process comes near.
//
// On a real GPU the store faults (a GPU page fault, amdkfd's memory exception event) and ROCr's
// handler prints "Memory access fault by GPU node-N (Agent handle: 0x...) on address 0x....
// Reason: Page not present or supervisor privilege." and aborts the process: exit 134
// (SIGABRT) before hipDeviceSynchronize returns. Should it return, the fault was not reported:
// the program says so and exits 3 (1 is a failed HIP call before the launch).
//
// hip_oob --wait: once the runtime has started (the buffer's line is printed), wait for a
// line on stdin before the launch, so that a test can arm `gpucore watch` on the running
// process first (tests/kfdemu/gpucore/watch-oob.case). End of input also goes on.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 1024
#define FAR_WORDS (1ull << 37) // 512 GiB of 4-byte words past the buffer

#define CHECK(call)                                                                     \
    do {                                                                                \
        hipError_t err_ = (call);                                                       \
        if (err_ != hipSuccess) {                                                       \
            fprintf(stderr, "hip_oob: %s: %s\n", #call, hipGetErrorString(err_));       \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void write_far(unsigned *buf, unsigned long long stride)
{
    buf[threadIdx.x + stride] = 0xdeadbeefu;
}

int main(int argc, char **argv)
{
    unsigned *buf;
    hipError_t err;
    int wait = argc > 1 && strcmp(argv[1], "--wait") == 0;

    CHECK(hipMalloc((void **)&buf, WORDS * sizeof(unsigned)));
    printf("hip_oob: buffer at %p, writing at %p\n", (void *)buf, (void *)(buf + FAR_WORDS));
    fflush(stdout);
    if (wait) {
        char line[16];

        (void)!fgets(line, sizeof(line), stdin);
    }
    hipLaunchKernelGGL(write_far, dim3(1), dim3(64), 0, 0, buf, FAR_WORDS);
    CHECK(hipGetLastError());
    err = hipDeviceSynchronize();
    printf("hip_oob: no memory access fault reported (hipDeviceSynchronize: %s)\n",
           hipGetErrorString(err));
    return 3;
}
