#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore analyze waves` on cores of many waves (issue 22, "hostile input, third round"):
# every wave is listed, text and --json, written a wave at a time, so its peak memory is the
# image's (what the report of the same core takes) and not a JSON object per wave (4.7 KiB a
# wave: 307 MB for 64 Ki, 1 GB for 256 Ki, and under 1 GiB of address space a document of no
# waves at all, exit 0). Stopped waves each at their own PC deep into a function are
# disassembled until the open core's budget of code decoded from symbol starts is spent
# (GC_TR_DISASM_WALK_BUDGET, analyze/triage_internal.h), the rest say why; a hang's waves at
# a few deep PCs decode each PC once, and are all disassembled. Each command runs under a fixed
# address-space and CPU-time limit (15 minutes of CPU for deep-waves before).
#
#   hostile_waves.sh WORKDIR GPUCORE MKHOSTILE CASE
#
# CASE: waves-64k (ring-waves: 64 Ki running waves, each at its own PC, in a 336 KB core),
# waves-256k (ring-waves 262144: four queues of 64 Ki, with GPUCORE_MEM_BUDGET=1G so that the
# image keeps them all), deep-waves, deep-hang (gpucore-mkhostile-image's cases). Under a
# sanitizer build (its shadow memory needs terabytes of address space) the memory bound is the
# peak RSS /usr/bin/time reports instead, with room for the allocator's quarantine.
# Exit codes: 0 pass, 1 fail.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 WORKDIR GPUCORE MKHOSTILE CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkhostile=$3 case=$4
test_name="analyze-hostile-$case"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/e2e.sh"
e2e_enter "$work"

# GC_TR_DISASM_WALK_BUDGET (analyze/triage_internal.h); deep-waves' functions
# (tests/tools/mkhostile_image.c): 64 of 64 KiB.
walk_budget=$((16 << 20)) deep_funcs=64 deep_func_size=65536
# The memory `waves` may take beyond the report of the same core (the image is the same).
as_mb=1024 cpu_s=20 margin_mb=16

# The waves of each core: 64 Ki, as the issue's. A sanitizer build runs about ten times slower,
# and these cases ran into their timeout there: it lists 4 Ki, enough for the same paths (the
# streamed document, the filters, the decoding budget, which 256 deep waves already spend).
sanitized=0 n=65536
if ldd "$gpucore" 2>/dev/null | grep 'lib[at]san' >/dev/null; then
  sanitized=1 cpu_s=300 margin_mb=320 n=4096 # ASan keeps up to 256 MiB of freed blocks
fi

# run NAME ARGS...: gpucore under the limits (NAME.out, NAME.err, NAME.time: peak RSS in kB);
# it must exit 0.
run() {
  local name=$1 limits=(--cpu=$cpu_s)
  shift
  [ "$sanitized" = 1 ] || limits+=(--as=$((as_mb << 20)))
  rc=0
  /usr/bin/time -f %M -o "$name.time" prlimit "${limits[@]}" "$gpucore" "$@" \
      >"$name.out" 2>"$name.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore $* exited $rc under ${limits[*]}: $(tail -3 "$name.err")"
}

peak() {
  tail -1 "$1.time"
}

# expect WHAT GOT WANT
expect() {
  [ "$2" = "$3" ] || fail "$1: $2, expected $3"
}

# waves_json FILE: "count listed first..last in-order" of a `waves --json` document
waves_json() {
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
i = [w["index"] for w in d["waves"]]
print(d["count"], len(i), i[0] if i else "-", i[-1] if i else "-", i == sorted(i))' "$1"
}

# listed N: the report, `waves` and `waves --json` of ./core list N waves, and `waves` takes
# no more memory than the report and margin_mb.
listed() {
  local n=$1
  run report analyze core
  grep -q "^$n waves, " report.out || fail "the report: $(grep ' waves, ' report.out)"
  run waves analyze waves core
  expect "waves: first line" "$(head -1 waves.out)" "$n waves"
  expect "waves: rows" "$(grep -Ec '^ *[0-9]+ +[0-9]+ ' waves.out)" "$n"
  run json analyze waves --json core
  expect "waves --json: count, listed, first, last, in order" "$(waves_json json.out)" \
      "$n $n 0 $((n - 1)) True"
  for v in waves json; do
    [ "$(peak $v)" -le $(($(peak report) + (margin_mb << 10))) ] ||
      fail "analyze $v peaked at $(peak $v) kB, the report at $(peak report) kB"
    [ "$(peak $v)" -lt $((as_mb << 10)) ] || fail "analyze $v peaked at $(peak $v) kB"
  done
}

