/* SPDX-License-Identifier: MIT */
#include "core_publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpucore/core.h>

#include "core_internal.h"
#include "gc_util.h"

/* Room for "/proc/self/fd/" and an int. */
#define PROC_FD_PATH_SIZE 32
/* Attempts at a fresh random hidden name before giving up. */
#define TMPNAME_TRIES 64
/* Keep hidden names well below NAME_MAX (255) whatever the final name's length. */
#define TMPNAME_MAX_BASE 200

static gpucore_status_t errno_status(int e)
{
    switch (e) {
    case EACCES:
    case EPERM:
    case EROFS:
    case ENOENT:  /* a directory of the output path does not exist */
    case ENOTDIR: /* ... or is not a directory */
    case ELOOP:
    case ENAMETOOLONG:
        return GPUCORE_E_CANTCREAT;
    case ENOMEM:
        return GPUCORE_E_NOMEM;
    default:
        return GPUCORE_E_IO;
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/*
 * A fresh hidden name `.NAME.XXXXXX` in p->tmpname. The suffix comes from getrandom(); if that is
 * unavailable (early boot, seccomp), time and pid still make collisions unlikely, and callers
 * retry on EEXIST anyway.
 */
static gpucore_status_t make_tmpname(struct gc_core_publish *p)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t base = strlen(p->name);
    unsigned char rnd[6];
    char *t;

    if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
        struct timespec ts;
        uint64_t v;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 17 ^
            (uint64_t)(uintptr_t)p;
        for (size_t i = 0; i < sizeof(rnd); i++)
            rnd[i] = (unsigned char)(v >> (i * 8));
    }
    if (base > TMPNAME_MAX_BASE)
        base = TMPNAME_MAX_BASE;
    t = gc_malloc(base + 9);
    if (!t)
        return GPUCORE_E_NOMEM;
    t[0] = '.';
    memcpy(t + 1, p->name, base);
    t[base + 1] = '.';
    for (size_t i = 0; i < sizeof(rnd); i++)
        t[base + 2 + i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
    t[base + 8] = '\0';
    gc_free(p->tmpname);
    p->tmpname = t;
    return GPUCORE_OK;
}

static gpucore_status_t split_path(struct gc_core_publish *p, const char *path, char **ret_dir,
                                   gpucore_diag_t *diag)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char *dir;

    GC_FAIL_IF(!*name || !strcmp(name, ".") || !strcmp(name, ".."), diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "%s: not a file name", path);
    if (!slash) {
        dir = gc_strdup(".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path); /* "/name" lives in "/" */

        dir = gc_malloc(n + 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = '\0';
        }
    }
    p->name = gc_strdup(name);
    if (!dir || !p->name) {
        gc_free(dir);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    *ret_dir = dir;
    return GPUCORE_OK;
}

/* The hidden-name fallback for file systems without O_TMPFILE. */
static gpucore_status_t open_named_tmp(struct gc_core_publish *p, gpucore_diag_t *diag)
{
    for (int i = 0; i < TMPNAME_TRIES; i++) {
        GC_TRY(make_tmpname(p));
        p->fd = openat(p->dirfd, p->tmpname, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0600);
        if (p->fd >= 0)
            return GPUCORE_OK;
        if (errno != EEXIST) {
            int e = errno;

            gc_free(p->tmpname);
            p->tmpname = NULL;
            return gc_diag_set(diag, errno_status(e), GC_NO_OFFSET,
                               "cannot create a temporary file next to %s: %s", p->name,
                               strerror(e));
        }
    }
    gc_free(p->tmpname);
    p->tmpname = NULL;
    return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                       "cannot find a free temporary name next to %s", p->name);
}

gpucore_status_t gc_core_publish_open(struct gc_core_publish *p, const char *path, unsigned mode,
                                      unsigned flags, gpucore_diag_t *diag)
{
    char proc[PROC_FD_PATH_SIZE];
    struct stat st;
    char *dir = NULL;
    gpucore_status_t st_;
    int e;

    memset(p, 0, sizeof(*p));
    p->dirfd = -1;
    p->fd = -1;
    p->overwrite = !!(flags & GC_CORE_PUBLISH_OVERWRITE);
    st_ = split_path(p, path, &dir, diag);
    if (st_ < 0)
        goto out_fail;

    p->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p->dirfd < 0) {
        e = errno;
        st_ = gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot open directory %s: %s", dir,
                          strerror(e));
        goto out_fail;
    }
    if (!p->overwrite) {
        if (fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            st_ = gc_diag_set(diag, GPUCORE_E_EXIST, GC_NO_OFFSET, "%s already exists", path);
            goto out_fail;
        }
        if (errno != ENOENT) {
            e = errno;
            st_ = gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot check %s: %s", path,
                              strerror(e));
            goto out_fail;
        }
    }

    if (!(flags & GC_CORE_PUBLISH_NO_TMPFILE)) {
        p->fd = openat(p->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (p->fd >= 0) {
            /*
             * Linking an O_TMPFILE needs /proc/self/fd (linkat with AT_EMPTY_PATH needs
             * CAP_DAC_READ_SEARCH). Without /proc, find out now and use a hidden name instead
             * of failing at the very end of a capture.
             */
            snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p->fd);
            if (stat(proc, &st) != 0)
                close_fd(&p->fd);
        } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
            /* Those three mean "no O_TMPFILE here" (old kernel or file system). */
            e = errno;
            st_ = gc_diag_set(diag, errno_status(e), GC_NO_OFFSET,
                              "cannot create a temporary file in %s: %s", dir, strerror(e));
            goto out_fail;
        }
    }
    if (p->fd < 0) {
        st_ = open_named_tmp(p, diag);
        if (st_ < 0)
            goto out_fail;
    }
    if (fchmod(p->fd, mode) != 0) {
        e = errno;
        st_ = gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot set mode %o on %s: %s", mode,
                          path, strerror(e));
        goto out_fail;
    }
    gc_free(dir);
    return GPUCORE_OK;

