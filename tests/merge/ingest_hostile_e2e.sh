#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore ingest` as an attacker would use it (tests/merge.cmake): the kernel runs the
# core_pattern handler as root for any user's crash and ignores ulimit -c for a pipe, and the
# --dir directory may be the crashing user's. The streams are the split pair of vadd-fault (as
# ingest_e2e.sh makes it) grown on the fly by stream_writer.py.
#
#   ingest_hostile_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# CASE:
#   limit      a host stream of 1 GiB of zeros past the host core's segments, --no-compress
#              under a limit 32 MiB above the host core's size (a sanitized inferior's is
#              larger), and 256 MiB of random bytes, compressed, under 16M, the
#              big segment first in the stream: the file never larger than the limit, the core
#              marked truncated for the budget (info --json, analyze), the rest skipped/budget,
#              exit 0 with the warning, and the writer wrote every byte (no EPIPE: the stream is
#              read to its end, never left blocked); no merged core loses the mark.
#   store      the same into --store, then the GPU half: the rows of the cut host half and of
#              the merged core say truncated.
#   conf       where the limit comes from: --config's HostSizeMax= (GpuSizeMax= for the GPU
#              half), --max-size over it, a configuration file that does not parse (a warning,
#              the default applies, the crash is kept), bad values (64, stdin read).
#   dir-rules  --dir refused (77, one line naming the rule, stdin read): a symlink, writable by
#              its group, by others; run as nobody, a directory of root's. Root in a user's
#              directory is accepted (the store's rule), and the rules below protect it.
#   precreated a file, a symlink (to a canary) and a directory at the output name, made before
#              the stream or while it is read: the core is stored under the next free name,
#              exit 0, a warning; what was there is untouched, the canary too.
#   partner    a symlink to a canary core, a hard link to it, a FIFO, at the name of the other
#              half: never followed, read or waited on; the half just written stays, exit 77
#              (--foreground-merge), no merged core, the canary untouched.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=ingest-hostile-$case
writer="$here/stream_writer.py"

. "$here/../lib/e2e.sh"
. "$here/ingest_lib.sh"
e2e_enter "$work"
e2e_need_ptrace

e2e_rocr_split "$scenarios/vadd-fault.json"
g=gpucore.$pid h=core.$pid
# The suite's default store.conf would be the machine's (/etc/gpucore/store.conf for root):
# every run names one of its own.
: >empty.conf


# drained NAME: the writer of the last feed wrote everything and saw no EPIPE.
drained() {
  [ "$wrc" -eq 0 ] || fail "$1: the writer exited $wrc (3: EPIPE): $(cat "$1.werr")"
}

# limited CORE LIMIT: CORE's apparent size is at most LIMIT, it is marked truncated for the
# budget, and the bytes past its memory are recorded skipped/budget.
limited() {
  local size n=${1//\//_}-info
  size=$(stat -c %s "$1")
  [ "$size" -le "$2" ] || fail "$1: $size bytes, more than the limit of $2"
  gc "$n" info --json "$1"; expect_rc 0 "$n"
  python3 - "$n.out" <<'PY' || fail "$1 does not say the limit cut it (see above)"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
assert m["truncated"] and m["truncation_reason"] == "budget", (m["truncated"], m["truncation_reason"])
budget = [e for e in m["entries"] if e["status"] == "skipped" and e["reason"] == "budget"]
assert budget and sum(e["size"] for e in budget) >= 64 << 20, budget[:4]
PY
}

# refused NAME RULE: the last feed NAME was refused with 77, one line matching RULE, and the
# writer saw no EPIPE.
refused() {
  expect_rc 77 "$1"
  drained "$1"
  [ "$(wc -l <"$1.err")" -eq 1 ] && grep -Eq "$2" "$1.err" || fail "$1: unexpected message: $(cat "$1.err")"
}

case $case in
limit)
  mkdir d1
  lim=$((($(stat -c %s "$h") >> 20) + 32))
  feed plain huge "$h" 1 --count plain.count -- --host --pid "$pid" --dir d1 --no-compress \
    --max-size "${lim}M" --config empty.conf
  expect_rc 0 plain; drained plain
  grep -Eq "^gpucore: warning: d1/core\.$pid: the core reached its size limit, $lim\.0 MiB \(--max-size\): [0-9]+\.[0-9] MiB of memory past it were read and dropped; what came before is kept, marked truncated$" plain.err ||
    fail "no final line for the limit: $(cat plain.err)"
  # the writer ended without EPIPE after more than the 1 GiB segment: ingest read all of it
  [ "$(cat plain.count)" -gt $((1 << 30)) ] || fail "the writer wrote $(cat plain.count) bytes"
  limited "d1/core.$pid" $((lim << 20))
  # the host core's own segments are all there, whole: only the big one, last, was cut
  gc plain-full ingest --host --pid "$pid" -o full.core --no-compress --config empty.conf <"$h"
  expect_rc 0 plain-full
  python3 - "d1_core.$pid-info.out" <<'PY' || fail "the cut core lost more than the big segment"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
