/* SPDX-License-Identifier: MIT */
/*
 * A dispatch's kernel arguments for the report (triage_internal.h, gc_tr_args_*): the kernel's
 * argument metadata from its code object (kernargs.h), each value read from the kernarg
 * segment in the core, pointers related to the core's allocation map (GPUCORE ALLOC_MAP).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <gpucore/schema.h>

#include "interval.h"
#include "devprintf.h"
#include "kernargs.h"
#include "triage_internal.h"
#include "wave.h"

#define KD_KERNARG_SIZE_OFFSET 8u /* kernel descriptor: kernarg_size (u32) */

struct co_md {
    int tried;
    struct gc_ka_metadata *md; /* NULL: error says why */
    char error[GPUCORE_DIAG_MESSAGE_SIZE + 256];
    /* Its amdhsa.printf formats, parsed at the first dispatch with a printf buffer and kept:
       up to 16 MiB of format text is parsed once per code object, not once per dispatch. */
    int printf_tried;
    struct gc_dp_formats *printf; /* NULL: printf_error says why */
    char printf_error[GPUCORE_DIAG_MESSAGE_SIZE + 64];
};

struct gc_tr_args {
    const struct gc_triage *t;
    gpucore_alloc_map_t *allocs; /* NULL: allocs_error says why */
    struct gc_iv_index alloc_ix; /* allocs by extent (ids: their index): one pointer argument
                                    is related in O(log allocations), not by a walk of them */
    char allocs_error[GPUCORE_DIAG_MESSAGE_SIZE + 64];
    uint32_t nco;
    struct co_md *co;
};

/* a->alloc_ix over a->allocs; an empty allocation holds nothing. The index is charged to the
   core's budget (when refused, the map is not used: allocs_error says why). */
static gpucore_status_t index_allocs(struct gc_tr_args *a)
{
    const gpucore_alloc_map_t *m = a->allocs;
    struct gc_iv *v;
    uint32_t n = 0;
    gpucore_diag_t d;

    if (gpucore_core_mem_reserve(a->t->core, gc_iv_cost(m->count), "the allocation map's index",
                                 &d) != GPUCORE_OK) {
        snprintf(a->allocs_error, sizeof(a->allocs_error),
                 "the core's allocation map is not read (%s)", d.message);
        gpucore_alloc_map_free(a->allocs);
        a->allocs = NULL;
        return GPUCORE_OK;
    }
    v = gc_calloc_array((size_t)m->count + 1u, sizeof(*v));
    if (!v)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_alloc_t *al = &m->allocs[i];

        if (!al->size)
            continue;
        v[n].lo = al->base;
        v[n].last = al->size - 1 > UINT64_MAX - al->base ? UINT64_MAX : al->base + al->size - 1;
        v[n++].id = i;
    }
    return gc_iv_build(&a->alloc_ix, v, n);
}

struct gc_tr_args *gc_tr_args_new(const struct gc_triage *t)
{
    struct gc_tr_args *a = gc_calloc_array(1, sizeof(*a));
    struct gpucore_note note;
    uint32_t idx = 0;
    gpucore_diag_t d;

    if (!a)
        return NULL;
    a->t = t;
    a->nco = gc_image_code_object_count(t->img);
    a->co = gc_calloc_array((size_t)a->nco + 1u, sizeof(*a->co));
    if (!a->co) {
        gc_free(a);
        return NULL;
    }
    if (gpucore_core_find_note(t->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_ALLOC_MAP, &idx, &note) !=
        GPUCORE_OK)
        snprintf(a->allocs_error, sizeof(a->allocs_error), "the core has no allocation map");
    else if (gpucore_core_mem_reserve(t->core, GPUCORE_NOTE_DECODED_MAX(note.desc_size),
                                      "the allocation map", &d) != GPUCORE_OK)
        snprintf(a->allocs_error, sizeof(a->allocs_error),
                 "the core's allocation map is not read (%s)", d.message);
    else if (gpucore_alloc_map_decode(note.desc, (size_t)note.desc_size, &a->allocs, &d) !=
             GPUCORE_OK)
        snprintf(a->allocs_error, sizeof(a->allocs_error),
                 "the core's allocation map cannot be decoded (%s)", d.message);
    else if (index_allocs(a) != GPUCORE_OK) {
        gc_tr_args_free(a);
        return NULL;
    }
    return a;
}

