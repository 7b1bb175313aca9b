#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpucore watch: the core is written at the memory violation, then the inferior aborts.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior vadd-fault
gc watch watch --kfd sim "$ipid" -o out/core
expect_rc 0 watch
st=0
wait "$ipid" || st=$?
ipid=
[ "$st" -eq 134 ] || fail "the inferior exited $st after the watch, expected 134 (abort)"
info_ok out/core
[ "$(json "d['capture']['trigger']")" = memory-violation ] ||
  fail "trigger is $(json "d['capture']['trigger']")"
exit 0
