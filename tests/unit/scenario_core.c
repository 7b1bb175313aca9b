/* SPDX-License-Identifier: MIT */
/* Test helper: cores of scenarios captured from gpucore-inferior (scenario_core.h). */
#include "scenario_core.h"

#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static pid_t child;

const char *tsc_env(const char *name)
{
    const char *v = getenv(name);

    if (!v)
        fail_msg("environment variable %s is not set", name);
    return v;
}

void *tsc_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *buf;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

int tsc_ptrace_permitted(void)
{
    FILE *f;
    int scope = 0;

    if (geteuid() == 0)
        return 1;
    f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    if (!f)
        return 1;
    if (fscanf(f, "%d", &scope) != 1)
        scope = 0;
    fclose(f);
    return scope == 0;
}

int tsc_kill_child(void **state)
{
    int status;

    (void)state;
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    child = 0;
    return 0;
}

/* The "continue" variant of a scenario (the runtime carries on after a GPU error), with
   r_version set to @p r_version unless 0. */
static void variant(const char *name, const char *path, uint32_t r_version)
{
    static const char old[] = "\"on_queue_error\": \"abort\"";
    char src[4096];
    size_t len;
    char *text, *at, *rv;
    FILE *f;

    snprintf(src, sizeof(src), "%s/%s.json", tsc_env("GPUCORE_SCENARIO_DIR"), name);
    text = tsc_read_file(src, &len);
    if (!text)
        fail_msg("cannot read %s", src);
    f = fopen(path, "w");
    assert_non_null(f);
    at = strstr(text, old);
    rv = strstr(text, "\"r_version\":");
    for (char *p = text; *p; p++) {
        if (p == at) {
            fputs("\"on_queue_error\": \"continue\"", f);
            p += strlen(old) - 1;
        } else if (r_version && p == rv) {
            fprintf(f, "\"r_version\": %u", r_version);
            p += strlen("\"r_version\":");
            while (*p == ' ' || (*p >= '0' && *p <= '9'))
                p++;
            p--;
        } else {
            fputc(*p, f);
            if (r_version && !rv && *p == '{') { /* the default (10) was implied: say it */
                fprintf(f, " \"r_version\": %u,", r_version);
                rv = p;
            }
        }
    }
    fclose(f);
    free(text);
}

pid_t tsc_start_inferior(const char *scen, const char *desc)
{
    const char *exe = tsc_env("GPUCORE_INFERIOR");
    int out[2];
    char line[256];
    long rpid = 0;
    pid_t pid;
    FILE *f;

    assert_int_equal(pipe(out), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        execl(exe, exe, scen, "--objects", tsc_env("GPUCORE_SCENARIO_OBJECTS"), "--describe",
              desc, (char *)NULL);
        _exit(127);
    }
    child = pid;
    close(out[1]);
    f = fdopen(out[0], "r");
    assert_non_null(f);
    if (!fgets(line, sizeof(line), f))
        fail_msg("gpucore-inferior %s did not become ready", scen);
    fclose(f);
    assert_int_equal(sscanf(line, "gpucore-inferior: pid %ld ready", &rpid), 1);
    assert_int_equal(rpid, pid);
    return pid;
}

void tsc_stop_inferior(pid_t pid)
{
    int status = 0;

    kill(pid, SIGTERM);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    child = 0;
}

