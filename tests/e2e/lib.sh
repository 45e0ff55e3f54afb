# Shared harness for the end-to-end suites: each test is a function named test_*, run in a
# fresh sandbox (HOME, XDG dirs, a shim directory and a directory of "real" tools).
# Usage from a suite: source lib.sh; define test_* functions; run_suite "$@".
set -u

BIN=${1:?path to the edashim binary}
HELPER=${2:?path to helper_tool}
SRC=${3:?source tree}
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
BIN=$(abs "$BIN"); HELPER=$(abs "$HELPER"); SRC=$(cd "$SRC" && pwd)
PASSED=0
FAILED=0
FAILED_NAMES=()

new_sandbox() {
  SB=$(mktemp -d /tmp/edashim-e2e-XXXXXX)
  SB=$(cd "$SB" && pwd -P)
  mkdir -p "$SB/home" "$SB/shims" "$SB/real" "$SB/work"
  export HOME=$SB/home XDG_CONFIG_HOME=$SB/home/.config XDG_STATE_HOME=$SB/home/.local/state
  export XDG_CACHE_HOME=$SB/home/.cache
  unset EDASHIM EDASHIM_PROFILE EDASHIM_ALLOCATOR EDASHIM_LOG __EDASHIM_CHAIN LD_PRELOAD MALLOC_CONF
  # The suites assume the default temporary directory unless a test sets one (issue 12, item 11).
  unset TMPDIR TMP TEMP EDASHIM_SCRATCH_BASES
  export PATH=$SB/shims:$SB/real:/usr/local/bin:/usr/bin:/bin
  # What edashim has to tell goes to the run's line and, by default, onto stderr only at a
  # terminal (pipeline/notices.hpp). The suites check those words on stderr: EDASHIM_NOTICES=stderr,
  # which says them there once a session. Suites that compare a run with the direct one, and
  # test_quiet.sh, which checks the default itself, set DEFAULT_NOTICES=1 before run_suite.
  if [[ -n "${DEFAULT_NOTICES:-}" ]]; then unset EDASHIM_NOTICES; else export EDASHIM_NOTICES=stderr; fi
  LOG=$XDG_STATE_HOME/edashim/runs.jsonl
  FAIL_MARK=$SB/.failed
  cp "$HELPER" "$SB/real/mytool"
  shim mytool
  cd "$SB/work"
}

shim() { for n in "$@"; do ln -sf "$BIN" "$SB/shims/$n"; done; }

# True when the suite runs with the supervising launcher (EDASHIM_SUPERVISE=1: the suites'
# second ctest registration, tests/CMakeLists.txt) rather than exec in place, the default. Only
# for the few checks of what the supervising launcher itself does (it is the tool's parent);
# everything else must hold in both modes.
supervised() { [[ "${EDASHIM_SUPERVISE:-0}" == 1 ]]; }

