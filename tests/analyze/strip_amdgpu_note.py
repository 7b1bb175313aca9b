#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# strip_amdgpu_note.py IN OUT: copy an ELF64 core, renaming the owner of its AMDGPU type-33
# note ("AMDGPU" -> "AMDGPX") so no reader finds GPU state in it (tests/analyze).
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", data, 32)
phentsize, phnum = struct.unpack_from("<HH", data, 54)
renamed = 0
for i in range(phnum):
    ph = phoff + i * phentsize
    ptype, = struct.unpack_from("<I", data, ph)
    if ptype != 4:  # PT_NOTE
        continue
    off, = struct.unpack_from("<Q", data, ph + 8)
    size, = struct.unpack_from("<Q", data, ph + 32)
    p = off
    while p + 12 <= off + size:
        namesz, descsz, ntype = struct.unpack_from("<III", data, p)
        if data[p + 12:p + 12 + namesz].rstrip(b"\0") == b"AMDGPU" and ntype == 33:
            data[p + 12:p + 18] = b"AMDGPX"
            renamed += 1
        p += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
if renamed != 1:
    sys.exit("expected exactly one AMDGPU note, found %d" % renamed)
open(sys.argv[2], "wb").write(data)
