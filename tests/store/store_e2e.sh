#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of the core store (docs/store.md; tests/store.cmake): `gpucore run --store`
# on scenarios of the simulated GPU, then list, show, gc and store --rescan on what it wrote.
#
#   store_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# Cores with the same signature and different capture times are made by running the same
# scenario (vadd-fault) several times: each run is a new process captured at its own time.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="store-$case"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace
# Nothing of the machine's own: no default store, no configuration file of the user's.
export GPUCORE_STORE="$work/store" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state"
store=$GPUCORE_STORE

# store_run NAME SCENARIO [OPTIONS...]: `gpucore run --store OPTIONS` on SCENARIO, which faults
# and aborts (134); the core's path in $core.
store_run() {
  local name=$1 scen=$2
  shift 2
  rc=0
  "$gpucore" run --kfd sim "$@" -- "$inferior" "$scenarios/$scen.json" --objects "$objects" \
      >"$name.out" 2>"$name.err" || rc=$?
  if [ "$rc" -eq 77 ] && grep -qi ptrace "$name.err"; then skip "$(cat "$name.err")"; fi
  [ "$rc" -eq 134 ] || fail "gpucore run ($scen) exited $rc, expected 134: $(cat "$name.err")"
  core=$(sed -n 's/^gpucore: \(.*\): [0-9.]* [KMG]*i*B on disk, .*/\1/p' "$name.err")
  [ -n "$core" ] && [ -f "$core" ] || fail "no core named in: $(cat "$name.err")"
}

# py EXPR FILE: a python expression over the JSON document in FILE as `d`.
py() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$2"
}

# state_of FILE: the state list --json gives the core of that file name.
state_of() {
  gc ls list --json
  expect_rc 0 ls
  py "[c['state'] for c in d['cores'] if c['file']=='$1'][0]" ls.out
}

case $case in
run)
  # run --store: the core in the store (0700 / 0600), named core.TIME.HOST.PID.EXE, indexed.
  SLURM_JOB_ID=4711 OMPI_COMM_WORLD_RANK=3 store_run run vadd-fault --store
  [ "$(dirname "$core")" = "$store" ] || fail "core $core is not in $store"
  case $(basename "$core") in core.[0-9]*.*.[0-9]*.gpucore-inferior) ;;
    *) fail "core name $(basename "$core")" ;; esac
  grep -q "^gpucore: $core: stored as core 1$" run.err || fail "not indexed: $(cat run.err)"
  [ "$(stat -c %a "$store")" = 700 ] || fail "store mode $(stat -c %a "$store")"
  [ "$(stat -c %a "$core")" = 600 ] || fail "core mode $(stat -c %a "$core")"
  [ "$(stat -c %a "$store/index.sqlite")" = 600 ] || fail "index mode"
  # --store=DIR and --compress: a .zst name
  store_run runz vadd-fault --store="$work/other" --compress
  case $core in "$work"/other/core.*.gpucore-inferior.zst) ;; *) fail "compressed name $core" ;; esac
  # retention on every capture (store.conf, here --config): two cores of 1.4 MiB pass
  # MaxUse=2M, so the older one goes, never the new one; a store.conf that does not parse is a warning, the core
  # kept and the job's status the command's; --config without --store is a usage error
  printf '[Store]\nMaxUse=2M\n' >keep1.conf
  store_run ret1 vadd-fault --store="$work/ret" --config keep1.conf
  first=$core
  store_run ret2 vadd-fault --store "$work/ret" --config keep1.conf
  [ -f "$core" ] && [ "$core" != "$first" ] || fail "the new core is gone: $(cat ret2.err)"
  [ ! -e "$first" ] || fail "the older core was kept: $(ls "$work/ret")"
  grep -q "^gpucore: $work/ret: 1 older core removed by the store's limits (.*; store.conf)$" \
    ret2.err || fail "no retention line: $(cat ret2.err)"
  printf 'KeepPerSignature=many\n' >bad.conf
  store_run ret3 vadd-fault --store="$work/ret" --config bad.conf
  [ -f "$core" ] || fail "the core was not kept"
  grep -q "^gpucore: warning: $core: the store's limits were not applied: .*bad.conf:1:" \
    ret3.err || fail "no warning: $(cat ret3.err)"
  rc=0
  "$gpucore" run --config keep1.conf -o x.core -- true >cu.out 2>cu.err || rc=$?
  expect_rc 64 cu
  grep -q "give it with --store" cu.err || fail "$(cat cu.err)"

  gc list list
  expect_rc 0 list
  head -1 list.out | grep -q "^TIME  *ID  *PID  *UID  *EXE  *JOB/RANK  *SIGNATURE  *WAVES  *SIZE  *STATE  *SEEN$" ||
    fail "list header: $(head -1 list.out)"
  grep -q " 1 .* gpucore-inferior 4711/3 .* 4/256 .* present  *1$" list.out || fail "list row: $(cat list.out)"
  grep -q "fault:vadd+0xb4:memory_violation:co-[0-9a-f]*: seen 1 time since " list.out ||
    fail "no seen line: $(cat list.out)"

  # list --json: the documented members, with their types
  gc lj list --json
  expect_rc 0 lj
  python3 - lj.out "$store" <<'PY' || fail "list --json: $(cat lj.out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpucore.list/1" and d["store"] == sys.argv[2], d
