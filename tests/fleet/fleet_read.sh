#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fleet index read (docs/fleet.md, "Reading the fleet"): `gpucore list --fleet [--dedupe]`,
# `show --fleet ID` and `job --fleet JOBID` against a PostgreSQL server of the test's own
# (tests/fleet/pg.sh), one server for every case:
#
#   - a core of the simulated GPU, captured into a store and synced by `gpucore store
#     --fleet-sync` (the writers' code), is listed with its node, store path and signature;
#   - rows of three nodes put in with psql (tests/fleet/fleet_read_rows.sql) give exact
#     outputs, compared with goldens (tests/fleet/golden/; GPUCORE_UPDATE_GOLDEN=1 writes
#     them): list, list --dedupe, show, job, in text and JSON; the filters select what the
#     local list's do;
#   - hostile rows (a file "../../etc/shadow", a state "x", control characters, a 10 MB text)
#     are refused naming the row and column, or escaped; the 10 MB text costs no 10 MB; a row
#     naming /etc/shadow is shown, never opened nor looked at (strace);
#   - a reader role sees its own rows only (row-level security) through the CLI;
#   - no fleet index named: exit 64; a database that cannot be reached: exit 74, naming the
#     socket and not the password.
#
#   fleet_read.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS
#
# Exit codes: 0 pass, 1 fail (one "FAIL [fleet-read]: why" line), 77 skip.

set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/golden
test_name="fleet-read"

. "$here/../lib/e2e.sh"
. "$here/pg.sh"
e2e_exit_hook=pg_cleanup
e2e_enter "$work"
e2e_need_ptrace

# The server's directory: short (a socket's path is at most 107 bytes), removed with the test's.
pgdir=$(mktemp -d -t gpucore-pg.XXXXXX)
e2e_dirs+=("$pgdir")
pg_start "$pgdir"
uri=$(pg_uri postgres)
export GPUCORE_STORE=$work/store
: >empty.conf

# fl NAME CMD ARGS...: gpucore CMD ARGS with the test's database; rc, NAME.out, NAME.err.
fl() {
  local name=$1 cmd=$2
  shift 2
  rc=0
  "$gpucore" "$cmd" --fleet-index "$uri" "$@" >"$name.out" 2>"$name.err" || rc=$?
}

# check_golden NAME: NAME.out is golden/fleet_read_NAME.txt (or becomes it).
check_golden() {
  local want=$golden/fleet_read_$1.txt
  if [ -n "${GPUCORE_UPDATE_GOLDEN:-}" ]; then
    mkdir -p "$golden"
    cp "$1.out" "$want"
    return 0
  fi
  [ -f "$want" ] || fail "no golden $want (GPUCORE_UPDATE_GOLDEN=1 writes it)"
  diff -u "$want" "$1.out" >"$1.diff" || fail "$1: output differs from its golden: $(head -20 "$1.diff")"
}

# ids NAME: the ids (second column) of list --fleet's table in NAME.out, space-separated (awk:
# a python3 start costs a second on a loaded machine, and there are a dozen lists).
ids() {
  awk 'NR > 1 && NF { printf "%s%s", sep, $2; sep = " " } !NF { exit }' "$1.out"
}

# --- a real core, synced by the writers' code -------------------------------------------------
rc=0
"$gpucore" run --kfd sim --store -- "$inferior" "$scenarios/vadd-fault.json" --objects "$objects" \
  >run.out 2>run.err || rc=$?
