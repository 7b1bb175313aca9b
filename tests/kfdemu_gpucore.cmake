# SPDX-License-Identifier: MIT
# gpucore on AMD's ROCm user space under gpucore-kfdemu: one test per case file in
# tests/kfdemu/gpucore/ (see run-case.sh there). Needs the fixture of kfdemu.cmake.
file(GLOB kfdemu_gpucore_cases CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/tests/kfdemu/gpucore/*.case)
foreach(case_file ${kfdemu_gpucore_cases})
  get_filename_component(case ${case_file} NAME_WE)
  add_test(NAME kfdemu-gpucore-${case}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/kfdemu/gpucore/run-case.sh
                   $<TARGET_FILE:gpucore-kfdemu> $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-hook> ${kfdemu_programs}
                   ${CMAKE_CURRENT_BINARY_DIR}/kfdemu-gpucore/${case} ${case})
  set_tests_properties(kfdemu-gpucore-${case} PROPERTIES
    ENVIRONMENT "GPUCORE_ROCM_ROOT=${GPUCORE_ROCM_ROOT}"
    FIXTURES_REQUIRED kfdemu_programs
    SKIP_RETURN_CODE 77 LABELS "kfdemu;e2e" TIMEOUT 120)
endforeach()
