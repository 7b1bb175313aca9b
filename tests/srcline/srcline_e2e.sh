#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Source lines against LLVM (tests/srcline.cmake): capture a scenario running in
# gpucore-inferior, then, for the PC of every group of `gpucore analyze --json` and of every
# wave of `analyze waves --json`, compare gpucore's "source" and "inlined" with TOOL on the same
# code object -- `llvm-symbolizer --inlining`, or `llvm-dwarfdump --lookup=PC -p` (the
# subprogram and inlined_subroutine DIEs around the PC: their names, innermost first, the line
# row's file:line:column for the innermost frame and each inlined DIE's DW_AT_call_file/line/
# column for its caller's frame) -- and so for every instruction of
# `analyze disasm --json` around wave 0 (the scenario's compiled object, checked
# to have the size the core's copy has). vadd-fault's faulting store must be three frames deep
# (vadd -> finish -> store_sum). The text of `analyze waves` shows every wave's chain, running
# or stopped, as its JSON has it. SCENARIO "no-dwarf" runs vadd-fault with its code object
# compiled without -g: the report says "no line information in code object 0 (URI)" once, and
# every PC's source and chain are null.
#
#   srcline_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS TOOL SCENARIO
#
# TOOL is llvm-symbolizer or llvm-dwarfdump (by its name).
# Exit codes: 0 pass, 1 fail (one "FAIL [scenario]: why" line), 77 skip (no ptrace rights, or
# TOOL is not an executable: CMake did not find llvm-dwarfdump).

set -euo pipefail

