#!/usr/bin/env bash
# End-to-end tests of bench on a farm (issue 16): a real one-node Slurm cluster started from
# Debian's slurm-wlm and munge by each test (tests/e2e/slurm_cluster.sh, stopped by pid after
# it), and GNU parallel with local `--sshlogin :` jobs. Real yosys runs, never timings: the
# structure, the run counts, the rounds' states, and that a farm's result has the shape of a
# local bench's.
source "$(dirname "$0")/lib.sh"

SYNTH='read_verilog '"$SRC"'/examples/counter/counter.v; synth -top counter; write_verilog -noattr net.v'

py() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$2"; }

need_parallel() {
  command -v parallel > /dev/null || skip "GNU parallel is not installed (Debian: apt-get install parallel)"
}

# job_of DIR [N]: the job id (Slurm) or pid (parallel) of DIR's Nth submission (default 1).
job_of() { python3 -c "import json,sys; print(json.loads(open(sys.argv[1]+'/submissions.jsonl').read().splitlines()[int(sys.argv[2])-1])['job'])" "$1" "${2:-1}"; }

# The same keys at the top, in every arm and in every run: a farm's result reads as a local one's.
same_shape() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def shape(j):
    return (sorted(set(j) - {"rounds"}), sorted(j["arms"][0]), sorted(j["arms"][0]["runs"][0]))
sa, sb = shape(a), shape(b)
print("same" if sa == sb else f"differ: {sa} vs {sb}")
PY
}

test_slurm_bench_has_a_local_benchs_shape_and_a_cancelled_round_is_resubmitted() {
  need_slurm
  "$BIN" bench -p baseline -p jemalloc -n 3 --warmup 0 --json -- yosys -q -p "$SYNTH" > local.json 2> local.err
  # Held at submission, so that round 1 is certainly still queued when it is cancelled.
  "$BIN" bench -p baseline -p jemalloc -n 3 --warmup 0 --executor slurm --dir "$SB/exp" \
    --slurm-args "--exclusive --hold" -- yosys -q -p "$SYNTH" 2> submit.err
  expect_contains "$(cat submit.err)" "3 rounds submitted to Slurm as job" "submission said"
  job=$(job_of "$SB/exp")
  expect_eq "$(sed -n 's/.*ArrayTaskId=\([^ ]*\).*/\1/p' <(scontrol -o show job "$job") | head -1)" "0-2" "one array task per round"
  scancel "${job}_1"
  scontrol release "$job"
  set +e
  timeout 120 "$BIN" bench collect "$SB/exp" --wait --json > farm.json 2> farm.err
  rc=$?
  set -e
  expect_eq "$rc" 3 "collect's status while a round is missing"
  expect_contains "$(cat farm.err)" "3 rounds: 2 done, 1 missing" "progress line"
  expect_contains "$(cat farm.err)" "round 2 (task 1): missing: GONE (Slurm lists the job's other tasks but not this one: cancelled before it started)" "the cancelled round and why"
  expect_contains "$(cat farm.err)" "edashim bench collect $SB/exp --resubmit" "what to do"
  expect_eq "$(py '[(a["ok"], a["failed"]) for a in j["arms"]]' farm.json)" "[(2, 0), (2, 0)]" "two done rounds' runs"
  expect_eq "$(py '[(r["round"], r["task_index"], r["state"]) for r in j["rounds"]]' farm.json)" "[(1, 0, 'done'), (2, 1, 'missing'), (3, 2, 'done')]" "rounds in the JSON"
  expect_eq "$(same_shape local.json farm.json)" same "a farm's JSON has a local bench's keys"
  # The resubmission carries the experiment's --slurm-args, --hold too: released as the first was.
  "$BIN" bench collect "$SB/exp" --resubmit > /dev/null 2> resubmit.err || true
  expect_contains "$(cat resubmit.err)" "resubmitted task(s) 1 as Slurm job" "only the missing round resubmitted"
  expect_contains "$(cat resubmit.err)" "3 rounds: 2 done, 1 pending (JobHeldUser)" "a held task is said to be held"
  scontrol release "$(job_of "$SB/exp" 2)"
  timeout 120 "$BIN" bench collect "$SB/exp" --wait --json > farm2.json 2> farm2.err
  expect_eq "$(py '[(a["ok"], a["failed"], len(a["runs"])) for a in j["arms"]]' farm2.json)" \
    "$(py '[(a["ok"], a["failed"], len(a["runs"])) for a in j["arms"]]' local.json)" "the run count of a local bench"
  expect_eq "$(py 'sorted({r["round"] for a in j["arms"] for r in a["runs"]})' farm2.json)" "[1, 2, 3]" "every round"
  expect_eq "$(py '{r["host"] for a in j["arms"] for r in a["runs"]}' farm2.json)" "{'$(hostname)'}" "each run's host recorded"
  expect_eq "$(py '[a["verified_share"] for a in j["arms"]]' farm2.json)" "[1.0, 1.0]" "the allocator verified on the node"
  expect_eq "$(wc -l < "$SB/exp/submissions.jsonl")" 2 "two submissions recorded"
  # Two collects of one directory give the same answer.
  "$BIN" bench collect "$SB/exp" --json > again.json 2> /dev/null
  expect_eq "$(cmp -s farm2.json again.json && echo same)" same "collect is repeatable"
}

