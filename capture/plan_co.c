/* SPDX-License-Identifier: MIT */
/*
 * The runtime's code-object list, planned: ROCr's _amdgpu_r_debug, its link_map nodes and URI
 * strings (layouts and URI grammar: schema/gc_rocr.h), the code-object bytes (memory:// from
 * target memory, file:// through the input's read_file, as the target could read them -- never
 * with gpucore's rights), the extent of each object's PT_LOAD segments at its load address
 * (state tier) and the CODE_OBJECTS note data. All of it is hostile input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>

#include "gc_rocr.h"
#include "plan_internal.h"

#define URI_CHUNK     256u
#define IMAGE_CHUNK   (1ull << 20)
#define EM_AMDGPU_    224u

/* ---- URIs ----------------------------------------------------------------------------------- */

/* Read the NUL-terminated URI at addr in chunks (never past GC_ROCR_URI_MAX). 1 ok, 0 skipped
 * (warned), -1 fatal. */
static int read_uri(struct gc_plan_ctx *c, uint32_t n, uint64_t addr, char **ret, size_t *ret_len)
{
    char *buf;
    uint64_t off = 0;

    if (addr == 0 || addr > UINT64_MAX - GC_ROCR_URI_MAX) {
        gc_plan_warn(c, "link_map node %u: URI pointer 0x%" PRIx64 " is not valid", n, addr);
        return 0;
    }
    char what[64];

    snprintf(what, sizeof(what), "link_map node %u: URI", n);
    buf = gc_malloc(GC_ROCR_URI_MAX + 1);
    if (!buf) {
        c->fatal = GPUCORE_E_NOMEM;
        return -1;
    }
    while (off < GC_ROCR_URI_MAX) {
        uint64_t chunk = URI_CHUNK - ((addr + off) % URI_CHUNK), done = 0;
        int r;

        if (chunk > GC_ROCR_URI_MAX - off)
            chunk = GC_ROCR_URI_MAX - off;
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
                 GC_ROCR_URI_MAX);
    gc_free(buf);
    return 0;
}

/* ---- code-object bytes ---------------------------------------------------------------------- */

/* file:// bytes, through the capture's reader (as the target could read them). 1 ok, 0 not read
 * (warned, once for the object), -1 fatal. */
static int read_file_range(struct gc_plan_ctx *c, uint32_t n, const struct gc_rocr_uri *u,
                           uint8_t **ret, uint64_t *ret_size)
{
    char why[160];
    int r;

    if (!c->in->read_file) {
        gc_plan_warn(c, "code object %u: file://%.200s is not read (no reader as the target)", n,
                     u->path);
        return 0;
    }
    r = c->in->read_file(c->in->read_file_user, u->path, u->have_offset ? u->offset : 0,
                         u->have_size ? u->size : 0, ret, ret_size, why, sizeof(why));
    if (r < 0) {
        c->fatal = GPUCORE_E_NOMEM;
        return -1;
    }
    if (r == 0)
        gc_plan_warn(c,
                     "code object %u: file://%.200s not read as the target: %s; its bytes are "
                     "not in the core",
                     n, u->path, why);
    return r;
}

/* memory:// bytes, read in chunks so that an absurd size costs memory only as far as the
 * target really has the bytes. *ret_got: how many bytes from addr on are readable (all of
 * size, or the readable prefix), what the caller plans into the core: a URI whose size lies
 * must not make the core writer try to read memory the target does not have. 1 ok, 0 skipped
 * (warned), -1 fatal. */
