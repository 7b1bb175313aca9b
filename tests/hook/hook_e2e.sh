#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of libgpucore-hook.so (tests/hook.cmake): gpucore-inferior loads it through
# HSA_TOOLS_LIB like the ROCm runtime, its scenario raises the GPU error on the runtime's clock
# (no debugger: the hook captures after the runtime learned of the error, "late arming").
#
#   hook_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS HOOK CASE
#
# Cases:
#   memory-fault   vadd-fault (a VM fault): the hook's core has the content of `gpucore run`'s
#                  core of the same scenario, and the program's status and message are those
#                  of a run without the hook; the hook's core names the thread the runtime
#                  reported the error on (CAPTURE_META error_thread), writes it first in the
#                  host notes, and the report marks it met_error with a backtrace through the
#                  hook's callback and the runtime's event thread; the run core names none
#   queue-error    rdna2-illegal (an illegal instruction reported on the queue): the same
#   no-gpucore     GPUCORE_BIN naming nothing, and PATH without gpucore
#   capture-fails  a bad option in GPUCORE_OPTIONS, and an unwritable GPUCORE_OUTPUT
#   deadline       GPUCORE_HOOK_TIMEOUT=1 and the driver's SUSPEND slowed to 4 s
#   second-error   two VM faults in one process that carries on: one core, one line
#   sigchld-ignored  the program ignores SIGCHLD (its children are reaped by the kernel): the
#                  hook still waits for its helper and the core is written
#   table          the runtime's table too small, and of another major version: refused; ROCr 6.1's tables (GPUCORE_SIM_HSA_TABLE=rocm6): loaded, captures
# Each failure case: one line on stderr besides the program's own, the program's status and
# message unchanged, no core, no process left behind.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip.

set -euo pipefail

[ $# -eq 7 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS HOOK CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 hook=$6 case=$7
here=$(cd "$(dirname "$0")" && pwd)
test_name="hook $case"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace
export GPUCORE_KFD=sim
unset HSA_TOOLS_LIB GPUCORE_BIN GPUCORE_OPTIONS GPUCORE_OUTPUT GPUCORE_HOOK_TIMEOUT \
      GPUCORE_SIM_FAULTS GPUCORE_SIM_HSA_TABLE

# Without address randomization the inferior lays its GPU state out at the same addresses in
# every run, so two cores of one scenario can be compared byte for byte where they should be.
norand=(setarch "$(uname -m)" -R)
"${norand[@]}" true 2>/dev/null || skip "setarch -R is not permitted here"

# late SCENARIO OUT [continue] [twice]: a copy raising its exceptions on the runtime's clock,
# 300 ms after the start (no debugger needed); "continue": the runtime carries on after an
# error; "twice": the first exception again 300 ms later.
late() {
  python3 - "$scenarios/$1.json" "$2" "${3:-}" "${4:-}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["exception_clock"] = "runtime"
for e in d["exceptions"]:
    e["at_ms"] = 300
if sys.argv[3] == "continue":
    d["on_queue_error"] = "continue"
if sys.argv[4] == "twice":
    e = dict(d["exceptions"][0]); e["at_ms"] = 600
    d["exceptions"].append(e)
json.dump(d, open(sys.argv[2], "w"))
EOF
}

# prog NAME SCENARIO: run the inferior (environment as exported) to its end, without address
# randomization; stdout/stderr in NAME.out/NAME.err, its status in $prc.
prog() {
  prc=0
  timeout 120 "${norand[@]}" "$inferior" "$2" --objects "$objects" >"$1.out" 2>"$1.err" || prc=$?
  [ "$prc" -ne 124 ] || fail "$1: the inferior did not end within 120 s"
}

# The runtime's own message (the inferior's line) of NAME.err.
runtime_line() { grep '^gpucore-inferior: .*: \(aborting\|continuing\|exiting\)' "$1.err" || true; }

# No process of this case left: nothing runs with this work directory in its command line or
# its current directory.
no_leftover() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/cwd" 2>/dev/null)" = "$work" ] || continue
    [ "${p#/proc/}" != "$$" ] || continue
    fail "process ${p#/proc/} ($(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)) was left running"
  done
}

