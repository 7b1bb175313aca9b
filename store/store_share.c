/* SPDX-License-Identifier: MIT */
/*
 * A core of the system store shared with the user whose process crashed (store.h,
 * gc_store_share_with_owner()): a POSIX ACL entry user:UID:r-- on the core and user:UID:--x on
 * the store's directory, as systemd-coredump gives a user their own cores. The files stay
 * root's: the user can neither change, nor chmod, nor remove them, nor list the directory, and
 * root's store holds no file another user may write (docs/store.md, "The index is not
 * trusted"). The ACL is set in the kernel's binary format (system.posix_acl_access: a version
 * word and {tag, perm, id} entries sorted by tag then id), with fsetxattr() on a descriptor
 * opened relative to the store's directory: no libacl.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

#include "gc_le.h"
#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

#define ACL_XATTR_NAME "system.posix_acl_access"
/*
 * The most entries an ACL read or written here may have: the directory gets one per user with
 * a crash in the store, and ext4 keeps an ACL in one 4 KiB xattr block (about 500 entries).
 * Past it the core is not shared (GPUCORE_E_LIMIT), never a larger buffer.
 */
#define ACL_ENTRIES_MAX 512u
#define ACL_HEADER_SIZE 4u
#define ACL_ENTRY_SIZE  8u
#define ACL_ID_NONE     0xffffffffu

struct acl_entry {
    uint16_t tag, perm;
    uint32_t id;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct acl_entry *x = a, *y = b;

    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The entries of @p fd's access ACL, or the three its mode stands for when it has none.
   The count, or -1 with errno set (E2BIG past ACL_ENTRIES_MAX). */
static int read_acl(int fd, const struct stat *st, struct acl_entry *e)
{
    uint8_t buf[ACL_HEADER_SIZE + ACL_ENTRIES_MAX * ACL_ENTRY_SIZE];
    ssize_t n = fgetxattr(fd, ACL_XATTR_NAME, buf, sizeof(buf));
    int count;

    if (n < 0 && (errno == ENODATA || errno == ENOTSUP)) {
        e[0] = (struct acl_entry){ ACL_USER_OBJ, (uint16_t)((st->st_mode >> 6) & 7),
                                   ACL_ID_NONE };
        e[1] = (struct acl_entry){ ACL_GROUP_OBJ, (uint16_t)((st->st_mode >> 3) & 7),
                                   ACL_ID_NONE };
        e[2] = (struct acl_entry){ ACL_OTHER, (uint16_t)(st->st_mode & 7), ACL_ID_NONE };
        return 3;
    }
    if (n < 0)
        return errno == ERANGE ? (errno = E2BIG, -1) : -1;
    if ((size_t)n < ACL_HEADER_SIZE || ((size_t)n - ACL_HEADER_SIZE) % ACL_ENTRY_SIZE ||
        gc_le32_get(buf) != POSIX_ACL_XATTR_VERSION)
        return (errno = EINVAL), -1;
    count = (int)(((size_t)n - ACL_HEADER_SIZE) / ACL_ENTRY_SIZE);
    for (int i = 0; i < count; i++) {
        const uint8_t *p = buf + ACL_HEADER_SIZE + (size_t)i * ACL_ENTRY_SIZE;

        e[i] = (struct acl_entry){ (uint16_t)(p[0] | p[1] << 8), (uint16_t)(p[2] | p[3] << 8),
                                   gc_le32_get(p + 4) };
    }
    return count;
}

/* With a mask that lets the named entries act (store_internal.h). */
int gc_store_acl_grant(int fd, uint32_t uid, uint16_t perm)
{
    struct acl_entry e[ACL_ENTRIES_MAX + 2];
    uint8_t buf[ACL_HEADER_SIZE + (ACL_ENTRIES_MAX + 2) * ACL_ENTRY_SIZE];
    uint16_t mask = 0;
    struct stat st;
    int n, found = 0, has_mask = 0;

    if (fstat(fd, &st) != 0)
        return -1;
    n = read_acl(fd, &st, e);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (e[i].tag == ACL_USER && e[i].id == uid) {
            e[i].perm |= perm;
            found = 1;
        }
        has_mask |= e[i].tag == ACL_MASK;
    }
    if (!found) {
        if ((unsigned)n >= ACL_ENTRIES_MAX)
            return (errno = E2BIG), -1;
        e[n++] = (struct acl_entry){ ACL_USER, perm, uid };
    }
    if (!has_mask)
        e[n++] = (struct acl_entry){ ACL_MASK, 0, ACL_ID_NONE };
    /* the mask: what the group class (the owning group, named users and groups) may have */
    for (int i = 0; i < n; i++)
        if (e[i].tag == ACL_USER || e[i].tag == ACL_GROUP_OBJ || e[i].tag == ACL_GROUP)
            mask |= e[i].perm;
    for (int i = 0; i < n; i++)
        if (e[i].tag == ACL_MASK)
            e[i].perm = mask;
    qsort(e, (size_t)n, sizeof(e[0]), cmp_entry);
    gc_le32_put(buf, POSIX_ACL_XATTR_VERSION);
    for (int i = 0; i < n; i++) {
        uint8_t *p = buf + ACL_HEADER_SIZE + (size_t)i * ACL_ENTRY_SIZE;

        p[0] = (uint8_t)e[i].tag;
        p[1] = (uint8_t)(e[i].tag >> 8);
        p[2] = (uint8_t)e[i].perm;
        p[3] = (uint8_t)(e[i].perm >> 8);
        gc_le32_put(p + 4, e[i].id);
    }
    return fsetxattr(fd, ACL_XATTR_NAME, buf, ACL_HEADER_SIZE + (size_t)n * ACL_ENTRY_SIZE, 0);
}

