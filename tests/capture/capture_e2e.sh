#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `gpucore capture | run | watch` on the simulated GPU (tests/capture_e2e.cmake).
#
#   capture_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CHECKER CASE [ARG]
#
# WORKDIR is private to the case and emptied first. A gpucore-inferior is started on a
# scenario, captured, and the core checked with `gpucore info`, eu-readelf, gdb and
# check_core_bytes (every GPU range holds the process's bytes); the simulated driver must be
# left with debugging disabled and no queue suspended.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip (no ptrace rights, or a
# tool that is not installed).

set -euo pipefail

[ $# -ge 7 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CHECKER CASE [ARG]" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 checker=$6 case=$7 arg=${8:-}
here=$(cd "$(dirname "$0")" && pwd)
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
case "$case" in
scenario)
  # capture PID on every scenario.
  start_inferior "$arg" continue
  gc cap capture --kfd sim "$ipid" -o out/core
  expect_rc 0 cap
  one_line cap
  grep -q "^gpucore: out/core: .* waves" cap.err || fail "unexpected summary: $(cat cap.err)"
  [ "$(summary_waves cap)" -gt 0 ] || fail "no waves captured: $(cat cap.err)"
  check_core out/core
  [ "$(json "d['capture']['trigger']")" = on-demand ] || fail "trigger is $(json "d['capture']['trigger']")"
  driver_clean
  kill -0 "$ipid" || fail "the inferior did not survive the capture"
  stop_inferior
  ;;
capture-abort)
  # A capture hands the raised GPU error to the runtime when it lets go (DISABLE): a
  # process whose runtime aborts on it does so right after the core is written.
  start_inferior vadd-fault
  gc cap capture --kfd sim "$ipid" -o out/core
  expect_rc 0 cap
  st=0; wait "$ipid" || st=$?; ipid=
  [ "$st" -eq 134 ] || fail "the inferior exited $st after the capture, expected 134 (abort)"
  info_ok out/core
  [ "$(json "d['capture']['trigger']")" = on-demand ] || fail "trigger is $(json "d['capture']['trigger']")"
  ;;
waves)
  # The exact wave counts the scenarios describe. The backend comes from GPUCORE_KFD here
  # (no --kfd), as a user of the simulated GPU would set it once.
  start_inferior vadd-fault continue
  rc=0; GPUCORE_KFD=sim "$gpucore" capture "$ipid" -o out/core >cap.out 2>cap.err || rc=$?
  expect_rc 0 cap
  grep -q "256 waves (4 faulting)" cap.err || fail "expected 256 waves (4 faulting): $(cat cap.err)"
  stop_inferior
  ;;
pattern)
  start_inferior vadd-fault continue
  gc cap capture --kfd sim --quiet "$ipid" -o "out/core.%p.%e.%%"
  expect_rc 0 cap
  [ ! -s cap.err ] || fail "--quiet printed: $(cat cap.err)"
  # %e is the whole name, not the kernel's comm cut to 15 bytes ("gpucore-inferio").
  [ -f "out/core.$ipid.gpucore-inferior.%" ] || fail "pattern not expanded: $(ls out)"
  gc bad capture --kfd sim "$ipid" -o "out/core.%q"
  expect_rc 64 bad
  one_line bad
  grep -q "%q" bad.err || fail "the message does not name the bad sequence: $(cat bad.err)"
  driver_clean
  stop_inferior
  # A hostile job id of ".." in the target's environment must not move the core one
  # directory up: it expands to "!." (as the kernel escapes %e/%h); an unset rank says so.
  unset OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK MV2_COMM_WORLD_RANK PALS_RANKID FLUX_TASK_RANK \
    SLURM_PROCID
  SLURM_JOB_ID=.. start_inferior vadd-fault continue
  mkdir -p 'out/jobs/!./norank'
  gc trav capture --kfd sim --quiet "$ipid" -o "out/jobs/%j/%r/core.%p"
  expect_rc 0 trav
  [ -f "out/jobs/!./norank/core.$ipid" ] || fail "escaped pattern not used: $(find out -type f)"
  [ ! -e "out/core.$ipid" ] && [ ! -e "out/jobs/core.$ipid" ] ||
    fail "a job id of '..' moved the core: $(find out -type f)"
  # The core records what the target's environment said, raw (CAPTURE_META 1.4): the job, no
  # rank, and the target's uid.
  gc meta info --json "out/jobs/!./norank/core.$ipid"
  expect_rc 0 meta
  python3 - "$(id -u)" meta.out <<'PY' || fail "job, rank or uid not recorded: $(cat meta.out)"
