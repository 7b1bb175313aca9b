# SPDX-License-Identifier: MIT
# gpucore-kfdemu's faults (kfd/emu/emu_save.c, emu_faults.c): the waves a fault saves, decoded
# back through arch, and the fault plan's format.
gpucore_unit_test(test_kfdemu_save
  SOURCES unit/test_kfdemu_save.c
  LIBS gc_kfd_emu gc_sim_layout gc_schema gc_arch gc_base)
gpucore_unit_test(test_kfdemu_plan
  SOURCES unit/test_kfdemu_plan.c
  LIBS gc_kfd_emu gc_sim_layout gc_schema gc_arch gc_base)
