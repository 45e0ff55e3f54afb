# The bugs tests/mutants/run.sh plants, one at a time: places where a bug would hurt users.
#   mutant ID FILE 'ORIGINAL TEXT' 'REPLACEMENT' 'CTEST -R PATTERN OF THE TESTS THAT MUST CATCH IT'
# The original text must occur exactly once in FILE. Keep an entry's pattern to the tests that
# should catch it: run time is one rebuild and those tests per entry.
# shellcheck shell=bash disable=SC2016

# --- signal relay: where a signal delivered to edashim goes (run/relay.cpp) ---
mutant relay-tool-side-sent-down shim/run/relay.cpp \
  'if (d.from_tool_side) return d.sender_in_our_group ? Route::drop : Route::to_parent;' \
  'if (d.from_tool_side) return d.sender_in_our_group ? Route::drop : Route::to_tool;' \
  '^unit:Relay'
mutant relay-terminal-signal-twice shim/run/relay.cpp \
  'if (d.shared_group && (d.code == SI_KERNEL || d.sig == SIGWINCH || d.sig == SIGCONT)) return Route::drop;' \
  'if (d.shared_group && (d.sig == SIGWINCH || d.sig == SIGCONT)) return Route::drop;' \
  '^unit:Relay'
mutant relay-kill-chld-dropped shim/run/relay.cpp \
  'if (d.code > 0 && (d.sig == SIGCHLD || d.sig == SIGIO)) return Route::drop;' \
  'if (d.sig == SIGCHLD || d.sig == SIGIO) return Route::drop;' \
  '^unit:Relay'
mutant relay-realtime-not-handled shim/run/relay.cpp \
  'if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig >= SIGRTMIN)) g_handled[g_handled_count++] = sig;' \
  'if (sig != SIGKILL && sig != SIGSTOP && sig < 32) g_handled[g_handled_count++] = sig;' \
  '^e2e_signals_supervised: test_every_signal_to_edashims_pid_alone'
mutant relay-queued-value-lost shim/run/relay.cpp \
  'if (info->si_code < 0 && info->si_code != SI_TKILL) {' \
  'if (false) {' \
  '^e2e_signals_supervised: test_repeated_signals'
mutant relay-sent-fault-kills-edashim shim/run/relay.cpp \
  'if (is_fault(sig) && info->si_code > 0) {' \
  'if (is_fault(sig)) {' \
  '^e2e_signals_supervised: test_every_signal'
# (Not listed: merging a copy from another sender too. The kernel merges a pending standard
# signal whoever sent the copy, so no test can tell it from the rule but by timing.)
mutant relay-realtime-merged shim/run/relay.cpp \
  'if (sig < SIGRTMIN) merge_copies(sig, info);' \
  'merge_copies(sig, info);' \
  '^e2e_signals_supervised: test_(repeated_signals|realtime_signals)'
# (Issue 39.) Supervised only: run in place, edashim is the tool and relays nothing.
mutant relay-stopped-tool-not-continued shim/run/relay.cpp \
  'if (is_stopped(tool)) ::kill(terminal >= 0 && tool_leads ? -tool : tool, SIGCONT);' \
  '' \
  '^e2e_signals_supervised: test_tool_that_stops_itself'

# --- the tool dies with edashim (run/launch.cpp) ---
mutant launch-no-pdeathsig shim/run/launch.cpp \
  '::prctl(PR_SET_PDEATHSIG, SIGKILL);' \
  ';' \
  '^e2e_signals_supervised: test_sigkilled_edashim_takes_the_tool'
# (Issue 39.) nohup's SIG_IGN lost: the supervised tool dies on hangup.
mutant launch-ignored-signals-not-restored shim/run/launch.cpp \
  'if (relay::was_ignored(handled[i])) ::signal(handled[i], SIG_IGN);' \
  ';' \
  '^e2e_signals_supervised: test_signals_the_caller_ignores'

# --- trust (config/trust.cpp, config/load.cpp, config/keys.cpp's untrusted allow-list) ---
mutant trust-content-not-pinned shim/config/trust.cpp \
  'if (e.file == file && e.hash == hash) return true;' \
  'if (e.file == file) return true;' \
  '^unit:Trust'
mutant trust-second-spelling shim/config/trust.cpp \
  'if (v >= 0x20 && v != 0x7f) return false;  // only what escape() escapes: one spelling per path' \
  '// only what escape() escapes: one spelling per path' \
  '^unit:Trust store'
mutant trust-hash-not-hex shim/config/trust.cpp \
  'if (l.size() < 66 || l[64] != '"' '"' || !is_hex(l.substr(0, 64)) || !unescape(l.substr(65), e.file))' \
  'if (l.size() < 66 || l[64] != '"' '"' || !unescape(l.substr(65), e.file))' \
  '^unit:Trust store'
mutant trust-store-anyones shim/config/trust.cpp \
  'auto text = util::read_owned(path_, util::SharedDirs::none(), 4 << 20);' \
  'auto text = util::read_owned(path_, util::SharedDirs{{"/"}}, 4 << 20);' \
  '^unit:Trust|^e2e_hostile: test_a_directory_name_cannot_forge'
mutant load-project-trusted-by-default shim/config/load.cpp \
  'FileContext f{path, cf.kind, !project, &found,' \
  'FileContext f{path, cf.kind, true, &found,' \
  '^unit:(Untrusted|Keys|Load|Config: (library_dirs|the explore|log_max_mb|allocator options))'
mutant keys-untrusted-applied shim/config/keys.cpp \
  'if (!f.trusted && spec->apply != apply_options) {' \
  'if (false) {' \
  '^unit:(Untrusted|Keys|Load|Config: (library_dirs|the explore|log_max_mb))'
mutant keys-env-allowed shim/config/keys.cpp \
  '{"env", apply_env, "sets the tool'"'"'s environment (LD_PRELOAD, PATH, ...)"},' \
  '{"env", apply_env, nullptr},' \
  '^unit:(Untrusted|Keys)'
