# SPDX-License-Identifier: MIT
# Tests of the simulated driver (kfd/sim/driver.c, kfd/kfd_sim_protocol.c) and its client (kfd/kfd_sim.c).

# The driver's rules, served in-process through its request handler (no socket, no ptrace).
gpucore_unit_test(test_kfd_sim
  SOURCES unit/test_kfd_sim.c
  LIBS gc_kfd_sim_driver gc_kfd_sim_protocol gc_arch gc_schema)

# End to end: a forked child hosts the driver on a socket, the parent ptrace-seizes it and
# drives it through gc_kfd with the sim backend. Needs ptrace rights (root or ptrace_scope 0).
gpucore_unit_test(test_kfd_sim_live
  SOURCES unit/test_kfd_sim_live.c
  LIBS gc_kfd gc_kfd_sim_driver gc_kfd_sim_protocol gc_arch gc_schema)
set_tests_properties(test_kfd_sim_live PROPERTIES SKIP_RETURN_CODE 77)

gpucore_fuzz_target(fuzz_sim_protocol SOURCE fuzz/targets/fuzz_sim_protocol.c
  LIBS gc_kfd_sim_driver gc_kfd_sim_protocol gc_arch gc_schema)
