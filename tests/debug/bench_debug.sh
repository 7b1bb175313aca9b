#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# One case of bench/hostile/debug.tsv: `gpucore debug` (GPUCORE, old or new) on a hostile core,
# with a stand-in debugger that records what it was given. The last line says what the
# debugger got and what was left in $TMPDIR ("note: ...").
#
#   bench_debug.sh GPUCORE BUILD WORKDIR CASE
#
# CASE: kmsg (the capture metadata names /proc/kmsg), kmsg-sysroot (the same, --sysroot /),
# dotdot (names /../../../../bin/true, --sysroot DIR), symlink (names /bin/app, a link to
# /bin/true below --sysroot DIR), fill-32g (a 1 MB core of 32 GiB of data, under a 1 GiB
# file-size limit so the old program cannot fill the disk), fill-tmpfs (512 MiB of data,
# $TMPDIR a 256 MiB tmpfs), zero-tmpfs (512 MiB of zeros there: the copy is holes).
# Exit status: gpucore's.
set -u
gpucore=$1 b=$2 w=$3 kase=$4
cd "$w" || exit 2
mkdir -p tmp root/bin
export TMPDIR=$w/tmp
cat >fake-debugger <<'FAKE'
#!/usr/bin/env bash
x=${@: -2:1}
if [ "$x" = -c ]; then echo "the debugger got the core alone"
else echo "the debugger got the program $x ($(readlink -f -- "$x" 2>/dev/null))"; fi >fake.log
exit 0
FAKE
chmod +x fake-debugger
opts=()
small=
case $kase in
  kmsg) "$b/tests/gpucore-mkhostile-exe" x.core meta /proc/kmsg ;;
  kmsg-sysroot) "$b/tests/gpucore-mkhostile-exe" x.core meta /proc/kmsg; opts=(--sysroot /) ;;
  dotdot) "$b/tests/gpucore-mkhostile-exe" x.core meta /../../../../bin/true; opts=(--sysroot "$w/root") ;;
  symlink) ln -s /bin/true root/bin/app; "$b/tests/gpucore-mkhostile-exe" x.core meta /bin/app
           opts=(--sysroot "$w/root") ;;
  fill-32g) "$b/tests/gpucore-mkhostile-reader" x.core fill-32g ;;
  fill-tmpfs | zero-tmpfs)
    mkdir -p small
    mount -t tmpfs -o size=256m tmpfs small || exit 2
    small=$w/small
    export TMPDIR=$small
    "$b/tests/gpucore-mkhostile-reader" x.core "${kase%-tmpfs}-4g" 8 ;;
  *) echo "unknown case $kase" >&2; exit 2 ;;
esac
rc=0
if [ "$kase" = fill-32g ]; then
  prlimit --fsize=1073741824 -- "$gpucore" debug --debugger ./fake-debugger "${opts[@]}" x.core \
    >out 2>err || rc=$?
else
  "$gpucore" debug --debugger ./fake-debugger "${opts[@]}" x.core >out 2>err || rc=$?
fi
left=$(find "$TMPDIR" -type f -printf '%s\n' | awk '{n++; s += $1} END {printf "%d files, %.1f MiB", n, s / 1048576}')
echo "note: $(cat fake.log 2>/dev/null || echo 'the debugger was not started'); left in TMPDIR: $left"
[ -z "$small" ] || umount "$small"
exit "$rc"
