/* SPDX-License-Identifier: MIT */
/*
 * ROCr's r_debug, link_map, code-object URIs and amd_queue_t (gc_rocr.h): decoding, and the
 * amd_queue_t encoder of the simulated runtime; libc only.
 */
#include <stddef.h>
#include <string.h>

#include "gc_le.h"
#include "gc_rocr.h"
#include "gc_util.h"

/* A field of one of the structures: its offset in the bytes, its width (4 or 8), its offsetof in
   the host struct. Each structure is one table, which its decoder and its encoder walk. */
struct rocr_field {
    uint32_t offset, width;
    size_t member;
};

static void get_fields(const struct rocr_field *f, size_t n, const uint8_t *b, void *host)
{
    for (size_t i = 0; i < n; i++) {
        void *m = (char *)host + f[i].member;
        uint64_t v = gc_le_get(b + f[i].offset, f[i].width);

        if (f[i].width == 4)
            *(uint32_t *)m = (uint32_t)v;
        else
            *(uint64_t *)m = v;
    }
}

static void put_fields(const struct rocr_field *f, size_t n, const void *host, uint8_t *b)
{
    for (size_t i = 0; i < n; i++) {
        const void *m = (const char *)host + f[i].member;
        uint64_t v = f[i].width == 4 ? *(const uint32_t *)m : *(const uint64_t *)m;

        gc_le_put(b + f[i].offset, f[i].width, v);
    }
}

/* ---- r_debug, link_map ----------------------------------------------------------------------- */

typedef struct gc_rocr_r_debug rdebug_t;
typedef struct gc_rocr_link_map lmap_t;

static const struct rocr_field r_debug_fields[] = {
    { 0, 4, offsetof(rdebug_t, r_version) }, { 8, 8, offsetof(rdebug_t, r_map) },
    { 16, 8, offsetof(rdebug_t, r_brk) },    { 24, 4, offsetof(rdebug_t, r_state) },
    { 32, 8, offsetof(rdebug_t, r_ldbase) }, /* r_version and r_state: 4 bytes, then padding */
};

static const struct rocr_field link_map_fields[] = {
    { 0, 8, offsetof(lmap_t, l_addr) },  { 8, 8, offsetof(lmap_t, l_name) },
    { 16, 8, offsetof(lmap_t, l_ld) },   { 24, 8, offsetof(lmap_t, l_next) },
    { 32, 8, offsetof(lmap_t, l_prev) },
};

void gc_rocr_r_debug_decode(const uint8_t *b, struct gc_rocr_r_debug *ret)
{
    get_fields(r_debug_fields, GC_ARRAY_SIZE(r_debug_fields), b, ret);
}

void gc_rocr_link_map_decode(const uint8_t *b, struct gc_rocr_link_map *ret)
{
    get_fields(link_map_fields, GC_ARRAY_SIZE(link_map_fields), b, ret);
}

void gc_rocr_r_debug_encode(const struct gc_rocr_r_debug *r, uint8_t *b)
{
    put_fields(r_debug_fields, GC_ARRAY_SIZE(r_debug_fields), r, b);
}

void gc_rocr_link_map_encode(const struct gc_rocr_link_map *m, uint8_t *b)
{
    put_fields(link_map_fields, GC_ARRAY_SIZE(link_map_fields), m, b);
}

int gc_rocr_r_version_supported(uint32_t r_version)
{
    return r_version >= GC_ROCR_R_VERSION_MIN && r_version <= GC_ROCR_R_VERSION_MAX;
}

/* ---- amd_queue_t ----------------------------------------------------------------------------- */

typedef struct gc_rocr_amd_queue amdq_t;