mutant keys-allocator-path-allowed shim/config/keys.cpp \
  'if (v && v->find('"'/'"') != std::string::npos) return "a library path: it chooses code to run in every tool";' \
  'if (false) return "a library path: it chooses code to run in every tool";' \
  '^unit:(Untrusted|Keys)'
mutant keys-unknown-option-untrusted shim/config/keys.cpp \
  'if (!f.trusted && !alloc::known_option(family, name)) {' \
  'if (false && !alloc::known_option(family, name)) {' \
  '^unit:(Keys|Load|Options|Config: allocator options)'
mutant keys-own-config-only-from-project shim/config/keys.cpp \
  'if (spec->own_config_only && f.kind != FileKind::user && f.kind != FileKind::system) {' \
  'if (spec->own_config_only && f.kind != FileKind::user && f.kind != FileKind::system && f.kind != FileKind::project) {' \
  '^unit:(Keys|Load|Config|Untrusted)|^e2e_shared_(files|farm|recommend)'
mutant keys-pre-scan-misses shim/config/keys.cpp \
  'if (!untrusted_refusals(key, v).empty()) return true;' \
  'if (false) return true;' \
  '^unit:(Untrusted|Keys|Load|Config: (library_dirs|the explore|log_max_mb))'

# --- option range checks (config/keys.cpp) ---
mutant range-no-lower-bound shim/config/keys.cpp \
  'if (!v || !(*v >= lo) || *v > hi) return std::nullopt;' \
  'if (!v || *v > hi) return std::nullopt;' \
  '^unit:(Config|scratch)'
mutant range-log-keep-unbounded shim/config/keys.cpp \
  'if (!i || *i < 0 || *i > 100) return report' \
  'if (!i || *i < 0) return report' \
  '^unit:Config: log_max_mb'
mutant range-scratch-mb-overflow shim/config/keys.cpp \
  'if (!i || *i < 0 || *i > (int64_t(1) << 30))' \
  'if (!i || *i < 0 || *i > (int64_t(1) << 62))' \
  '^unit:(Config|scratch|Load)'

# --- Mann-Whitney's exact/asymptotic switch (stats/mann_whitney.cpp) ---
mutant mw-exact-for-one-small-sample shim/stats/mann_whitney.cpp \
  'use_exact = (n1 <= 8 || n2 <= 8) && !r.ties;' \
  'use_exact = (n1 <= 8 && n2 <= 8) && !r.ties;' \
  '^unit:(Mann-Whitney|Van Elteren)'
mutant mw-exact-with-ties shim/stats/mann_whitney.cpp \
  'use_exact = (n1 <= 8 || n2 <= 8) && !r.ties;' \
  'use_exact = (n1 <= 8 || n2 <= 8);' \
  '^unit:(Mann-Whitney|Van Elteren)'
mutant mw-exact-tail-off-by-one shim/stats/mann_whitney.cpp \
  'if (long(i) >= k0) tail += c[i];' \
  'if (long(i) > k0) tail += c[i];' \
  '^unit:(Mann-Whitney|Van Elteren)'
mutant mw-no-continuity-correction shim/stats/mann_whitney.cpp \
  'double z = (u - mu - 0.5) / s;' \
  'double z = (u - mu) / s;' \
  '^unit:(Mann-Whitney|Van Elteren)'

mutant mw-two-sided-not-doubled shim/stats/mann_whitney.cpp \
  'if (alt == Alternative::two_sided) r.p *= 2;' \
  '' \
  '^unit:(Mann-Whitney|Van Elteren)'

# --- failed runs in output verdicts (bench/outputs.cpp, bench/outputs_record.cpp) ---
mutant outputs-failed-runs-counted shim/bench/outputs.cpp \
  'if (r.arm != arm || !r.ok) continue;' \
  'if (r.arm != arm) continue;' \
  '^unit:Bench'
mutant outputs-failed-run-single-content shim/bench/outputs.cpp \
  'if (r.arm == arm && r.ok)' \
  'if (r.arm == arm)' \
  '^unit:Bench'
mutant outputs-record-same-as-first-ignored shim/bench/outputs_record.cpp \
  'return v.kind == OutputVerdict::identical && (a == 0 || v.same_as_first == std::optional<bool>(true));' \
  'return v.kind == OutputVerdict::identical;' \
  '^unit:(Bench|Recommend|Log line)'

# --- run-log locking (runlog/append.cpp) ---
mutant runlog-no-lock shim/runlog/append.cpp \
  'while (::flock(fd.get(), LOCK_EX) != 0 && errno == EINTR) {' \
  'while (false) {' \
  '^unit:Run log|^e2e_(load|core): test_(64_concurrent|rotation_under|concurrent_runs)'
mutant runlog-rotated-file-written shim/runlog/append.cpp \
  'now.st_dev == st.st_dev && now.st_ino == st.st_ino)' \
  'true)' \
  '^unit:Run log|^e2e_load: test_rotation'
mutant farm-task-dies-with-its-directories shim/farm/round_task.cpp \
  'g_terminated = 1;' \
  'g_terminated = 1; ::signal(SIGTERM, SIG_DFL); ::raise(SIGTERM);' \
  '^e2e_farm: test_parallel_a_killed'
mutant runlog-empty-log-rotated shim/runlog/append.cpp \
  'S_ISREG(st.st_mode) && st.st_size > 0 &&' \
  'S_ISREG(st.st_mode) &&' \
  '^unit:Run log: rotation'

# --- scratch lock inheritance and sweeping (run/scratch.cpp) ---
mutant scratch-lock-not-inherited shim/run/scratch.cpp \
  'int high = ::fcntl(lock.get(), F_DUPFD, 64);' \
  'int high = ::fcntl(lock.get(), F_DUPFD_CLOEXEC, 64);' \
  '^unit:Scratch|^e2e_nothing_lost: test_a_(daemon_the_tool_leaves|sigkilled_runs_probe)'
mutant scratch-locked-dir-swept shim/run/scratch.cpp \
  'st.st_uid != ::getuid() || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)' \
  'st.st_uid != ::getuid())' \
  '^unit:Scratch'
