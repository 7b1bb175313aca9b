# SPDX-License-Identifier: MIT
# Tests of capture (capture_plan). Being written.
