/* SPDX-License-Identifier: MIT */
/*
 * ROCr's structures as they lie in a process's memory, the one decoder of each that the capture
 * (capture/plan*.c, reading a live target; capture/ingest.c, a stream), the analyzer
 * (analyze/image*.c, reading a core) and the emulator (kfd/emu, the real runtime's memory) use,
 * and the one encoder the simulated runtime (kfd/sim/layout.c) writes them with: the
 * _amdgpu_r_debug structure, its link_map nodes, the code-object URI each node names, and a
 * queue's amd_queue_t. glibc's own r_debug and link_map have the same layouts:
 * capture/host_core.c decodes the dynamic linker's list of a host process with the same
 * functions. Everything parsed here is hostile input (a target's memory, a core's bytes); nothing
 * here reads memory or files -- the callers fetch the bytes, these functions decode them.
 *
 * Byte layouts (little-endian, LP64, as glibc's <link.h> lays them out):
 *
 *   struct r_debug    (40 bytes)   0 r_version (int32, then 4 bytes padding)
 *                                  8 r_map (link_map *)      16 r_brk
 *                                 24 r_state (int32, 0 = RT_CONSISTENT)   32 r_ldbase
 *   struct link_map   (40 bytes)   0 l_addr (load bias)   8 l_name (char *, the URI)
 *                                 16 l_ld   24 l_next   32 l_prev
 *
 *   amd_queue_t       (256 bytes, <hsa/amd_hsa_queue.h>, docs/core-format.md §8.5; the fields
 *                     gpucore reads or the simulated runtime writes, GC_ROCR_AMDQ_* below)
 *                                  0 hsa_queue_t.type (u32)   4 features (u32)
 *                                  8 base_address (the AQL ring)   24 size (u32, packets)
 *                                 32 id   56 write_dispatch_id   72 max_cu_id (u32)
 *                                 76 max_wave_id (u32)   128 read_dispatch_id
 *                                136 read_dispatch_id_field_base_byte_offset (u32)
 *                                140 compute_tmpring_size (u32)
 *                                160 scratch_backing_memory_location
 *                                168 scratch_backing_memory_byte_size (the per-XCC scratch
 *                                    stride; gone from r_version 11 on)
 *                                176 scratch_workitem_byte_size (u32)
 *                                180 queue_properties (u32)
 *     A queue entry of the AMDGPU note points at it: read_pointer_address is the address of
 *     its read_dispatch_id, write_pointer_address normally that of its write_dispatch_id.
 *
 * URI grammar (what ROCr writes, percent-decoding as RFC 3986 for file paths):
 *
 *   memory://PID#offset=N&size=N        the object's bytes at [N, N + size) of process PID
 *   file://PATH[#offset=N&size=N]       PATH percent-decoded (%XX with two hex digits; a '%'
 *                                       not followed by two hex digits is itself); the bytes
 *                                       [offset, offset + size) of the file, else all of it
 *
 * N is decimal or 0x-prefixed hexadecimal and fits 64 bits. The fragment is '&'-separated
 * `offset=` and `size=` parameters, each at most once, nothing else; memory:// needs both.
 * A decoded PATH is non-empty, holds no NUL and is at most GC_ROCR_URI_MAX bytes.
 *
 * Not installed; not part of the ABI. Thread safety: reentrant, no global state.
 */
#ifndef GC_ROCR_H
#define GC_ROCR_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#define GC_ROCR_R_DEBUG_SIZE  40u
#define GC_ROCR_LINK_MAP_SIZE 40u

/* The r_version window gpucore supports: 8 (ROCm 5.x) to 12. A capture follows the link map
   only inside it; the analyzer reports an r_debug outside it and does not walk its list. */
#define GC_ROCR_R_VERSION_MIN 8u
#define GC_ROCR_R_VERSION_MAX 12u

/* Most link_map nodes followed: a list that is longer (or loops without repeating a node
   address the walk can see) is cut there. */
#define GC_ROCR_LINK_MAP_MAX 4096u

/* Longest URI string (bytes, NUL excluded) and so longest decoded file:// path. */
#define GC_ROCR_URI_MAX 4096u

