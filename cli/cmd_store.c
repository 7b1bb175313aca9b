/* SPDX-License-Identifier: MIT */
/*
 * The core store's commands (docs/store.md):
 *
 *   gpucore list [--since T] [--signature S] [--exe E] [--job J] [--json] [--store DIR]
 *   gpucore list --fleet [--since T] [--until T] [--signature S] [--exe E] [--job J]
 *                [--host NODE] [--dedupe] [--json] [--fleet-index URI] [--config FILE]
 *   gpucore show [--json] [--store DIR] ID|PATH
 *   gpucore show --fleet [--json] [--fleet-index URI] [--config FILE] ID
 *   gpucore gc [--max-use SIZE] [--keep-free SIZE] [--max-age AGE] [--keep-per-signature N]
 *              [--dry-run] [--config FILE] [--store DIR]
 *   gpucore store [--json] [--config FILE] [--store DIR]
 *   gpucore store --rescan [--store DIR]
 *
 * The store itself (directory, index, gc's policy) is store/ (store.h); this file parses the
 * command lines, prints, and maps statuses to exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <gpucore/core.h>

#include "cli.h"
#include "cli_fleet_read.h"
#include "cli_store.h"
#include "fleet.h"
#include "store.h"
#include "triage.h"

#define LIST_SCHEMA "gpucore.list/1"
#define SHOW_SCHEMA "gpucore.show/1"
#define STORE_SCHEMA "gpucore.store/1"

/* A store's status -> the program's exit code: the store's files are the command's input. */
static const struct {
    gpucore_status_t status;
    int code;
} store_exit[] = {
    { GPUCORE_E_PERM, CLI_EXIT_NOPERM },     { GPUCORE_E_VERSION, CLI_EXIT_DATAERR },
    { GPUCORE_E_CORRUPT, CLI_EXIT_DATAERR }, { GPUCORE_E_NOTFOUND, CLI_EXIT_NOINPUT },
    { GPUCORE_E_IO, CLI_EXIT_IOERR },        { GPUCORE_E_NOMEM, CLI_EXIT_SOFTWARE },
    { GPUCORE_E_LIMIT, CLI_EXIT_USAGE },     { GPUCORE_E_INVAL, CLI_EXIT_USAGE },
};

int cli_store_fail(const gpucore_diag_t *d)
{
    fprintf(stderr, "gpucore: %s\n", d->message[0] ? d->message : gpucore_strerror(d->status));
    for (size_t i = 0; i < sizeof(store_exit) / sizeof(store_exit[0]); i++)
        if (store_exit[i].status == d->status)
            return store_exit[i].code;
    return CLI_EXIT_SOFTWARE;
}

int cli_store_open(const char *option, struct gc_store **ret)
{
    char dir[PATH_MAX];
    gpucore_diag_t d = { 0 };

    if (gc_store_locate(option, dir, sizeof(dir), &d) != GPUCORE_OK ||
        gc_store_open(dir, GC_STORE_CREATE, ret, &d) != GPUCORE_OK)
        return cli_store_fail(&d);
    return 0;
}

void cli_store_close(struct gc_store *s)
{
    size_t n = s ? gc_store_rows_ignored(s) : 0;
    gpucore_diag_t d = { 0 };

    /* root's gc, rescan, or a list that found files gone: the users' views follow */
    if (s && gc_store_sync_views(s, &d) != GPUCORE_OK)
        fprintf(stderr, "gpucore: warning: %s\n", d.message);

    if (n)
        fprintf(stderr,
                "gpucore: warning: %s/%s: %zu row%s of the index name no file of the store "
                "(a damaged or edited index): ignored; `gpucore store --rescan` removes them\n",
                gc_store_path(s), GC_STORE_INDEX_NAME, n, n == 1 ? "" : "s");
    gc_store_close(s);
}

/* ---------------------------------------------------------------------------------------- */
/* Times                                                                                       */
/* ---------------------------------------------------------------------------------------- */

