/* SPDX-License-Identifier: MIT */
/*
 * The one way capture reads target memory: a function and its user pointer, set up once by
 * the capture (capture.c, on gc_kfd_read_memory) or by a test, and passed by pointer to every
 * part that reads (the plan, the host-memory selection, the dynamic linker's list), as
 * elfutils registers its memory_read once in Dwfl_Thread_Callbacks. The writer's pull callback
 * (libcore's public gpucore_read_fn) is the one adapter, at the libcore boundary (capture.c).
 *
 * Internal to capture. No printing.
 */
#ifndef GC_CAPTURE_MEM_READER_H
#define GC_CAPTURE_MEM_READER_H

#include <stdint.h>

#include <gpucore/status.h>

/*
 * Read [addr, addr + size) of the target into @p buf (contract of gc_kfd_read_memory):
 * @retval GPUCORE_OK             all of it read, *ret_done == size
 * @retval GPUCORE_E_UNAVAILABLE  part of it unreadable: *ret_done is the readable prefix (copied
 *                                to buf), *ret_errno the error (EIO, EFAULT; 0 if unknown)
 * any other status               the target is gone, refused or the capture was interrupted:
 *                                stops what is reading (*ret_done, *ret_errno as far as known)
 * @p ret_done and @p ret_errno are never NULL.
 */
typedef gpucore_status_t (*gc_mem_read_fn)(void *user, uint64_t addr, void *buf, uint64_t size,
                                           uint64_t *ret_done, int *ret_errno);

struct gc_mem_reader {
    gc_mem_read_fn read;
    void *user; /* borrowed, passed to read */
};

/*
 * All of [addr, addr + size) or nothing: 0 when @p r read all of it (GPUCORE_OK), -1 for
 * anything less (a partial read, a failure). For structures that are useless in part.
 */
static inline int gc_mem_read_all(const struct gc_mem_reader *r, uint64_t addr, void *buf,
                                  uint64_t size)
{
    uint64_t done = 0;
    int err = 0;

    return r->read(r->user, addr, buf, size, &done, &err) == GPUCORE_OK ? 0 : -1;
}

#endif /* GC_CAPTURE_MEM_READER_H */
