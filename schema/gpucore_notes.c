/* SPDX-License-Identifier: MIT */
/*
 * gpucore extension notes (owner "GPUCORE"): the common self-describing header, records of a
 * stored size, and a heap of strings and blobs. One generic codec driven by a row per note
 * type; field positions live in gpucore_notes.def.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "gc_le.h"
#include "schema_internal.h"

#define GC_HEADER_WHAT "GPUCORE note header"

/* ------------------------------------------------------------------------------------------ */
/* Common header                                                                              */
/* ------------------------------------------------------------------------------------------ */

gpucore_status_t gc_note_header_decode(const uint8_t *desc, size_t size,
                                       gpucore_note_header_t *ret_header, gpucore_diag_t *diag)
{
    const struct gc_layout *L = &gc_layout_note_header;
    struct gc_reader r = { .desc = desc, .size = size, .diag = diag };
    gpucore_note_header_t h = { 0 };
    gpucore_status_t st;

    /* Look at major first: another major may have another header. */
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];

        if (gc_out_of_bounds(f->offset, f->width, size))
            return gc_fail(
                    diag, GPUCORE_E_TRUNCATED, f->offset, GC_HEADER_WHAT, UINT32_MAX, f->offset,
                    "descriptor of %zu bytes ends inside %s (bytes %" PRIu32 "..%" PRIu32 ")", size,
                    f->name, f->offset, f->offset + f->width - 1);
        if (f->offset == GC_OFF_note_header_major && gc_le32_get(desc) != GPUCORE_NOTE_MAJOR)
            return gc_fail(diag, GPUCORE_E_VERSION, f->offset, GC_HEADER_WHAT, UINT32_MAX,
                           f->offset, "major %" PRIu32 " is not %u", gc_le32_get(desc),
                           GPUCORE_NOTE_MAJOR);
    }
    st = gc_layout_decode(&r, L, 0, L->known_size, &h, GC_HEADER_WHAT, UINT32_MAX, NULL);
    assert(st == GPUCORE_OK);
    (void)st;

    if (h.incompat & ~GC_NOTE_INCOMPAT_KNOWN)
        return gc_fail(diag, GPUCORE_E_VERSION, GC_OFF_note_header_incompat, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_incompat,
                       "incompat has unknown feature bits 0x%" PRIx32,
                       h.incompat & ~GC_NOTE_INCOMPAT_KNOWN);
    if (h.header_size < L->known_size || h.header_size % 4)
        return gc_fail(diag, GPUCORE_E_CORRUPT, GC_OFF_note_header_header_size, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_header_size,
                       "header_size %" PRIu32 " is not a multiple of 4 of at least %" PRIu32,
                       h.header_size, L->known_size);
    if (h.header_size > size)
        return gc_fail(diag, GPUCORE_E_TRUNCATED, GC_OFF_note_header_header_size, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_header_size,
                       "header_size %" PRIu32 " runs past the %zu-byte descriptor", h.header_size,
                       size);
    if (h.record_size % 4)
        return gc_fail(diag, GPUCORE_E_CORRUPT, GC_OFF_note_header_record_size, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_record_size,
                       "record_size %" PRIu32 " is not a multiple of 4", h.record_size);
    /* Division, not multiplication: record_count * record_size is never formed unchecked. */
    if (h.record_size && h.record_count > (size - h.header_size) / h.record_size) {
        uint64_t k = (size - h.header_size) / h.record_size;
        uint64_t at = h.header_size + k * h.record_size;

        return gc_fail(diag, GPUCORE_E_TRUNCATED, at, "record", (uint32_t)k, at,
                       "record_count %" PRIu32 " x record_size %" PRIu32
                       " does not fit in the %zu bytes after the header",
                       h.record_count, h.record_size, size - h.header_size);
    }
    *ret_header = h;
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_note_header_decode(const void *desc, size_t size,
                                                        gpucore_note_header_t *ret_header,
                                                        gpucore_diag_t *reterr_diag)
{
    if (!desc || !ret_header)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "gpucore_note_header_decode: NULL %s", desc ? "ret_header" : "desc");
    return gc_note_header_decode(desc, size, ret_header, reterr_diag);
}

