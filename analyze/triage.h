/* SPDX-License-Identifier: MIT */
/*
 * The triage report behind `gpucore analyze`: what happened in a core, as JSON documents.
 *
 * Each view -- the report, waves, regs, disasm, mem -- is one JSON document (the model) built
 * from the process image (image.h). `gpucore analyze` prints the document (--json) or renders
 * it as text from the document alone (cli/analyze_render.c), so the two outputs never disagree.
 *
 * Document conventions (schema GC_TRIAGE_SCHEMA): every document starts with "schema",
 * "command", "core" (and "host_core" for a split dump); addresses, masks and register values
 * are strings "0x..." (they may not fit a signed 64-bit JSON integer); counts and indices are
 * integers; absent data is null.
 *
 * Source lines (from each code object's DWARF, srcline.h): every report group, wave and
 * disassembled instruction has "source" ({"file", "line", "column"}, null when the PC has no
 * line) and "inlined" (the inline chain, innermost first: [{"function", "file", "line",
 * "column"}], each function at its own line, the call site for those it inlined, the last the
 * kernel; null when no code object's DWARF covers the PC); a missing column or line is null;
 * "source_error" says why there is no chain when a limit kept the DWARF from being walked
 * ("DWARF walk budget exhausted", srcline.h), else null.
 * The report's code objects have "line_info" (true, false: no DWARF, null: no bytes or DWARF
 * refused) and "line_info_text" ("no line information in code object N (URI)" when false,
 * "line information of code object N (URI) not used: WHY" when refused, else null).
 *
 * Failures: a builder that cannot answer returns NULL and says why in a struct gc_triage_error:
 * a status and a one-line message (gpucore_diag_t), and its blame -- what the failure is about,
 * which decides how the program reports it. Each builder lists its failures below with the
 * exit code `gpucore analyze` gives them (cli/cmd_analyze.c; sysexits: 64 usage, 65 data,
 * 70 software, 74 I/O):
 *
 *   GC_TRIAGE_BLAME_CORE     "gpucore: CORE: message" (with the diag's offset, if any); the
 *                            exit code of the status for an input file (cli_exit_for())
 *   GC_TRIAGE_BLAME_REQUEST  "gpucore: CORE: message"; 64
 *   GC_TRIAGE_BLAME_USAGE    "gpucore analyze: message (see `gpucore analyze --help`)"; 64
 *   GC_TRIAGE_BLAME_MEMORY   "gpucore: out of memory"; 70
 *   GC_TRIAGE_BLAME_SETUP    "gpucore: message"; 69
 *
 * Internal to gpucore (the `gpucore` program uses it); not installed. Nothing here prints or
 * exits. A struct gc_triage is not for concurrent use.
 */
#ifndef GC_ANALYZE_TRIAGE_H
#define GC_ANALYZE_TRIAGE_H

#include <stdint.h>

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

#include "gc_json.h"
#include "triage_keys.h" /* the members read back: GC_TK_* */

#define GC_TRIAGE_SCHEMA "gpucore.analyze/1"

/* Bounds on what one request may ask for (the command line checks them). */
#define GC_TRIAGE_MEM_MAX_SIZE           (1u << 20) /* bytes one `mem` reads */
#define GC_TRIAGE_MEM_DEFAULT_SIZE       64u
#define GC_TRIAGE_DISASM_MAX_CONTEXT     256 /* instructions before/after the PC */
#define GC_TRIAGE_DISASM_DEFAULT_CONTEXT 8
#define GC_TRIAGE_REG_FILTER_MAX         32

/*
 * What the report lists per queue; the rest is counted (the queue's "dispatches_omitted" and
 * "groups_omitted"). A ring may hold a million active dispatches, and a queue's waves may
 * stand at as many PCs: listing them all made a report of gigabytes from a core of kilobytes.
 * The dispatches listed are the queue's first in packet order (the oldest, those running)
 * and every dispatch a listed group of waves runs; the groups listed are the first in report
 * order (faulting groups first, most waves first) and the queue's largest group. A real queue
 * runs a few dispatches at a time, and its waves stand at a few PCs.
 */
