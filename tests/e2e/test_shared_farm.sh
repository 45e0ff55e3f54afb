#!/usr/bin/env bash
# Issue 24, group 3: experiment directories are data, and on shared storage someone else's. Two
# real users (tests/e2e/lib.sh two_users): the victim runs bench on a farm (GNU parallel with
# local jobs), the attacker (or root, standing in for a group member of a shared directory)
# writes in experiment directories. Nothing the directory says may run as the victim, be
# appended to the victim's run log, or crash collect; every refusal names the directory.
source "$(dirname "$0")/lib.sh"

# Two users, GNU parallel, and canaries: scripts that leave a file behind if anything runs them.
farm_users() {
  command -v parallel > /dev/null || skip "GNU parallel is not installed (Debian: apt-get install parallel)"
  two_users
  CANARY=$SHARED_STICKY/canary-ran
  printf '#!/bin/sh\ntouch %s\n' "$CANARY" > "$SB/canary.sh"
  printf '#!/bin/sh\ntouch %s.2\n' "$CANARY" > "$SB/canary2.sh"
  chmod 0755 "$SB/canary.sh" "$SB/canary2.sh"
}

vbench() { as_victim "$VBIN" bench "$@"; }

# fingerprint FILE: what edashim computes for experiment.json FILE (farm::fingerprint: sha256 of
# its body as nlohmann dumps it, a newline, and the inputs' digest, empty for named profiles).
fingerprint() {
  python3 - "$1" <<'PY'
import hashlib, json, sys
j = json.load(open(sys.argv[1]))
body = {k: v for k, v in j.items() if k != "fingerprint"}
text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
print(hashlib.sha256((text + "\n").encode()).hexdigest())
PY
}

