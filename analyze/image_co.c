/* SPDX-License-Identifier: MIT */
/*
 * Code objects of the image: the r_debug link map (core-format.md 8.3), the bytes of each code
 * object (memory:// from the core, the GPUCORE embedded copy, or the file:// path), and their
 * symbols (libelf over the bytes).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "gc_le.h"
#include "image_internal.h"

#define LINK_MAP_SIZE 40u
#define URI_CHUNK     64u

/* ---- URIs ------------------------------------------------------------------------------------ */

struct uri {
    int memory; /* 1 memory://, 0 file://, -1 other */
    char path[1024];
    uint64_t offset, size;
    int have_offset, have_size;
};

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
        uint64_t d;

        if (*s >= '0' && *s <= '9')
            d = (uint64_t)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (uint64_t)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (uint64_t)(*s - 'A' + 10);
        else
            return 0;
        if (v > (UINT64_MAX - d) / base)
            return 0;
        v = v * base + d;
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

/* "offset=N&size=N" after '#'. 0 if malformed. */
static int parse_params(const char *s, struct uri *u)
{
    while (*s) {
        const char *amp = strchr(s, '&');
        const char *end = amp ? amp : s + strlen(s);
        const char *eq = memchr(s, '=', (size_t)(end - s));

        if (!eq)
            return 0;
        if ((size_t)(eq - s) == 6 && !memcmp(s, "offset", 6)) {
            if (!parse_u64(eq + 1, end, &u->offset))
                return 0;
            u->have_offset = 1;
        } else if ((size_t)(eq - s) == 4 && !memcmp(s, "size", 4)) {
            if (!parse_u64(eq + 1, end, &u->size))
                return 0;
            u->have_size = 1;
        }
        s = amp ? amp + 1 : end;
    }
    return 1;
}

static int parse_uri(const char *s, struct uri *u)
{
    memset(u, 0, sizeof(*u));
    u->memory = -1;
    if (!strncmp(s, "memory://", 9)) {
        const char *hash = strchr(s + 9, '#');

        u->memory = 1;
        return hash && parse_params(hash + 1, u) && u->have_offset && u->have_size;
    }
    if (!strncmp(s, "file://", 7)) {
        const char *p = s + 7, *hash = strchr(p, '#');
        const char *end = hash ? hash : p + strlen(p);
        size_t o = 0;

        u->memory = 0;
        while (p < end) {
            char ch = *p++;

            if (ch == '%' && end - p >= 2 && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
                ch = (char)(hexval(p[0]) * 16 + hexval(p[1]));
                p += 2;
            }
            if (ch == '\0' || o + 1 >= sizeof(u->path))
                return 0;
            u->path[o++] = ch;
        }
        u->path[o] = '\0';
        return o > 0 && (!hash || parse_params(hash + 1, u));
    }
    return 0;
}

/* ---- bytes ----------------------------------------------------------------------------------- */

