// SPDX-License-Identifier: MIT
//
// hsa_dispatch: a kernel dispatched through ROCr's HSA API directly, with no HIP in between,
// for gpucore-kfdemu's tests. It exercises what every GPU language runtime does underneath:
//   hsa_init; the agents (a CPU and a GPU) and their memory pools; a user-mode AQL queue
//   (hsa_queue_create: amdkfd's CREATE_QUEUE, the ring, the doorbell page); the code object
//   CODE_OBJECT (the kernel `fill` of hsa_dispatch_kernel.cl) loaded by ROCr's loader
//   (code object reader, executable load and freeze, symbol lookup of fill.kd); kernel
//   arguments in the kernarg pool; an output buffer in the GPU's own pool; one dispatch packet
//   written into the ring, its header published last, and the doorbell rung; a wait on the
//   completion signal bounded by a deadline; and everything released again.
//
// On a real GPU the kernel stores VALUE in each of the 256 words. The emulated GPU does not
// execute kernels, so the words are not checked; that the packet retires (the completion
// signal drops to 0) is. Prints "hsa_dispatch: ok: ..." and exits 0; a failed call prints its
// name and status string and exits 1; no completion within WAIT_SECONDS exits 2.
//
//   hsa_dispatch CODE_OBJECT
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ITEMS 256         // work-items in the grid: 4 workgroups of 64
#define WORKGROUP 64      // one wave64 on gfx9, two wave32 on gfx11
#define VALUE 0x600dcafeu // what the kernel stores
#define WAIT_SECONDS 10   // a real GPU retires this in microseconds; an emulator far below this
#define QUEUE_PACKETS 64u // ring size: a power of two, above every agent's minimum

static void check(hsa_status_t st, const char *what)
{
    const char *why = NULL;

    if (st == HSA_STATUS_SUCCESS)
        return;
    if (hsa_status_string(st, &why) != HSA_STATUS_SUCCESS || !why)
        why = "(no status string)";
    fprintf(stderr, "hsa_dispatch: %s: status 0x%x: %s\n", what, (unsigned)st, why);
    exit(1);
}

struct agents {
    hsa_agent_t cpu, gpu;
    int have_cpu, have_gpu;
    unsigned count;
};

static hsa_status_t on_agent(hsa_agent_t agent, void *data)
{
    struct agents *a = data;
    hsa_device_type_t type;
    hsa_status_t st = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);

    if (st != HSA_STATUS_SUCCESS)
        return st;
    a->count++;
    if (type == HSA_DEVICE_TYPE_CPU && !a->have_cpu) {
        a->cpu = agent;
        a->have_cpu = 1;
    } else if (type == HSA_DEVICE_TYPE_GPU && !a->have_gpu) {
        a->gpu = agent;
        a->have_gpu = 1;
    }
    return HSA_STATUS_SUCCESS;
}

// The pool a search wants: the kernarg pool of the CPU agent, or the GPU's coarse-grained pool.
struct pool_want {
    uint32_t flag;
    hsa_amd_memory_pool_t pool;
    int found;
    unsigned seen;
};

