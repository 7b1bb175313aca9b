#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `gpucore capture | run | watch --json[=FILE]` and of the progress line on
# a terminal, on the simulated GPU (tests/capture_json.cmake).
#
#   json_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# Every member of a record is checked against `gpucore info --json` of the same core, or
# against what the scenario fixes (its wave counts). Exit codes: 0 pass, 1 fail, 77 skip.

set -euo pipefail

[ $# -ge 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="json $case"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

start_continue() { # SCENARIO: an inferior that outlives a capture
  e2e_continue_copy "$scenarios/$1.json" "$1.json"
  e2e_start_inferior "$1.json"
}

# check_record LINES_FILE INDEX CORE PID TRIGGER WAVES FAULTING [TRUNCATION_REASON]: record
# INDEX of LINES_FILE (one JSON object a line, nothing else) describes CORE as `gpucore info
# --json` sees it.
check_record() {
  local lines=$1 index=$2 core=$3
  "$gpucore" info --json "$core" >info.json 2>info.err || fail "gpucore info $core: $(cat info.err)"
  "$gpucore" analyze --json "$core" >analyze.json 2>analyze.err || fail "gpucore analyze $core: $(cat analyze.err)"
  python3 - "$@" <<'PY' || fail "record $index of $lines does not match $core: $(cat check.err)"
import json, os, sys
lines, index, core, pid, trigger, waves, faulting = sys.argv[1:8]
reason = sys.argv[8] if len(sys.argv) > 8 else None
err = open("check.err", "w")
def bad(what):
    err.write(what + "\n"); err.close(); sys.exit(1)
text = open(lines).read()
if not text.endswith("\n"):
    bad("the output does not end with a newline")
recs = [json.loads(l) for l in text.split("\n")[:-1]]
r = recs[int(index)]
info = json.load(open("info.json"))
report = json.load(open("analyze.json"))
st = os.stat(core)
members = ["schema", "path", "size_on_disk", "apparent_size", "pid", "executable", "trigger",
           "waves", "faulting_waves", "all_waves_saved", "tiers", "skipped_bytes", "truncated",
           "truncation_reason", "elapsed_s", "compressed", "signature"]
if sorted(r) != sorted(members):
    bad("members %s, expected %s" % (sorted(r), sorted(members)))
m = info["manifest"]
def skipped(why):
    return sum(e["size"] for e in m["entries"] if e["status"] != "captured" and e["reason"] == why)
want = {
    "schema": "gpucore.capture/1",
    "path": core,
    "size_on_disk": st.st_blocks * 512,
    "apparent_size": st.st_size,
    "pid": int(pid),
    "executable": info["capture"]["exe"],
    "trigger": trigger,
    "waves": int(waves),
    "faulting_waves": int(faulting),
    # The saved waves are state-tier memory: all saved when none of it was left out.
    "all_waves_saved": not any(e["tier"] == "state" and e["status"] != "captured"
                               for e in m["entries"]),
    "skipped_bytes": {"tier": skipped("tier"), "budget": skipped("budget"),
                      "deadline": skipped("deadline"), "io-error": m["unreadable_bytes"]},
    "truncated": m["truncated"],
    "truncation_reason": m["truncation_reason"],
    "compressed": info["file"]["compressed"],
    # The crash signature, as `gpucore analyze` gives it for the same core.
    "signature": report["signature"],
}
for k, v in want.items():
    if r[k] != v:
        bad("%s is %r, expected %r" % (k, r[k], v))
if int(faulting) and not (r["signature"] and r["signature"]["kind"] == "fault"):
    bad("a core with faulting waves has signature %r" % (r["signature"],))
if info["capture"]["pid"] != int(pid) or info["capture"]["trigger"] != trigger:
    bad("the core's metadata says pid %s trigger %s" % (info["capture"]["pid"], info["capture"]["trigger"]))
if info["file"]["file_size"] != st.st_size:
    bad("info's file_size %s is not the apparent size %s" % (info["file"]["file_size"], st.st_size))
if reason is not None and (not r["truncated"] or r["truncation_reason"] != reason):
    bad("expected truncated (%s), got %r %r" % (reason, r["truncated"], r["truncation_reason"]))
# Tiers: complete from state up; the requested one is the core's, and a complete set ends there
# unless truncated.
order = ["state", "scratch", "referenced", "all"]
if (r["all_waves_saved"] or r["waves"] == 0) != ("state" in r["tiers"]):
    bad("all_waves_saved %r but tiers %r" % (r["all_waves_saved"], r["tiers"]))
if r["tiers"] != order[:len(r["tiers"])]:
    bad("tiers %r are not a prefix of %r" % (r["tiers"], order))
if not r["truncated"] and r["tiers"] != order[:order.index(info["capture"]["tier"]) + 1]:
    bad("tiers %r, the core was asked for %s" % (r["tiers"], info["capture"]["tier"]))
if not isinstance(r["elapsed_s"], float) or not 0 < r["elapsed_s"] < 300:
    bad("elapsed_s %r" % r["elapsed_s"])
PY
}

case "$case" in
capture)
  # capture PID --json: one line on stdout, the summary still on stderr.
  start_continue vadd-fault
  gc cap capture --kfd sim --json "$ipid" -o out.core
  expect_rc 0 cap
  [ "$(wc -l <cap.out)" -eq 1 ] || fail "expected one line on stdout: $(cat cap.out)"
  grep -q "^gpucore: out.core: .*256 waves (4 faulting)" cap.err || fail "no summary: $(cat cap.err)"
  check_record cap.out 0 out.core "$ipid" on-demand 256 4
  # --quiet drops the summary, not the record; --compress shows in it.
  gc capq capture --kfd sim --quiet --compress --json "$ipid" -o out2.core
  expect_rc 0 capq
  [ ! -s capq.err ] || fail "--quiet printed: $(cat capq.err)"
  check_record capq.out 0 out2.core "$ipid" on-demand 256 4
  ;;
