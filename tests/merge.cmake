# SPDX-License-Identifier: MIT
# gpucore merge (libcore/split_merge.c) and gpucore ingest: the ROCm runtime's split dump.

# ---- gpucore merge, end to end (tests/merge/merge_e2e.sh) -------------------------------------
# Each case captures vadd-fault from gpucore-inferior and splits it as the runtime and the
# kernel would (tests/analyze/make_rocr_split.py). gdb is optional: without it, "pair" checks
# everything else.
find_program(GPUCORE_MERGE_GDB gdb)
foreach(kase pair hostile)
  add_test(NAME merge-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/merge/merge_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/merge-e2e/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios "${GPUCORE_MERGE_GDB}" ${kase})
  set_tests_properties(merge-e2e-${kase} PROPERTIES LABELS "merge;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# ---- gpucore ingest, end to end (tests/merge/ingest_e2e.sh, stream_writer.py) ----------------
# The split pair through a pipe: both halves and their pairing, --store's rows (indexed before
# ingest exits: `ingest && list` 20 times; retention), a slow writer, a writer killed
# mid-stream, a 32 GiB stream under prlimit --as=512M (about 13 s), failures that drain stdin.
foreach(kase pipe store slow killed huge small sigpipe)
  add_test(NAME ingest-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/merge/ingest_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/ingest-e2e/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(ingest-e2e-${kase} PROPERTIES LABELS "merge;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# ---- gpucore ingest as an attacker would use it (tests/merge/ingest_hostile_e2e.sh) ----------
# Streams past the size limit (plain, compressed, into the store, merged), where the limit
# comes from (store.conf, --max-size), the --dir rules, entries made at the output name and at
# the other half's name (a symlink to a canary, a hard link, a FIFO).
foreach(kase limit store conf dir-rules precreated partner)
  add_test(NAME ingest-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/merge/ingest_hostile_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/ingest-hostile/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(ingest-hostile-${kase} PROPERTIES LABELS "merge;e2e"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# gc_ingest_stream()'s size limit on host streams built in C: never exceeded, plain or
# compressed; a prefix kept and the rest said skipped/budget; every byte of a pipe read.
gpucore_unit_test(test_ingest_limit SOURCES unit/test_ingest_limit.c
  LIBS gc_capture gc_kfd gc_libcore gc_schema gc_arch)

# ingest's output directory (capture/ingest_dir.h): hidden names, the next free name past an
# entry of any kind, and only regular files of one link read.
gpucore_unit_test(test_ingest_dir SOURCES unit/test_ingest_dir.c
  LIBS gc_capture gc_kfd gc_libcore gc_schema gc_arch)

# The stream reader behind ingest, fuzzed; seeds in tests/fuzz/corpus/fuzz_ingest/ (made by
# tests/merge/make_ingest_seeds.py from the runtime-style split file of vadd-fault).
gpucore_fuzz_target(fuzz_ingest SOURCE fuzz/targets/fuzz_ingest.c
  LIBS gc_capture gc_kfd gc_libcore gc_schema gc_arch)

# The merge of a split pair, fuzzed (both halves hostile); seeds in tests/fuzz/corpus/fuzz_merge/
# (made by tests/merge/make_merge_seeds.py from fuzz_ingest's seeds; fuzz-seeds-merge-in-sync
# checks the committed ones are what it writes).
gpucore_fuzz_target(fuzz_merge SOURCE fuzz/targets/fuzz_merge.c
  LIBS gc_core_merge gc_libcore gc_schema)
add_test(NAME fuzz-seeds-merge-in-sync
         COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/merge/make_merge_seeds.py --check
                 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_ingest
                 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/fuzz_merge)
set_tests_properties(fuzz-seeds-merge-in-sync PROPERTIES LABELS unit)
