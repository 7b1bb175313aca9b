#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The target names its executable, its mappings and its environment: bytes that are not
# UTF-8 there (a Latin-1 file name) become '?' in the notes, which hold UTF-8 only, and never
# cost the core (they made the capture fail with 64).

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

cp "$inferior" "inf$(printf '\xe9')"
inferior="$PWD/inf$(printf '\xe9')"
SLURM_JOB_ID="j$(printf '\xff')" start_inferior vadd-fault continue
gc cap capture --kfd sim --quiet "$ipid" -o out/core
expect_rc 0 cap
gc inf info --json out/core
expect_rc 0 inf
python3 - inf.out <<'PY' || fail "the names are not as expected: $(cat inf.out)"
import json, sys
c = json.load(open(sys.argv[1]))["capture"]
assert c["exe"].endswith("/inf?"), c["exe"]
assert c["job"] == "j?", c["job"]
PY
driver_clean
stop_inferior
exit 0
