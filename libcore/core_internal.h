/* SPDX-License-Identifier: MIT */
/*
 * libcore private definitions shared by the writer, the reader and their helpers: built-in
 * limits, options-struct validation (G-OWN-7) and small arithmetic helpers.
 *
 * Not installed; not part of the ABI.
 */
#ifndef GC_CORE_INTERNAL_H
#define GC_CORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

/*
 * Reader limits. They bound what an untrusted file can make us allocate or iterate over before
 * anything else is checked: 2^20 program headers is 56 MiB of table and far more than any real
 * process has mappings (Linux caps vm.max_map_count at 65530 by default). Everything the reader
 * allocates because the file says so is also charged to its memory budget (gc_core_mem).
 */
#define GC_CORE_MAX_PHDRS  (1u << 20)
#define GC_CORE_MAX_NOTES  (1u << 20)
#define GC_CORE_MAX_FRAMES (1u << 20)
/* Default for gpucore_open_opts::max_frame_size: the largest frame the writer writes. */
#define GC_CORE_DEFAULT_MAX_FRAME GPUCORE_MAX_FRAME_CONTENT
/* Default for gpucore_open_opts::frame_cache. */
#define GC_CORE_DEFAULT_FRAME_CACHE 8u
/* Decoded frames kept at most, in bytes (one frame is always kept, whatever its size). */
#define GC_CORE_FRAME_CACHE_BYTES GPUCORE_FRAME_CACHE_BYTES
/*
 * PT_NOTE segments are copied to memory at open (so note pointers never point into a file that
 * may change); a decompression bomb must not turn that into an unbounded allocation, and the
 * copies are charged to the budget too. The writer keeps user notes to 3/4 of this limit,
 * leaving the rest for the manifest.
 */
#define GC_CORE_MAX_NOTE_BYTES      (1ull << 30)
#define GC_CORE_MAX_USER_NOTE_BYTES (GC_CORE_MAX_NOTE_BYTES / 4 * 3)

/*
 * Where a reader's bytes come from: the caller's memory (mem != NULL), or a file read with
 * pread() (never mapped: a file that shrinks would fault). size is the size at open.
 */
struct gc_core_src {
    const uint8_t *mem;
    int fd;
    uint64_t size;
};

/*
 * Copy [off, off + n) of the source. A file that has become shorter gives GPUCORE_E_TRUNCATED
 * ("it was cut while being read"), a failed read GPUCORE_E_IO; the diag names the offset.
 */
gpucore_status_t gc_core_src_read(const struct gc_core_src *s, uint64_t off, void *buf, uint64_t n,
                                  gpucore_diag_t *diag);

/* A reader's memory budget (gpucore_open_opts::mem_budget): bytes allowed, in use, at most. */
struct gc_core_mem {
    uint64_t limit;
    uint64_t used;
    uint64_t peak;
};

/* The default budget for a file holding @p content bytes. */
uint64_t gc_core_mem_default(uint64_t content);
/*
 * Charge @p n bytes; GPUCORE_E_LIMIT (nothing charged) if they do not fit, with a message naming
 * @p off (GC_NO_OFFSET: none), @p what needs them, and the budget.
 */
gpucore_status_t gc_core_mem_charge(struct gc_core_mem *m, uint64_t n, uint64_t off,
                                    const char *what, gpucore_diag_t *diag);
void gc_core_mem_release(struct gc_core_mem *m, uint64_t n);
/* gc_malloc of @p n charged bytes into *(void **)ret; free with gc_core_mem_free(m, p, n). */
gpucore_status_t gc_core_mem_alloc(struct gc_core_mem *m, uint64_t n, uint64_t off,
                                   const char *what, void *ret, gpucore_diag_t *diag);
void gc_core_mem_free(struct gc_core_mem *m, void *p, uint64_t n);

