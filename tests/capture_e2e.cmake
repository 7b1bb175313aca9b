# SPDX-License-Identifier: MIT
# Tests of capture (capture_e2e). Being written.
