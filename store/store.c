/* SPDX-License-Identifier: MIT */
/*
 * The store's directory and its SQLite index (store.h): where the store is, opening it safely,
 * the schema and its migrations, putting and querying rows, and file states.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

static const char *const state_names[_GC_STORE_STATE_MAX] = {
    [GC_STORE_PRESENT] = "present",
    [GC_STORE_MISSING] = "missing",
    [GC_STORE_DELETED] = "deleted",
    [GC_STORE_UNREADABLE] = "unreadable",
};

const char *gc_store_state_name(int state)
{
    return state >= 0 && state < _GC_STORE_STATE_MAX ? state_names[state] : NULL;
}

int gc_store_state_parse(const char *name)
{
    for (int i = 0; name && i < _GC_STORE_STATE_MAX; i++)
        if (strcmp(state_names[i], name) == 0)
            return i;
    return -1;
}

void gc_store_row_done(struct gc_store_row *row)
{
    if (!row)
        return;
    free(row->host);
    free(row->exe);
    free(row->job);
    free(row->targets);
    free(row->trigger);
    free(row->sig_text);
    free(row->sig_hash);
    free(row->file);
    free(row->error);
    memset(row, 0, sizeof(*row));
}

void gc_store_rows_free(struct gc_store_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        gc_store_row_done(&rows[i]);
    free(rows);
}

/* ---------------------------------------------------------------------------------------- */
/* The filesystem and the journal                                                              */
/* ---------------------------------------------------------------------------------------- */

static const char *const journal_names[_GC_STORE_JOURNAL_MAX] = {
    [GC_STORE_JOURNAL_WAL] = "wal",
    [GC_STORE_JOURNAL_DELETE] = "delete",
};

const char *gc_store_journal_name(int journal)
{
    return journal >= 0 && journal < _GC_STORE_JOURNAL_MAX ? journal_names[journal] : NULL;
}

/*
 * statfs() f_type values. The kernel's include/uapi/linux/magic.h defines NFS_SUPER_MAGIC,
 * SMB_SUPER_MAGIC, SMB2_SUPER_MAGIC, CIFS_SUPER_MAGIC, CEPH_SUPER_MAGIC, V9FS_MAGIC,
 * FUSE_SUPER_MAGIC, AFS_SUPER_MAGIC (OpenAFS), AFS_FS_MAGIC (the kernel's AFS),
 * CODA_SUPER_MAGIC, OCFS2_SUPER_MAGIC and the local ones; gfs2_ondisk.h GFS2_MAGIC. Lustre,
 * GPFS and BeeGFS (formerly FhGFS) are out of tree: their values are coreutils' (stat.c,
 * S_MAGIC_LUSTRE, S_MAGIC_GPFS, S_MAGIC_FHGFS, which it marks remote too). Every other
 * filesystem is taken to be local; the local ones here only give their names.
 */
static const struct gc_store_fs fs_table[] = {
    { 0x00006969, "nfs", 1 },       /* NFS_SUPER_MAGIC */
    { 0x0000517B, "smb", 1 },       /* SMB_SUPER_MAGIC */
    { 0xFE534D42, "smb2", 1 },      /* SMB2_SUPER_MAGIC */
    { 0xFF534D42, "cifs", 1 },      /* CIFS_SUPER_MAGIC */
    { 0x00C36400, "ceph", 1 },      /* CEPH_SUPER_MAGIC */
    { 0x01021997, "9p", 1 },        /* V9FS_MAGIC */
    { 0x65735546, "fuse", 1 },      /* FUSE_SUPER_MAGIC */
    { 0x5346414F, "afs", 1 },       /* AFS_SUPER_MAGIC */
    { 0x6B414653, "kafs", 1 },      /* AFS_FS_MAGIC */
    { 0x73757245, "coda", 1 },      /* CODA_SUPER_MAGIC */
    { 0x7461636F, "ocfs2", 1 },     /* OCFS2_SUPER_MAGIC */
    { 0x01161970, "gfs2", 1 },      /* GFS2_MAGIC */
    { 0x0BD00BD0, "lustre", 1 },    /* S_MAGIC_LUSTRE */
    { 0x47504653, "gpfs", 1 },      /* S_MAGIC_GPFS */
    { 0x19830326, "beegfs", 1 },    /* S_MAGIC_FHGFS */
    { 0x0000EF53, "ext4", 0 },      /* EXT4_SUPER_MAGIC (ext2 and ext3 too) */
    { 0x58465342, "xfs", 0 },       /* XFS_SUPER_MAGIC */
    { 0x9123683E, "btrfs", 0 },     /* BTRFS_SUPER_MAGIC */
    { 0x01021994, "tmpfs", 0 },     /* TMPFS_MAGIC */
    { 0x794C7630, "overlayfs", 0 }, /* OVERLAYFS_SUPER_MAGIC */
    { 0x2FC12FC1, "zfs", 0 },       /* S_MAGIC_ZFS */
    { 0xF2F52010, "f2fs", 0 },      /* F2FS_SUPER_MAGIC */
    { 0x858458F6, "ramfs", 0 },     /* RAMFS_MAGIC */
};

const struct gc_store_fs *gc_store_fs_lookup(uint64_t f_type)
{
    for (size_t i = 0; i < sizeof(fs_table) / sizeof(fs_table[0]); i++)
        if (fs_table[i].magic == (uint32_t)f_type)
            return &fs_table[i];
    return NULL;
}

int gc_store_journal_for(uint64_t f_type)
{
    const struct gc_store_fs *fs = gc_store_fs_lookup(f_type);

    return fs && fs->network ? GC_STORE_JOURNAL_DELETE : GC_STORE_JOURNAL_WAL;
}

/* ---------------------------------------------------------------------------------------- */
/* Location                                                                                    */
/* ---------------------------------------------------------------------------------------- */

static int env_set(const char *name, const char **ret)
{
    const char *v = getenv(name);

    if (!v || !*v)
        return 0;
    *ret = v;
    return 1;
}

