# SPDX-License-Identifier: MIT
# Tests of arch/disasm.c.
#  - test_arch_disasm: classification per family, errors, symbolization, ranges and threads on
#    hard-coded encodings (from llvm-mc), and every target row.
#  - test_arch_disasm_objdump: kernels compiled at test time for gfx90a, gfx940, gfx1030 and
#    gfx1100; every instruction compared with llvm-objdump. Skipped (77) without the tools.

gpucore_unit_test(test_arch_disasm SOURCES unit/test_arch_disasm.c LIBS gc_arch gc_schema)
# The expected "no disassembler for gfx1201 in this LLVM (16.0.6)" names the version CMake found.
target_compile_definitions(test_arch_disasm PRIVATE
  GC_TEST_LLVM_VERSION="${LLVM_PACKAGE_VERSION}")

# The tools of the LLVM the library links (its text must match that llvm-objdump's), found by
# their versioned names first (clang-16, ...), then in LLVM's own bin directory.
find_program(GC_DISASM_CLANG NAMES clang-${LLVM_VERSION_MAJOR} clang
             HINTS ${LLVM_TOOLS_BINARY_DIR})
find_program(GC_DISASM_LLD NAMES ld.lld-${LLVM_VERSION_MAJOR} ld.lld
             HINTS ${LLVM_TOOLS_BINARY_DIR})
find_program(GC_DISASM_OBJDUMP NAMES llvm-objdump-${LLVM_VERSION_MAJOR} llvm-objdump
             HINTS ${LLVM_TOOLS_BINARY_DIR})
set(_gc_disasm_env "")
foreach(_gc_tool GC_DISASM_CLANG GC_DISASM_LLD GC_DISASM_OBJDUMP)
  if(${_gc_tool})
    list(APPEND _gc_disasm_env "${_gc_tool}=${${_gc_tool}}")
  else()
    message(STATUS "gpucore: ${_gc_tool} not found; test_arch_disasm_objdump will be skipped")
  endif()
endforeach()
list(APPEND _gc_disasm_env "GC_DISASM_KERNELS=${PROJECT_SOURCE_DIR}/tests/data/kernels")

gpucore_unit_test(test_arch_disasm_objdump SOURCES unit/test_arch_disasm_objdump.c
  LIBS gc_arch gc_schema PkgConfig::LIBELF)
set_property(TEST test_arch_disasm_objdump APPEND PROPERTY ENVIRONMENT ${_gc_disasm_env})
set_tests_properties(test_arch_disasm_objdump PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Code bytes come from cores: the disassembler and classifier are fuzzed like every decoder.
gpucore_fuzz_target(fuzz_arch_disasm SOURCE ${PROJECT_SOURCE_DIR}/tests/fuzz/targets/fuzz_arch_disasm.c
                    LIBS gc_arch gc_schema)
