#!/usr/bin/env bash
# Shared scratch (issue 24): /dev/shm is everyone's, so a run's scratch and probe directories
# live in the user's own base, /dev/shm/edashim-UID (0700, theirs), as tmux's /tmp/tmux-UID.
# Another user who makes that name first (a directory of theirs, or a link) gets nothing of the
# victim's: the run goes without scratch, exactly as directly, and says so in one line; names
# another user makes in /dev/shm itself are never listed or opened by the victim's sweep.
# /dev/shm is shared with everything else on the machine: every path a test makes there is
# removed by its exact name at the test's exit.
source "$(dirname "$0")/lib.sh"

# Runs CMD at the test's exit, before what was set to run then (two_users removes the users).
at_exit() {
  local prev=""
  [ -n "$(trap -p EXIT)" ] && eval "set -- \"\$1\" $(trap -p EXIT | sed 's/^trap -- //; s/ EXIT$//')" && prev=$2
  # shellcheck disable=SC2064
  trap "$1; $prev" EXIT
}

# The two users and the victim's configuration asking for scratch. Their own bases in /dev/shm
# and /tmp (where the probe goes without scratch or XDG_RUNTIME_DIR) are removed with the users
# (two_users).
setup() {
  two_users
  [ "$(stat -f -c %T /dev/shm)" = tmpfs ] || skip "/dev/shm is not tmpfs here"
  VUID=$(id -u "$VICTIM")
  VBASE=/dev/shm/edashim-$VUID
  # useradd hands out a uid an earlier test's userdel freed: a base that test's runs left under
  # it is not this test's to remove (nor to test with).
  if [ -e "$VBASE" ] || [ -L "$VBASE" ]; then skip "$VBASE was left by an earlier test with uid $VUID"; fi
  printf 'scratch = true\nscratch_min_free_mb = 0\nscratch_min_free_percent = 0\n' > "$VHOME/.config/edashim/config.toml"
  chown "$VICTIM:$VICTIM" "$VHOME/.config/edashim/config.toml"
  chmod 0600 "$VHOME/.config/edashim/config.toml"
}

# The victim's run of `mytool ARGS` and the same run without edashim: output, status, stderr.
# `err`: what edashim told the run, from its line (stderr hears it once a session: lib.sh).
victim_runs() {
  rc=0; out=$(as_victim mytool "$@" 2>"$SB/err") || rc=$?
  err=$(last_notices "$VHOME/.local/state/edashim/runs.jsonl")
  direct_rc=0; direct=$(as_victim env EDASHIM=off mytool "$@" 2>/dev/null) || direct_rc=$?
}

# STDERR holds exactly one line, naming WHAT.
one_line_naming() {
  expect_eq "$(printf '%s\n' "$1" | grep -c .)" 1 "one line on stderr: [$1]"
  expect_contains "$1" "$2" "the line names the directory"
}

test_a_base_another_user_made_first_is_not_used_and_the_tool_runs_as_directly() {
  setup
  as_attacker mkdir "$VBASE"
  as_attacker chmod 0777 "$VBASE"
  victim_runs tmpdir
  expect_eq "$out" "$direct" "the tool's output, as without edashim"
  expect_eq "$out" "(unset)" "no TMPDIR in the attacker's directory"
  expect_eq "$rc" "$direct_rc" "the tool's status, as without edashim"
  one_line_naming "$err" "$VBASE"
  expect_contains "$err" "owned by $ATTACKER (uid $(id -u "$ATTACKER"))" "the line names its owner"
  expect_contains "$err" "rm -r $VBASE" "and what to do"
  expect_eq "$(ls -A "$VBASE")" "" "nothing of the victim's in the attacker's directory"
  expect_eq "$(stat -c '%U %a' "$VBASE")" "$ATTACKER 777" "the attacker's directory untouched"
  expect_contains "$(last_log "$VLOG" 'j["scratch"]["note"]')" "$VBASE is owned by $ATTACKER" "the log says why"
  expect_eq "$(last_log "$VLOG" 'j["scratch"]["dir"]')" None "no scratch"
  expl=$(as_victim "$VBIN" explain mytool 2>&1)
  expect_contains "$expl" "$VBASE is owned by $ATTACKER" "explain says why"
  doc=$(as_victim "$VBIN" doctor 2>&1 || true)
  expect_contains "$doc" "$VBASE is owned by $ATTACKER" "doctor says it"
}

test_a_base_that_is_a_link_is_not_followed() {
  setup
  # To a directory of the attacker's, and to one of the victim's own (which a rule checking
  # only the owner of what a link points to would take).
  local theirs=$SB/attacker-dir mine=$VHOME/linked
  mkdir "$theirs" "$mine"
  chown "$ATTACKER:$ATTACKER" "$theirs"; chmod 0777 "$theirs"
  # In the victim's: what the victim's sweep would remove if it listed a base through a link.
  mkdir "$mine/edashim-$VUID-1-abcdef"
  chown -R "$VICTIM:$VICTIM" "$mine"; chmod 0755 "$mine"
  for target in "$theirs" "$mine"; do
    mkdir "$target.before" && cp -a "$target/." "$target.before/"
    as_attacker ln -s "$target" "$VBASE"
    victim_runs exit 0  # a first run: nothing made through the link, for the second to sweep
    victim_runs tmpdir
    expect_eq "$out" "$direct" "the tool's output, as without edashim (-> $target)"
    expect_eq "$rc" "$direct_rc" "the tool's status (-> $target)"
    one_line_naming "$err" "$VBASE"
    expect_contains "$err" "symbolic link owned by $ATTACKER" "the line says what it is"
    expect_eq "$(ls -A "$target")" "$(ls -A "$target.before")" "nothing of the victim's through the link, nothing taken"
    rm "$VBASE"
  done
  expect_eq "$(stat -c %a "$theirs")" 777 "the attacker's directory's mode untouched"
  expect_eq "$(stat -c %a "$mine")" 755 "the victim's linked directory's mode untouched"
}

