/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/triage*.c: what the builders share -- failing, building JSON, the image's
 * targets, kernels, symbols and code, the instruction at a PC, stop reasons and exceptions, one
 * wave. All in triage_common.c, with triage.h's opening and document readers; the report is
 * built in triage_report.c, the other views in triage_views.c. No printing.
 */
#ifndef GC_ANALYZE_TRIAGE_INTERNAL_H
#define GC_ANALYZE_TRIAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <gpucore/status.h>

#include "arch.h"
#include "disasm.h"
#include "gc_json.h"
#include "gc_util.h"
#include "image.h"
#include "srcline.h"
#include "triage.h"

/* Bytes disassembled from a symbol's start to reach the PC (past that, from the PC). */
#define GC_TR_DISASM_MAX_BACK (64u << 10)
/*
 * The instruction at a PC inside a symbol is found by decoding from the symbol's start (up to
 * GC_TR_DISASM_MAX_BACK bytes: a PC inside an instruction is caught), which costs about 0.2 us
 * a byte: 13 ms for a PC 64 KiB into its kernel. `analyze waves` asks it of every stopped
 * wave, and a core of a few hundred KiB can stop 64 Ki waves each at its own PC that deep (15
 * minutes). So one open core (a struct gc_triage, every view of it) decodes at most
 * GC_TR_DISASM_WALK_BUDGET bytes from symbols' starts -- 256 walks of the longest, 3 s; a real
 * core's waves stand at a few PCs a few KiB into their kernels -- and remembers the
 * instruction found at up to GC_TR_INSN_CACHE_SLOTS PCs (a hash table, emptied when full;
 * 300 KiB charged to the core's memory budget when first used; without room, none), so the
 * thousands of waves of a hang, at a few PCs, decode each PC once. Past the budget the instruction at such a PC is not disassembled and says
 * why (gc_tr_insn_at()); so are the memory candidates (gc_tr_memory_candidates_json()).
 */
#define GC_TR_DISASM_WALK_BUDGET (16u << 20)
#define GC_TR_INSN_CACHE_SLOTS   256u
/* The text of gc_tr_insn_at(): an instruction, or why there is none (the instruction a PC
   lies inside, named with its symbol). */
#define GC_TR_INSN_TEXT_MAX (GC_DISASM_TEXT_MAX + GC_IMAGE_NAME_MAX + 128)

/* ---- Failing ------------------------------------------------------------------------------ */

/* Fill *reterr (NULL: nothing) and return NULL, so a builder can `return gc_tr_fail(...)`. */
json_t *gc_tr_fail(struct gc_triage_error *reterr, enum gc_triage_blame blame,
                   gpucore_status_t status, const char *fmt, ...) GC_PRINTF(4, 5);
/* The same for a failure a lower layer described in @p diag: blame CORE, diag as it is. */
json_t *gc_tr_fail_diag(struct gc_triage_error *reterr, const gpucore_diag_t *diag);
/* gc_tr_fail(MEMORY, GPUCORE_E_NOMEM, "out of memory"). */
json_t *gc_tr_out_of_memory(struct gc_triage_error *reterr);
/* GPUCORE_OK, or GPUCORE_E_NOTFOUND (blame REQUEST) when req->wave names no wave. */
gpucore_status_t gc_tr_check_wave(const struct gc_triage *t, const struct gc_triage_request *req,
                                  struct gc_triage_error *reterr);

/* ---- Source lines (srcline.h) -------------------------------------------------------------- */

enum gc_tr_lines_state {
    GC_TR_LINES_UNOPENED = 0, /* not tried yet (or out of memory: tried again) */
    GC_TR_LINES_OPEN,         /* h is the DWARF handle */
    GC_TR_LINES_NONE,         /* the code object has no DWARF: no line information */
    GC_TR_LINES_UNUSABLE,     /* no bytes, or bytes libelf cannot read */
};
struct gc_tr_co_lines {
    enum gc_tr_lines_state state;
    struct gc_srcline *h;
    const char *why; /* GC_TR_LINES_UNUSABLE by a limit: why (static), else NULL */
};
/* The per-code-object cache behind struct gc_triage's lines. */
struct gc_tr_lines {
    uint32_t n;                /* code objects of the image */
    struct gc_tr_co_lines *co; /* n entries */
};
/* Code object c's line information, opened on first use: 1 it has DWARF, 0 it has none,
   -1 no bytes, unreadable bytes, or no such code object. */
