#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# libgpucore-dbgapi and LLVM (tests/dbgapi_lazy.cmake):
#
#   llvm_lazy.sh CASE WORKDIR LIBRARY TEST INSTALLED
#
#   needed   LIBRARY has DT_NEEDED entries, none of them libLLVM (readelf -d)
#   missing  a copy of LIBRARY outside the build tree, where only the installed module path
#            INSTALLED is looked at (skipped when a module is installed there): TEST (the
#            test_dbgapi_lazy program) loads that copy through LD_LIBRARY_PATH, reads every
#            register, and gets AMD_DBGAPI_STATUS_ERROR from a disassembly with the reason
#            logged once
#
# Exit codes: 0 pass, 1 fail (one "FAIL [dbgapi-llvm-CASE]: why" line), 77 skip.
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 CASE WORKDIR LIBRARY TEST INSTALLED" >&2; exit 2; }
kase=$1 work=$2 library=$3 test=$4 installed=$5
test_name=dbgapi-llvm-$kase
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/e2e.sh"
e2e_enter "$work"

case $kase in
needed)
  command -v readelf >/dev/null || skip "no readelf"
  readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' >needed
  [ -s needed ] || fail "readelf found no DT_NEEDED in $library"
  if grep -i "libLLVM" needed; then
    fail "$library has a DT_NEEDED on libLLVM"
  fi
  ;;
missing)
  [ ! -e "$installed" ] || skip "a module is installed at $installed"
  copy=$(mktemp -d "${TMPDIR:-/tmp}/gpucore-dbgapi-nomodule.XXXXXX")
  remove_copy() { rm -rf "$copy"; }
  e2e_exit_hook=remove_copy
  cp "$library" "$copy/libgpucore-dbgapi.so"
  ln -s libgpucore-dbgapi.so "$copy/librocm-dbgapi.so.0"
  rc=0
  GPUCORE_DBGAPI_EXPECT_NO_MODULE=1 LD_LIBRARY_PATH=$copy "$test" >test.out 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || fail "test_dbgapi_lazy with the copy exited $rc: $(tail -20 test.out)"
  grep -qF "library: $copy/librocm-dbgapi.so.0" test.out ||
    fail "the test did not load the copy: $(grep library: test.out || cat test.out)"
  grep -qF "logged: no instruction can be disassembled in this process: disassembler not available: cannot open $installed: No such file or directory" test.out ||
    fail "the library did not log why: $(grep logged: test.out || cat test.out)"
  ;;
*)
  echo "unknown case $kase" >&2
  exit 2
  ;;
esac
exit 0
