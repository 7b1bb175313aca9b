# SPDX-License-Identifier: MIT
# libgpucore-dbgapi (dbgapi): the amd-dbgapi 0.77 header, ABI table, version script and
# status sets, checked against each other and against the built library.
gpucore_unit_test(test_dbgapi_header SOURCES unit/test_dbgapi_header.c)
target_include_directories(test_dbgapi_header PRIVATE
  ${PROJECT_SOURCE_DIR}/dbgapi/include ${PROJECT_SOURCE_DIR}/dbgapi)
# The map and table against a stub library built from the table alone, then the real library.
add_test(NAME abi-dbgapi-map
         COMMAND ${PROJECT_SOURCE_DIR}/tests/abi/check_dbgapi_abi.sh ${PROJECT_SOURCE_DIR})
add_test(NAME abi-dbgapi-lib
         COMMAND ${PROJECT_SOURCE_DIR}/tests/abi/check_dbgapi_abi.sh ${PROJECT_SOURCE_DIR}
                 $<TARGET_FILE:gpucore-dbgapi>)
add_test(NAME abi-dbgapi-statuses
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/abi/check_dbgapi_statuses.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(abi-dbgapi-map abi-dbgapi-lib abi-dbgapi-statuses PROPERTIES LABELS abi
                     ENVIRONMENT "CC=${CMAKE_C_COMPILER}")

# The library against the ground truth: a core of every scenario opened through the public
# interface and compared with what the scenario put there.
gpucore_unit_test(test_dbgapi_truth
  SOURCES unit/test_dbgapi_truth.c unit/dbgapi_client.c unit/scenario_core.c
          ${PROJECT_SOURCE_DIR}/dbgapi/dbgapi_order.c
  LIBS gpucore-dbgapi gc_analyze gc_sim_layout gc_arch gc_libcore gc_schema)
target_include_directories(test_dbgapi_truth PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
add_dependencies(test_dbgapi_truth gpucore-inferior gpucore-cli scenario-objects)
set_property(TEST test_dbgapi_truth APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}"
  "GPUCORE_INFERIOR=$<TARGET_FILE:gpucore-inferior>"
  "GPUCORE_CLI=$<TARGET_FILE:gpucore-cli>")
set_tests_properties(test_dbgapi_truth PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                     LABELS "unit;e2e;dbgapi")

# Conformance: every function, called rightly and wrongly, on a captured core kept in the
# repository (no ptrace needed).
gpucore_unit_test(test_dbgapi_api
  SOURCES unit/test_dbgapi_api.c unit/dbgapi_client.c
  LIBS gpucore-dbgapi gc_libcore gc_schema)
target_include_directories(test_dbgapi_api PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
set_property(TEST test_dbgapi_api APPEND PROPERTY ENVIRONMENT
  "GPUCORE_DBGAPI_FIXTURE=${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_image/rdna2-illegal-state.bin")
set_tests_properties(test_dbgapi_api PROPERTIES LABELS "unit;dbgapi")

# Arbitrary cores through the interface, every list walked (its own seeds and fuzz_image's).
gpucore_fuzz_target(fuzz_dbgapi SOURCE fuzz/targets/fuzz_dbgapi.c
  LIBS gpucore-dbgapi gc_libcore gc_schema CORPORA fuzz_image)
target_include_directories(fuzz_dbgapi PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
if(TARGET fuzz_dbgapi-libfuzzer)
  target_include_directories(fuzz_dbgapi-libfuzzer PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
endif()
