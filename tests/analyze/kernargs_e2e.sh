#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The kernel arguments of `gpucore analyze` against the scenario (tests/kernargs.cmake):
# capture SCENARIO running in gpucore-inferior (code objects compiled with argument names),
# then check every dispatch's decoded arguments in the JSON report against the scenario's
# kernargs (check_kernargs.py), hidden ones from the dispatch's grid, and the text report's
# argument lines. vadd-fault and rdna3-assert (a code object v5 kernel with hidden arguments)
# then alter the core (metadata sizes, the note, the packet's kernarg address) and check the
# sentence each inconsistency gets.
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

e2e_capture_scenario "$scenarios/$scenario.json" out/core

gc report-json analyze --json out/core; expect_rc 0 report-json
gc report analyze out/core;             expect_rc 0 report
python3 "$here/check_kernargs.py" "$scenarios/$scenario.json" report-json.out report.out ||
  fail "check_kernargs.py: see above"
case $scenario in vadd-fault|rdna3-assert) ;; *) exit 0 ;; esac

# The same core with its code object's metadata altered (every copy the file holds), as a
# broken or foreign code object would have it: each inconsistency is one precise sentence.
# patch_core OUT FROM TO: OUT is out/core with every occurrence of bytes FROM replaced by TO.
patch_core() {
  python3 - out/core "$1" "$2" "$3" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
frm, to = bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4])
assert len(frm) == len(to) and data.count(frm) >= 1, data.count(frm)
open(sys.argv[2], "wb").write(data.replace(frm, to))
PY
}
ks=b52e6b65726e6172675f7365676d656e745f73697a65 # fixstr ".kernarg_segment_size"
if [ "$scenario" = rdna3-assert ]; then
  # check (code object v5, 272 bytes with its hidden arguments) declared as taking 65280
  # bytes: more than the runtime allocated and the capture kept. The sentence says how many of
  # them the core has and where the rest went; the hidden arguments, all inside the bytes
  # kept, still have their values.
  patch_core out/long.core "${ks}cd0110" "${ks}cdff00"
  gc long analyze --json out/long.core; expect_rc 0 long
  gc long-text analyze out/long.core; expect_rc 0 long-text
  python3 - <<'PY' || fail "the kernel arguments missing from the core are not explained (see above)"
import json, re
d = json.load(open("long.out"))
x = [x for a in d["agents"] for q in a["queues"] for x in q["dispatches"]][0]
e = x["arguments_error"]
assert re.fullmatch(r"(\d+) of the 65280 bytes of kernel arguments at 0x[0-9a-f]+ are in the core "
                    r"\(global memory at 0x[0-9a-f]+ is not in the core \(.*kernarg d0\)\); the "
                    r"metadata says kernel 'check' takes 65280 bytes of arguments, its kernel "
                    r"descriptor at 0x[0-9a-f]+ says 272", e), e
assert 272 <= int(e.split()[0]) < 65280, e
hidden = [(a["name"], a["value"]) for a in x["arguments"] if a["hidden"]]
# 20 with LLVM 19's hidden_completion_action, 19 without (LLVM 16's metadata)
assert len(hidden) in (19, 20) and all(v is not None for _, v in hidden), hidden
assert hidden[0] == ("hidden_block_count_x", "16") and hidden[3] == ("hidden_group_size_x", "256"), hidden
PY
  # The dispatch packet's kernarg_address zeroed (the 16 bytes kernel_object, kernarg_address
  # of the packet): the report says the arguments cannot be read, and why.
  python3 - <<'PY' || fail "cannot zero the packet's kernarg_address"
import json, struct
x = [x for a in json.load(open("report-json.out"))["agents"] for q in a["queues"] for x in q["dispatches"]][0]
ko, ka = int(x["kernel_object"], 16), int(x["kernarg_address"], 16)
data = open("out/core", "rb").read()
frm = struct.pack("<QQ", ko, ka)
assert data.count(frm) == 1, data.count(frm)
open("out/noka.core", "wb").write(data.replace(frm, struct.pack("<QQ", ko, 0)))
PY
  gc noka analyze --json out/noka.core; expect_rc 0 noka
  python3 - <<'PY' || fail "a dispatch without kernarg address is not explained (see above)"
