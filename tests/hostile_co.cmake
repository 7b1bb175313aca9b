# SPDX-License-Identifier: MIT
# Code objects a target or a core names (issue 10, items 1-3): the one parser of ROCr's r_debug,
# link_map and code-object URIs (schema/gc_rocr.h), the capture reading file:// objects only as
# the target could, and the analyzer never opening a file a core names unless given
# --code-object-path.

# (gc_rocr.h's unit test is part of test_schema: tests/unit/test_schema_rocr.c)
gpucore_fuzz_target(fuzz_rocr SOURCE fuzz/targets/fuzz_rocr.c LIBS gc_schema)

# capture/target_file.c over this process as the target: refusals, ranges, the timeout.
gpucore_unit_test(test_target_file SOURCES unit/test_target_file.c
  LIBS gc_capture gc_kfd gc_libcore gc_arch gc_schema)
add_dependencies(test_target_file scenario-objects)
set_property(TEST test_target_file APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}")

# gpucore-mkhostile-co: small crafted cores whose link map names hostile URIs or loops
# (public API only; also used by bench/hostile/couri.tsv).
add_executable(gpucore-mkhostile-co ${CMAKE_CURRENT_LIST_DIR}/tools/mkhostile_co.c)
target_link_libraries(gpucore-mkhostile-co PRIVATE gc_libcore gc_schema)
gpucore_warnings(gpucore-mkhostile-co)

foreach(kase analyze capture)
  add_test(NAME hostile-co-${kase}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/hostile_co/hostile_co.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/hostile-co/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-mkhostile-co>
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(hostile-co-${kase} PROPERTIES LABELS "e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()
