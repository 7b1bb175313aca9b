#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every stop cause through `gpucore analyze` (tests/stop_causes.cmake): capture
# tests/scenarios/stop-causes.json, or a variant of it, running in gpucore-inferior, and check
# each wave's stop reasons, the faulting count and the text report against the causes
# (check_stop_causes.py).
#
#   stop_causes_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# CASE: SCENARIO[:VARIANT], a file of SCENARIOS (stop-causes, stop-causes-gfx12) as written, or
# its variant "nospi-r10" / "nospi-r9": no SPI TTMP setup, ROCr debug ABI 10 / 9 (AMD's library
# then keeps a trap-stopped wave's ttmp6 only on the trap handler's skip-export marker, which
# exists from ABI 10; gfx12 has no such rule).
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=$case

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

scen=${case%%:*} variant=
[ "$scen" = "$case" ] || variant=${case#*:}
python3 - "$scenarios/$scen.json" scenario.json "$variant" <<'PY' || fail "cannot make the $case variant"
import json, sys
src, out, variant = sys.argv[1:4]
s = json.load(open(src))
s["on_queue_error"] = "continue"
if variant.startswith("nospi-r"):
    s["ttmp_setup"] = False
    s["r_version"] = int(variant[len("nospi-r"):])
elif variant:
    sys.exit("unknown variant " + variant)
json.dump(s, open(out, "w"), indent=1)
PY

e2e_start_inferior scenario.json
mkdir -p out
gc cap capture --kfd sim "$ipid" -o out/core
expect_rc 0 cap
e2e_stop_inferior

gc waves analyze waves --json out/core;  expect_rc 0 waves
gc report-json analyze --json out/core;  expect_rc 0 report-json
gc report analyze out/core;              expect_rc 0 report
python3 "$here/check_stop_causes.py" scenario.json waves.out report-json.out report.out >check.log ||
  fail "$(head -5 check.log)"
