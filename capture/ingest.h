/* SPDX-License-Identifier: MIT */
/*
 * Ingest: a core read from a stream (a pipe), written as it is read by libcore's writer
 * (`gpucore ingest`, the ROCm runtime's `HSA_COREDUMP_PATTERN="|..."` and the kernel's
 * `core_pattern` pipe). Never the whole stream in memory, never a temporary copy of it: the
 * head (ELF header, program headers, notes) is held, segment data passes through one 1 MiB
 * buffer into the writer, and data that is not kept is read and dropped (spliced into
 * /dev/null when the input is a pipe, so skipping costs no copy).
 *
 * Stream order. Both writers emit their file front to back: the ELF header, the program
 * header table at e_phoff, then the segments' data at increasing p_offset (the ROCm runtime:
 * the PT_NOTE first, then the PT_LOADs in the order of its table; the kernel: the PT_NOTE,
 * then the PT_LOADs by address). The reader takes any file in which the program header table
 * precedes every segment's data and no two segments' data overlap in the file; padding
 * between them is read and dropped. It refuses (GPUCORE_E_CORRUPT, the stream offset in the
 * diag) anything else: data before the table, segments whose data overlap, PT_LOADs whose
 * addresses overlap, `PN_XNUM` (more than 65534 program headers: the count would come after
 * the data), with a GPU tier below "all", a PT_LOAD before the AMDGPU note (the note
 * decides what is kept; it must have streamed past first), and a GPU stream without an
 * AMDGPU note.
 *
 * What is kept of a GPU stream (gc_ingest_opts::keep_all 0, the tier "state"): every note,
 * and of the PT_LOADs:
 *  - the bytes of every range the AMDGPU note names, for every queue: the AQL ring
 *    (ring_base_address, ring_size), the amd_queue_t (256 bytes ending 128 bytes after
 *    read_pointer_address, rounded out to 64-byte lines), the used parts of the context-save
 *    area of every XCC (below) plus the debugger area after them, and r_debug (40 bytes) when
 *    the GPU file holds it;
 *  - every PT_LOAD of at most gc_ingest_opts::small_max bytes, whole: code objects, kernel
 *    descriptors and kernel arguments are small allocations that the stream cannot name
 *    before they pass (the link map naming them is host memory, in the other half). In
 *    stream order, each is kept whole when it fits in what is left of
 *    gc_ingest_opts::small_total_max, so that a process of a hundred thousand small
 *    allocations does not keep them all. One that does not fit keeps only what the note
 *    names of it; the rest is recorded SKIPPED, reason "budget", label "small GPU memory past
 *    the total kept of it";
 *  - nothing else: each range dropped is recorded in the manifest as SKIPPED, reason "tier".
 *
 * Context-save areas (docs/cwsr-layout.md). Where arch/ knows the device's gfx_target_version
 * and the queue's ctx_save_restore_area_size is the size that target needs, the areas of the
 * queue's XCCs lie at ctx_save_restore_address + x * that size, and the debugger area after
 * them is kept whole. Of each XCC area only what capture keeps is kept: the 40-byte header,
 * the used control stack and the used wave area, decided by the rule capture uses
 * (gc_cwsr_used_parts()) from the header as it streams past. The header passes before the rest
 * of its area, so nothing is held but its 40 bytes; the rest of the area is then kept or
 * dropped as it arrives, and what is dropped is recorded SKIPPED, reason "tier", label "unused
 * part of a context-save area". The whole area is kept, with a warning (gc_ingest_opts::warn),
 * when the header does not pass the rule, when it does not lie whole at the start of the data
 * of a PT_LOAD larger than small_max (it straddles two segments, or the area begins before the
 * segment holding the rest of it); a stream that ends inside a header is cut there, with a
 * warning too. What of an area lies in a PT_LOAD of at most small_max bytes is kept with that
 * segment, without a warning. A queue whose target arch/ does not know, whose area size is
 * not the target's, with more than GC_INGEST_MAX_XCC XCCs or past GC_INGEST_MAX_SAVE_AREAS
 * areas in all, or whose areas overlap another queue's, is kept whole (an unknown layout:
 * from ctx_save_restore_address to the end of the segment holding it), with a warning.
 *
 * With keep_all everything is kept (the host half is always ingested so). PT_LOADs listed
 * without data (p_filesz 0: the device mappings in a kernel's core) are recorded in the
 * manifest as SKIPPED, reason "special".
 *
 * A stream that ends early (the writer was killed): when the head and the notes arrived, the
 * core is published with the data that did, marked truncated (manifest flag, reason
 * "io-error"), the rest of the cut segment recorded UNREADABLE (errno EPIPE) and the
 * segments that never came SKIPPED/"io-error"; gc_ingest_result::stream_cut is set. A
 * stream that ends inside the head is refused (GPUCORE_E_TRUNCATED) and nothing published.
 *
 * Size limit (gc_ingest_opts::max_bytes). The stream's writer decides how large it is: the
 * kernel writes the whole process into a core_pattern pipe whatever ulimit -c says. The output
 * is therefore written under a budget, the writer's (gpucore_writer_opts::max_bytes: the
 * file's apparent size, the compressed bytes when compressing), which is never exceeded. The
 * data is kept in stream order until the budget is used up; from there every byte of segment
 * data is still read, so that the stream's writer never blocks and never gets EPIPE, but
 * dropped (spliced into /dev/null): what would have been kept is recorded SKIPPED, reason
 * "budget", label "past the size limit (gpucore ingest)" (what the tier drops stays "tier"),
 * the core is marked truncated (manifest flag, reason "budget"), and
 * gc_ingest_result::size_limited is set. Reading past the limit costs time (a splice per
 * 64 MiB), no memory and no disk. A head (ELF header, program headers, notes, manifest) that
 * alone does not fit the limit publishes nothing (GPUCORE_E_LIMIT, output side).
 */
