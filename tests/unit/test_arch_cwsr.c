/* SPDX-License-Identifier: MIT */
/*
 * test_arch_cwsr: the CWSR codec (arch/cwsr.c, arch/cwsr_layouts.c). This file holds KFD's size
 * formulas, the header codec, encoder input validation, the verified record sizes of
 * docs/cwsr-layout.md §7.1 and encode -> decode round trips over every target; hand-built byte
 * images and every decoder error path are in test_arch_cwsr_images.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"
#include "gc_util.h"

int test_arch_cwsr_images_run(void);

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Register kinds, mixed into the fill pattern so no two registers of a wave look alike. */
enum { K_VGPR = 1, K_ACC, K_SHARED, K_SGPR, K_HWREG, K_TTMP, K_LDS };

static uint32_t pat(uint32_t seed, uint32_t kind, uint32_t reg, uint32_t lane)
{
    uint32_t x = seed * 0x9e3779b1u ^ kind * 0x85ebca77u ^ reg * 0xc2b2ae3du ^ lane * 0x27d4eb2fu;

    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return x;
}

static const struct gc_arch *arch(const char *name)
{
    const struct gc_arch *a = gc_arch_by_name(name);

    assert_non_null(a);
    assert_non_null(a->cwsr);
    return a;
}

/* Waves being encoded, with the register arrays they own. */
struct waves {
    struct gc_wave_spec *s;
    uint32_t n;
    uint32_t seed0; /* pattern seed of wave 0; wave i uses seed0 + i */
};

static uint32_t *fill_words(uint32_t seed, uint32_t kind, uint32_t regs, uint32_t lanes)
{
    uint32_t *p;

    if (!regs)
        return NULL;
    p = calloc((size_t)regs * lanes, sizeof(*p));
    assert_non_null(p);
    for (uint32_t r = 0; r < regs; r++)
        for (uint32_t l = 0; l < lanes; l++)
            p[(size_t)r * lanes + l] = pat(seed, kind, r, l);
    return p;
}

/* Fill every register array of s (whose counts are set) from seed. */
static void fill_wave(const struct gc_arch *a, struct gc_wave_spec *s, uint32_t seed)
{
    uint32_t lanes = s->wave32 ? 32 : 64;
    uint32_t sgprs = a->cwsr->sgpr_fixed ? a->cwsr->sgpr_fixed : s->sgprs;
    uint8_t *lds;

    s->vgpr = fill_words(seed, K_VGPR, s->vgprs, lanes);
    s->accvgpr = fill_words(seed, K_ACC, s->accvgprs, 64);
    s->shared_vgpr = fill_words(seed, K_SHARED, s->shared_vgprs, 32);
    s->sgpr = fill_words(seed, K_SGPR, sgprs, 1);
    for (uint32_t i = 0; i < 16; i++) {
        s->hwreg[i] = pat(seed, K_HWREG, i, 0);
        s->ttmp[i] = pat(seed, K_TTMP, i, 0);
    }
    if (s->first_wave && s->lds_size) {
        lds = malloc(s->lds_size);
        assert_non_null(lds);
        for (uint32_t i = 0; i < s->lds_size; i++)
            lds[i] = (uint8_t)pat(seed, K_LDS, i / 4, i % 4);
        s->lds = lds;
    }
}

static void free_waves(struct waves *w)
{
    for (uint32_t i = 0; i < w->n; i++) {
        free((void *)w->s[i].vgpr);
        free((void *)w->s[i].accvgpr);
        free((void *)w->s[i].shared_vgpr);
        free((void *)w->s[i].sgpr);
        free((void *)w->s[i].lds);
    }
    free(w->s);
    memset(w, 0, sizeof(*w));
}

/*
 * A valid allocation for workgroup number g of target a: counts vary with g so that groups
 * differ, and every field of the state word takes non-trivial values.
 */
static void group_alloc(const struct gc_arch *a, uint32_t wave32, uint32_t g, uint32_t lds,
                        struct gc_wave_spec *s)
{
    const struct gc_cwsr_layout *l = a->cwsr;
    static const uint32_t gfx9_sgprs[] = { 0, 32, 112, 48 };
    uint32_t granule = wave32 ? l->vgpr_granule_w32 : l->vgpr_granule_w64;

    s->wave32 = wave32;
    switch (l->acc_rule) {
    case GC_ACC_ACCUM_OFFSET:
        s->vgprs = 4 * (g + 1);
        s->accvgprs = 8 * (g + 2) - s->vgprs;
        break;
    case GC_ACC_SAME_AS_ARCH:
        s->vgprs = 4 * (g + 1);
        s->accvgprs = s->vgprs;
        break;
    default:
        s->vgprs = granule * (g + 1);
        s->accvgprs = 0;
        break;
    }
    s->shared_vgprs = l->shared_vgpr_granule && !wave32 ? 8 * g : 0;
    /* gfx10+: 0 and 128 both mean "the fixed 128". */
    s->sgprs = l->sgpr_fixed ? (g % 2 ? 128 : 0) : gfx9_sgprs[g % 4];
    s->lds_size = lds;
}

/* Build the round-trip workload: groups of 1, 2, 7 and 16 waves. */
static void build_groups(const struct gc_arch *a, uint32_t wave32, uint32_t lds, uint32_t seed0,
                         struct waves *w)
{
    static const uint32_t sizes[] = { 1, 2, 7, 16 };
    const struct gc_cwsr_layout *l = a->cwsr;
    uint32_t n = 0;

