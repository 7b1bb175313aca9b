# SPDX-License-Identifier: MIT
# End to end: captures under size budgets and cores cut short afterwards
# (tests/capture/cut_budget_e2e.sh). Cases need ptrace rights and are skipped (77) without.
foreach(kase usage sweep cut)
  add_test(NAME capture-cut-budget-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/capture/cut_budget_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/capture-cut-budget/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(capture-cut-budget-${kase} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
