# SPDX-License-Identifier: MIT
# End-to-end and golden-output tests of the gpucore program (tests/cli/cli_test.sh).
set(GPUCORE_CLI_CASES
  golden-info-text golden-info-segments golden-info-json golden-info-split
  golden-info-compressed compress-roundtrip compress-refuses-overwrite version help help-exit-codes help-synopsis
  compress-level-range
  usage-errors missing-input malformed-input golden-dbgapi-dump-text golden-dbgapi-dump-json
  dbgapi-dump-errors unusable-gpu-state terminal-escapes)
foreach(case ${GPUCORE_CLI_CASES})
  set(test_name cli-${case})
  add_test(NAME ${test_name}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/cli_test.sh $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-mkexample> ${CMAKE_CURRENT_BINARY_DIR}/cli-work ${case})
  set_tests_properties(${test_name} PROPERTIES LABELS cli)
endforeach()

# The filter between a core's strings and the terminal (cli_text_open).
gpucore_unit_test(test_cli_text SOURCES unit/test_cli_text.c ${PROJECT_SOURCE_DIR}/cli/common.c
  LIBS gc_capture gc_kfd gc_libcore gc_arch gc_schema PkgConfig::JANSSON)
target_include_directories(test_cli_text PRIVATE ${PROJECT_SOURCE_DIR}/cli
                           ${PROJECT_SOURCE_DIR}/analyze) # gc_json.h, which cli.h includes

# Every option a subcommand's --help lists is accepted; every option the README gives a
# subcommand is in its --help (tests/cli/help_options.py).
add_test(NAME cli-help-options
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/help_options.py
                 $<TARGET_FILE:gpucore-cli> ${PROJECT_SOURCE_DIR}/README.md
                 ${CMAKE_CURRENT_BINARY_DIR}/cli-work/help-options)
set_tests_properties(cli-help-options PROPERTIES LABELS cli)

# A capture at each end of the --compress level range (tests/cli/compress_level_e2e.sh).
add_test(NAME cli-compress-level-capture
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/compress_level_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/cli-work/compress-level-capture
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(cli-compress-level-capture PROPERTIES LABELS cli SKIP_RETURN_CODE 77
                     TIMEOUT 300)
