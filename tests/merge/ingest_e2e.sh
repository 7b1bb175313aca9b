#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `gpucore ingest` (tests/merge.cmake): the split pair of vadd-fault (as
# merge_e2e.sh makes it) streamed into ingest through a pipe by stream_writer.py, as the
# ROCm runtime (HSA_COREDUMP_PATTERN="|...") and the kernel (core_pattern "|...") would.
#
#   ingest_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# CASE:
#   pipe     the GPU half, then the host half (--host): the halves are merged into
#            gpucore.PID.zst and removed; it explains itself as `gpucore merge` of the two
#            files does. Both orders, and -o PATTERN (no pairing).
#   store    --store: each half indexed before ingest exits; after the merge one row, the
#            merged core's, with the pid; a host half's row with its NT_PRPSINFO's pid and uid;
#            GPU halves alone have no signature, so gc --keep-per-signature keeps them all;
#            an unreadable file is no crash seen; --store DIR and --store=DIR; root's store
#            shares a user's core with that user (POSIX ACL) and no other; 20 times
#            `ingest --store && list`: the core is listed every time; store.conf's limits
#            applied by ingest itself, never to the core just written.
#   slow     a writer that sleeps between 64 KiB chunks: the same core as a fast one.
#   killed   a writer killed (SIGKILL) inside segment data: a valid core marked truncated,
#            exit 0 and a warning; killed inside the program headers: exit 65, no file. Both
#            without hanging (the pipe's end is the writer's death).
#   huge     a 32 GiB stream (more than this machine's memory: one PT_LOAD of zeros made on
#            the fly) through --tier state under prlimit --as=512M: the zeros are skipped,
#            the core is small and says what was skipped. About 13 s at 2.6 GB/s here.
#   small    --small-total 64K: the small allocations are kept whole in stream order while
#            they fit in 64 KiB; past that only what the AMDGPU note names of them is kept,
#            the rest recorded skipped/budget with one warning; the waves are the same.
#   sigpipe  failures (a host core where the GPU half is expected, bad usage, an output
#            directory that cannot be made; a missing one is made 0700) print one line, exit 65/64/73, and read stdin to its end: the writer
#            gets no EPIPE; an output name that exists costs nothing (another name, exit 0).
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights).

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name=ingest-$case
writer="$here/stream_writer.py"

. "$here/../lib/e2e.sh"
. "$here/ingest_lib.sh"
e2e_enter "$work"
e2e_need_ptrace

e2e_rocr_split "$scenarios/vadd-fault.json"
g=gpucore.$pid h=core.$pid


# analyze_same A B: the reports of two cores agree but for the file's name and the capture
# metadata's time, options and tier (an ingested half says the tier it kept).
analyze_same() {
  gc ra analyze --json "$1"; expect_rc 0 ra
  gc rb analyze --json "$2"; expect_rc 0 rb
  python3 - ra.out rb.out <<'PY' || fail "$1 and $2 explain themselves differently"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop("core")
    for k in ("time", "time_ns", "options", "compress_level", "tier"):
        d["capture"].pop(k, None)
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("%s: %.300s | %.300s" % (k, a.get(k), b.get(k)))
    sys.exit(1)
PY
}