(c,) = d["cores"]
types = {"id": int, "time": str, "time_ns": int, "host": str, "pid": int, "uid": int,
         "executable": str, "job": str, "rank": int, "targets": str,
         "trigger": str, "signature": dict, "waves": int, "faulting_waves": int,
         "size_on_disk": int, "truncated": bool, "file": str, "path": str, "state": str,
         "error": type(None), "indexed_at": str, "seen": int, "first_seen": str}
assert set(c) == set(types), sorted(set(c) ^ set(types))
for k, t in types.items():
    assert isinstance(c[k], t), (k, c[k])
assert c["waves"] == 256 and c["faulting_waves"] == 4 and c["trigger"] == "memory-violation"
# CAPTURE_META 1.4: the target's uid, the job and rank of its environment
assert c["uid"] == __import__("os").getuid() and c["job"] == "4711" and c["rank"] == 3, c
assert c["state"] == "present" and c["seen"] == 1 and c["targets"] == "gfx90a"
assert set(c["signature"]) == {"hash", "text"} and len(c["signature"]["hash"]) == 16
assert c["signature"]["text"].startswith("fault:vadd+0xb4:memory_violation:")
assert c["path"] == sys.argv[2] + "/" + c["file"]
PY
  # the signature is analyze's
  "$gpucore" analyze --json "$core" >/dev/null 2>&1 || true
  hash=$(py "d['cores'][0]['signature']['hash']" lj.out)
  file=$(py "d['cores'][0]['file']" lj.out)
  "$gpucore" analyze --json "$store/$file" >an.json || fail "analyze failed"
  [ "$(py "d['signature']['hash']" an.json)" = "$hash" ] || fail "signature differs from analyze's"

  # filters
  for f in "--exe gpucore-inferior" "--exe $inferior" "--signature $hash" "--job 4711" \
           "--signature ${hash:0:6}" "--since 1h" "--since 2000-01-01" "--since 2000-01-01T00:00:00Z"; do
    # shellcheck disable=SC2086
    gc f list --json $f
    expect_rc 0 f
    [ "$(py "len(d['cores'])" f.out)" = 1 ] || fail "list $f: $(cat f.out)"
  done
  for f in "--exe gpucore" "--signature 0000" "--since 2999-01-01" "--job 42"; do
    # shellcheck disable=SC2086
    gc f list --json $f
    expect_rc 0 f
    [ "$(py "len(d['cores'])" f.out)" = 0 ] || fail "list $f matched: $(cat f.out)"
  done
  gc f list --since yesterday
  expect_rc 64 f

  # show by id and by path: the row and analyze's first lines
  gc show show 1
  expect_rc 0 show
  grep -q "^    Signature: $hash (fault:vadd+0xb4" show.out || fail "show: $(cat show.out)"
  "$gpucore" analyze "$store/$file" >an.txt
  grep -q "^4 waves of vadd .* stopped by a memory violation at vadd+0xb4" show.out ||
    fail "show has no summary: $(cat show.out)"
  grep -q "^Signature: $hash" an.txt && grep -q "^Signature: $hash" show.out ||
    fail "show's summary is not analyze's"
  gc showp show "$store/$file"
  expect_rc 0 showp
  cmp -s show.out showp.out || fail "show PATH differs from show ID"
  gc sj show --json 1
  expect_rc 0 sj
  [ "$(py "d['schema']" sj.out)" = gpucore.show/1 ] || fail "show --json schema"
  [ "$(py "d['core']['id']" sj.out)" = 1 ] || fail "show --json core"
  py "d['summary'][0]" sj.out | grep -q "^4 waves of vadd" || fail "show --json summary"
  cp "$store/$file" "$work/$file"
  gc so show "$work/$file"
  expect_rc 66 so
  grep -q "not a file of the store" so.err || fail "show of a file elsewhere: $(cat so.err)"
  gc s9 show 9
  expect_rc 66 s9
  grep -q "no core 9 in the store's index" s9.err || fail "show 9: $(cat s9.err)"

  # capture --store (on demand, a hang: no faulting waves) into the same store
  e2e_continue_copy "$scenarios/multi-gpu-hang.json" hang.json
  e2e_start_inferior hang.json
  gc cap capture --kfd sim --store "$ipid"
  expect_rc 0 cap
  e2e_stop_inferior
  grep -q "stored as core 2$" cap.err || fail "capture --store: $(cat cap.err)"
  gc lj2 list --json --store "$store"
  [ "$(py "[c['trigger'] for c in d['cores'] if c['id']==2][0]" lj2.out)" = on-demand ] ||
    fail "capture --store row: $(cat lj2.out)"
  [ "$(py "[c['signature']['text'].split(':')[0] for c in d['cores'] if c['id']==2][0]" lj2.out)" = hang ] ||
    fail "capture --store signature: $(cat lj2.out)"
  ;;

