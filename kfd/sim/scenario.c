/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON scenario parser (jansson). Every value is checked where it is read, with the JSON
 * path in the message, because scenario files are written by hand and a silently defaulted typo
 * would make a test compare against the wrong ground truth.
 */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arch.h"
#include "driver.h" /* GC_SIM_OP_GET_VERSION */
#include "wave.h"   /* enum gc_hwev */
#include "gc_util.h"
#include "kfd_uapi.h"

/* ------------------------------------------------------------------------------------------ */
/* Fill function                                                                               */
/* ------------------------------------------------------------------------------------------ */

/* murmur3's 32-bit finaliser: cheap, and every input bit affects every output bit, so ground
   truth values of neighbouring registers and lanes all differ (a misplaced register shows). */
static uint32_t mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t gc_scen_fill(uint32_t seed, uint32_t kind, uint32_t wave, uint32_t reg, uint32_t lane)
{
    uint32_t h = mix32(seed ^ 0x9e3779b9u);

    h = mix32(h ^ kind);
    h = mix32(h ^ wave);
    h = mix32(h ^ reg);
    return mix32(h ^ lane);
}

/* ------------------------------------------------------------------------------------------ */
/* Parse context: the JSON path of the value being read, for messages                          */
/* ------------------------------------------------------------------------------------------ */

struct pctx {
    const char *file;
    gpucore_diag_t *diag;
    char path[256];
    size_t len;
};

static gpucore_status_t fail(struct pctx *c, gpucore_status_t st, const char *fmt, ...)
    GC_PRINTF(3, 4);
static gpucore_status_t fail(struct pctx *c, gpucore_status_t st, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* A path that starts with an element is an array source's own ("GPUCORE_SIM_FAULTS[1]"). */
    if (c->len)
        return gc_diag_set(c->diag, st, GC_NO_OFFSET, "%s%s%s: %s", c->file,
                           c->path[0] == '[' ? "" : ": ", c->path, msg);
    return gc_diag_set(c->diag, st, GC_NO_OFFSET, "%s: %s", c->file, msg);
}

/* Enter a member (key) or element (index >= 0 with key NULL); returns the length to restore. */
static size_t push(struct pctx *c, const char *key, long index)
{
    size_t old = c->len;
    int n;

    if (key)
        n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "%s%s", c->len ? "." : "", key);
    else
        n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "[%ld]", index);
    if (n > 0 && (size_t)n < sizeof(c->path) - c->len)
        c->len += (size_t)n;
    return old;
}

static void pop(struct pctx *c, size_t old)
{
    c->len = old;
    c->path[old] = 0;
}

/* Reject keys outside @p allowed (NULL-terminated): a misspelt key must not be ignored. */
static gpucore_status_t check_keys(struct pctx *c, json_t *obj, const char *const *allowed)
{
    const char *key;
    json_t *v;

    if (!json_is_object(obj))
        return fail(c, GPUCORE_E_INVAL, "expected an object");
    json_object_foreach(obj, key, v) {
        int ok = 0;

        for (size_t i = 0; allowed[i]; i++)
            ok |= strcmp(key, allowed[i]) == 0;
        if (!ok) {
            size_t o = push(c, key, 0);
            gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "unknown key");

            pop(c, o);
            return st;
        }
    }
    return GPUCORE_OK;
}

/* A u64 from a JSON integer (>= 0) or a string "0x..." / decimal (addresses above 2^63). */
static gpucore_status_t as_u64(struct pctx *c, json_t *v, uint64_t lo, uint64_t hi,
                               uint64_t *out)
{
    uint64_t x;

    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);

        if (i < 0)
            return fail(c, GPUCORE_E_INVAL, "negative value %" JSON_INTEGER_FORMAT, i);
        x = (uint64_t)i;
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end = NULL;

        errno = 0;
        if (!*s || *s == '-' || *s == '+' || *s == ' ')
            return fail(c, GPUCORE_E_INVAL, "'%s' is not a number", s);
        x = strtoull(s, &end, 0);
        if (errno || !end || *end)
            return fail(c, GPUCORE_E_INVAL, "'%s' is not a number", s);
    } else {
        return fail(c, GPUCORE_E_INVAL, "expected a number");
    }
    if (x < lo || x > hi)
        return fail(c, GPUCORE_E_INVAL, "%" PRIu64 " (0x%" PRIx64 ") out of range [%" PRIu64
                    ", %" PRIu64 "]", x, x, lo, hi);
    *out = x;
    return GPUCORE_OK;
}

static gpucore_status_t get_u64(struct pctx *c, json_t *obj, const char *key, int required,
                                uint64_t def, uint64_t lo, uint64_t hi, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    size_t o;
    gpucore_status_t st;

    if (!v) {
        if (required)
            return fail(c, GPUCORE_E_INVAL, "missing '%s'", key);
        *out = def;
        return GPUCORE_OK;
    }
    o = push(c, key, 0);
    st = as_u64(c, v, lo, hi, out);
    pop(c, o);
    return st;
}

static gpucore_status_t get_u32(struct pctx *c, json_t *obj, const char *key, int required,
                                uint32_t def, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t x;

    GC_TRY(get_u64(c, obj, key, required, def, lo, hi, &x));
    *out = (uint32_t)x;
    return GPUCORE_OK;
}

static gpucore_status_t get_str(struct pctx *c, json_t *obj, const char *key, int required,
                                const char *def, char *buf, size_t size)
{
    json_t *v = json_object_get(obj, key);
    const char *s;
    size_t o;

    if (!v) {
        if (required)
            return fail(c, GPUCORE_E_INVAL, "missing '%s'", key);
        snprintf(buf, size, "%s", def);
        return GPUCORE_OK;
    }
    o = push(c, key, 0);
    if (!json_is_string(v)) {
        gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "expected a string");
        pop(c, o);
        return st;
    }
    s = json_string_value(v);
    if (!*s || strlen(s) >= size || strlen(s) != json_string_length(v)) {
        gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "string empty, too long (max %zu) or "
                                   "with NUL", size - 1);
        pop(c, o);
        return st;
    }
    pop(c, o);
    snprintf(buf, size, "%s", s);
    return GPUCORE_OK;
}

/* One of @p names (NULL-terminated) → its index. */
static gpucore_status_t get_enum(struct pctx *c, json_t *obj, const char *key, int required,
                                 int def, const char *const *names, int *out)
{
    char s[32];

    GC_TRY(get_str(c, obj, key, required, names[def], s, sizeof(s)));
    for (int i = 0; names[i]; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return GPUCORE_OK;
        }
    }
    {
        size_t o = push(c, key, 0);
        gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "unknown value '%s'", s);
        pop(c, o);
        return st;
    }
}

static gpucore_status_t get_bool(struct pctx *c, json_t *obj, const char *key, int def, int *out)
{
    json_t *v = json_object_get(obj, key);

    if (!v) {
        *out = def;
        return GPUCORE_OK;
    }
    if (!json_is_boolean(v)) {
        size_t o = push(c, key, 0);
        gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "expected true or false");
        pop(c, o);
        return st;
    }
    *out = json_is_true(v);
    return GPUCORE_OK;
}

/* An optional array member with at most @p max elements; *ret NULL when absent. */
static gpucore_status_t get_array(struct pctx *c, json_t *obj, const char *key, size_t max,
                                  json_t **ret)
{
    json_t *v = json_object_get(obj, key);
    size_t o;
    gpucore_status_t st = GPUCORE_OK;

    *ret = NULL;
    if (!v)
        return GPUCORE_OK;
    o = push(c, key, 0);
    if (!json_is_array(v))
        st = fail(c, GPUCORE_E_INVAL, "expected an array");
    else if (json_array_size(v) > max)
        st = fail(c, GPUCORE_E_LIMIT, "%zu elements, at most %zu", json_array_size(v), max);
    pop(c, o);
    *ret = v;
    return st;
}

/* A [x, y, z] triple (shorter arrays pad with @p pad). */
static gpucore_status_t get_dim3(struct pctx *c, json_t *obj, const char *key, uint32_t pad,
                                 uint32_t lo, uint32_t hi, uint32_t out[3])
{
    json_t *v = json_object_get(obj, key);
    size_t o = push(c, key, 0);
    gpucore_status_t st = GPUCORE_OK;

    out[0] = out[1] = out[2] = pad;
    if (!v) {
        st = fail(c, GPUCORE_E_INVAL, "missing");
    } else if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 3) {
        st = fail(c, GPUCORE_E_INVAL, "expected [x], [x, y] or [x, y, z]");
    } else {
        for (size_t i = 0; i < json_array_size(v) && st == GPUCORE_OK; i++) {
            uint64_t x;
            size_t o2 = push(c, NULL, (long)i);

            st = as_u64(c, json_array_get(v, i), lo, hi, &x);
            out[i] = (uint32_t)x;
            pop(c, o2);
        }
    }
    pop(c, o);
    return st;
}

static const char *const pattern_names[] = { "zero", "sequence", "random", NULL };
/* Buffers may also hold the secret marker. */
static const char *const buffer_pattern_names[] = { "zero", "sequence", "random", "secret", NULL };

