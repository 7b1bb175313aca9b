#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# retarget_co.py IN OUT FROM TO: OUT is the AMDGPU code object IN, built for processor FROM, marked
# as built for TO, an ISA-identical processor the compiler lacks (gfx942 from a gfx940 build with
# LLVM 16, which has no gfx942): the EF_AMDGPU_MACH byte of e_flags, and the target ID strings
# ("amdgcn-amd-amdhsa--gfx940" in the metadata note), which keep their length. Only for the
# scenario kernels of an LLVM without the target (tests/scenarios.cmake); LLVM 19 compiles them
# natively.
import struct
import sys

MACH = {"gfx940": 0x40, "gfx941": 0x4B, "gfx942": 0x4C}  # EF_AMDGPU_MACH_AMDGCN_*

src, dst, frm, to = sys.argv[1:5]
data = bytearray(open(src, "rb").read())
if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
    sys.exit("%s: not a little-endian ELF64 file" % src)
if struct.unpack_from("<H", data, 18)[0] != 224:
    sys.exit("%s: e_machine is not EM_AMDGPU (224)" % src)
flags = struct.unpack_from("<I", data, 48)[0]
if flags & 0xFF != MACH[frm]:
    sys.exit("%s: e_flags 0x%x is not %s (mach 0x%x)" % (src, flags, frm, MACH[frm]))
struct.pack_into("<I", data, 48, (flags & ~0xFF) | MACH[to])
old, new = ("amdgcn-amd-amdhsa--" + frm).encode(), ("amdgcn-amd-amdhsa--" + to).encode()
if len(old) != len(new) or data.count(old) == 0:
    sys.exit("%s: no target ID %s of the same length as %s" % (src, old.decode(), new.decode()))
data = data.replace(old, new)
open(dst, "wb").write(data)
