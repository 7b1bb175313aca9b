/* SPDX-License-Identifier: MIT */
/*
 * A row of the index from its core (store.h): the CAPTURE_META note through schema's decoder,
 * the manifest's truncation flag, and the triage report's signature, wave counts and GPU
 * targets, exactly as `gpucore analyze --json` reports them. And the file-side work that
 * follows from it: indexing one file, refreshing file states, rescanning the directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "gc_le.h"
#include "gc_util.h"
#include "store.h"
#include "store_internal.h"
#include "triage.h"

static char *str_dup(const gpucore_str_t *s)
{
    return s->ptr && s->len ? strndup(s->ptr, s->len) : NULL;
}

static int64_t rank_number(const gpucore_str_t *s)
{
    int64_t v = 0;

    if (!s->len || s->len > 15)
        return -1;
    for (uint32_t i = 0; i < s->len; i++) {
        if (s->ptr[i] < '0' || s->ptr[i] > '9')
            return -1;
        v = v * 10 + (s->ptr[i] - '0');
    }
    return v;
}

void gc_store_row_from_meta(struct gc_store_row *row, const struct gpucore_capture_meta *m)
{
    const char *trigger = gpucore_trigger_name(m->trigger);

    row->time_ns = m->time_ns && m->time_ns <= INT64_MAX ? (int64_t)m->time_ns : -1;
    row->host = str_dup(&m->hostname);
    row->pid = m->pid ? (int64_t)m->pid : -1;
    row->exe = str_dup(&m->exe);
    row->trigger = trigger ? strdup(trigger) : NULL;
    /* Format 1.4 (older notes: unknown, -1, NULL, -1). The rank is the environment's text; a
       row keeps it as a number when it is one (0 to 10^15), else unknown. */
    row->uid = m->flags & GPUCORE_META_UID_KNOWN ? (int64_t)m->uid : -1;
    row->job = str_dup(&m->job);
    row->rank = rank_number(&m->rank);
}

/*
 * The kernel's NT_PRPSINFO (x86-64 struct elf_prpsinfo, 136 bytes): a host core of the kernel
 * has no CAPTURE_META (`gpucore ingest --host` stores it as the kernel wrote it), and says
 * there which process and user it is.
 */
#define NT_PRPSINFO_TYPE   3u
#define PRPSINFO_SIZE      136u
#define PRPSINFO_UID_OFF   16u /* pr_uid, u32: the process's real uid */
#define PRPSINFO_PID_OFF   24u /* pr_pid, s32 */
#define PRPSINFO_FNAME_OFF 40u /* pr_fname[16]: the executable's name, NUL-padded */
#define PRPSINFO_FNAME_LEN 16u

/* A row without CAPTURE_META: the pid, uid and executable name of its NT_PRPSINFO, if any. */
static void read_prpsinfo(gpucore_core_t *core, struct gc_store_row *row)
{
    struct gpucore_note note;
    uint32_t idx = 0;
    int32_t pid;

    if (gpucore_core_find_note(core, "CORE", NT_PRPSINFO_TYPE, &idx, &note) != GPUCORE_OK ||
        note.desc_size != PRPSINFO_SIZE)
        return;
    pid = (int32_t)gc_le32_get(note.desc + PRPSINFO_PID_OFF);
    if (row->pid < 0 && pid > 0)
        row->pid = pid;
    if (row->uid < 0)
        row->uid = (int64_t)gc_le32_get(note.desc + PRPSINFO_UID_OFF);
    if (!row->exe && note.desc[PRPSINFO_FNAME_OFF]) {
        row->exe = strndup((const char *)note.desc + PRPSINFO_FNAME_OFF, PRPSINFO_FNAME_LEN);
        if (row->exe)
            gc_utf8_scrub(row->exe, strlen(row->exe));
    }
}

static void read_meta(gpucore_core_t *core, struct gc_store_row *row)
{
    struct gpucore_note note;
    gpucore_capture_meta_t *m;
    gpucore_manifest_t *man;
    gpucore_diag_t d;
    uint32_t idx = 0;

    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &idx, &note) ==
                GPUCORE_OK &&
        gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, &d) == GPUCORE_OK) {
        gc_store_row_from_meta(row, m);
        gpucore_capture_meta_free(m);
    } else {
        read_prpsinfo(core, row);
    }
    idx = 0;
    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, &idx, &note) ==
                GPUCORE_OK &&
        gpucore_manifest_decode(note.desc, (size_t)note.desc_size, &man, &d) == GPUCORE_OK) {
        if (man->flags & GPUCORE_MANIFEST_TRUNCATED)
            row->truncated = 1;
        gpucore_manifest_free(man);
    }
}

/* The agents' targets from the report, comma-separated (at most 255 bytes); NULL when none
   is known. */
