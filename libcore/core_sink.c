/* SPDX-License-Identifier: MIT */
/* What both sinks share: choosing one, and writing without short writes. */
#include "core_sink.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"
#include "gc_util.h"

gpucore_status_t gc_core_sink_new(int fd, const struct gc_core_wopts *o, struct gc_core_sink **ret,
                                  gpucore_diag_t *diag)
{
    struct gc_core_zstd_params zp = { o->level, o->threads, o->frame_size };
    uint64_t budget = o->max_bytes ? o->max_bytes : GC_CORE_NONE;

    if (!o->level)
        return gc_core_sink_plain_new(fd, budget, ret, diag);
    return gc_core_sink_zstd_new(fd, budget, &zp, ret, diag);
}

gpucore_status_t gc_core_pwrite_all(int fd, const void *p, size_t n, uint64_t off,
                                    gpucore_diag_t *diag)
{
    const uint8_t *b = p;

    while (n) {
        ssize_t r = pwrite(fd, b, n, (off_t)off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            /* A zero-byte write makes no progress; report it as the full disk it means. */
            int e = r < 0 ? errno : ENOSPC;

            return gc_diag_set(diag, GPUCORE_E_IO, off, "write of %zu bytes at offset 0x%llx: %s",
                               n, (unsigned long long)off, strerror(e));
        }
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GPUCORE_OK;
}