/* ------------------------------------------------------------------------------------------ */
/* Sections                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static gpucore_status_t parse_agent(struct pctx *c, json_t *o, struct gc_scen_agent *a,
                                    const struct gc_scenario *s)
{
    static const char *const keys[] = { "target", "gpu_id", "simd_count", "max_waves_per_simd",
        "array_count", "simd_arrays_per_engine", "num_xcc", "capability", "debug_prop",
        "vendor_id", "device_id", "location_id", "domain", "revision_id", "ttmp_setup", NULL };
    const struct gc_arch *arch;
    int b;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_str(c, o, "target", 1, "", a->target, sizeof(a->target)));
    arch = gc_arch_by_name(a->target);
    if (!arch) {
        size_t old = push(c, "target", 0);
        gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "unknown target '%s'", a->target);
        pop(c, old);
        return st;
    }
    GC_TRY(get_u32(c, o, "gpu_id", 1, 0, 1, UINT32_MAX, &a->gpu_id));
    GC_TRY(get_u32(c, o, "simd_count", 1, 0, 1, 4096, &a->simd_count));
    GC_TRY(get_u32(c, o, "max_waves_per_simd", 0, 8, 1, 64, &a->max_waves_per_simd));
    GC_TRY(get_u32(c, o, "array_count", 0, 8, 1, 256, &a->array_count));
    GC_TRY(get_u32(c, o, "simd_arrays_per_engine", 0, 1, 1, 64, &a->simd_arrays_per_engine));
    GC_TRY(get_u32(c, o, "num_xcc", 0, 1, 1, 16, &a->num_xcc));
    GC_TRY(get_u32(c, o, "capability", 0, GC_SCEN_DEFAULT_CAPABILITY, 0, UINT32_MAX,
                   &a->capability));
    GC_TRY(get_u32(c, o, "debug_prop", 0, 0, 0, UINT32_MAX, &a->debug_prop));
    GC_TRY(get_u32(c, o, "vendor_id", 0, 0x1002, 0, 0xffff, &a->vendor_id));
    GC_TRY(get_u32(c, o, "device_id", 0, 0, 0, 0xffff, &a->device_id));
    GC_TRY(get_u32(c, o, "location_id", 0, 0, 0, UINT32_MAX, &a->location_id));
    GC_TRY(get_u32(c, o, "domain", 0, 0, 0, UINT32_MAX, &a->domain));
    GC_TRY(get_u32(c, o, "revision_id", 0, 0, 0, 0xff, &a->revision_id));
    GC_TRY(get_bool(c, o, "ttmp_setup", (int)s->ttmp_setup, &b));
    a->ttmp_setup = (uint32_t)b;
    if (a->simd_count % a->num_xcc)
        return fail(c, GPUCORE_E_INVAL, "simd_count %u is not a multiple of num_xcc %u",
                    a->simd_count, a->num_xcc);
    return GPUCORE_OK;
}

static gpucore_status_t parse_queue(struct pctx *c, json_t *o, struct gc_scen_queue *q,
                                    const struct gc_scenario *s)
{
    static const char *const keys[] = { "agent", "queue_id", "ring_packets", "backlog",
        "scratch_per_wave", "scratch_waves", "scratch_pattern", "scratch_seed", NULL };
    int pat;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_u32(c, o, "agent", 1, 0, 0, s->nagents ? s->nagents - 1 : 0, &q->agent));
    if (!s->nagents)
        return fail(c, GPUCORE_E_INVAL, "no agents");
    GC_TRY(get_u32(c, o, "queue_id", 1, 0, 0, 1023, &q->queue_id));
    GC_TRY(get_u32(c, o, "ring_packets", 0, 64, 16, 1u << 18, &q->ring_packets));
    if (q->ring_packets & (q->ring_packets - 1))
        return fail(c, GPUCORE_E_INVAL, "ring_packets %u is not a power of two",
                    q->ring_packets);
    /* the queue's dispatches take a slot each: checked against them in the layout */
    GC_TRY(get_u32(c, o, "backlog", 0, 0, 0, q->ring_packets - 1, &q->backlog));
    GC_TRY(get_u32(c, o, "scratch_per_wave", 0, 0, 0, 8u << 20, &q->scratch_per_wave));
    if (q->scratch_per_wave % 1024)
        return fail(c, GPUCORE_E_INVAL, "scratch_per_wave %u is not a multiple of 1024",
                    q->scratch_per_wave);
    GC_TRY(get_u32(c, o, "scratch_waves", 0, 32, 1, 4095, &q->scratch_waves));
    if ((uint64_t)q->scratch_per_wave * q->scratch_waves * s->agents[q->agent].num_xcc >
        GC_SCEN_MAX_SCRATCH)
        return fail(c, GPUCORE_E_LIMIT, "scratch larger than 1 GiB");
    GC_TRY(get_enum(c, o, "scratch_pattern", 0, 0, pattern_names, &pat));
    q->scratch_pattern = (enum gc_scen_pattern)pat;
    GC_TRY(get_u32(c, o, "scratch_seed", 0, 0, 0, UINT32_MAX, &q->scratch_seed));
    /*
     * KFD allocates queue ids per process, not per GPU: SUSPEND/RESUME name queues by id alone,
     * so two queues with one id would be indistinguishable to a debugger.
     */
    for (const struct gc_scen_queue *p = s->queues; p < q; p++)
        if (p->queue_id == q->queue_id)
            return fail(c, GPUCORE_E_INVAL,
                        "queue_id %u used twice (KFD queue ids are unique per process)",
                        q->queue_id);
    return GPUCORE_OK;
}

static int find_named(const char *name, const void *arr, size_t n, size_t stride, size_t off)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp((const char *)arr + i * stride + off, name) == 0)
            return (int)i;
    return -1;
}

static gpucore_status_t parse_kernarg(struct pctx *c, json_t *o, struct gc_scen_kernarg *k,
                                      const struct gc_scenario *s)
{
    static const char *const keys[] = { "type", "value", "offset", NULL };
    static const char *const types[] = { "u32", "u64", "f32", "buffer", "secret", NULL };
    int t;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_enum(c, o, "type", 1, 0, types, &t));
    k->type = t;
    if (k->type == GC_SCEN_KA_BUFFER) {
        char name[GC_SCEN_NAME_MAX];
        int i;

        GC_TRY(get_str(c, o, "value", 1, "", name, sizeof(name)));
        i = find_named(name, s->buffers, s->nbuffers, sizeof(*s->buffers),
                       offsetof(struct gc_scen_buffer, name));
        if (i < 0)
            return fail(c, GPUCORE_E_INVAL, "value: no buffer named '%s'", name);
        k->value = (uint64_t)i;
        GC_TRY(get_u64(c, o, "offset", 0, 0, 0, s->buffers[i].size, &k->value2));
    } else if (k->type == GC_SCEN_KA_SECRET) {
        if (!s->has_secret)
            return fail(c, GPUCORE_E_INVAL, "type: 'secret' needs a top-level \"secret\"");
        if (json_object_get(o, "value") || json_object_get(o, "offset"))
            return fail(c, GPUCORE_E_INVAL, "a secret argument takes no value or offset");
    } else if (k->type == GC_SCEN_KA_F32) {
        json_t *v = json_object_get(o, "value");
        float f;
        uint32_t bits;

        if (!json_is_number(v))
            return fail(c, GPUCORE_E_INVAL, "value: expected a number");
        if (json_object_get(o, "offset"))
            return fail(c, GPUCORE_E_INVAL, "offset: only for buffer arguments");
        f = (float)json_number_value(v);
        memcpy(&bits, &f, 4);
        k->value = bits;
    } else {
        if (json_object_get(o, "offset"))
            return fail(c, GPUCORE_E_INVAL, "offset: only for buffer arguments");
        GC_TRY(get_u64(c, o, "value", 1, 0, 0,
                       k->type == GC_SCEN_KA_U32 ? UINT32_MAX : UINT64_MAX, &k->value));
    }
    return GPUCORE_OK;
}

static gpucore_status_t parse_hex_bytes(struct pctx *c, const char *hex, uint8_t **ret,
                                        uint32_t *ret_n)
{
    size_t n = strlen(hex);
    uint8_t *p;

    if (n % 2 || n / 2 > GC_SCEN_MAX_KERNARG_RAW || n == 0)
        return fail(c, GPUCORE_E_INVAL, "raw_kernargs: expected 1..%u bytes as an even number "
                    "of hex digits", GC_SCEN_MAX_KERNARG_RAW);
    p = gc_malloc(n / 2);
    if (!p)
        return GPUCORE_E_NOMEM;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        char two[3] = { hex[2 * i], hex[2 * i + 1], 0 };
        char *end;

        v = (unsigned)strtoul(two, &end, 16);
        if (*end || two[0] == '-' || two[0] == '+' || two[0] == ' ') {
            gc_free(p);
            return fail(c, GPUCORE_E_INVAL, "raw_kernargs: bad hex digit at %zu", 2 * i);
        }
        p[i] = (uint8_t)v;
    }
    *ret = p;
    *ret_n = (uint32_t)(n / 2);
    return GPUCORE_OK;
}

/* One printf_records[] entry appended to d->printf_words (room for it is there). */
static gpucore_status_t parse_printf_record(struct pctx *c, json_t *o, struct gc_scen_dispatch *d)
{
    static const char *const keys[] = { "id", "words", NULL };
    json_t *words;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_u32(c, o, "id", 1, 0, 1, UINT32_MAX, &d->printf_words[d->nprintf_words]));
    d->nprintf_words++;
    GC_TRY(get_array(c, o, "words", GC_SCEN_MAX_PRINTF_WORDS, &words));
    for (size_t k = 0; k < json_array_size(words); k++) {
        size_t o1 = push(c, "words", 0), o2 = push(c, NULL, (long)k);
        uint64_t x;

        GC_TRY(as_u64(c, json_array_get(words, k), 0, UINT32_MAX, &x));
        pop(c, o2);
        pop(c, o1);
        d->printf_words[d->nprintf_words++] = (uint32_t)x;
    }
    return GPUCORE_OK;
}

/* printf_records: what the kernel wrote into its printf buffer; only with printf_buffer, and
   the 8-byte header and every record must fit in it (__printf_alloc refuses what does not). */
