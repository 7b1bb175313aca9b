#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a node-scale scenario: N MI300X GPUs (gfx942, 8 XCCs, 304 CUs) at full occupancy.

    node_scale.py GPUS fault|hang [OUT.json]

Every SIMD of every CU holds its maximum of 8 waves: 1216 SIMDs x 8 = 9,728 waves per GPU
(77,824 on 8 GPUs). Each GPU has three compute queues running the spin kernel of hang.cl; a
queue's waves lie on every XCC, a third of each XCC's wave slots per queue. `fault`: one wave of
GPU 0's first queue is stopped by a memory violation and the driver reports it; `hang`: every
wave is spinning and nothing is reported, the process is captured on demand.
node-8x-mi300x.json and node-8x-mi300x-hang.json are this script's output for 8 GPUs.
"""
import json
import sys

XCCS = 8
SIMDS = 1216           # 304 CUs x 4 SIMDs, all XCCs
WAVES_PER_SIMD = 8
QUEUES_PER_GPU = 3
WAVES_PER_GROUP = 4    # 256 work-items, wave64


def scenario(gpus, variant):
    groups_per_xcc = SIMDS // XCCS * WAVES_PER_SIMD // WAVES_PER_GROUP   # 304
    agents, queues, dispatches, waves = [], [], [], []
    for g in range(gpus):
        agents.append({"target": "gfx942", "gpu_id": "0x%x" % (0x7a10 + 0x111 * g),
                       "simd_count": SIMDS, "max_waves_per_simd": WAVES_PER_SIMD,
                       "num_xcc": XCCS, "device_id": "0x74a1", "debug_prop": "0x1d6",
                       "location_id": "0x%x" % (0x100 * (g + 1))})
        # The XCC's workgroup slots split between the queues as evenly as they go.
        split = [groups_per_xcc // QUEUES_PER_GPU + (1 if q < groups_per_xcc % QUEUES_PER_GPU
                                                      else 0) for q in range(QUEUES_PER_GPU)]
        for q in range(QUEUES_PER_GPU):
            qi = len(queues)
            queues.append({"agent": g, "queue_id": qi})
            groups = split[q] * XCCS
            dispatches.append({"queue": qi, "code_object": "hang", "kernel": "spin",
                               "grid": [groups * 256], "workgroup": [256], "packet_id": qi,
                               "kernargs": [{"type": "buffer", "value": "flag"},
                                            {"type": "buffer", "value": "out"}]})
            for x in range(XCCS):
                first = x * split[q]
                count = split[q]
                faulting = variant == "fault" and g == 0 and q == 0 and x == 0
                if faulting:
                    count -= 1
                if count:
                    waves.append({"dispatch": qi, "xcc": x, "workgroup": [first],
                                  "workgroup_count": count,
                                  "pc": {"kernel_offset": "0x1c"},
                                  "registers": {"fill": 1000 + qi * XCCS + x}})
                if faulting:
                    waves.append({"dispatch": qi, "xcc": x, "workgroup": [first + count],
                                  "state": "stopped", "stop": "memory_violation",
                                  "pc": {"kernel_offset": "0x1c"},
                                  "registers": {"fill": 999}})
    total = gpus * SIMDS * WAVES_PER_SIMD
    s = {"name": "node-%dx-mi300x%s" % (gpus, "-hang" if variant == "hang" else ""),
         "description": "%d MI300X (gfx942, 8 XCCs, 304 CUs) at full occupancy: %d waves, "
                        "%d queues per GPU, every wave in the spin loop of hang.cl; %s" %
                        (gpus, total, QUEUES_PER_GPU,
                         "one workgroup of GPU 0 stopped by a memory violation"
                         if variant == "fault" else "a hang, no exception. Captured on demand."),
         "agents": agents, "queues": queues,
         "code_objects": [{"name": "hang", "source": "hang.cl", "target": "gfx942"}],
         "buffers": [{"name": "flag", "size": 4096}, {"name": "out", "size": 1048576}],
         "dispatches": dispatches, "waves": waves,
         "host_threads": {"count": 2, "mode": "blocked"}}
    if variant == "fault":
        s["on_queue_error"] = "abort"
        s["exceptions"] = [{"what": "memory_violation", "queue": 0, "at_ms": 10}]
    return s


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("fault", "hang") \
            or not sys.argv[1].isdigit() or not 1 <= int(sys.argv[1]) <= 16:
        sys.exit("usage: node_scale.py GPUS(1..16) fault|hang [OUT.json]")
    text = json.dumps(scenario(int(sys.argv[1]), sys.argv[2]), indent=1) + "\n"
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
