#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Reproducibility: every variant of the example core is byte-identical across runs, whatever
# the environment (time zone, locale, umask, working directory), so goldens and checksums of
# it can be committed.
. "$(dirname "$0")/common.sh"
setup "$@"

variants=("" "--compress" "--compress=19" "--compress=-5" "--split" "--split --compress")
i=0
for v in "${variants[@]}"; do
  # shellcheck disable=SC2086 # $v holds zero, one or two options
  make_core $v "a$i.core"
  mkdir -p elsewhere
  (
    cd elsewhere
    umask 077
    # shellcheck disable=SC2086
    env -i PATH=/usr/bin:/bin TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 "$mkexample" $v "../b$i.core"
  ) 2>mk.err || fail "second run of gpucore-mkexample $v failed: $(cat mk.err)"
  cmp "a$i.core" "b$i.core" || fail "two runs of gpucore-mkexample ${v:-(plain)} differ"
  i=$((i + 1))
done
# The variants are really different files.
cmp -s a0.core a1.core && fail "--compress wrote the same bytes as the plain core"
cmp -s a0.core a4.core && fail "--split wrote the same bytes as the unified core"
cmp -s a1.core a2.core && fail "--compress=19 wrote the same bytes as level 3"
echo "ok [$test_name]"
