/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the zstd frame index of compressed cores: the seek-table parser and the
 * frame walk used when there is no table. The input is a whole compressed file. When an index
 * comes back, it must describe frames inside the file, in order, covering the logical image.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core_internal.h"
#include "core_zstd.h"
#include "gc_util.h"

#include "fuzz_common.h"

#define MAX_FRAME (1u << 20)

static void check_index(const struct gc_core_frame *f, uint32_t n, uint64_t logical, uint64_t size)
{
    uint64_t at = 0, phys_end = 0;

    CHECK(n <= GC_CORE_MAX_FRAMES);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(f[i].dsize > 0 && f[i].dsize <= MAX_FRAME);
        CHECK(f[i].logical == at);
        CHECK(f[i].csize > 0 && f[i].phys >= phys_end);
        CHECK(f[i].phys <= size && f[i].csize <= size - f[i].phys);
        phys_end = f[i].phys + f[i].csize;
        at += f[i].dsize;
    }
    CHECK(at == logical);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A budget as the reader would give a file of this size, so budget failures are reached. */
    struct gc_core_mem mem = { .limit = 4 * (uint64_t)size + 4096 };
    struct gc_core_src src = { .mem = data, .fd = -1, .size = size };
    struct gc_core_frame *frames = NULL;
    uint64_t logical = 0;
    uint32_t n = 0;
    int clipped = 0;
    gpucore_status_t st;

    if (!data) /* libFuzzer passes NULL for the empty input; the reader never does */
        src.mem = (const uint8_t *)"";
    st = gc_core_seektable_parse(&src, MAX_FRAME, &mem, &frames, &n, &logical, NULL);
    if (st == GPUCORE_OK) {
        check_index(frames, n, logical, size);
        /* Every index entry is charged, and the charge stays within the budget. */
        CHECK(mem.used == (uint64_t)n * sizeof(*frames) && mem.peak <= mem.limit);
        gc_core_mem_free(&mem, frames, (uint64_t)n * sizeof(*frames));
    } else {
        CHECK(st == GPUCORE_E_NOTFOUND || st == GPUCORE_E_CORRUPT || st == GPUCORE_E_LIMIT ||
              st == GPUCORE_E_NOMEM);
    }
    CHECK(mem.used == 0);
    for (int allow = 0; allow < 2; allow++) {
        frames = NULL;
        st = gc_core_frames_walk(&src, MAX_FRAME, allow, &mem, &frames, &n, &logical, &clipped,
                                 NULL);
        if (st == GPUCORE_OK) {
            check_index(frames, n, logical, size);
            CHECK(allow || !clipped);
            CHECK(mem.used == (uint64_t)n * sizeof(*frames) && mem.peak <= mem.limit);
            gc_core_mem_free(&mem, frames, (uint64_t)n * sizeof(*frames));
        } else {
            CHECK(st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_CORRUPT || st == GPUCORE_E_LIMIT ||
                  st == GPUCORE_E_NOTSUP || st == GPUCORE_E_NOMEM);
            CHECK(!allow || st != GPUCORE_E_TRUNCATED);
        }
        CHECK(mem.used == 0);
    }
    return 0;
}
