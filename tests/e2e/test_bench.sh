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
  expect_eq "$(py '[a["outputs_summary"] for a in j["arms"]]' bench.json)" "['reference', 'identical']" "same netlist"
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
  ratio=$(py 'j["arms"][1]["wall_s"]["median"] / j["arms"][0]["wall_s"]["median"]' bench.json)
  expect_eq "$(py "abs(j[1]['time_ratio_vs_baseline'] - $ratio) < 1e-9" report.json)" True "time ratio = jemalloc/baseline medians"
  expect_eq "$(py "abs(j['arms'][1]['ratio_to_first']['median'] - $ratio) < 1e-9" bench.json)" True "bench's ratio: the same way round"
  # The other formats and the plot.
  "$BIN" report --log bench.jsonl --csv > r.csv
  expect_eq "$(head -1 r.csv)" "tool,profile,allocator,runs,failed,killed,median s,p5 s,p95 s,median RSS MB,median peak VM MB,verified,time ratio" "csv header"
  # Each format alone: a script reading the CSV or a README taking the Markdown gets no text table.
  expect_eq "$(wc -l < r.csv)" 3 "csv: the header and a line per row, nothing else"
  "$BIN" report --log bench.jsonl --markdown > r.md
  expect_contains "$(cat r.md)" "| yosys | jemalloc | jemalloc | 3 | 0 | 0 |" "markdown row"
  expect_eq "$(grep -vc '^|' r.md)" 0 "markdown: table lines only"
}

# --- Peak virtual size beside peak RSS (issue 17 item 1): a real yosys through jemalloc and glibc.
test_bench_shows_peak_virtual_size_beside_peak_rss() {
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --wide --log v.jsonl --export-json v.json --export-csv v.csv \
    -- yosys -q -p "$SYNTH" > table.txt 2> err.txt || fail "bench failed: $(cat err.txt)"
  # A process's virtual size includes every mapping it never touched: above its own resident
  # high-water mark (VmHWM), both from the probe. Not above wait4's max_rss_kb, which starts from
  # the parent's RSS at fork: a sanitizer-built edashim's shadow memory puts that above yosys' VM.
  expect_eq "$(python3 -c "
import json, sys
lines = [json.loads(l) for l in open('v.jsonl')]
ok = all(p['vm_peak_kb'] > p['vm_hwm_kb'] for l in lines for p in l['processes'] if p.get('vm_peak_kb') and p.get('vm_hwm_kb'))
ok = ok and all(l['processes'] and any(p.get('vm_peak_kb') for p in l['processes']) for l in lines)
print(ok)")" True "every process's VmPeak > its VmHWM"
  expect_eq "$(python3 -c "
import json
runs = sorted(max(p['vm_peak_kb'] or 0 for p in json.loads(l)['processes']) for l in open('v.jsonl'))
j = json.load(open('v.json'))
print(runs == sorted(r['vm_peak_kb'] for a in j['arms'] for r in a['runs']))")" True "a run's vm_peak_kb is its processes' largest VmPeak"
  expect_eq "$(py 'all(a["peak_vm_kb_median"] == sorted(r["vm_peak_kb"] for r in a["runs"])[0] / 2 + sorted(r["vm_peak_kb"] for r in a["runs"])[1] / 2 for a in j["arms"])' v.json)" True "per-arm medians of the runs' figures"
  expect_eq "$(py 'abs(j["arms"][1]["ratio_to_first"]["peak_vm"] - j["arms"][1]["peak_vm_kb_median"] / j["arms"][0]["peak_vm_kb_median"]) < 1e-9' v.json)" \
    True "the ratio is jemalloc's median / baseline's"
  expect_eq "$(py 'j["peak_vm_note"]' v.json)" None "no note: the probe ran"
  expect_eq "$(py 'j["paired"]["arms"][0]["vm_ratio"] > 0' v.json)" True "paired VM ratio"
  expect_contains "$(grep -m1 "^arm " table.txt)" "peak VM MB" "a column in the table"
  expect_contains "$(head -1 v.csv)" "rss_ratio,peak_vm_mb,vm_ratio" "and in the CSV"
  "$BIN" report --log v.jsonl --json > r.json
  expect_eq "$(py '[round(r["median_vm_peak_kb"]) for r in j]' r.json)" \
    "$(py '[round(a["peak_vm_kb_median"]) for a in j["arms"]]' v.json)" "report reproduces bench's peak virtual size"
  expect_contains "$("$BIN" report --log v.jsonl)" "median peak VM MB" "report's column"
}

# A run's peak virtual size is its tree's (issue 38 item 1): a child edashim routes as a run of
# its own (ABC with a profile, under yosys) writes its own line, and its peak must still count
# for the run that started it, in bench and in report.
test_bench_peak_virtual_size_includes_child_runs() {
  # Without -p: the current arm routes a tool with a shipped profile (vvp, a stand-in here) to a
  # run of its own; the baseline arm, chosen by name, routes nothing below it.
  cp "$HELPER" "$SB/real/vvp"
  shim vvp
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf '[tool.sh]\nallocator = "jemalloc"\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  rc=0
  "$BIN" bench -n 2 -w 0 --log k.jsonl --export-json b.json -- sh -c 'vvp reserve 3072' > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 0 "bench: $(cat err.txt)"
  expect_eq "$(py '[a["name"] for a in j["arms"]]' b.json)" "['baseline', 'jemalloc (current)']" "the arms"
  expect_eq "$(python3 -c "
import json
print(sorted(l['tool'] for l in map(json.loads, open('k.jsonl'))))")" "['sh', 'sh', 'sh', 'sh', 'vvp', 'vvp']" \
    "in the current arm the child ran as a run of its own, kept beside its parent's"
  expect_eq "$(python3 -c "
import json
print(sorted(max(p['vm_peak_kb'] or 0 for p in l['processes']) > 3 << 20 for l in map(json.loads, open('k.jsonl')) if l['tool'] == 'sh'))")" \
    "[False, False, True, True]" "the premise: the current arm's sh lines leave the child's 3 GiB out, baseline's hold it"
  expect_eq "$(py 'all(r["vm_peak_kb"] > 3 << 20 for a in j["arms"] for r in a["runs"])' b.json)" True \
    "every run's peak VM includes its child's reservation, in both arms"
  expect_eq "$(py 'round(j["arms"][1]["ratio_to_first"]["peak_vm"], 1)' b.json)" 1.0 "so the arms compare like with like"
  "$BIN" report --log k.jsonl --tool sh --json > r.json
  expect_eq "$(py '[r["median_vm_peak_kb"] > 3 << 20 for r in j]' r.json)" "[True, True]" "report folds the child runs the same way"
}

test_bench_without_the_probe_shows_no_peak_virtual_size_and_says_why() {
  printf 'allocator = "jemalloc"\nprobe = false\n' > noprobe.toml
  "$BIN" bench -p baseline -p "$PWD/noprobe.toml" -n 1 --warmup 0 --wide --export-json n.json \
    -- yosys -q -p "$SYNTH" > table.txt 2> err.txt || fail "bench failed: $(cat err.txt)"
  expect_eq "$(py 'j["arms"][1]["runs"][0]["vm_peak_kb"], j["arms"][1]["peak_vm_kb_median"], j["arms"][1]["ratio_to_first"]["peak_vm"]' n.json)" \
    "None None None" "null without the probe"
  expect_eq "$(py 'j["arms"][0]["peak_vm_kb_median"] > 0' n.json)" True "the arm with the probe has it"
  expect_contains "$(cat table.txt)" "the probe was off for noprobe" "the table says why"
  expect_contains "$(py 'j["peak_vm_note"]' n.json)" "probe = false" "and the JSON"
}

