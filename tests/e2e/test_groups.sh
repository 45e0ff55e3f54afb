#!/usr/bin/env bash
# Process groups, sessions, terminals, process names and debuggers (issue 25): each case run
# directly (EDASHIM=off: the tool itself in edashim's place) and through edashim in the same
# test, and compared; with a terminal (tests/e2e/term_driver.py: an interactive bash in a pty)
# where the case depends on one. Scenarios whose signals go to a whole group run in a session
# of their own (setsid) so that they never reach the test harness.
source "$(dirname "$0")/lib.sh"
DEFAULT_NOTICES=1  # the default route of edashim's words (lib.sh): this suite compares runs with direct ones
FAULT=${FAULT_TOOL:?FAULT_TOOL: path to fault_tool}
TERM_DRIVER=$(cd "$(dirname "$0")" && pwd)/term_driver.py

pre() { [[ $1 == plain ]] && echo EDASHIM=off || echo EDASHIM=on; }

# pytool NAME LINES...: a Python tool in the real directory, with its shim link.
pytool() {
  local name=$1; shift
  { echo '#!/usr/bin/python3'; printf '%s\n' "$@"; } > "$SB/real/$name"
  chmod +x "$SB/real/$name"
  shim "$name"
}

# term MODE STEPS...: term_driver.py with EDASHIM set for MODE, in the sandbox's PATH.
term() { local mode=$1; shift; env "$(pre "$mode")" timeout 60 python3 "$TERM_DRIVER" "$@"; }

# gone PID: waits (5 s at most) until PID has ended; false if it still runs.
gone() { for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }

# --- 1. Group signals reach the tool's children ---

test_1_timeout_ends_a_real_yosys_and_its_shell_child() {
  [ -x /usr/bin/yosys ] || skip "yosys not installed"
  shim yosys
  for s in TERM KILL; do
    for mode in plain shim; do
      local t0 t1 out
      t0=$(date +%s%N)
      out=$(env "$(pre $mode)" timeout 40 bash -c "timeout -s $s 2 yosys -q -p '!sleep 20 && echo LEFTOVER-RAN' | cat" 2>&1) || true
      t1=$(date +%s%N)
      local ms=$(( (t1 - t0) / 1000000 ))
      echo "    $mode, timeout -s $s: ${ms} ms"
      expect_not_contains "$out" LEFTOVER-RAN "$mode, timeout -s $s: yosys's child was left running"
      expect_eq "$(( ms < 12000 ))" 1 "$mode, timeout -s $s: the pipeline ended after ${ms} ms"
    done
  done
  # A killed tool told nothing: in place its line is written by a sweep once its processes are
  # gone. Supervised, a SIGKILLed edashim writes none.
  if supervised; then wait_lines 1 "the TERM run's line"; else sweep_lines 2 "the two killed runs' lines"; fi
}

test_1_kill_0_under_setsid_ends_the_tools_children() {
  printf '#!/bin/sh\nsleep 30 &\necho $! > "$1"\nwait\n' > "$SB/real/kids"
  chmod +x "$SB/real/kids"
  shim kids
  for mode in plain shim; do
    local file=$SB/kid.$mode
    env "$(pre $mode)" setsid -w bash -c 'kids "$0" & while ! [ -s "$0" ]; do sleep 0.05; done; kill 0' "$file" || true
    local kid; kid=$(cat "$file")
    if ! gone "$kid"; then
      kill "$kid"
      fail "$mode: \`kill 0\` left the tool's child $kid running"
    fi
  done
}

test_1_kill_pid_from_outside_reaches_a_tool_in_the_callers_group_every_time() {
  # The other side of the pair rule: the tool (in its caller's group, edashim aside) sleeps in
  # 1 ms steps and catches SIGUSR1; a busy sender outside signals the pid five times. Each one
  # must arrive (a rule that took the tool's wake-ups for a group copy lost them all).
  pytool stepper 'import signal, sys, time' 'n = 0' 'def h(s, f):' '    global n; n += 1' \
    'signal.signal(signal.SIGUSR1, h)' 'open(sys.argv[1], "w").write("ready")' 'end = time.time() + 1.5' \
    'while time.time() < end: time.sleep(0.001)' 'print("count", n)'
  for mode in plain shim; do
    env "$(pre $mode)" setsid bash -c 'stepper "$0" & echo $! > "$0.pid"; wait' "$SB/r.$mode" > "$SB/out.$mode" &
    local wrapper=$!
    wait_for "$SB/r.$mode" ready
    wait_for "$SB/r.$mode.pid" '[0-9]'
    local p; p=$(cat "$SB/r.$mode.pid")
    for _ in 1 2 3 4 5; do kill -USR1 "$p"; for ((j = 0; j < 20000; j++)); do :; done; done
    wait "$wrapper"
  done
  expect_eq "$(cat "$SB/out.plain")" "count 5" "directly (the test itself)"
  expect_eq "$(cat "$SB/out.shim")" "count 5" "through edashim"
}

