/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/*
 * Status -> exit code, per side. A malformed input is the user's data problem (65); the same
 * "cannot create" on the output side is 73. Unlisted statuses are internal errors (70).
 */
static const struct {
    gpucore_status_t status;
    int input;
    int output;
} exit_map[] = {
    { GPUCORE_E_IO, CLI_EXIT_IOERR, CLI_EXIT_IOERR },
    { GPUCORE_E_TRUNCATED, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_CORRUPT, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_VERSION, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_ARCH, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_LIMIT, CLI_EXIT_DATAERR, CLI_EXIT_CANTCREAT },
    { GPUCORE_E_NOTSUP, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_NODEV, CLI_EXIT_UNAVAILABLE, CLI_EXIT_UNAVAILABLE },
    { GPUCORE_E_PERM, CLI_EXIT_NOINPUT, CLI_EXIT_CANTCREAT },
    { GPUCORE_E_EXIST, CLI_EXIT_SOFTWARE, CLI_EXIT_CANTCREAT },
    { GPUCORE_E_NOTFOUND, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_CANTCREAT, CLI_EXIT_NOINPUT, CLI_EXIT_CANTCREAT },
    { GPUCORE_E_UNAVAILABLE, CLI_EXIT_DATAERR, CLI_EXIT_SOFTWARE },
};

int cli_exit_for(gpucore_status_t status, enum cli_side side)
{
    if (status == GPUCORE_OK)
        return CLI_EXIT_OK;
    for (size_t i = 0; i < sizeof(exit_map) / sizeof(exit_map[0]); i++)
        if (exit_map[i].status == status)
            return side == CLI_SIDE_INPUT ? exit_map[i].input : exit_map[i].output;
    return CLI_EXIT_SOFTWARE;
}

int cli_report(const char *file, const gpucore_diag_t *diag, enum cli_side side)
{
    const char *msg = diag->message[0] ? diag->message : gpucore_strerror(diag->status);

    if ((diag->flags & GPUCORE_DIAG_HAS_OFFSET) && strncmp(msg, "offset ", 7) != 0)
        fprintf(stderr, "gpucore: %s: offset 0x%" PRIx64 ": %s\n", file, diag->offset, msg);
    else
        fprintf(stderr, "gpucore: %s: %s\n", file, msg);
    return cli_exit_for(diag->status, side);
}

int cli_fail(int exit_code, const char *file, const char *fmt, ...)
{
    va_list ap;

    fputs("gpucore: ", stderr);
    if (file)
        fprintf(stderr, "%s: ", file);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return exit_code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "gpucore %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see `gpucore %s --help`)\n", cmd);
    return CLI_EXIT_USAGE;
}

/* What a file type is called when it is refused as an input. */
static const char *input_kind(mode_t mode)
{
    static const struct {
        mode_t type;
        const char *name;
    } kinds[] = {
        { S_IFDIR, "is a directory" },        { S_IFIFO, "is a FIFO" },
        { S_IFCHR, "is a character device" }, { S_IFBLK, "is a block device" },
        { S_IFSOCK, "is a socket" },
    };

    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if ((mode & S_IFMT) == kinds[i].type)
            return kinds[i].name;
    return "is not a regular file";
}

/*
 * The one way an input file is opened: without blocking (a FIFO would wait for a writer, a
 * device could act on the open) and without becoming a controlling terminal; then only a
 * regular file is accepted. Returns the descriptor (blocking again), or -1 after printing
 * the error; *ret_rc is the exit code then.
 */
