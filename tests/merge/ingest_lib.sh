# SPDX-License-Identifier: MIT
#
# What the ingest tests share; sourced after tests/lib/e2e.sh, with $writer (stream_writer.py)
# and $gpucore set.

# feed NAME WRITER-ARGS -- INGEST-ARGS: stream_writer.py WRITER-ARGS | gpucore ingest
# INGEST-ARGS; the writer's status in $wrc (3: it saw EPIPE), ingest's in $rc, ingest's output
# in NAME.out/.err, the writer's stderr in NAME.werr.
feed() {
  local name=$1 wargs=()
  shift
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; break; fi
    wargs+=("$1"); shift
  done
  set +e
  python3 "$writer" "${wargs[@]}" 2>"$name.werr" | "$gpucore" ingest "$@" >"$name.out" 2>"$name.err"
  local st=("${PIPESTATUS[@]}")
  set -e
  wrc=${st[0]} rc=${st[1]}
}
