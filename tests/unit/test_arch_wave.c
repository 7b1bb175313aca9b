/* SPDX-License-Identifier: MIT */
/*
 * Behaviour of arch/wave.c: stop reasons, PCs with and without parking, dispatch association
 * and packet ids, workgroup ids, scratch slots, the private_lane swizzle, generic lowering and
 * the address-space table. Also the hand-built waves every arch test uses (tw_*).
 *
 * Expected values are spelled out with the bit positions of docs/cwsr-layout.md §8-§15, not derived
 * from the rows under test, so a wrong row fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"
#include "wave.h"

int test_arch_wave_run(void);

struct gc_wave *tw_new(uint32_t lanes, uint32_t vgprs, uint32_t accvgprs, uint32_t shared,
                       uint32_t sgprs, uint32_t lds, int first_wave);
void tw_free(struct gc_wave *w);
uint8_t *tw_rec(const struct gc_wave *w);
void tw_pattern(struct gc_wave *w, uint32_t seed);
void tw_hwreg(struct gc_wave *w, uint32_t slot, uint32_t v);
void tw_ttmp(struct gc_wave *w, uint32_t i, uint32_t v);
void tw_sgpr(struct gc_wave *w, uint32_t i, uint32_t v);

/* ------------------------------------------------------------------------------------------ */
/* Hand-built waves                                                                            */
/* ------------------------------------------------------------------------------------------ */

/* A gc_wave plus the record it points into; the wave comes first so the two convert. */
struct tw {
    struct gc_wave w;
    uint8_t *rec;
};

/* One record laid out bottom-up as docs/cwsr-layout.md §7.1 orders it: VGPRs, shared VGPRs,
   AccVGPRs, SGPRs, 16 hardware-register slots, 16 TTMPs, LDS (first wave only). */
struct gc_wave *tw_new(uint32_t lanes, uint32_t vgprs, uint32_t accvgprs, uint32_t shared,
                       uint32_t sgprs, uint32_t lds, int first_wave)
{
    struct tw *t = calloc(1, sizeof(*t));
    size_t off_shared = (size_t)vgprs * lanes * 4;
    size_t off_acc = off_shared + (size_t)shared * 32 * 4;
    size_t off_sgpr = off_acc + (size_t)accvgprs * 64 * 4;
    size_t off_hwreg = off_sgpr + (size_t)sgprs * 4;
    size_t off_ttmp = off_hwreg + 64;
    size_t off_lds = off_ttmp + 64;
    size_t size = off_lds + (first_wave ? lds : 0);

    assert_non_null(t);
    t->rec = calloc(1, size);
    assert_non_null(t->rec);
    t->w.lanes = lanes;
    t->w.first_wave = (uint32_t)(first_wave != 0);
    t->w.last_wave = 1;
    t->w.vgprs = vgprs;
    t->w.accvgprs = accvgprs;
    t->w.shared_vgprs = shared;
    t->w.sgprs = sgprs;
    t->w.lds_size = lds;
    t->w.record_size = size;
    t->w.vgpr = vgprs ? t->rec : NULL;
    t->w.shared_vgpr = shared ? t->rec + off_shared : NULL;
    t->w.accvgpr = accvgprs ? t->rec + off_acc : NULL;
    t->w.sgpr = sgprs ? t->rec + off_sgpr : NULL;
    t->w.hwreg = t->rec + off_hwreg;
    t->w.ttmp = t->rec + off_ttmp;
    t->w.lds = first_wave && lds ? t->rec + off_lds : NULL;
    return &t->w;
}

void tw_free(struct gc_wave *w)
{
    struct tw *t = (struct tw *)w;

    if (!t)
        return;
    free(t->rec);
    free(t);
}

uint8_t *tw_rec(const struct gc_wave *w)
{
    return ((const struct tw *)w)->rec;
}

/* Distinct, deterministic bytes everywhere, so a read from the wrong place shows. */
void tw_pattern(struct gc_wave *w, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;

    for (uint64_t i = 0; i < w->record_size; i++) {
        x = x * 1103515245u + 12345u;
        tw_rec(w)[i] = (uint8_t)(x >> 16);
    }
}

static uint8_t *at(const struct gc_wave *w, const uint8_t *p)
{
    return tw_rec(w) + (p - tw_rec(w));
}

void tw_hwreg(struct gc_wave *w, uint32_t slot, uint32_t v)
{
    gc_le32_put(at(w, w->hwreg) + 4 * slot, v);
}

void tw_ttmp(struct gc_wave *w, uint32_t i, uint32_t v)
{
    gc_le32_put(at(w, w->ttmp) + 4 * i, v);
}

void tw_sgpr(struct gc_wave *w, uint32_t i, uint32_t v)
{
    gc_le32_put(at(w, w->sgpr) + 4 * i, v);
}

static const struct gc_arch *arch(const char *name)
{
    const struct gc_arch *a = gc_arch_by_name(name);

    assert_non_null(a);
    return a;
}

/* A zeroed wave of the target's default shape. */
static struct gc_wave *wave_for(const struct gc_arch *a)
{
    uint32_t sgprs = a->cwsr->sgpr_fixed ? a->cwsr->sgpr_fixed : 48;

