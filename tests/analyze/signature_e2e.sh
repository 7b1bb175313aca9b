#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The crash signature and `gpucore analyze --exit-code` (tests/analyze.cmake):
#
#   signature_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS MKEXAMPLE
#
# Every faulting scenario is captured twice, from two runs of gpucore-inferior (other pids,
# other addresses): the two signatures must be equal, and the signatures of different
# scenarios different. The hang scenario gives a "hang" signature and --exit-code 0, a fault
# 1, a core without GPU state 2; a file that is not a core keeps its 65.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [signature]: why" line), 77 skip (no ptrace rights).
set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS MKEXAMPLE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 mkexample=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=signature

. "$here/../lib/e2e.sh"
e2e_enter "$work"

# Cores without GPU state, and not cores at all: no ptrace needed.
"$mkexample" example.core >/dev/null
python3 "$here/strip_amdgpu_note.py" example.core nonote.core
echo "not a core" >notcore
gc nonote analyze --exit-code nonote.core
expect_rc 2 nonote
grep -q "no AMDGPU core-state note" nonote.err || fail "nonote: $(cat nonote.err)"
gc notcore analyze --exit-code notcore
expect_rc 65 notcore
gc nonote-plain analyze nonote.core
expect_rc 65 nonote-plain
gc waves-opt analyze waves --exit-code example.core
expect_rc 64 waves-opt

e2e_need_ptrace

# capture SCENARIO N: a core of a fresh run of SCENARIO in N.core, its report in N.json.
capture() {
  e2e_capture_scenario "$scenarios/$1.json" "$2.core" --tier state
  gc "$2.report" analyze --json --exit-code "$2.core"
  cp "$2.report.out" "$2.json"
}

sig() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["signature"]; print(s["hash"], s["kind"], s["text"])' "$1"; }

declare -A first
for s in vadd-fault rdna2-illegal rdna3-assert mi300-xcc; do
  for n in 1 2; do
    capture "$s" "$s.$n"
    expect_rc 1 "$s.$n.report"
  done
  a=$(sig "$s.1.json") b=$(sig "$s.2.json")
  [ "$a" = "$b" ] || fail "$s: two captures of the same crash have different signatures: $a / $b"
  set -- $a
  [ "$2" = fault ] || fail "$s: signature kind $2, expected fault"
  [[ "$3" =~ ^fault:[A-Za-z_0-9.]+(\+0x[0-9a-f]+)?:[a-z_+]+:co-[0-9a-f]{12}$ ]] ||
    fail "$s: signature text '$3' is not KIND:SYMBOL:REASONS:co-HASH"
  grep -q "\"Signature: $1 ($3)\"" "$s.1.json" || fail "$s: the summary does not show the signature"
  for o in "${!first[@]}"; do
    [ "${first[$o]}" != "$1" ] || fail "$s and $o have the same signature $1"
  done
  first[$s]=$1
done
grep -q ':vadd+0xb4:memory_violation:' vadd-fault.1.json || fail "vadd-fault: $(sig vadd-fault.1.json)"

# The fault address explained: vadd-fault stores through c + 0x40, c pointing at no buffer.
python3 - vadd-fault.1.json <<'PY' || fail "vadd-fault: the fault address is not related as expected"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["fault_relation"]
assert d["fault_address"] == "0x7f39f5000040", d["fault_address"]
assert d["fault_reasons"] == ["page_not_present"], d["fault_reasons"]
assert r["argument"] == "c" and r["argument_offset"] == 0x40, r
assert r["inside"] is None and not r["null_page"], r
assert r["text"].startswith("in no allocation"), r["text"]
assert r["text"].endswith("; argument c = 0x7f39f5000000 + 0x40"), r["text"]
# Precise memory off: the memory instructions since the last wait that drained vmcnt (vadd+0xac
# waits vmcnt(0) after both loads), so the store at the PC is the only candidate.
c = d["faults"][0]["memory_candidates"]
assert [(x["symbol"], x["instruction"].split()[0]) for x in c] == [("vadd+0xb4", "global_store_dword")], c
assert any(l.startswith("Precise memory is off: the PC may be past the faulting instruction; "
                        "memory instructions since the last wait: vadd+0xb4 (global_store_dword")
           for l in d["summary"]), d["summary"]
line = [l for l in d["summary"] if l.startswith("Fault address: ")]
assert line and line[0] == "Fault address: 0x7f39f5000040 (page not present): " + r["text"], line
PY

# mi300-xcc stops at vadd+0x20, an s_waitcnt lgkmcnt(0) not yet executed: the three scalar
# loads before it are still outstanding, so they are the candidates.
python3 - mi300-xcc.1.json <<'PY' || fail "mi300-xcc: the memory candidates are not the three scalar loads"
import json, sys
c = json.load(open(sys.argv[1]))["faults"][0]["memory_candidates"]
assert [x["symbol"] for x in c] == ["vadd", "vadd+0x8", "vadd+0x10"], c
assert all(x["instruction"].startswith("s_load_") for x in c), c
PY

# A fault in the null page: vadd-fault with the driver reporting address 0x40.
python3 - "$scenarios/vadd-fault.json" null-fault.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["exceptions"][0]["address"] = "0x40"
json.dump(d, open(sys.argv[2], "w"))
PY
capture_file() { # SCENARIO_FILE N: as capture, for a scenario file made here
  e2e_capture_scenario "$1" "$2.core" --tier state
  gc "$2.report" analyze --json "$2.core"
  cp "$2.report.out" "$2.json"
}
capture_file "$PWD/null-fault.json" null
python3 - null.json <<'PY' || fail "null-fault: the fault address is not said to be in the null page"
import json, sys
r = json.load(open(sys.argv[1]))["fault_relation"]
assert r["null_page"] and r["argument"] is None and r["inside"] is None, r
assert r["text"] == "in the null page (a null pointer + 0x40)", r["text"]
PY

# A hang: no wave stopped on an error.
capture multi-gpu-hang hang
expect_rc 0 hang.report
set -- $(sig hang.json)
[ "$2" = hang ] || fail "multi-gpu-hang: signature kind $2, expected hang"
[[ "$3" =~ ^hang:.*:none:co- ]] || fail "multi-gpu-hang: signature text '$3'"
exit 0
