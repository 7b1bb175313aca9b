# SPDX-License-Identifier: MIT
# Tests of capture's GPU side (capture_plan): range sets, the tier plan over every scenario's
# process image, and the plan's fuzz target.

gpucore_unit_test(test_rangeset
  SOURCES unit/test_rangeset.c
  LIBS gc_capture gc_kfd gc_libcore gc_arch gc_schema)

# The plan over every scenario's process image, built in-process by the simulated layout.
if(NOT TARGET gc_sim_layout)
  include(${PROJECT_SOURCE_DIR}/kfd/sim/inferior.cmake)
endif()
gpucore_unit_test(test_plan
  SOURCES unit/test_plan.c
  LIBS gc_capture gc_kfd gc_libcore gc_sim_layout gc_arch gc_schema)
add_dependencies(test_plan scenario-objects)
set_property(TEST test_plan APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}")

# Fuzz target: a synthetic target whose memory and snapshot entries are the input. Seeds:
# tests/fuzz/corpus/fuzz_plan/ (written by test_plan from scenario images, see test_plan.c).
gpucore_fuzz_target(fuzz_plan SOURCE fuzz/targets/fuzz_plan.c
  LIBS gc_capture gc_kfd gc_libcore gc_arch gc_schema)
