#!/usr/bin/env bash
# End-to-end tests of edashim bench, report and tune: short real runs (a tiny yosys synthesis,
# /bin/sh), checking structure and consistency, never timings.
source "$(dirname "$0")/lib.sh"

SYNTH='read_verilog '"$SRC"'/examples/counter/counter.v; synth -top counter; write_verilog -noattr net.v'

# py EXPR FILE: evaluates EXPR with j bound to the JSON in FILE.
py() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$2"; }

test_bench_json_has_every_run_and_report_reproduces_its_medians() {
  "$BIN" bench -p baseline -p jemalloc -n 3 --warmup 1 --log bench.jsonl --compare-outputs net.v --json \
    -- yosys -q -p "$SYNTH" > bench.json 2> bench.err
  expect_eq "$(py 'len(j["arms"])' bench.json)" 2 "two arms"
  expect_eq "$(py '[a["name"] for a in j["arms"]]' bench.json)" "['baseline', 'jemalloc']" "arm names in order"
  expect_eq "$(py '[(a["ok"], a["failed"], len(a["runs"])) for a in j["arms"]]' bench.json)" "[(3, 0, 3), (3, 0, 3)]" "3 runs each"
  expect_eq "$(py 'all(r["wall_s"] > 0 and r["max_rss_kb"] > 0 and r["exit_code"] == 0 for a in j["arms"] for r in a["runs"])' bench.json)" \
    True "raw figures per run"
  expect_eq "$(py 'sorted({r["round"] for r in j["arms"][1]["runs"]})' bench.json)" "[1, 2, 3]" "rounds"
  expect_eq "$(py 'sorted(j["arms"][0]["runs"][0]["sha256"])' bench.json)" "['net.v', 'stdout']" "hashed outputs"
  expect_eq "$(py '[a["outputs"] for a in j["arms"]]' bench.json)" "['reference', 'identical']" "same netlist"
  expect_eq "$(py 'j["arms"][1]["mann_whitney"]["exact"]' bench.json)" True "exact p for n=3"
  expect_eq "$(py '0 <= j["arms"][1]["mann_whitney"]["p_faster"] <= 1' bench.json)" True "p in [0,1]"
  expect_eq "$(py 'j["arms"][1]["median_ratio_ci95"][0] <= j["arms"][1]["median_ratio_ci95"][1]' bench.json)" True "CI ordered"
  expect_eq "$(py 'j["arms"][0]["env_bytes"] == j["arms"][1]["env_bytes"]' bench.json)" True "padded to one size"
  # Only measured runs are kept in the log: 2 arms x 3.
  expect_eq "$(wc -l < bench.jsonl)" 6 "log lines"
  "$BIN" report --log bench.jsonl --json > report.json
  expect_eq "$(py '[(r["profile"], r["runs"]) for r in j]' report.json)" "[('baseline', 3), ('jemalloc', 3)]" "report rows"
  bench_medians=$(py '[a["wall_s"]["median"] for a in j["arms"]]' bench.json)
  report_medians=$(py '[r["wall_s"]["median"] for r in j]' report.json)
  expect_eq "$report_medians" "$bench_medians" "report reproduces bench's medians exactly"
  expect_eq "$(py '[round(r["median_max_rss_kb"]) for r in j]' report.json)" \
    "$(py '[round(a["peak_rss_kb_median"]) for a in j["arms"]]' bench.json)" "and its peak RSS"
  ratio=$(py 'j["arms"][0]["wall_s"]["median"] / j["arms"][1]["wall_s"]["median"]' bench.json)
  expect_eq "$(py "abs(j[1]['speedup_vs_baseline'] - $ratio) < 1e-9" report.json)" True "speedup = baseline/jemalloc medians"
  # The other formats and the plot.
  "$BIN" report --log bench.jsonl --csv > r.csv
  expect_eq "$(head -1 r.csv)" "tool,profile,runs,failed,median s,p5 s,p95 s,median RSS MB,verified,speedup" "csv header"
  expect_contains "$("$BIN" report --log bench.jsonl --markdown)" "| yosys | jemalloc | 3 | 0 |" "markdown row"
}

