/* SPDX-License-Identifier: MIT */
/*
 * Behaviour of arch/arch_regs.c: the register lists AMD's library presents (the verified counts
 * of docs/cwsr-layout.md §7.1, names, order, DWARF numbers, classes), the SGPR aliases of §9, the
 * pseudo registers, and the type strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "arch_regs.h"
#include "cwsr.h"
#include "gc_le.h"
#include "wave.h"

int test_arch_regs_run(void);

struct gc_wave *tw_new(uint32_t lanes, uint32_t vgprs, uint32_t accvgprs, uint32_t shared,
                       uint32_t sgprs, uint32_t lds, int first_wave);
void tw_free(struct gc_wave *w);
uint8_t *tw_rec(const struct gc_wave *w);
void tw_pattern(struct gc_wave *w, uint32_t seed);
void tw_hwreg(struct gc_wave *w, uint32_t slot, uint32_t v);
void tw_ttmp(struct gc_wave *w, uint32_t i, uint32_t v);
void tw_sgpr(struct gc_wave *w, uint32_t i, uint32_t v);

static const struct gc_arch *arch(const char *name)
{
    const struct gc_arch *a = gc_arch_by_name(name);

    assert_non_null(a);
    return a;
}

static struct gc_reglist list_of(const struct gc_arch *a, const struct gc_wave *w)
{
    struct gc_reglist l = { 0 };

    assert_int_equal(gc_wave_register_list(a, w, &l), GPUCORE_OK);
    return l;
}

static const struct gc_reg *reg(const struct gc_reglist *l, const char *name)
{
    const struct gc_reg *r = gc_reglist_find(l, name);

    if (!r)
        print_error("register %s missing\n", name);
    assert_non_null(r);
    return r;
}

static uint32_t read32(const struct gc_arch *a, const struct gc_wave *w, const struct gc_reglist *l,
                       const char *name, uint32_t offset)
{
    uint8_t b[4];

    assert_int_equal(gc_reg_read(a, w, 10, reg(l, name), offset, b, 4), GPUCORE_OK);
    return gc_le32_get(b);
}

static uint64_t read64(const struct gc_arch *a, const struct gc_wave *w, const struct gc_reglist *l,
                       const char *name)
{
    uint8_t b[8];

    assert_int_equal(reg(l, name)->size, 8);
    assert_int_equal(gc_reg_read(a, w, 10, reg(l, name), 0, b, 8), GPUCORE_OK);
    return gc_le64_get(b);
}

/* ------------------------------------------------------------------------------------------ */
/* The verified counts (docs/cwsr-layout.md §7.1)                                                 */
/* ------------------------------------------------------------------------------------------ */

