#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of --redact and --no-host-memory (docs/privacy.md) on the simulated GPU
# (tests/privacy.cmake).
#
#   privacy_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# The scenario privacy-secret.json puts a 16-byte marker in both GPU buffers, in the kernel's
# arguments that are not pointers, and in a 64 KiB heap buffer of the process. Every capture
# starts its own inferior (so each one sees the GPU error afresh); the whole core file is
# searched for the marker and for each of its 8-byte halves. Each case also captures without
# the option and finds the marker there, so a test that searched the wrong file, or a
# scenario that lost its secret, fails.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="privacy $case"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

scen=$scenarios/privacy-secret.json
marker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["secret"]["marker"])' "$scen")

# hits FILE: occurrences of the marker and of either 8-byte half in FILE ("FULL HALVES").
hits() {
  python3 - "$marker" "$1" <<'EOF'
import sys
m = bytes.fromhex(sys.argv[1])
d = open(sys.argv[2], "rb").read()
print(d.count(m), d.count(m[:8]) + d.count(m[8:]))
EOF
}

# no_secret FILE: not one byte sequence of the marker's halves in FILE.
no_secret() {
  local h; h=$(hits "$1")
  [ "$h" = "0 0" ] || fail "$1 holds the secret (full, halves: $h)"
}

# capture_fresh CORE [OPTIONS...]: capture a fresh inferior of the scenario on demand.
capture_fresh() {
  local core=$1
  shift
  e2e_capture_scenario "$scen" "$core" "$@"
}

# analysis CORE OUT: what must not change with --redact, from `gpucore analyze --json`: the
# signature, the wave counts, and per faulting group its kernel, waves, stop reasons, symbol,
# offset, instruction, source line and inline chain (addresses are left out: each inferior
# maps its memory elsewhere).
analysis() {
  gc analyze analyze --json "$1"
  expect_rc 0 analyze
  python3 - analyze.out >"$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keep = ("kernel", "count", "faulting", "stopped", "stop_reasons", "symbol", "offset",
        "instruction", "source", "inlined", "waves")
print(json.dumps({
    "signature": d["signature"],
    "waves": d["waves"], "stopped": d["stopped_waves"], "faulting": d["faulting_waves"],
    "faults": [{k: f.get(k) for k in keep} for f in d["faults"]],
}, indent=1, sort_keys=True))
EOF
}

# args CORE OUT: the kernel arguments of the first dispatch of the first faulting group:
# "name value value_error" per line.
args() {
  gc analyze analyze --json "$1"
  expect_rc 0 analyze
  python3 - analyze.out >"$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def dispatches(o):
    if isinstance(o, dict):
        if isinstance(o.get("arguments"), list):
            yield o
        for v in o.values():
            yield from dispatches(v)
    elif isinstance(o, list):
        for v in o:
            yield from dispatches(v)
for disp in dispatches(d):
    for a in disp["arguments"]:
        print(a["name"], "ptr" if a["value"] and a["value"].startswith("0x7") else a["value"],
              a["value_error"])
    break
EOF
}

info_json() { # CORE: gpucore info --json into info.json
  gc info info --json "$1"
  expect_rc 0 info
  cp info.out info.json
}

json() { # EXPR over info.json as d
  python3 -c "import json; d=json.load(open('info.json')); print($1)"
}

