/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for `gpucore merge` (libcore/split_merge.c): both halves of a split dump are
 * hostile. The merge runs as root in `gpucore ingest`'s detached child, on a GPU file the
 * ROCm runtime streamed and a host core the kernel piped, so neither may crash it, make it
 * write a core that does not open, or leave a file behind on failure.
 *
 * Input: u32 (little-endian) the GPU file's length G, then G bytes of the GPU file, then the
 * host core (the rest). A G past the input takes the whole rest as the GPU file and an empty
 * host core. Both are opened from memory with GPUCORE_OPEN_ALLOW_TRUNCATED, as ingest opens
 * them; an input that does not open is not a merge input (nothing to check).
 *
 * Invariants (abort() on violation): the call succeeds or fails with a documented status, a
 * message and the file it concerns; on failure nothing is published; on success the output
 * opens with gpucore_core_open() (not merely with ALLOW_TRUNCATED) as a unified core with
 * exactly one AMDGPU note and one GPUCORE manifest, holds as many bytes of memory as the
 * result says it took from the two files, and the result's segment counts match its PT_LOADs
 * with data.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "split_merge.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one input's merge may allocate for each file it reads (the reader's budget). */
#define FUZZ_MERGE_MEM_BUDGET (64u << 20)

static const char *out_path; /* fuzz_scratch_file() */

static gpucore_core_t *open_half(const uint8_t *data, size_t size)
{
    struct gpucore_open_opts o = { .sz = sizeof(o),
                                   .flags = GPUCORE_OPEN_ALLOW_TRUNCATED,
                                   .mem_budget = FUZZ_MERGE_MEM_BUDGET };
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;

    if (gpucore_core_open_memory(data, size, &o, &core, &d) != GPUCORE_OK)
        return NULL;
    return core;
}

static uint32_t count_notes(gpucore_core_t *core, const char *owner, uint32_t type)
{
    struct gpucore_note n;
    uint32_t i = 0, count = 0;

    while (gpucore_core_find_note(core, owner, type, &i, &n) == GPUCORE_OK) {
        count++;
        i++;
    }
    return count;
}

static void check_output(const struct gc_merge_result *res)
{
    struct gpucore_core_info info;
    struct gpucore_segment seg;
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    uint32_t loads = 0;
    gpucore_status_t st = gpucore_core_open(out_path, NULL, &core, &d);

    if (st != GPUCORE_OK) {
        fprintf(stderr, "fuzz_merge: the merged core does not open: %s\n", d.message);
        abort();
    }
    CHECK(gpucore_core_get_info(core, &info) == GPUCORE_OK);
    CHECK(info.kind == GPUCORE_CORE_UNIFIED);
    CHECK(count_notes(core, "AMDGPU", 33) == 1);
    CHECK(count_notes(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST) == 1);
    CHECK(info.load_bytes == res->gpu_bytes + res->host_bytes);
    for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
        CHECK(gpucore_core_segment(core, i, &seg) == GPUCORE_OK);
        if (seg.filesz)
            loads++;
    }
    CHECK(loads == res->gpu_segments + res->host_segments);
    gpucore_core_close(core);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_merge_result res = { 0 };
    enum gc_merge_file which = GC_MERGE_OUT;
    gpucore_core_t *gpu, *host;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    size_t gpu_size;

    if (size < 4)
        return 0;
    out_path = fuzz_scratch_file("fuzz_merge");
    gpu_size = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 |
               (size_t)data[3] << 24;
    data += 4;
    size -= 4;
    if (gpu_size > size)
        gpu_size = size;
    gpu = open_half(data, gpu_size);
    host = open_half(data + gpu_size, size - gpu_size);
    if (!gpu || !host) {
        gpucore_core_close(gpu);
        gpucore_core_close(host);
        return 0;
    }
    unlink(out_path);
    st = gc_merge_split(gpu, host, out_path,
                        &(struct gc_merge_opts){ .gpu_name = "gpucore.1",
                                                 .host_name = "core.1",
                                                 .gpu_pid = -1 },
                        &res, &which, &d);
    if (st != GPUCORE_OK) {
        CHECK(st == GPUCORE_E_CORRUPT || st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_LIMIT ||
              st == GPUCORE_E_NOMEM || st == GPUCORE_E_INVAL || st == GPUCORE_E_IO ||
              st == GPUCORE_E_EXIST || st == GPUCORE_E_CANTCREAT);
        CHECK(which == GC_MERGE_GPU || which == GC_MERGE_HOST || which == GC_MERGE_OUT);
        CHECK(d.message[0] != '\0');
        CHECK(access(out_path, F_OK) != 0);
    } else {
        check_output(&res);
    }
    gpucore_core_close(gpu);
    gpucore_core_close(host);
    unlink(out_path);
    return 0;
}
