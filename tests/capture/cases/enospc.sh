#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A core written on a full file system (a 1 MiB tmpfs): exit 74 naming the disk, no bad file
# left, the driver left clean.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p small
mount -t tmpfs -o size=1m tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
start_inferior vadd-fault continue
gc cap capture --kfd sim --tier all "$ipid" -o small/core
[ "$rc" -eq 74 ] || fail "capture on a full file system exited $rc, expected 74: $(cat cap.err)"
one_line cap
grep -q "small/core: .*No space left on device" cap.err || fail "the message does not say the disk is full: $(cat cap.err)"
no_bad_core small/core
driver_clean
stop_inferior
exit 0
