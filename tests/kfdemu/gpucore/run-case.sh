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
# and 12), so inside the root gpucore runs through the host's own dynamic loader and libraries
# (scripts/in-rocm-root.sh's wrapper, $gc_in_root). The hook is loaded by
# the root's ROCr into the root's processes: it needs only the C library, which is compatible
# upward. A case reads:
#   $kfdemu $root $programs $target $plans  the emulator, root, programs, device, fault plans
#   $gpucore        the host's gpucore, to analyze outside the root
#   $gc_in_root     the wrapper that runs gpucore inside the root
#   $hook           the hook library (HSA_TOOLS_LIB), usable inside the root
#   emu NAME ARGS.. scripts/in-rocm-root.sh with the programs and the case's directory bound,
#                   NAME.out/.err, $rc
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

# gpucore inside the root: scripts/in-rocm-root.sh runs the emulator with the root and puts a
# wrapper first on the command's PATH that runs this build's gpucore through the host's own
# loader and libraries; $gc_in_root names that wrapper, for commands given by path.
build_dir=$(cd "$(dirname "$gpucore")/.." && pwd) # (cli/gpucore in the build tree)
in_root=$(cd "$here/../../../scripts" && pwd)/in-rocm-root.sh
gc_in_root=$build_dir/in-rocm-root/bin/gpucore
[ "$kfdemu" = "$build_dir/kfd/emu/gpucore-kfdemu" ] ||
  fail "the emulator $kfdemu is not the one of gpucore's build tree $build_dir"
# emu NAME ARGS...: the emulator with the root and gpucore's binds (scripts/in-rocm-root.sh),
# the programs and this case's directory bound too, then ARGS (emulator options, --, the
# command); stdout and stderr in NAME.out and NAME.err, status in $rc.
emu() {
  local name=$1
  shift
  rc=0
  GPUCORE_BUILD=$build_dir GPUCORE_ROCM_ROOT=$root "$in_root" --bind "$programs" --bind "$PWD" \
    "$@" >"$name.out" 2>"$name.err" </dev/null || rc=$?
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
