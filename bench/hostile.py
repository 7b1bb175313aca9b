#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile inputs and budgets, before and after: one table of exit code, CPU and peak RSS.

Every line of every bench/hostile/*.tsv file is a case:

    name<TAB>bash command<TAB>what the case is

The command runs twice under `bash -c`, once with GPUCORE set to an OLD gpucore program and
once with the NEW one, with these variables:

    GPUCORE  the gpucore program under test (old or new)
    B        the new build directory (generators, gpucore-inferior, the other test tools)
    S        the source tree
    W        an empty scratch directory of its own

Each run is a new process group, killed after --timeout seconds (the table says "hang").
The table shows the command's exit code, and the CPU seconds (user + system, summed) and peak
RSS (the largest) of the gpucore processes alone: $GPUCORE is a small wrapper that runs the
program and records its wait4() usage, so generators and inferiors in the command do not
count. If the command's last line of standard output starts with "note:", it is shown too.
Figures are informational: nothing here passes or fails.

    bench/hostile.py                         old = the revision before issue 10 (built once
                                             in build-bench-old/), new = build/gpucore
    bench/hostile.py --old-gpucore PATH      an old program built elsewhere
    bench/hostile.py --old-rev REV           another revision to build as "old"
    bench/hostile.py --only REGEX            only the cases whose name matches
    bench/hostile.py --markdown              a Markdown table (for an issue note)
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The last revision before the hostile-input work (issue 10), the default "before".
DEFAULT_OLD_REV = "185fae6"


def build_old(src, rev, out_dir):
    """Build the gpucore program of revision REV in out_dir (a worktree plus a build tree)."""
    tree = os.path.join(out_dir, "src")
    build = os.path.join(out_dir, "build")
    stamp = os.path.join(out_dir, "rev")
    prog = os.path.join(build, "cli", "gpucore")
    want = subprocess.check_output(["git", "-C", src, "rev-parse", rev + "^{commit}"],
                                   text=True).strip()
    have = open(stamp).read().strip() if os.path.exists(stamp) else ""
    if have != want or not os.path.exists(prog):
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        subprocess.check_call(["git", "-C", src, "archive", "--format=tar", "-o",
                               os.path.join(out_dir, "src.tar"), want])
        os.makedirs(tree)
        subprocess.check_call(["tar", "-xf", os.path.join(out_dir, "src.tar"), "-C", tree])
        subprocess.check_call(["cmake", "-S", tree, "-B", build,
                               "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], stdout=subprocess.DEVNULL)
        subprocess.check_call(["cmake", "--build", build, "-j", str(os.cpu_count() or 2),
                               "--target", "gpucore-cli"], stdout=subprocess.DEVNULL)
        with open(stamp, "w") as f:
            f.write(want + "\n")
    return prog


def read_cases(src, only):
    cases = []
    for path in sorted(glob.glob(os.path.join(src, "bench", "hostile", "*.tsv"))):
        area = os.path.splitext(os.path.basename(path))[0]
        for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3:
                sys.exit(f"{path}:{lineno}: expected 3 TAB-separated fields, got {len(fields)}")
            name, cmd, what = fields
            if only and not re.search(only, name):
                continue
            cases.append((area, name, cmd, what))
    return cases


# $GPUCORE in a case: runs the real program ($GPUCORE_REAL) and appends "cpu maxrss" of it to
# $GPUCORE_USAGE. Signals it gets are passed on, and it ends as the program ended.
WRAPPER = r"""#!/usr/bin/env python3
import os, signal, sys
real = os.environ["GPUCORE_REAL"]
pid = os.fork()
if pid == 0:
    os.execv(real, [real] + sys.argv[1:])
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    signal.signal(s, lambda n, f: os.kill(pid, n))
while True:
    try:
        _, status, ru = os.wait4(pid, 0)
        break
    except InterruptedError:
        continue
with open(os.environ["GPUCORE_USAGE"], "a") as f:
    f.write("%f %d\n" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
"""


def gpucore_usage(path):
    """(CPU seconds summed, peak RSS KiB) of the recorded gpucore runs, or None."""
    try:
        runs = [line.split() for line in open(path)]
    except OSError:
        return None
    if not runs:
        return None
    return sum(float(c) for c, _ in runs), max(int(r) for _, r in runs)


def run_case(cmd, env, workdir, timeout):
    """Run cmd; return (exit text, cpu seconds, peak RSS KiB, note) (cpu and RSS of gpucore)."""
    out_path = os.path.join(workdir, ".stdout")
    with open(out_path, "wb") as out, open(os.devnull, "wb") as null:
        start = time.monotonic()
        proc = subprocess.Popen(["bash", "-c", cmd], cwd=workdir, env=env, stdout=out,
                                stderr=null, stdin=subprocess.DEVNULL, start_new_session=True)
        hung = False
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                hung = True
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = 0  # reaped above; keep Popen from waiting again
    # Leftover members of the group (a daemonized inferior) are not left behind.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if hung:
        code = f"hang>{timeout:g}s"
    elif os.WIFSIGNALED(status):
        code = f"sig {os.WTERMSIG(status)}"
    else:
        code = str(os.WEXITSTATUS(status))
    usage = gpucore_usage(env["GPUCORE_USAGE"])
    cpu, rss = usage if usage else (ru.ru_utime + ru.ru_stime, ru.ru_maxrss)
    note = ""
    try:
        lines = open(out_path, encoding="utf-8", errors="replace").read().splitlines()
        if lines and lines[-1].startswith("note:"):
            note = lines[-1][5:].strip()
    except OSError:
        pass
    return code, cpu, rss, note


def human_kib(kib):
    if kib >= 1024 * 1024:
        return f"{kib / 1024 / 1024:.2f} GiB"
    if kib >= 1024:
        return f"{kib / 1024:.1f} MiB"
    return f"{kib} KiB"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(src, "build"),
                    help="the new build directory (default build/)")
    ap.add_argument("--old-gpucore", help="the old gpucore program")
    ap.add_argument("--old-rev", default=DEFAULT_OLD_REV,
                    help=f"revision to build as the old program (default {DEFAULT_OLD_REV})")
    ap.add_argument("--only", help="run only the cases whose name matches this regex")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    new = os.path.join(build, "cli", "gpucore")
    if not os.access(new, os.X_OK):
        sys.exit(f"hostile.py: {new} is not built (cmake --build {build})")
    old = a.old_gpucore or build_old(src, a.old_rev, os.path.join(src, "build-bench-old"))
    cases = read_cases(src, a.only)
    if not cases:
        sys.exit("hostile.py: no cases (bench/hostile/*.tsv)")
    rows = []
    scratch = tempfile.mkdtemp(prefix="gpucore-hostile-")
    wrapper = os.path.join(scratch, "gpucore")
    with open(wrapper, "w") as f:
        f.write(WRAPPER)
    os.chmod(wrapper, 0o755)
    try:
        for area, name, cmd, what in cases:
            row = [area, name, what]
            for label, prog in (("old", old), ("new", new)):
                work = os.path.join(scratch, f"{name}.{label}")
                os.makedirs(work)
                env = dict(os.environ, GPUCORE=wrapper, GPUCORE_REAL=os.path.abspath(prog),
                           GPUCORE_USAGE=os.path.join(scratch, f"{name}.{label}.usage"),
                           B=build, S=src, W=work)
                code, cpu, rss, note = run_case(cmd, env, work, a.timeout)
                row.append((code, cpu, rss, note))
                shutil.rmtree(work, ignore_errors=True)
            rows.append(row)
            if not a.markdown:
                print_row(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if a.markdown:
        print("| case | what | before: exit, CPU, peak RSS | after: exit, CPU, peak RSS |")
        print("|---|---|---|---|")
        for area, name, what, o, n in rows:
            print(f"| {area}/{name} | {what} | {cell(o)} | {cell(n)} |")


def cell(r):
    code, cpu, rss, note = r
    text = f"{code}, {cpu:.2f} s, {human_kib(rss)}"
    return text + (f"; {note}" if note else "")


def print_row(row):
    area, name, what, o, n = row
    print(f"{area}/{name}: {what}")
    print(f"    before: {cell(o)}")
    print(f"    after:  {cell(n)}", flush=True)


if __name__ == "__main__":
    main()
