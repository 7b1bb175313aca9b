# SPDX-License-Identifier: MIT
# The fault address related to the allocation map, end to end (tests/analyze/relation_e2e.sh):
# vadd-fault with its exception's address inside a buffer, past its end, before it, and in the
# main thread's stack (the scenario's buffer- and host-relative addresses), captured and analyzed.
foreach(kase inside past-end before host)
  add_test(NAME analyze-e2e-relation-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/relation_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/analyze-e2e/relation-${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(analyze-e2e-relation-${kase} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
