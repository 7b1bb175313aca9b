#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The installed tree works on its own: `cmake --install` into a staging directory, then the
# installed `gpucore dbgapi-dump` finds the installed libgpucore-dbgapi, and a debugger's way
# of loading AMD's library -- dlopen("librocm-dbgapi.so.0") with LD_LIBRARY_PATH=<libdir>/gpucore
# -- loads ours, with AMD's version nodes; the disassembler module is installed where the
# installed library looks for it.
#
#   install_tree.sh WORKDIR MKEXAMPLE BUILD_DIR
test_name=install-tree
. "$(dirname "$0")/common.sh"
setup "$@"
build=$3
command -v python3 >/dev/null || skip "python3 is not installed"

DESTDIR=$work/stage cmake --install "$build" --prefix /usr/local >install.log 2>&1 ||
  fail "cmake --install failed: $(tail -5 install.log)"
prefix=$work/stage/usr/local
libdir=$(dirname "$(find "$prefix" -name libgpucore-dbgapi.so -print -quit)")
[ -n "$libdir" ] || fail "libgpucore-dbgapi.so is not installed"
[ -f "$prefix/include/amd-dbgapi/amd-dbgapi.h" ] || fail "amd-dbgapi.h is not installed"
[ -L "$libdir/gpucore/librocm-dbgapi.so.0" ] || fail "$libdir/gpucore/librocm-dbgapi.so.0 is missing"
# The library opens the disassembler module from the one installed path it was built with:
# that is where `cmake --install` put it (when the library does not link LLVM itself).
if ! readelf -d "$libdir/libgpucore-dbgapi.so" | grep -q "NEEDED.*libLLVM"; then
  # the library holds two paths: the build tree's module and the installed one
  strings -a "$libdir/libgpucore-dbgapi.so" >lib.strings
  want=$(grep '/gpucore/gpucore-disasm\.so$' lib.strings | grep -v "^$(realpath "$build")/" | head -1)
  [ -n "$want" ] || fail "libgpucore-dbgapi.so names no installed disassembler module"
  case $want in
  /usr/local/*) [ -f "$work/stage$want" ] ||
      fail "the library looks for the module at $want, which cmake --install did not write" ;;
  *) echo "note [$test_name]: configured for $want, not under the staged prefix: not checked" ;;
  esac
fi

"$mkexample" example.core >/dev/null
"$prefix/bin/gpucore" dbgapi-dump --json example.core >dump.out 2>dump.err ||
  fail "the installed gpucore dbgapi-dump failed: $(cat dump.err)"
grep -q "\"path\": \"$libdir/libgpucore-dbgapi.so\"" <(python3 -c '
import json, sys
for l in open("dump.out"):
    r = json.loads(l)
    if r["kind"] == "library":
        print(json.dumps({"path": __import__("os").path.normpath(r["path"])}))') ||
  fail "dbgapi-dump did not load the installed library: $(head -1 dump.out)"

# A sanitizer build's library needs its runtimes loaded first: python is not instrumented.
preload=$(ldd "$libdir/libgpucore-dbgapi.so" | awk '/lib(asan|ubsan)\.so/ { print $3 }' | paste -sd:)
LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH=$libdir/gpucore \
  python3 - >ctypes.out 2>&1 <<'PY' || fail "loading librocm-dbgapi.so.0: $(cat ctypes.out)"
import ctypes
lib = ctypes.CDLL("librocm-dbgapi.so.0")
lib.amd_dbgapi_get_build_name.restype = ctypes.c_char_p
name = lib.amd_dbgapi_get_build_name().decode()
assert name.startswith("libgpucore-dbgapi"), name
major, minor, patch = (ctypes.c_uint32() for _ in range(3))
lib.amd_dbgapi_get_version(ctypes.byref(major), ctypes.byref(minor), ctypes.byref(patch))
assert (major.value, minor.value) == (0, 77), (major.value, minor.value)
print(name)
PY
echo "ok [$test_name]: installed under $prefix; librocm-dbgapi.so.0 is $(cat ctypes.out)"
