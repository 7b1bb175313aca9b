/* SPDX-License-Identifier: MIT */
/*
 * Lays out a scenario's process image in this process (see layout.h). Field offsets follow
 * docs/core-format.md §8; the CWSR records are arch's encoder output, so the bytes a debugger reads
 * are produced by the same code that defines the hardware layout, never hand-placed here.
 */
#include "layout.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "arch_regs.h"
#include "gc_util.h"
#include "wave.h"

#define PAGE 4096ull

/* ROCr's hidden dispatch-packet header: KERNEL_DISPATCH (2), barrier, system-scope fences. */
#define AQL_DISPATCH_HEADER (2u | (1u << 8) | (2u << 9) | (2u << 11))
#define AQL_INVALID_HEADER  1u

__attribute__((noinline)) void gc_sim_loader_debug_state(void)
{
    /* An empty function ROCr's loader calls after changing the link map; the asm keeps the
       compiler from folding it into its callers or merging it with another empty function. */
    __asm__ volatile("" ::: "memory");
}

static void put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* ------------------------------------------------------------------------------------------ */
/* Ground truth                                                                                */
/* ------------------------------------------------------------------------------------------ */

static int override(const struct gc_scen_waves *w, uint32_t kind, uint32_t reg, uint32_t lane,
                    uint32_t *v)
{
    int hit = 0;

    /* Later entries win, and a per-lane value beats an all-lanes one given before it. */
    for (uint32_t i = 0; i < w->noverrides; i++) {
        const struct gc_scen_reg_override *o = &w->overrides[i];

        if (o->kind == kind && o->reg == reg && (o->lane < 0 || (uint32_t)o->lane == lane)) {
            *v = o->value;
            hit = 1;
        }
    }
    return hit;
}

static uint32_t reg_value(const struct gc_scen_waves *w, uint32_t kind, uint32_t uid,
                          uint32_t reg, uint32_t lane)
{
    uint32_t v;

    if (override(w, kind, reg, lane, &v))
        return v;
    return w->fill_zero ? 0 : gc_scen_fill(w->fill_seed, kind, uid, reg, lane);
}

uint32_t gc_sim_layout_sgpr(const struct gc_scen_waves *w, uint32_t uid, uint32_t reg)
{
    return reg_value(w, GC_SCEN_KIND_SGPR, uid, reg, 0);
}

uint32_t gc_sim_layout_vgpr(const struct gc_scen_waves *w, uint32_t uid, uint32_t reg,
                            uint32_t lane)
{
    return reg_value(w, GC_SCEN_KIND_VGPR, uid, reg, lane);
}

uint32_t gc_sim_layout_accvgpr(const struct gc_scen_waves *w, uint32_t uid, uint32_t reg,
                               uint32_t lane)
{
    return w->fill_zero ? 0 : gc_scen_fill(w->fill_seed, GC_SCEN_KIND_ACCVGPR, uid, reg, lane);
}

uint32_t gc_sim_layout_mem(enum gc_scen_pattern p, uint32_t seed, uint32_t kind, uint64_t k)
{
    switch (p) {
    case GC_SCEN_PAT_SEQUENCE:
        return (uint32_t)k;
    case GC_SCEN_PAT_RANDOM:
        return gc_scen_fill(seed, kind, (uint32_t)(k >> 32), (uint32_t)k, 0);
    default:
        return 0;
    }
}

uint32_t gc_sim_layout_lds(const struct gc_scen_waves *w, uint32_t leader_uid, uint32_t k)
{
    if (w->lds_pattern == GC_SCEN_PAT_RANDOM)
        return gc_scen_fill(w->lds_seed, GC_SCEN_KIND_LDS, leader_uid, k, 0);
    return gc_sim_layout_mem(w->lds_pattern, w->lds_seed, GC_SCEN_KIND_LDS, k);
}

void gc_sim_layout_reg_counts(const struct gc_arch *arch, const struct gc_scen_dispatch *d,
                              uint32_t *vgprs, uint32_t *accvgprs, uint32_t *sgprs)
{
    *vgprs = d->vgprs ? d->vgprs : 8;
    /* gfx908 saves as many AccVGPRs as arch VGPRs whatever the kernel uses. */
    if (arch->cwsr->acc_rule == GC_ACC_SAME_AS_ARCH)
        *accvgprs = *vgprs;
    else if (arch->cwsr->acc_rule == GC_ACC_ACCUM_OFFSET)
        *accvgprs = d->accvgprs;
    else
        *accvgprs = 0;
    /* gfx10+ always save a fixed SGPR block; gfx9 saves the allocation (96 is a typical
       compiler allocation of 112 minus the 16 TTMP-sized granule). */
    *sgprs = arch->cwsr->sgpr_fixed ? arch->cwsr->sgpr_fixed : (d->sgprs ? d->sgprs : 96);
}

/* ------------------------------------------------------------------------------------------ */
/* Mappings                                                                                    */
/* ------------------------------------------------------------------------------------------ */

struct lctx {
    struct gc_sim_layout *l;
    const struct gc_scenario *s;
    gpucore_diag_t *diag;
};

static gpucore_status_t lfail(struct lctx *c, gpucore_status_t st, const char *fmt, ...)
    GC_PRINTF(3, 4);
static gpucore_status_t lfail(struct lctx *c, gpucore_status_t st, const char *fmt, ...)
{
    char msg[220];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return gc_diag_set(c->diag, st, GC_NO_OFFSET, "%s: %s", c->s->path, msg);
}

/* Room in l->maps for one more mapping to unmap with the image. */
static gpucore_status_t reserve_map_slot(struct gc_sim_layout *l)
{
    if (l->nmaps == l->capmaps) {
        uint32_t n = l->capmaps ? l->capmaps * 2 : 64;
        struct gc_sim_layout_mapping *m = gc_realloc_array(l->maps, n, sizeof(*m));

        if (!m)
            return GPUCORE_E_NOMEM;
        l->maps = m;
        l->capmaps = n;
    }
    return GPUCORE_OK;
}

/*
 * Map @p size bytes (rounded to pages) at @p want (0 = anywhere). NORESERVE because device
 * buffers and scratch are mostly untouched: only pages the scenario writes become resident, so
 * a 16 GiB buffer costs what its pattern ranges cost.
 */