/* The uid of the row of @p name: >= 0, or -1 unknown (no row, or no uid). */
static int64_t row_uid(struct gc_store *s, const char *name, gpucore_diag_t *d)
{
    struct gc_store_filter f = { .file = name };
    struct gc_store_row *rows = NULL;
    size_t n = 0;
    int64_t uid = -1;

    if (gc_store_query(s, &f, &rows, &n, d) == GPUCORE_OK && n == 1 &&
        rows[0].state == GC_STORE_PRESENT)
        uid = rows[0].uid;
    gc_store_rows_free(rows, n);
    return uid;
}

gpucore_status_t gc_store_share_with_owner(struct gc_store *s, const char *name,
                                           int64_t *ret_uid, gpucore_diag_t *reterr_diag)
{
    int64_t uid;
    int fd, e;

    if (ret_uid)
        *ret_uid = -1;
    if (geteuid() != 0 || !gc_store_file_name_ok(name))
        return GPUCORE_OK;
    uid = row_uid(s, name, reterr_diag);
    if (uid <= 0 || uid > UINT32_MAX - 1 || (uid_t)uid == geteuid())
        return GPUCORE_OK;
    fd = openat(s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, 0, "%s/%s: %s", s->path, name,
                           strerror(errno));
    if (gc_store_acl_grant(fd, (uint32_t)uid, ACL_READ) != 0 ||
        gc_store_acl_grant(s->dirfd, (uint32_t)uid, ACL_EXECUTE) != 0) {
        e = errno;
        close(fd);
        return gc_diag_set(reterr_diag,
                           e == ENOTSUP ? GPUCORE_E_NOTSUP
                           : e == E2BIG ? GPUCORE_E_LIMIT
                                        : GPUCORE_E_IO,
                           0, "%s/%s: not shared with uid %lld: %s", s->path, name,
                           (long long)uid,
                           e == ENOTSUP ? "the filesystem has no POSIX ACLs"
                           : e == E2BIG ? "the directory's ACL is full"
                                        : strerror(e));
    }
    close(fd);
    if (ret_uid)
        *ret_uid = uid;
    return GPUCORE_OK;
}
