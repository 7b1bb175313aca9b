#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# SIGTERM while the core is being written: the capture is abandoned (nothing published, the
# queues resumed, debugging disabled: the runtime gets its error and carries on), then the
# signal is passed on and the command's status (0) is gpucore's.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

e2e_continue_copy "$scenarios/big-memory.json" big-memory.json
export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
run_bg "$PWD/big-memory.json" --tier all
unset GPUCORE_SIM_FAULTS
for _ in $(seq 1 400); do
  grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" 2>/dev/null && break
  sleep 0.05
done
grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" || fail "the capture did not start: $(cat run.err)"
kill -TERM "$gpid"
rc=0; wait "$gpid" || rc=$?
[ "$rc" -eq 0 ] || fail "gpucore run sent SIGTERM while capturing exited $rc, expected 0: $(cat run.err)"
grep -q "^gpucore: process $cpid (.*): capture abandoned on SIGTERM: no core written; its GPU queues were resumed and its threads let run$" run.err ||
  fail "message: $(cat run.err)"
! grep -q "interrupted\|without a GPU exception" run.err || fail "a message says the opposite: $(cat run.err)"
grep -q "memory violation.*continuing" run.out run.err ||
  fail "the runtime was not handed its error: $(cat run.err)"
no_orphan
no_bad_core out/core
[ ! -e out/core ] || fail "a core was written although interrupted"
exit 0
