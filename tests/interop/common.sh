# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Sourced by the interop tests (tests/interop/*.sh), never run on its own. Every test is
# called as   SCRIPT WORKDIR MKEXAMPLE [ARGS...]   by tests/interop.cmake; WORKDIR is private
# to the test and emptied first, so tests run in parallel; it is removed when the test passes
# or is skipped, and kept for a look after a failure (always with GPUCORE_KEEP_TEST_FILES=1).
#
# Exit codes: 0 pass, 1 fail (one "FAIL [test]: why" line on stderr), 77 skip (ctest shows it
# as skipped: a tool is not installed).

set -euo pipefail

test_name=${test_name:-$(basename "$0" .sh)}

fail() { echo "FAIL [$test_name]: $*" >&2; exit 1; }
skip() { echo "SKIP [$test_name]: $*"; exit 77; }

# setup WORKDIR MKEXAMPLE: enter an empty private directory; remember the generator.
setup() {
  [ $# -ge 2 ] || fail "usage: $0 WORKDIR MKEXAMPLE [ARGS...]"
  work=$1 mkexample=$2
  [ -x "$mkexample" ] || fail "gpucore-mkexample not found at '$mkexample'"
  rm -rf "$work"
  mkdir -p "$work"
  cd "$work"
  work=$PWD
  trap 'interop_finish $?' EXIT
}

# interop_finish STATUS: the EXIT trap; the work directory goes when the test passed or skipped.
interop_finish() {
  if { [ "$1" -eq 0 ] || [ "$1" -eq 77 ]; } && [ -z "${GPUCORE_KEEP_TEST_FILES:-}" ]; then
    cd / && rm -rf "$work"
  fi
}

# need_tool PATH NAME: skip unless PATH is an executable (CMake passes NAME-NOTFOUND otherwise).
need_tool() {
  { [ -n "$1" ] && [ -x "$1" ]; } || skip "$2 is not installed"
}

# make_core [OPTIONS...] OUTPUT: run the generator; it must succeed silently.
make_core() {
  local rc=0
  "$mkexample" "$@" >mk.out 2>mk.err || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore-mkexample $* exited $rc: $(cat mk.err)"
  { [ ! -s mk.err ] && [ ! -s mk.out ]; } || fail "gpucore-mkexample $* printed: $(cat mk.out mk.err)"
}

# run_capture NAME CMD...: run CMD with stdout in NAME.out and stderr in NAME.err; the exit
# status is left in $rc (the test decides what is acceptable).
run_capture() {
  local name=$1; shift
  rc=0
  "$@" >"$name.out" 2>"$name.err" || rc=$?
}

# expect_line FILE ERE WHAT: FILE must contain a line matching the extended regex.
expect_line() {
  grep -Eq -- "$2" "$1" || { sed 's/^/  | /' "$1" >&2; fail "$3: no line matching /$2/ in $1"; }
}

# count_lines FILE ERE: how many lines match.
count_lines() {
  grep -Ec -- "$2" "$1" || true
}
