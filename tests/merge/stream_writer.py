#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a core into stdout as the ROCm runtime writes into its HSA_COREDUMP_PATTERN pipe
(tests/merge/ingest_e2e.sh).

    stream_writer.py copy FILE [--chunk N] [--sleep S] [--kill-at BYTES]
    stream_writer.py huge FILE SIZE [--random] [--first] [--count OUT]

copy   FILE's bytes in chunks of N bytes (default 1 MiB), sleeping S seconds after each (a
       slow writer); with --kill-at, the process kills itself with SIGKILL once BYTES were
       written (a writer killed mid-stream).
huge   a valid core made on the fly: FILE's ELF header, notes and PT_LOADs (the runtime's
       split file, or the kernel's host core), plus one more PT_LOAD of SIZE bytes (a number
       of GiB, or with a K, M or G suffix) of zeros at an address above them (below 2^47),
       as the last segment. --random: the segment holds a random 1 MiB block over and over
       (no compressor's frame of at most 1 MiB shrinks it), not zeros; --first: its data
       comes first in the stream, before FILE's segments' (its address stays above them).
       --count OUT: the bytes written, written to OUT at the end (also after EPIPE). Nothing
       is held in memory but FILE and one 1 MiB buffer.

Exit status: 0 when everything was written, 3 when the reader closed the pipe early (EPIPE;
the message "EPIPE after N bytes" on stderr), 2 usage.
"""
import os
import signal
import struct
import sys
import time

PT_LOAD, PT_NOTE = 1, 4


def write_all(fd, data, state):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        state["written"] += n
        view = view[n:]


def phdrs(data):
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    return [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]


def copy(args, state):
    chunk, pause, kill_at = 1 << 20, 0.0, None
    path = args[0]
    i = 1
    while i < len(args):
        if args[i] == "--chunk":
            chunk = int(args[i + 1])
        elif args[i] == "--sleep":
            pause = float(args[i + 1])
        elif args[i] == "--kill-at":
            kill_at = int(args[i + 1])
        else:
            raise SystemExit(2)
        i += 2
    with open(path, "rb") as f:
        while True:
            want = chunk
            if kill_at is not None:
                want = min(want, kill_at - state["written"])
                if want <= 0:
                    os.kill(os.getpid(), signal.SIGKILL)
            block = f.read(want)
            if not block:
                return
            write_all(1, block, state)
            if pause:
                time.sleep(pause)


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text) << 30


def huge(args, state):
    path, big_size = args[0], parse_size(args[1])
    rand, first = "--random" in args[2:], "--first" in args[2:]
    if "--count" in args:
        state["count"] = args[args.index("--count") + 1]
    data = open(path, "rb").read()
    ph = phdrs(data)
    # above every user-space PT_LOAD (a host core's [vsyscall] is at the top of the space)
    top = max(p[3] + p[6] for p in ph if p[0] == PT_LOAD and p[3] < 1 << 47)
    big_vaddr = (top + (1 << 30)) & ~((1 << 30) - 1)
    # The same segments, laid out again after a table one entry longer; the new one last in
    # the stream, or first.
    n = len(ph) + 1
    pos = 64 + 56 * n
    layout = []
    if first:
        layout.append((PT_LOAD, 3, pos, big_vaddr, 0, big_size, big_size, 4, None))
        pos += big_size
    for p_type, flags, off, vaddr, paddr, filesz, memsz, align in ph:
        pos = (pos + 15) & ~15
        layout.append((p_type, flags, pos, vaddr, paddr, filesz, memsz, align, off))
        pos += filesz
    if not first:
        pos = (pos + 15) & ~15
        layout.append((PT_LOAD, 3, pos, big_vaddr, 0, big_size, big_size, 4, None))
    head = bytearray(data[0:64])
    struct.pack_into("<H", head, 56, n)
    struct.pack_into("<Q", head, 32, 64)
    for seg in layout:
        head += struct.pack("<IIQQQQQQ", *seg[:8])
    write_all(1, head, state)
    for p_type, flags, off, vaddr, paddr, filesz, memsz, align, src in layout:
        if state["written"] < off:
            write_all(1, bytes(off - state["written"]), state)
        if src is not None:
            write_all(1, data[src:src + filesz], state)
            continue
        block = os.urandom(1 << 20) if rand else bytes(1 << 20)
        left = filesz
        while left:
            k = min(left, len(block))
            write_all(1, block if k == len(block) else block[:k], state)
            left -= k


def main(argv):
    state = {"written": 0}
    if len(argv) < 3 or argv[1] not in ("copy", "huge"):
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    # EPIPE as an error (BrokenPipeError), not a signal: the test wants to see it.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    rc = 0
    try:
        (copy if argv[1] == "copy" else huge)(argv[2:], state)
    except BrokenPipeError:
        print("EPIPE after %d bytes" % state["written"], file=sys.stderr)
        rc = 3
    if "count" in state:
        with open(state["count"], "w") as f:
            f.write("%d\n" % state["written"])
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
