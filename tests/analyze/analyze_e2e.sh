#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `gpucore analyze` (tests/analyze.cmake): capture a scenario running in
# gpucore-inferior, then check the report, waves, regs, disasm and mem views against the
# scenario file (the ground truth, tests/scenarios/README.md) and a golden text report.
#
#   analyze_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS MKEXAMPLE GOLDEN CASE
#
# CASE is a scenario name (vadd-fault, rdna2-illegal, ...), "truncated" (vadd-fault captured
# with a 1 MiB size budget: the report still leads with the fault and says what is missing),
# "budget-cut" (multi-gpu-hang's 10,000 waves cut by a 2 MiB budget: the report says so),
# "rocr-split" (vadd-fault split into the ROCm runtime's gpucore.PID and the kernel's core.PID,
# analyzed with --host) or "bad-input". Set
# GPUCORE_UPDATE_GOLDEN=1 to rewrite the golden file instead of comparing.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 8 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS MKEXAMPLE GOLDEN CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 mkexample=$6 golden=$7 case=$8
here=$(cd "$(dirname "$0")" && pwd)
test_name=$case

. "$here/../lib/e2e.sh"
e2e_enter "$work"

# expect_error WANT_RC NAME PATTERN: exactly one line "gpucore: ..." on stderr matching PATTERN.
expect_error() {
  expect_rc "$1" "$2"
  [ "$(wc -l <"$2.err")" -eq 1 ] || fail "gpucore $2 printed $(wc -l <"$2.err") lines on stderr: $(cat "$2.err")"
  grep -Eq "^gpucore( analyze)?: $3" "$2.err" || fail "gpucore $2: unexpected error: $(cat "$2.err")"
  [ ! -s "$2.out" ] || fail "gpucore $2 printed on stdout: $(head -3 "$2.out")"
}

if [ "$case" = bad-input ]; then
  "$mkexample" example.core >/dev/null
  echo "not a core" >notcore
  # The example core with its AMDGPU note renamed: a core without GPU state.
  python3 "$here/strip_amdgpu_note.py" example.core nonote.core
  gc notcore analyze notcore
  expect_error 65 notcore "notcore: "
  gc missing analyze does-not-exist.core
  expect_error 66 missing "does-not-exist.core: cannot open"
  gc nonote analyze nonote.core
  expect_error 65 nonote "nonote.core: no AMDGPU core-state note"
  # --json: the same error, and a document that names it (stdout is never left empty).
  gc nonote-waves analyze waves --json nonote.core
  expect_rc 65 nonote-waves
  grep -Eq "^gpucore: nonote.core: no AMDGPU core-state note" nonote-waves.err ||
    fail "gpucore nonote-waves: unexpected error: $(cat nonote-waves.err)"
  python3 -c 'import json; d=json.load(open("nonote-waves.out")); assert d["command"]=="waves" and d["error"].startswith("no AMDGPU core-state note"), d' ||
    fail "analyze waves --json on a core without GPU state printed no document with its error"
  gc wave-range analyze regs --wave 99999 example.core
  expect_error 64 wave-range "example.core: wave 99999 does not exist: the core has [0-9]+ waves"
  gc no-wave analyze regs example.core
  expect_error 64 no-wave "regs needs --wave N"
  gc bad-space analyze mem --space texture --address 0 example.core
  expect_error 64 bad-space "unknown address space 'texture'"
  gc bad-opt analyze waves --size 4 example.core
  expect_error 64 bad-opt "an option given is not one of"
  gc two-cores analyze example.core example.core
  expect_error 64 two-cores "expected exactly one CORE argument"
  gc example analyze --json example.core
  expect_rc 0 example
  python3 -c 'import json,sys; d=json.load(open("example.out")); assert d["schema"]=="gpucore.analyze/1", d["schema"]' ||
    fail "the example core's report is not a gpucore.analyze/1 document"
  exit 0
fi

e2e_need_ptrace

