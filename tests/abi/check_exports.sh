#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Export-list check (conventions G-VIS-2): the functions declared GPUCORE_API in the public
# headers, the names listed in libcore/libgpucore.map and the dynamic symbols libgpucore.so
# defines must be the same three sets. Catches a forgotten map entry, an accidental export
# and a declared-but-unimplemented function.
#   check_exports.sh LIBGPUCORE.so SOURCE_DIR
set -euo pipefail
lib=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declarations: "GPUCORE_API <type> name(" possibly with the name on the next line.
cat "$src"/base/include/gpucore/*.h "$src"/schema/include/gpucore/*.h \
    "$src"/libcore/include/gpucore/*.h |
  tr '\n' ' ' | grep -o 'GPUCORE_API[^;{]*(' | grep -v '#define' |
  sed -E 's/\($//; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort -u > "$tmp/declared"

grep -Eo '^[[:space:]]+gpucore_[A-Za-z0-9_]+;' "$src/libcore/libgpucore.map" |
  tr -d ' \t;' | sort -u > "$tmp/mapped"

nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWw]$/ {print $3}' | sed 's/@.*//' |
  sort -u > "$tmp/exported"

status=0
report() {
  if ! diff -u "$tmp/$1" "$tmp/$2" > "$tmp/diff"; then
    echo "$3:"; sed -n '3,$p' "$tmp/diff" | grep '^[+-]'; status=1
  fi
}
report declared mapped "public headers (-) vs libgpucore.map (+)"
report declared exported "public headers (-) vs exported by $(basename "$lib") (+)"
[ "$status" -eq 0 ] && echo "exports ok: $(wc -l < "$tmp/declared") functions"
exit $status
