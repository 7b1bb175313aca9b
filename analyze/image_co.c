/* SPDX-License-Identifier: MIT */
/*
 * Code objects of the image: the r_debug link map (layouts and URI grammar: schema/gc_rocr.h),
 * the bytes of each code object (memory:// from the core, the GPUCORE embedded copy, or -- only
 * when the caller names a code-object directory -- the file:// path below it), and their
 * symbols (libelf over the bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "gc_le.h"
#include "gc_rocr.h"
#include "image_internal.h"
#include "open_below.h"

#define URI_CHUNK  64u
#define EM_AMDGPU_ 224u

/* ---- bytes ----------------------------------------------------------------------------------- */

/* The file:// range (whole file without size=) below the code-object directory, an AMDGPU ELF
 * file only. 1 read, 0 not (why says), <0 NOMEM. */
static int read_file_range(struct gc_image *img, const struct gc_rocr_uri *u, uint8_t **ret,
                           uint64_t *ret_size, char *why, size_t why_size)
{
    uint64_t off = u->have_offset ? u->offset : 0, size, done = 0;
    uint8_t hdr[64], *buf;
    struct stat st;
    int fd = gc_open_below(img->code_object_dir, "--code-object-path", u->path, &st, why, why_size);

    if (fd < 0)
        return 0;
    size = u->have_size ? u->size : (uint64_t)st.st_size - off;
    if ((uint64_t)st.st_size < off || size == 0 || size > (uint64_t)st.st_size - off) {
        snprintf(why, why_size, "%s", "the file does not hold the range the URI names");
        close(fd);
        return 0;
    }
    if (size > GC_IMAGE_MAX_CODE_OBJECT_SIZE || size > GC_IMAGE_MAX_CODE_BYTES - img->code_bytes) {
        snprintf(why, why_size, "0x%" PRIx64 " bytes exceed what the analyzer loads", size);
        close(fd);
        return 0;
    }
    if (size < sizeof(hdr) || pread(fd, hdr, sizeof(hdr), (off_t)off) != (ssize_t)sizeof(hdr) ||
        memcmp(hdr, ELFMAG, SELFMAG) || hdr[EI_CLASS] != ELFCLASS64 ||
        hdr[EI_DATA] != ELFDATA2LSB || gc_le16_get(hdr + 18) != EM_AMDGPU_) {
        snprintf(why, why_size, "%s", "the file is not an AMDGPU ELF64 code object");
        close(fd);
        return 0;
    }
    if (!gc_image_charge(img, size)) {
        snprintf(why, why_size, "%s", gc_image_budget_words(img));
        close(fd);
        return 0;
    }
    buf = gc_malloc(size);
    if (!buf) {
        gc_image_uncharge(img, size);
        close(fd);
        return -1;
    }
    while (done < size) {
        ssize_t n = pread(fd, buf + done, size - done, (off_t)(off + done));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (uint64_t)n;
    }
    close(fd);
    if (done != size) {
        snprintf(why, why_size, "%s", "the file ended before the range the URI names");
        gc_free(buf);
        gc_image_uncharge(img, size);
        return 0;
    }
    *ret = buf;
    *ret_size = size;
    return 1;
}

static const gpucore_code_object_t *embedded_copy(const struct gc_image *img, const char *uri,
                                                  uint64_t load_address)
{
    if (!img->embedded)
        return NULL;
    for (uint32_t i = 0; i < img->embedded->count; i++) {
        const gpucore_code_object_t *o = &img->embedded->objects[i];

        if (o->load_address == load_address && o->uri.ptr && !strcmp(o->uri.ptr, uri) &&
            (o->flags & GPUCORE_CODE_OBJECT_EMBEDDED) && o->bytes && o->bytes_size)
            return o;
    }
    return NULL;
}

/* Code object @p co's bytes do not fit the memory budget: said, and left out. */
static gpucore_status_t not_loaded(struct gc_image *img, struct gc_image_code_object *co)
{
    co->source = "missing";
    return gc_image_problemf(img, "code object %u (%.200s): its bytes are not loaded: %s",
                             co->index, co->uri, gc_image_budget_words(img));
}

