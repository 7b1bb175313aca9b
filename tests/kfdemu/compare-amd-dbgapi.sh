#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# AMD's debugger library on a live GPU process against gpucore's core of the same moment
# (docs/amd-dbgapi-check.md):
#
#   compare-amd-dbgapi.sh [--build DIR] [--programs DIR] [--root DIR] LIBRARY WORKDIR
#
# LIBRARY: `debian` for the root's own librocm-dbgapi0 (Debian 13: ROCdbgapi 0.70, ROCm 5.7),
# or the install prefix of AMD's library built from its source (PREFIX/include/amd-dbgapi/
# amd-dbgapi.h, PREFIX/lib/librocm-dbgapi.so.0): it is loaded inside the root, where its
# libamd_comgr.so.2 and libstdc++ are the root's.
#
# Under gpucore-kfdemu (the root at --root, default /var/cache/gpucore/rocm-root-trixie):
#   1. the client tests/kfdemu/programs/dbgapi_attach.c is compiled against LIBRARY's header
#      and linked to it (with `debian`, the fixture's build when it has -r);
#   2. a copy of hip_vadd runs with plans/hang.json and HSA_ENABLE_DEBUG=1; once the emulator
#      says the dispatch hangs, dbgapi_attach -r attaches the library, stops the waves and
#      prints its view (agents, queues, dispatches, code objects, waves, every register of
#      every wave), then detaches;
#   3. gpucore capture writes a core of the process (still hung: the same moment);
#   4. the program is killed; outside, `gpucore dbgapi-dump --json` reads the core with
#      gpucore's own libgpucore-dbgapi, and the same view is made of its records;
#   5. the two views are diffed field by field: WORKDIR/amd.view, gpucore.view, view.diff, and
#      a summary on stdout ("compare: N facts, M equal, D differ as documented, K differ, only
#      AMD A, only gpucore G"); the documented differences are docs/dbgapi.md's deliberate
#      ones (queue STATE and ERROR_REASON, which AMD's library does not implement).
#
# Exit status: 0 compared and equal (but for the documented differences); 1 compared and different (view.diff says where), or a
# step failed (named); 2 usage; 77 cannot run here (no root, no library, not root, no
# emulator). Takes about 10 s plus the client's compile.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
programs=
root=/var/cache/gpucore/rocm-root-trixie
target=gfx90a
# The longest wait for the kernel to be dispatched (ROCr and HIP start-up on a loaded
# machine takes seconds) and for the library, the capture and the compile.
HANG_WAIT_TENTHS=600
STEP_TIMEOUT=60

usage() {
  echo "usage: compare-amd-dbgapi.sh [--build DIR] [--programs DIR] [--root DIR] debian|PREFIX WORKDIR" >&2
  exit 2
}
skip() { echo "compare: SKIP: $*"; exit 77; }
die() { echo "compare: FAILED: $*"; exit 1; }

