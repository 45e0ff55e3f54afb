#!/usr/bin/env bash
# Signals and exits as a matrix (issue 6). For every catchable signal, sent to edashim's pid
# alone (kill, timeout(1)) and to its whole process group: the tool receives it exactly once
# and the status the shell sees is the status without edashim (EDASHIM=off: the tool itself in
# the same place). Then the special cases: SIGKILL, a tool ignoring SIGTERM, a daemon, stdin
# from a pipe and from a terminal, stop and continue (with and without a terminal, tmux), and
# edashim itself SIGKILLed.
source "$(dirname "$0")/lib.sh"
FAULT=${FAULT_TOOL:?FAULT_TOOL: path to fault_tool}

SIGNALS="HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT TSTP TTIN TTOU
         URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS RTMIN RTMIN+1 RTMAX-1 RTMAX"

setup_fault() {
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  ulimit -c 0  # the signals that dump core must not litter the sandbox
}

# matrix MODE WAY: starts `ftool catch SIG` for every signal at once, each in a session of its
# own (no terminal: edashim gives the tool its own group), sends each signal WAY (pid or
# group), and writes "SIG count rc" lines to $SB/result.MODE.WAY.
matrix() {
  local mode=$1 way=$2 out="$SB/result.$1.$2"
  local -A pids
  : > "$out"
  for s in $SIGNALS; do
    local n; n=$(kill -l "$s")
    if [[ $mode == plain ]]; then EDASHIM=off setsid ftool catch "$n" "$SB/c.$mode.$way.$s" &
    else setsid ftool catch "$n" "$SB/c.$mode.$way.$s" & fi
    pids[$s]=$!
  done
  for s in $SIGNALS; do wait_for "$SB/c.$mode.$way.$s" ready; done
  for s in $SIGNALS; do
    if [[ $way == pid ]]; then kill -s "$s" "${pids[$s]}"; else kill -s "$s" -- "-${pids[$s]}"; fi
  done
  for s in $SIGNALS; do
    local rc=0
    { wait "${pids[$s]}"; } 2>/dev/null || rc=$?
    echo "$s $(cut -d' ' -f2 "$SB/c.$mode.$way.$s") $rc" >> "$out"
  done
}

check_matrix() {
  local way=$1
  matrix plain "$way"
  matrix shim "$way"
  local bad=0
  while read -r s count rc; do
    read -r _ pcount prc < <(grep "^$s " "$SB/result.plain.$way")
    [[ $pcount == 1 ]] || { fail "$s to the $way without edashim: count $pcount (the test itself is wrong)"; bad=1; }
    [[ $count == 1 ]] || { fail "$s to the $way: the tool received it $count times"; bad=1; }
    [[ $rc == "$prc" ]] || { fail "$s to the $way: status $rc, without edashim $prc"; bad=1; }
  done < "$SB/result.shim.$way"
  expect_eq "$(wc -l < "$SB/result.shim.$way")" "$(wc -w <<<"$SIGNALS")" "every signal was tried"
  echo "    $(wc -l < "$SB/result.shim.$way") signals to the $way: each received once, same status"
  return $bad
}

test_every_signal_to_edashims_pid_alone_reaches_the_tool_once_with_the_same_status() {
  setup_fault
  check_matrix pid
}

test_every_signal_to_the_process_group_reaches_the_tool_once_with_the_same_status() {
  setup_fault
  check_matrix group
}

test_inherited_ignored_sigchld_does_not_hide_the_tools_status() {
  # A parent that ignores SIGCHLD passes that on through exec; a waiting parent then gets no
  # status at all (ECHILD) unless it catches SIGCHLD while it waits. The tool inherits it too.
  rc=0; python3 -c 'import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execvp(sys.argv[1], sys.argv[1:])' \
    mytool exit 5 || rc=$?
  expect_eq "$rc" 5 "the tool's status reaches the shell"
  expect_eq "$(last_log "$LOG" 'j["exit_code"]')" 5 "and the log"
}