gpucore_status_t gc_store_locate(const char *option, char *buf, size_t size,
                                 gpucore_diag_t *reterr_diag)
{
    const char *v;
    int n;

    if (option)
        n = snprintf(buf, size, "%s", option);
    else if (env_set("GPUCORE_STORE", &v))
        n = snprintf(buf, size, "%s", v);
    else if (geteuid() == 0)
        n = snprintf(buf, size, "%s", GC_STORE_ROOT_DIR);
    else if (env_set("XDG_STATE_HOME", &v) && v[0] == '/')
        n = snprintf(buf, size, "%s/gpucore/cores", v);
    else if (env_set("HOME", &v) && v[0] == '/')
        n = snprintf(buf, size, "%s/.local/state/gpucore/cores", v);
    else
        return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, 0,
                           "no store: neither XDG_STATE_HOME nor HOME is an absolute path (give "
                           "--store DIR or GPUCORE_STORE)");
    if (n < 0 || (size_t)n >= size)
        return gc_diag_set(reterr_diag, GPUCORE_E_LIMIT, 0, "the store's path is too long");
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* The directory                                                                               */
/* ---------------------------------------------------------------------------------------- */

/*
 * mkdir -p: the directory itself 0700, the parents it creates 0755 (the caller's umask is 022
 * here), so that a user can reach what root shares in its store (/var/lib/gpucore/cores);
 * existing parents are left as they are.
 */
static int make_dirs(const char *path)
{
    char tmp[PATH_MAX];
    size_t len = strlen(path);

    if (len >= sizeof(tmp))
        return (errno = ENAMETOOLONG), -1;
    memcpy(tmp, path, len + 1);
    /* "DIR/" and "DIR//" name DIR: it is the last component, made 0700 */
    while (len > 1 && tmp[len - 1] == '/')
        tmp[--len] = '\0';
    for (size_t i = 1; i <= len; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0')
            continue;
        char c = tmp[i];

        tmp[i] = '\0';
        if (mkdir(tmp, c == '\0' ? 0700 : 0755) != 0 && errno != EEXIST)
            return -1;
        tmp[i] = c;
    }
    return 0;
}

/*
 * The ownership and mode rules of the store directory (@p what: "store"), on its fstat().
 * Root too must own a store: its index names the files that gc removes and show prints, so a
 * store another user can write would let that user choose them (docs/store.md, "Rules").
 * Only a directory of cores without an index (@p root_any_owner: ingest --dir, which trusts
 * no entry in it) may be another user's when the caller is root.
 */
static gpucore_status_t check_dir(const char *dir, const char *what, int root_any_owner,
                                  const struct stat *st, gpucore_diag_t *d)
{
    uid_t me = geteuid();

    if (!S_ISDIR(st->st_mode))
        return gc_diag_set(d, GPUCORE_E_PERM, 0, "%s: the %s is not a directory", dir, what);
    if (st->st_uid != me && me == 0 && !root_any_owner)
        return gc_diag_set(d, GPUCORE_E_PERM, 0,
                           "%s: the %s belongs to uid %ld, not to root: refused (root uses "
                           "only stores it owns; run as uid %ld, or copy the cores out)",
                           dir, what, (long)st->st_uid, (long)st->st_uid);
    if (st->st_uid != me && me != 0)
        return gc_diag_set(d, GPUCORE_E_PERM, 0,
                           "%s: the %s belongs to uid %ld, not to you (uid %ld): refused", dir,
                           what, (long)st->st_uid, (long)me);
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return gc_diag_set(d, GPUCORE_E_PERM, 0,
                           "%s: the %s is writable by %s (mode %04o): refused (chmod 700)", dir,
                           what, (st->st_mode & S_IWOTH) ? "others" : "its group",
                           (unsigned)(st->st_mode & 07777));
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* The index                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/*
 * The migrations: step N takes the schema from version N - 1 to N. Append only; a released
 * step is never changed. Each runs in one transaction with its row in `migrations` and the new
 * PRAGMA user_version.
 */
static const struct migration {
    int version;
    const char *description;
    const char *sql;
} migrations[] = {
    { 1, "cores and migrations",
      "CREATE TABLE migrations("
      "  version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL, description TEXT NOT NULL);"
      "CREATE TABLE cores("
      "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
      "  time_ns INTEGER, host TEXT, pid INTEGER, uid INTEGER, exe TEXT, job TEXT,"
      "  rank INTEGER, targets TEXT, trigger TEXT, sig_text TEXT, sig_hash TEXT,"
      "  waves INTEGER, faulting_waves INTEGER, size INTEGER NOT NULL,"
      "  truncated INTEGER NOT NULL, file TEXT NOT NULL UNIQUE,"
      "  state TEXT NOT NULL"
      "    CHECK (state IN ('present', 'missing', 'deleted', 'unreadable')),"
      "  indexed_at INTEGER NOT NULL, error TEXT, file_mtime_ns INTEGER, file_bytes INTEGER);"
      "CREATE INDEX cores_by_signature ON cores(sig_hash);"
      "CREATE INDEX cores_by_time ON cores(time_ns);" },
    /* The fleet index (fleet.h): every change of a row takes the store's next change number
       (changes.last + 1), so a sync sends what changed since the number the database last
       acknowledged (fleet_state, one row per database), and the rows forgotten
       (fleet_forgotten) go from the database too. Rows of an older index get their id as
       their number: all of them wait to be sent. */
    { 2, "change numbers for the fleet index",
      "ALTER TABLE cores ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;"
      "UPDATE cores SET change_seq = id;"
      "CREATE INDEX cores_by_change ON cores(change_seq);"
      "CREATE TABLE changes(id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL);"
      "INSERT INTO changes(id, last) SELECT 1, coalesce(max(id), 0) FROM cores;"
      "CREATE TABLE fleet_state("
      "  target TEXT PRIMARY KEY, database_id TEXT, acked_seq INTEGER NOT NULL DEFAULT 0,"
      "  failed_at_ns INTEGER, error TEXT);"
      "CREATE TABLE fleet_forgotten(seq INTEGER PRIMARY KEY, file TEXT NOT NULL);" },
};
#define NMIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == GC_STORE_SCHEMA_VERSION,
               "one migration per schema version");

const char *gc_store_migration_sql(int version)
{
    for (size_t i = 0; i < NMIGRATIONS; i++)
        if (migrations[i].version == version)
            return migrations[i].sql;
    return NULL;
}

gpucore_status_t gc_store_fail(struct gc_store *s, gpucore_diag_t *d, const char *what)
{
    int code = sqlite3_extended_errcode(s->db);

    if ((code & 0xff) == SQLITE_INTERRUPT && s->overdue)
        return gc_diag_set(d, GPUCORE_E_CORRUPT, 0,
                           "%s/%s: %s: the index did not answer within %" PRId64 " ms (damaged, "
                           "or made to be slow): refused",
                           s->path, s->index_name, what, s->statement_limit_ns / 1000000);
    gpucore_status_t st = (code & 0xff) == SQLITE_NOMEM     ? GPUCORE_E_NOMEM
                          : (code & 0xff) == SQLITE_CORRUPT ? GPUCORE_E_CORRUPT
                          : (code & 0xff) == SQLITE_NOTADB  ? GPUCORE_E_CORRUPT
                                                            : GPUCORE_E_IO;

    return gc_diag_set(d, st, 0, "%s/%s: %s: %s", s->path, s->index_name, what,
                       sqlite3_errmsg(s->db));
}

