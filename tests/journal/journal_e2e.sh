#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of the journal entries (docs/fleet.md "The journal"; tests/journal.cmake):
# in a mount namespace of its own (unshare -m, private propagation) the script puts a tmpfs on
# /run, so the machine's journal is out of reach, and for CASE journal starts a
# systemd-journald of its own there; every command that writes a core runs against it.
#
#   journal_e2e.sh WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE
#
# CASE:
#   journal    run --store, run -o, capture, ingest (both halves, --store: their merge), merge
#              and the hook's `capture --trigger` each log one entry; `journalctl -D ...
#              MESSAGE_ID=... -o json` lists them, and every field equals the store row
#              (`gpucore list --json`) of the same core, or what `gpucore info`/`analyze` say
#              of a core written outside a store. Then journald stopped (SIGSTOP) with its
#              queue full: merge still exits 0 at once, the entry dropped with a debug note.
#   nojournal  no journald (an empty /run): run --store, capture and merge exit as before and
#              print nothing of a journal; with GPUCORE_DEBUG=1, one debug note per core (run
#              -o, merge); GPUCORE_JOURNAL=0: no entry, a debug note saying so.
#
# Needs root (unshare -m, mount), unshare and systemd-journald: else skipped (77), as without
# ptrace rights. One journald for the whole case, killed by the script's EXIT trap.
#
# Exit codes: 0 pass, 1 fail (one "FAIL [case]: why" line), 77 skip.

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 WORKDIR GPUCORE INFERIOR OBJECTS SCENARIOS CASE" >&2; exit 2; }
work=$1 gpucore=$2 inferior=$3 objects=$4 scenarios=$5 case=$6
here=$(cd "$(dirname "$0")" && pwd)
test_name="journal-$case"
msgid=438f3f0a3cbf4f2c96bb0f2000f39a45
journald=/lib/systemd/systemd-journald

if [ -z "${GPUCORE_JOURNAL_TEST_NS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP [$test_name]: needs root (unshare -m)"; exit 77; }
  command -v unshare >/dev/null || { echo "SKIP [$test_name]: no unshare"; exit 77; }
  [ -x "$journald" ] && command -v journalctl >/dev/null ||
    { echo "SKIP [$test_name]: no systemd-journald/journalctl"; exit 77; }
  # The namespace ends with the script: its mounts and (killed by the trap) its journald.
  GPUCORE_JOURNAL_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

. "$here/../lib/e2e.sh"
. "$here/../merge/ingest_lib.sh"
writer="$here/../merge/stream_writer.py"
e2e_enter "$work"
e2e_need_ptrace
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" GPUCORE_STORE="$work/store"
unset GPUCORE_JOURNAL GPUCORE_DEBUG
short=

jpid=
stop_journald() {
  if [ -n "$jpid" ]; then
    kill -CONT "$jpid" 2>/dev/null || true # a stopped journald would never act on TERM
    kill -TERM "$jpid" 2>/dev/null || true
    wait "$jpid" 2>/dev/null || true
  fi
  jpid=
}
e2e_exit_hook=stop_journald

# A private /run: the machine's journal socket (if any) is hidden, journald's files are ours.
mount -t tmpfs -o mode=0755 tmpfs /run || skip "cannot mount a tmpfs on /run"
mkdir -p /run/systemd/journal /run/log/journal
[ ! -d /var/log/journal ] || mount -t tmpfs tmpfs /var/log/journal

# journald names its files by the machine id: a fresh container may have an empty one, or none.
ensure_machine_id() {
  if grep -qE '^[0-9a-f]{32}$' /etc/machine-id 2>/dev/null; then return 0; fi
  python3 -c 'import uuid; print(uuid.uuid4().hex)' >"$work/machine-id"
  if [ -e /etc/machine-id ]; then
    mount --bind "$work/machine-id" /etc/machine-id || skip "cannot bind a machine id"
  else
    mkdir -p "$work/etc-ov"
    mount -t tmpfs tmpfs "$work/etc-ov"
    mkdir "$work/etc-ov/up" "$work/etc-ov/wk"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$work/etc-ov/up,workdir=$work/etc-ov/wk" /etc ||
      skip "no /etc/machine-id and no overlay to give one"
    cp "$work/machine-id" /etc/machine-id
  fi
}

