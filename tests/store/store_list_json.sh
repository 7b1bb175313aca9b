#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore list --json` on a fleet-sized index (docs/store.md): 20,000 rows, put in the index
# directly, are all listed, and the document is written a core at a time: the peak resident
# size over that of listing an empty store stays far below what holding every core's JSON
# object at once took (about 4.7 KiB a core, 94 MiB here). Sanitized builds keep freed memory
# in quarantine: there only the document is checked.
#
#   store_list_json.sh WORKDIR GPUCORE
#
# Exit codes: 0 pass, 1 fail (one "FAIL [store-list-json]: why" line), 77 skip.

set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 WORKDIR GPUCORE" >&2; exit 2; }
work=$1 gpucore=$2
here=$(cd "$(dirname "$0")" && pwd)
test_name="store-list-json"
rows=20000
limit_kib=$((32 * 1024)) # the growth allowed: the rows themselves, SQLite's cache, one core's JSON

. "$here/../lib/e2e.sh"
e2e_enter "$work"
sanitized=0
if ldd "$gpucore" 2>/dev/null | grep 'lib[at]san' >/dev/null; then sanitized=1; fi

# peak ARGS...: run "$gpucore" ARGS with stdout in peak.out; print its peak RSS in KiB.
peak() {
  python3 - "$gpucore" "$@" <<'PY'
import resource, subprocess, sys
with open("peak.out", "wb") as out:
    rc = subprocess.run(sys.argv[1:], stdout=out).returncode
if rc != 0:
    sys.exit(f"exit {rc}")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

mkdir -m 700 empty big
base=$(peak list --json --store "$work/empty") || fail "list --json on an empty store: $base"
"$gpucore" list --store "$work/big" >/dev/null || fail "cannot create the store"
python3 - "$work/big/index.sqlite" "$rows" <<'PY' || fail "cannot fill the index"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
db.executemany(
    "INSERT INTO cores(time_ns, host, pid, uid, exe, job, rank, targets, trigger, sig_text,"
    " sig_hash, waves, faulting_waves, size, truncated, file, state, indexed_at)"
    " VALUES (?, ?, ?, NULL, ?, ?, ?, 'gfx942', 'memory-violation', ?, ?, 256, 4, 41943040, 0,"
    " ?, 'present', 0)",
    ((1700000000 * 10**9 + i * 60 * 10**9, "node%04d" % (i % 512), 1000 + i,
      "/opt/app/bin/solver%d" % (i % 7), str(400000 + i // 8 % 64), i % 8,
      "fault:kernel%d+0xb4:memory_violation:co-9e950d7b402b" % (i % 200),
      "%016x" % (i % 200), "core.%d.zst" % i) for i in range(n)))
db.commit()
PY
big=$(peak list --json --store "$work/big") || fail "list --json on $rows rows: $big"
python3 - peak.out "$rows" <<'PY' || fail "list --json document: $(head -c 300 peak.out)"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["schema"] == "gpucore.list/1" and len(d["cores"]) == n, len(d["cores"])
# oldest first; every file absent: missing, and the signature's count over the whole index
assert [c["id"] for c in d["cores"]] == list(range(1, n + 1))
assert all(c["state"] == "missing" and c["seen"] == n // 200 for c in d["cores"])
PY
echo "store-list-json: peak RSS $base KiB for an empty store, $big KiB for $rows rows"
if [ "$sanitized" = 0 ]; then
  [ $((big - base)) -lt "$limit_kib" ] ||
    fail "peak RSS grew by $((big - base)) KiB for $rows rows (at most $limit_kib KiB)"
fi
