/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the parser of amdkfd's topology properties files
 * (gc_kfd_topology_parse_properties, kfd/kfd_topology.c). The input is the file's text.
 *
 * Invariants (abort() on violation):
 *  - a failure is GPUCORE_E_CORRUPT with a message naming the input and a line number no larger
 *    than the input's lines;
 *  - a success stores only what the text says: a 32-bit field holds a value of a line of the
 *    input, and a field the text does not name keeps its prior value.
 */
#include <stdint.h>
#include <string.h>

#include "kfd_topology.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_kfd_topology_node n, before;
    gpucore_diag_t diag;
    gpucore_status_t st;
    const char *text = (const char *)data;

    memset(&n, 0xa5, sizeof(n));
    before = n;
    memset(&diag, 0, sizeof(diag));
    st = gc_kfd_topology_parse_properties("input", text, size, &n, &diag);
    if (st != GPUCORE_OK) {
        size_t lines = 1;
        unsigned long line = 0;

        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        CHECK(st == GPUCORE_E_CORRUPT && diag.status == st);
        CHECK(memchr(diag.message, '\0', sizeof(diag.message)));
        CHECK(strncmp(diag.message, "input: line ", 12) == 0);
        line = strtoul(diag.message + 12, NULL, 10);
        CHECK(line >= 1 && line <= lines);
        return 0;
    }
    /* the name, gpu_id and node number have files of their own, never properties */
    CHECK(memcmp(n.name, before.name, sizeof(n.name)) == 0 && n.node == before.node &&
          n.gpu_id == before.gpu_id);
    if (n.gfx_target_version != before.gfx_target_version)
        CHECK(memmem(text, size, "gfx_target_version ", 19) != NULL);
    if (n.simd_count != before.simd_count)
        CHECK(memmem(text, size, "simd_count ", 11) != NULL);
    return 0;
}
