# SPDX-License-Identifier: MIT
# Source lines and inline chains (analyze/srcline.h): the unit test on compiled scenario code
# objects, one of them compiled without DWARF.

set(_gc_nodebug_co ${GPUCORE_SCENARIO_OBJECTS}/vadd.nodebug.gfx90a.co)
add_custom_command(
  OUTPUT ${_gc_nodebug_co}
  COMMAND ${GPUCORE_CLANG16} -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx90a
          -nogpulib -O2 -c ${PROJECT_SOURCE_DIR}/tests/scenarios/kernels/vadd.cl
          -o ${GPUCORE_SCENARIO_OBJECTS}/vadd.nodebug.gfx90a.o
  COMMAND ${GPUCORE_LLD16} -shared ${GPUCORE_SCENARIO_OBJECTS}/vadd.nodebug.gfx90a.o
          -o ${_gc_nodebug_co}
  DEPENDS ${PROJECT_SOURCE_DIR}/tests/scenarios/kernels/vadd.cl
  COMMENT "Code object vadd.nodebug.gfx90a.co (no DWARF)"
  VERBATIM)
add_custom_target(srcline-objects ALL DEPENDS ${_gc_nodebug_co})

gpucore_unit_test(test_srcline SOURCES unit/test_srcline.c LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_dependencies(test_srcline scenario-objects srcline-objects)
set_property(TEST test_srcline APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}")
