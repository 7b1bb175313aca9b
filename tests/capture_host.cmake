# SPDX-License-Identifier: MIT
# Tests of capture's host side (capture_host): the /proc/PID/smaps parser and the linux
# backend's GPU mappings (kfd/procmaps.c), ptrace of a thread group (capture/tracee.c), and the
# kernel's host notes and memory rules (capture/host_core.c).

# Fixtures, malformed lines with their exact messages, a live read of the test's own smaps,
# and gc_kfd_gpu_mappings on a linux session (fake ioctl, smaps_path fixture).
gpucore_unit_test(test_procmaps
  SOURCES unit/test_procmaps.c
  LIBS gc_kfd gc_schema)

# A forked child with three threads: seize, stop all but one, registers, resume, signals,
# detach, spawn, wait_exit, EINTR. Needs ptrace rights (skipped, 77, without them).
find_package(Threads REQUIRED)
gpucore_unit_test(test_tracee
  SOURCES unit/test_tracee.c
  LIBS gc_capture gc_kfd gc_libcore gc_arch gc_schema Threads::Threads)
set_tests_properties(test_tracee PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

# A live child captured into a unified core (host notes + host memory), checked with libelf,
# gdb and eu-readelf. Needs ptrace rights (77 without them).
find_program(GDB_PROGRAM gdb)
set(_gc_test_gdb "${GDB_PROGRAM}")
if(NOT GDB_PROGRAM)
  set(_gc_test_gdb "") # the gdb check is left out where gdb is missing
endif()
gpucore_unit_test(test_host_core
  SOURCES unit/test_host_core.c
  LIBS gc_capture gc_kfd gc_libcore gc_arch gc_schema Threads::Threads PkgConfig::LIBELF)
target_compile_definitions(test_host_core PRIVATE
  GC_TEST_GDB="${_gc_test_gdb}" GC_TEST_EU_READELF="${EU_READELF}")
set_tests_properties(test_host_core PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

gpucore_fuzz_target(fuzz_procmaps SOURCE fuzz/targets/fuzz_procmaps.c LIBS gc_kfd gc_schema)
