/* SPDX-License-Identifier: MIT */
/*
 * The TTMPs libgpucore-dbgapi serves after attach: AMD's library's edits (dbgapi_ttmp.h),
 * family by family, on saved waves built here, with the values written out by hand from AMD's
 * rules (architecture.cpp: initialize_spi_ttmps, initialize_trap_handler_ttmps,
 * record_spi_ttmps_setup, wave_set_state, save_pc_for_park; wave.cpp: the wave id). The
 * scenario cores check the same through the API (test_dbgapi_truth) on gfx90a, gfx942, gfx1030
 * and gfx1100; this covers every family, gfx1010 and gfx12 included, and the agents without SPI
 * TTMP set-up the scenarios do not have.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "dbgapi_ttmp.h"
#include "gc_le.h"
#include "wave.h"

#define PC       0x00007f5824801850ull
#define PC_LO    0x24801850u
#define PC_HI11  (0x7f58u << 7) /* PC[47:32] in ttmp11[22:7] */
#define B31      0x80000000u
#define STOPPED  0x40000000u /* ttmp6[30] */
#define HALTED   0x20000000u /* ttmp6[29] */

struct wv {
    uint8_t ttmp[64], hwreg[64];
    struct gc_wave w;
    const struct gc_arch *arch;
};

/* A saved wave of @p target: TTMPs t[0..15], PC, and its own halt bit set when @p halt. */
static void make(struct wv *v, const char *target, const uint32_t t[16], int halt)
{
    int pc_lo, pc_hi, hs;
    int gfx12 = strncmp(target, "gfx12", 5) == 0;

    memset(v, 0, sizeof(*v));
    v->arch = gc_arch_by_name(target);
    assert_non_null(v->arch);
    for (int i = 0; i < 16; i++)
        gc_le32_put(v->ttmp + 4 * i, t[i]);
    pc_lo = gc_hwreg_slot(v->arch->hwreg, "pc_lo");
    pc_hi = gc_hwreg_slot(v->arch->hwreg, "pc_hi");
    hs = gc_hwreg_slot(v->arch->hwreg, gfx12 ? "state_priv" : "status");
    assert_true(pc_lo >= 0 && pc_hi >= 0 && hs >= 0);
    gc_le32_put(v->hwreg + 4 * pc_lo, (uint32_t)PC);
    gc_le32_put(v->hwreg + 4 * pc_hi, (uint32_t)(PC >> 32));
    gc_le32_put(v->hwreg + 4 * hs, halt ? 1u << (gfx12 ? 14 : 13) : 0);
    v->w.ttmp = v->ttmp;
    v->w.hwreg = v->hwreg;
    v->w.lanes = 64;
}

static void set_skip_export(struct wv *v)
{
    int s = gc_hwreg_slot(v->arch->hwreg, "status");

    gc_le32_put(v->hwreg + 4 * s, gc_le32_get(v->hwreg + 4 * s) | 1u << 18);
}

/* Edit and compare all 16 TTMPs. */
static void expect(const struct wv *v, uint32_t r_version, int spi, uint64_t handle, int stop,
                   const uint32_t want[16])
{
    uint32_t t[16];

    gc_dbg_attach_ttmps(v->arch, &v->w, r_version, spi, handle, stop, t);
    for (int i = 0; i < 16; i++)
        if (t[i] != want[i])
            fail_msg("%s r_version %u spi %d stop %d: ttmp%d = 0x%x, expected 0x%x",
                     v->arch->name, r_version, spi, stop, i, t[i], want[i]);
}

/* Saved TTMPs of a running wave: dispatch index 5 in ttmp6, a recognisable value elsewhere,
   wave 3 of its group in ttmp11[5:0]. */
static const uint32_t saved[16] = { 0, 0, 0, 0, 0x44, 0x55, 0x5, 0x77,
                                    0x88, 0x99, 0xaa, 0x3, 0, 0xdd, 0, 0 };

/* gfx9 (gfx90a), gfx10.1 (gfx1010), gfx11 (gfx1100): one row; they park (gfx11 only from
   r_version 9). */
