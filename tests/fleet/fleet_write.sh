#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fleet index's writers (docs/fleet.md, "The fleet index"; tests/fleet.cmake) against a
# PostgreSQL server the case starts in a temporary directory on a Unix socket (pg.sh).
#
#   fleet_write.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
#   nodes  three simulated nodes (each its own store and host name: unshare -u), two capturing
#          simulated crashes and one rescanning a store of copied cores, all at once; the server
#          stopped: captures and gc go on, exit as before, warn, and their rows wait; restarted:
#          store --fleet-sync sends the backlog. Then every local row is in the database once,
#          with the local values (list --json), also after a second sync and after the index
#          is rebuilt (rm index.sqlite; store --rescan); a gc'd core is deleted there too, and
#          node 2's row of a core gc removed says deleted there too.
#   slow   a stopped (SIGSTOP) server holds no capture past the writers' budget: the command
#          ends, its row waits; CONT, and the next sync sends it. A database whose schema is
#          newer than ours is refused (rows wait); a role that may not create the schema is
#          told which right it lacks; two first writers at once migrate once.
#   rls    rows carry the user's name: a reader role named like a user sees only that user's
#          cores; a writer sees its own rows; the owner (who migrated) sees all. A GPU half
#          that ingest --store merged is forgotten in the fleet too.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no server, no ptrace).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="fleet-write-$case"
writer="$here/../merge/stream_writer.py"

. "$here/../lib/e2e.sh"
. "$here/pg.sh"
. "$here/../merge/ingest_lib.sh"
e2e_enter "$work"
e2e_need_ptrace
e2e_exit_hook=pg_cleanup
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" GPUCORE_STORE="$work/default"

# The server's directory: short, in $TMPDIR (a socket's path is at most 107 bytes), removed
# with the case's.
pgdir=$(mktemp -d -t gpucore-pg.XXXXXX)
e2e_dirs+=("$pgdir")
pg_start "$pgdir"

# on_node NODE CMD...: CMD in a UTS namespace whose host name is NODE (CAPTURE_META's host and
# gethostname() agree, as on a real node).
on_node() {
  local node=$1
  shift
  unshare -u sh -c 'hostname "$0" && exec "$@"' "$node" "$@"
}

# capture NAME NODE STORE [OPTIONS...]: `gpucore run --store=STORE OPTIONS` of vadd-fault on NODE,
# which faults and aborts (134); its output in NAME.out/.err.
capture() {
  local name=$1 node=$2 store=$3
  shift 3
  rc=0
  on_node "$node" "$gpucore" run --kfd sim --store="$store" "$@" -- "$inferior" \
    "$scenarios/vadd-fault.json" --objects "$objects" >"$name.out" 2>"$name.err" || rc=$?
  if [ "$rc" -eq 77 ] && grep -qi ptrace "$name.err"; then skip "$(cat "$name.err")"; fi
  [ "$rc" -eq 134 ] || fail "$name: gpucore run exited $rc, expected 134: $(cat "$name.err")"
}

# fleet_rows NODE: the database's rows of NODE as a JSON array (as the superuser: all of them).
fleet_rows() {
  pg_psql "SELECT coalesce(json_agg(c ORDER BY file), '[]') FROM gpucore_fleet.cores c
           WHERE node = '$1'"
}

