#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_kernargs.py SCENARIO.json REPORT.json REPORT.txt: every dispatch's decoded kernel
# arguments in `gpucore analyze --json` equal what the scenario put in its kernarg segment
# (tests/scenarios/README.md, dispatches[].kernargs: naturally aligned in order), with the
# names of the kernel's source; buffer arguments point into that buffer's allocation, other
# pointers into no scenario buffer; the text report shows the faulting dispatches' arguments
# as "name (space type) = value -> relation", the hidden ones counted on one line
# ("and N hidden arguments filled by the runtime"). One line per mismatch; exit 1 if any.
import json
import re
import struct
import sys

scen = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
text = open(sys.argv[3], encoding="utf-8").read()
errors = []

# The parameters of the scenario kernels (tests/scenarios/kernels/*.cl).
PARAMS = {
    "vadd": [("a", "float*"), ("b", "float*"), ("c", "float*"), ("n", "int")],
    "check": [("in", "int*"), ("out", "int*")],
    "divide": [("num", "int*"), ("den", "int*"), ("out", "int*")],
    "spin": [("flag", "int*"), ("out", "int*")],
}
SIZES = {"u32": 4, "u64": 8, "f32": 4, "buffer": 8}
# Kernels compiled as code object v5 that use the dispatch geometry (trap.cl's check): the
# hidden arguments their metadata lists, and what the runtime puts in each for a dispatch
# (grid and workgroup padded to 3 dimensions): (offset from the explicit arguments' end
# rounded up to 8, size, value).
HIDDEN = {"check": [
    ("hidden_block_count_x", 0, 4, lambda g, w, n: g[0] // w[0]),
    ("hidden_block_count_y", 4, 4, lambda g, w, n: g[1] // w[1]),
    ("hidden_block_count_z", 8, 4, lambda g, w, n: g[2] // w[2]),
    ("hidden_group_size_x", 12, 2, lambda g, w, n: w[0]),
    ("hidden_group_size_y", 14, 2, lambda g, w, n: w[1]),
    ("hidden_group_size_z", 16, 2, lambda g, w, n: w[2]),
    ("hidden_remainder_x", 18, 2, lambda g, w, n: g[0] % w[0]),
    ("hidden_remainder_y", 20, 2, lambda g, w, n: g[1] % w[1]),
    ("hidden_remainder_z", 22, 2, lambda g, w, n: g[2] % w[2]),
    ("hidden_global_offset_x", 40, 8, lambda g, w, n: 0),
    ("hidden_global_offset_y", 48, 8, lambda g, w, n: 0),
    ("hidden_global_offset_z", 56, 8, lambda g, w, n: 0),
    ("hidden_grid_dims", 64, 2, lambda g, w, n: n),
    # check calls printf: the runtime's pointers, the printf buffer the only one it gives
    ("hidden_printf_buffer", 72, 8, "printf buffer d%d"),
    ("hidden_hostcall_buffer", 80, 8, None),
    ("hidden_multigrid_sync_arg", 88, 8, None),
    ("hidden_heap_v1", 96, 8, None),
    ("hidden_default_queue", 104, 8, None),
    # LLVM 19 lists the completion action too (LLVM 16 leaves it out of the metadata).
    ("hidden_completion_action", 112, 8, None),
    ("hidden_queue_ptr", 200, 8, None),
]}
# Hidden arguments the metadata of an older LLVM does not list (the scenario kernels are
# compiled by the LLVM gpucore is built with, 19 or 16).
HIDDEN_NEWER_LLVM = {"hidden_completion_action"}


def check(cond, msg):
    if not cond:
        errors.append(msg)


def num(v):
    return int(v, 0) if isinstance(v, str) else int(v)


def s32(w):
    return w - (1 << 32) if w & 0x80000000 else w


# The messages the scenario's kernel printed (printf_records), decoded: each record's id, its
# argument words, and for trap.cl's check the text its one printf makes of them.
PRINTF_TEXT = {"check": lambda w: "check: in[%d] = %d is negative\\n" % (s32(w[0]), s32(w[1]))}


def check_printf(x, d, where):
    p = x["printf"]
    if not d.get("printf_buffer"):
        check(p is None, "%s: printf %r, the dispatch has no printf buffer" % (where, p))
        return
    recs = d.get("printf_records", [])
    words = sum(1 + len(r.get("words", [])) for r in recs)
    check(p is not None and p["used"] == 4 * words and p["size"] == num(d["printf_buffer"])
          and p["truncated"] is False and p["problem"] is None and len(p["records"]) == len(recs),
          "%s: printf %r, expected %d records in %d bytes" % (where, p, len(recs), 4 * words))
    off = 8
    for k, (r, got) in enumerate(zip(recs, (p or {}).get("records", []))):
        w = [num(v) for v in r.get("words", [])]
        want_text = PRINTF_TEXT[d["kernel"]](w) if d["kernel"] in PRINTF_TEXT else got["text"]
        check(got["offset"] == off and got["id"] == num(r["id"]) and got["text_error"] is None
              and got["args"] == ["0x%08x" % v for v in w] and got["text"] == want_text,
              "%s: printf record %d %r, expected id %s at %d, words %r, text %r"
              % (where, k, got, r["id"], off, w, want_text))
        line = "  %s\n" % want_text[:-2] if want_text.endswith("\\n") else "  %s\n" % want_text
        check(line in text, "%s: the text report lacks %r" % (where, line))
        off += 4 + 4 * len(w)


dispatches = [x for a in report["agents"] for q in a["queues"] for x in q["dispatches"]]
faulting = {(g["queue"], g["dispatch"]) for a in report["agents"] for q in a["queues"]
            for g in q["groups"] if g["faulting"]}
checked = 0
for i, d in enumerate(scen["dispatches"]):
    if "kernargs" not in d:
        continue
    got = [x for x in dispatches if x["packet_id"] == num(d["packet_id"]) and x["kernel"] == d["kernel"]
           and x["grid"][0] == d["grid"][0]]
    if len(got) != 1:
        errors.append("dispatch %d (%s, packet %s): %d report dispatches match" % (i, d["kernel"], d["packet_id"], len(got)))
        continue
    x = got[0]
    where = "dispatch %d (%s)" % (i, d["kernel"])
    check(x["arguments_error"] is None, "%s: arguments_error %r" % (where, x["arguments_error"]))
    args = [a for a in (x["arguments"] or []) if not a["hidden"]]
    params = PARAMS[d["kernel"]]
    check(len(args) == len(d["kernargs"]) == len(params),
          "%s: %d arguments decoded, the scenario has %d" % (where, len(args), len(d["kernargs"])))
    off = 0
    for k, (ka, a, (pname, ptype)) in enumerate(zip(d["kernargs"], args, params)):
        size = SIZES[ka["type"]]
        off = (off + size - 1) // size * size
        w = "%s argument %d" % (where, k)
        check(a["name"] == pname, "%s: name %r, expected %r" % (w, a["name"], pname))
        check(a["type"] == ptype, "%s: type %r, expected %r" % (w, a["type"], ptype))
        check(a["offset"] == off and a["size"] == size,
              "%s: at %d (%d bytes), expected %d (%d)" % (w, a["offset"], a["size"], off, size))
        check(a["value_error"] is None and a["value"] is not None, "%s: no value: %r" % (w, a["value_error"]))
        v = a["value"] or "0"
        if ka["type"] == "buffer":
            boff = num(ka.get("offset", 0))
            al = a["allocation"]
            check(a["address_space"] == "global" and a["value_kind"] == "global_buffer",
                  "%s: %r %r, expected a global buffer" % (w, a["address_space"], a["value_kind"]))
            check(al is not None and al["label"] == "buffer " + ka["value"] and al["offset"] == boff,
                  "%s: allocation %r, expected buffer %s at offset %d" % (w, al, ka["value"], boff))
            if al:
                check(int(v, 16) == int(al["base"], 16) + boff, "%s: value %s, allocation base %s" % (w, v, al["base"]))
                bsize = [num(b["size"]) for b in scen["buffers"] if b["name"] == ka["value"]][0]
                check(al["size"] == bsize and al["kind"] == "vram",
                      "%s: allocation of %d bytes (%s), the buffer has %d" % (w, al["size"], al["kind"], bsize))
        elif ka["type"] == "u64":
            check(int(v, 16) == num(ka["value"]), "%s: value %s, expected 0x%x" % (w, v, num(ka["value"])))
            al = a["allocation"]
            check(al is None or not (al["label"] or "").startswith("buffer "),
                  "%s: 0x%x is in no scenario buffer, the report says %r" % (w, num(ka["value"]), al))
        elif ka["type"] == "u32":
            check(int(v) & 0xFFFFFFFF == num(ka["value"]), "%s: value %s, expected %d" % (w, v, num(ka["value"])))
        elif ka["type"] == "f32":
            want = struct.unpack("<f", struct.pack("<f", float(ka["value"])))[0]
            check(float(v) == want, "%s: value %s, expected %r" % (w, v, want))
        off += size
        # The faulting dispatches' arguments are in the text report, one line each.
        if (x["queue"], x["index"]) in faulting:
            rel = (" \u2192 " + a["relation"]) if a["relation"] else ""
            line = "        %s (%s%s) = %s%s\n" % (pname, (a["address_space"] + " ") if a["address_space"] else "",
                                                 ptype, v, rel)
            check(line in text, "%s: the text report lacks %r" % (w, line))
    # The hidden arguments, exactly, from the dispatch's geometry.
    hidden = [a for a in (x["arguments"] or []) if a["hidden"]]
    want = HIDDEN.get(d["kernel"], [])
    names = {a["name"] for a in hidden}
    want = [h for h in want if h[0] not in HIDDEN_NEWER_LLVM or h[0] in names]
    check([a["name"] for a in hidden] == [h[0] for h in want],
          "%s: hidden arguments %r, expected %r" % (where, [a["name"] for a in hidden], [h[0] for h in want]))
    g = [num(v) for v in d["grid"]] + [1] * (3 - len(d["grid"]))
    wg = [num(v) for v in d["workgroup"]] + [1] * (3 - len(d["workgroup"]))
    dims = 3 if g[2] > 1 else 2 if g[1] > 1 else 1
    base = (off + 7) // 8 * 8
    for a, (kind, hoff, hsize, f) in zip(hidden, want):
        w = "%s %s" % (where, kind)
        check(a["offset"] == base + hoff and a["size"] == hsize,
              "%s: at %d (%d bytes), expected %d (%d)" % (w, a["offset"], a["size"], base + hoff, hsize))
        if not callable(f):
            # a hidden pointer: into the allocation the scenario gives the dispatch, or null
            label = f % i if f and d.get("printf_buffer") else None
            al = a["allocation"]
            if label:
                size = num(d["printf_buffer"])
                rel = "%s, %d KiB VRAM" % (label, size // 1024)
                check(al is not None and al["label"] == label and al["offset"] == 0 and al["size"] == size
                      and a["value"] == al["base"] and a["relation"] == rel,
                      "%s: %r -> %r %r, expected the base of %s" % (w, a["value"], a["relation"], al, label))
            else:
                rel = "null pointer"
                check(a["value"] == "0x0" and al is None and a["relation"] == rel,
                      "%s: %r -> %r, expected a null pointer" % (w, a["value"], a["relation"]))
            if (x["queue"], x["index"]) in faulting:
                # the text counts hidden arguments (below); --json lists them
                check("        %s (hidden" % kind not in text, "%s: the text report lists it" % w)
            continue
        value = f(g, wg, dims)
        check(a["value_kind"] == kind and a["type"] is None and a["address_space"] is None,
              "%s: %r %r %r" % (w, a["value_kind"], a["type"], a["address_space"]))
        check(a["offset"] == base + hoff and a["size"] == hsize,
              "%s: at %d (%d bytes), expected %d (%d)" % (w, a["offset"], a["size"], base + hoff, hsize))
        check(a["value"] == str(value) and a["value_error"] is None,
              "%s: value %r (%r), expected %d" % (w, a["value"], a["value_error"], value))
        check(a["allocation"] is None and a["relation"] is None, "%s: related %r" % (w, a["relation"]))
        if (x["queue"], x["index"]) in faulting:
            check("        %s (hidden" % kind not in text, "%s: the text report lists it" % w)
    if hidden and (x["queue"], x["index"]) in faulting:
        line = "        and %d hidden argument%s filled by the runtime (--json lists %s)\n" % (
            len(hidden), "" if len(hidden) == 1 else "s", "it" if len(hidden) == 1 else "them")
        check(line in text, "%s: the text report lacks %r" % (where, line))
    check_printf(x, d, where)
    checked += 1
check(checked > 0, "the scenario has no dispatch with kernargs")
# The example line, for a buffer argument of a faulting dispatch.
if scen["name"] == "vadd-fault":
    check(re.search(r"^        a \(global float\*\) = 0x[0-9a-f]+ \u2192 buffer a, 64 KiB VRAM$", text, re.M),
          "the text report lacks 'a (global float*) = 0x... \u2192 buffer a, 64 KiB VRAM'")
    check(re.search(r"^        c \(global float\*\) = 0x7f39f5000000 \u2192 in no allocation", text, re.M),
          "the text report does not say c points into no allocation")
for e in errors:
    print("MISMATCH:", e)
sys.exit(1 if errors else 0)
