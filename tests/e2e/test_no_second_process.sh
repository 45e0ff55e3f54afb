#!/usr/bin/env bash
# No second process (issue 46): a tool run through edashim must need no process beside the
# tool's own, since everything around a tool can see one: a missing /proc, refused system calls,
# a cap on processes, a pid 1 that does not reap (or is the tool), a subreaper or a caller that
# blocks SIGCHLD, and anyone who lists processes. Each test compares the run through the link
# (the tool's name in $SB/shims) with the direct run (PATH without $SB/shims), on real yosys
# where the case names it. The tests that could fork without end run under a pids cgroup of
# their own (pids_cap, lib.sh), and every run that could hang is bounded with timeout.
source "$(dirname "$0")/lib.sh"
DEFAULT_NOTICES=1  # the default route of edashim's words (lib.sh): this suite compares runs with direct ones

EXIT=${EXIT_TOOL:?EXIT_TOOL: path to exit_tool}
SECCOMP=${SECCOMP_REFUSE:?SECCOMP_REFUSE: path to seccomp_refuse}

DIRECT_PATH_TAIL=/usr/local/bin:/usr/bin:/bin
direct() { PATH=$SB/real:$DIRECT_PATH_TAIL "$@"; }


need() {
  local p
  for p in "$@"; do command -v "$p" > /dev/null || skip "$p is not installed"; done
}

log_lines() { if [ -e "$LOG" ]; then wc -l < "$LOG"; else echo 0; fi; }

# The children of PID (pids as seen here), each as "PID STATE", one a line: from /proc/*/stat,
# the fields after the name's closing parenthesis (a name may hold spaces and parentheses).
children_of() {
  local f s state ppid
  for f in /proc/[0-9]*/stat; do
    read -r s 2> /dev/null < "$f" || continue
    read -r state ppid _ <<< "${s##*) }"
    [ "$ppid" = "$1" ] && echo "${f//[^0-9]/} $state"
  done
  true
}

# PID's descendants, one a line.
descendants() {
  local c
  for c in $(pgrep -P "$1"); do
    echo "$c"
    descendants "$c"
  done
}

# ---------------------------------------------------------------------------------------------
# 0. No /proc. In a mount namespace of its own with an empty tmpfs over /proc, edashim cannot
# read /proc/self/exe, which is how it knows itself on PATH: the linked yosys must end as
# directly (Debian's yosys 0.23 prints its version without /proc, but stops with an error
# before `log hi` as it reads /proc/self/exe itself), or edashim must say in one line why it
# cannot; and it must never start itself over and over (today each start leaves a watcher
# beside it: a fork without end, until the cap).

# noproc_run NAME PATH SCRIPT: runs the sh SCRIPT without /proc, PATH as given, in a pids cgroup
# of its own (a cap of 64), bounded by 30 s (a run takes well under one). Sets OUT, ERR, RC,
# PEAK, HIT (forks the cap refused).
noproc_run() {
  local g
  g=$(pids_group "$1" 64)
  pids_sample "$g"
  RC=0
  # shellcheck disable=SC2016
  timeout -s KILL 30 bash -c 'echo $$ > "$1/cgroup.procs" && PATH=$2 exec unshare -m --propagation private \
    sh -c "mount -t tmpfs none /proc && $3"' noproc "$g" "$2" "$3" > "$SB/$1.out" 2> "$SB/$1.err" || RC=$?
  OUT=$(cat "$SB/$1.out") ERR=$(cat "$SB/$1.err")
  PEAK=$(pids_peak "$g")
  HIT=$(awk '$1 == "max" {print $2}' "$g/pids.events")
}

