#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of what `gpucore ingest --tier state` keeps of the context-save areas
# (tests/ingest_trim.cmake): the used parts of each XCC area only, decided from its header as
# it streams past, and the whole area on any doubt.
#
#   ingest_trim_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# Each case captures a scenario with --tier all, splits it as the runtime and the kernel would
# (tests/analyze/make_rocr_split.py) and reshapes the GPU half into one PT_LOAD per mapping, as
# the runtime writes it (tests/merge/ingest_trim.py runtime), so each save area streams whole.
#
# CASE:
#   used     vadd-fault: --tier state keeps the header, the used control stack and the used
#            wave area of the save area, and records the rest as skipped, exactly the ranges
#            ingest_trim.py computes from the header; the core explains itself as the --tier all
#            one does (report, waves, registers), alone and merged with the host half.
#   xcc      mi300-xcc (two XCCs per queue): the same for both XCC areas; then with the PT_LOAD
#            split inside the header of XCC 1: XCC 1 kept whole with a warning, XCC 0 trimmed.
#   multi    multi-gpu-hang (two GPUs, three queues, 10,000 waves): every area trimmed, the
#            waves the same; then with queue 1's area moved onto queue 0's (a hostile note):
#            both kept whole with a warning each, queue 2's trimmed.
#   hostile  vadd-fault with hostile headers (sizes past the area, a wave area overlapping the
#            control stack, wave_state_size above wave_state_offset, all ones), a header
#            straddling two PT_LOADs, a stream cut inside the header, a target gpucore does
#            not know, an area size that is not the target's: each kept whole (or cut short),
#            exit 0, the warning checked, never a crash.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=ingest-trim-$case
writer="$here/stream_writer.py"
trim="$here/ingest_trim.py"
label="unused part of a context-save area (gpucore ingest)"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

case $case in
used | hostile) scen=vadd-fault ;;
xcc) scen=mi300-xcc ;;
multi) scen=multi-gpu-hang ;;
*) fail "unknown case $case" ;;
esac

e2e_rocr_split "$scenarios/$scen.json" --tier all
mv "gpucore.$pid" split.gpu
python3 "$trim" runtime split.gpu "gpucore.$pid" || fail "ingest_trim.py runtime failed"
g=gpucore.$pid h=core.$pid
python3 "$trim" areas "$g" info-json.out >areas.json || fail "ingest_trim.py areas failed"
rm -f out/core split.gpu

# ingest NAME FILE TIER [WRITER-ARGS...]: stream FILE into `gpucore ingest --tier TIER`, plain
# output NAME.core; ingest's status in $rc, its stderr in NAME.err, the writer's in $wrc.
ingest() {
  local name=$1 file=$2 tier=$3
  shift 3
  set +e
  python3 "$writer" copy "$file" "$@" 2>"$name.werr" |
    "$gpucore" ingest -o "$name.core" --pid "$pid" --tier "$tier" --no-compress \
      >"$name.out" 2>"$name.err"
  local st=("${PIPESTATUS[@]}")
  set -e
  wrc=${st[0]} rc=${st[1]}
}

