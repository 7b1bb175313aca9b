# SPDX-License-Identifier: MIT
# Crafted small cores that once made the GPU image take memory or CPU far beyond their size
# (issue 10, items 5 and 6), through `gpucore analyze` and `gpucore dbgapi-dump`, each run
# under a fixed address-space and CPU-time limit (tests/analyze/hostile_image.sh).

# gpucore-mkhostile-image OUT CASE: writes the crafted cores (also used by bench/hostile/).
add_executable(gpucore-mkhostile-image ${CMAKE_CURRENT_LIST_DIR}/tools/mkhostile_image.c)
target_link_libraries(gpucore-mkhostile-image PRIVATE gc_libcore gc_schema gc_arch)
gpucore_warnings(gpucore-mkhostile-image)

foreach(kase cwsr-bomb cwsr-bomb-xcc sparse-ring agents-queues)
  add_test(NAME analyze-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/hostile_image.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/analyze-hostile/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-mkhostile-image> ${kase})
  set_tests_properties(analyze-hostile-${kase} PROPERTIES LABELS "analyze;hostile"
                       SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# Rings of a million active dispatches and queues of as many wave groups (issue 22): every
# command that builds the report, and dbgapi-dump, under 1 GiB of address space
# (tests/analyze/hostile_ring.sh); capture-full-ring is a real capture of a filled ring.
foreach(kase ring-1m ring-symbols ring-waves capture-full-ring)
  add_test(NAME analyze-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/hostile_ring.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/analyze-hostile/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-mkhostile-image>
                   $<TARGET_FILE:gpucore-inferior> ${CMAKE_CURRENT_BINARY_DIR}/scenario-objects
                   ${PROJECT_SOURCE_DIR}/tests/scenarios ${kase})
  set_tests_properties(analyze-hostile-${kase} PROPERTIES LABELS "analyze;hostile"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# `analyze waves` on cores of 64 Ki and 256 Ki waves, and of 64 Ki stopped waves deep in their
# functions, each at its own PC or at a few (issue 22): every wave listed a wave at a time,
# under 1 GiB of address space and in the memory the report takes; the code decoded to find
# instructions bounded (tests/analyze/hostile_waves.sh).
foreach(kase waves-64k waves-256k deep-waves deep-hang)
  add_test(NAME analyze-hostile-${kase}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/analyze/hostile_waves.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/analyze-hostile/${kase}
                   $<TARGET_FILE:gpucore-cli> $<TARGET_FILE:gpucore-mkhostile-image> ${kase})
  set_tests_properties(analyze-hostile-${kase} PROPERTIES LABELS "analyze;hostile"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