int tsc_capture(pid_t pid, const char *core, const char *extra1, const char *extra2)
{
    const char *cli = tsc_env("GPUCORE_CLI");
    char spid[32], log[4200];
    const char *argv[12];
    int n = 0, status = 0;
    pid_t c;

    snprintf(spid, sizeof(spid), "%ld", (long)pid);
    snprintf(log, sizeof(log), "%s.log", core);
    argv[n++] = cli;
    argv[n++] = "capture";
    argv[n++] = "--kfd";
    argv[n++] = "sim";
    if (extra1)
        argv[n++] = extra1;
    if (extra2)
        argv[n++] = extra2;
    argv[n++] = spid;
    argv[n++] = "-o";
    argv[n++] = core;
    argv[n] = NULL;
    unlink(core);
    c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        if (!freopen(log, "w", stderr))
            _exit(126);
        dup2(2, 1);
        execv(cli, (char *const *)argv);
        _exit(127);
    }
    assert_int_equal(waitpid(c, &status, 0), c);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void tsc_parse_describe(struct tsc_case *c)
{
    const struct gc_scenario *s = c->s;
    struct tsc_addrs *a = &c->a;
    FILE *f = fopen(c->desc, "r");
    char line[640];

    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        unsigned i;
        uint64_t v1, v2, v3, v4, v5;
        uint32_t sz, nx;

        if (sscanf(line,
                   "dispatch %u packet 0x%" SCNx64 " kernel_object 0x%" SCNx64 " entry 0x%" SCNx64,
                   &i, &v1, &v2, &v3) == 4 &&
            i < s->ndispatches) {
            a->kd[i] = v2;
            a->entry[i] = v3;
        } else if (sscanf(line, "buffer %u 0x%" SCNx64, &i, &v1) == 2 && i < s->nbuffers) {
            a->buffer[i] = v1;
        } else if (sscanf(line, "code_object %u load 0x%" SCNx64, &i, &v1) == 2 &&
                   i < s->ncode_objects) {
            a->co_load[i] = v1;
        } else if (sscanf(line,
                          "queue %u ring 0x%" SCNx64 " ring_size %" SCNu64 " amd_queue 0x%" SCNx64
                          " cwsr 0x%" SCNx64 " cwsr_size %u num_xcc %u scratch 0x%" SCNx64,
                          &i, &v1, &v2, &v3, &v4, &sz, &nx, &v5) == 8 &&
                   i < s->nqueues) {
            a->ring[i] = v1;
            a->ring_size[i] = v2;
            a->scratch[i] = v5;
        }
    }
    fclose(f);
}

void tsc_prepare_case(struct tsc_case *c, const char *tag, const char *name, uint32_t r_version)
{
    const char *tmp = tsc_env("GPUCORE_TEST_TMPDIR");
    gpucore_diag_t d = { 0 };

    memset(c, 0, sizeof(*c));
    snprintf(c->scen, sizeof(c->scen), "%s/%s-%s-r%u.%ld.json", tmp, tag, name, r_version,
             (long)getpid());
    snprintf(c->desc, sizeof(c->desc), "%s.describe", c->scen);
    snprintf(c->core, sizeof(c->core), "%s.core", c->scen);
    variant(name, c->scen, r_version);
    if (gc_scenario_load(c->scen, &c->s, &d))
        fail_msg("%s", d.message);
}

void tsc_capture_case(struct tsc_case *c, const char *tag, const char *name, uint32_t r_version,
                      const char *opt1, const char *opt2)
{
    pid_t pid;
    int rc;

    tsc_prepare_case(c, tag, name, r_version);
    pid = tsc_start_inferior(c->scen, c->desc);
    rc = tsc_capture(pid, c->core, opt1, opt2);
    if (rc != 0) {
        char log[4300];
        size_t len = 0;
        char *text;

        snprintf(log, sizeof(log), "%s.log", c->core);
        text = tsc_read_file(log, &len);
        fail_msg("gpucore capture of %s exited %d: %.*s", name, rc, (int)len, text ? text : "");
    }
    tsc_parse_describe(c);
    tsc_stop_inferior(pid);
}

void tsc_case_done(struct tsc_case *c)
{
    char log[4300];

    snprintf(log, sizeof(log), "%s.log", c->core);
    unlink(c->core);
    unlink(log);
    unlink(c->desc);
    unlink(c->scen);
    gc_scenario_free(c->s);
    c->s = NULL;
}