mutant scratch-created-exclusive shim/run/scratch.cpp \
  'if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0 && still_there(templ, fd.get())) return LockedDir{templ, std::move(fd), {}};' \
  'if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 && still_there(templ, fd.get())) return LockedDir{templ, std::move(fd), {}};' \
  '^unit:Scratch|^e2e_nothing_lost: test_a_detached_helper'
mutant scratch-not-held-by-the-probe shim/probe/probe.c \
  'if (!EDASHIM_IN_LAUNCHER()) hold_scratch();' \
  '' \
  '^unit:Scratch: the probe'
mutant scratch-sweep-leaves-read-only-trees shim/run/scratch.cpp \
  '      remove_locked(path, lock.get());' \
  '      util::remove_tree(path);' \
  '^e2e_shared_scratch: test_a_read_only_tree'
# (Not listed: make_locked_dir's still_there check. It closes a race with a concurrent sweep
# between mkdtemp and flock that no test can open on demand.)
mutant scratch-kept-made-sweepable shim/run/scratch.cpp \
  'make_locked_dir(own, kept ? kept_prefix(::getuid()) : sweepable_prefix(::getuid()));' \
  'make_locked_dir(own, sweepable_prefix(::getuid()));' \
  '^unit:Scratch|^e2e_nothing_lost: test_a_kept_scratch_is_never_swept'
mutant scratch-sweep-in-a-writable-base shim/run/scratch.cpp \
  '::fstat(dir_fd.get(), &st) != 0 || st.st_uid != uid || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)' \
  '::fstat(dir_fd.get(), &st) != 0 || st.st_uid != uid)' \
  '^unit:Scratch'

# --- owned-file rules (util/owned_file.cpp) ---
mutant owned-hard-link-accepted shim/util/owned_file.cpp \
  'if (st.st_nlink != 1)' \
  'if (st.st_nlink > 2)' \
  '^unit:(Owned|open_owned)'
mutant owned-other-users-file shim/util/owned_file.cpp \
  'if (!ours(st.st_uid, me))
    return q + " is owned by "' \
  'if (false)
    return q + " is owned by "' \
  '^unit:(Owned|open_owned)'
mutant owned-group-writable-file shim/util/owned_file.cpp \
  'if (st.st_mode & (S_IWGRP | S_IWOTH))
    return q + " is writable by "' \
  'if (st.st_mode & S_IWOTH)
    return q + " is writable by "' \
  '^unit:(Owned|open_owned)'
mutant owned-group-writable-dir shim/util/owned_file.cpp \
  'if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !sticky)' \
  'if ((st.st_mode & S_IWOTH) && !sticky)' \
  '^unit:(Owned|open_owned)'
# (Issue 39.) A directory link followed wherever it sits, so long as it and its directory are ours.
mutant owned-dir-link-in-writable-dir shim/util/owned_file.cpp \
  $' ||\n        (parent.st_mode & (S_IWGRP | S_IWOTH)))' \
  ')' \
  '^unit:check_owned_dir'

# --- the recommendation and adoption rules (learn/recommend.cpp, learn/adopt.cpp) ---
mutant recommend-current-arm-min-runs shim/learn/recommend.cpp \
  'bool thin = c.runs < rule.min_runs || c.current_runs < rule.min_runs || c.signatures < rule.min_signatures;' \
  'bool thin = c.runs < rule.min_runs || c.signatures < rule.min_signatures;' \
  '^unit:(Recommend|Adopt)'
mutant recommend-failure-not-stopped shim/learn/recommend.cpp \
  'if (cand.failures > 0 && !cur.wall.empty()) {' \
  'if (false) {' \
  '^unit:(Recommend|Adopt)'
mutant recommend-explored-is-current shim/learn/recommend.cpp \
  'if (!r.explored && r.start_unix >= g.latest) {' \
  'if (r.start_unix >= g.latest) {' \
  '^unit:(Recommend|Adopt)'
mutant recommend-bench-differing-ignored shim/learn/recommend.cpp \
  '!std::count(latest->differing.begin(), latest->differing.end(), allocator);' \
  'true;' \
  '^unit:(Recommend|Adopt|Bench record)'
mutant adopt-old-runs-count shim/learn/adopt.cpp \
  'if (!binary || r.start_unix >= double(binary->mtime_s)) counted.runs.push_back(r);' \
  'counted.runs.push_back(r);' \
  '^unit:Adopt'
mutant adopt-without-bench shim/learn/adopt.cpp \
  'if (facts.requires_bench && parts && !bench_confirms(benches, v.tool, parts->allocator)) {' \
  'if (false) {' \
  '^unit:Adopt'
mutant adopt-changed-binary-kept shim/learn/adopt.cpp \
  'if (!facts.binary || !(it->binary == *facts.binary)) {' \
  'if (!facts.binary) {' \
  '^unit:Adopt'
mutant adopt-recheck-against-latest shim/learn/adopt.cpp \
  'if (previous && previous->arm == v.current && !previous->replaces.empty()) l.replaces = previous->replaces;' \
  '' \
  '^unit:Adopt'
mutant adopt-other-cpu shim/learn/adopt.cpp \
  'if (v.cpu != this_cpu) {' \
  'if (false) {' \
  '^unit:Adopt'
mutant adopt-recheck-never-drops shim/learn/adopt.cpp \
  'if (again && !again->holds()) {' \
  'if (false) {' \
  '^unit:Adopt'
mutant recommend-min-signatures shim/learn/recommend.cpp \
  'c.current_runs < rule.min_runs || c.signatures < rule.min_signatures;' \
  'c.current_runs < rule.min_runs;' \
  '^unit:(Recommend|Adopt)'
mutant adopt-while-off shim/learn/adopt.cpp \
  'if (!adopt_on) {' \
  'if (false) {' \
  '^unit:Adopt'
mutant outputs-record-differing-also-identical shim/bench/outputs_record.cpp \
  'return std::find(by.differing.begin(), by.differing.end(), x) != by.differing.end();' \
  'return false;' \
  '^unit:(Bench|Recommend|Log line)'