int gc_tr_co_lines(const struct gc_triage *t, uint32_t c);
/* Set o's "source" ({file, line, column}, null when the PC has no line), "inlined" (the
   chain, innermost first, of {function, file, line, column}: each function at its line, the
   last one the kernel; null when no code object's DWARF covers the PC) and "source_error"
   (why a code object's DWARF was not walked for the PC: its walk budget, or its DWARF refused
   at open; null otherwise). */
void gc_tr_source_json(const struct gc_triage *t, uint64_t pc, json_t *o);

/* ---- Building JSON (a NULL from jansson leaves a member out, as jansson does) --------------- */

/* A view's document: {"schema", "command", "core"[, "host_core"]}; NULL if out of memory. */
json_t *gc_tr_doc_new(const struct gc_triage *t, const char *command);
/* The values themselves: gc_json.h (gc_json_hex, gc_json_uint, gc_json_index, ...). */

/* ---- The image ----------------------------------------------------------------------------- */

/* The target of a queue's agent / of a wave (NULL: unknown target). */
const struct gc_arch *gc_tr_queue_arch(const struct gc_triage *t, uint32_t queue);
const struct gc_arch *gc_tr_wave_arch(const struct gc_triage *t, const struct gc_image_wave *w);
/* A dispatch's kernel name (NULL: unknown, or dispatch UINT32_MAX). */
const char *gc_tr_kernel_of(const struct gc_triage *t, uint32_t dispatch);
/* Sets @p key of @p o to @p name (null for NULL or "") and @p demangled_key beside it to its
   demangled form (demangle.h: "name" or "name+0xoff"), or null when there is none. */
void gc_tr_set_name(json_t *o, const char *key, const char *demangled_key, const char *name);
/* The text a report shows for member @p key of @p o: its @p demangled_key when a string, else
   the member itself, else @p fallback. */
const char *gc_tr_shown_name(const json_t *o, const char *key, const char *demangled_key,
                             const char *fallback);
/* "name+0xoff" (or "name") of pc into buf, and the offset; 1, or 0 with buf "" if no symbol. */
int gc_tr_symbolize(const struct gc_triage *t, uint64_t pc, char *buf, size_t size,
                    uint64_t *ret_offset);
/* The disassembler's symbolizer over the image (branch targets get " <name+0xoff>"). */
struct gc_tr_symbolizer {
    const struct gc_triage *t;
    char name[GC_IMAGE_NAME_MAX];
};
/* gc_disasm_symbol_fn; user is a struct gc_tr_symbolizer. */
int gc_tr_symbol_lookup(void *user, uint64_t addr, const char **ret_name, uint64_t *ret_offset);
/* Charge a decoding of @p bytes from a symbol's start to t's GC_TR_DISASM_WALK_BUDGET: 1 if it
   may be done, 0 when the budget does not hold it (nothing charged). */
int gc_tr_walk_charge(const struct gc_triage *t, uint64_t bytes);
/* Global memory at addr into buf: the readable prefix length (0 if none; the diag says why). */
uint64_t gc_tr_read_code(const struct gc_triage *t, uint64_t addr, uint8_t *buf, uint64_t size,
                         gpucore_diag_t *diag);
/* The instruction at pc as text: 0, or -1 with why in text (not an instruction boundary, code
   not captured, no disassembler, GC_TR_DISASM_WALK_BUDGET spent). Remembered for the PC
   (GC_TR_INSN_CACHE_SLOTS). */
int gc_tr_insn_at(const struct gc_triage *t, const struct gc_arch *arch, uint64_t pc, char *text,
                  size_t size);
/* The address of the instruction a wave stopped at @p pc with @p reasons (GC_STOP_*) is about.
   A trap instruction (s_trap N: stop reasons assert_trap, trap, debug_trap, breakpoint) enters
   the trap handler with the PC of the instruction after it saved, so the instruction is the
   s_trap just before: pc - 4 when the 4 bytes there are in the core and decode as an s_trap of
   @p arch. Every other case, and a PC the trap handler already rewound: @p pc itself. */
