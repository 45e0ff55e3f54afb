#!/usr/bin/env bash
# Shared storage is hostile (issue 24, group 2): a run log in a directory another user can
# write. Two real local users: the attacker plants links and files where the victim's log goes;
# nothing of the victim's may be written through them, and no line of the victim's runs may reach
# a file the attacker can read, unless the victim named the directory in shared_dirs. Each case
# also checks the tool's own result: a refused log never changes the run.
source "$(dirname "$0")/lib.sh"

# The victim's own config, owned by the victim.
victim_config() {
  printf '%s\n' "$@" > "$VHOME/.config/edashim/config.toml"
  chown "$VICTIM:$VICTIM" "$VHOME/.config/edashim/config.toml"
}

# Runs `mytool exit 3` as the victim; ERR holds its stderr. The status must be the tool's.
victim_runs() {
  local rc=0
  ERR=$(as_victim mytool exit 3 2>&1 >/dev/null) || rc=$?
  expect_eq "$rc" 3 "$1: the tool's status through edashim"
}

test_a_log_linked_to_the_victims_bashrc_is_never_written() {
  two_users
  printf 'export KEEP=1\n' > "$VHOME/.bashrc"; chown "$VICTIM:$VICTIM" "$VHOME/.bashrc"
  local before; before=$(sha256sum < "$VHOME/.bashrc")
  victim_config "log = \"$SHARED/{host}.jsonl\""
  as_attacker ln -s "$VHOME/.bashrc" "$SHARED/$(hostname).jsonl"
  victim_runs "link to .bashrc"
  expect_eq "$(sha256sum < "$VHOME/.bashrc")" "$before" ".bashrc unchanged"
  expect_contains "$ERR" "$SHARED" "the refusal names the directory"
  expect_contains "$ERR" "writable by others" "and says what is wrong"
  expect_contains "$ERR" "shared_dirs" "and the setting that allows a shared directory"
  # Shared on purpose: the directory is accepted, but a link in it is still never followed.
  victim_config "log = \"$SHARED/{host}.jsonl\"" "shared_dirs = [\"$SHARED\"]"
  victim_runs "link to .bashrc, directory shared"
  expect_eq "$(sha256sum < "$VHOME/.bashrc")" "$before" ".bashrc unchanged with shared_dirs"
  expect_contains "$ERR" "symbolic link" "says it is a link"
  # The same through a sticky directory (/tmp's kind): the attacker's link there is theirs.
  victim_config "log = \"$SHARED_STICKY/runs.jsonl\""
  as_attacker ln -s "$VHOME/.config/edashim/config.toml" "$SHARED_STICKY/runs.jsonl"
  local config; config=$(cat "$VHOME/.config/edashim/config.toml")
  victim_runs "link to config.toml in a sticky directory"
  expect_eq "$(cat "$VHOME/.config/edashim/config.toml")" "$config" "config.toml unchanged"
  expect_contains "$ERR" "symbolic link owned by $ATTACKER" "names the link's owner"
}

test_a_log_file_the_attacker_made_world_writable_gets_no_line() {
  two_users
  # The attacker creates the log first, readable and writable by everyone, to read every
  # command line, directory and environment change of the victim's runs.
  as_attacker bash -c "umask 0; : > '$SHARED_STICKY/team.jsonl'"
  victim_config "log = \"$SHARED_STICKY/team.jsonl\""
  victim_runs "an attacker's 0666 log"
  expect_eq "$(stat -c %s "$SHARED_STICKY/team.jsonl")" 0 "no line of the victim's run in the attacker's file"
  expect_contains "$ERR" "owned by $ATTACKER" "the refusal names the owner"
  expect_contains "$ERR" "0666" "and the mode"
  # A hard link to a file of the victim's, made where the victim's log goes, is refused too
  # (protected_hardlinks stops the attacker on most systems; root shows the rule does too).
  printf 'mine\n' > "$VHOME/notes"; chown "$VICTIM:$VICTIM" "$VHOME/notes"
  ln "$VHOME/notes" "$SHARED_STICKY/hard.jsonl"
  victim_config "log = \"$SHARED_STICKY/hard.jsonl\""
  victim_runs "a hard link"
  expect_eq "$(cat "$VHOME/notes")" "mine" "the hard-linked file is unchanged"
  expect_contains "$ERR" "hard links" "says why"
  rm -f "$SHARED_STICKY/hard.jsonl"
  # Once the victim names the directory as shared, the team log is written (so the checks above
  # could fail): the attacker's file is accepted there, on purpose.
  victim_config "log = \"$SHARED_STICKY/team.jsonl\"" "shared_dirs = [\"$SHARED_STICKY\"]"
  victim_runs "shared on purpose"
  expect_eq "$(wc -l < "$SHARED_STICKY/team.jsonl")" 1 "the victim's line, with shared_dirs"
  expect_eq "$ERR" "" "nothing said"
}

