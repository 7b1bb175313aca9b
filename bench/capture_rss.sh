#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What loading LLVM only for disassembly saves: start-up time and peak RSS of `gpucore`, and a
# simulated capture's peak RSS and time, for a program that links libLLVM (before) and one
# that opens the disassembler module on demand (after), side by side in one table.
#
#   bench/capture_rss.sh [--repeat N] [--runs N] [--scenario NAME|FILE] [--run-scenario NAME|FILE]
#                        [--dir DIR]
#   bench/capture_rss.sh --no-build --before DIR --after DIR ...   existing build trees as they are
#
# Builds two Release trees of this checkout (with the test targets: the scenarios' code objects
# are built there): build-bench-lean/ as it is, and build-bench-lean-old/ configured with
# -DGPUCORE_DISASM_MODULE=OFF, which links libLLVM into the program as before the module. Then:
#
#   start-up           `gpucore --version`, --runs times (default 100), alternating the trees:
#                      median and minimum wall ms, peak RSS
#   capture            `gpucore capture --kfd sim PID` of a running gpucore-inferior (the
#                      scenario, default vadd-fault, with "on_queue_error": "continue"), each
#                      round (--repeat, default 5) once per tree: median s, peak RSS of gpucore
#   run                `gpucore run --kfd sim -o CORE -- gpucore-inferior RUN_SCENARIO` (default
#                      vadd-fault; it must raise a GPU error, or the run never ends): a capture
#                      at the GPU error, the way a job is run; median s, peak RSS (getrusage of a
#                      waited child: the larger of gpucore and the inferior it started and
#                      reaped, so the inferior of the "after" tree is used for both)
#   analyze disasm     of the last run's core: what the module costs where it is loaded
#
# Peak RSS is what `/usr/bin/time -f %M` reports for the program (its ru_maxrss). Nothing is asserted about time or
# memory; compare the columns of one run (the times follow the load of the machine).
# bench/README.md ("Start-up and the LLVM") shows and explains the figures.
#
# Needs root (or ptrace rights over the inferior) for the capture row; exits 77 without.
# Exit: 0 done; 1 a step failed (its output is shown); 2 usage; 77 not permitted.
set -euo pipefail

