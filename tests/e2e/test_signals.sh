#!/usr/bin/env bash
# Signals and exits as a matrix (issue 6). For every catchable signal, sent to edashim's pid
# alone (kill, timeout(1)) and to its whole process group: the tool receives it exactly once
# and the status the shell sees is the status without edashim (EDASHIM=off: the tool itself in
# the same place). Then the special cases: SIGKILL, a tool ignoring SIGTERM, a daemon, stdin
# from a pipe and from a terminal, stop and continue (with and without a terminal, tmux), and
# edashim itself SIGKILLed.
source "$(dirname "$0")/lib.sh"
DEFAULT_NOTICES=1  # the default route of edashim's words (lib.sh): this suite compares runs with direct ones
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
    [[ $pcount == 1 ]] || { note_fail "$s to the $way without edashim: count $pcount (the test itself is wrong)"; bad=1; }
    [[ $count == 1 ]] || { note_fail "$s to the $way: the tool received it $count times"; bad=1; }
    [[ $rc == "$prc" ]] || { note_fail "$s to the $way: status $rc, without edashim $prc"; bad=1; }
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

test_signals_the_caller_ignores_are_ignored_in_the_tool() {
  # nohup and `trap '' SIG` make a tool survive a hangup only through the SIG_IGN that exec
  # keeps: the tool must start with the same signals ignored as directly. (Supervised, edashim
  # handles them itself and its launcher must set SIG_IGN again before the tool's exec.)
  local want got
  want=$(nohup "$SB/real/mytool" ignored </dev/null)
  expect_contains " $want" " 1 " "nohup directly: SIGHUP ignored (the test itself)"
  got=$(nohup mytool ignored </dev/null)
  expect_eq "$got" "$want" "under nohup, the tool's ignored signals"
  want=$(trap '' HUP USR1 TERM; "$SB/real/mytool" ignored)
  for n in 1 10 15; do expect_contains " $want" " $n " "trap '' HUP USR1 TERM directly: $n ignored (the test itself)"; done
  got=$(trap '' HUP USR1 TERM; mytool ignored)
  expect_eq "$got" "$want" "under trap '' HUP USR1 TERM, the tool's ignored signals"
}

test_pid_then_group_from_one_sender_is_relayed_once() {
  # What timeout(1) sends: the pid, then the group, microseconds apart. Without edashim the tool
  # mostly takes the two as one (the second arrives while the first is pending); through edashim,
  # the second copy arrives at edashim while it relays the first and is merged with it (issue 13
  # item 1: by sender, not by a time window). Three times per signal, both ways.
  # Directly, the pair reaches the tool twice now and then when the machine is loaded (the tool's
  # handler runs between the two kills): measured 2 in 40 from a C sender, and seen with
  # timeout(1) itself during a parallel build. So the rule compared is "no more doubles than
  # directly" (with a margin of two in twelve), which a relay without the merge fails every time.
  setup_fault
  local plain_twice=0 shim_twice=0
  for mode in plain shim; do
    local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off"
    for s in TERM INT HUP USR1; do
      for i in 1 2 3; do
        rc=0; env $pre timeout -s $s 0.2 ftool count "$(kill -l $s)" "$SB/c.$mode.$s.$i" 0.5 || rc=$?
        local got; got=$(cut -d' ' -f1,2 "$SB/c.$mode.$s.$i")
        case $got in
          "count 1") ;;
          "count 2") if [[ $mode == plain ]]; then plain_twice=$((plain_twice + 1)); else shim_twice=$((shim_twice + 1)); fi ;;
          *) expect_eq "$got" "count 1" "$mode: timeout -s $s, try $i" ;;
        esac
        expect_eq "$rc" 124 "$mode: timeout's status"
      done
    done
  done
  expect_eq "$((shim_twice <= plain_twice + 2))" 1 \
    "through edashim the pair reached the tool twice in $shim_twice of 12 tries, directly in $plain_twice"
}

