/* SPDX-License-Identifier: MIT */
/*
 * The base helpers (gc_util.h): status names and messages (gpucore/status.h), failure detail,
 * overflow-checked allocation, the growable byte buffer and text helpers. Nothing here knows a
 * format; every module may use it.
 */
#include "gc_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_le.h"

static const struct {
    gpucore_status_t status;
    const char *name;
    const char *message;
} status_table[] = {
#define GC_STATUS_ROW_(name, value, msg) { name, #name, msg },
    GPUCORE_STATUS_LIST(GC_STATUS_ROW_)
#undef GC_STATUS_ROW_
};

GPUCORE_API const char *gpucore_strerror(gpucore_status_t status)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(status_table); i++)
        if (status_table[i].status == status)
            return status_table[i].message;
    return "unknown status";
}

GPUCORE_API const char *gpucore_status_name(gpucore_status_t status)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(status_table); i++)
        if (status_table[i].status == status)
            return status_table[i].name;
    return "GPUCORE_E_UNKNOWN";
}

gpucore_status_t gc_diag_vset(gpucore_diag_t *diag, gpucore_status_t status, uint64_t offset,
                              const char *fmt, va_list ap)
{
    if (!diag)
        return status;
    diag->status = status;
    diag->flags = offset == GC_NO_OFFSET ? 0 : GPUCORE_DIAG_HAS_OFFSET;
    diag->offset = offset == GC_NO_OFFSET ? 0 : offset;
    vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
    return status;
}

gpucore_status_t gc_diag_set(gpucore_diag_t *diag, gpucore_status_t status, uint64_t offset,
                             const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gc_diag_vset(diag, status, offset, fmt, ap);
    va_end(ap);
    return status;
}

void gc_diag_prefix(gpucore_diag_t *diag, const char *fmt, ...)
{
    char old[GPUCORE_DIAG_MESSAGE_SIZE];
    size_t used;
    va_list ap;
    int n;

    if (!diag)
        return;
    memcpy(old, diag->message, sizeof(old));
    old[sizeof(old) - 1] = '\0';
    va_start(ap, fmt);
    n = vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
    va_end(ap);
    used = n < 0 ? 0 : (size_t)n;
    if (used + 2 >= sizeof(diag->message))
        return;
    /* Append ": old" as far as it fits; truncation of a long detail is acceptable. */
    diag->message[used] = ':';
    diag->message[used + 1] = ' ';
    used += 2;
    memcpy(diag->message + used, old, sizeof(diag->message) - used);
    diag->message[sizeof(diag->message) - 1] = '\0';
}

void *gc_malloc(size_t size)
{
    return malloc(size ? size : 1);
}

void *gc_calloc_array(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *gc_realloc_array(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    n *= size;
    return realloc(p, n ? n : 1);
}

void *gc_array_grow(void *items, uint32_t *cap, uint32_t count, size_t size, uint32_t initial)
{
    uint32_t want;
    void *n;

    if (count < *cap)
        return items;
    if (*cap > UINT32_MAX / 2)
        return NULL;
    want = *cap ? *cap * 2 : (initial ? initial : 1);
    n = gc_realloc_array(items, want, size);
    if (n)
        *cap = want;
    return n;
}

void gc_free(void *p)
{
    free(p);
}

char *gc_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = gc_malloc(n);

    if (d)
        memcpy(d, s, n);
    return d;
}

void gc_buf_init(struct gc_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->err = GPUCORE_OK;
}

void gc_buf_done(struct gc_buf *b)
{
    gc_free(b->data);
    gc_buf_init(b);
}

uint8_t *gc_buf_grow(struct gc_buf *b, size_t n)
{
    uint8_t *p;

    if (b->err)
        return NULL;
    if (n > SIZE_MAX - b->len) {
        b->err = GPUCORE_E_NOMEM;
        return NULL;
    }
    /* Also when empty: NULL + 0 below would be undefined behaviour even for n == 0. */
    if (b->len + n > b->cap || !b->data) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *nd;

        while (cap < b->len + n) {
            if (cap > SIZE_MAX / 2) {
                cap = b->len + n;
                break;
            }
            cap *= 2;
        }
        nd = realloc(b->data, cap);
        if (!nd) {
            b->err = GPUCORE_E_NOMEM;
            return NULL;
        }
        b->data = nd;
        b->cap = cap;
    }
    p = b->data + b->len;
    memset(p, 0, n);
    b->len += n;
    return p;
}

void gc_buf_append(struct gc_buf *b, const void *p, size_t n)
{
    uint8_t *d = gc_buf_grow(b, n);

    if (d && n)
        memcpy(d, p, n);
}

void gc_buf_put8(struct gc_buf *b, uint8_t v)
{
    uint8_t *d = gc_buf_grow(b, 1);

    if (d)
        *d = v;
}