static gpucore_status_t parse_printf_records(struct pctx *c, json_t *o,
                                             struct gc_scen_dispatch *d)
{
    json_t *recs;

    GC_TRY(get_array(c, o, "printf_records", GC_SCEN_MAX_PRINTF_RECORDS, &recs));
    if (!recs)
        return GPUCORE_OK;
    if (!d->printf_buffer)
        return fail(c, GPUCORE_E_INVAL, "printf_records: only with a printf_buffer");
    d->printf_words = gc_calloc_array(json_array_size(recs) * (GC_SCEN_MAX_PRINTF_WORDS + 1u) + 1u,
                                      sizeof(*d->printf_words));
    if (!d->printf_words)
        return GPUCORE_E_NOMEM;
    for (size_t k = 0; k < json_array_size(recs); k++) {
        size_t o1 = push(c, "printf_records", 0), o2 = push(c, NULL, (long)k);

        GC_TRY(parse_printf_record(c, json_array_get(recs, k), d));
        if (8ull + 4ull * d->nprintf_words > d->printf_buffer)
            return fail(c, GPUCORE_E_INVAL, "the 8-byte header and %" PRIu32 " bytes of "
                        "records do not fit the %" PRIu32 "-byte printf_buffer",
                        4u * d->nprintf_words, d->printf_buffer);
        pop(c, o2);
        pop(c, o1);
    }
    return GPUCORE_OK;
}

static gpucore_status_t parse_dispatch(struct pctx *c, json_t *o, struct gc_scen_dispatch *d,
                                       const struct gc_scenario *s)
{
    static const char *const keys[] = { "queue", "code_object", "kernel", "grid", "workgroup",
        "packet_id", "private_segment_size", "group_segment_size", "wave32", "vgprs",
        "accvgprs", "sgprs", "kernargs", "raw_kernargs", "printf_buffer", "printf_records", NULL };
    const struct gc_arch *arch;
    char co[GC_SCEN_NAME_MAX];
    json_t *ka;
    int i, w32;

    GC_TRY(check_keys(c, o, keys));
    if (!s->nqueues)
        return fail(c, GPUCORE_E_INVAL, "no queues");
    GC_TRY(get_u32(c, o, "queue", 1, 0, 0, s->nqueues - 1, &d->queue));
    arch = gc_arch_by_name(s->agents[s->queues[d->queue].agent].target);
    GC_TRY(get_str(c, o, "code_object", 1, "", co, sizeof(co)));
    i = find_named(co, s->code_objects, s->ncode_objects, sizeof(*s->code_objects),
                   offsetof(struct gc_scen_code_object, name));
    if (i < 0)
        return fail(c, GPUCORE_E_INVAL, "code_object: no code object named '%s'", co);
    d->code_object = (uint32_t)i;
    GC_TRY(get_str(c, o, "kernel", 1, "", d->kernel, sizeof(d->kernel)));
    GC_TRY(get_dim3(c, o, "workgroup", 1, 1, 1024, d->workgroup));
    if ((uint64_t)d->workgroup[0] * d->workgroup[1] * d->workgroup[2] > 1024)
        return fail(c, GPUCORE_E_INVAL, "workgroup: more than 1024 work-items");
    GC_TRY(get_dim3(c, o, "grid", 1, 1, UINT32_MAX, d->grid));
    GC_TRY(get_u64(c, o, "packet_id", 1, 0, 0, (1ull << 62), &d->packet_id));
    GC_TRY(get_u32(c, o, "private_segment_size", 0, 0, 0, 1u << 20, &d->private_segment_size));
    GC_TRY(get_u32(c, o, "printf_buffer", 0, 0, 0, 1u << 24, &d->printf_buffer));
    GC_TRY(get_u32(c, o, "group_segment_size", 0, 0, 0, arch->lds_bytes,
                   &d->group_segment_size));
    GC_TRY(get_bool(c, o, "wave32", arch->default_wave_size == 32, &w32));
    if (w32 && !(arch->wave_sizes & GC_WAVE32))
        return fail(c, GPUCORE_E_INVAL, "wave32: %s has no wave32", arch->name);
    if (!w32 && !(arch->wave_sizes & GC_WAVE64))
        return fail(c, GPUCORE_E_INVAL, "wave32: %s has no wave64", arch->name);
    d->wave32 = (uint32_t)w32;
    GC_TRY(get_u32(c, o, "vgprs", 0, 0, 0, 512, &d->vgprs));
    GC_TRY(get_u32(c, o, "accvgprs", 0, 0, 0, 512, &d->accvgprs));
    GC_TRY(get_u32(c, o, "sgprs", 0, 0, 0, 128, &d->sgprs));
    GC_TRY(get_array(c, o, "kernargs", GC_SCEN_MAX_KERNARGS, &ka));
    if (ka && json_object_get(o, "raw_kernargs"))
        return fail(c, GPUCORE_E_INVAL, "give kernargs or raw_kernargs, not both");
    if (ka) {
        d->kernargs = gc_calloc_array(json_array_size(ka) + 1, sizeof(*d->kernargs));
        if (!d->kernargs)
            return GPUCORE_E_NOMEM;
        for (size_t k = 0; k < json_array_size(ka); k++) {
            size_t o1 = push(c, "kernargs", 0), o2 = push(c, NULL, (long)k);

            gpucore_status_t st = parse_kernarg(c, json_array_get(ka, k), &d->kernargs[k], s);
            if (st < 0)
                return st;
            pop(c, o2);
            pop(c, o1);
            d->nkernargs++;
        }
    } else if (json_object_get(o, "raw_kernargs")) {
        char hex[2 * GC_SCEN_MAX_KERNARG_RAW + 2];
        size_t o1 = push(c, "raw_kernargs", 0);

        pop(c, o1);
        GC_TRY(get_str(c, o, "raw_kernargs", 1, "", hex, sizeof(hex)));
        GC_TRY(parse_hex_bytes(c, hex, &d->raw_kernargs, &d->nraw));
    }
    GC_TRY(parse_printf_records(c, o, d));
    for (const struct gc_scen_dispatch *p = s->dispatches; p < d; p++)
        if (p->queue == d->queue &&
            p->packet_id % s->queues[d->queue].ring_packets ==
                    d->packet_id % s->queues[d->queue].ring_packets)
            return fail(c, GPUCORE_E_INVAL, "packet_id %" PRIu64 " uses the ring slot of "
                        "another dispatch", d->packet_id);
    return GPUCORE_OK;
}