test_slurm_a_task_cancelled_while_running_is_a_partial_round() {
  need_slurm
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --executor slurm --dir "$SB/exp" \
    --slurm-args "--exclusive" -- sh -c 'sleep 30' 2> submit.err
  job=$(job_of "$SB/exp")
  wait_for "$SB/exp/rounds/r000000.part" '"round":0'
  scancel "${job}_0"
  for _ in $(seq 100); do
    scontrol -o show job "$job" | grep 'ArrayTaskId=0 ' | grep -q 'JobState=CANCELLED' && break
    sleep 0.1
  done
  scancel "$job"
  set +e
  "$BIN" bench collect "$SB/exp" > out.txt 2> collect.err
  rc=$?
  set -e
  expect_eq "$rc" 3 "collect's status: nothing done"
  expect_contains "$(cat collect.err)" "round 1 (task 0): partial: 0 run(s) before the task ended: the task was terminated (SIGTERM" "the killed round, from its own file"
  expect_contains "$(cat collect.err)" "CANCELLED" "and Slurm's word"
  expect_contains "$(cat collect.err)" "no round of $SB/exp is done yet" "nothing to analyse"
}

test_parallel_runs_every_round_on_local_sshlogin_jobs() {
  need_parallel
  "$BIN" bench -p baseline -p jemalloc -n 3 --warmup 1 --executor parallel --dir "$SB/pexp" --wait --json \
    -- yosys -q -p "$SYNTH" > farm.json 2> farm.err
  expect_contains "$(cat farm.err)" "3 rounds: 3 done" "every round done"
  expect_eq "$(py '[(a["ok"], a["failed"]) for a in j["arms"]]' farm.json)" "[(3, 0), (3, 0)]" "three runs per arm"
  expect_eq "$(ls "$SB/pexp/rounds")" "$(printf 'r000000.jsonl\nr000001.jsonl\nr000002.jsonl')" "a file per round"
  # Each task ran its warm-up runs first: 2 arms x (1 warm-up + 1 measured) lines after the header.
  expect_eq "$(wc -l < "$SB/pexp/rounds/r000001.jsonl")" 5 "warm-up and measured runs in the round's file"
  ! grep -q ':::' "$SB/pexp/parallel/joblog-1" || fail "joblog holds the command line"
  expect_eq "$(awk 'NR > 1' "$SB/pexp/parallel/joblog-1" | wc -l)" 3 "one parallel job per round"
}