# baseline SCENARIO_FILE: the program without the hook: its status and message.
baseline() {
  prog base "$1"
  base_rc=$prc
  base_line=$(runtime_line base)
  [ -n "$base_line" ] || fail "the inferior without the hook printed no runtime message: $(cat base.err)"
}

# same_as_baseline NAME: the program's status and runtime message are those without the hook.
same_as_baseline() {
  [ "$prc" -eq "$base_rc" ] || fail "$1: the program exited $prc with the hook, $base_rc without"
  [ "$(runtime_line "$1")" = "$base_line" ] ||
    fail "$1: the runtime's message changed: '$(runtime_line "$1")' vs '$base_line'"
}

# one_hook_line NAME WHAT: besides the runtime's message exactly one line, matching WHAT; no core.
one_hook_line() {
  local other
  other=$(grep -v '^gpucore-inferior: ' "$1.err" || true)
  [ "$(printf '%s\n' "$other" | grep -c .)" -eq 1 ] ||
    fail "$1: expected one line besides the program's, got: $(cat "$1.err")"
  printf '%s\n' "$other" | grep -q -- "$2" || fail "$1: the line does not say '$2': $other"
  if ls ./*.core gpucore.* >/dev/null 2>&1; then fail "$1: a core was written: $(ls)"; fi
  same_as_baseline "$1"
  no_leftover
}

# helper_failed NAME HELPER_LINE STATUS: the helper's own line (HELPER_LINE), then the hook's
# saying that no core was written because gpucore capture exited STATUS; nothing else.
helper_failed() {
  local other
  other=$(grep -v '^gpucore-inferior: ' "$1.err" || true)
  [ "$(printf '%s\n' "$other" | grep -c .)" -eq 2 ] ||
    fail "$1: expected two lines besides the program's, got: $(cat "$1.err")"
  printf '%s\n' "$other" | head -1 | grep -q -- "$2" || fail "$1: the helper's line does not say '$2': $other"
  printf '%s\n' "$other" | tail -1 |
    grep -q -- "^gpucore-hook: .*: no core: gpucore capture failed (exit status $3, its message is above)$" ||
    fail "$1: the hook's line does not say that no core was written: $other"
  if ls ./*.core gpucore.* >/dev/null 2>&1; then fail "$1: a core was written: $(ls)"; fi
  same_as_baseline "$1"
  no_leftover
}

# compare RUNCORE HOOKCORE EXPECTED_CODE HOOK_CALLBACK: the two cores have the same GPU content;
# the hook's names the thread that ran HOOK_CALLBACK (the hook's function the runtime called).
compare() {
  "$gpucore" analyze --json "$1" >run.analyze || fail "analyze $1"
  "$gpucore" analyze --json "$2" >hook.analyze || fail "analyze $2"
  "$gpucore" analyze --json --sysroot / "$2" >hook.sysroot.analyze || fail "analyze --sysroot / $2"
  "$gpucore" analyze "$2" >hook.txt || fail "analyze $2 (text)"
  "$gpucore" dbgapi-dump "$1" >run.dump 2>&1 || fail "dbgapi-dump $1: $(tail -1 run.dump)"
  "$gpucore" dbgapi-dump "$2" >hook.dump 2>&1 || fail "dbgapi-dump $2: $(tail -1 hook.dump)"
  "$gpucore" info --json "$1" >run.info || fail "info $1"
  "$gpucore" info --json "$2" >hook.info || fail "info $2"
  python3 - "$3" "$4" "$1" "$2" <<'EOF' || exit 1
import json, re, struct, sys

def fail(why):
    print("FAIL [hook compare]: " + why, file=sys.stderr)
    sys.exit(1)

expected_code = int(sys.argv[1])
run, hook = json.load(open("run.analyze")), json.load(open("hook.analyze"))
run_info, hook_info = json.load(open("run.info")), json.load(open("hook.info"))

# The hook's core has no exception_status: the kernel records an exception only for a process
# that has a debugger when it is raised (kfd_dbg_ev_raise), and the runtime learned of this
# one before the helper enabled debugging. The trigger and the exception are in the capture
# metadata instead.
def exceptions(doc):
    out = list(doc["exceptions"])
    for a in doc["agents"]:
        out += a["exceptions"]
        for q in a.get("queues", []):
            out += q.get("exceptions", [])
    return out
if exceptions(hook):
    fail("the hook's core reports exception_status bits the kernel would not have: %s" % exceptions(hook))
if not exceptions(run):
    fail("the run core reports no exception")
if hook_info["capture"]["trigger"] != run_info["capture"]["trigger"]:
    fail("trigger %s vs %s" % (hook_info["capture"]["trigger"], run_info["capture"]["trigger"]))
if hook_info["capture"]["exception"]["code"] != expected_code:
    fail("the hook's core records exception %s, expected %d" % (hook_info["capture"]["exception"], expected_code))
# The report says so: the exception the capture recorded, since the driver's state has none.
ce = hook.get("capture_exception")
if not ce or ce["exception"] != hook_info["capture"]["exception"]["name"]:
    fail("the hook's report does not name the recorded exception: %s" % ce)
if not any("reported before debugging was enabled" in s for s in hook["summary"]):
    fail("the hook's summary does not say the error came before the capture: %s" % hook["summary"])
if run.get("capture_exception", 0) is not None:
    fail("the run core's report has a capture_exception though its driver state has the error")
if hook_info["capture"]["fault_reasons"] != run_info["capture"]["fault_reasons"]:
    fail("fault reasons %s vs %s" % (hook_info["capture"]["fault_reasons"], run_info["capture"]["fault_reasons"]))
if hook_info["capture"]["fault_address"] != run_info["capture"]["fault_address"]:
    fail("fault address %s vs %s" % (hook_info["capture"]["fault_address"], run_info["capture"]["fault_address"]))

# The thread that met the error. The tid the core records (CAPTURE_META error_thread, 1.3)...
callback, hook_core = sys.argv[2], sys.argv[4]
tid = hook_info["capture"]["error_thread"]
if not isinstance(tid, int) or tid <= 0:
    fail("the hook's core records no error thread: %r" % tid)
if run_info["capture"]["error_thread"] is not None:
    fail("the run core records an error thread: %r" % run_info["capture"]["error_thread"])

# ... is the first NT_PRSTATUS of the host notes (read here from the ELF, not by gpucore) ...
def prstatus_pids(path):
    b = open(path, "rb").read()
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    pids = []
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", b, phoff + i * phentsize)
        if p_type != 4:  # PT_NOTE
            continue
        at, end = p_offset, p_offset + p_filesz
        while at + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", b, at)
            name = b[at + 12:at + 12 + namesz].rstrip(b"\0")
            desc = at + 12 + (namesz + 3) // 4 * 4
            if name == b"CORE" and ntype == 1:
                pids.append(struct.unpack_from("<I", b, desc + 32)[0])
            at = desc + (descsz + 3) // 4 * 4
    return pids
pids = prstatus_pids(hook_core)
if not pids or pids[0] != tid:
    fail("the error thread %d is not first in the host notes: %s" % (tid, pids))
if pids.count(tid) != 1:
    fail("the error thread %d is written %d times" % (tid, pids.count(tid)))

# ... and the thread whose backtrace runs through the hook's callback, called by the runtime's
# event thread; the report marks it, and it alone, met_error.
threads = json.load(open("hook.sysroot.analyze"))["host"]["threads"]
def symbols(t):
    return [f["symbol"] for f in t["frames"]]
ran = [t["tid"] for t in threads if callback in symbols(t) and "events_main" in symbols(t)]
if ran != [tid]:
    fail("the thread that ran %s through events_main is %s, the core names %d: %s"
         % (callback, ran, tid, [(t["tid"], symbols(t)) for t in threads]))
met = [t["tid"] for t in threads if t["met_error"]]
if met != [tid] or not threads[0]["met_error"] or not threads[0]["first"]:
    fail("met_error marks %s (first: %s), expected %d" % (met, threads[0]["tid"], tid))
if any(t["met_error"] for t in run["host"]["threads"]):
    fail("the run core's report marks a thread met_error")
line = "  thread %d (the core's first; the GPU error was reported on it):" % tid
if line not in open("hook.txt").read().splitlines():
    fail("the text report does not say '%s'" % line.strip())

# What must differ: the core's name, the pid (also in memory:// URIs), and what the exception
# status decides (above); the host threads (their tids, where each stood, which is first) are
# checked above. Everything else of the GPU analysis is compared as is.
def norm(doc, pid):
    text = json.dumps(doc, sort_keys=True)
    text = text.replace("memory://%d#" % pid, "memory://PID#")
    d = json.loads(text)
    d["core"] = "CORE"
    d["capture"]["pid"] = "PID"
    d["exceptions"] = []
    d["capture_exception"] = None
    d["host"] = None
    d["summary"] = [s for s in d["summary"]
                    if " raised " not in s and "reported before debugging was enabled" not in s]
    for a in d["agents"]:
        a["exceptions"] = []
        for q in a.get("queues", []):
            q["exceptions"] = []
    return d
a, b = norm(run, run["capture"]["pid"]), norm(hook, hook["capture"]["pid"])
if a != b:
    for k in a:
        if a[k] != b.get(k):
            fail("analyze --json differs in '%s': %s vs %s" % (k, json.dumps(a[k])[:300], json.dumps(b.get(k))[:300]))
    fail("analyze --json differs")

# dbgapi-dump: the same but for the names, the pid and the queue state the exception decides.
def dump(path, core, pid):
    out = []
    for line in open(path):
        line = line.replace(core, "CORE").replace("memory://%d#" % pid, "memory://PID#")
        if re.match(r"\s*(state|error_reason)\s", line):
            continue
        out.append(line)
    return out
da = dump("run.dump", "run.core", run["capture"]["pid"])
db = dump("hook.dump", "hook.core", hook["capture"]["pid"])
if da != db:
    for i, (x, y) in enumerate(zip(da, db)):
        if x != y:
            fail("dbgapi-dump differs at line %d: %r vs %r" % (i + 1, x, y))
    fail("dbgapi-dump differs in length: %d vs %d lines" % (len(da), len(db)))
EOF
}

# capture_case SCENARIO EXPECTED_CODE HOOK_CALLBACK: run's core and the hook's core of one
# scenario.
capture_case() {
  late "$1" late.json
  baseline late.json
  rc=0
  "$gpucore" run -o run.core -- "${norand[@]}" "$inferior" late.json --objects "$objects" \
    >run.out 2>run.err || rc=$?
  [ -s run.core ] || fail "gpucore run wrote no core (exit $rc): $(cat run.err)"
  export HSA_TOOLS_LIB=$hook GPUCORE_BIN=$gpucore GPUCORE_OUTPUT=$work/hook.core
  prog hooked late.json
  unset HSA_TOOLS_LIB GPUCORE_BIN GPUCORE_OUTPUT
  [ -s hook.core ] || fail "the hook wrote no core: $(cat hooked.err)"
  same_as_baseline hooked
  grep -q "^gpucore: $work/hook.core: " hooked.err || fail "no summary line: $(cat hooked.err)"
  # The hook said when its thread was back in its own code, so the capture never stops that
  # thread on its way out of posix_spawn's clone3 (whose return has no unwind information).
  if grep -q -- "--hook-ready-fd" hooked.err; then
    fail "the capture did not hear from the hook: $(grep -- --hook-ready-fd hooked.err)"
  fi
  compare run.core hook.core "$2" "$3"
  no_leftover
}

case $case in
memory-fault)
  capture_case vadd-fault 33 on_system_event # EC_DEVICE_MEMORY_VIOLATION, with the fault address
  ;;
queue-error)
  capture_case rdna2-illegal 4 on_queue_error # EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION
  ;;
no-gpucore)
  late vadd-fault late.json
  baseline late.json
  export HSA_TOOLS_LIB=$hook
  GPUCORE_BIN=$work/no/such/gpucore prog bin late.json
  one_hook_line bin "no core: cannot run $work/no/such/gpucore: No such file or directory"
  PATH=/usr/bin:/bin prog path late.json
  one_hook_line path "no core: gpucore not found (set GPUCORE_BIN or PATH)"
  ;;
capture-fails)
  late vadd-fault late.json
  baseline late.json
  export HSA_TOOLS_LIB=$hook GPUCORE_BIN=$gpucore
  # The helper's line says why, the hook's that no core was written.
  GPUCORE_OPTIONS="--tier all --no-such-option" prog badopt late.json
  helper_failed badopt "unknown option or missing value in '--no-such-option'" 64
  GPUCORE_OUTPUT=$work/no/such/dir/core prog unwritable late.json
  helper_failed unwritable "cannot write $work/no/such/dir/core" 73
  ;;
deadline)
  late vadd-fault late.json
  baseline late.json
  export HSA_TOOLS_LIB=$hook GPUCORE_BIN=$gpucore GPUCORE_HOOK_TIMEOUT=1
  GPUCORE_SIM_FAULTS='[{ "op": "suspend", "delay_ms": 4000 }]' prog slow late.json
  one_hook_line slow "did not finish within 1 s (GPUCORE_HOOK_TIMEOUT); it was killed"
  ;;
second-error)
  late vadd-fault late.json continue twice
  export HSA_TOOLS_LIB=$hook GPUCORE_BIN=$gpucore GPUCORE_OUTPUT=$work/hook.core
  e2e_start_inferior late.json
  for _ in $(seq 1 600); do
    [ "$(grep -c 'continuing' inferior.err)" -ge 2 ] && break
    sleep 0.05
  done
  [ "$(grep -c 'continuing' inferior.err)" -eq 2 ] ||
    fail "the runtime did not report both errors: $(cat inferior.err)"
  e2e_stop_inferior
  [ -s hook.core ] || fail "no core of the first error: $(cat inferior.err)"
  [ "$(ls | grep -c 'core')" -eq 1 ] || fail "more than one core: $(ls)"
  [ "$(grep -c '^gpucore-hook: GPU memory fault at 0x7f39f5000040 in process [0-9]*: not captured: the hook captures the first GPU error of a process only$' inferior.err)" -eq 1 ] ||
    fail "the second error was not said once: $(cat inferior.err)"
  [ "$(grep -vc '^gpucore-inferior: ' inferior.err)" -eq 2 ] ||
    fail "expected the capture's summary and one hook line: $(cat inferior.err)"
  no_leftover
  ;;
sigchld-ignored)
  late vadd-fault late.json
  baseline late.json
  export HSA_TOOLS_LIB=$hook GPUCORE_BIN=$gpucore GPUCORE_OUTPUT=$work/hook.core
  # An ignored SIGCHLD is inherited across exec.
  prc=0
  timeout 120 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "${norand[@]}" "$inferior" late.json --objects "$objects" \
    >ign.out 2>ign.err || prc=$?
  [ -s hook.core ] || fail "the hook wrote no core with SIGCHLD ignored: $(cat ign.err)"
  same_as_baseline ign
  [ "$(grep -vc '^gpucore-inferior: ' ign.err)" -eq 1 ] || fail "expected the summary only: $(cat ign.err)"
  no_leftover
  ;;
table)
  late vadd-fault late.json
  baseline late.json
  export HSA_TOOLS_LIB=$hook GPUCORE_BIN=$gpucore
  GPUCORE_SIM_HSA_TABLE="1 64 304" prog small late.json # core table ends before hsa_queue_create
  one_hook_line small "not loaded: the runtime's core or AMD extension table is too small"
  GPUCORE_SIM_HSA_TABLE="1 80 272" prog smallamd late.json # AMD table ends before the handler
  one_hook_line smallamd "not loaded: the runtime's core or AMD extension table is too small"
  GPUCORE_SIM_HSA_TABLE="2 80 304" prog major late.json # another major version
  one_hook_line major "not loaded: the runtime's API table (version 2"
  # ROCr 6.1's tables (majors 3, 2, 2; the AMD table's handler slot 16 bytes further on): the
  # hook loads, registers its handler in the right slot and captures the memory fault.
  GPUCORE_SIM_HSA_TABLE=rocm6 GPUCORE_OUTPUT=$work/rocm6.core prog rocm6 late.json
  same_as_baseline rocm6
  [ -s rocm6.core ] || fail "rocm6: the hook wrote no core: $(cat rocm6.err)"
  ! grep -q '^gpucore-hook: ' rocm6.err || fail "rocm6: the hook complained: $(cat rocm6.err)"
  grep -q "^gpucore: $work/rocm6.core: " rocm6.err || fail "rocm6: no summary line: $(cat rocm6.err)"
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
exit 0
