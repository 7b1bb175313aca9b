/* SPDX-License-Identifier: MIT */
/*
 * Sinks: where the writer's logical byte stream goes. The stream is
 *
 *     [head: ELF header, program headers, notes, zero padding][segment data ...]
 *
 * The head's size is fixed by start() before the first data byte; the data is produced
 * strictly in order after it, and finish() is handed the final head. If the head outgrew its
 * reservation, finish() moves the data up by a whole number of pages (the writer has shifted
 * the program headers' offsets to match), so p_offset stays congruent to p_vaddr.
 *
 * Two implementations: the plain sink writes the logical file as it is (all-zero pages and
 * the unused part of the head become holes); the zstd sink cuts it into independent frames,
 * the head first, followed by a seek table (see gpucore/core.h, "Compression").
 *
 * Budget. The writer keeps `meta_est`, its estimate of the head's logical size, up to date.
 * The plain sink knows exactly what fits (room()). The zstd sink knows only once a frame is
 * compressed: append() then keeps the longest prefix of that frame that fits, drops everything
 * after it, and reports the logical offset where the stream now ends (*ret_cut); the writer
 * shortens its segments to match. finish() checks the real head and proposes a further cut if
 * the file would still exceed the budget.
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
     * Reserve logical bytes [0, @p head) for the head; data starts at @p head. Called once,
     * before the first append (the writer calls it at the latest from finish()).
     */
    gpucore_status_t (*start)(struct gc_core_sink *s, uint64_t head, gpucore_diag_t *diag);
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
     * Drop the stream from logical offset @p off on (head <= off <= pos), after finish() or
     * append() proposed it. The zstd sink decodes the written frame that holds @p off again to
     * shorten it.
     */
    gpucore_status_t (*rewind)(struct gc_core_sink *s, uint64_t off, gpucore_diag_t *diag);
    /*
     * Write the final head: @p head_len bytes, then zeros up to @p head_final (>= the reserved
     * head when there is data; the data moves up by the difference). Without data the file is
     * the @p head_len bytes alone. If the file would exceed the budget and data can still be
     * dropped, write nothing and set *ret_cut to the offset (in the coordinates before the
     * move) to rewind to; otherwise *ret_cut = GC_CORE_NONE.
     * @retval GPUCORE_E_LIMIT  the head alone exceeds the budget (the diag names both sizes).
     */
    gpucore_status_t (*finish)(struct gc_core_sink *s, const uint8_t *head, size_t head_len,
                               uint64_t head_final, uint64_t *ret_cut, gpucore_diag_t *diag);
    /* Bytes stored on disk so far, holes excluded. */
    uint64_t (*file_bytes)(const struct gc_core_sink *s);
    void (*destroy)(struct gc_core_sink *s);
};

struct gc_core_sink {
    const struct gc_core_sink_ops *ops;
    int fd;            /* borrowed */
    uint64_t pos;      /* logical size so far */
    uint64_t budget;   /* max_bytes; GC_CORE_NONE = unlimited */
    uint64_t meta_est; /* writer's estimate of the head's logical size */
    uint64_t head;     /* logical bytes reserved for the head (set by start()) */
};

/* The ELF header's size: the smallest head. */
#define GC_CORE_DATA_START 64u
/* The head reserved by the writer is a whole number of these, so data offsets stay aligned. */
#define GC_CORE_HEAD_ALIGN 4096u

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

/* Read all of @p n bytes at @p off, retrying short reads; E_IO with errno text (or on EOF). */
gpucore_status_t gc_core_pread_all(int fd, void *p, size_t n, uint64_t off, gpucore_diag_t *diag);

/*
 * Move the file's bytes [@p from, @p end) to [@p to, @p to + end - from), in either direction,
 * through @p buf (@p cap bytes, a multiple of 4096). With @p sparse, only the data extents
 * (SEEK_DATA) are copied and what is left between them at the destination becomes a hole
 * again (or zeros where holes cannot be punched). The bytes of the source range that the
 * destination does not cover keep stale contents: the caller overwrites or truncates them.
 */
gpucore_status_t gc_core_move_range(int fd, uint64_t from, uint64_t end, uint64_t to, int sparse,
                                    uint8_t *buf, size_t cap, gpucore_diag_t *diag);

/* Make [@p off, @p off + @p n) of the file read as zeros (a hole where the file system can). */
gpucore_status_t gc_core_zero_range(int fd, uint64_t off, uint64_t n, gpucore_diag_t *diag);

#endif /* GC_CORE_SINK_H */
