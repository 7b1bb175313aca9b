/* SPDX-License-Identifier: MIT */
/*
 * The views of the waves, one wave's registers, code or memory (gc_triage_waves_*, _regs,
 * _disasm, _mem; triage.h). Rendered as text by cli/analyze_render.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_regs.h"
#include "disasm.h"
#include "triage_internal.h"
#include "wave.h"

/* Address spaces a user may name with --space, and what they mean. */
static const struct {
    const char *name;
    uint32_t space;
    int needs_wave;
} space_names[] = {
    { "global", GC_ASPACE_GLOBAL, 0 },
    { "generic", GC_ASPACE_GENERIC, 1 },
    { "local", GC_ASPACE_LOCAL, 1 },
    { "private", GC_ASPACE_PRIVATE_LANE, 1 },
    { "private_lane", GC_ASPACE_PRIVATE_LANE, 1 },
    { "private_wave", GC_ASPACE_PRIVATE_WAVE, 1 },
};

/* ---------------------------------------------------------------------------------------- */
/* waves                                                                                      */
/* ---------------------------------------------------------------------------------------- */

/* Whether the request lists wave @p w (triage.h, gc_triage_waves_head()). */
static int wave_listed(const struct gc_triage_request *req, const struct gc_image_wave *w)
{
    return (req->wave < 0 || (uint32_t)req->wave == w->index) &&
           (req->queue < 0 || (uint32_t)req->queue == w->queue) && (!req->stopped || w->stopped) &&
           (!req->faulting || gc_tr_is_fault(w->stop_reasons));
}

uint32_t gc_triage_waves_next(const struct gc_triage *t, const struct gc_triage_request *req,
                              uint32_t from)
{
    uint32_t n = gc_image_wave_count(t->img);

    for (uint32_t i = from; i < n; i++) {
        const struct gc_image_wave *w = gc_image_wave(t->img, i);

        if (w && wave_listed(req, w))
            return i;
    }
    return UINT32_MAX;
}

json_t *gc_triage_waves_head(const struct gc_triage *t, const struct gc_triage_request *req,
                             struct gc_triage_error *reterr)
{
    uint32_t nqueues = gc_image_queue_count(t->img), count = 0;
    json_t *doc;

    if (gc_tr_check_wave(t, req, reterr) != GPUCORE_OK)
        return NULL;
    if (req->queue >= 0 && (uint64_t)req->queue >= nqueues)
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_REQUEST, GPUCORE_E_NOTFOUND,
                          "queue %ld does not exist: the core has %u queue%s", req->queue, nqueues,
                          nqueues == 1 ? "" : "s");
    for (uint32_t i = gc_triage_waves_next(t, req, 0); i != UINT32_MAX;
         i = gc_triage_waves_next(t, req, i + 1))
        count++;
    doc = gc_tr_doc_new(t, "waves");
    if (!doc)
        return gc_tr_out_of_memory(reterr);
    json_object_set_new(doc, GC_TK_COUNT, gc_json_uint(count));
    return doc;
}

