/* SPDX-License-Identifier: MIT */
/* C++ names demangled within bounds (demangle.h). */
#include "demangle.h"

#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler (libstdc++, <cxxabi.h>): a malloc'd NUL-terminated text or NULL,
   *status 0 on success. Declared here, as elfutils does, since this is C. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* Whether @p p starts a back-reference: a letter, then [0-9A-Z]* and '_' (S_, S1A_, T_, T3_).
   Counts a few non-references too (an identifier holding "S1_"): that only errs toward
   showing the mangled name. */
static int is_backref(const char *p)
{
    if (p[0] != 'S' && p[0] != 'T')
        return 0;
    p++;
    while ((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z'))
        p++;
    return *p == '_';
}

/* Whether @p name is one this file demangles: prefix, length and back-references. */
static int within_limits(const char *name)
{
    size_t len, refs = 0;

    if (!name || strncmp(name, "_Z", 2) != 0)
        return 0;
    len = strnlen(name, GC_DEMANGLE_NAME_MAX + 1);
    if (len > GC_DEMANGLE_NAME_MAX)
        return 0;
    for (size_t i = 2; i < len; i++) {
        if (is_backref(name + i) && ++refs > GC_DEMANGLE_REFS_MAX)
            return 0;
    }
    return 1;
}

int gc_demangle(const char *name, char *buf, size_t size)
{
    int status = -1;
    char *text;
    size_t n;

    if (size)
        buf[0] = '\0';
    if (!size || !within_limits(name))
        return 0;
    text = __cxa_demangle(name, NULL, NULL, &status);
    if (!text || status != 0) {
        free(text);
        return 0;
    }
    n = strlen(text);
    if (n >= size || n >= GC_DEMANGLE_TEXT_MAX) {
        free(text);
        return 0;
    }
    memcpy(buf, text, n + 1);
    free(text);
    return 1;
}

/* Where the "+0xHEX" suffix of @p symbol starts, or its end when there is none. */
static size_t offset_suffix(const char *symbol, size_t len)
{
    const char *plus = strrchr(symbol, '+');

    if (!plus || strncmp(plus, "+0x", 3) != 0 || !plus[3] ||
        strspn(plus + 3, "0123456789abcdefABCDEF") != strlen(plus + 3))
        return len;
    return (size_t)(plus - symbol);
}

int gc_demangle_symbol(const char *symbol, char *buf, size_t size)
{
    char name[GC_DEMANGLE_NAME_MAX + 1];
    size_t len, cut, n;

    if (size)
        buf[0] = '\0';
    if (!symbol || !size)
        return 0;
    len = strnlen(symbol, GC_DEMANGLE_NAME_MAX + 32);
    if (symbol[len] != '\0')
        return 0;
    cut = offset_suffix(symbol, len);
    if (cut > GC_DEMANGLE_NAME_MAX)
        return 0;
    memcpy(name, symbol, cut);
    name[cut] = '\0';
    if (!gc_demangle(name, buf, size))
        return 0;
    n = strlen(buf);
    if (n + (len - cut) >= size) {
        buf[0] = '\0';
        return 0;
    }
    memcpy(buf + n, symbol + cut, len - cut + 1);
    return 1;
}