# --- Paired by round (issue 16 item 2): a real yosys bench, one host.
test_bench_pairs_runs_by_round_and_exports_every_rounds_ratio() {
  "$BIN" bench -p baseline -p jemalloc -n 3 --warmup 0 --wide --export-json p.json \
    -- yosys -q -p "$SYNTH" > table.txt 2> err.txt || fail "bench failed: $(cat err.txt)"
  expect_contains "$(cat table.txt)" "Paired by round" "the paired table"
  expect_eq "$(grep -c '^jemalloc  *3  ' table.txt)" 2 "a row per table for jemalloc, 3 pairs in the paired one"
  expect_eq "$(grep -c 'By node' table.txt || true)" 0 "one host: no by-node table"
  expect_eq "$(py 'j["paired"]["reference"]' p.json)" baseline "the reference arm"
  expect_eq "$(py '[a["name"] for a in j["paired"]["arms"]]' p.json)" "['jemalloc']" "one paired arm"
  expect_eq "$(py 'len(j["paired"]["arms"][0]["rounds"])' p.json)" 3 "a ratio per round"
  expect_eq "$(py 'sorted(r["round"] for r in j["paired"]["arms"][0]["rounds"])' p.json)" "[1, 2, 3]" "round indices"
  expect_eq "$(py 'len({r["host"] for r in j["paired"]["arms"][0]["rounds"]})' p.json)" 1 "one host, from the records"
  expect_eq "$(py 'j["paired"]["arms"][0]["rounds"][0]["host"] != "unknown"' p.json)" True "the host is recorded"
  # Each round's ratio is its two runs' wall times, as the raw runs in the same file say.
  expect_eq "$(py 'all(abs(r["ratio"] - [x["wall_s"] for x in j["arms"][1]["runs"] if x["round"] == r["round"]][0] / [x["wall_s"] for x in j["arms"][0]["runs"] if x["round"] == r["round"]][0]) < 1e-12 for r in j["paired"]["arms"][0]["rounds"])' p.json)" \
    True "ratio = wall(jemalloc) / wall(baseline) in the same round"
  expect_eq "$(py 'j["paired"]["arms"][0]["wilcoxon"]["method"]' p.json)" exact "exact p for 3 rounds"
  expect_eq "$(py 'j["paired"]["arms"][0]["wilcoxon"]["p_faster"] >= 0.125' p.json)" True "3 rounds: p is at least 1/8"
  expect_eq "$(py 'len(j["by_node"]["hosts"])' p.json)" 1 "one host in the breakdown"
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
  "$BIN" bench -i -p baseline -p jemalloc -n 2 --warmup 0 --json -- sh -c 'echo broken >&2; exit 3' > b.json 2> err.txt || rc=$?
  expect_eq "$rc" 1 "no successful run: status 1"
  expect_eq "$(py '[(a["ok"], a["failed"]) for a in j["arms"]]' b.json)" "[(0, 2), (0, 2)]" "all failed"
  expect_contains "$(cat err.txt)" "exit status 3: broken" "failure reason with the tool's stderr"
  expect_eq "$(py 'j["arms"][0]["wall_s"]["median"]' b.json)" None "no figures from failed runs"
}

# hyperfine's rule (issue 38 item 4): the first failed run stops the benchmark, with the run and
# why; -i/--ignore-failure runs every round (above).
test_bench_stops_at_the_first_failed_run_unless_told_otherwise() {
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 3 -w 1 --json -- sh -c "echo run >> '$SB/count'; echo broken >&2; exit 3" \
    > b.json 2> err.txt || rc=$?
  expect_eq "$rc" 1 "status 1"
  expect_eq "$(wc -l < "$SB/count")" 1 "one run, not every round"
  expect_contains "$(cat err.txt)" "a run failed (" "says a run failed"
  expect_contains "$(cat err.txt)" "warm-up: exit status 3: broken); stopped there" "which run, and why"
  expect_contains "$(cat err.txt)" "-i/--ignore-failure runs every round" "and how to go on anyway"
  expect_eq "$(cat b.json)" "" "no figures from a benchmark that stopped"
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 2 -w 0 -- sh -c 'case "$LD_PRELOAD" in *jemalloc*) exit 4;; esac' > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 1 "a later run failing stops it too"
  expect_contains "$(cat err.txt)" "(jemalloc, round " "names the arm and round"
}

# hyperfine's --show-output, -N and --min-runs mean what they mean there (issue 38 item 4).
test_bench_takes_hyperfines_show_output_shell_none_and_min_runs() {
  rc=0
  "$BIN" bench -N --min-runs 2 -w 1 -p baseline -p jemalloc --show-output --no-log --export-json b.json \
    -- sh -c 'echo "out $0"; echo "err $0" >&2' > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 0 "status: $(cat err.txt)"
  expect_eq "$(grep -c '^out sh$' out.txt)" 6 "every run's stdout, warm-ups too (2 arms x (2 + 1))"
  expect_eq "$(grep -c '^err sh$' err.txt)" 6 "and its stderr"
  expect_eq "$(py '[len(a["runs"]) for a in j["arms"]]' b.json)" "[2, 2]" "--min-runs 2: two measured runs per arm"
  rc=0
  "$BIN" bench -r 3 --min-runs 2 -p baseline -- true > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "-r and --min-runs together: a usage error"
  rc=0
  "$BIN" bench --max-runs 3 -p baseline -- true > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "--max-runs is not bench's"
  expect_contains "$(cat err.txt)" "--max-runs: bench runs a fixed number of rounds: -r/--runs N" "says what to use"
}