void cli_format_time(int64_t ns, char *buf, size_t size)
{
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;

    if (ns < 0 || !gmtime_r(&secs, &tm)) {
        snprintf(buf, size, "-");
        return;
    }
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --since: "2h", "3d" (ago), or an ISO date/time in UTC: 2026-11-26, 2026-11-26T03:40[:12][Z]. */
static int parse_since(const char *text, int64_t now_ns, int64_t *ret_ns)
{
    struct tm tm;
    const char *end;
    int64_t ago;

    if (gc_store_parse_duration(text, &ago) == 0) {
        *ret_ns = now_ns - ago;
        return 0;
    }
    memset(&tm, 0, sizeof(tm));
    end = strptime(text, "%Y-%m-%d", &tm);
    if (!end)
        return -1;
    if (*end == 'T' || *end == ' ') {
        const char *t = strptime(end + 1, "%H:%M", &tm);

        if (!t)
            return -1;
        end = t;
        if (*end == ':' && !(end = strptime(end + 1, "%S", &tm)))
            return -1;
    }
    if (*end == 'Z')
        end++;
    if (*end)
        return -1;
    time_t secs = timegm(&tm);

    /* a time past what a capture time can be (2262) selects nothing: the largest one */
    *ret_ns = secs > INT64_MAX / 1000000000 ? INT64_MAX : (int64_t)secs * 1000000000;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* A row as JSON and as text                                                                   */
/* ---------------------------------------------------------------------------------------- */

json_t *cli_json_i64_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

json_t *cli_json_time_or_null(int64_t ns)
{
    char buf[32];

    if (ns < 0)
        return json_null();
    cli_format_time(ns, buf, sizeof(buf));
    return json_string(buf);
}

json_t *cli_store_row_json(const struct gc_store_row *r, const char *path)
{
    json_t *o = json_object(), *sig = json_null();

    if (r->sig_hash) {
        sig = json_object();
        json_object_set_new(sig, "hash", json_string(r->sig_hash));
        json_object_set_new(sig, "text", gc_json_str_or_null(r->sig_text));
    }
    json_object_set_new(o, "id", json_integer(r->id));
    json_object_set_new(o, "time", cli_json_time_or_null(r->time_ns));
    json_object_set_new(o, "time_ns", cli_json_i64_or_null(r->time_ns));
    json_object_set_new(o, "host", gc_json_str_or_null(r->host));
    json_object_set_new(o, "pid", cli_json_i64_or_null(r->pid));
    json_object_set_new(o, "uid", cli_json_i64_or_null(r->uid));
    json_object_set_new(o, "executable", gc_json_str_or_null(r->exe));
    json_object_set_new(o, "job", gc_json_str_or_null(r->job));
    json_object_set_new(o, "rank", cli_json_i64_or_null(r->rank));
    json_object_set_new(o, "targets", gc_json_str_or_null(r->targets));
    json_object_set_new(o, "trigger", gc_json_str_or_null(r->trigger));
    json_object_set_new(o, "signature", sig);
    json_object_set_new(o, "waves", cli_json_i64_or_null(r->waves));
    json_object_set_new(o, "faulting_waves", cli_json_i64_or_null(r->faulting_waves));
    json_object_set_new(o, "size_on_disk", cli_json_i64_or_null(r->size));
    json_object_set_new(o, "truncated", json_boolean(r->truncated));
    /* a name put there by hand need not be UTF-8: "<invalid UTF-8>" then */
    json_object_set_new(o, "file", gc_json_str_or_null(r->file));
    json_object_set_new(o, "path", gc_json_str_or_null(path));
    json_object_set_new(o, "state", json_string(gc_store_state_name(r->state)));
    json_object_set_new(o, "error", gc_json_str_or_null(r->error));
    json_object_set_new(o, "indexed_at", cli_json_time_or_null(r->indexed_at));
    json_object_set_new(o, "seen", json_integer(r->seen));
    json_object_set_new(o, "first_seen", cli_json_time_or_null(r->first_seen_ns));
    return o;
}

/* One core of `list --json` and `show --json` (docs/store.md lists the members). */
static json_t *row_json(const struct gc_store *s, const struct gc_store_row *r)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", gc_store_path(s), r->file);
    return cli_store_row_json(r, path);
}

/* Print a document; 0, or 74 when standard output cannot take it. */
static int print_json(json_t *doc)
{
    int rc = doc ? json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;

    json_decref(doc);
    if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
        return cli_fail(CLI_EXIT_IOERR, "standard output", "cannot write: %s", strerror(errno));
    return 0;
}

const char *cli_base_name(const char *p)
{
    const char *slash = p ? strrchr(p, '/') : NULL;

    return slash ? slash + 1 : p ? p : "-";
}

/* Close the escaping stream and standard output: 0, or 74. */
static int close_text(FILE *out)
{
    if ((out != stdout && fclose(out) != 0) || fflush(stdout) != 0)
        return cli_fail(CLI_EXIT_IOERR, "standard output", "cannot write: %s", strerror(errno));
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* list                                                                                        */
/* ---------------------------------------------------------------------------------------- */

static void list_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore list [--since T] [--signature S] [--exe E] [--job J] [--dedupe]\n"
            "                    [--json] [--store DIR]\n"
            "       gpucore list --fleet [--since T] [--until T] [--signature S] [--exe E]\n"
            "                    [--job J] [--host NODE] [--dedupe] [--json]\n"
            "                    [--fleet-index URI] [--config FILE]\n\n"
            "List the cores of the store, oldest first (newest last). SEEN counts the cores\n"
            "of the same crash signature in the store; a line per signature follows: \"seen N\n"
            "times since TIME\". Files deleted or moved by hand show as missing.\n"
            "Only your own cores unless you are root.\n\n"
            "  --since T        captured at or after T: 2h, 3d, 1w ago, or "
            "2026-11-26[T03:40[:12]]\n"
            "                   (UTC)\n"
            "  --signature S    a signature's hash (or its first 4+ digits) or its text\n"
            "  --exe E          executable path, or its base name\n"
            "  --job J          batch job id\n"
            "  --dedupe         one line per signature instead: SEEN, the first and the last\n"
            "                   capture, the last one's id, executable and the signature's text\n"
            "  --json           one document, schema \"" LIST_SCHEMA "\": \"cores\" (or with\n"
            "                   --dedupe \"signatures\")\n"
            "  --store DIR      the store (default: $GPUCORE_STORE, else /var/lib/gpucore/cores\n"
            "                   for root, $XDG_STATE_HOME/gpucore/cores otherwise)\n"
            "  --fleet          the fleet index instead (docs/fleet.md): the cores of every\n"
            "                   host the database lets you see, with their HOST; ID is the\n"
            "                   fleet's. With --dedupe: one line per signature, most cores\n"
            "                   first, with the counts of cores, hosts and jobs\n"
            "  --until T        (--fleet) captured before T, as --since takes it\n"
            "  --host NODE      (--fleet) the cores indexed on host NODE\n"
            "  --fleet-index URI  (--fleet) the database (default: FleetIndex= of store.conf)\n"
            "  --config FILE    (--fleet) the store.conf naming it\n"
            "  -h, --help       this text\n");
}