/* ------------------------------------------------------------------------------------------ */
/* Note types                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/*
 * One row per note type. A "single" note has exactly one record, decoded into the top object
 * itself; the others have a top object holding a count and an array of host records.
 */
struct gc_note_type {
    const char *name;                    /* "MANIFEST" */
    const char *what;                    /* "MANIFEST record", for diagnostics */
    const struct gc_layout *header_tail; /* fields after the 28-byte header, or NULL */
    const struct gc_layout *record;
    size_t top_size;
    size_t entry_size; /* host record size; 0 for single notes */
    size_t entry_align;
    int single;
    uint32_t (*count)(const void *top);
    const void *(*entries)(const void *top);
    void (*finish)(void *top, void *entries, uint32_t count, uint32_t decoded_flags);
    /* Cross-field rules of a decoded record; blob holds its raw blob reference. */
    gpucore_status_t (*decode_rules)(struct gc_reader *r, void *rec, const struct gc_blob_ref *blob,
                                     uint64_t base, uint32_t index, const char *what);
    /* The same rules before encoding a record. */
    gpucore_status_t (*encode_rules)(const void *rec, uint32_t index, const char *what,
                                     gpucore_diag_t *diag);
};

/*
 * Flag fields and the bit group that defines them. Unknown bits come from a newer writer:
 * readers may ignore them, so they only mark the note "newer".
 */
static const struct gc_flag_rule {
    const struct gc_layout *layout;
    uint32_t field_off;
    enum gc_enum_group bits;
} gc_flag_rules[] = {
    { &gc_layout_capture_meta, GC_OFF_capture_meta_flags, GC_ENUM_meta_flags },
    { &gc_layout_manifest_header, GC_OFF_manifest_header_flags, GC_ENUM_manifest_flags },
    { &gc_layout_code_object, GC_OFF_code_object_flags, GC_ENUM_code_object_flags },
    { &gc_layout_alloc, GC_OFF_alloc_flags, GC_ENUM_alloc_flags },
};

/* The flag field of a layout and the bits format 1.0 defines for it; field NULL: none. */
struct gc_flag_check {
    const struct gc_field *field;
    uint64_t known;
};

/* Resolved once per note, because the rule and value tables are walked linearly. */
static struct gc_flag_check gc_flag_check_for(const struct gc_layout *L)
{
    struct gc_flag_check c = { NULL, 0 };

    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_flag_rules); i++) {
        if (gc_flag_rules[i].layout == L) {
            c.field = gc_layout_field(L, gc_flag_rules[i].field_off);
            c.known = gc_enum_known_bits(gc_flag_rules[i].bits);
        }
    }
    return c;
}

static void gc_apply_flag_check(struct gc_reader *r, const struct gc_flag_check *c,
                                const void *host)
{
    if (c->field && (gc_field_get(host, c->field) & ~c->known))
        r->newer |= r->newer_flag;
}

/* --- code objects: the blob's meaning depends on the flags --------------------------------- */

static gpucore_status_t gc_code_object_decode_rules(struct gc_reader *r, void *rec,
                                                    const struct gc_blob_ref *blob, uint64_t base,
                                                    uint32_t index, const char *what)
{
    gpucore_code_object_t *obj = rec;
    int embedded = !!(obj->flags & GPUCORE_CODE_OBJECT_EMBEDDED);
    int truncated = !!(obj->flags & GPUCORE_CODE_OBJECT_TRUNCATED);

    if (embedded && truncated)
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, base + GC_OFF_code_object_flags, what, index,
                       base, "flags 0x%" PRIx32 " claim both EMBEDDED and TRUNCATED", obj->flags);
    if (!embedded && !truncated) {
        if (blob->offset || blob->size)
            return gc_fail(r->diag, GPUCORE_E_CORRUPT, blob->field_off, what, index, base,
                           "blob_offset 0x%" PRIx64 " / blob_size %" PRIu64
                           " must be 0 without EMBEDDED or TRUNCATED",
                           blob->offset, blob->size);
        return GPUCORE_OK;
    }
    if (embedded && blob->size != obj->size)
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, base + GC_OFF_code_object_blob_size, what, index,
                       base, "EMBEDDED blob_size %" PRIu64 " differs from size %" PRIu64,
                       blob->size, obj->size);
    if (truncated && blob->size >= obj->size)
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, base + GC_OFF_code_object_blob_size, what, index,
                       base, "TRUNCATED blob_size %" PRIu64 " is not below size %" PRIu64,
                       blob->size, obj->size);
    return gc_reader_blob(r, blob, &obj->bytes, what, index);
}

