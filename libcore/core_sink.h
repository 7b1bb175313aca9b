/* SPDX-License-Identifier: MIT */
/*
 * Sinks: where the writer's logical byte stream goes. The stream is
 *
 *     [64 bytes reserved for the ELF header][segment data ...][metadata: notes, phdrs]
 *
 * and is produced strictly in order, except for the header, which is handed to finish().
 *
 * Two implementations: the plain sink writes the logical file as it is (all-zero pages become
 * holes); the zstd sink cuts it into independent frames followed by a seek table (see
 * gpucore/core.h, "Compression").
 *
 * Budget. The writer keeps `meta_est`, its estimate of the metadata still to come, up to date.
 * The plain sink knows exactly what fits (room()). The zstd sink only knows once a frame is
 * compressed: append() then drops that frame and everything after it and reports the logical
 * offset where the stream now ends (*ret_cut), and the writer shortens its segments to match.
 * finish() checks the real metadata and proposes a further cut if even that does not fit.
 */
#ifndef GC_CORE_SINK_H
#define GC_CORE_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <gpucore/status.h>

/* Non-zero if the @p n bytes at @p p are all zero. p[i] == p[i + 1] for every i and p[0] == 0:
 * memcmp's vectorised loop does the work. */
static inline int gc_core_all_zero(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

struct gc_core_sink;

struct gc_core_sink_ops {
    /*
     * Append @p n bytes. *ret_cut is GC_CORE_NONE, or the logical offset at which the stream
     * was cut for the budget (the bytes from there on, including some of these, are dropped;
     * pos is the cut offset).
     */
    gpucore_status_t (*append)(struct gc_core_sink *s, const uint8_t *p, size_t n,
                               uint64_t *ret_cut, gpucore_diag_t *diag);
    /* How many more data bytes fit in the budget now (UINT64_MAX: no known bound). */
    uint64_t (*room)(const struct gc_core_sink *s);
    /*
     * Drop the stream from logical offset @p off on (off <= pos, off >= 64). The zstd sink
     * accepts only offsets it proposed: inside the current frame or at a frame start.
     */
    gpucore_status_t (*rewind)(struct gc_core_sink *s, uint64_t off, gpucore_diag_t *diag);
    /*
     * Write the final @p meta bytes after the stream and the 64-byte ELF @p header at offset 0.
     * If that would exceed the budget and data could still be dropped (unless @p force), write
     * nothing and set *ret_cut to the offset to rewind to; otherwise *ret_cut = GC_CORE_NONE.
     */
    gpucore_status_t (*finish)(struct gc_core_sink *s, const uint8_t *meta, size_t meta_len,
                               const uint8_t *header, int force, uint64_t *ret_cut,
                               gpucore_diag_t *diag);
    /* Bytes stored on disk so far, holes excluded. */
    uint64_t (*file_bytes)(const struct gc_core_sink *s);
    void (*destroy)(struct gc_core_sink *s);
};

struct gc_core_sink {
    const struct gc_core_sink_ops *ops;
    int fd;            /* borrowed */
    uint64_t pos;      /* logical size so far */
    uint64_t budget;   /* max_bytes; GC_CORE_NONE = unlimited */
    uint64_t meta_est; /* writer's estimate of the metadata still to be appended */
};

/* The first logical byte after the ELF header: where segment data starts. */
#define GC_CORE_DATA_START 64u

gpucore_status_t gc_core_sink_plain_new(int fd, uint64_t budget, struct gc_core_sink **ret,
                                        gpucore_diag_t *diag);

struct gc_core_zstd_params {
    int level;
    uint32_t threads;
    uint32_t frame_size;
};

gpucore_status_t gc_core_sink_zstd_new(int fd, uint64_t budget,
                                       const struct gc_core_zstd_params *params,
                                       struct gc_core_sink **ret, gpucore_diag_t *diag);

/* The sink the options ask for: zstd when opts->level != 0, else plain. */
struct gc_core_wopts;
gpucore_status_t gc_core_sink_new(int fd, const struct gc_core_wopts *opts,
                                  struct gc_core_sink **ret, gpucore_diag_t *diag);

/* Write all of @p n bytes at @p off, retrying short writes; E_IO with errno text. */
gpucore_status_t gc_core_pwrite_all(int fd, const void *p, size_t n, uint64_t off,
                                    gpucore_diag_t *diag);

#endif /* GC_CORE_SINK_H */
