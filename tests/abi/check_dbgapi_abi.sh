#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# amd-dbgapi 0.77 ABI check for libgpucore-dbgapi. dbgapi/abi_table.def is the single
# source (one row per exported function: name and version node); this script checks it
# against everything else that must agree with it:
#   1. dbgapi/libgpucore-dbgapi.map: the same nodes in the same order, each inheriting
#      the one before, "local: *;" in the first, and exactly the table's functions per node;
#   2. dbgapi/include/amd-dbgapi/amd-dbgapi.h: exactly the table's functions are
#      declared, each tagged AMD_DBGAPI_VERSION_0_xx with its table node; the header compiles
#      as C11 and (if a C++ compiler exists) as C++11 and C++17;
#   3. a shared object's dynamic symbols (nm -D --with-symbol-versions, readelf -V): every table
#      function defined as NAME@@AMD_DBGAPI_0.xx (default version, table node), nothing else
#      exported except the node names, and each node's version definition naming the previous
#      node as parent.
#
#   check_dbgapi_abi.sh SOURCE_DIR [LIB.so]
#
# Without LIB.so, step 3 runs on a stub library built here: a generated C file that defines
# every table function as a trivial function (plus one non-API function that the map must
# hide), linked with the map (cc -shared -fPIC -Wl,--version-script=...). That proves the map
# and the table agree. With LIB.so, step 3 runs on it (the real libgpucore-dbgapi.so).
# Environment: CC (default cc), CXX (default c++; skipped if absent).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 SOURCE_DIR [LIB.so]" >&2
  exit 2
fi
src=$1
lib=${2:-}
def=$src/dbgapi/abi_table.def
map=$src/dbgapi/libgpucore-dbgapi.map
hdr=$src/dbgapi/include/amd-dbgapi/amd-dbgapi.h
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

fail() {
  echo "FAIL: $*"
  status=1
}

# compare A B WHAT: A and B are sorted files; print the differences, named.
compare() {
  if ! diff -u "$tmp/$1" "$tmp/$2" > "$tmp/diff"; then
    fail "$3 (- $1, + $2):"
    sed -n '3,$p' "$tmp/diff" | grep '^[+-]' || true
  fi
}

for f in "$def" "$map" "$hdr"; do
  [ -r "$f" ] || { echo "FAIL: cannot read $f"; exit 1; }
done

# ---- the table ------------------------------------------------------------------------------
# Rows are exactly "GC_DBGAPI_ABI_FN(name, 0_xx)" / "GC_DBGAPI_ABI_NODE(0_xx)" at line start.
sed -n 's/^GC_DBGAPI_ABI_NODE(\([0-9]*\)_\([0-9]*\))[[:space:]]*$/AMD_DBGAPI_\1.\2/p' "$def" \
  > "$tmp/nodes"
sed -n 's/^GC_DBGAPI_ABI_FN(\([a-z0-9_]*\), *\([0-9]*\)_\([0-9]*\))[[:space:]]*$/\1 AMD_DBGAPI_\2.\3/p' \
  "$def" | sort > "$tmp/table"
# Every line mentioning a row macro outside comments and #define/#undef must have parsed.
rows=$(grep -c '^GC_DBGAPI_ABI_\(FN\|NODE\)(' "$def" || true)
parsed=$(($(wc -l < "$tmp/nodes") + $(wc -l < "$tmp/table")))
[ "$rows" -eq "$parsed" ] || fail "abi_table.def: $rows rows but $parsed parse as NAME, 0_xx"
nfn=$(wc -l < "$tmp/table")
nnode=$(wc -l < "$tmp/nodes")
[ "$nfn" -eq 67 ] || fail "abi_table.def lists $nfn functions; amd-dbgapi 0.77.0 exports 67"
[ "$nnode" -eq 10 ] || fail "abi_table.def lists $nnode nodes; amd-dbgapi 0.77.0 defines 10"
dups=$(cut -d' ' -f1 "$tmp/table" | uniq -d)
[ -z "$dups" ] || fail "abi_table.def lists twice: $dups"
sort -u "$tmp/nodes" > "$tmp/nodes.sorted"
cut -d' ' -f2 "$tmp/table" | sort -u > "$tmp/nodes.used"
compare nodes.sorted nodes.used "nodes declared vs nodes used by functions"
# Nodes ascend by minor version.
sort -t. -k2,2n "$tmp/nodes" | cmp -s - "$tmp/nodes" || fail "abi_table.def nodes not ascending"

# ---- the version script ---------------------------------------------------------------------
# Strip /* */ comments, split into tokens ("{", "}", ";", words), then walk
# NODE { [global:] name; ... [local: *;] } [PARENT] ;
tr '\n' ' ' < "$map" | sed 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/: :g; s/[{};]/ & /g' |
  tr -s ' \t' '\n\n' | sed '/^$/d' > "$tmp/map.tokens"
