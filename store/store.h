/* SPDX-License-Identifier: MIT */
/*
 * The core store: a private directory of cores and an SQLite index of them (docs/store.md).
 *
 * A store is a directory created 0700 holding cores (0600) and "index.sqlite", one row per
 * core. Everything in it is opened relative to a descriptor of the directory (openat, with
 * O_NOFOLLOW), and a directory owned by another user (unless the caller is root) or writable
 * by group or others is refused. The index is a cache of what the cores say: every value of a
 * row is read from the core itself (its CAPTURE_META note, the triage report's signature), and
 * gc_store_rescan() rebuilds it from the files.
 *
 * The index: PRAGMA user_version is the schema version, the migrations (store_index.c) are
 * applied in order in one transaction each; an index whose version is newer than this program
 * knows is refused (GPUCORE_E_VERSION). A busy timeout, so two processes may write at once, and
 * the journal the store's filesystem allows: WAL on a local one, a rollback journal on a network
 * one (gc_store_journal_for()). Every statement is prepared with bound parameters.
 *
 * Internal to the `gpucore` program; not installed. Nothing here prints or exits (G-ERR-6).
 * A struct gc_store is not for concurrent use by threads. Strings are UTF-8 or bytes as the
 * core gave them (the program escapes them when printing).
 */
#ifndef GC_STORE_H
#define GC_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

/* The index's schema version this program writes (PRAGMA user_version). */
#define GC_STORE_SCHEMA_VERSION 2
#define GC_STORE_INDEX_NAME     "index.sqlite"
/* Name pattern of a core put in the store (capture's pattern tokens, capture.h). */
#define GC_STORE_CORE_PATTERN "core.%t.%h.%p.%e"
/* Where the store is without --store and GPUCORE_STORE. */
#define GC_STORE_ROOT_DIR "/var/lib/gpucore/cores"
/* How long a writer waits for another one's lock, milliseconds. */
#define GC_STORE_BUSY_TIMEOUT_MS 10000
/*
 * The most one statement on the index may take, milliseconds; then it is interrupted and the
 * command fails (GPUCORE_E_CORRUPT). `list` of 50,000 cores takes 0.4 s, so only an index made
 * to be slow comes near it; it is six busy timeouts, so a wait for a writer's lock ends first.
 */
#define GC_STORE_STATEMENT_TIME_MAX_MS 60000
/* The longest name of a file in the store (NAME_MAX). */
#define GC_STORE_FILE_NAME_MAX 255

/*
 * The index's journal. WAL needs memory shared by every process that opens the index (the
 * "-shm" file, mapped), which processes on different hosts of a network filesystem do not
 * share: SQLite's documentation says WAL does not work over a network filesystem. There the
 * index uses a rollback journal and POSIX locks (docs/store.md, "On a network filesystem").
 */
enum gc_store_journal {
    GC_STORE_JOURNAL_WAL = 0,    /* "wal": readers never wait for a writer; local filesystems */
    GC_STORE_JOURNAL_DELETE = 1, /* "delete": rollback journal; network filesystems */
    _GC_STORE_JOURNAL_MAX,
};

/* "wal", "delete" (SQLite's names of the modes); NULL for anything else. */
const char *gc_store_journal_name(int journal);

/* A filesystem the store knows by its statfs() f_type. */
struct gc_store_fs {
    uint32_t magic;   /* f_type (linux/magic.h's *_SUPER_MAGIC) */
    const char *name; /* "nfs", "cifs", "ext4", "tmpfs", ... */
    int network;      /* 1: its files may be shared with other hosts (or a FUSE server) */
};

/*
 * The table's entry for @p f_type (its low 32 bits: f_type is a signed long, and 32-bit
 * systems sign-extend the magics above 0x7fffffff), or NULL for a filesystem it does not
 * list, which is taken to be local. Network: NFS, SMB, SMB2, CIFS, Ceph, 9P, FUSE (sshfs and
 * others whose server may be shared), AFS (OpenAFS and the kernel's), Coda, OCFS2, GFS2,
 * Lustre, GPFS, BeeGFS.
 */
const struct gc_store_fs *gc_store_fs_lookup(uint64_t f_type);

