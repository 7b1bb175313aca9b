#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# capture --deadline 300ms while reading memory is slow: the core is cut short, says so, and
# its manifest records the deadline as the reason.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
start_inferior big-memory continue
unset GPUCORE_SIM_FAULTS
gc cap capture --kfd sim --tier all --deadline 300ms "$ipid" -o out/core
expect_rc 0 cap
grep -q "TRUNCATED (deadline)" cap.err || fail "summary does not say truncated: $(cat cap.err)"
info_ok out/core
[ "$(json "d['manifest']['truncated']")" = True ] || fail "manifest not marked truncated"
[ "$(json "d['manifest']['truncation_reason']")" = deadline ] ||
  fail "truncation reason $(json "d['manifest']['truncation_reason']")"
driver_clean
stop_inferior
exit 0
