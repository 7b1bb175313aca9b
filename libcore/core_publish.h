/* SPDX-License-Identifier: MIT */
/*
 * Atomic publish of a new file: the data goes to an unnamed O_TMPFILE (or a hidden
 * `.NAME.XXXXXX` file where O_TMPFILE is unsupported) in the destination directory, and only
 * gc_core_publish_commit() gives it its final name. gc_core_publish_abort() leaves nothing.
 */
#ifndef GC_CORE_PUBLISH_H
#define GC_CORE_PUBLISH_H

#include <gpucore/core.h>
#include <gpucore/status.h>

struct gc_core_publish {
    int dirfd;     /* the destination directory, O_RDONLY|O_DIRECTORY */
    int fd;        /* the data file, O_RDWR */
    char *name;    /* final name, relative to dirfd */
    char *tmpname; /* hidden name of the fallback file, NULL with O_TMPFILE */
    int overwrite; /* replace an existing final name */
    /* Not overwriting, and the final name appeared meanwhile: the names to try instead
       (gpucore_writer_opts::rename_on_exist); NULL: fail with GPUCORE_E_EXIST. */
    gpucore_writer_rename_fn rename_on_exist;
    void *rename_user;
};

/* gc_core_publish_open() flags */
#define GC_CORE_PUBLISH_OVERWRITE  0x1u /* replace an existing final name */
#define GC_CORE_PUBLISH_NO_TMPFILE 0x2u /* use the hidden-name fallback (tests) */

/*
 * Create the temporary file next to @p path with permissions @p mode (applied with fchmod, so
 * the umask does not matter). Refuses (GPUCORE_E_EXIST) an existing @p path unless
 * GC_CORE_PUBLISH_OVERWRITE. On failure nothing is left behind and @p p is cleared.
 */
gpucore_status_t gc_core_publish_open(struct gc_core_publish *p, const char *path, unsigned mode,
                                      unsigned flags, gpucore_diag_t *diag);

/* GC_CORE_PUBLISH_* flags for a writer or transcode with these options. */
struct gc_core_wopts;
unsigned gc_core_publish_flags(const struct gc_core_wopts *o);

/* fsync the file, link it under the final name, fsync the directory, release everything. */
gpucore_status_t gc_core_publish_commit(struct gc_core_publish *p, gpucore_diag_t *diag);

/* Release everything; the temporary file disappears. Safe on a cleared struct. */
void gc_core_publish_abort(struct gc_core_publish *p);

#endif /* GC_CORE_PUBLISH_H */
