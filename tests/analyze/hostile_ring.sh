#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Rings that hold a million active dispatches, and queues whose waves stand at as many PCs
# (issue 22, "memory out of proportion"), through every command that builds the report --
# analyze, analyze --json, job, store --rescan and show -- and through libgpucore-dbgapi
# (dbgapi-dump), each under a fixed address-space and CPU-time limit that the code before the
# fix exceeded (2.86 GB and minutes for the first case). Each must exit 0 and list what a
# report lists (GC_TRIAGE_QUEUE_DISPATCHES and GC_TRIAGE_QUEUE_GROUPS per queue, analyze/
# triage.h), counting the rest.
#
#   hostile_ring.sh WORKDIR GPUCORE MKHOSTILE INFERIOR OBJECTS SCENARIOS CASE
#
# CASE: ring-1m, ring-symbols, ring-waves (gpucore-mkhostile-image's cores), or
# capture-full-ring: vadd-fault with a ring of 2^18 packets filled by the runtime (the
# scenario's "backlog"), captured into a store by `gpucore capture --store` (whose indexing
# builds the report) and analyzed. Under a sanitizer build (its shadow memory needs terabytes
# of address space) the memory bound is the peak RSS /usr/bin/time reports instead.
# Exit codes: 0 pass, 1 fail, 77 skip (capture-full-ring without ptrace rights).
set -euo pipefail

[ $# -eq 7 ] || { echo "usage: $0 WORKDIR GPUCORE MKHOSTILE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkhostile=$3 inferior=$4 objects=$5 scenarios=$6 case=$7
test_name="analyze-hostile-$case"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/e2e.sh"
e2e_enter "$work"

# The report's bounds (analyze/triage.h) and the dump's (cli/dbgapi-dump/cmd_dbgapi_dump.c).
listed_dispatches=32 listed_groups=64 dump_packets=64
as_mb=1024 cpu_s=20

sanitized=0
# (grep reads all of ldd's output: with -q it could stop early and, under pipefail, make ldd's
# SIGPIPE look like no match)
if ldd "$gpucore" 2>/dev/null | grep 'lib[at]san' >/dev/null; then sanitized=1 cpu_s=300; fi

# run NAME ARGS...: gpucore under the limits (NAME.out, NAME.err, NAME.time: peak RSS in kB);
# it must exit 0.
run() {
  local name=$1 peak limits=(--cpu=$cpu_s)
  shift
  [ "$sanitized" = 1 ] || limits+=(--as=$((as_mb << 20)))
  rc=0
  /usr/bin/time -f %M -o "$name.time" prlimit "${limits[@]}" "$gpucore" "$@" \
      >"$name.out" 2>"$name.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore $* exited $rc under ${limits[*]}: $(tail -3 "$name.err")"
  peak=$(tail -1 "$name.time")
  [ "$peak" -lt $((as_mb * 1024 * (sanitized + 1))) ] || fail "gpucore $* peaked at $peak kB"
}

# py FILE EXPR: a python expression over the JSON document in FILE as `d`.
py() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# queue0 FILE MEMBER: queue 0's member of the report in FILE (agents[0].queues[0]).
queue0() {
  py "$1" "d['agents'][0]['queues'][0]$2"
}

# expect WHAT GOT WANT
expect() {
  [ "$2" = "$3" ] || fail "$1: $2, expected $3"
}

# The report, its JSON, a job of the one core, a store holding it (rescan, show), the
# dbgapi-dump: every command that builds the report, bounded. $1: the active kernel
# dispatches of queue 0; $2: the dispatches the report lists; $3: what the job says of it.
commands() {
  local active=$1 listed=$2 what=$3
  run report analyze core
  grep -q "^    \.\.\. and $((active - listed)) more dispatches, not listed$" report.out ||
    fail "the report does not count the dispatches it leaves out: $(grep -n 'more dispatches' report.out)"
  [ "$(grep -c '^    dispatch [0-9]*:' report.out)" = "$listed" ] ||
    fail "the report lists $(grep -c '^    dispatch [0-9]*:' report.out) dispatches, not $listed"
  run json analyze --json core
  expect "analyze --json: dispatches listed" "$(queue0 json.out "['dispatches'].__len__()")" "$listed"
  expect "analyze --json: dispatches_omitted" "$(queue0 json.out "['dispatches_omitted']")" \
      "$((active - listed))"
  run job job core
  grep -q "  $what" job.out || fail "job: $(cat job.out)"
  mkdir -m 0700 store
  cp core store/hostile.core
  export GPUCORE_STORE="$PWD/store" XDG_CONFIG_HOME="$PWD/config" XDG_STATE_HOME="$PWD/state"
  run rescan store --rescan
  grep -q ": 1 files: 1 added, 0 read again, 0 unreadable" rescan.out ||
    fail "rescan: $(cat rescan.out)"
  run show show hostile.core
  grep -q "(present)" show.out || fail "show: $(cat show.out)"
  run dump dbgapi-dump --no-registers --json core
  expect "dbgapi-dump: packets omitted" \
      "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["kind"] == "queue":
        print(r.get("packets_omitted", 0), len(r["packets"]) // 128)' dump.out)" \
      "$((active - dump_packets)) $dump_packets"
}

case $case in
ring-1m)
  # 1 Mi identical dispatch packets, their descriptor in the core; no save area.
  "$mkhostile" core ring-1m || fail "gpucore-mkhostile-image failed"
  [ "$(stat -c %s core)" -lt 65536 ] || fail "the crafted core is $(stat -c %s core) bytes, not small"
  commands $((1 << 20)) "$listed_dispatches" "No GPU waves in the core: 1048576 dispatches in flight"
  grep -q "^No GPU waves in the core: 1048576 dispatches in flight" report.out ||
    fail "the summary does not count every dispatch: $(sed -n 2p report.out)"
  # the image keeps what its share of the memory budget holds, and says what it left out
  grep -Eq "^  - queue 0: [0-9]+ of its 1048576 kernel dispatches, from packet [0-9]+ on, are counted, not kept: the memory budget is spent" report.out ||
    fail "the report does not say which dispatches the image left out: $(grep 'queue 0:' report.out)"
  # what the library lists is what AMD's does: the dispatches waves run (none)
  expect "dbgapi-dump: dispatches" "$(python3 -c 'import json,sys
print([json.loads(l) for l in open(sys.argv[1])][-1]["dispatches"])' dump.out)" 0
  ;;
ring-symbols)
  # The kernel descriptor is the last symbol of the last of 4096 code objects: every
  # dispatch's kernel name is found, each by a lookup that does not walk a million symbols.
  # The budget is raised as for a file one trusts (the default keeps half the code objects and
  # no dispatch: the image's share is spent on the first ones), so that every lookup happens.
  export GPUCORE_MEM_BUDGET=1G
  "$mkhostile" core ring-symbols || fail "gpucore-mkhostile-image failed"
  commands $((1 << 20)) "$listed_dispatches" "No GPU waves in the core: 1048576 dispatches"
  expect "kernels of the listed dispatches" \
      "$(queue0 json.out "['dispatches']" | python3 -c 'import ast,sys; print(sorted({x["kernel"] for x in ast.literal_eval(sys.stdin.read())}))')" "['k0127']"
  expect "code objects" "$(py json.out "len(d['code_objects'])")" 4096
  ;;
