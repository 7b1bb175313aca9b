#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The store's index as an attacker writes it (docs/hostile-input.md, "The store"; issue: a
# user who owned a store made root's gc remove any file, root's show print /etc/shadow and a
# view named `cores` keep root's list busy forever). Through the `gpucore` program:
#
#   store_hostile.sh WORKDIR GPUCORE MKEXAMPLE CASE
#
#   owner   a store of another user: root's list, show, gc and store refuse it (77) and touch
#           nothing; its owner uses it, and the rows naming files outside are ignored
#   names   root's own store whose index names /ABS, ../, the index itself, a hidden file:
#           list shows the good row and warns, show cannot reach the others, gc removes
#           nothing outside, strace sees no open or unlink outside the store, --rescan drops
#           the rows
#   schema  a recursive view in place of `cores`, a trigger, an extra table: every command
#           refuses the index at once (65), nothing runs
#
# Exit codes: 0 pass, 1 fail, 77 skip (not root: giving a directory away needs it).
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 WORKDIR GPUCORE MKEXAMPLE CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkexample=$3 case=$4
here=$(cd "$(dirname "$0")" && pwd)
test_name="store-hostile-$case"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state"
unset GPUCORE_STORE
[ "$(id -u)" = 0 ] || skip "needs root (the attack is on root's commands)"

# A store in $work/store with one real core (core.1) indexed, owned by root.
make_store() {
  rm -rf store
  mkdir -m 700 store
  "$mkexample" store/core.1 >/dev/null
  gc rescan store --rescan --store store
  expect_rc 0 rescan
}

# sql STATEMENTS: run them on the store's index, as its writer could.
sql() {
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' \
    store/index.sqlite "$1"
}

# Rows naming files outside the store, ids 2 to 6.
hostile_rows() {
  sql "INSERT INTO cores(size, truncated, file, state, indexed_at, sig_hash) VALUES
       (1, 0, '$work/victim', 'present', 1, 'aaaa'),
       (1, 0, '../victim', 'present', 1, 'aaaa'),
       (1, 0, 'index.sqlite', 'present', 1, 'aaaa'),
       (1, 0, '.hidden', 'present', 1, 'aaaa'),
       (1, 0, '/etc/shadow', 'present', 1, 'aaaa');"
}

# expect_refused NAME RC WORDS: the command failed with RC and said WORDS.
expect_refused() {
  expect_rc "$2" "$1"
  grep -q -- "$3" "$1.err" || fail "$1: expected '$3' in: $(cat "$1.err")"
}

victim_alive() {
  [ "$(cat "$work/victim" 2>/dev/null)" = "precious" ] || fail "$1 removed or changed $work/victim"
}

echo precious >"$work/victim"

case $case in
owner)
  make_store
  hostile_rows
  chown -R nobody store
  for cmd in "list" "show 2" "gc --max-age 1s --keep-per-signature 0" "store" "store --rescan"; do
    name=${cmd%% *}-${cmd##* }
    # shellcheck disable=SC2086 # the command's words
    gc "$name" $cmd --store store
    expect_refused "$name" 77 "belongs to uid $(id -u nobody), not to root: refused"
  done
  victim_alive "root's gc"
  [ -f store/core.1 ] || fail "root's gc removed the owner's core"
  # Its owner may use it; the rows naming files outside are ignored, and gc removes only cores.
  chown nobody "$work/victim"
  chmod 711 "$work"
  rc=0
  setpriv --reuid nobody --regid nogroup --clear-groups "$gpucore" gc --max-age 1s \
    --keep-per-signature 0 --store store >owner-gc.out 2>owner-gc.err || rc=$?
  [ "$rc" -eq 0 ] || fail "the owner's gc exited $rc: $(cat owner-gc.err)"
  grep -q "5 rows of the index name no file of the store" owner-gc.err ||
    fail "owner's gc did not warn: $(cat owner-gc.err)"
  victim_alive "the owner's gc"
  [ ! -e store/core.1 ] || fail "the owner's gc left core.1"
  # Another user (not root) is told whose the store is, not "cannot create the store", with
  # --store DIR and --store=DIR alike; a directory under it: which directory is closed.
  for form in "--store store" "--store=store" "--store store/sub"; do
    rc=0
    # shellcheck disable=SC2086 # the option's words
    setpriv --reuid daemon --regid daemon --clear-groups "$gpucore" list $form \
      >other.out 2>other.err || rc=$?
    [ "$rc" -eq 77 ] || fail "list $form as another user exited $rc: $(cat other.err)"
    case $form in
    *sub) want="store/sub: not yours: store (uid $(id -u nobody), mode 0700) is closed to you (uid $(id -u daemon)), so the store can be neither made nor read there: refused" ;;
    *) want="store: the store belongs to uid $(id -u nobody), not to you (uid $(id -u daemon)): refused" ;;
    esac
    [ "$(cat other.err)" = "gpucore: $want" ] || fail "list $form as another user: $(cat other.err)"
  done
  ;;
