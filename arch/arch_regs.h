/* SPDX-License-Identifier: MIT */
/*
 * Registers as the amd-dbgapi API presents them: names, type strings, sizes, classes and
 * DWARF register numbers, per family, and reading them from a decoded wave.
 *
 * A family's register set (struct gc_regset) is a list of descriptors in the order AMD's
 * library (ROCdbgapi 0.77) numbers its registers; a descriptor stands for one register or a
 * numbered run (v0..v255, s0..s63, ttmp4..ttmp11). Which registers a given wave has -- how many
 * VGPRs, AccVGPRs and SGPRs it saved, its wave size, gfx11's deallocated VGPRs -- is decided per
 * wave by gc_wave_register_list(); the result is the list amd_dbgapi_wave_register_list returns.
 *
 * Facts (see arch_regs.c for the sources and the places where they had to be inferred): names,
 * sizes, types and classes from AMD's library; DWARF numbers from LLVM's AMDGPUUsage "DWARF
 * Register Identifier Mapping" as AMD's library applies it.
 *
 * Internal; no I/O; reentrant.
 */
#ifndef GC_ARCH_REGS_H
#define GC_ARCH_REGS_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "arch.h"
#include "cwsr.h"

/* Register classes: the amd-dbgapi register classes of every supported family, as bits, in the
   order AMD's library creates them (which numbers their handles). */
#define GC_REGCLASS_SCALAR  0x01u /* s0..s105 and the aliased SGPR slots */
#define GC_REGCLASS_VECTOR  0x02u /* v*, a* */
#define GC_REGCLASS_TRAP    0x04u /* ttmp4..ttmp11, ttmp13 */
#define GC_REGCLASS_SYSTEM  0x08u /* status, mode, trapsts, flat_scratch, xnack_mask, ... */
#define GC_REGCLASS_GENERAL 0x10u /* what a debugger shows by default */
#define GC_REGCLASS_COUNT   5u

/* Name of the class bit @p class_bit ("scalar", ...), in AMD's creation order by index:
   gc_reg_class_name(1u << i) for i in 0..GC_REGCLASS_COUNT-1. NULL for anything else. (AMD's
   class *list* gives them newest first: general, system, trap, vector, scalar.) */
const char *gc_reg_class_name(uint32_t class_bit);

/* How a descriptor's registers are found in a wave. */
enum gc_reg_kind {
    GC_REGK_VGPR,        /* v<n>: arch VGPR n of a wave of `lanes` lanes (and, with
                            shared_after, gfx10's 32-lane shared VGPRs numbered after them) */
    GC_REGK_ACCVGPR,     /* a<n> */
    GC_REGK_SGPR,        /* s<n> below the aliased slots */
    GC_REGK_SGPR_SHADOW, /* s<n> for the aliased slots (vcc, flat_scratch, xnack_mask) */
    GC_REGK_TTMP,        /* ttmp<n> */
    GC_REGK_HWREG,       /* 4 or 8 bytes from hardware-register slot(s), starting at `slot` */
    GC_REGK_SGPR_ALIAS,  /* bytes from the SGPR slot `from_end` below the aliased end (vcc,
                            flat_scratch on gfx9) */
    GC_REGK_PC,          /* the PC, from the slots or the parked copy in the TTMPs */
    GC_REGK_PSEUDO,      /* a slot with bits hidden and the halt bit as the client sees it */
};

/* Type-string description of a flags register (rendered by gc_reg_type()). */
struct gc_flags_enumerator {
    const char *name;
    uint32_t value;
};

struct gc_flags_enum {
    const char *name;
    const struct gc_flags_enumerator *items;
    uint32_t nitems;
    uint8_t name_width; /* enumerator names are padded with spaces to this width (AMD's
                           alignment, which is not always the longest name's) */
};

struct gc_flags_field {
    const char *name;
    uint8_t lo, hi;
    uint8_t is_int;                  /* 1: uint32_t field; 0: bool (or enum) */
    const struct gc_flags_enum *en;  /* enum-typed field, or NULL */
};

struct gc_flags_type {
    const char *name; /* "status", "mode", ... */
    const struct gc_flags_field *fields;
    uint32_t nfields;
};

