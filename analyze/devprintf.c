/* SPDX-License-Identifier: MIT */
/*
 * The device printf buffer (devprintf.h): the "amdhsa.printf" entries, their conversions
 * checked against the argument sizes, the buffer's records walked, and each message formatted
 * by a small formatter of our own per conversion. Core bytes are only ever values: the C
 * library's snprintf sees literal formats of this file (floats), never a format from a core.
 */
#include "devprintf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_le.h"
#include "gc_util.h"

/* ---- Conversion specifications ---------------------------------------------------------------- */

enum { F_MINUS = 1, F_PLUS = 2, F_SPACE = 4, F_ALT = 8, F_ZERO = 16 };

/* What a conversion character prints, and the argument sizes the device writes for it. */
enum conv_class { C_INT, C_UINT, C_CHAR, C_FLOAT, C_STRING, C_POINTER };
static const struct {
    char conv;
    uint8_t cls;
    uint8_t base; /* integers */
} convs[] = {
    { 'd', C_INT, 10 },   { 'i', C_INT, 10 },   { 'u', C_UINT, 10 },  { 'o', C_UINT, 8 },
    { 'x', C_UINT, 16 },  { 'X', C_UINT, 16 },  { 'c', C_CHAR, 0 },   { 'e', C_FLOAT, 0 },
    { 'E', C_FLOAT, 0 },  { 'f', C_FLOAT, 0 },  { 'g', C_FLOAT, 0 },  { 'G', C_FLOAT, 0 },
    { 'a', C_FLOAT, 0 },  { 'A', C_FLOAT, 0 },  { 's', C_STRING, 0 }, { 'p', C_POINTER, 16 },
};

/* The vector lengths OpenCL's "%vN" allows. */
static int vector_length_ok(unsigned n)
{
    return n == 2 || n == 3 || n == 4 || n == 8 || n == 16;
}

struct spec {
    unsigned flags;
    int width, prec;  /* -1: not given */
    unsigned vec;     /* 0, or the N of %vN */
    unsigned hbits;   /* 8 for hh, 16 for h: the value is narrowed; 0 otherwise */
    char conv;
    size_t ci;        /* index in convs[] */
};

