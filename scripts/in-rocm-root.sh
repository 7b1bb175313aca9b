#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run a command inside the Debian 13 ROCm root (scripts/rocm-root.sh) on the emulated GPU
# (gpucore-kfdemu), with this build's gpucore on its PATH and its hook at hand:
#
#   scripts/in-rocm-root.sh [EMULATOR OPTION]... -- COMMAND [ARG]...
#
# EMULATOR OPTIONs are gpucore-kfdemu's (--faults PLAN, --device NAME, --bind PATH, -v).
# Inside, COMMAND sees:
#   gpucore                       this build's gpucore (the host's program and libraries)
#   $GPUCORE_HOOK                 this build's libgpucore-hook.so (for HSA_TOOLS_LIB)
#   the repository and the build tree at their host paths (read-write: cores written there
#   stay), and the current directory when it lies below one of them.
# The root's C library is Debian 13's and the build's is this host's: inside, gpucore runs
# through the host's own dynamic loader and libraries, bound at /run/gpucore-host/lib, so the
# two never mix. Environment: GPUCORE_BUILD (default build), GPUCORE_ROCM_ROOT (as
# scripts/rocm-root.sh).
#
# Exit status: COMMAND's; 64 usage; 69 no root or no emulator here (the message says which).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${GPUCORE_BUILD:-$repo/build}" 2>/dev/null && pwd) ||
  { echo "in-rocm-root: no build tree at ${GPUCORE_BUILD:-$repo/build}" >&2; exit 69; }
root=$("$repo/scripts/rocm-root.sh" --print-path)
kfdemu=$build/kfd/emu/gpucore-kfdemu
gpucore=$build/cli/gpucore
[ -f "$root/.gpucore-rocm-root" ] ||
  { echo "in-rocm-root: no ROCm root at $root: run scripts/rocm-root.sh" >&2; exit 69; }
[ -x "$kfdemu" ] && [ -x "$gpucore" ] ||
  { echo "in-rocm-root: build gpucore-cli and gpucore-kfdemu in $build first" >&2; exit 69; }

opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
[ $# -ge 2 ] || { echo "usage: in-rocm-root.sh [EMULATOR OPTION]... -- COMMAND [ARG]..." >&2; exit 64; }
shift

# The host's C library directory, as gpucore resolves it, and the loader in it (not /lib64's
# link: inside the root that absolute link names the root's loader).
libdir=$(dirname "$(ldd "$gpucore" | sed -n 's/^.*libc\.so\.6 => \([^ ]*\) .*$/\1/p')")
loader=$(find "$libdir/" -maxdepth 1 -name 'ld-linux-*.so.*' | head -1)
[ -n "$loader" ] || { echo "in-rocm-root: no dynamic loader beside $libdir/libc.so.6" >&2; exit 69; }
libs_at=/run/gpucore-host/lib
bindir=$build/in-rocm-root/bin
mkdir -p "$bindir"
# (written under a name of this run's own and renamed: runs in parallel, the tests', each
# replace it whole with the same text)
cat >"$bindir/gpucore.$$" <<EOS
#!/bin/sh
# this build's gpucore, inside the ROCm root (written by scripts/in-rocm-root.sh)
exec $libs_at/$(basename "$loader") --library-path $libs_at $gpucore "\$@"
EOS
chmod 755 "$bindir/gpucore.$$"
mv -f "$bindir/gpucore.$$" "$bindir/gpucore"

exec env PATH="$bindir:/usr/local/bin:/usr/bin:/bin" GPUCORE_BIN="$bindir/gpucore" \
  GPUCORE_HOOK="$build/capture/hook/libgpucore-hook.so" \
  "$kfdemu" --root "$root" --bind "$libdir:$libs_at" --bind "$repo" --bind "$build" \
  "${opts[@]}" -- "$@"
