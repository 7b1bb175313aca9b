# SPDX-License-Identifier: MIT
# Tests of analyze/ (process image, gpucore analyze).

# The GPU image of cores captured from every scenario's inferior, against the scenario.
gpucore_unit_test(test_image
  SOURCES unit/test_image.c unit/scenario_core.c
  LIBS gc_analyze gc_sim_layout gc_arch gc_libcore gc_schema)
add_dependencies(test_image gpucore-inferior gpucore-cli scenario-objects)
set_property(TEST test_image APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}"
  "GPUCORE_INFERIOR=$<TARGET_FILE:gpucore-inferior>"
  "GPUCORE_CLI=$<TARGET_FILE:gpucore-cli>")
set_tests_properties(test_image PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS "unit;e2e")

# A wave's dispatch inferred when its TTMPs name none (one active dispatch, PC in its kernel),
# and not when ambiguous: cores of scenarios the test writes, captured here.
gpucore_unit_test(test_dispatch_infer
  SOURCES unit/test_dispatch_infer.c unit/scenario_core.c
  LIBS gc_analyze gc_sim_layout gc_arch gc_libcore gc_schema)
add_dependencies(test_dispatch_infer gpucore-inferior gpucore-cli scenario-objects)
set_property(TEST test_dispatch_infer APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_DIR=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}"
  "GPUCORE_INFERIOR=$<TARGET_FILE:gpucore-inferior>"
  "GPUCORE_CLI=$<TARGET_FILE:gpucore-cli>")
set_tests_properties(test_dispatch_infer PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
                     LABELS "unit;e2e")

gpucore_fuzz_target(fuzz_image SOURCE fuzz/targets/fuzz_image.c
  LIBS gc_analyze gc_libcore gc_schema gc_arch)

# C++ names demangled within bounds (analyze/demangle.h): real names, the hostile bounds.
gpucore_unit_test(test_demangle SOURCES unit/test_demangle.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
gpucore_fuzz_target(fuzz_demangle SOURCE fuzz/targets/fuzz_demangle.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# Which range holds an address (symbols, code objects, allocations), against a walk of them.
gpucore_unit_test(test_interval SOURCES unit/test_interval.c
  LIBS gc_analyze gc_arch gc_libcore gc_schema)
# Rings of many active dispatches: what the image keeps under the memory budget, the waves'
# dispatches past it, the amd-dbgapi library's view, the report's bounds (cores written here).
gpucore_unit_test(test_image_ring
  SOURCES unit/test_image_ring.c unit/test_core_util.c
  LIBS gc_triage gc_analyze gc_arch gc_libcore gc_schema)

# ---- gpucore analyze, end to end (tests/analyze/cases/, one file per case) ------------------
# One test per case file, tests/analyze/cases/NAME.sh (tests/analyze/analyze_lib.sh says how a
# case is written): analyze-e2e-NAME. A scenario case starts its own gpucore-inferior, captures it
# and checks every analyze view against the scenario file and its golden report
# (tests/analyze/golden/NAME.txt); bad-input needs no inferior.
file(GLOB _gc_analyze_case_files CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/tests/analyze/cases/*.sh)
set(_gc_analyze_env
  "GPUCORE=$<TARGET_FILE:gpucore-cli>"
  "INFERIOR=$<TARGET_FILE:gpucore-inferior>"
  "OBJECTS=${CMAKE_CURRENT_BINARY_DIR}/scenario-objects"
  "SCENARIOS=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "MKEXAMPLE=$<TARGET_FILE:gpucore-mkexample>"
  "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}/analyze-e2e")
foreach(case_file IN LISTS _gc_analyze_case_files)
  get_filename_component(kase ${case_file} NAME_WLE)
  add_test(NAME analyze-e2e-${kase} COMMAND bash ${case_file})
  set_tests_properties(analyze-e2e-${kase} PROPERTIES LABELS "analyze;e2e"
                       ENVIRONMENT "${_gc_analyze_env}" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# ---- the crash signature and analyze --exit-code (tests/analyze/signature_e2e.sh) ------------
add_test(NAME analyze-e2e-signature
         COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/signature_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/analyze-e2e/signature
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                 ${PROJECT_SOURCE_DIR}/tests/scenarios $<TARGET_FILE:gpucore-mkexample>)
set_tests_properties(analyze-e2e-signature PROPERTIES LABELS "analyze;e2e"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)

# The per-wave views (`waves` a wave at a time with its filters, regs, disasm, mem) on every
# core of fuzz_image's corpus and on stopped waves deep in their functions (its own seeds,
# gpucore-mkhostile-image deep-waves 16 and deep-hang 16); the disassembler linked in.
gpucore_fuzz_target(fuzz_triage_views SOURCE fuzz/targets/fuzz_triage_views.c
  LIBS gc_triage gc_analyze gc_arch ${GPUCORE_DISASM_LINKED} gc_libcore gc_schema
  CORPORA fuzz_image)

# The signal a core records is the one that stopped the process when the capture began: a
# SIGABRT the runtime raises after the GPU error, racing with the capture, is not (issue 23).
add_test(NAME analyze-e2e-capture-signal
         COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/capture_signal_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/analyze-e2e/capture-signal
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(analyze-e2e-capture-signal PROPERTIES LABELS "analyze;e2e"
                     SKIP_RETURN_CODE 77 TIMEOUT 120)
