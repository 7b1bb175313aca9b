#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Set up, build and run the whole test suite, twice: a normal build and an
# AddressSanitizer + UndefinedBehaviorSanitizer build (all but the benchmarks' smoke runs). Then a short libFuzzer smoke run of
# every fuzz target (their corpora already ran as ordinary tests in both builds), each input
# limited to 2 GiB of RSS and 10 s.
#
#   scripts/test.sh            everything
#   GPUCORE_FUZZ_SECONDS=0     skip the libFuzzer smoke run
#   GPUCORE_LLVM=16            with LLVM 16 instead of 19 (the tests that need 19 are skipped)
#   GPUCORE_ROCM_ROOT=DIR      the Debian 13 ROCm root of the kfdemu tests elsewhere than
#                              /var/cache/gpucore/rocm-root-trixie (scripts/rocm-root.sh)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${GPUCORE_FUZZ_SECONDS:-3}
# Every build uses the same LLVM (and the fuzz build that LLVM's clang), also in a tree that was
# configured earlier with another one.
llvm=${GPUCORE_LLVM:-19}
export GPUCORE_LLVM=$llvm
llvm_dir=/usr/lib/llvm-$llvm/lib/cmake/llvm

scripts/setup.sh

# The tests start python3 hundreds of times. A version manager's shim first in PATH (pyenv's is
# a bash script that runs pyenv, which runs the interpreter) costs up to a second per start on
# a busy 2-core machine, ten times the interpreter's own start: the tests get the python3
# setup.sh installed, directly.
found_python=$(command -v python3 || true)
if [ -x /usr/bin/python3 ] && [ "$found_python" != /usr/bin/python3 ]; then
  mkdir -p build/.tools
  ln -sfn /usr/bin/python3 build/.tools/python3
  export PATH="$root/build/.tools:$PATH"
  echo "scripts/test.sh: the tests run /usr/bin/python3 (not ${found_python:-none})"
fi

step() { printf '\n=== %s ===\n' "$*"; }

# The Debian 13 root with AMD's ROCm user space that the kfdemu tests run in: built on the first
# run (2-4 minutes and 0.9 GB, network needed), reused while scripts/rocm-root.sh's package list
# is unchanged. Without it the suite still runs and those tests are skipped; the warning is
# repeated at the end, where it is read.
rocm_root=$(scripts/rocm-root.sh --print-path)
rocm_root_warning=
# It builds in the background while the normal tree compiles (they share little: the network
# and dpkg against the compiler); its output is shown when it is waited for, before the tests.
rocm_root_log=$(mktemp)
scripts/rocm-root.sh >"$rocm_root_log" 2>&1 &
rocm_root_pid=$!
# A run that stops early (a failed build) does not leave it building behind it (its lock and
# its half-built DIR.new are cleaned by its next run).
trap '[ -z "$rocm_root_pid" ] || kill "$rocm_root_pid" 2>/dev/null || true' EXIT
rocm_root_wait() {
  local rc=0
  wait "$rocm_root_pid" || rc=$?
  rocm_root_pid=
  cat "$rocm_root_log"
  rm -f "$rocm_root_log"
  if [ "$rc" -ne 0 ]; then
    rocm_root_warning="WARNING: no ROCm root at $rocm_root (scripts/rocm-root.sh failed: see its \
message above): the kfdemu tests are SKIPPED"
    printf '\n%s\n%s\n%s\n\n' "********" "$rocm_root_warning" "********"
  fi
}
rocm_root_note() {
  [ -z "$rocm_root_warning" ] || printf '\n%s\n' "$rocm_root_warning"
}

# The disk the suite writes to: its build trees and, while a test runs, that test's files
# (each end-to-end test removes its directory when it passes). A fresh clone's run peaked at
# 1.0 GiB (during the sanitizer tests); below 1.5 GiB free the run may fail for want of disk.
need_mib=1536
free_mib() { df -Pm "$root" | awk 'NR == 2 { print $4 }'; }
disk_note() { printf 'disk: %s MiB free in %s\n' "$(free_mib)" "$(df -P "$root" | awk 'NR == 2 { print $6 }')"; }

if [ "$(free_mib)" -lt "$need_mib" ]; then
  printf 'scripts/test.sh: warning: the suite needs about %s MiB of disk at its peak; ' "$need_mib"
  disk_note
fi

# Run ctest in a build dir and add its counts, read from its summary line, to the totals
# printed last. A run whose summary cannot be read counts as failed: the counts would be
# wrong, and a full disk (where the log could not be written) is the usual reason.
passed=0 failed=0
ctest_args=() # more ctest arguments for the next run_ctest
run_ctest() {
  local dir=$1 log
  shift
  log=$dir/ctest-summary.log
  : >"$dir/ctest-start.stamp"
  set +e
  "$@" ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
    ${ctest_args[@]+"${ctest_args[@]}"} 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  local total bad
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  bad=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
  rm -f "$log"
  if [ -z "$total" ] || [ -z "$bad" ]; then
    echo "scripts/test.sh: ctest in $dir exited $rc and its summary line could not be read"
    disk_note
    echo "$passed passed before it, $((failed + 1)) failed"
    exit 1
  fi
  passed=$((passed + total - bad))
  failed=$((failed + bad))
  if [ "$rc" -ne 0 ]; then
    disk_note
    rocm_root_note
    echo "$passed passed, $failed failed"
    exit "$rc"
  fi
  check_left_behind "$dir"
}

