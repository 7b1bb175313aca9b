# SPDX-License-Identifier: MIT
#
# What the capture end-to-end cases share (sourced by tests/capture/cases/*.sh, not run). One
# case is one file, `cases/NAME.sh`, which sources this library first and then checks what it
# checks; tests/capture_e2e.cmake registers each file as the test capture-e2e-NAME, or, when the
# file's header has "# instances: A B ..." lines (or "# instances-from: GLOB", a glob relative to
# the file whose names without extension are the instances), as capture-e2e-NAME-A, ... with the
# instance as the case's only argument ($arg here).
#
# The paths come from the environment CMake sets once for every case:
#   GPUCORE    the gpucore program          INFERIOR   gpucore-inferior
#   OBJECTS    the scenarios' code objects  SCENARIOS  tests/scenarios
#   CHECKER    check_core_bytes             WORKDIR    the cases' directories, one per test
# `ctest --test-dir build -R capture-e2e-signal-INT` runs one with them; by hand, from build/:
#   GPUCORE=$PWD/cli/gpucore INFERIOR=$PWD/kfd/sim/gpucore-inferior \
#   OBJECTS=$PWD/tests/scenario-objects SCENARIOS=$PWD/../tests/scenarios \
#   CHECKER=$PWD/tests/check_core_bytes WORKDIR=$PWD/tests/capture-e2e \
#     bash ../tests/capture/cases/signal.sh INT
#
# Sourcing it enters the case's own directory ($WORKDIR/NAME[-INSTANCE], emptied), skips the case
# without ptrace rights, and leaves an empty out/ for the cores. A gpucore-inferior is started on
# a scenario, captured, and the core checked with `gpucore info`, eu-readelf, gdb and
# check_core_bytes (every GPU range holds the process's bytes); the simulated driver must be left
# with debugging disabled and no queue suspended.
#
# Exit codes of a case: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights,
# or a tool that is not installed).

set -euo pipefail

for _v in GPUCORE INFERIOR OBJECTS SCENARIOS CHECKER WORKDIR; do
  [ -n "${!_v:-}" ] ||
    { echo "$0: $_v is not set (tests/capture/capture_lib.sh says what)" >&2; exit 2; }
