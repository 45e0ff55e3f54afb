#!/usr/bin/env bash
# The habits of EDA sites (issue 47), each beside the direct run: a tool looked up as execvp
# looks it up, a site's wrapper named like the tool, a job submitted from inside a flow.
source "$(dirname "$0")/lib.sh"
DEFAULT_NOTICES=1  # the default route of edashim's words (lib.sh): this suite compares runs with direct ones

# status_of CMD...: the status of CMD run by bash (its output dropped).
status_of() { local rc=0; "$@" > /dev/null 2>&1 || rc=$?; echo "$rc"; }

# --- The link looks the real tool up as execvp does ---

test_a_broken_script_earlier_on_path_is_passed_over_as_execvp_does() {
  mkdir "$SB/broken"
  printf '#!/nonexistent/interpreter\n' > "$SB/broken/mytool"
  chmod +x "$SB/broken/mytool"
  local direct
  # Python's subprocess (execvp's rule) goes on past a file whose exec gives ENOENT.
  direct=$(PATH=$SB/broken:$SB/real:/usr/bin:/bin python3 -c \
    'import subprocess; print(subprocess.run(["mytool", "exit", "3"]).returncode)')
  expect_eq "$direct" 3 "directly, execvp's search reaches the real mytool"
  expect_eq "$(PATH=$SB/shims:$SB/broken:$SB/real:/usr/bin:/bin status_of mytool exit 3)" 3 "through the link"
  expect_eq "$(line_fields path)" "$SB/real/mytool" "the line names the tool that ran"
  # With nothing after it, the broken one is run, and fails as it does directly.
  expect_eq "$(PATH=$SB/shims:$SB/broken:/usr/bin:/bin status_of mytool exit 3)" \
    "$(PATH=$SB/broken:/usr/bin:/bin status_of mytool exit 3)" "only the broken one: as directly"
}

test_a_file_that_cannot_be_executed_gives_126_and_its_words_as_directly() {
  mkdir "$SB/noexec"
  cp "$HELPER" "$SB/noexec/ntool"
  chmod 644 "$SB/noexec/ntool"
  shim ntool
  local direct shimmed
  direct=$(PATH=$SB/noexec:/usr/bin:/bin bash -c 'ntool exit 0' 2>&1) && fail "directly it ran"
  expect_eq "$(PATH=$SB/noexec:/usr/bin:/bin status_of bash -c 'ntool exit 0')" 126 "directly: 126"
  expect_contains "$direct" "Permission denied" "directly"
  expect_eq "$(PATH=$SB/shims:$SB/noexec:/usr/bin:/bin status_of ntool exit 0)" 126 "through the link: 126"
  shimmed=$(PATH=$SB/shims:$SB/noexec:/usr/bin:/bin ntool exit 0 2>&1) || true
  expect_eq "$shimmed" "edashim: ntool: $SB/noexec/ntool: Permission denied" "through the link, the shell's words"
}