test_the_victims_own_base_is_made_0700_and_holds_the_runs_tmpdir() {
  setup
  victim_runs tmpdir
  expect_eq "$rc" 0 "status"
  expect_eq "$err" "" "nothing on stderr"
  expect_contains "$out" "$VBASE/edashim-$VUID-" "the run's TMPDIR is inside the victim's own base"
  expect_eq "$(stat -c '%U %F %a' "$VBASE")" "$VICTIM directory 700" "the base: the victim's, 0700"
  [ ! -e "$out" ] || fail "the run's scratch $out was not removed"
  # A wider mode of the victim's own (a umask, a hand-made base) is narrowed before use.
  as_victim chmod 0755 "$VBASE"
  victim_runs exit 0
  expect_eq "$(stat -c %a "$VBASE")" 700 "narrowed to 0700"
}

test_names_another_user_makes_in_dev_shm_are_not_opened_by_the_victims_sweep() {
  setup
  command -v strace >/dev/null || skip "strace is missing"
  # Names of the old layout (edashim-UID-PID-XXXXXX in /dev/shm itself), with the victim's uid.
  local names=()
  for n in 1 2 3 4 5 6 7 8; do names+=("/dev/shm/edashim-$VUID-$n-sq$RANDOM"); done
  at_exit "rm -rf ${names[*]}"
  as_attacker mkdir "${names[@]}"
  victim_runs exit 0  # makes the victim's base; the next run sweeps it
  strace -f -qq -o "$SB/trace" -e trace=openat,open,newfstatat,stat,lstat,statx,getdents64 \
    /usr/sbin/runuser -u "$VICTIM" -- env -i HOME="$VHOME" PATH="$PATH" sh -c "cd '$VHOME/work' && mytool exit 0"
  grep -q "$VBASE\"" "$SB/trace" || fail "premise: the trace shows the run using its own base"
  expect_eq "$(grep -c "/dev/shm/edashim-$VUID-" "$SB/trace" || true)" 0 "syscalls naming the attacker's directories"
  expect_eq "$(grep -c 'openat([^,]*, "/dev/shm", ' "$SB/trace" || true)" 0 "/dev/shm itself listed"
  for d in "${names[@]}"; do [ -d "$d" ] || fail "$d is gone"; done
}

test_a_probe_base_another_user_made_in_tmp_is_not_used() {
  setup
  [ -e "$SB/libedashim_probe.so" ] || skip "the probe library is not built"
  printf 'scratch = false\n' > "$VHOME/.config/edashim/config.toml"
  local pbase=/tmp/edashim-$VUID
  if [ -e "$pbase" ] || [ -L "$pbase" ]; then skip "$pbase was left by an earlier test with uid $VUID"; fi
  as_attacker mkdir "$pbase"
  as_attacker chmod 0777 "$pbase"
  rc=0; out=$(as_victim mytool args 1 2>"$SB/err") || rc=$?
  err=$(cat "$SB/err")
  expect_eq "$rc" 0 "the tool's status"
  expect_eq "$out" "$(as_victim env EDASHIM=off mytool args 1)" "the tool's output, as without edashim"
  one_line_naming "$err" "$pbase"
  expect_contains "$err" "owned by $ATTACKER" "the line names its owner"
  expect_eq "$(ls -A "$pbase")" "" "nothing of the victim's in the attacker's directory"
}

# A read-only tree the tool copies into its TMPDIR (`cp -r`, as an ordinary user) goes with the
# scratch at the end of the run; and one a killed run left (no lock held) with the next run's
# sweep, an unreadable directory in it too. Neither is left in /dev/shm for good.
test_a_read_only_tree_copied_into_the_scratch_is_removed_with_it() {
  setup
  mkdir -p "$SB/rotree/sub"
  echo x > "$SB/rotree/sub/file"
  chmod -R a+rX,a-w "$SB/rotree"
  printf '#!/bin/sh\ncp -r "$1" "$TMPDIR/copy" && stat -c %%a "$TMPDIR/copy/sub" && echo "$TMPDIR"\n' > "$SB/real/cptool"
  chmod 0755 "$SB/real/cptool"
  ln -sf "$VBIN" "$SB/shims/cptool"
  local mine=$VHOME/tmp
  as_victim mkdir "$mine"
  expect_eq "$(as_victim env EDASHIM=off TMPDIR="$mine" cptool "$SB/rotree" | sed -n 1p)" 555 "premise: directly, the copy is read-only"
  if as_victim rm -rf "$mine/copy" 2>/dev/null; then fail "premise: the victim's rm -rf removes a read-only tree"; fi
  rc=0; out=$(as_victim cptool "$SB/rotree") || rc=$?
  expect_eq "$rc" 0 "the tool's status"
  local dir; dir=$(printf '%s\n' "$out" | tail -1)
  expect_contains "$dir" "$VBASE/edashim-$VUID-" "the run's TMPDIR is its scratch"
  [ ! -e "$dir" ] || fail "the run's scratch $dir, with a read-only tree in it, was not removed"
  # Left by a killed run: nobody holds its lock. A directory the user cannot even read, inside.
  local left=$VBASE/edashim-$VUID-1-rotree
  as_victim mkdir -p "$left/copy/sub" "$left/dark/inner"
  as_victim chmod 0555 "$left/copy/sub" "$left/copy"
  as_victim chmod 0 "$left/dark"
  victim_runs exit 0
  [ ! -e "$left" ] || fail "the next run's sweep did not remove $left"
}

run_suite "$@"