# (Issue 39.) The header line placed by a text search, the parsed result not checked: a
# [tool.yosys] line inside a multi-line string is written into.
mutant config-edit-merge-unchecked shim/learn/config_edit.cpp \
  'if (auto bad = check_merge(old_text, text, name, todo); !bad.empty()) {' \
  'if (auto bad = check_merge(old_text, text, name, todo); false) {' \
  '^unit:Recommend --write'

# --- bench's verdict, its kept runs and report's killed runs (issue 28) ---
mutant verdict-failed-run-ignored shim/bench/verdict.cpp \
  'arms[a].failed == 0 && ' \
  '' \
  '^unit:Verdict'
mutant verdict-own-load-counted shim/bench/verdict.cpp \
  'load_after - jobs' \
  'load_after' \
  '^unit:Verdict'
mutant verdict-differing-outputs-adopted shim/bench/verdict.cpp \
  'case Outputs::differ:' \
  'case Outputs::differ: break;' \
  '^unit:Verdict'
mutant verdict-judged-unpaired shim/bench/verdict.cpp \
  'paired->arms[a].pairs.size() >= kVerdictMinPairs' \
  'paired->arms[a].pairs.size() >= 1000' \
  '^unit:Verdict'
mutant verdict-too-few-rounds-paired shim/bench/verdict.cpp \
  'paired->arms[a].pairs.size() >= kVerdictMinPairs' \
  'paired->arms[a].pairs.size() >= 1' \
  '^unit:Verdict'
mutant verdict-slower-arm-wins shim/bench/verdict.cpp \
  '(!v.winner || j.ratio < best)' \
  '(!v.winner || j.ratio > best)' \
  '^unit:Verdict'
mutant bench-line-not-marked shim/bench/outputs_record.cpp \
  'j[name(key::explore)] = {{name(key::ran)' \
  'if (false) j[name(key::explore)] = {{name(key::ran)' \
  '^unit:Bench: a kept run'
mutant report-killed-as-failure shim/report/aggregate.cpp \
  'if (r.signal) {' \
  'if (false) {' \
  '^unit:Report'
# --- issue 28 item 6: a config error is never silent; an undecided file warned once; trust --ignore ---
mutant config-error-not-logged shim/pipeline/run_tool.cpp \
  '    log_config_error(plan);' \
  '' \
  '^unit:run_tool: a broken|^e2e_config_trust: test_a_(config|toml)'
mutant config-broken-file-applied shim/config/load.cpp \
  '  if (roll_back_if_broken(out_, first_problem, *below, cf, profile_sections_)) return;' \
  '' \
  '^unit:Config: a file with an error|^e2e_config_trust: test_a_config'
mutant warned-every-run shim/pipeline/notices.cpp \
  'it = n.said.emplace(k, first_in_this_session(k)).first;' \
  'it = n.said.emplace(k, true).first;' \
  '^(e2e_config_trust: test_an_undecided|e2e_quiet: test_a_terminal_hears)'
mutant ignored-file-applied shim/config/load.cpp \
  '  if (kind == FileKind::project && ignored_by_choice(req_, path, file.content, cf, out_, ignore_problem_)) return;' \
  '' \
  '^unit:Config: a project file the user chose|^e2e_config_trust: test_trust_ignore'

# --- the exec hook (issue 26): routing, the loader rule, and staying out of programs that start none ---
mutant hook-route-by-name-lost shim/probe/hook.c \
  'if (tools && in_list(tools, base, strlen(base))) return 1;' \
  '' \
  '^e2e_flow_exec: test_makefile_calling_yosys_by_absolute_path'
mutant hook-foreign-loader-kept shim/probe/hook.c \
  'if (edh_loads_there(w->v.loader, (const char* const*)argv, explicit_run, ours, &w->v)) return PASS;' \
  'return PASS;' \
  '^e2e_flow_exec: test_(musl_tool|foreign_pt_interp)'
mutant hook-leaf-misses-a-starter shim/probe/loader_check.c \
  'if (strcmp(name, k_starters[i]) == 0) return 1;' \
  'if (strcmp(name, k_starters[i]) == 0) return 0;' \
  '^(unit:A program that starts no other|e2e_flow_exec: test_a_program_that_starts_none)'
mutant hook-leaf-drops-the-allocator shim/probe/hook.c \
  'if (strchr(ours, '"'"':'"'"')) return PASS;' \
  '' \
  '^e2e_flow_exec: test_a_program_that_starts_none'
# (issue 35: every way a program starts)
mutant hook-strip-drops-the-users-preload shim/probe/hook.c \
  'copy_env(env, newenv, "LD_PRELOAD=", w->preload[11] ? w->preload : NULL, NULL);' \
  'copy_env(env, newenv, "LD_PRELOAD=", NULL, NULL);' \
  '^e2e_flow_exec: test_(a_(foreign_loader|musl_program)_keeps_the_users_own_preload|ldd_lists)'
mutant hook-routes-what-would-not-start shim/probe/hook.c \
  '      would_start(t->path))' \
  '      1)' \
  '^e2e_flow_exec: test_a_tool_name(d_file)?_the_kernel'
mutant hook-script-remembered-plain shim/probe/hook.c \
  '    if (kind == EDH_SCRIPT) {' \
  '    if (kind == EDH_SCRIPT && (remember_plain(st, PLAIN_CHECKED), 1)) {' \
  '^e2e_flow_exec: test_a_script_whose_interpreter'
mutant hook-script-link-routed shim/probe/hook.c \
  'if (is_edashim(ist, w->exe) || !may_execute(script) || !would_start(interp)) return PASS;' \
  'if (!may_execute(script) || !would_start(interp)) return PASS;' \
  '^e2e_flow_exec: test_a_script_whose_interpreter'
mutant hook-script-interpreter-not-looked-at shim/probe/hook.c \
  $'      own = ist;\n      st = &own;' \
  $'      return PASS;\n      st = &own;' \
  '^e2e_flow_exec: test_a_script_whose_interpreter_is_a_musl'