test_pid_then_group_from_one_sender_is_relayed_once() {
  # What timeout(1) does: the pid, then the group, within microseconds.
  setup_fault
  for s in TERM INT HUP USR1; do
    setsid ftool catch "$(kill -l $s)" "$SB/c.$s" &
    local pid=$!
    wait_for "$SB/c.$s" ready
    kill -s $s "$pid"; kill -s $s -- "-$pid"
    wait "$pid" || true
    expect_eq "$(cat "$SB/c.$s")" "count 1" "$s pid+group pair"
  done
  # And timeout(1) itself.
  rc=0; timeout -s USR1 1 ftool catch "$(kill -l USR1)" "$SB/c.timeout" || rc=$?
  expect_eq "$(cat "$SB/c.timeout")" "count 1" "timeout -s USR1"
  expect_eq "$rc" 124 "timeout's status"
}

test_tool_killed_with_sigkill_gives_137_like_without_edashim() {
  for mode in plain shim; do
    if [[ $mode == plain ]]; then EDASHIM=off mytool pidfile "$SB/p.$mode" 30 & else mytool pidfile "$SB/p.$mode" 30 & fi
    local pid=$!
    wait_for "$SB/p.$mode" '[0-9]'
    kill -KILL "$(cat "$SB/p.$mode")"
    rc=0; wait "$pid" || rc=$?
    expect_eq "$rc" 137 "$mode: SIGKILL to the tool"
  done
  expect_eq "$(last_log "$LOG" 'j["signal"], j["status"]')" "9 137" "logged"
}

test_tool_ignoring_sigterm_to_pid_or_group_finishes_with_its_own_status() {
  for way in pid group; do
    setsid mytool ignore-term "$SB/r.$way" 1 &
    local pid=$!
    wait_for "$SB/r.$way" ready
    if [[ $way == pid ]]; then kill -TERM "$pid"; else kill -TERM -- "-$pid"; fi
    rc=0; wait "$pid" || rc=$?
    expect_eq "$rc" 5 "SIGTERM to the $way, ignored by the tool"
  done
}

test_tool_that_forks_a_daemon_returns_at_once_and_the_daemon_lives_on() {
  setup_fault
  rc=0; timeout 10 ftool daemon "$SB/d" || rc=$?
  expect_eq "$rc" 7 "the tool's status, without waiting for the daemon"
  wait_for "$SB/d" '[0-9]'
  local daemon; daemon=$(cat "$SB/d")
  sleep 0.3
  kill -0 "$daemon" 2>/dev/null || fail "the daemon $daemon was killed with the tool"
  kill "$daemon"
  expect_eq "$(last_log "$LOG" 'j["exit_code"]')" 7 "logged"
}

test_stdin_from_a_pipe() {
  setup_fault
  rc=0; out=$(printf 'hello\n' | ftool readline) || rc=$?
  expect_eq "$out" $'reading\ngot: hello tty=0' "the tool read the pipe"
  expect_eq "$rc" 3 "status"
  rc=0; out=$(ftool readline < /dev/null) || rc=$?
  expect_eq "$out" $'reading\ngot: (eof) tty=0' "EOF"
}

test_stop_and_continue_without_a_terminal() {
  # kill -TSTP to edashim alone is relayed: the tool stops (it would without edashim), and
  # kill -CONT to edashim lets it finish.
  setsid mytool sleep 1.5 &
  local pid=$!
  local tool=""
  for _ in $(seq 100); do tool=$(pgrep -P "$pid" || true); [ -n "$tool" ] && break; sleep 0.05; done
  [ -n "$tool" ] || fail "no tool process under edashim $pid"
  kill -TSTP "$pid"
  local state=""
  for _ in $(seq 100); do state=$(awk '{print $3}' "/proc/$tool/stat"); [ "$state" = T ] && break; sleep 0.05; done
  expect_eq "$state" T "the tool stopped"
  sleep 2  # longer than the tool's own sleep: it must not finish while stopped
  kill -0 "$tool" 2>/dev/null || fail "the tool finished while stopped"
  kill -CONT "$pid"
  rc=0; wait "$pid" || rc=$?
  expect_eq "$rc" 0 "finished after SIGCONT"
}

