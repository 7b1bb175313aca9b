#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore debug` on hostile cores (tests/debug.cmake), with a stand-in debugger that records
# its arguments (and, for /proc/self/fd/N, the file it names) in fake.log:
#
#   debug_hostile.sh WORKDIR GPUCORE MKEXE MKREADER CASE
#
# meta-kmsg    the capture metadata names /proc/kmsg: without --sysroot nothing the core names
#              is touched (strace: no system call names it), the debugger gets the core alone
#              and one line says how to name the program; with --sysroot / it is refused as a
#              file of the kernel's proc file system, only ever held as an O_PATH handle.
# file-kmsg    the same named by NT_FILE (a core the kernel or gdb wrote), with --sysroot /.
# fifo         a FIFO: refused as not a regular file, never opened (no hang), O_PATH only.
# symlink-out  below --sysroot DIR, an absolute and a climbing relative link to /bin/true:
#              both resolve inside DIR, where nothing is (before: DIR + path, then stat, which
#              followed the links out).
# dotdot       the core names /../../../../bin/true: resolved inside DIR (before: DIR/../../..
#              left it and reached this machine's /bin/true); /../../../../bin/app, an ELF file
#              at DIR/bin/app, is the one found, given as /proc/self/fd/N.
# temp-max     a 1 MB compressed core of 32 GiB: over the default --max-temp (16 GiB), exit 73
#              before anything is written or decompressed (a CPU limit of 10 s holds), the
#              debugger not started.
# temp-room    $TMPDIR on a 256 MiB tmpfs: a core of 512 MiB of data is refused (73, the free
#              space named, nothing left there); one of 512 MiB of zeros, whose copy is holes,
#              fits and is debugged.
# temp-option  --max-temp 1M refuses a 4 MiB copy, --max-temp 8M lets it through.
#
# Exit codes: 0 pass, 1 fail, 77 skip (no strace; temp-room: not root, no tmpfs).
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE MKEXE MKREADER CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkexe=$3 mkreader=$4 kase=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name=debug-hostile-$kase

. "$here/../lib/e2e.sh"
e2e_enter "$work"
mkdir -p tmp
export TMPDIR=$PWD/tmp

cat >fake-debugger <<'EOF'
#!/usr/bin/env bash
{
  printf 'arg %s\n' "$@"
  [ $# -lt 2 ] || echo "exe $(readlink -- "${@: -2:1}" 2>/dev/null)"
} >fake.log
exit 0
EOF
chmod +x fake-debugger

need_strace() { command -v strace >/dev/null || skip "strace is not installed"; }

# traced NAME ARGS...: gpucore debug --debugger ./fake-debugger ARGS under strace (file system
# calls of gpucore and the debugger in NAME.trace), output in NAME.out/.err, status in $rc.
traced() {
  local name=$1
  shift
  rm -f fake.log
  rc=0
  # LeakSanitizer cannot run under ptrace (the sanitizer build): leaks are checked elsewhere.
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 strace -f -qq -e trace=%file \
    -o "$name.trace" "$gpucore" debug --debugger ./fake-debugger "$@" >"$name.out" 2>"$name.err" || rc=$?
  [ "$rc" -ne 124 ] || fail "$name: gpucore debug hung (killed after 60 s)"
}

# core_alone NAME CORE: the debugger got `-c CORE`, the core alone; gpucore said one line.
core_alone() {
  local got
  got=$(grep '^arg ' fake.log | tail -2 | tr '\n' ' ')
  [ "$got" = "arg -c arg $2 " ] || fail "$1: the debugger got: $(tr '\n' ' ' <fake.log)"
  [ "$(wc -l <"$1.err")" -eq 1 ] || fail "$1: not one line: $(cat "$1.err")"
}

# only_o_path NAME PATH: every system call of NAME.trace that names PATH is an O_PATH openat2.
only_o_path() {
  local bad
  bad=$(grep -F -- "$2" "$1.trace" | grep -v 'openat2(.*O_PATH' || true)
  [ -z "$bad" ] || fail "$1: $2 was touched: $bad"
}

case $kase in
  meta-kmsg | file-kmsg)
    need_strace
    kind=${kase%-kmsg}
    "$mkexe" kmsg.core "$kind" /proc/kmsg
    if [ "$kind" = meta ]; then
      traced alone kmsg.core; expect_rc 0 alone
      core_alone alone ./kmsg.core
      grep -q -- "--exe PATH.*--sysroot DIR" alone.err || fail "alone: $(cat alone.err)"
      if grep -q /proc/kmsg alone.trace; then fail "alone: /proc/kmsg was touched: $(grep /proc/kmsg alone.trace)"; fi
    fi
    traced root --sysroot / kmsg.core; expect_rc 0 root
    core_alone root ./kmsg.core
    grep -q "the core's executable /proc/kmsg: below --sysroot /, a file of the kernel's proc file system" root.err ||
      fail "root: $(cat root.err)"
    only_o_path root /proc/kmsg
    ;;
  fifo)
    need_strace
    mkfifo "$PWD/exe.fifo"
    "$mkexe" fifo.core meta "$PWD/exe.fifo"
    traced fifo --sysroot / fifo.core; expect_rc 0 fifo
    core_alone fifo ./fifo.core
    grep -q "not a regular file" fifo.err || fail "fifo: $(cat fifo.err)"
    only_o_path fifo exe.fifo
    ;;
  symlink-out)
    need_strace
    mkdir -p root/bin
    ln -s /bin/true root/bin/abs
    ln -s ../../../../../../../bin/true root/bin/rel
    for l in abs rel; do
      "$mkexe" "$l.core" meta "/bin/$l"
      traced "$l" --sysroot root "$l.core"; expect_rc 0 "$l"
      core_alone "$l" "./$l.core"
      grep -q "not found below --sysroot root" "$l.err" || fail "$l: $(cat "$l.err")"
      if grep -q '"/bin/true"' "$l.trace"; then fail "$l: /bin/true was reached: $(grep true "$l.trace")"; fi
    done
    ;;
  dotdot)
    mkdir -p root/bin
    "$mkexe" out.core meta /../../../../bin/true
    rm -f fake.log
    gc out debug --debugger ./fake-debugger --sysroot root out.core; expect_rc 0 out
    core_alone out ./out.core
    grep -q "not found below --sysroot root" out.err || fail "out: $(cat out.err)"
    cp "$(type -P true)" root/bin/app
    "$mkexe" in.core file /../../../../bin/app
    gc in debug --debugger ./fake-debugger --sysroot root in.core; expect_rc 0 in
    python3 - fake.log "$PWD/root/bin/app" <<'PY' || fail "what the debugger was given (fake.log)"
