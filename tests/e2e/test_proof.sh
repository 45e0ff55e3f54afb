#!/usr/bin/env bash
# End-to-end tests of issue 3, "proof, not hope": for each kind of real artefact, the pre-flight
# verdict, the glibc fallback, the probe's process records and `allocator_verified`, and that the
# tool's stdout and exit status are exactly what they are without edashim.
# Artefacts (tests/CMakeLists.txt): $PROOF_BIN/proof_{dynamic,static,static_pie,tbb,own_malloc},
# malloc_counter, spawn_timer; $PROOF_PROBE is libedashim_probe.so.
source "$(dirname "$0")/lib.sh"
: "${PROOF_BIN:?directory of the proof artefacts (set by ctest)}" "${PROOF_PROBE:?libedashim_probe.so}"

# Copies an artefact into the sandbox's real tools (a fresh inode: a first run for the cache)
# and puts an edashim link for it on PATH.
install_tool() { cp "$PROOF_BIN/$1" "$SB/real/${2:-$1}"; shim "${2:-$1}"; }

# run_both TOOL ARGS...: the real tool, then the same through its link. Same stdout, same status.
run_both() {
  local tool=$1; shift
  PLAIN_RC=0; "$SB/real/$tool" "$@" >"$SB/plain.out" 2>"$SB/plain.err" || PLAIN_RC=$?
  local lines; lines=$(wc -l < "$LOG" 2>/dev/null || echo 0)
  SHIM_RC=0; "$tool" "$@" >"$SB/shim.out" 2>"$SB/shim.err" || SHIM_RC=$?
  wait_lines $((lines + 1)) "$tool $*"
  cmp -s "$SB/plain.out" "$SB/shim.out" || fail "$tool $*: stdout differs with edashim: $(diff "$SB/plain.out" "$SB/shim.out" | head -5)"
  expect_eq "$SHIM_RC" "$PLAIN_RC" "$tool $*: exit status"
}

log() { last_log "$LOG" "$1"; }
providers() { log '" ".join(p["provider"] for p in j["processes"])'; }

test_dynamic_program_is_verified_with_every_allocator() {
  install_tool proof_dynamic
  for a in jemalloc mimalloc tcmalloc tbbmalloc system; do
    EDASHIM_ALLOCATOR=$a run_both proof_dynamic fork
    expect_eq "$SHIM_RC" 3 "the tool's own exit status"
    expect_eq "$(cat "$SB/shim.err")" "" "$a: nothing said on stderr for a plain dynamic tool"
    want=$a; [[ $a == system ]] && want=glibc
    expect_eq "$(log 'j["preflight"]["kind"], j["preflight"]["preload_reaches"], j["allocator_verified"]')" \
      "dynamic True True" "$a: verdict"
    # The parent and its fork()ed child (no exec: recorded at its exit), both with peaks.
    expect_eq "$(providers)" "$want $want" "$a: who served malloc"
    expect_eq "$(log '[p["forked"] for p in j["processes"]], [p["end"] for p in j["processes"]]')" \
      "[False, True] ['exit', 'exit']" "$a: fork recorded"
    expect_eq "$(log 'all(p["vm_hwm_kb"] > 0 and p["vm_peak_kb"] >= p["vm_hwm_kb"] for p in j["processes"])')" True "$a: peaks"
  done
}

