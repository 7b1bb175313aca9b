#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host cores whose vDSO image names files through its DWARF, for the host backtrace's tests.

A core's author chooses the bytes of its vDSO (the kernel dumps it whole, and gpucore reads its
ELF image from the core: analyze/host_stack.c) and the threads' registers. This writes a plain
host core, laid out as the kernel writes one, whose one thread stands in the vDSO's function
"hostile_fn", and whose vDSO image holds:

  - DWARF 4 for that function: a compile unit with DW_AT_stmt_list (a line table: hostile.c,
    line 42), DW_AT_name and DW_AT_comp_dir in DW_FORM_GNU_strp_alt (strings of a supplementary
    file), .debug_aranges;
  - .gnu_debugaltlink naming ALTLINK and the build-id ALT_ID: libdw opens that path, as it is,
    to read those strings (a FIFO there blocks the reader for ever);
  - .gnu_debuglink naming DEBUGLINK (libdwfl hands the name to its find_debuginfo callback);
  - DW_AT_GNU_dwo_name DWO and DW_AT_GNU_dwo_id, which make the unit a skeleton: libdw opens a
    skeleton's split file by that name when it needs the split unit;
  - its own .debug_str, whose offset 0 reads "/wrong/own-debug-str": a reader that takes the
    image as its own supplementary file shows that directory;
  - .dynsym (no .symtab, as a real vDSO) and a GNU build-id.

"bomb" adds to that image (its paths under /nonexistent) a section that libelf, libdw or
libdwfl inflate when they read it, of MIB MiB of zeros: .gnu_debugdata in xz (libdwfl reads a
symbol table there when the image has no .symtab: about 6800:1), .debug_ranges with
SHF_COMPRESSED (zlib, libdw: about 1000:1) or .zdebug_ranges (GNU-style zlib, libdw).

Usage:
    mkhostile_vdso.py core OUT ALTLINK DEBUGLINK DWO   the host core
    mkhostile_vdso.py bomb OUT xz|zlib|zdebug MIB      the same with a compressed section
    mkhostile_vdso.py alt SYSROOT [other]              the supplementary file below SYSROOT, at
                                                       usr/lib/debug/.build-id/ of ALT_ID; its
                                                       .debug_str makes the unit's directory
                                                       /alt/src ("other": a file there with
                                                       another build-id); prints its path
    mkhostile_vdso.py SEED-DIR                         the fuzz_host_stack seeds: vdso-altlink,
                                                       its paths under /nonexistent, and the
                                                       bombs vdso-xz and vdso-zlib of 1 MiB