# same_analysis A B: the reports, the wave lists and the registers of a sample of waves (every
# faulting one, the last, 32 spread over the others) of two cores agree, but for what says which core, when and
# with which options it was made, and (in the report) what was not captured.
same_analysis() {
  local a=$1 b=$2 n
  gc ra analyze --json "$a"; expect_rc 0 ra
  gc rb analyze --json "$b"; expect_rc 0 rb
  gc wa analyze waves --json "$a"; expect_rc 0 wa
  gc wb analyze waves --json "$b"; expect_rc 0 wb
  python3 - ra.out rb.out wa.out wb.out <<'PY' >sample.txt || fail "$a and $b explain themselves differently (see above)"
import json, sys
ra, rb, wa, wb = (json.load(open(f)) for f in sys.argv[1:5])
for d in (ra, rb):
    d.pop("core")
    for k in ("time", "time_ns", "options", "compress_level", "tier"):
        d["capture"].pop(k, None)
    d.pop("not_captured")
    d["summary"] = [s for s in d["summary"] if not s.startswith("Not captured:")]
for k in sorted(set(ra) | set(rb)):
    if ra.get(k) != rb.get(k):
        print("report %s: %.300s | %.300s" % (k, ra.get(k), rb.get(k)), file=sys.stderr)
        sys.exit(1)
# (a GPU half alone has no signature: its code objects are in the host half)
assert ra["waves"] == wa["count"] > 0, (ra["signature"], ra["waves"])
wa.pop("core"); wb.pop("core")
if wa != wb:
    print("the wave lists differ", file=sys.stderr)
    sys.exit(1)
n = wa["count"]
step = max(1, n // 8)
print(" ".join(str(w["index"]) for w in wa["waves"]
               if w["faulting"] or w["index"] % step == 0 or w["index"] == n - 1))
PY
  # Every sampled wave's registers from both cores, then one comparison of them all (a
  # python3 start per wave was a third of this test's time).
  for n in $(cat sample.txt); do
    gc "ga-$n" analyze regs --wave "$n" --json "$a"; expect_rc 0 "ga-$n"
    gc "gb-$n" analyze regs --wave "$n" --json "$b"; expect_rc 0 "gb-$n"
  done
  python3 - $(cat sample.txt) <<'PY' || fail "a wave has other registers in $a than in $b (above)"
import json, sys
for n in sys.argv[1:]:
    a, b = (json.load(open("g%s-%s.out" % (c, n))) for c in "ab")
    a.pop("core"); b.pop("core")
    if a != b:
        sys.exit("wave %s: the registers differ" % n)
PY
  rm -f ga-*.out ga-*.err gb-*.out gb-*.err
}

# trimmed CORE-INFO [SKIP-INDEX...]: the manifest of CORE-INFO (`gpucore info --json`) records
# as skipped with the label exactly the unused parts areas.json computes for each area but the
# ones listed (by index), keeps every byte of those whole, and keeps the used parts.
trimmed() {
  python3 - "$1" areas.json "$label" "${@:2}" <<'PY' || fail "the manifest does not keep exactly the used parts (see above)"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
areas, label = json.load(open(sys.argv[2])), sys.argv[3]
whole = {int(i) for i in sys.argv[4:]}
got = sorted((int(e["address"], 16), e["size"]) for e in m["entries"]
             if e["status"] == "skipped" and e["label"] == label)
want = sorted((u[0], u[1]) for i, a in enumerate(areas) if i not in whole for u in a["unused"])
assert got == want, ("skipped", got, "expected", want)
for e in m["entries"]:
    if e["status"] == "skipped" and e["label"] == label:
        assert e["reason"] == "tier", e
captured = sorted((int(e["address"], 16), e["size"]) for e in m["entries"] if e["status"] == "captured")
def covered(lo, size):
    # [lo, lo + size) lies in the captured ranges, which may touch
    end = lo + size
    for a, s in captured:
        if a <= lo < a + s:
            lo = a + s
            if lo >= end:
                return True
    return lo >= end
for i, a in enumerate(areas):
    if i in whole:
        assert covered(a["lo"], a["size"]), ("area %d not kept whole" % i, a["lo"])
    else:
        h = a["header"]
        assert covered(a["lo"], 40), ("header", i)
        assert covered(a["lo"] + h["cso"], h["wso"] - h["cso"]), ("used parts", i)
print("areas: %d, unused bytes skipped: %d" % (len(areas), sum(s for _, s in got)))
PY
}

# kept_bytes CORE-INFO: the bytes a core's manifest says it captured.
kept_bytes() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"]["captured_bytes"])' "$1"
}

case $case in
used | xcc | multi)
  ingest state "$g" state; expect_rc 0 state
  [ ! -s state.err ] || fail "warnings for a sound stream: $(cat state.err)"
  ingest all "$g" all; expect_rc 0 all
  gc state-info info --json state.core; expect_rc 0 state-info
  gc all-info info --json all.core; expect_rc 0 all-info
  trimmed state-info.out
  # smaller by exactly the unused bytes of the save areas (--tier all keeps them)
  unused=$(python3 -c 'import json,sys; print(sum(a["unused_bytes"] for a in json.load(open(sys.argv[1]))))' areas.json)
  ks=$(kept_bytes state-info.out) ka=$(kept_bytes all-info.out)
  [ "$unused" -gt 0 ] || fail "no unused save-area bytes in $scen: nothing to test"
  python3 - all-info.out state-info.out "$unused" "$label" <<'PY' || fail "--tier state kept other bytes than --tier all less the unused parts (see above)"
