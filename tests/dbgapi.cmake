# SPDX-License-Identifier: MIT
# amd-dbgapi 0.77 header, ABI table and version script (analyze/dbgapi). The library serving the
# API on cores is not built yet; the map and table are checked against a stub library the script
# builds from the table.
gpucore_unit_test(test_dbgapi_header SOURCES unit/test_dbgapi_header.c)
target_include_directories(test_dbgapi_header PRIVATE
  ${PROJECT_SOURCE_DIR}/analyze/dbgapi/include ${PROJECT_SOURCE_DIR}/analyze/dbgapi)
add_test(NAME abi-dbgapi-map
         COMMAND ${PROJECT_SOURCE_DIR}/tests/abi/check_dbgapi_abi.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(abi-dbgapi-map PROPERTIES LABELS abi ENVIRONMENT "CC=${CMAKE_C_COMPILER}")