prog=capture_rss.sh
root=$(cd "$(dirname "$0")/.." && pwd)
after=$root/build-bench-lean
before=$root/build-bench-lean-old
repeat=5
runs=100
scenario=vadd-fault
run_scenario=vadd-fault
dir=${TMPDIR:-/tmp}
do_build=1

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
    --runs) [ $# -ge 2 ] || usage "--runs needs a value"; runs=$2; shift 2 ;;
    --scenario) [ $# -ge 2 ] || usage "--scenario needs a value"; scenario=$2; shift 2 ;;
    --run-scenario) [ $# -ge 2 ] || usage "--run-scenario needs a value"; run_scenario=$2; shift 2 ;;
    --dir) [ $# -ge 2 ] || usage "--dir needs a value"; dir=$2; shift 2 ;;
    --before) [ $# -ge 2 ] || usage "--before needs a value"; before=$2; shift 2 ;;
    --after) [ $# -ge 2 ] || usage "--after needs a value"; after=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) usage ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]?$ ]] || usage "--repeat takes 1 to 99, got '$repeat'"
[[ $runs =~ ^[1-9][0-9]{0,3}$ ]] || usage "--runs takes 1 to 9999, got '$runs'"
if [ ! -d "$dir" ] || [ ! -w "$dir" ]; then usage "--dir '$dir' is not a writable directory"; fi
command -v python3 >/dev/null || die "python3 is needed (to measure and to prepare the scenario)"

. "$root/bench/inferior.sh"
bench_need_ptrace "$prog"
work=$(mktemp -d "$dir/gpucore-bench-lean.XXXXXX")
cleanup() {
  bench_stop_inferior
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# ---- build ---------------------------------------------------------------------------------
if [ "$do_build" = 1 ]; then
  bench_build "$after" bench-lean-build.log
  mkdir -p "$before"
  # bench_build's configuration plus the option that links LLVM as before.
  cmake -S "$root" -B "$before" -DGPUCORE_DISASM_MODULE=OFF >/dev/null 2>&1 ||
    die "cannot configure $before"
  bench_build "$before" bench-lean-build.log
fi
for t in "$before" "$after"; do
  bench_check_tree "$t" "$t/cli/gpucore" "$t/kfd/sim/gpucore-inferior"
done
inferior=$after/kfd/sim/gpucore-inferior
objects=$after/tests/scenario-objects
scen=$(bench_scenario_file "$scenario")
[ -f "$scen" ] || die "no scenario file $scen"
run_scen=$(bench_scenario_file "$run_scenario")
[ -f "$run_scen" ] || die "no scenario file $run_scen"
llvm_of() {
  if readelf -d "$1/cli/gpucore" 2>/dev/null | grep -q 'NEEDED.*libLLVM'; then
    echo "libLLVM linked"
  elif compgen -G "$1/arch/gpucore-disasm.so" >/dev/null; then
    echo "module on demand"
  else
    echo "?"
  fi
}

# ---- measuring -----------------------------------------------------------------------------
# Peak RSS through /usr/bin/time, a small C program that forks the measured one: a child forked
# by python3 would count python's own pages in its ru_maxrss (the kernel keeps the high-water
# mark of the image exec replaced), about 10 MiB.
if [ -x /usr/bin/time ]; then
  export BENCH_TIMER=/usr/bin/time
else
  export BENCH_TIMER=
  echo "$prog: no /usr/bin/time: peak RSS from python3's fork, about 10 MiB too high" >&2
fi
export BENCH_RSSFILE=$work/rss

# measure.py OUT -- CMD...: run CMD (stdout+stderr to OUT), print "SECONDS MAXRSS_KIB STATUS".
# measure.py --startup RUNS EXE...: EXE --version RUNS times each, alternating; one line per
# EXE, "MEDIAN_MS MIN_MS MAXRSS_KIB".
cat >"$work/measure.py" <<'PY'
import os, statistics, sys, time

TIMER = os.environ.get("BENCH_TIMER", "")
RSSFILE = os.environ["BENCH_RSSFILE"]

def measure(out, cmd):
    """cmd with stdout and stderr to the descriptor out: (seconds, max RSS KiB, status)."""
    if TIMER:
        cmd = [TIMER, "-f", "%M", "-o", RSSFILE] + cmd
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    secs = time.perf_counter() - t0
    rss = ru.ru_maxrss
    if TIMER:  # the figure is the last word (a killed command's line comes first)
        rss = int(open(RSSFILE).read().split()[-1])
    return secs, rss, os.waitstatus_to_exitcode(status)

if sys.argv[1] == "--startup":
    runs, exes = int(sys.argv[2]), sys.argv[3:]
    times = {e: [] for e in exes}
    rss = {e: 0 for e in exes}
    null = os.open(os.devnull, os.O_WRONLY)
    for _ in range(runs):
        for exe in exes:
            secs, r, code = measure(null, [exe, "--version"])
            if code != 0:
                sys.exit("%s --version: status %d" % (exe, code))
            times[exe].append(secs * 1000)
            rss[exe] = max(rss[exe], r)
    for exe in exes:
        print("%.2f %.2f %d" % (statistics.median(times[exe]), min(times[exe]), rss[exe]))
else:
    with open(sys.argv[1], "wb") as f:
        print("%.6f %d %d" % measure(f.fileno(), sys.argv[3:]))
PY

python3 "$work/measure.py" --startup "$runs" "$before/cli/gpucore" "$after/cli/gpucore" \
  >"$work/startup"

# run_one LABEL TREE OUT -- CMD...: one measurement; appends "SECONDS RSS" to $work/LABEL.TREE.
run_one() {
  local label=$1 tree=$2 out=$3 r
  shift 4
  r=$(python3 "$work/measure.py" "$out" -- "$@")
  set -- $r
  printf '%s %s %s\n' "$1" "$2" "$3" >>"$work/$label.$tree"
}

# check_status LABEL TREE WANT: the last measurement of LABEL on TREE exited WANT.
check_status() {
  local st
  st=$(tail -n 1 "$work/$1.$2" | cut -d' ' -f3)
  if [ "$st" != "$3" ]; then
    sed 's/^/  | /' "$work/out" >&2
    die "$1 ($2 tree) exited $st, expected $3 (output above)"
  fi
}

bench_start_inferior "$inferior" "$objects" "$scen" capture-target
for ((round = 1; round <= repeat; round++)); do
  for tree in before after; do
    t=${!tree}
    rm -f "$work/cap.core"
    run_one capture "$tree" "$work/out" -- "$t/cli/gpucore" capture --kfd sim -o "$work/cap.core" "$inf_pid"
    check_status capture "$tree" 0
  done
done
bench_stop_inferior
for ((round = 1; round <= repeat; round++)); do
  for tree in before after; do
    t=${!tree}
    rm -f "$work/run.core"
    run_one run "$tree" "$work/out" -- "$t/cli/gpucore" run --kfd sim -o "$work/run.core" -- \
      "$inferior" "$run_scen" --objects "$objects"
    [ -f "$work/run.core" ] || { sed 's/^/  | /' "$work/out" >&2; die "run ($tree tree) wrote no core"; }
    cp "$work/run.core" "$work/last.core"
    run_one disasm "$tree" "$work/out" -- "$t/cli/gpucore" analyze disasm "$work/last.core"
    check_status disasm "$tree" 0
  done
done

# ---- the table -----------------------------------------------------------------------------
# column LABEL TREE: "MEDIAN_S MAX_RSS_MIB" of the measurements.
column() {
  sort -g "$work/$1.$2" | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END {
    med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "%.1f %.1f\n", med * 1000, m / 1024 }'
}
read -r s_b_med s_b_min s_b_rss < <(sed -n 1p "$work/startup")
read -r s_a_med s_a_min s_a_rss < <(sed -n 2p "$work/startup")
echo "gpucore start-up and capture, libLLVM linked (before) vs. the disassembler module (after)"
echo "before: $before ($(llvm_of "$before")); after: $after ($(llvm_of "$after"))"
echo "capture: $(basename "$scen" .json); run: $(basename "$run_scen" .json); start-up: $runs runs each; captures: median of $repeat; peak RSS: largest ru_maxrss"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-34s %12s %12s %12s %12s\n' "row" "before ms" "after ms" "before MiB" "after MiB"
printf '%-34s %12s %12s %12.1f %12.1f\n' "gpucore --version (median)" "$s_b_med" "$s_a_med" \
  "$(awk -v k="$s_b_rss" 'BEGIN { print k / 1024 }')" "$(awk -v k="$s_a_rss" 'BEGIN { print k / 1024 }')"
printf '%-34s %12s %12s %12s %12s\n' "gpucore --version (minimum)" "$s_b_min" "$s_a_min" "" ""
for row in capture run disasm; do
  case $row in
    capture) label="capture --kfd sim PID" ;;
    run) label="run --kfd sim -- inferior" ;;
    disasm) label="analyze disasm CORE" ;;
  esac
  read -r b_ms b_mib < <(column "$row" before)
  read -r a_ms a_mib < <(column "$row" after)
  printf '%-34s %12s %12s %12s %12s\n' "$label" "$b_ms" "$a_ms" "$b_mib" "$a_mib"
done