static gpucore_status_t gc_code_object_encode_rules(const void *rec, uint32_t index,
                                                    const char *what, gpucore_diag_t *diag)
{
    const gpucore_code_object_t *obj = rec;
    int embedded = !!(obj->flags & GPUCORE_CODE_OBJECT_EMBEDDED);
    int truncated = !!(obj->flags & GPUCORE_CODE_OBJECT_TRUNCATED);

    if (embedded && truncated)
        return gc_fail(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "flags 0x%" PRIx32 " claim both EMBEDDED and TRUNCATED", obj->flags);
    if (embedded && obj->bytes_size != obj->size)
        return gc_fail(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "EMBEDDED with bytes_size %" PRIu64 " but size %" PRIu64, obj->bytes_size,
                       obj->size);
    if (truncated && obj->bytes_size >= obj->size)
        return gc_fail(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "TRUNCATED with bytes_size %" PRIu64 " not below size %" PRIu64,
                       obj->bytes_size, obj->size);
    if (!embedded && !truncated && (obj->bytes || obj->bytes_size))
        return gc_fail(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "bytes given without EMBEDDED or TRUNCATED");
    return GPUCORE_OK;
}

/* --- accessors ----------------------------------------------------------------------------- */

static uint32_t gc_one(const void *top)
{
    (void)top;
    return 1;
}

static const void *gc_self(const void *top)
{
    return top;
}

static void gc_meta_finish(void *top, void *entries, uint32_t count, uint32_t decoded_flags)
{
    (void)entries;
    (void)count;
    ((gpucore_capture_meta_t *)top)->decoded_flags = decoded_flags;
}

#define GC_ARRAY_ACCESSORS(prefix, T, count_m, array_m)                                           \
    static uint32_t prefix##_count(const void *top)                                               \
    {                                                                                             \
        return ((const T *)top)->count_m;                                                         \
    }                                                                                             \
    static const void *prefix##_entries(const void *top)                                          \
    {                                                                                             \
        return ((const T *)top)->array_m;                                                         \
    }                                                                                             \
    static void prefix##_finish(void *top, void *entries, uint32_t count, uint32_t decoded_flags) \
    {                                                                                             \
        T *t = top;                                                                               \
        t->array_m = entries;                                                                     \
        t->count_m = count;                                                                       \
        t->decoded_flags = decoded_flags;                                                         \
    }

GC_ARRAY_ACCESSORS(gc_manifest, gpucore_manifest_t, count, entries)
GC_ARRAY_ACCESSORS(gc_code_objects, gpucore_code_objects_t, count, objects)
GC_ARRAY_ACCESSORS(gc_alloc_map, gpucore_alloc_map_t, count, allocs)

static const struct gc_note_type gc_type_capture_meta = {
    .name = "CAPTURE_META",
    .what = "CAPTURE_META record",
    .record = &gc_layout_capture_meta,
    .top_size = sizeof(gpucore_capture_meta_t),
    .entry_align = 1,
    .single = 1,
    .count = gc_one,
    .entries = gc_self,
    .finish = gc_meta_finish,
};

static const struct gc_note_type gc_type_manifest = {
    .name = "MANIFEST",
    .what = "MANIFEST record",
    .header_tail = &gc_layout_manifest_header,
    .record = &gc_layout_manifest_entry,
    .top_size = sizeof(gpucore_manifest_t),
    .entry_size = sizeof(gpucore_manifest_entry_t),
    .entry_align = _Alignof(gpucore_manifest_entry_t),
    .count = gc_manifest_count,
    .entries = gc_manifest_entries,
    .finish = gc_manifest_finish,
};