case $case in
waves-64k)
  "$mkhostile" core ring-waves "$n" || fail "gpucore-mkhostile-image failed"
  [ "$(stat -c %s core)" -lt $((512 << 10)) ] || fail "the crafted core is $(stat -c %s core) bytes, not small"
  listed "$n"
  # the filters: every wave is queue 0's and running
  run queue analyze waves --json --queue 0 core
  expect "waves --queue 0" "$(waves_json queue.out)" "$n $n 0 $((n - 1)) True"
  run stopped analyze waves --stopped core
  expect "waves --stopped" "$(head -1 stopped.out)" "0 waves"
  gc noqueue analyze waves --queue 1 core
  expect_rc 64 noqueue
  grep -q "queue 1 does not exist: the core has 1 queue\b" noqueue.err || fail "$(cat noqueue.err)"
  ;;
waves-256k)
  # four queues of 64 Ki (a save area holds about 110,000): the normal build only
  [ "$sanitized" = 0 ] || skip "256 Ki waves: listed in the normal build (hours under the sanitizers)"
  export GPUCORE_MEM_BUDGET=1G
  "$mkhostile" core ring-waves 262144 || fail "gpucore-mkhostile-image failed"
  listed 262144
  run queue analyze waves --json --queue 3 core
  expect "waves --queue 3" "$(waves_json queue.out)" "65536 65536 196608 262143 True"
  ;;
deep-waves)
  "$mkhostile" core deep-waves "$n" || fail "gpucore-mkhostile-image failed"
  listed "$n"
  # Wave i stands 4 (1 + i / 64) bytes before the end of its function, so finding its
  # instruction decodes that far into it, and 16 more bytes: the waves whose walk the budget
  # still holds, in order, are disassembled (each PC is its own: the cache never answers),
  # the others say why.
  want=$(python3 -c 'import sys
budget, funcs, size, n = map(int, sys.argv[1:5])
ok = []
for i in range(n):
    walk = size - 4 * (1 + i // funcs) + 16
    if walk <= budget:
        budget -= walk
        ok.append(i)
print(len(ok), ok[-2:])' "$walk_budget" "$deep_funcs" "$deep_func_size" "$n")
  # the budget must run out partway (256 walks of 64 KiB for 64 Ki waves)
  [ "${want%% *}" -gt 0 ] && [ "${want%% *}" -lt "$n" ] ||
    fail "the budget's walks: ${want%% *} of $n waves, not a budget that runs out"
  expect "waves disassembled (how many, the last two), the rest saying why" "$(python3 -c 'import json,sys
w = json.load(open(sys.argv[1]))["waves"]
ok = [x["index"] for x in w if x["instruction"] == "s_nop 0"]
why = {x["instruction_error"].split(" (")[0] for x in w if x["instruction"] is None}
print(len(ok), ok[-2:], sorted(why))' json.out)" \
      "$want ['not disassembled: the 16 MiB of code this command may decode from symbol starts are spent']"
  grep -q "^ *$((n - 1)) .*stopped  *(PC inside an instruction or not disassembled)$" waves.out ||
      fail "waves: the last wave's row: $(tail -1 waves.out)"
  # the command the message names disassembles a wave the listing left out
  addr=$(python3 -c 'import json,sys
w = json.load(open(sys.argv[1]))["waves"][-1]
print(w["pc"])' json.out)
  grep -q "\`gpucore analyze disasm --address $addr\` shows it" json.out ||
      fail "the last wave's instruction_error does not name its address $addr"
  run disasm analyze disasm --address "$addr" --after 0 core
  grep -Eq "^=> +$addr +f0063\+0x[0-9a-f]+ +s_nop 0$" disasm.out ||
      fail "disasm --address $addr: $(cat disasm.out)"
  ;;
deep-hang)
  # 64 PCs, each 64 KiB - 4 into its function: every wave disassembled, each PC decoded once
  "$mkhostile" core deep-hang "$n" || fail "gpucore-mkhostile-image failed"
  listed "$n"
  expect "waves disassembled" "$(python3 -c 'import json,sys
w = json.load(open(sys.argv[1]))["waves"]
print(sum(x["instruction"] == "s_nop 0" for x in w), len({x["pc"] for x in w}))' json.out)" \
      "$n $deep_funcs"
  # and the report: its 64 groups (a wave each: each wave runs its own dispatch), disassembled
  expect "report: groups listed" \
      "$(grep -Ec '^ +1 x f00[0-9]{2}\+0xfffc +stopped +s_nop 0$' report.out)" 64
  ;;
*) fail "unknown case" ;;
esac
exit 0