test_bench_pads_every_arms_environment_to_one_size() {
  # The tool's whole environment size, per run, compared across arms: jemalloc adds LD_PRELOAD
  # and MALLOC_CONF-style variables, the padding must make up for them.
  "$BIN" bench -p baseline -p jemalloc -p tcmalloc -n 2 --warmup 0 --compare-outputs --json \
    -- sh -c 'env | wc -c' > pad.json
  expect_eq "$(py '[a["outputs_summary"] for a in j["arms"]]' pad.json)" "['reference', 'identical', 'identical']" "same env size"
  expect_eq "$(py 'sorted(j["arms"][0]["runs"][0]["sha256"])' pad.json)" "['stdout']" "bare --compare-outputs: stdout only"
  "$BIN" bench -p baseline -p jemalloc -n 1 --warmup 0 --compare-outputs --json -- sh -c 'printenv LD_PRELOAD; true' > pre.json
  expect_eq "$(py '[a["outputs_summary"] for a in j["arms"]]' pre.json)" "['reference', 'differs: stdout']" "the arms do differ"
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

test_tune_writes_a_profile_on_evidence_that_runs_and_never_overwrites() {
  # A stand-in whose run time really depends on the setting: jemalloc's narenas:2 (MALLOC_CONF)
  # makes it fast, anything else slow. Evidence: 5 runs each, every fast one below every slow one.
  tool=(sh -c 'case "$MALLOC_CONF" in *narenas:2*) sleep 0.01;; *) sleep 0.25;; esac')
  "$BIN" tune --option jemalloc.narenas=1,2 -n 5 --warmup 0 --max-rss-ratio 10 --write tuned.toml --plot t.svg \
    -- "${tool[@]}" > out.txt 2> err.txt
  expect_contains "$(cat out.txt)" "narenas" "trade-off table"
  expect_contains "$(cat tuned.toml)" 'allocator = "jemalloc"' "profile snippet"
  expect_contains "$(cat tuned.toml)" 'narenas = 2' "the value that is faster on the evidence"
  python3 -c "import xml.dom.minidom; xml.dom.minidom.parse('t.svg')" || fail "trade-off SVG is not well-formed"
  "$BIN" run --strict -p "$PWD/tuned.toml" -- sh -c 'exit 0' || fail "the written profile does not load"
  before=$(cat tuned.toml)
  rc=0
  "$BIN" tune --option jemalloc.narenas=1 -n 1 --warmup 0 --write tuned.toml -- sh -c 'exit 0' > /dev/null 2> err2.txt || rc=$?
  expect_eq "$rc" 2 "refuses to overwrite"
  expect_contains "$(cat err2.txt)" "--force" "says how"
  expect_eq "$(cat tuned.toml)" "$before" "file untouched"
}

# --- What is measured is what users run: no descriptor of bench's reaches the tool (issue 11.4).
# --- A budget on peak virtual size (issue 17 item 2).
test_tune_vm_budget_keeps_nothing_when_every_candidate_is_over() {
  # The same stand-in as above: narenas:2 is much faster, so only the budget can refuse it.
  tool=(sh -c 'case "$MALLOC_CONF" in *narenas:2*) sleep 0.01;; *) sleep 0.25;; esac')
  "$BIN" tune --option jemalloc.narenas=1,2 -n 4 --warmup 0 --max-vm-ratio 0.5 --write vm.toml \
    -- "${tool[@]}" > out.txt 2> err.txt || fail "tune failed: $(cat err.txt)"
  expect_contains "$(cat out.txt)" "peak VM / baseline" "the table shows both ratios"
  expect_contains "$(cat out.txt)" "budget: peak virtual size <= 0.50x baseline" "the budget"
  expect_eq "$(grep -cE '^ *1 +jemalloc.narenas .* no ' out.txt)" 3 "every candidate over the budget"
  expect_contains "$(cat out.txt)" "over the memory budget (peak virtual size" "says why nothing was kept"
  [ ! -e vm.toml ] || fail "a profile was written: $(cat vm.toml)"
}

# --write-ended keeps where the search ended even when --write refuses it (issue 17 item 4: the
# lean search confirms that setting elsewhere), saying why in its header; never over a file.
test_tune_write_ended_keeps_an_over_budget_end_with_its_verdict() {
  tool=(sh -c 'case "$MALLOC_CONF" in *narenas:2*) sleep 0.01;; *) sleep 0.05;; esac')
  "$BIN" tune --option jemalloc.narenas=1,2 -n 4 --warmup 0 --max-vm-ratio 0.5 --write vm.toml \
    --write-ended ended.toml -- "${tool[@]}" > out.txt 2> err.txt || fail "tune failed: $(cat err.txt)"
  [ ! -e vm.toml ] || fail "--write wrote an over-budget setting: $(cat vm.toml)"
  expect_contains "$(cat ended.toml)" "# not written by --write: over the memory budget (peak virtual size" "the verdict"
  expect_contains "$(cat ended.toml)" 'allocator = "jemalloc"' "a profile"
  expect_contains "$(cat out.txt)" "The setting the search ended on is in ended.toml" "says where"
  EDASHIM_PROFILE="$PWD/ended.toml" "$BIN" run --strict -- "${tool[@]}" || fail "the ended profile does not run"
  before=$(cat ended.toml) rc=0
  "$BIN" tune --option jemalloc.narenas=1 -n 1 --warmup 0 --write-ended ended.toml -- true 2> err2.txt || rc=$?
  expect_eq "$rc" 2 "refuses to overwrite"
  expect_eq "$(cat ended.toml)" "$before" "file untouched"
}

test_tune_vm_budget_without_the_probe_stops_before_running() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'probe = false\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  rc=0
  "$BIN" tune --option jemalloc.narenas=1,2 -n 4 --warmup 0 --max-vm-ratio 1.1 \
    -- "$BENCH_TOOL" fds "$PWD/ran.txt" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "a usage error"
  expect_contains "$(cat err.txt)" "--max-vm-ratio needs" "names the option"
  expect_contains "$(cat err.txt)" "probe = false" "and why the probe is off"
  [ ! -e ran.txt ] || fail "the tool ran $(wc -l < ran.txt) times"
  # Budgeting on RSS alone still runs without the probe.
  "$BIN" tune --option jemalloc.narenas=1 -n 1 --warmup 0 --max-rss-ratio 10 \
    -- "$BENCH_TOOL" fds "$PWD/ran.txt" > out.txt 2> err.txt || fail "RSS budget alone refused: $(cat err.txt)"
  expect_contains "$(cat out.txt)" "the probe was off" "the missing figure is explained"
}

test_bench_leaks_no_descriptor_into_the_measured_tool() {
  # The harness may hand this script descriptors of its own (ctest does): start every command
  # from a clean slate (Python's subprocess closes all but 0, 1 and 2), as a user's shell would.
  clean() { python3 -c 'import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL))' "$@"; }
  clean "$BENCH_TOOL" fds "$PWD/direct.txt"
  expect_eq "$(cat direct.txt)" "0 1 2" "the direct run has only stdin, stdout and stderr"
  clean "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 1 -- "$BENCH_TOOL" fds "$PWD/bench.txt" > /dev/null 2> err.txt
  expect_eq "$(wc -l < bench.txt)" 6 "every run, warm-ups included, listed its descriptors"
  expect_eq "$(sort -u bench.txt)" "0 1 2" "bench's runs see the same descriptors as the direct run"
  # Concurrent runs copying inputs in other threads (the copies must not leak into a spawn).
  head -c 4000000 /dev/zero > input.bin
  clean "$BIN" bench -p baseline -p jemalloc -n 6 --warmup 0 --jobs 2 --fresh-copy input.bin \
    -- "$BENCH_TOOL" fds "$PWD/jobs.txt" > /dev/null 2> err.txt
  expect_eq "$(wc -l < jobs.txt)" 12 "every concurrent run listed its descriptors"
  expect_eq "$(sort -u jobs.txt)" "0 1 2" "--jobs 2 --fresh-copy: the same descriptors as the direct run"
}

# --- Arguments are checked before anything runs (issue 11.5).
test_bench_compare_outputs_ends_at_the_double_dash() {
  "$BIN" bench -p baseline -p jemalloc -n 1 --warmup 0 --json --compare-outputs net.txt \
    -- sh -c 'echo same > net.txt' > b.json 2> err.txt || fail "rejected: $(cat err.txt)"
  expect_eq "$(py 'sorted(j["arms"][0]["runs"][0]["sha256"])' b.json)" "['net.txt', 'stdout']" "net.txt and stdout hashed"
  "$BIN" bench -p baseline -p jemalloc -n 1 --warmup 0 --compare-outputs a.txt,b.txt --compare-outputs c.txt --json \
    -- sh -c 'echo 1 > a.txt; echo 2 > b.txt; echo 3 > c.txt' > c.json 2> err.txt || fail "comma list: $(cat err.txt)"
  expect_eq "$(py 'sorted(j["arms"][1]["runs"][0]["sha256"])' c.json)" "['a.txt', 'b.txt', 'c.txt', 'stdout']" "a comma list and a repeat"
}