static int read_image(struct gc_plan_ctx *c, uint32_t n, uint64_t addr, uint64_t size,
                      uint8_t **ret, uint64_t *ret_got)
{
    uint8_t *buf = NULL;
    uint64_t cap = 0, off = 0;
    char what[64];

    *ret_got = 0;
    snprintf(what, sizeof(what), "code object %u: memory image", n);
    while (off < size) {
        uint64_t chunk = size - off < IMAGE_CHUNK ? size - off : IMAGE_CHUNK;
        uint64_t done = 0;
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
        r = gc_plan_read(c, addr + off, buf + off, chunk, &done, what);
        if (r < 0) {
            gc_free(buf);
            return -1;
        }
        if (r == 0) {
            *ret_got = off + done;
            if (off + done) /* else gc_plan_read said it: nothing readable */
                gc_plan_warn(c,
                             "code object %u: memory image at 0x%" PRIx64 ": 0x%" PRIx64
                             " of the 0x%" PRIx64 " bytes its URI names are readable; only "
                             "those are captured and the object is not parsed",
                             n, addr, off + done, size);
            gc_free(buf);
            return 0;
        }
        off += chunk;
    }
    *ret_got = size;
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
    struct gc_rocr_uri u;
    gpucore_diag_t ud = { 0 };
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
    if (gc_rocr_uri_parse(uri, len, &u, &ud) != GPUCORE_OK) {
        gc_plan_warn(c,
                     "code object %u: URI '%.200s' is not a memory:// or file:// URI ROCr "
                     "writes (%s); its bytes are not captured",
                     n, uri, ud.message);
    } else if (u.kind == GC_ROCR_URI_MEMORY) {
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
            uint64_t got = 0;

            r = read_image(c, n, u.offset, u.size, &bytes, &got);
            if (r < 0)
                st = c->fatal;
            else if (got)
                st = gc_plan_want(c, GPUCORE_TIER_STATE, u.offset, got, GPUCORE_ALLOC_CODE, 0,
                                  "code-object image %u", n);
            if (r > 0)
                size = u.size;
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
    if (gc_utf8_scrub(uri, len))
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
    struct gc_rocr_walk *seen;
    struct gc_rocr_r_debug rdb;
    uint64_t rd = c->in->rinfo.r_debug, node;
    uint8_t b[GC_ROCR_R_DEBUG_SIZE];
    uint32_t n = 0;
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
    GC_TRY(gc_plan_want(c, GC_PLAN_STATE(0), rd, GC_ROCR_R_DEBUG_SIZE, GPUCORE_ALLOC_UNKNOWN, 0,
                        "r_debug"));
    r = gc_plan_read(c, rd, b, sizeof(b), NULL, "r_debug");
    if (r <= 0)
        return r < 0 ? c->fatal : GPUCORE_OK;
    gc_rocr_r_debug_decode(b, &rdb);
    if (!gc_rocr_r_version_supported(rdb.r_version)) {
        gc_plan_warn(c,
                     "r_debug at 0x%" PRIx64 ": r_version %u is not one ROCr writes (%u..%u); "
                     "link map not followed",
                     rd, rdb.r_version, GC_ROCR_R_VERSION_MIN, GC_ROCR_R_VERSION_MAX);
        return GPUCORE_OK;
    }
    c->r_version = rdb.r_version;
    if (rdb.r_state != 0)
        gc_plan_warn(c,
                     "r_debug at 0x%" PRIx64 ": r_state %u is not RT_CONSISTENT; AMD's "
                     "library will list no code objects",
                     rd, rdb.r_state);
    seen = gc_calloc_array(1, sizeof(*seen));
    if (!seen)
        return GPUCORE_E_NOMEM;
    for (node = rdb.r_map; node && st == GPUCORE_OK; n++) {
        uint8_t m[GC_ROCR_LINK_MAP_SIZE];
        struct gc_rocr_link_map lm;
        enum gc_rocr_visit v = gc_rocr_walk_visit(seen, node);

        if (v == GC_ROCR_VISIT_LIMIT) {
            gc_plan_warn(c, "link map: more than %u nodes; the rest are not followed",
                         GC_ROCR_LINK_MAP_MAX);
            break;
        }
        if (v == GC_ROCR_VISIT_CYCLE) {
            gc_plan_warn(c, "link map: node %u at 0x%" PRIx64 " was already visited (a cycle)", n,
                         node);
            break;
        }
        st = gc_plan_want(c, GC_PLAN_STATE(0), node, GC_ROCR_LINK_MAP_SIZE, GPUCORE_ALLOC_UNKNOWN,
                          0, "link_map node %u", n);
        if (st != GPUCORE_OK)
            break;
        char what[48];

        snprintf(what, sizeof(what), "link_map node %u", n);
        r = gc_plan_read(c, node, m, sizeof(m), NULL, what);
        if (r <= 0) {
            st = r < 0 ? c->fatal : GPUCORE_OK;
            break;
        }
        gc_rocr_link_map_decode(m, &lm);
        st = code_object(c, n, lm.l_addr, lm.l_name);
        node = lm.l_next;
    }
    gc_free(seen);
    return st;
}