/* A decimal number of at most GC_DP_MAX_WIDTH at *p (advanced); -2 when larger. */
static int small_number(const char **p)
{
    int v = 0;

    while (**p >= '0' && **p <= '9') {
        if (v <= (int)GC_DP_MAX_WIDTH)
            v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v > (int)GC_DP_MAX_WIDTH ? -2 : v;
}

/*
 * The specification after a '%' at *p (advanced past it), or an error into @p why (returns
 * -1). Widths and precisions past GC_DP_MAX_WIDTH and '*' are errors: the text is not made.
 */
static int parse_spec(const char **p, struct spec *sp, char *why, size_t why_size)
{
    static const char flag_chars[] = "-+ #0";
    const char *s = *p;

    memset(sp, 0, sizeof(*sp));
    sp->width = sp->prec = -1;
    for (const char *f; *s && (f = strchr(flag_chars, *s)) != NULL; s++)
        sp->flags |= 1u << (f - flag_chars);
    if (*s == '*' || (*s == '.' && s[1] == '*')) {
        snprintf(why, why_size, "a '*' width or precision, which device printf does not take");
        return -1;
    }
    if (*s >= '0' && *s <= '9')
        sp->width = small_number(&s);
    if (*s == '.') {
        s++;
        sp->prec = small_number(&s);
    }
    if (sp->width == -2 || sp->prec == -2) {
        snprintf(why, why_size, "a width or precision above %u", GC_DP_MAX_WIDTH);
        return -1;
    }
    if (*s == 'v') {
        const char *v = ++s;
        int n = small_number(&s);

        if (s == v || !vector_length_ok((unsigned)n)) {
            snprintf(why, why_size, "a vector length that is not 2, 3, 4, 8 or 16");
            return -1;
        }
        sp->vec = (unsigned)n;
    }
    if (s[0] == 'h' && s[1] == 'h') {
        sp->hbits = 8;
        s += 2;
    } else if (s[0] == 'h' && s[1] == 'l') {
        s += 2; /* OpenCL's 32-bit vector elements */
    } else if (s[0] == 'h') {
        sp->hbits = 16;
        s++;
    } else if (s[0] == 'l') {
        s += s[1] == 'l' ? 2 : 1;
    }
    for (sp->ci = 0; sp->ci < GC_ARRAY_SIZE(convs) && convs[sp->ci].conv != *s; sp->ci++)
        ;
    if (!*s || sp->ci == GC_ARRAY_SIZE(convs)) {
        if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
            snprintf(why, why_size, "the conversion '%%%c', which device printf does not have",
                     *s);
        else
            snprintf(why, why_size, "a '%%' without a conversion");
        return -1;
    }
    sp->conv = *s++;
    *p = s;
    return 0;
}

/* Whether @p size bytes are what the device writes for @p sp. */
static int size_fits(const struct spec *sp, uint32_t size)
{
    if (sp->vec)
        return size > 0;
    switch (convs[sp->ci].cls) {
    case C_CHAR:
        return size == 4;
    case C_STRING:
        return size >= 4 && size % 4 == 0;
    default: /* integers, floats, pointers: 32 or 64 bits */
        return size == 4 || size == 8;
    }
}

/* Check the conversions of @p f's format against its sizes; why not into f->mismatch. */
static void check_format(struct gc_dp_format *f)
{
    const char *s = f->format;
    uint32_t k = 0;
    char why[128];

    while ((s = strchr(s, '%')) != NULL) {
        struct spec sp;

        s++;
        if (*s == '%') {
            s++;
            continue;
        }
        if (parse_spec(&s, &sp, why, sizeof(why)) != 0) {
            snprintf(f->mismatch, sizeof(f->mismatch), "conversion %" PRIu32 " has %s", k + 1,
                     why);
            return;
        }
        if (k < f->nargs && !size_fits(&sp, f->sizes[k])) {
            snprintf(f->mismatch, sizeof(f->mismatch),
                     "argument %" PRIu32 " (%%%c) has %" PRIu32 " bytes in the metadata, which "
                     "that conversion is never given", k + 1, sp.conv, f->sizes[k]);
            return;
        }
        k++;
    }
    if (k != f->nargs)
        snprintf(f->mismatch, sizeof(f->mismatch),
                 "the format has %" PRIu32 " conversions, the metadata %" PRIu32 " argument sizes",
                 k, f->nargs);
}

/* ---- "ID:N:S1:...:SN:FORMAT" ------------------------------------------------------------------- */

/* A decimal number of at most @p max then ':' at *p (advanced past the colon); -1 if not. */
static int field(const char **p, uint64_t max, uint32_t *ret)
{
    const char *s = *p;
    uint64_t v = 0;

    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)
            return -2;
    }
    if (*s != ':')
        return -1;
    *ret = (uint32_t)v;
    *p = s + 1;
    return 0;
}