static const struct gc_note_type gc_type_code_objects = {
    .name = "CODE_OBJECTS",
    .what = "CODE_OBJECTS record",
    .record = &gc_layout_code_object,
    .top_size = sizeof(gpucore_code_objects_t),
    .entry_size = sizeof(gpucore_code_object_t),
    .entry_align = _Alignof(gpucore_code_object_t),
    .count = gc_code_objects_count,
    .entries = gc_code_objects_entries,
    .finish = gc_code_objects_finish,
    .decode_rules = gc_code_object_decode_rules,
    .encode_rules = gc_code_object_encode_rules,
};

static const struct gc_note_type gc_type_alloc_map = {
    .name = "ALLOC_MAP",
    .what = "ALLOC_MAP record",
    .record = &gc_layout_alloc,
    .top_size = sizeof(gpucore_alloc_map_t),
    .entry_size = sizeof(gpucore_alloc_t),
    .entry_align = _Alignof(gpucore_alloc_t),
    .count = gc_alloc_map_count,
    .entries = gc_alloc_map_entries,
    .finish = gc_alloc_map_finish,
};

/* ------------------------------------------------------------------------------------------ */
/* Generic decode and encode                                                                  */
/* ------------------------------------------------------------------------------------------ */

static uint64_t gc_align_up64(uint64_t n, uint64_t a)
{
    return (n + a - 1) / a * a;
}

static gpucore_status_t gc_note_decode(const struct gc_note_type *t, const void *desc, size_t size,
                                       void **ret, gpucore_diag_t *diag)
{
    struct gc_reader r = { 0 };
    struct gc_flag_check rc;
    gpucore_note_header_t h;
    uint64_t entries_at, arena_at, arena_cap, total;
    uint32_t known_header =
            t->header_tail ? t->header_tail->known_size : gc_layout_note_header.known_size;
    char *block;
    void *top;
    gpucore_status_t st;

    if (!desc || !ret)
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "%s decode: NULL %s", t->name,
                           desc ? "result pointer" : "desc");
    GC_TRY(gc_note_header_decode(desc, size, &h, diag));
    if (h.record_count > GC_NOTE_MAX_RECORDS)
        return gc_fail(diag, GPUCORE_E_LIMIT, GC_OFF_note_header_record_count, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_record_count,
                       "record_count %" PRIu32 " exceeds the limit of %u", h.record_count,
                       GC_NOTE_MAX_RECORDS);
    if (h.record_size < t->record->min_size)
        return gc_fail(diag, GPUCORE_E_CORRUPT, GC_OFF_note_header_record_size, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_record_size,
                       "record_size %" PRIu32 " is below the %" PRIu32 "-byte %s of format 1.0",
                       h.record_size, t->record->min_size, t->record->title);
    if (t->single && h.record_count != 1)
        return gc_fail(diag, GPUCORE_E_CORRUPT, GC_OFF_note_header_record_count, GC_HEADER_WHAT,
                       UINT32_MAX, GC_OFF_note_header_record_count,
                       "record_count %" PRIu32 " is not 1: a %s note has exactly one record",
                       h.record_count, t->name);

    r.desc = desc;
    r.size = size;
    r.heap_off = h.header_size + (uint64_t)h.record_count * h.record_size;
    r.heap_len = size - r.heap_off;
    r.newer_flag = GPUCORE_NOTE_DECODED_NEWER;
    r.diag = diag;

    /*
     * One block: top object, host records, then string and blob copies. gc_reader_charge keeps
     * the referenced items within the heap, and each copy is no larger than its item (a string
     * of n bytes is charged 4 + n and copied as n + 1), so copies fit in heap_len bytes and the
     * block stays proportional to the descriptor whatever the input claims.
     */
    entries_at = gc_align_up64(t->top_size, t->single ? 1 : t->entry_align);
    arena_at = entries_at + (uint64_t)h.record_count * t->entry_size;
    arena_cap = r.heap_len;
    total = arena_at + arena_cap;
    /* The documented bound; the layouts keep to it (a host record <= 1.5 x its 1.0 size). */
    if (total > GPUCORE_NOTE_DECODED_MAX(size))
        return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                           "a %s note of %zu bytes would decode to %" PRIu64
                           " bytes, above GPUCORE_NOTE_DECODED_MAX",
                           t->name, size, total);
    if (total > SIZE_MAX || !(block = calloc(1, (size_t)total)))
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "cannot allocate %" PRIu64 " bytes for a %s note", total, t->name);
    top = block;
    r.arena = block + arena_at;
    r.arena_cap = (size_t)arena_cap;

    if (t->header_tail) {
        struct gc_flag_check hc = gc_flag_check_for(t->header_tail);

        st = gc_layout_decode(&r, t->header_tail, 0, h.header_size, top, GC_HEADER_WHAT, UINT32_MAX,
                              NULL);
        if (st < 0)
            goto fail;
        gc_apply_flag_check(&r, &hc, top);
    } else {
        gc_reader_scan_newer(&r, known_header, h.header_size);
    }
    if (h.minor > GC_NOTE_MINOR || (h.compat & ~GC_NOTE_COMPAT_KNOWN))
        r.newer |= r.newer_flag;

    rc = gc_flag_check_for(t->record);

    for (uint32_t i = 0; i < h.record_count; i++) {
        uint64_t base = h.header_size + (uint64_t)i * h.record_size;
        void *rec = t->single ? top : block + entries_at + i * t->entry_size;
        struct gc_blob_ref blob = { 0 };

        st = gc_layout_decode(&r, t->record, base, h.record_size, rec, t->what, i, &blob);
        if (st < 0)
            goto fail;
        gc_apply_flag_check(&r, &rc, rec);
        if (t->decode_rules && (st = t->decode_rules(&r, rec, &blob, base, i, t->what)) < 0)
            goto fail;
    }
    t->finish(top, t->single ? NULL : block + entries_at, h.record_count, r.newer);
    *ret = top;
    return GPUCORE_OK;

