/* SPDX-License-Identifier: MIT */
/*
 * The generic, table-driven field codec: it walks a struct gc_layout (generated from a .def
 * file) and moves each field between its little-endian wire form and its host member. Note
 * codecs add only what is specific to a note: section order, counts, and cross-field rules.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_le.h"
#include "schema_internal.h"

gpucore_status_t gc_fail(gpucore_diag_t *diag, gpucore_status_t status, uint64_t offset,
                         const char *what, uint32_t index, uint64_t base, const char *fmt, ...)
{
    char detail[GPUCORE_DIAG_MESSAGE_SIZE];
    char where[96];
    va_list ap;

    if (!diag)
        return status;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (index == UINT32_MAX)
        snprintf(where, sizeof(where), "%s", what);
    else
        snprintf(where, sizeof(where), "%s %" PRIu32, what, index);
    if (base == GC_NO_OFFSET)
        return gc_diag_set(diag, status, offset, "%s: %s", where, detail);
    return gc_diag_set(diag, status, offset, "%s at offset 0x%" PRIx64 ": %s", where, base, detail);
}

/* The deallocator of schema.h: what the encoders return is plain malloc()ed memory. */
GPUCORE_API void gpucore_free(void *p)
{
    free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Host member access. Alignment holds: host_offset is offsetof a member of exactly this type, */
/* which schema_tables.c proves at compile time.                                              */
/* ------------------------------------------------------------------------------------------ */

static int64_t gc_i64_from_u64(uint64_t v)
{
    /* Two's complement without implementation-defined conversions. */
    return v <= INT64_MAX ? (int64_t)v : -(int64_t)(UINT64_MAX - v) - 1;
}

static int32_t gc_i32_from_u32(uint32_t v)
{
    return v <= INT32_MAX ? (int32_t)v : -(int32_t)(UINT32_MAX - v) - 1;
}

void gc_field_put(void *host, const struct gc_field *f, uint64_t v)
{
    unsigned char *h = (unsigned char *)host + f->host_offset;

    if (f->kind == GC_KIND_SIGNED) {
        if (f->width == 4)
            *(int32_t *)(void *)h = gc_i32_from_u32((uint32_t)v);
        else
            *(int64_t *)(void *)h = gc_i64_from_u64(v);
        return;
    }
    switch (f->width) {
    case 1:
        *h = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)(void *)h = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)(void *)h = (uint32_t)v;
        break;
    default:
        *(uint64_t *)(void *)h = v;
        break;
    }
}

uint64_t gc_field_get(const void *host, const struct gc_field *f)
{
    const unsigned char *h = (const unsigned char *)host + f->host_offset;

    if (f->kind == GC_KIND_SIGNED) {
        /* Conversion of a negative value to unsigned is defined as modulo 2^N. */
        if (f->width == 4)
            return (uint32_t) * (const int32_t *)(const void *)h;
        return (uint64_t) * (const int64_t *)(const void *)h;
    }
    switch (f->width) {
    case 1:
        return *h;
    case 2:
        return *(const uint16_t *)(const void *)h;
    case 4:
        return *(const uint32_t *)(const void *)h;
    default:
        return *(const uint64_t *)(const void *)h;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Decoding                                                                                   */
/* ------------------------------------------------------------------------------------------ */

void gc_reader_scan_newer(struct gc_reader *r, uint64_t from, uint64_t to)
{
    assert(from <= to && to <= r->size);
    for (uint64_t i = from; i < to; i++) {
        if (r->desc[i]) {
            r->newer |= r->newer_flag;
            return;
        }
    }
}

/*
 * Account for a heap item about to be copied. Writers give every reference its own item, so
 * the referenced items never add up to more than the heap; a descriptor whose references do
 * shares items, and sharing would let a small note expand into gigabytes of copies.
 */
static gpucore_status_t gc_reader_charge(struct gc_reader *r, uint64_t n, uint64_t field_off,
                                         const char *what, uint32_t index, uint64_t base)
{
    if (gc_out_of_bounds(r->heap_used, n, r->heap_len))
        return gc_fail(r->diag, GPUCORE_E_LIMIT, field_off, what, index, base,
                       "referenced heap items add up to more than the %" PRIu64
                       "-byte heap (items are shared)",
                       r->heap_len);
    r->heap_used += n;
    return GPUCORE_OK;
}

static void *gc_arena_take(struct gc_reader *r, size_t n)
{
    char *p;

    /* The note codecs size the arena from the heap, and gc_reader_charge keeps copies within
     * it, so running out here is a bug, not an input error. */
    assert(r->arena && r->arena_cap - r->arena_len >= n);
    p = r->arena + r->arena_len;
    r->arena_len += n;
    return p;
}

static gpucore_status_t gc_reader_string(struct gc_reader *r, const struct gc_field *f,
                                         uint64_t base, uint32_t ref, gpucore_str_t *out,
                                         const char *what, uint32_t index)
{
    uint64_t field_off = base + f->offset;
    uint64_t item_off;
    uint32_t len;
    size_t bad;
    char *copy;

    if (ref == GPUCORE_REF_NONE) {
        out->ptr = "";
        out->len = 0;
        return GPUCORE_OK;
    }
    if (gc_out_of_bounds(ref, 4, r->heap_len))
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, field_off, what, index, base,
                       "%s: string reference 0x%" PRIx32 " is outside the %" PRIu64
                       "-byte heap at 0x%" PRIx64,
                       f->name, ref, r->heap_len, r->heap_off);
    item_off = r->heap_off + ref;
    len = gc_le32_get(r->desc + item_off);
    if (gc_out_of_bounds((uint64_t)ref + 4, len, r->heap_len))
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, item_off, what, index, base,
                       "%s: string length %" PRIu32 " at 0x%" PRIx64
                       " runs past the end of the heap (%" PRIu64 " bytes left)",
                       f->name, len, item_off, r->heap_len - ref - 4);
    if (len > GC_NOTE_MAX_STRING)
        return gc_fail(r->diag, GPUCORE_E_LIMIT, item_off, what, index, base,
                       "%s: string length %" PRIu32 " exceeds the %u-byte limit", f->name, len,
                       GC_NOTE_MAX_STRING);
    GC_TRY(gc_reader_charge(r, (uint64_t)len + 4, field_off, what, index, base));
    if (!gc_utf8_valid(r->desc + item_off + 4, len, &bad))
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, item_off + 4 + bad, what, index, base,
                       "%s: invalid UTF-8 at byte %zu of the string at 0x%" PRIx64, f->name, bad,
                       item_off);
    copy = gc_arena_take(r, (size_t)len + 1);
    memcpy(copy, r->desc + item_off + 4, len);
    copy[len] = '\0';
    out->ptr = copy;
    out->len = len;
    return GPUCORE_OK;
}

