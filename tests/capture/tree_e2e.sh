#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `gpucore run` following a whole process tree, on the simulated GPU
# (tests/capture_tree.cmake).
#
#   tree_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE [ARG]
#
# Each case runs `gpucore run --kfd sim -o out/core.%p -- LAUNCHER` where the launcher starts
# gpucore-inferiors (which make the runtime-enable ioctl that arms them), and checks the cores
# by pid, gpucore's exit status (the launcher's), the stderr lines, and the process table
# afterwards: no process of the tree is left stopped or traced.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip.

set -euo pipefail

[ $# -ge 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE [ARG]" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6 arg=${7:-}
here=$(cd "$(dirname "$0")" && pwd)
test_name="tree $case${arg:+ $arg}"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

gpid=
# descendants PID: every process below PID (gpucore run is the tree's subreaper: an orphan of
# the tree is its child), deepest last.
descendants() {
  local c
  for c in $(pgrep -P "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}
cleanup() {
  # A failed case leaves nothing behind: gpucore run and every process of its tree (a
  # debugger's among them, which no pids file names).
  if [ -n "$gpid" ]; then
    for p in $(descendants "$gpid"); do kill -KILL "$p" 2>/dev/null || true; done
    kill -KILL "$gpid" 2>/dev/null || true
  fi
  for p in $(cat pids* 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
}
e2e_exit_hook=cleanup
mkdir -p out

# run_fg LAUNCHER-ARGS...: `gpucore run` in the foreground; status in $rc, run.out/run.err.
run_fg() {
  rc=0
  "$gpucore" run --kfd sim -o 'out/core.%p' -- "$@" >run.out 2>run.err || rc=$?
  [ "$rc" -ne 77 ] || ! grep -qi ptrace run.err || skip "$(cat run.err)"
}

# run_bg LAUNCHER-ARGS...: the same in the background, pid $gpid.
run_bg() {
  : >run.out
  : >run.err
  "$gpucore" run --kfd sim -o 'out/core.%p' -- "$@" >>run.out 2>>run.err &
  gpid=$!
}

# wait_for FILE PATTERN [WHAT]: until FILE has a line matching PATTERN (20 s at most).
wait_for() {
  for _ in $(seq 1 400); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    [ -z "$gpid" ] || kill -0 "$gpid" 2>/dev/null || break
    sleep 0.05
  done
  grep -q -- "$2" "$1" 2>/dev/null || fail "${3:-$2} never came in $1: $(cat run.err)"
}

# ready_pid FILE: the pid a gpucore-inferior said it has ("gpucore-inferior: pid N ready").
ready_pid() { sed -n 's/^gpucore-inferior: pid \([0-9]*\) ready$/\1/p' "$1" | head -1; }

# inferior_cmd SCENARIO-FILE: the shell words that start an inferior on it.
inferior_cmd() { printf '%q %q --objects %q' "$inferior" "$1" "$objects"; }

# field PID KEY: KEY of /proc/PID/status ("" if the process is gone).
field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null || true; }

# tree_clean PIDS...: every process still alive among PIDS is neither traced nor stopped
# (State T or t), and gpucore run has ended.
tree_clean() {
  ! kill -0 "${gpid:-0}" 2>/dev/null || [ -z "$gpid" ] || fail "gpucore run (pid $gpid) still runs"
  local p st tr
  for p in "$@"; do
    st=$(field "$p" State)
    [ -n "$st" ] || continue
    tr=$(field "$p" TracerPid)
    [ "$tr" = 0 ] || fail "process $p is still traced by $tr"
    case "$st" in T*|t*) fail "process $p is left stopped ($st)" ;; esac
  done
}

# no_tree_left PIDS...: none of PIDS runs any more.
no_tree_left() {
  local p
  for p in "$@"; do
    ! kill -0 "$p" 2>/dev/null || fail "process $p ($(cat /proc/"$p"/comm 2>/dev/null)) still runs"
  done
}

# ended PIDS...: none of PIDS runs any more: gone, or a zombie whose new parent (init, once
# its own parent died) has not reaped it yet; gpucore run had its exit status already.
ended() {
  local p st
  for p in "$@"; do
    st=$(field "$p" State)
    case "$st" in ""|Z*) ;; *) fail "process $p ($(cat /proc/"$p"/comm 2>/dev/null)) still runs ($st)" ;; esac
  done
}