import json, sys
c = json.load(open(sys.argv[2]))["capture"]
assert c["job"] == "..", c["job"]
assert c["rank"] is None, c["rank"]
assert c["uid"] == int(sys.argv[1]), c["uid"]
PY
  driver_clean
  stop_inferior
  SLURM_JOB_ID=4711 OMPI_COMM_WORLD_RANK=3 SLURM_PROCID=0 start_inferior vadd-fault continue
  gc rk capture --kfd sim --quiet "$ipid" -o "out/rk.%j.%r"
  expect_rc 0 rk
  gc rkinfo info "out/rk.4711.3"
  expect_rc 0 rkinfo
  grep -q "^Job: *4711, rank 3$" rkinfo.out || fail "info does not show the job: $(cat rkinfo.out)"
  driver_clean
  stop_inferior
  ;;
not-utf8)
  # The target names its executable, its mappings and its environment: bytes that are not
  # UTF-8 there (a Latin-1 file name) become '?' in the notes, which hold UTF-8 only, and never
  # cost the core (they made the capture fail with 64).
  cp "$inferior" "inf$(printf '\xe9')"
  inferior="$PWD/inf$(printf '\xe9')"
  SLURM_JOB_ID="j$(printf '\xff')" start_inferior vadd-fault continue
  gc cap capture --kfd sim --quiet "$ipid" -o out/core
  expect_rc 0 cap
  gc inf info --json out/core
  expect_rc 0 inf
  python3 - inf.out <<'PY' || fail "the names are not as expected: $(cat inf.out)"
import json, sys
c = json.load(open(sys.argv[1]))["capture"]
assert c["exe"].endswith("/inf?"), c["exe"]
assert c["job"] == "j?", c["job"]
PY
  driver_clean
  stop_inferior
  ;;
compress)
  start_inferior rdna3-assert continue
  gc cap capture --kfd sim --compress=5 "$ipid" -o out/core
  expect_rc 0 cap
  check_core out/core
  [ "$(json "d['file']['compressed']")" = True ] || fail "core is not compressed"
  driver_clean
  stop_inferior
  ;;
run)
  # The README's main command: the core is written at the memory violation, then the
  # inferior aborts by itself and gpucore exits with its status (128 + SIGABRT).
  rc=0
  "$gpucore" run --kfd sim -o out/core -- "$inferior" "$scenarios/vadd-fault.json" \
      --objects "$objects" >run.out 2>run.err || rc=$?
  [ "$rc" -ne 77 ] || skip "$(cat run.err)"
  [ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected 134: $(cat run.err)"
  grep -q "^gpucore: out/core: .*256 waves (4 faulting)" run.err || fail "no summary: $(cat run.err)"
  info_ok out/core
  [ "$(json "d['capture']['trigger']")" = memory-violation ] ||
    fail "trigger is $(json "d['capture']['trigger']")"
  [ "$(json "sum(1 for n in d['notes'] if n['owner']=='AMDGPU')")" = 1 ] || fail "no AMDGPU note"
  ;;
run-exit)
  # A command that never raises a GPU exception: no core, its own status.
  rc=0
  "$gpucore" run --kfd sim -o out/core -- sh -c 'exit 7' >run.out 2>run.err || rc=$?
  [ "$rc" -eq 7 ] || fail "gpucore run exited $rc, expected the command's 7: $(cat run.err)"
  [ ! -e out/core ] || fail "a core was written"
  ;;
watch)
  start_inferior vadd-fault
  gc watch watch --kfd sim "$ipid" -o out/core
  expect_rc 0 watch
  st=0
  wait "$ipid" || st=$?
  ipid=
  [ "$st" -eq 134 ] || fail "the inferior exited $st after the watch, expected 134 (abort)"
  info_ok out/core
  [ "$(json "d['capture']['trigger']")" = memory-violation ] ||
    fail "trigger is $(json "d['capture']['trigger']")"
  ;;
