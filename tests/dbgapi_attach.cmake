# SPDX-License-Identifier: MIT
# libgpucore-dbgapi at attach, as AMD's library: the order it walks a process's waves in (and so
# the order of its events), and the TTMP edits it makes, per family.
gpucore_unit_test(test_dbgapi_order
  SOURCES unit/test_dbgapi_order.c ${PROJECT_SOURCE_DIR}/dbgapi/dbgapi_order.c
  LIBS gc_libcore gc_schema)
target_include_directories(test_dbgapi_order PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
set_tests_properties(test_dbgapi_order PROPERTIES LABELS "unit;dbgapi")
# The reference: libstdc++'s own std::unordered_map, when a C++ compiler is installed.
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  add_executable(dbgapi_order_ref unit/dbgapi_order_ref.cpp)
  set_target_properties(dbgapi_order_ref PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  add_dependencies(test_dbgapi_order dbgapi_order_ref)
  set_property(TEST test_dbgapi_order APPEND PROPERTY ENVIRONMENT
    "GPUCORE_ORDER_REF=$<TARGET_FILE:dbgapi_order_ref>")
endif()

gpucore_unit_test(test_dbgapi_ttmp
  SOURCES unit/test_dbgapi_ttmp.c ${PROJECT_SOURCE_DIR}/dbgapi/dbgapi_ttmp.c
  LIBS gc_arch gc_libcore gc_schema)
target_include_directories(test_dbgapi_ttmp PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
set_tests_properties(test_dbgapi_ttmp PROPERTIES LABELS "unit;dbgapi")
