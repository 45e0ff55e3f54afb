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

# Waits until FILE contains TEXT (at most 10 s).
wait_for() {
  for _ in $(seq 200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "timed out waiting for '$2' in $1"
}

# Waits (at most 10 s) until the run log has N lines, else fails with WHAT. Run in place, a tool
# that ended without telling (killed by a signal) has its line written by the watcher once the
# caller has reaped it: a moment after the caller's wait returns.
# wait_lines N WHAT [FILE]: until the log (default $LOG) has N lines. A run exec'd in place has
# its line written by a watcher: before the caller's wait returns when the probe told it of the
# end, a moment after it when only the kernel could (a static program, secure execution).
wait_lines() {
  local file=${3:-$LOG}
  for _ in $(seq 600); do
    [ "$(wc -l < "$file" 2>/dev/null || echo 0)" -ge "$1" ] && return 0
    sleep 0.05
  done
  fail "$2: no log line in $file after 30 s"
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
  # shellcheck disable=SC2064
  # userdel refuses a user with a process left (a victim's GNU parallel still exiting): wait for
  # the state first, and never let the cleanup fail a test that passed.
  trap "users_idle; rm -rf$bases; /usr/sbin/userdel '$VICTIM' 2>/dev/null || true; /usr/sbin/userdel '$ATTACKER' 2>/dev/null || true" EXIT
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
    XDG_CACHE_HOME="$h/.cache" PATH="$PATH" LANG=C.UTF-8 "$@" </dev/null
}
as_victim() { (cd "$VHOME/work" && as_user "$VICTIM" "$@"); }
as_attacker() { as_user "$ATTACKER" "$@"; }
