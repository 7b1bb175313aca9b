/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains with libdw (srcline.h): the compilation unit covering the
 * PC (dwarf_addrdie, else each unit's ranges), its line (dwarf_getsrc_die), and the chain of
 * scopes whose ranges hold the PC (walked here without recursion, their ranges read by
 * srcline_ranges.c), whose function scopes (subprogram, inlined subroutines) are the frames, as
 * eu-addr2line -i reports them. Every DIE and range entry the walk reads is a step of the
 * lookup's and the handle's budgets.
 */
#include "srcline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "srcline_internal.h"

static const char WHY_BUDGET[] = "DWARF walk budget exhausted";
static const char WHY_HANDLE_BUDGET[] = "DWARF walk budget of this code object exhausted";
static const char WHY_DEPTH[] = "DWARF scopes nested too deep";
static const char WHY_ABBREV[] = "DWARF abbreviation with too many attributes without data";
#define SPELL_(x) #x
#define SPELL(x) SPELL_(x)
static const char WHY_INFLATE[] = "compressed DWARF sections declare more than "
                                  SPELL(GC_SRCLINE_INFLATE_FACTOR) " times the code object's size";

/* The sections srcline_ranges.c reads, by name (as libdw names them; .zdebug_ is the GNU
   compressed form, decompressed in place by libdw). */
static const struct {
    int idx;
    const char *name;
} section_names[] = {
    { GC_SL_INFO, "debug_info" },         { GC_SL_ABBREV, "debug_abbrev" },
    { GC_SL_RANGES, "debug_ranges" },     { GC_SL_RNGLISTS, "debug_rnglists" },
    { GC_SL_ADDR, "debug_addr" },
};

static const char *section_name(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh)
{
    if (!gelf_getshdr(scn, sh))
        return NULL;
    return elf_strptr(elf, shstrndx, sh->sh_name);
}

static int is_dwarf_name(const char *n)
{
    return n && (strncmp(n, ".debug_", 7) == 0 || strncmp(n, ".zdebug_", 8) == 0);
}

/* A name libdw may take DWARF from, and so decompress: is_dwarf_name(), or an LTO section's
   (".gnu.debuglto_.debug_info": libdw reads those when nothing else is there). */
static int is_inflated_name(const char *n)
{
    return is_dwarf_name(n) || (n && strncmp(n, ".gnu.debuglto_", 14) == 0);
}

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* The bytes libdw would decompress the DWARF sections to: what their compression headers
   declare (ELF's Chdr, or the "ZLIB" + big-endian size of .zdebug_), summed (saturating). */
static uint64_t declared_inflated(Elf *elf)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    uint64_t sum = 0;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *n = section_name(elf, shstrndx, scn, &sh);
        uint64_t add = 0;

        if (!is_inflated_name(n) || sh.sh_type == SHT_NOBITS)
            continue;
        if (sh.sh_flags & SHF_COMPRESSED) {
            GElf_Chdr ch;

            if (gelf_getchdr(scn, &ch))
                add = ch.ch_size;
        } else if (n[1] == 'z') {
            Elf_Data *d = elf_rawdata(scn, NULL);

            if (d && d->d_buf && d->d_size >= 12 && memcmp(d->d_buf, "ZLIB", 4) == 0)
                add = be64((const uint8_t *)d->d_buf + 4);
        }
        sum = add > UINT64_MAX - sum ? UINT64_MAX : sum + add;
    }
    return sum;
}

/* The sections' bytes as libdw holds them: the first section of each name that is not
   SHT_NOBITS nor in a group (libdw's rule), after libdw decompressed it. */
static void find_sections(struct gc_srcline *s)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(s->elf, &shstrndx) != 0)
        return;
    while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *n = section_name(s->elf, shstrndx, scn, &sh);

        if (!is_dwarf_name(n) || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_GROUP))
            continue;
        n += n[1] == 'z' ? 2 : 1;
        for (size_t i = 0; i < sizeof(section_names) / sizeof(section_names[0]); i++) {
            struct gc_sl_data *d = &s->sec[section_names[i].idx];
            Elf_Data *data;

            if (d->p || strcmp(n, section_names[i].name) != 0)
                continue;
            data = elf_getdata(scn, NULL);
            if (data && data->d_buf && data->d_size) {
                d->p = data->d_buf;
                d->size = data->d_size;
            }
        }
    }
}

