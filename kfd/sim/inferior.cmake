# SPDX-License-Identifier: MIT
# The scenario model, the process-image layout and gpucore-inferior (included from
# kfd/sim/CMakeLists.txt, or from tests/scenarios.cmake while that does not include it).
# Paths are relative to this file so it works from either includer.
set(GC_SIM_DIR ${CMAKE_CURRENT_LIST_DIR})
add_library(gc_sim_layout OBJECT ${GC_SIM_DIR}/scenario.c ${GC_SIM_DIR}/layout.c)
target_include_directories(gc_sim_layout PUBLIC ${GC_SIM_DIR} ${GC_SIM_DIR}/..)
# gc_schema for the runtime's amd_queue_t encoder (gc_rocr.h); consumers list it too.
target_link_libraries(gc_sim_layout PUBLIC gc_arch gc_schema gc_base PkgConfig::JANSSON
                      PkgConfig::LIBELF)
gpucore_warnings(gc_sim_layout)

find_package(Threads REQUIRED)
add_executable(gpucore-inferior ${GC_SIM_DIR}/inferior.c)
# Object libraries hand their objects only to direct dependents: list them all.
target_link_libraries(gpucore-inferior PRIVATE gc_sim_layout gc_arch gc_schema Threads::Threads)
if(TARGET gc_kfd_sim_driver)
  # The simulated driver runs inside the inferior; without it the inferior only lays out.
  target_sources(gpucore-inferior PRIVATE ${GC_SIM_DIR}/runtime.c)
  target_include_directories(gpucore-inferior PRIVATE ${GC_SIM_DIR}/../../schema)
  target_link_libraries(gpucore-inferior PRIVATE gc_kfd_sim_driver gc_kfd_sim_protocol
                        ${CMAKE_DL_LIBS})
  target_compile_definitions(gpucore-inferior PRIVATE GC_INFERIOR_HAVE_DRIVER=1)
endif()
gpucore_warnings(gpucore-inferior)