# cores: the core files written, one per line, sorted.
cores() { (cd out && ls | sort); }

case "$case" in
sh)
  # A shell launcher: the GPU process is the shell's child; its core has its pid, and gpucore
  # exits with the shell's status.
  # (The pid comes from the shell: the inferior may abort before it says "ready", as the
  # capture can come first.)
  run_fg sh -c "$(inferior_cmd "$scenarios/vadd-fault.json") & echo \$! >pids; wait \$!; echo shell-after; exit 9"
  [ "$rc" -eq 9 ] || fail "gpucore run exited $rc, expected the shell's 9: $(cat run.err)"
  pid=$(cat pids)
  [ "$(cores)" = "core.$pid" ] || fail "cores written: $(cores), expected core.$pid"
  grep -q "^gpucore: out/core.$pid: .*256 waves (4 faulting)" run.err || fail "no summary: $(cat run.err)"
  grep -q "^shell-after$" run.out || fail "the shell did not go on after its child"
  gc info info --json "out/core.$pid"
  expect_rc 0 info
  python3 -c 'import json,sys; d=json.load(open("info.out")); sys.exit(0 if d["capture"]["trigger"] == "memory-violation" else 1)' ||
    fail "trigger is not memory-violation"
  ;;
fan-out)
  # A launcher that forks four GPU processes, two of which fault: two cores, named by the
  # right pids, each captured once (--json: one record per core); the two others are armed
  # but untouched, and end with status 0 when told to.
  cat >launcher.sh <<EOF
#!/bin/sh
$(inferior_cmd "$scenarios/vadd-fault.json") >a.out 2>&1 & a=\$!
$(inferior_cmd "$scenarios/rdna3-assert.json") >b.out 2>&1 & b=\$!
$(inferior_cmd "$scenarios/multi-gpu-hang.json") >c.out 2>&1 & c=\$!
$(inferior_cmd "$scenarios/multi-gpu-hang.json") >d.out 2>&1 & d=\$!
echo "\$a \$b \$c \$d" >pids
wait \$a; echo "a \$?" >st
wait \$b; echo "b \$?" >>st
for f in c.out d.out; do while ! grep -q ready \$f; do sleep 0.05; done; done
kill -TERM \$c \$d
wait \$c; echo "c \$?" >>st
wait \$d; echo "d \$?" >>st
exit 5
EOF
  rc=0
  "$gpucore" run --kfd sim --json=cores.json -o 'out/core.%p' -- sh launcher.sh >run.out 2>run.err || rc=$?
  [ "$rc" -ne 77 ] || ! grep -qi ptrace run.err || skip "$(cat run.err)"
  [ "$rc" -eq 5 ] || fail "gpucore run exited $rc, expected the launcher's 5: $(cat run.err)"
  read -r a b c d <pids
  for f in c d; do [ "$(ready_pid $f.out)" = "${!f}" ] || fail "inferior $f: $(cat $f.out)"; done
  want=$(printf 'core.%s\ncore.%s\n' "$a" "$b" | sort)
  [ "$(cores)" = "$want" ] || fail "cores written: $(cores | tr '\n' ' '), expected core.$a core.$b"
  printf 'a 134\nb 134\nc 0\nd 0\n' | cmp -s - st || fail "statuses of the inferiors: $(cat st)"
  [ "$(grep -c '^gpucore: out/core\.' run.err)" -eq 2 ] || fail "not two summaries: $(cat run.err)"
  python3 - "$a" "$b" <<'PY' || fail "--json records: $(cat cores.json)"