With the supplementary file the frame's source is /alt/src/hostile.c:42; without one, hostile.c:42
(the unit has no directory); never /wrong/own-debug-str/hostile.c. Exit status: 0, 2 usage.
"""
import lzma
import os
import struct
import sys
import zlib

PAGE = 0x1000
VDSO_AT = 0x7FFFF7FC1000   # where the kernel maps the vDSO (a page boundary)
STACK_AT = 0x7FFFFFFDE000  # one page of stack
FN_OFF = 0x400             # hostile_fn's address in the image (its PT_LOAD is at 0)
FN_SIZE = 0x40
PC = VDSO_AT + FN_OFF + 0x10
LINE = 42
TID = 4343
VDSO_ID = bytes(range(0x50, 0x64))  # 20 bytes, as ld writes
ALT_ID = bytes(range(0xA0, 0xB4))
OTHER_ID = bytes(range(0xC0, 0xD4))
DWO_ID = 0x1122334455667788
ALT_STR = b"/alt/src\0hostile-alt.c\0"   # comp_dir at 0, name at 9
OWN_STR = b"/wrong/own-debug-str\0hostile-own.c\0"

# ELF and DWARF numbers (<elf.h>, <dwarf.h>)
ET_DYN, ET_CORE, EM_X86_64 = 3, 4, 62
PT_LOAD, PT_NOTE = 1, 4
PF_X, PF_W, PF_R = 1, 2, 4
SHT_PROGBITS, SHT_STRTAB, SHT_NOTE, SHT_DYNSYM = 1, 3, 7, 11
SHF_ALLOC, SHF_EXECINSTR, SHF_COMPRESSED = 2, 4, 0x800
ELFCOMPRESS_ZLIB = 1
DW_TAG_compile_unit, DW_TAG_partial_unit = 0x11, 0x3C
DW_AT_name, DW_AT_stmt_list, DW_AT_low_pc, DW_AT_high_pc, DW_AT_comp_dir = 3, 0x10, 0x11, 0x12, 0x1B
DW_AT_GNU_dwo_name, DW_AT_GNU_dwo_id = 0x2130, 0x2131
DW_FORM_addr, DW_FORM_data8, DW_FORM_string, DW_FORM_sec_offset = 1, 7, 8, 0x17
DW_FORM_GNU_strp_alt = 0x1F21


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def note(owner, ntype, desc):
    name = owner.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), ntype) + pad(name) + pad(desc)


def elf(etype, sections, phdrs_of=None):
    """An ELF64 x86-64 file: the header, program headers (phdrs_of(offsets) gives them), the
    sections (name, type, flags, data, link, info, align, entsize; link is a section name), in
    order, then .shstrtab and the section headers. Allocated sections have addresses equal to
    their file offsets (one PT_LOAD at 0)."""
    nph = 2 if phdrs_of else 0
    shstr = bytearray(b"\0")
    names = {}
    for s in sections + [(".shstrtab",)]:
        names[s[0]] = len(shstr)
        shstr += s[0].encode() + b"\0"
    body = bytearray(64 + 56 * nph)
    offs = {}
    for name, _t, _f, data, _l, _i, align, _e in sections:
        body += b"\0" * (-len(body) % align)
        offs[name] = len(body)
        body += data
    shstr_off = len(body)
    body += shstr
    body += b"\0" * (-len(body) % 8)
    shoff = len(body)
    index = {s[0]: i + 1 for i, s in enumerate(sections)}
    shdrs = bytes(64)
    for name, stype, flags, data, link, info, align, entsize in sections:
        addr = offs[name] if flags & SHF_ALLOC else 0
        shdrs += struct.pack("<IIQQQQIIQQ", names[name], stype, flags, addr, offs[name],
                             len(data), index.get(link, 0), info, align, entsize)
    shdrs += struct.pack("<IIQQQQIIQQ", names[".shstrtab"], SHT_STRTAB, 0, 0, shstr_off,
                         len(shstr), 0, 0, 1, 0)
    total = shoff + len(shdrs)
    shnum = len(sections) + 2
    body[0:64] = (b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) +
                  struct.pack("<HHIQQQIHHHHHH", etype, EM_X86_64, 1, 0, 64 if nph else 0,
                              shoff, 0, 64, 56, nph, 64, shnum, shnum - 1))
    if phdrs_of:
        body[64:64 + 56 * nph] = phdrs_of(offs, total)
    return bytes(body) + shdrs


def build_id_note(ident):
    return note("GNU", 3, ident)


def zeros_xz(mib):
    c = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0)
    chunk = bytes(1 << 20)
    return b"".join(c.compress(chunk) for _ in range(mib)) + c.flush()


def zeros_zlib(mib):
    c = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    return b"".join(c.compress(chunk) for _ in range(mib)) + c.flush()


def bomb_section(kind, mib):
    """The section of kind xz, zlib or zdebug: MIB MiB of zeros compressed."""
    if kind == "xz":
        return (".gnu_debugdata", SHT_PROGBITS, 0, zeros_xz(mib), "", 0, 1, 0)
    if kind == "zlib":
        chdr = struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, mib << 20, 1)  # Elf64_Chdr
        return (".debug_ranges", SHT_PROGBITS, SHF_COMPRESSED, chdr + zeros_zlib(mib), "", 0, 8,
                0)
    if kind == "zdebug":
        return (".zdebug_ranges", SHT_PROGBITS, 0,
                b"ZLIB" + struct.pack(">Q", mib << 20) + zeros_zlib(mib), "", 0, 1, 0)
    raise ValueError(kind)


def vdso_image(altlink, debuglink, dwo, extra=()):
    # hostile_fn, at the start of .text: nops and a ret
    text = b"\x90" * (FN_SIZE - 1) + b"\xc3"
    dynstr = b"\0hostile_fn\0"
    # the null symbol, then hostile_fn: STB_GLOBAL STT_FUNC, in section 2 (.text)
    dynsym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x12, 0, 2, FN_OFF, FN_SIZE)
    link = debuglink.encode() + b"\0"
    link += b"\0" * (-len(link) % 4) + struct.pack("<I", 0x12345678)

    abbrev = uleb(1) + uleb(DW_TAG_compile_unit) + b"\0"  # no children
    for at, form in ((DW_AT_name, DW_FORM_GNU_strp_alt), (DW_AT_comp_dir, DW_FORM_GNU_strp_alt),
                     (DW_AT_stmt_list, DW_FORM_sec_offset), (DW_AT_low_pc, DW_FORM_addr),
                     (DW_AT_high_pc, DW_FORM_data8), (DW_AT_GNU_dwo_name, DW_FORM_string),
                     (DW_AT_GNU_dwo_id, DW_FORM_data8)):
        abbrev += uleb(at) + uleb(form)
    abbrev += b"\0\0\0"
    die = uleb(1) + struct.pack("<IIIQQ", 9, 0, 0, FN_OFF, FN_SIZE) + dwo.encode() + b"\0"
    die += struct.pack("<Q", DWO_ID)
    unit = struct.pack("<HIB", 4, 0, 8) + die
    info = struct.pack("<I", len(unit)) + unit

    aranges = struct.pack("<HIBB", 2, 0, 8, 0) + bytes(4)  # tuples 16-byte aligned
    aranges += struct.pack("<QQQQ", FN_OFF, FN_SIZE, 0, 0)
    aranges = struct.pack("<I", len(aranges)) + aranges

    hdr = bytes([1, 1, 1, (-5) & 0xFF, 14, 13]) + bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])
    hdr += b"\0"                                         # no include directories
    hdr += b"hostile.c\0" + uleb(0) + uleb(0) + uleb(0) + b"\0"
    prog = b"\0" + uleb(9) + b"\x02" + struct.pack("<Q", FN_OFF)  # DW_LNE_set_address
    prog += b"\x03" + sleb(LINE - 1) + b"\x01"                     # advance_line, copy
    prog += b"\x02" + uleb(FN_SIZE) + b"\0\x01\x01"                # advance_pc, end_sequence
    line = struct.pack("<HI", 4, len(hdr)) + hdr + prog
    line = struct.pack("<I", len(line)) + line

    sections = [
        (".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, build_id_note(VDSO_ID), "", 0, 4, 0),
        (".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text, "", 0, FN_OFF, 0),
        (".dynsym", SHT_DYNSYM, SHF_ALLOC, dynsym, ".dynstr", 1, 8, 24),
        (".dynstr", SHT_STRTAB, SHF_ALLOC, dynstr, "", 0, 1, 0),
        (".gnu_debuglink", SHT_PROGBITS, 0, link, "", 0, 4, 0),
        (".debug_abbrev", SHT_PROGBITS, 0, abbrev, "", 0, 1, 0),
        (".debug_info", SHT_PROGBITS, 0, info, "", 0, 1, 0),
        (".debug_aranges", SHT_PROGBITS, 0, aranges, "", 0, 1, 0),
        (".debug_line", SHT_PROGBITS, 0, line, "", 0, 1, 0),
        (".debug_str", SHT_PROGBITS, 0, OWN_STR, "", 0, 1, 0),
        (".gnu_debugaltlink", SHT_PROGBITS, 0, altlink.encode() + b"\0" + ALT_ID, "", 0, 1, 0),
    ] + list(extra)

    def phdrs(offs, total):
        nt = offs[".note.gnu.build-id"]
        return (struct.pack("<IIQQQQQQ", PT_LOAD, PF_R | PF_X, 0, 0, 0, total, total, PAGE) +
                struct.pack("<IIQQQQQQ", PT_NOTE, PF_R, nt, nt, nt, 36, 36, 4))

    img = elf(ET_DYN, sections, phdrs)
    assert img[FN_OFF:FN_OFF + FN_SIZE] == text, "hostile_fn is not at FN_OFF"
    return img


def alt_file(ident):
    """A dwz-style supplementary file: a build-id, one empty partial unit, its strings."""
    abbrev = uleb(1) + uleb(DW_TAG_partial_unit) + b"\0" + b"\0\0" + b"\0"
    unit = struct.pack("<HIB", 4, 0, 8) + uleb(1)
    sections = [
        (".note.gnu.build-id", SHT_NOTE, 0, build_id_note(ident), "", 0, 4, 0),
        (".debug_abbrev", SHT_PROGBITS, 0, abbrev, "", 0, 1, 0),
        (".debug_info", SHT_PROGBITS, 0, struct.pack("<I", len(unit)) + unit, "", 0, 1, 0),
        (".debug_str", SHT_PROGBITS, 0, ALT_STR, "", 0, 1, 0),
    ]
    return elf(ET_DYN, sections)


def core(altlink, debuglink, dwo, extra=()):
    img = vdso_image(altlink, debuglink, dwo, extra)
    img += bytes(-len(img) % PAGE)
    prstatus = bytearray(336)
    struct.pack_into("<H", prstatus, 12, 11)                # pr_cursig: SIGSEGV
    struct.pack_into("<i", prstatus, 32, TID)               # pr_pid
    # user_regs_struct: rsp, rip, orig_rax (-1: not in a system call)
    regs = {19: STACK_AT + 0x800, 16: PC, 15: (1 << 64) - 1}
    for i, v in regs.items():
        struct.pack_into("<Q", prstatus, 112 + 8 * i, v)
    prpsinfo = bytearray(136)
    struct.pack_into("<i", prpsinfo, 24, TID)
    prpsinfo[40:47] = b"hostile"
    auxv = struct.pack("<QQQQ", 33, VDSO_AT, 0, 0)           # AT_SYSINFO_EHDR, AT_NULL
    notes = note("CORE", 1, bytes(prstatus)) + note("CORE", 3, bytes(prpsinfo))
    notes += note("CORE", 6, auxv)

    phnum = 3
    notes_off = 64 + phnum * 56
    vdso_off = (notes_off + len(notes) + PAGE - 1) & ~(PAGE - 1)
    stack_off = vdso_off + len(img)
    end = stack_off + PAGE
    ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr += struct.pack("<HHIQQQIHHHHHH", ET_CORE, EM_X86_64, 1, 0, 64, 0, 0, 64, 56, phnum, 0, 0,
                        0)
    phdrs = struct.pack("<IIQQQQQQ", PT_NOTE, 0, notes_off, 0, 0, len(notes), 0, 0)
    phdrs += struct.pack("<IIQQQQQQ", PT_LOAD, PF_R | PF_X, vdso_off, VDSO_AT, 0, len(img),
                         len(img), PAGE)
    phdrs += struct.pack("<IIQQQQQQ", PT_LOAD, PF_R | PF_W, stack_off, STACK_AT, 0, PAGE, PAGE,
                         PAGE)
    out = bytearray(end)
    out[0:64] = ehdr
    out[64:64 + len(phdrs)] = phdrs
    out[notes_off:notes_off + len(notes)] = notes
    out[vdso_off:vdso_off + len(img)] = img
    return bytes(out)


# The altlink, debuglink and dwo paths of the seed and the bombs.
NOWHERE = ("/nonexistent/gpucore-vdso/alt.debug", "/nonexistent/gpucore-vdso/link.debug",
           "/nonexistent/gpucore-vdso/split.dwo")


def alt_path():
    return "usr/lib/debug/.build-id/%02x/%s.debug" % (ALT_ID[0], ALT_ID[1:].hex())


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main(argv):
    if len(argv) == 6 and argv[1] == "core":
        write(argv[2], core(argv[3], argv[4], argv[5]))
    elif (len(argv) == 5 and argv[1] == "bomb" and argv[3] in ("xz", "zlib", "zdebug") and
          argv[4].isdigit()):
        write(argv[2], core(*NOWHERE, extra=[bomb_section(argv[3], int(argv[4]))]))
    elif len(argv) in (3, 4) and argv[1] == "alt" and argv[3:] in ([], ["other"]):
        path = os.path.join(argv[2], alt_path())
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write(path, alt_file(OTHER_ID if argv[3:] else ALT_ID))
        print(alt_path())
    elif len(argv) == 2 and os.path.isdir(argv[1]):
        write(os.path.join(argv[1], "vdso-altlink"), core(*NOWHERE))
        for kind in ("xz", "zlib"):
            write(os.path.join(argv[1], "vdso-" + kind),
                  core(*NOWHERE, extra=[bomb_section(kind, 1)]))
    else:
        sys.stderr.write("usage: mkhostile_vdso.py core OUT ALTLINK DEBUGLINK DWO\n"
                         "       mkhostile_vdso.py bomb OUT xz|zlib|zdebug MIB\n"
                         "       mkhostile_vdso.py alt SYSROOT [other]\n"
                         "       mkhostile_vdso.py SEED-DIR\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
