#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The generator's own command line: exit codes (0, 64 usage, 73 cannot create), the one-line
# "gpucore-mkexample: OUTPUT: message" error format, and what each option writes.
. "$(dirname "$0")/common.sh"
setup "$@"

# expect_exit CODE ARGS...: run the generator, require CODE; output in run.out / run.err.
expect_exit() {
  local want=$1; shift
  run_capture run "$mkexample" "$@"
  [ "$rc" -eq "$want" ] || { cat run.err >&2; fail "'gpucore-mkexample $*' exited $rc, expected $want"; }
}
stderr_has() { grep -qF -- "$1" run.err || { cat run.err >&2; fail "stderr lacks '$1'"; }; }
one_line_error() {
  [ "$(wc -l <run.err)" -eq 1 ] || { cat run.err >&2; fail "expected exactly one error line"; }
  grep -Eq "^gpucore-mkexample: $1: .+" run.err || { cat run.err >&2; fail "error line is not 'gpucore-mkexample: $1: message'"; }
}
magic() { od -An -tx1 -N"$2" "$1" | tr -d ' \n'; }

# Usage errors: 64, a reason and the usage line on stderr, nothing written.
expect_exit 64
stderr_has "missing OUTPUT"
stderr_has "usage: gpucore-mkexample"
expect_exit 64 --bogus x.core
stderr_has "unknown option '--bogus'"
expect_exit 64 a.core b.core
stderr_has "more than one OUTPUT"
for level in 0 23 -8 abc 3x ""; do
  expect_exit 64 "--compress=$level" x.core
  stderr_has "invalid compression level"
done
{ [ ! -e x.core ] && [ ! -e a.core ]; } || fail "a usage error left a file behind"

expect_exit 0 --help
grep -q -- "--compress" run.out || fail "--help does not document --compress"

# Cannot create: 73 and one line naming OUTPUT.
expect_exit 73 no/such/dir/x.core
one_line_error "no/such/dir/x.core"
mkdir adir
expect_exit 73 adir
one_line_error "adir"
[ -d adir ] || fail "the directory named as OUTPUT was replaced"

# Success is silent, and each option writes what it says.
expect_exit 0 plain.core
{ [ ! -s run.out ] && [ ! -s run.err ]; } || fail "success printed something: $(cat run.out run.err)"
[ "$(magic plain.core 20)" = "7f454c4602010100000000000000000004003e00" ] ||
  fail "plain.core is not an ELF64 LSB ET_CORE for x86-64: $(magic plain.core 20)"
expect_exit 0 --split split.core
[ "$(magic split.core 20)" = "7f454c460201014003000000000000000400e000" ] ||
  fail "split.core is not ET_CORE/EM_AMDGPU with OSABI 64, ABI version 3: $(magic split.core 20)"
expect_exit 0 --compress comp.core
[ "$(magic comp.core 4)" = "28b52ffd" ] || fail "comp.core does not start with a zstd frame"
expect_exit 0 --compress=-3 fast.core
[ "$(magic fast.core 4)" = "28b52ffd" ] || fail "fast.core does not start with a zstd frame"
# An existing file is replaced (the README demo and these tests rerun freely).
expect_exit 0 plain.core
# "--" ends the options.
expect_exit 0 -- -dash.core
[ -f ./-dash.core ] || fail "'-- -dash.core' did not write ./-dash.core"
echo "ok [$test_name]"