/* The journal of a store on a filesystem of @p f_type: GC_STORE_JOURNAL_DELETE on a network
   filesystem, else GC_STORE_JOURNAL_WAL. */
int gc_store_journal_for(uint64_t f_type);

/* The file state of a row: values stored in the index as these words. */
enum gc_store_state {
    GC_STORE_PRESENT = 0,    /* "present": the file is in the store */
    GC_STORE_MISSING = 1,    /* "missing": gone, not by gc (deleted or moved by hand) */
    GC_STORE_DELETED = 2,    /* "deleted": removed by `gpucore gc` */
    GC_STORE_UNREADABLE = 3, /* "unreadable": a file that is not a core gpucore can read */
    _GC_STORE_STATE_MAX,
};

/* "present", "missing", "deleted", "unreadable"; NULL for anything else. */
const char *gc_store_state_name(int state);
/* The state named @p name, or -1. */
int gc_store_state_parse(const char *name);

/*
 * One row. Strings are owned by the row (gc_store_row_done() frees them); NULL means unknown.
 * Numbers that may be unknown use -1.
 */
struct gc_store_row {
    int64_t id;      /* the index's id; 0 before the row is stored */
    int64_t time_ns; /* capture time (CAPTURE_META), ns since the epoch; -1 unknown */
    char *host;
    int64_t pid; /* -1 unknown */
    int64_t uid; /* the target's real uid (CAPTURE_META 1.4); -1 unknown */
    char *exe;
    char *job;     /* the job id the target's environment named; NULL unknown */
    int64_t rank;  /* its rank when a decimal number, else -1 */
    char *targets; /* the agents' GPU targets, comma-separated, in agent order */
    char *trigger;
    char *sig_text; /* the triage signature (triage.h), NULL without one */
    char *sig_hash;
    int64_t waves, faulting_waves; /* -1 unknown */
    int64_t size;                  /* bytes on disk (st_blocks * 512) */
    int truncated;                 /* the core says it was cut short */
    char *file;                    /* the file's name in the store (no '/') */
    int state;                     /* enum gc_store_state */
    int64_t indexed_at;            /* ns since the epoch */
    char *error;                   /* GC_STORE_UNREADABLE: why; else NULL */
    int64_t file_mtime_ns;         /* the file's modification time when indexed (rescan compares) */
    int64_t file_bytes;            /* the file's st_size when indexed (rescan compares) */
    /* Filled by gc_store_query(): rows of the same signature in the whole index, and the
       earliest capture time among them (-1 unknown). A core without a signature is a crash
       of its own: seen 1; an unreadable file is no crash: seen 0, first_seen_ns -1. */
    int64_t seen;
    int64_t first_seen_ns;
};

/* Free what a row holds and zero it; accepts NULL. */
void gc_store_row_done(struct gc_store_row *row);
/* Free an array from gc_store_query(); accepts NULL. */
void gc_store_rows_free(struct gc_store_row *rows, size_t n);

/*
 * The values of a row from the CAPTURE_META fields (uid, job and rank from format 1.4; an older
 * note leaves them unknown).
 */
struct gpucore_capture_meta;
void gc_store_row_from_meta(struct gc_store_row *row, const struct gpucore_capture_meta *m);

/*
 * Which directory is the store: @p option (--store DIR) if not NULL, else $GPUCORE_STORE if set
 * and not empty, else GC_STORE_ROOT_DIR for root, else $XDG_STATE_HOME/gpucore/cores, else
 * $HOME/.local/state/gpucore/cores. Writes the path to @p buf.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTFOUND  not root, and neither XDG_STATE_HOME nor HOME is set (absolute)
 * @retval GPUCORE_E_LIMIT     the path does not fit @p size
 */
gpucore_status_t gc_store_locate(const char *option, char *buf, size_t size,
                                 gpucore_diag_t *reterr_diag);

/*
 * Create the store directory @p dir if needed (0700, parents too) and check it as
 * gc_store_open() does, without opening the index: for a capture, which must know before it
 * starts that its core has a place, and then writes it even when the index cannot be used.
 * Statuses as gc_store_open()'s for the directory.
 */
gpucore_status_t gc_store_prepare_dir(const char *dir, gpucore_diag_t *reterr_diag);

