#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# --store DIR, the directory as its own word (as list --store DIR): the command runs.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

rc=0
"$gpucore" run --kfd sim --store st -- sh -c 'exit 3' >st.out 2>st.err || rc=$?
[ "$rc" -eq 3 ] || fail "run --store DIR -- exited $rc, expected the command's 3: $(cat st.err)"
[ -d st ] || fail "run --store st did not use st as the store"
gc u5 run --leave-tree --kfd sim -- sh -c 'exit 4'
expect_rc 4 u5
# A usage error is one line naming the command, what was wrong and where the help is.
gc u6 capture --leave-tree 1
expect_rc 64 u6
gc u1 capture
expect_rc 64 u1
gc u2 capture --tier bogus 1
expect_rc 64 u2
gc u3 run --kfd sim sh
expect_rc 64 u3
gc u4 capture --deadline 5x 1
expect_rc 64 u4
cat u6.err u1.err u2.err u3.err u4.err >usage.err
e2e_compare usage.err <<'EOF'
gpucore capture: --leave-tree is an option of gpucore run (see `gpucore capture --help`)
gpucore capture: expected a process id (see `gpucore capture --help`)
gpucore capture: --tier takes state, scratch, referenced or all, got 'bogus' (see `gpucore capture --help`)
gpucore run: put -- before the command, as in `gpucore run -- sh` (see `gpucore run --help`)
gpucore capture: --deadline takes a duration such as 500ms, 10s or 2m, got '5x' (see `gpucore capture --help`)
EOF
gc h capture --help
expect_rc 0 h
grep -q -- "--max-size" h.out || fail "capture --help does not document --max-size"
exit 0