/* The budgets (srcline.h), from the bytes the walk reads. */
static void set_budgets(struct gc_srcline *s)
{
    uint64_t bytes = (uint64_t)s->sec[GC_SL_INFO].size + s->sec[GC_SL_ABBREV].size +
                     s->sec[GC_SL_RANGES].size + s->sec[GC_SL_RNGLISTS].size;

    s->lookup_budget = GC_SRCLINE_STEPS_PER_BYTE * bytes + GC_SRCLINE_STEPS_MIN;
    s->handle_budget = GC_SRCLINE_HANDLE_STEPS_PER_BYTE * bytes + GC_SRCLINE_HANDLE_STEPS_MIN;
    s->stats.budget = s->lookup_budget;
    s->stats.total_budget = s->handle_budget;
}

gpucore_status_t gc_srcline_open_why(const uint8_t *bytes, size_t size, struct gc_srcline **ret,
                                     const char **why)
{
    struct gc_srcline *s;

    if (why)
        *why = NULL;
    if (!ret)
        return GPUCORE_E_INVAL;
    *ret = NULL;
    if (!bytes || !size)
        return GPUCORE_E_INVAL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return GPUCORE_E_NOTSUP;
    s = calloc(1, sizeof(*s));
    if (!s)
        return GPUCORE_E_NOMEM;
    /* ELF_C_READ over memory: libelf reads the bytes, never writes them. */
    s->elf = elf_memory((char *)(uintptr_t)bytes, size);
    if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
        gc_srcline_close(s);
        return GPUCORE_E_CORRUPT;
    }
    /* Before libdw decompresses anything. */
    if (declared_inflated(s->elf) / GC_SRCLINE_INFLATE_FACTOR > size) {
        gc_srcline_close(s);
        if (why)
            *why = WHY_INFLATE;
        return GPUCORE_E_LIMIT;
    }
    s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
    if (!s->dw) {
        /* No .debug_info (DWARF_E_NO_DWARF) or one libdw cannot read: no line information. */
        gc_srcline_close(s);
        return GPUCORE_E_NOTFOUND;
    }
    /* A supplementary file (.gnu_debugaltlink, DW_FORM_GNU_strp_alt / ref_alt) is never looked
       for: libdw would open the path the code object names (a FIFO blocks for ever). The
       object is its own: such references read its own sections, harmlessly wrong. dwarf_end
       does not free an alternate it did not open. */
    dwarf_setalt(s->dw, s->dw);
    find_sections(s);
    set_budgets(s);
    *ret = s;
    return GPUCORE_OK;
}

gpucore_status_t gc_srcline_open(const uint8_t *bytes, size_t size, struct gc_srcline **ret)
{
    return gc_srcline_open_why(bytes, size, ret, NULL);
}

void gc_srcline_close(struct gc_srcline *s)
{
    if (!s)
        return;
    if (s->dw)
        dwarf_end(s->dw);
    if (s->elf)
        elf_end(s->elf);
    for (size_t i = 0; i < GC_SRCLINE_RESULT_CACHE; i++)
        free(s->cache[i].res);
    free(s->memo);
    free(s);
}

void gc_srcline_stats(const struct gc_srcline *s, struct gc_srcline_stats *st)
{
    if (!st)
        return;
    if (!s)
        memset(st, 0, sizeof(*st));
    else
        *st = s->stats;
}

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, GC_SRCLINE_NAME_MAX, "%s", src ? src : "");
}

/* A file name of the line table; a relative one (libdw leaves a DWARF 5 directory that is
   itself relative unjoined) is joined to the unit's DW_AT_comp_dir, as LLVM's tools do. */
static void copy_file(char *dst, const char *src, const char *comp_dir)
{
    if (src && *src && *src != '/' && comp_dir && *comp_dir)
        snprintf(dst, GC_SRCLINE_NAME_MAX, "%s%s%s", comp_dir,
                 comp_dir[strlen(comp_dir) - 1] == '/' ? "" : "/", src);
    else
        copy_name(dst, src);
}

/* A function's name: DW_AT_name, else the linkage name, following abstract origins. */
static const char *die_function_name(Dwarf_Die *die)
{
    static const int attrs[] = { DW_AT_name, DW_AT_linkage_name, DW_AT_MIPS_linkage_name };
    Dwarf_Attribute a;

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        const char *n = dwarf_attr_integrate(die, attrs[i], &a) ? dwarf_formstring(&a) : NULL;

        if (n && *n)
            return n;
    }
    return NULL;
}

