# SPDX-License-Identifier: MIT
# Tests of the arch/ tables and the per-wave functions on them (arch/arch_tables.c, wave.c,
# arch_regs.c): table invariants over every target row (G-ARCH-3) and behaviour tests on
# hand-built waves, so they do not depend on the CWSR encoder.

gpucore_unit_test(test_arch_tables
  SOURCES unit/test_arch_tables.c unit/test_arch_wave.c unit/test_arch_regs.c
  LIBS gc_arch gc_schema)
