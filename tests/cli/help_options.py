#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The help texts and the README say what the program takes.

usage: help_options.py GPUCORE README.md WORKDIR

1. Every subcommand `gpucore --help` lists is run with `--help`; each long option that text
   lists (in its usage lines and its option list) must be accepted by that subcommand: either
   `SUB --OPT` or `SUB --OPT=1` must answer otherwise than an option the program does not have
   (`SUB --no-such-option-zz`, `=1`, with the option's name put in). No operand is given, so nothing is
   opened or started.
2. Each long option the README gives a subcommand (in its ```sh blocks, before `--` and `#`,
   and in the option table of run/watch/capture) must appear in that subcommand's `--help`.
"""
import os
import re
import subprocess
import sys

OPT = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")
BOGUS = "no-such-option-zz"


def run(gpucore, args, cwd):
    env = dict(os.environ)
    env.pop("GPUCORE_KFD", None)
    p = subprocess.run([gpucore] + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def subcommands(gpucore, cwd):
    rc, out, _ = run(gpucore, ["--help"], cwd)
    assert rc == 0, "gpucore --help exited %d" % rc
    subs, inside = [], False
    for line in out.splitlines():
        if line.startswith("Commands:"):
            inside = True
            continue
        if inside:
            m = re.match(r"  ([a-z][a-z-]*) ", line)
            if not m:
                break
            subs.append(m.group(1))
    assert subs, "gpucore --help lists no commands"
    return subs


def help_options(text):
    """Long options of a --help text: its usage lines ([--opt ...]) and its option list (the
    option column of lines that start with an option)."""
    opts = set()
    for line in text.splitlines():
        stripped = line.strip()
        if re.match(r"(Usage: |gpucore )", stripped) or stripped.startswith("["):
            opts.update(m.group(1) for m in re.finditer(r"\[--([a-z][a-z0-9-]*)", line))
            opts.update(m.group(1) for m in
                        re.finditer(r"^(?:Usage: )?gpucore [a-z-]+(?: [a-z]+)? --([a-z][a-z0-9-]*)",
                                    stripped))
        elif re.match(r" {1,4}-", line):
            column = re.split(r"\s{2,}", stripped)[0]
            opts.update(OPT.findall(column))
    return opts


def readme_options(path, subs):
    """{subcommand: {options}} the README documents."""
    text = open(path, encoding="utf-8").read()
    found = {s: set() for s in subs}
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        block = re.sub(r"\\\n", " ", block)
        for line in block.splitlines():
            line = line.split("#", 1)[0]
            for seg in line.split("|"):
                m = re.search(r"(?:^|[\s/])gpucore ([a-z][a-z-]*)(.*)", seg)
                if not m or m.group(1) not in found:
                    continue
                args = re.split(r"\s--(?:\s|$)", " " + m.group(2) + " ", 1)[0]
                found[m.group(1)].update(OPT.findall(args))
    # The option table of the capture commands (| Option | Meaning |).
    for table in re.findall(r"\| Option \| Meaning \|\n\|[-|]+\|\n((?:\|.*\n)+)", text):
        for row in table.splitlines():
            first = row.split("|")[1]
            for s in ("run", "watch", "capture"):
                if s in found:
                    found[s].update(OPT.findall(first))
    return found


def main():
    gpucore, readme, work = (os.path.abspath(a) for a in sys.argv[1:4])
    os.makedirs(work, exist_ok=True)
    errors = []
    subs = subcommands(gpucore, work)
    helps = {}
    for sub in subs:
        rc, out, err = run(gpucore, [sub, "--help"], work)
        if rc != 0:
            errors.append("gpucore %s --help exited %d: %s" % (sub, rc, err.strip()))
            continue
        helps[sub] = out
        opts = help_options(out)
        if "help" not in opts:
            errors.append("gpucore %s --help does not list --help" % sub)
        forms = ("", "=1")
        bogus = [run(gpucore, [sub, "--" + BOGUS + v], work)[2] for v in forms]
        for opt in sorted(opts):
            refused = [b.replace(BOGUS, opt) for b in bogus]
            answers = [run(gpucore, [sub, "--" + opt + v], work)[2] for v in forms]
            if answers == refused:
                errors.append("gpucore %s --help lists --%s, which it refuses: %s" %
                              (sub, opt, answers[0].strip()))
        print("%s: %d long options, each accepted" % (sub, len(opts)))
    for sub, opts in readme_options(readme, subs).items():
        if sub not in helps:
            continue
        listed = help_options(helps[sub]) | set(OPT.findall(helps[sub]))
        for opt in sorted(opts - listed):
            errors.append("README documents gpucore %s --%s; its --help does not" % (sub, opt))
        print("%s: README documents %d long options" % (sub, len(opts)))
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
