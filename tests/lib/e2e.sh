# SPDX-License-Identifier: MIT
#
# What the end-to-end test scripts that drive gpucore-inferior share (sourced, not run). The
# sourcing script sets $test_name (named in FAIL/SKIP lines), $inferior and $objects before
# it calls e2e_start_inferior, and $gpucore before it calls gc. Sourcing it installs an EXIT
# trap (e2e_finish) that stops the inferior still running ($ipid), runs the script's own
# clean-up function if it named one in $e2e_exit_hook, and removes the directories the test
# entered with e2e_enter when it passed or was skipped. A failed test keeps them to be read;
# GPUCORE_KEEP_TEST_FILES=1 keeps them always. (Left in place, the suite's cores, streams and
# their copies came to 8 GiB over the two builds and filled a CI machine's disk.) A script
# never sets its own EXIT trap: it would replace this one.
#
# Exit codes of a test: 0 pass, 1 fail (one "FAIL [name]: why" line), 77 skip.

fail() { echo "FAIL [$test_name]: $*" >&2; exit 1; }
skip() { echo "SKIP [$test_name]: $*"; exit 77; }

# e2e_enter DIR: DIR emptied (it is private to the test) and made the current directory;
# removed again when the test ends well (see e2e_finish).
e2e_dirs=()
e2e_enter() {
  rm -rf "$1"
  mkdir -p "$1"
  cd "$1"
  e2e_dirs+=("$PWD")
}

# e2e_need_ptrace: skip unless this user may trace processes that are not its children (root,
# or Yama's ptrace_scope 0): capture attaches to a running inferior.
e2e_need_ptrace() {
  if [ "$(id -u)" != 0 ]; then
    local scope
    scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
    [ "$scope" = 0 ] || skip "ptrace is restricted (kernel.yama.ptrace_scope=$scope, not root)"
  fi
}

ipid=
# e2e_stop_inferior: SIGTERM to the running inferior, if any, and wait for it.
e2e_stop_inferior() {
  if [ -n "$ipid" ] && kill -0 "$ipid" 2>/dev/null; then
    kill -TERM "$ipid" 2>/dev/null || true
    wait "$ipid" 2>/dev/null || true
  fi
  ipid=
}

e2e_exit_hook=
# e2e_finish STATUS: the EXIT trap, with the status the script exits with (0 pass, 77 skip,
# anything else a failure). It does not change that status.
e2e_finish() {
  local status=$1 dir
  e2e_stop_inferior
  if [ -n "$e2e_exit_hook" ]; then "$e2e_exit_hook" || true; fi
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then return 0; fi
  [ -z "${GPUCORE_KEEP_TEST_FILES:-}" ] || return 0
  cd /
  # --one-file-system: a mount a case made in its directory (and could not undo) is left
  # alone, not emptied.
  for dir in "${e2e_dirs[@]}"; do rm -rf --one-file-system "$dir" || true; done
}
trap 'e2e_finish $?' EXIT

# e2e_continue_copy SCENARIO OUT: a copy of SCENARIO whose runtime carries on after a GPU error
# (on_queue_error "continue"), so the process outlives a capture and serves the next one.
e2e_continue_copy() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["on_queue_error"]="continue"; json.dump(d, open(sys.argv[2], "w"))' \
    "$1" "$2"
}

# e2e_start_inferior SCENARIO [ARGS...]: start "$inferior" SCENARIO --objects "$objects" ARGS in
# the background (stdout inferior.out, stderr inferior.err), with the environment as exported,
# and wait until it says it is ready; its pid in $ipid.
e2e_start_inferior() {
  local file=$1
  shift
  # Emptied here, not by the background job's redirection, which may run after the first
  # look below: a "ready" left by an earlier inferior must not be taken for this one's.
  : >inferior.out
  : >inferior.err
  "$inferior" "$file" --objects "$objects" "$@" >>inferior.out 2>>inferior.err &
  ipid=$!
  for _ in $(seq 1 1200); do
    grep -q "ready" inferior.out 2>/dev/null && return 0
    kill -0 "$ipid" 2>/dev/null || fail "gpucore-inferior $(basename "$file") exited early: $(cat inferior.err)"
    sleep 0.05
  done
  fail "gpucore-inferior $(basename "$file") did not become ready"
}

# gc NAME ARGS...: run "$gpucore" ARGS with stdout and stderr in NAME.out and NAME.err; its
# status in $rc. A refusal to trace (77 naming ptrace: no rights here) skips the test.
gc() {
  local name=$1
  shift
  rc=0
  "$gpucore" "$@" >"$name.out" 2>"$name.err" || rc=$?
  if [ "$rc" -eq 77 ] && grep -qi "ptrace" "$name.err"; then skip "$(cat "$name.err")"; fi
}

# expect_rc WANT NAME: the last gc NAME exited WANT.
expect_rc() {
  [ "$rc" -eq "$1" ] || fail "gpucore $2 exited $rc, expected $1: $(cat "$2.err")"
}

# e2e_capture_scenario SCENARIO CORE [OPTIONS...]: run a copy of SCENARIO whose runtime carries
# on after a GPU error (so the capture never races its abort), capture it on demand into CORE
# with `gpucore capture --kfd sim` and OPTIONS (gc NAME "cap"), stop it. No rights to trace:
# skip. Leaves scenario.json, cap.out and cap.err in the current directory.
e2e_capture_scenario() {
  local scen=$1 core=$2
  shift 2
  e2e_continue_copy "$scen" scenario.json
  e2e_start_inferior scenario.json
  mkdir -p "$(dirname "$core")"
  gc cap capture --kfd sim "$ipid" -o "$core" "$@"
  if [ "$rc" -eq 77 ] && grep -qi "ptrace" cap.err; then skip "$(cat cap.err)"; fi
  expect_rc 0 cap
  e2e_stop_inferior
}

e2e_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# e2e_rocr_split SCENARIO [CAPTURE-OPTIONS...]: the split pair an AMD GPU crash leaves today,
# made from a capture of SCENARIO (e2e_capture_scenario into out/core, with $objects reached
# through a link objs in the current directory) by tests/analyze/make_rocr_split.py: the
# runtime's GPU file gpucore.$pid and the kernel's host core core.$pid. Sets $pid (the
# target's), leaves `gpucore info --json out/core` in info-json.out and out/core in place.
e2e_rocr_split() {
  local scen=$1
  shift
  ln -sfn "$objects" objs
  objects=objs
  e2e_capture_scenario "$scen" out/core "$@"
  gc info-json info --json out/core; expect_rc 0 info-json
  pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capture"]["pid"])' info-json.out)
  python3 "$e2e_lib_dir/../analyze/make_rocr_split.py" out/core info-json.out "gpucore.$pid" \
    "core.$pid" >split.log || fail "make_rocr_split.py: $(cat split.log)"
}

# e2e_compare FILE [WHAT] <<'EOF' ... EOF: FILE holds exactly the text of the here-document (the
# expected output, spelled out in the case); otherwise fail naming FILE (or WHAT), with the
# unified diff, expected (---) against got (+++), on stderr. The expected text and the diff are
# left in the current directory (BASENAME.expected, BASENAME.diff), kept with a failed test's.
e2e_compare() {
  local file=$1 what=${2:-$1} want
  want=$(basename "$file").expected
  cat >"$want"
  if ! diff -u --label expected --label "$what" "$want" "$file" >"${want%.expected}.diff" 2>&1
  then
    cat "${want%.expected}.diff" >&2
    fail "$what differs from the expected text (the diff above)"
  fi
}
