# SPDX-License-Identifier: MIT
# End to end: --redact and --no-host-memory (docs/privacy.md) on gpucore-inferior with the
# simulated driver and the scenario privacy-secret.json (tests/privacy/privacy_e2e.sh): no
# byte of the scenario's secret reaches a redacted core, plain or compressed, and the
# analysis is the same. Cases need ptrace rights and are skipped (77) without them.
foreach(kase redact compress run cmdline no-host-memory usage)
  add_test(NAME privacy-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/privacy/privacy_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/privacy-e2e/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${GPUCORE_SCENARIO_OBJECTS} ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(privacy-e2e-${kase} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