out_fail:
    gc_free(dir);
    gc_core_publish_abort(p);
    return st_;
}

/* Link the O_TMPFILE under p->name, replacing an existing file only if overwriting. */
static gpucore_status_t link_tmpfile(struct gc_core_publish *p, gpucore_diag_t *diag)
{
    char proc[PROC_FD_PATH_SIZE];
    int e;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p->fd);
    if (linkat(AT_FDCWD, proc, p->dirfd, p->name, AT_SYMLINK_FOLLOW) == 0)
        return GPUCORE_OK;
    e = errno;
    if (e != EEXIST)
        return gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot link %s: %s", p->name,
                           strerror(e));
    GC_FAIL_IF(!p->overwrite, diag, GPUCORE_E_EXIST, GC_NO_OFFSET,
               "%s appeared while the core was written", p->name);
    /* linkat never replaces: link under a hidden name, then rename over the old file. */
    for (int i = 0; i < TMPNAME_TRIES; i++) {
        GC_TRY(make_tmpname(p));
        if (linkat(AT_FDCWD, proc, p->dirfd, p->tmpname, AT_SYMLINK_FOLLOW) == 0) {
            if (renameat(p->dirfd, p->tmpname, p->dirfd, p->name) == 0) {
                gc_free(p->tmpname);
                p->tmpname = NULL;
                return GPUCORE_OK;
            }
            e = errno;
            unlinkat(p->dirfd, p->tmpname, 0);
            gc_free(p->tmpname);
            p->tmpname = NULL;
            return gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot replace %s: %s",
                               p->name, strerror(e));
        }
        if (errno != EEXIST) {
            e = errno;
            gc_free(p->tmpname);
            p->tmpname = NULL;
            return gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot link %s: %s", p->name,
                               strerror(e));
        }
    }
    gc_free(p->tmpname);
    p->tmpname = NULL;
    return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                       "cannot find a free temporary name next to %s", p->name);
}