case $case in
pipe)
  gc merge merge -q "$g" "$h" -o merged.core; expect_rc 0 merge
  mkdir store
  feed gpu copy "$g" -- --dir store --pid "$pid"
  expect_rc 0 gpu; [ "$wrc" -eq 0 ] || fail "the writer exited $wrc: $(cat gpu.werr)"
  [ -f "store/gpucore.$pid.gpu.zst" ] || fail "no GPU half in the store: $(ls store)"
  gc half info "store/gpucore.$pid.gpu.zst"; expect_rc 0 half
  grep -q "split ELF core, AMDGPU (e_machine 224), zstd seekable" half.out || fail "the GPU half is not a compressed split core: $(sed -n 2p half.out)"
  feed host copy "$h" -- --host --pid "$pid" --dir store --foreground-merge
  expect_rc 0 host; [ "$wrc" -eq 0 ] || fail "the writer exited $wrc: $(cat host.werr)"
  [ "$(ls store)" = "gpucore.$pid.zst" ] || fail "the store holds $(ls store | tr '\n' ' ') instead of the merged core alone"
  analyze_same merged.core "store/gpucore.$pid.zst"
  # The other order, the merge in a detached child (as the runtime's pclose() must not wait).
  mkdir store2
  feed host2 copy "$h" -- --host --pid "$pid" --dir store2; expect_rc 0 host2
  feed gpu2 copy "$g" -- --dir store2 --pid "$pid"; expect_rc 0 gpu2
  for _ in $(seq 1 600); do
    [ "$(ls store2)" = "gpucore.$pid.zst" ] && break
    sleep 0.05
  done
  [ "$(ls store2)" = "gpucore.$pid.zst" ] || fail "the detached merge did not finish: $(ls store2 | tr '\n' ' ')"
  analyze_same merged.core "store2/gpucore.$pid.zst"
  # The host half alone: the device mappings the kernel listed without data are in its manifest.
  feed hostonly copy "$h" -- --host --pid "$pid" -o host.%p.zst; expect_rc 0 hostonly
  gc hostonly-info info --json "host.$pid.zst"; expect_rc 0 hostonly-info
  python3 - hostonly-info.out "$h" <<'PY' || fail "the host half does not list the mappings without data (see above)"
import json, struct, sys
d = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read()
off, = struct.unpack_from("<Q", data, 32)
n, = struct.unpack_from("<H", data, 56)
ph = [struct.unpack_from("<IIQQQQQQ", data, off + 56 * i) for i in range(n)]
empty = sorted((p[3], p[6]) for p in ph if p[0] == 1 and p[5] == 0)
got = sorted((int(e["address"], 16), e["size"]) for e in d["manifest"]["entries"]
             if e["status"] == "skipped" and e["reason"] == "special")
assert empty and got == empty, (got, empty)
PY
  # -o PATTERN: the name expanded, no pairing; uncompressed on request.
  feed pat copy "$g" -- -o "single.%p.gpu" --pid "$pid" --no-compress --tier all; expect_rc 0 pat
  gc pat-info info "single.$pid.gpu"; expect_rc 0 pat-info
  grep -q "split ELF core, AMDGPU (e_machine 224), plain" pat-info.out || fail "-o --no-compress: $(sed -n 2p pat-info.out)"
  ;;
small)
  feed all copy "$g" -- -o "all.%p.gpu" --pid "$pid" --no-compress; expect_rc 0 all
  grep -q "small GPU allocations" all.err && fail "a warning without --small-total: $(cat all.err)"
  feed small copy "$g" -- -o "small.%p.gpu" --pid "$pid" --no-compress --small-total 64K
  expect_rc 0 small; [ "$wrc" -eq 0 ] || fail "the writer exited $wrc: $(cat small.werr)"
  grep -Eq "^gpucore: warning: stdin: [0-9]+ small GPU allocations past the [0-9]+ bytes kept of them; of those only what the AMDGPU note names is kept \(--small-total\)$" small.err ||
    fail "no warning for the small allocations past the total: $(cat small.err)"
  gc all-info info --json "all.$pid.gpu"; expect_rc 0 all-info
  gc small-info info --json "small.$pid.gpu"; expect_rc 0 small-info
  python3 - all-info.out small-info.out "$g" <<'PY' || fail "the small allocations kept are not what --small-total says (see above)"
import json, struct, sys
full, small = (json.load(open(f))["manifest"] for f in sys.argv[1:3])
data = open(sys.argv[3], "rb").read()
off, = struct.unpack_from("<Q", data, 32)
n, = struct.unpack_from("<H", data, 56)
loads = [struct.unpack_from("<IIQQQQQQ", data, off + 56 * i) for i in range(n)]
loads = [(p[3], p[5]) for p in loads if p[0] == 1 and p[5]]
budget = [(int(e["address"], 16), e["size"]) for e in small["entries"]
          if e["status"] == "skipped" and e["reason"] == "budget"]
assert budget, "nothing skipped for the budget"
assert all(e["label"] == "small GPU memory past the total kept of it (gpucore ingest)"
           for e in small["entries"] if e["reason"] == "budget")