# After a run where every test passed, the files the tests wrote and left under DIR/tests must
# come to little (unit tests' small files): a test that keeps its cores would bring back the
# full disks this suite once caused.
left_max_mib=64
check_left_behind() {
  local dir=$1 bytes
  bytes=$(find "$dir/tests" -type f -newer "$dir/ctest-start.stamp" -not -path '*/CMakeFiles/*' \
    -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  printf 'files the passing tests left in %s/tests: %s MiB\n' "$dir" $((bytes >> 20))
  if [ "$bytes" -gt $((left_max_mib << 20)) ]; then
    echo "scripts/test.sh: more than $left_max_mib MiB left behind; the largest directories:"
    find "$dir/tests" -type f -newer "$dir/ctest-start.stamp" -not -path '*/CMakeFiles/*' \
      -printf '%s %h\n' | awk '{ s[$2] += $1 } END { for (d in s) print s[d], d }' |
      sort -rn | sed -n 1,10p
    echo "$passed passed, $((failed + 1)) failed"
    exit 1
  fi
}

step "normal build (build/)"
cmake -S . -B build -DLLVM_DIR="$llvm_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCORE_WERROR=ON \
  -DGPUCORE_ROCM_ROOT="$rocm_root" >/dev/null
cmake --build build -j "$jobs"
step "the ROCm root (scripts/rocm-root.sh, started before the build)"
rocm_root_wait
step "tests (normal build)"
run_ctest build

step "sanitizer build (build-asan/)"
cmake -S . -B build-asan -DLLVM_DIR="$llvm_dir" -DCMAKE_BUILD_TYPE=Debug -DGPUCORE_SANITIZE=ON \
  -DGPUCORE_WERROR=ON -DGPUCORE_ROCM_ROOT="$rocm_root" \
  -DGPUCORE_KFDEMU_PROGRAMS="$root/build/tests/kfdemu/programs" >/dev/null
cmake --build build-asan -j "$jobs"
step "tests (ASan + UBSan)"
# All but the benchmarks' smoke runs (label bench, about 100 s here) and the node-scale case
# (label scale: 77,824 waves): they check that the bench scripts still work and that nothing
# breaks at full size, which the normal run does; the code they drive runs under the
# sanitizers in the other tests.
ctest_args=(-LE 'bench|scale')
run_ctest build-asan env \
  ASAN_OPTIONS=strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:print_summary=1:halt_on_error=1

if [ "$fuzz_seconds" -gt 0 ]; then
  step "libFuzzer smoke run (${fuzz_seconds}s per target, build-fuzz/)"
  cmake -S . -B build-fuzz -DLLVM_DIR="$llvm_dir" -DCMAKE_C_COMPILER="clang-$llvm" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUCORE_FUZZ=ON -DGPUCORE_WERROR=ON >/dev/null
  # Only the libFuzzer binaries: the rest of the tree ran in the two builds above, and building
  # it again here would cost minutes and about 400 MiB of disk.
  fuzzers=$(cmake --build build-fuzz --target help | sed -n 's/^\.\.\. \([a-z0-9_]*-libfuzzer\)$/\1/p')
  [ -n "$fuzzers" ] || { echo "scripts/test.sh: build-fuzz has no libFuzzer targets"; exit 1; }
  # shellcheck disable=SC2086 # one target name per word
  cmake --build build-fuzz -j "$jobs" --target $fuzzers >/dev/null
  shopt -s nullglob
  for bin in build-fuzz/tests/*-libfuzzer; do
    name=$(basename "$bin" -libfuzzer)
    work=$(mktemp -d)
    # Copy the corpus so new inputs found by the smoke run never dirty the checkout.
    cp -r "tests/fuzz/corpus/$name/." "$work/"
    echo "fuzz: $name"
    # Every input must stay within 2 GiB of RSS and 10 s: a crafted core that makes a parser
    # allocate or loop beyond that is a finding, not a slow run.
    "$bin" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=0 "$work" >"$work.log" 2>&1 ||
      { tail -40 "$work.log"; echo "fuzz: $name FAILED (log above)";
        echo "$passed passed, $((failed + 1)) failed"; exit 1; }
    rm -rf "$work" "$work.log"
    passed=$((passed + 1))
  done
fi

step "all tests passed"
disk_note
rocm_root_note
echo "$passed passed, $failed failed"
