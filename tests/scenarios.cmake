# SPDX-License-Identifier: MIT
# Scenarios of the simulated GPU process (tests/scenarios/README.md): the kernels they dispatch,
# compiled at build time into real code objects; the scenario parser's and layout's tests; the
# parser's fuzz target; and the inferior test that reads a running gpucore-inferior's memory.

# kfd/sim/CMakeLists.txt includes inferior.cmake once it is part of the build; until then the
# tests bring the targets in themselves.
if(NOT TARGET gc_sim_layout)
  include(${PROJECT_SOURCE_DIR}/kfd/sim/inferior.cmake)
endif()

# The clang and ld.lld of the LLVM the library links (cmake/GpucoreLLVM.cmake).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
gpucore_llvm_tool(GPUCORE_LLVM_CLANG clang REQUIRED)
gpucore_llvm_tool(GPUCORE_LLVM_LLD ld.lld REQUIRED)

# Code objects: <stem>.<target>.co in ${GPUCORE_SCENARIO_OBJECTS}, what scenario files name.
# They carry DWARF 5 as ROCm compiles device code, with the checkout's path mapped to /gpucore
# (/gpucore/tests/scenarios/kernels/X.cl), so that reports naming them do not depend on it.
# One target per family (gfx90a, gfx940, gfx1030, gfx1100), and gfx942, gfx1200 and gfx1201
# natively when the LLVM has them (LLVM 19). LLVM 16 has none of the three: its gfx942 objects
# are its gfx940 build marked gfx942 (the same ISA: retarget_co.py), so mi300-xcc runs with
# either LLVM; it has no gfx12 objects (no scenario needs them yet).
set(GPUCORE_SCENARIO_OBJECTS ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects)
file(MAKE_DIRECTORY ${GPUCORE_SCENARIO_OBJECTS})
set(GPUCORE_SCENARIO_KERNELS vadd hang trap)
set(GPUCORE_SCENARIO_TARGETS gfx90a gfx940 gfx1030 gfx1100)
get_property(_gc_llvm_cpus GLOBAL PROPERTY GPUCORE_LLVM_AMDGPU_CPUS)
foreach(target IN ITEMS gfx942 gfx1200 gfx1201)
  if(target IN_LIST _gc_llvm_cpus)
    list(APPEND GPUCORE_SCENARIO_TARGETS ${target})
  endif()
endforeach()
# Code object v4 for vadd and hang, v5 for trap.cl (ROCm 6's default): its kernel check has hidden
# arguments (the dispatch geometry, the printf buffer), which the simulated runtime fills. Both
# are given explicitly, as the default differs between LLVM versions (v4 in 16, v5 in 19).
set(GPUCORE_SCENARIO_FLAGS_vadd -mcode-object-version=4)
set(GPUCORE_SCENARIO_FLAGS_hang -mcode-object-version=4)
set(GPUCORE_SCENARIO_FLAGS_trap -mcode-object-version=5)

# Rewritten (and so newer than every object) only when the LLVM changes: a tree reconfigured for
# another LLVM (-DLLVM_DIR=...) recompiles its kernels with that LLVM's clang.
file(CONFIGURE OUTPUT ${GPUCORE_SCENARIO_OBJECTS}/llvm.stamp
     CONTENT "LLVM ${LLVM_PACKAGE_VERSION}: ${GPUCORE_LLVM_CLANG} ${GPUCORE_LLVM_LLD}\n")

# gpucore_kernel_object(CO KERNEL TARGET [CLANG_FLAGS...]): the code object CO (and CO.o) from
# tests/scenarios/kernels/KERNEL.cl for TARGET, at -O2, with the extra flags given.
function(gpucore_kernel_object co kernel target)
  set(src ${PROJECT_SOURCE_DIR}/tests/scenarios/kernels/${kernel}.cl)
  add_custom_command(
    OUTPUT ${co}
    COMMAND ${GPUCORE_LLVM_CLANG} -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa
            -mcpu=${target} -nogpulib -O2 ${ARGN} -c ${src} -o ${co}.o
    COMMAND ${GPUCORE_LLVM_LLD} -shared ${co}.o -o ${co}
    DEPENDS ${src} ${GPUCORE_SCENARIO_OBJECTS}/llvm.stamp
    COMMENT "Code object ${co}"
    VERBATIM)
endfunction()

