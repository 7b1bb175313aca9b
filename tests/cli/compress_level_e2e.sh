#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The ends of the zstd level range the capture commands take (-7..-1 or 1..22, the range of
# `gpucore compress --level`) write a compressed core that reads back: a capture of a
# simulated GPU process at each, then `gpucore info` on the core and `gpucore decompress`.
#
# usage: compress_level_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS
# Exit codes: 0 pass, 1 fail (one "FAIL [name]: why" line), 77 skip (no ptrace rights).
set -eu
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5
test_name=compress-level-capture
# shellcheck source=../lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"

e2e_enter "$work"
e2e_need_ptrace
for lvl in -7 22; do
  e2e_capture_scenario "$scenarios/vadd-fault.json" "core$lvl" --compress=$lvl
  gc info info --json "core$lvl"
  expect_rc 0 info
  python3 - "info.out" "$lvl" <<'PY' || fail "core$lvl: $(cat info.out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["file"]["compressed"] is True, "not compressed"
assert "--compress=" + sys.argv[2] in d["capture"]["options"], d["capture"]["options"]
PY
  gc dec decompress "core$lvl" "plain$lvl"
  expect_rc 0 dec
  gc info info "plain$lvl"
  expect_rc 0 info
done
