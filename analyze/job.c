/* SPDX-License-Identifier: MIT */
/* The cores of one job side by side: job.h says what is judged and how. */
#include "job.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpucore/schema.h>

#include "gc_util.h"
#include "job_keys.h"
#include "triage.h"

/* What one core says, copied out of it (the core is closed after gc_job_add_core). */
struct job_core {
    char *path;
    char *error; /* unreadable: why; the rest is unset */
    char *job;   /* NULL: none */
    char *rank;  /* NULL: none */
    char *host;
    uint32_t pid;
    uint64_t time_ns;
    uint64_t waves, faulting;
    json_t *signature; /* {"text", "hash", "kind"} or NULL */
    char *what;        /* the report's first summary line, or NULL */
};

struct gc_job {
    struct job_core *cores;
    uint32_t n, cap;
};

enum role { ROLE_FIRST, ROLE_SAME, ROLE_OTHER, ROLE_HUNG, ROLE_FAULTED, ROLE_NO_FAULT };

static const char *const role_names[] = {
    [ROLE_FIRST] = "first",
    [ROLE_SAME] = "same",
    [ROLE_OTHER] = "other",
    [ROLE_HUNG] = "hung",
    [ROLE_FAULTED] = "faulted",   /* a core without a job id, with faulting waves */
    [ROLE_NO_FAULT] = "no_fault", /* a core without a job id, without */
};

struct gc_job *gc_job_new(void)
{
    return gc_calloc_array(1, sizeof(struct gc_job));
}

static void core_free(struct job_core *c)
{
    free(c->path);
    free(c->error);
    free(c->job);
    free(c->rank);
    free(c->host);
    free(c->what);
    json_decref(c->signature);
}

void gc_job_free(struct gc_job *j)
{
    if (!j)
        return;
    for (uint32_t i = 0; i < j->n; i++)
        core_free(&j->cores[i]);
    free(j->cores);
    free(j);
}