test_static_program_gets_the_glibc_fallback_and_is_never_verified() {
  install_tool proof_static
  EDASHIM_ALLOCATOR=jemalloc run_both proof_static
  expect_eq "$(grep -c 'jemalloc is not preloaded for proof_static' "$SB/shim.err")" 1 "one line on stderr the first time"
  expect_contains "$(cat "$SB/shim.err")" "statically linked" "why"
  # Nothing of edashim's is preloaded into a static program (it would pass it on unseen): no probe.
  expect_eq "$(log 'j["preflight"]["blocker"], j["preflight"]["fallback"]["options"], j["allocator_verified"], j["processes"]')" \
    "static glibc_fallback False None" "verdict, fallback, no proof"
  expect_contains "$(log 'j["verification"]')" "probe not preloaded, nor the exec hook" "the line says why"
  expect_not_contains "$(log 'j["env_set"].get("LD_PRELOAD") or ""')" jemalloc "no point preloading it"
  expect_contains "$(log 'j["env_set"]["GLIBC_TUNABLES"]')" "glibc.malloc.mmap_threshold=134217728" "shipped set applied"
  EDASHIM_ALLOCATOR=jemalloc run_both proof_static
  expect_eq "$(cat "$SB/shim.err")" "" "second run: the warning is not repeated"
  expect_eq "$(log 'j["preflight"]["cached"]')" True "second run: inspection from the cache"
  # The tunables reach the static program: a 40 MiB block leaves mmap for the heap.
  expect_eq "$("$SB/real/proof_static" bigblock)" mmap "glibc's default"
  expect_eq "$(EDASHIM_ALLOCATOR=jemalloc proof_static bigblock)" heap "the fallback took effect"
  out=$("$BIN" explain -a jemalloc proof_static)
  expect_contains "$out" "CANNOT serve malloc" "explain says why"
  expect_contains "$out" "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=134217728" "explain shows the fallback"
  expect_contains "$out" "the allocator's gain needs a rebuild" "and what would get the allocator's gain"
  # A profile's own [glibc] table replaces the shipped set.
  printf 'allocator = "mimalloc"\n[glibc]\nmmap_threshold = 50000000\n' >"$SB/p.toml"
  EDASHIM_PROFILE=$SB/p.toml run_both proof_static
  expect_eq "$(log 'j["preflight"]["fallback"]["options"], j["env_set"]["GLIBC_TUNABLES"]')" \
    "glibc glibc.malloc.mmap_threshold=50000000" "profile's [glibc] used"
}

test_static_pie_program_is_not_verified() {
  install_tool proof_static_pie
  EDASHIM_ALLOCATOR=mimalloc run_both proof_static_pie fork
  expect_eq "$(log 'j["preflight"]["kind"], j["preflight"]["blocker"], j["allocator_verified"]')" \
    "static-pie static-pie False" "verdict"
  expect_contains "$(cat "$SB/shim.err")" "static-pie" "warned"
}

test_tbb_linked_program_shows_what_the_baseline_really_is() {
  install_tool proof_tbb
  EDASHIM_ALLOCATOR=system run_both proof_tbb
  expect_eq "$(log 'j["preflight"]["linked_allocator"], j["allocator_verified"]')" "libtbbmalloc_proxy.so.2 False" \
    "'system' is not glibc here"
  expect_eq "$(providers)" tbbmalloc "the probe saw tbbmalloc"
  expect_contains "$(cat "$SB/shim.err")" "links libtbbmalloc_proxy.so.2" "said once"
  EDASHIM_ALLOCATOR=jemalloc run_both proof_tbb
  expect_eq "$(cat "$SB/shim.err")" "" "not said twice"
  expect_eq "$(providers) $(log 'j["allocator_verified"]')" "jemalloc True" "the preload comes first and wins"
  expect_contains "$("$BIN" explain -a jemalloc proof_tbb)" "tbbmalloc still initialises" "explain"
}

test_program_with_its_own_malloc_is_not_preloaded() {
  install_tool proof_own_malloc
  EDASHIM_ALLOCATOR=jemalloc run_both proof_own_malloc fork
  expect_eq "$(log 'j["preflight"]["blocker"], j["allocator_verified"]')" "own-malloc False" "verdict"
  expect_eq "$(providers)" "executable executable" "its own malloc served, in the child too"
  expect_not_contains "$(log 'j["env_set"]["LD_PRELOAD"]')" jemalloc "not preloaded"
  expect_contains "$(cat "$SB/shim.err")" "defines malloc itself" "warned"
}

test_setuid_copy_owned_by_another_user_is_secure_execution() {
  [[ $(id -u) == 0 ]] || skip "needs root for chown"
  install_tool proof_dynamic proof_suid
  chown nobody "$SB/real/proof_suid" && chmod u+s "$SB/real/proof_suid"
  expect_eq "$("$SB/real/proof_suid" secure)" "AT_SECURE=1" "the kernel's word: secure-execution mode"
  EDASHIM_ALLOCATOR=jemalloc run_both proof_suid
  expect_eq "$(log 'j["preflight"]["blocker"], j["preflight"]["secure_exec"], j["allocator_verified"], j["processes"]')" \
    "secure-exec setuid to uid 65534 False []" "verdict"
  expect_contains "$(log 'j["preflight"]["fallback"]["effect"]')" "ignores malloc tunables" "honest about the fallback"
  # Written by the run itself, which knew the tool could not tell its end: not a later run's
  # sweep of a run that never ended (which, on a busy machine, comes within run_both's wait).
  expect_eq "$(log 'j["ended"]')" "not told: nothing of edashim's is loaded in the tool to tell its end" "the line's ending"
  # Setuid-root run by root changes no id: not secure, and the preload works.
  install_tool proof_dynamic proof_suid_root
  chmod u+s "$SB/real/proof_suid_root"
  expect_eq "$("$SB/real/proof_suid_root" secure)" "AT_SECURE=0" "the kernel's word"
  EDASHIM_ALLOCATOR=jemalloc run_both proof_suid_root
  expect_eq "$(log 'j["preflight"]["preload_reaches"], j["allocator_verified"]')" "True True" "setuid-root as root"
}