/* Read a file range (whole file when !have_size). 1 read, 0 unavailable, <0 NOMEM. */
static int read_file_range(const struct uri *u, uint64_t max_total, uint8_t **ret,
                           uint64_t *ret_size)
{
    int fd = open(u->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    uint64_t off = u->have_offset ? u->offset : 0, size;
    uint8_t *buf;

    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < off) {
        close(fd);
        return 0;
    }
    size = u->have_size ? u->size : (uint64_t)st.st_size - off;
    if (size == 0 || size > GC_IMAGE_MAX_CODE_OBJECT_SIZE || size > (uint64_t)st.st_size - off ||
        size > max_total) {
        close(fd);
        return 0;
    }
    buf = gc_malloc(size);
    if (!buf) {
        close(fd);
        return -1;
    }
    uint64_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, buf + done, size - done, (off_t)(off + done));

        if (n <= 0)
            break;
        done += (uint64_t)n;
    }
    close(fd);
    if (done != size) {
        gc_free(buf);
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

/* Bytes of code object @p co: memory, embedded, file, or missing. */
static gpucore_status_t find_bytes(struct gc_image *img, struct gc_image_code_object *co,
                                   struct gc_image_co_priv *cp)
{
    struct uri u;
    int ok = parse_uri(co->uri, &u);
    const gpucore_code_object_t *emb;

    co->source = "missing";
    if (ok && u.memory == 1 && u.size > GC_IMAGE_MAX_CODE_BYTES - img->code_bytes)
        return gc_image_problemf(img,
                                 "code object %u (%.200s): the code objects exceed %llu "
                                 "bytes in all; not loaded",
                                 co->index, co->uri, (unsigned long long)GC_IMAGE_MAX_CODE_BYTES);
    if (ok && u.memory == 1 && u.size > 0 && u.size <= GC_IMAGE_MAX_CODE_OBJECT_SIZE) {
        uint8_t *buf = gc_malloc(u.size);

        if (!buf)
            return GPUCORE_E_NOMEM;
        gpucore_status_t st = gc_image_mem_read(img, u.offset, buf, u.size, NULL);
        if (st == GPUCORE_OK) {
            img->code_bytes += u.size;
            cp->owned = buf;
            co->bytes = buf;
            co->size = u.size;
            co->source = "memory";
            return GPUCORE_OK;
        }
        gc_free(buf);
        if (st == GPUCORE_E_NOMEM)
            return st;
    }
    emb = embedded_copy(img, co->uri, co->load_address);
    if (emb) {
        co->bytes = emb->bytes;
        co->size = emb->bytes_size;
        co->source = "embedded";
        return GPUCORE_OK;
    }
    if (ok && u.memory == 0) {
        uint8_t *buf = NULL;
        uint64_t size = 0;
        int r = read_file_range(&u, GC_IMAGE_MAX_CODE_BYTES - img->code_bytes, &buf, &size);

        if (r < 0)
            return GPUCORE_E_NOMEM;
        if (r > 0) {
            img->code_bytes += size;
            cp->owned = buf;
            co->bytes = buf;
            co->size = size;
            co->source = "file";
            return GPUCORE_OK;
        }
    }
    return gc_image_problemf(img,
                             "code object %u (%.200s): bytes are neither in the core nor "
                             "embedded%s",
                             co->index, co->uri,
                             ok && u.memory == 0 ? " and the file is not readable here" : "");
}

/* ---- ELF: extent and symbols ---------------------------------------------------------------- */

static gpucore_status_t parse_elf(struct gc_image *img, struct gc_image_code_object *co,
                                  struct gc_image_co_priv *cp)
{
    Elf *e;
    size_t phnum = 0;
    Elf_Scn *scn = NULL;
    gpucore_status_t st = GPUCORE_OK;

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
        if (co->size > GC_IMAGE_MAX_CODE_BYTES - img->code_bytes)
            return gc_image_problemf(img,
                                     "code object %u (%.200s): the code objects exceed "
                                     "%llu bytes in all; no symbols",
                                     co->index, co->uri,
                                     (unsigned long long)GC_IMAGE_MAX_CODE_BYTES);
        img->code_bytes += co->size;
        cp->owned = gc_malloc((size_t)co->size);
        if (!cp->owned)
            return GPUCORE_E_NOMEM;
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
        for (size_t k = 0; k < n && cp->nsyms < GC_IMAGE_MAX_SYMBOLS; k++) {
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
            struct gc_image_symbol *s = gc_image_grow((void **)&cp->syms, &cp->nsyms, &cp->cap_syms,
                                                      sizeof(*s), GC_IMAGE_MAX_SYMBOLS);
            if (!s) {
                st = GPUCORE_E_NOMEM;
                break;
            }
            s->addr = co->load_address + sym.st_value;
            s->size = sym.st_size;
            s->is_func = type == STT_FUNC;
            s->name = gc_strdup(name);
            if (!s->name) {
                cp->nsyms--;
                st = GPUCORE_E_NOMEM;
            }
        }
    }
    elf_end(e);
    return st;
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
    uint64_t node = img->r_map;
    uint32_t count = 0;

    while (node) {
        uint8_t lm[LINK_MAP_SIZE];
        char uri[1024];

        if (count++ >= GC_IMAGE_MAX_CODE_OBJECTS)
            return gc_image_problemf(img,
                                     "the link map has more than %u nodes (a loop?); the "
                                     "rest is ignored",
                                     GC_IMAGE_MAX_CODE_OBJECTS);
        gpucore_status_t st = gc_image_mem_read(img, node, lm, sizeof(lm), NULL);
        if (st == GPUCORE_E_NOMEM)
            return st;
        if (st != GPUCORE_OK)
            return gc_image_problemf(img,
                                     "link_map node at 0x%" PRIx64 " is not in the core; "
                                     "the code-object list ends there",
                                     node);
        int r = read_string(img, gc_le64_get(lm + 8), uri, sizeof(uri));
        if (r < 0)
            return GPUCORE_E_NOMEM;
        if (r == 0)
            GC_TRY(gc_image_problemf(img,
                                     "URI of link_map node 0x%" PRIx64 " at 0x%" PRIx64
                                     " is not in the core or not terminated",
                                     node, gc_le64_get(lm + 8)));
        else
            GC_TRY(add_code_object(img, uri, gc_le64_get(lm)));
        node = gc_le64_get(lm + 24);
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_image_load_code_objects(struct gc_image *img)
{
    if (img->have_rdebug)
        return walk_link_map(img);
    if (!img->embedded)
        return GPUCORE_OK;
    /* no r_debug: the capture's own list of what the link map held */
    for (uint32_t i = 0; i < img->embedded->count; i++) {
        const gpucore_code_object_t *o = &img->embedded->objects[i];

        GC_TRY(add_code_object(img, o->uri.ptr ? o->uri.ptr : "", o->load_address));
    }
    return GPUCORE_OK;
}

void gc_image_free_code_objects(struct gc_image *img)
{
    for (uint32_t i = 0; i < img->ncos; i++) {
        struct gc_image_co_priv *cp = &img->copriv[i];

        for (uint32_t k = 0; k < cp->nsyms; k++)
            gc_free(cp->syms[k].name);
        gc_free(cp->syms);
        gc_free(cp->owned);
    }
    gc_free(img->copriv);
    gc_free(img->cos);
}

uint32_t gc_image_code_object_at(const struct gc_image *img, uint64_t addr)
{
    for (uint32_t i = 0; i < img->ncos; i++)
        if (img->copriv[i].hi && addr >= img->copriv[i].lo && addr < img->copriv[i].hi)
            return i;
    return UINT32_MAX;
}

void gc_image_kernel_name(const struct gc_image *img, uint64_t kd, uint64_t entry, char *buf,
                          size_t size)
{
    buf[0] = '\0';
    for (uint32_t i = 0; i < img->ncos; i++) {
        const struct gc_image_co_priv *cp = &img->copriv[i];

        for (uint32_t k = 0; k < cp->nsyms; k++) {
            const struct gc_image_symbol *s = &cp->syms[k];
            size_t len = strlen(s->name);

            if (!s->is_func && kd && s->addr == kd && len > 3 &&
                !strcmp(s->name + len - 3, ".kd")) {
                snprintf(buf, size, "%.*s", (int)(len - 3), s->name);
                return;
            }
        }
    }
    for (uint32_t i = 0; entry && i < img->ncos; i++) {
        const struct gc_image_co_priv *cp = &img->copriv[i];

        for (uint32_t k = 0; k < cp->nsyms; k++)
            if (cp->syms[k].is_func && cp->syms[k].addr == entry) {
                snprintf(buf, size, "%s", cp->syms[k].name);
                return;
            }
    }
}

gpucore_status_t gc_image_symbolize(const struct gc_image *img, uint64_t pc, char *name,
                                    size_t name_size, uint64_t *ret_offset)
{
    const struct gc_image_symbol *best = NULL;

    if (!img || !name || !name_size)
        return GPUCORE_E_INVAL;
    for (uint32_t i = 0; i < img->ncos; i++) {
        const struct gc_image_co_priv *cp = &img->copriv[i];

        for (uint32_t k = 0; k < cp->nsyms; k++) {
            const struct gc_image_symbol *s = &cp->syms[k];

            if (!s->is_func || pc < s->addr)
                continue;
            if (s->size ? pc - s->addr >= s->size : pc != s->addr)
                continue;
            if (!best || s->addr > best->addr)
                best = s;
        }
    }
    if (!best)
        return GPUCORE_E_NOTFOUND;
    snprintf(name, name_size, "%s", best->name);
    if (ret_offset)
        *ret_offset = pc - best->addr;
    return GPUCORE_OK;
}
