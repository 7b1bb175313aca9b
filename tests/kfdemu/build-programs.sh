#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Compile the kfdemu test programs (programs/ beside this script) inside the ROCm root, with
# the root's hipcc and clang-17, for each offload target:
#
#   build-programs.sh ROOT OUTDIR [TARGET...]     TARGETs: gfx90a (default), gfx942, gfx1100, ...
#
# OUTDIR/<target>/ receives hip_vadd, hip_oob, hip_illegal, hip_assert (HIP programs, -g -O2,
# one offload target each), hsa_dispatch (plain C on ROCr's HSA API),
# hsa_dispatch_kernel.co (its kernel, code object of that target), kfd_debugger (a
# debugger's first steps through amdkfd's DBG_TRAP), hostile_rocr (ROCr's structures made to
# lie, for gpucore capture) and dbgapi_attach (AMD's debugger library,
# librocm-dbgapi, attaching to a process; when the root has it), built into
# OUTDIR/<target>.tmp and renamed into place when all compiled: a failed build leaves no
# half-filled directory. Nothing is written outside OUTDIR (OUTDIR/.lock serializes two runs);
# ROOT is never modified.
#
# The compilers run under gpucore-kfdemu --root ROOT ($GPUCORE_KFDEMU, default the build
# tree's), which gives them the root through a discarded overlay, /proc, /dev and a private
# /tmp, and --bind makes the sources and OUTDIR visible at their host paths: the debug
# information names the host's file names, which is what the analyzer resolves later.
#
# Exit status: 0 built; 1 a compile failed (its output above); 2 usage; 77 no ROCm root at
# ROOT (built by scripts/rocm-root.sh), or gpucore-kfdemu cannot run here (not root).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$here/programs
kfdemu=${GPUCORE_KFDEMU:-$here/../../build/kfd/emu/gpucore-kfdemu}
# The file scripts/rocm-root.sh writes last into a complete root.
stamp_name=.gpucore-rocm-root

if [ $# -lt 2 ]; then
  echo "usage: build-programs.sh ROOT OUTDIR [TARGET...]" >&2
  exit 2
fi
root=$1 out=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gfx90a)
for t in "${targets[@]}"; do
  # A processor name only: it goes into file names and a shell command.
  [[ $t =~ ^gfx[0-9a-f]{3,4}$ ]] ||
    { echo "build-programs.sh: '$t' is not a processor name like gfx90a" >&2; exit 2; }
done
if [ ! -f "$root/$stamp_name" ]; then
  echo "build-programs.sh: no ROCm root at $root (scripts/rocm-root.sh builds it)"
  exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "build-programs.sh: gpucore-kfdemu needs root (a private mount namespace)"
  exit 77
fi
[ -x "$kfdemu" ] || { echo "build-programs.sh: no gpucore-kfdemu at $kfdemu" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Two runs into one OUTDIR (two ctest runs of one build tree) would remove each other's
# half-built OUTDIR/<target>.tmp: the second waits for the first.
exec 9>"$out/.lock"
flock 9

# What runs inside the root, once per target: $1 the sources, $2 the output directory.
# shellcheck disable=SC2016 # expanded by the shell in the root
inner='
set -eu
src=$1 dir=$2 t=$3
hip="hipcc -g -O2 --offload-arch=$t"
for p in hip_vadd hip_oob hip_illegal hip_assert hip_module; do
  $hip -o "$dir/$p" "$src/$p.hip"
done
# hip_module'"'"'s kernel: a code object of its own, which the program loads from memory
$hip --genco -o "$dir/hip_module_kernel.co" "$src/hip_module_kernel.hip"
clang-17 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$t" -nogpulib -g -O2 \
  -o "$dir/hsa_dispatch_kernel.co" "$src/hsa_dispatch_kernel.cl"
clang-17 -g -O2 -std=c11 -Wall -Werror -o "$dir/hsa_dispatch" "$src/hsa_dispatch.c" -lhsa-runtime64
clang-17 -g -O2 -std=c11 -Wall -Werror -o "$dir/kfd_debugger" "$src/kfd_debugger.c"
clang-17 -g -O2 -std=c11 -Wall -Werror -o "$dir/hostile_rocr" "$src/hostile_rocr.c" -lhsa-runtime64
# A root built before the debugger library joined its package list has no headers for it:
# the other programs are still built (kfdemu-dbgapi then skips, naming the rebuild).
if [ -f /usr/include/amd-dbgapi/amd-dbgapi.h ]; then
  clang-17 -g -O2 -std=c11 -Wall -Werror -o "$dir/dbgapi_attach" "$src/dbgapi_attach.c" -lrocm-dbgapi
fi
'

# What the programs are made of: the sources, this script and the root (its stamp). A target
# directory whose .built says the same is up to date: a second build tree (scripts/test.sh's
# sanitizer tree) or a second run reuses it.
# (Relative names: a second checkout of the same sources is the same input. Only the source
# paths in the programs' debug information then name the checkout that built them.)
inputs=$( { cat "$0" "$root/$stamp_name"; (cd "$src" && find . -type f -print0 | sort -z |
            xargs -0 sha256sum); } | sha256sum | cut -d' ' -f1)

for t in "${targets[@]}"; do
  if [ -f "$out/$t/.built" ] && [ "$(cat "$out/$t/.built")" = "$inputs" ]; then
    echo "build-programs.sh: $t: up to date in $out/$t"
    continue
  fi
  rm -rf "${out:?}/$t.tmp"
  mkdir "$out/$t.tmp"
  start=$(date +%s)
  if ! "$kfdemu" --root "$root" --bind "$src" --bind "$out" -- \
      sh -c "$inner" sh "$src" "$out/$t.tmp" "$t"; then
    rm -rf "${out:?}/$t.tmp"
    echo "build-programs.sh: building the programs for $t failed (output above)" >&2
    exit 1
  fi
  printf '%s\n' "$inputs" >"$out/$t.tmp/.built"
  rm -rf "${out:?}/$t"
  mv -T "$out/$t.tmp" "$out/$t"
  echo "build-programs.sh: $t: $(find "$out/$t" -type f | wc -l) files in $out/$t," \
    "$(($(date +%s) - start)) s"
done