test_bench_unknown_profile_stops_before_running_with_a_suggestion() {
  rc=0
  "$BIN" bench -p baseline -p jemaloc -n 3 --log runs.jsonl --export-json keep.json \
    -- "$BENCH_TOOL" fds "$PWD/ran.txt" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "usage error"
  expect_contains "$(cat err.txt)" "no profile named 'jemaloc'" "names the profile"
  expect_contains "$(cat err.txt)" "did you mean 'jemalloc'" "suggests the nearest"
  [ ! -e ran.txt ] || fail "the tool ran $(wc -l < ran.txt) times"
  [ ! -e runs.jsonl ] || fail "log lines were written"
  [ ! -e keep.json ] || fail "an export was written"
}

test_bench_option_the_installed_allocator_lacks_stops_before_running() {
  printf 'allocator = "mimalloc"\n[mimalloc]\npurge_delay = 10\n' > purge.toml
  rc=0
  "$BIN" bench -p baseline -p "$PWD/purge.toml" -n 3 -- "$BENCH_TOOL" fds "$PWD/ran.txt" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "usage error"
  expect_contains "$(cat err.txt)" "purge_delay" "names the option"
  expect_contains "$(cat err.txt)" "decommit_delay" "says what this mimalloc calls it"
  [ ! -e ran.txt ] || fail "the tool ran $(wc -l < ran.txt) times"
}

test_tune_option_the_installed_allocator_lacks_stops_before_running() {
  rc=0
  "$BIN" tune --option mimalloc.eager_commit_delay=0,1 --option mimalloc.purge_delay=0,10 -n 2 \
    -- "$BENCH_TOOL" fds "$PWD/ran.txt" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "usage error, even for the second option"
  expect_contains "$(cat err.txt)" "decommit_delay" "says what this mimalloc calls it"
  [ ! -e ran.txt ] || fail "the tool ran $(wc -l < ran.txt) times"
  # The same where TMPDIR holds characters a regular expression would read (it once crashed).
  mkdir -p 'tmp(x)+['
  rc=0
  TMPDIR="$PWD/tmp(x)+[" "$BIN" tune --option mimalloc.purge_delay=0,10 -n 2 \
    -- "$BENCH_TOOL" fds "$PWD/ran.txt" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "the same usage error ($(cat err.txt))"
  expect_contains "$(cat err.txt)" "decommit_delay" "the same reason"
  expect_not_contains "$(cat err.txt)" "candidate-" "without tune's own file names"
  rc=0
  "$BIN" tune --option jemalloc.narenas=1 -n 2 --fresh-copy missing.v -- "$BENCH_TOOL" fds "$PWD/ran.txt" \
    > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "a missing input is a usage error"
  expect_contains "$(cat err.txt)" "missing.v" "names it"
  [ ! -e ran.txt ] || fail "the tool ran"
}

test_bench_bad_filter_or_export_directory_stops_before_running() {
  rc=0
  "$BIN" bench -p baseline -n 2 --compare-outputs --stdout-filter '([' -- "$BENCH_TOOL" fds "$PWD/ran.txt" \
    > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "a bad regular expression is a usage error"
  expect_contains "$(cat err.txt)" "--stdout-filter" "names the option"
  rc=0
  "$BIN" bench -p baseline -n 2 --export-csv no/such/dir/r.csv -- "$BENCH_TOOL" fds "$PWD/ran.txt" \
    > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "an export nobody can write is a usage error"
  expect_contains "$(cat err.txt)" "no/such/dir" "names the directory"
  [ ! -e ran.txt ] || fail "the tool ran"
}

# --- Exports as hyperfine's, verdicts per output file (issue 11.6).
test_bench_writes_any_number_of_exports_and_the_table() {
  echo "mine" > old.csv
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --export-json a.json --export-json b.json \
    --export-markdown r.md --export-csv old.csv -- sh -c 'exit 0' > term.txt 2> err.txt
  expect_contains "$(cat term.txt)" "min-max s" "the terminal table"
  expect_eq "$(py '[a["ok"] for a in j["arms"]]' a.json)" "[2, 2]" "json export"
  cmp -s a.json b.json || fail "two JSON exports differ"
  expect_contains "$(cat r.md)" "| arm | ok | failed |" "markdown export"
  expect_eq "$(wc -l < old.csv)" 3 "csv export replaced the old file"
  expect_eq "$(ls -a | grep -c '\.tmp' || true)" 0 "no temporary file left"
  # --json still prints to stdout, and the table then goes to stderr.
  "$BIN" bench -p baseline -n 1 --warmup 0 --json -- sh -c 'exit 0' > s.json 2> err.txt
  expect_eq "$(py 'j["arms"][0]["ok"]' s.json)" 1 "stdout is JSON only"
  expect_contains "$(cat err.txt)" "min-max s" "the table on stderr"
}

test_bench_verdict_per_output_file_with_stdout_filtered_or_left_out() {
  tool=("$BENCH_TOOL" timing design.route "routed")
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --compare-outputs design.route,design.place --json \
    -- "${tool[@]}" > plain.json 2> err.txt || rc=$?
  # Still every verdict, and then status 1 (issue 28): a file no run wrote decides nothing.
  expect_eq "$rc" 1 "a compared file no run left fails the bench"
  expect_contains "$(cat err.txt)" "--compare-outputs design.place: no run of any arm left this file" "named"
  expect_eq "$(py '[a["outputs"]["stdout"]["verdict"] for a in j["arms"]]' plain.json)" "['varies', 'varies']" \
    "the timing line makes stdout vary"
  expect_eq "$(py '[a["outputs"]["design.route"]["verdict"] for a in j["arms"]]' plain.json)" \
    "['identical', 'identical']" "the route file still gets its verdict"
  expect_eq "$(py '[a["outputs"]["design.place"]["verdict"] for a in j["arms"]]' plain.json)" \
    "['missing', 'missing']" "a file no run wrote"
  expect_eq "$(py 'j["arms"][1]["outputs"]["design.route"]["same_as_first"]' plain.json)" True "same route as baseline"
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --compare-outputs design.route \
    --stdout-filter '^The entire flow took' --json -- "${tool[@]}" > filtered.json 2> err.txt
  expect_eq "$(py '[a["outputs"]["stdout"]["verdict"] for a in j["arms"]]' filtered.json)" \
    "['identical', 'identical']" "timing lines filtered out"
  expect_eq "$(py '[a["outputs_summary"] for a in j["arms"]]' filtered.json)" "['reference', 'identical']" "summary"
  "$BIN" bench -p baseline -p jemalloc -n 2 --warmup 0 --compare-outputs design.route --no-compare-stdout --wide \
    -- "${tool[@]}" > table.txt 2> err.txt
  expect_eq "$(grep -c '^design\.route .*identical.*identical, as first arm' table.txt)" 1 "a verdict row for the file"
  expect_eq "$(grep -c '^stdout ' table.txt || true)" 0 "no row for stdout, left out"
  expect_contains "$(cat table.txt)" "reference" "--wide: the summary column"
}

# --- Tune chooses only on evidence (issue 11.7).
test_tune_on_noise_writes_nothing_and_says_so() {
  rc=0
  "$BIN" tune --option mimalloc.eager_commit_delay=0,4 -n 1 --warmup 0 --write tuned.toml -- true \
    > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 0 "keeping the current setting is a result"
  expect_contains "$(cat out.txt)" "nothing measured beat the current setting" "says so"
  [ ! -e tuned.toml ] || fail "a profile was written: $(cat tuned.toml)"
  expect_contains "$(cat err.txt)" "-n 1" "warns that so few runs cannot show a difference"
}


