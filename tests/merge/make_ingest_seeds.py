#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seeds of fuzz_ingest (tests/fuzz/corpus/fuzz_ingest/) from a split pair.

    make_ingest_seeds.py GPU_FILE HOST_CORE OUTDIR

GPU_FILE and HOST_CORE as tests/analyze/make_rocr_split.py writes them (merge_e2e.sh leaves
them in its work directory). Every segment is cut to at most 4 KiB (the host core's to 512
bytes of zeros, its notes kept but NT_FILE and NT_PRPSINFO's names: no path of the machine
that made them) so the seeds stay small; the AMDGPU note is kept whole. Seeds (the
first byte is fuzz_ingest's mode):
  gpu-state     the GPU half, tier state        gpu-all      the same, keep everything
  gpu-cut       gpu-state cut in a segment      gpu-no-note  the GPU half without its note
  load-first    a PT_LOAD's data before the note (refused in tier state)
  host          the host core (mode 0)
  host-limit    the host core under a size limit of 32 KiB (mode 4 << 2): cut in its memory
  host-limit-head  the same under 16 KiB (mode 3 << 2): its head alone does not fit
  gpu-limit     gpu-all under a size limit of 16 KiB (mode 3 | 3 << 2): cut in its memory
The seed gpu-trim is gpu-state written from another GPU file: ingest_trim.py runtime of the
split of a --tier all capture (ingest_trim_e2e.sh leaves it in its work directory as
gpucore.PID), whose save area starts a PT_LOAD with its header, so the trimming of save areas
is reached.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyze"))
import make_rocr_split as m  # noqa: E402


NT_PRPSINFO, NT_FILE = 3, 0x46494C45


def scrub(items):
    """Host notes without what names this machine's paths: no NT_FILE, NT_PRPSINFO's
    pr_fname and pr_psargs zeroed (a seed is committed to the repository)."""
    out = []
    for name, ntype, desc in items:
        if name == b"CORE" and ntype == NT_FILE:
            continue
        if name == b"CORE" and ntype == NT_PRPSINFO and len(desc) == 136:
            desc = desc[:40] + bytes(96)
        out.append((name, ntype, desc))
    return out


def rebuild(data, limit, drop_amdgpu=False, loads_first=False, host=False):
    ph = m.phdrs(data)
    segs = []
    for p_type, flags, off, vaddr, paddr, filesz, memsz, align in ph:
        body = bytes(data[off:off + filesz])
        if p_type == m.PT_NOTE:
            items = m.notes(data, [(p_type, flags, off, vaddr, paddr, filesz, memsz, align)])
            if drop_amdgpu:
                items = [n for n in items if n[0] != b"AMDGPU"]
            if host:
                items = scrub(items)
            body = m.note_bytes(items)
        elif p_type == m.PT_LOAD:
            body = body[:limit]
            if not body:
                continue
            if host:  # host memory names paths too (environment, auxv strings)
                body = bytes(len(body))
        else:
            continue
        segs.append((p_type, flags, vaddr, body, len(body), 4, 16, 0))
    if loads_first:
        segs.sort(key=lambda s: s[0] != m.PT_LOAD)
    # write_elf writes a file: build it through a temporary name
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "make_ingest_seeds.%d" % os.getpid())
    m.write_elf(tmp, data[0:16], struct.unpack_from("<H", data, 16)[0],
                struct.unpack_from("<H", data, 18)[0], 0, segs)
    out = open(tmp, "rb").read()
    os.unlink(tmp)
    return out


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    gpu, host, outdir = open(argv[1], "rb").read(), open(argv[2], "rb").read(), argv[3]
    os.makedirs(outdir, exist_ok=True)
    g = rebuild(gpu, 4096)
    seeds = {
        "gpu-state": b"\x01" + g,
        "gpu-all": b"\x03" + g,
        "gpu-cut": b"\x01" + g[:len(g) * 2 // 3],
        "gpu-no-note": b"\x03" + rebuild(gpu, 4096, drop_amdgpu=True),
        "load-first": b"\x01" + rebuild(gpu, 4096, loads_first=True),
        "host": b"\x00" + rebuild(host, 512, host=True),
    }
    # fuzz_ingest's mode bits 2-4, k: a size limit of 4 KiB << (k - 1)
    seeds["host-limit"] = bytes([4 << 2]) + seeds["host"][1:]
    seeds["host-limit-head"] = bytes([3 << 2]) + seeds["host"][1:]
    seeds["gpu-limit"] = bytes([3 | 3 << 2]) + seeds["gpu-all"][1:]
    for name, blob in seeds.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(blob)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