#define GC_TRIAGE_QUEUE_DISPATCHES 32u
#define GC_TRIAGE_QUEUE_GROUPS     64u
/*
 * What the report's records cost, charged to the core's memory budget as they are built
 * (gpucore_core_mem_reserve(), as gpucore info charges GC_INFO_JSON_RECORD_COST): a listed
 * dispatch, each of its arguments, and a group are JSON objects of ten to twenty members with
 * their strings (about 1 KiB); a wave's index in a group's "waves" is one JSON integer and its
 * slot. A report that does not fit fails with GPUCORE_E_LIMIT (blame CORE, exit 65) and the
 * budget's message, never takes gigabytes.
 */
#define GC_TRIAGE_JSON_RECORD_COST 1024u
#define GC_TRIAGE_JSON_INDEX_COST  64u

struct gc_image;

/* An open core, as the builders read it. */
struct gc_triage {
    const char *path;      /* the core file, as the documents and messages name it */
    const char *host_path; /* the host core of a split dump (--host), or NULL */
    gpucore_core_t *core;  /* open on path; borrowed, open as long as the triage is used */
    gpucore_core_t *host;  /* open on host_path, or NULL; borrowed likewise */
    struct gc_image *img;  /* the process image: gc_triage_open() builds it, owned */
    const char *code_object_dir; /* --code-object-path: where file:// code objects may be
                                    looked up (gc_image_options), or NULL: never opened */
    const char *sysroot;   /* --sysroot: where the host threads' ELF files may be looked up
                              (host_stack.h), or NULL: never opened */
    struct gc_tr_lines *lines; /* gc_triage_open(): each code object's DWARF, opened on first
                                  use (srcline.h); owned, freed by gc_triage_close() */
    struct gc_tr_code *code;   /* gc_triage_open(): the instructions found at PCs and the code
                                  decoded to find them (triage_internal.h); owned, freed by
                                  gc_triage_close() */
};

/*
 * Build the process image of t->core (with t->host, a split dump's host core, when not NULL)
 * into t->img; the caller fills the other fields first. Free it with gc_triage_close().
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTFOUND  neither core has an AMDGPU note: no GPU state to analyze
 * @retval any other status of gc_image_open_split() (image.h), the diag saying why
 * On failure t->img is untouched.
 */
gpucore_status_t gc_triage_open(struct gc_triage *t, gpucore_diag_t *reterr_diag);

/* Free the image gc_triage_open() built (the cores stay the caller's). Accepts NULL. */
void gc_triage_close(struct gc_triage *t);

/* What one view is asked for: the command line's options. Strings are borrowed. */
struct gc_triage_request {
    long wave;          /* a wave index as `waves` lists it; -1: none given */
    int faulting;       /* waves: only the waves an error stopped */
    int stopped;        /* waves: only the waves the trap handler stopped */
    long queue;         /* waves: only this queue's waves (index as the report lists it); -1: all */
    uint64_t address;   /* disasm: code address; mem: address in the space */
    int has_address;    /* address was given */
    uint64_t size;      /* mem: bytes, 1 .. GC_TRIAGE_MEM_MAX_SIZE */
    const char *space;  /* mem: address space name ("global", "local", ...) */
    long lane;          /* mem: the lane of "private", 0..63 */
    long before, after; /* disasm: instructions around the PC, 0 .. GC_TRIAGE_DISASM_MAX_CONTEXT */
    const char *regs[GC_TRIAGE_REG_FILTER_MAX]; /* regs: only these registers; none: all */
    int nregs;
};

/* What a failure is about; it decides how the program reports it (see the top). */
enum gc_triage_blame {
    GC_TRIAGE_BLAME_CORE = 0, /* the core cannot give what was asked: a read or decode
                                 failed, data or the GPU target is missing */
    GC_TRIAGE_BLAME_REQUEST,  /* the request names what this core does not have (a wave, a
                                 register) */
    GC_TRIAGE_BLAME_USAGE,    /* the request is malformed or, for this core, incomplete */
    GC_TRIAGE_BLAME_MEMORY,   /* the builder ran out of memory */
    GC_TRIAGE_BLAME_SETUP,    /* a part of gpucore it needs is missing (the disassembler
                                 module) */
};