while [ $# -gt 2 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ $# -eq 2 ] || usage
library=$1 work=$2
build=$(cd "$build" && pwd)
programs=${programs:-$build/tests/kfdemu/programs}
kfdemu=$build/kfd/emu/gpucore-kfdemu
gpucore=$build/cli/gpucore
if [ ! -x "$kfdemu" ] || [ ! -x "$gpucore" ]; then skip "no gpucore build at $build"; fi
[ "$(id -u)" -eq 0 ] || skip "gpucore-kfdemu needs root (a private mount namespace)"
[ -f "$root/.gpucore-rocm-root" ] || skip "no ROCm root at $root (scripts/rocm-root.sh)"
[ -x "$programs/$target/hip_vadd" ] || skip "no $programs/$target/hip_vadd (kfdemu-build-programs)"
if [ "$library" = debian ]; then
  header=$root/usr/include/amd-dbgapi/amd-dbgapi.h
  [ -f "$header" ] || skip "the root has no librocm-dbgapi0/amd-dbgapi-dev"
  prefix=
else
  prefix=$(cd "$library" 2>/dev/null && pwd) || skip "no library prefix $library"
  header=$prefix/include/amd-dbgapi/amd-dbgapi.h
  if [ ! -f "$header" ] || [ ! -e "$prefix/lib/librocm-dbgapi.so.0" ]; then
    skip "no amd-dbgapi.h or librocm-dbgapi.so.0 under $prefix"
  fi
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -f "$work"/{amd.view,gpucore.view,view.diff,moment.core,dump.jsonl,emu.err,emu.out}

# The host's C library and loader for gpucore inside the root (tests/kfdemu/gpucore/run-case.sh).
host_libdir=$(dirname "$(ldd "$gpucore" | sed -n 's/^.*libc\.so\.6 => \([^ ]*\) .*$/\1/p')")
host_loader=$(basename "$(find "$host_libdir" -maxdepth 1 -name 'ld-linux-*.so.*' | head -1)")
host_at=/run/gpucore-host/lib
cat >"$work/gpucore-in-root" <<EOS
#!/bin/sh
exec $host_at/$host_loader --library-path $host_at $gpucore "\$@"
EOS
chmod 755 "$work/gpucore-in-root"
cp "$programs/$target/hip_vadd" "$work/hip_vadd"
binds=(--bind "$host_libdir:$host_at" --bind "$build" --bind "$work" --bind "$here/programs")
[ -z "$prefix" ] || binds+=(--bind "$prefix")

# 1. the client
client=$work/dbgapi_attach
if [ -z "$prefix" ] && [ -x "$programs/$target/dbgapi_attach" ] &&
   grep -q 'view process' "$programs/$target/dbgapi_attach"; then
  cp "$programs/$target/dbgapi_attach" "$client"
else
  flags="-lrocm-dbgapi"
  [ -z "$prefix" ] || flags="-I$prefix/include -L$prefix/lib -Wl,-rpath,$prefix/lib -lrocm-dbgapi"
  timeout "$STEP_TIMEOUT" "$kfdemu" --root "$root" "${binds[@]}" -- sh -c \
    "clang-17 -g -O2 -std=c11 -Wall -Werror -o '$client' '$here/programs/dbgapi_attach.c' $flags" ||
    die "compiling the client against $header"
fi

# 2.-3. under the emulator: the hung program, the library's view, the capture. The emulator's
# -v lines (its stderr, in the work directory) say when the kernel is held.
# shellcheck disable=SC2016 # expanded by the shell in the root
inner='
w=$1 tenths=$2 step=$3
HSA_ENABLE_DEBUG=1 "$w/hip_vadd" >"$w/program.out" 2>&1 & p=$!
i=0
until grep -q "dispatch of .*vadd.*: hang" "$w/emu.err"; do
  i=$((i + 1)); [ $i -le $tenths ] || { echo "no hung dispatch"; kill -9 $p; exit 3; }
  sleep 0.1
done
timeout $step "$w/dbgapi_attach" -r $p >"$w/amd.out" 2>"$w/amd.err"; a=$?
timeout $step "$w/gpucore-in-root" capture -o "$w/moment.core" $p >"$w/capture.out" 2>"$w/capture.err"; c=$?
kill -9 $p; wait $p
echo "client $a capture $c"
[ $a -eq 0 ] && [ $c -eq 0 ]
'
rc=0
timeout $((3 * STEP_TIMEOUT + HANG_WAIT_TENTHS / 10)) "$kfdemu" -v --root "$root" "${binds[@]}" \
  --faults "$here/plans/hang.json" -- sh -c "$inner" sh "$work" "$HANG_WAIT_TENTHS" "$STEP_TIMEOUT" \
  >"$work/emu.out" 2>"$work/emu.err" </dev/null || rc=$?
[ "$rc" -ne 69 ] || skip "gpucore-kfdemu cannot emulate here: $(grep -v '^gpucore-kfdemu: \[' "$work/emu.err" | tail -3)"
[ "$rc" -eq 0 ] || die "the run under the emulator: $(cat "$work/emu.out") $(tail -5 "$work/amd.err" "$work/capture.err" 2>/dev/null)"
grep '^view ' "$work/amd.out" | LC_ALL=C sort >"$work/amd.view"
sed -n 's/^dbgapi_attach: \(library version .*\)$/compare: AMD'"'"'s \1/p' "$work/amd.out"
[ -s "$work/amd.view" ] || die "the client printed no view: $(head -20 "$work/amd.out")"

# 4. the core through gpucore's library
"$gpucore" dbgapi-dump --json "$work/moment.core" >"$work/dump.jsonl" ||
  die "gpucore dbgapi-dump on the core"
python3 "$here/dbgapi_view.py" "$header" <"$work/dump.jsonl" | LC_ALL=C sort >"$work/gpucore.view"

# 5. field by field
python3 - "$work/amd.view" "$work/gpucore.view" "$work/view.diff" <<'EOF'
import re
import sys
def load(p):
    d = {}
    for line in open(p):
        k, _, v = line.rstrip("\n").partition(" = ")
        d[k] = v
    return d
# Differences gpucore makes on purpose (docs/dbgapi.md, "Deliberate differences"): a field
# pattern and what AMD's library answers there.
DELIBERATE = [
    (re.compile(r"^view queue \d+ \| (state|error_reason)$"),
     "error The operation is not currently implemented"),
]
a, g = load(sys.argv[1]), load(sys.argv[2])
keys = sorted(set(a) | set(g))
equal = differ = only_a = only_g = deliberate = 0
with open(sys.argv[3], "w") as out:
    for k in keys:
        if k in a and k in g:
            if a[k] == g[k]:
                equal += 1
                continue
            if any(p.match(k) and a[k] == v for p, v in DELIBERATE):
                deliberate += 1
                out.write("%s (deliberate)\n  AMD:     %s\n  gpucore: %s\n" % (k, a[k], g[k]))
                continue
            differ += 1
            out.write("%s\n  AMD:     %s\n  gpucore: %s\n" % (k, a[k][:300], g[k][:300]))
        elif k in a:
            only_a += 1
            out.write("%s\n  AMD:     %s\n  gpucore: (none)\n" % (k, a[k][:300]))
        else:
            only_g += 1
            out.write("%s\n  AMD:     (none)\n  gpucore: %s\n" % (k, g[k][:300]))
print("compare: %d facts, %d equal, %d differ as documented, %d differ, only AMD %d, "
      "only gpucore %d" % (len(keys), equal, deliberate, differ, only_a, only_g))
sys.exit(0 if equal + deliberate == len(keys) else 1)
EOF
