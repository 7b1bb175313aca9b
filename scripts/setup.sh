#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install every Debian package gpucore needs to build, test and benchmark. Safe to run any
# number of times: it installs only what is missing and does nothing when all is present.
#
#   GPUCORE_LLVM=16 scripts/setup.sh   LLVM 16 instead of 19 (no gfx941/gfx942/gfx12 processor:
#                                      see docs/building.md)
#
# The Debian 13 root with AMD's ROCm user space that the kfdemu tests run in is not a host
# package: scripts/rocm-root.sh builds it (scripts/test.sh runs both).
set -euo pipefail

# One LLVM for everything: the disassembler library, the clang and ld.lld that compile the test
# kernels and the fuzz build, and llvm-objdump/-symbolizer/-dwarfdump/-readelf the tests compare with.
llvm=${GPUCORE_LLVM:-19}
case $llvm in
  ''|*[!0-9]*) echo "setup: GPUCORE_LLVM must be a major version (16, 19), not '$llvm'" >&2; exit 2 ;;
esac

PACKAGES=(
  build-essential cmake pkg-config
  libelf-dev libdw-dev elfutils
  libzstd-dev zstd
  libcmocka-dev libjansson-dev libmsgpack-dev
  libsqlite3-dev  # the core store's index (store/)
  "llvm-$llvm-dev" "llvm-$llvm" "clang-$llvm" "lld-$llvm"
  "libclang-rt-$llvm-dev"  # libFuzzer and the sanitizer runtimes of that clang
  gdb python3
  libhsa-runtime-dev g++  # the ROCm runtime's tools header, for the C++ check of its mirror (tests/hook)
  strace   # capture-tree-debugger-strace: a debugger in the tree of `gpucore run`
  pci.ids  # agent names in libgpucore-dbgapi, as AMD's library gives them
  libsystemd-dev systemd  # a journal entry per core (sd_journal_send); the tests start journald
  libpq-dev postgresql    # the fleet index (store/store_fleet*.c); the tests start a server
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Debian's postgresql would start its main cluster as a service; the tests start their own
# servers in temporary directories. policy-rc.d (Debian's own switch, exit 101 = "not now")
# keeps the packages from starting any service during this install, and goes afterwards.
policy=/usr/sbin/policy-rc.d
own_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$policy" >/dev/null
  "${SUDO[@]}" chmod 755 "$policy"
  own_policy=1
fi
rc=0
"${SUDO[@]}" apt-get update -q && "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" || rc=$?
[ -z "$own_policy" ] || "${SUDO[@]}" rm -f "$policy"
exit $rc
