/* SPDX-License-Identifier: MIT */
/*
 * gen_kfdemu_ioctl_seeds: writes the seed corpus of fuzz_kfdemu_ioctl.
 *
 *   gen_kfdemu_ioctl_seeds tests/fuzz/corpus/fuzz_kfdemu_ioctl
 *
 * Each seed is a short session a program under gpucore-kfdemu could run, in the fuzz target's
 * input form (the process memory image, then the calls): every amdkfd call the emulator serves
 * with valid arguments, an AQL queue with a barrier and a dispatch whose completion raises an
 * event, an SDMA queue with each packet ROCr writes, the render node's calls, and the numbers
 * the emulator refuses. The files are committed; rerun this when the input form or the calls
 * change, and keep any crash reproducers the fuzzer found next to them. Not a test.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_device.h"
#include "emu_kfd.h"

/* The fuzz target's process memory (fuzz_kfdemu_ioctl.c) and where the seeds lay things. */
#define MEM_BASE 0x10000ull
#define OFF_IDS 0x000u    /* gpu id arrays */
#define OFF_EVENTS 0x040u /* struct kfd_event_data[] */
#define OFF_PTRS 0x0c0u   /* queue read / write pointers, 8 bytes each */
#define OFF_SIGNALS 0x100u /* amd_signal_t, 64 bytes each */
#define OFF_MAILBOX 0x180u
#define OFF_NAME 0x1c0u   /* a DRM name buffer */
#define OFF_RING 0x200u   /* a ring (1 KiB, the least amdkfd takes) */
#define OFF_DATA 0x600u   /* buffers SDMA copies and fills */
#define MEM_USED 0x700u

enum {
    NR_GET_VERSION = 0x01, NR_CREATE_QUEUE = 0x02, NR_DESTROY_QUEUE = 0x03,
    NR_SET_MEMORY_POLICY = 0x04, NR_GET_CLOCK_COUNTERS = 0x05, NR_GET_PROCESS_APERTURES = 0x06,
    NR_UPDATE_QUEUE = 0x07, NR_CREATE_EVENT = 0x08, NR_DESTROY_EVENT = 0x09, NR_SET_EVENT = 0x0A,
    NR_RESET_EVENT = 0x0B, NR_WAIT_EVENTS = 0x0C, NR_SET_SCRATCH_BACKING_VA = 0x11,
    NR_GET_TILE_CONFIG = 0x12, NR_SET_TRAP_HANDLER = 0x13, NR_GET_PROCESS_APERTURES_NEW = 0x14,
    NR_ACQUIRE_VM = 0x15, NR_ALLOC_MEMORY_OF_GPU = 0x16, NR_FREE_MEMORY_OF_GPU = 0x17,
    NR_MAP_MEMORY_TO_GPU = 0x18, NR_UNMAP_MEMORY_FROM_GPU = 0x19, NR_SET_CU_MASK = 0x1A,
    NR_ALLOC_QUEUE_GWS = 0x1E, NR_SVM = 0x20, NR_SET_XNACK_MODE = 0x21,
    NR_AVAILABLE_MEMORY = 0x23, NR_RUNTIME_ENABLE = 0x25, NR_COMMAND_END = 0x27,
};

static const char *out_dir;
static struct gc_emu_device dev; /* the fuzz target's gfx90a */
static uint8_t memimg[MEM_USED];

struct seed {
    uint8_t data[8192];
    size_t len;
};

static void put(struct seed *s, const void *p, size_t n)
{
    if (s->len + n > sizeof(s->data)) {
        fprintf(stderr, "seed too large\n");
        exit(1);
    }
    if (n)
        memcpy(s->data + s->len, p, n);
    s->len += n;
}

static void put_le(struct seed *s, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        uint8_t b = (uint8_t)(v >> (8 * i));

        put(s, &b, 1);
    }
}

/* A seed whose memory image is memimg's first @p used bytes. */
static void begin(struct seed *s, size_t used)
{
    s->len = 0;
    put_le(s, used, 2);
    put(s, memimg, used);
}

static void call(struct seed *s, unsigned cmd, const void *a, size_t n)
{
    put_le(s, cmd, 4);
    put_le(s, n, 2);
    put(s, a, n);
}