# A copy on a mount without exec rights (a home or /tmp mounted noexec): execve gives EACCES,
# and execvp goes on to the next directory; so does the link. In a mount namespace of its own.
test_a_tool_on_a_noexec_mount_is_passed_over_as_execvp_does() {
  [ "$(id -u)" = 0 ] || skip "needs root to mount a noexec file system"
  command -v unshare > /dev/null || skip "unshare is missing (util-linux)"
  mkdir "$SB/nx"
  cat > "$SB/nx.sh" <<SH
mount -t tmpfs -o noexec tmpfs "$SB/nx" || exit 90
cp "$HELPER" "$SB/nx/mytool"
PATH=$SB/nx:$SB/real:/usr/bin:/bin python3 -c 'import subprocess; print(subprocess.run(["mytool", "exit", "3"]).returncode)'
PATH=$SB/shims:$SB/nx:$SB/real:/usr/bin:/bin mytool exit 3; echo \$?
SH
  local out
  out=$(unshare -m --propagation private bash "$SB/nx.sh" 2>&1)
  expect_eq "$out" "3
3" "directly (Python's execvp) and through the link: the real mytool after the noexec one"
  expect_eq "$(line_fields path)" "$SB/real/mytool" "the line names the tool that ran"
}

# --- A shared tree: links for tools only some nodes have ---

test_a_link_for_a_tool_this_machine_lacks_is_a_note_on_a_read_only_tree() {
  [ "$(id -u)" = 0 ] || skip "needs root to mount the links read-only"
  shim notool  # a tool no machine here has
  local out
  out=$("$BIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "PROBLEM  notool: no real notool on PATH" "a writable links directory: a problem, with its fix"
  mount --bind "$SB/shims" "$SB/shims" || skip "bind mount failed"
  at_exit "umount '$SB/shims'"
  mount -o remount,bind,ro "$SB/shims" || fail "could not make the links directory read-only"
  out=$("$BIN" doctor --dir "$SB/shims" 2>&1) || true
  expect_contains "$out" "note     notool: this machine has no real notool on PATH" "read-only: a note"
  expect_not_contains "$out" "PROBLEM  notool" "read-only: not a problem"
}

# --- A module that puts a tool's own bin first: explain says that typing the name bypasses edashim ---

test_explain_says_when_typing_the_name_does_not_reach_edashim() {
  expect_contains "$("$BIN" explain mytool)" "typing mytool here:     runs through edashim ($SB/shims/mytool)" "links first"
  mkdir "$SB/module-bin"
  cp "$HELPER" "$SB/module-bin/mytool"
  local out
  out=$(PATH=$SB/module-bin:$PATH "$BIN" explain mytool)
  expect_contains "$out" "runs $SB/module-bin/mytool DIRECTLY, not through edashim: $SB/module-bin comes before" "a tool's bin first"
}

# --- Shells that remember where they found a command ---

# shell_after_shims_add SHELL FORGET: in SHELL reading a script, the tool run, linked, FORGET
# (rehash or hash -r, as `shims add` advises), run again: the last run goes through the link.
shell_after_shims_add() {
  local sh=$1 forget=$2
  command -v "$sh" > /dev/null || fail "$sh is missing (install/packages.txt lists it)"
  cp "$HELPER" "$SB/real/ztool"
  printf 'ztool exit 0\n"%s" shims add --dir "%s" ztool > "%s"\nztool exit 0\n%s\nztool exit 0\n' \
    "$BIN" "$SB/shims" "$SB/add.out" "$forget" > "$SB/steps"
  "$sh" -f < "$SB/steps" || fail "$sh: the steps failed"
  expect_contains "$(cat "$SB/add.out")" "$forget" "shims add names $forget"
  expect_eq "$(line_fields tool)" ztool "$sh, after $forget: the tool ran through its link"
  rm "$SB/shims/ztool" "$SB/real/ztool" "$LOG"
}

test_shims_add_says_how_tcsh_and_zsh_take_the_new_link() {
  shell_after_shims_add tcsh rehash
  shell_after_shims_add zsh "hash -r"
}

# --- A site's wrapper named like the tool: one run, one line ---

test_a_wrapper_named_like_the_tool_is_one_run_with_one_line() {
  need_yosys
  mkdir "$SB/site"
  printf '#!/bin/sh\nexec %s "$@"\n' "$YOSYS" > "$SB/site/yosys"
  chmod +x "$SB/site/yosys"
  export PATH=$SB/shims:$SB/site:$PATH
  local direct
  direct=$(EDASHIM=off yosys -V)
  expect_eq "$(yosys -V)" "$direct" "through the link, as directly"
  expect_eq "$(wc -l < "$LOG")" 1 "through the link: one line"
  expect_eq "$(line_fields 'tool status')" "yosys 0" "its line"
  expect_eq "$("$BIN" run -- yosys -V)" "$direct" "under edashim run, as directly"
  expect_eq "$(wc -l < "$LOG")" 2 "under edashim run: one more line"
  # The run's processes: the wrapper's shell, then yosys in the same process.
  last_log "$LOG" "any(p['exe'] == '$YOSYS' for p in j['processes'])" | grep -qx True ||
    fail "yosys is not among the run's processes: $(last_log "$LOG" "j['processes']")"
  # A wrapper that starts the tool by name, its own directory off PATH: the link again.
  printf '#!/bin/sh\nPATH=%s:/usr/bin:/bin exec yosys "$@"\n' "$SB/shims" > "$SB/site/yosys"
  expect_eq "$(yosys -V)" "$direct" "a wrapper through the link again, as directly"
  # A run of its own would leave the wrapper's run unfinished, for a sweep to write as ended
  # without a word: report sweeps first.
  "$BIN" report > /dev/null 2>&1 || fail "report (its sweep)"
  expect_eq "$(wc -l < "$LOG")" 3 "a wrapper through the link again: one line"
  expect_eq "$(grep -c 'without a word' "$LOG")" 0 "no run left unfinished"
  expect_eq "$("$BIN" report --tool yosys --json | python3 -c 'import json,sys; print(sum(r["runs"] for r in json.load(sys.stdin)))')" 3 "report counts three runs"
}

# --- A job submitted from inside a flow carries nothing of edashim's to its node ---

test_sbatch_from_inside_a_run_gives_its_job_the_callers_environment() {
  need_slurm
  printf '#!/bin/sh\nenv | sort | grep -v "^SLURM\\|^SLURMD\\|^ENVIRONMENT=\\|^_=" \n' > "$SB/job.sh"
  chmod +x "$SB/job.sh"
  # Directly, then from inside a run (the job is submitted by a process of `edashim run --`).
  # An allocator asked for by the caller: the whole run's, the flow's top included.
  export EDASHIM_ALLOCATOR=jemalloc
  sbatch --wait --export=ALL -o "$SB/direct.out" "$SB/job.sh" > /dev/null
  "$BIN" run -- sh -c 'sbatch --wait --export=ALL -o "$0" "$1"' "$SB/flow.out" "$SB/job.sh" > /dev/null
  local shimmed; shimmed=$(cat "$SB/flow.out")
  expect_not_contains "$shimmed" "__EDASHIM" "edashim's markers in the job"
  expect_not_contains "$shimmed" "EDASHIM_FLOW" "the flow in the job"
  expect_not_contains "$shimmed" "LD_PRELOAD" "a preload in the job"
  expect_not_contains "$shimmed" "ld.so" "ld.so's words in the job"
  expect_eq "$(diff <(grep -v '^PWD=\|^OLDPWD=\|^SHLVL=' "$SB/direct.out") <(grep -v '^PWD=\|^OLDPWD=\|^SHLVL=' "$SB/flow.out"))" "" \
    "the job's environment, from inside a run against directly"
}

run_suite "$@"