test_file_capabilities_are_secure_only_for_non_root() {
  [[ $(id -u) == 0 && -x /usr/sbin/setcap ]] || skip "needs root and setcap"
  install_tool proof_dynamic proof_caps
  /usr/sbin/setcap cap_net_raw+ep "$SB/real/proof_caps"
  expect_eq "$("$SB/real/proof_caps" secure)" "AT_SECURE=0" "root: capabilities do not grow"
  EDASHIM_ALLOCATOR=mimalloc run_both proof_caps
  expect_eq "$(log 'j["preflight"]["preload_reaches"], j["allocator_verified"]')" "True True" "as root"
  # As nobody, with a copy of edashim and the probe nobody can read.
  mkdir -p "$SB/nb/bin" "$SB/nb/home"
  # With the build tree's marker: a copied build is a build-tree layout only through it.
  cp "$BIN" "$BIN-cli" "$PROOF_PROBE" "$(dirname "$BIN")/edashim-build-tree" "$SB/nb/bin/"
  chown -R nobody "$SB/nb/home"
  chmod 755 "$SB" "$SB/real"
  as_nobody() {
    setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH="$PATH" HOME="$SB/nb/home" \
      XDG_STATE_HOME="$SB/nb/home/state" XDG_CACHE_HOME="$SB/nb/home/cache" XDG_CONFIG_HOME="$SB/nb/home/config" "$@"
  }
  expect_eq "$(as_nobody "$SB/real/proof_caps" secure)" "AT_SECURE=1" "non-root: secure-execution mode"
  out=$(as_nobody "$SB/nb/bin/edashim" run -a mimalloc -- "$SB/real/proof_caps" 2>"$SB/nb.err") || true
  expect_eq "$out" "$("$SB/real/proof_caps")" "same output"
  # Secure execution ignores the probe: the watcher learns the end from the kernel, after the wait.
  wait_lines 1 "as nobody" "$SB/nb/home/state/edashim/runs.jsonl"
  j=$(tail -1 "$SB/nb/home/state/edashim/runs.jsonl")
  expect_eq "$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j["preflight"]["blocker"], j["allocator_verified"])' "$j")" \
    "secure-exec False" "as nobody"
  expect_contains "$(last_notices "$SB/nb/home/state/edashim/runs.jsonl")" "file capabilities" "the run's line warns"
}

test_shell_script_wrapper_passes_the_preload_through_its_interpreter() {
  install_tool proof_dynamic
  printf '#!/bin/sh\nexec "${0%%/*}/proof_dynamic" "$@"\n' >"$SB/real/wrapper"
  chmod +x "$SB/real/wrapper"
  shim wrapper
  EDASHIM_ALLOCATOR=mimalloc run_both wrapper fork
  expect_eq "$(log 'j["preflight"]["scripts"] == [j["path"]], j["preflight"]["binary"], j["allocator_verified"]')" \
    "True /bin/sh True" "script -> /bin/sh"
  expect_eq "$(log '[(p["exe"].split("/")[-1], p["end"], p["provider"]) for p in j["processes"]][:2]')" \
    "[('dash', 'exec', 'mimalloc'), ('proof_dynamic', 'exit', 'mimalloc')]" "the shell exec'd away, then the program"
  expect_contains "$("$BIN" explain -a mimalloc wrapper)" "the preload passes through its interpreter" "explain"
}