# every byte the full ingest kept is kept by the small one or skipped for the budget
assert full["captured_bytes"] == small["captured_bytes"] + sum(s for _, s in budget), \
    (full["captured_bytes"], small["captured_bytes"], sum(s for _, s in budget))
# each budget entry lies in a PT_LOAD of at most 1 MiB; the warning says how many PT_LOADs
# were past the total (at least those) and how much was kept of them (at most 64 KiB)
over = {va for va, sz in loads for a, s in budget if va <= a and a + s <= va + sz and sz <= 1 << 20}
assert len(over) >= 1 and all(any(va <= a < va + sz for va, sz in loads if sz <= 1 << 20)
                              for a, _ in budget), budget
said = [l for l in open("small.err") if "small GPU allocations" in l][0].split("stdin: ")[1].split()
count, kept = int(said[0]), int(said[6])
assert count >= len(over) and 0 < kept <= 64 * 1024, (count, kept, len(over))
PY
  # The waves (the save areas, named by the note) are all there.
  gc wa analyze waves --json "all.$pid.gpu"; expect_rc 0 wa
  gc ws analyze waves --json "small.$pid.gpu"; expect_rc 0 ws
  python3 - wa.out ws.out <<'PY' || fail "the waves differ with --small-total"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda d: [(w["pc"], w["stop_reasons"], w["faulting"], w["symbol"]) for w in d["waves"]]
assert a["waves"] and key(a) == key(b), (len(a["waves"]), len(b["waves"]))
PY
  gc badsize ingest --small-total 0 -o x < /dev/null; expect_rc 64 badsize
  grep -qF -- "--small-total takes a size such as 64M, got '0'" badsize.err || fail "$(cat badsize.err)"
  ;;
store)
  # --store: the halves go into the core store and are indexed before ingest exits; the merge
  # leaves one row, the merged core's, with the pid. list finds the ingested core by its pid.
  export GPUCORE_STORE="$work/cores"
  feed gpu copy "$g" -- --store --pid "$pid"
  expect_rc 0 gpu; [ "$wrc" -eq 0 ] || fail "the writer exited $wrc: $(cat gpu.werr)"
  gc l1 list --json; expect_rc 0 l1
  python3 - l1.out "$pid" <<'PY' || fail "the GPU half is not indexed as ingest exits: $(cat l1.out)"
import json, sys
(c,) = json.load(open(sys.argv[1]))["cores"]
assert c["file"] == "gpucore.%s.gpu.zst" % sys.argv[2] and c["state"] == "present", c
assert c["pid"] == int(sys.argv[2]) and c["targets"] == "gfx90a", c
# alone, the GPU half does not hold the code objects (the host half's link map names them):
# no signature, so it joins no other crash
assert c["signature"] is None and c["seen"] == 1, c
PY
  feed host copy "$h" -- --host --pid "$pid" --store --foreground-merge
  expect_rc 0 host; [ "$wrc" -eq 0 ] || fail "the writer exited $wrc: $(cat host.werr)"
  [ -f "cores/gpucore.$pid.zst" ] || fail "no merged core: $(ls cores)"
  gc l2 list --json; expect_rc 0 l2
  python3 - l2.out "$pid" <<'PY' || fail "the store's rows after the merge: $(cat l2.out)"
import json, sys
(c,) = json.load(open(sys.argv[1]))["cores"]
pid = int(sys.argv[2])
assert c["file"] == "gpucore.%d.zst" % pid and c["state"] == "present", c
assert c["pid"] == pid and c["faulting_waves"] == 4, c
assert c["signature"] is not None and c["seen"] == 1, c
PY
  # The host half alone: the pid, uid and executable its NT_PRPSINFO says.
  feed hostonly copy "$h" -- --host --pid "$pid" --store "$work/hosts"
  expect_rc 0 hostonly
  gc l3 list --json --store="$work/hosts"; expect_rc 0 l3
  python3 - l3.out "$pid" "$(id -u)" <<'PY' || fail "the host half's row: $(cat l3.out)"
