/* SPDX-License-Identifier: MIT */
/*
 * The register sets amd-dbgapi presents, per family, and reading registers from a wave.
 *
 * Sources (facts only):
 *  - AMD's debugger library: the register numbering, names, type strings, sizes, classes, the
 *    per-record availability rules (cwsr_record_t::register_address) and the pseudo registers,
 *    read in ROCm/rocm-systems projects/rocdbgapi/src/{architecture.cpp,register.h,register.cpp,
 *    wave.cpp}, the successor of ROCdbgapi 0.77;
 *  - the DWARF numbers: LLVM llvm/docs/AMDGPUUsage.rst, "DWARF Register Identifier Mapping"
 *    (wave32 and wave64 flavours of EXEC, VCC and the vector registers), applied as AMD's
 *    library applies them (register.cpp: only the general registers and status have one);
 *  - docs/cwsr-layout.md §7.1 for the verified per-wave register counts.
 *
 * Measured: every architecture's whole list -- order, names (gfx12's scratch_base), sizes,
 * DWARF numbers, properties, classes and the type strings byte for byte, AMD's alignment
 * whitespace included -- as AMD's amd-dbgapi 0.77 answers it, kept in
 * tests/data/dbgapi-registers and checked by test_dbgapi_arch. The list is in the order of
 * AMD's register numbers (amdgpu_regnum_t), which the `regnum` column carries: the low half of a
 * register's handle.
 *
 * Inferred for the per-wave lists (each inference is the only reading that reproduces all four
 * verified counts of §7.1 -- gfx90a 82, gfx1030 wave32 132, gfx1100 wave64 131, gfx1201 wave32
 * 135):
 *  1. xnack_mask (32-bit, hardware slot 7) is listed for every gfx10+ wave32 wave, not only on
 *     gfx10.1 as in AMD's current library;
 *  2. the wave64-flavoured VGPRs (DWARF 2560+) are listed only for wave64 waves and the
 *     wave32-flavoured ones (1536+) only for wave32 waves (plus gfx10's shared VGPRs).
 */
#include "arch_regs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_le.h"
#include "gc_util.h"
#include "wave.h"

/* ------------------------------------------------------------------------------------------ */
/* Register classes                                                                            */
/* ------------------------------------------------------------------------------------------ */

/* In the order AMD's library creates them, which is the order of its class list. */
static const char *const class_names[GC_REGCLASS_COUNT] = {
    "scalar", "vector", "trap", "system", "general",
};