scenario=$case capture_opts=()
case $case in
  truncated) scenario=vadd-fault capture_opts=(--max-size 1M) ;;
  budget-cut) scenario=multi-gpu-hang capture_opts=(--max-size 2M) ;;
  partial-waves) scenario=vadd-fault capture_opts=(--max-size 400K) ;;
  rocr-split) scenario=vadd-fault ;;
esac

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
gc cap capture --kfd sim "$ipid" -o out/core "${capture_opts[@]}"
if [ "$rc" -eq 77 ] && grep -qi "ptrace" cap.err; then skip "$(cat cap.err)"; fi
expect_rc 0 cap
kill -TERM "$ipid"; wait "$ipid" || true; ipid=

core=out/core

# The two files an AMD GPU crash leaves today, made from this core: the ROCm runtime's
# gpucore.PID (the AMDGPU note and the GPU mappings, with that writer's ELF quirks) and the
# kernel's core.PID (host memory; the device mappings listed, not dumped). With --host, the
# split pair explains itself as the unified core does.
if [ "$case" = rocr-split ]; then
  gc info-json info --json "$core"; expect_rc 0 info-json
  python3 "$here/make_rocr_split.py" "$core" info-json.out gpucore.split core.host >split.log ||
    fail "make_rocr_split.py: $(cat split.log)"
  gc split-info info gpucore.split; expect_rc 0 split-info
  grep -q "split ELF core, AMDGPU (e_machine 224)" split-info.out ||
    fail "info does not call gpucore.split a split core: $(head -3 split-info.out)"
  grep -q "lack PF_R (the ROCm runtime writes SHF_\* values)" split-info.out ||
    fail "info does not list the ROCm writer's p_flags quirk"
  # Merged, the pair records no host name, kernel nor duration: info says nothing of them
  # (issue 23: "Producer: gpucore 0.1.0 on  (kernel )", "in 0.000 s").
  gc merge merge gpucore.split core.host -o merged.core; expect_rc 0 merge
  gc merged-info info merged.core; expect_rc 0 merged-info
  grep -q "^Producer:    gpucore [0-9.]*$" merged-info.out ||
    fail "info of the merged core: $(grep '^Producer' merged-info.out)"
  grep -q "^Captured:    [0-9T:Z-]*, trigger " merged-info.out ||
    fail "info of the merged core: $(grep '^Captured' merged-info.out)"
  rm -f merged.core
  # Alone, the GPU file has the waves but not the runtime's r_debug (host memory).
  gc split-alone analyze waves --json gpucore.split; expect_rc 0 split-alone
  gc split-report analyze gpucore.split;             expect_rc 0 split-report
  grep -q "r_debug at 0x[0-9a-f]* is not in the core" split-report.out ||
    fail "the GPU file alone does not say r_debug is missing: $(cat split-report.out)"
  gc host-alone analyze core.host
  expect_error 65 host-alone "core.host: no AMDGPU core-state note: .*--host"
  # With the host core: the same waves, kernels and registers as the unified core.
  gc waves-unified analyze waves --json "$core";                     expect_rc 0 waves-unified
  gc waves-split analyze waves --json --host core.host gpucore.split; expect_rc 0 waves-split
  gc report-split analyze --host core.host gpucore.split;             expect_rc 0 report-split
  grep -q "^Core: gpucore.split + host core core.host" report-split.out ||
    fail "the report does not name both files: $(head -1 report-split.out)"
  grep -q "4 waves of vadd " report-split.out ||
    fail "with --host the kernel is not named: $(sed -n 2p report-split.out)"
  gc dump-unified dbgapi-dump --json "$core";                          expect_rc 0 dump-unified
  gc dump-split dbgapi-dump --json --host core.host gpucore.split;      expect_rc 0 dump-split
  python3 - <<'PY' || fail "the split pair differs from the unified core (see above)"
import json, sys
def load(name):
    return json.load(open(name + ".out"))
a, b = load("waves-unified"), load("waves-split")
for d in (a, b):
    d.pop("core"); d.pop("host_core", None)
if a != b:
    print("analyze waves: the split pair differs from the unified core")
    sys.exit(1)
