/* SPDX-License-Identifier: MIT */
/*
 * gpucore_core_transcode(): the logical image of an open core, rewritten plain or compressed.
 * The image goes through the writer's sinks unchanged: its first 64 bytes are the "header"
 * and the rest is one run of stream bytes, so the output has exactly the writer's layout
 * (holes for zero pages, or frame 0 + frames + seek table) and decodes to the same bytes.
 */
#include <string.h>

#include <gpucore/core.h>

#include "core_internal.h"
#include "core_publish.h"
#include "core_sink.h"
#include "gc_util.h"

GPUCORE_API gpucore_status_t gpucore_core_transcode(gpucore_core_t *core, const char *path,
                                                    const struct gpucore_writer_opts *opts,
                                                    gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t *d = reterr_diag;
    uint8_t header[GC_CORE_DATA_START];
    struct gc_core_publish pub;
    struct gc_core_sink *sink = NULL;
    struct gc_core_wopts o;
    uint64_t size, off, cut;
    uint8_t *chunk = NULL;
    gpucore_status_t st;

    GC_FAIL_IF(!core || !path, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "gpucore_core_transcode: NULL %s",
               !core ? "core" : "path");
    GC_TRY(gc_core_wopts_parse(opts, &o, d));
    GC_FAIL_IF(o.kind || o.e_machine || o.max_bytes || (o.flags & ~GPUCORE_WRITE_OVERWRITE), d,
               GPUCORE_E_INVAL, GC_NO_OFFSET,
               "transcode takes no kind, e_machine, max_bytes or flags other than OVERWRITE");
    size = gc_core_image_size(core);
    /* An open core has at least its ELF header: the reader refuses anything shorter. */
    GC_FAIL_IF(size < GC_CORE_DATA_START, d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "the image is shorter than an ELF header");

    GC_TRY(gc_core_publish_open(&pub, path, o.mode, gc_core_publish_flags(&o), d));
    st = gc_core_sink_new(pub.fd, &o, &sink, d);
    if (st == GPUCORE_OK) {
        chunk = gc_malloc(GC_CORE_CHUNK_SIZE);
        if (!chunk)
            st = gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    if (st == GPUCORE_OK)
        st = gc_core_image_read(core, 0, header, sizeof(header), d);
    /*
     * Chunks start at 64, like the writer's frames, so reading a core compressed with the
     * default frame size decodes whole frames straight into the chunk.
     */
    for (off = GC_CORE_DATA_START; st == GPUCORE_OK && off < size;) {
        uint64_t n = size - off < GC_CORE_CHUNK_SIZE ? size - off : GC_CORE_CHUNK_SIZE;

        st = gc_core_image_read(core, off, chunk, n, d);
        if (st == GPUCORE_OK)
            st = sink->ops->append(sink, chunk, (size_t)n, &cut, d);
        off += n;
    }
    if (st == GPUCORE_OK)
        st = sink->ops->finish(sink, header, 0, header, 1, &cut, d); /* no metadata */
    if (st == GPUCORE_OK)
        st = gc_core_publish_commit(&pub, d);
    else
        gc_core_publish_abort(&pub);
    if (sink)
        sink->ops->destroy(sink);
    gc_free(chunk);
    return st;
}