static gpucore_status_t parse_regs(struct pctx *c, json_t *o, struct gc_scen_waves *w,
                                   const struct gc_scenario *s)
{
    static const char *const keys[] = { "fill", "sgpr", "vgpr", NULL };
    static const char *const kinds[] = { "sgpr", "vgpr" };
    json_t *fill;

    (void)s;
    GC_TRY(check_keys(c, o, keys));
    fill = json_object_get(o, "fill");
    if (json_is_string(fill) && strcmp(json_string_value(fill), "zero") == 0) {
        w->fill_zero = 1;
    } else if (fill) {
        uint64_t seed;
        size_t o1 = push(c, "fill", 0);

        GC_TRY(as_u64(c, fill, 0, UINT32_MAX, &seed));
        pop(c, o1);
        w->fill_seed = (uint32_t)seed;
    }
    w->overrides = gc_calloc_array(GC_SCEN_MAX_REG_OVERRIDES, sizeof(*w->overrides));
    if (!w->overrides)
        return GPUCORE_E_NOMEM;
    for (uint32_t k = 0; k < 2; k++) {
        json_t *m = json_object_get(o, kinds[k]);
        const char *key;
        json_t *v;
        size_t o1;

        if (!m)
            continue;
        o1 = push(c, kinds[k], 0);
        if (!json_is_object(m))
            return fail(c, GPUCORE_E_INVAL, "expected an object {\"N\": value}");
        json_object_foreach(m, key, v) {
            struct gc_scen_reg_override *r = &w->overrides[w->noverrides];
            size_t o2 = push(c, key, 0);
            char *end;
            unsigned long reg;

            if (w->noverrides >= GC_SCEN_MAX_REG_OVERRIDES)
                return fail(c, GPUCORE_E_LIMIT, "more than %u register values",
                            GC_SCEN_MAX_REG_OVERRIDES);
            errno = 0;
            reg = strtoul(key, &end, 10);
            if (!*key || *end || errno || reg >= 512 || *key == '-' || *key == '+')
                return fail(c, GPUCORE_E_INVAL, "register number expected (0..511)");
            r->kind = k ? GC_SCEN_KIND_VGPR : GC_SCEN_KIND_SGPR;
            r->reg = (uint32_t)reg;
            r->lane = -1;
            if (json_is_array(v) && k) {
                /* one value per lane: expanded into per-lane overrides */
                if (json_array_size(v) == 0 || json_array_size(v) > 64)
                    return fail(c, GPUCORE_E_INVAL, "1..64 lane values expected");
                for (size_t l = 0; l < json_array_size(v); l++) {
                    uint64_t x;
                    size_t o3 = push(c, NULL, (long)l);

                    if (w->noverrides >= GC_SCEN_MAX_REG_OVERRIDES)
                        return fail(c, GPUCORE_E_LIMIT, "more than %u register values",
                                    GC_SCEN_MAX_REG_OVERRIDES);
                    GC_TRY(as_u64(c, json_array_get(v, l), 0, UINT32_MAX, &x));
                    pop(c, o3);
                    w->overrides[w->noverrides] = (struct gc_scen_reg_override){
                        .kind = GC_SCEN_KIND_VGPR, .reg = (uint32_t)reg, .lane = (int32_t)l,
                        .value = (uint32_t)x };
                    w->noverrides++;
                }
            } else {
                uint64_t x;

                GC_TRY(as_u64(c, v, 0, UINT32_MAX, &x));
                r->value = (uint32_t)x;
                w->noverrides++;
            }
            pop(c, o2);
        }
        pop(c, o1);
    }
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Stop causes                                                                                 */
/* ------------------------------------------------------------------------------------------ */

#define S GC_SCEN_STATE_STOPPED
#define H GC_SCEN_STATE_HALTED
#define NEED1(a) .nneed = 1, .need = { (a) }
#define NEED2(a, b) .nneed = 2, .need = { (a), (b) }
#define ALU(k) NEED2(GC_HWEV_EXCP0 + (k), GC_HWEV_EXCP_EN0 + (k)), .gate = 1
#define WATCH(k) NEED2(GC_HWEV_ADDR_WATCH0 + (k), GC_HWEV_ADDR_WATCH_EN), .gate = 1

/*
 * Every stopped wave also gets what the trap handler does when it halts a wave: ttmp6's
 * stopped bit and status.halt, plus status.skip_export from ROCr's debug ABI 10 (layout.c).
 * `memory_violation` is a page fault as the trap handler reports it (XNACK_ERROR: KFD's
 * EC_QUEUE_WAVE_MEMORY_VIOLATION); `xnack_error` sets MEM_VIOL with it, which amd-dbgapi still
 * reports as a memory violation, not an address error; `address_error` is MEM_VIOL alone (an
 * aperture violation).
 */
const struct gc_scen_cause gc_scen_causes[_GC_SCEN_STOP_MAX] = {
    [GC_SCEN_STOP_NONE] = { "none", S, 0, .gate = -1 },
    [GC_SCEN_STOP_MEMORY_VIOLATION] = { "memory_violation", S, 0, NEED1(GC_HWEV_XNACK_ERROR),
                                        .gate = -1 },
    [GC_SCEN_STOP_ILLEGAL_INSTRUCTION] = { "illegal_instruction", S, 0,
                                           NEED1(GC_HWEV_ILLEGAL_INST), .gate = -1 },
    [GC_SCEN_STOP_ASSERT_TRAP] = { "assert_trap", S, 2, .gate = -1 },
    [GC_SCEN_STOP_BREAKPOINT] = { "breakpoint", S, 1, .gate = -1 },
    [GC_SCEN_STOP_WATCHPOINT_0 + 0] = { "watchpoint_0", S, 0, WATCH(0) },
    [GC_SCEN_STOP_WATCHPOINT_0 + 1] = { "watchpoint_1", S, 0, WATCH(1) },
    [GC_SCEN_STOP_WATCHPOINT_0 + 2] = { "watchpoint_2", S, 0, WATCH(2) },
    [GC_SCEN_STOP_WATCHPOINT_0 + 3] = { "watchpoint_3", S, 0, WATCH(3) },
    [GC_SCEN_STOP_SINGLE_STEP] = { "single_step", S, 0, NEED1(GC_HWEV_SINGLE_STEP_EN),
                                   .nopt = 1, .opt = { GC_HWEV_TRAP_AFTER_INST }, .gate = -1 },
    [GC_SCEN_STOP_FP_INVALID_OPERATION] = { "fp_invalid_operation", S, 0, ALU(0) },
    [GC_SCEN_STOP_FP_INPUT_DENORMAL] = { "fp_input_denormal", S, 0, ALU(1) },
    [GC_SCEN_STOP_FP_DIVIDE_BY_0] = { "fp_divide_by_0", S, 0, ALU(2) },
    [GC_SCEN_STOP_FP_OVERFLOW] = { "fp_overflow", S, 0, ALU(3) },
    [GC_SCEN_STOP_FP_UNDERFLOW] = { "fp_underflow", S, 0, ALU(4) },
    [GC_SCEN_STOP_FP_INEXACT] = { "fp_inexact", S, 0, ALU(5) },
    [GC_SCEN_STOP_INT_DIVIDE_BY_0] = { "int_divide_by_0", S, 0, ALU(6) },
    [GC_SCEN_STOP_XNACK_ERROR] = { "xnack_error", S, 0,
                                   NEED2(GC_HWEV_XNACK_ERROR, GC_HWEV_MEM_VIOL), .gate = -1 },
    [GC_SCEN_STOP_ADDRESS_ERROR] = { "address_error", S, 0, NEED1(GC_HWEV_MEM_VIOL),
                                     .gate = -1 },
    [GC_SCEN_STOP_DEBUG_TRAP] = { "debug_trap", S, 3, .gate = -1 },
    [GC_SCEN_STOP_TRAP] = { "trap", S, GC_SCEN_TRAP_ID_GENERIC, .gate = -1 },
    [GC_SCEN_STOP_TRAP_AFTER_INSTRUCTION] = { "trap_after_instruction", S, 0,
                                              NEED1(GC_HWEV_TRAP_AFTER_INST), .gate = -1 },
    [GC_SCEN_STOP_HOST_TRAP] = { "host_trap", S, 0, NEED1(GC_HWEV_HOST_TRAP), .gate = -1 },
    [GC_SCEN_STOP_DEBUGGER] = { "debugger", S, 0, .gate = -1 },
    [GC_SCEN_STOP_HALT] = { "halt", H, 0, NEED1(GC_HWEV_HALT), .gate = -1 },
    [GC_SCEN_STOP_FATAL_HALT] = { "fatal_halt", H, 0, NEED2(GC_HWEV_HALT, GC_HWEV_FATAL_HALT),
                                  .gate = -1 },
    [GC_SCEN_STOP_ECC_ERROR] = { "ecc_error", H, 0, NEED2(GC_HWEV_HALT, GC_HWEV_ECC_ERR),
                                 .gate = -1 },
};
#undef S
#undef H
#undef NEED1
#undef NEED2
#undef ALU
#undef WATCH

static const char *const state_names[] = { "running", "stopped", "halted", NULL };

static int cause_by_name(const char *name)
{
    for (int i = 0; i < _GC_SCEN_STOP_MAX; i++)
        if (strcmp(gc_scen_causes[i].name, name) == 0)
            return i;
    return -1;
}

/* One cause name at the current path: a known cause, given once, possible on @p arch. */
static gpucore_status_t cause_name(struct pctx *c, json_t *v, const struct gc_arch *arch,
                                   uint32_t seen, int *ret)
{
    const struct gc_scen_cause *k;
    struct gc_hwreg_bit b;
    int i;

    if (!json_is_string(v))
        return fail(c, GPUCORE_E_INVAL, "expected a stop cause name");
    i = cause_by_name(json_string_value(v));
    if (i < 0)
        return fail(c, GPUCORE_E_INVAL, "unknown value '%.40s'", json_string_value(v));
    if (seen & (1u << i))
        return fail(c, GPUCORE_E_INVAL, "'%s' given twice", gc_scen_causes[i].name);
    k = &gc_scen_causes[i];
    for (uint32_t n = 0; n < k->nneed; n++)
        if (!gc_hwev_bit(arch->hwreg, (enum gc_hwev)k->need[n], &b))
            return fail(c, GPUCORE_E_INVAL, "'%s' does not exist on %s", k->name, arch->name);
    *ret = i;
    return GPUCORE_OK;
}

/* A string or an array of cause names (member @p key) → a cause mask and the first cause. */
static gpucore_status_t get_causes(struct pctx *c, json_t *o, const char *key,
                                   const struct gc_arch *arch, int allow_string,
                                   uint32_t *ret_mask, int *ret_first)
{
    json_t *v = json_object_get(o, key);
    size_t at;
    uint32_t mask = 0;
    int first = -1, i;

    *ret_mask = 0;
    *ret_first = -1;
    if (!v)
        return GPUCORE_OK;
    at = push(c, key, 0);
    if (json_is_string(v) && allow_string) {
        GC_TRY(cause_name(c, v, arch, 0, &i));
        mask = 1u << i;
        first = i;
    } else if (!json_is_array(v) || json_array_size(v) == 0 ||
               json_array_size(v) > _GC_SCEN_STOP_MAX) {
        return fail(c, GPUCORE_E_INVAL, allow_string ? "expected a stop cause or a list of 1 to %d"
                                                     : "expected a list of 1 to %d stop causes",
                    _GC_SCEN_STOP_MAX);
    } else {
        for (size_t n = 0; n < json_array_size(v); n++) {
            size_t e = push(c, NULL, (long)n);

            GC_TRY(cause_name(c, json_array_get(v, n), arch, mask, &i));
            pop(c, e);
            mask |= 1u << i;
            if (first < 0)
                first = i;
        }
    }
    pop(c, at);
    *ret_mask = mask;
    *ret_first = first;
    return GPUCORE_OK;
}

/* waves[].state, .stop and .masked, checked against each other and the agent's family. */
static gpucore_status_t parse_stop(struct pctx *c, json_t *o, struct gc_scen_waves *w,
                                   const struct gc_arch *arch)
{
    uint32_t mask, masked, trap_ids = 0;
    int st, first, mfirst;

    GC_TRY(get_enum(c, o, "state", 0, 0, state_names, &st));
    w->stopped = st == GC_SCEN_STATE_STOPPED;
    w->halted = st == GC_SCEN_STATE_HALTED;
    GC_TRY(get_causes(c, o, "stop", arch, 1, &mask, &first));
    GC_TRY(get_causes(c, o, "masked", arch, 0, &masked, &mfirst));
    if (st == GC_SCEN_STATE_RUNNING && mask)
        return fail(c, GPUCORE_E_INVAL, "stop: a running wave has no stop cause");
    /* README: without "stop", a halted wave executed s_sethalt and a stopped one was stopped
       by a debugger (cause none) */
    if (st != GC_SCEN_STATE_RUNNING && !mask) {
        first = st == GC_SCEN_STATE_HALTED ? GC_SCEN_STOP_HALT : GC_SCEN_STOP_NONE;
        mask = 1u << first;
    }
    for (int i = 0; i < _GC_SCEN_STOP_MAX; i++) {
        const struct gc_scen_cause *k = &gc_scen_causes[i];

        if (!(mask & (1u << i)))
            continue;
        if (k->state != (uint32_t)st)
            return fail(c, GPUCORE_E_INVAL, "stop: '%s' needs \"state\": \"%s\"", k->name,
                        state_names[k->state]);
        if ((i == GC_SCEN_STOP_NONE || i == GC_SCEN_STOP_DEBUGGER) && mask != 1u << i)
            return fail(c, GPUCORE_E_INVAL, "stop: '%s' cannot be combined with another cause",
                        k->name);
        if (k->trap_id && trap_ids++)
            return fail(c, GPUCORE_E_INVAL, "stop: two causes need the saved trap id ('%s')",
                        k->name);
    }
    for (int i = 0; i < _GC_SCEN_STOP_MAX; i++) {
        const struct gc_scen_cause *k = &gc_scen_causes[i];

        if (!(masked & (1u << i)))
            continue;
        if (k->gate < 0)
            return fail(c, GPUCORE_E_INVAL, "masked: '%s' has no enable to leave clear (only "
                        "the ALU exceptions and the watchpoints do)", k->name);
        if (mask & (1u << i))
            return fail(c, GPUCORE_E_INVAL, "masked: '%s' is also a stop cause", k->name);
        for (int j = 0; j < _GC_SCEN_STOP_MAX; j++) {
            const struct gc_scen_cause *u = &gc_scen_causes[j];

            if ((mask & (1u << j)) && u->gate >= 0 && u->need[u->gate] == k->need[k->gate])
                return fail(c, GPUCORE_E_INVAL, "masked: '%s' shares its enable with stop "
                            "cause '%s'", k->name, u->name);
        }
    }
    w->stop_causes = mask;
    w->stop = first < 0 ? GC_SCEN_STOP_NONE : (enum gc_scen_stop)first;
    w->masked = masked;
    return GPUCORE_OK;
}

static gpucore_status_t parse_waves(struct pctx *c, json_t *o, struct gc_scen_waves *w,
                                    struct gc_scenario *s)
{
    static const char *const keys[] = { "dispatch", "xcc", "workgroup", "workgroup_count",
        "waves_per_workgroup", "state", "stop", "masked", "pc", "exec", "registers", "lds",
        "lds_seed", NULL };
    const struct gc_scen_dispatch *d;
    const struct gc_scen_agent *a;
    const struct gc_arch *arch;
    json_t *pc, *regs;
    int pat;
    uint32_t wpg, lanes;

    GC_TRY(check_keys(c, o, keys));
    if (!s->ndispatches)
        return fail(c, GPUCORE_E_INVAL, "no dispatches");
    GC_TRY(get_u32(c, o, "dispatch", 1, 0, 0, s->ndispatches - 1, &w->dispatch));
    d = &s->dispatches[w->dispatch];
    a = &s->agents[s->queues[d->queue].agent];
    GC_TRY(get_u32(c, o, "xcc", 0, 0, 0, a->num_xcc - 1, &w->xcc));
    GC_TRY(get_dim3(c, o, "workgroup", 0, 0, UINT32_MAX, w->workgroup));
    GC_TRY(get_u32(c, o, "workgroup_count", 0, 1, 1, GC_SCEN_MAX_WAVES, &w->workgroup_count));
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t groups = (d->grid[i] + d->workgroup[i] - 1) / d->workgroup[i];
        uint64_t last = w->workgroup[i] + (i == 0 ? w->workgroup_count - 1ull : 0);

        if (last >= groups)
            return fail(c, GPUCORE_E_INVAL, "workgroup: id %" PRIu64 " in dimension %u beyond "
                        "the grid's %u workgroups", last, i, groups);
    }
    GC_TRY(get_u32(c, o, "waves_per_workgroup", 0, 0, 1, 32, &w->waves_per_group));
    arch = gc_arch_by_name(a->target);
    if (!arch || !arch->hwreg)
        return fail(c, GPUCORE_E_INVAL, "agent target '%s' has no wave layout", a->target);
    GC_TRY(parse_stop(c, o, w, arch));
    lanes = d->wave32 ? 32 : 64;
    GC_TRY(get_u64(c, o, "exec", 0, lanes == 64 ? UINT64_MAX : UINT32_MAX, 0,
                   lanes == 64 ? UINT64_MAX : UINT32_MAX, &w->exec));
    pc = json_object_get(o, "pc");
    w->pc_is_kernel = 1;
    if (pc) {
        static const char *const pkeys[] = { "kernel_offset", "address", NULL };
        size_t o1 = push(c, "pc", 0);

        GC_TRY(check_keys(c, pc, pkeys));
        if (!!json_object_get(pc, "kernel_offset") == !!json_object_get(pc, "address"))
            return fail(c, GPUCORE_E_INVAL, "give exactly one of kernel_offset and address");
        if (json_object_get(pc, "address")) {
            w->pc_is_kernel = 0;
            GC_TRY(get_u64(c, pc, "address", 1, 0, 1, (1ull << 48) - 1, &w->pc_address));
            if (w->pc_address % 4)
                return fail(c, GPUCORE_E_INVAL, "address: not 4-byte aligned");
        } else {
            GC_TRY(get_u64(c, pc, "kernel_offset", 1, 0, 0, 1u << 24, &w->pc_offset));
            if (w->pc_offset % 4)
                return fail(c, GPUCORE_E_INVAL, "kernel_offset: not 4-byte aligned");
        }
        pop(c, o1);
    }
    regs = json_object_get(o, "registers");
    if (regs) {
        size_t o1 = push(c, "registers", 0);
        GC_TRY(parse_regs(c, regs, w, s));
        pop(c, o1);
    }
    GC_TRY(get_enum(c, o, "lds", 0, d->group_segment_size ? 2 : 0, pattern_names, &pat));
    w->lds_pattern = (enum gc_scen_pattern)pat;
    if (pat && !d->group_segment_size)
        return fail(c, GPUCORE_E_INVAL, "lds: the dispatch has no group segment");
    GC_TRY(get_u32(c, o, "lds_seed", 0, 0, 0, UINT32_MAX, &w->lds_seed));
    wpg = gc_scen_waves_per_group(s, w);
    if ((uint64_t)wpg * w->workgroup_count + s->total_waves > GC_SCEN_MAX_WAVES)
        return fail(c, GPUCORE_E_LIMIT, "more than %u waves in the scenario", GC_SCEN_MAX_WAVES);
    w->first_wave = s->total_waves;
    w->total_waves = wpg * w->workgroup_count;
    s->total_waves += w->total_waves;
    return GPUCORE_OK;
}

