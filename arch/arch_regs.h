/* SPDX-License-Identifier: MIT */
/*
 * Registers as the amd-dbgapi API presents them: names, type strings, sizes, classes and
 * DWARF register numbers, per family, and reading them from a decoded wave.
 */
#ifndef GC_ARCH_REGS_H
#define GC_ARCH_REGS_H

#include <stdint.h>

#include "arch.h"
#include "cwsr.h"

/* Family rows referenced by gc_arch_table. */
extern const struct gc_regset gc_regset_gfx9, gc_regset_gfx908, gc_regset_gfx90a,
        gc_regset_gfx10, gc_regset_gfx11, gc_regset_gfx12;

#endif /* GC_ARCH_REGS_H */