    return tw_new(a->default_wave_size, 8, a->max_accvgprs ? 8 : 0, 0, sgprs, 0, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Stop reasons                                                                                */
/* ------------------------------------------------------------------------------------------ */

#define STOPPED (1u << 30) /* ttmp6[30] */

static void test_stop_not_stopped(void **state)
{
    (void)state;
    for (size_t i = 0; i < gc_arch_count(); i++) {
        const struct gc_arch *a = &gc_arch_table[i];
        struct gc_wave *w = wave_for(a);

        /* Every exception flag and trap id set, but the trap handler did not stop the wave. */
        for (uint32_t s = 0; s < 16; s++)
            tw_hwreg(w, s, 0xffffffffu);
        tw_ttmp(w, 6, 0xffffffffu & ~STOPPED);
        assert_false(gc_wave_trap_stopped(a, w));
        assert_int_equal(gc_wave_stop_reasons(a, w), GC_STOP_NONE);
        tw_ttmp(w, 6, STOPPED);
        assert_true(gc_wave_trap_stopped(a, w));
        tw_free(w);
    }
    assert_int_equal(gc_wave_stop_reasons(NULL, NULL), GC_STOP_NONE);
    assert_false(gc_wave_trap_stopped(NULL, NULL));
}

/* Each rule of each row fires alone, with its gate, and not without it. */
static void test_stop_each_rule(void **state)
{
    (void)state;
    for (size_t i = 0; i < gc_arch_count(); i++) {
        const struct gc_arch *a = &gc_arch_table[i];

        for (uint32_t k = 0; k < a->hwreg->nstop_rules; k++) {
            const struct gc_stop_rule *r = &a->hwreg->stop_rules[k];
            struct gc_wave *w = wave_for(a);
            uint32_t slots[16] = { 0 };

            tw_ttmp(w, 6, STOPPED);
            slots[r->when.slot] |= 1u << r->when.bit;
            if (r->gate.slot != GC_HWREG_NO_SLOT) {
                for (uint32_t s = 0; s < 16; s++)
                    tw_hwreg(w, s, slots[s]);
                assert_int_equal(gc_wave_stop_reasons(a, w) & r->reason, 0);
                slots[r->gate.slot] |= 1u << r->gate.bit;
            }
            for (uint32_t s = 0; s < 16; s++)
                tw_hwreg(w, s, slots[s]);
            assert_int_equal(gc_wave_stop_reasons(a, w), r->reason);
            if (r->unless.slot != GC_HWREG_NO_SLOT) {
                tw_hwreg(w, r->unless.slot, slots[r->unless.slot] | 1u << r->unless.bit);
                assert_int_equal(gc_wave_stop_reasons(a, w) & r->reason, 0);
            }
            tw_free(w);
        }
    }
}

/* The §13 table spelled out on gfx90a (TRAPSTS slot 6, MODE slot 9). */
static void test_stop_gfx9(void **state)
{
    static const struct {
        uint32_t trapsts, mode, reasons;
    } cases[] = {
        { 1u << 0, 1u << 12, GC_STOP_FP_INVALID_OPERATION },
        { 1u << 1, 1u << 13, GC_STOP_FP_INPUT_DENORMAL },
        { 1u << 2, 1u << 14, GC_STOP_FP_DIVIDE_BY_0 },
        { 1u << 3, 1u << 15, GC_STOP_FP_OVERFLOW },
        { 1u << 4, 1u << 16, GC_STOP_FP_UNDERFLOW },
        { 1u << 5, 1u << 17, GC_STOP_FP_INEXACT },
        { 1u << 6, 1u << 18, GC_STOP_INT_DIVIDE_BY_0 },
        { 1u << 0, 0, GC_STOP_NONE }, /* MODE gating */
        { 0x7f, 0, GC_STOP_NONE },
        { 1u << 0, 0xffffffffu & ~(1u << 12), GC_STOP_NONE },
        { 1u << 8, 0, GC_STOP_ADDRESS_ERROR },
        { 1u << 28, 0, GC_STOP_MEMORY_VIOLATION },
        { (1u << 28) | (1u << 8), 0, GC_STOP_MEMORY_VIOLATION }, /* precedence */
        { 1u << 11, 0, GC_STOP_ILLEGAL_INSTRUCTION },
        { 1u << 7, 1u << 19, GC_STOP_WATCHPOINT },
        { 1u << 12, 1u << 19, GC_STOP_WATCHPOINT },
        { 1u << 14, 1u << 19, GC_STOP_WATCHPOINT },
        { 1u << 13, 0, GC_STOP_NONE },
        { 1u << 10, 0, GC_STOP_NONE }, /* save_ctx is no stop reason */
        { 1u << 23, 0, GC_STOP_NONE }, /* wave_begin exists on gfx940 only */
        { (1u << 2) | (1u << 11) | (1u << 8), 1u << 14,
          GC_STOP_FP_DIVIDE_BY_0 | GC_STOP_ILLEGAL_INSTRUCTION | GC_STOP_ADDRESS_ERROR },
    };
    const struct gc_arch *a = arch("gfx90a");

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, STOPPED);
        tw_hwreg(w, 6, cases[i].trapsts);
        tw_hwreg(w, 9, cases[i].mode);
        assert_int_equal(gc_wave_stop_reasons(a, w), cases[i].reasons);
        tw_free(w);
    }
}

/* gfx940 events at 22-25, gfx11's at 16-20 (MODE in slot 8 there). */
static void test_stop_events(void **state)
{
    static const struct {
        const char *arch;
        uint32_t trapsts, reasons;
    } cases[] = {
        { "gfx942", 1u << 22, GC_STOP_NONE }, /* host_trap */
        { "gfx942", 1u << 23, GC_STOP_TRAP },
        { "gfx942", 1u << 24, GC_STOP_TRAP },
        { "gfx942", 1u << 25, GC_STOP_SINGLE_STEP },
        { "gfx942", 1u << 17, GC_STOP_NONE },
        { "gfx1100", 1u << 16, GC_STOP_NONE }, /* host_trap */
        { "gfx1100", 1u << 17, GC_STOP_TRAP },
        { "gfx1100", 1u << 18, GC_STOP_TRAP },
        { "gfx1100", 1u << 19, GC_STOP_NONE }, /* perf_snapshot */
        { "gfx1100", 1u << 20, GC_STOP_SINGLE_STEP },
        { "gfx1100", 1u << 25, GC_STOP_NONE },
        { "gfx1030", 1u << 17, GC_STOP_NONE },
        { "gfx1030", 1u << 20, GC_STOP_NONE },
        { "gfx1030", (1u << 28) | (1u << 8), GC_STOP_MEMORY_VIOLATION },
        { "gfx1100", (1u << 28) | (1u << 8), GC_STOP_MEMORY_VIOLATION },
        { "gfx942", (1u << 28) | (1u << 8), GC_STOP_MEMORY_VIOLATION },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct gc_arch *a = arch(cases[i].arch);
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, STOPPED);
        tw_hwreg(w, 6, cases[i].trapsts);
        assert_int_equal(gc_wave_stop_reasons(a, w), cases[i].reasons);
        tw_free(w);
    }
    /* gfx10/11 MODE is slot 8: the FP enable is read there. */
    {
        const struct gc_arch *a = arch("gfx1100");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, STOPPED);
        tw_hwreg(w, 6, 1u << 2);
        tw_hwreg(w, 9, 1u << 14); /* flat_scratch_lo: no effect */
        assert_int_equal(gc_wave_stop_reasons(a, w), GC_STOP_NONE);
        tw_hwreg(w, 8, 1u << 14);
        assert_int_equal(gc_wave_stop_reasons(a, w), GC_STOP_FP_DIVIDE_BY_0);
        tw_free(w);
    }
}