watch-exit)
  # The process ends without a GPU error while watched: no core, a message, exit 0.
  start_inferior multi-gpu-hang
  "$gpucore" watch --kfd sim "$ipid" -o out/core >watch.out 2>watch.err &
  gpid=$!
  # Waiting means debugging enabled: the driver says so.
  for _ in $(seq 1 400); do
    "$gpucore" kfd-check --kfd sim --state --pid "$ipid" 2>/dev/null |
        grep -q "debugging enabled" && break
    sleep 0.05
  done
  "$gpucore" kfd-check --kfd sim --state --pid "$ipid" | grep "debugging enabled" >/dev/null ||
    fail "gpucore watch did not enable debugging: $(cat watch.err)"
  stop_inferior
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore watch exited $rc: $(cat watch.err)"
  one_line watch
  grep -q "ended (status 0) without a GPU exception; no core written" watch.err ||
    fail "unexpected message: $(cat watch.err)"
  [ ! -e out/core ] || fail "a core was written"
  ;;
big-default)
  start_inferior big-memory continue
  gc cap capture --kfd sim "$ipid" -o out/core
  expect_rc 0 cap
  # Bytes on disk: holes (never-written host pages) cost nothing, and under sanitizers the
  # inferior's own heap has large untouched regions that inflate the apparent size.
  size=$(( $(stat -c %b out/core) * $(stat -c %B out/core) ))
  [ "$size" -lt $((64 << 20)) ] || fail "default core takes $size bytes on disk, expected < 64 MiB"
  grep -q "tier all not requested" cap.err || fail "summary does not say what was left out: $(cat cap.err)"
  check_core out/core
  [ "$(json "d['manifest']['truncated']")" = False ] || fail "default core is truncated"
  driver_clean
  stop_inferior
  ;;
max-size)
  start_inferior big-memory continue
  gc cap capture --kfd sim --max-size 80K "$ipid" -o out/core
  expect_rc 0 cap
  grep -q "TRUNCATED (size budget)" cap.err || fail "summary does not say truncated: $(cat cap.err)"
  info_ok out/core
  [ "$(json "d['manifest']['truncated']")" = True ] || fail "manifest not marked truncated"
  [ "$(json "d['manifest']['truncation_reason']")" = budget ] ||
    fail "truncation reason $(json "d['manifest']['truncation_reason']")"
  driver_clean
  stop_inferior
  # A budget that holds the structures AMD's reader needs but not the 256 saved waves of
  # vadd-fault: the structures go first (r_debug, amd_queue_t, the ring, the CWSR header),
  # the waves are cut.
  start_inferior vadd-fault continue
  gc cap2 capture --kfd sim --max-size 100K "$ipid" -o out/core2
  expect_rc 0 cap2
  info_ok out/core2
  for what in "r_debug" "amd_queue_t, queue 0" "AQL ring, queue 0" "CWSR header, queue 0 XCC 0"; do
    [ "$(json "any(e['label']=='$what' and e['status']=='captured' for e in d['manifest']['entries'])")" = True ] ||
      fail "$what was not captured within 100K: $(json "[e for e in d['manifest']['entries'] if e['tier']=='state']")"
  done
  [ "$(json "any(e['label'].startswith('CWSR wave area') and e['status']!='captured' for e in d['manifest']['entries'])")" = True ] ||
    fail "the saved waves fit 100K: the test does not test the order any more"
  driver_clean
  stop_inferior
  ;;
deadline)
  export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
  start_inferior big-memory continue
  unset GPUCORE_SIM_FAULTS
  gc cap capture --kfd sim --tier all --deadline 300ms "$ipid" -o out/core
  expect_rc 0 cap
  grep -q "TRUNCATED (deadline)" cap.err || fail "summary does not say truncated: $(cat cap.err)"
  info_ok out/core
  [ "$(json "d['manifest']['truncated']")" = True ] || fail "manifest not marked truncated"
  [ "$(json "d['manifest']['truncation_reason']")" = deadline ] ||
    fail "truncation reason $(json "d['manifest']['truncation_reason']")"
  driver_clean
  stop_inferior
  ;;
