/* SPDX-License-Identifier: MIT */
/*
 * amdkfd's ioctls on the emulated devices: one process's driver state and the decoding of
 * every call, with amdkfd's rules and errnos (kfd_chardev.c of Linux 6.12). This part knows
 * nothing of seccomp or of the process: the caller copies the argument block in and out and
 * gives a memory interface for the pointers inside it, so the fuzz target drives it directly.
 */
#ifndef GC_EMU_KFD_H
#define GC_EMU_KFD_H

#include <stddef.h>
#include <stdint.h>

#include "emu_device.h"
#include "emu_uapi.h"

/* Memory of the calling process, for the pointers inside argument blocks. Each returns 0 or
   -1 (the address is not readable/writable as a whole: the call fails with EFAULT). */
struct gc_emu_io {
    void *ctx;
    int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
    int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
};

/* The whole emulated machine: devices plus the bump allocators of the device files' offsets
   (each mmap offset the driver hands out is a real offset of a regular file). */
struct gc_emu_machine {
    const struct gc_emu_device *devs;
    size_t ndevs;
    uint64_t kfd_file_next;                      /* doorbell pages */
    uint64_t render_file_next[GC_EMU_MAX_DEVICES]; /* VRAM / GTT buffers of each device */
    uint64_t file_limit;                         /* the files' length */
};

struct gc_emu_mem {
    uint64_t handle, va, size, offset; /* offset in the device's render file (0: userptr) */
    uint32_t dev, flags;
    uint32_t mapped;                   /* bit per device index */
};

struct gc_emu_event {
    uint32_t id, type, auto_reset, signaled;
    uint64_t age;
    struct kfd_hsa_memory_exception_data memory; /* MEMORY events: the last fault */
};

struct gc_emu_queue {
    uint32_t id, dev, type;
    uint64_t ring, ring_size, wptr_addr, rptr_addr;
    uint64_t doorbell_file_offset;     /* in /dev/kfd's file: the queue's 8-byte doorbell */
    uint64_t eop, eop_size, cwsr, cwsr_size, ctl_stack_size;
    uint64_t read_index;               /* packets consumed */
    uint32_t stopped;                  /* enum gc_emu_queue_stop */
    uint32_t debug_suspended;          /* a debugger's SUSPEND_QUEUES holds it */
};

enum gc_emu_queue_stop {
    GC_EMU_QUEUE_RUNNING = 0,
    GC_EMU_QUEUE_HUNG,      /* a dispatch that never ends holds it */
    GC_EMU_QUEUE_EVICTED,   /* a VM fault evicted the process's queues of the device */
    GC_EMU_QUEUE_EXCEPTION, /* a wave exception halted it (reported to the runtime) */
    GC_EMU_QUEUE_ERROR,     /* an SDMA packet the engine does not know */
};

#define GC_EMU_MAX_QUEUES 128  /* per process (amdkfd: 1024 per device) */
#define GC_EMU_MAX_MEMS 65536  /* buffers per process */

struct gc_emu_proc {
    struct gc_emu_machine *m;
    int pid;
    uint32_t vm_acquired;              /* bit per device index */
    uint64_t doorbell_page[GC_EMU_MAX_DEVICES]; /* kfd file offset + 1 (0: none yet) */
    struct gc_emu_mem *mems;
    size_t nmems, mems_cap;
    uint64_t next_handle;
    struct gc_emu_event *events;
    size_t nevents, events_cap;
    uint32_t next_signal_event, next_other_event;
    uint64_t event_page_va;            /* the user-allocated event page (dGPU) */
    struct gc_emu_queue queues[GC_EMU_MAX_QUEUES];
    uint32_t nqueues;
    uint64_t tba[GC_EMU_MAX_DEVICES], tma[GC_EMU_MAX_DEVICES];
    uint64_t scratch_va[GC_EMU_MAX_DEVICES];
    int32_t xnack;
    uint64_t r_debug;
    uint32_t runtime_state;            /* enum kfd_dbg_runtime_state */
    uint32_t ttmp_setup;
};

