#!/bin/sh
# SPDX-License-Identifier: MIT
# check_seeds.sh GENERATOR CORPUS [SUBDIR]: the seeds GENERATOR writes today are the committed
# ones. Run GENERATOR into a temporary directory and compare every file it writes with the file
# of that name in CORPUS (below SUBDIR when the generator writes one folder per fuzz target).
# Committed files the generator does not write (crash reproducers the fuzzers found) are kept
# and not compared. A difference means the format changed without the seeds: rerun the
# generator as its comment says and commit the result.
set -eu
gen=$1 corpus=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" "$tmp" >/dev/null
bad=0 n=0
for f in $(cd "$tmp" && find . -type f | sort); do
    f=${f#./}
    n=$((n + 1))
    if [ ! -f "$corpus/$f" ]; then
        echo "$corpus/$f: missing (the generator writes it)"
        bad=1
    elif ! cmp -s "$tmp/$f" "$corpus/$f"; then
        echo "$corpus/$f: differs from what $(basename "$gen") writes today"
        bad=1
    fi
done
[ "$n" -gt 0 ] || { echo "$(basename "$gen") wrote no seed"; exit 1; }
[ "$bad" -eq 0 ] || exit 1
echo "$n seeds in sync"