awk -v out="$tmp" '
  function err(msg) { print "  token " NR " (" $0 "): " msg > (out "/map.errors") }
  BEGIN { state = "out" }
  state == "out"    { if ($0 !~ /^AMD_DBGAPI_[0-9]+\.[0-9]+$/) { err("expected a node name"); next }
                      n++; node[n] = $0; parent[n] = "-"; haslocal[n] = "-"; state = "open"; next }
  state == "open"   { if ($0 != "{") err("expected {"); state = "in"; mode = "global"; next }
  state == "in"     { if ($0 == "global:") { mode = "global"; next }
                      if ($0 == "local:") { mode = "local"; next }
                      if ($0 == ";") next
                      if ($0 == "}") { state = "after"; next }
                      if (mode == "local" && $0 == "*") { haslocal[n] = "local"; next }
                      if (mode == "global" && $0 ~ /^[a-z_][a-z0-9_]*$/) { print $0, node[n] > (out "/map"); next }
                      err("unexpected in node " node[n]); next }
  state == "after"  { if ($0 == ";") { state = "out"; next }
                      parent[n] = $0; state = "semi"; next }
  state == "semi"   { if ($0 != ";") err("expected ; after parent"); state = "out"; next }
  END {
    if (state != "out") print "  unterminated node " node[n] > (out "/map.errors")
    for (i = 1; i <= n; i++) {
      print node[i] > (out "/map.nodes")
      print node[i], parent[i], haslocal[i] > (out "/map.chain")
    }
  }' "$tmp/map.tokens"
touch "$tmp/map" "$tmp/map.errors" "$tmp/map.nodes" "$tmp/map.chain"
if [ -s "$tmp/map.errors" ]; then fail "libgpucore-dbgapi.map:"; cat "$tmp/map.errors"; fi
sort -o "$tmp/map" "$tmp/map"
compare table map "abi_table.def vs libgpucore-dbgapi.map (function node)"
cmp -s "$tmp/nodes" "$tmp/map.nodes" || { fail "map nodes differ from the table's, in order:";
  paste "$tmp/nodes" "$tmp/map.nodes"; }
# Chain: first node has no parent and "local: *"; node k inherits node k-1.
awk 'NR == 1 { if ($2 != "-" || $3 != "local") print "first node " $1 " must have local: * and no parent" }
     NR > 1  { if ($2 != prev) print "node " $1 " inherits " $2 ", expected " prev;
               if ($3 == "local") print "node " $1 ": local: belongs in the first node only" }
     { prev = $1 }' "$tmp/map.chain" > "$tmp/chain.errors"
if [ -s "$tmp/chain.errors" ]; then fail "libgpucore-dbgapi.map inheritance:"; cat "$tmp/chain.errors"; fi

# ---- the header -----------------------------------------------------------------------------
# Prototypes: "amd_dbgapi_NAME( ... ) AMD_DBGAPI_VERSION_0_xx;" once comments are removed.
tr '\n' ' ' < "$hdr" | sed 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/: :g' > "$tmp/hdr.flat"
grep -o 'amd_dbgapi_[a-z0-9_]*([^;]*;' "$tmp/hdr.flat" > "$tmp/hdr.protos" || true
sed -n 's/^\(amd_dbgapi_[a-z0-9_]*\)(.*AMD_DBGAPI_VERSION_\([0-9]*\)_\([0-9]*\);$/\1 AMD_DBGAPI_\2.\3/p' \
  "$tmp/hdr.protos" | sort > "$tmp/header"
untagged=$(grep -v 'AMD_DBGAPI_VERSION_[0-9]*_[0-9]*;$' "$tmp/hdr.protos" | cut -c1-60 || true)
[ -z "$untagged" ] || { fail "header functions without a version tag:"; echo "$untagged"; }
compare table header "abi_table.def vs amd-dbgapi.h (declared function and its tag)"
grep -o 'AMD_DBGAPI_VERSION_[0-9]*_[0-9]*' "$tmp/hdr.flat" | sort -u |
  sed 's/AMD_DBGAPI_VERSION_\([0-9]*\)_\([0-9]*\)/AMD_DBGAPI_\1.\2/' > "$tmp/header.tags"
compare nodes.sorted header.tags "abi_table.def nodes vs AMD_DBGAPI_VERSION_ tags in amd-dbgapi.h"
# Names of interfaces newer than 0.77 must not appear (docs/dbgapi-on-cores.md §6, §7.1).
for later in MEMORY_UNAVAILABLE INVALID_CLUSTER_ID SIGNIFICANT_ADDRESS_BITS cluster_get_info \
             AMD_DBGAPI_VERSION_0_78 AMD_DBGAPI_VERSION_0_79 AMD_DBGAPI_VERSION_0_80; do
  if grep -q "$later" "$tmp/hdr.flat"; then fail "amd-dbgapi.h declares $later (newer than 0.77)"; fi