ring-waves)
  # 64 Ki running waves, each at its own PC and on its own dispatch, spread over a ring of
  # 1 Mi: the first 64 groups are listed, and the dispatches they run with the first 32.
  "$mkhostile" core ring-waves || fail "gpucore-mkhostile-image failed"
  # the dispatches of groups 0..63 are packets 16 i, two of them (0, 16) among the first 32
  commands $((1 << 20)) $((listed_dispatches + 62)) "No wave stopped on an error: 65536 waves of 1048576 dispatches"
  expect "waves" "$(py json.out "d['waves']")" 65536
  expect "groups listed" "$(queue0 json.out "['groups'].__len__()")" "$listed_groups"
  expect "groups_omitted" "$(queue0 json.out "['groups_omitted']")" $((65536 - listed_groups))
  grep -q "^      \.\.\. and $((65536 - listed_groups)) more groups of $((65536 - listed_groups)) waves, not listed$" report.out ||
    fail "the report does not count the groups it leaves out"
  # every wave has its dispatch, also those past what the image keeps of the ring
  ! grep -q "cannot be associated" report.out || fail "waves without their dispatch: $(grep associated report.out)"
  expect "the waves of the dispatch of packet 1008 (wave 63's)" \
      "$(py json.out "[x['waves'] for x in d['agents'][0]['queues'][0]['dispatches'] if x['packet_id'] == 1008]")" "[1]"
  expect "dbgapi-dump: dispatches, waves" "$(python3 -c 'import json,sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
print(s["dispatches"], s["waves"])' dump.out)" "65536 65536"
  ;;
capture-full-ring)
  # A real capture: vadd-fault whose runtime filled its ring of 2^18 packets after the
  # faulting dispatch. The capture indexes the core into the store (the report is built).
  e2e_need_ptrace
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
d["queues"][0]["ring_packets"] = 1 << 18
d["queues"][0]["backlog"] = (1 << 18) - 1
d["on_queue_error"] = "continue"
json.dump(d, open(sys.argv[2], "w"))' "$scenarios/vadd-fault.json" full.json
  mkdir -m 0700 capstore
  e2e_start_inferior full.json
  run cap capture --kfd sim "$ipid" --store="$PWD/capstore" --quiet
  e2e_stop_inferior
  cp capstore/core.* core
  rm -rf capstore
  commands $((1 << 18)) "$listed_dispatches" "4 waves of vadd (dispatch 0, queue 0, gfx90a)"
  # the faulting dispatch is listed with its arguments, the fault related to them
  grep -q "^4 waves of vadd (dispatch 0, queue 0, gfx90a) stopped by a memory violation" report.out ||
    fail "the report's first line: $(sed -n 2p report.out)"
  grep -q "argument c = 0x" report.out || fail "the fault is not related to the arguments"
  ;;
*) fail "unknown case" ;;
esac
exit 0
