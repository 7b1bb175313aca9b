# SPDX-License-Identifier: MIT
# End to end: `gpucore capture | run | watch` on gpucore-inferior with the simulated driver
# (tests/capture/capture_e2e.sh). Each case starts its own inferior; cases need ptrace rights
# (root or kernel.yama.ptrace_scope 0) and are skipped (77) without them.

# sigcount SECONDS: exits with the number of SIGINTs it was delivered (the run-tty case).
add_executable(sigcount capture/sigcount.c)
gpucore_warnings(sigcount)

# check_core_bytes CORE PID: every GPU range of the core holds the running process's bytes.
add_executable(check_core_bytes capture/check_core_bytes.c)
target_link_libraries(check_core_bytes PRIVATE gpucore)
gpucore_warnings(check_core_bytes)

file(GLOB _gc_e2e_scenarios RELATIVE ${PROJECT_SOURCE_DIR}/tests/scenarios
     ${PROJECT_SOURCE_DIR}/tests/scenarios/*.json)
set(_gc_e2e_cases)
foreach(f IN LISTS _gc_e2e_scenarios)
  string(REGEX REPLACE "\\.json$" "" s ${f})
  list(APPEND _gc_e2e_cases "scenario:${s}")
endforeach()
list(APPEND _gc_e2e_cases capture-abort waves pattern not-utf8 compress run run-exit watch watch-exit
     big-default max-size deadline
     memory-eio exit-mid:suspend exit-mid:resume enospc no-driver exists usage)
foreach(sig INT TERM HUP QUIT)
  list(APPEND _gc_e2e_cases "signal:${sig}" "run-signal:${sig}")
endforeach()
# `gpucore run` never orphans: a signal in each phase, a failure after the start; a tracer.
list(APPEND _gc_e2e_cases run-signal-capture run-signal-after run-fault:enable run-fault:suspend
     run-tty traced)
# `gpucore run` is never the reason a job does not run, says what failed, and a signal to the
# process group abandons a capture at once.
list(APPEND _gc_e2e_cases run-exists run-capture-fails run-signal-group)
foreach(op get_version enable runtime_info device_snapshot queue_snapshot suspend resume
           disable query_event query_exception)
  list(APPEND _gc_e2e_cases "fault:${op}")
endforeach()

foreach(c IN LISTS _gc_e2e_cases)
  string(REPLACE ":" ";" parts ${c})
  list(GET parts 0 kase)
  list(LENGTH parts n)
  set(argument "")
  if(n GREATER 1)
    list(GET parts 1 argument)
  endif()
  string(REPLACE ":" "-" tname ${c})
  add_test(NAME capture-e2e-${tname}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/capture/capture_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/capture-e2e/${tname}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios $<TARGET_FILE:check_core_bytes>
                   ${kase} ${argument})
  set_tests_properties(capture-e2e-${tname} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# Output patterns (-o): capture_path.c alone, without the rest of the pipeline.
gpucore_unit_test(test_capture_path
  SOURCES unit/test_capture_path.c ${PROJECT_SOURCE_DIR}/capture/capture_path.c
  LIBS gc_schema)
target_include_directories(test_capture_path PRIVATE ${PROJECT_SOURCE_DIR}/capture
                           ${PROJECT_SOURCE_DIR}/kfd)