uint32_t gc_scen_waves_per_group(const struct gc_scenario *s, const struct gc_scen_waves *w)
{
    const struct gc_scen_dispatch *d = &s->dispatches[w->dispatch];
    uint32_t items = d->workgroup[0] * d->workgroup[1] * d->workgroup[2];
    uint32_t lanes = d->wave32 ? 32 : 64;

    if (w->waves_per_group)
        return w->waves_per_group;
    return (items + lanes - 1) / lanes;
}

static gpucore_status_t parse_buffer(struct pctx *c, json_t *o, struct gc_scen_buffer *b,
                                     struct gc_scenario *s, uint64_t *dense)
{
    static const char *const keys[] = { "name", "agent", "address", "size", "sparse", "pattern",
                                        "seed", "ranges", NULL };
    json_t *r;
    json_t *addr;
    int pat;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_str(c, o, "name", 1, "", b->name, sizeof(b->name)));
    if (find_named(b->name, s->buffers, (size_t)(b - s->buffers), sizeof(*b),
                   offsetof(struct gc_scen_buffer, name)) >= 0)
        return fail(c, GPUCORE_E_INVAL, "name: '%s' used twice", b->name);
    GC_TRY(get_u32(c, o, "agent", 0, 0, 0, s->nagents ? s->nagents - 1 : 0, &b->agent));
    addr = json_object_get(o, "address");
    if (json_is_string(addr) && strcmp(json_string_value(addr), "auto") == 0)
        b->address = 0;
    else
        GC_TRY(get_u64(c, o, "address", 0, 0, 0x10000, (1ull << 47) - 1, &b->address));
    if (b->address % 4096)
        return fail(c, GPUCORE_E_INVAL, "address: not page aligned");
    GC_TRY(get_u64(c, o, "size", 1, 0, 1, GC_SCEN_MAX_BUFFER_SIZE, &b->size));
    GC_TRY(get_bool(c, o, "sparse", 0, &b->sparse));
    GC_TRY(get_enum(c, o, "pattern", 0, 0, buffer_pattern_names, &pat));
    b->pattern = (enum gc_scen_pattern)pat;
    if (b->pattern == GC_SCEN_PAT_SECRET && !s->has_secret)
        return fail(c, GPUCORE_E_INVAL, "pattern: 'secret' needs a top-level \"secret\"");
    GC_TRY(get_u32(c, o, "seed", 0, 0, 0, UINT32_MAX, &b->seed));
    GC_TRY(get_array(c, o, "ranges", GC_SCEN_MAX_RANGES, &r));
    for (size_t i = 0; r && i < json_array_size(r); i++) {
        static const char *const rkeys[] = { "offset", "size", NULL };
        struct gc_scen_range *g = &b->ranges[i];
        size_t o1 = push(c, "ranges", 0), o2 = push(c, NULL, (long)i);
        json_t *e = json_array_get(r, i);

        GC_TRY(check_keys(c, e, rkeys));
        GC_TRY(get_u64(c, e, "offset", 1, 0, 0, b->size - 1, &g->offset));
        GC_TRY(get_u64(c, e, "size", 1, 0, 1, b->size - g->offset, &g->size));
        if (g->offset % 4 || g->size % 4)
            return fail(c, GPUCORE_E_INVAL, "offset and size must be multiples of 4");
        pop(c, o2);
        pop(c, o1);
        b->nranges++;
    }
    if (b->pattern != GC_SCEN_PAT_ZERO) {
        uint64_t n = 0;

        if (!b->nranges && b->sparse)
            return fail(c, GPUCORE_E_INVAL, "pattern: a sparse buffer needs 'ranges' saying "
                        "where the pattern goes");
        if (!b->nranges)
            n = b->size;
        for (uint32_t i = 0; i < b->nranges; i++)
            n += b->ranges[i].size;
        *dense += n;
    }
    if (!b->sparse)
        *dense += b->size;
    if (*dense > GC_SCEN_MAX_DENSE_SIZE)
        return fail(c, GPUCORE_E_LIMIT, "more than %llu MiB of resident buffer memory "
                    "(use sparse buffers with ranges)", GC_SCEN_MAX_DENSE_SIZE >> 20);
    return GPUCORE_OK;
}

