#!/usr/bin/env bash
# The tool's stderr is the tool's (issue 47, pipeline/notices.hpp): Tcl's `exec` fails on any
# line there, so what edashim has to tell goes into the run's line ("notices"), report and
# doctor, and onto stderr only at a terminal, once a session. Each case beside the direct run
# (EDASHIM=off) where there is one to compare.
source "$(dirname "$0")/lib.sh"
DEFAULT_NOTICES=1  # the default route of edashim's words (lib.sh): this suite compares runs with direct ones
TERM_DRIVER=$(cd "$(dirname "$0")" && pwd)/term_driver.py

# tcl_exec CMD...: what Tcl's `exec` of CMD gives: "STATUS|RESULT", STATUS 1 for a failure
# (any output on stderr is one).
tcl_exec() {
  command -v tclsh > /dev/null || skip "tclsh is missing (Debian: apt-get install tcl)"
  printf 'set r [catch {exec %s} m]\nputs "$r|$m"\n' "$*" | tclsh
}

# Tcl's exec of the linked tool as directly: status 0, the same words.
expect_tcl_as_direct() {
  local direct shimmed
  direct=$(EDASHIM=off tcl_exec "$@")
  shimmed=$(tcl_exec "$@")
  expect_eq "${shimmed%%|*}" 0 "Tcl's exec of $* through edashim failed: [$shimmed]"
  expect_eq "$shimmed" "$direct" "Tcl's exec of $*, through edashim against directly"
}

test_tcl_exec_with_an_untrusted_project_file_passes_and_the_line_keeps_the_words() {
  need_yosys
  printf '[env]\nEDA_FLAG = "1"\n' > .edashim.toml
  expect_tcl_as_direct yosys -V
  expect_contains "$(last_notices)" "$SB/work/.edashim.toml is not trusted" "the line's notices"
  local out
  out=$("$BIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "edashim told 1 run" "doctor shows what runs were told"
  expect_contains "$out" ".edashim.toml is not trusted: ignored env" "doctor's words"
  out=$("$BIN" report 2>&1)
  expect_contains "$out" "what edashim told runs in $LOG" "report shows what runs were told"
  expect_contains "$out" "1 run, last " "report counts them"
}

test_tcl_exec_with_a_log_that_cannot_be_written_passes() {
  need_yosys
  : > "$SB/a-file"
  export EDASHIM_LOG=$SB/a-file/runs.jsonl  # under a file: no run, root included, can write it
  expect_tcl_as_direct yosys -V
  local out
  out=$(yosys -V 2>&1 >/dev/null)
  expect_eq "$out" "" "stderr of a run whose log cannot be written"
  out=$("$BIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "PROBLEM  run log $SB/a-file/runs.jsonl" "doctor says the log cannot be written"
}

test_tcl_exec_with_an_allocator_not_found_passes() {
  need_yosys
  export EDASHIM_ALLOCATOR=$SB/none/libjemalloc.so.2
  expect_tcl_as_direct yosys -V
  expect_contains "$(last_notices)" "library $SB/none/libjemalloc.so.2 not found" "the line's notices"
  local out
  out=$("$BIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "edashim told 1 run" "doctor shows what the run was told"
  expect_contains "$out" "libjemalloc.so.2 not found" "doctor's words"
}

# A terminal hears a notice once a session: two runs in one terminal, one line; a new terminal
# (a new session) hears it again. What the tool writes reaches the terminal as it is.
test_a_terminal_hears_a_notice_once_a_session() {
  export EDASHIM_ALLOCATOR=$SB/none/libjemalloc.so.2
  local out
  for t in 1 2; do
    out=$(timeout 60 python3 "$TERM_DRIVER" "type:mytool exit 0; mytool exit 0; echo DONE-\$((40+2))" "out:DONE-42" "type:exit") ||
      fail "terminal $t: the driver failed: $out"
    expect_eq "$(grep -c 'libjemalloc.so.2 not found' <<< "$out")" 1 "terminal $t, two runs: the notice once ($out)"
  done
  expect_eq "$(wc -l < "$LOG")" 4 "four runs, four lines"
}

# EDASHIM_NOTICES=stderr (a CI job that wants the words in its log) says them on any stderr, once
# a session; a read-only HOME (farm nodes) still hears it once, not on every run.
test_a_read_only_home_hears_an_unwritable_log_once_a_session() {
  : > "$SB/a-file"
  export XDG_STATE_HOME=$SB/a-file/state  # the log and the markers' usual place: neither can be made
  export EDASHIM_NOTICES=stderr
  local err
  for i in 1 2 3; do mytool exit 0 2>> "$SB/err.txt" > /dev/null; done
  err=$(cat "$SB/err.txt")
  expect_eq "$(grep -c 'run log not written' <<< "$err")" 1 "three runs, one notice ($err)"
  unset EDASHIM_NOTICES
  mytool exit 0 2> "$SB/err2.txt" > /dev/null
  expect_eq "$(cat "$SB/err2.txt")" "" "by default, not at a terminal: nothing"
}

# A line that cannot be written is said (once a session) also where the tool's end is not told:
# a static tool (the line is written before it starts) and a killed one (nobody is left at its end).
test_a_static_and_a_killed_tool_with_an_unwritable_log_are_said() {
  [ -x /sbin/ldconfig ] || skip "no /sbin/ldconfig (a static program) here"
  : > "$SB/a-file"; : > "$SB/b-file"  # two logs, two reasons: each said once
  export EDASHIM_NOTICES=stderr
  local err
  err=$(EDASHIM_LOG=$SB/a-file/static.jsonl "$BIN" run -- /sbin/ldconfig --version 2>&1 >/dev/null)
  expect_contains "$err" "run log not written" "the static tool"
  err=$(EDASHIM_LOG=$SB/b-file/killed.jsonl "$BIN" run -- sh -c 'kill -9 $$' 2>&1 >/dev/null) || true
  expect_contains "$err" "run log not written" "the killed tool"
  expect_eq "$(grep -c 'run log not written' <<< "$err")" 1 "the killed tool: once"
}

test_notices_off_stderr_keep_the_tools_stderr_byte_for_byte() {
  printf '[env]\nEDA_FLAG = "1"\n' > .edashim.toml
  export EDASHIM_ALLOCATOR=$SB/none/libjemalloc.so.2
  EDASHIM=off mytool stderr-line > "$SB/d.out" 2> "$SB/d.err" || true
  mytool stderr-line > "$SB/s.out" 2> "$SB/s.err" || true
  expect_eq "$(cat "$SB/s.err")" "$(cat "$SB/d.err")" "stderr through edashim against directly"
  expect_eq "$(wc -l <<< "$(last_notices)")" 2 "both notices kept in the line"
  # A value edashim does not know is taken as the default, and said where the rest is.
  EDASHIM_NOTICES=loud mytool exit 0 2> "$SB/l.err" > /dev/null
  expect_eq "$(cat "$SB/l.err")" "" "EDASHIM_NOTICES=loud, not at a terminal: nothing"
  expect_contains "$(last_notices)" "EDASHIM_NOTICES=loud is not one of terminal, stderr, log" "the line says why"
}

run_suite "$@"