static char *targets_text(const json_t *agents)
{
    char buf[256] = "";
    size_t len = 0;
    const json_t *a;
    size_t i;

    json_array_foreach(agents, i, a)
    {
        const char *t = gc_json_get_str(a, GC_TK_TARGET);
        int n;

        if (!t)
            continue;
        n = snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "," : "", t);
        if (n < 0 || (size_t)n >= sizeof(buf) - len) {
            buf[len] = '\0'; /* the targets that fit, whole */
            break;
        }
        len += (size_t)n;
    }
    return len ? strdup(buf) : NULL;
}

void gc_store_row_from_report(struct gc_store_row *row, const struct json_t *report)
{
    const json_t *doc = report, *sig;

    if (!json_is_object(doc))
        return;
    sig = json_object_get(doc, "signature");
    if (json_is_object(sig)) {
        const char *text = gc_json_get_str(sig, GC_TK_TEXT);
        const char *hash = gc_json_get_str(sig, GC_TK_HASH);

        free(row->sig_text);
        free(row->sig_hash);
        row->sig_text = text ? strdup(text) : NULL;
        row->sig_hash = hash ? strdup(hash) : NULL;
    }
    row->waves = (int64_t)gc_json_get_u64(doc, GC_TK_WAVES);
    row->faulting_waves = (int64_t)gc_json_get_u64(doc, GC_TK_FAULTING_WAVES);
    free(row->targets);
    row->targets = targets_text(json_object_get(doc, GC_TK_AGENTS));
}

static void read_triage(gpucore_core_t *core, const char *name, struct gc_store_row *row)
{
    struct gc_triage_signed sig;

    /* Indexing needs no instruction text: never load libLLVM for it. */
    gc_triage_no_disassembly("the store's index does not load the disassembler");
    if (gc_triage_sign(core, name, &sig, NULL) != GPUCORE_OK)
        return;
    gc_store_row_from_report(row, sig.report);
    json_decref(sig.report);
}

/*
 * The row of the file @p name relative to @p dirfd (O_NOFOLLOW), @p dir naming the directory
 * in messages (NULL: @p name is shown alone). The row's file is @p name's last component.
 * GC_STORE_ROW_NO_TRIAGE in @p flags: no triage report (the caller has one).
 * Statuses as gc_store_row_from_file()'s, without its check of the name.
 */
static gpucore_status_t row_from_at(int dirfd, const char *dir, const char *name, uint32_t flags,
                                    struct gc_store_row *ret, gpucore_diag_t *reterr_diag)
{
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    const char *sep = dir ? "/" : "";
    struct gc_store_row r;
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    gpucore_diag_t cd = { 0 };
    struct stat st;
    int fd;

    dir = dir ? dir : "";
    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return gc_diag_set(reterr_diag,
                           errno == ENOENT                     ? GPUCORE_E_NOTFOUND
                           : errno == ELOOP || errno == EACCES ? GPUCORE_E_PERM
                                                               : GPUCORE_E_IO,
                           0, "%s%s%s: %s", dir, sep, name,
                           errno == ELOOP ? "a symlink: refused" : strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;

        close(fd);
        return gc_diag_set(reterr_diag, GPUCORE_E_PERM, 0, "%s%s%s: %s", dir, sep, name,
                           e && !S_ISREG(st.st_mode) ? "not a regular file: refused" : strerror(e));
    }
    memset(&r, 0, sizeof(r));
    r.time_ns = r.pid = r.uid = r.rank = r.waves = r.faulting_waves = -1;
    r.size = (int64_t)st.st_blocks * 512;
    r.file_bytes = (int64_t)st.st_size;
    r.file_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    r.state = GC_STORE_PRESENT;
    r.file = strdup(base);
    if (!r.file) {
        close(fd);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, 0, "out of memory");
    }
    /* The library's default memory budget bounds the work on one file, hostile or not. */
    if (gpucore_core_open_fd(fd,
                             GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                             &core, &cd) != GPUCORE_OK) {
        close(fd);
        r.state = GC_STORE_UNREADABLE;
        r.error = strdup(cd.message[0] ? cd.message : "not a core");
        *ret = r;
        return GPUCORE_OK;
    }
    close(fd);
    if (gpucore_core_get_info(core, &info) == GPUCORE_OK &&
        (info.flags & GPUCORE_INFO_FILE_TRUNCATED))
        r.truncated = 1;
    read_meta(core, &r);
    if (!(flags & GC_STORE_ROW_NO_TRIAGE))
        read_triage(core, name, &r);
    gpucore_core_close(core);
    *ret = r;
    return GPUCORE_OK;
}

gpucore_status_t gc_store_row_from_file(const struct gc_store *s, const char *name,
                                        struct gc_store_row *ret, gpucore_diag_t *reterr_diag)
{
    if (!gc_store_file_name_ok(name))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "'%s' is not a file name of the store",
                           name ? name : "");
    return row_from_at(s->dirfd, s->path, name, 0, ret, reterr_diag);
}