const char *gc_reg_class_name(uint32_t class_bit)
{
    for (uint32_t i = 0; i < GC_REGCLASS_COUNT; i++) {
        if (class_bit == 1u << i)
            return class_names[i];
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Flags types (hardware register fields)                                                      */
/* ------------------------------------------------------------------------------------------ */

#define ITEMS(a) .items = (a), .nitems = sizeof(a) / sizeof((a)[0])

static const struct gc_flags_enumerator fp_round_items[] = {
    { "NEAREST_EVEN", 0 }, { "PLUS_INF", 1 }, { "MINUS_INF", 2 }, { "ZERO", 3 },
};
static const struct gc_flags_enumerator fp_denorm_items[] = {
    { "FLUSH_SRC_DST", 0 }, { "FLUSH_DST", 1 }, { "FLUSH_SRC", 2 }, { "FLUSH_NONE", 3 },
};
static const struct gc_flags_enumerator dp_rate_items[] = {
    { "NONE", 0 }, { "QUARTER", 1 }, { "FULL", 4 },
};
static const struct gc_flags_enumerator memviol_source_items[] = {
    { "INSTRUCTION", 0 }, { "SMEM", 1 }, { "LDS", 2 }, { "VMEM", 3 },
};

/* The name widths are AMD's: its type strings align the "=" of an enum's items, except that
   gfx9-gfx11's fp_round aligns on PLUS_INF and MINUS_INF and lets NEAREST_EVEN stick out. */
static const struct gc_flags_enum fp_round = { "fp_round", ITEMS(fp_round_items), 9 };
static const struct gc_flags_enum fp_round_gfx12 = { "fp_round", ITEMS(fp_round_items), 12 };
static const struct gc_flags_enum fp_denorm = { "fp_denorm", ITEMS(fp_denorm_items), 13 };
static const struct gc_flags_enum dp_rate = { "dp_rate", ITEMS(dp_rate_items), 7 };
static const struct gc_flags_enum memviol_source = { "first_memviol_source",
                                                      ITEMS(memviol_source_items), 11 };

#define FB(n, b)       { .name = (n), .lo = (b), .hi = (b) }
#define FI(n, l, h)    { .name = (n), .lo = (l), .hi = (h), .is_int = 1 }
#define FE(n, l, h, e) { .name = (n), .lo = (l), .hi = (h), .en = &(e) }
#define FIELDS(a)      .fields = (a), .nfields = sizeof(a) / sizeof((a)[0])

/* STATUS bits 0-14 are the same on gfx9, gfx10 and gfx11. */
#define STATUS_LOW                                                                                 \
    FB("SCC", 0), FI("SPI_PRIO", 1, 2), FI("USER_PRIO", 3, 4), FB("PRIV", 5), FB("TRAP_EN", 6),  \
    FB("TTRACE_EN", 7), FB("EXPORT_RDY", 8), FB("EXECZ", 9), FB("VCCZ", 10), FB("IN_TG", 11),    \
    FB("IN_BARRIER", 12), FB("HALT", 13), FB("TRAP", 14)

static const struct gc_flags_field status_gfx9_fields[] = {
    STATUS_LOW, FB("TTRACE_CU_EN", 15), FB("VALID", 16), FB("ECC_ERR", 17),
    FB("SKIP_EXPORT", 18), FB("PERF_EN", 19), FB("COND_DBG_USER", 20), FB("COND_DBG_SYS", 21),
    FB("ALLOW_REPLAY", 22), FB("FATAL_HALT", 23), FB("MUST_EXPORT", 27),
};
static const struct gc_flags_field status_gfx940_fields[] = {
    STATUS_LOW, FB("TTRACE_CU_EN", 15), FB("VALID", 16), FB("ECC_ERR", 17),
    FB("SKIP_EXPORT", 18), FB("PERF_EN", 19), FB("COND_DBG_USER", 20), FB("COND_DBG_SYS", 21),
    FB("ALLOW_REPLAY", 22), FB("FATAL_HALT", 23), FB("MUST_EXPORT", 27), FB("SCRATCH_EN", 28),
    FB("IDLE", 31),
};
static const struct gc_flags_field status_gfx10_fields[] = {
    STATUS_LOW, FB("TTRACE_SIMD_EN", 15), FB("VALID", 16), FB("ECC_ERR", 17),
    FB("SKIP_EXPORT", 18), FB("PERF_EN", 19), FB("COND_DBG_USER", 20), FB("COND_DBG_SYS", 21),
    FB("FATAL_HALT", 23), FB("MUST_EXPORT", 27),
};
static const struct gc_flags_field status_gfx11_fields[] = {
    STATUS_LOW, FB("TTRACE_SIMD_EN", 15), FB("VALID", 16), FB("ECC_ERR", 17),
    FB("SKIP_EXPORT", 18), FB("PERF_EN", 19), FB("COND_DBG_USER", 20), FB("COND_DBG_SYS", 21),
    FB("OREO_CONFLICT", 22), FB("FATAL_HALT", 23), FB("NO_VGPRS", 24),
    FB("LDS_PARAM_READY", 25), FB("MUST_GS_ALLOC", 26), FB("MUST_EXPORT", 27), FB("IDLE", 28),
    FB("SCRATCH_EN", 29),
};
/* gfx12 moved scc, the priorities and halt into STATE_PRIV. */
static const struct gc_flags_field status_gfx12_fields[] = {
    FB("PRIV", 5), FB("TRAP_EN", 6), FB("EXPORT_RDY", 8), FB("EXECZ", 9), FB("VCCZ", 10),
    FB("IN_WG", 11), FB("TRAP", 14), FB("TRAP_BARRIER_COMPLETE", 15), FB("VALID", 16),
    FB("SKIP_EXPORT", 18), FB("OREO_CONFLICT", 22), FB("FATAL_HALT", 23), FB("NO_VGPRS", 24),
    FB("LDS_PARAM_RDY", 25), FB("MUST_GS_ALLOC", 26), FB("MUST_EXPORT", 27), FB("IDLE", 28),
    FB("WAVE64", 29), FB("DYN_VGPR_EN", 30), FB("WGP_TAKEOVER", 31),
};
static const struct gc_flags_field state_priv_gfx12_fields[] = {
    FB("WG_RR_EN", 0), FB("SLEEP_WAKEUP", 1), FB("BARRIER_COMPLETE", 2),
    FB("NAMED_BARRIER_COMPLETE", 3), FI("NAMED_BARRIER_ID", 4, 8), FB("SCC", 9),
    FI("SYS_PRIO", 10, 11), FI("USER_PRIO", 12, 13), FB("HALT", 14), FB("SCRATCH_EN", 18),
    FB("PERF_EN", 19), FB("TTRACE_EN", 20),
};

/* MODE: rounding and denormal controls in bits 0-7 on every family. */
#define MODE_FP_(round)                                                                            \
    FE("FP_ROUND.32", 0, 1, round), FE("FP_ROUND.64_16", 2, 3, round),                            \
    FE("FP_DENORM.32", 4, 5, fp_denorm), FE("FP_DENORM.64_16", 6, 7, fp_denorm)
#define MODE_FP MODE_FP_(fp_round)
#define MODE_EXCP_EN                                                                               \
    FB("EXCP_EN.INVALID", 12), FB("EXCP_EN.DENORM", 13), FB("EXCP_EN.DIV0", 14),                  \
    FB("EXCP_EN.OVERFLOW", 15), FB("EXCP_EN.UNDERFLOW", 16), FB("EXCP_EN.INEXACT", 17),           \
    FB("EXCP_EN.INT_DIV0", 18), FB("EXCP_EN.ADDR_WATCH", 19)

static const struct gc_flags_field mode_gfx9_fields[] = {
    MODE_FP, FB("DX10_CLAMP", 8), FB("IEEE", 9), FB("LOD_CLAMPED", 10), FB("DEBUG_EN", 11),
    MODE_EXCP_EN, FB("FP16_OVFL", 23), FB("POPS_PACKER0", 24), FB("POPS_PACKER1", 25),
    FB("DISABLE_PERF", 26), FB("GPR_IDX_EN", 27), FB("VSKIP", 28), FI("CSP", 29, 31),
};
static const struct gc_flags_field mode_gfx940_fields[] = {
    MODE_FP, FB("DX10_CLAMP", 8), FB("IEEE", 9), FB("LOD_CLAMPED", 10), FB("DEBUG_EN", 11),
    MODE_EXCP_EN, FB("TRAP_ON_END", 21), FB("FP16_OVFL", 23), FB("POPS_PACKER0", 24),
    FB("POPS_PACKER1", 25), FB("DISABLE_PERF", 26), FB("GPR_IDX_EN", 27), FB("VSKIP", 28),
    FI("CSP", 29, 31),
};
static const struct gc_flags_field mode_gfx10_fields[] = {
    MODE_FP, FB("DX10_CLAMP", 8), FB("IEEE", 9), FB("LOD_CLAMPED", 10), FB("DEBUG_EN", 11),
    MODE_EXCP_EN, FB("FP16_OVFL", 23), FB("DISABLE_PERF", 27),
};
static const struct gc_flags_field mode_gfx11_fields[] = {
    MODE_FP, FB("DX10_CLAMP", 8), FB("IEEE", 9), FB("LOD_CLAMPED", 10),
    FB("TRAP_AFTER_INST_EN", 11), MODE_EXCP_EN, FB("WAVE_END", 21), FB("FP16_OVFL", 23),
    FB("DISABLE_PERF", 27),
};
/* gfx12 moved the exception enables into TRAP_CTRL. */
static const struct gc_flags_field mode_gfx12_fields[] = {
    MODE_FP_(fp_round_gfx12), FB("FP16_OVFL", 23), FB("SCALAR_PREFETCH_EN", 24),
    FB("DISABLE_PERF", 27),
};

#define TRAPSTS_EXCP                                                                               \
    FB("EXCP.INVALID", 0), FB("EXCP.DENORM", 1), FB("EXCP.DIV0", 2), FB("EXCP.OVERFLOW", 3),      \
    FB("EXCP.UNDERFLOW", 4), FB("EXCP.INEXACT", 5), FB("EXCP.INT_DIV0", 6),                       \
    FB("EXCP.ADDR_WATCH", 7), FB("EXCP.MEM_VIOL", 8), FB("SAVE_CTX", 10),                         \
    FB("ILLEGAL_INST", 11), FB("EXCP_HI.ADDR_WATCH1", 12), FB("EXCP_HI.ADDR_WATCH2", 13),         \
    FB("EXCP_HI.ADDR_WATCH3", 14)

static const struct gc_flags_field trapsts_gfx9_fields[] = {
    TRAPSTS_EXCP, FI("EXCP_CYCLE", 16, 21), FB("XNACK_ERROR", 28),
    FE("DP_RATE", 29, 31, dp_rate),
};
static const struct gc_flags_field trapsts_gfx940_fields[] = {
    TRAPSTS_EXCP, FI("EXCP_CYCLE", 16, 21), FB("HOST_TRAP", 22), FB("WAVE_BEGIN", 23),
    FB("WAVE_END", 24), FB("TRAP_AFTER_INST", 25), FB("PERF_SNAPSHOT", 26),
    FB("XNACK_ERROR", 28), FE("DP_RATE", 29, 31, dp_rate),
};
static const struct gc_flags_field trapsts_gfx10_fields[] = {
    TRAPSTS_EXCP, FB("BUFFER_OOB", 15), FI("EXCP_CYCLE", 16, 19), FI("EXCP_GROUP_MASK", 20, 23),
    FB("EXCP_WAVE64HI", 24), FB("UTC_ERROR", 28), FE("DP_RATE", 29, 31, dp_rate),
};
static const struct gc_flags_field trapsts_gfx11_fields[] = {
    TRAPSTS_EXCP, FB("BUFFER_OOB", 15), FB("HOST_TRAP", 16), FB("WAVE_START", 17),
    FB("WAVE_END", 18), FB("PERF_SNAPSHOT", 19), FB("TRAP_AFTER_INST", 20), FB("UTC_ERROR", 28),
};

#define ALU_EXCP                                                                                   \
    FB("ALU_INVALID", 0), FB("ALU_INPUT_DENORM", 1), FB("ALU_FLOAT_DIV0", 2),                     \
    FB("ALU_OVERFLOW", 3), FB("ALU_UNDERFLOW", 4), FB("ALU_INEXACT", 5), FB("ALU_INT_DIV0", 6)

static const struct gc_flags_field trap_ctrl_gfx12_fields[] = {
    ALU_EXCP, FB("ADDR_WATCH", 7), FB("WAVE_END", 8), FB("TRAP_AFTER_INST", 9),
};
static const struct gc_flags_field excp_flag_priv_gfx12_fields[] = {
    FB("ADDR_WATCH0", 0), FB("ADDR_WATCH1", 1), FB("ADDR_WATCH2", 2), FB("ADDR_WATCH3", 3),
    FB("MEMVIOL", 4), FB("SAVE_CONTEXT", 5), FB("ILLEGAL_INST", 6), FB("HOST_TRAP", 7),
    FB("WAVE_START", 8), FB("WAVE_END", 9), FB("PERF_SNAPSHOT", 10), FB("TRAP_AFTER_INST", 11),
    FB("XNACK_ERROR", 12), FE("FIRST_MEMVIOL_SOURCE", 30, 31, memviol_source),
};
static const struct gc_flags_field excp_flag_user_gfx12_fields[] = {
    ALU_EXCP, FB("BUFFER_OOB", 30), FB("LOD_CLAMPED", 31),
};

static const struct gc_flags_type status_gfx9 = { "status", FIELDS(status_gfx9_fields) };
static const struct gc_flags_type status_gfx940 = { "status", FIELDS(status_gfx940_fields) };
static const struct gc_flags_type status_gfx10 = { "status", FIELDS(status_gfx10_fields) };
static const struct gc_flags_type status_gfx11 = { "status", FIELDS(status_gfx11_fields) };
static const struct gc_flags_type status_gfx12 = { "status", FIELDS(status_gfx12_fields) };
static const struct gc_flags_type state_priv_gfx12 = { "state_priv",
                                                       FIELDS(state_priv_gfx12_fields) };
static const struct gc_flags_type mode_gfx9 = { "mode", FIELDS(mode_gfx9_fields) };
static const struct gc_flags_type mode_gfx940 = { "mode", FIELDS(mode_gfx940_fields) };
static const struct gc_flags_type mode_gfx10 = { "mode", FIELDS(mode_gfx10_fields) };
static const struct gc_flags_type mode_gfx11 = { "mode", FIELDS(mode_gfx11_fields) };
static const struct gc_flags_type mode_gfx12 = { "mode", FIELDS(mode_gfx12_fields) };
static const struct gc_flags_type trapsts_gfx9 = { "trapsts", FIELDS(trapsts_gfx9_fields) };
static const struct gc_flags_type trapsts_gfx940 = { "trapsts", FIELDS(trapsts_gfx940_fields) };
static const struct gc_flags_type trapsts_gfx10 = { "trapsts", FIELDS(trapsts_gfx10_fields) };
static const struct gc_flags_type trapsts_gfx11 = { "trapsts", FIELDS(trapsts_gfx11_fields) };
/* AMD's library names this flags type "trapctrl" although the register is trap_ctrl. */
static const struct gc_flags_type trap_ctrl_gfx12 = { "trapctrl",
                                                      FIELDS(trap_ctrl_gfx12_fields) };
static const struct gc_flags_type excp_flag_priv_gfx12 = { "excp_flag_priv",
                                                           FIELDS(excp_flag_priv_gfx12_fields) };
static const struct gc_flags_type excp_flag_user_gfx12 = { "excp_flag_user",
                                                           FIELDS(excp_flag_user_gfx12_fields) };

/* ------------------------------------------------------------------------------------------ */
/* Register-set rows                                                                           */
/* ------------------------------------------------------------------------------------------ */

#define VG (GC_REGCLASS_VECTOR | GC_REGCLASS_GENERAL)
#define SG (GC_REGCLASS_SCALAR | GC_REGCLASS_GENERAL)

/* Properties. */
#define P_RO   GC_REGPROP_READONLY_BITS
#define P_VOL  (GC_REGPROP_VOLATILE | GC_REGPROP_INVALIDATE_VOLATILE) /* changes with others */
#define P_INV  GC_REGPROP_INVALIDATE_VOLATILE

/* AMD's register numbers (its amdgpu_regnum_t): the low half of a register handle, and the
   order of the architecture's register list. Raw registers first (vector, scalar, shadow
   scalar, hardware, trap), then the named ones, then the pseudo registers it computes. */
enum {
    RN_VGPR64 = 0, RN_ACC64 = 256, RN_VGPR32 = 512, RN_SGPR = 1024, RN_SHADOW_SGPR = 1152,
    RN_TTMP = 1296, RN_M0 = 1313, RN_PC = 1314, RN_MODE = 1317, RN_TRAPSTS = 1318,
    RN_TRAP_CTRL = 1319, RN_EXCP_FLAG_PRIV = 1320, RN_EXCP_FLAG_USER = 1321,
    RN_XNACK_MASK32 = 1326, RN_XNACK_MASK64 = 1327, RN_FLAT_SCRATCH = 1328,
    RN_PSEUDO_STATUS = 1338, RN_PSEUDO_STATE_PRIV = 1339, RN_PSEUDO_EXEC32 = 1340,
    RN_PSEUDO_EXEC64 = 1341, RN_PSEUDO_VCC32 = 1342, RN_PSEUDO_VCC64 = 1343,
};

/* Vector registers. Each wave size has its own DWARF range, so one VGPR has two descriptors,
   one per flavour; a wave lists the flavour of its own size. */
#define D_VGPR64                                                                                   \
    { .name = "v", .kind = GC_REGK_VGPR, .first = 0, .count = 256, .lanes = 64,                   \
      .type = "int32_t[64]", .classes = VG, .dwarf = 2560, .halt_bit = -1, .regnum = RN_VGPR64 }
#define D_VGPR32                                                                                   \
    { .name = "v", .kind = GC_REGK_VGPR, .first = 0, .count = 256, .lanes = 32,                   \
      .shared_after = 1, .type = "int32_t[32]", .classes = VG, .dwarf = 1536, .halt_bit = -1,   \
      .regnum = RN_VGPR32 }
#define D_ACC64                                                                                    \
    { .name = "a", .kind = GC_REGK_ACCVGPR, .first = 0, .count = 256, .lanes = 64,                \
      .type = "int32_t[64]", .classes = VG, .dwarf = 3072, .halt_bit = -1, .regnum = RN_ACC64 }

/* SGPRs: the architectural ones (102 on gfx9, 106 on gfx10+) in two DWARF ranges, then the
   same numbers again as "shadow" registers for the aliased slots, which are scalar-class only
   and have no DWARF number (AMD's library maps only its non-shadow SGPR numbers). */
#define D_SGPRS(n)                                                                                 \
    { .name = "s", .kind = GC_REGK_SGPR, .first = 0, .count = 64, .bytes = 4,                     \
      .type = "int32_t", .classes = SG, .dwarf = 32, .halt_bit = -1, .regnum = RN_SGPR },         \
    { .name = "s", .kind = GC_REGK_SGPR, .first = 64, .count = (n) - 64, .bytes = 4,              \
      .type = "int32_t", .classes = SG, .dwarf = 1088, .halt_bit = -1, .regnum = RN_SGPR + 64 },  \
    { .name = "s", .kind = GC_REGK_SGPR_SHADOW, .first = 0, .count = (n), .bytes = 4,             \
      .type = "int32_t", .classes = GC_REGCLASS_SCALAR, .dwarf = -1, .halt_bit = -1,             \
      .props = P_VOL, .regnum = RN_SHADOW_SGPR }

/* The trap handler's private TTMPs (0-3, 12, 14, 15) are not presented. */
#define D_TTMPS                                                                                    \
    { .name = "ttmp", .kind = GC_REGK_TTMP, .first = 4, .count = 8, .bytes = 4,                   \
      .type = "uint32_t", .classes = GC_REGCLASS_TRAP, .dwarf = -1, .halt_bit = -1,               \
      .regnum = RN_TTMP + 4 },                                                                     \
    { .name = "ttmp", .kind = GC_REGK_TTMP, .first = 13, .count = 1, .bytes = 4,                  \
      .type = "uint32_t", .classes = GC_REGCLASS_TRAP, .dwarf = -1, .halt_bit = -1,               \
      .regnum = RN_TTMP + 13 }

#define D_HW(n, s, bytes_, lanes_, type_, flags_, classes_, props_, regnum_)                       \
    { .name = (n), .kind = GC_REGK_HWREG, .slot = (s), .count = 1, .bytes = (bytes_),             \
      .lanes = (lanes_), .type = (type_), .flags = (flags_), .classes = (classes_),               \
      .dwarf = -1, .halt_bit = -1, .props = (props_), .regnum = (regnum_) }

#define D_M0 D_HW("m0", "m0", 4, 0, "uint32_t", NULL, GC_REGCLASS_GENERAL, 0, RN_M0)
#define D_PC                                                                                       \
    { .name = "pc", .kind = GC_REGK_PC, .slot = "pc_lo", .count = 1, .bytes = 8,                  \
      .type = "void (*)()", .classes = GC_REGCLASS_GENERAL, .dwarf = 16, .halt_bit = -1,          \
      .props = P_RO, .regnum = RN_PC }

/* The client-visible status: priv (5) and skip_export (18) are the debugger's business and read
   as 0; halt (13) is the halt state the wave will resume with. */
#define D_STATUS_GFX9(flags_)                                                                      \
    { .name = "status", .kind = GC_REGK_PSEUDO, .slot = "status", .count = 1, .bytes = 4,         \
      .hide_mask = (1u << 5) | (1u << 18), .halt_bit = 13, .flags = (flags_),                     \
      .classes = GC_REGCLASS_SYSTEM, .dwarf = 128, .props = P_RO | GC_REGPROP_VOLATILE,           \
      .regnum = RN_PSEUDO_STATUS }

/* exec and vcc exist in both widths from gfx10 on; a wave lists the one of its size. */
#define D_EXEC32 D_EXEC_(4, 32, "uint32_t", 1, RN_PSEUDO_EXEC32)
#define D_EXEC64 D_EXEC_(8, 64, "uint64_t", 17, RN_PSEUDO_EXEC64)
#define D_EXEC_(bytes_, lanes_, type_, dwarf_, regnum_)                                            \
    { .name = "exec", .kind = GC_REGK_HWREG, .slot = "exec_lo", .count = 1, .bytes = (bytes_),    \
      .lanes = (lanes_), .type = (type_), .classes = GC_REGCLASS_GENERAL, .dwarf = (dwarf_),      \
      .halt_bit = -1, .props = P_INV, .regnum = (regnum_) }
#define D_VCC32 D_VCC_(4, 32, "uint32_t", 512, RN_PSEUDO_VCC32)
#define D_VCC64 D_VCC_(8, 64, "uint64_t", 768, RN_PSEUDO_VCC64)
#define D_VCC_(bytes_, lanes_, type_, dwarf_, regnum_)                                             \
    { .name = "vcc", .kind = GC_REGK_SGPR_ALIAS, .from_end = 2, .count = 1, .bytes = (bytes_),    \
      .lanes = (lanes_), .type = (type_), .classes = GC_REGCLASS_GENERAL, .dwarf = (dwarf_),      \
      .halt_bit = -1, .props = P_VOL, .regnum = (regnum_) }

/* gfx9: flat_scratch lives in SGPRs (end - 6, end - 5); the 64-bit XNACK mask in slots 7-8. */
#define D_FLAT_SCRATCH_GFX9                                                                        \
    { .name = "flat_scratch", .kind = GC_REGK_SGPR_ALIAS, .from_end = 6, .count = 1,              \
      .bytes = 8, .type = "uint64_t", .classes = GC_REGCLASS_SYSTEM, .dwarf = -1,                 \
      .halt_bit = -1, .props = P_VOL, .regnum = RN_FLAT_SCRATCH }
#define D_XNACK_GFX9                                                                               \
    D_HW("xnack_mask", "xnack_mask_lo", 8, 0, "uint64_t", NULL, GC_REGCLASS_SYSTEM, P_VOL,        \
         RN_XNACK_MASK64)
/* gfx10+: flat_scratch is architected (slots 9-10); XNACK_MASK is 32 bits and, being a
   per-lane mask, only meaningful in wave32 (inference 1 in the header comment). */
#define D_FLAT_SCRATCH_GFX10 D_FLAT_SCRATCH_ARCH("flat_scratch")
/* gfx12 renamed it scratch_base (the hardware slot keeps its name). */
#define D_FLAT_SCRATCH_ARCH(name_)                                                                 \
    D_HW(name_, "flat_scratch_lo", 8, 0, "uint64_t", NULL, GC_REGCLASS_SYSTEM, P_VOL,             \
         RN_FLAT_SCRATCH)
#define D_XNACK_GFX10                                                                              \
    D_HW("xnack_mask", "xnack_mask", 4, 32, "uint32_t", NULL, GC_REGCLASS_SYSTEM, P_VOL,          \
         RN_XNACK_MASK32)

/* A flags-typed hardware register; every one AMD presents has read-only bits. */
#define D_SYS(n, flags_, regnum_)                                                                  \
    D_HW(n, n, 4, 0, NULL, &(flags_), GC_REGCLASS_SYSTEM, P_RO, regnum_)

#define DESCS(a) .descs = (a), .ndescs = sizeof(a) / sizeof((a)[0])

/* gfx9's aliased slots: flat_scratch (end-6, end-5), xnack_mask (end-4, end-3; the real mask
   is in slots 7-8, which is where AMD's library reads these two shadow SGPRs from), vcc. */
#define GFX9_ALIASES                                                                               \
    .sgpr_alias_count = 6,                                                                         \
    .shadow_remap = { { 4, "xnack_mask_lo" }, { 3, "xnack_mask_hi" } }

#define GFX9_TAIL(st, md, ts)                                                                      \
    D_SGPRS(102), D_TTMPS, D_M0, D_PC, D_SYS("mode", md, RN_MODE),                                \
    D_SYS("trapsts", ts, RN_TRAPSTS), D_XNACK_GFX9,                                                \
    D_FLAT_SCRATCH_GFX9, D_STATUS_GFX9(&(st)), D_EXEC64, D_VCC64

static const struct gc_reg_desc descs_gfx9[] = {
    D_VGPR64,
    GFX9_TAIL(status_gfx9, mode_gfx9, trapsts_gfx9),
};
static const struct gc_reg_desc descs_mi[] = {
    D_VGPR64,
    D_ACC64,
    GFX9_TAIL(status_gfx9, mode_gfx9, trapsts_gfx9),
};
static const struct gc_reg_desc descs_gfx940[] = {
    D_VGPR64,
    D_ACC64,
    GFX9_TAIL(status_gfx940, mode_gfx940, trapsts_gfx940),
};

#define GFX10_TAIL(st, md, ts)                                                                     \
    D_SGPRS(106), D_TTMPS, D_M0, D_PC, D_SYS("mode", md, RN_MODE),                                \
    D_SYS("trapsts", ts, RN_TRAPSTS), D_XNACK_GFX10,                                               \
    D_FLAT_SCRATCH_GFX10, D_STATUS_GFX9(&(st)), D_EXEC32, D_EXEC64, D_VCC32, D_VCC64

static const struct gc_reg_desc descs_gfx10[] = {
    D_VGPR64,
    D_VGPR32,
    GFX10_TAIL(status_gfx10, mode_gfx10, trapsts_gfx10),
};
static const struct gc_reg_desc descs_gfx11[] = {
    D_VGPR64,
    D_VGPR32,
    GFX10_TAIL(status_gfx11, mode_gfx11, trapsts_gfx11),
};

/* gfx12: no TRAPSTS; STATUS is read as is (only priv hidden) and the halt bit lives in
   STATE_PRIV (bit 14). */
static const struct gc_reg_desc descs_gfx12[] = {
    D_VGPR64,
    D_VGPR32,
    D_SGPRS(106),
    D_TTMPS,
    D_M0,
    D_PC,
    D_SYS("mode", mode_gfx12, RN_MODE),
    D_SYS("trap_ctrl", trap_ctrl_gfx12, RN_TRAP_CTRL),
    D_SYS("excp_flag_priv", excp_flag_priv_gfx12, RN_EXCP_FLAG_PRIV),
    D_SYS("excp_flag_user", excp_flag_user_gfx12, RN_EXCP_FLAG_USER),
    D_XNACK_GFX10,
    D_FLAT_SCRATCH_ARCH("scratch_base"),
    { .name = "status", .kind = GC_REGK_PSEUDO, .slot = "status", .count = 1, .bytes = 4,
      .hide_mask = 1u << 5, .halt_bit = -1, .flags = &status_gfx12,
      .classes = GC_REGCLASS_SYSTEM, .dwarf = 128, .props = P_RO | GC_REGPROP_VOLATILE,
      .regnum = RN_PSEUDO_STATUS },
    { .name = "state_priv", .kind = GC_REGK_PSEUDO, .slot = "state_priv", .count = 1,
      .bytes = 4, .hide_mask = 0, .halt_bit = 14, .flags = &state_priv_gfx12,
      .classes = GC_REGCLASS_SYSTEM, .dwarf = -1, .props = P_RO,
      .regnum = RN_PSEUDO_STATE_PRIV },
    D_EXEC32,
    D_EXEC64,
    D_VCC32,
    D_VCC64,
};

const struct gc_regset gc_regset_gfx9 = { .name = "gfx9", DESCS(descs_gfx9), GFX9_ALIASES };
/* gfx908 and gfx90a present the same registers; they differ only in how the record sizes the
   AccVGPR block, which is the decoder's business. */
const struct gc_regset gc_regset_gfx908 = { .name = "gfx908", DESCS(descs_mi), GFX9_ALIASES };
const struct gc_regset gc_regset_gfx90a = { .name = "gfx90a", DESCS(descs_mi), GFX9_ALIASES };
const struct gc_regset gc_regset_gfx940 = { .name = "gfx940", DESCS(descs_gfx940),
                                            GFX9_ALIASES };
/* gfx10+: only vcc is aliased (s106:s107); flat_scratch and XNACK have their own slots. */
const struct gc_regset gc_regset_gfx10 = { .name = "gfx10", DESCS(descs_gfx10),
                                           .sgpr_alias_count = 2 };
const struct gc_regset gc_regset_gfx11 = { .name = "gfx11", DESCS(descs_gfx11),
                                           .sgpr_alias_count = 2 };
const struct gc_regset gc_regset_gfx12 = { .name = "gfx12", DESCS(descs_gfx12),
                                           .sgpr_alias_count = 2 };

/* ------------------------------------------------------------------------------------------ */
/* Locating a register in a wave                                                               */
/* ------------------------------------------------------------------------------------------ */

/* Where the bytes of one register come from. */
enum src {
    SRC_VGPR,
    SRC_SHARED_VGPR,
    SRC_ACCVGPR,
    SRC_SGPR,
    SRC_HWREG,
    SRC_TTMP,
    SRC_PC,
    SRC_PSEUDO,
};

struct loc {
    enum src src;
    uint32_t index;  /* register or slot number inside its block */
    uint32_t lanes;  /* vector registers */
    uint32_t size;   /* bytes */
    uint64_t offset; /* record-relative offset of the saved bytes */
};

/* Per-wave facts every lookup needs, computed once. */
struct wctx {
    const struct gc_arch *arch;
    const struct gc_wave *w;
    const struct gc_regset *rs;
    int64_t sgpr_end; /* one past the aliased SGPR slots */
    int no_vgprs;
    /* record-relative block offsets, ascending (docs/cwsr-layout.md §7.1 read bottom-up) */
    uint64_t off_vgpr, off_shared, off_acc, off_sgpr, off_hwreg, off_ttmp;
};

static void wctx_init(struct wctx *c, const struct gc_arch *arch, const struct gc_wave *w)
{
    const struct gc_hwreg_layout *hw = arch->hwreg;
    int64_t arch_end = (int64_t)arch->sgprs + (int64_t)arch->regs->sgpr_alias_count;

    c->arch = arch;
    c->w = w;
    c->rs = arch->regs;
    /* The aliases sit at the top of the SGPRs the wave can address: a gfx9 wave that saved
       fewer than 108 SGPRs has vcc in its own top two. */
    c->sgpr_end = arch_end < (int64_t)w->sgprs ? arch_end : (int64_t)w->sgprs;
    c->no_vgprs = hw->no_vgprs.slot != GC_HWREG_NO_SLOT &&
                  ((gc_wave_hwreg(w, hw->no_vgprs.slot) >> hw->no_vgprs.bit) & 1u);
    c->off_vgpr = 0;
    c->off_shared = c->off_vgpr + (uint64_t)w->vgprs * w->lanes * 4;
    c->off_acc = c->off_shared + (uint64_t)w->shared_vgprs * 32 * 4;
    c->off_sgpr = c->off_acc + (uint64_t)w->accvgprs * 64 * 4;
    c->off_hwreg = c->off_sgpr + (uint64_t)w->sgprs * 4;
    c->off_ttmp = c->off_hwreg + GC_HWREG_SLOTS * 4;
}

static int lanes_match(const struct gc_reg_desc *d, const struct gc_wave *w)
{
    return d->lanes == 0 || d->lanes == w->lanes;
}

/*
 * Locate register number n of descriptor d in the wave.
 * @return 1 if the wave has it (*ret filled), 0 if not, -1 if the row names a slot the family
 *         lacks.
 */
static int locate(const struct wctx *c, const struct gc_reg_desc *d, uint32_t n, struct loc *ret)
{
    const struct gc_wave *w = c->w;
    int64_t alias_base = c->sgpr_end - (int64_t)c->rs->sgpr_alias_count;
    struct loc l = { 0 };
    int slot;

    switch (d->kind) {
    case GC_REGK_VGPR:
        /* After `s_sendmsg dealloc_vgprs` (gfx11+) the VGPRs are gone. AMD's library tests
           the range with v255 excluded, so v255 of a 256-VGPR wave stays listed; kept for
           fidelity of the list. */
        if (c->no_vgprs && n < 255)
            return 0;
        if (d->lanes == w->lanes && n < w->vgprs) {
            l.src = SRC_VGPR;
            l.index = n;
            l.lanes = d->lanes;
            l.offset = c->off_vgpr + (uint64_t)n * d->lanes * 4;
        } else if (d->shared_after && n >= w->vgprs && n - w->vgprs < w->shared_vgprs) {
            /* gfx10 wave64: the 32-lane shared VGPRs are numbered after the private ones. */
            l.src = SRC_SHARED_VGPR;
            l.index = n - w->vgprs;
            l.lanes = 32;
            l.offset = c->off_shared + (uint64_t)l.index * 32 * 4;
        } else {
            return 0;
        }
        l.size = l.lanes * 4;
        break;
    case GC_REGK_ACCVGPR:
        if (n >= w->accvgprs)
            return 0;
        l.src = SRC_ACCVGPR;
        l.index = n;
        l.lanes = 64;
        l.size = 64 * 4;
        l.offset = c->off_acc + (uint64_t)n * 64 * 4;
        break;
    case GC_REGK_SGPR:
        if ((int64_t)n >= alias_base)
            return 0;
        l.src = SRC_SGPR;
        l.index = n;
        l.size = 4;
        l.offset = c->off_sgpr + (uint64_t)n * 4;
        break;
    case GC_REGK_SGPR_SHADOW:
        if ((int64_t)n < alias_base || (int64_t)n >= c->sgpr_end)
            return 0;
        l.src = SRC_SGPR;
        l.index = n;
        l.size = 4;
        l.offset = c->off_sgpr + (uint64_t)n * 4;
        for (int i = 0; i < 2; i++) {
            const struct gc_shadow_remap *r = &c->rs->shadow_remap[i];

            if (r->from_end == 0 || c->sgpr_end - (int64_t)n != r->from_end)
                continue;
            slot = gc_hwreg_slot(c->arch->hwreg, r->slot);
            if (slot < 0)
                return -1;
            l.src = SRC_HWREG;
            l.index = (uint32_t)slot;
            l.offset = c->off_hwreg + (uint64_t)slot * 4;
        }
        break;
    case GC_REGK_TTMP:
        if (n >= 16)
            return 0;
        l.src = SRC_TTMP;
        l.index = n;
        l.size = 4;
        l.offset = c->off_ttmp + (uint64_t)n * 4;
        break;
    case GC_REGK_HWREG:
    case GC_REGK_PC:
    case GC_REGK_PSEUDO:
        if (!lanes_match(d, w))
            return 0;
        slot = gc_hwreg_slot(c->arch->hwreg, d->slot);
        if (slot < 0 || (uint32_t)slot + d->bytes / 4 > GC_HWREG_SLOTS)
            return -1;
        l.src = d->kind == GC_REGK_PC ? SRC_PC : d->kind == GC_REGK_PSEUDO ? SRC_PSEUDO
                                                                           : SRC_HWREG;
        l.index = (uint32_t)slot;
        l.size = d->bytes;
        l.offset = c->off_hwreg + (uint64_t)slot * 4;
        break;
    case GC_REGK_SGPR_ALIAS:
        if (!lanes_match(d, w) || c->sgpr_end < (int64_t)d->from_end)
            return 0;
        l.src = SRC_SGPR;
        l.index = (uint32_t)(c->sgpr_end - (int64_t)d->from_end);
        l.size = d->bytes;
        l.offset = c->off_sgpr + (uint64_t)l.index * 4;
        break;
    default:
        return -1;
    }
    *ret = l;
    return 1;
}

static void fill_reg(const struct wctx *c, const struct gc_reg_desc *d, uint32_t desc_index,
                     uint32_t n, const struct loc *l, struct gc_reg *r)
{
    memset(r, 0, sizeof(*r));
    if (d->count > 1 || d->kind == GC_REGK_TTMP)
        snprintf(r->name, sizeof(r->name), "%s%u", d->name, n);
    else
        snprintf(r->name, sizeof(r->name), "%s", d->name);
    r->id = desc_index << 12 | n;
    r->regnum = d->regnum + (n - d->first);
    r->number = d->count > 1 || d->kind == GC_REGK_TTMP ? n : 0;
    r->size = l->size;
    r->classes = d->classes;
    r->dwarf = d->dwarf < 0 ? -1 : d->dwarf + (int32_t)(n - d->first);
    /* Without a wave (the architecture's list) nothing is derived yet. */
    r->derived = c && (l->src == SRC_PSEUDO ||
                       (l->src == SRC_PC && c->arch->parks_stopped_waves != 0 &&
                        gc_wave_trap_stopped(c->arch, c->w)));
    r->save_offset = l->offset;
    r->desc = d;
}

gpucore_status_t gc_wave_register_list(const struct gc_arch *arch, const struct gc_wave *w,
                                       struct gc_reglist *ret)
{
    struct wctx c;
    struct gc_reg *regs;
    size_t cap = 0, count = 0;

    if (!arch || !w || !ret || !arch->regs || !arch->hwreg || !arch->ttmp)
        return GPUCORE_E_INVAL;
    wctx_init(&c, arch, w);
    for (uint32_t i = 0; i < c.rs->ndescs; i++)
        cap += c.rs->descs[i].count;
    regs = gc_calloc_array(cap ? cap : 1, sizeof(*regs));
    if (!regs)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < c.rs->ndescs; i++) {
        const struct gc_reg_desc *d = &c.rs->descs[i];

        for (uint32_t n = d->first; n < (uint32_t)d->first + d->count; n++) {
            struct loc l;
            int found = locate(&c, d, n, &l);

            if (found < 0) {
                gc_free(regs);
                return GPUCORE_E_CORRUPT;
            }
            if (found)
                fill_reg(&c, d, i, n, &l, &regs[count++]);
        }
    }
    ret->regs = regs;
    ret->count = count;
    return GPUCORE_OK;
}

gpucore_status_t gc_wave_register_shape(const struct gc_arch *arch, const struct gc_wave *w,
                                        struct gc_reg_shape *ret)
{
    struct wctx c;

    if (!arch || !w || !ret || !arch->regs || !arch->hwreg || !arch->ttmp)
        return GPUCORE_E_INVAL;
    wctx_init(&c, arch, w);
    memset(ret, 0, sizeof(*ret));
    ret->lanes = w->lanes;
    ret->vgprs = w->vgprs;
    ret->shared_vgprs = w->shared_vgprs;
    ret->accvgprs = w->accvgprs;
    ret->sgprs = w->sgprs;
    ret->no_vgprs = c.no_vgprs != 0;
    /* as fill_reg() decides a PC's derived flag */
    ret->pc_derived = arch->parks_stopped_waves != 0 && gc_wave_trap_stopped(arch, w);
    return GPUCORE_OK;
}

gpucore_status_t gc_wave_register_find(const struct gc_arch *arch, const struct gc_wave *w,
                                       const char *name, struct gc_reg *ret)
{
    struct wctx c;

    if (!arch || !w || !name || !ret || !arch->regs || !arch->hwreg || !arch->ttmp)
        return GPUCORE_E_INVAL;
    wctx_init(&c, arch, w);
    for (uint32_t i = 0; i < c.rs->ndescs; i++) {
        const struct gc_reg_desc *d = &c.rs->descs[i];
        size_t len = strlen(d->name);
        uint32_t n = 0;

        if (strncmp(name, d->name, len) != 0)
            continue;
        if (d->count > 1 || d->kind == GC_REGK_TTMP) { /* "s12": the number after the name */
            char *end;
            unsigned long v;

            if (name[len] < '0' || name[len] > '9')
                continue;
            v = strtoul(name + len, &end, 10);
            if (*end || v < d->first || v >= (unsigned long)d->first + d->count)
                continue;
            n = (uint32_t)v;
        } else if (name[len] != '\0') {
            continue;
        } else {
            n = d->first;
        }
        /* The first descriptor of the name the wave has (the list's first of that name). */
        {
            struct loc l;
            int found = locate(&c, d, n, &l);

            if (found < 0)
                return GPUCORE_E_CORRUPT;
            if (found) {
                fill_reg(&c, d, i, n, &l, ret);
                return GPUCORE_OK;
            }
        }
    }
    return GPUCORE_E_NOTFOUND;
}

gpucore_status_t gc_arch_register_list(const struct gc_arch *arch, struct gc_reglist *ret)
{
    const struct gc_regset *rs;
    struct gc_reg *regs;
    size_t cap = 0, count = 0;

    if (!arch || !ret || !arch->regs)
        return GPUCORE_E_INVAL;
    rs = arch->regs;
    for (uint32_t i = 0; i < rs->ndescs; i++)
        cap += rs->descs[i].count;
    regs = gc_calloc_array(cap ? cap : 1, sizeof(*regs));
    if (!regs)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < rs->ndescs; i++) {
        const struct gc_reg_desc *d = &rs->descs[i];
        const struct loc l = { .size = d->bytes ? d->bytes : (uint32_t)d->lanes * 4u };

        for (uint32_t n = d->first; n < (uint32_t)d->first + d->count; n++) {
            struct gc_reg *r = &regs[count++];

            fill_reg(NULL, d, i, n, &l, r);
        }
    }
    ret->regs = regs;
    ret->count = count;
    return GPUCORE_OK;
}

