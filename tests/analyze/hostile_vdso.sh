#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The host backtrace of a core whose vDSO image names files through its DWARF
# (tests/host_stack.cmake; the core is tests/tools/mkhostile_vdso.py's):
#
#   hostile_vdso.sh WORKDIR GPUCORE MKEXAMPLE MKVDSO CASE
#
# The vDSO's .gnu_debugaltlink, its .gnu_debuglink and its unit's DW_AT_GNU_dwo_name name three
# FIFOs; the core's one thread stands in the vDSO's function hostile_fn, whose unit takes its
# directory from the supplementary file the altlink names. `gpucore analyze --host` of that core
# (text and --json, the GPU file gpucore-mkexample's) runs under strace and a timeout: it ends
# with exit 0, no system call names a FIFO, no file is opened after the cores but below
# --sysroot, and the frame is hostile_fn at line 42 of
#   altlink          without --sysroot: hostile.c (no supplementary file, so the unit has no
#                    directory; before, libdw opened the FIFO and the report blocked for ever)
#   sysroot-alt      --sysroot DIR holding the supplementary file at the place of its build-id
#                    (usr/lib/debug/.build-id/): /alt/src/hostile.c, its directory
#   sysroot-refused  --sysroot DIR holding there, in turn, a file of another build-id, a FIFO
#                    (only ever held O_PATH) and a link to the real file outside DIR (resolved
#                    inside DIR, where nothing is): hostile.c each time
# Neither reads the image's own .debug_str as the supplementary file's (/wrong/own-debug-str).
#
# The bombs: the same image with a section libelf, libdw or libdwfl would inflate when reading
# it (mkhostile_vdso.py bomb): xz-bomb 512 MiB of .gnu_debugdata in 80 KB (before: 1.1 GB of
# RSS for `analyze`), zlib-bomb and zdebug-bomb 200 MiB of .debug_ranges (SHF_COMPRESSED) and
# .zdebug_ranges in 200 KB. Both views run under a 512 MiB address-space limit (a peak RSS
# bound in a sanitizer build, whose shadow needs terabytes of address space), exit 0, peak
# below 256 MiB, and name the vDSO among the modules without symbols, why naming the section.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line).
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE MKEXAMPLE MKVDSO CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkexample=$3 mkvdso=$4 kase=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name=vdso-$kase

. "$here/../lib/e2e.sh"
e2e_enter "$work"

fifos=("$PWD/alt.fifo" "$PWD/link.fifo" "$PWD/split.dwo")
mkfifo "${fifos[@]}"
"$mkexample" --split gpu.core >/dev/null || fail "gpucore-mkexample failed"
case $kase in
*-bomb) ;;
*) python3 "$mkvdso" core host.core "${fifos[@]}" || fail "mkhostile_vdso.py core failed" ;;
esac
have_strace=1
command -v strace >/dev/null || have_strace=0

# analyze NAME SOURCE [SYSROOT]: `gpucore analyze` and `analyze --json` (with --sysroot SYSROOT
# when given), each under strace when installed and a timeout: both end well, name no FIFO,
# open no file after the cores but below SYSROOT, and show hostile_fn at SOURCE:42.
analyze() {
  local name=$1 want=$2 sysroot=${3:-} view rc
  local opts=(--host host.core gpu.core)
  [ -z "$sysroot" ] || opts=(--sysroot "$sysroot" "${opts[@]}")
  for view in text json; do
    rc=0
    [ "$view" = text ] || opts=(--json "${opts[@]}")
    # (LeakSanitizer cannot run under ptrace: off for this run in sanitizer builds)
    if [ "$have_strace" = 1 ]; then
      ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 \
        strace -f -qq -e trace=%file -o "$name-$view.trace" "$gpucore" analyze "${opts[@]}" \
        >"$name-$view.out" 2>"$name-$view.err" || rc=$?
    else
      timeout 60 "$gpucore" analyze "${opts[@]}" >"$name-$view.out" 2>"$name-$view.err" || rc=$?
    fi
    [ "$rc" -ne 124 ] || fail "$name ($view): gpucore analyze hung (killed after 60 s)"
    [ "$rc" -eq 0 ] || fail "$name ($view): exit $rc: $(cat "$name-$view.err")"
    [ "$have_strace" = 0 ] || no_file_opened "$name-$view.trace" "$sysroot"
  done
  grep -qxF "    #0  0x7ffff7fc1410 in hostile_fn+0x10 ([vdso]) at $want:42:0" "$name-text.out" ||
    fail "$name: not hostile_fn at $want:42: $(sed -n '/^Host threads/,$p' "$name-text.out")"
  python3 - "$name-json.out" "$want" <<'PY' || fail "$name: the JSON frame: see above"
import json, sys
f = json.load(open(sys.argv[1]))["host"]["threads"][0]["frames"][0]
want = {"module": "[vdso]", "symbol": "hostile_fn", "symbol_offset": 16,
        "source": {"file": sys.argv[2], "line": 42, "column": 0}}
got = {k: f[k] for k in want}
if got != want:
    sys.exit("got %s, want %s" % (got, want))
PY
}