import json, sys
(c,) = json.load(open(sys.argv[1]))["cores"]
assert c["file"] == "core.%s.zst" % sys.argv[2] and c["pid"] == int(sys.argv[2]), c
assert c["uid"] == int(sys.argv[3]) and c["executable"], c
PY
  # Root's store and a user's crash: the host half of a process of uid daemon (its
  # NT_PRPSINFO's pr_uid set so) is readable by daemon through a POSIX ACL, not by nobody, and
  # stays root's; the index and the directory's listing stay closed to daemon.
  python3 "$here/set_prpsinfo_uid.py" "$h" daemon.core "$(id -u daemon)"
  cat daemon.core | "$gpucore" ingest --host --pid "$pid" --store "$work/shared" 2>shared.err ||
    fail "ingest of daemon's crash: $(cat shared.err)"
  if [ "$(id -u)" != 0 ]; then
    echo "note: not root; sharing not checked"
  elif grep -q "the filesystem has no POSIX ACLs" shared.err; then
    echo "note: no POSIX ACLs here; sharing not checked"
  else
    [ ! -s shared.err ] || fail "ingest of daemon's crash warned: $(cat shared.err)"
    as() { setpriv --reuid "$1" --regid "$(id -g "$1")" --clear-groups "${@:2}"; }
    as daemon "$gpucore" info "$work/shared/core.$pid.zst" >as-daemon.out 2>&1 ||
      fail "daemon cannot read its own core in root's store: $(cat as-daemon.out)"
    as nobody "$gpucore" info "$work/shared/core.$pid.zst" >as-nobody.out 2>&1 &&
      fail "nobody reads daemon's core: $(cat as-nobody.out)"
    as daemon cat "$work/shared/index.sqlite" >/dev/null 2>&1 && fail "daemon reads root's index"
    as daemon ls "$work/shared" >/dev/null 2>&1 && fail "daemon lists root's store"
    [ "$(stat -c %u "$work/shared/core.$pid.zst")" = 0 ] || fail "the shared core is not root's"
    # Their rows too: daemon lists root's store and sees its crash and nothing else (a core of
    # root's is beside it); nobody sees none (66); daemon cannot change the store (77).
    cp "$h" "$work/shared/core.root-own"
    "$gpucore" store --rescan --store "$work/shared" >/dev/null 2>rescan.err ||
      fail "rescan: $(cat rescan.err)"
    as daemon "$gpucore" list --json --store "$work/shared" >view.json 2>view.err ||
      fail "daemon cannot list its crash in root's store: $(cat view.err)"
    python3 - view.json "$pid" "$(id -u daemon)" <<'PY' || fail "daemon's list: $(cat view.json)"
import json, sys
(c,) = json.load(open(sys.argv[1]))["cores"]
assert c["file"] == "core.%s.zst" % sys.argv[2] and c["uid"] == int(sys.argv[3]), c
PY
    "$gpucore" list --json --store "$work/shared" >root-view.json 2>&1
    [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cores"]))' \
        root-view.json)" = 2 ] || fail "root's list: $(cat root-view.json)"
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cores"][0]["id"])' view.json)
    as daemon "$gpucore" show "$id" --store "$work/shared" >view-show.out 2>&1 ||
      fail "daemon cannot show its crash: $(cat view-show.out)"
    grep -q "core.$pid.zst" view-show.out || fail "daemon's show: $(cat view-show.out)"
    as daemon env -u HOME "$gpucore" store --json --store "$work/shared" >vs.json 2>&1 ||
      fail "daemon's store summary: $(cat vs.json)"
    python3 - vs.json <<'PY' || fail "daemon's store summary: $(cat vs.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["view"] is True and d["gc"] is None and d["policy"] is None, d
