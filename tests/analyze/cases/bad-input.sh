#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Input gpucore analyze refuses: not a core, no file, a core without GPU state (also
# --json), a wave or an address space that does not exist, bad options; and the
# example core (gpucore-mkexample) explains itself. Needs no inferior.

. "$(dirname "${BASH_SOURCE[0]}")/../analyze_lib.sh"

"$mkexample" example.core >/dev/null
echo "not a core" >notcore
# The example core with its AMDGPU note renamed: a core without GPU state.
python3 "$here/strip_amdgpu_note.py" example.core nonote.core
gc notcore analyze notcore
expect_error 65 notcore "notcore: "
gc missing analyze does-not-exist.core
expect_error 66 missing "does-not-exist.core: cannot open"
gc nonote analyze nonote.core
expect_error 65 nonote "nonote.core: no AMDGPU core-state note"
# --json: the same error, and a document that names it (stdout is never left empty).
gc nonote-waves analyze waves --json nonote.core
expect_rc 65 nonote-waves
grep -Eq "^gpucore: nonote.core: no AMDGPU core-state note" nonote-waves.err ||
  fail "gpucore nonote-waves: unexpected error: $(cat nonote-waves.err)"
python3 -c 'import json; d=json.load(open("nonote-waves.out")); assert d["command"]=="waves" and d["error"].startswith("no AMDGPU core-state note"), d' ||
  fail "analyze waves --json on a core without GPU state printed no document with its error"
gc wave-range analyze regs --wave 99999 example.core
expect_error 64 wave-range "example.core: wave 99999 does not exist: the core has [0-9]+ waves"
gc no-wave analyze regs example.core
expect_error 64 no-wave "regs needs --wave N"
gc bad-space analyze mem --space texture --address 0 example.core
expect_error 64 bad-space "unknown address space 'texture'"
gc bad-opt analyze waves --size 4 example.core
expect_error 64 bad-opt "an option given is not one of"
gc two-cores analyze example.core example.core
expect_error 64 two-cores "expected exactly one CORE argument"
gc example analyze --json example.core
expect_rc 0 example
python3 -c 'import json,sys; d=json.load(open("example.out")); assert d["schema"]=="gpucore.analyze/1", d["schema"]' ||
  fail "the example core's report is not a gpucore.analyze/1 document"
exit 0