# --- Issue 28: from a benchmark to a decision.
test_bench_without_p_compares_the_tools_current_choice_with_baseline() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  # explore = 1: every unchosen run would try mimalloc; the current arm must measure the choice.
  printf 'explore = 1.0\nexplore_profiles = ["mimalloc"]\n[tool.sh]\nallocator = "jemalloc"\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  rc=0
  "$BIN" bench -n 2 -w 0 --log runs.jsonl --compare-outputs --json -- sh -c 'printenv LD_PRELOAD; true' > b.json 2> err.txt || rc=$?
  expect_eq "$rc" 0 "status: $(cat err.txt)"
  expect_eq "$(py '[a["name"] for a in j["arms"]]' b.json)" "['baseline', 'jemalloc (current)']" "default arms"
  expect_contains "$(cat err.txt)" "comparing sh's current choice (jemalloc) with baseline" "says what it compares"
  expect_eq "$(py '[a["outputs_summary"] for a in j["arms"]]' b.json)" "['reference', 'differs: stdout']" "the current arm preloads"
  expect_eq "$(python3 -c "import json; print(sorted({json.loads(l)['arm'] for l in open('runs.jsonl')}))")" \
    "['jemalloc', 'system']" "no run explored another allocator"
  printf '[tool.sh]\nallocator = "system"\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  rc=0
  "$BIN" bench -n 1 -w 0 -- sh -c 'exit 0' > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "nothing to compare by default"
  expect_contains "$(cat err.txt)" "sh runs with the system allocator now" "says why"
  expect_contains "$(cat err.txt)" "-p baseline -p jemalloc" "and what to type"
  expect_not_contains "$(cat err.txt)" "no arm: give at least one" "no second, contradicting message"
}

# The command as one quoted string (hyperfine's habit), and a tool that is not there: said as
# what they are, with and without -p, never "no arm" (issue 38 item 3).
test_a_quoted_command_or_a_missing_tool_is_named_not_no_arm() {
  shim yosys
  for arms in "" "-p mimalloc"; do
    rc=0
    # shellcheck disable=SC2086
    "$BIN" bench -r 3 -w 1 $arms "yosys -q -p 'log hi'" > out.txt 2> err.txt || rc=$?
    expect_eq "$rc" 2 "quoted, arms '$arms': a usage error"
    expect_contains "$(cat err.txt)" "the command is one word, 'yosys -q -p 'log hi''" "quoted, arms '$arms': what is wrong"
    expect_contains "$(cat err.txt)" "give its words apart, unquoted, after --" "quoted, arms '$arms': what would be right"
    expect_not_contains "$(cat err.txt)" "no arm" "quoted, arms '$arms': not the wrong diagnosis"
    expect_not_contains "$(cat err.txt)" "command not found" "quoted, arms '$arms': nothing run to find out"
    rc=0
    # shellcheck disable=SC2086
    "$BIN" bench -r 1 -w 0 $arms -- nosuchtool x > out.txt 2> err.txt || rc=$?
    expect_eq "$rc" 2 "missing tool, arms '$arms': a usage error"
    expect_contains "$(cat err.txt)" "nosuchtool: command not found" "missing tool, arms '$arms': what is wrong"
    expect_not_contains "$(cat err.txt)" "no arm" "missing tool, arms '$arms': not the wrong diagnosis"
  done
}

# A command behind a wrapper that execs its argument is a run of the tool (issue 38 item 12):
# the current arm is the tool's choice, and nothing speaks of [tool.taskset].
test_a_command_behind_taskset_or_nice_is_the_tools() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf '[tool.sh]\nallocator = "jemalloc"\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  for wrap in "taskset -c 0" "nice -n 5 timeout 60"; do
    rc=0
    # shellcheck disable=SC2086
    "$BIN" bench -n 2 -w 0 --no-log --json -- $wrap sh -c 'printenv LD_PRELOAD; true' > b.json 2> err.txt || rc=$?
    expect_eq "$rc" 0 "$wrap: status: $(cat err.txt)"
    expect_contains "$(cat err.txt)" "comparing sh's current choice (jemalloc) with baseline" "$wrap: the tool's choice"
    expect_eq "$(py '[a["name"] for a in j["arms"]]' b.json)" "['baseline', 'jemalloc (current)']" "$wrap: the arms"
    expect_not_contains "$(cat err.txt)" "tool.taskset" "$wrap: not the wrapper's"
    expect_not_contains "$(cat err.txt)" "tool.nice" "$wrap: not the wrapper's"
  done
}

test_bench_system_is_a_profile_as_in_explore_profiles() {
  rc=0
  "$BIN" bench -p system -p jemalloc -n 1 -w 0 --json -- sh -c 'exit 0' > s.json 2> err.txt || rc=$?
  expect_eq "$rc" 0 "-p system accepted: $(cat err.txt)"
  expect_eq "$(py '[(a["name"], a["ok"]) for a in j["arms"]]' s.json)" "[('system', 1), ('jemalloc', 1)]" "system arm ran"
}

test_bench_takes_hyperfines_short_flags_and_hints_at_a_forgotten_double_dash() {
  "$BIN" bench -p baseline -p jemalloc -r 3 -w 1 --export-json h.json -- sh -c 'exit 0' > /dev/null 2> err.txt \
    || fail "-r/-w refused: $(cat err.txt)"
  expect_eq "$(py '[len(a["runs"]) for a in j["arms"]]' h.json)" "[3, 3]" "-r is --runs"
  # hyperfine's schema, beside ours.
  expect_eq "$(py 'sorted(k for k in j["results"][1] if k in ("command","mean","stddev","median","min","max","times","exit_codes"))' h.json)" \
    "['command', 'exit_codes', 'max', 'mean', 'median', 'min', 'stddev', 'times']" "results[] keys"
  expect_eq "$(py '(len(j["results"][1]["times"]), j["results"][1]["exit_codes"])' h.json)" "(3, [0, 0, 0])" "times and exit codes"
  expect_eq "$(py 'j["results"][1]["mean"] == j["arms"][1]["wall_s"]["mean"]' h.json)" True "the same figures"
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 1 sh -c 'exit 0' > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "usage error"
  expect_contains "$(cat err.txt)" "put -- before the tool's command" "the hint"
}

test_bench_closes_with_a_verdict_and_how_to_make_it_stick() {
  # jemalloc's runs are made clearly faster: the verdict, not the timing, is under test.
  # The tool touches 48 MB: peak RSS within the adoption rule's budget whatever the allocator adds.
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --compare-outputs \
    -- sh -c 'case "$LD_PRELOAD" in *jemalloc*) sleep 0.05;; *) sleep 0.4;; esac; exec "$0" touch 48' "$SB/real/mytool" > table.txt 2> err.txt \
    || fail "bench failed: $(cat err.txt)"
  expect_contains "$(cat table.txt)" "Summary" "a closing summary"
  expect_contains "$(grep 'jemalloc ran' table.txt)" "times faster than baseline (paired median" "hyperfine's line, judged round by round"
  expect_contains "$(cat table.txt)" "jemalloc is faster with identical outputs" "the decision"
  expect_contains "$(cat table.txt)" "[tool.sh]" "the TOML that makes it stick"
  expect_contains "$(cat table.txt)" 'allocator = "jemalloc"' "with the allocator"
  expect_eq "$(wider_than_100 table.txt)" "" "table, notes and summary fit 100 columns"
  expect_contains "$(grep -m1 "^arm " table.txt)" "σ s" "a sigma column"
  expect_contains "$(grep -m1 "^arm " table.txt)" "min-max s" "a min-max column"
}

