#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The process ends without a GPU error while watched: no core, a message, exit 0.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior multi-gpu-hang
"$gpucore" watch --kfd sim "$ipid" -o out/core >watch.out 2>watch.err &
gpid=$!
# Waiting means debugging enabled: the driver says so.
for _ in $(seq 1 400); do
  "$gpucore" kfd-check --kfd sim --state --pid "$ipid" 2>/dev/null |
      grep -q "debugging enabled" && break
  sleep 0.05
done
"$gpucore" kfd-check --kfd sim --state --pid "$ipid" | grep "debugging enabled" >/dev/null ||
  fail "gpucore watch did not enable debugging: $(cat watch.err)"
stop_inferior
rc=0; wait "$gpid" || rc=$?
[ "$rc" -eq 0 ] || fail "gpucore watch exited $rc: $(cat watch.err)"
one_line watch
grep -q "ended (status 0) without a GPU exception; no core written" watch.err ||
  fail "unexpected message: $(cat watch.err)"
[ ! -e out/core ] || fail "a core was written"
exit 0