import json, sys
recs = [json.loads(l) for l in open("cores.json")]
pids = sorted(r["pid"] for r in recs)
assert pids == sorted(int(p) for p in sys.argv[1:]), pids
for r in recs:
    assert r["path"] == "out/core.%d" % r["pid"], r
PY
  tree_clean "$a" "$b" "$c" "$d"
  ;;
python)
  # Python multiprocessing: worker processes that run the inferior through subprocess; one
  # faults (a core with its pid), one is a plain computation (nothing), the parent exits 3.
  cat >mp.py <<EOF
import multiprocessing, subprocess, sys
def gpu():
    p = subprocess.Popen([${inferior@Q}, ${scenarios@Q} + "/vadd-fault.json", "--objects", ${objects@Q}])
    open("pids", "w").write("%d\n" % p.pid)
    sys.exit(0 if p.wait() == -6 else 1)
def cpu():
    sys.exit(0 if sum(range(100000)) == 4999950000 else 1)
if __name__ == "__main__":
    ps = [multiprocessing.Process(target=gpu), multiprocessing.Process(target=cpu)]
    for p in ps: p.start()
    for p in ps: p.join()
    sys.exit(3 if all(p.exitcode == 0 for p in ps) else 1)
EOF
  run_fg python3 mp.py
  [ "$rc" -eq 3 ] || fail "gpucore run exited $rc, expected the script's 3: $(cat run.err)"
  pid=$(cat pids)
  [ "$(cores)" = "core.$pid" ] || fail "cores written: $(cores), expected core.$pid"
  ;;
no-gpu)
  # A fork/exec-heavy tree without a GPU process: no core, no message but the summary of no
  # exception, the command's status. 150 processes alive at once make gpucore's tables grow
  # while it handles their fork events.
  run_fg sh -c 'i=0; while [ $i -lt 200 ]; do /bin/true; (:); i=$((i+1)); done
                i=0; while [ $i -lt 150 ]; do sleep 0.5 & i=$((i+1)); done; wait; exit 7'
  [ "$rc" -eq 7 ] || fail "gpucore run exited $rc, expected the command's 7: $(cat run.err)"
  [ -z "$(cores)" ] || fail "a core was written: $(cores)"
  grep -q "ended (status 7) without a GPU exception; no core written" run.err || fail "message: $(cat run.err)"
  [ "$(wc -l <run.err)" -eq 1 ] || fail "more than one line: $(cat run.err)"
  ;;