# Lines longer than 100 characters (not bytes: the table has σ and ±), one per line.
wider_than_100() { python3 -c 'import sys; [print(l) for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if len(l) > 100]' "$1"; }

# Issue 28 items 1-2: the terminal's table fits an 100-column terminal, with one p-value per arm
# (the paired Wilcoxon signed-rank, named); --wide and --markdown have every column, still one test.
test_bench_table_fits_100_columns_with_one_p_value_per_arm() {
  local cmd='case "$LD_PRELOAD" in *jemalloc*) sleep 0.05;; *mimalloc*) sleep 0.1;; *) sleep 0.2;; esac'
  "$BIN" bench -p baseline -p jemalloc -p mimalloc -n 4 -w 0 --compare-outputs --export-markdown b.md --export-csv b.csv \
    -- sh -c "$cmd; echo some output of a tool with a rather long name for its log file" > table.txt 2> err.txt \
    || fail "bench failed: $(cat err.txt)"
  expect_eq "$(wider_than_100 table.txt)" "" "every line fits 100 columns"
  expect_contains "$(grep -m1 "^arm " table.txt)" "ratio (95% CI)" "the ratio and its interval"
  expect_contains "$(cat table.txt)" "Wilcoxon signed-rank" "the test is named"
  expect_not_contains "$(cat table.txt)" "Mann-Whitney" "one test only"
  expect_not_contains "$(cat table.txt)" "Paired by round" "the paired figures are in the one table"
  expect_eq "$(grep -cE '^(jemalloc|mimalloc) .* 0\.[0-9]{4} ' table.txt)" 2 "a p-value on each compared arm's row"
  "$BIN" bench -p baseline -p jemalloc -n 3 -w 0 --wide -- sh -c "$cmd" > wide.txt 2> err.txt || fail "bench --wide failed: $(cat err.txt)"
  for f in wide.txt b.md; do
    expect_contains "$(cat $f)" "peak VM" "$f: every column"
    expect_contains "$(cat $f)" "Paired by round" "$f: the paired table"
    expect_not_contains "$(cat $f)" "Mann-Whitney" "$f: one test only"
    expect_eq "$(grep -c 'p (faster)' $f)" 1 "$f: one p-value column"
  done
  expect_contains "$(head -1 b.csv)" "mann_whitney_p_faster" "the CSV names its test"
}

test_bench_fails_on_a_compared_file_no_run_left() {
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 1 -w 0 --compare-outputs nothere.v,net.txt \
    -- sh -c 'echo x > net.txt' > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 1 "status 1"
  expect_contains "$(cat err.txt)" "--compare-outputs nothere.v: no run of any arm left this file" "names the file"
  expect_not_contains "$(cat err.txt)" "--compare-outputs net.txt:" "not the file that was there"
}

test_bench_fails_when_an_arm_has_no_successful_run() {
  rc=0
  "$BIN" bench --ignore-failure -p baseline -p jemalloc -n 2 -w 0 --json -- sh -c 'case "$LD_PRELOAD" in *jemalloc*) exit 3;; esac' \
    > n.json 2> err.txt || rc=$?
  expect_eq "$rc" 1 "status 1"
  expect_eq "$(py '[(a["ok"], a["failed"]) for a in j["arms"]]' n.json)" "[(2, 0), (0, 2)]" "baseline ran, jemalloc failed"
  expect_contains "$(cat err.txt)" "no run of jemalloc succeeded" "names the arm"
}

test_bench_relative_profile_file_with_fresh_copy() {
  printf 'allocator = "jemalloc"\n' > mine.toml
  echo data > in.txt
  rc=0
  "$BIN" bench -p baseline -p ./mine.toml -n 1 -w 0 --fresh-copy in.txt --json -- sh -c 'cat in.txt' > m.json 2> err.txt || rc=$?
  expect_eq "$rc" 0 "status: $(cat err.txt)"
  expect_eq "$(py '[(a["name"], a["ok"]) for a in j["arms"]]' m.json)" "[('baseline', 1), ('mine', 1)]" "the file found from the copy's directory"
}

test_bench_runs_go_to_the_run_log_marked_and_count_for_recommend() {
  SYN='read_verilog '"$SRC"'/examples/counter/counter.v; synth -top counter'
  "$BIN" run -- yosys -q -p "$SYN" || fail "a plain run failed"
  before=$(wc -l < "$LOG")  # the plain run's line, and its routed children's (yosys' ABC)
  "$BIN" bench -p baseline -p jemalloc -n 3 -w 1 -- yosys -q -p "$SYN" > /dev/null 2> err.txt || fail "bench: $(cat err.txt)"
  expect_eq "$(grep -c '"bench":{' "$LOG")" 6 "the 6 measured runs, no warm-up"
  expect_eq "$(grep '"bench":{' "$LOG" | python3 -c "
import json, sys
lines = [json.loads(l) for l in sys.stdin]
print(sorted((l['bench']['arm'], l['bench']['round'], l['explore']['by'], l['explore']['ran']) for l in lines)[:2],
      len({l['bench']['experiment'] for l in lines}))")" \
    "[('baseline', 1, 'bench', 'baseline'), ('baseline', 2, 'bench', 'baseline')] 1" "marked as one bench's runs, not the current choice"
  out=$("$BIN" report --recommend --log "$LOG" --tool yosys 2>&1)
  expect_not_contains "$out" "nothing to compare" "bench's runs are evidence"
  expect_contains "$out" "system        3" "baseline's 3 runs (the system allocator) as a candidate"
  "$BIN" bench -p baseline -p jemalloc -n 1 -w 0 --no-log -- yosys -q -p "$SYN" > /dev/null 2>&1 || fail "--no-log bench failed"
  expect_eq "$(wc -l < "$LOG")" "$((before + 6))" "--no-log keeps nothing"
}

# Issue 28 item 1: one bench of 10 interleaved runs per arm is enough for report --recommend
# (the 3-signature rule is met by a bench of both arms on its own signature).
test_one_bench_is_enough_evidence_for_recommend() {
  tool=(sh -c 'case "$LD_PRELOAD" in *jemalloc*) sleep 0.05;; *) sleep 0.3;; esac')
  "$BIN" run -- "${tool[@]}" || fail "a plain run failed"  # the current choice: system
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --compare-outputs -- "${tool[@]}" > /dev/null 2> err.txt \
    || fail "bench: $(cat err.txt)"
  "$BIN" report --recommend --log "$LOG" --tool sh --json > r.json 2> err.txt || fail "report: $(cat err.txt)"
  expect_eq "$(py '[(c["arm"], c["runs"], c["signatures"], [m for m in c["missing"] if m.startswith("thin")]) for c in j["verdicts"][0]["candidates"]]' r.json)" \
    "[('jemalloc', 10, 1, [])]" "10 runs on one signature, from one bench: not thin"
  # Its speed is what the rule judges next (RSS is the tool's: not under test here).
  expect_eq "$(py '[m for m in j["verdicts"][0]["candidates"][0]["missing"] if "p " in m or "CI" in m]' r.json)" "[]" "and clearly faster"
  # The bench compared the outputs: the advice does not ask for that bench again.
  "$BIN" report --recommend --log "$LOG" --tool sh --rss-budget 10 > r.txt 2> err.txt || fail "report: $(cat err.txt)"
  expect_contains "$(cat r.txt)" "=> recommend jemalloc" "recommended"
  expect_contains "$(cat r.txt)" "identical to the reference's in the latest bench" "with the bench's word on its outputs"
  expect_not_contains "$(cat r.txt)" "confirm first" "not a request for the bench it already has"
}

