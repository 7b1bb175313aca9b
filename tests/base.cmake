# SPDX-License-Identifier: MIT
# Tests of base/: the status type and the helpers every module uses. Linked with gc_base alone,
# so the test also fails to link if base starts to depend on another module.
gpucore_unit_test(test_base SOURCES unit/test_base.c LIBS gc_base)
