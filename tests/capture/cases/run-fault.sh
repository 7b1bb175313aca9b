#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A driver operation fails after the command was started ($arg: enable, before anything is
# armed; suspend, while capturing): a warning that nothing is armed, the command detached
# and left to run to its end, and its status is gpucore's.
#
# instances: enable suspend

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

export GPUCORE_SIM_FAULTS="[{\"op\": \"$arg\", \"errno\": \"EIO\"}]"
run_bg vadd-fault.json
unset GPUCORE_SIM_FAULTS
for _ in $(seq 1 400); do
  grep -q "nothing armed" run.err && break
  sleep 0.05
done
grep -q "^gpucore: warning: .*nothing armed\( in it\)\?; .*\(pid $cpid) runs\|it runs\) on untraced to its end$" run.err ||
  fail "no warning: $(cat run.err)"
case "$arg" in
enable)
  # Never armed: the inferior never faults; it runs on, untraced, until it is told to end.
  sleep 0.2
  kill -0 "$cpid" || fail "the command did not run on"
  [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$cpid/status")" = 0 ] ||
    fail "the command is still traced"
  kill -0 "$gpid" || fail "gpucore run did not wait for the command"
  kill -TERM "$cpid"
  want=0 ;;
*)
  # The capture failed; the runtime gets its memory violation and aborts. The warning
  # names the exception and says the capture failed; nothing says there was no exception.
  grep -q "^gpucore: warning: process $cpid (.*): GPU exception .*: the capture failed: .*; no core written, nothing armed in it; it runs on untraced to its end$" run.err ||
    fail "message: $(cat run.err)"
  ! grep -q "without a GPU exception" run.err || fail "says there was no exception: $(cat run.err)"
  want=134 ;;
esac
rc=0; wait "$gpid" || rc=$?
[ "$rc" -eq "$want" ] || fail "gpucore run exited $rc, expected the command's $want: $(cat run.err)"
no_orphan
no_bad_core out/core
exit 0
