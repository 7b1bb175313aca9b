#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seeds of fuzz_merge (tests/fuzz/corpus/fuzz_merge/) from fuzz_ingest's seeds.

    make_merge_seeds.py [--check] INGEST_SEEDS_DIR OUTDIR

fuzz_ingest's seeds are a mode byte and then a GPU half or a host core of the split pair of
vadd-fault (tests/merge/make_ingest_seeds.py). A fuzz_merge input is the GPU file's length
(u32, little-endian), the GPU file, then the host core. Seeds:
  pair          the GPU half and the host core: merges
  gpu-cut       the GPU half cut inside a segment: merges what it holds
  host-cut      the host core cut in the middle of its memory
  gpu-no-note   a GPU half without its AMDGPU note: refused
  swapped       the host core where the GPU half goes: refused (e_machine)
  one-file      the whole input is the GPU half, no host core: nothing to merge
  gpu-memsz     the GPU half's last PT_LOAD announces 1 TiB of p_memsz over a few KiB of
                data (found by fuzzing: the merge wrote the zeros out, for hours)
  host-memsz    the same in the host core's last PT_LOAD with data
With --check, compare with the files in OUTDIR instead of writing them (exit 1 on a
difference, naming it).
"""
import os
import struct
import sys


def half(seeds, name):
    with open(os.path.join(seeds, name), "rb") as f:
        return f.read()[1:]  # fuzz_ingest's mode byte


def last_load_memsz(elf, memsz):
    """@elf with the p_memsz of its last PT_LOAD with data (by address) set to @memsz."""
    b = bytearray(elf)
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    best = None
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type, _, _, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", b, at)
        if p_type == 1 and filesz and (best is None or vaddr > best[0]):
            best = (vaddr, at)
    struct.pack_into("<Q", b, best[1] + 40, memsz)
    return bytes(b)


def build(seeds):
    gpu, host = half(seeds, "gpu-state"), half(seeds, "host")
    cut, no_note = half(seeds, "gpu-cut"), half(seeds, "gpu-no-note")

    def pair(g, h):
        return struct.pack("<I", len(g)) + g + h

    return {
        "pair": pair(gpu, host),
        "gpu-cut": pair(cut, host),
        "host-cut": pair(gpu, host[: len(host) // 2]),
        "gpu-no-note": pair(no_note, host),
        "swapped": pair(host, gpu),
        "one-file": struct.pack("<I", 0xFFFFFFFF) + gpu,
        "gpu-memsz": pair(last_load_memsz(gpu, 1 << 40), host),
        "host-memsz": pair(gpu, last_load_memsz(host, 1 << 40)),
    }


def main(argv):
    check = len(argv) > 1 and argv[1] == "--check"
    args = argv[2:] if check else argv[1:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    seeds, outdir = args
    want = build(seeds)
    if check:
        bad = []
        for name, data in sorted(want.items()):
            path = os.path.join(outdir, name)
            if not os.path.exists(path) or open(path, "rb").read() != data:
                bad.append(name)
        if bad:
            print("fuzz_merge seeds out of date: %s (run tests/merge/make_merge_seeds.py %s %s)"
                  % (", ".join(bad), seeds, outdir), file=sys.stderr)
            return 1
        return 0
    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(want.items()):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
