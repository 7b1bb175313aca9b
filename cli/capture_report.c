/* SPDX-License-Identifier: MIT */
/*
 * What capture, run and watch say of a published core (capture_report.h): the final line, the
 * --json record, the store row; the signature and the row made in a child bounded in time, and
 * run's reporter process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "capture_report.h"
#include "cli_store.h"
#include "fleet.h"
#include "cli.h"
#include "gc_util.h"
#include "store.h"
#include "triage.h"

static const char *reason_text(uint32_t reason)
{
    static const struct {
        uint32_t reason;
        const char *text;
    } texts[] = {
        { GPUCORE_REASON_TIER, "tier all not requested" },
        { GPUCORE_REASON_BUDGET, "size budget" },
        { GPUCORE_REASON_DEADLINE, "deadline" },
        { GPUCORE_REASON_IO_ERROR, "unreadable" },
        { GPUCORE_REASON_POLICY, "coredump_filter" },
        { GPUCORE_REASON_SPECIAL, "doorbells and MMIO" },
        { GPUCORE_REASON_REDACTED, "redacted" },
    };

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if (texts[i].reason == reason)
            return texts[i].text;
    return "not captured";
}

/* The reasons memory is left out that the summary and the JSON count, in the order they act. */
static const uint32_t summary_reasons[] = { GPUCORE_REASON_TIER, GPUCORE_REASON_BUDGET,
                                            GPUCORE_REASON_DEADLINE, GPUCORE_REASON_IO_ERROR };
#define NSUMMARY_REASONS (sizeof(summary_reasons) / sizeof(summary_reasons[0]))

/* A core written, as the final line and the --json record both tell it: built once from the
   capture's result (the signature from the report's child). Strings point into the result or
   are static. */
struct core_report {
    const char *path;
    uint64_t disk_bytes;     /* st_blocks * 512 (the writer's count if the file cannot be
                                stat'ed) */
    uint64_t apparent_bytes; /* st_size */
    long pid;
    const char *exe;         /* NULL if unknown */
    const char *trigger;     /* gpucore_trigger_name, NULL if none */
    uint32_t waves, faulting_waves;
    int all_waves_saved;     /* the state tier is complete, or there are no waves */
    uint32_t ntiers;         /* complete tiers: tier 0 .. ntiers - 1 */
    struct {
        uint32_t reason;     /* GPUCORE_REASON_* */
        uint64_t bytes;
        char why[48];        /* for the text line */
    } skipped[NSUMMARY_REASONS];
    int truncated;
    uint32_t truncation_reason; /* GPUCORE_REASON_* */
    int redacted;            /* --redact: redacted_bytes were withheld (GPU and host) */
    uint64_t redacted_bytes;
    double elapsed_s;
    int compressed;
    json_t *signature;       /* the core's crash signature as `gpucore analyze` gives it
                                ({"text","hash","kind"}), or NULL; borrowed */
};

/*
 * The triage report of the core just written, as `gpucore analyze --json` gives it (its
 * "signature" member is the crash signature: an object, or JSON null when the core has no wave
 * to judge). NULL when it cannot be computed: reopening or reading the core failed. Either way the
 * capture's outcome is not changed, so nothing is printed. Runs in the report's child
 * (slow_child()).
 */
static json_t *core_triage_report(const char *path)
{
    struct gc_triage_signed sig = { 0 };
    gpucore_core_t *core = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    /* The name was just published, but its directory may be shared: never follow a link put
       there since, and never wait on a FIFO (the library refuses anything not regular). */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0)
        return NULL;
    st = gpucore_core_open_fd(
            fd, GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED), &core, &d);
    close(fd);
    if (st != GPUCORE_OK)
        return NULL;
    /* The signature needs no instruction text: never load libLLVM at crash time. */
    gc_triage_no_disassembly("a capture does not load the disassembler");
    (void)gc_triage_sign(core, path, &sig, NULL);
    gpucore_core_close(core);
    return sig.report;
}

/* The journal entry of the core at @p path without a store row: its row read as a store's is,
   with the triage report @p doc already made (the core is not triaged again). */
