#!/usr/bin/env bash
# trust, untrust and doctor on a project file the user chose not to trust (issue 28 item 6).
source "$(dirname "$0")/lib.sh"

test_untrust_of_a_never_trusted_file_is_not_an_error() {
  printf 'allocator = "jemalloc"\n' > .edashim.toml
  rc=0
  "$BIN" untrust > out.txt 2> err.txt || rc=$?
  expect_eq "$rc" 0 "the file is left as asked: not trusted"
  expect_contains "$(cat err.txt)" ".edashim.toml was not trusted: nothing to revoke" "says so"
  "$BIN" trust 2> /dev/null || fail "trust failed"
  "$BIN" untrust 2> err.txt || fail "untrust of a trusted file failed: $(cat err.txt)"
  expect_contains "$(cat err.txt)" "no longer trusted" "revoked"
}

# A file no run reads is never answered "trusted" (issue 38 item 6): edashim.toml without its
# dot, a profile. The message says what the right name is.
test_trust_refuses_a_file_no_run_reads() {
  printf 'allocator = "jemalloc"\n' > edashim.toml
  for how in "trust edashim.toml" "trust --ignore edashim.toml" "trust $PWD/edashim.toml"; do
    rc=0
    # shellcheck disable=SC2086
    "$BIN" $how > out.txt 2> err.txt || rc=$?
    expect_eq "$rc" 1 "$how: refused"
    expect_contains "$(cat err.txt)" "no run reads this file" "$how: what is wrong"
    expect_contains "$(cat err.txt)" "mv $PWD/edashim.toml $PWD/.edashim.toml" "$how: what would be right"
  done
  printf 'allocator = "mimalloc"\n' > fast.toml
  rc=0; "$BIN" trust fast.toml 2> err.txt || rc=$?
  expect_eq "$rc" 1 "a profile: refused"
  expect_contains "$(cat err.txt)" "needs no trust" "a profile: why"
  [ ! -e "$XDG_STATE_HOME/edashim/trusted" ] || fail "nothing is recorded: $(cat "$XDG_STATE_HOME/edashim/trusted")"
  mv edashim.toml .edashim.toml
  "$BIN" trust 2> err.txt || fail "the right name is trusted: $(cat err.txt)"
}

test_doctor_notes_an_untrusted_project_file_without_failing() {
  mkdir plain project
  rc_plain=0
  (cd plain && "$BIN" doctor --dir "$SB/shims" > ../plain.txt 2>&1) || rc_plain=$?
  printf '[env]\nSECRET = "1"\n' > project/.edashim.toml
  rc=0
  (cd project && "$BIN" doctor --dir "$SB/shims" > ../project.txt 2>&1) || rc=$?
  expect_contains "$(cat project.txt)" "note     $SB/work/project/.edashim.toml is not trusted" "a note, with the file"
  expect_contains "$(cat project.txt)" "edashim trust" "and how to use its settings"
  expect_not_contains "$(cat project.txt)" "PROBLEM  $SB/work/project/.edashim.toml is not trusted" "not a problem"
  expect_eq "$rc" "$rc_plain" "the same status as without the file (rest of doctor: $(grep PROBLEM plain.txt))"
  expect_eq "$(grep -c PROBLEM project.txt)" "$(grep -c PROBLEM plain.txt)" "no problem more than without the file"
}

run_suite "$@"