/* The compiler's escapes undone into a new string: \a \b \f \n \r \v and \72 (':'). */
static char *unescape(const char *s)
{
    static const char letters[] = "abfnrv", bytes[] = "\a\b\f\n\r\v";
    char *out = gc_malloc(strlen(s) + 1), *o = out;

    if (!out)
        return NULL;
    while (*s) {
        const char *l = s[0] == '\\' && s[1] ? strchr(letters, s[1]) : NULL;

        if (l) {
            *o++ = bytes[l - letters];
            s += 2;
        } else if (s[0] == '\\' && s[1] == '7' && s[2] == '2') {
            *o++ = ':';
            s += 3;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

static gpucore_status_t parse_entry(const char *entry, uint32_t index, struct gc_dp_format *f,
                                    gpucore_diag_t *diag)
{
    const char *s = entry;
    uint64_t total = 4;
    int r;

    GC_FAIL_IF(field(&s, UINT32_MAX, &f->id) != 0 || f->id == 0, diag, GPUCORE_E_CORRUPT,
               GC_NO_OFFSET, "amdhsa.printf[%" PRIu32 "]: no printf id from 1 before a ':'",
               index);
    r = field(&s, GC_DP_MAX_ARGS, &f->nargs);
    GC_FAIL_IF(r == -2, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "amdhsa.printf[%" PRIu32 "]: more than %u arguments", index, GC_DP_MAX_ARGS);
    GC_FAIL_IF(r != 0, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "amdhsa.printf[%" PRIu32 "]: no argument count after the id", index);
    if (f->nargs) {
        f->sizes = gc_calloc_array(f->nargs, sizeof(*f->sizes));
        if (!f->sizes)
            return GPUCORE_E_NOMEM;
    }
    for (uint32_t k = 0; k < f->nargs; k++) {
        r = field(&s, GC_DP_MAX_ARG_SIZE, &f->sizes[k]);
        GC_FAIL_IF(r == -2, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                   "amdhsa.printf[%" PRIu32 "]: argument %" PRIu32 " of more than %u bytes",
                   index, k + 1, GC_DP_MAX_ARG_SIZE);
        GC_FAIL_IF(r != 0, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                   "amdhsa.printf[%" PRIu32 "]: %" PRIu32 " argument sizes announced, %" PRIu32
                   " found before the format", index, f->nargs, k);
        total += f->sizes[k];
    }
    f->record_size = (uint32_t)total; /* at most 4 + 64 x 4096 */
    f->format = unescape(s);
    if (!f->format)
        return GPUCORE_E_NOMEM;
    check_format(f);
    return GPUCORE_OK;
}

static int format_cmp(const void *pa, const void *pb)
{
    const struct gc_dp_format *a = pa, *b = pb;

    return a->id < b->id ? -1 : a->id > b->id;
}

gpucore_status_t gc_dp_formats_parse(char *const *strings, uint32_t n,
                                     struct gc_dp_formats **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_dp_formats *fs;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(!ret || (!strings && n), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_dp_formats_parse: NULL argument");
    *ret = NULL;
    fs = gc_calloc_array(1, sizeof(*fs));
    if (fs)
        fs->f = gc_calloc_array((size_t)n + 1u, sizeof(*fs->f));
    if (!fs || !fs->f) {
        gc_free(fs);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    for (uint32_t i = 0; i < n && st == GPUCORE_OK; i++) {
        fs->n = i + 1;
        st = parse_entry(strings[i], i, &fs->f[i], reterr_diag);
    }
    if (st == GPUCORE_OK && n > 1) {
        qsort(fs->f, n, sizeof(*fs->f), format_cmp);
        for (uint32_t i = 1; i < n && st == GPUCORE_OK; i++)
            if (fs->f[i].id == fs->f[i - 1].id)
                st = gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                                 "amdhsa.printf: printf id %" PRIu32 " is given twice",
                                 fs->f[i].id);
    }
    if (st == GPUCORE_E_NOMEM)
        gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "out of memory");
    if (st != GPUCORE_OK) {
        gc_dp_formats_free(fs);
        return st;
    }
    *ret = fs;
    return GPUCORE_OK;
}

void gc_dp_formats_free(struct gc_dp_formats *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->n; i++) {
        gc_free(f->f[i].sizes);
        gc_free(f->f[i].format);
    }
    gc_free(f->f);
    gc_free(f);
}

/* ---- Text: escaped, bounded -------------------------------------------------------------------- */

struct text {
    char buf[GC_DP_MAX_TEXT + 4]; /* + "..." */
    size_t len;
    int cut;
};

/* One byte as the texts show it, into e (at least 5 bytes); its length. */
static size_t escape_byte(unsigned char c, char *e)
{
    static const char ctl[] = "\a\b\t\n\v\f\r", letter[] = "abtnvfr";
    const char *k = c ? strchr(ctl, c) : NULL;

    if (c == '\\') {
        memcpy(e, "\\\\", 2);
        return 2;
    }
    if (k) {
        e[0] = '\\';
        e[1] = letter[k - ctl];
        return 2;
    }
    if (c >= 0x20 && c < 0x7f) {
        e[0] = (char)c;
        return 1;
    }
    snprintf(e, 5, "\\x%02x", c);
    return 4;
}

static void put_bytes(struct text *t, const char *s, size_t n)
{
    for (size_t i = 0; i < n && !t->cut; i++) {
        char e[5];
        size_t k = escape_byte((unsigned char)s[i], e);

        if (t->len + k > GC_DP_MAX_TEXT) {
            t->cut = 1;
            break;
        }
        memcpy(t->buf + t->len, e, k);
        t->len += k;
    }
}

void gc_dp_escape(const char *s, size_t n, char *out, size_t size)
{
    size_t len = 0;

    if (!size)
        return;
    for (size_t i = 0; i < n; i++) {
        char e[5];
        size_t k = escape_byte((unsigned char)s[i], e);

        if (len + k + 4 > size) { /* room for "..." and the NUL */
            memcpy(out + len, "...", 3);
            len += 3;
            break;
        }
        memcpy(out + len, e, k);
        len += k;
    }
    out[len < size ? len : size - 1] = '\0';
}

/* A piece of output: prefix (sign, "0x") and body, padded to the width as the flags say. */
static void put_padded(struct text *t, const struct spec *sp, const char *prefix,
                       const char *body, size_t body_len, int zero_ok)
{
    size_t plen = strlen(prefix), n = plen + body_len;
    size_t pad = sp->width > 0 && (size_t)sp->width > n ? (size_t)sp->width - n : 0;
    char fill[GC_DP_MAX_WIDTH];

    if (pad && !(sp->flags & F_MINUS) && !((sp->flags & F_ZERO) && zero_ok)) {
        memset(fill, ' ', pad);
        put_bytes(t, fill, pad);
    }
    put_bytes(t, prefix, plen);
    if (pad && !(sp->flags & F_MINUS) && (sp->flags & F_ZERO) && zero_ok) {
        memset(fill, '0', pad);
        put_bytes(t, fill, pad);
    }
    put_bytes(t, body, body_len);
    if (pad && (sp->flags & F_MINUS)) {
        memset(fill, ' ', pad);
        put_bytes(t, fill, pad);
    }
}

/* ---- One conversion ------------------------------------------------------------------------ */

static uint64_t le(const uint8_t *p, uint32_t n)
{
    uint64_t v = 0;

    for (uint32_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* The digits of @p v in @p base (upper-case hex when @p upper), at least @p prec of them. */
static size_t digits(uint64_t v, unsigned base, int upper, int prec, char *out)
{
    const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char rev[GC_DP_MAX_WIDTH + 72]; /* a precision's zeros, or 64 binary digits at most */
    size_t n = 0, k = 0;

    for (; v; v /= base)
        rev[n++] = dig[v % base];
    while ((int)n < (prec < 0 ? 1 : prec))
        rev[n++] = '0';
    while (n)
        out[k++] = rev[--n];
    out[k] = '\0';
    return k;
}

static void put_integer(struct text *t, const struct spec *sp, const uint8_t *a, uint32_t size)
{
    unsigned cls = convs[sp->ci].cls, base = convs[sp->ci].base;
    uint64_t raw = le(a, size), mag;
    int neg = 0;
    char prefix[4] = "", body[GC_DP_MAX_WIDTH + 72];
    size_t n;

    if (sp->hbits)
        raw &= (1ull << sp->hbits) - 1;
    if (cls == C_INT) {
        unsigned bits = sp->hbits ? sp->hbits : size * 8;
        int64_t v = bits == 64 ? (int64_t)raw
                               : (int64_t)(raw ^ (1ull << (bits - 1))) - (int64_t)(1ull << (bits - 1));

        neg = v < 0;
        mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        snprintf(prefix, sizeof(prefix), "%s",
                 neg ? "-" : sp->flags & F_PLUS ? "+" : sp->flags & F_SPACE ? " " : "");
    } else {
        mag = raw;
        if (sp->conv == 'p' || ((sp->flags & F_ALT) && base == 16 && mag))
            snprintf(prefix, sizeof(prefix), "%s", sp->conv == 'X' ? "0X" : "0x");
    }
    n = digits(mag, base, sp->conv == 'X', sp->prec, body); /* "%.0d" of 0: no digit */
    if (base == 8 && (sp->flags & F_ALT) && body[0] != '0') {
        memmove(body + 1, body, n + 1);
        body[0] = '0';
        n++;
    }
    put_padded(t, sp, prefix, body, n, sp->prec < 0);
}

/* A float conversion with a literal format of ours: @p alt for '#'. */
#define FLOAT_CASE(c, f)                                                                      \
    case c:                                                                                   \
        return alt ? snprintf(out, size, "%#.*" f, prec, v) : snprintf(out, size, "%.*" f, prec, v)

static int float_text(char conv, int alt, int prec, double v, char *out, size_t size)
{
    switch (conv) {
        FLOAT_CASE('e', "e");
        FLOAT_CASE('E', "E");
        FLOAT_CASE('f', "f");
        FLOAT_CASE('g', "g");
        FLOAT_CASE('G', "G");
        FLOAT_CASE('a', "a");
        FLOAT_CASE('A', "A");
    default:
        return -1;
    }
}

static void put_float(struct text *t, const struct spec *sp, const uint8_t *a, uint32_t size)
{
    /* %f of DBL_MAX: 309 digits, a point and GC_DP_MAX_WIDTH decimals */
    char body[GC_DP_MAX_WIDTH + 400], prefix[4] = "";
    const char *b = body;
    double v;
    int n;

    if (size == 4) {
        uint32_t bits = (uint32_t)le(a, 4);
        float f;

        memcpy(&f, &bits, sizeof(f));
        v = f;
    } else {
        uint64_t bits = le(a, 8);

        memcpy(&v, &bits, sizeof(v));
    }
    n = float_text(sp->conv, (sp->flags & F_ALT) != 0, sp->prec, v, body, sizeof(body));
    if (n < 0)
        n = 0, body[0] = '\0';
    if ((size_t)n >= sizeof(body))
        n = (int)sizeof(body) - 1;
    if (body[0] == '-') {
        prefix[0] = '-';
        b++, n--;
    } else if (sp->flags & (F_PLUS | F_SPACE)) {
        prefix[0] = sp->flags & F_PLUS ? '+' : ' ';
    }
    if (n >= 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) { /* %a: pad after 0x */
        size_t pl = strlen(prefix);

        memcpy(prefix + pl, b, 2);
        prefix[pl + 2] = '\0';
        b += 2, n -= 2;
    }
    /* inf and nan are never zero-padded */
    put_padded(t, sp, prefix, b, (size_t)n, b[0] >= '0' && b[0] <= '9');
}

static void put_string(struct text *t, const struct spec *sp, const uint8_t *a, uint32_t size)
{
    const uint8_t *nul = memchr(a, 0, size);
    size_t n = nul ? (size_t)(nul - a) : size;

    if (sp->prec >= 0 && (size_t)sp->prec < n)
        n = (size_t)sp->prec;
    put_padded(t, sp, "", (const char *)a, n, 0);
}

/* A vector is not formatted: its words in hex, said so. */
static void put_vector(struct text *t, const struct spec *sp, const uint8_t *a, uint32_t size)
{
    char w[48];

    snprintf(w, sizeof(w), "<%%v%u%c not formatted:", sp->vec, sp->conv);
    put_bytes(t, w, strlen(w));
    for (uint32_t i = 0; i + 4 <= size; i += 4) {
        snprintf(w, sizeof(w), " 0x%08" PRIx32, (uint32_t)le(a + i, 4));
        put_bytes(t, w, strlen(w));
    }
    put_bytes(t, ">", 1);
}

static void put_conversion(struct text *t, const struct spec *sp, const uint8_t *a, uint32_t size)
{
    if (sp->vec) {
        put_vector(t, sp, a, size);
        return;
    }
    switch (convs[sp->ci].cls) {
    case C_CHAR: {
        char c = (char)a[0];

        put_padded(t, sp, "", &c, 1, 0);
        break;
    }
    case C_FLOAT:
        put_float(t, sp, a, size);
        break;
    case C_STRING:
        put_string(t, sp, a, size);
        break;
    default:
        put_integer(t, sp, a, size);
        break;
    }
}

/* The message of a record whose format was checked (no mismatch), args at @p a. */
static char *format_record(const struct gc_dp_format *f, const uint8_t *a)
{
    struct text *t = gc_calloc_array(1, sizeof(*t));
    const char *s = f->format;
    uint32_t k = 0, off = 0;
    char *out;

    if (!t)
        return NULL;
    while (*s && !t->cut) {
        const char *pct = strchr(s, '%');
        struct spec sp;
        char why[128];

        if (!pct) {
            put_bytes(t, s, strlen(s));
            break;
        }
        put_bytes(t, s, (size_t)(pct - s));
        s = pct + 1;
        if (*s == '%') {
            put_bytes(t, "%", 1);
            s++;
            continue;
        }
        if (parse_spec(&s, &sp, why, sizeof(why)) != 0 || k >= f->nargs)
            break; /* not reached: check_format() refused such formats */
        put_conversion(t, &sp, a + off, f->sizes[k]);
        off += f->sizes[k++];
    }
    if (t->cut) {
        memcpy(t->buf + t->len, "...", 3);
        t->len += 3;
    }
    t->buf[t->len] = '\0';
    out = gc_malloc(t->len + 1);
    if (out)
        memcpy(out, t->buf, t->len + 1);
    gc_free(t);
    return out;
}

/* ---- The buffer -------------------------------------------------------------------------------- */

static const struct gc_dp_format *find_format(const struct gc_dp_formats *f, uint32_t id)
{
    struct gc_dp_format key = { .id = id };

    return f->n ? bsearch(&key, f->f, f->n, sizeof(*f->f), format_cmp) : NULL;
}

/* Walk the records from GC_DP_HEADER to @p lim (the header's end), @p avail of them held. */
static gpucore_status_t walk(const struct gc_dp_formats *f, const uint8_t *buf, uint64_t lim,
                             uint64_t avail, struct gc_dp_buffer *b)
{
    uint64_t off = GC_DP_HEADER;

    while (off < lim) {
        const struct gc_dp_format *fmt;
        struct gc_dp_record *r;
        uint32_t id;

        if (b->nrecords == GC_DP_MAX_RECORDS) {
            snprintf(b->problem, sizeof(b->problem),
                     "only the first %u messages are decoded; bytes %" PRIu64 "..%" PRIu64
                     " are not", GC_DP_MAX_RECORDS, off, lim - 1);
            break;
        }
        if (off + 4 > lim) {
            snprintf(b->problem, sizeof(b->problem),
                     "offset %" PRIu64 ": %" PRIu64 " bytes left, too few for a printf id",
                     off, lim - off);
            break;
        }
        if (off + 4 > avail)
            break; /* truncated */
        id = (uint32_t)le(buf + off, 4);
        fmt = find_format(f, id);
        if (!fmt) {
            snprintf(b->problem, sizeof(b->problem),
                     "offset %" PRIu64 ": printf id %" PRIu32 " is not one of the %" PRIu32
                     " formats of the code object's amdhsa.printf: the walk stops there",
                     off, id, f->n);
            break;
        }
        if (off + fmt->record_size > lim) {
            snprintf(b->problem, sizeof(b->problem),
                     "offset %" PRIu64 ": the record of printf id %" PRIu32 " (%" PRIu32
                     " bytes) ends past the %" PRIu32 " bytes the header says are used",
                     off, id, fmt->record_size, b->used);
            break;
        }
        if (off + fmt->record_size > avail)
            break; /* truncated: the core has only part of this record */
        r = &b->records[b->nrecords++];
        r->offset = (uint32_t)off;
        r->id = id;
        r->format = fmt;
        if (!fmt->mismatch[0] && !(r->text = format_record(fmt, buf + off + 4)))
            return GPUCORE_E_NOMEM;
        off += fmt->record_size;
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_dp_decode(const struct gc_dp_formats *f, const uint8_t *buf, uint64_t held,
                              struct gc_dp_buffer **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_dp_buffer *b;
    uint64_t lim;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(!f || !buf || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_dp_decode: NULL argument");
    *ret = NULL;
    GC_FAIL_IF(held < GC_DP_HEADER, reterr_diag, GPUCORE_E_UNAVAILABLE, 0,
               "%" PRIu64 " bytes of the printf buffer are in the core, fewer than its %u-byte "
               "header", held, GC_DP_HEADER);
    b = gc_calloc_array(1, sizeof(*b));
    if (b)
        b->records = gc_calloc_array(GC_DP_MAX_RECORDS, sizeof(*b->records));
    if (!b || !b->records) {
        gc_free(b);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    b->used = gc_le32_get(buf);
    b->size = gc_le32_get(buf + 4);
    b->held = held;
    lim = (uint64_t)GC_DP_HEADER + b->used;
    b->truncated = held < lim;
    if (b->size < GC_DP_HEADER || b->used > b->size - GC_DP_HEADER) {
        b->truncated = 0;
        snprintf(b->problem, sizeof(b->problem),
                 "the header says %" PRIu32 " bytes of messages in a %" PRIu32 "-byte buffer, "
                 "more than it holds after its %u-byte header: not decoded", b->used, b->size,
                 GC_DP_HEADER);
    } else {
        st = walk(f, buf, lim, held < lim ? held : lim, b);
    }
    if (st != GPUCORE_OK) {
        gc_dp_buffer_free(b);
        return gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "out of memory");
    }
    *ret = b;
    return GPUCORE_OK;
}

void gc_dp_buffer_free(struct gc_dp_buffer *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->nrecords; i++)
        gc_free(b->records[i].text);
    gc_free(b->records);
    gc_free(b);
}

void gc_dp_arg_hex(const struct gc_dp_record *r, const uint8_t *buf, uint32_t i, char *out,
                   size_t size, uint32_t *ret_offset)
{
    uint32_t off = r->offset + 4, n;
    size_t len = 0;

    if (size)
        out[0] = '\0';
    if (i >= r->format->nargs)
        return;
    for (uint32_t k = 0; k < i; k++)
        off += r->format->sizes[k];
    n = r->format->sizes[i];
    if (ret_offset)
        *ret_offset = off;
    if (n == 4 || n == 8) {
        snprintf(out, size, "0x%0*" PRIx64, (int)(2 * n), le(buf + off, n));
        return;
    }
    for (uint32_t k = 0; k < n && k < 64; k++)
        gc_str_appendf(out, size, &len, "%02x", buf[off + k]);
    if (n > 64)
        gc_str_appendf(out, size, &len, "...");
}
