/* SPDX-License-Identifier: MIT */
/*
 * `gpucore analyze`, shared between its files: cmd_analyze.c (command line), analyze_report.c
 * (the triage report), analyze_views.c (waves, regs, disasm, mem) and analyze_common.c (JSON
 * helpers, symbols, disassembly of one PC, stop reasons, one wave's description).
 *
 * Every view builds one JSON document (the model) and renders it as JSON or text, so the two
 * outputs never disagree. JSON conventions: addresses, masks and register values are strings
 * "0x..." (they may not fit a signed 64-bit JSON integer); counts and indices are integers;
 * absent data is null. Builders that can fail print one error line and return NULL with the
 * exit code in *rc. Nothing here exits.
 */
#ifndef GPUCORE_CLI_ANALYZE_H
#define GPUCORE_CLI_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch_regs.h"
#include "cli.h"
#include "disasm.h"
#include "gc_util.h"
#include "image.h"
#include "wave.h"

#define ANALYZE_SCHEMA "gpucore.analyze/1"

/* Bounds on what one command line may ask for. */
#define MEM_MAX_SIZE      (1u << 20) /* bytes one `mem` prints */
#define MEM_DEFAULT_SIZE  64u
#define DISASM_MAX_CTX    256 /* instructions before/after the PC */
#define DISASM_DEFAULT    8
#define DISASM_MAX_BACK   (64u << 10) /* bytes disassembled from a symbol's start to the PC */
#define GROUP_WAVES_SHOWN 16u         /* wave indices listed per group in the text report */
#define HEADLINES_MAX     8u          /* fault groups explained in the first lines */
#define REG_FILTER_MAX    32

/* The open core and its process image. */
struct az {
    const char *path;
    const char *host_path;  /* --host: the host core of a split core, or NULL */
    gpucore_core_t *core, *host;
    struct gc_image *img;
};

/* A view's document: {"schema", "command", "core"[, "host_core"]}. */
json_t *az_doc_new(const struct az *az, const char *command);

/* What the command line asked for. */
struct opts {
    int json, faulting;
    long wave; /* -1: none */
    uint64_t address;
    int has_address;
    uint64_t size;
    const char *space;
    long lane;
    long before, after;
    const char *regs[REG_FILTER_MAX];
    int nregs;
};

/* Disassembler symbolizer through the image (branch targets get " <name+0xoff>"). */
struct az_sym_ctx {
    const struct az *az;
    char name[GC_IMAGE_NAME_MAX];
};

/* JSON helpers. */
json_t *az_jhex(uint64_t v);            /* "0x..." */
json_t *az_jint(uint64_t v);            /* integer (clamped to INT64_MAX) */
json_t *az_jidx(uint32_t v);            /* integer, or null for UINT32_MAX (unknown) */
json_t *az_jstr_or_null(const char *s); /* string, or null for NULL/"" */
uint64_t az_jget_u64(const json_t *obj, const char *key);    /* integer or "0x..." member; 0 */
const char *az_jget_str(const json_t *obj, const char *key); /* NULL if not a string */
const char *az_jget_str_or(const json_t *obj, const char *key, const char *dflt);
int64_t az_jidx_val(const json_t *v); /* integer, or -1 for null */
int az_jget_bool(const json_t *obj, const char *key);
void az_jappendf(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The target of a queue's agent / of a wave (NULL: unknown target). */
const struct gc_arch *az_queue_arch(const struct az *az, uint32_t queue);
const struct gc_arch *az_wave_arch(const struct az *az, const struct gc_image_wave *w);
/* "name+0xoff" of pc into buf (and the offset); returns 1, or 0 with buf "" if no symbol. */
int az_symbolize(const struct az *az, uint64_t pc, char *buf, size_t size, uint64_t *ret_offset);
/* gc_disasm_symbol_fn over the image; user is a struct az_sym_ctx. */
int az_sym_lookup(void *user, uint64_t addr, const char **ret_name, uint64_t *ret_offset);
/* Global memory at addr: the readable prefix length (0 if none; the diag says why). */
uint64_t az_read_code(const struct az *az, uint64_t addr, uint8_t *buf, uint64_t size,
                      gpucore_diag_t *d);
/* The instruction at pc as text: 0, or -1 with the reason in text (not an instruction
   boundary, code not captured, no disassembler). */
int az_insn_at(const struct az *az, const struct gc_arch *arch, uint64_t pc, char *text,
               size_t size);

/* KFD exception codes and stop reasons. */
const char *az_exception_name(uint32_t code);               /* "QUEUE_WAVE_MEMORY_VIOLATION" */
json_t *az_exceptions_json(uint64_t status);                /* names of the bits of a status word */
json_t *az_stop_reasons_json(uint32_t mask);                /* ["memory_violation", ...] */
uint32_t az_stop_mask(const json_t *names);                 /* the inverse */
int az_is_fault(uint32_t mask);                             /* an error, not a debugger event */
void az_stop_phrase(uint32_t mask, char *buf, size_t size); /* "a memory violation" */

/* A dispatch's kernel name (NULL: unknown); one wave as `waves` lists it, and its text head. */
const char *az_kernel_of(const struct az *az, uint32_t dispatch);
json_t *az_wave_json(const struct az *az, const struct gc_image_wave *w, int with_insn);
void az_render_wave_head(FILE *out, const json_t *w);

/* The views. build_report returns NULL only when out of memory. */
json_t *az_build_report(const struct az *az);
void az_render_report(FILE *out, const json_t *doc);
json_t *az_build_waves(const struct az *az, const struct opts *o);
void az_render_waves(FILE *out, const json_t *doc);
json_t *az_build_regs(const struct az *az, const struct opts *o, int *rc);
void az_render_regs(FILE *out, const json_t *doc);
json_t *az_build_disasm(const struct az *az, const struct opts *o, int *rc);
void az_render_disasm(FILE *out, const json_t *doc);
json_t *az_build_mem(const struct az *az, const struct opts *o, int *rc);
void az_render_mem(FILE *out, const json_t *doc);

#endif /* GPUCORE_CLI_ANALYZE_H */