cut = [e for e in m["entries"] if e["reason"] == "budget"]
assert len(cut) == 1 and (1 << 30) - (32 << 20) < cut[0]["size"] < 1 << 30, cut
PY
  gc plain-analyze analyze --host "d1/core.$pid" "$g"; expect_rc 0 plain-analyze

  # compressed, random bytes, the big segment first: what follows it is dropped too
  mkdir d2
  feed rnd huge "$h" 256M --random --first -- --host --pid "$pid" --dir d2 --max-size 16M \
    --config empty.conf
  expect_rc 0 rnd; drained rnd
  grep -q "the core reached its size limit, 16.0 MiB (--max-size)" rnd.err || fail "$(cat rnd.err)"
  limited "d2/core.$pid.zst" $((16 << 20))
  # the GPU half arrives: the merged core keeps the host half's mark and what it lost
  feed gpu copy "$g" -- --pid "$pid" --dir d2 --foreground-merge --config empty.conf
  expect_rc 0 gpu; drained gpu
  [ "$(ls d2)" = "gpucore.$pid.zst" ] || fail "d2 holds $(ls d2 | tr '\n' ' ')"
  limited "d2/gpucore.$pid.zst" $((64 << 20))
  gc merged-analyze analyze "d2/gpucore.$pid.zst"; expect_rc 0 merged-analyze
  grep -q "the size budget was exhausted" merged-analyze.out || fail "analyze does not say the core was cut: $(head -8 merged-analyze.out)"
  gc merged-waves analyze waves --json "d2/gpucore.$pid.zst"; expect_rc 0 merged-waves
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(len(d["waves"]) != 256)' merged-waves.out ||
    fail "the merged core lost waves"
  ;;
store)
  export GPUCORE_STORE="$work/cores"
  feed host huge "$h" 128M --random -- --host --pid "$pid" --store --max-size 8M --config empty.conf
  expect_rc 0 host; drained host
  for _ in $(seq 1 600); do
    gc l1 list --json; expect_rc 0 l1
    grep -q '"state": "present"' l1.out && break
    sleep 0.05
  done
  python3 - l1.out "$pid" <<'PY' || fail "the cut host half's row: $(cat l1.out)"
import json, sys
(c,) = json.load(open(sys.argv[1]))["cores"]
assert c["file"] == "core.%s.zst" % sys.argv[2] and c["truncated"] is True, c
assert c["size_on_disk"] <= 8 << 20, c
PY
  feed gpu copy "$g" -- --pid "$pid" --store --foreground-merge --config empty.conf
  expect_rc 0 gpu; drained gpu
  gc l2 list --json; expect_rc 0 l2
  python3 - l2.out "$pid" <<'PY' || fail "the store's rows after the merge: $(cat l2.out)"
import json, sys
rows = {c["file"]: c for c in json.load(open(sys.argv[1]))["cores"]}
m = rows["gpucore.%s.zst" % sys.argv[2]]
assert m["state"] == "present" and m["truncated"] is True and m["faulting_waves"] == 4, m
PY
  gc l3 list; expect_rc 0 l3
  grep -q "present" l3.out || fail "$(cat l3.out)"
  ;;