    w->n = 26;
    w->seed0 = seed0;
    w->s = calloc(w->n, sizeof(*w->s));
    assert_non_null(w->s);
    for (uint32_t g = 0; g < 4; g++) {
        for (uint32_t k = 0; k < sizes[g]; k++, n++) {
            struct gc_wave_spec *s = &w->s[n];

            group_alloc(a, wave32, g, lds, s);
            s->first_wave = k == 0;
            s->last_wave = k == sizes[g] - 1;
            s->se_id = (n * 7 + g) % (gc_bf_mask(l->wv_se_id) >> l->wv_se_id.lo);
            s->scratch_id = (n * 37) & (gc_bf_mask(l->wv_scratch_id) >> l->wv_scratch_id.lo);
            s->scratch_en = n % 3 == 0;
            fill_wave(a, s, seed0 + n);
            /* The third group's last wave has no arrays: it must come back as zeros. */
            if (g == 2 && k == sizes[g] - 1) {
                free((void *)s->vgpr);
                free((void *)s->sgpr);
                s->vgpr = NULL;
                s->sgpr = NULL;
            }
            /* gfx11 "no_vgprs" (status bit 24) is data to the codec; the VGPRs stay saved. */
            if (k == 1)
                s->hwreg[5] |= 1u << 24;
        }
    }
    assert_int_equal(n, w->n);
}

static uint64_t expect_record_size(const struct gc_arch *a, const struct gc_wave_spec *s)
{
    uint64_t lanes = s->wave32 ? 32 : 64;
    uint64_t sgprs = a->cwsr->sgpr_fixed ? a->cwsr->sgpr_fixed : s->sgprs;

    return s->vgprs * lanes * 4 + s->shared_vgprs * 128ull + s->accvgprs * 256ull + sgprs * 4 +
           128 + (s->first_wave ? s->lds_size : 0);
}

/* Encode w for a, with a control-stack region as KFD would size it. */
static void encode(const struct gc_arch *a, const struct waves *w, uint32_t ctl_stack_size,
                   uint8_t **img, size_t *size, struct gc_cwsr_header *h)
{
    struct gc_cwsr_header tmpl = { .debug_offset = 0x1234000,
                                   .debug_size = 0x20000,
                                   .err_payload_addr = 0x7f0011223340,
                                   .err_event_id = 77,
                                   .reserved1 = 0 };
    gpucore_diag_t diag;
    gpucore_status_t st;

    memset(&diag, 0, sizeof(diag));
    st = gc_cwsr_encode(a, w->s, w->n, ctl_stack_size, &tmpl, img, size, h, &diag);
    if (st != GPUCORE_OK)
        fail_msg("%s: encode failed: %s", a->name, diag.message);
    assert_int_equal(h->debug_offset, tmpl.debug_offset);
    assert_int_equal(h->debug_size, tmpl.debug_size);
    assert_true(h->err_payload_addr == tmpl.err_payload_addr);
    assert_int_equal(h->err_event_id, tmpl.err_event_id);
}

/* Decode an area image the way the analyzer does: header at the base, then the used parts. */
static gpucore_status_t decode_image(const struct gc_arch *a, const uint8_t *base, size_t size,
                                     struct gc_cwsr_decoded *d, gpucore_diag_t *diag)
{
    struct gc_cwsr_header h;

    assert_int_equal(gc_cwsr_header_decode(base, size, &h), GPUCORE_OK);
    assert_true((uint64_t)h.wave_state_offset <= size);
    assert_true(h.wave_state_size <= h.wave_state_offset);
    return gc_cwsr_decode(a, &h, base + h.control_stack_offset, h.control_stack_size,
                          base + h.wave_state_offset - h.wave_state_size, h.wave_state_size, d,
                          diag);
}

/* Check every decoded field and register of d against the specs that produced it. */
static void check_decoded(const struct gc_arch *a, const struct waves *w,
                          const struct gc_cwsr_decoded *d)
{
    const struct gc_cwsr_layout *l = a->cwsr;
    uint64_t top = d->header.wave_state_offset;
    uint32_t leader = 0, group = 0;

    assert_int_equal(d->wave_count, w->n);
    for (uint32_t i = 0; i < w->n; i++) {
        const struct gc_wave_spec *s = &w->s[i];
        const struct gc_wave *v = &d->waves[i];
        uint32_t lanes = s->wave32 ? 32 : 64;
        uint32_t sgprs = l->sgpr_fixed ? l->sgpr_fixed : s->sgprs;
        uint32_t seed = w->seed0 + i;

        if (s->first_wave) {
            leader = i;
            group = i ? group + 1 : 0;
        }
        assert_int_equal(v->index, i);
        assert_int_equal(v->group, group);
        assert_int_equal(v->group_leader, leader);
        assert_int_equal(v->first_wave, s->first_wave);
        assert_int_equal(v->last_wave, s->last_wave);
        assert_int_equal(v->se_id, s->se_id);
        assert_int_equal(v->scratch_id, s->scratch_id);
        assert_int_equal(v->scratch_en, s->scratch_en);
        assert_int_equal(v->lanes, lanes);
        assert_int_equal(v->vgprs, s->vgprs);
        assert_int_equal(v->accvgprs, s->accvgprs);
        assert_int_equal(v->shared_vgprs, s->shared_vgprs);
        assert_int_equal(v->sgprs, sgprs);
        assert_int_equal(v->lds_size, w->s[leader].lds_size);
        assert_true(v->state[0] & 0x80000000u);
        assert_int_equal(v->state[1], 0);
        assert_int_equal(v->wave_word & 0xc0000000u, 0);

        /* Records downward from the wave-area end, gap above each (§5). */
        assert_true(v->record_size == expect_record_size(a, s));
        top -= l->record_gap + v->record_size;
        assert_true(v->record_offset == top);

        for (uint32_t r = 0; r < s->vgprs; r++)
            for (uint32_t ln = 0; ln < lanes; ln++)
                if (gc_wave_vgpr(v, r, ln) != (s->vgpr ? pat(seed, K_VGPR, r, ln) : 0))
                    fail_msg("%s wave %u: v%u lane %u", a->name, i, r, ln);
        for (uint32_t r = 0; r < s->accvgprs; r++)
            for (uint32_t ln = 0; ln < 64; ln++)
                if (gc_wave_accvgpr(v, r, ln) != pat(seed, K_ACC, r, ln))
                    fail_msg("%s wave %u: a%u lane %u", a->name, i, r, ln);
        for (uint32_t r = 0; r < s->shared_vgprs; r++)
            for (uint32_t ln = 0; ln < 32; ln++)
                if (gc_wave_shared_vgpr(v, r, ln) != pat(seed, K_SHARED, r, ln))
                    fail_msg("%s wave %u: shared v%u lane %u", a->name, i, r, ln);
        for (uint32_t r = 0; r < sgprs; r++)
            if (gc_wave_sgpr(v, r) != (s->sgpr ? pat(seed, K_SGPR, r, 0) : 0))
                fail_msg("%s wave %u: s%u", a->name, i, r);
        for (uint32_t r = 0; r < 16; r++) {
            assert_int_equal(gc_wave_hwreg(v, r), s->hwreg[r]);
            assert_int_equal(gc_wave_ttmp(v, r), s->ttmp[r]);
        }
        if (s->first_wave && s->lds_size) {
            assert_non_null(v->lds);
            assert_memory_equal(v->lds, s->lds, s->lds_size);
        } else {
            assert_null(v->lds);
        }
        /* Out-of-range reads answer 0 rather than reading past the record. */
        assert_int_equal(gc_wave_vgpr(v, s->vgprs, 0), 0);
        assert_int_equal(gc_wave_vgpr(v, 0, lanes), 0);
        assert_int_equal(gc_wave_sgpr(v, sgprs), 0);
        assert_int_equal(gc_wave_accvgpr(v, s->accvgprs, 0), 0);
        assert_int_equal(gc_wave_shared_vgpr(v, s->shared_vgprs, 0), 0);
        assert_int_equal(gc_wave_hwreg(v, 16), 0);
        assert_int_equal(gc_wave_ttmp(v, 16), 0);
    }
    assert_true(top == (uint64_t)d->header.wave_state_offset - d->header.wave_state_size);
    assert_int_equal(d->group_count, w->n ? group + 1 : 0);
}