signal)
  # SIGTERM to gpucore run at each phase ($arg) of a tree: passed on to the launcher, which
  # passes it on to its children and exits 7; gpucore exits 7; nothing is left stopped,
  # traced or running.
  case "$arg" in
  before) scen="" ;;
  armed) scen=$scenarios/multi-gpu-hang.json ;;
  capture)
    e2e_continue_copy "$scenarios/big-memory.json" big.json
    scen=$PWD/big.json
    export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]' ;;
  after)
    e2e_continue_copy "$scenarios/vadd-fault.json" vadd.json
    scen=$PWD/vadd.json ;;
  esac
  {
    echo '#!/bin/sh'
    echo 'trap '\''kill -TERM $kids 2>/dev/null; wait; exit 7'\'' TERM'
    echo 'sleep 60 & kids=$!; echo $! >pids.sleep'
    [ -z "$scen" ] || echo "$(inferior_cmd "$scen") >inf.out 2>inf.err & kids=\"\$kids \$!\"; echo \$! >pids.inf"
    echo 'echo $$ >pids.sh'
    echo 'wait'
  } >launcher.sh
  if [ "$arg" = capture ]; then
    "$gpucore" run --kfd sim --tier all -o 'out/core.%p' -- sh launcher.sh >>run.out 2>>run.err &
    gpid=$!
  else
    run_bg sh launcher.sh
  fi
  unset GPUCORE_SIM_FAULTS
  wait_for pids.sh . "the launcher"
  # (The pid comes from the launcher: a capture can stop the inferior before it says ready.)
  [ -z "$scen" ] || ipid_=$(cat pids.inf)
  case "$arg" in
  armed)
    for _ in $(seq 1 400); do
      "$gpucore" kfd-check --kfd sim --state --pid "$ipid_" 2>/dev/null | grep -q "debugging enabled" && break
      sleep 0.05
    done
    "$gpucore" kfd-check --kfd sim --state --pid "$ipid_" 2>/dev/null | grep -q "debugging enabled" ||
      fail "the inferior was not armed: $(cat run.err)" ;;
  capture)
    for _ in $(seq 1 400); do
      grep -q "^State:.*t (tracing stop)" "/proc/$ipid_/status" 2>/dev/null && break
      sleep 0.05
    done
    grep -q "^State:.*t (tracing stop)" "/proc/$ipid_/status" || fail "the capture did not start: $(cat run.err)" ;;
  after)
    wait_for inf.err continuing "the runtime's message"
    for _ in $(seq 1 400); do [ -e "out/core.$ipid_" ] && break; sleep 0.05; done
    [ -e "out/core.$ipid_" ] || fail "no core written: $(cat run.err)" ;;
  esac
  all="$(cat pids.sh) $(cat pids.sleep) $(cat pids.inf 2>/dev/null || true)"
  kill -TERM "$gpid"
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq 7 ] || fail "gpucore run sent SIGTERM ($arg) exited $rc, expected the launcher's 7: $(cat run.err)"
  grep -q "^gpucore: SIGTERM passed on to sh (pid $(cat pids.sh))" run.err || fail "message: $(cat run.err)"
  gpid=
  tree_clean $all
  for _ in $(seq 1 100); do kill -0 $all 2>/dev/null || break; sleep 0.05; done
  no_tree_left $all
  case "$arg" in
  capture)
    grep -q "^gpucore: process $ipid_ (.*): capture abandoned on SIGTERM: no core written" run.err || fail "message: $(cat run.err)"
    [ -z "$(cores)" ] || fail "a core was written although interrupted: $(cores)"
    grep -q "continuing" inf.err || fail "the runtime was not handed its error: $(cat inf.err)" ;;
  after) [ "$(cores)" = "core.$ipid_" ] || fail "cores: $(cores)" ;;
  *) [ -z "$(cores)" ] || fail "a core was written: $(cores)" ;;
  esac
  ;;
signal-sh)
  # SIGTERM to `gpucore run -- sh -c 'HANG; true'`: the shell does not pass it on (it dies of
  # it), so before gpucore passed it to the whole tree the GPU process was left running,
  # re-parented to init, for ever. Now every process of the tree gets it: nothing survives,
  # and gpucore exits with the shell's 143.
  run_bg sh -c "echo \$\$ >pids.sh; $(inferior_cmd "$scenarios/multi-gpu-hang.json") & echo \$! >pids.inf; wait \$!; true"
  wait_for run.out ready "the hang scenario"
  wait_for pids.inf . "the inferior's pid"
  all="$(cat pids.sh) $(cat pids.inf)"
  ipid_=$(cat pids.inf)
  for _ in $(seq 1 400); do
    "$gpucore" kfd-check --kfd sim --state --pid "$ipid_" 2>/dev/null | grep -q "debugging enabled" && break
    sleep 0.05
  done
  kill -TERM "$gpid"
  rc=0; wait "$gpid" || rc=$?
  gpid=
  [ "$rc" -eq 143 ] || fail "gpucore run exited $rc, expected the shell's 143: $(cat run.err)"
  grep -q "^gpucore: SIGTERM passed on to sh (pid $(cat pids.sh)) and 1 other process of its tree; waiting for them to end$" run.err ||
    fail "message: $(cat run.err)"
  ended $all
  [ -z "$(cores)" ] || fail "a core was written: $(cores)"
  ;;
