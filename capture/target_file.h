/* SPDX-License-Identifier: MIT */
/*
 * Read a file a target names (a file:// code object of its link map) only as the target
 * itself could: never with gpucore's rights.
 *
 * A short-lived child process does the reading. Before fork the caller's side reads the
 * target's credentials from /proc/PID/status (fsuid, fsgid, supplementary groups) and opens
 * /proc/PID/root (the target's view of the file system). The child takes those credentials
 * (setgroups, setresgid, setresuid: process-wide, which is why it is a process and not a
 * thread), resolves the path with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) below the
 * target's root as an O_PATH descriptor (so '..' and absolute symlinks stay inside, and a
 * FIFO or device is never opened), accepts only a regular file, reopens that inode for reading
 * (O_NONBLOCK | O_NOCTTY, permission checked with the target's credentials), checks the ELF
 * header (ELF64, little-endian, e_machine AMDGPU) and streams the bytes back over a pipe. The
 * parent waits at most @p timeout_ms for all of it and kills the child otherwise, so a slow
 * file (NFS, FUSE) cannot hold a capture whose target is stopped with its queues suspended.
 *
 * Internal to capture. No printing.
 */
#ifndef GC_CAPTURE_TARGET_FILE_H
#define GC_CAPTURE_TARGET_FILE_H

#include <stddef.h>
#include <stdint.h>

/* EM_AMDGPU: the only machine a code object read from a file may have. */
#define GC_TARGET_FILE_EM_AMDGPU 224u

/*
 * Read [offset, offset + size) of @p path (size 0: to the end of the file) as process @p pid
 * sees and may read it. At most @p max bytes; at most @p timeout_ms milliseconds (> 0).
 * @return 1: *ret (gc_malloc'ed, the caller frees it with gc_free) and *ret_size hold the
 *            bytes; 0: not read, @p why (NUL-terminated, @p why_size > 0) says why in one
 *            phrase ("not a regular file", "Permission denied", "timed out after 2000 ms");
 *         -1: out of memory.
 */
int gc_target_file_read(uint32_t pid, const char *path, uint64_t offset, uint64_t size,
                        uint64_t max, uint32_t timeout_ms, uint8_t **ret, uint64_t *ret_size,
                        char *why, size_t why_size);

#endif /* GC_CAPTURE_TARGET_FILE_H */