static gpucore_status_t map(struct lctx *c, uint64_t want, uint64_t size, const char *what,
                            uint8_t **ret)
{
    struct gc_sim_layout *l = c->l;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p;

    size = align_up(size ? size : 1, PAGE);
    if (want)
        flags |= MAP_FIXED_NOREPLACE;
    GC_TRY(reserve_map_slot(l));
    p = mmap((void *)(uintptr_t)want, (size_t)size, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
        return lfail(c, errno == EEXIST ? GPUCORE_E_EXIST : GPUCORE_E_NOMEM,
                     "%s: cannot map 0x%" PRIx64 " bytes at 0x%" PRIx64 ": %s", what, size,
                     want, strerror(errno));
    if (want && (uint64_t)(uintptr_t)p != want) {
        /* Kernels before 4.17 ignore MAP_FIXED_NOREPLACE and treat it as a hint. */
        munmap(p, (size_t)size);
        return lfail(c, GPUCORE_E_EXIST, "%s: address 0x%" PRIx64 " is taken", what, want);
    }
    l->maps[l->nmaps++] = (struct gc_sim_layout_mapping){ p, (size_t)size };
    *ret = p;
    return GPUCORE_OK;
}

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/*
 * The simulated device's virtual address space. A GPU VA allocator (libhsakmt's fmm) hands out
 * addresses from apertures it reserved, not wherever mmap lands, and so does this one: device
 * allocations without a fixed address are carved in creation order from a PROT_NONE
 * reservation, each followed by an inaccessible guard page. The image then has the same shape
 * on every run, whatever other threads map meanwhile -- a capture merges adjacent ranges, so
 * its manifest would otherwise depend on where mmap happened to put each buffer -- and a read
 * running off the end of one allocation faults instead of landing in the next. A reservation
 * that cannot hold the next allocation is left as it is and a new one is made.
 */
#define DEVICE_VA_CHUNK (64ull << 30)

static gpucore_status_t device_va(struct lctx *c, uint64_t size, const char *what, uint64_t *ret)
{
    struct gc_sim_layout *l = c->l;
    uint64_t need = size + PAGE;

    if (!l->va || l->va_size - l->va_used < need) {
        uint64_t span = need > DEVICE_VA_CHUNK ? need : DEVICE_VA_CHUNK;
        void *p;

        GC_TRY(reserve_map_slot(l));
        p = mmap(NULL, (size_t)span, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

        if (p == MAP_FAILED)
            return lfail(c, GPUCORE_E_NOMEM, "%s: cannot reserve 0x%" PRIx64 " bytes of device "
                         "address space: %s", what, span, strerror(errno));
        /* Never in a host core, as the kernel leaves out VRAM; unmapped with the image. */
        (void)madvise(p, (size_t)span, MADV_DONTDUMP);
        l->maps[l->nmaps++] = (struct gc_sim_layout_mapping){ p, (size_t)span };
        l->va = p;
        l->va_size = span;
        l->va_used = 0;
    }
    *ret = addr_of(l->va + l->va_used);
    l->va_used += need;
    return GPUCORE_OK;
}

/*
 * Map one allocation of the simulated device: its own mapping (at @p want, else in the device
 * address space above), excluded from host core dumps as the kernel excludes VRAM/GTT
 * (VM_DONTDUMP), recorded for the driver's allocation list.
 */
static gpucore_status_t map_dev(struct lctx *c, uint64_t want, uint64_t size, uint32_t kind,
                                uint32_t gpu_id, const char *label, const char *what,
                                uint8_t **ret)
{
    struct gc_sim_layout *l = c->l;
    uint8_t *p;

    if (l->nallocs == l->capallocs) {
        uint32_t n = l->capallocs ? l->capallocs * 2 : 64;
        struct gc_sim_layout_alloc *a = gc_realloc_array(l->allocs, n, sizeof(*a));

        if (!a)
            return lfail(c, GPUCORE_E_NOMEM, "%s: out of memory", label);
        l->allocs = a;
        l->capallocs = n;
    }
    size = align_up(size ? size : 1, PAGE);
    if (want) {
        GC_TRY(map(c, want, size, what ? what : label, &p));
    } else {
        uint64_t at = 0;

        GC_TRY(device_va(c, size, what ? what : label, &at));
        p = mmap((void *)(uintptr_t)at, (size_t)size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        if (p == MAP_FAILED)
            return lfail(c, GPUCORE_E_NOMEM, "%s: cannot map 0x%" PRIx64 " bytes at 0x%" PRIx64
                         ": %s", what ? what : label, size, at, strerror(errno));
        /* inside a reservation already listed in l->maps: unmapped with it */
    }
    if (madvise(p, (size_t)size, MADV_DONTDUMP) != 0)
        return lfail(c, GPUCORE_E_IO, "%s: madvise(MADV_DONTDUMP): %s", label, strerror(errno));
    struct gc_sim_layout_alloc *a = &l->allocs[l->nallocs++];
    memset(a, 0, sizeof(*a));
    a->base = addr_of(p);
    a->size = size;
    a->kind = kind;
    a->gpu_id = gpu_id;
    snprintf(a->label, sizeof(a->label), "%s", label);
    *ret = p;
    return GPUCORE_OK;
}

/* The agent a code object is loaded for: the first dispatch's queue's, else one of its target. */
static uint32_t code_object_gpu(const struct gc_scenario *s, uint32_t co)
{
    for (uint32_t i = 0; i < s->ndispatches; i++)
        if (s->dispatches[i].code_object == co)
            return s->agents[s->queues[s->dispatches[i].queue].agent].gpu_id;
    for (uint32_t i = 0; i < s->nagents; i++)
        if (strcmp(s->agents[i].target, s->code_objects[co].target) == 0)
            return s->agents[i].gpu_id;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Code objects                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* Symbol @p name in @p elf: value and size. */
static int find_symbol(Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;

        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        data = elf_getdata(scn, NULL);
        if (!data || !sh.sh_entsize)
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *n;

            if (!gelf_getsym(data, (int)i, &sym))
                break;
            n = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (n && strcmp(n, name) == 0 && sym.st_shndx != SHN_UNDEF) {
                *value = sym.st_value;
                *size = sym.st_size;
                return 1;
            }
        }
    }
    return 0;
}

static gpucore_status_t read_file(struct lctx *c, const char *path, uint8_t **ret,
                                  size_t *ret_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    uint8_t *p;
    size_t got = 0;

    if (fd < 0)
        return lfail(c, GPUCORE_E_IO, "%s: %s (build the scenario code objects, or pass "
                     "--objects DIR)", path, strerror(errno));
    if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20)) {
        close(fd);
        return lfail(c, GPUCORE_E_IO, "%s: empty, unreadable or larger than 64 MiB", path);
    }
    p = gc_malloc((size_t)st.st_size);
    if (!p) {
        close(fd);
        return GPUCORE_E_NOMEM;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

        if (n <= 0) {
            close(fd);
            gc_free(p);
            return lfail(c, GPUCORE_E_IO, "%s: short read", path);
        }
        got += (size_t)n;
    }
    close(fd);
    *ret = p;
    *ret_len = got;
    return GPUCORE_OK;
}

/* "file://" and @p path as ROCr's loader encodes it: every byte outside [A-Za-z0-9/_.~-] as
   %XX (upper-case hex). Cut at @p size - 1 bytes, never mid-escape. */
static void encode_file_uri(char *out, size_t size, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(out, size, "file://");

    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 <= size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/_.~-", *p)) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    out[n] = '\0';
}

