#!/usr/bin/env bash
# Scratch faults (issue 6): a tmpfs that fills up mid-run (the tool sees ENOSPC as it would on
# any disk, and the scratch is removed afterwards), and a scratch base that is missing, not
# writable or not tmpfs (the run goes on with the user's TMPDIR and the log says why).
# EDASHIM_SCRATCH_BASES points the search at the test's own mounts.
source "$(dirname "$0")/lib.sh"
FAULT=${FAULT_TOOL:?FAULT_TOOL: path to fault_tool}

mount_tmpfs() {  # DIR OPTIONS
  [ "$(id -u)" = 0 ] || return 1
  mkdir -p "$1"
  mount -t tmpfs -o "$2" tmpfs "$1" || return 1
  MOUNTS+=("$1")
  trap 'for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || true; done' EXIT
}
MOUNTS=()

# The user's own configuration: an untrusted project file may not override a TMPDIR.
config() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf "$1" > "$XDG_CONFIG_HOME/edashim/config.toml"
}

setup() {
  cp "$FAULT" "$SB/real/ftool"
  shim ftool
  # "override": the user's TMPDIR below is replaced when a base is usable (issue 12 item 11).
  config 'scratch = "override"\nscratch_min_free_mb = 0\nscratch_min_free_percent = 0\n'
  mkdir -p "$SB/usertmp"
  export TMPDIR=$SB/usertmp
}

test_tmpfs_full_mid_run_gives_the_tool_enospc_and_the_scratch_is_removed() {
  setup
  mount_tmpfs "$SB/tiny" size=256k || skip "needs root to mount tmpfs"
  mount_tmpfs "$SB/disk" size=256k
  # Without edashim, on a full filesystem of the same size.
  rc=0; plain=$(EDASHIM=off TMPDIR=$SB/disk ftool fill) || rc=$?
  expect_contains "$plain" "write: ENOSPC" "the premise: a full tmpfs gives ENOSPC"
  rc=0; out=$(EDASHIM_SCRATCH_BASES=$SB/tiny ftool fill) || rc=$?
  expect_eq "${out% after *}" "${plain% after *}" "the tool saw the same error"
  # The same amount, but for the scratch directory's own block.
  local diff=$(( $(awk '{print $4}' <<<"$plain") - $(awk '{print $4}' <<<"$out") ))
  [ "$diff" -ge 0 ] && [ "$diff" -le 8192 ] || fail "wrote $out, without edashim $plain"
  expect_eq "$rc" 0 "status"
  expect_eq "$(ls -A "$SB/tiny/edashim-$(id -u)")" "" "the scratch was removed (the user's own base stays)"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["dir"]')" "$SB/tiny/edashim-$(id -u)/edashim-" "the log names the scratch"
  expect_eq "$(df --output=used -k "$SB/tiny" | tail -1 | tr -d ' ')" 0 "the space is back"
}

test_missing_scratch_base_runs_with_the_users_tmpdir_and_logs_why() {
  setup
  out=$(EDASHIM_SCRATCH_BASES=/nonexistent/shm mytool env TMPDIR)
  expect_eq "$out" "TMPDIR=$SB/usertmp" "the user's TMPDIR"
  expect_eq "$(last_log "$LOG" 'j["scratch"]["dir"]')" None "no scratch"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "/nonexistent/shm: No such file or directory" "the log says why"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "TMPDIR left as it was" "and what was done"
}

test_scratch_base_not_tmpfs_or_too_small_runs_with_the_users_tmpdir() {
  setup
  local notmpfs=$SB/ondisk
  mkdir -p "$notmpfs"
  [ "$(stat -f -c %T "$notmpfs")" = tmpfs ] && notmpfs=/proc
  out=$(EDASHIM_SCRATCH_BASES=$notmpfs mytool env TMPDIR)
  expect_eq "$out" "TMPDIR=$SB/usertmp" "not tmpfs: the user's TMPDIR"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "$notmpfs: not tmpfs" "the log says why"
  config 'scratch = "override"\nscratch_min_free_mb = 100000000\n'
  out=$(EDASHIM_SCRATCH_BASES=/dev/shm mytool env TMPDIR)
  expect_eq "$out" "TMPDIR=$SB/usertmp" "too small: the user's TMPDIR"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "scratch_min_free_mb = 100000000 asks for 100000000 MiB" "the log says why"
}

test_the_free_space_asked_for_is_a_share_of_ram_not_a_fixed_size() {
  setup
  # 300 MiB: more than the 256 MiB once required, less than 10 % of any machine with 4 GiB.
  mount_tmpfs "$SB/mid" size=300m || skip "needs root to mount tmpfs"
  [ "$(awk '/MemTotal/ {print $2}' /proc/meminfo)" -ge $((4 << 20)) ] || skip "needs 4 GiB of RAM"
  config 'scratch = "override"\n'
  out=$(EDASHIM_SCRATCH_BASES=$SB/mid mytool env TMPDIR)
  expect_eq "$out" "TMPDIR=$SB/usertmp" "less than 10 % of RAM free (the default): the user's TMPDIR"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "scratch_min_free_percent = 10 (of " "the log says why"
  config 'scratch = "override"\nscratch_min_free_percent = 0.1\n'
  out=$(EDASHIM_SCRATCH_BASES=$SB/mid mytool env TMPDIR)
  expect_contains "$out" "TMPDIR=$SB/mid/edashim-" "a smaller share: the tmpfs"
}

test_read_only_scratch_base_runs_with_the_users_tmpdir() {
  setup
  mount_tmpfs "$SB/ro" size=256k,ro || skip "needs root to mount tmpfs"
  out=$(EDASHIM_SCRATCH_BASES=$SB/ro mytool env TMPDIR)
  expect_eq "$out" "TMPDIR=$SB/usertmp" "the user's TMPDIR"
  expect_contains "$(last_log "$LOG" 'j["scratch"]["note"]')" "$SB/ro: not writable" "the log says why"
  # The first base is unusable, the second is used.
  mount_tmpfs "$SB/ok" size=256k
  out=$(EDASHIM_SCRATCH_BASES=$SB/ro:$SB/ok mytool env TMPDIR)
  expect_contains "$out" "TMPDIR=$SB/ok/edashim-" "falls through to the next base"
}

test_keep_scratch_on_a_full_tmpfs_keeps_the_files_and_logs_the_path() {
  setup
  mount_tmpfs "$SB/tiny" size=128k || skip "needs root to mount tmpfs"
  config 'scratch = "override"\nscratch_min_free_mb = 0\nscratch_min_free_percent = 0\nkeep_scratch = true\n'
  EDASHIM_SCRATCH_BASES=$SB/tiny ftool fill >/dev/null
  local dir; dir=$(last_log "$LOG" 'j["scratch"]["dir"]')
  expect_contains "$dir" "$SB/tiny/edashim-" "path logged"
  expect_eq "$(last_log "$LOG" 'j["scratch"]["kept"]')" True "kept"
  [ -s "$dir/fill" ] || fail "the tool's file was not kept"
}

run_suite "$@"
