#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The output name is taken: refused before the target is touched (it is never stopped, so
# it gets no tracer), and the existing file is left as it was.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior vadd-fault continue
echo "precious" >out/core
gc cap capture --kfd sim "$ipid" -o out/core
expect_rc 73 cap
one_line cap
grep -q "out/core already exists" cap.err || fail "message: $(cat cap.err)"
[ "$(cat out/core)" = precious ] || fail "the existing file was changed"
# An output directory that is missing, or is a file, is "cannot create output" (73), as
# the README says, not an I/O error or a ptrace refusal.
gc nodir capture --kfd sim "$ipid" -o out/missing/core
expect_rc 73 nodir
grep -q "directory out/missing" nodir.err || fail "message: $(cat nodir.err)"
: >out/afile
gc notdir capture --kfd sim "$ipid" -o out/afile/core
expect_rc 73 notdir
grep -q "not a directory" notdir.err || fail "message: $(cat notdir.err)"
[ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = 0 ] ||
  fail "the inferior is still traced"
driver_clean
stop_inferior
exit 0