/*
 * Writer: logical bytes per zstd frame (default and bounds) and the read-callback chunk.
 *
 * The default is 512 KiB, from `gpucore-bench-core --frames` (bench/README.md, "Frame size"):
 * a random read decodes one frame on a cache miss, so its latency follows the frame size (a
 * 4 KiB read: about 80, 170, 370 us at 256 KiB, 512 KiB, 1 MiB), as does the reader's frame
 * cache (8 frames), while the ratio and the compression time do not change between 64 KiB and
 * 16 MiB on that image. What a smaller frame costs is reach: a core has at most 2^20 frames
 * (GC_CORE_MAX_FRAMES), so F caps the logical size of a compressed core at F * 2^20 (a writer
 * that reaches it ends the data as BUDGET). 512 KiB keeps 512 GiB, more than one GPU of today
 * holds (288 GB of HBM on an MI355X) with its host memory, with half the latency of 1 MiB;
 * 256 KiB would cut such a core at 256 GiB. A larger core gets larger frames: the capture
 * tells the writer what it plans (gpucore_writer_opts::expected_bytes) and transcode knows
 * the image's size, and gc_core_frame_size_for picks the frame from that.
 */
#define GC_CORE_DEFAULT_FRAME_SIZE (512u << 10)

/*
 * The frame size for a core of about @p logical bytes when the caller chose none: the default,
 * or the smallest power of two above it whose GC_CORE_MAX_FRAMES frames reach at least twice
 * @p logical (the margin holds the head frames and an estimate that was low), at most
 * GC_CORE_MAX_FRAME_SIZE (64 TiB of reach). So a large core keeps its data; a small one keeps
 * the default's latency.
 */
uint32_t gc_core_frame_size_for(uint64_t logical);
#define GC_CORE_MIN_FRAME_SIZE     (64u << 10)
#define GC_CORE_MAX_FRAME_SIZE     (64u << 20)
#define GC_CORE_CHUNK_SIZE         (1u << 20)
#define GC_CORE_MAX_THREADS        256u

/* "No cut" / "no value" for 64-bit offsets. */
#define GC_CORE_NONE UINT64_MAX

/*
 * Options structs (G-OWN-7). GC_OPTS_END(type, field) is the number of bytes of `struct type` up
 * to and including `field`; a field is read only if the caller's `sz` covers it.
 */
#define GC_OPTS_END(type, field) (offsetof(struct type, field) + sizeof(((struct type *)0)->field))
#define GC_OPTS_GET(o, type, field, def) \
    ((o) && (o)->sz >= GC_OPTS_END(type, field) ? (o)->field : (def))

/*
 * Validate the `sz` of an options struct: at least a size_t, and every byte past the fields this
 * library knows (`known` bytes) zero, so a newer caller asking for something we cannot do gets
 * GPUCORE_E_INVAL instead of being silently ignored. NULL is valid (all defaults).
 */
gpucore_status_t gc_core_opts_check(const void *opts, size_t known, const char *what,
                                    gpucore_diag_t *diag);

/* Writer options after validation and defaults (shared by the writer and transcode). */
struct gc_core_wopts {
    uint32_t kind;
    uint32_t e_machine; /* 0: the host's */
    uint32_t flags;
    uint32_t mode;      /* never 0 */
    uint64_t max_bytes; /* 0: unlimited */
    int32_t level;      /* 0: plain */
    uint32_t threads;
    uint32_t frame_size; /* never 0 */
    uint64_t head_reserve;
    uint64_t expected_bytes; /* 0: not known */
    uint32_t manifest_flags; /* REDACTED, NO_HOST_MEMORY */
    gpucore_writer_rename_fn rename_on_exist; /* NULL: none */
    void *rename_user;
};

struct gpucore_writer_opts;
gpucore_status_t gc_core_wopts_parse(const struct gpucore_writer_opts *opts,
                                     struct gc_core_wopts *ret, gpucore_diag_t *diag);

/* The logical image of an open core, for transcode. The range must be inside the image. */
struct gpucore_core;
gpucore_status_t gc_core_image_read(struct gpucore_core *core, uint64_t off, void *buf, uint64_t n,
                                    gpucore_diag_t *diag);
uint64_t gc_core_image_size(const struct gpucore_core *core);

static inline uint64_t gc_core_align_up(uint64_t v, uint64_t align)
{
    return (v + align - 1) & ~(align - 1);
}

static inline int gc_core_is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

#endif /* GC_CORE_INTERNAL_H */
