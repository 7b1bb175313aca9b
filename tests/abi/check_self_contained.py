#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that no file of the repository names a path of the machine it was written on.

    check_self_contained.py SOURCE_DIR     check the tracked files (git ls-files), or every file
                                           under SOURCE_DIR when it is not a git checkout
    check_self_contained.py --self-test    check that the checker finds what it must find

A clone of this repository must stand alone: comments, docs and test data may not point at a
developer's home, a build tree under a work directory, or specification files kept beside the
repository. Binary files are scanned too (fuzz seeds are cores written on some machine and carry
its paths). Exit 0 if clean, 1 with one line per finding (file:line: the path) otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

# What no file may contain. Spelled in pieces so this file does not match itself.
FORBIDDEN = [
    ("/" + "work/", "a work directory of a development machine"),
    ("/" + "home/", "a user's home directory"),
    ("/" + "root/", "root's home directory"),
    ("../" + "shared", "files kept beside the repository, not in it"),
    ("shared/" + "spec/", "specification files kept beside the repository (see docs/)"),
    ("/" + "tmp/", "a temporary build path"),
]

# Explicit exceptions: (file, forbidden string, reason). Only /tmp is ever excepted, and only
# where the text is not a path of a machine but a template or an example the test spells out.
ALLOWED = [
    ("tests/unit/test_capture_path.c", "/" + "tmp/",
     "an -o pattern example expanded by the test itself"),
    ("tests/unit/test_host_stack.c", "/" + "tmp/", "a mkdtemp() template"),
    ("tests/unit/test_kfd_linux.c", "/" + "tmp/", "mkstemp() templates"),
    ("tests/unit/test_scenario.c", "/" + "tmp/",
     "a code-object path inside a scenario the test parses"),
    ("tests/fuzz/corpus/fuzz_rocr/uri-file-percent", "/" + "tmp/",
     "a crafted file:// URI with percent escapes"),
]

SKIP_DIRS = {".git"}


def tracked_files(src):
    """Tracked files of a git checkout, or None if SOURCE_DIR is not one."""
    if not os.path.exists(os.path.join(src, ".git")):
        return None
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def walked_files(src):
    files = []
    for root, dirs, names in os.walk(src):
        # build trees (build, build-asan, ...) are outputs, not sources
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for n in sorted(names):
            files.append(os.path.relpath(os.path.join(root, n), src))
    return files


def check(src, files):
    me = os.path.relpath(os.path.abspath(__file__), os.path.abspath(src))
    findings = []
    for rel in files:
        if rel == me:
            continue
        path = os.path.join(src, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        for needle, why in FORBIDDEN:
            if any(rel == a and needle == n for a, n, _ in ALLOWED):
                continue
            # an absolute path only: "${CMAKE_CURRENT_BINARY_DIR}/tmp/x" or "a/tmp/" are not one
            lead = rb"(?<![\w}).-])" if needle.startswith("/") else b""
            for m in re.finditer(lead + re.escape(needle.encode()), data):
                line = data.count(b"\n", 0, m.start()) + 1
                end = m.start()
                while end < len(data) and end - m.start() < 60 and 0x20 < data[end] < 0x7f:
                    end += 1
                shown = data[m.start():end].decode("ascii", "replace")
                findings.append(f"{rel}:{line}: {shown} ({why})")
    return findings


def run(src):
    files = tracked_files(src)
    if files is None:
        files = walked_files(src)
    findings = check(src, files)
    for f in findings:
        print(f)
    if findings:
        print(f"{len(findings)} machine path(s) found; replace them with paths of the repository "
              "(docs/...) or neutral ones (/build/...), or add a reasoned exception to ALLOWED in "
              "tests/abi/check_self_contained.py")
        return 1
    print(f"{len(files)} files checked, no machine paths")
    return 0


def self_test():
    """The checker must find a path in a text file and in a binary file, skip build trees, and
    honour exactly the exceptions listed."""
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        def put(rel, data):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        put("src/a.c", b"/* see " + b"../" + b"shared/x.md */\n")
        put("tests/fuzz/corpus/x/seed", b"\x7fELF\0\0" + b"/" + b"work/build/x\0\1\2")
        put("tests/unit/test_kfd_linux.c", b'char p[] = "/' + b'tmp/x-XXXXXX";\n')
        put("tests/unit/other.c", b'char p[] = "/' + b'tmp/x-XXXXXX";\n')
        put("build-asan/generated.h", b"/" + b"home/someone\n")
        put("docs/ok.md", b"see docs/core-format.md\n")
        put("tests/x.cmake", b"set(W ${CMAKE_CURRENT_BINARY_DIR}/" + b"tmp/interop)\n")
        found = check(d, walked_files(d))
        want = {"src/a.c:1", "tests/fuzz/corpus/x/seed:1", "tests/unit/other.c:1"}
        got = {":".join(f.split(":")[:2]) for f in found}
        if got != want:
            print(f"self-test: found {sorted(got)}, expected {sorted(want)}")
            bad = 1
    if not bad:
        print("self-test: text, binary and exception cases behave")
    return bad


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print("usage: check_self_contained.py SOURCE_DIR | --self-test", file=sys.stderr)
        return 2
    return run(sys.argv[1])


if __name__ == "__main__":
    sys.exit(main())