# --- Issue 28 item 4: tune's summary from its table's data, its header wrapped, the default
# budget relative to the current setting, --export-json.
test_tune_summary_matches_its_table_and_exports_json() {
  tool=(sh -c 'case "$MALLOC_CONF" in *narenas:2*) sleep 0.01;; *) sleep 0.25;; esac')
  "$BIN" tune --option jemalloc.narenas=1,2 -n 5 -w 0 --export-json t.json -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "tune failed: $(cat err.txt)"
  expect_eq "$(sed '/^step /,$d' out.txt | awk 'length > 100' | wc -l)" 0 "the header above the table wrapped at 100 columns"
  expect_eq "$(grep '^Kept:' out.txt | awk 'length > 100' | wc -l)" 0 "the summary too"
  expect_contains "$(cat out.txt)" "Kept: jemalloc.narenas=2 (step 1)" "the summary names the kept row"
  expect_eq "$(grep -cE '^ *1 +jemalloc.narenas +2 .*<-' out.txt)" 1 "the same row is kept in the table"
  expect_contains "$(cat err.txt)" "x the current setting's" "the default budget is relative to the current setting"
  expect_eq "$(py '(j["steps"][0]["kept"], [c["kept"] for c in j["steps"][0]["candidates"]])' t.json)" \
    "('2', [False, False, True])" "the JSON keeps the same row"
  expect_eq "$(py '(j["budget"]["default_from_current_setting"], round(j["budget"]["max_rss_ratio"] / j["steps"][0]["candidates"][0]["rss_ratio"], 6))' t.json)" \
    "(True, 1.05)" "the budget: 1.05 x the current setting's peak RSS"
  expect_eq "$(py '(j["result"]["faster_than_baseline"], j["result"]["written"])' t.json)" "(True, False)" "the result"
  "$BIN" tune --option jemalloc.narenas=1 -n 1 -w 0 --max-rss-ratio 10 --export-json n.json -- true > out2.txt 2> /dev/null \
    || fail "tune on noise failed"
  expect_contains "$(cat out2.txt)" "Kept: nothing measured beat the current setting in any step (jemalloc.narenas)" "no value kept"
  expect_contains "$(cat out2.txt)" "Result: jemalloc is not faster than baseline on the evidence" "and the verdict, against baseline"
  expect_eq "$(py '(j["steps"][0]["kept"], j["result"]["faster_than_baseline"])' n.json)" "('', False)" "the same in JSON"
}

# --- Issue 28 item 5: report's rows per allocator; a killed run is not the tool's failure.
test_report_splits_plain_runs_by_allocator_and_counts_killed_runs_apart() {
  "$BIN" run -a system -- sh -c 'exit 0' || fail "system run"
  "$BIN" run -a jemalloc -- sh -c 'exit 0' || fail "jemalloc run"
  "$BIN" run -a jemalloc -- sh -c 'exit 4' && fail "exit 4 was not passed on"
  # Supervised, edashim waits for the tool and knows the signal; in place nobody outlives the tool,
  # so its run ended without a word, counted apart (report's sweep writes its line first).
  EDASHIM_SUPERVISE=1 "$BIN" run -a jemalloc -- sh -c 'kill -TERM $$' && fail "the signal was not passed on"
  "$BIN" run -a jemalloc -- sh -c 'kill -TERM $$' && fail "the signal was not passed on, in place"
  "$BIN" report --log "$LOG" --json > r.json 2> err.txt || fail "report: $(cat err.txt)"
  expect_eq "$(py '[(r["profile"], r["allocator"], r["runs"], r["failures"], r["killed"]) for r in j]' r.json)" \
    "[(None, 'system', 1, 0, 0), (None, 'jemalloc', 3, 1, 1)]" "a row per allocator, the killed run apart"
  expect_contains "$(cat err.txt)" "1 run in $LOG ended without a word (killed by a signal, or crashed)" "in place: counted apart"
  expect_eq "$(py 'j[0]["time_ratio_vs_baseline"]' r.json)" "1.0" "the system allocator's runs are the reference"
  expect_contains "$("$BIN" report --log "$LOG")" "killed" "a column"
}

test_bench_adopt_writes_a_clear_winner_into_the_config_and_the_next_run_uses_it() {
  tool=(sh -c 'case "$LD_PRELOAD" in *jemalloc*) sleep 0.05;; *) sleep 0.4;; esac; exec "$0" touch 48' "$SB/real/mytool")
  # Without --compare-outputs, or with one arm, --adopt could write nothing: said before any run.
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --adopt -- sh -c "echo run >> '$SB/count'" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "--adopt without --compare-outputs: a usage error"
  expect_contains "$(cat err.txt)" "--adopt writes only a winner whose outputs are those of the current choice: add --compare-outputs" "why"
  rc=0
  "$BIN" bench -p current -n 10 -w 0 --compare-outputs --adopt -- sh -c "echo run >> '$SB/count'" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "--adopt with one arm: a usage error"
  expect_contains "$(cat err.txt)" "--adopt: one arm only, nothing to judge it against" "why"
  [ ! -e "$SB/count" ] || fail "ran $(wc -l < "$SB/count") runs before refusing"
  [ ! -e "$XDG_CONFIG_HOME/edashim/config.toml" ] || fail "written without comparing outputs"
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --compare-outputs --adopt -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_contains "$(cat err.txt)" "--adopt: added to $XDG_CONFIG_HOME/edashim/config.toml" "says where"
  expect_contains "$(cat "$XDG_CONFIG_HOME/edashim/config.toml")" "[tool.sh]" "the tool's table"
  expect_contains "$(cat "$XDG_CONFIG_HOME/edashim/config.toml")" 'allocator = "jemalloc"' "the winner"
  "$BIN" run -- sh -c 'exit 0' || fail "the next run failed"
  expect_eq "$(last_log "$LOG" 'j["arm"]')" "jemalloc" "the next run uses the winner"
}

# --adopt replaces the tool's current choice only with what beat it, by report --recommend's rule
# (issue 38 item 7): a win over another first arm, or a win on thin evidence, writes nothing.
test_bench_adopt_judges_against_the_current_choice_by_recommends_rule() {
  tool=(sh -c 'case "$LD_PRELOAD" in *jemalloc*) sleep 0.05;; *tcmalloc*) sleep 0.6;; *) sleep 0.3;; esac; exec "$0" touch 48' "$SB/real/mytool")
  printf 'allocator = "tcmalloc"\n' > slow.toml
  "$BIN" bench -p ./slow.toml -p jemalloc -n 10 -w 0 --compare-outputs --adopt -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_contains "$(cat err.txt)" "--adopt: nothing written: jemalloc beat slow, which is not what sh runs with now (system)" \
    "a win over an arm that is not the current choice"
  expect_contains "$(cat err.txt)" "given first: -p current -p jemalloc" "and what to run instead"
  [ ! -e "$XDG_CONFIG_HOME/edashim/config.toml" ] || fail "written against another arm"
  "$BIN" bench -p current -p jemalloc -n 5 -w 0 --compare-outputs --adopt -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_contains "$(cat err.txt)" "thin evidence: 5 successful runs (needs >= 10 per arm: -n 10)" "thin evidence: nothing"
  [ ! -e "$XDG_CONFIG_HOME/edashim/config.toml" ] || fail "written on 5 runs"
  "$BIN" bench -p current -p jemalloc -n 10 -w 0 --compare-outputs --adopt --export-json b.json -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_eq "$(py '[a["name"] for a in j["arms"]]' b.json)" "['system (current)', 'jemalloc']" "-p current: the tool's current choice"
  expect_contains "$(cat err.txt)" "--adopt: added to $XDG_CONFIG_HOME/edashim/config.toml" "against the current choice: written"
}