/* A control-stack region large enough for any test workload, as KFD sizes it for 8 CUs. */
static uint32_t ctl_region(const struct gc_arch *a)
{
    struct gc_cwsr_sizes sz;

    assert_int_equal(gc_cwsr_compute_sizes(a, 8 * a->cwsr->simd_per_cu, 4, 1, 1, &sz), GPUCORE_OK);
    return sz.ctl_stack_size;
}

/* ------------------------------------------------------------------------------------------ */
/* Sizes (§2)                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static void test_sizes_gfx90a(void **state)
{
    const struct gc_arch *a = arch("gfx90a");
    struct gc_cwsr_sizes sz;

    (void)state;
    assert_int_equal(a->cwsr->simd_per_cu, 4);
    assert_int_equal(gc_cwsr_compute_sizes(a, 440, 8, 1, 1, &sz), GPUCORE_OK);
    /* cu_num = 440 / 4 = 110; wave_num = min(110 * 40, 8 / 1 * 512) = 4096. */
    assert_int_equal(sz.cu_num, 110);
    assert_int_equal(sz.wave_num, 4096);
    /* ALIGN(40 + 4096 * 8 + 8, 4096) */
    assert_int_equal(sz.ctl_stack_size, 0x9000);
    /* 110 * (0x4000 + 0x10000 + 0x1000 + 0x80000) */
    assert_int_equal(sz.wg_data_size, 0x4006000);
    assert_int_equal(sz.cwsr_size, 0x400f000);
    assert_int_equal(sz.debug_memory_size, 0x20000);
    assert_true(sz.total_size == 0x402f000); /* 64.2 MiB: docs/cwsr-layout.md §2 */
}

