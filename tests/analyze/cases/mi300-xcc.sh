#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The scenario mi300-xcc captured whole: every view against the scenario, and the golden report.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

analyze_capture mi300-xcc
analyze_views
analyze_golden
exit 0
