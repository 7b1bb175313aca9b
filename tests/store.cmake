# SPDX-License-Identifier: MIT
# The core store (store/store.h, docs/store.md): the index, its migrations and writers, the
# directory's rules and gc's order as unit tests; the commands end to end on cores of the
# simulated GPU (tests/store/store_e2e.sh).
gpucore_unit_test(test_store SOURCES unit/test_store.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
