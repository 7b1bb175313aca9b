/* SPDX-License-Identifier: MIT */
/*
 * Output patterns (-o): core(5)'s %p %h %t %e %% plus %j (SLURM job) and %r (MPI rank), and the
 * variables they take from the target process and the environment.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "gc_util.h"

/*
 * Append the value of one pattern token to out, escaped as the kernel's cn_esc_printf()
 * escapes core_pattern values, so that no value can move the file to another directory:
 * every '/' becomes '!', a value of exactly "." or ".." has its first '.' made '!', and an
 * empty (or unset) value becomes "!". Literal text (%% included) is copied unchanged.
 * 0, or -1 when it does not fit in cap (NUL included).
 */
static int put_value(char *out, size_t cap, size_t *len, const char *s, int escape)
{
    size_t start = *len;

    if (!s)
        s = "";
    for (; *s; s++) {
        if (*len + 1 >= cap)
            return -1;
        out[(*len)++] = (escape && *s == '/') ? '!' : *s;
    }
    if (!escape)
        return 0;
    if (*len == start) {
        if (*len + 1 >= cap)
            return -1;
        out[(*len)++] = '!';
    } else if ((*len - start == 1 || *len - start == 2) && out[start] == '.' &&
               out[*len - 1] == '.') {
        out[start] = '!';
    }
    return 0;
}

gpucore_status_t gc_capture_expand_path(const char *pattern, const struct gc_capture_vars *v,
                                        char *out, size_t cap, gpucore_diag_t *reterr_diag)
{
    size_t len = 0;
    char num[32];

    GC_FAIL_IF(!pattern || !v || !out || cap == 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "output pattern: missing argument");
    GC_FAIL_IF(!*pattern, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "output pattern is empty: expected a file name such as gpucore.%%p");
    for (size_t i = 0; pattern[i]; i++) {
        const char *val = NULL;
        int is_literal = 0;

        if (pattern[i] != '%') {
            GC_FAIL_IF(len + 1 >= cap, reterr_diag, GPUCORE_E_LIMIT, i,
                       "output pattern \"%s\" expands to more than %zu bytes", pattern, cap - 1);
            out[len++] = pattern[i];
            continue;
        }
        i++;
        switch (pattern[i]) {
        case 'p':
            snprintf(num, sizeof(num), "%ld", (long)v->pid);
            val = num;
            break;
        case 't':
            snprintf(num, sizeof(num), "%" PRId64, v->time_s);
            val = num;
            break;
        case 'h':
            val = v->hostname;
            break;
        case 'e':
            val = v->exe;
            break;
        case 'j':
            val = v->job_id;
            break;
        case 'r':
            val = v->rank;
            break;
        case '%':
            val = "%";
            is_literal = 1;
            break;
        default:
            return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, i - 1,
                               "output pattern \"%s\": unknown sequence \"%%%.1s\" at offset "
                               "%zu (expected %%p %%h %%t %%e %%j %%r or %%%%)",
                               pattern, pattern[i] ? &pattern[i] : "", i - 1);
        }
        GC_FAIL_IF(put_value(out, cap, &len, val, !is_literal) != 0, reterr_diag,
                   GPUCORE_E_LIMIT, i, "output pattern \"%s\" expands to more than %zu bytes",
                   pattern, cap - 1);
    }
    out[len] = '\0';
    return GPUCORE_OK;
}

/* Copy a small /proc file of @p pid into @p buf (NUL-terminated); bytes read or -1. */
static ssize_t read_proc(pid_t pid, const char *what, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, what);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

/*
 * The target's environment (/proc/PID/environ: NUL-separated NAME=VALUE, as it was at exec),
 * read once; at most ENVIRON_MAX bytes are looked at. NULL when it cannot be read.
 */
#define ENVIRON_MAX (1u << 20)

static char *read_environ(pid_t pid, size_t *ret_len)
{
    char path[64];
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t n;

        if (len == cap) {
            char *b;

            if (cap >= ENVIRON_MAX)
                break;
            cap = cap ? cap * 2 : 16384;
            b = realloc(buf, cap + 1);
            if (!b)
                break;
            buf = b;
        }
        n = read(fd, buf + len, cap - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    if (buf)
        buf[len] = '\0';
    *ret_len = len;
    return buf;
}

/* Value of @p name in an environ block, or NULL. */
static const char *environ_get(const char *env, size_t len, const char *name)
{
    size_t nlen = strlen(name);

    for (size_t i = 0; env && i < len; i += strlen(env + i) + 1)
        if (strncmp(env + i, name, nlen) == 0 && env[i + nlen] == '=')
            return env + i + nlen + 1;
    return NULL;
}

/* Take @p s (with @p n bytes) into storage; returns the copy or "" when storage is full. */
static const char *store(char *storage, size_t cap, size_t *used, const char *s, size_t n)
{
    char *p;

    if (*used + n + 1 > cap)
        return "";
    p = storage + *used;
    memcpy(p, s, n);
    p[n] = '\0';
    *used += n + 1;
    return p;
}

void gc_capture_vars_fill(struct gc_capture_vars *v, pid_t pid, char *storage, size_t cap)
{
    char buf[256];
    size_t used = 0;
    const char *env;
    ssize_t n;

    memset(v, 0, sizeof(*v));
    v->pid = pid;
    v->time_s = (int64_t)time(NULL);
    v->hostname = "";
    v->exe = "";
    v->job_id = "";
    v->rank = "";
    if (!storage || cap == 0)
        return;
    if (gethostname(buf, sizeof(buf)) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        v->hostname = store(storage, cap, &used, buf, strlen(buf));
    }
    n = read_proc(pid, "comm", buf, sizeof(buf));
    if (n > 0) {
        while (n > 0 && buf[n - 1] == '\n')
            n--;
        v->exe = store(storage, cap, &used, buf, (size_t)n);
    }
    /* %j and %r are the target's job and rank: its own environment first (a capture or
       watch of a process of another job step), else gpucore's. */
    {
        static const char *const rank_vars[] = { "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                                                 "PMI_RANK" };
        size_t elen = 0;
        char *environ_block = read_environ(pid, &elen);

        env = environ_get(environ_block, elen, "SLURM_JOB_ID");
        if (!env)
            env = getenv("SLURM_JOB_ID");
        if (env)
            v->job_id = store(storage, cap, &used, env, strnlen(env, 64));
        for (int own = 0; own < 2 && !*v->rank; own++) {
            for (size_t i = 0; i < GC_ARRAY_SIZE(rank_vars); i++) {
                env = own ? getenv(rank_vars[i]) : environ_get(environ_block, elen, rank_vars[i]);
                if (env && *env) {
                    v->rank = store(storage, cap, &used, env, strnlen(env, 64));
                    break;
                }
            }
        }
        free(environ_block);
    }
}
