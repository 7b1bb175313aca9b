#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# vadd-fault's wave area (256 records, 720 KiB) cut by a 400 KiB budget: the waves whose
# records the file holds whole are decoded, and each equals the same wave of a whole core of
# the same process; the report says how many of the 256 were saved and why the rest are not.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

analyze_capture vadd-fault --max-size 400K

e2e_start_inferior scenario.json
gc full capture --kfd sim "$ipid" -o out/full.core
expect_rc 0 full
e2e_stop_inferior
gc report analyze "$core"; expect_rc 0 report
grep -Eq "^Not all waves saved: 256 waves were running; [0-9]+ saved: the size budget was exhausted" report.out ||
  fail "the report does not say how many waves were saved: $(sed -n 1,4p report.out)"
gc cut-waves analyze waves --json "$core"; expect_rc 0 cut-waves
gc full-waves analyze waves --json out/full.core; expect_rc 0 full-waves
python3 - cut-waves.out full-waves.out <<'PY' || fail "the waves of the cut core differ from the whole core's"
import json, sys
cut, full = (json.load(open(f))["waves"] for f in sys.argv[1:3])
key = lambda w: (w["agent"], w["queue"], w["xcc"], tuple(w["workgroup"]), w["wave_in_group"])
whole = {key(w): w for w in full}
assert len(full) == 256, len(full)
assert 0 < len(cut) < 256, len(cut)
for w in cut:
    f = whole[key(w)]
    # Another process of the same scenario: the same code at another address (symbol+offset).
    for k in ("symbol", "exec", "stopped", "stop_reasons", "faulting", "lanes", "dispatch", "kernel"):
        assert w[k] == f[k], (key(w), k, w[k], f[k])
# The faulting waves' records are at the bottom of the wave area, the part captured first.
assert sum(w["faulting"] for w in cut) == 4, sum(w["faulting"] for w in cut)
PY
exit 0
