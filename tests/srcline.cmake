# SPDX-License-Identifier: MIT
# Source lines and inline chains (analyze/srcline.h): the unit test on compiled scenario code
# objects, one of them compiled without DWARF; gpucore analyze's lines against llvm-symbolizer
# and llvm-dwarfdump for every scenario (tests/srcline/srcline_e2e.sh), and a code object
# without DWARF; the work bounded by the bytes of DWARF (test_srcline_budget, over the code
# objects tests/tools/hostile_dwarf.c makes, and srcline-hostile-* over cores holding them).

gpucore_unit_test(test_srcline SOURCES unit/test_srcline.c LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_dependencies(test_srcline scenario-objects)
set_property(TEST test_srcline APPEND PROPERTY ENVIRONMENT
  "GPUCORE_SCENARIO_OBJECTS=${GPUCORE_SCENARIO_OBJECTS}")

# Code objects with hostile DWARF (tests/tools/hostile_dwarf.h): the library the unit test
# links, and gpucore-mkhostile-dwarf for the end-to-end cases, bench/hostile/dwarf.tsv and the
# fuzz seeds.
find_package(ZLIB REQUIRED)
add_executable(gpucore-mkhostile-dwarf ${CMAKE_CURRENT_LIST_DIR}/tools/mkhostile_dwarf.c
               ${CMAKE_CURRENT_LIST_DIR}/tools/hostile_dwarf.c)
target_link_libraries(gpucore-mkhostile-dwarf PRIVATE ZLIB::ZLIB)
gpucore_warnings(gpucore-mkhostile-dwarf)

gpucore_unit_test(test_srcline_budget SOURCES unit/test_srcline_budget.c tools/hostile_dwarf.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch ZLIB::ZLIB)
target_include_directories(test_srcline_budget PRIVATE ${CMAKE_CURRENT_LIST_DIR}/tools)

# gpucore analyze on captured cores holding such code objects (tests/srcline/srcline_hostile.sh:
# the issue's 64 K shared list under a CPU limit, every suffix refused by the budget, an altlink
# naming a FIFO under strace, a compressed-DWARF bomb under a peak-RSS bound).
foreach(kase shared suffix altlink zlib)
  add_test(NAME srcline-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/srcline/srcline_hostile.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/srcline-hostile/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${GPUCORE_SCENARIO_OBJECTS} ${PROJECT_SOURCE_DIR}/tests/scenarios
                   $<TARGET_FILE:gpucore-mkhostile-dwarf> ${kase})
  set_tests_properties(srcline-hostile-${kase} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# gpucore's line and inline chain of every group's and wave's PC of every scenario, against
# llvm-symbolizer --inlining of the same LLVM on the same code object.
gpucore_llvm_tool(GPUCORE_LLVM_SYMBOLIZER llvm-symbolizer REQUIRED)
file(GLOB _gc_srcline_scenarios RELATIVE ${PROJECT_SOURCE_DIR}/tests/scenarios
     ${PROJECT_SOURCE_DIR}/tests/scenarios/*.json)
string(REPLACE ".json" "" _gc_srcline_cases "${_gc_srcline_scenarios}")
foreach(scen IN LISTS _gc_srcline_cases ITEMS no-dwarf)
  add_test(NAME srcline-e2e-${scen}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/srcline/srcline_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/srcline-e2e/${scen}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${GPUCORE_SCENARIO_OBJECTS} ${PROJECT_SOURCE_DIR}/tests/scenarios
                   ${GPUCORE_LLVM_SYMBOLIZER} ${scen})
  set_tests_properties(srcline-e2e-${scen} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The same PCs against llvm-dwarfdump --lookup: the DIEs around each PC (subprogram and
# inlined_subroutine names, DW_AT_call_file/line/column) and its line row. Skipped (77) when
# that LLVM's llvm-dwarfdump is not installed.
gpucore_llvm_tool(GPUCORE_LLVM_DWARFDUMP llvm-dwarfdump)
foreach(scen IN LISTS _gc_srcline_cases)
  add_test(NAME srcline-dwarfdump-${scen}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/srcline/srcline_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/srcline-dwarfdump/${scen}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${GPUCORE_SCENARIO_OBJECTS} ${PROJECT_SOURCE_DIR}/tests/scenarios
                   "${GPUCORE_LLVM_DWARFDUMP}" ${scen})
  set_tests_properties(srcline-dwarfdump-${scen} PROPERTIES LABELS "analyze;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The DWARF reader over arbitrary code objects; its corpus (a scenario code object with DWARF,
# that object cut short, and small instances of every hostile_dwarf case) runs as a test. The
# hostile seeds are written by
#   gpucore-mkhostile-dwarf --seeds tests/fuzz/corpus/fuzz_srcline
# and the test below checks the committed ones are what it writes.
gpucore_fuzz_target(fuzz_srcline SOURCE fuzz/targets/fuzz_srcline.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_test(NAME fuzz-seeds-srcline-in-sync
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_seeds.sh
                 $<TARGET_FILE:gpucore-mkhostile-dwarf>
                 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_srcline)
set_tests_properties(fuzz-seeds-srcline-in-sync PROPERTIES LABELS unit)