/* Rename the hidden fallback file to p->name. On success p->tmpname is released. */
static gpucore_status_t rename_named_tmp(struct gc_core_publish *p, gpucore_diag_t *diag)
{
    int r, e;

    if (p->overwrite) {
        r = renameat(p->dirfd, p->tmpname, p->dirfd, p->name);
    } else {
        r = renameat2(p->dirfd, p->tmpname, p->dirfd, p->name, RENAME_NOREPLACE);
        if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
            /* No RENAME_NOREPLACE on this file system: link(2) also refuses to replace. */
            r = linkat(p->dirfd, p->tmpname, p->dirfd, p->name, 0);
            if (r == 0)
                unlinkat(p->dirfd, p->tmpname, 0);
        }
    }
    if (r != 0) {
        e = errno;
        if (e == EEXIST)
            return gc_diag_set(diag, GPUCORE_E_EXIST, GC_NO_OFFSET,
                               "%s appeared while the core was written", p->name);
        return gc_diag_set(diag, errno_status(e), GC_NO_OFFSET, "cannot rename to %s: %s", p->name,
                           strerror(e));
    }
    gc_free(p->tmpname);
    p->tmpname = NULL;
    return GPUCORE_OK;
}

/*
 * The final name was taken while the file was written: p->name becomes the last component of
 * the caller's attempt @p n (the directory stays p->dirfd's). 0, or -1 when the caller gives
 * none, or no plain name, or there is no memory (the commit then fails as it was).
 */
static int take_other_name(struct gc_core_publish *p, uint32_t n)
{
    char path[PATH_MAX];
    const char *name;
    char *copy;

    path[0] = '\0';
    if (p->rename_on_exist(p->rename_user, n, path, sizeof(path)) != 0 ||
        !memchr(path, '\0', sizeof(path)))
        return -1;
    name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || !(copy = gc_strdup(name)))
        return -1;
    gc_free(p->name);
    p->name = copy;
    return 0;
}

gpucore_status_t gc_core_publish_commit(struct gc_core_publish *p, gpucore_diag_t *diag)
{
    gpucore_status_t st;
    int e;

    if (fsync(p->fd) != 0) {
        e = errno;
        st = gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot sync %s: %s", p->name,
                         strerror(e));
        goto out_abort;
    }
    st = p->tmpname ? rename_named_tmp(p, diag) : link_tmpfile(p, diag);
    for (uint32_t n = 1; st == GPUCORE_E_EXIST && p->rename_on_exist &&
                         n <= GPUCORE_WRITER_RENAMES_MAX;
         n++) {
        if (take_other_name(p, n) != 0)
            break;
        st = p->tmpname ? rename_named_tmp(p, diag) : link_tmpfile(p, diag);
    }
    if (st < 0)
        goto out_abort;
    /*
     * Make the new name durable. EINVAL/EROFS: the file system cannot sync directories, which
     * is not an error. Otherwise the promise "nothing is published on failure" wins: the name
     * is removed again.
     */
    if (fsync(p->dirfd) != 0 && errno != EINVAL && errno != EROFS) {
        e = errno;
        unlinkat(p->dirfd, p->name, 0);
        st = gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot sync the directory of %s: %s",
                         p->name, strerror(e));
        goto out_abort;
    }
    gc_core_publish_abort(p); /* releases; there is no temporary name left to remove */
    return GPUCORE_OK;

out_abort:
    gc_core_publish_abort(p);
    return st;
}

void gc_core_publish_abort(struct gc_core_publish *p)
{
    if (p->tmpname && p->dirfd >= 0)
        unlinkat(p->dirfd, p->tmpname, 0);
    close_fd(&p->fd);
    close_fd(&p->dirfd);
    gc_free(p->tmpname);
    gc_free(p->name);
    p->tmpname = NULL;
    p->name = NULL;
}

unsigned gc_core_publish_flags(const struct gc_core_wopts *o)
{
    return o->flags & GPUCORE_WRITE_OVERWRITE ? GC_CORE_PUBLISH_OVERWRITE : 0u;
}
