# SPDX-License-Identifier: MIT
# Helpers for bench/hostile/ingest.tsv (sourced after lib.sh's variables GPUCORE, B, S, W are
# set by bench/hostile.py): a host core streamed into `gpucore ingest` as the kernel's
# core_pattern pipe would.

# host_core: $W/h.core, a small host core as the kernel writes one (tests/tools/mk_host_core.py).
host_core() {
  python3 "$S/tests/tools/mk_host_core.py" "$W/h.core"
}

# stream SIZE: $W/h.core with one more PT_LOAD of SIZE (2G, 1M) of random bytes, on stdout
# (tests/merge/stream_writer.py); the bytes written end up in $W/count, its stderr in $W/werr.
stream() {
  python3 "$S/tests/merge/stream_writer.py" huge "$W/h.core" "$1" --random --count "$W/count" \
    2>"$W/werr"
}

# has_option OPT: the gpucore under test's ingest takes OPT (the old one has no size limit).
has_option() {
  "$GPUCORE" ingest --help 2>/dev/null | grep -q -- "$1"
}
