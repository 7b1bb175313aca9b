#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# 10,000 waves running on 3 queues, their save areas cut by a 2 MiB budget: the report says so
# (from the control stacks and the capture manifest) instead of "none executing". Where the
# writer cuts exactly may move: the explanation is checked, not the bytes.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

analyze_capture multi-gpu-hang --max-size 2M

gc report analyze "$core";             expect_rc 0 report
gc report-json analyze --json "$core"; expect_rc 0 report-json
grep -Eq "^(No GPU waves in the core|Not all waves saved): (10,000 waves were running|at least [0-9,]+ waves were running|the number of waves running is unknown); [0-9,]+ saved: the size budget was exhausted" report.out ||
  fail "the report does not explain the waves the budget cut: $(sed -n 2,3p report.out)"
grep -q "none of them executing" report.out && fail "the report still says no dispatch was executing"
python3 - report-json.out <<'PY' || fail "the JSON report does not explain the waves the budget cut"
import json, sys
d = json.load(open(sys.argv[1]))
qs = [q for a in d["agents"] for q in a["queues"]]
cut = [q for q in qs if q["save_area_missing"]]
assert cut, "no queue says its save area is missing"
for q in cut:
    assert q["save_area_missing"]["reason"] == "budget", q["save_area_missing"]
    assert "size budget" in q["save_area_missing"]["text"], q["save_area_missing"]
if all(q["waves_running"] is not None for q in qs):
    assert sum(q["waves_running"] for q in qs) == 10000, [q["waves_running"] for q in qs]
    assert d["waves_running"] == 10000, d["waves_running"]
assert any("size budget" in s for s in d["summary"][:2]), d["summary"][:3]
PY
exit 0
exit 0
