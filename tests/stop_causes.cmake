# SPDX-License-Identifier: MIT
# Every stop cause a wave can have. tests/scenarios/stop-causes.json covers gfx90a, gfx942,
# gfx1030 and gfx1100; stop-causes-gfx12.json a gfx1201, whose code object is hang.gfx1100.co
# relabelled for gfx1201 (LLVM 16 cannot compile for gfx12; the stop decoding needs the kernel's
# entry and descriptor, not its instructions). Rebuilt on every build: a 4 KiB copy.
set(GPUCORE_RELABELLED_GFX1201 ${GPUCORE_SCENARIO_OBJECTS}/hang.gfx1201-relabelled.co)
add_custom_target(stop-causes-objects ALL
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/tools/relabel_co.py
          ${GPUCORE_SCENARIO_OBJECTS}/hang.gfx1100.co ${GPUCORE_RELABELLED_GFX1201} 0x4e
  BYPRODUCTS ${GPUCORE_RELABELLED_GFX1201}
  COMMENT "Relabelling hang.gfx1100.co for gfx1201")
add_dependencies(stop-causes-objects scenario-objects)
# The tests that open every scenario file need it (through libgpucore-dbgapi: test_dbgapi_truth).
foreach(t test_dbgapi_truth test_image test_scenario_inferior)
  if(TARGET ${t})
    add_dependencies(${t} stop-causes-objects)
  endif()
endforeach()

# Through `gpucore analyze` (tests/analyze/stop_causes_e2e.sh): each file as written, and
# without SPI TTMP setup at ROCr debug ABI 10 and 9.
foreach(kase stop-causes stop-causes:nospi-r10 stop-causes:nospi-r9 stop-causes-gfx12
        stop-causes-gfx12:nospi-r10)
  string(REPLACE ":" "-" name ${kase})
  add_test(NAME stop-causes-e2e-${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/stop_causes_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/stop-causes-e2e/${name}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${GPUCORE_SCENARIO_OBJECTS} ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(stop-causes-e2e-${name} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