file)
  # --json=FILE appends one whole line per core; stdout stays empty.
  start_continue vadd-fault
  echo '{"already": "there"}' >cores.jsonl
  gc c1 capture --kfd sim --json=cores.jsonl "$ipid" -o one.core
  expect_rc 0 c1
  gc c2 capture --kfd sim --tier state --json=cores.jsonl "$ipid" -o two.core
  expect_rc 0 c2
  [ ! -s c1.out ] && [ ! -s c2.out ] || fail "--json=FILE printed on stdout: $(cat c1.out c2.out)"
  [ "$(wc -l <cores.jsonl)" -eq 3 ] || fail "expected 3 lines in the file: $(cat cores.jsonl)"
  check_record cores.jsonl 1 one.core "$ipid" on-demand 256 4
  check_record cores.jsonl 2 two.core "$ipid" on-demand 256 4
  ;;
budget)
  # A budget-cut core says truncated, why, and how much each reason left out.
  start_continue big-memory
  gc cap capture --kfd sim --max-size 80K --json "$ipid" -o out.core
  expect_rc 0 cap
  check_record cap.out 0 out.core "$ipid" on-demand 1 1 budget
  python3 -c 'import json,sys; r=json.loads(open("cap.out").read()); sys.exit(0 if r["skipped_bytes"]["budget"] > 0 and r["apparent_size"] <= 80*1024 else 1)' ||
    fail "budget record: $(cat cap.out)"
  ;;