# --- 2. The tool's kill(0) reaches its caller ---

test_2_a_tools_kill_0_reaches_the_calling_script_and_make() {
  pytool k0 'import os, signal, time' 'os.kill(0, signal.SIGTERM)' 'time.sleep(2)'
  printf 'all: a b\na:\n\tk0\nb:\n\tsleep 1\n\techo b-done\n' > Makefile
  for mode in plain shim; do
    rc=0; env "$(pre $mode)" setsid bash -c 'k0; echo survived' > "$SB/out.$mode" 2>&1 || rc=$?
    echo "script rc=$rc $(cat "$SB/out.$mode")" > "$SB/script.$mode"
    # make itself gets the signal: the other recipe dies with it and make stops (143; now and
    # then 2 when make's handler finds its children reaped already: seen directly too).
    rc=0; env "$(pre $mode)" setsid make -s -j2 > "$SB/make.$mode" 2>&1 || rc=$?
    echo "make stopped $(( rc == 143 || rc == 2 )) other recipe finished $(grep -c b-done "$SB/make.$mode")" >> "$SB/script.$mode"
  done
  expect_eq "$(cat "$SB/script.plain")" $'script rc=143 \nmake stopped 1 other recipe finished 0' "directly (the test itself)"
  expect_eq "$(cat "$SB/script.shim")" "$(cat "$SB/script.plain")" "through edashim"
  # k0 killed itself with its group: in place its line is written by a sweep once its processes
  # are gone.
  sweep_lines 2 "the two k0 runs' lines"
}

# --- 3. setsid() answers as directly ---

write_setsid_tool() {
  pytool st 'import os' 'try:' '    os.setsid(); print("setsid ok")' 'except OSError as e:' '    print("setsid errno", e.errno)' \
    'print("tty", os.path.exists("/proc/self/fd/0") and os.isatty(0) and os.ttyname(0) != "")'
}

test_3_setsid_without_a_terminal() {
  write_setsid_tool
  for mode in plain shim; do
    env "$(pre $mode)" bash -c 'st; true' > "$SB/script.$mode" 2>&1 < /dev/null
    env "$(pre $mode)" setsid st > "$SB/leader.$mode" 2>&1 < /dev/null
  done
  expect_eq "$(head -1 "$SB/script.plain")" "setsid ok" "directly, from a script (the test itself)"
  expect_eq "$(head -1 "$SB/script.shim")" "setsid ok" "through edashim, from a script"
  expect_eq "$(head -1 "$SB/leader.plain")" "setsid errno 1" "directly, as a group leader (the test itself)"
  expect_eq "$(head -1 "$SB/leader.shim")" "setsid errno 1" "through edashim, as a group leader"
}

test_3_setsid_in_a_terminal() {
  write_setsid_tool
  for mode in plain shim; do
    term $mode 'type:st > '"$SB/t.$mode"'; echo D""ONE' 'out:DONE' 'type:exit 0' > /dev/null
  done
  expect_eq "$(head -1 "$SB/t.plain")" "setsid errno 1" "directly, a job of an interactive shell (the test itself)"
  expect_eq "$(head -1 "$SB/t.shim")" "$(head -1 "$SB/t.plain")" "through edashim, a job of an interactive shell"
}

test_3_terminal_jobs_background_reads_fg_and_pipelines_as_directly() {
  # The tool leads its terminal job's group through edashim too: a background job that reads
  # the terminal stops (tty input), fg gives it the terminal; Ctrl-C in a pipeline edashim
  # leads reaches the pipeline's other member as well.
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  for mode in plain shim; do
    term $mode 'type:set -b' 'type:ftool readline &' 'out:Stopped' 'type:fg' 'out:ftool readline' "type:typed-$mode" "out:got: typed-$mode" \
      'type:echo R""C=$?' 'out:RC=' "type:ftool catch 2 $SB/int.$mode | (trap 'echo pipe-end-INT; exit 1' INT; cat; sleep 5; echo pipe-end-late)" \
      "file:$SB/int.$mode:ready" 'send:\x03' "file:$SB/int.$mode:count" 'type:echo R""C2=$?' 'out:RC2=' 'type:exit 0' \
      > "$SB/t.$mode" || true
    expect_contains "$(cat "$SB/t.$mode")" "got: typed-$mode tty=1" "$mode: the background job read the terminal after fg"
    expect_contains "$(cat "$SB/t.$mode")" "RC=3" "$mode: its status"
    # Output lines end with the word; the typed command line ends with ")".
    expect_eq "$(tr -d '\r' < "$SB/t.$mode" | grep -c 'pipe-end-INT$')" 1 "$mode: Ctrl-C reached the pipeline's other member"
    expect_eq "$(tr -d '\r' < "$SB/t.$mode" | grep -c 'pipe-end-late$')" 0 "$mode: the pipeline ended with Ctrl-C"
  done
}