# edit_experiment FILE PYTHON [refingerprint]: changes experiment.json in place (its owner and
# mode kept, as a member of a shared directory's group would), the fingerprint recomputed or not.
edit_experiment() {
  python3 - "$@" <<'PY'
import hashlib, json, sys
path, code = sys.argv[1], sys.argv[2]
j = json.load(open(path))
exec(code)
if len(sys.argv) > 3:
    body = {k: v for k, v in j.items() if k != "fingerprint"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    j["fingerprint"] = hashlib.sha256((text + "\n").encode()).hexdigest()
with open(path, "r+") as f:
    f.seek(0); f.truncate(); f.write(json.dumps(j, indent=2) + "\n")
PY
}

# A finished experiment made by root (owner root passes the one rule, as /etc does), readable by
# everyone: a directory the victim did not make but edashim cannot refuse by its owner alone.
root_experiment() {
  "$BIN" bench -p baseline -p jemalloc -n 1 --warmup 0 --executor parallel --dir "$1" --wait --compare-outputs \
    -- mytool exit 0 > /dev/null 2>&1 || fail "root's experiment in $1"
  chmod -R a+rX "$1"
  # The harness's own formula must be edashim's, or the forged fingerprints below prove nothing.
  expect_eq "$(fingerprint "$1/experiment.json")" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fingerprint"])' "$1/experiment.json")" \
    "the test computes fingerprints as edashim does"
}

test_resubmit_never_runs_the_edashim_an_attackers_directory_names() {
  farm_users
  # The attacker's directory, open to all, with an experiment naming the canary as its edashim.
  as_attacker mkdir "$SHARED/exp"
  as_attacker chmod 0777 "$SHARED/exp"
  python3 - "$SHARED/exp/experiment.json" "$SB/canary.sh" <<'PY'
import json, sys
spec = {"arms": [{"name": "baseline", "profile": "baseline"}], "command": ["true"], "runs": 2, "warmup": 0,
        "fresh_copy": [], "fresh_copy_from": "", "on": "", "compare": False, "compare_outputs": [],
        "compare_stdout": True, "stdout_filter": "", "seed": 1}
json.dump({"format": 1, "executor": "parallel", "executor_args": [], "edashim": sys.argv[2], "version": "0.1.0",
           "cwd": "/", "spec": spec, "fingerprint": "00"}, open(sys.argv[1], "w"))
PY
  chown "$ATTACKER" "$SHARED/exp/experiment.json"
  set +e
  out=$(vbench collect "$SHARED/exp" --resubmit --wait 2>&1); rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "collect --resubmit of the attacker's directory succeeded"
  [ "$rc" -lt 128 ] || fail "collect crashed ($rc)"
  [ ! -e "$CANARY" ] || fail "the canary named by experiment.json ran as the victim"
  expect_contains "$out" "$SHARED/exp" "the refusal names the directory"
  expect_contains "$out" "$ATTACKER" "and its owner"
  # State, not timing: a job started would have made these before collect returned.
  [ ! -e "$SHARED/exp/submissions.jsonl" ] || fail "something was submitted"
  [ ! -e "$SHARED/exp/parallel" ] || fail "GNU parallel was started on the attacker's directory"

  # Past the owner rule (root's directory), a self-consistent experiment naming the canary: not
  # the victim's own, so nothing is resubmitted; and this edashim is not the canary either.
  root_experiment "$SB/rootexp"
  rm "$SB/rootexp/rounds/r000000.jsonl"
  edit_experiment "$SB/rootexp/experiment.json" "j['edashim'] = '$SB/canary2.sh'" refingerprint
  set +e
  out=$(vbench collect "$SB/rootexp" --resubmit --wait 2>&1); rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "resubmitting root's experiment succeeded"
  [ ! -e "$SB/rootexp/parallel/output-2" ] || fail "GNU parallel was started again on root's experiment"
  [ ! -e "$CANARY.2" ] || fail "the canary ran as the victim from a root-owned experiment"
  expect_contains "$out" "not your own experiment" "only the user's own experiments are resubmitted"
}

test_resubmit_runs_this_edashim_or_one_the_users_config_lists_never_another() {
  farm_users
  vbench -p baseline -n 2 --warmup 0 --executor parallel --dir "$SHARED/exp" --wait -- mytool exit 0 > /dev/null 2>&1 ||
    fail "the victim's experiment"
  # Another copy of edashim (another inode): what a swapped experiment.json of the victim's own
  # could name. The victim's own experiment, so only the edashim check stands in the way.
  mkdir "$SB/alt"
  cp "$SB/edashim-cli" "$SB/edashim-build-tree" "$SB/libedashim_probe.so" "$SB/alt/"
  edit_experiment "$SHARED/exp/experiment.json" "j['edashim'] = '$SB/alt/edashim-cli'" refingerprint
  rm "$SHARED/exp/rounds/r000000.jsonl" "$SHARED/exp/rounds/r000001.jsonl"  # another fingerprint's now
  set +e
  out=$(vbench collect "$SHARED/exp" --resubmit 2>&1); rc=$?
  set -e
  expect_eq "$rc" 1 "resubmission refused"
  expect_contains "$out" "names \"$SB/alt/edashim-cli\" as the edashim its tasks run, which is not this edashim" "said why"
  expect_contains "$out" "farm_edashim" "and the setting that allows it"
  [ ! -e "$SHARED/exp/parallel/joblog-2" ] || fail "a second submission was made"
  # Listed in the victim's own config: that edashim is run.
  echo "farm_edashim = [\"$SB/alt/edashim-cli\"]" > "$VHOME/.config/edashim/config.toml"
  chown "$VICTIM:$VICTIM" "$VHOME/.config/edashim/config.toml"
  vbench collect "$SHARED/exp" --resubmit --wait > /dev/null 2> err.txt || fail "resubmission with farm_edashim: $(cat err.txt)"
  expect_contains "$(cat err.txt)" "2 rounds: 2 done" "the round ran"
  grep -q "$SB/alt/edashim-cli bench round --fingerprint" "$SHARED/exp/parallel/joblog-2" || fail "with the listed edashim"
}

test_dir_on_an_open_or_foreign_directory_is_refused_before_anything_is_submitted() {
  farm_users
  as_attacker mkdir "$SHARED/open"
  as_attacker chmod 0777 "$SHARED/open"
  set +e
  out=$(vbench -p baseline -n 1 --warmup 0 --executor parallel --dir "$SHARED/open" -- mytool exit 0 2>&1); rc=$?
  set -e
  expect_eq "$rc" 2 "a usage error"
  expect_contains "$out" "$SHARED/open" "names the directory"
  expect_contains "$out" "$ATTACKER" "its owner"
  expect_contains "$out" "0777" "its mode"
  expect_contains "$out" "choose a new directory" "and what to do"
  expect_eq "$(ls -A "$SHARED/open")" "" "nothing written in it"
  # The victim's own directory, left open to others: refused too.
  as_victim mkdir "$SHARED/mine"
  as_victim chmod 0777 "$SHARED/mine"
  set +e
  out=$(vbench -p baseline -n 1 --warmup 0 --executor parallel --dir "$SHARED/mine" -- mytool exit 0 2>&1); rc=$?
  set -e
  expect_eq "$rc" 2 "an open directory of the victim's"
  expect_contains "$out" "writable by others" "said why"
  expect_eq "$(ls -A "$SHARED/mine")" "" "nothing written in it"
  # A new directory is made 0700 and the experiment runs.
  vbench -p baseline -n 1 --warmup 0 --executor parallel --dir "$SHARED/new" --wait -- mytool exit 0 > /dev/null 2>&1 ||
    fail "a new --dir"
  expect_eq "$(stat -c '%a %U' "$SHARED/new")" "700 $VICTIM" "made 0700, the victim's"
}

test_a_replaced_experiment_json_is_refused_by_queued_tasks_and_by_collect() {
  farm_users
  # Two rounds, one job at a time: round 1 is queued while round 0 runs.
  vbench -p baseline -n 2 --warmup 0 --executor parallel --dir "$SHARED/exp" -- sh -c 'sleep 2' > /dev/null 2>&1
  wait_for "$SHARED/exp/rounds/r000000.part" '"round":0'
  # Swapped while round 1 waits, its fingerprint made consistent: the queued task must not run it.
  edit_experiment "$SHARED/exp/experiment.json" "j['spec']['command'] = ['sh', '-c', 'touch $CANARY']" refingerprint
  set +e
  out=$(as_victim timeout 120 "$VBIN" bench collect "$SHARED/exp" --wait 2>&1)
  set -e
  [ ! -e "$CANARY" ] || fail "a queued task ran the replaced experiment's command"
  grep -q "is not the experiment this task was submitted for" "$SHARED/exp/parallel/output-1" ||
    fail "the task said why: $(cat "$SHARED/exp/parallel/output-1")"
  # Changed without a consistent fingerprint: collect refuses it, naming the file.
  edit_experiment "$SHARED/exp/experiment.json" "j['spec']['runs'] = 1"
  set +e
  out=$(vbench collect "$SHARED/exp" 2>&1); rc=$?
  set -e
  expect_eq "$rc" 2 "collect refuses"
  expect_contains "$out" "$SHARED/exp/experiment.json" "names the file"
  expect_contains "$out" "fingerprint" "and what is wrong"
}

test_a_foreign_experiments_collect_appends_nothing_to_the_victims_log() {
  farm_users
  root_experiment "$SB/rootexp"
  touch "$VLOG"; chown "$VICTIM:$VICTIM" "$VLOG"; chmod 0600 "$VLOG"
  set +e
  out=$(vbench collect "$SB/rootexp" 2>&1); rc=$?
  set -e
  expect_eq "$rc" 0 "root's finished experiment is collected (it may be read)"
  expect_contains "$out" "1 rounds: 1 done" "its figures"
  ! grep -q bench_outputs "$VLOG" || fail "a foreign experiment's verdict entered the victim's run log"
  # The victim's own experiment still records it (what adopt_requires_bench reads).
  vbench -p baseline -p jemalloc -n 1 --warmup 0 --executor parallel --dir "$SHARED/own" --wait --compare-outputs \
    -- mytool exit 0 > /dev/null 2>&1 || fail "the victim's own experiment"
  grep -q bench_outputs "$VLOG" || fail "the victim's own experiment's verdict is recorded"
}

test_a_deeply_nested_round_line_is_refused_not_a_crash() {
  farm_users
  vbench -p baseline -n 2 --warmup 0 --executor parallel --dir "$SHARED/exp" --wait -- mytool exit 0 > /dev/null 2>&1 ||
    fail "the victim's experiment"
  python3 - "$SHARED/exp/rounds/r000001.jsonl" <<'PY'
import sys
path = sys.argv[1]
header = open(path).read().splitlines()[0]
with open(path, "r+") as f:
    f.seek(0); f.truncate()
    f.write(header + "\n" + '{"arm":0,"record":' + '{"a":' * 200000 + "1" + "}" * 200000 + "}\n")
PY
  set +e
  out=$(vbench collect "$SHARED/exp" 2>&1); rc=$?
  set -e
  [ "$rc" -lt 128 ] || fail "collect crashed on a 200000-deep line ($rc)"
  expect_eq "$rc" 3 "the round is not done"
  expect_contains "$out" "not an edashim task's" "said why"
  expect_contains "$out" "2 rounds: 1 done" "the other round still counts"
  # A round's file someone else owns (in a shared directory): refused by the rule, never read.
  chown "$ATTACKER" "$SHARED/exp/rounds/r000000.jsonl"
  set +e
  out=$(vbench collect "$SHARED/exp" 2>&1); rc=$?
  set -e
  expect_eq "$rc" 3 "no round is done now"
  expect_contains "$out" "$SHARED/exp/rounds/r000000.jsonl" "the refused file is named"
  expect_contains "$out" "$ATTACKER" "with its owner"
  # And experiment.json itself nested as deep.
  python3 -c 'import sys; open(sys.argv[1], "w").write("[" * 200000 + "]" * 200000)' "$SHARED/exp/experiment.json"
  set +e
  out=$(vbench collect "$SHARED/exp" 2>&1); rc=$?
  set -e
  expect_eq "$rc" 2 "a deep experiment.json is refused"
  expect_contains "$out" "nested deeper" "said why"
}

test_a_forged_job_id_is_never_printed_into_a_cancel_hint() {
  farm_users
  vbench -p baseline -n 1 --warmup 0 --executor parallel --dir "$SHARED/exp" -- sh -c 'sleep 4' > /dev/null 2>&1
  wait_for "$SHARED/exp/rounds/r000000.part" '"round":0'
  pid=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['job'])" "$SHARED/exp/submissions.jsonl")
  printf '%s\n' '{"seq":2,"executor":"slurm","job":"7; touch '"$CANARY"'","rounds":[],"started":0,"time":0}' \
    '{"seq":3,"executor":"parallel","job":"$(touch '"$CANARY"')\u001b[2K","rounds":[],"started":0,"time":0}' \
    >> "$SHARED/exp/submissions.jsonl"
  # Interrupted while waiting: the hint says how to cancel what still runs.
  set +e
  out=$(as_victim timeout -s INT 2 "$VBIN" bench collect "$SHARED/exp" --wait 2>&1)
  set -e
  expect_contains "$out" "cancel them: kill $pid)" "the real job's hint"
  expect_not_contains "$out" "touch" "no forged text in the hint"
  expect_not_contains "$out" $'\x1b' "no escape sequence printed"
  expect_contains "$out" "2 line(s) of $SHARED/exp/submissions.jsonl name no valid job" "the forged lines are named"
  # The task is left to end on its own (it is the victim's, started by this test).
  wait_for "$SHARED/exp/parallel/joblog-1" $'\t0\t0\t'
}

run_suite "$@"
