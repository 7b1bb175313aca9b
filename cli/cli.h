/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the `gpucore` program: exit codes, error reporting, option parsing
 * helpers. Only the program prints; the libraries never do (G-ERR-6).
 */
#ifndef GPUCORE_CLI_H
#define GPUCORE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

#include "capture.h" /* enum gc_kfd_backend */
#include "gc_json.h"   /* the documents' JSON values: gc_json_hex(), gc_json_uint(), ... */

/* Exit codes from sysexits.h, spelled out so the contract is visible in one place. */
enum cli_exit {
    CLI_EXIT_OK = 0,
    CLI_EXIT_USAGE = 64,       /* EX_USAGE: bad command line */
    CLI_EXIT_DATAERR = 65,     /* EX_DATAERR: malformed input data */
    CLI_EXIT_NOINPUT = 66,     /* EX_NOINPUT: cannot open input */
    CLI_EXIT_UNAVAILABLE = 69, /* EX_UNAVAILABLE: service (GPU driver) unavailable */
    CLI_EXIT_SOFTWARE = 70,    /* EX_SOFTWARE: internal error */
    CLI_EXIT_CANTCREAT = 73,   /* EX_CANTCREAT: cannot create output */
    CLI_EXIT_IOERR = 74,       /* EX_IOERR: I/O error */
    CLI_EXIT_TEMPFAIL = 75,    /* EX_TEMPFAIL: try again (a thread would not stop) */
    CLI_EXIT_NOPERM = 77,      /* EX_NOPERM: ptrace or the driver refused */
    CLI_EXIT_INTERRUPTED = 130, /* a signal ended it: 128 + the signal, as a shell reports it
                                   (130 for SIGINT) */
};

/* Which side of a command a failure concerns; the same status maps differently. */
enum cli_side {
    CLI_SIDE_INPUT,
    CLI_SIDE_OUTPUT,
};

/* Exit code for a failed library call on the given side. */
int cli_exit_for(gpucore_status_t status, enum cli_side side);

/*
 * Print one error line: "gpucore: FILE: offset 0x...: message" (the offset part only when the
 * diag carries one and the message does not already start with it). Returns the exit code
 * for (diag->status, side).
 */
int cli_report(const char *file, const gpucore_diag_t *diag, enum cli_side side);

/*
 * cli_report() for an input core: a message that names the reader's memory-budget option
 * names the GPUCORE_MEM_BUDGET environment variable instead, which is how a user of the
 * program raises it.
 */
int cli_report_input(const char *path, const gpucore_diag_t *diag);

/* Print "gpucore: [FILE: ]message" and return exit_code. */
int cli_fail(int exit_code, const char *file, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The zstd levels `compress --level` and the capture commands' `--compress=LEVEL` take, one
   range for both: zstd's fast levels -7..-1 and its levels 1..22 (0, zstd's "default", is
   not a level: the default is 3). The writer accepts any level zstd does. */
#define CLI_ZSTD_LEVEL_MIN (-7)
#define CLI_ZSTD_LEVEL_MAX 22
#define CLI_ZSTD_LEVEL_TEXT "-7..-1 or 1..22"

/* A zstd level in that range (not 0) into *ret: 0, or -1 (*ret unchanged). */
int cli_parse_zstd_level(const char *text, long *ret);

/* Usage error: "gpucore CMD: message" plus a hint, returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Check that an input file can be opened for reading and is a regular file, so "cannot open
 * input" (66) is told apart from I/O errors later. Opens without blocking: a FIFO or a device
 * is refused, never waited on. Returns 0 or an exit code after printing the error.
 */
int cli_check_input(const char *path);

/*
 * Open an input core (or host core): the one path every command takes. The file is opened as
 * cli_check_input() does (66 if it cannot be, or is not a regular file), then read by the
 * library from that descriptor with open flags @p flags (GPUCORE_OPEN_*). The reader's memory
 * budget is the library's default unless GPUCORE_MEM_BUDGET is set in the environment (a size
 * such as 512M, or "unlimited"). Returns 0 with *ret set, or an exit code after printing the
 * error (65 for a malformed core or one over its memory budget).
 */
int cli_open_core(const char *path, uint32_t flags, gpucore_core_t **ret);
/* cli_open_core() of a file the caller opened its own way (@p fd borrowed; @p path names it
   in messages): `gpucore ingest` opens files relative to its directory's descriptor. */
int cli_open_core_fd(int fd, const char *path, uint32_t flags, gpucore_core_t **ret);


/* Parse a size with optional K/M/G/T suffix (binary units). Returns 0 on success. */
int cli_parse_size(const char *text, uint64_t *ret);

/* Parse a decimal integer within [min, max]. Returns 0 on success. */
int cli_parse_int(const char *text, long min, long max, long *ret);

