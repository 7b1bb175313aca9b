/* SPDX-License-Identifier: MIT */
/* gpucore analyze: JSON helpers, symbols, one instruction, stop reasons, one wave (analyze.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* Stop reasons in the order a report names them; `fault`: an error, not a debugger event. */
static const struct {
    uint32_t bit;
    const char *name;   /* amd-dbgapi's AMD_DBGAPI_WAVE_STOP_REASON_* in lower case */
    const char *phrase; /* "stopped by ..." */
    int fault;
} stop_reasons[] = {
    { GC_STOP_MEMORY_VIOLATION, "memory_violation", "a memory violation", 1 },
    { GC_STOP_ADDRESS_ERROR, "address_error", "an address error (aperture violation)", 1 },
    { GC_STOP_ILLEGAL_INSTRUCTION, "illegal_instruction", "an illegal instruction", 1 },
    { GC_STOP_ASSERT_TRAP, "assert_trap", "an assert trap (s_trap 2)", 1 },
    { GC_STOP_TRAP, "trap", "a trap instruction", 1 },
    { GC_STOP_ECC_ERROR, "ecc_error", "an ECC error", 1 },
    { GC_STOP_FATAL_HALT, "fatal_halt", "a fatal halt", 1 },
    { GC_STOP_INT_DIVIDE_BY_0, "int_divide_by_0", "an integer division by zero", 1 },
    { GC_STOP_FP_DIVIDE_BY_0, "fp_divide_by_0", "a floating-point division by zero", 1 },
    { GC_STOP_FP_INVALID_OPERATION, "fp_invalid_operation", "an invalid floating-point operation",
      1 },
    { GC_STOP_FP_OVERFLOW, "fp_overflow", "a floating-point overflow", 1 },
    { GC_STOP_FP_UNDERFLOW, "fp_underflow", "a floating-point underflow", 1 },
    { GC_STOP_FP_INEXACT, "fp_inexact", "an inexact floating-point result", 1 },
    { GC_STOP_FP_INPUT_DENORMAL, "fp_input_denormal", "a denormal floating-point input", 1 },
    { GC_STOP_DEBUG_TRAP, "debug_trap", "a debug trap", 0 },
    { GC_STOP_BREAKPOINT, "breakpoint", "a breakpoint", 0 },
    { GC_STOP_WATCHPOINT, "watchpoint", "a watchpoint", 0 },
    { GC_STOP_SINGLE_STEP, "single_step", "a single step", 0 },
};
#define NSTOP (sizeof(stop_reasons) / sizeof(stop_reasons[0]))

/* KFD exception codes (spec/kfd-debug-interface.md §7); bit e-1 of an exception_status word. */
static const struct {
    uint32_t code;
    const char *name;
    const char *phrase;
} exception_codes[] = {
    { 1, "QUEUE_WAVE_ABORT", "wave abort" },
    { 2, "QUEUE_WAVE_TRAP", "wave trap" },
    { 3, "QUEUE_WAVE_MATH_ERROR", "wave math error" },
    { 4, "QUEUE_WAVE_ILLEGAL_INSTRUCTION", "wave illegal instruction" },
    { 5, "QUEUE_WAVE_MEMORY_VIOLATION", "wave memory violation" },
    { 6, "QUEUE_WAVE_APERTURE_VIOLATION", "wave aperture violation" },
    { 16, "QUEUE_PACKET_DISPATCH_DIM_INVALID", "invalid dispatch dimensions" },
    { 17, "QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID", "invalid group segment size" },
    { 18, "QUEUE_PACKET_DISPATCH_CODE_INVALID", "invalid kernel code" },
    { 19, "QUEUE_PACKET_RESERVED", "reserved packet" },
    { 20, "QUEUE_PACKET_UNSUPPORTED", "unsupported packet" },
    { 21, "QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID", "invalid workgroup size" },
    { 22, "QUEUE_PACKET_DISPATCH_REGISTER_INVALID", "invalid dispatch registers" },
    { 23, "QUEUE_PACKET_VENDOR_UNSUPPORTED", "unsupported vendor packet" },
    { 30, "QUEUE_PREEMPTION_ERROR", "queue preemption error" },
    { 31, "QUEUE_NEW", "new queue" },
    { 32, "DEVICE_QUEUE_DELETE", "queue deleted" },
    { 33, "DEVICE_MEMORY_VIOLATION", "device memory violation" },
    { 34, "DEVICE_RAS_ERROR", "RAS error" },
    { 35, "DEVICE_FATAL_HALT", "fatal halt" },
    { 36, "DEVICE_NEW", "new device" },
    { 48, "PROCESS_RUNTIME", "runtime event" },
    { 49, "PROCESS_DEVICE_REMOVE", "device removed" },
};

