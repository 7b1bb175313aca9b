#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Shape and patch the GPU half of a split dump for the save-area tests of `gpucore ingest`
(tests/merge/ingest_trim_e2e.sh).

    ingest_trim.py runtime GPU OUT
    ingest_trim.py areas GPU INFO_JSON
    ingest_trim.py patch GPU OUT ADDR FIELD=VALUE...
    ingest_trim.py split GPU OUT ADDR
    ingest_trim.py note GPU OUT agent|queue INDEX OFFSET WIDTH VALUE
    ingest_trim.py offset GPU ADDR

runtime  OUT is GPU with every run of PT_LOADs that touch one another made one PT_LOAD, as
         the ROCm runtime writes one PT_LOAD per GPU mapping (a capture writes the parts of a
         save area as separate segments).
areas    the XCC context-save areas the AMDGPU note names (INFO_JSON: `gpucore info --json`
         of a core with that note), their headers read from GPU's bytes, and the parts a
         reader needs and does not need, decided here from docs/cwsr-layout.md section 3 (not
         by gpucore): JSON [{"queue", "xcc", "lo", "size", "header": {...}, "unused":
         [[addr, size], ...], "unused_bytes"}].
patch    OUT is GPU with header fields of the area at ADDR set (FIELD one of cso css wso wss;
         VALUE decimal or 0x hex, 32 bits).
split    OUT is GPU with the PT_LOAD holding ADDR split into two at ADDR.
note     OUT is GPU with the WIDTH-byte field at OFFSET of agent or queue entry INDEX of the
         AMDGPU note set to VALUE (docs/core-format.md section 3: a 40-byte header, the runtime
         info, the agent entries, then the queue entries; offsets as schema/FORMAT.md A.5/A.6
         give them, e.g. queue 32 ctx_save_restore_address, 56 ctx_save_restore_area_size,
         agent 88 gfx_target_version).
offset   the file offset of address ADDR in GPU.
"""
import json
import mmap
import shutil
import struct
import sys

PT_LOAD = 1
HEADER = 40
FIELDS = {"cso": 0, "css": 4, "wso": 8, "wss": 12}


def phdrs(data):
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    return [list(struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize))
            for i in range(phnum)]


def relayout(data, ph, pieces, path):
    """Write to `path` a new file: data's ELF header, the table `ph` (each entry's data the
    chunks of `pieces`, a list of byte strings or memoryviews per entry), each segment at the
    next 16-byte aligned offset. Written chunk by chunk, never joined in memory: the cores are
    hundreds of MiB, and copying them was most of the tests' time."""
    n = len(ph)
    pos = 64 + 56 * n
    out_ph = []
    for p, chunks in zip(ph, pieces):
        pos = (pos + 15) & ~15
        q = list(p)
        q[2] = pos if q[5] else 0
        out_ph.append(q)
        pos += sum(len(c) for c in chunks)
    head = bytearray(data[:64])
    struct.pack_into("<Q", head, 32, 64)
    struct.pack_into("<HH", head, 54, 56, n)
    for q in out_ph:
        head += struct.pack("<IIQQQQQQ", *q)
    end = len(head)
    with open(path, "wb") as f:
        f.write(head)
        for q, chunks in zip(out_ph, pieces):
            size = sum(len(c) for c in chunks)
            if not size:
                continue
            f.seek(q[2])  # the alignment gap is a hole: it reads as zeros
            for c in chunks:
                f.write(c)
            end = q[2] + size
        f.truncate(end)


def seg_bytes(data, p):
    return data[p[2]:p[2] + p[5]]


def runtime(data, path):
    ph = phdrs(data)
    others = [p for p in ph if p[0] != PT_LOAD]
    loads = sorted((p for p in ph if p[0] == PT_LOAD and p[5]), key=lambda p: p[3])
    merged, pieces = [], []
    for p in loads:
        if merged and merged[-1][3] + merged[-1][5] == p[3] and merged[-1][5] == merged[-1][6]:
            merged[-1][5] += p[5]
            merged[-1][6] += p[6]
            pieces[-1].append(seg_bytes(data, p))
        else:
            merged.append(list(p))
            pieces.append([seg_bytes(data, p)])
    relayout(data, others + merged, [[seg_bytes(data, p)] for p in others] + pieces, path)


def offset_of(data, addr):
    for p in phdrs(data):
        if p[0] == PT_LOAD and p[3] <= addr < p[3] + p[5]:
            return p[2] + (addr - p[3])
    raise SystemExit("address 0x%x is in no PT_LOAD with data" % addr)


