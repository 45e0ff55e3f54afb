#include "commands/run_tool.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "commands/proof.hpp"
#include "run/launch.hpp"
#include "run/runlog.hpp"
#include "run/scratch.hpp"
#include "util/fs.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace commands {
namespace {

void say(const std::string& text) {
  std::string line = "edashim: " + text + "\n";
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) {
  }
}

// Runs the real tool with the environment untouched: EDASHIM=off, and the fallback when
// edashim's own configuration is broken, so that nobody's build stops on our account.
[[noreturn]] void exec_plain(const Invocation& inv, const std::vector<std::string>* env) {
  if (!inv.explicit_path.empty()) run::exec_in_place(inv.explicit_path, inv.argv, env);
  auto self = tool::SelfIdentity::current(std::getenv(kChainVar));
  const char* path = std::getenv("PATH");
  auto r = tool::resolve(inv.tool, path ? path : "/usr/local/bin:/usr/bin:/bin", self);
  if (r.path.empty()) {
    say(tool::not_found_message(inv.tool, r));
    ::_exit(127);
  }
  run::exec_in_place(r.path, inv.argv, env);
}

double seconds(const struct timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

// The run-log line's fields known once the tool has started: written while it runs.
void write_run_facts(util::JsonWriter& j, const Plan& plan, const run::EnvPlan& env, const run::Outcome& started,
                     const std::string& scratch, const std::string& scratch_note, bool kept) {
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  char cwd[4096];
  j.field("v", 1);
  j.field("start", util::iso_time_utc(started.start_time));
  j.field("start_unix", started.start_time);
  j.field("tool", plan.inv.tool);
  j.field("path", util::real_path(plan.tool_path).value_or(plan.tool_path));
  j.field("argv", plan.inv.argv);
  j.field("cwd", ::getcwd(cwd, sizeof cwd) ? cwd : "");
  j.field("host", host);
  j.field("pid", int(::getpid()));
  j.field("tool_pid", started.pid);
  j.key("profile").string_or_null(plan.inv.profile);
  j.key("config_files").begin_array();
  for (const auto& f : plan.loaded.files)
    if (f.used) j.value(f.path);
  j.end_array();
  j.key("allocator").begin_object();
  j.field("requested", plan.allocator);
  j.key("library").string_or_null(plan.allocator_library);
  j.field("version", plan.allocator_version);
  j.field("note", plan.allocator_note);
  j.end_object();
  j.key("env_set").begin_object();
  for (const auto& c : env.changes) j.field(c.name, c.after);
  j.end_object();
  j.key("scratch").begin_object();
  j.key("dir").string_or_null(scratch);
  j.field("kept", kept);
  j.field("note", scratch_note);
  j.end_object();
}

// The fields only the tool's end gives.
void write_outcome(util::JsonWriter& j, const run::Outcome& out) {
  j.field("wall_s", out.wall_seconds);
  j.field("user_s", seconds(out.usage.ru_utime));
  j.field("sys_s", seconds(out.usage.ru_stime));
  j.field("max_rss_kb", out.usage.ru_maxrss);
  if (WIFEXITED(out.status)) {
    j.field("exit_code", WEXITSTATUS(out.status));
    j.key("signal").null();
  } else {
    j.key("exit_code").null();
    if (WIFSIGNALED(out.status))
      j.field("signal", WTERMSIG(out.status));
    else
      j.key("signal").null();
  }
  j.field("status", out.started ? run::shell_status(out.status) : (out.exec_errno == ENOENT ? 127 : 126));
}

}  // namespace

