#!/usr/bin/env bash
# Untrusted project files (issue 24 group 4, and group 5's last item): a cloned repository's
# .edashim.toml may set only what the key table allows an untrusted file (allocator by name,
# locale, scratch on/off, allocator options within their safe ranges). Everything else is
# ignored with one line naming the file, the key, why and `edashim trust`; a bad value ignores
# that value, never the user's own settings; named profiles keep their meaning; shared_dirs
# comes only from the user's own config. The attacker here is the repository's file.
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }
user_config() { mkdir -p "$XDG_CONFIG_HOME/edashim" && printf '%s\n' "$@" > "$XDG_CONFIG_HOME/edashim/config.toml"; }
log_lines() { if [ -e "$LOG" ]; then wc -l < "$LOG"; else echo 0; fi; }
# The value explain shows for a setting (its row: name, value, "from" origin).
explain_row() { "$BIN" explain "${@:2}" 2>/dev/null | awk -v k="$1" '$1 == k { print; exit }'; }

test_a_huge_top_pad_is_ignored_and_the_tool_runs_as_it_would_directly() {
  need yosys
  shim yosys yosys-abc berkeley-abc
  printf 'module top(input [3:0] a, b, output [3:0] y); assign y = a * b; endmodule\n' > top.v
  printf 'allocator = "system"\n[glibc]\ntop_pad = 1099511627776\n' > .edashim.toml
  local direct=0 rc=0
  EDASHIM=off yosys -q -p 'read_verilog top.v; synth -top top' >/dev/null 2>&1 || direct=$?
  err=$(yosys -q -p 'read_verilog top.v; synth -top top' 2>&1 >/dev/null) || rc=$?
  expect_eq "$rc" "$direct" "yosys exits through edashim as it does directly (134: the pad failed an allocation)"
  expect_eq "$rc" 0 "and that is success"
  expect_eq "$(grep -c 'top_pad' <<< "$err")" 1 "one line says so"
  expect_contains "$err" "$SB/work/.edashim.toml is not trusted: ignored [glibc] top_pad" "the file and the option"
  expect_contains "$err" "line 3)" "its line"
  expect_contains "$err" "edashim trust" "what would allow it"
  expect_not_contains "$(mytool env GLIBC_TUNABLES 2>/dev/null)" "top_pad" "not passed to the tool"
  # Within the safe range, the same option applies from an untrusted file.
  printf 'allocator = "system"\n[glibc]\ntop_pad = 1048576\n' > .edashim.toml
  expect_contains "$(mytool env GLIBC_TUNABLES 2>/dev/null)" "glibc.malloc.top_pad=1048576" "a safe value applies"
  # The user's own config keeps the whole range: their choice.
  rm .edashim.toml
  user_config 'allocator = "system"' '[glibc]' 'top_pad = 1099511627776'
  expect_contains "$(mytool env GLIBC_TUNABLES 2>/dev/null)" "glibc.malloc.top_pad=1099511627776" "the user's own value"
}