signal-stubborn)
  # A process of the tree that ignores the signal: once the command has ended, it has 5 s,
  # then it is killed, so that nothing outlives gpucore run (the line says so). With
  # --leave-tree, the signal goes to the command only and the rest runs on, untraced.
  script='echo $$ >pids.sh; (trap "" TERM; echo $BASHPID >pids.stub; exec sleep 60) & wait'
  run_bg bash -c "$script"
  wait_for pids.stub . "the stubborn child"
  all="$(cat pids.sh) $(cat pids.stub)"
  kill -TERM "$gpid"
  rc=0; wait "$gpid" || rc=$?
  gpid=
  [ "$rc" -eq 143 ] || fail "gpucore run exited $rc, expected the shell's 143: $(cat run.err)"
  grep -q "^gpucore: bash (pid $(cat pids.sh)) ended; 1 process of its tree still ran 5 s after the signal: killed (SIGKILL; --leave-tree lets them run)$" run.err ||
    fail "message: $(cat run.err)"
  ended $all
  rm -f pids.sh pids.stub
  : >run.out; : >run.err
  "$gpucore" run --kfd sim --leave-tree -o 'out/core.%p' -- bash -c "$script" >>run.out 2>>run.err &
  gpid=$!
  wait_for pids.stub . "the stubborn child"
  kill -TERM "$gpid"
  rc=0; wait "$gpid" || rc=$?
  gpid=
  [ "$rc" -eq 143 ] || fail "gpucore run --leave-tree exited $rc, expected 143: $(cat run.err)"
  p=$(cat pids.stub)
  kill -0 "$p" || fail "--leave-tree: the child did not run on"
  tree_clean "$p"
  kill -KILL "$p"
  ;;
left)
  # The command ends while a descendant still runs: gpucore says so, lets go of it (it runs
  # on untraced, not stopped) and exits with the command's status at once.
  run_fg sh -c 'sleep 3 >/dev/null 2>&1 & echo $! >pids; exit 4'
  [ "$rc" -eq 4 ] || fail "gpucore run exited $rc, expected the command's 4: $(cat run.err)"
  p=$(cat pids)
  kill -0 "$p" || fail "the descendant did not run on"
  grep -q "^gpucore: sh (pid [0-9]*) ended; 1 process of its tree still runs, untraced now$" run.err ||
    fail "message: $(cat run.err)"
  tree_clean "$p"
  kill -TERM "$p"
  ;;
job-control)
  # SIGSTOP to the command stops it (job control, as without gpucore), SIGCONT continues it;
  # then stopped again, SIGTERM to gpucore run reaches it (gpucore continues it after passing
  # the signal on): it ends, and gpucore exits with its 143.
  run_bg sh -c 'echo $$ >pids; i=0; while :; do i=$((i+1)); echo $i >count; sleep 0.05; done'
  wait_for count . "the command's counter"
  p=$(cat pids)
  kill -STOP "$p"
  for _ in $(seq 1 100); do case "$(field "$p" State)" in [Tt]*) break ;; esac; sleep 0.05; done
  case "$(field "$p" State)" in [Tt]*) ;; *) fail "SIGSTOP did not stop the command: $(field "$p" State)" ;; esac
  sleep 0.3; n1=$(cat count); sleep 0.5; n2=$(cat count)
  [ "$n1" = "$n2" ] || fail "the stopped command went on counting ($n1, $n2)"
  kill -CONT "$p"
  sleep 0.5; n3=$(cat count)
  [ "$n3" -gt "$n2" ] || fail "SIGCONT did not continue the command ($n2, $n3): $(field "$p" State)"
  kill -STOP "$p"
  for _ in $(seq 1 100); do case "$(field "$p" State)" in [Tt]*) break ;; esac; sleep 0.05; done
  kill -TERM "$gpid"
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq 143 ] || fail "gpucore run exited $rc, expected the stopped command's 143: $(cat run.err)"
  gpid=
  no_tree_left "$p"
  ;;
