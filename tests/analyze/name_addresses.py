#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Name the addresses of a report that differ from run to run, for its golden comparison.

    name_addresses.py SCENARIO DESCRIBE <REPORT >NORMALISED

gpucore-inferior lays a scenario out at the same place relative to a few bases that the system
chooses anew each run (kfd/sim/layout.c): the simulated device's address space is an mmap
reservation (ASLR: every buffer without a fixed address moves with it), and a code object is
loaded into host memory. DESCRIBE is what the inferior wrote with --describe (its own addresses,
"buffer I ADDRESS SIZE", "code_object I load ADDRESS image ADDRESS size N ..."). Each of these
addresses in the report becomes its name, an address inside one its name and offset:

    <buffer a>, <buffer a>+0x40     a device buffer (the scenario's "buffers", by name)
    <code object vadd>              where a code object is loaded (its "code_objects" name)
    <code object vadd image>        the code object's ELF image (a memory:// URI's offset)

Every other number stays as it is: an address the scenario fixes (an exception's address, a
kernel argument's value) is the same on every run, and a wrong one must fail the golden.
"""
import json
import re
import sys


def regions(scenario, describe):
    """(base, size, name) of every address the run chose, from the describe file."""
    buffers = [b["name"] for b in scenario.get("buffers", [])]
    objects = [c["name"] for c in scenario.get("code_objects", [])]
    out = []
    for line in describe:
        w = line.split()
        if len(w) >= 4 and w[0] == "buffer":
            out.append((int(w[2], 16), int(w[3]), "buffer " + buffers[int(w[1])]))
        elif len(w) >= 8 and w[0] == "code_object" and w[2] == "load" and w[4] == "image":
            name = "code object " + objects[int(w[1])]
            # The loaded code object's extent is not described: its base alone is named.
            out.append((int(w[3], 16), 1, name))
            out.append((int(w[5], 16), int(w[7]), name + " image"))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: name_addresses.py SCENARIO DESCRIBE <REPORT")
    with open(sys.argv[1]) as f:
        scenario = json.load(f)
    with open(sys.argv[2]) as f:
        known = regions(scenario, f)

    def name(m):
        value = int(m.group(0), 16)
        for base, size, what in known:
            if value == base:
                return "<%s>" % what
            if base < value < base + size:
                return "<%s>+0x%x" % (what, value - base)
        return m.group(0)

    for line in sys.stdin:
        sys.stdout.write(re.sub(r"0x[0-9a-f]+", name, line))


if __name__ == "__main__":
    main()
