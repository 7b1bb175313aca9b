#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Node scale: capture, analyze and the debugger library on 1, 2, 4 and 8 MI300X at full occupancy.

    bench/node_scale.py [--build DIR] [--gpus 1,2,4,8] [--repeat N] [--dir DIR]
                        [--amd-dbgapi DIR] [--no-reference]

For each GPU count the scenario of tests/scenarios/node/node_scale.py (9,728 waves per GPU, three
queues per GPU) runs in a gpucore-inferior, once with one faulting wave and once hung, and:

- capture: `gpucore capture --kfd sim` (default tier) --repeat times: wall seconds (median) and
  peak RSS (largest) of the gpucore process; the target's RssAnon when ready and after the
  first capture (what the simulated driver's first queue suspension adds to the target);
- analyze: `gpucore analyze` of the core and of its compressed copy (`gpucore compress`):
  medians, and their ratio;
- the library (hung cores): gpucore-bench-dbgapi-client (bench/dbgapi_client.c), one program
  with this build's librocm-dbgapi.so.0 and, with --amd-dbgapi DIR, with the one in DIR (AMD's
  ROCdbgapi, run through LD_LIBRARY_PATH): attach + events, every register read (the library's
  own share), every register printed (end to end, the dump to /dev/null); seconds and peak RSS.

