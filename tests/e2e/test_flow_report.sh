#!/usr/bin/env bash
# End-to-end tests of the flow in the log and `edashim report --flow` (issue 26 item 4): runs of
# one flow share its id, a run below another names it as parent, and the report's per-tool
# figures and SVG timeline, against Debian's yosys.
source "$(dirname "$0")/lib.sh"

COUNTER=$SRC/examples/counter/counter.v
SYNTH="read_verilog $COUNTER; synth -top counter"

need_yosys() { command -v yosys > /dev/null || skip "yosys not installed (see install/packages.txt)"; }
# The flow variables of whatever started this test (a CI job's own flow) stay out of it.
clean_flow_env() { unset EDASHIM_FLOW __EDASHIM_PARENT_RUN; }

# log_rows EXPR: EXPR evaluated on every log line (bound to j), one output line each, but for
# yosys' ABC runs: once tools under a run are routed (issue 26 item 3) they log lines of their
# own, which parents_consistent checks.
log_rows() {
  python3 -c "import json,sys
for l in open(sys.argv[1]).read().splitlines():
    j = json.loads(l)
    if 'abc' not in j['tool']: print($1)" "$LOG"
}
# Every line of the log is of flow $1, and names as parent none or a run of the log: a routed
# run (yosys' ABC) below a run names that run.
parents_consistent() {
  python3 -c "import json,sys
lines = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
ids = {j['run_id'] for j in lines}
bad = [(j['tool'], j['flow'], j['parent_run']) for j in lines if j['flow'] != sys.argv[2] or (j['parent_run'] is not None and j['parent_run'] not in ids)]
print(bad if bad else 'ok', len(ids) == len(lines))" "$LOG" "$1"
}
# json_of FILE EXPR: EXPR evaluated on FILE's JSON (bound to j).
json_of() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
# The file parses as XML (an SVG a browser would show), else the parser's complaint.
xml_ok() { python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1]); print('ok')" "$1" 2>&1 | tail -1; }

test_runs_under_one_edashim_flow_share_it_and_report_shows_each_tool() {
  need_yosys
  clean_flow_env
  shim yosys
  yosys -q -p "$SYNTH" > direct.out 2>&1 || fail "direct-like run: $(cat direct.out)"
  rm -f "$LOG"
  export EDASHIM_FLOW=e2e-flow.1
  yosys -q -p "$SYNTH" || fail "first yosys run"
  yosys -q -p "$SYNTH" || fail "second yosys run"
  mytool exit 0 || fail "mytool run"
  unset EDASHIM_FLOW
  expect_eq "$(log_rows 'j["tool"], j["flow"], j["parent_run"]')" \
"yosys e2e-flow.1 None
yosys e2e-flow.1 None
mytool e2e-flow.1 None" "each line's flow and parent"
  expect_eq "$(log_rows 'j["run_id"]' | grep -cE '^[0-9a-f]{16}$')" 3 "run ids of 16 hex digits"
  expect_eq "$(parents_consistent e2e-flow.1)" "ok True" "every run of the flow, parents among them, ids distinct"
  runs=$(wc -l < "$LOG")
  # A run outside the flow starts one of its own, named by its run id.
  yosys -q -p "$SYNTH" || fail "yosys outside the flow"
  expect_eq "$(last_log "$LOG" 'j["flow"] == j["run_id"] and j["parent_run"] is None')" True "a flow of its own"

  "$BIN" report --flow e2e-flow.1 --json > flow.json || fail "report --flow: status $?"
  expect_eq "$(json_of flow.json '[(t["tool"], t["runs"], t["failures"], t["allocators"]) for t in j["tools"] if "abc" not in t["tool"]]')" \
    "[('yosys', 2, 0, ['jemalloc']), ('mytool', 1, 0, ['system'])]" "per-tool rows, most time first"
  # Each tool's total over the flow's first start to last end: yosys' two runs are most of it.
  expect_eq "$(json_of flow.json 'abs(sum(r["wall_s"] for r in j["runs"] if r["tool"] == "yosys") / j["wall_s"] - j["tools"][0]["share"]) < 1e-9')" True "yosys' share"
  expect_eq "$(json_of flow.json '0.5 < j["tools"][0]["share"] <= 1')" True "yosys' share in range"
  expect_eq "$(json_of flow.json 'j["tools"][0]["verified_share"]')" 1.0 "yosys' allocator verified"
  expect_eq "$(json_of flow.json 'j["svg"]')" flow-e2e-flow.1.svg "the timeline's default name"
  expect_eq "$(xml_ok flow-e2e-flow.1.svg)" ok "the timeline is well-formed XML"
  expect_eq "$(grep -c '<title>' flow-e2e-flow.1.svg)" "$runs" "a bar per run"
  expect_contains "$(cat flow-e2e-flow.1.svg)" "read_verilog" "the command in a bar's title"
  # Bare --flow is the flow whose run ended last: the lone run after the named flow.
  out=$("$BIN" report --flow --svg last.svg) || fail "report --flow (last): status $?"
  lone=$(last_log "$LOG" 'j["flow"]')
  n=$(python3 -c "import json,sys; print(sum(json.loads(l)['flow'] == sys.argv[2] for l in open(sys.argv[1])))" "$LOG" "$lone")
  expect_contains "$out" "flow $lone: $n run" "the last flow"
  expect_contains "$out" "timeline: last.svg" "the timeline's path"
  [ -s last.svg ] || fail "--svg PATH not written"
}