/* Bytes of code object @p co: memory, embedded, file (only below the code-object directory),
   or missing (a problem says why). Bytes the image copies are charged to the memory budget. */
static gpucore_status_t find_bytes(struct gc_image *img, struct gc_image_code_object *co,
                                   struct gc_image_co_priv *cp)
{
    struct gc_rocr_uri *u = gc_malloc(sizeof(*u));
    gpucore_diag_t ud = { 0 };
    const gpucore_code_object_t *emb;
    char why[320] = "";
    gpucore_status_t st = GPUCORE_OK;
    int ok;

    if (!u)
        return GPUCORE_E_NOMEM;
    ok = gc_rocr_uri_parse(co->uri, strlen(co->uri), u, &ud) == GPUCORE_OK;
    co->source = "missing";
    if (!ok) {
        snprintf(why, sizeof(why), "the URI is not one ROCr writes (%.200s)", ud.message);
    } else if (u->kind == GC_ROCR_URI_MEMORY) {
        if (u->size == 0 || u->size > GC_IMAGE_MAX_CODE_OBJECT_SIZE) {
            snprintf(why, sizeof(why), "%s", "its memory:// size is 0 or too large");
        } else if (u->size > img->code_budget - img->core_code_bytes) {
            snprintf(why, sizeof(why),
                     "the code objects would exceed 0x%" PRIx64 " bytes, what the core holds "
                     "(the link map names the same bytes again and again?)",
                     img->code_budget);
        } else if (u->size > GC_IMAGE_MAX_CODE_BYTES - img->code_bytes) {
            snprintf(why, sizeof(why), "the code objects would exceed %llu bytes in all",
                     (unsigned long long)GC_IMAGE_MAX_CODE_BYTES);
        } else if (!gc_image_charge(img, u->size)) {
            gc_free(u);
            return not_loaded(img, co);
        } else {
            uint8_t *buf = gc_malloc(u->size);

            if (!buf) {
                gc_image_uncharge(img, u->size);
                gc_free(u);
                return GPUCORE_E_NOMEM;
            }
            st = gc_image_mem_read(img, u->offset, buf, u->size, NULL);
            if (st == GPUCORE_OK) {
                img->code_bytes += u->size;
                img->core_code_bytes += u->size;
                cp->owned = buf;
                cp->owned_size = u->size;
                co->bytes = buf;
                co->size = u->size;
                co->source = "memory";
                gc_free(u);
                return GPUCORE_OK;
            }
            gc_free(buf);
            gc_image_uncharge(img, u->size);
            if (st == GPUCORE_E_NOMEM) {
                gc_free(u);
                return st;
            }
            snprintf(why, sizeof(why), "%s", "its memory:// range is not in the core");
        }
    }
    emb = embedded_copy(img, co->uri, co->load_address);
    if (emb) {
        co->bytes = emb->bytes;
        co->size = emb->bytes_size;
        co->source = "embedded";
        gc_free(u);
        return GPUCORE_OK;
    }
    if (ok && u->kind == GC_ROCR_URI_FILE && !img->code_object_dir) {
        snprintf(why, sizeof(why), "%s", "file:// URI not opened; use --code-object-path");
    } else if (ok && u->kind == GC_ROCR_URI_FILE) {
        uint8_t *buf = NULL;
        uint64_t size = 0;
        int r = read_file_range(img, u, &buf, &size, why, sizeof(why));

        if (r < 0) {
            gc_free(u);
            return GPUCORE_E_NOMEM;
        }
        if (r > 0) {
            img->code_bytes += size;
            cp->owned = buf;
            cp->owned_size = size;
            co->bytes = buf;
            co->size = size;
            co->source = "file";
            gc_free(u);
            return GPUCORE_OK;
        }
    }
    gc_free(u);
    return gc_image_problemf(img,
                             "code object %u (%.200s): bytes are neither in the core nor "
                             "embedded: %s",
                             co->index, co->uri, why);
}

/* ---- symbols: which ones are kept, and their indexes ---------------------------------------- */

/* What one range costs in an index (interval.h: the range, and at most four tree slots, the
   tree having 2 * size <= 4 n of them): charged with each symbol kept. */