mutant hook-static-parent-keeps-ours shim/probe/hook.c \
  $'  if (!without_ours(env, newenv, w, ours)) return PASS;\n  w->v.loader[0]' \
  $'  return PASS;\n  w->v.loader[0]' \
  '^e2e_flow_exec: test_a_musl_program_below_a_static_parent'
mutant hook-ldd-lists-ours shim/probe/hook.c \
  'if (env_get(env, "LD_TRACE_LOADED_OBJECTS")) return' \
  'if (0) return' \
  '^e2e_flow_exec: test_ldd_lists'
mutant hook-fexecve-not-looked-at shim/probe/hook.c \
  $'  struct call c = {K_FEXECVE, NULL, argv, envp, NULL, NULL, NULL, fd, 0};\n  return intercept(&c);' \
  $'  struct call c = {K_FEXECVE, NULL, argv, envp, NULL, NULL, NULL, fd, 0};\n  return call_real(&c, K_FEXECVE, NULL, argv, envp);' \
  '^e2e_flow_exec: test_fexecve'
mutant hook-shebang-cr-blank shim/probe/loader_check.c \
  "static int spacetab(char c) { return c == ' ' || c == '\\t'; }" \
  "static int spacetab(char c) { return c == ' ' || c == '\\t' || c == '\\r'; }" \
  '^unit:The #! line'
# The one ELF reader (elf/elf_read.c) under both: a string looked for past its table's end.
mutant elf-read-string-past-its-limit shim/elf/elf_read.c \
  'unsigned long n = (unsigned long)(left < room ? left : room);' \
  'unsigned long n = (unsigned long)room;' \
  '^unit:The one ELF reader'

# --- exec in place, nothing beside the tool: its own process finishes the run (issue 46) ---
mutant finish-stdio-not-flushed shim/probe/probe.c \
  '  if (from_exit) flush_streams();' \
  '  (void)from_exit;' \
  '^e2e_exec_in_place: test_(each_way|command_substitution|the_tools_own_process)'
mutant finish-flushes-after-_exit shim/probe/probe.c \
  '  finish_run((status & 0xff) << 8, 0);' \
  '  finish_run((status & 0xff) << 8, 1);' \
  '^e2e_exec_in_place: test_(each_way|the_tools_own_process)'
mutant finish-by-any-process-of-the-run shim/probe/probe.c \
  '  if (!g_finish.armed || getpid() != g_finish.pid) return;' \
  '  if (!g_finish.armed) return;' \
  '^e2e_exec_in_place: test_wait_for_any_child'
mutant finish-exit-code-lost shim/pipeline/finish.cpp \
  '  ::_exit(exit_code & 0xff);' \
  '  ::_exit(0);' \
  '^unit:finish_run|^e2e_exec_in_place: test_each_way'
mutant finish-reads-a-directory-others-may-write shim/pipeline/finish.cpp \
  '         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;' \
  '         true;' \
  '^unit:(complete_unfinished|finish_run)'
mutant finish-killed-run-not-said shim/pipeline/finish.cpp \
  '  end.ended = std::string(runlog::key::kEndedWithoutWord);' \
  '  (void)end.ended;' \
  '^unit:complete_unfinished|^e2e_exec_in_place: test_each_way'
mutant finish-private-dir-not-held-by-the-tool shim/pipeline/run_tool.cpp \
  '      run::hand_down(probe.lock_fd);' \
  '      (void)probe.lock_fd;' \
  '^e2e_nothing_lost: test_a_sigkilled_runs_probe'
mutant finish-armed-where-ld-so-ignores-the-probe shim/pipeline/run_tool.cpp \
  '  if (plan.hook_library.empty() || plan.preflight.blocker == tool::Blocker::secure_exec) return false;' \
  '  if (plan.hook_library.empty()) return false;' \
  '^e2e_proof: test_setuid_copy'
mutant finish-exec-without-us-taken-for-a-kill shim/run/probe_records.cpp \
  '    if (f.size() != 6 || f[0] != "L" || number(f[1]) != std::optional<long>(pid)) continue;' \
  '    continue;' \
  '^unit:complete_unfinished|^e2e_flow_exec: test_musl_tool_behind'
mutant exec-failed-leaves-its-record shim/pipeline/run_tool.cpp \
  'int exec_failed(const Plan& plan, RunSetup& setup, run::ProbeFile& probe, run::Outcome out) {
  if (ours_to_blame(out)) fall_back_to_exec(plan, setup, probe, out);
  std::string probe_records = run::read_and_remove_probe_file(probe);' \
  'int exec_failed(const Plan& plan, RunSetup& setup, run::ProbeFile& probe, run::Outcome out) {
  if (ours_to_blame(out)) fall_back_to_exec(plan, setup, probe, out);
  std::string probe_records = run::read_probe_file(probe); probe.lock_fd.reset();' \
  '^e2e_exec_in_place: test_a_failed_exec'
mutant finish-sweep-without-budget shim/run/scratch.cpp \
  '  while (removed < budget) {' \
  '  while (true) {' \
  '^unit:Scratch: a sweep removes no more than its budget'
mutant finish-untold-line-loud-without-descriptors shim/pipeline/run_tool.cpp \
  '  if (!written && errno != EMFILE && errno != ENFILE) notice(' \
  '  if (!written) notice(' \
  '^e2e_transparency: test_three_descriptors'
mutant report-killed-runs-counted-as-untold shim/commands/report.cpp \
  '        ++(rec.ended == runlog::key::kEndedWithoutWord ? st.without_a_word : st.untold);' \
  '        ++st.untold;' \
  '^e2e_exec_in_place: test_each_way'
mutant self-exe-without-proc-unknown shim/util/fs.cpp \
  '    if (execfn && *execfn)' \
  '    if (false)' \
  '^e2e_no_second_process: test_0_'
# The line written in the tool's process itself (probe/finish_here.c, probe/line_end.c).
mutant finish-here-not-used shim/probe/probe.c \
  '  int here = edashim_finish_here(g_finish.dir, g_finish.dir_len, &f);' \
  '  int here = 0;' \
  '^e2e_exec_in_place: test_the_tools_own_process'
mutant finish-here-log-not-the-one-checked shim/probe/finish_here.c \
  '  int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_dev == r->log_dev &&
           (unsigned long long)st.st_ino == r->log_ino;' \
  '  int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);' \
  '^e2e_exec_in_place: test_a_log_replaced'
