#!/usr/bin/env bash
# Issue 24, group 1 and the report/learn part of group 5, with two real local users: a run log
# on shared storage is data another user wrote. Forged arms never become configuration (let
# alone code), a log another user owns is read only from a directory the victim lists in
# shared_dirs, log text never reaches the terminal raw, a malformed line never crashes report,
# and --write works on a first use.
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

# The victim and the attacker, a real yosys run's log line as the template of forged ones
# ($TEMPLATE: the structure every line of a real log has), and the victim's config path.
setup() {
  need yosys python3
  shim yosys
  yosys -V > /dev/null
  TEMPLATE=$SB/template.jsonl
  cp "$LOG" "$TEMPLATE"
  two_users
  chmod 0644 "$TEMPLATE"
  VCONF=$VHOME/.config/edashim/config.toml
}

# forge OUT SPEC: the runs of SPEC (a JSON list of {"arm", "wall", "explored", and optional
# "tool", "cpu", "profile"}) as a real log holds them: 12 runs per arm on each of 3 signatures,
# interleaved. A faster "explored" arm against a current one is what recommend recommends.
forge() {
  python3 - "$TEMPLATE" "$@" <<'PY'
import json, sys
tpl = json.loads(open(sys.argv[1]).read().splitlines()[-1])
spec = json.loads(sys.argv[3])
t = 1.8e9
with open(sys.argv[2], "w") as out:
    for s in range(3):
        for i in range(12):
            for a in spec:
                t += 10
                r = dict(tpl)
                r.update(start_unix=t, tool=a.get("tool", "yosys"), arm=a["arm"], profile=a.get("profile"),
                         signature="%016x" % (0xabc0 + s), signature_text="yosys -p synth%d" % s,
                         wall_s=a["wall"] * (1 + s) * (1 + 0.01 * i), max_rss_kb=12000,
                         exit_code=0, signal=None, status=0,
                         machine=dict(tpl["machine"], cpu=a.get("cpu", tpl["machine"]["cpu"])),
                         explore={"ran": a["arm"], "instead_of": "system"} if a.get("explored", True) else None)
                out.write(json.dumps(r) + "\n")
PY
}

# The attacker's copy of a forged log at $1 (owned by the attacker, as a file they wrote).
plant() {
  as_attacker cp "$SB/forged.jsonl" "$1"
  [ "$(stat -c %U "$1")" = "$ATTACKER" ] || fail "the planted log is not the attacker's"
}

victim_config() {
  printf '%s' "$1" > "$VCONF"
  chown "$VICTIM:$VICTIM" "$VCONF"
}

# One JSON object per arm, the current choice (system, 1.0 s) first.
spec() {
  python3 -c 'import json,sys; print(json.dumps([{"arm": "system", "wall": 1.0, "explored": False}] +
    [{"arm": a, "wall": 0.5} for a in sys.argv[1:]]))' "$@"
}

# No byte of the output is a control character other than newline (ESC, BEL, CR...), and no
# C1 control (U+009B is a CSI too).
no_raw_controls() {
  python3 - "$1" <<'PY' || fail "$2: raw control characters reach the terminal"
import sys
data = open(sys.argv[1], "rb").read()
bad = [b for b in data if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F]
sys.exit(1 if bad or "\u009b".encode() in data else 0)
PY
}

test_forged_arms_in_a_shared_log_never_become_the_victims_config_or_code() {
  setup
  local evil=$SHARED/evil.sh canary=$SHARED/canary
  as_attacker sh -c "printf '#!/bin/sh\ntouch %s\nexec /usr/bin/yosys \"\$@\"\n' '$canary' > '$evil'; chmod 0755 '$evil'"
  forge "$SB/forged.jsonl" "$(spec "jemalloc\"
path = \"$evil" "jemalloc[prof_prefix=$SHARED/prof]" 'tcmalloc[heap_limit_mb=1]')"
  plant "$SHARED/node1.jsonl"
  # The victim shares the team directory on purpose: its logs are read.
  victim_config "shared_dirs = [\"$SHARED\"]"$'\n'
  local before; before=$(cat "$VCONF")
  as_victim "$VBIN" report --recommend --log "$SHARED" --write "$VCONF" > out 2> err || true
  expect_contains "$(cat err)" "ignoring 36 log lines of $SHARED/node1.jsonl: arm 'jemalloc\"\\x0Apath = \"$evil' is not a known allocator" \
    "the quoting arm is ignored and named, escaped"
  expect_contains "$(cat err)" "arm 'jemalloc[prof_prefix=$SHARED/prof]' sets prof_prefix" "a restricted jemalloc option"
  expect_contains "$(cat err)" "arm 'tcmalloc[heap_limit_mb=1]' sets heap_limit_mb" "a restricted tcmalloc option"
  expect_contains "$(cat out)" "--write: nothing recommended" "nothing left to recommend"
  expect_eq "$(cat "$VCONF")" "$before" "the victim's config"

  # With a valid arm among them, only its allocator key is written; nothing of the others.
  forge "$SB/forged.jsonl" "$(spec "jemalloc\"