import os, re, sys
log = open(sys.argv[1]).read().splitlines()
args = [l[4:] for l in log if l.startswith("arg ")]
exe = [l[4:] for l in log if l.startswith("exe ")]
assert args[:2] == ["-iex", "set sysroot root"], args
assert re.fullmatch(r"/proc/self/fd/\d+", args[-2]) and args[-1] == "./in.core", args
assert exe and os.path.realpath(exe[0]) == os.path.realpath(sys.argv[2]), exe
PY
    [ ! -s in.err ] || fail "in: gpucore said: $(cat in.err)"
    ;;
  temp-max)
    "$mkreader" big.core.zst fill-32g
    [ "$(stat -c %s big.core.zst)" -lt $((2 << 20)) ] || fail "the core is not small"
    rm -f fake.log
    rc=0
    prlimit --cpu=10 -- "$gpucore" debug --debugger ./fake-debugger big.core.zst >big.out 2>big.err || rc=$?
    expect_rc 73 big
    grep -q "its decompressed copy would be 32.0 GiB .*more than --max-temp 16.0 GiB" big.err ||
      fail "big: $(cat big.err)"
    [ "$(wc -l <big.err)" -eq 1 ] || fail "big: not one line: $(cat big.err)"
    [ ! -e fake.log ] || fail "the debugger was started"
    [ -z "$(ls -A tmp)" ] || fail "something was written in TMPDIR: $(ls -la tmp)"
    ;;
  temp-room)
    [ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
    mkdir -p small
    mount -t tmpfs -o size=256m tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
    unmount_small() { umount small 2>/dev/null || true; }
    e2e_exit_hook=unmount_small
    export TMPDIR=$PWD/small
    # 512 MiB of data: more than the 256 MiB there.
    "$mkreader" data.core.zst fill-4g 8
    rm -f fake.log
    gc data debug --debugger ./fake-debugger data.core.zst; expect_rc 73 data
    grep -q "its decompressed copy would take 512.0 MiB on disk .*more than the 256.0 MiB free in $TMPDIR less 64.0 MiB kept free" data.err ||
      fail "data: $(cat data.err)"
    [ ! -e fake.log ] || fail "data: the debugger was started"
    [ -z "$(ls -A small)" ] || fail "data: something was left in TMPDIR: $(ls -la small)"
    # 512 MiB of zeros: the copy is holes, it fits.
    "$mkreader" zeros.core.zst zero-4g 8
    sed -i 's|^} >fake.log|  stat -c "size %s blocks %b" "${@: -1}"\n} >fake.log|' fake-debugger
    gc zeros debug --debugger ./fake-debugger zeros.core.zst; expect_rc 0 zeros
    python3 - fake.log "$TMPDIR" <<'PY' || fail "zeros: what the debugger was given (fake.log)"
import os, sys
log = open(sys.argv[1]).read().splitlines()
args = [l[4:] for l in log if l.startswith("arg ")]
size, blocks = [l.split()[1::2] for l in log if l.startswith("size ")][0]
assert os.path.dirname(os.path.dirname(args[-1])) == sys.argv[2], args
assert int(size) == 512 * 2**20 + 4096, size          # the plain core: 4 KiB of head + 512 MiB
assert int(blocks) * 512 <= 64 * 1024, blocks          # holes: the head's page or so
PY
    [ -z "$(ls -A small)" ] || fail "zeros: the copy is left: $(ls -la small)"
    ;;
  temp-option)
    "$mkreader" four.core.zst fill-4g 1024
    gc small debug --debugger ./fake-debugger --max-temp 1M four.core.zst; expect_rc 73 small
    grep -q "would be 4.0 MiB .*more than --max-temp 1.0 MiB" small.err || fail "small: $(cat small.err)"
    gc enough debug --debugger ./fake-debugger --max-temp 8M four.core.zst; expect_rc 0 enough
    grep -q '^arg -c' fake.log || fail "enough: the debugger was not given the copy: $(cat fake.log)"
    gc bad debug --max-temp 0 four.core.zst; expect_rc 64 bad
    gc bad2 debug --max-temp lots four.core.zst; expect_rc 64 bad2
    [ -z "$(ls -A tmp)" ] || fail "something was left in TMPDIR: $(ls -la tmp)"
    ;;
  *) fail "unknown case $kase" ;;
esac
exit 0
