#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Opening cores in a debugger (tests/debug.cmake):
#
#   debug_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIO.json host
#   debug_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIO.json run
#   debug_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIO.json command
#
# host: the scenario process is captured on demand; then, with the installed gdb on the host
#   part, every thread's backtrace reaches main or its thread start routine (start_thread,
#   clone3) -- the simulated driver's thread included, whose registers and stack are of one
#   moment; gdb names no signal (nothing signalled the process), eu-readelf shows pr_cursig 0
#   in every NT_PRSTATUS and NT_SIGINFO as gcore writes it for a process it stopped; and
#   `gpucore analyze --json --sysroot /` unwinds every thread to its end (unwind_end null).
# run: the same backtraces in gdb for a core `gpucore run` wrote at the GPU error, while the
#   simulated driver's thread was busy (its registers used to be taken later than its stack:
#   "#1 0x0000000000000000 in ?? ()").
# command: `gpucore debug --sysroot /` with the installed gdb on the plain and the compressed
#   core (the executable the core names found below /; the temporary copy private, sparse,
#   gone afterwards, also when the debugger is killed or gpucore gets SIGTERM), the debugger's
#   exit status, its arguments (the executable as /proc/self/fd/N of the file found), the
#   core alone without --sysroot or --exe, LD_LIBRARY_PATH naming libgpucore-dbgapi, no
#   debugger found (127), a debugger that cannot run (126), --help. The cores that name
#   hostile paths and expand too far are tests/debug/debug_hostile.sh's.
#
# Exit codes: 0 pass, 1 fail, 77 skip (no ptrace rights, or no gdb).
set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIO.json host|run|command" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scen=$5 what=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="debug-$what-$(basename "$scen" .json)"

. "$here/../lib/e2e.sh"
command -v gdb >/dev/null || skip "no gdb installed"
e2e_enter "$work"
e2e_need_ptrace
if [ "$what" = run ]; then
  # A core the GPU error triggers: the driver's thread is busy (it raised the error and serves
  # the capture) when the capture stops the process.
  mkdir -p out
  gc cap run --kfd sim -o out/core -- "$inferior" "$scen" --objects "$objects"
  [ -s out/core ] || fail "gpucore run wrote no core (exit $rc): $(cat cap.err)"
else
  e2e_capture_scenario "$scen" out/core
fi
core=$PWD/out/core
tids=$(python3 - "$core" <<'PY'
import struct, sys
# NT_PRSTATUS pr_pid (offset 32) of every thread, from the notes of the plain core.
d = open(sys.argv[1], "rb").read()
phoff, phentsize, phnum = struct.unpack_from("<Q", d, 32)[0], *struct.unpack_from("<HH", d, 54)
out = []
for i in range(phnum):
    p_type, _, p_off, _, _, p_filesz = struct.unpack_from("<IIQQQQ", d, phoff + i * phentsize)
    if p_type != 4:
        continue
    off, end = p_off, p_off + p_filesz
    while off + 12 <= end:
        namesz, descsz, typ = struct.unpack_from("<III", d, off)
        name = d[off + 12:off + 12 + namesz].rstrip(b"\0")
        desc = off + 12 + ((namesz + 3) & ~3)
        if name == b"CORE" and typ == 1:
            out.append(struct.unpack_from("<I", d, desc + 32)[0])
        off = desc + ((descsz + 3) & ~3)
print(" ".join(map(str, out)))
PY
)
[ -n "$tids" ] || fail "no NT_PRSTATUS in the core"

if [ "$what" = host ] || [ "$what" = run ]; then
  # 1. gdb on the host part: every thread's frames, from #0 on, are known functions down to
  # main or its start routine (a thread caught while being created stands in clone3).
  gdb -nx -batch -ex 'thread apply all bt' "$inferior" "$core" >gdb.out 2>gdb.err ||
    fail "gdb failed: $(tail -3 gdb.err)"
  python3 - gdb.out gdb.err "$tids" "$what" <<'PY' || fail "gdb's backtraces (gdb.out): see above"
import re, sys
out, err, tids, what = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3].split(), sys.argv[4]
if what == "host":
    assert "Program terminated with signal" not in out + err, "gdb names a signal"
