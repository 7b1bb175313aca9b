/* SPDX-License-Identifier: MIT */
/* The kernels a process has loaded (emu_codeobj.h). */
#include "emu_codeobj.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "gc_rocr.h"

struct kernel {
    uint64_t kd;
    char *name;
    uint64_t code_size;   /* st_size of the function symbol NAME */
    uint8_t desc[GC_EMU_KD_SIZE];
    int have_desc;
    uint8_t *code;        /* the first code_len bytes of its code, from the code object */
    size_t code_len;
};

struct object { /* a code object read once: its link-map node, bias and URI */
    uint64_t node, l_addr;
    char *uri;
};

struct gc_emu_kernels {
    struct kernel *kernels;
    size_t nkernels, kcap;
    struct object *objects;
    size_t nobjects, ocap;
};

struct gc_emu_kernels *gc_emu_kernels_new(void)
{
    return calloc(1, sizeof(struct gc_emu_kernels));
}

void gc_emu_kernels_free(struct gc_emu_kernels *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->nkernels; i++) {
        free(k->kernels[i].name);
        free(k->kernels[i].code);
    }
    for (size_t i = 0; i < k->nobjects; i++)
        free(k->objects[i].uri);
    free(k->kernels);
    free(k->objects);
    free(k);
}

static const char *find(const struct gc_emu_kernels *k, uint64_t kd)
{
    for (size_t i = 0; i < k->nkernels; i++)
        if (k->kernels[i].kd == kd)
            return k->kernels[i].name;
    return NULL;
}

static int add_kernel(struct gc_emu_kernels *k, uint64_t kd, const char *name, size_t len)
{
    char *copy;

    if (find(k, kd))
        return 0;
    if (k->nkernels >= GC_EMU_CO_MAX_KERNELS)
        return -1;
    if (k->nkernels == k->kcap) {
        size_t ncap = k->kcap ? 2 * k->kcap : 64;
        struct kernel *n = realloc(k->kernels, ncap * sizeof(*n));

        if (!n)
            return -1;
        k->kernels = n;
        k->kcap = ncap;
    }
    copy = strndup(name, len);
    if (!copy)
        return -1;
    memset(&k->kernels[k->nkernels], 0, sizeof(k->kernels[0]));
    k->kernels[k->nkernels].kd = kd;
    k->kernels[k->nkernels++].name = copy;
    return 0;
}

int gc_emu_kernels_info(const struct gc_emu_kernels *k, uint64_t kd,
                        struct gc_emu_kernel_info *ret)
{
    for (size_t i = 0; k && i < k->nkernels; i++) {
        const struct kernel *kn = &k->kernels[i];
        int64_t off;

        if (kn->kd != kd)
            continue;
        memset(ret, 0, sizeof(*ret));
        ret->name = kn->name;
        ret->have_desc = kn->have_desc;
        memcpy(ret->desc, kn->desc, sizeof(ret->desc));
        memcpy(&off, kn->desc + 16, sizeof(off)); /* kernel_code_entry_byte_offset */
        ret->entry = kd + (uint64_t)off;
        ret->code = kn->code;
        ret->code_len = kn->code_len;
        ret->code_size = kn->code_size;
        return 0;
    }
    return -1;
}

/* Bytes at virtual address @p vaddr of the ELF @p e (image @p img of @p n bytes), from the
   section that holds them: a pointer into img and the bytes available, or NULL. */
static const uint8_t *at_vaddr(Elf *e, const char *img, size_t n, uint64_t vaddr, size_t *avail)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC))
            continue;
        if (vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size)
            continue;
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset)
            return NULL;
        *avail = (size_t)(sh.sh_size - (vaddr - sh.sh_addr));
        return (const uint8_t *)img + sh.sh_offset + (vaddr - sh.sh_addr);
    }
    return NULL;
}

