/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for analyze/host_stack: the input is a host core (NT_PRSTATUS, NT_FILE,
 * NT_AUXV and the memory the unwinder reads). gc_host_stacks_json() without --sysroot (so no
 * file is ever opened) returns a JSON object or null, and every frame list respects its bound.
 */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include <gpucore/core.h>

#include "host_stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    const json_t *th;
    json_t *h;
    size_t i;

    if (gpucore_core_open_memory(data, size, NULL, &core, &d) != GPUCORE_OK)
        return 0;
    /* An error thread from the input's length: sometimes one of the core's tids. */
    h = gc_host_stacks_json(core, NULL, (uint32_t)(size & 0xff));
    if (!h)
        abort(); /* out of memory is not expected at these sizes */
    if (!json_is_null(h) && !json_is_object(h))
        abort();
    if (json_array_size(json_object_get(h, "threads")) > GC_HS_MAX_THREADS)
        abort();
    json_array_foreach(json_object_get(h, "threads"), i, th)
    {
        if (json_array_size(json_object_get(th, "frames")) > GC_HS_MAX_FRAMES)
            abort();
    }
    json_decref(h);
    gpucore_core_close(core);
    return 0;
}