path = \"$evil" 'tcmalloc[heap_limit_mb=1]' mimalloc)"
  as_attacker rm "$SHARED/node1.jsonl"
  plant "$SHARED/node1.jsonl"
  as_victim "$VBIN" report --recommend --log "$SHARED" --write "$VCONF" > out 2> err || { cat out err; fail "report --write"; }
  expect_contains "$(cat out)" "=> recommend mimalloc for yosys" "the valid arm is recommended"
  python3 - "$VCONF" "$SHARED" <<'PY' || fail "the victim's config holds more than the allocator key: $(cat "$VCONF")"
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))
sys.exit(0 if c == {"shared_dirs": [sys.argv[2]], "tool": {"yosys": {"allocator": "mimalloc"}}} else 1)
PY
  expect_not_contains "$(cat "$VCONF")" "evil" "the attacker's path"
  # The next run of the tool is the real yosys, not the attacker's script.
  as_victim yosys -V > /dev/null 2>&1 || true
  [ ! -e "$canary" ] || fail "the attacker's script ran as the victim"
}

test_a_log_another_user_owns_is_refused_without_shared_dirs() {
  setup
  forge "$SB/forged.jsonl" "$(spec mimalloc)"
  plant "$SHARED_STICKY/node1.jsonl"
  victim_config $'probe = false\n'
  local before; before=$(cat "$VCONF")
  local rc=0
  as_victim "$VBIN" report --recommend --log "$SHARED_STICKY/node1.jsonl" --write "$VCONF" > out 2> err || rc=$?
  expect_eq "$rc" 1 "status"
  expect_contains "$(cat err)" "$SHARED_STICKY/node1.jsonl" "the refusal names the file"
  expect_contains "$(cat err)" "$ATTACKER" "the refusal names its owner"
  expect_contains "$(cat err)" "shared_dirs" "the refusal names the setting"
  expect_not_contains "$(cat out)" "recommend mimalloc" "no verdict from the refused log"
  expect_eq "$(cat "$VCONF")" "$before" "the victim's config"
  # A directory: its foreign file is refused, by name, and the report says it read nothing.
  rc=0
  as_victim "$VBIN" report --log "$SHARED_STICKY" > out 2> err || rc=$?
  expect_eq "$rc" 1 "report over the directory: status"
  expect_contains "$(cat err)" "$SHARED_STICKY/node1.jsonl" "the directory's foreign file is named"
  expect_contains "$(cat err)" "$ATTACKER" "and its owner"
  # A directory anyone can write (not sticky) is refused itself.
  plant "$SHARED/node1.jsonl"
  rc=0
  as_victim "$VBIN" report --recommend --log "$SHARED" > out 2> err || rc=$?
  [ "$rc" -ne 0 ] || fail "a directory others can write was read"
  expect_contains "$(cat err)" "$SHARED" "the refused directory is named"
  expect_not_contains "$(cat out)" "recommend mimalloc" "no verdict from the refused directory"
}

test_escape_sequences_in_forged_log_text_never_reach_the_terminal_raw() {
  setup
  local esc=$'\e]0;owned\a\e[2J\r'
  python3 -c 'import json,sys; e=sys.argv[1]; print(json.dumps([
    {"arm": "system", "wall": 1.0, "explored": False, "cpu": "Xeon" + e, "profile": "base" + e},
    {"arm": "mimalloc", "wall": 0.5, "cpu": "Xeon" + e, "profile": "fast" + e},
    {"arm": "jemalloc" + e, "wall": 0.4},
    {"arm": "mimalloc", "wall": 0.5, "tool": "yosys" + e}]))' "$esc" > spec.json
  forge "$SB/forged.jsonl" "$(cat spec.json)"
  plant "$SHARED/node1.jsonl"
  victim_config "shared_dirs = [\"$SHARED\"]"$'\n'
  as_victim "$VBIN" report --log "$SHARED" --by cpu > out 2>&1 || true
  expect_contains "$(cat out)" 'Xeon\x1B]0;owned\x07\x1B[2J\x0D' "the CPU model, escaped"
  expect_contains "$(cat out)" 'fast\x1B]0;owned' "the profile, escaped"
  no_raw_controls out "report --by cpu"
  as_victim "$VBIN" report --recommend --log "$SHARED" > out 2>&1 || true
  expect_contains "$(cat out)" "=> recommend mimalloc for yosys" "the forged text did not stop the verdict"
  expect_contains "$(cat out)" "arm 'jemalloc\\x1B]0;owned" "the forged arm is named, escaped"
  expect_contains "$(cat out)" "tool 'yosys\\x1B]0;owned" "the forged tool is named, escaped"
  no_raw_controls out "report --recommend"
}