names)
  make_store
  hostile_rows
  gc ls list --json --store store
  expect_rc 0 ls
  [ "$(python3 -c 'import json,sys; print([c["file"] for c in json.load(open(sys.argv[1]))["cores"]])' ls.out)" = "['core.1']" ] ||
    fail "list --json shows more than core.1: $(cat ls.out)"
  grep -q "5 rows of the index name no file of the store" ls.err || fail "no warning: $(cat ls.err)"
  for id in 2 3 4 5 6; do
    gc "show$id" show "$id" --store store
    expect_refused "show$id" 66 "no core $id in the store's index"
  done
  # gc removes every core by age: strace says what it unlinks and opens
  # (LeakSanitizer cannot run under ptrace: off for this run in sanitizer builds)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=unlink,unlinkat,openat,open -o gc.trace \
    "$gpucore" gc --max-age 1s --keep-per-signature 0 --store store >gc.out 2>gc.err ||
    fail "gc exited $?: $(cat gc.err)"
  victim_alive "gc"
  if grep -E 'victim|shadow|\.hidden' gc.trace; then fail "gc touched a file outside the store"; fi
  grep -q 'unlinkat(.*"core.1"' gc.trace || fail "gc did not remove core.1: $(cat gc.trace)"
  [ -f store/index.sqlite ] || fail "gc removed the index"
  gc rescan2 store --rescan --store store
  expect_rc 0 rescan2
  grep -q "5 rows removed (no file of the store)" rescan2.out || fail "rescan: $(cat rescan2.out)"
  gc ls2 list --store store
  expect_rc 0 ls2
  [ ! -s ls2.err ] || fail "a warning after the rescan: $(cat ls2.err)"
  ;;
schema)
  for attack in \
    "ALTER TABLE cores RENAME TO real_cores; CREATE VIEW cores AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT c.* FROM real_cores c, r;|unexpected view 'cores'" \
    "CREATE TRIGGER t AFTER UPDATE ON cores BEGIN DELETE FROM migrations; END;|unexpected trigger 't'" \
    "CREATE TABLE x(a);|unexpected table 'x'"; do
    make_store
    sql "${attack%%|*}"
    for cmd in "list" "store" "gc --max-age 1s"; do
      name=${cmd%% *}
      # shellcheck disable=SC2086 # the command's words
      timeout 60 "$gpucore" $cmd --store store >"$name.out" 2>"$name.err" && rc=0 || rc=$?
      expect_refused "$name" 65 "${attack##*|}"
      grep -q "the index is not one gpucore made" "$name.err" || fail "$name: $(cat "$name.err")"
    done
    [ -f store/core.1 ] || fail "gc removed a core of a refused store"
  done
  ;;
*)
  fail "unknown case $case"
  ;;
esac
exit 0