# --- 4. A tool that left the job's group still gets Ctrl-C ---

test_4_ctrl_c_reaches_a_tool_that_called_setpgid_or_setsid() {
  for call in setpgid setsid; do
    local move='os.setpgid(0, 0)'
    [[ $call == setsid ]] && move='os.setsid() if os.getpgrp() != os.getpid() else None'
    pytool mover 'import os, signal, sys, time' 'signal.signal(signal.SIGINT, signal.SIG_DFL)' "$move" \
      'open(sys.argv[1], "w").write("ready")' 'time.sleep(30)'
    for mode in plain shim; do
      local f=$SB/ready.$call.$mode
      # bash drops the rest of a list after a Ctrl-C: the status is asked on a line of its own.
      # R""C: the typed line does not show what is waited for, only its output does.
      out=$(term $mode "type:mover $f" "file:$f:ready" 'send:\x03' "type:echo R\"\"C=\$?" 'out:RC=' 'type:exit 0') || true
      expect_contains "$out" "RC=130" "$mode, a tool that called $call: one Ctrl-C ended it"
    done
  done
}

# --- 5. Nothing of the tool's side reaches an interactive shell it would not reach directly ---

test_5_a_tools_kill_0_spares_the_interactive_shell() {
  pytool k0u 'import os, signal' 'for s in (signal.SIGUSR1, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)' \
    'os.kill(0, signal.SIGUSR1)' 'os.kill(0, signal.SIGHUP)' 'print("tool done")'
  for mode in plain shim; do
    term $mode 'type:k0u; echo A""FTER' 'out:AFTER' 'type:exit 7' > "$SB/t.$mode" || true
  done
  expect_eq "$(tail -1 "$SB/t.plain")" "shell-status 7" "directly, the shell lives (the test itself)"
  expect_eq "$(tail -1 "$SB/t.shim")" "shell-status 7" "through edashim, the shell lives"
  # Without a terminal the caller shares the tool's group and gets it, as directly.
  for mode in plain shim; do
    env "$(pre $mode)" setsid bash -c 'trap "echo caller got USR1" USR1; trap "" HUP; k0u; echo after' > "$SB/s.$mode"
  done
  expect_eq "$(cat "$SB/s.plain")" $'tool done\ncaller got USR1\nafter' "directly, the calling script (the test itself)"
  expect_eq "$(cat "$SB/s.shim")" "$(cat "$SB/s.plain")" "through edashim, the calling script"
}

# --- 6. Process names: one process answers to the tool's name ---

test_6_pgrep_pidof_killall_and_pkill_see_one_process() {
  # A name of this test's own: killall and pkill reach every process of that name.
  local name=gt$$r$RANDOM
  cp "$FAULT" "$SB/real/$name"
  shim "$name"
  for mode in plain shim; do
    : > "$SB/n.$mode"
    for way in killall pkill; do
      env "$(pre $mode)" setsid "$name" catch 15 "$SB/c.$mode.$way" &
      local pid=$!
      wait_for "$SB/c.$mode.$way" ready
      echo "pgrep-x $(pgrep -x "$name" | wc -l) pidof $(pidof "$name" | wc -w)" >> "$SB/n.$mode"
      if [[ $way == killall ]]; then killall -TERM "$name"; else pkill -TERM -x "$name"; fi
      wait "$pid" || true
      echo "$way $(cat "$SB/c.$mode.$way")" >> "$SB/n.$mode"
    done
  done
  expect_eq "$(cat "$SB/n.plain")" $'pgrep-x 1 pidof 1\nkillall count 1\npgrep-x 1 pidof 1\npkill count 1' "directly (the test itself)"
  expect_eq "$(cat "$SB/n.shim")" "$(cat "$SB/n.plain")" "through edashim"
}

# --- 7. Debuggers and checkers land on the tool ---

