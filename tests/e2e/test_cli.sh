#!/usr/bin/env bash
# The CLI's own words (issue 28 item 7): a mistyped subcommand is named with its nearest match,
# each subcommand's --help shows its own examples, and no help shows CLI11's internals.
source "$(dirname "$0")/lib.sh"

test_a_mistyped_subcommand_gets_did_you_mean() {
  rc=0
  "$BIN" reprot --tool yosys > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "a usage error"
  expect_eq "$(head -1 err.txt)" "edashim: unknown command 'reprot'; did you mean 'report'? (edashim --help lists them)" "the message"
  expect_not_contains "$(cat err.txt)" "A subcommand is required" "not CLI11's"
  rc=0
  "$BIN" xyzzy > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "nothing near: still a usage error"
  expect_eq "$(cat err.txt)" "edashim: unknown command 'xyzzy' (edashim --help lists them)" "no guess"
  "$BIN" --version > out.txt || fail "--version is an option, not a command"
}

# Every subcommand's help ends with examples of that subcommand, never the global list.
test_each_subcommands_help_shows_its_own_examples() {
  "$BIN" --help > global.txt || fail "--help failed"
  expect_contains "$(cat global.txt)" "edashim SUBCOMMAND --help" "the global examples"
  for sub in run explain trust untrust profiles shims doctor report forget bench tune; do
    "$BIN" $sub --help > help.txt 2>&1 || fail "$sub --help: status $?"
    expect_not_contains "$(cat help.txt)" "edashim SUBCOMMAND --help" "$sub --help shows the global examples"
    grep -qE "^ *(Examples?:)? *edashim $sub( |$)" help.txt || fail "$sub --help has no example of edashim $sub: $(cat help.txt)"
  done
}

test_help_says_types_and_exclusions_in_plain_words() {
  for sub in bench tune report doctor shims trust; do
    "$BIN" $sub --help > help.txt 2>&1 || fail "$sub --help: status $?"
    for internal in "Excludes:" "Needs:" "INT:" "TEXT:" "FLOAT:" " in [" "{"; do
      expect_not_contains "$(cat help.txt)" "$internal" "$sub --help"
    done
  done
  expect_contains "$("$BIN" bench --help)" "N, 1 to 100000" "bench's run count, in words"
  expect_contains "$("$BIN" report --help)" "(not with" "report's exclusions, in words"
}

# explain's own option after the tool's name is the tool's argument: said, never ignored (issue
# 38 item 5); before the name, or the tool's own after `--`, it works.
test_an_explain_option_after_the_tool_is_not_ignored() {
  shim yosys
  for opt in "-a mimalloc" "-p mimalloc" "--allocator=mimalloc" "-amimalloc"; do
    rc=0
    # shellcheck disable=SC2086
    "$BIN" explain yosys $opt > out.txt 2> err.txt || rc=$?
    expect_eq "$rc" 2 "explain yosys $opt: a usage error"
    expect_contains "$(cat err.txt)" "'$opt' comes after the tool's name" "explain yosys $opt: what is wrong"
    expect_contains "$(cat err.txt)" "edashim explain $opt yosys" "explain yosys $opt: what would be right"
    expect_eq "$(cat out.txt)" "" "explain yosys $opt: no explanation of something else"
  done
  "$BIN" explain -a mimalloc yosys > out.txt 2> err.txt || fail "explain -a mimalloc yosys: $(cat err.txt)"
  expect_contains "$(cat out.txt)" "mimalloc" "before the name it is explain's"
  "$BIN" explain -- yosys -p "synth -top x" > out.txt 2> err.txt || fail "explain -- yosys -p ...: $(cat err.txt)"
  expect_not_contains "$(cat out.txt)" "libmimalloc" "after --, yosys' own -p"
}

# A mistyped or hyperfine-only option is named with what to write (issue 38 item 4), and "put --
# before the tool's command" is said only when there is no -- and nothing else explains it.
test_a_mistyped_or_hyperfine_option_gets_the_right_answer() {
  while IFS='|' read -r opt want; do
    rc=0
    # shellcheck disable=SC2086
    "$BIN" bench -p baseline -p jemalloc $opt -- true > out.txt 2> err.txt || rc=$?
    expect_eq "$rc" 2 "$opt: a usage error"
    expect_contains "$(cat err.txt)" "edashim bench: ${opt%% *}: $want" "$opt: the answer"
    expect_not_contains "$(cat err.txt)" "put -- before" "$opt: -- is there"
  done <<'CASES'
--export-jsn x.json|did you mean --export-json?
--comapre-outputs|did you mean --compare-outputs?
--max-runs 5|bench runs a fixed number of rounds: -r/--runs N
--shell=bash|bench runs the command's words without a shell (hyperfine's -N)
CASES
  rc=0
  "$BIN" bench -p baseline -p jemalloc true -q > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "the tool's option without --: a usage error"
  expect_contains "$(cat err.txt)" "put -- before the tool's command" "without --: the way out"
  expect_not_contains "$(cat err.txt)" "did you mean" "no guess for a tool's one-letter option"
}

# `edashim` alone shows what --help shows (a usage error); `edashim help [COMMAND]` is --help
# (issue 38 item 9).
test_bare_edashim_and_help_show_the_help() {
  "$BIN" --help > want.txt || fail "--help failed"
  rc=0; "$BIN" > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "bare: a usage error"
  expect_eq "$(cat err.txt)" "$(cat want.txt)" "bare: the help"
  expect_not_contains "$(cat err.txt)" "A subcommand is required" "bare: not CLI11's words"
  "$BIN" help > out.txt 2> err.txt || fail "help: status $?: $(cat err.txt)"
  expect_eq "$(cat out.txt)" "$(cat want.txt)" "help"
  "$BIN" bench --help > want.txt
  "$BIN" help bench > out.txt 2> err.txt || fail "help bench: status $?: $(cat err.txt)"
  expect_eq "$(cat out.txt)" "$(cat want.txt)" "help bench"
  for sub in run explain; do
    expect_eq "$("$BIN" $sub --help | sed -n 2p)" "Usage: edashim $sub [OPTIONS] [--] TOOL [ARGS...]" "$sub's usage names the tool"
  done
  rc=0; "$BIN" help reprot > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 2 "help of an unknown command"
  expect_contains "$(cat err.txt)" "did you mean 'report'?" "with the nearest"
}

# A --tool no run has is named with the nearest tool the log does have (issue 38 item 9).
test_report_of_a_mistyped_tool_gets_did_you_mean() {
  shim yosys
  yosys -q -p 'log hi' > /dev/null || fail "yosys through its link"
  wait_lines 1 "the run"
  rc=0; "$BIN" report --tool yosyss > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 0 "no match is no error"
  expect_contains "$(cat err.txt)" "--tool yosyss: no run of it in the logs read; did you mean 'yosys'?" "the nearest"
  "$BIN" report --tool yosys > out.txt 2> err.txt || fail "report --tool yosys: $(cat err.txt)"
  expect_not_contains "$(cat err.txt)" "did you mean" "a tool with runs: no question"
}

run_suite "$@"
