/* SPDX-License-Identifier: MIT */
/*
 * ROCr's code-object list as it lies in a process's memory, the one parser both the capture
 * (capture/plan_co.c, reading a live target) and the analyzer (analyze/image_co.c, reading a
 * core) use: the _amdgpu_r_debug structure, its link_map nodes and the code-object URI each
 * node names. glibc's own r_debug and link_map have the same layouts: capture/host_core.c
 * decodes the dynamic linker's list of a host process with the same functions. Everything parsed
 * here is hostile input (a target's memory, a core's bytes); nothing here reads memory or files --
 * the callers fetch the bytes, these functions decode them.
 *
 * Byte layouts (little-endian, LP64, as glibc's <link.h> lays them out):
 *
 *   struct r_debug    (40 bytes)   0 r_version (int32, then 4 bytes padding)
 *                                  8 r_map (link_map *)      16 r_brk
 *                                 24 r_state (int32, 0 = RT_CONSISTENT)   32 r_ldbase
 *   struct link_map   (40 bytes)   0 l_addr (load bias)   8 l_name (char *, the URI)
 *                                 16 l_ld   24 l_next   32 l_prev
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

/* Decode GC_ROCR_R_DEBUG_SIZE / GC_ROCR_LINK_MAP_SIZE bytes at @p b. Cannot fail. */
void gc_rocr_r_debug_decode(const uint8_t *b, struct gc_rocr_r_debug *ret);
void gc_rocr_link_map_decode(const uint8_t *b, struct gc_rocr_link_map *ret);

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