void gc_tr_args_free(struct gc_tr_args *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->nco; i++) {
        gc_ka_free(a->co[i].md);
        gc_dp_formats_free(a->co[i].printf);
    }
    gc_free(a->co);
    gc_iv_free(&a->alloc_ix);
    gpucore_alloc_map_free(a->allocs);
    gc_free(a);
}

/* The metadata of code object @p i, parsed once; NULL with *ret_error set when there is none. */
static const struct gc_ka_metadata *co_metadata(struct gc_tr_args *a, uint32_t i,
                                                const char **ret_error)
{
    const struct gc_image_code_object *co = gc_image_code_object(a->t->img, i);
    struct co_md *c = &a->co[i < a->nco ? i : a->nco];

    if (i >= a->nco || !co) {
        *ret_error = "the kernel descriptor is in no code object of the core: its arguments "
                     "cannot be named";
        return NULL;
    }
    if (!c->tried) {
        gpucore_diag_t d;
        gpucore_status_t st;

        c->tried = 1;
        if (!co->bytes)
            snprintf(c->error, sizeof(c->error),
                     "code object %" PRIu32 " (%.200s) is not in the core: no argument metadata", i,
                     co->uri);
        else if ((st = gc_ka_from_elf(co->bytes, (size_t)co->size, &c->md, &d)) != GPUCORE_OK)
            snprintf(c->error, sizeof(c->error),
                     "code object %" PRIu32 " (%.200s): no argument metadata: %s", i, co->uri,
                     st == GPUCORE_E_NOMEM ? "out of memory" : d.message);
    }
    *ret_error = c->error;
    return c->md;
}

/*
 * The printf formats of code object @p i, whose metadata is @p md, parsed once: NULL with
 * *ret_error set when they cannot be read.
 */
static const struct gc_dp_formats *co_printf_formats(struct gc_tr_args *a, uint32_t i,
                                                     const struct gc_ka_metadata *md,
                                                     const char **ret_error)
{
    struct co_md *c = &a->co[i];
    gpucore_diag_t d;

    if (!c->printf_tried) {
        c->printf_tried = 1;
        if (md->printf_error[0])
            snprintf(c->printf_error, sizeof(c->printf_error), "%s", md->printf_error);
        else if (gc_dp_formats_parse(md->printf, md->nprintf, &c->printf, &d) != GPUCORE_OK)
            snprintf(c->printf_error, sizeof(c->printf_error), "%s", d.message);
    }
    *ret_error = c->printf_error;
    return c->printf;
}

/* Allocation kinds in words, after the size ("64 KiB VRAM"). */
static const char *const alloc_kind_words[] = {
    /* a driver buffer object of no known use: all the linux backend sees of a render-node
       mapping (hipMalloc's, among others) */
    [GPUCORE_ALLOC_UNKNOWN] = "GPU buffer",
    [GPUCORE_ALLOC_VRAM] = "VRAM",
    [GPUCORE_ALLOC_GTT] = "GTT (system memory)",
    [GPUCORE_ALLOC_USERPTR] = "host memory (userptr)",
    [GPUCORE_ALLOC_SCRATCH] = "scratch",
    [GPUCORE_ALLOC_CWSR] = "context-save area",
    [GPUCORE_ALLOC_RING] = "AQL ring",
    [GPUCORE_ALLOC_CODE] = "code-object memory",
    [GPUCORE_ALLOC_KERNARG] = "kernel-argument memory",
    [GPUCORE_ALLOC_DOORBELL] = "doorbell page",
    [GPUCORE_ALLOC_MMIO] = "MMIO",
};

/* "64 KiB" for whole units, else gc_format_size()'s "59.9 MiB". */
static void size_words(uint64_t v, char *buf, size_t size)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    unsigned u = 0;
    uint64_t x = v;

    while (u + 1 < GC_ARRAY_SIZE(units) && x >= 1024 && x % 1024 == 0) {
        x /= 1024;
        u++;
    }
    if (x < 1024)
        snprintf(buf, size, "%" PRIu64 " %s", x, units[u]);
    else
        gc_format_size(v, buf, size);
}

