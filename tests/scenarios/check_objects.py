#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_objects.py OBJECTS_DIR LLVM_MAJOR ALL_TARGETS_MAJOR TARGET...: every scenario code
# object <kernel>.<target>.co of the TARGETs exists and is an AMDGPU code object for that target:
# the EF_AMDGPU_MACH byte of e_flags and the target ID in its metadata ("amdgcn-amd-amdhsa--gfxN").
# From LLVM ALL_TARGETS_MAJOR on (19), gfx942, gfx1200 and gfx1201 must be among them, compiled
# natively. One line per problem; exit 1 if any.
import os
import struct
import sys

MACH = {"gfx90a": 0x3F, "gfx940": 0x40, "gfx942": 0x4C, "gfx1030": 0x36, "gfx1100": 0x41,
        "gfx1200": 0x48, "gfx1201": 0x4E}  # EF_AMDGPU_MACH_AMDGCN_* (arch/arch_tables.c)
KERNELS = ("vadd", "hang", "trap")

objdir, major, all_major, targets = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
errors = []
if major >= all_major:
    for t in ("gfx942", "gfx1200", "gfx1201"):
        if t not in targets:
            errors.append("LLVM %d: no scenario objects for %s" % (major, t))
checked = 0
for t in targets:
    for k in KERNELS:
        path = os.path.join(objdir, "%s.%s.co" % (k, t))
        try:
            data = open(path, "rb").read()
        except OSError as e:
            errors.append("%s: %s" % (path, e.strerror))
            continue
        if data[:4] != b"\x7fELF" or struct.unpack_from("<H", data, 18)[0] != 224:
            errors.append("%s: not an AMDGPU ELF file" % path)
            continue
        mach = struct.unpack_from("<I", data, 48)[0] & 0xFF
        if mach != MACH[t]:
            errors.append("%s: EF_AMDGPU_MACH 0x%x, expected 0x%x (%s)" % (path, mach, MACH[t], t))
        if ("amdgcn-amd-amdhsa--" + t).encode() not in data:
            errors.append("%s: the metadata names no target amdgcn-amd-amdhsa--%s" % (path, t))
        checked += 1
for e in errors:
    print(e)
print("%d code objects checked for %s" % (checked, ", ".join(targets)))
sys.exit(1 if errors else 0)