/* What a call asks of its caller beyond the copy out. */
enum gc_emu_verdict {
    GC_EMU_DONE,     /* answered: copy the block out (when the ioctl has IOC_OUT), return ret */
    GC_EMU_BLOCK,    /* WAIT_EVENTS must wait: call gc_emu_kfd_wait_retry when events fire or
                        at the deadline (ms from now in *wait_ms) */
};

struct gc_emu_result {
    enum gc_emu_verdict verdict;
    long ret;          /* 0 or -errno */
    uint32_t wait_ms;  /* GC_EMU_BLOCK: the timeout the caller gave */
};

void gc_emu_proc_init(struct gc_emu_proc *p, struct gc_emu_machine *m, int pid);
void gc_emu_proc_fini(struct gc_emu_proc *p);

/*
 * Serve one ioctl. @p cmd as the program passed it; @p args holds GC_IOC_SIZE(cmd) bytes
 * copied from the program (zeros when the ioctl has no IOC_IN), room for at least
 * GC_EMU_ARGS_MAX bytes. Unknown numbers: -ENOTTY, as amdkfd.
 */
#define GC_EMU_ARGS_MAX 0x4000
struct gc_emu_result gc_emu_kfd_ioctl(struct gc_emu_proc *p, unsigned cmd, uint8_t *args,
                                      const struct gc_emu_io *io);

/*
 * How many bytes of the program's argument block a call reads before (*in) and writes back
 * after (*out) the handler, as amdkfd's kfd_ioctl copies them: GC_IOC_SIZE(cmd) for each
 * direction of the driver's own definition. Returns 0 for numbers the emulator does not serve
 * (nothing is copied; gc_emu_kfd_ioctl gives the errno).
 */
int gc_emu_kfd_arg_copy(unsigned cmd, unsigned *in, unsigned *out);

/* Re-examine a blocked WAIT_EVENTS (the same @p args); @p timed_out: the deadline passed. */
struct gc_emu_result gc_emu_kfd_wait_retry(struct gc_emu_proc *p, uint8_t *args,
                                           const struct gc_emu_io *io, int timed_out);

/* Signal event @p id as the hardware's interrupt would (age + 1). Returns 0, or -1 (none). */
int gc_emu_kfd_signal(struct gc_emu_proc *p, uint32_t id);

/*
 * A GPU page fault of device @p dev at @p va (kfd_signal_vm_fault_event with no debugger):
 * every queue of the process on that device is evicted, and every MEMORY event is signaled
 * with the fault's data (page address, NotPresent, ReadOnly for a write). Returns the events
 * signaled.
 */
uint32_t gc_emu_kfd_vm_fault(struct gc_emu_proc *p, uint32_t dev, uint64_t va, int write);

/*
 * A queue exception (EC_QUEUE_* mask, KFD_EC_MASK) reported to the runtime as
 * kfd_send_exception_to_runtime does: ORed into the 64-bit word at the queue's save-area
 * header's err_payload_addr, then the header's err_event_id is signaled. Only while the runtime
 * is enabled (RUNTIME_ENABLE); the queue is halted either way. Returns the events signaled (0
 * or 1); -1 when the header or the payload cannot be read or written.
 */
int gc_emu_kfd_queue_exception(struct gc_emu_proc *p, struct gc_emu_queue *q, uint64_t ec_mask,
                               const struct gc_emu_io *io);

/* Name of an amdkfd ioctl number for messages ("CREATE_QUEUE"), or NULL. */
const char *gc_emu_kfd_name(unsigned cmd);

/* The buffer that holds @p va (in the process's GPU view), or NULL. */
const struct gc_emu_mem *gc_emu_kfd_find_mem(const struct gc_emu_proc *p, uint64_t va);

#endif
