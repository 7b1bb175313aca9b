/* SPDX-License-Identifier: MIT */
/*
 * A core's journal entry (journal.h): its fields from the store row, escaped and bounded, and
 * the send through libsystemd, never waiting long for journald.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "gc_util.h"
#include "journal.h"

static const char *const writer_names[_GC_JOURNAL_BY_MAX] = {
    [GC_JOURNAL_BY_RUN] = "run",         [GC_JOURNAL_BY_WATCH] = "watch",
    [GC_JOURNAL_BY_CAPTURE] = "capture", [GC_JOURNAL_BY_HOOK] = "hook",
    [GC_JOURNAL_BY_INGEST] = "ingest",   [GC_JOURNAL_BY_MERGE] = "merge",
};

const char *gc_journal_writer_name(int writer)
{
    return writer >= 0 && writer < _GC_JOURNAL_BY_MAX ? writer_names[writer] : NULL;
}

/* The length of the UTF-8 sequence lead byte @p b starts (0: no lead byte). */
static size_t utf8_seq_len(uint8_t b)
{
    return b < 0x80                 ? 1
           : b >= 0xc2 && b <= 0xdf ? 2
           : b >= 0xe0 && b <= 0xef ? 3
           : b >= 0xf0 && b <= 0xf4 ? 4
                                    : 0;
}

size_t gc_journal_escape(const char *in, size_t len, char *out, size_t size)
{
    const uint8_t *s = (const uint8_t *)(in ? in : "");
    size_t used = 0, cap;

    if (!size)
        return 0;
    if (!in)
        len = 0;
    cap = size - 1 < GC_JOURNAL_VALUE_MAX ? size - 1 : GC_JOURNAL_VALUE_MAX;
    for (size_t i = 0; i < len;) {
        char unit[8];
        size_t k = utf8_seq_len(s[i]), n, bad;

        if (k == 1 && (s[i] < 0x20 || s[i] == 0x7f)) {
            n = (size_t)snprintf(unit, sizeof(unit), "\\x%02x", s[i]);
        } else if (k == 1 && s[i] == '\\') {
            n = 2;
            memcpy(unit, "\\\\", 2);
        } else if (k == 1) {
            n = 1;
            unit[0] = (char)s[i];
        } else if (k && i + k <= len && gc_utf8_valid(s + i, k, &bad)) {
            if (k == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0) /* C1 control, U+0080..U+009F */
                n = (size_t)snprintf(unit, sizeof(unit), "\\u%04x", s[i + 1]);
            else
                memcpy(unit, s + i, (n = k));
        } else {
            k = 1; /* a byte that breaks a sequence */
            n = 1;
            unit[0] = '?';
        }
        if (used + n > cap)
            break; /* cut here: never inside a character or an escape */
        memcpy(out + used, unit, n);
        used += n;
        i += k;
    }
    out[used] = '\0';
    return used;
}

/* Room for every field at its longest: an entry never runs out of buffer. */
#define ENTRY_BUF_SIZE \
    ((size_t)GC_JOURNAL_FIELDS_MAX * (GC_JOURNAL_NAME_MAX + 2 + GC_JOURNAL_VALUE_MAX))

/* Append "NAME=" and @p value (@p len bytes, escaped) as the next field. */
static void add_field(struct gc_journal_entry *e, const char *name, const char *value, size_t len)
{
    size_t nlen = strlen(name), vlen;
    char *at = e->buf + e->used;

    if (e->n >= GC_JOURNAL_FIELDS_MAX || nlen > GC_JOURNAL_NAME_MAX)
        return; /* the table below is sized to fit: never taken */
    memcpy(at, name, nlen);
    at[nlen] = '=';
    vlen = gc_journal_escape(value, len, at + nlen + 1, GC_JOURNAL_VALUE_MAX + 1);
    e->iov[e->n].iov_base = at;
    e->iov[e->n].iov_len = nlen + 1 + vlen;
    e->n++;
    e->used += nlen + 1 + vlen + 1;
}

static void add_str(struct gc_journal_entry *e, const char *name, const char *value)
{
    if (value)
        add_field(e, name, value, strlen(value));
}

static void add_int(struct gc_journal_entry *e, const char *name, int64_t v)
{
    char num[24];

    if (v < 0)
        return; /* unknown */
    snprintf(num, sizeof(num), "%" PRId64, v);
    add_str(e, name, num);
}

/* How a row's member becomes a field. */
enum field_kind {
    F_STR,           /* char *: left out when NULL */
    F_INT,           /* int64_t: left out when negative (unknown) */
    F_ID,            /* int64_t: left out unless > 0 (not stored) */
    F_USEC,          /* int64_t ns: microseconds (as COREDUMP_TIMESTAMP), left out when negative */
    F_READABLE_BOOL, /* int: 0/1; left out for a file that is not a readable core */
};

