# SPDX-License-Identifier: MIT
# The documents the program prints, where analyze/ builds them: the model of `gpucore info`
# (analyze/info_model.h), built directly, and the JSON of `gpucore analyze` and `gpucore info`
# on the cores whose errors and kinds they must name (tests/analyze/model_json_e2e.sh).
gpucore_unit_test(test_info_model SOURCES unit/test_info_model.c unit/test_core_util.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_dependencies(test_info_model gpucore-mkexample)
set_property(TEST test_info_model APPEND PROPERTY ENVIRONMENT
  "GPUCORE_MKEXAMPLE=$<TARGET_FILE:gpucore-mkexample>")
