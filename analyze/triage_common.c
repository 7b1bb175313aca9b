/* SPDX-License-Identifier: MIT */
/*
 * The triage report's shared pieces (triage_internal.h): opening, failing, building and
 * reading JSON, symbols, the instruction at a PC, stop reasons and exceptions, one wave.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "disasm.h"
#include "triage_internal.h"
#include "wave.h"

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

/* KFD exception codes (docs/kfd-debug-interface.md §7); bit e-1 of an exception_status word. */
static const struct {
    uint32_t code;
    const char *name;
} exception_codes[] = {
    { 1, "QUEUE_WAVE_ABORT" },
    { 2, "QUEUE_WAVE_TRAP" },
    { 3, "QUEUE_WAVE_MATH_ERROR" },
    { 4, "QUEUE_WAVE_ILLEGAL_INSTRUCTION" },
    { 5, "QUEUE_WAVE_MEMORY_VIOLATION" },
    { 6, "QUEUE_WAVE_APERTURE_VIOLATION" },
    { 16, "QUEUE_PACKET_DISPATCH_DIM_INVALID" },
    { 17, "QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID" },
    { 18, "QUEUE_PACKET_DISPATCH_CODE_INVALID" },
    { 19, "QUEUE_PACKET_RESERVED" },
    { 20, "QUEUE_PACKET_UNSUPPORTED" },
    { 21, "QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID" },
    { 22, "QUEUE_PACKET_DISPATCH_REGISTER_INVALID" },
    { 23, "QUEUE_PACKET_VENDOR_UNSUPPORTED" },
    { 30, "QUEUE_PREEMPTION_ERROR" },
    { 31, "QUEUE_NEW" },
    { 32, "DEVICE_QUEUE_DELETE" },
    { 33, "DEVICE_MEMORY_VIOLATION" },
    { 34, "DEVICE_RAS_ERROR" },
    { 35, "DEVICE_FATAL_HALT" },
    { 36, "DEVICE_NEW" },
    { 48, "PROCESS_RUNTIME" },
    { 49, "PROCESS_DEVICE_REMOVE" },
};

/* ---------------------------------------------------------------------------------------- */
/* Opening, failing                                                                           */
/* ---------------------------------------------------------------------------------------- */

/* One PC's instruction, remembered (gc_tr_insn_at()). */
struct gc_tr_insn_slot {
    const struct gc_arch *arch; /* NULL: the slot is empty */
    uint64_t pc;
    int rc;
    char text[GC_TR_INSN_TEXT_MAX];
};

/* The instructions found at PCs and what finding them cost (struct gc_triage's code). */
struct gc_tr_code {
    uint64_t walked;               /* bytes decoded from symbols' starts */
    int cache_tried;               /* slots was asked for: allocated, or refused */
    uint32_t cached;               /* slots in use, at most GC_TR_INSN_CACHE_SLOTS */
    struct gc_tr_insn_slot *slots; /* INSN_TABLE_SLOTS, open addressing; charged to t->core;
                                      or NULL */
};

/* The table has twice the slots it fills, so that a probe ends soon at an empty one. */
#define INSN_TABLE_SLOTS (2u * GC_TR_INSN_CACHE_SLOTS)
#define INSN_CACHE_BYTES ((uint64_t)INSN_TABLE_SLOTS * sizeof(struct gc_tr_insn_slot))

