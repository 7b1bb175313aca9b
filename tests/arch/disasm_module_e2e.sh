#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The disassembler module end to end (tests/disasm_module.cmake):
#
#   disasm_module_e2e.sh CASE WORKDIR GPUCORE MODULE INSTALLED INFERIOR OBJECTS TESTS
#
#   needed   the program has no DT_NEEDED on libLLVM; the module has, and exports only
#            gpucore_disasm_module_get
#   lazy     `gpucore --version`, `gpucore capture --help`, a simulated `gpucore run` capture
#            (of vadd-fault, which faults) and `gpucore info` of its core open no libLLVM, in
#            any of their processes (LD_DEBUG=files); `gpucore analyze` and `analyze disasm` of
#            that core do
#   missing  a copy of the program outside the build tree, where the module is looked for at
#            INSTALLED (skipped when one is installed there): the report renders, each PC's
#            instruction saying "disassembler not available: cannot open INSTALLED: ...",
#            `analyze waves` works, `analyze disasm` exits 69 with that sentence
#
# The core analyzed is the one kept in the repository (tests/fuzz/corpus/fuzz_image/
# rdna2-illegal-state.bin), except for lazy, which captures its own.
# Exit codes: 0 pass, 1 fail (one "FAIL [disasm-module-CASE]: why" line), 77 skip.
set -euo pipefail

[ $# -eq 8 ] || { echo "usage: $0 CASE WORKDIR GPUCORE MODULE INSTALLED INFERIOR OBJECTS TESTS" >&2; exit 2; }
kase=$1 work=$2 gpucore=$3 module=$4 installed=$5 inferior=$6 objects=$7 tests=$8
test_name=disasm-module-$kase
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/e2e.sh"
e2e_enter "$work"
fixture=$tests/fuzz/corpus/fuzz_image/rdna2-illegal-state.bin

# needed_of FILE: its DT_NEEDED entries, one a line.
needed_of() {
  readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

# ld_run NAME CMD...: CMD with the loader's file log in NAME.ld.PID (one per process); its
# status in $rc, its output in NAME.out / NAME.err.
ld_run() {
  local name=$1
  shift
  rc=0
  LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/$name.ld" "$@" >"$name.out" 2>"$name.err" || rc=$?
  compgen -G "$name.ld.*" >/dev/null || fail "$name: LD_DEBUG wrote no log (is LD_DEBUG honoured here?)"
}

# opened NAME: the libLLVM lines of NAME's loader logs.
opened() {
  grep -h "file=libLLVM" "$1".ld.* || true
}

case $kase in
needed)
  command -v readelf >/dev/null || skip "no readelf"
  needed_of "$gpucore" >gpucore.needed
  [ -s gpucore.needed ] || fail "readelf found no DT_NEEDED in $gpucore"
  if grep -i "libLLVM" gpucore.needed; then
    fail "gpucore has a DT_NEEDED on libLLVM"
  fi
  needed_of "$module" | grep -q "libLLVM" || fail "the module has no DT_NEEDED on libLLVM"
  exports=$(nm -D --defined-only "$module" | awk '$2 ~ /^[TtDdBbRr]$/ && $3 !~ /^_/ { print $3 }')
  [ "$exports" = gpucore_disasm_module_get ] ||
    fail "the module exports '$exports', expected gpucore_disasm_module_get only"
  ;;
lazy)
  ld_run version "$gpucore" --version
  expect_rc 0 version
  [ -z "$(opened version)" ] || fail "gpucore --version opened libLLVM: $(opened version)"
  ld_run help "$gpucore" capture --help
  expect_rc 0 help
  [ -z "$(opened help)" ] || fail "gpucore capture --help opened libLLVM: $(opened help)"
  # A capture at the GPU error, signature included; then the inferior aborts (134).
  ld_run run "$gpucore" run --kfd sim -o run.core -- "$inferior" "$tests/scenarios/vadd-fault.json" \
      --objects "$objects"
  [ "$rc" -ne 77 ] || skip "$(cat run.err)"
  expect_rc 134 run
  grep -q "signature" run.err || fail "the capture printed no signature: $(cat run.err)"
  [ -f run.core ] || fail "no core written"
  [ -z "$(opened run)" ] || fail "gpucore run opened libLLVM: $(opened run)"
  ld_run info "$gpucore" info run.core
  expect_rc 0 info
  [ -z "$(opened info)" ] || fail "gpucore info opened libLLVM: $(opened info)"
  # What disassembles loads it (and the report's instructions are text).
  ld_run disasm "$gpucore" analyze disasm run.core
  expect_rc 0 disasm
  [ -n "$(opened disasm)" ] || fail "analyze disasm did not open libLLVM"
  grep -q "^=> .*global_store" disasm.out || fail "no instruction at the PC: $(cat disasm.out)"
  ld_run report "$gpucore" analyze --json run.core
  expect_rc 0 report
  [ -n "$(opened report)" ] || fail "analyze did not open libLLVM"
  ;;
missing)
  [ ! -e "$installed" ] || skip "a module is installed at $installed"
  copy=$(mktemp -d "${TMPDIR:-/tmp}/gpucore-nomodule.XXXXXX")
  remove_copy() { rm -rf "$copy"; }
  e2e_exit_hook=remove_copy
  cp "$gpucore" "$copy/gpucore"
  gpucore=$copy/gpucore
  why="disassembler not available: cannot open $installed: No such file or directory"
  gc report analyze "$fixture"
  expect_rc 0 report
  grep -qF "at divide+0x10: cannot disassemble: $why" report.out ||
    fail "the report does not say why there is no instruction: $(head -3 report.out)"
  grep -q "^Signature: " report.out || fail "no signature: $(cat report.out)"
  gc json analyze --json "$fixture"
  expect_rc 0 json
  python3 - json.out "$why" <<'PY' || fail "the JSON report's groups are not as expected"
import json, sys
d = json.load(open(sys.argv[1]))
groups = [g for a in d["agents"] for q in a["queues"] for g in q["groups"]]
assert groups, "no groups"
for g in groups:
    assert g["instruction"] is None, g
    assert g["instruction_error"] == "cannot disassemble: " + sys.argv[2], g["instruction_error"]
assert d["signature"]["text"].startswith("fault:divide+0x10:"), d["signature"]
PY
  gc waves analyze waves "$fixture"
  expect_rc 0 waves
  gc disasm analyze disasm "$fixture"
  expect_rc 69 disasm
  [ "$(cat disasm.err)" = "gpucore: $why" ] || fail "analyze disasm said: $(cat disasm.err)"
  [ ! -s disasm.out ] || fail "analyze disasm printed: $(cat disasm.out)"
  ;;
*)
  echo "unknown case $kase" >&2
  exit 2
  ;;
esac
exit 0
