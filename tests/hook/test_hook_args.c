/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of libgpucore-hook.so (capture/hook/hook_args.c): GPUCORE_OPTIONS split on
 * blanks without quoting, GPUCORE_OUTPUT passed as one argument (or not at all), the bounds,
 * the --trigger values, the gpucore lookup (GPUCORE_BIN, PATH with empty components) and
 * GPUCORE_HOOK_TIMEOUT.
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

#include "hook_args.h"

static struct gc_hook_cmd cmd;

/* The command line built, as one string with '|' between the words. */
static const char *joined(void)
{
    static char out[8192];
    size_t n = 0;

    out[0] = '\0';
    for (unsigned i = 0; i < cmd.argc; i++)
        n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", i ? "|" : "", cmd.argv[i]);
    assert_null(cmd.argv[cmd.argc]);
    return out;
}

static void builds(const char *options, const char *output, const char *want)
{
    assert_int_equal(gc_hook_build_cmd(&cmd, "/opt/gpucore", options, output,
                                       "queue-error:0x2a", 0, 7, -1, 4242), GC_HOOK_ARGS_OK);
    assert_string_equal(joined(), want);
}

static void test_split(void **state)
{
    (void)state;
    builds(NULL, NULL, "/opt/gpucore|capture|--trigger|queue-error:0x2a|--hook-timeout|7|4242");
    builds("", "", "/opt/gpucore|capture|--trigger|queue-error:0x2a|--hook-timeout|7|4242");
    builds("   \t\n ", NULL, "/opt/gpucore|capture|--trigger|queue-error:0x2a|--hook-timeout|7|4242");
    builds("--tier all", NULL,
           "/opt/gpucore|capture|--tier|all|--trigger|queue-error:0x2a|--hook-timeout|7|4242");
    builds("  --compress=5\t--max-size  1G\n--quiet ", NULL,
           "/opt/gpucore|capture|--compress=5|--max-size|1G|--quiet|--trigger|"
           "queue-error:0x2a|--hook-timeout|7|4242");
    /* No shell: quotes are ordinary characters, nothing is expanded. */
    builds("-o 'a b' $HOME", NULL,
           "/opt/gpucore|capture|-o|'a|b'|$HOME|--trigger|queue-error:0x2a|--hook-timeout|7|4242");
}

static void test_output(void **state)
{
    (void)state;
    /* One argument, spaces and % sequences as they are; after the options, so it wins. */
    builds("-o ignored", "/cores/job %j/gpucore.%p",
           "/opt/gpucore|capture|-o|ignored|-o|/cores/job %j/gpucore.%p|--trigger|"
           "queue-error:0x2a|--hook-timeout|7|4242");
    builds(NULL, "-strange", "/opt/gpucore|capture|-o|-strange|--trigger|queue-error:0x2a|--hook-timeout|7|4242");
}

static void test_bounds(void **state)
{
    char opts[GC_HOOK_MAX_OPTIONS_LEN + 2];
    size_t n = 0;

    (void)state;
    for (unsigned i = 0; i < GC_HOOK_MAX_OPTION_WORDS; i++)
        n += (size_t)snprintf(opts + n, sizeof(opts) - n, "w ");
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", opts, NULL, "t", 0, 9, -1, 1), GC_HOOK_ARGS_OK);
    assert_int_equal(cmd.argc, GC_HOOK_MAX_OPTION_WORDS + 7u);
    snprintf(opts + n, sizeof(opts) - n, "w");
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", opts, NULL, "t", 0, 9, -1, 1),
                     GC_HOOK_ARGS_TOO_MANY_WORDS);
    memset(opts, 'x', sizeof(opts) - 1);
    opts[sizeof(opts) - 1] = '\0';
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", opts, NULL, "t", 0, 9, -1, 1), GC_HOOK_ARGS_TOO_LONG);
    /* A long output pattern that does not fit the storage left. */
    {
        static char out[sizeof(cmd.buf)];

        memset(out, 'o', sizeof(out) - 1);
        assert_int_equal(gc_hook_build_cmd(&cmd, "g", NULL, out, "t", 0, 9, -1, 1),
                         GC_HOOK_ARGS_TOO_LONG);
    }
}

/* The hook's calling thread (the one the runtime reported the error on) as --error-thread,
   after --trigger; none when the tid is not positive. The largest command line still fits. */
static void test_error_thread(void **state)
{
    char opts[GC_HOOK_MAX_OPTION_WORDS * 2 + 1];
    size_t n = 0;

    (void)state;
    assert_int_equal(gc_hook_build_cmd(&cmd, "/opt/gpucore", "--tier all", "core.%p",
                                       "memory-violation@0x1000/0x1", 31337, 7, -1, 4242),
                     GC_HOOK_ARGS_OK);
    assert_string_equal(joined(), "/opt/gpucore|capture|--tier|all|-o|core.%p|--trigger|"
                                  "memory-violation@0x1000/0x1|--error-thread|31337|"
                                  "--hook-timeout|7|4242");
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", NULL, NULL, "t", -1, 9, -1, 1), GC_HOOK_ARGS_OK);
    assert_string_equal(joined(), "g|capture|--trigger|t|--hook-timeout|9|1");
    for (unsigned i = 0; i < GC_HOOK_MAX_OPTION_WORDS; i++)
        n += (size_t)snprintf(opts + n, sizeof(opts) - n, "w ");
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", opts, "out", "t", 2147483647, 9, -1, 1),
                     GC_HOOK_ARGS_OK);
    assert_int_equal(cmd.argc, GC_HOOK_MAX_OPTION_WORDS + 11u);
    assert_true(cmd.argc < GC_HOOK_ARGV_MAX);
    assert_string_equal(cmd.argv[cmd.argc - 4], "2147483647");
}

