#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# amd-dbgapi benchmark: open, enumerate and read every register of a 10,000-wave core through
# libgpucore-dbgapi, plain and compressed, next to the same work on the process image without
# the API (bench/bench_dbgapi.c, which prints the table).
#
#   bench/bench_dbgapi.sh [--repeat N] [--dir DIR] [--scenario NAME|FILE]
#   bench/bench_dbgapi.sh --no-build --build DIR ...    use an existing build tree as it is
#   GPUCORE_BENCH_DBGAPI_BUILD=DIR bench/bench_dbgapi.sh   (default: build-bench-dbgapi/)
#
# Builds a Release tree (with the test targets: the scenarios' code objects are built there),
# starts gpucore-inferior on the scenario (default multi-gpu-hang: 10,000 waves on two agents),
# captures it with `gpucore capture --kfd sim` (default tier), compresses a copy with `gpucore
# compress`, stops the inferior and runs gpucore-bench-dbgapi on both cores, --repeat rounds
# (default 3). bench/README.md ("amd-dbgapi") explains the figures; nothing is asserted about
# time.
#
# Needs root (or ptrace rights over the inferior); exits 77 without. Needs python3 and about
# 150 MB in DIR ($TMPDIR or /tmp). Every file it creates is deleted, also when interrupted.
# Exit: 0 done; 1 a step failed (its output is shown); 2 usage; 77 not permitted.
set -euo pipefail

prog=bench_dbgapi.sh
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUCORE_BENCH_DBGAPI_BUILD:-$root/build-bench-dbgapi}
repeat=3
dir=${TMPDIR:-/tmp}
do_build=1
scenario=multi-gpu-hang

die() { echo "$prog: $*" >&2; exit 1; }
usage() {
  if [ $# -eq 0 ]; then
    sed -n '8,10s/^# \{0,1\}//p' "$0"
    exit 0
  fi
  echo "$prog: $*" >&2
  sed -n '8,10s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    --repeat) [ $# -ge 2 ] || usage "--repeat needs a value"; repeat=$2; shift 2 ;;
    --repeat=*) repeat=${1#*=}; shift ;;
    --dir) [ $# -ge 2 ] || usage "--dir needs a value"; dir=$2; shift 2 ;;
    --dir=*) dir=${1#*=}; shift ;;
    --scenario) [ $# -ge 2 ] || usage "--scenario needs a value"; scenario=$2; shift 2 ;;
    --scenario=*) scenario=${1#*=}; shift ;;
    --build) [ $# -ge 2 ] || usage "--build needs a value"; build=$2; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --no-build) do_build=0; shift ;;
    -h|--help) usage ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]?$ ]] || usage "--repeat takes 1 to 99, got '$repeat'"
if [ ! -d "$dir" ] || [ ! -w "$dir" ]; then usage "--dir '$dir' is not a writable directory"; fi
command -v python3 >/dev/null || die "python3 is needed (to prepare the scenario copy)"

. "$root/bench/inferior.sh"
bench_need_ptrace "$prog"

gpucore=$build/cli/gpucore
inferior=$build/kfd/sim/gpucore-inferior
bench=$build/bench/gpucore-bench-dbgapi
objects=$build/tests/scenario-objects
if [ "$do_build" = 1 ]; then
  bench_build "$build" bench-dbgapi-build.log gpucore-bench-dbgapi
fi
bench_check_tree "$build" "$gpucore" "$inferior" "$bench"

work=$(mktemp -d "$dir/gpucore-bench-dbgapi.XXXXXX")
cleanup() {
  bench_stop_inferior
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

scen=$(bench_scenario_file "$scenario")
name=$(basename "$scen" .json)
bench_start_inferior "$inferior" "$objects" "$scen" "$name"
core=$work/$name.core
if ! "$gpucore" capture --kfd sim -o "$core" "$inf_pid" >"$work/capture.log" 2>&1; then
  sed 's/^/  | /' "$work/capture.log" >&2
  die "gpucore capture of $name failed"
fi
bench_stop_inferior
"$gpucore" compress "$core" "$core.zst" >"$work/compress.log" 2>&1 ||
  { cat "$work/compress.log" >&2; die "gpucore compress failed"; }
echo "gpucore amd-dbgapi benchmark: build $build; scenario $name"
echo "capture: $(grep -v '^\s*$' "$work/capture.log" | tail -n 1 | sed "s|$work/||")"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
(cd "$work" && "$bench" --repeat "$repeat" "$name.core" "$name.core.zst")
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
