#!/usr/bin/env bash
# Exec in place (issues 37, 46): edashim becomes the tool, so whatever a caller does to the pid
# it started reaches the tool, and nothing of edashim's runs beside it: the tool's own process
# writes the log line at its normal end, in the log before the caller's wait returns. Each transparency check is made on the
# direct run too (the shim directory off PATH), and each way a process can end is checked in
# the log line: status, and the figures, or null where nobody can know them.
source "$(dirname "$0")/lib.sh"
DEFAULT_NOTICES=1  # the default route of edashim's words (lib.sh): this suite compares runs with direct ones

EXIT=${EXIT_TOOL:?EXIT_TOOL: path to exit_tool}
FAULT=${FAULT_TOOL:?FAULT_TOOL: path to fault_tool}

direct() { PATH=$SB/real:/usr/local/bin:/usr/bin:/bin "$@"; }



# Of the pids given, those of this sandbox's runs (their HOME), one a line.
ours() {
  local p
  for p in "$@"; do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "HOME=$HOME" && echo "$p"
  done
  true
}

# The standard "kill the whole tree on timeout": Popen(start_new_session=True) of a yosys whose
# child sleeps, killpg of the new session's group, then: is the tool's child gone?
write_tree_py() {
  cat > "$SB/tree.py" <<'PY'
import os, signal, subprocess, sys, time
tag = sys.argv[1]
p = subprocess.Popen(["yosys", "-q", "-p", "!sleep %s; echo child-finished" % tag], start_new_session=True,
                     stdout=subprocess.DEVNULL)
def session_members():
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.getsid(int(d)) == p.pid:
                    out.append(int(d))
            except OSError:
                pass
    return out
def sleeper():
    for pid in session_members():
        try:
            if open("/proc/%d/cmdline" % pid, "rb").read().split(b"\0")[:2] == [b"sleep", tag.encode()]:
                return pid
        except OSError:
            pass
for _ in range(400):
    if sleeper():
        break
    time.sleep(0.05)
else:
    sys.exit("the tool's child never started")
os.killpg(os.getpgid(p.pid), signal.SIGTERM)
p.wait()
for _ in range(100):
    if not sleeper():
        print("child gone")
        break
    time.sleep(0.05)
else:
    print("child left")
    os.kill(sleeper(), signal.SIGKILL)
PY
}

test_killpg_of_a_new_session_kills_the_tools_children_as_directly() {
  # The usual "kill the whole tree on timeout": a new session for the tool, then killpg. Directly
  # yosys' `!sleep` child dies with it; the supervising launcher left the tool in a group of its
  # own and the child lived on.
  need_yosys
  write_tree_py
  expect_eq "$(direct python3 "$SB/tree.py" 41.$RANDOM)" "child gone" "directly (the test itself)"
  expect_eq "$(python3 "$SB/tree.py" 41.$RANDOM)" "child gone" "through edashim"
}

