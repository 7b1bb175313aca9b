#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A device buffer that cannot be read (EIO): the core is written and its manifest lists the
# unreadable range.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "errno": "EIO", "buffer": "b", "offset": 0, "size": 4096}]'
start_inferior vadd-fault continue
unset GPUCORE_SIM_FAULTS
gc cap capture --kfd sim --tier all "$ipid" -o out/core
expect_rc 0 cap
info_ok out/core
[ "$(json "d['manifest']['unreadable_ranges']")" -ge 1 ] || fail "no unreadable range in the manifest"
driver_clean
stop_inferior
exit 0
