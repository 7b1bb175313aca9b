/* SPDX-License-Identifier: MIT */
/*
 * Output patterns of `gpucore capture -o` (capture/capture_path.c): every sequence, '/' in
 * values, unknown sequences with their offset, the length limit, and the variables filled
 * from a real process (this one) and the environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

static const struct gc_capture_vars vars = {
    .pid = 4242, .hostname = "node/7", .time_s = 1767225600, .exe = "vadd",
    .job_id = "991", .rank = "3",
};

static void expands(const char *pattern, const char *want)
{
    char out[256];
    gpucore_diag_t d = { 0 };

    assert_int_equal(gc_capture_expand_path(pattern, &vars, out, sizeof(out), &d), GPUCORE_OK);
    assert_string_equal(out, want);
}

static void test_sequences(void **state)
{
    (void)state;
    expands("gpucore.%p", "gpucore.4242");
    expands("core.%e.%p.%t", "core.vadd.4242.1767225600");
    expands("/tmp/%j/rank%r-%h", "/tmp/991/rank3-node!7"); /* '/' of a value becomes '!' */
    expands("100%%.core", "100%.core");
    expands("plain", "plain");
}

static void test_empty_values(void **state)
{
    struct gc_capture_vars v = vars;
    char out[64];

    (void)state;
    v.job_id = "";
    v.rank = NULL;
    assert_int_equal(gc_capture_expand_path("c%j%r.%p", &v, out, sizeof(out), NULL), GPUCORE_OK);
    assert_string_equal(out, "c!!.4242"); /* unset values say so, as the kernel's "!" */
}

/*
 * A value of ".", ".." or "" (SLURM_JOB_ID=.. in a hostile environment) must not turn a
 * pattern component into a directory reference or an empty component: "%j/%r/core" would
 * otherwise write one directory up or into the pattern's parent.
 */
static void test_traversal_escaped(void **state)
{
    static const struct {
        const char *job, *rank, *exe, *host, *want;
    } cases[] = {
        { "..", ".", "x", "h", "out/!./!/core.x" },
        { "", "", "x", "h", "out/!/!/core.x" },
        { "../../etc", "/", "x", "h", "out/..!..!etc/!/core.x" },
        { "...", "a.", ".x", ".", "out/.../a./core..x" },
        { ".", "..", "..", "..", "out/!/!./core.!." },
    };
    char out[128];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gc_capture_vars v = vars;

        v.job_id = cases[i].job;
        v.rank = cases[i].rank;
        v.exe = cases[i].exe;
        v.hostname = cases[i].host;
        assert_int_equal(gc_capture_expand_path("out/%j/%r/core.%e", &v, out, sizeof(out), NULL),
                         GPUCORE_OK);
        assert_string_equal(out, cases[i].want);
    }
    /* %h alone as a component, "." and "..": never "." or "..". */
    {
        struct gc_capture_vars v = vars;

        v.hostname = "..";
        assert_int_equal(gc_capture_expand_path("%h/c", &v, out, sizeof(out), NULL), GPUCORE_OK);
        assert_string_equal(out, "!./c");
        v.hostname = ".";
        assert_int_equal(gc_capture_expand_path("%h/c", &v, out, sizeof(out), NULL), GPUCORE_OK);
        assert_string_equal(out, "!/c");
    }
    /* The escape "!" of an empty value counts against the length limit. */
    {
        struct gc_capture_vars v = vars;

        v.job_id = "";
        assert_int_equal(gc_capture_expand_path("abc%j", &v, out, 4, NULL), GPUCORE_E_LIMIT);
        assert_int_equal(gc_capture_expand_path("abc%j", &v, out, 5, NULL), GPUCORE_OK);
        assert_string_equal(out, "abc!");
    }
}

static void test_unknown_sequence(void **state)
{
    char out[64];
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_capture_expand_path("core.%q", &vars, out, sizeof(out), &d),
                     GPUCORE_E_INVAL);
    assert_non_null(strstr(d.message, "%q"));
    assert_non_null(strstr(d.message, "offset 5"));
    /* A trailing lone % is unknown too. */
    assert_int_equal(gc_capture_expand_path("core%", &vars, out, sizeof(out), &d),
                     GPUCORE_E_INVAL);
    assert_int_equal(gc_capture_expand_path("", &vars, out, sizeof(out), &d), GPUCORE_E_INVAL);
}

static void test_limit(void **state)
{
    char out[13];
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_capture_expand_path("gpucore.%p", &vars, out, 12, &d),
                     GPUCORE_E_LIMIT); /* 12 characters + NUL do not fit in 12 */
    assert_int_equal(gc_capture_expand_path("gpucore.%p", &vars, out, sizeof(out), &d),
                     GPUCORE_OK);
    assert_string_equal(out, "gpucore.4242");
    assert_int_equal(gc_capture_expand_path("abcdefghijklm", &vars, out, sizeof(out), &d),
                     GPUCORE_E_LIMIT);
}

static void test_vars_fill(void **state)
{
    struct gc_capture_vars v;
    char storage[256], comm[64] = "";
    FILE *f = fopen("/proc/self/comm", "r");

    (void)state;
    assert_non_null(f);
    assert_non_null(fgets(comm, sizeof(comm), f));
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    setenv("SLURM_JOB_ID", "77", 1);
    unsetenv("SLURM_PROCID");
    setenv("OMPI_COMM_WORLD_RANK", "5", 1);
    gc_capture_vars_fill(&v, getpid(), storage, sizeof(storage));
    assert_int_equal(v.pid, getpid());
    assert_string_equal(v.exe, comm);
    assert_string_equal(v.job_id, "77");
    assert_string_equal(v.rank, "5");
    assert_true(v.time_s > 1600000000);
    assert_true(strlen(v.hostname) > 0);
    /* No storage: every string is "" rather than NULL. */
    gc_capture_vars_fill(&v, getpid(), NULL, 0);
    assert_string_equal(v.exe, "");
    assert_string_equal(v.hostname, "");
}

/* The target's own job and rank win over gpucore's environment. */
static void test_vars_from_target(void **state)
{
    struct gc_capture_vars v;
    char storage[256];
    char a0[] = "sleep", a1[] = "10", e0[] = "SLURM_JOB_ID=4242", e1[] = "PMI_RANK=17";
    char *const argv[] = { a0, a1, NULL };
    char *const envp[] = { e0, e1, NULL };
    pid_t child;
    int status;

    (void)state;
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_PROCID", "5", 1);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        execve("/bin/sleep", argv, envp);
        _exit(127);
    }
    /* Wait until the child has exec'd (its environ is the new one). */
    for (int i = 0; i < 200; i++) {
        char comm[64] = "";
        char path[64];
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%ld/comm", (long)child);
        f = fopen(path, "r");
        if (f) {
            if (!fgets(comm, sizeof(comm), f))
                comm[0] = '\0';
            fclose(f);
        }
        if (strncmp(comm, "sleep", 5) == 0)
            break;
        usleep(10000);
    }
    gc_capture_vars_fill(&v, child, storage, sizeof(storage));
    assert_string_equal(v.exe, "sleep");
    assert_string_equal(v.job_id, "4242");
    assert_string_equal(v.rank, "17");
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequences),     cmocka_unit_test(test_empty_values),
        cmocka_unit_test(test_traversal_escaped),
        cmocka_unit_test(test_unknown_sequence), cmocka_unit_test(test_limit),
        cmocka_unit_test(test_vars_fill),
        cmocka_unit_test(test_vars_from_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