start_journald() {
  ensure_machine_id
  # its files in /run only, no kernel messages read, no rate limit, nothing forwarded (the
  # machine's own journald.conf, if any, is hidden for the namespace's life)
  if [ -f /etc/systemd/journald.conf ]; then
    printf '[Journal]\nStorage=volatile\nReadKMsg=no\nRateLimitBurst=0\nForwardToSyslog=no\nForwardToWall=no\n' \
      >journald.conf
    mount --bind journald.conf /etc/systemd/journald.conf
  fi
  "$journald" >journald.out 2>&1 &
  jpid=$!
  for _ in $(seq 100); do
    [ -S /run/systemd/journal/socket ] && return 0
    kill -0 "$jpid" 2>/dev/null || skip "systemd-journald did not start: $(tail -3 journald.out)"
    sleep 0.05
  done
  skip "systemd-journald made no socket in 5 s: $(tail -3 journald.out)"
}

# run_vadd NAME OPTIONS...: `gpucore run OPTIONS` on vadd-fault, which faults and aborts
# (134); the core's path in $core.
run_vadd() {
  local name=$1
  shift
  gc "$name" run --kfd sim "$@" -- "$inferior" "$scenarios/vadd-fault.json" --objects "$objects"
  expect_rc 134 "$name"
  core=$(sed -n 's/^gpucore: \(.*\): [0-9.]* [KMG]*i*B on disk, .*/\1/p' "$name.err")
  [ -n "$core" ] && [ -f "$core" ] || fail "no core named in: $(cat "$name.err")"
}

# The commands of both cases; the cores' paths in run_store_core, run_o_core, cap_core,
# merged_core, merge_core, hook_core. $short (the no-journal case): run --store, capture and
# merge only (no run -o: it runs that with GPUCORE_DEBUG; ingest and the hook's capture send
# through the same calls as merge and capture), to keep the case short.
write_cores() {
  SLURM_JOB_ID=4711 OMPI_COMM_WORLD_RANK=3 run_vadd rs --store
  run_store_core=$core
  mkdir -p cores
  if [ -z "$short" ]; then
    run_vadd ro -o "$work/cores/core.%p"
    run_o_core=$core
  fi
  # capture (on demand), and the halves the runtime and the kernel leave, made from it
  e2e_rocr_split "$scenarios/vadd-fault.json"
  cap_core=$work/out/core
  gc mg merge -o "$work/merged.core" "gpucore.$pid" "core.$pid"
  expect_rc 0 mg
  merge_core=$work/merged.core
  [ -z "$short" ] || return 0
  feed gpu copy "gpucore.$pid" -- --store "$work/store2" --pid "$pid"
  expect_rc 0 gpu
  feed host copy "core.$pid" -- --host --pid "$pid" --store "$work/store2" --foreground-merge
  expect_rc 0 host
  merged_core=$(ls "$work"/store2/gpucore.*.zst 2>/dev/null | head -1) || true
  [ -n "$merged_core" ] || fail "ingest merged nothing: $(ls "$work/store2")"
  # what libgpucore-hook.so runs on a runtime's error (capture/hook/hook_args.c): capture
  # --trigger; the hook's own start is hook_e2e.sh's (it needs the hook library and a runtime)
  e2e_start_inferior scenario.json
  gc hk capture --kfd sim --trigger memory-violation "$ipid" -o "$work/hook.core"
  expect_rc 0 hk
  e2e_stop_inferior
  hook_core=$work/hook.core
}

case $case in
journal)
  start_journald
  write_cores
  gc ls list --json; expect_rc 0 ls
  gc ls2 list --json --store "$work/store2"; expect_rc 0 ls2
  gc an analyze --json "$run_o_core"; expect_rc 0 an
  gc an2 analyze --json "$run_store_core"; expect_rc 0 an2
  gc inf info --json "$run_o_core"; expect_rc 0 inf
  # journald writes what it receives at once; a reader may still be a moment behind
  for _ in $(seq 50); do
    journalctl -D /run/log/journal --no-pager MESSAGE_ID=$msgid -o json >entries.json 2>journalctl.err || true
    [ "$(wc -l <entries.json)" -ge 8 ] && break
    sleep 0.1
  done
  python3 - entries.json ls.out ls2.out an.out inf.out an2.out "$run_store_core" "$run_o_core" \
    "$cap_core" "$merged_core" "$merge_core" "$hook_core" "$work/store" "$work/store2" "$jpid" <<'PY' || fail "the entries are not what the cores say (entries.json)"
import json, os, sys
(entries_f, ls_f, ls2_f, an_f, inf_f, an2_f, run_store_core, run_o_core, cap_core, merged_core,
 merge_core, hook_core, store, store2, jpid) = sys.argv[1:]
entries = [json.loads(l) for l in open(entries_f) if l.strip()]
def die(msg):
    print(msg, file=sys.stderr); sys.exit(1)