/* gfx12: EXCP_FLAG_USER (slot 11) gated by TRAP_CTRL (12); EXCP_FLAG_PRIV (6). */
static void test_stop_gfx12(void **state)
{
    static const struct {
        uint32_t priv, user, ctrl, reasons;
    } cases[] = {
        { 1u << 4, 0, 0, GC_STOP_ADDRESS_ERROR }, /* mem_viol, as verified on gfx1201 */
        { 1u << 12, 0, 0, GC_STOP_MEMORY_VIOLATION },
        { (1u << 12) | (1u << 4), 0, 0, GC_STOP_MEMORY_VIOLATION },
        { 1u << 6, 0, 0, GC_STOP_ILLEGAL_INSTRUCTION },
        { 0, 1u << 0, 1u << 0, GC_STOP_FP_INVALID_OPERATION },
        { 0, 1u << 0, 0, GC_STOP_NONE },
        { 0, 1u << 6, 1u << 6, GC_STOP_INT_DIVIDE_BY_0 },
        { 0, 1u << 3, 1u << 3, GC_STOP_FP_OVERFLOW },
        { 1u << 2, 0, 1u << 7, GC_STOP_WATCHPOINT },
        { 1u << 2, 0, 0, GC_STOP_NONE },
        { 1u << 7, 0, 0, GC_STOP_NONE }, /* host_trap */
        { 1u << 8, 0, 0, GC_STOP_TRAP },
        { 1u << 9, 0, 0, GC_STOP_TRAP },
        { 1u << 11, 0, 0, GC_STOP_SINGLE_STEP },
        { 1u << 5, 0, 0, GC_STOP_NONE }, /* save_context */
    };
    const struct gc_arch *a = arch("gfx1201");

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, STOPPED);
        tw_hwreg(w, 6, cases[i].priv);
        tw_hwreg(w, 11, cases[i].user);
        tw_hwreg(w, 12, cases[i].ctrl);
        /* gfx12's MODE (slot 8) no longer enables anything. */
        tw_hwreg(w, 8, 0xffffffffu);
        assert_int_equal(gc_wave_stop_reasons(a, w), cases[i].reasons);
        tw_free(w);
    }
}