#ifndef GPUCORE_INGEST_H
#define GPUCORE_INGEST_H

#include <stdint.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

struct gc_ingest_opts {
    uint32_t expect_gpu;    /* 1: the GPU half (EM_AMDGPU required); 0: a host core
                               (EM_AMDGPU refused) */
    uint32_t keep_all;      /* keep every PT_LOAD (tier "all"); 0 = tier "state" (above) */
    uint64_t small_max;     /* tier state: PT_LOADs up to this size are kept whole;
                               0 = GC_INGEST_SMALL_MAX */
    uint32_t compress;      /* zstd seekable frames */
    int32_t compress_level; /* 0 = 3 */
    uint32_t mode;          /* output file mode; 0 = 0600 */
    uint64_t max_head;      /* program headers + notes held in memory at most;
                               0 = GC_INGEST_MAX_HEAD */
    const void *meta;       /* an encoded CAPTURE_META descriptor to add (borrowed; NULL =
                               none); a GPUCORE CAPTURE_META note of the stream is then
                               dropped */
    size_t meta_size;
    /* Called with each warning (a save area kept whole, and why), at most
       GC_INGEST_MAX_WARNINGS times; the message is one line without the trailing newline,
       borrowed for the call. NULL: warnings are only counted (gc_ingest_result). */
    void (*warn)(void *user, const char *msg);
    void *warn_user;
    uint64_t small_total_max; /* tier state: the small PT_LOADs kept whole, in all, at most;
                                 0 = GC_INGEST_SMALL_TOTAL_MAX */
    uint64_t max_bytes;       /* the output's size at most (above, "Size limit"); at least
                                 GPUCORE_WRITER_MIN_BUDGET; 0 = GC_INGEST_GPU_SIZE_MAX with
                                 expect_gpu, else GC_INGEST_HOST_SIZE_MAX;
                                 GC_INGEST_SIZE_UNLIMITED = no limit */
};

#define GC_INGEST_SMALL_MAX       (1ull << 20)
#define GC_INGEST_SMALL_TOTAL_MAX (64ull << 20)
#define GC_INGEST_MAX_HEAD       (256ull << 20)
#define GC_INGEST_MAX_XCC        64u        /* XCCs per queue whose areas are trimmed */
#define GC_INGEST_MAX_SAVE_AREAS (1u << 16) /* XCC areas trimmed per stream (48 bytes each) */
#define GC_INGEST_MAX_WARNINGS   64u
/*
 * The default size limits (store.conf's HostSizeMax= and GpuSizeMax=, `ingest --max-size`).
 * systemd-coredump's default is 32 GiB, for any process of a desktop or server. Here the
 * handler serves GPU nodes, whose processes map tens to hundreds of GiB of host memory
 * (pinned staging buffers, device-visible heaps), and the store sits on the node's /var,
 * often a few tens of GiB: one crash must not be able to take most of it, and the host half
 * is the one the kernel makes root write whatever size the crashing user chose. 4 GiB of
 * compressed core keeps every thread's notes and, typically, tens of GiB of process memory;
 * the GPU half's state tier (the default) stays far below it (tens of MiB: the small
 * allocations, 64 MiB at most, and the used parts of the save areas), so there the limit only
 * binds --tier all. An administrator raises either in store.conf.
 */
