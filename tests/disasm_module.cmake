# SPDX-License-Identifier: MIT
# The disassembler module (arch/disasm_module.h): libLLVM is loaded only by what disassembles.
#  - test_arch_disasm_module: the loader on a copy of arch/ built with GC_DISASM_TEST_HOOKS
#    (nothing of the program has them): missing, foreign, stale and writable modules refused
#    with their sentence, disabling, the real module loaded once by several threads.
#  - disasm-module-needed: `gpucore` has no DT_NEEDED on libLLVM, the module has, and exports
#    one symbol.
#  - disasm-module-lazy: `gpucore --version`, `capture --help` and a simulated `gpucore run`
#    capture never open libLLVM (LD_DEBUG=files); `analyze` and `analyze disasm` do.
#  - disasm-module-missing: a copy of the program outside the build tree, with no module
#    installed: the report still renders and says why there is no instruction text; `analyze
#    disasm` exits 69 with one sentence.
if(NOT GPUCORE_DISASM_MODULE)
  return()  # LLVM linked into everything: there is no module to test
endif()

get_target_property(_gc_arch_sources gc_arch SOURCES)
list(TRANSFORM _gc_arch_sources PREPEND ${PROJECT_SOURCE_DIR}/arch/)
gpucore_unit_test(test_arch_disasm_module
  SOURCES unit/test_arch_disasm_module.c ${_gc_arch_sources}
  LIBS gc_schema Threads::Threads ${CMAKE_DL_LIBS})
target_include_directories(test_arch_disasm_module PRIVATE ${PROJECT_SOURCE_DIR}/arch)
foreach(_gc_stub stale noentry)
  add_library(disasm-stub-${_gc_stub} MODULE unit/disasm_module_stub.c)
  target_include_directories(disasm-stub-${_gc_stub} PRIVATE ${PROJECT_SOURCE_DIR}/arch)
  target_link_libraries(disasm-stub-${_gc_stub} PRIVATE gc_schema)
  gpucore_warnings(disasm-stub-${_gc_stub})
endforeach()
target_compile_definitions(disasm-stub-stale PRIVATE STUB_STALE)
target_compile_definitions(disasm-stub-noentry PRIVATE STUB_NO_ENTRY)
target_compile_definitions(test_arch_disasm_module PRIVATE ${GPUCORE_DISASM_DEFS}
  GC_DISASM_TEST_HOOKS
  GC_TEST_MODULE="$<TARGET_FILE:gpucore-disasm>"
  GC_TEST_STUB_STALE="$<TARGET_FILE:disasm-stub-stale>"
  GC_TEST_STUB_NOENTRY="$<TARGET_FILE:disasm-stub-noentry>"
  GC_TEST_LLVM_VERSION="${LLVM_PACKAGE_VERSION}")
add_dependencies(test_arch_disasm_module gpucore-disasm disasm-stub-stale disasm-stub-noentry)
set_property(TEST test_arch_disasm_module APPEND PROPERTY LABELS arch)

foreach(kase needed lazy missing)
  add_test(NAME disasm-module-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/arch/disasm_module_e2e.sh ${kase}
                   ${CMAKE_CURRENT_BINARY_DIR}/disasm-module/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-disasm>
                   ${CMAKE_INSTALL_FULL_LIBDIR}/gpucore/gpucore-disasm.so
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests)
  set_tests_properties(disasm-module-${kase} PROPERTIES LABELS "arch;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endforeach()