static void journal_core(const char *path, const json_t *doc, int writer)
{
    struct gc_store_row row;
    gpucore_diag_t d = { 0 };

    if (gc_store_row_from_path(AT_FDCWD, NULL, path, GC_STORE_ROW_NO_TRIAGE, &row, &d) !=
        GPUCORE_OK) {
        cli_journal_file(AT_FDCWD, NULL, path, path, writer); /* says why, with the path */
        return;
    }
    gc_store_row_from_report(&row, doc);
    cli_journal_row(&row, path, writer);
    gc_store_row_done(&row);
}

static void build_report(const struct gc_capture_opts *o, const struct gc_capture_result *r,
                         struct core_report *m)
{
    struct stat sb;

    memset(m, 0, sizeof(*m));
    m->path = r->path;
    m->disk_bytes = r->file_bytes;
    if (stat(r->path, &sb) == 0) {
        m->disk_bytes = (uint64_t)sb.st_blocks * 512u;
        m->apparent_bytes = (uint64_t)sb.st_size;
    }
    m->pid = (long)r->pid;
    m->exe = r->exe[0] ? r->exe : NULL;
    m->trigger = gpucore_trigger_name(r->trigger);
    m->waves = r->waves;
    m->faulting_waves = r->faulting_waves;
    /* Without the whole state tier some of the waves counted have no saved state. */
    m->all_waves_saved = r->tiers_written || !r->waves;
    m->ntiers = r->tiers_written > GPUCORE_TIER_ALL + 1 ? GPUCORE_TIER_ALL + 1 : r->tiers_written;
    for (size_t i = 0; i < NSUMMARY_REASONS; i++) {
        uint32_t reason = summary_reasons[i];

        m->skipped[i].reason = reason;
        m->skipped[i].bytes = r->skipped_by_reason[reason];
        if (reason == GPUCORE_REASON_TIER && o->tier + 1 < GPUCORE_TIER_ALL)
            snprintf(m->skipped[i].why, sizeof(m->skipped[i].why), "tiers above %s not requested",
                     gpucore_tier_name(o->tier));
        else
            snprintf(m->skipped[i].why, sizeof(m->skipped[i].why), "%s", reason_text(reason));
    }
    m->truncated = r->truncated;
    m->truncation_reason = r->truncation_reason;
    m->redacted = o->redact;
    m->redacted_bytes = r->skipped_by_reason[GPUCORE_REASON_REDACTED];
    m->elapsed_s = (double)r->duration_ns / 1e9;
    m->compressed = o->compress;
}

static void print_summary(const struct core_report *m)
{
    char size[32], skipped[32], tiers[64] = "";
    int first = 1;

    for (uint32_t t = 0; t < m->ntiers; t++) {
        if (t)
            strncat(tiers, "+", sizeof(tiers) - strlen(tiers) - 1);
        strncat(tiers, gpucore_tier_name(t), sizeof(tiers) - strlen(tiers) - 1);
    }
    if (!tiers[0])
        snprintf(tiers, sizeof(tiers), "none complete");
    fprintf(stderr, "gpucore: %s: %s on disk, %u waves (%u faulting%s), tiers %s", m->path,
            gc_format_size(m->disk_bytes, size, sizeof(size)), m->waves, m->faulting_waves,
            m->all_waves_saved ? "" : "; not all saved", tiers);
    for (size_t i = 0; i < NSUMMARY_REASONS; i++) {
        if (!m->skipped[i].bytes)
            continue;
        fprintf(stderr, "%s%s (%s)", first ? ", skipped " : " + ",
                gc_format_size(m->skipped[i].bytes, skipped, sizeof(skipped)), m->skipped[i].why);
        first = 0;
    }
    if (m->redacted)
        fprintf(stderr, ", redacted %s", gc_format_size(m->redacted_bytes, skipped,
                                                        sizeof(skipped)));
    if (m->truncated)
        fprintf(stderr, ", TRUNCATED (%s)", reason_text(m->truncation_reason));
    fprintf(stderr, ", %.2f s", m->elapsed_s);
    if (json_is_object(m->signature))
        fprintf(stderr, ", signature %s",
                json_string_value(json_object_get(m->signature, "hash")));
    fputc('\n', stderr);
}

