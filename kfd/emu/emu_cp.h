/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU's engines for one process: the compute command processor that reads AQL
 * packets from the process's queues, and the SDMA engines that run copy-queue packets. They
 * act on the process's memory as the GPU sees it (struct gc_emu_vm) and signal its events.
 */
#ifndef GC_EMU_CP_H
#define GC_EMU_CP_H

#include <stddef.h>
#include <stdint.h>

#include "emu_kfd.h"

/* A device file of the emulator: GC_EMU_FILE_KFD, or a device index (render node). */
#define GC_EMU_FILE_KFD (-1)

/* The GPU's view of one process's memory: what the process has mapped (through @p cpu), and
   the device files' bytes behind buffers it has not mapped (VRAM without host access). */
struct gc_emu_vm {
    struct gc_emu_proc *p;
    const struct gc_emu_io *cpu;
    void *file_ctx;
    /* Read (write = 0) or write @p len bytes at @p off of device file @p file: 0 or -1. */
    int (*file_rw)(void *ctx, int file, uint64_t off, void *buf, size_t len, int write);
    /* A kernel dispatch at the head of @p q: 0 it completes now; 1 it does not (the callback
       stopped the queue: a hang, a fault). NULL: every dispatch completes. */
    int (*dispatch)(void *ctx, struct gc_emu_queue *q, const uint8_t packet[64]);
    void *dispatch_ctx;
};

/* Access @p len bytes at GPU virtual address @p va: 0, or -1 when some byte is in no buffer
   of the process and not mapped by it (a GPU page fault). */
int gc_emu_vm_read(const struct gc_emu_vm *vm, uint64_t va, void *buf, size_t len);
int gc_emu_vm_write(const struct gc_emu_vm *vm, uint64_t va, const void *buf, size_t len);

/* What one pass over the queues did. */
struct gc_emu_cp_stats {
    uint32_t packets;        /* AQL packets retired */
    uint32_t sdma_packets;   /* SDMA packets retired */
    uint32_t events;         /* events signaled (the caller re-examines blocked waits) */
    uint32_t stalled;        /* queues waiting on a barrier, a poll or a hang */
    uint32_t blits;          /* ROCr blit kernels whose copy or fill was performed */
    uint32_t blits_refused;  /* blit kernels not (wholly) performed: arguments that do not fit
                                ROCr's dispatch, more than 4 GiB, or a byte in no buffer */
};

/* Run every queue of @p vm's process as far as it can go now. */
void gc_emu_cp_run(const struct gc_emu_vm *vm, struct gc_emu_cp_stats *stats);

#endif
