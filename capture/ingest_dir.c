/* SPDX-License-Identifier: MIT */
/*
 * The files of `gpucore ingest` in its output directory, relative to its descriptor
 * (ingest_dir.h).
 */
#include "ingest_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gc_util.h"

/* @p n random name characters into @p out (not NUL-terminated). getrandom() may be
   unavailable (early boot, a seccomp filter): then the clock and the pid, which a user cannot
   predict to the nanosecond either. */
static void random_chars(char *out, size_t n)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char rnd[GC_INGEST_NAME_RANDOM_CHARS];

    if (n > sizeof(rnd))
        n = sizeof(rnd);
    if (getrandom(rnd, n, GRND_NONBLOCK) != (ssize_t)n) {
        struct timespec ts;
        uint64_t v;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec << 20 ^
            (uint64_t)getpid();
        for (size_t i = 0; i < n; i++)
            rnd[i] = (unsigned char)(v >> (i * 8 % 64));
    }
    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
}

static int name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    return n && n <= GC_INGEST_NAME_MAX && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
           !strchr(name, '/');
}

/* Whether @p name is free in @p dirfd: no entry at all (a dangling symlink is an entry). */
static int is_free(int dirfd, const char *name, int *ret_errno)
{
    struct stat st;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    *ret_errno = errno;
    return errno == ENOENT;
}

gpucore_status_t gc_ingest_tmp_path(int dirfd, const char *dir_path, const char *name, char *tmp,
                                    size_t tmp_size, char *path, size_t path_size,
                                    gpucore_diag_t *reterr_diag)
{
    char proc[32];
    struct stat a, b;
    size_t n;
    int e = 0, via_proc;

    GC_FAIL_IF(!name_ok(name) || !tmp || !path || !dir_path, reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "not a file name: '%s'", name ? name : "");
    n = strlen(name);
    GC_FAIL_IF(tmp_size < n + GC_INGEST_NAME_RANDOM_CHARS + 3, reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "no room for a temporary name");
    for (unsigned i = 0;; i++) {
        GC_FAIL_IF(i == GC_INGEST_NAME_TRIES_RANDOM, reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                   "%s: no free temporary name next to %s", dir_path, name);
        tmp[0] = '.';
        memcpy(tmp + 1, name, n);
        tmp[n + 1] = '.';
        random_chars(tmp + n + 2, GC_INGEST_NAME_RANDOM_CHARS);
        tmp[n + 2 + GC_INGEST_NAME_RANDOM_CHARS] = '\0';
        if (is_free(dirfd, tmp, &e))
            break;
        GC_FAIL_IF(e != 0 && e != EEXIST && e != ENOENT && e != EOVERFLOW, reterr_diag,
                   GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s", dir_path, strerror(e));
        e = 0;
    }
    /* /proc/self/fd/N is the directory dirfd is open on, whatever its path names now */
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
    via_proc = stat(proc, &a) == 0 && fstat(dirfd, &b) == 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
    n = (size_t)snprintf(path, path_size, "%s/%s", via_proc ? proc : dir_path, tmp);
    GC_FAIL_IF(n >= path_size, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "%s: the path is too long", dir_path);
    return GPUCORE_OK;
}

/* Candidate @p k of the name (0: the name itself; then NAME.k; then random) in @p out. */
static void candidate(const char *name, unsigned k, char *out, size_t size)
{
    size_t n = strlen(name), stem = n;
    char rnd[GC_INGEST_NAME_RANDOM_CHARS + 1];

    if (n > 4 && strcmp(name + n - 4, ".zst") == 0)
        stem = n - 4; /* the extension stays last: tools go by it */
    if (k == 0) {
        snprintf(out, size, "%s", name);
    } else if (k <= GC_INGEST_NAME_TRIES_SEQUENTIAL) {
        snprintf(out, size, "%.*s.%u%s", (int)stem, name, k, name + stem);
    } else {
        random_chars(rnd, GC_INGEST_NAME_RANDOM_CHARS);
        rnd[GC_INGEST_NAME_RANDOM_CHARS] = '\0';
        snprintf(out, size, "%.*s.%s%s", (int)stem, name, rnd, name + stem);
    }
}

/* Rename @p from to @p to in @p dirfd unless @p to exists: 0, or -1 with errno (EEXIST). */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
    if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    /* No RENAME_NOREPLACE on this filesystem (NFS): link(2) never replaces either. */
    if (linkat(dirfd, from, dirfd, to, 0) != 0)
        return -1;
    unlinkat(dirfd, from, 0);
    return 0;
}

