/* SPDX-License-Identifier: MIT */
/*
 * amdkfd's topology in sysfs, read without a target: the nodes (CPUs and GPUs) of
 * /sys/class/kfd/kfd/topology/nodes/N/ with their gpu_id, name and the properties gpucore
 * reports (`gpucore kfd-check`). Every file is hostile input: each is read once, at most
 * GC_KFD_TOPOLOGY_FILE_MAX bytes, and a malformed one is an error naming the file, its line
 * and what was expected. No heap; the caller owns the result.
 */
#ifndef GC_KFD_TOPOLOGY_H
#define GC_KFD_TOPOLOGY_H

#include <stdint.h>

#include "gc_util.h"

/* Where amdkfd publishes it. */
#define GC_KFD_TOPOLOGY_DIR "/sys/class/kfd/kfd/topology"

/* Nodes read at most: amdkfd has one per CPU socket and one per GPU (per partition); 8-GPU
   machines with 8 partitions each have 64 GPU nodes. More is an error, not a truncation. */
#define GC_KFD_TOPOLOGY_MAX_NODES 256u

/* A node's properties file is about 1.2 KiB on amdkfd 6.x (40 lines); 16 KiB leaves room for
   any growth and bounds what a hostile file costs. */
#define GC_KFD_TOPOLOGY_FILE_MAX 16384u

/* The longest marketing/ASIC name kept (amdkfd's is KFD_TOPOLOGY_PUBLIC_NAME_SIZE, 32). */
#define GC_KFD_TOPOLOGY_NAME_MAX 64u

/* capability bits (kfd_topology.h; docs/kfd-debug-interface.md section 8). */
#define GC_KFD_CAP_TRAP_DEBUG_SUPPORT            0x8000u
#define GC_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED 0x20000000u

struct gc_kfd_topology_node {
    uint32_t node;                       /* the directory's number */
    uint32_t gpu_id;                     /* 0: a CPU node */
    char name[GC_KFD_TOPOLOGY_NAME_MAX]; /* "aldebaran"; "" when the file is empty */
    uint32_t gfx_target_version;         /* decimal MMmmss (90010); 0 for a CPU */
    uint64_t capability;                 /* HSA_CAP_* bits; 0 if the file has none */
    uint32_t simd_count;
    uint32_t num_xcc; /* 0 when the driver does not say (before 6.5) */
};

struct gc_kfd_topology {
    uint32_t count; /* nodes in nodes[], by ascending number */
    struct gc_kfd_topology_node nodes[GC_KFD_TOPOLOGY_MAX_NODES];
};

/*
 * Read the topology under @p dir (GC_KFD_TOPOLOGY_DIR if NULL): every entry of dir/nodes/ that
 * is a decimal number is a node; its gpu_id, name and properties files are read. Entries that
 * are not numbers are skipped. A properties line is "KEY VALUE" (KEY of [a-z0-9_], VALUE a
 * decimal number up to 2^64-1); unknown keys are ignored.
 * @retval GPUCORE_OK            *ret filled (count may be 0)
 * @retval GPUCORE_E_NOTFOUND    dir/nodes does not exist (no amdkfd topology here)
 * @retval GPUCORE_E_IO          a directory or file could not be opened or read (diag: path,
 *                               errno's text)
 * @retval GPUCORE_E_CORRUPT     a file is malformed (diag: path, line, what was expected)
 * @retval GPUCORE_E_LIMIT       a file larger than GC_KFD_TOPOLOGY_FILE_MAX, or more than
 *                               GC_KFD_TOPOLOGY_MAX_NODES nodes
 * @retval GPUCORE_E_INVAL       NULL @p ret, or a path longer than PATH_MAX
 * *ret is zeroed first and holds nothing useful on failure.
 */
gpucore_status_t gc_kfd_topology_read(const char *dir, struct gc_kfd_topology *ret,
                                      gpucore_diag_t *reterr_diag);

/*
 * Parse a node's properties text (@p len bytes of @p text, NUL bytes refused as any other byte a
 * key or value cannot hold) into the fields of @p n that the text names; fields it does not
 * name are left as they are. @p path names the text in messages. Used by gc_kfd_topology_read;
 * public for the fuzz target.
 * @retval GPUCORE_OK          the fields named were stored
 * @retval GPUCORE_E_CORRUPT   a line is not "KEY VALUE" as gc_kfd_topology_read describes, or a
 *                             value does not fit its field (diag: "PATH: line N: ...")
 */
gpucore_status_t gc_kfd_topology_parse_properties(const char *path, const char *text, size_t len,
                                                  struct gc_kfd_topology_node *n,
                                                  gpucore_diag_t *reterr_diag);

/* Does the node report what a debugger needs: trap debugging in the driver and its firmware? */
int gc_kfd_topology_debuggable(const struct gc_kfd_topology_node *node);

#endif /* GC_KFD_TOPOLOGY_H */