static json_t *json_name(const char *name)
{
    return name ? json_string(name) : json_null();
}

/* The --json record (schema CAPTURE_JSON_SCHEMA; the README's "For scripts" lists it). */
static json_t *report_json(const struct core_report *m)
{
    json_t *o = json_object(), *tiers = json_array(), *skipped = json_object();

    json_object_set_new(o, "schema", json_string(CAPTURE_JSON_SCHEMA));
    json_object_set_new(o, "path", json_string(m->path));
    json_object_set_new(o, "size_on_disk", gc_json_uint(m->disk_bytes));
    json_object_set_new(o, "apparent_size", gc_json_uint(m->apparent_bytes));
    json_object_set_new(o, "pid", json_integer(m->pid));
    json_object_set_new(o, "executable", json_name(m->exe));
    json_object_set_new(o, "trigger", json_name(m->trigger));
    json_object_set_new(o, "waves", gc_json_uint(m->waves));
    json_object_set_new(o, "faulting_waves", gc_json_uint(m->faulting_waves));
    json_object_set_new(o, "all_waves_saved", json_boolean(m->all_waves_saved));
    for (uint32_t t = 0; t < m->ntiers; t++)
        json_array_append_new(tiers, json_string(gpucore_tier_name(t)));
    json_object_set_new(o, "tiers", tiers);
    for (size_t i = 0; i < NSUMMARY_REASONS; i++)
        json_object_set_new(skipped, gpucore_reason_name(m->skipped[i].reason),
                            gc_json_uint(m->skipped[i].bytes));
    json_object_set_new(o, "skipped_bytes", skipped);
    json_object_set_new(o, "truncated", json_boolean(m->truncated));
    json_object_set_new(o, "truncation_reason",
                        m->truncated ? json_name(gpucore_reason_name(m->truncation_reason))
                                     : json_null());
    json_object_set_new(o, "elapsed_s", json_real(m->elapsed_s));
    json_object_set_new(o, "compressed", json_boolean(m->compressed));
    json_object_set_new(o, "signature",
                        m->signature ? json_incref(m->signature) : json_null());
    return o;
}

/* Write the record as one line with one write(2): on a file opened O_APPEND a reader never
   sees a partial line, whoever else appends. 0, or an exit code after printing the error. */
static int write_json_line(const struct report_sink *sink, const struct core_report *m)
{
    json_t *o = report_json(m);
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    const char *name = sink->json_path ? sink->json_path : "standard output";
    size_t len;
    ssize_t n;

    json_decref(o);
    if (!text)
        return cli_fail(CLI_EXIT_SOFTWARE, name, "cannot build the JSON record (out of memory)");
    len = strlen(text);
    text[len] = '\n'; /* over the NUL: the line goes out whole, its length is known */
    fflush(stdout);
    do
        n = write(sink->json_fd, text, len + 1);
    while (n < 0 && errno == EINTR);
    free(text);
    if (n < 0 || (size_t)n != len + 1)
        return cli_fail(CLI_EXIT_IOERR, name, "cannot write the JSON record: %s",
                        n < 0 ? strerror(errno) : "short write");
    return 0;
}


/* ---------------------------------------------------------------------------------------- */
/* The slow part, in a child bounded in time                                                   */
/* ---------------------------------------------------------------------------------------- */

/* What the child tells, one line each: "S <signature JSON>", "I <row id>", "W <warning>" (not
   indexed), "A <warning>" (not shared with its user), "V <warning>" (the users' views of root's
   store not written), "R COUNT BYTES" and "G <warning>" (the store's retention). */
#define SLOW_OUTPUT_MAX 65536

/* The fleet index's warning: the failure's message and how many rows wait. */
#define FLEET_WARNING_MAX (GPUCORE_DIAG_MESSAGE_SIZE + 200)