gpucore_status_t gc_reader_blob(struct gc_reader *r, const struct gc_blob_ref *ref,
                                const uint8_t **ret_bytes, const char *what, uint32_t index)
{
    uint64_t base = ref->record_off;
    void *copy;

    if (gc_out_of_bounds(ref->offset, ref->size, r->heap_len))
        return gc_fail(r->diag, GPUCORE_E_CORRUPT, ref->field_off, what, index, base,
                       "blob of %" PRIu64 " bytes at heap offset 0x%" PRIx64
                       " is outside the %" PRIu64 "-byte heap",
                       ref->size, ref->offset, r->heap_len);
    GC_TRY(gc_reader_charge(r, ref->size, ref->field_off, what, index, base));
    copy = gc_arena_take(r, (size_t)ref->size);
    if (ref->size)
        memcpy(copy, r->desc + r->heap_off + ref->offset, (size_t)ref->size);
    *ret_bytes = copy;
    return GPUCORE_OK;
}

const struct gc_field *gc_layout_field(const struct gc_layout *L, uint32_t offset)
{
    for (size_t i = 0; i < L->nfields; i++)
        if (L->fields[i].offset == offset)
            return &L->fields[i];
    assert(0 && "no field at this offset");
    return NULL;
}

gpucore_status_t gc_layout_decode(struct gc_reader *r, const struct gc_layout *L, uint64_t base,
                                  uint64_t stored, void *host, const char *what, uint32_t index,
                                  struct gc_blob_ref *ret_blob)
{
    assert(stored >= L->min_size && !gc_out_of_bounds(base, stored, r->size));
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];
        uint64_t v;

        /* ROCdbgapi's rule, which GPUCORE notes share: decode min(stored, known) bytes. A
           string an older record lacks reads as absent does: "", never NULL. */
        if (f->offset + f->width > stored) {
            if (f->kind == GC_KIND_STRING)
                *(gpucore_str_t *)(void *)((char *)host + f->host_offset) =
                        (gpucore_str_t){ "", 0 };
            continue;
        }
        v = gc_le_get(r->desc + base + f->offset, f->width);
        switch (f->kind) {
        case GC_KIND_UNSIGNED:
        case GC_KIND_SIGNED:
            gc_field_put(host, f, v);
            break;
        case GC_KIND_BLOB_SIZE:
            gc_field_put(host, f, v);
            assert(ret_blob);
            ret_blob->size = v;
            break;
        case GC_KIND_BLOB_OFFSET:
            assert(ret_blob);
            ret_blob->present = 1;
            ret_blob->offset = v;
            ret_blob->field_off = base + f->offset;
            ret_blob->record_off = base;
            break;
        case GC_KIND_STRING:
            GC_TRY(gc_reader_string(r, f, base, (uint32_t)v,
                                    (gpucore_str_t *)(void *)((char *)host + f->host_offset), what,
                                    index));
            break;
        case GC_KIND_RESERVED:
            /* Reserved now, meaningful to some later minor: note it, never refuse it. */
            if (v)
                r->newer |= r->newer_flag;
            break;
        }
    }
    if (stored > L->known_size)
        gc_reader_scan_newer(r, base + L->known_size, base + stored);
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Encoding                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Refuse a heap item of n bytes (padded to 4) that would take the descriptor past 4 GiB. */
static gpucore_status_t gc_writer_room(struct gc_writer *w, uint64_t n, const char *what,
                                       uint32_t index, const char *field)
{
    uint64_t padded = n + (4 - n % 4) % 4;

    if (gc_out_of_bounds(w->fixed_len + w->heap.len, padded, GC_NOTE_MAX_DESC))
        return gc_fail(w->diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "%s: %" PRIu64 " more bytes would take the descriptor past 4 GiB", field,
                       padded);
    return GPUCORE_OK;
}