static gpucore_status_t new_core(struct gc_job *j, const char *path, struct job_core **ret,
                                 gpucore_diag_t *diag)
{
    struct job_core *c;

    GC_FAIL_IF(j->n >= GC_JOB_MAX_CORES, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "more than %u cores for one report", GC_JOB_MAX_CORES);
    if (j->n == j->cap) {
        uint32_t cap = j->cap ? 2 * j->cap : 16;
        struct job_core *p = gc_realloc_array(j->cores, cap, sizeof(*p));

        GC_FAIL_IF(!p, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        j->cores = p;
        j->cap = cap;
    }
    c = &j->cores[j->n];
    memset(c, 0, sizeof(*c));
    c->path = strdup(path);
    GC_FAIL_IF(!c->path, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    j->n++;
    *ret = c;
    return GPUCORE_OK;
}

gpucore_status_t gc_job_add_unreadable(struct gc_job *j, const char *path, const char *why,
                                       gpucore_diag_t *reterr_diag)
{
    struct job_core *c;

    GC_TRY(new_core(j, path, &c, reterr_diag));
    c->error = strdup(why);
    GC_FAIL_IF(!c->error, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    return GPUCORE_OK;
}

/* A copy of a string of the core (hostile: bounded by its note, NUL bytes end it), or NULL
   for an empty one. Sets *oom when a copy could not be made. */
static char *dup_str(gpucore_str_t s, int *oom)
{
    char *d;

    if (!s.len)
        return NULL;
    d = strndup(s.ptr, s.len);
    if (!d)
        *oom = 1;
    return d;
}

/* The capture metadata: a core without it (not written by gpucore) keeps zero time, no job. */
static int read_meta(struct job_core *c, gpucore_core_t *core)
{
    struct gpucore_note note;
    gpucore_capture_meta_t *m = NULL;
    uint32_t idx = 0;
    int oom = 0;

    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &idx, &note) !=
                GPUCORE_OK ||
        gpucore_capture_meta_decode(note.desc, (size_t)note.desc_size, &m, NULL) != GPUCORE_OK)
        return 0;
    c->time_ns = m->time_ns;
    c->pid = m->pid;
    c->job = dup_str(m->job, &oom);
    c->rank = dup_str(m->rank, &oom);
    c->host = dup_str(m->hostname, &oom);
    gpucore_capture_meta_free(m);
    return oom ? -1 : 0;
}

gpucore_status_t gc_job_add_core(struct gc_job *j, const char *path, gpucore_core_t *core,
                                 gpucore_diag_t *reterr_diag)
{
    struct gc_triage_signed sig;
    struct gc_triage_error err = { 0 };
    struct job_core *c;
    gpucore_status_t st;
    json_t *summary;

    GC_TRY(new_core(j, path, &c, reterr_diag));
    if (read_meta(c, core) != 0)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    st = gc_triage_sign(core, path, &sig, &err);
    if (st != GPUCORE_OK) {
        /* only gc_triage_open() says GPUCORE_E_NOTFOUND: the core has no AMDGPU note */
        c->error = strdup(st == GPUCORE_E_NOTFOUND ? "no GPU state in the core" : err.diag.message);
        return c->error ? GPUCORE_OK
                        : gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    c->waves = gc_json_get_u64(sig.report, GC_TK_WAVES);
    c->faulting = gc_json_get_u64(sig.report, GC_TK_FAULTING_WAVES);
    if (sig.signature)
        c->signature = json_incref(sig.signature);
    summary = json_object_get(sig.report, GC_TK_SUMMARY);
    if (json_is_string(json_array_get(summary, 0)))
        c->what = strdup(json_string_value(json_array_get(summary, 0)));
    json_decref(sig.report);
    return GPUCORE_OK;
}

/* ---- the report --------------------------------------------------------------------------- */

static const char *sig_hash(const struct job_core *c)
{
    return c->signature ? gc_json_get_str(c->signature, GC_TK_HASH) : NULL;
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Capture order: time, then rank (numeric when both are numbers), then file name. */
static int by_time(const void *pa, const void *pb)
{
    const struct job_core *a = *(const struct job_core *const *)pa,
                          *b = *(const struct job_core *const *)pb;
    char *ea, *eb;
    long long ra, rb;

    if (a->time_ns != b->time_ns)
        return a->time_ns < b->time_ns ? -1 : 1;
    if (a->rank && b->rank) {
        ra = strtoll(a->rank, &ea, 10);
        rb = strtoll(b->rank, &eb, 10);
        if (!*ea && !*eb && ra != rb)
            return ra < rb ? -1 : 1;
        if (strcmp(a->rank, b->rank))
            return strcmp(a->rank, b->rank);
    }
    return strcmp(a->path, b->path);
}

static json_t *iso_time(uint64_t ns)
{
    time_t s = (time_t)(ns / 1000000000u);
    struct tm tm;
    char buf[64];

    if (!ns || !gmtime_r(&s, &tm))
        return json_null();
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (unsigned)(ns / 1000000u % 1000u));
    return json_string(buf);
}

/* A rank's name in the summary: its rank, else "pid N". */
static json_t *rank_name(const struct job_core *c)
{
    return c->rank ? gc_json_strn(c->rank, strlen(c->rank)) : json_sprintf("pid %" PRIu32, c->pid);
}

static json_t *core_entry(const struct job_core *c, enum role role)
{
    json_t *o = json_object();

    json_object_set_new(o, GC_JK_CORE, gc_json_strn(c->path, strlen(c->path)));
    json_object_set_new(o, GC_JK_JOB, c->job ? gc_json_strn(c->job, strlen(c->job)) : json_null());
    json_object_set_new(o, GC_JK_RANK, rank_name(c));
    json_object_set_new(o, GC_JK_HOST,
                        c->host ? gc_json_strn(c->host, strlen(c->host)) : json_null());
    json_object_set_new(o, GC_JK_PID, gc_json_uint(c->pid));
    json_object_set_new(o, GC_JK_TIME, iso_time(c->time_ns));
    json_object_set_new(o, GC_JK_TIME_NS, gc_json_uint(c->time_ns));
    json_object_set_new(o, GC_JK_WAVES, gc_json_uint(c->waves));
    json_object_set_new(o, GC_JK_FAULTING_WAVES, gc_json_uint(c->faulting));
    json_object_set_new(o, GC_JK_SIGNATURE, c->signature ? json_incref(c->signature) : json_null());
    json_object_set_new(o, GC_JK_WHAT,
                        c->what ? gc_json_strn(c->what, strlen(c->what)) : json_null());
    json_object_set_new(o, GC_JK_ROLE, json_string(role_names[role]));
    return o;
}

/* Write the rank names of @p ranks (a JSON array of strings) to @p f as "0,3,5". */
static void join_ranks(FILE *f, const json_t *ranks)
{
    size_t i;
    json_t *v;

    json_array_foreach(ranks, i, v)
            fprintf(f, "%s%s", i ? "," : "", json_is_string(v) ? json_string_value(v) : "?");
}

/* The signature groups of @p cores (n, capture order): faulted cores only, first seen first. */
static json_t *signature_groups(struct job_core *const *cores, uint32_t n)
{
    json_t *groups = json_array();

    for (uint32_t i = 0; i < n; i++) {
        const struct job_core *c = cores[i];
        json_t *g = NULL, *v;
        size_t k;

        if (!c->faulting || !c->signature)
            continue;
        json_array_foreach(groups, k, v) if (same_str(gc_json_get_str(v, GC_JK_HASH), sig_hash(c)))
                g = v;
        if (!g) {
            g = json_object();
            json_object_set_new(g, GC_JK_SIGNATURE,
                                json_incref(json_object_get(c->signature, GC_TK_TEXT)));
            json_object_set_new(g, GC_JK_HASH,
                                json_incref(json_object_get(c->signature, GC_TK_HASH)));
            json_object_set_new(g, GC_JK_KIND,
                                json_incref(json_object_get(c->signature, GC_TK_KIND)));
            json_object_set_new(g, GC_JK_RANKS, json_array());
            json_object_set_new(g, GC_JK_COUNT, json_integer(0));
            json_object_set_new(g, GC_JK_FIRST_SEEN, iso_time(c->time_ns));
            json_array_append_new(groups, g);
        }
        json_array_append_new(json_object_get(g, GC_JK_RANKS), rank_name(c));
        json_object_set_new(g, GC_JK_COUNT,
                            json_integer(json_integer_value(json_object_get(g, GC_JK_COUNT)) + 1));
    }
    return groups;
}

/* One job: the cores @p cores[0..n) of job @p name, sorted here. */
static json_t *job_json(const char *name, struct job_core **cores, uint32_t n)
{
    json_t *o = json_object(), *list = json_array(), *hung = json_array(), *same = json_array(),
           *other = json_array(), *groups;
    const struct job_core *first = NULL;
    char *text = NULL;
    size_t text_len = 0;
    FILE *s = open_memstream(&text, &text_len);

    qsort(cores, n, sizeof(*cores), by_time);
    for (uint32_t i = 0; i < n && !first; i++)
        if (cores[i]->faulting)
            first = cores[i];
    for (uint32_t i = 0; i < n; i++) {
        const struct job_core *c = cores[i];
        enum role r = !c->faulting                             ? ROLE_HUNG
                      : c == first                             ? ROLE_FIRST
                      : same_str(sig_hash(c), sig_hash(first)) ? ROLE_SAME
                                                               : ROLE_OTHER;

        json_array_append_new(list, core_entry(c, r));
        if (r != ROLE_FIRST)
            json_array_append_new(r == ROLE_HUNG   ? hung
                                  : r == ROLE_SAME ? same
                                                   : other,
                                  rank_name(c));
    }
    groups = signature_groups(cores, n);

    if (s) {
        fprintf(s, "job %s: %u rank%s", name, n, n == 1 ? "" : "s");
        if (first) {
            json_t *fr = rank_name(first);

            fprintf(s, "; rank %s faulted first", json_is_string(fr) ? json_string_value(fr) : "?");
            json_decref(fr);
            if (first->signature)
                fprintf(s, " (%s)", gc_json_get_str_or(first->signature, GC_TK_TEXT, "?"));
            if (json_array_size(same)) {
                fprintf(s, "; same fault on rank%s ", json_array_size(same) > 1 ? "s" : "");
                join_ranks(s, same);
            }
            if (json_array_size(other)) {
                fprintf(s, "; another fault on rank%s ", json_array_size(other) > 1 ? "s" : "");
                join_ranks(s, other);
            }
        } else {
            fprintf(s, "; no rank faulted");
        }
        if (json_array_size(hung)) {
            fprintf(s, "; %zu hung (victims): ", json_array_size(hung));
            join_ranks(s, hung);
        }
        if (fclose(s) != 0) {
            free(text);
            text = NULL;
        }
    }

    json_object_set_new(o, GC_JK_JOB, gc_json_strn(name, strlen(name)));
    json_object_set_new(o, GC_JK_RANKS, json_integer(n));
    json_object_set_new(o, GC_JK_SUMMARY, text ? gc_json_strn(text, text_len) : json_null());
    json_object_set_new(o, GC_JK_FIRST, first ? core_entry(first, ROLE_FIRST) : json_null());
    json_object_set_new(o, GC_JK_SAME, same);
    json_object_set_new(o, GC_JK_OTHER, other);
    json_object_set_new(o, GC_JK_HUNG, hung);
    json_object_set_new(o, GC_JK_SIGNATURES, groups);
    json_object_set_new(o, GC_JK_CORES, list);
    free(text);
    return o;
}

/* The cores without a job id (no job: each is only faulted or not), in capture-time order. */
static json_t *without_job_json(const struct gc_job *j, struct job_core **pick)
{
    json_t *list = json_array();
    uint32_t n = 0;

    for (uint32_t i = 0; i < j->n; i++)
        if (!j->cores[i].error && !j->cores[i].job)
            pick[n++] = &j->cores[i];
    qsort(pick, n, sizeof(*pick), by_time);
    for (uint32_t i = 0; list && i < n; i++)
        json_array_append_new(list,
                              core_entry(pick[i], pick[i]->faulting ? ROLE_FAULTED : ROLE_NO_FAULT));
    return list;
}

json_t *gc_job_report(const struct gc_job *j)
{
    json_t *doc = json_object(), *jobs = json_array(), *bad = json_array();
    struct job_core **pick = gc_calloc_array(j->n ? j->n : 1, sizeof(*pick));
    unsigned char *done = gc_calloc_array(j->n ? j->n : 1, 1);

    if (!doc || !jobs || !bad || !pick || !done) {
        json_decref(doc);
        json_decref(jobs);
        json_decref(bad);
        free(pick);
        free(done);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string(GC_JOB_SCHEMA));
    json_object_set_new(doc, "command", json_string("job"));
    /* Jobs in the order their first core was given; cores without a job id are no job. */
    for (uint32_t i = 0; i < j->n; i++) {
        uint32_t n = 0;

        if (done[i] || j->cores[i].error || !j->cores[i].job)
            continue;
        for (uint32_t k = i; k < j->n; k++)
            if (!done[k] && !j->cores[k].error && same_str(j->cores[k].job, j->cores[i].job)) {
                done[k] = 1;
                pick[n++] = &j->cores[k];
            }
        json_array_append_new(jobs, job_json(j->cores[i].job, pick, n));
    }
    for (uint32_t i = 0; i < j->n; i++)
        if (j->cores[i].error) {
            json_t *e = json_object();

            json_object_set_new(e, GC_JK_CORE,
                                gc_json_strn(j->cores[i].path, strlen(j->cores[i].path)));
            json_object_set_new(e, GC_JK_ERROR,
                                gc_json_strn(j->cores[i].error, strlen(j->cores[i].error)));
            json_array_append_new(bad, e);
        }
    json_object_set_new(doc, GC_JK_JOBS, jobs);
    json_object_set_new(doc, GC_JK_WITHOUT_JOB, without_job_json(j, pick));
    json_object_set_new(doc, GC_JK_UNREADABLE, bad);
    free(pick);
    free(done);
    return doc;
}