fault)
  # A driver operation fails: one message, the driver left clean, no bad file.
  export GPUCORE_SIM_FAULTS="[{\"op\": \"$arg\", \"errno\": \"EIO\"}]"
  start_inferior vadd-fault continue
  unset GPUCORE_SIM_FAULTS
  gc cap capture --kfd sim "$ipid" -o out/core
  case "$arg" in
  resume|disable)
    # After the memory is read: the core is still good; the failure is a warning.
    expect_rc 0 cap
    grep -qi "warning: .*$arg\|warning: .*resum\|warning: .*disabl" cap.err ||
      fail "no warning about the failed $arg: $(cat cap.err)"
    info_ok out/core ;;
  query_event|query_exception)
    # Reading which exception was raised, or its fault address, failed: the core is written
    # without it, and the line says so.
    expect_rc 0 cap
    grep -qi "warning: .*could not be read" cap.err ||
      fail "no warning about the failed $arg: $(cat cap.err)"
    info_ok out/core
    [ "$(json "d['capture']['fault_address']")" = None ] ||
      fail "a fault address was recorded although $arg failed" ;;
  *)
    [ "$rc" -ne 0 ] || fail "capture succeeded although $arg failed"
    one_line cap ;;
  esac
  no_bad_core out/core
  driver_clean
  stop_inferior
  ;;
memory-eio)
  export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "errno": "EIO", "buffer": "b", "offset": 0, "size": 4096}]'
  start_inferior vadd-fault continue
  unset GPUCORE_SIM_FAULTS
  gc cap capture --kfd sim --tier all "$ipid" -o out/core
  expect_rc 0 cap
  info_ok out/core
  [ "$(json "d['manifest']['unreadable_ranges']")" -ge 1 ] || fail "no unreadable range in the manifest"
  driver_clean
  stop_inferior
  ;;
exit-mid)
  # The inferior exits while the driver serves an operation (suspend: before any memory is
  # read; resume: after).
  export GPUCORE_SIM_FAULTS="[{\"op\": \"$arg\", \"exit\": 3}]"
  start_inferior vadd-fault
  unset GPUCORE_SIM_FAULTS
  gc cap capture --kfd sim "$ipid" -o out/core
  [ "$rc" -ne 0 ] || fail "capture succeeded although the process exited"
  one_line cap
  grep -q "exited\|no longer exists\|gone" cap.err || fail "unclear message: $(cat cap.err)"
  st=0; wait "$ipid" || st=$?; ipid=
  [ "$st" -eq 3 ] || fail "inferior exited $st, expected 3"
  no_bad_core out/core
  ;;
enospc)
  [ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
  mkdir -p small
  mount -t tmpfs -o size=1m tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
  start_inferior vadd-fault continue
  gc cap capture --kfd sim --tier all "$ipid" -o small/core
  [ "$rc" -eq 74 ] || fail "capture on a full file system exited $rc, expected 74: $(cat cap.err)"
  one_line cap
  grep -q "small/core: .*No space left on device" cap.err || fail "the message does not say the disk is full: $(cat cap.err)"
  no_bad_core small/core
  driver_clean
  stop_inferior
  ;;
signal)
  # SIGINT, SIGTERM, SIGHUP or SIGQUIT ($arg) while memory is read: no core, the process
  # resumed and detached, exit 128 + the signal.
  export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
  start_inferior big-memory continue
  unset GPUCORE_SIM_FAULTS
  "$gpucore" capture --kfd sim --tier all "$ipid" -o out/core >cap.out 2>cap.err &
  gpid=$!
  # Interrupt once it is reading memory (the slow part): the host memory of the inferior is
  # read after the state tier, so wait for the stop of the main thread first.
  for _ in $(seq 1 400); do
    grep -q "^State:.*t (tracing stop)" "/proc/$ipid/status" 2>/dev/null && break
    sleep 0.05
  done
  kill "-$arg" "$gpid"
  rc=0; wait "$gpid" || rc=$?
  want=$((128 + $(kill -l "$arg")))
  [ "$rc" -eq "$want" ] || fail "capture interrupted by SIG$arg exited $rc, expected $want: $(cat cap.err)"
  one_line cap
  [ ! -e out/core ] || fail "a core was written although interrupted"
  no_bad_core out/core
  driver_clean
  stop_inferior
  ;;
