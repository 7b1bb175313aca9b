# SPDX-License-Identifier: MIT
# Kernel arguments (analyze/kernargs.c, analyze/triage_args.c): the NT_AMDGPU_METADATA parser,
# its fuzz target, and the report's decoded arguments checked against the scenarios; the device
# printf buffer decoded with the metadata's amdhsa.printf (analyze/devprintf.c).

# The scenario objects are compiled with -cl-kernel-arg-info, so their metadata names the
# arguments (.name), as HIP always does; ${GPUCORE_PLAIN_VADD} is compiled without it
# (metadata without names, as OpenCL compilers give by default: the parser's unnamed path).
gpucore_unit_test(test_kernargs
  SOURCES unit/test_kernargs.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_dependencies(test_kernargs scenario-objects)
set_property(TEST test_kernargs APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}"
  "GPUCORE_KERNARGS_OBJECT=${GPUCORE_PLAIN_VADD}")

# The device printf decoder (analyze/devprintf.c) on synthetic formats and buffers.
gpucore_unit_test(test_devprintf
  SOURCES unit/test_devprintf.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)

gpucore_fuzz_target(fuzz_devprintf SOURCE fuzz/targets/fuzz_devprintf.c LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
gpucore_fuzz_target(fuzz_kernargs SOURCE fuzz/targets/fuzz_kernargs.c LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# Each scenario with kernel arguments, captured from its inferior, its report's decoded
# arguments checked against the scenario's kernargs.
foreach(kase vadd-fault mi300-xcc rdna2-illegal rdna3-assert)
  add_test(NAME kernargs-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/kernargs_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/kernargs-e2e/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${GPUCORE_SCENARIO_OBJECTS} ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(kernargs-e2e-${kase} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
