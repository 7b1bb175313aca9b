#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault address related to the allocation map, end to end (tests/relation.cmake):
#
#   relation_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# vadd-fault with its exception's address moved (the scenario's relative forms, README
# "exceptions[]") where CASE says:
#   inside    {"buffer": "b", "offset": "0x1234"}    inside buffer b at offset 0x1234, from argument b
#   past-end  {"buffer": "b", "offset": "0x10010"}   0x10 bytes past the end of b, from argument b
#   before    {"buffer": "a", "before": "0x10"}      0x10 bytes before buffer a
#   host      {"host": "stack"}                      in the main thread's stack: a host mapping
# The inferior runs with --describe (where it put every allocation and the address it reports);
# the capture (tier state) is analyzed with --json and as text. fault_address must be the
# inferior's, fault_relation equal member for member to what the allocation map the inferior
# laid out and the scenario's kernel arguments give, and the text report's "Fault address:" line
# must say the same words.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [relation-CASE]: why" line), 77 skip (no ptrace rights).
set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=relation-$case

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

case $case in
  inside)   address='{"buffer": "b", "offset": "0x1234"}' ;;
  past-end) address='{"buffer": "b", "offset": "0x10010"}' ;;
  before)   address='{"buffer": "a", "before": "0x10"}' ;;
  host)     address='{"host": "stack"}' ;;
  *) echo "unknown case $case" >&2; exit 2 ;;
esac

python3 - "$scenarios/vadd-fault.json" scenario.json "$address" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["exceptions"][0]["address"] = json.loads(sys.argv[3])
d["on_queue_error"] = "continue"  # the process outlives the capture
json.dump(d, open(sys.argv[2], "w"))
PY
e2e_start_inferior scenario.json --describe describe.txt
cp "/proc/$ipid/maps" maps.txt
gc cap capture --kfd sim "$ipid" -o core --tier state
if [ "$rc" -eq 77 ] && grep -qi "ptrace" cap.err; then skip "$(cat cap.err)"; fi
expect_rc 0 cap
e2e_stop_inferior

gc report-json analyze --json core; expect_rc 0 report-json
gc report analyze core; expect_rc 0 report

python3 - "$case" scenario.json <<'PY' || fail "the fault address is not related as the layout says (above)"
import json, sys

case, scen_path = sys.argv[1:]
scen = json.load(open(scen_path))
report = json.load(open("report-json.out"))
errors = []

# Ground truth: where the inferior put things and the address its driver reports.
allocs, buffers, va = [], {}, None
for line in open("describe.txt"):
    w = line.split()
    if w[0] == "alloc":   # alloc BASE SIZE kind K gpu G LABEL...
        allocs.append({"base": int(w[1], 16), "size": int(w[2]), "label": " ".join(w[7:])})
    elif w[0] == "buffer":  # buffer INDEX BASE SIZE
        buffers[scen["buffers"][int(w[1])]["name"]] = int(w[2], 16)
    elif w[0] == "exception" and w[1] == "0":
        va = int(w[3], 16)
if va is None:
    sys.exit("describe.txt names no address for exception 0")

# The address is where the scenario said.
want_va = {"inside": lambda: buffers["b"] + 0x1234, "past-end": lambda: buffers["b"] + 0x10010,
           "before": lambda: buffers["a"] - 0x10, "host": lambda: va}[case]()
if va != want_va:
    errors.append("the inferior reports 0x%x, the scenario names 0x%x" % (va, want_va))
if case == "host":
    stack = [l for l in open("maps.txt") if l.rstrip().endswith("[stack]")]
    lo, hi = (int(x, 16) for x in stack[0].split()[0].split("-"))
    if not lo <= va < hi:
        errors.append("0x%x is not in the main thread's stack %s" % (va, stack[0].strip()))
if report["fault_address"] != "0x%x" % va:
    errors.append("fault_address %s, the inferior reported 0x%x" % (report["fault_address"], va))

# The allocation words of the report: kind names as the core's allocation map gives them.
kinds = {"code": ("code", "code-object memory"), "buffer": ("vram", "VRAM"),
         "kernarg": ("kernarg", "kernel-argument memory"), "AQL": ("ring", "AQL ring"),
         "scratch": ("scratch", "scratch"), "amd_queue_t": ("gtt", "GTT (system memory)"),
         "CWSR": ("cwsr", "context-save area")}