/* The GPUCORE_* fields from the row, in the order they are sent (docs/fleet.md's table). */
static const struct row_field {
    const char *name;
    enum field_kind kind;
    size_t off;
} row_fields[] = {
    { "GPUCORE_SIGNATURE_HASH", F_STR, offsetof(struct gc_store_row, sig_hash) },
    { "GPUCORE_SIGNATURE", F_STR, offsetof(struct gc_store_row, sig_text) },
    { "GPUCORE_CORE_SIZE", F_INT, offsetof(struct gc_store_row, size) },
    { "GPUCORE_TIMESTAMP", F_USEC, offsetof(struct gc_store_row, time_ns) },
    { "GPUCORE_HOSTNAME", F_STR, offsetof(struct gc_store_row, host) },
    { "GPUCORE_PID", F_INT, offsetof(struct gc_store_row, pid) },
    { "GPUCORE_UID", F_INT, offsetof(struct gc_store_row, uid) },
    { "GPUCORE_EXE", F_STR, offsetof(struct gc_store_row, exe) },
    { "GPUCORE_JOB", F_STR, offsetof(struct gc_store_row, job) },
    { "GPUCORE_RANK", F_INT, offsetof(struct gc_store_row, rank) },
    { "GPUCORE_TARGETS", F_STR, offsetof(struct gc_store_row, targets) },
    { "GPUCORE_TRIGGER", F_STR, offsetof(struct gc_store_row, trigger) },
    { "GPUCORE_WAVES", F_INT, offsetof(struct gc_store_row, waves) },
    { "GPUCORE_FAULTING_WAVES", F_INT, offsetof(struct gc_store_row, faulting_waves) },
    { "GPUCORE_TRUNCATED", F_READABLE_BOOL, offsetof(struct gc_store_row, truncated) },
    { "GPUCORE_STORE_ID", F_ID, offsetof(struct gc_store_row, id) },
    { "GPUCORE_ERROR", F_STR, offsetof(struct gc_store_row, error) },
};

static void add_row_field(struct gc_journal_entry *e, const struct gc_store_row *row,
                          const struct row_field *f)
{
    const char *p = (const char *)row + f->off;
    const char *str;
    int64_t v = 0;
    int b;

    if (f->kind == F_STR) {
        memcpy(&str, p, sizeof(str));
        add_str(e, f->name, str);
        return;
    }
    if (f->kind == F_READABLE_BOOL) {
        memcpy(&b, p, sizeof(b));
        if (row->state != GC_STORE_UNREADABLE)
            add_int(e, f->name, b ? 1 : 0);
        return;
    }
    memcpy(&v, p, sizeof(v));
    if (f->kind == F_ID && v <= 0)
        return;
    add_int(e, f->name, f->kind == F_USEC && v >= 0 ? v / 1000 : v);
}

/* The length a value of the message takes at most (before escaping); the message as a whole
   is cut to GC_JOURNAL_VALUE_MAX. */
#define MESSAGE_PART_MAX 512
#define MESSAGE_RAW_SIZE (4 * MESSAGE_PART_MAX + GC_JOURNAL_VALUE_MAX + 256)

/* MESSAGE=: one line saying what crashed and where its core is. */
static void add_message(struct gc_journal_entry *e, const struct gc_store_row *r, const char *path,
                        char *raw)
{
    const char *exe = r->exe ? (strrchr(r->exe, '/') ? strrchr(r->exe, '/') + 1 : r->exe) : NULL;
    const char *open = " (";
    int opened = 0;
    char size[32];
    size_t len = 0;

    raw[0] = '\0';
    if (r->state == GC_STORE_UNREADABLE) {
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "GPU core %.*s written but not readable: %.*s",
                       GC_JOURNAL_VALUE_MAX, path, MESSAGE_PART_MAX, r->error ? r->error : "?");
        add_str(e, "MESSAGE", raw);
        return;
    }
    gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "GPU crash of %.*s", MESSAGE_PART_MAX,
                   exe && exe[0] ? exe : "an unknown program");
    if (r->pid >= 0) {
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "%spid %" PRId64, open, r->pid);
        open = ", ";
        opened = 1;
    }
    if (r->job) {
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "%sjob %.*s", open, MESSAGE_PART_MAX, r->job);
        open = " ";
        opened = 1;
    }
    if (r->rank >= 0) {
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "%srank %" PRId64, open, r->rank);
        opened = 1;
    }
    gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "%s: %.*s", opened ? ")" : "", MESSAGE_PART_MAX,
                   r->sig_text ? r->sig_text : "no signature");
    if (r->waves >= 0 && r->faulting_waves >= 0)
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, ", %" PRId64 " of %" PRId64 " waves faulting",
                       r->faulting_waves, r->waves);
    if (r->truncated)
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, ", truncated");
    gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, "; core %.*s", GC_JOURNAL_VALUE_MAX, path);
    if (r->size >= 0)
        gc_str_appendf(raw, MESSAGE_RAW_SIZE, &len, " (%s)",
                       gc_format_size((uint64_t)r->size, size, sizeof(size)));
    add_str(e, "MESSAGE", raw);
}

