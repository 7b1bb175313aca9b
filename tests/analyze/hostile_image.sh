#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A crafted small core (gpucore-mkhostile-image CASE) through `gpucore analyze` and
# `gpucore dbgapi-dump`, each under a fixed address-space limit and 10 s of CPU: before the
# fix these cores took 2.15 GB to 512 GiB of memory or minutes to hours of CPU; now each run
# must end well inside the limits, exit 0 and say what the core lacks.
#
#   hostile_image.sh WORKDIR GPUCORE MKHOSTILE CASE
#
# Under a sanitizer build (its shadow memory needs terabytes of address space) the memory
# bound is the peak RSS /usr/bin/time reports instead. Exit codes: 0 pass, 1 fail.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 WORKDIR GPUCORE MKHOSTILE CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkhostile=$3 case=$4
fail() { echo "FAIL [$case]: $*" >&2; exit 1; }

rm -rf "$work"; mkdir -p "$work"; cd "$work"
# The files go when the case passes (kept after a failure, or with GPUCORE_KEEP_TEST_FILES=1).
trap 'if [ $? -eq 0 ] && [ -z "${GPUCORE_KEEP_TEST_FILES:-}" ]; then cd / && rm -rf "$work"; fi' EXIT
"$mkhostile" core "$case" || fail "gpucore-mkhostile-image failed"
size=$(stat -c %s core)
[ "$size" -lt 262144 ] || fail "the crafted core is $size bytes, not small"

as_mb=512 report= dump=
case $case in
  cwsr-bomb|cwsr-bomb-xcc)
    report="of its [0-9]+ bytes are zero fill past the file's segment data; waves not decoded"
    dump="control stack word 2 is a wave before any state word" ;;
  sparse-ring)
    report="active AQL packets \(from packet 1 at 0x200000000040\) are zero fill"
    dump="the AQL rings hold more than [0-9]+ active packets in all" ;;
  agents-queues)
    as_mb=1024 report="^Agent 65535: " dump="" ;;
  *) fail "unknown case" ;;
esac

sanitized=0
# (grep reads all of ldd's output: with -q it could stop early and, under pipefail, make ldd's
# SIGPIPE look like no match)
if ldd "$gpucore" 2>/dev/null | grep 'lib[at]san' >/dev/null; then sanitized=1; fi

# run NAME ARGS...: gpucore under the limits; NAME.out, NAME.err, NAME.time (peak RSS in kB).
run() {
  local name=$1; shift
  local limits=(--cpu=10)
  [ "$sanitized" = 1 ] || limits+=(--as=$((as_mb << 20)))
  rc=0
  /usr/bin/time -f %M -o "$name.time" prlimit "${limits[@]}" "$gpucore" "$@" \
      >"$name.out" 2>"$name.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore $* exited $rc under ${limits[*]}: $(tail -3 "$name.err")"
  local peak; peak=$(tail -1 "$name.time")
  [ "$peak" -lt $((as_mb * 1024 * (sanitized + 1))) ] ||
    fail "gpucore $* peaked at $peak kB"
}

run report analyze core
grep -Eq "$report" report.out || fail "the report does not say what the core lacks: $(head -20 report.out)"
run json analyze --json core
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' json.out || fail "analyze --json is not JSON"
run dump dbgapi-dump --no-registers core
[ -z "$dump" ] || grep -Eq "$dump" dump.err || fail "dbgapi-dump does not warn as expected: $(head -5 dump.err)"
exit 0
