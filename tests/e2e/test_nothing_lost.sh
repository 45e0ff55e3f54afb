#!/usr/bin/env bash
# Nothing lost (issue 12, items 9-12): a run's scratch and probe directories belong to the run
# while any of its processes holds their lock, in whatever PID namespace it lives; a daemon
# the tool leaves keeps its TMPDIR; a TMPDIR the user set is kept; what a SIGKILLed edashim
# left is swept by a later run.
source "$(dirname "$0")/lib.sh"
FAULT=${FAULT_TOOL:?FAULT_TOOL: path to fault_tool}

# BASE: the scratch base for the test, a private tmpfs when root can mount one (so that the
# test sees only its own directories), /dev/shm otherwise; OWN: the user's own directory in it,
# where runs put theirs (issue 24).
setup() {
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  printf 'scratch = true\n' > .edashim.toml
  # The free-memory rule is the user's to lower (a project file's is ignored: issue 24).
  user_config
  BASE=$SB/shm
  mkdir -p "$BASE"
  if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs "$BASE" 2>/dev/null; then
    # Lazy: a lock holder or daemon of a failed test may still have a directory in it open.
    trap 'umount -l "$BASE" 2>/dev/null || true' EXIT
  else
    BASE=/dev/shm
  fi
  export EDASHIM_SCRATCH_BASES=$BASE
  OWN=$BASE/edashim-$(id -u)
}

# The user's config: scratch on any free memory, and whatever else is given ("keep_scratch = true").
user_config() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'scratch_min_free_mb = 0\nscratch_min_free_percent = 0\n%s\n' "${1:-}" > "$XDG_CONFIG_HOME/edashim/config.toml"
}

# A PID that no process here has: what the PID of a run in another PID namespace looks like.
dead_pid() {
  true &
  local p=$!
  wait "$p"
  echo "$p"
}

# Holds the flock of directory DIR from a process of its own (as a run elsewhere does); its
# pid in HOLDER. Returns once the lock is held.
hold_lock() {
  # Waits for the lock: the check below takes it for a moment while polling.
  ( exec 9<"$1"; flock -w 5 9 || exit 1; exec sleep 60 ) &
  HOLDER=$!
  for _ in $(seq 100); do flock -n "$1" true 2>/dev/null || return 0; sleep 0.05; done
  fail "could not hold the lock of $1"
}

waitfile() {  # GLOB: waits until a path matches (at most 10 s), prints it
  for _ in $(seq 200); do
    for f in $1; do [ -e "$f" ] && { echo "$f"; return 0; }; done
    sleep 0.05
  done
  fail "timed out waiting for $1"
}

# --- Item 9: the sweep deletes only what it can lock, never by kill(pid, 0).
test_a_scratch_whose_owner_pid_is_not_ours_survives_while_its_lock_is_held() {
  setup
  local theirs=$OWN/edashim-$(id -u)-$(dead_pid)-abcdef
  mkdir -m 700 -p "$OWN"
  mkdir -m 700 "$theirs"
  echo data > "$theirs/their-file"
  hold_lock "$theirs"
  out=$(ftool hold-tmp 0)
  expect_eq "$out" kept "our own run"
  [ -f "$theirs/their-file" ] || fail "the sweep deleted a locked scratch (its PID is dead here, not its run)"
  kill "$HOLDER"; wait "$HOLDER" 2>/dev/null || true
  ftool hold-tmp 0 >/dev/null
  [ ! -e "$theirs" ] || fail "once nobody holds its lock, the next run's sweep removes it"
}