again)
  # A second GPU exception in a process that was captured: one line naming the pid and the
  # exception, "already captured; not captured again", and no second core.
  python3 - "$scenarios/vadd-fault.json" again.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["on_queue_error"] = "continue"
d["exceptions"].append({"what": "illegal_instruction", "queue": 0, "at_ms": 200})
json.dump(d, open(sys.argv[2], "w"))
PY
  run_bg sh -c "$(inferior_cmd "$PWD/again.json"); exit 6"
  wait_for run.err "already captured; not captured again" "the second exception's line"
  pid=$(ready_pid run.out)
  grep -q "^gpucore: process $pid (gpucore-inferio): GPU exception .*: already captured; not captured again$" run.err ||
    fail "message: $(cat run.err)"
  [ "$(cores)" = "core.$pid" ] || fail "cores: $(cores)"
  kill -TERM "$pid"
  rc=0; wait "$gpid" || rc=$?
  gpid=
  [ "$rc" -eq 6 ] || fail "gpucore run exited $rc, expected 6: $(cat run.err)"
  [ "$(grep -c "already captured" run.err)" -eq 1 ] || fail "recorded more than once: $(cat run.err)"
  ;;
debugger)
  # A debugger in the tree ($arg: strace -f, or gdb) starting a GPU process: gpucore leaves
  # the debuggee alone when it opens the driver, says so in one line, and the debugger traces
  # it as without gpucore.
  # strace-evil: strace under a name holding a terminal's escape sequence and a bell, which
  # gpucore quotes as the debugger's process name: stderr shows them as '?', never raw.
  name=$arg
  case "$arg" in
  strace) command -v strace >/dev/null || skip "strace is not installed"
    dbg=(strace -f -qq -o strace.log -e trace=ioctl) ;;
  strace-evil) command -v strace >/dev/null || skip "strace is not installed"
    name=$(printf 'st\033[31mX\007')
    cp "$(command -v strace)" "./$name"
    dbg=("./$name" -f -qq -o strace.log -e trace=ioctl) ;;
  gdb) command -v gdb >/dev/null || skip "gdb is not installed"
    dbg=(gdb -q -batch -ex "handle SIGTERM nostop noprint pass" -ex run --args) ;;
  esac
  run_bg "${dbg[@]}" "$inferior" "$scenarios/vadd-fault.json" --objects "$objects"
  wait_for run.out ready "the inferior under $arg"
  wait_for run.err "not armed" "the debugger line"
  pid=$(ready_pid run.out)
  tracer=$(field "$pid" TracerPid)
  [ "$tracer" != 0 ] && [ "$tracer" != "$gpid" ] || fail "the debuggee is traced by $tracer (gpucore is $gpid)"
  [ "$(cat "/proc/$tracer/comm")" = "$name" ] || fail "the debuggee's tracer is $(cat "/proc/$tracer/comm")"
  shown=${arg/strace-evil/st?[31mX?}
  grep -qF "opened the GPU driver while being debugged by $tracer ($shown): not armed, left to its debugger" run.err ||
    fail "message: $(cat -v run.err)"
  if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" run.err; then
    fail "a control byte on stderr: $(cat -v run.err)"
  fi
  kill -TERM "$pid"
  rc=0; wait "$gpid" || rc=$?
  gpid=
  [ "$rc" -eq 0 ] || fail "gpucore run exited $rc, expected the debugger's 0: $(cat run.err)"
  [ -z "$(cores)" ] || fail "a core was written: $(cores)"
  if [ "$arg" != gdb ]; then
    # Nothing of gpucore is in the debuggee: the handshake runs as without gpucore (the
    # stand-in device answers ENOTTY; a seccomp filter whose tracer is gone made it ENOSYS).
    grep -q "ioctl(.*0x4b, 0x25, 0x10).* = -1 ENOTTY" strace.log ||
      fail "strace did not see the handshake: $(cat strace.log)"
  fi
  ;;
no-inotify)
  # Where the device cannot be watched for opens (here a seccomp filter of the test's own makes
  # inotify_init1 fail with EMFILE, as a process at its limit of instances has it): one warning
  # line, and the tree is looked at periodically instead: the GPU process is found all the same.
  cat >noinotify.py <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def ins(code, k, jt=0, jf=0): return struct.pack("HBBI", code, jt, jf, k)