gpucore_status_t gc_triage_open(struct gc_triage *t, gpucore_diag_t *reterr_diag)
{
    const struct gc_image_options opts = { .code_object_dir = t->code_object_dir };
    gpucore_status_t st = gc_image_open_with(t->core, t->host, &opts, &t->img, reterr_diag);

    if (st != GPUCORE_OK)
        return st;
    t->lines = calloc(1, sizeof(*t->lines));
    if (t->lines)
        t->lines->co = gc_calloc_array((size_t)gc_image_code_object_count(t->img) + 1u,
                                       sizeof(*t->lines->co));
    if (!t->lines || !t->lines->co) {
        gc_triage_close(t);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    t->lines->n = gc_image_code_object_count(t->img);
    t->code = calloc(1, sizeof(*t->code));
    if (!t->code) {
        gc_triage_close(t);
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_triage_sign(gpucore_core_t *core, const char *path,
                                struct gc_triage_signed *ret, struct gc_triage_error *reterr)
{
    struct gc_triage t = { .path = path, .core = core };
    struct gc_triage_error e = { 0 };
    json_t *sig;
    gpucore_status_t st;

    memset(ret, 0, sizeof(*ret));
    st = gc_triage_open(&t, &e.diag);
    if (st != GPUCORE_OK) {
        e.blame = st == GPUCORE_E_NOMEM ? GC_TRIAGE_BLAME_MEMORY : GC_TRIAGE_BLAME_CORE;
        if (reterr)
            *reterr = e;
        return st;
    }
    ret->report = gc_triage_report(&t, &e);
    gc_triage_close(&t);
    if (!ret->report) {
        if (reterr)
            *reterr = e;
        return e.diag.status;
    }
    sig = json_object_get(ret->report, GC_TK_SIGNATURE);
    if (json_is_object(sig)) {
        ret->signature = sig;
        ret->sig_hash = gc_json_get_str(sig, GC_TK_HASH);
        ret->sig_text = gc_json_get_str(sig, GC_TK_TEXT);
    }
    return GPUCORE_OK;
}

void gc_triage_close(struct gc_triage *t)
{
    if (!t)
        return;
    if (t->lines) {
        for (uint32_t i = 0; t->lines->co && i < t->lines->n; i++)
            gc_srcline_close(t->lines->co[i].h);
        gc_free(t->lines->co);
        free(t->lines);
        t->lines = NULL;
    }
    if (t->code) {
        if (t->code->slots) {
            free(t->code->slots);
            gpucore_core_mem_release(t->core, INSN_CACHE_BYTES);
        }
        free(t->code);
        t->code = NULL;
    }
    gc_image_close(t->img);
    t->img = NULL;
}

json_t *gc_tr_fail(struct gc_triage_error *reterr, enum gc_triage_blame blame,
                   gpucore_status_t status, const char *fmt, ...)
{
    va_list ap;

    if (!reterr)
        return NULL;
    reterr->blame = blame;
    va_start(ap, fmt);
    gc_diag_vset(&reterr->diag, status, GC_NO_OFFSET, fmt, ap);
    va_end(ap);
    return NULL;
}

json_t *gc_tr_fail_diag(struct gc_triage_error *reterr, const gpucore_diag_t *diag)
{
    if (reterr) {
        reterr->blame = GC_TRIAGE_BLAME_CORE;
        reterr->diag = *diag;
    }
    return NULL;
}

json_t *gc_tr_out_of_memory(struct gc_triage_error *reterr)
{
    return gc_tr_fail(reterr, GC_TRIAGE_BLAME_MEMORY, GPUCORE_E_NOMEM, "out of memory");
}

gpucore_status_t gc_tr_check_wave(const struct gc_triage *t, const struct gc_triage_request *req,
                                  struct gc_triage_error *reterr)
{
    uint32_t nwaves = gc_image_wave_count(t->img);

    if (req->wave < 0 || (uint64_t)req->wave < nwaves)
        return GPUCORE_OK;
    if (nwaves)
        gc_tr_fail(reterr, GC_TRIAGE_BLAME_REQUEST, GPUCORE_E_NOTFOUND,
                   "wave %ld does not exist: the core has %u wave%s (0..%u)", req->wave, nwaves,
                   nwaves == 1 ? "" : "s", nwaves - 1);
    else
        gc_tr_fail(reterr, GC_TRIAGE_BLAME_REQUEST, GPUCORE_E_NOTFOUND,
                   "wave %ld does not exist: the core has 0 waves", req->wave);
    return GPUCORE_E_NOTFOUND;
}

/* ---------------------------------------------------------------------------------------- */
/* Building and reading JSON                                                                  */
/* ---------------------------------------------------------------------------------------- */

json_t *gc_triage_error_doc(const struct gc_triage *t, const char *command, const char *message)
{
    json_t *doc = gc_tr_doc_new(t, command);

    if (doc)
        json_object_set_new(doc, GC_TK_ERROR, json_string(message));
    return doc;
}

json_t *gc_tr_doc_new(const struct gc_triage *t, const char *command)
{
    json_t *doc = json_object();

    if (!doc)
        return NULL;
    json_object_set_new(doc, "schema", json_string(GC_TRIAGE_SCHEMA));
    json_object_set_new(doc, "command", json_string(command));
    json_object_set_new(doc, GC_TK_CORE, json_string(t->path));
    if (t->host_path)
        json_object_set_new(doc, GC_TK_HOST_CORE, json_string(t->host_path));
    /* A file cut short (an interrupted copy, a full disk) opens with what is there: say so. */
    {
        struct gpucore_core_info fi, hi;
        int cut = t->core && gpucore_core_get_info(t->core, &fi) == GPUCORE_OK &&
                  (fi.flags & GPUCORE_INFO_FILE_TRUNCATED);

        if (t->host && gpucore_core_get_info(t->host, &hi) == GPUCORE_OK &&
            (hi.flags & GPUCORE_INFO_FILE_TRUNCATED))
            cut = 1;
        json_object_set_new(doc, GC_TK_FILE_TRUNCATED, json_boolean(cut));
    }
    return doc;
}

/* ---------------------------------------------------------------------------------------- */
/* The image: targets, kernels, symbols, code                                                 */
/* ---------------------------------------------------------------------------------------- */

const struct gc_arch *gc_tr_queue_arch(const struct gc_triage *t, uint32_t queue)
{
    const struct gc_image_queue *q = gc_image_queue(t->img, queue);
    const struct gc_image_agent *a = q ? gc_image_agent(t->img, q->agent) : NULL;

    return a ? a->arch : NULL;
}

const struct gc_arch *gc_tr_wave_arch(const struct gc_triage *t, const struct gc_image_wave *w)
{
    return gc_tr_queue_arch(t, w->queue);
}

const char *gc_tr_kernel_of(const struct gc_triage *t, uint32_t dispatch)
{
    const struct gc_image_dispatch *dp =
            dispatch == UINT32_MAX ? NULL : gc_image_dispatch(t->img, dispatch);

    return dp && dp->kernel_name[0] ? dp->kernel_name : NULL;
}

void gc_tr_set_name(json_t *o, const char *key, const char *demangled_key, const char *name)
{
    char text[GC_DEMANGLE_TEXT_MAX + 32]; /* and a "+0xoffset" */

    json_object_set_new(o, key, gc_json_str_or_null(name));
    json_object_set_new(o, demangled_key,
                        name && gc_demangle_symbol(name, text, sizeof(text))
                                ? gc_json_str_or_null(text)
                                : json_null());
}

const char *gc_tr_shown_name(const json_t *o, const char *key, const char *demangled_key,
                             const char *fallback)
{
    const char *d = gc_json_get_str(o, demangled_key);

    return d ? d : gc_json_get_str_or(o, key, fallback);
}

int gc_tr_symbolize(const struct gc_triage *t, uint64_t pc, char *buf, size_t size,
                    uint64_t *ret_offset)
{
    char name[GC_IMAGE_NAME_MAX];
    uint64_t off = 0;

    if (gc_image_symbolize(t->img, pc, name, sizeof(name), &off) != GPUCORE_OK) {
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

int gc_tr_symbol_lookup(void *user, uint64_t addr, const char **ret_name, uint64_t *ret_offset)
{
    struct gc_tr_symbolizer *s = user;

    if (gc_image_symbolize(s->t->img, addr, s->name, sizeof(s->name), ret_offset) != GPUCORE_OK)
        return 0;
    *ret_name = s->name;
    return 1;
}

/* Code is read as the GPU sees it: global memory. */
uint64_t gc_tr_read_code(const struct gc_triage *t, uint64_t addr, uint8_t *buf, uint64_t size,
                         gpucore_diag_t *diag)
{
    uint64_t done = 0;
    gpucore_status_t st;

    st = gc_image_read(t->img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, addr, buf, size, &done, diag);
    if (st == GPUCORE_OK)
        return size;
    return st == GPUCORE_E_UNAVAILABLE && done <= size ? done : 0;
}

/* The stop reasons an s_trap gives (arch/wave.c maps the saved trap id to them): the saved PC
   is the instruction after the s_trap. Memory violations and the like are not here: their PC
   is the faulting instruction or past it by an unknown amount (the memory candidates). */
#define TRAP_STOP_REASONS \
    (GC_STOP_ASSERT_TRAP | GC_STOP_TRAP | GC_STOP_DEBUG_TRAP | GC_STOP_BREAKPOINT)
/* s_trap is a SOPP instruction, 4 bytes on every family (arch/disasm.c, the SOPP rules). */
#define S_TRAP_SIZE 4u

uint64_t gc_tr_insn_pc(const struct gc_triage *t, const struct gc_arch *arch, uint64_t pc,
                       uint32_t reasons)
{
    uint8_t b[S_TRAP_SIZE];
    struct gc_disasm_class cls;
    gpucore_diag_t d = { 0 };

    if (!(reasons & TRAP_STOP_REASONS) || !arch || pc < S_TRAP_SIZE)
        return pc;
    if (gc_tr_read_code(t, pc - S_TRAP_SIZE, b, sizeof(b), &d) != sizeof(b))
        return pc;
    memset(&cls, 0, sizeof(cls));
    if (gc_disasm_classify(arch, b, sizeof(b), pc - S_TRAP_SIZE, &cls, NULL) != GPUCORE_OK ||
        cls.kind != GC_INSN_TRAP || cls.size != S_TRAP_SIZE)
        return pc;
    return pc - S_TRAP_SIZE;
}

void gc_triage_no_disassembly(const char *reason)
{
    gc_disasm_disable(reason);
}

void gc_triage_preload_disassembler(void)
{
    (void)gc_disasm_load(NULL);
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
 * When a symbol covers pc, the code is decoded from the symbol's start, so a PC that is not on
 * an instruction boundary is caught (and the instruction it lies in named) instead of decoding
 * the middle of one. The reason for a failure takes the instruction's place in the text and is
 * "instruction_error" in JSON. 0, -1 (why in text), or -2 when GC_TR_DISASM_WALK_BUDGET did not
 * hold the decoding from the symbol's start (why in text).
 */
static int insn_at(const struct gc_triage *t, const struct gc_arch *arch, uint64_t pc, char *text,
                   size_t size)
{
    uint8_t bytes[16];
    gpucore_diag_t d = { 0 };
    uint64_t n, off = 0;
    uint32_t isz = 0;
    struct gc_tr_symbolizer sc = { .t = t };
    struct gc_disasm_symbolizer sym = { .lookup = gc_tr_symbol_lookup, .user = &sc };
    char name[GC_IMAGE_NAME_MAX + 24];

    if (!arch) {
        snprintf(text, size, "unknown GPU target: no disassembler");
        return -1;
    }
    if (gc_tr_symbolize(t, pc, name, sizeof(name), &off) && off > 0 &&
        off <= GC_TR_DISASM_MAX_BACK) {
        uint64_t len = off + 16;
        uint8_t *code;
        struct walk wk = { .target = pc };

        if (!gc_tr_walk_charge(t, len)) {
            snprintf(text, size,
                     "not disassembled: the %u MiB of code this command may decode from symbol "
                     "starts are spent (`gpucore analyze disasm --address 0x%" PRIx64 "` shows it)",
                     GC_TR_DISASM_WALK_BUDGET >> 20, pc);
            return -2;
        }
        code = malloc((size_t)len);
        if (code) {
            len = gc_tr_read_code(t, pc - off, code, len, &d);
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

            gc_tr_symbolize(t, wk.hit.pc, at, sizeof(at), NULL);
            snprintf(text, size,
                     "the PC is not on an instruction boundary: it is %" PRIu64
                     " bytes into %s (%s)",
                     pc - wk.hit.pc, wk.hit.text, at);
            return -1;
        }
        memset(&d, 0, sizeof(d));
    }
    n = gc_tr_read_code(t, pc, bytes, sizeof(bytes), &d);
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

int gc_tr_walk_charge(const struct gc_triage *t, uint64_t bytes)
{
    if (!t->code)
        return 1; /* not opened by gc_triage_open(): no budget to count on */
    if (bytes > GC_TR_DISASM_WALK_BUDGET - t->code->walked)
        return 0;
    t->code->walked += bytes;
    return 1;
}

/* The cache of t's instructions, allocated and charged on first use; NULL without. */
static struct gc_tr_insn_slot *insn_cache(const struct gc_triage *t)
{
    struct gc_tr_code *c = t->code;

    if (!c || c->cache_tried)
        return c ? c->slots : NULL;
    c->cache_tried = 1;
    if (gpucore_core_mem_reserve(t->core, INSN_CACHE_BYTES, "the instructions at PCs", NULL) !=
        GPUCORE_OK)
        return NULL;
    c->slots = calloc(INSN_TABLE_SLOTS, sizeof(*c->slots));
    if (!c->slots)
        gpucore_core_mem_release(t->core, INSN_CACHE_BYTES);
    return c->slots;
}

/* The slot of (@p arch, @p pc) in the cache: the one holding it, or the empty one where it
   goes (the cache emptied first when it holds GC_TR_INSN_CACHE_SLOTS PCs). */
static struct gc_tr_insn_slot *insn_slot(struct gc_tr_code *c, const struct gc_arch *arch,
                                         uint64_t pc)
{
    /* Fibonacci hashing of the instruction's word address */
    uint32_t h = (uint32_t)(((pc >> 2) * 0x9e3779b97f4a7c15ull) >> 32) % INSN_TABLE_SLOTS;

    for (;; h = (h + 1) % INSN_TABLE_SLOTS) {
        struct gc_tr_insn_slot *s = &c->slots[h];

        if (!s->arch && c->cached == GC_TR_INSN_CACHE_SLOTS) {
            memset(c->slots, 0, INSN_TABLE_SLOTS * sizeof(*c->slots));
            c->cached = 0;
        }
        if (!s->arch || (s->arch == arch && s->pc == pc))
            return s;
    }
}

int gc_tr_insn_at(const struct gc_triage *t, const struct gc_arch *arch, uint64_t pc, char *text,
                  size_t size)
{
    struct gc_tr_insn_slot one, *s = &one;
    int rc;

    if (arch && insn_cache(t))
        s = insn_slot(t->code, arch, pc);
    if (s == &one || !s->arch) {
        rc = insn_at(t, arch, pc, s->text, sizeof(s->text));
        /* a walk the budget refused (-2) may fit later, when a shorter one is asked: not
           remembered */
        if (s != &one && rc != -2) {
            s->arch = arch;
            s->pc = pc;
            s->rc = rc;
            t->code->cached++;
        }
    } else {
        rc = s->rc;
    }
    snprintf(text, size, "%s", s->text);
    return rc == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Stop reasons and exceptions                                                                */
/* ---------------------------------------------------------------------------------------- */

const char *gc_triage_exception_name(uint32_t code)
{
    for (size_t i = 0; i < sizeof(exception_codes) / sizeof(exception_codes[0]); i++)
        if (exception_codes[i].code == code)
            return exception_codes[i].name;
    return NULL;
}

json_t *gc_tr_exceptions_json(uint64_t status)
{
    json_t *arr = json_array();

    for (uint32_t code = 1; code <= 64; code++) {
        const char *name;

        if (!(status >> (code - 1) & 1))
            continue;
        name = gc_triage_exception_name(code);
        if (name)
            json_array_append_new(arr, json_string(name));
        else
            gc_json_appendf(arr, "EC_%u", code);
    }
    return arr;
}

json_t *gc_tr_stop_reasons_json(uint32_t mask)
{
    json_t *arr = json_array();
    uint32_t known = 0;

    for (size_t i = 0; i < NSTOP; i++) {
        known |= stop_reasons[i].bit;
        if (mask & stop_reasons[i].bit)
            json_array_append_new(arr, json_string(stop_reasons[i].name));
    }
    if (mask & ~known)
        gc_json_appendf(arr, "0x%x", mask & ~known);
    return arr;
}

uint32_t gc_tr_stop_mask(const json_t *names)
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

int gc_tr_is_fault(uint32_t mask)
{
    for (size_t i = 0; i < NSTOP; i++)
        if ((mask & stop_reasons[i].bit) && stop_reasons[i].fault)
            return 1;
    return 0;
}

/* "a memory violation and an illegal instruction" */
void gc_tr_stop_phrase(uint32_t mask, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < NSTOP; i++)
        if (mask & stop_reasons[i].bit)
            gc_str_appendf(buf, size, &len, "%s%s", len ? " and " : "", stop_reasons[i].phrase);
    if (!buf[0])
        snprintf(buf, size, "the debugger's trap handler (no error reason)");
}

/* ---------------------------------------------------------------------------------------- */
/* Source lines                                                                               */
/* ---------------------------------------------------------------------------------------- */

int gc_tr_co_lines(const struct gc_triage *t, uint32_t c)
{
    const struct gc_image_code_object *co = gc_image_code_object(t->img, c);
    struct gc_tr_co_lines *l;

    if (!co || !t->lines || c >= t->lines->n)
        return -1;
    l = &t->lines->co[c];
    if (l->state == GC_TR_LINES_UNOPENED) {
        gpucore_status_t st = co->bytes && co->size <= SIZE_MAX
                                      ? gc_srcline_open_why(co->bytes, (size_t)co->size,
                                                            &l->h, &l->why)
                                      : GPUCORE_E_INVAL;

        l->state = st == GPUCORE_OK           ? GC_TR_LINES_OPEN
                   : st == GPUCORE_E_NOTFOUND ? GC_TR_LINES_NONE
                   : st == GPUCORE_E_NOMEM    ? GC_TR_LINES_UNOPENED
                                              : GC_TR_LINES_UNUSABLE;
    }
    return l->state == GC_TR_LINES_OPEN ? 1 : l->state == GC_TR_LINES_NONE ? 0 : -1;
}

static json_t *frame_location_json(const struct gc_srcline_frame *f, json_t *o)
{
    json_object_set_new(o, GC_TK_FILE, gc_json_str_or_null(f->file));
    json_object_set_new(o, GC_TK_LINE, f->line ? gc_json_uint(f->line) : json_null());
    json_object_set_new(o, GC_TK_COLUMN, f->column ? gc_json_uint(f->column) : json_null());
    return o;
}

void gc_tr_source_json(const struct gc_triage *t, uint64_t pc, json_t *o)
{
    struct gc_srcline_result r;
    json_t *src = NULL, *inl = NULL;
    const char *why = NULL;

    for (uint32_t c = 0; c < gc_image_code_object_count(t->img) && !src; c++) {
        const struct gc_image_code_object *co = gc_image_code_object(t->img, c);
        gpucore_status_t st;

        /* The offset is checked against the units' ranges (the file can be smaller than the
           code's virtual addresses, so its size says nothing here). */
        if (!co || pc < co->load_address)
            continue;
        if (gc_tr_co_lines(t, c) != 1) {
            /* DWARF refused at open (a limit): said for the PCs it might have covered */
            if (!why && t->lines && c < t->lines->n && pc - co->load_address < co->size)
                why = t->lines->co[c].why;
            continue;
        }
        st = gc_srcline_lookup(t->lines->co[c].h, pc - co->load_address, &r);
        if (st == GPUCORE_E_LIMIT && !why)
            why = r.why;
        if (st != GPUCORE_OK)
            continue;
        src = r.frames[0].file[0] && r.frames[0].line
                      ? frame_location_json(&r.frames[0], json_object())
                      : json_null();
        inl = json_array();
        for (uint32_t k = 0; k < r.nframes; k++) {
            json_t *f = json_object();

            json_object_set_new(f, GC_TK_FUNCTION, gc_json_str_or_null(r.frames[k].function));
            json_array_append_new(inl, frame_location_json(&r.frames[k], f));
        }
    }
    json_object_set_new(o, GC_TK_SOURCE, src ? src : json_null());
    json_object_set_new(o, GC_TK_INLINED, inl ? inl : json_null());
    json_object_set_new(o, GC_TK_SOURCE_ERROR, !inl && why ? json_string(why) : json_null());
}

/* ---------------------------------------------------------------------------------------- */
/* One wave                                                                                   */
/* ---------------------------------------------------------------------------------------- */

json_t *gc_tr_wave_json(const struct gc_triage *t, const struct gc_image_wave *w, int with_insn)
{
    json_t *o = json_object(), *wg = json_array();
    const struct gc_image_queue *q = gc_image_queue(t->img, w->queue);
    char sym[GC_IMAGE_NAME_MAX + 24];
    const char *kernel = gc_tr_kernel_of(t, w->dispatch);
    /* What the wave is about: the s_trap before the saved PC of a trapped wave. */
    uint64_t ipc = gc_tr_insn_pc(t, gc_tr_wave_arch(t, w), w->pc, w->stop_reasons);

    for (int i = 0; i < 3; i++)
        json_array_append_new(wg, gc_json_index(w->workgroup[i]));
    gc_tr_symbolize(t, ipc, sym, sizeof(sym), NULL);
    json_object_set_new(o, GC_TK_INDEX, gc_json_uint(w->index));
    json_object_set_new(o, GC_TK_AGENT, q ? gc_json_uint(q->agent) : json_null());
    json_object_set_new(o, GC_TK_QUEUE, gc_json_uint(w->queue));
    json_object_set_new(o, GC_TK_XCC, gc_json_uint(w->xcc));
    json_object_set_new(o, GC_TK_DISPATCH, gc_json_index(w->dispatch));
    json_object_set_new(o, GC_TK_DISPATCH_INFERRED, json_boolean(w->dispatch_inferred));
    gc_tr_set_name(o, GC_TK_KERNEL, GC_TK_KERNEL_DEMANGLED, kernel);
    json_object_set_new(o, GC_TK_WORKGROUP, wg);
    json_object_set_new(o, GC_TK_WAVE_IN_GROUP, gc_json_index(w->wave_in_group));
    json_object_set_new(o, GC_TK_LANES, gc_json_uint(w->lanes));
    json_object_set_new(o, GC_TK_PC, gc_json_hex(w->pc));
    json_object_set_new(o, GC_TK_INSTRUCTION_PC, gc_json_hex(ipc));
    gc_tr_set_name(o, GC_TK_SYMBOL, GC_TK_SYMBOL_DEMANGLED, sym);
    json_object_set_new(o, GC_TK_EXEC, gc_json_hex(w->exec));
    json_object_set_new(o, GC_TK_STOPPED, json_boolean(w->stopped));
    json_object_set_new(o, GC_TK_STOP_REASONS, gc_tr_stop_reasons_json(w->stop_reasons));
    json_object_set_new(o, GC_TK_FAULTING, json_boolean(gc_tr_is_fault(w->stop_reasons)));
    gc_tr_source_json(t, ipc, o);
    if (with_insn) {
        char text[GC_TR_INSN_TEXT_MAX];
        int rc = gc_tr_insn_at(t, gc_tr_wave_arch(t, w), ipc, text, sizeof(text));

        json_object_set_new(o, GC_TK_INSTRUCTION, rc == 0 ? json_string(text) : json_null());
        json_object_set_new(o, GC_TK_INSTRUCTION_ERROR, rc == 0 ? json_null() : json_string(text));
    } else {
        /* Not disassembled (running waves of `waves`): the keys are there, null. */
        json_object_set_new(o, GC_TK_INSTRUCTION, json_null());
        json_object_set_new(o, GC_TK_INSTRUCTION_ERROR, json_null());
    }
    return o;
}