gpucore_status_t gc_ingest_publish(int dirfd, const char *tmp, const char *name, char *ret_name,
                                   size_t ret_size, gpucore_diag_t *reterr_diag)
{
    const unsigned tries = 1 + GC_INGEST_NAME_TRIES_SEQUENTIAL + GC_INGEST_NAME_TRIES_RANDOM;

    GC_FAIL_IF(!name_ok(name) || !tmp || !ret_name || ret_size < GC_INGEST_NAME_MAX + 16,
               reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "bad argument");
    for (unsigned k = 0; k < tries; k++) {
        candidate(name, k, ret_name, ret_size);
        if (rename_noreplace(dirfd, tmp, ret_name) == 0) {
            /* the name is durable once the directory is: as libcore's writer does */
            if (fsync(dirfd) != 0 && errno != EINVAL && errno != EROFS)
                return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                                   "cannot sync the directory of %s: %s", ret_name,
                                   strerror(errno));
            return GPUCORE_OK;
        }
        if (errno != EEXIST) {
            int e = errno;

            snprintf(ret_name, ret_size, "%s", tmp);
            return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "cannot rename %s to %s: %s", tmp, name, strerror(e));
        }
    }
    snprintf(ret_name, ret_size, "%s", tmp);
    return gc_diag_set(reterr_diag, GPUCORE_E_EXIST, GC_NO_OFFSET,
                       "%s and %u other names for it exist", name, tries - 1);
}

/* What an entry that is not a regular file is. */
static const char *kind(mode_t mode)
{
    static const struct {
        mode_t type;
        const char *name;
    } kinds[] = {
        { S_IFLNK, "a symlink" },          { S_IFDIR, "a directory" },    { S_IFIFO, "a FIFO" },
        { S_IFCHR, "a character device" }, { S_IFBLK, "a block device" }, { S_IFSOCK, "a socket" },
    };

    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if ((mode & S_IFMT) == kinds[i].type)
            return kinds[i].name;
    return "not a regular file";
}

/* The rules on a file's fstat (ingest_dir.h): GPUCORE_OK, or GPUCORE_E_PERM saying why. */
static gpucore_status_t check_file(const struct stat *st, gpucore_diag_t *d)
{
    GC_FAIL_IF(!S_ISREG(st->st_mode), d, GPUCORE_E_PERM, GC_NO_OFFSET,
               "%s, not a regular file: refused", kind(st->st_mode));
    GC_FAIL_IF(st->st_nlink != 1, d, GPUCORE_E_PERM, GC_NO_OFFSET,
               "a file with %lu links (a hard link may be another user's file): refused",
               (unsigned long)st->st_nlink);
    return GPUCORE_OK;
}

gpucore_status_t gc_ingest_open_in(int dirfd, const char *name, int *ret_fd, struct stat *ret_st,
                                   gpucore_diag_t *reterr_diag)
{
    struct stat before, st;
    int fd, fl, e;

    GC_FAIL_IF(!name_ok(name) || !ret_fd, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "not a file name: '%s'", name ? name : "");
    *ret_fd = -1;
    /* looked at first, so that nothing but a regular file is ever opened */
    if (fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW) != 0) {
        e = errno;
        return gc_diag_set(reterr_diag, e == ENOENT ? GPUCORE_E_NOTFOUND : GPUCORE_E_IO,
                           GC_NO_OFFSET, "cannot look at it: %s", strerror(e));
    }
    GC_TRY(check_file(&before, reterr_diag));
    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        return gc_diag_set(reterr_diag,
                           e == ENOENT                               ? GPUCORE_E_NOTFOUND
                           : e == ELOOP || e == EACCES || e == EPERM ? GPUCORE_E_PERM
                                                                     : GPUCORE_E_IO,
                           GC_NO_OFFSET, "cannot open: %s",
                           e == ELOOP ? "a symlink (refused)" : strerror(e));
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot stat: %s", strerror(e));
    }
    /* the entry changed between the look and the open: what was opened is judged again */
    if (check_file(&st, reterr_diag) != GPUCORE_OK ||
        (st.st_dev != before.st_dev || st.st_ino != before.st_ino)) {
        close(fd);
        return gc_diag_set(reterr_diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                           "it changed while it was opened: refused");
    }
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (ret_st)
        *ret_st = st;
    *ret_fd = fd;
    return GPUCORE_OK;
}

int gc_ingest_same_file(int dirfd, const char *name, const struct stat *st)
{
    struct stat now;

    return fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
           now.st_ino == st->st_ino;
}
