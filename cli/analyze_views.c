/* SPDX-License-Identifier: MIT */
/* gpucore analyze waves | regs | disasm | mem: one wave, its registers, code or memory. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

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

json_t *az_build_waves(const struct az *az, const struct opts *o)
{
    json_t *doc = az_doc_new(az, "waves"), *arr = json_array();
    uint32_t n = gc_image_wave_count(az->img);

    for (uint32_t i = 0; i < n; i++) {
        const struct gc_image_wave *w = gc_image_wave(az->img, i);

        if (!w || (o->wave >= 0 && (uint32_t)o->wave != i) ||
            (o->faulting && !az_is_fault(w->stop_reasons)))
            continue;
        /* Disassembling every wave of a hang is slow and says nothing new: only the stopped. */
        json_array_append_new(arr, az_wave_json(az, w, w->stopped || o->wave >= 0));
    }
    json_object_set_new(doc, "count", az_jint(json_array_size(arr)));
    json_object_set_new(doc, "waves", arr);
    return doc;
}

void az_render_waves(FILE *out, const json_t *doc)
{
    size_t i;
    json_t *w;

    fprintf(out, "%" PRIu64 " waves\n", az_jget_u64(doc, "count"));
    fprintf(out, "%6s %5s %5s %4s %-14s %-16s %-18s %-18s %s\n", "wave", "queue", "disp", "xcc",
            "workgroup", "symbol", "exec", "stop", "instruction");
    json_array_foreach(json_object_get(doc, "waves"), i, w)
    {
        const json_t *wg = json_object_get(w, "workgroup");
        char grp[48], disp[16], reasons[128] = "";
        size_t k, len = 0;
        json_t *r;

        snprintf(grp, sizeof(grp), "(%" PRId64 ",%" PRId64 ",%" PRId64 ")/%" PRId64,
                 az_jidx_val(json_array_get(wg, 0)), az_jidx_val(json_array_get(wg, 1)),
                 az_jidx_val(json_array_get(wg, 2)),
                 az_jidx_val(json_object_get(w, "wave_in_group")));
        if (json_is_integer(json_object_get(w, "dispatch")))
            snprintf(disp, sizeof(disp), "%" PRIu64, az_jget_u64(w, "dispatch"));
        else
            snprintf(disp, sizeof(disp), "-");
        json_array_foreach(json_object_get(w, "stop_reasons"), k, r)
        {
            gc_str_appendf(reasons, sizeof(reasons), &len, "%s%s", k ? "+" : "",
                           json_string_value(r));
        }
        if (!reasons[0])
            snprintf(reasons, sizeof(reasons), "%s",
                     az_jget_bool(w, "stopped") ? "stopped" : "running");
        fprintf(out, "%6" PRIu64 " %5" PRIu64 " %5s %4" PRIu64 " %-14s %-16s %-18s %-18s %s\n",
                az_jget_u64(w, "index"), az_jget_u64(w, "queue"), disp, az_jget_u64(w, "xcc"), grp,
                az_jget_str_or(w, "symbol", az_jget_str_or(w, "pc", "?")),
                az_jget_str_or(w, "exec", "?"), reasons,
                az_jget_str_or(w, "instruction",
                               az_jget_str(w, "instruction_error") ? "(PC inside an instruction or "
                                                                     "not disassembled)"
                                                                   : ""));
    }
}

/* ---------------------------------------------------------------------------------------- */
/* regs                                                                                       */
/* ---------------------------------------------------------------------------------------- */