fail:
    free(block);
    return st;
}

static gpucore_status_t gc_note_encode(const struct gc_note_type *t, const void *top,
                                       void **ret_desc, size_t *ret_size, gpucore_diag_t *diag)
{
    struct gc_writer w;
    struct gc_buf out;
    gpucore_note_header_t h = { 0 };
    const char *entries;
    uint64_t fixed;
    uint8_t *p;
    gpucore_status_t st;

    if (!top || !ret_desc || !ret_size)
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "%s encode: NULL argument",
                           t->name);
    h.major = GPUCORE_NOTE_MAJOR;
    h.minor = GC_NOTE_MINOR;
    h.header_size = t->header_tail ? t->header_tail->known_size : gc_layout_note_header.known_size;
    h.record_size = t->record->known_size;
    h.record_count = t->count(top);
    entries = t->entries(top);
    if (h.record_count && !entries)
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "%s encode: NULL array with count %" PRIu32, t->name, h.record_count);
    if (h.record_count > GC_NOTE_MAX_RECORDS)
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "%s encode: count %" PRIu32 " exceeds the limit of %u", t->name,
                           h.record_count, GC_NOTE_MAX_RECORDS);
    fixed = h.header_size + (uint64_t)h.record_count * h.record_size;
    if (fixed > GC_NOTE_MAX_DESC)
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "%s encode: %" PRIu64 " bytes of records exceed 4 GiB", t->name, fixed);

    gc_buf_init(&out);
    gc_buf_init(&w.heap);
    w.fixed_len = fixed;
    w.diag = diag;
    p = gc_buf_grow(&out, (size_t)fixed);
    if (!p) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                         "cannot allocate %" PRIu64 " bytes for a %s note", fixed, t->name);
        goto fail;
    }
    st = gc_layout_encode(&w, &gc_layout_note_header, p, h.header_size, &h, GC_HEADER_WHAT,
                          UINT32_MAX);
    if (st >= 0 && t->header_tail)
        st = gc_layout_encode(&w, t->header_tail, p, h.header_size, top, GC_HEADER_WHAT,
                              UINT32_MAX);
    for (uint32_t i = 0; i < h.record_count && st >= 0; i++) {
        const void *rec = t->single ? top : entries + i * t->entry_size;

        if (t->encode_rules)
            st = t->encode_rules(rec, i, t->what, diag);
        if (st >= 0)
            st = gc_layout_encode(&w, t->record, p + h.header_size + (uint64_t)i * h.record_size,
                                  h.record_size, rec, t->what, i);
    }
    if (st < 0)
        goto fail;
    gc_buf_append(&out, w.heap.data, w.heap.len);
    if (gc_buf_status(&out) || gc_buf_status(&w.heap)) {
        st = gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory encoding a %s note",
                         t->name);
        goto fail;
    }
    gc_buf_done(&w.heap);
    *ret_desc = gc_buf_steal(&out, ret_size);
    return GPUCORE_OK;

