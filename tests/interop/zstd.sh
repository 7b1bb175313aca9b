#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A compressed core is a zstd seekable file: the stock zstd tool must decompress it, without
# complaint, into exactly the plain core (the seek table is a skippable frame zstd ignores).
. "$(dirname "$0")/common.sh"
setup "$1" "$2"
zstd=${3:-}
need_tool "$zstd" zstd

make_core plain.core
make_core --split split.core
for v in "--compress" "--compress=1" "--compress=19" "--compress=-5" "--split --compress"; do
  name=$(echo "$v" | tr -c 'a-z0-9\n' '_')
  # shellcheck disable=SC2086
  make_core $v "$name.zst"
  case $v in --split*) want=split.core ;; *) want=plain.core ;; esac
  run_capture "$name.test" "$zstd" -t "$name.zst"
  [ "$rc" -eq 0 ] || fail "zstd -t $v: exit $rc: $(cat "$name.test.err")"
  run_capture "$name.d" "$zstd" -q -d -c "$name.zst"
  [ "$rc" -eq 0 ] || fail "zstd -d $v: exit $rc: $(cat "$name.d.err")"
  [ ! -s "$name.d.err" ] || fail "zstd -d $v wrote to stderr: $(cat "$name.d.err")"
  cmp "$name.d.out" "$want" || fail "zstd -d of the $v core differs from $want"
done
echo "ok [$test_name]"
