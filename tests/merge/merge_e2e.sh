#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `gpucore merge` (tests/merge.cmake). vadd-fault is captured from
# gpucore-inferior and split into the two files an AMD GPU crash leaves today, as
# analyze-e2e-rocr-split does (make_rocr_split.py: the ROCm runtime's gpucore.PID with its
# writer's quirks, the kernel's core.PID with the device mappings listed but not dumped).
#
#   merge_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS GDB CASE
#
# CASE:
#   pair     merge the pair; the merged core is unified (info), explains itself as the pair does
#            with --host (analyze --json, the JSON minus the members that name files or come
#            from gpucore's own notes), lists the same waves through libgpucore-dbgapi
#            (dbgapi-dump), opens in gdb with the host threads, and merges compressed too.
#   hostile  a host core holding bytes of a GPU segment too (the GPU file's are kept, the
#            manifest says so), and refusals, each one line with the file and exit 65 (64
#            usage, 66 cannot open, 73 output cannot be created):
#            swapped arguments, a GPU file of another pid, a GPU file without its note, a GPU
#            file cut inside its headers, a unified core given as host core, not a core at
#            all; a GPU file cut inside its data merges with a warning and what it holds.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights, no gdb).

set -euo pipefail

[ $# -eq 7 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS GDB CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 gdb=$6 case=$7
here=$(cd "$(dirname "$0")" && pwd)
test_name=merge-$case

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

# expect_error WANT_RC NAME PATTERN: exactly one line "gpucore: ..." on stderr matching PATTERN,
# nothing on stdout, no output file.
expect_error() {
  expect_rc "$1" "$2"
  [ "$(wc -l <"$2.err")" -eq 1 ] || fail "gpucore $2 printed $(wc -l <"$2.err") lines on stderr: $(cat "$2.err")"
  grep -Eq "^gpucore( merge)?: $3" "$2.err" || fail "gpucore $2: unexpected error: $(cat "$2.err")"
  [ ! -s "$2.out" ] || fail "gpucore $2 printed on stdout: $(head -3 "$2.out")"
}

# The runtime's name for its file, gpucore.PID: merge takes the GPU file's pid from it.
e2e_rocr_split "$scenarios/vadd-fault.json"

if [ "$case" = pair ]; then
  gc merge merge "gpucore.$pid" "core.$pid" -o merged.core; expect_rc 0 merge
  grep -q "^merged.core: unified core of process $pid: [0-9]* GPU segments" merge.out ||
    fail "merge does not say what it wrote: $(cat merge.out)"
  [ ! -s merge.err ] || fail "merge printed on stderr: $(cat merge.err)"
  gc info info merged.core; expect_rc 0 info
  grep -q "^File: *unified ELF core, x86-64" info.out || fail "info does not call it unified: $(sed -n 2p info.out)"
  grep -q "^Process: *pid $pid, " info.out || fail "info does not give the pid: $(grep Process info.out)"
  gc info-merged info --json merged.core; expect_rc 0 info-merged
  python3 - info-merged.out "gpucore.$pid" "core.$pid" <<'PY' || fail "the merged core's notes or manifest are not what merge writes (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
gpu, host = sys.argv[2], sys.argv[3]
notes = [(n["owner"], n["type"]) for n in d["notes"]]
assert notes.count(("AMDGPU", 33)) == 1, notes
assert notes[0] == ("CORE", 1), notes[:2]          # the host notes first, as the kernel wrote them
assert d["capture"]["options"] == "merge %s %s" % (gpu, host), d["capture"]
assert d["capture"]["trigger"] == "unknown", d["capture"]
labels = {e["label"] for e in d["manifest"]["entries"]}
assert labels == {"gpu: " + gpu, "host: " + host}, labels
assert all(e["status"] == "captured" for e in d["manifest"]["entries"]), "a range is not captured"
PY
  # The pair with --host and the merged core explain the crash identically.
  gc report-split analyze --json --host "core.$pid" "gpucore.$pid"; expect_rc 0 report-split
  gc report-merged analyze --json merged.core;                       expect_rc 0 report-merged
  gc dump-split dbgapi-dump --json --host "core.$pid" "gpucore.$pid"; expect_rc 0 dump-split
  gc dump-merged dbgapi-dump --json merged.core;                       expect_rc 0 dump-merged
  python3 - <<'PY' || fail "the merged core differs from the split pair (see above)"
import json, sys
def report(name):
    d = json.load(open(name + ".out"))
    # core/host_core name the files; capture and not_captured come from the merged core's
    # CAPTURE_META and manifest, which the runtime's file does not have; so do the summary
    # lines that quote them.
    for k in ("core", "host_core", "capture", "not_captured"):
        d.pop(k, None)
    d["summary"] = [l for l in d["summary"] if not l.startswith("Not captured:")]
    return d
a, b = report("report-split"), report("report-merged")
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        print("analyze --json: %s differs: %.300s | %.300s" % (k, a.get(k), b.get(k)))
        sys.exit(1)
assert a["waves"] == 256 and a["faulting_waves"] == 4, (a["waves"], a["faulting_waves"])
def dump(name):
    recs = [json.loads(l) for l in open(name + ".out")]
    for r in recs:
        if r["kind"] == "library":
            for k in ("core", "host_core", "path"):
                r.pop(k, None)
    return recs
a, b = dump("dump-split"), dump("dump-merged")
if a != b:
    print("dbgapi-dump: the merged core differs from the split pair")
    sys.exit(1)
waves = [r for r in b if r["kind"] == "wave"]
assert len(waves) == 256, len(waves)
PY
  # GDB opens it as a core of the process: its host threads, no complaint about the file.
  if [ -n "$gdb" ] && command -v "$gdb" >/dev/null; then
    env -u DEBUGINFOD_URLS "$gdb" -nx -batch -ex "core-file $PWD/merged.core" -ex 'info threads' \
      >gdb.out 2>&1 || fail "gdb exited $?: $(tail -5 gdb.out)"
    if grep -Eiq 'not a core dump|not in executable format|file format not recognized' gdb.out; then
      fail "gdb does not take the merged core: $(cat gdb.out)"
    fi
    threads=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["host"]["threads"]))' report-merged.out)
    [ "$(grep -c 'LWP [0-9]' gdb.out)" -ge "$threads" ] ||
      fail "gdb does not list the $threads host threads: $(cat gdb.out)"
    grep -q "LWP $pid" gdb.out || fail "gdb does not list thread $pid: $(cat gdb.out)"
  fi
  # Compressed: the same report, a smaller file.
  gc merge-z merge --compress=5 -q "gpucore.$pid" "core.$pid" -o merged.core.zst; expect_rc 0 merge-z
  [ ! -s merge-z.out ] || fail "merge -q printed: $(cat merge-z.out)"
  gc report-z analyze --json merged.core.zst; expect_rc 0 report-z
  python3 - <<'PY' || fail "the compressed merged core explains itself differently"
