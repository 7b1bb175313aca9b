#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of the live progress line of `gpucore capture | watch` on a terminal, on the
# simulated GPU (tests/capture_progress.cmake).
#
#   progress_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# CASE:
#   write  a capture whose memory reads are slowed by the simulated driver (a read_memory
#          delay): the line is redrawn while bytes are written, each redraw with the elapsed
#          time, the bytes written of the planned total with a percent, the rate, the
#          deadline and the budget; the elapsed time and the percent never go back.
#   wait   a watch of a process that raises no GPU exception: nothing moves but time, and the
#          line is redrawn all the same, each time with a later elapsed time; then SIGINT.
#   pipe   stderr not a terminal: no progress line at all.
#
# Nothing here asserts on how long anything takes: the slow reads guarantee a lower bound on
# the time the writing takes, so several redraws (at most ten a second) must happen; the wait
# case reads the terminal until it has seen three redraws (or gives up after a generous guard).
# Exit codes: 0 pass, 1 fail, 77 skip.

set -euo pipefail

[ $# -ge 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="progress $case"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

# on_tty OUT [--interrupt-after N] -- COMMAND...: run COMMAND with a pseudo-terminal as its
# stdin, stdout and stderr; everything it writes goes to OUT; exits with its exit code (128 + N
# for a signal). With --interrupt-after N, COMMAND gets SIGINT once N progress redraws with
# distinct elapsed times were read.
on_tty() {
  python3 - "$@" <<'PY'
import os, pty, re, signal, sys, time
args = sys.argv[1:]
out_path = args.pop(0)
interrupt_after = 0
if args[0] == "--interrupt-after":
    interrupt_after = int(args[1])
    args = args[2:]
assert args.pop(0) == "--"
pid, fd = pty.fork()
if pid == 0:
    os.execv(args[0], args)
data = b""
sent = False
guard = time.monotonic() + 120  # a hung gpucore fails the test instead of blocking ctest
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
    if interrupt_after and not sent:
        stamps = set(re.findall(rb"gpucore: \[ *([0-9hms.]+)\] waiting for a GPU exception", data))
        if len(stamps) >= interrupt_after or time.monotonic() > guard:
            os.kill(pid, signal.SIGINT)
            sent = True
    elif time.monotonic() > guard:
        os.kill(pid, signal.SIGKILL)
        guard = float("inf")
_, status = os.waitpid(pid, 0)
open(out_path, "wb").write(data)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
PY
}

case $case in
write)
  # 100 ms per MiB read: the ~16 MiB of the referenced tier and below take over a second.
  e2e_continue_copy "$scenarios/big-memory.json" big-memory.json
  export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 100000}]'
  e2e_start_inferior big-memory.json
  unset GPUCORE_SIM_FAULTS
  rc=0
  on_tty tty.out -- "$gpucore" capture --kfd sim --tier referenced --deadline 10m --max-size 1G \
    "$ipid" -o tty.core || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore capture on a terminal exited $rc: $(cat -v tty.out)"
  python3 - <<'PY' || fail "progress lines: $(cat -v tty.out | tr '\r' '\n' | head -c 3000)"
import re, sys
text = open("tty.out", encoding="utf-8", errors="replace", newline="").read()
draws = [d for d in text.replace("\n", "\r").split("\r") if d.startswith("gpucore: [")]
def seconds(stamp):
    m = re.fullmatch(r" *(?:(\d+)h)?(?:(\d+)m)?([\d.]+)s", stamp)
    return int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3))
mem = re.compile(r"gpucore: \[( *[0-9hms.]+)\] (state tier|host memory|scratch tier|"
                 r"referenced tier): (\d+ B|\d+\.\d (?:KiB|MiB|GiB)) of "
                 r"(\d+\.\d (?:KiB|MiB|GiB)) \((\d+)%\), \d+\.\d MB/s, deadline in "
                 r"\d+\.\ds, budget 1\.0 GiB\.\.\.\x1b\[K$")
other = re.compile(r"gpucore: \[( *[0-9hms.]+)\] [^\x1b]*\.\.\.\x1b\[K$")
last_t, shown, planned, percents, tiers = -1.0, set(), set(), [], set()
for d in draws:
    m = mem.match(d) or other.match(d)
    if not m:
        sys.exit("a redraw of another form: %r" % d)
    t = seconds(m.group(1))
    if t < last_t:
        sys.exit("the elapsed time went back: %r after %.1f s" % (d, last_t))
    last_t = t
    if m.re is mem:
        shown.add(d)
        tiers.add(m.group(2))
        planned.add(m.group(4))
        percents.append(int(m.group(5)))
if len(shown) < 3:
    sys.exit("%d distinct redraws while memory was written, expected several" % len(shown))
if len(planned) != 1:
    sys.exit("the planned total changed: %s" % sorted(planned))
if percents != sorted(percents) or percents[-1] > 100:
    sys.exit("percents %s" % percents)
if percents[-1] == percents[0]:
    sys.exit("the percent never moved: %s" % percents)
if not any(re.match(r"gpucore: \[ *[0-9hms.]+\] finishing the core \(\d+\.\d (KiB|MiB|GiB) "
                    r"written, \d+\.\d MB/s\)\.\.\.", d) for d in draws):
    sys.exit("no total after the memory")
PY
  # The last line is the summary, the progress line erased before it.
  tail -c 300 tty.out | tr '\r' '\n' | grep -q "^.\[Kgpucore: tty.core: " ||
    fail "no summary after the progress: $(tail -c 300 tty.out | cat -v)"
  ;;
wait)
  # vadd-fault without its exception: a watch waits, and only time moves.
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("exceptions", None); d["on_queue_error"]="continue"; json.dump(d, open(sys.argv[2], "w"))' \
    "$scenarios/vadd-fault.json" quiet.json
  e2e_start_inferior quiet.json
  rc=0
  on_tty tty.out --interrupt-after 3 -- "$gpucore" watch --kfd sim "$ipid" -o tty.core || rc=$?
  [ "$rc" -eq 130 ] || fail "gpucore watch interrupted exited $rc, expected 130: $(cat -v tty.out)"
  python3 - <<'PY' || fail "progress lines: $(cat -v tty.out | tr '\r' '\n' | head -c 3000)"
import re, sys
text = open("tty.out", encoding="utf-8", errors="replace", newline="").read()
stamps = re.findall(r"\rgpucore: \[( *[0-9hms.]+)\] waiting for a GPU exception\.\.\.\x1b\[K", text)
if len(set(stamps)) < 3:
    sys.exit("%d distinct redraws while waiting: %s" % (len(set(stamps)), stamps))
PY
  [ ! -e tty.core ] || fail "a core was written"
  ;;
pipe)
  e2e_continue_copy "$scenarios/vadd-fault.json" vadd.json
  GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]' e2e_start_inferior vadd.json
  gc pipe capture --kfd sim --deadline 10m "$ipid" -o pipe.core
  expect_rc 0 pipe
  ! grep -q "gpucore: \[" pipe.err || fail "progress on a pipe: $(cat -v pipe.err)"
  [ "$(wc -l <pipe.err)" -eq 1 ] || fail "expected only the summary: $(cat -v pipe.err)"
  ;;
*)
  fail "unknown case $case"
  ;;
esac
echo "PASS [$test_name]"
