# SPDX-License-Identifier: MIT
#
# The one LLVM gpucore is built with, and its tools.
#
# The library links LLVM's AMDGPU disassembler (MC C API); the tests compile kernels with that
# LLVM's clang and ld.lld and compare what gpucore says with that LLVM's llvm-objdump,
# llvm-symbolizer, llvm-dwarfdump and llvm-readelf. All of them must be one LLVM: a kernel compiled
# by one version and disassembled by another differs in text, and gfx942/gfx12 exist only from
# LLVM 19 on (LLVM 16 has neither gfx941/gfx942 nor any gfx12 processor). So the version is
# decided once, here, and every tool is found through gpucore_llvm_tool().
#
# Which LLVM: -DLLVM_DIR=/usr/lib/llvm-<N>/lib/cmake/llvm if given; else, when the C compiler is
# clang <N> >= 16 and LLVM <N> is installed, that one (a fuzz build's clang and the library's LLVM
# are then the same version); else the newest LLVM >= 16 under /usr/lib/llvm-*/.
#
# Sets: GPUCORE_LLVM_MAJOR (19), GPUCORE_LLVM_LIBS, and LLVM's own variables (LLVM_VERSION_MAJOR,
# LLVM_PACKAGE_VERSION, LLVM_TOOLS_BINARY_DIR, LLVM_INCLUDE_DIRS, ...).

# The version from which every target of arch/arch_tables.c has a native processor in LLVM
# (gfx942, gfx1200, gfx1201); tests that need one skip (77) below it.
set(GPUCORE_LLVM_ALL_TARGETS_MAJOR 19)

file(GLOB GPUCORE_LLVM_DIRS /usr/lib/llvm-*/lib/cmake/llvm)
list(SORT GPUCORE_LLVM_DIRS COMPARE NATURAL ORDER DESCENDING)
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  string(REGEX MATCH "^[0-9]+" _gc_cc_major "${CMAKE_C_COMPILER_VERSION}")
  set(_gc_cc_llvm /usr/lib/llvm-${_gc_cc_major}/lib/cmake/llvm)
  if(_gc_cc_major GREATER_EQUAL 16 AND EXISTS ${_gc_cc_llvm})
    list(REMOVE_ITEM GPUCORE_LLVM_DIRS ${_gc_cc_llvm})
    list(PREPEND GPUCORE_LLVM_DIRS ${_gc_cc_llvm})
  endif()
endif()
find_package(LLVM CONFIG REQUIRED HINTS ${GPUCORE_LLVM_DIRS})
if(LLVM_VERSION_MAJOR VERSION_LESS 16)
  message(FATAL_ERROR "gpucore needs LLVM 16 or newer (found ${LLVM_PACKAGE_VERSION})")
endif()
if(NOT "AMDGPU" IN_LIST LLVM_TARGETS_TO_BUILD)
  message(FATAL_ERROR "LLVM ${LLVM_PACKAGE_VERSION} was built without the AMDGPU target")
endif()
if(TARGET LLVM)
  set(GPUCORE_LLVM_LIBS LLVM)  # the shared libLLVM, as distributions ship it
else()
  llvm_map_components_to_libnames(GPUCORE_LLVM_LIBS AMDGPUDisassembler AMDGPUDesc AMDGPUInfo
                                  AMDGPUUtils MC MCDisassembler Support)
endif()
set(GPUCORE_LLVM_MAJOR ${LLVM_VERSION_MAJOR})
message(STATUS "gpucore: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
if(GPUCORE_LLVM_MAJOR LESS GPUCORE_LLVM_ALL_TARGETS_MAJOR)
  message(STATUS "gpucore: LLVM ${GPUCORE_LLVM_MAJOR} has no gfx941/gfx942 or gfx12 processor: "
                 "gfx941/gfx942 disassemble as gfx940, gfx12 not at all; the gfx12 objdump "
                 "checks and the golden-report comparisons (LLVM ${GPUCORE_LLVM_ALL_TARGETS_MAJOR}'s) "
                 "are skipped")
endif()
if(GPUCORE_FUZZ AND CMAKE_C_COMPILER_ID STREQUAL "Clang" AND
   NOT _gc_cc_major EQUAL GPUCORE_LLVM_MAJOR)
  message(WARNING "gpucore: clang ${_gc_cc_major} with LLVM ${GPUCORE_LLVM_MAJOR}; use "
                  "-DCMAKE_C_COMPILER=clang-${GPUCORE_LLVM_MAJOR} for one LLVM everywhere")
endif()

# gpucore_llvm_tool(VAR NAME [REQUIRED]): VAR = the tool NAME (clang, ld.lld, llvm-objdump, ...)
# of the LLVM found above: LLVM's own bin directory first, then NAME-<major> on the PATH (Debian's
# /usr/bin/clang-19). Never an unversioned NAME from the PATH, which may be another LLVM. VAR is
# a normal variable, not a cache entry, so a tree reconfigured for another LLVM (-DLLVM_DIR=...)
# gets that LLVM's tools. Without REQUIRED, VAR is empty when the tool is missing.
function(gpucore_llvm_tool var name)
  set(path "")
  if(EXISTS "${LLVM_TOOLS_BINARY_DIR}/${name}")
    set(path "${LLVM_TOOLS_BINARY_DIR}/${name}")
  else()
    find_program(GPUCORE_LLVM${GPUCORE_LLVM_MAJOR}_TOOL_${name} NAMES ${name}-${GPUCORE_LLVM_MAJOR})
    if(GPUCORE_LLVM${GPUCORE_LLVM_MAJOR}_TOOL_${name})
      set(path "${GPUCORE_LLVM${GPUCORE_LLVM_MAJOR}_TOOL_${name}}")
    endif()
  endif()
  if(NOT path AND "${ARGN}" STREQUAL "REQUIRED")
    message(FATAL_ERROR "gpucore: ${name} of LLVM ${GPUCORE_LLVM_MAJOR} not found (in "
                        "${LLVM_TOOLS_BINARY_DIR} or as ${name}-${GPUCORE_LLVM_MAJOR}); on Debian "
                        "it comes with clang-${GPUCORE_LLVM_MAJOR}, lld-${GPUCORE_LLVM_MAJOR} or "
                        "llvm-${GPUCORE_LLVM_MAJOR}")
  endif()
  set(${var} "${path}" PARENT_SCOPE)
endfunction()
