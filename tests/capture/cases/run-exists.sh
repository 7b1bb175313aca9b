#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The output name is taken (a Slurm requeue keeps the job id of -o core.%j) and another
# run's directory is missing: each run warns once, starts the command, and the core takes
# the first free numbered name / the directory is made. The taken files are left as they were.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

vadd=$scenarios/vadd-fault.json # (aborts after its capture: 134)
echo precious >out/core
echo precious1 >out/core.1
rc=0
"$gpucore" run --kfd sim -o out/core -- "$inferior" "$vadd" --objects "$objects" >run.out 2>run.err || rc=$?
[ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected the command's 134: $(cat run.err)"
grep -q "^gpucore: warning: out/core exists: a core takes the first free name of out/core.1, out/core.2, ... (gpucore never overwrites a file)$" run.err ||
  fail "no warning before the start: $(cat run.err)"
grep -q "^gpucore: out/core.2: .*256 waves" run.err || fail "the core is not out/core.2: $(cat run.err)"
grep -q "^gpucore: warning: out/core exists: this core is out/core.2 (gpucore never overwrites a file)$" run.err ||
  fail "the core's line does not say which name it took: $(cat run.err)"
[ "$(cat out/core)" = precious ] && [ "$(cat out/core.1)" = precious1 ] || fail "a taken file was changed"
info_ok out/core.2
# Compressed: ".zst" stays last.
echo precious >out/c.zst
rc=0
"$gpucore" run --kfd sim --compress -o out/c.zst -- "$inferior" "$vadd" --objects "$objects" >z.out 2>z.err || rc=$?
[ "$rc" -eq 134 ] || fail "gpucore run --compress exited $rc: $(cat z.err)"
info_ok out/c.1.zst
# A missing directory: made when the core is written (not before: no core, no directory).
rc=0
"$gpucore" run --kfd sim -o out/new/sub/core -- sh -c 'exit 3' >d0.out 2>d0.err || rc=$?
[ "$rc" -eq 3 ] || fail "gpucore run exited $rc, expected 3: $(cat d0.err)"
grep -q "^gpucore: warning: directory out/new/sub does not exist: it is created when a core is written$" d0.err ||
  fail "message: $(cat d0.err)"
[ ! -e out/new ] || fail "the directory was made although no core was written"
rc=0
"$gpucore" run --kfd sim -o out/new/sub/core -- "$inferior" "$vadd" --objects "$objects" >d.out 2>d.err || rc=$?
[ "$rc" -eq 134 ] || fail "gpucore run exited $rc: $(cat d.err)"
info_ok out/new/sub/core
exit 0
