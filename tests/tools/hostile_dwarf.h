/* SPDX-License-Identifier: MIT */
/*
 * Code objects whose DWARF once made the source-line step (analyze/srcline.c) take CPU or
 * memory far out of proportion to its size, or open a file the DWARF names. Shared by
 * gpucore-mkhostile-dwarf (tests/tools/mkhostile_dwarf.c: e2e tests, bench, fuzz seeds) and the
 * unit test test_srcline_budget.
 *
 * Every case has one function, "vadd" (a DW_TAG_subprogram), covering the PC the tests look up
 * (hd_pc()), and somewhere before it N DIEs or entries that a naive walk visits many times.
 * The range entries never cover that PC. The DWARF is appended to a base code object (its own
 * .debug_* sections are made SHT_NOBITS, which libdw ignores), or to a minimal ELF64 AMDGPU
 * image when there is no base.
 */
#ifndef GC_TESTS_HOSTILE_DWARF_H
#define GC_TESTS_HOSTILE_DWARF_H

#include <stddef.h>
#include <stdint.h>

enum hd_case {
    /* N lexical blocks in the function, all DW_AT_ranges DW_FORM_rnglistx 0: one DWARF 5 range
       list of N entries (the case: 64 K blocks took 100 s). */
    HD_SHARED_RNGLISTX,
    /* The same with DW_FORM_sec_offset, every block naming the same offset. */
    HD_SHARED_RNGLISTS,
    /* The same in DWARF 4: .debug_ranges, DW_FORM_sec_offset. */
    HD_SHARED_RANGES,
    /* N blocks, block i naming entry i of one list of N (every suffix: nothing to share). */
    HD_SUFFIX_RNGLISTS,
    /* One list of N DW_RLE_base_address entries and its end, block i naming entry i: libdw
       reads the base entries inside one dwarf_ranges call, unseen by a caller counting calls. */
    HD_BASE_SUFFIX,
    /* min(N, 4000) compile units without DWARF aranges, each DW_AT_ranges naming one list of
       N entries, then the unit of the function: the search for the PC's unit. */
    HD_SHARED_UNITS,
    /* An abbreviation with N attributes of DW_FORM_flag_present (no byte in .debug_info), used
       by N one-byte DIEs inside a block before the function: skipping them reads N x N. */
    HD_WIDE_ABBREV,
    /* A .gnu_debugaltlink naming a file (hd_opts.alt_path) and the function's name in
       DW_FORM_GNU_strp_alt: libdw opens the named file to read the name. */
    HD_ALTLINK,
    /* .debug_info compressed (SHF_COMPRESSED, zlib): N MiB of zeros in about N KiB. */
    HD_ZLIB_BOMB,
    HD_NCASES
};

/* The case named @p name ("shared-rnglistx", ...), or -1. */
int hd_case_by_name(const char *name);
const char *hd_case_name(enum hd_case c);

struct hd_opts {
    uint32_t n;              /* the case's N (>= 1) */
    const uint8_t *base;     /* a code object to add the DWARF to, or NULL */
    size_t base_size;
    const char *kernel;      /* the base's function symbol the DWARF describes ("vadd") */
    const char *alt_path;    /* HD_ALTLINK: the file .gnu_debugaltlink names */
    const char *str0;        /* HD_ALTLINK: the string at offset 0 of its own .debug_str
                                (default "vadd"): another one makes a file that, opened as the
                                supplementary file, names the function differently */
};

/*
 * Build the code object: *out (malloc'd, the caller frees) of *out_size bytes, and *pc: a
 * load-address-relative PC inside the function "vadd".
 * @return 0, or -1 with @p why (a phrase) when the base is not a little-endian ELF64 file with
 *         sections, it has no symbol @p kernel, N is out of range, or memory ran out.
 */
int hd_build(enum hd_case c, const struct hd_opts *o, uint8_t **out, size_t *out_size,
             uint64_t *pc, char *why, size_t why_size);

#endif