/* A number of a row, "-" when unknown. */
void cli_row_number(int64_t v, char *buf, size_t size)
{
    if (v < 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%" PRId64, v);
}

static void print_list(FILE *out, const struct gc_store_row *rows, size_t n)
{
    char t[32], size[32], waves[48], jr[64], pid[24], uid[24], seen[24];

    fprintf(out, "%-20s %5s %7s %5s %-16s %-12s %-12s %-11s %9s %-10s %4s\n", "TIME", "ID", "PID",
            "UID", "EXE", "JOB/RANK", "SIGNATURE", "WAVES", "SIZE", "STATE", "SEEN");
    for (size_t i = 0; i < n; i++) {
        const struct gc_store_row *r = &rows[i];

        cli_format_time(r->time_ns, t, sizeof(t));
        if (r->waves >= 0)
            snprintf(waves, sizeof(waves), "%" PRId64 "/%" PRId64, r->faulting_waves, r->waves);
        else
            snprintf(waves, sizeof(waves), "-");
        cli_row_number(r->pid, pid, sizeof(pid));
        cli_row_number(r->uid, uid, sizeof(uid));
        cli_row_number(r->seen > 0 ? r->seen : -1, seen,
                       sizeof(seen)); /* unreadable: no crash seen */
        snprintf(jr, sizeof(jr), "%.24s/", r->job ? r->job : "-");
        cli_row_number(r->rank, jr + strlen(jr), sizeof(jr) - strlen(jr));
        fprintf(out, "%-20s %5" PRId64 " %7s %5s %-16.16s %-12.12s %-12.12s %-11s %9s %-10s %4s\n",
                t, r->id, pid, uid, cli_base_name(r->exe), jr, r->sig_hash ? r->sig_hash : "-",
                waves, gc_format_size((uint64_t)(r->size > 0 ? r->size : 0), size, sizeof(size)),
                gc_store_state_name(r->state), seen);
    }
}

/* "seen N times since T" once per signature, in the order the signatures first appear. */
static void print_seen(FILE *out, const struct gc_store_row *rows,
                       const struct gc_store_sig_group *groups, size_t ngroups)
{
    char t[32];

    for (size_t g = 0; g < ngroups; g++) {
        const struct gc_store_row *r = &rows[groups[g].first];

        if (g == 0)
            fputc('\n', out);
        cli_format_time(r->first_seen_ns, t, sizeof(t));
        fprintf(out, "%s %s: seen %" PRId64 " time%s since %s\n", r->sig_hash,
                r->sig_text ? r->sig_text : "", r->seen, r->seen == 1 ? "" : "s", t);
    }
}

static const struct option list_longopts[] = {
    { "since", required_argument, NULL, 'S' },
    { "signature", required_argument, NULL, 's' },
    { "exe", required_argument, NULL, 'e' },
    { "job", required_argument, NULL, 'j' },
    { "json", no_argument, NULL, 'J' },
    { "store", required_argument, NULL, 'd' },
    { "dedupe", no_argument, NULL, 'D' },
    { "fleet", no_argument, NULL, 'F' },
    { "fleet-index", required_argument, NULL, 'I' },
    { "config", required_argument, NULL, 'c' },
    { "host", required_argument, NULL, 'H' },
    { "until", required_argument, NULL, 'u' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/*
 * --dedupe: one entry per signature among @p rows (oldest first), in the order the signatures
 * first appear; cores without a signature are left out. Each: the signature, how many cores
 * the index has of it ("seen", deleted ones included), the first and the last capture among
 * @p rows and the last one's id, file and executable.
 */
static json_t *dedupe_json(const struct gc_store_row *rows,
                           const struct gc_store_sig_group *groups, size_t ngroups)
{
    json_t *list = json_array();

    for (size_t g = 0; g < ngroups; g++) {
        const struct gc_store_row *first = &rows[groups[g].first], *last = &rows[groups[g].last];
        json_t *o = json_object(), *sig = json_object();

        json_object_set_new(sig, "hash", json_string(first->sig_hash));
        json_object_set_new(sig, "text", gc_json_str_or_null(first->sig_text));
        json_object_set_new(o, "signature", sig);
        json_object_set_new(o, "seen", json_integer(first->seen));
        json_object_set_new(o, "listed", json_integer((json_int_t)groups[g].count));
        json_object_set_new(o, "first_seen", cli_json_time_or_null(first->first_seen_ns));
        json_object_set_new(o, "last", cli_json_time_or_null(last->time_ns));
        json_object_set_new(o, "last_id", json_integer(last->id));
        json_object_set_new(o, "last_file", gc_json_str_or_null(last->file));
        json_object_set_new(o, "executable", gc_json_str_or_null(last->exe));
        json_array_append_new(list, o);
    }
    return list;
}

static void print_dedupe(FILE *out, const json_t *list)
{
    const json_t *e;
    size_t i;

    fprintf(out, "%-16s %5s %-20s %-20s %7s %-16s %s\n", "SIGNATURE", "SEEN", "FIRST", "LAST",
            "LAST ID", "EXE", "TEXT");
    json_array_foreach(list, i, e)
    {
        const json_t *sig = json_object_get(e, "signature");

        fprintf(out, "%-16s %5" PRIu64 " %-20s %-20s %7" PRIu64 " %-16.16s %s\n",
                gc_json_get_str_or(sig, "hash", "-"), gc_json_get_u64(e, "seen"),
                gc_json_get_str_or(e, "first_seen", "-"), gc_json_get_str_or(e, "last", "-"),
                gc_json_get_u64(e, "last_id"),
                cli_base_name(gc_json_get_str_or(e, "executable", "-")),
                gc_json_get_str_or(sig, "text", ""));
    }
}

/* The members of a list document before its list: the schema, the store, its filesystem
   and the journal its index uses there (docs/store.md). */
static void list_head(json_t *doc, const struct gc_store *s)
{
    char fs[32];

    json_object_set_new(doc, "schema", json_string(LIST_SCHEMA));
    json_object_set_new(doc, "store", gc_json_str_or_null(gc_store_path(s)));
    json_object_set_new(doc, "filesystem", json_string(gc_store_fs_name(s, fs, sizeof(fs))));
    json_object_set_new(doc, "journal", json_string(gc_store_journal_name(gc_store_journal(s))));
}

/* The rows list --json writes, and the store they come from. */
struct list_rows {
    const struct gc_store *store;
    const struct gc_store_row *rows;
};

static json_t *list_row_json(size_t i, void *user)
{
    const struct list_rows *l = user;

    return row_json(l->store, &l->rows[i]);
}

/*
 * list --json, written a core at a time (cli_json_stream_array()): the same bytes as the whole
 * document built and given to print_json(), without every core's JSON held at once (jansson's
 * objects take about 4.7 KiB a core: 237 MiB for 50,000). 0, 70 (out of memory) or 74.
 */
static int print_list_json(const struct gc_store *s, const struct gc_store_row *rows, size_t n)
{
    struct list_rows l = { .store = s, .rows = rows };
    json_t *head = json_object();
    int rc = CLI_EXIT_SOFTWARE;

    if (head) {
        list_head(head, s);
        rc = cli_json_stream_array(head, "cores", n, list_row_json, &l);
    }
    json_decref(head);
    if (rc == CLI_EXIT_SOFTWARE) {
        fflush(stdout);
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    }
    if (rc != CLI_EXIT_OK)
        return cli_fail(CLI_EXIT_IOERR, "standard output", "cannot write: %s", strerror(errno));
    return 0;
}

/*
 * A user's list of their own store: when root's store (GC_STORE_ROOT_DIR) holds cores of theirs
 * too (their view of it is there), say how to see them, as the crash of a process under a
 * system-wide capture (the kernel's core pattern, a service) goes there.
 */
static void hint_root_view(const struct gc_store *s)
{
    if (!gc_store_root_has_own_view(s))
        return;
    fprintf(stderr,
            "gpucore: note: root's store holds cores of yours too: gpucore list --store %s\n",
            GC_STORE_ROOT_DIR);
}

int cmd_list(int argc, char **argv)
{
    struct gc_store_filter f = { 0 };
    struct gc_store_row *rows = NULL;
    struct gc_store_sig_group *groups = NULL;
    size_t ngroups = 0;
    struct gc_store *s = NULL;
    const char *store = NULL;
    gpucore_diag_t d = { 0 };
    size_t n = 0;
    struct cli_fleet_args fa = { 0 };
    int c, json = 0, dedupe = 0, fleet = 0, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", list_longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            if (parse_since(optarg, now_ns(), &f.since_ns) != 0)
                return cli_usage_error("list",
                                       "--since takes 2h, 3d, 1w or "
                                       "2026-11-26[T03:40[:12]], got '%s'",
                                       optarg);
            break;
        case 's':
            f.signature = optarg;
            break;
        case 'e':
            f.exe = optarg;
            break;
        case 'j':
            f.job = optarg;
            break;
        case 'J':
            json = 1;
            break;
        case 'D':
            dedupe = 1;
            break;
        case 'd':
            store = optarg;
            break;
        case 'F':
            fleet = 1;
            break;
        case 'I':
            fa.uri = optarg;
            break;
        case 'c':
            fa.config = optarg;
            break;
        case 'H':
            fa.filter.node = optarg;
            break;
        case 'u':
            if (parse_since(optarg, now_ns(), &fa.filter.until_ns) != 0)
                return cli_usage_error("list",
                                       "--until takes 2h, 3d, 1w or "
                                       "2026-11-26[T03:40[:12]], got '%s'",
                                       optarg);
            break;
        case 'h':
            list_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("list", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("list", "unexpected argument '%s'", argv[optind]);
    if (fleet) {
        if (store)
            return cli_usage_error("list", "--store and --fleet: one or the other");
        fa.filter.since_ns = f.since_ns;
        fa.filter.signature = f.signature;
        fa.filter.exe = f.exe;
        fa.filter.job = f.job;
        fa.json = json;
        fa.dedupe = dedupe;
        return cli_fleet_list(&fa);
    }
    if (fa.uri || fa.config || fa.filter.node || fa.filter.until_ns)
        return cli_usage_error("list", "--fleet-index, --config, --host and --until go with "
                                       "--fleet");
    rc = cli_store_open(store, &s);
    if (rc)
        return rc;
    if (gc_store_query_visible(s, &f, &rows, &n, &d) != GPUCORE_OK) {
        rc = cli_store_fail(&d);
        goto out;
    }
    /* One sort groups the signatures: comparing each row with those before it was quadratic
       (50,000 cores of distinct signatures: 1.25 billion comparisons). */
    if (gc_store_group_by_signature(rows, n, &groups, &ngroups) != GPUCORE_OK) {
        rc = cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        goto out;
    }
    if (dedupe) {
        json_t *list = dedupe_json(rows, groups, ngroups);

        if (json) {
            json_t *doc = json_object();

            list_head(doc, s);
            json_object_set_new(doc, "signatures", list);
            rc = print_json(doc);
        } else {
            FILE *out = cli_text_open(stdout);

            if (!out)
                out = stdout;
            print_dedupe(out, list);
            json_decref(list);
            rc = close_text(out);
        }
    } else if (json) {
        rc = print_list_json(s, rows, n);
    } else {
        FILE *out = cli_text_open(stdout);

        if (!out)
            out = stdout;
        if (n == 0)
            fprintf(out, "No cores in %s.\n", gc_store_path(s));
        else {
            print_list(out, rows, n);
            print_seen(out, rows, groups, ngroups);
        }
        rc = close_text(out);
    }
    if (rc == 0 && !store)
        hint_root_view(s);
out:
    free(groups);
    gc_store_rows_free(rows, n);
    cli_store_close(s);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* show                                                                                        */
/* ---------------------------------------------------------------------------------------- */

static void show_help(FILE *out)
{
    fprintf(out, "Usage: gpucore show [--json] [--store DIR] ID|PATH\n"
                 "       gpucore show --fleet [--json] [--fleet-index URI] [--config FILE] ID\n\n"
                 "One core of the store: its index row and the first lines `gpucore analyze`\n"
                 "prints (the summary). PATH is a file of the store (its name is enough).\n"
                 "With --fleet, the row ID of the fleet index (docs/fleet.md) and where the\n"
                 "core is: its host and path there (the core is not read: analyze it there).\n"
                 "  --json       one document, schema \"" SHOW_SCHEMA "\" (--fleet: \""
                 SHOW_FLEET_SCHEMA "\")\n"
                 "  --store DIR  the store (as `gpucore list --help` says)\n"
                 "  --fleet-index URI, --config FILE  the fleet's database (`list --help`)\n"
                 "  -h, --help   this text\n");
}

/* The triage report of the row's file, or NULL with *why set (a missing or unreadable file). */
static json_t *show_report(const struct gc_store *s, const struct gc_store_row *r, char *why,
                           size_t why_size)
{
    struct gc_triage_signed sig = { 0 };
    struct gc_triage_error e = { 0 };
    gpucore_core_t *core = NULL;
    gpucore_diag_t d = { 0 };
    int fd = openat(gc_store_dirfd(s), r->file,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0) {
        snprintf(why, why_size, "%s",
                 errno == ELOOP ? "the file is a symlink: not followed" : strerror(errno));
        return NULL;
    }
    if (gpucore_core_open_fd(fd,
                             GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                             &core, &d) != GPUCORE_OK) {
        close(fd);
        snprintf(why, why_size, "%s", d.message);
        return NULL;
    }
    close(fd);
    if (gc_triage_sign(core, r->file, &sig, &e) != GPUCORE_OK)
        snprintf(why, why_size, "%s", e.diag.message);
    gpucore_core_close(core);
    return sig.report;
}

static void show_text(FILE *out, const struct gc_store *s, const struct gc_store_row *r,
                      const json_t *report, const char *why)
{
    char t[32], first[32], size[32];
    const json_t *v;
    size_t i;

    cli_format_time(r->time_ns, t, sizeof(t));
    cli_format_time(r->first_seen_ns, first, sizeof(first));
    fprintf(out, "           ID: %" PRId64 "\n", r->id);
    fprintf(out, "         File: %s/%s (%s)\n", gc_store_path(s), r->file,
            gc_store_state_name(r->state));
    fprintf(out, "         Time: %s\n", t);
    fprintf(out, "         Host: %s\n", r->host ? r->host : "-");
    fprintf(out, "          PID: %" PRId64 "\n", r->pid);
    fprintf(out, "   Executable: %s\n", r->exe ? r->exe : "-");
    fprintf(out, "     Job/rank: %s/", r->job ? r->job : "-");
    if (r->rank >= 0)
        fprintf(out, "%" PRId64 "\n", r->rank);
    else
        fputs("-\n", out);
    fprintf(out, "      Targets: %s\n", r->targets ? r->targets : "-");
    fprintf(out, "      Trigger: %s\n", r->trigger ? r->trigger : "-");
    if (r->sig_hash)
        fprintf(out, "    Signature: %s (%s), seen %" PRId64 " time%s since %s\n", r->sig_hash,
                r->sig_text ? r->sig_text : "", r->seen, r->seen == 1 ? "" : "s", first);
    else
        fprintf(out, "    Signature: -\n");
    if (r->waves >= 0)
        fprintf(out, "        Waves: %" PRId64 " (%" PRId64 " faulting)\n", r->waves,
                r->faulting_waves);
    fprintf(out, " Size on disk: %s%s\n",
            gc_format_size((uint64_t)(r->size > 0 ? r->size : 0), size, sizeof(size)),
            r->truncated ? ", truncated" : "");
    if (r->error)
        fprintf(out, "        Error: %s\n", r->error);
    fputc('\n', out);
    if (!report) {
        fprintf(out, "No report: %s\n", why);
        return;
    }
    json_array_foreach(json_object_get(report, GC_TK_SUMMARY), i, v)
            fprintf(out, "%s\n", json_string_value(v));
}

/* @p path's directory is the store's (the same directory, whatever the spelling). */
static int in_store(const struct gc_store *s, const char *path)
{
    char parent[PATH_MAX];
    const char *slash = strrchr(path, '/');
    struct stat a, b;
    size_t n = (size_t)(slash - path);

    if (n >= sizeof(parent))
        return 0;
    memcpy(parent, path, n);
    parent[n] = '\0';
    return stat(n ? parent : "/", &a) == 0 && fstat(gc_store_dirfd(s), &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The row @p arg names: an id, or a file of the store (a path whose last part is its name). */
static int find_row(struct gc_store *s, const char *arg, struct gc_store_row **ret, size_t *ret_n)
{
    struct gc_store_filter f = { 0 };
    gpucore_diag_t d = { 0 };
    long id;

    if (cli_parse_int(arg, 1, LONG_MAX, &id) == 0) {
        f.id = id;
    } else {
        f.file = cli_base_name(arg);
        if (strchr(arg, '/') && !in_store(s, arg))
            return cli_fail(CLI_EXIT_NOINPUT, arg,
                            "not a file of the store %s (`gpucore "
                            "analyze` reads any core)",
                            gc_store_path(s));
    }
    if (gc_store_query_visible(s, &f, ret, ret_n, &d) != GPUCORE_OK)
        return cli_store_fail(&d);
    if (*ret_n == 0)
        return cli_fail(CLI_EXIT_NOINPUT, gc_store_path(s),
                        "no core %s in the store's index "
                        "(`gpucore list` lists them; `gpucore store --rescan` adds files)",
                        arg);
    return 0;
}

static const struct option show_longopts[] = {
    { "json", no_argument, NULL, 'J' },
    { "store", required_argument, NULL, 'd' },
    { "fleet", no_argument, NULL, 'F' },
    { "fleet-index", required_argument, NULL, 'I' },
    { "config", required_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

int cmd_show(int argc, char **argv)
{
    struct gc_store *s = NULL;
    struct gc_store_row *rows = NULL;
    const char *store = NULL;
    json_t *report = NULL;
    char why[GPUCORE_DIAG_MESSAGE_SIZE] = "";
    size_t n = 0;
    struct cli_fleet_args fa = { 0 };
    int c, json = 0, fleet = 0, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", show_longopts, NULL)) != -1) {
        switch (c) {
        case 'J':
            json = 1;
            break;
        case 'd':
            store = optarg;
            break;
        case 'F':
            fleet = 1;
            break;
        case 'I':
            fa.uri = optarg;
            break;
        case 'c':
            fa.config = optarg;
            break;
        case 'h':
            show_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("show", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("show", optind < argc ? "one core only" : "expected ID or PATH");
    if (fleet) {
        if (store)
            return cli_usage_error("show", "--store and --fleet: one or the other");
        fa.json = json;
        return cli_fleet_show(&fa, argv[optind]);
    }
    if (fa.uri || fa.config)
        return cli_usage_error("show", "--fleet-index and --config go with --fleet");
    rc = cli_store_open(store, &s);
    if (rc)
        return rc;
    rc = find_row(s, argv[optind], &rows, &n);
    if (rc)
        goto out;
    if (rows[0].state == GC_STORE_PRESENT) {
        gc_triage_preload_disassembler();
        report = show_report(s, &rows[0], why, sizeof(why));
    } else {
        snprintf(why, sizeof(why), "the file is %s", gc_store_state_name(rows[0].state));
    }
    if (json) {
        json_t *doc = json_object();

        json_object_set_new(doc, "schema", json_string(SHOW_SCHEMA));
        json_object_set_new(doc, "core", row_json(s, &rows[0]));
        json_object_set_new(doc, "summary",
                            report ? json_incref(json_object_get(report, GC_TK_SUMMARY))
                                   : json_null());
        json_object_set_new(doc, "report_error", report ? json_null() : json_string(why));
        rc = print_json(doc);
    } else {
        FILE *out = cli_text_open(stdout);

        if (!out)
            out = stdout;
        show_text(out, s, &rows[0], report, why);
        rc = close_text(out);
    }
out:
    json_decref(report);
    gc_store_rows_free(rows, n);
    cli_store_close(s);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* gc                                                                                          */
/* ---------------------------------------------------------------------------------------- */

#define CONF_SYSTEM GC_STORE_CONF_SYSTEM

static void vacuum_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore gc [--max-use SIZE] [--keep-free SIZE] [--max-age AGE]\n"
            "                  [--keep-per-signature N] [--dry-run] [--config FILE] [--store "
            "DIR]\n\n"
            "Remove cores from the store: first the cores of a signature after its first N,\n"
            "then those older than AGE, then the oldest while the store uses more than\n"
            "--max-use or the file system has less free than --keep-free. Their rows stay,\n"
            "marked deleted. Defaults come from the configuration file: " CONF_SYSTEM "\n"
            "for root, $XDG_CONFIG_HOME/gpucore/store.conf (~/.config/...) otherwise; options\n"
            "win. Without any limit nothing is removed.\n\n"
            "  --max-use SIZE           e.g. 10G (K, M, G, T)\n"
            "  --keep-free SIZE         e.g. 2G\n"
            "  --max-age AGE            e.g. 30d (s, m, h, d, w)\n"
            "  --keep-per-signature N   keep the first N cores of each signature\n"
            "  --dry-run                say what would go; remove nothing\n"
            "  --config FILE            read FILE instead of the default configuration file\n"
            "  --store DIR              the store (as `gpucore list --help` says)\n"
            "  --fleet-index URI        the fleet index to tell (else store.conf's FleetIndex=)\n"
            "  -h, --help               this text\n");
}

/* The configuration file's statuses (gc_store_conf_load()) -> exit codes; the path too long is
   a usage error, and a file that does not parse has its name in the message. */
static const struct {
    gpucore_status_t status;
    int code;
} conf_exit[] = {
    { GPUCORE_E_PERM, CLI_EXIT_NOPERM }, { GPUCORE_E_NOTFOUND, CLI_EXIT_NOINPUT },
    { GPUCORE_E_IO, CLI_EXIT_IOERR },    { GPUCORE_E_NOMEM, CLI_EXIT_SOFTWARE },
};

/* Read the configuration file into @p p: 0 (also when the default one does not exist), or an
   exit code after printing. @p used (PATH_MAX bytes; may be NULL) gets the file's path, or ""
   when no file was read. */
static int read_conf(const char *cmd, const char *option, struct gc_store_policy *p, char *used)
{
    struct gc_store_conf c = { .gc = *p };
    char path[PATH_MAX];
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_store_conf_load(option, &c, path, sizeof(path), &d);

    if (used)
        used[0] = '\0';
    if (st == GPUCORE_E_LIMIT)
        return cli_usage_error(cmd, "%s", d.message);
    if (st == GPUCORE_E_CORRUPT)
        return cli_fail(CLI_EXIT_DATAERR, NULL, "%s", d.message);
    for (size_t i = 0; st != GPUCORE_OK && i < sizeof(conf_exit) / sizeof(conf_exit[0]); i++)
        if (conf_exit[i].status == st)
            return cli_fail(conf_exit[i].code, path, "%s", d.message);
    if (st != GPUCORE_OK)
        return cli_fail(CLI_EXIT_SOFTWARE, path, "%s", d.message);
    *p = c.gc;
    if (used)
        memcpy(used, path, strlen(path) + 1);
    return 0;
}

/* What `gpucore gc` reports as it removes (or would remove) cores. */
struct vacuum_report {
    FILE *out;
    int dry_run;
    size_t count;
};

static void on_removed(void *user, const struct gc_store_row *r, const char *why)
{
    struct vacuum_report *g = user;
    char size[32];

    g->count++;
    fprintf(g->out, "%s %s (id %" PRId64 ", %s): %s\n", g->dry_run ? "would remove" : "removed",
            r->file, r->id,
            gc_format_size((uint64_t)(r->size > 0 ? r->size : 0), size, sizeof(size)), why);
}

static const struct option vacuum_longopts[] = {
    { "max-use", required_argument, NULL, 'u' },
    { "keep-free", required_argument, NULL, 'f' },
    { "max-age", required_argument, NULL, 'a' },
    { "keep-per-signature", required_argument, NULL, 'k' },
    { "dry-run", no_argument, NULL, 'n' },
    { "config", required_argument, NULL, 'c' },
    { "store", required_argument, NULL, 'd' },
    { "fleet-index", required_argument, NULL, 'I' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* An option's value, parsed into the policy later (after the file): kept by its letter. */
struct vacuum_args {
    const char *max_use, *keep_free, *max_age, *keep_per_signature, *config, *store, *fleet;
    int dry_run;
};

/* The options over the file's values: 0 or the usage error's exit code. */
static int apply_options(const struct vacuum_args *a, struct gc_store_policy *p)
{
    long k;

    if (a->max_use && gc_store_parse_size(a->max_use, &p->max_use) != 0)
        return cli_usage_error("gc", "--max-use takes a size such as 10G, got '%s'", a->max_use);
    if (a->keep_free && gc_store_parse_size(a->keep_free, &p->keep_free) != 0)
        return cli_usage_error("gc", "--keep-free takes a size such as 2G, got '%s'", a->keep_free);
    if (a->max_age && gc_store_parse_duration(a->max_age, &p->max_age_ns) != 0)
        return cli_usage_error("gc", "--max-age takes a duration such as 30d, got '%s'",
                               a->max_age);
    if (a->keep_per_signature) {
        if (cli_parse_int(a->keep_per_signature, 0, 1000000, &k) != 0)
            return cli_usage_error("gc",
                                   "--keep-per-signature takes a count 0..1000000, got "
                                   "'%s'",
                                   a->keep_per_signature);
        p->keep_per_signature = k;
    }
    return 0;
}

int cmd_gc(int argc, char **argv)
{
    struct gc_store_policy p = { .keep_per_signature = -1 };
    struct vacuum_args a = { 0 };
    struct gc_store *s = NULL;
    struct vacuum_report g = { 0 };
    gpucore_diag_t d = { 0 };
    uint64_t freed = 0;
    char size[32];
    int c, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", vacuum_longopts, NULL)) != -1) {
        switch (c) {
        case 'u':
            a.max_use = optarg;
            break;
        case 'f':
            a.keep_free = optarg;
            break;
        case 'a':
            a.max_age = optarg;
            break;
        case 'k':
            a.keep_per_signature = optarg;
            break;
        case 'n':
            a.dry_run = 1;
            break;
        case 'c':
            a.config = optarg;
            break;
        case 'd':
            a.store = optarg;
            break;
        case 'I':
            if ((rc = cli_fleet_option("gc", optarg)) != 0)
                return rc;
            a.fleet = optarg;
            break;
        case 'h':
            vacuum_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("gc", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("gc", "unexpected argument '%s'", argv[optind]);
    rc = read_conf("gc", a.config, &p, NULL);
    if (rc == 0)
        rc = apply_options(&a, &p);
    if (rc == 0)
        rc = cli_store_open(a.store, &s);
    if (rc)
        return rc;
    g.out = cli_text_open(stdout);
    if (!g.out)
        g.out = stdout;
    g.dry_run = a.dry_run;
    if (gc_store_gc(s, &p, a.dry_run, now_ns(), on_removed, &g, &freed, &d) != GPUCORE_OK) {
        close_text(g.out);
        rc = cli_store_fail(&d);
    } else {
        fprintf(g.out, "%s %zu core%s, %s.\n", a.dry_run ? "Would remove" : "Removed", g.count,
                g.count == 1 ? "" : "s", gc_format_size(freed, size, sizeof(size)));
        rc = close_text(g.out);
        if (!a.dry_run)
            cli_fleet_sync_warn(s, a.fleet, a.config);
    }
    cli_store_close(s);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* store                                                                                       */
/* ---------------------------------------------------------------------------------------- */

static void store_help(FILE *out)
{
    fprintf(out, "Usage: gpucore store [--json] [--config FILE] [--store DIR]\n"
                 "       gpucore store --rescan [--fleet-sync] [--fleet-index URI] [--config FILE]\n"
                 "                     [--store DIR]\n"
                 "       gpucore store --fleet-sync [--fleet-index URI] [--config FILE] [--store DIR]\n\n"
                 "Without --rescan: the store's state. Where it is, its filesystem and index\n"
                 "journal, the free space, how many cores are present, missing, deleted by gc or\n"
                 "unreadable (those `gpucore list` shows), how many signatures, the limits of\n"
                 "the configuration file (as `gpucore gc` reads it) and what `gpucore gc` would\n"
                 "remove now.\n\n"
                 "--rescan: rebuild the store's index from its files: files not in the index (or\n"
                 "changed) are read and added, rows whose file is gone are marked missing. A\n"
                 "file that is not a readable core is listed as unreadable. Symlinks are never\n"
                 "followed. Then the fleet index (if one is set) gets what changed.\n\n"
                 "--fleet-sync: send the rows the fleet index does not have yet (after an outage;\n"
                 "from a timer), and say how many went and how many still wait (docs/fleet.md).\n\n"
                 "  --json             the state as one JSON document (docs/store.md)\n"
                 "  --config FILE      the configuration file whose limits (and FleetIndex=) to use\n"
                 "  --rescan           rebuild the index\n"
                 "  --fleet-sync       send what the fleet index lacks\n"
                 "  --fleet-index URI  the fleet index's PostgreSQL URI (else store.conf's FleetIndex=)\n"
                 "  --store DIR        the store (as `gpucore list --help` says)\n"
                 "  -h, --help         this text\n");
}

/* What `gpucore store` says of the rows it may show. */
struct store_state {
    struct gc_store_summary sum; /* the rows (gc_store_summarize()) */
    uint64_t free_bytes, total_bytes;
    uint64_t gc_count, gc_bytes; /* what gc would remove now */
};

static void on_would_remove(void *user, const struct gc_store_row *r, const char *why)
{
    struct store_state *st = user;

    (void)why;
    st->gc_count++;
    st->gc_bytes += (uint64_t)(r->size > 0 ? r->size : 0);
}

/* A duration in the largest unit of store.conf's that divides it: "30d", "90m", "45s". */
static void format_duration(int64_t ns, char *buf, size_t size)
{
    static const struct {
        char unit;
        int64_t secs;
    } units[] = { { 'w', 604800 }, { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };
    int64_t secs = ns / 1000000000;

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (secs % units[i].secs == 0 || units[i].secs == 1) {
            snprintf(buf, size, "%" PRId64 "%c", secs / units[i].secs, units[i].unit);
            return;
        }
}

static json_t *size_or_null(uint64_t v)
{
    return v ? json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v)) : json_null();
}

/* The store's filesystem is one the table calls network (its index uses the rollback journal). */
static int store_on_network(const struct gc_store *s)
{
    const struct gc_store_fs *fs = gc_store_fs_lookup(gc_store_fs_type(s));

    return fs && fs->network;
}

static int store_json(const struct gc_store *s, const struct store_state *st,
                      const struct gc_store_policy *p, const char *conf)
{
    json_t *doc = json_object(), *cores = json_object(), *pol = json_object(), *gc = json_object();
    char fs[32];

    json_object_set_new(doc, "schema", json_string(STORE_SCHEMA));
    json_object_set_new(doc, "store", gc_json_str_or_null(gc_store_path(s)));
    json_object_set_new(doc, "filesystem", json_string(gc_store_fs_name(s, fs, sizeof(fs))));
    json_object_set_new(doc, "network", json_boolean(store_on_network(s)));
    json_object_set_new(doc, "journal", json_string(gc_store_journal_name(gc_store_journal(s))));
    json_object_set_new(doc, "free_bytes", json_integer((json_int_t)st->free_bytes));
    json_object_set_new(doc, "total_bytes", json_integer((json_int_t)st->total_bytes));
    for (int i = 0; i < _GC_STORE_STATE_MAX; i++)
        json_object_set_new(cores, gc_store_state_name(i),
                            json_integer((json_int_t)st->sum.count[i]));
    json_object_set_new(doc, "cores", cores);
    json_object_set_new(doc, "present_bytes", json_integer((json_int_t)st->sum.present_bytes));
    json_object_set_new(doc, "signatures", json_integer((json_int_t)st->sum.signatures));
    json_object_set_new(doc, "oldest", cli_json_time_or_null(st->sum.oldest_ns));
    json_object_set_new(doc, "newest", cli_json_time_or_null(st->sum.newest_ns));
    if (gc_store_is_view(s)) {
        /* a user's view of root's store: root's limits and gc are not the user's to see */
        json_object_set_new(doc, "view", json_true());
        json_object_set_new(doc, "config", json_null());
        json_object_set_new(doc, "policy", json_null());
        json_object_set_new(doc, "gc", json_null());
        json_decref(pol);
        json_decref(gc);
        return print_json(doc);
    }
    json_object_set_new(doc, "view", json_false());
    json_object_set_new(doc, "config", conf[0] ? gc_json_str_or_null(conf) : json_null());
    json_object_set_new(pol, "max_use", size_or_null(p->max_use));
    json_object_set_new(pol, "keep_free", size_or_null(p->keep_free));
    json_object_set_new(pol, "max_age_s",
                        p->max_age_ns > 0 ? json_integer(p->max_age_ns / 1000000000) : json_null());
    json_object_set_new(pol, "keep_per_signature", cli_json_i64_or_null(p->keep_per_signature));
    json_object_set_new(doc, "policy", pol);
    json_object_set_new(gc, "would_remove", json_integer((json_int_t)st->gc_count));
    json_object_set_new(gc, "would_free", json_integer((json_int_t)st->gc_bytes));
    json_object_set_new(doc, "gc", gc);
    return print_json(doc);
}

static int store_text(const struct gc_store *s, const struct store_state *st,
                      const struct gc_store_policy *p, const char *conf)
{
    FILE *out = cli_text_open(stdout);
    char a[32], b[32], fs[32];
    int limits = 0;

    if (!out)
        out = stdout;
    fprintf(out, "Store:       %s\n", gc_store_path(s));
    fprintf(out, "Filesystem:  %s (%s), index journal %s\n", gc_store_fs_name(s, fs, sizeof(fs)),
            store_on_network(s) ? "network" : "local", gc_store_journal_name(gc_store_journal(s)));
    fprintf(out, "Free:        %s of %s\n", gc_format_size(st->free_bytes, a, sizeof(a)),
            gc_format_size(st->total_bytes, b, sizeof(b)));
    fprintf(out, "Cores:       %zu present (%s), %zu missing, %zu deleted by gc, %zu unreadable\n",
            st->sum.count[GC_STORE_PRESENT], gc_format_size(st->sum.present_bytes, a, sizeof(a)),
            st->sum.count[GC_STORE_MISSING], st->sum.count[GC_STORE_DELETED],
            st->sum.count[GC_STORE_UNREADABLE]);
    fprintf(out, "Signatures:  %zu among the present cores\n", st->sum.signatures);
    if (st->sum.oldest_ns >= 0) {
        cli_format_time(st->sum.oldest_ns, a, sizeof(a));
        cli_format_time(st->sum.newest_ns, b, sizeof(b));
        fprintf(out, "Captured:    %s to %s\n", a, b);
    }
    if (gc_store_is_view(s)) {
        /* root's limits and gc are root's: a user's view of root's store cannot change it */
        fputs("Limits:      root's (this is your read-only view of root's store: your cores "
              "only)\n",
              out);
        return close_text(out);
    }
    fputs("Limits:      ", out);
    if (p->max_use)
        limits += fprintf(out, "%sMaxUse=%s", limits ? " " : "",
                          gc_format_size(p->max_use, a, sizeof(a))) > 0;
    if (p->keep_free)
        limits += fprintf(out, "%sKeepFree=%s", limits ? " " : "",
                          gc_format_size(p->keep_free, a, sizeof(a))) > 0;
    if (p->max_age_ns > 0) {
        format_duration(p->max_age_ns, a, sizeof(a));
        limits += fprintf(out, "%sMaxAge=%s", limits ? " " : "", a) > 0;
    }
    if (p->keep_per_signature >= 0)
        limits += fprintf(out, "%sKeepPerSignature=%" PRId64, limits ? " " : "",
                          p->keep_per_signature) > 0;
    if (!limits)
        fputs("none", out);
    if (conf[0])
        fprintf(out, " (%s)\n", conf);
    else
        fputs(" (no configuration file)\n", out);
    fprintf(out, "gc now:      would remove %" PRIu64 " core%s, %s\n", st->gc_count,
            st->gc_count == 1 ? "" : "s", gc_format_size(st->gc_bytes, a, sizeof(a)));
    return close_text(out);
}

/* `gpucore store` without --rescan. */
static int store_status(const char *store, const char *config, int json)
{
    struct gc_store_policy p = { .keep_per_signature = -1 };
    struct gc_store_filter f = { 0 };
    struct store_state st = { 0 };
    struct gc_store_row *rows = NULL;
    struct gc_store *s = NULL;
    gpucore_diag_t d = { 0 };
    struct statvfs vfs;
    char conf[PATH_MAX];
    size_t n = 0;
    int rc;

    rc = read_conf("store", config, &p, conf);
    if (rc == 0)
        rc = cli_store_open(store, &s);
    if (rc)
        return rc;
    if (gc_store_query_visible(s, &f, &rows, &n, &d) != GPUCORE_OK ||
        (!gc_store_is_view(s) &&
         gc_store_gc(s, &p, 1, now_ns(), on_would_remove, &st, NULL, &d) != GPUCORE_OK)) {
        rc = cli_store_fail(&d);
        goto out;
    }
    if (gc_store_summarize(rows, n, &st.sum) != GPUCORE_OK) {
        rc = cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        goto out;
    }
    if (fstatvfs(gc_store_dirfd(s), &vfs) == 0) {
        st.free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
        st.total_bytes = (uint64_t)vfs.f_blocks * vfs.f_frsize;
    }
    rc = json ? store_json(s, &st, &p, conf) : store_text(s, &st, &p, conf);
out:
    gc_store_rows_free(rows, n);
    cli_store_close(s);
    return rc;
}

/* `gpucore store --fleet-sync`: every pending row, never skipped, within its own bound;
   "STORE: fleet index URI: sent N, forgot M, pending P". 0, or an exit code after printing. */
static int store_fleet_sync(struct gc_store *s, const char *option, const char *config)
{
    struct gc_store_conf conf;
    struct gc_fleet_sync_stats st = { 0 };
    gpucore_diag_t d = { 0 };
    char masked[GC_FLEET_URI_MAX + 1];
    const char *uri = cli_fleet_uri(option, config, &conf);
    FILE *out;
    int rc;

    if (!uri)
        return cli_usage_error("store", "--fleet-sync needs a fleet index: --fleet-index URI, or "
                                        "FleetIndex= in store.conf");
    if (gc_fleet_sync(s, uri, GC_FLEET_SYNC_FORCE, GC_FLEET_SYNC_TIME_MAX_MS, &st, &d) !=
        GPUCORE_OK) {
        rc = cli_store_fail(&d);
        fprintf(stderr, "gpucore: %s: fleet index: sent %zu, forgot %zu, pending %zu\n",
                gc_store_path(s), st.sent, st.forgotten, st.pending);
        return rc;
    }
    out = cli_text_open(stdout);
    if (!out)
        out = stdout;
    fprintf(out, "%s: fleet index %s: sent %zu, forgot %zu, pending %zu\n", gc_store_path(s),
            gc_fleet_uri_mask(uri, masked, sizeof(masked)), st.sent, st.forgotten, st.pending);
    return close_text(out);
}

int cmd_store(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "rescan", no_argument, NULL, 'r' },       { "json", no_argument, NULL, 'J' },
        { "config", required_argument, NULL, 'c' }, { "store", required_argument, NULL, 'd' },
        { "fleet-sync", no_argument, NULL, 'F' },   { "fleet-index", required_argument, NULL, 'I' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    struct gc_store_rescan_stats st = { 0 };
    struct gc_store *s = NULL;
    const char *store = NULL, *config = NULL, *fleet = NULL;
    gpucore_diag_t d = { 0 };
    int c, rc, rescan = 0, json = 0, fleet_sync = 0;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            rescan = 1;
            break;
        case 'J':
            json = 1;
            break;
        case 'c':
            config = optarg;
            break;
        case 'd':
            store = optarg;
            break;
        case 'F':
            fleet_sync = 1;
            break;
        case 'I':
            if ((rc = cli_fleet_option("store", optarg)) != 0)
                return rc;
            fleet = optarg;
            break;
        case 'h':
            store_help(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("store", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("store", "unexpected argument '%s'", argv[optind]);
    if (!rescan && !fleet_sync)
        return store_status(store, config, json);
    if (json)
        return cli_usage_error("store", "%s takes no --json", rescan ? "--rescan" : "--fleet-sync");
    rc = cli_store_open(store, &s);
    if (rc)
        return rc;
    if (!rescan) {
        rc = store_fleet_sync(s, fleet, config);
    } else if (gc_store_rescan(s, &st, &d) != GPUCORE_OK) {
        rc = cli_store_fail(&d);
    } else {
        FILE *out = cli_text_open(stdout);

        if (!out)
            out = stdout;
        fprintf(out,
                "%s: %zu files: %zu added, %zu read again, %zu unreadable; %zu missing; %zu "
                "skipped (not regular files)",
                gc_store_path(s), st.files, st.added, st.updated, st.unreadable, st.missing,
                st.skipped);
        if (st.dropped)
            fprintf(out, "; %zu row%s removed (no file of the store)", st.dropped,
                    st.dropped == 1 ? "" : "s");
        fputc('\n', out);
        rc = close_text(out);
        if (fleet_sync) {
            int frc = store_fleet_sync(s, fleet, config);

            rc = rc ? rc : frc;
        } else
            cli_fleet_sync_warn(s, fleet, config);
    }
    cli_store_close(s);
    return rc;
}
