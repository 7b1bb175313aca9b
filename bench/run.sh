#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build gpucore-bench-core in Release mode and run it; arguments go to the benchmark.
#
#   bench/run.sh [--size BYTES] [--dir DIR] [--cold]
#   bench/run.sh --frames [--size BYTES] [--dir DIR] [--repeat N]   frame size table
#   GPUCORE_BENCH_BUILD=DIR bench/run.sh     build directory (default: build-bench/)
#
# Takes about a minute on 2 cores with the default 1 GiB image; needs about 2 GB free in DIR
# ($TMPDIR or /tmp). What the columns mean: bench/README.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUCORE_BENCH_BUILD:-$root/build-bench}
log=$build/bench-build.log

mkdir -p "$build"
# Tests off: the benchmark needs only the libraries, not cmocka and the test tools.
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUCORE_TESTS=OFF &&
       cmake --build "$build" --target gpucore-bench-core -j "$(nproc 2>/dev/null || echo 2)"; } \
     >"$log" 2>&1; then
  cat "$log" >&2
  echo "bench/run.sh: build failed (log above, also in $log)" >&2
  exit 1
fi
exec "$build/bench/gpucore-bench-core" "$@"
