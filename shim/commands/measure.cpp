#include "commands/measure.hpp"

#include <unistd.h>

extern char** environ;

#include "commands/profiles_cmd.hpp"
#include "pipeline/explore.hpp"
#include "pipeline/plan.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace commands {

void add_spec_options(CLI::App* cmd, bench::Spec& s) {
  cmd->add_option("-n,-r,--runs", s.runs, "Measured runs per arm")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("-w,--warmup", s.warmup, "Unmeasured runs per arm first")->check(CLI::Range(0, 1000))->capture_default_str();
  cmd->add_option("-j,--jobs", s.jobs, "Runs at the same time (concurrency is part of the experiment)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--fresh-copy", s.fresh_copy, "Copy these inputs into a new directory for every run and run there");
  cmd->add_option("--on", s.on, "Where the fresh copies live")->check(CLI::IsMember({"disk", "tmpfs"}))->capture_default_str();
  cmd->add_option("--seed", s.seed, "Seed of the run order and the bootstrap")->capture_default_str();
  cmd->add_option("--setup", s.setup, "Shell command run once before the first run (hyperfine's), untimed");
  cmd->add_option("--prepare", s.prepare, "Shell command run before every run (hyperfine's), untimed; failing fails that run");
  cmd->add_option("--cleanup", s.cleanup, "Shell command run once after the last run (hyperfine's), untimed");
  cmd->add_flag_function("--no-progress", [&s](std::int64_t) { s.progress = false; }, "No progress bar even on a terminal");
}

bench::ArmPreview preview_arm(const std::string& profile, const std::vector<std::string>& command,
                              const std::vector<std::string>& env) {
  pipeline::Invocation inv;
  inv.tool = util::basename(command.front());
  inv.argv = command;
  if (command.front().find('/') != std::string::npos) inv.explicit_path = command.front();
  if (profile == bench::kSystemArm) {
    inv.chosen.allocator = "system";
    inv.chosen.allocator_origin = "--allocator";
  } else if (!profile.empty()) {
    inv.chosen.profile = profile;
    inv.chosen.profile_origin = "--profile";
  }
  inv.strict = true;
  auto plan = pipeline::make_plan(inv, paths::Files::discover(), env);
  bench::ArmPreview p;
  for (const auto& problem : plan.loaded.problems)
    if (problem.error) p.errors.push_back(problem.str());
  if (!p.errors.empty() && profile.find('/') == std::string::npos) {
    auto known = available_profiles();
    if (!known.count(profile)) {
      std::vector<std::string> names;
      for (const auto& [name, where] : known) names.push_back(name);
      // The loader's error names the nearest of these already.
      p.errors.push_back("profiles here: " + util::join(names, ", "));
    }
  }
  if (plan.tool_path.empty()) p.errors.push_back(tool::not_found_message(inv.tool, plan.resolution));
  if (!plan.allocator_note.empty()) p.warnings.push_back(plan.allocator_note);
  // As pipeline/plan.cpp decides it: without the probe a run has no VmPeak (peak virtual size).
  if (plan.probe_library.empty() && !plan.tool_path.empty())
    p.probe_off = !plan.loaded.settings.probe.value ? "probe = false (" + plan.loaded.settings.probe.origin.str() + ")"
                  : plan.preflight.blocker == tool::Blocker::sanitizer
                      ? "a sanitizer runtime must load first, so the probe is not preloaded"
                      : "libedashim_probe.so is not installed next to edashim";
  // The scratch directory's name has the length run/scratch.cpp gives it (the pid's digits may
  // differ by one or two between runs, in every arm alike).
  std::string scratch = plan.scratch_base.empty()
                            ? ""
                            : plan.scratch_base + "/edashim-" + std::to_string(::getuid()) + "-" +
                                  std::to_string(::getpid()) + "-XXXXXX";
  for (const auto& e : pipeline::plan_environment(plan, env, scratch).env) p.tool_env_bytes += e.size() + 1;
  return p;
}

std::string current_arm(const std::vector<std::string>& command) {
  if (command.empty()) return "";
  pipeline::Invocation inv;
  inv.tool = util::basename(command.front());
  inv.argv = command;
  if (command.front().find('/') != std::string::npos) inv.explicit_path = command.front();
  // As a bench run sees it: the caller's EDASHIM_PROFILE and EDASHIM_ALLOCATOR do not reach it.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (!util::starts_with(kv, "EDASHIM_PROFILE=") && !util::starts_with(kv, "EDASHIM_ALLOCATOR=") &&
        !util::starts_with(kv, "EDASHIM_EXPLORE="))
      env.push_back(kv);
  }
  env.push_back("EDASHIM_EXPLORE=0");
  auto plan = pipeline::make_plan(inv, paths::Files::discover(), env);
  if (plan.loaded.has_errors() || plan.tool_path.empty()) return "";
  return plan.arm;
}

}  // namespace commands