case "$case" in
redact)
  # Without --redact every place holds the secret: buffers (all tier), heap, kernel arguments.
  capture_fresh plain/core --tier all
  read -r full _ < <(hits plain/core)
  [ "$full" -ge $((3 * 65536 / 16)) ] ||
    fail "the unredacted core holds the marker $full times, expected both buffers and the heap"
  capture_fresh state/core --tier state
  read -r full _ < <(hits state/core)
  [ "$full" -ge $((65536 / 16 + 1)) ] ||
    fail "the unredacted state-tier core holds the marker $full times, expected the heap and the kernel arguments"
  # With it, none of it, and the same post-mortem.
  capture_fresh red/core --tier all --redact
  no_secret red/core
  grep -q "^gpucore: red/core: .*, redacted [0-9.]* [KM]iB, " cap.err ||
    fail "the summary does not say what was withheld: $(cat cap.err)"
  analysis plain/core plain.analysis
  analysis red/core red.analysis
  diff -u plain.analysis red.analysis >analysis.diff ||
    fail "the redacted core's analysis differs: $(cat analysis.diff)"
  grep -q '"faulting": 4' red.analysis || fail "no faulting waves: $(cat red.analysis)"
  # The manifest says so; info and analyze tell it.
  info_json red/core
  [ "$(json "d['manifest']['redacted']")" = True ] || fail "manifest not marked redacted"
  [ "$(json "d['manifest']['redacted_ranges'] > 0")" = True ] || fail "no redacted ranges"
  [ "$(json "sorted({e['tier'] for e in d['manifest']['entries'] if e['reason'] == 'redacted'})")" = \
    "['all', 'host', 'referenced', 'state']" ] ||
    fail "redacted tiers: $(json "sorted({e['tier'] for e in d['manifest']['entries'] if e['reason'] == 'redacted'})")"
  gc info-text info red/core
  grep -q "^Redacted:    yes, [0-9]* ranges" info-text.out || fail "info says: $(cat info-text.out)"
  gc analyze-text analyze red/core
  grep -q "the core is redacted (--redact)" analyze-text.out || fail "analyze does not say redacted"
  grep -Eq "#0 +0x[0-9a-f]+ in libc\.so\.6\+0x" analyze-text.out ||
    fail "the host stacks are not readable: $(sed -n '/^Host/,$p' analyze-text.out)"
  grep -q "c (global float\*) = redacted (withheld by --redact)" analyze-text.out ||
    fail "argument c is not shown redacted: $(grep -A6 'arguments' analyze-text.out)"
  # Pointers stay; the values that are not are withheld, and shown as such.
  args plain/core plain.args
  args red/core red.args
  printf 'a ptr None\nb ptr None\nc None redacted\nn None redacted\n' >want.args
  diff -u want.args red.args >args.diff || fail "redacted arguments: $(cat args.diff)"
  grep -q "^n -1481621860 None$" plain.args || fail "unredacted arguments: $(cat plain.args)"
  ;;
compress)
  # A compressed redacted core, as written and decompressed.
  capture_fresh plain/core --tier all --compress
  gc dec decompress plain/core plain.dec
  expect_rc 0 dec
  read -r full _ < <(hits plain.dec)
  [ "$full" -gt 0 ] || fail "the decompressed unredacted core lacks the marker"
  capture_fresh red/core --tier all --compress --redact
  no_secret red/core
  gc dec decompress red/core red.dec
  expect_rc 0 dec
  no_secret red.dec
  info_json red.dec
  [ "$(json "d['manifest']['redacted']")" = True ] || fail "decompressed manifest not redacted"
  ;;
run)
  # gpucore run --redact: the core written at the GPU error.
  for mode in plain red; do
    rc=0
    opt=; [ $mode = red ] && opt=--redact
    mkdir -p $mode
    "$gpucore" run --kfd sim --tier all $opt -o $mode/core -- "$inferior" "$scen" \
        --objects "$objects" >run.out 2>run.err || rc=$?
    [ "$rc" -ne 77 ] || skip "$(cat run.err)"
    [ "$rc" -eq 134 ] || fail "gpucore run $opt exited $rc, expected 134: $(cat run.err)"
  done
  read -r full _ < <(hits plain/core)
  [ "$full" -gt 0 ] || fail "the unredacted core of run lacks the marker"
  no_secret red/core
  analysis plain/core plain.analysis
  analysis red/core red.analysis
  diff -u plain.analysis red.analysis >analysis.diff ||
    fail "the redacted core's analysis differs: $(cat analysis.diff)"
  ;;
