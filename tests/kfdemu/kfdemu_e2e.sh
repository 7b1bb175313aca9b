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
#   hip-oob       plans/oob.json: the out-of-bounds store faults; ROCr's own message, abort (134)
#   hip-illegal   plans/illegal.json: HIP's queue-error callback, abort
#   hip-assert    plans/assert.json: the abort trap of a device assert, abort
#   hang          plans/hang.json: a kernel that never ends; SIGTERM to the emulator ends all
#   debugger      programs/kfd_debugger.c on a hung HIP program: DBG_TRAP through the emulator,
#                 and the runtime's structures where a debugger looks for them
#   dbgapi        programs/dbgapi_attach.c on a hung HIP program: AMD's debugger library
#                 (librocm-dbgapi) attaches, lists the agent, queues, the hung dispatch and its
#                 waves, detaches
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

# (before e2e_enter changes directory: $0 may be relative)
plans=$(cd "$(dirname "$0")" && pwd)/plans

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

# expect_err NAME REGEX WHAT: a line of NAME.err matches the extended REGEX.
expect_err() {
  grep -Eq "$2" "$1.err" || fail "$1: no line matching '$2' ($3) in: $(head -c 4000 "$1.err")"
}


# need_program FILE: a program the fixture kfdemu-build-programs built.
need_program() {
  [ -x "$1" ] || fail "no $1: the fixture kfdemu-build-programs did not build it"
}

