/* SPDX-License-Identifier: MIT */
/*
 * arch: everything that differs between AMD GPU families, as data.
 *
 * One const row per gfx target (struct gc_arch) points at shared family rows: the context-save
 * (CWSR) layout, the trap-handler TTMP conventions, the hardware-register slot table, the
 * register set as the amd-dbgapi API presents it, the stop-reason rules. Code outside arch/
 * never branches on a GPU family: it asks a row.
 *
 * Internal to gpucore (not installed). No file I/O, no printing. All functions are reentrant;
 * the tables are immutable.
 */
#ifndef GC_ARCH_H
#define GC_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

/* ------------------------------------------------------------------------------------------ */
/* Bitfields inside one 32-bit word                                                            */
/* ------------------------------------------------------------------------------------------ */

/* Bits [hi:lo] of a u32, inclusive. A field with lo > hi is absent on that family. */
struct gc_bitfield {
    uint8_t lo;
    uint8_t hi;
};

#define GC_BF(hi_, lo_) { .lo = (lo_), .hi = (hi_) }
#define GC_BF_BIT(b_) { .lo = (b_), .hi = (b_) }
#define GC_BF_NONE { .lo = 1, .hi = 0 }

static inline int gc_bf_present(struct gc_bitfield f)
{
    return f.lo <= f.hi && f.hi < 32;
}

static inline uint32_t gc_bf_mask(struct gc_bitfield f)
{
    if (!gc_bf_present(f))
        return 0;
    return (f.hi - f.lo == 31 ? 0xffffffffu : ((1u << (f.hi - f.lo + 1)) - 1u)) << f.lo;
}

/* Value of the field (0 if absent). */
static inline uint32_t gc_bf_get(uint32_t word, struct gc_bitfield f)
{
    return gc_bf_present(f) ? (word & gc_bf_mask(f)) >> f.lo : 0;
}

/* word with the field set to v (v truncated to the field; unchanged if absent). */
static inline uint32_t gc_bf_put(uint32_t word, struct gc_bitfield f, uint32_t v)
{
    uint32_t m = gc_bf_mask(f);

    return (word & ~m) | ((v << f.lo) & m);
}

/* ------------------------------------------------------------------------------------------ */
/* Families and targets                                                                        */
/* ------------------------------------------------------------------------------------------ */

enum gc_family {
    GC_FAMILY_GFX9 = 9,   /* gfx900 ... gfx942 */
    GC_FAMILY_GFX10 = 10, /* gfx1010 ... gfx1032 */
    GC_FAMILY_GFX11 = 11, /* gfx1100 ... gfx1102 */
    GC_FAMILY_GFX12 = 12, /* gfx1200, gfx1201 */
};

/* gc_arch::wave_sizes bits */
#define GC_WAVE32 0x1u
#define GC_WAVE64 0x2u

/* Row types defined by the modules that own them (arch_tables.c, cwsr.c, arch_regs.c, ...). */
struct gc_cwsr_layout;  /* cwsr.h: control-stack bitfields and record layout */
struct gc_ttmp_layout;  /* wave.h: trap-handler TTMP conventions */
struct gc_hwreg_layout; /* wave.h: hardware-register slot table and stop-reason rules */
struct gc_regset;       /* arch_regs.h: registers as the amd-dbgapi API presents them */

/* One GPU target. */
struct gc_arch {
    const char *name;            /* "gfx90a" */
    const char *llvm_cpu;        /* stand-in CPU for LLVM's disassembler when the LLVM lacks
                                    the target's own ("gfx940" for gfx942 on LLVM 16), or NULL
                                    when there is none (gfx12: LLVM 19 only) */
    uint32_t gfx_target_version; /* KFD encoding, decimal MMmmss: 90010 */
    uint32_t elf_mach;           /* EF_AMDGPU_MACH_* value of code objects: 0x3f */
    enum gc_family family;
    uint32_t wave_sizes;         /* GC_WAVE32 | GC_WAVE64 */
    uint32_t default_wave_size;  /* 64 or 32 */
    uint32_t sgprs;              /* architectural SGPRs addressable by a wave (102 / 106) */
    uint32_t max_vgprs;          /* architectural VGPRs per wave at the default wave size */
    uint32_t max_accvgprs;       /* 0 when the target has no AccVGPRs */
    uint32_t lds_bytes;          /* LDS per workgroup, max */
    uint32_t architected_flat_scratch; /* 1 on gfx940/942, gfx11, gfx12 */
    uint32_t watchpoints;        /* address watchpoints the hardware has */
    uint32_t parks_stopped_waves; /* 0 never, 1 always, 2 only when r_version > 8 */
    const struct gc_cwsr_layout *cwsr;
    const struct gc_ttmp_layout *ttmp;
    const struct gc_hwreg_layout *hwreg;
    const struct gc_regset *regs;
};

/* The table of every known target, terminated by a row with name == NULL. */
extern const struct gc_arch gc_arch_table[];

/*
 * Lookups. Each returns the row or NULL (unknown target). A one-entry cache of the last hit
 * makes repeated lookups of the same target cheap; the cache is per thread.
 */
const struct gc_arch *gc_arch_by_name(const char *name);
const struct gc_arch *gc_arch_by_gfx_version(uint32_t gfx_target_version);
const struct gc_arch *gc_arch_by_elf_mach(uint32_t elf_mach);

/* Number of rows in gc_arch_table (without the terminator). */
size_t gc_arch_count(void);

#endif /* GC_ARCH_H */
