# SPDX-License-Identifier: MIT
# Tests of analyze/ (process image, gpucore analyze). Being written.