static void test_sizes_gfx1100(void **state)
{
    const struct gc_arch *a = arch("gfx1100");
    struct gc_cwsr_sizes sz;

    (void)state;
    assert_int_equal(a->cwsr->simd_per_cu, 2);
    assert_int_equal(gc_cwsr_compute_sizes(a, 192, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.cu_num, 96);
    assert_int_equal(sz.wave_num, 96 * 32);
    /* ALIGN(40 + 3072 * 12 + 8, 4096) = 0xa000 */
    assert_int_equal(sz.ctl_stack_size, 0xa000);
    /* 96 * (0x4000 + 0x10000 + 0x1000 + 0x60000) */
    assert_int_equal(sz.wg_data_size, 0x2be0000);
    assert_int_equal(sz.cwsr_size, 0x2bea000);
    assert_int_equal(sz.debug_memory_size, 3072 * 32);
    assert_true(sz.total_size == 0x2c02000); /* 44.0 MiB: docs/cwsr-layout.md §2 */
}

static void test_sizes_per_target(void **state)
{
    struct gc_cwsr_sizes sz;

    (void)state;
    /* gfx1102 keeps the default VGPR file while gfx1100 has 1.5x (per target, not family). */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx1102"), 2, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wg_data_size, 0x4000 + 0x10000 + 0x1000 + 0x40000);
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx1201"), 2, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wg_data_size, 0x4000 + 0x10000 + 0x1000 + 0x60000);
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx908"), 4, 1, 1, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wg_data_size, 0x4000 + 0x10000 + 0x1000 + 0x80000);
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx906"), 4, 1, 1, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wg_data_size, 0x4000 + 0x10000 + 0x1000 + 0x40000);
    /* gfx940/941: the kernels that reported 90400/90401 gave them the MI file too. */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx940"), 4, 1, 1, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wg_data_size, 0x4000 + 0x10000 + 0x1000 + 0x80000);

    /* gfx9's wave_num bound: 1 / 1 * 512 < 100 * 40. */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx900"), 400, 1, 1, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wave_num, 512);
    assert_int_equal(sz.ctl_stack_size, 0x2000); /* ALIGN(40 + 512 * 8 + 8) */
    /* Integer division first, as KFD: 3 / 2 * 512 = 512. */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx900"), 400, 3, 2, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wave_num, 512);

    /* gfx10: KFD caps the control stack at 0x7000 (80 CUs would need 0x8000)... */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx1030"), 160, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.wave_num, 2560);
    assert_int_equal(sz.ctl_stack_size, 0x7000);
    assert_int_equal(sz.cwsr_size, 0x7000 + sz.wg_data_size);
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx1010"), 160, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.ctl_stack_size, 0x7000);
    /* ... and leaves smaller ones alone: ALIGN(40 + 1280 * 12 + 8) = 0x4000. */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx1010"), 80, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.ctl_stack_size, 0x4000);
    /* gfx11 has no cap. */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx1100"), 160, 0, 0, 1, &sz), GPUCORE_OK);
    assert_int_equal(sz.ctl_stack_size, 0x8000);

    /* Multi-XCC gfx942 (MI300X-like): per-XCC sizes, total over the XCCs. */
    assert_int_equal(gc_cwsr_compute_sizes(arch("gfx942"), 1216, 32, 4, 8, &sz), GPUCORE_OK);
    assert_int_equal(sz.cu_num, 38);
    assert_int_equal(sz.wave_num, 1520); /* min(38 * 40, 32 / 4 * 512) */
    assert_int_equal(sz.ctl_stack_size, 0x3000);
    assert_int_equal(sz.wg_data_size, 0x161e000);
    assert_int_equal(sz.cwsr_size, 0x1621000);
    assert_int_equal(sz.debug_memory_size, 0xbe00);
    assert_true(sz.total_size == 0xb167000); /* ALIGN((0x1621000 + 0xbe00) * 8, 4096) */
}

static void test_sizes_invalid(void **state)
{
    const struct gc_arch *a = arch("gfx90a");
    struct gc_cwsr_sizes sz, untouched;

    (void)state;
    memset(&sz, 0xa5, sizeof(sz));
    untouched = sz;
    assert_int_equal(gc_cwsr_compute_sizes(NULL, 440, 8, 1, 1, &sz), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 440, 8, 1, 1, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 0, 8, 1, 1, &sz), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 440, 8, 1, 0, &sz), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 442, 8, 1, 1, &sz), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 440, 8, 1, 3, &sz), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 440, 0, 1, 1, &sz), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_compute_sizes(a, 440, 8, 0, 1, &sz), GPUCORE_E_INVAL);
    /* 2^32 - 4 SIMDs: the work-group data no longer fits a u32. */
    assert_int_equal(gc_cwsr_compute_sizes(a, 0xfffffffcu, 8, 1, 1, &sz), GPUCORE_E_INVAL);
    assert_memory_equal(&sz, &untouched, sizeof(sz));
}

/* ------------------------------------------------------------------------------------------ */
/* Header                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_header_codec(void **state)
{
    static const uint8_t bytes[40] = {
        0xf0, 0x8f, 0x00, 0x00,                         /* control_stack_offset 0x8ff0 */
        0x10, 0x00, 0x00, 0x00,                         /* control_stack_size 0x10 */
        0x80, 0xa3, 0x00, 0x00,                         /* wave_state_offset 0xa380 */
        0x80, 0x13, 0x00, 0x00,                         /* wave_state_size 0x1380 */
        0x00, 0xf0, 0x00, 0x04,                         /* debug_offset 0x0400f000 */
        0x00, 0x00, 0x02, 0x00,                         /* debug_size 0x20000 */
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* err_payload_addr */
        0x2a, 0x00, 0x00, 0x00,                         /* err_event_id 42 */
        0xef, 0xbe, 0xad, 0xde,                         /* reserved1 */
    };
    struct gc_cwsr_header h, before;
    uint8_t out[41];

    (void)state;
    assert_int_equal(gc_cwsr_header_decode(bytes, sizeof(bytes), &h), GPUCORE_OK);
    assert_int_equal(h.control_stack_offset, 0x8ff0);
    assert_int_equal(h.control_stack_size, 0x10);
    assert_int_equal(h.wave_state_offset, 0xa380);
    assert_int_equal(h.wave_state_size, 0x1380);
    assert_int_equal(h.debug_offset, 0x400f000);
    assert_int_equal(h.debug_size, 0x20000);
    assert_true(h.err_payload_addr == 0x1122334455667788ull);
    assert_int_equal(h.err_event_id, 42);
    assert_int_equal(h.reserved1, 0xdeadbeef);

    memset(out, 0xcc, sizeof(out));
    gc_cwsr_header_encode(&h, out);
    assert_memory_equal(out, bytes, 40);
    assert_int_equal(out[40], 0xcc); /* exactly 40 bytes written */

    before = h;
    assert_int_equal(gc_cwsr_header_decode(bytes, 39, &h), GPUCORE_E_TRUNCATED);
    assert_int_equal(gc_cwsr_header_decode(NULL, 40, &h), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_header_decode(bytes, 40, NULL), GPUCORE_E_INVAL);
    assert_memory_equal(&h, &before, sizeof(h));
}

