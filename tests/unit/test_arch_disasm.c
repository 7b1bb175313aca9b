/* SPDX-License-Identifier: MIT */
/*
 * test_arch_disasm: the disassembler wrapper and instruction classification (arch/disasm.h).
 *
 * The instruction bytes below were produced by assembling the instruction in the comment with
 *   llvm-mc-16 -triple=amdgcn-amd-amdhsa -mcpu=<target> -show-encoding
 * for gfx90a and gfx940 (gfx9), gfx1030 (gfx10) and gfx1100 (gfx11). LLVM 16 has no gfx12, so
 * the gfx12 bytes are composed from the opcode numbers in LLVM's SOPInstructions.td (SOPP
 * 0xbf800000 | op << 16 | simm16, SOP1 0xbe800000 | sdst << 16 | op << 8 | ssrc0, SOPK
 * 0xb0000000 | op << 23 | sdst << 16 | simm16); llvm-mc-19 -mcpu=gfx1201 --disassemble gives
 * those instructions back. The tests hold with LLVM 16 (no gfx941/gfx942/gfx12 processor) and
 * LLVM 19 (every target its own processor), each checking what its LLVM has.
 *
 * Every instruction text compared against llvm-objdump lives in test_arch_disasm_objdump.c.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/status.h>

#include "arch.h"
#include "disasm.h"

#if !defined(GC_TEST_LLVM_MAJOR) || !defined(GC_TEST_LLVM_ALL_TARGETS_MAJOR)
#error "GC_TEST_LLVM_MAJOR and GC_TEST_LLVM_ALL_TARGETS_MAJOR (tests/arch_disasm.cmake) must be defined"
#endif
#ifndef GC_TEST_LLVM_VERSION
#error "GC_TEST_LLVM_VERSION (LLVM_PACKAGE_VERSION from CMake) must be defined"
#endif

#define PC 0x1000u

struct cls_case {
    const char *src; /* the instruction the bytes encode */
    uint8_t bytes[8];
    size_t len;
    gpucore_status_t status;
    uint32_t kind;
    uint32_t size;
    int64_t target_off; /* target - PC when the kind has a target */
    uint64_t trap_code;
    uint32_t nregs;
    uint32_t regs[4];
};

/* One case per line reads better than one field per line. */
/* clang-format off */
#define B4(a, b, c, d) { a, b, c, d }, 4
#define OK GPUCORE_OK