uint64_t gc_tr_insn_pc(const struct gc_triage *t, const struct gc_arch *arch, uint64_t pc,
                       uint32_t reasons);

/* ---- Stop reasons and exceptions ------------------------------------------------------------ */

json_t *gc_tr_exceptions_json(uint64_t status); /* names of the bits of an exception word */
json_t *gc_tr_stop_reasons_json(uint32_t mask); /* ["memory_violation", ...] */
uint32_t gc_tr_stop_mask(const json_t *names);  /* the inverse */
int gc_tr_is_fault(uint32_t mask);              /* an error, not a debugger event */
void gc_tr_stop_phrase(uint32_t mask, char *buf, size_t size); /* "a memory violation" */

/* One wave as `waves` lists it and `regs`/`disasm` head their documents with it; with_insn:
   disassemble its PC (else "instruction" and "instruction_error" are null). */
json_t *gc_tr_wave_json(const struct gc_triage *t, const struct gc_image_wave *w, int with_insn);

/* ---- The faulting instruction's candidates (triage_candidates.c) -------------------------- */

/* The memory instructions issued since the last wait that drained the vector memory counters,
   up to and including the one at @p pc, in order ([{pc, symbol, instruction}], at most 16,
   the latest kept): where a memory violation may have come from when the PC is past it
   (precise memory off). JSON null when the code around pc cannot be decoded from a symbol's
   start (or GC_TR_DISASM_WALK_BUDGET does not hold it); NULL if out of memory. */
json_t *gc_tr_memory_candidates_json(const struct gc_triage *t, const struct gc_arch *arch,
                                     uint64_t pc);

/* ---- The crash signature (triage_signature.c) ----------------------------------------------- */

/* {"text", "hash", "kind"} of the report's leading group (its sorted "faults", else the largest
   group of "agents"), or JSON null when there is no group; NULL if out of memory. */
json_t *gc_tr_signature_json(const struct gc_triage *t, const json_t *faults,
                             const json_t *agents);

/* ---- Kernel arguments (triage_args.c) ------------------------------------------------------ */

/* What the report needs to decode arguments: the allocation map and each code object's
   argument metadata, parsed once. NULL if out of memory; free with gc_tr_args_free(). */
struct gc_tr_args;
struct gc_tr_args *gc_tr_args_new(const struct gc_triage *t);
void gc_tr_args_free(struct gc_tr_args *a); /* accepts NULL */
/* Set "arguments" (an array of {name, hidden, type, offset, size, value_kind, address_space,
   value, value_error, allocation, relation}, or null without metadata) and "arguments_error"
   (null, or the sentences of what is missing or inconsistent, joined by "; ") on @p o. */
void gc_tr_args_json(struct gc_tr_args *a, const struct gc_image_dispatch *dp, json_t *o);
/* The fault address @p v related to the allocation map (inside, past the end of, before;
   the null page; a host mapping) and to the explicit pointer arguments of @p dispatch_json (a
   report dispatch with "arguments", or NULL; hidden ones, the runtime's queue, printf or heap
   memory, are never named: the kernel's own indexing derives from its explicit arguments): {text, null_page, inside, past_end_of, before,
   argument, argument_offset}. @p a may be NULL (then nothing is related but the null page). */
json_t *gc_tr_fault_relation_json(const struct gc_tr_args *a, const struct gc_triage *t,
                                  uint64_t v, const json_t *dispatch_json);

/* ---- Device printf (triage_printf.c) ---------------------------------------------------------- */

/* Set "printf" on the dispatch JSON @p o: null when @p address (the kernel's
   hidden_printf_buffer) is 0; else the buffer at @p address, of at most @p room bytes (to the
   end of its allocation; UINT64_MAX when unknown), read from the core and decoded with the
   code object's amdhsa.printf formats @p formats (devprintf.h; NULL: @p formats_error says why
   there are none, a problem of the buffer): {"address", "used", "size", "held", "truncated",
   "records": [{"offset", "id", "format", "args", "text", "text_error"}], "problem"}
   (triage.h). */
struct gc_dp_formats;
void gc_tr_printf_json(const struct gc_triage *t, const struct gc_dp_formats *formats,
                       const char *formats_error, uint64_t address, uint64_t room, json_t *o);

#endif /* GC_ANALYZE_TRIAGE_INTERNAL_H */