int run_tool(const Invocation& inv) {
  // EDASHIM=off: the plain tool, environment untouched.
  if (const char* sw = std::getenv("EDASHIM"); sw && *sw) {
    auto on = util::parse_switch(sw);
    if (!on) {
      say(std::string("EDASHIM=") + util::shell_quote(sw) +
          " is not a clear on/off value (use EDASHIM=off or EDASHIM=on); running " + inv.tool + " without edashim");
      exec_plain(inv, nullptr);
    }
    if (!*on) exec_plain(inv, nullptr);
  }
  auto env = current_environment();
  // Inside a tree edashim already set up (yosys -> sh -> yosys-abc): everything is inherited,
  // so add nothing, but record ourselves so that a copy of edashim can never be taken for the
  // real tool twice.
  if (auto chain = run::lookup(env, kChainVar); chain && !chain->empty()) {
    std::string self = util::self_exe();
    if (util::split(*chain, ':').size() > 16) {
      say("loop: edashim has started itself 16 times (" + *chain + "); check PATH for copies of edashim named " + inv.tool);
      return 126;
    }
    ::setenv(kChainVar, (*chain + ":" + self).c_str(), 1);
    exec_plain(inv, nullptr);
  }

  Paths paths = Paths::discover();
  Plan plan = make_plan(inv, paths, env);
  for (const auto& p : plan.loaded.problems) say(p.str());
  for (const auto& f : plan.loaded.untrusted_files)
    say(f + " is not trusted: its library paths, [env], path and log settings are ignored; trust it with: edashim trust " +
        util::shell_quote(f));
  if (plan.loaded.has_errors()) {
    if (inv.strict) return 2;
    say("running " + inv.tool + " without edashim's settings until that is fixed (bypass for good: EDASHIM=off)");
    exec_plain(inv, nullptr);
  }
  if (plan.tool_path.empty()) {
    say(tool::not_found_message(inv.tool, plan.resolution));
    return 127;
  }
  if (!plan.allocator_note.empty()) say(plan.allocator_note);
  if (auto warning = preflight_warning(plan); !warning.empty()) {
    say(warning);
    remember_warning_given(plan);
  }

  std::string scratch, scratch_note = plan.scratch_note;
  if (!plan.scratch_base.empty()) scratch = run::make_scratch(plan.scratch_base, scratch_note);
  // The probe's records go to a private file, read back once the tool has ended.
  run::ProbeFile probe;
  bool logging = !plan.log_path.empty();
  if (!plan.probe_library.empty() && logging) probe = run::make_probe_file(probe_base(plan));
  run::EnvPlan tool_env = plan_environment(plan, env, scratch, probe.file);
  bool keep = plan.loaded.settings.keep_scratch.value;
  util::JsonWriter record;
  auto start_record = [&](const run::Outcome& started) {
    record.begin_object();
    write_run_facts(record, plan, tool_env, started, scratch, scratch_note, keep && !scratch.empty());
    add_preflight(record, plan, tool_env);
  };
  // Housekeeping and most of the log line are done while the tool runs, not before or after it.
  auto while_running = [&](const run::Outcome& started) {
    if (!plan.scratch_base.empty()) run::sweep_stale_scratch(plan.scratch_base);
    if (logging) start_record(started);
  };
  run::Outcome out = run::launch(plan.tool_path, inv.argv, tool_env.env, while_running);
  std::string probe_records = run::read_and_remove_probe_file(probe);
  if (!scratch.empty() && !keep) util::remove_tree(scratch);
  if (!out.started) {
    say(inv.argv[0] + ": " + plan.tool_path + ": " + std::strerror(out.exec_errno));
  }
  if (logging) {
    std::string error;
    if (record.str().empty()) start_record(out);  // vfork failed: the tool never ran
    write_outcome(record, out);
    add_verification(record, plan, !probe.file.empty(), probe_records);
    record.end_object();
    const auto& ls = plan.loaded.settings;
    if (!run::append_log_line(plan.log_path, record.str(), error, {ls.log_max_bytes.value, ls.log_keep.value}))
      say("run log not written (" + error + "); the run itself is unaffected. Set EDASHIM_LOG=off to stop logging.");
  }
  if (!out.started) return out.exec_errno == ENOENT ? 127 : 126;
  run::exit_like(out.status);
}

}  // namespace commands