test_renice_taskset_and_prlimit_on_the_pid_reach_the_tool() {
  [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs to see taskset's effect"
  command -v prlimit > /dev/null || skip "prlimit is not installed (util-linux)"
  # A tool that reports what it runs with once told to.
  printf '#!/bin/sh\nwhile [ ! -e "$1" ]; do sleep 0.02; done\necho "nice=$(nice) cpus=$(nproc) nofile=$(ulimit -n)"\n' \
    > "$SB/real/reporter"
  chmod +x "$SB/real/reporter"
  shim reporter
  trap 'touch "$SB/go"' EXIT  # a failed check leaves no reporter waiting
  for mode in direct shim; do
    rm -f "$SB/go"
    # A simple command in the background: $! is the process that runs it.
    if [[ $mode == direct ]]; then PATH=$SB/real:/usr/bin:/bin reporter "$SB/go" > "$SB/out.$mode" &
    else reporter "$SB/go" > "$SB/out.$mode" & fi
    local pid=$!
    wait_exe "$pid" /usr/bin/dash
    expect_eq "$(ps -o comm= -p "$pid")" reporter "$mode: ps -o comm= names the tool"
    renice -n 15 -p "$pid" > /dev/null
    taskset -pc 0 "$pid" > /dev/null
    prlimit --pid "$pid" --nofile=100:100
    touch "$SB/go"
    wait "$pid"
  done
  expect_eq "$(cat "$SB/out.direct")" "nice=15 cpus=1 nofile=100" "directly (the test itself)"
  expect_eq "$(cat "$SB/out.shim")" "$(cat "$SB/out.direct")" "through edashim"
}

test_the_pid_is_the_tool_for_pgrep_pidof_ps_gdb_and_perf() {
  need_yosys
  # Its output elsewhere: yosys' child outlives a SIGTERM to yosys and must not hold ctest's pipe.
  yosys -q -p '!sleep 30' > /dev/null 2>&1 &
  pid=$!
  trap 'kill ${pid:-} $(ours $(pgrep -x sleep)) 2>/dev/null || true' EXIT
  wait_exe "$pid" "$YOSYS"
  # Tests run side by side (ctest -j2, the same session): only this sandbox's processes count.
  expect_eq "$(ours $(pgrep -x yosys) | tr '\n' ' ')" "$pid " "pgrep -x yosys: one process, the tool"
  expect_eq "$(ours $(pidof yosys) | tr '\n' ' ')" "$pid " "pidof yosys: the tool"
  local rss; rss=$(ps -o rss= -p "$pid" | tr -d ' ')
  expect_eq "$rss" "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")" "ps -o rss= is the tool's"
  [ "$rss" -gt 8000 ] || fail "ps -o rss=: $rss kB, not yosys' (edashim's own is a few MB)"
  command -v gdb > /dev/null || skip "gdb is not installed"
  local exe; exe=$(gdb -batch -p "$pid" -ex 'info proc exe' 2>/dev/null | sed -n "s/^exe = '\(.*\)'/\1/p")
  expect_eq "$exe" "$YOSYS" "gdb -p \$! is attached to yosys"
  kill "$pid" $(ours $(pgrep -x sleep))
  wait "$pid" || true
  # perf samples a process that runs: a tool that spins.
  if command -v perf > /dev/null; then
    printf '#!/bin/sh\nwhile :; do :; done\n' > "$SB/real/spin"
    chmod +x "$SB/real/spin"
    shim spin
    spin &
    pid=$!
    wait_exe "$pid" /usr/bin/dash
    perf record -q -e cpu-clock -p "$pid" -o "$SB/perf.data" -- sleep 0.3 2> /dev/null
    expect_eq "$(perf script -i "$SB/perf.data" -F pid 2>/dev/null | tr -d ' ' | sort -u)" "$pid" \
      "perf record -p \$! records the tool"
    kill "$pid"
    wait "$pid" || true
  else
    echo "    (perf not installed: the perf check is left out; Debian: apt-get install linux-perf)"
  fi
}

