#!/usr/bin/env bash
# End-to-end tests of the core launcher: dispatch, profiles, trust, transparency, the run log,
# with Debian's real yosys and berkeley-abc and the real allocator libraries.
source "$(dirname "$0")/lib.sh"

SYNTH='read_verilog '"$SRC"'/examples/counter/counter.v; synth -top counter; abc; tee -o stat.txt stat; write_verilog -noattr net.v'

test_link_runs_the_real_tool_with_its_argv0() {
  out=$(mytool args a "b c")
  expect_eq "$out" $'mytool\nargs\na\nb c' "argv as typed"
  out=$("$SB/shims/mytool" args)
  expect_eq "$(head -1 <<<"$out")" "$SB/shims/mytool" "argv[0] with a path stays as typed"
}

test_edashim_run_works_without_links() {
  rm "$SB/shims/mytool"
  out=$("$BIN" run -- mytool args x)
  expect_eq "$out" $'mytool\nargs\nx' "edashim run"
  out=$("$BIN" run -a jemalloc mytool args -q --x)
  expect_eq "$out" $'mytool\nargs\n-q\n--x' "no -- needed; the tool's options stay the tool's"
  out=$("$BIN" run -- "$SB/real/mytool" args)
  expect_eq "$(head -1 <<<"$out")" "$SB/real/mytool" "explicit path"
}

test_the_shim_hands_its_own_name_to_the_command_and_carries_no_cli() {
  expect_contains "$("$BIN" --version)" "edashim " "edashim --version through the shim"
  rc=0; "$BIN" no-such-subcommand 2>/dev/null || rc=$?
  expect_eq "$rc" 2 "a usage error is status 2"
  rc=0; "$BIN" --no-such-option 2>/dev/null || rc=$?
  expect_eq "$rc" 2 "an unknown option too"
  # What tool links run holds the run path only: no option parser, no iostreams, no JSON DOM,
  # whose static initialisers and page faults every tool start would pay.
  syms=$(nm -C "$BIN" | grep -cE 'CLI::|nlohmann::|std::ios_base::Init::Init' || true)
  expect_eq "$syms" 0 "CLI11, nlohmann and iostream initialisation absent from the shim"
  # A shim without its command next to it still runs tools, and says what is missing.
  mkdir -p "$SB/lone"
  cp "$BIN" "$SB/lone/edashim"
  ln -s edashim "$SB/lone/mytool"
  out=$(PATH=$SB/lone:$SB/real:/usr/bin:/bin mytool args)
  expect_eq "$(tail -1 <<<"$out")" "args" "the tool runs"
  rc=0; err=$("$SB/lone/edashim" explain mytool 2>&1) || rc=$?
  expect_eq "$rc" 126 "status"
  # A copy without the build tree's marker beside it is laid out as installed: <prefix>/bin.
  expect_contains "$err" "cannot start the edashim command $SB/lib/edashim/edashim-cli" "names what is missing"
  expect_contains "$err" "reinstall" "and the fix"
}

test_exit_status_is_the_tools() {
  rc=0; mytool exit 77 || rc=$?
  expect_eq "$rc" 77 "exit code"
  rc=0; mytool exit 0 || rc=$?
  expect_eq "$rc" 0 "exit 0"
}

test_death_by_signal_is_reproduced() {
  rc=0; bash -c 'mytool signal 11' 2>/dev/null || rc=$?
  expect_eq "$rc" 139 "SIGSEGV seen by the shell as 128+11"
  rc=0; bash -c 'mytool signal 15' || rc=$?
  expect_eq "$rc" 143 "SIGTERM"
  # In place, nothing of edashim's outlives a tool its own signal killed: each line says it ended
  # without a word, completed by the next sweep (report's, here), no status nobody told.
  "$BIN" report > /dev/null
  expect_eq "$(python3 -c 'import json,sys; print(sorted((j["ended"], j["signal"], j["exit_code"], j["status"]) for j in map(json.loads, open(sys.argv[1]))))' "$LOG")" \
    "[('without a word (killed by a signal, or crashed)', None, None, None), ('without a word (killed by a signal, or crashed)', None, None, None)]" \
    "log records each run as ended without a word"
  ! ls "$SB/work" | grep -q core || fail "edashim left a core file"
}