/* The descriptors and code of the kernels of this code object (first..nkernels). */
static void read_kernel_bytes(struct gc_emu_kernels *k, size_t first, Elf *e, const char *img,
                              size_t n, uint64_t l_addr)
{
    for (size_t i = first; i < k->nkernels; i++) {
        struct kernel *kn = &k->kernels[i];
        const uint8_t *b;
        size_t avail = 0, take;
        int64_t off;

        b = at_vaddr(e, img, n, kn->kd - l_addr, &avail);
        if (!b || avail < GC_EMU_KD_SIZE)
            continue;
        memcpy(kn->desc, b, GC_EMU_KD_SIZE);
        kn->have_desc = 1;
        memcpy(&off, kn->desc + 16, sizeof(off));
        b = at_vaddr(e, img, n, kn->kd - l_addr + (uint64_t)off, &avail);
        if (!b)
            continue;
        take = kn->code_size && kn->code_size < avail ? (size_t)kn->code_size : avail;
        if (take > GC_EMU_CODE_MAX)
            take = GC_EMU_CODE_MAX;
        kn->code = malloc(take ? take : 1);
        if (kn->code) {
            memcpy(kn->code, b, take);
            kn->code_len = take;
        }
    }
}

/* The function symbols' sizes, for the kernels of this code object (first..nkernels). */
static void set_code_sizes(struct gc_emu_kernels *k, size_t first, const char *name,
                           uint64_t size)
{
    for (size_t i = first; i < k->nkernels; i++)
        if (!strcmp(k->kernels[i].name, name))
            k->kernels[i].code_size = size;
}

/* Call @p fn for every named symbol of @p e's symbol tables, until it returns non-zero. */
static void for_each_symbol(Elf *e, int (*fn)(void *user, const GElf_Sym *sym, const char *name),
                            void *user)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;

        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        d = elf_getdata(scn, NULL);
        if (!d || !sh.sh_entsize)
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *name;

            if (!gelf_getsym(d, (int)i, &sym))
                break;
            name = elf_strptr(e, sh.sh_link, sym.st_name);
            if (name && fn(user, &sym, name))
                return;
        }
    }
}

struct symbols_ctx {
    struct gc_emu_kernels *k;
    uint64_t l_addr;
    size_t first; /* this code object's first kernel */
};

/* A "NAME.kd" symbol: a kernel descriptor at l_addr + st_value. Stops when the cache is full. */
static int add_descriptor(void *user, const GElf_Sym *sym, const char *name)
{
    struct symbols_ctx *c = user;
    size_t len = strlen(name);

    return len > 3 && !strcmp(name + len - 3, ".kd") &&
           add_kernel(c->k, c->l_addr + sym->st_value, name, len - 3) != 0;
}

/* A function symbol: the code size of the kernel of that name. */
static int add_code_size(void *user, const GElf_Sym *sym, const char *name)
{
    struct symbols_ctx *c = user;

    if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_size)
        set_code_sizes(c->k, c->first, name, sym->st_size);
    return 0;
}

/* Every "NAME.kd" symbol of the ELF image @p img (n bytes), at l_addr + st_value, with its
   code's size, descriptor and bytes. */
static void read_symbols(struct gc_emu_kernels *k, char *img, size_t n, uint64_t l_addr)
{
    struct symbols_ctx c = { k, l_addr, k->nkernels };
    Elf *e;

    if (elf_version(EV_CURRENT) == EV_NONE)
        return;
    e = elf_memory(img, n);
    if (!e)
        return;
    for_each_symbol(e, add_descriptor, &c);
    for_each_symbol(e, add_code_size, &c); /* needs every descriptor's name first */
    read_kernel_bytes(k, c.first, e, img, n, l_addr);
    elf_end(e);
}

static int known_object(const struct gc_emu_kernels *k, uint64_t node, uint64_t l_addr,
                        const char *uri)
{
    for (size_t i = 0; i < k->nobjects; i++)
        if (k->objects[i].node == node && k->objects[i].l_addr == l_addr &&
            !strcmp(k->objects[i].uri, uri))
            return 1;
    return 0;
}

static void remember_object(struct gc_emu_kernels *k, uint64_t node, uint64_t l_addr,
                            const char *uri)
{
    char *copy;

    if (k->nobjects >= GC_EMU_CO_MAX_OBJECTS)
        return;
    if (k->nobjects == k->ocap) {
        size_t ncap = k->ocap ? 2 * k->ocap : 16;
        struct object *n = realloc(k->objects, ncap * sizeof(*n));

        if (!n)
            return;
        k->objects = n;
        k->ocap = ncap;
    }
    copy = strdup(uri);
    if (!copy)
        return;
    k->objects[k->nobjects].node = node;
    k->objects[k->nobjects].l_addr = l_addr;
    k->objects[k->nobjects++].uri = copy;
}