/* ------------------------------------------------------------------------------------------ */
/* Layout rows                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void test_layout_rows(void **state)
{
    (void)state;
    /* Every target has a layout, and the family rows are the ones docs/cwsr-layout.md names. */
    for (const struct gc_arch *a = gc_arch_table; a->name; a++) {
        const struct gc_cwsr_layout *l = a->cwsr;
        const struct gc_bitfield st[] = { l->st_vgprs,        l->st_sgprs,  l->st_lds,
                                          l->st_accum_offset, l->st_wave32, l->st_shared_vgprs };
        const struct gc_bitfield wv[] = { l->wv_scratch_id, l->wv_se_id, l->wv_scratch_en,
                                          l->wv_first_wave, l->wv_last_wave };
        uint32_t used = 0;

        assert_non_null(l);
        assert_int_equal(l->hwreg_slots, 16);
        assert_int_equal(l->ttmps, 16);
        assert_true(l->state_words == 1 || l->state_words == 2);
        /* No field may reach the event/state bits, nor overlap another in the same word. */
        for (size_t i = 0; i < GC_ARRAY_SIZE(st); i++) {
            assert_int_equal(gc_bf_mask(st[i]) & 0xc0000000u, 0);
            assert_int_equal(gc_bf_mask(st[i]) & used, 0);
            used |= gc_bf_mask(st[i]);
        }
        used = 0;
        for (size_t i = 0; i < GC_ARRAY_SIZE(wv); i++) {
            assert_true(gc_bf_present(wv[i]));
            assert_int_equal(gc_bf_mask(wv[i]) & 0xc0000000u, 0);
            assert_int_equal(gc_bf_mask(wv[i]) & used, 0);
            used |= gc_bf_mask(wv[i]);
        }
        /* wave32 exists exactly where both the table and the layout say so. */
        assert_int_equal(gc_bf_present(l->st_wave32), (a->wave_sizes & GC_WAVE32) != 0);
    }
    assert_ptr_equal(arch("gfx900")->cwsr, &gc_cwsr_gfx9);
    assert_ptr_equal(arch("gfx906")->cwsr, &gc_cwsr_gfx9);
    assert_ptr_equal(arch("gfx908")->cwsr, &gc_cwsr_gfx908);
    assert_ptr_equal(arch("gfx90a")->cwsr, &gc_cwsr_gfx90a);
    assert_ptr_equal(arch("gfx941")->cwsr, &gc_cwsr_gfx940);
    assert_ptr_equal(arch("gfx942")->cwsr, &gc_cwsr_gfx940);
    assert_ptr_equal(arch("gfx1031")->cwsr, &gc_cwsr_gfx10);
    assert_ptr_equal(arch("gfx1101")->cwsr, &gc_cwsr_gfx11);
    assert_ptr_equal(arch("gfx1200")->cwsr, &gc_cwsr_gfx12);
    /* Spot checks of §6 bit positions. */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx9.st_lds), 0x3fe00u);   /* [17:9] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx90a.st_lds), 0x1fe00u); /* [16:9] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx90a.st_accum_offset), 0x3f000000u);
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx9.wv_se_id), 0x1800u);     /* [12:11] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx908.wv_se_id), 0x3800u);   /* [13:11] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx90a.wv_se_id), 0xe00u);    /* [11:9] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx940.wv_se_id), 0x600u);    /* [10:9] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx10.wv_se_id), 0x3000000u); /* [25:24] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx11.wv_se_id), 0x7000000u); /* [26:24] */
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx12.wv_last_wave), 1u << 29);
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx10.st_shared_vgprs), 0x3c000000u);
    assert_int_equal(gc_bf_mask(gc_cwsr_gfx10.st_lds), 0x3fc00u); /* [17:10] */
}

/* ------------------------------------------------------------------------------------------ */
/* Record sizes (§7.1)                                                                         */
/* ------------------------------------------------------------------------------------------ */

/* Encode one single-wave workgroup and return the wave area size (record + gap). */
static uint32_t one_wave_area(const char *name, uint32_t wave32, uint32_t vgprs, uint32_t acc,
                              uint32_t sgprs, uint32_t lds)
{
    const struct gc_arch *a = arch(name);
    struct gc_wave_spec s;
    struct waves w = { .s = &s, .n = 1 };
    struct gc_cwsr_decoded d;
    struct gc_cwsr_header h;
    uint8_t *img = NULL;
    size_t size = 0;

    memset(&s, 0, sizeof(s));
    s.wave32 = wave32;
    s.vgprs = vgprs;
    s.accvgprs = acc;
    s.sgprs = sgprs;
    s.lds_size = lds;
    s.first_wave = s.last_wave = 1;
    encode(a, &w, ctl_region(a), &img, &size, &h);
    assert_int_equal(decode_image(a, img, size, &d, NULL), GPUCORE_OK);
    assert_int_equal(d.wave_count, 1);
    assert_true(d.waves[0].record_size + a->cwsr->record_gap == h.wave_state_size);
    gc_cwsr_decoded_done(&d);
    gc_free(img);
    return h.wave_state_size;
}

static void test_record_sizes(void **state)
{
    (void)state;
    /* The four configurations ROCdbgapi 0.77 was observed with. */
    assert_int_equal(one_wave_area("gfx90a", 0, 8, 8, 48, 512), 4992);
    assert_int_equal(one_wave_area("gfx1030", 1, 8, 0, 0, 512), 2176);
    assert_int_equal(one_wave_area("gfx1100", 0, 8, 0, 128, 512), 3200);
    assert_int_equal(one_wave_area("gfx1201", 1, 8, 0, 0, 512), 2176);
    /* The same formula elsewhere: gfx942 as gfx90a, gfx908 doubles its VGPRs. */
    assert_int_equal(one_wave_area("gfx942", 0, 8, 8, 48, 512), 4992);
    assert_int_equal(one_wave_area("gfx908", 0, 8, 8, 48, 0), 64 + 2048 * 2 + 192 + 128);
    assert_int_equal(one_wave_area("gfx900", 0, 4, 0, 0, 0), 64 + 1024 + 128);
}