/*
 * Why a builder failed. Owned by the caller and written only on failure, so a caller that
 * sets diag.status to GPUCORE_OK first can tell a partial `mem` read (see gc_triage_mem()).
 */
struct gc_triage_error {
    enum gc_triage_blame blame;
    gpucore_diag_t diag; /* the status and the message (one line) */
};

/*
 * The builders. Each returns a new document, which the caller frees with json_decref(), or
 * NULL with *reterr filled (reterr may be NULL). @p t is open (gc_triage_open()); @p req is
 * only read. A request's wave must exist: every view that takes one (all but the report) fails
 * first, when it does not, with
 *   GPUCORE_E_NOTFOUND  REQUEST  "wave N does not exist: the core has M waves (0..M-1)"  64
 * and every builder fails, when its own buffers or the document cannot be allocated, with
 *   GPUCORE_E_NOMEM     MEMORY   "out of memory"                                       70
 */

/*
 * The triage report: first lines that explain the crash in plain words; per agent and queue
 * the dispatches and the waves grouped by (dispatch, PC, stop reasons), faulting groups first,
 * each PC disassembled; the code objects; what the core lacks. A queue lists at most
 * GC_TRIAGE_QUEUE_DISPATCHES + GC_TRIAGE_QUEUE_GROUPS dispatches and GC_TRIAGE_QUEUE_GROUPS
 * groups (which ones: above) and counts the rest: "dispatches_omitted" (its active kernel
 * dispatches not in "dispatches", whether the image kept them or only counted them) and
 * "groups_omitted" (groups not in "groups"; their waves count in "waves", "stopped_waves" and
 * "faulting_waves" all the same). Each listed dispatch's "waves" counts the waves that run it. Waves whose save areas the
 * capture left out (the manifest says why: a size or time budget, a failed read) are explained,
 * not taken for idle queues: each queue has "waves_running" (the waves its control stacks list,
 * null when a control stack is not in the core) and "save_area_missing" (null, or {"status",
 * "reason", "text": "3,328 waves were running; 0 saved: the size budget was exhausted"}); the
 * document has "waves_running" for the whole core and a summary line saying the same. Each
 * dispatch has "arguments": its kernel's arguments from the code object's NT_AMDGPU_METADATA
 * (analyze/kernargs.h), each {"name" (null when the metadata has none; a hidden argument's
 * value kind), "hidden", "type", "offset", "size", "value_kind", "address_space", "value"
 * (text, from the kernarg segment in the core; a hidden count or size such as
 * hidden_block_count_x in decimal), "value_error", "allocation" ({"label", "kind", "base",
 * "size", "offset"} of the allocation-map entry a global, constant or generic pointer, or a
 * hidden pointer such as hidden_queue_ptr or hidden_printf_buffer, points into, or null), "relation" (that in words: "buffer a, 64 KiB VRAM", "null pointer",
 * "in no allocation of the core's allocation map", or null)}, or null when there is no
 * metadata; and "arguments_error": null, or what is missing or inconsistent (no metadata,
 * kernarg bytes not in the core, sizes that disagree), sentences joined by "; ". Each dispatch
 * has "printf": null when its kernel has no hidden_printf_buffer argument or it is null or not
 * in the core, else its OpenCL device printf buffer decoded with the code object's
 * amdhsa.printf formats (analyze/devprintf.h, docs/device-printf.md): {"address", "used" and
 * "size" (the buffer header's words, null when the header is not in the core), "held" (bytes
 * of the buffer read from the core, at most 4 MiB), "truncated" (the core holds fewer bytes than
 * the header says are used), "records": [{"offset" (of the record, header included), "id",
 * "format" (unescaped, then escaped as "text" is), "args" (each argument's bytes as hex:
 * "0x00000600" for 4 and 8 bytes, else the bytes in memory order), "text" (the message, bytes
 * outside printable ASCII as C escapes such as "\n"; null when the format's sizes are not
 * trusted), "text_error" (why not, or null)}], "problem" (null, or why the walk stopped early
 * or found nothing: an unknown printf id at an offset, a header that does not add up, formats
 * that cannot be read)}. Each record is charged GC_TRIAGE_JSON_RECORD_COST. Besides the
 * failures above:
 *   GPUCORE_E_LIMIT     CORE     the report's records do not fit the core's memory budget
 *                                (GC_TRIAGE_JSON_RECORD_COST): the budget's message      65
 */
