/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/smaps of a target, parsed: every mapping with its permissions, file, and the
 * VmFlags and page counts the kernel's core dumper decides by. Used by the linux backend (which
 * mappings are GPU memory) and by capture (which host memory goes into the core, NT_FILE).
 *
 * The text comes from the kernel but is treated as untrusted input all the same: every line is
 * validated, and a malformed one is an error naming the file and line. Internal. No printing.
 */
#ifndef GC_KFD_PROCMAPS_H
#define GC_KFD_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gpucore/status.h>

/* gc_procmap::perms */
#define GC_PROCMAP_READ    0x1u
#define GC_PROCMAP_WRITE   0x2u
#define GC_PROCMAP_EXEC    0x4u
#define GC_PROCMAP_SHARED  0x8u /* 's' in the fourth column; otherwise private */

/* gc_procmap::vmflags: the VmFlags two-letter codes capture needs */
#define GC_VMFLAG_IO        0x1u  /* "io": VM_IO, never read */
#define GC_VMFLAG_DONTDUMP  0x2u  /* "dd": VM_DONTDUMP */
#define GC_VMFLAG_HUGETLB   0x4u  /* "ht" */
#define GC_VMFLAG_PFNMAP    0x8u  /* "pf" */
#define GC_VMFLAG_DONTEXPAND 0x10u /* "de" */
#define GC_VMFLAG_SHARED    0x20u /* "sh" */
#define GC_VMFLAG_MAYSHARE  0x40u /* "ms" */

struct gc_procmap {
    uint64_t start, end;  /* [start, end) */
    uint32_t perms;       /* GC_PROCMAP_* */
    uint32_t vmflags;     /* GC_VMFLAG_*; 0 when the kernel has no VmFlags line */
    uint64_t offset;      /* file offset */
    uint32_t dev_major, dev_minor;
    uint64_t inode;
    uint64_t anonymous_kb; /* "Anonymous:": private pages written (COW) or anonymous */
    uint64_t rss_kb;       /* "Rss:" */
    uint64_t swap_kb;      /* "Swap:" (swapped-out anonymous pages also mean "written") */
    const char *path;      /* "" for anonymous; "[stack]", "[heap]", "[vdso]", "/usr/lib/x.so",
                              "/memfd:x (deleted)"... points into the map set's storage */
};

struct gc_procmaps {
    struct gc_procmap *maps; /* sorted by start, as the kernel lists them */
    uint32_t count;
    char *strings;           /* storage of the paths */
    size_t strings_size;
};

/*
 * Text accepted: the kernel's smaps (a header line "start-end perms offset dev inode [path]"
 * per mapping, then "Key: value" lines; "Rss:", "Anonymous:" and "Swap:" must read "N kB",
 * "VmFlags:" is a list of two-character codes, other keys are not interpreted). Plain
 * /proc/PID/maps text (header lines only) is accepted too. Mappings must be non-empty
 * (start < end) and in increasing, non-overlapping order. Lines end with '\n' (the last one
 * may lack it); NUL bytes are refused. Messages read "NAME: line N: what was expected", with
 * the byte offset of the line in the diag.
 */

/*
 * Read and parse /proc/@p pid/smaps (@p path overrides the file, for tests; NULL = the real
 * one). On success release with gc_procmaps_free().
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTFOUND the process does not exist (ENOENT, ESRCH)
 * @retval GPUCORE_E_PERM     not allowed to read it
 * @retval GPUCORE_E_CORRUPT  a line does not parse ("FILE: line N: ...")
 * @retval GPUCORE_E_LIMIT    more than 1M mappings, a line above 64 KiB, or a file above 1 GiB
 * @retval GPUCORE_E_IO, GPUCORE_E_NOMEM
 * The file is read with a loop of read(2) (procfs files report size 0).
 */
gpucore_status_t gc_procmaps_read(pid_t pid, const char *path, struct gc_procmaps *ret,
                                  gpucore_diag_t *reterr_diag);

/* Parse smaps text already in memory (@p name is used in messages). Statuses as above, except
 * NOTFOUND, PERM and IO. On failure *ret is left untouched. */
gpucore_status_t gc_procmaps_parse(const char *text, size_t len, const char *name,
                                   struct gc_procmaps *ret, gpucore_diag_t *reterr_diag);

void gc_procmaps_free(struct gc_procmaps *m);

/* The mapping containing @p addr, or NULL (binary search). */
const struct gc_procmap *gc_procmaps_find(const struct gc_procmaps *m, uint64_t addr);

#endif /* GC_KFD_PROCMAPS_H */
