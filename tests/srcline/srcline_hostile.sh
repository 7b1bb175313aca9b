#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpucore analyze on cores whose code object has hostile DWARF (tests/srcline.cmake; the code
# objects are tests/tools/hostile_dwarf.h's, over vadd, captured by mkcore_dwarf.sh):
#
#   srcline_hostile.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS MKDWARF CASE
#
# shared   65,536 lexical blocks sharing one range list of 65,536 entries (the issue's case:
#          100 s): analyze and analyze waves finish under a 20 s CPU limit (prlimit; they take
#          well under one), and every PC's chain is vadd, which the DWARF describes.
# suffix   65,536 blocks naming every suffix of one list (nothing to share): the walk budget
#          refuses the lookups; analyze finishes under the same limit, every chain null, and
#          the report says why ("source_error", and the text's "no source line" line).
# altlink  a .gnu_debugaltlink naming a FIFO and vadd's name in the supplementary file:
#          analyze (under strace) never opens the FIFO, and names vadd from the object itself.
# zlib     .debug_info compressed, declaring 1 GiB in 1 MB: refused before it is inflated;
#          analyze's peak RSS stays under 512 MiB (it was 1 GiB more), the chains are null
#          and the code object says why its lines are not used.
#
# Exit codes: 0 pass, 1 fail, 77 skip (no ptrace rights; altlink: no strace).
set -euo pipefail

[ $# -eq 7 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS MKDWARF CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 mkdwarf=$6 kase=$7
here=$(cd "$(dirname "$0")" && pwd)
test_name=srcline-hostile-$kase

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

# make_core CASE N [ALT]: the core, in dwarf.core.
make_core() {
  local rc=0
  "$here/mkcore_dwarf.sh" "$gpucore" "$inferior" "$objects" "$scenarios" "$mkdwarf" "$PWD" "$@" \
    >mkcore.out 2>&1 || rc=$?
  [ "$rc" -ne 77 ] || skip "$(cat mkcore.out)"
  [ "$rc" -eq 0 ] || fail "no core: $(cat mkcore.out)"
}

# bounded NAME ARGS...: gpucore ARGS under a 20 s CPU limit; fails unless it exits 0.
bounded() {
  local name=$1
  shift
  rc=0
  prlimit --cpu=20 -- "$gpucore" "$@" >"$name.out" 2>"$name.err" || rc=$?
  [ "$rc" -ne 152 ] || fail "$name: killed at the 20 s CPU limit (SIGXCPU)"
  expect_rc 0 "$name"
}

# chains REPORT WAVES WANT [WHY]: every group's and wave's "inlined" is WANT ("vadd" or
# "null"), and its "source_error" WHY (null when not given).
chains() {
  python3 - "$1" "$2" "$3" "${4:-}" <<'PY' || fail "the chains (above)"
import json, sys
r, w, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
why = sys.argv[4] or None
xs = [g for a in r["agents"] for q in a["queues"] for g in q["groups"]] + w["waves"]
assert xs, "no group and no wave"
for x in xs:
    got = None if x["inlined"] is None else [f["function"] for f in x["inlined"]]
    assert got == (None if want == "null" else [want]), (x["pc"], x["inlined"])
    assert x["source"] is None, (x["pc"], x["source"])  # no line table in this DWARF
    assert x["source_error"] == why, (x["pc"], x["source_error"])
PY
}

case $kase in
  shared|suffix)
    make_core "$([ "$kase" = shared ] && echo shared-rnglistx || echo suffix-rnglists)" 65536
    bounded report analyze --json dwarf.core
    bounded waves analyze waves --json dwarf.core
    if [ "$kase" = shared ]; then
      chains report.out waves.out vadd
    else
      chains report.out waves.out null "DWARF walk budget exhausted"
      bounded text analyze dwarf.core
      grep -q "(no source line: DWARF walk budget exhausted)" text.out ||
        fail "the text report does not say why there is no line: $(cat text.out)"
    fi
    ;;
  altlink)
    command -v strace >/dev/null || skip "strace is not installed"
    mkfifo alt.fifo
    make_core altlink 1 "$PWD/alt.fifo"
    rc=0
    # LeakSanitizer cannot run under ptrace (the sanitizer build): leaks are checked elsewhere.
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 \
      strace -f -qq -e trace=%file -o trace.txt "$gpucore" analyze --json dwarf.core \
      >report.out 2>report.err || rc=$?
    [ "$rc" -ne 124 ] || fail "analyze hung (killed by timeout after 60 s): the FIFO was opened"
    expect_rc 0 report
    if grep -q 'alt\.fifo' trace.txt; then fail "the FIFO was opened: $(grep 'alt\.fifo' trace.txt)"; fi
    bounded waves analyze waves --json dwarf.core
    chains report.out waves.out vadd
    ;;
  zlib)
    make_core zlib-bomb 1024
    python3 - "$gpucore" <<'PY' || fail "analyze of the compressed-DWARF bomb (above)"
import resource, subprocess, sys
with open("report.out", "w") as out, open("report.err", "w") as err:
    rc = subprocess.run([sys.argv[1], "analyze", "--json", "dwarf.core"], stdout=out, stderr=err).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB
assert rc == 0, "exit %d: %s" % (rc, open("report.err").read())
assert peak < 512 * 1024, "peak RSS %d KiB" % peak
PY
    gc waves analyze waves --json dwarf.core; expect_rc 0 waves
    why="compressed DWARF sections declare more than 16 times the code object's size"
    chains report.out waves.out null "$why"
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["code_objects"][0]["line_info_text"]; assert t and t.endswith("not used: " + sys.argv[2]), t' \
      report.out "$why" ||
      fail "the code object does not say why its lines are not used"
    ;;
  *) fail "unknown case $kase" ;;
esac
exit 0