struct slow_part {
    json_t *signature; /* NULL: none told (not computed, or the child did not get there) */
    int64_t stored_id; /* > 0: the row's id */
    char index_warning[GPUCORE_DIAG_MESSAGE_SIZE + 16];
    /* the store's retention after it: cores removed, bytes freed, or why it failed */
    uint64_t retained_removed, retained_freed;
    char retain_warning[GPUCORE_DIAG_MESSAGE_SIZE + 16];
    char share_warning[GPUCORE_DIAG_MESSAGE_SIZE + 16]; /* not shared with its user: why */
    char view_warning[GPUCORE_DIAG_MESSAGE_SIZE + 16];  /* users' views not written: why */
    char fleet_warning[FLEET_WARNING_MAX];              /* the fleet index not told: why */
    int ran_out;       /* killed at CLI_REPORT_TIME_MAX_S */
    int abandoned;     /* the parent was interrupted */
};

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The child's dispositions: the terminal's keys and a hangup are the parent's to act on (it
   abandons the child); the alarm and the parent's end kill it. */
static void become_report_child(pid_t parent)
{
    static const int parents_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
    sigset_t none;

    for (size_t i = 0; i < GC_ARRAY_SIZE(parents_signals); i++)
        signal(parents_signals[i], SIG_IGN);
    signal(SIGALRM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(1);
}

/* Write @p len bytes of @p buf; a child's pipe. */
static void put_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

/* One line "TAG text": the text's own line breaks become spaces. */
static void put_line(int fd, char tag, const char *text)
{
    char line[GPUCORE_DIAG_MESSAGE_SIZE + 64];
    int n = snprintf(line, sizeof(line), "%c %s", tag, text);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;

    for (size_t i = 2; i < len; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    line[len++] = '\n';
    put_all(fd, line, len);
}

/*
 * The store's retention after the core @p name was added (store.conf's limits, as `gpucore gc`
 * reads them: gc_store_retain()), never removing @p name. In the child, so bounded by its
 * alarm like the rest; told on @p fd as "R COUNT BYTES" or "G why it failed" (a warning: the
 * core is kept either way).
 */
static void store_retention(int fd, struct gc_store *s, const char *config, const char *name)
{
    const char *keep[GC_STORE_KEEP_MAX] = { name, NULL };
    gpucore_diag_t d = { 0 };
    size_t removed = 0;
    uint64_t freed = 0;
    char line[64];

    if (gc_store_retain(s, config, keep, &removed, &freed, &d) != GPUCORE_OK)
        put_line(fd, 'G', d.message[0] ? d.message : gpucore_strerror(d.status));
    if (removed) {
        snprintf(line, sizeof(line), "%zu %" PRIu64, removed, freed);
        put_line(fd, 'R', line);
    }
}

/* The fleet index told of the store's changes, within GC_FLEET_WRITE_TIME_MAX_MS; a failure
   as "F <warning>" (one line: the message has none of its own). */
static void put_fleet(int fd, struct gc_store *s, const struct report_sink *sink)
{
    char warn[FLEET_WARNING_MAX], line[FLEET_WARNING_MAX + 3];

    cli_fleet_sync(s, sink->fleet_index, sink->store_config, 0, GC_FLEET_WRITE_TIME_MAX_MS, NULL,
                   warn, sizeof(warn));
    if (warn[0])
        put_all(fd, line, (size_t)snprintf(line, sizeof(line), "F %s\n", warn));
}

/* The child: the signature, then the store row, the store's retention and the fleet index;
   what it learns on @p fd as it goes. */
static void slow_child(int fd, const struct report_sink *sink, const char *path)
{
    json_t *doc = core_triage_report(path);
    json_t *sig = json_object_get(doc, "signature");

    if (sig) {
        char *text = json_dumps(sig, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);

        /* a signature is short: written whole in one write of the pipe */
        if (text) {
            size_t len = strlen(text);
            char *line = malloc(len + 3);

            if (line) {
                line[0] = 'S';
                line[1] = ' ';
                memcpy(line + 2, text, len);
                line[len + 2] = '\n';
                put_all(fd, line, len + 3);
                free(line);
            }
            free(text);
        }
    }
    if (sink->store_dir) {
        const char *slash = strrchr(path, '/');
        struct gc_store *s = NULL;
        struct gc_store_row row = { 0 };
        gpucore_diag_t d = { 0 };
        int64_t id = 0;
        char num[32];

        if (gc_store_open(sink->store_dir, GC_STORE_CREATE, &s, &d) != GPUCORE_OK ||
            gc_store_row_from_file_report(s, slash ? slash + 1 : path, doc, &row, &d) !=
                    GPUCORE_OK ||
            gc_store_put(s, &row, &d) != GPUCORE_OK) {
            put_line(fd, 'W', d.message[0] ? d.message : gpucore_strerror(d.status));
        } else {
            id = row.id;
            snprintf(num, sizeof(num), "%" PRId64, id);
            put_line(fd, 'I', num);
            if (gc_store_share_with_owner(s, slash ? slash + 1 : path, NULL, &d) != GPUCORE_OK)
                put_line(fd, 'A', d.message);
            store_retention(fd, s, sink->store_config, slash ? slash + 1 : path);
            /* the user's list of root's store shows the core (and what retention removed) */
            if (gc_store_sync_views(s, &d) != GPUCORE_OK)
                put_line(fd, 'V', d.message);
            put_fleet(fd, s, sink);
        }
        /* the journal's entry, with the store's row (and its id) when it was indexed */
        if (row.file)
            cli_journal_row(&row, path, sink->writer);
        else
            journal_core(path, doc, sink->writer);
        gc_store_row_done(&row);
        gc_store_close(s);
    } else {
        journal_core(path, doc, sink->writer);
    }
    json_decref(doc);
}

/* Read what the child says until it closes its end, the time is out or @p interrupted. */
static void read_slow(int fd, pid_t pid, const volatile sig_atomic_t *interrupted, char *buf,
                      size_t *len, struct slow_part *sp)
{
    uint64_t deadline = now_ms() + (uint64_t)CLI_REPORT_TIME_MAX_S * 1000 + 2000;

    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        uint64_t now = now_ms();
        int n;

        if (interrupted && *interrupted) {
            sp->abandoned = 1;
            break;
        }
        if (now >= deadline) {
            sp->ran_out = 1; /* the alarm did not end it: the parent does */
            break;
        }
        n = poll(&p, 1, (int)(deadline - now < 100 ? deadline - now : 100));
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        ssize_t got = read(fd, buf + *len, SLOW_OUTPUT_MAX - 1 - *len);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return; /* the child is done (or died): its status says which */
        *len += (size_t)got;
        if (*len == SLOW_OUTPUT_MAX - 1)
            break;
    }
    kill(pid, SIGKILL);
}

/* The lines the child wrote, into @p sp. */
static void parse_slow(char *buf, size_t len, struct slow_part *sp)
{
    buf[len] = '\0';
    for (char *line = buf, *nl; line < buf + len && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        if (line[0] == 'S' && line[1] == ' ' && !sp->signature)
            sp->signature = json_loads(line + 2, JSON_DECODE_ANY, NULL);
        else if (line[0] == 'I' && line[1] == ' ')
            sp->stored_id = strtoll(line + 2, NULL, 10);
        else if (line[0] == 'W' && line[1] == ' ')
            snprintf(sp->index_warning, sizeof(sp->index_warning), "%s", line + 2);
        else if (line[0] == 'A' && line[1] == ' ')
            snprintf(sp->share_warning, sizeof(sp->share_warning), "%s", line + 2);
        else if (line[0] == 'V' && line[1] == ' ')
            snprintf(sp->view_warning, sizeof(sp->view_warning), "%s", line + 2);
        else if (line[0] == 'F' && line[1] == ' ')
            snprintf(sp->fleet_warning, sizeof(sp->fleet_warning), "%s", line + 2);
        else if (line[0] == 'G' && line[1] == ' ')
            snprintf(sp->retain_warning, sizeof(sp->retain_warning), "%s", line + 2);
        else if (line[0] == 'R' && line[1] == ' ' &&
                 sscanf(line + 2, "%" SCNu64 " %" SCNu64, &sp->retained_removed,
                        &sp->retained_freed) != 2)
            sp->retained_removed = 0;
    }
}

/* The signature and the store row of the core at @p path, made in a child of their own. */
static void slow_part(const struct report_sink *sink, const char *path,
                      const volatile sig_atomic_t *interrupted, struct slow_part *sp)
{
    pid_t parent = getpid(), pid;
    int pipefd[2], status = 0;
    char *buf;
    size_t len = 0;

    memset(sp, 0, sizeof(*sp));
    buf = malloc(SLOW_OUTPUT_MAX);
    if (!buf || pipe2(pipefd, O_CLOEXEC) != 0) {
        free(buf);
        snprintf(sp->index_warning, sizeof(sp->index_warning), "cannot start the report: %s",
                 strerror(errno));
        return;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        become_report_child(parent);
        alarm(CLI_REPORT_TIME_MAX_S);
        slow_child(pipefd[1], sink, path);
        _exit(0);
    }
    close(pipefd[1]);
    if (pid < 0) {
        snprintf(sp->index_warning, sizeof(sp->index_warning), "cannot start the report: %s",
                 strerror(errno));
        close(pipefd[0]);
        free(buf);
        return;
    }
    read_slow(pipefd[0], pid, interrupted, buf, &len, sp);
    close(pipefd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        sp->ran_out = 1;
    parse_slow(buf, len, sp);
    free(buf);
}

/* ---------------------------------------------------------------------------------------- */
/* The report                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* The lines and the record, with what the slow part gave (@p sp NULL: nothing of it). */
static int finish_report(const struct report_sink *sink, const struct gc_capture_opts *o,
                         const struct gc_capture_result *r, const struct slow_part *sp,
                         const char *why_none)
{
    struct core_report report;

    build_report(o, r, &report);
    report.signature = sp ? sp->signature : NULL;
    if (!sink->quiet) {
        /* Only the first warning is kept (gc_capture_result) and the core holds none of them
           (`gpucore info` shows none): `gpucore analyze` finds what is wrong in the core. */
        if (r->warning[0])
            fprintf(stderr, "gpucore: warning: %s%s\n", r->warning,
                    r->nwarnings > 1 ? " (and more: `gpucore analyze` names what it finds "
                                       "wrong in the core)"
                                     : "");
        print_summary(&report);
        if (why_none)
            fprintf(stderr, "gpucore: warning: %s: %s: no signature%s (`gpucore analyze` "
                            "gives it)\n",
                    r->path, why_none, sink->store_dir ? ", not indexed" : "");
    }
    if (sink->store_dir && sp && sp->stored_id > 0 && !sink->quiet)
        fprintf(stderr, "gpucore: %s: stored as core %" PRId64 "\n", r->path, sp->stored_id);
    else if (sink->store_dir && sp && sp->index_warning[0])
        fprintf(stderr, "gpucore: warning: %s: the core is kept but not indexed: %s (`gpucore "
                        "store --rescan` indexes it)\n",
                r->path, sp->index_warning);
    if (sink->store_dir && sp && sp->share_warning[0])
        fprintf(stderr, "gpucore: warning: %s (the core is kept, readable by root only)\n",
                sp->share_warning);
    if (sink->store_dir && sp && sp->view_warning[0])
        fprintf(stderr, "gpucore: warning: %s (the core is stored; its user's list of the "
                        "store shows it after the store's next change)\n",
                sp->view_warning);
    if (sink->store_dir && sp && sp->fleet_warning[0])
        fprintf(stderr, "gpucore: warning: %s\n", sp->fleet_warning);
    if (sink->store_dir && sp && sp->retain_warning[0])
        fprintf(stderr, "gpucore: warning: %s: the store's limits were not applied: %s (the "
                        "core is kept; `gpucore gc` applies them)\n",
                r->path, sp->retain_warning);
    if (sink->store_dir && sp && sp->retained_removed && !sink->quiet) {
        char size[32];

        fprintf(stderr, "gpucore: %s: %" PRIu64 " older core%s removed by the store's limits "
                        "(%s; store.conf)\n",
                sink->store_dir, sp->retained_removed, sp->retained_removed == 1 ? "" : "s",
                gc_format_size(sp->retained_freed, size, sizeof(size)));
    }
    return sink->json_fd >= 0 ? write_json_line(sink, &report) : 0;
}

int capture_report_core(const struct report_sink *sink, const struct gc_capture_opts *o,
                        const struct gc_capture_result *r, const volatile sig_atomic_t *interrupted)
{
    struct slow_part sp;
    const char *why_none = NULL;
    char why[64];
    int rc;

    slow_part(sink, r->path, interrupted, &sp);
    if (sp.abandoned) {
        why_none = "its report was abandoned on a signal";
    } else if (sp.ran_out) {
        snprintf(why, sizeof(why), "its report took longer than %d s", CLI_REPORT_TIME_MAX_S);
        why_none = why;
    }
    if (why_none && sink->store_dir && !sp.stored_id && !sp.index_warning[0])
        snprintf(sp.index_warning, sizeof(sp.index_warning), "%s", why_none);
    rc = finish_report(sink, o, r, &sp, why_none);
    json_decref(sp.signature);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* run's reporter                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* Cores the socket holds while the reporter is busy: a message is one result (8.5 KiB). */
#define RUN_REPORTER_QUEUE_BYTES (1u << 20)

static void reporter_loop(int fd, const struct report_sink *sink, const struct gc_capture_opts *o)
{
    struct gc_capture_result r;

    for (;;) {
        ssize_t n = recv(fd, &r, sizeof(r), 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof(r))
            return; /* the loop closed its end (0), or a message that is not one */
        r.path[sizeof(r.path) - 1] = '\0';
        r.exe[sizeof(r.exe) - 1] = '\0';
        r.warning[sizeof(r.warning) - 1] = '\0';
        (void)capture_report_core(sink, o, &r, NULL);
        fflush(NULL);
    }
}

void run_reporter_start(struct run_reporter *rr, const struct report_sink *sink,
                        const struct gc_capture_opts *o)
{
    int sv[2], size = RUN_REPORTER_QUEUE_BYTES;
    pid_t parent = getpid();

    memset(rr, 0, sizeof(*rr));
    rr->fd = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return;
    /* root may pass the system's limit on socket buffers; anyone else gets up to it */
    if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    fflush(NULL);
    rr->pid = fork();
    if (rr->pid == 0) {
        close(sv[0]);
        become_report_child(parent);
        reporter_loop(sv[1], sink, o);
        fflush(NULL);
        _exit(0);
    }
    close(sv[1]);
    if (rr->pid < 0) {
        rr->pid = 0;
        close(sv[0]);
        return;
    }
    rr->fd = sv[0];
}

void run_reporter_submit(struct run_reporter *rr, const struct report_sink *sink,
                         const struct gc_capture_opts *o, const struct gc_capture_result *r)
{
    if (rr->pid > 0 && send(rr->fd, r, sizeof(*r), MSG_DONTWAIT | MSG_NOSIGNAL) ==
                               (ssize_t)sizeof(*r))
        return;
    /* No reporter, or it is behind by a whole queue: the line and the record now, without
       what would read the core again. */
    rr->lost++;
    (void)finish_report(sink, o, r, NULL, "the reporter was busy or gone");
}

void run_reporter_finish(struct run_reporter *rr, const volatile sig_atomic_t *interrupted)
{
    uint64_t deadline = now_ms() + (uint64_t)CLI_RUN_REPORTS_WAIT_S * 1000;
    int status;

    if (rr->pid <= 0)
        return;
    close(rr->fd);
    rr->fd = -1;
    for (;;) {
        pid_t w = waitpid(rr->pid, &status, WNOHANG);

        if (w == rr->pid || (w < 0 && errno == ECHILD))
            break; /* done (or already collected by the tree loop: it died) */
        if (interrupted && *interrupted && deadline > now_ms() + 1000)
            deadline = now_ms() + 1000;
        if (now_ms() >= deadline) {
            kill(rr->pid, SIGKILL);
            while (waitpid(rr->pid, &status, 0) < 0 && errno == EINTR)
                ;
            fprintf(stderr, "gpucore: warning: the reports still being made %s were abandoned: "
                            "their cores are kept (`gpucore analyze` gives the signature, "
                            "`gpucore store --rescan` indexes them)\n",
                    interrupted && *interrupted ? "at the signal" : "after the command ended");
            break;
        }
        struct timespec ts = { 0, 20 * 1000000 };

        nanosleep(&ts, NULL);
    }
    rr->pid = 0;
}