gpucore_status_t gc_store_exec(struct gc_store *s, const char *sql, const char *what,
                               gpucore_diag_t *d)
{
    gc_store_statement_begin(s);
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return gc_store_fail(s, d, what);
    return GPUCORE_OK;
}

gpucore_status_t gc_store_prepare(struct gc_store *s, const char *sql, sqlite3_stmt **ret,
                                  gpucore_diag_t *d)
{
    gc_store_statement_begin(s);
    if (sqlite3_prepare_v2(s->db, sql, -1, ret, NULL) != SQLITE_OK)
        return gc_store_fail(s, d, "cannot prepare a statement");
    return GPUCORE_OK;
}

gpucore_status_t gc_store_step_done(struct gc_store *s, sqlite3_stmt *stmt, const char *what,
                                    gpucore_diag_t *d)
{
    int rc = sqlite3_step(stmt);

    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return gc_store_fail(s, d, what);
    return GPUCORE_OK;
}

void gc_store_rollback(struct gc_store *s)
{
    gc_store_statement_begin(s); /* a statement that ran out of time is undone all the same */
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

gpucore_status_t gc_store_batch_begin(struct gc_store_batch *b, gpucore_diag_t *d)
{
    gpucore_status_t st;

    if (b->open)
        return GPUCORE_OK;
    st = gc_store_exec(b->s, "BEGIN IMMEDIATE", "cannot lock the index", d);
    if (st == GPUCORE_OK) {
        b->open = 1;
        b->pending = 0;
    }
    return st;
}

gpucore_status_t gc_store_batch_count(struct gc_store_batch *b, gpucore_diag_t *d)
{
    if (++b->pending < GC_STORE_BATCH_ROWS)
        return GPUCORE_OK;
    return gc_store_batch_end(b, GPUCORE_OK, d);
}

gpucore_status_t gc_store_batch_end(struct gc_store_batch *b, gpucore_status_t st,
                                    gpucore_diag_t *d)
{
    gpucore_diag_t ignored = { 0 };
    gpucore_status_t cst;

    if (!b->open)
        return st;
    b->open = 0;
    b->pending = 0;
    /* SQLite may have rolled back by itself after an error (a full disk): nothing to commit */
    if (sqlite3_get_autocommit(b->s->db))
        return st;
    cst = gc_store_exec(b->s, "COMMIT", "cannot commit the changes",
                        st == GPUCORE_OK ? d : &ignored);
    if (cst != GPUCORE_OK)
        gc_store_rollback(b->s);
    return st != GPUCORE_OK ? st : cst;
}

int64_t gc_store_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

gpucore_status_t gc_store_user_version(struct gc_store *s, int *ret, gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    gpucore_status_t st = gc_store_prepare(s, "PRAGMA user_version", &q, d);

    if (st != GPUCORE_OK)
        return st;
    if (sqlite3_step(q) != SQLITE_ROW) {
        st = gc_store_fail(s, d, "cannot read the schema version");
        sqlite3_finalize(q);
        return st;
    }
    *ret = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    return GPUCORE_OK;
}

static gpucore_status_t apply_migration(struct gc_store *s, const struct migration *m,
                                        gpucore_diag_t *d)
{
    char pragma[64];
    sqlite3_stmt *ins;
    gpucore_status_t st;

    st = gc_store_exec(s, m->sql, "a schema migration failed", d);
    if (st != GPUCORE_OK)
        return st;
    st = gc_store_prepare(s,
                          "INSERT INTO migrations(version, applied_at, description) "
                          "VALUES (?1, ?2, ?3)",
                          &ins, d);
    if (st != GPUCORE_OK)
        return st;
    sqlite3_bind_int(ins, 1, m->version);
    sqlite3_bind_int64(ins, 2, gc_store_now_ns());
    sqlite3_bind_text(ins, 3, m->description, -1, SQLITE_STATIC);
    st = gc_store_step_done(s, ins, "cannot record a migration", d);
    if (st != GPUCORE_OK)
        return st;
    /* A pragma takes no parameter; the number is the program's own table's. */
    snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", m->version);
    return gc_store_exec(s, pragma, "cannot set the schema version", d);
}

static gpucore_status_t newer_index(const struct gc_store *s, int version, gpucore_diag_t *d)
{
    return gc_diag_set(d, GPUCORE_E_VERSION, 0,
                       "%s/%s: the index has schema version %d, newer than this gpucore's %d: "
                       "use a newer gpucore",
                       s->path, GC_STORE_INDEX_NAME, version, GC_STORE_SCHEMA_VERSION);
}

/* Bring the schema to GC_STORE_SCHEMA_VERSION, under the write lock. */
gpucore_status_t gc_store_migrate(struct gc_store *s, gpucore_diag_t *d)
{
    gpucore_status_t st;
    int version = 0;

    st = gc_store_exec(s, "BEGIN IMMEDIATE", "cannot lock the index", d);
    if (st != GPUCORE_OK)
        return st;
    st = gc_store_user_version(s, &version, d);
    if (st == GPUCORE_OK && version > GC_STORE_SCHEMA_VERSION)
        st = newer_index(s, version, d);
    else if (st == GPUCORE_OK && version < 0)
        st = gc_diag_set(d, GPUCORE_E_CORRUPT, 0, "%s/%s: schema version %d is not one", s->path,
                         GC_STORE_INDEX_NAME, version);
    /* What is there must be what the migrations made, before anything of it is used. */
    if (st == GPUCORE_OK)
        st = gc_store_verify_schema(s, version, d);
    for (size_t i = 0; st == GPUCORE_OK && i < NMIGRATIONS; i++)
        if (migrations[i].version > version)
            st = apply_migration(s, &migrations[i], d);
    if (st != GPUCORE_OK) {
        gc_store_rollback(s);
        return st;
    }
    /* root's users' views are of the old version, which their gpucore refuses: written again
       (of the new one) when this command syncs them */
    if (version > 0 && version < GC_STORE_SCHEMA_VERSION)
        gc_store_view_touch_all(s);
    return gc_store_exec(s, "COMMIT", "cannot commit the schema", d);
}

/* The directory at s->path is still the one s->dirfd holds (same device and inode). */
static int same_dir(const struct gc_store *s)
{
    struct stat a, b;

    return stat(s->path, &a) == 0 && fstat(s->dirfd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The index is absent (ENOENT), or a regular file, not a symlink: 0, or -1 with *d filled. */
static int check_index(const struct gc_store *s, uint32_t flags, gpucore_diag_t *d)
{
    struct stat st;

    if (fstatat(s->dirfd, GC_STORE_INDEX_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode))
            gc_diag_set(d, GPUCORE_E_PERM, 0,
                        "%s/%s: the index is not a regular file (a symlink?): refused", s->path,
                        GC_STORE_INDEX_NAME);
        else if (st.st_uid != geteuid())
            gc_diag_set(d, GPUCORE_E_PERM, 0,
                        "%s/%s: the index belongs to uid %ld, not to you (uid %ld): refused",
                        s->path, GC_STORE_INDEX_NAME, (long)st.st_uid, (long)geteuid());
        else if (st.st_nlink != 1)
            gc_diag_set(d, GPUCORE_E_PERM, 0,
                        "%s/%s: the index has %ju names (hard links): refused", s->path,
                        GC_STORE_INDEX_NAME, (uintmax_t)st.st_nlink);
        else
            return 0;
        return -1;
    }
    if (errno != ENOENT)
        gc_diag_set(d, GPUCORE_E_IO, 0, "%s/%s: %s", s->path, GC_STORE_INDEX_NAME, strerror(errno));
    else if (!(flags & GC_STORE_CREATE))
        gc_diag_set(d, GPUCORE_E_NOTFOUND, 0, "%s: no index (%s) in the store", s->path,
                    GC_STORE_INDEX_NAME);
    else
        return 0;
    return -1;
}

/*
 * The journal s->journal names. WAL: readers never wait for a writer, a writer waits
 * (busy_timeout) for another, and commits are synced at checkpoints (synchronous=NORMAL). On a
 * network filesystem a rollback journal and POSIX locks, every commit synced (FULL, SQLite's
 * default for it). PRAGMA journal_mode answers the mode in force: an index in WAL mode that
 * another connection has open cannot leave it (SQLITE_BUSY, at once).
 */
static gpucore_status_t set_journal(struct gc_store *s, gpucore_diag_t *d)
{
    const char *want = gc_store_journal_name(s->journal);
    const unsigned char *got;
    char sql[64], fs[32];
    sqlite3_stmt *q;
    gpucore_status_t st;
    int rc;

    snprintf(sql, sizeof(sql), "PRAGMA journal_mode=%s", want);
    st = gc_store_prepare(s, sql, &q, d);
    if (st != GPUCORE_OK)
        return st;
    rc = sqlite3_step(q);
    got = rc == SQLITE_ROW ? sqlite3_column_text(q, 0) : NULL;
    if (got && sqlite3_stricmp((const char *)got, want) == 0) {
        sqlite3_finalize(q);
        return gc_store_exec(s,
                             s->journal == GC_STORE_JOURNAL_WAL ? "PRAGMA synchronous=NORMAL"
                                                                : "PRAGMA synchronous=FULL",
                             "cannot set the index's options", d);
    }
    if (s->journal == GC_STORE_JOURNAL_DELETE)
        st = gc_diag_set(d, GPUCORE_E_IO, 0,
                         "%s/%s: the store is on a network filesystem (%s), where the index "
                         "must use a rollback journal, not WAL; it could not be switched (%s): "
                         "another process has it open; retry when it has closed it",
                         s->path, GC_STORE_INDEX_NAME, gc_store_fs_name(s, fs, sizeof(fs)),
                         got ? (const char *)got : sqlite3_errmsg(s->db));
    else if (got)
        st = gc_diag_set(d, GPUCORE_E_IO, 0,
                         "%s/%s: cannot use WAL: the index stays in journal mode %s (another "
                         "process has it open?)",
                         s->path, GC_STORE_INDEX_NAME, (const char *)got);
    else
        st = gc_store_fail(s, d, "cannot use WAL");
    sqlite3_finalize(q);
    return st;
}

static gpucore_status_t open_index(struct gc_store *s, uint32_t flags, gpucore_diag_t *d)
{
    char path[PATH_MAX];
    int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    gpucore_status_t rc;

    /*
     * SQLite opens by name. The name is the directory checked (s->dirfd) and the index in it,
     * which is no symlink (nobody else may write in the store's directory, so nobody can put
     * one there after the check); the directory's name is checked to still be that directory
     * before and after the open.
     */
    if (check_index(s, flags, d) != 0)
        return d->status;
    if (snprintf(path, sizeof(path), "%s/%s", s->path, GC_STORE_INDEX_NAME) >= (int)sizeof(path))
        return gc_diag_set(d, GPUCORE_E_LIMIT, 0, "the store's path is too long");
    if (!same_dir(s))
        return gc_diag_set(d, GPUCORE_E_PERM, 0,
                           "%s: the store's directory was replaced while "
                           "being opened: refused",
                           s->path);
    if (flags & GC_STORE_CREATE)
        oflags |= SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &s->db, oflags, NULL) != SQLITE_OK) {
        if (!s->db)
            return gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
        return gc_store_fail(s, d, "cannot open the index");
    }
    if (!same_dir(s) || check_index(s, 0, d) != 0)
        return gc_diag_set(d, GPUCORE_E_PERM, 0,
                           "%s: the store's directory or index was "
                           "replaced while being opened: refused",
                           s->path);
    sqlite3_busy_timeout(s->db, GC_STORE_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(s->db, 1);
    /* Before the first statement: nothing of the file runs, and nothing runs long. */
    rc = gc_store_guard_db(s, d);
    if (rc != GPUCORE_OK)
        return rc;
    /* A newer index is refused before anything of it is changed (its journal mode too). */
    int version = 0;

    rc = gc_store_user_version(s, &version, d);
    if (rc == GPUCORE_OK && version > GC_STORE_SCHEMA_VERSION)
        rc = newer_index(s, version, d);
    if (rc != GPUCORE_OK)
        return rc;
    rc = set_journal(s, d);
    return rc == GPUCORE_OK ? gc_store_migrate(s, d) : rc;
}

/*
 * Why @p dir cannot be created or opened when the system said EACCES: the store, or a directory
 * above it, is another user's (`list --store ~bob/cores`). The message names whose, not
 * "cannot create": the directory if it can be looked at, else the nearest existing directory
 * above it that is closed to the caller. GPUCORE_E_PERM.
 */
static gpucore_status_t denied(const char *dir, const char *what, gpucore_diag_t *d)
{
    char up[PATH_MAX];
    struct stat st;
    char *slash;

    if (lstat(dir, &st) == 0)
        return st.st_uid != geteuid()
                       ? gc_diag_set(d, GPUCORE_E_PERM, 0,
                                     "%s: the %s belongs to uid %ld, not to you (uid %ld): "
                                     "refused",
                                     dir, what, (long)st.st_uid, (long)geteuid())
                       : gc_diag_set(d, GPUCORE_E_PERM, 0,
                                     "%s: cannot open the %s: %s (mode %04o)", dir, what,
                                     strerror(EACCES), (unsigned)(st.st_mode & 07777));
    if (snprintf(up, sizeof(up), "%s", dir) < (int)sizeof(up)) {
        while ((slash = strrchr(up, '/')) != NULL) {
            *slash = '\0';
            if (stat(up[0] ? up : "/", &st) == 0)
                return gc_diag_set(d, GPUCORE_E_PERM, 0,
                                   "%s: not yours: %s (uid %ld, mode %04o) is closed to you "
                                   "(uid %ld), so the %s can be neither made nor read there: "
                                   "refused",
                                   dir, up[0] ? up : "/", (long)st.st_uid,
                                   (unsigned)(st.st_mode & 07777), (long)geteuid(), what);
        }
    }
    return gc_diag_set(d, GPUCORE_E_PERM, 0, "%s: cannot reach the %s: %s", dir, what,
                       strerror(EACCES));
}

/* Open @p dir (created first with GC_STORE_CREATE in @p flags) as the store's directory
   (@p what: "store") and check it: its descriptor, or -1 with *d filled. */
static int open_dir(const char *dir, const char *what, uint32_t flags, gpucore_diag_t *d)
{
    int create = (flags & GC_STORE_CREATE) != 0;
    struct stat st;
    gpucore_status_t rc;
    mode_t old;
    int fd, e;

    if (!dir || !*dir) {
        gc_diag_set(d, GPUCORE_E_INVAL, 0, "no %s directory", what);
        return -1;
    }
    if (create) {
        old = umask(022);
        int made = make_dirs(dir);

        umask(old);
        if (made != 0) {
            if (errno == EACCES)
                denied(dir, what, d);
            else
                gc_diag_set(d, GPUCORE_E_IO, 0, "%s: cannot create the %s: %s", dir, what,
                            strerror(errno));
            return -1;
        }
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat lst;

        e = errno;
        /* O_DIRECTORY | O_NOFOLLOW on a symlink: ELOOP, or ENOTDIR when it points to one */
        if ((e == ENOTDIR || e == ELOOP) && lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode))
            e = ELOOP;
        if (e == EACCES) {
            denied(dir, what, d);
            return -1;
        }
        gc_diag_set(d,
                    e == ELOOP || e == ENOTDIR || e == EACCES ? GPUCORE_E_PERM
                    : e == ENOENT                             ? GPUCORE_E_NOTFOUND
                                                              : GPUCORE_E_IO,
                    0, "%s: cannot open the %s: %s", dir, what,
                    e == ELOOP ? "it is a symlink (refused)" : strerror(e));
        return -1;
    }
    if (fstat(fd, &st) != 0)
        rc = gc_diag_set(d, GPUCORE_E_IO, 0, "%s: %s", dir, strerror(errno));
    else
        rc = check_dir(dir, what, (flags & GC_STORE_ROOT_ANY_OWNER) != 0, &st, d);
    if (rc != GPUCORE_OK) {
        close(fd);
        return -1;
    }
    return fd;
}

