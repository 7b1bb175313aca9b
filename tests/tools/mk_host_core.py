#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# mk_host_core.py OUT: write a plain host core of a process without a GPU, laid out as the
# Linux kernel writes one (fs/binfmt_elf.c): ET_CORE, x86-64, one PT_NOTE (NT_PRSTATUS,
# NT_PRPSINFO), a stack page with its bytes, and the [vsyscall] page, which the kernel never
# dumps and writes as PF_X alone (its mapping is `--xp`). No AMDGPU note, no gpucore note.
import struct
import sys

PT_LOAD, PT_NOTE = 1, 4
PF_X, PF_W, PF_R = 1, 2, 4
PAGE = 0x1000


def note(owner, ntype, desc):
    name = owner.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), ntype) + pad(name) + pad(desc)


prstatus = bytearray(336)
struct.pack_into("<H", prstatus, 12, 11)    # pr_cursig: SIGSEGV
struct.pack_into("<i", prstatus, 32, 4343)  # pr_pid
prpsinfo = bytearray(136)
prpsinfo[40:45] = b"sleep"                  # pr_fname
notes = note("CORE", 1, bytes(prstatus)) + note("CORE", 3, bytes(prpsinfo))

phnum = 3
phoff = 64
notes_off = phoff + phnum * 56
stack_off = (notes_off + len(notes) + PAGE - 1) & ~(PAGE - 1)
stack = bytes((i * 7) & 0xFF for i in range(PAGE))
end = stack_off + PAGE

ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
ehdr += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56, phnum, 0, 0, 0)
phdrs = struct.pack("<IIQQQQQQ", PT_NOTE, 0, notes_off, 0, 0, len(notes), 0, 0)
phdrs += struct.pack("<IIQQQQQQ", PT_LOAD, PF_R | PF_W, stack_off, 0x7FFD00000000, 0, PAGE,
                     PAGE, PAGE)
phdrs += struct.pack("<IIQQQQQQ", PT_LOAD, PF_X, end, 0xFFFFFFFFFF600000, 0, 0, PAGE, PAGE)

out = bytearray(end)
out[0:64] = ehdr
out[phoff:phoff + len(phdrs)] = phdrs
out[notes_off:notes_off + len(notes)] = notes
out[stack_off:end] = stack
open(sys.argv[1], "wb").write(out)