#define IX_ENTRY_COST (sizeof(struct gc_iv) + 4u * sizeof(uint64_t))

/* The memory budget refused code object @p co's symbols from its @p kept-th on. */
static gpucore_status_t symbols_not_kept(struct gc_image *img,
                                         const struct gc_image_code_object *co, uint32_t kept)
{
    GC_TRY(gc_image_problemf(img,
                             "code object %u (%.200s): its symbols from the %u-th on are not "
                             "kept: %s",
                             co->index, co->uri, kept, gc_image_budget_words(img)));
    return GPUCORE_E_LIMIT;
}

/*
 * Keep a symbol of code object @p co if a lookup needs it (image_internal.h): a function, or
 * an object named "NAME.kd" (kept as NAME). Charged to the memory budget; a refusal is said
 * once for the code object and ends its symbols (GPUCORE_E_LIMIT).
 */
static gpucore_status_t add_symbol(struct gc_image *img, const struct gc_image_code_object *co,
                                   int is_func, uint64_t addr, uint64_t size, const char *name,
                                   uint32_t *kept)
{
    size_t len = strlen(name);
    struct gc_image_symbol *s;
    gpucore_status_t st;

    if (!is_func) {
        if (len <= 3 || strcmp(name + len - 3, ".kd") != 0)
            return GPUCORE_OK;
        len -= 3;
    }
    /* its name, and its entry in the index built once every code object is in, so that a
       symbol kept is always looked up */
    if (!gc_image_charge(img, len + 1 + IX_ENTRY_COST))
        return symbols_not_kept(img, co, *kept);
    if (is_func)
        s = gc_image_grow_charged(img, (void **)&img->funcs, &img->nfuncs, &img->cap_funcs,
                                  sizeof(*s), UINT32_MAX, &st);
    else
        s = gc_image_grow_charged(img, (void **)&img->kds, &img->nkds, &img->cap_kds,
                                  sizeof(*s), UINT32_MAX, &st);
    if (!s) {
        gc_image_uncharge(img, len + 1 + IX_ENTRY_COST);
        return st == GPUCORE_E_LIMIT ? symbols_not_kept(img, co, *kept) : st;
    }
    s->addr = addr;
    s->size = size;
    s->name = gc_malloc(len + 1);
    if (!s->name) {
        gc_image_uncharge(img, len + 1 + IX_ENTRY_COST);
        if (is_func)
            img->nfuncs--;
        else
            img->nkds--;
        return GPUCORE_E_NOMEM;
    }
    memcpy(s->name, name, len);
    s->name[len] = '\0';
    (*kept)++;
    return GPUCORE_OK;
}

/* ---- ELF: extent and symbols ---------------------------------------------------------------- */

static gpucore_status_t parse_elf(struct gc_image *img, struct gc_image_code_object *co,
                                  struct gc_image_co_priv *cp)
{
    Elf *e;
    size_t phnum = 0;
    Elf_Scn *scn = NULL;
    gpucore_status_t st = GPUCORE_OK;
    uint32_t kept = 0; /* symbols kept of this code object */

