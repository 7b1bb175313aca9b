#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A GPU exception whose capture fails (a budget below the smallest core of it): the warning
# says the capture failed and why; nothing says "without a GPU exception".

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

rc=0
"$gpucore" run --kfd sim --max-size 8K -o out/core -- "$inferior" "$scenarios/vadd-fault.json" \
    --objects "$objects" >run.out 2>run.err || rc=$?
[ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected the command's 134: $(cat run.err)"
grep -q "^gpucore: warning: process [0-9]* (.*): GPU exception .*: the capture failed: .*8192.*; no core written" run.err ||
  fail "message: $(cat run.err)"
! grep -q "without a GPU exception" run.err || fail "says there was no exception: $(cat run.err)"
no_bad_core out/core
[ ! -e out/core ] || fail "a core was written"
exit 0