/* gfx9: the same bytes on gfx90a and gfx940. */
static const struct cls_case gfx9_cases[] = {
    { "s_branch 5", B4(0x05, 0x00, 0x82, 0xbf), OK, GC_INSN_DIRECT_BRANCH, 4, 24, 0, 0, { 0 } },
    { "s_cbranch_scc0 -2", B4(0xfe, 0xff, 0x84, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      -4, 0, 0, { 0 } },
    { "s_cbranch_scc1 3", B4(0x03, 0x00, 0x85, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      16, 0, 0, { 0 } },
    { "s_cbranch_vccz 4", B4(0x04, 0x00, 0x86, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      20, 0, 0, { 0 } },
    { "s_cbranch_vccnz 5", B4(0x05, 0x00, 0x87, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      24, 0, 0, { 0 } },
    { "s_cbranch_execz 6", B4(0x06, 0x00, 0x88, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      28, 0, 0, { 0 } },
    { "s_cbranch_execnz 7", B4(0x07, 0x00, 0x89, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL,
      4, 32, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys 8", B4(0x08, 0x00, 0x97, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 36, 0, 0, { 0 } },
    { "s_cbranch_cdbguser 9", B4(0x09, 0x00, 0x98, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 40, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys_or_user 10", B4(0x0a, 0x00, 0x99, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 44, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys_and_user 11", B4(0x0b, 0x00, 0x9a, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 48, 0, 0, { 0 } },
    { "s_setpc_b64 s[4:5]", B4(0x04, 0x1d, 0x80, 0xbe), OK,
      GC_INSN_INDIRECT_BRANCH_REGISTER_PAIR, 4, 0, 0, 2, { 4, 5 } },
    { "s_swappc_b64 s[30:31], s[4:5]", B4(0x04, 0x1e, 0x9e, 0xbe), OK,
      GC_INSN_INDIRECT_CALL_REGISTER_PAIRS, 4, 0, 0, 4, { 4, 5, 30, 31 } },
    { "s_call_b64 s[30:31], 12", B4(0x0c, 0x00, 0x9e, 0xba), OK,
      GC_INSN_DIRECT_CALL_REGISTER_PAIR, 4, 52, 0, 2, { 30, 31 } },
    { "s_trap 2", B4(0x02, 0x00, 0x92, 0xbf), OK, GC_INSN_TRAP, 4, 0, 2, 0, { 0 } },
    { "s_endpgm", B4(0x00, 0x00, 0x81, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_endpgm_saved", B4(0x00, 0x00, 0x9b, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_barrier", B4(0x00, 0x00, 0x8a, 0xbf), OK, GC_INSN_BARRIER, 4, 0, 0, 0, { 0 } },
    { "s_sleep 1", B4(0x01, 0x00, 0x8e, 0xbf), OK, GC_INSN_SLEEP, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 1", B4(0x01, 0x00, 0x8d, 0xbf), OK, GC_INSN_HALT, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 0", B4(0x00, 0x00, 0x8d, 0xbf), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0, { 0 } },
    { "s_icache_inv", B4(0x00, 0x00, 0x93, 0xbf), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0, { 0 } },
    { "s_getpc_b64 s[4:5]", B4(0x00, 0x1c, 0x84, 0xbe), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0,
      { 0 } },
    { "v_add_f32_e32 v1, v2, v3", B4(0x02, 0x07, 0x02, 0x02), OK, GC_INSN_SEQUENTIAL, 4, 0, 0,
      0, { 0 } },
    { "s_mov_b32 s0, 0x12345678", { 0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12 }, 8, OK,
      GC_INSN_SEQUENTIAL, 8, 0, 0, 0, { 0 } },
    { "s_cbranch_i_fork s[4:5], 3", B4(0x03, 0x00, 0x04, 0xb8), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 16, 0, 0, { 0 } },
    { "s_cbranch_g_fork s[4:5], s[6:7]", B4(0x04, 0x06, 0x80, 0x94), OK,
      GC_INSN_INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR, 4, 0, 0, 2, { 6, 7 } },
    { "s_cbranch_join s4", B4(0x04, 0x2e, 0x80, 0xbe), OK, GC_INSN_SPECIAL, 4, 0, 0, 0, { 0 } },
    /* SOPP opcode 0x7e exists on no target: not an instruction. */
    { "(invalid SOPP 0x7e)", B4(0x00, 0x00, 0xfe, 0xbf), GPUCORE_E_CORRUPT, 0, 0, 0, 0, 0,
      { 0 } },
    /* The first 4 bytes of an 8-byte instruction. */
    { "s_mov_b32 s0, 0x12345678 (cut)", B4(0xff, 0x00, 0x80, 0xbe), GPUCORE_E_CORRUPT, 0, 0, 0,
      0, 0, { 0 } },
};

static const struct cls_case gfx10_cases[] = {
    { "s_branch 5", B4(0x05, 0x00, 0x82, 0xbf), OK, GC_INSN_DIRECT_BRANCH, 4, 24, 0, 0, { 0 } },
    { "s_cbranch_scc0 -2", B4(0xfe, 0xff, 0x84, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      -4, 0, 0, { 0 } },
    { "s_cbranch_scc1 3", B4(0x03, 0x00, 0x85, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      16, 0, 0, { 0 } },
    { "s_cbranch_vccz 4", B4(0x04, 0x00, 0x86, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      20, 0, 0, { 0 } },
    { "s_cbranch_vccnz 5", B4(0x05, 0x00, 0x87, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      24, 0, 0, { 0 } },
    { "s_cbranch_execz 6", B4(0x06, 0x00, 0x88, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      28, 0, 0, { 0 } },
    { "s_cbranch_execnz 7", B4(0x07, 0x00, 0x89, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL,
      4, 32, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys 8", B4(0x08, 0x00, 0x97, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 36, 0, 0, { 0 } },
    { "s_cbranch_cdbguser 9", B4(0x09, 0x00, 0x98, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 40, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys_or_user 10", B4(0x0a, 0x00, 0x99, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 44, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys_and_user 11", B4(0x0b, 0x00, 0x9a, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 48, 0, 0, { 0 } },
    { "s_setpc_b64 s[4:5]", B4(0x04, 0x20, 0x80, 0xbe), OK,
      GC_INSN_INDIRECT_BRANCH_REGISTER_PAIR, 4, 0, 0, 2, { 4, 5 } },
    { "s_swappc_b64 s[30:31], s[4:5]", B4(0x04, 0x21, 0x9e, 0xbe), OK,
      GC_INSN_INDIRECT_CALL_REGISTER_PAIRS, 4, 0, 0, 4, { 4, 5, 30, 31 } },
    { "s_call_b64 s[30:31], 12", B4(0x0c, 0x00, 0x1e, 0xbb), OK,
      GC_INSN_DIRECT_CALL_REGISTER_PAIR, 4, 52, 0, 2, { 30, 31 } },
    { "s_trap 2", B4(0x02, 0x00, 0x92, 0xbf), OK, GC_INSN_TRAP, 4, 0, 2, 0, { 0 } },
    { "s_endpgm", B4(0x00, 0x00, 0x81, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_endpgm_saved", B4(0x00, 0x00, 0x9b, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_barrier", B4(0x00, 0x00, 0x8a, 0xbf), OK, GC_INSN_BARRIER, 4, 0, 0, 0, { 0 } },
    { "s_sleep 1", B4(0x01, 0x00, 0x8e, 0xbf), OK, GC_INSN_SLEEP, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 1", B4(0x01, 0x00, 0x8d, 0xbf), OK, GC_INSN_HALT, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 0", B4(0x00, 0x00, 0x8d, 0xbf), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0, { 0 } },
    { "s_icache_inv", B4(0x00, 0x00, 0x93, 0xbf), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0, { 0 } },
    { "v_add_f32_e32 v1, v2, v3", B4(0x02, 0x07, 0x02, 0x06), OK, GC_INSN_SEQUENTIAL, 4, 0, 0,
      0, { 0 } },
    { "s_mov_b32 s0, 0x12345678", { 0xff, 0x03, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12 }, 8, OK,
      GC_INSN_SEQUENTIAL, 8, 0, 0, 0, { 0 } },
    { "s_code_end", B4(0x00, 0x00, 0x9f, 0xbf), OK, GC_INSN_UNKNOWN, 4, 0, 0, 0, { 0 } },
    { "s_subvector_loop_begin s4, 5", B4(0x05, 0x00, 0x84, 0xbd), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 24, 0, 0, { 0 } },
    { "s_subvector_loop_end s4, 5", B4(0x05, 0x00, 0x04, 0xbe), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 24, 0, 0, { 0 } },
    { "(invalid SOPP 0x7e)", B4(0x00, 0x00, 0xfe, 0xbf), GPUCORE_E_CORRUPT, 0, 0, 0, 0, 0,
      { 0 } },
};

static const struct cls_case gfx11_cases[] = {
    { "s_branch 5", B4(0x05, 0x00, 0xa0, 0xbf), OK, GC_INSN_DIRECT_BRANCH, 4, 24, 0, 0, { 0 } },
    { "s_cbranch_scc0 -2", B4(0xfe, 0xff, 0xa1, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      -4, 0, 0, { 0 } },
    { "s_cbranch_scc1 3", B4(0x03, 0x00, 0xa2, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      16, 0, 0, { 0 } },
    { "s_cbranch_vccz 4", B4(0x04, 0x00, 0xa3, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      20, 0, 0, { 0 } },
    { "s_cbranch_vccnz 5", B4(0x05, 0x00, 0xa4, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      24, 0, 0, { 0 } },
    { "s_cbranch_execz 6", B4(0x06, 0x00, 0xa5, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      28, 0, 0, { 0 } },
    { "s_cbranch_execnz 7", B4(0x07, 0x00, 0xa6, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL,
      4, 32, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys 8", B4(0x08, 0x00, 0xa7, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 36, 0, 0, { 0 } },
    { "s_cbranch_cdbguser 9", B4(0x09, 0x00, 0xa8, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 40, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys_or_user 10", B4(0x0a, 0x00, 0xa9, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 44, 0, 0, { 0 } },
    { "s_cbranch_cdbgsys_and_user 11", B4(0x0b, 0x00, 0xaa, 0xbf), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 48, 0, 0, { 0 } },
    { "s_setpc_b64 s[4:5]", B4(0x04, 0x48, 0x80, 0xbe), OK,
      GC_INSN_INDIRECT_BRANCH_REGISTER_PAIR, 4, 0, 0, 2, { 4, 5 } },
    { "s_swappc_b64 s[30:31], s[4:5]", B4(0x04, 0x49, 0x9e, 0xbe), OK,
      GC_INSN_INDIRECT_CALL_REGISTER_PAIRS, 4, 0, 0, 4, { 4, 5, 30, 31 } },
    { "s_call_b64 s[30:31], 12", B4(0x0c, 0x00, 0x1e, 0xba), OK,
      GC_INSN_DIRECT_CALL_REGISTER_PAIR, 4, 52, 0, 2, { 30, 31 } },
    { "s_trap 2", B4(0x02, 0x00, 0x90, 0xbf), OK, GC_INSN_TRAP, 4, 0, 2, 0, { 0 } },
    { "s_endpgm", B4(0x00, 0x00, 0xb0, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_endpgm_saved", B4(0x00, 0x00, 0xb1, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_barrier", B4(0x00, 0x00, 0xbd, 0xbf), OK, GC_INSN_BARRIER, 4, 0, 0, 0, { 0 } },
    { "s_sleep 1", B4(0x01, 0x00, 0x83, 0xbf), OK, GC_INSN_SLEEP, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 1", B4(0x01, 0x00, 0x82, 0xbf), OK, GC_INSN_HALT, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 0", B4(0x00, 0x00, 0x82, 0xbf), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0, { 0 } },
    { "s_icache_inv", B4(0x00, 0x00, 0xbc, 0xbf), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0, { 0 } },
    { "v_add_f32_e32 v1, v2, v3", B4(0x02, 0x07, 0x02, 0x06), OK, GC_INSN_SEQUENTIAL, 4, 0, 0,
      0, { 0 } },
    { "s_mov_b32 s0, 0x12345678", { 0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12 }, 8, OK,
      GC_INSN_SEQUENTIAL, 8, 0, 0, 0, { 0 } },
    { "s_code_end", B4(0x00, 0x00, 0x9f, 0xbf), OK, GC_INSN_UNKNOWN, 4, 0, 0, 0, { 0 } },
    { "s_subvector_loop_begin s4, 5", B4(0x05, 0x00, 0x04, 0xbb), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 24, 0, 0, { 0 } },
    { "s_subvector_loop_end s4, 5", B4(0x05, 0x00, 0x84, 0xbb), OK,
      GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4, 24, 0, 0, { 0 } },
    { "(invalid SOPP 0x7e)", B4(0x00, 0x00, 0xfe, 0xbf), GPUCORE_E_CORRUPT, 0, 0, 0, 0, 0,
      { 0 } },
};

/* gfx12's table instructions, sizes from the format (with or without LLVM's gfx12 decoder). */
static const struct cls_case gfx12_cases[] = {
    { "s_branch 5", B4(0x05, 0x00, 0xa0, 0xbf), OK, GC_INSN_DIRECT_BRANCH, 4, 24, 0, 0, { 0 } },
    { "s_cbranch_scc0 -2", B4(0xfe, 0xff, 0xa1, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      -4, 0, 0, { 0 } },
    { "s_cbranch_scc1 3", B4(0x03, 0x00, 0xa2, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      16, 0, 0, { 0 } },
    { "s_cbranch_vccz 4", B4(0x04, 0x00, 0xa3, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      20, 0, 0, { 0 } },
    { "s_cbranch_vccnz 5", B4(0x05, 0x00, 0xa4, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      24, 0, 0, { 0 } },
    { "s_cbranch_execz 6", B4(0x06, 0x00, 0xa5, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL, 4,
      28, 0, 0, { 0 } },
    { "s_cbranch_execnz 7", B4(0x07, 0x00, 0xa6, 0xbf), OK, GC_INSN_DIRECT_BRANCH_CONDITIONAL,
      4, 32, 0, 0, { 0 } },
    { "s_setpc_b64 s[4:5]", B4(0x04, 0x48, 0x80, 0xbe), OK,
      GC_INSN_INDIRECT_BRANCH_REGISTER_PAIR, 4, 0, 0, 2, { 4, 5 } },
    { "s_swappc_b64 s[30:31], s[4:5]", B4(0x04, 0x49, 0x9e, 0xbe), OK,
      GC_INSN_INDIRECT_CALL_REGISTER_PAIRS, 4, 0, 0, 4, { 4, 5, 30, 31 } },
    { "s_call_b64 s[30:31], 12", B4(0x0c, 0x00, 0x1e, 0xba), OK,
      GC_INSN_DIRECT_CALL_REGISTER_PAIR, 4, 52, 0, 2, { 30, 31 } },
    { "s_trap 2", B4(0x02, 0x00, 0x90, 0xbf), OK, GC_INSN_TRAP, 4, 0, 2, 0, { 0 } },
    { "s_endpgm", B4(0x00, 0x00, 0xb0, 0xbf), OK, GC_INSN_TERMINATE, 4, 0, 0, 0, { 0 } },
    { "s_barrier_signal -1", B4(0xc1, 0x4e, 0x80, 0xbe), OK, GC_INSN_SPECIAL, 4, 0, 0, 0,
      { 0 } },
    { "s_barrier_wait -1", B4(0xff, 0xff, 0x94, 0xbf), OK, GC_INSN_BARRIER, 4, 0, 0, 0, { 0 } },
    { "s_sleep 1", B4(0x01, 0x00, 0x83, 0xbf), OK, GC_INSN_SLEEP, 4, 0, 0, 0, { 0 } },
    { "s_sethalt 1", B4(0x01, 0x00, 0x82, 0xbf), OK, GC_INSN_HALT, 4, 0, 0, 0, { 0 } },
    { "s_code_end", B4(0x00, 0x00, 0x9f, 0xbf), OK, GC_INSN_UNKNOWN, 4, 0, 0, 0, { 0 } },
    { "s_sleep_var with a literal, cut", B4(0xff, 0x58, 0x80, 0xbe), GPUCORE_E_CORRUPT, 0, 0, 0,
      0, 0, { 0 } },
};

/* Not in the table, without a gfx12 processor in LLVM (16): the size is unknown. */
static const struct cls_case gfx12_nollvm_cases[] = {
    { "v_add_f32_e32 v1, v2, v3", B4(0x02, 0x07, 0x02, 0x06), GPUCORE_E_NOTSUP, 0, 0, 0, 0, 0,
      { 0 } },
    { "(gfx11 s_cbranch_cdbgsys 8)", B4(0x08, 0x00, 0xa7, 0xbf), GPUCORE_E_NOTSUP, 0, 0, 0, 0, 0,
      { 0 } },
};

/* The same with LLVM's gfx12 decoder (19): a valid instruction is sequential, of LLVM's size;
   gfx12 has no cdbg branches, so gfx11's is no instruction. */
static const struct cls_case gfx12_llvm_cases[] = {
    { "v_add_f32_e32 v1, v2, v3", B4(0x02, 0x07, 0x02, 0x06), OK, GC_INSN_SEQUENTIAL, 4, 0, 0, 0,
      { 0 } },
    { "(gfx11 s_cbranch_cdbgsys 8)", B4(0x08, 0x00, 0xa7, 0xbf), GPUCORE_E_CORRUPT, 0, 0, 0, 0, 0,
      { 0 } },
};

/* clang-format on */

#undef B4
#undef OK

static void check_cases(const char *target, const struct cls_case *cases, size_t n)
{
    const struct gc_arch *a = gc_arch_by_name(target);

    assert_non_null(a);
    for (size_t i = 0; i < n; i++) {
        const struct cls_case *c = &cases[i];
        struct gc_disasm_class k;
        gpucore_diag_t diag = { 0 };
        gpucore_status_t st;

        memset(&k, 0xa5, sizeof(k));
        st = gc_disasm_classify(a, c->bytes, c->len, PC, &k, &diag);
        print_message("  %s %-34s -> %s kind %u\n", target, c->src, gpucore_status_name(st),
                      st == GPUCORE_OK ? k.kind : 0u);
        assert_int_equal(st, c->status);
        if (st != GPUCORE_OK) {
            assert_int_equal(diag.status, st);
            continue;
        }
        assert_int_equal(k.kind, c->kind);
        assert_int_equal(k.size, c->size);
        assert_int_equal(k.target, c->target_off ? (uint64_t)((int64_t)PC + c->target_off) : 0);
        assert_int_equal(k.trap_code, c->trap_code);
        assert_int_equal(k.nregs, c->nregs);
        for (uint32_t r = 0; r < c->nregs; r++)
            assert_int_equal(k.regs[r], c->regs[r]);
    }
}

static void test_classify_gfx90a(void **state)
{
    (void)state;
    check_cases("gfx90a", gfx9_cases, sizeof(gfx9_cases) / sizeof(gfx9_cases[0]));
}

static void test_classify_gfx940(void **state)
{
    (void)state;
    check_cases("gfx940", gfx9_cases, sizeof(gfx9_cases) / sizeof(gfx9_cases[0]));
    check_cases("gfx942", gfx9_cases, sizeof(gfx9_cases) / sizeof(gfx9_cases[0]));
}

static void test_classify_gfx1030(void **state)
{
    (void)state;
    check_cases("gfx1030", gfx10_cases, sizeof(gfx10_cases) / sizeof(gfx10_cases[0]));
}

static void test_classify_gfx1100(void **state)
{
    (void)state;
    check_cases("gfx1100", gfx11_cases, sizeof(gfx11_cases) / sizeof(gfx11_cases[0]));
}

static void test_classify_gfx1201(void **state)
{
    (void)state;
    check_cases("gfx1200", gfx12_cases, sizeof(gfx12_cases) / sizeof(gfx12_cases[0]));
    check_cases("gfx1201", gfx12_cases, sizeof(gfx12_cases) / sizeof(gfx12_cases[0]));
    if (gc_disasm_available(gc_arch_by_name("gfx1201")))
        check_cases("gfx1201", gfx12_llvm_cases,
                    sizeof(gfx12_llvm_cases) / sizeof(gfx12_llvm_cases[0]));
    else
        check_cases("gfx1201", gfx12_nollvm_cases,
                    sizeof(gfx12_nollvm_cases) / sizeof(gfx12_nollvm_cases[0]));
}

/* A register-pair instruction with an odd register is no pair: UNKNOWN, as in ROCdbgapi. */
static void test_classify_odd_pair(void **state)
{
    /* The table's operand check decides, with or without LLVM's gfx12 decoder. */
    static const uint8_t setpc_s5[] = { 0x05, 0x48, 0x80, 0xbe }; /* s_setpc_b64 ssrc0 = 5 */
    static const uint8_t setpc_m0[] = { 0x7c, 0x48, 0x80, 0xbe }; /* ssrc0 = 124 */
    const struct gc_arch *a = gc_arch_by_name("gfx1201");
    struct gc_disasm_class k;

    (void)state;
    assert_int_equal(gc_disasm_classify(a, setpc_s5, 4, PC, &k, NULL), GPUCORE_OK);
    assert_int_equal(k.kind, GC_INSN_UNKNOWN);
    assert_int_equal(k.nregs, 0);
    assert_int_equal(gc_disasm_classify(a, setpc_m0, 4, PC, &k, NULL), GPUCORE_OK);
    assert_int_equal(k.kind, GC_INSN_UNKNOWN);
}

/* ------------------------------------------------------------------------------------------ */

static void expect_text(const char *target, const uint8_t *bytes, size_t len, uint64_t pc,
                        const struct gc_disasm_symbolizer *sym, const char *want,
                        uint32_t want_size)
{
    const struct gc_arch *a = gc_arch_by_name(target);
    char text[GC_DISASM_TEXT_MAX];
    uint32_t size = 0;
    gpucore_diag_t diag = { 0 };
    gpucore_status_t st;

    assert_non_null(a);
    st = gc_disasm_insn(a, bytes, len, pc, sym, text, sizeof(text), &size, &diag);
    if (st != GPUCORE_OK)
        print_message("  %s: %s\n", target, diag.message);
    assert_int_equal(st, GPUCORE_OK);
    assert_string_equal(text, want);
    assert_int_equal(size, want_size);
}

static void test_text_basic(void **state)
{
    static const uint8_t v_add9[] = { 0x02, 0x07, 0x02, 0x02 };
    static const uint8_t v_add10[] = { 0x02, 0x07, 0x02, 0x06 };
    static const uint8_t s_mov[] = { 0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12 };
    static const uint8_t s_endpgm11[] = { 0x00, 0x00, 0xb0, 0xbf };

    (void)state;
    expect_text("gfx90a", v_add9, sizeof(v_add9), PC, NULL, "v_add_f32_e32 v1, v2, v3", 4);
    expect_text("gfx90a", s_mov, sizeof(s_mov), PC, NULL, "s_mov_b32 s0, 0x12345678", 8);
    expect_text("gfx1030", v_add10, sizeof(v_add10), PC, NULL, "v_add_f32_e32 v1, v2, v3", 4);
    expect_text("gfx1100", s_endpgm11, sizeof(s_endpgm11), PC, NULL, "s_endpgm", 4);
    /* More bytes than the instruction: only the first instruction is read. */
    expect_text("gfx90a", s_mov, 4 + 4, PC, NULL, "s_mov_b32 s0, 0x12345678", 8);
}

/*
 * SDWA with a reserved select value (7) crashes LLVM 16's decoder; gpucore rejects those bytes
 * itself (disasm.c, decode hazards). Valid selects still decode, and VOPC's bits 10:8 (SDST on
 * gfx10, not a select) are not mistaken for dst_sel.
 */
static void test_sdwa_reserved_select(void **state)
{
    /* dword0, dword1 as little-endian bytes */
    static const uint8_t vop2_ok[] = { 0xf9, 0x00, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00 };
    static const uint8_t vop2_dst7[] = { 0xf9, 0x00, 0x02, 0x03, 0x04, 0x07, 0x00, 0x00 };
    static const uint8_t vop2_src0_7[] = { 0xf9, 0x00, 0x02, 0x03, 0x04, 0x00, 0x07, 0x00 };
    static const uint8_t vop2_src1_7[] = { 0xf9, 0x00, 0x02, 0x03, 0x04, 0x00, 0x00, 0x07 };
    static const uint8_t vop1_dst7[] = { 0xf9, 0x02, 0x00, 0x7e, 0x04, 0x07, 0x00, 0x00 };
    static const uint8_t vopc_sdst7[] = { 0xf9, 0x02, 0x00, 0x7c, 0x04, 0x07, 0x00, 0x00 };
    static const uint8_t vopc_src0_7[] = { 0xf9, 0x02, 0x00, 0x7c, 0x04, 0x00, 0x07, 0x00 };
    static const struct {
        const char *target;
        const uint8_t *bytes;
        int valid;
    } cases[] = {
        { "gfx900", vop2_ok, 1 },      { "gfx900", vop2_dst7, 0 },   { "gfx90a", vop2_src0_7, 0 },
        { "gfx90a", vop2_src1_7, 0 },  { "gfx1030", vop1_dst7, 0 },  { "gfx1030", vopc_sdst7, 1 },
        { "gfx1030", vopc_src0_7, 0 }, { "gfx1030", vop2_src1_7, 0 },
    };
    char text[GC_DISASM_TEXT_MAX];
    uint32_t size;
    gpucore_diag_t d;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct gc_arch *arch = gc_arch_by_name(cases[i].target);
        assert_non_null(arch);
        gpucore_status_t st = gc_disasm_insn(arch, cases[i].bytes, 8, PC, NULL, text,
                                             sizeof(text), &size, &d);
        if (cases[i].valid) {
            assert_int_equal(st, GPUCORE_OK);
            assert_int_equal(size, 8);
            assert_non_null(strstr(text, "_sdwa"));
        } else {
            assert_int_equal(st, GPUCORE_E_CORRUPT);
        }
    }
}

/* gfx942: its own processor from LLVM 19 on, else its row's stand-in gfx940 (arch_tables.c);
   the same text either way. */
static void test_gfx942_as_gfx940(void **state)
{
    /* gfx940-only syntax: v_mov_b64 and the sc0/sc1 cache bits. */
    static const uint8_t v_mov_b64[] = { 0x02, 0x71, 0x00, 0x7e };
    static const uint8_t gload[] = { 0x00, 0x80, 0x51, 0xde, 0x02, 0x00, 0x7f, 0x01 };

    (void)state;
    assert_true(gc_disasm_available(gc_arch_by_name("gfx942")));
    expect_text("gfx940", v_mov_b64, 4, PC, NULL, "v_mov_b64_e32 v[0:1], v[2:3]", 4);
    expect_text("gfx942", v_mov_b64, 4, PC, NULL, "v_mov_b64_e32 v[0:1], v[2:3]", 4);
    expect_text("gfx942", gload, 8, PC, NULL, "global_load_dword v1, v[2:3], off sc0 sc1", 8);
}

/* gfx12 text, where the LLVM has gfx12 (19): its own encodings, not gfx11's. */
static void test_gfx12_text(void **state)
{
    static const uint8_t s_endpgm12[] = { 0x00, 0x00, 0xb0, 0xbf };
    static const uint8_t s_barrier_wait[] = { 0xff, 0xff, 0x94, 0xbf };
    static const uint8_t s_trap2[] = { 0x02, 0x00, 0x90, 0xbf };

    (void)state;
    if (GC_TEST_LLVM_MAJOR < GC_TEST_LLVM_ALL_TARGETS_MAJOR) {
        print_message("  SKIPPED: LLVM " GC_TEST_LLVM_VERSION " has no gfx12 processor\n");
        skip();
    }
    for (const char *t = "gfx1200"; t; t = strcmp(t, "gfx1200") == 0 ? "gfx1201" : NULL) {
        assert_true(gc_disasm_available(gc_arch_by_name(t)));
        expect_text(t, s_endpgm12, 4, PC, NULL, "s_endpgm", 4);
        expect_text(t, s_barrier_wait, 4, PC, NULL, "s_barrier_wait 0xffff", 4);
        expect_text(t, s_trap2, 4, PC, NULL, "s_trap 2", 4);
    }
}

/* A target the LLVM has no processor for: every text function says so, and touches nothing.
   With LLVM 16 that is gfx1201 itself; from LLVM 19 on every real row has a processor, so the
   path is checked on a copy of gfx1201's row under a name no LLVM knows. */
static void check_notsup(const struct gc_arch *a)
{
    static const uint8_t s_endpgm12[] = { 0x00, 0x00, 0xb0, 0xbf };
    char text[GC_DISASM_TEXT_MAX] = "untouched";
    struct gc_disasm_insn insns[2];
    uint32_t size = 77;
    size_t count = 77;
    gpucore_diag_t diag = { 0 };
    char want[GPUCORE_DIAG_MESSAGE_SIZE];

    assert_false(gc_disasm_available(a));
    assert_int_equal(gc_disasm_insn(a, s_endpgm12, 4, PC, NULL, text, sizeof(text), &size, &diag),
                     GPUCORE_E_NOTSUP);
    assert_int_equal(diag.status, GPUCORE_E_NOTSUP);
    snprintf(want, sizeof(want), "no disassembler for %s in this LLVM (" GC_TEST_LLVM_VERSION ")",
             a->name);
    assert_string_equal(diag.message, want);
    assert_string_equal(text, "untouched");
    assert_int_equal(size, 77);
    assert_int_equal(gc_disasm_range_array(a, s_endpgm12, 4, PC, NULL, insns, 2, &count, NULL),
                     GPUCORE_E_NOTSUP);
    assert_int_equal(count, 77);
}

static void test_notsup_gfx1201(void **state)
{
    const struct gc_arch *a = gc_arch_by_name("gfx1201");
    struct gc_arch unknown;

    (void)state;
    assert_non_null(a);
    assert_string_equal(gc_disasm_llvm_version(), GC_TEST_LLVM_VERSION);
    if (GC_TEST_LLVM_MAJOR < GC_TEST_LLVM_ALL_TARGETS_MAJOR)
        check_notsup(a);
    else
        assert_true(gc_disasm_available(a));
    unknown = *a;
    unknown.name = "gfx1299";
    unknown.llvm_cpu = NULL;
    check_notsup(&unknown);
}

/* Every row of the target table: a disassembler that works, or a clean NOTSUP. */
static void test_every_target(void **state)
{
    static const uint8_t s_nop[] = { 0x00, 0x00, 0x80, 0xbf }; /* s_nop 0 on every family */
    size_t with = 0, without = 0;

    (void)state;
    for (const struct gc_arch *a = gc_arch_table; a->name; a++) {
        char text[GC_DISASM_TEXT_MAX];
        uint32_t size;
        gpucore_diag_t diag = { 0 };
        gpucore_status_t st =
                gc_disasm_insn(a, s_nop, 4, PC, NULL, text, sizeof(text), &size, &diag);

        print_message("  %-8s llvm_cpu %-8s %s\n", a->name, a->llvm_cpu ? a->llvm_cpu : "-",
                      st == GPUCORE_OK ? text : diag.message);
        if (gc_disasm_available(a)) {
            assert_int_equal(st, GPUCORE_OK);
            assert_string_equal(text, "s_nop 0");
            assert_int_equal(size, 4);
            with++;
        } else {
            char want[GPUCORE_DIAG_MESSAGE_SIZE];

            assert_int_equal(st, GPUCORE_E_NOTSUP);
            snprintf(want, sizeof(want), "no disassembler for %s in this LLVM (%s)", a->name,
                     GC_TEST_LLVM_VERSION);
            assert_memory_equal(diag.message, want, strlen(want));
            without++;
        }
    }
    assert_true(with > 0);
    print_message("  %zu targets with a disassembler, %zu without\n", with, without);
    /* From LLVM 19 on, all 18 targets, each as its own processor (test_arch_disasm_objdump). */
    if (GC_TEST_LLVM_MAJOR >= GC_TEST_LLVM_ALL_TARGETS_MAJOR)
        assert_int_equal(without, 0);
}

/* The breakpoint instruction of every family decodes, through LLVM, as `s_trap 1`, and the
   largest instruction size is the one AMD's library answers (8, 20, 20, 24). */
static void test_breakpoint(void **state)
{
    uint8_t bkpt[4];

    (void)state;
    for (const struct gc_arch *a = gc_arch_table; a->name; a++) {
        char text[GC_DISASM_TEXT_MAX];
        uint32_t size;
        gpucore_diag_t diag = { 0 };

        assert_int_equal(gc_disasm_breakpoint(a, bkpt), GPUCORE_OK);
        /* AMD's LARGEST_INSTRUCTION_SIZE: 8, 20, 20, 24 */
        assert_int_equal(gc_disasm_largest_insn(a), a->family == GC_FAMILY_GFX9    ? 8
                                                    : a->family == GC_FAMILY_GFX12 ? 24
                                                                                   : 20);
        if (!gc_disasm_available(a))
            continue;
        assert_int_equal(gc_disasm_insn(a, bkpt, 4, PC, NULL, text, sizeof(text), &size, &diag),
                         GPUCORE_OK);
        assert_string_equal(text, "s_trap 1"); /* AMD's breakpoint */
        assert_int_equal(size, 4);
    }
    assert_int_equal(gc_disasm_breakpoint(NULL, bkpt), GPUCORE_E_INVAL);
    assert_int_equal(gc_disasm_largest_insn(NULL), 0);
}

static void test_errors(void **state)
{
    static const uint8_t bad[] = { 0x00, 0x00, 0xfe, 0xbf };
    static const uint8_t s_mov[] = { 0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12 };
    const struct gc_arch *a = gc_arch_by_name("gfx90a");
    char text[GC_DISASM_TEXT_MAX] = "untouched", tiny[8] = "tiny";
    uint32_t size = 77;
    gpucore_diag_t diag = { 0 };
    struct gc_disasm_class k;

    (void)state;
    assert_int_equal(gc_disasm_insn(NULL, bad, 4, PC, NULL, text, sizeof(text), &size, &diag),
                     GPUCORE_E_INVAL);
    assert_int_equal(gc_disasm_insn(a, NULL, 4, PC, NULL, text, sizeof(text), &size, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gc_disasm_insn(a, bad, 0, PC, NULL, text, sizeof(text), &size, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gc_disasm_insn(a, bad, 4, PC, NULL, text, 0, &size, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_disasm_classify(a, bad, 4, PC, NULL, NULL), GPUCORE_E_INVAL);

    assert_int_equal(gc_disasm_insn(a, bad, 4, PC, NULL, text, sizeof(text), &size, &diag),
                     GPUCORE_E_CORRUPT);
    assert_non_null(strstr(diag.message, "not an instruction"));
    assert_string_equal(text, "untouched");
    assert_int_equal(size, 77);
    /* The bytes end inside the instruction. */
    assert_int_equal(gc_disasm_insn(a, s_mov, 4, PC, NULL, text, sizeof(text), &size, &diag),
                     GPUCORE_E_CORRUPT);
    assert_int_equal(gc_disasm_classify(a, s_mov, 3, PC, &k, &diag), GPUCORE_E_CORRUPT);
    /* The text does not fit: an error, never a cut text. */
    assert_int_equal(gc_disasm_insn(a, s_mov, 8, PC, NULL, tiny, sizeof(tiny), &size, &diag),
                     GPUCORE_E_LIMIT);
    assert_string_equal(tiny, "tiny");
}

/* ------------------------------------------------------------------------------------------ */
/* Symbolization                                                                               */
/* ------------------------------------------------------------------------------------------ */

struct test_sym {
    const char *name;
    uint64_t addr, size;
};

static const struct test_sym test_syms[] = {
    { "k_main", 0x1000, 0x40 },
    { "helper", 0x1040, 0x40 },
};

static int lookup(void *user, uint64_t addr, const char **ret_name, uint64_t *ret_offset)
{
    int *calls = user;

    (*calls)++;
    for (size_t i = 0; i < sizeof(test_syms) / sizeof(test_syms[0]); i++) {
        if (addr >= test_syms[i].addr && addr - test_syms[i].addr < test_syms[i].size) {
            *ret_name = test_syms[i].name;
            *ret_offset = addr - test_syms[i].addr;
            return 1;
        }
    }
    return 0;
}

static void test_symbolize(void **state)
{
    static const uint8_t s_branch5[] = { 0x05, 0x00, 0x82, 0xbf };  /* s_branch 5 */
    static const uint8_t s_scc0_m2[] = { 0xfe, 0xff, 0x84, 0xbf };  /* s_cbranch_scc0 -2 */
    static const uint8_t s_call12[] = { 0x0c, 0x00, 0x9e, 0xba };   /* s_call_b64 s[30:31], 12 */
    static const uint8_t s_execz_11[] = { 0x07, 0x00, 0xa5, 0xbf }; /* gfx11 s_cbranch_execz 7 */
    static const uint8_t s_setpc[] = { 0x04, 0x1d, 0x80, 0xbe };    /* s_setpc_b64 s[4:5] */
    int calls = 0;
    struct gc_disasm_symbolizer sym = { .lookup = lookup, .user = &calls };

    (void)state;
    /* 0x1000 + 4 + 5 * 4 = 0x1018 */
    expect_text("gfx90a", s_branch5, 4, 0x1000, &sym, "s_branch 5 <k_main+0x18>", 4);
    /* 0x1020 + 4 + 7 * 4 = 0x1040, the first byte of helper: no offset */
    expect_text("gfx1100", s_execz_11, 4, 0x1020, &sym, "s_cbranch_execz 7 <helper>", 4);
    /* Backwards: 0x1044 + 4 - 8 = 0x1040 */
    expect_text("gfx90a", s_scc0_m2, 4, 0x1044, &sym, "s_cbranch_scc0 65534 <helper>", 4);
    /* No symbol at 0x0ffc: no annotation */
    expect_text("gfx90a", s_scc0_m2, 4, 0x1000, &sym, "s_cbranch_scc0 65534", 4);
    /* A call: 0x1010 + 4 + 48 = 0x1044 */
    expect_text("gfx90a", s_call12, 4, 0x1010, &sym, "s_call_b64 s[30:31], 12 <helper+0x4>", 4);
    /* Indirect: no target to look up */
    calls = 0;
    expect_text("gfx90a", s_setpc, 4, 0x1000, &sym, "s_setpc_b64 s[4:5]", 4);
    assert_int_equal(calls, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Ranges                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* A gfx90a sequence (llvm-mc-16 -mcpu=gfx90a): 32 bytes, 7 instructions. */
static const uint8_t seq90a[] = {
    0x02, 0x07, 0x02, 0x02,                         /* v_add_f32_e32 v1, v2, v3 */
    0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12, /* s_mov_b32 s0, 0x12345678 */
    0x01, 0x00, 0x82, 0xbf,                         /* s_branch 1 */
    0x00, 0x00, 0x8a, 0xbf,                         /* s_barrier */
    0x02, 0x00, 0x92, 0xbf,                         /* s_trap 2 */
    0x00, 0x00, 0x81, 0xbf,                         /* s_endpgm */
    0x00, 0x00, 0x80, 0xbf,                         /* s_nop 0 */
};

static const char *const seq90a_text[] = {
    "v_add_f32_e32 v1, v2, v3",
    "s_mov_b32 s0, 0x12345678",
    "s_branch 1",
    "s_barrier",
    "s_trap 2",
    "s_endpgm",
    "s_nop 0",
};

static int count_stop_at_3(void *user, const struct gc_disasm_insn *insn)
{
    size_t *n = user;

    (void)insn;
    return ++*n == 3;
}

static void test_range(void **state)
{
    const struct gc_arch *a = gc_arch_by_name("gfx90a");
    struct gc_disasm_insn insns[16];
    size_t count = 0, seen = 0;
    uint8_t broken[sizeof(seq90a)];
    gpucore_diag_t diag = { 0 };

    (void)state;
    assert_int_equal(
            gc_disasm_range_array(a, seq90a, sizeof(seq90a), 0x2000, NULL, insns, 16, &count, NULL),
            GPUCORE_OK);
    assert_int_equal(count, 7);
    for (size_t i = 0; i < count; i++)
        assert_string_equal(insns[i].text, seq90a_text[i]);
    assert_int_equal(insns[1].pc, 0x2004);
    assert_int_equal(insns[1].size, 8);
    assert_int_equal(insns[2].pc, 0x200c);

    /* A full array stops the range, successfully. */
    assert_int_equal(
            gc_disasm_range_array(a, seq90a, sizeof(seq90a), 0x2000, NULL, insns, 2, &count, NULL),
            GPUCORE_OK);
    assert_int_equal(count, 2);

    /* So does the callback. */
    assert_int_equal(gc_disasm_range(a, seq90a, sizeof(seq90a), 0x2000, NULL, count_stop_at_3,
                                     &seen, &count, NULL),
                     GPUCORE_OK);
    assert_int_equal(count, 3);

    /* Bad bytes at offset 16: three instructions, then E_CORRUPT at that offset. */
    memcpy(broken, seq90a, sizeof(broken));
    broken[18] = 0xfe; /* s_barrier -> SOPP 0x7e */
    assert_int_equal(gc_disasm_range_array(a, broken, sizeof(broken), 0x2000, NULL, insns, 16,
                                           &count, &diag),
                     GPUCORE_E_CORRUPT);
    assert_int_equal(count, 3);
    assert_true(diag.flags & GPUCORE_DIAG_HAS_OFFSET);
    assert_int_equal(diag.offset, 16);

    /* The range ends inside the literal of s_mov_b32. */
    assert_int_equal(gc_disasm_range_array(a, seq90a, 8, 0x2000, NULL, insns, 16, &count, &diag),
                     GPUCORE_E_CORRUPT);
    assert_int_equal(count, 1);
    assert_int_equal(diag.offset, 4);
}

/* Contexts are disposed and created again. */
static void test_fini_and_again(void **state)
{
    (void)state;
    gc_disasm_fini();
    gc_disasm_fini();
    expect_text("gfx90a", seq90a, 4, PC, NULL, "v_add_f32_e32 v1, v2, v3", 4);
    gc_disasm_fini();
    expect_text("gfx90a", seq90a, 4, PC, NULL, "v_add_f32_e32 v1, v2, v3", 4);
}

/* ------------------------------------------------------------------------------------------ */
/* Threads                                                                                     */
/* ------------------------------------------------------------------------------------------ */

#define THREADS 4
#define ROUNDS  300

struct thread_arg {
    const struct gc_arch *arch;
    int failures;
};

static void *disasm_thread(void *p)
{
    struct thread_arg *t = p;

    for (int r = 0; r < ROUNDS; r++) {
        struct gc_disasm_insn insns[16];
        struct gc_disasm_class k;
        size_t count = 0;

        if (gc_disasm_range_array(t->arch, seq90a, sizeof(seq90a), 0x2000, NULL, insns, 16, &count,
                                  NULL) != GPUCORE_OK ||
            count != 7) {
            t->failures++;
            continue;
        }
        for (size_t i = 0; i < count; i++)
            t->failures += strcmp(insns[i].text, seq90a_text[i]) != 0;
        if (gc_disasm_classify(t->arch, seq90a + 12, 4, 0x200c, &k, NULL) != GPUCORE_OK ||
            k.kind != GC_INSN_DIRECT_BRANCH || k.target != 0x2014)
            t->failures++;
    }
    return NULL;
}

static void test_threads(void **state)
{
    pthread_t th[THREADS];
    struct thread_arg args[THREADS];

    (void)state;
    /* Start from no context, so the threads also race to create it. */
    gc_disasm_fini();
    for (int i = 0; i < THREADS; i++) {
        args[i].arch = gc_arch_by_name("gfx90a");
        args[i].failures = 0;
        assert_int_equal(pthread_create(&th[i], NULL, disasm_thread, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(args[i].failures, 0);
    }
}

static int teardown_group(void **state)
{
    (void)state;
    gc_disasm_fini(); /* so LeakSanitizer sees no LLVM context */
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_gfx90a),
        cmocka_unit_test(test_classify_gfx940),
        cmocka_unit_test(test_classify_gfx1030),
        cmocka_unit_test(test_classify_gfx1100),
        cmocka_unit_test(test_classify_gfx1201),
        cmocka_unit_test(test_classify_odd_pair),
        cmocka_unit_test(test_text_basic),
        cmocka_unit_test(test_sdwa_reserved_select),
        cmocka_unit_test(test_gfx942_as_gfx940),
        cmocka_unit_test(test_gfx12_text),
        cmocka_unit_test(test_notsup_gfx1201),
        cmocka_unit_test(test_every_target),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_breakpoint),
        cmocka_unit_test(test_symbolize),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_fini_and_again),
        cmocka_unit_test(test_threads),
    };

    return cmocka_run_group_tests_name("arch: disassembler", tests, NULL, teardown_group);
}
