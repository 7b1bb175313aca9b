#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The main job, end to end: set up, build, write an example GPU core of a faulting process,
# and explain it with `gpucore info`. (Real capture from a live process arrives with the
# capture issue; until then the core is synthesised through the same library.)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null

out=${GPUCORE_DEMO_DIR:-$root/out}
mkdir -p "$out"
core="$out/example.core"
rm -f "$core" "$core.zst"
build/tests/gpucore-mkexample "$core"
build/cli/gpucore compress "$core" "$core.zst"
echo
build/cli/gpucore info "$core.zst"
