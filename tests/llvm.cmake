# SPDX-License-Identifier: MIT
# What the tests need of the LLVM gpucore is built with (cmake/GpucoreLLVM.cmake; docs/building.md).
# Included last: it adjusts tests the other files defined.
#
# The golden reports (tests/analyze/golden/) are those of the scenario kernels compiled by the
# LLVM whose major version tests/analyze/golden/LLVM records: another LLVM, older or newer,
# compiles other code (sizes, line tables, signatures). With it, analyze_lib.sh makes every
# other check and then skips (77) the golden comparison with this reason, and refuses to
# rewrite the goldens (GPUCORE_UPDATE_GOLDEN=1): they would stop being that LLVM's.
set(_gc_golden_llvm_file ${CMAKE_CURRENT_LIST_DIR}/analyze/golden/LLVM)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_gc_golden_llvm_file})
file(STRINGS ${_gc_golden_llvm_file} _gc_golden_llvm LIMIT_COUNT 1 REGEX "^[0-9]+$")
if(NOT _gc_golden_llvm)
  message(FATAL_ERROR "gpucore: ${_gc_golden_llvm_file} must hold the LLVM major version the "
                      "golden reports were made with")
endif()
if(NOT GPUCORE_LLVM_MAJOR EQUAL _gc_golden_llvm)
  get_property(_gc_all_tests DIRECTORY PROPERTY TESTS)
  foreach(_gc_test IN LISTS _gc_all_tests)
    if(_gc_test MATCHES "^analyze-e2e-")
      set_property(TEST ${_gc_test} APPEND PROPERTY ENVIRONMENT
        "GPUCORE_GOLDEN_SKIP=the golden reports are LLVM ${_gc_golden_llvm}'s (tests/analyze/golden/LLVM), gpucore is built with LLVM ${LLVM_PACKAGE_VERSION}")
    endif()
  endforeach()
endif()