/* ------------------------------------------------------------------------------------------ */
/* Round trips                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void round_trip(const struct gc_arch *a, uint32_t wave32, uint32_t lds, uint32_t seed)
{
    const struct gc_cwsr_layout *l = a->cwsr;
    struct waves w;
    struct gc_cwsr_decoded d;
    struct gc_cwsr_header h;
    gpucore_diag_t diag;
    uint32_t ctl = ctl_region(a), off, nstate = 0;
    uint8_t *img = NULL;
    size_t size = 0;

    build_groups(a, wave32, lds, seed, &w);
    encode(a, &w, ctl, &img, &size, &h);

    /* The header as KFD writes it: both used parts meet at ctl_stack_size. */
    assert_int_equal(h.control_stack_offset + h.control_stack_size, ctl);
    assert_int_equal(h.wave_state_offset - h.wave_state_size, ctl);
    assert_true(size == h.wave_state_offset);
    assert_int_equal(h.control_stack_size, 4 * (2 + 4 * l->state_words + w.n));
    /* Control stack: two PM4 dwords, then per group its state word(s) and wave words. */
    off = h.control_stack_offset;
    assert_int_equal(gc_le32_get(img + off) | gc_le32_get(img + off + 4), 0);
    off += 8;
    for (uint32_t i = 0; i < w.n; i++) {
        if (w.s[i].first_wave) {
            assert_true(gc_le32_get(img + off) & 0x80000000u);
            if (l->state_words == 2)
                assert_int_equal(gc_le32_get(img + off + 4), 0); /* RELAUNCH2 */
            off += 4 * l->state_words;
            nstate++;
        }
        off += 4;
    }
    assert_int_equal(off, ctl);
    assert_int_equal(nstate, 4);

    memset(&diag, 0, sizeof(diag));
    if (decode_image(a, img, size, &d, &diag) != GPUCORE_OK)
        fail_msg("%s wave32=%u lds=%u: decode failed: %s", a->name, wave32, lds, diag.message);
    assert_int_equal(d.group_count, 4);
    check_decoded(a, &w, &d);
    gc_cwsr_decoded_done(&d);
    assert_null(d.waves);
    gc_free(img);
    free_waves(&w);
}

static void test_round_trip_all_targets(void **state)
{
    size_t n = 0;

    (void)state;
    assert_int_equal(gc_arch_count(), 18);
    for (const struct gc_arch *a = gc_arch_table; a->name; a++, n++) {
        static const uint32_t wave32s[] = { 0, 1 };

        for (size_t k = 0; k < 2; k++) {
            uint32_t wave32 = wave32s[k];

            if (wave32 && !(a->wave_sizes & GC_WAVE32))
                continue;
            if (!wave32 && !(a->wave_sizes & GC_WAVE64))
                continue;
            round_trip(a, wave32, 0, (uint32_t)(n * 1000 + k * 100));
            round_trip(a, wave32, 512, (uint32_t)(n * 1000 + k * 100 + 1));
            round_trip(a, wave32, a->lds_bytes, (uint32_t)(n * 1000 + k * 100 + 2));
        }
    }
    assert_int_equal(n, 18);
}

/* The largest allocations each state word can express decode back exactly. */
static void test_round_trip_max_allocations(void **state)
{
    static const struct {
        const char *name;
        uint32_t wave32, vgprs, acc, shared, sgprs;
    } cases[] = {
        { "gfx900", 0, 256, 0, 0, 112 },   { "gfx908", 0, 256, 256, 0, 112 },
        { "gfx90a", 0, 256, 256, 0, 112 }, { "gfx942", 0, 4, 252, 0, 0 },
        { "gfx1010", 0, 256, 0, 120, 0 },  { "gfx1030", 1, 256, 0, 0, 128 },
        { "gfx1100", 1, 256, 0, 0, 0 },    { "gfx1201", 0, 256, 0, 0, 128 },
    };

    (void)state;
    for (size_t i = 0; i < GC_ARRAY_SIZE(cases); i++) {
        const struct gc_arch *a = arch(cases[i].name);
        struct waves w = { .n = 2, .seed0 = (uint32_t)i * 7 };
        struct gc_cwsr_decoded d;
        struct gc_cwsr_header h;
        uint8_t *img = NULL;
        size_t size = 0;

        w.s = calloc(2, sizeof(*w.s));
        assert_non_null(w.s);
        for (uint32_t k = 0; k < 2; k++) {
            struct gc_wave_spec *s = &w.s[k];

            s->wave32 = cases[i].wave32;
            s->vgprs = cases[i].vgprs;
            s->accvgprs = cases[i].acc;
            s->shared_vgprs = cases[i].shared;
            s->sgprs = cases[i].sgprs;
            s->lds_size = a->lds_bytes;
            s->first_wave = k == 0;
            s->last_wave = k == 1;
            s->se_id = gc_bf_mask(a->cwsr->wv_se_id) >> a->cwsr->wv_se_id.lo;
            s->scratch_id = gc_bf_mask(a->cwsr->wv_scratch_id) >> a->cwsr->wv_scratch_id.lo;
            s->scratch_en = 1;
            fill_wave(a, s, w.seed0 + k);
        }
        encode(a, &w, ctl_region(a), &img, &size, &h);
        assert_int_equal(decode_image(a, img, size, &d, NULL), GPUCORE_OK);
        check_decoded(a, &w, &d);
        gc_cwsr_decoded_done(&d);
        gc_free(img);
        free_waves(&w);
    }
}

/*
 * Two XCCs of one gfx942 queue: each XCC's area is independent (its own header, control stack
 * and waves) at base_i = i * ctx_save_restore_area_size.
 */
static void test_multi_xcc(void **state)
{
    const struct gc_arch *a = arch("gfx942");
    struct gc_cwsr_sizes sz;
    struct waves w[2];
    uint8_t *area;

    (void)state;
    assert_int_equal(gc_cwsr_compute_sizes(a, 2 * 4 * 4, 4, 1, 2, &sz), GPUCORE_OK);
    assert_int_equal(sz.cu_num, 4);
    area = calloc(2, sz.cwsr_size);
    assert_non_null(area);

    build_groups(a, 0, 512, 100, &w[0]);
    /* XCC 1: one workgroup of 3 waves with another allocation and LDS size. */
    w[1].n = 3;
    w[1].seed0 = 900;
    w[1].s = calloc(3, sizeof(*w[1].s));
    assert_non_null(w[1].s);
    for (uint32_t k = 0; k < 3; k++) {
        struct gc_wave_spec *s = &w[1].s[k];

        group_alloc(a, 0, 3, 4096, s);
        s->first_wave = k == 0;
        s->last_wave = k == 2;
        s->se_id = 2;
        s->scratch_id = 300 + k;
        fill_wave(a, s, 900 + k);
    }

    for (int x = 0; x < 2; x++) {
        struct gc_cwsr_header h;
        uint8_t *img = NULL;
        size_t size = 0;

        encode(a, &w[x], sz.ctl_stack_size, &img, &size, &h);
        assert_true(size <= sz.cwsr_size);
        memcpy(area + (size_t)x * sz.cwsr_size, img, size);
        gc_free(img);
    }
    for (int x = 0; x < 2; x++) {
        const uint8_t *base = area + (size_t)x * sz.cwsr_size;
        struct gc_cwsr_decoded d;

        assert_int_equal(decode_image(a, base, sz.cwsr_size, &d, NULL), GPUCORE_OK);
        check_decoded(a, &w[x], &d);
        /* Offsets are relative to this XCC's base, so both areas start at ctl_stack_size. */
        assert_true(d.waves[d.wave_count - 1].record_offset == sz.ctl_stack_size);
        gc_cwsr_decoded_done(&d);
        free_waves(&w[x]);
    }
    free(area);
}