# same_rows NODE STORE [NODE STORE...]: the database holds exactly the rows `gpucore list --json`
# shows of each STORE, once each, with the same values, at the store's absolute path, written
# by its NODE.
same_rows() {
  local args=()
  while [ $# -gt 0 ]; do
    "$gpucore" list --json --store="$2" >"$1.list" 2>"$1.list.err" ||
      fail "list of $2: $(cat "$1.list.err")"
    args+=("$1" "$2")
    shift 2
  done
  pg_psql "SELECT coalesce(json_agg(c ORDER BY node, file), '[]') FROM gpucore_fleet.cores c" >all.fleet
  python3 - all.fleet "${args[@]}" <<'PY' || fail "the fleet's rows differ from the stores': $(cat all.fleet)"
import json, sys
fleet = json.load(open(sys.argv[1]))
pairs = {"local_id": "id", "time_ns": "time_ns", "host": "host", "pid": "pid", "uid": "uid",
         "exe": "executable", "job": "job", "rank": "rank", "targets": "targets",
         "trigger": "trigger", "waves": "waves", "faulting_waves": "faulting_waves",
         "size": "size_on_disk", "truncated": "truncated", "state": "state", "error": "error"}
args = sys.argv[2:]
for node, store in zip(args[0::2], args[1::2]):
    local = {c["file"]: c for c in json.load(open(node + ".list"))["cores"]}
    rows = [r for r in fleet if r["node"] == node]
    files = [r["file"] for r in rows]
    assert len(files) == len(set(files)), "%s: duplicates: %s" % (node, files)
    assert set(files) == set(local), "%s: fleet %s, local %s" % (node, sorted(files), sorted(local))
    for r in rows:
        c = local[r["file"]]
        for f, l in pairs.items():
            assert r[f] == c[l], "%s %s: %s %r, locally %r" % (node, r["file"], f, r[f], c[l])
        sig = c["signature"] or {}
        assert r["sig_hash"] == sig.get("hash") and r["sig_text"] == sig.get("text"), r
        assert r["store"] == store, r["store"]
PY
}

# sync NAME STORE [OPTIONS...]: `gpucore store --fleet-sync`, its counts in $sent, $forgot,
# $pending.
sync() {
  local name=$1 store=$2
  shift 2
  gc "$name" store --fleet-sync --store="$store" "$@"
  expect_rc 0 "$name"
  read -r sent forgot pending < <(sed -n 's/.*: sent \([0-9]*\), forgot \([0-9]*\), pending \([0-9]*\)$/\1 \2 \3/p' "$name.out")
  [ -n "${pending:-}" ] || fail "$name: no counts in: $(cat "$name.out")"
}

case $case in
nodes)
  pg_role fleet
  pg_psql "GRANT CREATE ON DATABASE fleet TO fleet" >/dev/null
  uri=$(pg_uri fleet)
  printf '[Store]\nFleetIndex=%s\n' "$uri" >fleet.conf
  # cores for node 3's store, made beforehand (no store, no fleet)
  "$gpucore" run --kfd sim -o copy.core -- "$inferior" "$scenarios/vadd-fault.json" \
    --objects "$objects" >copy.out 2>copy.err || true
  [ -f copy.core ] || fail "no core made: $(cat copy.err)"
  mkdir -m 700 n3
  cp copy.core n3/core.copy1
  cp copy.core n3/core.copy2

  # All at once, the database up: two nodes capture twice (one by --fleet-index, one by
  # store.conf's FleetIndex=), the third rescans its store of copies.
  (capture n1a n1 "$work/n1" --fleet-index "$uri" && capture n1b n1 "$work/n1" --fleet-index "$uri") &
  p1=$!
  (capture n2a n2 "$work/n2" --config fleet.conf && capture n2b n2 "$work/n2" --config fleet.conf) &
  p2=$!
  (on_node n3 "$gpucore" store --rescan --store="$work/n3" --fleet-index "$uri" >n3.out 2>n3.err) &
  p3=$!
  wait $p1 || fail "node 1's captures failed"
  wait $p2 || fail "node 2's captures failed"
  wait $p3 || fail "node 3's rescan failed: $(cat n3.err)"
  for f in n1a n1b n2a n2b n3; do
    ! grep -q "warning: fleet" $f.err || fail "$f: a fleet warning with the database up: $(cat $f.err)"
  done
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.migrations")" = 1 ] || fail "migrated more than once"
  same_rows n1 "$work/n1" n2 "$work/n2" n3 "$work/n3"

  # The database goes away: captures go on as before (the core, the row, exit 134), one
  # warning that the rows wait; the next capture does not try again so soon; gc too.
  pg_stop
  capture n1c n1 "$work/n1" --fleet-index "$uri"
  grep -q "^gpucore: .*: stored as core 3$" n1c.err || fail "n1c not indexed: $(cat n1c.err)"
  grep -q "^gpucore: warning: fleet index: postgresql:///fleet?host=.*(1 row wait in the local index; they go with the next capture or gpucore store --fleet-sync)$" n1c.err ||
    fail "n1c: no fleet warning: $(cat n1c.err)"
  capture n1d n1 "$work/n1" --fleet-index "$uri"
  grep -q "^gpucore: warning: fleet index: not tried, it failed less than 30 s ago (2 rows wait" n1d.err ||
    fail "n1d: $(cat n1d.err)"
  rc=0
  on_node n2 "$gpucore" gc --max-use=1 --store="$work/n2" --config fleet.conf >gc.out 2>gc.err || rc=$?
  [ "$rc" -eq 0 ] || fail "gc with the database down exited $rc: $(cat gc.err)"
  grep -q "^Removed 2 cores" gc.out || fail "gc: $(cat gc.out)"
  grep -q "^gpucore: warning: fleet index: .*(2 rows wait in the local index" gc.err ||
    fail "gc: no fleet warning: $(cat gc.err)"
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.cores" 2>/dev/null || echo down)" = down ] ||
    fail "the server still answers"

  # Back: store --fleet-sync sends what waited, on each node.
  pg_restart
  on_node n1 "$gpucore" store --fleet-sync --store="$work/n1" --fleet-index "$uri" >s1.out 2>s1.err ||
    fail "n1 sync: $(cat s1.err)"
  grep -q "^$work/n1: fleet index postgresql:///fleet?host=$pgdir&user=fleet: sent 2, forgot 0, pending 0$" s1.out ||
    fail "n1 sync: $(cat s1.out)"
  on_node n2 "$gpucore" store --fleet-sync --store="$work/n2" --config fleet.conf >s2.out 2>s2.err ||
    fail "n2 sync: $(cat s2.err)"
  grep -q ": sent 2, forgot 0, pending 0$" s2.out || fail "n2 sync: $(cat s2.out)"
  same_rows n1 "$work/n1" n2 "$work/n2"
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.cores WHERE node = 'n2' AND state = 'deleted'")" = 2 ] ||
    fail "gc's deleted cores are not deleted in the fleet: $(fleet_rows n2)"

  # Idempotent: a second sync sends nothing; a rebuilt index sends all again, duplicating none.
  on_node n1 "$gpucore" store --fleet-sync --store="$work/n1" --fleet-index "$uri" >s3.out 2>&1
  grep -q ": sent 0, forgot 0, pending 0$" s3.out || fail "second sync: $(cat s3.out)"
  rm "$work/n1/index.sqlite"*
  on_node n1 "$gpucore" store --rescan --store="$work/n1" --fleet-index "$uri" >r1.out 2>r1.err ||
    fail "rescan: $(cat r1.err)"
  ! grep -q warning r1.err || fail "rescan warned: $(cat r1.err)"
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.cores WHERE node = 'n1'")" = 4 ] ||
    fail "after the rebuilt index: $(fleet_rows n1)"
  same_rows n1 "$work/n1"

  # The fleet's views of what the three nodes wrote: every row once with its node, and the
  # summary's cores and hosts per signature as the database counts them.
  gc fl list --fleet --json --fleet-index "$uri"; expect_rc 0 fl
  gc fd list --fleet --dedupe --json --fleet-index "$uri"; expect_rc 0 fd
  pg_psql "SELECT json_build_object('rows', (SELECT json_agg(json_build_array(node, file))
             FROM gpucore_fleet.cores), 'sigs', (SELECT json_object_agg(sig_hash,
             json_build_array(n, hosts)) FROM (SELECT sig_hash, count(*) n,
             count(DISTINCT node) hosts FROM gpucore_fleet.cores WHERE sig_hash IS NOT NULL
             GROUP BY sig_hash) s))" >views.want
  python3 - fl.out fd.out views.want <<'PY' || fail "the fleet views differ from the database (above)"