/* One descriptor of a family's register set. A row. */
struct gc_reg_desc {
    const char *name;      /* register name, or the prefix of a numbered run ("v", "ttmp") */
    enum gc_reg_kind kind;
    uint16_t first, count; /* numbered kinds: registers first..first+count-1 */
    uint8_t lanes;         /* 0: every wave; 32 or 64: only waves of that size */
    uint8_t shared_after;  /* GC_REGK_VGPR: numbers after the private VGPRs name the wave's
                              shared VGPRs (gfx10) */
    uint8_t bytes;         /* register size; 0: lanes * 4 (vector registers) */
    uint8_t from_end;      /* GC_REGK_SGPR_ALIAS: SGPR end - from_end */
    const char *slot;      /* GC_REGK_HWREG / GC_REGK_PSEUDO: slot name (gc_hwreg_slot()) */
    uint32_t hide_mask;    /* GC_REGK_PSEUDO: bits always reported as 0 */
    int8_t halt_bit;       /* GC_REGK_PSEUDO: bit reporting the halt state; -1: none */
    const char *type;      /* simple type string, or NULL with `flags` */
    const struct gc_flags_type *flags;
    uint32_t classes;      /* GC_REGCLASS_* */
    int32_t dwarf;         /* DWARF number of register `first` (+1 per register); -1: none */
    uint32_t props;        /* GC_REGPROP_* of every register of the row */
    uint32_t regnum;       /* AMD's register number (amdgpu_regnum_t) of register `first`, +1
                              per register: the low half of the register's amd-dbgapi handle */
};

/* A shadow SGPR that AMD's library reads from a hardware-register slot instead. */
struct gc_shadow_remap {
    uint8_t from_end; /* 0: unused entry */
    const char *slot;
};

/* One family's register set. A row. */
struct gc_regset {
    const char *name;
    const struct gc_reg_desc *descs;
    uint32_t ndescs;
    /* SGPR aliasing (§9): the aliased slots are the top `sgpr_alias_count` of
       min(arch sgprs + sgpr_alias_count, saved SGPRs). */
    uint32_t sgpr_alias_count;
    struct gc_shadow_remap shadow_remap[2];
};

/* The family rows, referenced by gc_arch_table. */
extern const struct gc_regset gc_regset_gfx9, gc_regset_gfx908, gc_regset_gfx90a,
        gc_regset_gfx940, gc_regset_gfx10, gc_regset_gfx11, gc_regset_gfx12;

#define GC_REG_NAME_MAX 16

/* One register of one wave. */
struct gc_reg {
    char name[GC_REG_NAME_MAX]; /* "v12", "s101", "ttmp13", "flat_scratch" */
    uint32_t id;          /* (descriptor index << 12) | number: unique within the family */
    uint32_t number;      /* n of v<n>, s<n>, ttmp<n>; 0 for named registers */
    uint32_t size;        /* bytes */
    uint32_t classes;     /* GC_REGCLASS_* */
    int32_t dwarf;        /* DWARF register number, -1 if it has none */
    uint32_t regnum;      /* AMD's register number: unique within the family, ascending in
                             the list */
    uint32_t derived;     /* 1: the value is computed (pseudo registers; a parked PC), so it
                             may differ from the saved bytes at save_offset */
    uint64_t save_offset; /* where the saved bytes start, relative to the record's lowest byte
                             (the block order of docs/cwsr-layout.md §7.1, without the gfx9 gap) */
    const struct gc_reg_desc *desc;
};

/* A wave's register list. */
struct gc_reglist {
    struct gc_reg *regs; /* owned */
    size_t count;
};

/*
 * The registers of @p w, in AMD's order: what amd_dbgapi_wave_register_list returns for it.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL    NULL argument, or arch has no register set / hwreg row.
 * @retval GPUCORE_E_CORRUPT  a family row names a hardware-register slot the family lacks
 *                            (a table bug; the invariant test rules it out).
 * @retval GPUCORE_E_NOMEM
 * On failure *ret is untouched.
 */
gpucore_status_t gc_wave_register_list(const struct gc_arch *arch, const struct gc_wave *w,
                                       struct gc_reglist *ret);

/*
 * Everything of a wave that gc_wave_register_list() reads: two waves of one architecture with
 * equal shapes (memcmp: the struct has no padding) have equal lists, so a caller that serves
 * many waves builds one list per shape. A core's waves come from a few kernels and share a
 * few shapes.
 */
struct gc_reg_shape {
    uint32_t lanes, vgprs, shared_vgprs, accvgprs, sgprs; /* the wave's geometry */
    uint32_t no_vgprs;   /* 1: its VGPRs were deallocated (gfx11+ s_sendmsg dealloc_vgprs) */
    uint32_t pc_derived; /* 1: its PC is the parked one, computed (struct gc_reg.derived) */
};