/* The heap buffer's sticky allocation error, turned into a diagnostic. */
static gpucore_status_t gc_writer_status(struct gc_writer *w, const char *what, uint32_t index,
                                         const char *field)
{
    if (!gc_buf_status(&w->heap))
        return GPUCORE_OK;
    return gc_fail(w->diag, gc_buf_status(&w->heap), GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                   "%s: out of memory growing the heap to %zu bytes", field, w->heap.len);
}

static gpucore_status_t gc_writer_string(struct gc_writer *w, const struct gc_field *f,
                                         const gpucore_str_t *s, uint32_t *ret_ref,
                                         const char *what, uint32_t index)
{
    size_t bad;

    if (!s->ptr && s->len)
        return gc_fail(w->diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "%s: NULL string with length %" PRIu32, f->name, s->len);
    /* Absent and empty decode alike, so one encoding for both keeps output canonical. */
    if (!s->ptr || !s->len) {
        *ret_ref = GPUCORE_REF_NONE;
        return GPUCORE_OK;
    }
    if (s->len > GC_NOTE_MAX_STRING)
        return gc_fail(w->diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "%s: string of %" PRIu32 " bytes exceeds the %u-byte limit", f->name, s->len,
                       GC_NOTE_MAX_STRING);
    if (!gc_utf8_valid((const uint8_t *)s->ptr, s->len, &bad))
        return gc_fail(w->diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                       "%s: invalid UTF-8 at byte %zu", f->name, bad);
    GC_TRY(gc_writer_room(w, (uint64_t)s->len + 4, what, index, f->name));
    /* Bounded by GC_NOTE_MAX_DESC, so the offset fits and is never GPUCORE_REF_NONE. */
    *ret_ref = (uint32_t)w->heap.len;
    gc_buf_put32(&w->heap, s->len);
    gc_buf_append(&w->heap, s->ptr, s->len);
    gc_buf_pad(&w->heap, 4);
    return gc_writer_status(w, what, index, f->name);
}

static gpucore_status_t gc_writer_blob(struct gc_writer *w, const struct gc_layout *L,
                                       const struct gc_field *f, const void *host,
                                       uint64_t *ret_off, const char *what, uint32_t index)
{
    const uint8_t *bytes =
            *(const uint8_t *const *)(const void *)((const char *)host + f->host_offset);
    uint64_t size = 0;

    for (size_t i = 0; i < L->nfields; i++)
        if (L->fields[i].kind == GC_KIND_BLOB_SIZE)
            size = gc_field_get(host, &L->fields[i]);
    if (!bytes) {
        if (size)
            return gc_fail(w->diag, GPUCORE_E_INVAL, GC_NO_OFFSET, what, index, GC_NO_OFFSET,
                           "%s: NULL bytes with size %" PRIu64, f->name, size);
        *ret_off = 0;
        return GPUCORE_OK;
    }
    GC_TRY(gc_writer_room(w, size, what, index, f->name));
    *ret_off = w->heap.len;
    gc_buf_append(&w->heap, bytes, (size_t)size);
    gc_buf_pad(&w->heap, 4);
    return gc_writer_status(w, what, index, f->name);
}

gpucore_status_t gc_layout_encode(struct gc_writer *w, const struct gc_layout *L, uint8_t *rec,
                                  uint64_t stored, const void *host, const char *what,
                                  uint32_t index)
{
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];
        uint64_t v = 0;
        uint32_t ref = GPUCORE_REF_NONE;

        if (f->offset + f->width > stored)
            continue;
        switch (f->kind) {
        case GC_KIND_UNSIGNED:
        case GC_KIND_SIGNED:
        case GC_KIND_BLOB_SIZE:
            v = gc_field_get(host, f);
            break;
        case GC_KIND_STRING:
            assert(w);
            GC_TRY(gc_writer_string(
                    w, f,
                    (const gpucore_str_t *)(const void *)((const char *)host + f->host_offset),
                    &ref, what, index));
            v = ref;
            break;
        case GC_KIND_BLOB_OFFSET:
            assert(w);
            GC_TRY(gc_writer_blob(w, L, f, host, &v, what, index));
            break;
        case GC_KIND_RESERVED:
            break;
        }
        gc_le_put(rec + f->offset, f->width, v);
    }
    return GPUCORE_OK;
}
