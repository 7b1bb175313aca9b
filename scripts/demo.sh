#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The main job, end to end: set up, build, run a faulting GPU process under `gpucore run`
# (the simulated GPU: gpucore-inferior hosts a simulated KFD driver, no GPU needed), which writes
# a core at its first memory violation, then look at the core with `gpucore info`, explain the
# crash with `gpucore analyze`, and open it as a debugger does, through libgpucore-dbgapi.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null

out=${GPUCORE_DEMO_DIR:-$root/out}
mkdir -p "$out"
core="$out/vadd.core"
rm -f "$core"

echo "\$ gpucore run --kfd sim -o $core -- gpucore-inferior tests/scenarios/vadd-fault.json"
rc=0
build/cli/gpucore run --kfd sim -o "$core" -- \
    build/kfd/sim/gpucore-inferior tests/scenarios/vadd-fault.json \
    --objects build/tests/scenario-objects || rc=$?
# The process aborts by itself after the capture (its runtime's error handling): 128 + SIGABRT.
if [ "$rc" -ne 134 ] || [ ! -f "$core" ]; then
  echo "demo: gpucore run exited $rc (expected 134, the inferior's abort) and wrote no core" >&2
  exit 1
fi
echo "(the process aborted after the capture: gpucore run exited $rc, as a shell reports SIGABRT)"
echo
echo "\$ gpucore info $core"
build/cli/gpucore info "$core"
echo
echo "\$ gpucore analyze $core"
build/cli/gpucore analyze "$core"
echo
echo "\$ gpucore dbgapi-dump --no-registers $core | sed -n '/^summary/,\$p'"
build/cli/gpucore dbgapi-dump --no-registers "$core" | sed -n '/^summary/,$p'