mutant finish-here-without-the-logs-lock shim/probe/finish_here.c \
  '  while (ok && flock(fd, LOCK_EX) != 0)' \
  '  while (0 && flock(fd, LOCK_EX) != 0)' \
  '^e2e_exec_in_place: test_the_line_is_in_the_log_when'
mutant finish-here-never-rotates shim/probe/finish_here.c \
  '       !(r->log_max_bytes > 0 && st.st_size > 0 && (long long)st.st_size + (long long)len > r->log_max_bytes);' \
  '       1;' \
  '^e2e_exec_in_place: test_the_tools_own_process'
mutant finish-here-record-left-for-a-sweep shim/probe/finish_here.c \
  '  unlink(record_path);
  if (strncmp(r.probe_file, dir_path, dir_len) == 0' \
  '  if (strncmp(r.probe_file, dir_path, dir_len) == 0' \
  '^e2e_exec_in_place: test_the_tools_own_process'
mutant finish-here-runs-left-not-swept shim/probe/finish_here.c \
  '  for (int i = 0; i < r.n_sweep_bases && !sweep; ++i) sweep = left_behind(r.sweep_bases[i], own);' \
  '  (void)left_behind;' \
  '^e2e_nothing_lost: test_a_sigkilled_runs_probe'
mutant finish-here-scratch-in-use-not-said shim/probe/finish_here.c \
  '    return stat(scratch, &st) == 0 && S_ISDIR(st.st_mode);' \
  '    return 0 * stat(scratch, &st);' \
  '^e2e_exec_in_place: test_a_daemonizing_tool'
mutant line-end-edashims-own-cpu-counted shim/probe/line_end.c \
  '  put_fraction(&o, at_least_0((f->utime_us - r->own[0]) + (f->cutime_us - r->own[2])), 1000000LL, 6);' \
  '  put_fraction(&o, at_least_0(f->utime_us + f->cutime_us), 1000000LL, 6);' \
  '^unit:line_end'
mutant line-end-launcher-counted shim/probe/line_end.c \
  '    if (*r->launcher && !strcmp(ps[i].exe, r->launcher)) continue;' \
  '    if (0) continue;' \
  '^unit:line_end'
mutant line-end-second-exit-record-taken shim/probe/line_end.c \
  '      if (peak >= 0) p->peak = peak;
      p->running = 0;' \
  '      if (peak >= 0) p->peak = peak;' \
  '^unit:line_end'
mutant line-end-escapes-written-raw shim/probe/line_end.c \
  '  if (!plain(s)) o->ok = 0;' \
  '  (void)plain;' \
  '^unit:line_end'
mutant line-end-probe-off-note-lost shim/probe/line_end.c \
  '    put_string(&o, r->unprobed_note);' \
  '    put_string(&o, "");' \
  '^unit:line_end'
mutant unfinished-damaged-value-taken shim/pipeline/unfinished.cpp \
  '    if (!take_field(u, key, *value)) return util::fail("line " + std::to_string(i + 1) + ": " + key + " is not valid");' \
  '    (void)take_field(u, key, *value);' \
  '^unit:Unfinished'

# --- a run's peak virtual size is its tree's (runlog/tree_peak.cpp; issue 38 item 1) ---
mutant bench-child-runs-peak-left-out shim/bench/runner.cpp \
  '  rec.vm_peak_kb = tree.fold(rec);' \
  '  tree.fold(rec);' \
  '^(e2e_bench: test_bench_peak_virtual_size_includes_child_runs)$'
mutant report-child-runs-peak-left-out shim/commands/report.cpp \
  '    if (peak == rec.vm_peak_kb) return agg.add(rec);' \
  '    return agg.add(rec);' \
  '^(e2e_bench: test_bench_peak_virtual_size_includes_child_runs)$'
mutant tree-peak-one-level shim/runlog/tree_peak.cpp \
  '    parent = std::max(parent, *peak);' \
  '    parent = std::max(parent, *r.vm_peak_kb);' \
  '^unit:TreePeaks'
mutant bench-runs-on-after-a-failure shim/commands/bench.cpp \
  '  s.stop_at_failure = true;' \
  '  s.stop_at_failure = false;' \
  '^e2e_bench: test_bench_stops_at_the_first_failed_run_unless_told_otherwise$'

# --- one adoption rule (bench/verdict.cpp, commands/bench.cpp; issue 38 item 7) ---
mutant bench-adopt-without-the-rule shim/bench/verdict.cpp \
  '  if (!missing.empty()) {' \
  '  if (false) {' \
  '^unit:Verdict: a clear winner over the memory budget'
mutant bench-adopt-against-any-first-arm shim/commands/bench.cpp \
  '  if (current.empty() || arms[0].arm_id != current) {' \
  '  if (current.empty()) {' \
  '^e2e_bench: test_bench_adopt_judges_against_the_current_choice_by_recommends_rule$'

# --- issue 49: the survivors of the third review, each with a test seen failing ---
mutant runlog-own-descriptor-rotated shim/runlog/append.cpp \
  '  if (limits.max_bytes > 0 && S_ISREG(st.st_mode) && st.st_size > 0 && !names_own_descriptor(path) &&' \
  '  if (limits.max_bytes > 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&' \
  '^unit:Run log: EDASHIM_LOG=/dev/stderr'
mutant voice-short-write-restarts shim/util/voice.cpp \
  '    ssize_t n = ::write(STDERR_FILENO, out.data() + done, out.size() - done);' \
  '    ssize_t n = ::write(STDERR_FILENO, out.data(), out.size() - done);' \
  '^unit:Voice: a write a signal cuts short'
mutant farm-other-version-fingerprint-reversed shim/farm/round_task.cpp \
  '    if (!other || check_fingerprint(dir, *other, shared)) e = std::move(other);' \
  '    if (!other || !check_fingerprint(dir, *other, shared)) e = std::move(other);' \
  '^unit:Farm: a round of another'
mutant elf-read-section-past-the-table shim/elf/elf_read.c \
  '  if (i >= e->shnum || e->shentsize != e->shsize) return 0;' \
  '  if (i > e->shnum || e->shentsize != e->shsize) return 0;' \
  '^unit:The one ELF reader'
mutant plan-plain-run-keeps-the-allocators-version shim/pipeline/plan.cpp \
  '  plain.allocator_version.clear();' \
  '  (void)plain.allocator_version;' \
  '^unit:Plan: the plain run of a broken configuration'

# --- What a run has to tell, and where (issue 47: pipeline/notices.hpp) ---
mutant notices-said-off-a-terminal shim/pipeline/notices.cpp \
  '    case NoticeRoute::terminal: return stderr_is_terminal;' \
  '    case NoticeRoute::terminal: return true;' \
  '^(e2e_quiet: test_tcl|unit:Notices)'
mutant notices-read-only-home-every-run shim/pipeline/notices.cpp \
  '  return first_in_session_at(own + "/warned", key, "notice", flow).value_or(true);' \
  '  return true;' \
  '^e2e_quiet: test_a_read_only_home'
mutant notices-not-in-the-line shim/pipeline/run_line.cpp \
  '  s.notices = run_notices();' \
  '  (void)run_notices();' \
  '^(e2e_quiet: test_tcl_exec_with_an_untrusted|unit:run_tool: a broken configuration)'
mutant notices-log-not-checked-before-the-exec shim/pipeline/run_tool.cpp \
  '    if (!log.ok()) notice(log_not_written(log.why()));' \
  '    (void)log;' \
  '^e2e_quiet: test_a_static_and_a_killed'
mutant notices-finish-without-its-variables shim/probe/probe.c \
  '      if (strncmp(*e, kPassed[i], strlen(kPassed[i])) == 0) {' \
  '      if (0) {' \
  '^e2e_load: test_a_log_on_dev_full'
mutant report-notices-not-counted shim/commands/report.cpp \
  '        ++told.runs;' \
  '        (void)told.runs;' \
  '^e2e_quiet: test_tcl_exec_with_an_untrusted'
mutant doctor-notices-not-shown shim/commands/doctor.cpp \
  '      note_notices(r, log, g.shared);' \
  '      (void)g;' \
  '^e2e_quiet: test_tcl_exec_with_an_allocator'

# --- The habits of sites (issue 47): execvp's lookup, wrappers, submitters, shells ---
mutant resolve-denied-is-not-found shim/tool/resolve.hpp \
  '  int status_if_not_found() const { return denied.empty() ? 127 : 126; }' \
  '  int status_if_not_found() const { return 127; }' \
  '^(e2e_site_habits: test_a_file_that_cannot|unit:Resolve)'
mutant plan-missing-interpreter-run-anyway shim/pipeline/preflight.cpp \
  '  while (plan.preflight.interpreter_missing && passed.size() < 8) {' \
  '  while (false) {' \
  '^e2e_site_habits: test_a_broken_script'
mutant inspect-missing-interpreter-not-told shim/tool/inspect.cpp \
  '      p.interpreter_missing = depth > 0 && (errno == ENOENT || errno == ENOTDIR);' \
  '      p.interpreter_missing = false;' \
  '^e2e_site_habits: test_a_broken_script'
mutant wrapper-a-run-of-its-own shim/pipeline/run_tool.cpp \
  '  return tool && *tool == inv.tool && exit_var &&' \
  '  return false && tool && *tool == inv.tool && exit_var &&' \
  '^e2e_site_habits: test_a_wrapper'
mutant wrapper-any-process-continues-the-run shim/pipeline/run_tool.cpp \
  '         exit_var->substr(0, exit_var->find('"':'"')) == std::to_string(::getpid());' \
  '         true;' \
  '^e2e_launchers: test_shebang_scripts'
mutant submitter-keeps-edashims-markers shim/pipeline/submitters.cpp \
  '    if (e.rfind("__EDASHIM_", 0) == 0) continue;' \
  '    (void)0;' \
  '^(unit:Submitters|e2e_site_habits: test_sbatch)'
mutant submitter-not-routed shim/pipeline/plan.cpp \
  '    in.markers.emplace_back(kToolsVar, util::join(job_submitters(), ":") + (plan.routed_tools.empty() ? "" : ":") +' \
  '    in.markers.emplace_back(kToolsVar, std::string() + (plan.routed_tools.empty() ? "" : ":") +' \
  '^e2e_site_habits: test_sbatch'
mutant shims-add-no-rehash-advice shim/commands/shims.cpp \
  '  if (linked)' \
  '  if (false)' \
  '^e2e_site_habits: test_shims_add'
mutant install-no-csh-line install/install.sh \
  '  for f in "$HOME/.tcshrc" "$HOME/.cshrc"; do [ -f "$f" ] && targets+=("appendcsh $f"); done' \
  '  :' \
  '^e2e_install$'
mutant doctor-read-only-tree-missing-tool-a-problem shim/commands/doctor.cpp \
  '      if (::access(s.dir.c_str(), W_OK) != 0)' \
  '      if (false)' \
  '^e2e_site_habits: test_a_link_for_a_tool_this_machine_lacks'
mutant explain-typing-always-reaches-edashim shim/commands/explain.cpp \
  '  if (tool::is_edashim(first, tool::SelfIdentity::current(std::getenv(pipeline::kChainVar))))' \
  '  if (true)' \
  '^e2e_site_habits: test_explain_says'
mutant line-unsafe-probe-path-said-not-installed shim/pipeline/run_line.cpp \
  '                      : !plan.unsafe_preloads.empty() && ' \
  '                      : false && ' \
  '^e2e_prefix_paths: test_a_probe_path_with_a_space'
# --- Module files and advice that fits the node (issue 47, this stop) ---
mutant modules-lmod-links-without-priority install/modulefiles/lua/edashim.lua \
  'prepend_path{"PATH", pathJoin(prefix, "lib/edashim/shims"), priority = 100}' \
  'prepend_path{"PATH", pathJoin(prefix, "lib/edashim/shims")}' \
  '^e2e_modules: test_lmod_keeps'
mutant modules-environment-modules-fix-is-the-path-line shim/tool/path_order.cpp \
  '    case Modules::kEnvironmentModules:' \
  '    case Modules::kEnvironmentModules: return plain_fix;' \
  '^(unit:Modules|e2e_modules: test_environment_modules)'
mutant modules-lmod-fix-is-the-path-line shim/tool/path_order.cpp \
  '      if (scene.edashim_loaded) return plain_fix;' \
  '      return plain_fix;' \
  '^(unit:Modules|e2e_modules: test_lmod_doctor)'
mutant modules-lmod-taken-for-environment-modules shim/tool/path_order.cpp \
  '  if (set(lmod_cmd)) m.system = Modules::kLmod;' \
  '  if (false) m.system = Modules::kLmod;' \
  '^(unit:Modules|e2e_modules: test_lmod_doctor)'
mutant doctor-shadowed-fix-ignores-modules shim/commands/doctor.cpp \
  '                s.unshadow);' \
  '                s.put_first);' \
  '^e2e_modules: test_(lmod_doctor|environment_modules)'
mutant packages-debian-12s-everywhere shim/alloc/registry.cpp \
  '    if (p.distribution == distribution.id && p.version == distribution.version_id && !p.name.empty())' \
  '    if (p.distribution == distribution.id && p.version == "12" && !p.name.empty())' \
  '^unit:Registry'
mutant packages-advice-without-library-dirs shim/alloc/registry.cpp \
  '  if (auto command = install_command(name, distribution)) return "Install it: " + *command + ", or " + dirs + ".";' \
  '  if (auto command = install_command(name, distribution)) return "Install it: " + *command + ".";' \
  '^unit:Registry'
mutant os-release-quotes-kept shim/util/os_release.cpp \
  '      value = value.substr(1, value.size() - 2);' \
  '      (void)0;' \
  '^unit:os-release'
mutant resolve-noexec-mount-taken shim/tool/resolve.cpp \
  '    if (::access(candidate.c_str(), X_OK) != 0) {' \
  '    if (!(st.st_mode & 0111)) {' \
  '^e2e_site_habits: test_a_tool_on_a_noexec'
# --- edashim's own allocators (issue 48) ---
mutant own-allocators-not-preferred shim/alloc/allocators.cpp \
  '    if (!own_dir.empty() && util::exists(own_dir + "/" + soname)) return Located{own_dir + "/" + soname, kBuildEdashim};' \
  '    if (false) return Located{own_dir + "/" + soname, kBuildEdashim};' \
  '^(unit:A run prefers|e2e_own_allocators: test_a_run_preloads_edashims_own_jemalloc)'
mutant own-allocators-library-dirs-ignored shim/alloc/allocators.cpp \
  '  for (const auto& soname : a.sonames)
    for (const auto& d : setting_dirs)' \
  '  for (const auto& soname : a.sonames)
    for (const auto& d : std::vector<std::string>{})' \
  '^unit:A run prefers'
mutant own-allocators-build-not-in-the-line shim/runlog/write.cpp \
  '  j.key(key::build).string_or_null(s.library.empty() ? "" : s.build);' \
  '  j.key(key::build).string_or_null("");' \
  '^e2e_own_allocators: test_a_run_preloads_edashims_own_(jemalloc|mimalloc)'
mutant own-allocators-layout-lost shim/paths/layout.cpp \
  '    l.own_allocators = dir + "/alloc";' \
  '    l.own_allocators = dir + "/own";' \
  '^e2e_own_allocators: test_a_run_preloads_edashims_own_jemalloc'
# --- a configuration's problems as a run's notices (CI's hang on a file of 900 mistakes) ---
mutant problem-notices-uncapped shim/pipeline/run_tool.cpp \
  '    else if (++given > kProblemNotices) ++left;' \
  '    else if (++given > 100000) ++left;' \
  '^e2e_hostile: test_a_file_of_many_mistakes'
mutant problem-notices-rest-not-counted shim/pipeline/run_tool.cpp \
  '  if (left)' \
  '  if (false)' \
  '^e2e_hostile: test_a_file_of_many_mistakes'
# --- Environment Modules: the links kept first by edashim's extra site configuration (issue 47) ---
mutant em-links-not-moved-first install/environment-modules/siteconfig.tcl \
  'catch {trace add execution renderSettings enter ::edashim_links_first}' \
  'catch {trace add execution renderSetting enter ::edashim_links_first}' \
  '^e2e_modules: test_environment_modules_keeps'
mutant em-site-configuration-not-read install/environment-modules/siteconfig.tcl \
  '  source $::env(EDASHIM_MODULE_NEXT_SITECONFIG)' \
  '  list $::env(EDASHIM_MODULE_NEXT_SITECONFIG)' \
  '^e2e_modules: test_environment_modules_keeps'
mutant em-site-configuration-not-given-back install/modulefiles/tcl/edashim \
  'if {[info commands pushenv] ne {}} {' \
  'if {0} {' \
  '^e2e_modules: test_environment_modules_keeps'
# --- edashim's jemalloc for glibc 2.34+, where the tool's libc has it (issue 48) ---
mutant newer-glibc-build-taken-anywhere shim/pipeline/preflight.cpp \
  '    if (edh_version_cmp(floor.c_str(), glibc.c_str()) <= 0 &&' \
  '    if (true &&' \
  '^e2e_old_userland'
mutant newer-glibc-build-never-taken shim/pipeline/preflight.cpp \
  '  if (builds.empty()) return;' \
  '  return;' \
  '^(e2e_own_allocators: test_a_run|e2e_shared_tree_doc)'
# (Not listed: build.sh's check of a glibc-X.Y build. A bug there fails the build, which the
# mutation check counts as broken; suite_glibc_floor checks the same rule on what was built.)
