/* SPDX-License-Identifier: MIT */
/*
 * A core's journal entry (store/journal.h): the fields a row gives, unknown values left out,
 * the one-line MESSAGE, and hostile values (control characters, invalid UTF-8, huge strings)
 * escaped and bounded; and the send's refusals without a journal, all without journald.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "gc_util.h"
#include "journal.h"
#include "store.h"

/* A row as a store makes it for a faulting simulated core (values of a real one). */
/* $TMPDIR, or the system's temporary directory when it is unset or too long for the socket
   paths below (a sockaddr_un holds 107 bytes; the build tree's paths may be longer). */
static const char *short_tmpdir(void)
{
    const char *t = getenv("TMPDIR");

    return t && t[0] == '/' && strlen(t) <= 32 ? t : P_tmpdir;
}

static void full_row(struct gc_store_row *r)
{
    memset(r, 0, sizeof(*r));
    r->id = 7;
    r->time_ns = 1700000000123456789;
    r->host = strdup("node17");
    r->pid = 4242;
    r->uid = 1000;
    r->exe = strdup("/opt/app/bin/app");
    r->job = strdup("77");
    r->rank = 3;
    r->targets = strdup("gfx90a,gfx90a");
    r->trigger = strdup("memory-violation");
    r->sig_text = strdup("memory violation in vadd+0x40");
    r->sig_hash = strdup("0123456789abcdef");
    r->waves = 256;
    r->faulting_waves = 4;
    r->size = 1468006;
    r->state = GC_STORE_PRESENT;
    r->file = strdup("core.1.node17.4242.app");
}

/* An unknown row: what is known of a core no part of which could be read. */
static void unknown_row(struct gc_store_row *r)
{
    memset(r, 0, sizeof(*r));
    r->time_ns = r->pid = r->uid = r->rank = r->waves = r->faulting_waves = -1;
    r->size = -1;
    r->state = GC_STORE_PRESENT;
}

/* The value of @p name in @p e as a string (static buffer), or NULL. */
static const char *field(const struct gc_journal_entry *e, const char *name)
{
    static char buf[GC_JOURNAL_VALUE_MAX + 1];
    size_t len;
    const char *v = gc_journal_field(e, name, &len);

    if (!v)
        return NULL;
    assert_true(len <= GC_JOURNAL_VALUE_MAX);
    memcpy(buf, v, len);
    buf[len] = '\0';
    return buf;
}