run-signal)
  # SIGINT, SIGTERM, SIGHUP or SIGQUIT ($arg) to `gpucore run` while it waits for a GPU
  # exception: passed on to the command, which is waited for; gpucore exits with its status
  # (the inferior exits 0 on SIGINT/SIGTERM/SIGHUP; SIGQUIT kills it: 128 + 3) and leaves no
  # process behind.
  ulimit -c 0
  run_bg multi-gpu-hang.json
  wait_enabled
  kill "-$arg" "$gpid"
  rc=0; wait "$gpid" || rc=$?
  if [ "$arg" = QUIT ]; then want=131; else want=0; fi
  [ "$rc" -eq "$want" ] || fail "gpucore run sent SIG$arg exited $rc, expected $want: $(cat run.err)"
  grep -q "^gpucore: SIG$arg passed on to .* (pid $cpid)" run.err || fail "message: $(cat run.err)"
  no_orphan
  [ ! -e out/core ] || fail "a core was written"
  ;;
run-signal-capture)
  # SIGTERM while the core is being written: the capture is abandoned (nothing published, the
  # queues resumed, debugging disabled: the runtime gets its error and carries on), then the
  # signal is passed on and the command's status (0) is gpucore's.
  e2e_continue_copy "$scenarios/big-memory.json" big-memory.json
  export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
  run_bg "$PWD/big-memory.json" --tier all
  unset GPUCORE_SIM_FAULTS
  for _ in $(seq 1 400); do
    grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" 2>/dev/null && break
    sleep 0.05
  done
  grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" || fail "the capture did not start: $(cat run.err)"
  kill -TERM "$gpid"
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore run sent SIGTERM while capturing exited $rc, expected 0: $(cat run.err)"
  grep -q "^gpucore: process $cpid (.*): capture abandoned on SIGTERM: no core written; its GPU queues were resumed and its threads let run$" run.err ||
    fail "message: $(cat run.err)"
  ! grep -q "interrupted\|without a GPU exception" run.err || fail "a message says the opposite: $(cat run.err)"
  grep -q "memory violation.*continuing" run.out run.err ||
    fail "the runtime was not handed its error: $(cat run.err)"
  no_orphan
  no_bad_core out/core
  [ ! -e out/core ] || fail "a core was written although interrupted"
  ;;
run-signal-after)
  # SIGHUP after the core was written, while gpucore waits for the command's end: passed on,
  # the command's status.
  e2e_continue_copy "$scenarios/vadd-fault.json" vadd-fault.json
  run_bg "$PWD/vadd-fault.json"
  # The core is published (renamed into place) once complete; the runtime got its error.
  for _ in $(seq 1 400); do
    [ -e out/core ] && grep -q "continuing" run.err && break
    sleep 0.05
  done
  [ -e out/core ] || fail "no core written: $(cat run.err)"
  kill -0 "$gpid" || fail "gpucore run did not wait for the command: $(cat run.err)"
  kill -HUP "$gpid"
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore run sent SIGHUP after the capture exited $rc, expected 0: $(cat run.err)"
  grep -q "^gpucore: SIGHUP passed on" run.err || fail "message: $(cat run.err)"
  grep -q "^gpucore: out/core: .*256 waves" run.err || fail "no summary: $(cat run.err)"
  no_orphan
  info_ok out/core
  ;;
run-fault)
  # A driver operation fails after the command was started ($arg: enable, before anything is
  # armed; suspend, while capturing): a warning that nothing is armed, the command detached
  # and left to run to its end, and its status is gpucore's.
  export GPUCORE_SIM_FAULTS="[{\"op\": \"$arg\", \"errno\": \"EIO\"}]"
  run_bg vadd-fault.json
  unset GPUCORE_SIM_FAULTS
  for _ in $(seq 1 400); do
    grep -q "nothing armed" run.err && break
    sleep 0.05
  done
  grep -q "^gpucore: warning: .*nothing armed\( in it\)\?; .*\(pid $cpid) runs\|it runs\) on untraced to its end$" run.err ||
    fail "no warning: $(cat run.err)"
  case "$arg" in
  enable)
    # Never armed: the inferior never faults; it runs on, untraced, until it is told to end.
    sleep 0.2
    kill -0 "$cpid" || fail "the command did not run on"
    [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$cpid/status")" = 0 ] ||
      fail "the command is still traced"
    kill -0 "$gpid" || fail "gpucore run did not wait for the command"
    kill -TERM "$cpid"
    want=0 ;;
  *)
    # The capture failed; the runtime gets its memory violation and aborts. The warning
    # names the exception and says the capture failed; nothing says there was no exception.
    grep -q "^gpucore: warning: process $cpid (.*): GPU exception .*: the capture failed: .*; no core written, nothing armed in it; it runs on untraced to its end$" run.err ||
      fail "message: $(cat run.err)"
    ! grep -q "without a GPU exception" run.err || fail "says there was no exception: $(cat run.err)"
    want=134 ;;
  esac
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq "$want" ] || fail "gpucore run exited $rc, expected the command's $want: $(cat run.err)"
  no_orphan
  no_bad_core out/core
  ;;
