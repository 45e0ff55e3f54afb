#!/usr/bin/env bash
# End-to-end test of issue 15 items 3, 4, 5 and 7 through the real edashim and Debian's yosys:
# a run log built from real runs where the current choice is slow on purpose, report
# --recommend naming the faster arm, refusing on thin and on mixed evidence, adopt waiting for a
# bench with identical outputs, then explain showing the learned choice and the next real run
# using it; forget undoing it.
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

# Three commands (three signatures: the -p strings differ) on one small design.
FLOWS=('read_verilog top.v; synth -top top'
       'read_verilog top.v; synth -top top -flatten'
       'read_verilog top.v; synth -top top -noalumacc')

# The current choice is glibc's malloc with mmap_threshold = 48: every block of 48 bytes or more
# is its own mmap. Measured on 2 cores (AMD EPYC): 1.14 s a run against 0.36 s plain or with
# jemalloc (mmap_threshold 16 or 32: 19 s; 64: no effect), so the gap survives a loaded CI
# machine. The candidate, jemalloc, runs through exploration (explore = 1.0, one candidate);
# the current choice's runs are the ones with EDASHIM_EXPLORE=0.
setup() {
  need yosys
  shim yosys yosys-abc berkeley-abc
  printf 'module top(input clk, input [15:0] a, b, output reg [31:0] y);\n  always @(posedge clk) y <= a * b + {a, b};\nendmodule\n' > top.v
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  cat > "$XDG_CONFIG_HOME/edashim/config.toml" <<'TOML'
explore = 1.0
explore_profiles = ["jemalloc"]
adopt = true
[tool.yosys]
allocator = "system"
[tool.yosys.glibc]
mmap_threshold = 48
TOML
}

# Six rounds, each running every flow once under each arm (interleaved: drift hits both arms).
# Six, not four: under load a run now and then takes 20 times as long (7 s seen), and the
# bootstrap resamples each signature's runs; of 4 runs, a resample draws such an outlier into
# the median 26% of the time (the interval then reached 0.99), of 6 runs 6%.
build_log() {
  for round in 1 2 3 4 5 6; do
    for flow in "${FLOWS[@]}"; do
      EDASHIM_EXPLORE=0 yosys -q -p "$flow"
      yosys -q -p "$flow"
    done
  done
}

recommend() { "$BIN" report --recommend --log "$1" --tool yosys; }