json_t *gc_triage_waves_item(const struct gc_triage *t, const struct gc_triage_request *req,
                             uint32_t i)
{
    const struct gc_image_wave *w = gc_image_wave(t->img, i);

    /* Disassembling every wave of a hang is slow and says nothing new: only the stopped. */
    return w ? gc_tr_wave_json(t, w, w->stopped || req->wave >= 0) : NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* regs                                                                                       */
/* ---------------------------------------------------------------------------------------- */

static json_t *reg_json(const struct gc_arch *arch, const struct gc_wave *w, uint32_t r_version,
                        const struct gc_reg *r)
{
    json_t *o = json_object(), *classes = json_array();
    uint8_t buf[8];

    json_object_set_new(o, GC_TK_NAME, json_string(r->name));
    json_object_set_new(o, GC_TK_SIZE, gc_json_uint(r->size));
    for (uint32_t c = 0; c < GC_REGCLASS_COUNT; c++)
        if (r->classes & (1u << c) && gc_reg_class_name(1u << c))
            json_array_append_new(classes, json_string(gc_reg_class_name(1u << c)));
    json_object_set_new(o, "classes", classes);
    json_object_set_new(o, "dwarf", r->dwarf >= 0 ? gc_json_uint((uint64_t)r->dwarf) : json_null());
    if (r->size <= 8) {
        uint64_t v = 0;

        if (gc_reg_read(arch, w, r_version, r, 0, buf, r->size) != GPUCORE_OK) {
            json_object_set_new(o, GC_TK_VALUE, json_null());
            return o;
        }
        for (uint32_t b = r->size; b-- > 0;)
            v = v << 8 | buf[b];
        json_object_set_new(o, GC_TK_VALUE, gc_json_hex(v));
    } else {
        /* Vector registers (and anything wider): 32-bit elements, lane i at 4 * i. */
        json_t *lanes = json_array();

        for (uint32_t off = 0; off + 4 <= r->size; off += 4) {
            if (gc_reg_read(arch, w, r_version, r, off, buf, 4) != GPUCORE_OK) {
                json_array_append_new(lanes, json_null());
                continue;
            }
            json_array_append_new(lanes,
                                  gc_json_hex((uint32_t)buf[0] | (uint32_t)buf[1] << 8 |
                                            (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24));
        }
        json_object_set_new(o, GC_TK_LANES, lanes);
    }
    return o;
}

json_t *gc_triage_regs(const struct gc_triage *t, const struct gc_triage_request *req,
                       struct gc_triage_error *reterr)
{
    const struct gc_image_wave *w;
    const struct gc_wave *saved = NULL;
    const struct gc_arch *arch;
    struct gc_reglist list = { 0 };
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    json_t *doc, *arr;

    if (gc_tr_check_wave(t, req, reterr) != GPUCORE_OK)
        return NULL;
    w = gc_image_wave(t->img, (uint32_t)req->wave);
    arch = w ? gc_tr_wave_arch(t, w) : NULL;
    if (!arch)
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_CORE, GPUCORE_E_ARCH,
                          "wave %ld: its GPU target is unknown, so are its registers", req->wave);
    st = gc_wave_register_list(arch, &w->wave, &list);
    if (st != GPUCORE_OK)
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_CORE, st,
                          "wave %ld: cannot list its registers (%s)", req->wave,
                          gpucore_strerror(st));
    /* the saved registers are read from the core when asked (analyze/image.h) */
    st = gc_image_wave_regs(t->img, w->index, &saved, &d);
    if (st != GPUCORE_OK) {
        gc_reglist_done(&list);
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_CORE, st, "%s", d.message);
    }
    for (int i = 0; i < req->nregs; i++)
        if (!gc_reglist_find(&list, req->regs[i])) {
            gc_reglist_done(&list);
            return gc_tr_fail(reterr, GC_TRIAGE_BLAME_REQUEST, GPUCORE_E_NOTFOUND,
                              "wave %ld (%s) has no register '%s'", req->wave, arch->name,
                              req->regs[i]);
        }
    doc = gc_tr_doc_new(t, "regs");
    if (!doc) {
        gc_reglist_done(&list);
        return gc_tr_out_of_memory(reterr);
    }
    json_object_set_new(doc, GC_TK_TARGET, json_string(arch->name));
    json_object_set_new(doc, GC_TK_WAVE, gc_tr_wave_json(t, w, 1));
    arr = json_array();
    for (size_t i = 0; i < list.count; i++) {
        int want = req->nregs == 0;

        for (int k = 0; !want && k < req->nregs; k++)
            want = strcmp(list.regs[i].name, req->regs[k]) == 0;
        if (want)
            json_array_append_new(arr,
                                  reg_json(arch, saved, gc_image_r_version(t->img),
                                           &list.regs[i]));
    }
    json_object_set_new(doc, GC_TK_REGISTERS, arr);
    gc_reglist_done(&list);
    return doc;
}

/* ---------------------------------------------------------------------------------------- */
/* disasm                                                                                     */
/* ---------------------------------------------------------------------------------------- */

/* The wave disasm shows when given neither a wave nor an address: the first faulting one, else
   the first stopped one, else (a hang) where the first wave is; -1 if the core has no waves. */
static long default_disasm_wave(const struct gc_triage *t)
{
    uint32_t nwaves = gc_image_wave_count(t->img);

    for (uint32_t i = 0; i < nwaves; i++) {
        const struct gc_image_wave *w = gc_image_wave(t->img, i);

        if (w && gc_tr_is_fault(w->stop_reasons))
            return i;
    }
    for (uint32_t i = 0; i < nwaves; i++) {
        const struct gc_image_wave *w = gc_image_wave(t->img, i);

        if (w && w->stopped)
            return i;
    }
    return nwaves ? 0 : -1;
}