# Issue 28 item 3: --adopt --project writes into the nearest .edashim.toml (created when there is
# none) and trusts it as written when it is new or was trusted; a file the user never trusted
# gets the line but stays untrusted (trust pins the whole content, and the rest is not theirs).
trusted_hash_of() {  # the hash the trust store holds for file $1, "" when none
  local store=$XDG_STATE_HOME/edashim/trusted
  [ -f "$store" ] || return 0
  awk -v f="$1" '$2 == f { print $1 }' "$store"
}
test_bench_adopt_project_writes_the_nearest_project_file_and_trusts_only_its_own_write() {
  tool=(sh -c 'case "$LD_PRELOAD" in *jemalloc*) sleep 0.05;; *) sleep 0.4;; esac; exec "$0" touch 48' "$SB/real/mytool")
  mkdir -p new/sub && cd new
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --compare-outputs --adopt --project -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_contains "$(cat err.txt)" "--adopt: added to $PWD/.edashim.toml" "says where"
  expect_contains "$(tr '\n' ' ' < out.txt | tr -s ' ')" "identical outputs: --adopt writes it into $PWD/.edashim.toml (below)." \
    "the summary names the file --adopt writes, not the user's config"
  expect_not_contains "$(cat out.txt)" "config.toml" "nor offers the lines for another file"
  expect_contains "$(cat .edashim.toml)" 'allocator = "jemalloc"' "the winner, in the project file"
  [ ! -e "$XDG_CONFIG_HOME/edashim/config.toml" ] || fail "--project wrote the user's config too"
  expect_eq "$(trusted_hash_of "$PWD/.edashim.toml")" "$(sha256sum < .edashim.toml | cut -d' ' -f1)" "a new file: trusted as written"
  cd sub
  "$BIN" run -- sh -c 'exit 0' 2> run.err || fail "the next run failed"
  expect_eq "$(last_log "$LOG" 'j["arm"]')" "jemalloc" "the next run, below the project, uses the winner"
  expect_not_contains "$(cat run.err)" "not trusted" "and trusts the file"
  cd "$SB/work"
  # Someone else's file (a clone's), never trusted: the line is added, trust is not given.
  mkdir clone && cd clone
  printf '# from upstream\n[tool.yosys]\nallocator = "mimalloc"\n' > .edashim.toml
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --compare-outputs --adopt --project -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_contains "$(cat .edashim.toml)" "[tool.sh]" "the winner is written"
  expect_contains "$(cat .edashim.toml)" "# from upstream" "beside the rest, kept"
  expect_contains "$(cat err.txt)" "was not trusted before this edit, so it is not trusted now" "says why"
  expect_eq "$(trusted_hash_of "$PWD/.edashim.toml")" "" "not trusted"
  # Trusted before: the user's edit keeps it trusted, for the new content.
  printf '[tool.sh]\n' > .edashim.toml
  "$BIN" trust 2> /dev/null || fail "trust failed"
  "$BIN" bench -p baseline -p jemalloc -n 10 -w 0 --compare-outputs --adopt --project -- "${tool[@]}" > out.txt 2> err.txt \
    || fail "bench: $(cat err.txt)"
  expect_eq "$(trusted_hash_of "$PWD/.edashim.toml")" "$(sha256sum < .edashim.toml | cut -d' ' -f1)" "trusted before: trusted as written"
}

test_bench_setup_prepare_and_cleanup_as_in_hyperfine() {
  # prepare runs before every run (2 arms x (1 warm-up + 2)), in the run's directory, untimed;
  # setup once before, cleanup once after.
  "$BIN" bench -p baseline -p jemalloc -n 2 -w 1 --setup "echo s >> $PWD/trace" --prepare "echo p >> $PWD/trace; echo ok > ready" \
    --cleanup "echo c >> $PWD/trace" --json -- sh -c 'test -e ready && rm ready' > j.json 2> err.txt || fail "bench: $(cat err.txt)"
  expect_eq "$(tr '\n' ' ' < trace)" "s p p p p p p c " "setup, a prepare per run, cleanup"
  expect_eq "$(py '[a["ok"] for a in j["arms"]]' j.json)" "[2, 2]" "every run found what prepare made"
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 1 -w 0 --prepare 'exit 7' -- true > /dev/null 2> err.txt || rc=$?
  expect_eq "$rc" 1 "a failed prepare fails its run"
  expect_contains "$(cat err.txt)" "--prepare failed, exit status 7" "says so"
  rc=0
  "$BIN" bench -p baseline -p jemalloc -n 1 -w 0 --setup 'exit 3' -- true > /dev/null 2> err.txt || rc=$?
  expect_eq "$rc" 2 "a failed setup measures nothing"
  expect_contains "$(cat err.txt)" "--setup failed, exit status 3" "says so"
}

# The suite's pages (bench/suite/run.sh, pages.py) show bench's own verdict, figure for figure:
# the paired ratio, its CI and p, bold exactly where bench says clearly faster, its winner, and
# the load around each workload's bench; and carry none of this machine's paths.
test_suite_pages_show_benchs_paired_verdict_and_the_load() {
  command -v z3 > /dev/null || skip "z3 not installed"
  EDASHIM="$BIN" bash "$SRC/bench/suite/run.sh" -n 5 --warmup 0 --tools z3 --arms "baseline mimalloc" \
    --out "$PWD/pages" > suite.out 2> suite.err || fail "suite: $(tail -5 suite.err)"
  local summary=pages/summary.md
  expect_contains "$(cat "$summary")" "| verdict | outputs | verified | load |" "a load column"
  expect_contains "$(cat "$summary")" "Each ratio is paired" "says the ratios are paired"
  for w in factor_bv48 square_of_sum_bv10; do
    local row want
    row=$(grep "| $w |" "$summary") || fail "no row for $w in $(cat "$summary")"
    want=$(python3 - "pages/data/z3.$w.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
v = j["verdict"]["arms"][0]
assert v["paired"], "5 rounds are paired"
text = f"{v['ratio']:.2f} [{v['ci95'][0]:.2f}-{v['ci95'][1]:.2f}]"
la = j["load_average"]
print(("**" if v["clearly_faster"] else "") + text)
print(j["verdict"]["winner"] or "no clear gain")
print(f"{la['before']:.1f}-{la['after']:.1f}")
PY
) || fail "$w's JSON lacks bench's verdict or load"
    local cell winner load
    { read -r cell; read -r winner; read -r load; } <<< "$want"
    expect_contains "$row" "| $cell" "$w: bench's judged ratio and CI, bold as bench decided"
    [[ $cell == \*\** ]] || expect_not_contains "$row" "**" "$w: not bold where bench saw no clear gain"
    expect_contains "$row" "| $winner |" "$w: bench's winner"
    expect_contains "$row" "| $load |" "$w: the load around its bench"
  done
  expect_not_contains "$(cat pages/*.md pages/data/*)" "$PWD" "no path of this machine"
}

run_suite "$@"
