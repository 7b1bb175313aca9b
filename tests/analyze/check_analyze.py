#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_analyze.py SCENARIO.json DIR: compare the outputs of `gpucore analyze` that
# an analyze case (tests/analyze/cases/) left in DIR with the scenario, the ground truth
# (tests/scenarios/README.md).
# Prints one line per mismatch and exits 1 if there is any.
import json
import os
import sys

# Stop reasons an s_trap gives (the trap handler saves the PC after it) and the size of s_trap,
# a SOPP instruction on every family (arch/disasm.c).
TRAP_STOPS = ("assert_trap", "trap", "debug_trap", "breakpoint")
S_TRAP_SIZE = 4

scen = json.load(open(sys.argv[1]))
out = sys.argv[2]
errors = []


def load(name):
    path = os.path.join(out, name + ".out")
    return json.load(open(path)) if os.path.exists(path) else None


def check(cond, msg):
    if not cond:
        errors.append(msg)


def num(v):
    return int(v, 0) if isinstance(v, str) else int(v)


def mix(h):
    h &= 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def fill(seed, kind, wave, reg, lane):
    h = mix(seed ^ 0x9E3779B9)
    h = mix(h ^ kind)
    h = mix(h ^ wave)
    h = mix(h ^ reg)
    return mix(h ^ lane)


def lanes_of(d):
    target = scen["agents"][scen["queues"][d["queue"]]["agent"]]["target"]
    if "wave32" in d:
        return 32 if d["wave32"] else 64
    return 64 if target.startswith("gfx9") else 32


