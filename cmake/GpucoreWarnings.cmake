# SPDX-License-Identifier: MIT
# Warning flags (conventions G-BUILD-1), each probed so gcc and clang both work.
include(CheckCCompilerFlag)

set(GPUCORE_WARNING_FLAGS "")
foreach(flag -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wold-style-definition
             -Wmissing-prototypes -Wundef -Wcast-align -Wimplicit-fallthrough
             -Wnull-dereference -Wvla -Wpointer-arith -Wwrite-strings)
  string(MAKE_C_IDENTIFIER "HAVE${flag}" var)
  check_c_compiler_flag(${flag} ${var})
  if(${var})
    list(APPEND GPUCORE_WARNING_FLAGS ${flag})
  endif()
endforeach()
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  list(APPEND GPUCORE_WARNING_FLAGS -Wstack-usage=65536)
endif()
if(GPUCORE_WERROR)
  list(APPEND GPUCORE_WARNING_FLAGS -Werror)
endif()

# Stricter arithmetic warnings for the modules that do bit and size arithmetic on file data.
set(GPUCORE_CONVERSION_FLAGS -Wconversion -Wsign-conversion)

# gpucore_module(target): apply the project warnings to a target.
function(gpucore_warnings target)
  target_compile_options(${target} PRIVATE ${GPUCORE_WARNING_FLAGS})
endfunction()