run-tty)
  # ^C on a terminal goes to the whole foreground process group: the command gets that SIGINT
  # from the terminal, and gpucore must not send it a second one. `gpucore run -- sigcount`
  # on a pseudo-terminal (its session leader, so in its foreground group); sigcount exits with
  # the number of SIGINTs it was delivered, which gpucore run must exit with: 1.
  sigcount=$(dirname "$checker")/sigcount
  rc=0
  python3 - "$gpucore" "$sigcount" >tty.out 2>tty.err <<'PY' || rc=$?
import os, pty, sys, time
gpucore, sigcount = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(gpucore, [gpucore, "run", "--kfd", "sim", "-o", "out/core", "--", sigcount, "3"])
out = b""
deadline = time.monotonic() + 20
while b"ready" not in out and time.monotonic() < deadline:
    try:
        out += os.read(fd, 4096)
    except OSError:
        break
if b"ready" not in out:
    sys.exit("sigcount did not become ready: %r" % out)
time.sleep(0.3)  # gpucore has the command traced and waits for its driver
os.write(fd, b"\x03")
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 99)
PY
  [ "$rc" -ne 77 ] || skip "$(cat tty.out)"
  [ "$rc" -eq 1 ] || fail "gpucore run on a terminal, ^C: exited $rc, expected 1 (one SIGINT delivered): $(cat tty.out tty.err)"
  grep -q "gpucore: SIGINT from the terminal reached .*sigcount" tty.out || fail "message: $(cat tty.out)"
  ;;
traced)
  # A process that already has a tracer (here a `gpucore watch`, as a debugger would be):
  # capture and watch refuse it, naming the tracer, with exit 77.
  start_inferior multi-gpu-hang
  "$gpucore" watch --kfd sim "$ipid" -o out/w >w.out 2>w.err &
  wpid=$!
  for _ in $(seq 1 400); do
    [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = "$wpid" ] && break
    sleep 0.05
  done
  [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = "$wpid" ] ||
    fail "gpucore watch did not attach: $(cat w.err)"
  for verb in capture watch; do
    rc=0; "$gpucore" "$verb" --kfd sim "$ipid" -o out/core >t.out 2>t.err || rc=$?
    [ "$rc" -eq 77 ] || fail "$verb of a traced process exited $rc, expected 77: $(cat t.err)"
    [ "$(wc -l <t.err)" -eq 1 ] || fail "$verb printed more than one line: $(cat t.err)"
    grep -q "already traced by process $wpid" t.err || fail "$verb does not name the tracer: $(cat t.err)"
  done
  kill -TERM "$wpid"; wait "$wpid" || true
  stop_inferior
  ;;
no-driver)
  start_inferior vadd-fault continue
  gc cap capture --kfd linux "$ipid" -o out/core
  if [ ! -e /dev/kfd ]; then
    expect_rc 69 cap
    one_line cap
    grep -q "no AMD GPU kernel driver: /dev/kfd not found" cap.err || fail "message: $(cat cap.err)"
  fi
  kill -0 "$ipid" || fail "the inferior did not survive"
  stop_inferior
  if [ ! -e /dev/kfd ]; then
    # run is never the reason a job does not run: without a driver it says so once, starts
    # the command (which runs to its end) and exits with its status.
    gc runnodrv run --kfd linux -o out/core -- sh -c 'touch started; exit 5'
    expect_rc 5 runnodrv
    [ -e started ] || fail "gpucore run did not start the command without a driver"
    grep -q "^gpucore: warning: no AMD GPU kernel driver: /dev/kfd not found: sh runs, nothing can be captured$" runnodrv.err ||
      fail "message: $(cat runnodrv.err)"
    [ "$(grep -c warning runnodrv.err)" -eq 1 ] || fail "more than one warning: $(cat runnodrv.err)"
    # The driver is checked before the target: a process gpucore could not even trace (pid 1,
    # not ours to stop) still gets the driver's answer, for capture and watch alike.
    for verb in capture watch; do
      gc "nodrv-$verb" "$verb" --kfd linux 1 -o out/core
      expect_rc 69 "nodrv-$verb"
      one_line "nodrv-$verb"
      grep -q "no AMD GPU kernel driver: /dev/kfd not found" "nodrv-$verb.err" ||
        fail "$verb 1: $(cat "nodrv-$verb.err")"
    done
  fi
  gc nopid capture --kfd sim 999999999 -o out/core
  [ "$rc" -eq 64 ] || [ "$rc" -eq 66 ] || fail "capture of no process exited $rc"
  one_line nopid
  ;;
