# SPDX-License-Identifier: MIT
# What `gpucore ingest --tier state` keeps of the context-save areas: the used parts of each
# XCC area, decided by the rule capture uses (gc_cwsr_used_parts, arch/cwsr.c).

# The rule itself, row by row.
gpucore_unit_test(test_cwsr_used SOURCES unit/test_cwsr_used.c LIBS gc_arch gc_schema)
