#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of the `gpucore` program. One case per invocation, so each is its own
# ctest entry:   cli_test.sh GPUCORE MKEXAMPLE WORKDIR CASE
#
# Golden outputs live in tests/cli/golden/CASE.expected. To accept a changed output on
# purpose, run:  GPUCORE_UPDATE_GOLDEN=1 ctest -R cli-golden   and review the diff in git.
set -euo pipefail

gpucore=$1 mkexample=$2 work=$3 case=$4
golden_dir=$(cd "$(dirname "$0")" && pwd)/golden
mkdir -p "$work/$case"
cd "$work/$case"
rm -rf ./*
# The case's files go when it passes (kept after a failure, or with GPUCORE_KEEP_TEST_FILES=1).
trap 'if [ $? -eq 0 ] && [ -z "${GPUCORE_KEEP_TEST_FILES:-}" ]; then cd / && rm -rf "$work/$case"; fi' EXIT

fail() { echo "FAIL [$case]: $*" >&2; exit 1; }

# expect_exit CODE CMD... : run CMD, require exit CODE; stdout/stderr kept in out.txt/err.txt.
expect_exit() {
  local want=$1; shift
  set +e
  "$@" >out.txt 2>err.txt
  local got=$?
  set -e
  [ "$got" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $got, expected $want"; }
}

# golden NAME: compare out.txt with the golden file (or update it).
golden() {
  local expected="$golden_dir/$1.expected"
  if [ "${GPUCORE_UPDATE_GOLDEN:-0}" = 1 ]; then
    cp out.txt "$expected"
    echo "updated $expected"
    return
  fi
  [ -f "$expected" ] || fail "missing golden file $expected (run with GPUCORE_UPDATE_GOLDEN=1)"
  diff -u "$expected" out.txt || fail "output differs from $expected"
}

stderr_has() { grep -q -- "$1" err.txt || { cat err.txt >&2; fail "stderr lacks '$1'"; }; }

case $case in
golden-info-text)
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" info example.core
  golden info-text ;;
golden-info-segments)
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" info --segments example.core
  golden info-segments ;;
golden-info-json)
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" info --json example.core
  golden info-json ;;
golden-info-split)
  "$mkexample" --split example.core >/dev/null
  expect_exit 0 "$gpucore" info example.core
  golden info-split ;;
golden-info-compressed)
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" compress example.core example.core.zst
  expect_exit 0 "$gpucore" info --json example.core.zst
  golden info-compressed-json ;;
compress-roundtrip)
  "$mkexample" example.core >/dev/null
  for level in 1 3 19 -5; do
    expect_exit 0 "$gpucore" compress --force -l "$level" example.core c.zst
    expect_exit 0 "$gpucore" decompress --force c.zst back.core
    cmp example.core back.core || fail "decompress(compress -l $level) differs from input"
    if command -v zstd >/dev/null; then
      zstd -q -d -f c.zst -o viazstd.core
      cmp example.core viazstd.core || fail "zstd -d differs from input (level $level)"
    fi
  done
  expect_exit 0 "$gpucore" compress --force -T 2 --frame-size 64K example.core c.zst
  expect_exit 0 "$gpucore" decompress --force c.zst back.core
  cmp example.core back.core || fail "threaded/small-frame round trip differs" ;;
compress-refuses-overwrite)
  "$mkexample" example.core >/dev/null
  echo keep > out.zst
  expect_exit 73 "$gpucore" compress example.core out.zst
  stderr_has "out.zst"
  [ "$(cat out.zst)" = keep ] || fail "existing output was modified"
  # A missing output directory, or a file in its place, cannot be created into: 73 too.
  expect_exit 73 "$gpucore" compress example.core missing/out.zst
  stderr_has "missing"
  "$gpucore" compress example.core ok.zst
  expect_exit 73 "$gpucore" decompress ok.zst example.core/out
  stderr_has "Not a directory" ;;
version)
  expect_exit 0 "$gpucore" --version
  grep -Eq '^gpucore [0-9]+\.[0-9]+\.[0-9]+$' out.txt || fail "bad version line: $(cat out.txt)" ;;
help)
  expect_exit 0 "$gpucore" --help
  grep -q "info" out.txt || fail "--help does not list info"
  expect_exit 0 "$gpucore" info --help
  grep -q -- "--json" out.txt || fail "info --help does not document --json" ;;
help-exit-codes)
  # Every exit code the capture paths return is listed, and watch/run say what they do when
  # no core is written.
  for sub in "" capture watch; do
    expect_exit 0 "$gpucore" $sub --help
    tr '\n' ' ' < out.txt > flat.txt
    for code in 64 66 69 70 73 74 75 77 129 130 131 143; do
      grep -q "[ (]$code " flat.txt || fail "gpucore $sub --help does not list exit code $code"
    done
  done
  # run refuses only a usage error, a command it cannot execute or trace: no driver, a taken
  # name or a missing directory are warnings, never 69 or 73.
  expect_exit 0 "$gpucore" run --help
  tr '\n' ' ' < out.txt > flat.txt
  for code in 64 66 70 77 143; do
    grep -q "[ (]$code " flat.txt || fail "gpucore run --help does not list exit code $code"
  done
  for code in 69 73; do
    ! grep -q "[ (]$code " flat.txt || fail "gpucore run --help lists exit code $code"
  done
  expect_exit 0 "$gpucore" watch --help
  tr '\n' ' ' < out.txt > flat.txt
  grep -q "without a GPU error.*exits 0" flat.txt ||
    fail "watch --help does not say a target ending without a GPU error means exit 0"
  expect_exit 0 "$gpucore" run --help
  tr '\n' ' ' < out.txt > flat.txt
  grep -q "SIGTERM" flat.txt && grep -q "driver .*fails" flat.txt ||
    fail "run --help does not say what a SIGTERM or a driver failure does" ;;
help-synopsis)
  # The synopses show the options each command takes, and only what is required as required.
  expect_exit 0 "$gpucore" --help
  for opt in --quiet --log-level --json --code-object-path; do
    grep -q -- "$opt" out.txt || fail "gpucore --help synopsis lacks $opt"
  done
  expect_exit 0 "$gpucore" analyze --help
  grep -q "analyze mem --address" out.txt && fail "analyze --help shows mem --address as required"
  grep -q "Every view also takes --host HOSTCORE" out.txt ||
    fail "analyze --help does not say --host applies to every view"
  # What the synopsis says, the parser does: --address only for the global space; --host for
  # every view (a missing core is 66, a usage error 64).
  expect_exit 64 "$gpucore" analyze mem missing.core
  stderr_has "needs --address"
  expect_exit 66 "$gpucore" analyze mem --space local missing.core
  for view in waves regs disasm "mem --space local"; do
    expect_exit 66 "$gpucore" analyze $view --wave 0 --host missing-host.core missing.core
  done ;;
compress-level-range)
  # One range of zstd levels for compress --level and the capture commands' --compress=LEVEL:
  # each accepted level gets past the option (to the missing operand), each refused one is
  # refused by both with the same range named.
  for lvl in -7 -1 1 19 20 22; do
    for sub in run capture watch; do
      expect_exit 64 "$gpucore" $sub --compress=$lvl
      grep -q -- "--compress" err.txt && fail "$sub refuses --compress=$lvl: $(cat err.txt)"
    done
    expect_exit 64 "$gpucore" compress --level $lvl onlyone
    grep -q -- "--level" err.txt && fail "compress refuses --level $lvl: $(cat err.txt)"
  done
  for lvl in -8 0 23; do
    for sub in run capture watch; do
      expect_exit 64 "$gpucore" $sub --compress=$lvl
      stderr_has "--compress takes a level -7..-1 or 1..22, got '$lvl'"
    done
    expect_exit 64 "$gpucore" compress --level $lvl a b
    stderr_has "--level takes -7..-1 or 1..22, got '$lvl'"
  done ;;
usage-errors)
  expect_exit 64 "$gpucore"
  expect_exit 64 "$gpucore" frobnicate
  stderr_has "unknown command 'frobnicate'"
  expect_exit 64 "$gpucore" info
  stderr_has "missing CORE"
  expect_exit 64 "$gpucore" info --bogus x
  expect_exit 64 "$gpucore" compress -l 99 a b
  stderr_has -- "--level"
  expect_exit 64 "$gpucore" compress onlyone ;;
missing-input)
  expect_exit 66 "$gpucore" info does-not-exist.core
  stderr_has "gpucore: does-not-exist.core: cannot open: No such file or directory"
  mkdir -p adir
  expect_exit 66 "$gpucore" info adir
  stderr_has "is a directory" ;;
malformed-input)
  printf 'this is not an ELF core at all, just text padding it out to 64 bytes.....' > bad.core
  expect_exit 65 "$gpucore" info bad.core
  stderr_has "gpucore: bad.core: offset 0x"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "expected one error line, got: $(cat err.txt)"
  : > empty.core
  expect_exit 65 "$gpucore" info empty.core
  stderr_has "gpucore: empty.core:"
  # A core cut in the middle of its segment data still opens, and says so.
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" info example.core
  head -c 300 example.core > cut.core
  set +e; "$gpucore" info cut.core >out.txt 2>err.txt; rc=$?; set -e
  [ "$rc" -eq 65 ] || [ "$rc" -eq 0 ] || fail "cut core: exit $rc"
  [ -s err.txt ] || grep -q "Problems" out.txt || fail "cut core: no diagnosis" ;;
unusable-gpu-state)
  # A core whose AMDGPU note decodes but AMD's debugger library would reject (KFD minor
  # version 12, below the 1.13 window): info still describes it, then says why on stderr and
  # exits 65, so a script can tell a core with usable GPU state from one without.
  "$mkexample" example.core >/dev/null
  python3 - example.core <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.find(struct.pack("<I", 33) + b"AMDGPU\0\0")
assert at > 0, "no AMDGPU note"
desc = at + 4 + 8
struct.pack_into("<I", b, desc + 12, 12)
open(sys.argv[1], "wb").write(b)
PY
  expect_exit 65 "$gpucore" info example.core
  grep -q "KFD" out.txt || fail "the description was not printed: $(cat out.txt)"
  stderr_has "gpucore: example.core: offset 0x"
  stderr_has "AMD's debugger library would not use the AMDGPU state"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "expected one error line, got: $(cat err.txt)"
  expect_exit 65 "$gpucore" info --json example.core
  python3 -c 'import json,sys; d=json.load(open("out.txt")); assert d["amdgpu"]["amd_reader_check"]["ok"] is False' ||
    fail "--json: no document or the check is not false" ;;
terminal-escapes)
  # A core's strings reach the terminal: an escape sequence in the executable's path (C0: ESC
  # [2J clears the screen; C1: U+009B is CSI in some terminals) comes out as '?' in every text
  # view, and intact (escaped) in JSON.
  "$mkexample" example.core >/dev/null
  python3 - example.core <<'PY'
import sys
p = sys.argv[1]; b = open(p, "rb").read()
old = b"/opt/example/vadd"
new = b"/opt/\x1b[2J\xc2\x9bpl/vad"
assert len(old) == len(new) and b.count(old) >= 1
open(p, "wb").write(b.replace(old, new))
PY
  expect_exit 0 "$gpucore" info example.core
  grep -q '/opt/?\[2J??pl/vad' out.txt || fail "info: the path is not neutralised: $(grep opt out.txt)"
  ! grep -q $'\x1b' out.txt || fail "info printed an ESC byte"
  ! grep -q $'\xc2\x9b' out.txt || fail "info printed a C1 control"
  expect_exit 0 "$gpucore" dbgapi-dump example.core
  ! grep -q $'\x1b' out.txt || fail "dbgapi-dump printed an ESC byte"
  expect_exit 0 "$gpucore" info --json example.core
  python3 - out.txt <<'PY' ||
import json, sys
def strings(v):
    if isinstance(v, dict):
        for x in v.values(): yield from strings(x)
    elif isinstance(v, list):
        for x in v: yield from strings(x)
    elif isinstance(v, str):
        yield v
sys.exit(0 if "/opt/\x1b[2J\u009bpl/vad" in strings(json.load(open(sys.argv[1]))) else 1)
PY
    fail "info --json lost the exact bytes" ;;
golden-dbgapi-dump-text)
  # The library's view of the example core through the public interface. The library's path
  # and the agent's name (from pci.ids, if installed) depend on the machine.
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" dbgapi-dump example.core
  sed -E -e 's#^(  path +).*#\1LIBRARY#' -e 's#^(  name +)(Device 1002:740f|.*MI210.*)$#\1AGENT#' \
    out.txt > norm.txt && mv norm.txt out.txt
  golden dbgapi-dump-text ;;
golden-dbgapi-dump-json)
  "$mkexample" example.core >/dev/null
  expect_exit 0 "$gpucore" dbgapi-dump --json --lds example.core
  python3 -c 'import json,sys
for l in open("out.txt"):
    r = json.loads(l)
    if r["kind"] == "library": r["path"] = "LIBRARY"
    if r["kind"] == "agent": r["name"] = "AGENT"
    print(json.dumps(r, sort_keys=True))' > norm.txt && mv norm.txt out.txt
  golden dbgapi-dump-json
  cp out.txt plain.txt
  # split and compressed forms of the same core: the same answers
  "$mkexample" --split split.core >/dev/null
  expect_exit 0 "$gpucore" compress example.core example.core.zst
  for other in split.core example.core.zst; do
    "$gpucore" dbgapi-dump --json --lds "$other" | python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    if r["kind"] == "library": r["path"] = "LIBRARY"; r["core"] = "example.core"
    if r["kind"] == "agent": r["name"] = "AGENT"
    print(json.dumps(r, sort_keys=True))' > other.txt
    diff -u plain.txt other.txt || fail "dbgapi-dump of $other differs from the plain core's"
  done ;;
dbgapi-dump-errors)
  "$mkexample" example.core >/dev/null
  expect_exit 66 "$gpucore" dbgapi-dump does-not-exist.core
  stderr_has "does-not-exist.core: cannot open"
  printf 'this is not an ELF core at all, just text padding it out to 64 bytes.....' > bad.core
  expect_exit 65 "$gpucore" dbgapi-dump bad.core
  stderr_has "bad.core: offset 0x"
  python3 "$(dirname "$golden_dir")/../analyze/strip_amdgpu_note.py" example.core nonote.core
  expect_exit 65 "$gpucore" dbgapi-dump nonote.core
  stderr_has "nonote.core: no AMDGPU core-state note"
  expect_exit 69 "$gpucore" dbgapi-dump --library /nonexistent/librocm-dbgapi.so.0 example.core
  stderr_has "cannot load the amd-dbgapi library"
  libc=$(ldd "$gpucore" | awk '/libc\.so/ { print $3 }')
  expect_exit 69 "$gpucore" dbgapi-dump --library "$libc" example.core
  stderr_has "not an amd-dbgapi 0.77 library: it does not define amd_dbgapi_"
  expect_exit 64 "$gpucore" dbgapi-dump --bogus example.core
  expect_exit 64 "$gpucore" dbgapi-dump example.core example.core
  stderr_has "expected exactly one CORE"
  expect_exit 64 "$gpucore" dbgapi-dump --log-level loud example.core
  stderr_has "unknown log level 'loud'"
  expect_exit 0 "$gpucore" dbgapi-dump --help
  grep -q -- "--library" out.txt || fail "dbgapi-dump --help does not document --library" ;;
*)
  fail "unknown case" ;;
esac
echo "ok [$case]"