# Through edashim, one of: the direct run's status, output and error output; or no output, a
# failure status and one line of edashim's saying why. Never the cap hit, never the timeout,
# and at most one task more at once than the direct run had. Reports every miss (note_fail).
expect_noproc_like_direct() {
  local what=$1 rc=$2 out=$3 err=$4 peak=$5
  if [[ $RC -eq 137 ]]; then
    note_fail "$what: still running after 30 s (killed; peak $PEAK tasks, $HIT forks refused by the cap of 64)" || true
  elif [[ $HIT -ne 0 ]]; then
    note_fail "$what: forked on until the cap of 64 refused $HIT forks (peak $PEAK tasks; status $RC; stderr: $(head -c 300 <<< "$ERR"))" || true
  elif [[ "$RC|$OUT|$ERR" != "$rc|$out|$err" ]] &&
       ! [[ $RC -ne 0 && -z "$OUT" && $(wc -l <<< "$ERR") -eq 1 && "$ERR" == edashim* ]]; then
    note_fail "$what: status $RC, output [$OUT], stderr [$ERR]; directly: status $rc, output [$out], stderr [$err]" || true
  fi
  [[ $PEAK -le $((peak + 1)) ]] || note_fail "$what: $PEAK tasks at once, directly $peak (at most one more: edashim's own)" || true
}

test_0_without_proc_the_tool_runs_or_edashim_says_why_and_never_forks_on() {
  need_yosys
  need unshare mount
  pids_cap 300
  mkdir "$SB/shims2"
  ln -s "$BIN" "$SB/shims2/yosys"
  local script i rc out err peak
  i=0
  for script in "exec yosys -V" "exec yosys -q -p 'log hi'"; do
    i=$((i + 1))
    noproc_run "direct-$i" "$SB/real:$DIRECT_PATH_TAIL" "$script"
    [[ $RC -ne 137 && $HIT -eq 0 ]] || fail "$script, directly (the test itself): status $RC, $HIT forks refused"
    rc=$RC out=$OUT err=$ERR peak=$PEAK
    noproc_run "shim-$i" "$PATH" "$script"
    expect_noproc_like_direct "$script through edashim" "$rc" "$out" "$err" "$peak"
    # Loop protection: another link to edashim named yosys earlier on PATH.
    noproc_run "two-links-$i" "$SB/shims2:$PATH" "$script"
    expect_noproc_like_direct "$script through two links to edashim on PATH" "$rc" "$out" "$err" "$peak"
  done
}

# ---------------------------------------------------------------------------------------------
# 1. close_range, pidfd_open and the pidfd's ioctl refused (a seccomp filter: an old kernel, a
# container's profile), with ENOSYS and with EPERM, all three at once and each alone:
# `$(yosys -V)` ends promptly with the same output and status as directly, and the run's line
# is complete. The output goes to a file, not a pipe the test reads to its end: a process that
# kept the pipe open would hang the test itself past any timeout.

# refused_run ERRNO WHICH (all, or one call: close_range, pidfd_open, pidfd_ioctl) OUT: the
# caller's script under the filter, bounded by 20 s; its status.
refused_run() {
  local only=()
  [[ $2 == all ]] || only=(--only "$2")
  # shellcheck disable=SC2016
  timeout -s KILL 20 "$SECCOMP" "$1" "${only[@]}" bash -c 'v=$(yosys -V); echo "got $v"' > "$3" 2>&1
}

test_1_refused_close_range_pidfd_open_and_pidfd_ioctl_change_nothing() {
  need_yosys
  pids_cap 300
  local err which rc_d rc_s lines start
  for err in ENOSYS EPERM; do
    for which in all close_range pidfd_open pidfd_ioctl; do
      local what="$which refused with $err"
      rc_d=0; direct refused_run "$err" "$which" "$SB/direct.out" || rc_d=$?
      [[ $rc_d -ne 77 ]] || skip "seccomp_refuse: $(cat "$SB/direct.out")"
      [[ $rc_d -eq 0 && "$(cat "$SB/direct.out")" == "got Yosys "* ]] ||
        fail "$what: directly (the test itself): status $rc_d, [$(cat "$SB/direct.out")]"
      lines=$(log_lines)
      start=$SECONDS
      rc_s=0; refused_run "$err" "$which" "$SB/shim.out" || rc_s=$?
      if [[ $rc_s -eq 137 ]]; then
        note_fail "$what: \$(yosys -V) through edashim still running after 20 s (killed; output [$(cat "$SB/shim.out")])" || true
        continue
      fi
      [ $((SECONDS - start)) -le 5 ] || note_fail "$what: \$(yosys -V) took $((SECONDS - start)) s" || true
      [[ "$rc_s $(cat "$SB/shim.out")" == "$rc_d $(cat "$SB/direct.out")" ]] ||
        note_fail "$what: through edashim: status $rc_s, [$(cat "$SB/shim.out")]; directly: status $rc_d, [$(cat "$SB/direct.out")]" || true
      for _ in $(seq 100); do
        [ "$(log_lines)" -gt "$lines" ] && break
        sleep 0.05
      done
      if [ "$(log_lines)" -gt "$lines" ]; then
        [[ "$(line_fields 'tool exit_code status')" == "yosys 0 0" ]] ||
          note_fail "$what: the run's line: tool exit_code status: $(line_fields 'tool exit_code status')" || true
      else
        note_fail "$what: no line for the run after 5 s" || true
      fi
    done
  done
}