void gc_buf_put16(struct gc_buf *b, uint16_t v)
{
    uint8_t *d = gc_buf_grow(b, 2);

    if (d)
        gc_le16_put(d, v);
}

void gc_buf_put32(struct gc_buf *b, uint32_t v)
{
    uint8_t *d = gc_buf_grow(b, 4);

    if (d)
        gc_le32_put(d, v);
}

void gc_buf_put64(struct gc_buf *b, uint64_t v)
{
    uint8_t *d = gc_buf_grow(b, 8);

    if (d)
        gc_le64_put(d, v);
}

void gc_buf_pad(struct gc_buf *b, size_t align)
{
    if (align > 1 && b->len % align)
        gc_buf_grow(b, align - b->len % align);
}

uint8_t *gc_buf_steal(struct gc_buf *b, size_t *ret_len)
{
    uint8_t *d = b->data;

    *ret_len = b->len;
    gc_buf_init(b);
    return d;
}

void gc_str_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (size == 0 || *len >= size - 1)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < size - 1 ? *len + (size_t)n : size - 1;
}

const char *gc_format_size(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    double v = (double)bytes;
    size_t u = 0;

    if (bytes < 1024) {
        snprintf(buf, size, "%" PRIu64 " B", bytes);
        return buf;
    }
    while (v >= 1024.0 && u + 1 < GC_ARRAY_SIZE(units)) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.1f %s", v, units[u]);
    return buf;
}

/* ------------------------------------------------------------------------------------------ */
/* UTF-8                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/*
 * Well-formed multi-byte sequences (Unicode 15.0, table 3-7). The restricted second-byte
 * ranges are what exclude overlong forms (E0, F0), surrogates (ED) and code points above
 * U+10FFFF (F4); C0, C1 and F5..FF never start a sequence. Later bytes are always 80..BF.
 */
static const struct gc_utf8_lead {
    uint8_t lead_lo, lead_hi;
    uint8_t len;
    uint8_t second_lo, second_hi;
} gc_utf8_leads[] = {
    { 0xC2, 0xDF, 2, 0x80, 0xBF }, { 0xE0, 0xE0, 3, 0xA0, 0xBF }, { 0xE1, 0xEC, 3, 0x80, 0xBF },
    { 0xED, 0xED, 3, 0x80, 0x9F }, { 0xEE, 0xEF, 3, 0x80, 0xBF }, { 0xF0, 0xF0, 4, 0x90, 0xBF },
    { 0xF1, 0xF3, 4, 0x80, 0xBF }, { 0xF4, 0xF4, 4, 0x80, 0x8F },
};

int gc_utf8_valid(const uint8_t *s, size_t n, size_t *ret_bad)
{
    size_t i = 0;

    while (i < n) {
        const struct gc_utf8_lead *row = NULL;

        if (s[i] < 0x80) {
            i++;
            continue;
        }
        for (size_t k = 0; k < GC_ARRAY_SIZE(gc_utf8_leads); k++)
            if (s[i] >= gc_utf8_leads[k].lead_lo && s[i] <= gc_utf8_leads[k].lead_hi)
                row = &gc_utf8_leads[k];
        if (!row || n - i < row->len) {
            *ret_bad = i;
            return 0;
        }
        if (s[i + 1] < row->second_lo || s[i + 1] > row->second_hi) {
            *ret_bad = i + 1;
            return 0;
        }
        for (size_t k = 2; k < row->len; k++) {
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) {
                *ret_bad = i + k;
                return 0;
            }
        }
        i += row->len;
    }
    return 1;
}

/* The length of the well-formed sequence at @p s (@p n bytes left), or 0 if there is none. */
static size_t utf8_seq(const uint8_t *s, size_t n)
{
    const struct gc_utf8_lead *row = NULL;

    if (s[0] < 0x80)
        return 1;
    for (size_t k = 0; k < GC_ARRAY_SIZE(gc_utf8_leads); k++)
        if (s[0] >= gc_utf8_leads[k].lead_lo && s[0] <= gc_utf8_leads[k].lead_hi)
            row = &gc_utf8_leads[k];
    if (!row || n < row->len || s[1] < row->second_lo || s[1] > row->second_hi)
        return 0;
    for (size_t k = 2; k < row->len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return row->len;
}

size_t gc_utf8_scrub(char *s, size_t n)
{
    uint8_t *u = (uint8_t *)s;
    size_t i = 0, fixed = 0;

    while (i < n) {
        size_t len = utf8_seq(u + i, n - i);

        if (len) {
            i += len;
        } else { /* a byte that starts no sequence: the rest is judged after it */
            u[i++] = '?';
            fixed++;
        }
    }
    return fixed;
}