gc)
  # Three cores of one signature (three runs of vadd-fault, two of them at once: two writers
  # of the index) and one of another, then gc's order; `gpucore store` on the way.
  printf 'KeepPerSignature=1\nMaxAge=4w\n' >status.conf
  gc st0 store --config status.conf
  expect_rc 0 st0
  grep -qx "Store:       $store" st0.out &&
    grep -qx "Cores:       0 present (0 B), 0 missing, 0 deleted by gc, 0 unreadable" st0.out &&
    grep -qx "Limits:      MaxAge=4w KeepPerSignature=1 (status.conf)" st0.out &&
    grep -qx "gc now:      would remove 0 cores, 0 B" st0.out || fail "store on an empty store: $(cat st0.out)"
  if [ "$(id -u)" != 0 ] || [ ! -e /etc/gpucore/store.conf ]; then
    gc st1 store
    grep -qx "Limits:      none (no configuration file)" st1.out || fail "store without a configuration file: $(cat st1.out)"
  fi
  store_run r1 vadd-fault --store
  sleep 1.1 # a later capture time, to the second of the core's name
  (store_run r2 vadd-fault --store) &
  p2=$!
  (store_run r3 vadd-fault --store) &
  p3=$!
  wait $p2 || fail "run 2: $(cat r2.err)"
  wait $p3 || fail "run 3: $(cat r3.err)"
  grep -q "stored as core" r2.err && grep -q "stored as core" r3.err ||
    fail "parallel runs not both indexed: $(cat r2.err r3.err)"
  store_run r4 rdna3-assert --store
  gc l list
  expect_rc 0 l
  grep -q "fault:vadd+0xb4:memory_violation:co-[0-9a-f]*: seen 3 times since " l.out ||
    fail "seen 3 times: $(cat l.out)"
  # --dedupe: one line per signature, vadd's first
  gc dd list --dedupe
  expect_rc 0 dd
  [ "$(wc -l <dd.out)" = 3 ] || fail "list --dedupe: $(cat dd.out)"
  sed -n 2p dd.out | grep -q "^[0-9a-f]\{16\}  *3 .* gpucore-inferior  *fault:vadd+0xb4:" ||
    fail "list --dedupe line: $(cat dd.out)"
  gc ddj list --dedupe --json
  expect_rc 0 ddj
  [ "$(py "[(s['seen'], s['listed']) for s in d['signatures']]" ddj.out)" = "[(3, 3), (1, 1)]" ] ||
    fail "list --dedupe --json: $(cat ddj.out)"
  gc lj list --json
  first=$(py "d['cores'][0]['file']" lj.out)
  other=$(py "[c['file'] for c in d['cores'] if 'check' in c['signature']['text']][0]" lj.out)

  gc dry gc --keep-per-signature 1 --dry-run
  expect_rc 0 dry
  [ "$(grep -c "^would remove core\..*duplicate of its signature" dry.out)" = 2 ] ||
    fail "dry run: $(cat dry.out)"
  grep -q "^Would remove 2 cores, " dry.out || fail "dry run total: $(cat dry.out)"
  # `gpucore store` says what list and gc --dry-run say, counted its own way
  gc st2 store --config status.conf
  expect_rc 0 st2
  grep -qx "Cores:       4 present ([0-9.]* [KM]iB), 0 missing, 0 deleted by gc, 0 unreadable" st2.out &&
    grep -qx "Signatures:  2 among the present cores" st2.out &&
    grep -qx "gc now:      $(sed -n 's/^Would remove \(.*\)\.$/would remove \1/p' dry.out)" st2.out ||
    fail "store: $(cat st2.out)"
  gc st2j store --json --config status.conf
  expect_rc 0 st2j
  python3 - st2j.out lj.out dry.out <<'PY' || fail "store --json disagrees with list --json and gc --dry-run (see above)"
