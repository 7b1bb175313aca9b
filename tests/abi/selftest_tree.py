# SPDX-License-Identifier: MIT
"""What the self-tests of the tree checkers share (test_check_layering.py,
test_check_layout_homes.py): load a checker as a module, plant a small source tree, run the
checker on it, and compare the violations it reports ("file:line: [rule] ...") with the ones
planted. Not a test itself."""
import importlib.util
import os
import re
import subprocess
import sys

REPORT = re.compile(r"^(\S+?):(\d+): \[([\w-]+)\] ")


def load(path, name):
    """The checker at @path as a module (its tables: MODULES, DEFS, HOMES ...)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def run(checker, root):
    """(exit status, stdout + stderr) of the checker on the tree at @root."""
    p = subprocess.run([sys.executable, checker, root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def compare(out, violations):
    """The differences between what the checker printed (@out) and @violations, a list of
    (file, text, rule, line): one line per violation not reported or reported but not planted."""
    got = set()
    for line in out.splitlines():
        m = REPORT.match(line)
        if m:
            got.add((m.group(1), int(m.group(2)), m.group(3)))
    want = {(rel, line, rule) for rel, _, rule, line in violations}
    return ([f"not reported: {w[0]}:{w[1]}: [{w[2]}]" for w in sorted(want - got)] +
            [f"reported but not planted: {g[0]}:{g[1]}: [{g[2]}]" for g in sorted(got - want)])