test_signal_to_edashim_alone_reaches_the_tool_once() {
  setsid mytool count 15 "$SB/c" 3 &
  wait_for "$SB/c" ready
  kill -TERM $!
  rc=0; wait $! || rc=$?
  expect_eq "$(cat "$SB/c")" "count 1" "the tool got SIGTERM once"
  expect_eq "$rc" 0 "the tool's own exit status after handling it"
}

test_pid_then_group_from_outside_reaches_the_tool_once_or_twice_never_lost() {
  # A sender outside the tool's group signals the pid, then the group. Directly the tool takes
  # the two as one unless its handler runs between the two `kill`s. Through edashim (which
  # stepped out of the caller's group, issue 25) the group's copy reaches the tool directly and
  # the pid's copy is relayed a hop later: mostly twice (README Transparency: the one residue;
  # measured quiet 13 of 16, directly 0 of 16). Checked: never lost and never more than the two
  # sent, in each of 8 tries both ways, and the tool's own status.
  local plain_twice=0 shim_twice=0
  for mode in plain shim; do
    local pre=env; [[ $mode == plain ]] && pre="env EDASHIM=off"
    for i in $(seq 8); do
      rm -f "$SB/c" "$SB/pid" "$SB/rc"
      setsid bash -c 'trap : USR1; '"$pre"' mytool count 10 '"$SB"'/c 0.3 & echo "$! $$" > '"$SB"'/pid; wait $!; wait $!; echo $? > '"$SB"'/rc' &
      wait_for "$SB/c" ready
      # The tool can be ready before the shell that started it has written the pids (loaded CI).
      wait_for "$SB/pid" '[0-9] [0-9]'
      read -r pid group < "$SB/pid"
      kill -USR1 "$pid"; kill -USR1 -- "-$group"
      wait
      wait_for "$SB/c" count
      case $(cat "$SB/c") in
        "count 1") ;;
        "count 2") if [[ $mode == plain ]]; then plain_twice=$((plain_twice + 1)); else shim_twice=$((shim_twice + 1)); fi ;;
        *) expect_eq "$(cat "$SB/c")" "count 1" "$mode, try $i: the tool got SIGUSR1 once or twice" ;;
      esac
      expect_eq "$(cat "$SB/rc")" 0 "$mode, try $i: the tool's own status after handling it"
    done
  done
  echo "    the pair reached the tool twice in $shim_twice of 8 tries through edashim, $plain_twice directly"
}

test_tool_ignoring_sigterm_keeps_running() {
  mytool ignore-term "$SB/r" 1 &
  wait_for "$SB/r" ready
  kill -TERM $!
  rc=0; wait $! || rc=$?
  expect_eq "$rc" 5 "the tool ignored SIGTERM and exited normally"
}

test_sigkilled_edashim_takes_the_tool_with_it() {
  mytool pidfile "$SB/p" 30 &
  wait_for "$SB/p" '[0-9]'
  tool_pid=$(cat "$SB/p")
  kill -KILL $!
  for _ in $(seq 100); do kill -0 "$tool_pid" 2>/dev/null || break; sleep 0.05; done
  ! kill -0 "$tool_pid" 2>/dev/null || fail "tool $tool_pid still running after edashim was killed"
}

test_stdio_is_the_tools() {
  out=$(printf 'hello\nworld\n' | mytool cat)
  expect_eq "$out" $'hello\nworld' "stdin to stdout"
  err=$(mytool exit 0 2>&1)
  expect_eq "$err" "" "edashim says nothing on a normal run"
}

test_not_found_is_127_with_the_directories_searched() {
  rm "$SB/real/mytool"
  rc=0; err=$(mytool args 2>&1) || rc=$?
  expect_eq "$rc" 127 "exit status"
  expect_contains "$err" "mytool: command not found" "message"
  expect_contains "$err" "$SB/real" "directories searched"
}

