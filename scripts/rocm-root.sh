#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the Debian 13 (trixie) root file system with AMD's ROCm user space (ROCr, the thunk,
# rocminfo, HIP and hipcc) that gpucore-kfdemu runs programs in (`gpucore-kfdemu --root`), and
# that the kfdemu tests compile and run their programs in (tests/kfdemu.cmake).
#
#   scripts/rocm-root.sh               build the root when missing or out of date, else say so
#   scripts/rocm-root.sh --print-path  print the root's path only
#   GPUCORE_ROCM_ROOT=DIR              the root at DIR, not /var/cache/gpucore/rocm-root-trixie
#   GPUCORE_DEBIAN_MIRROR=URL          another Debian mirror (recorded, does not force a rebuild)
#
# The root is up to date when its stamp file records the suite and package list below; a
# changed list rebuilds it. The stamp also records the versions apt resolved, which the tests
# and bug reports can quote. The build goes to DIR.new and is renamed into place when it is
# complete, so a half-built root is never used; a DIR.new left by an interrupted run is removed
# first. The script touches nothing but DIR, DIR.new, DIR.old (the replaced root, while it is
# removed), mmdebstrap's log DIR.log (kept when the build fails) and the lock file DIR.lock,
# which keeps two runs (two engineers' test runs on one machine) from building at once.
#
# Exit status: 0 the root is in place; 1 it could not be built (the message says why: not root,
# no network, no mmdebstrap); 2 usage.
set -euo pipefail

prog=rocm-root
dest=${GPUCORE_ROCM_ROOT:-/var/cache/gpucore/rocm-root-trixie}
suite=trixie
mirror=${GPUCORE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# What the tests use, named even where another package already depends on it, so that the
# list says what the root is for. Measured 2026-11: ROCr 6.1.2, hsakmt 6.2.4, HIP 5.7.1,
# rocminfo 6.1.2, clang 17, ROCdbgapi 5.7.1; 0.9 GB (du -sh; the debugger library adds 2 MB),
# 2-4 minutes to build.
PACKAGES=(
  libhsa-runtime64-1 libhsakmt1   # ROCr and the thunk: what talks to /dev/kfd
  rocminfo                        # the smoke test (kfdemu-rocminfo)
  libamdhip64-5 libamdhip64-dev hipcc  # HIP's runtime and compiler: tests/kfdemu/programs/*.hip
  libhsa-runtime-dev              # HSA headers: tests/kfdemu/programs/hsa_dispatch.c
  clang-17 lld-17                 # the host compiler and the code-object linker of that program
  librocm-dbgapi0 amd-dbgapi-dev  # AMD's debugger library: tests/kfdemu/programs/dbgapi_attach.c
)

# The stamp's first lines are what decides "up to date"; its format number changes when the
# way the root is made changes (a rebuild is then due although the list is the same).
stamp_name=.gpucore-rocm-root
stamp_format=1

usage() {
  sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'
}

print_path=0
case ${1:-} in
  '') ;;
  --print-path) print_path=1 ;;
  -h|--help) usage; exit 0 ;;
  *) echo "$prog: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
case $dest in
  /*) ;;
  *) echo "$prog: GPUCORE_ROCM_ROOT must be an absolute path, not '$dest'" >&2; exit 2 ;;
esac
dest=${dest%/}
if [ "$print_path" = 1 ]; then
  echo "$dest"
  exit 0
fi

# The lines of the stamp that must match for the root to be reused.
wanted_stamp() {
  printf 'format %s\nsuite %s\npackages %s\n' "$stamp_format" "$suite" "${PACKAGES[*]}"
}

up_to_date() {
  [ -f "$dest/$stamp_name" ] && [ "$(head -3 "$dest/$stamp_name")" = "$(wanted_stamp)" ]
}

summary() {
  printf '%s: %s: %s, %s\n' "$prog" "$1" "$dest" "$(du -sh "$dest" 2>/dev/null | cut -f1)"
  sed -n 's/^version /  /p' "$dest/$stamp_name"
}

# A mount left under DIR (mmdebstrap's /proc or /dev of an interrupted run) would stop its
# removal, or worse be emptied by it: unmount those first, then remove without crossing file
# systems.
remove_tree() {
  local dir=$1 mnt
  [ -e "$dir" ] || return 0
  # The fifth field of mountinfo is the mount point; the deepest first.
  awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
    sort -r | while read -r mnt; do umount -l "$mnt" || true; done
  rm -rf --one-file-system "$dir"
}

parent=$(dirname "$dest")
new=$dest.new
old=$dest.old

# Fast path first: nothing to do needs neither root nor the network. A DIR.new an interrupted
# rebuild left beside a good root is removed when no other run holds the lock (it may be
# building it right now).
if up_to_date; then
  if [ -e "$new" ] && [ -w "$parent" ]; then
    exec 9>"$dest.lock"
    if flock -n 9; then
      echo "$prog: removing $new, left by an interrupted run"
      remove_tree "$new"
    fi
  fi
  summary "up to date"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "$prog: need root to build the ROCm root at $dest (mmdebstrap runs as root here;" \
    "gpucore-kfdemu needs root anyway)" >&2
  exit 1
fi

# mmdebstrap on the host, installed as scripts/setup.sh installs packages.
if ! dpkg-query -W -f='${Status}' mmdebstrap 2>/dev/null | grep -q "install ok installed"; then
  echo "$prog: installing mmdebstrap"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -q && apt-get install -y -q --no-install-recommends mmdebstrap; }; then
    echo "$prog: cannot install mmdebstrap (no network?); the ROCm root is not built" >&2
    exit 1
  fi
fi

mkdir -p "$parent"
exec 9>"$dest.lock"
if ! flock -n 9; then
  echo "$prog: another run is building $dest; waiting for it"
  flock 9
  if up_to_date; then
    summary "built by the other run"
    exit 0
  fi
fi

if [ -e "$new" ]; then
  echo "$prog: removing $new, left by an interrupted run"
  remove_tree "$new"
fi
remove_tree "$old"

if [ -e "$dest" ]; then
  echo "$prog: $dest is out of date (its stamp does not list: ${PACKAGES[*]}); rebuilding"
else
  echo "$prog: building $dest (Debian $suite, ${PACKAGES[*]})"
fi

# mmdebstrap's log goes beside the build; on failure its end is shown and the file kept.
log=$dest.log
start=$(date +%s)
include=$(IFS=,; echo "${PACKAGES[*]}")
if ! mmdebstrap --variant=apt --include="$include" "$suite" "$new" "$mirror" >"$log" 2>&1; then
  tail -25 "$log" >&2
  echo "$prog: mmdebstrap failed (the end of $log above); is $mirror reachable from" \
    "here? The ROCm root is not built" >&2
  remove_tree "$new"
  exit 1
fi
rm -f "$log"

# The stamp, written last into the new tree: its presence in DIR means a complete build.
{
  wanted_stamp
  printf 'mirror %s\n' "$mirror"
  printf 'built %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  # shellcheck disable=SC2016 # dpkg-query's own ${...} fields
  chroot "$new" dpkg-query -W -f='version ${Package} ${Version}\n' "${PACKAGES[@]}"
} >"$new/$stamp_name.tmp"
mv "$new/$stamp_name.tmp" "$new/$stamp_name"

if [ -e "$dest" ]; then
  mv -T "$dest" "$old"
fi
mv -T "$new" "$dest"
remove_tree "$old"
summary "built in $(($(date +%s) - start)) s"