/*
 * A name the store may open, stat or remove: one plain name of a file in its directory, 1 to
 * GC_STORE_FILE_NAME_MAX bytes, no '/', not starting with '.' (so neither "." nor ".." nor a
 * writer's hidden temporary file), and none of the index's own files. 1 if so, else 0. Every
 * file name read from the index passes it before use: the index is a file, and what it says
 * is only as good as whoever wrote it.
 */
int gc_store_file_name_ok(const char *name);
/* @p name is the index or one of SQLite's journals beside it ("index.sqlite-wal", ...). */
int gc_store_is_index_file(const char *name);

struct gc_store;

/* gc_store_open()'s flags. */
#define GC_STORE_CREATE 0x1u /* create the directory (0700, parents too) and the index */
/* gc_store_open_private_dir(): root may use a directory of any owner (one without an index,
   whose entries the caller trusts none of: ingest --dir) */
#define GC_STORE_ROOT_ANY_OWNER 0x2u

/*
 * Open @p dir by the store's rules for its directory, for others that keep cores in a
 * directory of their own (`gpucore ingest --dir`): not a symlink (O_NOFOLLOW on its last
 * component), a directory, owned by the caller (root too, unless @p flags has
 * GC_STORE_ROOT_ANY_OWNER), not writable by its group or others. With GC_STORE_CREATE it is
 * created first (0700, parents too). @p what names it
 * in messages ("DIR: the WHAT is writable by others (mode 0777): refused (chmod 700)"); NULL
 * is "store". Returns its descriptor (O_RDONLY | O_DIRECTORY | O_CLOEXEC, the caller's to
 * close), or -1 with *reterr_diag filled: GPUCORE_E_PERM (a rule above, or EACCES),
 * GPUCORE_E_NOTFOUND (no such directory), GPUCORE_E_IO, GPUCORE_E_INVAL (no @p dir).
 */
int gc_store_open_private_dir(const char *dir, const char *what, uint32_t flags,
                              gpucore_diag_t *reterr_diag);

/*
 * Open the store at @p dir and its index (created, or migrated to GC_STORE_SCHEMA_VERSION).
 * The directory and the index must belong to the caller, root included (a store another user
 * can write chooses what root would read and remove), the index be a regular file of one name,
 * and its schema exactly the one the migrations create: no view or trigger, which SQLite is
 * also told never to run (store_guard.c). Every statement then has a time bound
 * (GC_STORE_STATEMENT_TIME_MAX_MS).
 * The directory's filesystem (fstatfs() on its descriptor) decides the index's journal
 * (gc_store_journal_for()); an index in another mode is switched, which SQLite can do only
 * while no other connection has the index open: else the open fails (GPUCORE_E_IO), and the
 * index is left as it was.
 * @retval GPUCORE_OK        *ret is a new store; gc_store_close() it
 * @retval GPUCORE_E_IO      the directory or index cannot be opened or created (errno said);
 *                           or the index's journal cannot be switched (another process has
 *                           it open)
 * @retval GPUCORE_E_PERM    the directory is a symlink, owned by another user (root
 *                           included), or writable by group or others; or the index is a
 *                           symlink, not a regular file, another user's or has hard links
 * @retval GPUCORE_E_VERSION the index's schema is newer than this program's
 * @retval GPUCORE_E_CORRUPT the index is not an SQLite database, its schema is not the one
 *                           of its version, a statement passed its time bound, or a
 *                           migration failed
 * @retval GPUCORE_E_NOTSUP  this SQLite cannot be told to run no view or trigger
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_store_open(const char *dir, uint32_t flags, struct gc_store **ret,
                               gpucore_diag_t *reterr_diag);
void gc_store_close(struct gc_store *s); /* accepts NULL */
/* The store's directory descriptor (borrowed) and path. */
int gc_store_dirfd(const struct gc_store *s);
const char *gc_store_path(const struct gc_store *s);
/* The f_type of the store's filesystem (0 when fstatfs() failed), and the journal its index
   uses (enum gc_store_journal). */
uint64_t gc_store_fs_type(const struct gc_store *s);
int gc_store_journal(const struct gc_store *s);
/* The name of the store's filesystem: the table's ("nfs"), else its f_type as "0x%x" in
   @p buf. Returns @p buf or a static string. */
