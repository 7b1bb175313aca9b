#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The store's journal on local filesystems (docs/store.md, "On a network filesystem"): a store
# in the build tree and one on tmpfs (/dev/shm) index in WAL mode, and `gpucore list --json`
# (both forms) names the filesystem and the journal. No mounts: a network filesystem is
# tested by test_store with an injected f_type.
#
#   store_journal.sh WORKDIR GPUCORE
#
# Exit codes: 0 pass, 1 fail (one "FAIL [store-journal]: why" line), 77 skip.

set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 WORKDIR GPUCORE" >&2; exit 2; }
work=$1 gpucore=$2
here=$(cd "$(dirname "$0")" && pwd)
test_name="store-journal"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
shm=""
remove_shm() { [ -z "$shm" ] || rm -rf "$shm"; }
e2e_exit_hook=remove_shm

# check STORE FSNAME: list --json and list --dedupe --json on STORE say FSNAME and "wal", and
# SQLite agrees.
check() {
  local store=$1 fsname=$2
  for form in "" --dedupe; do
    # shellcheck disable=SC2086
    gc lj list --json $form --store "$store"
    expect_rc 0 lj
    python3 - lj.out "$store" "$fsname" <<'PY' || fail "list --json $form on $store: $(cat lj.out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["store"] == sys.argv[2], d
assert d["filesystem"] == sys.argv[3], d["filesystem"]
assert d["journal"] == "wal", d["journal"]
assert list(d)[:4] == ["schema", "store", "filesystem", "journal"], list(d)
PY
  done
  mode=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA journal_mode").fetchone()[0])' \
         "$store/index.sqlite")
  [ "$mode" = wal ] || fail "$store/index.sqlite: journal_mode $mode, expected wal"
}

# The build tree: its filesystem as the store names it (the table's name, or the f_type).
type=$(stat -f -c %t "$work")
case $type in
  ef53) name=ext4 ;; 58465342) name=xfs ;; 9123683e) name=btrfs ;; 1021994) name=tmpfs ;;
  794c7630) name=overlayfs ;; 2fc12fc1) name=zfs ;;
  6969|517b|fe534d42|ff534d42|c36400|1021997|65735546|5346414f|6b414653|73757245|7461636f|\
1161970|bd00bd0|47504653|19830326)
    skip "the build tree is on a network filesystem (f_type 0x$type): this test is about local ones" ;;
  *) name=0x$type ;;
esac
check "$work/store" "$name"

# tmpfs
if [ "$(stat -f -c %t /dev/shm 2>/dev/null)" != 1021994 ]; then
  echo "store-journal: /dev/shm is not a tmpfs here: only the build tree's filesystem tested"
  exit 0
fi
shm=$(mktemp -d /dev/shm/gpucore-store-journal.XXXXXX)
check "$shm/store" tmpfs