/* Load code object @p i: the file image and its PT_LOAD segments, as ROCr's loader would. */
static gpucore_status_t load_code_object(struct lctx *c, uint32_t i, const char *dir,
                                         uint8_t **ret_bytes, size_t *ret_len, Elf **ret_elf)
{
    const struct gc_scen_code_object *co = &c->s->code_objects[i];
    struct gc_sim_layout_code_object *lc = &c->l->code_objects[i];
    const struct gc_arch *arch = gc_arch_by_name(co->target);
    uint8_t *bytes = NULL, *img, *load;
    size_t len = 0, nph;
    uint64_t top = 0;
    GElf_Ehdr eh;
    Elf *elf;

    snprintf(lc->path, sizeof(lc->path), "%s/%s", dir, co->object);
    {
        /* ROCr names a file by the path the kernel gives for its descriptor
           (/proc/self/fd/N): absolute and canonical, whatever directory it was opened from.
           (A file that is not there keeps its name: reading it says why.) */
        char *abs = realpath(lc->path, NULL);

        if (abs && strlen(abs) < sizeof(lc->path))
            memcpy(lc->path, abs, strlen(abs) + 1);
        free(abs);
    }
    GC_TRY(read_file(c, lc->path, &bytes, &len));
    elf = elf_memory((char *)bytes, len);
    if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != 224 /* EM_AMDGPU */ ||
        elf_getphdrnum(elf, &nph) || (eh.e_flags & 0xffu) != arch->elf_mach) {
        if (elf)
            elf_end(elf);
        gc_free(bytes);
        return lfail(c, GPUCORE_E_CORRUPT, "code_objects[%u]: %s is not an AMDGPU code object "
                     "for %s", i, lc->path, co->target);
    }
    for (size_t k = 0; k < nph; k++) {
        GElf_Phdr ph;

        if (gelf_getphdr(elf, (int)k, &ph) && ph.p_type == PT_LOAD &&
            ph.p_vaddr + ph.p_memsz > top)
            top = ph.p_vaddr + ph.p_memsz;
    }
    if (!top || top > (64u << 20)) {
        elf_end(elf);
        gc_free(bytes);
        return lfail(c, GPUCORE_E_CORRUPT, "code_objects[%u]: %s has no usable PT_LOAD", i,
                     lc->path);
    }
    /* The file image (what memory:// URIs name) and the loaded copy, as separate allocations
       like ROCr's (it keeps the ELF in a host buffer and loads segments into GPU memory). */
    {
        gpucore_status_t st = map(c, 0, len, "code object image", &img);
        char label[GC_LAYOUT_LABEL_MAX];

        snprintf(label, sizeof(label), "code object %.30s", co->name);
        if (st == GPUCORE_OK)
            st = map_dev(c, 0, top, GC_KFD_MEM_CODE, code_object_gpu(c->s, i), label, NULL, &load);
        if (st < 0) {
            elf_end(elf);
            gc_free(bytes);
            return st;
        }
    }
    memcpy(img, bytes, len);
    for (size_t k = 0; k < nph; k++) {
        GElf_Phdr ph;

        if (!gelf_getphdr(elf, (int)k, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (ph.p_offset > len || len - ph.p_offset < ph.p_filesz || ph.p_filesz > ph.p_memsz) {
            elf_end(elf);
            gc_free(bytes);
            return lfail(c, GPUCORE_E_CORRUPT, "code_objects[%u]: %s: PT_LOAD beyond the file",
                         i, lc->path);
        }
        memcpy(load + ph.p_vaddr, bytes + ph.p_offset, ph.p_filesz);
    }
    lc->image = addr_of(img);
    lc->image_size = len;
    lc->load_base = addr_of(load);
    lc->load_size = top;
    if (co->uri_file && co->uri_path[0])
        snprintf(lc->uri, sizeof(lc->uri), "file://%.500s", co->uri_path);
    else if (co->uri_file)
        encode_file_uri(lc->uri, sizeof(lc->uri), lc->path);
    else
        snprintf(lc->uri, sizeof(lc->uri), "memory://%ld#offset=0x%" PRIx64 "&size=%zu",
                 (long)getpid(), lc->image, len);
    *ret_bytes = bytes;
    *ret_len = len;
    *ret_elf = elf;
    return GPUCORE_OK;
}

/* r_debug, link_map nodes and URI strings, on one mapping. */
static gpucore_status_t build_r_debug(struct lctx *c)
{
    const struct gc_scenario *s = c->s;
    uint64_t need = 64;
    uint8_t *p;
    uint64_t off;

    for (uint32_t i = 0; i < s->ncode_objects; i++)
        need += 48 + align_up(strlen(c->l->code_objects[i].uri) + 1, 16);
    GC_TRY(map(c, 0, need, "r_debug", &p));
    c->l->r_debug = addr_of(p);
    c->l->r_brk = addr_of((const void *)(uintptr_t)&gc_sim_loader_debug_state);
    /* glibc x86-64 struct r_debug (docs/core-format.md §8.3). */
    struct gc_rocr_r_debug rd = {
        .r_version = s->r_version,
        .r_state = 0, /* RT_CONSISTENT, else readers ignore the list */
        .r_map = s->ncode_objects ? addr_of(p + 64) : 0,
        .r_brk = c->l->r_brk,
        .r_ldbase = 0, /* ROCr leaves it 0 */
    };
    gc_rocr_r_debug_encode(&rd, p);
    off = 64;
    for (uint32_t i = 0; i < s->ncode_objects; i++) {
        struct gc_sim_layout_code_object *lc = &c->l->code_objects[i];
        uint64_t node = off, uri = off + 48;
        uint64_t next = uri + align_up(strlen(lc->uri) + 1, 16);

        lc->link_map = addr_of(p + node);
        struct gc_rocr_link_map lm = {
            .l_addr = lc->load_base,
            .l_name = addr_of(p + uri),
            .l_ld = 0,
            .l_next = i + 1 < s->ncode_objects ? addr_of(p + next) : 0,
            .l_prev = i ? c->l->code_objects[i - 1].link_map : 0,
        };
        gc_rocr_link_map_encode(&lm, p + node);
        memcpy(p + uri, lc->uri, strlen(lc->uri) + 1);
        off = next;
    }
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Waves                                                                                       */
/* ------------------------------------------------------------------------------------------ */

static void set_hwbit(uint32_t *hwreg, struct gc_hwreg_bit b)
{
    if (b.slot < GC_HWREG_SLOTS)
        hwreg[b.slot] |= 1u << b.bit;
}

static void set_slot(const struct gc_arch *arch, uint32_t *hwreg, const char *name, uint32_t v)
{
    int slot = gc_hwreg_slot(arch->hwreg, name);

    if (slot >= 0)
        hwreg[slot] = v;
}

static void ttmp_put(uint32_t *ttmp, struct gc_ttmp_field f, uint32_t v)
{
    if (gc_bf_present(f.bits) && f.ttmp < 16)
        ttmp[f.ttmp] = gc_bf_put(ttmp[f.ttmp], f.bits, v);
}

/* Set named hardware state @p ev of the family, if it has it. */
static void set_hwev(const struct gc_arch *arch, uint32_t *hwreg, int32_t ev)
{
    struct gc_hwreg_bit b;

    if (gc_hwev_bit(arch->hwreg, (enum gc_hwev)ev, &b))
        set_hwbit(hwreg, b);
}

/*
 * Make the saved state say why the wave stopped, as the hardware and the trap handler leave
 * it: each cause's named bits (struct gc_scen_cause, resolved through the family's gc_hwev
 * rows) and saved trap id; for a wave the trap handler stopped, ttmp6's stopped bit, the halt
 * it sets in STATUS and, from ROCr's debug ABI 10, the skip-export marker it sets with it (the
 * saved halt in ttmp6 stays 0: the wave was running). Masked exceptions get their flag without
 * their enable. Reading rows keeps this family-independent.
 */
static void set_stop(const struct gc_arch *arch, const struct gc_scen_waves *w,
                     uint32_t r_version, uint32_t *hwreg, uint32_t *ttmp)
{
    if (w->stopped) {
        ttmp_put(ttmp, arch->ttmp->stopped, 1);
        set_hwev(arch, hwreg, GC_HWEV_HALT);
        if (r_version >= 10)
            set_hwev(arch, hwreg, GC_HWEV_SKIP_EXPORT);
    }
    for (uint32_t i = 0; i < _GC_SCEN_STOP_MAX; i++) {
        const struct gc_scen_cause *k = &gc_scen_causes[i];

        if (w->stop_causes & (1u << i)) {
            for (uint32_t n = 0; n < k->nneed; n++)
                set_hwev(arch, hwreg, k->need[n]);
            for (uint32_t n = 0; n < k->nopt; n++)
                set_hwev(arch, hwreg, k->opt[n]);
            if (k->trap_id)
                ttmp_put(ttmp, arch->ttmp->saved_trap_id, k->trap_id);
        }
        if ((w->masked & (1u << i)) && k->gate >= 0) {
            for (uint32_t n = 0; n < k->nneed; n++)
                if ((int32_t)n != k->gate)
                    set_hwev(arch, hwreg, k->need[n]);
        }
    }
}

struct area_waves {
    struct gc_wave_spec *specs;
    uint32_t *regs; /* backing store of every spec's register arrays */
    uint8_t *lds;
    uint32_t n;
};

static gpucore_status_t wave_pc(struct lctx *c, uint32_t wi, uint64_t *ret)
{
    const struct gc_scen_waves *w = &c->s->waves[wi];
    const struct gc_sim_layout_dispatch *ld = &c->l->dispatches[w->dispatch];

    if (!w->pc_is_kernel) {
        *ret = w->pc_address;
        return GPUCORE_OK;
    }
    if (w->pc_offset >= ld->code_size)
        return lfail(c, GPUCORE_E_INVAL, "waves[%u].pc: kernel '%s' has no offset 0x%" PRIx64
                     " (size 0x%" PRIx64 ")", wi, c->s->dispatches[w->dispatch].kernel,
                     w->pc_offset, ld->code_size);
    *ret = ld->entry + w->pc_offset;
    return GPUCORE_OK;
}

int gc_sim_layout_flat_scratch_sgpr(const struct gc_arch *arch, uint32_t saved_sgprs)
{
    uint32_t alias, end;

    if (!arch || !arch->architected_flat_scratch || !arch->regs ||
        gc_hwreg_slot(arch->hwreg, "flat_scratch_lo") >= 0)
        return -1;
    alias = arch->regs->sgpr_alias_count;
    end = arch->sgprs + alias < saved_sgprs ? arch->sgprs + alias : saved_sgprs;
    return alias >= 6 && end >= 6 ? (int)(end - 6) : -1;
}

uint32_t gc_sim_layout_tmpring(const struct gc_arch *arch, const struct gc_scen_queue *q)
{
    uint32_t tmpring = 0;

    if (!q->scratch_per_wave || !q->scratch_waves)
        return 0;
    tmpring = gc_bf_put(tmpring, arch->hwreg->scratch.waves, q->scratch_waves);
    return gc_bf_put(tmpring, arch->hwreg->scratch.wavesize,
                     q->scratch_per_wave / arch->hwreg->scratch.wavesize_unit);
}

uint64_t gc_sim_layout_flat_scratch(const struct gc_arch *arch, const struct gc_scen_agent *a,
                                    const struct gc_scen_queue *q, uint64_t scratch_base,
                                    uint32_t xcc, uint32_t se_id, uint32_t scratch_id)
{
    uint64_t off = 0, size = 0;

    if (!arch->architected_flat_scratch || !q->scratch_per_wave || !a->simd_arrays_per_engine ||
        gc_scratch_slot(arch, gc_sim_layout_tmpring(arch, q), se_id, scratch_id,
                        a->array_count / a->simd_arrays_per_engine, &off, &size) != GPUCORE_OK)
        return 0;
    /* one slot per scratch wave per XCC, XCC after XCC (build_queue) */
    return scratch_base + (uint64_t)xcc * q->scratch_per_wave * q->scratch_waves + off;
}

uint32_t gc_sim_layout_saved_sgpr(const struct gc_arch *arch, const struct gc_scen_agent *a,
                                  const struct gc_scen_queue *q, uint64_t scratch_base,
                                  uint32_t xcc, const struct gc_wave *saved,
                                  const struct gc_scen_waves *w, uint32_t uid, uint32_t reg)
{
    int at = saved->scratch_en ? gc_sim_layout_flat_scratch_sgpr(arch, saved->sgprs) : -1;
    uint64_t flat;

    if (at < 0 || (reg != (uint32_t)at && reg != (uint32_t)at + 1))
        return gc_sim_layout_sgpr(w, uid, reg);
    flat = gc_sim_layout_flat_scratch(arch, a, q, scratch_base, xcc, saved->se_id,
                                      saved->scratch_id);
    return reg == (uint32_t)at ? (uint32_t)flat : (uint32_t)(flat >> 32);
}

/* A wave's FLAT_SCRATCH on architected-flat-scratch targets, where the trap handler saves it
   (gc_sim_layout_flat_scratch_sgpr). */
static void set_flat_scratch(struct lctx *c, const struct gc_arch *arch, uint32_t qi, uint32_t x,
                             struct gc_wave_spec *sp, uint32_t *sgpr)
{
    const struct gc_scen_queue *sq = &c->s->queues[qi];
    uint64_t addr =
            gc_sim_layout_flat_scratch(arch, &c->s->agents[sq->agent], sq, c->l->queues[qi].scratch,
                                       x, sp->se_id, sp->scratch_id);
    int at = gc_sim_layout_flat_scratch_sgpr(arch, sp->sgprs);

    set_slot(arch, sp->hwreg, "flat_scratch_lo", (uint32_t)addr);
    set_slot(arch, sp->hwreg, "flat_scratch_hi", (uint32_t)(addr >> 32));
    if (at >= 0) {
        sgpr[at] = (uint32_t)addr;
        sgpr[at + 1] = (uint32_t)(addr >> 32);
    }
}

/* Build the wave specs of (queue @p q, XCC @p x) in scenario order. */
static gpucore_status_t build_specs(struct lctx *c, uint32_t q, uint32_t x,
                                    const struct gc_arch *arch, struct area_waves *aw)
{
    const struct gc_scenario *s = c->s;
    uint64_t nwaves = 0, nregs = 0, nlds = 0;
    uint32_t wi, k = 0;
    size_t rpos = 0, lpos = 0;

    memset(aw, 0, sizeof(*aw));
    for (wi = 0; wi < s->nwaves; wi++) {
        const struct gc_scen_waves *w = &s->waves[wi];
        const struct gc_scen_dispatch *d = &s->dispatches[w->dispatch];
        uint32_t v, a, sg, lanes = d->wave32 ? 32 : 64;

        if (d->queue != q || w->xcc != x)
            continue;
        gc_sim_layout_reg_counts(arch, d, &v, &a, &sg);
        nwaves += w->total_waves;
        nregs += (uint64_t)w->total_waves * ((uint64_t)v * lanes + (uint64_t)a * 64 + sg);
        nlds += (uint64_t)w->workgroup_count * align_up(d->group_segment_size, 512);
    }
    if (nregs > (512ull << 20) / 4 || nlds > (512ull << 20))
        return lfail(c, GPUCORE_E_LIMIT, "queue %u xcc %u: the saved waves exceed 512 MiB", q, x);
    if (!nwaves)
        return GPUCORE_OK;
    aw->specs = gc_calloc_array(nwaves, sizeof(*aw->specs));
    aw->regs = gc_calloc_array(nregs ? nregs : 1, 4);
    aw->lds = gc_calloc_array(nlds ? nlds : 1, 1);
    if (!aw->specs || !aw->regs || !aw->lds)
        return GPUCORE_E_NOMEM;
    for (wi = 0; wi < s->nwaves; wi++) {
        const struct gc_scen_waves *w = &s->waves[wi];
        const struct gc_scen_dispatch *d = &s->dispatches[w->dispatch];
        const struct gc_scen_queue *sq = &s->queues[d->queue];
        uint32_t wpg = gc_scen_waves_per_group(s, w);
        uint32_t v, a, sg, lanes = d->wave32 ? 32 : 64;
        uint32_t lds_size = (uint32_t)align_up(d->group_segment_size, 512);
        uint64_t pc = 0;

        if (d->queue != q || w->xcc != x)
            continue;
        GC_TRY(wave_pc(c, wi, &pc));
        gc_sim_layout_reg_counts(arch, d, &v, &a, &sg);
        for (uint32_t g = 0; g < w->workgroup_count; g++) {
            uint8_t *lds = aw->lds + lpos;
            uint32_t leader = w->first_wave + g * wpg;

            for (uint32_t i = 0; i + 4 <= lds_size; i += 4)
                put(lds + i, gc_sim_layout_lds(w, leader, i / 4), 4);
            lpos += lds_size;
            for (uint32_t n = 0; n < wpg; n++, k++) {
                struct gc_wave_spec *sp = &aw->specs[k];
                uint32_t uid = leader + n;
                uint32_t *vg = aw->regs + rpos, *ac, *sgp;

                ac = vg + (size_t)v * lanes;
                sgp = ac + (size_t)a * 64;
                rpos += (size_t)v * lanes + (size_t)a * 64 + sg;
                for (uint32_t r = 0; r < v; r++)
                    for (uint32_t l = 0; l < lanes; l++)
                        vg[(size_t)r * lanes + l] = gc_sim_layout_vgpr(w, uid, r, l);
                for (uint32_t r = 0; r < a; r++)
                    for (uint32_t l = 0; l < 64; l++)
                        ac[(size_t)r * 64 + l] = gc_sim_layout_accvgpr(w, uid, r, l);
                for (uint32_t r = 0; r < sg; r++)
                    sgp[r] = gc_sim_layout_sgpr(w, uid, r);
                sp->wave32 = d->wave32;
                sp->vgprs = v;
                sp->accvgprs = a;
                sp->sgprs = sg;
                sp->vgpr = vg;
                sp->accvgpr = a ? ac : NULL;
                sp->sgpr = sgp;
                sp->lds_size = lds_size;
                sp->lds = n == 0 ? lds : NULL;
                sp->first_wave = n == 0;
                sp->last_wave = n == wpg - 1;
                sp->scratch_en = d->private_segment_size != 0;
                /* Slots are handed out round robin in the scenario's order; 16 keeps the id in
                   every family's scoreboard field. */
                sp->scratch_id = sp->scratch_en && sq->scratch_waves
                                         ? (k % (sq->scratch_waves < 16 ? sq->scratch_waves : 16))
                                         : 0;
                if (sp->scratch_en && arch->architected_flat_scratch)
                    set_flat_scratch(c, arch, q, x, sp, sgp);
                set_slot(arch, sp->hwreg, "pc_lo", (uint32_t)pc);
                set_slot(arch, sp->hwreg, "pc_hi", (uint32_t)(pc >> 32));
                set_slot(arch, sp->hwreg, "exec_lo", (uint32_t)w->exec);
                set_slot(arch, sp->hwreg, "exec_hi", lanes == 64 ? (uint32_t)(w->exec >> 32) : 0);
                set_slot(arch, sp->hwreg, "m0", gc_sim_layout_sgpr(w, uid, 1000));
                /* SPI-initialised dispatch association (docs/cwsr-layout.md §11-§12). */
                ttmp_put(sp->ttmp, arch->ttmp->dispatch_index,
                         (uint32_t)(d->packet_id % sq->ring_packets));
                ttmp_put(sp->ttmp, arch->ttmp->group_id[0], w->workgroup[0] + g);
                ttmp_put(sp->ttmp, arch->ttmp->group_id[1], w->workgroup[1]);
                ttmp_put(sp->ttmp, arch->ttmp->group_id[2], w->workgroup[2]);
                ttmp_put(sp->ttmp, arch->ttmp->group_yz_valid,
                         d->grid[1] > d->workgroup[1] || d->grid[2] > d->workgroup[2]);
                ttmp_put(sp->ttmp, arch->ttmp->wave_in_group, n);
                /* The debugger wave id the trap handler records: unique, non-zero. */
                ttmp_put(sp->ttmp, arch->ttmp->wave_id_lo, uid + 1);
                ttmp_put(sp->ttmp, arch->ttmp->wave_id_valid, 1);
                set_stop(arch, w, s->r_version, sp->hwreg, sp->ttmp);
                if (w->stopped) {
                    /* Parking families: the trap handler saved the real PC in the TTMPs. */
                    if (gc_arch_parks_stopped_waves(arch, s->r_version)) {
                        ttmp_put(sp->ttmp, arch->ttmp->parked_pc_lo, (uint32_t)pc);
                        ttmp_put(sp->ttmp, arch->ttmp->parked_pc_hi, (uint32_t)(pc >> 32));
                    }
                }
            }
        }
    }
    aw->n = k;
    return GPUCORE_OK;
}

static void area_waves_done(struct area_waves *aw)
{
    gc_free(aw->specs);
    gc_free(aw->regs);
    gc_free(aw->lds);
}

/* ------------------------------------------------------------------------------------------ */
/* Queues, dispatches, buffers                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void fill_pattern(uint8_t *base, uint64_t off, uint64_t size, enum gc_scen_pattern p,
                         uint32_t seed, uint32_t kind, const struct gc_scenario *s)
{
    if (p == GC_SCEN_PAT_ZERO)
        return;
    if (p == GC_SCEN_PAT_SECRET) { /* straight from the scenario: no copy on the stack */
        for (uint64_t o = off; o < off + size; o += 16)
            memcpy(base + o, s->secret, off + size - o < 16 ? off + size - o : 16);
        return;
    }
    for (uint64_t o = off; o + 4 <= off + size; o += 4)
        put(base + o, gc_sim_layout_mem(p, seed, kind, o / 4), 4);
}