# ---------------------------------------------------------------------------------------------
# 2. Process limits: the smallest limit under which the direct run passes, measured here, must
# let the run through edashim pass too (a second process needs one more).

counter_v() {
  cat > "$1" <<'V'
module counter(input clk, input rst, output reg [3:0] q);
  always @(posedge clk) q <= rst ? 4'd0 : q + 4'd1;
endmodule
V
}

# smallest_pids_max NAME CMD...: the smallest pids.max (1 to 40) of a fresh pids cgroup under
# which CMD, run directly, succeeds; 0 when none does.
smallest_pids_max() {
  local name=$1 n; shift
  for n in $(seq 40); do
    if direct in_pids_group "$(pids_group "$name-$n" "$n")" "$@" > "$SB/$name-$n.out" 2>&1; then
      echo "$n"
      return 0
    fi
  done
  echo 0
}

test_2_the_smallest_pids_max_the_tool_passes_under_is_enough_through_edashim() {
  need_yosys
  setup_exit_tool
  pids_cap 300
  counter_v "$SB/work/counter.v"
  local synth=(yosys -q -p "read_verilog counter.v; synth -top counter; abc")
  local n rc
  n=$(smallest_pids_max direct-yosys "${synth[@]}")
  [[ $n -gt 0 ]] || fail "directly (the test itself): yosys never passed under a pids.max up to 40: $(cat "$SB/direct-yosys-40.out")"
  echo "    (yosys synth with abc, directly: smallest pids.max $n)"
  rc=0; in_pids_group "$(pids_group "shim-yosys-$n" "$n")" "${synth[@]}" > "$SB/shim-yosys.out" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || note_fail "yosys synth with abc through edashim under pids.max $n (directly enough): status $rc: $(head -c 400 "$SB/shim-yosys.out")" || true
  # A tool that forks 3 children, all alive at once.
  n=$(smallest_pids_max direct-fork3 etool fork 3)
  [[ $n -gt 0 ]] || fail "directly (the test itself): etool fork 3 never passed: $(cat "$SB/direct-fork3-40.out")"
  echo "    (etool fork 3, directly: smallest pids.max $n)"
  rc=0; in_pids_group "$(pids_group "shim-fork3-$n" "$n")" etool fork 3 > "$SB/shim-fork3.out" 2>&1 || rc=$?
  expect_eq "$rc $(cat "$SB/shim-fork3.out")" "0 children 3" "etool fork 3 through edashim under pids.max $n (directly enough)"
}

# with_ulimit_u N CMD...: CMD as the test user (as as_victim runs it) under `ulimit -u N`,
# bounded by 120 s. The bound is root's own process (timeout as the user would count), and
# the run starts with the user idle (a process left from the last run would count too).
with_ulimit_u() {
  users_idle
  # shellcheck disable=SC2016
  (cd "$VHOME/work" && timeout -s KILL 120 /usr/sbin/runuser -u "$VICTIM" -- env -i HOME="$VHOME" \
    XDG_CONFIG_HOME="$VHOME/.config" XDG_STATE_HOME="$VHOME/.local/state" XDG_CACHE_HOME="$VHOME/.cache" \
    PATH="$PATH" LANG=C.UTF-8 bash -c 'ulimit -u "$1" && shift && exec "$@"' ulimit "$@" < /dev/null)
}