static void test_fields_of_a_row(void **state)
{
    struct gc_store_row r;
    struct gc_journal_entry e;

    (void)state;
    full_row(&r);
    assert_int_equal(gc_journal_build(&e, &r, "/var/lib/gpucore/cores/core.1.node17.4242.app",
                                      GC_JOURNAL_BY_RUN, NULL),
                     GPUCORE_OK);
    assert_string_equal(field(&e, "MESSAGE_ID"), "438f3f0a3cbf4f2c96bb0f2000f39a45");
    assert_string_equal(field(&e, "PRIORITY"), "2");
    assert_string_equal(field(&e, "SYSLOG_IDENTIFIER"), "gpucore");
    assert_string_equal(field(&e, "MESSAGE"),
                        "GPU crash of app (pid 4242, job 77 rank 3): memory violation in "
                        "vadd+0x40, 4 of 256 waves faulting; core "
                        "/var/lib/gpucore/cores/core.1.node17.4242.app (1.4 MiB)");
    assert_string_equal(field(&e, "GPUCORE_CORE"), "/var/lib/gpucore/cores/core.1.node17.4242.app");
    assert_string_equal(field(&e, "GPUCORE_WRITER"), "run");
    assert_string_equal(field(&e, "GPUCORE_SIGNATURE_HASH"), "0123456789abcdef");
    assert_string_equal(field(&e, "GPUCORE_SIGNATURE"), "memory violation in vadd+0x40");
    assert_string_equal(field(&e, "GPUCORE_CORE_SIZE"), "1468006");
    assert_string_equal(field(&e, "GPUCORE_TIMESTAMP"), "1700000000123456");
    assert_string_equal(field(&e, "GPUCORE_HOSTNAME"), "node17");
    assert_string_equal(field(&e, "GPUCORE_PID"), "4242");
    assert_string_equal(field(&e, "GPUCORE_UID"), "1000");
    assert_string_equal(field(&e, "GPUCORE_EXE"), "/opt/app/bin/app");
    assert_string_equal(field(&e, "GPUCORE_JOB"), "77");
    assert_string_equal(field(&e, "GPUCORE_RANK"), "3");
    assert_string_equal(field(&e, "GPUCORE_TARGETS"), "gfx90a,gfx90a");
    assert_string_equal(field(&e, "GPUCORE_TRIGGER"), "memory-violation");
    assert_string_equal(field(&e, "GPUCORE_WAVES"), "256");
    assert_string_equal(field(&e, "GPUCORE_FAULTING_WAVES"), "4");
    assert_string_equal(field(&e, "GPUCORE_TRUNCATED"), "0");
    assert_string_equal(field(&e, "GPUCORE_STORE_ID"), "7");
    assert_null(field(&e, "GPUCORE_ERROR"));
    assert_int_equal(e.n, 22);
    /* every field is NAME=value, the name by systemd's rules */
    for (size_t i = 0; i < e.n; i++) {
        const char *f = e.iov[i].iov_base;
        const char *eq = memchr(f, '=', e.iov[i].iov_len);

        assert_non_null(eq);
        assert_true(eq > f && eq - f <= GC_JOURNAL_NAME_MAX);
        for (const char *c = f; c < eq; c++)
            assert_true((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_');
        assert_null(memchr(f, '\n', e.iov[i].iov_len));
    }
    gc_journal_entry_done(&e);
    gc_store_row_done(&r);
}

static void test_unknown_values_left_out(void **state)
{
    static const char *const absent[] = {
        "GPUCORE_SIGNATURE_HASH",
        "GPUCORE_SIGNATURE",
        "GPUCORE_CORE_SIZE",
        "GPUCORE_TIMESTAMP",
        "GPUCORE_HOSTNAME",
        "GPUCORE_PID",
        "GPUCORE_UID",
        "GPUCORE_EXE",
        "GPUCORE_JOB",
        "GPUCORE_RANK",
        "GPUCORE_TARGETS",
        "GPUCORE_TRIGGER",
        "GPUCORE_WAVES",
        "GPUCORE_FAULTING_WAVES",
        "GPUCORE_STORE_ID",
        "GPUCORE_ERROR",
    };
    struct gc_store_row r;
    struct gc_journal_entry e;

    (void)state;
    unknown_row(&r);
    assert_int_equal(gc_journal_build(&e, &r, "core.x", GC_JOURNAL_BY_CAPTURE, NULL), GPUCORE_OK);
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
        assert_null(field(&e, absent[i]));
    assert_string_equal(field(&e, "GPUCORE_TRUNCATED"), "0");
    assert_string_equal(field(&e, "GPUCORE_WRITER"), "capture");
    assert_string_equal(field(&e, "MESSAGE"),
                        "GPU crash of an unknown program: no signature; core core.x");
    gc_journal_entry_done(&e);

    /* job without a rank, rank without a job */
    r.job = strdup("77");
    assert_int_equal(gc_journal_build(&e, &r, "c", GC_JOURNAL_BY_HOOK, NULL), GPUCORE_OK);
    assert_string_equal(field(&e, "MESSAGE"),
                        "GPU crash of an unknown program (job 77): no signature; core c");
    assert_string_equal(field(&e, "GPUCORE_WRITER"), "hook");
    gc_journal_entry_done(&e);
    free(r.job);
    r.job = NULL;
    r.rank = 5;
    r.truncated = 1;
    assert_int_equal(gc_journal_build(&e, &r, "c", GC_JOURNAL_BY_INGEST, NULL), GPUCORE_OK);
    assert_string_equal(field(&e, "MESSAGE"), "GPU crash of an unknown program (rank 5): no "
                                              "signature, truncated; core c");
    assert_string_equal(field(&e, "GPUCORE_TRUNCATED"), "1");
    gc_journal_entry_done(&e);
    gc_store_row_done(&r);
}

static void test_unreadable_core(void **state)
{
    struct gc_store_row r;
    struct gc_journal_entry e;

    (void)state;
    unknown_row(&r);
    r.state = GC_STORE_UNREADABLE;
    r.error = strdup("not an ELF file");
    assert_int_equal(gc_journal_build(&e, &r, "/s/core.9", GC_JOURNAL_BY_MERGE, NULL), GPUCORE_OK);
    assert_string_equal(field(&e, "MESSAGE"),
                        "GPU core /s/core.9 written but not readable: not an ELF file");
    assert_string_equal(field(&e, "GPUCORE_ERROR"), "not an ELF file");
    assert_null(field(&e, "GPUCORE_TRUNCATED")); /* not known of a file that is no core */
    gc_journal_entry_done(&e);
    gc_store_row_done(&r);
}

static void test_bad_arguments(void **state)
{
    struct gc_store_row r;
    struct gc_journal_entry e;
    gpucore_diag_t d = { 0 };

    (void)state;
    unknown_row(&r);
    assert_int_equal(gc_journal_build(&e, NULL, "p", GC_JOURNAL_BY_RUN, &d), GPUCORE_E_INVAL);
    gc_journal_entry_done(&e);
    assert_int_equal(gc_journal_build(&e, &r, NULL, GC_JOURNAL_BY_RUN, &d), GPUCORE_E_INVAL);
    gc_journal_entry_done(&e);
    assert_int_equal(gc_journal_build(&e, &r, "p", _GC_JOURNAL_BY_MAX, &d), GPUCORE_E_INVAL);
    gc_journal_entry_done(&e);
    assert_int_equal(gc_journal_build(&e, &r, "p", -1, &d), GPUCORE_E_INVAL);
    gc_journal_entry_done(&e);
    gc_journal_entry_done(NULL);
    assert_null(gc_journal_writer_name(_GC_JOURNAL_BY_MAX));
    assert_string_equal(gc_journal_writer_name(GC_JOURNAL_BY_WATCH), "watch");
}

static void test_escape(void **state)
{
    char out[64];

    (void)state;
    /* control characters, DEL, backslash; newline never passes */
    assert_int_equal(gc_journal_escape("a\nb\x1b[31m\x7f\\", 10, out, sizeof(out)), 20);
    assert_string_equal(out, "a\\x0ab\\x1b[31m\\x7f\\\\");
    /* a NUL inside a value */
    gc_journal_escape("a\0b", 3, out, sizeof(out));
    assert_string_equal(out, "a\\x00b");
    /* valid UTF-8 kept; C1 controls escaped; invalid bytes become '?' */
    gc_journal_escape("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, out, sizeof(out));
    assert_string_equal(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    gc_journal_escape("x\xc2\x9by", 4, out, sizeof(out));
    assert_string_equal(out, "x\\u009by");
    gc_journal_escape("\xff\xc0\xaf\xed\xa0\x80z", 7, out, sizeof(out));
    assert_string_equal(out, "??????z");                  /* 0xff, an overlong '/', a surrogate */
    gc_journal_escape("ab\xe2\x82", 4, out, sizeof(out)); /* a sequence cut short */
    assert_string_equal(out, "ab??");
    /* NULL in: empty */
    assert_int_equal(gc_journal_escape(NULL, 5, out, sizeof(out)), 0);
    assert_string_equal(out, "");
    /* cut at the buffer, never inside an escape or a character */
    assert_int_equal(gc_journal_escape("ab\n", 3, out, 5), 2);
    assert_string_equal(out, "ab");
    assert_int_equal(gc_journal_escape("a\xe2\x82\xac", 4, out, 3), 1);
    assert_string_equal(out, "a");
    assert_int_equal(gc_journal_escape("abc", 3, out, 0), 0);
}

static void test_huge_and_hostile_row(void **state)
{
    size_t big = 1u << 20;
    char *huge = malloc(big + 1), *path = malloc(8192);
    struct gc_store_row r;
    struct gc_journal_entry e;
    size_t len;

    (void)state;
    assert_non_null(huge);
    assert_non_null(path);
    for (size_t i = 0; i < big; i++)
        huge[i] = (char)(i % 7 == 0 ? '\n' : i % 5 == 0 ? '\xff' : 'x');
    huge[big] = '\0';
    memset(path, 'p', 8191);
    path[8191] = '\0';
    full_row(&r);
    free(r.exe);
    free(r.sig_text);
    free(r.job);
    r.exe = strdup(huge);
    r.sig_text = strdup(huge);
    r.job = strdup("77\r\n\x1b]0;pwned\x07");
    assert_int_equal(gc_journal_build(&e, &r, path, GC_JOURNAL_BY_RUN, NULL), GPUCORE_OK);
    for (size_t i = 0; i < e.n; i++) {
        const unsigned char *f = e.iov[i].iov_base;
        size_t bad;

        /* name, '=' and at most GC_JOURNAL_VALUE_MAX bytes of value */
        assert_true(e.iov[i].iov_len <= GC_JOURNAL_NAME_MAX + 1 + GC_JOURNAL_VALUE_MAX);
        for (size_t k = 0; k < e.iov[i].iov_len; k++)
            assert_true(f[k] >= 0x20 && f[k] != 0x7f);
        assert_true(gc_utf8_valid(f, e.iov[i].iov_len, &bad));
    }
    assert_string_equal(field(&e, "GPUCORE_JOB"), "77\\x0d\\x0a\\x1b]0;pwned\\x07");
    assert_non_null(gc_journal_field(&e, "GPUCORE_EXE", &len));
    assert_true(len > GC_JOURNAL_VALUE_MAX - 4 && len <= GC_JOURNAL_VALUE_MAX);
    assert_non_null(gc_journal_field(&e, "GPUCORE_CORE", &len));
    assert_int_equal(len, GC_JOURNAL_VALUE_MAX);
    assert_non_null(gc_journal_field(&e, "MESSAGE", &len));
    assert_true(len <= GC_JOURNAL_VALUE_MAX);
    gc_journal_entry_done(&e);
    gc_store_row_done(&r);
    free(huge);
    free(path);
}

/* Sending without a journal: no socket, or a socket nobody listens on, is GPUCORE_E_NOTFOUND
   at once; a bound socket whose queue is full is GPUCORE_E_IO after the short wait. */
static void test_send_without_journal(void **state)
{
    struct gc_store_row r;
    struct gc_journal_entry e;
    gpucore_diag_t d = { 0 };
    char dir[64], sock[100];
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    (void)state;
    /* a socket's path is at most 107 bytes: the build tree's may be longer; the system's
       temporary directory is not */
    snprintf(dir, sizeof(dir), "%s/test_journal.%ld", short_tmpdir(), (long)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(sock, sizeof(sock), "%s/socket", dir);
    unknown_row(&r);
    assert_int_equal(gc_journal_build(&e, &r, "c", GC_JOURNAL_BY_RUN, NULL), GPUCORE_OK);
    assert_int_equal(gc_journal_send(&e, sock, &d), GPUCORE_E_NOTFOUND);
    assert_non_null(strstr(d.message, "No such file"));
    /* a socket left by a journald that is gone */
    fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    assert_true(strlen(sock) < sizeof(sa.sun_path));
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    close(fd);
    assert_int_equal(gc_journal_send(&e, sock, &d), GPUCORE_E_NOTFOUND);
    assert_non_null(strstr(d.message, "refused"));
    unlink(sock);
    /* a journal that reads nothing: its queue fills, the send gives up */
    fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    {
        int w = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);

        assert_int_equal(connect(w, (struct sockaddr *)&sa, sizeof(sa)), 0);
        while (send(w, "x", 1, 0) == 1)
            ;
        close(w);
    }
    assert_int_equal(gc_journal_send(&e, sock, &d), GPUCORE_E_IO);
    assert_non_null(strstr(d.message, "no room"));
    close(fd);
    unlink(sock);
    rmdir(dir);
    gc_journal_entry_done(&e);
}

/* gc_store_row_from_path(): a core outside a store, by the store's code; what a path can be
   instead of a core; gc_store_row_from_report() and gc_store_row_from_file_report(). */
static void test_row_by_path_and_report(void **state)
{
    char dir[64], path[128], link[128];
    struct gc_store_row r;
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    json_t *doc;
    int fd;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/test_journal_row.%ld", short_tmpdir(), (long)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof(path), "%s/junk", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not a core", 10), 10);
    close(fd);
    /* not a core: a row saying so, named by its last component */
    assert_int_equal(gc_store_row_from_path(AT_FDCWD, NULL, path, 0, &r, &d), GPUCORE_OK);
    assert_int_equal(r.state, GC_STORE_UNREADABLE);
    assert_non_null(r.error);
    assert_string_equal(r.file, "junk");
    assert_int_equal(r.id, 0);
    assert_int_equal(r.file_bytes, 10);
    gc_store_row_done(&r);
    /* a symlink is refused, a missing file is not found, no name is no name */
    snprintf(link, sizeof(link), "%s/link", dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(gc_store_row_from_path(AT_FDCWD, NULL, link, 0, &r, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "symlink"));
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_int_equal(gc_store_row_from_path(fd, dir, "none", 0, &r, &d), GPUCORE_E_NOTFOUND);
    assert_non_null(strstr(d.message, "/none: "));
    assert_int_equal(gc_store_row_from_path(fd, dir, "", 0, &r, &d), GPUCORE_E_INVAL);
    close(fd);

    /* a triage report's values go into the row; a report that is no object changes nothing */
    memset(&r, 0, sizeof(r));
    r.waves = r.faulting_waves = -1;
    gc_store_row_from_report(&r, NULL);
    assert_int_equal(r.waves, -1);
    doc = json_pack("{s:{s:s,s:s},s:i,s:i,s:[{s:s},{s:s}]}", "signature", "text", "fault in k",
                    "hash", "00112233aabbccdd", "waves", 12, "faulting_waves", 2, "agents",
                    "target", "gfx90a", "target", "gfx942");
    assert_non_null(doc);
    gc_store_row_from_report(&r, doc);
    assert_string_equal(r.sig_text, "fault in k");
    assert_string_equal(r.sig_hash, "00112233aabbccdd");
    assert_int_equal(r.waves, 12);
    assert_int_equal(r.faulting_waves, 2);
    assert_string_equal(r.targets, "gfx90a,gfx942");
    gc_store_row_done(&r);

    /* in a store: a file that is no core takes nothing of a report */
    snprintf(path, sizeof(path), "%s/store", dir);
    assert_int_equal(gc_store_open(path, GC_STORE_CREATE, &s, &d), GPUCORE_OK);
    snprintf(path, sizeof(path), "%s/store/junk", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_int_equal(write(fd, "not a core", 10), 10);
    close(fd);
    assert_int_equal(gc_store_row_from_file_report(s, "junk", doc, &r, &d), GPUCORE_OK);
    assert_int_equal(r.state, GC_STORE_UNREADABLE);
    assert_null(r.sig_hash);
    gc_store_row_done(&r);
    assert_int_equal(gc_store_row_from_file_report(s, "../junk", doc, &r, &d), GPUCORE_E_INVAL);
    gc_store_close(s);
    json_decref(doc);

    unlink(path);
    snprintf(path, sizeof(path), "rm -rf -- '%s'", dir);
    assert_int_equal(system(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_of_a_row),
        cmocka_unit_test(test_unknown_values_left_out),
        cmocka_unit_test(test_unreadable_core),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_huge_and_hostile_row),
        cmocka_unit_test(test_send_without_journal),
        cmocka_unit_test(test_row_by_path_and_report),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
