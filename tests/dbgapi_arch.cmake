# SPDX-License-Identifier: MIT
# libgpucore-dbgapi's architecture-level answers (registers, breakpoint, instruction sizes,
# register classes, handles, disassembly text) against AMD's amd-dbgapi 0.77, through the public
# interface: tests/data/dbgapi-registers holds AMD's answers (format in its README.md).
gpucore_unit_test(test_dbgapi_arch
  SOURCES unit/test_dbgapi_arch.c unit/dbgapi_client.c
  LIBS gpucore-dbgapi gc_libcore gc_schema)
set_property(TEST test_dbgapi_arch APPEND PROPERTY ENVIRONMENT
  "GPUCORE_DBGAPI_ARCH_DATA=${PROJECT_SOURCE_DIR}/tests/data/dbgapi-registers"
  "GPUCORE_DBGAPI_FIXTURE=${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_image/rdna2-illegal-state.bin")
set_tests_properties(test_dbgapi_arch PROPERTIES LABELS "unit;dbgapi")
