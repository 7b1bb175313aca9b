/* SPDX-License-Identifier: MIT */
/*
 * The runtime's code-object list, planned: ROCr's _amdgpu_r_debug, its link_map nodes and URI
 * strings (core-format.md 8.3), the code-object bytes (memory:// from target memory, file://
 * from the file system), the extent of each object's PT_LOAD segments at its load address
 * (state tier) and the CODE_OBJECTS note data. All of it is hostile input.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "gc_le.h"
#include "plan_internal.h"

#define R_DEBUG_SIZE  40u
#define LINK_MAP_SIZE 40u
#define URI_CHUNK     256u
#define IMAGE_CHUNK   (1ull << 20)
#define R_VERSION_MIN 8u
#define R_VERSION_MAX 12u
#define EM_AMDGPU_    224u

/* ---- UTF-8 ---------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp, min;

    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

uint32_t gc_plan_utf8_sanitize(char *s, size_t len)
{
    unsigned char *u = (unsigned char *)s;
    uint32_t bad = 0;
    size_t i = 0;

    while (i < len) {
        size_t n = utf8_seq(u + i, len - i);

        if (n == 0) {
            u[i++] = '?';
            bad++;
        } else {
            i += n;
        }
    }
    return bad;
}

/* ---- URIs ----------------------------------------------------------------------------------- */

struct uri {
    int memory;      /* 1 memory://, 0 file:// */
    char path[4096]; /* file:// (percent-decoded) */
    uint64_t pid;        /* memory:// */
    uint64_t offset, size;
    int have_offset, have_size;
};

/* Parse an unsigned number (decimal or 0x hex) that fills [s, e) exactly. */
static int parse_u64(const char *s, const char *e, uint64_t *ret)
{
    uint64_t v = 0;
    int base = 10;

    if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (s == e)
        return 0;
    for (; s < e; s++) {
        unsigned d;

        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return 0;
        if (v > (UINT64_MAX - d) / (uint64_t)base)
            return 0;
        v = v * (uint64_t)base + d;
    }
    *ret = v;
    return 1;
}

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

/* "offset=N&size=N" (either order, both optional here). */
static int parse_params(const char *s, struct uri *u)
{
    while (*s) {
        const char *amp = strchr(s, '&');
        const char *end = amp ? amp : s + strlen(s);

        if (end - s > 7 && strncmp(s, "offset=", 7) == 0 && !u->have_offset) {
            if (!parse_u64(s + 7, end, &u->offset))
                return 0;
            u->have_offset = 1;
        } else if (end - s > 5 && strncmp(s, "size=", 5) == 0 && !u->have_size) {
            if (!parse_u64(s + 5, end, &u->size))
                return 0;
            u->have_size = 1;
        } else {
            return 0;
        }
        s = amp ? amp + 1 : end;
    }
    return 1;
}

/* memory://PID#offset=0x..&size=N  or  file://PATH[#offset=N&size=N]. 0 = not understood. */
static int parse_uri(const char *text, struct uri *u)
{
    memset(u, 0, sizeof(*u));
    if (strncmp(text, "memory://", 9) == 0) {
        const char *hash = strchr(text + 9, '#');
        u->memory = 1;
        return hash && parse_u64(text + 9, hash, &u->pid) && parse_params(hash + 1, u) &&
               u->have_offset && u->have_size;
    }
    if (strncmp(text, "file://", 7) == 0) {
        const char *p = text + 7, *hash = strchr(p, '#');
        const char *end = hash ? hash : p + strlen(p);
        size_t n = 0;

        for (; p < end; p++) {
            char ch = *p;

            if (ch == '%' && end - p >= 3 && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
                ch = (char)(hexval(p[1]) << 4 | hexval(p[2]));
                p += 2;
            }
            if (ch == '\0' || n + 1 >= sizeof(u->path))
                return 0;
            u->path[n++] = ch;
        }
        u->path[n] = '\0';
        return n > 0 && (!hash || parse_params(hash + 1, u));
    }
    return 0;
}

/* Read the NUL-terminated URI at addr in chunks (never past GC_PLAN_MAX_URI). 1 ok, 0 skipped
 * (warned), -1 fatal. */
