/* SPDX-License-Identifier: MIT */
/*
 * The AMD GPU disassembler (LLVM's MC C API) and instruction classification for the
 * amd-dbgapi API.
 *
 * Internal to gpucore (not installed). Nothing outside arch/ includes llvm-c/ (G-ARCH-4); this
 * header does not either. No printing: LLVM is never allowed to write to stderr on our behalf
 * (see "Which targets have a disassembler" below).
 *
 * Where LLVM comes from
 * ---------------------
 * The calls into LLVM live in a module of their own (disasm_module.h): linked into the fuzz
 * targets, and opened by the `gpucore` program and the amd-dbgapi library on the first call
 * that disassembles, so that a capture, or a debugger that only reads registers, never maps
 * libLLVM. The only
 * file I/O of arch/ is that one open of gpucore-disasm.so, from a path the build fixed. When
 * the module cannot be loaded every text function returns GPUCORE_E_NOTSUP with the detail
 * "disassembler not available: <why>" ("cannot open /usr/lib/x86_64-linux-gnu/gpucore/
 * gpucore-disasm.so: No such file or directory"), and classification works as for a target
 * without a disassembler; nothing else of gpucore depends on it.
 *
 * Text
 * ----
 * The text of an instruction is exactly what LLVM's AMDGPU instruction printer produces, with
 * the leading tab removed and trailing whitespace removed; nothing inside is rewritten (the
 * mnemonic, one space, operands separated by ", ", modifiers as LLVM spells them). It is the
 * same text `llvm-objdump -d` of the same LLVM prints before its `//` comment; the tests compare
 * every instruction of real kernels against it. LLVM 16 prints a branch offset as the raw
 * 16-bit field ("s_cbranch_execz 65515"), as llvm-objdump does.
 *
 * Branch targets are symbolized by gpucore, not by LLVM: LLVM's AMDGPU symbolizer ignores the
 * SymbolLookUp callback of LLVMCreateDisasmCPU and treats the DisInfo pointer as a C++
 * std::vector of its own (undefined behaviour for any C caller), so gpucore passes neither and
 * computes the target from the encoding instead (target = pc + 4 + simm16 * 4 for SOPP branches,
 * s_call_b64 and the loop/fork forms; the classification tables below say which instructions
 * have one). With a symbolizer, a direct branch or call whose target the symbolizer knows gets
 * " <name+0xoff>" appended (" <name>" at offset 0), the form llvm-objdump prints in its comment.
 * Targets the symbolizer does not know get nothing appended.
 *
 * Which targets have a disassembler
 * ---------------------------------
 * A target (struct gc_arch) has one when the module's LLVM knows the target's own name (used
 * first, so a newer LLVM disassembles gfx942 and gfx12 natively) or its llvm_cpu stand-in
 * (gfx940 for gfx941/gfx942 on LLVM 16). For an unknown processor LLVM 16's LLVMCreateDisasmCPU prints "'gfxNNNN' is not a
 * recognized processor for this target" to stderr and then aborts the process ("LLVM ERROR:
 * Disassembly not yet supported for subtarget"): there is no asking it and recovering. So the
 * processor is checked first, against the list the same LLVM installation's `llc -mcpu=help`
 * printed at configure time (arch/disasm.cmake), and LLVM is only asked for processors it has
 * listed. Probing by disassembling a known encoding cannot work for the same reason. Without a
 * disassembler every text function returns GPUCORE_E_NOTSUP with the detail
 * "no disassembler for gfx1201 in this LLVM (16.0.6)".
 *
 * Classification
 * --------------
 * gc_disasm_classify() decides from the encoding, through one table of SOPP/SOPK/SOP1/SOP2
 * opcodes per family (gfx9, gfx10, gfx11, gfx12 number them differently), with ROCdbgapi's
 * rules (see disasm.c for the sources of every opcode and rule). The instruction size comes from
 * LLVM when the target has a disassembler (which also rejects bytes that are not an
 * instruction). Without one, the control-flow instructions of the table are still classified
 * (their size follows from the format), and anything else is GPUCORE_E_NOTSUP.
 *
 * Thread safety
 * -------------
 * Every function may be called from any thread at any time, except gc_disasm_fini(). The
 * module is loaded once, under a lock; LLVM's target is initialised once (pthread_once); one LLVM context per processor is created on first
 * use and kept; a mutex per context serialises its use, since LLVMDisasmInstruction is not
 * reentrant on one context. Threads disassembling for different processors do not wait for each
 * other.
 */
