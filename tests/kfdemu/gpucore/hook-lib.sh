# SPDX-License-Identifier: MIT
# Helpers of the hook and watch cases (hook-*.case, watch-oob.case, same-state.case), sourced
# by them after run-case.sh's own: a program run as it is and under the runtime hook, inside
# one gpucore-kfdemu (its ROCm start is what takes the time), and their outputs compared.

# need_loadable_hook: skip (77) when $hook is a sanitizer build, which AMD's programs cannot
# load: ASan's runtime must be the first library of the process ("ASan runtime does not come
# first"), and theirs are not instrumented. The normal build runs these cases.
need_loadable_hook() {
  # (no pipe into grep -q: under pipefail ldd's SIGPIPE would hide the match)
  case $(ldd "$hook" 2>/dev/null || true) in
  *libasan* | *libubsan* | *libtsan*)
    skip "$hook is a sanitizer build: AMD's uninstrumented programs cannot load it" ;;
  esac
}

# hook_pair NAME PLAN PROGRAM [ENV...]: run PROGRAM under PLAN twice in one emulator, first
# plainly (NAME.plain.out/.err/.rc), then with HSA_TOOLS_LIB=$hook, GPUCORE_BIN=$gc_in_root,
# GPUCORE_OUTPUT=$PWD/NAME.core and ENV (NAME.hook.out/.err/.rc). The emulator's own output is
# in NAME.emu.out/.err and its status in $rc.
hook_pair() {
  local name=$1 plan=$2 prog=$3
  shift 3
  need_loadable_hook
  emu "$name.emu" --faults "$plan" -- sh -c '
    n=$1 prog=$2 hook=$3 gc=$4 dir=$5; shift 5
    "$prog" >"$dir/$n.plain.out" 2>"$dir/$n.plain.err"; echo $? >"$dir/$n.plain.rc"
    env HSA_TOOLS_LIB="$hook" GPUCORE_BIN="$gc" GPUCORE_OUTPUT="$dir/$n.core" "$@" "$prog" \
      >"$dir/$n.hook.out" 2>"$dir/$n.hook.err"; echo $? >"$dir/$n.hook.rc"' \
    sh "$name" "$prog" "$hook" "$gc_in_root" "$PWD" "$@"
  [ "$rc" -eq 0 ] || fail "the emulator exited $rc: $(cat "$name.emu.err")"
}

# mask [FILE]: FILE (or stdin) on stdout with what differs run to run replaced: every
# pointer-sized hexadecimal number (9 digits or more: buffers, the agent handle, ROCr's
# allocations near a fault, HIP's queue and thread ids; ASLR moves them) by 0xPTR, and in HIP's
# log prefix (":0:rocdevice.cpp :2690: 48874937937 us: [pid:1666  tid:0x...]") the clock and
# the pid by T and PID. Sizes and codes (0x38, 0x1000, 0x2a) stay.
mask() {
  sed -E -e 's/0x[0-9a-f]{9,}/0xPTR/g' \
    -e 's/:[[:space:]]*[0-9]+ us: \[pid:[0-9]+ /: T us: [pid:PID /' "$@"
}

# same_output NAME: the hooked run printed exactly what the plain run printed, pointers masked:
# the same stdout, the same stderr once gpucore's own lines (gpucore: and gpucore-hook:, kept in
# NAME.gpucore-lines) are taken out, and the same exit status. A readable diff otherwise.
same_output() {
  local n=$1
  [ "$(cat "$n.plain.rc")" = "$(cat "$n.hook.rc")" ] ||
    fail "$n: exit status $(cat "$n.hook.rc") with the hook, $(cat "$n.plain.rc") without"
  mask "$n.plain.out" >"$n.plain.out.m"
  mask "$n.hook.out" >"$n.hook.out.m"
  diff -u "$n.plain.out.m" "$n.hook.out.m" >"$n.out.diff" ||
    fail "$n: stdout differs with the hook: $(cat "$n.out.diff")"
  grep -E '^gpucore(-hook)?: ' "$n.hook.err" >"$n.gpucore-lines" || true
  mask "$n.plain.err" >"$n.plain.err.m"
  { grep -Ev '^gpucore(-hook)?: ' "$n.hook.err" || true; } | mask >"$n.hook.err.m"
  diff -u "$n.plain.err.m" "$n.hook.err.m" >"$n.err.diff" ||
    fail "$n: stderr differs with the hook (gpucore's lines taken out): $(cat "$n.err.diff")"
}

# lines_are FILE COUNT REGEX WHAT: FILE has exactly COUNT lines, each matching REGEX.
lines_are() {
  local all match
  all=$(wc -l <"$1")
  match=$(grep -Ec -- "$3" "$1" || true)
  [ "$all" -eq "$2" ] && [ "$match" -eq "$2" ] ||
    fail "$1: expected $2 line(s) matching '$3' ($4), got $all line(s): $(cat "$1")"
}
