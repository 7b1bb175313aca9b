/* SPDX-License-Identifier: MIT */
/*
 * Per-wave facts that depend on the family: the trap handler's TTMP conventions, the
 * hardware-register slot table of the save area, stop-reason decoding, the wave PC (parked PCs),
 * dispatch association, scratch slots and address spaces (../shared/spec/cwsr-layout.md
 * §8, §9, §11-§15).
 */
#ifndef GC_WAVE_H
#define GC_WAVE_H

#include <stdint.h>

#include "arch.h"
#include "cwsr.h"

/* Family rows referenced by gc_arch_table. */
extern const struct gc_ttmp_layout gc_ttmp_gfx9, gc_ttmp_gfx940, gc_ttmp_gfx12;
extern const struct gc_hwreg_layout gc_hwreg_gfx9, gc_hwreg_gfx940, gc_hwreg_gfx10,
        gc_hwreg_gfx11, gc_hwreg_gfx12;

#endif /* GC_WAVE_H */
