#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A copy of a kernel's host core whose NT_PRPSINFO says another user's process (tests of
root's store sharing a user's crash, and of the fleet index's rows by user).

    set_prpsinfo_uid.py HOST_CORE OUT UID

OUT is HOST_CORE with pr_uid (offset 16 of the x86-64 elf_prpsinfo of every "CORE" note of
type 3) set to UID.
"""
import struct
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    d = bytearray(open(argv[1], "rb").read())
    phoff, = struct.unpack_from("<Q", d, 32)
    n, = struct.unpack_from("<H", d, 56)
    for i in range(n):
        t, _, off, _, _, fs, _, _ = struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)
        p = off
        while t == 4 and p < off + fs:
            nsz, dsz, typ = struct.unpack_from("<III", d, p)
            desc = p + 12 + ((nsz + 3) & ~3)
            if typ == 3 and d[p + 12:p + 16] == b"CORE":
                struct.pack_into("<I", d, desc + 16, int(argv[3]))
            p = desc + ((dsz + 3) & ~3)
    open(argv[2], "wb").write(d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
