# SPDX-License-Identifier: MIT
"""`gpucore dbgapi-dump --json` records (stdin) as the view dbgapi_attach -r prints of a live
process (tests/kfdemu/programs/dbgapi_attach.c): "view KEY | field = value", numbers in
hexadecimal, enumerations and flag sets by value (the names dbgapi-dump prints are looked up in
amd-dbgapi.h, the header given as the argument), vector registers as their elements.

    python3 dbgapi_view.py AMD-DBGAPI.H < dump.jsonl
"""
import json
import re
import sys

# (kind, field) -> the enumeration's prefix in amd-dbgapi.h; a list value is a flag set.
ENUMS = {
    ("agent", "state"): "AMD_DBGAPI_AGENT_STATE_",
    ("queue", "type"): "AMD_DBGAPI_OS_QUEUE_TYPE_",
    ("queue", "state"): "AMD_DBGAPI_QUEUE_STATE_",
    ("queue", "error_reason"): "AMD_DBGAPI_EXCEPTION_",
    ("dispatch", "barrier"): "AMD_DBGAPI_DISPATCH_BARRIER_",
    ("dispatch", "acquire_fence"): "AMD_DBGAPI_DISPATCH_FENCE_SCOPE_",
    ("dispatch", "release_fence"): "AMD_DBGAPI_DISPATCH_FENCE_SCOPE_",
    ("wave", "state"): "AMD_DBGAPI_WAVE_STATE_",
    ("wave", "stop_reason"): "AMD_DBGAPI_WAVE_STOP_REASON_",
}
# The fields the client prints, per kind, in its order (dbgapi_attach.c's tables).
FIELDS = {
    "agent": ["name", "state", "pci_domain", "pci_slot", "pci_vendor_id", "pci_device_id",
              "execution_unit_count", "max_waves_per_execution_unit"],
    "queue": ["type", "state", "error_reason", "address", "size"],
    "dispatch": ["barrier", "acquire_fence", "release_fence", "grid_dimensions",
                 "workgroup_sizes", "grid_sizes", "private_segment_size", "group_segment_size",
                 "kernel_argument_segment_address", "kernel_descriptor_address",
                 "kernel_code_entry_address", "kernel_completion_address"],
    "code_object": ["load_address"],
    "wave": ["state", "stop_reason", "pc", "exec_mask", "lane_count"],
}


def enum_values(header):
    """NAME -> value of every `AMD_DBGAPI_X = expr,` in the header."""
    values = {}
    for m in re.finditer(r"^\s*(AMD_DBGAPI_[A-Z0-9_]+)\s*=\s*([^,\n]+),?\s*$",
                         open(header).read(), re.M):
        expr = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+\b", "", m.group(2).strip())
        try:
            values[m.group(1)] = int(eval(expr, {"__builtins__": {}}, dict(values)))
        except Exception:  # an expression this does not follow: that name stays unknown
            pass
    return values


def number(v):
    if isinstance(v, bool):
        return "0x%x" % int(v)
    if isinstance(v, int):
        return "0x%x" % v
    if isinstance(v, str) and re.fullmatch(r"0x[0-9a-fA-F]+", v):
        return "0x%x" % int(v, 16)
    return None


def render(kind, field, v, enums):
    if isinstance(v, dict) and "error" in v:
        return "error " + str(v["error"])
    prefix = ENUMS.get((kind, field))
    if prefix:
        names = v if isinstance(v, list) else [v]
        total = 0
        for n in names:
            if isinstance(n, int):
                total |= n
            elif prefix + str(n) in enums:
                total |= enums[prefix + str(n)]
            else:
                return "unknown %s" % n
        return "0x%x" % total
    if isinstance(v, list):
        return ",".join(number(x) or str(x) for x in v)
    n = number(v)
    return n if n is not None else str(v)


def main():
    enums = enum_values(sys.argv[1])
    recs = [json.loads(line) for line in sys.stdin if line.strip()]
    by = {}
    for r in recs:
        by.setdefault(r["kind"], []).append(r)
    queues = {r["id"]: r for r in by.get("queue", [])}
    dispatches = {r["id"]: r for r in by.get("dispatch", [])}

    def dispatch_key(did):
        d = dispatches.get(did)
        if d is None:
            return "dispatch ?"
        q = queues.get(d.get("queue"))
        os_id = q.get("os_id") if q else None
        pid = d.get("os_queue_packet_id")
        return "dispatch queue %s packet %s" % (
            os_id if isinstance(os_id, int) else "?0",
            pid if isinstance(pid, int) else "?0")

    out = []
    counts = [("agents", "agent"), ("queues", "queue"), ("dispatches", "dispatch"),
              ("code_objects", "code_object"), ("waves", "wave")]
    for name, kind in counts:
        out.append("view process | %s = %d" % (name, len(by.get(kind, []))))
    for kind in ("agent", "queue", "dispatch", "code_object", "wave"):
        for r in by.get(kind, []):
            if kind in ("agent", "queue"):
                key = "%s %s" % (kind, r.get("os_id"))
            elif kind == "dispatch":
                key = dispatch_key(r["id"])
            elif kind == "code_object":
                key = "code_object %s" % r.get("uri_name")
            else:
                c = r.get("workgroup_coord")
                c = c if isinstance(c, list) and len(c) == 3 else [0, 0, 0]
                n = r.get("wave_number_in_workgroup")
                key = "wave %s group %d,%d,%d wave %d" % (
                    dispatch_key(r.get("dispatch")), c[0], c[1], c[2],
                    n if isinstance(n, int) else 0)
            for f in FIELDS[kind]:
                out.append("view %s | %s = %s" % (key, f, render(kind, f, r.get(f), enums)))
            if kind == "wave":
                regs = r.get("registers")
                if isinstance(regs, dict) and "error" not in regs:
                    for name, v in regs.items():
                        out.append("view %s | reg %s = %s" % (key, name, render(kind, name, v, enums)))
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
