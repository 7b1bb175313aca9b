// SPDX-License-Identifier: MIT
//
// hip_vadd: the ordinary life of a HIP program, for gpucore-kfdemu's tests. It allocates three
// device buffers (hipMalloc), copies the inputs host to device (hipMemcpy, SDMA or a blit
// kernel in ROCr), launches a vector-add kernel (an AQL dispatch packet and a doorbell),
// waits for it (hipDeviceSynchronize: the completion signal), copies back and frees. Every
// HIP status is checked; any failure prints the call and the error and exits 1.
//
// On a real GPU c[i] = a[i] + b[i]. The emulated GPU does not execute kernels, so the sum is
// not checked; the copies are real, so a buffer the kernel does not touch (`spare`) must come
// back from its host-to-device-to-host round trip unchanged, and that is checked.
// Prints "hip_vadd: ok: N elements, round trip of N words intact" and exits 0.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096      // elements: 16 workgroups of 256, enough for more than one wave per CU
#define BLOCK 256

#define CHECK(call)                                                                     \
    do {                                                                                \
        hipError_t err_ = (call);                                                       \
        if (err_ != hipSuccess) {                                                       \
            fprintf(stderr, "hip_vadd: %s: %s\n", #call, hipGetErrorString(err_));      \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void vadd(const unsigned *a, const unsigned *b, unsigned *c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main(void)
{
    static unsigned a[N], b[N], c[N], spare[N], back[N];
    unsigned *da, *db, *dc, *dspare;
    size_t bytes = sizeof(a);

    for (unsigned i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 2 * i;
        spare[i] = 0x9e3779b9u * (i + 1); // a pattern no zero-filled page repeats
    }
    CHECK(hipMalloc((void **)&da, bytes));
    CHECK(hipMalloc((void **)&db, bytes));
    CHECK(hipMalloc((void **)&dc, bytes));
    CHECK(hipMalloc((void **)&dspare, bytes));
    CHECK(hipMemcpy(da, a, bytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b, bytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(dspare, spare, bytes, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(vadd, dim3(N / BLOCK), dim3(BLOCK), 0, 0, da, db, dc, (unsigned)N);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(c, dc, bytes, hipMemcpyDeviceToHost)); // not checked: see above
    CHECK(hipMemcpy(back, dspare, bytes, hipMemcpyDeviceToHost));
    for (unsigned i = 0; i < N; i++) {
        if (back[i] != spare[i]) {
            fprintf(stderr, "hip_vadd: word %u came back as 0x%08x, sent 0x%08x\n", i, back[i],
                    spare[i]);
            return 1;
        }
    }
    CHECK(hipFree(da));
    CHECK(hipFree(db));
    CHECK(hipFree(dc));
    CHECK(hipFree(dspare));
    printf("hip_vadd: ok: %d elements, round trip of %d words intact\n", N, N);
    return 0;
}