static gpucore_status_t parse_code_object(struct pctx *c, json_t *o,
                                          struct gc_scen_code_object *co,
                                          const struct gc_scenario *s)
{
    static const char *const keys[] = { "name",   "source", "object", "target",
                                        "uri",    "uri_path", NULL };
    static const char *const uris[] = { "memory", "file", NULL };
    int u;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_str(c, o, "name", 1, "", co->name, sizeof(co->name)));
    if (find_named(co->name, s->code_objects, (size_t)(co - s->code_objects), sizeof(*co),
                   offsetof(struct gc_scen_code_object, name)) >= 0)
        return fail(c, GPUCORE_E_INVAL, "name: '%s' used twice", co->name);
    GC_TRY(get_str(c, o, "target", 1, "", co->target, sizeof(co->target)));
    if (!gc_arch_by_name(co->target))
        return fail(c, GPUCORE_E_INVAL, "target: unknown target '%s'", co->target);
    if (!!json_object_get(o, "source") == !!json_object_get(o, "object"))
        return fail(c, GPUCORE_E_INVAL, "give exactly one of 'source' (kernels/NAME.cl) and "
                    "'object' (a file in the objects directory)");
    if (json_object_get(o, "source")) {
        char src[GC_SCEN_NAME_MAX];
        size_t n;

        GC_TRY(get_str(c, o, "source", 1, "", src, sizeof(src)));
        n = strlen(src);
        if (n < 4 || strcmp(src + n - 3, ".cl") || strchr(src, '/'))
            return fail(c, GPUCORE_E_INVAL, "source: '%s' is not NAME.cl", src);
        /* The build names objects <stem>.<target>.co (tests/scenarios.cmake). */
        snprintf(co->object, sizeof(co->object), "%.*s.%s.co", (int)(n - 3), src, co->target);
    } else {
        GC_TRY(get_str(c, o, "object", 1, "", co->object, sizeof(co->object)));
        if (strchr(co->object, '/') || co->object[0] == '.')
            return fail(c, GPUCORE_E_INVAL, "object: a plain file name is expected");
    }
    GC_TRY(get_enum(c, o, "uri", 0, 0, uris, &u));
    co->uri_file = u;
    GC_TRY(get_str(c, o, "uri_path", 0, "", co->uri_path, sizeof(co->uri_path)));
    if (co->uri_path[0] && (!co->uri_file || co->uri_path[0] != '/'))
        return fail(c, GPUCORE_E_INVAL, "uri_path: an absolute path, with \"uri\": \"file\"");
    return GPUCORE_OK;
}

/* The host memory { "host": NAME } names, by enum gc_scen_host_memory value. */
static const char *const host_memory_names[] = { "stack", NULL };

/* An exception's "address" given as an object: relative to a buffer or in host memory. */
static gpucore_status_t parse_relative_address(struct pctx *c, json_t *v,
                                               struct gc_scen_exception *e,
                                               const struct gc_scenario *s)
{
    static const char *const buffer_keys[] = { "buffer", "offset", "before", NULL };
    static const char *const host_keys[] = { "host", NULL };
    int has_buffer = json_object_get(v, "buffer") != NULL;
    int has_host = json_object_get(v, "host") != NULL;

    if (has_buffer == has_host)
        return fail(c, GPUCORE_E_INVAL, "give exactly one of 'buffer' and 'host'");
    if (has_host) {
        int h;

        GC_TRY(check_keys(c, v, host_keys));
        GC_TRY(get_enum(c, v, "host", 1, 0, host_memory_names, &h));
        e->address_kind = GC_SCEN_ADDRESS_HOST;
        e->address_host = (enum gc_scen_host_memory)h;
        return GPUCORE_OK;
    }
    {
        char name[GC_SCEN_NAME_MAX];
        int i;

        GC_TRY(check_keys(c, v, buffer_keys));
        if (json_object_get(v, "offset") && json_object_get(v, "before"))
            return fail(c, GPUCORE_E_INVAL, "give at most one of 'offset' and 'before'");
        GC_TRY(get_str(c, v, "buffer", 1, "", name, sizeof(name)));
        i = find_named(name, s->buffers, s->nbuffers, sizeof(*s->buffers),
                       offsetof(struct gc_scen_buffer, name));
        if (i < 0) {
            size_t o = push(c, "buffer", 0);
            gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "no buffer named '%s'", name);

            pop(c, o);
            return st;
        }
        e->address_kind = GC_SCEN_ADDRESS_BUFFER;
        e->address_buffer = (uint32_t)i;
        e->address_before = json_object_get(v, "before") != NULL;
        if (e->address_before)
            return get_u64(c, v, "before", 1, 0, 1, GC_SCEN_MAX_ADDRESS_DISTANCE,
                           &e->address_offset);
        return get_u64(c, v, "offset", 0, 0, 0, GC_SCEN_MAX_ADDRESS_DISTANCE,
                       &e->address_offset);
    }
}

static gpucore_status_t parse_exception(struct pctx *c, json_t *o, struct gc_scen_exception *e,
                                        const struct gc_scenario *s)
{
    static const char *const keys[] = { "what", "queue", "at_ms", "address", "fault_flags",
                                        NULL };
    static const char *const whats[] = { "queue_error", "memory_violation", "illegal_instruction",
                                         "assert_trap", "queue_new", "device_error", NULL };
    int w;

    GC_TRY(check_keys(c, o, keys));
    GC_TRY(get_enum(c, o, "what", 1, 0, whats, &w));
    snprintf(e->what, sizeof(e->what), "%s", whats[w]);
    if (json_object_get(o, "queue")) {
        if (!s->nqueues)
            return fail(c, GPUCORE_E_INVAL, "no queues");
        GC_TRY(get_u32(c, o, "queue", 1, 0, 0, s->nqueues - 1, &e->queue));
    } else {
        e->queue = UINT32_MAX;
    }
    GC_TRY(get_u32(c, o, "at_ms", 0, 0, 0, 3600u * 1000u, &e->at_ms));
    /* A fault address: where the faulting access went (a 57-bit canonical user address), as a
       number, or relative to a buffer or host memory (where those land is known only when the
       inferior lays the scenario out). */
    if (json_is_object(json_object_get(o, "address"))) {
        size_t old = push(c, "address", 0);
        gpucore_status_t st = parse_relative_address(c, json_object_get(o, "address"), e, s);

        if (st < 0)
            return st;
        pop(c, old);
    } else {
        GC_TRY(get_u64(c, o, "address", 0, 0, 1, (1ull << 57) - 1, &e->address));
        e->address_kind = e->address ? GC_SCEN_ADDRESS_ABSOLUTE : GC_SCEN_ADDRESS_NONE;
    }
    GC_TRY(get_u32(c, o, "fault_flags", 0, 0, 0, 0xf, &e->fault_flags));
    if (json_object_get(o, "fault_flags") && e->address_kind == GC_SCEN_ADDRESS_NONE)
        return fail(c, GPUCORE_E_INVAL, "fault_flags: only with an 'address'");
    return GPUCORE_OK;
}

/* Which keys an action takes (besides "op"), and what it is. */
static const struct {
    const char *key; /* the key that selects the action */
    enum gc_scen_fault_action action;
    const char *const keys[6];
} fault_actions[] = {
    { "exit", GC_SCEN_FAULT_EXIT, { "op", "exit", "nth", NULL } },
    { "delay_ms", GC_SCEN_FAULT_DELAY, { "op", "delay_ms", NULL } },
    { "delay_us_per_mib", GC_SCEN_FAULT_READ_DELAY, { "op", "delay_us_per_mib", NULL } },
    { "buffer", GC_SCEN_FAULT_READ_EIO, { "op", "errno", "buffer", "offset", "size", NULL } },
    { "errno", GC_SCEN_FAULT_ERRNO, { "op", "errno", "nth", NULL } },
};

#define SCEN_PAGE 4096u