fail:
    gc_buf_done(&w.heap);
    gc_buf_done(&out);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Public entry points                                                                        */
/* ------------------------------------------------------------------------------------------ */

GPUCORE_API gpucore_status_t gpucore_capture_meta_encode(const gpucore_capture_meta_t *meta,
                                                         void **ret_desc, size_t *ret_size,
                                                         gpucore_diag_t *reterr_diag)
{
    return gc_note_encode(&gc_type_capture_meta, meta, ret_desc, ret_size, reterr_diag);
}

GPUCORE_API gpucore_status_t gpucore_capture_meta_decode(const void *desc, size_t size,
                                                         gpucore_capture_meta_t **ret_meta,
                                                         gpucore_diag_t *reterr_diag)
{
    void *p;

    GC_TRY(gc_note_decode(&gc_type_capture_meta, desc, size, ret_meta ? &p : NULL, reterr_diag));
    *ret_meta = p;
    return GPUCORE_OK;
}

GPUCORE_API void gpucore_capture_meta_free(gpucore_capture_meta_t *meta)
{
    free(meta);
}

GPUCORE_API gpucore_status_t gpucore_manifest_encode(const gpucore_manifest_t *manifest,
                                                     void **ret_desc, size_t *ret_size,
                                                     gpucore_diag_t *reterr_diag)
{
    return gc_note_encode(&gc_type_manifest, manifest, ret_desc, ret_size, reterr_diag);
}

GPUCORE_API gpucore_status_t gpucore_manifest_decode(const void *desc, size_t size,
                                                     gpucore_manifest_t **ret_manifest,
                                                     gpucore_diag_t *reterr_diag)
{
    void *p;

    GC_TRY(gc_note_decode(&gc_type_manifest, desc, size, ret_manifest ? &p : NULL, reterr_diag));
    *ret_manifest = p;
    return GPUCORE_OK;
}

GPUCORE_API void gpucore_manifest_free(gpucore_manifest_t *manifest)
{
    free(manifest);
}

GPUCORE_API gpucore_status_t gpucore_code_objects_encode(const gpucore_code_objects_t *objects,
                                                         void **ret_desc, size_t *ret_size,
                                                         gpucore_diag_t *reterr_diag)
{
    return gc_note_encode(&gc_type_code_objects, objects, ret_desc, ret_size, reterr_diag);
}

GPUCORE_API gpucore_status_t gpucore_code_objects_decode(const void *desc, size_t size,
                                                         gpucore_code_objects_t **ret_objects,
                                                         gpucore_diag_t *reterr_diag)
{
    void *p;

    GC_TRY(gc_note_decode(&gc_type_code_objects, desc, size, ret_objects ? &p : NULL, reterr_diag));
    *ret_objects = p;
    return GPUCORE_OK;
}

GPUCORE_API void gpucore_code_objects_free(gpucore_code_objects_t *objects)
{
    free(objects);
}

GPUCORE_API gpucore_status_t gpucore_alloc_map_encode(const gpucore_alloc_map_t *map,
                                                      void **ret_desc, size_t *ret_size,
                                                      gpucore_diag_t *reterr_diag)
{
    return gc_note_encode(&gc_type_alloc_map, map, ret_desc, ret_size, reterr_diag);
}

GPUCORE_API gpucore_status_t gpucore_alloc_map_decode(const void *desc, size_t size,
                                                      gpucore_alloc_map_t **ret_map,
                                                      gpucore_diag_t *reterr_diag)
{
    void *p;

    GC_TRY(gc_note_decode(&gc_type_alloc_map, desc, size, ret_map ? &p : NULL, reterr_diag));
    *ret_map = p;
    return GPUCORE_OK;
}

GPUCORE_API void gpucore_alloc_map_free(gpucore_alloc_map_t *map)
{
    free(map);
}