const char *gc_store_fs_name(const struct gc_store *s, char *buf, size_t size);

/*
 * Read the core @p name (a file directly in the store) into @p ret: its metadata and the
 * triage signature. The core is opened with O_NOFOLLOW, read with the library's default memory
 * budget (so work per file is bounded), and a file that is not a readable core gives a row with
 * state GC_STORE_UNREADABLE and error set, not a failure.
 * @retval GPUCORE_OK         *ret filled (owned by the caller)
 * @retval GPUCORE_E_NOTFOUND no such file
 * @retval GPUCORE_E_PERM     a symlink or not a regular file
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_store_row_from_file(const struct gc_store *s, const char *name,
                                        struct gc_store_row *ret, gpucore_diag_t *reterr_diag);

/*
 * gc_store_row_from_file() for a core outside a store (a capture's -o FILE, an ingest's
 * directory without --store): the file @p name relative to @p dirfd (AT_FDCWD: a path),
 * opened with O_NOFOLLOW and read with the library's default memory budget, the same code as
 * a store's row. @p dir names the directory in messages (NULL: @p name alone). The row's file
 * is @p name's last component; its id 0. With GC_STORE_ROW_NO_TRIAGE in @p flags the triage
 * report is not made (signature, waves and targets stay unknown): the caller has one already
 * and gives it with gc_store_row_from_report(), so a core is never triaged twice. Statuses
 * of gc_store_row_from_file(), and GPUCORE_E_INVAL for an empty @p name.
 */
#define GC_STORE_ROW_NO_TRIAGE 0x1u
gpucore_status_t gc_store_row_from_path(int dirfd, const char *dir, const char *name,
                                        uint32_t flags, struct gc_store_row *ret,
                                        gpucore_diag_t *reterr_diag);
/*
 * The values of a row a triage report gives (`gpucore analyze --json`'s document, as
 * gc_triage_report() makes it): the signature's text and hash, waves, faulting waves and the
 * agents' GPU targets; what the row held of them is replaced. NULL or not an object: nothing.
 */
struct json_t;
void gc_store_row_from_report(struct gc_store_row *row, const struct json_t *report);
/*
 * gc_store_row_from_file() of a core whose triage report @p report the caller made already of
 * the same file (a capture's report child, for the signature): the row takes the signature,
 * waves and targets from it instead of triaging the core again. NULL @p report: as
 * gc_store_row_from_file(). Its statuses.
 */
gpucore_status_t gc_store_row_from_file_report(const struct gc_store *s, const char *name,
                                               const struct json_t *report,
                                               struct gc_store_row *ret,
                                               gpucore_diag_t *reterr_diag);

/*
 * Add @p row to the index, or replace the row of the same file name (a re-index). On success
 * row->id is the row's id.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_IO  the database refused (busy past the timeout, disk full): the message
 */
gpucore_status_t gc_store_put(struct gc_store *s, struct gc_store_row *row,
                              gpucore_diag_t *reterr_diag);

/* gc_store_row_from_file() then gc_store_put(); *ret_id may be NULL. Statuses of both. */
gpucore_status_t gc_store_index_file(struct gc_store *s, const char *name, int64_t *ret_id,
                                     gpucore_diag_t *reterr_diag);

/*
 * Remove the row of the file @p name, if there is one: for a file that is no core of its own
 * any more (an ingested half, merged into a unified core and removed: the merged core's row is
 * the crash's; the half's would list it twice and count it seen twice).
 * @retval GPUCORE_OK        removed, or there was no such row
 * @retval GPUCORE_E_INVAL   @p name is not a file name of the store (gc_store_file_name_ok())
 * @retval GPUCORE_E_IO      the database refused
 */
gpucore_status_t gc_store_forget(struct gc_store *s, const char *name,
                                 gpucore_diag_t *reterr_diag);