static int read_uri(struct gc_plan_ctx *c, uint32_t n, uint64_t addr, char **ret, size_t *ret_len)
{
    char *buf;
    uint64_t off = 0;

    if (addr == 0 || addr > UINT64_MAX - GC_PLAN_MAX_URI) {
        gc_plan_warn(c, "link_map node %u: URI pointer 0x%" PRIx64 " is not valid", n, addr);
        return 0;
    }
    char what[64];

    snprintf(what, sizeof(what), "link_map node %u: URI", n);
    buf = gc_malloc(GC_PLAN_MAX_URI + 1);
    if (!buf) {
        c->fatal = GPUCORE_E_NOMEM;
        return -1;
    }
    while (off < GC_PLAN_MAX_URI) {
        uint64_t chunk = URI_CHUNK - ((addr + off) % URI_CHUNK), done = 0;
        int r;

        if (chunk > GC_PLAN_MAX_URI - off)
            chunk = GC_PLAN_MAX_URI - off;
        r = gc_plan_read(c, addr + off, buf + off, chunk, &done, what);
        if (r < 0) {
            gc_free(buf);
            return -1;
        }
        char *nul = memchr(buf + off, '\0', (size_t)done);
        if (nul) {
            *ret = buf;
            *ret_len = (size_t)(nul - buf);
            return 1;
        }
        if (done < chunk) {
            gc_plan_warn(c,
                         "link_map node %u: URI at 0x%" PRIx64 " is unreadable at 0x%" PRIx64
                         " before its end",
                         n, addr, addr + off + done);
            gc_free(buf);
            return 0;
        }
        off += chunk;
    }
    gc_plan_warn(c, "link_map node %u: URI at 0x%" PRIx64 " has no NUL within %u bytes", n, addr,
                 GC_PLAN_MAX_URI);
    gc_free(buf);
    return 0;
}

/* ---- code-object bytes ---------------------------------------------------------------------- */

static int read_file_range(struct gc_plan_ctx *c, uint32_t n, const struct uri *u, uint8_t **ret,
                           uint64_t *ret_size)
{
    struct stat sb;
    uint64_t off = u->have_offset ? u->offset : 0, size;
    uint8_t *buf;
    int fd = open(u->path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        gc_plan_warn(c, "code object %u: %s: %s", n, u->path, strerror(errno));
        return 0;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size < off) {
        gc_plan_warn(c, "code object %u: %s is not a regular file holding offset 0x%" PRIx64, n,
                     u->path, off);
        close(fd);
        return 0;
    }
    size = u->have_size ? u->size : (uint64_t)sb.st_size - off;
    if (size == 0 || size > (uint64_t)sb.st_size - off || size > GC_PLAN_MAX_CODE_OBJECT) {
        gc_plan_warn(c,
                     "code object %u: %s: 0x%" PRIx64 " bytes at offset 0x%" PRIx64
                     " are not in the file or too many",
                     n, u->path, size, off);
        close(fd);
        return 0;
    }
    buf = gc_malloc(size);
    if (!buf) {
        close(fd);
        c->fatal = GPUCORE_E_NOMEM;
        return -1;
    }
    for (uint64_t done = 0; done < size;) {
        ssize_t k = pread(fd, buf + done, (size_t)(size - done), (off_t)(off + done));

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            gc_plan_warn(c, "code object %u: %s: short read at 0x%" PRIx64, n, u->path, off + done);
            gc_free(buf);
            close(fd);
            return 0;
        }
        done += (uint64_t)k;
    }
    close(fd);
    *ret = buf;
    *ret_size = size;
    return 1;
}

/* memory:// bytes, read in chunks so that an absurd size costs memory only as far as the
 * target really has the bytes. 1 ok, 0 skipped (warned), -1 fatal. */
static int read_image(struct gc_plan_ctx *c, uint32_t n, uint64_t addr, uint64_t size,
                      uint8_t **ret)
{
    uint8_t *buf = NULL;
    uint64_t cap = 0, off = 0;
    char what[64];

    snprintf(what, sizeof(what), "code object %u: memory image", n);
    while (off < size) {
        uint64_t chunk = size - off < IMAGE_CHUNK ? size - off : IMAGE_CHUNK;
        int r;

        if (off + chunk > cap) {
            uint64_t ncap = cap ? cap * 2 : chunk;
            uint8_t *nb;

            ncap = ncap > size ? size : ncap < off + chunk ? off + chunk : ncap;
            nb = gc_realloc_array(buf, (size_t)ncap, 1);
            if (!nb) {
                gc_free(buf);
                c->fatal = GPUCORE_E_NOMEM;
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        r = gc_plan_read(c, addr + off, buf + off, chunk, NULL, what);
        if (r <= 0) {
            gc_free(buf);
            return r;
        }
        off += chunk;
    }
    *ret = buf;
    return 1;
}

/* Extent [min vaddr, max vaddr + memsz) of the PT_LOAD segments. 1 found, 0 not (warned). */
static int load_extent(struct gc_plan_ctx *c, uint32_t n, uint8_t *bytes, uint64_t size,
                       uint64_t *ret_lo, uint64_t *ret_hi)
{
    Elf *e = elf_memory((char *)bytes, (size_t)size);
    GElf_Ehdr eh;
    size_t phnum = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    int ok = 0;

    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &phnum) != 0) {
        gc_plan_warn(c, "code object %u: not an ELF file (%s)", n, elf_errmsg(-1));
        goto out;
    }
    if (eh.e_machine != EM_AMDGPU_)
        gc_plan_warn(c, "code object %u: ELF machine %u is not AMDGPU", n, eh.e_machine);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;

        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_memsz > UINT64_MAX - ph.p_vaddr) {
            gc_plan_warn(c, "code object %u: PT_LOAD %zu wraps the address space", n, i);
            goto out;
        }
        lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
        hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
    }
    if (hi == 0) {
        gc_plan_warn(c, "code object %u: no PT_LOAD segment", n);
        goto out;
    }
    if (hi - lo > GC_PLAN_MAX_LOAD_EXTENT) {
        gc_plan_warn(c,
                     "code object %u: PT_LOAD segments span 0x%" PRIx64 " bytes; not "
                     "captured",
                     n, hi - lo);
        goto out;
    }
    *ret_lo = lo;
    *ret_hi = hi;
    ok = 1;
