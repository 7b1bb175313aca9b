#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A command that never raises a GPU exception: no core, its own status.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

rc=0
"$gpucore" run --kfd sim -o out/core -- sh -c 'exit 7' >run.out 2>run.err || rc=$?
[ "$rc" -eq 7 ] || fail "gpucore run exited $rc, expected the command's 7: $(cat run.err)"
[ ! -e out/core ] || fail "a core was written"
exit 0
