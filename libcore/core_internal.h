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

#include <gpucore/status.h>

/*
 * Reader limits. They bound what an untrusted file can make us allocate or iterate over before
 * anything else is checked: 2^20 program headers is 56 MiB of table and far more than any real
 * process has mappings (Linux caps vm.max_map_count at 65530 by default).
 */
#define GC_CORE_MAX_PHDRS  (1u << 20)
#define GC_CORE_MAX_NOTES  (1u << 20)
#define GC_CORE_MAX_FRAMES (1u << 20)
/* Default for gpucore_open_opts::max_frame_size. */
#define GC_CORE_DEFAULT_MAX_FRAME (256ull << 20)
/* Default for gpucore_open_opts::frame_cache. */
#define GC_CORE_DEFAULT_FRAME_CACHE 8u
/*
 * Compressed cores have their PT_NOTE segments copied to memory at open; a decompression bomb
 * must not turn that into an unbounded allocation. The writer keeps user notes to 3/4 of it,
 * leaving the rest for the manifest, so that every core it writes can be read back.
 */
#define GC_CORE_MAX_NOTE_BYTES      (1ull << 30)
#define GC_CORE_MAX_USER_NOTE_BYTES (GC_CORE_MAX_NOTE_BYTES / 4 * 3)

/* Writer: logical bytes per zstd frame (default and bounds) and the read-callback chunk. */
#define GC_CORE_DEFAULT_FRAME_SIZE (1u << 20)
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
