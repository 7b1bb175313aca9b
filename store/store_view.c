/* SPDX-License-Identifier: MIT */
/*
 * A user's view of root's store (store.h, docs/store.md "Users and root's store"): root writes,
 * for each user with a core in its store, ".user-UID.sqlite", an index of the same schema
 * holding that user's rows and nobody else's, root's file, readable by that user alone (POSIX
 * ACL user:UID:r--, as their cores are). A user's `gpucore list/show/job --store DIR` of root's
 * store opens that file, read-only: they see their own crashes as root's store lists them, and
 * never another user's (not even a count), while root's index, its directory's listing and
 * every other core stay closed to them.
 *
 * The view is rebuilt, not patched: a new file filled from the index with one INSERT ... SELECT
 * and renamed over the old one, so a reader sees one whole view or the other, and a fresh file
 * holds no freed page with another user's row in it. Writers of the same store take an flock()
 * on its directory around read-and-rename, so the last writer reads every commit made before it.
 * Readers open the file with SQLite's immutable=1 (no lock, no journal, nothing written beside
 * it: the user cannot write there), which a rename never changes under them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/posix_acl.h>

#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

/* How long a writer waits for another one's view lock; then the view is left for the next
   writer (a warning), as a capture never waits long for its store. */
#define VIEW_LOCK_WAIT_MS 5000
#define VIEW_LOCK_POLL_MS 10

