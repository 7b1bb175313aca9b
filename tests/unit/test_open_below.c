/* SPDX-License-Identifier: MIT */
/*
 * gc_open_below (analyze/open_below.h): a path a core names opens only as a regular file of a
 * real file system below the directory the user chose. A file of /proc (reading /proc/kmsg
 * consumes the kernel log) is refused even below "/", a FIFO is never opened, and neither
 * "/../.." nor a link leaves the directory.
 */
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

#include "open_below.h"

static char root[4096];

static int setup(void **state)
{
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char cmd[16384];

    (void)state;
    assert_non_null(tmp);
    snprintf(root, sizeof(root), "%s/open-below-%d", tmp, (int)getpid());
    snprintf(cmd, sizeof(cmd),
             "set -e; rm -rf '%s'; mkdir -p '%s/bin'; cd '%s'; echo program >bin/app; "
             "mkfifo bin/fifo; ln -s /etc/passwd bin/abs; ln -s ../../../../../../etc/passwd "
             "bin/rel",
             root, root, root);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static int teardown(void **state)
{
    char cmd[4200];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd);
}

/* Open @p path below @p dir: the fd (closed here) or -1, and the reason in @p why. */
static int try_open(const char *dir, const char *path, char *why, size_t size)
{
    struct stat st;
    int fd;

    why[0] = '\0';
    fd = gc_open_below(dir, "--sysroot", path, &st, why, size);
    if (fd >= 0) {
        assert_true(S_ISREG(st.st_mode));
        close(fd);
    }
    return fd;
}

static void test_kernel_files_refused(void **state)
{
    static const char *const paths[] = { "/proc/self/status", "/proc/kmsg", "/proc/version" };
    char why[512];

    (void)state;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        if (access(paths[i], F_OK) != 0)
            continue;
        assert_int_equal(try_open("/", paths[i], why, sizeof(why)), -1);
        assert_string_equal(why, "below --sysroot /, a file of the kernel's proc file system, "
                                 "not a program's");
    }
    if (access("/sys/kernel/uevent_seqnum", F_OK) == 0) {
        assert_int_equal(try_open("/", "/sys/kernel/uevent_seqnum", why, sizeof(why)), -1);
        assert_non_null(strstr(why, "the kernel's sysfs file system"));
    }
}

static void test_inside_the_directory(void **state)
{
    char why[512], want[8192];

    (void)state;
    /* a regular file, however the path climbs: ".." stops at the directory */
    assert_true(try_open(root, "/bin/app", why, sizeof(why)) >= 0);
    assert_true(try_open(root, "/../../../../bin/app", why, sizeof(why)) >= 0);
    assert_true(try_open(root, "bin/../../bin/app", why, sizeof(why)) >= 0);
    /* a FIFO is not opened (it would block) */
    assert_int_equal(try_open(root, "/bin/fifo", why, sizeof(why)), -1);
    snprintf(want, sizeof(want), "below --sysroot %.200s, not a regular file", root);
    assert_string_equal(why, want);
    /* links resolve inside the directory, where there is no /etc/passwd */
    snprintf(want, sizeof(want), "not found below --sysroot %.200s (No such file or directory)",
             root);
    assert_int_equal(try_open(root, "/bin/abs", why, sizeof(why)), -1);
    assert_string_equal(why, want);
    assert_int_equal(try_open(root, "/bin/rel", why, sizeof(why)), -1);
    assert_string_equal(why, want);
    assert_int_equal(try_open(root, "/../../../etc/passwd", why, sizeof(why)), -1);
    assert_string_equal(why, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_files_refused),
        cmocka_unit_test(test_inside_the_directory),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
