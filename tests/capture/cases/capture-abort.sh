#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A capture hands the raised GPU error to the runtime when it lets go (DISABLE): a
# process whose runtime aborts on it does so right after the core is written.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior vadd-fault
gc cap capture --kfd sim "$ipid" -o out/core
expect_rc 0 cap
st=0; wait "$ipid" || st=$?; ipid=
[ "$st" -eq 134 ] || fail "the inferior exited $st after the capture, expected 134 (abort)"
info_ok out/core
[ "$(json "d['capture']['trigger']")" = on-demand ] || fail "trigger is $(json "d['capture']['trigger']")"
exit 0
