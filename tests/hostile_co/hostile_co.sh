#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Code objects a target or a core names (tests/hostile_co.cmake):
#
#   capture  a gpucore-inferior whose link map names, by a file:// URI (scenario "uri_path"),
#            (a) a symlink to a root-only 0600 AMDGPU ELF file while the inferior runs as
#            nobody (root only; otherwise that part is skipped with a message), (b) a FIFO,
#            (c) a non-ELF regular file, (d) a device node, (e) a non-ELF file whose name holds
#            an escape sequence (quoted with ? on stderr): the capture finishes (under
#            `timeout`), the file's bytes are not in the core, a warning names the object and
#            the core still names the URI. A control run as root embeds the same symlinked
#            object, so the first check would see a leak.
#   analyze  crafted cores (gpucore-mkhostile-co) whose URIs are file:///etc/shadow, a FIFO, a
#            device node and a host ELF: `analyze` and `info` open none of them (strace) and
#            do not hang on the FIFO; with --code-object-path DIR only a regular AMDGPU ELF
#            file below DIR is used, '..' and symlink escapes are refused. A link map that
#            loops through memory:// URIs, or names the same bytes 4096 times, costs what the
#            core holds (peak RSS under 300 MB), not 1 GiB (1.1 GB).
#
#   hostile_co.sh WORKDIR GPUCORE MKHOSTILE INFERIOR OBJECTS SCENARIOS CASE
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip.

set -euo pipefail

