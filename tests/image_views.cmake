# SPDX-License-Identifier: MIT
# The process image and libgpucore-dbgapi serve saved waves from the core instead of copying
# them (analyze/image.h): the heap they hold on a 10,000-wave core, plain and compressed,
# against the waves' saved bytes (mallinfo2 counts, no time).
gpucore_unit_test(test_image_views
  SOURCES unit/test_image_views.c unit/scenario_core.c unit/dbgapi_client.c
  LIBS gpucore-dbgapi gc_analyze gc_sim_layout gc_arch gc_libcore gc_schema)
target_include_directories(test_image_views PRIVATE ${PROJECT_SOURCE_DIR}/dbgapi)
add_dependencies(test_image_views gpucore-inferior gpucore-cli scenario-objects)
set_property(TEST test_image_views APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}"
  "GPUCORE_INFERIOR=$<TARGET_FILE:gpucore-inferior>"
  "GPUCORE_CLI=$<TARGET_FILE:gpucore-cli>")
set_tests_properties(test_image_views PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     LABELS "unit;e2e;dbgapi")
