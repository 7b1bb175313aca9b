/* SPDX-License-Identifier: MIT */
/*
 * The core reader (gpucore/core.h). The ELF structure is parsed here, explicitly and strictly,
 * rather than with libelf: libelf cannot serve a zstd-compressed image, and every rejection
 * should name the offset and the field at fault. Everything structural is validated at open,
 * so later accessors only index arrays that are known to be consistent.
 *
 * The logical image is either the file itself (read with pread, or the caller's memory) or the
 * decompressed view of a zstd seekable file (core_frames.c); img_read() hides which. Nothing
 * the accessors hand out points into the file: program headers, notes and frames are copies,
 * so a file that changes or shrinks after open gives an error, never a fault.
 *
 * Every allocation a file's claims can cause is charged to the core's memory budget
 * (struct gc_core_mem): the frame index and cache, the note copies and index, the segment
 * table, and what callers reserve with gpucore_core_mem_reserve().
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpucore/core.h>

#include "core_elf.h"
#include "core_internal.h"
#include "core_zstd.h"
#include "gc_le.h"
#include "gc_util.h"

/* Tolerated deviations, each reported once with the first place it occurs and a count. */
enum quirk_kind {
    QUIRK_ALIGN_NOT_POW2,
    QUIRK_OFFSET_NOT_CONGRUENT,
    QUIRK_FLAGS_NO_READ,
    QUIRK_SPLIT_ABIVERSION,
    QUIRK_COUNT_
};

struct quirk_seen {
    uint32_t count;
    uint32_t phidx; /* first program header showing it */
    struct gc_elf_phdr ph;
};

struct rseg {
    struct gpucore_segment s;
    uint32_t phidx;
};

/* A PT_NOTE segment found in the program headers, loaded once they are all checked. */
struct note_seg {
    uint64_t offset, filesz, align;
    int clipped;
};

struct gpucore_core {
    struct gc_core_src src; /* the file (owned fd, or -1) or the caller's memory */
    uint64_t size;
    struct gc_core_mem mem;
    int compressed;
    struct gc_core_zimage z;
    uint64_t logical_size;
    uint32_t open_flags;

    struct gpucore_core_info info;
    struct rseg *segs; /* PT_LOADs with p_memsz > 0, sorted by address */
    uint32_t nsegs, segs_cap;
    struct gpucore_note *notes;
    uint32_t nnotes, notes_cap;
    uint8_t *note_bytes; /* copies of the PT_NOTE segments */
    uint64_t note_bytes_size;
    char **quirks;
    uint32_t nquirks;
    struct quirk_seen seen[QUIRK_COUNT_];
    char errmsg[GPUCORE_DIAG_MESSAGE_SIZE];
};

static const char *const ptype_names[] = {
    [PT_NULL] = "PT_NULL",     [PT_LOAD] = "PT_LOAD", [PT_DYNAMIC] = "PT_DYNAMIC",
    [PT_INTERP] = "PT_INTERP", [PT_NOTE] = "PT_NOTE", [PT_SHLIB] = "PT_SHLIB",
    [PT_PHDR] = "PT_PHDR",     [PT_TLS] = "PT_TLS",
};

static const char *ptype_name(uint32_t type)
{
    return type < GC_ARRAY_SIZE(ptype_names) && ptype_names[type] ? ptype_names[type] : "other";
}

/* ---------------------------------------------------------------------------------------- */
/* The logical image                                                                        */

/* Copy [off, off + n) of the logical image; the caller has checked the range. */
static gpucore_status_t img_read(gpucore_core_t *c, uint64_t off, void *buf, uint64_t n,
                                 gpucore_diag_t *diag)
{
    if (c->compressed)
        return gc_core_zimage_read(&c->z, off, buf, n, diag);
    return gc_core_src_read(&c->src, off, buf, n, diag);
}

/*
 * Charge @p n bytes to the core's budget. Decoded frames in the cache are only a cache: when
 * the bytes do not fit, they are dropped first.
 */
static gpucore_status_t charge(gpucore_core_t *c, uint64_t n, uint64_t off, const char *what,
                               gpucore_diag_t *diag)
{
    if (gc_core_mem_charge(&c->mem, n, off, what, NULL) == GPUCORE_OK)
        return GPUCORE_OK;
    if (c->compressed)
        gc_core_zimage_drop_cache(&c->z);
    return gc_core_mem_charge(&c->mem, n, off, what, diag);
}

/*
 * Make room for @p need elements in a charged array of @p *cap elements of @p elem bytes,
 * doubling it; the growth is charged to the budget.
 */