test_sigkilled_edashim_takes_the_tool_and_the_next_run_sweeps_its_scratch() {
  printf 'scratch = true\nscratch_min_free_mb = 0\n' > .edashim.toml
  # A tmpfs base of this test's own: edashim runs of other suites running in parallel sweep
  # /dev/shm itself and would remove the dead run's directory before this test looks.
  local base; base=$(mktemp -d /dev/shm/edashim-e2e-base-XXXXXX)
  export EDASHIM_SCRATCH_BASES=$base
  mytool pidfile "$SB/p" 30 &
  local pid=$!
  wait_for "$SB/p" '[0-9]'
  local tool; tool=$(cat "$SB/p")
  local scratch; scratch=$(tr '\0' '\n' < "/proc/$tool/environ" | sed -n 's/^TMPDIR=//p')
  expect_contains "$scratch" "/edashim-$(id -u)-$pid-" "the tool runs in edashim's scratch"
  [ -d "$scratch" ] || fail "no scratch directory $scratch"
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$tool" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$tool" 2>/dev/null && fail "tool $tool still running after edashim was killed"
  [ -d "$scratch" ] || fail "the scratch should be left behind by a SIGKILLed edashim (test premise)"
  mytool exit 0
  [ ! -e "$scratch" ] || fail "the next run did not remove the dead run's scratch $scratch"
  unset EDASHIM_SCRATCH_BASES
  rmdir "$base"
}

# --- With a terminal (tmux): the tool shares edashim's process group and the terminal. ---

tmux_start() {
  command -v tmux >/dev/null || skip "tmux not installed"
  TSOCK=$SB/tmux.sock
  TERM=xterm tmux -S "$TSOCK" -f /dev/null new-session -d -x 160 -y 40 \
    "env PS1='$ ' PATH='$PATH' HOME='$HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' bash --norc --noprofile -i"
  trap 'tmux -S "$TSOCK" kill-server 2>/dev/null || true' EXIT  # each test runs in a subshell
  tsend "cd '$SB/work'; ulimit -c 0" Enter
}
tsend() { tmux -S "$TSOCK" send-keys "$@"; }
# A blank screen and history, so that what is waited for next cannot be an old line.
tclear() {
  tsend 'clear' Enter
  sleep 0.3
  tmux -S "$TSOCK" clear-history
}
pane() { tmux -S "$TSOCK" capture-pane -p -S -100; }
wait_pane() {
  for _ in $(seq 200); do pane | grep -q -- "$1" && return 0; sleep 0.05; done
  pane >&2
  fail "timed out waiting for '$1' on the terminal"
}

test_terminal_stdin_and_ctrl_c_reach_the_tool_once() {
  setup_fault
  tmux_start || return 0
  tsend 'ftool readline; echo "rc1=$?"' Enter
  wait_pane '^reading'
  tsend 'typed on the terminal' Enter
  wait_pane '^rc1=[0-9]'
  expect_contains "$(pane)" "got: typed on the terminal tty=1" "the tool read the terminal"
  expect_contains "$(pane)" "rc1=3" "status"
  for mode in plain shim; do
    local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off "
    tclear
    tsend "${pre}ftool catch 2 $SB/int.$mode" Enter
    wait_for "$SB/int.$mode" ready
    tsend C-c
    wait_for "$SB/int.$mode" count
    sleep 0.3
    tsend "echo \"rc.$mode=\$?\"" Enter  # bash drops the rest of a list after a Ctrl-C
    wait_pane "^rc.$mode=[0-9]"
    expect_eq "$(cat "$SB/int.$mode")" "count 1" "$mode: Ctrl-C reached the tool once"
    expect_eq "$(pane | sed -n "s/^rc.$mode=//p")" 130 "$mode: Ctrl-C status, as without edashim"
  done
}

test_ctrl_z_then_fg_in_an_interactive_shell() {
  setup_fault
  tmux_start || return 0
  for mode in plain shim; do
    local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off "
    tclear
    tsend "${pre}ftool readline" Enter
    wait_pane '^reading'
    tsend C-z
    wait_pane 'Stopped'
    # The whole job is stopped: edashim and the tool (or the tool alone, without edashim).
    local n=0
    for p in $(pgrep -f "^ftool readline$"); do
      expect_eq "$(awk '{print $3}' "/proc/$p/stat")" T "$mode: process $p stopped"
      n=$((n + 1))
    done
    expect_eq "$n" "$([[ $mode == plain ]] && echo 1 || echo 2)" "$mode: processes in the job"
    tsend 'fg' Enter
    sleep 0.3
    tsend "after fg $mode" Enter
    wait_pane "^got: after fg $mode tty=1"
    tsend 'echo "rc=$?"' Enter
    wait_pane '^rc=[0-9]'
    expect_eq "$(pane | sed -n 's/^rc=//p')" 3 "$mode: status after stop and continue"
  done
}

run_suite "$@"