conf)
  printf '[Store]\nMaxUse=10G\nHostSizeMax=1M\nGpuSizeMax=2M\n' >limits.conf
  # the host half: HostSizeMax=
  feed c1 huge "$h" 64M --random -- --host --pid "$pid" -o c1.zst --config limits.conf
  expect_rc 0 c1; drained c1
  grep -q "the core reached its size limit, 1.0 MiB (HostSizeMax= in limits.conf)" c1.err || fail "$(cat c1.err)"
  [ "$(stat -c %s c1.zst)" -le $((1 << 20)) ] || fail "c1.zst: $(stat -c %s c1.zst) bytes"
  # --max-size wins over the file
  feed c2 huge "$h" 64M --random -- --host --pid "$pid" -o c2.zst --config limits.conf --max-size 3M
  expect_rc 0 c2; drained c2
  grep -q "the core reached its size limit, 3.0 MiB (--max-size)" c2.err || fail "$(cat c2.err)"
  s2=$(stat -c %s c2.zst)
  [ "$s2" -le $((3 << 20)) ] && [ "$s2" -gt $((2 << 20)) ] || fail "c2.zst: $s2 bytes"
  # the GPU half: GpuSizeMax= (with --tier all: the state tier is below it)
  feed c3 huge "$g" 64M --random -- --pid "$pid" -o c3.zst --tier all --config limits.conf
  expect_rc 0 c3; drained c3
  grep -q "the core reached its size limit, 2.0 MiB (GpuSizeMax= in limits.conf)" c3.err || fail "$(cat c3.err)"
  feed c4 copy "$g" -- --pid "$pid" -o c4.zst --config limits.conf
  expect_rc 0 c4
  [ ! -s c4.err ] || fail "the state tier was cut by 2M: $(cat c4.err)"
  # a file that does not parse: one warning, the default limit, the crash kept
  printf 'HostSizeMax=lots\n' >bad.conf
  feed c5 huge "$h" 64M --random -- --host --pid "$pid" -o c5.zst --config bad.conf
  expect_rc 0 c5; drained c5
  [ "$(cat c5.err)" = "gpucore: warning: bad.conf:1: HostSizeMax= expects a size of at least 4K such as 4G, or infinity; the default size limit applies" ] ||
    fail "$(cat c5.err)"
  [ "$(stat -c %s c5.zst)" -gt $((64 << 20)) ] || fail "c5.zst was cut: $(stat -c %s c5.zst)"
  # a --config that does not exist: the same
  feed c6 copy "$h" -- --host --pid "$pid" -o c6.zst --config none.conf
  expect_rc 0 c6
  [ "$(cat c6.err)" = "gpucore: warning: none.conf: cannot open the configuration file: No such file or directory; the default size limit applies" ] ||
    fail "$(cat c6.err)"
  # infinity, and values that are not limits
  feed c7 huge "$h" 8M --random -- --host --pid "$pid" -o c7.zst --max-size infinity --config limits.conf
  expect_rc 0 c7
  [ ! -s c7.err ] || fail "$(cat c7.err)"
  for v in 4095 0 -1 1Q; do
    feed "bad$v" copy "$h" -- --host --pid "$pid" -o x.zst --max-size "$v"
    expect_rc 64 "bad$v"; drained "bad$v"
    grep -q -- "--max-size takes a size of at least 4K such as 4G, or infinity, got '$v'" "bad$v.err" || fail "$(cat "bad$v.err")"
  done
  [ ! -e x.zst ] || fail "a usage error wrote x.zst"
  ;;
dir-rules)
  mkdir real group others
  chmod 0770 group
  chmod 0777 others
  ln -s real link
  feed link copy "$g" -- --pid "$pid" --dir link --config empty.conf
  refused link "^gpucore: link: cannot open the directory: it is a symlink \(refused\)$"
  feed group copy "$g" -- --pid "$pid" --dir group --config empty.conf
  refused group "^gpucore: group: the directory is writable by its group \(mode 0770\): refused \(chmod 700\)$"
  feed others copy "$g" -- --pid "$pid" --dir others --config empty.conf
  refused others "^gpucore: others: the directory is writable by others \(mode 0777\): refused \(chmod 700\)$"
  [ -z "$(find real group others -mindepth 1)" ] || fail "a refused directory got a file: $(ls -R real group others)"
  # another user's directory, for a user who is not root
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    mkdir roots
    chmod 0755 roots "$work"
    chmod a+r "$g"
    set +e
    python3 "$writer" copy "$g" 2>nobody.werr |
      setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$gpucore" ingest --pid "$pid" --dir roots --config empty.conf >nobody.out 2>nobody.err
    st=("${PIPESTATUS[@]}")
    set -e
    wrc=${st[0]} rc=${st[1]}
    refused nobody "^gpucore: roots: the directory belongs to uid 0, not to you \(uid 65534\): refused$"
    # root in a user's directory (the kernel's handler pairing with the user's GPU half): the
    # store's rule accepts it; the cases below protect what it does there
    mkdir users
    chown 65534:65534 users
    chmod 0700 users
    feed root copy "$g" -- --pid "$pid" --dir users --config empty.conf
    expect_rc 0 root
    [ -f "users/gpucore.$pid.gpu.zst" ] || fail "root did not write into a user's directory"
  fi
  ;;