out:
    if (e)
        elf_end(e);
    return ok;
}

static gpucore_status_t add_object(struct gc_plan_ctx *c, gpucore_code_object_t *co)
{
    gpucore_code_objects_t *cos = &c->p->code_objects;

    if (cos->count == c->co_cap) {
        uint32_t n = c->co_cap ? c->co_cap * 2 : 8;
        gpucore_code_object_t *o = gc_realloc_array(cos->objects, n, sizeof(*o));

        if (!o)
            return GPUCORE_E_NOMEM;
        cos->objects = o;
        c->co_cap = n;
    }
    cos->objects[cos->count++] = *co;
    return GPUCORE_OK;
}

static gpucore_status_t code_object(struct gc_plan_ctx *c, uint32_t n, uint64_t l_addr,
                                    uint64_t l_name)
{
    gpucore_code_object_t co;
    struct uri u;
    char *uri = NULL;
    size_t len = 0;
    uint8_t *bytes = NULL;
    uint64_t size = 0, lo, hi;
    gpucore_status_t st = GPUCORE_OK;
    int r = read_uri(c, n, l_name, &uri, &len);

    if (r <= 0)
        return r < 0 ? c->fatal : GPUCORE_OK;
    GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), l_name, len + 1, GPUCORE_ALLOC_UNKNOWN, 0,
                        "code-object URI %u", n));
    if (!parse_uri(uri, &u)) {
        gc_plan_warn(c,
                     "code object %u: URI '%.200s' is not a memory:// or file:// URI ROCr "
                     "writes; its bytes are not captured",
                     n, uri);
    } else if (u.memory) {
        if (c->in->pid && u.pid != c->in->pid)
            gc_plan_warn(c,
                         "code object %u: its memory URI names pid %" PRIu64 ", not the target's "
                         "%u; GDB will not load it from the core",
                         n, u.pid, c->in->pid);
        if (u.size == 0 || u.size > GC_PLAN_MAX_CODE_OBJECT || u.offset == 0 ||
            u.size > UINT64_MAX - u.offset) {
            gc_plan_warn(c,
                         "code object %u: memory URI names 0x%" PRIx64 " bytes at 0x%" PRIx64
                         "; not captured",
                         n, u.size, u.offset);
        } else {
            st = gc_plan_want(c, GPUCORE_TIER_STATE, u.offset, u.size, GPUCORE_ALLOC_CODE, 0,
                              "code-object image %u", n);
            if (st == GPUCORE_OK) {
                r = read_image(c, n, u.offset, u.size, &bytes);
                if (r < 0)
                    st = c->fatal;
                else if (r > 0)
                    size = u.size;
            }
        }
    } else {
        r = read_file_range(c, n, &u, &bytes, &size);
        if (r < 0)
            st = c->fatal;
    }
    if (st == GPUCORE_OK && bytes && load_extent(c, n, bytes, size, &lo, &hi)) {
        if (lo > UINT64_MAX - l_addr || hi - lo > UINT64_MAX - (l_addr + lo))
            gc_plan_warn(c,
                         "code object %u: load address 0x%" PRIx64 " puts it past the end "
                         "of the address space",
                         n, l_addr);
        else
            st = gc_plan_want(c, GPUCORE_TIER_STATE, l_addr + lo, hi - lo, GPUCORE_ALLOC_CODE, 0,
                              "code object %u, loaded", n);
    }
    if (st != GPUCORE_OK) {
        gc_free(bytes);
        gc_free(uri);
        return st;
    }

    memset(&co, 0, sizeof(co));
    co.load_address = l_addr;
    if (gc_plan_utf8_sanitize(uri, len))
        gc_plan_warn(c, "code object %u: URI is not valid UTF-8; bytes replaced with '?'", n);
    co.uri.ptr = uri;
    co.uri.len = (uint32_t)len;
    if (bytes) {
        co.size = size;
        if (c->embed_left >= size) {
            co.flags = GPUCORE_CODE_OBJECT_EMBEDDED;
            co.bytes = bytes;
            co.bytes_size = size;
            c->embed_left -= size;
        } else if (c->embed_left > 0) {
            uint8_t *b = gc_realloc_array(bytes, (size_t)c->embed_left, 1);

            gc_plan_warn(c,
                         "code object %u: the embedding limit keeps 0x%" PRIx64 " of 0x%" PRIx64
                         " bytes",
                         n, c->embed_left, size);
            co.flags = GPUCORE_CODE_OBJECT_TRUNCATED;
            co.bytes = b ? b : bytes;
            co.bytes_size = c->embed_left;
            c->embed_left = 0;
        } else {
            gc_plan_warn(c,
                         "code object %u: the embedding limit is used up; bytes not "
                         "embedded",
                         n);
            gc_free(bytes);
        }
    }
    st = add_object(c, &co);
    if (st != GPUCORE_OK) {
        gc_free((void *)(uintptr_t)co.bytes);
        gc_free(uri);
    }
    return st;
}

