#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The inferior exits while the driver serves an operation (suspend: before any memory is
# read; resume: after).
#
# instances: suspend resume

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

export GPUCORE_SIM_FAULTS="[{\"op\": \"$arg\", \"exit\": 3}]"
start_inferior vadd-fault
unset GPUCORE_SIM_FAULTS
gc cap capture --kfd sim "$ipid" -o out/core
[ "$rc" -ne 0 ] || fail "capture succeeded although the process exited"
one_line cap
grep -q "exited\|no longer exists\|gone" cap.err || fail "unclear message: $(cat cap.err)"
st=0; wait "$ipid" || st=$?; ipid=
[ "$st" -eq 3 ] || fail "inferior exited $st, expected 3"
no_bad_core out/core
exit 0
