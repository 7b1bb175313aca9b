/* SPDX-License-Identifier: MIT */
/*
 * Output patterns (-o): core(5)'s %p %h %t %e %% plus %j (batch job) and %r (MPI rank), and the
 * variables they take from the target process and its environment. capture.h says exactly what
 * each token becomes, unset and hostile values included.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "gc_util.h"

/*
 * The tokens: what each expands to and the word an unset value becomes. An unset token says so
 * instead of vanishing, so that "core.%j.%r" is never "core..": a job and a rank are absent
 * outside a batch job or an MPI launch (a state, hence "nojob", "norank"); an executable or
 * host name that could not be read is "unknown".
 */
enum token_kind { TOKEN_PID, TOKEN_TIME, TOKEN_STRING, TOKEN_PERCENT };

static const struct token {
    char name;
    enum token_kind kind;
    size_t field;      /* TOKEN_STRING: offset of the const char * in struct gc_capture_vars */
    const char *unset; /* TOKEN_STRING: the value when the field is NULL or "" */
} tokens[] = {
    { 'p', TOKEN_PID, 0, NULL },
    { 't', TOKEN_TIME, 0, NULL },
    { 'h', TOKEN_STRING, offsetof(struct gc_capture_vars, hostname), GC_CAPTURE_UNSET_HOST },
    { 'e', TOKEN_STRING, offsetof(struct gc_capture_vars, exe), GC_CAPTURE_UNSET_EXE },
    { 'j', TOKEN_STRING, offsetof(struct gc_capture_vars, job_id), GC_CAPTURE_UNSET_JOB },
    { 'r', TOKEN_STRING, offsetof(struct gc_capture_vars, rank), GC_CAPTURE_UNSET_RANK },
    { '%', TOKEN_PERCENT, 0, NULL },
};

/*
 * Append the value of one token to out, escaped as the kernel's cn_esc_printf() escapes
 * core_pattern values, so that no value can move the file to another directory, plus control
 * characters: every '/' and every byte below 0x20 or 0x7f becomes '!', and a value of exactly
 * "." or ".." has its first '.' made '!'. At most GC_CAPTURE_VALUE_MAX bytes of the value are
 * taken. Literal text (%% included) is copied unchanged. 0, or -1 when it does not fit in cap
 * (NUL included).
 */
static int put_value(char *out, size_t cap, size_t *len, const char *s, int escape)
{
    size_t start = *len;

    for (size_t i = 0; s[i] && (!escape || i < GC_CAPTURE_VALUE_MAX); i++) {
        unsigned char ch = (unsigned char)s[i];

        if (*len + 1 >= cap)
            return -1;
        out[(*len)++] = (escape && (ch == '/' || ch < 0x20 || ch == 0x7f)) ? '!' : (char)ch;
    }
    if (escape && (*len - start == 1 || *len - start == 2) && out[start] == '.' &&
        out[*len - 1] == '.')
        out[start] = '!';
    return 0;
}

/* The text of token @p t for @p v: a number in num, a string of v, or the unset word. */
static const char *token_value(const struct token *t, const struct gc_capture_vars *v, char *num,
                               size_t numcap)
{
    const char *s;

    switch (t->kind) {
    case TOKEN_PID:
        snprintf(num, numcap, "%ld", (long)v->pid);
        return num;
    case TOKEN_TIME:
        snprintf(num, numcap, "%" PRId64, v->time_s);
        return num;
    case TOKEN_PERCENT:
        return "%";
    case TOKEN_STRING:
        break;
    }
    memcpy(&s, (const char *)v + t->field, sizeof(s));
    return s && *s ? s : t->unset;
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
        const struct token *t = NULL;

        if (pattern[i] != '%') {
            GC_FAIL_IF(len + 1 >= cap, reterr_diag, GPUCORE_E_LIMIT, i,
                       "output pattern \"%s\" expands to more than %zu bytes", pattern, cap - 1);
            out[len++] = pattern[i];
            continue;
        }
        i++;
        for (size_t k = 0; pattern[i] && k < GC_ARRAY_SIZE(tokens); k++)
            if (tokens[k].name == pattern[i])
                t = &tokens[k];
        if (!t)
            return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, i - 1,
                               "output pattern \"%s\": unknown sequence \"%%%.1s\" at offset "
                               "%zu (expected %%p %%h %%t %%e %%j %%r or %%%%)",
                               pattern, pattern[i] ? &pattern[i] : "", i - 1);
        GC_FAIL_IF(put_value(out, cap, &len, token_value(t, v, num, sizeof(num)),
                             t->kind != TOKEN_PERCENT) != 0,
                   reterr_diag, GPUCORE_E_LIMIT, i,
                   "output pattern \"%s\" expands to more than %zu bytes", pattern, cap - 1);
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
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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
 * The target's environment (/proc/PID/environ: NUL-separated NAME=VALUE, as it was at exec or
 * as the target has since overwritten it), read once; at most ENVIRON_MAX bytes are looked at.
 * NULL when it cannot be read.
 */
