/* SPDX-License-Identifier: MIT */
/*
 * The disassembler (LLVM MC C API) and instruction classification. See disasm.h.
 *
 * Sources of the facts in the classification tables:
 *  - opcode numbers: LLVM's llvm/lib/Target/AMDGPU/SOPInstructions.td (the *_Real_vi, _gfx10,
 *    _gfx11, _gfx12 encodings), checked for gfx9 (gfx90a, gfx940), gfx10 (gfx1030) and gfx11
 *    (gfx1100) by assembling each instruction with llvm-mc-16 -show-encoding; the tests carry
 *    those bytes. gfx12 cannot be assembled with LLVM 16: its numbers are from the .td only.
 *  - which instruction is which kind: ROCdbgapi's src/architecture.cpp (classify_instruction
 *    and the gfx9/gfx10 is_* predicates): s_branch is DIRECT_BRANCH; s_cbranch_* (including the
 *    cdbg forms), s_cbranch_i_fork and s_subvector_loop_* are DIRECT_BRANCH_CONDITIONAL;
 *    s_cbranch_g_fork INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR; s_cbranch_join SPECIAL;
 *    s_setpc_b64 INDIRECT_BRANCH_REGISTER_PAIR; s_call_b64 DIRECT_CALL_REGISTER_PAIR;
 *    s_swappc_b64 INDIRECT_CALL_REGISTER_PAIRS; s_endpgm TERMINATE; s_trap TRAP (code = simm16
 *    bits 7:0); s_sethalt with bit 0 set HALT; s_barrier BARRIER; s_sleep SLEEP; s_code_end
 *    UNKNOWN; a control-flow opcode whose register operands are not an even pair UNKNOWN;
 *    every other valid instruction SEQUENTIAL (so s_sethalt 0 and s_icache_inv are SEQUENTIAL,
 *    as in ROCdbgapi).
 *  - decisions of ours where ROCdbgapi 0.77 has no rule: s_endpgm_saved and
 *    s_endpgm_ordered_ps_done are TERMINATE (ROCdbgapi leaves them SEQUENTIAL, but the wave
 *    ends there); gfx12's s_barrier_wait is BARRIER, s_barrier_signal(_isfirst) SPECIAL (it
 *    releases waves waiting at a barrier, which is what SPECIAL's definition names) and
 *    s_sleep_var SLEEP.
 */
#include "disasm.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "disasm_module.h"
#include "gc_util.h"

/* ------------------------------------------------------------------------------------------ */
/* Encoding tables                                                                             */
/* ------------------------------------------------------------------------------------------ */

/* Scalar formats, identical in their fixed bits from gfx9 to gfx12. */
enum sfmt {
    FMT_NONE = 0,
    FMT_SOPP, /* 1011 1111 1 op7 simm16 */
    FMT_SOPK, /* 1011 op5 sdst7 simm16 (op5 < 29; 29..31 are SOP1, SOPC, SOPP) */
    FMT_SOP1, /* 1011 1110 1 sdst7 op8 ssrc0 */
    FMT_SOP2, /* 10 op7 sdst7 ssrc1 ssrc0 (op7 < 0x60; above is SOPK..SOPP) */
};

/* How a rule reads its operands. */
enum opnd {
    OPND_NONE = 0,
    OPND_PCREL,      /* target = pc + 4 + simm16 * 4 */
    OPND_SETHALT,    /* HALT if simm16 bit 0, else SEQUENTIAL */
    OPND_TRAP,       /* trap code = simm16 bits 7:0 */
    OPND_SSRC0_PAIR, /* regs = ssrc0 pair */
    OPND_SSRC1_PAIR, /* regs = ssrc1 pair (ssrc0 must be a pair too) */
    OPND_CALL,       /* target = pc + 4 + simm16 * 4; regs = sdst pair */
    OPND_SWAPPC,     /* regs = ssrc0 pair, sdst pair */
    OPND_SDST_PCREL, /* sdst must be a pair; target = pc + 4 + simm16 * 4 (s_cbranch_i_fork) */
    OPND_SSRC0_ANY,  /* any ssrc0; 255 (literal) makes the instruction 8 bytes */
};

struct insn_rule {
    uint8_t fmt;  /* enum sfmt */
    uint8_t op;   /* opcode within the format */
    uint8_t kind; /* GC_INSN_* */
    uint8_t opnd; /* enum opnd */
    const char *name;
};

