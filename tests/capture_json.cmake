# SPDX-License-Identifier: MIT
# End to end: `--json` records of `gpucore capture | run | watch` and the progress line on a
# terminal (tests/capture/json_e2e.sh), on gpucore-inferior with the simulated driver. Cases
# need ptrace rights and are skipped (77) without them.
foreach(kase capture file budget run watch usage progress)
  add_test(NAME capture-json-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/capture/json_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/capture-json/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(capture-json-${kase} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