test_each_way_of_ending_gives_its_status_and_figures_in_the_line() {
  setup_exit_tool
  local way want rc
  # Normal exits: the status, and the figures the tool's process told (0.2 s of CPU, 40 MiB).
  for way in "main-returns 3" "exit 4" "_exit 5" "thread-exit 6" "exec-self 7"; do
    local direct_out; direct_out=$(direct etool $way) || true
    rc=0; out=$(etool $way) || rc=$?
    want=${way#* }
    expect_eq "$rc" "$want" "$way: the caller's status"
    expect_eq "$out" "$direct_out" "$way: what stdio held at the end is written or dropped as directly"
    expect_eq "$(line_fields 'exit_code signal status')" "$want None $want" "$way: the line's status"
    last_log "$LOG" 'j["user_s"] + j["sys_s"] >= 0.15 and j["max_rss_kb"] >= 40000 and j["wall_s"] >= 0.15' |
      grep -qx True || fail "$way: figures $(line_fields 'wall_s user_s sys_s max_rss_kb')"
  done
  rc=0; etool exec "$SB/real/mytool" exit 8 || rc=$?
  expect_eq "$rc $(line_fields 'exit_code status')" "8 8 8" "a tool that execs another program"
  # Deaths by a signal: nothing of edashim's outlives the tool, so nobody is told how it ended.
  # The next sweep (report's, here) completes the line: it ended without a word, status and
  # figures null, never made up.
  local ended="without a word (killed by a signal, or crashed) None None None None"
  for way in segv "kill-self 9" "kill-self 15"; do
    rc=0; (etool $way) 2> /dev/null || rc=$?
    want=$([[ $way == segv ]] && echo 11 || echo "${way#* }")
    expect_eq "$rc" $((128 + want)) "$way: the caller's status"
    "$BIN" report > /dev/null
    expect_eq "$(line_fields 'ended status signal user_s max_rss_kb')" "$ended" "$way: the line"
  done
  # SIGKILL, SIGTERM and SIGINT from the caller, to the pid it started.
  for sig in KILL TERM INT; do
    # A background job starts with SIGINT ignored (bash): the default back, as at a terminal.
    python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp("etool", sys.argv[1:])' \
      etool hold 30 &
    local pid=$!
    wait_exe "$pid" "$SB/real/etool"
    kill -"$sig" "$pid"
    rc=0; wait "$pid" || rc=$?
    want=$(kill -l "$sig")
    expect_eq "$rc" $((128 + want)) "kill -$sig \$!: the caller's status"
    "$BIN" report > /dev/null
    expect_eq "$(line_fields 'ended status signal user_s max_rss_kb')" "$ended" "kill -$sig \$!: the line"
    expect_eq "$(line_fields 'tool_pid pid')" "$pid $pid" "kill -$sig \$!: the run's pid"
  done
  # report counts them apart; explain names the last.
  expect_contains "$("$BIN" report 2>&1)" "6 runs in $LOG ended without a word (killed by a signal, or crashed)" "report"
  expect_contains "$("$BIN" explain etool)" "ended without a word (killed by a signal, or crashed)" "explain"
}


test_a_daemonizing_tool_returns_at_once_with_its_line_written() {
  setup_exit_tool
  printf 'scratch = true\n' > .edashim.toml
  rc=0; etool daemon "$SB/daemon.pid" || rc=$?
  expect_eq "$rc" 0 "the tool's status"
  expect_eq "$(line_fields 'exit_code status scratch_left_in_use')" "0 0 True" "its line, at once: the daemon holds the scratch"
  last_log "$LOG" 'j["pid"] == j["tool_pid"]' | grep -qx True || fail "the line's pid is not the tool's: $(line_fields 'pid tool_pid')"
  wait_for "$SB/daemon.pid" '[0-9]'
  local d; d=$(cat "$SB/daemon.pid")
  kill -0 "$d" || fail "the daemon did not live on"
  kill "$d"
}

test_wait_for_any_child_sees_only_the_tools_own() {
  setup_exit_tool
  expect_eq "$(direct etool wait-all)" $'reaped mine\nchildren 1' "directly (the test itself)"
  expect_eq "$(etool wait-all)" $'reaped mine\nchildren 1' "through edashim: no child of edashim's"
  # The run is finished by its own process, not by the child it forked and reaped (status 3).
  expect_eq "$(line_fields 'status')" 0 "the line is the tool's own"
}

test_command_substitution_ends_with_the_tool() {
  # Nothing of edashim's holds the substitution's pipe once the tool has ended, however it ended.
  setup_exit_tool
  local start=$SECONDS
  out=$(etool kill-self 9 2>&1) || true
  [ $((SECONDS - start)) -le 1 ] || fail "\$(tool) took $((SECONDS - start)) s"
  need_yosys
  start=$SECONDS
  expect_contains "$(yosys -V)" "Yosys" "\$(yosys -V)"
  [ $((SECONDS - start)) -le 2 ] || fail "\$(yosys -V) took $((SECONDS - start)) s"
}

test_two_hundred_runs_leave_a_line_each_before_returning_and_no_process_of_edashims() {
  setup_exit_tool
  local i
  for i in $(seq 200); do
    etool wait-all > /dev/null
    # Read right after the run returned: the line is there already (written by the tool's process).
    [ "$(wc -l < "$LOG")" -eq "$i" ] || fail "run $i: $(wc -l < "$LOG") lines when it returned"
  done
  # No process of edashim's is left (one would have the sandbox's working directory).
  local left
  left=$(for p in $(pgrep -x edashim; pgrep -x edashim-finish); do if [[ "$(readlink "/proc/$p/cwd")" == "$SB"* ]]; then echo "$p"; fi; done)
  expect_eq "$left" "" "no process of edashim's left"
}

test_the_line_is_in_the_log_when_the_callers_wait_returns_even_behind_the_logs_lock() {
  # Another run holds the log's lock for 0.5 s: this run's end waits for it, and its line is in
  # the log as soon as the caller's wait returns (the lock's holder has let go by then).
  setup_exit_tool
  etool main-returns 0 > /dev/null  # the log exists
  flock -x "$LOG" sh -c 'echo held > "$1/held"; sleep 0.5; : > "$1/released"' sh "$SB" &
  local holder=$!
  wait_for "$SB/held" held
  rc=0; etool main-returns 4 > /dev/null || rc=$?
  [ -e "$SB/released" ] || fail "the run returned before the log's lock was let go"
  expect_eq "$rc $(wc -l < "$LOG") $(line_fields 'status')" "4 2 4" "the run's status, and its line there at once"
  wait "$holder"
}

test_the_tools_own_process_writes_its_line_and_starts_no_program() {
  # The end of a run starts no program (probe/finish_here.h): a tool under a filter that refuses
  # every exec by then still has its whole line, and leaves nothing for a sweep to complete.
  setup_exit_tool
  rc=0; etool no-exec 3 > /dev/null 2> "$SB/err" || rc=$?
  [ "$rc" != 77 ] || skip "$(cat "$SB/err")"
  expect_eq "$rc" 3 "the status"
  expect_eq "$(line_fields 'exit_code signal status allocator_verified')" "3 None 3 True" "the line, whole"
  last_log "$LOG" '"ended" not in j and j["user_s"] + j["sys_s"] >= 0.15 and j["max_rss_kb"] >= 40000 and j["wall_s"] >= 0.15' |
    grep -qx True || fail "figures $(line_fields 'wall_s user_s sys_s max_rss_kb')"
  "$BIN" report > /dev/null
  expect_eq "$(wc -l < "$LOG")" 1 "one line after a sweep: no record was left"
  # A log due for rotation is left to edashim-finish, which rotates it: one line each, no more,
  # and what stdio held at the end written (exit) or dropped (_exit) as directly.
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'log_max_mb = 0.001\nlog_keep = 2\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  local way code direct_out out
  for way in "exit 4" "_exit 5"; do
    code=${way#* }
    direct_out=$(direct etool $way) || true
    rc=0; out=$(etool $way) || rc=$?
    expect_eq "$out" "$direct_out" "$way, by edashim-finish: what stdio held at the end"
    expect_eq "$rc $(wc -l < "$LOG") $(line_fields 'status')" "$code 1 $code" "$way: its line, after a rotation"
  done
  expect_eq "$(cat "$LOG.1" "$LOG.2" | wc -l)" 2 "the lines rotated away, each once"
}

test_a_log_replaced_while_the_tool_runs_is_not_written_by_its_end() {
  # The tool's end appends only to the log edashim checked before the exec: one put in its place
  # meanwhile (here writable by others, which the owned-file rule refuses) is left as it is.
  setup_exit_tool
  etool main-returns 0 > /dev/null  # the log exists
  # Its words on any stderr (pipeline/notices.hpp): the line that could not be written cannot keep them.
  EDASHIM_NOTICES=stderr etool exec /bin/sh -c 'echo started > started; while [ ! -e go ]; do sleep 0.05; done; exit 6' 2> "$SB/err" &
  local pid=$!
  wait_for "$SB/work/started" started
  mv "$LOG" "$LOG.mine"
  printf 'planted\n' > "$LOG"
  chmod 666 "$LOG"
  : > go
  rc=0; wait "$pid" || rc=$?
  expect_eq "$rc" 6 "the status"
  expect_eq "$(cat "$LOG")" "planted" "the file put in the log's place"
  expect_eq "$(wc -l < "$LOG.mine")" 1 "the log that was moved away"
  expect_contains "$(cat "$SB/err")" "run log not written" "what stderr says"
}

test_a_failed_exec_leaves_one_line_and_nothing_of_edashims() {
  # A #! naming a missing interpreter: the exec fails in edashim's process (127, as a shell says).
  printf '#!/nonexistent/interpreter\n' > "$SB/real/broken"
  chmod +x "$SB/real/broken"
  shim broken
  local direct_rc=0; (PATH=$SB/real:/usr/bin:/bin broken) 2> /dev/null || direct_rc=$?
  rc=0; err=$(broken 2>&1) || rc=$?
  expect_eq "$rc" "$direct_rc" "the status, as directly"
  expect_contains "$err" "broken" "one line says which"
  expect_eq "$(grep -c '"tool":"broken"' "$LOG")" 1 "exactly one line"
  expect_eq "$(line_fields 'status')" "$direct_rc" "the line's status"
  local left
  left=$(for p in $(pgrep -x edashim; pgrep -x edashim-finish); do if [[ "$(readlink "/proc/$p/cwd")" == "$SB"* ]]; then echo "$p"; fi; done)
  expect_eq "$left" "" "no process of edashim's left"
  expect_eq "$(find "$SB" -name 'core*' | wc -l)" 0 "no core file"
  # Its private directory is gone too: nothing is left for a sweep to call a run without a word.
  "$BIN" report > /dev/null 2>&1
  expect_eq "$(grep -c '"tool":"broken"' "$LOG")" 1 "still one line after a sweep"
}

test_explain_and_doctor_say_how_the_tool_will_run() {
  expect_contains "$("$BIN" explain mytool)" "run mode           exec in place: the tool takes edashim's process" "explain: the default"
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'supervise = true\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  expect_contains "$("$BIN" explain mytool)" "run mode           supervised (supervise = true, $XDG_CONFIG_HOME/edashim/config.toml:1)" \
    "explain: supervise = true"
  # The supervised run: edashim is the tool's parent.
  setup_fault
  expect_contains "$(bash -c 'ftool observe; :')" "parent edashim" "supervise = true: edashim waits"
  expect_contains "$("$BIN" doctor 2>&1 || true)" "tools run in edashim's place, nothing of edashim's beside them" "doctor"
}

setup_fault() {
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
}

# Slurm: the step's end kills what is left of its processes; the line of a tool that exits
# normally never depends on a process that outlives it.
test_srun_and_a_batch_step_leave_their_lines() {
  need_yosys
  need_slurm
  rc=0; srun -N1 -n1 yosys -q -p 'read_verilog '"$SRC"'/examples/counter/counter.v; synth -top counter' || rc=$?
  expect_eq "$rc" 0 "srun yosys"
  expect_eq "$(line_fields 'tool exit_code status')" "yosys 0 0" "srun: its line, when srun returned"
  last_log "$LOG" 'j["pid"] == j["tool_pid"]' | grep -qx True || fail "srun: yosys ran beside edashim: $(line_fields 'pid tool_pid')"
  last_log "$LOG" 'j["user_s"] > 0 and j["max_rss_kb"] > 8000' | grep -qx True || fail "srun: figures $(line_fields 'user_s max_rss_kb')"
  printf '#!/bin/bash\nyosys -q -p "read_verilog %s/examples/counter/counter.v; synth -top counter"\necho batch-done rc=$?\n' \
    "$SRC" > "$SB/job.sh"
  local job; job=$(sbatch --parsable -o "$SB/job.out" "$SB/job.sh")
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.1
  done
  expect_eq "$(cat "$SB/job.out")" "batch-done rc=0" "the batch step ran"
  # yosys' own line is the last of its run's (yosys-abc's, routed, come before it).
  expect_eq "$(grep -c '"tool":"yosys"' "$LOG")" 2 "a line of yosys' each"
  expect_eq "$(line_fields 'tool exit_code status')" "yosys 0 0" "the batch step's line"
}

run_suite "$@"
