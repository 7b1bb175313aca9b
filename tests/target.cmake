# SPDX-License-Identifier: MIT
# A capture does no harm to its target and keeps what a debugger needs first
# (tests/target/target_e2e.sh): on gpucore-inferior with the simulated driver, like the
# capture-e2e cases; skipped (77) without ptrace rights.

# check_core_stacks CORE [SKIP_TID...]: each thread's memory at its stack pointer is in the core.
add_executable(check_core_stacks target/check_core_stacks.c)
target_link_libraries(check_core_stacks PRIVATE gpucore)
gpucore_warnings(check_core_stacks)

foreach(kase no-harm stacks-first)
  add_test(NAME target-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/target/target_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/target-e2e/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios $<TARGET_FILE:check_core_bytes>
                   $<TARGET_FILE:check_core_stacks> ${kase})
  set_tests_properties(target-e2e-${kase} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
