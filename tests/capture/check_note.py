#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The AMDGPU note of a core against what the simulated driver reported.

    check_note.py INFO_JSON SCENARIO_JSON DESCRIBE_FILE

INFO_JSON is `gpucore info --json CORE`; SCENARIO_JSON the scenario the gpucore-inferior ran
(the ground truth the driver's snapshots come from, tests/scenarios/README.md);
DESCRIBE_FILE what the inferior wrote with --describe (the addresses it laid out). Every
device and queue entry of the note must carry the snapshot's values, exception status
included: the scenario's exceptions raised at ENABLE (at_ms 0) are set in their queue's
exception_status and, with an address, in the device's. Prints one line per mismatch, exits 1.
"""
import json
import sys

# KFD exception codes of the scenario's exception kinds (kfd/sim/inferior.c).
CODES = {
    "queue_error": 1, "memory_violation": 5, "illegal_instruction": 4, "assert_trap": 2,
    "queue_new": 31, "device_error": 33,
}
EC_DEVICE_MEMORY_VIOLATION = 33
DEFAULT_CAPABILITY = 0x20008280


def num(v, default=None):
    if v is None:
        return default
    return int(v, 0) if isinstance(v, str) else int(v)


def main():
    info = json.load(open(sys.argv[1]))
    scen = json.load(open(sys.argv[2]))
    desc = {}
    for line in open(sys.argv[3]):
        f = line.split()
        if f and f[0] == "queue":
            desc[int(f[1])] = {f[i]: f[i + 1] for i in range(2, len(f) - 1, 2)}
        elif f and f[0] == "r_debug":
            desc["r_debug"] = int(f[1], 0)
    note = info["amdgpu"]
    bad = []

    def want(what, got, expected):
        if got != expected:
            bad.append(f"{what}: {got!r}, expected {expected!r}")

    want("runtime.r_debug", num(note["runtime"]["r_debug"]), desc["r_debug"])
    want("runtime.runtime_state", note["runtime"]["runtime_state"], 1)
    want("runtime.ttmp_setup", note["runtime"]["ttmp_setup"], 1 if scen.get("ttmp_setup", True) else 0)
    agents = scen["agents"]
    want("agent count", len(note["agents"]), len(agents))
    dev_exc = {}
    queue_exc = {}
    for e in scen.get("exceptions", []):
        if num(e.get("at_ms"), 0) != 0:
            continue  # raised later: not necessarily before the snapshot
        bit = 1 << (CODES[e["what"]] - 1)
        if "queue" in e:
            q = scen["queues"][e["queue"]]
            queue_exc[q["queue_id"]] = queue_exc.get(q["queue_id"], 0) | bit
            if "address" in e:
                gpu = num(agents[q["agent"]]["gpu_id"])
                dev_exc[gpu] = dev_exc.get(gpu, 0) | 1 << (EC_DEVICE_MEMORY_VIOLATION - 1)
    for i, (a, n) in enumerate(zip(agents, note["agents"])):
        gpu = num(a["gpu_id"])
        want(f"agents[{i}].gpu_id", n["gpu_id"], gpu)
        want(f"agents[{i}].target", n["target"], a["target"])
        want(f"agents[{i}].simd_count", n["simd_count"], num(a["simd_count"]))
        want(f"agents[{i}].max_waves_per_simd", n["max_waves_per_simd"],
             num(a.get("max_waves_per_simd"), 8))
        want(f"agents[{i}].array_count", n["array_count"], num(a.get("array_count"), 8))
        want(f"agents[{i}].simd_arrays_per_engine", n["simd_arrays_per_engine"],
             num(a.get("simd_arrays_per_engine"), 1))
        want(f"agents[{i}].num_xcc", n["num_xcc"], num(a.get("num_xcc"), 1))
        want(f"agents[{i}].capability", num(n["capability"]),
             num(a.get("capability"), DEFAULT_CAPABILITY))
        want(f"agents[{i}].debug_prop", num(n["debug_prop"]), num(a.get("debug_prop"), 0))
        want(f"agents[{i}].vendor_id", num(n["vendor_id"]), num(a.get("vendor_id"), 0x1002))
        want(f"agents[{i}].exception_status", num(n["exception_status"]) & dev_exc.get(gpu, 0),
             dev_exc.get(gpu, 0))
    queues = scen.get("queues", [])
    want("queue count", len(note["queues"]), len(queues))
    for i, (q, n) in enumerate(zip(queues, note["queues"])):
        d = desc[i]
        want(f"queues[{i}].queue_id", n["queue_id"], q["queue_id"])
        want(f"queues[{i}].gpu_id", n["gpu_id"], num(agents[q["agent"]]["gpu_id"]))
        want(f"queues[{i}].queue_type", n["queue_type"], 2)
        want(f"queues[{i}].ring_base_address", num(n["ring_base_address"]), int(d["ring"], 0))
        want(f"queues[{i}].ring_size", n["ring_size"], num(q.get("ring_packets"), 64) * 64)
        want(f"queues[{i}].read_pointer_address", num(n["read_pointer_address"]),
             int(d["amd_queue"], 0) + 128)
        want(f"queues[{i}].write_pointer_address", num(n["write_pointer_address"]),
             int(d["amd_queue"], 0) + 56)
        want(f"queues[{i}].ctx_save_restore_address", num(n["ctx_save_restore_address"]),
             int(d["cwsr"], 0))
        want(f"queues[{i}].ctx_save_restore_area_size", n["ctx_save_restore_area_size"],
             int(d["cwsr_size"]))
        exc = queue_exc.get(q["queue_id"], 0)
        want(f"queues[{i}].exception_status", num(n["exception_status"]) & exc, exc)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