/* An empty queue: only the PM4 dwords; decodes to no waves. */
static void test_round_trip_empty(void **state)
{
    const struct gc_arch *a = arch("gfx1100");
    struct gc_cwsr_decoded d;
    struct gc_cwsr_header h;
    uint8_t *img = NULL;
    size_t size = 0;

    (void)state;
    assert_int_equal(gc_cwsr_encode(a, NULL, 0, 0x1000, NULL, &img, &size, &h, NULL), GPUCORE_OK);
    assert_int_equal(h.control_stack_size, 8);
    assert_int_equal(h.wave_state_size, 0);
    assert_int_equal(h.wave_state_offset, 0x1000);
    assert_int_equal(h.debug_offset, 0);
    assert_true(size == 0x1000);
    assert_int_equal(decode_image(a, img, size, &d, NULL), GPUCORE_OK);
    assert_int_equal(d.wave_count, 0);
    assert_int_equal(d.group_count, 0);
    assert_null(d.waves);
    gc_cwsr_decoded_done(&d);
    gc_cwsr_decoded_done(NULL);
    gc_free(img);
}

/* ------------------------------------------------------------------------------------------ */
/* Encoder input validation                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* Expect E_INVAL with a message containing want; outputs untouched. */
static void expect_inval(const char *name, const struct gc_wave_spec *s, uint32_t n, uint32_t ctl,
                         const char *want)
{
    const struct gc_arch *a = arch(name);
    uint8_t *img = (uint8_t *)&img;
    size_t size = 12345;
    gpucore_diag_t diag;

    memset(&diag, 0, sizeof(diag));
    assert_int_equal(gc_cwsr_encode(a, s, n, ctl, NULL, &img, &size, NULL, &diag), GPUCORE_E_INVAL);
    assert_int_equal(diag.status, GPUCORE_E_INVAL);
    if (!strstr(diag.message, want))
        fail_msg("%s: \"%s\" does not mention \"%s\"", name, diag.message, want);
    assert_ptr_equal(img, (uint8_t *)&img);
    assert_true(size == 12345);
}

static struct gc_wave_spec one(uint32_t wave32, uint32_t vgprs, uint32_t acc, uint32_t sgprs,
                               uint32_t lds)
{
    struct gc_wave_spec s;

    memset(&s, 0, sizeof(s));
    s.wave32 = wave32;
    s.vgprs = vgprs;
    s.accvgprs = acc;
    s.sgprs = sgprs;
    s.lds_size = lds;
    s.first_wave = s.last_wave = 1;
    return s;
}

static void test_encode_invalid_counts(void **state)
{
    struct gc_wave_spec s[3];

    (void)state;
    s[0] = one(1, 8, 0, 0, 0);
    expect_inval("gfx90a", s, 1, 0x1000, "wave 0: gfx90a has no wave32");
    s[0] = one(2, 8, 0, 0, 0);
    expect_inval("gfx1030", s, 1, 0x1000, "wave32 must be 0 or 1");
    s[0] = one(0, 6, 0, 0, 0);
    expect_inval("gfx900", s, 1, 0x1000, "6 VGPRs");
    s[0] = one(0, 0, 0, 0, 0);
    expect_inval("gfx900", s, 1, 0x1000, "0 VGPRs");
    s[0] = one(0, 260, 0, 0, 0);
    expect_inval("gfx906", s, 1, 0x1000, "260 VGPRs");
    s[0] = one(1, 12, 0, 0, 0); /* wave32 granule is 8 */
    expect_inval("gfx1100", s, 1, 0x1000, "12 VGPRs");
    s[0] = one(1, 264, 0, 0, 0); /* n = 32 fits the field, but v255 is the last VGPR */
    expect_inval("gfx1100", s, 1, 0x1000, "264 VGPRs exceeds the 256 gfx1100 can address");
    s[0] = one(0, 8, 8, 0, 0);
    expect_inval("gfx900", s, 1, 0x1000, "no AccVGPRs");
    s[0] = one(0, 8, 8, 0, 0);
    expect_inval("gfx1030", s, 1, 0x1000, "no AccVGPRs");
    s[0] = one(0, 8, 4, 0, 0);
    expect_inval("gfx908", s, 1, 0x1000, "as many AccVGPRs as VGPRs");
    s[0] = one(0, 4, 0, 0, 0); /* unified total 4 is not a multiple of 8 */
    expect_inval("gfx90a", s, 1, 0x1000, "unified allocation");
    s[0] = one(0, 260, 4, 0, 0); /* accum_offset max 63 -> 256 arch VGPRs */
    expect_inval("gfx942", s, 1, 0x1000, "260 arch VGPRs");
    s[0] = one(0, 256, 264, 0, 0); /* total 520 > 512 */
    expect_inval("gfx90a", s, 1, 0x1000, "unified allocation");
    s[0] = one(0, 4, 508, 0, 0); /* unified total 512 is fine, a255 is the last AccVGPR */
    expect_inval("gfx942", s, 1, 0x1000, "508 AccVGPRs exceeds");
    s[0] = one(0, 8, 0, 20, 0);
    expect_inval("gfx900", s, 1, 0x1000, "20 SGPRs");
    s[0] = one(0, 8, 0, 128, 0); /* n = 8 does not fit [8:6] */
    expect_inval("gfx900", s, 1, 0x1000, "128 SGPRs");
    s[0] = one(1, 8, 0, 106, 0);
    expect_inval("gfx1201", s, 1, 0x1000, "always saves 128 SGPRs");
    s[0] = one(0, 8, 0, 0, 100);
    expect_inval("gfx1030", s, 1, 0x1000, "LDS size 100");
    s[0] = one(0, 8, 0, 0, 65536 + 512);
    expect_inval("gfx90a", s, 1, 0x1000, "LDS size 66048");
    s[0] = one(0, 8, 0, 0, 0);
    s[0].shared_vgprs = 8;
    expect_inval("gfx1100", s, 1, 0x1000, "shared VGPRs exist only");
    s[0] = one(1, 8, 0, 0, 0);
    s[0].shared_vgprs = 8;
    expect_inval("gfx1030", s, 1, 0x1000, "shared VGPRs exist only");
    s[0] = one(0, 8, 0, 0, 0);
    s[0].shared_vgprs = 12;
    expect_inval("gfx1010", s, 1, 0x1000, "12 shared VGPRs");
    s[0] = one(0, 8, 0, 0, 0);
    s[0].shared_vgprs = 128; /* n = 16 does not fit [29:26] */
    expect_inval("gfx1010", s, 1, 0x1000, "128 shared VGPRs");
    s[0] = one(0, 8, 0, 0, 0);
    s[0].se_id = 4; /* gfx940: se_id [10:9] */
    expect_inval("gfx942", s, 1, 0x1000, "se_id 4");
    s[0] = one(0, 8, 0, 0, 0);
    s[0].scratch_id = 512; /* gfx9: [8:0] */
    expect_inval("gfx906", s, 1, 0x1000, "scratch_id 512");
    s[0] = one(0, 8, 0, 0, 0);
    s[0].first_wave = 2;
    expect_inval("gfx906", s, 1, 0x1000, "must be 0 or 1");
}