/* The shape of @p w into *ret. GPUCORE_OK, or GPUCORE_E_INVAL as gc_wave_register_list(). */
gpucore_status_t gc_wave_register_shape(const struct gc_arch *arch, const struct gc_wave *w,
                                        struct gc_reg_shape *ret);

/*
 * The register named @p name of @p w, as gc_wave_register_list() would list it first under
 * that name ("flat_scratch", "s12", "ttmp7"), without building the list.
 * @retval GPUCORE_OK, GPUCORE_E_NOTFOUND (the wave has no such register), GPUCORE_E_INVAL,
 *         GPUCORE_E_CORRUPT (as gc_wave_register_list()).
 */
gpucore_status_t gc_wave_register_find(const struct gc_arch *arch, const struct gc_wave *w,
                                       const char *name, struct gc_reg *ret);

/*
 * Every register the family of @p arch can present, for any wave: what
 * amd_dbgapi_architecture_register_list returns, in AMD's order. Each wave's list
 * (gc_wave_register_list) is a subsequence of it with the same ids. Sizes are the register's
 * own (vector registers: the descriptor's lanes * 4); save_offset and derived are 0 (they
 * depend on a wave).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL, or an arch without a register set),
 *         GPUCORE_E_NOMEM. On failure *ret is untouched.
 */
gpucore_status_t gc_arch_register_list(const struct gc_arch *arch, struct gc_reglist *ret);

/* Free what the list holds and zero it. Accepts NULL. */
void gc_reglist_done(struct gc_reglist *list);

/* Lookups in a list; NULL if absent. */
const struct gc_reg *gc_reglist_find(const struct gc_reglist *list, const char *name);
const struct gc_reg *gc_reglist_find_dwarf(const struct gc_reglist *list, int32_t dwarf);

/* Register properties, with amd_dbgapi_register_properties_t's values. */
#define GC_REGPROP_READONLY_BITS      0x1u /* some bits ignore writes */
#define GC_REGPROP_VOLATILE           0x2u /* writing another register may change it */
#define GC_REGPROP_INVALIDATE_VOLATILE 0x4u /* writing it may change the volatile ones */

/* The register's properties (GC_REGPROP_*), as AMD's library answers them: the PC, status, mode,
   trapsts and gfx12's trap_ctrl, excp_flag_priv, excp_flag_user and state_priv have read-only
   bits; status, vcc, flat_scratch (gfx12: scratch_base), xnack_mask and the shadow SGPRs under
   them are volatile (writing another register changes them); writing exec, vcc or those SGPRs
   may change the volatile ones. 0 for NULL. */
uint32_t gc_reg_properties(const struct gc_reg *reg);

/*
 * Render the register's amd-dbgapi type string into buf (always NUL-terminated when size > 0):
 * "uint32_t", "int32_t[64]", "void (*)()", or a "flags32_t NAME { ... }" description.
 * @return the length of the full string (like snprintf); a result >= size means truncation.
 */
size_t gc_reg_type(const struct gc_reg *reg, char *buf, size_t size);

/*
 * Read bytes [offset, offset + size) of register @p reg of wave @p w (reg from
 * gc_wave_register_list() for the same wave), little-endian, as amd-dbgapi 0.77 reports them
 * for a core wave after attach:
 *  - vector registers lane-major (lane i at 4 * i);
 *  - exec, vcc, flat_scratch, xnack_mask and the shadow SGPRs resolved per §9;
 *  - pc: gc_wave_pc() (the parked copy for a trap-stopped wave on a parking family);
 *  - status (and gfx12 state_priv): priv and skip_export read as 0, and the halt bit is the
 *    halt state the trap handler saved in ttmp6[29] if it stopped the wave, else the saved
 *    status.halt (AMD's library copies it into ttmp6 when it forces the wave to STOP).
 * Everything else is the saved bytes. AMD's library also edits its cached ttmp4-7/11 when it
 * numbers and stops waves at attach; those TTMP edits are not replayed here.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  NULL argument, size 0, or the range exceeds the register.
 */
gpucore_status_t gc_reg_read(const struct gc_arch *arch, const struct gc_wave *w,
                             uint32_t r_version, const struct gc_reg *reg, uint64_t offset,
                             void *buf, size_t size);

#endif /* GC_ARCH_REGS_H */