void gc_reglist_done(struct gc_reglist *list)
{
    if (!list)
        return;
    gc_free(list->regs);
    list->regs = NULL;
    list->count = 0;
}

const struct gc_reg *gc_reglist_find(const struct gc_reglist *list, const char *name)
{
    if (!list || !name)
        return NULL;
    for (size_t i = 0; i < list->count; i++) {
        if (strcmp(list->regs[i].name, name) == 0)
            return &list->regs[i];
    }
    return NULL;
}

const struct gc_reg *gc_reglist_find_dwarf(const struct gc_reglist *list, int32_t dwarf)
{
    if (!list || dwarf < 0)
        return NULL;
    for (size_t i = 0; i < list->count; i++) {
        if (list->regs[i].dwarf == dwarf)
            return &list->regs[i];
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Type strings                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* snprintf-style appender: counts everything, writes what fits, keeps the NUL. */
struct sbuf {
    char *buf;
    size_t size, len;
};

static void sb_put(struct sbuf *b, const char *fmt, ...) GC_PRINTF(2, 3);

static void sb_put(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    size_t room = b->len < b->size ? b->size - b->len : 0;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(room ? b->buf + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

/*
 * AMD's layout, byte for byte (its strings are indented source lines joined without their
 * newlines): "flags32_t NAME {", then per field two spaces and "TYPE FIELD @LO[-HI];", then "}".
 * An enum is defined where first used -- "enum E {", per item four spaces and the name padded
 * to the enum's width, " = V", "," between items, then "  }" -- and named alone afterwards.
 */
static void render_flags(struct sbuf *b, const struct gc_flags_type *t)
{
    sb_put(b, "flags32_t %s {", t->name);
    for (uint32_t i = 0; i < t->nfields; i++) {
        const struct gc_flags_field *f = &t->fields[i];
        int first_use = 1;

        if (f->en) {
            for (uint32_t j = 0; j < i; j++)
                first_use &= t->fields[j].en != f->en;
            sb_put(b, "  enum %s", f->en->name);
            if (first_use) {
                sb_put(b, " {");
                for (uint32_t k = 0; k < f->en->nitems; k++)
                    sb_put(b, "    %-*s = %u%s", (int)f->en->name_width, f->en->items[k].name,
                           f->en->items[k].value, k + 1 < f->en->nitems ? "," : "");
                sb_put(b, "  }");
            }
        } else {
            sb_put(b, "  %s", f->is_int ? "uint32_t" : "bool");
        }
        if (f->lo == f->hi)
            sb_put(b, " %s @%u;", f->name, f->lo);
        else
            sb_put(b, " %s @%u-%u;", f->name, f->lo, f->hi);
    }
    sb_put(b, "}");
}

uint32_t gc_reg_properties(const struct gc_reg *reg)
{
    return reg && reg->desc ? reg->desc->props : 0;
}

size_t gc_reg_type(const struct gc_reg *reg, char *buf, size_t size)
{
    struct sbuf b = { .buf = buf, .size = size, .len = 0 };

    if (size)
        buf[0] = '\0';
    if (!reg || !reg->desc)
        return 0;
    if (reg->desc->flags)
        render_flags(&b, reg->desc->flags);
    else if (reg->desc->kind == GC_REGK_VGPR || reg->desc->kind == GC_REGK_ACCVGPR)
        /* A shared VGPR has 32 lanes whatever the descriptor's wave size. */
        sb_put(&b, "int32_t[%u]", reg->size / 4);
    else
        sb_put(&b, "%s", reg->desc->type ? reg->desc->type : "uint32_t");
    return b.len;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                     */
/* ------------------------------------------------------------------------------------------ */

gpucore_status_t gc_reg_read(const struct gc_arch *arch, const struct gc_wave *w,
                             uint32_t r_version, const struct gc_reg *reg, uint64_t offset,
                             void *buf, size_t size)
{
    uint8_t val[64 * 4];
    struct wctx c;
    struct loc l;
    uint32_t v;

    if (!arch || !w || !reg || !reg->desc || !buf || size == 0 || !arch->regs || !arch->hwreg ||
        !arch->ttmp)
        return GPUCORE_E_INVAL;
    if (offset > reg->size || reg->size - offset < size)
        return GPUCORE_E_INVAL;
    wctx_init(&c, arch, w);
    /* Locate again rather than trust the list entry: the reg may come from another wave. */
    if (locate(&c, reg->desc, reg->number ? reg->number : reg->desc->first, &l) != 1 ||
        l.size != reg->size || l.size > sizeof(val))
        return GPUCORE_E_INVAL;

    switch (l.src) {
    case SRC_VGPR:
    case SRC_SHARED_VGPR:
    case SRC_ACCVGPR:
        for (uint32_t lane = 0; lane < l.lanes; lane++) {
            v = l.src == SRC_VGPR          ? gc_wave_vgpr(w, l.index, lane)
                : l.src == SRC_ACCVGPR     ? gc_wave_accvgpr(w, l.index, lane)
                                           : gc_wave_shared_vgpr(w, l.index, lane);
            gc_le32_put(val + 4 * lane, v);
        }
        break;
    case SRC_SGPR:
        for (uint32_t k = 0; k < l.size / 4; k++)
            gc_le32_put(val + 4 * k, gc_wave_sgpr(w, l.index + k));
        break;
    case SRC_HWREG:
        for (uint32_t k = 0; k < l.size / 4; k++)
            gc_le32_put(val + 4 * k, gc_wave_hwreg(w, l.index + k));
        break;
    case SRC_TTMP:
        gc_le32_put(val, gc_wave_ttmp(w, l.index));
        break;
    case SRC_PC:
        gc_le64_put(val, gc_wave_pc(arch, w, r_version));
        break;
    case SRC_PSEUDO:
        v = gc_wave_hwreg(w, l.index) & ~reg->desc->hide_mask;
        if (reg->desc->halt_bit >= 0) {
            uint32_t hb = 1u << reg->desc->halt_bit;
            /* A trap-stopped wave is halted by the trap handler, which saved the wave's own
               halt state in ttmp6; a wave AMD's library stops at attach keeps its saved one. */
            uint32_t halted = gc_wave_trap_stopped(arch, w)
                                      ? gc_wave_ttmp_field(w, arch->ttmp->saved_halt)
                                      : (v & hb) != 0;

            v = (v & ~hb) | (halted ? hb : 0);
        }
        gc_le32_put(val, v);
        break;
    }
    memcpy(buf, val + offset, size);
    return GPUCORE_OK;
}