/* Read the code object @p uri names and add its kernels. */
static void load_object(struct gc_emu_kernels *k, const struct gc_emu_co_source *src,
                        const char *uri, uint64_t l_addr)
{
    struct gc_rocr_uri *u = malloc(sizeof(*u));
    char *img = NULL;
    uint64_t size;
    int bad;

    if (!u)
        return;
    if (gc_rocr_uri_parse(uri, strlen(uri), u, NULL) != GPUCORE_OK)
        goto out;
    size = u->have_size ? u->size : 0;
    if (!size && u->kind == GC_ROCR_URI_FILE)
        size = GC_EMU_CO_MAX_BYTES; /* a whole file: read what there is, below */
    if (!size || size > GC_EMU_CO_MAX_BYTES)
        goto out;
    img = malloc(size);
    if (!img)
        goto out;
    if (u->kind == GC_ROCR_URI_MEMORY) {
        bad = src->read_mem(src->ctx, u->offset, img, size);
    } else {
        long got = src->read_file(src->ctx, u->path, u->offset, img, size);

        /* a range must be there whole; a whole file is what it holds */
        bad = got <= 0 || (u->have_size && (uint64_t)got != size);
        if (!bad)
            size = (uint64_t)got;
    }
    if (!bad)
        read_symbols(k, img, size, l_addr);
out:
    free(img);
    free(u);
}

/* The NUL-terminated string at @p addr, in chunks that never cross a page (the string may end
   just before an unmapped one): its length, cap - 1 when it is longer (or unreadable). */
static size_t read_cstr(const struct gc_emu_co_source *src, uint64_t addr, char *buf, size_t cap)
{
    size_t got = 0;

    while (got + 1 < cap) {
        size_t chunk = 4096 - (size_t)((addr + got) & 4095);
        char *nul;

        if (chunk > cap - 1 - got)
            chunk = cap - 1 - got;
        if (src->read_mem(src->ctx, addr + got, buf + got, chunk))
            break;
        nul = memchr(buf + got, '\0', chunk);
        if (nul)
            return (size_t)(nul - buf);
        got += chunk;
    }
    buf[cap - 1] = '\0';
    return cap - 1;
}

/* Walk the runtime's link map and read every code object not read yet. */
static void refresh(struct gc_emu_kernels *k, const struct gc_emu_co_source *src,
                    uint64_t r_debug)
{
    uint8_t b[GC_ROCR_R_DEBUG_SIZE > GC_ROCR_LINK_MAP_SIZE ? GC_ROCR_R_DEBUG_SIZE
                                                           : GC_ROCR_LINK_MAP_SIZE];
    struct gc_rocr_r_debug rd;
    struct gc_rocr_walk *walk;
    char *uri;
    uint64_t node;

    if (src->read_mem(src->ctx, r_debug, b, GC_ROCR_R_DEBUG_SIZE))
        return;
    gc_rocr_r_debug_decode(b, &rd);
    if (!gc_rocr_r_version_supported(rd.r_version))
        return;
    walk = calloc(1, sizeof(*walk));
    uri = malloc(GC_ROCR_URI_MAX + 1);
    for (node = rd.r_map; walk && uri && node; ) {
        struct gc_rocr_link_map lm;
        size_t len = 0;

        if (gc_rocr_walk_visit(walk, node) != GC_ROCR_VISIT_NEW ||
            src->read_mem(src->ctx, node, b, GC_ROCR_LINK_MAP_SIZE))
            break;
        gc_rocr_link_map_decode(b, &lm);
        len = read_cstr(src, lm.l_name, uri, GC_ROCR_URI_MAX + 1);
        if (len && len < GC_ROCR_URI_MAX && !known_object(k, node, lm.l_addr, uri)) {
            load_object(k, src, uri, lm.l_addr);
            remember_object(k, node, lm.l_addr, uri);
        }
        node = lm.l_next;
    }
    free(uri);
    free(walk);
}

const char *gc_emu_kernels_name(struct gc_emu_kernels *k, const struct gc_emu_co_source *src,
                                uint64_t r_debug, uint64_t kd)
{
    const char *name;

    if (!k)
        return NULL;
    name = find(k, kd);
    if (name || !r_debug)
        return name;
    refresh(k, src, r_debug);
    return find(k, kd);
}