static int open_input(const char *path, int *ret_rc)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), fl;

    if (fd < 0) {
        *ret_rc = cli_fail(CLI_EXIT_NOINPUT, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        int err = errno;

        close(fd);
        *ret_rc = cli_fail(CLI_EXIT_NOINPUT, path, "cannot stat: %s", strerror(err));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *ret_rc = cli_fail(CLI_EXIT_NOINPUT, path, "%s, expected a regular core file",
                           input_kind(st.st_mode));
        return -1;
    }
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int cli_check_input(const char *path)
{
    int rc = 0, fd = open_input(path, &rc);

    if (fd >= 0)
        close(fd);
    return rc;
}

/* The reader's memory budget GPUCORE_MEM_BUDGET asks for (0: the library's default): 0, or
   an exit code after printing. */
static int mem_budget(uint64_t *ret)
{
    const char *env = getenv("GPUCORE_MEM_BUDGET");

    *ret = 0;
    if (env && *env) {
        if (strcmp(env, "unlimited") == 0)
            *ret = GPUCORE_MEM_BUDGET_UNLIMITED;
        else if (cli_parse_size(env, ret) != 0 || *ret == 0)
            return cli_fail(CLI_EXIT_USAGE, NULL,
                            "GPUCORE_MEM_BUDGET=%s: expected a size (e.g. 512M, 2G) or "
                            "\"unlimited\"",
                            env);
    }
    return 0;
}

static int open_core_fd(int fd, const char *path, uint32_t flags, uint64_t budget,
                        gpucore_core_t **ret)
{
    gpucore_diag_t d;
    gpucore_status_t st = gpucore_core_open_fd(
            fd, GPUCORE_OPTS(gpucore_open_opts, .flags = flags, .mem_budget = budget), ret, &d);

    if (st != GPUCORE_OK)
        return cli_report_input(path, &d);
    return CLI_EXIT_OK;
}

int cli_open_core(const char *path, uint32_t flags, gpucore_core_t **ret)
{
    uint64_t budget;
    int rc = mem_budget(&budget), fd;

    if (rc)
        return rc;
    fd = open_input(path, &rc);
    if (fd < 0)
        return rc;
    rc = open_core_fd(fd, path, flags, budget, ret);
    close(fd);
    return rc;
}

int cli_open_core_fd(int fd, const char *path, uint32_t flags, gpucore_core_t **ret)
{
    uint64_t budget;
    int rc = mem_budget(&budget);

    return rc ? rc : open_core_fd(fd, path, flags, budget, ret);
}

int cli_report_input(const char *path, const gpucore_diag_t *diag)
{
    /* The library names its option; a user of the program sets the environment. */
    static const char api[] = "gpucore_open_opts::mem_budget", var[] = "GPUCORE_MEM_BUDGET=SIZE";
    gpucore_diag_t d = *diag;
    char *at = strstr(d.message, api);

    if (at && strlen(d.message) - strlen(api) + strlen(var) < sizeof(d.message)) {
        memmove(at + strlen(var), at + strlen(api), strlen(at + strlen(api)) + 1);
        memcpy(at, var, strlen(var));
    }
    return cli_report(path, &d, CLI_SIDE_INPUT);
}

int cli_parse_size(const char *text, uint64_t *ret)
{
    static const struct {
        char suffix;
        unsigned shift;
    } suffixes[] = { { 'K', 10 }, { 'M', 20 }, { 'G', 30 }, { 'T', 40 } };
    char *end;
    unsigned long long v;

    if (!text || !*text || *text == '-')
        return -1;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -1;
    if (*end) {
        size_t i;

        for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
            if ((*end & ~0x20) == suffixes[i].suffix)
                break;
        if (i == sizeof(suffixes) / sizeof(suffixes[0]))
            return -1;
        /* Accept "4M", "4MB", "4MiB". */
        if (end[1] && strcmp(end + 1, "B") != 0 && strcmp(end + 1, "iB") != 0)
            return -1;
        if (v > (UINT64_MAX >> suffixes[i].shift))
            return -1;
        v <<= suffixes[i].shift;
    }
    *ret = v;
    return 0;
}

int cli_parse_backend(const char *text, enum gc_kfd_backend *ret)
{
    static const struct {
        const char *name;
        enum gc_kfd_backend backend;
    } backends[] = { { "linux", GC_KFD_BACKEND_LINUX }, { "sim", GC_KFD_BACKEND_SIM } };

    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
        if (text && strcmp(text, backends[i].name) == 0) {
            *ret = backends[i].backend;
            return 0;
        }
    }
    return -1;
}

int cli_parse_int(const char *text, long min, long max, long *ret)
{
    char *end;
    long v;

    if (!text || !*text)
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *ret = v;
    return 0;
}

int cli_parse_zstd_level(const char *text, long *ret)
{
    long v;

    if (cli_parse_int(text, CLI_ZSTD_LEVEL_MIN, CLI_ZSTD_LEVEL_MAX, &v) != 0 || v == 0)
        return -1;
    *ret = v;
    return 0;
}

size_t cli_text_neutralise(char *buf, size_t len, int *pending)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];

        if (*pending) {
            *pending = 0;
            if (c >= 0x80 && c <= 0x9f) { /* the second byte of a C1 control */
                buf[i] = '?';
                n++;
                continue;
            }
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            buf[i] = '?';
            n++;
        } else if (c == 0xc2) {
            if (i + 1 == len) {
                *pending = 1; /* decided by the next buffer: the lead byte passes */
            } else if ((unsigned char)buf[i + 1] >= 0x80 && (unsigned char)buf[i + 1] <= 0x9f) {
                buf[i] = '?';
                buf[++i] = '?';
                n++;
            }
        }
    }
    return n;
}

/* The filtering stream of cli_text_open(). A C1 control split across two writes has its lead
   byte already passed on: it is replaced by the lead byte and '?', still not a control. */
struct text_cookie {
    FILE *out;
    int pending;
    char buf[4096];
};

static ssize_t text_write(void *cookie, const char *data, size_t size)
{
    struct text_cookie *tc = cookie;
    size_t done = 0;

    while (done < size) {
        size_t n = size - done < sizeof(tc->buf) ? size - done : sizeof(tc->buf);

        memcpy(tc->buf, data + done, n);
        cli_text_neutralise(tc->buf, n, &tc->pending);
        if (fwrite(tc->buf, 1, n, tc->out) != n)
            return done ? (ssize_t)done : -1;
        done += n;
    }
    return (ssize_t)done;
}

