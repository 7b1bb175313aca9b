# SPDX-License-Identifier: MIT
# Tests of capture (capture_host). Being written.