# count_deliveries MODE SIG FILE SENDER...: runs `ftool count SIG FILE 1` (plain or through
# edashim) in a session of its own, runs SENDER... with the pid appended once it is ready, and
# leaves in FILE what the tool counted: "count N values V,...".
count_deliveries() {
  local mode=$1 sig=$2 file=$3; shift 3
  if [[ $mode == plain ]]; then EDASHIM=off setsid ftool count "$sig" "$file" 1 & else setsid ftool count "$sig" "$file" 1 & fi
  local pid=$!
  wait_for "$file" ready
  "$@" "$pid"
  wait "$pid"
}
five_kills() { local sig=$1 pid=$2; for _ in 1 2 3 4 5; do kill -s "$sig" "$pid"; sleep 0.02; done; }
five_queued() { "$FAULT" sigqueue "$2" "$(kill -l "$1")" 100 5; }

test_repeated_signals_each_reach_the_tool_as_without_edashim() {
  # Issue 13 item 1: five kill(pid, SIGUSR1) 20 ms apart reached the tool once (a 50 ms
  # duplicate filter), five sigqueue(pid, SIGRTMIN+1, value) once, with the value 0.
  setup_fault
  for mode in plain shim; do
    count_deliveries "$mode" "$(kill -l USR1)" "$SB/usr1.$mode" five_kills USR1
    count_deliveries "$mode" "$(kill -l RTMIN+1)" "$SB/rt.$mode" five_queued RTMIN+1
    count_deliveries "$mode" "$(kill -l RTMIN)" "$SB/rtkill.$mode" five_kills RTMIN
    count_deliveries "$mode" "$(kill -l USR2)" "$SB/usr2q.$mode" five_queued USR2
  done
  expect_eq "$(cat "$SB/usr1.plain")" "count 5 values -1,-1,-1,-1,-1" "without edashim: five SIGUSR1 (the test itself)"
  expect_eq "$(cat "$SB/usr1.shim")" "$(cat "$SB/usr1.plain")" "five SIGUSR1 20 ms apart"
  expect_eq "$(cat "$SB/rt.plain")" "count 5 values 100,101,102,103,104" "without edashim: five queued (the test itself)"
  expect_eq "$(cat "$SB/rt.shim")" "$(cat "$SB/rt.plain")" "five sigqueue(SIGRTMIN+1) with their values"
  expect_eq "$(cat "$SB/rtkill.shim")" "$(cat "$SB/rtkill.plain")" "five kill(SIGRTMIN)"
  expect_eq "$(cat "$SB/usr2q.shim")" "$(cat "$SB/usr2q.plain")" "five sigqueue(SIGUSR2) with their values"
}

test_signal_the_tool_sends_to_its_parent_reaches_the_caller() {
  # Issue 13 item 2: `kill -USR1 $PPID` from the tool went back into the tool (status 138).
  setup_fault
  for mode in plain shim; do
    local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off"
    rc=0
    env $pre bash -c 'trap "echo caller got USR1" USR1; ftool kill-parent 10; echo "rc=$?"' > "$SB/out.$mode" || rc=$?
    echo "bash rc=$rc" >> "$SB/out.$mode"
  done
  expect_eq "$(cat "$SB/out.plain")" $'alive\ncaller got USR1\nrc=0\nbash rc=0' "without edashim (the test itself)"
  expect_eq "$(cat "$SB/out.shim")" "$(cat "$SB/out.plain")" "through edashim"
  # From a descendant of the tool in a session of its own, signalling edashim: up, not down.
  # (It stays a moment: a sender already gone and reaped when edashim looks at its parents
  # cannot be told from any other, README, Transparency.)
  cat > "$SB/real/stool" <<'EOS'
#!/bin/sh
me=$PPID
setsid sh -c "kill -USR1 $me; sleep 0.2"
sleep 0.3
echo alive
EOS
  chmod +x "$SB/real/stool"
  shim stool
  out=$(bash -c 'trap "echo caller got USR1" USR1; stool; echo "rc=$?"')
  expect_eq "$out" $'alive\ncaller got USR1\nrc=0' "a signal from the tool's descendant to edashim goes up"
}

