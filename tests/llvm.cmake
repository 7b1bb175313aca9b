# SPDX-License-Identifier: MIT
# What the tests need of the LLVM gpucore is built with (cmake/GpucoreLLVM.cmake; docs/building.md).
# Included last: it adjusts tests the other files defined.
#
# The golden reports (tests/analyze/golden/) are those of the scenario kernels compiled by
# LLVM ${GPUCORE_LLVM_ALL_TARGETS_MAJOR}: another LLVM compiles other code (sizes, line tables,
# signatures). With it, analyze_e2e.sh makes every other check and then skips (77) the golden
# comparison with this reason.
if(GPUCORE_LLVM_MAJOR LESS GPUCORE_LLVM_ALL_TARGETS_MAJOR)
  get_property(_gc_all_tests DIRECTORY PROPERTY TESTS)
  foreach(_gc_test IN LISTS _gc_all_tests)
    if(_gc_test MATCHES "^analyze-e2e-")
      set_property(TEST ${_gc_test} APPEND PROPERTY ENVIRONMENT
        "GPUCORE_GOLDEN_SKIP=the golden reports are LLVM ${GPUCORE_LLVM_ALL_TARGETS_MAJOR}'s, gpucore is built with LLVM ${LLVM_PACKAGE_VERSION}")
    endif()
  endforeach()
endif()
