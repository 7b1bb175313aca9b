#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that every layout of another program's structure is spelled in one home only.

    check_layout_homes.py SOURCE_DIR

A structure gpucore reads from hostile bytes or writes for another program (ROCr's amd_queue_t,
glibc's r_debug and link_map, the driver's queue id) has one decoder and one set of named offsets, in its home file
(schema/gc_rocr.h and schema/rocr.c); every reader and writer uses them. A second copy drifts:
the offsets of amd_queue_t were once written in four places. Each row of HOMES is one rule,
reported as "file:line: [rule] what":

  amdq-define  no #define of an amd_queue_t constant (a name holding AMDQ or AMD_QUEUE) but in
               the home: use GC_ROCR_AMDQ_* of schema/gc_rocr.h.
  amdq-offset  no numeric offset added to an amd_queue_t buffer or address (`aq + 140`,
               `amd_queue + 56`): use the GC_ROCR_AMDQ_* constant, or decode it whole with
               gc_rocr_amd_queue_decode().
  amdq-rptr    no bare 128 added to or taken from a read pointer (`read_pointer_address - 128`,
               `rptr - 128`): gc_rocr_amd_queue_at() finds the amd_queue_t.
  amdq-lines   no bare "256 + 64" or "~63" on a line about a read pointer or an amd_queue_t:
               gc_rocr_amd_queue_lines() gives its whole 64-byte lines.
  rdebug-size  no bare 40 (the size of glibc's r_debug and link_map) on a line about them:
               GC_ROCR_R_DEBUG_SIZE, GC_ROCR_LINK_MAP_SIZE.
  rdebug-offset  no numeric offset added to an r_debug or link_map (`r_debug + 8`): decode it
               with gc_rocr_r_debug_decode() or gc_rocr_link_map_decode().
  queue-id-mask  the KFD queue id's mask (0x3fffffff) is written on a line about a queue only in
               kfd/kfd.h (the uapi side) and schema's gpucore/schema.h (the note side, checked
               equal at compile time): use GC_KFD_QUEUE_ID_MASK or GPUCORE_KFD_QUEUE_ID_MASK.

Only code counts (comments are ignored; the file list and comment stripping are
check_layering.py's). tests/ and bench/ are exempt: a test lays out its hostile bytes by hand
on purpose, so that a wrong constant in the home fails it. Prints one line per violation and
exits 1, or a summary and exits 0.
"""
import importlib.util
import os
import re
import sys

ROCR_HOME = {"schema/gc_rocr.h", "schema/rocr.c"}
QUEUE_ID_HOME = {"kfd/kfd.h", "schema/include/gpucore/schema.h"}

# Folders whose files are exempt from every rule (see the docstring).
EXEMPT = ("tests/", "bench/")

# (rule, what it means, the pattern on one line of code, the pattern that line must also match
# (None: any line), the files allowed to hold it)
HOMES = [
    ("amdq-define", "defines an amd_queue_t constant; use GC_ROCR_AMDQ_* of schema/gc_rocr.h",
     re.compile(r"^[ \t]*#[ \t]*define[ \t]+\w*(?:AMDQ|AMD_QUEUE)\w*"), None, ROCR_HOME),
    ("amdq-offset", "adds a numeric offset to an amd_queue_t; use GC_ROCR_AMDQ_* or "
     "gc_rocr_amd_queue_decode()",
     re.compile(r"\b(?:aq|amdq|amd_queue)\s*\+\s*(?:0x[0-9a-fA-F]+|\d+)\b"), None, ROCR_HOME),
    ("amdq-rptr", "offsets a read pointer by a bare 128; use gc_rocr_amd_queue_at()",
     re.compile(r"[-+]\s*128u?\b"),
     re.compile(r"read_pointer|rptr|read_dispatch", re.I), ROCR_HOME),
    ("amdq-lines", "rounds an amd_queue_t by hand; use gc_rocr_amd_queue_lines()",
     re.compile(r"\b256u?\s*\+\s*64u?\b|~\s*63"),
     re.compile(r"read_pointer|rptr|amd_queue|amdq", re.I), ROCR_HOME),
    ("rdebug-size", "spells the size of r_debug or link_map; use GC_ROCR_R_DEBUG_SIZE or "
     "GC_ROCR_LINK_MAP_SIZE",
     re.compile(r"\b40u?\b"), re.compile(r"r_debug|link_map", re.I), ROCR_HOME),
    ("rdebug-offset", "adds a numeric offset to an r_debug or link_map; use "
     "gc_rocr_r_debug_decode() or gc_rocr_link_map_decode()",
     re.compile(r"\b(?:r_debug|r_map|link_map|l_next)\s*\+\s*(?:0x[0-9a-fA-F]+|\d+)\b"),
     None, ROCR_HOME),
    ("queue-id-mask", "spells the KFD queue id's mask; use GC_KFD_QUEUE_ID_MASK (kfd) or "
     "GPUCORE_KFD_QUEUE_ID_MASK (the note)",
     re.compile(r"\b0x3fffffffu?\b", re.I), re.compile(r"queue", re.I), QUEUE_ID_HOME),
]


def load_layering():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")
    spec = importlib.util.spec_from_file_location("check_layering", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(root):
    """(violation lines, number of files checked) for the tree at root."""
    layering = load_layering()
    out, nfiles = [], 0
    for rel in layering.candidate_files(root):
        if not rel.endswith(layering.SOURCE_EXT) or rel.startswith(EXEMPT):
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                code = layering.strip(fh.read())[0]
        except OSError as e:
            out.append(f"{rel}: cannot read: {e.strerror}")
            continue
        nfiles += 1
        for lineno, line in enumerate(code.split("\n"), 1):
            for rule, what, pattern, context, homes in HOMES:
                if rel in homes or not pattern.search(line):
                    continue
                if context and not context.search(line):
                    continue
                out.append(f"{rel}:{lineno}: [{rule}] {what}")
    return out, nfiles


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_layout_homes.py SOURCE_DIR", file=sys.stderr)
        return 2
    out, nfiles = check(os.path.abspath(argv[1]))
    for line in out:
        print(line)
    if out:
        print(f"{len(out)} layout constant(s) outside their home")
        return 1
    print(f"{nfiles} files spell no layout outside its home")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