/*
 * Root's store: give the user whose process crashed (the row's uid) read access to the core
 * @p name, and search access to the store's directory, as systemd-coredump does: POSIX ACL
 * entries user:UID:r-- on the core and user:UID:--x on the directory (store_share.c). The files
 * stay root's and 0600/0700 to everyone else; the user opens the core by its path (`gpucore
 * analyze DIR/NAME`), cannot list the directory, read the index or another user's core. Done
 * only when the caller is root and the row's uid is known and not root's; else nothing.
 * *ret_uid (may be NULL): the uid shared with, or -1.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTSUP  the filesystem has no POSIX ACLs: the core stays root's only
 * @retval GPUCORE_E_LIMIT   the directory's ACL has ACL_ENTRIES_MAX entries already
 * @retval GPUCORE_E_IO      the core cannot be opened, or the ACL not set
 */
gpucore_status_t gc_store_share_with_owner(struct gc_store *s, const char *name,
                                           int64_t *ret_uid, gpucore_diag_t *reterr_diag);

/*
 * Users' views of root's store (store_view.c, docs/store.md "Users and root's store"): root's
 * store keeps, for each user with a row in it, GC_STORE_VIEW_PREFIX UID GC_STORE_VIEW_SUFFIX,
 * an index of the same schema with that user's rows only, root's file readable by that user
 * alone (POSIX ACL). gc_store_open() by a user who is not root, of a directory of root's, opens
 * the user's view, read-only: queries answer their own rows; changes are refused
 * (GPUCORE_E_PERM). The names start with '.', so they are never a core's name.
 */
#define GC_STORE_VIEW_PREFIX ".user-"
#define GC_STORE_VIEW_SUFFIX ".sqlite"
/* The view's file name of @p uid into @p buf: 0, or -1 when it does not fit. */
int gc_store_view_name(uint32_t uid, char *buf, size_t size);
/* @p s is a user's read-only view of root's store. */
int gc_store_is_view(const struct gc_store *s);
/*
 * Root's store: write again the views of the users whose rows changed through @p s (put,
 * forget, state changes, gc, rescan), or remove a view left without rows. Each view is a new
 * file renamed over the old; writers of one store take turns (flock() on its directory, waited
 * for at most 5 s). Nothing to do for a store of another user, or a view. The index and the
 * cores are never changed here: a failure is a warning for the caller (the user's `list` of
 * root's store lags until the next change).
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTSUP  the filesystem has no POSIX ACLs (no view can be shared)
 * @retval GPUCORE_E_IO      the lock was not had in time, or a file not written (the message)
 * @retval GPUCORE_E_NOMEM, GPUCORE_E_CORRUPT (the index's time bound)
 */
gpucore_status_t gc_store_sync_views(struct gc_store *s, gpucore_diag_t *reterr_diag);

/* Set the state of row @p id. GPUCORE_OK, GPUCORE_E_NOTFOUND or GPUCORE_E_IO. */
gpucore_status_t gc_store_set_state(struct gc_store *s, int64_t id, int state,
                                    gpucore_diag_t *reterr_diag);

/* What gc_store_query() selects; zero/NULL members do not filter. Strings are borrowed. */
struct gc_store_filter {
    int64_t id;            /* > 0: that row only */
    const char *file;      /* that file name only */
    int64_t since_ns;      /* capture time >= this (rows of unknown time are kept) */
    const char *signature; /* the signature's hash, or a prefix of it, or its text */
    const char *exe;       /* executable (exact, or its base name) */
    const char *job;
    int own_uid_only; /* only rows of uid @p uid or of unknown uid */
    int64_t uid;
};

/*
 * The rows that pass @p f, oldest capture first (unknown times first, then by id), with
 * seen/first_seen_ns filled. *ret_rows is a new array (gc_store_rows_free()), possibly NULL when
 * *ret_n is 0. A row whose file name fails gc_store_file_name_ok() or whose state is no state
 * is left out and counted (gc_store_rows_ignored()). GPUCORE_OK, GPUCORE_E_IO,
 * GPUCORE_E_CORRUPT (the time bound) or GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_store_query(struct gc_store *s, const struct gc_store_filter *f,
                                struct gc_store_row **ret_rows, size_t *ret_n,
                                gpucore_diag_t *reterr_diag);

/*
 * The rows of @p f the caller may see, by the store's privacy rule (docs/store.md "Rules
 * (privacy)"): root sees every row; anyone else the rows of their own uid and those of unknown
 * uid (own_uid_only and uid of @p f are set for them, on a copy: @p f is only read). Oldest
 * first, each present or missing file's state checked against the directory
 * (gc_store_refresh()). Every reader that shows rows to a user calls this, never
 * gc_store_query() alone. *ret_rows as gc_store_query()'s (the caller frees it with
 * gc_store_rows_free(), also on a failure of the refresh).
 * @retval GPUCORE_OK
 * @retval the statuses of gc_store_query() and of gc_store_refresh()
 */
