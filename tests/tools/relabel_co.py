#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# relabel_co.py IN OUT MACH: copy the AMDGPU code object IN to OUT with the EF_AMDGPU_MACH
# field (the low byte of e_flags) set to MACH, e.g. 0x4e for gfx1201. Used where a test needs a
# code object "for" a target the installed LLVM cannot compile for: what is tested is the
# kernel's entry and descriptor, not its instructions. The write is atomic (a temporary name,
# then rename), so a parallel build never sees half a file.
import os
import sys

src, dst, mach = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
elf = bytearray(open(src, "rb").read())
if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1 or len(elf) < 64:
    sys.exit("%s: not a little-endian ELF64 file" % src)
if int.from_bytes(elf[18:20], "little") != 224:
    sys.exit("%s: e_machine is not EM_AMDGPU" % src)
elf[48] = mach & 0xFF
tmp = dst + ".tmp"
open(tmp, "wb").write(elf)
os.replace(tmp, dst)