/* One row per field of struct gc_rocr_amd_queue. */
static const struct rocr_field amdq_fields[] = {
    { GC_ROCR_AMDQ_TYPE, 4, offsetof(amdq_t, type) },
    { GC_ROCR_AMDQ_FEATURES, 4, offsetof(amdq_t, features) },
    { GC_ROCR_AMDQ_BASE_ADDRESS, 8, offsetof(amdq_t, base_address) },
    { GC_ROCR_AMDQ_RING_PACKETS, 4, offsetof(amdq_t, ring_packets) },
    { GC_ROCR_AMDQ_ID, 8, offsetof(amdq_t, id) },
    { GC_ROCR_AMDQ_WRITE_DISPATCH_ID, 8, offsetof(amdq_t, write_dispatch_id) },
    { GC_ROCR_AMDQ_MAX_CU_ID, 4, offsetof(amdq_t, max_cu_id) },
    { GC_ROCR_AMDQ_MAX_WAVE_ID, 4, offsetof(amdq_t, max_wave_id) },
    { GC_ROCR_AMDQ_READ_DISPATCH_ID, 8, offsetof(amdq_t, read_dispatch_id) },
    { GC_ROCR_AMDQ_READ_DISPATCH_ID_BASE_OFFSET, 4,
      offsetof(amdq_t, read_dispatch_id_field_base_byte_offset) },
    { GC_ROCR_AMDQ_COMPUTE_TMPRING_SIZE, 4, offsetof(amdq_t, compute_tmpring_size) },
    { GC_ROCR_AMDQ_SCRATCH_LOCATION, 8, offsetof(amdq_t, scratch_location) },
    { GC_ROCR_AMDQ_SCRATCH_BYTE_SIZE, 8, offsetof(amdq_t, scratch_byte_size) },
    { GC_ROCR_AMDQ_SCRATCH_WORKITEM_SIZE, 4, offsetof(amdq_t, scratch_workitem_byte_size) },
    { GC_ROCR_AMDQ_QUEUE_PROPERTIES, 4, offsetof(amdq_t, queue_properties) },
};

gpucore_status_t gc_rocr_amd_queue_decode(const uint8_t *b, size_t n, struct gc_rocr_amd_queue *ret)
{
    if (!b || !ret)
        return GPUCORE_E_INVAL;
    if (n < GC_ROCR_AMDQ_SIZE)
        return GPUCORE_E_TRUNCATED;
    get_fields(amdq_fields, GC_ARRAY_SIZE(amdq_fields), b, ret);
    return GPUCORE_OK;
}

void gc_rocr_amd_queue_encode(const struct gc_rocr_amd_queue *q, uint8_t *b)
{
    put_fields(amdq_fields, GC_ARRAY_SIZE(amdq_fields), q, b);
}

int gc_rocr_amd_queue_at(uint64_t read_pointer_address, uint64_t *ret_base)
{
    if (read_pointer_address < GC_ROCR_AMDQ_READ_DISPATCH_ID)
        return 0;
    *ret_base = read_pointer_address - GC_ROCR_AMDQ_READ_DISPATCH_ID;
    return 1;
}

int gc_rocr_amd_queue_lines(uint64_t read_pointer_address, uint64_t *ret_lo, uint64_t *ret_size)
{
    uint64_t base;

    if (!gc_rocr_amd_queue_at(read_pointer_address, &base))
        return 0;
    *ret_lo = base & ~(uint64_t)(GC_ROCR_AMDQ_LINE - 1);
    *ret_size = GC_ROCR_AMDQ_SIZE + GC_ROCR_AMDQ_LINE;
    return 1;
}

int gc_rocr_amd_queue_has_stride(uint32_t r_version)
{
    return r_version != 0 && r_version < GC_ROCR_AMDQ_STRIDE_GONE_R_VERSION;
}

/* ---- URIs ------------------------------------------------------------------------------------ */

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* An unsigned number (decimal or 0x hex) that fills [s, e) exactly. */
static int parse_u64(const char *s, const char *e, uint64_t *ret)
{
    uint64_t v = 0, base = 10;

    if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (s >= e)
        return 0;
    for (; s < e; s++) {
        int d = hexval(*s);

        if (d < 0 || (uint64_t)d >= base)
            return 0;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return 0;
        v = v * base + (uint64_t)d;
    }
    *ret = v;
    return 1;
}

/* The fragment [s, e): "offset=N&size=N", each at most once. */
static gpucore_status_t parse_params(const char *text, const char *s, const char *e,
                                     struct gc_rocr_uri *u, gpucore_diag_t *diag)
{
    static const struct {
        const char *key;
        size_t len;
        size_t value, have; /* offsetof in struct gc_rocr_uri */
    } params[] = {
        { "offset=", 7, offsetof(struct gc_rocr_uri, offset),
          offsetof(struct gc_rocr_uri, have_offset) },
        { "size=", 5, offsetof(struct gc_rocr_uri, size), offsetof(struct gc_rocr_uri, have_size) },
    };