static hsa_status_t on_pool(hsa_amd_memory_pool_t pool, void *data)
{
    struct pool_want *w = data;
    hsa_amd_segment_t seg;
    uint32_t flags = 0;
    int alloc_ok = 0;
    hsa_status_t st;

    w->seen++;
    st = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
    if (st != HSA_STATUS_SUCCESS)
        return st;
    if (seg != HSA_AMD_SEGMENT_GLOBAL)
        return HSA_STATUS_SUCCESS;
    st = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if (st == HSA_STATUS_SUCCESS)
        st = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                          &alloc_ok);
    if (st != HSA_STATUS_SUCCESS)
        return st;
    if (!w->found && alloc_ok && (flags & w->flag)) {
        w->pool = pool;
        w->found = 1;
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_amd_memory_pool_t find_pool(hsa_agent_t agent, uint32_t flag, const char *what)
{
    struct pool_want w = { .flag = flag };

    check(hsa_amd_agent_iterate_memory_pools(agent, on_pool, &w),
          "hsa_amd_agent_iterate_memory_pools");
    if (!w.found) {
        fprintf(stderr, "hsa_dispatch: no %s among the agent's %u memory pools\n", what, w.seen);
        exit(1);
    }
    return w.pool;
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// The kernel's explicit arguments, as the OpenCL compiler lays them out: `out` at 0, `value`
// at 8, 12 bytes (no padding: the segment size the code object gives is 12). Hidden arguments
// that may follow (code object v5) stay zero; this kernel reads none.
#define ARG_OUT_OFFSET 0
#define ARG_VALUE_OFFSET 8
#define ARGS_SIZE 12

int main(int argc, char **argv)
{
    struct agents ag = { .count = 0 };
    char gpu_name[64] = "", isa_name[64] = "";
    hsa_profile_t profile;
    hsa_queue_t *queue;
    hsa_code_object_reader_t reader;
    hsa_executable_t exe;
    hsa_executable_symbol_t sym;
    uint64_t kernel_object;
    uint32_t kernarg_size, group_size, private_size, max_queue;
    hsa_amd_memory_pool_t kernarg_pool, gpu_pool;
    void *kernarg, *out;
    hsa_signal_t done;
    hsa_kernel_dispatch_packet_t *ring, *pkt;
    uint64_t index;
    uint16_t header, setup;
    hsa_signal_value_t left = 1;
    double deadline;
    int fd;

    if (argc != 2) {
        fprintf(stderr, "usage: hsa_dispatch CODE_OBJECT\n");
        return 1;
    }
    check(hsa_init(), "hsa_init");
    check(hsa_iterate_agents(on_agent, &ag), "hsa_iterate_agents");
    if (!ag.have_cpu || !ag.have_gpu) {
        fprintf(stderr, "hsa_dispatch: %u agents, %s CPU, %s GPU\n", ag.count,
                ag.have_cpu ? "a" : "no", ag.have_gpu ? "a" : "no");
        return 1;
    }
    check(hsa_agent_get_info(ag.gpu, HSA_AGENT_INFO_NAME, gpu_name), "HSA_AGENT_INFO_NAME");
    check(hsa_agent_get_info(ag.gpu, HSA_AGENT_INFO_PROFILE, &profile), "HSA_AGENT_INFO_PROFILE");
    check(hsa_agent_get_info(ag.gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_queue),
          "HSA_AGENT_INFO_QUEUE_MAX_SIZE");
    {
        hsa_isa_t isa;
        check(hsa_agent_get_info(ag.gpu, HSA_AGENT_INFO_ISA, &isa), "HSA_AGENT_INFO_ISA");
        check(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, isa_name), "HSA_ISA_INFO_NAME");
    }
    kernarg_pool = find_pool(ag.cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT, "kernarg pool");
    gpu_pool = find_pool(ag.gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
                         "coarse-grained pool");

    check(hsa_queue_create(ag.gpu, QUEUE_PACKETS < max_queue ? QUEUE_PACKETS : max_queue,
                           HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue),
          "hsa_queue_create");

    fd = open(argv[1], O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    check(hsa_code_object_reader_create_from_file(fd, &reader),
          "hsa_code_object_reader_create_from_file");
    check(hsa_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe),
          "hsa_executable_create_alt");
    check(hsa_executable_load_agent_code_object(exe, ag.gpu, reader, NULL, NULL),
          "hsa_executable_load_agent_code_object");
    check(hsa_executable_freeze(exe, NULL), "hsa_executable_freeze");
    check(hsa_executable_get_symbol_by_name(exe, "fill.kd", &ag.gpu, &sym),
          "hsa_executable_get_symbol_by_name(fill.kd)");
    check(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                         &kernel_object),
          "KERNEL_OBJECT");
    check(hsa_executable_symbol_get_info(
              sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size),
          "KERNEL_KERNARG_SEGMENT_SIZE");
    check(hsa_executable_symbol_get_info(
              sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group_size),
          "KERNEL_GROUP_SEGMENT_SIZE");
    check(hsa_executable_symbol_get_info(
              sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &private_size),
          "KERNEL_PRIVATE_SEGMENT_SIZE");
    if (kernarg_size < ARGS_SIZE) {
        fprintf(stderr, "hsa_dispatch: fill takes %u bytes of arguments, expected >= %d\n",
                kernarg_size, ARGS_SIZE);
        return 1;
    }

    check(hsa_amd_memory_pool_allocate(gpu_pool, ITEMS * sizeof(uint32_t), 0, &out),
          "hsa_amd_memory_pool_allocate(output)");
    check(hsa_amd_memory_pool_allocate(kernarg_pool, kernarg_size, 0, &kernarg),
          "hsa_amd_memory_pool_allocate(kernarg)");
    check(hsa_amd_agents_allow_access(1, &ag.gpu, NULL, kernarg), "hsa_amd_agents_allow_access");
    memset(kernarg, 0, kernarg_size);
    {
        uint32_t value = VALUE;
        memcpy((char *)kernarg + ARG_OUT_OFFSET, &out, sizeof(out));
        memcpy((char *)kernarg + ARG_VALUE_OFFSET, &value, sizeof(value));
    }
    check(hsa_signal_create(1, 0, NULL, &done), "hsa_signal_create");

    // Claim a slot, wait until it is free, fill the packet but its header, publish the header
    // with release order (the packet processor reads the rest only after it), ring the doorbell.
    index = hsa_queue_add_write_index_relaxed(queue, 1);
    while (index - hsa_queue_load_read_index_scacquire(queue) >= queue->size)
        ;
    ring = queue->base_address;
    pkt = &ring[index & (queue->size - 1)];
    memset((char *)pkt + sizeof(uint32_t), 0, sizeof(*pkt) - sizeof(uint32_t));
    pkt->workgroup_size_x = WORKGROUP;
    pkt->workgroup_size_y = 1;
    pkt->workgroup_size_z = 1;
    pkt->grid_size_x = ITEMS;
    pkt->grid_size_y = 1;
    pkt->grid_size_z = 1;
    pkt->private_segment_size = private_size;
    pkt->group_segment_size = group_size;
    pkt->kernel_object = kernel_object;
    pkt->kernarg_address = kernarg;
    pkt->completion_signal = done;
    header = (uint16_t)(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
             (uint16_t)(1 << HSA_PACKET_HEADER_BARRIER) |
             (uint16_t)(HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
             (uint16_t)(HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    __atomic_store_n((uint32_t *)pkt, (uint32_t)header | ((uint32_t)setup << 16),
                     __ATOMIC_RELEASE);
    hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);

    deadline = now_seconds() + WAIT_SECONDS;
    while (now_seconds() < deadline) {
        left = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 100000000u,
                                         HSA_WAIT_STATE_BLOCKED);
        if (left < 1)
            break;
    }
    if (left >= 1) {
        fprintf(stderr, "hsa_dispatch: the dispatch did not complete within %d s (signal %ld)\n",
                WAIT_SECONDS, (long)left);
        return 2;
    }

    check(hsa_signal_destroy(done), "hsa_signal_destroy");
    check(hsa_amd_memory_pool_free(kernarg), "hsa_amd_memory_pool_free(kernarg)");
    check(hsa_amd_memory_pool_free(out), "hsa_amd_memory_pool_free(output)");
    check(hsa_executable_destroy(exe), "hsa_executable_destroy");
    check(hsa_code_object_reader_destroy(reader), "hsa_code_object_reader_destroy");
    close(fd);
    check(hsa_queue_destroy(queue), "hsa_queue_destroy");
    check(hsa_shut_down(), "hsa_shut_down");
    printf("hsa_dispatch: ok: %u agents, %s (%s), fill dispatched as %d work-items and retired\n",
           ag.count, gpu_name, isa_name, ITEMS);
    return 0;
}