/* The buffers at fixed addresses (@p fixed) or the others. Fixed ones are mapped before any
   device address space is reserved, so the reservation cannot take their place. */
static gpucore_status_t build_buffers(struct lctx *c, int fixed)
{
    for (uint32_t i = 0; i < c->s->nbuffers; i++) {
        const struct gc_scen_buffer *b = &c->s->buffers[i];
        char what[96];
        uint8_t *p;
        char label[GC_LAYOUT_LABEL_MAX];

        if (!b->address != !fixed)
            continue;

        snprintf(what, sizeof(what), "buffers[%u] '%s'", i, b->name);
        snprintf(label, sizeof(label), "buffer %.40s", b->name);
        GC_TRY(map_dev(c, b->address, b->size, GC_KFD_MEM_VRAM,
                       c->s->agents[b->agent].gpu_id, label, what, &p));
        c->l->buffers[i] = (struct gc_sim_layout_buffer){ addr_of(p), b->size };
        if (!b->nranges)
            fill_pattern(p, 0, b->size, b->pattern, b->seed, GC_SCEN_KIND_MEM, c->s);
        for (uint32_t r = 0; r < b->nranges; r++)
            fill_pattern(p, b->ranges[r].offset, b->ranges[r].size, b->pattern, b->seed,
                         GC_SCEN_KIND_MEM, c->s);
    }
    return GPUCORE_OK;
}

