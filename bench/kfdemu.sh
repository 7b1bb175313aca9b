#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpucore-kfdemu's cost: AMD's programs from the Debian 13 ROCm root run under the emulator,
# side by side in one run -- rocminfo, the HSA dispatch and the HIP vector add of
# tests/kfdemu/programs -- each N times: the median wall time, the calls the emulator served
# and passed on, its CPU time (user + system) and that CPU per call it saw, the GPU packets.
#
#   bench/kfdemu.sh [-n RUNS] [--root DIR] [--build DIR]
#
# Defaults: 5 runs, the root scripts/rocm-root.sh builds (GPUCORE_ROCM_ROOT), build/. The HIP
# and HSA programs are the ones the ctest fixture kfdemu-build-programs compiled into
# BUILD/tests/kfdemu/programs/gfx90a (run `ctest -R kfdemu-build-programs` first); without them
# only rocminfo is measured. Needs root. Measures only; asserts nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
runs=5
root=${GPUCORE_ROCM_ROOT:-/var/cache/gpucore/rocm-root-trixie}
build=$here/build
while [ $# -gt 0 ]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "usage: bench/kfdemu.sh [-n RUNS] [--root DIR] [--build DIR]" >&2; exit 2 ;;
  esac
done
kfdemu=$build/kfd/emu/gpucore-kfdemu
programs=$build/tests/kfdemu/programs
[ -x "$kfdemu" ] || { echo "bench/kfdemu.sh: no $kfdemu (build it first)" >&2; exit 1; }
[ -f "$root/.gpucore-rocm-root" ] ||
  { echo "bench/kfdemu.sh: no ROCm root at $root (scripts/rocm-root.sh)" >&2; exit 1; }

python3 - "$runs" "$kfdemu" "$root" "$programs" <<'PY'
import os, re, statistics, subprocess, sys, time

runs, kfdemu, root, programs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
t = os.path.join(programs, "gfx90a")
cases = [("rocminfo", ["rocminfo"])]
if os.access(os.path.join(t, "hsa_dispatch"), os.X_OK):
    cases.append(("hsa_dispatch", [os.path.join(t, "hsa_dispatch"),
                                   os.path.join(t, "hsa_dispatch_kernel.co")]))
if os.access(os.path.join(t, "hip_vadd"), os.X_OK):
    cases.append(("hip_vadd", [os.path.join(t, "hip_vadd")]))
stat = re.compile(r"(\d+) calls served, (\d+) passed on; CPU ([\d.]+) ms user \+ ([\d.]+) ms "
                  r"system .*GPU: (\d+) AQL packets, (\d+) SDMA packets")
print("%-14s %9s %8s %9s %10s %12s %6s %6s" % ("program", "wall ms", "served", "passed on",
      "emu CPU ms", "CPU us/call", "AQL", "SDMA"))
for name, cmd in cases:
    walls, rows = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([kfdemu, "--stats", "--root", root, "--bind", programs, "--"] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        walls.append((time.perf_counter() - t0) * 1000)
        if p.returncode != 0:
            sys.exit("%s: exit %d: %s" % (name, p.returncode, p.stderr[-2000:]))
        m = stat.search(p.stderr)
        if not m:
            sys.exit("%s: no --stats line in: %s" % (name, p.stderr[-2000:]))
        rows.append([float(x) for x in m.groups()])
    med = [statistics.median(r[i] for r in rows) for i in range(6)]
    cpu = med[2] + med[3]
    seen = med[0] + med[1]
    print("%-14s %9.1f %8d %9d %10.1f %12.1f %6d %6d" % (name, statistics.median(walls), med[0],
          med[1], cpu, cpu * 1000 / seen if seen else 0, med[4], med[5]))
PY