/* "linux" or "sim" -> the driver backend; 0, or -1 for anything else (*ret untouched). */
int cli_parse_backend(const char *text, enum gc_kfd_backend *ret);

/*
 * Debug-level notes (cli_journal.c): lines "gpucore: debug: ..." on stderr, written only when
 * the environment has GPUCORE_DEBUG set to anything but "" or "0". For what a user need not
 * hear of but may ask about (no journal on this machine: its entries are not sent).
 */
int cli_debug_enabled(void);
void cli_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The journal entry of a core just written (store/journal.h, docs/fleet.md "The journal"):
 * cli_journal_row() with its row when one was made (the store's, so the core is not read
 * twice); cli_journal_file() reads the row of the file @p name relative to @p dirfd (AT_FDCWD:
 * a path; @p dir names the directory in messages, may be NULL) with the store's code. @p path
 * is the core's path as the entry gives it; @p writer an enum gc_journal_writer. Never fails
 * and never warns: no journal, or a failed send, is a debug note (cli_debug()).
 */
struct gc_store_row;
void cli_journal_row(const struct gc_store_row *row, const char *path, int writer);
void cli_journal_file(int dirfd, const char *dir, const char *name, const char *path, int writer);

/* Subcommands. argv[0] is the subcommand name. */
/*
 * Text output that quotes a core: names, paths and strings in a core are the core's author's
 * choice, and a terminal obeys escape sequences. cli_text_open(@p out) gives a stream that
 * passes everything written to it on to @p out, with every C0 control byte but newline and tab,
 * DEL, and every UTF-8-encoded C1 control (U+0080..U+009F, which some terminals also obey)
 * replaced by '?' ("??" for the two bytes of a C1); NULL if out of memory. fclose() it to
 * flush (0, or EOF on a write error of @p out).
 */
FILE *cli_text_open(FILE *out);

/*
 * Every message on stderr passes the same filter: a process name, a code object's URI or a
 * store's path quoted in a warning is the choice of whoever made the target or the file. Once
 * called (main() does, before any command), `stderr` is a line-buffered cli_text_open() stream
 * over the original one. cli_stderr_raw() is the original, for the one writer whose control
 * bytes are its own and meant for the terminal: the capture's redrawn progress line (flush
 * stderr first). Without memory for the stream, stderr stays as it was.
 */
void cli_filter_stderr(void);
FILE *cli_stderr_raw(void);

/*
 * A document on stdout: cli_print_json() writes it as --json does everywhere (indented, members
 * in order, one newline after it); cli_print_text() lets @p render write it as text through
 * cli_text_open(stdout). They return CLI_EXIT_OK, CLI_EXIT_IOERR (a write failed) or
 * (cli_print_text) CLI_EXIT_SOFTWARE after printing "out of memory".
 */
int cli_print_json(const json_t *doc);
int cli_print_text(const json_t *doc, void (*render)(FILE *out, const json_t *doc, void *user),
                   void *user);
/*
 * A document whose last member is an array too long to hold whole (`analyze waves`: a core of
 * kilobytes can list a hundred thousand waves), written to stdout an element at a time: the
 * same bytes cli_print_json() writes for the whole document, with one element in memory.
 * cli_json_stream_open() writes @p head's members (a non-empty object, without @p key, a
 * member name that needs no escaping) and opens the array @p key; cli_json_stream_add() writes
 * one element; cli_json_stream_close() ends the array and the document and flushes. Each
 * returns CLI_EXIT_OK, CLI_EXIT_SOFTWARE (out of memory, or an empty head: nothing written by
 * that call) or CLI_EXIT_IOERR (a write failed). Nothing is printed on stderr.
 */
struct cli_json_stream {
    size_t count; /* elements written */
};
int cli_json_stream_open(struct cli_json_stream *s, const json_t *head, const char *key);
int cli_json_stream_add(struct cli_json_stream *s, const json_t *elem);
int cli_json_stream_close(struct cli_json_stream *s);
/*
 * The three in one call, for a list whose elements are built one by one: @p head (which the
 * caller keeps) and the array @p key of @p n elements, element i being @p elem(i, @p user), a
 * new reference (NULL: out of memory) freed once written. Stops at the first failure, leaving
 * the document unended. Returns what the three return.
 */
int cli_json_stream_array(const json_t *head, const char *key, size_t n,
                          json_t *(*elem)(size_t i, void *user), void *user);
/* The same filter on a buffer, in place, for a caller that has a whole text (and for tests);
   @p pending carries a 0xC2 lead byte that ended the previous buffer (0 at the start).
   Returns the bytes replaced. */
size_t cli_text_neutralise(char *buf, size_t len, int *pending);

int cmd_info(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_compress(int argc, char **argv);
int cmd_decompress(int argc, char **argv);
int cmd_kfd_check(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_dbgapi_dump(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_ingest(int argc, char **argv);

#endif /* GPUCORE_CLI_H */
