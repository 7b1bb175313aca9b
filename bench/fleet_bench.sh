#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# fleet_bench.sh [--build DIR] [--rows N] [--repeat R] [--dir DIR]: the fleet index
# (docs/fleet.md, "Benchmark") at fleet scale.
#
# A PostgreSQL server of its own (tests/fleet/pg.sh: Debian's server, a Unix socket in a
# temporary directory, fsync off), a store index of N rows (default 100,000) as
# gpucore-bench-store makes them (200 signatures, 64 jobs, 8 ranks, a capture a minute; empty
# files), then:
#   - `gpucore store --fleet-sync`: the whole index sent at once (connect, create the schema,
#     send), timed once: rows per second into the fleet index;
#   - `gpucore list --fleet`, `list --fleet --dedupe`, `list --fleet --json` over every row,
#     the median of R runs (default 3) each, with the peak RSS of the median run.
# One table on standard output. Nothing is asserted but that each command succeeds and lists
# every row: these are figures. The server and the files are removed at the end (the server
# is stopped by its PID file, never by name).
#
# Exit codes: 0, 1 (a command failed: its message), 2 usage, 77 no PostgreSQL server.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build rows=100000 repeat=3 base=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --dir) base=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--rows N] [--repeat R] [--dir DIR]" >&2; exit 2 ;;
  esac
done
gpucore=$build/cli/gpucore gen=$build/bench/gpucore-bench-store
[ -x "$gpucore" ] && [ -x "$gen" ] || { echo "fleet_bench: build $build first (gpucore, gpucore-bench-store)" >&2; exit 2; }

fail() { echo "fleet_bench: $*" >&2; exit 1; }
skip() { echo "fleet_bench: skipped: $*"; exit 77; }
. "$here/../tests/fleet/pg.sh"

work=$(mktemp -d "$base/fleet-bench.XXXXXX")
# The server's directory: short, in /tmp (a socket's path is at most 107 bytes; --dir may be a
# deep build tree), owned by the server's user (pg_start chowns it).
pgdir=$(mktemp -d -t gpucore-pg.XXXXXX)
cleanup() { pg_cleanup || true; rm -rf "$work" "$pgdir"; }
trap cleanup EXIT

pg_start "$pgdir"
uri=$(pg_uri postgres)

# The store: gpucore-bench-store's rows, kept.
"$gen" --rows "$rows" --keep --dir "$work" >"$work/gen.out" 2>"$work/gen.err" ||
  fail "gpucore-bench-store: $(cat "$work/gen.err")"
store=$(sed -n 's/^gpucore-bench-store: kept //p' "$work/gen.err")
[ -d "$store" ] || fail "gpucore-bench-store kept no store: $(cat "$work/gen.err")"

# run OUT ARGS...: gpucore ARGS, stdout to OUT; prints "SECONDS PEAK_KIB".
run() {
  local out=$1
  shift
  python3 - "$out" "$gpucore" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "wb") as out:
    p = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE)
dt = time.monotonic() - t
if p.returncode != 0:
    sys.exit(f"fleet_bench: {' '.join(sys.argv[3:4])}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
print(f"{dt:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
}

read -r sync_s sync_kib < <(run "$work/sync.out" store --fleet-sync --fleet-index "$uri" --store "$store") ||
  fail "store --fleet-sync failed"
[ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.cores")" = "$rows" ] ||
  fail "store --fleet-sync did not send $rows rows: $(cat "$work/sync.out")"

# median NAME EXPECT_LINES ARGS...: R runs of list ARGS; "NAME median_s peak_kib lines".
median() {
  local name=$1 lines=$2 i
  shift 2
  for i in $(seq 1 "$repeat"); do
    run "$work/list.out" list --fleet --fleet-index "$uri" "$@" || fail "list --fleet $*"
    [ -z "$lines" ] || [ "$(wc -l <"$work/list.out")" -ge "$lines" ] ||
      fail "list --fleet $* listed fewer than $lines lines"
  done | sort -n | awk -v n="$name" -v r="$repeat" 'NR == int((r + 1) / 2) { print n, $1, $2 }'
}

{
  printf '%-24s %10s %12s %10s\n' "fleet index, $rows rows" "seconds" "rows/s" "peak MiB"
  awk -v s="$sync_s" -v k="$sync_kib" -v n="$rows" \
    'BEGIN { printf "%-24s %10.2f %12.0f %10.1f\n", "store --fleet-sync", s, n / s, k / 1024 }'
  for v in "list --fleet|$((rows + 1))|" "list --fleet --dedupe||--dedupe" \
           "list --fleet --json|$((rows * 25))|--json"; do
    IFS='|' read -r name lines opt <<<"$v"
    # shellcheck disable=SC2086 # the option, or none
    median "$name" "$lines" $opt
  done | awk -v n="$rows" '{ s = $(NF - 1); k = $NF; $(NF - 1) = ""; $NF = "";
    printf "%-24s %10.2f %12.0f %10.1f\n", $0, s, n / s, k / 1024 }'
} | tee "$work/table.txt"
echo "(median of $repeat runs for each list; PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}'), fsync off)"