static void test_stop_trap_ids(void **state)
{
    static const struct {
        uint32_t id, reason;
    } cases[] = {
        { 0, GC_STOP_NONE },       { 1, GC_STOP_BREAKPOINT }, { 2, GC_STOP_ASSERT_TRAP },
        { 3, GC_STOP_DEBUG_TRAP }, { 4, GC_STOP_TRAP },       { 7, GC_STOP_TRAP },
        { 15, GC_STOP_TRAP },
    };
    static const char *const archs[] = { "gfx906", "gfx942", "gfx1030", "gfx1100", "gfx1201" };

    (void)state;
    for (size_t k = 0; k < sizeof(archs) / sizeof(archs[0]); k++) {
        const struct gc_arch *a = arch(archs[k]);

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            struct gc_wave *w = wave_for(a);

            /* ttmp6[28:25] is the saved trap id; the other bits must not matter. */
            tw_ttmp(w, 6, STOPPED | (1u << 29) | cases[i].id << 25 | 0x1ffffffu);
            assert_int_equal(gc_wave_stop_reasons(a, w), cases[i].reason);
            /* Combined with an exception. */
            tw_hwreg(w, 6, a->family == GC_FAMILY_GFX12 ? 1u << 6 : 1u << 11);
            assert_int_equal(gc_wave_stop_reasons(a, w),
                             cases[i].reason | GC_STOP_ILLEGAL_INSTRUCTION);
            tw_free(w);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* PC and exec                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/*
 * What AMD's library keeps of a trap-stopped assert (trap id 2) once it has taken the wave
 * over at attach (wave_t::update): without SPI TTMP setup only a wave whose status carries the
 * trap handler's skip-export marker (status bit 18, r_version >= 10) keeps ttmp6; gfx940 and
 * gfx12 also check their own "trap handler initialised" marks (ttmp11[31], ttmp8[31]).
 */
static void test_stop_attach(void **state)
{
    static const struct {
        const char *target;
        uint32_t status_slot; /* where skip_export (bit 18) lives */
        int mark_ttmp;        /* -1: no mark; else the TTMP whose bit 31 is the mark */
        uint32_t spi, r_version, skip_export, mark;
        int kept;             /* 1: ASSERT_TRAP and stopped; 0: NONE, not stopped */
    } cases[] = {
        { "gfx90a", 5, -1, 1, 10, 0, 0, 1 },   { "gfx90a", 5, -1, 0, 10, 1, 0, 1 },
        { "gfx90a", 5, -1, 0, 10, 0, 0, 0 },   { "gfx90a", 5, -1, 0, 9, 1, 0, 0 },
        { "gfx1012", 5, -1, 1, 9, 0, 0, 1 },   { "gfx1012", 5, -1, 0, 10, 1, 0, 1 },
        { "gfx1012", 5, -1, 0, 10, 0, 0, 0 },  { "gfx1100", 5, -1, 0, 12, 0, 0, 0 },
        { "gfx1100", 5, -1, 0, 12, 1, 0, 1 },  { "gfx942", 5, 11, 1, 10, 0, 1, 1 },
        { "gfx942", 5, 11, 1, 10, 1, 0, 1 },   { "gfx942", 5, 11, 1, 10, 0, 0, 0 },
        { "gfx942", 5, 11, 0, 10, 1, 1, 1 },   { "gfx942", 5, 11, 0, 10, 0, 1, 0 },
        { "gfx942", 5, 11, 0, 8, 1, 1, 0 },    { "gfx1201", 13, 8, 1, 10, 0, 1, 1 },
        { "gfx1201", 13, 8, 1, 10, 1, 0, 0 },  { "gfx1201", 13, 8, 0, 10, 1, 1, 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct gc_arch *a = gc_arch_by_name(cases[i].target);
        const struct gc_wave_env env = { cases[i].r_version, cases[i].spi };
        struct gc_wave *w;
        struct gc_wave_stop st;

        assert_non_null(a);
        w = wave_for(a);
        tw_ttmp(w, 6, STOPPED | 2u << 25 | 5u /* packet index */);
        tw_ttmp(w, 7, 0x1000u);   /* gfx9/gfx10 park: the real PC */
        tw_ttmp(w, 11, 0x8000003fu); /* wave number 63 (gfx9), mark (gfx940) */
        tw_hwreg(w, 1, 0x2000u);  /* pc_lo: the park address */
        tw_hwreg(w, cases[i].status_slot, (cases[i].skip_export ? 1u << 18 : 0) | 1u << 13);
        tw_ttmp(w, 8, cases[i].mark_ttmp == 8 && cases[i].mark ? 1u << 31 : 0x77u);
        if (cases[i].mark_ttmp == 11 && !cases[i].mark)
            tw_ttmp(w, 11, 0x3fu);
        assert_int_equal(gc_wave_stop_at_attach(a, w, &env, &st), GPUCORE_OK);
        if (st.stopped != (uint32_t)cases[i].kept ||
            st.reasons != (cases[i].kept ? GC_STOP_ASSERT_TRAP : GC_STOP_NONE))
            fail_msg("case %zu (%s): stopped %u reasons 0x%x", i, cases[i].target, st.stopped,
                     st.reasons);
        /* The saved TTMPs are what association reads; they are untouched. */
        assert_int_equal(gc_wave_ttmp(w, 6), STOPPED | 2u << 25 | 5u);
        /* gfx9 line without SPI setup: ttmp8-10 and the wave number go; ttmp6[31] says so. */
        if (strcmp(cases[i].target, "gfx90a") == 0 && !cases[i].spi) {
            assert_int_equal(st.ttmp[8], 0);
            assert_int_equal(st.ttmp[11], 0x80000000u);
            assert_int_equal(st.ttmp[6] >> 31, cases[i].r_version >= 10);
        }
        /* gfx12 records nothing in ttmp6[31]. */
        if (strcmp(cases[i].target, "gfx1201") == 0)
            assert_int_equal(st.ttmp[6] >> 31, 0);
        /* gfx1012 parks: a wave still stopped answers the parked PC, a cleared one the slot. */
        if (strcmp(cases[i].target, "gfx1012") == 0)
            assert_int_equal(st.pc, cases[i].kept ? 0x1000u : 0x2000u);
        tw_free(w);
    }
    assert_int_equal(gc_wave_stop_at_attach(NULL, NULL, NULL, NULL), GPUCORE_E_INVAL);
}

/* Address watches: the triggered ones under their one enable (gfx9 TRAPSTS 7, 12-14, MODE 19;
   gfx12 EXCP_FLAG_PRIV 0-3, TRAP_CTRL 7). */
static void test_stop_watchpoints(void **state)
{
    static const struct {
        const char *target;
        uint32_t flags_slot, en_slot, en_bit, bits[4];
    } cases[] = {
        { "gfx90a", 6, 9, 19, { 7, 12, 13, 14 } },
        { "gfx1030", 6, 8, 19, { 7, 12, 13, 14 } },
        { "gfx1201", 6, 12, 7, { 0, 1, 2, 3 } },
    };
    const struct gc_wave_env env = { 10, 1 };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct gc_arch *a = gc_arch_by_name(cases[i].target);
        struct gc_wave *w = wave_for(a);
        struct gc_wave_stop st;

        tw_ttmp(w, 6, STOPPED);
        tw_ttmp(w, 8, 1u << 31);
        tw_ttmp(w, 11, 1u << 31);
        tw_hwreg(w, cases[i].flags_slot, 1u << cases[i].bits[1] | 1u << cases[i].bits[3]);
        assert_int_equal(gc_wave_stop_at_attach(a, w, &env, &st), GPUCORE_OK);
        assert_int_equal(st.reasons, GC_STOP_NONE);
        assert_int_equal(st.watchpoints, 0);
        tw_hwreg(w, cases[i].en_slot, 1u << cases[i].en_bit);
        assert_int_equal(gc_wave_stop_at_attach(a, w, &env, &st), GPUCORE_OK);
        assert_int_equal(st.reasons, GC_STOP_WATCHPOINT);
        assert_int_equal(st.watchpoints, 0xa);
        tw_free(w);
    }
}

static void test_pc(void **state)
{
    /* parks: what the PC read must use for a trap-stopped wave at r_version 8, 9, 10. */
    static const struct {
        const char *arch;
        int parks[3];
        uint32_t lo_ttmp; /* ttmp holding PC[31:0] when parked */
    } cases[] = {
        { "gfx900", { 1, 1, 1 }, 7 },   { "gfx908", { 1, 1, 1 }, 7 },
        { "gfx90a", { 1, 1, 1 }, 7 },   { "gfx940", { 0, 0, 0 }, 0 },
        { "gfx942", { 0, 0, 0 }, 0 },   { "gfx1010", { 1, 1, 1 }, 7 },
        { "gfx1012", { 1, 1, 1 }, 7 },  { "gfx1030", { 0, 0, 0 }, 0 },
        { "gfx1032", { 0, 0, 0 }, 0 },  { "gfx1100", { 0, 1, 1 }, 7 },
        { "gfx1102", { 0, 1, 1 }, 7 },  { "gfx1200", { 0, 1, 1 }, 10 },
        { "gfx1201", { 0, 1, 1 }, 10 },
    };
    const uint64_t hw_pc = 0x00007f0012345600ull; /* the park address, or the real PC */
    const uint64_t real_pc = 0x0000abcd9876fe04ull;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct gc_arch *a = arch(cases[i].arch);

        for (uint32_t rv = 8; rv <= 10; rv++) {
            struct gc_wave *w = wave_for(a);
            int parks = cases[i].parks[rv - 8];

            tw_pattern(w, rv);
            tw_hwreg(w, 1, (uint32_t)hw_pc);
            tw_hwreg(w, 2, (uint32_t)(hw_pc >> 32));
            if (cases[i].lo_ttmp)
                tw_ttmp(w, cases[i].lo_ttmp, (uint32_t)real_pc);
            /* ttmp11[22:7] = PC[47:32]; keep the neighbouring bits busy. */
            tw_ttmp(w, 11, 0xff80007fu | (uint32_t)((real_pc >> 32) & 0xffff) << 7);
            assert_int_equal(gc_arch_parks_stopped_waves(a, rv), parks);

            /* Not stopped by the trap handler: the saved PC slots, parking or not. */
            tw_ttmp(w, 6, 0);
            assert_int_equal(gc_wave_pc(a, w, rv), hw_pc);
            tw_ttmp(w, 6, STOPPED);
            assert_int_equal(gc_wave_pc(a, w, rv), parks ? real_pc : hw_pc);
            tw_free(w);
        }
    }
    assert_int_equal(gc_wave_pc(NULL, NULL, 9), 0);
    assert_false(gc_arch_parks_stopped_waves(NULL, 9));
}

static void test_exec_mask(void **state)
{
    const struct gc_arch *a = arch("gfx1030");
    struct gc_wave *w32 = tw_new(32, 8, 0, 0, 128, 0, 0);
    struct gc_wave *w64 = tw_new(64, 8, 0, 0, 128, 0, 0);

    (void)state;
    tw_hwreg(w32, 3, 0x89abcdefu);
    tw_hwreg(w32, 4, 0x01234567u); /* stale upper half of a wave32 wave */
    tw_hwreg(w64, 3, 0x89abcdefu);
    tw_hwreg(w64, 4, 0x01234567u);
    assert_int_equal(gc_wave_exec_mask(a, w32), 0x89abcdefu);
    assert_int_equal(gc_wave_exec_mask(a, w64), 0x0123456789abcdefull);
    assert_int_equal(gc_wave_exec_mask(NULL, w64), 0);
    tw_free(w32);
    tw_free(w64);
}

/* ------------------------------------------------------------------------------------------ */
/* Dispatch association                                                                        */
/* ------------------------------------------------------------------------------------------ */

static void test_dispatch_index(void **state)
{
    const struct gc_wave_env env9 = { .r_version = 9, .spi_ttmps_setup = 1 };
    const struct gc_wave_env env10 = { .r_version = 10, .spi_ttmps_setup = 1 };
    const struct gc_wave_env nospi = { .r_version = 10, .spi_ttmps_setup = 0 };
    uint32_t idx;

    (void)state;
    /* gfx9 family (and gfx10/gfx11): ttmp6[24:0]. */
    {
        const struct gc_arch *a = arch("gfx90a");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, STOPPED | 0x1abcdefu);
        tw_ttmp(w, 11, 0xffffffffu);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env10, &idx), GPUCORE_OK);
        assert_int_equal(idx, 0x1abcdef);
        idx = 7;
        assert_int_equal(gc_wave_dispatch_index(a, w, &nospi, &idx), GPUCORE_E_UNAVAILABLE);
        assert_int_equal(idx, 7);
        /* ttmp6[31]: SPI did not set this wave up -- heeded from r_version 10 on. */
        tw_ttmp(w, 6, (1u << 31) | 0x15u);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env10, &idx), GPUCORE_E_UNAVAILABLE);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env9, &idx), GPUCORE_OK);
        assert_int_equal(idx, 0x15);
        assert_false(gc_wave_spi_ttmps_valid(a, w, &env10));
        assert_true(gc_wave_spi_ttmps_valid(a, w, &env9));
        assert_int_equal(gc_wave_dispatch_index(NULL, w, &env9, &idx), GPUCORE_E_INVAL);
        assert_int_equal(gc_wave_dispatch_index(a, w, NULL, &idx), GPUCORE_E_INVAL);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env9, NULL), GPUCORE_E_INVAL);
        tw_free(w);
    }
    /* gfx940: ttmp11[30:6]. */
    {
        const struct gc_arch *a = arch("gfx942");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, 0x1ffffffu);
        tw_ttmp(w, 11, (1u << 31) | 0x1234567u << 6 | 0x3f);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env10, &idx), GPUCORE_OK);
        assert_int_equal(idx, 0x1234567);
        tw_ttmp(w, 6, 1u << 31);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env10, &idx), GPUCORE_E_UNAVAILABLE);
        tw_free(w);
    }
    /* gfx12: ttmp8[24:0]. */
    {
        const struct gc_arch *a = arch("gfx1201");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 6, 0x1ffffffu);
        tw_ttmp(w, 8, 0xfe000000u | 0x0054321u);
        assert_int_equal(gc_wave_dispatch_index(a, w, &env10, &idx), GPUCORE_OK);
        assert_int_equal(idx, 0x54321);
        tw_free(w);
    }
    assert_int_equal(gc_arch_max_queue_packets(arch("gfx906")), 1u << 25);
    assert_int_equal(gc_arch_max_queue_packets(arch("gfx942")), 1u << 25);
    assert_int_equal(gc_arch_max_queue_packets(arch("gfx1201")), 1u << 25);
    assert_int_equal(gc_arch_max_queue_packets(NULL), 0);
}

