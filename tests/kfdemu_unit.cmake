# SPDX-License-Identifier: MIT
# The emulated amdkfd's model (kfd/emu: gc_kfd_emu) without a process: devices and topology,
# the ioctls with a fake memory, the DRM node, the command processor (test_kfdemu_model); the
# cases where the emulator differs from Linux 6.12's amdkfd/amdgpu, each naming the kernel
# source line (test_kfdemu_kernel_divergence: fails until kfd/emu follows the kernel); and the
# fuzz target of the ioctl decoding with its seed generator.

gpucore_unit_test(test_kfdemu_model SOURCES unit/test_kfdemu_model.c LIBS gc_kfd_emu)
add_test(NAME test_kfdemu_kernel_divergence COMMAND test_kfdemu_model divergence)
set_tests_properties(test_kfdemu_kernel_divergence PROPERTIES LABELS unit
  ENVIRONMENT "GPUCORE_TEST_TMPDIR=${CMAKE_CURRENT_BINARY_DIR}/tmp;CMOCKA_MESSAGE_OUTPUT=stdout")

gpucore_fuzz_target(fuzz_kfdemu_ioctl SOURCE fuzz/targets/fuzz_kfdemu_ioctl.c LIBS gc_kfd_emu)

# Writes the seed corpus of fuzz_kfdemu_ioctl (run by hand when the input form or the calls
# change):
#   gen_kfdemu_ioctl_seeds tests/fuzz/corpus/fuzz_kfdemu_ioctl
# The test checks the committed seeds are what it writes.
add_executable(gen_kfdemu_ioctl_seeds tools/gen_kfdemu_ioctl_seeds.c)
target_link_libraries(gen_kfdemu_ioctl_seeds PRIVATE gc_kfd_emu)
gpucore_warnings(gen_kfdemu_ioctl_seeds)
add_test(NAME fuzz-seeds-kfdemu-ioctl-in-sync
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_seeds.sh
                 $<TARGET_FILE:gen_kfdemu_ioctl_seeds>
                 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_kfdemu_ioctl)
set_tests_properties(fuzz-seeds-kfdemu-ioctl-in-sync PROPERTIES LABELS unit)