/*
 * Encodings LLVM's AMDGPU disassembler cannot be trusted with: it crashes (SIGSEGV) instead of
 * rejecting them. Each row matches the first dword (mask/value, first match wins) and names
 * fields of the second dword whose value `bad` makes the instruction invalid; such bytes are
 * reported as "not an instruction" without calling LLVM.
 *
 * LLVM 16.0.6 (Debian llvm-16): an SDWA instruction (VOP1/VOP2/VOPC with src0 = 0xf9) whose
 * dst_sel, src0_sel or src1_sel is 7 -- a reserved value, so the instruction is invalid on the
 * hardware too -- indexes past a table (found by fuzz_arch_disasm; reproducer
 * tests/fuzz/corpus/fuzz_arch_disasm/llvm16-sdwa-sel7). VOPC has no dst_sel (bits 14:8 hold
 * SDST there), so its row checks only the source selects.
 */
#define GC_DECODE_HAZARD_FIELDS 3u
struct decode_hazard {
    uint32_t mask, value; /* first dword */
    uint32_t nfields;
    struct gc_bitfield fields[GC_DECODE_HAZARD_FIELDS]; /* of the second dword */
    uint32_t bad;
};

#define SDWA_DST_SEL  GC_BF(10, 8)
#define SDWA_SRC0_SEL GC_BF(18, 16)
#define SDWA_SRC1_SEL GC_BF(26, 24)

/* gfx8 .. gfx10: the families with SDWA (gfx11 removed it). */
static const struct decode_hazard sdwa_hazards[] = {
    { 0xfe0001ffu, 0x7e0000f9u, 2, { SDWA_DST_SEL, SDWA_SRC0_SEL }, 7 },                /* VOP1 */
    { 0xfe0001ffu, 0x7c0000f9u, 2, { SDWA_SRC0_SEL, SDWA_SRC1_SEL }, 7 },               /* VOPC */
    { 0x800001ffu, 0x000000f9u, 3, { SDWA_DST_SEL, SDWA_SRC0_SEL, SDWA_SRC1_SEL }, 7 }, /* VOP2 */
};

struct family_rules {
    const struct insn_rule *rules;
    size_t n;
    const struct decode_hazard *hazards;
    size_t nhazards;
    uint32_t largest_insn; /* bytes of the longest instruction, as AMD's library answers it
                              (gfx10, gfx11: MIMG NSA, 5 dwords; gfx12: 6 dwords) */
};

#define R(fmt_, op_, kind_, opnd_, name_)                                              \
    {                                                                                  \
        .fmt = FMT_##fmt_, .op = (op_), .kind = GC_INSN_##kind_, .opnd = OPND_##opnd_, \
        .name = (name_)                                                                \
    }

