#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# SIGHUP after the core was written, while gpucore waits for the command's end: passed on,
# the command's status.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

e2e_continue_copy "$scenarios/vadd-fault.json" vadd-fault.json
run_bg "$PWD/vadd-fault.json"
# The core is published (renamed into place) once complete; the runtime got its error.
for _ in $(seq 1 400); do
  [ -e out/core ] && grep -q "continuing" run.err && break
  sleep 0.05
done
[ -e out/core ] || fail "no core written: $(cat run.err)"
kill -0 "$gpid" || fail "gpucore run did not wait for the command: $(cat run.err)"
kill -HUP "$gpid"
rc=0; wait "$gpid" || rc=$?
[ "$rc" -eq 0 ] || fail "gpucore run sent SIGHUP after the capture exited $rc, expected 0: $(cat run.err)"
grep -q "^gpucore: SIGHUP passed on" run.err || fail "message: $(cat run.err)"
grep -q "^gpucore: out/core: .*256 waves" run.err || fail "no summary: $(cat run.err)"
no_orphan
info_ok out/core
exit 0