gpucore_status_t gc_store_row_from_file_report(const struct gc_store *s, const char *name,
                                               const struct json_t *report,
                                               struct gc_store_row *ret,
                                               gpucore_diag_t *reterr_diag)
{
    gpucore_status_t st;

    if (!report)
        return gc_store_row_from_file(s, name, ret, reterr_diag);
    if (!gc_store_file_name_ok(name))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "'%s' is not a file name of the store",
                           name ? name : "");
    st = row_from_at(s->dirfd, s->path, name, GC_STORE_ROW_NO_TRIAGE, ret, reterr_diag);
    if (st == GPUCORE_OK && ret->state != GC_STORE_UNREADABLE)
        gc_store_row_from_report(ret, report);
    return st;
}

gpucore_status_t gc_store_row_from_path(int dirfd, const char *dir, const char *name,
                                        uint32_t flags, struct gc_store_row *ret,
                                        gpucore_diag_t *reterr_diag)
{
    if (!name || !name[0])
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "no core named");
    return row_from_at(dirfd, dir, name, flags, ret, reterr_diag);
}

gpucore_status_t gc_store_index_file(struct gc_store *s, const char *name, int64_t *ret_id,
                                     gpucore_diag_t *reterr_diag)
{
    struct gc_store_row r;
    gpucore_status_t st = gc_store_row_from_file(s, name, &r, reterr_diag);

    if (st != GPUCORE_OK)
        return st;
    st = gc_store_put(s, &r, reterr_diag);
    if (st == GPUCORE_OK && ret_id)
        *ret_id = r.id;
    gc_store_row_done(&r);
    return st;
}