int gc_store_open_private_dir(const char *dir, const char *what, uint32_t flags,
                              gpucore_diag_t *reterr_diag)
{
    return open_dir(dir, what ? what : "store", flags, reterr_diag);
}

gpucore_status_t gc_store_prepare_dir(const char *dir, gpucore_diag_t *reterr_diag)
{
    int fd = open_dir(dir, "store", GC_STORE_CREATE, reterr_diag);

    if (fd < 0)
        return reterr_diag ? reterr_diag->status : GPUCORE_E_IO;
    close(fd);
    return GPUCORE_OK;
}

gpucore_status_t gc_store_open(const char *dir, uint32_t flags, struct gc_store **ret,
                               gpucore_diag_t *reterr_diag)
{
    return gc_store_open_fs(dir, flags, NULL, ret, reterr_diag);
}

gpucore_status_t gc_store_open_fs(const char *dir, uint32_t flags, const uint64_t *f_type,
                                  struct gc_store **ret, gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t local = { 0 };
    gpucore_diag_t *d = reterr_diag ? reterr_diag : &local;
    struct gc_store *s;
    gpucore_status_t rc;

    if (!ret)
        return gc_diag_set(d, GPUCORE_E_INVAL, 0, "no store to return");
    s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(dir ? dir : ""))) {
        free(s);
        return gc_diag_set(d, GPUCORE_E_NOMEM, 0, "out of memory");
    }
    s->dirfd = -1;
    snprintf(s->index_name, sizeof(s->index_name), "%s", GC_STORE_INDEX_NAME);
    /* A user's look at root's store is their view of it (store_view.c). */
    switch (dir && *dir ? gc_store_open_view(s, dir, d) : 0) {
    case 1:
        *ret = s;
        return GPUCORE_OK;
    case -1:
        rc = d->status;
        gc_store_close(s);
        return rc;
    default:
        break;
    }
    s->dirfd = open_dir(dir, "store", flags & GC_STORE_CREATE, d);
    if (s->dirfd < 0) {
        rc = d->status;
        gc_store_close(s);
        return rc;
    }
    /* Its filesystem decides the journal; fstatfs() failing (it does not on a directory
       opened) leaves it unknown, and local. */
    if (f_type) {
        s->fs_type = *f_type;
    } else {
        struct statfs sfs;

        s->fs_type = fstatfs(s->dirfd, &sfs) == 0 ? (uint64_t)sfs.f_type : 0;
    }
    s->journal = gc_store_journal_for(s->fs_type);
    /* The index and SQLite's journals beside it (which take the index's mode) are 0600. */
    mode_t old = umask(077);

    rc = open_index(s, flags, d);
    umask(old);
    if (rc != GPUCORE_OK) {
        gc_store_close(s);
        return rc;
    }
    *ret = s;
    return GPUCORE_OK;
}