gpucore_status_t gc_journal_build(struct gc_journal_entry *e, const struct gc_store_row *row,
                                  const char *path, int writer, gpucore_diag_t *reterr_diag)
{
    char *raw;

    memset(e, 0, sizeof(*e));
    if (!row || !path || !gc_journal_writer_name(writer))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0,
                           "a journal entry needs a row, a path and a writer");
    e->size = ENTRY_BUF_SIZE;
    e->buf = malloc(e->size);
    raw = malloc(MESSAGE_RAW_SIZE);
    if (!e->buf || !raw) {
        free(raw);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, 0, "out of memory");
    }
    add_str(e, "MESSAGE_ID", GC_JOURNAL_MESSAGE_ID);
    add_str(e, "PRIORITY", GC_JOURNAL_PRIORITY);
    add_str(e, "SYSLOG_IDENTIFIER", GC_JOURNAL_IDENTIFIER);
    add_message(e, row, path, raw);
    free(raw);
    add_str(e, "GPUCORE_CORE", path);
    add_str(e, "GPUCORE_WRITER", gc_journal_writer_name(writer));
    for (size_t i = 0; i < GC_ARRAY_SIZE(row_fields); i++)
        add_row_field(e, row, &row_fields[i]);
    return GPUCORE_OK;
}

void gc_journal_entry_done(struct gc_journal_entry *e)
{
    if (!e)
        return;
    free(e->buf);
    memset(e, 0, sizeof(*e));
}

const char *gc_journal_field(const struct gc_journal_entry *e, const char *name, size_t *ret_len)
{
    size_t nlen = strlen(name);

    for (size_t i = 0; i < e->n; i++) {
        const char *f = e->iov[i].iov_base;

        if (e->iov[i].iov_len > nlen && memcmp(f, name, nlen) == 0 && f[nlen] == '=') {
            *ret_len = e->iov[i].iov_len - nlen - 1;
            return f + nlen + 1;
        }
    }
    return NULL;
}

/*
 * Is there a journal with room for an entry? Connect a datagram socket of our own to
 * @p socket_path and wait at most GC_JOURNAL_ROOM_WAIT_MS for it to be writable: a connected
 * Unix datagram socket is not writable while the peer's receive queue is full.
 */
static gpucore_status_t probe(const char *socket_path, gpucore_diag_t *d)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct pollfd p;
    int fd, n, e;

    if (strlen(socket_path) >= sizeof(sa.sun_path))
        return gc_diag_set(d, GPUCORE_E_NOTFOUND, 0, "%s: path too long", socket_path);
    memcpy(sa.sun_path, socket_path, strlen(socket_path) + 1);
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return gc_diag_set(d, GPUCORE_E_IO, 0, "no socket: %s", strerror(errno));
    if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) != 0) {
        e = errno;
        close(fd);
        return gc_diag_set(d,
                           e == ENOENT || e == ENOTDIR || e == ECONNREFUSED ? GPUCORE_E_NOTFOUND
                                                                            : GPUCORE_E_IO,
                           0, "no journal at %s: %s", socket_path, strerror(e));
    }
    p = (struct pollfd){ .fd = fd, .events = POLLOUT };
    do
        n = poll(&p, 1, GC_JOURNAL_ROOM_WAIT_MS);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n <= 0 || !(p.revents & POLLOUT))
        return gc_diag_set(d, GPUCORE_E_IO, 0,
                           "the journal at %s had no room for %d ms (journald stopped or "
                           "stalled): entry dropped",
                           socket_path, GC_JOURNAL_ROOM_WAIT_MS);
    return GPUCORE_OK;
}

gpucore_status_t gc_journal_send(const struct gc_journal_entry *e, const char *socket_path,
                                 gpucore_diag_t *reterr_diag)
{
    gpucore_status_t st = probe(socket_path ? socket_path : GC_JOURNAL_SOCKET, reterr_diag);
    int r;

    if (st != GPUCORE_OK)
        return st;
    r = sd_journal_sendv(e->iov, (int)e->n);
    if (r < 0)
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, 0, "sd_journal_sendv: %s", strerror(-r));
    return GPUCORE_OK;
}