exists)
  # The output name is taken: refused before the target is touched (it is never stopped, so
  # it gets no tracer), and the existing file is left as it was.
  start_inferior vadd-fault continue
  echo "precious" >out/core
  gc cap capture --kfd sim "$ipid" -o out/core
  expect_rc 73 cap
  one_line cap
  grep -q "out/core already exists" cap.err || fail "message: $(cat cap.err)"
  [ "$(cat out/core)" = precious ] || fail "the existing file was changed"
  # An output directory that is missing, or is a file, is "cannot create output" (73), as
  # the README says, not an I/O error or a ptrace refusal.
  gc nodir capture --kfd sim "$ipid" -o out/missing/core
  expect_rc 73 nodir
  grep -q "directory out/missing" nodir.err || fail "message: $(cat nodir.err)"
  : >out/afile
  gc notdir capture --kfd sim "$ipid" -o out/afile/core
  expect_rc 73 notdir
  grep -q "not a directory" notdir.err || fail "message: $(cat notdir.err)"
  [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ipid/status")" = 0 ] ||
    fail "the inferior is still traced"
  driver_clean
  stop_inferior
  ;;
run-exists)
  # The output name is taken (a Slurm requeue keeps the job id of -o core.%j) and another
  # run's directory is missing: each run warns once, starts the command, and the core takes
  # the first free numbered name / the directory is made. The taken files are left as they were.
  vadd=$scenarios/vadd-fault.json # (aborts after its capture: 134)
  echo precious >out/core
  echo precious1 >out/core.1
  rc=0
  "$gpucore" run --kfd sim -o out/core -- "$inferior" "$vadd" --objects "$objects" >run.out 2>run.err || rc=$?
  [ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected the command's 134: $(cat run.err)"
  grep -q "^gpucore: warning: out/core exists: a core takes the first free name of out/core.1, out/core.2, ... (gpucore never overwrites a file)$" run.err ||
    fail "no warning before the start: $(cat run.err)"
  grep -q "^gpucore: out/core.2: .*256 waves" run.err || fail "the core is not out/core.2: $(cat run.err)"
  grep -q "^gpucore: warning: out/core exists: this core is out/core.2 (gpucore never overwrites a file)$" run.err ||
    fail "the core's line does not say which name it took: $(cat run.err)"
  [ "$(cat out/core)" = precious ] && [ "$(cat out/core.1)" = precious1 ] || fail "a taken file was changed"
  info_ok out/core.2
  # Compressed: ".zst" stays last.
  echo precious >out/c.zst
  rc=0
  "$gpucore" run --kfd sim --compress -o out/c.zst -- "$inferior" "$vadd" --objects "$objects" >z.out 2>z.err || rc=$?
  [ "$rc" -eq 134 ] || fail "gpucore run --compress exited $rc: $(cat z.err)"
  info_ok out/c.1.zst
  # A missing directory: made when the core is written (not before: no core, no directory).
  rc=0
  "$gpucore" run --kfd sim -o out/new/sub/core -- sh -c 'exit 3' >d0.out 2>d0.err || rc=$?
  [ "$rc" -eq 3 ] || fail "gpucore run exited $rc, expected 3: $(cat d0.err)"
  grep -q "^gpucore: warning: directory out/new/sub does not exist: it is created when a core is written$" d0.err ||
    fail "message: $(cat d0.err)"
  [ ! -e out/new ] || fail "the directory was made although no core was written"
  rc=0
  "$gpucore" run --kfd sim -o out/new/sub/core -- "$inferior" "$vadd" --objects "$objects" >d.out 2>d.err || rc=$?
  [ "$rc" -eq 134 ] || fail "gpucore run exited $rc: $(cat d.err)"
  info_ok out/new/sub/core
  ;;
run-capture-fails)
  # A GPU exception whose capture fails (a budget below the smallest core of it): the warning
  # says the capture failed and why; nothing says "without a GPU exception".
  rc=0
  "$gpucore" run --kfd sim --max-size 8K -o out/core -- "$inferior" "$scenarios/vadd-fault.json" \
      --objects "$objects" >run.out 2>run.err || rc=$?
  [ "$rc" -eq 134 ] || fail "gpucore run exited $rc, expected the command's 134: $(cat run.err)"
  grep -q "^gpucore: warning: process [0-9]* (.*): GPU exception .*: the capture failed: .*8192.*; no core written" run.err ||
    fail "message: $(cat run.err)"
  ! grep -q "without a GPU exception" run.err || fail "says there was no exception: $(cat run.err)"
  no_bad_core out/core
  [ ! -e out/core ] || fail "a core was written"
  ;;
