#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The members of the program's documents that are read back are named once.

    check_document_keys.py SOURCE_DIR

analyze/triage_keys.h defines GC_TK_<NAME> "<name>" for every member of `gpucore analyze`'s
documents that a renderer, the exit code or a builder reads back; analyze/info_keys.h defines
GC_IK_<NAME> likewise for `gpucore info`'s. This check fails (exit 1, one line per finding)
when a reader of a document (DOCUMENTS below) reads a member by a string literal, or when a
name and its value disagree.
"""
import os
import re
import sys

READERS = {"json_object_get", "gc_json_get_u64", "gc_json_get_str", "gc_json_get_str_or",
           "gc_json_get_bool"}
# header, prefix of its names, the files that build or read its documents
DOCUMENTS = [
    ("analyze/triage_keys.h", "GC_TK_",
     ["cli/analyze_render.c", "cli/cmd_analyze.c", "analyze/triage_common.c",
      "analyze/triage_report.c", "analyze/triage_views.c", "analyze/triage_signature.c",
      "analyze/triage_candidates.c", "analyze/triage_args.c", "analyze/host_stack.c"]),
    ("analyze/info_keys.h", "GC_IK_", ["cli/cmd_info.c", "analyze/info_model.c"]),
    ("analyze/job_keys.h", "GC_JK_", ["cli/cmd_job.c", "analyze/job.c"]),
]


def literal_reads(src):
    """(line, function, key) of every READERS call whose second argument is a literal."""
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', src):
        i, depth, commas = m.start() - 1, 0, 0
        while i >= 0:
            c = src[i]
            if c in ")]}":
                depth += 1
            elif c in "([{":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                commas += 1
            elif c == ";" and depth == 0:
                i = -1
                break
            i -= 1
        if i < 0 or commas != 1:
            continue
        j = i
        while j > 0 and (src[j - 1].isalnum() or src[j - 1] == "_"):
            j -= 1
        if src[j:i] in READERS:
            yield src.count("\n", 0, m.start()) + 1, src[j:i], m.group(1)


def check(root, header, prefix, files):
    """The number of findings, each printed."""
    bad = 0
    keys = open(os.path.join(root, header), encoding="utf-8").read()
    defs = re.findall(r'^#define ' + prefix + r'([A-Z0-9_]+) +"([a-z0-9_]+)"$', keys, re.M)
    for name, value in defs:
        if name.lower() != value:
            print(f"{header}: {prefix}{name} is \"{value}\"")
            bad += 1
    if len({n for n, _ in defs}) != len(defs):
        print(f"{header}: a {prefix} name is defined twice")
        bad += 1
    for rel in files:
        src = open(os.path.join(root, rel), encoding="utf-8").read()
        for line, fn, key in literal_reads(src):
            print(f"{rel}:{line}: {fn}() reads member \"{key}\" by a literal: name it in "
                  f"{header} ({prefix}{key.upper()})")
            bad += 1
    if not bad:
        print(f"{header}: {len(defs)} member names, no literal read in {len(files)} files")
    return bad


def main():
    bad = sum(check(sys.argv[1], *doc) for doc in DOCUMENTS)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