cmdline)
  # The command's arguments and environment are user data: with --redact neither the
  # metadata nor psinfo holds the arguments, and the strings at the top of the main stack
  # (argv, then the whole environment) are withheld; argv[0] stays. (A copy the program made
  # in its own locals is stack memory, which --redact keeps: docs/privacy.md.)
  e2e_continue_copy "$scen" argsecret-7f3a9c.json
  export GPUCORE_PRIVACY_ENV=envsecret-4b81e2
  for mode in plain red; do
    opt=; [ $mode = red ] && opt=--redact
    e2e_start_inferior argsecret-7f3a9c.json
    mkdir -p $mode
    gc cap capture --kfd sim "$ipid" --tier state $opt -o $mode/core
    expect_rc 0 cap
    e2e_stop_inferior
  done
  unset GPUCORE_PRIVACY_ENV
  for s in argsecret-7f3a9c envsecret-4b81e2; do
    grep -qa "$s" plain/core || fail "the unredacted core lacks '$s'"
  done
  ! grep -qa envsecret-4b81e2 red/core || fail "the redacted core holds the environment"
  info_json red/core
  [ "$(json "d['capture']['cmdline']")" = "['$inferior']" ] ||
    fail "command line: $(json "d['capture']['cmdline']")"
  # psinfo's pr_psargs (80 bytes at offset 56 of NT_PRPSINFO): argv[0] alone
  python3 - red/core "$inferior" <<'PY' || fail "NT_PRPSINFO holds more than argv[0]"
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, phentsize, phnum = struct.unpack_from("<Q", d, 32)[0], *struct.unpack_from("<HH", d, 54)
for i in range(phnum):
    p_type, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", d, phoff + i * phentsize)
    if p_type != 4:
        continue
    o = off
    while o < off + filesz:
        namesz, descsz, ntype = struct.unpack_from("<III", d, o)
        name = d[o + 12:o + 12 + namesz].rstrip(b"\0")
        desc = o + 12 + ((namesz + 3) & ~3)
        if name == b"CORE" and ntype == 3:
            psargs = d[desc + 56:desc + 136].split(b"\0")[0].decode()
            sys.exit(0 if psargs == sys.argv[2] else 1)
        o = desc + ((descsz + 3) & ~3)
sys.exit(1)
PY
  # near the top of the main stack, above the frames kept, the argument and environment
  # strings are withheld (what follows them, the executable's path for AT_EXECFN, stays)
  stack="[(e['status'], e['reason'], e['size']) for e in d['manifest']['entries'] if e['label'] == '[stack]']"
  [ "$(json "any(a[0] == 'captured' and b[1] == 'redacted' and b[2] >= 64 for a, b in zip($stack, $stack[1:]))")" = True ] ||
    fail "the argument and environment strings are not withheld: $(json "$stack")"
  ;;
no-host-memory)
  # Host notes and thread stacks only (with the file headers and the dynamic linker's chain
  # that make them readable): the heap buffer is gone, the stacks are named.
  capture_fresh plain/core --tier state
  read -r full _ < <(hits plain/core)
  [ "$full" -gt $((65536 / 16)) ] || fail "the state-tier core lacks the heap's marker ($full)"
  capture_fresh nohost/core --tier state --no-host-memory
  read -r full _ < <(hits nohost/core)
  [ "$full" -lt $((65536 / 16)) ] || fail "--no-host-memory kept the heap ($full markers)"
  info_json nohost/core
  [ "$(json "d['manifest']['no_host_memory']")" = True ] || fail "manifest not marked"
  [ "$(json "len([e for e in d['manifest']['entries'] if e['tier'] == 'host' and e['status'] == 'captured'])")" -gt 0 ] ||
    fail "no host memory at all: the stacks are missing"
  # Of the heap, at most the dynamic linker's own structures (link_map nodes, names).
  bad=$(json "[(e['address'], e['size']) for e in d['manifest']['entries'] if e['tier'] == 'host' and e['status'] == 'captured' and e['label'] == '[heap]' and e['size'] > 512]")
  [ "$bad" = "[]" ] || fail "heap memory captured: $bad"
  [ "$(json "len([n for n in d['notes'] if n['owner'] == 'CORE'])")" -ge 4 ] || fail "host notes missing"
  gc analyze-text analyze nohost/core
  expect_rc 0 analyze-text
  grep -q "host memory other than thread stacks was left out (--no-host-memory)" analyze-text.out ||
    fail "analyze does not say so"
  # The stacks stay readable: each frame #0 is named by its module.
  grep -Eq "#0 +0x[0-9a-f]+ in libc\.so\.6\+0x" analyze-text.out ||
    fail "no host backtrace: $(sed -n '/^Host/,$p' analyze-text.out)"
  ;;
usage)
  # The options belong to capture, run and watch alike and take no value.
  for cmd in capture run watch; do
    gc h $cmd --help
    grep -q -- "--redact" h.out || fail "$cmd --help does not list --redact"
    grep -q -- "--no-host-memory" h.out || fail "$cmd --help does not list --no-host-memory"
  done
  gc bad capture --redact=yes 1
  expect_rc 64 bad
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
exit 0
