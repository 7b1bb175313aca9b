#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The signal a core records is the one that stopped the process when the capture began, never
# a later one (tests/analyze.cmake, issue 23):
#
#   capture_signal_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS
#
# `gpucore run` of vadd-fault: the core is written at the memory violation; once gpucore lets
# the GPU go, the simulated runtime gets the error and abort()s on the driver's thread, which
# gpucore is still stopping. The SIGABRT came after the capture began: it must not be the
# core's signal. For each of RUNS runs (the abort lands before or after that thread's stop,
# either way the core must say the same):
#   - every NT_PRSTATUS has pr_cursig 0 and pr_info.si_signo 0, and NT_SIGINFO is what gcore
#     writes for a process it stopped (SIGSTOP from the kernel, si_code SI_KERNEL, no sender);
#   - a SIGABRT caught in its delivery stop is pending on its thread only (pr_sigpend);
#   - `gpucore analyze` names no signal (JSON host.threads[].signal null, no "signal SIG" in
#     the text), and gdb, where installed, does not say "Program terminated with signal".
# The old code recorded SIGABRT in 3 of 4 runs. The deterministic case is test_host_core's
# test_live_caught_signal (a thread held in its signal-delivery stop before the stop).
#
# Exit codes: 0 pass, 1 fail (one "FAIL [capture-signal]: why" line), 77 skip (no ptrace).
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name=capture-signal
RUNS=3

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

# The host notes of CORE: one line per NT_PRSTATUS "prstatus TID CURSIG SIGNO SIGPEND" and one
# "siginfo SIGNO CODE PID" (<linux/elfcore.h>, x86-64: pr_info at 0, pr_cursig at 12,
# pr_sigpend at 16, pr_pid at 32; siginfo_t: si_signo 0, si_code 8, si_pid 16).
host_notes() {
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x7fELF", "not an ELF file"
phoff, = struct.unpack_from("<Q", data, 32)
phentsize, phnum = struct.unpack_from("<HH", data, 54)
for i in range(phnum):
    p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
    if p_type != 4:  # PT_NOTE
        continue
    at, end = p_offset, p_offset + p_filesz
    while at + 12 <= end:
        namesz, descsz, ntype = struct.unpack_from("<III", data, at)
        name = data[at + 12:at + 12 + namesz].rstrip(b"\0")
        desc = at + 12 + ((namesz + 3) & ~3)
        if name == b"CORE" and ntype == 1:
            signo, = struct.unpack_from("<i", data, desc)
            cursig, = struct.unpack_from("<h", data, desc + 12)
            pend, = struct.unpack_from("<Q", data, desc + 16)
            tid, = struct.unpack_from("<i", data, desc + 32)
            print("prstatus %d %d %d %d" % (tid, cursig, signo, pend))
        elif name == b"CORE" and ntype == 0x53494749:
            signo, code, pid = (struct.unpack_from("<i", data, desc + o)[0] for o in (0, 8, 16))
            print("siginfo %d %d %d" % (signo, code, pid))
        at = desc + ((descsz + 3) & ~3)
PY
}

SIGSTOP=19 SIGABRT=6 SI_KERNEL=128
mkdir -p out
for n in $(seq 1 $RUNS); do
  rc=0
  "$gpucore" run --kfd sim -o "out/core$n" -- "$inferior" "$scenarios/vadd-fault.json" \
      --objects "$objects" >"run$n.out" 2>"run$n.err" || rc=$?
  [ "$rc" -ne 77 ] || skip "$(cat "run$n.err")"
  # The command aborted after the capture, and gpucore exits with its status (128 + SIGABRT).
  [ "$rc" -eq 134 ] || fail "run $n: gpucore run exited $rc, expected 134: $(cat "run$n.err")"
  [ -f "out/core$n" ] || fail "run $n: no core: $(cat "run$n.err")"
  host_notes "out/core$n" >"notes$n.txt" || fail "run $n: cannot read the notes"
  grep -q '^prstatus ' "notes$n.txt" || fail "run $n: no NT_PRSTATUS"
  awk -v n="$n" '$1 == "prstatus" && ($3 != 0 || $4 != 0) {
                   print "run " n ": thread " $2 " pr_cursig " $3 " si_signo " $4; bad = 1 }
                 END { exit bad }' "notes$n.txt" ||
    fail "run $n: a thread records a signal as the capture's: $(cat "notes$n.txt")"
  [ "$(grep -c '^siginfo ' "notes$n.txt")" -eq 1 ] || fail "run $n: not one NT_SIGINFO"
  [ "$(grep '^siginfo ' "notes$n.txt")" = "siginfo $SIGSTOP $SI_KERNEL 0" ] ||
    fail "run $n: NT_SIGINFO is '$(grep '^siginfo ' "notes$n.txt")', expected SIGSTOP, SI_KERNEL, no sender"
  # A caught SIGABRT is pending on at most one thread (the one that raised it).
  k=0
  while read -r kind _ _ _ pend; do
    [ "$kind" = prstatus ] && (( pend & (1 << (SIGABRT - 1)) )) && k=$((k + 1))
  done <"notes$n.txt"
  [ "$k" -le 1 ] || fail "run $n: SIGABRT pending on $k threads: $(cat "notes$n.txt")"
  gc "analyze$n" analyze --json "out/core$n"; expect_rc 0 "analyze$n"
  python3 - "analyze$n.out" <<'PY' || fail "run $n: the report names a signal: see above"
import json, sys
h = json.load(open(sys.argv[1]))["host"]
assert h and h["threads"], "no host threads"
bad = [(t["tid"], t["signal"]) for t in h["threads"] if t["signal"] is not None]
assert not bad, bad
PY
  gc "text$n" analyze "out/core$n"; expect_rc 0 "text$n"
  ! grep -n "signal SIG" "text$n.out" || fail "run $n: the text report names a signal"
  if command -v gdb >/dev/null; then
    gdb -nx -batch -ex 'info threads' "$inferior" "out/core$n" >"gdb$n.out" 2>&1 || true
    ! grep -n "terminated with signal" "gdb$n.out" || fail "run $n: gdb reports a signal"
  fi
  rm -f "out/core$n"
done
exit 0
