/* SPDX-License-Identifier: MIT */
/*
 * Internal to libgpucore-dbgapi: the trap temporaries (TTMPs) of a wave as AMD's library holds
 * them after it opens a core.
 *
 * AMD's library edits its cached copy of each wave's save area when it first reads the wave and
 * when it stops a wave that was saved running; it serves the edited values (a debugger shows
 * them) and never writes them to a core. Replayed per family (the family's TTMP row of
 * arch/wave.h names the fields); steps 1-3 are arch's gc_wave_stop_at_attach(), which the
 * process image uses too, 4 and 5 are the library's own (dbgapi_ttmp.c):
 *  1. the SPI did not set the dispatch TTMPs up (neither the note's ttmp_setup nor the agent's
 *     DISPATCH_INFO_ALWAYS_VALID): gfx9-gfx11 zero ttmp8-10, clear the wave-in-group field and
 *     reset ttmp6; gfx940 zero ttmp8-11; gfx12 zero ttmp7-9. "Reset ttmp6" keeps only the trap
 *     handler's stopped / saved-halt / trap-id bits, and only with r_version >= 10 and
 *     status.skip_export set (the trap handler ran), else clears it;
 *  2. the trap handler's set-up mark is clear (gfx940 ttmp11[31], gfx12 ttmp8[31]): gfx940
 *     resets ttmp6; gfx12 zeroes ttmp4-6; both set the mark;
 *  3. r_version >= 10, before gfx12: ttmp6[31] = the SPI did not set the TTMPs up;
 *  4. ttmp4/ttmp5 = the wave's handle;
 *  5. a wave saved running (ttmp6[30] clear after the above) is stopped: ttmp6[29] = its own
 *     halt bit (STATUS[13]; gfx12 STATE_PRIV[14]), ttmp6[30] = 1, and on a family that parks
 *     stopped waves (gc_arch_parks_stopped_waves) the PC goes to the parked-PC fields
 *     (ttmp7 and ttmp11[22:7]; gfx12 ttmp10 and ttmp11[22:7]).
 */
#ifndef GC_DBGAPI_TTMP_H
#define GC_DBGAPI_TTMP_H

#include <stdint.h>

#include "arch.h"
#include "cwsr.h"
#include "wave.h"

/*
 * The 16 TTMPs of wave @p w (family @p arch, ROCr r_debug version @p r_version, @p spi: the SPI
 * set the dispatch TTMPs up, @p handle: the wave's handle) as AMD's library holds them once it
 * has read the wave, and with @p stopped_by_library also once it has stopped a wave saved
 * running (a no-op for a wave the trap handler stopped). Without a family (arch NULL), or for
 * one whose table has no halt bit (GC_HWEV_HALT), the saved values.
 */
void gc_dbg_attach_ttmps(const struct gc_arch *arch, const struct gc_wave *w, uint32_t r_version,
                         int spi, uint64_t handle, int stopped_by_library, uint32_t t[16]);

/* Value of field @p f of the TTMP array @p t (0 if the field is absent). */
uint32_t gc_dbg_ttmp_get(const uint32_t *t, struct gc_ttmp_field f);

#endif /* GC_DBGAPI_TTMP_H */