struct gc_rocr_r_debug {
    uint32_t r_version;
    uint32_t r_state; /* 0 = RT_CONSISTENT */
    uint64_t r_map;   /* first link_map node, 0 = none */
    uint64_t r_brk, r_ldbase;
};

struct gc_rocr_link_map {
    uint64_t l_addr; /* load bias of the code object */
    uint64_t l_name; /* address of the NUL-terminated URI */
    uint64_t l_ld, l_next, l_prev;
};

/* amd_queue_t: its size and the offsets of its fields (the layout above). */
#define GC_ROCR_AMDQ_SIZE                         256u
#define GC_ROCR_AMDQ_TYPE                         0u
#define GC_ROCR_AMDQ_FEATURES                     4u
#define GC_ROCR_AMDQ_BASE_ADDRESS                 8u
#define GC_ROCR_AMDQ_RING_PACKETS                 24u
#define GC_ROCR_AMDQ_ID                           32u
#define GC_ROCR_AMDQ_WRITE_DISPATCH_ID            56u
#define GC_ROCR_AMDQ_MAX_CU_ID                    72u
#define GC_ROCR_AMDQ_MAX_WAVE_ID                  76u
#define GC_ROCR_AMDQ_READ_DISPATCH_ID             128u
#define GC_ROCR_AMDQ_READ_DISPATCH_ID_BASE_OFFSET 136u
#define GC_ROCR_AMDQ_COMPUTE_TMPRING_SIZE         140u
#define GC_ROCR_AMDQ_SCRATCH_LOCATION             160u
#define GC_ROCR_AMDQ_SCRATCH_BYTE_SIZE            168u
#define GC_ROCR_AMDQ_SCRATCH_WORKITEM_SIZE        176u
#define GC_ROCR_AMDQ_QUEUE_PROPERTIES             180u
/* The cache line ROCr aligns amd_queue_t to: a reader that keeps its bytes in whole lines
   (gc_rocr_amd_queue_lines) keeps one line more than its size, since the address derived from a
   hostile read pointer need not be aligned. */
#define GC_ROCR_AMDQ_LINE 64u
/* The r_version from which ROCr's amd_queue_t no longer has scratch_backing_memory_byte_size
   (docs/core-format.md §8.5). */
#define GC_ROCR_AMDQ_STRIDE_GONE_R_VERSION 11u

/* amd_queue_t's fields gpucore reads or writes (the layout above); every other byte is left
   alone by the encoder and ignored by the decoder. */
struct gc_rocr_amd_queue {
    uint32_t type, features; /* hsa_queue_t: HSA_QUEUE_TYPE_*, HSA_QUEUE_FEATURE_* */
    uint64_t base_address;   /* the AQL ring */
    uint32_t ring_packets;   /* hsa_queue_t.size: the ring's size in packets */
    uint64_t id;
    uint64_t write_dispatch_id;
    uint32_t max_cu_id, max_wave_id;
    uint64_t read_dispatch_id;
    uint32_t read_dispatch_id_field_base_byte_offset;
    uint32_t compute_tmpring_size;
    uint64_t scratch_location;  /* scratch_backing_memory_location */
    uint64_t scratch_byte_size; /* the per-XCC stride; meaningful only where
                                   gc_rocr_amd_queue_has_stride() says so */
    uint32_t scratch_workitem_byte_size;
    uint32_t queue_properties;
};

/*
 * Decode the amd_queue_t in the @p n bytes at @p b (hostile bytes: any values are returned as
 * they are).
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_TRUNCATED  @p n is below GC_ROCR_AMDQ_SIZE; *ret is untouched
 * @retval GPUCORE_E_INVAL      NULL @p b or @p ret
 */
gpucore_status_t gc_rocr_amd_queue_decode(const uint8_t *b, size_t n,
                                          struct gc_rocr_amd_queue *ret);

/* Write the fields of @p q at their offsets into the GC_ROCR_AMDQ_SIZE bytes at @p b; the other
   bytes of @p b are left as they are. Cannot fail. */
void gc_rocr_amd_queue_encode(const struct gc_rocr_amd_queue *q, uint8_t *b);

/* Where a queue's amd_queue_t starts, given the queue entry's read_pointer_address (the address
   of its read_dispatch_id): 1 with *ret_base, or 0 when the pointer is below
   GC_ROCR_AMDQ_READ_DISPATCH_ID and no amd_queue_t can hold it (*ret_base untouched). */
