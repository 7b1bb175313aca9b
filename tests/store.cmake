# SPDX-License-Identifier: MIT
# The core store (store/store.h, docs/store.md): the index, its migrations and writers, the
# directory's rules and gc's order as unit tests; the commands end to end on cores of the
# simulated GPU (tests/store/store_e2e.sh).
gpucore_unit_test(test_store SOURCES unit/test_store.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# run --store, list, show, gc, store --rescan on cores of the simulated GPU; cases need ptrace
# rights and are skipped (77) without them.
foreach(kase run gc hand perm)
  add_test(NAME store-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/store/store_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/store-e2e/${kase} $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(store-e2e-${kase} PROPERTIES LABELS "store;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()

# store.conf, the store's one parser of outside bytes (G-FUZZ-1)
gpucore_fuzz_target(fuzz_store_conf SOURCE fuzz/targets/fuzz_store_conf.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
