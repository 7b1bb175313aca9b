# SPDX-License-Identifier: MIT
# The core reader against hostile input (issue 10: memory budget, FIFOs and devices, files that
# shrink while read, compressed cores cut short).

# gpucore-mkhostile-reader OUT CASE [SCALE]: the crafted cores, for the tests below and for
# bench/hostile/reader.tsv.
add_library(gc_hostile_reader STATIC ${CMAKE_CURRENT_LIST_DIR}/tools/hostile_reader.c)
target_include_directories(gc_hostile_reader PUBLIC ${CMAKE_CURRENT_LIST_DIR}/tools)
gpucore_warnings(gc_hostile_reader)
add_executable(gpucore-mkhostile-reader ${CMAKE_CURRENT_LIST_DIR}/tools/mkhostile_reader.c)
target_link_libraries(gpucore-mkhostile-reader PRIVATE gc_hostile_reader)
gpucore_warnings(gpucore-mkhostile-reader)

gpucore_unit_test(test_core_hostile
  SOURCES unit/test_core_hostile.c unit/test_core_util.c
  LIBS gc_libcore gc_schema gc_hostile_reader PkgConfig::ZSTD)
# White-box: the frame index and the budget are internal interfaces.
target_include_directories(test_core_hostile PRIVATE ${PROJECT_SOURCE_DIR}/libcore)

# The gpucore program on the same inputs, under an address-space limit where the build allows.
add_test(NAME cli-reader-hostile
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/reader_hostile.sh $<TARGET_FILE:gpucore-cli>
                 $<TARGET_FILE:gpucore-mkhostile-reader> ${CMAKE_CURRENT_BINARY_DIR}/reader-work
                 $<IF:$<BOOL:${GPUCORE_SANITIZE}>,sanitized,plain>)
set_tests_properties(cli-reader-hostile PROPERTIES LABELS cli TIMEOUT 300)