# caller.py GROUP -- CMD...: a parent that waits with WUNTRACED, as a shell with job control
# does. It starts a session of its own, then CMD in a process group of its own (GROUP=own: not
# orphaned, stop signals stop it) or in the caller's (GROUP=shared: an orphaned group, where
# the kernel discards SIGTSTP/SIGTTIN/SIGTTOU). With STOP_WITH=SIG it sends SIG to CMD's pid
# after 0.3 s. Prints "stopped SIG" for each stop it sees (and continues CMD 0.5 s later), then
# "exit STATUS" and CMD's output. When CMD has not ended after 30 s (a tool left stopped) it
# prints "hung:" and each process of its session with its state, and kills them: timeout(1)
# around it reaches none of them (a session of its own), and they would hold the pipe open
# until ctest's timeout.
write_caller() {
  cat > "$SB/caller.py" <<'EOS'
import os, signal, sys, time
os.setsid()
own = sys.argv[1] == "own"
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    if own: os.setpgid(0, 0)
    os.dup2(w, 1)
    os.execvp(sys.argv[3], sys.argv[3:])
os.close(w)
if os.environ.get("STOP_WITH"):
    time.sleep(0.3)
    os.kill(pid, int(os.environ["STOP_WITH"]))
def kill_session():
    me, seen = os.getpid(), []
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{p}/stat").read()
        except OSError:
            continue
        name, rest = stat[stat.find("(") + 1:stat.rfind(")")], stat[stat.rfind(")") + 2:].split()
        if int(p) != me and int(rest[3]) == me:
            seen.append(f"{name} {rest[0]}")
            os.kill(int(p), signal.SIGKILL)
    print("hung:", ", ".join(sorted(seen)), flush=True)
    os.waitpid(pid, 0)
    sys.exit(1)
deadline = time.monotonic() + 30
while True:
    got, st = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
    if got == 0:
        if time.monotonic() > deadline: kill_session()
        time.sleep(0.01)
        continue
    if not os.WIFSTOPPED(st): break
    print("stopped", os.WSTOPSIG(st))
    time.sleep(0.5)
    os.kill(pid, signal.SIGCONT)
print("exit", os.waitstatus_to_exitcode(st), " ".join(os.read(r, 4096).decode().split()))
EOS
}

test_tool_that_stops_itself_is_seen_stopped_by_a_waiting_parent() {
  # Issue 13 item 3: a tool that stops itself was not seen stopped by a parent waiting with
  # WUNTRACED. Each stop signal, in a group that can stop and in an orphaned one.
  setup_fault
  write_caller
  for group in own shared; do
    for s in STOP TSTP TTIN TTOU; do
      local n; n=$(kill -l $s)
      plain=$(EDASHIM=off python3 "$SB/caller.py" $group -- ftool stop-self "$n" | tr '\n' ' ')
      shimmed=$(python3 "$SB/caller.py" $group -- ftool stop-self "$n" | tr '\n' ' ')
      expect_eq "$shimmed" "$plain" "SIG$s, $group group"
    done
  done
  expect_eq "$(EDASHIM=off python3 "$SB/caller.py" own -- ftool stop-self 20 | tr '\n' ' ')" \
    "stopped 20 exit 0 stopping continued " "without edashim, SIGTSTP in a group that can stop (the test itself)"
}

test_stop_and_continue_without_a_terminal() {
  # kill -TSTP to the caller's child: the tool stops and the parent sees it stop (edashim stops
  # only once the tool has); SIGCONT to the same pid lets it finish.
  setup_fault
  write_caller
  for mode in plain shim; do
    local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off"
    out=$(env $pre STOP_WITH="$(kill -l TSTP)" python3 "$SB/caller.py" own -- mytool sleep 1 | tr '\n' ' ')
    expect_eq "$out" "stopped 20 exit 0  " "$mode: stopped, then finished"
  done
}