test_a_0xff_byte_or_a_deeply_nested_line_does_not_crash_report_json() {
  setup
  forge "$SB/forged.jsonl" "$(spec mimalloc)"
  # The victim's own log, with lines some other program wrote: a raw 0xFF in strings a report
  # prints (tool, profile, CPU model), and lines nested 200000 deep.
  python3 - "$SB/forged.jsonl" "$VHOME/foreign.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "wb") as out:
    for l in lines:
        r = json.loads(l)
        r["profile"] = "pMARK"
        r["machine"]["cpu"] = "XeonMARK"
        out.write(json.dumps(r).replace("MARK", "\udcff").encode("utf-8", "surrogateescape") + b"\n")
    r = json.loads(lines[0])
    r["tool"] = "toolMARK"
    out.write(json.dumps(r).replace("MARK", "\udcff").encode("utf-8", "surrogateescape") + b"\n")
    out.write(b'{"tool":"yosys","env_set":' + b"[" * 200000 + b"]" * 200000 + b"}\n")
    out.write(b'{"tool":"yosys","allocator_verified":' + b'{"verified":' * 200000 + b"true" + b"}" * 200001 + b"\n")
PY
  chown "$VICTIM:$VICTIM" "$VHOME/foreign.jsonl"
  grep -c $'\xff' "$VHOME/foreign.jsonl" > /dev/null || fail "the log holds no 0xFF byte"
  local rc
  for args in "--json" "--json --by cpu" "--recommend --json"; do
    rc=0
    # shellcheck disable=SC2086
    as_victim "$VBIN" report $args --log "$VHOME/foreign.jsonl" > out 2> err || rc=$?
    [ "$rc" -le 1 ] || { cat err; fail "report $args: status $rc"; }
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' out || fail "report $args: not JSON"
  done
  expect_contains "$(cat out)" '"cpu": "Xeon'$'\xef\xbf\xbd''"' "the 0xFF byte written as U+FFFD"
  as_victim "$VBIN" report --log "$VHOME/foreign.jsonl" > out 2> err || fail "report (text)"
  expect_contains "$(cat out)" 'p\xFF' "the text table escapes it"
}

test_write_creates_the_missing_config_directory() {
  setup
  forge "$SB/forged.jsonl" "$(spec mimalloc)"
  cp "$SB/forged.jsonl" "$VHOME/runs.jsonl"
  chown "$VICTIM:$VICTIM" "$VHOME/runs.jsonl"
  rm -rf "$VHOME/.config"
  as_victim "$VBIN" report --recommend --log "$VHOME/runs.jsonl" --write "$VCONF" > out 2> err || { cat out err; fail "--write"; }
  expect_contains "$(cat out)" "--write: added to $VCONF" "written"
  expect_eq "$(stat -c '%a %U' "$VHOME/.config/edashim")" "700 $VICTIM" "the directory made, the victim's own"
  python3 - "$VCONF" <<'PY' || fail "the new config: $(cat "$VCONF")"
import sys, tomllib
sys.exit(0 if tomllib.load(open(sys.argv[1], "rb")) == {"tool": {"yosys": {"allocator": "mimalloc"}}} else 1)
PY
}

test_a_learned_file_nested_300000_deep_is_ignored_and_runs_go_on() {
  setup
  victim_config $'adopt = true\n'
  python3 -c 'import sys; open(sys.argv[1], "w").write("a" + ".a" * 300000 + " = 1\n")' "$VHOME/.local/state/edashim/learned.toml"
  chown "$VICTIM:$VICTIM" "$VHOME/.local/state/edashim/learned.toml"
  local rc=0
  as_victim mytool exit 0 > out 2> err || rc=$?
  expect_eq "$rc" 0 "the tool's status"
  expect_contains "$(cat err)" "learned.toml:1: a key of more than 16 dotted parts" "the file and the reason"
  rc=0
  as_victim "$VBIN" explain mytool > out 2> err || rc=$?
  [ "$rc" -le 1 ] || fail "explain: status $rc"
}

run_suite "$@"