test_7_gdb_and_strace_see_the_tool() {
  # Directly here is the real tool by its path: EDASHIM=off still starts edashim, which then
  # execs the tool, and valgrind would see edashim's startup in both.
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  local direct=$SB/real/ftool
  command -v gdb >/dev/null || skip "gdb not installed"
  for mode in plain shim; do
    local t=ftool; [[ $mode == plain ]] && t=$direct
    gdb -nx -batch -ex run -ex bt --args "$t" die 11 > "$SB/gdb.$mode" 2>&1 < /dev/null || true
  done
  expect_contains "$(cat "$SB/gdb.plain")" "SIGSEGV" "gdb, directly (the test itself)"
  expect_contains "$(cat "$SB/gdb.shim")" "SIGSEGV" "gdb through edashim: the tool's crash"
  expect_not_contains "$(cat "$SB/gdb.shim")" "die_like" "gdb through edashim"
  expect_eq "$(grep -c ' in main ' "$SB/gdb.shim")" "$(grep -c ' in main ' "$SB/gdb.plain")" "gdb's backtrace ends in the tool's main"
  expect_eq "$(last_log "$LOG" 'j["traced"].split()[0]')" "gdb" "the run log says the run was debugged"
  for mode in plain shim; do
    local t=ftool; [[ $mode == plain ]] && t=$direct
    strace -o "$SB/strace.$mode" "$t" observe > /dev/null
  done
  expect_contains "$(cat "$SB/strace.plain")" 'write(1, "pdeathsig' "strace without -f, directly (the test itself)"
  expect_contains "$(cat "$SB/strace.shim")" 'write(1, "pdeathsig' "strace without -f through edashim: the tool's write"
  expect_eq "$(last_log "$LOG" 'j["traced"].split()[0]')" "strace" "the run log says the run was traced"
}

test_7_valgrind_checks_the_tool() {
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  local direct=$SB/real/ftool
  # valgrind checks the tool, with the options it was given. What valgrind says of the static
  # edashim's own start (before main, where edashim cannot act yet) comes first: compared is
  # what follows edashim's line (its notice, said here on any stderr), the process id left out.
  for mode in plain shim; do
    local t=ftool; [[ $mode == plain ]] && t=$direct
    rc=0; EDASHIM_NOTICES=stderr valgrind -q --leak-check=full --error-exitcode=9 "$t" leak > /dev/null 2> "$SB/vg.$mode" || rc=$?
    [[ $mode == plain ]] || sed -i '1,/^edashim: /d' "$SB/vg.$mode"
    sed -i -e 's/^==[0-9]*==/==N==/' -e 's/(in [^)]*)/(in TOOL)/' "$SB/vg.$mode"
    echo "rc=$rc" >> "$SB/vg.$mode"
  done
  expect_eq "$(tail -1 "$SB/vg.plain")" "rc=9" "valgrind finds the tool's leak, directly (the test itself)"
  expect_eq "$(cat "$SB/vg.shim")" "$(cat "$SB/vg.plain")" "valgrind through edashim"
  expect_eq "$(last_log "$LOG" 'j["traced"], j["wall_s"], j["max_rss_kb"], j["status"]')" "valgrind None None None" \
    "figures that need a parent are absent"
}

# --- 8. Closing the terminal: SIGHUP once ---

test_8_closing_the_terminal_delivers_sighup_once() {
  # Directly the tool gets the terminal's hangup and the shell's SIGHUP to its jobs: once when
  # the second arrives while the first is pending, else twice (measured here: 1 or 2). Through
  # edashim the shell's copy is not relayed after the terminal's: once every time (main: 1 to 3).
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  for mode in plain shim; do
    for try in 1 2 3 4 5 6; do
      local f=$SB/hup.$mode.$try
      term $mode "type:ftool count 1 $f 1" "file:$f:ready" close > /dev/null || true
      wait_for "$f" count
      cut -d' ' -f2 "$f" >> "$SB/hup.$mode"
    done
  done
  echo "    SIGHUPs per try: directly $(tr '\n' ' ' < "$SB/hup.plain"), through edashim $(tr '\n' ' ' < "$SB/hup.shim")"
  expect_eq "$(sort -u "$SB/hup.plain" | grep -cv '^[12]$')" 0 "directly: 1 or 2 each time (the test itself)"
  if supervised; then
    expect_eq "$(sort -u "$SB/hup.shim")" 1 "through edashim: once each time"
  else
    # In place the tool is the terminal's job itself: 1 or 2, as directly.
    expect_eq "$(sort -u "$SB/hup.shim" | grep -cv '^[12]$')" 0 "through edashim in place: 1 or 2 each time"
  fi
}

run_suite "$@"
