#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# --kfd linux without /dev/kfd: capture exits 69 naming the missing driver; the target is left
# running; capture of a process that does not exist is a usage or input error.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior vadd-fault continue
gc cap capture --kfd linux "$ipid" -o out/core
if [ ! -e /dev/kfd ]; then
  expect_rc 69 cap
  one_line cap
  grep -q "no AMD GPU kernel driver: /dev/kfd not found" cap.err || fail "message: $(cat cap.err)"
fi
kill -0 "$ipid" || fail "the inferior did not survive"
stop_inferior
if [ ! -e /dev/kfd ]; then
  # run is never the reason a job does not run: without a driver it says so once, starts
  # the command (which runs to its end) and exits with its status.
  gc runnodrv run --kfd linux -o out/core -- sh -c 'touch started; exit 5'
  expect_rc 5 runnodrv
  [ -e started ] || fail "gpucore run did not start the command without a driver"
  grep -q "^gpucore: warning: no AMD GPU kernel driver: /dev/kfd not found: sh runs, nothing can be captured$" runnodrv.err ||
    fail "message: $(cat runnodrv.err)"
  [ "$(grep -c warning runnodrv.err)" -eq 1 ] || fail "more than one warning: $(cat runnodrv.err)"
  # The driver is checked before the target: a process gpucore could not even trace (pid 1,
  # not ours to stop) still gets the driver's answer, for capture and watch alike.
  for verb in capture watch; do
    gc "nodrv-$verb" "$verb" --kfd linux 1 -o out/core
    expect_rc 69 "nodrv-$verb"
    one_line "nodrv-$verb"
    grep -q "no AMD GPU kernel driver: /dev/kfd not found" "nodrv-$verb.err" ||
      fail "$verb 1: $(cat "nodrv-$verb.err")"
  done
fi
gc nopid capture --kfd sim 999999999 -o out/core
[ "$rc" -eq 64 ] || [ "$rc" -eq 66 ] || fail "capture of no process exited $rc"
one_line nopid
exit 0
