# SPDX-License-Identifier: MIT
# The host threads' backtraces in the report (analyze/host_stack.c): cores made byte by byte
# (threads, frame-pointer unwinding, modules and build-ids, what --sysroot refuses, malformed
# notes), end to end against eu-stack on a captured core, with no host file opened unless
# --sysroot allows it, and cores whose vDSO's DWARF names files.
gpucore_unit_test(test_host_stack SOURCES unit/test_host_stack.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)

add_test(NAME analyze-e2e-host-stack
         COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/host_stack_e2e.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/analyze-e2e/host-stack
                 $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                 ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(analyze-e2e-host-stack PROPERTIES LABELS "analyze;e2e"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)

# Seeds: the unit test's cores (GC_HOST_STACK_SEEDS=DIR test_host_stack writes them).
gpucore_fuzz_target(fuzz_host_stack SOURCE fuzz/targets/fuzz_host_stack.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# A core whose vDSO image names files through its DWARF: its .gnu_debugaltlink (libdw opened the
# path as it is to read a unit's strings, and a FIFO there blocked the report for ever), its
# .gnu_debuglink, a split unit's DW_AT_GNU_dwo_name, all FIFOs; `gpucore analyze` under strace
# and a timeout, without --sysroot, with the supplementary file below --sysroot at its
# build-id's place, and with what is refused there. The bombs: an image with a section that
# would be inflated (xz .gnu_debugdata, SHF_COMPRESSED, .zdebug_*) is not read, under a memory
# limit (tests/analyze/hostile_vdso.sh).
foreach(kase altlink sysroot-alt sysroot-refused xz-bomb zlib-bomb zdebug-bomb)
  add_test(NAME analyze-host-stack-vdso-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/hostile_vdso.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/host-stack/vdso-${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-mkexample>
                   ${PROJECT_SOURCE_DIR}/tests/tools/mkhostile_vdso.py ${kase})
  set_tests_properties(analyze-host-stack-vdso-${kase} PROPERTIES LABELS "analyze;hostile"
                       TIMEOUT 300)
endforeach()

# The vDSO seeds of fuzz_host_stack (vdso-altlink, vdso-xz, vdso-zlib) are written by
#   tests/tools/mkhostile_vdso.py tests/fuzz/corpus/fuzz_host_stack
# and this checks the committed ones are what it writes.
add_test(NAME fuzz-seeds-host-stack-in-sync
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_seeds.sh
                 ${PROJECT_SOURCE_DIR}/tests/tools/mkhostile_vdso.py
                 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_host_stack)
set_tests_properties(fuzz-seeds-host-stack-in-sync PROPERTIES LABELS unit)