gpucore_status_t gc_store_query_visible(struct gc_store *s, const struct gc_store_filter *f,
                                        struct gc_store_row **ret_rows, size_t *ret_n,
                                        gpucore_diag_t *reterr_diag);

/*
 * A user's own store and root's: 1 when the caller is not root, @p s is not root's store
 * (GC_STORE_ROOT_DIR), and root's store holds a view for the caller that they may read (the
 * cores of their processes a system-wide capture wrote there), else 0.
 */
int gc_store_root_has_own_view(const struct gc_store *s);

/* What `gpucore store` says of a store's rows (gc_store_summarize()). */
struct gc_store_summary {
    size_t count[_GC_STORE_STATE_MAX]; /* rows by state (rows of no state are not counted) */
    uint64_t present_bytes;            /* bytes on disk of the present cores */
    size_t signatures;                 /* distinct signatures among the present cores */
    int64_t oldest_ns, newest_ns;      /* capture times of the present cores; -1 none known */
};

/* Count @p rows into @p ret (zeroed first). GPUCORE_OK or GPUCORE_E_NOMEM. */
gpucore_status_t gc_store_summarize(const struct gc_store_row *rows, size_t n,
                                    struct gc_store_summary *ret);

/* The cores of one signature among an array of rows (indexes into it). */
struct gc_store_sig_group {
    size_t first; /* the first row of the signature */
    size_t last;  /* the last one */
    size_t count; /* how many rows of the array have it */
};

/*
 * The signatures of @p rows, one group per distinct sig_hash (rows without one are in none),
 * in the order their first rows come. O(n log n). *ret is a new array (free()), NULL when
 * *ret_n is 0. GPUCORE_OK or GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_store_group_by_signature(const struct gc_store_row *rows, size_t n,
                                             struct gc_store_sig_group **ret, size_t *ret_n);

/* How many rows the queries on @p s left out so far as not rows of a store's file (a
   damaged or hand-edited index; `gpucore store --rescan` removes them). */
size_t gc_store_rows_ignored(const struct gc_store *s);

/*
 * Compare the file of each row that is present with the directory: a file that is gone is
 * marked missing; a missing one that is back is present again. Rows of @p rows are updated in
 * place too (NULL, 0: all rows of the index). GPUCORE_OK or GPUCORE_E_IO.
 */
gpucore_status_t gc_store_refresh(struct gc_store *s, struct gc_store_row *rows, size_t n,
                                  gpucore_diag_t *reterr_diag);

/* What gc_store_rescan() did. */
struct gc_store_rescan_stats {
    size_t files;      /* regular files looked at (the index and its journals excepted) */
    size_t added;      /* new rows */
    size_t updated;    /* rows read again (their file changed) */
    size_t unreadable; /* files that are not readable cores */
    size_t missing;    /* rows whose file is gone */
    size_t skipped;    /* entries not regular files (symlinks, directories, FIFOs): ignored */
    size_t dropped;    /* rows removed: not of a store's file (gc_store_rows_ignored()) */
};

/*
 * Rebuild the index from the files: each regular file of the store (not the index) whose size
 * or modification time differs from its row, or has none, is read (gc_store_row_from_file())
 * and put; rows whose file is gone become missing, rows gc_store_query() ignores are removed.
 * Symlinks and other non-regular entries are
 * skipped, never followed. GPUCORE_OK, GPUCORE_E_IO or GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_store_rescan(struct gc_store *s, struct gc_store_rescan_stats *ret,
                                 gpucore_diag_t *reterr_diag);

/* The most files a policy protects: the core just added and the other half it pairs with. */
#define GC_STORE_KEEP_MAX 2

