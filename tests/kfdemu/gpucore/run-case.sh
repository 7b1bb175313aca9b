#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpucore itself on AMD's ROCm user space: each case (CASE.case beside this script, a bash
# snippet) runs AMD's programs from the Debian 13 root under gpucore-kfdemu and drives gpucore
# through the code a real GPU takes (the linux backend, /dev/kfd, ptrace, /proc/PID/mem):
#
#   run-case.sh KFDEMU GPUCORE HOOK PROGRAMS WORKDIR CASE
#
# gpucore and its hook are the host's build; the root's C library and ours differ (Debian 13
# and 12), so inside the root gpucore runs through the host's own dynamic loader and libraries,
# bound read-write at $host_libs_at: the wrapper $gc_in_root does that. The hook is loaded by
# the root's ROCr into the root's processes: it needs only the C library, which is compatible
# upward. A case reads:
#   $kfdemu $root $programs $target $plans  the emulator, root, programs, device, fault plans
#   $gpucore        the host's gpucore, to analyze outside the root
#   $gc_in_root     the wrapper that runs gpucore inside the root
#   $hook           the hook library (HSA_TOOLS_LIB), usable inside the root
#   emu NAME ARGS.. gpucore-kfdemu --root with the binds the wrapper needs, NAME.out/.err, $rc
# Skips (77) without the root, without a program, or where the emulator cannot run (69).
set -euo pipefail

kfdemu=$1 gpucore=$2 hook=$3 programs=$4 work=$5 case_name=$6
test_name=kfdemu-gpucore-$case_name
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/e2e.sh"

root=${GPUCORE_ROCM_ROOT:-}
[ -n "$root" ] || skip "GPUCORE_ROCM_ROOT is not set (CMake passes it)"
[ -f "$root/.gpucore-rocm-root" ] ||
  skip "no ROCm root at $root: scripts/rocm-root.sh builds it (2-4 minutes, 0.9 GB)"
target=gfx90a
plans=$here/../plans
case_file=$here/$case_name.case
[ -f "$case_file" ] || fail "no case file $case_file"

e2e_enter "$work"

# The directory of the host's C library, as the host's gpucore resolves it, and the loader in
# it (not /lib64's link: inside the root that absolute link names the root's loader).
host_libdir=$(dirname "$(ldd "$gpucore" | sed -n 's/^.*libc\.so\.6 => \([^ ]*\) .*$/\1/p')")
[ -d "$host_libdir" ] || fail "cannot find the C library of $gpucore"
host_loader=$(ls "$host_libdir"/ld-linux-*.so.* 2>/dev/null | head -1)
[ -n "$host_loader" ] || fail "no dynamic loader in $host_libdir"
host_libs_at=/run/gpucore-host/lib
gc_in_root=$PWD/gpucore-in-root
cat >"$gc_in_root" <<EOS
#!/bin/sh
exec $host_libs_at/$(basename "$host_loader") --library-path $host_libs_at $gpucore "\$@"
EOS
chmod 755 "$gc_in_root"

build_dir=$(cd "$(dirname "$gpucore")/.." && pwd)
# emu NAME ARGS...: gpucore-kfdemu --root ROOT with gpucore's binds, then ARGS (emulator
# options, --, the command); stdout and stderr in NAME.out and NAME.err, status in $rc.
emu() {
  local name=$1
  shift
  rc=0
  "$kfdemu" --root "$root" --bind "$host_libdir:$host_libs_at" --bind "$build_dir" \
    --bind "$programs" --bind "$PWD" "$@" >"$name.out" 2>"$name.err" </dev/null || rc=$?
  if [ "$rc" -eq 69 ]; then skip "gpucore-kfdemu cannot emulate here: $(cat "$name.err")"; fi
}

# expect NAME.EXT REGEX WHAT: a line of the file matches the extended REGEX.
expect() {
  grep -Eq -- "$2" "$1" || fail "$1: no line matching '$2' ($3) in: $(head -c 4000 "$1")"
}

# need_program NAME: the program the fixture kfdemu-build-programs built for $target, its path
# printed.
need_program() {
  [ -x "$programs/$target/$1" ] || fail "no $programs/$target/$1: the fixture did not build it"
  echo "$programs/$target/$1"
}

. "$case_file"
