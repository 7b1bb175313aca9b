#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Capture benchmark: size and wall time of `gpucore capture` (default tier and --tier all,
# plain and --compress) against a baseline that copies every GPU mapping densely, the way the
# ROCm runtime's core dump writer does today, all against the same running gpucore-inferior.
#
#   bench/bench_capture.sh [--repeat N] [--dir DIR] [--scenario NAME|FILE]...
#   bench/bench_capture.sh --no-build --build DIR ...    use an existing build tree as it is
#   GPUCORE_BENCH_CAPTURE_BUILD=DIR bench/bench_capture.sh   (default: build-bench-capture/)
#
# Builds a Release tree (with the test targets: the scenarios' code objects are built there),
# then for each scenario (default: big-memory and multi-gpu-hang) starts gpucore-inferior, waits
# for it to be ready and measures, in --repeat rounds (default 3) over the rows:
#
#   baseline copy     gpucore-bench-baseline (bench/baseline_copy.c): every GPU mapping, pread
#                     of /proc/PID/mem, write(), dense, fsync
#   default tier      gpucore capture --kfd sim
#   default --compress
#   tier all          gpucore capture --kfd sim --tier all
#   all --compress
#
# The inferior runs a copy of the scenario with "on_queue_error": "continue", so the process
# survives the first capture handing its GPU error to the runtime. Each row: bytes on disk
# (du --block-size=1: holes and compression count), logical size (st_size), the median wall
# time, and the peak RSS of the capturing process (/usr/bin/time, else getrusage through
# python3). One aligned table per scenario; then, untimed, every core of the last round is
# opened with `gpucore info` and the baseline's size is checked against what it reported.
# Nothing is asserted about time. bench/README.md ("Capture") explains the figures.
#
# Needs root (or ptrace rights over the inferior); exits 77 without. Needs python3, and free
# space in DIR ($TMPDIR or /tmp) for the largest file (the baseline of big-memory: 17.2 GB; one
# file exists at a time). Every file it creates is deleted, also when interrupted; the
# inferior is killed.
# Exit: 0 done; 1 a step failed (its output is shown); 2 usage; 77 not permitted.
set -euo pipefail

prog=bench_capture.sh
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUCORE_BENCH_CAPTURE_BUILD:-$root/build-bench-capture}
repeat=3
dir=${TMPDIR:-/tmp}
do_build=1
scenarios=()

die() { echo "$prog: $*" >&2; exit 1; }
# usage [MESSAGE]: the synopsis; with a message on stderr and exit 2, without on stdout, exit 0.
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
    --scenario) [ $# -ge 2 ] || usage "--scenario needs a value"; scenarios+=("$2"); shift 2 ;;
    --scenario=*) scenarios+=("${1#*=}"); shift ;;
    --build) [ $# -ge 2 ] || usage "--build needs a value"; build=$2; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --no-build) do_build=0; shift ;;
    -h|--help) usage ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]?$ ]] || usage "--repeat takes 1 to 99, got '$repeat'"
if [ ! -d "$dir" ] || [ ! -w "$dir" ]; then usage "--dir '$dir' is not a writable directory"; fi
[ ${#scenarios[@]} -gt 0 ] || scenarios=(big-memory multi-gpu-hang)
command -v python3 >/dev/null || die "python3 is needed (to prepare the scenario copies)"

# ptrace rights: root, or the same user with Yama off (the capturer is not the inferior's parent).
. "$root/bench/inferior.sh"
bench_need_ptrace "$prog"

# ---- build ---------------------------------------------------------------------------------
gpucore=$build/cli/gpucore
inferior=$build/kfd/sim/gpucore-inferior
baseline=$build/bench/gpucore-bench-baseline
objects=$build/tests/scenario-objects
if [ "$do_build" = 1 ]; then
  bench_build "$build" bench-capture-build.log gpucore-bench-baseline
fi
bench_check_tree "$build" "$gpucore" "$inferior" "$baseline"

# ---- measuring -----------------------------------------------------------------------------
if [ -x /usr/bin/time ]; then
  rss_tool="/usr/bin/time -f %M"
elif command -v python3 >/dev/null; then
  rss_tool="python3 getrusage"
else
  rss_tool=""
fi

work=$(mktemp -d "$dir/gpucore-bench-capture.XXXXXX")
cleanup() {
  bench_stop_inferior
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# measure OUT -- CMD...: run CMD (stdout+stderr to OUT); sets m_rc, m_secs, m_rss_kb.
measure() {
  local out=$1; shift 2
  local t0 t1
  m_rc=0
  t0=$EPOCHREALTIME
  case $rss_tool in
    /usr/bin/time*)
      /usr/bin/time -f %M -o "$work/rss" "$@" >"$out" 2>&1 || m_rc=$? ;;
    python3*)
      python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%d\n" % ru.ru_maxrss)
code = os.waitstatus_to_exitcode(status)
sys.exit(128 - code if code < 0 else code)' "$work/rss" "$@" >"$out" 2>&1 || m_rc=$? ;;
    *) "$@" >"$out" 2>&1 || m_rc=$? ; echo - >"$work/rss" ;;
  esac
  t1=$EPOCHREALTIME
  m_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
  # /usr/bin/time reports a killed child on a line of its own before the figure.
  m_rss_kb=$(tail -n 1 "$work/rss" 2>/dev/null || echo -)
}

# median "SECONDS SECONDS...": the median of a space-separated list.
median() {
  local v
  read -r -a v <<<"$1"
  printf '%s\n' "${v[@]}" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) printf "%.3f", v[(NR + 1) / 2]
    else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Rows: label | program | extra options. Data, not code: add a row here.
