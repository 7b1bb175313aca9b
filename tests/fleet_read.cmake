# SPDX-License-Identifier: MIT
# The fleet index read (store/store_fleet_query.c, cli/cmd_fleet_read.c, docs/fleet.md
# "Reading the fleet"): list/show/job --fleet against a PostgreSQL server the script starts in
# its own directory (tests/fleet/pg.sh; one server for every case), on a core of the simulated
# GPU synced by the writers and on rows put in with psql: goldens, filters, hostile values,
# row-level security, no URI and no server. Skipped (77) without a server or ptrace rights.
add_test(NAME fleet-read
         COMMAND ${PROJECT_SOURCE_DIR}/tests/fleet/fleet_read.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/fleet-read $<TARGET_FILE:gpucore-cli>
                 $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                 ${PROJECT_SOURCE_DIR}/tests/scenarios)
set_tests_properties(fleet-read PROPERTIES LABELS "fleet;e2e" SKIP_RETURN_CODE 77 TIMEOUT 120)
