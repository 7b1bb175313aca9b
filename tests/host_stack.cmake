# SPDX-License-Identifier: MIT
# The host threads' backtraces in the report (analyze/host_stack.c): cores made byte by byte
# (threads, frame-pointer unwinding, modules and build-ids, what --sysroot refuses, malformed
# notes), and end to end against eu-stack on a captured core, with no host file opened unless
# --sysroot allows it.
gpucore_unit_test(test_host_stack SOURCES unit/test_host_stack.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)

add_test(NAME analyze-e2e-host-stack
         COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/host_stack_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/analyze-e2e/host-stack
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(analyze-e2e-host-stack PROPERTIES LABELS "analyze;e2e"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)

# Seeds: the unit test's cores (GC_HOST_STACK_SEEDS=DIR test_host_stack writes them).
gpucore_fuzz_target(fuzz_host_stack SOURCE fuzz/targets/fuzz_host_stack.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
