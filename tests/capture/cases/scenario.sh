#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# capture PID on every scenario: one test per tests/scenarios/*.json, the scenario's name its
# argument. One summary line with waves in it, the full check of the core (check_core), the
# trigger on-demand, the driver left clean and the inferior still running.
#
# instances-from: ../../scenarios/*.json

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior "$arg" continue
gc cap capture --kfd sim "$ipid" -o out/core
expect_rc 0 cap
one_line cap
grep -q "^gpucore: out/core: .* waves" cap.err || fail "unexpected summary: $(cat cap.err)"
[ "$(summary_waves cap)" -gt 0 ] || fail "no waves captured: $(cat cap.err)"
check_core out/core
[ "$(json "d['capture']['trigger']")" = on-demand ] || fail "trigger is $(json "d['capture']['trigger']")"
driver_clean
kill -0 "$ipid" || fail "the inferior did not survive the capture"
stop_inferior
exit 0