row_labels=("baseline copy (dense)" "gpucore default tier" "gpucore default --compress"
            "gpucore --tier all" "gpucore --tier all --compress")
row_kinds=(baseline capture capture capture capture)
row_opts=("" "" "--compress" "--tier all" "--tier all --compress")
nrows=${#row_labels[@]}

# run_row I PID ROUND: one measurement of row I; files are deleted unless this is the last round
# (then they are verified first).
run_row() {
  local i=$1 pid=$2 round=$3 out=$work/row$1 opts
  read -r -a opts <<<"${row_opts[$i]}"
  rm -f "$out"
  kill -0 "$pid" 2>/dev/null ||
    die "the inferior (pid $pid) is gone before row '${row_labels[$i]}'"
  if [ "${row_kinds[$i]}" = baseline ]; then
    measure "$work/log$i" -- "$baseline" --kfd sim -o "$out" "$pid"
  else
    measure "$work/log$i" -- "$gpucore" capture --kfd sim "${opts[@]}" -o "$out" "$pid"
  fi
  # 130/143: interrupted (gpucore capture exits 130 on SIGINT; others die of the signal).
  if [ "$m_rc" = 130 ] || [ "$m_rc" = 143 ]; then
    echo "$prog: interrupted during row '${row_labels[$i]}'" >&2
    exit "$m_rc"
  fi
  if [ "$m_rc" != 0 ] || [ ! -f "$out" ]; then
    sed 's/^/  | /' "$work/log$i" >&2
    [ "$m_rc" != 0 ] || die "row '${row_labels[$i]}' wrote no file $out"
    die "row '${row_labels[$i]}' failed with exit status $m_rc (output above)"
  fi
  secs[i]+="$m_secs "
  disk[i]=$(du --block-size=1 "$out" | cut -f1)
  logical[i]=$(stat -c %s "$out")
  if [ "$m_rss_kb" != - ] && { [ "${rss[$i]:--}" = - ] || [ "$m_rss_kb" -gt "${rss[$i]}" ]; }; then
    rss[i]=$m_rss_kb
  fi
  line[i]=$(grep -v '^\s*$' "$work/log$i" | tail -n 1 | sed "s|$work/||")
  if [ "$round" = "$repeat" ]; then
    verify_row "$i" "$out"
  fi
  rm -f "$out"
}

# verify_row I FILE: untimed checks of the last round's output.
verify_row() {
  local i=$1 out=$2 n
  if [ "${row_kinds[$i]}" = baseline ]; then
    n=$(sed -n 's/.* \([0-9][0-9]*\) bytes copied .*/\1/p' "$work/log$i")
    [ -n "$n" ] || die "baseline printed no byte count: ${line[$i]}"
    [ "$n" = "${logical[$i]}" ] || die "baseline reported $n bytes but wrote ${logical[$i]}"
  else
    if ! "$gpucore" info "$out" >"$work/info$i" 2>&1; then
      sed 's/^/  | /' "$work/info$i" >&2
      die "gpucore info cannot read the core of row '${row_labels[$i]}'"
    fi
  fi
}

mb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }
# ratio A B: A / B with one decimal, "-" when B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

print_table() {
  local name=$1 pid=$2 base_disk=${disk[0]} base_t
  base_t=$(median "${secs[0]}")
  echo
  echo "$name (inferior pid $pid): median of $repeat run(s); MB = 10^6 bytes;" \
       "x base = baseline / this row"
  printf '%-30s %9s %12s %12s %9s %9s %9s\n' row seconds "on disk MB" "logical MB" \
         "disk x" "time x" "RSS MiB"
  for ((i = 0; i < nrows; i++)); do
    local t dx tx r
    t=$(median "${secs[$i]}")
    dx=$(ratio "$base_disk" "${disk[$i]}")
    tx=$(ratio "$base_t" "$t")
    r=$(awk -v k="${rss[$i]:--}" 'BEGIN { if (k == "-") print "-"; else printf "%.1f", k / 1024 }')
    printf '%-30s %9.3f %12s %12s %9s %9s %9s\n' "${row_labels[$i]}" "$t" "$(mb "${disk[$i]}")" \
           "$(mb "${logical[$i]}")" "$dx" "$tx" "$r"
  done
  echo "last lines printed, per row:"
  for ((i = 0; i < nrows; i++)); do
    printf '  %s\n' "${line[$i]}"
  done
}

bench_scenario() {
  local scen name pid
  scen=$(bench_scenario_file "$1")
  name=$(basename "$scen" .json)
  bench_start_inferior "$inferior" "$objects" "$scen" "$name"
  pid=$inf_pid

  secs=() disk=() logical=() rss=() line=()
  for ((round = 1; round <= repeat; round++)); do
    for ((i = 0; i < nrows; i++)); do
      run_row "$i" "$pid" "$round"
    done
  done
  kill -0 "$pid" 2>/dev/null || die "the inferior $name exited during the benchmark"
  print_table "$name" "$pid"
  bench_stop_inferior
}

echo "gpucore capture benchmark: build $build; files in $dir; peak RSS from ${rss_tool:-nothing}"
# The RSS floor of the gpucore program itself (shared libraries loaded and relocated at start),
# to read the capture rows' RSS against.
if [ -n "$rss_tool" ]; then
  measure "$work/floor" -- "$gpucore" --help
  [ "$m_rc" = 0 ] || { cat "$work/floor" >&2; die "gpucore --help failed"; }
  echo "peak RSS of 'gpucore --help' (start-up alone):" \
       "$(awk -v k="$m_rss_kb" 'BEGIN { printf "%.1f", k / 1024 }') MiB"
fi
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
for s in "${scenarios[@]}"; do
  bench_scenario "$s"
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
