#include "pipeline/run_tool.hpp"
#include "util/clock.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <utility>

#include "config/settings.hpp"
#include "pipeline/explore.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/preflight.hpp"
#include "pipeline/run_line.hpp"
#include "pipeline/submitters.hpp"
#include "pipeline/warn_once.hpp"
#include "pipeline/finish.hpp"
#include "pipeline/notices.hpp"
#include "pipeline/unfinished.hpp"
#include "paths/layout.hpp"
#include "run/exit_notice.hpp"
#include "run/launch.hpp"
#include "run/probe_records.hpp"
#include "run/scratch.hpp"
#include "runlog/append.hpp"
#include "runlog/schema.hpp"
#include "util/fs.hpp"
#include "util/json_writer.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

namespace pipeline {
namespace {

// What a shell would say too (the tool cannot be started at all): said always. Everything else
// edashim has to tell is a notice (pipeline/notices.hpp), kept off the tool's stderr.
void say(const std::string& text) { util::Voice("edashim").say(text); }

// Runs the real tool with the environment untouched: EDASHIM=off, nested calls, and the
// fallback when edashim's own configuration is broken, so that nobody's build stops on our account.
// `env`: the environment to exec with (nullptr: this process's).
[[noreturn]] void exec_plain(const Invocation& inv, const std::vector<std::string>* env = nullptr) {
  if (!inv.explicit_path.empty()) run::exec_in_place(inv.explicit_path, inv.argv, env);
  auto self = tool::SelfIdentity::current(std::getenv(kChainVar));
  const char* path = std::getenv("PATH");
  auto r = tool::resolve(inv.tool, path ? path : "/usr/local/bin:/usr/bin:/bin", self);
  if (r.path.empty()) {
    say(tool::not_found_message(inv.tool, r));
    ::_exit(r.status_if_not_found());
  }
  run::exec_in_place(r.path, inv.argv, env);
}

// A job submitter is not a run (pipeline/submitters.hpp): it starts as it would directly, with
// nothing of edashim's in the environment its job carries to a node.
[[noreturn]] void exec_submitter(const Invocation& inv) {
  auto env = submitter_environment(inv.tool, current_environment());
  exec_plain(inv, &env);
}

// EDASHIM=off (or a value that is not a clear on/off): the plain tool, environment untouched.
// So too under LD_TRACE_LOADED_OBJECTS (ldd's way of asking ld.so for a program's libraries,
// set by any value): the caller asks what the tool loads, and edashim's preloads would be listed
// as if the tool had them; ld.so lists and exits without running it, so there is no run to make.
void honour_switch(const Invocation& inv) {
  if (std::getenv("LD_TRACE_LOADED_OBJECTS")) exec_plain(inv);
  const char* sw = std::getenv("EDASHIM");
  if (!sw || !*sw) return;
  auto on = util::parse_switch(sw);
  if (!on)
    notice(std::string("EDASHIM=") + util::shell_quote(sw) +
        " is not a clear on/off value (use EDASHIM=off or EDASHIM=on); running " + inv.tool + " without edashim");
  if (!on || !*on) exec_plain(inv);
}

// Inside a tree edashim already set up (yosys -> sh -> yosys-abc) everything is inherited, so
// add nothing, but record ourselves so that a copy of edashim can never be taken for the real
// tool twice. Returns only for a loop.
int run_nested(const Invocation& inv, const std::string& chain) {
  if (util::split(chain, ':').size() > kMaxChain) {
    say("loop: edashim has started itself " + std::to_string(kMaxChain) + " times (" + chain + "); check PATH for copies of edashim named " + inv.tool);
    return 126;
  }
  ::setenv(kChainVar, (chain + ":" + util::self_exe()).c_str(), 1);
  exec_plain(inv);
}

// The run's own process (the one edashim became: __EDASHIM_EXIT's first field) starting the
// run's tool again, by any path (the exec hook routes it here) or through its link: a site's
// wrapper named like the tool (`exec /usr/bin/yosys "$@"`) continues the run. Another process of
// the run starting the tool (a flow inside yosys calling yosys) is a run of its own.
bool continues_the_run(const Invocation& inv, const std::vector<std::string>& env) {
  auto tool = run::lookup(env, kRunToolVar);
  auto exit_var = run::lookup(env, run::kExitVar);
  return tool && *tool == inv.tool && exit_var &&
         exit_var->substr(0, exit_var->find(':')) == std::to_string(::getpid());
}

// A tool with a profile of its own, called inside another run (through its link on PATH, or
// routed by the exec hook by any path), runs with that profile, from the environment the run
// above it was given, not with the allocator it would inherit.
bool has_own_profile(const Invocation& inv, const std::vector<std::string>& env) {
  if (inv.routed) return true;
  auto tools = util::split(run::lookup(env, kToolsVar).value_or(""), ':');
  return std::find(tools.begin(), tools.end(), inv.tool) != tools.end();
}

util::Status write_log_line(const Plan& plan, const std::string& line) {
  const auto& s = plan.loaded.settings;
  return runlog::append_line(plan.log_path, line, {s.log_max_bytes.value, s.log_keep.value},
                             config::shared_dirs(s.shared_dirs.value));
}

// The once-a-session key of what an undecided project file causes (its ignored keys, its
// mistakes that only warn because it is not trusted): the file as it is now, so that an edited
// file is said again.
std::string untrusted_key(const std::string& file) { return "untrusted " + file + " " + file_version(file); }

bool untrusted_mistake(const config::Problem& p, const Plan& plan) {
  const auto& files = plan.loaded.not_trusted;
  return !p.error && std::find(files.begin(), files.end(), p.file) != files.end() &&
         p.message.ends_with(config::kUntrustedMistake);
}

// A library left out of LD_PRELOAD for its path (Plan::unsafe_preloads) is the installation's
// state, the same in every run: said once a session, keyed by the path.
void say_unsafe_preloads(const Plan& plan) {
  std::string note = unsafe_preload_note(plan);
  if (!note.empty()) notice(note + " (said once a session; details: edashim doctor)", plan.unsafe_preloads.front());
}

// A run whose configuration is broken runs plain, but is not invisible: its log line says why
// ("config_error"), so report counts it. The tool takes edashim's place, as a fallback's does:
// nobody is left to time it, so the line has no times or status, and names what really ran.
void log_config_error(const Plan& plan) {
  if (plan.log_path.empty()) return;
  Plan plain = plain_run(plan);
  plain.allocator_note = "not applied: the configuration has errors (config_error); the tool ran plain";
  RunSetup setup;
  run::Outcome none;
  none.pid = int(::getpid());
  none.start_time = double(::time(nullptr));
  util::JsonWriter record;
  write_start(record, plain, setup, none);
  runlog::end_config_error(record, config_error_text(plan.loaded.problems));
  // The error's line on stderr says enough: no second line about the log.
  (void)write_log_line(plan, record.str());
}

// How many of a configuration's problems a run gives as notices; the rest are counted.
constexpr size_t kProblemNotices = 5;

// Says what is wrong with the configuration; a broken one runs the plain tool (or stops a
// --strict run: 2). Returns the status to return, or nullopt to go on.
std::optional<int> check_plan(const Plan& plan) {
  // No descriptor left to read the configuration with (ulimit -n 3): nothing is wrong with it,
  // and edashim could not log either. The tool runs as it would without edashim, quietly.
  if (plan.loaded.out_of_descriptors && !plan.inv.strict) exec_plain(plan.inv);
  bool plain = plan.loaded.has_errors() && !plan.inv.strict;
  bool said_plain = false;
  size_t given = 0, left = 0;
  std::string last_key;  // the count is said with the last problem said, or not at all
  for (const auto& p : plan.loaded.problems) {
    // A --strict run stops on an error: the tool is not started, and that is said always.
    if (plan.inv.strict && p.error) say(p.str());
    // One line for the first error says both what is wrong and what the run does about it.
    else if (plain && p.error && !said_plain) {
      said_plain = true;
      notice(p.str() + "; running " + plan.inv.tool +
             " without edashim's settings until that is fixed (details: edashim explain " + plan.inv.tool +
             "; bypass for good: EDASHIM=off)");
    }
    // A file of many mistakes (a generated one, or a hostile one) gives a few notices and a count,
    // not one a mistake: each notice is in the run's line and has its once-a-session marker.
    else if (++given > kProblemNotices) ++left;
    else {
      last_key = untrusted_mistake(p, plan) ? untrusted_key(p.file) : p.str();
      notice(p.str(), last_key);
    }
  }
  if (left)
    notice("and " + std::to_string(left) + " more problem" + (left > 1 ? "s" : "") +
               " in the configuration (edashim explain " + plan.inv.tool + " shows them all)",
           last_key);
  if (!plan.flow.note.empty()) notice(plan.flow.note);
  for (const auto& f : plan.loaded.untrusted_files) {
    auto it = plan.loaded.ignored.find(f);
    std::string what = it == plan.loaded.ignored.end() ? "its restricted settings" : util::join(it->second, ", ");
    notice(f + " is not trusted: ignored " + what + "; trust it with: edashim trust " + util::shell_quote(f) +
               " (or never use it: edashim trust --ignore; said once a session)",
           untrusted_key(f));
  }
  if (plan.loaded.has_errors()) {
    if (plan.inv.strict) return 2;
    log_config_error(plan);
    exec_plain(plan.inv);
  }
  if (plan.tool_path.empty()) {
    say(tool::not_found_message(plan.inv.tool, plan.resolution));
    return plan.resolution.status_if_not_found();
  }
  if (!plan.allocator_note.empty()) notice(plan.allocator_note);
  say_unsafe_preloads(plan);
  if (auto warning = preflight_warning(plan); !warning.empty()) {
    notice(warning);
    remember_warning_given(plan);
  }
  return std::nullopt;
}

// The scratch directory, the probe's file and the tool's environment.
RunSetup set_up(const Plan& plan, const std::vector<std::string>& env, run::ProbeFile& probe) {
  RunSetup setup;
  setup.scratch_note = plan.scratch_note;
  setup.keep_scratch = plan.loaded.settings.keep_scratch.value;
  // Another user's (or a link's) base is a sign of someone at work: said, not only logged.
  if (plan.scratch_refused) notice(plan.scratch_note);
  if (!plan.scratch_base.empty()) {
    auto dir = run::make_scratch(plan.scratch_base, setup.keep_scratch, setup.scratch_note);
    if (dir.refused.refused) notice(setup.scratch_note);
    setup.scratch = dir.path;
    setup.scratch_lock = std::move(dir.lock_fd);
  }
  // The probe's records go to a private file, read back once the tool has ended.
  if (!plan.probe_library.empty() && !plan.log_path.empty()) {
    std::string base = probe_base(plan);
    auto check = run::make_own_base(base);
    if (check.ok()) probe = run::make_probe_file(base);
    else if (check.refused && base != plan.scratch_base)  // the scratch's refusal was said above
      notice("the probe records nothing for this run: " + check.line() + "; or set probe = false");
  }
  setup.probed = !probe.file.empty();
  setup.env = plan_environment(plan, env, setup.scratch, probe.file);
  return setup;
}

// A line that could not be written: a notice of its own (the line cannot carry it).
void append_to_log(const Plan& plan, const std::string& line) {
  auto written = write_log_line(plan, line);
  if (!written) notice(log_not_written(written.error()));
}

// Start failures that edashim's own way of starting the tool causes, where `exec tool` would
// have worked: a refused fork (ulimit -u: exec needs no new process) and an exec refused for
// the size or memory of what edashim added (E2BIG near ARG_MAX).
bool ours_to_blame(const run::Outcome& out) {
  if (out.started) return false;
  if (out.pid <= 0) return true;  // fork itself failed
  return out.exec_errno == E2BIG || out.exec_errno == ENOMEM;
}

// Never fail a run the tool would pass: replace edashim with the plain tool, in place, with the
// caller's environment, after one line on stderr and, where it can be written, a log line
// without times or status (nobody is left to wait for the tool).
[[noreturn]] void fall_back_to_exec(const Plan& plan, RunSetup& setup, run::ProbeFile& probe, const run::Outcome& out) {
  run::read_and_remove_probe_file(probe);
  if (!setup.scratch.empty()) util::remove_tree(setup.scratch);
  setup.scratch_lock.reset();  // not inherited: the environment untouched
  std::string why = std::string(out.pid <= 0 ? "fork: " : "exec: ") + std::strerror(out.exec_errno);
  notice("could not start " + plan.inv.tool + " with edashim's settings (" + why + "); running it plain in its place, "
      "without timing or log figures");
  if (!plan.log_path.empty()) {
    util::JsonWriter record;
    write_start(record, plan, setup, out);
    runlog::end_fallback(record, "exec in place of edashim, environment untouched: " + why);
    // The fallback's one line on stderr says enough: no second about the log.
    (void)write_log_line(plan, record.str());
  }
  run::restore_signal_dispositions();  // what the caller ignored, the tool starts with ignored
  run::exec_in_place(plan.tool_path, plan.inv.argv, nullptr);
}

// LD_PRELOAD without valgrind's own libraries, which valgrind adds again for the tool.
std::vector<std::string> without_valgrind_preload(std::vector<std::string> env) {
  for (auto& entry : env) {
    if (entry.rfind("LD_PRELOAD=", 0) != 0) continue;
    std::vector<std::string> kept;
    for (const auto& lib : util::split(entry.substr(11), ':'))
      if (!lib.empty() && lib.find("vgpreload") == std::string::npos) kept.push_back(lib);
    entry = "LD_PRELOAD=" + util::join(kept, ":");
  }
  return env;
}

// edashim is itself being debugged, traced or checked (gdb, strace, valgrind): they meant the
// tool, so the tool takes edashim's place in its process, with the profile's environment
// (gdb and strace follow an exec; valgrind is exec'd again with its own options on the tool,
// since it follows an exec only with --trace-children=yes). Nobody is left to time the tool or
// wait for it: the log line says so and has no times, memory or status.
[[noreturn]] void exec_watched(const Plan& plan, RunSetup& setup, run::ProbeFile& probe, const run::Watcher& w) {
  run::read_and_remove_probe_file(probe);  // nobody would read its records
  if (!plan.log_path.empty()) {
    util::JsonWriter record;
    run::Outcome none;
    none.pid = int(::getpid());
    none.start_time = double(::time(nullptr));
    write_start(record, plan, setup, none);
    runlog::end_traced(record, w.who);
    (void)write_log_line(plan, record.str());  // the line on stderr below says enough
  }
  std::vector<std::string> argv = w.valgrind;
  argv.push_back(plan.tool_path);
  argv.insert(argv.end(), plan.inv.argv.begin() + (plan.inv.argv.empty() ? 0 : 1), plan.inv.argv.end());
  auto env = without_valgrind_preload(setup.env.env);
  // Last before the exec: what valgrind says of edashim itself comes before it. The line has it
  // as "traced".
  notice(plan.inv.tool + " is run by " + w.who + ": running it in edashim's place for " +
         (w.valgrind.empty() ? "it to follow" : "valgrind to check") + ", without timing or memory figures");
  // The scratch directory stays (TMPDIR names it): its lock, inherited, is held until the tool
  // ends, and a later run's sweep removes it then.
  if (w.valgrind.empty()) run::exec_in_place(plan.tool_path, plan.inv.argv, &setup.env.env);
  run::exec_in_place(w.valgrind[0], argv, &env);
}


// Sets NAME=VALUE in an environment list, in place of an inherited one.
void set_variable(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::string prefix = name + "=";
  for (auto& e : env)
    if (e.rfind(prefix, 0) == 0) {
      e = prefix + value;
      return;
    }
  env.push_back(prefix + value);
}

// Arms the probe's finish in the tool's environment (run/exit_notice.hpp): its process is this
// one, the scratch lock it lets go of is the one edashim hands down (by device and inode).
void arm_finish(RunSetup& setup, const std::string& dir) {
  unsigned long long dev = 0, ino = 0;
  struct stat st;
  if (setup.scratch_lock && ::fstat(setup.scratch_lock.get(), &st) == 0) {
    dev = st.st_dev;
    ino = st.st_ino;
  }
  set_variable(setup.env.env, run::kExitVar,
               run::exit_var_value(::getpid(), setup.scratch_lock.get(), dev, ino, dir, paths::layout().shim));
}

// Whether the tool starts with the probe's library (what finishes the run) loaded: in its
// LD_PRELOAD, and not a program whose secure-execution mode makes ld.so ignore it.
bool preloads_hook(const Plan& plan, const RunSetup& setup) {
  if (plan.hook_library.empty() || plan.preflight.blocker == tool::Blocker::secure_exec) return false;
  auto preload = run::effective_preload(setup.env.env);
  if (!preload) return false;
  auto libs = run::split_preload(*preload);
  return std::find(libs.begin(), libs.end(), plan.hook_library) != libs.end();
}

// The exec failed: as the supervising launcher does when its child's exec fails.
int exec_failed(const Plan& plan, RunSetup& setup, run::ProbeFile& probe, run::Outcome out) {
  if (ours_to_blame(out)) fall_back_to_exec(plan, setup, probe, out);
  std::string probe_records = run::read_and_remove_probe_file(probe);
  setup.scratch_lock.reset();
  if (!setup.scratch.empty() && !setup.keep_scratch)
    setup.scratch_left_in_use = run::remove_if_unlocked(setup.scratch) == run::Removal::in_use;
  say(plan.inv.argv[0] + ": " + plan.tool_path + ": " + std::strerror(out.exec_errno));
  if (!plan.log_path.empty()) {
    util::JsonWriter record;
    write_start(record, plan, setup, out);
    write_end(record, plan, setup, out, probe_records);
    append_to_log(plan, record.str());
  }
  return out.exec_errno == ENOENT ? 127 : 126;
}

// What the run's end needs, kept in its private directory (pipeline/unfinished.hpp).
Unfinished unfinished_of(const Plan& plan, const RunSetup& setup, const run::ProbeFile& probe, std::string line,
                         long long start_ns) {
  const auto& s = plan.loaded.settings;
  Unfinished u;
  u.line = std::move(line);
  u.log = plan.log_path;
  u.limits = {s.log_max_bytes.value, s.log_keep.value};
  u.shared_dirs = s.shared_dirs.value;
  // The file the probe's finish may append to (probe/finish_here.h): one the owned-file rule
  // passes now, a regular file named by a path of its own (not /dev/stderr: the tool's).
  if (!u.log.empty() && !runlog::names_own_descriptor(u.log)) {
    auto log = util::open_owned(u.log, util::FileUse::append, config::shared_dirs(u.shared_dirs), 0600);
    if (log.ok() && S_ISREG(log.st.st_mode)) {
      u.log_dev = (unsigned long long)log.st.st_dev;
      u.log_ino = (unsigned long long)log.st.st_ino;
    }
    // Said now, once a session: the end (finish.cpp) says it no more, and a killed tool's line,
    // completed by a later run's sweep, would be lost without a word.
    if (!log.ok()) notice(log_not_written(log.why()));
  }
  u.scratch = setup.scratch;
  u.keep_scratch = setup.keep_scratch;
  u.probe_file = setup.probed ? probe.file : "";
  u.verify = verify_inputs(plan, setup.probed);
  u.sweep_bases = sweep_bases(plan);
  u.pid = long(::getpid());
  u.own = run::own_usage_now();
  u.start_ns = start_ns;
  return u;
}

// The line of a run whose end nobody will tell (nothing of edashim's loads into the tool, or no
// private directory for the record): written now, its end null. A probe asked for records
// nothing (it cannot load there), and the line says why.
void write_untold_line(const Plan& plan, const RunSetup& setup, util::JsonWriter& record) {
  runlog::RunEnd end = end_fields_in_place(verify_inputs(plan, setup.probed), run::Ending{}, std::nullopt, "");
  end.ended = std::string(runlog::key::kEndedUntold);
  runlog::write_end(record, end);
  auto written = write_log_line(plan, record.str());
  // Under a `ulimit -n` that leaves edashim no descriptor beside what the tool inherits, the tool
  // runs as it would without edashim, quietly (as check_plan does).
  if (!written && errno != EMFILE && errno != ENFILE) notice(log_not_written(written.error()));
}

// The default: edashim becomes the tool and starts nothing. A tool with the probe's library
// loaded finishes its own run at its normal end (pipeline/finish.hpp), from the record left in
// the run's private directory; one that ends without a word has its line completed by a later
// run's sweep; one that cannot tell (nothing of edashim's loads into it) has its line written
// now. Returns only when the exec failed (the status to return).
int run_in_place(const Plan& plan, RunSetup& setup, run::ProbeFile& probe) {
  bool logging = !plan.log_path.empty();
  bool removing = !setup.scratch.empty() && !setup.keep_scratch;
  run::Outcome started;
  started.pid = int(::getpid());
  started.start_time = util::epoch_seconds();
  // Read together: the run's wall is measured from its start_unix, so that a run below, which
  // starts later, cannot seem to end after it (report --flow's shares).
  long long start_ns = util::monotonic_ns();
  if (logging || removing) {
    util::JsonWriter record;
    if (logging) write_start(record, plan, setup, started);
    // The finish needs the probe's library in the tool and a private directory for the record,
    // also when the probe records nothing.
    bool kept = false;
    if (preloads_hook(plan, setup)) {
      if (probe.dir.empty())
        if (std::string base = probe_base(plan); run::make_own_base(base).ok()) probe = run::make_probe_file(base);
      if (!probe.dir.empty()) {
        Unfinished u = unfinished_of(plan, setup, probe, logging ? record.str() : std::string(), start_ns);
        kept = util::write_new_file(probe.dir + "/" + kUnfinishedFile, unfinished_text(u)).ok();
      }
    }
    if (kept) {
      // The run's processes hold its private directory: a sweep completes the record only once
      // they are all gone. The tool's own process finishes it at its normal end.
      run::hand_down(probe.lock_fd);
      arm_finish(setup, probe.dir);
    } else {
      // Nothing of edashim's will be in the tool to tell its end (a static tool; nothing
      // preloaded): the line now, its end untold (docs/transparency.md says why not supervised).
      run::remove_probe_file(probe);  // nothing in the tool would record
      if (logging) write_untold_line(plan, setup, record);
      sweep_runs_left(sweep_bases(plan));  // the tool's end will not, as a finish does
    }
  }
  run::Outcome out = started;
  out.exec_errno = run::exec_tool(plan.tool_path, plan.inv.argv, &setup.env.env);
  return exec_failed(plan, setup, probe, out);
}

// The supervising launcher: fork, exec, wait, relaying signals (run/launch.hpp). For bench and
// tune (wait4's figures) and `supervise = true`.
int run_supervised(const Plan& plan, RunSetup& setup, run::ProbeFile& probe) {
  const auto& inv = plan.inv;
  // Housekeeping and most of the log line are done while the tool runs, not before or after it.
  bool logging = !plan.log_path.empty();
  util::JsonWriter record;
  auto while_running = [&](const run::Outcome& started) {
    sweep_runs_left(sweep_bases(plan));
    if (logging) write_start(record, plan, setup, started);
  };
  run::Outcome out = run::launch(plan.tool_path, inv.argv, setup.env.env, while_running);

  if (!out.started) {
    if (record.str().empty()) return exec_failed(plan, setup, probe, out);
    if (ours_to_blame(out)) fall_back_to_exec(plan, setup, probe, out);
  }
  std::string probe_records = run::read_and_remove_probe_file(probe);
  setup.scratch_lock.reset();
  if (!setup.scratch.empty() && !setup.keep_scratch)
    setup.scratch_left_in_use = run::remove_if_unlocked(setup.scratch) == run::Removal::in_use;
  if (!out.started) say(inv.argv[0] + ": " + plan.tool_path + ": " + std::strerror(out.exec_errno));
  if (logging) {
    write_end(record, plan, setup, out, probe_records);
    append_to_log(plan, record.str());
  }
  if (!out.started) return out.exec_errno == ENOENT ? 127 : 126;
  run::exit_like(out.status);
}

}  // namespace

int run_tool(const Invocation& inv) {
  honour_switch(inv);
  if (is_job_submitter(inv.tool)) exec_submitter(inv);
  auto env = current_environment();
  if (auto chain = run::lookup(env, kChainVar); chain && !chain->empty()) {
    if (!has_own_profile(inv, env) || continues_the_run(inv, env) || util::split(*chain, ':').size() > kMaxChain)
      return run_nested(inv, *chain);
    env = run::without_inherited(env);
  }

  auto files = paths::Files::discover();
  Plan plan = make_plan(inv, files, env);
  if (auto status = check_plan(plan)) return *status;
  maybe_explore(plan, files, env);  // after the checks: what they said is of the user's own choice
  run::ProbeFile probe;
  RunSetup setup = set_up(plan, env, probe);
  if (auto w = run::watcher(); !w.who.empty()) exec_watched(plan, setup, probe, w);
  if (!plan.supervise) return run_in_place(plan, setup, probe);
  return run_supervised(plan, setup, probe);
}

}  // namespace pipeline
