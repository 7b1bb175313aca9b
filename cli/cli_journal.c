/* SPDX-License-Identifier: MIT */
/* Debug-level notes, and the journal entry of each core written (cli.h). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "journal.h"
#include "store.h"

int cli_debug_enabled(void)
{
    const char *v = getenv("GPUCORE_DEBUG");

    return v && v[0] && strcmp(v, "0") != 0;
}

void cli_debug(const char *fmt, ...)
{
    va_list ap;

    if (!cli_debug_enabled())
        return;
    fputs("gpucore: debug: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* GPUCORE_JOURNAL=0: no entries (the test suite, a site that wants none). */
static int journal_off(const char *path)
{
    const char *v = getenv("GPUCORE_JOURNAL");

    if (!v || strcmp(v, "0") != 0)
        return 0;
    cli_debug("%s: no journal entry: GPUCORE_JOURNAL=0", path);
    return 1;
}

/* The core's path as the entry gives it: absolute (an entry is read on another host, or after
   the command's directory is forgotten), @p path itself when the directory is not known. */
static const char *absolute(const char *path, char *buf, size_t size)
{
    char cwd[PATH_MAX];
    int n;

    if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
        return path;
    n = snprintf(buf, size, "%s/%s", strcmp(cwd, "/") ? cwd : "",
                 strncmp(path, "./", 2) ? path : path + 2);
    return n > 0 && (size_t)n < size ? buf : path;
}

void cli_journal_row(const struct gc_store_row *row, const char *path, int writer)
{
    struct gc_journal_entry e;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    char abs[PATH_MAX + 1];

    if (journal_off(path))
        return;
    path = absolute(path, abs, sizeof(abs));
    st = gc_journal_build(&e, row, path, writer, &d);
    if (st == GPUCORE_OK)
        st = gc_journal_send(&e, NULL, &d);
    gc_journal_entry_done(&e);
    if (st == GPUCORE_E_NOTFOUND)
        cli_debug("%s: no journal entry: %s", path, d.message);
    else if (st != GPUCORE_OK)
        cli_debug("%s: the journal entry was not sent: %s", path, d.message);
}

void cli_journal_file(int dirfd, const char *dir, const char *name, const char *path, int writer)
{
    struct gc_store_row row;
    gpucore_diag_t d = { 0 };

    if (journal_off(path))
        return;
    if (gc_store_row_from_path(dirfd, dir, name, 0, &row, &d) != GPUCORE_OK) {
        /* The core cannot be read back (gone, replaced by a link): the entry says so, with
           what is known, so the crash is not silent. */
        memset(&row, 0, sizeof(row));
        row.time_ns = row.pid = row.uid = row.rank = row.waves = row.faulting_waves = -1;
        row.size = -1;
        row.state = GC_STORE_UNREADABLE;
        row.error = strdup(d.message[0] ? d.message : "cannot read the core back");
    }
    cli_journal_row(&row, path, writer);
    gc_store_row_done(&row);
}
