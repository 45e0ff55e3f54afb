#!/usr/bin/env bash
# Where edashim is installed and where it logs, as a run really meets them: a prefix with a space
# (ld.so splits LD_PRELOAD at spaces and colons), a log path under /proc, a log directory on a
# read-only mount (root passes every mode check, so only a real open tells), and doctor saying
# each where "all well" would be wrong.
source "$(dirname "$0")/lib.sh"

# This build's edashim, copied into a directory whose path has a space: what an install under
# "/home/Jane Doe/.local" runs.
spaced_copy() {
  SPACED="$SB/Jane Doe/bin"
  mkdir -p "$SPACED"
  for f in edashim edashim-cli edashim-build-tree libedashim_probe.so; do cp "$(dirname "$BIN")/$f" "$SPACED/"; done
  ln -sf "$SPACED/edashim" "$SB/shims/yosys"
}

test_install_refuses_a_prefix_with_a_space_and_names_it() {
  local rc=0
  bash "$SRC/install/install.sh" --no-packages --no-path --no-example --from-build "$(dirname "$(dirname "$BIN")")" --prefix "$SB/Jane Doe/.local" >out.txt 2>err.txt || rc=$?
  expect_eq "$rc" 1 "install.sh's status"
  expect_contains "$(cat err.txt)" "cannot install under '$SB/Jane Doe/.local'" "the refusal names the prefix"
  expect_contains "$(cat err.txt)" "space or colon" "the refusal says why"
  expect_contains "$(cat err.txt)" "--prefix /opt/edashim" "the refusal says what would work"
  [ ! -e "$SB/Jane Doe" ] || fail "install.sh created the prefix it refused"
  rc=0
  bash "$SRC/install/install.sh" --no-packages --no-path --no-example --from-build "$(dirname "$(dirname "$BIN")")" --prefix "$SB/a:b" >out.txt 2>err.txt || rc=$?
  expect_eq "$rc" 1 "install.sh's status for a colon"
  expect_contains "$(cat err.txt)" "cannot install under '$SB/a:b'" "a colon is refused too"
}

test_a_probe_path_with_a_space_runs_yosys_as_directly_without_ld_so_errors() {
  spaced_copy
  local st_direct=0 st_via=0
  /usr/bin/yosys -V >direct.out 2>direct.err || st_direct=$?
  yosys -V >via.out 2>via.err || st_via=$?
  expect_eq "$st_via" "$st_direct" "status through the link"
  expect_eq "$(cat via.out)" "$(cat direct.out)" "stdout through the link"
  expect_not_contains "$(cat via.err)" "ERROR: ld.so" "stderr through the link"
  expect_contains "$(cat via.err)" "$SPACED/libedashim_probe.so is left out of LD_PRELOAD" "the run says why, once"
  # Said once a session: the next run's stderr is the direct run's.
  st_via=0
  yosys -V >via.out 2>via.err || st_via=$?
  expect_eq "$st_via" "$st_direct" "status of the second run"
  expect_eq "$(cat via.err)" "$(cat direct.err)" "stderr of the second run"
  expect_contains "$("$SPACED/edashim" explain yosys)" "is left out of LD_PRELOAD" "explain says it"
  # The line says why the probe did not run (it is installed), and its notice a fix that fits a tarball too.
  expect_eq "$(last_log "$LOG" 'j["verification"]')" \
    "probe not run: its library's path has a space or colon, which LD_PRELOAD cannot carry ($SPACED/libedashim_probe.so)" \
    "the line's verification"
  expect_contains "$(last_notices)" "or unpack the tarball there" "the fix for a tarball"
}

test_doctor_names_a_library_path_ld_so_would_split() {
  spaced_copy
  local rc=0
  "$SPACED/edashim" doctor --dir "$SB/shims" >out.txt 2>&1 || rc=$?
  expect_eq "$rc" 1 "doctor's status"
  expect_contains "$(cat out.txt)" "PROBLEM  the probe library $SPACED/libedashim_probe.so has a space or colon" "doctor"
  expect_not_contains "$(cat out.txt)" "all well" "doctor"
}

test_doctor_refuses_a_log_under_proc_and_says_why() {
  local rc=0
  EDASHIM_LOG=/proc/edashim/runs.jsonl "$BIN" doctor --dir "$SB/shims" >out.txt 2>&1 || rc=$?
  expect_eq "$rc" 1 "doctor's status"
  expect_contains "$(cat out.txt)" "PROBLEM  run log /proc/edashim/runs.jsonl is under /proc, the kernel's own file system" "doctor"
  expect_contains "$(cat out.txt)" "fix: another log path: export EDASHIM_LOG=FILE" "doctor's fix"
}

test_doctor_names_a_read_only_log_directory_and_the_fix_that_works() {
  [ "$(id -u)" = 0 ] || skip "needs root to mount a read-only tmpfs"
  mkdir -p "$SB/ro"
  mount -t tmpfs -o size=1m tmpfs "$SB/ro" || fail "mount tmpfs"
  mkdir "$SB/ro/logs" && mount -o remount,ro "$SB/ro" || { umount "$SB/ro"; fail "remount ro"; }
  local rc=0
  EDASHIM_LOG=$SB/ro/logs/runs.jsonl "$BIN" doctor --dir "$SB/shims" >out.txt 2>&1 || rc=$?
  local listing; listing=$(ls -A "$SB/ro/logs")
  umount "$SB/ro"
  expect_eq "$rc" 1 "doctor's status"
  expect_contains "$(cat out.txt)" "$SB/ro/logs is on a read-only file system" "doctor"
  expect_contains "$(cat out.txt)" "fix: another log path (a chmod cannot help): export EDASHIM_LOG=FILE" "doctor's fix"
  expect_not_contains "$(cat out.txt)" "chmod u+w" "doctor's fix"
  expect_eq "$listing" "" "doctor left nothing in the directory"
}

test_doctor_leaves_nothing_in_a_writable_log_directory() {
  mkdir -p "$SB/logs"
  EDASHIM_LOG=$SB/logs/runs.jsonl "$BIN" doctor --dir "$SB/shims" >out.txt 2>&1 || true
  expect_contains "$(cat out.txt)" "ok       run log $SB/logs/runs.jsonl is writable" "doctor"
  expect_eq "$(ls -A "$SB/logs")" "" "doctor left nothing in the directory"
}

run_suite "$@"