int gc_store_view_name(uint32_t uid, char *buf, size_t size)
{
    int n = snprintf(buf, size, GC_STORE_VIEW_PREFIX "%" PRIu32 GC_STORE_VIEW_SUFFIX, uid);

    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The uid a view's file name stands for, or -1 when @p name is no view's name. */
static int64_t view_uid_of_name(const char *name)
{
    size_t np = strlen(GC_STORE_VIEW_PREFIX), ns = strlen(GC_STORE_VIEW_SUFFIX);
    size_t len = strlen(name);
    uint64_t uid = 0;

    if (len <= np + ns || strncmp(name, GC_STORE_VIEW_PREFIX, np) != 0 ||
        strcmp(name + len - ns, GC_STORE_VIEW_SUFFIX) != 0 || len - np - ns > 10)
        return -1;
    for (size_t i = np; i < len - ns; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        uid = uid * 10 + (uint64_t)(name[i] - '0');
    }
    return uid > 0 && uid < UINT32_MAX ? (int64_t)uid : -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Root: which views are out of date                                                           */
/* ---------------------------------------------------------------------------------------- */

static int views_kept(const struct gc_store *s)
{
    return geteuid() == 0 && !s->view;
}

void gc_store_view_touch(struct gc_store *s, int64_t uid)
{
    if (!views_kept(s) || uid <= 0 || uid >= UINT32_MAX || s->views_all_stale)
        return;
    for (size_t i = 0; i < s->n_stale_views; i++)
        if (s->stale_views[i] == (uint32_t)uid)
            return;
    if (s->n_stale_views == GC_ARRAY_SIZE(s->stale_views))
        s->views_all_stale = 1;
    else
        s->stale_views[s->n_stale_views++] = (uint32_t)uid;
}

void gc_store_view_touch_all(struct gc_store *s)
{
    if (views_kept(s))
        s->views_all_stale = 1;
}

/* Touch the view of the user of the row @p sql selects (bound to @p id or @p file). */
static void touch_row(struct gc_store *s, const char *sql, int64_t id, const char *file)
{
    sqlite3_stmt *q;

    if (!views_kept(s) || s->views_all_stale)
        return;
    gc_store_statement_begin(s);
    if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK) {
        s->views_all_stale = 1; /* not known whose: every view is written again */
        return;
    }
    if (file)
        sqlite3_bind_text(q, 1, file, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(q, 1, id);
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER)
        gc_store_view_touch(s, sqlite3_column_int64(q, 0));
    sqlite3_finalize(q);
}

void gc_store_view_touch_id(struct gc_store *s, int64_t id)
{
    touch_row(s, "SELECT uid FROM cores WHERE id = ?1", id, NULL);
}

void gc_store_view_touch_file(struct gc_store *s, const char *file)
{
    touch_row(s, "SELECT uid FROM cores WHERE file = ?1", 0, file);
}

/* ---------------------------------------------------------------------------------------- */
/* Root: writing a view                                                                        */
/* ---------------------------------------------------------------------------------------- */

/* flock() the store's directory within VIEW_LOCK_WAIT_MS: 0, or -1 with errno set. */
static int lock_views(int dirfd)
{
    struct timespec pause = { 0, VIEW_LOCK_POLL_MS * 1000000L };

    for (int waited = 0;; waited += VIEW_LOCK_POLL_MS) {
        if (flock(dirfd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK || waited >= VIEW_LOCK_WAIT_MS)
            return -1;
        nanosleep(&pause, NULL);
    }
}

/* Rows of @p uid in the index: >= 0, or -1 with *d filled. */
static int64_t rows_of(struct gc_store *s, uint32_t uid, gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    int64_t n = -1;

    if (gc_store_prepare(s, "SELECT count(*) FROM cores WHERE uid = ?1", &q, d) != GPUCORE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, uid);
    if (sqlite3_step(q) == SQLITE_ROW)
        n = sqlite3_column_int64(q, 0);
    else
        gc_store_fail(s, d, "cannot count a user's rows");
    sqlite3_finalize(q);
    return n;
}

/* The new view's schema: the migrations, on its own connection to the file @p path. */
static gpucore_status_t make_view_schema(struct gc_store *s, const char *path, const char *name,
                                         gpucore_diag_t *d)
{
    struct gc_store v = { .path = s->path, .dirfd = -1 };
    gpucore_status_t st;

    snprintf(v.index_name, sizeof(v.index_name), "%s", name);
    if (sqlite3_open_v2(path, &v.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        st = v.db ? gc_store_fail(&v, d, "cannot create a user's view")
                  : gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
        sqlite3_close(v.db);
        return st;
    }
    st = gc_store_guard_db(&v, d);
    if (st == GPUCORE_OK)
        st = gc_store_migrate(&v, d);
    sqlite3_close(v.db);
    return st;
}

/* Copy the rows of @p uid into the view file @p path (its schema made), through root's
   connection: ATTACH, one INSERT ... SELECT, DETACH. */
static gpucore_status_t fill_view(struct gc_store *s, const char *path, uint32_t uid,
                                  gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    gpucore_status_t st;

    st = gc_store_prepare(s, "ATTACH DATABASE ?1 AS user_view", &q, d);
    if (st != GPUCORE_OK)
        return st;
    sqlite3_bind_text(q, 1, path, -1, SQLITE_TRANSIENT);
    st = gc_store_step_done(s, q, "cannot open a user's view", d);
    if (st != GPUCORE_OK)
        return st;
    st = gc_store_prepare(s, "INSERT INTO user_view.cores SELECT * FROM main.cores WHERE uid = ?1",
                          &q, d);
    if (st == GPUCORE_OK) {
        sqlite3_bind_int64(q, 1, uid);
        st = gc_store_step_done(s, q, "cannot fill a user's view", d);
    }
    gpucore_status_t det = gc_store_exec(s, "DETACH DATABASE user_view",
                                         "cannot close a user's view", d);

    return st != GPUCORE_OK ? st : det;
}

/* Write the view of @p uid, or remove it when the index has no row of @p uid. Under the lock. */
static gpucore_status_t write_view(struct gc_store *s, uint32_t uid, gpucore_diag_t *d)
{
    char name[32], tmp[48], path[PATH_MAX];
    gpucore_status_t st;
    int64_t n = rows_of(s, uid, d);
    int fd;

    if (n < 0)
        return d->status;
    if (gc_store_view_name(uid, name, sizeof(name)) != 0)
        return gc_diag_set(d, GPUCORE_E_LIMIT, 0, "a view's name is too long");
    if (n == 0) {
        if (unlinkat(s->dirfd, name, 0) != 0 && errno != ENOENT)
            return gc_diag_set(d, GPUCORE_E_IO, 0, "%s/%s: cannot remove: %s", s->path, name,
                               strerror(errno));
        return GPUCORE_OK;
    }
    if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", name, (long)getpid()) >= (int)sizeof(tmp) ||
        snprintf(path, sizeof(path), "%s/%s", s->path, tmp) >= (int)sizeof(path))
        return gc_diag_set(d, GPUCORE_E_LIMIT, 0, "the store's path is too long");
    (void)unlinkat(s->dirfd, tmp, 0); /* a writer of this pid that died before its rename */
    fd = openat(s->dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return gc_diag_set(d, GPUCORE_E_IO, 0, "%s/%s: cannot create: %s", s->path, tmp,
                           strerror(errno));
    /* the file readable by the user, and the directory passable, as for their cores */
    if (gc_store_acl_grant(fd, uid, ACL_READ) != 0 ||
        gc_store_acl_grant(s->dirfd, uid, ACL_EXECUTE) != 0) {
        int e = errno;

        st = gc_diag_set(d, e == ENOTSUP ? GPUCORE_E_NOTSUP : GPUCORE_E_IO, 0,
                         "%s/%s: the view of uid %" PRIu32 " cannot be shared: %s", s->path,
                         name, uid,
                         e == ENOTSUP ? "the filesystem has no POSIX ACLs" : strerror(e));
    } else {
        st = make_view_schema(s, path, tmp, d);
        if (st == GPUCORE_OK)
            st = fill_view(s, path, uid, d);
        if (st == GPUCORE_OK && fsync(fd) != 0)
            st = gc_diag_set(d, GPUCORE_E_IO, 0, "%s/%s: %s", s->path, tmp, strerror(errno));
        if (st == GPUCORE_OK && renameat(s->dirfd, tmp, s->dirfd, name) != 0)
            st = gc_diag_set(d, GPUCORE_E_IO, 0, "%s/%s: cannot rename to %s: %s", s->path,
                             tmp, name, strerror(errno));
    }
    close(fd);
    if (st != GPUCORE_OK)
        (void)unlinkat(s->dirfd, tmp, 0);
    return st;
}

/* A set of uids, each once. */
struct uid_set {
    uint32_t *v;
    size_t n, cap;
};

static int uid_set_add(struct uid_set *u, uint32_t uid)
{
    for (size_t i = 0; i < u->n; i++)
        if (u->v[i] == uid)
            return 0;
    if (u->n == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 16;
        uint32_t *v = realloc(u->v, cap * sizeof(*v));

        if (!v)
            return -1;
        u->v = v;
        u->cap = cap;
    }
    u->v[u->n++] = uid;
    return 0;
}

/*
 * Every uid with a row in the index, and every uid a view file is there for (its rows may be
 * gone): the views gc_store_view_touch_all() asks to write again or remove. The set is as large
 * as the users with a crash in the store, each found by a query or a directory entry; the
 * linear membership test is bounded by GC_STORE_VIEW_USERS_MAX.
 */
static gpucore_status_t all_view_uids(struct gc_store *s, struct uid_set *u, gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    gpucore_status_t st;
    struct dirent *e;
    DIR *dir;
    int rc, fd, oom = 0;

    st = gc_store_prepare(s, "SELECT DISTINCT uid FROM cores WHERE uid > 0 AND uid < ?1", &q, d);
    if (st != GPUCORE_OK)
        return st;
    sqlite3_bind_int64(q, 1, UINT32_MAX);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW && u->n < GC_STORE_VIEW_USERS_MAX)
        if ((oom = uid_set_add(u, (uint32_t)sqlite3_column_int64(q, 0))) != 0)
            break;
    sqlite3_finalize(q);
    if (oom)
        return gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return gc_store_fail(s, d, "cannot list the users of the index");
    fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return gc_diag_set(d, GPUCORE_E_IO, 0, "%s: %s", s->path, strerror(errno));
    }
    while ((e = readdir(dir)) != NULL && u->n < GC_STORE_VIEW_USERS_MAX) {
        int64_t uid = view_uid_of_name(e->d_name);

        if (uid > 0 && (oom = uid_set_add(u, (uint32_t)uid)) != 0)
            break;
    }
    closedir(dir);
    return oom ? gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory") : GPUCORE_OK;
}

gpucore_status_t gc_store_sync_views(struct gc_store *s, gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t local = { 0 };
    gpucore_diag_t *d = reterr_diag ? reterr_diag : &local;
    struct uid_set all = { 0 };
    gpucore_status_t st = GPUCORE_OK;

    if (!s || !views_kept(s) || (!s->views_all_stale && !s->n_stale_views))
        return GPUCORE_OK;
    if (lock_views(s->dirfd) != 0)
        return gc_diag_set(d, GPUCORE_E_IO, 0, "%s: the users' views were not written: %s",
                           s->path,
                           errno == EWOULDBLOCK ? "another gpucore holds their lock"
                                                : strerror(errno));
    if (s->views_all_stale) {
        st = all_view_uids(s, &all, d);
        for (size_t i = 0; st == GPUCORE_OK && i < all.n; i++)
            st = write_view(s, all.v[i], d);
        free(all.v);
    } else {
        for (size_t i = 0; st == GPUCORE_OK && i < s->n_stale_views; i++)
            st = write_view(s, s->stale_views[i], d);
    }
    s->views_all_stale = 0;
    s->n_stale_views = 0;
    flock(s->dirfd, LOCK_UN);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* A user: reading their view                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* @p path as an SQLite URI "file:PATH?immutable=1", every byte outside [A-Za-z0-9/._-]
   percent-encoded (a '?', '#' or '%' in a path would otherwise end or change it). */
static int view_uri(const char *path, char *buf, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    static const char tail[] = "?immutable=1";
    size_t o = 0;

    if (size < 6)
        return -1;
    memcpy(buf, "file:", 5);
    o = 5;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("/._-", *p);

        if (o + (plain ? 1 : 3) >= size)
            return -1;
        if (plain) {
            buf[o++] = (char)*p;
        } else {
            buf[o++] = '%';
            buf[o++] = hex[*p >> 4];
            buf[o++] = hex[*p & 15];
        }
    }
    if (o + sizeof(tail) > size)
        return -1;
    memcpy(buf + o, tail, sizeof(tail));
    return 0;
}

/* The view of the caller in the root store whose directory is @p fd (O_PATH): its checks and
   its connection into @p s. */
static gpucore_status_t open_view_file(struct gc_store *s, gpucore_diag_t *d)
{
    char uri[PATH_MAX * 3 + 32], path[PATH_MAX];
    struct stat st;
    gpucore_status_t rc;
    int version = 0;

    if (gc_store_view_name((uint32_t)geteuid(), s->index_name, sizeof(s->index_name)) != 0)
        return gc_diag_set(d, GPUCORE_E_LIMIT, 0, "a view's name is too long");
    if (fstatat(s->dirfd, s->index_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT || errno == EACCES)
            return gc_diag_set(d, GPUCORE_E_NOTFOUND, 0,
                               "%s: root's store holds no core of yours (uid %ld): root shares "
                               "with each user the cores of their own processes",
                               s->path, (long)geteuid());
        return gc_diag_set(d, GPUCORE_E_IO, 0, "%s/%s: %s", s->path, s->index_name,
                           strerror(errno));
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1)
        return gc_diag_set(d, GPUCORE_E_PERM, 0,
                           "%s/%s: your view of root's store is not a regular file of root's "
                           "with one name: refused",
                           s->path, s->index_name);
    if (snprintf(path, sizeof(path), "%s/%s", s->path, s->index_name) >= (int)sizeof(path) ||
        view_uri(path, uri, sizeof(uri)) != 0)
        return gc_diag_set(d, GPUCORE_E_LIMIT, 0, "the store's path is too long");
    if (sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        if (!s->db)
            return gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
        return gc_store_fail(s, d, "cannot open your view of root's store");
    }
    sqlite3_extended_result_codes(s->db, 1);
    rc = gc_store_guard_db(s, d);
    if (rc == GPUCORE_OK)
        rc = gc_store_user_version(s, &version, d);
    if (rc != GPUCORE_OK)
        return rc;
    if (version != GC_STORE_SCHEMA_VERSION)
        return gc_diag_set(d, GPUCORE_E_VERSION, 0,
                           "%s/%s: your view of root's store has schema version %d, this "
                           "gpucore reads %d: root's gpucore is %s",
                           s->path, s->index_name, version, GC_STORE_SCHEMA_VERSION,
                           version > GC_STORE_SCHEMA_VERSION ? "newer" : "older");
    return gc_store_verify_schema(s, version, d);
}

int gc_store_open_view(struct gc_store *s, const char *dir, gpucore_diag_t *d)
{
    struct stat st;

    if (geteuid() == 0)
        return 0;
    s->dirfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s->dirfd < 0)
        return 0; /* the store's own checks say why */
    if (fstat(s->dirfd, &st) != 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close(s->dirfd);
        s->dirfd = -1;
        return 0;
    }
    s->view = 1;
    {
        struct statfs sfs;

        s->fs_type = fstatfs(s->dirfd, &sfs) == 0 ? (uint64_t)sfs.f_type : 0;
        s->journal = gc_store_journal_for(s->fs_type); /* root's index's, as `store` says */
    }
    return open_view_file(s, d) == GPUCORE_OK ? 1 : -1;
}

gpucore_status_t gc_store_refuse_view(const struct gc_store *s, gpucore_diag_t *d)
{
    if (!s->view)
        return GPUCORE_OK;
    return gc_diag_set(d, GPUCORE_E_PERM, 0,
                       "%s: root's store: your view of it is read-only (root's gpucore adds, "
                       "removes and rescans its cores)",
                       s->path);
}

int gc_store_is_view(const struct gc_store *s)
{
    return s && s->view;
}