/* An allocation's kind in words ("VRAM"). */
static const char *kind_words(const gpucore_alloc_t *al)
{
    return al->kind < GC_ARRAY_SIZE(alloc_kind_words) && alloc_kind_words[al->kind]
                   ? alloc_kind_words[al->kind]
                   : alloc_kind_words[GPUCORE_ALLOC_UNKNOWN];
}

/* An allocation's label as printf's "%.*s" takes it (at most 200 bytes; a placeholder when it
   has none). */
#define LABEL_ARGS(al)                                                                             \
    (al)->label.len ? (int)((al)->label.len > 200 ? 200 : (al)->label.len) : 19,                  \
            (al)->label.len ? (al)->label.ptr : "unlabelled mapping"

/* {label, kind, base, size, KEY: value} of an allocation. */
static json_t *alloc_ref_json(const gpucore_alloc_t *al, const char *key, uint64_t value)
{
    json_t *o = json_object();

    json_object_set_new(o, "label",
                        al->label.len ? json_stringn(al->label.ptr, al->label.len) : json_null());
    json_object_set_new(o, "kind", gc_json_str_or_null(gpucore_alloc_kind_name(al->kind)));
    json_object_set_new(o, "base", gc_json_hex(al->base));
    json_object_set_new(o, GC_TK_SIZE, gc_json_uint(al->size));
    json_object_set_new(o, key, gc_json_uint(value));
    return o;
}

/* Set "allocation" and "relation" of a pointer argument's JSON @p o with value @p v: the
   allocation holding it (of overlapping ones, the innermost: interval.h). */
static void relate(const struct gc_tr_args *a, uint64_t v, json_t *o)
{
    const gpucore_alloc_t *hit = NULL;
    char text[512], sz[32];
    uint32_t id;

    if (v == 0) {
        json_object_set_new(o, GC_TK_ALLOCATION, json_null());
        json_object_set_new(o, GC_TK_RELATION, json_string("null pointer"));
        return;
    }
    if (!a->allocs) {
        json_object_set_new(o, GC_TK_ALLOCATION, json_null());
        json_object_set_new(o, GC_TK_RELATION, json_string(a->allocs_error));
        return;
    }
    id = gc_iv_find(&a->alloc_ix, v);
    hit = id != UINT32_MAX ? &a->allocs->allocs[id] : NULL;
    if (!hit) {
        json_object_set_new(o, GC_TK_ALLOCATION, json_null());
        json_object_set_new(o, GC_TK_RELATION,
                            json_string("in no allocation of the core's allocation map"));
        return;
    }
    size_t len = 0;

    size_words(hit->size, sz, sizeof(sz));
    text[0] = '\0';
    if (v != hit->base)
        gc_str_appendf(text, sizeof(text), &len, "offset 0x%" PRIx64 " in ", v - hit->base);
    gc_str_appendf(text, sizeof(text), &len, "%.*s, %s %s", LABEL_ARGS(hit), sz, kind_words(hit));
    json_object_set_new(o, GC_TK_ALLOCATION, alloc_ref_json(hit, "offset", v - hit->base));
    json_object_set_new(o, GC_TK_RELATION, json_string(text));
}

/* Address spaces whose pointers are related to the allocation map. */
static int relatable(const struct gc_ka_arg *ka)
{
    static const char *const spaces[] = { "global", "constant", "generic" };

    if (ka->value_kind && strcmp(ka->value_kind, "global_buffer") == 0)
        return 1;
    for (size_t i = 0; ka->address_space && i < GC_ARRAY_SIZE(spaces); i++)
        if (strcmp(ka->address_space, spaces[i]) == 0)
            return 1;
    return 0;
}