/* Code object v5 (ELF EI_ABIVERSION 3, what ROCm 6 compilers emit by default) passes the
   dispatch geometry to the kernel in hidden (implicit) kernel arguments: a fixed layout starting
   at the explicit arguments' end rounded up to 8, which the runtime (HIP's and OpenCL's, clr)
   fills for every dispatch whose kernel's metadata lists them; the code object's
   .kernarg_segment_size, copied into its kernel descriptor's kernarg_size, covers them. Block
   counts are whole workgroups (grid / workgroup), remainders the size of the last partial one
   (grid % workgroup): the device library's get_local_size() picks group_size or remainder by
   comparing the group id with the block count. Global offsets are 0 (HIP has none; OpenCL's
   clEnqueueNDRangeKernel with a NULL offset); grid_dims is the packet's dimensions;
   printf_buffer the dispatch's printf buffer when the scenario gives it one (the runtime
   allocates one for kernels that call printf). Everything else in the implicit area
   (hostcall/heap buffers, queue pointer, multigrid sync, private/shared bases) stays zero: the
   simulated runtime provides none of them. */
#define COV5_ABI_VERSION 3u
#define COV5_HIDDEN_ALIGN 8u
#define KD_KERNARG_SIZE_OFFSET 8u /* kernel descriptor: kernarg_size (u32) */
#define COV5_KERNARG_MAX (1u << 20) /* kernarg_size the simulated runtime allocates at most */
enum cov5_source { COV5_BLOCKS, COV5_GROUP, COV5_REMAINDER, COV5_ZERO, COV5_DIMS, COV5_PRINTF };
static const struct {
    uint8_t offset, size, source, dim; /* offset from the implicit arguments' start */
} cov5_hidden[] = {
    { 0, 4, COV5_BLOCKS, 0 },     { 4, 4, COV5_BLOCKS, 1 },     { 8, 4, COV5_BLOCKS, 2 },
    { 12, 2, COV5_GROUP, 0 },     { 14, 2, COV5_GROUP, 1 },     { 16, 2, COV5_GROUP, 2 },
    { 18, 2, COV5_REMAINDER, 0 }, { 20, 2, COV5_REMAINDER, 1 }, { 22, 2, COV5_REMAINDER, 2 },
    { 40, 8, COV5_ZERO, 0 },      { 48, 8, COV5_ZERO, 1 },      { 56, 8, COV5_ZERO, 2 },
    { 64, 2, COV5_DIMS, 0 },      { 72, 8, COV5_PRINTF, 0 },
};

/* The hidden arguments of dispatch @p d into its kernarg segment @p ka of @p size bytes, the
   explicit ones ending at @p explicit_end; fields past @p size are left out (a kernel using
   none of them has no implicit area). */
static void put_cov5_hidden(const struct gc_scen_dispatch *d, uint8_t *ka, uint32_t explicit_end,
                            uint32_t size, uint64_t printf_buffer)
{
    uint32_t base = (uint32_t)align_up(explicit_end, COV5_HIDDEN_ALIGN);
    uint32_t dims = d->grid[2] > 1 ? 3 : d->grid[1] > 1 ? 2 : 1;

    for (size_t i = 0; i < GC_ARRAY_SIZE(cov5_hidden); i++) {
        uint32_t dim = cov5_hidden[i].dim, at = base + cov5_hidden[i].offset;
        uint64_t v = 0;

        if (at + cov5_hidden[i].size > size)
            continue;
        switch (cov5_hidden[i].source) {
        case COV5_BLOCKS: v = d->workgroup[dim] ? d->grid[dim] / d->workgroup[dim] : 0; break;
        case COV5_GROUP: v = d->workgroup[dim]; break;
        case COV5_REMAINDER: v = d->workgroup[dim] ? d->grid[dim] % d->workgroup[dim] : 0; break;
        case COV5_DIMS: v = dims; break;
        case COV5_PRINTF: v = printf_buffer; break;
        default: v = 0; break;
        }
        put(ka + at, v, cov5_hidden[i].size);
    }
}

/* The printf buffer @p pb of dispatch @p d as the runtime and the kernel leave it (OpenCL's
   printf on AMDGPU, docs/device-printf.md): the runtime writes the 8-byte header's
   size (u32 at +4) and a zero offset (u32 at +0); each printf of the kernel adds its record's
   bytes to the offset atomically and writes the record (id, then its arguments) at 8 + the
   old offset. The scenario's records are written back to back, as one kernel's printfs in
   turn (the parser made sure they fit). */
#define PRINTF_HEADER 8u
static void put_printf_records(const struct gc_scen_dispatch *d, uint8_t *pb)
{
    put(pb, 4ull * d->nprintf_words, 4);
    put(pb + 4, d->printf_buffer, 4);
    for (uint32_t k = 0; k < d->nprintf_words; k++)
        put(pb + PRINTF_HEADER + 4ull * k, d->printf_words[k], 4);
}