static void test_gfx9_row(void **state)
{
    static const char *const targets[] = { "gfx90a", "gfx900", "gfx1010", "gfx1100" };
    struct wv v;

    (void)state;
    for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++) {
        uint32_t want[16];

        /* saved running, stopped by the library: handle, stopped + its halt, parked PC */
        make(&v, targets[k], saved, 1);
        memcpy(want, saved, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        want[6] = 0x5 | STOPPED | HALTED;
        want[7] = PC_LO;
        want[11] = 0x3 | PC_HI11;
        expect(&v, 10, 1, 253, 1, want);
        /* as first read: the handle and ttmp6[31] (set-up), nothing else */
        memcpy(want, saved, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        expect(&v, 10, 1, 253, 0, want);
        /* a 64-bit handle */
        want[4] = 2;
        want[5] = 1;
        expect(&v, 10, 1, 0x100000002ull, 0, want);
        /* r_version 8: no ttmp6[31]; gfx11 does not park before r_version 9 */
        memcpy(want, saved, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        want[6] = 0x5 | STOPPED | HALTED;
        if (strcmp(targets[k], "gfx1100") != 0) {
            want[7] = PC_LO;
            want[11] = 0x3 | PC_HI11;
        }
        expect(&v, 8, 1, 253, 1, want);
        /* the SPI did not set the TTMPs up: ttmp8-10 zeroed, wave-in-group cleared, ttmp6
           reset (no skip_export: cleared), then ttmp6[31] = 1; running, so stopped */
        memcpy(want, saved, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        want[6] = B31 | STOPPED | HALTED;
        want[7] = PC_LO;
        want[8] = want[9] = want[10] = 0;
        want[11] = PC_HI11;
        expect(&v, 10, 0, 253, 1, want);
    }
}

/* A wave the trap handler stopped: only the handle (and ttmp6[31]) change; with no SPI set-up
   its stop bits survive only when status.skip_export says the trap handler ran. */
static void test_trap_stopped(void **state)
{
    uint32_t t[16], want[16];
    struct wv v;

    (void)state;
    memcpy(t, saved, sizeof(t));
    t[6] = STOPPED | 2u << 25 | 0x5; /* trap id 2 */
    t[7] = 0x12345678;               /* the trap handler's parked PC */
    make(&v, "gfx90a", t, 0);
    memcpy(want, t, sizeof(want));
    want[4] = 7;
    want[5] = 0;
    expect(&v, 10, 1, 7, 1, want);
    /* no SPI set-up, no skip_export: ttmp6 cleared, so AMD's library sees it running and stops
       it (stop reason NONE) */
    want[6] = B31 | STOPPED;
    want[8] = want[9] = want[10] = 0;
    want[7] = PC_LO;
    want[11] = PC_HI11;
    expect(&v, 10, 0, 7, 1, want);
    /* with skip_export: the stopped bit and trap id kept */
    set_skip_export(&v);
    memcpy(want, t, sizeof(want));
    want[4] = 7;
    want[5] = 0;
    want[6] = B31 | STOPPED | 2u << 25;
    want[8] = want[9] = want[10] = 0;
    want[11] = 0;
    expect(&v, 10, 0, 7, 1, want);
    /* before r_version 10 skip_export means nothing: cleared */
    want[6] = STOPPED;
    want[7] = PC_LO;
    want[11] = PC_HI11;
    expect(&v, 9, 0, 7, 1, want);
}

/* gfx940 family: never parks; the trap handler marks its TTMP set-up in ttmp11[31]. */
static void test_gfx940(void **state)
{
    uint32_t t[16], want[16];
    struct wv v;

    (void)state;
    memcpy(t, saved, sizeof(t));
    t[11] = B31 | 0x3;
    make(&v, "gfx942", t, 1);
    memcpy(want, t, sizeof(want));
    want[4] = 253;
    want[5] = 0;
    want[6] = 0x5 | STOPPED | HALTED;
    expect(&v, 10, 1, 253, 1, want);
    /* mark clear: ttmp6 reset (cleared), mark set */
    t[11] = 0x3;
    make(&v, "gfx941", t, 0);
    memcpy(want, t, sizeof(want));
    want[4] = 253;
    want[5] = 0;
    want[6] = STOPPED;
    want[11] = B31 | 0x3;
    expect(&v, 10, 1, 253, 1, want);
    /* no SPI set-up: ttmp8-11 zeroed, so the mark is clear too */
    t[11] = B31 | 0x3;
    make(&v, "gfx940", t, 0);
    memcpy(want, t, sizeof(want));
    want[4] = 253;
    want[5] = 0;
    want[6] = B31 | STOPPED;
    want[8] = want[9] = want[10] = 0;
    want[11] = B31;
    expect(&v, 10, 0, 253, 1, want);
}

/* gfx12: the halt bit is STATE_PRIV[14], the parked PC goes to ttmp10 and ttmp11[22:7], the
   trap handler's mark is ttmp8[31], and there is no ttmp6[31] record. */
static void test_gfx12(void **state)
{
    static const char *const targets[] = { "gfx1200", "gfx1201" };
    uint32_t t[16], want[16];
    struct wv v;

    (void)state;
    for (size_t k = 0; k < 2; k++) {
        memcpy(t, saved, sizeof(t));
        t[8] = B31 | 0x88;
        make(&v, targets[k], t, 1);
        memcpy(want, t, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        want[6] = 0x5 | STOPPED | HALTED;
        want[10] = PC_LO;
        want[11] = 0x3 | PC_HI11;
        expect(&v, 10, 1, 253, 1, want);
        /* r_version 8: gfx12 parks only from 9 */
        want[10] = 0xaa;
        want[11] = 0x3;
        expect(&v, 8, 1, 253, 1, want);
        /* mark clear: ttmp4-6 zeroed, mark set */
        t[8] = 0x88;
        make(&v, targets[k], t, 0);
        memcpy(want, t, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        want[6] = STOPPED;
        want[8] = B31 | 0x88;
        want[10] = PC_LO;
        want[11] = 0x3 | PC_HI11;
        expect(&v, 10, 1, 253, 1, want);
        /* no SPI set-up: ttmp7-9 zeroed, then as above */
        memcpy(want, t, sizeof(want));
        want[4] = 253;
        want[5] = 0;
        want[6] = STOPPED;
        want[7] = 0;
        want[8] = B31;
        want[9] = 0;
        want[10] = PC_LO;
        want[11] = 0x3 | PC_HI11;
        expect(&v, 10, 0, 253, 1, want);
    }
}

/* gfx10.3 (gfx1030): the gfx9 row, but it can halt at s_endpgm, so it never parks. */
static void test_gfx1030(void **state)
{
    uint32_t want[16];
    struct wv v;

    (void)state;
    make(&v, "gfx1030", saved, 0);
    memcpy(want, saved, sizeof(want));
    want[4] = 253;
    want[5] = 0;
    want[6] = 0x5 | STOPPED;
    expect(&v, 10, 1, 253, 1, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gfx9_row),   cmocka_unit_test(test_trap_stopped),
        cmocka_unit_test(test_gfx940),     cmocka_unit_test(test_gfx12),
        cmocka_unit_test(test_gfx1030),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