static gpucore_status_t grow(gpucore_core_t *c, void *arr, uint32_t *cap, uint32_t need,
                             size_t elem, uint64_t off, const char *what, gpucore_diag_t *diag)
{
    void *p, *np;
    uint32_t ncap;

    if (need <= *cap)
        return GPUCORE_OK;
    ncap = *cap ? *cap : 32;
    while (ncap < need)
        ncap = ncap > UINT32_MAX / 2 ? need : ncap * 2;
    GC_TRY(charge(c, (uint64_t)(ncap - *cap) * elem, off, what, diag));
    memcpy(&p, arr, sizeof(p));
    np = gc_realloc_array(p, ncap, elem);
    if (!np) {
        gc_core_mem_release(&c->mem, (uint64_t)(ncap - *cap) * elem);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    memcpy(arr, &np, sizeof(np));
    *cap = ncap;
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* ELF header                                                                               */

static gpucore_status_t check_ehdr(gpucore_core_t *c, const struct gc_elf_ehdr *eh,
                                   gpucore_diag_t *diag)
{
    const uint8_t *id = eh->ident;

    GC_FAIL_IF(memcmp(id, ELFMAG, SELFMAG), diag, GPUCORE_E_CORRUPT, 0,
               "offset 0x0: not an ELF file (magic %02x %02x %02x %02x)", id[0], id[1], id[2],
               id[3]);
    GC_FAIL_IF(id[EI_CLASS] != ELFCLASS64, diag, GPUCORE_E_CORRUPT, EI_CLASS,
               "offset 0x%x: EI_CLASS %u, only ELFCLASS64 (2) cores are supported", EI_CLASS,
               id[EI_CLASS]);
    GC_FAIL_IF(id[EI_DATA] != ELFDATA2LSB, diag, GPUCORE_E_CORRUPT, EI_DATA,
               "offset 0x%x: EI_DATA %u, only little-endian (ELFDATA2LSB) cores are supported",
               EI_DATA, id[EI_DATA]);
    GC_FAIL_IF(id[EI_VERSION] != EV_CURRENT || eh->version != EV_CURRENT, diag, GPUCORE_E_CORRUPT,
               id[EI_VERSION] != EV_CURRENT ? EI_VERSION : 20,
               "offset 0x%x: ELF version %u, expected EV_CURRENT (1)",
               id[EI_VERSION] != EV_CURRENT ? EI_VERSION : 20,
               id[EI_VERSION] != EV_CURRENT ? id[EI_VERSION] : eh->version);
    GC_FAIL_IF(eh->type != ET_CORE, diag, GPUCORE_E_CORRUPT, 16,
               "offset 0x10: e_type %u is not ET_CORE (4)", eh->type);
    GC_FAIL_IF(eh->ehsize != GC_ELF_EHDR_SIZE, diag, GPUCORE_E_CORRUPT, 52,
               "offset 0x34: e_ehsize %u, expected 64", eh->ehsize);

    c->info.e_machine = eh->machine;
    c->info.osabi = id[EI_OSABI];
    c->info.abiversion = id[EI_ABIVERSION];
    c->info.e_flags = eh->flags;
    c->info.kind = eh->machine == EM_AMDGPU ? GPUCORE_CORE_SPLIT : GPUCORE_CORE_UNIFIED;
    if (eh->machine == EM_AMDGPU && id[EI_ABIVERSION] != GC_ELFABIVERSION_AMDGPU_HSA_V5)
        c->seen[QUIRK_SPLIT_ABIVERSION].count++;
    return GPUCORE_OK;
}

/* The program header count, from e_phnum or, for PN_XNUM, from section header 0. */
static gpucore_status_t phdr_count(gpucore_core_t *c, const struct gc_elf_ehdr *eh, uint32_t *ret,
                                   gpucore_diag_t *diag)
{
    uint8_t raw[GC_ELF_SHDR_SIZE];
    struct gc_elf_shdr sh;

    if (eh->phnum != PN_XNUM) {
        *ret = eh->phnum;
        return GPUCORE_OK;
    }
    GC_FAIL_IF(eh->shoff == 0, diag, GPUCORE_E_CORRUPT, 56,
               "offset 0x38: e_phnum is PN_XNUM (0xffff) but there is no section header 0 "
               "(e_shoff 0) to hold the count");
    GC_FAIL_IF(eh->shentsize != GC_ELF_SHDR_SIZE, diag, GPUCORE_E_CORRUPT, 58,
               "offset 0x3a: e_shentsize %u, expected 64", eh->shentsize);
    GC_FAIL_IF(gc_out_of_bounds(eh->shoff, GC_ELF_SHDR_SIZE, c->logical_size), diag,
               GPUCORE_E_TRUNCATED, 40,
               "offset 0x28: section header 0 at e_shoff 0x%llx runs past the end of the file "
               "(0x%llx)",
               (unsigned long long)eh->shoff, (unsigned long long)c->logical_size);
    GC_TRY(img_read(c, eh->shoff, raw, sizeof(raw), diag));
    gc_elf_shdr_decode(raw, &sh);
    c->info.flags |= GPUCORE_INFO_PN_XNUM;
    *ret = sh.info;
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Program headers                                                                          */

static void note_quirk(gpucore_core_t *c, enum quirk_kind k, uint32_t idx,
                       const struct gc_elf_phdr *ph)
{
    if (!c->seen[k].count++) {
        c->seen[k].phidx = idx;
        c->seen[k].ph = *ph;
    }
}

/*
 * Check that the data of program header @p idx is inside the image; clip it (and flag the core)
 * when truncated files are allowed.
 */
static gpucore_status_t check_data(gpucore_core_t *c, uint32_t idx, uint64_t at,
                                   struct gc_elf_phdr *ph, gpucore_diag_t *diag)
{
    if (!ph->filesz || !gc_out_of_bounds(ph->offset, ph->filesz, c->logical_size))
        return GPUCORE_OK;
    GC_FAIL_IF(ph->filesz > UINT64_MAX - ph->offset, diag, GPUCORE_E_CORRUPT, at,
               "offset 0x%llx: program header %u (%s) p_offset 0x%llx + p_filesz 0x%llx wraps "
               "past 2^64",
               (unsigned long long)at, idx, ptype_name(ph->type), (unsigned long long)ph->offset,
               (unsigned long long)ph->filesz);
    GC_FAIL_IF(!(c->open_flags & GPUCORE_OPEN_ALLOW_TRUNCATED), diag, GPUCORE_E_TRUNCATED, at,
               "offset 0x%llx: program header %u (%s) p_offset+p_filesz 0x%llx exceeds file "
               "size 0x%llx",
               (unsigned long long)at, idx, ptype_name(ph->type),
               (unsigned long long)(ph->offset + ph->filesz), (unsigned long long)c->logical_size);
    ph->filesz = ph->offset < c->logical_size ? c->logical_size - ph->offset : 0;
    /*
     * The lost bytes are unknown, not zeros: shrink memsz with them so they read as
     * unavailable (a segment clipped to nothing keeps memsz; p_filesz 0 says the same).
     */
    if (ph->filesz)
        ph->memsz = ph->filesz;
    c->info.flags |= GPUCORE_INFO_FILE_TRUNCATED;
    return GPUCORE_OK;
}

static gpucore_status_t check_load(gpucore_core_t *c, uint32_t idx, uint64_t at,
                                   struct gc_elf_phdr *ph, gpucore_diag_t *diag)
{
    GC_FAIL_IF(ph->filesz > ph->memsz, diag, GPUCORE_E_CORRUPT, at,
               "offset 0x%llx: program header %u (PT_LOAD) p_filesz 0x%llx exceeds p_memsz "
               "0x%llx",
               (unsigned long long)at, idx, (unsigned long long)ph->filesz,
               (unsigned long long)ph->memsz);
    GC_FAIL_IF(ph->memsz > UINT64_MAX - ph->vaddr, diag, GPUCORE_E_CORRUPT, at,
               "offset 0x%llx: program header %u (PT_LOAD) p_vaddr 0x%llx + p_memsz 0x%llx "
               "wraps past 2^64",
               (unsigned long long)at, idx, (unsigned long long)ph->vaddr,
               (unsigned long long)ph->memsz);
    GC_TRY(check_data(c, idx, at, ph, diag));
    /* p_align 0 and 1 mean "no constraint" (ELF gABI). */
    if (ph->align > 1 && !gc_core_is_pow2(ph->align))
        note_quirk(c, QUIRK_ALIGN_NOT_POW2, idx, ph);
    else if (ph->align > 1 && ph->offset % ph->align != ph->vaddr % ph->align)
        note_quirk(c, QUIRK_OFFSET_NOT_CONGRUENT, idx, ph);
    /* A split core's flags without PF_R are the ROCm runtime's SHF_* values. A host core's are
       the mapping's own: the kernel writes an execute-only mapping (the [vsyscall] page, an
       mmap with PROT_EXEC alone) as PF_X, and flags 0 for PROT_NONE; nothing to tolerate. */
    if (c->info.kind == GPUCORE_CORE_SPLIT && ph->flags && !(ph->flags & PF_R))
        note_quirk(c, QUIRK_FLAGS_NO_READ, idx, ph);
    return GPUCORE_OK;
}

static int rseg_cmp(const void *a, const void *b)
{
    const struct rseg *x = a, *y = b;

    if (x->s.vaddr != y->s.vaddr)
        return x->s.vaddr < y->s.vaddr ? -1 : 1;
    return x->phidx < y->phidx ? -1 : x->phidx > y->phidx;
}

static gpucore_status_t sort_segments(gpucore_core_t *c, uint64_t phoff, gpucore_diag_t *diag)
{
    if (c->nsegs > 1)
        qsort(c->segs, c->nsegs, sizeof(*c->segs), rseg_cmp);
    for (uint32_t i = 1; i < c->nsegs; i++) {
        const struct rseg *a = &c->segs[i - 1], *b = &c->segs[i];
        uint32_t later = a->phidx > b->phidx ? a->phidx : b->phidx;

        GC_FAIL_IF(a->s.vaddr + a->s.memsz > b->s.vaddr, diag, GPUCORE_E_CORRUPT,
                   phoff + (uint64_t)later * GC_ELF_PHDR_SIZE,
                   "offset 0x%llx: program headers %u and %u (PT_LOAD) overlap: [0x%llx, "
                   "0x%llx) and [0x%llx, 0x%llx)",
                   (unsigned long long)(phoff + (uint64_t)later * GC_ELF_PHDR_SIZE), a->phidx,
                   b->phidx, (unsigned long long)a->s.vaddr,
                   (unsigned long long)(a->s.vaddr + a->s.memsz), (unsigned long long)b->s.vaddr,
                   (unsigned long long)(b->s.vaddr + b->s.memsz));
    }
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Notes                                                                                    */

/*
 * Walk the notes of one PT_NOTE segment: @p p holds its @p len bytes, which start at logical
 * offset @p off. Name and descriptor are padded to @p align (4, or 8 for segments with
 * p_align 8, as GNU property notes are), measured from the segment start. A segment clipped
 * at end of file (@p clipped) ends silently at its last complete note.
 */
static gpucore_status_t walk_notes(gpucore_core_t *c, const uint8_t *p, uint64_t len, uint64_t off,
                                   uint64_t align, int clipped, gpucore_diag_t *diag)
{
    uint64_t pos = 0;

    while (pos < len) {
        uint64_t at = off + pos, name, desc, next;
        uint32_t namesz, descsz, type;
        struct gpucore_note *n;

        if (len - pos < GC_ELF_NHDR_SIZE) {
            if (clipped)
                break;
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                               "offset 0x%llx: %llu bytes left in the PT_NOTE segment, a note "
                               "header needs 12",
                               (unsigned long long)at, (unsigned long long)(len - pos));
        }
        namesz = gc_le32_get(p + pos);
        descsz = gc_le32_get(p + pos + 4);
        type = gc_le32_get(p + pos + 8);
        name = pos + GC_ELF_NHDR_SIZE;
        if (namesz > len - name) {
            if (clipped)
                break;
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                               "offset 0x%llx: note namesz %u runs past the end of its PT_NOTE "
                               "segment (0x%llx bytes left)",
                               (unsigned long long)at, namesz, (unsigned long long)(len - name));
        }
        /* The padding after the last name or descriptor may be missing: tolerate that. */
        desc = gc_core_align_up(name + namesz, align);
        if (desc > len)
            desc = len;
        if (descsz > len - desc) {
            if (clipped)
                break;
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                               "offset 0x%llx: note descsz 0x%x runs past the end of its "
                               "PT_NOTE segment (0x%llx bytes left)",
                               (unsigned long long)at, descsz, (unsigned long long)(len - desc));
        }
        GC_FAIL_IF(namesz && p[name + namesz - 1] != '\0', diag, GPUCORE_E_CORRUPT, at,
                   "offset 0x%llx: note owner (namesz %u) is not NUL-terminated",
                   (unsigned long long)at, namesz);
        GC_FAIL_IF(c->nnotes >= GC_CORE_MAX_NOTES, diag, GPUCORE_E_LIMIT, at,
                   "offset 0x%llx: more than %u notes", (unsigned long long)at, GC_CORE_MAX_NOTES);
        GC_TRY(grow(c, &c->notes, &c->notes_cap, c->nnotes + 1, sizeof(*c->notes), at,
                    "the note index", diag));
        n = &c->notes[c->nnotes++];
        n->owner = namesz ? (const char *)p + name : "";
        n->type = type;
        n->desc = p + desc;
        n->desc_size = descsz;
        n->offset = at;
        next = gc_core_align_up(desc + descsz, align);
        pos = next < len ? next : len;
    }
    return GPUCORE_OK;
}

/*
 * Copy the PT_NOTE segments (in program header order) and parse their notes. The copies keep
 * the gpucore_note pointers valid until close whatever happens to the file.
 */
static gpucore_status_t load_notes(gpucore_core_t *c, const struct note_seg *ns, uint32_t n,
                                   gpucore_diag_t *diag)
{
    uint64_t total = 0, at = 0;

    for (uint32_t i = 0; i < n; i++)
        total += ns[i].filesz; /* each <= logical size, n <= 2^20: no wrap */
    if (!total)
        return GPUCORE_OK;
    GC_FAIL_IF(total > GC_CORE_MAX_NOTE_BYTES, diag, GPUCORE_E_LIMIT, ns[0].offset,
               "offset 0x%llx: PT_NOTE segments hold 0x%llx bytes, more than the 0x%llx accepted",
               (unsigned long long)ns[0].offset, (unsigned long long)total,
               (unsigned long long)GC_CORE_MAX_NOTE_BYTES);
    GC_TRY(charge(c, total, ns[0].offset, "the PT_NOTE segments", diag));
    c->note_bytes = gc_malloc((size_t)total);
    if (!c->note_bytes) {
        gc_core_mem_release(&c->mem, total);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "out of memory (0x%llx bytes for the PT_NOTE segments)",
                           (unsigned long long)total);
    }
    c->note_bytes_size = total;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *bytes = c->note_bytes + at;

        GC_TRY(img_read(c, ns[i].offset, bytes, ns[i].filesz, diag));
        at += ns[i].filesz;
        GC_TRY(walk_notes(c, bytes, ns[i].filesz, ns[i].offset, ns[i].align == 8 ? 8 : 4,
                          ns[i].clipped, diag));
    }
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Quirks                                                                                   */

