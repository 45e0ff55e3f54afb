#include "commands/explain.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "alloc/allocators.hpp"
#include "commands/shims.hpp"
#include "paths/layout.hpp"
#include "pipeline/explore.hpp"
#include "pipeline/finish.hpp"
#include "runlog/read.hpp"
#include "tool/resolve.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace commands {
namespace {

// The libraries left out of LD_PRELOAD for a space or colon in their path, with what it costs.
void print_unsafe_preloads(const pipeline::Plan& plan) {
  if (auto note = pipeline::unsafe_preload_note(plan); !note.empty()) std::printf("  %-20s %s\n", "unsafe path", note.c_str());
}

// edashim's own library is where LD_PRELOAD cannot name it (ld.so splits at spaces and colons).
bool probe_path_unsafe() { return util::exists(paths::layout().probe) && !run::preload_safe(paths::layout().probe); }

// The pre-flight section: what the tool's file lets a preload do, and what replaces it where
// it cannot.
void print_proof(const pipeline::Plan& plan, const run::EnvPlan& env) {
  const auto& p = plan.preflight;
  if (plan.tool_path.empty()) return;
  std::printf("\npre-flight (from the tool's file, before launch):\n");
  if (!p.inspected) {
    std::printf("  not inspected: %s\n", p.error.c_str());
    return;
  }
  for (size_t i = 0; i < p.scripts.size(); ++i)
    std::printf("  %-20s %s: a #! script; the preload passes through its interpreter %s\n", i ? "" : "script",
                p.scripts[i].c_str(), i + 1 < p.scripts.size() ? p.scripts[i + 1].c_str() : p.binary.c_str());
  std::string kind(tool::kind_name(p.facts.kind));
  if (p.facts.kind == tool::ExecKind::dynamic) kind += ", loader " + p.facts.interpreter;
  if (p.facts.glibc_static) kind += ", glibc";
  std::printf("  %-20s %s (%s)\n", "executable", p.binary.c_str(), kind.c_str());
  if (p.facts.defines_malloc) std::printf("  %-20s defines malloc itself\n", "");
  if (!p.facts.linked_allocator_library.empty())
    std::printf("  %-20s links %s\n", "", p.facts.linked_allocator_library.c_str());
  if (!p.secure.empty()) std::printf("  %-20s secure-execution mode: %s\n", "", p.secure.c_str());
  if (p.preload_reaches()) {
    std::printf("  %-20s reaches malloc%s\n", "preload", plan.allocator_library.empty() ? " (nothing to preload)" : "");
  } else if (p.blocker == tool::Blocker::address_space_limit) {
    std::printf("  %-20s left out: %s\n", "preload", p.reason.c_str());
  } else if (p.blocker == tool::Blocker::foreign_loader) {
    std::printf("  %-20s nothing preloaded: %s\n", "preload", p.reason.c_str());
  } else {
    std::printf("  %-20s CANNOT serve malloc: %s\n", "preload", p.reason.c_str());
  }
  if (!p.linked_note.empty()) std::printf("  %-20s %s\n", "note", p.linked_note.c_str());
  // The figures behind this line are in docs/results.md (Static tools): on a static VPR glibc
  // tunables gave ~5%, a static rebuild with mimalloc 11%, a dynamic one with jemalloc 13%.
  if (tool::is_static(p.blocker))
    std::printf("  %-20s the allocator's gain needs a rebuild (glibc tunables give a few percent, an allocator\n"
                "  %-20s 10-15%% on VPR: docs/results.md, Static tools): link it dynamically (then edashim\n"
                "  %-20s preloads the allocator) or link an allocator in (mimalloc.o first on the link line)\n",
                "to gain more", "", "");
  if (!plan.fallback_library.empty()) {
    auto tunables = run::lookup(env.env, "GLIBC_TUNABLES");
    std::printf("  %-20s %s is left out of LD_PRELOAD\n", "instead", plan.fallback_library.c_str());
    if (plan.options_family.empty())  // a sanitizer's malloc, or an address-space limit: nothing instead
      std::printf("  %-20s nothing replaces it: %s\n", "", plan.fallback_effect.c_str());
    else if (tunables)
      std::printf("  %-20s GLIBC_TUNABLES=%s (%s): %s\n", "", tunables->c_str(), plan.fallback_source.c_str(),
                  plan.fallback_effect.c_str());
    else
      std::printf("  %-20s no [glibc] or [glibc_fallback] options configured: nothing replaces it\n", "");
  }
  print_unsafe_preloads(plan);
  if (!plan.probe_library.empty() && plan.flow_top)
    std::printf("  %-20s no records: %s\n", "probe", pipeline::kFlowTopNote);
  else if (!plan.probe_library.empty())
    std::printf("  %-20s on: each process records the object serving malloc; the run log gets \"processes\" and "
                "\"allocator_verified\"%s\n",
                "probe", p.blocker == tool::Blocker::own_malloc || p.blocker == tool::Blocker::address_space_limit || p.preload_reaches()
                             ? "" : " (it cannot load here either)");
  else
    std::printf("  %-20s off (%s)\n", "probe",
                !plan.loaded.settings.probe.value ? "probe = false"
                : p.blocker == tool::Blocker::sanitizer        ? "nothing may load ahead of the sanitizer's runtime"
                : p.blocker == tool::Blocker::foreign_loader   ? "it cannot load under this loader either"
                : tool::is_static(p.blocker)
                    ? "a static program loads nothing, and would pass it on unseen to what it starts"
                : probe_path_unsafe()
                    ? "its path holds a space or colon, which LD_PRELOAD cannot carry"
                    : "libedashim_probe.so not found");
  // The exec hook shares the probe's library (probe/hook.c).
  std::printf("  %-20s %s\n", "exec hook",
              !plan.hook_library.empty()
                  ? "on: tools with a profile of their own started inside this run get it and their own log line; "
                    "programs under a loader edashim's libraries cannot load in get nothing of edashim's"
              : p.blocker == tool::Blocker::foreign_loader ? "off: it cannot load under this loader either"
              : tool::is_static(p.blocker)
                  ? "off: a static program loads nothing, and what it starts would inherit the hook unseen "
                    "(a musl program there would stop before main); tools below it are reached through their "
                    "links only"
              : probe_path_unsafe()
                  ? "off: its path holds a space or colon, which LD_PRELOAD cannot carry"
                  : "off (nothing preloaded, or libedashim_probe.so not found)");
  std::printf("  %-20s %s\n", "inspection", p.cached ? "from the cache (file unchanged since last time)" : "read the file now");
}

// What is wrong, and the project files not (or never) to be used, each with how to change it.
void print_problems_and_trust(const config::Loaded& loaded) {
  if (!loaded.problems.empty()) {
    std::printf("\nproblems:\n");
    for (const auto& p : loaded.problems) std::printf("  %s\n", p.str().c_str());
  }
  for (const auto& f : loaded.untrusted_files) {
    auto it = loaded.ignored.find(f);
    std::printf("\nnot trusted: %s (trust it with: edashim trust %s; never use it: edashim trust --ignore %s)\n",
                f.c_str(), util::shell_quote(f).c_str(), util::shell_quote(f).c_str());
    if (it != loaded.ignored.end()) std::printf("  ignored: %s\n", util::join(it->second, ", ").c_str());
  }
  for (const auto& f : loaded.ignored_by_choice)
    std::printf("\nignored by your choice: %s (edashim trust --ignore; runs skip it without a word until it changes)\n"
                "  undo: edashim untrust %s   (or use it: edashim trust %s)\n",
                f.c_str(), util::shell_quote(f).c_str(), util::shell_quote(f).c_str());
}

// A broken configuration: the run is plain, so nothing below is applied; said before the
// settings, not after them, so nobody reads them as what a run uses.
void print_plain_notice(const pipeline::Plan& plan) {
  if (!plan.loaded.has_errors()) return;
  std::printf("\nTHE CONFIGURATION HAS ERRORS (see problems below): a run of %s now runs it plain, with none of\n"
              "these settings and no environment change, until they are fixed (edashim run --strict stops instead)\n",
              plan.inv.tool.c_str());
}

// The tool's last run in the log (its tail: the last MiB), as report would name its end.
void print_last_run(const pipeline::Plan& plan) {
  if (plan.log_path.empty()) return;
  // A run that ended without a word since the last one finished is named now.
  pipeline::sweep_runs_left(pipeline::default_sweep_bases(), SIZE_MAX);
  util::Fd fd(::open(plan.log_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  off_t from = st.st_size > (1 << 20) ? st.st_size - (1 << 20) : 0;
  std::string tail(size_t(st.st_size - from), '\0');
  ssize_t n = ::pread(fd.get(), tail.data(), tail.size(), from);
  if (n <= 0) return;
  tail.resize(size_t(n));
  auto lines = util::split(tail, '\n');
  runlog::RunRecord rec;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!runlog::parse_run_line(*it, rec) || !rec.record.empty() || rec.tool != plan.inv.tool) continue;
    std::string how = !rec.ended.empty()          ? "ended " + rec.ended
                      : !rec.config_error.empty() ? "ran plain: " + rec.config_error
                      : rec.status                ? "status " + std::to_string(*rec.status)
                                                  : std::string("status unknown");
    std::printf("  %-20s %s, %s\n", "last run", util::iso_time_utc(rec.start_unix).c_str(), how.c_str());
    return;
  }
}

// Which tool a run would start, or where it was looked for.
// What typing the name in a shell here runs: the first executable of that name on PATH. Not
// edashim when a directory before the links has the tool (a later `module load` of the tool puts
// its own bin first): then everything below is what a run would do, not what typing the name does.
void print_what_typing_runs(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string first = tool::resolve(name, path ? path : "", tool::SelfIdentity{}).path;  // nothing skipped
  if (first.empty()) return;
  if (tool::is_edashim(first, tool::SelfIdentity::current(std::getenv(pipeline::kChainVar))))
    std::printf("  typing %s here:     runs through edashim (%s)\n", name.c_str(), first.c_str());
  else
    std::printf("  typing %s here:     runs %s DIRECTLY, not through edashim: %s comes before edashim's links on "
                "PATH (a `module load` of a tool puts its own bin first). To run it through edashim: %s; or run "
                "it as `edashim run -- %s`\n",
                name.c_str(), first.c_str(), util::dirname(first).c_str(),
                links_first_fix_here("put the links first on PATH again").c_str(), name.c_str());
}

void print_tool(const pipeline::Invocation& inv, const pipeline::Plan& plan) {
  std::printf("tool: %s\n", inv.tool.c_str());
  if (plan.tool_path.empty()) {
    std::printf("  real tool: NOT FOUND (searched %s)\n", util::join(plan.resolution.searched, ":").c_str());
  } else {
    std::printf("  real tool: %s\n", plan.tool_path.c_str());
  }
  for (const auto& skipped : plan.resolution.skipped) std::printf("  skipped (edashim itself): %s\n", skipped.c_str());
  if (inv.explicit_path.empty()) print_what_typing_runs(inv.tool);
}

void print_config_files(const config::Loaded& loaded) {
  std::printf("\nconfig files, lowest priority first:\n");
  for (const auto& f : loaded.files)
    std::printf("  [%s] %s  %s%s%s\n", config::file_kind_name(f.kind), f.path.c_str(), f.used ? "used" : "NOT used",
                f.note.empty() ? "" : ": ", f.note.c_str());
  if (loaded.files.empty()) std::printf("  (none found)\n");
}

// A setting's row: its name, its value, and the file and line that set it.
void print_setting(const char* name, const std::string& value, const config::Origin& o) {
  std::printf("  %-20s %-28s from %s\n", name, value.c_str(), o.str().c_str());
}

// The allocator, and what stands behind the choice: the learned entry (applied, overridden by a
// project file or a flag, or ignored: each said with its evidence), the library, and the
// caller's own preload that edashim leaves alone.
void print_allocator(const pipeline::Plan& plan) {
  const auto& s = plan.loaded.settings;
  print_setting("allocator", s.allocator.value, s.allocator.origin);
  if (const auto& l = plan.loaded.learned) {
    bool used = l->applied && s.allocator.origin.file == l->file;
    std::printf("  %-20s %s%s\n", "  learned", l->choice.summary.c_str(),
                used ? "" : l->applied ? " (overridden: a higher layer sets the allocator)" : "");
    if (!l->note.empty()) std::printf("  %-20s %s\n", "", l->note.c_str());
    std::printf("  %-20s %s:%d, %s\n", "", l->file.c_str(), l->choice.line, l->choice.date.c_str());
  } else if (s.adopt.value) {
    std::printf("  %-20s none for %s on this CPU model (adopt = true from %s)\n", "  learned", plan.inv.tool.c_str(),
                s.adopt.origin.str().c_str());
  }
  if (!plan.allocator_library.empty())
    std::printf("  %-20s %s (version %s, %s)\n", "  library", plan.allocator_library.c_str(),
                plan.allocator_version.empty() ? "unknown" : plan.allocator_version.c_str(),
                alloc::build_in_words(plan.allocator_build).c_str());
  if (!plan.allocator_note.empty()) std::printf("  %-20s %s\n", "  note", plan.allocator_note.c_str());
  if (!plan.preloaded_by_caller.empty())
    std::printf("  %-20s your LD_PRELOAD already has %s: you chose that allocator, so edashim adds none "
                "(and none of its options)\n", "  not added", plan.preloaded_by_caller.c_str());
}

// Exploration: how often, which candidates, and whether this very run could explore.
void print_explore(const pipeline::Plan& plan, const std::vector<std::string>& env) {
  const auto& s = plan.loaded.settings;
  if (!(s.explore.value > 0)) return;
  char share[32];
  std::snprintf(share, sizeof share, "%g of runs", s.explore.value);
  print_setting("explore", share, s.explore.origin);
  print_setting("  candidates", util::join(s.explore_profiles.value, ", "), s.explore_profiles.origin);
  std::string why = pipeline::why_not_explore(plan, env);
  std::printf("  %-20s %s\n", "  this run", why.empty() ? ("may run a candidate instead of " + plan.arm +
                                                            " (the log line's \"explore\" says when it does)").c_str()
                                                       : ("never explores: " + why).c_str());
}

// Every setting with where it came from; allocator options of another allocator are shown too,
// marked unused, so a misplaced option is seen rather than silently ignored.
void print_settings(const pipeline::Plan& plan, const std::vector<std::string>& env) {
  const auto& s = plan.loaded.settings;
  std::printf("\nsettings%s:\n", plan.loaded.has_errors() ? " once the errors are fixed (files with errors left out)" : "");
  print_allocator(plan);
  if (!s.library_dirs.value.empty()) print_setting("library_dirs", util::join(s.library_dirs.value, ":"), s.library_dirs.origin);
  if (!s.shared_dirs.value.empty()) print_setting("shared_dirs", util::join(s.shared_dirs.value, ", "), s.shared_dirs.origin);
  print_setting("locale", s.locale.value.empty() ? "keep" : s.locale.value, s.locale.origin);
  print_setting("scratch", !s.scratch.value ? "off" : s.scratch_override.value ? "tmpfs, override your TMPDIR" : "tmpfs",
                s.scratch.origin);
  if (s.scratch.value) std::printf("  %-20s %s\n", "  where", plan.scratch_note.c_str());
  print_setting("keep_scratch", s.keep_scratch.value ? "true" : "false", s.keep_scratch.origin);
  print_setting("probe", s.probe.value ? "on" : "off", s.probe.origin);
  print_setting("supervise", s.supervise.value ? "true" : "false", s.supervise.origin);
  std::printf("  %-20s %s\n", "  run mode", plan.mode_note.c_str());
  print_setting("log", plan.log_path.empty() ? "off" : plan.log_path, s.log.origin);
  if (plan.log_path != s.log.value && !plan.log_path.empty() && !s.log.value.empty())
    std::printf("  %-20s %s, {host} = %s (this machine's name)\n", "  as written", s.log.value.c_str(), plan.host.c_str());
  print_explore(plan, env);
  for (const auto& [family, options] : s.options)
    for (const auto& [name, v] : options)
      std::printf("  %-20s %-28s from %s%s\n", ("[" + family + "] " + name).c_str(),
                  alloc::render_option(v.value, true).c_str(), v.origin.str().c_str(),
                  family == plan.options_family ? "" : "  (not used with this allocator)");
  for (const auto& [name, v] : s.env)
    std::printf("  %-20s %-28s from %s\n", ("[env] " + name).c_str(), v.value ? v.value->c_str() : "(unset)",
                v.origin.str().c_str());
}

void print_environment_changes(const pipeline::Plan& plan, const run::EnvPlan& tool_env) {
  std::printf("\nenvironment changes for the tool%s:\n",
              plan.loaded.has_errors() ? " once the errors are fixed (now: none, the tool runs plain)" : "");
  for (const auto& c : tool_env.changes)
    std::printf("  %s=%s%s\n", c.name.c_str(), c.after ? util::shell_quote(*c.after).c_str() : "",
                c.after ? "" : "  (removed)");
  for (const auto& k : tool_env.kept)
    std::printf("  %s=%s  (yours, kept: the profile's %s does not apply)\n", k.name.c_str(),
                util::shell_quote(k.yours).c_str(), k.profile ? util::shell_quote(*k.profile).c_str() : "unset");
}

}  // namespace

int explain(const pipeline::Invocation& inv) {
  paths::Files paths = paths::Files::discover();
  auto env = pipeline::current_environment();
  pipeline::Plan plan = pipeline::make_plan(inv, paths, env);
  // explain is asked for: its answer goes to stdout.
  print_tool(inv, plan);
  print_config_files(plan.loaded);
  print_plain_notice(plan);
  print_settings(plan, env);
  // The scratch directory is made per run: a placeholder stands for the name it would get.
  auto tool_env = pipeline::plan_environment(plan, env, plan.scratch_base.empty() ? "" : plan.scratch_base + "/edashim-...");
  print_proof(plan, tool_env);
  print_environment_changes(plan, tool_env);
  print_problems_and_trust(plan.loaded);
  print_last_run(plan);
  return plan.loaded.has_errors() || plan.tool_path.empty() ? 1 : 0;
}

}  // namespace commands
