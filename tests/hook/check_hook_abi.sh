#!/bin/sh
# SPDX-License-Identifier: MIT
# libgpucore-hook.so runs inside arbitrary programs: it exports OnLoad and OnUnload only and
# needs no library but libc.
#   check_hook_abi.sh LIBGPUCORE_HOOK_SO
set -eu
lib=$1
exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$exports" = "OnLoad OnUnload " ] || { echo "FAIL: $lib exports '$exports', expected 'OnLoad OnUnload'"; exit 1; }
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^libc\.so\.6$' | grep -v '^ld-linux' || true)
# The sanitizer runtimes of an ASan/UBSan build are the only other libraries allowed.
needed=$(printf '%s\n' "$needed" | grep -v '^lib\(a\|ub\)san\.so' | grep -v '^libm\.so\|^libgcc_s\|^libstdc++\|^libdl\|^libpthread\|^librt' || true)
[ -z "$needed" ] || { echo "FAIL: $lib needs $needed besides libc"; exit 1; }
echo "$lib: exports OnLoad OnUnload, needs libc only"
