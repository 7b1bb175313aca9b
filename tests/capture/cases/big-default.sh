#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The default tier on a scenario with large buffers: a core that takes little disk (its holes
# cost nothing), says what it left out, passes every check and is not truncated.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior big-memory continue
gc cap capture --kfd sim "$ipid" -o out/core
expect_rc 0 cap
# Bytes on disk: holes (never-written host pages) cost nothing, and under sanitizers the
# inferior's own heap has large untouched regions that inflate the apparent size.
size=$(( $(stat -c %b out/core) * $(stat -c %B out/core) ))
[ "$size" -lt $((64 << 20)) ] || fail "default core takes $size bytes on disk, expected < 64 MiB"
grep -q "tier all not requested" cap.err || fail "summary does not say what was left out: $(cat cap.err)"
check_core out/core
[ "$(json "d['manifest']['truncated']")" = False ] || fail "default core is truncated"
driver_clean
stop_inferior
exit 0
