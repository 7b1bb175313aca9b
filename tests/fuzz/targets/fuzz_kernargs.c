/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for analyze/kernargs: the input is NT_AMDGPU_METADATA bytes (MessagePack).
 * gc_ka_parse() returns a documented status with a message on failure and no metadata; on
 * success every kernel has a name, every argument a value kind and an extent inside
 * GC_KA_MAX_SEGMENT, and every argument formats from a segment of any size without reading
 * past it. The same bytes are also tried as an ELF image (gc_ka_from_elf).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(gpucore_status_t st, const gpucore_diag_t *d, const void *md)
{
    if (st == GPUCORE_OK) {
        if (!md)
            abort();
        return;
    }
    if (md || !d->message[0])
        abort();
    if (st != GPUCORE_E_CORRUPT && st != GPUCORE_E_NOTFOUND && st != GPUCORE_E_LIMIT &&
        st != GPUCORE_E_NOMEM)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_ka_metadata *md = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_ka_parse(data, size, &md, &d);

    check_status(st, &d, md);
    for (uint32_t i = 0; md && i < md->nkernels; i++) {
        const struct gc_ka_kernel *k = &md->kernels[i];

        if (!k->name || gc_ka_find(md, k->name) == NULL)
            abort();
        for (uint32_t j = 0; j < k->nargs; j++) {
            const struct gc_ka_arg *a = &k->args[j];
            uint8_t *seg = malloc((size_t)a->offset + a->size + 1u);
            char text[256];

            if (!seg)
                abort();
            if (!a->value_kind || (uint64_t)a->offset + a->size > GC_KA_MAX_SEGMENT)
                abort();
            memset(seg, 0xa5, (size_t)a->offset + a->size + 1u);
            if (gc_ka_format_value(a, seg, (uint64_t)a->offset + a->size, text, sizeof(text),
                                   NULL) != GPUCORE_OK)
                abort();
            if (a->size && gc_ka_format_value(a, seg, (uint64_t)a->offset + a->size - 1u, text,
                                              sizeof(text), NULL) != GPUCORE_E_UNAVAILABLE)
                abort();
            if (strlen(text) >= sizeof(text))
                abort();
            free(seg);
        }
    }
    gc_ka_free(md);
    md = NULL;
    memset(&d, 0, sizeof(d));
    if (size) {
        st = gc_ka_from_elf(data, size, &md, &d);
        check_status(st, &d, md);
        gc_ka_free(md);
    }
    return 0;
}