import json, re, sys
st, ls = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
dry = open(sys.argv[3]).read()
present = [c for c in ls["cores"] if c["state"] == "present"]
assert st["schema"] == "gpucore.store/1", st
for k in ("store", "filesystem", "journal"):
    assert st[k] == ls[k], (k, st[k], ls[k])
assert st["network"] is False and st["journal"] == "wal", st
assert 0 < st["free_bytes"] <= st["total_bytes"], st
assert st["cores"] == {"present": 4, "missing": 0, "deleted": 0, "unreadable": 0}, st["cores"]
assert st["present_bytes"] == sum(c["size_on_disk"] for c in present), st
assert st["signatures"] == len({c["signature"]["hash"] for c in present}) == 2, st
times = sorted(c["time"] for c in present)
assert (st["oldest"], st["newest"]) == (times[0], times[-1]), (st["oldest"], st["newest"], times)
assert st["config"] == "status.conf", st["config"]
assert st["policy"] == {"max_use": None, "keep_free": None, "max_age_s": 28 * 86400,
                        "keep_per_signature": 1}, st["policy"]
# the two later vadd-fault cores: what gc --dry-run names
gone = re.findall(r"^would remove (\S+) ", dry, re.M)
size = {c["file"]: c["size_on_disk"] for c in present}
assert st["gc"] == {"would_remove": 2, "would_free": sum(size[f] for f in gone)}, (st["gc"], gone)
PY
  [ "$(ls "$store" | grep -c '^core\.')" = 4 ] || fail "a dry run removed files"

  gc g1 gc --keep-per-signature 1
  expect_rc 0 g1
  [ "$(grep -c "^removed " g1.out)" = 2 ] || fail "gc: $(cat g1.out)"
  [ -f "$store/$first" ] || fail "the first core of the signature was removed"
  [ "$(state_of "$first")" = present ] || fail "first not present"
  [ "$(py "sum(1 for c in d['cores'] if c['state']=='deleted')" ls.out)" = 2 ] ||
    fail "rows not kept as deleted: $(cat ls.out)"
  gc l2 list
  grep -q "seen 3 times" l2.out || fail "deleted cores no longer counted: $(cat l2.out)"
  gc st3 store --config status.conf
  grep -qx "Cores:       2 present ([0-9.]* [KM]iB), 0 missing, 2 deleted by gc, 0 unreadable" st3.out &&
    grep -qx "gc now:      would remove 0 cores, 0 B" st3.out || fail "store after gc: $(cat st3.out)"
  # usage: --rescan is a command of its own; a configuration file named must exist
  gc su1 store --rescan --json
  expect_rc 64 su1
  grep -qx "gpucore store: --rescan takes no --json (see \`gpucore store --help\`)" su1.err || fail "su1: $(cat su1.err)"
  gc su2 store --config no-such.conf
  expect_rc 66 su2
  grep -qx "gpucore: no-such.conf: cannot open the configuration file: No such file or directory" su2.err ||
    fail "su2: $(cat su2.err)"

  # MaxUse from the configuration file, 1 byte: the oldest first, both
  mkdir -p "$XDG_CONFIG_HOME/gpucore"
  printf '# test\n[Store]\nMaxUse=1\n' >"$XDG_CONFIG_HOME/gpucore/store.conf"
  if [ "$(id -u)" = 0 ]; then conf=(--config "$XDG_CONFIG_HOME/gpucore/store.conf"); else conf=(); fi
  gc g2 gc "${conf[@]}"
  expect_rc 0 g2
  [ "$(sed -n 1p g2.out | cut -d' ' -f2)" = "$first" ] || fail "oldest not first: $(cat g2.out)"
  [ "$(sed -n 2p g2.out | cut -d' ' -f2)" = "$other" ] || fail "then the next: $(cat g2.out)"
  grep -q "MaxUse exceeded" g2.out || fail "reason: $(cat g2.out)"
  [ "$(ls "$store" | grep -c '^core\.' || true)" = 0 ] || fail "files left: $(ls "$store")"
  # an option wins over the file; nothing left to remove
  gc g3 gc "${conf[@]}" --max-use 1G
  expect_rc 0 g3
  grep -q "^Removed 0 cores" g3.out || fail "g3: $(cat g3.out)"
  ;;

