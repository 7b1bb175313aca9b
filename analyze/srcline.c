/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains with libdw (srcline.h): the compilation unit covering the
 * PC (dwarf_addrdie, else each unit's ranges), its line (dwarf_getsrc_die), and the chain of
 * scopes whose ranges hold the PC (walked here without recursion), whose function scopes
 * (subprogram, inlined subroutines) are the frames, as eu-addr2line -i reports them.
 */
#include "srcline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

struct gc_srcline {
    Elf *elf;
    Dwarf *dw;
};

gpucore_status_t gc_srcline_open(const uint8_t *bytes, size_t size, struct gc_srcline **ret)
{
    struct gc_srcline *s;

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
    s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
    if (!s->dw) {
        /* No .debug_info (DWARF_E_NO_DWARF) or one libdw cannot read: no line information. */
        gc_srcline_close(s);
        return GPUCORE_E_NOTFOUND;
    }
    *ret = s;
    return GPUCORE_OK;
}

void gc_srcline_close(struct gc_srcline *s)
{
    if (!s)
        return;
    if (s->dw)
        dwarf_end(s->dw);
    if (s->elf)
        elf_end(s->elf);
    free(s);
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

/* The compilation unit covering offset: .debug_aranges when present (LLVM leaves it out by
   default), else each unit's ranges in turn, at most GC_SRCLINE_MAX_UNITS of them. */
static int find_cu(Dwarf *dw, uint64_t offset, Dwarf_Die *cu)
{
    Dwarf_Off off = 0, next;
    size_t hsize;

    if (dwarf_addrdie(dw, offset, cu))
        return 1;
    for (unsigned n = 0; n < GC_SRCLINE_MAX_UNITS; n++) {
        if (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) != 0)
            break;
        if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, offset) == 1)
            return 1;
        if (next <= off)
            break;
        off = next;
    }
    return 0;
}

/* The scopes holding the PC, outermost (the unit) first: from the unit, descend into the child
   whose ranges hold it, without recursion. libdw's dwarf_getscopes would do this recursively (a
   hostile unit nested deep enough would overflow the stack) and leaks memory on some malformed
   units (elfutils 0.188); here a unit deeper than GC_SRCLINE_MAX_DEPTH, or with more than
   GC_SRCLINE_MAX_DIES DIEs visited, is refused. Namespaces are not searched (C++ functions
   defined inside a DW_TAG_namespace are not found). */
static gpucore_status_t scope_path(Dwarf_Die *cu, uint64_t pc, Dwarf_Die *path, unsigned *ret_n)
{
    unsigned n = 0;
    uint32_t dies = 1;

    path[n++] = *cu;
    for (;;) {
        Dwarf_Die child, next;
        int rc = dwarf_child(&path[n - 1], &child), found = 0;

        if (rc < 0)
            return GPUCORE_E_CORRUPT;
        while (rc == 0) {
            if (++dies > GC_SRCLINE_MAX_DIES)
                return GPUCORE_E_LIMIT;
            if (dwarf_haspc(&child, pc) == 1) {
                found = 1;
                break;
            }
            rc = dwarf_siblingof(&child, &next);
            if (rc < 0)
                return GPUCORE_E_CORRUPT;
            child = next;
        }
        if (!found)
            break;
        if (n == GC_SRCLINE_MAX_DEPTH)
            return GPUCORE_E_LIMIT;
        path[n++] = child;
    }
    *ret_n = n;
    return GPUCORE_OK;
}

gpucore_status_t gc_srcline_lookup(struct gc_srcline *s, uint64_t offset,
                                   struct gc_srcline_result *res)
{
    Dwarf_Die cu, path[GC_SRCLINE_MAX_DEPTH];
    unsigned npath = 0;
    Dwarf_Line *line;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    int lineno = 0, col = 0;
    struct gc_srcline_frame *f;
    Dwarf_Attribute a;
    const char *comp_dir;
    gpucore_status_t st;

    if (!s || !res)
        return GPUCORE_E_INVAL;
    memset(res, 0, sizeof(*res));
    if (!find_cu(s->dw, offset, &cu))
        return GPUCORE_E_NOTFOUND;
    st = scope_path(&cu, offset, path, &npath);
    if (st != GPUCORE_OK)
        return st;
    if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
        files = NULL;
    comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));

    f = &res->frames[0];
    line = dwarf_getsrc_die(&cu, offset);
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
    if (!res->nframes)
        return GPUCORE_E_NOTFOUND;
    return GPUCORE_OK;
}