# A cloned file must not make the tool keep what it frees (on a farm node, memory taken from
# everyone): jemalloc's decay -1, tcmalloc's release off or at rate 0, mimalloc's delays past a
# minute are each ignored with their line; values that give memory back still apply.
test_an_untrusted_file_cannot_make_the_tool_keep_freed_memory() {
  printf 'allocator = "jemalloc"\n[jemalloc]\ndirty_decay_ms = -1\nmuzzy_decay_ms = -1\nnarenas = 2\n' > .edashim.toml
  err=$(mytool env MALLOC_CONF 2>&1 >/dev/null)
  conf=$(mytool env MALLOC_CONF 2>/dev/null)
  expect_not_contains "$conf" "decay" "no decay setting reaches the tool"
  expect_contains "$conf" "narenas:2" "the safe option in the same table does"
  expect_contains "$err" "$SB/work/.edashim.toml is not trusted: ignored [jemalloc] dirty_decay_ms" "the file and the option"
  expect_contains "$err" "[jemalloc] muzzy_decay_ms" "each option"
  expect_contains "$err" "keeps freed memory" "why"
  printf 'allocator = "jemalloc"\n[jemalloc]\ndirty_decay_ms = 1000\n' > .edashim.toml
  expect_contains "$(mytool env MALLOC_CONF 2>/dev/null)" "dirty_decay_ms:1000" "a decay that gives memory back applies"
  printf 'allocator = "tcmalloc"\n[tcmalloc]\ndisable_memory_release = true\nrelease_rate = 0\n' > .edashim.toml
  err=$(mytool env TCMALLOC_DISABLE_MEMORY_RELEASE 2>&1 >/dev/null)
  expect_eq "$(mytool env TCMALLOC_DISABLE_MEMORY_RELEASE TCMALLOC_RELEASE_RATE 2>/dev/null)" \
    $'TCMALLOC_DISABLE_MEMORY_RELEASE=(unset)\nTCMALLOC_RELEASE_RATE=(unset)' "neither reaches the tool"
  expect_contains "$err" "ignored [tcmalloc] disable_memory_release" "release off"
  expect_contains "$err" "[tcmalloc] release_rate" "rate 0"
  printf 'allocator = "mimalloc"\n[mimalloc]\ndecommit_delay = 2147483647\n' > .edashim.toml
  expect_eq "$(mytool env MIMALLOC_DECOMMIT_DELAY 2>/dev/null)" "MIMALLOC_DECOMMIT_DELAY=(unset)" "mimalloc's delay past a minute"
  printf 'allocator = "mimalloc"\n[mimalloc]\ndecommit_delay = 0\n' > .edashim.toml
  expect_eq "$(mytool env MIMALLOC_DECOMMIT_DELAY 2>/dev/null)" "MIMALLOC_DECOMMIT_DELAY=0" "and one within it applies"
  # The user's own config keeps the whole range: their choice.
  rm .edashim.toml
  user_config 'allocator = "jemalloc"' '[jemalloc]' 'dirty_decay_ms = -1'
  expect_contains "$(mytool env MALLOC_CONF 2>/dev/null)" "dirty_decay_ms:-1" "the user's own value"
}

test_untrusted_files_cannot_redefine_shipped_or_the_users_named_profiles() {
  mkdir -p "$XDG_CONFIG_HOME/edashim/profiles"
  printf 'allocator = "tbbmalloc"\n' > "$XDG_CONFIG_HOME/edashim/profiles/mine.toml"
  user_config '[profile.ours]' 'allocator = "mimalloc"'
  printf '[profile.baseline]\nallocator = "tcmalloc"\n[profile.jemalloc]\nallocator = "system"\n[profile.mine]\nallocator = "system"\n[profile.ours]\nallocator = "system"\n[profile.repo]\nallocator = "tcmalloc"\nlocale = "C"\n' > .edashim.toml
  expect_contains "$(explain_row allocator -p jemalloc mytool)" "jemalloc" "-p jemalloc: the shipped allocator"
  expect_contains "$(explain_row allocator -p jemalloc mytool)" "/named/jemalloc.toml" "from the shipped file"
  expect_contains "$(explain_row allocator -p baseline mytool)" "system" "-p baseline: the shipped allocator"
  expect_contains "$(explain_row allocator -p mine mytool)" "tbbmalloc" "the user's profile file"
  expect_contains "$(explain_row allocator -p ours mytool)" "mimalloc" "the user's [profile.ours]"
  listed=$("$BIN" profiles 2>/dev/null)
  [[ "$(awk '$1 == "baseline" { print $2 }' <<< "$listed")" == */named/baseline.toml ]] ||
    fail "profiles lists the shipped baseline, not the project's: $listed"
  expect_contains "$listed" "$SB/work/.edashim.toml:9" "and the project's own profile"
  # A profile of the repository's own applies (within what an untrusted file may set).
  expect_contains "$(explain_row allocator -p repo mytool)" "tcmalloc" "a new profile name is the project's to define"
  err=$(EDASHIM_PROFILE=jemalloc mytool exit 0 2>&1)
  expect_eq "$(grep -c 'not trusted' <<< "$err")" 1 "one line"
  expect_contains "$err" "ignored [profile.baseline] (redefines edashim's shipped profile 'baseline'" "shipped named, and why"
  expect_contains "$err" "[profile.mine] (redefines your profile 'mine'" "the user's named"
  expect_contains "$err" "[profile.ours] (redefines your profile 'ours'" "the user's section named"
  expect_contains "$err" "edashim trust" "what would allow it"
  # Trusted, the file may (it is the user's decision then).
  "$BIN" trust 2>/dev/null
  expect_contains "$(explain_row allocator -p jemalloc mytool)" "system" "trusted: redefined"
}