#define ENVIRON_MAX (1u << 20)

static char *read_environ(pid_t pid, size_t *ret_len)
{
    char path[64];
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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

/* Take @p s (at most GC_CAPTURE_VALUE_MAX of its @p n bytes) into storage; returns the copy,
   or "" (unset) when storage is full. */
static const char *store(char *storage, size_t cap, size_t *used, const char *s, size_t n)
{
    char *p;

    if (n > GC_CAPTURE_VALUE_MAX)
        n = GC_CAPTURE_VALUE_MAX;
    if (*used + n + 1 > cap)
        return "";
    p = storage + *used;
    memcpy(p, s, n);
    p[n] = '\0';
    *used += n + 1;
    return p;
}

/*
 * %j and %r: the variables of each, in order. Job: one scheduler runs a job, the order only
 * matters when a job of one runs inside another. Rank: the innermost launcher first, since an
 * MPI launcher started inside a Slurm allocation (mpirun in an sbatch script) leaves the Slurm
 * step's SLURM_PROCID (its own index, shared by the ranks it starts) in every rank's
 * environment, while the MPI variables name the rank itself.
 */
static const char *const job_vars[] = {
    "SLURM_JOB_ID", /* Slurm */
    "PBS_JOBID",    /* PBS Pro, OpenPBS, Torque */
    "LSB_JOBID",    /* IBM Spectrum LSF */
    "FLUX_JOB_ID",  /* Flux */
};
static const char *const rank_vars[] = {
    "OMPI_COMM_WORLD_RANK", /* Open MPI's mpirun/prterun */
    "PMIX_RANK",            /* any PMIx launcher (prterun, srun --mpi=pmix, Flux) */
    "PMI_RANK",             /* MPICH's Hydra, Intel MPI, srun --mpi=pmi2 */
    "MV2_COMM_WORLD_RANK",  /* MVAPICH2's mpirun_rsh */
    "PALS_RANKID",          /* HPE Cray PALS (aprun/mpiexec) */
    "FLUX_TASK_RANK",       /* Flux */
    "SLURM_PROCID",         /* srun */
};

/* The first of @p names with a non-empty value in the target's environment (@p env), else in
   gpucore's; NULL if none. */
static const char *lookup(const char *env, size_t elen, const char *const *names, size_t count)
{
    for (int own = 0; own < 2; own++)
        for (size_t i = 0; i < count; i++) {
            const char *val = own ? getenv(names[i]) : environ_get(env, elen, names[i]);

            if (val && *val)
                return val;
        }
    return NULL;
}

/* Last component of the @p n bytes at @p s (which need not be NUL-terminated). */
static const char *base_name(const char *s, size_t *n)
{
    const char *b = s;

    for (size_t i = 0; i < *n; i++)
        if (s[i] == '/')
            b = s + i + 1;
    *n -= (size_t)(b - s);
    return b;
}

/*
 * %e. The kernel names a process (comm) by the base name of the file it executed, cut to
 * TASK_COMM_LEN - 1 = 15 bytes. A comm shorter than that is the whole name. A comm of 15 bytes
 * may have been cut: the name is completed from the first candidate that starts with those
 * 15 bytes: the base name of /proc/PID/exe's target (its link is read, never followed; a
 * " (deleted)" the kernel appends to a removed file is dropped), then of the first
 * EXE_ARGV_WORDS words of /proc/PID/cmdline (argv[0], or the script of an interpreter started
 * by "#!" as argv[1] or argv[2]). If none does (the process renamed itself), it is the comm.
 * Every read is bounded; the name at most GC_CAPTURE_VALUE_MAX bytes.
 */
#define COMM_MAX 15
#define EXE_ARGV_WORDS 3
#define CMDLINE_MAX 8192

static const char *exe_name(pid_t pid, char *storage, size_t cap, size_t *used)
{
    static const char deleted[] = " (deleted)";
    char comm[64], link[PATH_MAX];
    char *cmdline;
    const char *b;
    size_t n;
    ssize_t k;

    k = read_proc(pid, "comm", comm, sizeof(comm));
    while (k > 0 && comm[k - 1] == '\n')
        k--;
    if (k <= 0)
        return "";
    comm[k] = '\0';
    if (k < COMM_MAX)
        return store(storage, cap, used, comm, (size_t)k);
    snprintf(link, sizeof(link), "/proc/%ld/exe", (long)pid);
    {
        char target[PATH_MAX];
        ssize_t t = readlink(link, target, sizeof(target));

        if (t > 0 && (size_t)t < sizeof(target)) {
            n = (size_t)t;
            if (n > sizeof(deleted) - 1 &&
                memcmp(target + n - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1) == 0)
                n -= sizeof(deleted) - 1;
            b = base_name(target, &n);
            if (n >= COMM_MAX && memcmp(b, comm, COMM_MAX) == 0)
                return store(storage, cap, used, b, n);
        }
    }
    cmdline = malloc(CMDLINE_MAX);
    if (cmdline) {
        ssize_t len = read_proc(pid, "cmdline", cmdline, CMDLINE_MAX);
        size_t i = 0;

        for (int w = 0; len > 0 && w < EXE_ARGV_WORDS && i < (size_t)len; w++) {
            size_t wl = strlen(cmdline + i);

            n = wl;
            b = base_name(cmdline + i, &n);
            if (n >= COMM_MAX && memcmp(b, comm, COMM_MAX) == 0) {
                b = store(storage, cap, used, b, n);
                free(cmdline);
                return b;
            }
            i += wl + 1;
        }
        free(cmdline);
    }
    return store(storage, cap, used, comm, (size_t)k);
}

void gc_capture_vars_fill(struct gc_capture_vars *v, pid_t pid, char *storage, size_t cap)
{
    char host[256];
    size_t used = 0, elen = 0;
    char *environ_block;
    const char *val;

    memset(v, 0, sizeof(*v));
    v->pid = pid;
    v->time_s = (int64_t)time(NULL);
    v->hostname = "";
    v->exe = "";
    v->job_id = "";
    v->rank = "";
    if (!storage || cap == 0)
        return;
    if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        v->hostname = store(storage, cap, &used, host, strlen(host));
    }
    v->exe = exe_name(pid, storage, cap, &used);
    /* The target's job and rank: its own environment first (a capture or watch of a process
       of another job step), else gpucore's. */
    environ_block = read_environ(pid, &elen);
    val = lookup(environ_block, elen, job_vars, GC_ARRAY_SIZE(job_vars));
    if (val)
        v->job_id = store(storage, cap, &used, val, strnlen(val, GC_CAPTURE_VALUE_MAX));
    val = lookup(environ_block, elen, rank_vars, GC_ARRAY_SIZE(rank_vars));
    if (val)
        v->rank = store(storage, cap, &used, val, strnlen(val, GC_CAPTURE_VALUE_MAX));
    free(environ_block);
}