/* The hook's "ready" pipe as --hook-ready-fd, just before the PID; none when negative. The
   largest command line, with every optional argument, still fits the vector. */
static void test_ready_fd(void **state)
{
    char opts[GC_HOOK_MAX_OPTION_WORDS * 2 + 1];
    size_t n = 0;

    (void)state;
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", NULL, NULL, "t", 0, 9, GC_HOOK_READY_FD, 1),
                     GC_HOOK_ARGS_OK);
    assert_string_equal(joined(), "g|capture|--trigger|t|--hook-timeout|9|--hook-ready-fd|3|1");
    for (unsigned i = 0; i < GC_HOOK_MAX_OPTION_WORDS; i++)
        n += (size_t)snprintf(opts + n, sizeof(opts) - n, "w ");
    assert_int_equal(gc_hook_build_cmd(&cmd, "g", opts, "out", "t", 2147483647, 9, 2147483647, 1),
                     GC_HOOK_ARGS_OK);
    assert_int_equal(cmd.argc, GC_HOOK_MAX_OPTION_WORDS + 13u);
    assert_true(cmd.argc < GC_HOOK_ARGV_MAX);
    assert_string_equal(cmd.argv[cmd.argc - 2], "2147483647");
    assert_string_equal(cmd.argv[cmd.argc - 3], "--hook-ready-fd");
}

static void test_trigger(void **state)
{
    char t[GC_HOOK_TRIGGER_MAX];

    (void)state;
    gc_hook_format_memory_fault(t, sizeof(t), 0x7f39f5000040ull, 0x21);
    assert_string_equal(t, "memory-violation@0x7f39f5000040/0x21");
    gc_hook_format_queue_error(t, sizeof(t), 0x1016);
    assert_string_equal(t, "queue-error:0x1016");
    gc_hook_format_queue_error(t, sizeof(t), -1);
    assert_string_equal(t, "queue-error:0xffffffff");
}

static void test_find(void **state)
{
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char dir[512], bin[600], path[2048], out[1024];
    FILE *f;

    (void)state;
    /* GPUCORE_BIN wins, used as it is (even if it names nothing: the spawn says so). */
    assert_int_equal(gc_hook_find_program("/x/gpucore", "/usr/bin", out, sizeof(out)), 0);
    assert_string_equal(out, "/x/gpucore");
    assert_int_equal(gc_hook_find_program("/x/gpucore", NULL, out, 4), -1);
    /* PATH: the first directory with an executable gpucore. */
    snprintf(dir, sizeof(dir), "%s/hook-find-%ld", tmp ? tmp : "/tmp", (long)getpid());
    mkdir(dir, 0700);
    snprintf(bin, sizeof(bin), "%s/gpucore", dir);
    f = fopen(bin, "w");
    assert_non_null(f);
    fclose(f);
    chmod(bin, 0600); /* not executable: skipped */
    snprintf(path, sizeof(path), "/no/such/dir:%s", dir);
    assert_int_equal(gc_hook_find_program(NULL, path, out, sizeof(out)), -1);
    chmod(bin, 0700);
    assert_int_equal(gc_hook_find_program("", path, out, sizeof(out)), 0);
    assert_string_equal(out, bin);
    assert_int_equal(gc_hook_find_program(NULL, NULL, out, sizeof(out)), -1);
    assert_int_equal(gc_hook_find_program(NULL, "", out, sizeof(out)), -1);
    /* Empty components (leading, inner, trailing) are the current directory. */
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(gc_hook_find_program(NULL, "/no/such/dir:", out, sizeof(out)), 0);
    assert_string_equal(out, "gpucore");
    assert_int_equal(gc_hook_find_program(NULL, ":/no/such/dir", out, sizeof(out)), 0);
    assert_int_equal(gc_hook_find_program(NULL, "/no/such::/dir", out, sizeof(out)), 0);
    assert_int_equal(chdir("/"), 0);
    assert_int_equal(gc_hook_find_program(NULL, "/no/such/dir:", out, sizeof(out)), -1);
    unlink(bin);
    rmdir(dir);
}

static void test_timeout(void **state)
{
    (void)state;
    assert_int_equal(gc_hook_parse_timeout(NULL), GC_HOOK_TIMEOUT_S);
    assert_int_equal(gc_hook_parse_timeout(""), GC_HOOK_TIMEOUT_S);
    assert_int_equal(gc_hook_parse_timeout("1"), 1);
    assert_int_equal(gc_hook_parse_timeout("86400"), 86400);
    assert_int_equal(gc_hook_parse_timeout("86401"), -1);
    assert_int_equal(gc_hook_parse_timeout("0"), -1);
    assert_int_equal(gc_hook_parse_timeout("-5"), -1);
    assert_int_equal(gc_hook_parse_timeout("10s"), -1);
    assert_int_equal(gc_hook_parse_timeout("99999999999999999999"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),   cmocka_unit_test(test_output),
        cmocka_unit_test(test_bounds),  cmocka_unit_test(test_error_thread),
        cmocka_unit_test(test_ready_fd),
        cmocka_unit_test(test_trigger),
        cmocka_unit_test(test_find),    cmocka_unit_test(test_timeout),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