static int is_function(Dwarf_Die *die)
{
    int tag = dwarf_tag(die);

    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* The call site of an inlined instance into frame f (file "" / line 0 when absent). */
static void call_site(Dwarf_Die *inl, Dwarf_Files *files, size_t nfiles, const char *comp_dir,
                      struct gc_srcline_frame *f)
{
    Dwarf_Attribute a;
    Dwarf_Word v;

    if (files && dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &v) == 0 && v < nfiles)
        copy_file(f->file, dwarf_filesrc(files, (size_t)v, NULL, NULL), comp_dir);
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &v) == 0 && v <= UINT32_MAX)
        f->line = (uint32_t)v;
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_column, &a), &v) == 0 && v <= UINT32_MAX)
        f->column = (uint32_t)v;
}

/* The compilation unit covering the PC: .debug_aranges when present (LLVM leaves it out by
   default), else each unit's ranges in turn, at most GC_SRCLINE_MAX_UNITS of them. */
static gpucore_status_t find_cu(struct gc_srcline *s, struct gc_sl_walk *w, Dwarf_Die *cu,
                                struct gc_sl_unit *u, const char **why)
{
    Dwarf_Off off = 0, next;
    size_t hsize;

    if (dwarf_addrdie(s->dw, w->pc, cu))
        return gc_sl_unit_init(s, cu, u) == 0 ? GPUCORE_OK : GPUCORE_E_NOTFOUND;
    for (unsigned n = 0; n < GC_SRCLINE_MAX_UNITS; n++) {
        if (gc_sl_charge(w, 1) != 0) {
            *why = WHY_BUDGET;
            return GPUCORE_E_LIMIT;
        }
        if (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) != 0)
            break;
        if (dwarf_offdie(s->dw, off + hsize, cu) && gc_sl_unit_init(s, cu, u) == 0) {
            int has = gc_sl_die_has_pc(s, w, u, cu);

            if (has == 1)
                return GPUCORE_OK;
            if (has == -1) {
                *why = WHY_BUDGET;
                return GPUCORE_E_LIMIT;
            }
            if (has == -2)
                return GPUCORE_E_NOMEM;
        }
        if (next <= off)
            break;
        off = next;
    }
    return GPUCORE_E_NOTFOUND;
}

/* The scopes holding the PC, outermost (the unit) first: from the unit, descend into the child
   whose ranges hold it, without recursion. libdw's dwarf_getscopes would do this recursively (a
   hostile unit nested deep enough would overflow the stack), leaks memory on some malformed
   units (elfutils 0.188), and asks dwarf_haspc of every DIE, which reads a range list many DIEs
   share once per DIE (64 K blocks sharing a list of 64 K entries: 100 s). Here every DIE
   examined and range entry decoded is a step of the walk's budget, a shared list is decoded
   once, and a unit deeper than GC_SRCLINE_MAX_DEPTH or whose abbreviations are not sound is
   refused. Namespaces are not searched (C++ functions defined inside a DW_TAG_namespace are not
   found). */
static gpucore_status_t scope_path(struct gc_srcline *s, struct gc_sl_walk *w,
                                   const struct gc_sl_unit *u, Dwarf_Die *cu, Dwarf_Die *path,
                                   unsigned *ret_n, const char **why)
{
    unsigned n = 0;
    int sound = gc_sl_abbrev_sound(s, w, u);

    if (sound != 1) {
        *why = sound == 0 ? WHY_ABBREV : WHY_BUDGET;
        return GPUCORE_E_LIMIT;
    }
    path[n++] = *cu;
    for (;;) {
        Dwarf_Die child, next;
        int rc = dwarf_child(&path[n - 1], &child), found = 0;

        if (rc < 0)
            return GPUCORE_E_CORRUPT;
        while (rc == 0) {
            int has;

            if (gc_sl_charge(w, 1) != 0) {
                *why = WHY_BUDGET;
                return GPUCORE_E_LIMIT;
            }
            w->dies++;
            has = gc_sl_die_has_pc(s, w, u, &child);
            if (has == 1) {
                found = 1;
                break;
            }
            if (has == -1) {
                *why = WHY_BUDGET;
                return GPUCORE_E_LIMIT;
            }
            if (has == -2)
                return GPUCORE_E_NOMEM;
            rc = dwarf_siblingof(&child, &next);
            if (rc < 0)
                return GPUCORE_E_CORRUPT;
            child = next;
        }
        if (!found)
            break;
        if (n == GC_SRCLINE_MAX_DEPTH) {
            *why = WHY_DEPTH;
            return GPUCORE_E_LIMIT;
        }
        path[n++] = child;
    }
    *ret_n = n;
    return GPUCORE_OK;
}