import json, sys
a, s = (json.load(open(f))["manifest"] for f in sys.argv[1:3])
unused, label = int(sys.argv[3]), sys.argv[4]
# what state drops besides the unused parts: large buffers not named by the note ("tier")
other = sum(e["size"] for e in s["entries"] if e["status"] == "skipped" and e["label"] != label)
assert s["captured_bytes"] == a["captured_bytes"] - unused - other, (s["captured_bytes"], a["captured_bytes"], unused, other)
PY
  echo "$scen: --tier all keeps $ka bytes, --tier state $ks (unused save-area bytes: $unused)"
  same_analysis state.core all.core
  if [ "$case" != multi ]; then
    # merged with the host half too (a state half has no host memory to lose)
    gc ms merge -q state.core "$h" -o merged-state.core; expect_rc 0 ms
    gc ma merge -q all.core "$h" -o merged-all.core; expect_rc 0 ma
    same_analysis merged-state.core merged-all.core
  fi
  if [ "$case" = xcc ]; then
    # The PT_LOAD split 20 bytes into XCC 1's header: the header straddles two segments.
    lo1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[1]["lo"])' areas.json)
    python3 "$trim" split "$g" straddle.gpu $((lo1 + 20))
    ingest straddle straddle.gpu state; expect_rc 0 straddle
    grep -q "^gpucore: warning: stdin: queue 3, XCC 1: the context-save area at $(printf 0x%x "$lo1") is kept whole: its header runs past the end of the PT_LOAD at 0x[0-9a-f]* (stream offset 0x[0-9a-f]*)$" straddle.err ||
      fail "no warning for a header straddling two PT_LOADs: $(cat straddle.err)"
    [ "$(wc -l <straddle.err)" -eq 1 ] || fail "more warnings than one: $(cat straddle.err)"
    gc straddle-info info --json straddle.core; expect_rc 0 straddle-info
    trimmed straddle-info.out 1
    same_analysis straddle.core all.core
    rm -f straddle.gpu straddle.core
  fi
  if [ "$case" = multi ]; then
    # Queue 1's area said to begin 4 KiB into queue 0's: no layout says whose bytes are whose.
    lo0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["lo"])' areas.json)
    python3 "$trim" note "$g" overlap.gpu queue 1 32 8 $((lo0 + 4096))
    ingest overlap overlap.gpu state; expect_rc 0 overlap
    rm -f overlap.gpu
    for q in "0, XCC 0: the context-save area at $(printf 0x%x "$lo0")" \
             "1, XCC 0: the context-save area at $(printf 0x%x $((lo0 + 4096)))"; do
      grep -qxF "gpucore: warning: stdin: queue $q overlaps another queue's; kept whole" overlap.err ||
        fail "no warning for the overlapping areas (queue $q): $(cat overlap.err)"
    done
    [ "$(wc -l <overlap.err)" -eq 2 ] || fail "other warnings than two: $(cat overlap.err)"
    gc overlap-info info --json overlap.core; expect_rc 0 overlap-info
    python3 - overlap-info.out areas.json "$label" <<'PY' || fail "overlapping areas: not kept whole, or the other queue's not trimmed (see above)"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
areas, label = json.load(open(sys.argv[2])), sys.argv[3]
got = sorted((int(e["address"], 16), e["size"]) for e in m["entries"]
             if e["status"] == "skipped" and e["label"] == label)
assert got == sorted(tuple(u) for u in areas[2]["unused"]), (got, areas[2]["unused"])
a0 = areas[0]
assert any(e["status"] == "captured" and int(e["address"], 16) <= a0["lo"] and
           int(e["address"], 16) + e["size"] >= a0["lo"] + a0["size"] for e in m["entries"]), a0
PY
    gc overlap-analyze analyze --json overlap.core; expect_rc 0 overlap-analyze
  fi
  ;;
hostile)
  lo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["lo"])' areas.json)
  size=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["size"])' areas.json)
  ingest all "$g" all; expect_rc 0 all
  at=$(printf 0x%x "$lo")
  # NAME PATCH... | EXPECTED REASON
  while IFS='|' read -r name patch why; do
    # shellcheck disable=SC2086 # PATCH is a list of FIELD=VALUE words
    python3 "$trim" patch "$g" "$name.gpu" "$lo" $patch
    ingest "$name" "$name.gpu" state; expect_rc 0 "$name"
    grep -qF "gpucore: warning: stdin: queue 0, XCC 0: the context-save area at $at is kept whole: its header (stream offset " "$name.err" &&
      grep -qF ") is inconsistent: $why (control stack " "$name.err" ||
      fail "$name: not the warning expected ($why): $(cat "$name.err")"
    [ "$(wc -l <"$name.err")" -eq 1 ] || fail "$name: more warnings than one: $(cat "$name.err")"
    gc "$name-info" info --json "$name.core"; expect_rc 0 "$name-info"
    trimmed "$name-info.out" 0
    # the core still opens and explains what it can
    gc "$name-analyze" analyze --json "$name.core"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 65 ] || fail "$name: analyze exited $rc: $(cat "$name-analyze.err")"
    # (each variant is a copy of the whole stream: one at a time on disk)
    rm -f "$name.gpu" "$name.core"
  done <<EOF
