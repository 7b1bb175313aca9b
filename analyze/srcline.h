/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains of a code object's PCs, from its DWARF, with libdw.
 *
 * The code object is read from memory (bytes the image already holds: elf_memory and
 * dwarf_begin_elf); no file is opened, nothing is written. The bytes are hostile: every libdw
 * failure is a status, and the work per lookup is bounded (GC_SRCLINE_MAX_UNITS units searched,
 * GC_SRCLINE_MAX_FRAMES frames, names
 * cut at GC_SRCLINE_NAME_MAX bytes). Addresses are offsets from the code object's load address
 * (the ELF virtual addresses DWARF uses). Not thread-safe for concurrent use of one handle. No
 * printing.
 */
#ifndef GC_ANALYZE_SRCLINE_H
#define GC_ANALYZE_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

/* Compilation units searched for a PC when the code object has no .debug_aranges. */
#define GC_SRCLINE_MAX_UNITS 4096u
/* A lookup is refused (GPUCORE_E_LIMIT) when the scopes holding the PC nest deeper than
   GC_SRCLINE_MAX_DEPTH (the unit included), or when finding them visits more than
   GC_SRCLINE_MAX_DIES DIEs. */
#define GC_SRCLINE_MAX_DEPTH 256u
#define GC_SRCLINE_MAX_DIES (1u << 20)
/* Frames of one inline chain kept (innermost first; deeper chains are cut and say so). */
#define GC_SRCLINE_MAX_FRAMES 16u
/* Bytes kept of a function or file name, with its NUL (longer names are cut). */
#define GC_SRCLINE_NAME_MAX 256u

struct gc_srcline;

/*
 * One frame of an inline chain. frames[0] is the function the PC is in (innermost inlined
 * function, or the subprogram when nothing is inlined there) at the PC's own line; frames[k]
 * (k > 0) is the function that frames[k-1] was inlined into, at the call site
 * (DW_AT_call_file/line/column of frames[k-1]'s DW_TAG_inlined_subroutine). The last frame is
 * the subprogram (the kernel). As llvm-symbolizer --inlining prints them.
 * function "" when the DIE has no name; file "" and line 0 when unknown; column 0: unknown.
 */
struct gc_srcline_frame {
    char function[GC_SRCLINE_NAME_MAX];
    char file[GC_SRCLINE_NAME_MAX];
    uint32_t line, column;
};

struct gc_srcline_result {
    uint32_t nframes;   /* 1..GC_SRCLINE_MAX_FRAMES */
    int truncated;      /* the chain had more frames than GC_SRCLINE_MAX_FRAMES */
    struct gc_srcline_frame frames[GC_SRCLINE_MAX_FRAMES];
};

/*
 * Open the DWARF of the ELF image @p bytes (@p size bytes, borrowed: they must stay valid and
 * unchanged until gc_srcline_close()).
 * @retval GPUCORE_OK          *ret is the handle
 * @retval GPUCORE_E_INVAL     a NULL argument, or size 0
 * @retval GPUCORE_E_CORRUPT   the bytes are not an ELF image
 * @retval GPUCORE_E_NOTFOUND  the image has no DWARF (no line information): *ret NULL
 * @retval GPUCORE_E_NOTSUP    libelf refuses this ELF version
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_srcline_open(const uint8_t *bytes, size_t size, struct gc_srcline **ret);

/*
 * The source line and inline chain of @p offset (a load-address-relative PC).
 * @retval GPUCORE_OK          *res filled (frames[0].line may still be 0: the compiler gave
 *                             the PC no line, as DWARF line 0 says)
 * @retval GPUCORE_E_INVAL     a NULL argument
 * @retval GPUCORE_E_NOTFOUND  no compilation unit or function covers the offset
 * @retval GPUCORE_E_CORRUPT   the DWARF is malformed where the offset is described
 * @retval GPUCORE_E_LIMIT     the scopes holding the offset nest deeper than
 *                             GC_SRCLINE_MAX_DEPTH, or more than GC_SRCLINE_MAX_DIES are visited
 */
gpucore_status_t gc_srcline_lookup(struct gc_srcline *s, uint64_t offset,
                                   struct gc_srcline_result *res);

/* Free a handle (accepts NULL). The bytes stay the caller's. */
void gc_srcline_close(struct gc_srcline *s);

#endif