# A real process tree: an edashim run whose tool (sh) starts yosys twice through its link. Until
# every tool under a run is routed to its own run (issue 26 item 3), a run inside a tree is run
# plain; with the tree's marker taken away, each yosys is a run of its own, as a routed one is,
# and sees only what the run above passed down.
test_runs_below_a_run_join_its_flow_and_name_it_as_parent() {
  need_yosys
  clean_flow_env
  shim yosys
  "$BIN" run -- sh -c 'echo "$EDASHIM_FLOW $__EDASHIM_PARENT_RUN" > passed
    for i in 1 2; do env -u __EDASHIM_CHAIN -u LD_PRELOAD yosys -q -p "$1" || exit 1; done' sh "$SYNTH" ||
    fail "the tree failed: status $?"
  expect_eq "$(log_rows 'j["tool"]')" "yosys
yosys
sh" "a line per run, each at its end"
  top_run=$(last_log "$LOG" 'j["run_id"]')
  expect_eq "$(parents_consistent "$top_run")" "ok True" "every run of the flow, parents among them, ids distinct"
  runs=$(wc -l < "$LOG")
  expect_eq "$(last_log "$LOG" 'j["flow"] == j["run_id"] and j["parent_run"] is None')" True "the top run starts the flow"
  expect_eq "$(cat passed)" "$top_run $top_run" "what the tool's environment carries down"
  expect_eq "$(log_rows 'j["flow"], j["parent_run"]' | head -2 | sort -u)" "$top_run $top_run" "the yosys runs' flow and parent"
  expect_eq "$(log_rows 'j["allocator"]["requested"], j["allocator_verified"]' | head -2 | sort -u)" "jemalloc True" \
    "each yosys run with its own profile, verified"

  "$BIN" report --flow "$top_run" --json > flow.json || fail "report --flow: status $?"
  expect_eq "$(json_of flow.json '[(t["tool"], t["runs"]) for t in j["tools"] if "abc" not in t["tool"]]')" "[('sh', 1), ('yosys', 2)]" "per-tool rows"
  # sh's run spans the flow; the yosys runs sit inside it.
  expect_eq "$(json_of flow.json 'abs(j["tools"][0]["share"] - 1) < 1e-3 and j["tools"][1]["share"] < j["tools"][0]["share"]')" \
    True "shares of the flow's time"
  expect_eq "$(json_of flow.json '[r["parent_run"] for r in j["runs"] if "abc" not in r["tool"]] == [None, j["flow"], j["flow"]]')" True "parents in the report"
  out=$("$BIN" report --flow "$top_run") || fail "report --flow text: status $?"
  expect_contains "$out" "flow $top_run: $runs runs" "the text's heading"
  grep -qE '^yosys +2 +0 .* jemalloc +100% ' <<< "$out" || fail "yosys' row (2 runs, none failed, jemalloc, verified): $out"
}