static void test_encode_invalid_groups(void **state)
{
    struct gc_wave_spec s[3];
    uint8_t *img = NULL;
    size_t size = 0;

    (void)state;
    for (int i = 0; i < 3; i++)
        s[i] = one(0, 8, 8, 48, 512);
    s[0].last_wave = 0;
    s[1].first_wave = 0;
    s[2].first_wave = 0;
    s[2].last_wave = 1;
    s[1].last_wave = 0;
    /* A well-formed group of 3 first, as a baseline. */
    assert_int_equal(gc_cwsr_encode(arch("gfx90a"), s, 3, 0x1000, NULL, &img, &size, NULL, NULL),
                     GPUCORE_OK);
    gc_free(img);

    s[0].first_wave = 0;
    expect_inval("gfx90a", s, 3, 0x1000, "wave 0 is not a first_wave");
    s[0].first_wave = 1;
    s[1].first_wave = 1;
    expect_inval("gfx90a", s, 3, 0x1000, "wave 1 starts a workgroup, but wave 0's");
    s[1].first_wave = 0;
    s[2].last_wave = 0;
    expect_inval("gfx90a", s, 3, 0x1000, "the workgroup of wave 0 has no last_wave");
    s[2].last_wave = 1;
    s[1].last_wave = 1;
    expect_inval("gfx90a", s, 3, 0x1000, "wave 2 is not a first_wave");
    s[1].last_wave = 0;
    s[2].vgprs = 16;
    s[2].accvgprs = 0;
    expect_inval("gfx90a", s, 3, 0x1000, "wave 2: its allocation");
    s[2].vgprs = 8;
    s[2].accvgprs = 8;
    s[1].lds_size = 1024;
    expect_inval("gfx90a", s, 3, 0x1000, "wave 1: its allocation");
    s[1].lds_size = 512;

    /* The control stack must fit below ctl_stack_size, beside the 40-byte header. */
    expect_inval("gfx90a", s, 3, 40 + 4 * 5, "control stack needs");
    assert_int_equal(
            gc_cwsr_encode(arch("gfx90a"), s, 3, 40 + 4 * 6, NULL, &img, &size, NULL, NULL),
            GPUCORE_OK);
    gc_free(img);
    expect_inval("gfx90a", s, 3, 0x1002, "not a multiple of 4");
    /* The wave area must fit the header's u32 offsets. */
    expect_inval("gfx90a", s, 3, 0xfffff000u, "32-bit offsets");
    /* More waves than the decoder accepts: rejected before the array is read. */
    expect_inval("gfx90a", s, (1u << 20) + 1, 0x1000, "at most");
    expect_inval("gfx90a", NULL, 1, 0x1000, "invalid argument");
    assert_int_equal(gc_cwsr_encode(NULL, s, 1, 0x1000, NULL, &img, &size, NULL, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_encode(arch("gfx90a"), s, 1, 0x1000, NULL, NULL, &size, NULL, NULL),
                     GPUCORE_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_gfx90a),
        cmocka_unit_test(test_sizes_gfx1100),
        cmocka_unit_test(test_sizes_per_target),
        cmocka_unit_test(test_sizes_invalid),
        cmocka_unit_test(test_header_codec),
        cmocka_unit_test(test_layout_rows),
        cmocka_unit_test(test_record_sizes),
        cmocka_unit_test(test_round_trip_all_targets),
        cmocka_unit_test(test_round_trip_max_allocations),
        cmocka_unit_test(test_multi_xcc),
        cmocka_unit_test(test_round_trip_empty),
        cmocka_unit_test(test_encode_invalid_counts),
        cmocka_unit_test(test_encode_invalid_groups),
    };
    int failed = cmocka_run_group_tests_name("arch: CWSR codec", tests, NULL, NULL);

    failed += test_arch_cwsr_images_run();
    if (failed)
        fprintf(stderr, "test_arch_cwsr: %d test(s) failed\n", failed);
    return failed ? 1 : 0;
}
