#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The kernel arguments of `gpucore analyze` against the scenario (tests/kernargs.cmake):
# capture SCENARIO running in gpucore-inferior (code objects compiled with argument names),
# then check every dispatch's decoded arguments in the JSON report against the scenario's
# kernargs (check_kernargs.py), and the text report's argument lines.
#
#   kernargs_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS SCENARIO
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS SCENARIO" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 scenario=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=kernargs-$scenario

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

e2e_continue_copy "$scenarios/$scenario.json" scenario.json
e2e_start_inferior scenario.json
mkdir -p out
gc cap capture --kfd sim "$ipid" -o out/core
if [ "$rc" -eq 77 ] && grep -qi "ptrace" cap.err; then skip "$(cat cap.err)"; fi
expect_rc 0 cap
e2e_stop_inferior

gc report-json analyze --json out/core; expect_rc 0 report-json
gc report analyze out/core;             expect_rc 0 report
python3 "$here/check_kernargs.py" "$scenarios/$scenario.json" report-json.out report.out ||
  fail "check_kernargs.py: see above"
exit 0