/* gc policy: 0 / -1 members are "no limit". */
struct gc_store_policy {
    uint64_t max_use;           /* the present cores together at most this many bytes; 0 none */
    uint64_t keep_free;         /* keep this many bytes free on the file system; 0 none */
    int64_t max_age_ns;         /* cores captured longer ago than this go; 0 none */
    int64_t keep_per_signature; /* -1 none: keep the newest N of each signature */
    /* Files never removed whatever the limits (their sizes still count): retention after a
       capture or an ingest keeps the core just added and the half it waits to be merged with
       (gc_store_retain()). NULL: none. Borrowed. */
    const char *keep[GC_STORE_KEEP_MAX];
};

/* One core gc removes (or would remove, dry run): reported to the caller. */
typedef void (*gc_store_gc_cb)(void *user, const struct gc_store_row *row, const char *why);

/*
 * Remove cores until @p p holds: first the cores of a signature beyond its newest
 * keep_per_signature, then those older than max_age, then the oldest until max_use and
 * keep_free hold. Each removed file's row is kept with state "deleted". @p dry_run: report,
 * change nothing. @p now_ns is the time ages are measured from. *ret_freed: bytes freed.
 * GPUCORE_OK, GPUCORE_E_IO (unlink or database; the message says which), GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_store_gc(struct gc_store *s, const struct gc_store_policy *p, int dry_run,
                             int64_t now_ns, gc_store_gc_cb cb, void *user, uint64_t *ret_freed,
                             gpucore_diag_t *reterr_diag);

/*
 * Retention after a core was added to the store (as systemd-coredump vacuums after every
 * dump): gc_store_gc() with the limits of the configuration file (gc_store_conf_load() of
 * @p config: NULL is the caller's default file), never removing the files @p keep names (the
 * core just added, the half it waits for; NULL entries are none). No file, or one without
 * gc's keys: nothing is done. The caller is a capture or an ingest, whose core is written
 * already: a failure here is a warning there, never a lost core. *ret_removed and *ret_freed
 * (may be NULL): cores removed and bytes freed.
 * @retval GPUCORE_OK
 * @retval the statuses of gc_store_conf_load() (the file: its message names it) and of
 *         gc_store_gc()
 */
gpucore_status_t gc_store_retain(struct gc_store *s, const char *config,
                                 const char *const keep[GC_STORE_KEEP_MAX], size_t *ret_removed,
                                 uint64_t *ret_freed, gpucore_diag_t *reterr_diag);

/*
 * The store's configuration file, store.conf (store_conf.c; systemd coredump.conf style):
 * "Key=Value" lines, '#' and ';' comments, blank lines, an optional "[Store]" section header.
 * Keys MaxUse=, KeepFree= (sizes, K/M/G/T binary suffixes), MaxAge= (a duration: s, m, h, d, w
 * suffixes; a plain number is seconds), KeepPerSignature= (a count), and `gpucore ingest`'s
 * HostSizeMax=, GpuSizeMax= (limits: a size of at least GPUCORE_WRITER_MIN_BUDGET, or
 * "infinity"). Any other key, a value that does not parse, a line over GC_STORE_CONF_LINE_MAX
 * bytes or a file over GC_STORE_CONF_MAX_SIZE is an error naming the line, and nothing of the
 * file is used.
 */
/* root's file; other users' is $XDG_CONFIG_HOME/gpucore/store.conf (an absolute
   XDG_CONFIG_HOME), else $HOME/.config/gpucore/store.conf */
#define GC_STORE_CONF_SYSTEM "/etc/gpucore/store.conf"
/* The largest file read: a few keys need a few hundred bytes; the bound keeps a hostile or
   mistaken file (a log named by --config) from costing more than this much memory. */
#define GC_STORE_CONF_MAX_SIZE (64u * 1024u)
/* The longest line: a key and its value take a few dozen bytes; one line is copied to the
   stack to be parsed. */
#define GC_STORE_CONF_LINE_MAX 1023u
/* FleetIndex='s longest value: fleet.h's GC_FLEET_URI_MAX (store_fleet.c checks they agree). */
#define GC_STORE_FLEET_URI_MAX 1024