import json, sys
rows, sigs, want = (json.load(open(f)) for f in sys.argv[1:4])
got = sorted([c["node"], c["file"]] for c in rows["cores"])
assert got == sorted(want["rows"]), (got, want["rows"])
assert {c["node"] for c in rows["cores"]} == {"n1", "n2", "n3"}, rows["cores"]
got = {s["signature"]["hash"]: [s["cores"], s["hosts"]] for s in sigs["signatures"]}
assert got == want["sigs"], (got, want["sigs"])
PY
  ;;

slow)
  pg_role fleet
  pg_psql "GRANT CREATE ON DATABASE fleet TO fleet" >/dev/null
  uri=$(pg_uri fleet)
  # Two first writers at once: one migration.
  mkdir -m 700 a b
  on_node na "$gpucore" store --fleet-sync --store="$work/a" --fleet-index "$uri" >a.out 2>a.err &
  pa=$!
  on_node nb "$gpucore" store --fleet-sync --store="$work/b" --fleet-index "$uri" >b.out 2>b.err &
  pb=$!
  wait $pa || fail "first writer: $(cat a.err)"
  wait $pb || fail "second writer: $(cat b.err)"
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.migrations")" = 1 ] || fail "two migrations"
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.meta")" = 1 ] || fail "two database ids"

  # A stopped server: the capture finishes (its report's child gives up at the budget), the
  # row is indexed and waits.
  capture c1 na "$work/s" --fleet-index "$uri"
  pid=$(pg_pid)
  kill -STOP "$pid"
  capture c2 na "$work/s" --fleet-index "$uri"
  kill -CONT "$pid"
  grep -q "^gpucore: .*: stored as core 2$" c2.err || fail "c2 not indexed: $(cat c2.err)"
  grep -q "^gpucore: warning: fleet index: .*no answer within the time allowed.*(1 row wait in the local index" c2.err ||
    fail "c2: $(cat c2.err)"
  sync s1 "$work/s" --fleet-index "$uri"
  [ "$sent" = 1 ] && [ "$pending" = 0 ] || fail "after CONT: $(cat s1.out)"
  [ "$(pg_psql "SELECT count(*) FROM gpucore_fleet.cores")" = 2 ] || fail "rows: $(fleet_rows na)"

  # A newer schema: refused, rows wait, exit 65 for the explicit sync.
  pg_psql "INSERT INTO gpucore_fleet.migrations (version, description) VALUES (2, 'future')" >/dev/null
  capture c3 na "$work/s" --fleet-index "$uri"
  grep -q "^gpucore: warning: fleet index: .*the fleet index's schema is version 2; this gpucore knows up to 1.*(1 row wait" c3.err ||
    fail "c3: $(cat c3.err)"
  gc s2 store --fleet-sync --store="$work/s" --fleet-index "$uri"
  expect_rc 65 s2
  grep -q "pending 1$" s2.err || fail "s2: $(cat s2.err)"
  pg_psql "DELETE FROM gpucore_fleet.migrations WHERE version = 2" >/dev/null
  sync s3 "$work/s" --fleet-index "$uri"
  [ "$sent" = 1 ] && [ "$pending" = 0 ] || fail "s3: $(cat s3.out)"

  # A role that may not create the schema, in a database without it: told what to grant.
  pg_psql_db postgres "CREATE DATABASE fleet2" >/dev/null
  gc s4 store --fleet-sync --store="$work/s" --fleet-index "postgresql:///fleet2?host=$pgdir&user=fleet"
  expect_rc 77 s4
  grep -q "the role may not create the schema gpucore_fleet: GRANT CREATE ON DATABASE" s4.err ||
    fail "s4: $(cat s4.err)"
  # A password never shows.
  gc s5 store --fleet-sync --store="$work/s" --fleet-index "postgresql://fleet:s3cret@/fleet?host=$pgdir/none"
  expect_rc 74 s5
  ! grep -q s3cret s5.err || fail "the password is shown: $(cat s5.err)"
  grep -q "postgresql://fleet:\*\*\*@/fleet" s5.err || fail "s5: $(cat s5.err)"
  ;;