def dump(name):
    recs = [json.loads(l) for l in open(name + ".out")]
    for r in recs:
        if r["kind"] == "library":
            for k in ("core", "host_core", "path"):
                r.pop(k, None)
    return recs
if dump("dump-unified") != dump("dump-split"):
    print("dbgapi-dump: the split pair differs from the unified core")
    sys.exit(1)
PY
  exit 0
fi

# vadd-fault's wave area (256 records, 720 KiB) cut by a 400 KiB budget: the waves whose
# records the file holds whole are decoded, and each equals the same wave of a whole core of
# the same process; the report says how many of the 256 were saved and why the rest are not.
if [ "$case" = partial-waves ]; then
  e2e_start_inferior scenario.json
  gc full capture --kfd sim "$ipid" -o out/full.core
  expect_rc 0 full
  e2e_stop_inferior
  gc report analyze "$core"; expect_rc 0 report
  grep -Eq "^Not all waves saved: 256 waves were running; [0-9]+ saved: the size budget was exhausted" report.out ||
    fail "the report does not say how many waves were saved: $(sed -n 1,4p report.out)"
  gc cut-waves analyze waves --json "$core"; expect_rc 0 cut-waves
  gc full-waves analyze waves --json out/full.core; expect_rc 0 full-waves
  python3 - cut-waves.out full-waves.out <<'PY' || fail "the waves of the cut core differ from the whole core's"
import json, sys
cut, full = (json.load(open(f))["waves"] for f in sys.argv[1:3])
key = lambda w: (w["agent"], w["queue"], w["xcc"], tuple(w["workgroup"]), w["wave_in_group"])
whole = {key(w): w for w in full}
assert len(full) == 256, len(full)
assert 0 < len(cut) < 256, len(cut)
for w in cut:
    f = whole[key(w)]
    # Another process of the same scenario: the same code at another address (symbol+offset).
    for k in ("symbol", "exec", "stopped", "stop_reasons", "faulting", "lanes", "dispatch", "kernel"):
        assert w[k] == f[k], (key(w), k, w[k], f[k])
# The faulting waves' records are at the bottom of the wave area, the part captured first.
assert sum(w["faulting"] for w in cut) == 4, sum(w["faulting"] for w in cut)
PY
  exit 0
fi

# 10,000 waves running on 3 queues, their save areas cut by a 2 MiB budget: the report says so
# (from the control stacks and the capture manifest) instead of "none executing". Where the
# writer cuts exactly may move: the explanation is checked, not the bytes.
if [ "$case" = budget-cut ]; then
  gc report analyze "$core";             expect_rc 0 report
  gc report-json analyze --json "$core"; expect_rc 0 report-json
  grep -Eq "^(No GPU waves in the core|Not all waves saved): (10,000 waves were running|at least [0-9,]+ waves were running|the number of waves running is unknown); [0-9,]+ saved: the size budget was exhausted" report.out ||
    fail "the report does not explain the waves the budget cut: $(sed -n 2,3p report.out)"
  grep -q "none of them executing" report.out && fail "the report still says no dispatch was executing"
  python3 - report-json.out <<'PY' || fail "the JSON report does not explain the waves the budget cut"
import json, sys
d = json.load(open(sys.argv[1]))
qs = [q for a in d["agents"] for q in a["queues"]]
cut = [q for q in qs if q["save_area_missing"]]
assert cut, "no queue says its save area is missing"
for q in cut:
    assert q["save_area_missing"]["reason"] == "budget", q["save_area_missing"]
    assert "size budget" in q["save_area_missing"]["text"], q["save_area_missing"]
if all(q["waves_running"] is not None for q in qs):
    assert sum(q["waves_running"] for q in qs) == 10000, [q["waves_running"] for q in qs]
    assert d["waves_running"] == 10000, d["waves_running"]
assert any("size budget" in s for s in d["summary"][:2]), d["summary"][:3]
PY
  exit 0
fi

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
if [ "$case" = truncated ]; then
  grep -q "^Not captured: the capture was cut short (the size budget was exhausted)" report.out ||
    fail "the report does not say the core was cut short: $(head -8 report.out)"
fi

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
exit 0
