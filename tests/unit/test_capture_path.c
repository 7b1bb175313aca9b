/* SPDX-License-Identifier: MIT */
/*
 * Output patterns of `gpucore capture -o` (capture/capture_path.c): every sequence, the words of
 * unset values, '/', control characters and length in values, unknown sequences with their
 * offset, the length limit, and the variables filled from real processes: %e past the kernel's
 * 15-byte comm from each source, %j and %r from each variable in order, and the fallback to
 * gpucore's environment.
 */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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
    assert_int_equal(gc_capture_expand_path("c.%j.%r.%p", &v, out, sizeof(out), NULL),
                     GPUCORE_OK);
    assert_string_equal(out, "c.nojob.norank.4242"); /* unset values say so */
    v.exe = NULL;
    v.hostname = "";
    assert_int_equal(gc_capture_expand_path("%e@%h", &v, out, sizeof(out), NULL), GPUCORE_OK);
    assert_string_equal(out, "unknown@unknown");
}

/* Control characters of a value (a comm, a job id set by a hostile environment) become '!':
   no newline or escape sequence in a file name. */
static void test_control_characters(void **state)
{
    struct gc_capture_vars v = vars;
    char out[64];

    (void)state;
    v.exe = "a\nb\tc\x7f\x01";
    v.job_id = "1\x1b[2J";
    v.rank = "\xc3\xa9"; /* UTF-8 is not a control character: kept */
    assert_int_equal(gc_capture_expand_path("%e.%j.%r", &v, out, sizeof(out), NULL), GPUCORE_OK);
    assert_string_equal(out, "a!b!c!!.1![2J.\xc3\xa9");
}