static json_t *arg_json(const struct gc_tr_args *a, const struct gc_ka_arg *ka, uint32_t index,
                        const uint8_t *seg, uint64_t avail, uint32_t declared, int redacted,
                        json_t *problems)
{
    json_t *o = json_object();
    char value[256];
    uint64_t v = 0;
    gpucore_status_t st = GPUCORE_E_UNAVAILABLE;

    if (redacted)
        snprintf(value, sizeof(value), "%s", GC_TR_REDACTED);
    else
        st = gc_ka_format_value(ka, seg, avail, value, sizeof(value), &v);
    /* OpenCL names arguments only with -cl-kernel-arg-info; hidden ones go by their kind */
    const char *name = ka->name && ka->name[0] ? ka->name
                       : gc_ka_is_hidden(ka)   ? ka->value_kind
                                               : NULL;

    json_object_set_new(o, GC_TK_NAME, gc_json_str_or_null(name));
    json_object_set_new(o, GC_TK_HIDDEN, json_boolean(gc_ka_is_hidden(ka)));
    json_object_set_new(o, GC_TK_TYPE, gc_json_str_or_null(ka->type_name));
    json_object_set_new(o, "offset", gc_json_uint(ka->offset));
    json_object_set_new(o, GC_TK_SIZE, gc_json_uint(ka->size));
    json_object_set_new(o, GC_TK_VALUE_KIND, gc_json_str_or_null(ka->value_kind));
    json_object_set_new(o, GC_TK_ADDRESS_SPACE, gc_json_str_or_null(ka->address_space));
    if ((uint64_t)ka->offset + ka->size > declared) {
        gc_json_appendf(problems,
                      "argument %" PRIu32 " (%s) at bytes %" PRIu32 "..%" PRIu64
                      " lies past the %" PRIu32 "-byte kernarg segment the metadata declares",
                      index, name ? name : "no name", ka->offset,
                      (uint64_t)ka->offset + ka->size - (ka->size ? 1 : 0), declared);
    }
    if (st != GPUCORE_OK) {
        json_object_set_new(o, GC_TK_VALUE, json_null());
        json_object_set_new(o, GC_TK_VALUE_ERROR, json_string(value));
        json_object_set_new(o, GC_TK_ALLOCATION, json_null());
        json_object_set_new(o, GC_TK_RELATION, json_null());
        return o;
    }
    json_object_set_new(o, GC_TK_VALUE, json_string(value));
    json_object_set_new(o, GC_TK_VALUE_ERROR, json_null());
    /* hidden pointers (queue_ptr, printf/hostcall buffers, heap...) point at the runtime's
       allocations: related like explicit ones, and a null one says "null pointer" */
    if (gc_ka_is_pointer(ka) && (relatable(ka) || gc_ka_is_hidden(ka))) {
        relate(a, v, o);
    } else {
        json_object_set_new(o, GC_TK_ALLOCATION, json_null());
        json_object_set_new(o, GC_TK_RELATION, json_null());
    }
    return o;
}

/*
 * Whether the argument's bytes at @p addr (@p size bytes) are missing because the capture
 * withheld them (--redact: a manifest gap with reason REDACTED); otherwise, when they are in the
 * core, they are read into @p out and *ret_read set.
 */
static int arg_redacted(struct gc_image *img, uint64_t addr, uint32_t size, uint8_t *out,
                        int *ret_read)
{
    uint64_t done = 0;
    gpucore_diag_t d;

    *ret_read = 0;
    if (size == 0 || addr > UINT64_MAX - size)
        return 0;
    if (gc_image_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, addr, out, size, &done, &d) ==
        GPUCORE_OK) {
        *ret_read = 1;
        return 0;
    }
    return gc_image_missing_reason(img, addr + done) == GPUCORE_REASON_REDACTED;
}

/* The sentences of @p problems joined by "; " into one, or NULL if none. */
static json_t *joined(const json_t *problems)
{
    char buf[1024];
    size_t len = 0, i;
    json_t *v;

    if (!json_array_size(problems))
        return json_null();
    buf[0] = '\0';
    json_array_foreach(problems, i, v)
    {
        gc_str_appendf(buf, sizeof(buf), &len, "%s%s", i ? "; " : "", json_string_value(v));
    }
    return json_string(buf);
}

/* The value of kernel @p k's hidden_printf_buffer argument in its segment @p seg (@p avail
   bytes in the core), or 0 when it has none or its bytes are not there. */