test_untrusted_files_cannot_keep_scratch_or_lower_the_free_memory_rule() {
  printf 'scratch = true\nkeep_scratch = true\nscratch_min_free_percent = 0\nscratch_min_free_mb = 0\n' > .edashim.toml
  expect_contains "$(explain_row keep_scratch mytool)" "false" "keep_scratch stays off"
  expect_contains "$(explain_row keep_scratch mytool)" "built-in" "and comes from no file"
  expect_contains "$(explain_row scratch mytool)" "tmpfs" "scratch on/off is the project's to say"
  err=$(mytool exit 0 2>&1)
  expect_contains "$err" "ignored keep_scratch (" "keep_scratch named"
  expect_contains "$err" "scratch_min_free_percent (" "scratch_min_free_percent named"
  expect_contains "$err" "scratch_min_free_mb (" "scratch_min_free_mb named"
  expect_contains "$err" "; line 2)" "with its line"
  "$BIN" trust 2>/dev/null
  expect_contains "$(explain_row keep_scratch mytool)" "true" "trusted: applied"
}

test_a_bad_value_in_an_untrusted_file_keeps_the_users_env_and_the_log_line() {
  user_config '[env]' 'MINE = "kept"'
  printf 'locale = "C"\nscratch = "yes"\nallocator = "jemaloc"\n[glibc]\ntop_pad = "x"\n[mimalloc]\nno_such_option = 1\n' > .edashim.toml
  local before rc=0
  before=$(log_lines)
  out=$(mytool env MINE LC_ALL 2>"$SB/err") || rc=$?
  err=$(cat "$SB/err")
  expect_eq "$rc" 0 "the tool ran"
  expect_eq "$out" $'MINE=kept\nLC_ALL=C' "the user's [env] and the file's good value apply"
  expect_eq "$(log_lines)" "$((before + 1))" "the run is logged"
  expect_contains "$err" ".edashim.toml:2:11: warning: 'scratch' must be true, false or \"override\"" "the bad value, located"
  expect_contains "$err" ".edashim.toml:3:13: warning: unknown allocator 'jemaloc'" "the unknown allocator, located"
  expect_contains "$err" ".edashim.toml:5:" "the bad option value, located"
  expect_contains "$err" ".edashim.toml:7:" "the unknown option name, located"
  expect_not_contains "$err" "without edashim's settings" "not a plain run"
  # An option the installed allocator's version lacks (mimalloc 2.0 has no purge_delay): known
  # only once the library is found, and dropped the same way.
  if [ -e /usr/lib/x86_64-linux-gnu/libmimalloc.so.2 ]; then
    printf 'allocator = "mimalloc"\n[mimalloc]\npurge_delay = 10\nverbose = false\n' > .edashim.toml
    out=$(mytool env MINE MIMALLOC_PURGE_DELAY MIMALLOC_VERBOSE 2>"$SB/err") || fail "the tool ran"
    expect_eq "$out" $'MINE=kept\nMIMALLOC_PURGE_DELAY=(unset)\nMIMALLOC_VERBOSE=0' "the option dropped, the rest applied"
    expect_contains "$(cat "$SB/err")" ".edashim.toml:3: warning: [mimalloc] has no option 'purge_delay'" "located"
  fi
  # A file that is not TOML at all is one more mistake of the file's: the same.
  printf 'allocator = \n' > .edashim.toml
  log_lines > "$SB/count"
  out=$(mytool env MINE 2>"$SB/err") || fail "the tool ran"
  expect_eq "$out" "MINE=kept" "syntax error: the user's [env] applies"
  expect_eq "$(log_lines)" "$(($(cat "$SB/count") + 1))" "syntax error: the run is logged"
  expect_contains "$(cat "$SB/err")" ".edashim.toml:1:" "syntax error: located"
  # The user's own mistakes stay errors (they run the tool plain until fixed, as before).
  rm .edashim.toml
  user_config 'scratch = "yes"' '[env]' 'MINE = "kept"'
  out=$(mytool env MINE 2>"$SB/err") || true
  expect_contains "$(cat "$SB/err")" "config.toml:1:11: error: 'scratch' must be" "the user's file: an error"
  expect_eq "$out" "MINE=(unset)" "and the tool runs plain"
}

