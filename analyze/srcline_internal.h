/* SPDX-License-Identifier: MIT */
/*
 * Inside srcline (srcline.h): the handle, the step accounting of one lookup, and the address
 * ranges of DIEs, decoded here rather than by libdw's dwarf_ranges so that every entry read is
 * counted (libdw reads base-address entries inside one call, unseen by its caller) and a range
 * list many DIEs name is decoded once per lookup. Internal to srcline.c and srcline_ranges.c.
 * No printing.
 */
#ifndef GC_ANALYZE_SRCLINE_INTERNAL_H
#define GC_ANALYZE_SRCLINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#include "srcline.h"

/* Range lists remembered by one lookup: a direct-mapped table keyed by where the list starts
   and what its entries are relative to. A collision only forgets an answer (the list is decoded
   again and counted again), so the size bounds memory, not correctness: 4096 x 40 bytes per
   handle, allocated at the first list. */
#define GC_SL_MEMO_SLOTS 4096u
/* Abbreviation tables a handle has found sound (GC_SRCLINE_MAX_ZERO_SIZE_ATTRS), by offset;
   units share one table in what compilers write. */
#define GC_SL_ABBREV_SOUND 8u

/* The bytes of the DWARF sections the walk reads itself (as libdw holds them: decompressed). */
struct gc_sl_data {
    const uint8_t *p;
    size_t size;
};

enum { GC_SL_INFO, GC_SL_ABBREV, GC_SL_RANGES, GC_SL_RNGLISTS, GC_SL_ADDR, GC_SL_NSECTIONS };

struct gc_sl_memo {
    uint64_t start, base, addr_base;
    uint32_t gen;       /* the lookup that filled it (0: never) */
    uint8_t kind;       /* GC_SL_RANGES or GC_SL_RNGLISTS, and the address size << 4 */
    uint8_t has_pc;
};

struct gc_sl_cached {
    uint64_t offset;
    gpucore_status_t st;
    struct gc_srcline_result *res; /* NULL: slot unused */
};

struct gc_srcline {
    Elf *elf;
    Dwarf *dw;
    struct gc_sl_data sec[GC_SL_NSECTIONS];
    uint64_t lookup_budget, handle_budget;
    struct gc_sl_memo *memo;       /* GC_SL_MEMO_SLOTS, or NULL until a list is decoded */
    uint32_t gen;                  /* the current lookup's memo generation */
    uint64_t sound[GC_SL_ABBREV_SOUND];
    uint32_t nsound;
    struct gc_sl_cached cache[GC_SRCLINE_RESULT_CACHE];
    uint32_t cache_next;
    struct gc_srcline_stats stats;
};

/* One lookup's accounting. */
struct gc_sl_walk {
    uint64_t pc;
    uint64_t steps, budget;
    uint64_t dies, entries, shared;
};

/* What the ranges of a unit's DIEs are relative to. */
struct gc_sl_unit {
    uint16_t version;
    uint8_t address_size, offset_size;
    uint64_t base;           /* DW_AT_low_pc, else DW_AT_entry_pc, else 0 (as libdw) */
    uint64_t rnglists_base;  /* DWARF 5: where DW_FORM_rnglistx indexes start */
    uint64_t addr_base;      /* DWARF 5: where .debug_addr indexes start */
    uint64_t abbrev_offset;
};

/* Take @p n steps: 0, or -1 when that passes the walk's budget (nothing is taken then). */
int gc_sl_charge(struct gc_sl_walk *w, uint64_t n);

/*
 * Describe the unit of @p cudie (a unit DIE of @p s).
 * @return 0; -1 when it is not a unit whose DIEs have addresses gpucore reads (a DWARF version
 *         outside 2..5, an address or offset size other than 4 or 8, a type or split unit)
 */
int gc_sl_unit_init(const struct gc_srcline *s, Dwarf_Die *cudie, struct gc_sl_unit *u);

/*
 * Whether the abbreviation table of unit @p u is sound: no abbreviation with more than
 * GC_SRCLINE_MAX_ZERO_SIZE_ATTRS attributes without data. Checked once per table (each
 * attribute read is a step), remembered in @p s.
 * @return 1 sound, 0 not, -1 the budget ran out
 */
int gc_sl_abbrev_sound(struct gc_srcline *s, struct gc_sl_walk *w, const struct gc_sl_unit *u);

/*
 * Whether @p die's address ranges (DW_AT_low_pc/high_pc, else DW_AT_ranges) hold w->pc.
 * A malformed range list holds nothing (as libdw's dwarf_haspc, which fails on it).
 * @return 1 yes, 0 no, -1 the budget ran out (the walk must stop), -2 out of memory
 */
int gc_sl_die_has_pc(struct gc_srcline *s, struct gc_sl_walk *w, const struct gc_sl_unit *u,
                     Dwarf_Die *die);

#endif
