#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A driver operation fails: one message, the driver left clean, no bad file.
#
# instances: get_version enable runtime_info device_snapshot queue_snapshot suspend resume
# instances: disable query_event query_exception

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

export GPUCORE_SIM_FAULTS="[{\"op\": \"$arg\", \"errno\": \"EIO\"}]"
start_inferior vadd-fault continue
unset GPUCORE_SIM_FAULTS
gc cap capture --kfd sim "$ipid" -o out/core
case "$arg" in
resume|disable)
  # After the memory is read: the core is still good; the failure is a warning.
  expect_rc 0 cap
  grep -qi "warning: .*$arg\|warning: .*resum\|warning: .*disabl" cap.err ||
    fail "no warning about the failed $arg: $(cat cap.err)"
  info_ok out/core ;;
query_event|query_exception)
  # Reading which exception was raised, or its fault address, failed: the core is written
  # without it, and the line says so.
  expect_rc 0 cap
  grep -qi "warning: .*could not be read" cap.err ||
    fail "no warning about the failed $arg: $(cat cap.err)"
  info_ok out/core
  [ "$(json "d['capture']['fault_address']")" = None ] ||
    fail "a fault address was recorded although $arg failed" ;;
*)
  [ "$rc" -ne 0 ] || fail "capture succeeded although $arg failed"
  one_line cap ;;
esac
no_bad_core out/core
driver_clean
stop_inferior
exit 0