/* ---- r_debug and the link map --------------------------------------------------------------- */

gpucore_status_t gc_plan_runtime(struct gc_plan_ctx *c)
{
    struct gc_rangeset seen = GC_RANGESET_INIT;
    uint64_t rd = c->in->rinfo.r_debug, node;
    uint8_t b[R_DEBUG_SIZE];
    uint32_t version, state, n = 0;
    gpucore_status_t st = GPUCORE_OK;
    int r;

    if (rd == 0) {
        gc_plan_warn(c, "the runtime did not report r_debug: no code objects captured");
        return GPUCORE_OK;
    }
    if (elf_version(EV_CURRENT) == EV_NONE) {
        gc_plan_warn(c, "libelf is unusable: code objects not parsed");
        return GPUCORE_OK;
    }
    GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), rd, R_DEBUG_SIZE, GPUCORE_ALLOC_UNKNOWN, 0,
                        "r_debug"));
    r = gc_plan_read(c, rd, b, sizeof(b), NULL, "r_debug");
    if (r <= 0)
        return r < 0 ? c->fatal : GPUCORE_OK;
    version = gc_le32_get(b);
    state = gc_le32_get(b + 24);
    if (version < R_VERSION_MIN || version > R_VERSION_MAX) {
        gc_plan_warn(c,
                     "r_debug at 0x%" PRIx64 ": r_version %u is not one ROCr writes (%u..%u); "
                     "link map not followed",
                     rd, version, R_VERSION_MIN, R_VERSION_MAX);
        return GPUCORE_OK;
    }
    c->r_version = version;
    if (state != 0)
        gc_plan_warn(c,
                     "r_debug at 0x%" PRIx64 ": r_state %u is not RT_CONSISTENT; AMD's "
                     "library will list no code objects",
                     rd, state);
    for (node = gc_le64_get(b + 8); node && st == GPUCORE_OK; n++) {
        uint8_t m[LINK_MAP_SIZE];

        if (n >= GC_PLAN_MAX_LINK_MAP) {
            gc_plan_warn(c, "link map: more than %u nodes; the rest are not followed",
                         GC_PLAN_MAX_LINK_MAP);
            break;
        }
        if (gc_rangeset_overlaps(&seen, node, 1)) {
            gc_plan_warn(c, "link map: node %u at 0x%" PRIx64 " was already visited (a cycle)", n,
                         node);
            break;
        }
        st = gc_rangeset_add(&seen, node, 1);
        if (st == GPUCORE_OK)
            st = gc_plan_want(c, GC_PLAN_STATE(0), node, LINK_MAP_SIZE, GPUCORE_ALLOC_UNKNOWN, 0,
                              "link_map node %u", n);
        if (st != GPUCORE_OK)
            break;
        char what[48];

        snprintf(what, sizeof(what), "link_map node %u", n);
        r = gc_plan_read(c, node, m, sizeof(m), NULL, what);
        if (r <= 0) {
            st = r < 0 ? c->fatal : GPUCORE_OK;
            break;
        }
        st = code_object(c, n, gc_le64_get(m), gc_le64_get(m + 8));
        node = gc_le64_get(m + 24);
    }
    gc_rangeset_free(&seen);
    return st;
}
