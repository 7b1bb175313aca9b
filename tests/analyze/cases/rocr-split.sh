#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The two files an AMD GPU crash leaves today, made from a core of vadd-fault: the ROCm runtime's
# gpucore.PID (the AMDGPU note and the GPU mappings, with that writer's ELF quirks) and the
# kernel's core.PID (host memory; the device mappings listed, not dumped). With --host, the
# split pair explains itself as the unified core does.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

analyze_capture vadd-fault

gc info-json info --json "$core"; expect_rc 0 info-json
python3 "$here/make_rocr_split.py" "$core" info-json.out gpucore.split core.host >split.log ||
  fail "make_rocr_split.py: $(cat split.log)"
gc split-info info gpucore.split; expect_rc 0 split-info
grep -q "split ELF core, AMDGPU (e_machine 224)" split-info.out ||
  fail "info does not call gpucore.split a split core: $(head -3 split-info.out)"
grep -q "lack PF_R (the ROCm runtime writes SHF_\* values)" split-info.out ||
  fail "info does not list the ROCm writer's p_flags quirk"
# Merged, the pair records no host name, kernel nor duration: info says nothing of them
# (issue 23: "Producer: gpucore 0.1.0 on  (kernel )", "in 0.000 s").
gc merge merge gpucore.split core.host -o merged.core; expect_rc 0 merge
gc merged-info info merged.core; expect_rc 0 merged-info
grep -q "^Producer:    gpucore [0-9.]*$" merged-info.out ||
  fail "info of the merged core: $(grep '^Producer' merged-info.out)"
grep -q "^Captured:    [0-9T:Z-]*, trigger " merged-info.out ||
  fail "info of the merged core: $(grep '^Captured' merged-info.out)"
rm -f merged.core
# Alone, the GPU file has the waves but not the runtime's r_debug (host memory).
gc split-alone analyze waves --json gpucore.split; expect_rc 0 split-alone
gc split-report analyze gpucore.split;             expect_rc 0 split-report
grep -q "r_debug at 0x[0-9a-f]* is not in the core" split-report.out ||
  fail "the GPU file alone does not say r_debug is missing: $(cat split-report.out)"
gc host-alone analyze core.host
expect_error 65 host-alone "core.host: no AMDGPU core-state note: .*--host"
# With the host core: the same waves, kernels and registers as the unified core.
gc waves-unified analyze waves --json "$core";                     expect_rc 0 waves-unified
gc waves-split analyze waves --json --host core.host gpucore.split; expect_rc 0 waves-split
gc report-split analyze --host core.host gpucore.split;             expect_rc 0 report-split
grep -q "^Core: gpucore.split + host core core.host" report-split.out ||
  fail "the report does not name both files: $(head -1 report-split.out)"
grep -q "4 waves of vadd " report-split.out ||
  fail "with --host the kernel is not named: $(sed -n 2p report-split.out)"
gc dump-unified dbgapi-dump --json "$core";                          expect_rc 0 dump-unified
gc dump-split dbgapi-dump --json --host core.host gpucore.split;      expect_rc 0 dump-split
python3 - <<'PY' || fail "the split pair differs from the unified core (see above)"
import json, sys
def load(name):
    return json.load(open(name + ".out"))
a, b = load("waves-unified"), load("waves-split")
for d in (a, b):
    d.pop("core"); d.pop("host_core", None)
if a != b:
    print("analyze waves: the split pair differs from the unified core")
    sys.exit(1)
def dump(name):
    recs = [json.loads(l) for l in open(name + ".out")]
    for r in recs:
        if r["kind"] == "library":
            for k in ("core", "host_core", "path"):
                r.pop(k, None)
    return recs
if dump("dump-unified") != dump("dump-split"):
    print("dbgapi-dump: the split pair differs from the unified core")
    sys.exit(1)
PY
exit 0
