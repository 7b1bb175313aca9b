/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkhostile-co: write a small crafted core whose ROCr link map is hostile, for the
 * tests of how the analyzer treats the code objects a core names (tests/analyze/hostile_co.sh)
 * and for bench/hostile/couri.tsv.
 *
 *     gpucore-mkhostile-co OUTPUT uri URI...      one link_map node per URI (file:///etc/shadow,
 *                                                 a FIFO, a device, a host ELF), no embedded
 *                                                 copies: a reader has only the URIs
 *     gpucore-mkhostile-co OUTPUT loop SIZE       one node whose l_next is itself, naming a
 *                                                 memory:// range of SIZE bytes the core holds
 *     gpucore-mkhostile-co OUTPUT many N SIZE     N distinct nodes (N <= 4096), each naming the
 *                                                 same memory:// range of SIZE bytes
 *
 * The core: an AMDGPU note with no agents or queues whose runtime info points at r_debug
 * (r_version 10, RT_CONSISTENT), one segment holding r_debug, the nodes and the URI strings,
 * and for loop/many a segment of SIZE bytes (an ELF header, then zeros). Public API only.
 *
 * Exit status: 0 written; 64 usage; 70 the library refused.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#define RDEBUG    0x10000ull
#define NODES     (RDEBUG + 64)
#define NODE_SIZE 48u
#define URI_SLOT  128u
#define IMAGE     0x10000000ull
#define MAX_NODES 4096u
#define MAX_SIZE  (64ull << 20)

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "gpucore-mkhostile-co: %s: %s\n", what, msg);
    return EX_SOFTWARE;
}

static int usage(void)
{
    fprintf(stderr, "usage: gpucore-mkhostile-co OUTPUT uri URI... | loop SIZE | many N SIZE\n");
    return EX_USAGE;
}

int main(int argc, char **argv)
{
    const char *const *uris = NULL;
    char memuri[128];
    uint64_t size = 0, n = 0, seg_size;
    int loop = 0;
    uint8_t *seg, *image = NULL;

    if (argc < 4)
        return usage();
    if (!strcmp(argv[2], "uri")) {
        uris = (const char *const *)&argv[3];
        n = (uint64_t)(argc - 3);
    } else if (!strcmp(argv[2], "loop") && argc == 4) {
        loop = 1;
        n = 1;
        size = strtoull(argv[3], NULL, 0);
    } else if (!strcmp(argv[2], "many") && argc == 5) {
        n = strtoull(argv[3], NULL, 0);
        size = strtoull(argv[4], NULL, 0);
    } else {
        return usage();
    }
    if (n == 0 || n > MAX_NODES || (!uris && (size < 64 || size > MAX_SIZE)))
        return usage();
    snprintf(memuri, sizeof(memuri), "memory://4242#offset=0x%" PRIx64 "&size=%" PRIu64, (uint64_t)IMAGE,
             size);

    seg_size = 64 + n * NODE_SIZE + n * URI_SLOT;
    seg = calloc(1, (size_t)seg_size);
    if (!seg)
        return die("memory", "out of memory");
    /* r_debug: r_version 10, r_map, r_brk 0, r_state 0 (RT_CONSISTENT), r_ldbase 0 */
    seg[0] = 10;
    put64(seg + 8, NODES);
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *node = seg + 64 + i * NODE_SIZE;
        uint64_t uri_at = NODES + n * NODE_SIZE + i * URI_SLOT;
        const char *uri = uris ? uris[i] : memuri;

        if (strlen(uri) >= URI_SLOT)
            return die(uri, "URI too long");
        put64(node, 0x20000000ull + i * 0x100000ull); /* l_addr */
        put64(node + 8, uri_at);                      /* l_name */
        put64(node + 24, loop ? NODES : (i + 1 < n ? NODES + (i + 1) * NODE_SIZE : 0));
        put64(node + 32, i ? NODES + (i - 1) * NODE_SIZE : 0);
        memcpy(seg + (uri_at - RDEBUG), uri, strlen(uri) + 1);
    }
    if (!uris) {
        image = calloc(1, (size_t)size);
        if (!image)
            return die("memory", "out of memory");
        memcpy(image, "\177ELF\2\1\1", 7); /* an ELF64 LSB header, nothing more */
        image[18] = 224;                   /* EM_AMDGPU */
    }

    gpucore_amdgpu_note_t note;
    gpucore_diag_t diag = { 0 };
    void *desc = NULL;
    size_t desc_size = 0;
    gpucore_writer_t *w = NULL;
    struct gpucore_writer_opts wo = { .sz = sizeof(wo),
                                      .kind = GPUCORE_CORE_UNIFIED,
                                      .e_machine = 62 /* EM_X86_64 */,
                                      .flags = GPUCORE_WRITE_OVERWRITE };
    const struct gpucore_range_info *info =
            GPUCORE_OPTS(gpucore_range_info, .tier = GPUCORE_TIER_STATE, .label = "hostile");

    memset(&note, 0, sizeof(note));
    note.kfd_major = 1;
    note.kfd_minor = 18;
    note.runtime.r_debug = RDEBUG;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    if (gpucore_amdgpu_note_encode(&note, &desc, &desc_size, &diag) != GPUCORE_OK)
        return die("AMDGPU note", diag.message);
    if (gpucore_writer_open(argv[1], &wo, &w, &diag) != GPUCORE_OK)
        return die(argv[1], diag.message);
    if (gpucore_writer_add_note(w, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE, desc,
                                desc_size) != GPUCORE_OK ||
        gpucore_writer_add_segment(w, RDEBUG, seg, seg_size, info) != GPUCORE_OK ||
        (image && gpucore_writer_add_segment(w, IMAGE, image, size, info) != GPUCORE_OK)) {
        const char *msg = gpucore_writer_errmsg(w);
        int rc = die(argv[1], msg ? msg : "cannot write");

        gpucore_writer_abort(w);
        return rc;
    }
    if (gpucore_writer_finish(w, NULL, &diag) != GPUCORE_OK)
        return die(argv[1], diag.message);
    gpucore_free(desc);
    free(seg);
    free(image);
    return 0;
}
