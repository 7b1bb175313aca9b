# SPDX-License-Identifier: MIT
# What `gpucore ingest --tier state` keeps of the context-save areas: the used parts of each
# XCC area, decided by the rule capture uses (gc_cwsr_used_parts, arch/cwsr.c).

# The rule itself, row by row.
gpucore_unit_test(test_cwsr_used SOURCES unit/test_cwsr_used.c LIBS gc_arch gc_schema)

# ---- end to end (tests/merge/ingest_trim_e2e.sh, ingest_trim.py) -----------------------------
# A scenario captured with --tier all, split as the runtime and the kernel would, one PT_LOAD
# per mapping, streamed into ingest: the unused parts skipped exactly, the analysis unchanged;
# hostile headers, a header over two PT_LOADs and a stream cut in a header kept whole or cut.
foreach(kase used xcc multi hostile)
  add_test(NAME ingest-trim-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/merge/ingest_trim_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/ingest-trim/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(ingest-trim-${kase} PROPERTIES LABELS "merge;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# gc_ingest_stream() on streams built in C: a header the writer reads in two chunks, the used
# parts byte for byte, a sound and an unsound XCC area side by side, the cap on warnings.
gpucore_unit_test(test_ingest_trim SOURCES unit/test_ingest_trim.c
  LIBS gc_capture gc_kfd gc_libcore gc_schema gc_arch)