    if (!co->bytes || co->size > SIZE_MAX)
        return GPUCORE_OK;
    /* libelf converts foreign byte orders in place: only native ELF64 LSB images go to it */
    if (co->size < EI_NIDENT || memcmp(co->bytes, ELFMAG, SELFMAG) ||
        co->bytes[EI_CLASS] != ELFCLASS64 || co->bytes[EI_DATA] != ELFDATA2LSB)
        return gc_image_problemf(img,
                                 "code object %u (%.200s) is not an ELF64 little-endian "
                                 "image",
                                 co->index, co->uri);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return GPUCORE_OK;
    /* on the image's own copy: elf_memory may write to the buffer it is given */
    if (!cp->owned) {
        if (co->size > img->code_budget - img->core_code_bytes ||
            co->size > GC_IMAGE_MAX_CODE_BYTES - img->code_bytes)
            return gc_image_problemf(img,
                                     "code object %u (%.200s): the code objects would exceed "
                                     "what the core holds or %llu bytes in all; no symbols",
                                     co->index, co->uri,
                                     (unsigned long long)GC_IMAGE_MAX_CODE_BYTES);
        if (!gc_image_charge(img, co->size))
            return gc_image_problemf(img, "code object %u (%.200s): no symbols: %s", co->index,
                                     co->uri, gc_image_budget_words(img));
        img->code_bytes += co->size;
        img->core_code_bytes += co->size;
        cp->owned = gc_malloc((size_t)co->size);
        if (!cp->owned)
            return GPUCORE_E_NOMEM;
        cp->owned_size = co->size;
        memcpy(cp->owned, co->bytes, (size_t)co->size);
    }
    e = elf_memory((char *)cp->owned, (size_t)co->size);
    if (!e || elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64) {
        if (e)
            elf_end(e);
        return gc_image_problemf(img, "code object %u (%.200s) does not open as an ELF image",
                                 co->index, co->uri);
    }
    if (elf_getphdrnum(e, &phnum) == 0) {
        for (size_t i = 0; i < phnum && i < 4096; i++) {
            GElf_Phdr ph;

            if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz)
                continue;
            if (ph.p_vaddr > UINT64_MAX - ph.p_memsz ||
                ph.p_vaddr + ph.p_memsz > UINT64_MAX - co->load_address)
                continue;
            uint64_t lo = co->load_address + ph.p_vaddr, hi = lo + ph.p_memsz;
            if (!cp->hi || lo < cp->lo)
                cp->lo = lo;
            if (hi > cp->hi)
                cp->hi = hi;
        }
    }
    while ((scn = elf_nextscn(e, scn)) != NULL && st == GPUCORE_OK) {
        GElf_Shdr sh;
        Elf_Data *data;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        data = elf_getdata(scn, NULL);
        if (!data || !data->d_buf)
            continue;
        size_t n = data->d_size / sh.sh_entsize;
        for (size_t k = 0; k < n && kept < GC_IMAGE_MAX_SYMBOLS && st == GPUCORE_OK; k++) {
            GElf_Sym sym;
            const char *name;

            if (!gelf_getsym(data, (int)k, &sym))
                break;
            int type = GELF_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_OBJECT) || sym.st_shndx == SHN_UNDEF)
                continue;
            name = elf_strptr(e, sh.sh_link, sym.st_name);
            if (!name || !*name || sym.st_value > UINT64_MAX - co->load_address)
                continue;
            st = add_symbol(img, co, type == STT_FUNC, co->load_address + sym.st_value,
                            sym.st_size, name, &kept);
        }
    }
    elf_end(e);
    return st == GPUCORE_E_LIMIT ? GPUCORE_OK : st;
}

/* ---- symbol indexes --------------------------------------------------------------------- */

/* Index @p n ranges made by @p fill into @p ix, charged unless @p charged (the symbols':
   add_symbol() charged their entries): GPUCORE_OK (the index stays empty, and a problem says
   so, when the budget refuses it). */
static gpucore_status_t index_ranges(struct gc_image *img, struct gc_iv_index *ix, uint32_t n,
                                     void (*fill)(const struct gc_image *, struct gc_iv *),
                                     int charged, const char *what)
{
    struct gc_iv *v;

    if (!n)
        return GPUCORE_OK;
    if (!charged && !gc_image_charge(img, gc_iv_cost(n)))
        return gc_image_problemf(img, "%s are not indexed, so not looked up: %s", what,
                                 gc_image_budget_words(img));
    v = gc_calloc_array(n, sizeof(*v));
    if (!v)
        return GPUCORE_E_NOMEM;
    fill(img, v);
    return gc_iv_build(ix, v, n);
}

/* A function covers [addr, addr + size) (its own address when size is 0); a descriptor is
   found at its address; a code object covers its loaded extent. */
static void fill_funcs(const struct gc_image *img, struct gc_iv *v)
{
    for (uint32_t i = 0; i < img->nfuncs; i++) {
        const struct gc_image_symbol *s = &img->funcs[i];

        v[i].lo = s->addr;
        v[i].last = !s->size ? s->addr : s->size - 1 > UINT64_MAX - s->addr ? UINT64_MAX
                                                                           : s->addr + s->size - 1;
        v[i].id = i;
    }
}

