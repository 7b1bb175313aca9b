/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for schema/gc_rocr.h, the one parser of ROCr's code-object list the capture and
 * the analyzer share. The input: byte 0 selects what the rest is.
 *   0: a URI text (gc_rocr_uri_parse over the bytes, NULs included);
 *   1: an r_debug followed by link_map nodes (40 bytes each) in a tiny address space: the walk
 *      follows l_next (an offset into the input) with the visited set.
 *
 * Invariants (abort() on violation):
 *  - a URI either parses with a kind, a NUL-free non-empty path within GC_ROCR_URI_MAX (file)
 *    or both offset and size (memory), or fails with GPUCORE_E_CORRUPT and a diag offset
 *    inside the text; printing what was parsed back as a URI parses to the same result;
 *  - decoding never reads past 40 bytes; the walk ends within GC_ROCR_LINK_MAP_MAX + 1 visits
 *    and reports a cycle exactly when a node repeats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_rocr.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gc_rocr_uri u1, u2;
static struct gc_rocr_walk walk;
static char text[3 * GC_ROCR_URI_MAX + 128];

static void fuzz_uri(const char *s, size_t n)
{
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_rocr_uri_parse(s, n, &u1, &d);
    size_t o = 0;

    if (st != GPUCORE_OK) {
        CHECK(st == GPUCORE_E_CORRUPT && d.status == st);
        CHECK((d.flags & GPUCORE_DIAG_HAS_OFFSET) && d.offset <= n);
        CHECK(d.message[0] && memchr(d.message, '\0', sizeof(d.message)));
        return;
    }
    if (u1.kind == GC_ROCR_URI_MEMORY) {
        CHECK(u1.have_offset && u1.have_size);
        o = (size_t)snprintf(text, sizeof(text), "memory://%" PRIu64 "#offset=%" PRIu64
                             "&size=%" PRIu64, u1.pid, u1.offset, u1.size);
    } else {
        size_t len = strlen(u1.path);

        CHECK(u1.kind == GC_ROCR_URI_FILE);
        CHECK(len > 0 && len <= GC_ROCR_URI_MAX);
        o = (size_t)snprintf(text, sizeof(text), "file://");
        for (size_t i = 0; i < len; i++) /* every byte encoded: '#', '%' and all */
            o += (size_t)snprintf(text + o, sizeof(text) - o, "%%%02X", (unsigned char)u1.path[i]);
        if (u1.have_offset)
            o += (size_t)snprintf(text + o, sizeof(text) - o, "#offset=%" PRIu64, u1.offset);
        if (u1.have_size)
            o += (size_t)snprintf(text + o, sizeof(text) - o, "%ssize=%" PRIu64,
                                  u1.have_offset ? "&" : "#", u1.size);
    }
    CHECK(o < sizeof(text));
    CHECK(gc_rocr_uri_parse(text, o, &u2, NULL) == GPUCORE_OK);
    CHECK(u2.kind == u1.kind && u2.pid == u1.pid && u2.offset == u1.offset &&
          u2.size == u1.size && u2.have_offset == u1.have_offset &&
          u2.have_size == u1.have_size && !strcmp(u2.path, u1.path));
}

static void fuzz_walk(const uint8_t *b, size_t n)
{
    struct gc_rocr_r_debug rd;
    uint32_t visits = 0;
    uint64_t node;

    if (n < GC_ROCR_R_DEBUG_SIZE)
        return;
    memset(&walk, 0, sizeof(walk));
    gc_rocr_r_debug_decode(b, &rd);
    CHECK(gc_rocr_r_version_supported(rd.r_version) ==
          (rd.r_version >= GC_ROCR_R_VERSION_MIN && rd.r_version <= GC_ROCR_R_VERSION_MAX));
    /* addresses are offsets into the input; a node must lie wholly inside */
    for (node = rd.r_map; node; visits++) {
        struct gc_rocr_link_map lm;
        enum gc_rocr_visit v = gc_rocr_walk_visit(&walk, node);

        CHECK(visits <= GC_ROCR_LINK_MAP_MAX);
        if (v != GC_ROCR_VISIT_NEW) {
            CHECK(v == GC_ROCR_VISIT_CYCLE || walk.count == GC_ROCR_LINK_MAP_MAX);
            break;
        }
        if (node > n || n - node < GC_ROCR_LINK_MAP_SIZE)
            break;
        gc_rocr_link_map_decode(b + node, &lm);
        node = lm.l_next;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        fuzz_walk(data + 1, size - 1);
    else
        fuzz_uri((const char *)data + 1, size - 1);
    return 0;
}