import json
x = [x for a in json.load(open("noka.out"))["agents"] for q in a["queues"] for x in q["dispatches"]][0]
e = x["arguments_error"]
assert e == "the dispatch packet has no kernarg address, but kernel 'check' takes 272 bytes of arguments", e
# 2 explicit + 19 hidden (LLVM 16's metadata) or 20 (LLVM 19's, with hidden_completion_action)
assert len(x["arguments"]) in (21, 22) and all(a["value"] is None for a in x["arguments"]), x["arguments"]
PY
  grep -q "^      argument problems: [0-9]* of the 65280 bytes of kernel arguments at 0x[0-9a-f]* are in the core" long-text.out ||
    fail "the text report does not say which argument bytes are missing: $(grep -A20 'dispatch 0' long-text.out)"
  exit 0
fi
# 32 bytes declared, the kernel descriptor says 28.
patch_core out/big.core "${ks}1c" "${ks}20"
gc big analyze --json out/big.core; expect_rc 0 big
# 16 bytes declared: c (16..23) and n (24..27) lie past it; 16 bytes are read.
patch_core out/small.core "${ks}1c" "${ks}10"
gc small analyze --json out/small.core; expect_rc 0 small
gc small-text analyze out/small.core; expect_rc 0 small-text
# The note renamed: no metadata at all.
patch_core out/nonote.core 20000000414d4447505500 20000000584d4447505500
gc nonote analyze --json out/nonote.core; expect_rc 0 nonote
python3 - <<'PY' || fail "the altered metadata is not explained (see above)"
import json, re
def disp(name):
    d = json.load(open(name + ".out"))
    return [x for a in d["agents"] for q in a["queues"] for x in q["dispatches"]][0]
big, small, nonote = disp("big"), disp("small"), disp("nonote")
assert re.fullmatch(r"the metadata says kernel 'vadd' takes 32 bytes of arguments, its kernel "
                    r"descriptor at 0x[0-9a-f]+ says 28", big["arguments_error"]), big["arguments_error"]
assert [a["value"] is not None for a in big["arguments"]] == [True] * 4, big["arguments"]
e = small["arguments_error"]
assert re.fullmatch(r"the metadata says kernel 'vadd' takes 16 bytes of arguments, its kernel "
                    r"descriptor at 0x[0-9a-f]+ says 28; argument 2 \(c\) at bytes 16\.\.23 lies "
                    r"past the 16-byte kernarg segment the metadata declares; argument 3 \(n\) at "
                    r"bytes 24\.\.27 lies past the 16-byte kernarg segment the metadata declares", e), e
vals = [(a["name"], a["value"], a["value_error"]) for a in small["arguments"]]
assert vals[2] == ("c", None, "bytes 16..23 are past the 16 bytes of kernel arguments available"), vals
assert vals[3] == ("n", None, "bytes 24..27 are past the 16 bytes of kernel arguments available"), vals
assert nonote["arguments"] is None
assert re.fullmatch(r"code object 0 \(memory://.*\): no argument metadata: the code object has no "
                    r"NT_AMDGPU_METADATA note", nonote["arguments_error"]), nonote["arguments_error"]
PY
grep -q "^      argument problems: the metadata says kernel .vadd. takes 16 bytes of arguments, .*; argument 2 (c) at bytes 16..23 lies past" small-text.out ||
  fail "the text report does not say what is wrong with the arguments: $(grep -A6 'dispatch 0' small-text.out)"
grep -q "^        c (global float\*) = ? (bytes 16..23 are past the 16 bytes" small-text.out ||
  fail "the text report does not say why c has no value: $(grep -A6 'dispatch 0' small-text.out)"
exit 0