static void fill_kds(const struct gc_image *img, struct gc_iv *v)
{
    for (uint32_t i = 0; i < img->nkds; i++)
        v[i] = (struct gc_iv){ img->kds[i].addr, img->kds[i].addr, i };
}

static void fill_cos(const struct gc_image *img, struct gc_iv *v)
{
    for (uint32_t i = 0, k = 0; i < img->ncos; i++)
        if (img->copriv[i].hi)
            v[k++] = (struct gc_iv){ img->copriv[i].lo, img->copriv[i].hi - 1, i };
}

static gpucore_status_t index_symbols(struct gc_image *img)
{
    uint32_t ncos = 0;

    for (uint32_t i = 0; i < img->ncos; i++)
        ncos += img->copriv[i].hi != 0;
    GC_TRY(index_ranges(img, &img->func_ix, img->nfuncs, fill_funcs, 1, "the function symbols"));
    GC_TRY(index_ranges(img, &img->kd_ix, img->nkds, fill_kds, 1, "the kernel descriptors"));
    return index_ranges(img, &img->co_ix, ncos, fill_cos, 0, "the code objects' extents");
}

/* ---- the list -------------------------------------------------------------------------------- */

static gpucore_status_t add_code_object(struct gc_image *img, const char *uri, uint64_t load)
{
    uint32_t n = img->ncos, cap = img->cap_cos;
    struct gc_image_code_object *co = gc_image_grow((void **)&img->cos, &img->ncos, &img->cap_cos,
                                                    sizeof(*co), GC_IMAGE_MAX_CODE_OBJECTS);
    if (!co)
        return GPUCORE_E_NOMEM;
    uint32_t pn = n, pcap = cap;
    struct gc_image_co_priv *cp = gc_image_grow((void **)&img->copriv, &pn, &pcap, sizeof(*cp),
                                                GC_IMAGE_MAX_CODE_OBJECTS);
    if (!cp) {
        img->ncos--;
        return GPUCORE_E_NOMEM;
    }
    co->index = n;
    snprintf(co->uri, sizeof(co->uri), "%s", uri);
    co->load_address = load;
    if (img->flags & GC_IMAGE_NO_CODE_BYTES) {
        co->source = "not loaded";
        return GPUCORE_OK;
    }
    GC_TRY(find_bytes(img, co, cp));
    return parse_elf(img, co, cp);
}

/* Read a NUL-terminated string of at most @p size - 1 bytes. 1 complete, 0 not, <0 NOMEM. */
static int read_string(struct gc_image *img, uint64_t addr, char *buf, size_t size)
{
    size_t o = 0;

    while (o + 1 < size) {
        uint8_t chunk[URI_CHUNK];
        uint64_t done = 0;
        size_t want = sizeof(chunk);

        if (want > size - 1 - o)
            want = size - 1 - o;
        if (addr > UINT64_MAX - o)
            return 0;
        gpucore_status_t st = gc_image_mem_read(img, addr + o, chunk, want, &done);
        if (st == GPUCORE_E_NOMEM)
            return -1;
        if (st != GPUCORE_OK && st != GPUCORE_E_UNAVAILABLE)
            return 0;
        for (uint64_t k = 0; k < done; k++) {
            buf[o++] = (char)chunk[k];
            if (!chunk[k])
                return 1;
        }
        if (done < want)
            return 0;
    }
    buf[size - 1] = '\0';
    return 0;
}

