# SPDX-License-Identifier: MIT
# gpucore-kfdemu running AMD's own ROCm user space (rocminfo, HIP, ROCr's HSA API) from the
# Debian 13 root that scripts/rocm-root.sh builds. The fixture kfdemu-build-programs compiles
# tests/kfdemu/programs/ inside that root (hipcc, clang-17) into
# build/tests/kfdemu/programs/<target>/; the cases run them under the emulator. Without the root
# (scripts/rocm-root.sh not run, or it failed) every test here is skipped, naming the reason.
set(GPUCORE_ROCM_ROOT "/var/cache/gpucore/rocm-root-trixie" CACHE PATH
    "The Debian 13 ROCm root of the kfdemu tests, as scripts/rocm-root.sh builds it")

# Where the programs go. scripts/test.sh points its sanitizer tree at the normal tree's, which
# the fixture finds up to date (build-programs.sh compares the sources' hash).
set(GPUCORE_KFDEMU_PROGRAMS "${CMAKE_CURRENT_BINARY_DIR}/kfdemu/programs" CACHE PATH
    "Where the kfdemu tests' programs are compiled to (or found up to date)")
set(kfdemu_programs ${GPUCORE_KFDEMU_PROGRAMS})
# The offload targets the programs are built for: the emulator's default device. (gfx942 and
# gfx1100 build too, about 20 s more each.)
set(kfdemu_targets gfx90a)

add_test(NAME kfdemu-build-programs
         COMMAND ${PROJECT_SOURCE_DIR}/tests/kfdemu/build-programs.sh ${GPUCORE_ROCM_ROOT}
                 ${kfdemu_programs} ${kfdemu_targets})
set_tests_properties(kfdemu-build-programs PROPERTIES
  FIXTURES_SETUP kfdemu_programs
  ENVIRONMENT "GPUCORE_KFDEMU=$<TARGET_FILE:gpucore-kfdemu>"
  # Measured: about 20 s per target on an idle 2-core machine (four hipcc runs, two clang).
  SKIP_RETURN_CODE 77 LABELS "kfdemu;e2e" TIMEOUT 600)

foreach(case rocminfo hip-vadd hsa-dispatch hip-oob hip-illegal hip-assert hang debugger dbgapi)
  add_test(NAME kfdemu-${case}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/kfdemu/kfdemu_e2e.sh $<TARGET_FILE:gpucore-kfdemu>
                   ${kfdemu_programs} ${CMAKE_CURRENT_BINARY_DIR}/kfdemu/${case} ${case})
  set_tests_properties(kfdemu-${case} PROPERTIES
    ENVIRONMENT "GPUCORE_ROCM_ROOT=${GPUCORE_ROCM_ROOT}"
    SKIP_RETURN_CODE 77 LABELS "kfdemu;e2e" TIMEOUT 120)
endforeach()
set_tests_properties(kfdemu-hip-vadd kfdemu-hsa-dispatch kfdemu-hip-oob kfdemu-hip-illegal
  kfdemu-hip-assert kfdemu-hang kfdemu-debugger kfdemu-dbgapi PROPERTIES FIXTURES_REQUIRED kfdemu_programs)