static uint64_t printf_buffer(const struct gc_ka_kernel *k, const uint8_t *seg, uint64_t avail)
{
    for (uint32_t i = 0; seg && i < k->nargs; i++) {
        const struct gc_ka_arg *ka = &k->args[i];
        uint64_t v = 0;

        if (!ka->value_kind || strcmp(ka->value_kind, "hidden_printf_buffer") != 0 ||
            ka->size != 8 || (uint64_t)ka->offset + 8 > avail)
            continue;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | seg[ka->offset + (uint32_t)b];
        return v;
    }
    return 0;
}

/* The bytes from @p v to the end of the allocation holding it; UINT64_MAX when the core's
   allocation map is not there or has no allocation there (the core's segments bound it). */
static uint64_t alloc_room(const struct gc_tr_args *a, uint64_t v)
{
    uint32_t id;
    const gpucore_alloc_t *al;

    if (!v || !a->allocs || (id = gc_iv_find(&a->alloc_ix, v)) == UINT32_MAX)
        return UINT64_MAX;
    al = &a->allocs->allocs[id];
    return al->size - (v - al->base);
}

void gc_tr_args_json(struct gc_tr_args *a, const struct gc_image_dispatch *dp, json_t *o)
{
    uint64_t printf_address;
    const char *err = NULL;
    const struct gc_ka_metadata *md = co_metadata(a, dp->code_object, &err);
    const struct gc_ka_kernel *k;
    uint8_t *seg = NULL, kd[4];
    uint64_t avail = 0, kd_done = 0;
    gpucore_diag_t d;
    json_t *args, *problems;
    char msg[GPUCORE_DIAG_MESSAGE_SIZE + 256];
    int redacted_seg = 0;

    if (!md)
        goto fail;
    k = gc_ka_find(md, dp->kernel_name);
    if (!k) {
        if (dp->kernel_name[0])
            snprintf(msg, sizeof(msg),
                     "the metadata of code object %" PRIu32 " describes no kernel '%s'",
                     dp->code_object, dp->kernel_name);
        else
            snprintf(msg, sizeof(msg),
                     "no symbol names the kernel descriptor at 0x%" PRIx64
                     ": its arguments cannot be looked up in the metadata",
                     dp->kernel_object);
        err = msg;
        goto fail;
    }
    problems = json_array();
    if (k->kernarg_segment_size && !dp->kernarg_address) {
        snprintf(msg, sizeof(msg),
                 "the dispatch packet has no kernarg address, but kernel '%s' takes %" PRIu32
                 " bytes of arguments",
                 k->name, k->kernarg_segment_size);
        json_array_append_new(problems, json_string(msg));
    } else if (k->kernarg_segment_size) {
        seg = gc_malloc(k->kernarg_segment_size);
        if (seg) {
            gpucore_status_t st =
                    gc_image_read(a->t->img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, dp->kernarg_address,
                                  seg, k->kernarg_segment_size, &avail, &d);
            if (st != GPUCORE_OK &&
                gc_image_missing_reason(a->t->img, dp->kernarg_address + avail) ==
                        GPUCORE_REASON_REDACTED)
                redacted_seg = 1; /* said per argument */
            else if (st != GPUCORE_OK)
                gc_json_appendf(problems,
                              "%" PRIu64 " of the %" PRIu32 " bytes of kernel arguments at "
                              "0x%" PRIx64 " are in the core (%s)",
                              avail, k->kernarg_segment_size, dp->kernarg_address, d.message);
        } else {
            gc_json_appendf(problems, "out of memory for the kernel arguments");
        }
    }
    /* The descriptor's kernarg_size is what the runtime allocated and the capture kept. */
    if (dp->kernel_object && gc_image_read(a->t->img, UINT32_MAX, GC_ASPACE_GLOBAL, 0,
                                           dp->kernel_object + KD_KERNARG_SIZE_OFFSET, kd,
                                           sizeof(kd), &kd_done, &d) == GPUCORE_OK) {
        uint32_t kd_size = (uint32_t)kd[0] | (uint32_t)kd[1] << 8 | (uint32_t)kd[2] << 16 |
                           (uint32_t)kd[3] << 24;

        if (kd_size != k->kernarg_segment_size)
            gc_json_appendf(problems,
                          "the metadata says kernel '%s' takes %" PRIu32
                          " bytes of arguments, its kernel descriptor at 0x%" PRIx64
                          " says %" PRIu32,
                          k->name, k->kernarg_segment_size, dp->kernel_object, kd_size);
    }
    args = json_array();
    for (uint32_t i = 0; i < k->nargs; i++) {
        const struct gc_ka_arg *ka = &k->args[i];
        uint64_t arg_avail = seg ? avail : 0;
        int redacted = 0, got = 0;

        /* A redacted segment has holes: each argument past the first hole is read alone
           (pointers are kept, other values withheld). */
        if (redacted_seg && (uint64_t)ka->offset + ka->size > avail &&
            (uint64_t)ka->offset + ka->size <= k->kernarg_segment_size) {
            redacted = arg_redacted(a->t->img, dp->kernarg_address + ka->offset, ka->size,
                                    seg + ka->offset, &got);
            if (got)
                arg_avail = k->kernarg_segment_size;
        }
        json_array_append_new(args, arg_json(a, ka, i, seg ? seg : kd, arg_avail,
                                             k->kernarg_segment_size, redacted, problems));
    }
    printf_address = printf_buffer(k, seg, avail);
    gc_free(seg);
    json_object_set_new(o, GC_TK_ARGUMENTS, args);
    json_object_set_new(o, GC_TK_ARGUMENTS_ERROR, joined(problems));
    json_decref(problems);
    if (printf_address) {
        const char *printf_error = NULL;
        const struct gc_dp_formats *f =
                co_printf_formats(a, dp->code_object, md, &printf_error);

        gc_tr_printf_json(a->t, f, printf_error, printf_address,
                          alloc_room(a, printf_address), o);
    } else {
        gc_tr_printf_json(a->t, NULL, NULL, 0, 0, o);
    }
    return;
fail:
    json_object_set_new(o, GC_TK_ARGUMENTS, json_null());
    json_object_set_new(o, GC_TK_ARGUMENTS_ERROR,
                        json_string(err && err[0] ? err : "no argument metadata"));
    gc_tr_printf_json(a->t, NULL, NULL, 0, 0, o);
}