static void test_packet_id(void **state)
{
    static const struct {
        uint64_t index, ring, read, write;
        gpucore_status_t st;
        uint64_t id;
    } cases[] = {
        { 0, 64, 0, 1, GPUCORE_OK, 0 }, /* one packet, as in §8.2 */
        { 0, 1024, 0, 1, GPUCORE_OK, 0 },
        { 3, 1024, 35, 40, GPUCORE_OK, 35 }, /* 35 % 16 == 3 */
        { 7, 1024, 35, 40, GPUCORE_OK, 39 },
        { 8, 1024, 35, 40, GPUCORE_E_CORRUPT, 0 },  /* == write_id */
        { 2, 1024, 35, 40, GPUCORE_E_CORRUPT, 0 },  /* retired, ring not wrapped */
        { 15, 1024, 30, 36, GPUCORE_OK, 31 },       /* before the wrap */
        { 2, 1024, 30, 36, GPUCORE_OK, 34 },        /* after the wrap: next lap */
        { 4, 1024, 30, 36, GPUCORE_E_CORRUPT, 0 },  /* next lap, == write_id */
        { 13, 1024, 30, 36, GPUCORE_E_CORRUPT, 0 }, /* below read_id */
        { 0, 1024, 16, 32, GPUCORE_OK, 16 },        /* full ring */
        { 2, 1024, 20, 36, GPUCORE_OK, 34 },        /* full ring, wrapped (>=) */
        { 3, 1024, 20, 36, GPUCORE_OK, 35 },
        { 4, 1024, 20, 36, GPUCORE_OK, 20 },
        { 16, 1024, 0, 100, GPUCORE_E_CORRUPT, 0 }, /* index * 64 >= ring_size */
        { 1u << 30, 1024, 0, 100, GPUCORE_E_CORRUPT, 0 },
        { 0, 0, 0, 1, GPUCORE_E_INVAL, 0 },
        { 0, 100, 0, 1, GPUCORE_E_INVAL, 0 },    /* not whole packets */
        { 5, 1024, 5, 5, GPUCORE_E_CORRUPT, 0 }, /* empty window */
        { 1, 1u << 20, 0x100000000ull + 16383, 0x100000000ull + 16384 + 2, GPUCORE_OK,
          0x100000000ull + 16385 }, /* large ids, wrapped */
        { 0, 128, UINT64_MAX - 1, UINT64_MAX, GPUCORE_OK, UINT64_MAX - 1 },
        { 0, 128, UINT64_MAX, UINT64_MAX, GPUCORE_E_CORRUPT, 0 }, /* next lap would wrap */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t id = 0xdead;

        print_message("  case %zu\n", i);
        assert_int_equal(
                gc_packet_id(cases[i].index, cases[i].ring, cases[i].read, cases[i].write, &id),
                cases[i].st);
        assert_int_equal(id, cases[i].st == GPUCORE_OK ? cases[i].id : 0xdead);
    }
    assert_int_equal(gc_packet_id(0, 64, 0, 1, NULL), GPUCORE_E_INVAL);
}

