#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# One capture case of bench/hostile/couri.tsv: a gpucore-inferior (rdna2-illegal) whose link map
# names, by a file:// URI, one hostile file; capture it with GPUCORE (old or new), kill the
# inferior, and say whether the file's bytes reached the core.
#
#   bench_capture.sh GPUCORE BUILD SOURCE WORKDIR KIND
#
# KIND: fifo (a FIFO nobody writes), notelf (a readable non-ELF file), secret (a symlink to a
# root-only 0600 AMDGPU object, the inferior running as nobody; needs root).
# Exit status: the capture's (124: it was still running after 40 s and was killed).
# Last line: "note: ..." (bytes in the core or not).
set -u
gpucore=$1 b=$2 s=$3 w=$4 kind=$5
marker=GPUCORE-BENCH-CO-MARKER-51c2
cd "$w" || exit 2
chmod 755 "$w"
runas=()
case $kind in
  fifo) mkfifo target; path=$w/target ;;
  notelf) { echo "$marker"; head -c 4096 /dev/zero; } >target; chmod 644 target; path=$w/target ;;
  secret)
    cp "$b/tests/scenario-objects/trap.gfx1030.co" secret.co && echo "$marker" >>secret.co
    chmod 600 secret.co; ln -s "$w/secret.co" target; path=$w/target
    runas=(setpriv --reuid=nobody --regid=nogroup --clear-groups) ;;
  *) echo "unknown kind $kind" >&2; exit 2 ;;
esac
python3 - "$s/tests/scenarios/rdna2-illegal.json" scen.json "$path" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["code_objects"][0]["uri"] = "file"
d["code_objects"][0]["uri_path"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
: >ready; chmod 666 ready
"${runas[@]}" "$b/kfd/sim/gpucore-inferior" scen.json --objects "$b/tests/scenario-objects" \
  --describe ready >inferior.log 2>&1 &
ipid=$!
for _ in $(seq 1 500); do [ -s ready ] && break; sleep 0.01; done
rc=0
timeout 40 "$gpucore" capture --kfd sim "$ipid" -o x.core >capture.out 2>capture.err || rc=$?
kill -KILL "$ipid" 2>/dev/null; wait "$ipid" 2>/dev/null
if [ ! -e x.core ]; then
  echo "note: no core (capture exit $rc)"
elif grep -qa "$marker" x.core; then
  echo "note: the file's bytes ARE in the core"
else
  echo "note: the file's bytes are not in the core"
fi
exit "$rc"
