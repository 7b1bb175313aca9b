# SPDX-License-Identifier: MIT
# libgpucore-dbgapi (analyze/dbgapi): the amd-dbgapi 0.77 header, ABI table, version script and
# status sets, checked against each other and against the built library.
gpucore_unit_test(test_dbgapi_header SOURCES unit/test_dbgapi_header.c)
target_include_directories(test_dbgapi_header PRIVATE
  ${PROJECT_SOURCE_DIR}/analyze/dbgapi/include ${PROJECT_SOURCE_DIR}/analyze/dbgapi)
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