/* ------------------------------------------------------------------------------------------ */
/* Workgroup ids and wave numbers                                                              */
/* ------------------------------------------------------------------------------------------ */

static void test_workgroup_ids(void **state)
{
    const struct gc_wave_env env = { .r_version = 10, .spi_ttmps_setup = 1 };
    const struct gc_wave_env nospi = { .r_version = 10, .spi_ttmps_setup = 0 };
    uint32_t id[3], n;

    (void)state;
    {
        const struct gc_arch *a = arch("gfx1030");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 8, 11);
        tw_ttmp(w, 9, 22);
        tw_ttmp(w, 10, 33);
        tw_ttmp(w, 11, 0xffffffc0u | 5);
        assert_int_equal(gc_wave_workgroup_id(a, w, &env, id), GPUCORE_OK);
        assert_int_equal(id[0], 11);
        assert_int_equal(id[1], 22);
        assert_int_equal(id[2], 33);
        assert_int_equal(gc_wave_number_in_group(a, w, &env, &n), GPUCORE_OK);
        assert_int_equal(n, 5);
        assert_int_equal(gc_wave_workgroup_id(a, w, &nospi, id), GPUCORE_E_UNAVAILABLE);
        assert_int_equal(gc_wave_number_in_group(a, w, &nospi, &n), GPUCORE_E_UNAVAILABLE);
        tw_ttmp(w, 6, 1u << 31);
        assert_int_equal(gc_wave_workgroup_id(a, w, &env, id), GPUCORE_E_UNAVAILABLE);
        assert_int_equal(gc_wave_workgroup_id(a, w, NULL, id), GPUCORE_E_INVAL);
        tw_free(w);
    }
    {
        const struct gc_arch *a = arch("gfx1201");
        struct gc_wave *w = wave_for(a);

        /* x = ttmp9, y = ttmp7[15:0], z = ttmp7[31:16], valid iff ttmp8[30];
           wave number ttmp8[29:25]. */
        tw_ttmp(w, 9, 0x12345);
        tw_ttmp(w, 7, 0x00070003u);
        tw_ttmp(w, 8, (1u << 30) | 19u << 25 | 0x1ffffffu);
        tw_ttmp(w, 10, 0xeeeeeeeeu);
        assert_int_equal(gc_wave_workgroup_id(a, w, &env, id), GPUCORE_OK);
        assert_int_equal(id[0], 0x12345);
        assert_int_equal(id[1], 3);
        assert_int_equal(id[2], 7);
        assert_int_equal(gc_wave_number_in_group(a, w, &env, &n), GPUCORE_OK);
        assert_int_equal(n, 19);
        tw_ttmp(w, 8, 19u << 25);
        assert_int_equal(gc_wave_workgroup_id(a, w, &env, id), GPUCORE_OK);
        assert_int_equal(id[0], 0x12345);
        assert_int_equal(id[1], 0);
        assert_int_equal(id[2], 0);
        tw_free(w);
    }
}

static void test_debugger_id(void **state)
{
    uint64_t id;

    (void)state;
    {
        const struct gc_arch *a = arch("gfx906");
        struct gc_wave *w = wave_for(a);

        assert_int_equal(gc_wave_debugger_id(a, w, &id), GPUCORE_E_UNAVAILABLE);
        tw_ttmp(w, 4, 0x89abcdefu);
        tw_ttmp(w, 5, 0x1234);
        assert_int_equal(gc_wave_debugger_id(a, w, &id), GPUCORE_OK);
        assert_int_equal(id, 0x123489abcdefull);
        tw_free(w);
    }
    {
        const struct gc_arch *a = arch("gfx942");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 4, 7);
        assert_int_equal(gc_wave_debugger_id(a, w, &id), GPUCORE_E_UNAVAILABLE);
        tw_ttmp(w, 11, 1u << 31);
        assert_int_equal(gc_wave_debugger_id(a, w, &id), GPUCORE_OK);
        assert_int_equal(id, 7);
        tw_free(w);
    }
    {
        const struct gc_arch *a = arch("gfx1201");
        struct gc_wave *w = wave_for(a);

        tw_ttmp(w, 4, 9);
        assert_int_equal(gc_wave_debugger_id(a, w, &id), GPUCORE_E_UNAVAILABLE);
        tw_ttmp(w, 8, 1u << 31);
        assert_int_equal(gc_wave_debugger_id(a, w, &id), GPUCORE_OK);
        assert_int_equal(id, 9);
        assert_int_equal(gc_wave_debugger_id(a, w, NULL), GPUCORE_E_INVAL);
        tw_free(w);
    }
}