test_edashim_off_runs_the_plain_tool_with_the_environment_untouched() {
  printf 'allocator = "mimalloc"\nscratch = true\n' > .edashim.toml
  direct=$(env | sort)
  shimmed=$(EDASHIM=off mytool args >/dev/null; EDASHIM=off "$SB/shims/mytool" env LD_PRELOAD TMPDIR __EDASHIM_CHAIN)
  expect_eq "$shimmed" $'LD_PRELOAD=(unset)\nTMPDIR=(unset)\n__EDASHIM_CHAIN=(unset)' "no preload, scratch or marker"
  [ ! -e "$LOG" ] || fail "EDASHIM=off wrote a log line"
  out=$(EDASHIM=0 mytool env LD_PRELOAD)
  expect_eq "$out" "LD_PRELOAD=(unset)" "EDASHIM=0 is off too"
}

test_ambiguous_switch_is_rejected_with_a_message() {
  printf 'allocator = "mimalloc"\n' > .edashim.toml
  err=$(EDASHIM=disable mytool env LD_PRELOAD 2>&1 >/dev/null)
  expect_contains "$err" "is not a clear on/off value" "message"
  out=$(EDASHIM=disable mytool env LD_PRELOAD 2>/dev/null)
  expect_eq "$out" "LD_PRELOAD=(unset)" "runs plain"
}

test_profile_sets_allocator_locale_env_and_scratch() {
  printf 'allocator = "mimalloc"\nlocale = "C"\nscratch = true\n[mimalloc]\neager_commit_delay = 0\n' > .edashim.toml
  out=$(mytool env LD_PRELOAD LC_ALL MIMALLOC_EAGER_COMMIT_DELAY TMPDIR TEMP)
  expect_contains "$out" "LD_PRELOAD=/" "preload set"
  expect_contains "$(sed -n 1p <<<"$out")" "libmimalloc.so" "mimalloc first in LD_PRELOAD"
  expect_contains "$out" "LC_ALL=C" "locale"
  expect_contains "$out" "MIMALLOC_EAGER_COMMIT_DELAY=0" "option"
  tmp=$(sed -n 's/^TMPDIR=//p' <<<"$out")
  expect_contains "$tmp" "/edashim-" "scratch dir"
  [ ! -e "$tmp" ] || fail "scratch $tmp not removed after the run"
  expect_eq "$(last_log "$LOG" 'j["env_set"]["LC_ALL"], j["allocator"]["requested"]')" "C mimalloc" "log"
}

# keep_scratch is the user's to set (an untrusted project file's is ignored: issue 24).
test_keep_scratch_keeps_files_and_logs_the_path() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'scratch = true\nkeep_scratch = true\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  dir=$(mytool tmpdir)
  [ -f "$dir/left-behind" ] || fail "kept scratch lost the tool's file"
  expect_eq "$(last_log "$LOG" 'j["scratch"]["dir"], j["scratch"]["kept"]')" "$dir True" "log"
  rm -rf "$dir"
}

