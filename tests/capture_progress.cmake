# SPDX-License-Identifier: MIT
# End to end: the live progress line of `gpucore capture | watch` on a terminal
# (tests/capture/progress_e2e.sh), on gpucore-inferior with the simulated driver: redrawn while
# slowed reads write memory, redrawn while a watch waits, absent on a pipe. Cases need ptrace
# rights and are skipped (77) without them.
foreach(kase write wait pipe)
  add_test(NAME capture-progress-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/capture/progress_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/capture-progress/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(capture-progress-${kase} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
