#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# capture --max-size: the core is cut to the budget, says so, and its manifest records why.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

start_inferior big-memory continue
gc cap capture --kfd sim --max-size 80K "$ipid" -o out/core
expect_rc 0 cap
grep -q "TRUNCATED (size budget)" cap.err || fail "summary does not say truncated: $(cat cap.err)"
info_ok out/core
[ "$(json "d['manifest']['truncated']")" = True ] || fail "manifest not marked truncated"
[ "$(json "d['manifest']['truncation_reason']")" = budget ] ||
  fail "truncation reason $(json "d['manifest']['truncation_reason']")"
driver_clean
stop_inferior
# A budget that holds the structures AMD's reader needs but not the 256 saved waves of
# vadd-fault: the structures go first (r_debug, amd_queue_t, the ring, the CWSR header),
# the waves are cut.
start_inferior vadd-fault continue
gc cap2 capture --kfd sim --max-size 100K "$ipid" -o out/core2
expect_rc 0 cap2
info_ok out/core2
for what in "r_debug" "amd_queue_t, queue 0" "AQL ring, queue 0" "CWSR header, queue 0 XCC 0"; do
  [ "$(json "any(e['label']=='$what' and e['status']=='captured' for e in d['manifest']['entries'])")" = True ] ||
    fail "$what was not captured within 100K: $(json "[e for e in d['manifest']['entries'] if e['tier']=='state']")"
done
[ "$(json "any(e['label'].startswith('CWSR wave area') and e['status']!='captured' for e in d['manifest']['entries'])")" = True ] ||
  fail "the saved waves fit 100K: the test does not test the order any more"
driver_clean
stop_inferior
exit 0