# Issue 28 item 1: a farm bench's runs reach the user's run log as a local bench's do, marked
# with one experiment id, once however often the experiment is collected.
test_collect_writes_the_farm_runs_to_the_run_log_once() {
  need_parallel
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --executor parallel --dir "$SB/pexp" --wait \
    -- yosys -q -p "$SYNTH" > /dev/null 2> farm.err || fail "farm bench: $(cat farm.err)"
  expect_contains "$(cat farm.err)" "4 collected run(s) added to $LOG" "said"
  marked() { grep '"bench":{' "$LOG" | python3 -c "
import json, sys
lines = [json.loads(l) for l in sys.stdin]
print(len(lines), sorted({l['bench']['experiment'][:5] for l in lines}), sorted((l['bench']['arm'], l['bench']['round']) for l in lines))"; }
  expect_eq "$(marked)" "4 ['farm-'] [('baseline', 1), ('baseline', 2), ('jemalloc', 1), ('jemalloc', 2)]" \
    "each measured run once, marked as the farm experiment's"
  "$BIN" bench collect "$SB/pexp" > /dev/null 2> again.err || fail "collect: $(cat again.err)"
  expect_eq "$(marked)" "4 ['farm-'] [('baseline', 1), ('baseline', 2), ('jemalloc', 1), ('jemalloc', 2)]" "collecting again adds nothing"
  expect_not_contains "$(cat again.err)" "added to" "and says nothing of it"
}

test_parallel_a_killed_task_is_partial_and_resubmit_completes_it() {
  need_parallel
  # The tasks' temporary directories in a place of the test's own, to see that none is left.
  mkdir "$SB/tmp"
  TMPDIR=$SB/tmp "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --executor parallel --dir "$SB/pexp" \
    -- sh -c 'sleep 2' 2> submit.err
  wait_for "$SB/pexp/rounds/r000000.part" '"round":0'
  pkill -TERM -f "bench round --fingerprint [0-9a-f]* $SB/pexp 0\$"
  set +e
  timeout 120 "$BIN" bench collect "$SB/pexp" --wait > out.txt 2> collect.err
  rc=$?
  set -e
  expect_eq "$(cd "$SB/tmp" && echo edashim-bench-*)" 'edashim-bench-*' "the killed task's directories are removed"
  expect_eq "$rc" 3 "one round unfinished"
  expect_contains "$(cat collect.err)" "2 rounds: 1 done, 1 partial" "states"
  expect_contains "$(cat collect.err)" "round 1 (task 0): partial" "the killed round"
  expect_contains "$(cat collect.err)" "SIGNAL 15" "parallel's word on it"
  timeout 120 "$BIN" bench collect "$SB/pexp" --resubmit --wait > out2.txt 2> collect2.err
  expect_contains "$(cat collect2.err)" "resubmitted task(s) 0 as GNU parallel" "only round 0 again"
  expect_contains "$(cat collect2.err)" "2 rounds: 2 done" "complete now"
  ls "$SB/pexp/rounds/" | grep -q 'r000000.attempt-1' || fail "the killed attempt's file is kept"
}

test_tune_on_slurm_keeps_what_is_faster_with_each_step_an_experiment() {
  need_slurm
  # As tune's local test: narenas:2 makes the stand-in fast, anything else slow; 5 rounds each.
  tool=(sh -c 'case "$MALLOC_CONF" in *narenas:2*) sleep 0.01;; *) sleep 0.25;; esac')
  timeout 300 "$BIN" tune --option jemalloc.narenas=1,2 -n 5 --warmup 0 --max-rss-ratio 10 --executor slurm \
    --dir "$SB/tune" --slurm-args "--exclusive" --write tuned.toml -- "${tool[@]}" > out.txt 2> err.txt
  expect_contains "$(cat tuned.toml)" 'narenas = 2' "the value that is faster on the evidence"
  ls "$SB/tune/step-1/rounds" | grep -c 'jsonl$' > n.txt
  expect_eq "$(cat n.txt)" 5 "a step's rounds, each a Slurm task's file"
  expect_eq "$(python3 -c "import json; print(json.load(open('$SB/tune/step-1/experiment.json'))['spec']['arms'][0]['name'])")" \
    baseline "the step's arms"
  "$BIN" bench collect "$SB/tune/step-1" > step.txt 2> step.err
  expect_contains "$(cat step.txt)" "narenas=2" "a step reads back as any farm bench"
}

test_farm_options_and_directories_are_checked_before_anything_runs() {
  set +e
  out=$("$BIN" bench -p baseline --dir "$SB/d" -- yosys -q -p "$SYNTH" 2>&1); rc=$?
  expect_eq "$rc" 2 "--dir without an executor"
  expect_contains "$out" "--dir goes with --executor slurm or --executor parallel" "said why"
  out=$("$BIN" bench -p baseline --executor slurm -- yosys -q -p "$SYNTH" 2>&1); rc=$?
  expect_eq "$rc" 2 "no --dir"
  expect_contains "$out" "--executor slurm needs --dir DIR" "said why"
  out=$("$BIN" bench -p baseline --executor slurm --dir "$SB/d" --slurm-args "--array=0-3" -- yosys 2>&1); rc=$?
  expect_contains "$out" "--slurm-args --array=0-3: edashim sets --array itself" "reserved option"
  out=$("$BIN" bench -p baseline --executor slurm --dir "$SB/d" --slurm-args "--partition='eda" -- yosys 2>&1); rc=$?
  expect_contains "$out" "--slurm-args: unclosed single quote" "unclosed quote"
  out=$("$BIN" bench -p baseline --executor parallel --dir "$SB/d" --log x.jsonl -- yosys 2>&1); rc=$?
  expect_contains "$out" "--log is for a local bench" "--log on a farm"
  out=$("$BIN" bench -p no-such-profile --executor parallel --dir "$SB/d" -- yosys 2>&1); rc=$?
  expect_eq "$rc" 2 "a bad arm stops the submission"
  set -e
  [ ! -e "$SB/d" ] || fail "nothing was made for a refused bench"
  need_parallel
  "$BIN" bench -p baseline -n 1 --warmup 0 --executor parallel --dir "$SB/d" --wait -- yosys -q -p "$SYNTH" > /dev/null 2>&1
  set +e
  out=$("$BIN" bench -p baseline -n 1 --executor parallel --dir "$SB/d" -- yosys -q -p "$SYNTH" 2>&1); rc=$?
  expect_eq "$rc" 2 "a used directory"
  expect_contains "$out" "--dir $SB/d already holds an experiment" "said why"
  sed -i 's/"version": "[^"]*"/"version": "0.0.1-other"/' "$SB/d/experiment.json"
  out=$("$BIN" bench collect "$SB/d" 2>&1); rc=$?
  expect_eq "$rc" 2 "another version's directory"
  expect_contains "$out" "was made by edashim 0.0.1-other and this is edashim" "said which"
  out=$("$BIN" bench collect "$SB/nothing" 2>&1); rc=$?
  expect_contains "$out" "holds no experiment" "not an experiment"
  set -e
}

run_suite "$@"
