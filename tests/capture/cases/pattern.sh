#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Output patterns (-o): %p, %e and %%, a bad sequence refused, job and rank from the target's
# environment.

. "$(dirname "${BASH_SOURCE[0]}")/../capture_lib.sh"

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
exit 0
