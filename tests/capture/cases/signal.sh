#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# SIGINT, SIGTERM, SIGHUP or SIGQUIT ($arg) while memory is read: no core, the process
# resumed and detached, exit 128 + the signal.
#
# instances: INT TERM HUP QUIT

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
start_inferior big-memory continue
unset GPUCORE_SIM_FAULTS
"$gpucore" capture --kfd sim --tier all "$ipid" -o out/core >cap.out 2>cap.err &
gpid=$!
# Interrupt once it is reading memory (the slow part): the host memory of the inferior is
# read after the state tier, so wait for the stop of the main thread first.
for _ in $(seq 1 400); do
  grep -q "^State:.*t (tracing stop)" "/proc/$ipid/status" 2>/dev/null && break
  sleep 0.05
done
kill "-$arg" "$gpid"
rc=0; wait "$gpid" || rc=$?
want=$((128 + $(kill -l "$arg")))
[ "$rc" -eq "$want" ] || fail "capture interrupted by SIG$arg exited $rc, expected $want: $(cat cap.err)"
one_line cap
[ ! -e out/core ] || fail "a core was written although interrupted"
no_bad_core out/core
driver_clean
stop_inferior
exit 0