#ifndef GC_DISASM_H
#define GC_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "arch.h"

/* ------------------------------------------------------------------------------------------ */
/* Instruction kinds                                                                           */
/* ------------------------------------------------------------------------------------------ */

/*
 * The values of amd_dbgapi_instruction_kind_t (ROCdbgapi include/amd-dbgapi.h.in, the numbering
 * in force since amd_dbgapi_classify_instruction took its 0.58 form, which 0.77 exports), so the
 * dbgapi shim passes them through unchanged. Newer headers add
 * RELATIVE_BRANCH_REGISTER_PAIR = 14 for instructions no target in gc_arch_table has.
 */
enum gc_insn_kind {
    GC_INSN_UNKNOWN = 0,                       /* no information */
    GC_INSN_SEQUENTIAL = 1,                    /* no control flow: the next instruction follows */
    GC_INSN_DIRECT_BRANCH = 2,                 /* target */
    GC_INSN_DIRECT_BRANCH_CONDITIONAL = 3,     /* target if taken */
    GC_INSN_INDIRECT_BRANCH_REGISTER_PAIR = 4, /* regs[0..1]: the target */
    /* regs[0..1]: the target if taken */
    GC_INSN_INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR = 5,
    GC_INSN_DIRECT_CALL_REGISTER_PAIR = 6,    /* target; regs[0..1]: the return address */
    GC_INSN_INDIRECT_CALL_REGISTER_PAIRS = 7, /* regs[0..1]: target; [2..3]: return address */
    GC_INSN_TERMINATE = 8,                    /* ends the wave */
    GC_INSN_TRAP = 9,                         /* enters the trap handler; trap_code */
    GC_INSN_HALT = 10,                        /* halts the wave */
    GC_INSN_BARRIER = 11,                     /* may wait for other waves */
    GC_INSN_SLEEP = 12,                       /* waits some time, then continues */
    GC_INSN_SPECIAL = 13,                     /* anything else that is not safely sequential */
};

/* Result of gc_disasm_classify(). */
struct gc_disasm_class {
    uint32_t kind;      /* enum gc_insn_kind (a fixed-width copy of its value) */
    uint32_t size;      /* bytes of the instruction */
    uint64_t target;    /* absolute target address: DIRECT_BRANCH, DIRECT_BRANCH_CONDITIONAL,
                           DIRECT_CALL_REGISTER_PAIR; 0 otherwise */
    uint64_t trap_code; /* TRAP: bits 7:0 of the immediate (2 = assert trap, 7 = breakpoint) */
    uint32_t nregs;     /* valid entries of regs: 0, 2 or 4 */
    /*
     * Registers of the register-pair kinds, as scalar operand codes of the encoding (the SSRC0,
     * SSRC1 and SDST field values): 0..105 are s0..s105, 106/107 vcc_lo/hi, 108..123
     * ttmp0..ttmp15, 126/127 exec_lo/hi. Index 0 (and 2) holds the low 32 bits, index 1 (and 3)
     * the high 32 bits, as amd-dbgapi orders its register ids.
     */
    uint32_t regs[4];
};

/* ------------------------------------------------------------------------------------------ */
/* Symbolization and results                                                                   */
/* ------------------------------------------------------------------------------------------ */

/*
 * Symbol lookup for branch and call targets: return 1 and set *ret_name and *ret_offset when
 * addr lies in a symbol (addr = symbol address + *ret_offset), 0 when it does not. *ret_name is
 * borrowed: it must stay valid until the callback returns to gpucore, which copies it at once.
 * Called with no gpucore lock held, never concurrently for one gc_disasm_* call.
 */
typedef int (*gc_disasm_symbol_fn)(void *user, uint64_t addr, const char **ret_name,
                                   uint64_t *ret_offset);

struct gc_disasm_symbolizer {
    gc_disasm_symbol_fn lookup;
    void *user;
};

