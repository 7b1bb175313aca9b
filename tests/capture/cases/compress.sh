#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# capture --compress=5: a zstd core that passes every check of a plain one.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior rdna3-assert continue
gc cap capture --kfd sim --compress=5 "$ipid" -o out/core
expect_rc 0 cap
check_core out/core
[ "$(json "d['file']['compressed']")" = True ] || fail "core is not compressed"
driver_clean
stop_inferior
exit 0
