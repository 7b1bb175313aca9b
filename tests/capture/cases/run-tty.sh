#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ^C on a terminal goes to the whole foreground process group: the command gets that SIGINT
# from the terminal, and gpucore must not send it a second one. `gpucore run -- sigcount`
# on a pseudo-terminal (its session leader, so in its foreground group); sigcount exits with
# the number of SIGINTs it was delivered, which gpucore run must exit with: 1.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

sigcount=$(dirname "$checker")/sigcount
rc=0
python3 - "$gpucore" "$sigcount" >tty.out 2>tty.err <<'PY' || rc=$?
import os, pty, sys, time
gpucore, sigcount = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(gpucore, [gpucore, "run", "--kfd", "sim", "-o", "out/core", "--", sigcount, "3"])
out = b""
deadline = time.monotonic() + 20
while b"ready" not in out and time.monotonic() < deadline:
    try:
        out += os.read(fd, 4096)
    except OSError:
        break
if b"ready" not in out:
    sys.exit("sigcount did not become ready: %r" % out)
time.sleep(0.3)  # gpucore has the command traced and waits for its driver
os.write(fd, b"\x03")
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 99)
PY
[ "$rc" -ne 77 ] || skip "$(cat tty.out)"
[ "$rc" -eq 1 ] || fail "gpucore run on a terminal, ^C: exited $rc, expected 1 (one SIGINT delivered): $(cat tty.out tty.err)"
grep -q "gpucore: SIGINT from the terminal reached .*sigcount" tty.out || fail "message: $(cat tty.out)"
exit 0