    while (s < e) {
        const char *amp = memchr(s, '&', (size_t)(e - s));
        const char *end = amp ? amp : e;
        size_t i;

        for (i = 0; i < GC_ARRAY_SIZE(params); i++)
            if ((size_t)(end - s) >= params[i].len && !memcmp(s, params[i].key, params[i].len))
                break;
        GC_FAIL_IF(i == GC_ARRAY_SIZE(params), diag, GPUCORE_E_CORRUPT, (uint64_t)(s - text),
                   "URI parameter is not offset=N or size=N");
        int *have = (int *)(void *)((char *)u + params[i].have);
        GC_FAIL_IF(*have, diag, GPUCORE_E_CORRUPT, (uint64_t)(s - text),
                   "URI parameter %.*s given twice", (int)params[i].len - 1, params[i].key);
        GC_FAIL_IF(!parse_u64(s + params[i].len, end,
                              (uint64_t *)(void *)((char *)u + params[i].value)),
                   diag, GPUCORE_E_CORRUPT, (uint64_t)(s + params[i].len - text),
                   "URI parameter %.*s is not a 64-bit number", (int)params[i].len - 1,
                   params[i].key);
        *have = 1;
        s = amp ? amp + 1 : e;
        GC_FAIL_IF(amp && s == e, diag, GPUCORE_E_CORRUPT, (uint64_t)(s - text),
                   "URI ends with '&'");
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_rocr_uri_parse(const char *text, size_t len, struct gc_rocr_uri *u,
                                   gpucore_diag_t *diag)
{
    const char *e, *p, *hash;

    GC_FAIL_IF(!text || !u, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_rocr_uri_parse needs a text and a result");
    e = text + len;
    memset(u, 0, sizeof(*u));
    GC_FAIL_IF(memchr(text, '\0', len), diag, GPUCORE_E_CORRUPT,
               (uint64_t)((const char *)memchr(text, '\0', len) - text), "NUL inside the URI");
    if (len >= 9 && !memcmp(text, "memory://", 9)) {
        p = text + 9;
        hash = memchr(p, '#', (size_t)(e - p));
        u->kind = GC_ROCR_URI_MEMORY;
        GC_FAIL_IF(!hash, diag, GPUCORE_E_CORRUPT, len, "memory:// URI has no #offset=N&size=N");
        GC_FAIL_IF(!parse_u64(p, hash, &u->pid), diag, GPUCORE_E_CORRUPT, 9,
                   "memory:// URI does not start with a process id");
        GC_TRY(parse_params(text, hash + 1, e, u, diag));
        GC_FAIL_IF(!u->have_offset || !u->have_size, diag, GPUCORE_E_CORRUPT,
                   (uint64_t)(hash + 1 - text), "memory:// URI lacks offset= or size=");
        return GPUCORE_OK;
    }
    GC_FAIL_IF(len < 7 || memcmp(text, "file://", 7) != 0, diag, GPUCORE_E_CORRUPT, 0,
               "not a memory:// or file:// URI");
    u->kind = GC_ROCR_URI_FILE;
    p = text + 7;
    hash = memchr(p, '#', (size_t)(e - p));
    {
        const char *end = hash ? hash : e;
        size_t o = 0;

        while (p < end) {
            const char *at = p;
            char ch = *p++;

            if (ch == '%' && end - p >= 2 && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
                ch = (char)(hexval(p[0]) << 4 | hexval(p[1]));
                p += 2;
            }
            GC_FAIL_IF(ch == '\0', diag, GPUCORE_E_CORRUPT, (uint64_t)(at - text),
                       "file:// path holds an encoded NUL");
            GC_FAIL_IF(o >= GC_ROCR_URI_MAX, diag, GPUCORE_E_CORRUPT, (uint64_t)(at - text),
                       "file:// path longer than %u bytes", GC_ROCR_URI_MAX);
            u->path[o++] = ch;
        }
        u->path[o] = '\0';
        GC_FAIL_IF(o == 0, diag, GPUCORE_E_CORRUPT, 7, "file:// URI has an empty path");
    }
    if (hash)
        GC_TRY(parse_params(text, hash + 1, e, u, diag));
    return GPUCORE_OK;
}

/* ---- link-map walk ---------------------------------------------------------------------------- */

enum gc_rocr_visit gc_rocr_walk_visit(struct gc_rocr_walk *w, uint64_t addr)
{
    const uint32_t mask = 2 * GC_ROCR_LINK_MAP_MAX - 1;
    /* Fibonacci hashing of the address; nodes are at least 8-byte aligned */
    uint32_t i = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & mask;

    if (addr == 0) /* ends a list: nothing to record */
        return GC_ROCR_VISIT_NEW;
    for (;;) {
        if (w->slot[i] == addr)
            return GC_ROCR_VISIT_CYCLE;
        if (w->slot[i] == 0)
            break;
        i = (i + 1) & mask;
    }
    if (w->count >= GC_ROCR_LINK_MAP_MAX)
        return GC_ROCR_VISIT_LIMIT;
    w->slot[i] = addr;
    w->count++;
    return GC_ROCR_VISIT_NEW;
}