set(_gc_scen_objs)
foreach(kernel IN LISTS GPUCORE_SCENARIO_KERNELS)
  foreach(target IN LISTS GPUCORE_SCENARIO_TARGETS)
    set(co ${GPUCORE_SCENARIO_OBJECTS}/${kernel}.${target}.co)
    gpucore_kernel_object(${co} ${kernel} ${target} -g -gdwarf-5 -cl-kernel-arg-info
                          -ffile-prefix-map=${PROJECT_SOURCE_DIR}=/gpucore
                          -fdebug-compilation-dir=/gpucore ${GPUCORE_SCENARIO_FLAGS_${kernel}})
    list(APPEND _gc_scen_objs ${co})
  endforeach()
  if(NOT "gfx942" IN_LIST GPUCORE_SCENARIO_TARGETS)
    set(co ${GPUCORE_SCENARIO_OBJECTS}/${kernel}.gfx942.co)
    add_custom_command(
      OUTPUT ${co}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scenarios/retarget_co.py
              ${GPUCORE_SCENARIO_OBJECTS}/${kernel}.gfx940.co ${co} gfx940 gfx942
      DEPENDS ${GPUCORE_SCENARIO_OBJECTS}/${kernel}.gfx940.co
              ${PROJECT_SOURCE_DIR}/tests/scenarios/retarget_co.py
      COMMENT "Code object ${co} (gfx940 code: LLVM ${GPUCORE_LLVM_MAJOR} has no gfx942)"
      VERBATIM)
    list(APPEND _gc_scen_objs ${co})
  endif()
endforeach()
# vadd without those flags: no DWARF and no argument names, as a plain OpenCL build gives
# (the "no line information" and unnamed-argument paths of srcline and kernargs).
set(GPUCORE_PLAIN_VADD ${GPUCORE_SCENARIO_OBJECTS}/vadd.plain.gfx90a.co)
gpucore_kernel_object(${GPUCORE_PLAIN_VADD} vadd gfx90a ${GPUCORE_SCENARIO_FLAGS_vadd})
add_custom_target(scenario-objects ALL DEPENDS ${_gc_scen_objs} ${GPUCORE_PLAIN_VADD})

# Every scenario object is built for the target its name says (ELF machine and target ID), and
# LLVM 19 builds gfx942, gfx1200 and gfx1201 natively.
set(_gc_obj_targets ${GPUCORE_SCENARIO_TARGETS})
list(APPEND _gc_obj_targets gfx942)
list(REMOVE_DUPLICATES _gc_obj_targets)
add_test(NAME scenario-objects-targets
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scenarios/check_objects.py
                 ${GPUCORE_SCENARIO_OBJECTS} ${GPUCORE_LLVM_MAJOR}
                 ${GPUCORE_LLVM_ALL_TARGETS_MAJOR} ${_gc_obj_targets})
set_tests_properties(scenario-objects-targets PROPERTIES LABELS unit)

file(GLOB GPUCORE_SCENARIO_FILES ${PROJECT_SOURCE_DIR}/tests/scenarios/*.json)

# Parser: every scenario file parses; every broken scenario fails with its message.
gpucore_unit_test(test_scenario
  SOURCES unit/test_scenario.c
  LIBS gc_sim_layout gc_arch gc_schema)
set_property(TEST test_scenario APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}")

# Inferior: start gpucore-inferior, attach, read its memory and decode it to the scenario.
gpucore_unit_test(test_scenario_inferior
  SOURCES unit/test_scenario_inferior.c
  LIBS gc_sim_layout gc_kfd gc_arch gc_schema)
add_dependencies(test_scenario_inferior gpucore-inferior scenario-objects)
set_property(TEST test_scenario_inferior APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}"
  "GPUCORE_INFERIOR=$<TARGET_FILE:gpucore-inferior>")
set_tests_properties(test_scenario_inferior PROPERTIES TIMEOUT 300)

gpucore_fuzz_target(fuzz_scenario SOURCE fuzz/targets/fuzz_scenario.c LIBS gc_sim_layout gc_arch gc_schema)

# The node-scale scenarios (tests/scenarios/node): the generator still writes the checked-in
# files, and 8 MI300X at full occupancy (77,824 waves) are captured, analyzed and served by the
# library. Label "scale": the sanitized run leaves it out (scripts/test.sh), as it does the
# benchmarks, for the time 78k waves take under ASan.
add_test(NAME scale-e2e-node-8x
         COMMAND ${PROJECT_SOURCE_DIR}/tests/scenarios/node/node_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/scale-e2e $<TARGET_FILE:gpucore-cli>
                 $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects)
set_tests_properties(scale-e2e-node-8x PROPERTIES LABELS "scale;e2e" SKIP_RETURN_CODE 77
                     TIMEOUT 300)