test_an_edashim_flow_that_is_not_an_id_is_said_once_and_ignored() {
  need_yosys
  clean_flow_env
  shim yosys
  direct=$(EDASHIM=off yosys -q -p "$SYNTH" 2>&1; echo "status $?")
  rm -f "$LOG"
  shimmed=$(EDASHIM_FLOW=$'../x \e[2J' yosys -q -p "$SYNTH" 2> err; echo "status $?")
  expect_eq "$shimmed" "$direct" "the tool's output and status as directly"
  expect_eq "$(grep -c 'EDASHIM_FLOW=' err)" 1 "one line on stderr"
  expect_contains "$(cat err)" "is not a flow id" "what the line says"
  if grep -q $'\e' err; then fail "the terminal escape reached stderr raw"; fi
  expect_eq "$(last_log "$LOG" 'j["flow"] == j["run_id"] and j["parent_run"] is None')" True "a flow of the run's own"
}

# A shared log is anyone's to write: what it says goes into the SVG and the terminal escaped.
test_report_flow_escapes_what_a_hostile_log_says() {
  clean_flow_env
  python3 - > hostile.jsonl <<'PY'
import json
evil = "</title><script>alert(1)</script>\x1b]0;owned\x07<!--"
for i, (tool, start, wall) in enumerate([("make" + evil, 100.0, 10.0), ("yosys", 101.0, 3.0), ("yosys", 104.0, 2.0)]):
    print(json.dumps({"v": 1, "start_unix": start, "tool": tool, "argv": [tool, "-p", evil], "run_id": "r%d" % i,
                      "flow": "F1", "parent_run": None if i == 0 else "r0",
                      "allocator": {"requested": "je" + evil}, "wall_s": wall, "max_rss_kb": 1000,
                      "exit_code": 0, "signal": None, "allocator_verified": True}))
# A flow id that would make a path of its file name, ended last.
print(json.dumps({"v": 1, "start_unix": 900.0, "tool": "x", "argv": ["x"], "run_id": "r9", "flow": "../../evil",
                  "wall_s": 1.0, "max_rss_kb": 1, "exit_code": 0, "signal": None}))
PY
  out=$("$BIN" report --log hostile.jsonl --flow 2> err) || fail "report --flow: status $?: $(cat err)"
  expect_contains "$out" "flow F1: 3 runs" "the last flow whose id is an id"
  if grep -q $'\e' <<< "$out$(cat err)"; then fail "an escape from the log reached the terminal raw"; fi
  [ ! -e ../../evil.svg ] && [ ! -e flow-../../evil.svg ] || fail "a file named by the log's flow id"
  expect_eq "$(xml_ok flow-F1.svg)" ok "the timeline is well-formed XML"
  if grep -q '<script' flow-F1.svg; then fail "markup from the log in the SVG"; fi
  expect_eq "$(grep -c '<title>' flow-F1.svg)" 3 "a bar per run"
}

test_report_flow_says_when_no_run_names_a_flow() {
  clean_flow_env
  echo '{"v":1,"start_unix":1,"tool":"yosys","argv":["yosys"],"wall_s":1,"max_rss_kb":1,"exit_code":0,"signal":null}' > old.jsonl
  rc=0; "$BIN" report --log old.jsonl --flow > out 2> err || rc=$?
  expect_eq "$rc" 1 "report --flow on a log without flows"
  expect_contains "$(cat err)" "names its flow" "why nothing is shown"
  rc=0; "$BIN" report --log old.jsonl --flow nope > out 2> err || rc=$?
  expect_eq "$rc" 1 "report --flow of an absent flow"
  expect_contains "$(cat err)" "no runs of the flow nope" "the flow named is not there"
  rc=0; "$BIN" report --log old.jsonl --flow 'a/b' > out 2> err || rc=$?
  expect_eq "$rc" 2 "an ID that is not one: usage error"
  expect_contains "$(cat err)" "is not a flow id" "what is wrong with it"
}

run_suite "$@"