json_t *gc_triage_report(const struct gc_triage *t, struct gc_triage_error *reterr);

/*
 * A core's triage report and crash signature, in one call: what the program's capture report,
 * the store's index and `show`, and `gpucore job` take of a core (the same core gives them the
 * same signature). @p report is owned by the caller (json_decref()); the other members are
 * borrowed from it: "signature" (an object {"text","hash","kind"}, or NULL when the core has no
 * wave to judge), and its hash and text (NULL likewise).
 */
struct gc_triage_signed {
    json_t *report;
    json_t *signature;
    const char *sig_hash, *sig_text;
};

/*
 * gc_triage_open() of @p core (borrowed; @p path names it in the report and messages; no host
 * core, no code-object path, no sysroot), gc_triage_report(), gc_triage_close(): *ret filled
 * (zeroed on failure), or a failure with *reterr filled (reterr may be NULL):
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTFOUND  the core has no AMDGPU note: no GPU state (gc_triage_open();
 *                             the report never fails with it), blame CORE
 * @retval any other status of gc_triage_open(), blame CORE (GPUCORE_E_NOMEM: MEMORY)
 * @retval any failure of gc_triage_report(), with its blame
 * Whether instructions are disassembled is the process's (gc_triage_no_disassembly()).
 */
gpucore_status_t gc_triage_sign(gpucore_core_t *core, const char *path,
                                struct gc_triage_signed *ret, struct gc_triage_error *reterr);

/*
 * `waves`, a wave at a time. A core of a few hundred KiB can hold a hundred thousand waves, and
 * a user still wants every one listed, so the document is never built whole: the program
 * writes its head, then each wave's record, holding one record at a time (cli/cmd_analyze.c).
 * The document is the head's members, then "waves": the records, in image order.
 *
 * The waves listed: those of req->queue (>= 0; -1: every queue), req->wave (>= 0: only that
 * one), req->stopped (only those the trap handler stopped), req->faulting (only those an error
 * stopped), all that apply together.
 *
 * gc_triage_waves_head(): {"schema", "command": "waves", "core"[, "host_core"],
 * "file_truncated", "count" (the waves listed)}. Besides the failures above:
 *   GPUCORE_E_NOTFOUND  REQUEST  "queue N does not exist: the core has M queues"        64
 */
json_t *gc_triage_waves_head(const struct gc_triage *t, const struct gc_triage_request *req,
                             struct gc_triage_error *reterr);

/* The index of the first wave at or after @p from that the request lists, or UINT32_MAX. */
uint32_t gc_triage_waves_next(const struct gc_triage *t, const struct gc_triage_request *req,
                              uint32_t from);

/*
 * Wave @p i's record: {"index", "agent", "queue", "xcc", "dispatch", "kernel", "workgroup",
 * "wave_in_group", "lanes", "pc", "symbol", "exec", "stopped", "stop_reasons", "faulting",
 * "source", "inlined", "source_error", "instruction", "instruction_error"}, the instruction at
 * its PC disassembled when it is stopped or asked for (req->wave), else both null. A new
 * object, or NULL if out of memory or @p i names no wave.
 *
 * Every view of one open core shares one budget of code decoded from symbols' starts to find
 * the instruction at a PC, and remembers the instruction at recent PCs (GC_TR_DISASM_WALK_BUDGET,
 * triage_internal.h): past it a wave's, a group's or the heading wave's instruction is null and
 * "instruction_error" says "not disassembled: the 16 MiB of code this command may decode from
 * symbol starts are spent (...)"; a report's memory candidates are null.
 */
json_t *gc_triage_waves_item(const struct gc_triage *t, const struct gc_triage_request *req,
                             uint32_t i);

