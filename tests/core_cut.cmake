# SPDX-License-Identifier: MIT
# libcore writer: cores cut short still open (headers and notes first, frames recoverable by a
# scan), and size budgets are never exceeded (tests/unit/test_core_cut.c).
gpucore_unit_test(test_core_cut
  SOURCES unit/test_core_cut.c unit/test_core_util.c
  LIBS gc_libcore gc_schema PkgConfig::ZSTD)
set_tests_properties(test_core_cut PROPERTIES TIMEOUT 600)