#define GC_INGEST_HOST_SIZE_MAX  (4ull << 30)
#define GC_INGEST_GPU_SIZE_MAX   (4ull << 30)
#define GC_INGEST_SIZE_UNLIMITED UINT64_MAX

struct gc_ingest_result {
    uint64_t bytes_read; /* of the stream, until its end or the failure */
    uint32_t segments_kept;
    uint32_t segments_skipped; /* wholly or partly dropped */
    uint64_t bytes_kept;
    uint64_t bytes_skipped;
    uint32_t stream_cut;              /* the stream ended inside or before segment data */
    uint64_t file_bytes;              /* the output's size on disk */
    uint32_t save_areas_trimmed;      /* XCC areas of which the used parts alone were kept */
    uint32_t save_areas_whole;        /* XCC areas kept whole on a doubt (a warning each) */
    uint64_t save_area_bytes_dropped; /* of bytes_skipped: unused parts of trimmed areas */
    uint32_t warnings;                /* warnings raised, passed to warn or not */
    uint64_t small_bytes_kept;        /* of bytes_kept: small PT_LOADs kept whole */
    uint32_t small_segments_over;     /* small PT_LOADs past small_total_max */
    uint32_t size_limited;            /* the output reached max_bytes: the rest was dropped,
                                         the core is marked truncated (reason "budget") */
    uint64_t bytes_over_limit;        /* of the segment data, what was read and dropped for
                                         the limit (and would have been kept) */
    uint64_t max_bytes;               /* the limit applied (GC_INGEST_SIZE_UNLIMITED: none) */
    uint32_t output_failed;           /* on failure: 1 when the output failed (it cannot be
                                         created or written, or the head does not fit
                                         max_bytes), 0 when the stream did */
};

/*
 * Read a core from @p fd (borrowed; read from its current position to the end of the
 * segments it announces, and nothing after) and publish it at @p out (atomically; an
 * existing file is not replaced). @p ret optional; filled on success, and its bytes_read and
 * output_failed also on failure.
 * @retval GPUCORE_OK         published (possibly truncated: ret->stream_cut).
 * @retval GPUCORE_E_CORRUPT  the stream is not a core this reads (see above), diag offset =
 *                            stream offset.
 * @retval GPUCORE_E_TRUNCATED the stream ended inside the head.
 * @retval GPUCORE_E_LIMIT    the head is larger than max_head (the stream's fault; diag offset
 *                            = stream offset), or the output's head alone does not fit
 *                            max_bytes (output_failed; the diag names the bytes it needs).
 * @retval GPUCORE_E_EXIST, GPUCORE_E_CANTCREAT, GPUCORE_E_IO  the output (GPUCORE_E_IO also
 *                            for a read error of @p fd; the diag says which).
 * @retval GPUCORE_E_INVAL    a bad argument (max_bytes below GPUCORE_WRITER_MIN_BUDGET, ...)
 * @retval GPUCORE_E_NOMEM
 * Nothing is published on failure. The caller drains @p fd (gc_ingest_drain()).
 */
gpucore_status_t gc_ingest_stream(int fd, const char *out, const struct gc_ingest_opts *opts,
                                  struct gc_ingest_result *ret, gpucore_diag_t *reterr_diag);

/*
 * Read @p fd to its end, dropping the bytes (spliced into /dev/null when it is a pipe), so
 * that the process writing into it never sees EPIPE or SIGPIPE. Returns the bytes dropped.
 * Gives up only on a read error other than EINTR/EAGAIN.
 */
uint64_t gc_ingest_drain(int fd);

#endif /* GPUCORE_INGEST_H */
