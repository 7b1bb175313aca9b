#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `gpucore job` on the cores of one simulated job (tests/job.cmake):
#
#   job_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS
#
# Eight ranks of job 4711, each a gpucore-inferior with SLURM_JOB_ID and OMPI_COMM_WORLD_RANK
# in its environment, captured on demand one after the other: ranks 2 and 5 fault with the
# same bug (vadd-fault), rank 7 with another (rdna2-illegal), ranks 0, 1, 3, 4 and 6 hang (a
# small copy of multi-gpu-hang); rank 0 is captured before the first fault, the others after.
# The report must name rank 2 first, 5 the same fault, 7 another, the five hung ones victims,
# group the signatures with their ranks, and list a broken core as unreadable. One
# core of another job is kept apart. Two cores without a job id (one faulted, one hung) are no
# job: listed apart, each only faulted or not, never "job none" nor "faulted first".
#
# Exit codes: 0 pass, 1 fail, 77 skip (no ptrace rights).
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5
here=$(cd "$(dirname "$0")" && pwd)
test_name=job

. "$here/../lib/e2e.sh"
e2e_enter "$work"
e2e_need_ptrace

# The hang: multi-gpu-hang cut to one agent, one queue and two workgroups.
python3 - "$scenarios/multi-gpu-hang.json" hang.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "job-hang"
d["agents"] = d["agents"][:1]
d["queues"] = d["queues"][:1]
d["dispatches"] = d["dispatches"][:1]
d["dispatches"][0]["grid"] = [512]
d["waves"] = [dict(d["waves"][0], workgroup_count=2)]
d["host_threads"] = {"count": 1, "mode": "spin"}
json.dump(d, open(sys.argv[2], "w"))
PY
e2e_continue_copy "$scenarios/vadd-fault.json" vadd.json
e2e_continue_copy "$scenarios/rdna2-illegal.json" illegal.json

unset SLURM_JOB_ID PBS_JOBID LSB_JOBID FLUX_JOB_ID OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK \
  MV2_COMM_WORLD_RANK PALS_RANKID FLUX_TASK_RANK SLURM_PROCID
mkdir cores
# capture RANK SCENARIO [JOB]: one rank, captured now, its core in cores/.
capture() {
  SLURM_JOB_ID=${3:-4711} OMPI_COMM_WORLD_RANK=$1 e2e_start_inferior "$2"
  gc cap capture --kfd sim --quiet "$ipid" -o "cores/core.%j.%r"
  expect_rc 0 cap
  e2e_stop_inferior
}
capture 0 hang.json
capture 2 vadd.json
capture 7 illegal.json
capture 5 vadd.json
for r in 1 3 4 6; do capture "$r" hang.json; done
capture 0 vadd.json 99 # another job
# nojob NAME SCENARIO: a process with no job id in its environment, captured now.
nojob() {
  e2e_start_inferior "$2"
  gc cap capture --kfd sim --quiet "$ipid" -o "cores/$1"
  expect_rc 0 cap
  e2e_stop_inferior
}
nojob alone.fault vadd.json
nojob alone.hang hang.json
echo "not a core" >cores/notes.txt     # passed over: it does not start as a core
printf '\177ELFjunk' >cores/broken.core # listed as unreadable, with the reason
ln -s /etc/passwd cores/link             # not followed, not listed

gc job job --json cores
expect_rc 0 job
python3 - job.out <<'PY' || fail "the job report is wrong: $(cat job.out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpucore.job/1", d["schema"]
jobs = {j["job"]: j for j in d["jobs"]}
assert sorted(jobs) == ["4711", "99"], sorted(jobs)
j = jobs["4711"]
assert j["ranks"] == 8, j["ranks"]
assert j["first"]["rank"] == "2", j["first"]
assert j["first"]["role"] == "first"
assert j["same"] == ["5"], j["same"]
assert j["other"] == ["7"], j["other"]
assert sorted(j["hung"]) == ["0", "1", "3", "4", "6"], j["hung"]
roles = {c["rank"]: c["role"] for c in j["cores"]}
assert roles == {"0": "hung", "1": "hung", "2": "first", "3": "hung", "4": "hung",
                 "5": "same", "6": "hung", "7": "other"}, roles
# capture-time order, rank 0 (a hang captured before the fault) first
assert [c["rank"] for c in j["cores"]][:4] == ["0", "2", "7", "5"], j["cores"]
times = [c["time_ns"] for c in j["cores"]]
assert times == sorted(times), times
sigs = j["signatures"]
assert len(sigs) == 2, sigs
assert sigs[0]["ranks"] == ["2", "5"] and sigs[0]["count"] == 2, sigs[0]
assert sigs[0]["signature"].startswith("fault:vadd+"), sigs[0]
assert sigs[1]["ranks"] == ["7"], sigs[1]
assert all(c["signature"] is None or c["role"] != "hung" or c["faulting_waves"] == 0
           for c in j["cores"])