static gpucore_status_t build_dispatches(struct lctx *c, Elf **elfs)
{
    const struct gc_scenario *s = c->s;

    for (uint32_t i = 0; i < s->ndispatches; i++) {
        const struct gc_scen_dispatch *d = &s->dispatches[i];
        struct gc_sim_layout_dispatch *ld = &c->l->dispatches[i];
        const struct gc_sim_layout_code_object *lc = &c->l->code_objects[d->code_object];
        char sym[GC_SCEN_NAME_MAX + 4];
        uint64_t kd, kdsize, fn, fnsize;
        int64_t entry_off = 0;
        uint8_t *ka;
        uint32_t off = 0, kd_size;
        uint64_t explicit_max;
        GElf_Ehdr eh;
        char label[GC_LAYOUT_LABEL_MAX];

        snprintf(sym, sizeof(sym), "%s.kd", d->kernel);
        if (!find_symbol(elfs[d->code_object], sym, &kd, &kdsize) ||
            !find_symbol(elfs[d->code_object], d->kernel, &fn, &fnsize))
            return lfail(c, GPUCORE_E_INVAL, "dispatches[%u].kernel: '%s' (with '%s') not "
                         "found in %s", i, d->kernel, sym, lc->path);
        if (kd + 64 > lc->load_size || fn >= lc->load_size)
            return lfail(c, GPUCORE_E_CORRUPT, "dispatches[%u].kernel: '%s' outside the loaded "
                         "image", i, d->kernel);
        ld->kernel_object = lc->load_base + kd;
        for (int b = 0; b < 8; b++)
            entry_off |= (int64_t)((uint64_t)((uint8_t *)(uintptr_t)ld->kernel_object)[16 + b]
                                   << (8 * b));
        ld->entry = ld->kernel_object + (uint64_t)entry_off;
        ld->code_size = fnsize;
        if (ld->entry != lc->load_base + fn)
            return lfail(c, GPUCORE_E_CORRUPT, "dispatches[%u].kernel: the descriptor of '%s' "
                         "does not point at the kernel", i, d->kernel);
        kd_size = 0;
        for (int b = 0; b < 4; b++)
            kd_size |= (uint32_t)((uint8_t *)(uintptr_t)ld->kernel_object)
                               [KD_KERNARG_SIZE_OFFSET + b] << (8 * b);
        if (kd_size > COV5_KERNARG_MAX)
            return lfail(c, GPUCORE_E_CORRUPT, "dispatches[%u].kernel: the descriptor of '%s' "
                         "says %u bytes of kernel arguments (at most %u)", i, d->kernel,
                         kd_size, COV5_KERNARG_MAX);
        /* ROCr gives each dispatch its kernarg segment in device-visible memory, as large as
           the kernel descriptor's kernarg_size says (the runtime allocates that much). */
        snprintf(label, sizeof(label), "kernarg d%u", i);
        explicit_max = 8ull * d->nkernargs + 256;
        for (uint32_t k = 0; k < d->nkernargs; k++)
            if (d->kernargs[k].type == GC_SCEN_KA_SECRET)
                explicit_max += 16; /* 16 bytes and up to 8 of alignment */
        GC_TRY(map_dev(c, 0,
                       d->nraw                  ? d->nraw
                       : kd_size > explicit_max ? kd_size
                                                : explicit_max,
                       GC_KFD_MEM_KERNARG, s->agents[s->queues[d->queue].agent].gpu_id, label, NULL,
                       &ka));
        ld->kernarg = addr_of(ka);
        if (d->nraw) {
            memcpy(ka, d->raw_kernargs, d->nraw);
            off = d->nraw;
        }
        for (uint32_t k = 0; k < d->nkernargs; k++) {
            const struct gc_scen_kernarg *a = &d->kernargs[k];
            uint32_t n = a->type == GC_SCEN_KA_U32 || a->type == GC_SCEN_KA_F32 ? 4 : 8;

            if (a->type == GC_SCEN_KA_SECRET) {
                off = (uint32_t)align_up(off, 8);
                memcpy(ka + off, s->secret, 16);
                off += 16;
                continue;
            }
            uint64_t v = a->type == GC_SCEN_KA_BUFFER ?
                                 c->l->buffers[a->value].address + a->value2 : a->value;

            off = (uint32_t)align_up(off, n); /* natural alignment, as the ABI lays them out */
            put(ka + off, v, n);
            off += n;
        }
        if (!d->nraw && gelf_getehdr(elfs[d->code_object], &eh) &&
            eh.e_ident[EI_ABIVERSION] >= COV5_ABI_VERSION && kd_size > off) {
            uint8_t *pb = NULL;

            if (d->printf_buffer) {
                snprintf(label, sizeof(label), "printf buffer d%u", i);
                GC_TRY(map_dev(c, 0, d->printf_buffer, GC_KFD_MEM_VRAM,
                               s->agents[s->queues[d->queue].agent].gpu_id, label, NULL, &pb));
                put_printf_records(d, pb);
            }
            put_cov5_hidden(d, ka, off, kd_size, pb ? addr_of(pb) : 0);
            off = kd_size;
        }
        ld->kernarg_size = off;
    }
    return GPUCORE_OK;
}

/* The AQL ring of queue @p qi: every slot INVALID (as ROCr initialises it) but the packets of
   its dispatches; the read and write ids span them. */
static gpucore_status_t build_ring(struct lctx *c, uint32_t qi)
{
    const struct gc_scenario *s = c->s;
    const struct gc_scen_queue *q = &s->queues[qi];
    struct gc_sim_layout_queue *lq = &c->l->queues[qi];
    uint64_t minid = UINT64_MAX, maxid = 0;
    char label[GC_LAYOUT_LABEL_MAX];
    uint8_t *ring;

    lq->ring_size = 64ull * q->ring_packets;
    snprintf(label, sizeof(label), "AQL ring q%u", q->queue_id);
    GC_TRY(map_dev(c, 0, lq->ring_size, GC_KFD_MEM_RING, s->agents[q->agent].gpu_id, label, NULL,
                   &ring));
    lq->ring = addr_of(ring);
    for (uint64_t o = 0; o < lq->ring_size; o += 64)
        put(ring + o, AQL_INVALID_HEADER, 2);
    for (uint32_t i = 0; i < s->ndispatches; i++) {
        const struct gc_scen_dispatch *d = &s->dispatches[i];
        struct gc_sim_layout_dispatch *ld = &c->l->dispatches[i];
        uint8_t *p;

        if (d->queue != qi)
            continue;
        p = ring + (d->packet_id % q->ring_packets) * 64;
        ld->packet = addr_of(p);
        put(p + 0, AQL_DISPATCH_HEADER, 2);
        put(p + 2, d->grid[2] > 1 ? 3 : d->grid[1] > 1 ? 2 : 1, 2); /* setup: dimensions */
        put(p + 4, d->workgroup[0], 2);
        put(p + 6, d->workgroup[1], 2);
        put(p + 8, d->workgroup[2], 2);
        put(p + 12, d->grid[0], 4);
        put(p + 16, d->grid[1], 4);
        put(p + 20, d->grid[2], 4);
        put(p + 24, d->private_segment_size, 4);
        put(p + 28, d->group_segment_size, 4);
        put(p + 32, ld->kernel_object, 8);
        put(p + 40, ld->kernarg, 8);
        put(p + 56, 0, 8); /* completion_signal: none (not read by a debugger) */
        minid = d->packet_id < minid ? d->packet_id : minid;
        maxid = d->packet_id > maxid ? d->packet_id : maxid;
    }
    if (minid == UINT64_MAX)
        minid = maxid = 0;
    else
        maxid++;
    if (maxid - minid > q->ring_packets)
        return lfail(c, GPUCORE_E_INVAL, "queues[%u]: the dispatches' packet ids span more than "
                     "the ring's %u packets", qi, q->ring_packets);
    if (q->backlog && maxid == minid)
        return lfail(c, GPUCORE_E_INVAL, "queues[%u].backlog: the queue has no dispatch to copy",
                     qi);
    if (q->backlog > q->ring_packets - (maxid - minid))
        return lfail(c, GPUCORE_E_INVAL, "queues[%u].backlog: %u packets after the dispatches "
                     "do not fit the ring's %u", qi, q->backlog, q->ring_packets);
    /* the backlog: copies of the last dispatch's packet, which the packet processor has not
       reached (a runtime that filled the queue) */
    for (uint32_t k = 0; k < q->backlog; k++)
        memcpy(ring + ((maxid + k) % q->ring_packets) * 64,
               ring + ((maxid - 1) % q->ring_packets) * 64, 64);
    lq->read_id = minid;
    lq->write_id = maxid + q->backlog;
    return GPUCORE_OK;
}

