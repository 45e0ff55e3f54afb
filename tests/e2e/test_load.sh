#!/usr/bin/env bash
# Load on the run log (issue 6): 64 runs at once and 1000 in sequence append to one log with
# every line whole and none lost; rotation under concurrent writers loses nothing and keeps
# N files; a full disk or an unwritable log never changes the tool's result.
source "$(dirname "$0")/lib.sh"

# check_log EXPECTED FILES...: every line of FILES parses, carries a distinct "run-N" argv[2],
# and there are EXPECTED of them.
check_log() {
  python3 - "$@" <<'PY'
import json, sys
expected, files = int(sys.argv[1]), sys.argv[2:]
seen = []
for f in files:
    for n, line in enumerate(open(f, encoding="utf-8").read().split("\n")[:-1], 1):
        try:
            seen.append(json.loads(line)["argv"][2])
        except Exception as e:
            sys.exit("%s:%d: torn or unparsable line (%s): %.80s" % (f, n, e, line))
assert len(seen) == expected, "%d lines, expected %d" % (len(seen), expected)
assert len(set(seen)) == expected, "duplicated lines"
PY
}

test_64_concurrent_runs_lose_and_tear_nothing() {
  local pad; pad=$(head -c 4000 /dev/zero | tr '\0' x)  # lines well past PIPE_BUF
  for i in $(seq 64); do timeout 60 mytool args "run-$i" "$pad" >/dev/null & done
  wait
  check_log 64 "$LOG"
}

test_1000_sequential_runs_all_logged() {
  for i in $(seq 1000); do mytool args "run-$i" >/dev/null; done
  check_log 1000 "$LOG"
}

test_rotation_under_concurrent_writers_loses_nothing() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'log_max_mb = 0.02\nlog_keep = 100\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  for wave in 1 2 3 4; do
    for i in $(seq 64); do timeout 60 mytool args "run-$wave-$i" >/dev/null & done
    wait
  done
  local files; files=$(ls "$LOG"*)
  check_log 256 $files
  [ "$(wc -w <<<"$files")" -ge 5 ] || fail "expected several rotated files, got: $files"
  for f in $files; do
    [ "$(stat -c %s "$f")" -le $((20972 + 4000)) ] || fail "$f is past the limit by more than a line"
  done
}

test_rotation_keeps_only_log_keep_old_files() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'log_max_mb = 0.005\nlog_keep = 2\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  for i in $(seq 60); do mytool args "run-$i" >/dev/null; done
  expect_eq "$(cd "$(dirname "$LOG")" && ls)" $'runs.jsonl\nruns.jsonl.1\nruns.jsonl.2' "the log and two old ones"
  # The newest run is in the current file, the two before it whole.
  expect_eq "$(last_log "$LOG" 'j["argv"][2]')" run-60 "the latest run"
  python3 -c 'import json,sys; [json.loads(l) for f in sys.argv[1:] for l in open(f)]' "$LOG" "$LOG.1" "$LOG.2"
}

test_a_log_on_dev_full_never_fails_the_run() {
  rc=0; err=$(EDASHIM_LOG=/dev/full mytool exit 4 2>&1) || rc=$?
  expect_eq "$rc" 4 "/dev/full: the tool's status"
  expect_eq "$(grep -c 'run log not written' <<<"$err")" 1 "/dev/full: one warning"
  expect_contains "$err" "No space left on device" "/dev/full: says why"
}

test_a_log_on_a_filling_tmpfs_keeps_whole_lines_and_the_tools_status() {
  [ "$(id -u)" = 0 ] || skip "not root: cannot mount a small tmpfs"
  mkdir "$SB/tiny"
  mount -t tmpfs -o size=64k tmpfs "$SB/tiny" || skip "mount failed"
  trap 'umount "$SB/tiny" 2>/dev/null || true' EXIT
  EDASHIM_LOG=$SB/tiny/runs.jsonl mytool args run-1 >/dev/null
  dd if=/dev/zero of="$SB/tiny/filler" bs=1k count=1000 2>/dev/null || true
  rm -f "$SB/tiny/filler"; head -c $((64 * 1024 - 4096 - 2000)) /dev/zero > "$SB/tiny/filler"
  # Some lines fit, then a line is cut by the full disk: no partial line may remain.
  local pad; pad=$(head -c 3000 /dev/zero | tr '\0' x)
  local warnings=0
  for i in $(seq 2 8); do
    rc=0; err=$(EDASHIM_LOG=$SB/tiny/runs.jsonl mytool args "run-$i" "$pad" 2>&1 >/dev/null) || rc=$?
    expect_eq "$rc" 0 "run $i on a full disk: the tool's status"
    if [[ -n "$err" ]]; then
      warnings=$((warnings + 1))
      expect_eq "$(wc -l <<<"$err")" 1 "run $i: one warning line"
      expect_contains "$err" "No space left on device" "run $i: says why"
    fi
  done
  [ "$warnings" -ge 1 ] || fail "the disk never filled (test premise)"
  python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$SB/tiny/runs.jsonl" ||
    fail "a partial line was left in the log"
  # A read-only log directory.
  mount -o remount,ro "$SB/tiny"
  rc=0; err=$(EDASHIM_LOG=$SB/tiny/new/runs.jsonl mytool exit 6 2>&1) || rc=$?
  expect_eq "$rc" 6 "read-only: the tool's status"
  expect_contains "$err" "run log not written" "read-only: one warning"
}

run_suite "$@"
