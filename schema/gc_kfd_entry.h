/* SPDX-License-Identifier: MIT */
/*
 * One entry of the AMDGPU note at a time, from the bytes the kernel lays it out in: the reader
 * of kfd_note.def's rows for a caller that holds a single entry rather than a note (the capture
 * turns the driver's device and queue snapshots into the note's agents and queues with it,
 * capture/plan.c). The whole
 * note is gpucore_amdgpu_note_decode()'s (<gpucore/schema.h>).
 *
 * Not installed; not part of the ABI. Thread safety: reentrant, no global state.
 */
#ifndef GC_KFD_ENTRY_H
#define GC_KFD_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/schema.h>
#include <gpucore/status.h>

/*
 * Decode the device entry (struct kfd_dbg_device_info_entry, little-endian, kfd_note.def's
 * kfd_device_entry) in the @p n bytes at @p b into *ret, zeroed first: the fields that lie inside
 * the n bytes are read, the others (capability2 of a 120-byte entry) stay 0.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_TRUNCATED  @p n is below the entry's smallest size (120); *ret untouched
 * @retval GPUCORE_E_INVAL      NULL @p b or @p ret
 */
gpucore_status_t gc_kfd_device_entry_decode(const uint8_t *b, size_t n,
                                            gpucore_kfd_device_entry_t *ret);

/*
 * The same for a queue entry (struct kfd_queue_snapshot_entry, kfd_note.def's kfd_queue_entry,
 * 64 bytes).
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_TRUNCATED  @p n is below the entry's smallest size (64); *ret untouched
 * @retval GPUCORE_E_INVAL      NULL @p b or @p ret
 */
gpucore_status_t gc_kfd_queue_entry_decode(const uint8_t *b, size_t n,
                                           gpucore_kfd_queue_entry_t *ret);

#endif /* GC_KFD_ENTRY_H */