s = j["summary"]
assert s.startswith("job 4711: 8 ranks; rank 2 faulted first (fault:vadd+"), s
assert "; same fault on rank 5; another fault on rank 7; 5 hung (victims): 0,1,3,4,6" in s, s
o = jobs["99"]
assert o["ranks"] == 1 and o["first"]["rank"] == "0", o
# no job id: no job of their own, each only faulted or not
alone = {c["core"].rsplit("/", 1)[1]: c for c in d["without_job"]}
assert sorted(alone) == ["alone.fault", "alone.hang"], alone
assert alone["alone.fault"]["role"] == "faulted" and alone["alone.fault"]["faulting_waves"] > 0
assert alone["alone.hang"]["role"] == "no_fault" and alone["alone.hang"]["faulting_waves"] == 0
assert all(c["job"] is None for c in alone.values()), alone
bad = {u["core"].rsplit("/", 1)[1]: u["error"] for u in d["unreadable"]}
assert list(bad) == ["broken.core"], bad
assert "ELF header" in bad["broken.core"], bad
PY

# The text: the summary line first, one row per rank, the signatures with their ranks.
gc text job cores
expect_rc 0 text
head -1 text.out | grep -q "^job 4711: 8 ranks; rank 2 faulted first" ||
  fail "the text does not start with the summary: $(head -3 text.out)"
grep -Eq "^    [0-9a-f]{16}  fault:vadd\+[^ ]+  ranks 2,5 \(seen 2 times since " text.out ||
  fail "no signature line with its ranks: $(cat text.out)"
grep -q "broken.core: " text.out || fail "the unreadable file is not listed: $(cat text.out)"
grep -q "^2 cores without a job id (no job: none of them faulted first or is a victim): 1 faulted, 1 without a fault$" text.out ||
  fail "the cores without a job id are not listed apart: $(cat text.out)"
! grep -q "^job none" text.out || fail "cores without a job id are called a job: $(cat text.out)"
! grep -q "notes.txt" text.out || fail "a file that is no core is listed: $(cat text.out)"

# Single cores given by name work the same; nothing analyzable is 65; usage 64; a missing
# argument 66.
gc one job cores/core.4711.2 cores/core.4711.0
expect_rc 0 one
grep -q "^job 4711: 2 ranks; rank 2 faulted first" one.out || fail "$(cat one.out)"
gc none job cores/notes.txt
expect_rc 65 none
gc usage job
expect_rc 64 usage
# `analyze --job` is the same command: the same document and text, its options anywhere
# before the operands; not with a view, not with analyze's other options.
gc ajson analyze --json --job cores
expect_rc 0 ajson
cmp -s ajson.out job.out || fail "analyze --json --job differs from job --json: $(diff ajson.out job.out | head)"
gc atext analyze --job cores
expect_rc 0 atext
cmp -s atext.out text.out || fail "analyze --job differs from job: $(diff atext.out text.out | head)"
gc aview analyze waves --job cores
expect_rc 64 aview
grep -qF -- "--job is not an option of \`analyze waves\`" aview.err || fail "$(cat aview.err)"
gc ahost analyze --job --host x cores
expect_rc 64 ahost
gc ahelp analyze --help
grep -qF -- "gpucore analyze --job [--json] DIR|CORE..." ahelp.out || fail "analyze --help does not show --job"
# A hostile job id (a terminal escape, bytes that are not UTF-8) is kept exact in the JSON
# (escaped) and never reaches a terminal raw.
mkdir hostile
SLURM_JOB_ID=$'\e[31mred\xff' OMPI_COMM_WORLD_RANK=$'1\e]0;x\a' e2e_start_inferior hang.json
gc hcap capture --kfd sim --quiet "$ipid" -o hostile/core
expect_rc 0 hcap
e2e_stop_inferior
gc htext job hostile
expect_rc 0 htext
! grep -q $'\e' htext.out || fail "an escape reached the text: $(od -c htext.out | head)"
grep -q "^job ?\[31mred" htext.out || fail "the job id is not shown filtered: $(cat htext.out)"
gc hjson job --json hostile
expect_rc 0 hjson
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' hjson.out || fail "not JSON: $(cat hjson.out)"
gc missing job cores/absent
expect_rc 66 missing