/* Room for any instruction's text with a symbol annotation, including the NUL. */
#define GC_DISASM_TEXT_MAX 320

/* One instruction of a range. */
struct gc_disasm_insn {
    uint64_t pc;
    uint32_t size;
    char text[GC_DISASM_TEXT_MAX];
};

/* Range callback: return 0 to go on, anything else to stop (the range call then succeeds). */
typedef int (*gc_disasm_insn_fn)(void *user, const struct gc_disasm_insn *insn);

/* ------------------------------------------------------------------------------------------ */
/* Functions                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/*
 * Disassemble the instruction at the start of bytes[0..len), which is at address pc.
 *
 * @param arch        target row (gc_arch_by_*); borrowed.
 * @param bytes,len   the instruction bytes; len may exceed the instruction (pass what is
 *                    available: only the instruction's own bytes are read).
 * @param pc          the instruction's address (for branch targets).
 * @param sym         optional symbolizer (NULL: no annotation).
 * @param text        receives the NUL-terminated text (see "Text" above).
 * @param text_size   size of text; GC_DISASM_TEXT_MAX always suffices.
 * @param ret_size    receives the instruction's size in bytes (> 0).
 * @param reterr_diag optional failure detail.
 * @return GPUCORE_OK;
 *         GPUCORE_E_INVAL: arch, bytes, text or ret_size NULL, len or text_size 0;
 *         GPUCORE_E_NOTSUP: the target has no disassembler ("no disassembler for gfx1201 in this
 *         LLVM (16.0.6)"), or LLVM refused to create one;
 *         GPUCORE_E_CORRUPT: the bytes are not an instruction of the target, or end before it
 *         does ("not an instruction", diag offset 0);
 *         GPUCORE_E_LIMIT: the text does not fit in text_size (or more than 64 distinct LLVM
 *         processors were asked for, which gc_arch_table cannot do);
 *         GPUCORE_E_NOMEM: no memory for the target's disassembler context.
 *         text and *ret_size are untouched on every error.
 */
gpucore_status_t gc_disasm_insn(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                uint64_t pc, const struct gc_disasm_symbolizer *sym, char *text,
                                size_t text_size, uint32_t *ret_size, gpucore_diag_t *reterr_diag);

/*
 * Disassemble bytes[0..len), at address pc, instruction after instruction, calling fn for each.
 * The struct passed to fn is gpucore's, valid during the call only.
 *
 * @param ret_count   optional: instructions passed to fn. Written on success, on
 *                    GPUCORE_E_CORRUPT (the instructions before the bad bytes) and on
 *                    GPUCORE_E_LIMIT; untouched on the other errors.
 * @return GPUCORE_OK when the range is consumed or fn asked to stop;
 *         GPUCORE_E_INVAL: arch, bytes or fn NULL, len 0;
 *         GPUCORE_E_NOTSUP, GPUCORE_E_NOMEM: as gc_disasm_insn (nothing was passed to fn);
 *         GPUCORE_E_CORRUPT: bytes at diag offset (from bytes) are not an instruction, or the
 *         last instruction runs past len;
 *         GPUCORE_E_LIMIT: an instruction's text does not fit GC_DISASM_TEXT_MAX (not seen with
 *         any LLVM so far; never truncated text).
 */
gpucore_status_t gc_disasm_range(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                 uint64_t pc, const struct gc_disasm_symbolizer *sym,
                                 gc_disasm_insn_fn fn, void *user, size_t *ret_count,
                                 gpucore_diag_t *reterr_diag);

/*
 * gc_disasm_range() into a caller-provided array: fills insns[0..max) and stops when the array
 * is full (success; continue at insns[max - 1].pc + insns[max - 1].size).
 *
 * @param ret_count  required: entries filled; written as for gc_disasm_range().
 * @return as gc_disasm_range(); GPUCORE_E_INVAL also for insns or ret_count NULL or max 0.
 */
gpucore_status_t gc_disasm_range_array(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                       uint64_t pc, const struct gc_disasm_symbolizer *sym,
                                       struct gc_disasm_insn *insns, size_t max, size_t *ret_count,
                                       gpucore_diag_t *reterr_diag);

