# SPDX-License-Identifier: MIT
# Helpers for the commands of bench/hostile/*.tsv (sourced: `. "$S/bench/hostile/lib.sh"`).
# The variables GPUCORE, B, S and W are set by bench/hostile.py.

# start_inferior SCENARIO [continue]: start gpucore-inferior in the background in $W; its pid
# in $ipid once it says it is ready. SCENARIO names one of tests/scenarios, or is a file of
# its own. "continue" (with a scenario's name): a copy whose runtime carries on after a GPU
# error, so the process outlives a capture.
start_inferior() {
  local file="$S/tests/scenarios/$1.json"
  [ -f "$1" ] && file=$1
  if [ "${2:-}" = continue ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["on_queue_error"]="continue"; json.dump(d, open(sys.argv[2], "w"))' \
      "$file" "$W/$1.json"
    file="$W/$1.json"
  fi
  : >"$W/inferior.out" # here, not in the background job: no earlier "ready" may be read
  "$B/kfd/sim/gpucore-inferior" "$file" --objects "$B/tests/scenario-objects" \
    >>"$W/inferior.out" 2>"$W/inferior.err" &
  ipid=$!
  for _ in $(seq 1 600); do
    grep -q ready "$W/inferior.out" 2>/dev/null && return 0
    kill -0 "$ipid" 2>/dev/null || { echo "inferior exited: $(cat "$W/inferior.err")" >&2; return 1; }
    sleep 0.05
  done
  return 1
}

stop_inferior() {
  kill -TERM "$ipid" 2>/dev/null
  wait "$ipid" 2>/dev/null
  ipid=
}

# store_with_core DIR: a store in DIR (root's, 0700) holding one small core, indexed by the new
# gpucore ($B's), so that old and new programs meet the same index.
store_with_core() {
  mkdir -m 700 "$1"
  "$B/tests/gpucore-mkexample" "$1/core.1" >/dev/null
  "$B/cli/gpucore" store --rescan --store "$1" >/dev/null
}

# store_sql DIR STATEMENTS: run STATEMENTS on the index of the store in DIR, as its writer could.
store_sql() {
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' \
    "$1/index.sqlite" "$2"
}

# control_bytes FILE: how many C0 control bytes but newline and tab, and DEL, FILE holds.
control_bytes() {
  LC_ALL=C tr -d '\n\t' <"$1" | LC_ALL=C tr -cd '\000-\037\177' | wc -c
}

# waves_note FILE: a note of what `gpucore analyze waves` wrote to FILE: the waves listed (text
# rows, or --json's records, and how many of them have their instruction).
waves_note() {
  python3 - "$1" <<'PY'
import json, re, sys
text = open(sys.argv[1], errors="replace").read()
if text.startswith("{"):
    try:
        w = json.loads(text).get("waves", [])
        print("note: %d waves listed, %d disassembled" %
              (len(w), sum(1 for x in w if x.get("instruction"))))
    except ValueError:
        print("note: not a whole JSON document (%d bytes)" % len(text))
else:
    print("note: %d waves listed" % len(re.findall(r"(?m)^ *[0-9]+ +[0-9]+ ", text)))
PY
}
