#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_stop_causes.py SCENARIO.json WAVES.json REPORT.json REPORT.txt: compare what
# `gpucore analyze` says of every wave of a stop-cause scenario (tests/scenarios/stop-causes.json
# and the variants stop_causes_e2e.sh makes of it) with the stop reasons AMD's library decodes
# from the same saved state. The meaning of each cause is spelled out here, independently of
# the C tables: tests/scenarios/README.md "Stop causes". Prints one line per mismatch; exit 1 if
# there is any.
import json
import sys

scen = json.load(open(sys.argv[1]))
waves = json.load(open(sys.argv[2]))
report = json.load(open(sys.argv[3]))
text = open(sys.argv[4]).read()
errors = []

# cause -> amd-dbgapi stop reason (lower case), None: no reason of its own
REASON = {
    "none": None, "debugger": None, "memory_violation": "memory_violation",
    "xnack_error": "memory_violation", "address_error": "address_error",
    "illegal_instruction": "illegal_instruction", "breakpoint": "breakpoint",
    "assert_trap": "assert_trap", "debug_trap": "debug_trap", "trap": "trap",
    "watchpoint_0": "watchpoint", "watchpoint_1": "watchpoint", "watchpoint_2": "watchpoint",
    "watchpoint_3": "watchpoint", "single_step": "single_step",
    "fp_invalid_operation": "fp_invalid_operation", "fp_input_denormal": "fp_input_denormal",
    "fp_divide_by_0": "fp_divide_by_0", "fp_overflow": "fp_overflow",
    "fp_underflow": "fp_underflow", "fp_inexact": "fp_inexact",
    "int_divide_by_0": "int_divide_by_0", "trap_after_instruction": "single_step",
    # AMD's library has no stop reason for a host trap, a halt, a fatal halt or an ECC error
    "host_trap": None, "halt": None, "fatal_halt": None, "ecc_error": None,
}
FAULTS = {"memory_violation", "address_error", "illegal_instruction", "assert_trap", "trap",
          "int_divide_by_0", "fp_divide_by_0", "fp_invalid_operation", "fp_overflow",
          "fp_underflow", "fp_inexact", "fp_input_denormal"}


def expected(target, e):
    """(stopped, set of reasons) AMD's library reports for waves[] entry e on target."""
    if e.get("state", "running") != "stopped":
        return False, set()
    r_version = scen.get("r_version", 10)
    spi = scen.get("ttmp_setup", True)
    # Without SPI TTMP setup the library keeps ttmp6 only on the trap handler's skip-export
    # marker, which it sets from debug ABI 10; gfx12 has no such rule and loses ttmp6 outright.
    if not spi and (r_version < 10 or target.startswith("gfx12")):
        return False, set()
    causes = e.get("stop", "none")
    causes = causes if isinstance(causes, list) else [causes]
    step_bit = target.startswith(("gfx94", "gfx11", "gfx12"))
    out = set()
    for c in causes:
        r = REASON[c]
        if c == "single_step" and not step_bit:
            r = None  # gfx9 and gfx10 leave no trace of a single step in the saved state
        if r:
            out.add(r)
    return True, out


def check(cond, msg):
    if not cond:
        errors.append(msg)


by_queue = {}
for w in sorted(waves["waves"], key=lambda w: w["index"]):
    by_queue.setdefault(w["queue"], []).append(w)
seen = set()
faulting = 0
for qi, q in enumerate(scen["queues"]):
    target = scen["agents"][q["agent"]]["target"]
    entries = [e for e in scen["waves"] if scen["dispatches"][e["dispatch"]]["queue"] == qi]
    got = by_queue.get(qi, [])
    check(len(got) == len(entries), "queue %d: %d waves, expected %d" % (qi, len(got), len(entries)))
    for e, w in zip(entries, got):
        stopped, reasons = expected(target, e)
        what = "%s wave %d (%s %s)" % (target, w["index"], e.get("state", "running"), e.get("stop", "-"))
        check(w["stopped"] == stopped, "%s: stopped is %r, expected %r" % (what, w["stopped"], stopped))
        check(set(w["stop_reasons"]) == reasons,
              "%s: stop reasons %r, expected %r" % (what, w["stop_reasons"], sorted(reasons)))
        check(w["faulting"] == bool(reasons & FAULTS), "%s: faulting is %r" % (what, w["faulting"]))
        faulting += bool(reasons & FAULTS)
        seen |= reasons
check(report["faulting_waves"] == faulting,
      "the report counts %d faulting waves, expected %d" % (report["faulting_waves"], faulting))
# Every reason the waves have is named, in amd-dbgapi's lower-case spelling, in the text report.
for r in sorted(seen):
    check(r in text, "the text report never names %s" % r)
if scen.get("ttmp_setup", True):
    check(len(seen) >= 15, "only %d distinct stop reasons seen: %r" % (len(seen), sorted(seen)))

for e in errors:
    print("MISMATCH:", e)
sys.exit(1 if errors else 0)