/* ---------------------------------------------------------------------------------------- */
/* Small JSON helpers                                                                         */
/* ---------------------------------------------------------------------------------------- */

json_t *az_doc_new(const struct az *az, const char *command)
{
    json_t *doc = json_object();

    json_object_set_new(doc, "schema", json_string(ANALYZE_SCHEMA));
    json_object_set_new(doc, "command", json_string(command));
    json_object_set_new(doc, "core", json_string(az->path));
    if (az->host_path)
        json_object_set_new(doc, "host_core", json_string(az->host_path));
    return doc;
}

json_t *az_jhex(uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    return json_string(buf);
}

json_t *az_jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* An index that may be "unknown" (UINT32_MAX): integer or null. */
json_t *az_jidx(uint32_t v)
{
    return v == UINT32_MAX ? json_null() : az_jint(v);
}

json_t *az_jstr_or_null(const char *s)
{
    json_t *j;

    if (!s || !*s)
        return json_null();
    j = json_string(s);
    return j ? j : json_string("<invalid UTF-8>");
}

uint64_t az_jget_u64(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (json_is_integer(v))
        return (uint64_t)json_integer_value(v);
    if (json_is_string(v))
        return strtoull(json_string_value(v), NULL, 0);
    return 0;
}

const char *az_jget_str(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *az_jget_str_or(const json_t *obj, const char *key, const char *dflt)
{
    const char *s = az_jget_str(obj, key);

    return s ? s : dflt;
}

/* An index that may be null: the value, or -1. */
int64_t az_jidx_val(const json_t *v)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

int az_jget_bool(const json_t *obj, const char *key)
{
    return json_is_true(json_object_get(obj, key));
}

void az_jappendf(json_t *arr, const char *fmt, ...)
{
    char buf[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(arr, json_string(buf));
}

/* ---------------------------------------------------------------------------------------- */
/* Context                                                                                    */
/* ---------------------------------------------------------------------------------------- */

const struct gc_arch *az_queue_arch(const struct az *az, uint32_t queue)
{
    const struct gc_image_queue *q = gc_image_queue(az->img, queue);
    const struct gc_image_agent *a = q ? gc_image_agent(az->img, q->agent) : NULL;

    return a ? a->arch : NULL;
}

const struct gc_arch *az_wave_arch(const struct az *az, const struct gc_image_wave *w)
{
    return az_queue_arch(az, w->queue);
}

/* "name+0xoff" (or "name") of an address into buf; 0 if no symbol covers it. */
int az_symbolize(const struct az *az, uint64_t pc, char *buf, size_t size, uint64_t *ret_offset)
{
    char name[GC_IMAGE_NAME_MAX];
    uint64_t off = 0;

    if (gc_image_symbolize(az->img, pc, name, sizeof(name), &off) != GPUCORE_OK) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    if (off)
        snprintf(buf, size, "%s+0x%" PRIx64, name, off);
    else
        snprintf(buf, size, "%s", name);
    if (ret_offset)
        *ret_offset = off;
    return 1;
}

int az_sym_lookup(void *user, uint64_t addr, const char **ret_name, uint64_t *ret_offset)
{
    struct az_sym_ctx *s = user;

    if (gc_image_symbolize(s->az->img, addr, s->name, sizeof(s->name), ret_offset) != GPUCORE_OK)
        return 0;
    *ret_name = s->name;
    return 1;
}

/*
 * Read code bytes at [addr, addr + size) as the GPU sees them (global memory). Returns the
 * number of bytes read (a prefix; 0 if none) and the reason for a short read in diag.
 */
uint64_t az_read_code(const struct az *az, uint64_t addr, uint8_t *buf, uint64_t size,
                      gpucore_diag_t *d)
{
    uint64_t done = 0;
    gpucore_status_t st;

    st = gc_image_read(az->img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, addr, buf, size, &done, d);
    if (st == GPUCORE_OK)
        return size;
    return st == GPUCORE_E_UNAVAILABLE && done <= size ? done : 0;
}

/* Walk from a symbol's start to the instruction that covers `target`. */
struct walk {
    uint64_t target;
    int found;
    struct gc_disasm_insn hit;
};

static int walk_insn(void *user, const struct gc_disasm_insn *insn)
{
    struct walk *wk = user;

    if (insn->pc + insn->size <= wk->target)
        return 0;
    wk->hit = *insn;
    wk->found = 1;
    return 1;
}

/*
 * Disassemble the one instruction at pc into text. When a symbol covers pc, the code is
 * decoded from the symbol's start, so a PC that is not on an instruction boundary is caught
 * (and the instruction it lies in named) instead of decoding the middle of one. Returns 0, or
 * -1 with why in text (the caller shows it in place of the instruction and in JSON as
 * instruction_error).
 */
int az_insn_at(const struct az *az, const struct gc_arch *arch, uint64_t pc, char *text,
               size_t size)
{
    uint8_t bytes[16];
    gpucore_diag_t d = { 0 };
    uint64_t n, off = 0;
    uint32_t isz = 0;
    struct az_sym_ctx sc = { .az = az };
    struct gc_disasm_symbolizer sym = { .lookup = az_sym_lookup, .user = &sc };
    char name[GC_IMAGE_NAME_MAX + 24];

    if (!arch) {
        snprintf(text, size, "unknown GPU target: no disassembler");
        return -1;
    }
    if (az_symbolize(az, pc, name, sizeof(name), &off) && off > 0 && off <= DISASM_MAX_BACK) {
        uint64_t len = off + 16;
        uint8_t *code = malloc((size_t)len);
        struct walk wk = { .target = pc };

        if (code) {
            len = az_read_code(az, pc - off, code, len, &d);
            if (len > off)
                (void)gc_disasm_range(arch, code, (size_t)len, pc - off, &sym, walk_insn, &wk, NULL,
                                      &d);
            free(code);
        }
        if (wk.found && wk.hit.pc == pc) {
            snprintf(text, size, "%s", wk.hit.text);
            return 0;
        }
        if (wk.found) {
            char at[GC_IMAGE_NAME_MAX + 24];

            az_symbolize(az, wk.hit.pc, at, sizeof(at), NULL);
            snprintf(text, size,
                     "the PC is not on an instruction boundary: it is %" PRIu64
                     " bytes into %s (%s)",
                     pc - wk.hit.pc, wk.hit.text, at);
            return -1;
        }
        memset(&d, 0, sizeof(d));
    }
    n = az_read_code(az, pc, bytes, sizeof(bytes), &d);
    if (n == 0) {
        snprintf(text, size, "code at 0x%" PRIx64 " not in the core: %s", pc,
                 d.message[0] ? d.message : "not captured");
        return -1;
    }
    if (gc_disasm_insn(arch, bytes, (size_t)n, pc, &sym, text, size, &isz, &d) != GPUCORE_OK) {
        char why[sizeof(d.message)];

        memcpy(why, d.message, sizeof(why));
        snprintf(text, size, "cannot disassemble: %s", why[0] ? why : "not an instruction");
        return -1;
    }
    return 0;
}

const char *az_exception_name(uint32_t code)
{
    for (size_t i = 0; i < sizeof(exception_codes) / sizeof(exception_codes[0]); i++)
        if (exception_codes[i].code == code)
            return exception_codes[i].name;
    return NULL;
}

json_t *az_exceptions_json(uint64_t status)
{
    json_t *arr = json_array();

    for (uint32_t code = 1; code <= 64; code++) {
        const char *name;

        if (!(status >> (code - 1) & 1))
            continue;
        name = az_exception_name(code);
        if (name)
            json_array_append_new(arr, json_string(name));
        else
            az_jappendf(arr, "EC_%u", code);
    }
    return arr;
}

json_t *az_stop_reasons_json(uint32_t mask)
{
    json_t *arr = json_array();
    uint32_t known = 0;

    for (size_t i = 0; i < NSTOP; i++) {
        known |= stop_reasons[i].bit;
        if (mask & stop_reasons[i].bit)
            json_array_append_new(arr, json_string(stop_reasons[i].name));
    }
    if (mask & ~known)
        az_jappendf(arr, "0x%x", mask & ~known);
    return arr;
}

int az_is_fault(uint32_t mask)
{
    for (size_t i = 0; i < NSTOP; i++)
        if ((mask & stop_reasons[i].bit) && stop_reasons[i].fault)
            return 1;
    return 0;
}

/* "a memory violation and an illegal instruction" */
void az_stop_phrase(uint32_t mask, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < NSTOP; i++)
        if (mask & stop_reasons[i].bit)
            gc_str_appendf(buf, size, &len, "%s%s", len ? " and " : "", stop_reasons[i].phrase);
    if (!buf[0])
        snprintf(buf, size, "the debugger's trap handler (no error reason)");
}

const char *az_kernel_of(const struct az *az, uint32_t dispatch)
{
    const struct gc_image_dispatch *dp =
            dispatch == UINT32_MAX ? NULL : gc_image_dispatch(az->img, dispatch);

    return dp && dp->kernel_name[0] ? dp->kernel_name : NULL;
}

/* One wave, as `waves` lists it and `regs`/`disasm` head their output with it. */
json_t *az_wave_json(const struct az *az, const struct gc_image_wave *w, int with_insn)
{
    json_t *o = json_object(), *wg = json_array();
    const struct gc_image_queue *q = gc_image_queue(az->img, w->queue);
    char sym[GC_IMAGE_NAME_MAX + 24];
    const char *kernel = az_kernel_of(az, w->dispatch);

    for (int i = 0; i < 3; i++)
        json_array_append_new(wg, az_jidx(w->workgroup[i]));
    az_symbolize(az, w->pc, sym, sizeof(sym), NULL);
    json_object_set_new(o, "index", az_jint(w->index));
    json_object_set_new(o, "agent", q ? az_jint(q->agent) : json_null());
    json_object_set_new(o, "queue", az_jint(w->queue));
    json_object_set_new(o, "xcc", az_jint(w->xcc));
    json_object_set_new(o, "dispatch", az_jidx(w->dispatch));
    json_object_set_new(o, "kernel", az_jstr_or_null(kernel));
    json_object_set_new(o, "workgroup", wg);
    json_object_set_new(o, "wave_in_group", az_jidx(w->wave_in_group));
    json_object_set_new(o, "lanes", az_jint(w->lanes));
    json_object_set_new(o, "pc", az_jhex(w->pc));
    json_object_set_new(o, "symbol", az_jstr_or_null(sym));
    json_object_set_new(o, "exec", az_jhex(w->exec));
    json_object_set_new(o, "stopped", json_boolean(w->stopped));
    json_object_set_new(o, "stop_reasons", az_stop_reasons_json(w->stop_reasons));
    json_object_set_new(o, "faulting", json_boolean(az_is_fault(w->stop_reasons)));
    if (with_insn) {
        char text[GC_DISASM_TEXT_MAX + 128];
        int rc = az_insn_at(az, az_wave_arch(az, w), w->pc, text, sizeof(text));

        json_object_set_new(o, "instruction", rc == 0 ? json_string(text) : json_null());
        json_object_set_new(o, "instruction_error", rc == 0 ? json_null() : json_string(text));
    } else {
        /* Not disassembled (running waves of `waves`): the keys are there, null. */
        json_object_set_new(o, "instruction", json_null());
        json_object_set_new(o, "instruction_error", json_null());
    }
    return o;
}

void az_render_wave_head(FILE *out, const json_t *w)
{
    const json_t *wg = json_object_get(w, "workgroup");

    char disp[24] = "unknown";

    if (json_is_integer(json_object_get(w, "dispatch")))
        snprintf(disp, sizeof(disp), "%" PRIu64, az_jget_u64(w, "dispatch"));
    fprintf(out,
            "Wave %" PRIu64 ": %s at %s (pc %s), dispatch %s, queue %" PRIu64
            ", workgroup (%" PRId64 ",%" PRId64 ",%" PRId64 ") wave %" PRId64 ", %" PRIu64
            " lanes, exec %s\n",
            az_jget_u64(w, "index"), az_jget_str_or(w, "kernel", "unknown kernel"),
            az_jget_str_or(w, "symbol", "?"), az_jget_str_or(w, "pc", "?"), disp,
            az_jget_u64(w, "queue"), az_jidx_val(json_array_get(wg, 0)),
            az_jidx_val(json_array_get(wg, 1)), az_jidx_val(json_array_get(wg, 2)),
            az_jidx_val(json_object_get(w, "wave_in_group")), az_jget_u64(w, "lanes"),
            az_jget_str_or(w, "exec", "?"));
    if (az_jget_str(w, "instruction"))
        fprintf(out, "  %s\n", az_jget_str(w, "instruction"));
    else if (az_jget_str(w, "instruction_error"))
        fprintf(out, "  (%s)\n", az_jget_str(w, "instruction_error"));
}

uint32_t az_stop_mask(const json_t *names)
{
    uint32_t mask = 0;
    size_t i;
    json_t *v;

    json_array_foreach(names, i, v)
    {
        for (size_t k = 0; k < NSTOP; k++)
            if (json_is_string(v) && strcmp(json_string_value(v), stop_reasons[k].name) == 0)
                mask |= stop_reasons[k].bit;
    }
    return mask;
}