static gpucore_status_t parse_fault(struct pctx *c, json_t *o, struct gc_scen_fault *f,
                                    const struct gc_scenario *s)
{
    static const char *const all[] = { "op", "errno", "nth", "exit", "delay_ms",
        "delay_us_per_mib", "buffer", "offset", "size", NULL };
    /* The operations a fault can be injected into, by the name the README gives them. */
    static const char *const ops[] = { "enable", "disable", "runtime_info", "device_snapshot",
        "queue_snapshot", "suspend", "resume", "query_exception", "set_exceptions",
        "query_event", "wave_launch_mode", "get_version", "read_memory", NULL };
    static const int op_number[] = {
        KFD_IOC_DBG_TRAP_ENABLE, KFD_IOC_DBG_TRAP_DISABLE,
        KFD_IOC_DBG_TRAP_ENABLE, /* runtime_info: the runtime info comes with ENABLE */
        KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT, KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT,
        KFD_IOC_DBG_TRAP_SUSPEND_QUEUES, KFD_IOC_DBG_TRAP_RESUME_QUEUES,
        KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO, KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED,
        KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT, KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE,
        GC_SIM_OP_GET_VERSION, -1,
    };
    _Static_assert(GC_ARRAY_SIZE(op_number) == GC_ARRAY_SIZE(ops) - 1, "one number per op");
    static const char *const errs[] = { "EPERM", "EINVAL", "ENOMEM", "EBUSY", "EIO", "ENODEV",
                                        "EAGAIN", "EFAULT", "ESRCH", "EACCES", "ETIMEDOUT", NULL };
    static const int errv[] = { EPERM, EINVAL, ENOMEM, EBUSY, EIO, ENODEV, EAGAIN, EFAULT, ESRCH,
                                EACCES, ETIMEDOUT };
    int op, e;
    size_t a = GC_ARRAY_SIZE(fault_actions);

    GC_TRY(check_keys(c, o, all));
    GC_TRY(get_enum(c, o, "op", 1, 0, ops, &op));
    snprintf(f->op, sizeof(f->op), "%s", ops[op]);
    f->driver_op = op_number[op];
    /* The first selecting key present decides the action; the action's key list then rejects
       every key of another action ("exit" together with "errno" is an error, not a choice). */
    for (size_t i = 0; i < GC_ARRAY_SIZE(fault_actions) && a == GC_ARRAY_SIZE(fault_actions); i++)
        if (json_object_get(o, fault_actions[i].key))
            a = i;
    if (a == GC_ARRAY_SIZE(fault_actions))
        return fail(c, GPUCORE_E_INVAL, "one of 'errno', 'exit', 'delay_ms', "
                    "'delay_us_per_mib' or 'buffer' is needed");
    GC_TRY(check_keys(c, o, fault_actions[a].keys));
    f->action = fault_actions[a].action;
    int is_read = f->driver_op < 0;
    int read_action = f->action == GC_SCEN_FAULT_READ_DELAY || f->action == GC_SCEN_FAULT_READ_EIO;
    if (is_read != read_action) {
        size_t o1 = push(c, fault_actions[a].key, 0);
        gpucore_status_t st = fail(c, GPUCORE_E_INVAL, is_read ?
                                   "read_memory takes 'delay_us_per_mib' or 'errno': 'EIO' with "
                                   "'buffer', 'offset' and 'size'" :
                                   "only for the 'read_memory' op");
        pop(c, o1);
        return st;
    }
    switch (f->action) {
    case GC_SCEN_FAULT_ERRNO:
        GC_TRY(get_enum(c, o, "errno", 1, 0, errs, &e));
        f->err = errv[e];
        GC_TRY(get_u32(c, o, "nth", 0, 1, 1, 1000000, &f->nth));
        break;
    case GC_SCEN_FAULT_EXIT: {
        uint32_t st;

        GC_TRY(get_u32(c, o, "exit", 1, 0, 0, 255, &st));
        f->exit_status = (int)st;
        GC_TRY(get_u32(c, o, "nth", 0, 1, 1, 1000000, &f->nth));
        break;
    }
    case GC_SCEN_FAULT_DELAY:
        GC_TRY(get_u32(c, o, "delay_ms", 1, 0, 1, 60000, &f->delay_ms));
        break;
    case GC_SCEN_FAULT_READ_DELAY:
        GC_TRY(get_u32(c, o, "delay_us_per_mib", 1, 0, 1, 10000000, &f->delay_us_per_mib));
        break;
    case GC_SCEN_FAULT_READ_EIO: {
        static const char *const eio[] = { "EIO", NULL };
        char name[GC_SCEN_NAME_MAX];
        const struct gc_scen_buffer *b = NULL;
        size_t o1;

        GC_TRY(get_enum(c, o, "errno", 1, 0, eio, &e));
        f->err = EIO;
        GC_TRY(get_str(c, o, "buffer", 1, "", name, sizeof(name)));
        for (uint32_t i = 0; i < s->nbuffers && !b; i++) {
            if (strcmp(s->buffers[i].name, name) == 0) {
                b = &s->buffers[i];
                f->buffer = i;
            }
        }
        if (!b) {
            o1 = push(c, "buffer", 0);
            gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "no buffer named '%s'", name);
            pop(c, o1);
            return st;
        }
        GC_TRY(get_u64(c, o, "offset", 1, 0, 0, b->size, &f->offset));
        GC_TRY(get_u64(c, o, "size", 1, 0, 1, b->size, &f->size));
        if (f->offset % SCEN_PAGE || f->size % SCEN_PAGE || f->size > b->size - f->offset) {
            o1 = push(c, "size", 0);
            gpucore_status_t st = fail(c, GPUCORE_E_INVAL, "offset 0x%" PRIx64 " and size 0x%"
                                       PRIx64 " must be page aligned and inside the buffer's 0x%"
                                       PRIx64 " bytes", f->offset, f->size, b->size);
            pop(c, o1);
            return st;
        }
        break;
    }
    }
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */

/* Parse array member @p key with element parser @p fn into a new array of @p size elements. */
#define PARSE_ARRAY(c, root, key, max, arr, n, call)                                               \
    do {                                                                                           \
        json_t *a_;                                                                                \
        GC_TRY(get_array((c), (root), (key), (max), &a_));                                         \
        if (a_ && json_array_size(a_)) {                                                           \
            (arr) = gc_calloc_array(json_array_size(a_), sizeof(*(arr)));                          \
            if (!(arr))                                                                            \
                return GPUCORE_E_NOMEM;                                                            \
            for (size_t i_ = 0; i_ < json_array_size(a_); i_++) {                                  \
                size_t o1_ = push((c), (key), 0), o2_ = push((c), NULL, (long)i_);                 \
                json_t *e_ = json_array_get(a_, i_);                                               \
                gpucore_status_t st_;                                                              \
                (n) = (uint32_t)i_;                                                                \
                st_ = (call);                                                                      \
                if (st_ < 0) {                                                                     \
                    (n) = (uint32_t)i_ + 1; /* free what the element allocated */                  \
                    return st_;                                                                    \
                }                                                                                  \
                pop((c), o2_);                                                                     \
                pop((c), o1_);                                                                     \
            }                                                                                      \
            (n) = (uint32_t)json_array_size(a_);                                                   \
        }                                                                                          \
    } while (0)

/* "secret": { "marker": 32 hex digits, "heap": bytes }. The digits go straight into
   s->secret, so the marker's bytes exist nowhere else the parser wrote. */
static gpucore_status_t parse_secret(struct pctx *c, json_t *root, struct gc_scenario *s)
{
    static const char *const keys[] = { "marker", "heap", NULL };
    json_t *o = json_object_get(root, "secret"), *m;
    const char *hex;
    size_t o1;

    if (!o)
        return GPUCORE_OK;
    o1 = push(c, "secret", 0);
    GC_TRY(check_keys(c, o, keys));
    m = json_object_get(o, "marker");
    hex = json_is_string(m) ? json_string_value(m) : NULL;
    if (!hex || strlen(hex) != 32)
        return fail(c, GPUCORE_E_INVAL, "marker: expected 32 hex digits (16 bytes)");
    for (size_t i = 0; i < 32; i++) {
        int v = hex[i] >= '0' && hex[i] <= '9'   ? hex[i] - '0'
                : hex[i] >= 'a' && hex[i] <= 'f' ? hex[i] - 'a' + 10
                : hex[i] >= 'A' && hex[i] <= 'F' ? hex[i] - 'A' + 10
                                                 : -1;

        if (v < 0)
            return fail(c, GPUCORE_E_INVAL, "marker: bad hex digit at %zu", i);
        s->secret[i / 2] = (uint8_t)(s->secret[i / 2] << 4 | (uint8_t)v);
    }
    GC_TRY(get_u32(c, o, "heap", 0, 0, 0, GC_SCEN_MAX_SECRET_HEAP, &s->secret_heap));
    s->has_secret = 1;
    pop(c, o1);
    return GPUCORE_OK;
}