assert d["cores"]["present"] == 1, d
PY
    rc=0; as nobody "$gpucore" list --store "$work/shared" >nv.out 2>nv.err || rc=$?
    expect_rc 66 nv
    grep -q "root's store holds no core of yours" nv.err || fail "nobody's list: $(cat nv.err)"
    rc=0; as daemon env -u HOME "$gpucore" gc --max-age 1s --store "$work/shared" >vg.out 2>vg.err || rc=$?
    expect_rc 77 vg
    grep -q "your view of it is read-only" vg.err || fail "daemon's gc: $(cat vg.err)"
    view=".user-$(id -u daemon).sqlite"
    [ "$(stat -c %u:%a "$work/shared/$view")" = 0:640 ] ||
      fail "the view is not root's, mode 0600 with an ACL: $(stat -c %u:%a "$work/shared/$view")"
    as daemon cat "$work/shared/.user-$(id -u nobody).sqlite" >/dev/null 2>&1 &&
      fail "a view for nobody exists"
    # the core gone: the view follows
    rm "$work/shared/core.$pid.zst"
    "$gpucore" store --rescan --store "$work/shared" >/dev/null 2>rescan.err ||
      fail "rescan: $(cat rescan.err)"
    as daemon "$gpucore" list --json --store "$work/shared" >view2.json 2>&1 ||
      fail "daemon's list after the rescan: $(cat view2.json)"
    grep -q '"state": "missing"' view2.json || fail "the view did not follow: $(cat view2.json)"
  fi
  # Two GPU halves of two crashes: no signature each, so gc --keep-per-signature 1 keeps both
  # (it once removed one as a repeat of "fault:unknown+?:memory_violation:co-unknown").
  feed gpu2 copy "$g" -- --store "$work/halves" --pid $((pid + 1)); expect_rc 0 gpu2
  feed gpu3 copy "$g" -- --store="$work/halves" --pid $((pid + 2)); expect_rc 0 gpu3
  gc gc1 gc --keep-per-signature 1 --store "$work/halves"; expect_rc 0 gc1
  [ -f "halves/gpucore.$((pid + 1)).gpu.zst" ] && [ -f "halves/gpucore.$((pid + 2)).gpu.zst" ] ||
    fail "gc removed a GPU half as a repeat of another crash: $(cat gc1.out) $(ls halves)"
  # A file that is no core: listed unreadable, and no crash seen.
  printf 'not a core\n' > halves/junk
  gc rescan store --rescan --store "$work/halves"; expect_rc 0 rescan
  gc l4 list --store "$work/halves"; expect_rc 0 l4
  grep -Eq ' unreadable +-$' l4.out || fail "an unreadable file is counted as a crash seen: $(cat l4.out)"
  [ "$(grep -Ec ' present +1$' l4.out)" -eq 2 ] || fail "the GPU halves are not one crash each: $(cat l4.out)"
  # ingest && list: the core is listed as soon as ingest exits, every time (its row was once
  # made by the detached child, after ingest had exited: missed 2 tries in 3). cat, not the
  # slower stream_writer.py: the race is ingest's exit against list.
  for i in $(seq 1 20); do
    cat "$g" | "$gpucore" ingest --store "$work/race" --pid $((pid + i)) 2>"in$i.err" ||
      fail "try $i: ingest exited $?: $(cat "in$i.err")"
    "$gpucore" list --json --store "$work/race" >"ls$i.out" 2>"ls$i.err" ||
      fail "try $i: list exited $?: $(cat "ls$i.err")"
    grep -q "\"file\": \"gpucore.$((pid + i)).gpu.zst\"" "ls$i.out" ||
      fail "try $i: the core is not listed right after ingest exited: $(cat "ls$i.out")"
  done
  # Retention on every ingest: store.conf's MaxUse=4K leaves room for the new core only; the
  # older files go, the one just written never does.
  printf '[Store]\nMaxUse=4K\n' > retain.conf
  feed gpu4 copy "$g" -- --store "$work/halves" --pid $((pid + 3)) --config retain.conf
  expect_rc 0 gpu4
  [ "$(ls halves | grep -v '^index' | tr '\n' ' ')" = "gpucore.$((pid + 3)).gpu.zst " ] ||
    fail "retention left $(ls halves | tr '\n' ' ')"
  grep -qx "gpucore: $work/halves: 3 older cores removed by the store's limits ([0-9.]* [KM]iB; store.conf)" gpu4.err ||
    fail "retention did not say what it removed: $(cat gpu4.err)"
  # -o, --dir and --store name the output: one of them
  feed both copy "$g" -- --store --dir cores --pid "$pid"
  expect_rc 64 both; [ "$wrc" -eq 0 ] || fail "the writer saw an error: $(cat both.werr)"
  ;;
