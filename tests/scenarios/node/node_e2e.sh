#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The node-scale scenarios end to end (tests/scenarios/node/README.md):
#
#   node_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS
#
# 1. node_scale.py still writes the two checked-in files byte for byte;
# 2. node-8x-mi300x.json (8 MI300X, 77,824 waves, one workgroup faulting) is captured on demand and
#    analyzed: every wave is in the core, the faulting workgroup's 4 waves are found on GPU 0's
#    first queue with their memory violation, every wave resident and the signature a fault's;
# 3. the library serves the same core: `gpucore dbgapi-dump --no-registers` lists 77,824 waves.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [name]: why" line), 77 skip (no ptrace rights).
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4
here=$(cd "$(dirname "$0")" && pwd)
test_name=scale-e2e-node-8x
. "$here/../../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

for v in fault hang; do
  name=node-8x-mi300x$([ $v = hang ] && echo -hang || true).json
  python3 "$here/node_scale.py" 8 $v "$name" || fail "node_scale.py 8 $v failed"
  cmp -s "$name" "$here/$name" ||
    fail "node_scale.py 8 $v no longer writes $name: regenerate it (tests/scenarios/node/README.md)"
done

e2e_capture_scenario "$here/node-8x-mi300x.json" node.core
gc an analyze --json node.core
expect_rc 0 an
python3 - an.out <<'PY' || fail "the analysis of node.core is not the scenario's (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["waves"] == 77824, d["waves"]
assert d["faulting_waves"] == 4, d["faulting_waves"]  # one workgroup of wave64 x 4
assert len(d["agents"]) == 8, len(d["agents"])
f = d["faults"][0]
text = json.dumps(f)
assert "memory" in text and "violation" in text.replace("_", " "), text[:400]
assert d["summary"][0].startswith("4 waves of spin (dispatch 0, queue 0, gfx942) stopped by a "
                            "memory violation at spin+0x1c"), d["summary"][0]
assert (f["agent"], f["queue"], f["count"]) == (0, 0, 4), (f["agent"], f["queue"], f["count"])
assert (d["waves_running"], d["stopped_waves"]) == (77824, 4), (d["waves_running"],
                                                                d["stopped_waves"])
assert d["signature"]["text"].startswith("fault:spin+0x1c:memory_violation:"), d["signature"]
PY
gc dump dbgapi-dump --json --no-registers node.core
expect_rc 0 dump
python3 - dump.out <<'PY' || fail "dbgapi-dump does not list the 77,824 waves (above)"
import json, sys
waves = sum(1 for line in open(sys.argv[1]) if json.loads(line)["kind"] == "wave")
assert waves == 77824, waves
PY
echo "PASS [$test_name]"