# A failed check can never be lost (issue 27): `fail` ends the test (exit, so a caller's `|| true`
# or a condition around it cannot swallow it), and first writes the message to the sandbox's
# failure marker, which run_suite reads: a fail inside $(...), a pipeline or a background job,
# whose exit ends only that subshell, still fails the test.
fail() {
  note_fail "$@"
  exit 1
}
# note_fail MSG: records a failure and returns 1 without ending the test, for a check that
# reports every bad case before the test ends (the test fails all the same).
note_fail() {
  echo "    FAIL: $*" >&2
  [[ -z "${FAIL_MARK:-}" ]] || echo "$*" >> "$FAIL_MARK"
  return 1
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" == "$2" ] || fail "$3: expected [$2], got [$1]"; }
expect_contains() { [[ "$1" == *"$2"* ]] || fail "$3: [$2] not in [$1]"; }
# The probe may be preloaded on any run; an allocator must not be unless asked for.
no_allocator_in() { [[ ! "$1" =~ (mimalloc|jemalloc|tcmalloc|tbbmalloc|libfancy) ]] || fail "$2: allocator in [$1]"; }
expect_not_contains() { [[ "$1" != *"$2"* ]] || fail "$3: [$2] unexpectedly in [$1]"; }

# json_get FILE EXPR: evaluates a Python expression on the last log line (bound to j).
last_log() { python3 -c "import json,sys; j=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print($2)" "$1"; }

# last_notices [FILE]: what edashim had to tell the last run of FILE (default $LOG), one a line:
# its line's "notices", which hold the words whatever stderr was (pipeline/notices.hpp).
last_notices() { last_log "${1:-$LOG}" "'\\n'.join(j['notices'])"; }

# Waits until FILE contains TEXT (at most 10 s).
wait_for() {
  for _ in $(seq 200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "timed out waiting for '$2' in $1"
}

# wait_lines N WHAT [FILE]: until the log (default $LOG) has N lines (at most 30 s), else fails
# with WHAT. A run's own line is there when the caller's wait returns; this is for lines written
# by other processes (a farm's tasks, a flow's runs in the background).
wait_lines() {
  local file=${3:-$LOG}
  for _ in $(seq 600); do
    [ "$(wc -l < "$file" 2>/dev/null || echo 0)" -ge "$1" ] && return 0
    sleep 0.05
  done
  fail "$2: no log line in $file after 30 s"
}

# sweep_lines N WHAT: until the log has N lines (at most 30 s), sweeping as a later run would
# (edashim report sweeps first): a run in place that ended without a word has its line written by
# the first sweep after every process of the run has gone.
sweep_lines() {
  for _ in $(seq 600); do
    "$BIN" report > /dev/null 2>&1 || true  # a sweep, not a check: the count below is
    [ "$(wc -l < "$LOG" 2>/dev/null || echo 0)" -ge "$1" ] && return 0
    sleep 0.05
  done
  fail "$2: no log line in $LOG after 30 s of sweeps"
}

# A one-node Slurm cluster of the test's own (tests/e2e/slurm_cluster.sh), stopped by pid when
# the test ends; SLURM_CONF names it.
need_slurm() {
  export PATH=$PATH:/usr/sbin  # the daemons (munged, slurmctld, slurmd)
  for p in munged slurmctld slurmd sbatch srun scontrol scancel sinfo squeue; do
    command -v "$p" > /dev/null || skip "$p is not installed (Debian: apt-get install slurm-wlm munge)"
  done
  [ "$(id -u)" = 0 ] || skip "the test's Slurm cluster runs its daemons as root"
  bash "$SRC/tests/e2e/slurm_cluster.sh" start "$SB/cluster" > "$SB/cluster.env" || fail "the one-node Slurm cluster did not start"
  trap 'bash "$SRC/tests/e2e/slurm_cluster.sh" stop "$SB/cluster"' EXIT
  export SLURM_CONF=$SB/cluster/slurm.conf
}

# Suites with a yosys link (YOSYS: the real one) and exit_tool as etool (EXIT: its build).
need_yosys() {
  command -v yosys > /dev/null || skip "yosys is not installed (Debian: apt-get install yosys)"
  YOSYS=$(readlink -f "$(command -v yosys)")
  shim yosys
}
setup_exit_tool() {
  cp "$EXIT" "$SB/real/etool"
  shim etool
}

# The last log line's fields, space-separated (None for null).
line_fields() { last_log "$LOG" "' '.join(str(j[k]) for k in '$1'.split())"; }

# Waits until /proc/PID/exe is FILE (the exec has happened).
wait_exe() {
  for _ in $(seq 200); do
    [[ "$(readlink "/proc/$1/exe" 2>/dev/null)" == "$2" ]] && return 0
    sleep 0.05
  done
  fail "process $1 never became $2 (exe: $(readlink "/proc/$1/exe" 2>/dev/null))"
}

# A test that cannot run here (not root, a program missing) calls `skip REASON`: it ends that
# test with status 77, which the suite counts as skipped and ctest reports as "Skipped" (each test
# is its own ctest entry, SKIP_RETURN_CODE 77). Skipped is never counted as passed.
skip() {
  echo "    SKIPPED: $*"
  exit 77
}

# run_suite ARGS...: runs every test_* function of the suite, or only the one named by the 4th
# argument (exactly; tests/CMakeLists.txt registers each function as a ctest entry that way).
# A name that matches no function is a failure: an entry that runs nothing must not pass.
run_suite() {
  local only=${4:-} ran=0 skipped=0
  for t in $(declare -F | awk '{print $3}' | grep '^test_'); do
    [[ -n "$only" && "$t" != "$only" ]] && continue
    ran=$((ran + 1))
    echo "--- $t"
    new_sandbox
    # Not in an `if`: bash ignores set -e inside a tested command, and the tests rely on it.
    ( set -e; $t )
    local rc=$?
    # A check that failed counts even where its status was lost, and even before a skip.
    if [[ -e "$FAIL_MARK" ]]; then
      echo "    ($t: $(wc -l < "$FAIL_MARK") failed check(s), status $rc)"
      rc=1
    fi
    if [[ $rc -eq 0 ]]; then
      PASSED=$((PASSED + 1))
    elif [[ $rc -eq 77 ]]; then
      skipped=$((skipped + 1))
    else
      FAILED=$((FAILED + 1))
      FAILED_NAMES+=("$t")
      echo "    ($t failed; sandbox kept at $SB)"
    fi
    cd /
    [[ $FAILED -gt 0 && " ${FAILED_NAMES[*]} " == *" $t "* ]] || rm -rf "$SB"
  done
  echo
  # exit, not return: a suite's status must not depend on run_suite being its last line (a
  # test_* function defined after it ran nothing and passed).
  if [[ $ran -eq 0 ]]; then
    echo "no test named '$only' in this suite"
    exit 1
  fi
  [[ $FAILED -eq 0 ]] || echo "failed: ${FAILED_NAMES[*]}"
  echo "$PASSED passed, $FAILED failed, $skipped skipped"
  [[ $FAILED -eq 0 ]] || exit 1
  [[ $skipped -eq 0 ]] || exit 77
  exit 0
}

# Two real local users for the shared-storage tests (issue 24): the victim runs edashim, the
# attacker writes where the victim's files or inputs are. `two_users` (root only, else skip)
# creates both with fresh names, removes them when the test's subshell exits, and sets:
#   VICTIM, ATTACKER   the user names
#   VHOME              the victim's HOME (in the sandbox, owned by the victim, 0700)
#   SHARED             a directory both can write (0777, not sticky: a team directory as made
#                      carelessly), and SHARED_STICKY (1777, as /tmp)
# The sandbox is opened (0755) so that both can reach the binary's copy and the directories.
two_users() {
  [ "$(id -u)" -eq 0 ] || skip "needs root to create two local users (useradd)"
  # useradd, userdel and runuser live in /usr/sbin, which the sandbox's PATH leaves out.
  SBIN_PATH=/usr/sbin:/sbin
  PATH=$PATH:$SBIN_PATH command -v useradd >/dev/null || skip "useradd is missing (package passwd)"
  local tag; tag=$(printf '%x' $(( $$ % 65536 )))$RANDOM
  VICTIM=edv$tag ATTACKER=eda$tag
  # Uids of their own, far from the ones useradd hands out: a uid an earlier, deleted test user
  # had may still own /tmp/edashim-UID or /dev/shm/edashim-UID (run/scratch.hpp's own bases).
  local vuid auid
  vuid=$(free_test_uid) && auid=$(free_test_uid "$vuid") || fail "no free uid for the test users"
  /usr/sbin/useradd -l -M -u "$vuid" -U -d /nonexistent -s /bin/bash "$VICTIM" || fail "useradd $VICTIM"
  /usr/sbin/useradd -l -M -u "$auid" -U -d /nonexistent -s /bin/bash "$ATTACKER" || { /usr/sbin/userdel "$VICTIM"; fail "useradd $ATTACKER"; }
  # The users' own bases that their edashim runs make in /dev/shm and /tmp (scratch and probe,
  # run/scratch.hpp) go with them, by exact path, unless a test under a reused uid left them.
  local u b bases=""
  for u in "$VICTIM" "$ATTACKER"; do
    for b in /dev/shm /tmp; do
      b=$b/edashim-$(id -u "$u")
      [ -e "$b" ] || [ -L "$b" ] || bases="$bases '$b'"
    done
  done
  # userdel refuses a user with a process left (a victim's GNU parallel still exiting): wait for
  # the state first, and never let the cleanup fail a test that passed.
  at_exit "users_idle; rm -rf$bases; /usr/sbin/userdel '$VICTIM' 2>/dev/null || true; /usr/sbin/userdel '$ATTACKER' 2>/dev/null || true"
  chmod 0755 "$SB" "$SB/work" "$SB/shims" "$SB/real"
  # The binary under test may sit in a root-only build tree: the users run a copy.
  # (with edashim-cli beside it: `edashim report`, `doctor` and the other subcommands are there).
  # With the build tree's marker (where the shipped profiles are) and the probe library.
  local f
  for f in edashim edashim-cli edashim-build-tree libedashim_probe.so; do
    [ -e "$(dirname "$BIN")/$f" ] && cp "$(dirname "$BIN")/$f" "$SB/$f"
  done
  chmod 0755 "$SB/edashim" "$SB/edashim-cli"
  VBIN=$SB/edashim
  for l in "$SB"/shims/*; do ln -sf "$VBIN" "$l"; done
  VHOME=$SB/victim-home
  mkdir -p "$VHOME/.config/edashim" "$VHOME/.local/state/edashim" "$VHOME/work"
  chown -R "$VICTIM:$VICTIM" "$VHOME"; chmod 0700 "$VHOME"
  SHARED=$SB/shared SHARED_STICKY=$SB/shared-sticky
  mkdir -p "$SHARED" "$SHARED_STICKY"
  chmod 0777 "$SHARED"; chmod 1777 "$SHARED_STICKY"
  VLOG=$VHOME/.local/state/edashim/runs.jsonl
}

# Waits (at most 30 s) until neither test user has a process left: the state userdel needs.
users_idle() {
  for _ in $(seq 600); do
    pgrep -u "$VICTIM,$ATTACKER" > /dev/null || return 0
    sleep 0.05
  done
  echo "    (users $VICTIM, $ATTACKER still have processes after 30 s)" >&2
}

# free_test_uid [NOT]: a uid (and gid) no account, group or edashim base uses, other than NOT.
free_test_uid() {
  local u
  for _ in $(seq 100); do
    u=$(( 200000 + (RANDOM * 32768 + RANDOM) % 800000 ))
    [ "$u" != "${1:-}" ] || continue
    getent passwd "$u" >/dev/null || getent group "$u" >/dev/null && continue
    [ -e "/tmp/edashim-$u" ] || [ -L "/tmp/edashim-$u" ] || [ -e "/dev/shm/edashim-$u" ] || [ -L "/dev/shm/edashim-$u" ] && continue
    echo "$u"
    return 0
  done
  return 1
}

# as_user USER CMD...: runs CMD as USER with the victim's kind of environment (HOME is the
# victim's for VICTIM, the sandbox's work directory for others). Standard input is /dev/null.
as_user() {
  local u=$1; shift
  local h=$SB/work
  [ "$u" = "$VICTIM" ] && h=$VHOME
  /usr/sbin/runuser -u "$u" -- env -i HOME="$h" XDG_CONFIG_HOME="$h/.config" XDG_STATE_HOME="$h/.local/state" \
    XDG_CACHE_HOME="$h/.cache" PATH="$PATH" LANG=C.UTF-8 ${EDASHIM_NOTICES:+EDASHIM_NOTICES=$EDASHIM_NOTICES} "$@" </dev/null
}
as_victim() { (cd "$VHOME/work" && as_user "$VICTIM" "$@"); }
as_attacker() { as_user "$ATTACKER" "$@"; }

# at_exit CMD: runs CMD when the test's subshell exits, before what was registered earlier (the
# cleanups run last to first), where a plain `trap CMD EXIT` would drop an earlier one.
at_exit() {
  local old
  old=$(trap -p EXIT)
  if [[ -z "$old" ]]; then
    trap -- "$1" EXIT
    return
  fi
  eval "set -- \"\$1\" ${old#trap -- }"   # $2: the earlier command, as bash quoted it
  trap -- "$1
$2" EXIT
}

# A cap on the processes of one test (issue 46): a test whose premise is that edashim might
# fork without end (no /proc, a pid namespace, refused system calls) runs under one, so that a
# broken binary fails the test instead of the machine. `pids_cap MAX` (root only, else skip)
# makes a fresh pids cgroup named after the sandbox, with pids.max MAX, moves the test's
# subshell into its "shell" child, and removes what it made when the subshell exits (waiting
# for, then killing by pid, what the test left in it: its own processes only). Under cgroup v1
# the cgroup is made below the one the test is in (a cap around the suite still holds); under
# v2, below the root. Sets PIDS_CG, the cgroup's directory. `pids_group NAME MAX` makes a child
# of it for one measurement (prints its directory), `in_pids_group DIR CMD...` runs CMD in it,
# and `pids_peak DIR` prints the most tasks it held at once.
pids_cap() {
  [ "$(id -u)" -eq 0 ] || skip "needs root to make a pids cgroup (the cap that keeps a process loop from the machine)"
  local base="" rel v2=""
  if [ -e /sys/fs/cgroup/pids/cgroup.procs ]; then
    rel=$(sed -n 's/^[0-9]*:pids:\(.*\)$/\1/p' /proc/self/cgroup)
    base=/sys/fs/cgroup/pids${rel%/}
  else
    local m
    while read -r m; do
      grep -qw pids "$m/cgroup.controllers" 2>/dev/null || continue
      grep -qw pids "$m/cgroup.subtree_control" || echo +pids > "$m/cgroup.subtree_control" || continue
      base=$m v2=1
      break
    done < <(awk '$3 == "cgroup2" {print $2}' /proc/mounts)
  fi
  [ -n "$base" ] || skip "no pids cgroup here (neither v1's /sys/fs/cgroup/pids nor pids in a cgroup2's controllers): the test could fork without end uncapped"
  PIDS_CG=$base/$(basename "$SB")
  PIDS_HOME=$base
  mkdir "$PIDS_CG" || fail "cannot make $PIDS_CG"
  at_exit pids_cap_release
  echo "$1" > "$PIDS_CG/pids.max" || fail "cannot set $PIDS_CG/pids.max"
  [ -z "$v2" ] || echo +pids > "$PIDS_CG/cgroup.subtree_control" || fail "cannot enable pids below $PIDS_CG"
  pids_group shell max > /dev/null
  echo "$BASHPID" > "$PIDS_CG/shell/cgroup.procs" || fail "cannot join $PIDS_CG/shell"
}

pids_group() {
  mkdir "$PIDS_CG/$1" || fail "cannot make the pids cgroup $PIDS_CG/$1"
  echo "$1" >> "$SB/.pids-groups"  # for pids_cap_release, by exact name
  echo "$2" > "$PIDS_CG/$1/pids.max" || fail "cannot set $PIDS_CG/$1/pids.max"
  echo "$PIDS_CG/$1"
}

# in_pids_group DIR CMD...: CMD in the pids cgroup DIR, bounded by 120 s (timeout runs outside
# the cgroup: it is not counted there).
# shellcheck disable=SC2016
in_pids_group() { timeout -s KILL 120 bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' in_pids_group "$@"; }

# The most tasks (processes and threads) DIR held at once: the kernel's pids.peak (Linux 6.13
# and later), else what pids_sample saw.
pids_peak() {
  if [ -e "$1/pids.peak" ]; then cat "$1/pids.peak"; else cat "$SB/.pids-peak-$(basename "$1")" 2>/dev/null || echo 0; fi
}

# pids_sample DIR: where the kernel keeps no pids.peak, samples pids.current in the background
# into the peak pids_peak reads, until the test ends. Tasks that live between two samples are
# missed: then the peak is a lower bound.
pids_sample() {
  [ ! -e "$1/pids.peak" ] || return 0
  local out
  out=$SB/.pids-peak-$(basename "$1")
  ( peak=0
    while read -r c < "$1/pids.current"; do
      if [ "$c" -gt "$peak" ]; then peak=$c; echo "$peak" > "$out"; fi
    done 2>/dev/null ) &
  at_exit "kill $! 2>/dev/null || true"
}

# Removes the test's cgroups: the subshell leaves them first (a cgroup with a process in it
# cannot go), then each is left to empty itself for 10 s (a watcher finishing its line), and
# what is still there is killed by pid: only the test's own processes can be in it.
pids_cap_release() {
  local g p
  echo "$BASHPID" > "$PIDS_HOME/cgroup.procs" 2>/dev/null || true
  while read -r g; do
    g=$PIDS_CG/$g
    for _ in $(seq 200); do
      [ -z "$(cat "$g/cgroup.procs" 2>/dev/null)" ] && break
      sleep 0.05
    done
    while read -r p; do
      echo "    (killing process $p the test left in $g: $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null))" >&2
      kill -KILL "$p" 2>/dev/null || true
    done < <(cat "$g/cgroup.procs" 2>/dev/null)
    for _ in $(seq 100); do
      [ -d "$g" ] || break
      rmdir "$g" 2>/dev/null && break
      sleep 0.05
    done
  done < <(cat "$SB/.pids-groups" 2>/dev/null)
  rmdir "$PIDS_CG" 2>/dev/null || echo "    (could not remove $PIDS_CG)" >&2
}
