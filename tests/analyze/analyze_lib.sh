# SPDX-License-Identifier: MIT
#
# What the end-to-end cases of `gpucore analyze` share (sourced by tests/analyze/cases/*.sh, not
# run). One case is one file, `cases/NAME.sh`, registered by tests/analyze.cmake as the test
# analyze-e2e-NAME: it captures a scenario running in gpucore-inferior (analyze_capture), then
# checks the report, waves, regs, disasm and mem views against the scenario file (the ground
# truth, tests/scenarios/README.md; analyze_views) and against its golden text report,
# tests/analyze/golden/NAME.txt (analyze_golden). Set GPUCORE_UPDATE_GOLDEN=1 to rewrite the
# golden file instead of comparing.
#
# The paths come from the environment CMake sets once for every case:
#   GPUCORE    the gpucore program          INFERIOR   gpucore-inferior
#   OBJECTS    the scenarios' code objects  SCENARIOS  tests/scenarios
#   MKEXAMPLE  gpucore-mkexample            WORKDIR    the cases' directories, one per test
# Sourcing it enters the case's own directory ($WORKDIR/NAME, emptied).
#
# Exit codes of a case: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

for _v in GPUCORE INFERIOR OBJECTS SCENARIOS MKEXAMPLE WORKDIR; do
  [ -n "${!_v:-}" ] ||
    { echo "$0: $_v is not set (tests/analyze/analyze_lib.sh says what)" >&2; exit 2; }
done
[ $# -eq 0 ] || { echo "usage: $0 (no arguments; the environment names the programs)" >&2; exit 2; }
gpucore=$GPUCORE inferior=$INFERIOR objects=$OBJECTS scenarios=$SCENARIOS mkexample=$MKEXAMPLE
case=$(basename "$0" .sh)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
golden=$here/golden/$case.txt
test_name=$case

. "$here/../lib/e2e.sh"
e2e_enter "$WORKDIR/$case"

# expect_error WANT_RC NAME PATTERN: exactly one line "gpucore: ..." on stderr matching PATTERN.
expect_error() {
  expect_rc "$1" "$2"
  [ "$(wc -l <"$2.err")" -eq 1 ] || fail "gpucore $2 printed $(wc -l <"$2.err") lines on stderr: $(cat "$2.err")"
  grep -Eq "^gpucore( analyze)?: $3" "$2.err" || fail "gpucore $2: unexpected error: $(cat "$2.err")"
  [ ! -s "$2.out" ] || fail "gpucore $2 printed on stdout: $(head -3 "$2.out")"
}

# analyze_capture SCENARIO [CAPTURE-OPTIONS...]: capture SCENARIO (a copy that carries on after
# a GPU error) with `gpucore capture --kfd sim -o out/core OPTIONS`, its inferior started with
# --describe describe.txt; the core in $core, the scenario's name in $scenario. No ptrace
# rights: skip.
analyze_capture() {
  e2e_need_ptrace
  scenario=$1
  shift
  # The objects directory by a relative name, as a user might start the program: the link map's
  # file:// URIs must still be absolute (as ROCr writes them), or no debugger can load them.
  ln -sfn "$objects" objs
  objects=objs
  # A copy of the scenario whose runtime carries on after a GPU error, so the capture (which
  # hands the error back when it lets go) does not race the process's abort.
  e2e_continue_copy "$scenarios/$scenario.json" scenario.json
  # describe.txt: the addresses this run laid out, named in the golden report (name_addresses.py).
  e2e_start_inferior scenario.json --describe describe.txt
  mkdir -p out
  gc cap capture --kfd sim "$ipid" -o out/core "$@"
  if [ "$rc" -eq 77 ] && grep -qi "ptrace" cap.err; then skip "$(cat cap.err)"; fi
  expect_rc 0 cap
  kill -TERM "$ipid"; wait "$ipid" || true; ipid=

  core=out/core
}

# analyze_views: every view of $core (report, --json, waves, regs, disasm, mem, dbgapi-dump, a
# compressed copy) run and checked against each other and against the scenario
# (check_analyze.py). Leaves report.out for analyze_golden.
analyze_views() {
  gc report analyze "$core";                 expect_rc 0 report
  gc report-json analyze --json "$core";     expect_rc 0 report-json
  gc waves-json analyze waves --json "$core"; expect_rc 0 waves-json
  gc waves analyze waves --faulting "$core";  expect_rc 0 waves

  # The amd-dbgapi view of the core (libgpucore-dbgapi through `gpucore dbgapi-dump`, a client
  # of the public interface) agrees with `gpucore analyze` on every wave.
  gc dump dbgapi-dump --json "$core";        expect_rc 0 dump
  python3 - waves-json.out dump.out <<'PY' || fail "dbgapi-dump and analyze waves disagree (see above)"
import collections, json, sys
analyze = json.load(open(sys.argv[1]))["waves"]
recs = [json.loads(l) for l in open(sys.argv[2])]
dump = [r for r in recs if r["kind"] == "wave"]
def key_a(w):
    return (tuple(w["workgroup"]), w["wave_in_group"], w["lanes"], int(w["pc"], 16),
            int(w["exec"], 16), tuple(sorted(r.lower() for r in w["stop_reasons"])))
def key_d(w):
    return (tuple(w["workgroup_coord"]), w["wave_number_in_workgroup"], w["lane_count"],
            int(w["pc"], 16), int(w["exec_mask"], 16),
            tuple(sorted(r.lower() for r in w["stop_reason"])))
a, d = collections.Counter(map(key_a, analyze)), collections.Counter(map(key_d, dump))
if a != d:
    print("only in analyze:", list((a - d).items())[:3])
    print("only in dbgapi-dump:", list((d - a).items())[:3])
    sys.exit(1)
summary = [r for r in recs if r["kind"] == "summary"][0]
assert summary["fatal_statuses"] == 0, summary
assert all(w["state"] == "STOP" for w in dump), "a wave is not stopped"
assert all(isinstance(w["registers"], dict) and w["registers"] for w in dump), "a wave has no registers"
PY
  # Every code object's URI is what ROCr writes: memory://PID#offset=0x...&size=N, or file://
  # and an absolute path.
  python3 - dump.out <<'PY' || fail "a code-object URI is not what ROCr writes (see above)"
import json, re, sys
uris = [r["uri_name"] for r in map(json.loads, open(sys.argv[1])) if r["kind"] == "code_object"]
assert uris, "no code object"
for u in uris:
    assert re.fullmatch(r"memory://[0-9]+#offset=0x[0-9a-f]+&size=[0-9]+|file:///[A-Za-z0-9/_.~%-]+", u), u
PY

  # A compressed copy explains itself identically (the JSON apart from the file name).
  gc compress compress out/core out/core.zst; expect_rc 0 compress
  gc report-zst analyze --json out/core.zst;  expect_rc 0 report-zst
  python3 - report-json.out report-zst.out <<'PY' || fail "the compressed core's report differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("core"); b.pop("core")
sys.exit(0 if a == b else 1)
PY

  # The faulting wave the checks look at: the first of the first fault group (if any).
  fw=$(python3 -c 'import json; d=json.load(open("report-json.out")); f=d["faults"]; print(f[0]["waves"][0] if f else "")')
  if [ -n "$fw" ]; then
    gc regs-json analyze regs --json --wave "$fw" "$core";  expect_rc 0 regs-json
    gc regs analyze regs --wave "$fw" --reg s0 --reg v1 "$core"; expect_rc 0 regs
    gc disasm analyze disasm --before 4 --after 4 "$core";    expect_rc 0 disasm
    gc disasm-json analyze disasm --json --wave "$fw" "$core"; expect_rc 0 disasm-json
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(x.get("group_segment_size",0) for x in d["dispatches"]) else 1)' scenario.json; then
      gc lds-json analyze mem --json --space local --size 64 --wave "$fw" "$core"; expect_rc 0 lds-json
      gc lds analyze mem --space local --size 64 "$core";      expect_rc 0 lds
    fi
    grep -q "^=> " disasm.out || fail "disasm marks no instruction with =>: $(cat disasm.out)"
    # One wave is "1 wave" (issue 23: "1 waves"), and a byte "1 byte".
    gc one-wave analyze waves --wave "$fw" "$core"; expect_rc 0 one-wave
    [ "$(head -1 one-wave.out)" = "1 wave" ] || fail "waves --wave says '$(head -1 one-wave.out)'"
    gc one-byte analyze mem --space global --size 1 --address "$(python3 -c 'import json; print(json.load(open("report-json.out"))["faults"][0]["instruction_pc"])')" "$core"
    expect_rc 0 one-byte
    grep -q "^global memory, 1 byte at " one-byte.out || fail "mem --size 1 says: $(head -1 one-byte.out)"
  fi

  python3 "$here/check_analyze.py" "$scenarios/$scenario.json" . || fail "check_analyze.py: see above"
}