by_core = {}
for e in entries:
    by_core.setdefault(e.get("GPUCORE_CORE"), []).append(e)
# one entry per core written: run --store, run -o, capture, two ingested halves, their merge,
# merge and the hook's capture
if len(entries) != 8:
    die("%d entries, expected 8: %s" % (len(entries), sorted(by_core)))
for path, writer in ((run_store_core, "run"), (run_o_core, "run"), (cap_core, "capture"),
                     (merged_core, "merge"), (merge_core, "merge"), (hook_core, "hook")):
    got = by_core.get(path)
    if not got or len(got) != 1:
        die("%s: %d entries" % (path, len(got or [])))
    if got[0]["GPUCORE_WRITER"] != writer:
        die("%s: writer %s, expected %s" % (path, got[0]["GPUCORE_WRITER"], writer))
ingested = [e for e in entries if e["GPUCORE_WRITER"] == "ingest"]
if len(ingested) != 2 or any(os.path.dirname(e["GPUCORE_CORE"]) != store2 for e in ingested):
    die("ingest's entries: %s" % [e["GPUCORE_CORE"] for e in ingested])
for e in entries:
    for k, want in (("PRIORITY", "2"), ("SYSLOG_IDENTIFIER", "gpucore"), ("MESSAGE_ID", "438f3f0a3cbf4f2c96bb0f2000f39a45")):
        if e.get(k) != want:
            die("%s: %s=%r" % (e["GPUCORE_CORE"], k, e.get(k)))
    if "\n" in e["MESSAGE"] or not e["MESSAGE"].startswith(("GPU crash of ", "GPU core ")):
        die("MESSAGE %r" % e["MESSAGE"])

# the fields of a stored core are its row's
FIELDS = {"GPUCORE_PID": "pid", "GPUCORE_UID": "uid", "GPUCORE_EXE": "executable",
          "GPUCORE_JOB": "job", "GPUCORE_RANK": "rank", "GPUCORE_TARGETS": "targets",
          "GPUCORE_TRIGGER": "trigger", "GPUCORE_WAVES": "waves",
          "GPUCORE_FAULTING_WAVES": "faulting_waves", "GPUCORE_CORE_SIZE": "size_on_disk",
          "GPUCORE_HOSTNAME": "host", "GPUCORE_STORE_ID": "id"}
