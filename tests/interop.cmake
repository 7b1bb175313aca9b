# SPDX-License-Identifier: MIT
# Interop and reproducibility: the example-core generator, and tests that hand its output to
# other people's tools (eu-readelf, llvm-readelf, zstd, gdb) and check it is reproducible.
# Included from tests/CMakeLists.txt, which finds EU_READELF and LLVM_READELF.

# gpucore-mkexample: writes a deterministic example core with the public API only. Used by the
# README demo, the CLI golden tests and the interop tests below.
add_executable(gpucore-mkexample ${CMAKE_CURRENT_LIST_DIR}/tools/mkexample.c)
target_link_libraries(gpucore-mkexample PRIVATE gc_libcore gc_schema)
gpucore_warnings(gpucore-mkexample)

# Optional tools: a test whose tool is missing exits 77 and is reported as skipped.
find_program(GPUCORE_ZSTD_CLI zstd)
find_program(GPUCORE_GDB gdb)
find_program(GPUCORE_BASH bash REQUIRED)

set(GPUCORE_INTEROP_DIR ${CMAKE_CURRENT_LIST_DIR}/interop)
set(GPUCORE_INTEROP_WORK ${CMAKE_CURRENT_BINARY_DIR}/tmp/interop)

# gpucore_interop_test(NAME SCRIPT ARGS...): run tests/interop/SCRIPT WORKDIR MKEXAMPLE ARGS...
# WORKDIR is private to the test, so tests can run in parallel.
function(gpucore_interop_test name script)
  add_test(NAME interop-${name}
           COMMAND ${GPUCORE_BASH} ${GPUCORE_INTEROP_DIR}/${script}
                   ${GPUCORE_INTEROP_WORK}/${name} $<TARGET_FILE:gpucore-mkexample> ${ARGN})
  set_tests_properties(interop-${name} PROPERTIES LABELS interop SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endfunction()

gpucore_interop_test(mkexample-usage mkexample_usage.sh)
gpucore_interop_test(determinism determinism.sh)
gpucore_interop_test(eu-readelf readelf.sh eu ${EU_READELF})
gpucore_interop_test(llvm-readelf readelf.sh llvm ${LLVM_READELF})
gpucore_interop_test(zstd-decompress zstd.sh ${GPUCORE_ZSTD_CLI})
gpucore_interop_test(gdb gdb.sh errors ${GPUCORE_GDB})
gpucore_interop_test(gdb-no-warnings gdb.sh warnings ${GPUCORE_GDB})
# The installed tree on its own, and libgpucore-dbgapi loaded under AMD's file name.
gpucore_interop_test(install-tree install_tree.sh ${PROJECT_BINARY_DIR})

# The benchmark still builds, runs and reads back exactly what it wrote (it checks a sample of
# pages itself). A small image keeps this fast; nothing about time is asserted.
add_test(NAME bench-core-smoke
         COMMAND gpucore-bench-core --size 16M --repeat 1 --dir ${CMAKE_CURRENT_BINARY_DIR}/tmp)
set_tests_properties(bench-core-smoke PROPERTIES LABELS bench TIMEOUT 300)