test_group_stop_without_a_terminal_stops_edashim_not_the_tool() {
  # The one that gives (README, Transparency): without a terminal the tool leads a group of its
  # own, so that a signal to the caller's group reaches it once; a SIGSTOP to that group then
  # stops edashim, and the tool runs on (SIGSTOP cannot be caught to be relayed). Measured here
  # so that the README's statement stays true; after the group's SIGCONT the run ends with the
  # tool's status.
  setup_fault
  for mode in plain shim; do
    if [[ $mode == plain ]]; then EDASHIM=off setsid mytool pidfile "$SB/p.$mode" 1.5 &
    else setsid mytool pidfile "$SB/p.$mode" 1.5 & fi
    local pid=$!
    wait_for "$SB/p.$mode" '[0-9]'
    local tool; tool=$(cat "$SB/p.$mode")
    kill -STOP -- "-$pid"
    sleep 0.3
    echo "$(awk '{print $3}' "/proc/$pid/stat") $(awk '{print $3}' "/proc/$tool/stat")" > "$SB/state.$mode"
    kill -CONT -- "-$pid"
    rc=0; wait "$pid" || rc=$?
    expect_eq "$rc" 0 "$mode: the tool's status after the group's SIGCONT"
  done
  expect_eq "$(cat "$SB/state.plain")" "T T" "without edashim: the tool stopped"
  local st; st=$(cat "$SB/state.shim")
  if supervised; then
    expect_eq "${st% *}" T "through edashim: edashim stopped"
    expect_eq "${st#* }" S "through edashim: the tool runs on (the documented difference)"
  else
    expect_eq "$st" "T T" "through edashim in place: the tool stopped, as directly"
  fi
}