/* At most GC_CAPTURE_VALUE_MAX bytes of a value are used; literal text is not cut. */
static void test_value_bound(void **state)
{
    struct gc_capture_vars v = vars;
    char big[GC_CAPTURE_VALUE_MAX + 100], out[2 * GC_CAPTURE_VALUE_MAX + 32];

    (void)state;
    memset(big, '7', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    v.job_id = big;
    assert_int_equal(gc_capture_expand_path("j%j.", &v, out, sizeof(out), NULL), GPUCORE_OK);
    assert_int_equal(strlen(out), 1 + GC_CAPTURE_VALUE_MAX + 1);
    assert_int_equal(out[GC_CAPTURE_VALUE_MAX], '7');
    assert_string_equal(out + 1 + GC_CAPTURE_VALUE_MAX, ".");
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
        { "", "", "x", "h", "out/nojob/norank/core.x" },
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
    /* The word of an unset value counts against the length limit. */
    {
        struct gc_capture_vars v = vars;

        v.job_id = "";
        assert_int_equal(gc_capture_expand_path("abc%j", &v, out, 8, NULL), GPUCORE_E_LIMIT);
        assert_int_equal(gc_capture_expand_path("abc%j", &v, out, 9, NULL), GPUCORE_OK);
        assert_string_equal(out, "abcnojob");
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

static const char *const job_names[] = { "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID",
                                         "FLUX_JOB_ID" };
static const char *const rank_names[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                          "MV2_COMM_WORLD_RANK", "PALS_RANKID", "FLUX_TASK_RANK",
                                          "SLURM_PROCID" };

/* None of the job and rank variables in this process's environment. */
static void unset_job_rank(void)
{
    for (size_t i = 0; i < sizeof(job_names) / sizeof(job_names[0]); i++)
        unsetenv(job_names[i]);
    for (size_t i = 0; i < sizeof(rank_names) / sizeof(rank_names[0]); i++)
        unsetenv(rank_names[i]);
}

/*
 * Start @p path with @p argv and @p envp and return once it has executed it (the close of an
 * O_CLOEXEC pipe says so: no polling). The process stays until end_target().
 */
/*
 * The close-on-exec pipe reaches EOF inside execve, before the kernel has laid out the new
 * program's stack: until then /proc/PID/environ reads as empty. Wait (at most 10 s) until it
 * holds the environment the test passed.
 */
static void wait_environ(pid_t pid)
{
    char path[64], buf[16];

    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    for (int tries = 0; tries < 10000; tries++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        assert_true(fd >= 0);
        n = read(fd, buf, sizeof(buf));
        close(fd);
        if (n > 0)
            return;
        usleep(1000);
    }
    fail_msg("%s stayed empty", path);
}

static pid_t start_target(const char *path, char *const argv[], char *const envp[])
{
    int fds[2];
    char c;
    pid_t pid;

    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        execve(path, argv, envp);
        (void)!write(fds[1], "x", 1);
        _exit(127);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &c, 1), 0); /* EOF: exec'd */
    close(fds[0]);
    if (envp[0])
        wait_environ(pid);
    return pid;
}

static void end_target(pid_t pid)
{
    int status;

    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
}

/* A fresh directory under the test's temporary directory. */
static void temp_dir(char *dir, size_t cap)
{
    const char *base = getenv("GPUCORE_TEST_TMPDIR");

    snprintf(dir, cap, "%s/capture_path.XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(dir));
}

/* Copy the executable @p from to @p to (mode 0755). */
static void copy_file(const char *from, const char *to)
{
    char buf[8192];
    int in = open(from, O_RDONLY | O_CLOEXEC), out;
    ssize_t n;

    assert_true(in >= 0);
    out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    assert_true(out >= 0);
    while ((n = read(in, buf, sizeof(buf))) > 0)
        assert_int_equal(write(out, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    close(in);
    close(out);
}

static void test_vars_fill(void **state)
{
    struct gc_capture_vars v;
    char storage[GC_CAPTURE_VARS_STORAGE], self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    (void)state;
    assert_true(n > 0);
    self[n] = '\0';
    unset_job_rank();
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("OMPI_COMM_WORLD_RANK", "5", 1);
    gc_capture_vars_fill(&v, getpid(), storage, sizeof(storage));
    assert_int_equal(v.pid, getpid());
    /* "test_capture_path": 17 bytes, the comm is "test_capture_pa" */
    assert_string_equal(v.exe, strrchr(self, '/') + 1);
    assert_true(strlen(v.exe) > 15);
    assert_string_equal(v.job_id, "77");
    assert_string_equal(v.rank, "5");
    assert_true(v.time_s > 1600000000);
    assert_true(strlen(v.hostname) > 0);
    /* No storage: every string is "" rather than NULL. */
    gc_capture_vars_fill(&v, getpid(), NULL, 0);
    assert_string_equal(v.exe, "");
    assert_string_equal(v.hostname, "");
    /* Too little storage: a value that does not fit is unset, never cut. */
    gc_capture_vars_fill(&v, getpid(), storage, 4);
    assert_string_equal(v.exe, "");
    unset_job_rank();
}

/* The target's own job and rank win over gpucore's environment. */
static void test_vars_from_target(void **state)
{
    struct gc_capture_vars v;
    char storage[GC_CAPTURE_VARS_STORAGE];
    char a0[] = "sleep", a1[] = "10", e0[] = "SLURM_JOB_ID=4242", e1[] = "PMI_RANK=17";
    char *const argv[] = { a0, a1, NULL };
    char *const envp[] = { e0, e1, NULL };
    pid_t child;

    (void)state;
    unset_job_rank();
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_PROCID", "5", 1);
    child = start_target("/bin/sleep", argv, envp);
    gc_capture_vars_fill(&v, child, storage, sizeof(storage));
    assert_string_equal(v.exe, "sleep");
    assert_string_equal(v.job_id, "4242");
    assert_string_equal(v.rank, "17");
    end_target(child);
    unset_job_rank();
}

/*
 * %j and %r: each variable, in its place in the order; empty values are skipped; a variable of
 * the target's environment wins over every one of gpucore's; gpucore's is the fallback.
 */
static void test_job_rank_order(void **state)
{
    static const struct {
        const char *target[3]; /* the target's environment */
        const char *own;       /* NAME=VALUE in gpucore's, or NULL */
        const char *job, *rank;
    } cases[] = {
        { { "SLURM_JOB_ID=1", "PBS_JOBID=2" }, NULL, "1", "" },
        { { "PBS_JOBID=2.pbs01", "LSB_JOBID=3" }, NULL, "2.pbs01", "" },
        { { "LSB_JOBID=3", "FLUX_JOB_ID=f4" }, NULL, "3", "" },
        { { "FLUX_JOB_ID=\xc6\x92" "ABC" }, NULL, "\xc6\x92" "ABC", "" },
        { { "SLURM_JOB_ID=", "PBS_JOBID=9" }, NULL, "9", "" }, /* empty: skipped */
        { { "SLURM_PROCID=0", "OMPI_COMM_WORLD_RANK=5" }, NULL, "", "5" },
        { { "SLURM_PROCID=0", "PMIX_RANK=3", "PMI_RANK=8" }, NULL, "", "3" },
        { { "PMI_RANK=2", "MV2_COMM_WORLD_RANK=9" }, NULL, "", "2" },
        { { "MV2_COMM_WORLD_RANK=9", "PALS_RANKID=4" }, NULL, "", "9" },
        { { "PALS_RANKID=4", "FLUX_TASK_RANK=6" }, NULL, "", "4" },
        { { "FLUX_TASK_RANK=6", "SLURM_PROCID=1" }, NULL, "", "6" },
        { { "SLURM_PROCID=1" }, NULL, "", "1" },
        { { "PMIX_RANK=", "PMI_RANK=7" }, NULL, "", "7" },
        { { "HOME=/" }, NULL, "", "" },
        { { "HOME=/" }, "PBS_JOBID=55", "55", "" },         /* gpucore's, as a fallback */
        { { "HOME=/" }, "SLURM_PROCID=12", "", "12" },
        { { "LSB_JOBID=3" }, "SLURM_JOB_ID=1", "3", "" },    /* the target's wins */
        { { "SLURM_PROCID=2" }, "OMPI_COMM_WORLD_RANK=1", "", "2" },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gc_capture_vars v;
        char storage[GC_CAPTURE_VARS_STORAGE], env[3][64], own[64], out[256];
        char a0[] = "sleep", a1[] = "10";
        char *const argv[] = { a0, a1, NULL };
        char *envp[4] = { NULL };
        pid_t child;

        for (size_t k = 0; k < 3 && cases[i].target[k]; k++) {
            snprintf(env[k], sizeof(env[k]), "%s", cases[i].target[k]);
            envp[k] = env[k];
        }
        unset_job_rank();
        if (cases[i].own) {
            snprintf(own, sizeof(own), "%s", cases[i].own);
            *strchr(own, '=') = '\0';
            setenv(own, own + strlen(own) + 1, 1);
        }
        child = start_target("/bin/sleep", argv, envp);
        gc_capture_vars_fill(&v, child, storage, sizeof(storage));
        end_target(child);
        assert_string_equal(v.job_id, cases[i].job);
        assert_string_equal(v.rank, cases[i].rank);
        assert_int_equal(gc_capture_expand_path("%j.%r", &v, out, sizeof(out), NULL), GPUCORE_OK);
        if (!*cases[i].job)
            assert_non_null(strstr(out, "nojob."));
        if (!*cases[i].rank)
            assert_non_null(strstr(out, ".norank"));
    }
    unset_job_rank();
}

/* A hostile environment: a job id longer than GC_CAPTURE_VALUE_MAX, a rank with '/', ".." and
   control characters. The file name stays one component, short, printable. */
static void test_hostile_environment(void **state)
{
    struct gc_capture_vars v;
    char storage[GC_CAPTURE_VARS_STORAGE], out[1024];
    char job[GC_CAPTURE_VALUE_MAX + 200], rank[] = "PMI_RANK=../../\x1b[31m\n";
    char a0[] = "sleep", a1[] = "10";
    char *const argv[] = { a0, a1, NULL };
    char *envp[] = { job, rank, NULL };
    pid_t child;

    (void)state;
    unset_job_rank();
    memcpy(job, "SLURM_JOB_ID=", 13);
    memset(job + 13, 'j', sizeof(job) - 14);
    job[sizeof(job) - 1] = '\0';
    child = start_target("/bin/sleep", argv, envp);
    gc_capture_vars_fill(&v, child, storage, sizeof(storage));
    end_target(child);
    assert_int_equal(strlen(v.job_id), GC_CAPTURE_VALUE_MAX);
    assert_int_equal(gc_capture_expand_path("%j", &v, out, sizeof(out), NULL), GPUCORE_OK);
    assert_int_equal(strlen(out), GC_CAPTURE_VALUE_MAX);
    assert_int_equal(gc_capture_expand_path("%r", &v, out, sizeof(out), NULL), GPUCORE_OK);
    assert_string_equal(out, "..!..!![31m!");
}

/* %e of a process whose comm is @p want cut to 15 bytes must be @p want. */
static void expect_exe(pid_t pid, const char *want)
{
    struct gc_capture_vars v;
    char storage[GC_CAPTURE_VARS_STORAGE];

    gc_capture_vars_fill(&v, pid, storage, sizeof(storage));
    assert_string_equal(v.exe, want);
}

/*
 * %e past the kernel's 15-byte comm, from each source: /proc/PID/exe (argv[0] says something
 * else), the same after the file was removed (" (deleted)"), argv[0] (a symbolic link, so exe
 * is the link's target), argv[1] (a "#!" script, exe is the interpreter); a process that
 * renamed itself keeps its comm; a process that is not there is "unknown".
 */
static void test_exe_name(void **state)
{
    char dir[PATH_MAX], path[PATH_MAX + 64], link[PATH_MAX + 64], script[PATH_MAX + 64];
    char x[] = "x", ten[] = "10";
    char *envp[] = { NULL };
    pid_t child;

    (void)state;
    temp_dir(dir, sizeof(dir));
    /* exe: a copy of sleep under a long name, started as "x" */
    snprintf(path, sizeof(path), "%s/a_long_executable_name_for_e", dir);
    copy_file("/bin/sleep", path);
    {
        char *const argv[] = { x, ten, NULL };

        child = start_target(path, argv, envp);
        expect_exe(child, "a_long_executable_name_for_e");
        /* removed while it runs: the kernel's " (deleted)" is not part of the name */
        assert_int_equal(unlink(path), 0);
        expect_exe(child, "a_long_executable_name_for_e");
        end_target(child);
    }
    /* argv[0]: a symbolic link; /proc/PID/exe is sleep itself */
    snprintf(link, sizeof(link), "%s/another_long_link_name_to_sleep", dir);
    assert_int_equal(symlink("/bin/sleep", link), 0);
    {
        char *const argv[] = { link, ten, NULL };

        child = start_target(link, argv, envp);
        expect_exe(child, "another_long_link_name_to_sleep");
        end_target(child);
    }
    /* argv[1]: a script; /proc/PID/exe is the shell, argv[0] "/bin/sh" */
    snprintf(script, sizeof(script), "%s/a_long_script_name_here.sh", dir);
    {
        FILE *f = fopen(script, "w");
        char *const argv[] = { script, NULL };

        assert_non_null(f);
        fputs("#!/bin/sh\nsleep 10\n:\n", f);
        fclose(f);
        assert_int_equal(chmod(script, 0755), 0);
        child = start_target(script, argv, envp);
        expect_exe(child, "a_long_script_name_here.sh");
        end_target(child);
    }
    /* renamed: a 15-byte comm no source starts with, and a short one */
    for (int k = 0; k < 2; k++) {
        static const char *const names[] = { "fifteen_bytes_x", "short" };
        int fds[2];
        char c;

        assert_int_equal(pipe(fds), 0);
        child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            prctl(PR_SET_NAME, names[k], 0, 0, 0);
            (void)!write(fds[1], "r", 1);
            pause();
            _exit(0);
        }
        close(fds[1]);
        assert_int_equal(read(fds[0], &c, 1), 1);
        close(fds[0]);
        expect_exe(child, names[k]);
        end_target(child);
    }
    /* not there: no pid is above PID_MAX_LIMIT (2^22) */
    {
        struct gc_capture_vars v;
        char storage[GC_CAPTURE_VARS_STORAGE], out[64];

        gc_capture_vars_fill(&v, (pid_t)0x7fffffff, storage, sizeof(storage));
        assert_string_equal(v.exe, "");
        assert_int_equal(gc_capture_expand_path("core.%e", &v, out, sizeof(out), NULL),
                         GPUCORE_OK);
        assert_string_equal(out, "core.unknown");
    }
    unlink(script);
    unlink(link);
    rmdir(dir);
}

/* A taken name becomes NAME.1, NAME.2, ...; ".zst" stays last for a compressed core (but a file
   named only ".zst" keeps it as its name); a name that would not fit is refused. */
static void test_numbered_name(void **state)
{
    static const struct {
        const char *path;
        uint32_t n;
        int compressed;
        const char *want;
    } cases[] = {
        { "core.42", 0, 0, "core.42" },
        { "core.42", 1, 0, "core.42.1" },
        { "out/core", 2, 0, "out/core.2" },
        { "out/core.zst", 3, 1, "out/core.3.zst" },
        { "out/core.zst", 3, 0, "out/core.zst.3" },
        { "out/.zst", 1, 1, "out/.zst.1" },
        { "a.zst/core", 1, 1, "a.zst/core.1" },
        { "core", 999, 0, "core.999" },
    };
    char out[32];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(gc_capture_numbered_name(cases[i].path, cases[i].n, cases[i].compressed,
                                                  out, sizeof(out), NULL),
                         GPUCORE_OK);
        assert_string_equal(out, cases[i].want);
    }
    assert_int_equal(gc_capture_numbered_name("core", 1, 0, out, 6, NULL), GPUCORE_E_LIMIT);
    assert_int_equal(gc_capture_numbered_name("core", 1, 0, out, 7, NULL), GPUCORE_OK);
    assert_string_equal(out, "core.1");
    assert_int_equal(gc_capture_numbered_name(NULL, 1, 0, out, sizeof(out), NULL),
                     GPUCORE_E_INVAL);
}

/* Every directory above the file is made, from the top; one that is a file is refused. */
static void test_make_dirs(void **state)
{
    char top[] = "/tmp/gpucore-make-dirs-XXXXXX", path[PATH_MAX], file[PATH_MAX];
    struct stat sb;
    int fd;

    (void)state;
    assert_non_null(mkdtemp(top));
    snprintf(path, sizeof(path), "%s/a//b/c/core.1", top);
    assert_int_equal(gc_capture_make_dirs(path, NULL), GPUCORE_OK);
    snprintf(file, sizeof(file), "%s/a/b/c", top);
    assert_int_equal(stat(file, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    /* again: everything exists */
    assert_int_equal(gc_capture_make_dirs(path, NULL), GPUCORE_OK);
    /* a file where a directory should be */
    snprintf(file, sizeof(file), "%s/f", top);
    fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    snprintf(path, sizeof(path), "%s/f/core", top);
    assert_int_equal(gc_capture_make_dirs(path, NULL), GPUCORE_E_CANTCREAT);
    /* a bare name has no directory to make */
    assert_int_equal(gc_capture_make_dirs("core", NULL), GPUCORE_OK);
    unlink(file);
    snprintf(path, sizeof(path), "%s/a/b/c", top);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/a/b", top);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/a", top);
    rmdir(path);
    assert_int_equal(rmdir(top), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequences),         cmocka_unit_test(test_empty_values),
        cmocka_unit_test(test_control_characters), cmocka_unit_test(test_value_bound),
        cmocka_unit_test(test_traversal_escaped),
        cmocka_unit_test(test_unknown_sequence),  cmocka_unit_test(test_limit),
        cmocka_unit_test(test_vars_fill),         cmocka_unit_test(test_vars_from_target),
        cmocka_unit_test(test_job_rank_order),    cmocka_unit_test(test_hostile_environment),
        cmocka_unit_test(test_exe_name),          cmocka_unit_test(test_numbered_name),
        cmocka_unit_test(test_make_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