# bomb KIND MIB SECTION: the image with a compressed SECTION of MIB MiB is not read, within
# the limits.
bomb() {
  local sanitized=0 view peak limits=()
  python3 "$mkvdso" bomb host.core "$1" "$2" || fail "mkhostile_vdso.py bomb failed"
  # (grep reads all of ldd's output: with -q it could stop early and, under pipefail, make
  # ldd's SIGPIPE look like no match)
  if ldd "$gpucore" 2>/dev/null | grep 'lib[at]san' >/dev/null; then sanitized=1; fi
  [ "$sanitized" = 1 ] || limits=(--as=$((512 << 20)))
  for view in text json; do
    rc=0
    /usr/bin/time -f %M -o "$view.time" prlimit --cpu=60 "${limits[@]}" "$gpucore" analyze \
      $([ "$view" = text ] || echo --json) --host host.core gpu.core >"$view.out" 2>"$view.err" ||
      rc=$?
    [ "$rc" -eq 0 ] || fail "$view: exit $rc under ${limits[*]:-no limit}: $(tail -3 "$view.err")"
    peak=$(tail -1 "$view.time")
    [ "$peak" -lt $((256 * 1024 * (sanitized + 1))) ] || fail "$view: peaked at $peak kB"
  done
  grep -qxF "    #0  0x7ffff7fc1410 in [vdso]+0x410 (no symbols)" text.out ||
    fail "the frame: $(sed -n '/^Host threads/,$p' text.out)"
  python3 - json.out "$3" <<'PY' || fail "the JSON: see above"
import json, sys
h = json.load(open(sys.argv[1]))["host"]
f = h["threads"][0]["frames"][0]
assert (f["module"], f["symbol"], f["source"]) == ("[vdso]", None, None), f
m = h["modules_without_symbols"]
assert [x["name"] for x in m] == ["[vdso]"] and m[0]["in_frames"], m
want = ("its image in the core has a compressed section (%s), which a kernel's vDSO never has: "
        "not read (it could inflate far beyond the core's bytes)" % sys.argv[2])
assert m[0]["why"] == want, m[0]["why"]
assert m[0]["build_id"] == "505152535455565758595a5b5c5d5e5f60616263", m[0]
PY
}

# no_file_opened TRACE [SYSROOT]: no system call names a FIFO the core names, and after the
# cores' own opens nothing is opened but below SYSROOT as open_below.h does it: SYSROOT itself
# O_PATH, a path inside it by openat2 RESOLVE_IN_ROOT, that handle reopened through
# /proc/self/fd/N. (/dev/urandom: libc's hash seed.)
no_file_opened() {
  local f
  for f in "${fifos[@]}"; do
    ! grep -qF -- "$f" "$1" || fail "$1: $f was touched: $(grep -F -- "$f" "$1")"
  done
  python3 - "$1" "${2:-}" <<'PY' || fail "$1: a file was opened after the cores: see above"
import re, sys
lines, root = open(sys.argv[1]).read().splitlines(), sys.argv[2]
at = [i for i, l in enumerate(lines) if re.search(r'open(at2?)?\(.*"(host|gpu)\.core"', l)]
if not at:
    sys.exit("the cores' own opens are not in the trace")
def allowed(l):
    if re.search(r'\bopenat2\(', l):
        return bool(root) and "RESOLVE_IN_ROOT" in l
    m = re.search(r'\bopen(at)?\((?:AT_FDCWD, )?"([^"]*)"', l)
    if not m:
        return True  # not an open (stat, readlink, ...)
    path = m.group(2)
    return (path == "/dev/urandom" or (bool(root) and path == root and "O_PATH" in l)
            or (bool(root) and re.fullmatch(r"/proc/self/fd/\d+", path) is not None))
bad = [l for l in lines[at[-1] + 1:] if not allowed(l)]
for l in bad:
    print(l)
sys.exit(1 if bad else 0)
PY
}

case $kase in
altlink)
  analyze plain hostile.c
  ;;
sysroot-alt)
  mkdir root
  alt=$(python3 "$mkvdso" alt root) || fail "mkhostile_vdso.py alt failed"
  analyze sysroot /alt/src/hostile.c "$PWD/root"
  ;;
sysroot-refused)
  mkdir root
  alt=$(python3 "$mkvdso" alt root other) || fail "mkhostile_vdso.py alt failed"
  analyze other hostile.c "$PWD/root"
  rm "root/$alt"
  mkfifo "root/$alt"
  analyze fifo hostile.c "$PWD/root"
  if [ "$have_strace" = 1 ]; then
    bad=$(cat fifo-*.trace | grep -F -- "${alt#usr/lib/debug}" | grep -v 'openat2(.*O_PATH' || true)
    [ -z "$bad" ] || fail "the FIFO below --sysroot was opened: $bad"
  fi
  rm "root/$alt"
  mkdir outside
  python3 "$mkvdso" alt outside >/dev/null || fail "mkhostile_vdso.py alt failed"
  ln -s "$PWD/outside/$alt" "root/$alt"
  analyze link hostile.c "$PWD/root"
  if [ "$have_strace" = 1 ]; then
    ! grep -qF -- "$PWD/outside" link-*.trace || fail "the link was followed out of --sysroot"
  fi
  ;;
xz-bomb) bomb xz 512 .gnu_debugdata ;;
zlib-bomb) bomb zlib 200 .debug_ranges ;;
zdebug-bomb) bomb zdebug 200 .zdebug_ranges ;;
*)
  fail "unknown case $kase"
  ;;
esac
exit 0