# own_copy FILE: FILE copied into this case's directory, its path printed. A case that looks
# for its program's processes by path (pgrep -f) runs its own copy: the other cases, run in
# parallel (ctest -j), run the same program from PROGRAMS, and their processes (and their
# emulators' command lines) would match.
own_copy() {
  cp "$1" "$PWD/" && echo "$PWD/$(basename "$1")"
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
  hip-oob)
    prog=$programs/$target/hip_oob
    need_program "$prog"
    emu oob -v --faults "$plans/oob.json" --bind "$programs" -- "$prog"
    [ "$rc" -eq 134 ] || fail "hip_oob exited $rc, not 134 (abort): $(tail -5 oob.err)"
    # ROCr's own message, at the page of the address the kernel wrote (its argument + 2^39)
    at=$(sed -n 's/^hip_oob: buffer at .*, writing at \(0x[0-9a-f]*\)$/\1/p' oob.out)
    [ -n "$at" ] || fail "hip_oob did not say where it writes: $(cat oob.out)"
    page=$(printf '0x%x' $((at & ~0xfff)))
    expect_err oob "^Memory access fault by GPU node-1 \(Agent handle: 0x[0-9a-f]+\) on address $page\. Reason: Page not present or supervisor privilege\.$" \
      "ROCr's fault message"
    # the waves stopped at the kernel's global store
    expect_err oob "waves saved in queue [0-9]+'s save area at 0x[0-9a-f]+, stopped at 0x[0-9a-f]+: global_store_dword" \
      "the waves saved at the store"
    ;;
  hip-illegal)
    prog=$programs/$target/hip_illegal
    need_program "$prog"
    emu illegal -v --faults "$plans/illegal.json" --bind "$programs" -- "$prog"
    [ "$rc" -eq 134 ] || fail "hip_illegal exited $rc, not 134: $(tail -5 illegal.err)"
    expect_err illegal "aborting with error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction\. code: 0x2a" \
      "HIP's queue-error message"
    expect_err illegal "stopped at 0x[0-9a-f]+: not an instruction: 0xbfff0000" \
      "the waves saved at the bad word"
    ;;
  hip-assert)
    prog=$programs/$target/hip_assert
    need_program "$prog"
    emu assert -v --faults "$plans/assert.json" --bind "$programs" -- "$prog"
    [ "$rc" -eq 134 ] || fail "hip_assert exited $rc, not 134: $(tail -5 assert.err)"
    expect_err assert "aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception\. code: 0x1016" \
      "HIP's queue-error message for the abort trap"
    ;;
  hang)
    need_program "$programs/$target/hip_vadd"
    prog=$(own_copy "$programs/$target/hip_vadd")
    # the dispatch never ends: a SIGTERM to the emulator reaches the program, and nothing of
    # either is left behind
    rc=0
    timeout -s TERM 3 "$kfdemu" --root "$root" --faults "$plans/hang.json" --bind "$PWD" \
      -- "$prog" >hang.out 2>hang.err </dev/null || rc=$?
    [ "$rc" -eq 124 ] || fail "the hung program ended by itself or failed: status $rc: $(cat hang.err)"
    sleep 0.5
    ! pgrep -f "$prog" >/dev/null || fail "the hung program is still running: $(pgrep -af "$prog")"
    ;;
  debugger)
    prog=$programs/$target/hip_vadd
    dbg=$programs/$target/kfd_debugger
    need_program "$prog"
    need_program "$dbg"
    emu debugger --faults "$plans/hang.json" --bind "$programs" -- \
      sh -c '"$1" & "$2" $!; s=$?; kill -9 $!; exit $s' sh "$prog" "$dbg"
    [ "$rc" -eq 0 ] || fail "kfd_debugger exited $rc: $(cat debugger.out debugger.err)"
    expect_out debugger '^kfd_debugger: version 1\.17$' "KFD 1.17"
    expect_out debugger '^kfd_debugger: enable 0, runtime state 1, r_debug set$' \
      "debugging enabled on a runtime that enabled itself"
    # HIP's fat binary, embedded whole in the program, as ROCr names it in its link map
    expect_out debugger "^kfd_debugger: code object file://$prog#offset=[0-9]+&size=[0-9]+$" \
      "the HIP fat binary's code object URI"
    expect_out debugger '^kfd_debugger: not the ptrace parent: EPERM$' "the ptrace rule"
    expect_out debugger '^kfd_debugger: a pid without KFD: ESRCH$' "an unknown pid"
    expect_out debugger '^kfd_debugger: device gfx_target_version 90010, 1 XCC, 416 SIMDs$' \
      "the device snapshot"
    expect_out debugger '^kfd_debugger: queue [0-9]+ type 2, ring [0-9]+ bytes, save area [0-9]+ bytes, amd_queue_t matches$' \
      "the queue snapshot and amd_queue_t"
    ! grep -q 'amd_queue_t DIFFERS' debugger.out || fail "an amd_queue_t differs: $(cat debugger.out)"
    # the hung dispatch's waves saved by SUSPEND (the other queue, idle, has none)
    expect_out debugger '^kfd_debugger: queue [0-9]+ saved: control stack [0-9]+ bytes, waves [1-9][0-9]* bytes$' \
      "the running waves saved by SUSPEND"
    expect_out debugger '^kfd_debugger: disable 0$' "DISABLE"
    ;;
  dbgapi)
    dbg=$programs/$target/dbgapi_attach
    [ -f "$root/usr/include/amd-dbgapi/amd-dbgapi.h" ] ||
      skip "the ROCm root at $root predates AMD's debugger library: scripts/rocm-root.sh rebuilds it"
    need_program "$programs/$target/hip_vadd"
    need_program "$dbg"
    prog=$(own_copy "$programs/$target/hip_vadd")
    # The library attaches to the hung program (started first, its kernel held by the plan),
    # then the program is killed: the sh exits with the library client's status, and says
    # whether the program was still alive to be killed. HSA_ENABLE_DEBUG=1 makes ROCr ask
    # amdkfd for the ttmp setup (RUNTIME_ENABLE's TTMP_SAVE mode) that names each wave's
    # dispatch packet: gfx90a is the gfx9 on which amdkfd does not promise it otherwise
    # (kfd_dbg_has_ttmps_always_setup), and without it the library knows no dispatch.
    # The client starts once the emulator says (-v, on its stderr: dbgapi.err) that the
    # dispatch hangs: ROCr takes a second or more to launch it on a loaded machine.
    emu dbgapi -v --faults "$plans/hang.json" --bind "$programs" --bind "$PWD" -- \
      sh -c 'HSA_ENABLE_DEBUG=1 "$1" & i=0
             until grep -q "dispatch of .*vadd.*: hang" "$3"; do
               i=$((i + 1)); [ $i -lt 300 ] || { echo "no hung dispatch after 30 s"; exit 9; }
               sleep 0.1; done
             "$2" $!; s=$?
             kill -9 $! && echo "dbgapi: program killed"; wait $!; exit $s' \
      sh "$prog" "$dbg" "$PWD/dbgapi.err"
    [ "$rc" -eq 0 ] || fail "dbgapi_attach exited $rc: $(cat dbgapi.out dbgapi.err)"
    ! grep -q 'FAILED' dbgapi.out || fail "a library call failed: $(cat dbgapi.out dbgapi.err)"
    ! grep -Eq 'dbgapi_attach: library (warning|fatal error)' dbgapi.err ||
      fail "the library warned: $(grep -E 'dbgapi_attach: library' dbgapi.err)"
    expect_out dbgapi '^dbgapi_attach: attached to [0-9]+$' "the attach"
    expect_out dbgapi '^dbgapi_attach: event runtime: loaded$' \
      "the runtime, enabled before the attach, reported loaded"
    expect_out dbgapi '^dbgapi_attach: 1 agents$' "one agent"
    # the name is the library's, from pci.ids by the PCI ids the device snapshot gave
    expect_out dbgapi '^dbgapi_attach: agent gfx90a, .*MI210.*, debugging supported$' \
      "the agent, its architecture and name"
    # ROCr's queues: the runtime's own and HIP's, where the dispatch hangs
    expect_out dbgapi '^dbgapi_attach: 2 queues$' "two queues"
    [ "$(grep -Ec '^dbgapi_attach: queue [0-9]+ HSA AQL at 0x[0-9a-f]+, [0-9]+ bytes$' dbgapi.out)" -eq 2 ] ||
      fail "not two AQL queues: $(cat dbgapi.out)"
    expect_out dbgapi '^dbgapi_attach: 1 dispatches$' "the hung dispatch, alone"
    # Where the kernel is: the HIP fat binary's code object, as the library names it, and the
    # kernel's symbols in it (offsets from the code object's load address).
    uri_re="file://$prog#offset=([0-9]+)&size=([0-9]+) loaded at (0x[0-9a-f]+)"
    line=$(grep -E "^dbgapi_attach: code object $uri_re$" dbgapi.out) ||
      fail "no code object of the HIP fat binary: $(cat dbgapi.out)"
    [[ $line =~ $uri_re ]]
    dd if="$prog" of=vadd.co bs=1 skip="${BASH_REMATCH[1]}" count="${BASH_REMATCH[2]}" \
      status=none
    load=${BASH_REMATCH[3]}
    # readelf -sW: Num: Value Size Type Bind Vis Ndx Name
    kd_off=$(readelf -sW vadd.co | awk '$8 == "_Z4vaddPKjS0_Pjj.kd" { print "0x" $2; exit }')
    fn_off=$(readelf -sW vadd.co | awk '$8 == "_Z4vaddPKjS0_Pjj" { print "0x" $2; exit }')
    if [ -z "$kd_off" ] || [ -z "$fn_off" ]; then
      fail "no vadd kernel symbols in its code object: $(readelf -sW vadd.co)"
    fi
    kd=$(printf '0x%x' $((load + kd_off)))
    entry=$(printf '0x%x' $((load + fn_off)))
    expect_out dbgapi "^dbgapi_attach: dispatch [0-9]+, packet [0-9]+, kernel descriptor $kd, code entry 0x[0-9a-f]+$" \
      "the dispatch of vadd's kernel descriptor"
    # the waves the emulator saves on SUSPEND (at the kernel's entry), stopped by the library:
    # every one of the dispatch, and inside vadd's code
    waves=$(grep -Ec "^dbgapi_attach: wave [0-9]+ of dispatch [0-9]+ stopped at pc $entry, reason none \(stopped by the debugger\)$" dbgapi.out || true)
    stopping=$(sed -n 's/^dbgapi_attach: stopping \([0-9]*\) waves$/\1/p' dbgapi.out)
    if [ "${stopping:-0}" -eq 0 ] || [ "$waves" -ne "$stopping" ]; then
      fail "${stopping:-no} waves asked to stop, $waves stopped at vadd's entry $entry: $(cat dbgapi.out)"
    fi
    expect_out dbgapi '^dbgapi_attach: detached, 0 breakpoints left$' \
      "the detach, the library's breakpoints removed"
    expect_out dbgapi '^dbgapi: program killed$' "the program alive until the end"
    ! pgrep -f "$prog" >/dev/null || fail "the program is still running: $(pgrep -af "$prog")"
    ;;
  *)
    fail "unknown case '$case_name'"
    ;;
esac
