# SPDX-License-Identifier: MIT
# The fleet index (store/fleet.h, docs/fleet.md): the URI and store.conf's FleetIndex= as unit
# tests; the writers against a PostgreSQL server each script starts in its own directory on a
# Unix socket (tests/fleet/pg.sh), skipped (77) without one.
gpucore_unit_test(test_fleet_uri SOURCES unit/test_fleet_uri.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
set_property(TEST test_fleet_uri APPEND PROPERTY LABELS fleet)

# The writers against a server of the test's own: several nodes at once through an outage,
# idempotent syncs, gc and merges (nodes); a stopped server, schema versions, rights (slow);
# row-level security (rls). Each case starts one server (about 3 s).
foreach(kase nodes slow rls)
  add_test(NAME fleet-write-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/fleet/fleet_write.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/fleet-write/${kase} $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(fleet-write-${kase} PROPERTIES LABELS "fleet;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endforeach()
