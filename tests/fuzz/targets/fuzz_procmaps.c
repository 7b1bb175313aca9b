/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the /proc/PID/smaps parser (gc_procmaps_parse). The input is smaps text.
 *
 * Invariants (abort() on violation):
 *  - a failure returns a documented status (CORRUPT, LIMIT, NOMEM), fills the diagnostic with a
 *    message naming the input and a line, an offset inside the input, and leaves the output
 *    untouched;
 *  - a success gives mappings that are non-empty, sorted and disjoint, with paths inside the
 *    string storage and NUL-terminated there, without newlines, and no longer than the input;
 *  - gc_procmaps_find() finds each mapping by its first and last byte and nothing in the gaps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_procmaps m;
    gpucore_diag_t diag;
    gpucore_status_t st;

    memset(&m, 0xa5, sizeof(m));
    memset(&diag, 0, sizeof(diag));
    st = gc_procmaps_parse((const char *)data, size, "input", &m, &diag);
    if (st != GPUCORE_OK) {
        struct gc_procmaps untouched;

        memset(&untouched, 0xa5, sizeof(untouched));
        CHECK(st == GPUCORE_E_CORRUPT || st == GPUCORE_E_LIMIT || st == GPUCORE_E_NOMEM);
        CHECK(diag.status == st);
        CHECK(memchr(diag.message, '\0', sizeof(diag.message)) && diag.message[0]);
        CHECK(memcmp(&m, &untouched, sizeof(m)) == 0);
        if (st != GPUCORE_E_NOMEM) {
            CHECK(strncmp(diag.message, "input: line ", 12) == 0);
            CHECK(diag.flags & GPUCORE_DIAG_HAS_OFFSET);
            CHECK(diag.offset < size);
        }
        return 0;
    }
    CHECK(m.count == 0 || m.maps);
    CHECK(m.strings_size <= size + m.count);
    for (uint32_t i = 0; i < m.count; i++) {
        const struct gc_procmap *p = &m.maps[i];
        size_t len;

        CHECK(p->start < p->end);
        if (i)
            CHECK(p->start >= m.maps[i - 1].end);
        CHECK(p->path >= m.strings && p->path < m.strings + m.strings_size);
        len = strlen(p->path);
        CHECK(p->path + len < m.strings + m.strings_size);
        CHECK(!memchr(p->path, '\n', len));
        CHECK(len <= size);
        CHECK(gc_procmaps_find(&m, p->start) == p);
        CHECK(gc_procmaps_find(&m, p->end - 1) == p);
        if (i + 1 < m.count && p->end < m.maps[i + 1].start)
            CHECK(gc_procmaps_find(&m, p->end) == NULL);
    }
    if (m.count && m.maps[0].start > 0)
        CHECK(gc_procmaps_find(&m, m.maps[0].start - 1) == NULL);
    gc_procmaps_free(&m);
    return 0;
}