json_t *gc_triage_disasm(const struct gc_triage *t, const struct gc_triage_request *req,
                         struct gc_triage_error *reterr)
{
    const struct gc_image_wave *w = NULL;
    const struct gc_arch *arch = NULL;
    long wave = req->wave;
    uint64_t pc, off = 0, start, end, len;
    uint8_t *bytes;
    struct gc_disasm_insn *insns;
    size_t ninsns = 0, cur = SIZE_MAX, max;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    struct gc_tr_symbolizer sc = { .t = t };
    struct gc_disasm_symbolizer sym = { .lookup = gc_tr_symbol_lookup, .user = &sc };
    char name[GC_IMAGE_NAME_MAX + 24];
    json_t *doc, *arr;

    if (gc_tr_check_wave(t, req, reterr) != GPUCORE_OK)
        return NULL;
    if (wave < 0 && !req->has_address) {
        wave = default_disasm_wave(t);
        if (wave < 0)
            return gc_tr_fail(reterr, GC_TRIAGE_BLAME_CORE, GPUCORE_E_NOTFOUND,
                              "the core has no waves: give disasm an --address A");
    }
    if (wave >= 0)
        w = gc_image_wave(t->img, (uint32_t)wave);
    if (w) {
        arch = gc_tr_wave_arch(t, w);
        pc = gc_tr_insn_pc(t, arch, w->pc, w->stop_reasons); /* a trapped wave: its s_trap */
    } else {
        pc = req->address;
        /* The target of the code object's agent: every queue of one agent shares it; with
           several targets, the first queue whose dispatch runs code there decides. */
        for (uint32_t q = 0; !arch && q < gc_image_queue_count(t->img); q++)
            arch = gc_tr_queue_arch(t, q);
    }
    if (!arch)
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_CORE, GPUCORE_E_ARCH,
                          "no known GPU target to disassemble for");
    if (gc_tr_symbolize(t, pc, name, sizeof(name), &off) && off <= GC_TR_DISASM_MAX_BACK)
        start = pc - off;
    else
        start = pc, off = 0;
    end = pc + (uint64_t)(req->after + 1) * 12u;
    if (end < pc)
        end = UINT64_MAX;
    len = end - start;
    max = (size_t)(off / 4 + (uint64_t)req->after + 2);
    bytes = malloc((size_t)len);
    insns = calloc(max, sizeof(*insns));
    if (!bytes || !insns) {
        free(bytes);
        free(insns);
        return gc_tr_out_of_memory(reterr);
    }
    len = gc_tr_read_code(t, start, bytes, len, &d);
    if (len <= off) {
        free(bytes);
        free(insns);
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_CORE, GPUCORE_E_UNAVAILABLE,
                          "cannot disassemble at 0x%" PRIx64 ": %s", pc,
                          d.message[0] ? d.message : "the code is not in the core");
    }
    if (gc_disasm_load(&d) != GPUCORE_OK) {
        free(bytes);
        free(insns);
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_SETUP, d.status, "%s", d.message);
    }
    st = gc_disasm_range_array(arch, bytes, (size_t)len, start, &sym, insns, max, &ninsns, &d);
    if (st != GPUCORE_OK && st != GPUCORE_E_CORRUPT) {
        free(bytes);
        free(insns);
        return gc_tr_fail_diag(reterr, &d);
    }
    for (size_t i = 0; i < ninsns; i++)
        if (insns[i].pc <= pc && pc - insns[i].pc < insns[i].size)
            cur = i; /* the instruction holding the PC (normally starting at it) */
    doc = gc_tr_doc_new(t, "disasm");
    if (!doc) {
        free(bytes);
        free(insns);
        return gc_tr_out_of_memory(reterr);
    }
    json_object_set_new(doc, GC_TK_TARGET, json_string(arch->name));
    json_object_set_new(doc, GC_TK_WAVE, w ? gc_tr_wave_json(t, w, 0) : json_null());
    json_object_set_new(doc, GC_TK_PC, gc_json_hex(pc));
    gc_tr_set_name(doc, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED, name);
    arr = json_array();
    for (size_t i = 0; i < ninsns; i++) {
        json_t *ji;
        char s[GC_IMAGE_NAME_MAX + 24];

        if (cur != SIZE_MAX && (i + (size_t)req->before < cur || i > cur + (size_t)req->after))
            continue;
        ji = json_object();
        gc_tr_symbolize(t, insns[i].pc, s, sizeof(s), NULL);
        json_object_set_new(ji, GC_TK_ADDRESS, gc_json_hex(insns[i].pc));
        gc_tr_set_name(ji, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED, s);
        json_object_set_new(ji, GC_TK_SIZE, gc_json_uint(insns[i].size));
        json_object_set_new(ji, GC_TK_TEXT, json_string(insns[i].text));
        json_object_set_new(ji, GC_TK_CURRENT, json_boolean(i == cur));
        gc_tr_source_json(t, insns[i].pc, ji);
        json_array_append_new(arr, ji);
    }
    json_object_set_new(doc, GC_TK_INSTRUCTIONS, arr);
    json_object_set_new(doc, GC_TK_NOTE,
                        cur == SIZE_MAX ? json_string("no instruction of the disassembly from "
                                                      "the symbol start holds the PC")
                        : insns[cur].pc != pc
                                ? json_string("the PC is not on an instruction boundary: it "
                                              "lies inside the instruction marked =>")
                                : json_null());
    free(bytes);
    free(insns);
    return doc;
}

