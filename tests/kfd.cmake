# SPDX-License-Identifier: MIT
# Tests of kfd/ (shared layer and linux backend). The sim backend's tests are in kfd_sim.cmake.

# A fake ioctl layer plays the driver, so every path runs without a GPU.
gpucore_unit_test(test_kfd_linux
  SOURCES unit/test_kfd_linux.c
  LIBS gc_kfd gc_schema)

# amdkfd's sysfs topology (kfd_topology.c), from trees the test writes, hostile ones included.
gpucore_unit_test(test_kfd_topology
  SOURCES unit/test_kfd_topology.c
  LIBS gc_kfd)
# Its properties parser on any text (corpus: tests/fuzz/corpus/fuzz_kfd_topology/).
gpucore_fuzz_target(fuzz_kfd_topology SOURCE fuzz/targets/fuzz_kfd_topology.c LIBS gc_kfd gc_schema)

# `gpucore kfd-check` on a machine without /dev/kfd (skipped, 77, where one exists).
foreach(case no-driver device-missing)
  add_test(NAME kfd-check-${case}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/kfd/kfd_check.sh $<TARGET_FILE:gpucore-cli>
                   ${case})
  set_tests_properties(kfd-check-${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endforeach()

# The sim backend through the CLI: a gpucore-inferior hosts the simulated driver. The scenario's
# code objects are built by scenarios.cmake into scenario-objects/ (included after this file,
# hence the spelled-out path); the script skips (77) when they are missing.
if(TARGET gpucore-inferior)
  add_test(NAME kfd-check-sim
           COMMAND ${PROJECT_SOURCE_DIR}/tests/kfd/kfd_check.sh $<TARGET_FILE:gpucore-cli> sim
                   $<TARGET_FILE:gpucore-inferior>
                   ${PROJECT_SOURCE_DIR}/tests/scenarios/vadd-fault.json
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects)
  set_tests_properties(kfd-check-sim PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endif()
