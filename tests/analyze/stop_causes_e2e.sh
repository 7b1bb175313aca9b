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
# CASE: "base" (the file as it is); "nospi-r10" and "nospi-r9" (no SPI TTMP setup, ROCr debug
# ABI 10 and 9: AMD's library keeps a trap-stopped wave's ttmp6 only on the trap handler's
# skip-export marker, which exists from ABI 10); "gfx12" (the gfx1100 agent made a gfx1201,
# its code object the gfx1100 one relabelled for gfx1201 -- the stop decoding needs a kernel
# entry and descriptor, not gfx12 code -- and without the ECC error gfx12 has no bit for).
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=stop-causes-$case

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

python3 - "$scenarios/stop-causes.json" scenario.json "$case" "$objects" <<'PY' || fail "cannot make the $case variant"
import json, os, shutil, sys
src, out, case, objects = sys.argv[1:5]
s = json.load(open(src))
s["on_queue_error"] = "continue"
if case.startswith("nospi-"):
    s["ttmp_setup"] = False
    s["r_version"] = int(case[len("nospi-r"):])
elif case == "gfx12":
    os.makedirs("objects", exist_ok=True)
    for f in os.listdir(objects):
        if f.endswith(".co"):
            shutil.copy(os.path.join(objects, f), "objects")
    elf = bytearray(open("objects/hang.gfx1100.co", "rb").read())
    assert elf[:4] == b"\x7fELF" and elf[4] == 2, "not an ELF64 object"
    elf[48] = 0x4E  # e_flags: EF_AMDGPU_MACH_AMDGCN_GFX1201 in the low byte
    open("objects/hang.gfx1201-relabelled.co", "wb").write(elf)
    for i, a in enumerate(s["agents"]):
        if a["target"] == "gfx1100":
            a["target"] = "gfx1201"
            co = s["code_objects"][i]
            co.pop("source")
            co["object"] = "hang.gfx1201-relabelled.co"
            co["target"] = "gfx1201"
            q = [n for n, x in enumerate(s["queues"]) if x["agent"] == i]
            d = [n for n, x in enumerate(s["dispatches"]) if x["queue"] in q]
            s["waves"] = [w for w in s["waves"]
                          if not (w["dispatch"] in d and w.get("stop") == "ecc_error")]
elif case != "base":
    sys.exit("unknown case " + case)
json.dump(s, open(out, "w"), indent=1)
PY
[ "$case" = gfx12 ] && objects=$PWD/objects

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