The reference row is the 10,000-wave multi-gpu-hang scenario (tests/scenarios), the core the
issue's library goals were stated on (--no-reference leaves it out). The last table holds each
goal's figure and ratio. Nothing is asserted: the run fails (exit 1) only when a command fails
or the two libraries read different numbers of registers; exit 77 without ptrace rights.
Every file is deleted at the end, and every inferior stopped, also on Ctrl-C.
"""
import argparse

import json
import select
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.join(ROOT, "tests", "scenarios", "node"))
import node_scale  # noqa: E402  (the scenario generator)

READY_TIMEOUT_S = 300     # laying out 78k waves on a loaded two-core machine takes seconds
COMMAND_TIMEOUT_S = 900   # AMD's library reads 9.5 M registers in about half a minute
MIB = 1024.0 * 1024.0

# The goals of the issue that asked for this benchmark.
GOAL_CAPTURE_S = 2.0
GOAL_CAPTURE_RSS_MIB = 64.0
GOAL_ANALYZE_S = 1.0
GOAL_ZST_RATIO = 1.1
GOAL_ATTACH_S = 1.0
GOAL_ATTACH_X = 3.0
GOAL_RSS_RATIO = 0.5
GOAL_PRINT_X = 3.0
GOAL_LIBRARY_X = 8.0


class BenchError(Exception):
    pass


def run_rss(argv, env=None, stdout=subprocess.DEVNULL):
    """Run argv: (wall seconds, peak RSS KiB of that process, exit status, stderr text)."""
    err_r, err_w = os.pipe()
    out = os.open(os.devnull, os.O_WRONLY) if stdout == subprocess.DEVNULL else stdout
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(out, 1)
            os.dup2(err_w, 2)
            os.close(err_r)
            if env is not None:
                os.execve(argv[0], argv, env)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    os.close(err_w)
    if stdout == subprocess.DEVNULL:
        os.close(out)
    chunks = []
    deadline = t0 + COMMAND_TIMEOUT_S
    while True:
        left = deadline - time.monotonic()
        ready = select.select([err_r], [], [], left)[0] if left > 0 else []
        if not ready:  # still running at the deadline: killed, and reported as failed below
            os.kill(pid, signal.SIGKILL)
            break
        b = os.read(err_r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(err_r)
    _, status, ru = os.wait4(pid, 0)
    secs = time.monotonic() - t0
    rc = os.waitstatus_to_exitcode(status)
    return secs, ru.ru_maxrss, rc, b"".join(chunks).decode(errors="replace")


def median(xs):
    return statistics.median(xs)


class Bench:
    def __init__(self, args):
        self.args = args
        b = os.path.abspath(args.build)
        self.gpucore = os.path.join(b, "cli", "gpucore")
        self.inferior = os.path.join(b, "kfd", "sim", "gpucore-inferior")
        self.objects = os.path.join(b, "tests", "scenario-objects")
        self.client_prog = os.path.join(b, "bench", "gpucore-bench-dbgapi-client")
        for f in (self.gpucore, self.inferior, self.client_prog):
            if not os.access(f, os.X_OK):
                raise BenchError("%s is missing (build tree %s; targets gpucore-cli, "
                                 "gpucore-inferior, gpucore-bench-dbgapi-client)" % (f, b))
        if not os.path.isdir(self.objects):
            raise BenchError("%s is missing (target scenario-objects)" % self.objects)
        self.amd = None
        if args.amd_dbgapi:
            self.amd = os.path.abspath(args.amd_dbgapi)
            if not os.path.exists(os.path.join(self.amd, "librocm-dbgapi.so.0")):
                raise BenchError("no librocm-dbgapi.so.0 in %s" % self.amd)
        self.work = tempfile.mkdtemp(prefix="gpucore-bench-node.", dir=args.dir)
        self.inferiors = []

    def close(self):
        for pid in self.inferiors:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        shutil.rmtree(self.work, ignore_errors=True)

    # ---- the target ---------------------------------------------------------------------------

    def start(self, scenario, name):
        """Start an inferior on a copy of @scenario that carries on after a GPU error."""
        s = dict(scenario)
        s["on_queue_error"] = "continue"
        s.pop("exit_status", None)
        path = os.path.join(self.work, name + ".json")
        with open(path, "w") as f:
            json.dump(s, f)
        log = os.path.join(self.work, name + ".inferior")
        with open(log, "w") as out:
            p = subprocess.Popen([self.inferior, path, "--objects", self.objects],
                                 stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.inferiors.append(p.pid)
        deadline = time.monotonic() + READY_TIMEOUT_S
        want = "gpucore-inferior: pid %d ready" % p.pid
        while time.monotonic() < deadline:
            with open(log) as f:
                if want in f.read():
                    return p
            if p.poll() is not None:
                break
            time.sleep(0.1)
        with open(log) as f:
            raise BenchError("the inferior of %s did not get ready:\n%s" % (name, f.read()))

    def stop(self, p):
        p.kill()
        p.wait()
        self.inferiors.remove(p.pid)

    @staticmethod
    def rss_anon_kib(pid):
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
        return 0

    # ---- the rows -----------------------------------------------------------------------------

    def capture(self, scenario, name):
        """Capture --repeat times: a dict of figures, and the last core's path."""
        p = self.start(scenario, name)
        core = os.path.join(self.work, name + ".core")
        ready = self.rss_anon_kib(p.pid)
        secs, rss, after = [], 0, None
        for _ in range(self.args.repeat):
            if os.path.exists(core):
                os.unlink(core)
            t, kb, rc, err = run_rss([self.gpucore, "capture", "--kfd", "sim", "--quiet",
                                      "-o", core, str(p.pid)])
            if rc != 0:
                raise BenchError("gpucore capture of %s: status %d\n%s" % (name, rc, err))
            secs.append(t)
            rss = max(rss, kb)
            if after is None:
                after = self.rss_anon_kib(p.pid)
        last = self.rss_anon_kib(p.pid)
        self.stop(p)
        return {"capture_s": median(secs), "capture_rss": rss / 1024.0,
                "core_mib": os.stat(core).st_blocks * 512 / MIB,
                "target_ready": ready / 1024.0, "target_first": (after - ready) / 1024.0,
                "target_last": (last - ready) / 1024.0}, core

    def analyze(self, core):
        zst = core + ".zst"
        t, _, rc, err = run_rss([self.gpucore, "compress", "--force", core, zst])
        if rc != 0:
            raise BenchError("gpucore compress %s: status %d\n%s" % (core, rc, err))
        out = {}
        for key, path in (("analyze_s", core), ("analyze_zst_s", zst)):
            secs, rss = [], 0
            for _ in range(self.args.repeat):
                t, kb, rc, err = run_rss([self.gpucore, "analyze", path])
                if rc != 0:
                    raise BenchError("gpucore analyze %s: status %d\n%s" % (path, rc, err))
                secs.append(t)
                rss = max(rss, kb)
            out[key] = median(secs)
            out[key.replace("_s", "_rss")] = rss / 1024.0
        os.unlink(zst)
        return out

    def client(self, core, mode, library_dir):
        env = dict(os.environ)
        if library_dir:
            env["LD_LIBRARY_PATH"] = library_dir
        secs, rss, report = [], 0, ""
        for _ in range(self.args.repeat):
            t, kb, rc, err = run_rss([self.client_prog, mode, core], env=env)
            if rc != 0:
                raise BenchError("client %s on %s (library %s): status %d\n%s" %
                                 (mode, core, library_dir or "this build's", rc, err))
            secs.append(t)
            rss = max(rss, kb)
            report = err.strip().splitlines()[-1]
        fields = dict(kv.split("=", 1) for kv in report.split() if "=" in kv)
        return median(secs), rss / 1024.0, int(fields.get("registers", "0")), \
            fields.get("library", "?")

    def library(self, core):
        out = {}
        libs = [("ours", None)] + ([("amd", self.amd)] if self.amd else [])
        for who, d in libs:
            for mode in ("attach", "registers", "print"):
                t, rss, regs, lib = self.client(core, mode, d)
                out["%s_%s_s" % (who, mode)] = t
                out["%s_%s_rss" % (who, mode)] = rss
                if mode != "attach":
                    out["%s_%s_regs" % (who, mode)] = regs
                out["%s_library" % who] = lib
        if self.amd:
            if out["ours_registers_regs"] != out["amd_registers_regs"]:
                raise BenchError("%s: the libraries read %d and %d registers" %
                                 (core, out["ours_registers_regs"], out["amd_registers_regs"]))
            if out["ours_library"] == out["amd_library"]:
                raise BenchError("the AMD rows loaded this build's library (%s)" %
                                 out["ours_library"])
        return out


