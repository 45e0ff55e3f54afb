#!/usr/bin/env bash
# Nothing lost (issue 12, items 9-12): a run's scratch and probe directories belong to the run
# while any of its processes holds their lock, in whatever PID namespace it lives; a daemon
# the tool leaves keeps its TMPDIR; a TMPDIR the user set is kept; what a SIGKILLed edashim
# left is swept by a later run.
source "$(dirname "$0")/lib.sh"
FAULT=${FAULT_TOOL:?FAULT_TOOL: path to fault_tool}

# BASE: the scratch base for the test, a private tmpfs when root can mount one (so that the
# test sees only its own directories), /dev/shm otherwise.
setup() {
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  printf 'scratch = true\nscratch_min_free_mb = 0\n' > .edashim.toml
  BASE=$SB/shm
  mkdir -p "$BASE"
  if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs "$BASE" 2>/dev/null; then
    trap 'umount "$BASE" 2>/dev/null || true' EXIT
  else
    BASE=/dev/shm
  fi
  export EDASHIM_SCRATCH_BASES=$BASE
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
  ( exec 9<"$1"; flock -n 9 || exit 1; exec sleep 60 ) &
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
  local theirs=$BASE/edashim-$(id -u)-$(dead_pid)-abcdef
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
  # The inner run's PID: one that no process out here has.
  local n
  for _ in $(seq 50); do
    n=$((20000 + RANDOM % 10000))
    kill -0 $((n + 1)) 2>/dev/null || break
  done
  unshare --pid --fork --mount-proc sh -c "echo $n > /proc/sys/kernel/ns_last_pid; ftool hold-tmp 3" > inner.out &
  local inner=$!
  local dir; dir=$(waitfile "$BASE/edashim-$(id -u)-$((n + 1))-*/mine")
  dir=${dir%/mine}
  kill -0 $((n + 1)) 2>/dev/null && fail "premise: PID $((n + 1)) exists out here too"
  out=$(ftool hold-tmp 0)  # a run out here, sweeping the same base while the inner one runs
  expect_eq "$out" kept "the outer run"
  rc=0; wait "$inner" || rc=$?
  expect_eq "$(cat inner.out)" kept "the inner run's file survived the outer run's sweep"
  expect_eq "$rc" 0 "the inner run's status"
  [ ! -e "$dir" ] || fail "the inner run's scratch $dir was not removed at its end"
}

run_suite "$@"
