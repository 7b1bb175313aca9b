#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The exact wave counts the scenarios describe. The backend comes from GPUCORE_KFD here
# (no --kfd), as a user of the simulated GPU would set it once.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior vadd-fault continue
rc=0; GPUCORE_KFD=sim "$gpucore" capture "$ipid" -o out/core >cap.out 2>cap.err || rc=$?
expect_rc 0 cap
grep -q "256 waves (4 faulting)" cap.err || fail "expected 256 waves (4 faulting): $(cat cap.err)"
stop_inferior
exit 0