test_recommend_names_the_faster_arm_refuses_thin_and_mixed_evidence_and_adopt_applies_it() {
  setup
  build_log
  # yosys' ABC runs are lines of their own (issue 26, berkeley-abc's profile): this test is
  # about yosys' lines, and counts them.
  python3 -c "import json,sys
rs=[l for l in open(sys.argv[1]) if json.loads(l)['tool'] == 'yosys']
open(sys.argv[1], 'w').writelines(rs)" "$LOG"
  local slow='system[mmap_threshold=48]'
  expect_eq "$(python3 -c "
import json,sys
rs=[json.loads(l) for l in open(sys.argv[1])]
print(len(rs), len({r['signature'] for r in rs}), sorted({r['arm'] for r in rs}), sum(r['explore'] is not None for r in rs))" "$LOG")" \
    "36 3 ['jemalloc', '$slow'] 18" "the log: 36 real runs, 3 signatures, two arms, half explored"

  # Enough evidence: jemalloc, with the TOML that adopts it and the bench to confirm it with.
  out=$(recommend "$LOG")
  expect_contains "$out" "yosys on " "group"
  expect_contains "$out" "(current choice: $slow, 18 successful runs)" "current choice"
  expect_contains "$out" "=> recommend jemalloc for yosys: " "recommendation"
  expect_contains "$out" "over 36 runs and 3 signatures" "evidence"
  expect_contains "$out" "     [tool.yosys]"$'\n'"     allocator = \"jemalloc\"" "TOML"
  expect_contains "$out" "edashim bench --compare-outputs OUTPUT -p baseline -p jemalloc -- yosys" "bench advice"
  ratio=$(recommend "$LOG" | sed -n 's/.*recommend jemalloc for yosys: \([0-9.]*\)x.*/\1/p')
  python3 -c "import sys; r=float(sys.argv[1]); sys.exit(0 if r < 0.7 else 1)" "$ratio" || fail "ratio $ratio not below 0.7"

  # Thin: the first round only (6 runs: 3 per arm).
  head -n 6 "$LOG" > thin.jsonl
  out=$(recommend thin.jsonl)
  expect_contains "$out" "jemalloc: thin evidence: 3 runs of jemalloc and 3 of $slow over 3 signatures" "thin"
  expect_contains "$out" "=> keep $slow: no candidate meets the rule" "thin: no recommendation"

  # Mixed: the same real runs with the arms swapped on the first command, where jemalloc now
  # looks 3x slower while it stays 3x faster on the other two.
  python3 - "$LOG" "${FLOWS[0]}" > mixed.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["argv"][-1] == sys.argv[2]:
        r["arm"] = "jemalloc" if r["arm"] != "jemalloc" else "system[mmap_threshold=48]"
        r["explore"] = {"ran": "jemalloc", "instead_of": "system[mmap_threshold=48]"} if r["arm"] == "jemalloc" else None
    print(json.dumps(r))
PY
  out=$(recommend mixed.jsonl)
  expect_contains "$out" "jemalloc: mixed: " "mixed"
  expect_contains "$out" "(needs upper bound < 0.97)" "mixed: the rule's bound"
  expect_contains "$out" "=> keep $slow" "mixed: no recommendation"
  [ ! -e "$XDG_STATE_HOME/edashim/learned.toml" ] || fail "nothing may be learned from thin or mixed evidence"

  # Adopt is on, but adopt_requires_bench (default) wants a bench with identical outputs first.
  out=$(recommend "$LOG")
  expect_contains "$out" "adopt: jemalloc for yosys not adopted: no \`edashim bench --compare-outputs\`" "bench first"
  [ ! -e "$XDG_STATE_HOME/edashim/learned.toml" ] || fail "adopted without a bench"
  # --no-log: only the outputs' record; the counts below are the logged runs' (bench's own runs
  # would be evidence too, issue 28).
  "$BIN" bench -n 1 --warmup 0 --no-log --compare-outputs out.v -p baseline -p jemalloc -- \
    yosys -q -p 'read_verilog top.v; synth -top top; write_verilog -noattr out.v' > bench.txt 2>&1 || { cat bench.txt; fail "bench"; }
  expect_eq "$(last_log "$LOG" 'j["record"], j["tool"], j["identical_arms"], j["differing_arms"]')" \
    "bench_outputs yosys ['system', 'jemalloc'] []" "bench's record in the run log"
  out=$(recommend "$LOG")
  expect_contains "$out" "adopt: yosys now runs jemalloc on this CPU model" "adopted"

  # explain shows it with its evidence; the next real run uses it.
  out=$("$BIN" explain yosys)
  expect_contains "$out" "learned.toml:" "explain: origin"
  expect_contains "$out" "allocator jemalloc: learned from 36 runs over 3 commands on this CPU model, 0." "explain: evidence"
  expect_contains "$out" "(against $slow)" "explain: what it replaced"
  EDASHIM_EXPLORE=0 yosys -q -p "${FLOWS[0]}"
  expect_eq "$(last_log "$LOG" 'j["allocator"]["requested"], j["arm"], j["explore"]')" "jemalloc jemalloc None" "next run"

  # A later recommend re-checks it against the arm it replaced: still supported, it stays.
  out=$(recommend "$LOG")
  expect_contains "$out" "(current choice: jemalloc, 19 successful runs)" "the learned arm is the current choice now"
  expect_contains "$out" "adopt: yosys keeps the learned jemalloc (still 0." "re-check keeps it"

  # forget drops it: the user's configuration applies again.
  expect_eq "$("$BIN" forget yosys)" "edashim forget: dropped 1 learned choice for yosys" "forget"
  EDASHIM_EXPLORE=0 yosys -q -p "${FLOWS[0]}"
  expect_eq "$(last_log "$LOG" 'j["arm"]')" "$slow" "after forget"

  # Learned again, then the evidence no longer supports it (the mixed log): the recompute drops it.
  expect_contains "$(recommend "$LOG")" "adopt: yosys now runs jemalloc on this CPU model" "adopted again"
  out=$(recommend mixed.jsonl)
  expect_contains "$out" "adopt: dropped the learned jemalloc for yosys: mixed: " "gain vanished: dropped"
  out=$("$BIN" explain yosys)
  expect_contains "$out" "allocator            system " "explain after the drop"
  expect_contains "$out" "learned            none for yosys on this CPU model" "explain after the drop: nothing learned"

  # The same verdict for scripts.
  expect_eq "$("$BIN" report --recommend --log "$LOG" --json 2> /dev/null | python3 -c "
import json,sys; v=[v for v in json.load(sys.stdin)['verdicts'] if v['tool'] == 'yosys'][0]; print(v['tool'], v['recommended'], v['candidates'][0]['meets_rule'])")" \
    "yosys jemalloc True" "--json"
}

run_suite "$@"
