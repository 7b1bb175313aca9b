# SPDX-License-Identifier: MIT
#
# Sourced by the benchmark scripts that need a running gpucore-inferior (bench_capture.sh,
# bench_dbgapi.sh). Expects `die`, `$root` and `$work` (a scratch directory) from the caller;
# sets and clears `inf_pid`, which the caller's exit trap must pass to bench_stop_inferior.

inf_pid=""

# bench_build BUILD LOG TARGET...: configure BUILD as a Release tree and build gpucore, the
# inferior, the scenarios' code objects and TARGET...; the log in BUILD/LOG, shown on failure.
# Tests on: the scenarios' code objects (scenario-objects) are defined with the tests.
# Warnings not fatal: a measurement must not fail over a warning only this compiler's -O3 finds
# (CI's RelWithDebInfo, sanitizer and clang builds are the ones that enforce them).
bench_build() {
  local build=$1 log=$1/$2
  shift 2
  mkdir -p "$build"
  if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUCORE_TESTS=ON \
               -DGPUCORE_WERROR=OFF &&
         cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target gpucore-cli \
               gpucore-inferior scenario-objects "$@"; } >"$log" 2>&1; then
    cat "$log" >&2
    die "build failed (log above, also in $log)"
  fi
}

# bench_check_tree BUILD PROGRAM...: every program is there, and the scenarios' code objects.
bench_check_tree() {
  local build=$1 f
  shift
  for f in "$@"; do
    [ -x "$f" ] || die "$f is missing (build tree '$build')"
  done
  [ -d "$build/tests/scenario-objects" ] ||
    die "$build/tests/scenario-objects is missing (target scenario-objects of '$build')"
}

# bench_scenario_file NAME|FILE: the scenario file of a name (tests/scenarios/NAME.json).
bench_scenario_file() {
  case $1 in
    */*|*.json) echo "$1" ;;
    *) echo "$root/tests/scenarios/$1.json" ;;
  esac
}

# bench_start_inferior INFERIOR OBJECTS SCENARIO_FILE NAME: start the inferior on a copy of the
# scenario whose runtime carries on after a GPU error (a first capture hands the error back,
# and an inferior that then aborts, as most scenarios say, could not be captured again;
# nothing else changes). Waits until it is ready; sets inf_pid (also the pid to capture).
bench_start_inferior() {
  local inferior=$1 objects=$2 scen=$3 name=$4 w st=running pid
  [ -f "$scen" ] || die "no scenario file $scen"
  python3 - "$scen" "$work/$name.json" <<'PY' || die "cannot prepare a copy of $scen"
import json, sys
with open(sys.argv[1]) as f:
    s = json.load(f)
s["on_queue_error"] = "continue"
s.pop("exit_status", None)
with open(sys.argv[2], "w") as f:
    json.dump(s, f, indent=1)
PY
  : >"$work/inferior.out"
  # In a session of its own: a Ctrl-C of the benchmark must not kill it under a running
  # measurement (the exit trap terminates it). setsid execs in place here (a background job is
  # no group leader).
  setsid "$inferior" "$work/$name.json" --objects "$objects" >>"$work/inferior.out" 2>&1 &
  inf_pid=$!
  # Ready within 60 s (laying out 16 GiB of sparse buffers is quick; a cold disk may not be).
  for ((w = 0; w < 600; w++)); do
    grep -q ' ready$' "$work/inferior.out" && break
    if ! kill -0 "$inf_pid" 2>/dev/null; then
      st=0
      wait "$inf_pid" || st=$?
      inf_pid=""
      st="exited with status $st"
      break
    fi
    sleep 0.1
  done
  pid=$(sed -n 's/^gpucore-inferior: pid \([0-9][0-9]*\) ready$/\1/p' "$work/inferior.out")
  if [ -z "$inf_pid" ] || [ "$pid" != "$inf_pid" ]; then
    sed 's/^/  | /' "$work/inferior.out" >&2
    die "gpucore-inferior $name did not get ready ($st)"
  fi
}

# bench_stop_inferior: terminate the inferior started last, if any.
bench_stop_inferior() {
  if [ -n "$inf_pid" ]; then
    kill -TERM "$inf_pid" 2>/dev/null || true
    wait "$inf_pid" 2>/dev/null || true
    inf_pid=""
  fi
}

# bench_need_ptrace PROG: exit 77 unless this user may capture another process.
bench_need_ptrace() {
  if [ "$(id -u)" != 0 ]; then
    local scope
    scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
    if [ "$scope" != 0 ]; then
      echo "$1: needs root (or kernel.yama.ptrace_scope=0) to capture another process; skipped"
      exit 77
    fi
  fi
}
