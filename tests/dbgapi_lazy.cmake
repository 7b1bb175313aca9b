# SPDX-License-Identifier: MIT
# libgpucore-dbgapi maps libLLVM only when an instruction is disassembled: it opens gpucore's
# disassembler module on the first disassembly (dbgapi/CMakeLists.txt).
#  - test_dbgapi_lazy: attach and every register of every wave leave libLLVM unmapped
#    (/proc/self/maps); one disassembly maps it.
#  - dbgapi-llvm-needed: the library has no DT_NEEDED on libLLVM.
#  - dbgapi-llvm-missing: a copy of the library outside the build tree, with no module
#    installed: registers served, disassembly answers ERROR and logs why once.
if(NOT GPUCORE_DISASM_MODULE)
  return()  # LLVM linked into everything: the library links it too
endif()

gpucore_unit_test(test_dbgapi_lazy
  SOURCES unit/test_dbgapi_lazy.c unit/dbgapi_client.c
  LIBS gpucore-dbgapi gc_libcore gc_schema ${CMAKE_DL_LIBS})
add_dependencies(test_dbgapi_lazy gpucore-disasm)
set_property(TEST test_dbgapi_lazy APPEND PROPERTY ENVIRONMENT
  "GPUCORE_DBGAPI_FIXTURE=${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_image/rdna2-illegal-state.bin")
set_tests_properties(test_dbgapi_lazy PROPERTIES LABELS "unit;dbgapi")

foreach(kase needed missing)
  add_test(NAME dbgapi-llvm-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/dbgapi/llvm_lazy.sh ${kase}
                   ${CMAKE_CURRENT_BINARY_DIR}/dbgapi-llvm/${kase}
                   $<TARGET_FILE:gpucore-dbgapi> $<TARGET_FILE:test_dbgapi_lazy>
                   ${CMAKE_INSTALL_FULL_LIBDIR}/gpucore/gpucore-disasm.so)
  set_tests_properties(dbgapi-llvm-${kase} PROPERTIES LABELS "dbgapi;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endforeach()
set_property(TEST dbgapi-llvm-missing APPEND PROPERTY ENVIRONMENT
  "GPUCORE_DBGAPI_FIXTURE=${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_image/rdna2-illegal-state.bin")
