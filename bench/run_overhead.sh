#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What `gpucore run` costs a program that is not a GPU program: a fork/exec-heavy tree run
# with and without `gpucore run --kfd sim`, side by side.
#
#   bench/run_overhead.sh [--gpucore PATH] [--repeat N] [--execs N] [--forks N] [--fanout N]
#
# The workloads (each a plain `sh -c`, the same with and without gpucore):
#   start    `true` alone: the fixed cost of gpucore run, taken off the per-process figures
#   exec     N times fork+exec of /bin/true from a shell loop           (default 2000)
#   fork     N subshells, fork without exec: `( : )`                     (default 3000)
#   fanout   xargs -P2 running N `sh -c true`, two at a time            (default 1000; a make -j2)
# Each is timed --repeat times (default 5) in rounds alternating plain and under gpucore; the
# median wall time, the median CPU time (user+sys of the whole tree, gpucore included) and the
# overhead per process started are printed. Nothing is asserted; ctest runs it once, small, so
# it keeps working (bench-run-overhead-smoke).
set -euo pipefail

gpucore=${GPUCORE:-build/cli/gpucore}
repeat=5 execs=2000 forks=3000 fanout=1000
while [ $# -gt 0 ]; do
  case "$1" in
  --gpucore) gpucore=$2; shift 2 ;;
  --repeat) repeat=$2; shift 2 ;;
  --execs) execs=$2; shift 2 ;;
  --forks) forks=$2; shift 2 ;;
  --fanout) fanout=$2; shift 2 ;;
  -h|--help) sed -n '3,18p' "$0"; exit 0 ;;
  *) echo "run_overhead.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
[ -x "$gpucore" ] || { echo "run_overhead.sh: no gpucore at $gpucore (--gpucore PATH)" >&2; exit 66; }
true_bin=$(command -v true)
case "$true_bin" in /*) ;; *) true_bin=/bin/true ;; esac

declare -A script count
script[start]="true"
count[start]=1
script[exec]="i=0; while [ \$i -lt $execs ]; do $true_bin; i=\$((i+1)); done"
count[exec]=$execs
script[fork]="i=0; while [ \$i -lt $forks ]; do ( : ); i=\$((i+1)); done"
count[fork]=$forks
script[fanout]="seq $fanout | xargs -P2 -n1 sh -c true"
count[fanout]=$fanout

# measure CMD...: "WALL CPU" in seconds for one run (CPU: user+sys of everything the run
# waited for, its whole tree, from getrusage(RUSAGE_CHILDREN) of a fresh python3).
measure() {
  python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
t0 = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.monotonic() - t0
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode != 0:
    sys.exit("run failed (%d): %s" % (r.returncode, r.stderr.decode(errors="replace")))
print("%.4f %.4f" % (wall, u.ru_utime + u.ru_stime))
PY
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf '%-8s %7s | %9s %9s | %9s %9s | %12s %12s\n' workload procs "wall" "wall run" "cpu" "cpu run" \
  "us/proc wall" "us/proc cpu"
start_w=0 start_c=0
for w in start exec fork fanout; do
  : >"${TMPDIR:-/tmp}/ovh.$$.plain"
  : >"${TMPDIR:-/tmp}/ovh.$$.run"
  for _ in $(seq 1 "$repeat"); do
    measure sh -c "${script[$w]}" >>"${TMPDIR:-/tmp}/ovh.$$.plain"
    measure "$gpucore" run --kfd sim --quiet -o "${TMPDIR:-/tmp}/ovh.$$.core.%p" -- sh -c "${script[$w]}" \
      >>"${TMPDIR:-/tmp}/ovh.$$.run"
  done
  pw=$(cut -d' ' -f1 "${TMPDIR:-/tmp}/ovh.$$.plain" | median)
  pc=$(cut -d' ' -f2 "${TMPDIR:-/tmp}/ovh.$$.plain" | median)
  rw=$(cut -d' ' -f1 "${TMPDIR:-/tmp}/ovh.$$.run" | median)
  rcpu=$(cut -d' ' -f2 "${TMPDIR:-/tmp}/ovh.$$.run" | median)
  n=${count[$w]}
  if [ "$w" = start ]; then
    start_w=$(awk -v a="$rw" -v b="$pw" 'BEGIN { print a - b }')
    start_c=$(awk -v a="$rcpu" -v b="$pc" 'BEGIN { print a - b }')
  fi
  awk -v w="$w" -v n="$n" -v pw="$pw" -v pc="$pc" -v rw="$rw" -v rc="$rcpu" -v sw="$start_w" \
      -v sc="$start_c" 'BEGIN {
    if (w == "start") { sw = 0; sc = 0 }
    printf "%-8s %7d | %8.3fs %8.3fs | %8.3fs %8.3fs | %12.1f %12.1f\n", w, n, pw, rw, pc, rc,
      (rw - pw - sw) * 1e6 / n, (rc - pc - sc) * 1e6 / n }'
  rm -f "${TMPDIR:-/tmp}/ovh.$$.plain" "${TMPDIR:-/tmp}/ovh.$$.run"
done
echo "(median of $repeat; cpu = user+sys of the whole tree, gpucore included; us/proc = the"
echo " difference per process started, less the fixed cost of starting gpucore: the start row)"
