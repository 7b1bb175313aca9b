#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore kfd-check` where no KFD exists: exit 69 and exactly the one-sentence diagnosis.
#   kfd_check.sh GPUCORE CASE
# CASE no-driver: the default device; skipped (77) on a machine that has /dev/kfd.
# CASE device-missing: --device pointing at a path that does not exist.
# CASE sim (extra args INFERIOR SCENARIO OBJDIR): --kfd sim --pid of a running gpucore-inferior.
set -uo pipefail

gpucore=$1 case=$2
fail() { echo "FAIL [kfd-check $case]: $*" >&2; exit 1; }

# check WANT_MESSAGE ARGS...: run kfd-check, require exit 69, empty stdout, exactly the message.
check() {
  local want=$1; shift
  local out err rc
  out=$(mktemp) err=$(mktemp)
  # GPUCORE_KFD would redirect the check to the sim backend; this test is about linux.
  env -u GPUCORE_KFD "$gpucore" kfd-check "$@" >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 69 ] || { cat "$err" >&2; rm -f "$out" "$err"; fail "exited $rc, expected 69"; }
  [ ! -s "$out" ] || { rm -f "$out" "$err"; fail "unexpected output on stdout"; }
  [ "$(cat "$err")" = "$want" ] || {
    echo "got:      $(cat "$err")" >&2; echo "expected: $want" >&2
    rm -f "$out" "$err"; fail "wrong message"; }
  rm -f "$out" "$err"
}

case $case in
no-driver)
  if [ -e /dev/kfd ]; then echo "SKIP: /dev/kfd exists on this machine"; exit 77; fi
  check "gpucore: no AMD GPU kernel driver: /dev/kfd not found"
  ;;
device-missing)
  check "gpucore: no AMD GPU kernel driver: /nonexistent not found" --device /nonexistent
  ;;
sim)
  inferior=$3 scenario=$4 objdir=$5
  if [ ! -d "$objdir" ] || [ -z "$(ls "$objdir" 2>/dev/null)" ]; then
    echo "SKIP: no scenario code objects in $objdir"; exit 77
  fi
  log=$(mktemp)
  "$inferior" "$scenario" --objects "$objdir" >"$log" 2>&1 &
  ipid=$!
  trap 'kill $ipid 2>/dev/null; wait $ipid 2>/dev/null; rm -f "$log"' EXIT
  for _ in $(seq 100); do grep -q ready "$log" && break; sleep 0.05; done
  grep -q ready "$log" || { cat "$log" >&2; fail "the inferior did not become ready"; }
  out=$(env -u GPUCORE_KFD "$gpucore" kfd-check --kfd sim --pid "$ipid") || fail "exited $?"
  case $out in
  "KFD 1."*" (simulated, process $ipid): the debug interface is available") ;;
  *) fail "unexpected output: $out" ;;
  esac
  # The environment selects the backend too.
  GPUCORE_KFD=sim "$gpucore" kfd-check --pid "$ipid" >/dev/null || fail "GPUCORE_KFD=sim: exit $?"
  # --kfd wins over the environment.
  err=$(GPUCORE_KFD=sim "$gpucore" kfd-check --kfd linux --device /nonexistent 2>&1); rc=$?
  if [ "$rc" -ne 69 ] ||
     [ "$err" != "gpucore: no AMD GPU kernel driver: /nonexistent not found" ]; then
    fail "--kfd linux under GPUCORE_KFD=sim: exit $rc, '$err'"
  fi
  # The sim backend is reached only through a target.
  env -u GPUCORE_KFD "$gpucore" kfd-check --kfd sim 2>/dev/null; rc=$?
  [ "$rc" -eq 64 ] || fail "--kfd sim without --pid exited $rc, expected 64"
  ;;
*) fail "unknown case" ;;
esac
echo "PASS [kfd-check $case]"
