# SPDX-License-Identifier: MIT
# Tests of schema/: unit tests, fuzz targets over their corpora, and the FORMAT.md sync check.

gpucore_unit_test(test_schema
  SOURCES unit/test_schema.c unit/test_schema_tables.c unit/test_schema_kfd.c
          unit/test_schema_notes.c unit/test_schema_rocr.c
          unit/test_schema_amd_queue.c
  LIBS gc_schema)

# The KFD device entry's two tables, kfd's (the kernel's byte layout) and schema's (the note).
gpucore_unit_test(test_kfd_device_entry
  SOURCES unit/test_kfd_device_entry.c
  LIBS gc_schema gc_kfd_sim_protocol)

gpucore_fuzz_target(fuzz_kfd_note SOURCE fuzz/targets/fuzz_kfd_note.c LIBS gc_schema)
gpucore_fuzz_target(fuzz_gpucore_notes SOURCE fuzz/targets/fuzz_gpucore_notes.c LIBS gc_schema)

# FORMAT.md's generated tables must match the .def tables and codecs. To regenerate:
#   build/schema/gc_gen_format_tables --update schema/FORMAT.md
add_test(NAME schema-format-in-sync
         COMMAND gc_gen_format_tables --check ${PROJECT_SOURCE_DIR}/schema/FORMAT.md)
set_tests_properties(schema-format-in-sync PROPERTIES LABELS unit)

# Writes the seed corpora of the two fuzz targets (run by hand when the format changes):
# gen_schema_seeds tests/fuzz/corpus. The test checks the committed seeds are what it writes.
add_executable(gen_schema_seeds tools/gen_schema_seeds.c)
target_link_libraries(gen_schema_seeds PRIVATE gc_schema)
gpucore_warnings(gen_schema_seeds)
add_test(NAME fuzz-seeds-schema-in-sync
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_seeds.sh
                 $<TARGET_FILE:gen_schema_seeds> ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus)
set_tests_properties(fuzz-seeds-schema-in-sync PROPERTIES LABELS unit)