/* ---- names at capture time: the directory and a free name ---------------------------------- */

gpucore_status_t gc_capture_numbered_name(const char *path, uint32_t n, int compressed, char *out,
                                          size_t cap, gpucore_diag_t *reterr_diag)
{
    static const char zst[] = ".zst";
    size_t len, stem;
    const char *base;
    int w;

    GC_FAIL_IF(!path || !out || cap == 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "numbered name: missing argument");
    len = strlen(path);
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    stem = len;
    /* ".zst" stays last (and is not the whole file name), so the name still says what it is. */
    if (compressed && len - (size_t)(base - path) > sizeof(zst) - 1 &&
        strcmp(path + len - (sizeof(zst) - 1), zst) == 0)
        stem = len - (sizeof(zst) - 1);
    if (n == 0)
        w = snprintf(out, cap, "%s", path);
    else
        w = snprintf(out, cap, "%.*s.%" PRIu32 "%s", (int)stem, path, n, path + stem);
    GC_FAIL_IF(w < 0 || (size_t)w >= cap, reterr_diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "%s: the numbered name .%" PRIu32 " is longer than %zu bytes", path, n, cap - 1);
    return GPUCORE_OK;
}

gpucore_status_t gc_capture_make_dirs(const char *path, gpucore_diag_t *reterr_diag)
{
    char dir[PATH_MAX];
    size_t len;

    GC_FAIL_IF(!path, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "make dirs: missing path");
    len = strlen(path);
    GC_FAIL_IF(len >= sizeof(dir), reterr_diag, GPUCORE_E_CANTCREAT, GC_NO_OFFSET,
               "%s: the path is longer than %zu bytes", path, sizeof(dir) - 1);
    memcpy(dir, path, len + 1);
    /* Every directory of the path but the file itself, from the top: "a/b/core" makes "a",
       then "a/b"; a leading '/' is not a directory to make. */
    for (size_t i = 1; i < len; i++) {
        struct stat sb;

        if (dir[i] != '/' || dir[i - 1] == '/')
            continue;
        dir[i] = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            int e = errno;

            return gc_diag_set(reterr_diag, GPUCORE_E_CANTCREAT, GC_NO_OFFSET,
                               "cannot create directory %s for %s: %s", dir, path, strerror(e));
        }
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return gc_diag_set(reterr_diag, GPUCORE_E_CANTCREAT, GC_NO_OFFSET,
                               "cannot write %s: %s is not a directory", path, dir);
        dir[i] = '/';
    }
    return GPUCORE_OK;
}
