/* SPDX-License-Identifier: MIT */
/* The documents' JSON helpers (gc_json.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gc_json.h"

json_t *gc_json_hex(uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    return json_string(buf);
}

json_t *gc_json_uint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *gc_json_index(uint32_t v)
{
    return v == UINT32_MAX ? json_null() : gc_json_uint(v);
}

json_t *gc_json_str_or_null(const char *s)
{
    json_t *j;

    if (!s || !*s)
        return json_null();
    j = json_string(s);
    return j ? j : json_string("<invalid UTF-8>");
}

json_t *gc_json_strn(const char *p, size_t n)
{
    json_t *s = json_stringn(p, n);

    return s ? s : json_string("<invalid UTF-8>");
}

json_t *gc_json_hex_bytes(const void *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    const uint8_t *b = p;
    char *s;
    json_t *j;

    if (n > (SIZE_MAX - 1) / 2 || !(s = malloc(2 * n + 1)))
        return json_null();
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = digits[b[i] >> 4];
        s[2 * i + 1] = digits[b[i] & 15];
    }
    s[2 * n] = '\0';
    j = json_stringn(s, 2 * n);
    free(s);
    return j;
}

void gc_json_appendf(json_t *arr, const char *fmt, ...)
{
    char buf[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(arr, json_string(buf));
}

uint64_t gc_json_get_u64(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (json_is_integer(v))
        return (uint64_t)json_integer_value(v);
    if (json_is_string(v))
        return strtoull(json_string_value(v), NULL, 0);
    return 0;
}

const char *gc_json_get_str(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *gc_json_get_str_or(const json_t *obj, const char *key, const char *dflt)
{
    const char *s = gc_json_get_str(obj, key);

    return s ? s : dflt;
}

int gc_json_get_bool(const json_t *obj, const char *key)
{
    return json_is_true(json_object_get(obj, key));
}

int64_t gc_json_index_value(const json_t *v)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}
