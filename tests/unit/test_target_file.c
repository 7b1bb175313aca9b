/* SPDX-License-Identifier: MIT */
/*
 * capture/target_file.c: a file a target names, read as the target (this process plays the
 * target). What is refused and why, and that a reader that does not answer in time is killed
 * and reaped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gc_util.h"
#include "target_file.h"

static char dir[4096];

static const char *tmp_path(const char *name)
{
    static char p[4200];

    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return p;
}

/* Read @p path as this process; returns r, why in @p why. */
static int read_as_self(const char *path, uint64_t off, uint64_t size, uint64_t max,
                        uint32_t timeout_ms, uint8_t **bytes, uint64_t *n, char *why)
{
    *bytes = NULL;
    *n = 0;
    return gc_target_file_read((uint32_t)getpid(), path, off, size, max, timeout_ms, bytes, n,
                               why, 200);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    rewind(f);
    b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void assert_no_child_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_reads_a_code_object(void **state)
{
    const char *objects = getenv("GPUCORE_SCENARIO_OBJECTS");
    char path[4200], why[200];
    uint8_t *bytes, *want;
    uint64_t n;
    size_t len;

    (void)state;
    assert_non_null(objects);
    snprintf(path, sizeof(path), "%s/trap.gfx1030.co", objects);
    want = slurp(path, &len);
    assert_int_equal(read_as_self(path, 0, 0, 1u << 20, 5000, &bytes, &n, why), 1);
    assert_int_equal(n, len);
    assert_memory_equal(bytes, want, len);
    gc_free(bytes);
    /* a range of it (an ELF header at offset 0) */
    assert_int_equal(read_as_self(path, 0, 64, 1u << 20, 5000, &bytes, &n, why), 1);
    assert_int_equal(n, 64);
    assert_memory_equal(bytes, want, 64);
    gc_free(bytes);
    /* the range is not in the file; more than max */
    assert_int_equal(read_as_self(path, len - 10, 64, 1u << 20, 5000, &bytes, &n, why), 0);
    assert_non_null(strstr(why, "not in the file"));
    assert_int_equal(read_as_self(path, 0, 0, 100, 5000, &bytes, &n, why), 0);
    assert_non_null(strstr(why, "larger than"));
    /* a range that does not start with an ELF header */
    assert_int_equal(read_as_self(path, 64, 64, 1u << 20, 5000, &bytes, &n, why), 0);
    assert_non_null(strstr(why, "not an ELF64"));
    free(want);
    assert_no_child_left();
}

static void test_refuses(void **state)
{
    char why[200];
    uint8_t *bytes;
    uint64_t n;
    FILE *f;

    (void)state;
    /* a FIFO nobody writes: never opened (opening it would block until the timeout) */
    assert_int_equal(mkfifo(tmp_path("fifo"), 0644), 0);
    assert_int_equal(read_as_self(tmp_path("fifo"), 0, 0, 1u << 20, 5000, &bytes, &n, why), 0);
    assert_string_equal(why, "not a regular file");
    assert_null(bytes);
    /* a device */
    assert_int_equal(read_as_self("/dev/null", 0, 0, 1u << 20, 5000, &bytes, &n, why), 0);
    assert_string_equal(why, "not a regular file");
    /* a text file; an ELF that is not AMDGPU (this program) */
    f = fopen(tmp_path("text"), "w");
    assert_non_null(f);
    for (int i = 0; i < 100; i++)
        fputs("not an ELF file\n", f);
    fclose(f);
    assert_int_equal(read_as_self(tmp_path("text"), 0, 0, 1u << 20, 5000, &bytes, &n, why), 0);
    assert_string_equal(why, "not an ELF64 little-endian file");
    {
        char exe[4096];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

        assert_true(k > 0);
        exe[k] = '\0';
        assert_int_equal(read_as_self(exe, 0, 0, 64u << 20, 5000, &bytes, &n, why), 0);
        assert_string_equal(why, "an ELF file, but not an AMDGPU code object");
    }
    /* a magic link (/proc/self/exe) is not followed */
    assert_int_equal(read_as_self("/proc/self/exe", 0, 0, 64u << 20, 5000, &bytes, &n, why), 0);
    assert_non_null(strstr(why, "cannot be resolved in the target's root"));
    /* nothing there */
    assert_int_equal(read_as_self(tmp_path("missing"), 0, 0, 1u << 20, 5000, &bytes, &n, why),
                     0);
    assert_non_null(strstr(why, "No such file"));
    /* a process that does not exist */
    assert_int_equal(gc_target_file_read(0x7ffffff0u, "/etc/hostname", 0, 0, 1u << 20, 5000,
                                         &bytes, &n, why, sizeof(why)),
                     0);
    assert_non_null(strstr(why, "credentials are unknown"));
    assert_no_child_left();
}

/* No time left: the reader is killed and reaped, the caller is told. */
static void test_timeout(void **state)
{
    const char *objects = getenv("GPUCORE_SCENARIO_OBJECTS");
    char path[4200], why[200];
    uint8_t *bytes;
    uint64_t n;

    (void)state;
    snprintf(path, sizeof(path), "%s/trap.gfx1030.co", objects);
    assert_int_equal(read_as_self(path, 0, 0, 1u << 20, 0, &bytes, &n, why), 0);
    assert_string_equal(why, "timed out after 0 ms");
    assert_null(bytes);
    assert_no_child_left();
}

int main(void)
{
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_a_code_object),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_timeout),
    };

    snprintf(dir, sizeof(dir), "%s/target-file.%ld", tmp ? tmp : "/tmp", (long)getpid());
    if (mkdir(dir, 0755) != 0)
        return 1;
    return cmocka_run_group_tests_name("capture: files a target names", tests, NULL, NULL);
}
