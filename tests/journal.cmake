# SPDX-License-Identifier: MIT
# The journal entry of each core written (store/journal.h, docs/fleet.md "The journal"): the
# fields, their escaping and bounds as unit tests; end to end against a systemd-journald the
# script starts in a mount namespace of its own (tests/journal/journal_e2e.sh).
gpucore_unit_test(test_journal SOURCES unit/test_journal.c
  LIBS gc_store_journal gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)

# run (with and without --store), capture, the hook's capture --trigger, ingest and merge with
# a journald read back through journalctl (journal); the same commands with no journal at all
# (nojournal). Root only (unshare -m); skipped (77) without unshare, journald or ptrace rights.
foreach(kase journal nojournal)
  add_test(NAME journal-e2e-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/journal/journal_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/journal-e2e/${kase} $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(journal-e2e-${kase} PROPERTIES LABELS "journal;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endforeach()

# No test logs to the machine's journal (a developer's journal would fill with the suite's
# crashes): every test gets GPUCORE_JOURNAL=0; journal_e2e.sh unsets it inside its own
# namespace. Called at the end of tests/CMakeLists.txt, once every test is defined.
function(gpucore_tests_without_journal)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "GPUCORE_JOURNAL=0")
  endforeach()
endfunction()

# A core's values through the escaping and into an entry (G-FUZZ-1): bounded, no control byte,
# valid UTF-8 whatever the bytes (tests/fuzz/targets/fuzz_journal.c).
gpucore_fuzz_target(fuzz_journal SOURCE fuzz/targets/fuzz_journal.c
  LIBS gc_store_journal gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
