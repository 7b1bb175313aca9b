/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "core_internal.h"
#include "gc_util.h"

gpucore_status_t gc_core_opts_check(const void *opts, size_t known, const char *what,
                                    gpucore_diag_t *diag)
{
    const unsigned char *b = opts;
    size_t sz;

    if (!opts)
        return GPUCORE_OK;
    memcpy(&sz, opts, sizeof(sz)); /* every options struct starts with its size_t sz */
    GC_FAIL_IF(sz < sizeof(size_t), diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "%s: sz %zu is too small; initialise with GPUCORE_OPTS()", what, sz);
    for (size_t i = known; i < sz; i++)
        GC_FAIL_IF(b[i], diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "%s: byte %zu is set, but this library knows only the first %zu bytes", what, i,
                   known);
    return GPUCORE_OK;
}