done
[ $# -le 1 ] || { echo "usage: $0 [INSTANCE]" >&2; exit 2; }
gpucore=$GPUCORE inferior=$INFERIOR objects=$OBJECTS scenarios=$SCENARIOS checker=$CHECKER
case=$(basename "$0" .sh) arg=${1:-}
work=$WORKDIR/$case${arg:+-$arg}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
test_name="$case${arg:+ $arg}"

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

gpid= cpid=
cleanup() {
  # A run case that failed: its gpucore run and command are not left behind.
  for p in $gpid $cpid; do kill -KILL "$p" 2>/dev/null || true; done
  if mountpoint -q "$work/small" 2>/dev/null; then umount "$work/small" || true; fi
}
e2e_exit_hook=cleanup

# start_inferior SCENARIO [continue]: start gpucore-inferior in the background (environment as
# exported) and wait until it says it is ready. With "continue", a copy of the scenario whose
# runtime carries on after a GPU error (on_queue_error), so the process outlives a capture
# that hands it its exception, and its memory can be compared with the core.
start_inferior() {
  local file="$scenarios/$1.json"
  if [ "${2:-}" = continue ]; then
    e2e_continue_copy "$file" "$1.json"
    file=$1.json
  fi
  scenario_file=$file
  e2e_start_inferior "$file" --describe describe.txt
}

# stop_inferior: SIGTERM, which the inferior answers with exit 0.
stop_inferior() {
  local st=0
  kill -TERM "$ipid"
  wait "$ipid" || st=$?
  ipid=
  [ "$st" -eq 0 ] || fail "gpucore-inferior exited $st after SIGTERM (expected 0)"
}

one_line() { # NAME: stderr is exactly one line
  local n; n=$(wc -l <"$1.err")
  [ "$n" -eq 1 ] || fail "gpucore $1 printed $n lines on stderr, expected one: $(cat "$1.err")"
}

# driver_clean: the simulated driver has debugging disabled and no queue suspended.
driver_clean() {
  gc state kfd-check --kfd sim --state --pid "$ipid"
  expect_rc 0 state
  grep -q "debugging disabled, 0 queues suspended" state.out ||
    fail "driver state after the capture: $(cat state.out state.err)"
}

# info_ok CORE: gpucore info accepts the core; its JSON is in info.json.
info_ok() {
  gc info info --json "$1"
  expect_rc 0 info
  cp info.out info.json
}

json() { # EXPR: evaluate a python expression over info.json as `d`
  python3 -c "import json,sys; d=json.load(open('info.json')); print($1)"
}

# check_core CORE: the full check of a core of the still-running inferior.
check_core() {
  local core=$1
  info_ok "$core"
  [ "$(json "sum(1 for n in d['notes'] if n['owner']=='AMDGPU' and n['type']==33)")" = 1 ] ||
    fail "$core: expected exactly one AMDGPU note"
  # The note carries the driver's snapshots: every field the scenario and layout fix.
  python3 "$here/check_note.py" info.json "$scenario_file" describe.txt >note.out ||
    fail "$core: the AMDGPU note differs from the driver's snapshots: $(head -5 note.out)"
  [ "$(json "d['amdgpu']['amd_reader_check']['ok']")" = True ] ||
    fail "$core: AMD's reader rules fail: $(json "d['amdgpu']['amd_reader_check']")"
  [ "$(json "d['capture']['pid']")" = "$ipid" ] || fail "$core: capture metadata names another pid"
  [ "$(json "d['capture']['producer']")" = gpucore ] || fail "$core: producer is not gpucore"
  # ELF tools read it without a complaint (a compressed core through its plain form).
  local elf=$core
  if [ "$(json "d['file']['compressed']")" = True ]; then
    elf=$core.plain
    gc decompress decompress "$core" "$elf"
    expect_rc 0 decompress
  fi
  eu-readelf -n -l "$elf" >readelf.out 2>readelf.err || fail "eu-readelf failed: $(cat readelf.err)"
  [ ! -s readelf.err ] || fail "eu-readelf complained: $(head -3 readelf.err)"
  grep -q "AMDGPU" readelf.out || fail "eu-readelf does not show the AMDGPU note"
  # gdb: the threads and a backtrace through main.
  if command -v gdb >/dev/null; then
    gdb -batch -nx -ex 'info threads' -ex 'thread apply all bt' "$inferior" "$elf" \
        >gdb.out 2>gdb.err || fail "gdb failed: $(cat gdb.err)"
    grep -Eq "in main \(|^#[0-9]+ +main \(" gdb.out || fail "gdb shows no frame of main: $(head -20 gdb.out)"
    local threads; threads=$(ls "/proc/$ipid/task" | wc -l)
    local shown; shown=$(grep -c "^Thread [0-9]" gdb.out || true)
    [ "$shown" -eq "$threads" ] || fail "gdb shows $shown threads, the process has $threads"
  fi
  # Every GPU byte is the process's byte.
  local crc=0
  "$checker" "$core" "$ipid" >check.out 2>check.err || crc=$?
  [ "$crc" -ne 77 ] || skip "cannot read the inferior's memory"
  [ "$crc" -eq 0 ] || fail "check_core_bytes: $(cat check.err)"
}

# summary_waves NAME: the wave count of the final line.
summary_waves() {
  sed -n 's/.*, \([0-9]*\) waves (.*/\1/p' "$1.err" | tail -1
}

# no_final_core PATH: nothing under the final name unless gpucore info accepts it.
no_bad_core() {
  if [ -e "$1" ]; then
    gc info_after info "$1"
    [ "$rc" -eq 0 ] || fail "$1 exists but gpucore info refuses it: $(cat info_after.err)"
  fi
  # No temporary files left behind either.
  local left; left=$(find "$(dirname "$1")" -maxdepth 1 -name '.*' -type f | wc -l)
  [ "$left" -eq 0 ] || fail "temporary files left: $(find "$(dirname "$1")" -maxdepth 1 -name '.*')"
}

# run_bg SCENARIO [OPTIONS...]: `gpucore run --kfd sim OPTIONS -o out/core -- gpucore-inferior
# SCENARIO` in the background (stdout run.out, stderr run.err), pid $gpid; waits for the
# inferior's "ready", the command's pid in $cpid.
run_bg() {
  local file=$1
  shift
  case "$file" in /*) ;; *) file=$scenarios/$file ;; esac
  : >run.out
  : >run.err
  "$gpucore" run --kfd sim "$@" -o out/core -- "$inferior" "$file" --objects "$objects" \
      >>run.out 2>>run.err &
  gpid=$!
  cpid=
  for _ in $(seq 1 600); do
    cpid=$(sed -n 's/^gpucore-inferior: pid \([0-9]*\) ready$/\1/p' run.out)
    [ -n "$cpid" ] && return 0
    kill -0 "$gpid" 2>/dev/null || fail "gpucore run ended early ($(cat run.err))"
    sleep 0.05
  done
  fail "the command of gpucore run did not become ready: $(cat run.err)"
}

# wait_enabled: the simulated driver of $cpid says debugging is enabled (gpucore run armed).
wait_enabled() {
  for _ in $(seq 1 400); do
    "$gpucore" kfd-check --kfd sim --state --pid "$cpid" 2>/dev/null |
        grep -q "debugging enabled" && return 0
    sleep 0.05
  done
  fail "gpucore run did not enable debugging: $(cat run.err)"
}

# no_orphan: gpucore run ($gpid) has ended and the command ($cpid) is gone: no such process,
# and no process has either for its parent.
no_orphan() {
  ! kill -0 "$cpid" 2>/dev/null || fail "the command (pid $cpid) still runs: $(ps -o pid,ppid,stat,cmd -p "$cpid")"
  ! kill -0 "$gpid" 2>/dev/null || fail "gpucore run (pid $gpid) still runs"
  local kids; kids=$(ps -e -o ppid= -o pid= | awk -v a="$cpid" -v b="$gpid" '$1 == a || $1 == b { print $2 }')
  [ -z "$kids" ] || fail "processes left behind by pid $cpid or $gpid: $kids"
}

mkdir -p out