static json_t *reg_json(const struct gc_arch *arch, const struct gc_image_wave *w,
                        uint32_t r_version, const struct gc_reg *r)
{
    json_t *o = json_object(), *classes = json_array();
    uint8_t buf[8];

    json_object_set_new(o, "name", json_string(r->name));
    json_object_set_new(o, "size", az_jint(r->size));
    for (uint32_t c = 0; c < GC_REGCLASS_COUNT; c++)
        if (r->classes & (1u << c) && gc_reg_class_name(1u << c))
            json_array_append_new(classes, json_string(gc_reg_class_name(1u << c)));
    json_object_set_new(o, "classes", classes);
    json_object_set_new(o, "dwarf", r->dwarf >= 0 ? az_jint((uint64_t)r->dwarf) : json_null());
    if (r->size <= 8) {
        uint64_t v = 0;

        if (gc_reg_read(arch, &w->wave, r_version, r, 0, buf, r->size) != GPUCORE_OK) {
            json_object_set_new(o, "value", json_null());
            return o;
        }
        for (uint32_t b = r->size; b-- > 0;)
            v = v << 8 | buf[b];
        json_object_set_new(o, "value", az_jhex(v));
    } else {
        /* Vector registers (and anything wider): 32-bit elements, lane i at 4 * i. */
        json_t *lanes = json_array();

        for (uint32_t off = 0; off + 4 <= r->size; off += 4) {
            if (gc_reg_read(arch, &w->wave, r_version, r, off, buf, 4) != GPUCORE_OK) {
                json_array_append_new(lanes, json_null());
                continue;
            }
            json_array_append_new(lanes, az_jhex((uint32_t)buf[0] | (uint32_t)buf[1] << 8 |
                                                 (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24));
        }
        json_object_set_new(o, "lanes", lanes);
    }
    return o;
}

/* Returns the document, or NULL with *rc set after printing the error. */
json_t *az_build_regs(const struct az *az, const struct opts *o, int *rc)
{
    const struct gc_image_wave *w = gc_image_wave(az->img, (uint32_t)o->wave);
    const struct gc_arch *arch = w ? az_wave_arch(az, w) : NULL;
    struct gc_reglist list = { 0 };
    gpucore_status_t st;
    json_t *doc, *arr;

    if (!arch) {
        *rc = cli_fail(CLI_EXIT_DATAERR, az->path,
                       "wave %ld: its GPU target is unknown, so are its registers", o->wave);
        return NULL;
    }
    st = gc_wave_register_list(arch, &w->wave, &list);
    if (st != GPUCORE_OK) {
        *rc = cli_fail(cli_exit_for(st, CLI_SIDE_INPUT), az->path,
                       "wave %ld: cannot list its registers (%s)", o->wave, gpucore_strerror(st));
        return NULL;
    }
    for (int i = 0; i < o->nregs; i++)
        if (!gc_reglist_find(&list, o->regs[i])) {
            *rc = cli_fail(CLI_EXIT_USAGE, az->path, "wave %ld (%s) has no register '%s'", o->wave,
                           arch->name, o->regs[i]);
            gc_reglist_done(&list);
            return NULL;
        }
    doc = az_doc_new(az, "regs");
    json_object_set_new(doc, "target", json_string(arch->name));
    json_object_set_new(doc, "wave", az_wave_json(az, w, 1));
    arr = json_array();
    for (size_t i = 0; i < list.count; i++) {
        int want = o->nregs == 0;

        for (int k = 0; !want && k < o->nregs; k++)
            want = strcmp(list.regs[i].name, o->regs[k]) == 0;
        if (want)
            json_array_append_new(arr,
                                  reg_json(arch, w, gc_image_r_version(az->img), &list.regs[i]));
    }
    json_object_set_new(doc, "registers", arr);
    gc_reglist_done(&list);
    return doc;
}

void az_render_regs(FILE *out, const json_t *doc)
{
    size_t i, k;
    json_t *r, *l;

    az_render_wave_head(out, json_object_get(doc, "wave"));
    json_array_foreach(json_object_get(doc, "registers"), i, r)
    {
        const json_t *lanes = json_object_get(r, "lanes");

        if (!lanes) {
            fprintf(out, "  %-14s %s\n", az_jget_str(r, "name"),
                    az_jget_str_or(r, "value", "unreadable"));
            continue;
        }
        fprintf(out, "  %-14s", az_jget_str(r, "name"));
        json_array_foreach(lanes, k, l)
        {
            if (k && k % 8 == 0)
                fprintf(out, "\n  %-14s", "");
            if (k % 8 == 0)
                fprintf(out, " [%2zu]", k);
            if (json_is_string(l))
                fprintf(out, " %08" PRIx64, (uint64_t)strtoull(json_string_value(l), NULL, 16));
            else
                fprintf(out, " %8s", "?");
        }
        fputc('\n', out);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* disasm                                                                                     */
/* ---------------------------------------------------------------------------------------- */

json_t *az_build_disasm(const struct az *az, const struct opts *o, int *rc)
{
    const struct gc_image_wave *w = o->wave >= 0 ? gc_image_wave(az->img, (uint32_t)o->wave) : NULL;
    const struct gc_arch *arch = NULL;
    uint64_t pc, off = 0, start, end, len;
    uint8_t *bytes;
    struct gc_disasm_insn *insns;
    size_t ninsns = 0, cur = SIZE_MAX, max;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    struct az_sym_ctx sc = { .az = az };
    struct gc_disasm_symbolizer sym = { .lookup = az_sym_lookup, .user = &sc };
    char name[GC_IMAGE_NAME_MAX + 24];
    json_t *doc, *arr;

    if (w) {
        pc = w->pc;
        arch = az_wave_arch(az, w);
    } else {
        pc = o->address;
        /* The target of the code object's agent: every queue of one agent shares it; with
           several targets, the first queue whose dispatch runs code there decides. */
        for (uint32_t q = 0; !arch && q < gc_image_queue_count(az->img); q++)
            arch = az_queue_arch(az, q);
    }
    if (!arch) {
        *rc = cli_fail(CLI_EXIT_DATAERR, az->path, "no known GPU target to disassemble for");
        return NULL;
    }
    if (az_symbolize(az, pc, name, sizeof(name), &off) && off <= DISASM_MAX_BACK)
        start = pc - off;
    else
        start = pc, off = 0;
    end = pc + (uint64_t)(o->after + 1) * 12u;
    if (end < pc)
        end = UINT64_MAX;
    len = end - start;
    max = (size_t)(off / 4 + (uint64_t)o->after + 2);
    bytes = malloc((size_t)len);
    insns = calloc(max, sizeof(*insns));
    if (!bytes || !insns) {
        free(bytes);
        free(insns);
        *rc = cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        return NULL;
    }
    len = az_read_code(az, start, bytes, len, &d);
    if (len <= off) {
        free(bytes);
        free(insns);
        *rc = cli_fail(CLI_EXIT_DATAERR, az->path, "cannot disassemble at 0x%" PRIx64 ": %s", pc,
                       d.message[0] ? d.message : "the code is not in the core");
        return NULL;
    }
    st = gc_disasm_range_array(arch, bytes, (size_t)len, start, &sym, insns, max, &ninsns, &d);
    if (st != GPUCORE_OK && st != GPUCORE_E_CORRUPT) {
        free(bytes);
        free(insns);
        *rc = cli_report(az->path, &d, CLI_SIDE_INPUT);
        return NULL;
    }
    for (size_t i = 0; i < ninsns; i++)
        if (insns[i].pc <= pc && pc - insns[i].pc < insns[i].size)
            cur = i; /* the instruction holding the PC (normally starting at it) */
    doc = az_doc_new(az, "disasm");
    json_object_set_new(doc, "target", json_string(arch->name));
    json_object_set_new(doc, "wave", w ? az_wave_json(az, w, 0) : json_null());
    json_object_set_new(doc, "pc", az_jhex(pc));
    json_object_set_new(doc, "symbol", name[0] ? json_string(name) : json_null());
    arr = json_array();
    for (size_t i = 0; i < ninsns; i++) {
        json_t *ji;
        char s[GC_IMAGE_NAME_MAX + 24];

        if (cur != SIZE_MAX && (i + (size_t)o->before < cur || i > cur + (size_t)o->after))
            continue;
        ji = json_object();
        az_symbolize(az, insns[i].pc, s, sizeof(s), NULL);
        json_object_set_new(ji, "address", az_jhex(insns[i].pc));
        json_object_set_new(ji, "symbol", az_jstr_or_null(s));
        json_object_set_new(ji, "size", az_jint(insns[i].size));
        json_object_set_new(ji, "text", json_string(insns[i].text));
        json_object_set_new(ji, "current", json_boolean(i == cur));
        json_array_append_new(arr, ji);
    }
    json_object_set_new(doc, "instructions", arr);
    json_object_set_new(doc, "note",
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

void az_render_disasm(FILE *out, const json_t *doc)
{
    size_t i;
    json_t *x;

    if (json_is_object(json_object_get(doc, "wave")))
        az_render_wave_head(out, json_object_get(doc, "wave"));
    else
        fprintf(out, "Code at %s (%s), %s:\n", az_jget_str(doc, "pc"),
                az_jget_str_or(doc, "symbol", "no symbol"), az_jget_str(doc, "target"));
    json_array_foreach(json_object_get(doc, "instructions"), i, x) fprintf(
            out, "%s %18s  %-16s %s\n", az_jget_bool(x, "current") ? "=>" : "  ",
            az_jget_str(x, "address"), az_jget_str_or(x, "symbol", ""), az_jget_str(x, "text"));
    if (az_jget_str(doc, "note"))
        fprintf(out, "note: %s\n", az_jget_str(doc, "note"));
}

/* ---------------------------------------------------------------------------------------- */
/* mem                                                                                        */
/* ---------------------------------------------------------------------------------------- */

json_t *az_build_mem(const struct az *az, const struct opts *o, int *rc)
{
    size_t si;
    uint32_t wave = o->wave >= 0 ? (uint32_t)o->wave : UINT32_MAX;
    uint8_t *buf;
    uint64_t done = 0;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    json_t *doc;
    char *hex;

    for (si = 0; si < sizeof(space_names) / sizeof(space_names[0]); si++)
        if (strcmp(space_names[si].name, o->space) == 0)
            break;
    if (si == sizeof(space_names) / sizeof(space_names[0])) {
        *rc = cli_usage_error("analyze",
                              "unknown address space '%s' (global, generic, local, "
                              "private, private_wave)",
                              o->space);
        return NULL;
    }
    if (space_names[si].needs_wave && wave == UINT32_MAX) {
        /* The wave the report leads with: the first faulting one, else the first stopped. */
        for (uint32_t i = 0; i < gc_image_wave_count(az->img) && wave == UINT32_MAX; i++) {
            const struct gc_image_wave *w = gc_image_wave(az->img, i);

            if (w && az_is_fault(w->stop_reasons))
                wave = i;
        }
        if (wave == UINT32_MAX) {
            *rc = cli_usage_error("analyze", "--space %s needs --wave N (no wave faulted)",
                                  o->space);
            return NULL;
        }
    }
    buf = malloc((size_t)o->size);
    hex = malloc((size_t)o->size * 2 + 1);
    if (!buf || !hex) {
        free(buf);
        free(hex);
        *rc = cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
        return NULL;
    }
    st = gc_image_read(az->img, wave, space_names[si].space, (uint32_t)o->lane, o->address, buf,
                       o->size, &done, &d);
    if (st == GPUCORE_OK)
        done = o->size;
    else if (done > o->size)
        done = 0;
    if (st != GPUCORE_OK && (done == 0 || (st != GPUCORE_E_UNAVAILABLE && st != GPUCORE_E_LIMIT))) {
        free(buf);
        free(hex);
        *rc = cli_report(az->path, &d, CLI_SIDE_INPUT);
        return NULL;
    }
    for (uint64_t i = 0; i < done; i++)
        snprintf(hex + 2 * i, 3, "%02x", buf[i]);
    hex[2 * done] = '\0';
    doc = az_doc_new(az, "mem");
    json_object_set_new(doc, "space", json_string(space_names[si].name));
    json_object_set_new(doc, "wave", az_jidx(wave));
    json_object_set_new(doc, "lane",
                        space_names[si].space == GC_ASPACE_PRIVATE_LANE ? az_jint((uint64_t)o->lane)
                                                                        : json_null());
    json_object_set_new(doc, "address", az_jhex(o->address));
    json_object_set_new(doc, "size", az_jint(o->size));
    json_object_set_new(doc, "bytes_read", az_jint(done));
    json_object_set_new(doc, "data", json_string(hex));
    json_object_set_new(doc, "error", st == GPUCORE_OK ? json_null() : json_string(d.message));
    if (st != GPUCORE_OK)
        *rc = cli_report(az->path, &d, CLI_SIDE_INPUT);
    free(buf);
    free(hex);
    return doc;
}

void az_render_mem(FILE *out, const json_t *doc)
{
    const char *hex = az_jget_str(doc, "data");
    uint64_t n = az_jget_u64(doc, "bytes_read"), addr = az_jget_u64(doc, "address");

    if (json_is_integer(json_object_get(doc, "wave")))
        fprintf(out, "%s memory of wave %" PRIu64 ", %" PRIu64 " bytes at %s:\n",
                az_jget_str(doc, "space"), az_jget_u64(doc, "wave"), n,
                az_jget_str(doc, "address"));
    else
        fprintf(out, "%s memory, %" PRIu64 " bytes at %s:\n", az_jget_str(doc, "space"), n,
                az_jget_str(doc, "address"));
    for (uint64_t i = 0; hex && i < n; i += 16) {
        char ascii[17];
        uint64_t k;

        fprintf(out, "%016" PRIx64 " ", addr + i);
        for (k = 0; k < 16; k++) {
            if (i + k < n) {
                unsigned c = (unsigned)strtoul(
                        (char[3]){ hex[2 * (i + k)], hex[2 * (i + k) + 1], 0 }, NULL, 16);

                fprintf(out, "%s%02x", k == 8 ? "  " : " ", c);
                ascii[k] = c >= 0x20 && c < 0x7f ? (char)c : '.';
            } else {
                fprintf(out, "%s  ", k == 8 ? "  " : " ");
                ascii[k] = ' ';
            }
        }
        ascii[16] = '\0';
        fprintf(out, "  |%s|\n", ascii);
    }
}
