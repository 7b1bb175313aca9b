#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A process that already has a tracer (here a `gpucore watch`, as a debugger would be):
# capture and watch refuse it, naming the tracer, with exit 77.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior multi-gpu-hang
"$gpucore" watch --kfd sim "$ipid" -o out/w >w.out 2>w.err &
wpid=$!
for _ in $(seq 1 400); do
  [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = "$wpid" ] && break
  sleep 0.05
done
[ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = "$wpid" ] ||
  fail "gpucore watch did not attach: $(cat w.err)"
for verb in capture watch; do
  rc=0; "$gpucore" "$verb" --kfd sim "$ipid" -o out/core >t.out 2>t.err || rc=$?
  [ "$rc" -eq 77 ] || fail "$verb of a traced process exited $rc, expected 77: $(cat t.err)"
  [ "$(wc -l <t.err)" -eq 1 ] || fail "$verb printed more than one line: $(cat t.err)"
  grep -q "already traced by process $wpid" t.err || fail "$verb does not name the tracer: $(cat t.err)"
done
kill -TERM "$wpid"; wait "$wpid" || true
stop_inferior
exit 0