# smallest_ulimit_u NAME CMD...: the smallest `ulimit -u` (1 to 40) with which CMD, run directly
# as the test user, succeeds; 0 when none does.
smallest_ulimit_u() {
  local name=$1 n; shift
  for n in $(seq 40); do
    if direct with_ulimit_u "$n" "$@" > "$SB/$name-$n.out" 2>&1; then
      echo "$n"
      return 0
    fi
  done
  echo 0
}

test_2_the_smallest_ulimit_u_the_tool_passes_with_is_enough_through_edashim() {
  need_yosys
  setup_exit_tool
  two_users
  pids_cap 300
  counter_v "$SB/counter.v"
  chmod 0644 "$SB/counter.v"
  local synth=(yosys -q -p "read_verilog $SB/counter.v; synth -top counter; abc")
  local n rc
  # The fresh user runs nothing yet: every limit from 1 is above its current count.
  expect_eq "$(pgrep -c -u "$VICTIM" || true)" 0 "the test user's processes before the runs"
  n=$(smallest_ulimit_u direct-yosys "${synth[@]}")
  [[ $n -gt 0 ]] || fail "directly (the test itself): yosys never passed with a ulimit -u up to 40: $(cat "$SB/direct-yosys-40.out")"
  echo "    (yosys synth with abc as $VICTIM, directly: smallest ulimit -u $n)"
  rc=0; with_ulimit_u "$n" "${synth[@]}" > "$SB/shim-yosys.out" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || note_fail "yosys synth with abc through edashim with ulimit -u $n (directly enough): status $rc: $(head -c 400 "$SB/shim-yosys.out")" || true
  n=$(smallest_ulimit_u direct-fork3 etool fork 3)
  [[ $n -gt 0 ]] || fail "directly (the test itself): etool fork 3 never passed: $(cat "$SB/direct-fork3-40.out")"
  echo "    (etool fork 3 as $VICTIM, directly: smallest ulimit -u $n)"
  rc=0; with_ulimit_u "$n" etool fork 3 > "$SB/shim-fork3.out" 2>&1 || rc=$?
  expect_eq "$rc $(cat "$SB/shim-fork3.out")" "0 children 3" "etool fork 3 through edashim with ulimit -u $n (directly enough)"
}

# ---------------------------------------------------------------------------------------------
# 3. A pid 1 that never reaps (`tail -f` as a container's init): 20 runs entered into its
# namespace leave it no zombie, as directly (an orphaned watcher becomes its child).

# Starts a pid namespace whose pid 1 is `tail -f /dev/null`; sets NS_INIT, its pid as seen here.
start_non_reaping_init() {
  unshare -fp --mount-proc --kill-child tail -f /dev/null &
  local u=$!
  # unshare ignores SIGTERM while it waits; its end kills tail (--kill-child), and the namespace.
  at_exit "kill -KILL $u 2>/dev/null || true"
  NS_INIT=""
  for _ in $(seq 200); do
    NS_INIT=$(pgrep -P "$u" -x tail || true)
    [ -n "$NS_INIT" ] && break
    sleep 0.05
  done
  [ -n "$NS_INIT" ] || fail "the namespace's tail never started"
  # Its pid there is 1 (the last NSpid).
  expect_eq "$(awk '/^NSpid:/ {print $NF}' "/proc/$NS_INIT/status")" 1 "tail is the namespace's pid 1"
}

# Waits (at most 15 s) until every child of NS_INIT has ended (a zombie has), then says how
# many zombies it has and which children still run ("0 zombies, none running": as directly).
settled_children() {
  local kids running
  for _ in $(seq 300); do
    kids=$(children_of "$NS_INIT")
    running=$(awk '$2 != "Z" {printf "%s%s", sep, $1; sep = " "}' <<< "$kids")
    [ -z "$running" ] && break
    sleep 0.05
  done
  echo "$(awk '$2 == "Z"' <<< "$kids" | wc -l) zombies, ${running:-none} running"
}