slow)
  feed fast copy "$g" -- -o fast.gpu.zst --pid "$pid"; expect_rc 0 fast
  feed slow copy "$g" --chunk 65536 --sleep 0.01 -- -o slow.gpu.zst --pid "$pid"; expect_rc 0 slow
  # The same core but for the time in its metadata.
  gc fast-info info --json --segments fast.gpu.zst; expect_rc 0 fast-info
  gc slow-info info --json --segments slow.gpu.zst; expect_rc 0 slow-info
  python3 - fast-info.out slow-info.out <<'PY' || fail "a slow writer gave another core than a fast one"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop("file")
    for k in ("time", "time_ns"):
        d["capture"].pop(k)
    for n in d["notes"]:
        if n["owner"] == "GPUCORE":
            n.pop("offset", None)
assert a["segments"] and a["manifest"]["captured_ranges"] == 13, a["manifest"]
sys.exit(0 if a == b else 1)
PY
  ;;
killed)
  # Cut in the data of the segments: the core keeps what came.
  size=$(stat -c %s "$g")
  feed cut copy "$g" --chunk 4096 --kill-at $((size / 2)) -- -o cut.gpu.zst --pid "$pid"
  [ "$wrc" -eq 137 ] || fail "the writer was not killed (status $wrc)"
  expect_rc 0 cut
  grep -q "^gpucore: warning: cut.gpu.zst: the stream ended after $((size / 2)) bytes" cut.err ||
    fail "no warning for a cut stream: $(cat cut.err)"
  gc cut-info info --json cut.gpu.zst; expect_rc 0 cut-info
  python3 - cut-info.out <<'PY' || fail "the cut core does not say what it lacks (see above)"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
assert m["truncated"] and m["truncation_reason"] == "io-error", m
assert m["unreadable_ranges"] + m["skipped_ranges"] >= 1, m
assert m["captured_ranges"] >= 1, m
PY
  gc cut-merge merge -q cut.gpu.zst "$h" -o cut-merged.core; expect_rc 0 cut-merge
  gc cut-analyze analyze cut-merged.core; expect_rc 0 cut-analyze
  # The merged core says so too: truncated, and what the stream lost.
  gc cut-merged-info info --json cut-merged.core; expect_rc 0 cut-merged-info
  python3 - cut-info.out cut-merged-info.out <<'PY' || fail "the merged core forgot what the stream lost (see above)"
import json, sys
half, merged = (json.load(open(f)) for f in sys.argv[1:3])
m = merged["manifest"]
assert m["truncated"] and m["truncation_reason"] == "io-error", m
lost = lambda d: sorted((e["address"], e["size"]) for e in d["manifest"]["entries"] if e["status"] != "captured")
assert lost(half) == lost(merged), (lost(half), lost(merged))
assert merged["capture"]["options"].endswith("; merged with core.%d" % merged["capture"]["pid"]), merged["capture"]
PY
  # Cut inside the program headers: nothing to keep.
  feed head copy "$g" --kill-at 100 -- -o head.gpu.zst --pid "$pid"
  [ "$wrc" -eq 137 ] || fail "the writer was not killed (status $wrc)"
  expect_rc 65 head
  grep -q "^gpucore: stdin: offset 0x[0-9a-f]*: the stream ends inside the program header table" head.err ||
    fail "unexpected error: $(cat head.err)"
  [ ! -e head.gpu.zst ] || fail "a refused stream left head.gpu.zst"
  ;;