blocks = re.split(r"^Thread \d+ \(", out, flags=re.M)[1:]
roots = ("main", "start_thread", "clone3", "clone")
seen = set()
for b in blocks:
    lwp = re.search(r"LWP (\d+)\)", b).group(1)
    seen.add(lwp)
    frames = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\S+) \(", b, flags=re.M)
    assert frames, "thread %s: no frames:\n%s" % (lwp, b)
    root = next((i for i, f in enumerate(frames) if f in roots), None)
    assert root is not None and "??" not in frames[:root], \
        "thread %s does not reach main or its start routine:\n%s" % (lwp, b)
    if what == "host":
        assert frames[-1] in roots, "thread %s ends in %s:\n%s" % (lwp, frames[-1], b)
assert seen == set(tids), "gdb shows threads %s, the core has %s" % (sorted(seen), sorted(tids))
PY
  if [ "$what" = run ]; then
    exit 0
  fi
  # 2. The notes of a process nothing signalled, as gcore writes them.
  if command -v eu-readelf >/dev/null; then
    eu-readelf -n "$core" >notes.txt
    python3 - notes.txt "$tids" <<'PY' || fail "the host notes (notes.txt): see above"
import re, sys
t, n = open(sys.argv[1]).read(), len(sys.argv[2].split())
cursig = re.findall(r"info\.si_signo: (\d+), info\.si_code: (-?\d+), info\.si_errno: \d+, cursig: (\d+)", t)
assert len(cursig) == n, cursig
assert all(c == ("0", "0", "0") for c in cursig), cursig
si = re.findall(r"^\s+si_signo: (\d+), si_errno: (\d+), si_code: (-?\d+)", t, flags=re.M)
assert si == [("19", "0", "128")], si
assert len(re.findall(r"^\s+CORE\s+\d+\s+PRPSINFO", t, flags=re.M)) == 1
PY
  fi
  # 3. The report unwinds every thread to its end.
  gc report analyze --json --sysroot / "$core"; expect_rc 0 report
  python3 - report.out "$tids" <<'PY' || fail "analyze's host threads (report.out): see above"
import json, sys
h = json.load(open(sys.argv[1]))["host"]
assert sorted(str(t["tid"]) for t in h["threads"]) == sorted(sys.argv[2].split()), h["threads"]
for t in h["threads"]:
    assert t["unwind_end"] is None, (t["tid"], t["unwind_end"], [f.get("symbol") for f in t["frames"]])
    assert t["signal"] is None, (t["tid"], t["signal"])
PY
  exit 0
fi

[ "$what" = command ] || fail "unknown case $what"
mkdir -p tmp
export TMPDIR=$PWD/tmp
tmp_empty() { [ -z "$(ls -A tmp)" ] || fail "$1: the temporary copy is left: $(ls -lR tmp)"; }
lwps_in() {
  local f=$1 t
  for t in $tids; do grep -q "LWP $t" "$f" || fail "$f: gdb does not show thread $t: $(head -20 "$f")"; done
}

# 1. The plain core, with the installed gdb (no rocgdb here): threads, a backtrace through main,
# the executable the core names, found below --sysroot / (symbols), the debugger's status 0.
gc plain debug --sysroot / "$core" -- -nx -batch -ex 'info threads' -ex bt; expect_rc 0 plain
lwps_in plain.out
grep -q " in main (" plain.out || fail "no backtrace to main: $(cat plain.out)"
grep -q "Core was generated by .*gpucore-inferior" plain.out plain.err ||
  fail "gdb did not open the core: $(cat plain.err)"
if grep -q "Program terminated with signal" plain.out plain.err; then fail "gdb names a signal"; fi
tmp_empty plain

# 2. The compressed core: gdb alone says "not a core dump"; through gpucore debug it opens.
gc compress compress "$core" out/core.zst; expect_rc 0 compress
gdb -nx -batch -ex 'info threads' -c out/core.zst >raw.out 2>&1 || true
grep -q "not a core dump" raw.out || echo "note: gdb reads the compressed file itself: $(head -3 raw.out)"
gc zst debug --sysroot / out/core.zst -- -nx -batch -ex 'info threads' -ex bt; expect_rc 0 zst
lwps_in zst.out
grep -q " in main (" zst.out || fail "compressed: no backtrace to main: $(cat zst.out)"
tmp_empty zst

# 3. What the debugger is given, through a stand-in: its arguments, its environment, the
# temporary copy (private directory, 0600, sparse: no more disk than the plain core).
cat >fake-debugger <<'EOF'
#!/usr/bin/env bash
core=${@: -1}
{
  printf 'arg %s\n' "$@"
  [ $# -lt 2 ] || echo "exe $(readlink -- "${@: -2:1}" 2>/dev/null)"
  echo "ld $LD_LIBRARY_PATH"
  echo "core $core"
  stat -c 'mode %a' "$core"
  stat -c 'dirmode %a' "$(dirname "$core")"
  stat -c 'blocks %b size %s' "$core"
  cmp -s "$core" "$FAKE_PLAIN" && echo "same bytes"
} >fake.log
case ${FAKE_ACTION:-} in
  exit42) exit 42 ;;
  kill) kill -KILL $$ ;;
  wait) echo $$ >fake.pid; exec sleep 60 ;;