def areas(data, info):
    out = []
    agents = {a["gpu_id"]: a for a in info["amdgpu"]["agents"]}
    for q in info["amdgpu"]["queues"]:
        ctx = int(q["ctx_save_restore_address"], 16)
        size = q["ctx_save_restore_area_size"]
        nxcc = agents[q["gpu_id"]]["num_xcc"] or 1
        for x in range(nxcc):
            lo = ctx + x * size
            off = offset_of(data, lo)
            cso, css, wso, wss = struct.unpack_from("<IIII", data, off)
            # docs/cwsr-layout.md 3: the header, the used control stack [cso, cso + css) and
            # the used wave area [wso - wss, wso), the one ending where the other begins
            assert HEADER <= cso and cso + css == wso - wss and wso <= size, (cso, css, wso, wss)
            unused = [[lo + HEADER, cso - HEADER], [lo + wso, size - wso]]
            unused = [u for u in unused if u[1]]
            out.append({"queue": q["queue_id"], "xcc": x, "lo": lo, "size": size,
                        "header": {"cso": cso, "css": css, "wso": wso, "wss": wss},
                        "unused": unused, "unused_bytes": sum(u[1] for u in unused)})
    return out


def patch(data, addr, assigns):
    """The edits [(file offset, bytes)] that set the header fields of the area at `addr`."""
    off = offset_of(data, addr)
    edits = []
    for a in assigns:
        name, value = a.split("=", 1)
        edits.append((off + FIELDS[name], struct.pack("<I", int(value, 0) & 0xffffffff)))
    return edits


def split(data, addr, path):
    ph = phdrs(data)
    out_ph, pieces = [], []
    for p in ph:
        blob = seg_bytes(data, p)
        if p[0] == PT_LOAD and p[3] < addr < p[3] + p[5]:
            k = addr - p[3]
            a, b = list(p), list(p)
            a[5] = a[6] = k
            b[3], b[5], b[6] = addr, p[5] - k, p[6] - k
            out_ph += [a, b]
            pieces += [[blob[:k]], [blob[k:]]]
        else:
            out_ph.append(p)
            pieces.append([blob])
    assert len(out_ph) == len(ph) + 1, "0x%x is inside no PT_LOAD" % addr
    relayout(data, out_ph, pieces, path)


def note_field(data, kind, index, offset, width, value):
    """The edit [(file offset, bytes)] that sets the field of the AMDGPU note's entry."""
    for p in phdrs(data):
        if p[0] != 4:  # PT_NOTE
            continue
        pos, end = p[2], p[2] + p[5]
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
            desc = pos + 12 + ((namesz + 3) & ~3)
            if data[pos + 12:pos + 12 + namesz] == b"AMDGPU\0" and ntype == 33:
                info_size, = struct.unpack_from("<Q", data, desc + 16)
                nagents, agent_size, nqueues, queue_size = struct.unpack_from("<IIII", data,
                                                                              desc + 24)
                if kind == "agent":
                    assert index < nagents and offset + width <= agent_size
                    at = desc + 40 + info_size + index * agent_size
                else:
                    assert index < nqueues and offset + width <= queue_size
                    at = desc + 40 + info_size + nagents * agent_size + index * queue_size
                return [(at + offset, struct.pack({4: "<I", 8: "<Q"}[width], value))]
            pos = desc + ((descsz + 3) & ~3)
    raise SystemExit("no AMDGPU note")


def edited_copy(src, dst, edits):
    """`dst` is `src` (copied by the kernel) with each (offset, bytes) of `edits` written."""
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        for off, b in edits:
            f.seek(off)
            f.write(b)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    with open(argv[2], "rb") as f:
        data = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
    if cmd == "runtime" and len(argv) == 4:
        runtime(data, argv[3])
    elif cmd == "areas" and len(argv) == 4:
        json.dump(areas(data, json.load(open(argv[3]))), sys.stdout, indent=1)
    elif cmd == "patch" and len(argv) >= 6:
        edited_copy(argv[2], argv[3], patch(data, int(argv[4], 0), argv[5:]))
    elif cmd == "split" and len(argv) == 5:
        split(data, int(argv[4], 0), argv[3])
    elif cmd == "note" and len(argv) == 9 and argv[4] in ("agent", "queue"):
        edited_copy(argv[2], argv[3], note_field(data, argv[4], int(argv[5]), int(argv[6]),
                                                 int(argv[7]), int(argv[8], 0)))
    elif cmd == "offset" and len(argv) == 4:
        print(offset_of(data, int(argv[3], 0)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