test_two_allocators_never_stack() {
  printf 'allocator = "mimalloc"\n' > .edashim.toml
  jem=$(ls /usr/lib/*/libjemalloc.so.2 | head -1)
  out=$(LD_PRELOAD="$jem" mytool env LD_PRELOAD)
  expect_contains "$out" "LD_PRELOAD=$jem" "the user's jemalloc stays, first"
  expect_not_contains "$out" "mimalloc" "the profile's allocator is not added to the user's"
  expect_eq "$(last_log "$LOG" 'j["allocator"]["preloaded_by_caller"]')" "$jem" "and the log says whose it is"
}

test_missing_allocator_library_warns_and_runs_on_the_system_allocator() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'allocator = "/nonexistent/libfancy.so"\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  err=$(mytool env LD_PRELOAD 2>&1 >/dev/null)
  out=$(mytool env LD_PRELOAD 2>/dev/null)
  expect_contains "$err" "/nonexistent/libfancy.so not found" "one line on stderr"
  expect_eq "$(wc -l <<<"$err")" 1 "exactly one line"
  no_allocator_in "$out" "no allocator preloaded"
  expect_contains "$(last_log "$LOG" 'j["allocator"]["note"]')" "running on the system allocator" "log note"
}

# The user's own file (an untrusted project file's mistakes only ignore themselves: issue 24,
# tests/e2e/test_shared_project.sh).
test_bad_config_reports_file_line_and_still_runs_the_tool_plain() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'allocator = "mimalloc"\n\nscrach = true\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  err=$(mytool env LD_PRELOAD 2>&1 >/dev/null)
  out=$(mytool env LD_PRELOAD 2>/dev/null)
  expect_contains "$err" "$XDG_CONFIG_HOME/edashim/config.toml:3:1: error: unknown key 'scrach'; did you mean 'scratch'?" "located message"
  expect_contains "$err" "EDASHIM=off" "says how to bypass"
  expect_eq "$out" "LD_PRELOAD=(unset)" "the tool ran plain"
  rc=0; "$BIN" run --strict -- mytool exit 0 2>/dev/null || rc=$?
  expect_eq "$rc" 2 "--strict stops"
  rc=0; "$BIN" explain mytool >/dev/null 2>&1 || rc=$?
  expect_eq "$rc" 1 "explain reports failure"
}

# In the user's own file (from an untrusted project file it is a warning that drops the option:
# tests/e2e/test_shared_project.sh).
test_unknown_allocator_option_for_installed_version_is_an_error() {
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'allocator = "mimalloc"\n[mimalloc]\npurge_delay = 10\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  err=$(mytool exit 0 2>&1)
  expect_contains "$err" "config.toml:3: error: [mimalloc] has no option 'purge_delay' in the installed mimalloc 2.0" "version named"
  expect_contains "$err" "'decommit_delay'" "the name to use"
}

test_untrusted_project_file_cannot_set_env_until_trusted() {
  printf 'allocator = "jemalloc"\n[env]\nSECRET = "x"\n' > .edashim.toml
  err=$(mytool env SECRET 2>&1 >/dev/null)
  out=$(mytool env SECRET 2>/dev/null)
  expect_eq "$out" "SECRET=(unset)" "ignored while untrusted"
  expect_contains "$err" "edashim trust $SB/work/.edashim.toml" "names the command that trusts it"
  "$BIN" trust 2>/dev/null
  out=$(mytool env SECRET 2>&1)
  expect_eq "$out" "SECRET=x" "applied once trusted, silently"
  echo '# edited' >> .edashim.toml
  out=$(mytool env SECRET 2>/dev/null)
  expect_eq "$out" "SECRET=(unset)" "an edit revokes trust"
  "$BIN" trust 2>/dev/null
  "$BIN" untrust 2>/dev/null
  out=$(mytool env SECRET 2>/dev/null)
  expect_eq "$out" "SECRET=(unset)" "untrust revokes"
}

test_named_profile_and_environment_switches() {
  printf 'allocator = "mimalloc"\n' > .edashim.toml
  out=$(EDASHIM_PROFILE=baseline mytool env LD_PRELOAD)
  no_allocator_in "$out" "baseline preloads no allocator"
  out=$(EDASHIM_ALLOCATOR=tcmalloc mytool env LD_PRELOAD)
  expect_contains "$out" "libtcmalloc" "EDASHIM_ALLOCATOR"
  out=$("$BIN" run -p jemalloc -- mytool env LD_PRELOAD)
  expect_contains "$out" "libjemalloc" "--profile"
  EDASHIM_LOG=off mytool exit 0
  n=$(wc -l < "$LOG")
  EDASHIM_LOG="$SB/other.jsonl" mytool exit 0
  expect_eq "$(wc -l < "$LOG")" "$n" "EDASHIM_LOG=off and a path do not write the default log"
  expect_eq "$(wc -l < "$SB/other.jsonl")" 1 "EDASHIM_LOG=PATH"
}

test_log_line_records_the_run() {
  printf 'allocator = "jemalloc"\n' > .edashim.toml
  mytool exit 3 || true
  last_log "$LOG" 'j["tool"], j["argv"], j["exit_code"], j["allocator"]["library"] is not None' > "$SB/f"
  expect_eq "$(cat "$SB/f")" "mytool ['mytool', 'exit', '3'] 3 True" "fields"
  last_log "$LOG" 'j["path"]==sys.argv[1].replace("x","x") and 1' > /dev/null
  python3 - "$LOG" "$SB" <<'PY'
import json, sys, socket, os
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
sb = sys.argv[2]
assert j["path"] == sb + "/real/mytool", j["path"]
assert j["cwd"] == sb + "/work", j["cwd"]
assert j["host"] == socket.gethostname()
assert j["wall_s"] > 0 and j["user_s"] >= 0 and j["sys_s"] >= 0 and j["max_rss_kb"] > 0
assert j["config_files"][-1] == sb + "/work/.edashim.toml", j["config_files"]
assert "LD_PRELOAD" in j["env_set"] and "libjemalloc" in j["env_set"]["LD_PRELOAD"]
assert j["start"].endswith("Z") and j["pid"] > 0 and j["tool_pid"] > 0
PY
}

test_concurrent_runs_never_tear_the_log() {
  for i in $(seq 48); do mytool args "run-$i" "$(head -c 3000 /dev/zero | tr '\0' x)" >/dev/null & done
  wait
  python3 - "$LOG" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 48, len(lines)
runs = sorted(json.loads(l)["argv"][2] for l in lines)
assert runs == sorted("run-%d" % i for i in range(1, 49)), runs
PY
}

test_a_log_on_the_callers_stderr_or_stdout_gets_every_line() {
  # EDASHIM_LOG=/dev/stderr names the run's own descriptor: in place, the watcher's own is
  # /dev/null, so edashim opens it before the exec. A pipe, a file and stdout, in both modes.
  local mode out
  for mode in 0 1; do
    out=$(EDASHIM_SUPERVISE=$mode EDASHIM_LOG=/dev/stderr mytool exit 0 2>&1 > /dev/null | cat)
    expect_contains "$out" '"tool":"mytool"' "supervise=$mode: the line on stderr, a pipe"
    EDASHIM_SUPERVISE=$mode EDASHIM_LOG=/dev/stderr mytool exit 0 2> "err.$mode"
    expect_contains "$(cat "err.$mode")" '"tool":"mytool"' "supervise=$mode: the line on stderr, a file"
    out=$(EDASHIM_SUPERVISE=$mode EDASHIM_LOG=/dev/stdout mytool exit 0)
    expect_contains "$out" '"tool":"mytool"' "supervise=$mode: the line on stdout"
  done
}

test_unwritable_log_warns_and_the_tool_result_stands() {
  rc=0; err=$(EDASHIM_LOG=/proc/nonexistent/x.jsonl mytool exit 4 2>&1) || rc=$?
  expect_eq "$rc" 4 "the tool's status"
  expect_contains "$err" "run log not written" "one warning"
}

test_explain_shows_tool_files_settings_and_environment() {
  printf 'allocator = "mimalloc"\nlocale = "C"\n' > .edashim.toml
  out=$("$BIN" explain mytool)
  expect_contains "$out" "real tool: $SB/real/mytool" "tool"
  expect_contains "$out" "skipped (edashim itself): $SB/shims/mytool" "skips its own link"
  expect_contains "$out" "[project] $SB/work/.edashim.toml  used" "files"
  expect_contains "$out" "from $SB/work/.edashim.toml:1" "origin of a setting"
  expect_contains "$out" "LC_ALL=C" "environment changes"
  [ ! -e "$LOG" ] || fail "explain ran something"
}

test_copies_of_edashim_never_loop() {
  mkdir -p "$SB/a" "$SB/b"
  cp "$BIN" "$SB/a/loopy"; cp "$BIN" "$SB/b/loopy"
  rc=0; err=$(PATH=$SB/a:$SB/b:/usr/bin:/bin timeout 10 loopy 2>&1) || rc=$?
  expect_eq "$rc" 127 "not found, not a loop"
  rc=0; err=$(EDASHIM=off PATH=$SB/a:$SB/b:/usr/bin:/bin timeout 10 loopy 2>&1) || rc=$?
  expect_eq "$rc" 127 "EDASHIM=off too"
  # A copy in front of the real tool is passed over.
  cp "$BIN" "$SB/a/mytool"
  out=$(PATH=$SB/a:$SB/real:/usr/bin:/bin mytool args)
  expect_eq "$(tail -1 <<<"$out")" "args" "copy skipped, real tool found"
}

test_yosys_output_and_status_identical_with_and_without_edashim() {
  shim yosys
  plain=$(EDASHIM=off yosys -q -p "$SYNTH" 2>&1; echo "rc=$?")
  mv stat.txt stat.plain; mv net.v net.plain
  shimmed=$(yosys -q -p "$SYNTH" 2>&1; echo "rc=$?")
  expect_eq "$shimmed" "$plain" "stdout+stderr and status"
  cmp stat.txt stat.plain || fail "stat differs"
  cmp net.v net.plain || fail "netlist differs"
  expect_contains "$(cat stat.txt)" "Number of cells" "yosys really ran"
  expect_eq "$(last_log "$LOG" 'j["tool"], j["allocator"]["requested"], j["exit_code"]')" "yosys jemalloc 0" "log line"
  rc=0; yosys -q -p 'read_verilog /nonexistent.v' >/dev/null 2>&1 || rc=$?
  rc_plain=0; EDASHIM=off yosys -q -p 'read_verilog /nonexistent.v' >/dev/null 2>&1 || rc_plain=$?
  expect_eq "$rc" "$rc_plain" "failing yosys: same status"
}

test_mimalloc_serves_yosys_and_the_abc_it_starts() {
  shim yosys berkeley-abc yosys-abc
  printf 'allocator = "mimalloc"\n[mimalloc]\nverbose = true\n' > .edashim.toml
  out=$(yosys -p "$SYNTH" 2>&1)
  # Each process that loads mimalloc says "process init"; ABC's lines come back prefixed.
  abc=$(grep -c "^ABC: mimalloc: process init" <<<"$out" || true)
  all=$(grep -c "mimalloc: process init" <<<"$out" || true)
  [ "$abc" -ge 1 ] || fail "no ABC process initialised mimalloc"
  [ "$all" -ge 3 ] || fail "expected yosys, sh and abc to initialise mimalloc, saw $all"
  # ABC ran as a run of its own inside yosys' (issue 26): a line per ABC run, with its own
  # profile (the project file's mimalloc here too), and no second preload.
  expect_eq "$(python3 -c "import json,sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(sorted(set((r['tool'] if 'abc' not in r['tool'] else 'abc', r['allocator']['requested'], r['allocator_verified']) for r in rows)))" "$LOG")" \
    "[('abc', 'mimalloc', True), ('yosys', 'mimalloc', True)]" "a line for yosys and for each ABC run"
  ! grep -q "libmimalloc.so.*libmimalloc.so" <<<"$out" || fail "mimalloc preloaded twice"
}

test_nested_call_adds_no_second_preload() {
  shim inner
  cp "$HELPER" "$SB/real/inner"
  printf 'allocator = "mimalloc"\n' > .edashim.toml
  out=$(mytool exit 0; bash -c 'inner env LD_PRELOAD __EDASHIM_CHAIN' )
  out=$("$BIN" run -- bash -c 'inner env LD_PRELOAD')
  expect_eq "$(grep -o libmimalloc <<<"$out" | wc -l)" 1 "one mimalloc in the nested tool's preload"
}

test_profiles_lists_shipped_user_and_project_profiles() {
  mkdir -p "$XDG_CONFIG_HOME/edashim/profiles"
  printf 'allocator = "mimalloc"\n' > "$XDG_CONFIG_HOME/edashim/profiles/mine.toml"
  printf '\n[profile.fast]\nallocator = "jemalloc"\n' > .edashim.toml
  out=$("$BIN" profiles)
  expect_contains "$out" "baseline" "shipped"
  expect_contains "$out" "$XDG_CONFIG_HOME/edashim/profiles/mine.toml" "user"
  expect_contains "$out" "fast             $SB/work/.edashim.toml:2" "project section"
  out=$(EDASHIM_PROFILE=fast mytool env LD_PRELOAD)
  expect_contains "$out" "libjemalloc" "a listed profile is selectable"
}

run_suite "$@"
