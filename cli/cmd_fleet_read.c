/* SPDX-License-Identifier: MIT */
/*
 * The fleet index read (cli_fleet.h, docs/fleet.md "Reading the fleet"): `gpucore list
 * --fleet [--dedupe]`, `show --fleet ID`, `job --fleet JOBID`, from the rows of the database
 * alone. Every value printed came from the database, hostile input: text goes through
 * cli_text_open() (control characters escaped), JSON through jansson (which escapes them), and
 * no path read from a row is ever opened: `show` says where the core is and how to analyze it
 * on its host.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fleet_read.h"
#include "cli_store.h"
#include "fleet.h"
#include "gc_json.h"
#include "gc_util.h"
#include "store.h"

/* ---------------------------------------------------------------------------------------- */
/* The connection                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* Open the fleet index the command names: --fleet-index, else store.conf's FleetIndex=.
   0 with *ret set, or an exit code after printing. */
static int fleet_open(const struct cli_fleet_args *a, struct gc_fleet **ret)
{
    struct gc_store_conf conf;
    char conf_path[PATH_MAX] = "";
    gpucore_diag_t d = { 0 };
    const char *uri = a->uri;

    memset(&conf, 0, sizeof(conf));
    if (!uri) {
        if (gc_store_conf_load(a->config, &conf, conf_path, sizeof(conf_path), &d) !=
            GPUCORE_OK) {
            if (conf_path[0] && d.status != GPUCORE_E_CORRUPT)
                gc_diag_prefix(&d, "%s", conf_path);
            return cli_store_fail(&d);
        }
        uri = gc_fleet_uri(NULL, &conf);
    }
    if ((!uri || !*uri) && !conf_path[0] &&
        (gc_store_conf_path(a->config, conf_path, sizeof(conf_path)) != 0 || !conf_path[0]))
        snprintf(conf_path, sizeof(conf_path), "store.conf"); /* this user has no default file */
    if (!uri || !*uri)
        return cli_fail(CLI_EXIT_USAGE, NULL,
                        "no fleet index: name its database with --fleet-index URI (a libpq "
                        "URI: postgresql://HOST/DB) or FleetIndex= in %s",
                        conf_path);
    if (gc_fleet_open(uri, 0, GC_FLEET_READ_TIME_MAX_MS, ret, &d) != GPUCORE_OK)
        return cli_store_fail(&d);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Values                                                                                      */
/* ---------------------------------------------------------------------------------------- */

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* One fleet row as JSON: the members of the local list's cores (docs/store.md), then where
   it is: node, store, path (on that node), synced. */
static json_t *fleet_row_json(const struct gc_fleet_row *fr)
{
    json_t *o = cli_store_row_json(&fr->row, fr->path);

    json_object_set_new(o, "node", gc_json_str_or_null(fr->node));
    json_object_set_new(o, "store", gc_json_str_or_null(fr->store));
    json_object_set_new(o, "synced", cli_json_time_or_null(fr->synced_ns));
    return o;
}

static json_t *signature_json(const struct gc_fleet_signature *g)
{
    json_t *o = json_object(), *sig = json_object();

    json_object_set_new(sig, "hash", json_string(g->sig_hash));
    json_object_set_new(sig, "text", gc_json_str_or_null(g->sig_text));
    json_object_set_new(o, "signature", sig);
    json_object_set_new(o, "cores", json_integer(g->cores));
    json_object_set_new(o, "hosts", json_integer(g->hosts));
    json_object_set_new(o, "jobs", json_integer(g->jobs));
    json_object_set_new(o, "first", cli_json_time_or_null(g->first_ns));
    json_object_set_new(o, "last", cli_json_time_or_null(g->last_ns));
    json_object_set_new(o, "executable", gc_json_str_or_null(g->exe));
    return o;
}

/* The document's head: schema and the window asked for. */
static json_t *doc_head(const char *schema, const struct gc_fleet_filter *f)
{
    json_t *doc = json_object();

    json_object_set_new(doc, "schema", json_string(schema));
    json_object_set_new(doc, "since", cli_json_time_or_null(f->since_ns > 0 ? f->since_ns : -1));
    json_object_set_new(doc, "until", cli_json_time_or_null(f->until_ns > 0 ? f->until_ns : -1));
    return doc;
}

/* Print @p doc (taken) as text by @p render, or as JSON. */
static int print_doc(json_t *doc, int json, void (*render)(FILE *, const json_t *, void *),
                     void *user)
{
    int rc;

    if (!doc)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    rc = json ? cli_print_json(doc) : cli_print_text(doc, render, user);
    json_decref(doc);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* list --fleet                                                                                */
/* ---------------------------------------------------------------------------------------- */

struct list_view {
    const struct gc_fleet_row *rows;
    size_t n;
    int cut;
};

static void render_list(FILE *out, const json_t *doc, void *user)
{
    const struct list_view *v = user;
    char t[32], size[32], waves[48], jr[64], pid[24], uid[24], seen[24];

    (void)doc;
    if (v->n == 0) {
        fprintf(out, "No cores in the fleet index.\n");
        return;
    }
    fprintf(out, "%-20s %7s %-16s %7s %5s %-16s %-12s %-16s %-11s %9s %-10s %4s\n", "TIME", "ID",
            "HOST", "PID", "UID", "EXE", "JOB/RANK", "SIGNATURE", "WAVES", "SIZE", "STATE",
            "SEEN");
    for (size_t i = 0; i < v->n; i++) {
        const struct gc_store_row *r = &v->rows[i].row;

        cli_format_time(r->time_ns, t, sizeof(t));
        if (r->waves >= 0)
            snprintf(waves, sizeof(waves), "%" PRId64 "/%" PRId64, r->faulting_waves, r->waves);
        else
            snprintf(waves, sizeof(waves), "-");
        cli_row_number(r->pid, pid, sizeof(pid));
        cli_row_number(r->uid, uid, sizeof(uid));
        cli_row_number(r->seen > 0 ? r->seen : -1, seen, sizeof(seen));
        snprintf(jr, sizeof(jr), "%.24s/", r->job ? r->job : "-");
        cli_row_number(r->rank, jr + strlen(jr), sizeof(jr) - strlen(jr));
        fprintf(out,
                "%-20s %7" PRId64
                " %-16.16s %7s %5s %-16.16s %-12.12s %-16.16s %-11s %9s %-10s %4s\n",
                t, r->id, v->rows[i].node, pid, uid, cli_base_name(r->exe), jr,
                or_dash(r->sig_hash), waves, gc_format_size((uint64_t)r->size, size, sizeof(size)),
                gc_store_state_name(r->state), seen);
    }
    if (v->cut)
        fprintf(out, "\n(the first %d cores: more matched; narrow with --since or a filter)\n",
                GC_FLEET_ROWS_MAX);
}

/*
 * list --fleet --json, a core at a time (the whole document's objects would take about 5 KiB
 * a core: 500 MiB at 100,000): the head, then "cores".
 */
static json_t *list_row_json(size_t i, void *user)
{
    const struct list_view *v = user;

    return fleet_row_json(&v->rows[i]);
}

static int print_list_json(const struct cli_fleet_args *a, const struct list_view *v)
{
    json_t *head = doc_head(LIST_FLEET_SCHEMA, &a->filter);
    int rc = CLI_EXIT_SOFTWARE;

    if (head) {
        json_object_set_new(head, "cut", json_boolean(v->cut));
        rc = cli_json_stream_array(head, "cores", v->n, list_row_json, (void *)v);
    }
    json_decref(head);
    if (rc == CLI_EXIT_SOFTWARE) {
        fflush(stdout);
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    }
    if (rc != CLI_EXIT_OK)
        return cli_fail(CLI_EXIT_IOERR, "standard output", "cannot write");
    return 0;
}

static void render_summary(FILE *out, const json_t *doc, void *user)
{
    const json_t *e;
    size_t i;

    (void)user;
    if (!json_array_size(json_object_get(doc, "signatures"))) {
        fprintf(out, "No signatures in the fleet index.\n");
        return;
    }
    fprintf(out, "%-16s %6s %5s %5s %-20s %-20s %-16s %s\n", "SIGNATURE", "CORES", "HOSTS",
            "JOBS", "FIRST", "LAST", "EXE", "TEXT");
    json_array_foreach(json_object_get(doc, "signatures"), i, e)
    {
        const json_t *sig = json_object_get(e, "signature");

        fprintf(out, "%-16s %6" PRIu64 " %5" PRIu64 " %5" PRIu64 " %-20s %-20s %-16.16s %s\n",
                gc_json_get_str_or(sig, "hash", "-"), gc_json_get_u64(e, "cores"),
                gc_json_get_u64(e, "hosts"), gc_json_get_u64(e, "jobs"),
                or_dash(gc_json_get_str_or(e, "first", "-")),
                or_dash(gc_json_get_str_or(e, "last", "-")),
                cli_base_name(gc_json_get_str_or(e, "executable", "-")),
                gc_json_get_str_or(sig, "text", ""));
    }
}

static int list_summary(const struct cli_fleet_args *a, struct gc_fleet *f)
{
    struct gc_fleet_signature *sigs = NULL;
    gpucore_diag_t d = { 0 };
    json_t *doc, *list;
    size_t n = 0;

    if (gc_fleet_summary(f, &a->filter, &sigs, &n, &d) != GPUCORE_OK)
        return cli_store_fail(&d);
    doc = doc_head(LIST_FLEET_SCHEMA, &a->filter);
    list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, signature_json(&sigs[i]));
    json_object_set_new(doc, "signatures", list);
    gc_fleet_signatures_free(sigs, n);
    return print_doc(doc, a->json, render_summary, NULL);
}

int cli_fleet_list(const struct cli_fleet_args *a)
{
    struct gc_fleet *f = NULL;
    struct list_view v = { 0 };
    struct gc_fleet_row *rows = NULL;
    gpucore_diag_t d = { 0 };
    int rc = fleet_open(a, &f);

    if (rc)
        return rc;
    if (a->dedupe) {
        rc = list_summary(a, f);
    } else if (gc_fleet_query(f, &a->filter, &rows, &v.n, &v.cut, &d) != GPUCORE_OK) {
        rc = cli_store_fail(&d);
    } else {
        v.rows = rows;
        rc = a->json ? print_list_json(a, &v)
                     : print_doc(json_object(), 0, render_list, &v);
    }
    gc_fleet_rows_free(rows, v.n);
    gc_fleet_close(f);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* show --fleet                                                                                */
/* ---------------------------------------------------------------------------------------- */

static void render_show(FILE *out, const json_t *doc, void *user)
{
    const struct gc_fleet_row *fr = user;
    const struct gc_store_row *r = &fr->row;
    char t[32], first[32], size[32], synced[32], pid[24];

    (void)doc;
    cli_row_number(r->pid, pid, sizeof(pid));
    cli_format_time(r->time_ns, t, sizeof(t));
    cli_format_time(r->first_seen_ns, first, sizeof(first));
    cli_format_time(fr->synced_ns, synced, sizeof(synced));
    fprintf(out, "     Fleet ID: %" PRId64 "\n", r->id);
    fprintf(out, "         Node: %s\n", fr->node);
    fprintf(out, "         File: %s:%s (%s)\n", fr->node, fr->path,
            gc_store_state_name(r->state));
    fprintf(out, "         Time: %s\n", t);
    fprintf(out, "         Host: %s\n", or_dash(r->host));
    fprintf(out, "          PID: %s\n", pid);
    fprintf(out, "   Executable: %s\n", or_dash(r->exe));
    fprintf(out, "     Job/rank: %s/", or_dash(r->job));
    if (r->rank >= 0)
        fprintf(out, "%" PRId64 "\n", r->rank);
    else
        fputs("-\n", out);
    fprintf(out, "      Targets: %s\n", or_dash(r->targets));
    fprintf(out, "      Trigger: %s\n", or_dash(r->trigger));
    if (r->sig_hash)
        fprintf(out, "    Signature: %s (%s), seen %" PRId64 " time%s in the fleet since %s\n",
                r->sig_hash, r->sig_text ? r->sig_text : "", r->seen, r->seen == 1 ? "" : "s",
                first);
    else
        fprintf(out, "    Signature: -\n");
    if (r->waves >= 0)
        fprintf(out, "        Waves: %" PRId64 " (%" PRId64 " faulting)\n", r->waves,
                r->faulting_waves);
    fprintf(out, " Size on disk: %s%s\n", gc_format_size((uint64_t)r->size, size, sizeof(size)),
            r->truncated ? ", truncated" : "");
    if (r->error)
        fprintf(out, "        Error: %s\n", r->error);
    fprintf(out, "       Synced: %s\n", synced);
    fprintf(out, "\nThe core is on %s: gpucore analyze %s on %s\n", fr->node, fr->path, fr->node);
}

int cli_fleet_show(const struct cli_fleet_args *a, const char *id)
{
    struct cli_fleet_args one = *a;
    struct gc_fleet_row *rows = NULL;
    struct gc_fleet *f = NULL;
    gpucore_diag_t d = { 0 };
    size_t n = 0;
    long v;
    int cut, rc;

    if (cli_parse_int(id, 1, LONG_MAX, &v) != 0)
        return cli_usage_error("show", "--fleet takes the fleet's ID (`gpucore list --fleet` "
                                       "lists them), got '%s'",
                               id);
    memset(&one.filter, 0, sizeof(one.filter));
    one.filter.id = v;
    rc = fleet_open(a, &f);
    if (rc)
        return rc;
    if (gc_fleet_query(f, &one.filter, &rows, &n, &cut, &d) != GPUCORE_OK) {
        rc = cli_store_fail(&d);
    } else if (n == 0) {
        rc = cli_fail(CLI_EXIT_NOINPUT, NULL,
                      "no core %ld in the fleet index that you may see (`gpucore list --fleet` "
                      "lists them)",
                      v);
    } else {
        json_t *doc = json_object();
        char where[PATH_MAX + 300];

        snprintf(where, sizeof(where), "gpucore analyze %s", rows[0].path);
        json_object_set_new(doc, "schema", json_string(SHOW_FLEET_SCHEMA));
        json_object_set_new(doc, "core", fleet_row_json(&rows[0]));
        json_object_set_new(doc, "where", gc_json_str_or_null(rows[0].node));
        json_object_set_new(doc, "analyze", gc_json_str_or_null(where));
        rc = print_doc(doc, a->json, render_show, &rows[0]);
    }
    gc_fleet_rows_free(rows, n);
    gc_fleet_close(f);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* job --fleet                                                                                 */
/* ---------------------------------------------------------------------------------------- */

/* The rank's name: its number, else "pid N" as `gpucore job` says. */
static void rank_name(const struct gc_store_row *r, char *buf, size_t size)
{
    if (r->rank >= 0)
        snprintf(buf, size, "%" PRId64, r->rank);
    else if (r->pid >= 0)
        snprintf(buf, size, "pid %" PRId64, r->pid);
    else
        snprintf(buf, size, "?");
}

/* @p list holds the string @p s. */
static int array_has_str(const json_t *list, const char *s)
{
    const json_t *e;
    size_t i;

    json_array_foreach(list, i, e) if (json_is_string(e) && strcmp(json_string_value(e), s) == 0)
            return 1;
    return 0;
}

/* The index of the first faulting core (rows are in capture order), or n. */
static size_t first_faulter(const struct gc_fleet_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].row.faulting_waves > 0)
            return i;
    return n;
}

/* One signature of the job: its ranks and hosts, in capture order, each once. */
static json_t *job_signatures(const struct gc_fleet_row *rows, size_t n)
{
    json_t *sigs = json_object(), *list = json_array();
    const char *k;
    json_t *g;
    char rank[32];

    for (size_t i = 0; i < n; i++) {
        const struct gc_store_row *r = &rows[i].row;
        json_t *ranks, *hosts;

        if (!r->sig_hash)
            continue;
        g = json_object_get(sigs, r->sig_hash);
        if (!g) {
            g = json_object();
            json_object_set_new(g, "hash", json_string(r->sig_hash));
            json_object_set_new(g, "text", gc_json_str_or_null(r->sig_text));
            json_object_set_new(g, "cores", json_integer(0));
            json_object_set_new(g, "ranks", json_array());
            json_object_set_new(g, "hosts", json_array());
            json_object_set_new(sigs, r->sig_hash, g);
        }
        json_object_set_new(g, "cores",
                            json_integer(json_integer_value(json_object_get(g, "cores")) + 1));
        rank_name(r, rank, sizeof(rank));
        ranks = json_object_get(g, "ranks");
        hosts = json_object_get(g, "hosts");
        if (!array_has_str(ranks, rank))
            json_array_append_new(ranks, json_string(rank));
        if (!array_has_str(hosts, rows[i].node))
            json_array_append_new(hosts, gc_json_str_or_null(rows[i].node));
    }
    json_object_foreach(sigs, k, g) json_array_append(list, g);
    json_decref(sigs);
    return list;
}

/*
 * A core's role in its job, in `gpucore job`'s words (analyze/job.h): "first", the earliest
 * core with faulting waves; "same", a later one faulting with its signature; "other", a later
 * one faulting otherwise (a victim of the first, or a second bug); "hung", one without a
 * faulting wave (a victim waiting for the one that failed).
 */
static const char *job_role(const struct gc_fleet_row *rows, size_t n, size_t first, size_t i)
{
    const struct gc_store_row *r = &rows[i].row;

    if (i == first)
        return "first";
    if (r->faulting_waves <= 0)
        return "hung";
    if (first < n && r->sig_hash && rows[first].row.sig_hash &&
        strcmp(r->sig_hash, rows[first].row.sig_hash) == 0)
        return "same";
    return "other";
}

static json_t *job_doc(const char *job, const struct gc_fleet_row *rows, size_t n)
{
    json_t *doc = json_object(), *cores = json_array(), *victims = json_array(), *hosts;
    size_t first = first_faulter(rows, n);
    char rank[32];

    json_object_set_new(doc, "schema", json_string(JOB_FLEET_SCHEMA));
    json_object_set_new(doc, "job", json_string(job));
    hosts = json_array();
    for (size_t i = 0; i < n; i++) {
        const struct gc_store_row *r = &rows[i].row;
        json_t *c = json_object();
        const char *role = job_role(rows, n, first, i);

        rank_name(r, rank, sizeof(rank));
        json_object_set_new(c, "id", json_integer(r->id));
        json_object_set_new(c, "time", cli_json_time_or_null(r->time_ns));
        json_object_set_new(c, "rank", json_string(rank));
        json_object_set_new(c, "node", gc_json_str_or_null(rows[i].node));
        json_object_set_new(c, "pid", cli_json_i64_or_null(r->pid));
        json_object_set_new(c, "role", json_string(role));
        json_object_set_new(c, "waves", cli_json_i64_or_null(r->waves));
        json_object_set_new(c, "faulting_waves", cli_json_i64_or_null(r->faulting_waves));
        json_object_set_new(c, "signature", gc_json_str_or_null(r->sig_hash));
        json_object_set_new(c, "state", json_string(gc_store_state_name(r->state)));
        json_object_set_new(c, "path", gc_json_str_or_null(rows[i].path));
        json_array_append_new(cores, c);
        if (first < n && i != first)
            json_array_append_new(victims, json_string(rank));
        if (!array_has_str(hosts, rows[i].node))
            json_array_append_new(hosts, gc_json_str_or_null(rows[i].node));
    }
    if (first < n) {
        rank_name(&rows[first].row, rank, sizeof(rank));
        json_object_set_new(doc, "first_fault", json_string(rank));
    } else {
        json_object_set_new(doc, "first_fault", json_null());
    }
    json_object_set_new(doc, "victims", victims);
    json_object_set_new(doc, "hosts", hosts);
    json_object_set_new(doc, "cores", cores);
    json_object_set_new(doc, "signatures", job_signatures(rows, n));
    return doc;
}

static void print_str_list(FILE *out, const json_t *list)
{
    const json_t *e;
    size_t i;

    json_array_foreach(list, i, e) fprintf(out, "%s%s", i ? "," : "",
                                           json_is_string(e) ? json_string_value(e) : "?");
}

static void render_job(FILE *out, const json_t *doc, void *user)
{
    const json_t *cores = json_object_get(doc, "cores"), *c, *g;
    size_t i, n = json_array_size(cores);

    (void)user;
    fprintf(out, "job %s: %zu core%s on %zu host%s; ", gc_json_get_str_or(doc, "job", "?"), n,
            n == 1 ? "" : "s", json_array_size(json_object_get(doc, "hosts")),
            json_array_size(json_object_get(doc, "hosts")) == 1 ? "" : "s");
    if (json_is_string(json_object_get(doc, "first_fault"))) {
        fprintf(out, "rank %s faulted first", gc_json_get_str_or(doc, "first_fault", "?"));
        if (json_array_size(json_object_get(doc, "victims"))) {
            fprintf(out, ", victims: ");
            print_str_list(out, json_object_get(doc, "victims"));
        }
        fputc('\n', out);
    } else {
        fprintf(out, "no rank faulted\n");
    }
    fprintf(out, "\n  %-20s  %-8s  %-16s  %-8s  %6s  %8s  %-16s  %s\n", "TIME", "RANK", "NODE",
            "ROLE", "WAVES", "FAULTING", "SIGNATURE", "NODE:PATH");
    json_array_foreach(cores, i, c)
    {
        fprintf(out, "  %-20s  %-8s  %-16.16s  %-8s  %6" PRIu64 "  %8" PRIu64 "  %-16s  %s:%s\n",
                or_dash(gc_json_get_str_or(c, "time", "-")), gc_json_get_str_or(c, "rank", "?"),
                gc_json_get_str_or(c, "node", "?"), gc_json_get_str_or(c, "role", "?"),
                gc_json_get_u64(c, "waves"), gc_json_get_u64(c, "faulting_waves"),
                or_dash(gc_json_get_str_or(c, "signature", "-")),
                gc_json_get_str_or(c, "node", "?"), gc_json_get_str_or(c, "path", "?"));
    }
    if (json_array_size(json_object_get(doc, "signatures")))
        fprintf(out, "\n  Signatures:\n");
    json_array_foreach(json_object_get(doc, "signatures"), i, g)
    {
        fprintf(out, "    %s  %s  rank%s", gc_json_get_str_or(g, "hash", "?"),
                gc_json_get_str_or(g, "text", ""),
                json_array_size(json_object_get(g, "ranks")) > 1 ? "s " : " ");
        print_str_list(out, json_object_get(g, "ranks"));
        fprintf(out, " on ");
        print_str_list(out, json_object_get(g, "hosts"));
        fputc('\n', out);
    }
    fprintf(out, "\nOn shared storage: gpucore job PATH... reads the cores themselves.\n");
}

int cli_fleet_job(const struct cli_fleet_args *a)
{
    struct gc_fleet_row *rows = NULL;
    struct gc_fleet *f = NULL;
    gpucore_diag_t d = { 0 };
    size_t n = 0;
    int cut, rc = fleet_open(a, &f);

    if (rc)
        return rc;
    if (gc_fleet_query(f, &a->filter, &rows, &n, &cut, &d) != GPUCORE_OK)
        rc = cli_store_fail(&d);
    else if (n == 0)
        rc = cli_fail(CLI_EXIT_NOINPUT, NULL,
                      "no core of job %s in the fleet index that you may see", a->filter.job);
    else
        rc = print_doc(job_doc(a->filter.job, rows, n), a->json, render_job, NULL);
    gc_fleet_rows_free(rows, n);
    gc_fleet_close(f);
    return rc;
}
