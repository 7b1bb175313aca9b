/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains of a code object's PCs, from its DWARF, with libdw.
 *
 * The code object is read from memory (bytes the image already holds: elf_memory and
 * dwarf_begin_elf); no file is opened (not even the supplementary file a .gnu_debugaltlink
 * names), nothing is written. The bytes are hostile: every libdw failure is a status, and the
 * work is bounded by the bytes of DWARF really there: each lookup may take at most
 * GC_SRCLINE_STEPS_PER_BYTE steps per byte of the DWARF that the walk reads (plus
 * GC_SRCLINE_STEPS_MIN), all lookups of one handle together GC_SRCLINE_HANDLE_STEPS_PER_BYTE
 * (plus GC_SRCLINE_HANDLE_STEPS_MIN); a step is one DIE examined, one range-list entry decoded
 * or one attribute of an abbreviation checked. A range list many DIEs share is decoded once
 * per lookup, and a PC looked up again is answered from a small cache. Further bounds:
 * GC_SRCLINE_MAX_UNITS units searched, GC_SRCLINE_MAX_DEPTH levels, GC_SRCLINE_MAX_FRAMES
 * frames, names cut at GC_SRCLINE_NAME_MAX bytes. Addresses are offsets from the code object's
 * load address (the ELF virtual addresses DWARF uses). Not thread-safe for concurrent use of
 * one handle. No printing.
 */
#ifndef GC_ANALYZE_SRCLINE_H
#define GC_ANALYZE_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

/* Compilation units searched for a PC when the code object has no .debug_aranges. */
#define GC_SRCLINE_MAX_UNITS 4096u
/* A lookup is refused (GPUCORE_E_LIMIT) when the scopes holding the PC nest deeper than
   GC_SRCLINE_MAX_DEPTH (the unit included). */
#define GC_SRCLINE_MAX_DEPTH 256u
/* The work of one lookup, in steps (above), is at most GC_SRCLINE_STEPS_PER_BYTE times the
   bytes of .debug_info, .debug_abbrev, .debug_rnglists and .debug_ranges, plus
   GC_SRCLINE_STEPS_MIN. An honest walk examines each DIE at most once, decodes each range list
   at most once (a shared one once, by its offset) and checks each abbreviation once, and each
   of those takes at least one byte of those sections: one step per byte is enough, four leave
   a margin. The minimum lets a tiny object be walked whatever its layout. Past the budget the
   lookup is GPUCORE_E_LIMIT, "DWARF walk budget exhausted": a hostile object of 2 MB costs at
   most about 8 M steps (a few tenths of a second), where 64 K blocks sharing one list of 64 K
   entries took 100 s. */
#define GC_SRCLINE_STEPS_PER_BYTE 4u
#define GC_SRCLINE_STEPS_MIN (1u << 16)
/* All lookups of one handle (one code object of a report) together: so many distinct PCs
   cannot multiply the per-lookup bound. An honest lookup walks the PC's unit's top-level DIEs
   and the path down to the PC, a small part of the DWARF (1/100 or less of its bytes in
   ROCm's large code objects), so 32 steps per byte answer thousands of distinct PCs; a
   repeated PC costs nothing (the result cache). */
#define GC_SRCLINE_HANDLE_STEPS_PER_BYTE 32u
#define GC_SRCLINE_HANDLE_STEPS_MIN (1u << 20)
/* A unit whose abbreviation table declares an abbreviation with more attributes that take no
   byte of .debug_info (DW_FORM_flag_present, DW_FORM_implicit_const) is refused: libdw reads
   every attribute of a DIE's abbreviation to skip that DIE, so N one-byte DIEs of an
   abbreviation of N such attributes cost N x N (262 KB took 8.5 s). Producers use a few (LLVM
   and GCC: at most about 6 on one DIE). */
#define GC_SRCLINE_MAX_ZERO_SIZE_ATTRS 32u
/* Compressed DWARF sections (SHF_COMPRESSED, .zdebug_*) are decompressed by libdw when the
   handle opens, to the size they declare: their declared sizes together may be at most
   GC_SRCLINE_INFLATE_FACTOR times the code object's own size, else gc_srcline_open() is
   GPUCORE_E_LIMIT (a 1 MB object declaring 1 GiB took 1 GiB of memory). DWARF compresses 3 to
   10 times. */