/* gfx9 (gfx900 ... gfx942): the VI encodings of SOPInstructions.td. */
static const struct insn_rule gfx9_rules[] = {
    R(SOPP, 0x01, TERMINATE, NONE, "s_endpgm"),
    R(SOPP, 0x02, DIRECT_BRANCH, PCREL, "s_branch"),
    R(SOPP, 0x04, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc0"),
    R(SOPP, 0x05, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc1"),
    R(SOPP, 0x06, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccz"),
    R(SOPP, 0x07, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccnz"),
    R(SOPP, 0x08, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execz"),
    R(SOPP, 0x09, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execnz"),
    R(SOPP, 0x0a, BARRIER, NONE, "s_barrier"),
    R(SOPP, 0x0d, SEQUENTIAL, SETHALT, "s_sethalt"),
    R(SOPP, 0x0e, SLEEP, NONE, "s_sleep"),
    R(SOPP, 0x12, TRAP, TRAP, "s_trap"),
    R(SOPP, 0x17, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys"),
    R(SOPP, 0x18, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbguser"),
    R(SOPP, 0x19, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys_or_user"),
    R(SOPP, 0x1a, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys_and_user"),
    R(SOPP, 0x1b, TERMINATE, NONE, "s_endpgm_saved"),
    R(SOPP, 0x1e, TERMINATE, NONE, "s_endpgm_ordered_ps_done"),
    R(SOPK, 0x10, DIRECT_BRANCH_CONDITIONAL, SDST_PCREL, "s_cbranch_i_fork"),
    R(SOPK, 0x15, DIRECT_CALL_REGISTER_PAIR, CALL, "s_call_b64"),
    R(SOP1, 0x1d, INDIRECT_BRANCH_REGISTER_PAIR, SSRC0_PAIR, "s_setpc_b64"),
    R(SOP1, 0x1e, INDIRECT_CALL_REGISTER_PAIRS, SWAPPC, "s_swappc_b64"),
    R(SOP1, 0x2e, SPECIAL, NONE, "s_cbranch_join"),
    R(SOP2, 0x29, INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR, SSRC1_PAIR, "s_cbranch_g_fork"),
};

/* gfx10 (gfx1010 ... gfx1032): SOPP as gfx9 plus s_code_end; SOPK and SOP1 renumbered. */
static const struct insn_rule gfx10_rules[] = {
    R(SOPP, 0x01, TERMINATE, NONE, "s_endpgm"),
    R(SOPP, 0x02, DIRECT_BRANCH, PCREL, "s_branch"),
    R(SOPP, 0x04, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc0"),
    R(SOPP, 0x05, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc1"),
    R(SOPP, 0x06, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccz"),
    R(SOPP, 0x07, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccnz"),
    R(SOPP, 0x08, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execz"),
    R(SOPP, 0x09, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execnz"),
    R(SOPP, 0x0a, BARRIER, NONE, "s_barrier"),
    R(SOPP, 0x0d, SEQUENTIAL, SETHALT, "s_sethalt"),
    R(SOPP, 0x0e, SLEEP, NONE, "s_sleep"),
    R(SOPP, 0x12, TRAP, TRAP, "s_trap"),
    R(SOPP, 0x17, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys"),
    R(SOPP, 0x18, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbguser"),
    R(SOPP, 0x19, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys_or_user"),
    R(SOPP, 0x1a, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys_and_user"),
    R(SOPP, 0x1b, TERMINATE, NONE, "s_endpgm_saved"),
    R(SOPP, 0x1e, TERMINATE, NONE, "s_endpgm_ordered_ps_done"),
    R(SOPP, 0x1f, UNKNOWN, NONE, "s_code_end"),
    R(SOPK, 0x16, DIRECT_CALL_REGISTER_PAIR, CALL, "s_call_b64"),
    R(SOPK, 0x1b, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_subvector_loop_begin"),
    R(SOPK, 0x1c, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_subvector_loop_end"),
    R(SOP1, 0x20, INDIRECT_BRANCH_REGISTER_PAIR, SSRC0_PAIR, "s_setpc_b64"),
    R(SOP1, 0x21, INDIRECT_CALL_REGISTER_PAIRS, SWAPPC, "s_swappc_b64"),
};

/* gfx11 (gfx1100 ... gfx1102): every SOPP renumbered. */
static const struct insn_rule gfx11_rules[] = {
    R(SOPP, 0x02, SEQUENTIAL, SETHALT, "s_sethalt"),
    R(SOPP, 0x03, SLEEP, NONE, "s_sleep"),
    R(SOPP, 0x10, TRAP, TRAP, "s_trap"),
    R(SOPP, 0x1f, UNKNOWN, NONE, "s_code_end"),
    R(SOPP, 0x20, DIRECT_BRANCH, PCREL, "s_branch"),
    R(SOPP, 0x21, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc0"),
    R(SOPP, 0x22, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc1"),
    R(SOPP, 0x23, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccz"),
    R(SOPP, 0x24, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccnz"),
    R(SOPP, 0x25, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execz"),
    R(SOPP, 0x26, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execnz"),
    R(SOPP, 0x27, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys"),
    R(SOPP, 0x28, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbguser"),
    R(SOPP, 0x29, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys_or_user"),
    R(SOPP, 0x2a, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_cdbgsys_and_user"),
    R(SOPP, 0x30, TERMINATE, NONE, "s_endpgm"),
    R(SOPP, 0x31, TERMINATE, NONE, "s_endpgm_saved"),
    R(SOPP, 0x32, TERMINATE, NONE, "s_endpgm_ordered_ps_done"),
    R(SOPP, 0x3d, BARRIER, NONE, "s_barrier"),
    R(SOPK, 0x14, DIRECT_CALL_REGISTER_PAIR, CALL, "s_call_b64"),
    R(SOPK, 0x16, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_subvector_loop_begin"),
    R(SOPK, 0x17, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_subvector_loop_end"),
    R(SOP1, 0x48, INDIRECT_BRANCH_REGISTER_PAIR, SSRC0_PAIR, "s_setpc_b64"),
    R(SOP1, 0x49, INDIRECT_CALL_REGISTER_PAIRS, SWAPPC, "s_swappc_b64"),
};

/*
 * gfx12 (gfx1200, gfx1201): gfx11's SOPP numbers without the cdbg branches, s_barrier split
 * into s_barrier_signal (SOP1) and s_barrier_wait (SOPP), no subvector loops.
 */
static const struct insn_rule gfx12_rules[] = {
    R(SOPP, 0x02, SEQUENTIAL, SETHALT, "s_sethalt"),
    R(SOPP, 0x03, SLEEP, NONE, "s_sleep"),
    R(SOPP, 0x10, TRAP, TRAP, "s_trap"),
    R(SOPP, 0x14, BARRIER, NONE, "s_barrier_wait"),
    R(SOPP, 0x1f, UNKNOWN, NONE, "s_code_end"),
    R(SOPP, 0x20, DIRECT_BRANCH, PCREL, "s_branch"),
    R(SOPP, 0x21, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc0"),
    R(SOPP, 0x22, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_scc1"),
    R(SOPP, 0x23, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccz"),
    R(SOPP, 0x24, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_vccnz"),
    R(SOPP, 0x25, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execz"),
    R(SOPP, 0x26, DIRECT_BRANCH_CONDITIONAL, PCREL, "s_cbranch_execnz"),
    R(SOPP, 0x30, TERMINATE, NONE, "s_endpgm"),
    R(SOPP, 0x31, TERMINATE, NONE, "s_endpgm_saved"),
    R(SOPK, 0x14, DIRECT_CALL_REGISTER_PAIR, CALL, "s_call_b64"),
    R(SOP1, 0x48, INDIRECT_BRANCH_REGISTER_PAIR, SSRC0_PAIR, "s_setpc_b64"),
    R(SOP1, 0x49, INDIRECT_CALL_REGISTER_PAIRS, SWAPPC, "s_swappc_b64"),
    R(SOP1, 0x4e, SPECIAL, SSRC0_ANY, "s_barrier_signal"),
    R(SOP1, 0x4f, SPECIAL, SSRC0_ANY, "s_barrier_signal_isfirst"),
    R(SOP1, 0x58, SLEEP, SSRC0_ANY, "s_sleep_var"),
};

#undef R

/* Indexed by enum gc_family: a new family is a new row here, never a branch. */
static const struct family_rules rules_by_family[] = {
    [GC_FAMILY_GFX9] = { gfx9_rules, GC_ARRAY_SIZE(gfx9_rules), sdwa_hazards,
                         GC_ARRAY_SIZE(sdwa_hazards), 8 },
    [GC_FAMILY_GFX10] = { gfx10_rules, GC_ARRAY_SIZE(gfx10_rules), sdwa_hazards,
                          GC_ARRAY_SIZE(sdwa_hazards), 20 },
    [GC_FAMILY_GFX11] = { gfx11_rules, GC_ARRAY_SIZE(gfx11_rules), NULL, 0, 20 },
    [GC_FAMILY_GFX12] = { gfx12_rules, GC_ARRAY_SIZE(gfx12_rules), NULL, 0, 24 },
};

static const struct family_rules *family_rules_of(const struct gc_arch *arch)
{
    size_t f = (size_t)arch->family;

    if (f >= GC_ARRAY_SIZE(rules_by_family) || !rules_by_family[f].rules)
        return NULL;
    return &rules_by_family[f];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The scalar format of a first instruction word and its opcode; FMT_NONE for anything else. */
static enum sfmt scalar_format(uint32_t w, uint32_t *ret_op)
{
    if ((w & 0xff800000u) == 0xbf800000u) {
        *ret_op = (w >> 16) & 0x7fu;
        return FMT_SOPP;
    }
    if ((w & 0xff800000u) == 0xbe800000u) {
        *ret_op = (w >> 8) & 0xffu;
        return FMT_SOP1;
    }
    if ((w & 0xf0000000u) == 0xb0000000u) {
        uint32_t op5 = (w >> 23) & 0x1fu;

        if (op5 >= 29) /* SOP1, SOPC, SOPP share the prefix */
            return FMT_NONE;
        *ret_op = op5;
        return FMT_SOPK;
    }
    if ((w & 0xc0000000u) == 0x80000000u) {
        uint32_t op7 = (w >> 23) & 0x7fu;

        if (op7 >= 0x60) /* 1011...: the formats above */
            return FMT_NONE;
        *ret_op = op7;
        return FMT_SOP2;
    }
    return FMT_NONE;
}

/*
 * A 64-bit register operand the hardware accepts as a pair: an even scalar operand code naming
 * registers (SGPRs, vcc, ttmps, exec), not m0/null (124/125) or a constant (>= 128). The
 * hardware requires the low register of a 64-bit pair to be even; ROCdbgapi checks the same.
 */
static bool is_reg_pair(uint32_t code)
{
    return (code & 1u) == 0 && (code < 124 || code == 126);
}

struct decoded {
    uint32_t kind;
    uint64_t target;
    uint64_t trap_code;
    uint32_t nregs;
    uint32_t regs[4];
    uint32_t size; /* from the format */
};

static void set_pair(struct decoded *d, uint32_t code)
{
    d->regs[d->nregs++] = code;
    d->regs[d->nregs++] = code + 1;
}

/*
 * Classify the instruction whose first word is w by the family's rules. Returns 1 when a rule
 * names the opcode (d filled, kind UNKNOWN when its operands are not valid for it), 0 when the
 * instruction is not one of the family's control-flow instructions.
 */
static int classify_word(const struct family_rules *fr, uint32_t w, uint64_t pc, struct decoded *d)
{
    uint32_t op = 0;
    enum sfmt fmt = scalar_format(w, &op);
    const struct insn_rule *r = NULL;
    uint32_t sdst = (w >> 16) & 0x7fu, ssrc0 = w & 0xffu, ssrc1 = (w >> 8) & 0xffu;
    /* simm16 is signed; the offset counts 4-byte words from the next instruction. */
    int64_t simm16 = (int16_t)(uint16_t)(w & 0xffffu);
    uint64_t pcrel = pc + 4 + (uint64_t)(simm16 * 4);
    bool ok = true;

    if (fmt == FMT_NONE || !fr)
        return 0;
    for (size_t i = 0; i < fr->n && !r; i++) {
        if (fr->rules[i].fmt == fmt && fr->rules[i].op == op)
            r = &fr->rules[i];
    }
    if (!r)
        return 0;

    memset(d, 0, sizeof(*d));
    d->kind = r->kind;
    d->size = 4;
    switch ((enum opnd)r->opnd) {
    case OPND_NONE:
        break;
    case OPND_PCREL:
        d->target = pcrel;
        break;
    case OPND_SETHALT:
        d->kind = (w & 1u) ? GC_INSN_HALT : GC_INSN_SEQUENTIAL;
        break;
    case OPND_TRAP:
        d->trap_code = w & 0xffu;
        break;
    case OPND_SSRC0_PAIR:
        ok = is_reg_pair(ssrc0);
        if (ok)
            set_pair(d, ssrc0);
        break;
    case OPND_SSRC1_PAIR:
        ok = is_reg_pair(ssrc0) && is_reg_pair(ssrc1);
        if (ok)
            set_pair(d, ssrc1);
        break;
    case OPND_CALL:
        ok = is_reg_pair(sdst);
        if (ok) {
            d->target = pcrel;
            set_pair(d, sdst);
        }
        break;
    case OPND_SWAPPC:
        ok = is_reg_pair(ssrc0) && is_reg_pair(sdst);
        if (ok) {
            set_pair(d, ssrc0);
            set_pair(d, sdst);
        }
        break;
    case OPND_SDST_PCREL:
        ok = is_reg_pair(sdst);
        if (ok)
            d->target = pcrel;
        break;
    case OPND_SSRC0_ANY:
        if (ssrc0 == 255) /* a 32-bit literal follows */
            d->size = 8;
        break;
    }
    if (!ok) {
        /* A control-flow opcode with operands it cannot have: say nothing about it. */
        memset(d, 0, sizeof(*d));
        d->kind = GC_INSN_UNKNOWN;
        d->size = 4;
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* The LLVM half (disasm_module.h)                                                             */
/* ------------------------------------------------------------------------------------------ */

/* A processor's LLVM context with the family rules it decodes by (their hazards). */
struct dis_ctx {
    const struct gc_disasm_module *mod;
    void *ref; /* the module's context */
    const struct family_rules *rules;
};

/*
 * The LLVM processor to disassemble arch with: the target's own name when this LLVM knows it
 * (a newer LLVM has gfx942 and gfx12), else the row's ISA-compatible stand-in (gfx940 for
 * gfx942 on LLVM 16), else NULL.
 */
static const char *llvm_cpu_for(const struct gc_disasm_module *m, const struct gc_arch *arch)
{
    if (m->has_cpu(arch->name))
        return arch->name;
    if (arch->llvm_cpu && m->has_cpu(arch->llvm_cpu))
        return arch->llvm_cpu;
    return NULL;
}

/*
 * The family must be one of ours too: LLVM also lists gfx6/gfx7 processors, for which its
 * disassembler aborts just as for unknown ones; every family with rules is gfx9 or newer.
 */
static const char *cpu_of(const struct gc_disasm_module *m, const struct gc_arch *arch)
{
    return arch && family_rules_of(arch) ? llvm_cpu_for(m, arch) : NULL;
}

int gc_disasm_available(const struct gc_arch *arch)
{
    const struct gc_disasm_module *m;

    if (!arch || !family_rules_of(arch) || gc_disasm_module_get(&m, NULL) != GPUCORE_OK)
        return 0;
    return cpu_of(m, arch) != NULL;
}

const char *gc_disasm_llvm_version(void)
{
    return GC_LLVM_VERSION_STRING;
}

static gpucore_status_t no_disassembler(const struct gc_arch *arch,
                                        const struct gc_disasm_module *m, gpucore_diag_t *diag)
{
    if (arch->llvm_cpu)
        return gc_diag_set(diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET,
                           "no disassembler for %s in this LLVM (%s): it has no processor %s",
                           arch->name, m->llvm_version, arch->llvm_cpu);
    return gc_diag_set(diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET,
                       "no disassembler for %s in this LLVM (%s)", arch->name, m->llvm_version);
}

/*
 * The context for arch, created if needed. Loads the module on first use; never asks it for a
 * processor its LLVM does not list.
 */
static gpucore_status_t get_context(const struct gc_arch *arch, struct dis_ctx *ret,
                                    gpucore_diag_t *diag)
{
    const struct gc_disasm_module *m;
    const char *cpu;
    gpucore_status_t st;

    GC_TRY(gc_disasm_module_get(&m, diag));
    cpu = cpu_of(m, arch);
    if (!cpu)
        return no_disassembler(arch, m, diag);
    st = m->context(cpu, &ret->ref);
    switch (st) {
    case GPUCORE_OK:
        break;
    case GPUCORE_E_NOMEM:
        return gc_diag_set(diag, st, GC_NO_OFFSET, "no memory for the %s disassembler", arch->name);
    case GPUCORE_E_LIMIT:
        return gc_diag_set(diag, st, GC_NO_OFFSET, "more than 64 disassembler contexts");
    default:
        return gc_diag_set(diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET,
                           "LLVM %s could not create a disassembler for %s (processor %s)",
                           m->llvm_version, arch->name, cpu);
    }
    ret->mod = m;
    ret->rules = family_rules_of(arch);
    return GPUCORE_OK;
}

gpucore_status_t gc_disasm_load(gpucore_diag_t *reterr_diag)
{
    const struct gc_disasm_module *m;

    return gc_disasm_module_get(&m, reterr_diag);
}

void gc_disasm_fini(void)
{
    const struct gc_disasm_module *m = gc_disasm_module_peek();

    if (m)
        m->fini();
}

/* Non-zero if the bytes match a decode hazard of the family (see struct decode_hazard). */
static int decode_hazard(const struct family_rules *fr, const uint8_t *bytes, size_t len)
{
    if (!fr || len < 8)
        return 0;
    uint32_t w0 = le32(bytes), w1 = le32(bytes + 4);
    for (size_t i = 0; i < fr->nhazards; i++) {
        const struct decode_hazard *h = &fr->hazards[i];
        if ((w0 & h->mask) != h->value)
            continue;
        for (uint32_t f = 0; f < h->nfields; f++)
            if (gc_bf_get(w1, h->fields[f]) == h->bad)
                return 1;
        return 0;
    }
    return 0;
}

/*
 * Decode one instruction with LLVM: its size (0: not an instruction) and, if out is non-NULL,
 * its text as LLVM printed it.
 */
static size_t llvm_decode(const struct dis_ctx *c, const uint8_t *bytes, size_t len, uint64_t pc,
                          char *out, size_t out_size)
{
    char scratch[GC_DISASM_TEXT_MAX];

    if (decode_hazard(c->rules, bytes, len))
        return 0;
    if (!out) {
        out = scratch;
        out_size = sizeof(scratch);
    }
    return c->mod->decode(c->ref, bytes, len, pc, out, out_size);
}

/* ------------------------------------------------------------------------------------------ */
/* Disassembly                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Text normalisation (disasm.h, "Text"): drop the leading tab and trailing whitespace. */
static void trim(char *s)
{
    size_t b = 0, e = strlen(s);

    while (s[b] == ' ' || s[b] == '\t')
        b++;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n'))
        e--;
    memmove(s, s + b, e - b);
    s[e - b] = '\0';
}

/*
 * Disassemble one instruction with a known context into text (GC_DISASM_TEXT_MAX bytes).
 * Returns the size, or 0 for "not an instruction"; *ret_overflow is set when the text with its
 * annotation did not fit.
 */
static uint32_t disasm_one(const struct gc_arch *arch, const struct dis_ctx *c,
                           const uint8_t *bytes, size_t len, uint64_t pc,
                           const struct gc_disasm_symbolizer *sym, char text[GC_DISASM_TEXT_MAX],
                           bool *ret_overflow)
{
    /* One byte more than the result may hold, so a text LLVM had to cut shows as too long. */
    char buf[GC_DISASM_TEXT_MAX + 1];
    size_t n, tl;
    struct decoded d;

    *ret_overflow = false;
    buf[0] = '\0';
    n = llvm_decode(c, bytes, len, pc, buf, sizeof(buf));
    if (n == 0 || n > UINT32_MAX)
        return 0;
    trim(buf);
    tl = strlen(buf);
    if (tl >= GC_DISASM_TEXT_MAX) {
        *ret_overflow = true;
        return (uint32_t)n;
    }
    memcpy(text, buf, tl + 1);

    /* Symbolize the direct branch or call target the encoding names. */
    if (sym && sym->lookup && len >= 4 &&
        classify_word(family_rules_of(arch), le32(bytes), pc, &d) &&
        (d.kind == GC_INSN_DIRECT_BRANCH || d.kind == GC_INSN_DIRECT_BRANCH_CONDITIONAL ||
         d.kind == GC_INSN_DIRECT_CALL_REGISTER_PAIR)) {
        const char *name = NULL;
        uint64_t off = 0;
        int k = 0;

        if (sym->lookup(sym->user, d.target, &name, &off) && name && *name) {
            if (off)
                k = snprintf(text + tl, GC_DISASM_TEXT_MAX - tl, " <%s+0x%llx>", name,
                             (unsigned long long)off);
            else
                k = snprintf(text + tl, GC_DISASM_TEXT_MAX - tl, " <%s>", name);
        }
        if (k < 0 || (size_t)k >= GC_DISASM_TEXT_MAX - tl) {
            text[tl] = '\0';
            *ret_overflow = true;
        }
    }
    return (uint32_t)n;
}

gpucore_status_t gc_disasm_insn(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                uint64_t pc, const struct gc_disasm_symbolizer *sym, char *text,
                                size_t text_size, uint32_t *ret_size, gpucore_diag_t *reterr_diag)
{
    char buf[GC_DISASM_TEXT_MAX];
    struct dis_ctx c;
    bool overflow;
    uint32_t n;
    size_t tl;

    GC_FAIL_IF(!arch || !bytes || !text || !ret_size || len == 0 || text_size == 0, reterr_diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "gc_disasm_insn: invalid argument");
    GC_TRY(get_context(arch, &c, reterr_diag));
    n = disasm_one(arch, &c, bytes, len, pc, sym, buf, &overflow);
    GC_FAIL_IF(n == 0, reterr_diag, GPUCORE_E_CORRUPT, 0, "not an instruction (%s) at 0x%llx",
               arch->name, (unsigned long long)pc);
    GC_FAIL_IF(overflow, reterr_diag, GPUCORE_E_LIMIT, 0,
               "instruction text at 0x%llx longer than %d bytes", (unsigned long long)pc,
               GC_DISASM_TEXT_MAX - 1);
    tl = strlen(buf);
    GC_FAIL_IF(tl >= text_size, reterr_diag, GPUCORE_E_LIMIT, 0,
               "instruction text needs %zu bytes, the buffer has %zu", tl + 1, text_size);
    memcpy(text, buf, tl + 1);
    *ret_size = n;
    return GPUCORE_OK;
}

gpucore_status_t gc_disasm_range(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                 uint64_t pc, const struct gc_disasm_symbolizer *sym,
                                 gc_disasm_insn_fn fn, void *user, size_t *ret_count,
                                 gpucore_diag_t *reterr_diag)
{
    struct gc_disasm_insn insn;
    struct dis_ctx c;
    gpucore_status_t st = GPUCORE_OK;
    size_t off = 0, count = 0;

    GC_FAIL_IF(!arch || !bytes || !fn || len == 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_disasm_range: invalid argument");
    GC_TRY(get_context(arch, &c, reterr_diag));
    while (off < len) {
        bool overflow;
        uint32_t n =
                disasm_one(arch, &c, bytes + off, len - off, pc + off, sym, insn.text, &overflow);

        if (n == 0) {
            st = gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, off,
                             "not an instruction (%s) at 0x%llx", arch->name,
                             (unsigned long long)(pc + off));
            break;
        }
        if (overflow) {
            st = gc_diag_set(reterr_diag, GPUCORE_E_LIMIT, off,
                             "instruction text at 0x%llx longer than %d bytes",
                             (unsigned long long)(pc + off), GC_DISASM_TEXT_MAX - 1);
            break;
        }
        insn.pc = pc + off;
        insn.size = n;
        count++;
        off += n;
        if (fn(user, &insn))
            break;
    }
    if (ret_count)
        *ret_count = count;
    return st;
}

struct array_sink {
    struct gc_disasm_insn *insns;
    size_t max, n;
};

static int array_put(void *user, const struct gc_disasm_insn *insn)
{
    struct array_sink *s = user;

    s->insns[s->n++] = *insn;
    return s->n == s->max;
}

gpucore_status_t gc_disasm_range_array(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                       uint64_t pc, const struct gc_disasm_symbolizer *sym,
                                       struct gc_disasm_insn *insns, size_t max, size_t *ret_count,
                                       gpucore_diag_t *reterr_diag)
{
    struct array_sink s = { .insns = insns, .max = max, .n = 0 };

    GC_FAIL_IF(!insns || !ret_count || max == 0, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_disasm_range_array: invalid argument");
    return gc_disasm_range(arch, bytes, len, pc, sym, array_put, &s, ret_count, reterr_diag);
}

/* ------------------------------------------------------------------------------------------ */
/* Classification                                                                              */
/* ------------------------------------------------------------------------------------------ */

gpucore_status_t gc_disasm_classify(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                    uint64_t pc, struct gc_disasm_class *ret_class,
                                    gpucore_diag_t *reterr_diag)
{
    struct decoded d;
    struct dis_ctx c;
    int matched;
    size_t size;

    GC_FAIL_IF(!arch || !bytes || !ret_class || len == 0, reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "gc_disasm_classify: invalid argument");
    GC_FAIL_IF(len < 4, reterr_diag, GPUCORE_E_CORRUPT, 0,
               "not an instruction (%s) at 0x%llx: %zu bytes", arch->name, (unsigned long long)pc,
               len);
    matched = classify_word(family_rules_of(arch), le32(bytes), pc, &d);

    if (gc_disasm_available(arch)) {
        /* LLVM says whether this is an instruction at all, and how long it is. */
        GC_TRY(get_context(arch, &c, reterr_diag));
        size = llvm_decode(&c, bytes, len, pc, NULL, 0);
        GC_FAIL_IF(size == 0 || size > UINT32_MAX, reterr_diag, GPUCORE_E_CORRUPT, 0,
                   "not an instruction (%s) at 0x%llx", arch->name, (unsigned long long)pc);
        if (!matched) {
            memset(&d, 0, sizeof(d));
            d.kind = GC_INSN_SEQUENTIAL;
        }
        d.size = (uint32_t)size;
    } else {
        /* Without LLVM only the table's own instructions have a known size. */
        if (!matched) {
            const struct gc_disasm_module *m;

            GC_TRY(gc_disasm_module_get(&m, reterr_diag)); /* why there is no LLVM at all */
            return no_disassembler(arch, m, reterr_diag);
        }
        GC_FAIL_IF(d.size > len, reterr_diag, GPUCORE_E_CORRUPT, 0,
                   "not an instruction (%s) at 0x%llx: %zu of %u bytes", arch->name,
                   (unsigned long long)pc, len, d.size);
    }

    memset(ret_class, 0, sizeof(*ret_class));
    ret_class->kind = d.kind;
    ret_class->size = d.size;
    ret_class->target = d.target;
    ret_class->trap_code = d.trap_code;
    ret_class->nregs = d.nregs;
    memcpy(ret_class->regs, d.regs, sizeof(d.regs));
    return GPUCORE_OK;
}

uint32_t gc_disasm_largest_insn(const struct gc_arch *arch)
{
    const struct family_rules *fr = arch ? family_rules_of(arch) : NULL;

    return fr ? fr->largest_insn : 0;
}

gpucore_status_t gc_disasm_breakpoint(const struct gc_arch *arch, uint8_t out[4])
{
    const struct family_rules *fr = arch && out ? family_rules_of(arch) : NULL;

    for (size_t i = 0; fr && i < fr->n; i++) {
        if (fr->rules[i].fmt == FMT_SOPP && fr->rules[i].kind == GC_INSN_TRAP) {
            /* SOPP: 1011 1111 1 op7 simm16; simm16 = the breakpoint trap id */
            uint32_t w = 0xbf800000u | (uint32_t)fr->rules[i].op << 16 | GC_TRAP_ID_BREAKPOINT;

            out[0] = (uint8_t)w;
            out[1] = (uint8_t)(w >> 8);
            out[2] = (uint8_t)(w >> 16);
            out[3] = (uint8_t)(w >> 24);
            return GPUCORE_OK;
        }
    }
    return GPUCORE_E_INVAL;
}

int gc_disasm_branch_target(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                            uint64_t pc, uint64_t *ret_target)
{
    const struct family_rules *fr = arch && bytes && ret_target ? family_rules_of(arch) : NULL;
    uint32_t op, w;

    if (!fr || len < 4)
        return 0;
    w = le32(bytes);
    if (scalar_format(w, &op) != FMT_SOPP)
        return 0;
    for (size_t i = 0; i < fr->n; i++) {
        if (fr->rules[i].fmt == FMT_SOPP && fr->rules[i].op == op &&
            fr->rules[i].opnd == OPND_PCREL) {
            *ret_target = pc + 4 + (uint64_t)((int64_t)(int16_t)(w & 0xffffu) * 4);
            return 1;
        }
    }
    return 0;
}
