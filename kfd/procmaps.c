/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/smaps parser. Strict: every line is either a mapping header or a "Key: value" line
 * of the current mapping; anything else is an error naming the file and the line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gc_util.h"
#include "procmaps.h"

#define MAX_LINE (64u * 1024u)
#define MAX_MAPS (1u << 20)
#define MAX_FILE (1ull << 30)

/* Parser state: the text, the current line, and the growing result. */
struct parser {
    const char *name;
    const char *p, *end; /* rest of the current line */
    uint64_t line_off;   /* offset of the line in the text */
    uint32_t line_no;
    struct gc_procmap *maps;
    uint32_t count, cap;
    size_t *path_off;    /* per map: offset of its path in strings (fixed up at the end) */
    char *strings;
    size_t strings_len, strings_cap;
    unsigned seen_kb;    /* kb_keys seen for the current map, one bit each */
    int have_vmflags;
    gpucore_diag_t *diag;
};

/* A failure on the current line: "NAME: line N: what". */
static gpucore_status_t GC_PRINTF(3, 4) pfail(struct parser *ps, gpucore_status_t st,
                                              const char *fmt, ...)
{
    char what[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return gc_diag_set(ps->diag, st, ps->line_off, "%s: line %" PRIu32 ": %s", ps->name,
                       ps->line_no, what);
}

/* ---- tokens ------------------------------------------------------------------------------ */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* An unsigned number in base 16 or 10 (at least one digit, at most 64 bits). */
static int take_num(struct parser *ps, unsigned base, uint64_t *ret)
{
    uint64_t v = 0;
    int n = 0, d;

    while (ps->p < ps->end && (d = hexval(*ps->p)) >= 0 && (unsigned)d < base) {
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return -1;
        v = v * base + (uint64_t)d;
        ps->p++;
        n++;
    }
    if (n == 0)
        return -1;
    *ret = v;
    return 0;
}

static int take_char(struct parser *ps, char c)
{
    if (ps->p >= ps->end || *ps->p != c)
        return -1;
    ps->p++;
    return 0;
}

static int take_spaces(struct parser *ps)
{
    int n = 0;

    while (ps->p < ps->end && *ps->p == ' ') {
        ps->p++;
        n++;
    }
    return n;
}

/* ---- one mapping header -------------------------------------------------------------------- */

struct perm_char {
    unsigned col;
    char set, unset;
    uint32_t bit;
};

static const struct perm_char perm_chars[] = {
    { 0, 'r', '-', GC_PROCMAP_READ },
    { 1, 'w', '-', GC_PROCMAP_WRITE },
    { 2, 'x', '-', GC_PROCMAP_EXEC },
    { 3, 's', 'p', GC_PROCMAP_SHARED },
};

static gpucore_status_t add_path(struct parser *ps, const char *s, size_t n, size_t *ret_off)
{
    size_t need;

    if (n + 1 > SIZE_MAX - ps->strings_len)
        return gc_diag_set(ps->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    need = ps->strings_len + n + 1;
    if (need > ps->strings_cap) {
        size_t cap = ps->strings_cap ? ps->strings_cap : 4096;
        char *q;

        while (cap < need)
            cap *= 2;
        q = gc_realloc_array(ps->strings, cap, 1);
        if (!q)
            return gc_diag_set(ps->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        ps->strings = q;
        ps->strings_cap = cap;
    }
    if (n)
        memcpy(ps->strings + ps->strings_len, s, n);
    ps->strings[ps->strings_len + n] = '\0';
    *ret_off = ps->strings_len;
    ps->strings_len += n + 1;
    return GPUCORE_OK;
}

static gpucore_status_t parse_header(struct parser *ps)
{
    struct gc_procmap m = { 0 };
    uint64_t major, minor;
    size_t off = 0;

    if (take_num(ps, 16, &m.start) || take_char(ps, '-') || take_num(ps, 16, &m.end))
        return pfail(ps, GPUCORE_E_CORRUPT, "expected an address range START-END");
    if (m.start >= m.end)
        return pfail(ps, GPUCORE_E_CORRUPT,
                     "empty or inverted address range %" PRIx64 "-%" PRIx64, m.start, m.end);
    if (ps->count && m.start < ps->maps[ps->count - 1].end)
        return pfail(ps, GPUCORE_E_CORRUPT,
                     "mapping at %" PRIx64 " overlaps or precedes the previous one", m.start);
    if (take_char(ps, ' ') || ps->end - ps->p < 4)
        return pfail(ps, GPUCORE_E_CORRUPT, "expected permissions after the range");
    for (size_t i = 0; i < GC_ARRAY_SIZE(perm_chars); i++) {
        char c = ps->p[perm_chars[i].col];

        if (c == perm_chars[i].set)
            m.perms |= perm_chars[i].bit;
        else if (c != perm_chars[i].unset)
            return pfail(ps, GPUCORE_E_CORRUPT,
                         "expected '%c' or '%c' in column %u of the permissions", perm_chars[i].set, perm_chars[i].unset,
                         perm_chars[i].col + 1);
    }
    ps->p += 4;
    if (take_char(ps, ' ') || take_num(ps, 16, &m.offset))
        return pfail(ps, GPUCORE_E_CORRUPT, "expected a hexadecimal file offset");
    if (take_char(ps, ' ') || take_num(ps, 16, &major) || take_char(ps, ':') ||
        take_num(ps, 16, &minor) || major > UINT32_MAX || minor > UINT32_MAX)
        return pfail(ps, GPUCORE_E_CORRUPT, "expected a device MAJOR:MINOR");
    m.dev_major = (uint32_t)major;
    m.dev_minor = (uint32_t)minor;
    if (take_char(ps, ' ') || take_num(ps, 10, &m.inode))
        return pfail(ps, GPUCORE_E_CORRUPT, "expected a decimal inode number");
    /* "inode " then the path padded to a column; an anonymous mapping may end right here. */
    if (ps->p < ps->end && take_spaces(ps) == 0)
        return pfail(ps, GPUCORE_E_CORRUPT, "expected a space after the inode number");
    if (ps->count >= MAX_MAPS)
        return pfail(ps, GPUCORE_E_LIMIT, "more than %u mappings",
                     MAX_MAPS);
    GC_TRY(add_path(ps, ps->p, (size_t)(ps->end - ps->p), &off));
    if (ps->count == ps->cap) {
        uint32_t cap = ps->cap ? ps->cap * 2 : 64;
        struct gc_procmap *q = gc_realloc_array(ps->maps, cap, sizeof(*q));
        size_t *o;

        if (!q)
            return gc_diag_set(ps->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        ps->maps = q;
        o = gc_realloc_array(ps->path_off, cap, sizeof(*o));
        if (!o)
            return gc_diag_set(ps->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        ps->path_off = o;
        ps->cap = cap;
    }
    ps->path_off[ps->count] = off;
    ps->maps[ps->count++] = m;
    ps->seen_kb = 0;
    ps->have_vmflags = 0;
    return GPUCORE_OK;
}

/* ---- "Key: value" lines ---------------------------------------------------------------------- */

struct vmflag_code {
    char code[3];
    uint32_t bit;
};

static const struct vmflag_code vmflag_codes[] = {
    { "io", GC_VMFLAG_IO },       { "dd", GC_VMFLAG_DONTDUMP }, { "ht", GC_VMFLAG_HUGETLB },
    { "pf", GC_VMFLAG_PFNMAP },   { "de", GC_VMFLAG_DONTEXPAND }, { "sh", GC_VMFLAG_SHARED },
    { "ms", GC_VMFLAG_MAYSHARE },
};

static gpucore_status_t parse_vmflags(struct parser *ps, struct gc_procmap *m)
{
    take_spaces(ps);
    while (ps->p < ps->end) {
        if (ps->end - ps->p < 2 || ps->p[0] <= ' ' || ps->p[0] > '~' || ps->p[1] <= ' ' ||
            ps->p[1] > '~' || (ps->end - ps->p > 2 && ps->p[2] != ' '))
            return pfail(ps, GPUCORE_E_CORRUPT, "expected two-character VmFlags codes");
        for (size_t i = 0; i < GC_ARRAY_SIZE(vmflag_codes); i++)
            if (ps->p[0] == vmflag_codes[i].code[0] && ps->p[1] == vmflag_codes[i].code[1])
                m->vmflags |= vmflag_codes[i].bit;
        ps->p += 2;
        take_spaces(ps);
    }
    return GPUCORE_OK;
}

/* Keys whose value is "N kB" and that are kept; other keys are checked for form only. */
struct kb_key {
    const char *key;
    size_t field; /* offsetof in struct gc_procmap, of a uint64_t */
};

static const struct kb_key kb_keys[] = {
    { "Rss", offsetof(struct gc_procmap, rss_kb) },
    { "Anonymous", offsetof(struct gc_procmap, anonymous_kb) },
    { "Swap", offsetof(struct gc_procmap, swap_kb) },
};

static gpucore_status_t parse_field(struct parser *ps)
{
    const char *key = ps->p;
    size_t klen;
    struct gc_procmap *m;
    uint64_t v;

    while (ps->p < ps->end && ((*ps->p >= 'A' && *ps->p <= 'Z') || (*ps->p >= 'a' && *ps->p <= 'z') ||
                               (*ps->p >= '0' && *ps->p <= '9') || *ps->p == '_'))
        ps->p++;
    klen = (size_t)(ps->p - key);
    if (klen == 0 || take_char(ps, ':'))
        return pfail(ps, GPUCORE_E_CORRUPT, "expected a mapping header or a \"Key:\" line");
    if (ps->count == 0)
        return pfail(ps, GPUCORE_E_CORRUPT, "\"%.*s:\" line before the first mapping header", (int)(klen > 32 ? 32 : klen), key);
    m = &ps->maps[ps->count - 1];
    if (klen == 7 && memcmp(key, "VmFlags", 7) == 0) {
        if (ps->have_vmflags)
            return pfail(ps, GPUCORE_E_CORRUPT, "second VmFlags line for one mapping");
        ps->have_vmflags = 1;
        return parse_vmflags(ps, m);
    }
    for (size_t i = 0; i < GC_ARRAY_SIZE(kb_keys); i++) {
        if (strlen(kb_keys[i].key) != klen || memcmp(key, kb_keys[i].key, klen) != 0)
            continue;
        if (ps->seen_kb & (1u << i))
            return pfail(ps, GPUCORE_E_CORRUPT, "second %s line for one mapping",
                         kb_keys[i].key);
        if (take_spaces(ps) == 0 || take_num(ps, 10, &v) || take_char(ps, ' ') ||
            take_char(ps, 'k') || take_char(ps, 'B') || ps->p != ps->end)
            return pfail(ps, GPUCORE_E_CORRUPT, "expected \"%s: N kB\"", kb_keys[i].key);
        ps->seen_kb |= 1u << i;
        memcpy((char *)m + kb_keys[i].field, &v, sizeof(v));
        return GPUCORE_OK;
    }
    /* Another key: its value must be printable text. */
    for (const char *q = ps->p; q < ps->end; q++)
        if ((unsigned char)*q < ' ' && *q != '\t')
            return pfail(ps, GPUCORE_E_CORRUPT, "control character in the value of \"%.*s\"", (int)(klen > 32 ? 32 : klen), key);
    return GPUCORE_OK;
}

/* ---- driver -------------------------------------------------------------------------------- */

static void parser_done(struct parser *ps)
{
    gc_free(ps->maps);
    gc_free(ps->path_off);
    gc_free(ps->strings);
}

gpucore_status_t gc_procmaps_parse(const char *text, size_t len, const char *name,
                                   struct gc_procmaps *ret, gpucore_diag_t *reterr_diag)
{
    struct parser ps = { 0 };
    size_t pos = 0;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(!ret || (!text && len), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no text or no result pointer");
    ps.name = name ? name : "smaps";
    ps.diag = reterr_diag;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - (text + pos)) : len - pos;

        ps.line_no++;
        ps.line_off = pos;
        ps.p = text + pos;
        ps.end = ps.p + llen;
        if (llen > MAX_LINE) {
            st = pfail(&ps, GPUCORE_E_LIMIT, "line longer than %u bytes",
                       MAX_LINE);
            break;
        }
        if (memchr(ps.p, '\0', llen)) {
            st = pfail(&ps, GPUCORE_E_CORRUPT, "unexpected NUL byte");
            break;
        }
        /* The kernel writes addresses in lower-case hex; keys start with a capital letter. */
        if (llen && hexval(*ps.p) >= 0 && !(*ps.p >= 'A' && *ps.p <= 'F'))
            st = parse_header(&ps);
        else
            st = parse_field(&ps);
        if (st != GPUCORE_OK)
            break;
        pos += llen + (nl ? 1 : 0);
    }
    if (st != GPUCORE_OK) {
        parser_done(&ps);
        return st;
    }
    if (ps.count == 0) {
        /* No mapping (a zombie has none): an empty set, with valid storage pointers. */
        gc_free(ps.maps);
        ps.maps = NULL;
    }
    for (uint32_t i = 0; i < ps.count; i++)
        ps.maps[i].path = ps.strings + ps.path_off[i];
    gc_free(ps.path_off);
    ret->maps = ps.maps;
    ret->count = ps.count;
    ret->strings = ps.strings;
    ret->strings_size = ps.strings_len;
    return GPUCORE_OK;
}

static gpucore_status_t errno_status(int err)
{
    if (err == ENOENT || err == ESRCH)
        return GPUCORE_E_NOTFOUND;
    if (err == EACCES || err == EPERM)
        return GPUCORE_E_PERM;
    if (err == ENOMEM)
        return GPUCORE_E_NOMEM;
    return GPUCORE_E_IO;
}

gpucore_status_t gc_procmaps_read(pid_t pid, const char *path, struct gc_procmaps *ret,
                                  gpucore_diag_t *reterr_diag)
{
    char buf_path[64];
    char *text = NULL;
    size_t len = 0, cap = 0;
    gpucore_status_t st;
    int fd, err;

    GC_FAIL_IF(!ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no result pointer");
    if (!path) {
        GC_FAIL_IF(pid <= 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "invalid process id %d", (int)pid);
        snprintf(buf_path, sizeof(buf_path), "/proc/%d/smaps", (int)pid);
        path = buf_path;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        return gc_diag_set(reterr_diag, errno_status(err), GC_NO_OFFSET, "cannot open %s: %s",
                           path, strerror(err));
    }
    for (;;) {
        ssize_t n;

        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *q;

            if (ncap > MAX_FILE + 4096) {
                close(fd);
                gc_free(text);
                return gc_diag_set(reterr_diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                                   "%s: larger than %llu bytes", path,
                                   (unsigned long long)MAX_FILE);
            }
            q = gc_realloc_array(text, ncap, 1);
            if (!q) {
                close(fd);
                gc_free(text);
                return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            }
            text = q;
            cap = ncap;
        }
        n = read(fd, text + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = errno;
            close(fd);
            gc_free(text);
            return gc_diag_set(reterr_diag, errno_status(err), GC_NO_OFFSET,
                               "cannot read %s: %s", path, strerror(err));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    st = gc_procmaps_parse(text, len, path, ret, reterr_diag);
    gc_free(text);
    return st;
}

void gc_procmaps_free(struct gc_procmaps *m)
{
    if (!m)
        return;
    gc_free(m->maps);
    gc_free(m->strings);
    m->maps = NULL;
    m->strings = NULL;
    m->count = 0;
    m->strings_size = 0;
}

const struct gc_procmap *gc_procmaps_find(const struct gc_procmaps *m, uint64_t addr)
{
    uint32_t lo = 0, hi;

    if (!m || !m->maps)
        return NULL;
    hi = m->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (addr < m->maps[mid].start)
            hi = mid;
        else if (addr >= m->maps[mid].end)
            lo = mid + 1;
        else
            return &m->maps[mid];
    }
    return NULL;
}