test_a_live_run_in_another_pid_namespace_keeps_its_scratch_through_a_concurrent_sweep() {
  [ "$(id -u)" = 0 ] || skip "needs root for a PID namespace"
  unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare --pid does not work here"
  setup
  # The inner run's PID: one that no process out here has, nor can get while the test runs. A
  # free PID behind this namespace's counter is not handed out again until the counter wraps
  # around pid_max; one ahead of it was taken by a process out here on a busy CI machine.
  local n p last max
  last=$(cat /proc/sys/kernel/ns_last_pid)
  max=$(cat /proc/sys/kernel/pid_max)
  for _ in $(seq 50); do
    p=$((last - 200 - RANDOM % 2000))
    [ "$p" -gt 300 ] || p=$((p + max - 300))
    kill -0 "$p" 2>/dev/null || break
  done
  n=$((p - 1))
  unshare --pid --fork --mount-proc sh -c "echo $n > /proc/sys/kernel/ns_last_pid; ftool hold-tmp 3" > inner.out &
  local inner=$!
  local dir; dir=$(waitfile "$OWN/edashim-$(id -u)-$(printf %07d $((n + 1)))-*/mine")
  dir=${dir%/mine}
  ! kill -0 $((n + 1)) 2>/dev/null || fail "premise: PID $((n + 1)) exists out here too"
  out=$(ftool hold-tmp 0)  # a run out here, sweeping the same base while the inner one runs
  expect_eq "$out" kept "the outer run"
  rc=0; wait "$inner" || rc=$?
  expect_eq "$(cat inner.out)" kept "the inner run's file survived the outer run's sweep"
  expect_eq "$rc" 0 "the inner run's status"
  [ ! -e "$dir" ] || fail "the inner run's scratch $dir was not removed at its end"
  if [ -e "$(dirname "$BIN")/libedashim_probe.so" ]; then  # its probe directory, beside it, too
    expect_eq "$(last_log "$LOG" 'j["pid"], len(j["processes"] or [])')" "$((n + 1)) 1" "the inner run's probe records"
  fi
}

test_a_kept_scratch_is_never_swept() {
  setup
  user_config 'keep_scratch = true'
  ftool hold-tmp 0 >/dev/null
  local dir; dir=$(last_log "$LOG" 'j["scratch"]["dir"]')
  user_config
  ftool hold-tmp 0 >/dev/null  # sweeps
  [ -f "$dir/mine" ] || fail "the next run's sweep removed the scratch the user asked to keep"
  expect_contains "$dir" "$OWN/edashim-kept-$(id -u)-" "named so that no sweep takes it"
}

# --- Item 10: a daemon the tool leaves keeps its TMPDIR; a later run sweeps it once it ended.
test_a_daemon_the_tool_leaves_writes_to_its_tmpdir_after_the_tool_exits_as_directly() {
  daemon_writes_after_the_tool
}

# The same without the probe (probe = false; a static tool): the probe holds the scratch's lock
# across the exec, and without it only the lock's descriptor the tool inherits does.
test_a_daemon_the_tool_leaves_without_the_probe_writes_to_its_tmpdir_after_the_tool_exits() {
  daemon_writes_after_the_tool 'probe = false'
}

# daemon_writes_after_the_tool [CONFIG LINE]
daemon_writes_after_the_tool() {
  setup
  user_config "${1:-}"
  mkdir -p "$SB/usertmp"
  EDASHIM=off TMPDIR=$SB/usertmp ftool late-tmp "$SB/direct.txt" 0.5
  wait_for "$SB/direct.txt" .
  expect_eq "$(cat "$SB/direct.txt")" ok "premise: directly, the daemon writes to its TMPDIR"
  ftool late-tmp "$SB/shim.txt" 0.5
  local dir; dir=$(last_log "$LOG" 'j["scratch"]["dir"]')
  expect_contains "$dir" "$OWN/edashim-$(id -u)-" "the run had a scratch"
  wait_for "$SB/shim.txt" .
  expect_eq "$(cat "$SB/shim.txt")" ok "under edashim, the daemon writes to its TMPDIR as directly"
  # With nothing of edashim's in the tool (probe = false, the system allocator) nobody is there
  # at its end: the line is written as it starts, and the scratch is left to a later sweep.
  local untold; untold=$([[ "${1:-}" == "probe = false" ]] && echo 1 || echo 0)
  if [[ $untold == 1 ]]; then
    expect_eq "$(last_log "$LOG" 'j.get("scratch_left_in_use"), j["ended"]')" \
      "None not told: nothing of edashim's is loaded in the tool to tell its end" "the log says the end was not told"
  else
    expect_eq "$(last_log "$LOG" 'j["scratch_left_in_use"]')" True "the log says the daemon held it"
  fi
  [ -f "$dir/late" ] || fail "the daemon's file is not in $dir"
  for _ in $(seq 100); do flock -n "$dir" true && break; sleep 0.05; done  # the daemon has ended
  ftool hold-tmp 0 >/dev/null
  [ ! -e "$dir" ] || fail "a later run did not sweep $dir once the daemon had ended"
  [[ $untold == 1 ]] || expect_eq "$(last_log "$LOG" 'j["scratch_left_in_use"]')" False "a run without a daemon removes its own"
}

