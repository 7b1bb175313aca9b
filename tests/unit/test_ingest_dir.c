/* SPDX-License-Identifier: MIT */
/*
 * ingest's output directory (capture/ingest_dir.h): hidden names reached through the
 * directory's descriptor, names given without replacing any entry (a file, a symlink, a
 * directory at the name: the next free one), and files read only when they are regular with
 * one link (a symlink, a FIFO, a hard link, a directory refused; a FIFO never waited on).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest_dir.h"

static char dir[PATH_MAX / 2];
static int dirfd_;

static int setup(void **state)
{
    static int n;
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");

    (void)state;
    snprintf(dir, sizeof(dir), "%s/test_ingest_dir.%ld.%d", tmp && *tmp ? tmp : "/tmp",
             (long)getpid(), n++);
    assert_int_equal(mkdir(dir, 0700), 0);
    dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dirfd_ >= 0);
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];

    (void)state;
    close(dirfd_);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void make_file(const char *name, const char *text)
{
    int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The contents of @p name, or "" */
static const char *contents(const char *name)
{
    static char buf[64];
    int fd = openat(dirfd_, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;

    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* A hidden name that does not exist, reached through the descriptor, written, then named. */
static void test_tmp_and_publish(void **state)
{
    char tmp[256], path[PATH_MAX + 256], name[256], proc[64];
    gpucore_diag_t d = { 0 };
    FILE *f;

    (void)state;
    assert_int_equal(gc_ingest_tmp_path(dirfd_, dir, "core.42.zst", tmp, sizeof(tmp), path,
                                        sizeof(path), &d),
                     GPUCORE_OK);
    assert_int_equal(strncmp(tmp, ".core.42.zst.", 13), 0);
    assert_int_equal(strlen(tmp), 13 + 8);
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d/", dirfd_);
    assert_int_equal(strncmp(path, proc, strlen(proc)), 0);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("first", f);
    fclose(f);
    assert_int_equal(gc_ingest_publish(dirfd_, tmp, "core.42.zst", name, sizeof(name), &d),
                     GPUCORE_OK);
    assert_string_equal(name, "core.42.zst");
    assert_string_equal(contents("core.42.zst"), "first");
    assert_int_equal(faccessat(dirfd_, tmp, F_OK, AT_SYMLINK_NOFOLLOW), -1);

    /* names that are no file names */
    assert_int_equal(
            gc_ingest_tmp_path(dirfd_, dir, "../x", tmp, sizeof(tmp), path, sizeof(path), &d),
            GPUCORE_E_INVAL);
    assert_int_equal(
            gc_ingest_tmp_path(dirfd_, dir, "..", tmp, sizeof(tmp), path, sizeof(path), &d),
            GPUCORE_E_INVAL);
}

/* An entry at the name, of any kind: the next free name; nothing that was there changes. */
static void test_publish_taken(void **state)
{
    char name[256], target[PATH_MAX];
    gpucore_diag_t d = { 0 };

    (void)state;
    make_file("gpucore.7.gpu.zst", "user");
    make_file("t1", "core one");
    assert_int_equal(gc_ingest_publish(dirfd_, "t1", "gpucore.7.gpu.zst", name, sizeof(name), &d),
                     GPUCORE_OK);
    assert_string_equal(name, "gpucore.7.gpu.1.zst");
    assert_string_equal(contents("gpucore.7.gpu.zst"), "user");
    assert_string_equal(contents("gpucore.7.gpu.1.zst"), "core one");

    /* a dangling symlink and a directory are entries too; no extension: appended */
    snprintf(target, sizeof(target), "%s/nowhere", dir);
    assert_int_equal(symlinkat(target, dirfd_, "plain"), 0);
    assert_int_equal(mkdirat(dirfd_, "plain.1", 0700), 0);
    make_file("t2", "core two");
    assert_int_equal(gc_ingest_publish(dirfd_, "t2", "plain", name, sizeof(name), &d), GPUCORE_OK);
    assert_string_equal(name, "plain.2");
    assert_int_equal(faccessat(dirfd_, "nowhere", F_OK, AT_SYMLINK_NOFOLLOW), -1);

    /* all sequential names taken: a random one */
    make_file("c.zst", "");
    for (unsigned i = 1; i <= GC_INGEST_NAME_TRIES_SEQUENTIAL; i++) {
        char n[32];

        snprintf(n, sizeof(n), "c.%u.zst", i);
        make_file(n, "");
    }
    make_file("t3", "core three");
    assert_int_equal(gc_ingest_publish(dirfd_, "t3", "c.zst", name, sizeof(name), &d), GPUCORE_OK);
    assert_int_equal(strlen(name), strlen("c.XXXXXXXX.zst"));
    assert_int_equal(strncmp(name, "c.", 2), 0);
    assert_string_equal(contents(name), "core three");
}

/* Only a regular file with one link is opened; the rest refused without blocking. */
static void test_open_in(void **state)
{
    char target[PATH_MAX];
    struct stat st;
    gpucore_diag_t d = { 0 };
    int fd = -1;

    (void)state;
    make_file("half", "ELF?");
    assert_int_equal(gc_ingest_open_in(dirfd_, "half", &fd, &st, &d), GPUCORE_OK);
    assert_true(fd >= 0);
    assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
    close(fd);
    assert_true(gc_ingest_same_file(dirfd_, "half", &st));

    snprintf(target, sizeof(target), "%s/half", dir);
    assert_int_equal(symlinkat(target, dirfd_, "link"), 0);
    assert_int_equal(gc_ingest_open_in(dirfd_, "link", &fd, NULL, &d), GPUCORE_E_PERM);
    assert_string_equal(d.message, "a symlink, not a regular file: refused");
    assert_int_equal(fd, -1);
    assert_false(gc_ingest_same_file(dirfd_, "link", &st));

    assert_int_equal(linkat(dirfd_, "half", dirfd_, "hard", 0), 0);
    assert_int_equal(gc_ingest_open_in(dirfd_, "hard", &fd, NULL, &d), GPUCORE_E_PERM);
    assert_non_null(strstr(d.message, "2 links"));

    assert_int_equal(mkfifoat(dirfd_, "fifo", 0600), 0);
    assert_int_equal(gc_ingest_open_in(dirfd_, "fifo", &fd, NULL, &d), GPUCORE_E_PERM);
    assert_string_equal(d.message, "a FIFO, not a regular file: refused");

    assert_int_equal(mkdirat(dirfd_, "sub", 0700), 0);
    assert_int_equal(gc_ingest_open_in(dirfd_, "sub", &fd, NULL, &d), GPUCORE_E_PERM);
    assert_int_equal(gc_ingest_open_in(dirfd_, "none", &fd, NULL, &d), GPUCORE_E_NOTFOUND);
    assert_int_equal(gc_ingest_open_in(dirfd_, "../half", &fd, NULL, &d), GPUCORE_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tmp_and_publish, setup, teardown),
        cmocka_unit_test_setup_teardown(test_publish_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_in, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