# analyze_golden: report.out, normalised, against the golden file of this case ($golden).
analyze_golden() {
  # Golden text report. What differs per run is replaced by its name, and nothing else: the
  # addresses the system chose for this run's buffers and code objects (name_addresses.py, from
  # describe.txt: "<buffer a>", "<code object vadd image>"; an address the scenario fixes stays as
  # it is), the process and its threads (PID, TID), the paths of the executable and of the objects
  # directory (EXE, OBJECTS). So do the host threads' frames, which depend on this machine's
  # libraries and on what the driver's thread was doing (analyze-e2e-host-stack checks them), and
  # whether an exception the scenario raises some ms after the debugger enables debugging
  # (at_ms > 0) came before the capture suspended the queues (check_analyze.py checks those
  # raised at once): those lines are left out. Everything else must not differ.
  python3 "$here/name_addresses.py" scenario.json describe.txt <report.out >report.named ||
    fail "name_addresses.py failed"
  sed -E -e '/^Queue [0-9]+ \(agent [0-9]+\) raised /d' -e 's/(waves), exceptions .*$/\1/' \
      -e 's/pid [0-9]+/pid PID/' -e 's#memory://[0-9]+#memory://PID#' \
      -e 's#\(pid PID, [^,]*,#(pid PID, EXE,#' -e 's#file://[^ ]*/#file://OBJECTS/#' \
      -e 's/^(Host threads of process )[0-9]+/\1PID/' -e 's/^(  thread )[0-9]+/\1TID/' \
      -e '/^    #[0-9]+ /d' -e '/^    \(unwinding stopped: /d' -e '/^    in system call /d' -e '/^  no symbols for /d' \
      report.named >report.norm
  # The goldens are the reports of the kernels the LLVM of tests/analyze/golden/LLVM compiles
  # (other code, sizes, line tables): tests/llvm.cmake sets GPUCORE_GOLDEN_SKIP when gpucore is
  # built with another LLVM, and everything above still ran. The skip comes before the update: an
  # update with another LLVM would rewrite the goldens as that LLVM's.
  if [ -n "${GPUCORE_GOLDEN_SKIP:-}" ]; then
    skip "every check passed but the golden report (not compared, not updated): $GPUCORE_GOLDEN_SKIP"
  elif [ "${GPUCORE_UPDATE_GOLDEN:-0}" = 1 ]; then
    cp report.norm "$golden"
  elif ! diff -u "$golden" report.norm >golden.diff; then
    fail "the report differs from $golden: $(head -40 golden.diff)"
  fi
}
