#!/usr/bin/env bash
# End-to-end tests of issue 16 item 4, a farm's run logs: `log = ".../{host}.jsonl"` in the user's
# config gives this machine its own file (real yosys runs through the links), and
# `edashim report --log DIR` reads every host's file (and rotated ones), --by host / --by cpu.
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

SYNTH='read_verilog '"$SRC"'/examples/counter/counter.v; synth -top counter; abc'

# This machine's name as edashim puts it in a path (config/log_path.hpp: outside
# [A-Za-z0-9._-] becomes '_', so does a '.' at the start or after another '.').
safe_host() {
  python3 -c '
import re, socket
h = socket.gethostname()
out = "".join("_" if (not re.match(r"[A-Za-z0-9._-]", c) or (c == "." and (i == 0 or h[i-1] == "."))) else c for i, c in enumerate(h))
print(out or "unknown-host")'
}

user_config() { mkdir -p "$XDG_CONFIG_HOME/edashim"; printf '%s\n' "$@" > "$XDG_CONFIG_HOME/edashim/config.toml"; }

# report --json rows as "by=runs" pairs, sorted, for one tool.
rows_by() { python3 -c "
import json, sys
rows = json.load(sys.stdin)
print(' '.join(sorted('%s=%d' % (r['$1'], r['runs']) for r in rows if r['tool'] == '$2')))"; }

test_host_log_is_this_machines_file_and_report_reads_the_farm_directory_by_host_and_cpu() {
  need yosys
  shim yosys yosys-abc berkeley-abc
  local host; host=$(safe_host)
  user_config "log = \"$SB/farm/{host}.jsonl\""
  for _ in 1 2 3; do yosys -q -p "$SYNTH" > /dev/null; done
  expect_eq "$(ls "$SB/farm")" "$host.jsonl" "one file, named for this host"
  [ ! -e "$LOG" ] || fail "the default log was written too"
  expect_eq "$(python3 -c "import json,sys; print(sorted({json.loads(l)['host'] for l in open(sys.argv[1])}))" "$SB/farm/$host.jsonl")" \
    "['$(hostname)']" "the records name the host the file is named for"
  # explain and doctor show the expanded path; report, without --log, reads it.
  expect_contains "$("$BIN" explain yosys)" "$SB/farm/$host.jsonl" "explain"
  expect_contains "$("$BIN" explain yosys)" "$SB/farm/{host}.jsonl, {host} = $(hostname)" "explain: as written"
  expect_contains "$("$BIN" doctor --dir "$SB/shims" 2>&1 || true)" "run log $SB/farm/$host.jsonl is writable" "doctor"
  expect_eq "$("$BIN" report --json | rows_by tool yosys)" "yosys=3" "report reads the expanded path by default"

  # A second machine's file, as another host of the farm writes it: its runs, its CPU.
  python3 - "$SB/farm/$host.jsonl" "$SB/farm/other-node.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
lines = [r for r in lines if r["tool"] == "yosys"]  # ABC's runs have lines of their own (issue 26)
with open(sys.argv[2], "w") as out:
    for r in lines[:2]:
        r["host"] = "other-node"
        r["machine"]["cpu"] = "Other CPU 9000"
        out.write(json.dumps(r) + "\n")
PY
  local cpu; cpu=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['machine']['cpu'])" "$SB/farm/$host.jsonl")
  out=$("$BIN" report --log "$SB/farm" --by host --json)
  expect_eq "$(rows_by host yosys <<<"$out")" "$(printf '%s\n' "$(hostname)=3" "other-node=2" | LC_ALL=C sort | paste -sd' ')" "--by host: both hosts, their run counts"
  out=$("$BIN" report --log "$SB/farm" --by cpu --json)
  expect_eq "$(rows_by cpu yosys <<<"$out")" "$(printf '%s\n' "$cpu=3" "Other CPU 9000=2" | LC_ALL=C sort | paste -sd' ')" "--by cpu"
  # Several --log: the same as the directory; the text table has a host column.
  out=$("$BIN" report --log "$SB/farm/$host.jsonl" --log "$SB/farm/other-node.jsonl" --by host)
  expect_contains "$out" "other-node" "two --log files"
  expect_contains "$(head -1 <<<"$out")" "host" "the column is named host"
  expect_eq "$("$BIN" report --log "$SB/farm" --json | rows_by tool yosys)" "yosys=5" "all runs of the farm together"
}

