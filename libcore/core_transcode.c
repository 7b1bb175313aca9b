/* SPDX-License-Identifier: MIT */
/*
 * gpucore_core_transcode(): the logical image of an open core, rewritten plain or compressed.
 * The image goes through the writer's sinks unchanged: the bytes before the first segment's
 * page (ELF header, program headers, notes: the writer's head) are the head, and the rest is
 * one run of stream bytes. So the output has the writer's layout (holes for zero pages, or
 * head frames + data frames + seek table), decodes to the same bytes, and a core the writer
 * compressed comes out byte for byte as it wrote it.
 */
#include <string.h>

#include <gpucore/core.h>

#include "core_internal.h"
#include "core_publish.h"
#include "core_sink.h"
#include "gc_util.h"

/*
 * The head of an image: everything before the page of the first segment byte (at least the ELF
 * header; the whole image when it has no segment data). Heads above a frame's largest size go
 * as ordinary data after the ELF header: the head is held in memory.
 */
static uint64_t image_head(gpucore_core_t *core, uint64_t size)
{
    uint64_t first = size;
    struct gpucore_segment seg;

    for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++)
        if (gpucore_core_segment(core, i, &seg) == GPUCORE_OK && seg.filesz &&
            seg.offset < first)
            first = seg.offset;
    if (first < size)
        first -= first % GC_CORE_HEAD_ALIGN;
    if (first < GC_CORE_DATA_START || first > GC_CORE_MAX_FRAME_SIZE)
        first = GC_CORE_DATA_START;
    return first;
}

GPUCORE_API gpucore_status_t gpucore_core_transcode(gpucore_core_t *core, const char *path,
                                                    const struct gpucore_writer_opts *opts,
                                                    gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t *d = reterr_diag;
    uint8_t *header = NULL;
    uint64_t head;
    struct gc_core_publish pub;
    struct gc_core_sink *sink = NULL;
    struct gc_core_wopts o;
    uint64_t size, off, cut;
    uint8_t *chunk = NULL;
    gpucore_status_t st;

    GC_FAIL_IF(!core || !path, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "gpucore_core_transcode: NULL %s",
               !core ? "core" : "path");
    GC_TRY(gc_core_wopts_parse(opts, &o, d));
    GC_FAIL_IF(o.kind || o.e_machine || o.max_bytes || o.head_reserve ||
                       (o.flags & ~GPUCORE_WRITE_OVERWRITE),
               d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "transcode takes no kind, e_machine, max_bytes, head_reserve or flags other than "
               "OVERWRITE");
    size = gc_core_image_size(core);
    /* An open core has at least its ELF header: the reader refuses anything shorter. */
    GC_FAIL_IF(size < GC_CORE_DATA_START, d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "the image is shorter than an ELF header");
    /* The size is known: frames large enough that their count never cuts the image. */
    if (!GC_OPTS_GET(opts, gpucore_writer_opts, frame_size, 0u))
        o.frame_size = gc_core_frame_size_for(size > o.expected_bytes ? size : o.expected_bytes);

    GC_TRY(gc_core_publish_open(&pub, path, o.mode, gc_core_publish_flags(&o), d));
    st = gc_core_sink_new(pub.fd, &o, &sink, d);
    head = image_head(core, size);
    if (st == GPUCORE_OK) {
        chunk = gc_malloc(GC_CORE_CHUNK_SIZE);
        header = gc_malloc(head);
        if (!chunk || !header)
            st = gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    if (st == GPUCORE_OK)
        st = gc_core_image_read(core, 0, header, head, d);
    if (st == GPUCORE_OK)
        st = sink->ops->start(sink, head, d);
    /*
     * Chunks start where the data does, like the writer's frames, so reading a core compressed
     * with the default frame size decodes whole frames straight into the chunk.
     */
    for (off = head; st == GPUCORE_OK && off < size;) {
        uint64_t n = size - off < GC_CORE_CHUNK_SIZE ? size - off : GC_CORE_CHUNK_SIZE;

        st = gc_core_image_read(core, off, chunk, n, d);
        if (st == GPUCORE_OK)
            st = sink->ops->append(sink, chunk, (size_t)n, &cut, d);
        /* No budget here: only the frame count can cut, and a copy must not lose data. */
        if (st == GPUCORE_OK && cut != GC_CORE_NONE)
            st = gc_diag_set(d, GPUCORE_E_LIMIT, cut,
                             "the image does not fit in %u frames of %u bytes", GC_CORE_MAX_FRAMES,
                             o.frame_size);
        off += n;
    }
    if (st == GPUCORE_OK)
        st = sink->ops->finish(sink, header, (size_t)head, head, &cut, d);
    if (st == GPUCORE_OK)
        st = gc_core_publish_commit(&pub, d);
    else
        gc_core_publish_abort(&pub);
    if (sink)
        sink->ops->destroy(sink);
    gc_free(chunk);
    gc_free(header);
    return st;
}