test_shared_dirs_comes_only_from_the_users_own_config() {
  user_config 'shared_dirs = ["/srv/team-logs", "/shared/farm"]'
  row=$(explain_row shared_dirs mytool)
  expect_contains "$row" "/srv/team-logs, /shared/farm" "explain shows the list"
  expect_contains "$row" "from $XDG_CONFIG_HOME/edashim/config.toml:1" "with its origin"
  printf 'shared_dirs = ["/evil-share"]\nlocale = "C"\n' > .edashim.toml
  err=$(mytool exit 0 2>&1)
  expect_contains "$err" "$SB/work/.edashim.toml:1:15: warning: 'shared_dirs' ignored" "the project's line, located"
  expect_contains "$(explain_row shared_dirs mytool)" "/srv/team-logs, /shared/farm" "the user's list stands"
  expect_eq "$(mytool env LC_ALL 2>/dev/null)" "LC_ALL=C" "the rest of the file applies"
  # Trusted or not: it is about the user's storage, not the project's.
  "$BIN" trust 2>/dev/null
  mytool exit 0
  expect_contains "$(last_notices)" "'shared_dirs' ignored" "trusted: still ignored (said once a session: the line has it)"
  expect_not_contains "$(explain_row shared_dirs mytool)" "/evil-share" "trusted: not in the list"
  # Validated: absolute, no control characters.
  rm .edashim.toml
  user_config 'shared_dirs = ["relative/dir"]'
  expect_contains "$("$BIN" explain mytool 2>&1)" "'shared_dirs' must be a list of absolute directories" "relative refused"
  user_config 'shared_dirs = ["/srv/a\u001b[2Jb"]'
  expect_contains "$("$BIN" explain mytool 2>&1)" "without control characters" "an escape refused"
}

test_keys_the_allow_list_does_not_name_are_ignored_each_with_its_line() {
  printf 'allocator = "mimalloc"\nlog = "%s"\nlibrary_dirs = ["%s"]\nprobe = false\nexplore = 1.0\nadopt = true\nlog_keep = 0\n' \
    "$SB/evil.log" "$SB" > .edashim.toml
  expect_contains "$(explain_row probe mytool)" "on" "the probe stays on"
  expect_contains "$(explain_row allocator mytool)" "mimalloc" "the allocator by name applies"
  err=$(mytool exit 0 2>&1)
  expect_eq "$(grep -c 'not trusted' <<< "$err")" 1 "one line"
  for k in "log (" "library_dirs (" "probe (" "explore (" "adopt (" "log_keep ("; do
    expect_contains "$err" "$k" "$k named"
  done
  expect_contains "$err" "; line 4)" "lines named"
  expect_contains "$err" "edashim trust $SB/work/.edashim.toml" "the command that allows it"
  [ ! -e "$SB/evil.log" ] || fail "an untrusted file chose where the log goes"
}

run_suite "$@"
