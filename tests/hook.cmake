# SPDX-License-Identifier: MIT
# libgpucore-hook.so (capture/hook/) and the runtime ABI it mirrors (schema/gc_hsa_tools.h).

# The mirror against the runtime's own C++ header, at compile time. Built only where Debian's
# libhsa-runtime-dev is installed (scripts/setup.sh installs it); a clear SKIP otherwise. Not in
# GPUCORE_FUZZ builds, whose sanitizer flags are clang's and the C++ compiler may be g++.
if(EXISTS /usr/include/hsa/hsa_api_trace.h AND NOT GPUCORE_FUZZ)
  enable_language(CXX)
  add_executable(test_hsa_layout hook/test_hsa_layout.cpp)
  target_include_directories(test_hsa_layout PRIVATE ${PROJECT_SOURCE_DIR}/schema)
  target_compile_options(test_hsa_layout PRIVATE -Wall -Wextra $<$<BOOL:${GPUCORE_WERROR}>:-Werror>)
  set_target_properties(test_hsa_layout PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  add_test(NAME hook-hsa-layout COMMAND test_hsa_layout)
else()
  add_test(NAME hook-hsa-layout
           COMMAND sh -c "echo 'SKIP: /usr/include/hsa/hsa_api_trace.h (libhsa-runtime-dev) is not installed, or a fuzz build: the mirrored layout is not checked'; exit 77")
endif()
set_tests_properties(hook-hsa-layout PROPERTIES LABELS "hook;unit" SKIP_RETURN_CODE 77)

# The ROCm 6 mirror against ROCr 6.1's header, from the ROCm root of the kfdemu tests
# (kfdemu.cmake's GPUCORE_ROCM_ROOT). Only its hsa/ headers are copied into the build tree and
# put on the include path: the root's C library headers must not replace the host's.
set(rocm6_hsa ${GPUCORE_ROCM_ROOT}/usr/include/hsa)
if(EXISTS ${rocm6_hsa}/hsa_api_trace.h AND NOT GPUCORE_FUZZ)
  enable_language(CXX)
  file(COPY ${rocm6_hsa} DESTINATION ${CMAKE_CURRENT_BINARY_DIR}/rocm6-include)
  add_executable(test_hsa_layout_rocm6 hook/test_hsa_layout_rocm6.cpp)
  target_include_directories(test_hsa_layout_rocm6 PRIVATE ${PROJECT_SOURCE_DIR}/schema
                             ${CMAKE_CURRENT_BINARY_DIR}/rocm6-include)
  target_compile_options(test_hsa_layout_rocm6 PRIVATE -Wall -Wextra
                         $<$<BOOL:${GPUCORE_WERROR}>:-Werror>)
  set_target_properties(test_hsa_layout_rocm6 PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  add_test(NAME hook-hsa-layout-rocm6 COMMAND test_hsa_layout_rocm6)
else()
  add_test(NAME hook-hsa-layout-rocm6
           COMMAND sh -c "echo 'SKIP: no ROCm root with hsa/hsa_api_trace.h (scripts/rocm-root.sh), or a fuzz build: the ROCm 6 layout is not checked'; exit 77")
endif()
set_tests_properties(hook-hsa-layout-rocm6 PROPERTIES LABELS "hook;unit" SKIP_RETURN_CODE 77)

# The helper's command line and the hook's environment.
gpucore_unit_test(test_hook_args SOURCES hook/test_hook_args.c LIBS gc_hook_args)
set_tests_properties(test_hook_args PROPERTIES LABELS "hook;unit")

add_test(NAME hook-abi COMMAND ${PROJECT_SOURCE_DIR}/tests/hook/check_hook_abi.sh
                               $<TARGET_FILE:gpucore-hook>)
set_tests_properties(hook-abi PROPERTIES LABELS "hook;abi")

foreach(c memory-fault queue-error no-gpucore capture-fails deadline second-error
          sigchld-ignored table)
  add_test(NAME hook-e2e-${c}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/hook/hook_e2e.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/hook-e2e/${c}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-inferior>
                   ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios $<TARGET_FILE:gpucore-hook> ${c})
  set_tests_properties(hook-e2e-${c} PROPERTIES LABELS "hook;e2e" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()