#define GC_SRCLINE_INFLATE_FACTOR 16 /* no suffix: srcline.c spells it in a message */
/* PCs whose answers a handle keeps (the last ones looked up; a report asks the same PC once
   per wave). */
#define GC_SRCLINE_RESULT_CACHE 16u
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
    /* Why the lookup was refused, when it returned GPUCORE_E_LIMIT ("DWARF walk budget
       exhausted", ...): a static string; NULL otherwise. */
    const char *why;
    struct gc_srcline_frame frames[GC_SRCLINE_MAX_FRAMES];
};

/* What the lookups of a handle cost, in the units of the budgets (tests and benchmarks). */
struct gc_srcline_stats {
    uint64_t steps;          /* the last lookup that walked: steps taken */
    uint64_t dies;           /*   DIEs examined */
    uint64_t range_entries;  /*   range-list entries decoded */
    uint64_t lists_shared;   /*   range lists answered from that lookup's memo */
    uint64_t budget;         /* steps one lookup may take */
    uint64_t total_steps;    /* every lookup of the handle */
    uint64_t total_budget;   /* steps the handle may take */
    uint64_t lookups;        /* lookups asked */
    uint64_t cached;         /* of those, answered from the result cache */
};

/*
 * Open the DWARF of the ELF image @p bytes (@p size bytes, borrowed: they must stay valid and
 * unchanged until gc_srcline_close()).
 * @retval GPUCORE_OK          *ret is the handle
 * @retval GPUCORE_E_INVAL     a NULL argument, or size 0
 * @retval GPUCORE_E_CORRUPT   the bytes are not an ELF image
 * @retval GPUCORE_E_NOTFOUND  the image has no DWARF (no line information): *ret NULL
 * @retval GPUCORE_E_NOTSUP    libelf refuses this ELF version
 * @retval GPUCORE_E_LIMIT     its compressed DWARF sections declare more than
 *                             GC_SRCLINE_INFLATE_FACTOR times @p size: *ret NULL
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_srcline_open(const uint8_t *bytes, size_t size, struct gc_srcline **ret);

/* gc_srcline_open(), and on GPUCORE_E_LIMIT *@p why (when not NULL) says why in a static
   phrase; NULL otherwise. Same statuses. */
gpucore_status_t gc_srcline_open_why(const uint8_t *bytes, size_t size, struct gc_srcline **ret,
                                     const char **why);

/*
 * The source line and inline chain of @p offset (a load-address-relative PC).
 * @retval GPUCORE_OK          *res filled (frames[0].line may still be 0: the compiler gave
 *                             the PC no line, as DWARF line 0 says)
 * @retval GPUCORE_E_INVAL     a NULL argument
 * @retval GPUCORE_E_NOTFOUND  no compilation unit or function covers the offset
 * @retval GPUCORE_E_CORRUPT   the DWARF is malformed where the offset is described
 * @retval GPUCORE_E_LIMIT     res->why says which: the lookup's or the handle's step budget
 *                             is exhausted, the scopes holding the offset nest deeper than
 *                             GC_SRCLINE_MAX_DEPTH, or the unit's abbreviations have more than
 *                             GC_SRCLINE_MAX_ZERO_SIZE_ATTRS attributes without data
 * @retval GPUCORE_E_NOMEM
 * A lookup of an offset asked before (one of the last GC_SRCLINE_RESULT_CACHE) returns the
 * same status and result without walking.
 */
gpucore_status_t gc_srcline_lookup(struct gc_srcline *s, uint64_t offset,
                                   struct gc_srcline_result *res);

/* What the lookups of @p s cost so far (all zeros for NULL). */
void gc_srcline_stats(const struct gc_srcline *s, struct gc_srcline_stats *st);

/* Free a handle (accepts NULL). The bytes stay the caller's. */
void gc_srcline_close(struct gc_srcline *s);

#endif
