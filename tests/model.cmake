# SPDX-License-Identifier: MIT
# The documents the program prints, where analyze/ builds them: the model of `gpucore info`
# (analyze/info_model.h), built directly, and the JSON of `gpucore analyze` and `gpucore info`
# on the cores whose errors and kinds they must name (tests/analyze/model_json_e2e.sh).
gpucore_unit_test(test_info_model SOURCES unit/test_info_model.c unit/test_core_util.c
  LIBS gc_triage gc_analyze gc_libcore gc_schema gc_arch)
add_dependencies(test_info_model gpucore-mkexample)
set_property(TEST test_info_model APPEND PROPERTY ENVIRONMENT
  "GPUCORE_MKEXAMPLE=$<TARGET_FILE:gpucore-mkexample>")

foreach(kase analyze-json-errors info-host-core report-dispatch-members)
  add_test(NAME model-json-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/model_json_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/model-json/${kase} $<TARGET_FILE:gpucore-cli>
                   $<TARGET_FILE:gpucore-mkexample> ${PROJECT_SOURCE_DIR}/tests/tools/mk_host_core.py
                   ${kase})
  set_tests_properties(model-json-${kase} PROPERTIES LABELS "analyze;cli")
endforeach()

# The members read back are named once, in analyze/triage_keys.h and analyze/info_keys.h
# (tests/abi/check_document_keys.py).
add_test(NAME abi-document-keys
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/abi/check_document_keys.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(abi-document-keys PROPERTIES LABELS abi)