static void test_hwreg_slot_lookup(void **state)
{
    (void)state;
    assert_int_equal(gc_hwreg_slot(arch("gfx90a")->hwreg, "mode"), 9);
    assert_int_equal(gc_hwreg_slot(arch("gfx90a")->hwreg, "xnack_mask_hi"), 8);
    assert_int_equal(gc_hwreg_slot(arch("gfx90a")->hwreg, "flat_scratch_lo"), -1);
    assert_int_equal(gc_hwreg_slot(arch("gfx942")->hwreg, "trapsts"), 6);
    assert_int_equal(gc_hwreg_slot(arch("gfx1030")->hwreg, "mode"), 8);
    assert_int_equal(gc_hwreg_slot(arch("gfx1100")->hwreg, "flat_scratch_hi"), 10);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, "state_priv"), 5);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, "excp_flag_priv"), 6);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, "excp_flag_user"), 11);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, "trap_ctrl"), 12);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, "status"), 13);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, "trapsts"), -1);
    assert_int_equal(gc_hwreg_slot(arch("gfx1201")->hwreg, ""), -1);
}

/* ------------------------------------------------------------------------------------------ */
/* Scratch                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static void test_scratch_slot(void **state)
{
    uint64_t off, size;

    (void)state;
    /* gfx9/gfx10: waves [11:0] over all SEs, wavesize [24:12] KiB. */
    {
        const struct gc_arch *a = arch("gfx90a");
        uint32_t tmpring = 32u | 4u << 12;

        assert_int_equal(gc_scratch_slot(a, tmpring, 2, 5, 4, &off, &size), GPUCORE_OK);
        assert_int_equal(size, 4096);
        assert_int_equal(off, ((32 / 4) * 2 + 5) * 4096ull);
        /* Bit 25 is outside gfx9's wavesize field. */
        assert_int_equal(gc_scratch_slot(a, tmpring | 1u << 25, 0, 1, 4, &off, &size), GPUCORE_OK);
        assert_int_equal(size, 4096);
        assert_int_equal(off, 4096);
        /* 30 waves do not split over 4 SEs: private memory disabled, outputs untouched. */
        off = size = 77;
        assert_int_equal(gc_scratch_slot(a, 30u | 4u << 12, 1, 1, 4, &off, &size),
                         GPUCORE_E_UNAVAILABLE);
        assert_int_equal(off, 77);
        assert_int_equal(size, 77);
        assert_int_equal(gc_scratch_slot(a, tmpring, 1, 1, 0, &off, &size), GPUCORE_E_INVAL);
        assert_int_equal(gc_scratch_slot(a, tmpring, 1, 1, 4, NULL, &size), GPUCORE_E_INVAL);
    }
    {
        const struct gc_arch *a = arch("gfx1030");

        assert_int_equal(gc_scratch_slot(a, 64u | 2u << 12, 1, 3, 2, &off, &size), GPUCORE_OK);
        assert_int_equal(size, 2048);
        assert_int_equal(off, (32 * 1 + 3) * 2048ull);
    }
    /* gfx11+: waves per SE, wavesize [26:12] in 256-byte units. */
    {
        static const char *const archs[] = { "gfx1100", "gfx1201" };

        for (size_t i = 0; i < 2; i++) {
            const struct gc_arch *a = arch(archs[i]);

            assert_int_equal(gc_scratch_slot(a, 16u | 64u << 12, 3, 7, 6, &off, &size), GPUCORE_OK);
            assert_int_equal(size, 64 * 256);
            assert_int_equal(off, (16 * 3 + 7) * 64 * 256ull);
            /* Waves not divisible by the SE count is fine here. */
            assert_int_equal(gc_scratch_slot(a, 15u | 1u << 26, 0, 1, 4, &off, &size), GPUCORE_OK);
            assert_int_equal(size, (1u << 14) * 256ull);
            assert_int_equal(off, (1u << 14) * 256ull);
        }
    }
}

