#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Captures of a simulated GPU process (gpucore-inferior, vadd-fault) under size budgets, and
# the cores cut short afterwards (tests/capture_cut.cmake):
#
#   usage     --max-size below the smallest core is a usage error (64) naming the minimum
#   sweep     a sweep of budgets, plain and --compress: every file is within its budget; a
#             budget below the core's own headers and notes fails (73) naming the bytes needed
#             and leaves no file; compressed files come close to their budget; a generous
#             compressed budget keeps every wave
#   cut       plain and compressed cores cut at many offsets (inside the notes, after them,
#             inside segment data, inside the last frame, just before the seek table): `gpucore
#             info` and `gpucore analyze` open every cut after the notes and say the file was
#             truncated; cuts inside the notes open or fail with one line, never crash
#
#   cut_budget_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -ge 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6

test_name=$case

. "$(cd "$(dirname "$0")" && pwd)/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

# start_inferior: vadd-fault, whose runtime carries on after the GPU error, so one process
# serves many captures.
start_inferior() {
  e2e_continue_copy "$scenarios/vadd-fault.json" vadd.json
  e2e_start_inferior vadd.json
}

size_of() { stat -c %s "$1"; }
bytes() { # N[K|M] -> bytes
  python3 -c "import sys; s=sys.argv[1]; m={'K':1<<10,'M':1<<20}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$1"
}
analyze_waves() { # CORE -> number of waves analyze finds
  "$gpucore" analyze --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["waves"])'
}

case $case in
usage)
  for n in 1K 4095 100; do
    rc=0
    "$gpucore" capture --kfd sim --max-size "$n" 1 >u.out 2>u.err || rc=$?
    [ "$rc" -eq 64 ] || fail "--max-size $n exited $rc, expected 64: $(cat u.err)"
    grep -q "below the smallest core, 4096 bytes" u.err || fail "--max-size $n: $(cat u.err)"
    [ "$(wc -l <u.err)" -eq 1 ] || fail "--max-size $n printed more than one line: $(cat u.err)"
  done
  gc h capture --help
  grep -q "apparent size" h.out || fail "--help does not say what the budget counts"
  ;;
sweep)
  start_inferior
  for mode in plain compress; do
    opt=; [ $mode = compress ] && opt=--compress
    ok=0 refused=0
    for b in 4K 16K 48K 64K 100K 160K 256K 512K 1M 4M 16M; do
      out=core.$mode.$b
      gc cap capture --kfd sim $opt --max-size "$b" "$ipid" -o "$out"
      want=$(bytes "$b")
      if [ "$rc" -eq 73 ]; then
        # The core's own structure does not fit: the bytes it needs are named, no file left.
        need=$(sed -n 's/.*notes need \([0-9]*\) bytes.*/\1/p' cap.err)
        [ -n "$need" ] && [ "$need" -gt "$want" ] || fail "$mode $b: exit 73 without the bytes needed: $(cat cap.err)"
        [ ! -e "$out" ] || fail "$mode $b: exit 73 but $out exists"
        [ "$(ls -A | grep -c "^\.$out" || true)" -eq 0 ] || fail "$mode $b: a temporary file was left"
        refused=$((refused + 1))
        continue
      fi
      [ "$rc" -eq 0 ] || fail "$mode --max-size $b exited $rc: $(cat cap.err)"
      got=$(size_of "$out")
      [ "$got" -le "$want" ] || fail "$mode --max-size $b: the file has $got bytes"
      gc info info "$out"
      [ "$rc" -eq 0 ] || fail "$mode $b: gpucore info exited $rc: $(cat info.err)"
      if grep -q "TRUNCATED (size budget)" cap.err && [ $mode = compress ]; then
        # Compressed: the budget is filled to within a frame header and a cut step.
        [ "$got" -ge $((want - 2048)) ] || fail "compress $b: only $got of $want bytes used"
      fi
      ok=$((ok + 1))
    done
    [ "$ok" -ge 5 ] || fail "$mode: only $ok budgets gave a core"
    [ "$refused" -ge 1 ] || fail "$mode: 4K did not refuse: the test lost its edge"
  done
  # Every wave: a generous compressed budget, and a budget that holds the state tier.
  gc full capture --kfd sim --compress "$ipid" -o core.full
  [ "$rc" -eq 0 ] || fail "capture without a budget exited $rc: $(cat full.err)"
  full_waves=$(analyze_waves core.full)
  [ "$full_waves" -gt 0 ] || fail "the scenario has no waves"
  for b in 64M 1M; do
    gc g capture --kfd sim --compress --max-size "$b" "$ipid" -o "core.gen.$b"
    [ "$rc" -eq 0 ] || fail "--compress --max-size $b exited $rc: $(cat g.err)"
    [ "$(analyze_waves "core.gen.$b")" = "$full_waves" ] ||
      fail "--compress --max-size $b kept $(analyze_waves "core.gen.$b") of $full_waves waves"
  done
  ;;
