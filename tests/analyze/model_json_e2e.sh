#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What the documents of `gpucore analyze` and `gpucore info` promise, on cores made by the tests
# (tests/model.cmake):
#
#   model_json_e2e.sh WORKDIR GPUCORE MKEXAMPLE MKHOSTCORE CASE
#
# CASE:
#   analyze-json-errors   with --json a view that fails because of the core still prints its
#                         document, naming the error, and exits as without --json: mem that
#                         reads nothing ({..., "bytes_read": 0, "data": "", "error": "..."}),
#                         disasm of code not in the core, the report of a core without GPU
#                         state (also with --exit-code); a bad request prints no document
#   info-host-core        info on a plain host core (no AMDGPU note; the kernel's [vsyscall]
#                         page as PF_X alone) calls it a host core and puts nothing down to the
#                         ROCm runtime
#   report-dispatch-members  the report's agents[].queues[].dispatches[] have exactly the
#                         members the README lists
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line).

set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE MKEXAMPLE MKHOSTCORE CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkexample=$3 mkhostcore=$4 case=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name=$case

. "$here/../lib/e2e.sh"
e2e_enter "$work"

# json_check NAME PYTHON-EXPR: NAME.out is one JSON document d for which PYTHON-EXPR holds.
json_check() {
  python3 - "$1.out" "$2" <<'PY' || fail "gpucore $1: the document fails: $2"
import json, sys
d = json.load(open(sys.argv[1]))
if not eval(sys.argv[2], {"d": d}):
    sys.exit("document: " + json.dumps(d)[:400])
PY
}

# one_error NAME PATTERN: exactly one line on stderr, "gpucore: PATTERN".
one_error() {
  [ "$(wc -l <"$1.err")" -eq 1 ] || fail "gpucore $1 printed $(wc -l <"$1.err") lines on stderr: $(cat "$1.err")"
  grep -Eq "^gpucore( analyze)?: $2" "$1.err" || fail "gpucore $1: unexpected error: $(cat "$1.err")"
}

case $case in
analyze-json-errors)
  "$mkexample" example.core >/dev/null
  python3 "$here/strip_amdgpu_note.py" example.core nonote.core

  # mem: nothing could be read. The README's members, bytes_read 0, the error as a sentence;
  # the exit status of the error (65: the bytes are not in the core), as without --json.
  gc mem-none analyze mem --address 0x10 --json example.core
  expect_rc 65 mem-none
  one_error mem-none "example.core: global memory at 0x10 is not in the core"
  json_check mem-none 'list(d) == ["schema", "command", "core", "file_truncated", "space", "wave", "lane", "address", "size", "bytes_read", "data", "error"]'
  json_check mem-none 'd["command"] == "mem" and d["bytes_read"] == 0 and d["data"] == "" and d["size"] == 64 and d["address"] == "0x10"'
  json_check mem-none 'd["error"] == "global memory at 0x10 is not in the core"'
  # The text view says it once, on stderr; stdout stays empty.
  gc mem-none-text analyze mem --address 0x10 example.core
  expect_rc 65 mem-none-text
  one_error mem-none-text "example.core: global memory at 0x10 is not in the core"
  [ ! -s mem-none-text.out ] || fail "mem without --json printed on stdout: $(head -3 mem-none-text.out)"

  # disasm of code that is not in the core: the view's document with the error.
  gc disasm-none analyze disasm --address 0x10 --json example.core
  expect_rc 65 disasm-none
  one_error disasm-none "example.core: cannot disassemble at 0x10"
  json_check disasm-none 'd["schema"] == "gpucore.analyze/1" and d["command"] == "disasm" and d["core"] == "example.core" and d["error"].startswith("cannot disassemble at 0x10")'

  # No GPU state: every view's document names it; --exit-code keeps its 2.
  gc nonote analyze --json nonote.core
  expect_rc 65 nonote
  one_error nonote "nonote.core: no AMDGPU core-state note"
  json_check nonote 'd["command"] == "report" and d["error"].startswith("no AMDGPU core-state note")'
  gc nonote-exit analyze --json --exit-code nonote.core
  expect_rc 2 nonote-exit
  json_check nonote-exit 'd["command"] == "report" and d["error"].startswith("no AMDGPU core-state note")'
  gc nonote-mem analyze mem --address 0 --json nonote.core
  expect_rc 65 nonote-mem
  json_check nonote-mem 'd["command"] == "mem" and "error" in d'

  # A request the core cannot satisfy is a usage error (64): no document, as for a bad option.
  gc bad-wave analyze regs --wave 99999 --json example.core
  expect_rc 64 bad-wave
  one_error bad-wave "example.core: wave 99999 does not exist"
  [ ! -s bad-wave.out ] || fail "a bad request printed a document: $(head -3 bad-wave.out)"
  ;;

info-host-core)
  python3 "$mkhostcore" host.core
  gc text info --segments host.core
  expect_rc 0 text
  grep -q "^File:        host ELF core, x86-64 (e_machine 62), plain" text.out ||
    fail "info does not call a plain kernel core a host core: $(grep '^File:' text.out)"
  ! grep -q "ROCm" text.out || fail "info puts a host core's segment down to the ROCm runtime: $(grep ROCm text.out)"
  ! grep -q "Tolerated deviations" text.out || fail "info lists a deviation in a plain kernel core"
  grep -Eq "^  0xffffffffff600000 +4096 +0 +--x" text.out || fail "the [vsyscall] segment is not listed as it is: $(cat text.out)"
  [ ! -s text.err ] || fail "info printed on stderr: $(cat text.err)"
  gc json info --json host.core
  expect_rc 0 json
  json_check json 'd["file"]["kind"] == "host" and d["file"]["quirks"] == [] and d["amdgpu"] is None'
  json_check json 'not any("ROCm" in p for p in d["problems"])'
  # The example cores keep their kinds.
  "$mkexample" unified.core >/dev/null
  "$mkexample" --split split.core >/dev/null
  gc unified info --json unified.core
  json_check unified 'd["file"]["kind"] == "unified"'
  gc split info --json split.core
  json_check split 'd["file"]["kind"] == "split"'
  ;;

report-dispatch-members)
  "$mkexample" example.core >/dev/null
  gc report analyze --json example.core
  expect_rc 0 report
  json_check report 'sum(len(q["dispatches"]) for a in d["agents"] for q in a["queues"]) >= 1'
  json_check report 'all(list(x) == ["index", "queue", "packet_id", "kernel", "kernel_demangled", "grid", "workgroup", "private_segment_size", "group_segment_size", "kernel_object", "kernarg_address", "kernel_entry", "waves", "arguments", "arguments_error", "printf"] for a in d["agents"] for q in a["queues"] for x in q["dispatches"])'
  ;;

*)
  fail "unknown case $case"
  ;;
esac
exit 0
