# SPDX-License-Identifier: MIT
# The writer's default zstd frame size (512 KiB, chosen from gpucore-bench-core --frames).
gpucore_unit_test(test_frame_default SOURCES unit/test_frame_default.c LIBS gc_libcore gc_schema)
set_tests_properties(test_frame_default PROPERTIES LABELS unit)