huge)
  # Under an address-space limit of 512 MiB: memory is bounded whatever the stream's size
  # (a sanitized build maps terabytes of shadow: there the peak RSS alone is checked).
  limits=()
  # (gcc links the sanitizer runtime dynamically, clang statically: look for its symbols)
  grep -aqE '__(asan|tsan)_init' "$gpucore" || limits=(--as=$((512 << 20)))
  set +e
  python3 "$writer" huge "$g" 32 2>huge.werr |
    /usr/bin/time -f %M -o huge.time prlimit "${limits[@]}" "$gpucore" ingest \
      -o huge-limited.gpu.zst --pid "$pid" --tier state >huge-l.out 2>huge-l.err
  st=("${PIPESTATUS[@]}")
  set -e
  [ "${st[0]}" -eq 0 ] ||
    fail "the writer exited ${st[0]}: $(cat huge.werr); ingest exited ${st[1]}: $(cat huge-l.err)"
  [ "${st[1]}" -eq 0 ] || fail "ingest under prlimit ${limits[*]} exited ${st[1]}: $(cat huge-l.err)"
  peak=$(tail -1 huge.time)
  [ "$peak" -lt $((256 << 10)) ] || fail "ingest of 32 GiB peaked at $peak kB of RSS"
  echo "ingest of a 32 GiB stream: peak RSS $peak kB"
  [ "$(stat -c %s huge-limited.gpu.zst)" -lt $((4 << 20)) ] || fail "the 32 GiB stream became $(stat -c %s huge-limited.gpu.zst) bytes"
  gc huge-info info --json huge-limited.gpu.zst; expect_rc 0 huge-info
  python3 - huge-info.out <<'PY' || fail "the core does not say the 32 GiB were skipped (see above)"
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
assert m["skipped_bytes"] == 32 << 30, m["skipped_bytes"]
assert not m["truncated"], m
e = [e for e in m["entries"] if e["status"] == "skipped"]
assert len(e) == 1 and e[0]["reason"] == "tier" and e[0]["size"] == 32 << 30, e
PY
  gc huge-merge merge -q huge-limited.gpu.zst "$h" -o huge-merged.core; expect_rc 0 huge-merge
  gc small-merge merge -q "$g" "$h" -o merged.core; expect_rc 0 small-merge
  gc rh analyze waves --json huge-merged.core; expect_rc 0 rh
  gc rs analyze waves --json merged.core; expect_rc 0 rs
  python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3]); a.pop("core"); b.pop("core"); sys.exit(a!=b)' rh.out rs.out ||
    fail "the waves of the skipped-through core differ"
  ;;
sigpipe)
  : >exists.gpu.zst
  feed exists copy "$g" --chunk 4096 -- -o exists.gpu.zst --pid "$pid"
  expect_rc 0 exists
  [ "$wrc" -eq 0 ] || fail "the writer saw the pipe close (status $wrc): $(cat exists.werr)"
  [ "$(cat exists.err)" = "gpucore: warning: exists.gpu.zst exists (ingest did not write it): the core is stored as exists.gpu.1.zst" ] ||
    fail "unexpected message: $(cat exists.err)"
  [ ! -s exists.gpu.zst ] && [ -s exists.gpu.1.zst ] || fail "the core is not beside the file that was there: $(ls -l)"
  feed wrong copy "$h" -- -o wrong.zst --pid "$pid"
  expect_rc 65 wrong
  [ "$wrc" -eq 0 ] || fail "the writer saw the pipe close (status $wrc): $(cat wrong.werr)"
  grep -q "^gpucore: stdin: offset 0x12: e_machine 62 is not EM_AMDGPU (224)" wrong.err || fail "unexpected error: $(cat wrong.err)"
  feed usage copy "$g" -- --tier scratch -o x.zst
  expect_rc 64 usage
  [ "$wrc" -eq 0 ] || fail "the writer saw the pipe close on a usage error (status $wrc)"
  # --dir is created (0700) when missing, as --store is; one that cannot be is 73
  feed newdir copy "$g" -- --dir new/sub --pid "$pid"
  expect_rc 0 newdir
  [ -f "new/sub/gpucore.$pid.gpu.zst" ] && [ "$(stat -c %a new/sub)" = 700 ] ||
    fail "--dir new/sub was not created 0700: $(ls -la new/sub 2>&1)"
  : > afile
  feed nodir copy "$g" -- --dir afile/sub --pid "$pid"
  expect_rc 73 nodir
  [ "$wrc" -eq 0 ] || fail "the writer saw the pipe close (status $wrc)"
  ;;
*) fail "unknown case $case" ;;
esac
exit 0
