#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# SIGTERM to the whole process group (what scancel and timeout send; a terminal's ^C is the
# same with SIGINT) while a core is being written: the capture is abandoned at once (it took
# 41 s while every thread of the target stayed stopped), it says so, nothing is published,
# the target is resumed and ends on its own SIGTERM, and gpucore exits with its status (0).

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

e2e_continue_copy "$scenarios/big-memory.json" big-memory.json
export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
: >run.out; : >run.err
setsid "$gpucore" run --kfd sim --tier all -o out/core -- "$inferior" big-memory.json \
    --objects "$objects" >>run.out 2>>run.err &
gpid=$!
unset GPUCORE_SIM_FAULTS
for _ in $(seq 1 400); do
  cpid=$(sed -n 's/^gpucore-inferior: pid \([0-9]*\) ready$/\1/p' run.out)
  [ -n "$cpid" ] && break
  sleep 0.05
done
[ -n "$cpid" ] || fail "the command did not become ready: $(cat run.err)"
for _ in $(seq 1 400); do
  grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" 2>/dev/null && break
  sleep 0.05
done
grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" || fail "the capture did not start: $(cat run.err)"
kill -TERM -- "-$(ps -o pgid= -p "$gpid" | tr -d ' ')"
rc=0; wait "$gpid" || rc=$?
[ "$rc" -eq 0 ] || fail "gpucore run exited $rc, expected the command's 0 (it ends on SIGTERM with 0): $(cat run.err)"
grep -q "^gpucore: process $cpid (.*): capture abandoned on SIGTERM: no core written; its GPU queues were resumed and its threads let run$" run.err ||
  fail "message: $(cat run.err)"
! grep -q "without a GPU exception\|interrupted" run.err || fail "a message says the opposite: $(cat run.err)"
no_orphan
no_bad_core out/core
[ ! -e out/core ] || fail "a core was written although interrupted"
exit 0
