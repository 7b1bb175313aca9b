/* SPDX-License-Identifier: MIT */
/*
 * What a backend implements. Backends speak the raw uapi (GET_VERSION, DBG_TRAP with the
 * kernel's argument structs, target memory reads); everything above that — version window,
 * entry-size negotiation, errno mapping, the event fd, status bits — lives once in kfd.c and
 * serves both backends. The simulated driver therefore implements exactly the kernel's
 * interface, and a bug in the shared layer shows up against both.
 */
#ifndef GC_KFD_INTERNAL_H
#define GC_KFD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kfd.h"
#include "procmaps.h"

struct gc_kfd_backend_ops {
    const char *name;
    /* Set up k->backend (open the device / connect). Fills diag on failure. */
    gpucore_status_t (*open)(struct gc_kfd *k, const struct gc_kfd_open_opts *o,
                             gpucore_diag_t *diag);
    /* AMDKFD_IOC_GET_VERSION. 0 or -errno. */
    int (*get_version)(struct gc_kfd *k, struct kfd_ioctl_get_version_args *args);
    /*
     * AMDKFD_IOC_DBG_TRAP with the kernel's semantics: pointers inside args are addresses in
     * this (the debugger's) process; the return value is >= 0 on success (the queue count for
     * SUSPEND/RESUME) or -errno. args->pid is set by the caller.
     */
    int (*dbg_trap)(struct gc_kfd *k, struct kfd_ioctl_dbg_trap_args *args);
    /*
     * Copy target memory. Returns 0 with *ret_done == size, or -errno with *ret_done the
     * readable prefix.
     */
    int (*read_memory)(struct gc_kfd *k, uint64_t addr, void *buf, size_t size,
                       size_t *ret_done);
    /* GPU mappings of the target (gc_kfd_gpu_mappings' contract). */
    gpucore_status_t (*gpu_mappings)(struct gc_kfd *k, struct gc_kfd_mapping **ret_maps,
                                     uint32_t *ret_count, gpucore_diag_t *diag);
    /* Service threads (gc_kfd_service_threads' contract). */
    gpucore_status_t (*service_threads)(struct gc_kfd *k, pid_t *ret_tids, uint32_t cap,
                                        uint32_t *ret_count, gpucore_diag_t *diag);
    /* Debug state of the driver (gc_kfd_driver_state's contract); NULL = not reported. */
    gpucore_status_t (*driver_state)(struct gc_kfd *k, int *ret_debug_enabled,
                                     uint32_t *ret_suspended_queues, gpucore_diag_t *diag);
    void (*close)(struct gc_kfd *k);
};

struct gc_kfd {
    const struct gc_kfd_backend_ops *ops;
    void *backend;   /* backend state */
    pid_t pid;
    uint32_t major, minor;
    int enabled;
    int event_fd;    /* the read end of the event pipe (pollable); -1 before ENABLE */
    int event_wfd;   /* its write end, handed to the driver at ENABLE; -1 before */
    int mem_fd;      /* /proc/PID/mem, opened lazily; -1 */
    int pagemap_fd;  /* /proc/PID/pagemap, opened lazily; -1 not yet, -2 unavailable */
    int maps_state;  /* 0 maps not read yet, 1 read, -1 unavailable */
    struct gc_procmaps maps; /* /proc/PID/maps at the first read (the target is stopped) */
    int no_vm_readv; /* test hook: never use process_vm_readv, as where it is refused or absent */
};

extern const struct gc_kfd_backend_ops gc_kfd_linux_ops;
extern const struct gc_kfd_backend_ops gc_kfd_sim_ops;

/*
 * Shared target-memory reader for both backends (the simulated inferior is a real process);
 * reports the readable prefix. It must not change the target (see gc_kfd_read_memory in
 * kfd.h): never-touched pages of private anonymous mappings (/proc/PID/pagemap: neither
 * present nor swapped) are zeros without being read; the rest is read with pread of
 * /proc/PID/mem, which maps the shared zero page rather than allocating, and reaches VM_IO /
 * PFNMAP device memory through the mapping's access hook. process_vm_readv (which pins pages
 * and may populate them) is used only where /proc/PID/mem cannot be opened, and only for pages
 * known to be populated or outside private anonymous memory.
 */
int gc_kfd_read_process_memory(struct gc_kfd *k, uint64_t addr, void *buf, size_t size,
                               size_t *ret_done);

#endif /* GC_KFD_INTERNAL_H */