test_3_a_non_reaping_pid_1_is_left_no_zombie() {
  need_yosys
  need unshare nsenter
  pids_cap 300
  start_non_reaping_init
  local i rc
  for i in $(seq 20); do
    rc=0; direct nsenter -t "$NS_INIT" -p -m yosys -V > /dev/null || rc=$?
    expect_eq "$rc" 0 "direct run $i"
  done
  expect_eq "$(settled_children)" "0 zombies, none running" "children of the non-reaping pid 1 after 20 direct runs (the test itself)"
  local lines; lines=$(log_lines)
  for i in $(seq 20); do
    rc=0; nsenter -t "$NS_INIT" -p -m yosys -V > /dev/null || rc=$?
    expect_eq "$rc" 0 "run $i through edashim"
  done
  expect_eq "$(log_lines)" $((lines + 20)) "a line each for the 20 runs through edashim"
  expect_eq "$(settled_children)" "0 zombies, none running" "children of the non-reaping pid 1 after 20 runs through edashim"
}

# ---------------------------------------------------------------------------------------------
# 4. The tool as a namespace's pid 1: it inherits no child of edashim's (waitpid(-1, WNOHANG) is
# ECHILD), and reaping all its children ends (bounded: a child that waits for the tool to end
# would make it wait for good).
test_4_the_tool_as_pid_1_has_no_child_of_edashims() {
  setup_exit_tool
  need unshare
  pids_cap 300
  local rc out
  # Its output as one line: "no child;reaped 0".
  rc=0; out=$(direct timeout -s KILL 20 unshare -fp --mount-proc --kill-child etool reap-all 2>&1) || rc=$?
  out=$(paste -sd';' <<< "$out")
  expect_eq "$rc $out" "0 no child;reaped 0" "directly (the test itself)"
  rc=0; out=$(timeout -s KILL 20 unshare -fp --mount-proc --kill-child etool reap-all 2>&1) || rc=$?
  out=$(paste -sd';' <<< "$out")
  [[ $rc -ne 137 ]] || fail "the tool as pid 1 still reaping after 20 s (killed; its output: [$out])"
  expect_eq "$rc $out" "0 no child;reaped 0" "through edashim"
}

# ---------------------------------------------------------------------------------------------
# 5. A subreaper caller (a supervisor, systemd's user manager, a CI runner): it gets one SIGCHLD
# for the tool and no further child, as directly (an orphaned watcher would be its child).
write_subreaper_py() {
  cat > "$SB/subreaper.py" <<'PY'
import ctypes, os, signal, subprocess, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER): errno %d" % ctypes.get_errno())
got = 0
def on_chld(signum, frame):
    global got
    got += 1
signal.signal(signal.SIGCHLD, on_chld)
r = subprocess.run(["yosys", "-V"], stdout=subprocess.DEVNULL)
# Until the state settles (no child left at all), at most 10 s: each child reaped is one more.
extra, running = 0, False
deadline = time.monotonic() + 10
while True:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        running = False
        break
    if pid:
        extra += 1
        continue
    running = True
    if time.monotonic() > deadline:
        break
    time.sleep(0.05)
time.sleep(0.2)  # a SIGCHLD from the last one reaped is handled
print("status %d, %d SIGCHLD, %d more child(ren)%s" % (r.returncode, got, extra, ", one still running" if running else ""))
PY
}

test_5_a_subreaper_caller_gets_one_sigchld_and_no_other_child() {
  need_yosys
  pids_cap 300
  write_subreaper_py
  expect_eq "$(direct python3 "$SB/subreaper.py")" "status 0, 1 SIGCHLD, 0 more child(ren)" "directly (the test itself)"
  expect_eq "$(python3 "$SB/subreaper.py")" "status 0, 1 SIGCHLD, 0 more child(ren)" "through edashim"
}

# ---------------------------------------------------------------------------------------------
# 6. A caller that blocks SIGCHLD (the mask is inherited across fork and exec): the tool starts
# with no signal pending, as directly (edashim reaping a process of its own before the exec
# leaves its SIGCHLD pending, and that goes on into the tool).
write_blocker_py() {
  cat > "$SB/blocker.py" <<'PY'
import os, signal, subprocess, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
if sys.argv[1] == "exec":
    os.execvp("etool", ["etool", "pending"])
sys.stdout.write(subprocess.run(["etool", "pending"], stdout=subprocess.PIPE, text=True).stdout)
PY
}

