#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of gpucore-kfdemu running AMD's unmodified ROCm user space from the Debian 13
# root that scripts/rocm-root.sh builds ($GPUCORE_ROCM_ROOT), on its default emulated GPU (one
# gfx90a, an Instinct MI210):
#
#   kfdemu_e2e.sh KFDEMU PROGRAMS WORKDIR CASE
#
# PROGRAMS is the directory tests/kfdemu/build-programs.sh filled (one subdirectory per
# target). Cases:
#   rocminfo      rocminfo enumerates the emulated agent as the MI210 amdkfd would present
#   hip-vadd      programs/hip_vadd.hip: allocations, copies both ways, a launch, a sync
#   hsa-dispatch  programs/hsa_dispatch.c: a dispatch through ROCr's HSA API and loader
# Skips (77) without the root, or where gpucore-kfdemu cannot emulate (not root: exit 69).
set -euo pipefail

kfdemu=$1 programs=$2 work=$3 case_name=$4
test_name=kfdemu-$case_name
. "$(dirname "$0")/../lib/e2e.sh"

root=${GPUCORE_ROCM_ROOT:-}
# The file scripts/rocm-root.sh writes last into a complete root.
stamp_name=.gpucore-rocm-root
[ -n "$root" ] || skip "GPUCORE_ROCM_ROOT is not set (CMake passes it)"
[ -f "$root/$stamp_name" ] ||
  skip "no ROCm root at $root: scripts/rocm-root.sh builds it (2-4 minutes, 0.9 GB)"
# The default device of gpucore-kfdemu, and the subdirectory of PROGRAMS built for it.
target=gfx90a

e2e_enter "$work"

# emu NAME ARGS...: gpucore-kfdemu --root ROOT ARGS, stdout and stderr in NAME.out and
# NAME.err, status in $rc. Exit 69 means this machine cannot emulate (not root, no seccomp
# user notification): skip.
emu() {
  local name=$1
  shift
  rc=0
  "$kfdemu" --root "$root" "$@" >"$name.out" 2>"$name.err" </dev/null || rc=$?
  if [ "$rc" -eq 69 ]; then skip "gpucore-kfdemu cannot emulate here: $(cat "$name.err")"; fi
}

# expect_out NAME REGEX WHAT: a line of NAME.out matches the extended REGEX.
expect_out() {
  grep -Eq "$2" "$1.out" || fail "$1: no line matching '$2' ($3) in: $(head -c 4000 "$1.out")"
}

# need_program FILE: a program the fixture kfdemu-build-programs built.
need_program() {
  [ -x "$1" ] || fail "no $1: the fixture kfdemu-build-programs did not build it"
}

case $case_name in
  rocminfo)
    emu rocminfo -- rocminfo
    [ "$rc" -eq 0 ] || fail "rocminfo exited $rc: $(cat rocminfo.err)"
    # The GPU agent's block (from its Name line to the next row of stars), as amdkfd's
    # topology and ROCr present an MI210: gfx90a, 104 CUs, wave64. The CPU agent's lines
    # (Compute Unit: its cores) must not answer for it.
    expect_out rocminfo '^ *Name: +gfx90a *$' "the GPU agent's name"
    sed -n '/^ *Name: *gfx90a *$/,/^\*\*\*/p' rocminfo.out >gpu.out
    expect_out gpu '^ *Marketing Name: +AMD Instinct MI210 *$' "the marketing name"
    expect_out gpu '^ *Compute Unit: +104 *$' "the GPU's compute units"
    expect_out gpu '^ *Wavefront Size: +64\b' "the GPU's wave size"
    ;;
  hip-vadd)
    prog=$programs/$target/hip_vadd
    need_program "$prog"
    emu vadd --bind "$programs" -- "$prog"
    [ "$rc" -eq 0 ] || fail "hip_vadd exited $rc: $(cat vadd.err) $(cat vadd.out)"
    expect_out vadd '^hip_vadd: ok: 4096 elements, round trip of 4096 words intact$' \
      "its success line"
    ;;
  hsa-dispatch)
    prog=$programs/$target/hsa_dispatch
    need_program "$prog"
    emu dispatch --bind "$programs" -- "$prog" "$programs/$target/hsa_dispatch_kernel.co"
    [ "$rc" -eq 0 ] || fail "hsa_dispatch exited $rc: $(cat dispatch.err) $(cat dispatch.out)"
    # The ISA name ROCr gives the agent, target features included (sramecc-:xnack- on gfx90a today).
    isa='amdgcn-amd-amdhsa--gfx90a(:[a-z]+[-+])*'
    tail='fill dispatched as 256 work-items and retired'
    expect_out dispatch "^hsa_dispatch: ok: 2 agents, gfx90a \\($isa\\), $tail\$" "its success line"
    ;;
  *)
    fail "unknown case '$case_name'"
    ;;
esac
