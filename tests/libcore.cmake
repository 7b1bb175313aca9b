# SPDX-License-Identifier: MIT
# libcore: the core container. Unit tests link the object libraries, so internal (hidden)
# functions are reachable; libelf is linked as an independent oracle for what the writer wrote.
set(GPUCORE_CORE_TEST_LIBS gc_libcore gc_schema PkgConfig::LIBELF PkgConfig::ZSTD)

gpucore_unit_test(test_core_writer
  SOURCES unit/test_core_writer.c unit/test_core_util.c
  LIBS ${GPUCORE_CORE_TEST_LIBS})
set_tests_properties(test_core_writer PROPERTIES TIMEOUT 600)

gpucore_unit_test(test_core_budget
  SOURCES unit/test_core_budget.c unit/test_core_util.c
  LIBS ${GPUCORE_CORE_TEST_LIBS})

gpucore_unit_test(test_core_publish
  SOURCES unit/test_core_publish.c unit/test_core_util.c
  LIBS ${GPUCORE_CORE_TEST_LIBS})
# White-box: the hidden-name fallback is reached through the internal publish interface.
target_include_directories(test_core_publish PRIVATE ${PROJECT_SOURCE_DIR}/libcore)

gpucore_unit_test(test_core_reader
  SOURCES unit/test_core_reader.c unit/test_core_util.c
  LIBS ${GPUCORE_CORE_TEST_LIBS})

# Fuzz targets (G-FUZZ-1): the whole reader, and the zstd frame index on its own.
gpucore_fuzz_target(fuzz_core_open SOURCE fuzz/targets/fuzz_core_open.c
  LIBS gc_libcore gc_schema)
gpucore_fuzz_target(fuzz_seek_table SOURCE fuzz/targets/fuzz_seek_table.c
  LIBS gc_libcore gc_schema)
# White-box: the frame index is an internal interface.
target_include_directories(fuzz_seek_table PRIVATE ${PROJECT_SOURCE_DIR}/libcore)
if(GPUCORE_FUZZ)
  target_include_directories(fuzz_seek_table-libfuzzer PRIVATE ${PROJECT_SOURCE_DIR}/libcore)
endif()

# White-box: frames decoded per read pattern, and the parallel decoding of several frames, are
# counted through the internal frame reader.
gpucore_unit_test(test_core_zread
  SOURCES unit/test_core_zread.c
  LIBS gc_libcore gc_schema PkgConfig::ZSTD)
target_include_directories(test_core_zread PRIVATE ${PROJECT_SOURCE_DIR}/libcore)
