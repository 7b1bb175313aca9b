# SPDX-License-Identifier: MIT
# Every stop cause a wave can have, through `gpucore analyze`: tests/scenarios/stop-causes.json
# and its variants (tests/analyze/stop_causes_e2e.sh). Through libgpucore-dbgapi the same file
# is test_dbgapi_truth's test_truth_stop_causes.
foreach(kase base nospi-r10 nospi-r9 gfx12)
  add_test(NAME stop-causes-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/stop_causes_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/stop-causes-e2e/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(stop-causes-e2e-${kase} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