/* What store.conf sets. */
struct gc_store_conf {
    struct gc_store_policy gc; /* gc's defaults (MaxUse=, KeepFree=, MaxAge=,
                                  KeepPerSignature=) */
    /* `gpucore ingest`'s size limits (systemd-coredump's ExternalSizeMax=, per half): the most
       a core read from a stream may take in the store, the file's size as capture's
       --max-size counts it. 0 = not set (ingest's default), GC_STORE_SIZE_INFINITY = none. */
    uint64_t host_size_max; /* HostSizeMax=: the kernel's host core (ingest --host) */
    uint64_t gpu_size_max;  /* GpuSizeMax=: the ROCm runtime's GPU half */
    /* FleetIndex=: the fleet index's PostgreSQL URI (fleet.h, docs/fleet.md); "" = none.
       1 to GC_STORE_FLEET_URI_MAX bytes of no control character (a line of the file is at
       most GC_STORE_CONF_LINE_MAX, which bounds it further). */
    char fleet_index[GC_STORE_FLEET_URI_MAX + 1];
};
/* A limit of "infinity". */
#define GC_STORE_SIZE_INFINITY UINT64_MAX

/*
 * Parse a configuration file's contents @p text / @p len; @p name names it in messages.
 * Values parsed are set in @p c, others are left as they are; on failure nothing is.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_CORRUPT  "NAME:LINE: what was expected" (or "NAME: N bytes: ..." for a file
 *                            over GC_STORE_CONF_MAX_SIZE)
 */
gpucore_status_t gc_store_conf_parse_all(const char *text, size_t len, const char *name,
                                         struct gc_store_conf *c, gpucore_diag_t *reterr_diag);
/* gc_store_conf_parse_all() for gc's keys alone (the others are checked, not kept). */
gpucore_status_t gc_store_conf_parse(const char *text, size_t len, const char *name,
                                     struct gc_store_policy *p, gpucore_diag_t *reterr_diag);

/*
 * Find and read the configuration file into @p c (gc_store_conf_parse_all()). The file is
 * @p option (a --config FILE) when not NULL, else GC_STORE_CONF_SYSTEM for root, else the
 * user's (above). It is opened O_NOFOLLOW | O_NONBLOCK (a symlink is refused, a FIFO is never
 * waited on) and read up to GC_STORE_CONF_MAX_SIZE + 1 bytes. @p path (@p path_size bytes,
 * PATH_MAX is enough) gets the file's path: on success the file read, or "" when none was (no
 * default for this user, or the default file does not exist: no defaults); on failure the
 * file that failed ("" for GPUCORE_E_LIMIT). Messages name what failed, without the path
 * (the caller prints it), except the parser's, which start with it.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_LIMIT     "the configuration file's path is too long"
 * @retval GPUCORE_E_PERM      it cannot be opened: permission denied, or a symlink (refused)
 * @retval GPUCORE_E_NOTFOUND  it cannot be opened for another reason (@p option names no file,
 *                             ...): "cannot open the configuration file: ..."
 * @retval GPUCORE_E_IO        it cannot be read (a directory, a FIFO): "cannot read: ..."
 * @retval GPUCORE_E_CORRUPT   it does not parse
 * @retval GPUCORE_E_NOMEM, GPUCORE_E_INVAL (no @p path buffer)
 */
gpucore_status_t gc_store_conf_load(const char *option, struct gc_store_conf *c, char *path,
                                    size_t path_size, gpucore_diag_t *reterr_diag);

/*
 * The configuration file gc_store_conf_load() reads for the caller, without opening it:
 * @p option when not NULL, else GC_STORE_CONF_SYSTEM for root, else the user's (above), into
 * @p buf (@p size bytes); "" when this user has none (no absolute XDG_CONFIG_HOME nor HOME).
 * Returns 0, or -1 when the path does not fit @p size.
 */
int gc_store_conf_path(const char *option, char *buf, size_t size);

/* Parse helpers shared with the command line: 0, or -1 when @p text does not parse. */
int gc_store_parse_size(const char *text, uint64_t *ret);       /* 512M, 2G, 100 */
int gc_store_parse_duration(const char *text, int64_t *ret_ns); /* 30s, 2h, 3d, 1w */
/* A size limit: a size of at least GPUCORE_WRITER_MIN_BUDGET (the smallest core), or
   "infinity" (GC_STORE_SIZE_INFINITY). */
int gc_store_parse_limit(const char *text, uint64_t *ret);

#endif /* GC_STORE_H */
