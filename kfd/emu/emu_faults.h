/* SPDX-License-Identifier: MIT */
/*
 * The fault plan: what the emulated GPU does with each kernel dispatch. By default every
 * dispatch completes; a plan file (JSON, docs/kfd-emulator.md "The fault plan") names kernels
 * by pattern and gives them another fate: a memory violation at an address computed from an
 * argument, an illegal instruction, a trap (s_trap, as a device-side assert or abort
 * executes), or a hang.
 */
#ifndef GC_EMU_FAULTS_H
#define GC_EMU_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "gpucore/status.h"

#define GC_EMU_PLAN_MAX_RULES 64
#define GC_EMU_PLAN_MAX_BYTES (1u << 20) /* a plan file, read whole */
#define GC_EMU_PATTERN_MAX 256

enum gc_emu_action {
    GC_EMU_COMPLETE = 0,
    GC_EMU_MEMORY_VIOLATION,
    GC_EMU_ILLEGAL_INSTRUCTION,
    GC_EMU_TRAP,
    GC_EMU_HANG,
};

struct gc_emu_rule {
    char kernel[GC_EMU_PATTERN_MAX]; /* fnmatch(3) pattern on the kernel's symbol name */
    uint32_t dispatch;               /* the Nth matching dispatch (1-based); 0: every one */
    enum gc_emu_action action;
    /* memory_violation: the address is the 64-bit argument at argument_offset in the kernarg
       segment plus add, or absolute when use_absolute */
    uint32_t argument_offset;
    uint64_t add, absolute;
    int use_absolute;
    int write;                       /* the faulting access writes (else reads) */
    uint32_t trap_id;                /* trap: s_trap's immediate (2 = abort/assert) */
    uint32_t seen;                   /* matching dispatches so far (all processes) */
};

struct gc_emu_plan {
    struct gc_emu_rule rules[GC_EMU_PLAN_MAX_RULES];
    uint32_t nrules;
};

/*
 * Parse a plan from JSON text (@p name is used in messages only). On failure @p err says
 * where and why ("plan.json: faults[2].action: unknown action 'crash'").
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (not the format), GPUCORE_E_LIMIT (too many rules).
 */
gpucore_status_t gc_emu_plan_parse(const char *text, size_t len, const char *name,
                                   struct gc_emu_plan *plan, char *err, size_t errlen);

/* Read and parse a plan file. Adds GPUCORE_E_IO (cannot read it, or larger than
   GC_EMU_PLAN_MAX_BYTES) to what gc_emu_plan_parse returns. */
gpucore_status_t gc_emu_plan_load(const char *path, struct gc_emu_plan *plan, char *err,
                                  size_t errlen);

/* The rule that decides a dispatch of @p kernel (NULL or "" when its name is unknown: only
   the pattern "*" matches it), counting it; NULL: the dispatch completes. */
const struct gc_emu_rule *gc_emu_plan_decide(struct gc_emu_plan *plan, const char *kernel);

/* The action's name in plans and messages ("memory_violation"). */
const char *gc_emu_action_name(enum gc_emu_action a);

#endif
