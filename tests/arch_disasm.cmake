# SPDX-License-Identifier: MIT
# Tests of arch/disasm.c.
#  - test_arch_disasm: classification per family, errors, symbolization, ranges and threads on
#    hard-coded encodings (from llvm-mc), and every target row.
#  - test_arch_disasm_objdump: a kernel compiled at test time for every target of the table (18
#    with LLVM 19); every instruction compared with llvm-objdump. Skipped (77) without the tools.

gpucore_unit_test(test_arch_disasm SOURCES unit/test_arch_disasm.c LIBS gc_arch gc_schema)
# The expected "no disassembler for gfx1201 in this LLVM (16.0.6)" names the version CMake found;
# from LLVM 19 on every target must have a disassembler of its own.
target_compile_definitions(test_arch_disasm PRIVATE
  GC_TEST_LLVM_VERSION="${LLVM_PACKAGE_VERSION}" GC_TEST_LLVM_MAJOR=${GPUCORE_LLVM_MAJOR}
  GC_TEST_LLVM_ALL_TARGETS_MAJOR=${GPUCORE_LLVM_ALL_TARGETS_MAJOR})

# The tools of the LLVM the library links (its text must match that llvm-objdump's), and the
# processors that LLVM has (arch/disasm.cmake): a target it lacks is compared through its stand-in
# (gfx940 for gfx941/gfx942 on LLVM 16) or, without one, reported and left out (gfx12 on LLVM 16).
gpucore_llvm_tool(GC_DISASM_CLANG clang)
gpucore_llvm_tool(GC_DISASM_LLD ld.lld)
gpucore_llvm_tool(GC_DISASM_OBJDUMP llvm-objdump)
set(_gc_disasm_env "")
foreach(_gc_tool GC_DISASM_CLANG GC_DISASM_LLD GC_DISASM_OBJDUMP)
  if(${_gc_tool})
    list(APPEND _gc_disasm_env "${_gc_tool}=${${_gc_tool}}")
  else()
    message(STATUS "gpucore: ${_gc_tool} not found; test_arch_disasm_objdump will be skipped")
  endif()
endforeach()
get_property(_gc_llvm_cpus GLOBAL PROPERTY GPUCORE_LLVM_AMDGPU_CPUS)
string(REPLACE ";" "," _gc_llvm_cpus "${_gc_llvm_cpus}")
list(APPEND _gc_disasm_env "GC_DISASM_CPUS=${_gc_llvm_cpus}")
list(APPEND _gc_disasm_env "GC_DISASM_KERNELS=${PROJECT_SOURCE_DIR}/tests/data/kernels")

gpucore_unit_test(test_arch_disasm_objdump SOURCES unit/test_arch_disasm_objdump.c
  LIBS gc_arch gc_schema PkgConfig::LIBELF)
target_compile_definitions(test_arch_disasm_objdump PRIVATE
  GC_TEST_LLVM_MAJOR=${GPUCORE_LLVM_MAJOR}
  GC_TEST_LLVM_ALL_TARGETS_MAJOR=${GPUCORE_LLVM_ALL_TARGETS_MAJOR})
set_property(TEST test_arch_disasm_objdump APPEND PROPERTY ENVIRONMENT ${_gc_disasm_env})
set_tests_properties(test_arch_disasm_objdump PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Code bytes come from cores: the disassembler and classifier are fuzzed like every decoder.
# The LLVM half linked in (GPUCORE_DISASM_LINKED), so libFuzzer sees its coverage.
gpucore_fuzz_target(fuzz_arch_disasm SOURCE ${PROJECT_SOURCE_DIR}/tests/fuzz/targets/fuzz_arch_disasm.c
                    LIBS gc_arch ${GPUCORE_DISASM_LINKED} gc_schema)