run-signal-group)
  # SIGTERM to the whole process group (what scancel and timeout send; a terminal's ^C is the
  # same with SIGINT) while a core is being written: the capture is abandoned at once (it took
  # 41 s while every thread of the target stayed stopped), it says so, nothing is published,
  # the target is resumed and ends on its own SIGTERM, and gpucore exits with its status (0).
  e2e_continue_copy "$scenarios/big-memory.json" big-memory.json
  export GPUCORE_SIM_FAULTS='[{"op": "read_memory", "delay_us_per_mib": 20000}]'
  : >run.out; : >run.err
  setsid "$gpucore" run --kfd sim --tier all -o out/core -- "$inferior" big-memory.json \
      --objects "$objects" >>run.out 2>>run.err &
  gpid=$!
  unset GPUCORE_SIM_FAULTS
  for _ in $(seq 1 400); do
    cpid=$(sed -n 's/^gpucore-inferior: pid \([0-9]*\) ready$/\1/p' run.out)
    [ -n "$cpid" ] && break
    sleep 0.05
  done
  [ -n "$cpid" ] || fail "the command did not become ready: $(cat run.err)"
  for _ in $(seq 1 400); do
    grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" 2>/dev/null && break
    sleep 0.05
  done
  grep -q "^State:.*t (tracing stop)" "/proc/$cpid/status" || fail "the capture did not start: $(cat run.err)"
  kill -TERM -- "-$(ps -o pgid= -p "$gpid" | tr -d ' ')"
  rc=0; wait "$gpid" || rc=$?
  [ "$rc" -eq 0 ] || fail "gpucore run exited $rc, expected the command's 0 (it ends on SIGTERM with 0): $(cat run.err)"
  grep -q "^gpucore: process $cpid (.*): capture abandoned on SIGTERM: no core written; its GPU queues were resumed and its threads let run$" run.err ||
    fail "message: $(cat run.err)"
  ! grep -q "without a GPU exception\|interrupted" run.err || fail "a message says the opposite: $(cat run.err)"
  no_orphan
  no_bad_core out/core
  [ ! -e out/core ] || fail "a core was written although interrupted"
  ;;
usage)
  # --store DIR, the directory as its own word (as list --store DIR): the command runs.
  rc=0
  "$gpucore" run --kfd sim --store st -- sh -c 'exit 3' >st.out 2>st.err || rc=$?
  [ "$rc" -eq 3 ] || fail "run --store DIR -- exited $rc, expected the command's 3: $(cat st.err)"
  [ -d st ] || fail "run --store st did not use st as the store"
  gc u5 run --leave-tree --kfd sim -- sh -c 'exit 4'
  expect_rc 4 u5
  gc u6 capture --leave-tree 1
  expect_rc 64 u6
  gc u1 capture
  expect_rc 64 u1
  gc u2 capture --tier bogus 1
  expect_rc 64 u2
  gc u3 run --kfd sim sh
  expect_rc 64 u3
  gc u4 capture --deadline 5x 1
  expect_rc 64 u4
  gc h capture --help
  expect_rc 0 h
  grep -q -- "--max-size" h.out || fail "capture --help does not document --max-size"
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
