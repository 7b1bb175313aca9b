# SPDX-License-Identifier: MIT
# The fleet index (store/fleet.h, docs/fleet.md): the URI and store.conf's FleetIndex= as unit
# tests; the writers against a PostgreSQL server each script starts in its own directory on a
# Unix socket (tests/fleet/pg.sh), skipped (77) without one.
gpucore_unit_test(test_fleet_uri SOURCES unit/test_fleet_uri.c
  LIBS gc_store gc_triage gc_analyze gc_libcore gc_schema gc_arch)
set_property(TEST test_fleet_uri APPEND PROPERTY LABELS fleet)