static gpucore_status_t walk_link_map(struct gc_image *img)
{
    struct gc_rocr_walk *seen = gc_calloc_array(1, sizeof(*seen));
    uint64_t node = img->r_map;
    gpucore_status_t st = GPUCORE_OK;

    if (!seen)
        return GPUCORE_E_NOMEM;
    while (node && st == GPUCORE_OK) {
        uint8_t lm[GC_ROCR_LINK_MAP_SIZE];
        struct gc_rocr_link_map m;
        char uri[1024];
        enum gc_rocr_visit v = gc_rocr_walk_visit(seen, node);

        if (v == GC_ROCR_VISIT_CYCLE) {
            st = gc_image_problemf(img,
                                   "link_map node at 0x%" PRIx64 " was visited before: the "
                                   "link map loops; the list ends there",
                                   node);
            break;
        }
        if (v == GC_ROCR_VISIT_LIMIT) {
            st = gc_image_problemf(img, "the link map has more than %u nodes; the rest is ignored",
                                   GC_ROCR_LINK_MAP_MAX);
            break;
        }
        st = gc_image_mem_read(img, node, lm, sizeof(lm), NULL);
        if (st == GPUCORE_E_NOMEM)
            break;
        if (st != GPUCORE_OK) {
            st = gc_image_problemf(img,
                                   "link_map node at 0x%" PRIx64 " is not in the core; "
                                   "the code-object list ends there",
                                   node);
            break;
        }
        gc_rocr_link_map_decode(lm, &m);
        int r = read_string(img, m.l_name, uri, sizeof(uri));
        if (r < 0)
            st = GPUCORE_E_NOMEM;
        else if (r == 0)
            st = gc_image_problemf(img,
                                   "URI of link_map node 0x%" PRIx64 " at 0x%" PRIx64
                                   " is not in the core or not terminated",
                                   node, m.l_name);
        else
            st = add_code_object(img, uri, m.l_addr);
        node = m.l_next;
    }
    gc_free(seen);
    return st;
}

gpucore_status_t gc_image_load_code_objects(struct gc_image *img)
{
    if (img->have_rdebug) {
        GC_TRY(walk_link_map(img));
    } else {
        /* no r_debug: the capture's own list of what the link map held */
        for (uint32_t i = 0; img->embedded && i < img->embedded->count; i++) {
            const gpucore_code_object_t *o = &img->embedded->objects[i];

            if (i == GC_IMAGE_MAX_CODE_OBJECTS) {
                GC_TRY(gc_image_problemf(img,
                                         "the embedded list has %u code objects; the first %u "
                                         "are read",
                                         img->embedded->count, GC_IMAGE_MAX_CODE_OBJECTS));
                break;
            }
            GC_TRY(add_code_object(img, o->uri.ptr ? o->uri.ptr : "", o->load_address));
        }
    }
    return index_symbols(img);
}

void gc_image_free_code_objects(struct gc_image *img)
{
    for (uint32_t i = 0; i < img->ncos; i++)
        gc_free(img->copriv[i].owned);
    for (uint32_t i = 0; i < img->nfuncs; i++)
        gc_free(img->funcs[i].name);
    for (uint32_t i = 0; i < img->nkds; i++)
        gc_free(img->kds[i].name);
    gc_free(img->funcs);
    gc_free(img->kds);
    gc_iv_free(&img->func_ix);
    gc_iv_free(&img->kd_ix);
    gc_iv_free(&img->co_ix);
    gc_free(img->copriv);
    gc_free(img->cos);
}

uint32_t gc_image_code_object_at(const struct gc_image *img, uint64_t addr)
{
    return img ? gc_iv_find(&img->co_ix, addr) : UINT32_MAX;
}

const char *gc_image_kernel_name(const struct gc_image *img, uint64_t kd, uint64_t entry)
{
    uint32_t i = kd ? gc_iv_find_lo(&img->kd_ix, kd) : UINT32_MAX;

    if (i != UINT32_MAX)
        return img->kds[i].name;
    i = entry ? gc_iv_find_lo(&img->func_ix, entry) : UINT32_MAX;
    return i != UINT32_MAX ? img->funcs[i].name : "";
}

gpucore_status_t gc_image_symbolize(const struct gc_image *img, uint64_t pc, char *name,
                                    size_t name_size, uint64_t *ret_offset)
{
    uint32_t i;

    if (!img || !name || !name_size)
        return GPUCORE_E_INVAL;
    i = gc_iv_find(&img->func_ix, pc);
    if (i == UINT32_MAX)
        return GPUCORE_E_NOTFOUND;
    snprintf(name, name_size, "%s", img->funcs[i].name);
    if (ret_offset)
        *ret_offset = pc - img->funcs[i].addr;
    return GPUCORE_OK;
}