/*
 * The registers of wave req->wave (>= 0; only req->regs, if any), headed by the wave.
 * Besides the failures above:
 *   GPUCORE_E_NOTFOUND  REQUEST  the wave has no register of a name in req->regs     64
 *   GPUCORE_E_ARCH      CORE     the wave's GPU target is unknown                     65
 *   GPUCORE_E_INVAL, GPUCORE_E_CORRUPT, GPUCORE_E_NOMEM   CORE   the wave's register list
 *                                cannot be built (gc_wave_register_list())        70, 65, 70
 */
json_t *gc_triage_regs(const struct gc_triage *t, const struct gc_triage_request *req,
                       struct gc_triage_error *reterr);

/*
 * Never disassemble in this process from now on (gc_disasm_disable(), disasm.h): instructions
 * then read "cannot disassemble: disassembler not available: <reason>". For `gpucore capture`,
 * whose crash signature needs no instruction text and whose process must not map libLLVM.
 */
void gc_triage_no_disassembly(const char *reason);

/*
 * Load the disassembler (its module, arch/disasm_module.h) now, before any input is read, so
 * that a view opens no file after the core. A failure is kept and said where an instruction is
 * asked for ("disassembler not available: ..."); nothing is returned here.
 */
void gc_triage_preload_disassembler(void);

/*
 * The code around a PC: wave req->wave's, else req->address, else (neither given) the first
 * faulting wave's, else the first stopped wave's, else wave 0's. Decoded from the start of the
 * symbol holding the PC (at most 64 KiB before it), req->before and req->after instructions
 * around it. Besides the failures above:
 *   GPUCORE_E_NOTFOUND     CORE  neither given, and the core has no waves              65
 *   GPUCORE_E_ARCH         CORE  no GPU target known to disassemble for               65
 *   GPUCORE_E_UNAVAILABLE  CORE  the code at the PC is not in the core                65
 *   GPUCORE_E_NOTSUP       SETUP "disassembler not available: ..." (gc_disasm_load()) 69
 *   GPUCORE_E_INVAL, GPUCORE_E_NOTSUP, GPUCORE_E_NOMEM, GPUCORE_E_LIMIT   CORE   the
 *                                disassembler failed (gc_disasm_range_array())  70, 65, 70, 65
 */
json_t *gc_triage_disasm(const struct gc_triage *t, const struct gc_triage_request *req,
                         struct gc_triage_error *reterr);

/*
 * The document of a view that could not be built because of the core (a failed
 * gc_triage_open(), or a builder's failure with blame CORE), for a caller that promised a
 * document (--json): {"schema", "command" (@p command: "report", "waves", ...), "core"
 * [, "host_core"], "file_truncated", "error" (@p message, one sentence)}. @p t needs its paths
 * and cores, not an image. A new document, or NULL if out of memory.
 */
json_t *gc_triage_error_doc(const struct gc_triage *t, const char *command, const char *message);

/*
 * req->size bytes at req->address of address space req->space, as wave req->wave sees it (the
 * spaces of a wave default to the first faulting wave), as hex. Besides the failures above:
 *   GPUCORE_E_INVAL  USAGE  req->space names no address space                         64
 *   GPUCORE_E_INVAL  USAGE  the space needs a wave, none was given and none faulted   64
 *   any status of gc_image_read() (image.h)   CORE   the read failed: the exit code of the
 *                                status (GPUCORE_E_UNAVAILABLE, _LIMIT, _CORRUPT 65; _INVAL,
 *                                _NOMEM 70; _IO 74)
 * A failed read returns the document of the bytes read *and* fills *reterr: "bytes_read" is
 * what could be read (0 when nothing could; after some bytes only for GPUCORE_E_UNAVAILABLE
 * and GPUCORE_E_LIMIT, the core's missing bytes), "data" their hex, "error" the diag's
 * message (null after a whole read). The program prints both and exits with the error's
 * code.
 */
json_t *gc_triage_mem(const struct gc_triage *t, const struct gc_triage_request *req,
                      struct gc_triage_error *reterr);

/* Reading a document (the report's own summary lines and the text renderers): gc_json.h's
   gc_json_get_u64(), gc_json_get_str(), ... */

/* Name of a KFD exception code ("QUEUE_WAVE_MEMORY_VIOLATION"), NULL if unknown. Static. */
const char *gc_triage_exception_name(uint32_t code);

#endif /* GC_ANALYZE_TRIAGE_H */