# Expected waves, entry by entry, with their uids.
entries = []
uid = 0
for e in scen.get("waves", []):
    d = scen["dispatches"][e["dispatch"]]
    lanes = lanes_of(d)
    wg_items = 1
    for x in d["workgroup"]:
        wg_items *= x
    wpg = e.get("waves_per_workgroup", (wg_items + lanes - 1) // lanes)
    n = e.get("workgroup_count", 1) * wpg
    entries.append(dict(e=e, d=d, first_uid=uid, wpg=wpg, n=n))
    uid += n
total = uid
faulting = [x for x in entries if x["e"].get("state") == "stopped" and x["e"].get("stop", "none") != "none"]

report = load("report-json")
check(report["schema"] == "gpucore.analyze/1", "report schema is %r" % report["schema"])
check(report["waves"] == total, "report counts %d waves, the scenario has %d" % (report["waves"], total))
check(report["faulting_waves"] == sum(x["n"] for x in faulting),
      "report counts %d faulting waves, expected %d" % (report["faulting_waves"], sum(x["n"] for x in faulting)))

if faulting:
    x = faulting[0]
    f = report["faults"][0]
    kernel = x["d"]["kernel"]
    off = num(x["e"].get("pc", {}).get("kernel_offset", 0))
    # A wave stopped by an s_trap (assert_trap, trap, debug_trap, breakpoint) saved the PC of
    # the instruction after it: the report names the s_trap, 4 bytes (SOPP) before, and keeps
    # the saved PC as "pc" (issue 23).
    trapped = x["e"].get("stop") in TRAP_STOPS
    at = off - S_TRAP_SIZE if trapped else off
    sym = kernel + ("+0x%x" % at if at else "")
    check(f["count"] == x["n"], "first fault group has %d waves, expected %d" % (f["count"], x["n"]))
    check(f["kernel"] == kernel, "first fault group runs %r, expected %r" % (f["kernel"], kernel))
    check(f["stop_reasons"] == [x["e"]["stop"]],
          "first fault group stopped by %r, expected [%r]" % (f["stop_reasons"], x["e"]["stop"]))
    check(f["symbol"] == sym, "first fault group is at %r, expected %r" % (f["symbol"], sym))
    check(f["faulting"] is True, "first fault group is not marked faulting")
    check(int(f["pc"], 16) - int(f["instruction_pc"], 16) == (S_TRAP_SIZE if trapped else 0),
          "first fault group: pc %s, instruction_pc %s" % (f["pc"], f["instruction_pc"]))
    if trapped:
        check((f["instruction"] or "").startswith("s_trap "),
              "first fault group's instruction is %r, expected the s_trap" % f["instruction"])
    check(f["instruction"] or "not on an instruction boundary" in (f["instruction_error"] or ""),
          "first fault group has no instruction: %r" % f["instruction_error"])
    check(report["summary"][0].startswith("%d wave%s of %s (dispatch %d, queue %d, %s) stopped by "
                                          % (x["n"], "" if x["n"] == 1 else "s", kernel, x["e"]["dispatch"],
                                             x["d"]["queue"],
                                             scen["agents"][scen["queues"][x["d"]["queue"]]["agent"]]["target"])),
          "first summary line: %r" % report["summary"][0])
    check(" at %s: " % sym in report["summary"][0], "first summary line does not name %s" % sym)
    # In its queue, the faulting group comes first.
    for a in report["agents"]:
        for q in a["queues"]:
            if q["index"] == x["d"]["queue"]:
                check(q["groups"][0]["faulting"], "queue %d lists a non-faulting group first" % q["index"])
else:
    check(report["faults"] == [], "faults listed for a scenario without any")
    check(report["summary"][0].startswith("No wave stopped on an error"), "summary: %r" % report["summary"][0])

# Exceptions raised as soon as debugging is enabled are in the core, on their queue.
for ex in scen.get("exceptions", []):
    if ex.get("at_ms", 0) == 0 and "queue" in ex:
        names = {"memory_violation": "QUEUE_WAVE_MEMORY_VIOLATION", "illegal_instruction":
                 "QUEUE_WAVE_ILLEGAL_INSTRUCTION", "assert_trap": "QUEUE_WAVE_TRAP",
                 "queue_error": "QUEUE_WAVE_ABORT"}
        want = names.get(ex["what"])
        got = [e for e in report["exceptions"] if e["queue"] == ex["queue"]]
        check(want is None or (got and want in got[0]["exceptions"]),
              "queue %d should have raised %s: %r" % (ex["queue"], want, report["exceptions"]))

waves = load("waves-json")
check(waves["count"] == total, "waves --json lists %d waves, expected %d" % (waves["count"], total))
check(sorted(w["index"] for w in waves["waves"]) == list(range(total)), "waves --json indices are not 0..n-1")
check(sum(1 for w in waves["waves"] if w["faulting"]) == sum(x["n"] for x in faulting),
      "waves --json marks %d faulting" % sum(1 for w in waves["waves"] if w["faulting"]))

regs = load("regs-json")
if faulting and regs:
    x = faulting[0]
    w = regs["wave"]
    first_wg = x["e"].get("workgroup", [0])[0]
    wuid = x["first_uid"] + (w["workgroup"][0] - first_wg) * x["wpg"] + w["wave_in_group"]
    r = x["e"].get("registers", {})
    seed = r.get("fill", 0)
    byname = {g["name"]: g for g in regs["registers"]}

    def sgpr(i):
        if str(i) in r.get("sgpr", {}):
            return num(r["sgpr"][str(i)])
        return 0 if seed == "zero" else fill(seed, 1, wuid, i, 0)

    def vgpr(i, lane):
        v = r.get("vgpr", {}).get(str(i))
        if isinstance(v, list) and lane < len(v):
            return num(v[lane])
        if v is not None and not isinstance(v, list):
            return num(v)
        return 0 if seed == "zero" else fill(seed, 2, wuid, i, lane)

    for i in list(range(0, 8)) + [int(k) for k in r.get("sgpr", {})]:
        name = "s%d" % i
        check(name in byname and int(byname[name]["value"], 16) == sgpr(i),
              "wave %d %s = %s, expected 0x%x" % (w["index"], name, byname.get(name, {}).get("value"), sgpr(i)))
    for i in [0, 1] + [int(k) for k in r.get("vgpr", {})]:
        name = "v%d" % i
        lanes = byname.get(name, {}).get("lanes", [])
        check(len(lanes) == w["lanes"], "wave %d %s has %d lanes" % (w["index"], name, len(lanes)))
        for lane in range(min(len(lanes), 8)):
            check(int(lanes[lane], 16) == vgpr(i, lane),
                  "wave %d %s[%d] = %s, expected 0x%x" % (w["index"], name, lane, lanes[lane], vgpr(i, lane)))
    check(int(byname["pc"]["value"], 16) == int(w["pc"], 16), "pc register differs from the wave's pc")

    lds = load("lds-json")
    if lds is not None:
        pattern = x["e"].get("lds", "random" if x["d"].get("group_segment_size", 0) else "zero")
        lseed = num(x["e"].get("lds_seed", 0))
        data = bytes.fromhex(lds["data"])
        check(len(data) == 64, "mem --space local read %d bytes, expected 64" % len(data))
        leader = wuid - w["wave_in_group"]
        for k in range(len(data) // 4):
            got = int.from_bytes(data[4 * k:4 * k + 4], "little")
            want = k if pattern == "sequence" else fill(lseed, 4, leader, k, 0) if pattern == "random" else 0
            check(got == want, "LDS word %d = 0x%x, expected 0x%x (%s)" % (k, got, want, pattern))

    dis = load("disasm-json")
    if dis is not None:
        cur = [i for i in dis["instructions"] if i["current"]]
        check(len(cur) == 1, "disasm marks %d current instructions" % len(cur))
        check(len(dis["instructions"]) > 1, "disasm shows only %d instructions" % len(dis["instructions"]))
        if cur:
            ipc = int(w["instruction_pc"], 16)
            check(int(cur[0]["address"], 16) <= ipc < int(cur[0]["address"], 16) + cur[0]["size"],
                  "the current instruction does not hold the wave's instruction_pc")

for e in errors:
    print("MISMATCH:", e)
sys.exit(1 if errors else 0)