precreated)
  mkdir d
  echo "the user's" >"d/gpucore.$pid.gpu.zst"
  echo "canary" >canary
  feed p1 copy "$g" -- --pid "$pid" --dir d --config empty.conf
  expect_rc 0 p1; drained p1
  [ "$(cat p1.err)" = "gpucore: warning: d/gpucore.$pid.gpu.zst exists (ingest did not write it): the core is stored as d/gpucore.$pid.gpu.1.zst" ] ||
    fail "$(cat p1.err)"
  gc p1-info info "d/gpucore.$pid.gpu.1.zst"; expect_rc 0 p1-info
  [ "$(cat "d/gpucore.$pid.gpu.zst")" = "the user's" ] || fail "the user's file changed"
  # a symlink to a canary at the next names, a directory after it
  ln -s ../canary "d/gpucore.$pid.gpu.2.zst"
  mkdir "d/gpucore.$pid.gpu.3.zst"
  feed p2 copy "$g" -- --pid "$pid" --dir d --config empty.conf
  expect_rc 0 p2
  grep -q "the core is stored as d/gpucore.$pid.gpu.4.zst$" p2.err || fail "$(cat p2.err)"
  [ "$(cat canary)" = "canary" ] && [ -L "d/gpucore.$pid.gpu.2.zst" ] || fail "the symlink was written through or replaced"
  # all of NAME.1 .. NAME.16 taken: a random name, never a failure
  for i in $(seq 5 16); do : >"d/gpucore.$pid.gpu.$i.zst"; done
  feed p3 copy "$g" -- --pid "$pid" --dir d --config empty.conf
  expect_rc 0 p3
  grep -Eq "the core is stored as d/gpucore\.$pid\.gpu\.[A-Za-z0-9]{8}\.zst$" p3.err || fail "$(cat p3.err)"
  # made while the stream is read (after ingest looked): still no loss
  mkdir e
  set +e
  python3 "$writer" copy "$g" --chunk 65536 --sleep 0.02 2>p4.werr |
    "$gpucore" ingest --pid "$pid" --dir e --config empty.conf >p4.out 2>p4.err &
  bg=$!
  sleep 0.3
  echo "made meanwhile" >"e/gpucore.$pid.gpu.zst"
  wait $bg
  rc=$?
  set -e
  expect_rc 0 p4
  [ "$(cat "e/gpucore.$pid.gpu.zst")" = "made meanwhile" ] || fail "the file made meanwhile was replaced"
  gc p4-info info "e/gpucore.$pid.gpu.1.zst"; expect_rc 0 p4-info
  # nothing hidden is left behind
  [ -z "$(find d e -name '.*' -newer canary)" ] || fail "temporary files left: $(find d e -name '.*')"
  ;;
partner)
  cp "$h" canary.core
  sum=$(md5sum <canary.core)
  for kind in symlink hardlink fifo; do
    mkdir "$kind"
    case $kind in
    symlink) ln -s ../canary.core "$kind/core.$pid.zst"; rule="a symlink, not a regular file: refused" ;;
    hardlink) ln canary.core "$kind/core.$pid.zst"; rule="a file with 2 links \(a hard link may be another user's file\): refused" ;;
    fifo) mkfifo "$kind/core.$pid.zst"; rule="a FIFO, not a regular file: refused" ;;
    esac
    feed "$kind" copy "$g" -- --pid "$pid" --dir "$kind" --foreground-merge --config empty.conf
    expect_rc 77 "$kind"; drained "$kind"
    [ "$(cat "$kind.err")" = "gpucore: $kind/core.$pid.zst: not merged: ${rule//\\/}" ] || fail "$kind: $(cat "$kind.err")"
    [ -f "$kind/gpucore.$pid.gpu.zst" ] || fail "$kind: the GPU half is gone"
    [ ! -e "$kind/gpucore.$pid.zst" ] || fail "$kind: a merged core was made from the canary"
    [ -e "$kind/core.$pid.zst" ] || [ -L "$kind/core.$pid.zst" ] || fail "$kind: the entry was removed"
  done
  [ "$(md5sum <canary.core)" = "$sum" ] || fail "the canary changed"
  # the merge never opened the canary (the kernel's view: strace of a whole run)
  if command -v strace >/dev/null; then
    mkdir traced
    ln -s ../canary.core "traced/core.$pid.zst"
    set +e
    python3 "$writer" copy "$g" 2>traced.werr |
      ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
      strace -f -qq -e trace=open,openat,openat2 -o traced.strace \
        "$gpucore" ingest --pid "$pid" --dir traced --foreground-merge --config empty.conf >traced.out 2>traced.err
    set -e
    ! grep -E "core\.$pid\.zst\"?, [^)]*O_RDONLY" traced.strace | grep -v O_NOFOLLOW | grep -q . ||
      fail "the partner was opened without O_NOFOLLOW: $(grep "core.$pid.zst" traced.strace)"
    ! grep -q "canary" traced.strace || fail "the canary was opened: $(grep canary traced.strace)"
  fi
  ;;
*) fail "unknown case $case" ;;
esac
exit 0