LD, JEQ, RET = 0x20, 0x15, 0x06
ALLOW, EMFILE = 0x7fff0000, 0x00050000 | 24
prog = b"".join([
    ins(LD, 0),                 # nr
    ins(JEQ, 294, 0, 1),        # inotify_init1 -> EMFILE
    ins(RET, EMFILE),
    ins(RET, ALLOW),
])
buf = ctypes.create_string_buffer(prog)
class fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = fprog(len(prog) // 8, ctypes.addressof(buf))
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fp), 0, 0) != 0:
    sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
PY
  rc=0
  python3 noinotify.py "$gpucore" run --kfd sim -o 'out/core.%p' -- sh -c 'echo $$ >pids; exec "$@"' \
      sh "$inferior" "$scenarios/vadd-fault.json" --objects "$objects" >run.out 2>run.err || rc=$?
  [ "$rc" -ne 77 ] || skip "cannot install the test's own seccomp filter"
  [ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected the command's 134: $(cat run.err)"
  pid=$(cat pids)
  grep -q "^gpucore: warning: cannot watch .*/kfd for opens (Too many open files): the processes of the tree are looked at every 640 ms instead$" run.err ||
    fail "message: $(cat run.err)"
  [ "$(cores)" = "core.$pid" ] || fail "cores: $(cores), expected core.$pid"
  ;;
let-go)
  # A process gpucore lets go of carries nothing of it: started by the command, it outlives
  # gpucore run, then makes the runtime-enable ioctl and asks to be traced (PTRACE_TRACEME),
  # as a ROCm runtime and a debugger's child do. Both answer as without gpucore (ENOTTY on a
  # file that is no driver; TRACEME succeeds); the seccomp filter gpucore used to leave made
  # both ENOSYS.
  cat >probe.py <<'PY'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
while os.path.exists(sys.argv[1]):          # until gpucore run has ended
    time.sleep(0.02)
fd = os.open("/dev/null", os.O_RDONLY)
buf = ctypes.create_string_buffer(16)
r = libc.ioctl(fd, ctypes.c_ulong(0xC0104B25), buf)
e1 = ctypes.get_errno() if r != 0 else 0
child = os.fork()                           # a debugger's child: traced by the probe
if child == 0:
    r = libc.ptrace(0, 0, 0, 0)             # PTRACE_TRACEME
    os._exit(ctypes.get_errno() if r != 0 else 0)
e2 = os.WEXITSTATUS(os.waitpid(child, 0)[1])
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write("%d %d\n" % (e1, e2))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
PY
  : >running
  rc=0
  "$gpucore" run --kfd sim -o 'out/core.%p' -- sh -c 'python3 probe.py running result & echo $! >pids' \
      >run.out 2>run.err || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore run exited $rc: $(cat run.err)"
  grep -q "ended; 1 process of its tree still runs, untraced now" run.err ||
    fail "no line for the process left running: $(cat run.err)"
  rm running
  for _ in $(seq 1 100); do [ -e result ] && break; sleep 0.05; done
  [ -e result ] || fail "the probe gave no result"
  [ "$(cat result)" = "25 0" ] ||
    fail "the runtime-enable ioctl and PTRACE_TRACEME answered errno $(cat result), expected 25 (ENOTTY) and 0"
  ;;
*)
  fail "unknown case $case"
  ;;
esac
exit 0