esac
exit 0
EOF
chmod +x fake-debugger
export FAKE_PLAIN=$core
gc fake debug --debugger ./fake-debugger --sysroot / out/core.zst -- -batch -ex 'info threads'
expect_rc 0 fake
python3 - fake.log "$inferior" "$TMPDIR" "$core" <<'PY' || fail "what the debugger was given (fake.log): see above"
import os, re, sys
log = open(sys.argv[1]).read().splitlines()
inferior, tmp, plain = sys.argv[2:5]
args = [l[4:] for l in log if l.startswith("arg ")]
core = args[-1]
assert args[:5] == ["-iex", "set sysroot /", "-batch", "-ex", "info threads"], args
# The executable: the file found below --sysroot, by a descriptor the debugger inherited.
assert re.fullmatch(r"/proc/self/fd/\d+", args[-2]), args
exe = [l[4:] for l in log if l.startswith("exe ")]
assert exe and os.path.realpath(exe[0]) == os.path.realpath(inferior), (exe, inferior)
assert os.path.dirname(os.path.dirname(core)) == tmp and os.path.basename(core) == "core", core
assert "mode 600" in log and "dirmode 700" in log, log
assert "same bytes" in log, log
blocks = int([l for l in log if l.startswith("blocks")][0].split()[1])
st = os.stat(plain)
assert blocks <= st.st_blocks + 64, (blocks, st.st_blocks, st.st_size)  # holes kept
ld = [l[3:] for l in log if l.startswith("ld ")][0].split(":")
assert os.path.exists(os.path.join(ld[0], "librocm-dbgapi.so.0")), ld
PY
tmp_empty fake

# Without --sysroot or --exe the core's executable is not used: the core alone, and one line
# that says how to name the program.
gc alone debug --debugger ./fake-debugger "$core"; expect_rc 0 alone
tail_args=$(grep '^arg ' fake.log | tail -2 | tr '\n' ' ')
[ "$tail_args" = "arg -c arg $core " ] || fail "without --sysroot the debugger got: $tail_args"
[ "$(wc -l <alone.err)" -eq 1 ] && grep -q -- "--exe PATH.*--sysroot DIR" alone.err ||
  fail "without --sysroot: not one line naming --exe and --sysroot: $(cat alone.err)"

# Relative names reach the debugger as paths, never as options ("./-x.core", "./exe").
cp "$core" ./-x.core
cp "$inferior" ./exe
gc dash debug --debugger ./fake-debugger --exe exe -- -x.core; expect_rc 0 dash
tail_args=$(grep '^arg ' fake.log | tail -2 | tr '\n' ' ')
[ "$tail_args" = "arg ./exe arg ./-x.core " ] || fail "relative paths given as: $tail_args"
rm -f ./-x.core ./exe

# 4. The debugger's exit status is gpucore's; killed, 128 + 9, and the copy is gone.
FAKE_ACTION=exit42 gc st42 debug --debugger ./fake-debugger out/core.zst; expect_rc 42 st42
tmp_empty st42
FAKE_ACTION=kill gc killed debug --debugger ./fake-debugger out/core.zst; expect_rc 137 killed
tmp_empty killed
FAKE_ACTION=kill gc killed-plain debug --debugger ./fake-debugger "$core"; expect_rc 137 killed-plain

# 5. SIGTERM to gpucore goes to the debugger; the copy is removed; 128 + 15.
rm -f fake.pid
FAKE_ACTION=wait "$gpucore" debug --debugger ./fake-debugger out/core.zst >term.out 2>term.err &
gpid=$!
for _ in $(seq 1 600); do [ -s fake.pid ] && break; sleep 0.05; done
[ -s fake.pid ] || fail "the stand-in debugger did not start: $(cat term.err)"
kill -TERM "$gpid"
rc=0; wait "$gpid" || rc=$?
[ "$rc" -eq 143 ] || fail "gpucore debug after SIGTERM exited $rc, expected 143: $(cat term.err)"
kill -0 "$(cat fake.pid)" 2>/dev/null && fail "the debugger still runs after gpucore's SIGTERM"
tmp_empty sigterm

# 6. No debugger: one sentence, exit 127; one that cannot run: 126; the core is not touched.
rc=0; PATH=/nonexistent "$gpucore" debug "$core" >none.out 2>none.err || rc=$?
[ "$rc" -eq 127 ] || fail "no debugger: exit $rc, expected 127: $(cat none.err)"
[ "$(wc -l <none.err)" -eq 1 ] && grep -q "no debugger found" none.err ||
  fail "no debugger: the message is not one clear line: $(cat none.err)"
gc named-none debug --debugger /nonexistent/gdb "$core"; expect_rc 127 named-none
printf 'not a program' >not-exec; chmod +x not-exec
gc cannot debug --debugger ./not-exec "$core"; expect_rc 126 cannot
grep -q "cannot execute the debugger" cannot.err || fail "126 without a message: $(cat cannot.err)"
tmp_empty errors

# 7. Usage and help.
gc help debug --help; expect_rc 0 help
for w in --debugger --exe --sysroot --max-temp 127 rocgdb; do
  grep -q -- "$w" help.out || fail "--help does not mention $w"
done
gc nocore debug; expect_rc 64 nocore
gc stray debug "$core" extra; expect_rc 64 stray
gc missing debug --debugger ./fake-debugger /nonexistent/core; expect_rc 66 missing
exit 0