run)
  # run --json: the record of the core, then the command's own status.
  rc=0
  "$gpucore" run --kfd sim --json=run.jsonl -o run.core -- "$inferior" "$scenarios/vadd-fault.json" \
      --objects "$objects" >run.out 2>run.err || rc=$?
  [ "$rc" -ne 77 ] || skip "$(cat run.err)"
  [ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected 134: $(cat run.err)"
  pid=$(sed -n 's/^gpucore-inferior: pid \([0-9]*\) ready$/\1/p' run.out)
  [ -n "$pid" ] || fail "the inferior did not say its pid: $(cat run.out)"
  check_record run.jsonl 0 run.core "$pid" memory-violation 256 4
  # No GPU error: nothing on stdout, the command's status.
  rc=0
  "$gpucore" run --kfd sim --json -o none.core -- sh -c 'exit 7' >none.out 2>none.err || rc=$?
  [ "$rc" -eq 7 ] || fail "gpucore run exited $rc, expected the command's 7: $(cat none.err)"
  [ ! -s none.out ] || fail "a record without a core: $(cat none.out)"
  ;;
watch)
  e2e_start_inferior "$scenarios/vadd-fault.json"
  gc watch watch --kfd sim --json "$ipid" -o watch.core
  expect_rc 0 watch
  check_record watch.out 0 watch.core "$ipid" memory-violation 256 4
  st=0; wait "$ipid" || st=$?; ipid=
  [ "$st" -eq 134 ] || fail "the inferior exited $st after the watch, expected 134"
  ;;
usage)
  # A bad --json is a usage error before anything starts; a file that cannot be opened is 73.
  gc e1 capture --kfd sim --json= 1 -o x.core
  expect_rc 64 e1
  grep -q -- "--json" e1.err || fail "the message does not name --json: $(cat e1.err)"
  gc e2 run --kfd sim --json= -- true
  expect_rc 64 e2
  gc e3 capture --kfd sim --json "$$" x.jsonl
  expect_rc 64 e3
  mkdir dir
  gc e4 watch --kfd sim --json=dir 1
  expect_rc 73 e4
  grep -q "^gpucore: dir: " e4.err || fail "the message does not name the file: $(cat e4.err)"
  [ ! -e x.core ] || fail "a core was written"
  ;;
progress)
  # On a terminal the progress line names the elapsed time, the tier being written, the bytes
  # written so far of the planned total and the rate. script(1) gives gpucore a terminal.
  command -v script >/dev/null || skip "script(1) is not installed"
  start_continue big-memory
  rc=0
  script -qfec "$(printf '%q ' "$gpucore" capture --kfd sim --tier all "$ipid" -o tty.core)" \
      /dev/null >tty.out 2>&1 </dev/null || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore capture on a terminal exited $rc: $(cat -v tty.out)"
  python3 - <<'PY' || fail "progress lines: $(cat -v tty.out | head -c 2000)"
import re, sys
lines = open("tty.out", encoding="utf-8", errors="replace").read().replace("\n", "\r").split("\r")
tiers = set()
for l in lines:
    m = re.match(r"gpucore: \[ *[0-9hms.]+\] (state tier|host memory|scratch tier|referenced tier|"
                 r"all tier): (\d+ B|\d+\.\d (KiB|MiB|GiB)) of \d+\.\d (KiB|MiB|GiB) \(\d+%\), "
                 r"\d+\.\d MB/s\.\.\.\x1b\[K$", l)
    if m:
        tiers.add(m.group(1))
want = {"state tier", "host memory", "scratch tier", "referenced tier", "all tier"}
if tiers != want:
    print("tiers shown with bytes and rate: %s, expected %s" % (sorted(tiers), sorted(want)))
    sys.exit(1)
if not any(re.match(r"gpucore: \[ *[0-9hms.]+\] finishing the core \(\d+\.\d (KiB|MiB|GiB) written, \d+\.\d MB/s\)", l) for l in lines):
    print("no total after the memory"); sys.exit(1)
PY
  # Not a terminal: no progress at all.
  gc pipe capture --kfd sim "$ipid" -o pipe.core
  expect_rc 0 pipe
  ! grep -q "written, " pipe.err || fail "progress on a pipe: $(cat -v pipe.err)"
  [ "$(wc -l <pipe.err)" -eq 1 ] || fail "expected only the summary: $(cat -v pipe.err)"
  ;;
*)
  fail "unknown case $case"
  ;;
esac
echo "PASS [$test_name]"
