#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The members of `gpucore analyze`'s documents that are read back are named once.

    check_triage_keys.py SOURCE_DIR

analyze/triage_keys.h defines GC_TK_<NAME> "<name>" for every member a renderer, the exit code
or a builder reads back. This check fails (exit 1, one line per finding) when a reader of a
document (cli/analyze_render.c, cli/cmd_analyze.c, analyze/triage*.c, analyze/host_stack.c)
reads a member by a string literal, or when a GC_TK_ name and its value disagree.
"""
import os
import re
import sys

READERS = {"json_object_get", "gc_json_get_u64", "gc_json_get_str", "gc_json_get_str_or",
           "gc_json_get_bool"}
FILES = ["cli/analyze_render.c", "cli/cmd_analyze.c", "analyze/triage_common.c",
         "analyze/triage_report.c", "analyze/triage_views.c", "analyze/triage_signature.c",
         "analyze/triage_candidates.c", "analyze/triage_args.c", "analyze/host_stack.c"]


def literal_reads(src):
    """(line, function, key) of every READERS call whose second argument is a literal."""
    for m in re.finditer(r'"([^"\\]*)"', src):
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


def main():
    root = sys.argv[1]
    bad = 0
    keys = open(os.path.join(root, "analyze/triage_keys.h"), encoding="utf-8").read()
    defs = re.findall(r'^#define GC_TK_([A-Z0-9_]+) "([a-z0-9_]+)"$', keys, re.M)
    for name, value in defs:
        if name.lower() != value:
            print(f"analyze/triage_keys.h: GC_TK_{name} is \"{value}\"")
            bad += 1
    if len({n for n, _ in defs}) != len(defs):
        print("analyze/triage_keys.h: a GC_TK_ name is defined twice")
        bad += 1
    for rel in FILES:
        src = open(os.path.join(root, rel), encoding="utf-8").read()
        for line, fn, key in literal_reads(src):
            print(f"{rel}:{line}: {fn}() reads member \"{key}\" by a literal: name it in "
                  f"analyze/triage_keys.h (GC_TK_{key.upper()})")
            bad += 1
    if bad:
        return 1
    print(f"{len(defs)} member names, no literal read in {len(FILES)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