/* The frames of the scopes @p path[0..npath) holding @p offset in unit @p cu. */
static gpucore_status_t fill_frames(Dwarf_Die *cu, Dwarf_Die *path, unsigned npath,
                                    uint64_t offset, struct gc_srcline_result *res)
{
    Dwarf_Line *line;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    int lineno = 0, col = 0;
    struct gc_srcline_frame *f;
    Dwarf_Attribute a;
    const char *comp_dir;

    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));

    f = &res->frames[0];
    line = dwarf_getsrc_die(cu, offset);
    if (line) {
        copy_file(f->file, dwarf_linesrc(line, NULL, NULL), comp_dir);
        if (dwarf_lineno(line, &lineno) == 0 && lineno > 0)
            f->line = (uint32_t)lineno;
        if (dwarf_linecol(line, &col) == 0 && col > 0)
            f->column = (uint32_t)col;
    }
    /* Frame k's function is the k-th function scope; its location is frame k's line (k = 0)
       or the call site of function scope k-1 (an inlined instance). */
    res->nframes = 0;
    for (unsigned i = npath; i-- > 0;) {
        Dwarf_Die *d = &path[i];

        if (!is_function(d))
            continue;
        if (res->nframes == GC_SRCLINE_MAX_FRAMES) {
            res->truncated = 1;
            break;
        }
        f = &res->frames[res->nframes];
        copy_name(f->function, die_function_name(d));
        res->nframes++;
        if (dwarf_tag(d) != DW_TAG_inlined_subroutine)
            break; /* the subprogram: the chain ends */
        if (res->nframes < GC_SRCLINE_MAX_FRAMES)
            call_site(d, files, nfiles, comp_dir, &res->frames[res->nframes]);
    }
    return res->nframes ? GPUCORE_OK : GPUCORE_E_NOTFOUND;
}

static gpucore_status_t walk(struct gc_srcline *s, struct gc_sl_walk *w,
                             struct gc_srcline_result *res)
{
    Dwarf_Die cu, path[GC_SRCLINE_MAX_DEPTH];
    struct gc_sl_unit u;
    unsigned npath = 0;
    gpucore_status_t st = find_cu(s, w, &cu, &u, &res->why);

    if (st == GPUCORE_OK)
        st = scope_path(s, w, &u, &cu, path, &npath, &res->why);
    if (st == GPUCORE_OK)
        st = fill_frames(&cu, path, npath, w->pc, res);
    return st;
}

/* The cached answer for @p offset, or NULL. */
static struct gc_sl_cached *cached(struct gc_srcline *s, uint64_t offset)
{
    for (size_t i = 0; i < GC_SRCLINE_RESULT_CACHE; i++)
        if (s->cache[i].res && s->cache[i].offset == offset)
            return &s->cache[i];
    return NULL;
}

static void remember(struct gc_srcline *s, uint64_t offset, gpucore_status_t st,
                     const struct gc_srcline_result *res)
{
    struct gc_sl_cached *c = &s->cache[s->cache_next++ % GC_SRCLINE_RESULT_CACHE];

    if (!c->res)
        c->res = malloc(sizeof(*c->res));
    if (!c->res)
        return; /* not remembered: asked again, it is walked again */
    c->offset = offset;
    c->st = st;
    *c->res = *res;
}

/* A new memo generation: answers of earlier lookups (another PC) no longer count. */
static void next_generation(struct gc_srcline *s)
{
    if (++s->gen == 0) {
        if (s->memo)
            memset(s->memo, 0, GC_SL_MEMO_SLOTS * sizeof(*s->memo));
        s->gen = 1;
    }
}

gpucore_status_t gc_srcline_lookup(struct gc_srcline *s, uint64_t offset,
                                   struct gc_srcline_result *res)
{
    struct gc_sl_walk w = { .pc = offset };
    struct gc_sl_cached *c;
    uint64_t left;
    gpucore_status_t st;

    if (!s || !res)
        return GPUCORE_E_INVAL;
    memset(res, 0, sizeof(*res));
    s->stats.lookups++;
    c = cached(s, offset);
    if (c) {
        s->stats.cached++;
        *res = *c->res;
        return c->st;
    }
    left = s->handle_budget - s->stats.total_steps;
    w.budget = left < s->lookup_budget ? left : s->lookup_budget;
    next_generation(s);
    st = walk(s, &w, res);
    if (st == GPUCORE_E_LIMIT && res->why == WHY_BUDGET && w.budget < s->lookup_budget)
        res->why = WHY_HANDLE_BUDGET;
    if (st != GPUCORE_E_LIMIT)
        res->why = NULL;
    s->stats.steps = w.steps;
    s->stats.dies = w.dies;
    s->stats.range_entries = w.entries;
    s->stats.lists_shared = w.shared;
    s->stats.total_steps += w.steps;
    if (st != GPUCORE_E_NOMEM)
        remember(s, offset, st, res);
    return st;
}