hand)
  # Files moved, copied, deleted by hand; files that are no cores; symlinks.
  store_run r1 vadd-fault --store
  name=$(basename "$core")
  mv "$core" "$work/moved"
  [ "$(state_of "$name")" = missing ] || fail "moved away: not missing"
  gc l list
  grep -q " missing  *1$" l.out || fail "list does not say missing: $(cat l.out)"
  gc s show 1
  expect_rc 0 s
  grep -q "No report: the file is missing" s.out || fail "show of a missing core: $(cat s.out)"
  mv "$work/moved" "$core"
  [ "$(state_of "$name")" = present ] || fail "moved back: not present"
  cp "$core" "$store/copy-by-hand"
  printf 'not a core\n' >"$store/junk"
  head -c 64 "$core" >"$store/cut"
  ln -s /etc/passwd "$store/link"
  mkfifo "$store/fifo"
  gc rs store --rescan
  expect_rc 0 rs
  grep -q ": 4 files: 3 added, 0 read again, 2 unreadable; 0 missing; 2 skipped" rs.out ||
    fail "rescan: $(cat rs.out)"
  [ "$(state_of copy-by-hand)" = present ] || fail "the copy is not present"
  [ "$(state_of junk)" = unreadable ] || fail "junk is not unreadable"
  [ "$(state_of cut)" = unreadable ] || fail "cut is not unreadable"
  [ "$(py "len({c['signature']['hash'] for c in d['cores'] if c['file'] in ('copy-by-hand', '$name')})" ls.out)" = 1 ] ||
    fail "the copy has another signature"
  grep -q '"seen": 2' ls.out || fail "the copy is not counted"
  gc sl show link
  expect_rc 66 sl
  rm "$core"
  gc rs2 store --rescan
  expect_rc 0 rs2
  grep -q "; 1 missing;" rs2.out || fail "rescan after rm: $(cat rs2.out)"
  [ "$(state_of "$name")" = missing ] || fail "deleted by hand: not missing"
  # hostile cores (the corpora of the reader's and the image's fuzz targets) put into the
  # store: each a row, present or unreadable; none stops the rescan
  corpus=$scenarios/../fuzz/corpus
  for f in "$corpus"/fuzz_core_open/* "$corpus"/fuzz_image/*; do
    cp "$f" "$store/hostile.$(basename "$(dirname "$f")").$(basename "$f")"
  done
  nh=$(ls "$store" | grep -c '^hostile\.')
  gc rh store --rescan
  expect_rc 0 rh
  grep -q ": $((nh + 3)) files: $nh added" rh.out || fail "hostile rescan: $(cat rh.out)"
  gc lh list --json
  expect_rc 0 lh
  [ "$(py "sum(1 for c in d['cores'] if c['file'].startswith('hostile.') and c['state'] in ('present', 'unreadable'))" lh.out)" = "$nh" ] ||
    fail "hostile rows: $(cat lh.out)"
  gc lt list
  expect_rc 0 lt
  rm -f "$store"/hostile.*
  gc rh2 store --rescan
  expect_rc 0 rh2
  # the index itself removed: rebuilt from the files
  rm -f "$store"/index.sqlite*
  gc rs3 store --rescan
  expect_rc 0 rs3
  grep -q ": 3 files: 3 added" rs3.out || fail "rebuild: $(cat rs3.out)"
  ;;

busy)
  # A report that has to wait holds up no process of the tree: with the index locked by
  # another writer, run's indexing waits (up to the busy timeout), while a sibling of the
  # faulting process forks fifty times, each fork a stop the tree loop must answer. The lock is
  # held until the sibling is done: had the loop been the one waiting, the sibling could not
  # finish before the indexing gave up, and the core would not be indexed.
  gc mk list
  expect_rc 0 mk
  python3 - "$store/index.sqlite" sibling.done lock.held <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[3], "w").close()
for _ in range(2400):  # at most 120 s: the test's own bound, never reached when it passes
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
db.execute("COMMIT")
PY
  holder=$!
  for _ in $(seq 1 200); do [ -e lock.held ] && break; sleep 0.05; done
  [ -e lock.held ] || fail "the lock holder did not start"
  rc=0
  "$gpucore" run --kfd sim --store -- bash -c '
      "$1" "$2" --objects "$3" & inf=$!
      until ls "$4"/core.* >/dev/null 2>&1; do sleep 0.05; done
      for i in $(seq 1 50); do /bin/true; done
      : >sibling.done
      wait $inf; exit 0'       sh "$inferior" "$scenarios/vadd-fault.json" "$objects" "$store" >busy.out 2>busy.err || rc=$?
  wait "$holder" || fail "the lock holder failed"
  [ "$rc" -eq 0 ] || fail "run exited $rc: $(cat busy.err)"
  [ -e sibling.done ] || fail "the sibling did not finish: $(cat busy.err)"
  grep -q "^gpucore: .*: stored as core 1$" busy.err ||
    fail "the core was not indexed once the sibling was done: $(cat busy.err)"
  grep -q ", signature [0-9a-f]\{16\}$" busy.err || fail "no signature in: $(cat busy.err)"
  ;;

perm)
  # The store's rules, as the program reports them.
  mkdir -m 0777 "$work/open"
  gc o list --store "$work/open"
  expect_rc 77 o
  grep -q "the store is writable by others (mode 0777): refused" o.err || fail "$(cat o.err)"
  mkdir -m 0700 "$work/real"
  ln -s "$work/real" "$work/sym"
  gc y list --store "$work/sym"
  expect_rc 77 y
  grep -q "it is a symlink (refused)" y.err || fail "$(cat y.err)"
  # run refuses it before it starts anything
  gc ry run --kfd sim --store="$work/sym" -- touch started
  expect_rc 77 ry
  [ ! -e started ] || fail "run started its command with a refused store"
  # a symlink in place of the index
  mkdir -m 0700 "$work/s2"
  ln -s "$work/elsewhere.sqlite" "$work/s2/index.sqlite"
  gc i list --store "$work/s2"
  expect_rc 77 i
  grep -q "index.sqlite: the index is not a regular file" i.err || fail "$(cat i.err)"
  [ ! -e "$work/elsewhere.sqlite" ] || fail "the symlink was followed"
  # an index of a newer schema: 65, untouched; a capture into that store keeps its core
  gc n list --store "$work/new"
  expect_rc 0 n
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version=7"); c.commit()' \
      "$work/new/index.sqlite"
  gc n2 list --store "$work/new"
  expect_rc 65 n2
  grep -q "the index has schema version 7, newer than this gpucore's 2" n2.err || fail "$(cat n2.err)"
  store_run r2 vadd-fault --store="$work/new"
  grep -q "warning: .*: the core is kept but not indexed: .*schema version 7" r2.err ||
    fail "no warning: $(cat r2.err)"
  [ -f "$core" ] || fail "the core was not kept"
  # root's store seen by a user without a core in it: nothing of root's is shown, 66; another
  # user's store: refused, 77
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # in a directory of its own that nobody may enter (the build tree's parents may not be)
    theirs=$(mktemp -d -t gpucore-store-e2e.XXXXXX)
    chmod 0755 "$theirs"
    rc=0
    setpriv --reuid=65534 --regid=65534 --clear-groups "$gpucore" list --store "$theirs" \
        >t.out 2>t.err || rc=$?
    expect_rc 66 t
    grep -q "^gpucore: $theirs: root's store holds no core of yours (uid 65534)" t.err ||
      fail "$(cat t.err)"
    chown daemon "$theirs"
    rc=0
    setpriv --reuid=65534 --regid=65534 --clear-groups "$gpucore" list --store "$theirs" \
        >t.out 2>t.err || rc=$?
    rm -rf "$theirs"
    expect_rc 77 t
    grep -q "the store belongs to uid $(id -u daemon), not to you (uid 65534): refused" t.err ||
      fail "$(cat t.err)"
  fi
  # a store.conf that does not parse: the line named, 65; a --config that is missing: 66
  printf 'MaxUse=1G\nMaxAge=forever\n' >bad.conf
  gc c gc --config bad.conf
  expect_rc 65 c
  grep -q "^gpucore: bad.conf:2: MaxAge= expects a duration such as 30d$" c.err || fail "$(cat c.err)"
  gc c2 gc --config nothing.conf
  expect_rc 66 c2
  gc c3 gc --max-use lots
  expect_rc 64 c3
  gc c4 run --kfd sim --store -o x -- true
  expect_rc 64 c4
  ;;

*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
exit 0