def check_row(e, row):
    sig = row.get("signature") or {}
    row = dict(row, sig_hash=sig.get("hash"), sig_text=sig.get("text"))
    for f, k in dict(FIELDS, GPUCORE_SIGNATURE_HASH="sig_hash", GPUCORE_SIGNATURE="sig_text").items():
        want = row.get(k)
        if want is None:
            if f in e:
                die("%s: %s=%r, the row has none" % (row["file"], f, e[f]))
            continue
        if e.get(f) != str(want):
            die("%s: %s=%r, the row has %r" % (row["file"], f, e.get(f), want))
    if e["GPUCORE_TRUNCATED"] != ("1" if row.get("truncated") else "0"):
        die("%s: GPUCORE_TRUNCATED=%r" % (row["file"], e["GPUCORE_TRUNCATED"]))
    if row.get("time_ns") is not None and e.get("GPUCORE_TIMESTAMP") != str(row["time_ns"] // 1000):
        die("%s: GPUCORE_TIMESTAMP=%r, row time %r" % (row["file"], e.get("GPUCORE_TIMESTAMP"), row["time_ns"]))
rows = {r["file"]: r for r in json.load(open(ls_f))["cores"]}
rows2 = {r["file"]: r for r in json.load(open(ls2_f))["cores"]}
e = by_core[run_store_core][0]
check_row(e, rows[os.path.basename(run_store_core)])
# the row the capture made from the report child's triage is the one analyze gives
an2 = json.load(open(an2_f))
if (e["GPUCORE_SIGNATURE_HASH"], e["GPUCORE_SIGNATURE"], e["GPUCORE_WAVES"], e["GPUCORE_FAULTING_WAVES"]) != \
        (an2["signature"]["hash"], an2["signature"]["text"], str(an2["waves"]), str(an2["faulting_waves"])):
    die("run --store: the row is not what analyze says of the core")
if e["GPUCORE_JOB"] != "4711" or e["GPUCORE_RANK"] != "3" or not e.get("GPUCORE_SIGNATURE_HASH"):
    die("run --store: job/rank/signature %r" % e)
if int(e["GPUCORE_FAULTING_WAVES"]) < 1:
    die("run --store: no faulting wave")
check_row(by_core[merged_core][0], rows2[os.path.basename(merged_core)])
# run -o: no store, no row id; the values are the core's own (analyze, info)
e = by_core[run_o_core][0]
an, inf = json.load(open(an_f)), json.load(open(inf_f))
if "GPUCORE_STORE_ID" in e:
    die("run -o: a store id")
if e["GPUCORE_SIGNATURE_HASH"] != an["signature"]["hash"] or e["GPUCORE_SIGNATURE"] != an["signature"]["text"]:
    die("run -o: signature %r vs %r" % (e.get("GPUCORE_SIGNATURE_HASH"), an["signature"]))
if e["GPUCORE_WAVES"] != str(an["waves"]) or e["GPUCORE_FAULTING_WAVES"] != str(an["faulting_waves"]):
    die("run -o: waves")
if e["GPUCORE_PID"] != str(inf["capture"]["pid"]):
    die("run -o: pid %r vs %r" % (e["GPUCORE_PID"], inf["capture"]["pid"]))
if e["GPUCORE_CORE_SIZE"] != str(os.stat(run_o_core).st_blocks * 512):
    die("run -o: size")
# the same scenario crashes the same way, with or without a store
if e["GPUCORE_SIGNATURE_HASH"] != by_core[run_store_core][0]["GPUCORE_SIGNATURE_HASH"]:
    die("run -o and run --store: different signatures")
if "pid %s" % e["GPUCORE_PID"] not in e["MESSAGE"] or run_o_core not in e["MESSAGE"]:
    die("run -o: MESSAGE %r" % e["MESSAGE"])
if by_core[hook_core][0].get("GPUCORE_TRIGGER") != "memory-violation":
    die("hook: trigger %r" % by_core[hook_core][0].get("GPUCORE_TRIGGER"))

# For what follows: journald stopped, its queue filled (here, to spare a Python start).
import signal, socket
os.kill(int(jpid), signal.SIGSTOP)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.connect("/run/systemd/journal/socket")
s.setblocking(False)
try:
    while True:
        s.send(b"MESSAGE=filler")
except BlockingIOError:
    pass
PY
  # journald is stopped now with its queue full (above): sd_journal_send() would block for
  # ever (measured: a sender of 3000 entries to a SIGSTOPped journald never returned); gpucore
  # drops the entry after its short wait and says so at debug level.
  rc=0
  GPUCORE_DEBUG=1 timeout -s KILL 60 "$gpucore" merge -o "$work/stalled.core" "gpucore.$pid" \
    "core.$pid" >stalled.out 2>stalled.err || rc=$?
  kill -CONT "$jpid"
  [ "$rc" = 0 ] || fail "merge with a stalled journald exited $rc (137: it blocked): $(cat stalled.err)"
  grep -q "^gpucore: debug: $work/stalled.core: the journal entry was not sent: .*had no room" \
    stalled.err || fail "merge with a stalled journald: $(cat stalled.err)"
  ;;
nojournal)
  # no journald: /run is empty; everything as before, nothing said but at debug level
  short=1 write_cores
  for f in rs cap mg; do
    if grep -qiE "debug|journal entry|journald|sd_journal" "$f.err"; then
      fail "$f: a word of the journal without debug: $(cat "$f.err")"
    fi
  done
  export GPUCORE_DEBUG=1
  run_vadd rsd -o "$work/cores/core.%p"
  grep -q "^gpucore: debug: $core: no journal entry: no journal at /run/systemd/journal/socket" rsd.err ||
    fail "run -o: no debug note: $(cat rsd.err)"
  [ "$(grep -c 'journal entry' rsd.err)" = 1 ] || fail "run -o: not one note: $(cat rsd.err)"
  gc mgd merge -o "$work/merged2.core" "gpucore.$pid" "core.$pid"
  expect_rc 0 mgd
  grep -q "^gpucore: debug: $work/merged2.core: no journal entry" mgd.err ||
    fail "merge: no debug note: $(cat mgd.err)"
  # GPUCORE_JOURNAL=0: no entry, said at debug level
  GPUCORE_JOURNAL=0 gc mg0 merge -o "$work/merged0.core" "gpucore.$pid" "core.$pid"
  expect_rc 0 mg0
  grep -q "^gpucore: debug: $work/merged0.core: no journal entry: GPUCORE_JOURNAL=0" mg0.err ||
    fail "GPUCORE_JOURNAL=0: $(cat mg0.err)"
  ;;
*)
  fail "unknown case $case"
  ;;
esac
echo "PASS [$test_name]"
