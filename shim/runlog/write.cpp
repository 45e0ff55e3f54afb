#include "runlog/write.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "alloc/allocators.hpp"
#include "learn/signature.hpp"
#include "pipeline/explore.hpp"
#include "pipeline/preflight.hpp"
#include "runlog/schema.hpp"
#include "run/probe_records.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"
#include "util/strings.hpp"

namespace pipeline {
namespace {

double seconds(const struct timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

void write_preflight(util::JsonWriter& record, const Plan& plan, const run::EnvPlan& env) {
  const auto& p = plan.preflight;
  auto& pf = record.key(runlog::key::preflight).begin_object();
  pf.field("inspected", p.inspected);
  if (!p.inspected) pf.field("error", p.error);
  pf.field("path", p.path);
  pf.field("scripts", p.scripts);
  pf.key("binary").string_or_null(p.binary);
  pf.key("kind").string_or_null(p.facts.kind);
  pf.field("own_malloc", p.facts.defines_malloc);
  pf.key("linked_allocator").string_or_null(p.facts.linked_allocator_library);
  pf.key("secure_exec").string_or_null(p.secure);
  pf.field("glibc_static", p.facts.glibc_static);
  if (p.inspected)
    pf.field("preload_reaches", p.preload_reaches());
  else
    pf.key("preload_reaches").null();
  pf.key("blocker").string_or_null(p.blocker);
  pf.key("reason").string_or_null(p.reason);
  pf.key("note").string_or_null(p.linked_note);
  pf.field("cached", p.cached);
  if (!plan.fallback_library.empty()) {
    pf.key("fallback").begin_object();
    pf.field("instead_of", plan.fallback_library);
    pf.field("options", plan.options_family);
    pf.key("source").string_or_null(fallback_source(plan));
    pf.field("glibc_tunables", run::lookup(env.env, "GLIBC_TUNABLES"));
    pf.field("effect", fallback_effect(plan));
    pf.end_object();
  } else {
    pf.key("fallback").null();
  }
  pf.end_object();
}

// Processes the exec hook left without the allocator: a loader edashim's libraries cannot load under.
void write_not_applied(util::JsonWriter& record, const std::string& probe_records) {
  record.key(runlog::key::not_applied).begin_array();
  for (const auto& n : run::not_applied(probe_records)) record.value("allocator not applied to " + n);
  record.end_array();
}

void write_verification(util::JsonWriter& record, const Plan& plan, bool probed, const std::string& probe_records) {
  const auto& p = plan.preflight;
  if (!probed) {
    record.key(runlog::key::processes).null();
    record.field(runlog::key::allocator_verified, false);
    record.field(runlog::key::verification, !plan.loaded.settings.probe.value
                                     ? "probe off (probe = false, " + plan.loaded.settings.probe.origin.str() + ")"
                                     : std::string("probe not run (libedashim_probe.so not installed, or no private "
                                                   "directory for its records)"));
    return;
  }
  if (plan.flow_top) {
    record.key(runlog::key::processes).null();
    record.field(runlog::key::allocator_verified, false);
    record.field(runlog::key::verification, kFlowTopNote);
    write_not_applied(record, probe_records);
    return;
  }
  auto processes = run::parse_probe_records(probe_records);
  record.key(runlog::key::processes).begin_array();
  for (const auto& q : processes) {
    record.begin_object();
    record.field("pid", q.pid).field("ppid", q.ppid).field("exe", q.exe).field("malloc", q.malloc_object);
    record.field("provider", run::malloc_provider(q)).field("forked", q.forked).field("end", q.end);
    record.field(runlog::key::vm_hwm_kb, q.vm_hwm_kb).field(runlog::key::vm_peak_kb, q.vm_peak_kb);
    record.end_object();
  }
  record.end_array();
  // The caller's own preloaded allocator is the one to find.
  auto v = run::verify_allocator(processes,
                                 plan.preloaded_by_caller.empty() ? plan.allocator
                                                                  : alloc::allocator_of_library(plan.preloaded_by_caller),
                                 util::self_exe());
  if (processes.empty() && p.inspected && !p.preload_reaches() && p.blocker != "own-malloc" &&
      p.blocker != "address-space-limit")
    v.note += " (" + p.reason + "; the probe cannot load either)";
  record.field(runlog::key::allocator_verified, v.verified);
  record.field(runlog::key::verification, v.note);
  write_not_applied(record, probe_records);
}

// Where a run's temporary names live: the tool's TMPDIR (a scratch directory), the caller's,
// and the usual places.
std::vector<std::string> temp_dirs(const run::EnvPlan& env) {
  std::vector<std::string> dirs{"/tmp", "/var/tmp", "/dev/shm"};
  if (auto t = run::lookup(env.env, "TMPDIR"); t && !t->empty()) dirs.push_back(*t);
  if (const char* t = std::getenv("TMPDIR"); t && *t) dirs.emplace_back(t);
  return dirs;
}

// A script named on the command line, for its hash: regular files only (a FIFO or
// /dev/fd/63 from `<(...)` is the tool's to read, not ours), up to 16 MiB.
std::optional<std::string> read_script(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return util::read_file(path);
}

void write_same_work(util::JsonWriter& j, const Plan& plan, const RunSetup& setup) {
  j.field(runlog::key::arm, arm_of(plan));
  if (plan.explored.empty()) {
    j.key(runlog::key::explore).null();
  } else {
    j.key(runlog::key::explore).begin_object();
    j.field(runlog::key::ran, plan.explored).field(runlog::key::instead_of, plan.explored_instead_of);
    j.end_object();
  }
  auto m = util::current_machine(&fact_cache());
  j.key(runlog::key::machine).begin_object();
  j.key("cpu").value(m.cpu);
  j.field("kernel", m.kernel);
  j.field("cores", m.cores);
  j.end_object();
  auto sig = learn::signature({plan.inv.tool, plan.inv.argv, temp_dirs(setup.env), read_script});
  j.field(runlog::key::signature, sig.hex);
  j.field(runlog::key::signature_text, sig.text);
}

}  // namespace

void write_start(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& started) {
  char cwd[4096];
  j.begin_object();
  j.field(runlog::key::version, runlog::key::kVersion);
  j.field(runlog::key::start, util::iso_time_utc(started.start_time));
  j.field(runlog::key::start_unix, started.start_time);
  j.field(runlog::key::tool, plan.inv.tool);
  j.field(runlog::key::path, util::real_path(plan.tool_path).value_or(plan.tool_path));
  j.field(runlog::key::argv, plan.inv.argv);
  j.field(runlog::key::cwd, ::getcwd(cwd, sizeof cwd) ? cwd : "");
  j.field(runlog::key::host, plan.host.empty() ? util::host_name() : plan.host);  // once a run: the log path may have read it
  j.field(runlog::key::pid, int(::getpid()));
  j.field(runlog::key::tool_pid, started.pid);
  j.field(runlog::key::run_id, plan.flow.run_id);
  j.field(runlog::key::flow, plan.flow.flow);
  j.key(runlog::key::parent_run).string_or_null(plan.flow.parent_run);
  j.key(runlog::key::profile).string_or_null(plan.inv.chosen.profile);
  j.key(runlog::key::config_files).begin_array();
  for (const auto& f : plan.loaded.files)
    if (f.used) j.value(f.path);
  j.end_array();
  j.key(runlog::key::allocator).begin_object();
  j.field(runlog::key::requested, plan.allocator);
  j.key(runlog::key::library).string_or_null(plan.allocator_library);
  j.field(runlog::key::alloc_version, plan.allocator_version);
  j.field(runlog::key::note, plan.allocator_note);
  j.key(runlog::key::preloaded_by_caller).string_or_null(plan.preloaded_by_caller);
  j.end_object();
  j.key(runlog::key::env_set).begin_object();
  for (const auto& c : setup.env.changes) j.field(c.name, c.after);
  j.end_object();
  j.key(runlog::key::env_kept).begin_object();
  for (const auto& k : setup.env.kept) j.field(k.name, k.yours);
  j.end_object();
  j.key(runlog::key::scratch).begin_object();
  j.key("dir").string_or_null(setup.scratch);
  j.field("kept", setup.keep_scratch && !setup.scratch.empty());
  j.field("note", setup.scratch_note);
  j.end_object();
  write_preflight(j, plan, setup.env);
  write_same_work(j, plan, setup);
}

void write_end(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& out,
               const std::string& probe_records) {
  j.field(runlog::key::wall_s, out.wall_seconds);
  j.field(runlog::key::user_s, seconds(out.usage.ru_utime));
  j.field(runlog::key::sys_s, seconds(out.usage.ru_stime));
  j.field(runlog::key::max_rss_kb, out.usage.ru_maxrss);
  if (WIFEXITED(out.status)) {
    j.field(runlog::key::exit_code, WEXITSTATUS(out.status));
    j.key(runlog::key::signal).null();
  } else {
    j.key(runlog::key::exit_code).null();
    if (WIFSIGNALED(out.status))
      j.field(runlog::key::signal, WTERMSIG(out.status));
    else
      j.key(runlog::key::signal).null();
  }
  if (!setup.scratch.empty()) j.field(runlog::key::scratch_left_in_use, setup.scratch_left_in_use);
  j.field(runlog::key::status, out.started ? run::shell_status(out.status) : (out.exec_errno == ENOENT ? 127 : 126));
  write_verification(j, plan, setup.probed, probe_records);
  j.end_object();
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
