#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# SIGINT, SIGTERM, SIGHUP or SIGQUIT ($arg) to `gpucore run` while it waits for a GPU
# exception: passed on to the command, which is waited for; gpucore exits with its status
# (the inferior exits 0 on SIGINT/SIGTERM/SIGHUP; SIGQUIT kills it: 128 + 3) and leaves no
# process behind.
#
# instances: INT TERM HUP QUIT

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

ulimit -c 0
run_bg multi-gpu-hang.json
wait_enabled
kill "-$arg" "$gpid"
rc=0; wait "$gpid" || rc=$?
if [ "$arg" = QUIT ]; then want=131; else want=0; fi
[ "$rc" -eq "$want" ] || fail "gpucore run sent SIG$arg exited $rc, expected $want: $(cat run.err)"
grep -q "^gpucore: SIG$arg passed on to .* (pid $cpid)" run.err || fail "message: $(cat run.err)"
no_orphan
[ ! -e out/core ] || fail "a core was written"
exit 0
