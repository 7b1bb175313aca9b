/* SPDX-License-Identifier: MIT */
/*
 * The debugger's side of amdkfd (AMDKFD_IOC_DBG_TRAP) for one emulated process, served by the
 * simulated driver (kfd/sim/driver.c) on a description made from the emulated process: its
 * devices, its AQL queues and their save areas, its runtime info. The driver's rules are the
 * kernel's (ptrace parent only, one debugger, errnos; docs/kfd-debug-interface.md); this module
 * only translates the ioctl to the driver's request and its answer to the debugger's buffers.
 */
#ifndef GC_EMU_DEBUG_H
#define GC_EMU_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "cwsr.h"
#include "driver.h"
#include "emu_kfd.h"

/* What one XCC area of a queue would hold after a context save now: the header
   get_wave_state writes and the image from the area's base (header, control stack, waves). */
struct gc_emu_area {
    struct gc_cwsr_header header;
    const uint8_t *image; /* borrowed: valid until the provider is asked again for this area */
    size_t image_len;
};

/* The provider of areas: 0, or -1 (the area cannot be described: no waves). */
typedef int (*gc_emu_area_fn)(void *user, const struct gc_emu_queue *q, uint32_t xcc,
                              struct gc_emu_area *ret);

struct gc_emu_debug_target {
    struct gc_emu_proc *p;
    int pid;                       /* the target's tgid */
    gc_sim_write_fn write_mem;     /* its memory */
    void *mem_user;
    gc_sim_runtime_fn runtime_error; /* errors no debugger holds go back to the runtime */
    void *runtime_user;
    gc_emu_area_fn area;
    void *area_user;
};

struct gc_emu_debug;

/*
 * The debug side of @p t's process, with the queues it has now.
 * @retval GPUCORE_OK, GPUCORE_E_LIMIT (more queues than the driver takes), GPUCORE_E_NOMEM,
 *         GPUCORE_E_INVAL (a description the driver refuses; @p err says why).
 */
gpucore_status_t gc_emu_debug_new(const struct gc_emu_debug_target *t, struct gc_emu_debug **ret,
                                  char *err, size_t errlen);
void gc_emu_debug_free(struct gc_emu_debug *g);

/*
 * Serve one DBG_TRAP of the debugger process @p debugger: @p args as it passed them (updated
 * as the kernel writes them back), outputs written into its memory through @p dbg_io.
 * @p event_fd: ENABLE's eventfd, duplicated into this process (taken over), or -1.
 * Returns 0 (or a positive count, as the kernel's SUSPEND/RESUME) or -errno.
 */
long gc_emu_debug_ioctl(struct gc_emu_debug *g, int debugger, struct kfd_ioctl_dbg_trap_args *args,
                        int event_fd, const struct gc_emu_io *dbg_io);

/* An error of the hardware, now: recorded for the debugger or handed to the runtime. */
void gc_emu_debug_raise(struct gc_emu_debug *g, const struct gc_sim_exception *x);

/* Queue @p q's save changed (a fault): ask the provider again for its XCC areas. */
void gc_emu_debug_update(struct gc_emu_debug *g, const struct gc_emu_queue *q);

/* The debugger process @p debugger is gone: an implicit DISABLE if it held the session. */
void gc_emu_debug_disconnect(struct gc_emu_debug *g, int debugger);

/* A queue the process created since: the debugger's snapshots list it (EC_QUEUE_NEW). */
void gc_emu_debug_add_queue(struct gc_emu_debug *g, const struct gc_emu_queue *q);

/* The process's runtime enabled or disabled itself (RUNTIME_ENABLE): the debugger's runtime
   info follows, and it gets EC_PROCESS_RUNTIME when the runtime starts. */
void gc_emu_debug_runtime(struct gc_emu_debug *g, const struct gc_emu_proc *p);

/* Mark each of the process's queues a debugger has suspended (gc_emu_queue::debug_suspended). */
void gc_emu_debug_sync_queues(const struct gc_emu_debug *g, struct gc_emu_proc *p);

/* The debugger holding the session (0: none). */
int gc_emu_debug_owner(const struct gc_emu_debug *g);

#endif