/*
 * Classify the instruction at the start of bytes[0..len), at address pc, for
 * amd_dbgapi_classify_instruction.
 *
 * @param ret_class   receives the kind, size, target, trap code and registers.
 * @return GPUCORE_OK;
 *         GPUCORE_E_INVAL: arch, bytes or ret_class NULL, len 0;
 *         GPUCORE_E_CORRUPT: not an instruction (LLVM decodes nothing, or the bytes end before
 *         the instruction does);
 *         GPUCORE_E_NOTSUP: the target has no disassembler and the bytes are not one of its
 *         control-flow instructions, so their size is unknown;
 *         GPUCORE_E_NOMEM, GPUCORE_E_LIMIT (contexts): as gc_disasm_insn.
 *         *ret_class is untouched on every error.
 */
gpucore_status_t gc_disasm_classify(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                                    uint64_t pc, struct gc_disasm_class *ret_class,
                                    gpucore_diag_t *reterr_diag);

/* The trap id of the breakpoint instruction amd-dbgapi 0.77 answers (s_trap 1: AMD's library's
   trap_id_t::breakpoint; older AMDGPUUsage text reserved 7 for debugger breakpoints, but the
   library is what a debugger writes into memory, so it decides). */
#define GC_TRAP_ID_BREAKPOINT 1u

/* Bytes of the family's longest instruction (amd-dbgapi's LARGEST_INSTRUCTION_SIZE, as AMD's
   library answers it): 8 on gfx9, 20 on gfx10 and gfx11, 24 on gfx12. 0 for NULL or a family
   without rules. */
uint32_t gc_disasm_largest_insn(const struct gc_arch *arch);

/*
 * The address operand of the instruction at the start of bytes[0..len), at address pc, as
 * LLVM's AMDGPU instruction analysis evaluates it for a branch (what AMD's library appends to
 * the instruction's text): only SOPP branches -- s_branch and the s_cbranch_* forms -- whose
 * first operand is the PC-relative offset; target = pc + 4 + simm16 * 4. s_call_b64,
 * s_cbranch_i_fork and the subvector loops have a register or count first: none.
 * @return 1 and *ret_target set, or 0 (no such operand, NULL or short input). No LLVM needed.
 */
int gc_disasm_branch_target(const struct gc_arch *arch, const uint8_t *bytes, size_t len,
                            uint64_t pc, uint64_t *ret_target);

/*
 * The family's breakpoint instruction, `s_trap 7`, into @p out (4 bytes, little-endian).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL, or a family without an s_trap rule).
 */
gpucore_status_t gc_disasm_breakpoint(const struct gc_arch *arch, uint8_t out[4]);

/*
 * Whether the target has a disassembler in the LLVM of the disassembler module (1) or not (0),
 * 0 also when the module cannot be loaded. Never fails and never creates a context, but loads
 * the module on first use.
 */
int gc_disasm_available(const struct gc_arch *arch);

/* The LLVM version gpucore was built against, "16.0.6". Static string; loads nothing. */
const char *gc_disasm_llvm_version(void);

/*
 * Load the disassembler module now, if it is not yet (it is otherwise loaded by the first call
 * that needs it). @return GPUCORE_OK, or GPUCORE_E_NOTSUP "disassembler not available: <why>"
 * (the module is missing, refused or disabled: gpucore's installation, not the input, is at
 * fault). Targets the module's LLVM lacks are not checked here.
 */
gpucore_status_t gc_disasm_load(gpucore_diag_t *reterr_diag);

/*
 * Never load the disassembler module in this process from now on: every text function then
 * returns GPUCORE_E_NOTSUP "disassembler not available: <reason>". For a process that must
 * stay lean, e.g. `gpucore capture` computing the crash signature of the core it wrote, which
 * needs no instruction text. No effect once the module is loaded (or linked in and used).
 */
void gc_disasm_disable(const char *reason);

/*
 * Dispose of every LLVM disassembler context. The caller guarantees that no other thread is in
 * a gc_disasm_* function. Later calls create contexts again. For leak checkers and library
 * teardown; never required.
 */
void gc_disasm_fini(void);

#endif /* GC_DISASM_H */