past|css=$((size))|the control stack runs past the area
wavepast|wso=$((size + 4096))|the wave area ends past the area
overlap|wss=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))[0]["header"]; print(h["wss"] + 64)' areas.json)|the control stack does not end where the wave area begins
wss|wso=4096 wss=8192|wave_state_size is above wave_state_offset
inside|cso=8|the control stack begins inside the header
unaligned|css=2 cso=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))[0]["header"]; print(h["cso"] + h["css"] - 2)' areas.json) wss=0 wso=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))[0]["header"]; print(h["cso"] + h["css"])' areas.json)|a size is not a multiple of 4
ones|cso=0xffffffff css=0xffffffff wso=0xffffffff wss=0xffffffff|the control stack runs past the area
EOF
  # What the note says of the layout is not what gpucore knows: the area kept to the end of
  # its segment. note_case NAME WARNING NOTE-PATCH...: the stream with the note patched
  # (ingest_trim.py note), ingested with exactly WARNING, area 0 kept whole.
  note_case() {
    local name=$1 want=$2
    shift 2
    python3 "$trim" note "$g" "$name.gpu" "$@"
    ingest "$name" "$name.gpu" state; expect_rc 0 "$name"
    grep -qxF "gpucore: warning: stdin: queue 0: $want" "$name.err" ||
      fail "$name: not the warning expected ($want): $(cat "$name.err")"
    gc "$name-info" info --json "$name.core"; expect_rc 0 "$name-info"
    trimmed "$name-info.out" 0
    rm -f "$name.gpu" "$name.core"
  }
  note_case unknown "gfx_target_version 12345 is not a known target; its context-save area at $at is kept whole, to the end of its segment" \
    agent 0 88 4 12345
  note_case size "a context-save area of $(printf 0x%x $((size - 4096))) bytes per XCC is not what gfx90a with these node properties needs; the area at $at is kept whole, to the end of its segment" \
    queue 0 56 4 $((size - 4096))
  # The header split over two PT_LOADs: the first (20 bytes) is small and kept whole, the
  # second begins inside the area, whose header ingest did not see at its start.
  python3 "$trim" split "$g" straddle.gpu $((lo + 20))
  ingest straddle straddle.gpu state; expect_rc 0 straddle
  grep -q "^gpucore: warning: stdin: queue 0, XCC 0: the context-save area at $at is kept whole: it begins before the PT_LOAD at $(printf 0x%x $((lo + 20))) (stream offset 0x[0-9a-f]*), where its header was not seen$" straddle.err ||
    fail "no warning for a header straddling two PT_LOADs: $(cat straddle.err)"
  gc straddle-info info --json straddle.core; expect_rc 0 straddle-info
  trimmed straddle-info.out 0
  same_analysis straddle.core all.core
  rm -f straddle.gpu straddle.core
  # A stream cut 20 bytes into the header: a truncated core, exit 0, both warnings.
  off=$(python3 "$trim" offset "$g" "$lo")
  ingest cut "$g" state --chunk 4096 --kill-at $((off + 20))
  [ "$wrc" -eq 137 ] || fail "the writer was not killed (status $wrc)"
  expect_rc 0 cut
  grep -q "^gpucore: warning: stdin: queue 0, XCC 0: the stream ends inside the header of the context-save area at $at (stream offset $(printf 0x%x "$off")); the core is cut there$" cut.err ||
    fail "no warning for a stream cut in the header: $(cat cut.err)"
  grep -q "^gpucore: warning: cut.core: the stream ended after $((off + 20)) bytes" cut.err ||
    fail "no warning for the cut stream: $(cat cut.err)"
  gc cut-info info --json cut.core; expect_rc 0 cut-info
  python3 - cut-info.out "$lo" <<'PY' || fail "the cut core does not say what it lacks (see above)"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
lo = int(sys.argv[2])
assert m["truncated"] and m["truncation_reason"] == "io-error", m
cap = [e for e in m["entries"] if e["status"] == "captured" and int(e["address"], 16) == lo]
assert cap and cap[0]["size"] == 20, cap
bad = [e for e in m["entries"] if e["status"] == "unreadable" and int(e["address"], 16) == lo + 20]
assert bad and bad[0]["errno"] is not None, m["entries"]
PY
  gc cut-analyze analyze --json cut.core
  [ "$rc" -eq 0 ] || [ "$rc" -eq 65 ] || fail "the cut core: analyze exited $rc: $(cat cut-analyze.err)"
  ;;
esac
exit 0
