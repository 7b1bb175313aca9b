/* SPDX-License-Identifier: MIT */
/*
 * store.conf (store/store_conf.c): ingest's limits HostSizeMax= and GpuSizeMax= next to gc's
 * keys, and gc_store_conf_load(): which file, and every way reading it is refused (a symlink,
 * a directory, a file over the bound, a --config that does not exist; a FIFO is not waited on).
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>

#include "store.h"

static char dir[PATH_MAX / 2]; /* room for a name after it in PATH_MAX */

static int setup(void **state)
{
    static int n;
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");

    (void)state;
    snprintf(dir, sizeof(dir), "%s/test_store_conf.%ld.%d", tmp ? tmp : "/tmp", (long)getpid(),
             n++);
    assert_int_equal(mkdir(dir, 0700), 0);
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* DIR/NAME in @p buf (PATH_MAX bytes; names are short). */
static const char *at(char *buf, const char *name)
{
    if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
        fail_msg("path too long");
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* The limits parse as sizes of at least 4 KiB, or infinity; gc's keys are kept as they were. */
static void test_limits(void **state)
{
    struct gc_store_conf c = { .gc = { .keep_per_signature = -1 } };
    gpucore_diag_t d = { 0 };
    static const char good[] = "[Store]\nMaxUse=10G\nHostSizeMax=256M\n  GpuSizeMax = 4K\n";
    static const struct {
        const char *text;
        const char *message;
    } bad[] = {
        { "HostSizeMax=4095\n", "store.conf:1: HostSizeMax= expects a size of at least 4K" },
        { "GpuSizeMax=0\n", "store.conf:1: GpuSizeMax= expects a size of at least 4K" },
        { "HostSizeMax=\n", "store.conf:1: HostSizeMax= expects" },
        { "HostSizeMax=-1\n", "store.conf:1: HostSizeMax= expects" },
        { "HostSizeMax=infinite\n", "store.conf:1: HostSizeMax= expects" },
        { "MaxUse=1G\nProcessSizeMax=1G\n",
          "store.conf:2: unknown key (expected MaxUse, KeepFree, MaxAge, KeepPerSignature, "
          "HostSizeMax, GpuSizeMax or FleetIndex)" },
    };
    struct gc_store_policy p = { .keep_per_signature = -1 };

    (void)state;
    assert_int_equal(gc_store_conf_parse_all(good, strlen(good), "store.conf", &c, &d), GPUCORE_OK);
    assert_int_equal(c.gc.max_use, 10ull << 30);
    assert_int_equal(c.host_size_max, 256ull << 20);
    assert_int_equal(c.gpu_size_max, GPUCORE_WRITER_MIN_BUDGET);
    assert_int_equal(c.gc.keep_per_signature, -1);
    assert_int_equal(gc_store_conf_parse_all("GpuSizeMax=infinity", 19, "s", &c, &d), GPUCORE_OK);
    assert_true(c.gpu_size_max == GC_STORE_SIZE_INFINITY);
    assert_int_equal(c.host_size_max, 256ull << 20); /* a key not in the file stays */
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct gc_store_conf q = c;

        assert_int_equal(
                gc_store_conf_parse_all(bad[i].text, strlen(bad[i].text), "store.conf", &q, &d),
                GPUCORE_E_CORRUPT);
        if (strncmp(d.message, bad[i].message, strlen(bad[i].message)) != 0)
            fail_msg("case %zu: '%s', expected '%s...'", i, d.message, bad[i].message);
        assert_memory_equal(&q, &c, sizeof(c)); /* nothing applied from a bad file */
    }
    /* gc's parser reads a file with ingest's keys, and checks them */
    assert_int_equal(gc_store_conf_parse(good, strlen(good), "store.conf", &p, &d), GPUCORE_OK);
    assert_int_equal(p.max_use, 10ull << 30);
    assert_int_equal(gc_store_conf_parse("HostSizeMax=1K", 14, "store.conf", &p, &d),
                     GPUCORE_E_CORRUPT);
}

/* gc_store_conf_load() with --config: read, or refused with the status that says why. */
static void test_load_option(void **state)
{
    struct gc_store_conf c = { 0 };
    gpucore_diag_t d = { 0 };
    char path[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
    char *big;

    (void)state;
    write_file(at(p1, "ok.conf"), "HostSizeMax=1G\n");
    assert_int_equal(gc_store_conf_load(p1, &c, path, sizeof(path), &d), GPUCORE_OK);
    assert_string_equal(path, p1);
    assert_int_equal(c.host_size_max, 1ull << 30);

    /* a --config that does not exist is an error (a default file that does not is not) */
    assert_int_equal(gc_store_conf_load(at(p1, "none.conf"), &c, path, sizeof(path), &d),
                     GPUCORE_E_NOTFOUND);
    assert_string_equal(path, p1);
    assert_string_equal(d.message, "cannot open the configuration file: No such file or directory");

    /* a symlink is refused, not followed */
    assert_int_equal(symlink(at(p2, "ok.conf"), at(p1, "link.conf")), 0);
    assert_int_equal(gc_store_conf_load(p1, &c, path, sizeof(path), &d), GPUCORE_E_PERM);
    assert_string_equal(d.message, "cannot open the configuration file: a symlink (refused)");

    /* a FIFO nobody writes is not waited on (it reads as empty); a directory cannot be read */
    assert_int_equal(mkfifo(at(p1, "fifo.conf"), 0600), 0);
    c.host_size_max = 7;
    assert_int_equal(gc_store_conf_load(p1, &c, path, sizeof(path), &d), GPUCORE_OK);
    assert_int_equal(c.host_size_max, 7);
    assert_int_equal(gc_store_conf_load(dir, &c, path, sizeof(path), &d), GPUCORE_E_IO);
    assert_int_equal(strncmp(d.message, "cannot read: ", 13), 0);

    /* a file over the bound is read to one byte past it and refused, naming it */
    big = malloc(GC_STORE_CONF_MAX_SIZE + 2);
    assert_non_null(big);
    memset(big, '#', GC_STORE_CONF_MAX_SIZE + 1);
    big[GC_STORE_CONF_MAX_SIZE + 1] = '\0';
    write_file(at(p1, "big.conf"), big);
    free(big);
    assert_int_equal(gc_store_conf_load(p1, &c, path, sizeof(path), &d), GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, "a configuration file is at most 65536"));

    /* a path that does not fit */
    assert_int_equal(gc_store_conf_load("/x", &c, path, 2, &d), GPUCORE_E_LIMIT);
    assert_string_equal(path, "");
}

/* Without --config: root reads GC_STORE_CONF_SYSTEM; another user XDG_CONFIG_HOME's file, else
   HOME's, and no file at all when it does not exist or neither is set. */
static void test_load_default(void **state)
{
    char conf[PATH_MAX], sub[PATH_MAX];
    pid_t pid;
    int status;

    (void)state;
    if (geteuid() != 0)
        skip(); /* becomes another user to be sure not to be root */
    assert_int_equal(mkdir(at(sub, "gpucore"), 0755), 0);
    write_file(at(conf, "gpucore/store.conf"), "GpuSizeMax=64M\n");
    assert_int_equal(chmod(dir, 0755), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct gc_store_conf c = { 0 };
        gpucore_diag_t d = { 0 };
        char path[PATH_MAX];

        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        setenv("XDG_CONFIG_HOME", dir, 1);
        if (gc_store_conf_load(NULL, &c, path, sizeof(path), &d) != GPUCORE_OK ||
            strcmp(path, conf) != 0 || c.gpu_size_max != 64ull << 20)
            _exit(11);
        /* the same file named without opening it (the fleet reader's message), --config first */
        if (gc_store_conf_path(NULL, path, sizeof(path)) != 0 || strcmp(path, conf) != 0 ||
            gc_store_conf_path("x.conf", path, sizeof(path)) != 0 || strcmp(path, "x.conf") != 0 ||
            gc_store_conf_path(NULL, path, 4) != -1)
            _exit(14);
        setenv("XDG_CONFIG_HOME", "relative", 1); /* not absolute: ignored */
        setenv("HOME", "/nonexistent", 1);
        c.gpu_size_max = 0;
        if (gc_store_conf_load(NULL, &c, path, sizeof(path), &d) != GPUCORE_OK || path[0] != '\0' ||
            c.gpu_size_max != 0)
            _exit(12);
        unsetenv("XDG_CONFIG_HOME");
        unsetenv("HOME");
        if (gc_store_conf_load(NULL, &c, path, sizeof(path), &d) != GPUCORE_OK || path[0] != '\0')
            _exit(13);
        if (gc_store_conf_path(NULL, path, sizeof(path)) != 0 || path[0] != '\0')
            _exit(15);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits),
        cmocka_unit_test_setup_teardown(test_load_option, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_default, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
