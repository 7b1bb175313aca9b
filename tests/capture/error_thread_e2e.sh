#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore capture --error-thread TID` (tests/error_thread.cmake): the thread on which the
# runtime reported the GPU error, as libgpucore-hook.so passes it.
#
#   error_thread_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS
#
# Usage errors (64): not a thread id, 0, without --trigger, given to `gpucore run`; the same for
# --hook-ready-fd (the hook's "ready" pipe). On a running
# gpucore-inferior (simulated driver): a thread that is not the leader is recorded (info
# error_thread), written first in the host notes and marked met_error by the report; a tid that
# is not a thread of the target is one warning line, the core is written, nothing recorded and
# the leader is first as without the option. --hook-ready-fd: nothing stops the target before
# the byte arrives; a closed pipe goes on at once; no pipe or no byte within 2 s is one warning.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name="error-thread"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
export GPUCORE_KFD=sim

# usage NAME MESSAGE ARGS...: gpucore ARGS exits 64 with MESSAGE on stderr.
usage() {
  local name=$1 msg=$2
  shift 2
  gc "$name" "$@"
  expect_rc 64 "$name"
  grep -qF -- "$msg" "$name.err" || fail "$name: stderr does not say '$msg': $(cat "$name.err")"
}
usage notnum "--error-thread takes a thread id, got 'x12'" \
  capture --trigger memory-violation --error-thread x12 1
usage zero "--error-thread takes a thread id, got '0'" \
  capture --trigger memory-violation --error-thread 0 1
usage notrigger "--error-thread goes with --trigger" capture --error-thread 5 1
usage run "--error-thread is an option of gpucore capture" run --error-thread 5 -- true
usage readyfd "--hook-ready-fd takes a descriptor number of 3 or more, got '2'" \
  capture --trigger memory-violation --hook-ready-fd 2 1
usage readynotrigger "--hook-ready-fd goes with --trigger" capture --hook-ready-fd 3 1
usage readyrun "--hook-ready-fd is an option of gpucore capture" run --hook-ready-fd 3 -- true
gc help capture --help
expect_rc 0 help
grep -q -- "--error-thread TID" help.out || fail "capture --help does not document --error-thread"
grep -q -- "--hook-ready-fd FD" help.out || fail "capture --help does not document --hook-ready-fd"

e2e_need_ptrace
e2e_continue_copy "$scenarios/vadd-fault.json" scenario.json
e2e_start_inferior scenario.json
tid=$(ls "/proc/$ipid/task" | grep -vx "$ipid" | sort -n | tail -1)
[ -n "$tid" ] || fail "the inferior has no thread besides its leader"

# check CORE WANT_ERROR_THREAD WANT_FIRST: info's error_thread (null for 0), the report's first
# thread and the one thread marked met_error (none for 0).
check() {
  "$gpucore" info --json "$1" >"$1.info" || fail "info $1"
  "$gpucore" analyze --json "$1" >"$1.analyze" || fail "analyze $1"
  "$gpucore" analyze "$1" >"$1.txt" || fail "analyze $1 (text)"
  python3 - "$1" "$2" "$3" <<'PY' || exit 1
import json, sys
core, want, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def fail(why):
    print("FAIL [error-thread]: %s: %s" % (core, why), file=sys.stderr)
    sys.exit(1)
got = json.load(open(core + ".info"))["capture"]["error_thread"]
if got != (want or None):
    fail("info error_thread %r, expected %r" % (got, want or None))
threads = json.load(open(core + ".analyze"))["host"]["threads"]
if threads[0]["tid"] != first or not threads[0]["first"]:
    fail("first thread %d, expected %d" % (threads[0]["tid"], first))
met = [t["tid"] for t in threads if t["met_error"]]
if met != ([want] if want else []):
    fail("met_error on %s, expected %s" % (met, want or "none"))
text = open(core + ".txt").read()
said = "; the GPU error was reported on it)" in text
if said != bool(want):
    fail("the text %s the GPU error was reported on a thread" % ("says" if said else "does not say"))
PY
}

gc rec capture --trigger memory-violation --error-thread "$tid" -o rec.core "$ipid"
expect_rc 0 rec
grep -q "warning" rec.err && fail "a warning for a thread of the target: $(cat rec.err)"
check rec.core "$tid" "$tid"

gc other capture --trigger memory-violation --error-thread "$$" -o other.core "$ipid"
expect_rc 0 other
grep -qxF "gpucore: warning: --error-thread $$ is not a thread of process $ipid: not recorded" \
  other.err || fail "no warning for a tid that is not the target's: $(cat other.err)"
check other.core 0 "$ipid"

# --hook-ready-fd: the capture leaves the target alone until the hook's byte (or the end of the
# pipe) arrives. The byte is held back here until the target is seen untraced with the capture
# already started and waiting on the pipe.
# The checks fork nothing (the capture goes on by itself after 2 s without the byte, and a
# loaded machine made 40 checks that each started awk and sleep take longer than that).
tracer_pid() {
  local k v
  tracer=
  while read -r k v; do
    [ "$k" = TracerPid: ] && { tracer=$v; return; }
  done <"/proc/$ipid/status"
}
rm -f ready.fifo silent.fifo
mkfifo ready.fifo
rc=0
"$gpucore" capture --trigger memory-violation --hook-ready-fd 3 -o ready.core "$ipid" \
  3<ready.fifo >ready.out 2>ready.err &
cpid=$!
exec 4>ready.fifo
exec 5<> <(:) # nobody writes: `read -t` on it is a sleep without a process
for _ in $(seq 1 20); do
  tracer_pid
  [ "$tracer" = 0 ] || fail "the capture stopped the target before the hook said it was ready"
  read -r -t 0.025 -u 5 _ || true
done
exec 5<&-
[ -e ready.core ] && fail "a core was written before the hook said it was ready"
printf g >&4
exec 4>&-
wait "$cpid" || rc=$?
expect_rc 0 ready
grep -q "warning" ready.err && fail "a warning for a ready hook: $(cat ready.err)"
[ -s ready.core ] || fail "no core after the hook said it was ready"

# A hook that closed the pipe without a byte (it died): no wait, no warning.
gc eof capture --trigger memory-violation --hook-ready-fd 3 -o eof.core "$ipid" 3< <(true)
expect_rc 0 eof
grep -q "warning" eof.err && fail "a warning for a closed pipe: $(cat eof.err)"
# A descriptor that is no pipe, and a hook that never writes: one warning each, then the core.
gc notpipe capture --trigger memory-violation --hook-ready-fd 3 -o notpipe.core "$ipid" 3</dev/null
expect_rc 0 notpipe
grep -qxF "gpucore: warning: capture --hook-ready-fd 3: not an open pipe; going on" notpipe.err ||
  fail "no warning for a descriptor that is no pipe: $(cat notpipe.err)"
mkfifo silent.fifo
exec 5<>silent.fifo # a writer that never writes, and no process left behind
gc silent capture --trigger memory-violation --hook-ready-fd 3 -o silent.core "$ipid" 3<silent.fifo
exec 5>&-
expect_rc 0 silent
grep -qxF "gpucore: warning: capture --hook-ready-fd 3: the hook did not say it was ready within 2000 ms; going on" \
  silent.err || fail "no warning for a hook that never said it was ready: $(cat silent.err)"
[ -s silent.core ] || fail "no core after the hook stayed silent"

e2e_stop_inferior
exit 0
