#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The README's main command: the core is written at the memory violation, then the
# inferior aborts by itself and gpucore exits with its status (128 + SIGABRT).

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

rc=0
"$gpucore" run --kfd sim -o out/core -- "$inferior" "$scenarios/vadd-fault.json" \
    --objects "$objects" >run.out 2>run.err || rc=$?
[ "$rc" -ne 77 ] || skip "$(cat run.err)"
[ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected 134: $(cat run.err)"
grep -q "^gpucore: out/core: .*256 waves (4 faulting)" run.err || fail "no summary: $(cat run.err)"
info_ok out/core
[ "$(json "d['capture']['trigger']")" = memory-violation ] ||
  fail "trigger is $(json "d['capture']['trigger']")"
[ "$(json "sum(1 for n in d['notes'] if n['owner']=='AMDGPU')")" = 1 ] || fail "no AMDGPU note"
exit 0