def kind(a):
    return kinds[a["label"].split()[0]]
def size_words(n):
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    while u + 1 < len(units) and n >= 1024 and n % 1024 == 0:
        n //= 1024
        u += 1
    return "%d %s" % (n, units[u])
def words(a):
    return "%s (%s %s)" % (a["label"], size_words(a["size"]), kind(a)[1])
def ref(a, key, value):
    return {"label": a["label"], "kind": kind(a)[0], "base": "0x%x" % a["base"], "size": a["size"], key: value}

inside = [a for a in allocs if a["base"] <= va < a["base"] + a["size"]]
below = [a for a in allocs if a["base"] + a["size"] <= va]
above = [a for a in allocs if a["base"] > va]
below = max(below, key=lambda a: a["base"] + a["size"]) if below else None
above = min(above, key=lambda a: a["base"]) if above else None

# The argument it derives from: the closest pointer argument at or below it, within 64 MiB.
args = {"a": buffers["a"], "b": buffers["b"], "c": int(scen["dispatches"][0]["kernargs"][2]["value"], 16)}
cands = [(v, n) for n, v in args.items() if 0 < v <= va and va - v <= 64 << 20]
arg = max(cands) if cands else None

# What each case must find, from the layout alone (not from the rule above).
expect = {"inside": ("inside", "buffer b", 0x1234, "b"), "past-end": ("past", "buffer b", 0x10, "b"),
          "before": ("before", "buffer a", 0x10, None), "host": ("host", None, None, None)}[case]
if expect[0] == "inside" and not (inside and inside[0]["label"] == expect[1]):
    errors.append("the layout does not put 0x%x inside %s" % (va, expect[1]))
if expect[0] == "past" and not (not inside and below["label"] == expect[1] and va - below["base"] - below["size"] == expect[2]):
    errors.append("the layout does not put 0x%x 0x%x past the end of %s" % (va, expect[2], expect[1]))
if expect[0] == "before" and not (not inside and above["label"] == expect[1] and above["base"] - va == expect[2]):
    errors.append("the layout does not put 0x%x 0x%x before %s" % (va, expect[2], expect[1]))
if expect[0] == "host" and inside:
    errors.append("0x%x is inside %s" % (va, inside[0]["label"]))
if (arg[1] if arg else None) != expect[3]:
    errors.append("0x%x derives from argument %r, expected %r" % (va, arg, expect[3]))

near = 1 << 20
if inside:
    text = "inside %s at offset 0x%x" % (words(inside[0]), va - inside[0]["base"])
else:
    text = "in a host (non-GPU) mapping of the process" if case == "host" else "in no allocation"
    if below and va - below["base"] - below["size"] <= near:
        text += "; 0x%x bytes past the end of %s" % (va - below["base"] - below["size"], words(below))
    if above and above["base"] - va <= near:
        text += "; 0x%x bytes before %s" % (above["base"] - va, words(above))
if arg:
    text += "; argument %s = 0x%x + 0x%x" % (arg[1], arg[0], va - arg[0])
want = {"text": text, "null_page": False,
        "inside": ref(inside[0], "offset", va - inside[0]["base"]) if inside else None,
        # the nearest neighbours below and above, named whatever the distance
        "past_end_of": ref(below, "distance", va - below["base"] - below["size"]) if below else None,
        "before": ref(above, "distance", above["base"] - va) if above else None,
        "argument": arg[1] if arg else None, "argument_offset": va - arg[0] if arg else None}
got = report["fault_relation"]
for k in sorted(set(want) | set(got)):
    if got.get(k, "(missing)") != want.get(k, "(absent)"):
        errors.append("fault_relation.%s: %r, expected %r" % (k, got.get(k, "(missing)"), want.get(k, "(absent)")))

# The text report says the same.
line = "Fault address: 0x%x (page not present): %s" % (va, text)
if line not in open("report.out").read().splitlines():
    errors.append("the text report lacks %r: %r" % (line, [l for l in open("report.out") if "Fault address" in l]))
if line not in report["summary"]:
    errors.append("the JSON summary lacks %r" % line)

print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
exit 0