void gc_store_close(struct gc_store *s)
{
    if (!s)
        return;
    if (s->db)
        sqlite3_close(s->db);
    if (s->dirfd >= 0)
        close(s->dirfd);
    free(s->path);
    free(s);
}

int gc_store_dirfd(const struct gc_store *s)
{
    return s->dirfd;
}

const char *gc_store_path(const struct gc_store *s)
{
    return s->path;
}

uint64_t gc_store_fs_type(const struct gc_store *s)
{
    return s->fs_type;
}

int gc_store_journal(const struct gc_store *s)
{
    return s->journal;
}

const char *gc_store_fs_name(const struct gc_store *s, char *buf, size_t size)
{
    const struct gc_store_fs *fs = gc_store_fs_lookup(s->fs_type);

    if (fs)
        return fs->name;
    snprintf(buf, size, "0x%" PRIx32, (uint32_t)s->fs_type);
    return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Rows                                                                                        */
/* ---------------------------------------------------------------------------------------- */

static void bind_text(sqlite3_stmt *q, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(q, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(q, i);
}

static void bind_i64(sqlite3_stmt *q, int i, int64_t v)
{
    if (v < 0)
        sqlite3_bind_null(q, i);
    else
        sqlite3_bind_int64(q, i, v);
}

/*
 * A change of the rows: begun with the store's next change number in *ret_seq (schema 2,
 * fleet.h), in a savepoint, so that the number and the change it marks are committed together
 * and in the order of the numbers (a writer waits for the other's lock between them): a sync
 * that has read the last number has every change up to it to read. Nested in the caller's
 * transaction when there is one (gc, a rescan, a refresh).
 */
static gpucore_status_t change_begin(struct gc_store *s, int64_t *ret_seq, gpucore_diag_t *d)
{
    sqlite3_stmt *q;
    gpucore_status_t st;

    st = gc_store_exec(s, "SAVEPOINT gc_change", "cannot begin a change", d);
    if (st != GPUCORE_OK)
        return st;
    st = gc_store_prepare(s, "UPDATE changes SET last = last + 1 WHERE id = 1 RETURNING last", &q,
                          d);
    if (st == GPUCORE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW)
            *ret_seq = sqlite3_column_int64(q, 0);
        else
            st = gc_store_fail(s, d, "cannot number a change");
        sqlite3_finalize(q);
    }
    if (st != GPUCORE_OK) {
        gpucore_diag_t ignored = { 0 };
        (void)gc_store_exec(s, "ROLLBACK TO gc_change; RELEASE gc_change", "", &ignored);
    }
    return st;
}

/* The change's end, @p st being how it went: kept, or undone (its number too). Returns @p st
   when it is a failure, else the release's status. */
static gpucore_status_t change_end(struct gc_store *s, gpucore_status_t st, gpucore_diag_t *d)
{
    gpucore_diag_t ignored = { 0 };

    if (st == GPUCORE_OK)
        return gc_store_exec(s, "RELEASE gc_change", "cannot commit a change", d);
    (void)gc_store_exec(s, "ROLLBACK TO gc_change; RELEASE gc_change", "", &ignored);
    return st;
}

static gpucore_status_t put_row(struct gc_store *s, struct gc_store_row *row, const char *state,
                                int64_t seq, gpucore_diag_t *reterr_diag);

gpucore_status_t gc_store_put(struct gc_store *s, struct gc_store_row *row,
                              gpucore_diag_t *reterr_diag)
{
    gpucore_status_t st;
    int64_t seq = 0;
    const char *state = gc_store_state_name(row->state);

    if (!row->file || !state)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "a row without a file or state");
    if (!gc_store_file_name_ok(row->file))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "'%s' is not a file name of the store",
                           row->file);
    st = gc_store_refuse_view(s, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    if (!row->indexed_at)
        row->indexed_at = gc_store_now_ns();
    /* the user the file's row was of (a re-index may change it), and the new one */
    gc_store_view_touch_file(s, row->file);
    gc_store_view_touch(s, row->uid);
    st = change_begin(s, &seq, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    return change_end(s, put_row(s, row, state, seq, reterr_diag), reterr_diag);
}

static gpucore_status_t put_row(struct gc_store *s, struct gc_store_row *row, const char *state,
                                int64_t seq, gpucore_diag_t *reterr_diag)
{
    sqlite3_stmt *q;
    gpucore_status_t st;

    st = gc_store_prepare(
            s,
            "INSERT INTO cores(time_ns, host, pid, uid, exe, job, rank, targets, trigger, "
            "  sig_text, sig_hash, waves, faulting_waves, size, truncated, file, state, "
            "  indexed_at, error, file_mtime_ns, file_bytes, change_seq) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
            "  ?18, ?19, ?20, ?21, ?22) "
            "ON CONFLICT(file) DO UPDATE SET time_ns = excluded.time_ns, host = excluded.host, "
            "  pid = excluded.pid, uid = excluded.uid, exe = excluded.exe, job = excluded.job, "
            "  rank = excluded.rank, targets = excluded.targets, trigger = excluded.trigger, "
            "  sig_text = excluded.sig_text, sig_hash = excluded.sig_hash, "
            "  waves = excluded.waves, faulting_waves = excluded.faulting_waves, "
            "  size = excluded.size, truncated = excluded.truncated, state = excluded.state, "
            "  indexed_at = excluded.indexed_at, error = excluded.error, "
            "  file_mtime_ns = excluded.file_mtime_ns, file_bytes = excluded.file_bytes, "
            "  change_seq = excluded.change_seq "
            "RETURNING id",
            &q, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    bind_i64(q, 1, row->time_ns);
    bind_text(q, 2, row->host);
    bind_i64(q, 3, row->pid);
    bind_i64(q, 4, row->uid);
    bind_text(q, 5, row->exe);
    bind_text(q, 6, row->job);
    bind_i64(q, 7, row->rank);
    bind_text(q, 8, row->targets);
    bind_text(q, 9, row->trigger);
    bind_text(q, 10, row->sig_text);
    bind_text(q, 11, row->sig_hash);
    bind_i64(q, 12, row->waves);
    bind_i64(q, 13, row->faulting_waves);
    sqlite3_bind_int64(q, 14, row->size < 0 ? 0 : row->size);
    sqlite3_bind_int(q, 15, row->truncated ? 1 : 0);
    bind_text(q, 16, row->file);
    sqlite3_bind_text(q, 17, state, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 18, row->indexed_at);
    bind_text(q, 19, row->error);
    bind_i64(q, 20, row->file_mtime_ns);
    bind_i64(q, 21, row->file_bytes);
    sqlite3_bind_int64(q, 22, seq);
    if (sqlite3_step(q) != SQLITE_ROW) {
        st = gc_store_fail(s, reterr_diag, "cannot add the core to the index");
        sqlite3_finalize(q);
        return st;
    }
    row->id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return GPUCORE_OK;
}

gpucore_status_t gc_store_forget(struct gc_store *s, const char *name,
                                 gpucore_diag_t *reterr_diag)
{
    sqlite3_stmt *q;
    gpucore_status_t st;
    int64_t seq = 0;

    if (!gc_store_file_name_ok(name))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "'%s' is not a file name of the store",
                           name ? name : "");
    st = gc_store_refuse_view(s, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    gc_store_view_touch_file(s, name);
    st = change_begin(s, &seq, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    st = gc_store_prepare(s, "DELETE FROM cores WHERE file = ?1", &q, reterr_diag);
    if (st == GPUCORE_OK) {
        bind_text(q, 1, name);
        st = gc_store_step_done(s, q, "cannot remove a core's row", reterr_diag);
    }
    /* the fleet index forgets it too, with the next sync */
    if (st == GPUCORE_OK && sqlite3_changes(s->db) > 0) {
        st = gc_store_prepare(s, "INSERT INTO fleet_forgotten(seq, file) VALUES (?1, ?2)", &q,
                              reterr_diag);
        if (st == GPUCORE_OK) {
            sqlite3_bind_int64(q, 1, seq);
            bind_text(q, 2, name);
            st = gc_store_step_done(s, q, "cannot record a forgotten row", reterr_diag);
        }
    }
    return change_end(s, st, reterr_diag);
}

gpucore_status_t gc_store_set_state(struct gc_store *s, int64_t id, int state,
                                    gpucore_diag_t *reterr_diag)
{
    sqlite3_stmt *q;
    gpucore_status_t st;
    int64_t seq = 0;
    const char *name = gc_store_state_name(state);

    if (!name)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "no state %d", state);
    st = gc_store_refuse_view(s, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    gc_store_view_touch_id(s, id);
    st = change_begin(s, &seq, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    st = gc_store_prepare(s, "UPDATE cores SET state = ?1, change_seq = ?3 WHERE id = ?2", &q,
                          reterr_diag);
    if (st == GPUCORE_OK) {
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 2, id);
        sqlite3_bind_int64(q, 3, seq);
        st = gc_store_step_done(s, q, "cannot update a core's state", reterr_diag);
    }
    int changed = st == GPUCORE_OK ? sqlite3_changes(s->db) : 0;
    st = change_end(s, st, reterr_diag);
    if (st == GPUCORE_OK && changed == 0)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, 0, "no core %" PRId64 " in the index",
                           id);
    return st;
}

static char *col_text(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);

    return t ? strdup((const char *)t) : NULL;
}

static int64_t col_i64(sqlite3_stmt *q, int i)
{
    return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, i);
}

