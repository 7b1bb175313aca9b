#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Split a unified core into the two files an AMD GPU crash leaves today (tests/analyze).

    make_rocr_split.py UNIFIED INFO_JSON GPU_OUT HOST_OUT

GPU_OUT is what the ROCm runtime's core dump writer produces as gpucore.PID: an ELF core with
e_machine EM_AMDGPU holding the AMDGPU note alone and the GPU mappings (here: the PT_LOADs of
UNIFIED that lie in a GPU allocation of INFO_JSON, `gpucore info --json UNIFIED`), written
with that writer's quirks (docs/core-format.md §10): EI_ABIVERSION 0, no section headers, the note
first, p_flags built from section flags (readable never set, writable shown as executable),
p_align holding a shift (LOAD 4, NOTE 2) with offsets aligned to it, p_paddr 0.

HOST_OUT is what the kernel writes as core.PID: UNIFIED's header and host notes (no AMDGPU or
GPUCORE note), its other PT_LOADs with their data, and the GPU mappings as PT_LOADs with
p_filesz 0 (the kernel does not dump device mappings).
"""
import json
import mmap
import struct
import sys

PT_LOAD, PT_NOTE = 1, 4
PF_X, PF_W, PF_R = 1, 2, 4
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
EM_AMDGPU = 224


def phdrs(data):
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    out = []
    for i in range(phnum):
        out.append(struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize))
    return out


def notes(data, ph):
    """(owner, type, desc) of every note of the PT_NOTE segments."""
    out = []
    for p_type, _, off, _, _, filesz, _, align in ph:
        if p_type != PT_NOTE:
            continue
        pad = 8 if align == 8 else 4
        pos, end = off, off + filesz
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
            name = bytes(data[pos + 12:pos + 12 + namesz]).rstrip(b"\0")
            d = pos + 12 + ((namesz + pad - 1) & ~(pad - 1))
            out.append((name, ntype, bytes(data[d:d + descsz])))
            pos = d + ((descsz + pad - 1) & ~(pad - 1))
    return out


def note_bytes(items):
    b = bytearray()
    for name, ntype, desc in items:
        n = name + b"\0"
        b += struct.pack("<III", len(n), len(desc), ntype)
        b += n + b"\0" * (-len(n) % 4)
        b += desc + b"\0" * (-len(desc) % 4)
    return bytes(b)


def align(n, a):
    return (n + a - 1) & ~(a - 1)


def write_elf(path, ident, e_type, e_machine, e_flags, segments):
    """segments: (p_type, p_flags, vaddr, data, memsz, p_align, offset_alignment, paddr), data
    bytes or a memoryview of the input, followed in the file by `filesz_zeros` zero bytes
    (seg[8], when present). Written piece by piece: the cores are hundreds of MiB, and a copy
    of each in memory was most of the test's time."""
    phnum = len(segments)
    pos = 64 + 56 * phnum
    layout = []
    for seg in segments:
        p_type, p_flags, vaddr, body, memsz, p_align, off_align, paddr = seg[:8]
        zeros = seg[8] if len(seg) > 8 else 0
        pos = align(pos, off_align)
        layout.append((p_type, p_flags, pos, vaddr, paddr, len(body) + zeros, memsz, p_align))
        pos += len(body) + zeros
    head = bytearray(64 + 56 * phnum)
    head[0:16] = ident
    struct.pack_into("<HHIQQQIHHHHHH", head, 16, e_type, e_machine, 1, 0, 64, 0, e_flags, 64, 56,
                     phnum, 0, 0, 0)
    for i, ph in enumerate(layout):
        struct.pack_into("<IIQQQQQQ", head, 64 + 56 * i, *ph)
    with open(path, "wb") as f:
        f.write(head)
        for ph, seg in zip(layout, segments):
            if len(seg[3]):
                f.seek(ph[2])
                f.write(seg[3])
        # the gaps and the zeros after a body are holes: they read as zeros
        f.truncate(pos)


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        data = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
    info = json.load(open(argv[2]))
    allocs = [(int(a["base"], 16), int(a["base"], 16) + a["size"]) for a in info["allocations"]]
    ph = phdrs(data)
    items = notes(data, ph)
    amdgpu = [n for n in items if n[0] == b"AMDGPU" and n[1] == 33]
    host_notes = [n for n in items if n[0] not in (b"AMDGPU", b"GPUCORE")]
    if len(amdgpu) != 1:
        print("%s: expected one AMDGPU note, found %d" % (argv[1], len(amdgpu)), file=sys.stderr)
        return 1

    def is_gpu(vaddr, memsz):
        return any(vaddr < hi and lo < vaddr + memsz for lo, hi in allocs)

    loads = [p for p in ph if p[0] == PT_LOAD]
    gpu_loads = [p for p in loads if is_gpu(p[3], p[5])]
    if not gpu_loads:
        print("%s: no PT_LOAD lies in a GPU allocation" % argv[1], file=sys.stderr)
        return 1

    # The ROCm runtime's file: its quirks, on purpose.
    ident = bytearray(data[0:16])
    ident[7] = 64  # ELFOSABI_AMDGPU_HSA
    ident[8] = 0   # EI_ABIVERSION: the writer leaves 0 (the spec says 3)
    segs = [(PT_NOTE, 0, 0, note_bytes(amdgpu), len(note_bytes(amdgpu)), 2, 4, 0)]
    for p_type, flags, off, vaddr, paddr, filesz, memsz, _ in gpu_loads:
        shf = ((SHF_ALLOC if flags & PF_R else 0) | (SHF_WRITE if flags & PF_W else 0) |
               (SHF_EXECINSTR if flags & PF_X else 0))
        segs.append((PT_LOAD, shf, vaddr, data[off:off + filesz], memsz, 4, 16, 0,
                     memsz - filesz))
    write_elf(argv[3], bytes(ident), 4, EM_AMDGPU, 0, segs)

    # The kernel's file: host memory only; device mappings listed, not dumped.
    e_machine, = struct.unpack_from("<H", data, 18)
    segs = [(PT_NOTE, 0, 0, note_bytes(host_notes), len(note_bytes(host_notes)), 4, 4, 0)]
    for p_type, flags, off, vaddr, paddr, filesz, memsz, p_align in loads:
        body = b"" if is_gpu(vaddr, memsz) else data[off:off + filesz]
        segs.append((PT_LOAD, flags, vaddr, body, memsz, p_align, 4096, 0))
    write_elf(argv[4], data[0:16], 4, e_machine, 0, segs)
    print("%s: %d GPU segments, %s: %d host segments" %
          (argv[3], len(gpu_loads), argv[4], len(loads) - len(gpu_loads)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
