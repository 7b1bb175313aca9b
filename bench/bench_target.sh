#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What a capture costs its target: the target's anonymous RSS and page tables before and after
# `gpucore capture` of each tier, with the capture's wall time, CPU time and peak RSS, on one
# running gpucore-inferior. A capture must leave the process it saves as it found it.
#
#   bench/bench_target.sh [--build DIR] [--gpucore BIN] [--scenario NAME|FILE] [--tier T]...
#                         [--dir DIR] [-- CAPTURE-OPTION...]
#
# --build     a build tree with gpucore-inferior, the scenario objects and check_core_stacks
#             (default: build/ of this source tree; nothing is built)
# --gpucore   the gpucore binary to measure (default: the build tree's); an older binary works
#             too, which is how bench/hostile/target.tsv compares before and after
# --scenario  tests/scenarios/NAME.json or a file (default: big-memory); run as a copy with
#             "on_queue_error": "continue", so the process outlives every capture
# --tier      state, scratch, referenced or all; repeatable (default: all four, in that order)
# --dir       where the cores go (default: $TMPDIR or /tmp); each is deleted after its row
# after --    more capture options (e.g. --max-size 4M)
#
# One row per tier: seconds (wall), CPU seconds (user + system of gpucore), gpucore's peak RSS,
# the target's RssAnon and VmPTE (/proc/PID/status) before the first capture and after this
# one, the core's bytes on disk, and how many of the target's threads have the memory at their
# stack pointer in the core (check_core_stacks; the simulated driver's service thread, whose
# registers are taken after memory, is counted apart). The last line, "note: ...", repeats the
# last row in one line. Needs root or ptrace rights over the inferior (exits 77 without),
# python3 and GNU time (/usr/bin/time). Exit: 0 done; 1 a step failed; 2 usage; 77 not
# permitted.
set -euo pipefail

prog=bench_target.sh
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
gpucore=
scenario=big-memory
tiers=()
dir=${TMPDIR:-/tmp}
extra=()

die() { echo "$prog: $*" >&2; exit 1; }
usage() { echo "$prog: $*" >&2; sed -n '8,9s/^# \{0,1\}//p' "$0" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || usage "--build needs a value"; build=$2; shift 2 ;;
    --gpucore) [ $# -ge 2 ] || usage "--gpucore needs a value"; gpucore=$2; shift 2 ;;
    --scenario) [ $# -ge 2 ] || usage "--scenario needs a value"; scenario=$2; shift 2 ;;
    --tier) [ $# -ge 2 ] || usage "--tier needs a value"; tiers+=("$2"); shift 2 ;;
    --dir) [ $# -ge 2 ] || usage "--dir needs a value"; dir=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
[ ${#tiers[@]} -gt 0 ] || tiers=(state scratch referenced all)
[ -n "$gpucore" ] || gpucore=$build/cli/gpucore
inferior=$build/kfd/sim/gpucore-inferior
objects=$build/tests/scenario-objects
stacks=$build/tests/check_core_stacks
for f in "$gpucore" "$inferior" "$stacks"; do
  [ -x "$f" ] || die "$f is missing (build the tree first)"
done
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed"
command -v python3 >/dev/null || die "python3 is needed (to prepare the scenario copy)"
case $scenario in
  */*|*.json) src=$scenario ;;
  *) src=$root/tests/scenarios/$scenario.json ;;
esac
[ -f "$src" ] || die "no scenario $src"

work=$(mktemp -d "$dir/gpucore-bench-target.XXXXXX")
ipid=
cleanup() {
  if [ -n "$ipid" ] && kill -0 "$ipid" 2>/dev/null; then
    kill -TERM "$ipid" 2>/dev/null || true
    wait "$ipid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["on_queue_error"]="continue"; json.dump(d, open(sys.argv[2], "w"))' \
    "$src" "$work/scenario.json"
"$inferior" "$work/scenario.json" --objects "$objects" >"$work/inferior.out" 2>"$work/inferior.err" &
ipid=$!
for _ in $(seq 1 1200); do
  grep -q "ready" "$work/inferior.out" 2>/dev/null && break
  kill -0 "$ipid" 2>/dev/null || die "gpucore-inferior exited early: $(cat "$work/inferior.err")"
  sleep 0.05
done
grep -q "ready" "$work/inferior.out" || die "gpucore-inferior did not become ready"

status_kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$ipid/status"; }
service=
for t in /proc/"$ipid"/task/*; do
  [ "$(cat "$t/comm")" = gpucore-kfd-sim ] && service="$service ${t##*/}"
done
rss0=$(status_kb RssAnon) pte0=$(status_kb VmPTE)

echo "gpucore target-harm benchmark: $gpucore on $(basename "$src") (pid $ipid)${extra[*]:+, options ${extra[*]}}"
printf '%-11s %8s %8s %9s %24s %20s %11s %9s\n' tier seconds cpu_s rss_MiB \
    "target RssAnon kB" "target VmPTE kB" "disk MB" "SP in core"
note=
for tier in "${tiers[@]}"; do
  rc=0
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
      "$gpucore" capture --kfd sim --tier "$tier" "${extra[@]}" "$ipid" -o "$work/core" \
      >"$work/cap.out" 2>"$work/cap.err" || rc=$?
  if [ "$rc" -eq 77 ]; then echo "$prog: $(cat "$work/cap.err")" >&2; exit 77; fi
  [ "$rc" -eq 0 ] || die "gpucore capture --tier $tier exited $rc: $(cat "$work/cap.err")"
  read -r wall user sys maxkb <"$work/time"
  rss=$(status_kb RssAnon) pte=$(status_kb VmPTE)
  disk=$(du --block-size=1 "$work/core" | cut -f1)
  # shellcheck disable=SC2086 # one argument per service thread id
  "$stacks" "$work/core" $service >"$work/stacks.out" 2>&1 || true
  have=$(grep -c ': in the core$' "$work/stacks.out" || true)
  want=$(grep -vc '(not required)$' "$work/stacks.out" || true)
  cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
  printf '%-11s %8s %8s %9.1f %24s %20s %11.2f %9s\n' "$tier" "$wall" "$cpu" \
      "$(python3 -c "print($maxkb / 1024)")" "$rss0 -> $rss" "$pte0 -> $pte" \
      "$(python3 -c "print($disk / 1e6)")" "$have/$want"
  note="note: --tier $tier${extra[*]:+ ${extra[*]}}: target RssAnon $rss0 -> $rss kB, VmPTE $pte0 -> $pte kB; $wall s wall, $cpu s CPU; stack at SP in the core for $have of $want threads"
  rm -f "$work/core"
done
echo "$note"