/* The columns every query selects, in the order read_row() reads them. */
#define ROW_COLUMNS                                                                             \
    "c.id, c.time_ns, c.host, c.pid, c.uid, c.exe, c.job, c.rank, c.targets, c.trigger, "       \
    "c.sig_text, c.sig_hash, c.waves, c.faulting_waves, c.size, c.truncated, c.file, c.state, " \
    "c.indexed_at, c.error, c.file_mtime_ns, c.file_bytes, "                                    \
    "g.seen, g.first_seen"

/*
 * The rows with their signature's count and first time: one pass over the signatures, joined
 * (a correlated subquery per row cost rows x rows-per-signature: 20 s for 50,000 rows).
 */
#define ROW_SOURCE                                                                  \
    "cores c LEFT JOIN (SELECT sig_hash, count(*) AS seen, min(time_ns) AS first_seen " \
    "FROM cores WHERE sig_hash IS NOT NULL GROUP BY sig_hash) g ON g.sig_hash = c.sig_hash"

static int read_row(sqlite3_stmt *q, struct gc_store_row *r)
{
    memset(r, 0, sizeof(*r));
    r->id = sqlite3_column_int64(q, 0);
    r->time_ns = col_i64(q, 1);
    r->host = col_text(q, 2);
    r->pid = col_i64(q, 3);
    r->uid = col_i64(q, 4);
    r->exe = col_text(q, 5);
    r->job = col_text(q, 6);
    r->rank = col_i64(q, 7);
    r->targets = col_text(q, 8);
    r->trigger = col_text(q, 9);
    r->sig_text = col_text(q, 10);
    r->sig_hash = col_text(q, 11);
    r->waves = col_i64(q, 12);
    r->faulting_waves = col_i64(q, 13);
    r->size = col_i64(q, 14);
    r->truncated = sqlite3_column_int(q, 15) != 0;
    r->file = col_text(q, 16);
    r->state = gc_store_state_parse((const char *)sqlite3_column_text(q, 17));
    r->indexed_at = col_i64(q, 18);
    r->error = col_text(q, 19);
    r->file_mtime_ns = col_i64(q, 20);
    r->file_bytes = col_i64(q, 21);
    if (!gc_store_file_name_ok(r->file) || r->state < 0) {
        gc_store_row_done(r);
        return -1;
    }
    /* A file that is no core is no crash seen; a core without a signature is a crash of its
       own (triage_signature.c: an unknown part joins no other), seen once. */
    r->seen = r->sig_hash ? col_i64(q, 22) : r->state == GC_STORE_UNREADABLE ? 0 : 1;
    r->first_seen_ns = r->sig_hash ? col_i64(q, 23) : r->seen ? r->time_ns : -1;
    return 0;
}

