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
e2e_compare cap.err <<'EOF'
gpucore: out/core already exists: gpucore never overwrites a core (choose another -o)
EOF
[ "$(cat out/core)" = precious ] || fail "the existing file was changed"
# An output directory that is missing, or is a file, is "cannot create output" (73), as
# the README says, not an I/O error or a ptrace refusal.
gc nodir capture --kfd sim "$ipid" -o out/missing/core
expect_rc 73 nodir
e2e_compare nodir.err <<'EOF'
gpucore: cannot write out/missing/core: directory out/missing: No such file or directory
EOF
: >out/afile
gc notdir capture --kfd sim "$ipid" -o out/afile/core
expect_rc 73 notdir
e2e_compare notdir.err <<'EOF'
gpucore: cannot write out/afile/core: directory out/afile: not a directory
EOF
[ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = 0 ] ||
  fail "the inferior is still traced"
driver_clean
stop_inferior
exit 0
