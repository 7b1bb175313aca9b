/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers shared by every gpucore module: failure detail, error-forwarding macros,
 * overflow-checked allocation, a growable byte buffer with a sticky error, and text helpers.
 *
 * Not installed; not part of the ABI.
 */
#ifndef GC_UTIL_H
#define GC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#define GC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GC_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * Record a failure in *diag (if diag is non-NULL) and return status. `offset` is the byte
 * position in the input the failure concerns; pass GC_NO_OFFSET when there is none.
 */
#define GC_NO_OFFSET UINT64_MAX
gpucore_status_t gc_diag_set(gpucore_diag_t *diag, gpucore_status_t status, uint64_t offset,
                             const char *fmt, ...) GC_PRINTF(4, 5);
gpucore_status_t gc_diag_vset(gpucore_diag_t *diag, gpucore_status_t status, uint64_t offset,
                              const char *fmt, va_list ap) GC_PRINTF(4, 0);

/*
 * Prefix an already-filled diag message with "prefix: " (used when a lower layer reports a
 * failure and the caller knows which file or note it was about). No-op for NULL.
 */
void gc_diag_prefix(gpucore_diag_t *diag, const char *fmt, ...) GC_PRINTF(2, 3);

/* GC_FAIL_IF(cond, diag, status, offset, fmt, ...): if cond, record and return status. */
#define GC_FAIL_IF(cond, diag, status, offset, ...)                                                \
    do {                                                                                           \
        if (cond)                                                                                  \
            return gc_diag_set((diag), (status), (offset), __VA_ARGS__);                          \
    } while (0)

/* GC_TRY(expr): evaluate a status expression and return it if it is an error. */
#define GC_TRY(expr)                                                                               \
    do {                                                                                           \
        gpucore_status_t gc_try_status_ = (expr);                                                  \
        if (gc_try_status_ < 0)                                                                    \
            return gc_try_status_;                                                                 \
    } while (0)

/* Allocation. gc_calloc_array fails (NULL) if n * size overflows. */
void *gc_malloc(size_t size);
void *gc_calloc_array(size_t n, size_t size);
void *gc_realloc_array(void *p, size_t n, size_t size);
void gc_free(void *p);
char *gc_strdup(const char *s);
/*
 * Room for one more element in a growable array of @p count used slots out of *cap: returns
 * @p items itself while count < *cap, else the array reallocated to twice the capacity (@p
 * initial slots the first time) with *cap updated. NULL on allocation failure or overflow:
 * @p items and *cap are then unchanged and still owned by the caller.
 *     struct x *n = gc_array_grow(a->items, &a->cap, a->count, sizeof(*n), 16);
 *     if (!n) return NULL;
 *     a->items = n;
 */
void *gc_array_grow(void *items, uint32_t *cap, uint32_t count, size_t size, uint32_t initial);

/*
 * Growable byte buffer used by encoders. Appends never fail visibly: on allocation failure
 * the buffer enters a sticky error state (err = GPUCORE_E_NOMEM) and later appends are
 * ignored, so an encoder checks gc_buf_status() once at the end.
 */
struct gc_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    gpucore_status_t err;
};

void gc_buf_init(struct gc_buf *b);
void gc_buf_done(struct gc_buf *b); /* frees data; the buffer can be reused after init */
/* Reserve n more bytes and return a pointer to them (zero-filled), or NULL on error. */
uint8_t *gc_buf_grow(struct gc_buf *b, size_t n);
void gc_buf_append(struct gc_buf *b, const void *p, size_t n);
void gc_buf_put8(struct gc_buf *b, uint8_t v);
void gc_buf_put16(struct gc_buf *b, uint16_t v);
void gc_buf_put32(struct gc_buf *b, uint32_t v);
void gc_buf_put64(struct gc_buf *b, uint64_t v);
void gc_buf_pad(struct gc_buf *b, size_t align); /* zero-fill to a multiple of align */
static inline gpucore_status_t gc_buf_status(const struct gc_buf *b)
{
    return b->err;
}
/* Hand the bytes to the caller (who frees them with gc_free) and reset the buffer. */
uint8_t *gc_buf_steal(struct gc_buf *b, size_t *ret_len);

/*
 * Append printf-style text to the string in buf[0..size), which is *len bytes long, and
 * advance *len. Text that does not fit is cut; once the buffer is full, appends change
 * nothing. buf stays NUL-terminated (size 0: nothing is written).
 */
void gc_str_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...) GC_PRINTF(4, 5);

/*
 * A byte count for people into buf: "512 B" below 1 KiB, else one decimal in the largest
 * binary unit that keeps the number at least 1 ("1.5 MiB", up to PiB). Returns buf.
 */
const char *gc_format_size(uint64_t bytes, char *buf, size_t size);

/*
 * UTF-8 (Unicode 15.0, table 3-7: no overlong forms, surrogates or code points above U+10FFFF).
 * gc_utf8_valid: 1 if the @p n bytes at @p s are well-formed, else 0 with *ret_bad the offset
 * of the first byte that is not. gc_utf8_scrub: make the @p n bytes at @p s well-formed in
 * place, each byte where a sequence breaks becoming '?' (the length is kept); returns how many
 * were replaced. NUL bytes are valid UTF-8 and kept.
 */
int gc_utf8_valid(const uint8_t *s, size_t n, size_t *ret_bad);
size_t gc_utf8_scrub(char *s, size_t n);

#endif /* GC_UTIL_H */