rls)
  # The administrator migrates (and owns the table); writers and readers get the rights the
  # docs list.
  pg_role fleetadm
  pg_psql "GRANT CREATE ON DATABASE fleet TO fleetadm" >/dev/null
  mkdir -m 700 adm
  on_node nx "$gpucore" store --fleet-sync --store="$work/adm" --fleet-index "$(pg_uri fleetadm)" >adm.out 2>&1 ||
    fail "migration: $(cat adm.out)"
  other=daemon
  other_uid=$(id -u "$other")
  for r in w1 w2 root "$other"; do pg_role "$r"; done
  pg_psql "GRANT USAGE ON SCHEMA gpucore_fleet TO w1, w2, root, $other;
           GRANT SELECT, INSERT, UPDATE, DELETE ON gpucore_fleet.cores TO w1, w2;
           GRANT USAGE ON SEQUENCE gpucore_fleet.cores_id_seq TO w1, w2;
           GRANT SELECT ON gpucore_fleet.cores, gpucore_fleet.migrations, gpucore_fleet.meta
             TO w1, w2, root, $other" >/dev/null
  # node 1 (writer w1): a crash of root's, a merged one, and one of $other's; node 2 (w2): root's
  capture r1 n1 "$work/r1" --fleet-index "$(pg_uri w1)"
  # a crash of $other's, in two halves ingested into node 1's store (this host's name, as
  # feed runs ingest outside a namespace of its own): the GPU half is sent as
  # it is indexed, and forgotten in the fleet too when ingest merges it with the host half,
  # whose NT_PRPSINFO says uid $other (made so by tests/merge/set_prpsinfo_uid.py)
  e2e_rocr_split "$scenarios/vadd-fault.json"
  g=gpucore.$pid
  python3 "$here/../merge/set_prpsinfo_uid.py" "core.$pid" other.core "$other_uid"
  feed gpu copy "$g" -- --store="$work/r1" --pid "$pid" --fleet-index "$(pg_uri w1)"
  expect_rc 0 gpu
  files="SELECT string_agg(file, ' ' ORDER BY file) FROM gpucore_fleet.cores"
  [ "$(pg_psql "$files WHERE file LIKE 'gpucore.%'")" = "$g.gpu.zst" ] ||
    fail "the GPU half is not in the fleet: $(cat gpu.err)"
  feed host copy "core.$pid" -- --host --pid "$pid" --store="$work/r1" --foreground-merge \
    --fleet-index "$(pg_uri w1)"
  expect_rc 0 host
  ! grep -q "warning: fleet" host.err || fail "host: $(cat host.err)"
  [ "$(pg_psql "$files WHERE file LIKE 'gpucore.%'")" = "$g.zst" ] ||
    fail "after the merge the fleet holds: $(pg_psql "$files")"
  # $other's host half alone in a store of its own (a merged core has no uid; a host half has
  # its NT_PRPSINFO's)
  "$gpucore" ingest --host --pid "$pid" --store "$work/r1o" --fleet-index "$(pg_uri w1)" \
    <other.core >r1o.out 2>r1o.err || fail "ingest of $other's crash: $(cat r1o.err)"
  ! grep -q "warning: fleet" r1o.err || fail "r1o: $(cat r1o.err)"
  capture r2 n2 "$work/r2" --fleet-index "$(pg_uri w2)"
  # the owner sees all 4; w1 its 3, w2 its 1; root (a reader) the 2 cores of uid 0; $other its 1
  q="SELECT count(*) FROM gpucore_fleet.cores"
  [ "$(pg_psql "$q")" = 4 ] || fail "the owner sees $(pg_psql "$q")"
  for pair in "w1 3" "w2 1" "root 2" "$other 1"; do
    set -- $pair
    n=$(psql -X -A -t -d "$(pg_uri "$1")" -c "$q") || fail "$1 cannot read"
    [ "$n" = "$2" ] || fail "$1 sees $n rows, expected $2"
  done
  n=$(psql -X -A -t -d "$(pg_uri "$other")" -c "SELECT user_name || ' ' || uid FROM gpucore_fleet.cores")
  [ "$n" = "$other $other_uid" ] || fail "$other sees: $n"
  # a writer cannot touch another writer's rows
  n=$(psql -X -A -t -d "$(pg_uri w2)" -c "WITH d AS (DELETE FROM gpucore_fleet.cores WHERE node = 'n1' RETURNING 1) SELECT count(*) FROM d")
  [ "$n" = 0 ] || fail "w2 deleted $n rows of w1's"
  ;;

*)
  fail "unknown case $case"
  ;;
esac
exit 0
