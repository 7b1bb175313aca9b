/* SPDX-License-Identifier: MIT */
/*
 * Which instruction faulted, when the PC may be past it (triage_internal.h).
 *
 * Without precise memory (the default: the debugger's SINGLE_MEM_OP flag off), a wave keeps
 * issuing instructions after a vector memory instruction until it waits for its result, so the
 * PC of a memory violation can be past the instruction that faulted: anywhere after the last
 * wait that drained the memory counters. The candidates are the memory instructions issued
 * since that wait, up to and including the one at the PC (a wait at the PC itself has not been
 * executed: the wave stopped there). The kernel is decoded from its
 * symbol's start (as the report decodes one instruction), so only instruction boundaries are
 * seen.
 *
 * Memory instructions are recognised by their mnemonic (mem_prefixes), vector or scalar. A wait
 * with count N on a counter (wait_counters) leaves the last N candidates of the kind that
 * counter retires outstanding; expcnt and the like retire none.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "image.h"
#include "triage_internal.h"

/* Candidates kept (the most recent ones). */
#define CAND_MAX 16u

/* The two kinds of memory instruction a wait retires separately. */
enum mem_class { MEM_VECTOR = 0, MEM_SCALAR = 1 };

static const struct {
    const char *prefix;
    enum mem_class cls;
} mem_prefixes[] = {
    { "global_", MEM_VECTOR },         { "flat_", MEM_VECTOR },
    { "buffer_", MEM_VECTOR },         { "tbuffer_", MEM_VECTOR },
    { "scratch_", MEM_VECTOR },        { "s_load_", MEM_SCALAR },
    { "s_buffer_load_", MEM_SCALAR },  { "s_store_", MEM_SCALAR },
    { "s_buffer_store_", MEM_SCALAR }, { "s_scratch_", MEM_SCALAR },
};

/* Counters of a wait, as LLVM prints them, and the kind of memory instruction they retire:
   vmcnt/vscnt (gfx9-11) and loadcnt/storecnt (gfx12) the vector ones, lgkmcnt (gfx9-11) and
   kmcnt (gfx12) the scalar ones. */
static const struct {
    const char *name;
    enum mem_class cls;
} wait_counters[] = {
    { "vmcnt", MEM_VECTOR },   { "vscnt", MEM_VECTOR }, { "loadcnt", MEM_VECTOR },
    { "storecnt", MEM_VECTOR }, { "lgkmcnt", MEM_SCALAR }, { "kmcnt", MEM_SCALAR },
};

struct cand {
    struct gc_disasm_insn insn;
    enum mem_class cls;
};

struct cand_walk {
    uint64_t target;
    struct cand c[CAND_MAX];
    uint32_t n;
    int reached;
};

static int memory_class(const char *text, enum mem_class *ret)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(mem_prefixes); i++)
        if (strncmp(text, mem_prefixes[i].prefix, strlen(mem_prefixes[i].prefix)) == 0) {
            *ret = mem_prefixes[i].cls;
            return 1;
        }
    return 0;
}

/* Keep only the last @p left candidates of class @p cls (a wait retired the older ones). */
static void retire(struct cand_walk *w, enum mem_class cls, uint32_t left)
{
    uint32_t seen = 0, out = 0;
    int keep[CAND_MAX];

    for (uint32_t i = w->n; i-- > 0;)
        keep[i] = w->c[i].cls != cls || ++seen <= left;
    for (uint32_t i = 0; i < w->n; i++)
        if (keep[i])
            w->c[out++] = w->c[i];
    w->n = out;
}

/* A wait: retire what each counter it names retires ("s_waitcnt vmcnt(1) lgkmcnt(0)",
   "s_waitcnt_vscnt null, 0x0", "s_wait_loadcnt 0x0"). */
static void apply_wait(struct cand_walk *w, const char *text)
{
    if (strncmp(text, "s_wait", 6) != 0)
        return;
    for (size_t i = 0; i < GC_ARRAY_SIZE(wait_counters); i++) {
        const char *p = strstr(text, wait_counters[i].name);

        /* "kmcnt" is also the tail of "lgkmcnt": only a whole word counts. */
        while (p && p > text && p[-1] != ' ' && p[-1] != '_' && p[-1] != ',')
            p = strstr(p + 1, wait_counters[i].name);
        if (!p)
            continue;
        p += strcspn(p, "0123456789");
        retire(w, wait_counters[i].cls, (uint32_t)strtoul(p, NULL, 0));
    }
}

static int cand_insn(void *user, const struct gc_disasm_insn *insn)
{
    struct cand_walk *w = user;
    enum mem_class cls;

    if (insn->pc > w->target)
        return 1;
    /* The wave stopped at the PC: a wait there has not retired anything yet. */
    if (insn->pc < w->target)
        apply_wait(w, insn->text);
    if (memory_class(insn->text, &cls)) {
        if (w->n == CAND_MAX) {
            memmove(w->c, w->c + 1, (CAND_MAX - 1) * sizeof(w->c[0]));
            w->n--;
        }
        w->c[w->n].insn = *insn;
        w->c[w->n++].cls = cls;
    }
    if (insn->pc == w->target) {
        w->reached = 1;
        return 1;
    }
    return 0;
}

json_t *gc_tr_memory_candidates_json(const struct gc_triage *t, const struct gc_arch *arch,
                                     uint64_t pc)
{
    struct gc_tr_symbolizer sc = { .t = t };
    struct gc_disasm_symbolizer sym = { .lookup = gc_tr_symbol_lookup, .user = &sc };
    struct cand_walk *w;
    gpucore_diag_t d = { 0 };
    uint64_t off = 0, len;
    char name[GC_IMAGE_NAME_MAX + 24];
    uint8_t *code;
    json_t *arr;

    if (!arch || !gc_tr_symbolize(t, pc, name, sizeof(name), &off) || off > GC_TR_DISASM_MAX_BACK ||
        !gc_tr_walk_charge(t, off + 32))
        return json_null();
    len = off + 32;
    code = malloc((size_t)len);
    w = calloc(1, sizeof(*w));
    if (!code || !w) {
        free(code);
        free(w);
        return json_null();
    }
    w->target = pc;
    len = gc_tr_read_code(t, pc - off, code, len, &d);
    if (len > off)
        (void)gc_disasm_range(arch, code, (size_t)len, pc - off, &sym, cand_insn, w, NULL, &d);
    free(code);
    if (!w->reached) {
        free(w);
        return json_null();
    }
    arr = json_array();
    for (uint32_t i = 0; i < w->n; i++) {
        json_t *o = json_object();

        gc_tr_symbolize(t, w->c[i].insn.pc, name, sizeof(name), NULL);
        json_object_set_new(o, GC_TK_PC, gc_json_hex(w->c[i].insn.pc));
        gc_tr_set_name(o, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED, name);
        json_object_set_new(o, GC_TK_INSTRUCTION, json_string(w->c[i].insn.text));
        json_array_append_new(arr, o);
    }
    free(w);
    return arr;
}
