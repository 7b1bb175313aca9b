#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install every Debian package gpucore needs to build, test and benchmark. Safe to run any
# number of times: it installs only what is missing and does nothing when all is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libelf-dev libdw-dev elfutils
  libzstd-dev zstd
  libcmocka-dev libjansson-dev libmsgpack-dev
  llvm-16-dev llvm-16 clang-16 lld-16 libclang-rt-16-dev
  gdb python3
  libhsa-runtime-dev g++  # the ROCm runtime's tools header, for the C++ check of its mirror (tests/hook)
  strace   # capture-tree-debugger-strace: a debugger in the tree of `gpucore run`
  pci.ids  # agent names in libgpucore-dbgapi, as AMD's library gives them
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
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