/* Scratch (one slot per wave per XCC, XCC stride scratch_backing_memory_byte_size) and the
   runtime's amd_queue_t of queue @p qi. */
static gpucore_status_t build_amd_queue(struct lctx *c, uint32_t qi, const struct gc_arch *arch)
{
    const struct gc_scenario *s = c->s;
    const struct gc_scen_queue *q = &s->queues[qi];
    const struct gc_scen_agent *a = &s->agents[q->agent];
    struct gc_sim_layout_queue *lq = &c->l->queues[qi];
    char label[GC_LAYOUT_LABEL_MAX];
    uint8_t *aq, *scratch;
    uint32_t tmpring = 0;

    lq->scratch_size = (uint64_t)q->scratch_per_wave * q->scratch_waves * a->num_xcc;
    if (lq->scratch_size) {
        snprintf(label, sizeof(label), "scratch q%u", q->queue_id);
        GC_TRY(map_dev(c, 0, lq->scratch_size, GC_KFD_MEM_SCRATCH, a->gpu_id, label, NULL,
                       &scratch));
        lq->scratch = addr_of(scratch);
        fill_pattern(scratch, 0, lq->scratch_size, q->scratch_pattern, q->scratch_seed,
                     GC_SCEN_KIND_SCRATCH, c->s);
        tmpring = gc_sim_layout_tmpring(arch, q);
    }
    lq->compute_tmpring_size = tmpring;

    snprintf(label, sizeof(label), "amd_queue_t q%u", q->queue_id);
    GC_TRY(map_dev(c, 0, GC_ROCR_AMDQ_SIZE, GC_KFD_MEM_GTT, a->gpu_id, label, NULL, &aq));
    lq->amd_queue = addr_of(aq);
    /* r_version 11 removed the per-XCC stride field (docs/core-format.md §8.5): left 0, as the
       fresh mapping's bytes are */
    uint64_t stride =
            s->r_version < GC_ROCR_AMDQ_STRIDE_GONE_R_VERSION ? lq->scratch_size / a->num_xcc : 0;
    struct gc_rocr_amd_queue v = {
        .type = 0,     /* HSA_QUEUE_TYPE_MULTIPLE */
        .features = 1, /* HSA_QUEUE_FEATURE_KERNEL_DISPATCH */
        .base_address = lq->ring,
        .ring_packets = q->ring_packets,
        .id = q->queue_id,
        .write_dispatch_id = lq->write_id,
        .max_cu_id = a->simd_count / arch->cwsr->simd_per_cu / a->num_xcc - 1,
        .max_wave_id = a->max_waves_per_simd * arch->cwsr->simd_per_cu - 1,
        .read_dispatch_id = lq->read_id,
        .read_dispatch_id_field_base_byte_offset = GC_ROCR_AMDQ_READ_DISPATCH_ID,
        .compute_tmpring_size = tmpring,
        .scratch_location = lq->scratch,
        .scratch_byte_size = stride,
        .scratch_workitem_byte_size = q->scratch_per_wave / 64, /* wave64 lanes */
        .queue_properties = 0x1u | 0x2u,                        /* trap handler, 64-bit */
    };
    gc_rocr_amd_queue_encode(&v, aq);
    return GPUCORE_OK;
}

/* The saved image of queue @p qi's waves on XCC @p x: build_specs through arch's encoder. */
static gpucore_status_t encode_area(struct lctx *c, uint32_t qi, uint32_t x,
                                    const struct gc_arch *arch, uint32_t ctl_stack_size,
                                    const struct gc_cwsr_header *tmpl, uint8_t **ret_img,
                                    size_t *ret_len, struct gc_cwsr_header *ret_header,
                                    uint32_t *ret_waves)
{
    struct area_waves aw;
    gpucore_diag_t d2;
    gpucore_status_t st = build_specs(c, qi, x, arch, &aw);

    if (st < 0) {
        area_waves_done(&aw);
        return st; /* already described */
    }
    memset(&d2, 0, sizeof(d2));
    st = gc_cwsr_encode(arch, aw.specs, aw.n, ctl_stack_size, tmpl, ret_img, ret_len,
                        ret_header, &d2);
    *ret_waves = aw.n;
    area_waves_done(&aw);
    if (st < 0)
        return lfail(c, st, "queues[%u] xcc %u: the waves cannot be saved: %s", qi, x,
                     d2.message);
    return GPUCORE_OK;
}

/*
 * The CWSR area of XCC @p x of queue @p qi (at @p cwsr, the queue's areas): its creation-time
 * header, and below it the waves as a save leaves them, encoded now and kept there (the
 * complete header in lq->header[x]).
 */
static gpucore_status_t build_cwsr_area(struct lctx *c, uint32_t qi, uint32_t x,
                                        const struct gc_arch *arch, uint8_t *cwsr)
{
    const struct gc_scen_agent *a = &c->s->agents[c->s->queues[qi].agent];
    struct gc_sim_layout_queue *lq = &c->l->queues[qi];
    struct gc_cwsr_header tmpl = {
        /* libhsakmt's values: the debug area seen from this XCC's base. */
        .debug_offset = (a->num_xcc - x) * lq->sizes.cwsr_size,
        .debug_size = lq->sizes.debug_memory_size * a->num_xcc,
    };
    uint8_t *img = NULL;
    size_t len = 0;
    uint32_t nwaves = 0;
    gpucore_status_t st = encode_area(c, qi, x, arch, lq->sizes.ctl_stack_size, &tmpl, &img,
                                      &len, &lq->header[x], &nwaves);

    if (st < 0)
        return st;
    if (len > lq->sizes.cwsr_size) {
        gc_free(img);
        return lfail(c, GPUCORE_E_LIMIT, "queues[%u] xcc %u: %u waves do not fit the save "
                     "area of %u bytes", qi, x, nwaves, lq->sizes.cwsr_size);
    }
    /* The device keeps its waves where a context save puts them: the control stack and the
       wave records go into the area now, once, and a save (SUSPEND, gc_sim_layout_context_save)
       writes only get_wave_state's header fields over libhsakmt's creation-time header. Until
       the first save the header says the area is empty (control stack and wave area of size
       0), so a debugger that reads it finds no waves, as on hardware; the bytes below it are
       what the next save leaves there. No second copy is kept anywhere. */
    uint8_t *area = cwsr + (uint64_t)x * lq->sizes.cwsr_size;
    uint32_t from = lq->header[x].control_stack_offset;

    gc_cwsr_header_encode(&tmpl, area);
    if (len > from)
        memcpy(area + from, img + from, len - from);
    gc_free(img);
    lq->waves[x] = nwaves;
    return GPUCORE_OK;
}

gpucore_status_t gc_sim_layout_save_waves(const struct gc_scenario *s,
                                          const struct gc_sim_layout_dispatch *dispatches,
                                          const struct gc_sim_layout_queue *queues, uint32_t qi,
                                          uint32_t x, const struct gc_cwsr_header *tmpl,
                                          uint8_t **ret_image, size_t *ret_len,
                                          struct gc_cwsr_header *ret_header, uint32_t *ret_waves,
                                          gpucore_diag_t *reterr_diag)
{
    /* build_specs reads the layout's dispatches (kernel entries) and queues (scratch) only */
    struct gc_sim_layout l;
    struct lctx c;
    const struct gc_arch *arch;

    if (!s || !dispatches || !queues || !tmpl || !ret_image || !ret_len || !ret_header ||
        !ret_waves || qi >= s->nqueues || s->queues[qi].agent >= s->nagents)
        return GPUCORE_E_INVAL;
    arch = gc_arch_by_name(s->agents[s->queues[qi].agent].target);
    if (!arch || !arch->cwsr)
        return GPUCORE_E_ARCH;
    memset(&l, 0, sizeof(l));
    l.s = s;
    l.dispatches = (struct gc_sim_layout_dispatch *)(uintptr_t)dispatches;
    l.queues = (struct gc_sim_layout_queue *)(uintptr_t)queues;
    c.l = &l;
    c.s = s;
    c.diag = reterr_diag;
    return encode_area(&c, qi, x, arch, queues[qi].sizes.ctl_stack_size, tmpl, ret_image,
                       ret_len, ret_header, ret_waves);
}

