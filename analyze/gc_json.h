/* SPDX-License-Identifier: MIT */
/*
 * The one set of JSON helpers of gpucore's documents (`gpucore info`, `gpucore analyze`,
 * `gpucore dbgapi-dump`, the capture summary): how a value is written and how a renderer reads
 * it back. The conventions every document follows:
 *
 *   - addresses, masks and exception words are strings "0x..." (they may not fit a signed
 *     64-bit JSON integer): gc_json_hex();
 *   - counts and sizes are integers, clamped to INT64_MAX: gc_json_uint();
 *   - an index that may be unknown (UINT32_MAX) is an integer or null: gc_json_index();
 *   - absent data is null.
 *
 * Builders return a new reference (json_decref() it, or hand it to json_object_set_new()), or
 * NULL when jansson cannot allocate; a NULL given to json_object_set_new() leaves the member
 * out, as jansson does. Readers borrow from the document and never fail: a member that is
 * missing or of another type reads as the default. Nothing here prints.
 */
#ifndef GC_ANALYZE_GC_JSON_H
#define GC_ANALYZE_GC_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gc_util.h"

/* ---- Writing ------------------------------------------------------------------------------- */

json_t *gc_json_hex(uint64_t v);            /* "0x..." (lower case, no padding) */
json_t *gc_json_uint(uint64_t v);           /* integer, clamped to INT64_MAX */
json_t *gc_json_index(uint32_t v);          /* integer, or null for UINT32_MAX (unknown) */
json_t *gc_json_str_or_null(const char *s); /* string, or null for NULL or "";
                                               "<invalid UTF-8>" for a string that is not */
/* The @p n bytes at @p p as a string ("" for n == 0): a string from a core's note, which the
   decoder validated as UTF-8; "<invalid UTF-8>" if it is not after all. */
json_t *gc_json_strn(const char *p, size_t n);
/* The @p n bytes at @p p as lower-case hex, two digits a byte; JSON null if out of memory. */
json_t *gc_json_hex_bytes(const void *p, size_t n);
/* Append a formatted string (at most 767 bytes, longer is cut) to the array @p arr. */
void gc_json_appendf(json_t *arr, const char *fmt, ...) GC_PRINTF(2, 3);

/* ---- Reading ------------------------------------------------------------------------------- */

uint64_t gc_json_get_u64(const json_t *obj, const char *key);    /* integer or "0x..."; 0 */
const char *gc_json_get_str(const json_t *obj, const char *key); /* NULL */
const char *gc_json_get_str_or(const json_t *obj, const char *key, const char *dflt);
int gc_json_get_bool(const json_t *obj, const char *key); /* 1 for true, else 0 */
int64_t gc_json_index_value(const json_t *v);             /* an index: -1 for null */

#endif /* GC_ANALYZE_GC_JSON_H */
