# SPDX-License-Identifier: MIT
# The core store (store/store.h, docs/store.md): the index, its migrations and writers, the
# directory's rules and gc's order as unit tests; the commands end to end on cores of the
# simulated GPU (tests/store/store_e2e.sh).
gpucore_unit_test(test_store SOURCES unit/test_store.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
# store.conf: ingest's HostSizeMax=/GpuSizeMax= and how the file is found and read
gpucore_unit_test(test_store_conf SOURCES unit/test_store_conf.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# run --store, list, show, gc, store (state and --rescan) on cores of the simulated GPU, and a
# report kept off run's tree loop (busy); cases need ptrace rights and are skipped (77) without
# them.
foreach(kase run gc hand perm busy)
  add_test(NAME store-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/store/store_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/store-e2e/${kase} $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(store-e2e-${kase} PROPERTIES LABELS "store;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()

# The index as an attacker writes it, through the program: another user's store refused to
# root, file names outside the store never used, views and triggers refused (needs root).
foreach(kase owner names schema)
  add_test(NAME store-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/store/store_hostile.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/store-hostile/${kase} $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-mkexample> ${kase})
  set_tests_properties(store-hostile-${kase} PROPERTIES LABELS "store;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()

# The journal on local filesystems (the build tree's, tmpfs): WAL, and list --json says so.
add_test(NAME store-journal
         COMMAND ${PROJECT_SOURCE_DIR}/tests/store/store_journal.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/store-journal $<TARGET_FILE:gpucore-cli>)
set_tests_properties(store-journal PROPERTIES LABELS "store;e2e" SKIP_RETURN_CODE 77 TIMEOUT 60)

# list --json on 20,000 rows: every core listed, one core's JSON held at a time (peak RSS).
add_test(NAME store-list-json
         COMMAND ${PROJECT_SOURCE_DIR}/tests/store/store_list_json.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/store-list-json $<TARGET_FILE:gpucore-cli>)
set_tests_properties(store-list-json PROPERTIES LABELS "store;e2e" SKIP_RETURN_CODE 77
                     TIMEOUT 120)

# store.conf, the store's one parser of outside bytes (G-FUZZ-1)
gpucore_fuzz_target(fuzz_store_conf SOURCE fuzz/targets/fuzz_store_conf.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# The index, which whoever can write the file chooses (G-FUZZ-1): file names, schema, views,
# triggers, versions. Seeds: `build/tests/gen_store_index_seeds tests/fuzz/corpus/fuzz_store_index`
# (run by hand when the schema changes; the bytes depend on the SQLite version, so no in-sync
# test compares them).
gpucore_fuzz_target(fuzz_store_index SOURCE fuzz/targets/fuzz_store_index.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_executable(gen_store_index_seeds tools/gen_store_index_seeds.c)
target_link_libraries(gen_store_index_seeds PRIVATE gc_store gc_triage gc_analyze gc_libcore
                      gc_schema gc_arch)
gpucore_warnings(gen_store_index_seeds)

# No test touches the machine's own core store (/var/lib/gpucore/cores for root): `gpucore
# list`, `gc` and `store` without --store use GPUCORE_STORE, which every test defined so far
# gets pointing into the build tree (cli-help-options runs `gpucore gc --max-use=1`, which
# would empty the default store). The tests of the files included after this one run no such
# command. A test that sets its own GPUCORE_STORE (store_e2e.sh) overrides it.
get_property(_gc_store_tests DIRECTORY PROPERTY TESTS)
foreach(t IN LISTS _gc_store_tests)
  set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
               "GPUCORE_STORE=${CMAKE_CURRENT_BINARY_DIR}/tests-default-store")
endforeach()
