# SPDX-License-Identifier: MIT
# End to end: `gpucore capture | run | watch` on gpucore-inferior with the simulated driver
# (tests/capture/cases/, one file per case). Each case starts its own inferior; cases need ptrace
# rights (root or kernel.yama.ptrace_scope 0) and are skipped (77) without them.

# sigcount SECONDS: exits with the number of SIGINTs it was delivered (the run-tty case).
add_executable(sigcount capture/sigcount.c)
gpucore_warnings(sigcount)

# check_core_bytes CORE PID: every GPU range of the core holds the running process's bytes.
add_executable(check_core_bytes capture/check_core_bytes.c)
target_link_libraries(check_core_bytes PRIVATE gpucore)
gpucore_warnings(check_core_bytes)

# One test per case file, tests/capture/cases/NAME.sh (tests/capture/capture_lib.sh says how a
# case is written): capture-e2e-NAME, or capture-e2e-NAME-INSTANCE for each instance its header
# declares, with "# instances: A B ..." lines or "# instances-from: GLOB" (a glob relative to the
# case file: the names of the files it matches, without extension, e.g. every scenario). The
# paths every case needs are in its environment.
file(GLOB _gc_e2e_case_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/capture/cases/*.sh)
set(_gc_e2e_env
  "GPUCORE=$<TARGET_FILE:gpucore-cli>"
  "INFERIOR=$<TARGET_FILE:gpucore-inferior>"
  "OBJECTS=${CMAKE_CURRENT_BINARY_DIR}/scenario-objects"
  "SCENARIOS=${PROJECT_SOURCE_DIR}/tests/scenarios"
  "CHECKER=$<TARGET_FILE:check_core_bytes>"
  "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}/capture-e2e")
foreach(case_file IN LISTS _gc_e2e_case_files)
  get_filename_component(kase ${case_file} NAME_WLE)
  get_filename_component(case_dir ${case_file} DIRECTORY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${case_file})
  file(STRINGS ${case_file} _gc_lines REGEX "^# instances(-from)?: ")
  set(instances)
  foreach(line IN LISTS _gc_lines)
    if(line MATCHES "^# instances: (.*)$")
      string(REGEX REPLACE " +" ";" words "${CMAKE_MATCH_1}")
      list(APPEND instances ${words})
    elseif(line MATCHES "^# instances-from: (.*)$")
      file(GLOB matched CONFIGURE_DEPENDS ${case_dir}/${CMAKE_MATCH_1})
      list(SORT matched)
      foreach(m IN LISTS matched)
        get_filename_component(word ${m} NAME_WLE)
        list(APPEND instances ${word})
      endforeach()
    endif()
  endforeach()
  if(NOT instances)
    set(instances "-")
  endif()
  foreach(inst IN LISTS instances)
    if(inst STREQUAL "-")
      set(tname ${kase})
      set(argument)
    else()
      set(tname ${kase}-${inst})
      set(argument ${inst})
    endif()
    add_test(NAME capture-e2e-${tname} COMMAND bash ${case_file} ${argument})
    set_tests_properties(capture-e2e-${tname} PROPERTIES LABELS "capture;e2e"
                         ENVIRONMENT "${_gc_e2e_env}" SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endforeach()

# Output patterns (-o): capture_path.c alone, without the rest of the pipeline.
gpucore_unit_test(test_capture_path
  SOURCES unit/test_capture_path.c ${PROJECT_SOURCE_DIR}/capture/capture_path.c
  LIBS gc_schema)
target_include_directories(test_capture_path PRIVATE ${PROJECT_SOURCE_DIR}/capture
                           ${PROJECT_SOURCE_DIR}/kfd)
