# SPDX-License-Identifier: MIT
# Tests of the CWSR codec (arch/cwsr.c, arch/cwsr_layouts.c): unit tests, the decoder's fuzz
# target over its corpus, and the generator of that corpus' seeds.

gpucore_unit_test(test_arch_cwsr
  SOURCES unit/test_arch_cwsr.c unit/test_arch_cwsr_images.c
  LIBS gc_arch gc_schema)

gpucore_fuzz_target(fuzz_arch_cwsr SOURCE fuzz/targets/fuzz_arch_cwsr.c LIBS gc_arch gc_schema)

# Writes the seed corpus of fuzz_arch_cwsr (run by hand when the layouts change):
#   gen_arch_cwsr_seeds tests/fuzz/corpus/fuzz_arch_cwsr
# The test checks the committed seeds are what it writes.
add_executable(gen_arch_cwsr_seeds tools/gen_arch_cwsr_seeds.c)
target_link_libraries(gen_arch_cwsr_seeds PRIVATE gc_arch gc_schema)
gpucore_warnings(gen_arch_cwsr_seeds)
add_test(NAME fuzz-seeds-arch-cwsr-in-sync
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_seeds.sh
                 $<TARGET_FILE:gen_arch_cwsr_seeds>
                 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_arch_cwsr)
set_tests_properties(fuzz-seeds-arch-cwsr-in-sync PROPERTIES LABELS unit)