test_rotated_host_logs_are_read_from_the_directory() {
  local host; host=$(safe_host)
  # A line is over 1 KiB: past 0.001 MiB every run rotates the log, so 3 runs leave 3 files.
  user_config "log = \"$SB/farm/{host}.jsonl\"" "log_max_mb = 0.001" "log_keep = 5"
  for i in 1 2 3; do mytool exit 0; done
  expect_eq "$(ls "$SB/farm" | xargs)" "$host.jsonl $host.jsonl.1 $host.jsonl.2" "rotated files of this host"
  : > "$SB/farm/notes.txt"
  mkfifo "$SB/farm/pipe.jsonl"  # not a regular file: never opened (it would block)
  out=$(timeout 20 "$BIN" report --log "$SB/farm" --json)
  expect_eq "$(rows_by tool mytool <<<"$out")" "mytool=3" "every rotated file counts, the rest are passed over"
}

test_a_log_that_cannot_be_read_is_named_and_the_others_still_count() {
  user_config "log = \"$SB/farm/{host}.jsonl\""
  mytool exit 0
  mytool exit 0
  rc=0; out=$("$BIN" report --log "$SB/farm" --log "$SB/gone.jsonl" --json 2> err) || rc=$?
  expect_eq "$rc" 1 "exit status 1: the figures are from part of the logs"
  expect_contains "$(cat err)" "cannot open the run log $SB/gone.jsonl" "the unreadable log is named"
  expect_contains "$(cat err)" "the other logs still count" "and says the rest count"
  expect_eq "$(rows_by tool mytool <<<"$out")" "mytool=2" "the readable ones' runs"
  mkdir "$SB/empty"
  rc=0; "$BIN" report --log "$SB/empty" 2> err || rc=$?
  expect_contains "$(cat err)" "no run logs (*.jsonl, *.jsonl.N) in $SB/empty" "an empty directory is said"
  rc=0; "$BIN" report --log "$SB/gone.jsonl" > out 2>&1 || rc=$?
  expect_eq "$rc" 1 "nothing readable: status 1"
  expect_not_contains "$(cat out)" "no runs" "and no table of nothing"
  # --recommend takes several logs too, and adopts nothing on part of them.
  rc=0; out=$("$BIN" report --recommend --log "$SB/farm" --log "$SB/gone.jsonl" 2>&1) || rc=$?
  expect_eq "$rc" 1 "recommend: status 1"
  expect_contains "$out" "nothing is adopted" "recommend: nothing adopted on part of the evidence"
  rc=0; out=$("$BIN" report --recommend --log "$SB/farm" --json 2>&1) || rc=$?
  expect_eq "$rc" 0 "recommend reads a directory"
  expect_contains "$out" "\"runs_used\"" "recommend's JSON"
}

test_an_unknown_placeholder_is_an_error_at_its_file_and_line_and_the_tool_runs_plain() {
  user_config "probe = true" "log = \"$SB/farm/{user}.jsonl\""
  err=$(mytool env LD_PRELOAD 2>&1 >/dev/null)
  expect_contains "$err" "$XDG_CONFIG_HOME/edashim/config.toml:2:7: error: unknown placeholder {user} in 'log'; the one placeholder is {host}" "located message"
  [ ! -e "$SB/farm" ] || fail "no path was made from it"
  rc=0; EDASHIM_LOG="$SB/{date}.jsonl" "$BIN" run --strict -- mytool exit 0 2> err || rc=$?
  expect_eq "$rc" 2 "EDASHIM_LOG with another placeholder: --strict stops"
  expect_contains "$(cat err)" "EDASHIM_LOG: error: unknown placeholder {date} in EDASHIM_LOG" "EDASHIM_LOG named"
  "$BIN" report > /dev/null 2> err || true
  expect_contains "$(cat err)" "unknown placeholder {user}" "report says why runs are not logged"
}

run_suite "$@"