static int text_flush_out(void *cookie)
{
    struct text_cookie *tc = cookie;

    return fflush(tc->out) == 0 ? 0 : EOF;
}

static int text_close(void *cookie)
{
    int rc = text_flush_out(cookie);

    free(cookie);
    return rc;
}

FILE *cli_text_open(FILE *out)
{
    static const cookie_io_functions_t io = { .write = text_write, .close = text_close };
    struct text_cookie *tc = calloc(1, sizeof(*tc));
    FILE *f;

    if (!tc)
        return NULL;
    tc->out = out;
    f = fopencookie(tc, "w", io);
    if (!f)
        free(tc);
    return f;
}

static FILE *stderr_raw;

/* The filter over stderr lives as long as the process: its state is static, not allocated. A
   sanitizer that wraps fopencookie() keeps the cookie where its leak checker does not look, and
   an allocated cookie still open at exit would be reported as lost. */
static struct text_cookie stderr_cookie;

void cli_filter_stderr(void)
{
    static const cookie_io_functions_t io = { .write = text_write, .close = text_flush_out };
    FILE *f;

    if (stderr_raw)
        return;
    stderr_cookie.out = stderr;
    f = fopencookie(&stderr_cookie, "w", io);
    if (!f)
        return;
    /* A line at a time, as an unbuffered stderr showed it: a message is never held back. */
    if (setvbuf(f, NULL, _IOLBF, BUFSIZ) != 0) {
        fclose(f);
        return;
    }
    stderr_raw = stderr;
    stderr = f;
}

FILE *cli_stderr_raw(void)
{
    return stderr_raw ? stderr_raw : stderr;
}

/* The flags of every --json document (cli_print_json()). */
#define CLI_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

int cli_print_json(const json_t *doc)
{
    int rc = CLI_EXIT_OK;

    if (json_dumpf(doc, stdout, CLI_JSON_FLAGS) != 0)
        rc = CLI_EXIT_IOERR;
    fputc('\n', stdout);
    return rc;
}

int cli_json_stream_open(struct cli_json_stream *s, const json_t *head, const char *key)
{
    char *text = json_object_size(head) ? json_dumps(head, CLI_JSON_FLAGS) : NULL;
    size_t len = text ? strlen(text) : 0;

    s->count = 0;
    if (len < 2 || strcmp(text + len - 2, "\n}") != 0) {
        free(text);
        return CLI_EXIT_SOFTWARE;
    }
    /* the head's members as cli_print_json() prints them, then the array's name */
    fwrite(text, 1, len - 2, stdout);
    free(text);
    fprintf(stdout, ",\n  \"%s\": [", key);
    return ferror(stdout) ? CLI_EXIT_IOERR : CLI_EXIT_OK;
}

int cli_json_stream_add(struct cli_json_stream *s, const json_t *elem)
{
    /* an element may be any value, as in the array cli_print_json() would print */
    char *text = json_dumps(elem, CLI_JSON_FLAGS | JSON_ENCODE_ANY);
    const char *p, *nl;

    if (!text)
        return CLI_EXIT_SOFTWARE;
    fputs(s->count ? ",\n    " : "\n    ", stdout);
    /* two levels deeper than alone: each line after the first indented by four more spaces
       (a JSON text holds no raw newline inside a string) */
    for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
        fwrite(p, 1, (size_t)(nl - p + 1), stdout);
        fputs("    ", stdout);
    }
    fputs(p, stdout);
    free(text);
    s->count++;
    return ferror(stdout) ? CLI_EXIT_IOERR : CLI_EXIT_OK;
}

int cli_json_stream_close(struct cli_json_stream *s)
{
    fputs(s->count ? "\n  ]\n}\n" : "]\n}\n", stdout);
    return ferror(stdout) || fflush(stdout) != 0 ? CLI_EXIT_IOERR : CLI_EXIT_OK;
}

int cli_json_stream_array(const json_t *head, const char *key, size_t n,
                          json_t *(*elem)(size_t i, void *user), void *user)
{
    struct cli_json_stream js;
    int rc = cli_json_stream_open(&js, head, key);

    for (size_t i = 0; i < n && rc == CLI_EXIT_OK; i++) {
        json_t *o = elem(i, user);

        rc = o ? cli_json_stream_add(&js, o) : CLI_EXIT_SOFTWARE;
        json_decref(o);
    }
    return rc == CLI_EXIT_OK ? cli_json_stream_close(&js) : rc;
}

int cli_print_text(const json_t *doc, void (*render)(FILE *out, const json_t *doc, void *user),
                   void *user)
{
    FILE *f = cli_text_open(stdout);

    if (!f)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    render(f, doc, user);
    return fclose(f) != 0 ? CLI_EXIT_IOERR : CLI_EXIT_OK;
}
