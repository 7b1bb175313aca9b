#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The host threads' backtraces in `gpucore analyze` (tests/host_stack.cmake):
#
#   host_stack_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS
#
# A scenario process (a main thread, the simulated driver's thread, two blocked threads) is
# captured into a unified core. Then:
#   - without --sysroot the report opens no file after the core (strace, where installed): the
#     frames say they have no symbols, the modules say why, and each thread's first PC is its
#     saved RIP;
#   - with --sysroot / every thread's frames (PC and symbol) are eu-stack's for the same core,
#     frame for frame, and the blocked threads end in gc_inferior_blocked_thread with its
#     source line;
#   - a compressed copy gives the same backtraces.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [host-stack]: why" line), 77 skip (no ptrace rights).
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name=host-stack

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

e2e_capture_scenario "$scenarios/vadd-fault.json" out/core
core=$PWD/out/core

# 1. No --sysroot: no host file is opened after the core.
if command -v strace >/dev/null; then
  # (LeakSanitizer cannot run under ptrace: off for this run in sanitizer builds)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -qq -e trace=open,openat,openat2 -o plain.trace "$gpucore" analyze --json "$core" \
    >plain.out 2>plain.err || fail "analyze under strace: $(cat plain.err)"
  python3 - "$core" plain.trace <<'PY' || fail "the report opened a file after the core: see above"
import re, sys
core, lines = sys.argv[1], open(sys.argv[2]).read().splitlines()
at = [i for i, l in enumerate(lines) if '"%s"' % core in l]
if not at:
    sys.exit("the core's own open is not in the trace")
bad = [l for l in lines[at[0] + 1:]
       if re.search(r'open(at2?)?\(', l) and '"/dev/urandom"' not in l]
for l in bad:
    print(l)
sys.exit(1 if bad else 0)
PY
else
  gc plain analyze --json "$core"; expect_rc 0 plain
fi
python3 - plain.out <<'PY' || fail "the report without --sysroot: see above"
import json, sys
h = json.load(open(sys.argv[1]))["host"]
assert h and len(h["threads"]) == 4, h and len(h["threads"])
# An on-demand capture: nothing was signalled, so no thread reports a signal.
assert h["threads"][0]["first"] and all(t["signal"] is None for t in h["threads"]), h["threads"]
libc = [m for m in h["modules_without_symbols"] if m["name"] == "libc.so.6"]
assert libc and libc[0]["in_frames"] and libc[0]["build_id"], libc
assert libc[0]["why"].startswith("its file is not in the core"), libc[0]["why"]
# A thread stopped in a system call is in libc (no symbols: libc is not in the core); the
# simulated driver's thread may be running elsewhere when the capture stops it.
in_syscall = [t for t in h["threads"] if t["syscall"]]
assert len(in_syscall) >= 3, [t["syscall"] for t in h["threads"]]
for t in in_syscall:
    f0 = t["frames"][0]
    assert f0["module"] == "libc.so.6" and f0["symbol"] is None, f0
PY
gc plain-text analyze "$core"; expect_rc 0 plain-text
# libc is named among the modules without symbols; under the sanitizers the first thread's
# backtrace may also reach libasan's interceptor, named on the same line.
grep -Eq "^  no symbols for ([^:]+, )?libc\.so\.6(, [^:]+)?: its file is not in the core \(--sysroot DIR" \
  plain-text.out ||
  fail "the text does not say which frames lack symbols: $(sed -n '/^Host threads/,$p' plain-text.out)"
# Said once, in words (issue 23): no thread repeats that its unwinding stopped in libc, and
# libdwfl's own message ("Callback returned failure") is never shown.
! grep -n "unwinding stopped: no unwind tables for libc.so.6\|libdwfl: Callback" plain-text.out ||
  fail "the text repeats why the backtraces stop: $(sed -n '/^Host threads/,$p' plain-text.out)"

# 2. --sysroot /: frame for frame what eu-stack finds (it reads this machine's files too).
gc sysroot analyze --json --sysroot / "$core"; expect_rc 0 sysroot
if command -v eu-stack >/dev/null; then
  eu-stack --core="$core" --executable="$inferior" >eu-stack.out 2>eu-stack.err || true
  python3 - sysroot.out eu-stack.out <<'PY' || fail "gpucore's and eu-stack's backtraces differ: see above"
import json, re, sys
h = json.load(open(sys.argv[1]))["host"]
ours = {t["tid"]: [(int(f["pc"], 16), f["symbol"]) for f in t["frames"]] for t in h["threads"]}
theirs, tid = {}, None
for l in open(sys.argv[2]):
    m = re.match(r"TID (\d+):", l)
    if m:
        tid = int(m.group(1)); theirs[tid] = []; continue
    m = re.match(r"#\d+\s+0x([0-9a-f]+)\s*(\S*)", l)
    if m and tid is not None:
        theirs[tid].append((int(m.group(1), 16), m.group(2) or None))
if ours != theirs:
    print("gpucore:", ours); print("eu-stack:", theirs); sys.exit(1)
PY
fi
python3 - sysroot.out <<'PY' || fail "the backtraces with --sysroot /: see above"
import json, sys
h = json.load(open(sys.argv[1]))["host"]
blocked = [t for t in h["threads"]
           if any(f["symbol"] == "gc_inferior_blocked_thread" for f in t["frames"])]
assert len(blocked) == 2, [[f["symbol"] for f in t["frames"]] for t in h["threads"]]
for t in blocked:
    f = [f for f in t["frames"] if f["symbol"] == "gc_inferior_blocked_thread"][0]
    assert f["module"] == "gpucore-inferior", f
    assert f["source"] and f["source"]["file"].endswith("kfd/sim/inferior.c"), f
    assert t["unwind_end"] is None, t
main = h["threads"][0]
assert any(f["symbol"] == "main" for f in main["frames"]), main
assert not [m for m in h["modules_without_symbols"] if m["in_frames"]], h["modules_without_symbols"]
PY

# 3. A compressed copy unwinds the same.
gc compress compress "$core" out/core.zst; expect_rc 0 compress
gc zst analyze --json --sysroot / out/core.zst; expect_rc 0 zst
python3 -c 'import json,sys; a,b=(json.load(open(f))["host"] for f in sys.argv[1:]); sys.exit(a!=b)' \
  sysroot.out zst.out || fail "the compressed core's host threads differ"
exit 0