#define KFD(s, nr, a) call((s), GC_IOC(3u, 'K', (nr), (unsigned)sizeof(a)), &(a), sizeof(a))

static void write_seed(const char *name, const struct seed *s)
{
    char path[4096];
    FILE *f;

    if (snprintf(path, sizeof(path), "%s/%s", out_dir, name) >= (int)sizeof(path)) {
        fprintf(stderr, "%s/%s: path too long\n", out_dir, name);
        exit(1);
    }
    f = fopen(path, "wb");
    if (!f || fwrite(s->data, 1, s->len, f) != s->len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    printf("%s (%zu bytes)\n", name, s->len);
}

static void mem64(uint32_t off, uint64_t v)
{
    memcpy(memimg + off, &v, 8);
}

static void mem32(uint32_t off, uint32_t v)
{
    memcpy(memimg + off, &v, 4);
}

static void acquire(struct seed *s)
{
    struct kfd_ioctl_acquire_vm_args a = { .drm_fd = 3, .gpu_id = dev.agent.gpu_id };

    KFD(s, NR_ACQUIRE_VM, a);
}

static void seed_version(void)
{
    struct seed s;
    struct kfd_ioctl_get_version_args v = { 0 };

    begin(&s, 0);
    KFD(&s, NR_GET_VERSION, v);
    write_seed("version", &s);
}

static void seed_apertures(void)
{
    struct seed s;
    struct kfd_ioctl_get_process_apertures_new_args a = { .num_of_nodes = 0 };

    begin(&s, 0);
    KFD(&s, NR_GET_PROCESS_APERTURES_NEW, a); /* how many */
    a.kfd_process_device_apertures_ptr = MEM_BASE + OFF_DATA;
    a.num_of_nodes = 1;
    KFD(&s, NR_GET_PROCESS_APERTURES_NEW, a);
    call(&s,
         GC_IOC(2u, 'K', NR_GET_PROCESS_APERTURES,
                (unsigned)sizeof(struct kfd_ioctl_get_process_apertures_args)),
         NULL, 0);
    write_seed("apertures", &s);
}

static void seed_memory(void)
{
    struct seed s;
    struct kfd_ioctl_alloc_memory_of_gpu_args al = {
        .va_addr = 0x7f0000000000ull, .size = 1u << 20, .gpu_id = dev.agent.gpu_id,
        .flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM,
    };
    struct kfd_ioctl_map_memory_to_gpu_args map = {
        .handle = ((uint64_t)dev.agent.gpu_id << 32) | 1, .device_ids_array_ptr = MEM_BASE + OFF_IDS,
        .n_devices = 1,
    };
    struct kfd_ioctl_free_memory_of_gpu_args fr = { .handle = map.handle };
    struct kfd_ioctl_get_available_memory_args av = { .gpu_id = dev.agent.gpu_id };

    memset(memimg, 0, sizeof(memimg));
    mem32(OFF_IDS, dev.agent.gpu_id);
    begin(&s, 4);
    acquire(&s);
    KFD(&s, NR_ALLOC_MEMORY_OF_GPU, al); /* handle gpu_id << 32 | 1 */
    al.va_addr = MEM_BASE + OFF_DATA;  /* host memory the GPU may use: GTT, then userptr */
    al.size = 0x100;
    al.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT;
    KFD(&s, NR_ALLOC_MEMORY_OF_GPU, al);
    KFD(&s, NR_MAP_MEMORY_TO_GPU, map);
    map.n_success = 0;
    KFD(&s, NR_UNMAP_MEMORY_FROM_GPU, map);
    KFD(&s, NR_AVAILABLE_MEMORY, av);
    KFD(&s, NR_FREE_MEMORY_OF_GPU, fr);
    al.va_addr = 0x7f0000100000ull;
    al.size = 8192;
    al.flags = KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL;
    KFD(&s, NR_ALLOC_MEMORY_OF_GPU, al);
    al.va_addr = 0x7f0000200000ull;
    al.size = 4096;
    al.flags = KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
    KFD(&s, NR_ALLOC_MEMORY_OF_GPU, al);
    al.va_addr = 0x7f0000300000ull;
    al.mmap_offset = MEM_BASE + OFF_DATA;
    al.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
    KFD(&s, NR_ALLOC_MEMORY_OF_GPU, al);
    write_seed("memory", &s);
}

static void seed_events(void)
{
    struct seed s;
    struct kfd_ioctl_create_event_args ce = { .event_type = KFD_IOC_EVENT_SIGNAL, .auto_reset = 1 };
    struct kfd_ioctl_event_id_args id = { .event_id = 1 }; /* the first signal event */
    struct kfd_ioctl_wait_events_args w = { .events_ptr = MEM_BASE + OFF_EVENTS, .num_events = 1 };
    struct kfd_event_data ed = { 0 };

    memset(memimg, 0, sizeof(memimg));
    ed.event_id = 1;
    ed.signal_event_data.last_event_age = 1;
    memcpy(memimg + OFF_EVENTS, &ed, sizeof(ed));
    begin(&s, OFF_EVENTS + sizeof(ed));
    KFD(&s, NR_CREATE_EVENT, ce);
    ce.event_type = KFD_IOC_EVENT_HW_EXCEPTION;
    ce.auto_reset = 0;
    KFD(&s, NR_CREATE_EVENT, ce);
    KFD(&s, NR_WAIT_EVENTS, w);      /* not signaled, timeout 0 */
    KFD(&s, NR_SET_EVENT, id);
    KFD(&s, NR_WAIT_EVENTS, w);      /* complete */
    w.timeout = 5;
    KFD(&s, NR_WAIT_EVENTS, w);      /* blocks, then times out */
    KFD(&s, NR_RESET_EVENT, id);
    KFD(&s, NR_DESTROY_EVENT, id);
    write_seed("events", &s);
}

static struct kfd_ioctl_create_queue_args queue_args(uint32_t type)
{
    struct kfd_ioctl_create_queue_args q = {
        .ring_base_address = MEM_BASE + OFF_RING, .ring_size = 1024,
        .read_pointer_address = MEM_BASE + OFF_PTRS, .write_pointer_address = MEM_BASE + OFF_PTRS + 8,
        .gpu_id = dev.agent.gpu_id, .queue_type = type, .queue_percentage = 100,
        .queue_priority = 7,
    };

    if (type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {
        q.ctx_save_restore_address = 0x7f0010000000ull;
        q.ctx_save_restore_size = dev.cwsr.cwsr_size;
        q.ctl_stack_size = dev.cwsr.ctl_stack_size;
        q.eop_buffer_address = 0x7f0020000000ull;
        q.eop_buffer_size = 4096;
    }
    return q;
}

/* AQL: a barrier-AND on signal 0 (value 0: ready) and a kernel dispatch whose completion
   signal 1 (value 1) has the event mailbox and event 1. */
static void seed_aql(void)
{
    struct seed s;
    struct kfd_ioctl_create_event_args ce = { .event_type = KFD_IOC_EVENT_SIGNAL, .auto_reset = 1 };
    struct kfd_ioctl_create_queue_args q = queue_args(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
    struct kfd_ioctl_wait_events_args w = { .events_ptr = MEM_BASE + OFF_EVENTS, .num_events = 1 };
    struct kfd_ioctl_destroy_queue_args dq = { .queue_id = 0 };
    struct kfd_ioctl_set_cu_mask_args cu = { .queue_id = 0, .num_cu_mask = 128,
                                             .cu_mask_ptr = MEM_BASE + OFF_DATA };
    struct kfd_ioctl_alloc_queue_gws_args gws = { .queue_id = 0, .num_gws = 1 };
    struct kfd_ioctl_update_queue_args uq = { .ring_base_address = MEM_BASE + OFF_RING,
                                              .queue_id = 0, .ring_size = 1024,
                                              .queue_percentage = 100, .queue_priority = 7 };
    struct kfd_event_data ed = { 0 };
    uint16_t header;

    memset(memimg, 0, sizeof(memimg));
    ed.event_id = 1;
    memcpy(memimg + OFF_EVENTS, &ed, sizeof(ed));
    mem64(OFF_PTRS + 8, 2); /* the write index: two packets */
    mem64(OFF_SIGNALS + 64 + 8, 1);
    mem64(OFF_SIGNALS + 64 + 16, MEM_BASE + OFF_MAILBOX);
    mem32(OFF_SIGNALS + 64 + 24, 1);
    header = 3; /* BARRIER_AND */
    memcpy(memimg + OFF_RING, &header, 2);
    mem64(OFF_RING + 8, MEM_BASE + OFF_SIGNALS);
    header = 2; /* KERNEL_DISPATCH */
    memcpy(memimg + OFF_RING + 64, &header, 2);
    mem64(OFF_RING + 64 + 56, MEM_BASE + OFF_SIGNALS + 64);
    begin(&s, OFF_RING + 128);
    acquire(&s);
    KFD(&s, NR_CREATE_EVENT, ce);
    KFD(&s, NR_CREATE_QUEUE, q); /* the packets run after this call */
    KFD(&s, NR_WAIT_EVENTS, w);
    KFD(&s, NR_SET_CU_MASK, cu);
    KFD(&s, NR_ALLOC_QUEUE_GWS, gws);
    KFD(&s, NR_UPDATE_QUEUE, uq);
    KFD(&s, NR_DESTROY_QUEUE, dq);
    write_seed("aql", &s);
}

/* SDMA, as ROCr's amd_blit_sdma.cpp writes the packets for SDMA 4 and later. */
static void seed_sdma(void)
{
    struct seed s;
    struct kfd_ioctl_create_event_args ce = { .event_type = KFD_IOC_EVENT_SIGNAL, .auto_reset = 1 };
    struct kfd_ioctl_create_queue_args q = queue_args(KFD_IOC_QUEUE_TYPE_SDMA);
    uint64_t src = MEM_BASE + OFF_DATA, dst = src + 0x40, sig = MEM_BASE + OFF_SIGNALS + 8;
    const uint32_t pkts[] = {
        /* POLL_REGMEM: memory, equal, until the dword at dst is 0 (it is) */
        8u | (3u << 28) | (1u << 31), (uint32_t)dst, (uint32_t)(dst >> 32), 0, 0xffffffffu,
        (0xfffu << 16) | 4,
        /* COPY_LINEAR of 32 bytes (count = bytes - 1) */
        1u, 31, 0, (uint32_t)src, (uint32_t)(src >> 32), (uint32_t)dst, (uint32_t)(dst >> 32),
        /* CONSTANT_FILL of 4 dwords (count = (dwords - 1) * 4) */
        11u | (2u << 30), (uint32_t)(dst + 0x40), (uint32_t)((dst + 0x40) >> 32), 0xc0ffee11u,
        12,
        /* FENCE */
        5u, (uint32_t)(MEM_BASE + OFF_MAILBOX), (uint32_t)((MEM_BASE + OFF_MAILBOX) >> 32), 1,
        /* ATOMIC add64 of -1 on a signal's value */
        10u | (47u << 25), (uint32_t)sig, (uint32_t)(sig >> 32), 0xffffffffu, 0xffffffffu, 0,
        0, 0,
        /* TIMESTAMP (get global) */
        13u | (2u << 8), (uint32_t)(dst + 0x60), (uint32_t)((dst + 0x60) >> 32),
        /* GCR */
        17u, 0, 0, 0, 0,
        /* NOP of 2 dwords */
        1u << 16, 0,
        /* TRAP with event 1 */
        6u, 1,
    };

    memset(memimg, 0, sizeof(memimg));
    memcpy(memimg + OFF_RING, pkts, sizeof(pkts));
    mem64(OFF_PTRS + 8, sizeof(pkts)); /* write pointer in bytes */
    mem64(OFF_SIGNALS + 8, 1);
    for (unsigned i = 0; i < 32; i++)
        memimg[OFF_DATA + i] = (uint8_t)(i + 1);
    begin(&s, OFF_DATA + 32);
    acquire(&s);
    KFD(&s, NR_CREATE_EVENT, ce);
    KFD(&s, NR_CREATE_QUEUE, q);
    write_seed("sdma", &s);
}

static void seed_device_calls(void)
{
    struct seed s;
    uint32_t g = dev.agent.gpu_id;
    struct kfd_ioctl_set_memory_policy_args mp = { .gpu_id = g, .default_policy = 1 };
    struct kfd_ioctl_get_clock_counters_args cc = { .gpu_id = g };
    struct kfd_ioctl_get_tile_config_args tc = { .gpu_id = g };
    struct kfd_ioctl_set_scratch_backing_va_args sv = { .va_addr = 0x7f0030000000ull, .gpu_id = g };
    struct kfd_ioctl_set_trap_handler_args th = { .tba_addr = 0x7f0040000000ull,
                                                  .tma_addr = 0x7f0040001000ull, .gpu_id = g };
    struct kfd_ioctl_set_xnack_mode_args x = { .xnack_enabled = -1 };
    struct kfd_ioctl_runtime_enable_args re = { .r_debug = 0x7f0050000000ull,
                                                .mode_mask = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK };

    begin(&s, 0);
    KFD(&s, NR_SET_MEMORY_POLICY, mp);
    KFD(&s, NR_GET_CLOCK_COUNTERS, cc);
    KFD(&s, NR_GET_TILE_CONFIG, tc);
    KFD(&s, NR_SET_SCRATCH_BACKING_VA, sv);
    KFD(&s, NR_SET_TRAP_HANDLER, th);
    KFD(&s, NR_SET_XNACK_MODE, x);
    x.xnack_enabled = 0;
    KFD(&s, NR_SET_XNACK_MODE, x);
    KFD(&s, NR_RUNTIME_ENABLE, re);
    write_seed("device_calls", &s);
}

/* The render node: VERSION with a name buffer, AMDGPU_INFO DEV_INFO and READ_MMR_REG. */
static void seed_drm(void)
{
    struct seed s;
    uint64_t version[8] = { 0, 0, 16, MEM_BASE + OFF_NAME, 0, 0, 0, 0 }; /* name_len, name */
    struct {
        uint64_t ptr;
        uint32_t size, query, arg[4];
    } info = { MEM_BASE + OFF_DATA, 64, 0x16, { 0 } };

    begin(&s, 0);
    call(&s, GC_IOC(3u, 'd', 0x00, 64), version, sizeof(version));
    call(&s, GC_IOC(1u, 'd', 0x45, 32), &info, sizeof(info));
    info.query = 0x15;
    info.size = 4;
    info.arg[0] = 0x263e;
    info.arg[1] = 1;
    info.arg[2] = 0xffffffffu;
    call(&s, GC_IOC(1u, 'd', 0x45, 32), &info, sizeof(info));
    call(&s, GC_IOC(3u, 'd', 0x05, 40), NULL, 0); /* GET_CLIENT: refused */
    write_seed("drm", &s);
}

/* Numbers amdkfd has not (0, COMMAND_END), ones the emulator does not serve (SVM), and a block
   shorter than its struct. */
static void seed_refused(void)
{
    struct seed s;
    uint8_t zero[24] = { 0 };
    struct kfd_ioctl_alloc_memory_of_gpu_args al = {
        .va_addr = 0x7f0000000000ull, .size = 4096, .gpu_id = dev.agent.gpu_id,
        .flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM,
    };

    begin(&s, 0);
    call(&s, GC_IOC(3u, 'K', 0, 8), zero, 8);
    call(&s, GC_IOC(3u, 'K', NR_COMMAND_END, 8), zero, 8);
    call(&s, GC_IOC(3u, 'K', NR_SVM, 24), zero, 24);
    acquire(&s);
    call(&s, GC_IOC(3u, 'K', NR_ALLOC_MEMORY_OF_GPU, 32), &al, 32);
    write_seed("refused", &s);
}

int main(int argc, char **argv)
{
    size_t n = 0;
    char err[256];

    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    out_dir = argv[1];
    if (gc_emu_devices_add("gfx90a", &dev, 1, &n, err, sizeof(err)) != GPUCORE_OK) {
        fprintf(stderr, "gfx90a: %s\n", err);
        return 1;
    }
    seed_version();
    seed_apertures();
    seed_memory();
    seed_events();
    seed_aql();
    seed_sdma();
    seed_device_calls();
    seed_drm();
    seed_refused();
    return 0;
}
