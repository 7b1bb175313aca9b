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
 * they are replayed here. The first edits -- the SPI and trap-handler set-up rules, which also
 * decide whether the wave counts as stopped by the trap handler -- are arch's
 * (gc_wave_stop_at_attach(), one home for the image and the library); this file adds what only
 * the library does: the wave's handle in the TTMPs, and the stop and park of a wave it stops
 * itself. Where the wave's halt bit lives is the family's (arch's GC_HWEV_HALT).
 */

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

void gc_dbg_attach_ttmps(const struct gc_arch *arch, const struct gc_wave *w, uint32_t r_version,
                         int spi, uint64_t handle, int stopped_by_library, uint32_t t[16])
{
    const struct gc_wave_env env = { .r_version = r_version, .spi_ttmps_setup = spi ? 1u : 0u };
    struct gc_wave_stop st;
    struct gc_hwreg_bit halt;

    for (uint32_t i = 0; i < 16; i++)
        t[i] = gc_wave_ttmp(w, i);
    if (!arch || !gc_hwev_bit(arch->hwreg, GC_HWEV_HALT, &halt) ||
        gc_wave_stop_at_attach(arch, w, &env, &st) != GPUCORE_OK)
        return;
    /* initialize_spi_ttmps, initialize_trap_handler_ttmps, record_spi_ttmps_setup */
    for (uint32_t i = 0; i < 16; i++)
        t[i] = st.ttmp[i];
    /* the wave's handle, in the TTMPs the trap handler reports it from */
    tput(t, arch->ttmp->wave_id_lo, (uint32_t)handle);
    tput(t, arch->ttmp->wave_id_hi, (uint32_t)(handle >> 32));
    if (!stopped_by_library || gc_dbg_ttmp_get(t, arch->ttmp->stopped))
        return;
    /* wave_set_state(STOP): stopped, with the wave's own halt state saved */
    tput(t, arch->ttmp->saved_halt, gc_wave_hwreg(w, halt.slot) >> halt.bit & 1u);
    tput(t, arch->ttmp->stopped, 1);
    /* park(): where the family parks stopped waves, the PC goes to the TTMPs */
    if (gc_arch_parks_stopped_waves(arch, r_version)) {
        uint64_t pc = (uint64_t)hwreg_named(arch, w, "pc_hi") << 32 | hwreg_named(arch, w, "pc_lo");

        tput(t, arch->ttmp->parked_pc_lo, (uint32_t)pc);
        tput(t, arch->ttmp->parked_pc_hi, (uint32_t)(pc >> 32));
    }
}
