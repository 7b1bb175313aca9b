#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# vadd-fault captured with a 1 MiB size budget: the report still leads with the fault and says
# what is missing.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

analyze_capture vadd-fault --max-size 1M
analyze_views
grep -q "^Not captured: the capture was cut short (the size budget was exhausted)" report.out ||
  fail "the report does not say the core was cut short: $(head -8 report.out)"
analyze_golden
exit 0