size_t gc_store_rows_ignored(const struct gc_store *s)
{
    return s->rows_ignored;
}

gpucore_status_t gc_store_query(struct gc_store *s, const struct gc_store_filter *f,
                                struct gc_store_row **ret_rows, size_t *ret_n,
                                gpucore_diag_t *reterr_diag)
{
    static const struct gc_store_filter none = { 0 };
    sqlite3_stmt *q;
    struct gc_store_row *rows = NULL, *grown;
    size_t n = 0, cap = 0;
    gpucore_status_t st;
    int rc;

    if (!f)
        f = &none;
    /* One statement for every filter: an unset filter's parameter is NULL and passes. */
    st = gc_store_prepare(
            s,
            "SELECT " ROW_COLUMNS " FROM " ROW_SOURCE " WHERE "
            "(?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR c.file = ?2) AND "
            "(?3 IS NULL OR c.time_ns IS NULL OR c.time_ns >= ?3) AND "
            "(?4 IS NULL OR c.sig_hash = ?4 OR c.sig_text = ?4 OR "
            "  (length(?4) >= 4 AND substr(c.sig_hash, 1, length(?4)) = ?4)) AND "
            "(?5 IS NULL OR c.exe = ?5 OR c.exe LIKE '%/' || replace(replace(replace(?5, "
            "  '\\', '\\\\'), '%', '\\%'), '_', '\\_') ESCAPE '\\') AND "
            "(?6 IS NULL OR c.job = ?6) AND "
            "(?7 IS NULL OR c.uid IS NULL OR c.uid = ?7) "
            /* unknown times (NULL) first: SQLite sorts NULL before any number; time then id
               is the order of the index cores_by_time, read in order instead of sorted */
            "ORDER BY c.time_ns, c.id",
            &q, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    if (f->id > 0)
        sqlite3_bind_int64(q, 1, f->id);
    bind_text(q, 2, f->file);
    if (f->since_ns > 0)
        sqlite3_bind_int64(q, 3, f->since_ns);
    bind_text(q, 4, f->signature);
    bind_text(q, 5, f->exe);
    bind_text(q, 6, f->job);
    if (f->own_uid_only)
        sqlite3_bind_int64(q, 7, f->uid);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            grown = realloc(rows, cap * sizeof(*rows));
            if (!grown) {
                sqlite3_finalize(q);
                gc_store_rows_free(rows, n);
                return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, 0, "out of memory");
            }
            rows = grown;
        }
        if (read_row(q, &rows[n]) == 0)
            n++;
        else
            s->rows_ignored++;
    }
    if (rc != SQLITE_DONE) {
        st = gc_store_fail(s, reterr_diag, "cannot read the index");
        sqlite3_finalize(q);
        gc_store_rows_free(rows, n);
        return st;
    }
    sqlite3_finalize(q);
    *ret_rows = rows;
    *ret_n = n;
    return GPUCORE_OK;
}