test_6_a_caller_blocking_sigchld_leaves_the_tool_no_pending_signal() {
  setup_exit_tool
  pids_cap 300
  write_blocker_py
  # The premise: a program the caller starts does run with SIGCHLD blocked (bit 17 of SigBlk).
  direct python3 - <<'PY' || fail "a child's mask does not have SIGCHLD blocked: the test would prove nothing"
import signal, subprocess, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
out = subprocess.run(["grep", "^SigBlk:", "/proc/self/status"], stdout=subprocess.PIPE, text=True).stdout
sys.exit(0 if int(out.split()[1], 16) & (1 << 16) else 1)
PY
  # One line: "SigPnd: ...; ShdPnd: ...; pending: ...;".
  local how got want='SigPnd: 0000000000000000; ShdPnd: 0000000000000000; pending: none;'
  for how in exec subprocess; do
    expect_eq "$(direct python3 "$SB/blocker.py" "$how" | tr '\t\n' ' ;' | sed 's/;/; /g; s/ $//')" "$want" "$how, directly (the test itself)"
    got=$(python3 "$SB/blocker.py" "$how" | tr '\t\n' ' ;' | sed 's/;/; /g; s/ $//')
    [[ "$got" == "$want" ]] || note_fail "$how, through edashim: expected [$want], got [$got]" || true
  done
}

# ---------------------------------------------------------------------------------------------
# 7. While the tool runs, no process of edashim's exists beside it: none that pgrep -f finds by
# the binary's path, none named edashim in the sandbox, none running edashim's binary.

# This sandbox's processes (their HOME or their working directory) other than the test's own
# shells (whose arguments name the binary), that are edashim's: by `pgrep -f BIN`, by the name
# edashim, by /proc/PID/exe. One "PID WHY" a line.
edashim_processes() {
  local real p cwd
  real=$(readlink -f "$BIN")
  for p in $( (pgrep -f -- "$BIN"; pgrep -f -- "$real"; pgrep -x edashim
               find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$real" 2>/dev/null | cut -d/ -f3) | sort -un); do
    [[ "$(readlink "/proc/$p/exe" 2>/dev/null)" != "$(readlink -f "$BASH")" ]] || continue
    cwd=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
    [[ "$cwd" == "$SB"* ]] || tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "HOME=$HOME" || continue
    if [[ "$(readlink "/proc/$p/exe" 2>/dev/null)" == "$real" ]]; then echo "$p runs $real ($(cat "/proc/$p/comm"))"
    elif [[ "$(cat "/proc/$p/comm" 2>/dev/null)" == edashim ]]; then echo "$p is named edashim"
    elif pgrep -f -- "$BIN" | grep -qx "$p"; then echo "$p matches pgrep -f $BIN"
    fi
  done
  true
}

test_7_no_process_of_edashims_exists_while_the_tool_runs() {
  setup_exit_tool
  need_yosys
  pids_cap 300
  local pid found
  etool hold 30 &
  pid=$!
  at_exit "kill $pid 2>/dev/null || true"
  wait_exe "$pid" "$SB/real/etool"
  found=$(edashim_processes)
  kill "$pid"
  wait "$pid" || true
  [[ -z "$found" ]] || note_fail "etool hold: processes of edashim's beside the tool: $found" || true
  # yosys running a shell command that sleeps.
  yosys -q -p '!sleep 30' > /dev/null 2>&1 &
  pid=$!
  at_exit "kill \$(descendants $pid) $pid 2>/dev/null || true"
  wait_exe "$pid" "$YOSYS"
  for _ in $(seq 200); do
    pgrep -P "$pid" > /dev/null && break
    sleep 0.05
  done
  found=$(edashim_processes)
  # shellcheck disable=SC2046  # a list of pids
  kill $(descendants "$pid") "$pid" 2>/dev/null || true
  wait "$pid" || true
  expect_eq "$found" "" "yosys !sleep: processes of edashim's beside the tool"
}

run_suite "$@"