/* ---- The fault address, related to the allocation map and the arguments ---------------------- */

/* The null page: addresses below this are a null pointer plus a small offset. */
#define FAULT_NULL_PAGE 4096u
/* The text names the allocations around an address in none only this close (the JSON names
   the nearest whatever the distance): an overrun lands near its buffer; a far neighbour says
   nothing and would make the text depend on where the process's mappings happened to be. */
#define FAULT_NEAR (1ull << 20)
/* An argument "derives" a fault address at most this far past its value. */
#define FAULT_ARG_REACH (64ull << 20)

/* "buffer a (64 KiB VRAM)" of an allocation, into buf. */
static void alloc_words(const gpucore_alloc_t *al, char *buf, size_t size)
{
    char sz[32];

    size_words(al->size, sz, sizeof(sz));
    snprintf(buf, size, "%.*s (%s %s)", LABEL_ARGS(al), sz, kind_words(al));
}

/* The pointer argument of @p dispatch_json whose value the address most plausibly derives
   from: the closest value at or below @p v within FAULT_ARG_REACH. NULL if none. */
static const json_t *deriving_argument(const json_t *dispatch_json, uint64_t v, uint64_t *ret_value)
{
    const json_t *best = NULL, *arg;
    uint64_t best_value = 0;
    size_t i;

    json_array_foreach(json_object_get(dispatch_json, GC_TK_ARGUMENTS), i, arg)
    {
        const char *val = gc_json_get_str(arg, GC_TK_VALUE);
        uint64_t x;

        if (!json_is_object(json_object_get(arg, GC_TK_ALLOCATION)) &&
            !json_is_string(json_object_get(arg, GC_TK_RELATION)))
            continue; /* not a pointer argument */
        if (gc_json_get_bool(arg, GC_TK_HIDDEN))
            continue; /* the runtime's own memory (queue, printf buffer): not what the kernel's
                         code indexes from its arguments */
        if (!val || sscanf(val, "0x%" SCNx64, &x) != 1 || x == 0 || x > v ||
            v - x > FAULT_ARG_REACH)
            continue;
        if (!best || x > best_value) {
            best = arg;
            best_value = x;
        }
    }
    *ret_value = best_value;
    return best;
}