/* A row's signature and place, sorted to find the groups. */
struct sig_place {
    const char *sig;
    size_t i;
};

static int cmp_sig_place(const void *a, const void *b)
{
    const struct sig_place *x = a, *y = b;
    int c = strcmp(x->sig, y->sig);

    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_group_first(const void *a, const void *b)
{
    const struct gc_store_sig_group *x = a, *y = b;

    return (x->first > y->first) - (x->first < y->first);
}

gpucore_status_t gc_store_group_by_signature(const struct gc_store_row *rows, size_t n,
                                             struct gc_store_sig_group **ret, size_t *ret_n)
{
    struct sig_place *places = gc_calloc_array(n ? n : 1, sizeof(*places));
    struct gc_store_sig_group *groups = gc_calloc_array(n ? n : 1, sizeof(*groups));
    size_t m = 0, ng = 0;

    if (!places || !groups) {
        free(places);
        free(groups);
        return GPUCORE_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (rows[i].sig_hash)
            places[m++] = (struct sig_place){ rows[i].sig_hash, i };
    qsort(places, m, sizeof(*places), cmp_sig_place);
    for (size_t k = 0; k < m; k++) {
        if (k == 0 || strcmp(places[k].sig, places[k - 1].sig) != 0)
            groups[ng++] = (struct gc_store_sig_group){ places[k].i, places[k].i, 0 };
        groups[ng - 1].last = places[k].i;
        groups[ng - 1].count++;
    }
    free(places);
    qsort(groups, ng, sizeof(*groups), cmp_group_first);
    if (!ng) {
        free(groups);
        groups = NULL;
    }
    *ret = groups;
    *ret_n = ng;
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* What a reader may see, and what it is                                                       */
/* ---------------------------------------------------------------------------------------- */

gpucore_status_t gc_store_query_visible(struct gc_store *s, const struct gc_store_filter *f,
                                        struct gc_store_row **ret_rows, size_t *ret_n,
                                        gpucore_diag_t *reterr_diag)
{
    struct gc_store_filter mine = { 0 };
    gpucore_status_t st;

    if (f)
        mine = *f;
    if (geteuid() != 0) {
        mine.own_uid_only = 1;
        mine.uid = (int64_t)geteuid();
    }
    st = gc_store_query(s, &mine, ret_rows, ret_n, reterr_diag);
    if (st == GPUCORE_OK)
        st = gc_store_refresh(s, *ret_rows, *ret_n, reterr_diag);
    return st;
}

int gc_store_root_has_own_view(const struct gc_store *s)
{
    char name[64], path[PATH_MAX];

    return geteuid() != 0 && strcmp(gc_store_path(s), GC_STORE_ROOT_DIR) != 0 &&
           gc_store_view_name((uint32_t)geteuid(), name, sizeof(name)) == 0 &&
           snprintf(path, sizeof(path), "%s/%s", GC_STORE_ROOT_DIR, name) < (int)sizeof(path) &&
           access(path, R_OK) == 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

gpucore_status_t gc_store_summarize(const struct gc_store_row *rows, size_t n,
                                    struct gc_store_summary *ret)
{
    const char **sigs = n ? malloc(n * sizeof(*sigs)) : NULL;
    size_t nsig = 0;

    memset(ret, 0, sizeof(*ret));
    if (n && !sigs)
        return GPUCORE_E_NOMEM;
    ret->oldest_ns = ret->newest_ns = -1;
    for (size_t i = 0; i < n; i++) {
        const struct gc_store_row *r = &rows[i];

        if (r->state < 0 || r->state >= _GC_STORE_STATE_MAX)
            continue;
        ret->count[r->state]++;
        if (r->state != GC_STORE_PRESENT)
            continue;
        ret->present_bytes += (uint64_t)(r->size > 0 ? r->size : 0);
        if (r->sig_hash)
            sigs[nsig++] = r->sig_hash;
        if (r->time_ns >= 0 && (ret->oldest_ns < 0 || r->time_ns < ret->oldest_ns))
            ret->oldest_ns = r->time_ns;
        if (r->time_ns > ret->newest_ns)
            ret->newest_ns = r->time_ns;
    }
    /* one sort counts them: comparing each with those before it would be quadratic */
    if (nsig)
        qsort(sigs, nsig, sizeof(*sigs), cmp_str_ptr);
    for (size_t i = 0; i < nsig; i++)
        if (i == 0 || strcmp(sigs[i], sigs[i - 1]) != 0)
            ret->signatures++;
    free(sigs);
    return GPUCORE_OK;
}
