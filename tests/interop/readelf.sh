#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Other people's ELF readers on our cores:   readelf.sh WORKDIR MKEXAMPLE {eu|llvm} READELF
#
# `READELF -n -l` on the unified and the split example must exit 0 with nothing on stderr,
# list exactly one "AMDGPU" note of type 33 with n_descsz 240 (0xF0: one agent, one queue;
# docs/core-format.md §3.2), the GPUCORE notes, one PT_NOTE and the PT_LOADs at the process's
# addresses. Each reader names type 33 its own way: eu-readelf "<unknown>: 33", llvm-readelf
# "Unknown note type: (0x00000021)" (no LLVM release defines NT_AMDGPU_KFD_CORE_STATE).
. "$(dirname "$0")/common.sh"
flavour=${3:-} readelf=${4:-}
test_name="$flavour-readelf"
setup "$1" "$2"
need_tool "$readelf" "$flavour-readelf"

case $flavour in
eu)
  amdgpu_note='^ +AMDGPU +240 +<unknown>: 33$'
  gpucore_note='^ +GPUCORE +[0-9]+ +'
  prstatus_note='^ +CORE +336 +PRSTATUS$'
  prpsinfo_note='^ +CORE +136 +PRPSINFO$'
  unified_machine='^ +Machine: +AMD x86-64$'
  split_machine='^ +Machine: +AMD GPU$' ;;
llvm)
  amdgpu_note='^ +AMDGPU +0x000000f0[[:space:]]+Unknown note type: \(0x00000021\)$'
  gpucore_note='^ +GPUCORE +0x[0-9a-f]{8}[[:space:]]+'
  prstatus_note='^ +CORE +0x00000150[[:space:]]+NT_PRSTATUS '
  prpsinfo_note='^ +CORE +0x00000088[[:space:]]+NT_PRPSINFO '
  unified_machine='^ +Machine: +Advanced Micro Devices X86-64$'
  split_machine='^ +Machine: +EM_AMDGPU$' ;;
*)
  fail "unknown readelf flavour '$flavour' (eu or llvm)" ;;
esac

make_core unified.core
make_core --split split.core

for kind in unified split; do
  core=$kind.core
  run_capture "$kind" "$readelf" -n -l "$core"
  [ "$rc" -eq 0 ] || { cat "$kind.err" >&2; fail "$flavour-readelf -n -l $core exited $rc"; }
  [ ! -s "$kind.err" ] || { cat "$kind.err" >&2; fail "$flavour-readelf -n -l $core wrote to stderr"; }
  if grep -Eiq 'warning|error|invalid|corrupt|truncated' "$kind.out"; then
    grep -Ei 'warning|error|invalid|corrupt|truncated' "$kind.out" >&2
    fail "$flavour-readelf -n -l $core reports a problem"
  fi

  n=$(count_lines "$kind.out" "$amdgpu_note")
  [ "$n" -eq 1 ] || { cat "$kind.out" >&2; fail "$core: $n AMDGPU type-33 notes with descsz 240, expected exactly 1"; }
  n=$(count_lines "$kind.out" '^ +AMDGPU ')
  [ "$n" -eq 1 ] || fail "$core: $n AMDGPU notes in all, expected exactly 1"
  # CAPTURE_META, CODE_OBJECTS, ALLOC_MAP, and the MANIFEST the writer adds.
  n=$(count_lines "$kind.out" "$gpucore_note")
  [ "$n" -eq 4 ] || { cat "$kind.out" >&2; fail "$core: $n GPUCORE notes, expected 4"; }

  n=$(count_lines "$kind.out" '^ +NOTE +0x')
  [ "$n" -eq 1 ] || fail "$core: $n PT_NOTE program headers, expected 1"
  # The AQL ring, a whole page at its own address, read-write, page aligned.
  expect_line "$kind.out" '^ +LOAD +0x[0-9a-f]+ +0x00007f3a1d600000 +0x[0-9a-f]+ +0x001000 +0x001000 +RW +0x1000$' \
    "$core: AQL ring segment"
  # The CWSR header line (64 bytes at a page-aligned address).
  expect_line "$kind.out" '^ +LOAD +0x[0-9a-f]+ +0x00007f39f0000000 +0x[0-9a-f]+ +0x000040 +0x000040 +RW +0x1000$' \
    "$core: CWSR header segment"

  if [ "$kind" = unified ]; then
    expect_line "$kind.out" "$prstatus_note" "$core: host thread note"
    expect_line "$kind.out" "$prpsinfo_note" "$core: host process note"
  else
    n=$(count_lines "$kind.out" '^ +CORE ')
    [ "$n" -eq 0 ] || fail "$core: the split (GPU-only) file carries $n host notes"
  fi

  run_capture "$kind.h" "$readelf" -h "$core"
  { [ "$rc" -eq 0 ] && [ ! -s "$kind.h.err" ]; } || fail "$flavour-readelf -h $core failed: $(cat "$kind.h.err")"
  expect_line "$kind.h.out" '^ +Type: +CORE \(Core file\)$' "$core: ELF type"
  if [ "$kind" = unified ]; then
    expect_line "$kind.h.out" "$unified_machine" "$core: e_machine"
  else
    expect_line "$kind.h.out" "$split_machine" "$core: e_machine"
    expect_line "$kind.h.out" '^ +ABI Version: +3$' "$core: EI_ABIVERSION (HSA v5)"
  fi
done

# llvm-readelf also dumps the descriptor: check the header bytes of the note (docs/core-format.md
# §3.1): version 1, KFD 1.16, runtime_info_size 16, 1 agent of 120 bytes, 1 queue of 64 bytes.
if [ "$flavour" = llvm ]; then
  want="description data: 01 00 00 00 00 00 00 00 01 00 00 00 10 00 00 00 10 00 00 00 00 00 00 00 01 00 00 00 78 00 00 00 01 00 00 00 40 00 00 00 "
  for kind in unified split; do
    grep -A1 -E "$amdgpu_note" "$kind.out" | grep -qF -- "$want" ||
      fail "$kind.core: AMDGPU descriptor does not start with the KFD 1.16 header"
  done
fi
echo "ok [$test_name]"