def fmt_x(a, b):
    """b / a as 'N.Nx' (how many times a is faster/smaller than b), or '-'."""
    return "%.1fx" % (b / a) if a and b else "-"


def main():
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gpus", default="1,2,4,8")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    ap.add_argument("--amd-dbgapi", metavar="DIR",
                    help="a directory holding AMD's librocm-dbgapi.so.0 (docs/amd-dbgapi-check.md)")
    ap.add_argument("--no-reference", action="store_true",
                    help="leave out the 10,000-wave multi-gpu-hang row")
    args = ap.parse_args()
    try:
        gpus = [int(g) for g in args.gpus.split(",")]
        if not gpus or any(g < 1 or g > 16 for g in gpus) or not 1 <= args.repeat <= 99:
            raise ValueError
    except ValueError:
        ap.error("--gpus takes counts 1..16 separated by commas, --repeat 1..99")
    if os.geteuid() != 0:
        try:
            with open("/proc/sys/kernel/yama/ptrace_scope") as f:
                scope = f.read().strip()
        except OSError:
            scope = "0"
        if scope != "0":
            print("node_scale.py: needs root (or ptrace_scope 0) to capture; skipped")
            return 77
    try:
        bench = Bench(args)
    except BenchError as e:
        print("node_scale.py: %s" % e, file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return report(bench, args, gpus)
    except BenchError as e:
        print("node_scale.py: FAILED: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        bench.close()


def report(bench, args, gpus):
    print("gpucore node-scale benchmark: build %s; median of %d; AMD's library: %s" %
          (os.path.abspath(args.build), args.repeat, bench.amd or "not given (--amd-dbgapi DIR)"))
    print("load average at the start: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    rows = []
    if not args.no_reference:
        with open(os.path.join(ROOT, "tests", "scenarios", "multi-gpu-hang.json")) as f:
            rows.append(("ref", 10000, {"hang": json.load(f)}))
    for g in gpus:
        rows.append((str(g), g * node_scale.SIMDS * node_scale.WAVES_PER_SIMD,
                     {v: node_scale.scenario(g, v) for v in ("fault", "hang")}))
    results = []
    for label, waves, scenarios in rows:
        r = {"gpus": label, "waves": waves}
        for variant, scen in scenarios.items():
            fig, core = bench.capture(scen, "%s-%s" % (label, variant))
            fig.update(bench.analyze(core))
            if variant == "hang":
                fig.update(bench.library(core))
            os.unlink(core)
            r[variant] = fig
            sys.stderr.write("node_scale.py: %s GPU(s) %s done\n" % (label, variant))
        results.append(r)

    print("\nCapture (default tier) and analyze; RSS = peak of the gpucore process; target = "
          "the inferior's RssAnon")
    print("%-4s %-5s %6s %9s %8s %8s %10s %11s %9s %9s %9s" %
          ("GPUs", "kind", "waves", "capture s", "RSS MiB", "core MiB", "target MiB",
           "+1st susp.", "analyze s", "zst s", "zst/plain"))
    for r in results:
        for variant in ("fault", "hang"):
            if variant not in r:
                continue
            f = r[variant]
            print("%-4s %-5s %6d %9.3f %8.1f %8.1f %10.1f %11.1f %9.3f %9.3f %9.2f" %
                  (r["gpus"], variant, r["waves"], f["capture_s"], f["capture_rss"],
                   f["core_mib"], f["target_ready"], f["target_first"], f["analyze_s"],
                   f["analyze_zst_s"], f["analyze_zst_s"] / f["analyze_s"]))

    amd = bench.amd is not None
    print("\nThe debugger library on the hung cores: the same client (gpucore-bench-dbgapi-client) "
          "with each library%s" % ("" if amd else "; AMD's not given"))
    print("%-4s %6s | %-26s | %-26s | %-26s | %-22s" %
          ("GPUs", "waves", "attach s: ours AMD x", "every register s: ours AMD x",
           "printed s: ours AMD x", "peak RSS MiB: ours AMD /"))
    for r in results:
        f = r["hang"]
        a = lambda k: f.get("amd_" + k, 0.0)  # noqa: E731
        print("%-4s %6d | %8.3f %8.3f %7s | %8.3f %8.3f %7s | %8.3f %8.3f %7s | %6.1f %6.1f %6s" %
              (r["gpus"], r["waves"], f["ours_attach_s"], a("attach_s"),
               fmt_x(f["ours_attach_s"], a("attach_s")), f["ours_registers_s"],
               a("registers_s"), fmt_x(f["ours_registers_s"], a("registers_s")),
               f["ours_print_s"], a("print_s"), fmt_x(f["ours_print_s"], a("print_s")),
               f["ours_print_rss"], a("print_rss"),
               "%.2f" % (f["ours_print_rss"] / a("print_rss")) if amd else "-"))
    print("libraries: ours %s%s" % (results[0]["hang"]["ours_library"],
                                     "; AMD %s" % results[0]["hang"]["amd_library"] if amd else ""))

    print("\nGrowth: each row's figure over the previous row's, against the waves' growth")
    nodes = [r for r in results if r["gpus"] != "ref"]
    for prev, r in zip(nodes, nodes[1:]):
        w = r["waves"] / prev["waves"]
        grow = lambda k, v="hang": r[v][k] / prev[v][k]  # noqa: E731
        print("%s -> %s GPUs: waves x%.1f; capture x%.2f, capture RSS x%.2f, analyze x%.2f, "
              "attach x%.2f, every register x%.2f" %
              (prev["gpus"], r["gpus"], w, grow("capture_s", "fault"),
               grow("capture_rss", "fault"), grow("analyze_s", "fault"), grow("ours_attach_s"),
               grow("ours_registers_s")))

    print("\nGoals (the issue's), at the largest node and on the 10,000-wave reference core")
    big = nodes[-1] if nodes else None
    ref = results[0] if results[0]["gpus"] == "ref" else None
    goals = []
    if big:
        for v in ("fault", "hang"):
            f = big[v]
            goals.append(("capture %s, %s GPUs <= %.0f s" % (v, big["gpus"], GOAL_CAPTURE_S),
                          "%.3f s" % f["capture_s"], f["capture_s"] <= GOAL_CAPTURE_S))
            goals.append(("capture RSS %s <= %.0f MiB" % (v, GOAL_CAPTURE_RSS_MIB),
                          "%.1f MiB" % f["capture_rss"], f["capture_rss"] <= GOAL_CAPTURE_RSS_MIB))
            goals.append(("analyze %s <= %.0f s" % (v, GOAL_ANALYZE_S), "%.3f s" % f["analyze_s"],
                          f["analyze_s"] <= GOAL_ANALYZE_S))
        f = big["hang"]
        goals.append(("library attach, %s GPUs <= %.0f s" % (big["gpus"], GOAL_ATTACH_S),
                      "%.3f s" % f["ours_attach_s"], f["ours_attach_s"] <= GOAL_ATTACH_S))
    for r in [x for x in (ref, big) if x]:
        f = r["hang"]
        name = "reference" if r is ref else "%s GPUs" % r["gpus"]
        goals.append(("compressed analyze / plain, %s <= %.1f" % (name, GOAL_ZST_RATIO),
                      "%.2f" % (f["analyze_zst_s"] / f["analyze_s"]),
                      f["analyze_zst_s"] / f["analyze_s"] <= GOAL_ZST_RATIO))
        if not amd:
            continue
        for key, goal, what in (("attach", GOAL_ATTACH_X, "attach"),
                                ("registers", GOAL_LIBRARY_X, "library's share (every register)"),
                                ("print", GOAL_PRINT_X, "end to end, printing")):
            x = f["amd_%s_s" % key] / f["ours_%s_s" % key]
            goals.append(("%s, %s >= %.0fx AMD" % (what, name, goal), "%.1fx" % x, x >= goal))
        ratio = f["ours_print_rss"] / f["amd_print_rss"]
        goals.append(("peak RSS, %s <= %.1fx AMD" % (name, GOAL_RSS_RATIO), "%.2fx" % ratio,
                      ratio <= GOAL_RSS_RATIO))
    if big:
        goals.append(("target RSS added by the first suspension, %s GPUs" % big["gpus"],
                      "%.1f MiB" % big["hang"]["target_first"], big["hang"]["target_first"] < 4))
    width = max(len(g[0]) for g in goals) if goals else 10
    for what, fig, ok in goals:
        print("%-*s %12s  %s" % (width, what, fig, "met" if ok else "NOT MET"))
    print("\nload average at the end: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
