#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# amd-dbgapi benchmark: open, enumerate and read every register of a 10,000-wave core through
# libgpucore-dbgapi, plain and compressed, next to the same work on the process image without
# the API (bench/bench_dbgapi.c, which prints the table).
#
#   bench/bench_dbgapi.sh [--repeat N] [--dir DIR] [--scenario NAME|FILE]
#   bench/bench_dbgapi.sh [--baseline REV | --no-baseline] ...  the library that copies
#   bench/bench_dbgapi.sh --no-build --build DIR ...    use an existing build tree as it is
#   GPUCORE_BENCH_DBGAPI_BUILD=DIR bench/bench_dbgapi.sh   (default: build-bench-dbgapi/)
#
# The baseline: libgpucore-dbgapi of revision REV (default $default_baseline, the last one whose
# process image copied the save areas), built once into build-bench-dbgapi-old/ (git archive of
# REV, Release, the library alone; rebuilt when REV changes). Its rows ("copies:") are measured
# with the same client program and core as this tree's ("gpucore:"), and `gpucore dbgapi-dump
# --json` of this tree is run on each core with either library: peak RSS and time of each, and
# the two outputs must be the same but for the library's path.
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
default_baseline=da5fd96
baseline=$default_baseline

die() { echo "$prog: $*" >&2; exit 1; }
usage() {
  if [ $# -eq 0 ]; then
    sed -n '8,11s/^# \{0,1\}//p' "$0"
    exit 0
  fi
  echo "$prog: $*" >&2
  sed -n '8,11s/^# \{0,1\}//p' "$0" >&2
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
    --baseline) [ $# -ge 2 ] || usage "--baseline needs a value"; baseline=$2; shift 2 ;;
    --baseline=*) baseline=${1#*=}; shift ;;
    --no-baseline) baseline=""; shift ;;
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

# The baseline library (see the top): built once per revision.
# Its folder in the baseline's build tree: dbgapi/, or analyze/dbgapi/ in revisions from before
# the library had a folder of its own.
old_lib_in() {
  for d in "$1/dbgapi" "$1/analyze/dbgapi"; do
    if [ -e "$d/librocm-dbgapi.so.0" ]; then echo "$d"; return; fi
  done
}
old_lib=""
if [ -n "$baseline" ]; then
  old=$root/build-bench-dbgapi-old
  want=$(git -C "$root" rev-parse "$baseline^{commit}") || die "no revision '$baseline'"
  old_lib=$(old_lib_in "$old/build")
  if [ "$(cat "$old/rev" 2>/dev/null)" != "$want" ] || [ -z "$old_lib" ]; then
    rm -rf "$old"
    mkdir -p "$old/src"
    if ! { git -C "$root" archive --format=tar "$want" | tar -xf - -C "$old/src" &&
           cmake -S "$old/src" -B "$old/build" -DCMAKE_BUILD_TYPE=Release -DGPUCORE_TESTS=OFF \
                 -DGPUCORE_WERROR=OFF &&
           cmake --build "$old/build" -j "$(nproc 2>/dev/null || echo 2)" \
                 --target gpucore-dbgapi; } >"$old/build.log" 2>&1; then
      cat "$old/build.log" >&2
      die "the baseline $baseline did not build (log above)"
    fi
    echo "$want" >"$old/rev"
    old_lib=$(old_lib_in "$old/build")
    [ -n "$old_lib" ] || die "the baseline $baseline built no librocm-dbgapi.so.0 (log: $old/build.log)"
  fi
fi

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
if [ -n "$old_lib" ]; then
  echo "baseline (copies): libgpucore-dbgapi of $baseline ($(cut -c1-12 "$old/rev"))"
  (cd "$work" && "$bench" --repeat "$repeat" --baseline "$old_lib" "$name.core" "$name.core.zst")
else
  (cd "$work" && "$bench" --repeat "$repeat" "$name.core" "$name.core.zst")
fi

# The issue's client: gpucore dbgapi-dump --json of this tree, with either library.
if [ -n "$old_lib" ]; then
  echo
  echo "gpucore dbgapi-dump --json, the same program with either library (median of $repeat; peak RSS the largest)"
  printf '%-28s %8s %8s   %s\n' "core" "seconds" "RSS MiB" "library"
  for c in "$name.core" "$name.core.zst"; do
    for lib in copies views; do
      if [ "$lib" = copies ]; then so=$old_lib/librocm-dbgapi.so.0; else so=$build/dbgapi/librocm-dbgapi.so.0; fi
      python3 - "$repeat" "$work/$lib.json" "$gpucore" dbgapi-dump --json --library "$so" "$work/$c" <<'PY' >"$work/row" ||
import os, resource, subprocess, sys, time
n, out, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
secs, rss = [], 0
for _ in range(n):
    t0 = time.monotonic()
    with open(out, "w") as f:
        p = subprocess.Popen(cmd, stdout=f)
        _, status, ru = os.wait4(p.pid, 0)
    secs.append(time.monotonic() - t0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)}: exit status {os.waitstatus_to_exitcode(status)}")
    rss = max(rss, ru.ru_maxrss)
secs.sort()
print(f"{secs[n // 2] if n % 2 else (secs[n // 2 - 1] + secs[n // 2]) / 2:.3f} {rss / 1024:.1f}")
PY
        die "gpucore dbgapi-dump with the $lib library failed on $c"
      read -r s r <"$work/row"
      printf '%-28s %8s %8s   %s\n' "$c" "$s" "$r" "$lib"
    done
    # the first record names the library's path; everything after it must be the same
    if ! cmp -s <(tail -n +2 "$work/copies.json") <(tail -n +2 "$work/views.json"); then
      die "$c: dbgapi-dump answers differ between the two libraries"
    fi
    echo "$c: the two dumps are the same ($(($(wc -l <"$work/views.json") - 1)) records after the library's)"
  done
fi
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
