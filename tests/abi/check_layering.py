#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the dependency direction of docs/design.md on every #include (conventions G-LAY-1).

    check_layering.py SOURCE_DIR

Each header of the tree belongs to the module whose folder holds it. A source file of module M
may include a header of module N only if N is in ALLOWED[M]. The status type and its two
helpers (status.h, gc_util.h for the failure detail, gc_le.h for explicit little-endian access)
are the foundation every module may use. Prints one line per violation and exits 1, or exits 0.
"""
import os
import re
import sys

# Module of a folder (longest prefix wins).
MODULES = {
    "schema": "schema",
    "libcore": "libcore",
    "arch": "arch",
    "kfd": "kfd",
    "kfd/sim": "kfd/sim",
    "capture": "capture",
    "capture/hook": "capture/hook",
    "analyze": "analyze",
    "analyze/dbgapi": "analyze",
    "cli": "cli",
}

# Headers everyone may include: the status type and the helpers that come with it.
FOUNDATION = {"status.h", "gc_util.h", "gc_le.h"}

# Single headers a module may include besides ALLOWED: the ROCm runtime's tools interface,
# mirrored in schema/ (another program's ABI, like gc_rocr.h), which the simulated runtime of
# the inferior builds and the hook consumes.
EXTRA_HEADERS = {
    "kfd/sim": {"gc_hsa_tools.h"},
    "capture/hook": {"gc_hsa_tools.h"},
}

# Modules that may not even use the foundation: libgpucore-hook.so runs inside arbitrary
# programs and links nothing of gpucore (libc only).
NO_FOUNDATION = {"capture/hook"}

# docs/design.md, "Components and their direction of dependency".
ALLOWED = {
    "schema": {"schema"},
    "libcore": {"libcore", "schema"},
    "arch": {"arch"},
    # kfd depends on nothing of ours but the status type; its sim client speaks kfd/sim's
    # wire protocol.
    "kfd": {"kfd", "kfd/sim"},
    # the simulated driver and the inferior: the kfd uapi and arch's CWSR encoder
    "kfd/sim": {"kfd/sim", "kfd", "arch"},
    "capture": {"capture", "kfd", "libcore", "schema", "arch"},
    "capture/hook": {"capture/hook"},
    "analyze": {"analyze", "libcore", "schema", "arch"},
    # The program is thin: capture and analyze (and the container and format they return).
    # What `gpucore analyze` shows is built in analyze/ (triage.h); cli/ only renders it.
    "cli": {"cli", "capture", "analyze", "libcore", "schema"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def module_of(rel):
    best = None
    for prefix, mod in MODULES.items():
        if rel == prefix or rel.startswith(prefix + "/"):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, mod)
    return best[1] if best else None


def main():
    root = os.path.abspath(sys.argv[1])
    owner = {}  # header base name -> module
    sources = []
    for folder in MODULES:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                mod = module_of(rel)
                if mod is None:
                    continue
                if f.endswith(".h") and f not in FOUNDATION:
                    prev = owner.setdefault(f, mod)
                    if prev != mod:
                        print(f"{rel}: header name also used by module {prev} "
                              f"(file names are unique across the tree, G-LAY-2)")
                        return 1
                if f.endswith((".c", ".h")):
                    sources.append((rel, mod))
    bad = 0
    for rel, mod in sorted(sources):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for m in INCLUDE.finditer(text):
            name = os.path.basename(m.group(1))
            target = owner.get(name)
            if name in FOUNDATION and mod in NO_FOUNDATION:
                target = "the foundation"
            elif target is None or target in ALLOWED[mod] or name in EXTRA_HEADERS.get(mod, ()):
                continue
            line = text.count("\n", 0, m.start()) + 1
            print(f"{rel}:{line}: module {mod} includes {m.group(1)} of module {target}, "
                  f"which docs/design.md does not let it use")
            bad += 1
    if bad:
        print(f"{bad} include(s) break the dependency direction")
        return 1
    print(f"{len(sources)} files follow the dependency direction")
    return 0


if __name__ == "__main__":
    sys.exit(main())
