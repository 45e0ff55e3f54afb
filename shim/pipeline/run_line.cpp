#include "pipeline/run_line.hpp"
#include "pipeline/notices.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "learn/signature.hpp"
#include "pipeline/preflight.hpp"
#include "run/probe_records.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"
#include "util/strings.hpp"

namespace pipeline {
namespace {

double seconds(const struct timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

runlog::PreflightFields preflight_fields(const Plan& plan, const run::EnvPlan& env) {
  const auto& p = plan.preflight;
  runlog::PreflightFields f;
  f.inspected = p.inspected;
  f.error = p.error;
  f.path = p.path;
  f.scripts = p.scripts;
  f.binary = p.binary;
  f.kind = tool::kind_name(p.facts.kind);
  f.own_malloc = p.facts.defines_malloc;
  f.linked_allocator = p.facts.linked_allocator_library;
  f.secure_exec = p.secure;
  f.glibc_static = p.facts.glibc_static;
  if (p.inspected) f.preload_reaches = p.preload_reaches();
  f.blocker = tool::blocker_name(p.blocker);
  f.reason = p.reason;
  f.note = p.linked_note;
  f.cached = p.cached;
  if (!plan.fallback_library.empty())
    f.fallback = runlog::PreflightFields::Fallback{plan.fallback_library, plan.options_family, plan.fallback_source,
                                                   run::lookup(env.env, "GLIBC_TUNABLES"), plan.fallback_effect};
  return f;
}

}  // namespace

VerifyInputs verify_inputs(const Plan& plan, bool probed) {
  const auto& p = plan.preflight;
  VerifyInputs v;
  v.probed = probed;
  if (!probed)
    v.unprobed_note = !plan.loaded.settings.probe.value
                          ? "probe off (probe = false, " + plan.loaded.settings.probe.origin.str() + ")"
                      : preloads_nothing_of_ours(p)
                          ? "probe not preloaded, nor the exec hook: " + p.reason
                      : !plan.unsafe_preloads.empty() && !util::basename(plan.unsafe_preloads.back()).rfind("libedashim_probe", 0)
                          ? "probe not run: its library's path has a space or colon, which LD_PRELOAD cannot carry (" +
                                plan.unsafe_preloads.back() + ")"
                          : std::string("probe not run (libedashim_probe.so not installed, or no private "
                                        "directory for its records)");
  v.flow_top = plan.flow_top;
  v.allocator_to_find = plan.allocator_to_find;
  v.launcher = util::self_exe();
  if (p.inspected && !p.preload_reaches() && p.blocker != tool::Blocker::own_malloc &&
      p.blocker != tool::Blocker::address_space_limit)
    v.nothing_recorded_suffix = " (" + p.reason + "; the probe cannot load either)";
  return v;
}

void verification_fields(runlog::RunEnd& e, const VerifyInputs& v, const std::string& probe_records) {
  if (!v.probed) {
    e.verification = v.unprobed_note;
    return;
  }
  // Processes the exec hook left without the allocator: a loader edashim's libraries cannot load under.
  e.not_applied.emplace();
  for (const auto& n : run::not_applied(probe_records)) e.not_applied->push_back("allocator not applied to " + n);
  if (v.flow_top) {
    e.verification = kFlowTopNote;
    return;
  }
  auto processes = run::parse_probe_records(probe_records);
  e.processes.emplace();
  for (const auto& q : processes)
    e.processes->push_back({q.pid, q.ppid, q.exe, q.malloc_object, run::malloc_provider(q), q.forked, q.end, q.vm_hwm_kb,
                            q.vm_peak_kb});
  auto r = run::verify_allocator(processes, v.allocator_to_find, v.launcher);
  if (processes.empty()) r.note += v.nothing_recorded_suffix;
  e.allocator_verified = r.verified;
  e.verification = r.note;
}

namespace {

// Where a run's temporary names live: the tool's TMPDIR (a scratch directory), the caller's,
// and the usual places.
std::vector<std::string> temp_dirs(const run::EnvPlan& env) {
  std::vector<std::string> dirs{"/tmp", "/var/tmp", "/dev/shm"};
  if (auto t = run::lookup(env.env, "TMPDIR"); t && !t->empty()) dirs.push_back(*t);
  if (const char* t = std::getenv("TMPDIR"); t && *t) dirs.emplace_back(t);
  return dirs;
}

// A script named on the command line, for its hash: regular files only (a FIFO or
// /dev/fd/63 from `<(...)` is the tool's to read, not ours; the script may sit in a directory
// another user can write), up to 16 MiB.
std::optional<std::string> read_script(const std::string& path) { return util::read_regular_file(path); }

void same_work_fields(runlog::RunStart& s, const Plan& plan, const RunSetup& setup) {
  s.arm = plan.arm;
  s.explored = plan.explored;
  s.explored_instead_of = plan.explored_instead_of;
  s.machine = util::current_machine(&fact_cache());
  auto sig = learn::signature({plan.inv.tool, plan.inv.argv, temp_dirs(setup.env), read_script});
  s.signature = sig.hex;
  s.signature_text = sig.text;
}

}  // namespace

runlog::RunStart start_fields(const Plan& plan, const RunSetup& setup, const run::Outcome& started) {
  char cwd[4096];
  runlog::RunStart s;
  s.start_time = started.start_time;
  s.tool = plan.inv.tool;
  s.path = util::real_path(plan.tool_path).value_or(plan.tool_path);
  s.argv = plan.inv.argv;
  s.cwd = ::getcwd(cwd, sizeof cwd) ? cwd : "";
  s.host = plan.host.empty() ? util::host_name() : plan.host;  // once a run: the log path may have read it
  // edashim's: the tool's own when it runs in edashim's place (its own process writes the line).
  s.pid = !plan.supervise && started.pid > 0 ? started.pid : int(::getpid());
  s.tool_pid = started.pid;
  s.run_id = plan.flow.run_id;
  s.flow = plan.flow.flow;
  s.parent_run = plan.flow.parent_run;
  s.profile = plan.inv.chosen.profile;
  for (const auto& f : plan.loaded.files)
    if (f.used) s.config_files.push_back(f.path);
  // What stderr said once a session, the log keeps for every run it concerns.
  for (const auto& [file, what] : plan.loaded.ignored)
    for (const auto& w : what) s.config_ignored.push_back(file + ": " + w + " (not trusted)");
  s.notices = run_notices();
  s.requested = plan.allocator;
  s.library = plan.allocator_library;
  s.version = plan.allocator_version;
  s.build = plan.allocator_build;
  s.note = plan.allocator_note;
  s.preloaded_by_caller = plan.preloaded_by_caller;
  for (const auto& c : setup.env.changes) s.env_set.emplace_back(c.name, c.after);
  for (const auto& k : setup.env.kept) s.env_kept.emplace_back(k.name, k.yours);
  s.scratch_dir = setup.scratch;
  s.scratch_kept = setup.keep_scratch && !setup.scratch.empty();
  s.scratch_note = setup.scratch_note;
  s.preflight = preflight_fields(plan, setup.env);
  same_work_fields(s, plan, setup);
  return s;
}

runlog::RunEnd end_fields(const Plan& plan, const RunSetup& setup, const run::Outcome& out, const std::string& probe_records) {
  runlog::RunEnd e;
  e.wall_s = out.wall_seconds;
  e.user_s = seconds(out.usage.ru_utime);
  e.sys_s = seconds(out.usage.ru_stime);
  e.max_rss_kb = out.usage.ru_maxrss;
  if (WIFEXITED(out.status)) e.exit_code = WEXITSTATUS(out.status);
  else if (WIFSIGNALED(out.status)) e.signal = WTERMSIG(out.status);
  if (!setup.scratch.empty()) e.scratch_left_in_use = setup.scratch_left_in_use;
  e.status = out.started ? run::shell_status(out.status) : (out.exec_errno == ENOENT ? 127 : 126);
  verification_fields(e, verify_inputs(plan, setup.probed), probe_records);
  return e;
}

runlog::RunEnd end_fields_in_place(const VerifyInputs& verify, const run::Ending& end, std::optional<bool> scratch_left_in_use,
                                   const std::string& probe_records) {
  runlog::RunEnd e;
  e.wall_s = end.wall_s;
  e.user_s = end.user_s;
  e.sys_s = end.sys_s;
  e.max_rss_kb = end.max_rss_kb;
  if (end.wait_status) {
    int status = *end.wait_status;
    if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    e.status = run::shell_status(status);
  }
  e.scratch_left_in_use = scratch_left_in_use;
  verification_fields(e, verify, probe_records);
  return e;
}

void write_start(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& started) {
  runlog::write_start(j, start_fields(plan, setup, started));
}

void write_end(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& out,
               const std::string& probe_records) {
  runlog::write_end(j, end_fields(plan, setup, out, probe_records));
}

std::string config_error_text(const std::vector<config::Problem>& problems) {
  std::string first;
  int more = 0;
  for (const auto& p : problems) {
    if (!p.error) continue;
    if (!first.empty()) {
      ++more;
      continue;
    }
    first = p.str();
    // str() says "error: " after the place: every problem here is one.
    if (auto at = first.find(": error: "); at != std::string::npos) first.erase(at, 7);
  }
  if (more) first += " (and " + std::to_string(more) + " more error" + (more > 1 ? "s" : "") + ": edashim explain shows them)";
  return first;
}

}  // namespace pipeline
