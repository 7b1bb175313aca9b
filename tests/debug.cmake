# SPDX-License-Identifier: MIT
# Opening cores in a debugger (tests/debug/debug_e2e.sh): the host part of every scenario's
# core in the installed gdb (every thread's backtrace reaches main or its start routine, no
# signal named) and in `gpucore analyze --sysroot /`; and `gpucore debug` (plain and compressed
# cores, its temporary copy, exit statuses, arguments, no debugger found); `gpucore debug` on
# cores that name hostile paths or expand too far (tests/debug/debug_hostile.sh).
foreach(scen ${GPUCORE_SCENARIO_FILES})
  get_filename_component(name ${scen} NAME_WE)
  add_test(NAME debug-e2e-host-${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/debug/debug_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/debug-e2e/host-${name}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects ${scen} host)
  set_tests_properties(debug-e2e-host-${name} PROPERTIES LABELS "debug;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# The same backtraces for cores the GPU error triggers (the driver's thread busy), a few times.
foreach(scen vadd-fault rdna2-illegal rdna3-assert)
  add_test(NAME debug-e2e-run-${scen}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/debug/debug_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/debug-e2e/run-${scen}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios/${scen}.json run)
  set_tests_properties(debug-e2e-run-${scen} PROPERTIES LABELS "debug;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
add_test(NAME debug-e2e-command
         COMMAND ${PROJECT_SOURCE_DIR}/tests/debug/debug_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/debug-e2e/command
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                 ${PROJECT_SOURCE_DIR}/tests/scenarios/vadd-fault.json command)
set_tests_properties(debug-e2e-command PROPERTIES LABELS "debug;e2e"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)

# Paths a core names, resolved only below a directory the user chose (analyze/open_below.c):
# no FIFO, no file of a kernel file system (/proc/kmsg), no way out of the directory.
gpucore_unit_test(test_open_below SOURCES unit/test_open_below.c
  LIBS gc_analyze gc_libcore gc_schema gc_arch)

# gpucore-mkhostile-exe OUT meta|file PATH: a core whose capture metadata or NT_FILE names PATH
# as its executable (public API only; also used by bench/hostile/debug.tsv).
add_executable(gpucore-mkhostile-exe ${CMAKE_CURRENT_LIST_DIR}/tools/mkhostile_exe.c)
target_link_libraries(gpucore-mkhostile-exe PRIVATE gc_libcore gc_schema)
gpucore_warnings(gpucore-mkhostile-exe)

# `gpucore debug` on hostile cores, with a stand-in debugger that records what it got:
# executables named /proc/kmsg (capture metadata, NT_FILE), a FIFO, links out of --sysroot and
# /../../.. paths (strace: never opened but as an O_PATH handle below --sysroot); compressed
# cores whose copy is over --max-temp (a 1 MB core of 32 GiB), over the free space of a small
# tmpfs (and a sparse one that fits there), and --max-temp given.
foreach(kase meta-kmsg file-kmsg fifo symlink-out dotdot temp-max temp-room temp-option)
  add_test(NAME debug-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/debug/debug_hostile.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/debug-hostile/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-mkhostile-exe>
                   $<TARGET_FILE:gpucore-mkhostile-reader> ${kase})
  set_tests_properties(debug-hostile-${kase} PROPERTIES LABELS "debug;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