cut)
  start_inferior
  for mode in plain compress; do
    opt=; [ $mode = compress ] && opt=--compress
    core=core.$mode
    gc cap capture --kfd sim $opt "$ipid" -o "$core"
    [ "$rc" -eq 0 ] || fail "capture exited $rc: $(cat cap.err)"
    gc info info --json --segments "$core"
    read -r notes_end first_data size <<<"$(python3 -c '
import json,sys
d=json.load(open("info.out"))
n=d["notes"][-1]
ne=n["offset"]+12+(len(n["owner"])+1+3)//4*4+(n["size"]+3)//4*4
fd=min(s["offset"] for s in d["segments"]["list"] if s["filesz"])
print(ne, fd, d["file"]["file_size"])')"
    [ "$notes_end" -le "$first_data" ] || fail "$mode: notes end at $notes_end, after data at $first_data"
    if [ $mode = plain ]; then
      cuts="100 2000 $((notes_end - 1)) $notes_end $((notes_end + 1)) $((first_data + 5000)) $((size / 3)) $((size / 2)) $((size - 1))"
    else
      # Physical offsets: the head frames, the middle, inside the last frame, before the table.
      table=$(python3 -c '
import struct,sys
b=open(sys.argv[1],"rb").read(); n=struct.unpack("<I",b[-9:-5])[0]; print(8+8*n+9)' "$core")
      cuts="20 $((size / 4)) $((size / 2)) $((size - table - 300)) $((size - table - 1)) $((size - table))"
    fi
    for c in $cuts; do
      head -c "$c" "$core" >cut.core
      gc ci info cut.core
      if [ "$rc" -ne 0 ]; then
        # Only a cut inside the head may be refused, with one line naming the file.
        [ "$rc" -eq 65 ] || fail "$mode cut at $c: info exited $rc: $(cat ci.err)"
        [ "$(wc -l <ci.err)" -eq 1 ] && grep -q "cut.core" ci.err || fail "$mode cut at $c: $(cat ci.err)"
        if [ $mode = plain ]; then
          [ "$c" -lt "$notes_end" ] || fail "plain cut at $c (notes end at $notes_end) refused: $(cat ci.err)"
        else
          [ "$c" -lt 4096 ] || fail "compressed cut at $c refused: $(cat ci.err)"
        fi
        continue
      fi
      if [ $mode = compress ] && [ "$c" -eq $((size - table)) ]; then
        # Only the seek table is gone: every frame is there, found by walking them.
        ! grep -q "^File truncated" ci.out || fail "cut of the seek table alone reads as truncated"
        continue
      fi
      grep -q "^File truncated: yes" ci.out || fail "$mode cut at $c: info does not say truncated: $(head -12 ci.out)"
      gc ca analyze cut.core
      [ "$rc" -eq 0 ] || fail "$mode cut at $c: analyze exited $rc: $(cat ca.err)"
      grep -q "^File truncated" ca.out || fail "$mode cut at $c: analyze does not say truncated"
    done
    # The whole file is not truncated.
    gc ci info "$core"
    [ "$rc" -eq 0 ] && ! grep -q "^File truncated" ci.out || fail "$mode: the whole core reads as truncated"
  done
  ;;
*)
  fail "unknown case $case"
  ;;
esac
echo "PASS [$case]"
