/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for analyze/srcline: the input is a code object (an ELF image with DWARF).
 * gc_srcline_open() returns a documented status (GPUCORE_E_LIMIT with a reason), and on
 * success every lookup returns a documented status with, on GPUCORE_OK, 1..GC_SRCLINE_MAX_FRAMES
 * NUL-terminated frames, on GPUCORE_E_LIMIT a reason; no lookup takes more steps than its
 * budget, all together no more than the handle's, and the budgets are what srcline.h says of
 * the input's size (its DWARF, decompressed, is at most the input and 16 times the input). The
 * offsets looked up: a few where scenario kernels have code (and the function of
 * tests/tools/hostile_dwarf.c's seeds), one of them twice (the cache), and one taken from the
 * input's last eight bytes, so the fuzzer can steer it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srcline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_result(const struct gc_srcline *s, size_t size, gpucore_status_t st,
                         const struct gc_srcline_result *r)
{
    struct gc_srcline_stats x;

    gc_srcline_stats(s, &x);
    if (x.steps > x.budget || x.total_steps > x.total_budget ||
        x.budget > GC_SRCLINE_STEPS_PER_BYTE * (uint64_t)size * (GC_SRCLINE_INFLATE_FACTOR + 1) +
                           GC_SRCLINE_STEPS_MIN)
        abort();
    if ((st == GPUCORE_E_LIMIT) != (r->why != NULL))
        abort();
    if (st != GPUCORE_OK) {
        if (st != GPUCORE_E_NOTFOUND && st != GPUCORE_E_CORRUPT && st != GPUCORE_E_LIMIT &&
            st != GPUCORE_E_NOMEM)
            abort();
        return;
    }
    if (r->nframes == 0 || r->nframes > GC_SRCLINE_MAX_FRAMES)
        abort();
    for (uint32_t i = 0; i < r->nframes; i++)
        if (!memchr(r->frames[i].function, '\0', sizeof(r->frames[i].function)) ||
            !memchr(r->frames[i].file, '\0', sizeof(r->frames[i].file)))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t fixed[] = { 0, 0x1000, 0x1600, 0x1640, 0x16b4, 0x1700, 0x10b4, 0x16b4 };
    struct gc_srcline *s = NULL;
    struct gc_srcline_result r;
    gpucore_status_t st;
    const char *why = NULL;
    uint64_t tail = 0;

    if (size == 0)
        return 0;
    st = gc_srcline_open_why(data, size, &s, &why);
    if (st != GPUCORE_OK) {
        if (s || (st != GPUCORE_E_CORRUPT && st != GPUCORE_E_NOTFOUND &&
                  st != GPUCORE_E_NOTSUP && st != GPUCORE_E_NOMEM && st != GPUCORE_E_LIMIT) ||
            (st == GPUCORE_E_LIMIT) != (why != NULL))
            abort();
        return 0;
    }
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        check_result(s, size, gc_srcline_lookup(s, fixed[i], &r), &r);
    if (size >= 8)
        memcpy(&tail, data + size - 8, 8);
    check_result(s, size, gc_srcline_lookup(s, tail, &r), &r);
    gc_srcline_close(s);
    return 0;
}