test_a_child_that_resets_LD_PRELOAD_is_never_verified() {
  install_tool proof_dynamic
  # A tool that starts a child on its own preload list (some wrappers do): the probe stays, the
  # allocator goes. The mismatch must show.
  printf '#!/bin/sh\nLD_PRELOAD=%s "${0%%/*}/proof_dynamic"\n' "$PROOF_PROBE" >"$SB/real/resetter"
  chmod +x "$SB/real/resetter"
  shim resetter
  EDASHIM_ALLOCATOR=jemalloc run_both resetter
  expect_eq "$(providers) $(log 'j["allocator_verified"]')" "jemalloc glibc False" "mismatch seen"
  expect_contains "$(log 'j["verification"]')" "libc.so.6, not jemalloc" "which process"
}

test_yosys_sh_abc_tree_is_verified() {
  command -v yosys >/dev/null && command -v berkeley-abc >/dev/null || fail "yosys and berkeley-abc are required"
  ln -sf "$(command -v yosys)" "$SB/real/yosys"
  shim yosys
  printf 'module top(input [7:0] a, b, output [7:0] y);\n  assign y = a * b + 8'"'"'d3;\nendmodule\n' >"$SB/work/t.v"
  script='read_verilog t.v; synth -top top; abc; tee -q -o /dev/stdout stat'
  run_both yosys -q -p "$script"   # the shipped yosys profile: jemalloc
  [[ -s "$SB/shim.out" ]] || fail "yosys printed nothing"
  expect_eq "$(log 'j["allocator"]["requested"], j["allocator_verified"]')" "jemalloc True" "verified"
  names=$(log '" ".join(sorted(set(p["exe"].split("/")[-1] for p in j["processes"])))')
  # ABC, a tool with a profile of its own, is a run of its own (issue 26): its own line.
  expect_eq "$names" "dash yosys" "yosys -> sh, then berkeley-abc in its own run"
  expect_eq "$(python3 -c "import json,sys
print(sorted(set((j['tool'], j['allocator']['requested'], j['allocator_verified'], tuple(sorted(set(p['exe'].split('/')[-1] for p in j['processes'])))) for j in map(json.loads, open(sys.argv[1])) if j['tool'] != 'yosys')))" "$LOG")" \
    "[('berkeley-abc', 'jemalloc', True, ('berkeley-abc',))]" "ABC's own verified line"
  expect_eq "$(providers | tr ' ' '\n' | sort -u)" jemalloc "all on jemalloc"
  expect_eq "$(log 'all(p["ppid"] in {q["pid"] for q in j["processes"]} for p in j["processes"][1:])')" True "one tree"
}

test_probe_false_in_a_profile_turns_it_off() {
  install_tool proof_dynamic
  printf 'allocator = "jemalloc"\nprobe = false\n' >"$SB/p.toml"
  EDASHIM_PROFILE=$SB/p.toml run_both proof_dynamic
  expect_eq "$(log 'j["processes"], j["allocator_verified"]')" "None False" "no records"
  expect_contains "$(log 'j["verification"]')" "probe off" "why"
  # The library stays as the exec hook (issue 26), with no file to record to.
  expect_not_contains "$(log 'j["env_set"]')" "__EDASHIM_PROBE" "no records asked for"
}

test_probe_calls_no_malloc() {
  counter=$PROOF_BIN/libmalloc_counter.so
  : >"$SB/records"
  silent=$(LD_PRELOAD=$PROOF_PROBE:$counter "$PROOF_BIN/proof_dynamic" fork 2>&1 >/dev/null || true)
  recording=$(__EDASHIM_PROBE=$SB/records LD_PRELOAD=$PROOF_PROBE:$counter "$PROOF_BIN/proof_dynamic" fork 2>&1 >/dev/null || true)
  expect_eq "$(grep -c . "$SB/records")" 4 "S, F, and two E records written"
  expect_contains "$silent" "malloc_counter: " "the counter served malloc"
  expect_eq "$recording" "$silent" "the same malloc calls with the probe recording as with it silent"
}

# What the probe costs is a benchmark, not a test (a timed assertion fails on a busy machine):
# bench/overhead measures it (cmake --build build --target bench-overhead). Here: it records.
test_probe_records_every_one_of_200_quick_processes() {
  : >"$SB/records"
  out=$("$PROOF_BIN/spawn_timer" 200 "$PROOF_PROBE" "$SB/records" "$PROOF_BIN/proof_dynamic" secure)
  echo "    $out"
  expect_eq "$(grep -c '^E' "$SB/records")" 200 "every probed process recorded its exit"
}

run_suite "$@"
