# SPDX-License-Identifier: MIT
# `gpucore run` follows the command's whole process tree (capture/run_tree.c).

# End to end through `gpucore run --kfd sim` with launchers of gpucore-inferiors
# (tests/capture/tree_e2e.sh): a shell, a fan-out with two faulting processes of four, Python
# multiprocessing, a tree without GPU, SIGTERM in each phase, a command that ends before its
# descendants, job control, a second fault, a debugger in the tree, no inotify, a process let
# go of making the runtime-enable ioctl and PTRACE_TRACEME. Need ptrace rights (77).
set(_gc_tree_cases sh fan-out python no-gpu left job-control again debugger:strace debugger:strace-evil debugger:gdb
    no-inotify let-go)
foreach(phase before armed capture after)
  list(APPEND _gc_tree_cases "signal:${phase}")
endforeach()
# The signal reaches every process of the tree (a shell that does not pass it on), and what
# ignores it is killed once the command has ended (or runs on with --leave-tree).
list(APPEND _gc_tree_cases signal-sh signal-stubborn)
foreach(c IN LISTS _gc_tree_cases)
  string(REPLACE ":" ";" parts ${c})
  list(GET parts 0 kase)
  list(LENGTH parts n)
  set(argument "")
  if(n GREATER 1)
    list(GET parts 1 argument)
  endif()
  string(REPLACE ":" "-" tname ${c})
  add_test(NAME capture-tree-${tname}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/capture/tree_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/capture-tree/${tname}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase} ${argument})
  set_tests_properties(capture-tree-${tname} PROPERTIES LABELS "capture;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# The overhead benchmark (bench/run_overhead.sh), once and small, so it keeps working; nothing
# about time is asserted.
add_test(NAME bench-run-overhead-smoke
         COMMAND ${PROJECT_SOURCE_DIR}/bench/run_overhead.sh --gpucore $<TARGET_FILE:gpucore-cli>
                 --repeat 1 --execs 20 --forks 20 --fanout 10)
set_tests_properties(bench-run-overhead-smoke PROPERTIES LABELS "bench" TIMEOUT 120)
