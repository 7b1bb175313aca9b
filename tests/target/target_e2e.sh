#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A capture does no harm to its target, and under a size budget keeps what a debugger needs
# first (tests/target.cmake).
#
#   target_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CHECK_BYTES CHECK_STACKS CASE
#
# Cases, on gpucore-inferior running scenarios/untouched-memory.json (2 GiB of device buffers
# reserved, a few pages of them written; three host threads):
#   no-harm       `gpucore capture --tier T` for every tier (state, scratch, referenced, all):
#                 after each, the target's RssAnon and page tables (VmPTE, /proc/PID/status)
#                 are within a few MB / 1 MiB of what they were before the first capture
#                 (reading never-touched memory maps it in: 4 MB of page tables for 2 GiB);
#                 then every core's GPU ranges hold exactly the process's bytes (check_core_bytes).
#   stacks-first  `gpucore capture --max-size 4M`: the budget is cut inside host memory, and
#                 still every stopped thread's memory at its stack pointer is in the core
#                 (check_core_stacks; the driver's service thread is not required), and gdb
#                 (where installed) unwinds the main and the blocked threads down to main and
#                 the thread function.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 8 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CHECK_BYTES CHECK_STACKS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 check_bytes=$6 check_stacks=$7 case=$8

test_name=$case

. "$(cd "$(dirname "$0")" && pwd)/../lib/e2e.sh"
e2e_enter "$work"
mkdir -p out
e2e_need_ptrace
e2e_start_inferior "$scenarios/untouched-memory.json"

# status_kb KEY: a "KEY: N kB" line of the inferior's /proc/PID/status.
status_kb() {
  awk -v k="$1:" '$1 == k { print $2 }' "/proc/$ipid/status"
}

# capture NAME ARGS...: gpucore capture of the inferior into out/NAME; must exit 0.
capture() {
  local name=$1; shift
  local rc=0
  "$gpucore" capture --kfd sim "$@" "$ipid" -o "out/$name" >"$name.out" 2>"$name.err" || rc=$?
  if [ "$rc" -eq 77 ] && grep -qi "ptrace" "$name.err"; then skip "$(cat "$name.err")"; fi
  [ "$rc" -eq 0 ] || fail "gpucore capture $* exited $rc: $(cat "$name.err")"
}

case "$case" in
no-harm)
  rss0=$(status_kb RssAnon) pte0=$(status_kb VmPTE)
  [ -n "$rss0" ] && [ -n "$pte0" ] || fail "no RssAnon/VmPTE in /proc/$ipid/status"
  for tier in state scratch referenced all; do
    capture "core.$tier" --tier "$tier"
    rss=$(status_kb RssAnon) pte=$(status_kb VmPTE)
    echo "tier $tier: RssAnon $rss0 -> $rss kB, VmPTE $pte0 -> $pte kB"
    [ $((rss - rss0)) -le 4096 ] ||
      fail "--tier $tier raised the target's RssAnon from $rss0 kB to $rss kB"
    [ $((pte - pte0)) -le 1024 ] ||
      fail "--tier $tier grew the target's page tables from $pte0 kB to $pte kB (untouched memory was mapped in)"
  done
  grep -q "tiers state+scratch+referenced+all" core.all.err || fail "tier all was not written: $(cat core.all.err)"
  # The bytes: every GPU range of every core is the process's (the reserved buffers read as
  # zeros, the written pages as the scenario's patterns). Last: the checker itself maps in
  # what it compares.
  for tier in state scratch referenced all; do
    crc=0
    "$check_bytes" "out/core.$tier" "$ipid" >"check.$tier.out" 2>"check.$tier.err" || crc=$?
    [ "$crc" -ne 77 ] || skip "cannot read the inferior's memory"
    [ "$crc" -eq 0 ] || fail "core.$tier: $(cat "check.$tier.err")"
  done
  ;;
stacks-first)
  service=
  for t in /proc/"$ipid"/task/*; do
    [ "$(cat "$t/comm")" = gpucore-kfd-sim ] && service="$service ${t##*/}"
  done
  capture core --max-size 4M
  grep -q "TRUNCATED (size budget)" core.err || fail "4M did not cut the core: $(cat core.err)"
  # shellcheck disable=SC2086 # one argument per service thread id
  "$check_stacks" out/core $service >stacks.out 2>stacks.err ||
    fail "a thread's stack is not in the core: $(cat stacks.out stacks.err)"
  [ "$(grep -c "in the core$" stacks.out)" -ge 3 ] || fail "expected 3 threads: $(cat stacks.out)"
  # And a debugger unwinds them: through the C library too, which takes the dynamic linker's
  # list of libraries (kept with the register windows) besides the stacks.
  if command -v gdb >/dev/null; then
    gdb -batch -nx -ex 'thread apply all bt' "$inferior" out/core >gdb.out 2>gdb.err ||
      fail "gdb failed: $(cat gdb.err)"
    grep -Eq "in main \(|^#[0-9]+ +main \(" gdb.out ||
      fail "gdb shows no frame of main within 4M: $(grep -E '^(#|Thread)' gdb.out | head -20)"
    [ "$(grep -c "gc_inferior_blocked_thread" gdb.out)" -ge 2 ] ||
      fail "gdb does not unwind the two blocked threads within 4M: $(grep -E '^(#|Thread)' gdb.out | head -20)"
  fi
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
kill -0 "$ipid" || fail "the inferior did not survive the captures"
exit 0
