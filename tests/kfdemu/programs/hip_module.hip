// SPDX-License-Identifier: MIT
//
// hip_module: a kernel loaded at run time from a code object held in memory
// (hipModuleLoadData), as frameworks that compile or fetch kernels do, then launched with
// hipModuleLaunchKernel; it writes far out of bounds of its buffer like hip_oob. ROCr names
// such a code object memory://PID#offset=ADDRESS&size=BYTES in its link map: the object
// lives only in the process's memory.
//
//     hip_module MODULE.co        (the module compiled by build-programs.sh: hip_module_kernel.co)
//
// Exit status: 134 when the fault aborts it (ROCr's handler); 3 if no fault was reported; 1 a
// failed HIP call or an unreadable module.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        hipError_t err_ = (call);                                                       \
        if (err_ != hipSuccess) {                                                       \
            fprintf(stderr, "hip_module: %s: %s\n", #call, hipGetErrorString(err_));    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    hipModule_t module;
    hipFunction_t fn;
    unsigned *buf;
    unsigned long long stride = 1ull << 37;
    FILE *f;
    char *image;
    long size;

    if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: hip_module MODULE.co (a readable code object)\n");
        return 1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(image = (char *)malloc((size_t)size)) || fread(image, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "hip_module: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    CHECK(hipModuleLoadData(&module, image));
    CHECK(hipModuleGetFunction(&fn, module, "module_write_far"));
    CHECK(hipMalloc((void **)&buf, 4096));
    struct {
        unsigned *buf;
        unsigned long long stride;
    } args = { buf, stride };
    size_t args_size = sizeof(args);
    void *config[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                       &args_size, HIP_LAUNCH_PARAM_END };
    printf("hip_module: module of %ld bytes loaded, buffer at %p\n", size, (void *)buf);
    fflush(stdout);
    CHECK(hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, NULL, config));
    hipError_t err = hipDeviceSynchronize();
    printf("hip_module: no memory access fault reported (hipDeviceSynchronize: %s)\n",
           hipGetErrorString(err));
    return 3;
}