[ $# -eq 7 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS TOOL SCENARIO" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 tool=$6 scenario=$7
here=$(cd "$(dirname "$0")" && pwd)
test_name=$scenario

. "$here/../lib/e2e.sh"
e2e_enter "$work"
[ -x "$tool" ] || skip "no $(basename "$tool") to compare with (${tool:-not found})"
e2e_need_ptrace

if [ "$scenario" = no-dwarf ]; then
  mkdir -p objects
  cp "$objects/vadd.plain.gfx90a.co" objects/vadd.gfx90a.co
  objects=$PWD/objects
  e2e_continue_copy "$scenarios/vadd-fault.json" scenario.json
  e2e_start_inferior scenario.json
  gc cap capture --kfd sim "$ipid" -o core
  if [ "$rc" -eq 77 ] && grep -qi "ptrace" cap.err; then skip "$(cat cap.err)"; fi
  expect_rc 0 cap
  e2e_stop_inferior
  gc report-json analyze --json core; expect_rc 0 report-json
  gc report analyze core; expect_rc 0 report
  gc waves analyze waves --json core; expect_rc 0 waves
  python3 - <<'PY' || fail "the report of a code object without DWARF (above)"
import json, sys
r = json.load(open("report-json.out"))
w = json.load(open("waves.out"))
co = r["code_objects"][0]
want = "no line information in code object 0 (%s)" % co["uri"]
errors = []
if co["line_info"] is not False or co["line_info_text"] != want:
    errors.append("code object: %r" % co)
text = open("report.out").read()
if text.count("no line information") != 1 or text.count(want) != 1:
    errors.append("the text report says %d times 'no line information'" % text.count("no line information"))
xs = [g for a in r["agents"] for q in a["queues"] for g in q["groups"]] + w["waves"]
bad = [x["pc"] for x in xs if x["source"] is not None or x["inlined"] is not None]
if not xs or bad:
    errors.append("PCs with a source or chain: %r" % bad[:5])
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
  exit 0
fi

e2e_capture_scenario "$scenarios/$scenario.json" out/core

gc report analyze --json out/core; expect_rc 0 report
gc waves analyze waves --json out/core; expect_rc 0 waves
gc waves-text analyze waves out/core; expect_rc 0 waves-text
# The disassembly around the first wave, each instruction with its source (objdump -S -l).
gc disasm analyze disasm --json --wave 0 --before 64 --after 64 out/core
# A target the installed LLVM cannot disassemble (gfx12 before LLVM 19): no instructions to
# compare, the rest still is.
if [ "$rc" -eq 65 ] && grep -q "no disassembler for" disasm.err; then
  echo '{"instructions": []}' >disasm.out
else
  expect_rc 0 disasm
fi

python3 - "$scenarios/$scenario.json" "$objects" "$tool" "$scenario" <<'PY' || fail "gpucore and $(basename "$tool") disagree (above)"
import json, os, re, subprocess, sys

scen_path, objects, tool, name = sys.argv[1:]
tool_name = "llvm-dwarfdump" if "dwarfdump" in os.path.basename(tool) else "llvm-symbolizer"
scen = json.load(open(scen_path))
report = json.load(open("report.out"))
waves = json.load(open("waves.out"))
errors = []

# The scenario's code objects, each paired with the report's entry of its size (the report
# lists them in load order, which need not be the scenario's when there are several).
cos = []
left = list(report["code_objects"])
for want in scen["code_objects"]:
    if "object" in want:
        path = os.path.join(objects, want["object"])
    else:
        path = os.path.join(objects, "%s.%s.co" % (os.path.splitext(want["source"])[0],
                                                   want["target"]))
    same = [g for g in left if g["size"] == os.path.getsize(path)]
    if len(same) != 1:
        sys.exit("%s (%d bytes): %d code objects of the core have its size"
                 % (path, os.path.getsize(path), len(same)))
    got = same[0]
    left.remove(got)
    if got["line_info"] is not True:
        errors.append("code object %s: line_info is %r" % (got["uri"], got["line_info"]))
    cos.append((int(got["load_address"], 16), path))
if len(cos) != len(scen["code_objects"]):
    sys.exit("the report lists %d code objects, the scenario %d" % (len(cos), len(scen["code_objects"])))

# Every PC gpucore explains: each group's and each wave's, with gpucore's answer.
items = []
for a in report["agents"]:
    for q in a["queues"]:
        for g in q["groups"]:
            items.append(("group at %s" % g["pc"], g))
for w in waves["waves"]:
    items.append(("wave %d at %s" % (w["index"], w["pc"]), w))
for x in json.load(open("disasm.out"))["instructions"]:
    items.append(("disasm instruction at %s" % x["address"], x))

def symbolize(path, offsets):
    out = subprocess.run([tool, "--inlining", "--obj=" + path],
                         input="".join("0x%x\n" % o for o in offsets),
                         capture_output=True, text=True, check=True).stdout
    blocks = [b.splitlines() for b in out.strip("\n").split("\n\n")]
    if len(blocks) != len(offsets):
        sys.exit("llvm-symbolizer answered %d of %d addresses" % (len(blocks), len(offsets)))
    res = {}
    for off, b in zip(offsets, blocks):
        frames = []
        for fn, loc in zip(b[0::2], b[1::2]):
            file, line, col = loc.rsplit(":", 2)
            frames.append({"function": fn, "file": file, "line": int(line) or None,
                           "column": int(col) or None})
        res[off] = None if not frames or frames[0]["function"] == "??" else frames
    return res

def dwarfdump_lines(path):
    """The line table's file names resolved as DWARF 5 says: name, else directory/name, with a
    relative directory under include_directories[0] (the compilation directory)."""
    out = subprocess.run([tool, "--debug-line", path], capture_output=True, text=True, check=True).stdout
    dirs, files, cur = {}, {}, None
    for line in out.splitlines():
        m = re.match(r'include_directories\[\s*(\d+)\] = "(.*)"$', line)
        if m:
            dirs[int(m.group(1))] = m.group(2)
        m = re.match(r'file_names\[\s*(\d+)\]:$', line)
        if m:
            cur = files.setdefault(int(m.group(1)), {})
        m = re.match(r'\s+(name|dir_index): (?:"(.*)"|(\d+))$', line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2) if m.group(1) == "name" else int(m.group(3))
    paths = {}
    for f in files.values():
        d = dirs.get(f.get("dir_index", 0), "")
        if not d.startswith("/") and 0 in dirs:
            d = dirs[0] + "/" + d
        full = f["name"] if f["name"].startswith("/") else d + "/" + f["name"]
        paths.setdefault(f["name"], set()).add(full)
    return paths

def dwarfdump(path, offsets):
    files = dwarfdump_lines(path)
    def resolve(name):
        if len(files.get(name, ())) != 1:
            sys.exit("%s: the line table's file '%s' resolves to %r" % (path, name, files.get(name)))
        return next(iter(files[name]))
    res = {}
    for off in offsets:
        out = subprocess.run([tool, "--lookup=0x%x" % off, "-p", path],
                             capture_output=True, text=True).stdout
        dies, seen = [], set()  # subprogram and inlined_subroutine DIEs, outermost first
        for line in out.splitlines():
            m = re.match(r"(0x[0-9a-f]+):\s+DW_TAG_(\w+)", line)
            if m:
                die = {"tag": m.group(2)}
                if m.group(1) not in seen and m.group(2) in ("subprogram", "inlined_subroutine"):
                    dies.append(die)
                seen.add(m.group(1))
                continue
            m = re.match(r'\s+DW_AT_(name|abstract_origin|call_file|call_line|call_column)\s+\((.*)\)$', line)
            if m and dies and die is dies[-1]:
                v = m.group(2)
                if m.group(1) == "abstract_origin":
                    die["name"] = re.search(r'"(.*)"', v).group(1)
                elif m.group(1) in ("name", "call_file"):
                    die[m.group(1)] = v.strip('"')
                else:
                    die[m.group(1)] = int(v, 0)
        row = re.search(r"^Line info: file '(.*)', line (\d+), column (\d+)", out, re.M)
        if not dies:
            res[off] = None
            continue
        inner = dies[::-1]
        frames = [{"function": inner[0].get("name"),
                   "file": resolve(row.group(1)) if row else None,
                   "line": int(row.group(2)) or None if row else None,
                   "column": int(row.group(3)) or None if row else None}]
        for callee, caller in zip(inner, inner[1:]):
            frames.append({"function": caller.get("name"), "file": callee.get("call_file"),
                           "line": callee.get("call_line") or None,
                           "column": callee.get("call_column") or None})
        res[off] = frames
    return res

# The text of `analyze waves`: every wave, running or stopped, is followed by its chain as the
# JSON has it ("at F (file:line:col)", then "inlined into G (...)"), and nothing else.
# A column without a line (DWARF line 0, which LLVM 19 gives a column) is not shown.
def loc(f):
    s = f["file"] or "?"
    if f["line"] is not None:
        s += ":%d" % f["line"]
        if f["column"] is not None:
            s += ":%d" % f["column"]
    return s
text_chains, cur = {}, None
for line in open("waves-text.out").read().splitlines()[2:]:
    if line.startswith("         ") and cur is not None:
        text_chains[cur].append(line.strip())
    else:
        cur = int(line.split()[0])
        text_chains[cur] = []
if sorted(text_chains) != sorted(w["index"] for w in waves["waves"]):
    errors.append("analyze waves lists other waves than --json")
no_chain = 0
for w in waves["waves"]:
    want = ["%s %s (%s)" % ("inlined into" if i else "at", f["function"], loc(f))
            for i, f in enumerate(w["inlined"] or [])]
    no_chain += not want
    if text_chains.get(w["index"]) != want:
        errors.append("analyze waves, wave %d (%s): %r, --json %r" % (
            w["index"], "stopped" if w["stopped"] else "running", text_chains.get(w["index"]), want))
if no_chain:
    errors.append("%d waves without an inline chain" % no_chain)

checked = 0
loads = sorted(load for load, _ in cos)
for load, path in cos:
    # the line of the instruction a group or wave names: a trapped wave's s_trap, before its
    # saved "pc" (instruction_pc); a disassembled instruction's address
    pc = lambda x: int(x.get("instruction_pc") or x.get("pc") or x["address"], 16)
    # A PC belongs to the code object loaded highest at or below it.
    end = min([l for l in loads if l > load], default=1 << 64)
    mine = [(what, x, pc(x) - load) for what, x in items if load <= pc(x) < end]
    offsets = sorted({off for _, _, off in mine})
    truth = dwarfdump(path, offsets) if tool_name == "llvm-dwarfdump" else symbolize(path, offsets)
    for what, x, off in mine:
        want = truth[off]
        src = None
        if want and want[0]["line"]:
            src = {k: want[0][k] for k in ("file", "line", "column")}
        if x["inlined"] != want:
            errors.append("%s (offset 0x%x): inlined %r, %s %r" % (what, off, x["inlined"], tool_name, want))
        elif x["source"] != src:
            errors.append("%s (offset 0x%x): source %r, %s %r" % (what, off, x["source"], tool_name, src))
        checked += 1
if not checked:
    errors.append("no PC compared")

# Ground truth: vadd-fault's faulting store is inside store_sum, inlined into finish, into vadd.
if name == "vadd-fault":
    chain = [[f["function"] for f in (g["inlined"] or [])] for g in report["faults"]]
    if chain != [["store_sum", "finish", "vadd"]]:
        errors.append("vadd-fault's faulting group's chain is %r" % chain)

print("%s: %d PCs compared with %s" % (name, checked, tool_name))
for e in errors[:20]:
    print(e)
sys.exit(1 if errors else 0)
PY
exit 0