static void test_verified_counts(void **state)
{
    static const struct {
        const char *arch;
        uint32_t lanes, vgprs, acc, sgprs;
        uint64_t record; /* §7.1, without the gfx9 gap */
        size_t count;
    } cases[] = {
        { "gfx90a", 64, 8, 8, 48, 4992 - 64, 82 },
        { "gfx1030", 32, 8, 0, 128, 2176, 132 },
        { "gfx1100", 64, 8, 0, 128, 3200, 131 },
        { "gfx1201", 32, 8, 0, 128, 2176, 135 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct gc_arch *a = arch(cases[i].arch);
        struct gc_wave *w =
                tw_new(cases[i].lanes, cases[i].vgprs, cases[i].acc, 0, cases[i].sgprs, 512, 1);
        struct gc_reglist l = list_of(a, w);

        print_message("  %s: %zu registers\n", a->name, l.count);
        assert_int_equal(w->record_size, cases[i].record);
        assert_int_equal(l.count, cases[i].count);
        gc_reglist_done(&l);
        /* The LDS of a group leader does not change the list. */
        tw_free(w);
        w = tw_new(cases[i].lanes, cases[i].vgprs, cases[i].acc, 0, cases[i].sgprs, 0, 0);
        l = list_of(a, w);
        assert_int_equal(l.count, cases[i].count);
        gc_reglist_done(&l);
        tw_free(w);
    }
}

/* The whole gfx90a list, in order: vector, scalar, shadow, trap, then the named registers in
   AMD's register-number order. */
static void test_gfx90a_order(void **state)
{
    const struct gc_arch *a = arch("gfx90a");
    struct gc_wave *w = tw_new(64, 8, 8, 0, 48, 0, 0);
    struct gc_reglist l = list_of(a, w);
    static const char *const tail[] = { "m0",           "pc",     "mode", "trapsts", "xnack_mask",
                                        "flat_scratch", "status", "exec", "vcc" };
    char expect[96][GC_REG_NAME_MAX];
    size_t n = 0;

    (void)state;
    for (int i = 0; i < 8; i++)
        snprintf(expect[n++], GC_REG_NAME_MAX, "v%d", i);
    for (int i = 0; i < 8; i++)
        snprintf(expect[n++], GC_REG_NAME_MAX, "a%d", i);
    for (int i = 0; i < 48; i++) /* s0..s41, then the shadow s42..s47 */
        snprintf(expect[n++], GC_REG_NAME_MAX, "s%d", i);
    for (int i = 4; i <= 11; i++)
        snprintf(expect[n++], GC_REG_NAME_MAX, "ttmp%d", i);
    snprintf(expect[n++], GC_REG_NAME_MAX, "ttmp13");
    for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
        snprintf(expect[n++], GC_REG_NAME_MAX, "%s", tail[i]);
    assert_int_equal(l.count, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(l.regs[i].name, expect[i]);
    gc_reglist_done(&l);
    tw_free(w);
}

/* ------------------------------------------------------------------------------------------ */
/* gfx9: DWARF, classes, the aliased SGPRs                                                     */
/* ------------------------------------------------------------------------------------------ */

static void test_gfx9_registers(void **state)
{
    const struct gc_arch *a = arch("gfx90a");
    struct gc_wave *w = tw_new(64, 8, 8, 0, 48, 0, 0);
    struct gc_reglist l;

    (void)state;
    tw_pattern(w, 1);
    for (uint32_t i = 0; i < 48; i++)
        tw_sgpr(w, i, 0x5000 + i);
    for (uint32_t s = 0; s < 16; s++)
        tw_hwreg(w, s, 0x9000 + s);
    l = list_of(a, w);

    assert_int_equal(reg(&l, "v0")->dwarf, 2560);
    assert_int_equal(reg(&l, "v7")->dwarf, 2567);
    assert_int_equal(reg(&l, "a0")->dwarf, 3072);
    assert_int_equal(reg(&l, "a7")->dwarf, 3079);
    assert_int_equal(reg(&l, "s0")->dwarf, 32);
    assert_int_equal(reg(&l, "s41")->dwarf, 73);
    assert_int_equal(reg(&l, "s42")->dwarf, -1); /* shadow */
    assert_int_equal(reg(&l, "pc")->dwarf, 16);
    assert_int_equal(reg(&l, "exec")->dwarf, 17);
    assert_int_equal(reg(&l, "vcc")->dwarf, 768);
    assert_int_equal(reg(&l, "status")->dwarf, 128);
    assert_int_equal(reg(&l, "m0")->dwarf, -1);
    assert_int_equal(reg(&l, "ttmp6")->dwarf, -1);
    assert_int_equal(reg(&l, "flat_scratch")->dwarf, -1);
    assert_ptr_equal(gc_reglist_find_dwarf(&l, 17), reg(&l, "exec"));
    assert_null(gc_reglist_find_dwarf(&l, 1)); /* no wave32 exec on gfx9 */
    assert_null(gc_reglist_find_dwarf(&l, -1));
    assert_null(gc_reglist_find(&l, "s48"));
    assert_null(gc_reglist_find(&l, "xnack_mask_lo"));
    assert_null(gc_reglist_find(&l, "ttmp12"));
    assert_null(gc_reglist_find(&l, "v8"));

    assert_int_equal(reg(&l, "s0")->classes, GC_REGCLASS_SCALAR | GC_REGCLASS_GENERAL);
    assert_int_equal(reg(&l, "s47")->classes, GC_REGCLASS_SCALAR);
    assert_int_equal(reg(&l, "v0")->classes, GC_REGCLASS_VECTOR | GC_REGCLASS_GENERAL);
    assert_int_equal(reg(&l, "a0")->classes, GC_REGCLASS_VECTOR | GC_REGCLASS_GENERAL);
    assert_int_equal(reg(&l, "ttmp13")->classes, GC_REGCLASS_TRAP);
    assert_int_equal(reg(&l, "status")->classes, GC_REGCLASS_SYSTEM);
    assert_int_equal(reg(&l, "xnack_mask")->classes, GC_REGCLASS_SYSTEM);
    assert_int_equal(reg(&l, "flat_scratch")->classes, GC_REGCLASS_SYSTEM);
    assert_int_equal(reg(&l, "pc")->classes, GC_REGCLASS_GENERAL);
    assert_int_equal(reg(&l, "exec")->classes, GC_REGCLASS_GENERAL);
    assert_int_equal(reg(&l, "m0")->classes, GC_REGCLASS_GENERAL);

    assert_int_equal(reg(&l, "v0")->size, 256);
    assert_int_equal(reg(&l, "a3")->size, 256);
    assert_int_equal(reg(&l, "s3")->size, 4);

    /* §9: end = min(108, 48) = 48; flat_scratch = s42:s43, xnack_mask from slots 7/8 (and so
       are the shadow s44/s45), vcc = s46:s47. */
    assert_int_equal(read64(a, w, &l, "vcc"), 0x0000502f0000502eull);
    assert_int_equal(read64(a, w, &l, "flat_scratch"), 0x0000502b0000502aull);
    assert_int_equal(read64(a, w, &l, "xnack_mask"), 0x0000900800009007ull);
    assert_int_equal(read64(a, w, &l, "exec"), 0x0000900400009003ull);
    assert_int_equal(read32(a, w, &l, "s42", 0), 0x502a);
    assert_int_equal(read32(a, w, &l, "s43", 0), 0x502b);
    assert_int_equal(read32(a, w, &l, "s44", 0), 0x9007);
    assert_int_equal(read32(a, w, &l, "s45", 0), 0x9008);
    assert_int_equal(read32(a, w, &l, "s46", 0), 0x502e);
    assert_int_equal(read32(a, w, &l, "s41", 0), 0x5029);
    assert_int_equal(read32(a, w, &l, "m0", 0), 0x9000);
    assert_int_equal(read32(a, w, &l, "trapsts", 0), 0x9006);
    assert_int_equal(read32(a, w, &l, "mode", 0), 0x9009);
    /* Part of a register. */
    assert_int_equal(read32(a, w, &l, "vcc", 4), 0x502f);
    gc_reglist_done(&l);
    tw_free(w);
}

static void test_gfx9_sgpr_counts(void **state)
{
    (void)state;
    /* The largest gfx9 allocation: 112 saved, end = 108; s102..s107 hold the aliases but
       AMD's library has no register number for a shadow s102+. */
    {
        const struct gc_arch *a = arch("gfx90a");
        struct gc_wave *w = tw_new(64, 8, 8, 0, 112, 0, 0);
        struct gc_reglist l;

        for (uint32_t i = 0; i < 112; i++)
            tw_sgpr(w, i, 0x100 + i);
        l = list_of(a, w);
        assert_int_equal(l.count, 102 + 16 + 9 + 9);
        assert_non_null(gc_reglist_find(&l, "s101"));
        assert_int_equal(reg(&l, "s101")->dwarf, 1024 + 101);
        assert_null(gc_reglist_find(&l, "s102"));
        assert_int_equal(read64(a, w, &l, "vcc"), (uint64_t)(0x100 + 107) << 32 | (0x100 + 106));
        assert_int_equal(read64(a, w, &l, "flat_scratch"),
                         (uint64_t)(0x100 + 103) << 32 | (0x100 + 102));
        gc_reglist_done(&l);
        tw_free(w);
    }
    /* The smallest useful one: 16 saved; aliases in s10..s15. */
    {
        const struct gc_arch *a = arch("gfx906");
        struct gc_wave *w = tw_new(64, 4, 0, 0, 16, 0, 0);
        struct gc_reglist l;

        for (uint32_t i = 0; i < 16; i++)
            tw_sgpr(w, i, 0x100 + i);
        l = list_of(a, w);
        assert_int_equal(l.count, 4 + 16 + 9 + 9);
        assert_int_equal(reg(&l, "s9")->dwarf, 41);
        assert_int_equal(reg(&l, "s10")->dwarf, -1);
        assert_int_equal(read64(a, w, &l, "vcc"), (uint64_t)(0x100 + 15) << 32 | (0x100 + 14));
        assert_int_equal(read64(a, w, &l, "flat_scratch"),
                         (uint64_t)(0x100 + 11) << 32 | (0x100 + 10));
        assert_null(gc_reglist_find(&l, "a0"));
        gc_reglist_done(&l);
        tw_free(w);
    }
    /* No SGPRs saved: nothing to alias, vcc and flat_scratch are absent. */
    {
        const struct gc_arch *a = arch("gfx900");
        struct gc_wave *w = tw_new(64, 4, 0, 0, 0, 0, 0);
        struct gc_reglist l = list_of(a, w);

        assert_null(gc_reglist_find(&l, "vcc"));
        assert_null(gc_reglist_find(&l, "flat_scratch"));
        assert_null(gc_reglist_find(&l, "s0"));
        assert_non_null(gc_reglist_find(&l, "exec"));
        assert_int_equal(l.count, 4 + 9 + 7);
        gc_reglist_done(&l);
        tw_free(w);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* gfx10+: wave32/wave64 flavours, shared VGPRs, no_vgprs                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_gfx10_wave32(void **state)
{
    const struct gc_arch *a = arch("gfx1030");
    struct gc_wave *w = tw_new(32, 8, 0, 0, 128, 0, 0);
    struct gc_reglist l;
    char type[64];

    (void)state;
    tw_pattern(w, 2);
    for (uint32_t i = 0; i < 128; i++)
        tw_sgpr(w, i, 0x7000 + i);
    for (uint32_t s = 0; s < 16; s++)
        tw_hwreg(w, s, 0xa000 + s);
    l = list_of(a, w);
    assert_int_equal(reg(&l, "v0")->dwarf, 1536);
    assert_int_equal(reg(&l, "v7")->dwarf, 1543);
    assert_int_equal(reg(&l, "v0")->size, 128);
    gc_reg_type(reg(&l, "v0"), type, sizeof(type));
    assert_string_equal(type, "int32_t[32]");
    assert_int_equal(reg(&l, "s63")->dwarf, 95);
    assert_int_equal(reg(&l, "s64")->dwarf, 1088);
    assert_int_equal(reg(&l, "s105")->dwarf, 1129);
    assert_null(gc_reglist_find(&l, "s106"));
    assert_int_equal(reg(&l, "exec")->dwarf, 1);
    assert_int_equal(reg(&l, "exec")->size, 4);
    assert_int_equal(reg(&l, "vcc")->dwarf, 512);
    assert_int_equal(reg(&l, "vcc")->size, 4);
    assert_int_equal(read32(a, w, &l, "vcc", 0), 0x7000 + 106);
    assert_int_equal(read32(a, w, &l, "exec", 0), 0xa003);
    /* flat_scratch is architected (slots 9-10); xnack_mask is slot 7, 32 bits. */
    assert_int_equal(read64(a, w, &l, "flat_scratch"), 0x0000a00a0000a009ull);
    assert_int_equal(reg(&l, "xnack_mask")->size, 4);
    assert_int_equal(read32(a, w, &l, "xnack_mask", 0), 0xa007);
    assert_int_equal(read32(a, w, &l, "mode", 0), 0xa008);
    assert_int_equal(read32(a, w, &l, "trapsts", 0), 0xa006);
    assert_null(gc_reglist_find_dwarf(&l, 2560));
    assert_null(gc_reglist_find_dwarf(&l, 17));
    gc_reglist_done(&l);
    tw_free(w);
}

static void test_gfx10_wave64(void **state)
{
    const struct gc_arch *a = arch("gfx1030");
    struct gc_wave *w = tw_new(64, 8, 0, 0, 128, 0, 0);
    struct gc_reglist l;

    (void)state;
    for (uint32_t i = 0; i < 128; i++)
        tw_sgpr(w, i, 0x7000 + i);
    l = list_of(a, w);
    assert_int_equal(l.count, 131);
    assert_int_equal(reg(&l, "v0")->dwarf, 2560);
    assert_int_equal(reg(&l, "v0")->size, 256);
    assert_int_equal(reg(&l, "exec")->dwarf, 17);
    assert_int_equal(reg(&l, "exec")->size, 8);
    assert_int_equal(reg(&l, "vcc")->dwarf, 768);
    assert_int_equal(read64(a, w, &l, "vcc"), (uint64_t)(0x7000 + 107) << 32 | (0x7000 + 106));
    assert_null(gc_reglist_find(&l, "xnack_mask"));
    assert_null(gc_reglist_find_dwarf(&l, 1536));
    gc_reglist_done(&l);
    tw_free(w);
}

/* gfx10 wave64: 32-lane shared VGPRs numbered after the private ones. */
static void test_gfx10_shared_vgprs(void **state)
{
    const struct gc_arch *a = arch("gfx1010");
    struct gc_wave *w = tw_new(64, 8, 0, 8, 128, 0, 0);
    struct gc_reglist l;
    uint8_t b[128];
    char type[64];

    (void)state;
    tw_pattern(w, 3);
    l = list_of(a, w);
    assert_int_equal(l.count, 131 + 8);
    assert_int_equal(reg(&l, "v7")->dwarf, 2567);
    assert_int_equal(reg(&l, "v7")->size, 256);
    assert_int_equal(reg(&l, "v8")->dwarf, 1536 + 8);
    assert_int_equal(reg(&l, "v8")->size, 128);
    assert_int_equal(reg(&l, "v15")->dwarf, 1536 + 15);
    assert_null(gc_reglist_find(&l, "v16"));
    gc_reg_type(reg(&l, "v8"), type, sizeof(type));
    assert_string_equal(type, "int32_t[32]");
    /* v8 is the first shared VGPR, right after the 8 private 64-lane ones. */
    assert_int_equal(reg(&l, "v8")->save_offset, 8 * 256);
    assert_int_equal(gc_reg_read(a, w, 10, reg(&l, "v9"), 0, b, sizeof(b)), GPUCORE_OK);
    assert_memory_equal(b, tw_rec(w) + 8 * 256 + 128, sizeof(b));
    gc_reglist_done(&l);
    tw_free(w);
}

static void test_gfx11_no_vgprs(void **state)
{
    const struct gc_arch *a = arch("gfx1100");
    struct gc_reglist l;

    (void)state;
    {
        struct gc_wave *w = tw_new(64, 8, 0, 0, 128, 0, 0);

        tw_hwreg(w, 5, 1u << 24); /* status.no_vgprs */
        l = list_of(a, w);
        assert_int_equal(l.count, 131 - 8);
        assert_null(gc_reglist_find(&l, "v0"));
        gc_reglist_done(&l);
        tw_hwreg(w, 5, 0);
        l = list_of(a, w);
        assert_int_equal(l.count, 131);
        gc_reglist_done(&l);
        tw_free(w);
    }
    {
        /* AMD's library leaves v255 listed (its range test excludes the last register). */
        struct gc_wave *w = tw_new(32, 256, 0, 0, 128, 0, 0);

        tw_hwreg(w, 5, 1u << 24);
        l = list_of(a, w);
        assert_null(gc_reglist_find(&l, "v254"));
        assert_non_null(gc_reglist_find(&l, "v255"));
        gc_reglist_done(&l);
        tw_free(w);
    }
    /* gfx10 has no such bit: bit 24 of its status means nothing to the list. */
    {
        struct gc_wave *w = tw_new(64, 8, 0, 0, 128, 0, 0);

        tw_hwreg(w, 5, 1u << 24);
        l = list_of(arch("gfx1030"), w);
        assert_int_equal(l.count, 131);
        gc_reglist_done(&l);
        tw_free(w);
    }
    /* gfx12 keeps it in its STATUS (slot 13). */
    {
        struct gc_wave *w = tw_new(32, 8, 0, 0, 128, 0, 0);

        tw_hwreg(w, 13, 1u << 24);
        l = list_of(arch("gfx1201"), w);
        assert_int_equal(l.count, 135 - 8);
        gc_reglist_done(&l);
        tw_free(w);
    }
}

static void test_gfx12_registers(void **state)
{
    const struct gc_arch *a = arch("gfx1201");
    struct gc_wave *w = tw_new(32, 8, 0, 0, 128, 0, 0);
    struct gc_reglist l;

    (void)state;
    for (uint32_t s = 0; s < 16; s++)
        tw_hwreg(w, s, 0xc000 + s);
    l = list_of(a, w);
    assert_null(gc_reglist_find(&l, "trapsts"));
    assert_int_equal(read32(a, w, &l, "trap_ctrl", 0), 0xc00c);
    assert_int_equal(read32(a, w, &l, "excp_flag_priv", 0), 0xc006);
    assert_int_equal(read32(a, w, &l, "excp_flag_user", 0), 0xc00b);
    assert_int_equal(read32(a, w, &l, "mode", 0), 0xc008);
    assert_int_equal(read32(a, w, &l, "xnack_mask", 0), 0xc007);
    /* gfx12 calls it scratch_base, as AMD's library does */
    assert_null(gc_reglist_find(&l, "flat_scratch"));
    assert_int_equal(read64(a, w, &l, "scratch_base"), 0x0000c00a0000c009ull);
    assert_int_equal(reg(&l, "status")->dwarf, 128);
    assert_int_equal(reg(&l, "state_priv")->dwarf, -1);
    assert_int_equal(reg(&l, "state_priv")->classes, GC_REGCLASS_SYSTEM);
    assert_int_equal(reg(&l, "trap_ctrl")->classes, GC_REGCLASS_SYSTEM);
    /* Order of the system registers. */
    {
        static const char *const order[] = { "m0",
                                             "pc",
                                             "mode",
                                             "trap_ctrl",
                                             "excp_flag_priv",
                                             "excp_flag_user",
                                             "xnack_mask",
                                             "scratch_base",
                                             "status",
                                             "state_priv",
                                             "exec",
                                             "vcc" };
        size_t base = l.count - sizeof(order) / sizeof(order[0]);

        for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
            assert_string_equal(l.regs[base + i].name, order[i]);
    }
    gc_reglist_done(&l);
    tw_free(w);
}

/* ------------------------------------------------------------------------------------------ */
/* Pseudo registers                                                                            */
/* ------------------------------------------------------------------------------------------ */

static void test_status_pseudo(void **state)
{
    const uint32_t priv = 1u << 5, halt = 1u << 13, skip = 1u << 18, other = 0x00f00001u;
    static const char *const archs[] = { "gfx908", "gfx942", "gfx1031", "gfx1101" };

    (void)state;
    for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++) {
        const struct gc_arch *a = arch(archs[i]);
        struct gc_wave *w =
                tw_new(64, 8, a->max_accvgprs ? 8 : 0, 0, a->cwsr->sgpr_fixed ? 128 : 48, 0, 0);
        struct gc_reglist l = list_of(a, w);

        assert_true(reg(&l, "status")->derived);
        /* Context-saved wave: its own halt bit stays; priv and skip_export read as 0. */
        tw_hwreg(w, 5, priv | halt | skip | other);
        tw_ttmp(w, 6, 0);
        assert_int_equal(read32(a, w, &l, "status", 0), halt | other);
        tw_hwreg(w, 5, priv | skip | other);
        assert_int_equal(read32(a, w, &l, "status", 0), other);
        /* Trap-stopped: the trap handler halted it and saved the wave's own halt in ttmp6. */
        tw_hwreg(w, 5, priv | halt | skip | other);
        tw_ttmp(w, 6, 1u << 30);
        assert_int_equal(read32(a, w, &l, "status", 0), other);
        tw_ttmp(w, 6, (1u << 30) | (1u << 29));
        tw_hwreg(w, 5, other);
        assert_int_equal(read32(a, w, &l, "status", 0), halt | other);
        gc_reglist_done(&l);
        tw_free(w);
    }
}

static void test_gfx12_pseudo(void **state)
{
    const struct gc_arch *a = arch("gfx1201");
    struct gc_wave *w = tw_new(32, 8, 0, 0, 128, 0, 0);
    struct gc_reglist l = list_of(a, w);
    const uint32_t halt = 1u << 14;

    (void)state;
    /* STATUS (slot 13): only priv is hidden; halt lives elsewhere on gfx12. */
    tw_hwreg(w, 13, 0xffffffffu);
    assert_int_equal(read32(a, w, &l, "status", 0), 0xffffffffu & ~(1u << 5));
    /* STATE_PRIV (slot 5): the halt bit (14) as the client sees it. */
    tw_hwreg(w, 5, 0x00000203u | halt);
    assert_int_equal(read32(a, w, &l, "state_priv", 0), 0x00000203u | halt);
    tw_ttmp(w, 6, 1u << 30);
    assert_int_equal(read32(a, w, &l, "state_priv", 0), 0x00000203u);
    tw_ttmp(w, 6, (1u << 30) | (1u << 29));
    tw_hwreg(w, 5, 0x00000203u);
    assert_int_equal(read32(a, w, &l, "state_priv", 0), 0x00000203u | halt);
    gc_reglist_done(&l);
    tw_free(w);
}

static void test_pc_register(void **state)
{
    static const char *const archs[] = { "gfx90a", "gfx942", "gfx1100", "gfx1201" };

    (void)state;
    for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++) {
        const struct gc_arch *a = arch(archs[i]);
        struct gc_wave *w = tw_new(a->default_wave_size, 8, a->max_accvgprs ? 8 : 0, 0,
                                   a->cwsr->sgpr_fixed ? 128 : 48, 0, 0);
        struct gc_reglist l;
        uint8_t b[8];

        tw_pattern(w, 9);
        for (uint32_t rv = 8; rv <= 10; rv++) {
            for (uint32_t stopped = 0; stopped <= 1; stopped++) {
                tw_ttmp(w, 6, stopped << 30);
                l = list_of(a, w);
                assert_int_equal(gc_reg_read(a, w, rv, reg(&l, "pc"), 0, b, 8), GPUCORE_OK);
                assert_int_equal(gc_le64_get(b), gc_wave_pc(a, w, rv));
                assert_int_equal(reg(&l, "pc")->derived, stopped && a->parks_stopped_waves != 0);
                gc_reglist_done(&l);
            }
        }
        tw_free(w);
    }
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Type strings and reading errors                                                             */
/* ------------------------------------------------------------------------------------------ */

static void test_type_strings(void **state)
{
    struct gc_wave *w = tw_new(64, 8, 8, 0, 48, 0, 0);
    struct gc_reglist l = list_of(arch("gfx90a"), w);
    char t[2048];
    size_t n;

    (void)state;
    gc_reg_type(reg(&l, "s0"), t, sizeof(t));
    assert_string_equal(t, "int32_t");
    gc_reg_type(reg(&l, "v0"), t, sizeof(t));
    assert_string_equal(t, "int32_t[64]");
    gc_reg_type(reg(&l, "pc"), t, sizeof(t));
    assert_string_equal(t, "void (*)()");
    gc_reg_type(reg(&l, "exec"), t, sizeof(t));
    assert_string_equal(t, "uint64_t");
    gc_reg_type(reg(&l, "ttmp4"), t, sizeof(t));
    assert_string_equal(t, "uint32_t");
    gc_reg_type(reg(&l, "m0"), t, sizeof(t));
    assert_string_equal(t, "uint32_t");

    n = gc_reg_type(reg(&l, "status"), t, sizeof(t));
    assert_int_equal(strlen(t), n);
    /* AMD's whitespace, byte for byte (every type of every family: test_dbgapi_arch) */
    assert_true(starts_with(t, "flags32_t status {  bool SCC @0;  uint32_t SPI_PRIO @1-2;"));
    assert_non_null(strstr(t, "  bool HALT @13;"));
    assert_non_null(strstr(t, "  bool MUST_EXPORT @27;}"));
    assert_int_equal(t[n - 1], '}');

    gc_reg_type(reg(&l, "mode"), t, sizeof(t));
    assert_non_null(strstr(t, "flags32_t mode {  enum fp_round {    NEAREST_EVEN = 0,"
                              "    PLUS_INF  = 1,    MINUS_INF = 2,    ZERO      = 3"
                              "  } FP_ROUND.32 @0-1;  enum fp_round FP_ROUND.64_16 @2-3;"
                              "  enum fp_denorm {    FLUSH_SRC_DST = 0,"));
    assert_non_null(strstr(t, "  bool EXCP_EN.ADDR_WATCH @19;"));
    assert_non_null(strstr(t, "  uint32_t CSP @29-31;}"));
    gc_reg_type(reg(&l, "trapsts"), t, sizeof(t));
    assert_non_null(strstr(t, "  bool XNACK_ERROR @28;  enum dp_rate {    NONE    = 0,"
                              "    QUARTER = 1,    FULL    = 4  } DP_RATE @29-31;}"));
    assert_null(strstr(t, "HOST_TRAP"));

    /* Truncation reports the full length and keeps a NUL. */
    n = gc_reg_type(reg(&l, "status"), t, 8);
    assert_true(n > 8);
    assert_string_equal(t, "flags32");
    assert_int_equal(gc_reg_type(reg(&l, "status"), NULL, 0), n);
    assert_int_equal(gc_reg_type(NULL, t, sizeof(t)), 0);
    assert_string_equal(t, "");
    gc_reglist_done(&l);
    tw_free(w);

    /* The gfx940 flavour knows the event bits; gfx12 has its own registers. */
    w = tw_new(64, 8, 8, 0, 48, 0, 0);
    l = list_of(arch("gfx942"), w);
    gc_reg_type(reg(&l, "trapsts"), t, sizeof(t));
    assert_non_null(strstr(t, "  bool HOST_TRAP @22;  bool WAVE_BEGIN @23;  bool WAVE_END @24;"
                              "  bool TRAP_AFTER_INST @25;"));
    gc_reg_type(reg(&l, "status"), t, sizeof(t));
    assert_non_null(strstr(t, "  bool SCRATCH_EN @28;  bool IDLE @31;}"));
    gc_reglist_done(&l);
    tw_free(w);

    w = tw_new(32, 8, 0, 0, 128, 0, 0);
    l = list_of(arch("gfx1201"), w);
    gc_reg_type(reg(&l, "trap_ctrl"), t, sizeof(t));
    assert_true(starts_with(t, "flags32_t trapctrl {  bool ALU_INVALID @0;"));
    gc_reg_type(reg(&l, "excp_flag_priv"), t, sizeof(t));
    assert_non_null(strstr(t, "  enum first_memviol_source {    INSTRUCTION = 0,"
                              "    SMEM        = 1,    LDS         = 2,    VMEM        = 3"
                              "  } FIRST_MEMVIOL_SOURCE @30-31;}"));
    gc_reg_type(reg(&l, "state_priv"), t, sizeof(t));
    assert_non_null(strstr(t, "  bool HALT @14;"));
    gc_reg_type(reg(&l, "xnack_mask"), t, sizeof(t));
    assert_string_equal(t, "uint32_t");
    gc_reglist_done(&l);
    tw_free(w);
}

/* The architecture's list holds every register any wave lists, with the same id, name, size,
   classes, DWARF number and type, in the same order; ids are unique and ascending. */
static void test_arch_list(void **state)
{
    static const struct {
        uint32_t lanes, vgprs, acc, shared, sgprs;
    } shapes[] = {
        { 64, 8, 0, 0, 48 }, { 64, 16, 16, 0, 112 }, { 64, 8, 8, 0, 96 }, { 32, 8, 0, 0, 128 },
        { 64, 8, 0, 8, 128 }, { 64, 256, 0, 0, 128 }, { 32, 256, 0, 0, 128 },
    };

    (void)state;
    for (size_t i = 0; i < gc_arch_count(); i++) {
        const struct gc_arch *a = &gc_arch_table[i];
        struct gc_reglist all = { 0 };

        if (!a->regs)
            continue;
        assert_int_equal(gc_arch_register_list(a, &all), GPUCORE_OK);
        for (size_t k = 1; k < all.count; k++)
            assert_true(all.regs[k].id > all.regs[k - 1].id);
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            struct gc_wave *w;
            struct gc_reglist l = { 0 };
            size_t at = 0;

            if (shapes[s].lanes == 32 && !(a->wave_sizes & GC_WAVE32))
                continue;
            w = tw_new(shapes[s].lanes, shapes[s].vgprs, shapes[s].acc, shapes[s].shared,
                       shapes[s].sgprs, 0, 0);
            if (gc_wave_register_list(a, w, &l) != GPUCORE_OK) {
                tw_free(w);
                continue; /* a shape this family cannot save */
            }
            for (size_t k = 0; k < l.count; k++) {
                const struct gc_reg *r = &l.regs[k];
                char t1[512], t2[512];

                while (at < all.count && all.regs[at].id != r->id)
                    at++;
                if (at == all.count)
                    fail_msg("%s: %s (id 0x%x) is not in the architecture's list", a->name,
                             r->name, r->id);
                assert_string_equal(all.regs[at].name, r->name);
                assert_int_equal(all.regs[at].classes, r->classes);
                assert_int_equal(all.regs[at].dwarf, r->dwarf);
                gc_reg_type(r, t1, sizeof(t1));
                gc_reg_type(&all.regs[at], t2, sizeof(t2));
                assert_string_equal(t1, t2);
                assert_int_equal(all.regs[at].size, r->size);
            }
            gc_reglist_done(&l);
            tw_free(w);
        }
        gc_reglist_done(&all);
    }
    assert_int_equal(gc_arch_register_list(NULL, NULL), GPUCORE_E_INVAL);
}

/*
 * gc_wave_register_shape: two waves of equal shape have equal lists (libgpucore-dbgapi builds
 * one list per shape and serves every wave of that shape from it), whatever their saved
 * register values; a wave of another geometry has another shape.
 */
static void test_register_shape(void **state)
{
    static const struct {
        uint32_t lanes, vgprs, acc, shared, sgprs;
    } shapes[] = { { 64, 8, 0, 0, 48 }, { 64, 32, 32, 0, 108 }, { 32, 16, 0, 0, 106 } };

    (void)state;
    for (size_t i = 0; i < gc_arch_count(); i++) {
        const struct gc_arch *a = &gc_arch_table[i];

        if (!a->regs)
            continue;
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            struct gc_wave *w1, *w2, *w3;
            struct gc_reg_shape k1, k2, k3;
            struct gc_reglist l1 = { 0 }, l2 = { 0 };

            if (shapes[s].lanes == 32 && !(a->wave_sizes & GC_WAVE32))
                continue;
            w1 = tw_new(shapes[s].lanes, shapes[s].vgprs, shapes[s].acc, shapes[s].shared,
                        shapes[s].sgprs, 0, 0);
            w2 = tw_new(shapes[s].lanes, shapes[s].vgprs, shapes[s].acc, shapes[s].shared,
                        shapes[s].sgprs, 0, 0);
            w3 = tw_new(shapes[s].lanes, shapes[s].vgprs + 8, shapes[s].acc, shapes[s].shared,
                        shapes[s].sgprs, 0, 0);
            /* other saved values (not the trap state, which decides pc_derived) */
            tw_sgpr(w1, 0, 0x11111111u);
            tw_sgpr(w2, 0, 0x22222222u);
            if (gc_wave_register_list(a, w1, &l1) != GPUCORE_OK) {
                tw_free(w1);
                tw_free(w2);
                tw_free(w3);
                continue; /* a shape this family cannot save */
            }
            assert_int_equal(gc_wave_register_list(a, w2, &l2), GPUCORE_OK);
            assert_int_equal(gc_wave_register_shape(a, w1, &k1), GPUCORE_OK);
            assert_int_equal(gc_wave_register_shape(a, w2, &k2), GPUCORE_OK);
            assert_int_equal(gc_wave_register_shape(a, w3, &k3), GPUCORE_OK);
            assert_memory_equal(&k1, &k2, sizeof(k1));
            assert_memory_not_equal(&k1, &k3, sizeof(k1));
            assert_int_equal(k1.vgprs, shapes[s].vgprs);
            assert_int_equal(l1.count, l2.count);
            for (size_t k = 0; k < l1.count; k++) {
                assert_string_equal(l1.regs[k].name, l2.regs[k].name);
                assert_int_equal(l1.regs[k].id, l2.regs[k].id);
                assert_int_equal(l1.regs[k].size, l2.regs[k].size);
                assert_int_equal(l1.regs[k].derived, l2.regs[k].derived);
                assert_int_equal(l1.regs[k].save_offset, l2.regs[k].save_offset);
                assert_ptr_equal(l1.regs[k].desc, l2.regs[k].desc);
            }
            gc_reglist_done(&l1);
            gc_reglist_done(&l2);
            tw_free(w1);
            tw_free(w2);
            tw_free(w3);
        }
    }
    assert_int_equal(gc_wave_register_shape(NULL, NULL, NULL), GPUCORE_E_INVAL);
}

/* Properties: the registers amd-dbgapi marks, and nothing else. */
static void test_properties(void **state)
{
    struct gc_wave *w = tw_new(64, 8, 0, 0, 48, 0, 0);
    struct gc_reglist l = { 0 };
    size_t marked = 0;

    (void)state;
    assert_int_equal(gc_wave_register_list(gc_arch_by_name("gfx90a"), w, &l), GPUCORE_OK);
    assert_int_equal(gc_reg_properties(reg(&l, "status")),
                     GC_REGPROP_READONLY_BITS | GC_REGPROP_VOLATILE);
    assert_int_equal(gc_reg_properties(reg(&l, "pc")), GC_REGPROP_READONLY_BITS);
    assert_int_equal(gc_reg_properties(reg(&l, "exec")), GC_REGPROP_INVALIDATE_VOLATILE);
    /* as AMD's library: what writing another register changes, and read-only bits */
    assert_int_equal(gc_reg_properties(reg(&l, "vcc")),
                     GC_REGPROP_VOLATILE | GC_REGPROP_INVALIDATE_VOLATILE);
    assert_int_equal(gc_reg_properties(reg(&l, "flat_scratch")),
                     GC_REGPROP_VOLATILE | GC_REGPROP_INVALIDATE_VOLATILE);
    assert_int_equal(gc_reg_properties(reg(&l, "xnack_mask")),
                     GC_REGPROP_VOLATILE | GC_REGPROP_INVALIDATE_VOLATILE);
    assert_int_equal(gc_reg_properties(reg(&l, "mode")), GC_REGPROP_READONLY_BITS);
    assert_int_equal(gc_reg_properties(reg(&l, "trapsts")), GC_REGPROP_READONLY_BITS);
    for (size_t k = 0; k < l.count; k++) {
        uint32_t p = gc_reg_properties(&l.regs[k]);

        marked += p != 0;
        /* the shadow SGPRs (the second s<n> set) are volatile too; the first set is not */
        if (l.regs[k].desc->kind == GC_REGK_SGPR_SHADOW)
            assert_int_equal(p, GC_REGPROP_VOLATILE | GC_REGPROP_INVALIDATE_VOLATILE);
        if (l.regs[k].desc->kind == GC_REGK_SGPR)
            assert_int_equal(p, 0);
    }
    assert_int_equal(marked, 8 + 6); /* 8 named; 6 shadow SGPRs in a 48-SGPR wave */
    assert_int_equal(gc_reg_properties(NULL), 0);
    gc_reglist_done(&l);
    tw_free(w);
}

static void test_read_errors(void **state)
{
    const struct gc_arch *a = arch("gfx90a");
    struct gc_wave *w = tw_new(64, 8, 8, 0, 48, 0, 0);
    struct gc_wave *small = tw_new(64, 4, 4, 0, 48, 0, 0);
    struct gc_reglist l = list_of(a, w);
    uint8_t b[256];

    (void)state;
    assert_int_equal(gc_reg_read(a, w, 10, reg(&l, "vcc"), 4, b, 5), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(a, w, 10, reg(&l, "vcc"), 9, b, 1), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(a, w, 10, reg(&l, "vcc"), 0, b, 0), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(a, w, 10, reg(&l, "vcc"), 0, NULL, 4), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(NULL, w, 10, reg(&l, "vcc"), 0, b, 4), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(a, w, 10, NULL, 0, b, 4), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(a, w, 10, reg(&l, "v7"), 252, b, 4), GPUCORE_OK);
    /* A register another wave does not have. */
    assert_int_equal(gc_reg_read(a, small, 10, reg(&l, "v7"), 0, b, 4), GPUCORE_E_INVAL);
    assert_int_equal(gc_reg_read(a, small, 10, reg(&l, "v3"), 0, b, 4), GPUCORE_OK);
    assert_int_equal(gc_wave_register_list(NULL, w, &l), GPUCORE_E_INVAL);
    assert_int_equal(gc_wave_register_list(a, NULL, &l), GPUCORE_E_INVAL);
    assert_int_equal(gc_wave_register_list(a, w, NULL), GPUCORE_E_INVAL);
    gc_reglist_done(&l);
    gc_reglist_done(NULL);
    assert_null(gc_reglist_find(NULL, "v0"));
    assert_null(gc_reglist_find(&l, NULL));
    tw_free(w);
    tw_free(small);
}

int test_arch_regs_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verified_counts),    cmocka_unit_test(test_gfx90a_order),
        cmocka_unit_test(test_gfx9_registers),     cmocka_unit_test(test_gfx9_sgpr_counts),
        cmocka_unit_test(test_gfx10_wave32),       cmocka_unit_test(test_gfx10_wave64),
        cmocka_unit_test(test_gfx10_shared_vgprs), cmocka_unit_test(test_gfx11_no_vgprs),
        cmocka_unit_test(test_gfx12_registers),    cmocka_unit_test(test_status_pseudo),
        cmocka_unit_test(test_gfx12_pseudo),       cmocka_unit_test(test_pc_register),
        cmocka_unit_test(test_type_strings),       cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_arch_list),          cmocka_unit_test(test_properties),
        cmocka_unit_test(test_register_shape),
    };

    return cmocka_run_group_tests_name("arch: registers", tests, NULL, NULL);
}
