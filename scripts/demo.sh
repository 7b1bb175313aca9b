#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The main job, end to end: a real HIP program, compiled by Debian's hipcc, crashes on an
# emulated AMD GPU; `gpucore run` captures it automatically through the same /dev/kfd path a
# real GPU takes; `gpucore analyze` explains it at source level; the core opens as a debugger
# opens it.
#
# What runs: AMD's unmodified ROCm user space (ROCr 6.1, the thunk, HIP 5.7) from a Debian 13
# root file system (scripts/rocm-root.sh, built once: 2-4 minutes, 0.9 GB) on gpucore-kfdemu,
# the emulated kernel driver. The emulator does not execute the kernel's instructions: its
# fault plan (tests/kfdemu/plans/oob.json) makes the kernel's store fault where its bug sends
# it, as the hardware would, and saves the waves there. Without the root (no network, not
# root), the demo runs the simulated GPU process instead and says so.
#
#   scripts/demo.sh          GPUCORE_DEMO_DIR=DIR  the core goes to DIR (default out/)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
jobs=$(nproc 2>/dev/null || echo 2)
scripts/setup.sh
root=$(scripts/rocm-root.sh --print-path)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCORE_ROCM_ROOT="$root" >/dev/null

# The root builds while the programs compile (the first run; later runs find it in place).
root_log=$(mktemp)
scripts/rocm-root.sh >"$root_log" 2>&1 &
root_pid=$!
trap '[ -z "$root_pid" ] || kill "$root_pid" 2>/dev/null || true; rm -f "$root_log"' EXIT
cmake --build build -j "$jobs" --target gpucore-cli gpucore-disasm gpucore-kfdemu \
  gpucore-inferior scenario-objects >/dev/null
root_rc=0
wait "$root_pid" || root_rc=$?
root_pid=

out=${GPUCORE_DEMO_DIR:-$repo/out}
mkdir -p "$out"
gpucore=build/cli/gpucore
show() { printf '\n$ %s\n' "$*"; }

if [ "$root_rc" -ne 0 ] || ! build/kfd/emu/gpucore-kfdemu --root "$root" -- true 2>/dev/null; then
  cat "$root_log"
  echo
  echo "demo: no ROCm root or no emulator here (the message above says why): the simulated GPU"
  echo "process stands in for the HIP program."
  core=$out/vadd.core
  rm -f "$core"
  show "gpucore run --kfd sim -o $core -- gpucore-inferior tests/scenarios/vadd-fault.json"
  rc=0
  "$gpucore" run --kfd sim -o "$core" -- build/kfd/sim/gpucore-inferior \
    tests/scenarios/vadd-fault.json --objects build/tests/scenario-objects || rc=$?
  [ "$rc" -eq 134 ] && [ -f "$core" ] ||
    { echo "demo: gpucore run exited $rc (expected 134, the abort) and wrote no core" >&2; exit 1; }
  show "gpucore analyze $core"
  "$gpucore" analyze "$core"
  exit 0
fi

# The program: tests/kfdemu/programs/hip_oob.hip, a kernel that stores past its buffer,
# compiled inside the root with Debian's hipcc (clang 17), with debug information.
src=tests/kfdemu/programs/hip_oob.hip
prog=build/demo/hip_oob
mkdir -p build/demo
if [ ! -x "$prog" ] || [ "$src" -nt "$prog" ] || [ "$root/.gpucore-rocm-root" -nt "$prog" ]; then
  show "hipcc -g -O2 --offload-arch=gfx90a -o $prog $src   # inside the ROCm root"
  scripts/in-rocm-root.sh -- hipcc -g -O2 --offload-arch=gfx90a -o "$repo/$prog" "$repo/$src"
fi

core=$out/hip_oob.core
rm -f "$core"
# HSA_ENABLE_DEBUG=1 makes ROCr ask the driver to set up each wave's trap temporaries (as a
# debugging session would): on gfx90a only then does a wave's saved state say that it stopped
# and why (AMD's reader rule, which gpucore follows); without it the wave reads as running and
# the report names the fault from the driver's exception alone.
show "HSA_ENABLE_DEBUG=1 gpucore run -o $core -- $prog   # on the emulated MI210, in the ROCm root"
rc=0
scripts/in-rocm-root.sh --faults tests/kfdemu/plans/oob.json -- \
  env HSA_ENABLE_DEBUG=1 gpucore run -o "$core" -- "$repo/$prog" || rc=$?
# ROCr prints its own "Memory access fault" message and aborts: 128 + SIGABRT.
if [ "$rc" -ne 134 ] || [ ! -f "$core" ]; then
  echo "demo: gpucore run exited $rc (expected 134, ROCr's abort) and wrote no core" >&2
  exit 1
fi
echo "(ROCr aborted the program after the capture: status $rc, as a shell reports SIGABRT)"
show "gpucore analyze --sysroot $root $core"
"$gpucore" analyze --sysroot "$root" "$core"
show "gpucore dbgapi-dump --no-registers $core | sed -n '/^summary/,\$p'"
"$gpucore" dbgapi-dump --no-registers "$core" | sed -n '/^summary/,$p'
