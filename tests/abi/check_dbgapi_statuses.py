#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The statuses of each amd-dbgapi function: header documentation vs statuses.def.

libgpucore-dbgapi refuses, at run time, to return a status its function's row of
dbgapi/statuses.def does not list (dbgapi.c, gc_dbg_ret). The rows must therefore be
exactly the "Returns:" paragraphs of dbgapi/include/amd-dbgapi/amd-dbgapi.h, which is
what clients read. This checks, for every function the header declares:

  * its documentation comment has a "Returns:" paragraph naming statuses that exist;
  * statuses.def has one row for it, with the same set;
  * statuses.def has no row for a function the header does not declare.

  check_dbgapi_statuses.py SOURCE_DIR
"""
import re
import sys

STATUS_ENUM = re.compile(r"AMD_DBGAPI_STATUS_([A-Z_]+)\s*=\s*(-?\d+)")
DECL = re.compile(r"/\*\*((?:(?!\*/).)*)\*/\s*amd_dbgapi_status_t\s+AMD_DBGAPI\s+(amd_dbgapi_\w+)\s*\(",
                  re.S)
ROW = re.compile(r"^GC_DBGAPI_STATUSES\((amd_dbgapi_\w+),\s*(.*)\)\s*$")


def strip_parens(text):
    """Drop parenthesised asides (nested), which may name statuses in passing."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def documented(comment, fn, known, errors):
    text = re.sub(r"^[ \t]*\*[ \t]?", "", comment, flags=re.M)
    at = text.find("Returns:")
    if at < 0:
        errors.append(f"{fn}: no 'Returns:' paragraph in its documentation")
        return set()
    para = text[at + len("Returns:"):].split("\n\n")[0]
    names = set()
    for item in re.split(r"[;.]", strip_parens(para)):
        words = item.split()
        if not words:
            continue
        name = words[0].rstrip(",")
        if not re.fullmatch(r"[A-Z][A-Z_]+", name):
            errors.append(f"{fn}: 'Returns:' item {item.strip()!r} does not start with a status")
            continue
        if name not in known:
            errors.append(f"{fn}: 'Returns:' names {name}, which is not a status")
            continue
        names.add(name)
    return names


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    src = argv[1]
    header = open(f"{src}/dbgapi/include/amd-dbgapi/amd-dbgapi.h").read()
    table = open(f"{src}/dbgapi/statuses.def").read().splitlines()
    known = {m.group(1) for m in STATUS_ENUM.finditer(header)}
    errors = []

    doc = {}
    for m in DECL.finditer(header):
        doc[m.group(2)] = documented(m.group(1), m.group(2), known, errors)
    declared = set(re.findall(r"\b(amd_dbgapi_\w+)\s*\([^;]*\)\s*AMD_DBGAPI_VERSION_\d+_\d+\s*;",
                              header))
    for fn in sorted(declared - set(doc)):
        # Functions returning a status must carry documentation right above them.
        if re.search(r"amd_dbgapi_status_t\s+AMD_DBGAPI\s+" + fn + r"\s*\(", header):
            errors.append(f"{fn}: returns a status but has no documentation comment above it")

    rows = {}
    for lineno, line in enumerate(table, 1):
        if not line.startswith("GC_DBGAPI_STATUSES("):
            continue
        m = ROW.match(line)
        if not m:
            errors.append(f"statuses.def:{lineno}: not GC_DBGAPI_STATUSES(name, S(x) | ...)")
            continue
        fn, body = m.groups()
        names = re.findall(r"S\((\w+)\)", body)
        if re.sub(r"S\(\w+\)|\s|\|", "", body):
            errors.append(f"statuses.def:{lineno}: {fn}: the set is not only S(x) | S(y) ...")
        if fn in rows:
            errors.append(f"statuses.def:{lineno}: a second row for {fn}")
        for n in names:
            if n not in known:
                errors.append(f"statuses.def:{lineno}: {fn}: {n} is not a status")
        rows[fn] = set(names)

    for fn in sorted(set(doc) | set(rows)):
        if fn not in rows:
            errors.append(f"{fn}: documented, but statuses.def has no row")
        elif fn not in doc:
            errors.append(f"{fn}: statuses.def has a row, but the header declares no such "
                          "documented function")
        elif doc[fn] != rows[fn]:
            extra = ", ".join(sorted(rows[fn] - doc[fn])) or "-"
            missing = ", ".join(sorted(doc[fn] - rows[fn])) or "-"
            errors.append(f"{fn}: statuses.def adds {extra}; misses {missing}")

    if errors:
        for e in errors:
            print("FAIL:", e)
        return 1
    print(f"dbgapi statuses ok: {len(rows)} functions, header and statuses.def agree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