if [ "$rc" -eq 77 ] && grep -qi ptrace run.err; then skip "$(cat run.err)"; fi
[ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected 134: $(cat run.err)"
rc=0
"$gpucore" store --fleet-sync --fleet-index "$uri" >sync.out 2>sync.err || rc=$?
[ "$rc" -eq 0 ] || fail "store --fleet-sync exited $rc: $(cat sync.err)"
"$gpucore" list --json >local.out 2>local.err || fail "list: $(cat local.err)"

fl real list --fleet --json
[ "$rc" -eq 0 ] || fail "list --fleet exited $rc: $(cat real.err)"
python3 - local.out real.out "$(hostname)" "$GPUCORE_STORE" <<'PY' || fail "the synced core's fleet row is not the local one's"
import json, os, sys
local = json.load(open(sys.argv[1]))["cores"]
fleet = json.load(open(sys.argv[2]))
node, store = sys.argv[3], os.path.realpath(sys.argv[4])
assert fleet["schema"] == "gpucore.list-fleet/1", fleet["schema"]
assert len(local) == 1 and len(fleet["cores"]) == 1, (len(local), len(fleet["cores"]))
l, f = local[0], fleet["cores"][0]
for k in ("time_ns", "pid", "uid", "executable", "signature", "waves", "faulting_waves",
          "size_on_disk", "truncated", "file", "state", "seen"):
    assert l[k] == f[k], (k, l[k], f[k])
assert f["id"] == 1 and f["node"] == node, (f["id"], f["node"])
assert f["store"] == store and f["path"] == store + "/" + l["file"], (f["store"], f["path"])
assert f["faulting_waves"] > 0 and f["signature"]["hash"], f
PY

# --- rows of three nodes, exact outputs (job 4242: first, same, other, hung) -------------------------------------------------------
pg_psql "$(cat "$here/fleet_read_rows.sql")" >/dev/null
win=(--since 2025-11-01 --until 2025-12-01) # the rows' window: the real core is not in it

fl list list --fleet "${win[@]}"
[ "$rc" -eq 0 ] || fail "list --fleet exited $rc: $(cat list.err)"
check_golden list
fl list_json list --fleet "${win[@]}" --json
check_golden list_json
fl dedupe list --fleet --dedupe "${win[@]}"
check_golden dedupe
fl dedupe_json list --fleet --dedupe "${win[@]}" --json
check_golden dedupe_json
fl show show --fleet 3
[ "$rc" -eq 0 ] || fail "show --fleet exited $rc: $(cat show.err)"
check_golden show
fl show_json show --fleet --json 3
check_golden show_json
fl job job --fleet 4242
[ "$rc" -eq 0 ] || fail "job --fleet exited $rc: $(cat job.err)"
check_golden job
fl job_json job --fleet --json 4242
check_golden job_json

# the filters, as the local list's
for f in "--signature aaaa:2 4" "--signature bbbbbbbbbbbbbbbb:3 6 5" \
         "--signature hang:kernel_x:waiting:co-000000000001:2 4" "--exe app:3 2 6 4 7" \
         "--exe /opt/app/bin/app:3 2 6 4 7" "--exe bin/app:3 2 6 4 7" "--exe pp:" \
         "--host node-c:4 5" "--job 5555:5" \
         "--until 2025-11-24T16:00:01:3 2" "--since 2025-11-25:5"; do
  args=${f%:*} want=${f##*:}
  # shellcheck disable=SC2086 # the filter's words
  fl filter list --fleet --until 2025-12-01 $args
  [ "$rc" -eq 0 ] || fail "list --fleet $args exited $rc: $(cat filter.err)"
  [ "$(ids filter)" = "$want" ] || fail "list --fleet $args: ids '$(ids filter)', expected '$want'"
done
fl none show --fleet 999
[ "$rc" -eq 66 ] || fail "show --fleet 999 exited $rc, expected 66"
fl none job --fleet nosuchjob
[ "$rc" -eq 66 ] || fail "job --fleet nosuchjob exited $rc, expected 66"

# --- hostile rows -----------------------------------------------------------------------------
# hostile JOB FILE STATE SIG_TEXT: a row of job JOB (SQL expressions for the others)
hostile() {
  pg_psql "INSERT INTO gpucore_fleet.cores (node, store, file, job, sig_text, sig_hash, exe,
    size, truncated, state, indexed_at, local_id) VALUES ('evil', '/s-$1', $2, '$1', $4,
    'cccccccccccccccc', E'/bin/\\x1b[31mred\\x07', 1, false, $3, 1, 1) RETURNING id"
}
id=$(hostile h-file "'../../etc/shadow'" "'present'" NULL)
fl h list --fleet --job h-file
[ "$rc" -eq 65 ] || fail "a file ../../etc/shadow: exit $rc, expected 65"
grep -q "row $id, column file: not a plain file name" h.err || fail "file: $(cat h.err)"
id=$(hostile h-state "'ok'" "'x'" NULL)
fl h list --fleet --job h-state
[ "$rc" -eq 65 ] && grep -q "row $id, column state" h.err || fail "state x: exit $rc: $(cat h.err)"
# a row naming /etc/shadow as a core (a plain name in an absolute store: a valid row): show
# says where it is and never opens it, nor looks at it
id=$(pg_psql "INSERT INTO gpucore_fleet.cores (node, store, file, job, size, truncated, state,
  indexed_at, local_id) VALUES ('evil', '/etc', 'shadow', 'h-path', 1, false, 'present', 1, 1)
  RETURNING id")
if command -v strace >/dev/null; then
  rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -o show.trace \
    -e trace=open,openat,stat,lstat,newfstatat,statx,access,faccessat,faccessat2,readlink,readlinkat \
    "$gpucore" show --fleet --fleet-index "$uri" "$id" >h.out 2>h.err || rc=$?
  [ "$rc" -eq 0 ] && grep -q "gpucore analyze /etc/shadow on evil" h.out || fail "show of /etc/shadow: exit $rc: $(cat h.err)"
  grep -q 'openat(' show.trace || fail "strace saw no openat: $(head -3 show.trace)"
  if grep -q '/etc/shadow' show.trace; then fail "show --fleet touched /etc/shadow: $(grep /etc/shadow show.trace)"; fi
fi
hostile h-ctl "'ok'" "'present'" "E'a\\x1b]0;title\\x07b'" >/dev/null
fl h list --fleet --job h-ctl --dedupe
[ "$rc" -eq 0 ] || fail "control characters: exit $rc: $(cat h.err)"
grep -qF '?[31mred?' h.out && grep -qF 'a?]0;title?b' h.out || fail "not escaped: $(cat -A h.out)"
if LC_ALL=C grep -q $'\x1b' h.out; then fail "an escape character reached the terminal"; fi
fl h show --fleet --json "$(pg_psql "SELECT id FROM gpucore_fleet.cores WHERE job = 'h-ctl'")"
grep -q '"executable": "/bin/\\u001B\[31mred\\u0007"' h.out || fail "JSON: $(grep executable h.out)"
id=$(hostile h-big "'ok'" "'present'" "repeat('x', 10000000)")
peak=$(python3 - "$gpucore" list --fleet --job h-big --fleet-index "$uri" <<'PY'
import resource, subprocess, sys
with open("h.out", "wb") as out, open("h.err", "wb") as err:
    rc = subprocess.run(sys.argv[1:], stdout=out, stderr=err).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
[ "${peak%% *}" = 65 ] && grep -q "row $id, column sig_text: longer than" h.err ||
  fail "a 10 MB text: $peak $(cat h.err)"
if ! ldd "$gpucore" 2>/dev/null | grep -q 'lib[at]san'; then
  [ "${peak##* }" -lt 40000 ] || fail "a 10 MB text cost ${peak##* } KiB"
fi

# --- row-level security: a reader sees its rows -----------------------------------------------
pg_role alice
pg_psql "GRANT USAGE ON SCHEMA gpucore_fleet TO alice;
  GRANT SELECT ON gpucore_fleet.cores, gpucore_fleet.migrations, gpucore_fleet.meta TO alice" >/dev/null
rc=0
"$gpucore" list --fleet --fleet-index "$(pg_uri alice)" >alice.out 2>alice.err || rc=$?
[ "$rc" -eq 0 ] || fail "alice's list --fleet exited $rc: $(cat alice.err)"
[ "$(ids alice)" = "3 2 6 4 7" ] || fail "alice sees '$(ids alice)', expected '3 2 6 4 7'"
rc=0
"$gpucore" list --fleet --dedupe --fleet-index "$(pg_uri alice)" >alice.out 2>alice.err || rc=$?
[ "$(awk 'NR > 1 { printf "%s %s %s %s;", $1, $2, $3, $4 }' alice.out)" = \
  "bbbbbbbbbbbbbbbb 2 2 1;aaaaaaaaaaaaaaaa 2 2 1;dddddddddddddddd 1 1 1;" ] ||
  fail "alice's summary counts rows she may not see: $(cat alice.out)"

# --- no fleet index, no database --------------------------------------------------------------
printf '[Store]\nFleetIndex=%s\n' "$uri" >fleet.conf
rc=0
"$gpucore" job --fleet --config fleet.conf 4242 >conf.out 2>conf.err || rc=$?
[ "$rc" -eq 0 ] && cmp -s conf.out job.out || fail "job --fleet with FleetIndex= of --config: exit $rc: $(cat conf.err)"
rc=0
"$gpucore" list --fleet --config empty.conf >nouri.out 2>nouri.err || rc=$?
[ "$rc" -eq 64 ] && grep -q "no fleet index: name its database with --fleet-index" nouri.err ||
  fail "no URI: exit $rc: $(cat nouri.err)"
rc=0
"$gpucore" job --fleet --fleet-index "postgresql:///fleet?host=$work/nothing&password=sekrit" 4242 \
  >down.out 2>down.err || rc=$?
[ "$rc" -eq 74 ] && grep -q "$work/nothing" down.err || fail "no server: exit $rc: $(cat down.err)"
if grep -q sekrit down.err; then fail "the password is in the message: $(cat down.err)"; fi

echo "PASS [$test_name]"
