#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The gpucore program on inputs that attack the reader (issue 10, items 7 and 8):
#   reader_hostile.sh GPUCORE MKHOSTILE WORKDIR plain|sanitized
# Every command must end by itself with the documented exit code and a one-line error naming
# the file. Memory is bounded with an address-space limit (prlimit --as), deterministic where
# wall-clock thresholds are not; sanitizer builds reserve terabytes of address space, so there
# the limit is left out and only the exit codes and messages are checked.
set -euo pipefail

gpucore=$1 mk=$2 work=$3 kind=$4
mkdir -p "$work"
cd "$work"
rm -rf ./*

fail() { echo "FAIL: $*" >&2; exit 1; }

# Address space for one command: the reader's default budget is 128 MiB for these small files;
# the program, its libraries (LLVM among them) and the 64 MiB frame cache fit well in 1 GiB,
# while every case below asked for 0.3 to 2 GiB before the budget existed.
limit=()
if [ "$kind" = plain ] && command -v prlimit >/dev/null; then
  limit=(prlimit --as=$((1024 << 20)) --)
fi

# expect_exit CODE CMD... : run CMD under the limit and a 60 s guard against hangs.
expect_exit() {
  local want=$1; shift
  set +e
  timeout 60 "${limit[@]}" "$@" >out.txt 2>err.txt
  local got=$?
  set -e
  [ "$got" -ne 124 ] || fail "'$*' hung (killed after 60 s)"
  [ "$got" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $got, expected $want"; }
}
stderr_has() { grep -q -- "$1" err.txt || { cat err.txt >&2; fail "stderr lacks '$1'"; }; }
one_line() { [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt >&2; fail "not one line"; }; }

# --- item 8: a FIFO, a device or a directory as the core path: refused at once (66) ---------
mkfifo core.fifo
"$mk" small.core frame-bomb-64 64
for cmd in "info core.fifo" "analyze core.fifo" "decompress core.fifo out.core" \
           "compress core.fifo out.core" "analyze --host core.fifo small.core" \
           "dbgapi-dump core.fifo"; do
  # shellcheck disable=SC2086
  expect_exit 66 "$gpucore" $cmd
  stderr_has "core.fifo: is a FIFO, expected a regular core file"
  one_line
done
expect_exit 66 "$gpucore" info /dev/zero
stderr_has "/dev/zero: is a character device"
expect_exit 66 "$gpucore" decompress . out.core
stderr_has "is a directory"
[ ! -e out.core ] || fail "decompress of a FIFO left an output"

# --- item 7: amplification, refused with 65 or read within the budget -----------------------
"$mk" bomb.core frame-bomb
for cmd in "info bomb.core" "analyze bomb.core" "decompress bomb.core out.core"; do
  # shellcheck disable=SC2086
  expect_exit 65 "$gpucore" $cmd
  stderr_has "bomb.core: offset 0x.*decompresses to 0x10000000 bytes, more than the limit"
  one_line
done

"$mk" note.core note-1g
for cmd in "info note.core" "analyze note.core" "decompress note.core out.core"; do
  # shellcheck disable=SC2086
  expect_exit 65 "$gpucore" $cmd
  stderr_has "note.core: offset 0x78: the PT_NOTE segments needs 0x40000000 bytes of memory"
  stderr_has "budget are left (raise it with GPUCORE_MEM_BUDGET=SIZE)"
done
# The budget can be raised from the environment, and a bad value is a usage error.
expect_exit 64 env GPUCORE_MEM_BUDGET=lots "$gpucore" info note.core
stderr_has "GPUCORE_MEM_BUDGET=lots"

"$mk" manifest.core manifest-4m
expect_exit 65 "$gpucore" info manifest.core
stderr_has "manifest.core: offset 0x78: the PT_NOTE segments needs 0xa000038 bytes"

# Half as many records fit the reader's budget as bytes, but not as the 2M entries of info's
# model (about 1 KiB each, 2.5 GB before): info charges what it builds to the same budget.
"$mk" manifest2.core manifest-4m 2
expect_exit 65 "$gpucore" info manifest2.core
stderr_has "manifest2.core: the manifest"
stderr_has "GPUCORE_MEM_BUDGET=SIZE"
expect_exit 65 "$gpucore" info --json manifest2.core

"$mk" phdrs.core phdrs-1m
expect_exit 0 "$gpucore" info phdrs.core
grep -q "56.0 MiB uncompressed" out.txt || { cat out.txt >&2; fail "info does not show the table"; }

# 16 frames of 64 MiB, each read for its note: past what opening may decode (4 x the budget);
# with a budget of 512 MiB it opens, one frame cached at a time.
"$mk" bomb64.core frame-bomb-64
expect_exit 65 "$gpucore" info bomb64.core
stderr_has "bomb64.core: offset 0x.*(4 x its memory budget)"
expect_exit 0 env GPUCORE_MEM_BUDGET=512M "$gpucore" info bomb64.core
expect_exit 0 env GPUCORE_MEM_BUDGET=512M "$gpucore" decompress bomb64.core out.core
[ "$(stat -c %s out.core)" -gt $((1 << 30)) ] || fail "decompress wrote a short image"
rm -f out.core

echo "reader hostile inputs: ok ($kind)"