static gpucore_status_t build_queue(struct lctx *c, uint32_t qi)
{
    const struct gc_scenario *s = c->s;
    const struct gc_scen_queue *q = &s->queues[qi];
    const struct gc_scen_agent *a = &s->agents[q->agent];
    const struct gc_arch *arch = gc_arch_by_name(a->target);
    struct gc_sim_layout_queue *lq = &c->l->queues[qi];
    char label[GC_LAYOUT_LABEL_MAX];
    uint8_t *cwsr;

    lq->gpu_id = a->gpu_id;
    lq->queue_id = q->queue_id;
    lq->num_xcc = a->num_xcc;
    if (gc_cwsr_compute_sizes(arch, a->simd_count, a->array_count, a->simd_arrays_per_engine,
                              a->num_xcc, &lq->sizes) < 0)
        return lfail(c, GPUCORE_E_INVAL, "agents[%u]: KFD would reject the CWSR sizes of %s "
                     "with simd_count %u, num_xcc %u", q->agent, arch->name, a->simd_count,
                     a->num_xcc);
    if ((uint64_t)q->ring_packets > gc_arch_max_queue_packets(arch))
        return lfail(c, GPUCORE_E_INVAL, "queues[%u].ring_packets: %s addresses at most %" PRIu64
                     " packets", qi, arch->name, gc_arch_max_queue_packets(arch));
    GC_TRY(build_ring(c, qi));
    GC_TRY(build_amd_queue(c, qi, arch));

    /* CWSR: one area per XCC, then the debugger area (docs/cwsr-layout.md §2). */
    snprintf(label, sizeof(label), "CWSR q%u", q->queue_id);
    GC_TRY(map_dev(c, 0, lq->sizes.total_size, GC_KFD_MEM_CWSR, a->gpu_id, label, NULL, &cwsr));
    lq->cwsr = addr_of(cwsr);
    for (uint32_t x = 0; x < a->num_xcc; x++)
        GC_TRY(build_cwsr_area(c, qi, x, arch, cwsr));
    return GPUCORE_OK;
}

gpucore_status_t gc_sim_layout_exception_address(const struct gc_sim_layout *l, uint32_t index,
                                                 uint64_t host_stack, uint64_t *ret,
                                                 gpucore_diag_t *reterr_diag)
{
    const struct gc_scen_exception *e;
    const uint64_t top = 1ull << 57; /* the user address space a fault address lies in */
    uint64_t base, va;

    *ret = 0;
    if (!l || index >= l->s->nexceptions)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no exception %" PRIu32,
                           index);
    e = &l->s->exceptions[index];
    switch (e->address_kind) {
    case GC_SCEN_ADDRESS_NONE:
        return GPUCORE_OK;
    case GC_SCEN_ADDRESS_ABSOLUTE:
        *ret = e->address;
        return GPUCORE_OK;
    case GC_SCEN_ADDRESS_HOST:
        *ret = host_stack; /* GC_SCEN_HOST_STACK, the only host memory named */
        return GPUCORE_OK;
    case GC_SCEN_ADDRESS_BUFFER:
        break;
    }
    base = l->buffers[e->address_buffer].address;
    if (e->address_before ? e->address_offset >= base : e->address_offset >= top - base)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "%s: exceptions[%" PRIu32 "].address: buffer '%s' at 0x%" PRIx64
                           " %s 0x%" PRIx64 " is outside [1, 2^57)", l->s->path, index,
                           l->s->buffers[e->address_buffer].name, base,
                           e->address_before ? "-" : "+", e->address_offset);
    va = e->address_before ? base - e->address_offset : base + e->address_offset;
    *ret = va;
    return GPUCORE_OK;
}

gpucore_status_t gc_sim_layout_build(const struct gc_scenario *s, const char *objects_dir,
                                     struct gc_sim_layout **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_sim_layout *l;
    struct lctx c = { .s = s, .diag = reterr_diag };
    Elf **elfs = NULL;
    uint8_t **bytes = NULL;
    gpucore_status_t st = GPUCORE_OK;
    uint32_t ncos = 0;

    if (!s || !ret || !objects_dir)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    if (elf_version(EV_CURRENT) == EV_NONE)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "libelf too old");
    for (uint32_t i = 0; i < s->nagents; i++)
        if (s->agents[i].num_xcc > GC_LAYOUT_MAX_XCC)
            return gc_diag_set(reterr_diag, GPUCORE_E_LIMIT, GC_NO_OFFSET, "too many XCCs");
    l = calloc(1, sizeof(*l));
    if (!l)
        return GPUCORE_E_NOMEM;
    c.l = l;
    l->s = s;
    l->code_objects = gc_calloc_array(s->ncode_objects + 1u, sizeof(*l->code_objects));
    l->dispatches = gc_calloc_array(s->ndispatches + 1u, sizeof(*l->dispatches));
    l->queues = gc_calloc_array(s->nqueues + 1u, sizeof(*l->queues));
    l->buffers = gc_calloc_array(s->nbuffers + 1u, sizeof(*l->buffers));
    elfs = gc_calloc_array(s->ncode_objects + 1u, sizeof(*elfs));
    bytes = gc_calloc_array(s->ncode_objects + 1u, sizeof(*bytes));
    if (!l->code_objects || !l->dispatches || !l->queues || !l->buffers || !elfs || !bytes)
        st = GPUCORE_E_NOMEM;
    if (st == GPUCORE_OK)
        st = build_buffers(&c, 1);
    for (; st == GPUCORE_OK && ncos < s->ncode_objects; ncos++) {
        size_t len;

        st = load_code_object(&c, ncos, objects_dir, &bytes[ncos], &len, &elfs[ncos]);
        if (st < 0)
            break;
    }
    if (st == GPUCORE_OK)
        st = build_r_debug(&c);
    if (st == GPUCORE_OK)
        st = build_buffers(&c, 0);
    if (st == GPUCORE_OK)
        st = build_dispatches(&c, elfs);
    for (uint32_t q = 0; st == GPUCORE_OK && q < s->nqueues; q++)
        st = build_queue(&c, q);
    for (uint32_t i = 0; i < ncos; i++) {
        if (elfs[i])
            elf_end(elfs[i]);
        gc_free(bytes[i]);
    }
    gc_free(elfs);
    gc_free(bytes);
    if (st < 0) {
        gc_sim_layout_free(l);
        return st;
    }
    *ret = l;
    return GPUCORE_OK;
}

void gc_sim_layout_free(struct gc_sim_layout *l)
{
    if (!l)
        return;
    for (uint32_t i = 0; i < l->nmaps; i++)
        munmap(l->maps[i].addr, l->maps[i].len);
    gc_free(l->maps);
    gc_free(l->allocs);
    gc_free(l->code_objects);
    gc_free(l->dispatches);
    gc_free(l->queues);
    gc_free(l->buffers);
    free(l);
}

void gc_sim_layout_context_save(const struct gc_sim_layout_queue *q, uint32_t xcc)
{
    if (xcc < q->num_xcc)
        gc_cwsr_header_encode(&q->header[xcc],
                              (uint8_t *)(uintptr_t)(q->cwsr + (uint64_t)xcc * q->sizes.cwsr_size));
}

gpucore_status_t gc_sim_layout_device_entry(const struct gc_scen_agent *a,
                                            struct kfd_dbg_device_info_entry *ret)
{
    const struct gc_arch *arch = gc_arch_by_name(a->target);

    if (!arch)
        return GPUCORE_E_ARCH;
    memset(ret, 0, sizeof(*ret));
    ret->gpu_id = a->gpu_id;
    ret->location_id = a->location_id;
    ret->vendor_id = a->vendor_id;
    ret->device_id = a->device_id;
    ret->revision_id = a->revision_id;
    ret->gfx_target_version = arch->gfx_target_version;
    ret->simd_count = a->simd_count;
    ret->max_waves_per_simd = a->max_waves_per_simd;
    ret->array_count = a->array_count;
    ret->simd_arrays_per_engine = a->simd_arrays_per_engine;
    ret->num_xcc = a->num_xcc;
    ret->capability = a->capability;
    ret->debug_prop = a->debug_prop;
    ret->lds_base = 0x1000000000000ull;
    ret->lds_limit = 0x1000000000000ull | 0xffffffffull;
    ret->scratch_base = 0x2000000000000ull;
    ret->scratch_limit = 0x2000000000000ull | 0xffffffffull;
    ret->gpuvm_base = 0x1000000ull;
    ret->gpuvm_limit = 0x7fffffffffffull;
    return GPUCORE_OK;
}