test_bench_text_markdown_csv_and_plot() {
  "$BIN" bench -p baseline -p mimalloc -n 2 --warmup 0 --plot p.svg --markdown -- sh -c 'exit 0' > out.md 2> err.txt
  expect_contains "$(cat out.md)" "| arm | ok | failed | mean s | median s |" "markdown header"
  expect_contains "$(cat out.md)" "| mimalloc | 2 | 0 |" "markdown row"
  expect_contains "$(cat err.txt)" "plot written to p.svg" "plot message"
  python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse('p.svg')" || fail "SVG is not well-formed XML"
  expect_eq "$(grep -o '<circle' p.svg | wc -l)" 8 "one dot per run per panel"
  "$BIN" bench -p baseline -p mimalloc -n 2 --warmup 0 --csv -- sh -c 'exit 0' > out.csv
  expect_eq "$(wc -l < out.csv)" 3 "csv: header and one line per arm"
  expect_eq "$(tail -1 out.csv | cut -d, -f1-3)" "mimalloc,2,0" "csv row"
}

test_bench_reports_and_excludes_failed_runs() {
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --json -- sh -c 'echo broken >&2; exit 3' > b.json 2> err.txt || rc=$?
  expect_eq "$rc" 1 "no successful run: status 1"
  expect_eq "$(py '[(a["ok"], a["failed"]) for a in j["arms"]]' b.json)" "[(0, 2), (0, 2)]" "all failed"
  expect_contains "$(cat err.txt)" "exit status 3: broken" "failure reason with the tool's stderr"
  expect_eq "$(py 'j["arms"][0]["wall_s"]["median"]' b.json)" None "no figures from failed runs"
}

test_bench_pads_every_arms_environment_to_one_size() {
  # The tool's whole environment size, per run, compared across arms: jemalloc adds LD_PRELOAD
  # and MALLOC_CONF-style variables, the padding must make up for them.
  "$BIN" bench -p baseline -p jemalloc -p tcmalloc -n 2 --warmup 0 --compare-outputs --json \
    -- sh -c 'env | wc -c' > pad.json
  expect_eq "$(py '[a["outputs"] for a in j["arms"]]' pad.json)" "['reference', 'identical', 'identical']" "same env size"
  expect_eq "$(py 'sorted(j["arms"][0]["runs"][0]["sha256"])' pad.json)" "['stdout']" "bare --compare-outputs: stdout only"
  "$BIN" bench -p baseline -p jemalloc -n 1 --warmup 0 --compare-outputs --json -- sh -c 'printenv LD_PRELOAD; true' > pre.json
  expect_eq "$(py '[a["outputs"] for a in j["arms"]]' pre.json)" "['reference', 'differs: stdout']" "the arms do differ"
}

test_bench_fresh_copy_runs_each_run_in_a_new_tmpfs_directory() {
  echo data > input.txt
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --fresh-copy input.txt --on tmpfs --json \
    -- sh -c 'test "$(cat input.txt)" = data && case "$PWD" in /dev/shm/*) exit 0;; *) exit 9;; esac' > f.json
  expect_eq "$(py '[a["ok"] for a in j["arms"]]' f.json)" "[2, 2]" "ran in a tmpfs copy"
  expect_eq "$(ls /dev/shm | grep -c edashim-bench || true)" 0 "copies removed"
}

test_bench_warns_when_jobs_exceed_physical_cores() {
  "$BIN" bench -p baseline -p jemalloc -n 1 --warmup 0 --jobs 999 -- sh -c 'exit 0' > /dev/null 2> err.txt
  expect_contains "$(cat err.txt)" "exceeds the" "warning"
}

test_tune_writes_a_profile_that_runs_and_never_overwrites() {
  "$BIN" tune --option jemalloc.narenas=1,2 -n 2 --warmup 0 --max-rss-ratio 10 --write tuned.toml --plot t.svg \
    -- sh -c 'exit 0' > out.txt 2> err.txt
  expect_contains "$(cat out.txt)" "narenas" "trade-off table"
  expect_contains "$(cat tuned.toml)" 'allocator = "jemalloc"' "profile snippet"
  python3 -c "import xml.dom.minidom; xml.dom.minidom.parse('t.svg')" || fail "trade-off SVG is not well-formed"
  "$BIN" run --strict -p "$PWD/tuned.toml" -- sh -c 'exit 0' || fail "the written profile does not load"
  before=$(cat tuned.toml)
  rc=0
  "$BIN" tune --option jemalloc.narenas=1 -n 1 --warmup 0 --write tuned.toml -- sh -c 'exit 0' > /dev/null 2> err2.txt || rc=$?
  expect_eq "$rc" 2 "refuses to overwrite"
  expect_contains "$(cat err2.txt)" "--force" "says how"
  expect_eq "$(cat tuned.toml)" "$before" "file untouched"
}

run_suite "$@"
