#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The scenario rdna3-assert captured whole: every view against the scenario, and the golden report.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

analyze_capture rdna3-assert
analyze_views
analyze_golden
exit 0
