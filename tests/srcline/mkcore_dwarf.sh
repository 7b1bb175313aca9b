#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A core whose code object has hostile DWARF (tests/tools/hostile_dwarf.h), for
# srcline_hostile.sh and bench/hostile/dwarf.tsv: vadd-fault (its runtime carrying on after the
# error) runs with vadd.gfx90a.co replaced by gpucore-mkhostile-dwarf's CASE of N over it (same
# code, symbols and kernel descriptor; the DWARF replaced), and GPUCORE captures it into
# WORKDIR/dwarf.core. Its waves stop inside vadd, which the hostile DWARF describes.
#
#   mkcore_dwarf.sh GPUCORE INFERIOR OBJECTS SCENARIOS MKDWARF WORKDIR CASE N [ALT-PATH]
#
# ALT-PATH: for CASE altlink, the file its .gnu_debugaltlink names.
# Exit status: 0 the core is written; 77 no right to ptrace; 1 anything else (a message).
set -u
[ $# -ge 8 ] || { echo "usage: $0 GPUCORE INFERIOR OBJECTS SCENARIOS MKDWARF WORKDIR CASE N [ALT]" >&2; exit 2; }
gpucore=$1 inferior=$2 objects=$3 scenarios=$4 mkdwarf=$5 w=$6 kase=$7 n=$8 alt=${9:-}
mkdir -p "$w/objects" || exit 1
"$mkdwarf" "$w/objects/vadd.gfx90a.co" "$kase" "$n" "$objects/vadd.gfx90a.co" vadd \
  ${alt:+--alt "$alt"} >"$w/mkdwarf.out" || { echo "gpucore-mkhostile-dwarf $kase $n failed" >&2; exit 1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["on_queue_error"]="continue"; json.dump(d, open(sys.argv[2], "w"))' \
  "$scenarios/vadd-fault.json" "$w/scenario.json" || exit 1
: >"$w/inferior.out"
"$inferior" "$w/scenario.json" --objects "$w/objects" >>"$w/inferior.out" 2>"$w/inferior.err" &
ipid=$!
for _ in $(seq 1 1200); do
  grep -q ready "$w/inferior.out" 2>/dev/null && break
  kill -0 "$ipid" 2>/dev/null || { echo "gpucore-inferior exited: $(cat "$w/inferior.err")" >&2; exit 1; }
  sleep 0.05
done
rc=0
"$gpucore" capture --kfd sim --quiet "$ipid" -o "$w/dwarf.core" >"$w/capture.out" 2>"$w/capture.err" || rc=$?
kill -TERM "$ipid" 2>/dev/null
wait "$ipid" 2>/dev/null
if [ "$rc" -eq 77 ] && grep -qi ptrace "$w/capture.err"; then cat "$w/capture.err"; exit 77; fi
[ "$rc" -eq 0 ] || { echo "capture exit $rc: $(cat "$w/capture.err")" >&2; exit 1; }
exit 0
