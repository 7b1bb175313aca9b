/* SPDX-License-Identifier: MIT */
/*
 * One structured journal entry per core gpucore writes (store_journal.c, docs/fleet.md "The
 * journal"), as systemd-coredump logs one per core dump with its COREDUMP_* fields: a fixed
 * MESSAGE_ID, a one-line MESSAGE, PRIORITY=2 (LOG_CRIT), SYSLOG_IDENTIFIER=gpucore and
 * GPUCORE_* fields with the values of the core's store row (store.h). Sent with libsystemd's
 * sd_journal_sendv(); `journalctl MESSAGE_ID=438f3f0a3cbf4f2c96bb0f2000f39a45 -o json` lists
 * them, and whatever ships the journal off the node carries them.
 *
 * Every value comes from a core, which is hostile: each is cut to GC_JOURNAL_VALUE_MAX bytes
 * (at a character's boundary), made valid UTF-8 (a byte that breaks a sequence becomes '?')
 * and its control characters escaped ("\n" is "\x0a", "\" is "\\"). An unknown value's field
 * is left out.
 *
 * Internal to the `gpucore` program; nothing here prints or exits. No state: any thread may
 * build entries (each its own); sending is libsystemd's (thread-safe).
 */
#ifndef GC_JOURNAL_H
#define GC_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <gpucore/status.h>

#include "store.h"

/* The entries' MESSAGE_ID: fixed forever (catalogues and shippers' filters match on it);
   made once with `systemd-id128 new`. */
#define GC_JOURNAL_MESSAGE_ID "438f3f0a3cbf4f2c96bb0f2000f39a45"
/* PRIORITY= of an entry: LOG_CRIT, as systemd-coredump's. */
#define GC_JOURNAL_PRIORITY   "2"
#define GC_JOURNAL_IDENTIFIER "gpucore"
/* journald's native socket: no such socket (a container, no journald) is no journal. */
#define GC_JOURNAL_SOCKET "/run/systemd/journal/socket"
/*
 * The longest value of a field, escaping included, bytes: a core's path (PATH_MAX, 4096) fits
 * whole; a longer value (a hostile executable name or job id) is cut. With GC_JOURNAL_FIELDS_MAX
 * fields an entry is at most about 100 KiB, which sd_journal_sendv() sends through a memfd
 * when it does not fit one datagram.
 */
#define GC_JOURNAL_VALUE_MAX 4096
/* The most fields of an entry: the four of every entry (MESSAGE_ID, MESSAGE, PRIORITY,
   SYSLOG_IDENTIFIER) and the GPUCORE_* ones (docs/fleet.md lists 19), with room to add. */
#define GC_JOURNAL_FIELDS_MAX 32
/* The longest field name (systemd allows 64 bytes). */
#define GC_JOURNAL_NAME_MAX 64
/*
 * How long a send waits for room in journald's socket queue, milliseconds. The socket is a
 * datagram socket whose sender blocks while journald's receive queue is full (journald stopped
 * or stalled); libsystemd offers no non-blocking send. Before sending, the entry's own
 * connection to the socket is polled for room this long; no room: the entry is dropped
 * (GPUCORE_E_IO), nothing waits longer.
 */
#define GC_JOURNAL_ROOM_WAIT_MS 100

/* Which command wrote the core (GPUCORE_WRITER=). */
enum gc_journal_writer {
    GC_JOURNAL_BY_RUN = 0, /* "run" */
    GC_JOURNAL_BY_WATCH,   /* "watch" */
    GC_JOURNAL_BY_CAPTURE, /* "capture" */
    GC_JOURNAL_BY_HOOK,    /* "hook": `gpucore capture --trigger` run by libgpucore-hook.so */
    GC_JOURNAL_BY_INGEST,  /* "ingest": a half read from the kernel or the ROCm runtime */
    GC_JOURNAL_BY_MERGE,   /* "merge": a unified core (`gpucore merge`, or ingest's merge) */
    _GC_JOURNAL_BY_MAX,
};

/* "run", "watch", ...; NULL for anything else. */
const char *gc_journal_writer_name(int writer);

/* An entry: iov[0 .. n) are "NAME=value" (no NUL, no newline), pointing into buf. */
struct gc_journal_entry {
    struct iovec iov[GC_JOURNAL_FIELDS_MAX];
    size_t n;
    char *buf; /* owned: gc_journal_entry_done() */
    size_t used, size;
};

/*
 * Copy @p len bytes of @p in (NULL: "") to @p out as a journal value: cut to fit @p size
 * (NUL included, at most GC_JOURNAL_VALUE_MAX + 1 is used) at a character's boundary, never
 * inside an escape; bytes that are not valid UTF-8 become '?'; control characters (C0, DEL,
 * C1) become "\xNN" (C1 as "\u00NN"), a backslash "\\". @p out is NUL-terminated (@p size > 0).
 * Returns the length written.
 */
size_t gc_journal_escape(const char *in, size_t len, char *out, size_t size);

/*
 * Build the entry of the core @p path described by @p row (its store row: row->id > 0 when it
 * is in a store), written by @p writer (enum gc_journal_writer). Fields of unknown values
 * (NULL strings, -1 numbers) are left out. @p e is initialised here (any previous content is
 * not freed); gc_journal_entry_done() it whatever the status.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL   no @p row or @p path, or @p writer is no writer
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_journal_build(struct gc_journal_entry *e, const struct gc_store_row *row,
                                  const char *path, int writer, gpucore_diag_t *reterr_diag);
void gc_journal_entry_done(struct gc_journal_entry *e); /* accepts NULL */

/*
 * The value of field @p name in @p e (borrowed, not NUL-terminated: *ret_len bytes), or NULL.
 * For the tests and for messages.
 */
const char *gc_journal_field(const struct gc_journal_entry *e, const char *name, size_t *ret_len);

/*
 * Send @p e to the journal at @p socket_path (NULL: GC_JOURNAL_SOCKET; sd_journal_sendv()
 * always uses GC_JOURNAL_SOCKET, so another path only probes). Never waits more than
 * GC_JOURNAL_ROOM_WAIT_MS for room (see there).
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTFOUND  no journal: no socket (ENOENT, ENOTDIR) or nobody listening on it
 *                             (ECONNREFUSED); nothing sent, nothing waited for
 * @retval GPUCORE_E_IO        the journal's queue had no room in time, or the send failed
 *                             (the message says why); the entry is dropped
 */
gpucore_status_t gc_journal_send(const struct gc_journal_entry *e, const char *socket_path,
                                 gpucore_diag_t *reterr_diag);

#endif /* GC_JOURNAL_H */
