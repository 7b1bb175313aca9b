/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi: the TTMP edits AMD's library makes when it attaches (dbgapi_ttmp.h).
 */
#include "dbgapi_ttmp.h"

#include <stddef.h>

#include "gc_util.h"

/*
 * AMD's library edits its copy of every wave's TTMPs when it first sees the wave (wave_t::update)
 * and, for a wave saved running, when it stops it (wave_set_state, park). Nothing reaches the
 * core; the library serves the edited values, and a debugger shows them (`info registers`), so
 * they are replayed here. Per family, the rows differ in which TTMPs the SPI set-up and the
 * trap-handler set-up own and where the wave's halt bit lives; the fields themselves (stopped,
 * saved halt, wave id, parked PC) come from the family's TTMP row (arch/wave.h).
 */
struct attach_edits {
    const struct gc_ttmp_layout *row;
    /* agent without SPI TTMP set-up: TTMPs zeroed, and whether ttmp6 is reset (kept: only
       the trap handler's stop bits when r_version >= 10 and status.skip_export says the trap
       handler ran) and the wave-in-group field cleared */
    uint16_t spi_zero;
    uint8_t spi_reset_ttmp6, spi_clear_wave_in_group;
    /* the trap-handler set-up mark; when clear: TTMPs zeroed, ttmp6 reset as above, mark set */
    struct gc_ttmp_field th_mark;
    uint16_t th_zero;
    uint8_t th_reset_ttmp6;
    uint8_t record_spi;      /* ttmp6[31] = "SPI TTMPs not set up" when r_version >= 10 */
    const char *halt_slot;   /* the hardware register holding the wave's halt bit */
    uint8_t halt_bit;
    uint8_t skip_export_bit; /* status bit the trap handler sets (0: none) */
};

#define TT(n) (1u << (n))

static const struct attach_edits attach_edits[] = {
    /* gfx9 before gfx940, gfx10, gfx11 */
    { .row = &gc_ttmp_gfx9, .spi_zero = TT(8) | TT(9) | TT(10), .spi_reset_ttmp6 = 1,
      .spi_clear_wave_in_group = 1, .th_mark = GC_TTMP_NONE, .record_spi = 1,
      .halt_slot = "status", .halt_bit = 13, .skip_export_bit = 18 },
    /* gfx940, gfx941, gfx942: the trap handler marks its set-up in ttmp11[31] */
    { .row = &gc_ttmp_gfx940, .spi_zero = TT(8) | TT(9) | TT(10) | TT(11),
      .th_mark = GC_TTMP_BIT(11, 31), .th_reset_ttmp6 = 1, .record_spi = 1,
      .halt_slot = "status", .halt_bit = 13, .skip_export_bit = 18 },
    /* gfx12: SPI TTMPs are always set up; the trap handler marks ttmp8[31]; halt in STATE_PRIV */
    { .row = &gc_ttmp_gfx12, .spi_zero = TT(7) | TT(8) | TT(9),
      .th_mark = GC_TTMP_BIT(8, 31), .th_zero = TT(4) | TT(5) | TT(6),
      .halt_slot = "state_priv", .halt_bit = 14 },
};

static void tput(uint32_t *t, struct gc_ttmp_field f, uint32_t v)
{
    if (gc_bf_present(f.bits) && f.ttmp < 16)
        t[f.ttmp] = gc_bf_put(t[f.ttmp], f.bits, v);
}

uint32_t gc_dbg_ttmp_get(const uint32_t *t, struct gc_ttmp_field f)
{
    return gc_bf_present(f.bits) && f.ttmp < 16 ? gc_bf_get(t[f.ttmp], f.bits) : 0;
}

static uint32_t hwreg_named(const struct gc_arch *arch, const struct gc_wave *w, const char *name)
{
    int slot = gc_hwreg_slot(arch->hwreg, name);

    return slot < 0 ? 0 : gc_wave_hwreg(w, (uint32_t)slot);
}

/* ttmp6 when a set-up step resets it: only what the trap handler wrote survives, and only if
   it is known to have run (r_version >= 10 and status.skip_export). */
static uint32_t reset_ttmp6(const struct attach_edits *e, const struct gc_arch *arch,
                            const struct gc_wave *w, uint32_t r_version, uint32_t ttmp6)
{
    uint32_t keep = 0;
    const struct gc_ttmp_layout *row = e->row;

    if (r_version >= 10 && e->skip_export_bit &&
        (hwreg_named(arch, w, "status") >> e->skip_export_bit & 1u))
        keep = (row->stopped.ttmp == 6 ? gc_bf_mask(row->stopped.bits) : 0) |
               (row->saved_halt.ttmp == 6 ? gc_bf_mask(row->saved_halt.bits) : 0) |
               (row->saved_trap_id.ttmp == 6 ? gc_bf_mask(row->saved_trap_id.bits) : 0);
    return ttmp6 & keep;
}

void gc_dbg_attach_ttmps(const struct gc_arch *arch, const struct gc_wave *w, uint32_t r_version,
                         int spi, uint64_t handle, int stopped_by_library, uint32_t t[16])
{
    const struct attach_edits *e = NULL;

    for (uint32_t i = 0; i < 16; i++)
        t[i] = gc_wave_ttmp(w, i);
    for (size_t i = 0; arch && i < GC_ARRAY_SIZE(attach_edits); i++)
        if (attach_edits[i].row == arch->ttmp)
            e = &attach_edits[i];
    if (!e)
        return;
    /* initialize_spi_ttmps: the SPI did not set the dispatch TTMPs up */
    if (!spi) {
        if (e->spi_clear_wave_in_group)
            tput(t, e->row->wave_in_group, 0);
        if (e->spi_reset_ttmp6)
            t[6] = reset_ttmp6(e, arch, w, r_version, t[6]);
        for (uint32_t i = 0; i < 16; i++)
            if (e->spi_zero & TT(i))
                t[i] = 0;
    }
    /* initialize_trap_handler_ttmps: the trap handler never ran for this wave */
    if (gc_bf_present(e->th_mark.bits) && !gc_dbg_ttmp_get(t, e->th_mark)) {
        if (e->th_reset_ttmp6)
            t[6] = reset_ttmp6(e, arch, w, r_version, t[6]);
        for (uint32_t i = 0; i < 16; i++)
            if (e->th_zero & TT(i))
                t[i] = 0;
        tput(t, e->th_mark, 1);
    }
    /* record_spi_ttmps_setup: from ROCr's r_debug version 10 */
    if (e->record_spi && r_version >= 10)
        tput(t, e->row->spi_setup_disabled, !spi);
    /* the wave's handle, in the TTMPs the trap handler reports it from */
    tput(t, e->row->wave_id_lo, (uint32_t)handle);
    tput(t, e->row->wave_id_hi, (uint32_t)(handle >> 32));
    if (!stopped_by_library || gc_dbg_ttmp_get(t, e->row->stopped))
        return;
    /* wave_set_state(STOP): stopped, with the wave's own halt state saved */
    tput(t, e->row->saved_halt, hwreg_named(arch, w, e->halt_slot) >> e->halt_bit & 1u);
    tput(t, e->row->stopped, 1);
    /* park(): where the family parks stopped waves, the PC goes to the TTMPs */
    if (gc_arch_parks_stopped_waves(arch, r_version)) {
        uint64_t pc = (uint64_t)hwreg_named(arch, w, "pc_hi") << 32 | hwreg_named(arch, w, "pc_lo");

        tput(t, e->row->parked_pc_lo, (uint32_t)pc);
        tput(t, e->row->parked_pc_hi, (uint32_t)(pc >> 32));
    }
}