/* The state a row's file has now: present (a regular file), or missing. */
static int file_state_now(const struct gc_store *s, const char *name)
{
    struct stat st;

    if (fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
        return GC_STORE_PRESENT;
    return GC_STORE_MISSING;
}

gpucore_status_t gc_store_refresh(struct gc_store *s, struct gc_store_row *rows, size_t n,
                                  gpucore_diag_t *reterr_diag)
{
    struct gc_store_row *all = NULL;
    struct gc_store_batch batch = { .s = s };
    size_t nall = 0;
    gpucore_status_t st = GPUCORE_OK;

    if (!rows) {
        st = gc_store_query(s, NULL, &all, &nall, reterr_diag);
        if (st != GPUCORE_OK)
            return st;
        rows = all;
        n = nall;
    }
    for (size_t i = 0; i < n && st == GPUCORE_OK; i++) {
        struct gc_store_row *r = &rows[i];
        int now;

        /* deleted by gc stays so; an unreadable file stays unreadable while it is there */
        if (r->state == GC_STORE_DELETED)
            continue;
        now = file_state_now(s, r->file);
        if (r->state == GC_STORE_UNREADABLE && now == GC_STORE_PRESENT)
            continue;
        if (now != r->state && gc_store_is_view(s)) {
            r->state = now; /* a user's view is read-only: what they are shown is up to date */
        } else if (now != r->state) {
            st = gc_store_batch_begin(&batch, reterr_diag);
            if (st == GPUCORE_OK)
                st = gc_store_set_state(s, r->id, now, reterr_diag);
            if (st == GPUCORE_OK)
                st = gc_store_batch_count(&batch, reterr_diag);
            r->state = now;
        }
    }
    st = gc_store_batch_end(&batch, st, reterr_diag);
    gc_store_rows_free(all, nall);
    return st;
}

/* A row's file as indexed is the file there now (same size and modification time). */
static int unchanged(const struct gc_store_row *r, const struct stat *st)
{
    return r->file_bytes == (int64_t)st->st_size &&
           r->file_mtime_ns == (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static int cmp_row_file(const void *a, const void *b)
{
    const struct gc_store_row *const *x = a, *const *y = b;

    return strcmp((*x)->file, (*y)->file);
}

/* The row of file @p name among @p by_file (sorted by file name; names are unique), or NULL. */
static struct gc_store_row *row_of_file(struct gc_store_row **by_file, size_t n, const char *name)
{
    struct gc_store_row key = { .file = (char *)name }, *k = &key, **hit;

    hit = bsearch(&k, by_file, n, sizeof(*by_file), cmp_row_file);
    return hit ? *hit : NULL;
}

/*
 * Remove the rows gc_store_query() ignores (a file name that is not one of the store's, a
 * state that is none): a rebuilt index holds only rows of the store's files. *ret_n: how many.
 */
static gpucore_status_t drop_ignored_rows(struct gc_store *s, size_t *ret_n, gpucore_diag_t *d)
{
    struct gc_store_batch batch = { .s = s };
    sqlite3_stmt *q, *del = NULL;
    gpucore_status_t st;
    int rc = SQLITE_DONE;

    *ret_n = 0;
    st = gc_store_prepare(s, "SELECT id, file, state FROM cores", &q, d);
    if (st != GPUCORE_OK)
        return st;
    while (st == GPUCORE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *file = (const char *)sqlite3_column_text(q, 1);
        const char *state = (const char *)sqlite3_column_text(q, 2);

        if (gc_store_file_name_ok(file) && gc_store_state_parse(state) >= 0)
            continue;
        st = gc_store_batch_begin(&batch, d);
        if (st == GPUCORE_OK && !del)
            st = gc_store_prepare(s, "DELETE FROM cores WHERE id = ?1", &del, d);
        if (st != GPUCORE_OK)
            break;
        sqlite3_reset(del);
        sqlite3_bind_int64(del, 1, sqlite3_column_int64(q, 0));
        if (sqlite3_step(del) != SQLITE_DONE)
            st = gc_store_fail(s, d, "cannot remove a row");
        else
            (*ret_n)++;
        if (st == GPUCORE_OK)
            st = gc_store_batch_count(&batch, d);
    }
    if (st == GPUCORE_OK && rc != SQLITE_DONE)
        st = gc_store_fail(s, d, "cannot read the index");
    sqlite3_finalize(del);
    sqlite3_finalize(q);
    return gc_store_batch_end(&batch, st, d);
}

gpucore_status_t gc_store_rescan(struct gc_store *s, struct gc_store_rescan_stats *ret,
                                 gpucore_diag_t *reterr_diag)
{
    struct gc_store_rescan_stats stats = { 0 };
    struct gc_store_row *rows = NULL, **by_file, r;
    struct dirent *e;
    size_t n = 0;
    gpucore_status_t st;
    DIR *dir;
    int fd;

    st = gc_store_refuse_view(s, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    gc_store_view_touch_all(s);

    st = drop_ignored_rows(s, &stats.dropped, reterr_diag);
    if (st == GPUCORE_OK)
        st = gc_store_query(s, NULL, &rows, &n, reterr_diag);
    if (st != GPUCORE_OK)
        return st;
    /* Each directory entry finds its row by binary search: a scan of the rows per entry cost
       5 s for a store of 50,000 unchanged cores. */
    by_file = malloc((n ? n : 1) * sizeof(*by_file));
    if (!by_file) {
        gc_store_rows_free(rows, n);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        by_file[i] = &rows[i];
    qsort(by_file, n, sizeof(*by_file), cmp_row_file);
    fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        free(by_file);
        gc_store_rows_free(rows, n);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, 0, "%s: cannot list the store: %s", s->path,
                           strerror(errno));
    }
    while (st == GPUCORE_OK && (e = readdir(dir)) != NULL) {
        struct gc_store_row *old = NULL;
        struct stat sb;

        if (!gc_store_file_name_ok(e->d_name))
            continue; /* the index, its journals, the writer's hidden temporary files */
        if (fstatat(s->dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode)) {
            stats.skipped++;
            continue;
        }
        stats.files++;
        old = row_of_file(by_file, n, e->d_name);
        if (old && old->state != GC_STORE_DELETED && unchanged(old, &sb)) {
            if (old->state == GC_STORE_MISSING)
                st = gc_store_set_state(s, old->id, GC_STORE_PRESENT, reterr_diag);
            old->state = old->state == GC_STORE_UNREADABLE ? old->state : GC_STORE_PRESENT;
            continue;
        }
        st = gc_store_row_from_file(s, e->d_name, &r, reterr_diag);
        if (st == GPUCORE_E_NOTFOUND || st == GPUCORE_E_PERM) {
            st = GPUCORE_OK; /* gone or replaced since readdir */
            stats.skipped++;
            continue;
        }
        if (st != GPUCORE_OK)
            break;
        if (r.state == GC_STORE_UNREADABLE)
            stats.unreadable++;
        st = gc_store_put(s, &r, reterr_diag);
        gc_store_row_done(&r);
        if (old) {
            stats.updated++;
            old->state = GC_STORE_PRESENT;
        } else {
            stats.added++;
        }
    }
    closedir(dir);
    free(by_file);
    for (size_t i = 0; st == GPUCORE_OK && i < n; i++) {
        if (rows[i].state == GC_STORE_DELETED ||
            file_state_now(s, rows[i].file) == GC_STORE_PRESENT)
            continue;
        stats.missing++;
        if (rows[i].state != GC_STORE_MISSING)
            st = gc_store_set_state(s, rows[i].id, GC_STORE_MISSING, reterr_diag);
    }
    gc_store_rows_free(rows, n);
    if (st == GPUCORE_OK && ret)
        *ret = stats;
    return st;
}