int gc_rocr_amd_queue_at(uint64_t read_pointer_address, uint64_t *ret_base);

/* The same amd_queue_t in whole GC_ROCR_AMDQ_LINE-byte lines: [*ret_lo, *ret_lo + *ret_size)
   holds it whatever the alignment of the pointer. 0 as gc_rocr_amd_queue_at() (nothing set). */
int gc_rocr_amd_queue_lines(uint64_t read_pointer_address, uint64_t *ret_lo, uint64_t *ret_size);

/* 1 if the amd_queue_t of a runtime of @p r_version has scratch_backing_memory_byte_size (below
   GC_ROCR_AMDQ_STRIDE_GONE_R_VERSION), 0 if not or if r_version is 0 (unknown). */
int gc_rocr_amd_queue_has_stride(uint32_t r_version);

/* Decode GC_ROCR_R_DEBUG_SIZE / GC_ROCR_LINK_MAP_SIZE bytes at @p b. Cannot fail. */
void gc_rocr_r_debug_decode(const uint8_t *b, struct gc_rocr_r_debug *ret);
void gc_rocr_link_map_decode(const uint8_t *b, struct gc_rocr_link_map *ret);
/* Write the fields of @p r / @p m at their offsets into the GC_ROCR_R_DEBUG_SIZE /
   GC_ROCR_LINK_MAP_SIZE bytes at @p b (the simulated runtime's loader); padding is left as it
   is. Cannot fail. */
void gc_rocr_r_debug_encode(const struct gc_rocr_r_debug *r, uint8_t *b);
void gc_rocr_link_map_encode(const struct gc_rocr_link_map *m, uint8_t *b);

/* 1 if @p r_version is inside [GC_ROCR_R_VERSION_MIN, GC_ROCR_R_VERSION_MAX], else 0. */
int gc_rocr_r_version_supported(uint32_t r_version);

enum gc_rocr_uri_kind {
    GC_ROCR_URI_MEMORY = 1,
    GC_ROCR_URI_FILE = 2,
};

struct gc_rocr_uri {
    enum gc_rocr_uri_kind kind;
    uint64_t pid;                    /* memory:// */
    char path[GC_ROCR_URI_MAX + 1];  /* file://, percent-decoded, NUL-terminated */
    uint64_t offset, size;           /* 0 when not given */
    int have_offset, have_size;      /* memory:// always has both */
};

/*
 * Parse the URI @p text of @p len bytes (no NUL needed; a NUL inside is malformed).
 * On success *ret describes it; on failure *ret is unspecified and the diag says what, with
 * the byte offset in the text.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_CORRUPT  not a URI of the grammar above (unknown scheme, bad number,
 *                            missing or repeated parameter, empty or too long path)
 * @retval GPUCORE_E_INVAL    NULL text or ret
 */
gpucore_status_t gc_rocr_uri_parse(const char *text, size_t len, struct gc_rocr_uri *ret,
                                   gpucore_diag_t *reterr_diag);

/*
 * The set of link_map node addresses a walk has visited, to stop a list that loops and to
 * cap its length at GC_ROCR_LINK_MAP_MAX. Zero-initialize (GC_ROCR_WALK_INIT) before the first
 * gc_rocr_walk_visit(); no cleanup needed (fixed size, 64 KiB: allocate it, do not put it on a
 * small stack).
 */
struct gc_rocr_walk {
    uint64_t slot[2 * GC_ROCR_LINK_MAP_MAX]; /* open addressing; 0 = empty (node 0 ends a list) */
    uint32_t count;
};

enum gc_rocr_visit {
    GC_ROCR_VISIT_NEW = 0,   /* first time: follow it */
    GC_ROCR_VISIT_CYCLE = 1, /* visited before: the list loops; stop */
    GC_ROCR_VISIT_LIMIT = 2, /* GC_ROCR_LINK_MAP_MAX nodes visited already; stop */
};

/* Record node @p addr (non-zero) as visited. O(1) on average. */
enum gc_rocr_visit gc_rocr_walk_visit(struct gc_rocr_walk *w, uint64_t addr);

#endif /* GC_ROCR_H */