json_t *gc_tr_fault_relation_json(const struct gc_tr_args *a, const struct gc_triage *t,
                                  uint64_t v, const json_t *dispatch_json)
{
    json_t *o = json_object();
    const gpucore_alloc_t *in = NULL, *below = NULL, *above = NULL;
    char text[768], w[256];
    size_t len = 0;
    uint64_t argval = 0;
    const json_t *arg;

    text[0] = '\0';
    if (v < FAULT_NULL_PAGE) {
        gc_str_appendf(text, sizeof(text), &len, "in the null page (a null pointer + 0x%" PRIx64
                       ")", v);
    } else if (!a || !a->allocs) {
        gc_str_appendf(text, sizeof(text), &len, "not related to allocations: %s",
                       a ? a->allocs_error : "out of memory");
    } else {
        for (uint32_t i = 0; i < a->allocs->count; i++) {
            const gpucore_alloc_t *al = &a->allocs->allocs[i];

            if (v >= al->base && v - al->base < al->size)
                in = al;
            else if (al->base + al->size <= v && (!below || al->base + al->size >
                                                                    below->base + below->size))
                below = al;
            else if (al->base > v && (!above || al->base < above->base))
                above = al;
        }
        if (in) {
            alloc_words(in, w, sizeof(w));
            gc_str_appendf(text, sizeof(text), &len, "inside %s at offset 0x%" PRIx64, w,
                           v - in->base);
        } else {
            int host = 0;

            for (uint32_t i = 0; i < gpucore_core_segment_count(t->core) && !host; i++) {
                struct gpucore_segment sg;

                if (gpucore_core_segment(t->core, i, &sg) == GPUCORE_OK && v >= sg.vaddr &&
                    v - sg.vaddr < sg.memsz)
                    host = 1;
            }
            gc_str_appendf(text, sizeof(text), &len, "%s",
                           host ? "in a host (non-GPU) mapping of the process"
                                : "in no allocation");
            if (below && v - (below->base + below->size) <= FAULT_NEAR) {
                alloc_words(below, w, sizeof(w));
                gc_str_appendf(text, sizeof(text), &len, "; 0x%" PRIx64 " bytes past the end of %s",
                               v - (below->base + below->size), w);
            }
            if (above && above->base - v <= FAULT_NEAR) {
                alloc_words(above, w, sizeof(w));
                gc_str_appendf(text, sizeof(text), &len, "; 0x%" PRIx64 " bytes before %s",
                               above->base - v, w);
            }
        }
    }
    arg = v >= FAULT_NULL_PAGE ? deriving_argument(dispatch_json, v, &argval) : NULL;
    if (arg)
        gc_str_appendf(text, sizeof(text), &len, "; argument %s = 0x%" PRIx64 " + 0x%" PRIx64,
                       gc_json_get_str_or(arg, GC_TK_NAME, "?"), argval, v - argval);
    json_object_set_new(o, GC_TK_TEXT, json_string(text));
    json_object_set_new(o, "null_page", json_boolean(v < FAULT_NULL_PAGE));
    json_object_set_new(o, "inside", in ? alloc_ref_json(in, "offset", v - in->base) : json_null());
    json_object_set_new(o, "past_end_of",
                        below ? alloc_ref_json(below, "distance", v - (below->base + below->size))
                              : json_null());
    json_object_set_new(o, "before", above ? alloc_ref_json(above, "distance", above->base - v)
                                           : json_null());
    json_object_set_new(o, "argument",
                        arg ? gc_json_str_or_null(gc_json_get_str(arg, GC_TK_NAME)) : json_null());
    json_object_set_new(o, "argument_offset", arg ? gc_json_uint(v - argval) : json_null());
    return o;
}