[ $# -eq 7 ] || { echo "usage: $0 WORKDIR GPUCORE MKHOSTILE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 mkhostile=$3 inferior=$4 objects=$5 scenarios=$6 case=$7

test_name=$case
note() { echo "[$case] $*"; }

. "$(cd "$(dirname "$0")" && pwd)/../lib/e2e.sh"
e2e_enter "$work"
chmod 755 "$work"

marker=GPUCORE-HOSTILE-CO-MARKER-7f3a9c
# An AMDGPU code object with the marker appended (still an AMDGPU ELF file).
obj=$objects/trap.gfx1030.co
[ -r "$obj" ] || fail "no scenario object $obj"

# json_get FILE EXPR: evaluate a python expression over the JSON document d.
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

if [ "$case" = capture ]; then
  # scenario NAME PATH: rdna2-illegal with its code object's URI naming PATH.
  scenario() {
    python3 - "$scenarios/rdna2-illegal.json" "$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "hostile-" + sys.argv[2]
d["code_objects"][0]["uri"] = "file"
d["code_objects"][0]["uri_path"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
EOF
  }
  # run NAME PATH [RUNAS...]: start the inferior (as RUNAS), capture it, check; sets $crc.
  run() {
    local name=$1 path=$2; shift 2
    scenario "$name" "$path"
    rm -f "$name.ready"
    : >"$name.ready" && chmod 666 "$name.ready"   # the inferior may run as nobody
    "$@" "$inferior" "$name.json" --objects "$objects" --describe "$name.ready" \
      >"$name.inferior.log" 2>&1 &
    ipid=$!
    for _ in $(seq 1 500); do [ -s "$name.ready" ] && break; sleep 0.01; done
    [ -s "$name.ready" ] || fail "$name: the inferior did not start: $(cat "$name.inferior.log")"
    crc=0
    timeout 60 "$gpucore" capture --kfd sim "$ipid" -o "$name.core" >"$name.out" 2>"$name.err" || crc=$?
    e2e_stop_inferior
    ipid=
    [ "$crc" -ne 124 ] || fail "$name: the capture hung (killed by timeout after 60 s)"
    [ "$crc" -eq 0 ] || fail "$name: capture exited $crc: $(cat "$name.err")"
    "$gpucore" info --json "$name.core" >"$name.info.json" ||
      fail "$name: gpucore info failed on the core"
    [ "$(json_get "$name.info.json" 'd["code_objects"][0]["uri"]')" = "file://$path" ] ||
      fail "$name: the core does not name file://$path"
  }
  # refused NAME WHY: the bytes are not in the core; one warning names the object and why.
  refused() {
    ! grep -qa "$marker" "$1.core" || fail "$1: the file's bytes are in the core"
    [ "$(json_get "$1.info.json" 'd["code_objects"][0]["embedded_bytes"]')" = 0 ] ||
      fail "$1: bytes embedded: $(json_get "$1.info.json" 'd["code_objects"][0]')"
    [ "$(grep -c "code object 0: file://.* not read as the target" "$1.err")" -eq 1 ] ||
      fail "$1: no single warning naming the object: $(cat "$1.err")"
    grep -q "not read as the target: $2" "$1.err" || fail "$1: not refused for '$2': $(cat "$1.err")"
    note "$1: refused ($2), capture exit 0"
  }

  cp "$obj" secret.co && echo "$marker" >>secret.co
  # (a) a symlink to a root-only file, the target running as nobody
  if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    chmod 600 secret.co
    ln -s "$work/secret.co" link.co
    run symlink "$work/link.co" setpriv --reuid=nobody --regid=nogroup --clear-groups
    refused symlink "cannot be opened with the target's credentials (Permission denied)"
    # control: the same link with the target running as root is read and embedded
    run control "$work/link.co"
    grep -qa "$marker" control.core || fail "control: the object readable by the target is not embedded"
    note "control (target root): embedded"
  else
    note "SKIP part (a): not root (a target as nobody and a root-only file need root)"
  fi
  # (b) a FIFO nobody writes: opening it for reading would block forever
  mkfifo fifo
  run fifo "$work/fifo"
  refused fifo "not a regular file"
  # (c) a regular file that is not ELF
  { echo "$marker"; head -c 4096 /dev/zero; } >notelf
  chmod 644 notelf
  run notelf "$work/notelf"
  refused notelf "not an ELF64 little-endian file"
  # (d) a device node
  run device /dev/zero
  refused device "not a regular file"
  # (e) a name holding a terminal's escape sequence and a bell: the warning quotes the URI with
  # '?' in their place; no control byte reaches stderr
  evil=$(printf 'x\033]2;pwn\007y')
  { echo "$marker"; head -c 4096 /dev/zero; } >"$evil"
  chmod 644 "$evil"
  run evil "$work/$evil"
  refused evil "not an ELF64 little-endian file"
  grep -qF "file://$work/x?]2;pwn?y" evil.err || fail "evil: the URI is not quoted: $(cat -v evil.err)"
  if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" evil.err; then
    fail "evil: a control byte on stderr: $(cat -v evil.err)"
  fi
  exit 0
fi

if [ "$case" = analyze ]; then
  command -v strace >/dev/null || skip "strace is not installed"
  cp "$obj" secret.co && echo "$marker" >>secret.co && chmod 600 secret.co
  mkfifo fifo
  hostelf=$(command -v ls)
  uris=("file:///etc/shadow" "file://$work/fifo" "file:///dev/zero" "file://$hostelf"
        "file://$work/secret.co")
  "$mkhostile" named.core uri "${uris[@]}" || fail "gpucore-mkhostile-co failed"

  # By default nothing a core names is opened: strace sees none of the paths, the FIFO
  # does not hang it.
  for cmd in "analyze" "analyze --json" "info" "info --json"; do
    rc=0
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
      timeout 60 strace -f -qq -e trace=%file -o trace.txt "$gpucore" $cmd named.core >out.txt 2>err.txt || rc=$?
    [ "$rc" -ne 124 ] || fail "gpucore $cmd hung on the core naming a FIFO"
    [ "$rc" -eq 0 ] || fail "gpucore $cmd exited $rc: $(cat err.txt)"
    for p in /etc/shadow "$work/fifo" /dev/zero "$hostelf" "$work/secret.co"; do
      ! grep -F "\"$p\"" trace.txt >/dev/null || fail "gpucore $cmd opened $p: $(grep -F "\"$p\"" trace.txt)"
    done
    ! grep -q "$marker" out.txt || fail "gpucore $cmd printed the secret's bytes"
  done
  # The amd-dbgapi library hands URIs to its client and opens none (the core has no agents:
  # dbgapi-dump exits 65 saying so, after listing the code objects).
  rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    timeout 60 strace -f -qq -e trace=%file -o trace.txt "$gpucore" dbgapi-dump named.core >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 124 ] || fail "gpucore dbgapi-dump hung on the core naming a FIFO"
  [ "$rc" -eq 65 ] || fail "gpucore dbgapi-dump exited $rc: $(cat err.txt)"
  for p in /etc/shadow "$work/fifo" /dev/zero "$hostelf" "$work/secret.co"; do
    ! grep -F "\"$p\"" trace.txt >/dev/null || fail "gpucore dbgapi-dump opened $p"
    grep -qF "file://$p" out.txt || fail "gpucore dbgapi-dump does not name file://$p"
  done
  "$gpucore" analyze --json named.core >named.json
  [ "$(json_get named.json '[c["source"] for c in d["code_objects"]]')" = \
    "['missing', 'missing', 'missing', 'missing', 'missing']" ] ||
    fail "default: a code object has bytes: $(json_get named.json 'd["code_objects"]')"
  [ "$(json_get named.json 'sum("file:// URI not opened; use --code-object-path" in p for p in d["problems"])')" = 5 ] ||
    fail "default: the problems do not say the URIs were not opened: $(json_get named.json 'd["problems"]')"
  note "default: 5 file:// URIs named, none opened by analyze, info, dbgapi-dump (strace), FIFO did not hang"

  # --code-object-path DIR: only regular AMDGPU ELF files below DIR.
  mkdir -p root/opt/co
  cp "$obj" root/opt/co/good.co
  cp "$obj" outside.co
  ln -s "$work/outside.co" root/opt/co/abs-link.co     # absolute: resolved inside DIR
  ln -s ../../../outside.co root/opt/co/rel-link.co     # '..' past DIR's top: stays in DIR
  ln -s /opt/co/good.co root/opt/co/inside-link.co      # absolute, inside DIR: fine
  mkfifo root/opt/co/fifo.co
  cp "$hostelf" root/opt/co/host.elf
  echo "not an ELF" >root/opt/co/text.co
  dev=0
  if [ "$(id -u)" -eq 0 ]; then mknod root/opt/co/null.co c 1 3 && dev=1; fi
  uris=("file:///opt/co/good.co" "file:///opt/co/abs-link.co" "file:///opt/co/rel-link.co"
        "file:///../outside.co" "file:///opt/co/inside-link.co" "file:///opt/co/fifo.co"
        "file:///opt/co/host.elf" "file:///opt/co/text.co" "file:///etc/shadow"
        "file:///opt/co/good.co#offset=0&size=64")
  want="['file', 'missing', 'missing', 'missing', 'file', 'missing', 'missing', 'missing', 'missing', 'file']"
  if [ "$dev" = 1 ]; then uris+=("file:///opt/co/null.co"); want="${want%]}, 'missing']"; fi
  "$mkhostile" dir.core uri "${uris[@]}" || fail "gpucore-mkhostile-co failed"
  rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 strace -f -qq -e trace=%file \
    -o trace.txt "$gpucore" analyze --json --code-object-path root dir.core >dir.json 2>err.txt || rc=$?
  [ "$rc" -ne 124 ] || fail "--code-object-path: hung on a FIFO below DIR"
  [ "$rc" -eq 0 ] || fail "--code-object-path: exited $rc: $(cat err.txt)"
  got=$(json_get dir.json '[c["source"] for c in d["code_objects"]]')
  [ "$got" = "$want" ] || fail "--code-object-path: sources $got, expected $want: $(json_get dir.json 'd["problems"]')"
  [ "$(json_get dir.json 'd["code_objects"][0]["size"]')" = "$(stat -c %s "$obj")" ] ||
    fail "--code-object-path: good.co's size is not the file's"
  ! grep -F "outside.co\"" trace.txt | grep -v "^[0-9]* *openat2(" >/dev/null ||
    fail "--code-object-path: outside.co was opened: $(grep -F outside.co trace.txt)"
  for p in fifo.co null.co; do
    ! grep -E "open(at)?\(.*$p\", O_RDONLY" trace.txt >/dev/null ||
      fail "--code-object-path: $p was opened for reading: $(grep "$p" trace.txt)"
  done
  for why in "not found below --code-object-path" "not a regular file" \
             "not an AMDGPU ELF64 code object"; do
    [ "$(json_get dir.json "sum('$why' in p for p in d['problems'])")" -ge 1 ] ||
      fail "--code-object-path: no problem says '$why': $(json_get dir.json 'd["problems"]')"
  done
  note "--code-object-path: good and inside-link used; escapes, FIFO, device, host ELF, text refused"
  rc=0
  "$gpucore" analyze --code-object-path "$work/no-such-dir" named.core >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 66 ] && grep -q "code-object-path" err.txt ||
    fail "--code-object-path with no directory: exit $rc, $(cat err.txt)"

  # A link map that loops through a memory:// URI, and 4096 nodes naming the same 256 KiB:
  # the analyzer's memory stays what the core holds (the old one copied 1 GiB, 1.1 GB peak
  # RSS). The peak is the kernel's (getrusage of the child), compared with 300 MB.
  "$mkhostile" loop.core loop $((256 << 10)) || fail "gpucore-mkhostile-co loop failed"
  "$mkhostile" many.core many 4096 $((256 << 10)) || fail "gpucore-mkhostile-co many failed"
  for c in loop many; do
    peak=$(python3 -c '
import resource, subprocess, sys
with open(sys.argv[2] + ".json", "w") as out, open("err.txt", "w") as err:
    rc = subprocess.call([sys.argv[1], "analyze", "--json", sys.argv[2] + ".core"],
                         stdout=out, stderr=err, timeout=60)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$gpucore" $c) ||
      fail "$c: could not run analyze"
    [ "${peak% *}" -eq 0 ] || fail "$c: analyze exited ${peak% *}: $(cat err.txt)"
    [ "${peak#* }" -lt 300 ] || fail "$c: analyze peaked at ${peak#* } MB RSS (limit 300)"
    note "$c: exit 0, peak ${peak#* } MB RSS"
  done
  [ "$(json_get loop.json 'len(d["code_objects"])')" = 1 ] ||
    fail "loop: $(json_get loop.json 'len(d["code_objects"])') code objects, expected 1"
  [ "$(json_get loop.json 'sum("loops" in p for p in d["problems"])')" = 1 ] ||
    fail "loop: no problem says the link map loops: $(json_get loop.json 'd["problems"]')"
  copies=$(json_get many.json 'sum(c["source"] == "memory" for c in d["code_objects"])')
  [ "$copies" -ge 1 ] && [ $((copies * (256 << 10))) -le "$(stat -c %s many.core)" ] ||
    fail "many: $copies copies of 256 KiB from a core of $(stat -c %s many.core) bytes"
  [ "$(json_get many.json 'sum("what the core holds" in p for p in d["problems"])')" = $((4096 - copies)) ] ||
    fail "many: the other $((4096 - copies)) are not reported as over the budget"
  note "loop: 1 node, cycle reported; many: $copies copies of 256 KiB (what the core holds), $((4096 - copies)) refused"
  exit 0
fi

fail "unknown case $case"
