/* SPDX-License-Identifier: MIT */
/*
 * Merging a split dump into one unified core (`gpucore merge`, and `gpucore ingest` when both
 * halves of a pid have arrived): what ROCgdb's `coremerge` (`roccoremerge`) does, written by
 * libcore's streaming writer (atomic publish, optional compression, nothing of either input
 * held in memory beyond one chunk of at most 1 MiB).
 *
 * Inputs: the GPU half, as the ROCm runtime writes `gpucore.PID` (ET_CORE, EM_AMDGPU, one
 * AMDGPU note, the GPU mappings as PT_LOADs), and the host half, the kernel's `core.PID`
 * (ET_CORE, the host's e_machine, the host notes, host memory as PT_LOADs, the device
 * mappings it did not dump as PT_LOADs with p_filesz 0).
 *
 * The output, in this order:
 *  - the host core's ELF header (e_machine) and every host note, in the host core's order;
 *  - the GPU file's AMDGPU note (exactly one), then its GPUCORE notes but its manifest (a GPU
 *    file gpucore wrote itself has them; so do `gpucore ingest`'s GPU halves): the ranges
 *    that manifest says were not captured are recorded again in the new one, and a GPU file
 *    marked truncated makes the merged core truncated, for the same reason; its
 *    CAPTURE_META is kept with "; merged with HOST-NAME" added to its options (and the
 *    executable from the host core when it names none);
 *  - a CAPTURE_META when the GPU file has none: pid from the host core's NT_PRPSINFO (else
 *    NT_PRSTATUS), executable from the string at NT_AUXV's AT_EXECFN in host memory (else
 *    NT_PRPSINFO's pr_fname), arguments from pr_psargs (the kernel keeps 80 bytes, spaces for
 *    NULs), time from gc_merge_opts::time_ns, trigger "unknown", tier "all", producer
 *    "gpucore", options "merge GPU-NAME HOST-NAME";
 *  - the PT_LOADs of both, by address. Rules:
 *      * every GPU PT_LOAD with data is kept whole: the bytes its file holds (p_filesz,
 *        after clipping a cut file); the part of p_memsz past them is recorded as SKIPPED,
 *        reason "io-error" when the file was cut, else "special" (ELF's zeros are never
 *        written out: a hostile file of a few KiB may announce terabytes of p_memsz); the
 *        same holds for the host PT_LOADs below;
 *      * a host PT_LOAD with data is kept, minus the parts a GPU PT_LOAD covers: where both
 *        hold bytes of one address, the GPU file's are kept (they were read at the fault,
 *        with the queues suspended; `gpucore analyze --host` reads them first too), and the
 *        host bytes left out are recorded in the manifest as SKIPPED, reason "policy",
 *        label "host copy; the GPU file's bytes are kept";
 *      * a host PT_LOAD without data (p_filesz 0: a device mapping the kernel did not dump)
 *        adds nothing; its parts no GPU PT_LOAD covers are recorded as SKIPPED, reason
 *        "special", label "device mapping in neither file";
 *      * a GPU PT_LOAD's p_flags are those of the host mapping that holds its start (the
 *        kernel lists it with the real permissions); without one, a GPU file whose PT_LOADs
 *        lack PF_R (the runtime writes section flags: SHF_WRITE 1, SHF_ALLOC 2,
 *        SHF_EXECINSTR 4) has them translated to PF_W, PF_R, PF_X; otherwise kept;
 *      * the manifest (written by the writer) labels each PT_LOAD "gpu: GPU-NAME" (tier all)
 *        or "host: HOST-NAME" (tier host).
 *
 * Refused, GPUCORE_E_CORRUPT with the file (*reterr_which) and the offset in the diag: a GPU
 * file that is not EM_AMDGPU (offset 0x12) or has no AMDGPU note or more than one, or whose
 * note does not decode; a host core that is EM_AMDGPU (offset 0x12; the arguments swapped?)
 * or already holds an AMDGPU note (a unified core: nothing to merge); pids that differ when
 * both files say one (the GPU file: its CAPTURE_META, else gc_merge_opts::gpu_pid, which the
 * program takes from the runtime's file name).
 *
 * Inputs opened with GPUCORE_OPEN_ALLOW_TRUNCATED are merged with the bytes they hold
 * (gc_merge_result says which was cut); the writer's reads then never run past them.
 */
#ifndef GPUCORE_SPLIT_MERGE_H
#define GPUCORE_SPLIT_MERGE_H

#include <stdint.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

/* Which file a failure concerns (*reterr_which). */
enum gc_merge_file {
    GC_MERGE_GPU = 0,
    GC_MERGE_HOST = 1,
    GC_MERGE_OUT = 2,
};

struct gc_merge_opts {
    const char *gpu_name;   /* the GPU file's name for the manifest and CAPTURE_META; may be NULL */
    const char *host_name;  /* the host core's; may be NULL */
    int64_t gpu_pid;        /* the pid the GPU file's name says, -1 = none */
    uint64_t time_ns;       /* CAPTURE_META time when the GPU file has none (0 = unknown) */
    uint32_t compress;      /* non-zero: zstd seekable frames */
    int32_t compress_level; /* 0 = the writer's default */
    uint32_t overwrite;     /* replace an existing output */
    uint32_t mode;          /* output file mode; 0 = 0600 */
};

struct gc_merge_result {
    int64_t pid;           /* the process, -1 when neither file says */
    uint32_t gpu_segments; /* PT_LOADs taken from each file */
    uint32_t host_segments;
    uint64_t gpu_bytes; /* bytes of memory taken from each file */
    uint64_t host_bytes;
    uint64_t superseded_bytes; /* host bytes left out for the GPU file's */
    uint64_t missing_bytes;    /* device mappings in neither file */
    uint32_t gpu_truncated;    /* the input was cut short (opened with ALLOW_TRUNCATED) */
    uint32_t host_truncated;
    uint64_t file_bytes; /* the output's size on disk */
};

/*
 * The pid a file name of the ROCm runtime says: the base name "gpucore.PID" or
 * "gpucore.PID.gpu" (its default names), -1 for any other name.
 */
int64_t gc_merge_pid_from_name(const char *path);

/*
 * Merge @p gpu and @p host (borrowed, open) into a new unified core at @p out (see above).
 * @p ret optional, filled on success.
 * @retval GPUCORE_OK         the core is published under @p out.
 * @retval GPUCORE_E_CORRUPT  an input is refused (see above; *reterr_which says which).
 * @retval GPUCORE_E_EXIST, GPUCORE_E_CANTCREAT, GPUCORE_E_IO  the output (GC_MERGE_OUT), or
 *                            reading an input (GPUCORE_E_IO, _TRUNCATED, _LIMIT with its file).
 * @retval GPUCORE_E_INVAL, GPUCORE_E_NOMEM
 * Nothing is left under @p out on failure.
 */
gpucore_status_t gc_merge_split(gpucore_core_t *gpu, gpucore_core_t *host, const char *out,
                                const struct gc_merge_opts *opts, struct gc_merge_result *ret,
                                enum gc_merge_file *reterr_which, gpucore_diag_t *reterr_diag);

#endif /* GPUCORE_SPLIT_MERGE_H */
