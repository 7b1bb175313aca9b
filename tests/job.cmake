# SPDX-License-Identifier: MIT
# `gpucore job`: the cores of eight simulated ranks of one job (tests/analyze/job_e2e.sh).
add_test(NAME job-e2e-ranks
         COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/job_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/job-e2e $<TARGET_FILE:gpucore-cli>
                 $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                 ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(job-e2e-ranks PROPERTIES LABELS "analyze;e2e" SKIP_RETURN_CODE 77
                     TIMEOUT 300)