static gpucore_status_t make_quirks(gpucore_core_t *c, gpucore_diag_t *diag)
{
    char buf[320];

    c->quirks = gc_calloc_array(QUIRK_COUNT_, sizeof(*c->quirks));
    GC_FAIL_IF(!c->quirks, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    for (int k = 0; k < QUIRK_COUNT_; k++) {
        const struct quirk_seen *q = &c->seen[k];
        const struct gc_elf_phdr *ph = &q->ph;
        int len = 0;

        if (!q->count)
            continue;
        switch ((enum quirk_kind)k) {
        case QUIRK_ALIGN_NOT_POW2:
            len = snprintf(buf, sizeof(buf),
                           "program header %u (PT_LOAD): p_align 0x%llx is not a power of two "
                           "(the ROCm runtime writes a shift count)",
                           q->phidx, (unsigned long long)ph->align);
            break;
        case QUIRK_OFFSET_NOT_CONGRUENT:
            len = snprintf(buf, sizeof(buf),
                           "program header %u (PT_LOAD): p_offset 0x%llx is not congruent to "
                           "p_vaddr 0x%llx modulo p_align 0x%llx",
                           q->phidx, (unsigned long long)ph->offset, (unsigned long long)ph->vaddr,
                           (unsigned long long)ph->align);
            break;
        case QUIRK_FLAGS_NO_READ:
            len = snprintf(buf, sizeof(buf),
                           "program header %u (PT_LOAD): p_flags 0x%x lack PF_R (the ROCm "
                           "runtime writes SHF_* values)",
                           q->phidx, ph->flags);
            break;
        case QUIRK_SPLIT_ABIVERSION:
            len = snprintf(buf, sizeof(buf),
                           "split core (EM_AMDGPU) with EI_ABIVERSION %u, expected 3 "
                           "(ELFABIVERSION_AMDGPU_HSA_V5; the ROCm runtime writes 0)",
                           c->info.abiversion);
            break;
        case QUIRK_COUNT_:
            break;
        }
        if (q->count > 1 && len > 0 && (size_t)len < sizeof(buf))
            snprintf(buf + len, sizeof(buf) - (size_t)len, "; %u program headers like this",
                     q->count);
        c->quirks[c->nquirks] = gc_strdup(buf);
        GC_FAIL_IF(!c->quirks[c->nquirks], diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        c->nquirks++;
    }
    if (c->nquirks)
        c->info.flags |= GPUCORE_INFO_QUIRKS;
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Open                                                                                     */

/* Program headers decoded per read: a small stack buffer, whatever the table's size. */
#define PH_CHUNK 32u

/* Check program header @p i and record it as a segment or a PT_NOTE. */
static gpucore_status_t take_phdr(gpucore_core_t *c, uint32_t i, uint64_t at, struct gc_elf_phdr *p,
                                  struct note_seg **ns, uint32_t *nns, uint32_t *ns_cap,
                                  gpucore_diag_t *diag)
{
    uint64_t filesz = p->filesz;

    if (p->type == PT_LOAD) {
        struct rseg *s;

        GC_TRY(check_load(c, i, at, p, diag));
        c->info.load_bytes += p->filesz;
        c->info.load_memsz += p->memsz;
        if (!p->memsz) /* describes no memory: nothing to look up */
            return GPUCORE_OK;
        GC_TRY(grow(c, &c->segs, &c->segs_cap, c->nsegs + 1, sizeof(*c->segs), at,
                    "the segment table", diag));
        s = &c->segs[c->nsegs++];
        memset(s, 0, sizeof(*s)); /* padding too: callers may compare segments bytewise */
        s->s.vaddr = p->vaddr;
        s->s.memsz = p->memsz;
        s->s.filesz = p->filesz;
        s->s.offset = p->offset;
        s->s.flags = p->flags;
        s->s.align = p->align;
        s->phidx = i;
    } else if (p->type == PT_NOTE) {
        GC_TRY(check_data(c, i, at, p, diag));
        GC_TRY(grow(c, ns, ns_cap, *nns + 1, sizeof(**ns), at, "the PT_NOTE list", diag));
        (*ns)[*nns].offset = p->offset;
        (*ns)[*nns].filesz = p->filesz;
        (*ns)[*nns].align = p->align;
        (*ns)[*nns].clipped = p->filesz != filesz;
        (*nns)++;
    }
    return GPUCORE_OK;
}

static gpucore_status_t parse_elf(gpucore_core_t *c, gpucore_diag_t *diag)
{
    uint8_t raw[GC_ELF_EHDR_SIZE], table[PH_CHUNK * GC_ELF_PHDR_SIZE];
    struct gc_elf_ehdr eh;
    struct note_seg *ns = NULL;
    uint32_t phnum = 0, nns = 0, ns_cap = 0;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(c->logical_size < GC_ELF_EHDR_SIZE, diag, GPUCORE_E_TRUNCATED, 0,
               "offset 0x0: the file ends inside the ELF header (0x%llx of 64 bytes)",
               (unsigned long long)c->logical_size);
    GC_TRY(img_read(c, 0, raw, sizeof(raw), diag));
    gc_elf_ehdr_decode(raw, &eh);
    GC_TRY(check_ehdr(c, &eh, diag));
    GC_TRY(phdr_count(c, &eh, &phnum, diag));
    GC_FAIL_IF(phnum > GC_CORE_MAX_PHDRS, diag, GPUCORE_E_LIMIT,
               eh.phnum == PN_XNUM ? eh.shoff + 44 : 56,
               "offset 0x%llx: %u program headers, more than the %u accepted",
               (unsigned long long)(eh.phnum == PN_XNUM ? eh.shoff + 44 : 56), phnum,
               GC_CORE_MAX_PHDRS);
    c->info.phnum = phnum;
    if (phnum == 0)
        return make_quirks(c, diag);
    GC_FAIL_IF(eh.phentsize != GC_ELF_PHDR_SIZE, diag, GPUCORE_E_CORRUPT, 54,
               "offset 0x36: e_phentsize %u, expected 56", eh.phentsize);
    /* A count is only as large as the bytes that hold it: 56 per program header. */
    GC_FAIL_IF(gc_out_of_bounds(eh.phoff, (uint64_t)phnum * GC_ELF_PHDR_SIZE, c->logical_size),
               diag, GPUCORE_E_TRUNCATED, 32,
               "offset 0x20: program header table at e_phoff 0x%llx (%u entries) runs past the "
               "end of the file (0x%llx)",
               (unsigned long long)eh.phoff, phnum, (unsigned long long)c->logical_size);

    for (uint32_t i = 0; i < phnum && st == GPUCORE_OK; i += PH_CHUNK) {
        uint32_t k = phnum - i < PH_CHUNK ? phnum - i : PH_CHUNK;
        uint64_t base = eh.phoff + (uint64_t)i * GC_ELF_PHDR_SIZE;

        st = img_read(c, base, table, (uint64_t)k * GC_ELF_PHDR_SIZE, diag);
        for (uint32_t j = 0; j < k && st == GPUCORE_OK; j++) {
            struct gc_elf_phdr p;

            gc_elf_phdr_decode(table + (size_t)j * GC_ELF_PHDR_SIZE, &p);
            st = take_phdr(c, i + j, base + (uint64_t)j * GC_ELF_PHDR_SIZE, &p, &ns, &nns, &ns_cap,
                           diag);
        }
    }
    c->info.load_count = c->nsegs;
    if (st == GPUCORE_OK)
        st = sort_segments(c, eh.phoff, diag);
    if (st == GPUCORE_OK)
        st = load_notes(c, ns, nns, diag);
    if (st == GPUCORE_OK)
        st = make_quirks(c, diag);
    gc_core_mem_free(&c->mem, ns, (uint64_t)ns_cap * sizeof(*ns));
    return st;
}

static int is_zstd(const uint8_t *p, uint64_t size)
{
    uint32_t magic;

    if (size < 4)
        return 0;
    magic = gc_le32_get(p);
    return magic == GC_ZSTD_FRAME_MAGIC ||
           (magic & GC_ZSTD_SKIPPABLE_MASK) == GC_ZSTD_SKIPPABLE_START;
}

/* @p content: the bytes the input really holds, which the default budget is a multiple of. */
static gpucore_status_t load(gpucore_core_t *c, const struct gpucore_open_opts *opts,
                             uint64_t content, gpucore_diag_t *diag)
{
    uint8_t magic[4];
    uint32_t cache;
    uint64_t max_frame, budget;
    int clipped = 0;

    c->open_flags = GC_OPTS_GET(opts, gpucore_open_opts, flags, 0u);
    cache = GC_OPTS_GET(opts, gpucore_open_opts, frame_cache, 0u);
    max_frame = GC_OPTS_GET(opts, gpucore_open_opts, max_frame_size, (uint64_t)0);
    budget = GC_OPTS_GET(opts, gpucore_open_opts, mem_budget, (uint64_t)0);
    c->mem.limit = budget ? budget : gc_core_mem_default(content);
    c->info.file_size = c->size;
    GC_FAIL_IF(c->size == 0, diag, GPUCORE_E_TRUNCATED, 0, "empty file");
    GC_TRY(gc_core_src_read(&c->src, 0, magic, c->size < 4 ? c->size : 4, diag));
    if (is_zstd(magic, c->size)) {
        c->compressed = 1;
        c->info.flags |= GPUCORE_INFO_COMPRESSED;
        GC_TRY(gc_core_zimage_open(
                &c->z, &c->src, &c->mem, max_frame ? max_frame : GC_CORE_DEFAULT_MAX_FRAME,
                cache ? cache : GC_CORE_DEFAULT_FRAME_CACHE, 0,
                !!(c->open_flags & GPUCORE_OPEN_ALLOW_TRUNCATED), &clipped, diag));
        c->logical_size = c->z.logical_size;
        c->info.frame_count = c->z.nframes;
        if (clipped)
            c->info.flags |= GPUCORE_INFO_FILE_TRUNCATED;
    } else {
        c->logical_size = c->size;
    }
    c->info.logical_size = c->logical_size;
    /* Reading the structures decodes at most GPUCORE_OPEN_DECODE_FACTOR x the budget. */
    if (c->compressed && c->mem.limit <= GC_CORE_NONE / GPUCORE_OPEN_DECODE_FACTOR)
        c->z.decode_limit = GPUCORE_OPEN_DECODE_FACTOR * c->mem.limit;
    GC_TRY(parse_elf(c, diag));
    c->z.decode_limit = GC_CORE_NONE;
    c->info.note_count = c->nnotes;
    return GPUCORE_OK;
}

static gpucore_status_t check_open_args(const struct gpucore_open_opts *opts, const void *ret,
                                        gpucore_diag_t *diag)
{
    uint32_t flags = GC_OPTS_GET(opts, gpucore_open_opts, flags, 0u);

    GC_FAIL_IF(!ret, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL ret_core");
    GC_TRY(gc_core_opts_check(opts, GC_OPTS_END(gpucore_open_opts, mem_budget), "open options",
                              diag));
    GC_FAIL_IF(flags & ~GPUCORE_OPEN_ALLOW_TRUNCATED, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "unknown open flags 0x%x", flags);
    return GPUCORE_OK;
}

static gpucore_core_t *core_new(void)
{
    gpucore_core_t *c = gc_calloc_array(1, sizeof(*c));

    if (c)
        c->src.fd = -1;
    return c;
}

GPUCORE_API gpucore_status_t gpucore_core_open_memory(const void *data, size_t size,
                                                      const struct gpucore_open_opts *opts,
                                                      gpucore_core_t **ret_core,
                                                      gpucore_diag_t *reterr_diag)
{
    static const uint8_t none[1];
    gpucore_core_t *c;
    gpucore_status_t st;

    GC_TRY(check_open_args(opts, ret_core, reterr_diag));
    GC_FAIL_IF(!data && size, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL data");
    c = core_new();
    GC_FAIL_IF(!c, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    c->src.mem = data ? data : none;
    c->src.size = c->size = size;
    st = load(c, opts, size, reterr_diag);
    if (st < 0) {
        gpucore_core_close(c);
        return st;
    }
    *ret_core = c;
    return GPUCORE_OK;
}

/* What a file type is called in "not a regular file" messages. */
static const char *file_kind(mode_t mode)
{
    static const struct {
        mode_t type;
        const char *name;
    } kinds[] = {
        { S_IFDIR, "a directory" },    { S_IFIFO, "a FIFO" },    { S_IFCHR, "a character device" },
        { S_IFBLK, "a block device" }, { S_IFSOCK, "a socket" }, { S_IFLNK, "a symbolic link" },
    };

    for (size_t i = 0; i < GC_ARRAY_SIZE(kinds); i++)
        if ((mode & S_IFMT) == kinds[i].type)
            return kinds[i].name;
    return "not a regular file";
}

/* Open a core on @p fd, which becomes the core's (closed here on failure). */
static gpucore_status_t open_fd_owned(int fd, const struct gpucore_open_opts *opts,
                                      gpucore_core_t **ret_core, gpucore_diag_t *diag)
{
    gpucore_core_t *c;
    gpucore_status_t st;
    struct stat sb;
    uint64_t content;

    if (fstat(fd, &sb) != 0) {
        int e = errno;

        close(fd);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "%s, not a regular file: only regular files are read as cores",
                           file_kind(sb.st_mode));
    }
    c = core_new();
    if (!c) {
        close(fd);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    c->src.fd = fd;
    c->src.size = c->size = (uint64_t)sb.st_size;
    /*
     * What the file really holds: its allocated bytes (holes hold nothing), at most its size.
     * A file system that reports no blocks gets the budget's floor.
     */
    content = (uint64_t)sb.st_blocks * 512u;
    if (content > c->size)
        content = c->size;
    st = load(c, opts, content, diag);
    if (st < 0) {
        gpucore_core_close(c);
        return st;
    }
    *ret_core = c;
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_core_open_fd(int fd, const struct gpucore_open_opts *opts,
                                                  gpucore_core_t **ret_core,
                                                  gpucore_diag_t *reterr_diag)
{
    int own;

    GC_FAIL_IF(fd < 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "bad file descriptor %d", fd);
    GC_TRY(check_open_args(opts, ret_core, reterr_diag));
    own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        int e = errno;

        return gc_diag_set(reterr_diag, e == EMFILE || e == ENFILE ? GPUCORE_E_IO : GPUCORE_E_INVAL,
                           GC_NO_OFFSET, "cannot duplicate file descriptor %d: %s", fd,
                           strerror(e));
    }
    return open_fd_owned(own, opts, ret_core, reterr_diag);
}

GPUCORE_API gpucore_status_t gpucore_core_open(const char *path,
                                               const struct gpucore_open_opts *opts,
                                               gpucore_core_t **ret_core,
                                               gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t *diag = reterr_diag;
    int fd, fl;

    GC_FAIL_IF(!path, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL path");
    GC_TRY(check_open_args(opts, ret_core, diag));
    /*
     * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, and a device
     * node could act on the open; fstat in open_fd_owned() then refuses anything but a
     * regular file, where O_NONBLOCK means nothing and is cleared anyway.
     */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;

        return gc_diag_set(diag, e == ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO, GC_NO_OFFSET,
                           "cannot open: %s", strerror(e));
    }
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return open_fd_owned(fd, opts, ret_core, diag);
}

GPUCORE_API void gpucore_core_close(gpucore_core_t *core)
{
    if (!core)
        return;
    for (uint32_t i = 0; i < core->nquirks; i++)
        gc_free(core->quirks[i]);
    gc_free(core->quirks);
    gc_free(core->notes);
    gc_free(core->note_bytes);
    gc_free(core->segs);
    gc_core_zimage_done(&core->z);
    if (core->src.fd >= 0)
        close(core->src.fd);
    gc_free(core);
}

/* ---------------------------------------------------------------------------------------- */
/* Memory budget                                                                            */

GPUCORE_API gpucore_status_t gpucore_core_mem_reserve(gpucore_core_t *core, uint64_t bytes,
                                                      const char *what, gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!core, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL core");
    return charge(core, bytes, GC_NO_OFFSET, what ? what : "the caller", reterr_diag);
}

GPUCORE_API void gpucore_core_mem_release(gpucore_core_t *core, uint64_t bytes)
{
    if (core)
        gc_core_mem_release(&core->mem, bytes);
}

GPUCORE_API gpucore_status_t gpucore_core_mem_get(const gpucore_core_t *core,
                                                  struct gpucore_core_mem *ret_mem)
{
    if (!core || !ret_mem)
        return GPUCORE_E_INVAL;
    ret_mem->budget = core->mem.limit;
    ret_mem->used = core->mem.used;
    ret_mem->peak = core->mem.peak;
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Accessors                                                                                */

GPUCORE_API gpucore_status_t gpucore_core_get_info(const gpucore_core_t *core,
                                                   struct gpucore_core_info *ret_info)
{
    if (!core || !ret_info)
        return GPUCORE_E_INVAL;
    *ret_info = core->info;
    return GPUCORE_OK;
}

GPUCORE_API uint32_t gpucore_core_note_count(const gpucore_core_t *core)
{
    return core ? core->nnotes : 0;
}

GPUCORE_API gpucore_status_t gpucore_core_note(const gpucore_core_t *core, uint32_t index,
                                               struct gpucore_note *ret_note)
{
    if (!core || !ret_note || index >= core->nnotes)
        return GPUCORE_E_INVAL;
    *ret_note = core->notes[index];
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_core_find_note(const gpucore_core_t *core, const char *owner,
                                                    uint32_t type, uint32_t *inout_index,
                                                    struct gpucore_note *ret_note)
{
    if (!core || !owner || !inout_index)
        return GPUCORE_E_INVAL;
    for (uint32_t i = *inout_index; i < core->nnotes; i++) {
        if (core->notes[i].type == type && !strcmp(core->notes[i].owner, owner)) {
            *inout_index = i;
            if (ret_note)
                *ret_note = core->notes[i];
            return GPUCORE_OK;
        }
    }
    return GPUCORE_E_NOTFOUND;
}

GPUCORE_API uint32_t gpucore_core_segment_count(const gpucore_core_t *core)
{
    return core ? core->nsegs : 0;
}

GPUCORE_API gpucore_status_t gpucore_core_segment(const gpucore_core_t *core, uint32_t index,
                                                  struct gpucore_segment *ret_segment)
{
    if (!core || !ret_segment || index >= core->nsegs)
        return GPUCORE_E_INVAL;
    *ret_segment = core->segs[index].s;
    return GPUCORE_OK;
}

/* The segment containing @p addr, or NULL. */
static const struct rseg *find_segment(const gpucore_core_t *c, uint64_t addr)
{
    uint32_t lo = 0, hi = c->nsegs;

    /* First segment starting above addr; the one before it is the only candidate. */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (c->segs[mid].s.vaddr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr - c->segs[lo - 1].s.vaddr >= c->segs[lo - 1].s.memsz)
        return NULL;
    return &c->segs[lo - 1];
}

static gpucore_status_t core_fail(gpucore_core_t *c, const gpucore_diag_t *d)
{
    memcpy(c->errmsg, d->message, sizeof(c->errmsg));
    return d->status;
}

GPUCORE_API gpucore_status_t gpucore_core_read(gpucore_core_t *core, uint64_t addr, void *buf,
                                               uint64_t size, uint64_t *ret_done)
{
    uint8_t *out = buf;
    uint64_t done = 0;
    gpucore_diag_t d;
    gpucore_status_t st = GPUCORE_OK;

    if (!core || (!buf && size))
        return GPUCORE_E_INVAL;
    while (done < size) {
        uint64_t a = addr + done, rel, n, in_file;
        const struct rseg *s;

        if (a < addr) { /* wrapped past 2^64: no segment reaches there */
            st = gc_diag_set(&d, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
                             "read of 0x%llx bytes at 0x%llx runs past 2^64",
                             (unsigned long long)size, (unsigned long long)addr);
            break;
        }
        s = find_segment(core, a);
        if (!s || !s->s.filesz) {
            st = gc_diag_set(&d, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
                             s ? "0x%llx is in segment [0x%llx, 0x%llx), which has no data in "
                                 "the core (p_filesz 0)"
                               : "0x%llx is in no segment of the core",
                             (unsigned long long)a, (unsigned long long)(s ? s->s.vaddr : 0),
                             (unsigned long long)(s ? s->s.vaddr + s->s.memsz : 0));
            break;
        }
        rel = a - s->s.vaddr;
        n = s->s.memsz - rel < size - done ? s->s.memsz - rel : size - done;
        in_file = rel < s->s.filesz ? s->s.filesz - rel : 0;
        if (in_file > n)
            in_file = n;
        if (in_file) {
            st = img_read(core, s->s.offset + rel, out + done, in_file, &d);
            if (st < 0)
                break;
        }
        /* [filesz, memsz) of a segment with data reads as zeros, as in the process. */
        memset(out + done + in_file, 0, (size_t)(n - in_file));
        done += n;
    }
    if (ret_done)
        *ret_done = done;
    return st < 0 ? core_fail(core, &d) : GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_core_read_file(gpucore_core_t *core, uint64_t offset,
                                                    void *buf, uint64_t size)
{
    gpucore_diag_t d;

    if (!core || (!buf && size))
        return GPUCORE_E_INVAL;
    if (gc_out_of_bounds(offset, size, core->logical_size)) {
        gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET,
                    "bytes [0x%llx, +0x%llx) are outside the 0x%llx-byte image",
                    (unsigned long long)offset, (unsigned long long)size,
                    (unsigned long long)core->logical_size);
        return core_fail(core, &d);
    }
    if (img_read(core, offset, buf, size, &d) < 0)
        return core_fail(core, &d);
    return GPUCORE_OK;
}

gpucore_status_t gc_core_image_read(gpucore_core_t *core, uint64_t off, void *buf, uint64_t n,
                                    gpucore_diag_t *diag)
{
    return img_read(core, off, buf, n, diag);
}

uint64_t gc_core_image_size(const gpucore_core_t *core)
{
    return core->logical_size;
}

GPUCORE_API const char *gpucore_core_errmsg(const gpucore_core_t *core)
{
    return core ? core->errmsg : "";
}

GPUCORE_API uint32_t gpucore_core_quirk_count(const gpucore_core_t *core)
{
    return core ? core->nquirks : 0;
}

GPUCORE_API const char *gpucore_core_quirk(const gpucore_core_t *core, uint32_t index)
{
    return core && index < core->nquirks ? core->quirks[index] : NULL;
}
