#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a core into stdout as the ROCm runtime writes into its HSA_COREDUMP_PATTERN pipe
(tests/merge/ingest_e2e.sh).

    stream_writer.py copy FILE [--chunk N] [--sleep S] [--kill-at BYTES]
    stream_writer.py huge GPUFILE GIB

copy   FILE's bytes in chunks of N bytes (default 1 MiB), sleeping S seconds after each (a
       slow writer); with --kill-at, the process kills itself with SIGKILL once BYTES were
       written (a writer killed mid-stream).
huge   a valid GPU-only core made on the fly: GPUFILE's ELF header, AMDGPU note and PT_LOADs
       (the runtime's split file), plus one more PT_LOAD of GIB GiB of zeros at an address
       above them, as the last segment. Nothing is held in memory but one 1 MiB buffer.

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


def huge(args, state):
    path, gib = args[0], int(args[1])
    data = open(path, "rb").read()
    ph = phdrs(data)
    top = max(p[3] + p[6] for p in ph if p[0] == PT_LOAD)
    big_vaddr = (top + (1 << 30)) & ~((1 << 30) - 1)
    big_size = gib << 30
    # The same segments, laid out again after a table one entry longer.
    n = len(ph) + 1
    pos = 64 + 56 * n
    layout = []
    for p_type, flags, off, vaddr, paddr, filesz, memsz, align in ph:
        pos = (pos + 15) & ~15
        layout.append((p_type, flags, pos, vaddr, paddr, filesz, memsz, align, off))
        pos += filesz
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
        zeros = bytes(1 << 20)
        left = filesz
        while left:
            k = min(left, len(zeros))
            write_all(1, zeros if k == len(zeros) else zeros[:k], state)
            left -= k


def main(argv):
    state = {"written": 0}
    if len(argv) < 3 or argv[1] not in ("copy", "huge"):
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    # EPIPE as an error (BrokenPipeError), not a signal: the test wants to see it.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    try:
        (copy if argv[1] == "copy" else huge)(argv[2:], state)
    except BrokenPipeError:
        print("EPIPE after %d bytes" % state["written"], file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