test_tool_that_dumped_core_shows_core_dumped_to_the_caller_and_edashim_leaves_none() {
  # Issue 13 item 8: the caller's WCOREDUMP was false through edashim. With a core_pattern that
  # writes into the working directory, edashim now dies with the bit set and leaves nothing; with
  # a pipe or an absolute path it is non-dumpable (no crash of its own on record, bit false).
  local pattern relative=1; pattern=$(cat /proc/sys/kernel/core_pattern)
  [[ $pattern != '|'* && $pattern != /* ]] || relative=0
  [[ $(ulimit -Hc) == unlimited || $(ulimit -Hc) -ge 2048 ]] || skip "hard core limit $(ulimit -Hc)"
  cp "$FAULT" "$SB/real/ftool"  # not setup_fault: its `ulimit -c 0` would lower the hard limit
  shim ftool
  cat > "$SB/core.py" <<'EOS'
import os, resource, sys
limit = resource.RLIM_INFINITY if sys.argv[1] == "on" else 0
resource.setrlimit(resource.RLIMIT_CORE, (limit, resource.getrlimit(resource.RLIMIT_CORE)[1]))
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, st = os.waitpid(pid, 0)
print("signal", os.WTERMSIG(st) if os.WIFSIGNALED(st) else "-", "core", int(os.WCOREDUMP(st)), end=" ")
EOS
  local before; before=$(ls /dev/shm /tmp | grep -c '^edashim-core-' || true)
  for limit in on off; do
    for s in SEGV ABRT; do
      for mode in plain shim; do
        local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off"
        mkdir -p "$SB/w.$mode.$limit.$s"
        (cd "$SB/w.$mode.$limit.$s" && env $pre python3 "$SB/core.py" $limit ftool die "$(kill -l $s)" && ls) \
          > "$SB/r.$mode.$limit.$s"
      done
      if [ "$relative" = 1 ]; then
        expect_eq "$(cat "$SB/r.shim.$limit.$s")" "$(cat "$SB/r.plain.$limit.$s")" "SIG$s, core limit $limit"
      else
        # A pipe or absolute core_pattern (the README's documented difference): the same signal,
        # no core of edashim (non-dumpable), so the caller's core-dump bit is false.
        expect_eq "$(cat "$SB/r.shim.$limit.$s")" "signal $(kill -l $s) core 0 " "SIG$s, core limit $limit, core_pattern '$pattern'"
      fi
    done
  done
  [ "$relative" = 0 ] ||
    expect_eq "$(cat "$SB/r.plain.on.SEGV")" "signal 11 core 1 core" "without edashim: core dumped (the test itself)"
  sleep 0.5  # the detached process removes edashim's private core once edashim is gone
  expect_eq "$(ls /dev/shm /tmp | grep -c '^edashim-core-' || true)" "$before" "no private core directory left"
}

test_what_the_tool_can_observe_of_edashim_is_what_the_readme_lists() {
  # Issue 13 item 9: the README's list, checked: without a terminal, through edashim the tool's
  # parent is edashim and its parent-death signal is SIGKILL. Its process group is the one it
  # has directly (issue 25: the caller's, edashim steps aside); under setsid, where directly
  # it would lead the group, it leads one of its own.
  setup_fault
  expect_eq "$(EDASHIM=off bash -c 'ftool observe; :')" "pdeathsig 0 own_group 0 parent bash" "directly"
  expect_eq "$(EDASHIM=off setsid ftool observe)" "pdeathsig 0 own_group 1 parent bash" "directly, under setsid"
  if supervised; then
    expect_eq "$(bash -c 'ftool observe; :')" "pdeathsig 9 own_group 0 parent edashim" "through edashim"
    expect_eq "$(setsid ftool observe)" "pdeathsig 9 own_group 1 parent edashim" "through edashim, under setsid"
  else
    # In place the tool is the caller's child, as directly (docs/transparency.md).
    expect_eq "$(bash -c 'ftool observe; :')" "pdeathsig 0 own_group 0 parent bash" "through edashim"
    expect_eq "$(setsid ftool observe)" "pdeathsig 0 own_group 1 parent bash" "through edashim, under setsid"
  fi
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
  if supervised; then
    expect_eq "$(last_log "$LOG" 'j["signal"], j["status"]')" "9 137" "logged"
  else
    # In place nothing of edashim's outlives the tool: the line says it ended without a word,
    # written by the next sweep (report's, here), with no status or figure that is not the tool's.
    "$BIN" report > /dev/null
    expect_eq "$(last_log "$LOG" 'j["ended"], j["signal"], j["status"], j["wall_s"]')" \
      "without a word (killed by a signal, or crashed) None None None" "logged"
  fi
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

test_sigkilled_edashim_takes_the_tool_and_the_next_run_sweeps_its_scratch() {
  printf 'scratch = true\n' > .edashim.toml  # scratch_min_free_mb is 0 by default
  # A tmpfs base of this test's own: edashim runs of other suites running in parallel sweep
  # /dev/shm itself and would remove the dead run's directory before this test looks.
  local base; base=$(mktemp -d /dev/shm/edashim-e2e-base-XXXXXX)
  export EDASHIM_SCRATCH_BASES=$base
  mytool pidfile "$SB/p" 30 &
  local pid=$!
  wait_for "$SB/p" '[0-9]'
  local tool; tool=$(cat "$SB/p")
  local scratch; scratch=$(tr '\0' '\n' < "/proc/$tool/environ" | sed -n 's/^TMPDIR=//p')
  expect_contains "$scratch" "$base/edashim-$(id -u)/edashim-$(id -u)-$(printf %07d "$pid")-" "the tool runs in edashim's scratch"
  [ -d "$scratch" ] || fail "no scratch directory $scratch"
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$tool" 2>/dev/null || break; sleep 0.05; done
  ! kill -0 "$tool" 2>/dev/null || fail "tool $tool still running after edashim was killed"
  # Supervised, edashim is gone; in place, $! is the tool itself. Either way nobody is left to
  # remove the scratch: the next run's sweep does (in place, it also completes the killed run's line).
  supervised || expect_eq "$tool" "$pid" "in place, \$! is the tool"
  [ -d "$scratch" ] || fail "the scratch should be left behind by a SIGKILLed run (test premise)"
  mytool exit 0
  [ ! -e "$scratch" ] || fail "the next run did not remove the dead run's scratch $scratch"
  if ! supervised; then
    python3 -c 'import json,sys; print([j.get("ended") for j in map(json.loads, open(sys.argv[1])) if j["tool_pid"] == int(sys.argv[2])])' \
      "$LOG" "$pid" | grep -qF "['without a word (killed by a signal, or crashed)']" || fail "the killed run's line: $(cat "$LOG")"
  fi
  unset EDASHIM_SCRATCH_BASES
  rmdir "$base/edashim-$(id -u)" "$base"  # the user's own base in it (issue 24), then the base
}

# --- With a terminal (tmux): the tool shares edashim's process group and the terminal. ---

tmux_start() {
  command -v tmux >/dev/null || skip "tmux not installed"
  TSOCK=$SB/tmux.sock
  TERM=xterm tmux -S "$TSOCK" -f /dev/null new-session -d -x 160 -y 40 \
    "env PS1='$ ' PATH='$PATH' HOME='$HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' bash --norc --noprofile -i" ||
    skip "tmux cannot start a session here"
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
  tmux_start
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
  tmux_start
  for mode in plain shim; do
    local pre=""; [[ $mode == plain ]] && pre="EDASHIM=off "
    tclear
    tsend "${pre}ftool readline" Enter
    wait_pane '^reading'
    tsend C-z
    wait_pane 'Stopped'
    # The whole job is stopped: edashim and the tool (or the tool alone, without edashim).
    # edashim's own process is named edashim while the tool runs (issue 25).
    local n=0
    for p in $(pgrep -f "^(ftool|edash) readline$"); do
      expect_eq "$(awk '{print $3}' "/proc/$p/stat")" T "$mode: process $p stopped"
      n=$((n + 1))
    done
    # Supervised, edashim is in the job with the tool; in place, the tool alone, as directly.
    expect_eq "$n" "$([[ $mode == shim ]] && supervised && echo 2 || echo 1)" "$mode: processes in the job"
    tsend 'fg' Enter
    sleep 0.3
    tsend "after fg $mode" Enter
    wait_pane "^got: after fg $mode tty=1"
    tsend 'echo "rc=$?"' Enter
    wait_pane '^rc=[0-9]'
    expect_eq "$(pane | sed -n 's/^rc=//p')" 3 "$mode: status after stop and continue"
  done
}

test_realtime_signals_pending_together_each_reach_the_tool() {
  # Issue 27 (tests/mutants: relay-realtime-merged): real-time signals queue, so each one
  # delivered is one relayed; only a standard signal's copies are merged. Five queued while the
  # process is stopped are all pending when it continues: all five reach the tool, in order,
  # with their values (a relay that merged them passed one).
  setup_fault
  local sig; sig=$(kill -l RTMIN+1)
  for mode in plain shim; do
    local file=$SB/burst.$mode
    if [[ $mode == plain ]]; then EDASHIM=off setsid ftool count "$sig" "$file" 4 & else setsid ftool count "$sig" "$file" 4 & fi
    local pid=$!
    wait_for "$file" ready
    kill -STOP "$pid"
    wait_for "/proc/$pid/stat" ') T '
    "$FAULT" sigqueue "$pid" "$sig" 100 5 || note_fail "$mode: sigqueue to $pid failed"
    kill -CONT "$pid"
    wait "$pid"
    expect_eq "$(cat "$file")" "count 5 values 100,101,102,103,104" "$mode: five SIGRTMIN+1 queued while stopped"
  done
}

run_suite "$@"