import json, sys
a, b = json.load(open("report-merged.out")), json.load(open("report-z.out"))
for d in (a, b):
    d.pop("core")
    d["capture"].pop("compress_level", None)
sys.exit(0 if a == b else 1)
PY
  [ "$(stat -c %b merged.core.zst)" -lt "$(stat -c %b merged.core)" ] || fail "the compressed core is not smaller"
  # An existing output is kept unless --force.
  gc exists merge "gpucore.$pid" "core.$pid" -o merged.core
  expect_error 73 exists "merged.core: "
  gc force merge -f -q "gpucore.$pid" "core.$pid" -o merged.core; expect_rc 0 force
  exit 0
fi

[ "$case" = hostile ] || fail "unknown case $case"
g=gpucore.$pid h=core.$pid
gc swapped merge "$h" "$g" -o out.core
expect_error 65 swapped "$h: offset 0x12: e_machine 62 is not EM_AMDGPU \(224\).*swapped"
[ ! -e out.core ] || fail "a refused merge left out.core"
# The runtime's name says another process.
cp "$g" gpucore.1
gc otherpid merge gpucore.1 "$h" -o out.core
expect_error 65 otherpid "gpucore.1: process 1 \(from its file name\), but the host core is of process $pid"
# A GPU file without its note; one cut inside its program headers; one cut inside its data.
python3 "$here/../analyze/strip_amdgpu_note.py" "$g" nonote.gpu
gc nonote merge nonote.gpu "$h" -o out.core
expect_error 65 nonote "nonote.gpu: no AMDGPU core-state note"
head -c 100 "$g" >cut-head.gpu
gc cut-head merge cut-head.gpu "$h" -o out.core
expect_error 65 cut-head "cut-head.gpu: offset 0x[0-9a-f]+: "
size=$(stat -c %s "$g")
head -c $((size - 8192)) "$g" >cut-data.gpu
gc cut-data merge cut-data.gpu "$h" -o cut.core
expect_rc 0 cut-data
grep -q "^gpucore: warning: cut-data.gpu was cut short" cut-data.err || fail "no warning for a cut GPU file: $(cat cut-data.err)"
gc cut-analyze analyze cut.core; expect_rc 0 cut-analyze
# A host core that holds bytes of a GPU segment too (0xaa where the runtime read other bytes):
# the GPU file's are kept, and the manifest says the host copy was left out.
python3 - "$g" "$h" overlap.host <<'PY' || fail "could not make overlap.host"
import struct, sys
gpu, host = open(sys.argv[1], "rb").read(), bytearray(open(sys.argv[2], "rb").read())
def phdrs(d):
    off, = struct.unpack_from("<Q", d, 32)
    n, = struct.unpack_from("<H", d, 56)
    return [(off + 56 * i, struct.unpack_from("<IIQQQQQQ", d, off + 56 * i)) for i in range(n)]
