#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The start-up cost of the gpucore program: wall time (median, min, max) and peak RSS of
# `gpucore --version` over N runs, for each binary given -- e.g. one linked with libLLVM 19 and
# one with libLLVM 16 built with -DGPUCORE_DISASM_MODULE=OFF (docs/building.md), to see what
# the LLVM costs every command when it is loaded and relocated before main. A program of the
# default build links no libLLVM ("-" in that column): bench/capture_rss.sh compares the two.
#
#   bench/startup.sh [-n RUNS] GPUCORE...     (default: build/cli/gpucore, 200 runs)
#
# Measures only; asserts nothing. Compare rows of one run: the times depend on the load.
set -euo pipefail

runs=200
if [ "${1:-}" = -n ]; then runs=$2; shift 2; fi
[ $# -gt 0 ] || set -- "$(cd "$(dirname "$0")/.." && pwd)/build/cli/gpucore"

python3 - "$runs" "$@" <<'PY'
import os, statistics, subprocess, sys, time

runs = int(sys.argv[1])
print("%-48s %-22s %9s %9s %9s %9s" % ("binary", "libLLVM", "median ms", "min ms", "max ms",
                                       "RSS KiB"))
for exe in sys.argv[2:]:
    llvm = "-"
    for line in subprocess.run(["ldd", exe], capture_output=True, text=True).stdout.splitlines():
        if "libLLVM" in line:
            llvm = line.split()[0]
    times, rss = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen([exe, "--version"], stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        times.append((time.perf_counter() - t0) * 1000)
        if status != 0:
            sys.exit("%s --version: status %d" % (exe, status))
        rss = max(rss, ru.ru_maxrss)
    print("%-48s %-22s %9.2f %9.2f %9.2f %9d" % (exe[-48:], llvm, statistics.median(times),
                                                min(times), max(times), rss))
PY