done
# Compiles standalone as C11, C++11 and C++17 with strict warnings.
printf '#include <amd-dbgapi/amd-dbgapi.h>\nint gc_dbgapi_header_check;\n' > "$tmp/inc.c"
"$CC" -std=c11 -Wall -Wextra -Wpedantic -Wundef -Wstrict-prototypes -Werror -fsyntax-only \
  -I"$src/dbgapi/include" "$tmp/inc.c" || fail "amd-dbgapi.h does not compile as C11"
if command -v "$CXX" > /dev/null 2>&1; then
  for std in c++11 c++17; do
    "$CXX" -std=$std -Wall -Wextra -Wpedantic -Werror -fsyntax-only -x c++ \
      -I"$src/dbgapi/include" "$tmp/inc.c" || fail "amd-dbgapi.h does not compile as $std"
  done
else
  echo "note: no C++ compiler ($CXX); C++ compilation not checked"
fi

# ---- the shared object ----------------------------------------------------------------------
if [ -z "$lib" ]; then
  {
    echo '/* Generated by check_dbgapi_abi.sh: one trivial definition per abi_table.def row. */'
    cut -d' ' -f1 "$tmp/table" | sed 's/.*/void &(void);\nvoid &(void) {}/'
    echo 'int gc_dbgapi_not_exported(void);'
    echo 'int gc_dbgapi_not_exported(void) { return 0; }'
  } > "$tmp/stub.c"
  "$CC" -shared -fPIC -o "$tmp/libstub.so" "$tmp/stub.c" -Wl,--version-script="$map" \
    -Wl,-soname,librocm-dbgapi.so.0 || { fail "linking the stub library with the map"; exit 1; }
  lib=$tmp/libstub.so
fi
[ -r "$lib" ] || { fail "cannot read $lib"; exit 1; }
nm -D --defined-only --with-symbol-versions "$lib" > "$tmp/nm"
# Functions: "ADDR T name@@NODE" (default version). Anything else defined must be a node name.
awk '$2 ~ /^[TtWi]$/ { print $3 }' "$tmp/nm" | sed 's/@@\{1,2\}/ /' | sort > "$tmp/exported"
awk '$2 ~ /^[TtWi]$/ && $3 !~ /@@/ { print "  " $3 }' "$tmp/nm" > "$tmp/nondefault"
if [ -s "$tmp/nondefault" ]; then fail "functions not exported as name@@NODE:"; cat "$tmp/nondefault"; fi
compare table exported "abi_table.def vs $(basename "$lib") dynamic symbols (name node)"
awk '$2 == "A" { print $3 }' "$tmp/nm" | sed 's/@@.*//' | sort > "$tmp/absolute"
compare nodes.sorted absolute "abi_table.def nodes vs version-node symbols of $(basename "$lib")"
awk '$2 !~ /^[TtWiA]$/ { print "  " $0 }' "$tmp/nm" > "$tmp/others"
if [ -s "$tmp/others" ]; then fail "unexpected exported data symbols:"; cat "$tmp/others"; fi
# Version definitions: each node's parent is the node before it.
LC_ALL=C readelf -V -W "$lib" | awk '
  /^Version definition section/ { on = 1; next }
  /^Version (needs|symbols) section/ { on = 0 }
  on && /Name:/ { sub(/.*Name: /, ""); cur = $1; print "def " cur; next }
  on && /Parent 1:/ { sub(/.*Parent 1: /, ""); print "parent " cur " " $1 }' > "$tmp/verdef"
grep '^def AMD_DBGAPI_' "$tmp/verdef" | cut -d' ' -f2 > "$tmp/verdef.nodes" || true
cmp -s "$tmp/nodes" "$tmp/verdef.nodes" || { fail "version definitions of $(basename "$lib") differ:";
  paste "$tmp/nodes" "$tmp/verdef.nodes"; }
paste -d' ' <(sed -n '2,$p' "$tmp/nodes") <(sed -n '1,$p' "$tmp/nodes" | head -n -1) |
  sed 's/^/parent /' > "$tmp/parents.want"
grep '^parent ' "$tmp/verdef" > "$tmp/parents.got" || true
compare parents.want parents.got "node inheritance recorded in $(basename "$lib")"

if [ "$status" -eq 0 ]; then
  echo "dbgapi abi ok: $nfn functions in $nnode nodes; table, map, header and $(basename "$lib") agree"
fi
exit $status