first = next(p for _, p in phdrs(gpu) if p[0] == 1)
at, p = next((at, p) for at, p in phdrs(host) if p[0] == 1 and p[3] == first[3])
assert p[5] == 0, "the host core holds the GPU segment already"
size = first[6]
struct.pack_into("<Q", host, at + 8, len(host))    # p_offset: appended
struct.pack_into("<Q", host, at + 32, size)         # p_filesz
host += b"\xaa" * size
open(sys.argv[3], "wb").write(host)
print("0x%x %d" % (first[3], size))
PY
read -r ovaddr osize < <(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); o,=struct.unpack_from("<Q",d,32); n,=struct.unpack_from("<H",d,56); p=[struct.unpack_from("<IIQQQQQQ",d,o+56*i) for i in range(n)]; f=next(x for x in p if x[0]==1); print("0x%x %d" % (f[3], f[6]))' "$g")
gc overlap merge -q "$g" overlap.host -o overlap.core; expect_rc 0 overlap
gc mem-merged analyze mem --json --address "$ovaddr" --size 16 overlap.core; expect_rc 0 mem-merged
gc mem-gpu analyze mem --json --address "$ovaddr" --size 16 "$g"; expect_rc 0 mem-gpu
python3 - mem-merged.out mem-gpu.out <<'PY' || fail "where both files hold an address, the merged core does not keep the GPU file's bytes"
import json, sys
a, b = (json.load(open(f))["data"] for f in sys.argv[1:3])
assert a == b and a != "aa" * 16, (a, b)
PY
gc overlap-info info --json overlap.core; expect_rc 0 overlap-info
python3 - overlap-info.out "$ovaddr" "$osize" <<'PY' || fail "the manifest does not say the host copy was left out"
import json, sys
d = json.load(open(sys.argv[1]))
e = [e for e in d["manifest"]["entries"] if e["status"] == "skipped"]
assert len(e) == 1, e
assert int(e[0]["address"], 16) == int(sys.argv[2], 16) and e[0]["size"] == int(sys.argv[3]), e
assert e[0]["reason"] == "policy" and e[0]["label"] == "host copy; the GPU file's bytes are kept", e
PY
# The unified core is not a host core to merge into; a text file is no core.
gc unified merge "$g" out/core -o out.core
expect_error 65 unified "out/core: offset 0x[0-9a-f]+: the host core already holds an AMDGPU note"
echo "not a core" >notcore
gc notcore merge "$g" notcore -o out.core
expect_error 65 notcore "notcore: "
gc missing merge "$g" does-not-exist -o out.core
expect_error 66 missing "does-not-exist: cannot open"
gc noout merge "$g" "$h"
expect_error 64 noout "-o OUT is required"
gc nodir merge "$g" "$h" -o no/such/dir/out.core
expect_rc 73 nodir
[ ! -e out.core ] || fail "a refused merge left out.core"
exit 0