/* ---------------------------------------------------------------------------------------- */
/* mem                                                                                        */
/* ---------------------------------------------------------------------------------------- */

json_t *gc_triage_mem(const struct gc_triage *t, const struct gc_triage_request *req,
                      struct gc_triage_error *reterr)
{
    size_t si;
    uint32_t wave = req->wave >= 0 ? (uint32_t)req->wave : UINT32_MAX;
    uint8_t *buf;
    uint64_t done = 0;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    json_t *doc;

    if (gc_tr_check_wave(t, req, reterr) != GPUCORE_OK)
        return NULL;
    for (si = 0; si < sizeof(space_names) / sizeof(space_names[0]); si++)
        if (strcmp(space_names[si].name, req->space) == 0)
            break;
    if (si == sizeof(space_names) / sizeof(space_names[0]))
        return gc_tr_fail(reterr, GC_TRIAGE_BLAME_USAGE, GPUCORE_E_INVAL,
                          "unknown address space '%s' (global, generic, local, private, "
                          "private_wave)",
                          req->space);
    if (space_names[si].needs_wave && wave == UINT32_MAX) {
        /* The first faulting wave, the one the report leads with. */
        for (uint32_t i = 0; i < gc_image_wave_count(t->img) && wave == UINT32_MAX; i++) {
            const struct gc_image_wave *w = gc_image_wave(t->img, i);

            if (w && gc_tr_is_fault(w->stop_reasons))
                wave = i;
        }
        if (wave == UINT32_MAX)
            return gc_tr_fail(reterr, GC_TRIAGE_BLAME_USAGE, GPUCORE_E_INVAL,
                              "--space %s needs --wave N (no wave faulted)", req->space);
    }
    buf = malloc((size_t)req->size);
    if (!buf)
        return gc_tr_out_of_memory(reterr);
    st = gc_image_read(t->img, wave, space_names[si].space, (uint32_t)req->lane, req->address, buf,
                       req->size, &done, &d);
    if (st == GPUCORE_OK)
        done = req->size;
    else if (done > req->size)
        done = 0;
    /* Nothing read, or a failure that is not the core's missing bytes, is the error alone;
       --json still gets its document (bytes_read 0, "error" the sentence). */
    if (st != GPUCORE_OK && (st != GPUCORE_E_UNAVAILABLE && st != GPUCORE_E_LIMIT))
        done = 0;
    doc = gc_tr_doc_new(t, "mem");
    if (!doc) {
        free(buf);
        return gc_tr_out_of_memory(reterr);
    }
    json_object_set_new(doc, GC_TK_SPACE, json_string(space_names[si].name));
    json_object_set_new(doc, GC_TK_WAVE, gc_json_index(wave));
    json_object_set_new(doc, "lane",
                        space_names[si].space == GC_ASPACE_PRIVATE_LANE
                                ? gc_json_uint((uint64_t)req->lane)
                                : json_null());
    json_object_set_new(doc, GC_TK_ADDRESS, gc_json_hex(req->address));
    json_object_set_new(doc, GC_TK_SIZE, gc_json_uint(req->size));
    json_object_set_new(doc, GC_TK_BYTES_READ, gc_json_uint(done));
    json_object_set_new(doc, GC_TK_DATA, gc_json_hex_bytes(buf, (size_t)done));
    json_object_set_new(doc, GC_TK_ERROR, st == GPUCORE_OK ? json_null() : json_string(d.message));
    free(buf);
    if (st != GPUCORE_OK)
        gc_tr_fail_diag(reterr, &d); /* the bytes read (maybe none), and why no more */
    return doc;
}