test_the_victims_own_log_is_created_private_and_used() {
  two_users
  victim_runs "default log"
  expect_eq "$ERR" "" "nothing said"
  expect_eq "$(wc -l < "$VLOG")" 1 "one line"
  expect_eq "$(stat -c '%U %a' "$VLOG")" "$VICTIM 600" "the victim's, 0600"
  # The log directory made group-writable by mistake: refused, and said with the fix.
  chmod 0777 "$(dirname "$VLOG")"
  victim_runs "a log directory others can write"
  expect_eq "$(wc -l < "$VLOG")" 1 "no line added"
  expect_contains "$ERR" "chmod go-w" "the fix"
}

test_doctor_says_what_runs_would_refuse_and_notes_a_shared_log_directory() {
  two_users
  victim_config "log = \"$SHARED/runs.jsonl\""
  local out rc=0
  out=$(as_victim "$VBIN" doctor --dir "$SB/shims" 2>&1) || rc=$?
  expect_eq "$rc" 1 "a log runs would refuse is a problem"
  expect_contains "$out" "PROBLEM  run log $SHARED/runs.jsonl: runs would refuse it" "doctor names the log"
  expect_contains "$out" "writable by others" "and why"
  victim_config "log = \"$SHARED/runs.jsonl\"" "shared_dirs = [\"$SHARED\"]"
  out=$(as_victim "$VBIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_not_contains "$out" "runs would refuse it" "shared on purpose: accepted"
  expect_contains "$out" "run log directory $SHARED is shared (shared_dirs): other users can add lines" \
    "doctor notes that others can write the shared log directory"
  # The trust store and learned choices must be the victim's alone: doctor says so.
  : > "$VHOME/.local/state/edashim/trusted"; chown "$VICTIM" "$VHOME/.local/state/edashim/trusted"
  chmod 0666 "$VHOME/.local/state/edashim/trusted"
  out=$(as_victim "$VBIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "PROBLEM  the trust store $VHOME/.local/state/edashim/trusted: runs would refuse it" \
    "a world-writable trust store is a problem"
}

# Another user's project file where anyone can leave one (the attacker's /tmp/.edashim.toml;
# here a sticky 1777 directory as /tmp is): not the victim's to hear about. Runs below it say
# nothing and do what the tool does directly; explain and doctor still list it, and why.
test_another_users_project_file_in_a_shared_directory_is_ignored_silently() {
  two_users
  local proj=$SHARED_STICKY/proj
  mkdir "$proj"; chown "$VICTIM:$VICTIM" "$proj"
  as_attacker bash -c "printf 'locale = \"C\"\\n' > '$SHARED_STICKY/.edashim.toml'"
  expect_eq "$(stat -c %U "$SHARED_STICKY/.edashim.toml")" "$ATTACKER" "the attacker's file is there"
  in_proj() { (cd "$proj" && as_user "$VICTIM" "$@"); }
  local direct out rc=0
  direct=$(in_proj "$SB/real/mytool" env LC_ALL 2>&1)
  out=$(in_proj mytool env LC_ALL 2>"$SB/err") || rc=$?
  expect_eq "$rc" 0 "the tool's status"
  expect_eq "$out" "$direct" "the same output as directly"
  expect_eq "$(cat "$SB/err")" "" "nothing on stderr"
  rc=0; in_proj mytool exit 3 2>"$SB/err" >/dev/null || rc=$?
  expect_eq "$rc" 3 "a second run: the tool's status"
  expect_eq "$(cat "$SB/err")" "" "a second run: nothing on stderr"
  local why="ignored: owned by $ATTACKER (uid $(id -u "$ATTACKER")) in $SHARED_STICKY, a directory that is not yours"
  out=$(in_proj "$VBIN" explain mytool 2>&1) || true
  expect_contains "$out" "$SHARED_STICKY/.edashim.toml  NOT used: $why" "explain lists it and says why"
  out=$(in_proj "$VBIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "$why" "doctor says it too"
  # In a directory of the victim's own, another user's file is still said (it should not be there).
  local own=$VHOME/work/own; mkdir -p "$own/sub"
  printf 'locale = "C"\n' > "$own/.edashim.toml"; chown "$ATTACKER" "$own/.edashim.toml"; chown -R "$VICTIM:$VICTIM" "$own/sub"
  chown "$VICTIM:$VICTIM" "$own"
  out=$( (cd "$own/sub" && as_user "$VICTIM" mytool exit 0) 2>&1) || true
  expect_contains "$out" "skipped: " "in the victim's own directory: said"
}

run_suite "$@"
