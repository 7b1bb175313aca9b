# SPDX-License-Identifier: MIT
# `gpucore capture --error-thread` (tests/capture/error_thread_e2e.sh): the runtime hook's
# thread recorded, written first and marked; usage errors; a tid that is not the target's.
add_test(NAME capture-error-thread
         COMMAND ${PROJECT_SOURCE_DIR}/tests/capture/error_thread_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/error-thread
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(capture-error-thread PROPERTIES LABELS "capture;e2e" SKIP_RETURN_CODE 77
                     TIMEOUT 300)