static void test_private_swizzle(void **state)
{
    uint64_t off;
    uint32_t contig;

    (void)state;
    assert_int_equal(gc_private_lane_offset(0, 0, 64, 1 << 20, &off, &contig), GPUCORE_OK);
    assert_int_equal(off, 0);
    assert_int_equal(contig, 4);
    assert_int_equal(gc_private_lane_offset(5, 3, 64, 1 << 20, &off, &contig), GPUCORE_OK);
    assert_int_equal(off, 1 * 64 * 4 + 3 * 4 + 1);
    assert_int_equal(contig, 3);
    assert_int_equal(gc_private_lane_offset(7, 31, 32, 1 << 20, &off, &contig), GPUCORE_OK);
    assert_int_equal(off, 1 * 32 * 4 + 31 * 4 + 3);
    assert_int_equal(contig, 1);
    assert_int_equal(gc_private_lane_offset(1000, 63, 64, 1 << 20, &off, &contig), GPUCORE_OK);
    assert_int_equal(off, 250 * 256 + 63 * 4);
    /* Consecutive bytes of one lane: within a dword, then jump a whole lane row. */
    assert_int_equal(gc_private_lane_offset(4, 2, 32, 1 << 20, &off, &contig), GPUCORE_OK);
    assert_int_equal(off, 128 + 8);
    assert_int_equal(gc_private_lane_offset(0, 64, 64, 1 << 20, &off, &contig), GPUCORE_E_INVAL);
    assert_int_equal(gc_private_lane_offset(0, 0, 16, 1 << 20, &off, &contig), GPUCORE_E_INVAL);
    assert_int_equal(gc_private_lane_offset(0, 0, 64, 1 << 20, NULL, &contig), GPUCORE_E_INVAL);
    /* The slot bounds the offset. */
    assert_int_equal(gc_private_lane_offset(4, 0, 64, 256, &off, &contig), GPUCORE_E_LIMIT);
    assert_int_equal(gc_private_lane_offset(3, 63, 64, 256, &off, &contig), GPUCORE_OK);
    assert_int_equal(off, 255);
    assert_int_equal(gc_private_lane_offset(UINT64_MAX, 0, 64, UINT64_MAX, &off, &contig),
                     GPUCORE_E_LIMIT);
    assert_int_equal(gc_private_wave_offset(100, 101, &off), GPUCORE_OK);
    assert_int_equal(off, 100);
    assert_int_equal(gc_private_wave_offset(101, 101, &off), GPUCORE_E_LIMIT);
    assert_int_equal(gc_private_wave_offset(1, 101, NULL), GPUCORE_E_INVAL);
    /* gc_private_lane_of inverts the swizzle, for every lane and byte of a few dwords. */
    for (uint32_t lanes = 32; lanes <= 64; lanes += 32) {
        for (uint32_t lane = 0; lane < lanes; lane++) {
            for (uint64_t a = 0; a < 64; a++) {
                uint32_t back_lane = 0;
                uint64_t back = 0;

                assert_int_equal(gc_private_lane_offset(a, lane, lanes, UINT64_MAX / 2, &off,
                                                        &contig),
                                 GPUCORE_OK);
                assert_int_equal(gc_private_lane_of(off, lanes, &back_lane, &back), GPUCORE_OK);
                assert_int_equal(back_lane, lane);
                assert_int_equal(back, a);
            }
        }
    }
    assert_int_equal(gc_private_lane_of(0, 48, &contig, &off), GPUCORE_E_INVAL);
    assert_int_equal(gc_private_lane_of(0, 64, NULL, &off), GPUCORE_E_INVAL);
}

/* ------------------------------------------------------------------------------------------ */
/* Address spaces                                                                              */
/* ------------------------------------------------------------------------------------------ */

static void test_address_spaces(void **state)
{
    static const struct {
        const char *name;
        uint32_t dwarf, bits;
        uint64_t null;
    } expect[] = {
        { "global", 0, 64, 0 },
        { "generic", 1, 64, 0 },
        { "local", 3, 32, 0xffffffffu },
        { "private_lane", 5, 32, 0xffffffffu },
        { "private_wave", 6, 32, 0xffffffffu },
    };
    size_t n;
    const struct gc_address_space *as = gc_address_spaces(&n);
    const struct gc_address_class *ac;

    (void)state;
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(as[i].id, (enum gc_aspace)i);
        assert_string_equal(as[i].name, expect[i].name);
        assert_int_equal(as[i].dwarf, expect[i].dwarf);
        assert_int_equal(as[i].address_bits, expect[i].bits);
        assert_int_equal(as[i].null_address, expect[i].null);
        assert_ptr_equal(gc_address_space_by_name(expect[i].name), &as[i]);
        assert_ptr_equal(gc_address_space_by_dwarf(expect[i].dwarf), &as[i]);
    }
    assert_null(gc_address_space_by_name("region")); /* not presented by 0.77 */
    assert_null(gc_address_space_by_dwarf(2));
    assert_null(gc_address_space_by_name(NULL));
    ac = gc_address_classes(&n);
    assert_int_equal(n, 5);
    assert_string_equal(ac[0].name, "none");
    assert_int_equal(ac[0].space, GC_ASPACE_GENERIC);
    assert_int_equal(ac[2].space, GC_ASPACE_GLOBAL);
    assert_int_equal(ac[3].space, GC_ASPACE_LOCAL);
    assert_int_equal(ac[4].space, GC_ASPACE_PRIVATE_LANE);
}

static void test_generic_lower(void **state)
{
    static const struct {
        uint64_t in;
        enum gc_aspace space;
        uint64_t out;
    } cases[] = {
        { 0x0001000012345678ull, GC_ASPACE_LOCAL, 0x12345678 },
        { 0x00010000ffffffffull, GC_ASPACE_LOCAL, 0xffffffff },
        { 0x0002000000000010ull, GC_ASPACE_PRIVATE_LANE, 0x10 },
        { 0x0001abcd00000010ull, GC_ASPACE_LOCAL, 0x10 }, /* bits 47:32 do not matter */
        { 0x0003000000000010ull, GC_ASPACE_GLOBAL, 0x0003000000000010ull },
        { 0x00007fff00001000ull, GC_ASPACE_GLOBAL, 0x00007fff00001000ull },
        { 0, GC_ASPACE_GLOBAL, 0 },
        { 0x1001000000000000ull, GC_ASPACE_GLOBAL, 0x1001000000000000ull },
    };
    enum gc_aspace space;
    uint64_t out;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(gc_generic_lower(cases[i].in, &space, &out), GPUCORE_OK);
        assert_int_equal(space, cases[i].space);
        assert_int_equal(out, cases[i].out);
    }
    assert_int_equal(gc_generic_lower(0, NULL, &out), GPUCORE_E_INVAL);
}

int test_arch_wave_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_not_stopped),
        cmocka_unit_test(test_stop_each_rule),
        cmocka_unit_test(test_stop_gfx9),
        cmocka_unit_test(test_stop_events),
        cmocka_unit_test(test_stop_gfx12),
        cmocka_unit_test(test_stop_trap_ids),
        cmocka_unit_test(test_stop_attach),
        cmocka_unit_test(test_stop_watchpoints),
        cmocka_unit_test(test_pc),
        cmocka_unit_test(test_exec_mask),
        cmocka_unit_test(test_dispatch_index),
        cmocka_unit_test(test_packet_id),
        cmocka_unit_test(test_workgroup_ids),
        cmocka_unit_test(test_debugger_id),
        cmocka_unit_test(test_hwreg_slot_lookup),
        cmocka_unit_test(test_scratch_slot),
        cmocka_unit_test(test_private_swizzle),
        cmocka_unit_test(test_address_spaces),
        cmocka_unit_test(test_generic_lower),
    };

    return cmocka_run_group_tests_name("arch: wave", tests, NULL, NULL);
}