static gpucore_status_t parse_root(struct pctx *c, json_t *root, struct gc_scenario *s)
{
    static const char *const keys[] = { "name", "r_version", "ttmp_setup", "agents", "queues",
        "code_objects", "buffers", "dispatches", "waves", "exceptions", "fault_injection",
        "host_threads", "description", "on_queue_error", "exit_status", "kfd", "exception_clock",
        "secret", NULL };
    static const char *const on_error[] = { "continue", "abort", "exit", NULL };
    json_t *kfd;
    int onerr;
    json_t *ht;
    uint64_t dense = 0;
    int ttmp = 1;
    char name[GC_SCEN_NAME_MAX];

    GC_TRY(check_keys(c, root, keys));
    GC_TRY(get_str(c, root, "name", 1, "", name, sizeof(name)));
    s->name = gc_strdup(name);
    if (!s->name)
        return GPUCORE_E_NOMEM;
    if (json_object_get(root, "description") && !json_is_string(json_object_get(root,
                                                                             "description")))
        return fail(c, GPUCORE_E_INVAL, "description: expected a string");
    GC_TRY(get_u32(c, root, "r_version", 0, 10, 8, 12, &s->r_version));
    GC_TRY(get_bool(c, root, "ttmp_setup", 1, &ttmp));
    s->ttmp_setup = (uint32_t)ttmp;
    GC_TRY(parse_secret(c, root, s));

    if (!json_object_get(root, "agents"))
        return fail(c, GPUCORE_E_INVAL, "missing 'agents'");
    PARSE_ARRAY(c, root, "agents", GC_SCEN_MAX_AGENTS, s->agents, s->nagents,
                parse_agent(c, e_, &s->agents[i_], s));
    if (!s->nagents)
        return fail(c, GPUCORE_E_INVAL, "agents: at least one agent is needed");
    for (uint32_t i = 0; i < s->nagents; i++)
        for (uint32_t j = 0; j < i; j++)
            if (s->agents[i].gpu_id == s->agents[j].gpu_id)
                return fail(c, GPUCORE_E_INVAL, "agents[%u].gpu_id: 0x%x used twice", i,
                            s->agents[i].gpu_id);
    PARSE_ARRAY(c, root, "queues", GC_SCEN_MAX_QUEUES, s->queues, s->nqueues,
                parse_queue(c, e_, &s->queues[i_], s));
    PARSE_ARRAY(c, root, "code_objects", GC_SCEN_MAX_CODE_OBJECTS, s->code_objects,
                s->ncode_objects, parse_code_object(c, e_, &s->code_objects[i_], s));
    PARSE_ARRAY(c, root, "buffers", GC_SCEN_MAX_BUFFERS, s->buffers, s->nbuffers,
                parse_buffer(c, e_, &s->buffers[i_], s, &dense));
    PARSE_ARRAY(c, root, "dispatches", GC_SCEN_MAX_DISPATCHES, s->dispatches, s->ndispatches,
                parse_dispatch(c, e_, &s->dispatches[i_], s));
    PARSE_ARRAY(c, root, "waves", GC_SCEN_MAX_WAVE_ENTRIES, s->waves, s->nwaves,
                parse_waves(c, e_, &s->waves[i_], s));
    PARSE_ARRAY(c, root, "exceptions", GC_SCEN_MAX_EXCEPTIONS, s->exceptions, s->nexceptions,
                parse_exception(c, e_, &s->exceptions[i_], s));
    PARSE_ARRAY(c, root, "fault_injection", GC_SCEN_MAX_FAULTS, s->faults, s->nfaults,
                parse_fault(c, e_, &s->faults[i_], s));
    ht = json_object_get(root, "host_threads");
    if (ht) {
        static const char *const hkeys[] = { "count", "mode", NULL };
        static const char *const modes[] = { "spin", "blocked", NULL };
        size_t o1 = push(c, "host_threads", 0);
        int m;

        GC_TRY(check_keys(c, ht, hkeys));
        GC_TRY(get_u32(c, ht, "count", 1, 0, 0, GC_SCEN_MAX_HOST_THREADS, &s->host_threads));
        GC_TRY(get_enum(c, ht, "mode", 0, 1, modes, &m));
        s->host_threads_block = m == 1;
        pop(c, o1);
    }
    GC_TRY(get_enum(c, root, "on_queue_error", 0, 0, on_error, &onerr));
    s->on_queue_error = (enum gc_scen_on_error)onerr;
    GC_TRY(get_u32(c, root, "exit_status", 0, 1, 0, 255, &s->exit_status));
    if (json_object_get(root, "exit_status") && s->on_queue_error != GC_SCEN_ON_ERROR_EXIT)
        return fail(c, GPUCORE_E_INVAL, "exit_status: only with \"on_queue_error\": \"exit\"");
    {
        static const char *const clocks[] = { "debugger", "runtime", NULL };
        int clk;

        GC_TRY(get_enum(c, root, "exception_clock", 0, 0, clocks, &clk));
        s->runtime_clock = clk == 1;
    }
    s->kfd_minor = 18;
    kfd = json_object_get(root, "kfd");
    if (kfd) {
        static const char *const kkeys[] = { "minor", "no_hws", NULL };
        size_t o1 = push(c, "kfd", 0);

        GC_TRY(check_keys(c, kfd, kkeys));
        GC_TRY(get_u32(c, kfd, "minor", 0, 18, 13, 18, &s->kfd_minor));
        GC_TRY(get_bool(c, kfd, "no_hws", 0, &s->no_hws));
        pop(c, o1);
    }
    /* Cross checks that need every section. */
    for (uint32_t i = 0; i < s->ndispatches; i++) {
        const struct gc_scen_dispatch *d = &s->dispatches[i];
        const struct gc_scen_code_object *co = &s->code_objects[d->code_object];
        const struct gc_arch *qa = gc_arch_by_name(s->agents[s->queues[d->queue].agent].target);
        const struct gc_arch *ca = gc_arch_by_name(co->target);

        /* A code object runs on an agent of its own ELF machine, or one LLVM 16 compiles the
           agent's kernels for (gfx942 code is built as gfx940: gc_arch::llvm_cpu). */
        if (qa != ca && !(qa->llvm_cpu && strcmp(qa->llvm_cpu, ca->name) == 0))
            return fail(c, GPUCORE_E_INVAL, "dispatches[%u].code_object: '%s' is built for %s, "
                        "the queue's agent is %s", i, co->name, ca->name, qa->name);
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_scenario_parse(const char *text, size_t len, const char *path,
                                   struct gc_scenario **ret, gpucore_diag_t *reterr_diag)
{
    struct pctx c = { .file = path ? path : "<scenario>", .diag = reterr_diag };
    struct gc_scenario *s;
    json_error_t jerr;
    json_t *root;
    gpucore_status_t st;

    if (!text || !ret)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    if (len > (16u << 20))
        return fail(&c, GPUCORE_E_LIMIT, "larger than 16 MiB");
    /* REJECT_DUPLICATES: a key given twice is a mistake in a hand-written file. */
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, (uint64_t)jerr.position,
                           "%s:%d:%d: %s", c.file, jerr.line, jerr.column, jerr.text);
    s = calloc(1, sizeof(*s));
    if (!s) {
        json_decref(root);
        return GPUCORE_E_NOMEM;
    }
    s->path = gc_strdup(c.file);
    st = s->path ? parse_root(&c, root, s) : GPUCORE_E_NOMEM;
    json_decref(root);
    if (st == GPUCORE_E_NOMEM)
        gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "%s: out of memory", c.file);
    if (st < 0) {
        gc_scenario_free(s);
        return st;
    }
    *ret = s;
    return GPUCORE_OK;
}

gpucore_status_t gc_scenario_load(const char *path, struct gc_scenario **ret,
                                  gpucore_diag_t *reterr_diag)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n;
    long size;
    gpucore_status_t st;

    if (!f)
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s", path,
                           strerror(errno));
    if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        size > (16l << 20)) {
        fclose(f);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "%s: cannot size the file (or larger than 16 MiB)", path);
    }
    buf = gc_malloc((size_t)size + 1);
    if (!buf) {
        fclose(f);
        return GPUCORE_E_NOMEM;
    }
    n = fread(buf, 1, (size_t)size, f);
    fclose(f);
    st = gc_scenario_parse(buf, n, path, ret, reterr_diag);
    gc_free(buf);
    return st;
}

void gc_scenario_free(struct gc_scenario *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->ndispatches; i++) {
        gc_free(s->dispatches[i].kernargs);
        gc_free(s->dispatches[i].raw_kernargs);
        gc_free(s->dispatches[i].printf_words);
    }
    for (uint32_t i = 0; i < s->nwaves; i++)
        gc_free(s->waves[i].overrides);
    gc_free(s->agents);
    gc_free(s->queues);
    gc_free(s->dispatches);
    gc_free(s->waves);
    gc_free(s->buffers);
    gc_free(s->code_objects);
    gc_free(s->exceptions);
    gc_free(s->faults);
    gc_free(s->name);
    gc_free(s->path);
    free(s);
}

gpucore_status_t gc_scenario_add_faults(struct gc_scenario *s, const char *text,
                                        const char *source, gpucore_diag_t *reterr_diag)
{
    struct pctx c = { .file = source ? source : "<faults>", .diag = reterr_diag };
    struct gc_scen_fault *all = NULL;
    json_error_t jerr;
    json_t *root;
    size_t n;
    gpucore_status_t st = GPUCORE_OK;

    if (!s || !text)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, (uint64_t)jerr.position,
                           "%s:%d: %s", c.file, jerr.column, jerr.text);
    if (!json_is_array(root)) {
        json_decref(root);
        return fail(&c, GPUCORE_E_INVAL, "expected a JSON array of fault_injection entries");
    }
    n = json_array_size(root);
    if (n > GC_SCEN_MAX_FAULTS - s->nfaults) {
        json_decref(root);
        return fail(&c, GPUCORE_E_LIMIT, "%zu entries and the scenario's %u exceed %u", n,
                    s->nfaults, GC_SCEN_MAX_FAULTS);
    }
    all = gc_calloc_array(s->nfaults + n + 1u, sizeof(*all));
    if (!all) {
        json_decref(root);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "%s: out of memory",
                           c.file);
    }
    if (s->nfaults)
        memcpy(all, s->faults, s->nfaults * sizeof(*all));
    for (size_t i = 0; i < n && st == GPUCORE_OK; i++) {
        size_t o = push(&c, NULL, (long)i);

        st = parse_fault(&c, json_array_get(root, i), &all[s->nfaults + i], s);
        pop(&c, o);
    }
    json_decref(root);
    if (st < 0) {
        gc_free(all);
        return st;
    }
    gc_free(s->faults);
    s->faults = all;
    s->nfaults += (uint32_t)n;
    return GPUCORE_OK;
}