# --- Item 11: a TMPDIR the user set is kept unless a profile says scratch = "override".
# A tool that starts a detached Python helper with subprocess's default close_fds=True (the
# helper inherits no descriptor, the scratch's lock included) and ends once the helper has
# started; the helper writes "started", waits for STATE.go, writes $TMPDIR/late and says how that
# went ("wrote ok" or the error), then waits for STATE.end (at most 60 s each).
detached_helper_tool() {
  cat > "$SB/real/detach" <<'PY'
#!/usr/bin/python3
import os, subprocess, sys, time
state = sys.argv[1]
helper = r"""
import os, sys, time
state = sys.argv[1]
def say(text):
    with open(state + ".tmp", "w") as f:
        f.write(text)
    os.replace(state + ".tmp", state)
def wait(path):
    deadline = time.monotonic() + 60
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
say("started")
wait(state + ".go")
try:
    with open(os.path.join(os.environ["TMPDIR"], "late"), "w") as f:
        f.write("late")
    say("wrote ok")
except OSError as e:
    say("wrote " + e.strerror)
wait(state + ".end")
"""
subprocess.Popen([sys.executable, "-c", helper, state], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.monotonic() + 60
while not (os.path.exists(state) and open(state).read() == "started") and time.monotonic() < deadline:
    time.sleep(0.02)
PY
  chmod +x "$SB/real/detach"
  shim detach
}

# --- Every process that uses the scratch holds it: a helper that closed every descriptor it
# inherited keeps its TMPDIR until it ends (the probe's library takes a lock of its own in it).
test_a_detached_helper_that_closed_its_descriptors_keeps_its_tmpdir_until_it_ends() {
  setup
  command -v python3 >/dev/null || skip "python3 is missing"
  detached_helper_tool
  mkdir -p "$SB/usertmp"
  EDASHIM=off TMPDIR=$SB/usertmp detach "$SB/direct"
  touch "$SB/direct.go"
  wait_for "$SB/direct" wrote
  expect_eq "$(cat "$SB/direct")" "wrote ok" "premise: directly, the helper writes to its TMPDIR after the tool ended"
  touch "$SB/direct.end"
  detach "$SB/state"
  local dir; dir=$(last_log "$LOG" 'j["scratch"]["dir"]')
  expect_contains "$dir" "$OWN/edashim-$(id -u)-" "the run had a scratch"
  expect_eq "$(last_log "$LOG" 'j["scratch_left_in_use"]')" True "the log says the helper held it"
  touch "$SB/state.go"
  wait_for "$SB/state" wrote
  expect_eq "$(cat "$SB/state")" "wrote ok" "under edashim, the helper writes to its TMPDIR as directly"
  [ -f "$dir/late" ] || fail "the helper's file is not in $dir"
  touch "$SB/state.end"
  local free=no
  for _ in $(seq 200); do flock -n "$dir" true && { free=yes; break; }; sleep 0.05; done
  expect_eq "$free" yes "the helper's lock went with it"
  ftool hold-tmp 0 >/dev/null
  [ ! -e "$dir" ] || fail "a later run did not sweep $dir once the helper had ended"
}

test_a_tmpdir_the_user_set_is_kept_unless_a_profile_says_override() {
  setup
  mkdir -p "$SB/usertmp"
  out=$(TMPDIR=$SB/usertmp mytool env TMPDIR TMP TEMP)
  expect_eq "$out" $'TMPDIR='"$SB"$'/usertmp\nTMP=(unset)\nTEMP=(unset)' "scratch = true keeps the user's TMPDIR"
  expect_eq "$(last_log "$LOG" 'j["scratch"]["dir"]')" None "no scratch made"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "your TMPDIR=$SB/usertmp is kept" "the log says so"
  out=$(TMP=$SB/usertmp mytool env TMPDIR TMP)
  expect_eq "$out" $'TMPDIR=(unset)\nTMP='"$SB/usertmp" "TMP set: kept too"
  expl=$(TMPDIR=$SB/usertmp "$BIN" explain mytool)
  expect_contains "$expl" "your TMPDIR=$SB/usertmp is kept" "explain says so"
  out=$(mytool env TMPDIR)
  expect_contains "$out" "TMPDIR=$OWN/edashim-$(id -u)-" "no TMPDIR set: the scratch"
  printf 'scratch = "override"\n' > .edashim.toml
  "$BIN" trust >/dev/null 2>&1
  out=$(TMPDIR=$SB/usertmp mytool env TMPDIR)
  expect_contains "$out" "TMPDIR=$OWN/edashim-$(id -u)-" "override: replaced"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "replaces your TMPDIR=$SB/usertmp" "the log says so"
  expl=$(TMPDIR=$SB/usertmp "$BIN" explain mytool)
  expect_contains "$expl" "override your TMPDIR" "explain says it overrides"
}

test_doctor_checks_a_share_of_ram_free_not_a_fixed_256_mib() {
  setup
  [ "$BASE" != /dev/shm ] || skip "needs root to mount a small tmpfs"
  out=$("$BIN" doctor 2>&1) || true
  expect_contains "$out" "$BASE: 4 MiB free, scratch_min_free_percent = 10 (of " "the default share of RAM"
}

test_an_untrusted_project_file_cannot_override_the_users_tmpdir() {
  setup
  mkdir -p "$SB/usertmp"
  printf 'scratch = "override"\n' > .edashim.toml
  out=$(TMPDIR=$SB/usertmp mytool env TMPDIR 2>err.txt)
  expect_eq "$out" "TMPDIR=$SB/usertmp" "an untrusted file's override is ignored"
  expect_contains "$(cat err.txt)" "is not trusted" "with a line saying the file is not trusted"
}

# --- Item 12: probe directories (made with scratch off too) are locked and swept the same way.
test_a_sigkilled_runs_probe_directory_is_swept_by_the_next_run_and_a_live_ones_is_not() {
  [ -e "$(dirname "$BIN")/libedashim_probe.so" ] || skip "the probe library is not built"
  printf 'scratch = false\n' > .edashim.toml
  # The probe's directory goes to $XDG_RUNTIME_DIR (/tmp without it: the same code). One of the
  # sandbox's own: in /tmp, any other test's run, in parallel, may sweep the killed run's directory
  # between the kill and the premise check, as it should.
  export XDG_RUNTIME_DIR=$SB/run-user
  mkdir -m 700 "$XDG_RUNTIME_DIR"
  # A supervising edashim killed outright leaves its directory (run in place, the tool's watcher
  # removes it: below).
  EDASHIM_SUPERVISE=1 mytool sleep 30 &
  local pid=$!
  local dir; dir=$(waitfile "$XDG_RUNTIME_DIR/edashim-$(id -u)/edashim-$(id -u)-$(printf %07d "$pid")-*/probe")
  dir=${dir%/probe}
  mytool exit 0
  [ -d "$dir" ] || fail "a live run's probe directory was swept"
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  [ -d "$dir" ] || fail "premise: a SIGKILLed edashim leaves its probe directory"
  mytool exit 0
  [ ! -e "$dir" ] || fail "the next run did not sweep $dir"
  # In place: the tool killed outright leaves its directory (nothing of edashim's outlives it);
  # the next run sweeps it and writes the killed run's line from the record it holds.
  mytool sleep 30 &
  pid=$!
  dir=$(waitfile "$XDG_RUNTIME_DIR/edashim-$(id -u)/edashim-$(id -u)-$(printf %07d "$pid")-*/probe")
  dir=${dir%/probe}
  mytool exit 0
  [ -d "$dir" ] || fail "run in place, a live run's directory was swept"
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  [ -f "$dir/unfinished" ] || fail "premise: the killed run's record is left"
  mytool exit 0
  [ ! -e "$dir" ] || fail "run in place, the next run did not sweep $dir"
  python3 -c 'import json,sys; print([j.get("ended") for j in map(json.loads, open(sys.argv[1])) if j["tool_pid"] == int(sys.argv[2])])' \
    "$LOG" "$pid" | grep -qF "['without a word (killed by a signal, or crashed)']" || fail "the killed run's line: $(tail -2 "$LOG")"
}

run_suite "$@"
